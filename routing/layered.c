/* layered: LNMP-style layers of non-minimal paths, rebuilt.
 *
 * Layer 0 of every destination is the balanced minimal tree (minimal.c).
 * Each further layer l of a destination port d (LID base + l) is one
 * in-tree to d's switch t, grown like this:
 *
 *   - Sources are visited by priority: fewest in-window paths to d so far
 *     (the pair's "level") first, shuffled (seeded) within a level, so the
 *     switches that had to be relays or fallbacks in one layer go first in
 *     the next.
 *   - A source s not yet in the tree looks for the cheapest path whose
 *     length lies in its window [lo(s), hi(s)] and that ends in the part of
 *     the tree already fixed: first one hop straight into the tree, and only
 *     when every such option shares a cable with one of s's paths in the
 *     earlier layers, a free prefix of up to three hops through switches not
 *     yet in the tree (branch and bound).  Cost, lexicographically: cables
 *     shared with s's earlier paths to d (both directions; this is what makes
 *     the L paths of a pair edge-disjoint), then the switches the prefix turns
 *     into relays (they get a path outside their own window; cheap for
 *     switches that already have many in-window paths, dear for those with
 *     few), then the summed link load W.
 *   - Fixing the path fixes every suffix (destination-based forwarding), so
 *     a layer is a tree and loop-free by construction; the loads of the
 *     newly routed sources are added to W along their paths at once.
 *   - Switches left over are attached by their shortest route into the tree
 *     (fallbacks), least-loaded link first.
 *
 * The cost of a source is O(degree x path length) in the common case; the
 * bounded prefix search runs only for sources with no clean one-hop option.
 * Both filter a switch's links branch-free first (the test "in the tree at
 * a length that fits the window" is a coin toss for the branch predictor).
 * A prefix search that grows past a few dozen prefixes (on fat trees most
 * searches end with a shared cable, and the plain bound, the best path so
 * far, prunes little before that) starts again with a second bound: within
 * one search the tree and the marked cables do not change, so a lower
 * bound of what completing a prefix from (switch, depth) can cost (the
 * same recursion over states instead of prefixes) is memoised, and a
 * prefix that cannot beat the best path so far is dropped.  Either way
 * only prefixes that could never replace the best are skipped, so the
 * path taken is the same.
 *
 * Link balance is finished afterwards by the shared rebalancing pass
 * (engine_core.c): it re-points switches among equal-length options where
 * no pair's edge-disjointness can suffer, which the greedy order here cannot
 * foresee.
 */
#include "engine_internal.h"

#include <string.h>

#define OVL_COST (1ull << 50)
#define RELAY_COST (1ull << 42)
#define PMAX_HARD ENG_PMAX
#define PLAIN_NODES 32 /* prefixes a plain search visits before it gives up (default) */

struct srch {
	uint32_t s, t;
	int lo, hi;
	int layer;
	uint32_t pmax;
	uint64_t best;
	uint32_t best_p;
	uint32_t best_e[PMAX_HARD];
	uint32_t cur_e[PMAX_HARD];
	uint32_t cur_n[PMAX_HARD + 1];
	uint8_t charged[PMAX_HARD + 1];
	const uint16_t *D;
	const uint32_t *nxt;
	uint32_t stamp; /* the search's stamp in the memos (ws->sstamp) */
	uint64_t *tcost, *lbnd;
	uint32_t *tstamp, *lstamp;
	uint8_t *lexact;
	/* options(): per (switch, depth) a slice of oe */
	uint32_t *oe, *ooff, *on, *ostamp;
	uint32_t otop;
	uint32_t nodes; /* prefixes dfs_plain() visited */
	int abort;
};

static inline uint64_t relay_cost(const struct eng_ws *ws, int layer, uint32_t x)
{
	if (ws->nopath[x] == 2)
		return 0; /* never in window anyway: a free relay */
	if (ws->nopath[x])
		return RELAY_COST;
	int lv = (int)ws->level[x];
	int v = 2 + (layer - 1 - lv);
	return RELAY_COST * (uint64_t)(v < 1 ? 1 : v);
}

/* A link's cost in the searches: its load W, plus OVL_COST when it is a
 * cable of s's earlier paths to d (marked by mark_previous). */
