/* The least-used-port candidate of the minimal trees (see eng_seed_build
 * in engine_internal.h): one pass over the CA LIDs in LID order, each
 * LID's tree built from its sources towards its switch, the same rule on
 * every switch; a lower bound on the busiest link that tells when the
 * candidate cannot be beaten; and the pieces the driver uses to start
 * from it (eng_seed_tree) or to fall back on it (eng_seed_apply). */
#include "engine_internal.h"

#include <stdlib.h>
#include <string.h>

void eng_seed_free(struct eng_ctx *c)
{
	free(c->seed);
	free(c->seed_row);
	c->seed = NULL;
	c->seed_row = NULL;
}

/* LID j of a CA destination belongs to the candidate: every LID when X
 * has one plane, the base LID alone when it has two (layered, LMC >= 1:
 * the candidate stands for layer 0, balanced on plane 1) */
static int seed_lid(const struct eng_ctx *c, uint32_t j)
{
	return c->xplanes == 1 || j == 0;
}

/* The least M such that need units of `unit` paths each fit on the links
 * lw[0 .. n-1] with no link's load (paths x rate weight) above M: the
 * bounds below with rate weights; with every weight 1 it is
 * unit * ceil(need / n). */
static uint64_t fit_bound(const uint32_t *lw, uint32_t n, uint64_t need, uint64_t unit)
{
	if (!need || !n || !unit)
		return 0;
	uint64_t lo = 0, hi = unit * IBF_MAX_RATE_WEIGHT * ((need + n - 1) / n);
	while (lo + 1 < hi) { /* fits(hi), !fits(lo) */
		uint64_t m = lo + (hi - lo) / 2, k = 0;
		for (uint32_t i = 0; i < n && k < need; i++)
			k += m / (unit * lw[i]);
		if (k >= need)
			hi = m;
		else
			lo = m;
	}
	return hi;
}

/* The least possible busiest link for the candidate's LIDs, whatever the
 * routing (a bound, not always reached):
 *  - out of switch s: its h CA ports send each of the R LIDs hanging off
 *    other switches it reaches over one of its deg links, all h together
 *    (one LFT entry), so some link carries h * ceil(R / deg);
 *  - into s: each of its n LIDs receives from every CA port elsewhere in
 *    its component over one of its deg links, n * H in all;
 *  - the mean: every path is minimal, so the total is fixed.
 * With rate weights (c->rated) each of the three is the least busiest
 * weighted load the same paths can be spread to (fit_bound). */
static uint64_t seed_bound(const struct eng_ctx *c, const uint32_t *nl, uint64_t total)
{
	const struct ibf_fabric *f = c->f;
	uint64_t lb = c->rated ? fit_bound(c->lw, c->E, total, 1)
			       : c->E ? (total + c->E - 1) / c->E : 0;
	for (uint32_t s = 0; s < c->S; s++) {
		uint64_t deg = f->adj_off[s + 1] - f->adj_off[s];
		if (!deg || (!c->hca[s] && !nl[s]))
			continue;
		const uint16_t *D = c->dist + (size_t)s * c->S;
		uint64_t R = 0, H = 0;
		for (uint32_t x = 0; x < c->S; x++)
			if (x != s && D[x] != ENG_DIST_INF) {
				R += nl[x];
				H += c->hca[x];
			}
		uint64_t out, in;
		if (c->rated) { /* a cable weighs the same both ways */
			const uint32_t *w = c->lw + f->adj_off[s];
			out = fit_bound(w, (uint32_t)deg, R, c->hca[s]);
			in = fit_bound(w, (uint32_t)deg, nl[s] * H, 1);
		} else {
			out = c->hca[s] * ((R + deg - 1) / deg);
			in = (nl[s] * H + deg - 1) / deg;
		}
		if (out > lb)
			lb = out;
		if (in > lb)
			lb = in;
	}
	return lb;
}

