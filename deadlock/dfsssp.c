/* DFSSSP-style virtual layering on any engine's routes.
 *
 * Two ways to give every path (source switch, DLID) a layer whose CDG is
 * acyclic:
 *
 * ONLINE (default): insert the paths one by one into the lowest layer that
 * stays acyclic, keeping a dynamic topological order per layer (below).
 *
 * CUT (classic DFSSSP): every path starts in layer 0.  For layer v = 0, 1,
 * ...: while the layer's CDG has a cycle, take a cycle, cut its dependency
 * with the fewest paths, and move every path of layer v that induces it
 * (with all of its dependencies) to layer v + 1.  Cycles are searched only
 * inside strongly connected components (Tarjan), on a work list of
 * components: a cut only removes dependencies, so components only split
 * and acyclic parts are never scanned again.  Inside a component a DFS pass
 * cuts one cycle per back edge it meets, then Tarjan re-splits what is
 * left.  On layered Slim Fly routes this needs far more layers than ONLINE
 * (docs/deadlock.md), so it is not the default; its Tarjan pass still runs
 * after ONLINE as an independent check of every layer.
 *
 * When the layers fit the VLs the spare VLs go, one at a time, to the layer
 * with the most paths per VL; a path keeps one VL end to end (chosen by a
 * hash of the path inside its layer's range), and splitting an acyclic
 * layer over several VLs keeps every VL acyclic.  SL = VL, SL2VL identity.
 *
 * The paths that induce a dependency (c1 -> c2), c1 = (x, port p) into y,
 * c2 = (y, port q), are recomputed from the tables when needed: DLIDs with
 * LFT_x = p and LFT_y = q, sources whose walk passes x.  No per-pair path
 * lists are stored. */
#include "dl_internal.h"

#include <stdlib.h>
#include <string.h>

struct range {
	size_t off;
	uint32_t n;
};

struct dfs {
	struct ibf_cdg g;
	uint8_t *layer;    /* [nsw * stride] */
	/* scratch over channels */
	uint32_t *stamp;   /* component marker */
	uint32_t kid;
	uint8_t *color;
	int32_t *idx, *low;
	uint8_t *onst;
	uint32_t *tstack, *cnode;
	uint64_t *cit;     /* iterator / enter edge */
	uint64_t *cin;
	uint32_t *pos;
	uint32_t *kbuf;    /* copy of the component being processed */
	/* work list */
	uint32_t *wbuf;
	size_t wlen, wcap;
	struct range *rs;
	size_t nrs, rscap;
	uint64_t breaks;
	/* online insertion */
	uint32_t *ord[CDG_MAX_LAYERS], *inv[CDG_MAX_LAYERS]; /* topological order per layer */
	uint8_t *forb[CDG_MAX_LAYERS];  /* dependency known to close a cycle in the layer */
	uint32_t *rin_off, *rin;        /* channels into each switch */
	uint32_t *vis;                  /* stamps */
	uint32_t vcur;
	uint32_t *rf, *rb, *pool;
	struct ordn *tmp;
	uint64_t checks;
};

static void dfs_free(struct dfs *st)
{
	free(st->layer);
	free(st->stamp);
	free(st->color);
	free(st->idx);
	free(st->low);
	free(st->onst);
	free(st->tstack);
	free(st->cnode);
	free(st->cit);
	free(st->cin);
	free(st->pos);
	free(st->kbuf);
	free(st->wbuf);
	free(st->rs);
	for (int v = 0; v < CDG_MAX_LAYERS; v++) {
		free(st->ord[v]);
		free(st->inv[v]);
		free(st->forb[v]);
	}
	free(st->rin_off);
	free(st->rin);
	free(st->vis);
	free(st->rf);
	free(st->rb);
	free(st->pool);
	free(st->tmp);
	cdg_free(&st->g);
}

static inline int live(const struct dfs *st, const uint32_t *cnt, uint64_t e, uint32_t w)
{
	return cnt[e] && st->stamp[w] == st->kid;
}

