/* Internal to the routing engines (minimal, layered): the shared run-time
 * context, the per-thread scratch, and the deterministic round-based
 * worker pool.  Not installed; nothing outside routing/ includes it.
 *
 * Determinism: destinations (end ports and switch port 0s) are processed
 * in rounds of up to ENG_ROUND units (fewer on small fabrics, where a
 * round's blindness to its own units would hurt the balance most).
 * Every unit of a round reads the link
 * weights as they were when the round began plus its own private changes;
 * after the round the changes of all units are added to the shared
 * weights.  Addition commutes, the round size is a constant, and each unit
 * derives its random choices from (seed, destination, layer), so the
 * tables never depend on the thread count or on scheduling.
 *
 * Up to four phases run in such rounds: phase 0 builds every destination's trees;
 * phase 1 revisits every CA destination and re-points next hops to even out
 * the exact link loads X (see rebal_unit in engine_core.c), again reading
 * X as it was when the round began plus the unit's own changes; phase 2
 * cools the busiest links (repeated while it moves) one unit at a time
 * (and phase 3, for layered with LMC >= 1 and layer0_balance all, cools
 * layer 0 on the base LIDs' own loads the same way),
 * each seeing every earlier move: its rule lets no link reach the old
 * busiest load, which only holds when no other unit moves at the same
 * time, and its swaps write other destinations' columns. */
#ifndef IBF_ENGINE_INTERNAL_H
#define IBF_ENGINE_INTERNAL_H

#include "ibf_routing.h"

#include <stdint.h>

#define ENG_ROUND 16u /* most units per round; never depends on threads */
#define ENG_SWEEPS 1  /* rebalancing sweeps over all destinations */
#define ENG_MINMAX 8  /* at most so many sweeps that cool the busiest links */
#define ENG_DIST_INF UINT16_MAX
#define ENG_NOLINK UINT32_MAX
#define ENG_PMAX 4 /* longest free prefix of layered's search, hard cap */

/* One destination port: a CA/router port facing a switch, or a switch's
 * port 0.  Its LIDs are lid .. lid + nlids - 1. */
struct eng_dest {
	int32_t node;
	uint8_t port;
	uint8_t tport; /* out port at switch t that delivers (0 = t itself) */
	uint8_t is_sw;
	uint32_t t; /* switch index the destination hangs off */
	uint32_t lid;
	uint32_t nlids;
	uint32_t rank; /* CA ports of switch t before this one in the routing order */
};

/* What one unit (destination) produced besides its LFT columns. */
struct eng_unit_out {
	uint32_t ntouched;
	uint32_t *e; /* links whose weight grew */
	uint64_t *w; /* by how much */
	uint64_t pairs_total, pairs_nonmin, pairs_fallback;
	uint64_t unreachable; /* (switch, LID) entries left unset */
	uint64_t long_paths;  /* layer >= 1 paths longer than the window allows */
	uint32_t max_len;     /* longest switch-to-switch path in layers >= 1 */
	uint32_t nx;	      /* exact-load changes (see eng_ctx.X) */
	uint32_t *xe;
	int64_t *xw;
	uint64_t moves; /* rebalancing: next hops re-pointed */
};

