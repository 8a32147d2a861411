/* Rail-only and rail-optimised GPU clusters.
 *
 * M servers with K GPUs each; GPU g of every server has its own NIC, a
 * one-port CA on rail g.  Each rail has `rail_switches` leaf switches and
 * the servers are split over them in contiguous, as-even-as-possible blocks
 * (the first M mod R leaves take one server more).
 *
 *   spines = 0   rail-only: no switch path between rails.  A rail is then a
 *                single switch, so rail_switches must be 1 (a multi-switch
 *                rail needs spines to join its leaves; asking for one without
 *                them is an error).
 *   spines > 0   rail-optimised: every leaf of every rail has `uplinks`
 *                cables (0 = 1) to every spine; the spines join the rails.
 *
 * Ports.  Leaf: servers of its block on ports 1..n (in server order), then
 * spine s, cable j on port B + s*U + j + 1 where B = ceil(M/R), so every leaf
 * uses the same port towards a given spine.  Spine: leaf l of rail g, cable j
 * on port (g*R + l)*U + j + 1.  With switch_ports 0 leaves get B + S*U ports
 * and spines K*R*U; otherwise every switch gets switch_ports.
 *
 * Nodes: leaves rail-major ("rail%02d-l%02d"), spines ("spine%02d"), then
 * NICs server-major, CA index i*K + g, description "srv%03d mlx5_%d" (the
 * server is the host name, the rail the device index), node id
 * "srv%03d-mlx5_%d"; all NICs of a server share one system image GUID (the
 * node GUID of its mlx5_0). */
#include "gen_internal.h"

#include <stdlib.h>

struct ibf_fabric *ibf_gen_rail(const struct ibf_rail_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no rail options");
		return NULL;
	}
	int M = o->servers, K = o->gpus, R = o->rail_switches, S = o->spines;
	int U = o->uplinks ? o->uplinks : 1;
	if (M < 1 || (uint64_t)M > IBF_GEN_MAX_NODES) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "servers=%d is out of range 1..%u", M,
			      IBF_GEN_MAX_NODES);
		return NULL;
	}
	if (K < 1 || K > 64) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "gpus=%d is out of range 1..64 (GPUs = NICs = rails per server)", K);
		return NULL;
	}
	if (R < 1 || R > M) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"rail_switches=%d is out of range 1..%d (at most one leaf per server)", R,
			M);
		return NULL;
	}
	if (S < 0 || S > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "spines=%d is out of range 0..%d", S,
			      IBF_MAX_PORTS);
		return NULL;
	}
	if (S == 0 && R > 1) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"rail_switches=%d needs spines > 0: a rail-only fabric (spines=0) has "
			"one switch per rail",
			R);
		return NULL;
	}
	if (S == 0 && U > 1) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "uplinks=%d needs spines > 0: uplinks are the cables from each rail "
			      "leaf to each spine",
			      U);
		return NULL;
	}
	if (U < 1 || U > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "uplinks=%d is out of range 1..%d",
			      o->uplinks, IBF_MAX_PORTS);
		return NULL;
	}
	if (o->switch_ports < 0 || o->switch_ports > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "switch_ports=%d is out of range 0..%d (0 = as needed)",
			      o->switch_ports, IBF_MAX_PORTS);
		return NULL;
	}
	int B = (M + R - 1) / R;
	long leafneed = B + (long)S * U;
	long spineneed = S ? (long)K * R * U : 0;
	if (leafneed > IBF_MAX_PORTS) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"rail leaves need %ld ports (%d servers + %d spines x %d uplinks); at "
			"most %d: raise rail_switches",
			leafneed, B, S, U, IBF_MAX_PORTS);
		return NULL;
	}
	if (spineneed > IBF_MAX_PORTS) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"spines need %ld ports (%d rails x %d leaves x %d uplinks); at most %d",
			spineneed, K, R, U, IBF_MAX_PORTS);
		return NULL;
	}
	long maxneed = leafneed > spineneed ? leafneed : spineneed;
	if (o->switch_ports && o->switch_ports < maxneed) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "switch_ports=%d is too small: this rail fabric needs %ld ports per "
			      "switch",
			      o->switch_ports, maxneed);
		return NULL;
	}
	uint64_t total = (uint64_t)M * (uint64_t)K + (uint64_t)K * (uint64_t)R + (uint64_t)S;
	if (total > IBF_GEN_MAX_NODES) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "this rail fabric has %llu nodes; at most %u supported",
			      (unsigned long long)total, IBF_GEN_MAX_NODES);
		return NULL;
	}

	struct ibf_fabric *f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	char name[64], id[64];
	int leafports = o->switch_ports ? o->switch_ports : (int)leafneed;
	int spineports = o->switch_ports ? o->switch_ports : (int)spineneed;
	int wr = ibf_gen_width(K, 2), wl = ibf_gen_width(R, 2), ws = ibf_gen_width(S, 2);
	int wsrv = ibf_gen_width(M, 3);
	uint32_t sw = 0;
	for (int g = 0; g < K; g++)
		for (int l = 0; l < R; l++) {
			snprintf(name, sizeof(name), "rail%0*d-l%0*d", wr, g, wl, l);
			if (ibf_gen_add_switch(f, sw++, leafports, name, err) < 0)
				goto fail;
		}
	int spine0 = (int)sw;
	for (int s = 0; s < S; s++) {
		snprintf(name, sizeof(name), "spine%0*d", ws, s);
		if (ibf_gen_add_switch(f, sw++, spineports, name, err) < 0)
			goto fail;
	}
	/* leaf l holds servers [first(l), first(l+1)) */
	int big = M % R; /* leaves with B servers when M % R != 0 */
	for (int i = 0; i < M; i++) {
		int l, slot;
		if (M % R == 0) {
			l = i / B;
			slot = i % B;
		} else if (i < big * B) {
			l = i / B;
			slot = i % B;
		} else {
			l = big + (i - big * B) / (B - 1);
			slot = (i - big * B) % (B - 1);
		}
		uint64_t sysimg = ibf_gen_guid(IBF_NODE_CA, (uint32_t)i * (uint32_t)K, 0);
		for (int g = 0; g < K; g++) {
			snprintf(name, sizeof(name), "srv%0*d mlx5_%d", wsrv, i, g);
			snprintf(id, sizeof(id), "srv%0*d-mlx5_%d", wsrv, i, g);
			uint32_t idx = (uint32_t)i * (uint32_t)K + (uint32_t)g;
			int c = ibf_gen_add_ca(f, idx, 1, name, id, sysimg, err);
			if (c < 0 || ibf_gen_link(f, c, 1, g * R + l, slot + 1, err))
				goto fail;
		}
	}
	for (int g = 0; g < K; g++)
		for (int l = 0; l < R; l++)
			for (int s = 0; s < S; s++)
				for (int j = 0; j < U; j++)
					if (ibf_gen_link(f, g * R + l, B + s * U + j + 1,
							 spine0 + s, (g * R + l) * U + j + 1, err))
						goto fail;

	char meta[256];
	snprintf(meta, sizeof(meta),
		 "family=rail;servers=%d;gpus=%d;rails=%d;rail_switches=%d;spines=%d;uplinks=%d", M,
		 K, K, R, S, U);
	return ibf_gen_done(f, meta, err);
fail:
	ibf_fabric_free(f);
	return NULL;
}
