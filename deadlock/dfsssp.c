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
	uint8_t *layer; /* [nsw * stride] */
	/* scratch over channels */
	uint32_t *stamp; /* component marker */
	uint32_t kid;
	uint8_t *color;
	int32_t *idx, *low;
	uint8_t *onst;
	uint32_t *tstack, *cnode;
	uint64_t *cit; /* iterator / enter edge */
	uint64_t *cin;
	uint32_t *pos;
	uint32_t *kbuf; /* copy of the component being processed */
	/* work list */
	uint32_t *wbuf;
	size_t wlen, wcap;
	struct range *rs;
	size_t nrs, rscap;
	uint64_t breaks;
	/* online insertion */
	uint32_t *ord[CDG_MAX_LAYERS];	/* topological order per layer */
	uint64_t *forb[CDG_MAX_LAYERS]; /* bits: dependency known to close a cycle in the layer */
	/* the layer's live dependencies (count > 0) as bits: bout by dependency
	 * id (a channel's successors are the bits eoff[c]..eoff[c+1]-1), bin by
	 * target (a channel u's predecessors are the bits ioff[u]..ioff[u+1]-1,
	 * in the order of rin over u's tail switch) */
	uint64_t *bout[CDG_MAX_LAYERS], *bin[CDG_MAX_LAYERS];
	uint64_t *ioff;		 /* [nch + 1] */
	uint32_t *rpos;		 /* [nch] position of a channel in rin of its head switch */
	uint32_t *rin_off, *rin; /* channels into each switch */
	uint32_t *vis, *visb;	 /* stamps of pk_add's forward and backward searches */
	uint32_t *bstk;		 /* pk_add's backward stack */
	uint32_t vcur;
	uint32_t *rf, *rb, *pool;
	/* one path's dependencies: a path without a loop has at most nsw - 2
	 * (the arrays held 64, so a path of more than 64 hops, on a ring of
	 * 130 switches or more, was refused) */
	uint32_t maxd;
	uint64_t *pdeps;
	int *padded;
	uint32_t *psrc, *ptgt;
	uint64_t *kf, *kb, *ktmp; /* (order << 32 | channel) sort keys */
	/* dependencies the paths of the current DLID made live, to take them
	 * out again when the DLID does not fit (online insertion keeps no
	 * per-dependency path counts: a dependency is live or not) */
	struct undo {
		uint64_t e;
		uint32_t c1, c2;
		int L;
	} * undo;
	size_t nundo, undocap;
	uint64_t checks, cycles, visits; /* pk_add: searches, cycles found, channels expanded */
	const uint64_t *lbits;		 /* layer_acyclic: liveness from these bits, not counts */
	int cyclic;			 /* layer_acyclic on bits found a cyclic component */
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
		free(st->forb[v]);
		free(st->bout[v]);
		free(st->bin[v]);
	}
	free(st->ioff);
	free(st->rpos);
	free(st->rin_off);
	free(st->rin);
	free(st->vis);
	free(st->visb);
	free(st->bstk);
	free(st->rf);
	free(st->rb);
	free(st->pool);
	free(st->pdeps);
	free(st->padded);
	free(st->psrc);
	free(st->ptgt);
	free(st->kf);
	free(st->kb);
	free(st->ktmp);
	free(st->undo);
	cdg_free(&st->g);
}

static inline int bit_get(const uint64_t *b, uint64_t i)
{
	return (int)((b[i >> 6] >> (i & 63)) & 1);
}

/* Dependency e in the layer being checked: its count, or its bit when the
 * check runs on the online layering's bits (lbits). */
static inline int dep_on(const struct dfs *st, const uint32_t *cnt, uint64_t e)
{
	return st->lbits ? bit_get(st->lbits, e) : cnt[e] != 0;
}

static inline int live(const struct dfs *st, const uint32_t *cnt, uint64_t e, uint32_t w)
{
	return dep_on(st, cnt, e) && st->stamp[w] == st->kid;
}

/* target channel of dependency e leaving channel c */
static inline uint32_t etarget(const struct ibf_cdg *g, uint32_t c, uint64_t e)
{
	return g->f->adj_off[g->f->adj[c].nbr] + (uint32_t)(e - g->eoff[c]);
}

/* Dependency c1 -> c2 (id e) became live (count 0 -> 1) or dead (1 -> 0)
 * in layer L: mirror it in the layer's bits, when the layer has them. */
static inline void dep_live(struct dfs *st, int L, uint64_t e, uint32_t c1, uint32_t c2)
{
	if (!st->bout[L])
		return;
	uint64_t i = st->ioff[c2] + st->rpos[c1];
	st->bout[L][e >> 6] |= 1ull << (e & 63);
	st->bin[L][i >> 6] |= 1ull << (i & 63);
}

static inline void dep_dead(struct dfs *st, int L, uint64_t e, uint32_t c1, uint32_t c2)
{
	if (!st->bout[L])
		return;
	uint64_t i = st->ioff[c2] + st->rpos[c1];
	st->bout[L][e >> 6] &= ~(1ull << (e & 63));
	st->bin[L][i >> 6] &= ~(1ull << (i & 63));
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
		if (--from[e] == 0)
			dep_dead(st, v, e, (uint32_t)c, (uint32_t)c2);
		if (to[e]++ == 0)
			dep_live(st, v + 1, e, (uint32_t)c, (uint32_t)c2);
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
					if (dep_on(st, cnt, e) && etarget(g, u, e) == u)
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
			if (dep_on(st, cnt, e)) {
				st->kbuf[n++] = c;
				break;
			}
	}
	if (!n)
		return 0;
	if (st->lbits) {
		/* a check only: is there a cyclic component? */
		st->kid++;
		for (uint32_t i = 0; i < n; i++)
			st->stamp[st->kbuf[i]] = st->kid;
		st->wlen = 0;
		st->nrs = 0;
		int rc = split(st, v, n, err);
		if (!rc && st->nrs)
			st->cyclic = 1;
		return rc;
	}
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
	st->maxd = st->g.nsw + 1;
	st->pdeps = malloc((size_t)st->maxd * sizeof(*st->pdeps));
	st->padded = malloc((size_t)st->maxd * sizeof(*st->padded));
	st->psrc = malloc((size_t)st->maxd * sizeof(*st->psrc));
	st->ptgt = malloc((size_t)st->maxd * sizeof(*st->ptgt));
	if (!st->layer || !st->stamp || !st->color || !st->idx || !st->low || !st->onst ||
	    !st->tstack || !st->cnode || !st->cit || !st->cin || !st->pos || !st->kbuf ||
	    !st->pdeps || !st->padded || !st->psrc || !st->ptgt)
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
 * ord[y] and ord[x] are searched (forwards from y and backwards from x in
 * turns, so a cycle is usually found long before either side is done), and
 * reordered when no cycle closes.  The answer is exact, so the layer a path
 * takes does not depend on how the orders or the searches are kept.
 * A dependency found to close a cycle while none of the path's other new
 * dependencies were added is remembered as forbidden in that layer (layers
 * only grow, so it stays forbidden; a DLID that does not fit is taken out
 * again, and what its paths made forbidden stays so: conservative, never
 * unsafe).
 *
 * The layers' dependency graphs are kept as two bit arrays each (live
 * dependencies by source channel and by target channel), not as path
 * counts: the searches read a word per channel instead of a count per
 * possible dependency, and a path placed costs no count updates.  What the
 * paths of the DLID being placed made live is logged, so a DLID that does
 * not fit is taken out again by clearing those bits (rollback); the counts
 * the cut pass needs are only built if the final check finds a cycle. */

