/* Colouring-based deadlock avoidance for paths of at most 3 switch hops
 * (docs/deadlock.md), and the SL2VL rows of both schemes.
 *
 * The VLs are split into contiguous buckets B0 < B1 < B2.  Each switch
 * works out a packet's hop position from (in port, out port, SL) alone:
 *   in port faces a CA, or is port 0 (switch-sourced)  -> hop 1: B0
 *   SL 1 (a path of <= 2 hops)                         -> hop 2: B1 u B2
 *   SL = own colour + 2 (the switch is 2nd on a 3-hop path) -> hop 2: B1
 *   any other SL 2..14 (3rd switch of a 3-hop path)    -> hop 3: B2
 *   out port faces a CA, or is port 0 (a sink channel) -> any VL
 * so the bucket strictly increases along every path and the CDG is acyclic.
 * The colouring is proper (neighbours differ), so the 3rd switch of
 * s1 s2 s3 s4 never mistakes colour(s2) + 2 for its own.
 *
 * Preconditions, checked: >= 3 VLs, every path <= 3 switch hops (the routes
 * are walked), <= 13 colours (first-fit in switch order).  When one fails
 * the scheme falls back to dfsssp and says why.  The VL inside a bucket is
 * a hash of (switch GUID, in, out, SL): deterministic, so re-sweeps do not
 * churn SL2VL MADs. */
#include "dl_internal.h"

#include <stdlib.h>
#include <string.h>

/* The hybrid's share of the routes' own edge-disjoint paths per switch pair
 * above which dfsssp's fitting is not tried (docs/deadlock.md). */
#define IBF_DL_HYBRID_SKIP 0.02

static int greedy_colors(const struct ibf_fabric *f, uint8_t *color, int *ncolors)
{
	int nc = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint64_t used = 0;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
			uint32_t n = f->adj[a].nbr;
			if (n < s)
				used |= 1ULL << color[n];
		}
		int c = 0;
		while (c < 63 && (used >> c & 1))
			c++;
		color[s] = (uint8_t)c;
		if (c + 1 > nc)
			nc = c + 1;
	}
	*ncolors = nc;
	return nc <= IBF_DL_MAX_COLORS ? 0 : -1;
}

/* Check the preconditions; on success color[] and *ncolors are filled. */
static int precheck(const struct ibf_cdg *g, const struct ibf_dl_opts *o, uint8_t *color,
		    int *ncolors, int *max_hops, struct ibf_error *err)
{
	int V = o->max_vls > 0 ? o->max_vls : 8;
	int rc = cdg_check_routes(g, max_hops, err);
	if (rc)
		return rc;
	if (V < 3)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "coloring needs at least 3 VLs, %d available", V);
	if (*max_hops > 3)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "coloring needs paths of at most 3 switch hops, the routes "
				     "have paths of %d",
				     *max_hops);
	if (greedy_colors(g->f, color, ncolors))
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "coloring needs at most %d colours (SL 2..14), the switch "
				     "graph took %d",
				     IBF_DL_MAX_COLORS, *ncolors);
	return 0;
}

int ibf_deadlock_coloring_check(const struct ibf_fabric *f, const struct ibf_routes *r,
				const struct ibf_dl_opts *o, struct ibf_error *err)
{
	struct ibf_cdg g;
	int rc = cdg_init(&g, f, r, err);
	if (rc)
		return rc;
	uint8_t *color = calloc((size_t)f->nsw + 1, 1);
	int nc = 0, mh = 0;
	rc = color ? precheck(&g, o, color, &nc, &mh, err)
		   : ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	free(color);
	cdg_free(&g);
	return rc;
}

/* "auto: coloring preconditions failed (why); fell back to dfsssp; ..." */
static void note_fallback(struct ibf_dl *dl, const struct ibf_dl_opts *o, const char *why)
{
	char prev[sizeof(dl->note)];
	snprintf(prev, sizeof(prev), "%s", dl->note);
	snprintf(dl->note, sizeof(dl->note),
		 "%s preconditions failed (%.200s); fell back to dfsssp%s%.200s",
		 o->scheme == IBF_DEADLOCK_AUTO ? "auto: coloring" : "coloring", why,
		 prev[0] ? "; " : "", prev);
}

/* Append "N LID(s) whose paths did not fit moved to other shortest paths
 * or their base LID's (M LFT entries changed)" to the note. */