static inline uint64_t link_cost(const struct eng_ctx *c, const struct eng_ws *ws, uint32_t e)
{
	uint64_t v = eng_w(c, ws, e);
	if (ws->mark[c->und[e]] == ws->stamp)
		v += OVL_COST;
	return v;
}

/* cost of following the fixed tree from u to t; stops at limit */
static inline uint64_t walk_cost(const struct eng_ctx *c, const struct eng_ws *ws,
				 const struct srch *q, uint32_t u, uint64_t cost)
{
	const struct ibf_adj *adj = c->f->adj;
	uint32_t x = u, guard = 0;
	while (x != q->t && cost < q->best && guard++ < c->S) {
		uint32_t e = q->nxt[x];
		cost += link_cost(c, ws, e);
		x = adj[e].nbr;
	}
	return cost;
}

/* The whole cost walk_cost() adds from u (its links' loads W plus
 * OVL_COST per cable of s's earlier paths), for lower_bound(): the tree
 * and the marks do not change during one search, so it is memoised per
 * search (q->stamp); the switches walked before a known one are filled in
 * on the way back. */
static uint64_t tree_cost(const struct eng_ctx *c, const struct eng_ws *ws, struct srch *q,
			  uint32_t u)
{
	const struct ibf_adj *adj = c->f->adj;
	uint32_t stk[64], n = 0, x = u;
	while (x != q->t && q->tstamp[x] != q->stamp && n < 64) {
		stk[n++] = x;
		x = adj[q->nxt[x]].nbr;
	}
	uint64_t acc;
	if (x == q->t)
		acc = 0;
	else if (q->tstamp[x] == q->stamp)
		acc = q->tcost[x];
	else
		acc = tree_cost(c, ws, q, x); /* a path of more than 64 hops */
	while (n) {
		uint32_t y = stk[--n], e = q->nxt[y];
		acc += link_cost(c, ws, e);
		q->tcost[y] = acc;
		q->tstamp[y] = q->stamp;
	}
	return acc;
}

/* The options of a prefix ending at x, p hops from s, into out (at most
 * 256, one per port): its links, in port order, to tree switches that end
 * a path in the window (p >= 1) and to switches off the tree that may
 * extend the prefix.  Branch-free: "in the tree at a length that fits the
 * window" is a coin toss for the branch predictor. */
static inline uint32_t filter_options(const struct eng_ctx *c, const struct eng_ws *ws,
				      const struct srch *q, uint32_t x, uint32_t p, uint32_t *out)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_adj *adj = f->adj;
	const int32_t *len = ws->len;
	int can_deeper = p + 1 < q->pmax;
	/* every useful next switch u has D[u] <= hi - (p + 1); when that is
	 * below D[x], only the links one hop closer to t qualify */
	int budget = q->hi - (int)(p + 1);
	int only_down = budget < (int)q->D[x];
	if (budget < (int)q->D[x] - 1)
		return 0;
	uint32_t k0 = only_down ? ws->down_off[x] : f->adj_off[x];
	uint32_t k1 = only_down ? ws->down_off[x + 1] : f->adj_off[x + 1];
	if (k1 - k0 > 256)
		k1 = k0 + 256; /* cannot happen: ports are 8-bit */
	int lo_p = q->lo - (int)(p + 1);
	uint32_t span = (uint32_t)(q->hi - q->lo);
	uint32_t n = 0;
	for (uint32_t k = k0; k < k1; k++) {
		uint32_t e = only_down ? ws->down[k] : k;
		uint32_t u = adj[e].nbr;
		int lu = len[u];
		uint32_t in_tree = (lu >= 0) & (p > 0) & ((uint32_t)(lu - lo_p) <= span);
		uint32_t deeper =
			(lu < 0) & can_deeper & (u != x) & (u != q->s) & ((int)q->D[u] <= budget);
		out[n] = e;
		n += in_tree | deeper;
	}
	return n;
}

/* The options of a prefix ending at x, p hops from s: its links, in port
 * order, to tree switches that end a path in the window (p >= 1) and to
 * switches off the tree that may extend the prefix.  They do not change
 * during a search, so each (switch, depth) is filtered once per search
 * (filter_options) into a slice of q->oe shared by dfs() and
 * lower_bound(). */