/* Sort keys (order << 32 | channel) by order: insertion sort for short
 * runs, else an LSD radix sort on the order's bytes (orders < nch). */
static void keys_sort(uint64_t *a, uint32_t n, uint64_t *tmp, uint32_t nch)
{
	if (n <= 48) {
		for (uint32_t i = 1; i < n; i++) {
			uint64_t k = a[i];
			uint32_t j = i;
			while (j > 0 && a[j - 1] > k) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = k;
		}
		return;
	}
	uint64_t *src = a, *dst = tmp;
	for (unsigned sh = 32; sh < 64 && (sh == 32 || ((uint64_t)nch >> (sh - 32))); sh += 8) {
		uint32_t cnt[257];
		memset(cnt, 0, sizeof(cnt));
		for (uint32_t i = 0; i < n; i++)
			cnt[((src[i] >> sh) & 0xff) + 1]++;
		for (unsigned b = 0; b < 256; b++)
			cnt[b + 1] += cnt[b];
		for (uint32_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof(*a));
}

static int online_layer(struct dfs *st, int L, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	int rc = cdg_layer(g, L, err);
	if (rc)
		return rc;
	if (st->ord[L])
		return 0;
	size_t words = (size_t)(g->nedges >> 6) + 1;
	st->ord[L] = malloc(((size_t)g->nch + 1) * sizeof(uint32_t));
	st->forb[L] = calloc(words, sizeof(uint64_t));
	st->bout[L] = calloc(words, sizeof(uint64_t));
	st->bin[L] = calloc(words, sizeof(uint64_t));
	if (!st->ord[L] || !st->forb[L] || !st->bout[L] || !st->bin[L])
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for a layer");
	for (uint32_t c = 0; c < g->nch; c++)
		st->ord[L][c] = c;
	/* the count array may already hold dependencies (a layer the cut pass
	 * created): its bits follow them */
	const uint32_t *cnt = g->cnt[L];
	for (uint32_t c = 0; c < g->nch; c++)
		for (uint64_t e = g->eoff[c]; e < g->eoff[c + 1]; e++)
			if (cnt[e])
				dep_live(st, L, e, c, etarget(g, c, e));
	return 0;
}

/* Word wi of the bits b, only its bits in [lo, hi) (hi > lo). */
static inline uint64_t range_word(const uint64_t *b, uint64_t wi, uint64_t lo, uint64_t hi)
{
	uint64_t m = b[wi];
	if (wi == lo >> 6)
		m &= ~0ull << (lo & 63);
	if (wi == (hi - 1) >> 6)
		m &= ~0ull >> (63 - ((hi - 1) & 63));
	return m;
}

/* One step of the forward search of pk_add: expand u's successors w with
 * ord[w] < ub.  1 when one was already reached backwards (from x). */
static inline int pk_fwd(struct dfs *st, const uint64_t *bout, const uint32_t *ord, uint32_t u,
			 uint32_t ub, uint32_t fst, uint32_t bst, uint32_t *sp)
{
	const struct ibf_cdg *g = &st->g;
	const struct ibf_fabric *f = g->f;
	uint64_t lo = g->eoff[u], hi = g->eoff[u + 1];
	if (lo == hi)
		return 0;
	uint32_t base = f->adj_off[f->adj[u].nbr];
	for (uint64_t wi = lo >> 6; wi <= (hi - 1) >> 6; wi++) {
		uint64_t m = range_word(bout, wi, lo, hi);
		while (m) {
			uint64_t e = (wi << 6) | (uint64_t)__builtin_ctzll(m);
			m &= m - 1;
			uint32_t w = base + (uint32_t)(e - lo);
			if (st->visb[w] == bst)
				return 1;
			if (ord[w] < ub && st->vis[w] != fst) {
				st->vis[w] = fst;
				st->kbuf[(*sp)++] = w;
			}
		}
	}
	return 0;
}

/* One step of the backward search: expand u's predecessors p with
 * ord[p] > lb.  1 when one was already reached forwards (from y). */
static inline int pk_bwd(struct dfs *st, const uint64_t *bin, const uint32_t *ord, uint32_t u,
			 uint32_t lb, uint32_t fst, uint32_t bst, uint32_t *sp)
{
	const struct ibf_cdg *g = &st->g;
	uint64_t lo = st->ioff[u], hi = st->ioff[u + 1];
	if (lo == hi)
		return 0;
	const uint32_t *pred = st->rin + st->rin_off[g->ch_tail[u]];
	for (uint64_t wi = lo >> 6; wi <= (hi - 1) >> 6; wi++) {
		uint64_t m = range_word(bin, wi, lo, hi);
		while (m) {
			uint64_t i = (wi << 6) | (uint64_t)__builtin_ctzll(m);
			m &= m - 1;
			uint32_t p = pred[i - lo];
			if (st->vis[p] == fst)
				return 1;
			if (ord[p] > lb && st->visb[p] != bst) {
				st->visb[p] = bst;
				st->bstk[(*sp)++] = p;
			}
		}
	}
	return 0;
}

/* Add x -> y to layer L's order: 0 when acyclic (order updated), 1 when
 * y already reaches x.  Only channels ordered between y and x can be on
 * such a path: a forward search from y (channels before x) and a backward
 * search from x (channels after y) take turns, one channel each, and a
 * cycle closes as soon as one reaches a channel the other has seen.  When
 * none closes, both have run to the end: the forward set must move behind
 * the backward set (Pearce-Kelly).  The searches walk the layer's bits. */
static int pk_add(struct dfs *st, int L, uint32_t x, uint32_t y)
{
	struct ibf_cdg *g = &st->g;
	uint32_t *ord = st->ord[L];
	const uint64_t *bout = st->bout[L], *bin = st->bin[L];
	if (x == y)
		return 1;
	uint32_t ub = ord[x], lb = ord[y];
	if (lb > ub)
		return 0;
	st->checks++;
	uint32_t fst = ++st->vcur, bst = fst;
	uint32_t nf = 0, nb = 0, fsp = 0, bsp = 0;
	st->vis[y] = fst;
	st->kbuf[fsp++] = y;
	st->visb[x] = bst;
	st->bstk[bsp++] = x;
	int cycle = 0;
	while (!cycle && (fsp || bsp)) {
		if (fsp) {
			uint32_t u = st->kbuf[--fsp];
			st->rf[nf++] = u;
			cycle = pk_fwd(st, bout, ord, u, ub, fst, bst, &fsp);
		}
		if (!cycle && bsp) {
			uint32_t u = st->bstk[--bsp];
			st->rb[nb++] = u;
			cycle = pk_bwd(st, bin, ord, u, lb, fst, bst, &bsp);
		}
	}
	st->visits += nf + nb;
	if (cycle) {
		st->cycles++;
		return 1;
	}
	/* reorder: the backward set, then the forward set, on their old slots
	 * (both sorted by their old order; the slots are the merge of the two) */
	for (uint32_t i = 0; i < nb; i++)
		st->kb[i] = (uint64_t)ord[st->rb[i]] << 32 | st->rb[i];
	for (uint32_t i = 0; i < nf; i++)
		st->kf[i] = (uint64_t)ord[st->rf[i]] << 32 | st->rf[i];
	keys_sort(st->kb, nb, st->ktmp, g->nch);
	keys_sort(st->kf, nf, st->ktmp, g->nch);
	uint32_t i = 0, j = 0, n = 0;
	while (i < nb || j < nf)
		st->pool[n++] = (j >= nf || (i < nb && st->kb[i] < st->kf[j]))
					? (uint32_t)(st->kb[i++] >> 32)
					: (uint32_t)(st->kf[j++] >> 32);
	for (i = 0; i < nb; i++)
		ord[(uint32_t)st->kb[i]] = st->pool[i];
	for (i = 0; i < nf; i++)
		ord[(uint32_t)st->kf[i]] = st->pool[nb + i];
	return 0;
}

/* Dependencies of path (s, d): their number (0 when the path has no
 * switch-to-switch turn), or -1 when it has more than maxd (a loop). */
static int path_deps(const struct ibf_cdg *g, uint32_t s, uint32_t d, uint32_t *src, uint32_t *tgt,
		     uint64_t *deps, uint32_t maxd)
{
	int nd = 0;
	int32_t c = cdg_out(g, s, d);
	while (c >= 0 && (uint32_t)nd < maxd) {
		int32_t c2 = cdg_out(g, cdg_head(g, c), d);
		if (c2 < 0)
			return nd;
		src[nd] = (uint32_t)c;
		tgt[nd] = (uint32_t)c2;
		deps[nd++] = cdg_edge(g, c, c2);
		c = c2;
	}
	return c >= 0 ? -1 : nd;
}

/* Try layers lo..hi-1 for path (s, d) in order: *where = the layer taken,
 * or -1 when none stays acyclic. */
static int place_from(struct dfs *st, uint32_t s, uint32_t d, int lo, int hi, int first, int *where,
		      struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	uint64_t *deps = st->pdeps;
	uint32_t *src = st->psrc, *tgt = st->ptgt;
	int *added = st->padded;
	*where = -1;
	int nd = path_deps(g, s, d, src, tgt, deps, st->maxd);
	if (nd < 0)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "dfsssp: a path of more than %u switch hops: the tables loop",
				     st->maxd);
	if (first > 0) {
		/* only the dependencies from the first-th on count */
		int k = 0;
		for (int j = first; j < nd; j++, k++) {
			src[k] = src[j];
			tgt[k] = tgt[j];
			deps[k] = deps[j];
		}
		nd = k;
		if (!nd) {
			st->layer[(size_t)s * g->stride + d] = (uint8_t)lo;
			*where = lo;
			return 0;
		}
	}
	if (!nd) {
		st->layer[(size_t)s * g->stride + d] = 0;
		*where = 0;
		return 0;
	}
	for (int L = lo; L < hi; L++) {
		if (L >= CDG_MAX_LAYERS)
			return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
					     "dfsssp: more than %d virtual layers needed",
					     CDG_MAX_LAYERS);
		int rc = online_layer(st, L, err);
		if (rc)
			return rc;
		/* a dependency is live in L when its bit is set (count > 0, or
		 * tentative below) */
		const uint64_t *live = st->bout[L];
		uint64_t *forb = st->forb[L];
		int ok = 1, nnew = 0;
		for (int k = 0; k < nd && ok; k++)
			if (!bit_get(live, deps[k]) && bit_get(forb, deps[k]))
				ok = 0;
		for (int k = 0; k < nd && ok; k++) {
			if (bit_get(live, deps[k]))
				continue;
			if (pk_add(st, L, src[k], tgt[k])) {
				if (!nnew)
					forb[deps[k] >> 6] |= 1ull << (deps[k] & 63);
				ok = 0;
				break;
			}
			dep_live(st, L, deps[k], src[k], tgt[k]); /* tentative */
			added[nnew++] = k;
		}
		if (!ok) {
			/* the order stays valid when tentative edges go away */
			for (int k = 0; k < nnew; k++)
				dep_dead(st, L, deps[added[k]], src[added[k]], tgt[added[k]]);
			continue;
		}
		if (st->nundo + (size_t)nnew > st->undocap) {
			size_t cap = st->undocap ? st->undocap * 2 : 4096;
			while (cap < st->nundo + (size_t)nnew)
				cap *= 2;
			struct undo *nu = realloc(st->undo, cap * sizeof(*nu));
			if (!nu)
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			st->undo = nu;
			st->undocap = cap;
		}
		for (int k = 0; k < nnew; k++) {
			struct undo *u = &st->undo[st->nundo++];
			u->e = deps[added[k]];
			u->c1 = src[added[k]];
			u->c2 = tgt[added[k]];
			u->L = L;
		}
		st->layer[(size_t)s * g->stride + d] = (uint8_t)L;
		*where = L;
		return 0;
	}
	return 0;
}