static void note_shortened(struct ibf_dl *dl, uint64_t lids, uint64_t changed)
{
	if (!lids)
		return;
	size_t n = strlen(dl->note);
	snprintf(dl->note + n, sizeof(dl->note) - n,
		 "%s%llu LID(s) whose paths did not fit moved to other shortest paths or their "
		 "base LID's (%llu LFT entries changed)",
		 n ? "; " : "", (unsigned long long)lids, (unsigned long long)changed);
	dl->lids_aliased = lids;
	dl->entries_changed = changed;
}

/* Mean number of edge-disjoint paths per switch pair over the LMC layers
 * (up to 8) of the tables r, or of lft when given (then r's own tables are
 * put back); -1 when it cannot be measured. */
static double path_quality(const struct ibf_fabric *f, const uint8_t *lft, struct ibf_routes *r)
{
	struct ibf_routes t = *r;
	if (lft)
		t.lft = (uint8_t *)(uintptr_t)lft;
	struct ibf_path_stats st;
	if (ibf_path_stats_compute(f, &t, &st, NULL))
		return -1;
	double q = 0;
	for (int k = 1; k <= 8; k++)
		q += st.share_ge[k];
	ibf_path_stats_free(&st);
	return q;
}

/* The hybrid for routes with a few paths longer than 3 hops: the paths of
 * at most 3 hops keep the colouring SLs and buckets (on the low VLs).  A
 * longer path s0 s1 s2 ... keeps its colouring SL colour(s1) + 2 when no
 * later switch before the destination's has s1's colour: its hops then go
 * B0, B1, B2, B2, ..., and the dependencies between its B2 hops (the only
 * ones inside B2: a short path's B2 hop is its last) are layered online in
 * the tail layer.  The long paths the tail layer refuses go into escape
 * layers, each with an SL the colouring does not use (0, 15, unused
 * colours) and a VL of its own above the buckets: an escape SL maps to its
 * VL at every switch hop, so its packets never share a VL with colouring
 * traffic and each escape layer is acyclic by construction.  The whole CDG
 * is acyclic.  Needs V >= 3 (V - 3 escape layers). */
static int hybrid(struct ibf_cdg *g, struct ibf_routes *r, const struct ibf_dl_opts *o, int V,
		  uint8_t *color, int nc, int mh, int32_t *ch, uint16_t *hops, uint8_t *state,
		  uint32_t *stack, struct ibf_dl **out, struct ibf_error *err)
{
	*out = NULL;
	int free_sl[16], nfree = 0;
	free_sl[nfree++] = 0;
	free_sl[nfree++] = 15;
	for (int sl = nc + 2; sl <= 14; sl++)
		free_sl[nfree++] = sl;
	int E = V - 3 < nfree ? V - 3 : nfree;
	if (E < 0)
		E = 0;
	size_t n = (size_t)g->nsw * g->stride;
	uint8_t *layer = malloc(n ? n : 1);
	if (!layer)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	memset(layer, 0xff, n ? n : 1);
	struct dl_long res;
	int rc = dl_layer_long_paths(g->f, r, 3, E, color, !o->no_fit, layer, &res, err);
	if (!rc)
		rc = cdg_check_routes(g, &mh, err); /* the rewritten tables */
	if (rc) {
		free(layer);
		return rc;
	}
	int used = res.layers;
	uint64_t npaths = res.paths;
	struct ibf_dl *dl = dl_new(g, err);
	if (!dl) {
		free(layer);
		return err && err->code ? err->code : IBF_ENOMEM;
	}
	dl->scheme = IBF_DEADLOCK_COLORING;
	dl->vls = V;
	dl->color_vls = V - used;
	dl->esc_layers = used;
	dl->long_paths = npaths;
	dl->tail_paths = res.tail_paths;
	dl->layers = 3 + used;
	dl->vls_used = V;
	dl->ncolors = nc;
	dl->max_hops = mh;
	dl->color = color;
	for (int k = 0; k < used; k++)
		dl->esc_vl[free_sl[k]] = (uint8_t)(dl->color_vls + k);
	for (uint32_t i = 0; i < g->ndl; i++) {
		uint32_t d = g->dlids[i], ls;
		cdg_settle(g, d, ch, hops, state, stack, &ls); /* loop-free: checked */
		for (uint32_t s = 0; s < g->nsw; s++) {
			uint8_t sl = 1;
			size_t k = (size_t)s * g->stride + d;
			if (hops[s] > 3 && layer[k] < used)
				sl = (uint8_t)free_sl[layer[k]]; /* an escape layer */
			else if (hops[s] >= 3) /* coloured, or in the tail layer */
				sl = (uint8_t)(dl->color[cdg_head(g, ch[s])] + 2);
			dl->sl[k] = sl;
			if (hops[s] >= 1)
				dl->paths_per_vl[sl]++;
		}
	}
	free(layer);
	{
		const char *who = o->scheme == IBF_DEADLOCK_AUTO ? "auto: coloring hybrid"
								 : "coloring hybrid";
		int nn = snprintf(dl->note, sizeof(dl->note),
				  "%s: %llu path(s) longer than 3 hops, %llu of them on their "
				  "colouring SL (hops 3.. in the last bucket)",
				  who, (unsigned long long)npaths,
				  (unsigned long long)res.tail_paths);
		if (used && nn > 0 && (size_t)nn < sizeof(dl->note))
			snprintf(dl->note + nn, sizeof(dl->note) - (size_t)nn,
				 ", %llu in %d escape layer(s) (SL %d%s, VL %d..%d), the rest "
				 "coloured on VL 0..%d",
				 (unsigned long long)(npaths - res.tail_paths), used, free_sl[0],
				 used > 1 ? "..." : "", dl->color_vls, V - 1, dl->color_vls - 1);
	}
	note_shortened(dl, res.lids_converted, res.entries_changed);
	*out = dl;
	return 0;
}