static uint32_t options(const struct eng_ctx *c, const struct eng_ws *ws, struct srch *q,
			uint32_t x, uint32_t p, const uint32_t **oe)
{
	size_t key = (size_t)x * PMAX_HARD + p;
	if (q->ostamp[key] != q->stamp) {
		uint32_t n = filter_options(c, ws, q, x, p, q->oe + q->otop);
		q->ooff[key] = q->otop;
		q->on[key] = n;
		q->otop += n;
		q->ostamp[key] = q->stamp;
	}
	*oe = q->oe + q->ooff[key];
	return q->on[key];
}

/* the cost of taking option e of a prefix p hops long: the link's load,
 * OVL_COST when it is one of s's earlier cables, and when it extends the
 * prefix to a switch that surely becomes a relay, the relay charge */
static inline uint64_t option_cost(const struct eng_ctx *c, const struct eng_ws *ws,
				   const struct srch *q, uint32_t e, uint32_t p)
{
	uint32_t u = c->f->adj[e].nbr;
	uint64_t v = link_cost(c, ws, e);
	/* u's length will be at most hi - (p + 1): below its window means it
	 * surely becomes a relay */
	if (ws->len[u] < 0 && q->hi - (int)(p + 1) < eng_lo(c, q->D[u]))
		v += relay_cost(ws, q->layer, u);
	return v;
}

/* The relay charges of a prefix's switches 1..p not charged yet when it
 * enters the tree with total length Lp: those whose length falls outside
 * their own window. */
static inline uint64_t relay_charges(const struct eng_ctx *c, const struct eng_ws *ws,
				     const struct srch *q, uint32_t p, int Lp)
{
	uint64_t sum = 0;
	for (uint32_t i = 1; i <= p; i++) {
		if (q->charged[i])
			continue;
		uint32_t xi = q->cur_n[i];
		int li = Lp - (int)i;
		uint32_t dx = q->D[xi];
		if (li < eng_lo(c, dx) || li > eng_hi(c, dx))
			sum += relay_cost(ws, q->layer, xi);
	}
	return sum;
}

/* The prefix cur_e[0..p-1], then e into the tree, at this cost is the best
 * path so far. */
static inline void take_best(struct srch *q, uint32_t p, uint32_t e, uint64_t cost)
{
	q->best = cost;
	q->best_p = p + 1;
	for (uint32_t i = 0; i < p; i++)
		q->best_e[i] = q->cur_e[i];
	q->best_e[p] = e;
}

/* tree_cost(u) when it is below limit, else some value >= limit: read
 * from the memo when known, else walked without filling it in (the walk
 * stops once the sum reaches limit, as walk_cost does). */
static inline uint64_t tree_cost_below(const struct eng_ctx *c, const struct eng_ws *ws,
				       const struct srch *q, uint32_t u, uint64_t limit)
{
	const struct ibf_adj *adj = c->f->adj;
	uint64_t acc = 0;
	uint32_t x = u, guard = 0;
	while (x != q->t && acc < limit && guard++ < c->S) {
		if (q->tstamp[x] == q->stamp)
			return acc + q->tcost[x];
		uint32_t e = q->nxt[x];
		acc += link_cost(c, ws, e);
		x = adj[e].nbr;
	}
	return acc;
}

/* Lower bound of the cost any completion of a prefix ending at x (off the
 * tree, p >= 1 hops from s) adds: the same recursion as dfs() over the
 * states (switch, depth) instead of over prefixes, memoised per search.
 * It leaves out what depends on the prefix itself (a switch met twice,
 * the relay charges decided at the tree entry; both only add cost or
 * remove options), so no completion is cheaper.  Bounded by cut: a result
 * below cut is that minimum, one at or above cut only a lower bound (an
 * option whose first link alone costs as much as the smaller of cut and
 * the minimum so far is not followed).  Memoised
 * with that distinction; UINT64_MAX: no completion at all. */