static int place(struct dfs *st, uint32_t s, uint32_t d, int lo, int hi, int *where,
		 struct ibf_error *err)
{
	return place_from(st, s, d, lo, hi, 0, where, err);
}

/* Take out every path placed since the undo log was last emptied: the
 * dependencies they made live die again (the layers' orders stay valid
 * topological orders). */
static void rollback(struct dfs *st)
{
	while (st->nundo) {
		const struct undo *u = &st->undo[--st->nundo];
		dep_dead(st, u->L, u->e, u->c1, u->c2);
	}
}

/* ------------------------------------------------------------ fitting the VL budget
 *
 * When the paths do not fit into V layers, the destinations that do not fit
 * are rerouted instead of failing (docs/deadlock.md, "Within the VL budget"):
 *  - a further LID of a port (LMC > 0) whose paths do not fit takes the
 *    paths of the port's base LID (its whole column is copied): it repeats
 *    paths already placed, so it fits in their layers and adds no
 *    dependency; the port keeps being reachable, that LID loses its own
 *    path diversity;
 *  - a base LID whose paths do not fit is routed up*-down* on a BFS order of
 *    the switches (rank = (BFS level from the root, index); a hop to a
 *    higher rank is "down"; every path goes up, then only down), and those
 *    paths go into the escape layer, the last of the V.  The escape layer
 *    admits only paths that never turn from down to up, so it cannot close
 *    a cycle: the budget is met for any connected fabric and V >= 1.
 * A first pass keeps all V layers for ordinary paths; only when a base LID
 * does not fit is the layering redone with the last layer reserved. */

struct fit {
	int escape;	      /* escape layer, -1 in the first pass */
	int32_t *rank;	      /* [nsw] BFS rank, -1 outside the root's component */
	int32_t *q, *dd, *aa; /* scratch [nsw] */
	int32_t *nxt;	      /* [nsw] next switch of the up*-down* column */
	int32_t *order;	      /* the ranked switches by increasing rank */
	uint32_t nranked;
	uint32_t root;	      /* the BFS root of the ranking */
	uint64_t lids_aliased, lids_escaped, paths_changed;
	uint64_t escape_ordinary; /* ordinary paths admitted to the escape layer */
};