/* Copies of the tables: as routed (lft0/hops0) and as the hybrid left
 * them (lfth/hopsh); hops only when the routes carry hop counts. */
struct tabs {
	size_t ntab;
	uint8_t *lft0, *hops0, *lfth, *hopsh;
};

static int tabs_init(struct tabs *tb, const struct ibf_routes *r)
{
	tb->ntab = (size_t)r->nsw * r->stride;
	size_t n = tb->ntab ? tb->ntab : 1;
	tb->lft0 = malloc(n);
	tb->hops0 = r->hops ? malloc(n) : NULL;
	tb->lfth = malloc(n);
	tb->hopsh = r->hops ? malloc(n) : NULL;
	return tb->lft0 && tb->lfth && (!r->hops || (tb->hops0 && tb->hopsh));
}

static void tabs_free(struct tabs *tb)
{
	free(tb->lft0);
	free(tb->hops0);
	free(tb->lfth);
	free(tb->hopsh);
}

/* The hybrid rewrote entries: dfsssp's own fitting runs on the routed
 * tables too and the tables with more edge-disjoint paths per switch pair
 * are taken (ties: the hybrid).  Returns 1 when dfsssp's result replaced
 * *dl (r holds its tables), 0 when the hybrid stays (r holds the hybrid's
 * tables again). */
static int hybrid_vs_fit(const struct ibf_fabric *f, struct ibf_routes *r,
			 const struct ibf_dl_opts *o, struct tabs *tb, struct ibf_dl **dl,
			 const char *why)
{
	dl_tables_set(r, tb->lft0, tb->hops0, tb->ntab);
	struct ibf_dl *dd = NULL;
	struct ibf_dl_opts o3 = *o;
	o3.log = NULL;
	double qh = path_quality(f, tb->lfth, r), qd = -1;
	/* dfsssp's fitting only takes paths away from LIDs (their base LID's
	 * or up*-down* paths): when the hybrid keeps nearly all of what the
	 * routes offer, skip it */
	double q0 = path_quality(f, NULL, r);
	if (qh >= 0 && q0 >= 0 && qh >= q0 * (1 - IBF_DL_HYBRID_SKIP)) {
		dl_log(o, IBF_LOG_INFO,
		       "coloring: hybrid keeps %.3f edge-disjoint paths per switch "
		       "pair of the routes' %.3f: dfsssp's fitting not tried",
		       qh, q0);
	} else if (!ibf_deadlock_dfsssp(f, r, &o3, &dd, NULL)) {
		qd = path_quality(f, NULL, r);
	}
	if (dd && qd > qh) {
		dl_log(o, IBF_LOG_INFO,
		       "coloring: hybrid keeps %.3f edge-disjoint paths per switch "
		       "pair, dfsssp's fitting %.3f: dfsssp",
		       qh, qd);
		(*dl)->color = NULL; /* still ours */
		ibf_dl_free(*dl);
		*dl = dd;
		note_fallback(dd, o, why);
		return 1;
	}
	ibf_dl_free(dd);
	dl_tables_set(r, tb->lfth, tb->hopsh, tb->ntab);
	return 0;
}

enum long_outcome {
	LONG_NONE,   /* neither: fall back to dfsssp with fitting */
	LONG_DFSSSP, /* dfsssp (as routed, or its fitting beat the hybrid) */
	LONG_HYBRID, /* the hybrid: *dl owns color */
};

