/* Fat-tree generator: extended generalized fat trees XGFT(h; m_1..m_h; w_1..w_h)
 * (Ohring et al. 1995; Zahavi 2010), with `parallel` cables per connected
 * switch pair.
 *
 * Definition used here.  Levels 0..h: level 0 are the hosts, levels 1..h are
 * switches.  A level-l node has m_l children (l >= 1) and w_{l+1} parents
 * (l < h).  A level-l node carries the label (a_h, ..., a_{l+1}, b_l, ..., b_1)
 * with a_i in [0, m_i) and b_i in [0, w_i), so level l has
 *     N_l = (m_{l+1} ... m_h) (w_1 ... w_l)
 * nodes.  Node (a_h..a_{l+2}, a_{l+1}, b_l..b_1) at level l is linked to the
 * w_{l+1} parents (a_h..a_{l+2}, b_{l+1}, b_l..b_1), b_{l+1} in [0, w_{l+1});
 * equivalently a level-(l+1) node's children are its label with b_{l+1}
 * replaced by every a_{l+1} in [0, m_{l+1}).  The index of a node within its
 * level is its label read as a mixed-radix number, a_h most significant and
 * b_1 least, so the nodes below one subtree are contiguous (hosts below a
 * leaf are consecutive, D-mod-K numbering).
 *
 * Options map onto this as m[l-1] = m_l and w[l-1] = w_l: m[0] = hosts per
 * leaf, w[0] = w_1 = 1 (a host has one leaf), m[1] = children of a level-2
 * switch, w[1] = parents of a leaf, and so on.
 *   k-ary n-tree       = XGFT(n; k, .., k; 1, k, .., k)
 *   2-level RLFT, 12 leaves x 6 spines x 3 cables, 18 hosts per leaf
 *                      = XGFT(2; 18, 12; 1, 6), parallel 3
 *
 * Ports.  Down ports first, then up ports.  A leaf has hosts a_1 = 0..m_1-1
 * on ports 1..m_1.  A level-l switch (l >= 2) has child a_l, cable j on port
 * a_l*P + j + 1 (P = parallel).  Up ports follow the down ports: parent
 * b_{l+1}, cable j on port down + b_{l+1}*P + j + 1, so cables to one parent
 * are consecutive.  Top switches have no up ports.  With switch_ports 0 each
 * switch gets exactly the ports its level needs (top switches fewer);
 * otherwise every switch gets switch_ports ports and the rest stay unused.
 *
 * Nodes: switches level 1 (leaves) first, then level 2, ..., then hosts.
 * Names: "ft-l<level>-s<index in level, 4 digits>", hosts "ft-h<5 digits>";
 * node id = name.  Tree recognition can take the level from the name. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

#define L_MAX IBF_FT_MAX_LEVELS

static uint32_t encode(const int *lab, const int *radix, int h)
{
	uint32_t idx = 0;
	for (int i = h; i >= 1; i--)
		idx = idx * (uint32_t)radix[i] + (uint32_t)lab[i];
	return idx;
}

static void decode(uint32_t idx, int *lab, const int *radix, int h)
{
	for (int i = 1; i <= h; i++) {
		lab[i] = (int)(idx % (uint32_t)radix[i]);
		idx /= (uint32_t)radix[i];
	}
}

/* radices of the labels at level l */
static void level_radix(int l, int h, const int *M, const int *W, int *radix)
{
	for (int i = 1; i <= h; i++)
		radix[i] = i > l ? M[i] : W[i];
}