/* Rank the switches by BFS level from root (index inside a level). */
static void fit_rank(struct fit *ft, const struct ibf_cdg *g, uint32_t root)
{
	const struct ibf_fabric *f = g->f;
	for (uint32_t s = 0; s < g->nsw; s++)
		ft->dd[s] = -1;
	uint32_t h = 0, t = 0;
	if (g->nsw) {
		ft->dd[root] = 0;
		ft->q[t++] = (int32_t)root;
	}
	while (h < t) {
		uint32_t u = (uint32_t)ft->q[h++];
		for (uint32_t a = f->adj_off[u]; a < f->adj_off[u + 1]; a++)
			if (ft->dd[f->adj[a].nbr] < 0) {
				ft->dd[f->adj[a].nbr] = ft->dd[u] + 1;
				ft->q[t++] = (int32_t)f->adj[a].nbr;
			}
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		ft->rank[s] = ft->dd[s] < 0 ? -1 : (int32_t)((uint32_t)ft->dd[s] * g->nsw + s);
	/* by rank: BFS levels in order, switch index inside a level */
	ft->nranked = 0;
	for (int32_t lv = 0; ft->nranked < t; lv++)
		for (uint32_t s = 0; s < g->nsw; s++)
			if (ft->dd[s] == lv)
				ft->order[ft->nranked++] = (int32_t)s;
	ft->root = root;
}

static int fit_init(struct fit *ft, const struct ibf_cdg *g, struct ibf_error *err)
{
	uint32_t n = g->nsw + 1;
	ft->rank = malloc(n * sizeof(int32_t));
	ft->q = malloc(n * sizeof(int32_t));
	ft->dd = malloc(n * sizeof(int32_t));
	ft->aa = malloc(n * sizeof(int32_t));
	ft->nxt = malloc(n * sizeof(int32_t));
	ft->order = malloc(n * sizeof(int32_t));
	if (!ft->rank || !ft->q || !ft->dd || !ft->aa || !ft->nxt || !ft->order)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* root: the switch with the most links (lowest index on ties); the
	 * escape pass may pick another (fit_choose_root) */
	const struct ibf_fabric *f = g->f;
	uint32_t root = 0;
	for (uint32_t s = 1; s < g->nsw; s++)
		if (f->adj_off[s + 1] - f->adj_off[s] > f->adj_off[root + 1] - f->adj_off[root])
			root = s;
	fit_rank(ft, g, root);
	return 0;
}

static void fit_free(struct fit *ft)
{
	free(ft->rank);
	free(ft->q);
	free(ft->dd);
	free(ft->aa);
	free(ft->nxt);
	free(ft->order);
}

/* Does path (s, d) go only up, then only down (never down -> up)? */
static int updown_legal(const struct ibf_cdg *g, const struct fit *ft, uint32_t s, uint32_t d)
{
	int down = 0;
	uint32_t x = s;
	int32_t c = cdg_out(g, s, d);
	for (uint32_t h = 0; c >= 0 && h <= g->nsw; h++) {
		uint32_t y = cdg_head(g, c);
		if (ft->rank[x] < 0 || ft->rank[y] < 0)
			return 0;
		int hop_down = ft->rank[y] > ft->rank[x];
		if (down && !hop_down)
			return 0;
		down = hop_down;
		x = y;
		c = cdg_out(g, y, d);
	}
	return c < 0;
}

/* Paths between switches that go only up, then only down, under the
 * current ranking. */
static uint64_t updown_count(const struct ibf_cdg *g, const struct fit *ft)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < g->ndl; i++)
		for (uint32_t s = 0; s < g->nsw; s++)
			if (cdg_out(g, s, g->dlids[i]) >= 0 && updown_legal(g, ft, s, g->dlids[i]))
				n++;
	return n;
}

/* The escape layer admits only up*-down* paths of its ranking, and paths
 * that do not fit are moved onto it, so its root decides how many routed
 * paths survive.  Rooted at the switch with the most links, a fat tree's
 * up-then-down host paths break the rule (that switch is a spine, and
 * leaves of other pods lie on both sides of it); rooted at a switch with
 * end ports (a leaf), they keep it, and so do most paths between top
 * switches.  Rank from the switch with the most end ports (then the most
 * links, then the lowest index) when that admits more of the paths as
 * routed, else keep the root. */
static void fit_choose_root(struct fit *ft, const struct ibf_cdg *g)
{
	const struct ibf_fabric *f = g->f;
	uint32_t best = 0, best_ep = 0;
	for (uint32_t s = 0; s < g->nsw; s++) {
		const struct ibf_node *nd = &f->nodes[f->switches[s]];
		uint32_t ep = 0;
		for (uint32_t p = 1; p <= nd->nports; p++) {
			const struct ibf_port *pt = &f->ports[nd->port_off + p];
			if (pt->peer_node >= 0 && f->nodes[pt->peer_node].type != IBF_NODE_SWITCH)
				ep++;
		}
		uint32_t deg = f->adj_off[s + 1] - f->adj_off[s];
		uint32_t bdeg = f->adj_off[best + 1] - f->adj_off[best];
		if (s == 0 || ep > best_ep || (ep == best_ep && deg > bdeg)) {
			best = s;
			best_ep = ep;
		}
	}
	uint32_t old = ft->root;
	if (!best_ep || best == old)
		return;
	uint64_t n_old = updown_count(g, ft);
	fit_rank(ft, g, best);
	uint64_t n_new = updown_count(g, ft);
	if (n_new <= n_old)
		fit_rank(ft, g, old);
}

/* The up*-down* column of LID d (its port on switch t) into tcol[nsw]:
 * switches that reach t going only down do so (shortest such path); the
 * others go up towards the neighbour with the shortest up*-down* distance.
 * Ties: a hash of d.  Switches outside t's component (and t) keep their
 * entry (tcol = the current one). */