/* target channel of dependency e leaving channel c */
static inline uint32_t etarget(const struct ibf_cdg *g, uint32_t c, uint64_t e)
{
	return g->f->adj_off[g->f->adj[c].nbr] + (uint32_t)(e - g->eoff[c]);
}

static void move_path(struct dfs *st, uint32_t s, uint32_t d, int v)
{
	struct ibf_cdg *g = &st->g;
	uint32_t *from = g->cnt[v], *to = g->cnt[v + 1];
	int32_t c = cdg_out(g, s, d);
	while (c >= 0) {
		int32_t c2 = cdg_out(g, cdg_head(g, c), d);
		if (c2 < 0)
			break;
		uint64_t e = cdg_edge(g, c, c2);
		from[e]--;
		to[e]++;
		c = c2;
	}
	st->layer[(size_t)s * g->stride + d] = (uint8_t)(v + 1);
}

/* Cut dependency e = (c1 -> c2) in layer v: move its paths to v + 1. */
static int cut(struct dfs *st, int v, uint32_t c1, uint64_t e, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	int rc = cdg_layer(g, v + 1, err);
	if (rc)
		return rc;
	uint32_t c2 = etarget(g, c1, e);
	uint32_t x = g->ch_tail[c1], y = g->f->adj[c1].nbr;
	uint8_t p = g->f->adj[c1].lport, q = g->f->adj[c2].lport;
	const uint8_t *lx = ibf_lft(g->r, x), *ly = ibf_lft(g->r, y);
	for (uint32_t i = 0; i < g->ndl && g->cnt[v][e]; i++) {
		uint32_t d = g->dlids[i];
		if (lx[d] != p || ly[d] != q)
			continue;
		for (uint32_t s = 0; s < g->nsw; s++) {
			if (st->layer[(size_t)s * g->stride + d] != v)
				continue;
			int32_t c = cdg_out(g, s, d);
			while (c >= 0 && (uint32_t)c != c1)
				c = cdg_out(g, cdg_head(g, c), d);
			if (c >= 0)
				move_path(st, s, d, v);
		}
	}
	st->breaks++;
	return 0;
}

static int push_range(struct dfs *st, const uint32_t *nodes, uint32_t n, struct ibf_error *err)
{
	if (st->wlen + n > st->wcap) {
		size_t cap = st->wcap ? st->wcap : 1024;
		while (cap < st->wlen + n)
			cap *= 2;
		uint32_t *nb = realloc(st->wbuf, cap * sizeof(*nb));
		if (!nb)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		st->wbuf = nb;
		st->wcap = cap;
	}
	if (st->nrs == st->rscap) {
		size_t cap = st->rscap ? st->rscap * 2 : 64;
		struct range *nr = realloc(st->rs, cap * sizeof(*nr));
		if (!nr)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		st->rs = nr;
		st->rscap = cap;
	}
	memcpy(st->wbuf + st->wlen, nodes, (size_t)n * sizeof(*nodes));
	st->rs[st->nrs].off = st->wlen;
	st->rs[st->nrs].n = n;
	st->nrs++;
	st->wlen += n;
	return 0;
}

/* One DFS pass over the component in kbuf[0..n): cut a cycle at every back
 * edge whose cycle is still intact. */
