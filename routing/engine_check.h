/* Private to the engine test and benchmark: an independent reading of the
 * tables (no engine code involved).  Traces every (switch, LID), checks the
 * hop table, and measures per-pair edge-disjointness across the LIDs of a
 * destination port and the paths per directed link.  Header-only, static. */
#ifndef IBF_ENGINE_CHECK_H
#define IBF_ENGINE_CHECK_H

#include "ibf_routing.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ec_result {
	uint64_t entries; /* (switch, LID) traced */
	uint64_t unrouted, loops, wrong, hops_bad;
	uint64_t nonshortest0; /* LID offset 0 longer than the distance */
	uint64_t nonshortest;  /* any LID longer than the distance */
	uint32_t max_len_hi;   /* longest switch-to-switch path at LID offset >= 1 */
	uint64_t len_hi_over3; /* paths at offset >= 1 longer than 3 hops */
	uint64_t pairs_sw;     /* ordered (s, t) pairs, t with a CA port, s != t */
	uint64_t ge[9];	       /* of those with >= k pairwise edge-disjoint paths */
	uint64_t pairs_port;   /* (s, CA port) pairs */
	uint64_t ge_port[9];
	double link_max, link_mean; /* paths (source switch, CA LID) per directed link */
};

/* cable id of directed CSR link e */
static inline uint32_t ec_cable(const struct ibf_fabric *f, uint32_t s, uint32_t e)
{
	uint32_t u = f->adj[e].nbr;
	for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++)
		if (f->adj[k].nbr == s && f->adj[k].lport == f->adj[e].rport)
			return k < e ? k : e;
	return e;
}

/* the directed link leaving switch s by port p, or UINT32_MAX */
static inline uint32_t ec_link(const struct ibf_fabric *f, uint32_t s, unsigned p)
{
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
		if (f->adj[e].lport == p)
			return e;
	return UINT32_MAX;
}

static int ec_maxdisjoint(int n, const uint32_t (*paths)[64], const int *plen)
{
	/* n <= 8: best subset of pairwise cable-disjoint paths */
	int conflict[8] = { 0 };
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			int hit = 0;
			for (int i = 0; i < plen[a] && !hit; i++)
				for (int j = 0; j < plen[b]; j++)
					if (paths[a][i] == paths[b][j]) {
						hit = 1;
						break;
					}
			if (hit) {
				conflict[a] |= 1 << b;
				conflict[b] |= 1 << a;
			}
		}
	int best = 0;
	for (int m = 1; m < (1 << n); m++) {
		int ok = 1, cnt = 0;
		for (int a = 0; a < n && ok; a++)
			if (m >> a & 1) {
				cnt++;
				if (conflict[a] & m)
					ok = 0;
			}
		if (ok && cnt > best)
			best = cnt;
	}
	return best;
}

/* Trace everything.  dist: optional [nsw*nsw] distances (uint32, IBF_DIST_INF).
 * Returns 0, or -1 on allocation failure. */