int eng_seed_build(struct eng_ctx *c, struct eng_ws *ws, struct ibf_error *err)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_adj *adj = f->adj;
	uint32_t S = c->S, E = c->E, nrow = 0;
	c->seed_opt = 0;
	c->seed_max = 0;
	c->seed_sq = 0;
	if (c->o->lid_keep || !E || !S)
		return 0;
	uint32_t nlid = c->r->max_lid + 1;
	c->seed_row = malloc((size_t)nlid * sizeof(*c->seed_row));
	uint32_t *nl = calloc(S, sizeof(*nl));
	if (!c->seed_row || !nl)
		goto nomem;
	for (uint32_t l = 0; l < nlid; l++) {
		uint32_t di = c->lid_dest[l];
		c->seed_row[l] = ENG_NOLINK;
		if (di == ENG_NOLINK || c->dest[di].is_sw || !seed_lid(c, l - c->dest[di].lid))
			continue;
		c->seed_row[l] = nrow++;
		nl[c->dest[di].t]++;
	}
	if (!nrow) {
		free(nl);
		eng_seed_free(c);
		return 0;
	}
	uint64_t *X = calloc(E, sizeof(*X));
	uint32_t *cnt = calloc(E, sizeof(*cnt));
	c->seed = malloc((size_t)nrow * S * sizeof(*c->seed));
	if (!X || !cnt || !c->seed) {
		free(X);
		free(cnt);
		goto nomem;
	}
	uint64_t *acc = ws->acc;
	/* the base LIDs first, in LID order, then the LIDs at offset 1, ...:
	 * each offset on its own is as even as the whole, so traffic to base
	 * LIDs alone is too; offset j starts its port order j / nlids of the
	 * way round, so a port's LIDs take different links where they can */
	uint32_t maxj = 0, tprev = ENG_NOLINK, nreach = 0;
	for (uint32_t i = 0; i < c->ndest; i++)
		if (c->dest[i].nlids > maxj)
			maxj = c->dest[i].nlids;
	for (uint32_t j = 0, l = 0; j < maxj; l = l + 1 < nlid ? l + 1 : (j++, 0)) {
		if (c->seed_row[l] == ENG_NOLINK || l - c->dest[c->lid_dest[l]].lid != j)
			continue;
		const struct eng_dest *d = &c->dest[c->lid_dest[l]];
		uint32_t t = d->t;
		uint32_t *nx = c->seed + (size_t)c->seed_row[l] * S;
		if (t != tprev) { /* the LIDs of one switch mostly come together */
			nreach = eng_order_by_dist(c, ws, t, ws->order);
			eng_down_links(c, ws, t);
		}
		tprev = t;
		for (uint32_t s = 0; s < S; s++)
			nx[s] = ENG_NOLINK;
		for (uint32_t i = 0; i < nreach; i++)
			acc[ws->order[i]] = c->hca[ws->order[i]];
		/* farthest first: a switch knows what reaches it for this LID
		 * and puts it on its least loaded link one hop closer, ties to
		 * the link that carries the fewest LIDs, then to port order */
		for (uint32_t i = nreach; i-- > 1;) {
			uint32_t s = ws->order[i], best = ENG_NOLINK;
			uint32_t lo = ws->down_off[s], hi = ws->down_off[s + 1], n = hi - lo, q = lo;
			if (j) { /* the first candidate at or after the rotated port */
				uint32_t off = f->adj_off[s], deg = f->adj_off[s + 1] - off;
				uint32_t from = off + j * deg / d->nlids;
				while (q < hi && ws->down[q] < from)
					q++;
				if (q == hi)
					q = lo;
			}
			/* the load with this LID's traffic added (at least one
			 * path's worth): by rate weight, so on links of one rate
			 * the order of the loads alone */
			uint64_t as = acc[s] ? acc[s] : 1, bx = 0;
			for (uint32_t k = 0; k < n; k++, q = q + 1 == hi ? lo : q + 1) {
				uint32_t e = ws->down[q];
				uint64_t xe = X[e] + as * c->lw[e];
				if (best == ENG_NOLINK || xe < bx || (xe == bx && cnt[e] < cnt[best])) {
					best = e;
					bx = xe;
				}
			}
			if (best == ENG_NOLINK) {
				/* no link of s one hop closer although the distances
				 * say s is (links that only one side lists, as a
				 * broken dump can give): no candidate, the trees are
				 * built without it */
				free(X);
				free(cnt);
				free(nl);
				eng_seed_free(c);
				c->seed_opt = 0;
				return 0;
			}
			nx[s] = best;
			X[best] += acc[s] * c->lw[best];
			cnt[best]++;
			acc[adj[best].nbr] += acc[s];
		}
	}
	uint64_t total = 0;
	for (uint32_t e = 0; e < E; e++) {
		total += X[e];
		c->seed_sq += (double)X[e] * (double)X[e];
		if (X[e] > c->seed_max)
			c->seed_max = X[e];
	}
	c->seed_opt = c->seed_max <= seed_bound(c, nl, total);
	free(X);
	free(cnt);
	free(nl);
	return 0;
nomem:
	free(nl);
	eng_seed_free(c);
	return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
}

const uint32_t *eng_seed_of(const struct eng_ctx *c, uint32_t lid)
{
	if (!c->seed || c->seed_row[lid] == ENG_NOLINK)
		return NULL;
	return c->seed + (size_t)c->seed_row[lid] * c->S;
}

void eng_seed_tree(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint32_t *order,
		   uint32_t nreach, const uint32_t *seed, uint32_t xoff, uint32_t *nxt)
{
	const struct ibf_adj *adj = c->f->adj;
	const uint16_t *D = c->dist + (size_t)t * c->S;
	for (uint32_t s = 0; s < c->S; s++)
		nxt[s] = ENG_NOLINK;
	for (uint32_t i = 0; i < nreach; i++) {
		uint32_t s = order[i];
		nxt[s] = i ? seed[s] : ENG_NOLINK;
		ws->len[s] = D[s];
		ws->acc[s] = c->hosts[s];
		ws->tmp[s] = c->hca[s];
	}
	/* order is by distance: farthest first, each passes its subtree on */
	for (uint32_t i = nreach; i-- > 1;) {
		uint32_t s = order[i], e = nxt[s], u = adj[e].nbr;
		eng_add_w(c, ws, e, ws->acc[s]);
		if (ws->tmp[s])
			eng_add_xp(c, ws, e, xoff, (int64_t)ws->tmp[s]);
		ws->acc[u] += ws->acc[s];
		ws->tmp[u] += ws->tmp[s];
	}
}

int eng_seed_better(const struct eng_ctx *c)
{
	if (!c->seed || c->xplanes != 1)
		return 0;
	uint64_t mx = 0;
	double sq = 0;
	for (uint32_t e = 0; e < c->E; e++) {
		if (c->X[e] > mx)
			mx = c->X[e];
		sq += (double)c->X[e] * (double)c->X[e];
	}
	return c->seed_max < mx || (c->seed_max == mx && c->seed_sq < sq);
}

void eng_seed_apply(const struct eng_ctx *c)
{
	const struct ibf_adj *adj = c->f->adj;
	struct ibf_routes *r = c->r;
	for (uint32_t l = 0; l <= r->max_lid; l++) {
		const uint32_t *nx = eng_seed_of(c, l);
		if (!nx)
			continue;
		for (uint32_t s = 0; s < c->S; s++)
			if (nx[s] != ENG_NOLINK)
				r->lft[(size_t)s * r->stride + l] = adj[nx[s]].lport;
	}
}