static void updown_column(struct dfs *st, struct fit *ft, const struct ibf_routes *r, uint32_t d,
			  uint8_t *tcol)
{
	const struct ibf_cdg *g = &st->g;
	const struct ibf_fabric *f = g->f;
	int32_t t = g->lid_sw[d];
	uint32_t n = g->nsw;
	for (uint32_t s = 0; s < n; s++)
		tcol[s] = r->lft[(size_t)s * r->stride + d];
	if (t < 0 || ft->rank[t] < 0)
		return;
	int32_t *D = ft->dd, *A = ft->aa, *q = ft->q;
	for (uint32_t s = 0; s < n; s++) {
		D[s] = -1;
		ft->nxt[s] = -1;
	}
	/* only-down distances: backwards from t over hops to a higher rank */
	uint32_t h = 0, e = 0;
	D[t] = 0;
	q[e++] = t;
	while (h < e) {
		uint32_t m = (uint32_t)q[h++];
		for (uint32_t a = f->adj_off[m]; a < f->adj_off[m + 1]; a++) {
			uint32_t p = f->adj[a].nbr;
			if (ft->rank[p] < 0 || ft->rank[p] >= ft->rank[m])
				continue;
			if (D[p] < 0 ||
			    (D[p] == D[m] + 1 && (ibf_hash64(((uint64_t)d << 32) | m) & 1))) {
				if (D[p] < 0)
					q[e++] = p;
				D[p] = D[m] + 1;
				ft->nxt[p] = (int32_t)m;
			}
		}
	}
	/* up*-down* distances in rank order (up neighbours have lower ranks) */
	uint32_t nr = ft->nranked;
	q = ft->order;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t s = (uint32_t)q[i];
		if (D[s] >= 0) {
			A[s] = D[s];
			continue;
		}
		A[s] = -1;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
			uint32_t u = f->adj[a].nbr;
			if (ft->rank[u] < 0 || ft->rank[u] >= ft->rank[s] || A[u] < 0)
				continue;
			if (A[s] < 0 || A[u] + 1 < A[s] ||
			    (A[u] + 1 == A[s] && (ibf_hash64(((uint64_t)d << 32) | u) & 1))) {
				A[s] = A[u] + 1;
				ft->nxt[s] = (int32_t)u;
			}
		}
	}
	for (uint32_t s = 0; s < n; s++) {
		if ((int32_t)s == t || ft->nxt[s] < 0)
			continue;
		/* the port towards nxt[s]: among parallel cables, by a hash of d */
		uint32_t cand[IBF_MAX_PORTS + 1], nc = 0;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++)
			if ((int32_t)f->adj[a].nbr == ft->nxt[s])
				cand[nc++] = f->adj[a].lport;
		if (!nc)
			continue;
		tcol[s] = (uint8_t)cand[ibf_hash64(((uint64_t)s << 32) ^ d) % nc];
	}
}

/* Switch-to-switch hops of every path towards d, after a rewrite. */
void dl_column_hops(const struct ibf_cdg *g, struct ibf_routes *r, uint32_t d)
{
	if (!r->hops)
		return;
	for (uint32_t s = 0; s < g->nsw; s++) {
		unsigned h = 0;
		int32_t c = cdg_out(g, s, d);
		while (c >= 0 && h < 255) {
			h++;
			c = cdg_out(g, cdg_head(g, c), d);
		}
		size_t k = (size_t)s * r->stride + d;
		if (r->lft[k] != IBF_LFT_NONE)
			r->hops[k] = (uint8_t)h;
	}
}

/* Rewrite d's entries along the target column's path from switch s (all
 * switches when s < 0) to tcol.  The converted switches are closed under
 * "next switch of tcol", so the column stays loop free: an unconverted
 * switch follows its old path until it meets a converted one.  Returns
 * the entries changed. */
uint64_t dl_convert(const struct ibf_cdg *g, struct ibf_routes *r, uint32_t d, const uint8_t *tcol,
		    int64_t s)
{
	uint64_t changed = 0;
	if (s < 0) {
		for (uint32_t x = 0; x < g->nsw; x++) {
			size_t k = (size_t)x * r->stride + d;
			if (r->lft[k] != tcol[x]) {
				r->lft[k] = tcol[x];
				changed++;
			}
		}
		return changed;
	}
	uint32_t x = (uint32_t)s;
	for (uint32_t h = 0; h <= g->nsw; h++) {
		size_t k = (size_t)x * r->stride + d;
		if (r->lft[k] != tcol[x]) {
			r->lft[k] = tcol[x];
			changed++;
		}
		unsigned p = tcol[x];
		if (p == 0 || p == IBF_LFT_NONE || p > g->sw_np[x])
			break;
		int32_t c = g->portlink[g->sw_off[x] + p];
		if (c < 0)
			break;
		x = cdg_head(g, c);
	}
	return changed;
}

/* Place every path towards d in layers 0..cap-1 (and, for paths that never
 * turn down -> up, the escape layer).  0 with *failed = -1 when all are
 * placed; else every path of d is taken out again and *failed is the
 * first source that found no layer. */
static int place_all(struct dfs *st, int cap, struct fit *ft, uint32_t d, int64_t *failed,
		     struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	*failed = -1;
	uint32_t s = 0;
	int rc = 0, where = 0;
	st->nundo = 0;
	for (; s < g->nsw; s++) {
		rc = place(st, s, d, 0, cap, &where, err);
		if (!rc && where < 0 && ft && ft->escape >= 0 && updown_legal(g, ft, s, d)) {
			rc = place(st, s, d, ft->escape, ft->escape + 1, &where, err);
			if (!rc && where >= 0)
				ft->escape_ordinary++;
		}
		if (rc || where < 0)
			break;
	}
	if (rc)
		return rc;
	if (where < 0) {
		rollback(st);
		*failed = s;
	}
	return 0;
}

#define NEED_ESCAPE 1	  /* online(): a base LID does not fit, redo with an escape layer */
#define CONVERT_ROUNDS 24 /* partial rewrites of one LID before its whole column goes */

/* Insert every path.  cap: layers ordinary paths may use.  With ft (the
 * budget is enforced): DLIDs that do not fit are rerouted (see above) in
 * wr's tables; returns NEED_ESCAPE when the first pass (ft->escape < 0)
 * meets a base LID that does not fit even routed up*-down*. */
/* Scratch of the online insertion (channels into each switch, stamps). */
static int online_alloc(struct dfs *st, struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	size_t nch = (size_t)g->nch + 1;
	if (!st->rin_off) {
		st->rin_off = calloc((size_t)g->nsw + 2, sizeof(uint32_t));
		st->rin = malloc(nch * sizeof(uint32_t));
		st->vis = calloc(nch, sizeof(uint32_t));
		st->visb = calloc(nch, sizeof(uint32_t));
		st->bstk = malloc(nch * sizeof(uint32_t));
		st->rf = malloc(nch * sizeof(uint32_t));
		st->rb = malloc(nch * sizeof(uint32_t));
		st->pool = malloc(2 * nch * sizeof(uint32_t));
		st->kf = malloc(nch * sizeof(uint64_t));
		st->kb = malloc(nch * sizeof(uint64_t));
		st->ktmp = malloc(nch * sizeof(uint64_t));
		st->ioff = malloc((nch + 1) * sizeof(uint64_t));
		st->rpos = malloc(nch * sizeof(uint32_t));
		if (!st->rin_off || !st->rin || !st->vis || !st->visb || !st->bstk || !st->rf ||
		    !st->rb || !st->pool || !st->kf || !st->kb || !st->ktmp || !st->ioff ||
		    !st->rpos)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		for (uint32_t c = 0; c < g->nch; c++)
			st->rin_off[cdg_head(g, (int32_t)c) + 1]++;
		for (uint32_t s = 0; s < g->nsw; s++)
			st->rin_off[s + 1] += st->rin_off[s];
		/* one fill cursor per switch: there may be more switches than
		 * channels (isolated switches, a single switch) */
		uint32_t *fill = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
		if (!fill)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		memcpy(fill, st->rin_off, ((size_t)g->nsw + 1) * sizeof(uint32_t));
		for (uint32_t c = 0; c < g->nch; c++) {
			uint32_t h = cdg_head(g, (int32_t)c);
			st->rpos[c] = fill[h] - st->rin_off[h];
			st->rin[fill[h]++] = c;
		}
		free(fill);
		/* predecessors of channel u: the channels into its tail switch */
		uint64_t io = 0;
		for (uint32_t c = 0; c < g->nch; c++) {
			st->ioff[c] = io;
			uint32_t t = g->ch_tail[c];
			io += st->rin_off[t + 1] - st->rin_off[t];
		}
		st->ioff[g->nch] = io;
	}
	return 0;
}