struct eng_ctx {
	const struct ibf_fabric *f;
	const struct ibf_route_opts *o;
	struct ibf_routes *r;
	const struct eng_kind *kind; /* the engine running (eng_run) */
	uint32_t S, E;		     /* switches, directed switch-switch links (CSR entries) */
	const uint32_t *esrc;	     /* [E] tail switch of each directed link (fabric->adj_src) */
	const uint32_t *rev; /* [E] the opposite direction of the same cable (fabric->adj_rev) */
	uint32_t *und;	     /* [E] undirected cable id (min(e, rev(e))) */
	uint16_t *dist;	     /* [S*S] hop distances, ENG_DIST_INF when unreachable */
	uint32_t diam;	     /* largest finite distance */
	uint32_t diam_ref;   /* the fabric's typical diameter: the smallest distance within
			       * which 90% of the connected switch pairs lie (= diam on the
			       * intact fabrics we know; a failed cable leaves it unchanged) */
	uint32_t *hosts;     /* [S] source end ports behind each switch (CA ports + 1) */
	struct eng_dest *dest;
	uint32_t ndest;
	int layers;	    /* L */
	uint32_t pmax;	    /* longest free prefix in the layered search */
	uint64_t *W;	    /* [E] shared link weights (snapshot during a round) */
	uint32_t round;	    /* units per round: from the fabric size only */
	uint32_t rounds[4];	    /* units per round in phases 0 .. 3 */
	uint32_t *lid_dest;	    /* [max_lid + 1] destination of each routed LID, or ENG_NOLINK */
	int64_t xmax[2];	    /* phase 2: the largest X of each plane when the sweep began */
	uint64_t *possible; /* [S * words] bit s of row t: s has some simple path to t
			       * whose length lies in its window (only for layered) */
	uint32_t pwords;
	uint64_t *X;		/* [xplanes * E] exact paths per link, as ibf_path_stats counts
			       * them: (source CA port, CA destination LID) pairs crossing it,
			       * times the link's rate weight lw;
			       * plane 1 (X + E), when there are two, counts only the base
			       * LIDs (layer 0) */
	int l0base;		/* phase 2 cools layered's layer 0 on plane 1 alone
			       * (layer0_balance base); else phase 3 does, within the
			       * busiest all-LID load */
	uint32_t xplanes;	/* 2 for layered with LMC >= 1 (layer 0 balances on its own
			       * plane, as minimal does with LMC 0), else 1 */
	uint32_t *hca;		/* [S] CA/router ports cabled to each switch */
	int rated;		/* some link weighs more than 1 */
	uint32_t *lw;		/* [xplanes * E] rate weight of each link (the same on
				 * every plane): the fastest switch link's rate over
				 * this one's, rounded, at least 1; X and W hold loads
				 * times lw (eng_build_rates), so a 1x cable beside
				 * 4x ones counts each path four times */
	/* the least-used-port candidate (engine_seed.c): seed_row[lid] is the
	 * row of seed ([rows * S] out link per switch) of each of its LIDs */
	uint32_t *seed, *seed_row;
	uint64_t seed_max; /* its busiest link */
	double seed_sq;	   /* its sum of squared link loads */
	int seed_opt;	   /* its busiest link meets the lower bound: phase 0 starts
			    * from it and no phase moves its trees */
	int32_t *winlo, *winhi; /* [diam + 1] window bounds by distance (eng_bound) */
	int phase;		/* 0: build the tables, 1: rebalance them, 2: cool the busiest
				 * links, 3: cool layer 0 alone (layer0_balance all) */
	int64_t xmean[2];	/* per plane; phase 1: mean of X when the sweep began; phase 2:
				 * halfway from there to the largest X (paths below are left
				 * alone) */
	struct eng_unit_out out[ENG_ROUND];
};