static int break_pass(struct dfs *st, int v, uint32_t n, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	uint32_t *cnt;
	for (uint32_t i = 0; i < n; i++)
		st->color[st->kbuf[i]] = 0;
	for (uint32_t r0 = 0; r0 < n; r0++) {
		uint32_t root = st->kbuf[r0];
		if (st->color[root])
			continue;
		uint32_t sp = 0;
		st->cnode[sp] = root;
		st->cit[sp] = g->eoff[root];
		st->cin[sp] = UINT64_MAX;
		st->pos[root] = sp;
		st->color[root] = 1;
		sp++;
		while (sp) {
			uint32_t u = st->cnode[sp - 1];
			cnt = g->cnt[v];
			if (st->cit[sp - 1] >= g->eoff[u + 1]) {
				st->color[u] = 2;
				sp--;
				continue;
			}
			uint64_t e = st->cit[sp - 1]++;
			uint32_t w = etarget(g, u, e);
			if (!live(st, cnt, e, w))
				continue;
			if (st->color[w] == 0) {
				st->color[w] = 1;
				st->pos[w] = sp;
				st->cnode[sp] = w;
				st->cit[sp] = g->eoff[w];
				st->cin[sp] = e;
				sp++;
			} else if (st->color[w] == 1) {
				/* cycle: stack[pos[w]+1 .. sp-1] entered by cin, closed by e */
				uint64_t best = e;
				uint32_t bestc = u, bcnt = cnt[e];
				int intact = 1;
				for (uint32_t k = st->pos[w] + 1; k < sp; k++) {
					uint64_t ek = st->cin[k];
					if (!cnt[ek]) {
						intact = 0;
						break;
					}
					if (cnt[ek] < bcnt) {
						bcnt = cnt[ek];
						best = ek;
						bestc = st->cnode[k - 1];
					}
				}
				if (intact) {
					int rc = cut(st, v, bestc, best, err);
					if (rc)
						return rc;
				}
			}
		}
	}
	return 0;
}

/* Tarjan over the component in kbuf[0..n); push its cyclic SCCs. */
static int split(struct dfs *st, int v, uint32_t n, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	const uint32_t *cnt = g->cnt[v];
	for (uint32_t i = 0; i < n; i++) {
		st->idx[st->kbuf[i]] = -1;
		st->onst[st->kbuf[i]] = 0;
	}
	int32_t counter = 0;
	uint32_t tsp = 0;
	for (uint32_t r0 = 0; r0 < n; r0++) {
		uint32_t root = st->kbuf[r0];
		if (st->idx[root] >= 0)
			continue;
		uint32_t sp = 0;
		st->cnode[sp] = root;
		st->cit[sp] = g->eoff[root];
		sp++;
		st->idx[root] = st->low[root] = counter++;
		st->tstack[tsp++] = root;
		st->onst[root] = 1;
		while (sp) {
			uint32_t u = st->cnode[sp - 1];
			if (st->cit[sp - 1] < g->eoff[u + 1]) {
				uint64_t e = st->cit[sp - 1]++;
				uint32_t w = etarget(g, u, e);
				if (!live(st, cnt, e, w))
					continue;
				if (st->idx[w] < 0) {
					st->idx[w] = st->low[w] = counter++;
					st->tstack[tsp++] = w;
					st->onst[w] = 1;
					st->cnode[sp] = w;
					st->cit[sp] = g->eoff[w];
					sp++;
				} else if (st->onst[w] && st->idx[w] < st->low[u]) {
					st->low[u] = st->idx[w];
				}
				continue;
			}
			sp--;
			if (sp && st->low[u] < st->low[st->cnode[sp - 1]])
				st->low[st->cnode[sp - 1]] = st->low[u];
			if (st->low[u] != st->idx[u])
				continue;
			uint32_t base = tsp;
			do {
				base--;
				st->onst[st->tstack[base]] = 0;
			} while (st->tstack[base] != u);
			uint32_t sz = tsp - base;
			int cyclic = sz > 1;
			if (!cyclic)
				for (uint64_t e = g->eoff[u]; e < g->eoff[u + 1]; e++)
					if (cnt[e] && etarget(g, u, e) == u)
						cyclic = 1;
			if (cyclic) {
				int rc = push_range(st, st->tstack + base, sz, err);
				if (rc)
					return rc;
			}
			tsp = base;
		}
	}
	return 0;
}