static int online(struct dfs *st, int cap, struct fit *ft, struct ibf_routes *wr,
		  struct ibf_error *err)
{
	struct ibf_cdg *g = &st->g;
	int arc = online_alloc(st, err);
	if (arc)
		return arc;
	uint8_t *tcol = ft ? malloc((size_t)g->nsw + 1) : NULL;
	if (ft && !tcol)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	int rc = online_layer(st, 0, err);
	for (uint32_t i = 0; !rc && i < g->ndl; i++) {
		uint32_t d = g->dlids[i];
		int64_t failed;
		rc = place_all(st, cap, ft, d, &failed, err);
		if (rc || failed < 0)
			continue;
		if (!ft) {
			rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
					   "dfsssp: no layer for a path below the cap");
			break;
		}
		/* LID d does not fit: move its paths, a few switches at a time,
		 * onto the base LID's paths (a further LID of a port) or onto
		 * up*-down* paths (a base LID) until they fit */
		uint32_t b = g->lid_base[d];
		int alias = b && b != d;
		if (alias)
			for (uint32_t x = 0; x < g->nsw; x++)
				tcol[x] = wr->lft[(size_t)x * wr->stride + b];
		else
			updown_column(st, ft, wr, d, tcol);
		uint64_t changed = 0;
		for (int round = 0; !rc && failed >= 0; round++) {
			if (round > CONVERT_ROUNDS + 1)
				break;
			changed += dl_convert(g, wr, d, tcol, round < CONVERT_ROUNDS ? failed : -1);
			rc = place_all(st, cap, ft, d, &failed, err);
		}
		if (rc)
			break;
		if (failed >= 0) {
			if (!alias && ft->escape < 0) {
				rc = NEED_ESCAPE;
				break;
			}
			rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
					   "dfsssp: LID %u does not fit even on its fallback paths",
					   d);
			break;
		}
		dl_column_hops(g, wr, d);
		ft->paths_changed += changed;
		if (alias)
			ft->lids_aliased++;
		else
			ft->lids_escaped++;
	}
	free(tcol);
	return rc;
}

/* Reset the layering state for a second pass. */
static void online_reset(struct dfs *st)
{
	struct ibf_cdg *g = &st->g;
	for (int v = 0; v < CDG_MAX_LAYERS; v++) {
		if (g->cnt[v])
			memset(g->cnt[v], 0, (g->nedges ? g->nedges : 1) * sizeof(uint32_t));
		if (st->ord[v]) {
			for (uint32_t c = 0; c < g->nch; c++)
				st->ord[v][c] = c;
			memset(st->forb[v], 0, ((size_t)(g->nedges >> 6) + 1) * sizeof(uint64_t));
			memset(st->bout[v], 0, ((size_t)(g->nedges >> 6) + 1) * sizeof(uint64_t));
			memset(st->bin[v], 0, ((size_t)(g->nedges >> 6) + 1) * sizeof(uint64_t));
		}
	}
	memset(st->layer, 0, (size_t)g->nsw * g->stride);
}

/* Count the dependencies of path (s, d) into cnt. */
static void count_path(const struct ibf_cdg *g, uint32_t s, uint32_t d, uint32_t *cnt)
{
	int32_t c = cdg_out(g, s, d);
	while (c >= 0) {
		int32_t c2 = cdg_out(g, cdg_head(g, c), d);
		if (c2 < 0)
			break;
		cnt[cdg_edge(g, c, c2)]++;
		c = c2;
	}
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
		for (uint32_t s = 0; s < g->nsw; s++)
			count_path(g, s, d, cnt);
	}
	return 0;
}

/* The path counts of every layer from the online layering (which keeps
 * only liveness bits), for the cut pass. */
static void count_layers(struct dfs *st)
{
	struct ibf_cdg *g = &st->g;
	for (int v = 0; v < g->nlayers; v++)
		memset(g->cnt[v], 0, (g->nedges ? g->nedges : 1) * sizeof(uint32_t));
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t i = 0; i < g->ndl; i++) {
			uint32_t d = g->dlids[i];
			count_path(g, s, d, g->cnt[st->layer[(size_t)s * g->stride + d]]);
		}
}

static int dfsssp_run(const struct ibf_fabric *f, struct ibf_routes *r, const struct ibf_dl_opts *o,
		      int as_routed, struct ibf_dl **out, struct ibf_error *err);

int ibf_deadlock_dfsssp(const struct ibf_fabric *f, struct ibf_routes *r,
			const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err)
{
	return dfsssp_run(f, r, o, 0, out, err);
}

int dl_dfsssp_as_routed(const struct ibf_fabric *f, struct ibf_routes *r,
			const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err)
{
	return dfsssp_run(f, r, o, 1, out, err);
}

/* dfsssp; with as_routed, the online layering is capped at the VLs and
 * stops at the first path that finds no layer (the tables are never
 * rewritten; the error does not say how many layers would be needed). */
/* Layer the paths: the cut algorithm counts layer 0 only; the online
 * insertion fits the routes into V VLs when `fit' (lft0/hops0 keep the
 * routed tables: a base LID that does not fit restarts from them with the
 * last VL as the escape layer), keeps them as routed within V when
 * as_routed, else layers without a cap. */
static int place_layers(struct dfs *st, struct ibf_routes *r, const struct ibf_dl_opts *o, int V,
			int fit, int as_routed, struct fit *ft, uint8_t **lft0, uint8_t **hops0,
			struct ibf_error *err)
{
	size_t ntab = (size_t)r->nsw * r->stride;
	if (o->layering == IBF_DL_LAYER_CUT)
		return count_layer0(st, err);
	if (!fit) {
		if (as_routed)
			return online(st, V, NULL, r, err);
		return online(st, CDG_MAX_LAYERS, NULL, r, err);
	}
	/* the tables as routed, to start the second pass from */
	*lft0 = malloc(ntab ? ntab : 1);
	*hops0 = r->hops ? malloc(ntab ? ntab : 1) : NULL;
	if (!*lft0 || (r->hops && !*hops0))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	memcpy(*lft0, r->lft, ntab);
	if (*hops0)
		memcpy(*hops0, r->hops, ntab);
	int rc = online(st, V, ft, r, err);
	if (rc != NEED_ESCAPE)
		return rc;
	/* a base LID does not fit: redo from the routed tables with the last
	 * layer kept as the escape layer */
	dl_tables_set(r, *lft0, *hops0, ntab);
	online_reset(st);
	fit_choose_root(ft, &st->g);
	ft->escape = V - 1;
	ft->lids_aliased = ft->lids_escaped = ft->paths_changed = ft->escape_ordinary = 0;
	return online(st, V - 1, ft, r, err);
}