/* Per-thread scratch. */
struct eng_ws {
	uint64_t *delta;   /* [E] this unit's private weight changes */
	uint32_t *touched; /* [E] */
	uint32_t ntouched;
	uint32_t *order; /* [S] */
	uint32_t *tmp;	 /* [S] */
	uint64_t *acc;	 /* [S] */
	int32_t *len;	 /* [S] tree path length, -1 unset */
	uint8_t *fixed;	 /* [S] */
	uint32_t *level; /* [S] in-window paths of (s, d) so far */
	uint8_t *nopath; /* [S] 2: s has no in-window path to t at all;
			       * 1: s found none in some earlier layer */
	uint32_t *nxt;	 /* [layers * S] out link of s in each layer (ENG_NOLINK) */
	uint32_t *mark;	 /* [E] stamp per undirected cable */
	uint32_t stamp;
	uint32_t *bucket;   /* [S] BFS buckets */
	uint32_t *down_off; /* [S + 1] per switch: its links one hop closer to t */
	uint32_t *down;	    /* [E] */
	uint32_t *bcount;   /* [S + 2] */
	/* exact-load deltas and the rebalancing pass */
	int64_t *xdelta;    /* [xplanes * E] */
	uint8_t *xflag;	    /* [xplanes * E] */
	uint32_t *xtouched; /* [xplanes * E] */
	uint32_t nxt_touched;
	int32_t *rlen;	     /* [layers * S] tree path length per LID of the unit */
	uint32_t *fc, *sib;  /* [S] first child, next sibling in one tree */
	uint32_t *cst, *dst; /* [E] stamps of cb (per cable) and db (per link) */
	uint64_t *cb, *db;   /* [E] LIDs (bits) whose path uses the cable / link */
	uint32_t stamp2;
	/* layered's prefix search: per-search memos, valid while their stamp
	 * equals sstamp (layered.c) */
	uint64_t *tcost;     /* [S] cost of a tree switch's fixed path to t */
	uint32_t *tstamp;    /* [S] */
	uint64_t *lbnd;      /* [S * ENG_PMAX] lower bound of a prefix's completion */
	uint32_t *lstamp;    /* [S * ENG_PMAX] */
	uint8_t *lexact;     /* [S * ENG_PMAX] lbnd is the minimum, not only a bound */
	uint32_t *opt_e;     /* [ENG_PMAX * E] the options (links) of each (switch, depth) */
	uint32_t *opt_off, *opt_n, *opt_stamp; /* [S * ENG_PMAX] slice of opt_e */
	uint32_t sstamp;
};

static inline int64_t eng_x(const struct eng_ctx *c, const struct eng_ws *ws, uint32_t e)
{
	return (int64_t)c->X[e] + ws->xdelta[e];
}

/* v paths more (fewer) on link e: X grows by v times its rate weight */
static inline void eng_add_x(const struct eng_ctx *c, struct eng_ws *ws, uint32_t e, int64_t v)
{
	v *= (int64_t)c->lw[e];
	if (!ws->xflag[e]) {
		ws->xflag[e] = 1;
		ws->xtouched[ws->nxt_touched++] = e;
	}
	ws->xdelta[e] += v;
}

/* the plane offset of LID j of a destination: E for the base LID when X
 * has two planes, else 0; a LID's loads are read at e + off and every
 * change goes to plane 0 and, for the base LID, to plane 1 too */
static inline uint32_t eng_xoff(const struct eng_ctx *c, uint32_t j)
{
	return c->xplanes == 2 && j == 0 ? c->E : 0;
}
static inline void eng_add_xp(const struct eng_ctx *c, struct eng_ws *ws, uint32_t e, uint32_t off,
			      int64_t v)
{
	eng_add_x(c, ws, e, v);
	if (off)
		eng_add_x(c, ws, e + off, v);
}
/* the weighted load a paths more would add to link e (any plane) */
static inline int64_t eng_wx(const struct eng_ctx *c, uint32_t e, int64_t a)
{
	return a * (int64_t)c->lw[e];
}
static inline uint64_t eng_w(const struct eng_ctx *c, const struct eng_ws *ws, uint32_t e)
{
	return c->W[e] + ws->delta[e];
}

static inline void eng_add_w(const struct eng_ctx *c, struct eng_ws *ws, uint32_t e, uint64_t v)
{
	v *= c->lw[e];
	if (!v)
		return;
	if (!ws->delta[e])
		ws->touched[ws->ntouched++] = e;
	ws->delta[e] += v;
}

/* What an engine on the shared driver brings: its name, the minimal in-tree
 * of layer 0 and, for multipath engines, the tree of every other layer
 * (NULL: every layer is a minimal tree).  The driver reaches the engines'
 * files only through these pointers. */
struct eng_kind {
	const char *name;
	void (*min_tree)(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t,
			 const uint32_t *order, uint32_t nreach, uint64_t key, uint32_t rot, int ca,
			 uint32_t xoff, uint32_t *nxt);
	void (*layer_tree)(const struct eng_ctx *c, struct eng_ws *ws, uint32_t di, int layer,
			   uint32_t nreach, long cap, struct eng_unit_out *out);
};

/* Shared driver: validates, builds the context, runs every destination and
 * fills r and rep. */