static int layer_acyclic(struct dfs *st, int v, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	uint32_t n = 0;
	const uint32_t *cnt = g->cnt[v];
	for (uint32_t c = 0; c < g->nch; c++) {
		for (uint64_t e = g->eoff[c]; e < g->eoff[c + 1]; e++)
			if (cnt[e]) {
				st->kbuf[n++] = c;
				break;
			}
	}
	if (!n)
		return 0;
	st->wlen = 0;
	st->nrs = 0;
	/* whole layer as the first component; split() finds the real ones */
	st->kid++;
	for (uint32_t i = 0; i < n; i++)
		st->stamp[st->kbuf[i]] = st->kid;
	int rc = split(st, v, n, err);
	while (!rc && st->nrs) {
		struct range k = st->rs[--st->nrs];
		memcpy(st->kbuf, st->wbuf + k.off, (size_t)k.n * sizeof(*st->kbuf));
		st->wlen = k.off;
		st->kid++;
		for (uint32_t i = 0; i < k.n; i++)
			st->stamp[st->kbuf[i]] = st->kid;
		rc = break_pass(st, v, k.n, err);
		if (!rc)
			rc = split(st, v, k.n, err);
	}
	return rc;
}

static int dfs_alloc(struct dfs *st, struct ibf_error *err)
{
	size_t nch = (size_t)st->g.nch + 1;
	size_t np = (size_t)st->g.nsw * st->g.stride;
	st->layer = calloc(np ? np : 1, 1);
	st->stamp = calloc(nch, sizeof(*st->stamp));
	st->color = calloc(nch, 1);
	st->idx = malloc(nch * sizeof(*st->idx));
	st->low = malloc(nch * sizeof(*st->low));
	st->onst = calloc(nch, 1);
	st->tstack = malloc(nch * sizeof(*st->tstack));
	st->cnode = malloc(nch * sizeof(*st->cnode));
	st->cit = malloc(nch * sizeof(*st->cit));
	st->cin = malloc(nch * sizeof(*st->cin));
	st->pos = malloc(nch * sizeof(*st->pos));
	st->kbuf = malloc(nch * sizeof(*st->kbuf));
	if (!st->layer || !st->stamp || !st->color || !st->idx || !st->low || !st->onst ||
	    !st->tstack || !st->cnode || !st->cit || !st->cin || !st->pos || !st->kbuf)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for DFSSSP layering");
	return 0;
}

/* ------------------------------------------------------------ online insertion
 *
 * Paths are inserted one by one (DLID by DLID, sources in switch order)
 * into the lowest layer whose CDG stays acyclic with the path's
 * dependencies added.  Each layer keeps a topological order of its channels
 * (Pearce-Kelly dynamic topological sort): a new dependency x -> y that
 * agrees with the order costs nothing; otherwise only the channels between
 * ord[y] and ord[x] are searched, and reordered when no cycle closes.
 * A dependency found to close a cycle while none of the path's other new
 * dependencies were added is remembered as forbidden in that layer (layers
 * only grow, so it stays forbidden). */

struct ordn {
	uint32_t ord, node;
};