static uint64_t lower_bound(const struct eng_ctx *c, const struct eng_ws *ws, struct srch *q,
			    uint32_t x, uint32_t p, uint64_t cut)
{
	size_t key = (size_t)x * PMAX_HARD + p;
	if (q->lstamp[key] == q->stamp && (q->lexact[key] || q->lbnd[key] >= cut))
		return q->lbnd[key];
	const struct ibf_adj *adj = c->f->adj;
	const uint32_t *oe;
	uint32_t n = options(c, ws, q, x, p, &oe);
	uint64_t lb = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = option_cost(c, ws, q, oe[i], p);
		uint64_t cur = lb < cut ? lb : cut;
		if (v >= cur) {
			/* this option costs at least v >= cur */
			if (v < lb)
				lb = v;
			continue;
		}
		uint32_t u = adj[oe[i]].nbr;
		uint64_t r = ws->len[u] < 0 ? lower_bound(c, ws, q, u, p + 1, cur - v)
					    : tree_cost(c, ws, q, u);
		if (r == UINT64_MAX)
			continue;
		if (v + r < lb)
			lb = v + r;
	}
	q->lbnd[key] = lb;
	q->lexact[key] = lb < cut;
	q->lstamp[key] = q->stamp;
	return lb;
}

/* The prefix search behind the first pass: free prefixes s -> x1 -> ... -> x
 * through switches not yet in the tree, then one hop into the tree (the
 * prefix s -> tree neighbour itself is the first pass's).  Most searches
 * are small and run plainly, pruned by the best path so far only; one that
 * visits more than PLAIN_NODES prefixes gives up and dfs() below searches
 * again from the best path found so far, pruned by lower_bound() too.
 * Both visit the prefixes in the same order and take a path only when it
 * is strictly cheaper, so the result is the first cheapest path in that
 * order either way (the first search's best is the first path in that
 * order at its cost, so the second keeps it unless it finds cheaper). */
static void dfs_plain(const struct eng_ctx *c, const struct eng_ws *ws, struct srch *q, uint32_t x,
		uint32_t p, uint64_t cost)
{
	if (p + 1 > PMAX_HARD)
		return; /* never (pmax <= PMAX_HARD); bounds the arrays for the compiler */
	const struct ibf_adj *adj = c->f->adj;
	const int32_t *len = ws->len;
	uint32_t lim = c->o->plain_nodes ? c->o->plain_nodes : PLAIN_NODES;
	if (++q->nodes > lim) {
		q->abort = 1;
		return;
	}
	int budget = q->hi - (int)(p + 1);
	uint32_t cand[256];
	uint32_t n = filter_options(c, ws, q, x, p, cand);
	for (uint32_t ci = 0; ci < n; ci++) {
		uint32_t e = cand[ci];
		uint32_t u = adj[e].nbr;
		int lu = len[u];
		if (lu >= 0) {
			int Lp = (int)p + 1 + lu;
			uint64_t c1 = cost + link_cost(c, ws, e);
			c1 += relay_charges(c, ws, q, p, Lp);
			if (c1 >= q->best)
				continue;
			c1 = walk_cost(c, ws, q, u, c1);
			if (c1 < q->best)
				take_best(q, p, e, c1);
		} else {
			uint32_t du = q->D[u];
			int dup = 0;
			for (uint32_t i = 1; i <= p; i++)
				dup |= q->cur_n[i] == u;
			if (dup)
				continue;
			uint64_t c1 = cost + link_cost(c, ws, e);
			/* u's length will be at most hi - (p + 1): below its window
			 * means it surely becomes a relay; charge it now (bound) */
			int charged = budget < eng_lo(c, du);
			if (charged)
				c1 += relay_cost(ws, q->layer, u);
			if (c1 >= q->best)
				continue;
			q->cur_e[p] = e;
			q->cur_n[p + 1] = u;
			q->charged[p + 1] = (uint8_t)charged;
			dfs_plain(c, ws, q, u, p + 1, c1);
			if (q->abort)
				return;
		}
	}
}