static int ec_analyse(const struct ibf_fabric *f, const struct ibf_routes *r, struct ec_result *res)
{
	memset(res, 0, sizeof(*res));
	uint32_t S = f->nsw, E = f->adj_off[S];
	struct ibf_lidmap m;
	if (ibf_lidmap_build(f, &m, NULL))
		return -1;
	uint32_t *dist = malloc((size_t)S * S * sizeof(*dist) + 1);
	uint32_t *q = malloc(((size_t)S + 1) * sizeof(*q));
	uint64_t *load = calloc((size_t)E + 1, sizeof(*load));
	uint32_t *cab = malloc(((size_t)E + 1) * sizeof(*cab));
	if (!dist || !q || !load || !cab) {
		free(dist), free(q), free(load), free(cab);
		ibf_lidmap_free(&m);
		return -1;
	}
	for (uint32_t s = 0; s < S; s++) {
		ibf_bfs(f, s, dist + (size_t)s * S, q);
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			cab[e] = ec_cable(f, s, e);
	}
	static uint32_t paths[8][64];
	int plen[8];
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct ibf_node *nd = &f->nodes[n];
		int first_ca_port_of_t = 0;
		for (int p = 0; p <= nd->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)n, p);
			if (!pp->lid)
				continue;
			int is_sw = nd->type == IBF_NODE_SWITCH;
			int swp = 0, swn;
			if (is_sw)
				swn = (int)n;
			else if ((swn = ibf_port_switch(f, (int)n, p, &swp)) < 0)
				continue;
			uint32_t t = (uint32_t)f->nodes[swn].sw;
			uint32_t nl = 1u << pp->lmc;
			/* is this the first CA port on t? (for per-switch-pair shares) */
			first_ca_port_of_t = 0;
			if (!is_sw) {
				const struct ibf_node *tn = &f->nodes[swn];
				first_ca_port_of_t = 1;
				for (int k = 1; k < swp && k <= tn->nports; k++) {
					const struct ibf_port *kp = ibf_port(f, swn, k);
					if (kp->peer_node != IBF_NO_NODE &&
					    f->nodes[kp->peer_node].type != IBF_NODE_SWITCH &&
					    ibf_port(f, kp->peer_node, kp->peer_port)->lid)
						first_ca_port_of_t = 0;
				}
			}
			for (uint32_t s = 0; s < S; s++) {
				int npath = 0, all_ok = 1;
				for (uint32_t j = 0; j < nl; j++) {
					uint32_t lid = pp->lid + j;
					res->entries++;
					uint32_t x = s, hops = 0;
					int st = -1, len = 0;
					while (st < 0) {
						unsigned port = r->lft[(size_t)x * r->stride + lid];
						uint32_t nx = 0;
						if (port == IBF_LFT_NONE) {
							st = 1;
							break;
						}
						if (port == 0) {
							st = (m.node[lid] == f->switches[x] &&
							      m.port[lid] == 0)
								     ? 0
								     : 3;
							break;
						}
						const struct ibf_port *op =
							ibf_port(f, f->switches[x], (int)port);
						if (op->peer_node == IBF_NO_NODE) {
							st = 1;
							break;
						}
						if (f->nodes[op->peer_node].type !=
						    IBF_NODE_SWITCH) {
							st = (m.node[lid] == op->peer_node &&
							      m.port[lid] == op->peer_port)
								     ? 0
								     : 3;
							hops++;
							break;
						}
						uint32_t e = ec_link(f, x, port);
						if (len < 64 && j < 8)
							paths[j][len] = cab[e];
						len++;
						if (!is_sw)
							load[e]++;
						nx = (uint32_t)f->nodes[op->peer_node].sw;
						hops++;
						x = nx;
						if (hops > S + 2) {
							st = 2;
							break;
						}
					}
					if (st == 1)
						res->unrouted++;
					else if (st == 2)
						res->loops++;
					else if (st == 3)
						res->wrong++;
					if (st) {
						all_ok = 0;
						continue;
					}
					if (r->hops && r->hops[(size_t)s * r->stride + lid] != hops)
						res->hops_bad++;
					uint32_t dd = dist[(size_t)s * S + t];
					if ((uint32_t)len > dd) {
						res->nonshortest++;
						if (j == 0)
							res->nonshortest0++;
					}
					if (j > 0) {
						if ((uint32_t)len > res->max_len_hi)
							res->max_len_hi = (uint32_t)len;
						if (len > 3)
							res->len_hi_over3++;
					}
					if (j < 8) {
						plen[j] = len < 64 ? len : 64;
						npath = (int)j + 1;
					}
				}
				if (is_sw || s == t || !all_ok ||
				    dist[(size_t)s * S + t] == IBF_DIST_INF)
					continue;
				int k = ec_maxdisjoint(npath, (const uint32_t(*)[64])paths, plen);
				res->pairs_port++;
				for (int g = 0; g <= 8; g++)
					if (k >= g)
						res->ge_port[g]++;
				if (first_ca_port_of_t) {
					res->pairs_sw++;
					for (int g = 0; g <= 8; g++)
						if (k >= g)
							res->ge[g]++;
				}
			}
		}
	}
	uint64_t mx = 0, sum = 0, nl = 0;
	for (uint32_t e = 0; e < E; e++) {
		if (f->adj[e].nbr == (uint32_t)-1)
			continue;
		nl++;
		sum += load[e];
		if (load[e] > mx)
			mx = load[e];
	}
	res->link_max = (double)mx;
	res->link_mean = nl ? (double)sum / (double)nl : 0;
	free(dist), free(q), free(load), free(cab);
	ibf_lidmap_free(&m);
	return 0;
}

#endif
