/* minimal: balanced shortest-path routing.
 *
 * For every destination LID an in-tree to the destination's switch t:
 * each switch, nearest first, picks among the neighbours one hop closer to
 * t the link with the least accumulated load (ties: port order, rotated by
 * the seed when one is given).  The tree's links are then charged with the
 * number of source end ports whose route crosses them (CA ports behind a
 * switch + the switch itself), so the next LID -- including the other LIDs
 * of the same port under LMC > 0 -- prefers other links.  Parallel cables
 * are separate links with separate loads. */
#include "engine_internal.h"

#include <string.h>

void eng_min_tree(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint32_t *order,
		  uint32_t nreach, uint64_t key, uint32_t *nxt)
{
	const struct ibf_fabric *f = c->f;
	const uint16_t *D = c->dist + (size_t)t * c->S;
	for (uint32_t s = 0; s < c->S; s++)
		nxt[s] = ENG_NOLINK;
	/* order[0] is t itself (distance 0) */
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t s = order[i];
		uint32_t off = f->adj_off[s], deg = f->adj_off[s + 1] - off;
		uint32_t start = key ? (uint32_t)(ibf_mix64(key ^ s) % deg) : 0;
		uint32_t best = ENG_NOLINK;
		uint64_t bw = UINT64_MAX;
		uint16_t want = (uint16_t)(D[s] - 1);
		for (uint32_t k = 0, e = off + start; k < deg; k++, e++) {
			if (e == off + deg)
				e = off;
			if (D[f->adj[e].nbr] != want)
				continue;
			uint64_t w = eng_w(c, ws, e);
			if (w < bw) {
				bw = w;
				best = e;
			}
		}
		nxt[s] = best;
		ws->len[s] = D[s];
	}
	ws->len[t] = 0;
	/* charge: farthest first, each switch passes its subtree's sources on */
	for (uint32_t i = 0; i < nreach; i++)
		ws->acc[order[i]] = c->hosts[order[i]];
	for (uint32_t i = nreach; i-- > 1;) {
		uint32_t s = order[i];
		uint32_t e = nxt[s];
		eng_add_w(c, ws, e, ws->acc[s]);
		ws->acc[f->adj[e].nbr] += ws->acc[s];
	}
}

int ibf_route_minimal(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	static const struct eng_kind kind = { "minimal", eng_min_tree, NULL };
	return eng_run(f, o, r, rep, err, &kind);
}