/* the search again with the completion bound (see dfs_plain) */
static void dfs(const struct eng_ctx *c, const struct eng_ws *ws, struct srch *q, uint32_t x,
		uint32_t p, uint64_t cost)
{
	if (p + 1 > PMAX_HARD)
		return; /* never (pmax <= PMAX_HARD); bounds the arrays for the compiler */
	const struct ibf_adj *adj = c->f->adj;
	const int32_t *len = ws->len;
	int budget = q->hi - (int)(p + 1);
	const uint32_t *oe;
	uint32_t n = options(c, ws, q, x, p, &oe);
	for (uint32_t ci = 0; ci < n; ci++) {
		uint32_t e = oe[ci];
		uint32_t u = adj[e].nbr;
		int lu = len[u];
		uint64_t c1 = cost + option_cost(c, ws, q, e, p);
		if (lu >= 0) {
			int Lp = (int)p + 1 + lu;
			c1 += relay_charges(c, ws, q, p, Lp);
			if (c1 >= q->best)
				continue;
			uint64_t tc = tree_cost_below(c, ws, q, u, q->best - c1);
			if (tc < q->best - c1)
				take_best(q, p, e, c1 + tc);
		} else {
			int dup = 0;
			for (uint32_t i = 1; i <= p; i++)
				dup |= q->cur_n[i] == u;
			if (dup || c1 >= q->best)
				continue;
			/* every completion through u costs at least lb more: skip
			 * u when none can beat the best so far (the result is the
			 * same, only found sooner) */
			if (lower_bound(c, ws, q, u, p + 1, q->best - c1) >= q->best - c1)
				continue;
			q->cur_e[p] = e;
			q->cur_n[p + 1] = u;
			/* charged in the option's cost already (option_cost) */
			q->charged[p + 1] = (uint8_t)(budget < eng_lo(c, q->D[u]));
			dfs(c, ws, q, u, p + 1, c1);
		}
	}
}

/* The first pass: one hop straight into the tree. */
static void scan_one_hop(const struct eng_ctx *c, const struct eng_ws *ws, struct srch *q)
{
	const struct ibf_adj *adj = c->f->adj;
	const int32_t *len = ws->len;
	uint32_t s = q->s, e0 = c->f->adj_off[s], deg = c->f->adj_off[s + 1] - e0;
	int lo1 = q->lo > 1 ? q->lo - 1 : 0;
	uint32_t span = (uint32_t)(q->hi - 1 - lo1);
	uint32_t cand[256], n = 0;
	if (deg > 256)
		deg = 256; /* cannot happen: ports are 8-bit */
	/* branch-free filter: neighbours in the tree at a length that puts s
	 * in its window (off the tree, len is -1 and wraps to a huge value) */
	for (uint32_t k = 0; k < deg; k++) {
		cand[n] = e0 + k;
		n += (uint32_t)(len[adj[e0 + k].nbr] - lo1) <= span;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = cand[i], u = adj[e].nbr;
		uint64_t c1 = link_cost(c, ws, e);
		if (c1 >= q->best)
			continue;
		c1 = walk_cost(c, ws, q, u, c1);
		if (c1 < q->best) {
			q->best = c1;
			q->best_p = 1;
			q->best_e[0] = e;
		}
	}
}

static void mark_previous(const struct eng_ctx *c, struct eng_ws *ws, uint32_t s, uint32_t t,
			  int layer)
{
	if (++ws->stamp == 0) {
		memset(ws->mark, 0, (size_t)c->E * sizeof(*ws->mark));
		ws->stamp = 1;
	}
	const struct ibf_adj *adj = c->f->adj;
	for (int l = 0; l < layer; l++) {
		const uint32_t *nx = ws->nxt + (size_t)l * c->S;
		uint32_t x = s, guard = 0;
		while (x != t && guard++ < c->S) {
			uint32_t e = nx[x];
			if (e == ENG_NOLINK)
				break;
			ws->mark[c->und[e]] = ws->stamp;
			x = adj[e].nbr;
		}
	}
}

/* charge the sources of a freshly fixed path: nodes path[0..p-1] are new,
 * the walk continues along the tree to t */
static void charge_path(const struct eng_ctx *c, struct eng_ws *ws, uint32_t s, uint32_t p,
			uint32_t t, const uint32_t *nxt)
{
	const struct ibf_adj *adj = c->f->adj;
	uint64_t acc = 0;
	uint32_t x = s, k = 0, guard = 0;
	while (x != t && guard++ < c->S) {
		if (k < p)
			acc += c->hosts[x];
		uint32_t e = nxt[x];
		eng_add_w(c, ws, e, acc);
		x = adj[e].nbr;
		k++;
	}
}

/* Start of a layer's tree towards t: nothing fixed but t; unreachable
 * switches get no next hop. */
static void tree_init(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint16_t *D,
		      uint32_t *nxt, uint32_t nreach)
{
	const uint32_t *order = ws->order;
	for (uint32_t i = 0; i < nreach; i++) {
		uint32_t s = order[i];
		ws->fixed[s] = 0;
		ws->len[s] = -1;
		nxt[s] = ENG_NOLINK;
	}
	for (uint32_t s = 0; s < c->S; s++)
		if (D[s] == ENG_DIST_INF)
			nxt[s] = ENG_NOLINK;
	ws->fixed[t] = 1;
	ws->len[t] = 0;
}