int eng_run(const struct ibf_fabric *f, const struct ibf_route_opts *o, struct ibf_routes *r,
	    struct ibf_route_report *rep, struct ibf_error *err, const struct eng_kind *kind);

/* Switches ordered by distance to t (counting sort over the distance row);
 * returns how many are reachable (t first). */
uint32_t eng_order_by_dist(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, uint32_t *order);
/* ws->down_off/down (CSR over the switches): each reachable switch's links
 * one hop closer to t, in port order. */
void eng_down_links(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t);

/* Balanced minimal in-tree to t for one LID: fills nxt[S] (ENG_NOLINK for t
 * and unreachable switches), adds the loads to ws->delta and, when ca (a CA
 * destination), the exact loads to ws->xdelta.  order and nreach come from
 * eng_order_by_dist.  key (the seed) and rot rotate the port order of ties.
 * xoff (eng_xoff): the plane of X the tree balances on. */
void eng_min_tree(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint32_t *order,
		  uint32_t nreach, uint64_t key, uint32_t rot, int ca, uint32_t xoff,
		  uint32_t *nxt);

/* engine_seed.c: the least-used-port candidate for the minimal trees of
 * the CA LIDs on the balanced plane (every LID with one plane, the base
 * LIDs with two).  LID by LID in LID order, each tree from its sources
 * inwards: the farthest switch first puts everything that reaches it for
 * this LID on its least loaded link one hop closer (then the link with the
 * fewest LIDs, then port order).  On a complete fat tree every leaf then
 * sends a given LID through the same spine (D-mod-K-like) and the down
 * cables carry whole destinations evenly, which the greedy trees grown
 * from the destination outwards miss.  eng_seed_build computes it
 * (sequentially, so for any thread count), its busiest link and sum of
 * squares, and sets seed_opt when the busiest link meets a lower bound
 * (nothing can beat it).  eng_seed_of: its out links for LID lid, NULL if
 * none; eng_seed_tree: a tree of phase 0 taken from it, charged like
 * eng_min_tree's; eng_seed_better: it has a lower busiest link (or the same
 * and a lower sum of squares) than X after the phases (one plane only);
 * eng_seed_apply writes its LFT entries. */
int eng_seed_build(struct eng_ctx *c, struct eng_ws *ws, struct ibf_error *err);
const uint32_t *eng_seed_of(const struct eng_ctx *c, uint32_t lid);
void eng_seed_tree(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, const uint32_t *order,
		   uint32_t nreach, const uint32_t *seed, uint32_t xoff, uint32_t *nxt);
int eng_seed_better(const struct eng_ctx *c);
void eng_seed_apply(const struct eng_ctx *c);
void eng_seed_free(struct eng_ctx *c);

/* Window bounds for source s (distance dst) */
static inline int eng_bound(const struct eng_ctx *c, const struct ibf_win_bound *b, uint32_t dst)
{
	return ibf_win_eval(b, dst, c->diam_ref);
}

/* the same, from the tables (dst <= diam) */
static inline int eng_lo(const struct eng_ctx *c, uint32_t dst)
{
	return c->winlo[dst];
}

static inline int eng_hi(const struct eng_ctx *c, uint32_t dst)
{
	return c->winhi[dst];
}

/* engine_setup.c: the run's setup and the engines' log helper */
void eng_log(const struct ibf_route_opts *o, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void eng_ctx_free(struct eng_ctx *c);
int eng_build_dests(struct eng_ctx *c, struct ibf_error *err, uint32_t *maxlids, int *maxlmc);
int eng_build_links(struct eng_ctx *c, struct ibf_error *err);
/* lw[] from the ports' width and speed; returns whether any link weighs
 * more than 1 (all 1 when every switch link runs at one rate or none is
 * known, so the tables are those of the unweighted rule) */
int eng_build_rates(struct eng_ctx *c, struct ibf_error *err);
int eng_build_dist(struct eng_ctx *c, struct ibf_error *err);
int eng_build_possible(struct eng_ctx *c, struct ibf_error *err);
int eng_ws_init(struct eng_ws *ws, const struct eng_ctx *c, uint32_t maxlids);
void eng_ws_free(struct eng_ws *ws);

#endif