static int ordn_cmp(const void *a, const void *b)
{
	const struct ordn *x = a, *y = b;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int online_layer(struct dfs *st, int L, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	int rc = cdg_layer(g, L, err);
	if (rc)
		return rc;
	if (st->ord[L])
		return 0;
	st->ord[L] = malloc(((size_t)g->nch + 1) * sizeof(uint32_t));
	st->inv[L] = malloc(((size_t)g->nch + 1) * sizeof(uint32_t));
	st->forb[L] = calloc(g->nedges + 1, 1);
	if (!st->ord[L] || !st->inv[L] || !st->forb[L])
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for a layer");
	for (uint32_t c = 0; c < g->nch; c++)
		st->ord[L][c] = st->inv[L][c] = c;
	return 0;
}

/* Add x -> y to layer L's order: 0 when acyclic (order updated), 1 when
 * y already reaches x. */
static int pk_add(struct dfs *st, int L, uint32_t x, uint32_t y)
{
	struct ibf_cdg *g = &st->g;
	uint32_t *ord = st->ord[L];
	const uint32_t *cnt = g->cnt[L];
	if (x == y)
		return 1;
	uint32_t ub = ord[x], lb = ord[y];
	if (lb > ub)
		return 0;
	st->checks++;
	/* forward from y, nodes ordered before x */
	uint32_t fst = ++st->vcur, nf = 0, sp = 0;
	st->vis[y] = fst;
	st->kbuf[sp++] = y;
	while (sp) {
		uint32_t u = st->kbuf[--sp];
		st->rf[nf++] = u;
		for (uint64_t e = g->eoff[u]; e < g->eoff[u + 1]; e++) {
			if (!cnt[e])
				continue;
			uint32_t w = etarget(g, u, e);
			if (w == x)
				return 1;
			if (ord[w] < ub && st->vis[w] != fst) {
				st->vis[w] = fst;
				st->kbuf[sp++] = w;
			}
		}
	}
	/* backward from x, nodes ordered after y */
	uint32_t bst = ++st->vcur, nb = 0;
	st->vis[x] = bst;
	st->kbuf[sp++] = x;
	while (sp) {
		uint32_t u = st->kbuf[--sp];
		st->rb[nb++] = u;
		uint32_t t = g->ch_tail[u];
		uint32_t j = u - g->f->adj_off[t];
		for (uint32_t k = st->rin_off[t]; k < st->rin_off[t + 1]; k++) {
			uint32_t p = st->rin[k];
			if (!cnt[g->eoff[p] + j])
				continue;
			if (ord[p] > lb && st->vis[p] != bst) {
				st->vis[p] = bst;
				st->kbuf[sp++] = p;
			}
		}
	}
	/* reorder: the backward set, then the forward set, on their old slots */
	uint32_t n = 0;
	for (uint32_t i = 0; i < nb; i++) {
		st->tmp[i].ord = ord[st->rb[i]];
		st->tmp[i].node = st->rb[i];
		st->pool[n++] = ord[st->rb[i]];
	}
	qsort(st->tmp, nb, sizeof(*st->tmp), ordn_cmp);
	for (uint32_t i = 0; i < nb; i++)
		st->rb[i] = st->tmp[i].node;
	for (uint32_t i = 0; i < nf; i++) {
		st->tmp[i].ord = ord[st->rf[i]];
		st->tmp[i].node = st->rf[i];
		st->pool[n++] = ord[st->rf[i]];
	}
	qsort(st->tmp, nf, sizeof(*st->tmp), ordn_cmp);
	for (uint32_t i = 0; i < nf; i++)
		st->rf[i] = st->tmp[i].node;
	qsort(st->pool, n, sizeof(*st->pool), u32_cmp);
	for (uint32_t i = 0; i < nb; i++) {
		ord[st->rb[i]] = st->pool[i];
		st->inv[L][st->pool[i]] = st->rb[i];
	}
	for (uint32_t i = 0; i < nf; i++) {
		ord[st->rf[i]] = st->pool[nb + i];
		st->inv[L][st->pool[nb + i]] = st->rf[i];
	}
	return 0;
}

static int online(struct dfs *st, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	size_t nch = (size_t)g->nch + 1;
	st->rin_off = calloc((size_t)g->nsw + 2, sizeof(uint32_t));
	st->rin = malloc(nch * sizeof(uint32_t));
	st->vis = calloc(nch, sizeof(uint32_t));
	st->rf = malloc(nch * sizeof(uint32_t));
	st->rb = malloc(nch * sizeof(uint32_t));
	st->pool = malloc(2 * nch * sizeof(uint32_t));
	st->tmp = malloc(nch * sizeof(*st->tmp));
	if (!st->rin_off || !st->rin || !st->vis || !st->rf || !st->rb || !st->pool || !st->tmp)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t c = 0; c < g->nch; c++)
		st->rin_off[cdg_head(g, (int32_t)c) + 1]++;
	for (uint32_t s = 0; s < g->nsw; s++)
		st->rin_off[s + 1] += st->rin_off[s];
	{
		/* one fill cursor per switch: there may be more switches than
		 * channels (isolated switches, a single switch) */
		uint32_t *fill = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
		if (!fill)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		memcpy(fill, st->rin_off, ((size_t)g->nsw + 1) * sizeof(uint32_t));
		for (uint32_t c = 0; c < g->nch; c++)
			st->rin[fill[cdg_head(g, (int32_t)c)]++] = c;
		free(fill);
	}
	int rc = online_layer(st, 0, err);
	for (uint32_t i = 0; !rc && i < g->ndl; i++) {
		uint32_t d = g->dlids[i];
		for (uint32_t s = 0; !rc && s < g->nsw; s++) {
			enum { MAXD = 64 };
			uint64_t deps[MAXD], added[MAXD];
			uint32_t src[MAXD], tgt[MAXD];
			int nd = 0;
			int32_t c = cdg_out(g, s, d);
			while (c >= 0 && nd < MAXD) {
				int32_t c2 = cdg_out(g, cdg_head(g, c), d);
				if (c2 < 0)
					break;
				src[nd] = (uint32_t)c;
				tgt[nd] = (uint32_t)c2;
				deps[nd++] = cdg_edge(g, c, c2);
				c = c2;
			}
			if (c >= 0 && nd == MAXD) {
				rc = ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
						   "dfsssp: a path longer than %d hops", MAXD);
				break;
			}
			if (!nd)
				continue; /* no dependency: layer 0 */
			for (int L = 0;; L++) {
				if (L >= CDG_MAX_LAYERS) {
					rc = ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
							   "dfsssp: more than %d virtual layers needed",
							   CDG_MAX_LAYERS);
					break;
				}
				rc = online_layer(st, L, err);
				if (rc)
					break;
				uint32_t *cnt = g->cnt[L];
				int ok = 1, nnew = 0;
				for (int k = 0; k < nd && ok; k++)
					if (!cnt[deps[k]] && st->forb[L][deps[k]])
						ok = 0;
				for (int k = 0; k < nd && ok; k++) {
					if (cnt[deps[k]])
						continue;
					if (pk_add(st, L, src[k], tgt[k])) {
						if (!nnew)
							st->forb[L][deps[k]] = 1;
						ok = 0;
						break;
					}
					cnt[deps[k]] = 1; /* tentative */
					added[nnew++] = deps[k];
				}
				/* the order stays valid when tentative edges go away */
				for (int k = 0; k < nnew; k++)
					cnt[added[k]] = 0;
				if (!ok)
					continue;
				for (int k = 0; k < nd; k++)
					cnt[deps[k]]++;
				st->layer[(size_t)s * g->stride + d] = (uint8_t)L;
				break;
			}
		}
	}
	return rc;
}
/* Count every path's dependencies into layer 0. */
static int count_layer0(struct dfs *st, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	int rc = cdg_layer(g, 0, err);
	if (rc)
		return rc;
	uint32_t *cnt = g->cnt[0];
	for (uint32_t i = 0; i < g->ndl; i++) {
		uint32_t d = g->dlids[i];
		for (uint32_t s = 0; s < g->nsw; s++) {
			int32_t c = cdg_out(g, s, d);
			while (c >= 0) {
				int32_t c2 = cdg_out(g, cdg_head(g, c), d);
				if (c2 < 0)
					break;
				cnt[cdg_edge(g, c, c2)]++;
				c = c2;
			}
		}
	}
	return 0;
}