/* The n sources (every reached switch but t) shuffled by the seed, then
 * stably by how many earlier layers gave them a non-minimal path; the
 * result is in ws->bucket (ws->tmp is scratch). */
static uint32_t *source_order(const struct eng_ctx *c, struct eng_ws *ws, const struct eng_dest *d,
			      int layer, uint32_t n)
{
	const uint32_t *order = ws->order;
	uint64_t rng = ibf_mix64(c->o->seed ^ ibf_mix64(((uint64_t)d->lid << 8) | (uint64_t)layer));
	uint32_t *sh = ws->tmp, *byl = ws->bucket;
	for (uint32_t i = 0; i < n; i++)
		sh[i] = order[i + 1];
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(ibf_splitmix64(&rng) % i);
		uint32_t tmp = sh[i - 1];
		sh[i - 1] = sh[j];
		sh[j] = tmp;
	}
	uint32_t nl = (uint32_t)layer + 2;
	uint32_t *cnt = ws->bcount;
	memset(cnt, 0, (size_t)(nl + 1) * sizeof(*cnt));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t lv = ws->level[sh[i]];
		cnt[(lv < nl - 1 ? lv : nl - 1) + 1]++;
	}
	for (uint32_t k = 1; k <= nl; k++)
		cnt[k] += cnt[k - 1];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t lv = ws->level[sh[i]];
		byl[cnt[lv < nl - 1 ? lv : nl - 1]++] = sh[i];
	}
	return byl;
}

/* In-window paths: each source in turn searches the cheapest path inside
 * its window into the tree built so far and fixes its prefix (at most cap
 * sources when cap >= 0). */
static void window_paths(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, int layer,
			 const uint16_t *D, uint32_t *nxt, const uint32_t *byl, uint32_t n,
			 long cap)
{
	const struct ibf_fabric *f = c->f;
	struct srch q;
	q.t = t;
	q.layer = layer;
	q.D = D;
	q.nxt = nxt;
	q.tcost = ws->tcost;
	q.tstamp = ws->tstamp;
	q.lbnd = ws->lbnd;
	q.lstamp = ws->lstamp;
	q.lexact = ws->lexact;
	q.oe = ws->opt_e;
	q.ooff = ws->opt_off;
	q.on = ws->opt_n;
	q.ostamp = ws->opt_stamp;
	long used = 0;
	int guided = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = byl[i];
		if (ws->fixed[s])
			continue;
		if (cap >= 0 && used >= cap)
			break;
		q.s = s;
		q.lo = eng_lo(c, D[s]);
		q.hi = eng_hi(c, D[s]);
		if (q.lo > q.hi || q.hi < (int)D[s] || ws->nopath[s] == 2)
			continue;
		q.pmax = c->pmax < (uint32_t)q.hi ? c->pmax : (uint32_t)q.hi;
		if (q.pmax > PMAX_HARD)
			q.pmax = PMAX_HARD;
		q.best = UINT64_MAX;
		q.best_p = 0;
		q.cur_n[0] = s;
		if (++ws->sstamp == 0) {
			memset(ws->tstamp, 0, (size_t)c->S * sizeof(*ws->tstamp));
			memset(ws->lstamp, 0, (size_t)c->S * PMAX_HARD * sizeof(*ws->lstamp));
			memset(ws->opt_stamp, 0, (size_t)c->S * PMAX_HARD * sizeof(*ws->opt_stamp));
			ws->sstamp = 1;
		}
		q.stamp = ws->sstamp;
		q.otop = 0;
		q.nodes = 0;
		q.abort = 0;
		mark_previous(c, ws, s, t, layer);
		scan_one_hop(c, ws, &q);
		if (q.best >= OVL_COST) {
			/* after a plain search gave up, the rest of the tree's
			 * go straight to the bounded one (hard searches come in
			 * runs) */
			if (guided) {
				dfs(c, ws, &q, s, 0, 0);
			} else {
				dfs_plain(c, ws, &q, s, 0, 0);
				if (q.abort) {
					dfs(c, ws, &q, s, 0, 0);
					guided = 1;
				}
			}
		}
		if (!q.best_p) {
			if (!ws->nopath[s])
				ws->nopath[s] = 1;
			continue;
		}
		used++;
		/* fix the prefix */
		uint32_t P = q.best_p;
		uint32_t last = f->adj[q.best_e[P - 1]].nbr;
		int Lp = (int)P + ws->len[last];
		uint32_t x = s;
		for (uint32_t k = 0; k < P; k++) {
			uint32_t e = q.best_e[k];
			ws->fixed[x] = 1;
			ws->len[x] = Lp - (int)k;
			nxt[x] = e;
			x = f->adj[e].nbr;
		}
		charge_path(c, ws, s, P, t, nxt);
	}
}