/* Only paths longer than 3 hops stand in the way of colouring (a damaged
 * fabric): dfsssp if it fits the VLs as routed, else the hybrid (colouring
 * for the paths of at most 3 hops, escape layers for the longer ones; LIDs
 * that do not fit there move to other shortest paths, further LIDs also to
 * their base LID's), compared with dfsssp's fitting when it rewrote
 * entries; the tables as routed when it fails. */
static enum long_outcome long_paths(const struct ibf_fabric *f, struct ibf_cdg *g,
				    struct ibf_routes *r, const struct ibf_dl_opts *o, int V,
				    uint8_t *color, int nc, int mh, int32_t *ch, uint16_t *hops,
				    uint8_t *state, uint32_t *stack, const char *why,
				    struct ibf_dl **dl)
{
	struct ibf_dl_opts o2 = *o;
	o2.no_fit = 1;
	o2.log = NULL;
	struct ibf_error e2;
	if (!dl_dfsssp_as_routed(f, r, &o2, dl, &e2)) {
		note_fallback(*dl, o, why);
		return LONG_DFSSSP;
	}
	struct tabs tb;
	int rc;
	if (tabs_init(&tb, r)) {
		memcpy(tb.lft0, r->lft, tb.ntab);
		if (tb.hops0)
			memcpy(tb.hops0, r->hops, tb.ntab);
		rc = hybrid(g, r, o, V, color, nc, mh, ch, hops, state, stack, dl, &e2);
		if (!rc && (*dl)->entries_changed && !o->no_fit && !o->best_effort) {
			memcpy(tb.lfth, r->lft, tb.ntab);
			if (tb.hopsh)
				memcpy(tb.hopsh, r->hops, tb.ntab);
			if (hybrid_vs_fit(f, r, o, &tb, dl, why)) {
				tabs_free(&tb);
				return LONG_DFSSSP;
			}
		}
		if (rc)
			dl_tables_set(r, tb.lft0, tb.hops0, tb.ntab);
	} else {
		rc = ibf_error_set(&e2, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	tabs_free(&tb);
	if (!rc)
		return LONG_HYBRID;
	dl_log(o, IBF_LOG_INFO, "coloring: no hybrid (%s)", e2.msg);
	return LONG_NONE;
}

/* Plain colouring: a path of 3 switch hops takes SL colour(second
 * switch) + 2, every shorter path SL 1. */
static void color_sls(struct ibf_dl *dl, struct ibf_cdg *g, int32_t *ch, uint16_t *hops,
		      uint8_t *state, uint32_t *stack)
{
	for (uint32_t i = 0; i < g->ndl; i++) {
		uint32_t d = g->dlids[i], ls;
		cdg_settle(g, d, ch, hops, state, stack, &ls); /* loop-free: checked */
		for (uint32_t s = 0; s < g->nsw; s++) {
			uint8_t sl = 1;
			if (hops[s] == 3)
				sl = (uint8_t)(dl->color[cdg_head(g, ch[s])] + 2);
			dl->sl[(size_t)s * g->stride + d] = sl;
			if (hops[s] >= 1)
				dl->paths_per_vl[sl]++;
		}
	}
}

int ibf_deadlock_coloring(const struct ibf_fabric *f, struct ibf_routes *r,
			  const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err)
{
	double t0 = ibf_now();
	*out = NULL;
	struct ibf_cdg g;
	int rc = cdg_init(&g, f, r, err);
	if (rc)
		return rc;
	int V = o->max_vls > 0 ? o->max_vls : 8;
	if (V > IBF_DL_MAX_VLS)
		V = IBF_DL_MAX_VLS;
	uint8_t *color = calloc((size_t)f->nsw + 1, 1);
	int32_t *ch = malloc(((size_t)g.nsw + 1) * sizeof(*ch));
	uint16_t *hops = malloc(((size_t)g.nsw + 1) * sizeof(*hops));
	uint8_t *state = malloc((size_t)g.nsw + 1);
	uint32_t *stack = malloc(((size_t)g.nsw + 1) * sizeof(*stack));
	struct ibf_dl *dl = NULL;
	int nc = 0, mh = 0;
	if (!color || !ch || !hops || !state || !stack) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto done;
	}
	struct ibf_error why;
	ibf_error_clear(&why);
	rc = precheck(&g, o, color, &nc, &mh, &why);
	if (rc == IBF_ENOTSUP && mh > 3 && V >= 3 && !greedy_colors(f, color, &nc)) {
		enum long_outcome lo = long_paths(f, &g, r, o, V, color, nc, mh, ch, hops, state,
						  stack, why.msg, &dl);
		if (lo == LONG_DFSSSP) {
			rc = 0;
			goto done;
		}
		if (lo == LONG_HYBRID) {
			rc = 0;
			color = NULL; /* dl owns it */
			goto stats;
		}
		rc = IBF_ENOTSUP;
	}
	if (rc == IBF_ENOTSUP) {
		/* fall back to dfsssp, loudly */
		dl_log(o, IBF_LOG_INFO, "coloring: %s; falling back to dfsssp", why.msg);
		rc = ibf_deadlock_dfsssp(f, r, o, &dl, err);
		if (!rc)
			note_fallback(dl, o, why.msg);
		goto done;
	}
	if (rc) {
		if (err)
			*err = why;
		goto done;
	}
	dl = dl_new(&g, err);
	if (!dl) {
		rc = err ? err->code : IBF_ENOMEM;
		goto done;
	}
	dl->scheme = IBF_DEADLOCK_COLORING;
	dl->vls = V;
	dl->layers = 3;
	dl->vls_used = V;
	dl->ncolors = nc;
	dl->max_hops = mh;
	dl->color = color;
	color = NULL;
	color_sls(dl, &g, ch, hops, state, stack);
stats:
	dl->seconds = ibf_now() - t0;
	{
		int CV = dl->color_vls > 0 ? dl->color_vls : V;
		dl_log(o, IBF_LOG_INFO,
		       "coloring: %d colours, longest path %d hops, %d VLs (buckets %d/%d/%d, "
		       "%d escape layer(s)), %.3f s",
		       nc, mh, V, CV / 3 + (CV % 3 > 0), CV / 3 + (CV % 3 > 1), CV / 3,
		       dl->esc_layers, dl->seconds);
	}
done:
	if (rc) {
		ibf_dl_free(dl);
		dl = NULL;
	}
	*out = dl;
	free(color);
	free(ch);
	free(hops);
	free(state);
	free(stack);
	cdg_free(&g);
	return rc;
}

void ibf_dl_sl2vl(const struct ibf_dl *dl, const struct ibf_fabric *f, int node, int in, int out,
		  uint8_t vl[16])
{
	int V = dl && dl->vls > 0 ? dl->vls : 8;
	if (!dl || dl->scheme != IBF_DEADLOCK_COLORING) {
		for (int sl = 0; sl < 16; sl++)
			vl[sl] = (uint8_t)(sl < V ? sl : sl % V);
		return;
	}
	const struct ibf_node *n = &f->nodes[node];
	/* the buckets use the first color_vls VLs; the escape layers of the
	 * hybrid the VLs above them */
	int CV = dl->color_vls > 0 && dl->color_vls <= V ? dl->color_vls : V;
	unsigned b0 = (unsigned)(CV / 3 + (CV % 3 > 0)), b1 = (unsigned)(CV / 3 + (CV % 3 > 1));
	unsigned b2 = (unsigned)CV - b0 - b1;
	uint64_t key = n->guid ^ ((uint64_t)(unsigned)in << 40) ^ ((uint64_t)(unsigned)out << 48);
	if (n->type != IBF_NODE_SWITCH) {
		for (int sl = 0; sl < 16; sl++)
			vl[sl] = (uint8_t)(ibf_hash64(key ^ (uint64_t)sl) % (unsigned)V);
		return;
	}
	int col = n->sw >= 0 && (uint32_t)n->sw < dl->nsw && dl->color ? dl->color[n->sw] : -1;
	int sink = out == 0 || out == in || !dl_port_faces_switch(f, node, out);
	int first = in == 0 || !dl_port_faces_switch(f, node, in);
	for (int sl = 0; sl < 16; sl++) {
		uint64_t h = ibf_hash64(key ^ ((uint64_t)sl << 56) ^ 0x9e3779b97f4a7c15ULL);
		unsigned v;
		if (sink)
			v = (unsigned)(h % (unsigned)V);
		else if (dl->esc_vl[sl] != 0xff)
			v = dl->esc_vl[sl]; /* an escape layer: one VL from the first hop on */
		else if (first)
			v = (unsigned)(h % b0);
		else if (sl == 1)
			v = b0 + (unsigned)(h % (b1 + b2));
		else if (sl == col + 2)
			v = b0 + (unsigned)(h % b1);
		else if (sl >= 2 && sl <= 14)
			v = b0 + b1 + (unsigned)(h % b2);
		else
			v = (unsigned)((sl % 8) % V); /* SL 0 / 15: never assigned, unprotected */
		vl[sl] = (uint8_t)v;
	}
}