int ibf_deadlock_dfsssp(const struct ibf_fabric *f, const struct ibf_routes *r,
			const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err)
{
	double t0 = dl_now();
	*out = NULL;
	int V = o->max_vls > 0 ? o->max_vls : 8;
	if (V > IBF_DL_MAX_VLS)
		V = IBF_DL_MAX_VLS;
	struct dfs st;
	memset(&st, 0, sizeof(st));
	int rc = cdg_init(&st.g, f, r, err);
	if (rc)
		return rc;
	struct ibf_cdg *g = &st.g;
	struct ibf_dl *dl = NULL;
	int max_hops = 0;
	rc = cdg_check_routes(g, &max_hops, err);
	if (!rc)
		rc = dfs_alloc(&st, err);
	if (!rc && o->layering == IBF_DL_LAYER_CUT)
		rc = count_layer0(&st, err);
	else if (!rc)
		rc = online(&st, err);
	/* the cut pass on every layer: the whole algorithm for LAYER_CUT, and a
	 * check (plus repair, never needed so far) after online insertion */
	uint64_t online_cuts = 0;
	for (int v = 0; !rc && v < g->nlayers; v++) {
		uint64_t before = st.breaks;
		rc = layer_acyclic(&st, v, err);
		if (o->layering != IBF_DL_LAYER_CUT)
			online_cuts += st.breaks - before;
	}
	if (!rc && online_cuts)
		dl_log(o, IBF_LOG_INFO, "dfsssp: online layering left %llu cycle(s); cut",
		       (unsigned long long)online_cuts);
	if (rc)
		goto fail;

	dl = dl_new(g, err);
	if (!dl) {
		rc = err ? err->code : IBF_ENOMEM;
		goto fail;
	}
	dl->scheme = IBF_DEADLOCK_DFSSSP;
	dl->vls = V;
	dl->max_hops = max_hops;
	dl->breaks = st.breaks;
	int L = 1;
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t i = 0; i < g->ndl; i++) {
			uint32_t d = g->dlids[i];
			uint8_t l = st.layer[(size_t)s * g->stride + d];
			if (cdg_out(g, s, d) >= 0)
				dl->layer_paths[l]++;
			if (l + 1 > L)
				L = l + 1;
		}
	dl->layers = L;
	if (L > V && !o->best_effort) {
		rc = ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				   "dfsssp: the routes need %d VLs for deadlock freedom, only %d "
				   "available (max_vls); raise max_vls, use fewer layers/LMC, or set "
				   "best_effort (not deadlock-free)",
				   L, V);
		goto fail;
	}
	/* VL ranges per layer */
	int nl = L < V ? L : V;
	for (int l = 0; l < nl; l++)
		dl->layer_share[l] = 1;
	for (int spare = V - L; spare > 0; spare--) {
		int best = 0;
		for (int l = 1; l < nl; l++)
			if ((double)dl->layer_paths[l] / dl->layer_share[l] >
			    (double)dl->layer_paths[best] / dl->layer_share[best])
				best = l;
		dl->layer_share[best]++;
	}
	for (int l = 1; l < nl; l++)
		dl->layer_base[l] = (uint8_t)(dl->layer_base[l - 1] + dl->layer_share[l - 1]);
	for (int l = nl; l < L; l++) {
		dl->layer_base[l] = (uint8_t)(V - 1);
		dl->layer_share[l] = 1;
	}
	if (L > V) {
		dl->deadlock_free = 0;
		snprintf(dl->note, sizeof(dl->note),
			 "best effort: %d layers needed, %d VLs available; layers %d..%d merged "
			 "into VL %d: NOT deadlock-free",
			 L, V, V, L - 1, V - 1);
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t i = 0; i < g->ndl; i++) {
			uint32_t d = g->dlids[i];
			size_t k = (size_t)s * g->stride + d;
			uint8_t l = st.layer[k];
			unsigned vl = dl->layer_base[l];
			if (dl->layer_share[l] > 1)
				vl += (unsigned)(dl_mix(((uint64_t)s << 32) | d) % dl->layer_share[l]);
			dl->sl[k] = (uint8_t)vl;
			if (cdg_out(g, s, d) >= 0)
				dl->paths_per_vl[vl]++;
		}
	for (int vl = 0; vl < 16; vl++)
		if (dl->paths_per_vl[vl])
			dl->vls_used++;
	dl->seconds = dl_now() - t0;
	dl_log(o, IBF_LOG_INFO,
	       "dfsssp: %d layer(s) needed, %d VLs available, %d used, %llu dependencies cut, "
	       "%.3f s%s%s",
	       L, V, dl->vls_used, (unsigned long long)st.breaks, dl->seconds,
	       dl->note[0] ? "; " : "", dl->note);
	dfs_free(&st);
	*out = dl;
	return 0;
fail:
	ibf_dl_free(dl);
	dfs_free(&st);
	return rc;
}