/* Fallbacks: shortest route into the tree.  Only the switches left over
 * are scanned: their best fixed neighbour gives a first length; then a
 * Dial-style merge of those (sorted) with a FIFO of improvements. */
static void fallback_paths(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, uint32_t *nxt,
			   uint32_t nreach)
{
	const struct ibf_fabric *f = c->f;
	const uint32_t *order = ws->order;
	uint32_t *cnt = ws->bcount;
	uint32_t *A = ws->tmp, *B = ws->bucket;
	uint32_t na = 0, nb = 0, ia = 0, ib = 0, maxk = 0;
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t v = order[i];
		if (ws->fixed[v])
			continue;
		int bl = -1;
		uint32_t be = ENG_NOLINK;
		uint64_t bw = UINT64_MAX;
		for (uint32_t e = f->adj_off[v]; e < f->adj_off[v + 1]; e++) {
			uint32_t u = f->adj[e].nbr;
			if (u == v || !ws->fixed[u])
				continue;
			int l = ws->len[u] + 1;
			uint64_t w = eng_w(c, ws, e);
			if (bl < 0 || l < bl || (l == bl && w < bw)) {
				bl = l;
				be = e;
				bw = w;
			}
		}
		ws->len[v] = bl;
		nxt[v] = be;
		if (bl >= 0) {
			A[na++] = v;
			if ((uint32_t)bl > maxk)
				maxk = (uint32_t)bl;
		}
	}
	if (na > 1) {
		/* counting sort of A by length (stable) into B, then copy back */
		memset(cnt, 0, (size_t)(maxk + 2) * sizeof(*cnt));
		for (uint32_t k = 0; k < na; k++)
			cnt[ws->len[A[k]] + 1]++;
		for (uint32_t k = 1; k <= maxk + 1; k++)
			cnt[k] += cnt[k - 1];
		for (uint32_t k = 0; k < na; k++)
			B[cnt[ws->len[A[k]]]++] = A[k];
		memcpy(A, B, (size_t)na * sizeof(*A));
	}
	/* A holds keys as they were; a switch improved later sits in B too */
	uint32_t *akey = (uint32_t *)ws->acc; /* reuse: key of A entries */
	for (uint32_t k = 0; k < na; k++)
		akey[k] = (uint32_t)ws->len[A[k]];
	while (ia < na || ib < nb) {
		uint32_t x;
		if (ib >= nb || (ia < na && akey[ia] <= (uint32_t)ws->len[B[ib]])) {
			x = A[ia++];
		} else {
			x = B[ib++];
		}
		if (ws->fixed[x])
			continue;
		ws->fixed[x] = 1; /* final */
		int lx = ws->len[x];
		for (uint32_t e = f->adj_off[x]; e < f->adj_off[x + 1]; e++) {
			uint32_t v = f->adj[e].nbr;
			uint32_t r = c->rev[e];
			if (v == x || ws->fixed[v] || r == ENG_NOLINK)
				continue;
			if (ws->len[v] < 0 || ws->len[v] > lx + 1) {
				ws->len[v] = lx + 1;
				nxt[v] = r;
				B[nb++] = v;
			} else if (ws->len[v] == lx + 1 && eng_w(c, ws, r) < eng_w(c, ws, nxt[v])) {
				nxt[v] = r;
			}
		}
		charge_path(c, ws, x, 1, t, nxt);
	}
}

static int too_long(const struct eng_ctx *c, const struct eng_ws *ws, const uint16_t *D, uint32_t s)
{
	return ws->len[s] > eng_hi(c, D[s]) && ws->len[s] > (int)D[s];
}