/* What fitting into V VLs gave up, for the log and the summary. */
static void fit_note(struct ibf_dl *dl, const struct fit *ft, int V)
{
	if (!ft->lids_aliased && !ft->lids_escaped)
		return;
	if (ft->lids_escaped == 0)
		snprintf(dl->note, sizeof(dl->note),
			 "within %d VLs: %llu LID(s) of multi-LID ports took their base LID's "
			 "paths (%llu LFT entries changed)",
			 V, (unsigned long long)ft->lids_aliased,
			 (unsigned long long)ft->paths_changed);
	else if (ft->escape >= 0)
		snprintf(dl->note, sizeof(dl->note),
			 "within %d VLs: %llu LID(s) of multi-LID ports took their base "
			 "LID's paths, %llu LID(s) routed up*-down* in the escape layer %d "
			 "(%llu other paths there); %llu LFT entries changed",
			 V, (unsigned long long)ft->lids_aliased,
			 (unsigned long long)ft->lids_escaped, ft->escape,
			 (unsigned long long)ft->escape_ordinary,
			 (unsigned long long)ft->paths_changed);
	else
		snprintf(dl->note, sizeof(dl->note),
			 "within %d VLs: %llu LID(s) of multi-LID ports took their base "
			 "LID's paths, %llu LID(s) routed up*-down*; %llu LFT entries "
			 "changed",
			 V, (unsigned long long)ft->lids_aliased,
			 (unsigned long long)ft->lids_escaped,
			 (unsigned long long)ft->paths_changed);
}

/* VL ranges per layer (spare VLs to the layers with the most paths per
 * VL; layers beyond V share the last VL: best effort only), then the SL
 * of every (switch, LID) path. */
static void assign_vls(struct ibf_dl *dl, const struct dfs *st, int L, int V)
{
	const struct ibf_cdg *g = &st->g;
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
			uint8_t l = st->layer[k];
			unsigned vl = dl->layer_base[l];
			if (dl->layer_share[l] > 1)
				vl += (unsigned)(ibf_hash64(((uint64_t)s << 32) | d) %
						 dl->layer_share[l]);
			dl->sl[k] = (uint8_t)vl;
			if (cdg_out(g, s, d) >= 0)
				dl->paths_per_vl[vl]++;
		}
	for (int vl = 0; vl < 16; vl++)
		if (dl->paths_per_vl[vl])
			dl->vls_used++;
}