struct ibf_fabric *ibf_gen_fattree(const struct ibf_fattree_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fat-tree options");
		return NULL;
	}
	int h = o->levels;
	if (h < 1 || h > L_MAX) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "levels=%d is out of range 1..%d", h,
			      L_MAX);
		return NULL;
	}
	int M[L_MAX + 2], W[L_MAX + 2];
	for (int l = 1; l <= h; l++) {
		M[l] = o->m[l - 1];
		W[l] = o->w[l - 1];
		if (M[l] < 1 || M[l] > IBF_MAX_PORTS) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0,
				      "m[%d]=%d is out of range 1..%d (%s)", l - 1, M[l],
				      IBF_MAX_PORTS,
				      l == 1 ? "hosts per leaf" : "children per switch");
			return NULL;
		}
		if (l == 1 && W[l] != 1) {
			ibf_error_set(
				err, IBF_EINVAL, NULL, 0,
				"w[0]=%d is invalid: every host has exactly one leaf, so w[0] "
				"must be 1",
				W[l]);
			return NULL;
		}
		if (W[l] < 1 || W[l] > IBF_MAX_PORTS) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0,
				      "w[%d]=%d is out of range 1..%d (parents per switch)", l - 1,
				      W[l], IBF_MAX_PORTS);
			return NULL;
		}
	}
	int par = o->parallel;
	if (par < 1 || par > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "parallel=%d is out of range 1..%d", par,
			      IBF_MAX_PORTS);
		return NULL;
	}
	if (o->switch_ports < 0 || o->switch_ports > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "switch_ports=%d is out of range 0..%d (0 = as needed)",
			      o->switch_ports, IBF_MAX_PORTS);
		return NULL;
	}

	/* counts, ports */
	uint64_t count[L_MAX + 2];
	uint64_t total = 0;
	for (int l = 0; l <= h; l++) {
		uint64_t c = 1;
		for (int i = l + 1; i <= h; i++)
			c *= (uint64_t)M[i];
		for (int i = 1; i <= l; i++)
			c *= (uint64_t)W[i];
		count[l] = c; /* at most 254^6 < 2^48: no overflow */
		total += c;
	}
	if (total > IBF_GEN_MAX_NODES) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "this fat tree has %llu nodes; at most %u supported",
			      (unsigned long long)total, IBF_GEN_MAX_NODES);
		return NULL;
	}
	int down[L_MAX + 2], need[L_MAX + 2], maxneed = 0;
	for (int l = 1; l <= h; l++) {
		down[l] = l == 1 ? M[1] : M[l] * par;
		long up = l < h ? (long)W[l + 1] * par : 0;
		long n = down[l] + up;
		if (n > IBF_MAX_PORTS) {
			ibf_error_set(
				err, IBF_EINVAL, NULL, 0,
				"level-%d switches need %ld ports (%d down + %ld up); at most %d",
				l, n, down[l], up, IBF_MAX_PORTS);
			return NULL;
		}
		need[l] = (int)n;
		if (need[l] > maxneed)
			maxneed = need[l];
	}
	if (o->switch_ports && o->switch_ports < maxneed) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"switch_ports=%d is too small: this fat tree needs %d ports per switch",
			o->switch_ports, maxneed);
		return NULL;
	}

	struct ibf_fabric *f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	uint32_t base[L_MAX + 2];
	char name[64];
	uint32_t sw = 0;
	for (int l = 1; l <= h; l++) {
		base[l] = sw;
		int np = o->switch_ports ? o->switch_ports : need[l];
		for (uint32_t i = 0; i < count[l]; i++, sw++) {
			snprintf(name, sizeof(name), "ft-l%d-s%04u", l, i);
			if (ibf_gen_add_switch(f, sw, np, name, err) < 0)
				goto fail;
		}
	}
	uint32_t hostbase = sw;
	for (uint32_t i = 0; i < count[0]; i++) {
		snprintf(name, sizeof(name), "ft-h%05u", i);
		if (ibf_gen_add_ca(f, i, 1, name, name, 0, err) < 0)
			goto fail;
	}

	int lab[L_MAX + 2], rlow[L_MAX + 2], rup[L_MAX + 2];
	for (int l = 0; l < h; l++) {
		level_radix(l, h, M, W, rlow);
		level_radix(l + 1, h, M, W, rup);
		int cables = l == 0 ? 1 : par;
		for (uint32_t i = 0; i < count[l]; i++) {
			decode(i, lab, rlow, h);
			int a = lab[l + 1]; /* which child of its parents this node is */
			int child = (int)(l == 0 ? hostbase + i : base[l] + i);
			for (int b = 0; b < W[l + 1]; b++) {
				lab[l + 1] = b;
				int parent = (int)(base[l + 1] + encode(lab, rup, h));
				for (int j = 0; j < cables; j++) {
					int cport = l == 0 ? 1 : down[l] + b * par + j + 1;
					int pport = l == 0 ? a + 1 : a * par + j + 1;
					if (ibf_gen_link(f, child, cport, parent, pport, err))
						goto fail;
				}
			}
		}
	}

	char meta[256], ms[96] = "", ws[96] = "";
	for (int l = 1; l <= h; l++) {
		size_t a = strlen(ms), b = strlen(ws);
		snprintf(ms + a, sizeof(ms) - a, "%s%d", l > 1 ? "," : "", M[l]);
		snprintf(ws + b, sizeof(ws) - b, "%s%d", l > 1 ? "," : "", W[l]);
	}
	snprintf(meta, sizeof(meta), "family=fattree;levels=%d;m=%s;w=%s;parallel=%d", h, ms, ws,
		 par);
	return ibf_gen_done(f, meta, err);
fail:
	ibf_fabric_free(f);
	return NULL;
}

struct ibf_fabric *ibf_gen_kary_ntree(int k, int n, struct ibf_error *err)
{
	if (k < 2 || k > IBF_MAX_PORTS / 2) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "k=%d is out of range 2..%d", k,
			      IBF_MAX_PORTS / 2);
		return NULL;
	}
	if (n < 1 || n > IBF_FT_MAX_LEVELS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "n=%d is out of range 1..%d", n,
			      IBF_FT_MAX_LEVELS);
		return NULL;
	}
	struct ibf_fattree_opts o;
	memset(&o, 0, sizeof(o));
	o.levels = n;
	o.parallel = 1;
	for (int l = 0; l < n; l++) {
		o.m[l] = k;
		o.w[l] = l == 0 ? 1 : k;
	}
	return ibf_gen_fattree(&o, err);
}
