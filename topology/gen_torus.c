/* Torus and mesh (k-ary n-cube): switches at coordinates (c_0, .., c_{n-1}),
 * 0 <= c_d < k_d, each cabled to its neighbour c_d + 1 in every dimension,
 * and in a torus the last one c_d = k_d - 1 back to c_d = 0.  A dimension of
 * size 2 has one cable per switch pair (its two neighbours are the same
 * switch); a ring is the torus of one dimension.  Shortest paths on a ring
 * of 5 or more switches, or any torus dimension of 5 or more, close a credit
 * loop: the fabric on which deadlock schemes and the packet simulator's
 * deadlock detection are shown.
 *
 * Ports: hosts 1..H, then per dimension d the cable to c_d + 1 on port
 * H + 2d + 1 and the cable from c_d - 1 on port H + 2d + 2.  Switch
 * index = c_0 * k_1 * .. * k_{n-1} + .. + c_{n-1} (the last coordinate
 * fastest), named "tor-C0-C1-.." ("mesh-.." for a mesh); hosts follow all
 * switches, named "<switch>-hNN". */
#include "gen_internal.h"

#include <stdio.h>
#include <string.h>

struct ibf_fabric *ibf_gen_torus(const struct ibf_torus_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no torus options");
		return NULL;
	}
	int n = o->ndims, H = o->hosts;
	if (n < 1 || n > IBF_TORUS_MAX_DIMS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "%d dimensions: a torus has 1..%d", n,
			      IBF_TORUS_MAX_DIMS);
		return NULL;
	}
	long nsw = 1;
	for (int d = 0; d < n; d++) {
		if (o->k[d] < 2 || o->k[d] > 4096) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0,
				      "dimension %d has %d switches: 2..4096 per dimension", d + 1,
				      o->k[d]);
			return NULL;
		}
		nsw *= o->k[d];
		if (nsw > 65536) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0,
				      "more than 65536 switches (the product of the dimensions)");
			return NULL;
		}
	}
	if (H < 0 || H + 2 * n > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "hosts=%d: the switches need %d ports for the hosts and 2 per "
			      "dimension; at most %d",
			      H, H + 2 * n, IBF_MAX_PORTS);
		return NULL;
	}
	if (nsw * (H + 1) > (long)IBF_GEN_MAX_NODES) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "too many nodes (%ld switches x %d hosts)",
			      nsw, H);
		return NULL;
	}
	struct ibf_fabric *f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	long stride[IBF_TORUS_MAX_DIMS];
	int width[IBF_TORUS_MAX_DIMS];
	for (int d = n - 1; d >= 0; d--) {
		stride[d] = d == n - 1 ? 1 : stride[d + 1] * o->k[d + 1];
		width[d] = ibf_gen_width(o->k[d], 2);
	}
	const char *prefix = o->mesh ? "mesh" : "tor";
	char name[160];
	for (long s = 0; s < nsw; s++) {
		size_t len = (size_t)snprintf(name, sizeof(name), "%s", prefix);
		for (int d = 0; d < n && len < sizeof(name); d++)
			len += (size_t)snprintf(name + len, sizeof(name) - len, "-%0*ld", width[d],
						(s / stride[d]) % o->k[d]);
		if (ibf_gen_add_switch(f, (uint32_t)s, H + 2 * n, name, err) < 0)
			goto fail;
	}
	for (long s = 0; s < nsw; s++)
		for (int d = 0; d < n; d++) {
			long c = (s / stride[d]) % o->k[d];
			if (c == o->k[d] - 1 && (o->mesh || o->k[d] == 2))
				continue; /* no wrap-around: a mesh, or the pair already cabled */
			long nb = c == o->k[d] - 1 ? s - c * stride[d] : s + stride[d];
			if (ibf_gen_link(f, (int)s, H + 2 * d + 1, (int)nb, H + 2 * d + 2, err))
				goto fail;
		}
	if (ibf_gen_hosts(f, (uint32_t)nsw, H, 0, err))
		goto fail;
	char meta[160];
	size_t ml = (size_t)snprintf(meta, sizeof(meta), "family=%s;dims=", o->mesh ? "mesh" : "torus");
	for (int d = 0; d < n && ml < sizeof(meta); d++)
		ml += (size_t)snprintf(meta + ml, sizeof(meta) - ml, "%s%d", d ? "," : "", o->k[d]);
	if (ml < sizeof(meta))
		snprintf(meta + ml, sizeof(meta) - ml, ";hosts=%d", H);
	return ibf_gen_done(f, meta, err);
fail:
	ibf_fabric_free(f);
	return NULL;
}