static int dfsssp_run(const struct ibf_fabric *f, struct ibf_routes *r, const struct ibf_dl_opts *o,
		      int as_routed, struct ibf_dl **out, struct ibf_error *err)
{
	double t0 = ibf_now();
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
	struct fit ft;
	memset(&ft, 0, sizeof(ft));
	ft.escape = -1;
	uint8_t *lft0 = NULL, *hops0 = NULL;
	size_t ntab = (size_t)r->nsw * r->stride;
	int fit = o->layering != IBF_DL_LAYER_CUT && !o->best_effort && !o->no_fit && !as_routed;
	rc = cdg_check_routes(g, &max_hops, err);
	if (!rc)
		rc = dfs_alloc(&st, err);
	if (!rc && fit)
		rc = fit_init(&ft, g, err);
	if (!rc)
		rc = place_layers(&st, r, o, V, fit, as_routed, &ft, &lft0, &hops0, err);
	/* the cut pass on every layer: the whole algorithm for LAYER_CUT, and a
	 * check (plus repair, never needed so far) after online insertion */
	uint64_t online_cuts = 0;
	if (!rc && o->layering != IBF_DL_LAYER_CUT) {
		/* the online insertion keeps liveness bits, no counts: check the
		 * layers on them, and count (for the cut pass) only when one has
		 * a cycle */
		for (int v = 0; !rc && v < g->nlayers; v++) {
			if (!st.bout[v])
				continue;
			st.lbits = st.bout[v];
			rc = layer_acyclic(&st, v, err);
			st.lbits = NULL;
		}
		if (!rc && st.cyclic)
			count_layers(&st);
	}
	for (int v = 0; !rc && (o->layering == IBF_DL_LAYER_CUT || st.cyclic) && v < g->nlayers;
	     v++) {
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
	dl->order_checks = st.checks;
	dl->order_cycles = st.cycles;
	dl->order_visits = st.visits;
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
	dl->lids_aliased = ft.lids_aliased;
	dl->lids_escaped = ft.lids_escaped;
	dl->entries_changed = ft.paths_changed;
	fit_note(dl, &ft, V);
	if (L > V && !o->best_effort) {
		rc = ibf_error_set(
			err, IBF_ENOTSUP, NULL, 0,
			"dfsssp: the routes need %d VLs for deadlock freedom, only %d "
			"available (max_vls); raise max_vls, use fewer layers/LMC, or set "
			"best_effort (not deadlock-free)",
			L, V);
		goto fail;
	}
	assign_vls(dl, &st, L, V);
	dl->seconds = ibf_now() - t0;
	dl_log(o, IBF_LOG_INFO,
	       "dfsssp: %d layer(s) needed, %d VLs available, %d used, %llu dependencies cut, "
	       "%.3f s%s%s",
	       L, V, dl->vls_used, (unsigned long long)st.breaks, dl->seconds,
	       dl->note[0] ? "; " : "", dl->note);
	dfs_free(&st);
	fit_free(&ft);
	free(lft0);
	free(hops0);
	*out = dl;
	return 0;
fail:
	ibf_dl_free(dl);
	dfs_free(&st);
	fit_free(&ft);
	if (lft0 && rc) {
		/* a failure leaves the tables as they were routed */
		dl_tables_set(r, lft0, hops0, ntab);
	}
	free(lft0);
	free(hops0);
	return rc;
}

/* A shortest-path in-tree towards LID d (base LID b) into tcol: each switch
 * takes a neighbour one hop closer to d's switch, preferring a port other
 * than the base LID's entry (spread by a hash of switch and LID); d's own
 * switch keeps its delivering entry.  Loop free: the distance drops at
 * every hop. */
static void alt_column(const struct ibf_cdg *g, const struct ibf_routes *r, uint32_t d, uint32_t b,
		       uint32_t *dist, uint32_t *queue, uint8_t *tcol)
{
	const struct ibf_fabric *f = g->f;
	int32_t t = g->lid_sw[d];
	for (uint32_t x = 0; x < g->nsw; x++)
		tcol[x] = r->lft[(size_t)x * r->stride + b];
	if (t < 0)
		return;
	tcol[t] = r->lft[(size_t)t * r->stride + d];
	ibf_bfs(f, (uint32_t)t, dist, queue);
	for (uint32_t x = 0; x < g->nsw; x++) {
		if (x == (uint32_t)t || dist[x] == IBF_DIST_INF || dist[x] == 0)
			continue;
		uint8_t base = r->lft[(size_t)x * r->stride + b];
		uint32_t nalt = 0, nany = 0;
		for (uint32_t a = f->adj_off[x]; a < f->adj_off[x + 1]; a++)
			if (dist[f->adj[a].nbr] + 1 == dist[x]) {
				nany++;
				nalt += f->adj[a].lport != base;
			}
		if (!nany)
			continue;
		int want_alt = nalt > 0;
		uint32_t pick =
			(uint32_t)(ibf_mix64(((uint64_t)x << 32) ^ d) % (want_alt ? nalt : nany));
		for (uint32_t a = f->adj_off[x]; a < f->adj_off[x + 1]; a++) {
			if (dist[f->adj[a].nbr] + 1 != dist[x])
				continue;
			if (want_alt && f->adj[a].lport == base)
				continue;
			if (pick-- == 0) {
				tcol[x] = f->adj[a].lport;
				break;
			}
		}
	}
}

/* ------------------------------------------------------------ long paths only
 *
 * For the hybrid of the colouring scheme: the paths longer than min_hops
 * switch hops are layered online into at most L layers (nothing else is in
 * those layers).  With convert, a further LID of a multi-LID port whose
 * long paths do not all fit is moved, from the failing source on, onto its
 * base LID's paths (dl_convert, a few switches at a time, as dfsssp's own
 * fitting does) and tried again; the base LIDs' paths are never changed.
 * layer[s * stride + d] gets the layer of each long path. */
/* Can the long path (s, d) stay on its colouring SL, colour(s1) + 2?  The
 * SL2VL rows put hop 1 in B0, the hop leaving s1 in B1 and every later hop
 * in B2 as long as no later switch s3, s4, ... before the destination's has
 * s1's colour (s2 differs: it is s1's neighbour). */
static int tail_ok(const struct ibf_cdg *g, uint32_t s, uint32_t d, const uint8_t *color)
{
	int32_t c = cdg_out(g, s, d);
	if (c < 0)
		return 0;
	uint32_t s1 = cdg_head(g, c);
	int32_t c2 = cdg_out(g, s1, d);
	if (c2 < 0)
		return 0;
	uint32_t x = cdg_head(g, c2); /* s2 */
	for (uint32_t h = 0; h <= g->nsw; h++) {
		int32_t cx = cdg_out(g, x, d);
		if (cx < 0)
			return 1;
		x = cdg_head(g, cx); /* s3, s4, ... */
		if (cdg_out(g, x, d) >= 0 && color[x] == color[s1])
			return 0;
	}
	return 0;
}

int dl_layer_long_paths(const struct ibf_fabric *f, struct ibf_routes *r, int min_hops, int L,
			const uint8_t *color, int convert, uint8_t *layer, struct dl_long *res,
			struct ibf_error *err)
{
	struct dfs st;
	memset(&st, 0, sizeof(st));
	memset(res, 0, sizeof(*res));
	int rc = cdg_init(&st.g, f, r, err);
	if (rc)
		return rc;
	struct ibf_cdg *g = &st.g;
	rc = dfs_alloc(&st, err);
	if (!rc)
		rc = online_alloc(&st, err);
	uint32_t *placed = malloc(((size_t)g->nsw + 1) * sizeof(*placed));
	uint8_t *tcol = malloc((size_t)g->nsw + 1);
	uint32_t *dist = malloc(((size_t)g->nsw + 1) * sizeof(*dist));
	uint32_t *queue = malloc(((size_t)g->nsw + 1) * sizeof(*queue));
	if (!rc && (!placed || !tcol || !dist || !queue))
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* base LIDs first: they can only move to another shortest path, so
	 * they get the escape layers' room before the further LIDs, which can
	 * also fall back to their base LID's path */
	for (uint32_t i = 0; !rc && i < 2 * g->ndl; i++) {
		uint32_t d = g->dlids[i % g->ndl], b = g->lid_base[d];
		if ((i < g->ndl) != (!b || b == d))
			continue;
		/* a base LID may move to another shortest path, a further LID of
		 * a multi-LID port also to its base LID's path */
		int can = convert && b, have_tcol = 0;
		uint64_t changed = 0;
		for (uint32_t round = 0; !rc; round++) {
			uint32_t np = 0;
			int64_t fail = -1;
			st.nundo = 0;
			for (uint32_t s = 0; s < g->nsw; s++) {
				int nd = path_deps(g, s, d, st.psrc, st.ptgt, st.pdeps, st.maxd);
				if (nd < 0) {
					rc = ibf_error_set(
						err, IBF_ENOTSUP, NULL, 0,
						"a path of more than %u switch hops: the "
						"tables loop",
						st.maxd);
					break;
				}
				if (nd + 1 <= min_hops)
					continue;
				int where = -1;
				/* the tail layer first (only the dependencies between
				 * its B2 hops count), then the escape layers */
				if (color && tail_ok(g, s, d, color))
					rc = place_from(&st, s, d, L, L + 1, 2, &where, err);
				if (!rc && where < 0)
					rc = place(&st, s, d, 0, L, &where, err);
				if (rc)
					break;
				if (where < 0) {
					fail = s;
					break;
				}
				placed[np++] = s;
			}
			if (rc)
				break;
			if (fail < 0) {
				for (uint32_t k = 0; k < np; k++) {
					size_t at = (size_t)placed[k] * g->stride + d;
					layer[at] = st.layer[at];
					if (color && st.layer[at] == L)
						res->tail_paths++;
				}
				res->paths += np;
				break;
			}
			/* d does not fit: take its paths out again */
			rollback(&st);
			if (!can || round > g->nsw) {
				rc = ibf_error_set(
					err, IBF_ENOTSUP, NULL, 0,
					"the paths longer than %d hops need more than %d "
					"layer(s)",
					min_hops, L);
				break;
			}
			/* from the failing source on, first a shortest path that
			 * differs from the base LID's where it can (short paths are
			 * coloured, and a different one keeps the LID's own path
			 * diversity), then the base LID's path; when that is where it
			 * already is, the whole column */
			if (!have_tcol) {
				alt_column(g, r, d, b, dist, queue, tcol);
				have_tcol = 1;
			}
			uint64_t c = dl_convert(g, r, d, tcol, fail);
			if (!c && have_tcol == 1 && b != d) {
				for (uint32_t x = 0; x < g->nsw; x++)
					tcol[x] = r->lft[(size_t)x * r->stride + b];
				have_tcol = 2;
				c = dl_convert(g, r, d, tcol, fail);
			}
			if (!c)
				c = dl_convert(g, r, d, tcol, -1);
			if (!c) {
				rc = ibf_error_set(
					err, IBF_ENOTSUP, NULL, 0,
					"LID %u does not fit the escape layers even on its base "
					"LID's paths",
					d);
				break;
			}
			changed += c;
		}
		if (changed) {
			res->lids_converted++;
			res->entries_changed += changed;
			dl_column_hops(g, r, d);
		}
	}
	for (int v = 0; v < L && v < CDG_MAX_LAYERS; v++)
		if (st.bout[v])
			for (uint64_t w = 0; w <= g->nedges >> 6; w++)
				if (st.bout[v][w]) {
					if (v + 1 > res->layers)
						res->layers = v + 1;
					break;
				}
	free(placed);
	free(tcol);
	free(dist);
	free(queue);
	dfs_free(&st);
	return rc;
}
