/* minimal: balanced shortest-path routing.
 *
 * For every destination LID an in-tree to the destination's switch t:
 * each switch, nearest first, picks among the neighbours one hop closer to
 * t.  The measure is the exact load X of a directed link (source CA ports
 * times CA destination LIDs whose path crosses it, as `route stats` counts
 * paths per link): parallel cables are separate links, a switch weighs as
 * many sources as it has CA ports, switch LIDs add nothing.  A switch
 * charges its own CA ports to its whole path as soon as it has chosen, so
 * the switches after it, for the same LID, see that load.  Every load is
 * paths times the link's rate weight (eng_ctx.lw, 1 on one-rate fabrics),
 * so a slow cable fills up sooner.
 *
 * The choice: the least loaded first link; among equals the path whose
 * busiest link is least loaded, then the least total load on the path, then
 * the least weight W of the first link (all traffic, switch LIDs too); the
 * last tie goes to the port order rotated by the destination's rank at its
 * switch (and by the seed), so the ports of one switch start on different
 * links.  The rebalancing passes of engine_core.c then move subtrees.
 * The driver may take the trees of the least-used-port candidate
 * (engine_seed.c) instead, at the start or at the end.
 */
#include "engine_internal.h"

#include <string.h>

void eng_min_tree(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint32_t *order,
		  uint32_t nreach, uint64_t key, uint32_t rot, int ca, uint32_t xoff, uint32_t *nxt)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_adj *adj = f->adj;
	const uint16_t *D = c->dist + (size_t)t * c->S;
	for (uint32_t s = 0; s < c->S; s++)
		nxt[s] = ENG_NOLINK;
	/* order[0] is t itself (distance 0) */
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t s = order[i];
		uint32_t off = f->adj_off[s], deg = f->adj_off[s + 1] - off;
		uint32_t start = (uint32_t)(((key ? ibf_mix64(key ^ s) : 0) + rot) % deg);
		uint32_t best = ENG_NOLINK;
		int64_t bx = INT64_MAX, bm = INT64_MAX, bs = INT64_MAX;
		uint64_t bw = UINT64_MAX;
		uint16_t want = (uint16_t)(D[s] - 1);
		/* the first link's load with s's own sources added (at least
		 * one): on links of one rate the same order as the load alone */
		int64_t a0 = ca && c->hca[s] ? (int64_t)c->hca[s] : 1;
		for (uint32_t k = 0, e = off + start; k < deg; k++, e++) {
			if (e == off + deg)
				e = off;
			uint32_t u = adj[e].nbr;
			if (D[u] != want)
				continue;
			/* the first link's exact load; then the rest of the path
			 * (fixed: the nearer switches chose first): its busiest
			 * link, the sum of its loads; then the first link's
			 * weight; then the rotated port order */
			int64_t x0 = eng_x(c, ws, e) + eng_wx(c, e, a0), m = 0, sm = 0;
			for (uint32_t x = u; x != t;) {
				uint32_t g = nxt[x];
				int64_t v = eng_x(c, ws, g);
				if (v > m)
					m = v;
				sm += v;
				x = adj[g].nbr;
			}
			uint64_t w = eng_w(c, ws, e);
			if (x0 > bx || (x0 == bx && (m > bm || (m == bm && (sm > bs ||
								       (sm == bs && w >= bw))))))
				continue;
			bx = x0;
			bm = m;
			bs = sm;
			bw = w;
			best = e;
		}
		nxt[s] = best;
		ws->len[s] = D[s];
		/* s's own end ports load every link of its path from now on */
		if (ca && c->hca[s])
			for (uint32_t x = s; x != t; x = adj[nxt[x]].nbr)
				eng_add_xp(c, ws, nxt[x], xoff, (int64_t)c->hca[s]);
	}
	ws->len[t] = 0;
	/* charge: farthest first, each switch passes its subtree's sources on */
	for (uint32_t i = 0; i < nreach; i++)
		ws->acc[order[i]] = c->hosts[order[i]];
	for (uint32_t i = nreach; i-- > 1;) {
		uint32_t s = order[i];
		uint32_t e = nxt[s];
		eng_add_w(c, ws, e, ws->acc[s]);
		ws->acc[adj[e].nbr] += ws->acc[s];
	}
}

int ibf_route_minimal(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	static const struct eng_kind kind = { "minimal", eng_min_tree, NULL };
	return eng_run(f, o, r, rep, err, &kind);
}