/* Repair: a fallback whose shortest route into the tree is longer than
 * its window (the minimal continuation was taken by in-window paths)
 * gets a minimal path instead; switches on it are demoted to minimal
 * paths too.  Lengths only shrink, the tree stays a tree. */
static void repair_long(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint16_t *D,
			uint32_t *nxt, uint32_t nreach)
{
	const struct ibf_fabric *f = c->f;
	const uint32_t *order = ws->order;
	int nlong = 0;
	for (uint32_t i = 1; i < nreach; i++)
		if (too_long(c, ws, D, order[i]))
			nlong++;
	if (!nlong)
		return;
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t s = order[i];
		if (!too_long(c, ws, D, s))
			continue;
		/* walk down: x -> a closer neighbour, until a minimal switch */
		uint32_t x = s;
		while (x != t && ws->len[x] != (int)D[x]) {
			uint32_t best = ENG_NOLINK, bmin = ENG_NOLINK;
			uint64_t bw = UINT64_MAX, bwm = UINT64_MAX;
			for (uint32_t e = f->adj_off[x]; e < f->adj_off[x + 1]; e++) {
				uint32_t u = f->adj[e].nbr;
				if (D[u] + 1 != D[x])
					continue;
				uint64_t w = eng_w(c, ws, e);
				if (ws->len[u] == (int)D[u] && w < bwm) {
					bwm = w;
					bmin = e;
				}
				if (w < bw) {
					bw = w;
					best = e;
				}
			}
			uint32_t e = bmin != ENG_NOLINK ? bmin : best;
			nxt[x] = e;
			ws->len[x] = (int)D[x]; /* provisional; recomputed below */
			x = f->adj[e].nbr;
		}
	}
	/* recompute lengths along the (possibly changed) next hops */
	for (uint32_t i = 0; i < nreach; i++)
		ws->fixed[order[i]] = 0;
	ws->fixed[t] = 1;
	ws->len[t] = 0;
	uint32_t *stk = ws->tmp;
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t x = order[i], n_ = 0;
		while (!ws->fixed[x]) {
			stk[n_++] = x;
			x = f->adj[nxt[x]].nbr;
		}
		while (n_) {
			uint32_t y = stk[--n_];
			ws->len[y] = ws->len[f->adj[nxt[y]].nbr] + 1;
			ws->fixed[y] = 1;
		}
	}
}

/* Count the layer's pairs: inside the window (the source's level rises),
 * fallbacks, paths longer than the window. */
static void account(const struct eng_ctx *c, struct eng_ws *ws, const uint16_t *D, uint32_t nreach,
		    struct eng_unit_out *out)
{
	const uint32_t *order = ws->order;
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t s = order[i];
		int lo = eng_lo(c, D[s]);
		int hi = eng_hi(c, D[s]);
		int L = ws->len[s];
		out->pairs_total++;
		if (L >= lo && L <= hi) {
			out->pairs_nonmin++;
			ws->level[s]++;
		} else {
			out->pairs_fallback++;
			if (L > hi)
				out->long_paths++;
		}
		if ((uint32_t)L > out->max_len)
			out->max_len = (uint32_t)L;
	}
}

/* Layered (non-minimal) in-tree to t for layer `layer` of destination di:
 * nxt_all holds the trees of layers 0..layer-1 (layer * S entries) and
 * receives this layer's tree at nxt_all + layer * S. */
static void eng_layer_tree(const struct eng_ctx *c, struct eng_ws *ws, uint32_t di, int layer,
			   uint32_t nreach, long cap, struct eng_unit_out *out)
{
	const struct eng_dest *d = &c->dest[di];
	uint32_t t = d->t;
	const uint16_t *D = c->dist + (size_t)t * c->S;
	uint32_t *nxt = ws->nxt + (size_t)layer * c->S;

	tree_init(c, ws, t, D, nxt, nreach);
	const uint32_t *byl = source_order(c, ws, d, layer, nreach - 1);
	window_paths(c, ws, t, layer, D, nxt, byl, nreach - 1, cap);
	fallback_paths(c, ws, t, nxt, nreach);
	repair_long(c, ws, t, D, nxt, nreach);
	account(c, ws, D, nreach, out);
}

int ibf_route_layered(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	static const struct eng_kind kind = { "layered", eng_min_tree, eng_layer_tree };
	return eng_run(f, o, r, rep, err, &kind);
}
