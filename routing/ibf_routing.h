/* ibfab routing: route tables, engines, LFT dump I/O, path tracing, stats.
 * Depends on the topology core only; no OpenSM headers. */
#ifndef IBF_ROUTING_H
#define IBF_ROUTING_H

#include "ibf_topology.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IBF_LFT_NONE 255u /* "no route" in an LFT entry */

/* Forwarding state of every switch.  lft[s * stride + lid] is the output
 * port of switch index s (fabric->switches[s]) for destination LID lid;
 * port 0 = the switch itself.  stride = max_lid + 1. */
struct ibf_routes {
	uint32_t nsw;
	uint32_t max_lid;
	uint32_t stride;
	uint8_t *lft;  /* nsw * stride, IBF_LFT_NONE when unset */
	uint8_t *hops; /* nsw * stride switch hops to the LID's port (0xff unknown), may be NULL */
	int lmc;       /* the largest LMC among end ports (layers = 1 << lmc) */
	char engine[32]; /* engine that produced the tables ("" when read from a dump) */
	/* read from ibroute / dump_lfts output: the switches' top LID when
	 * it is a multiple of 64 and no table has an entry for it (ibroute
	 * does not read the block that holds it), else 0 */
	uint32_t unread_lid;
	/* [max_lid + 1] or NULL (all 0), kept by stable reroute from sweep to
	 * sweep: 1 for a LID whose column may differ from the one the last
	 * fresh run gave it (rerouted around a loss, or taken from the fresh
	 * run of a partly repaired fabric); such a column moves onto the fresh
	 * run at the next gain, so a repair seen over several sweeps ends on
	 * the tables of the healthy fabric (ibf_route_stable_mode) */
	uint8_t *moved;
	/* the healthy tables H: those of the last sweep that ended with no
	 * mark on a fabric with every switch and switch cable of the H before,
	 * with their fabric (LIDs, switches and cables by node GUID and port);
	 * NULL while there is no mark and nothing of H's fabric is missing
	 * (H = these tables) or when unknown.  A copy made when a sweep first
	 * sets marks or loses a part without moving a column, shared (counted
	 * references) by the tables of the sweeps after it while marks remain
	 * or the part is missing;
	 * ibf_routes_free drops the reference.  A marked column goes back to
	 * H's at a gain as soon as H's column works on the fabric again
	 * (ibf_route_stable_mode). */
	struct ibf_healthy *healthy;
	/* 1: the healthy tables these tables carry (healthy, or the tables
	 * themselves) are provisional: made by a first run that had no kept
	 * healthy tables, on a fabric that may have been damaged then.  At
	 * the first sweep whose fabric has every part of H's and a part H
	 * never had (a switch, a switch cable, or a cable back at its rate),
	 * ibf_route_stable_mode routes afresh and the result, no longer
	 * provisional, is the new H.  Carried from sweep to sweep; kept in
	 * stable_state_dir's manifest. */
	int provisional;
};

int ibf_routes_init(struct ibf_routes *r, uint32_t nsw, uint32_t max_lid, int with_hops,
		    struct ibf_error *err);
void ibf_routes_free(struct ibf_routes *r);
/* Drop one reference to the healthy tables (routing/stable.c); NULL: none. */
void ibf_healthy_release(struct ibf_healthy *h);
/* H's fabric and tables (NULL, NULL for h NULL); owned by h. */
void ibf_healthy_get(const struct ibf_healthy *h, const struct ibf_fabric **f,
		     const struct ibf_routes **r);
/* 0 when r can be read against f: f finalized, one table row per switch
 * of f; else IBF_EINVAL with a message. */
int ibf_routes_fit(const struct ibf_fabric *f, const struct ibf_routes *r, struct ibf_error *err);

static inline uint8_t *ibf_lft(const struct ibf_routes *r, uint32_t sw)
{
	return &r->lft[(size_t)sw * r->stride];
}

/* ------------------------------------------------------------ options */

/* A bound of the hop window for layers >= 1:
 * IBF_WIN_ABS: value hops; IBF_WIN_DIST: pair distance + value;
 * IBF_WIN_DIAM: fabric diameter + value. */
enum ibf_win_base { IBF_WIN_ABS = 0, IBF_WIN_DIST = 1, IBF_WIN_DIAM = 2 };
struct ibf_win_bound {
	int base; /* enum ibf_win_base */
	int value;
};

/* What layered's busiest-link cooling aims at for layer 0 when ports have
 * several LIDs (LMC >= 1): IBF_L0_BASE the base LIDs' own loads (layer 0
 * as balanced as minimal with LMC 0; the all-LID busiest link may grow),
 * IBF_L0_ALL the loads of all LIDs (then layer 0 alone only within the
 * busiest all-LID load). */
enum ibf_layer0_balance { IBF_L0_BASE = 0, IBF_L0_ALL = 1 };

struct ibf_route_opts {
	uint64_t seed;
	int threads;		      /* worker threads (>= 1); never changes the result */
	struct ibf_win_bound min_len; /* default {DIST, +1} */
	struct ibf_win_bound max_len; /* default {DIAM, +1} */
	long max_paths_per_layer;     /* <= 0: no cap */
	int layer0_balance;	      /* enum ibf_layer0_balance (layered) */
	int layers;		      /* 0 = 1 << routes lmc (from the fabric's end-port LMC) */
	ibf_log_fn log;		      /* may be NULL */
	void *log_ctx;
	const uint64_t *roots; /* dmodk: root switch GUIDs (NULL: levels found
				      * from the structure) */
	uint32_t nroots;
	/* stable reroutes: lid_keep[l] != 0 when the caller keeps LID l's column
	 * from earlier tables (ibf_stable_keep); engines may leave such columns
	 * unset and skip destinations whose LIDs are all kept.  NULL: none. */
	const uint8_t *lid_keep;
	uint32_t nlid_keep; /* entries in lid_keep */
	/* hratio: node GUIDs of switches to keep traffic off where another
	 * path exists (unhealthy spines); NULL: none.  Other engines ignore it. */
	const uint64_t *avoid;
	uint32_t navoid;
	/* layered: prefixes a prefix search visits plainly before the bounded
	 * search takes over; 0 = the default (32).  The tables never depend
	 * on it (the tests compare 1, the default and UINT32_MAX). */
	uint32_t plain_nodes;
};
void ibf_route_opts_default(struct ibf_route_opts *o);

/* The hop bound b for a pair at distance dst, with diam_ref the fabric's
 * typical diameter (ibf_typical_diameter): ABS -> value, DIST -> dst +
 * value, DIAM -> max(dst, diam_ref) + value; clamped to 0..4096. */
static inline int ibf_win_eval(const struct ibf_win_bound *b, uint32_t dst, uint32_t diam_ref)
{
	long v;
	switch (b->base) {
	case IBF_WIN_DIST:
		v = (long)dst + b->value;
		break;
	case IBF_WIN_DIAM:
		/* relative to the typical diameter, so a few pairs stretched by a
		 * failure do not widen every pair's window; those pairs get their
		 * own distance + value */
		v = (long)(dst > diam_ref ? dst : diam_ref) + b->value;
		break;
	default:
		v = b->value;
		break;
	}
	return v < 0 ? 0 : v > 4096 ? 4096 : (int)v;
}

/* Typical diameter from a histogram of switch-pair distances hist[0..maxd]:
 * the smallest k with 90 % of the pairs at distance <= k. */
uint32_t ibf_typical_diameter(const uint64_t *hist, uint32_t maxd);

/* Statistics an engine reports about its own run (filled when non-NULL). */
struct ibf_route_report {
	int layers;
	uint64_t pairs_total; /* (source switch, destination port) pairs per layer >= 1, summed */
	uint64_t pairs_nonminimal; /* of those, given a path inside the window */
	uint64_t pairs_fallback;   /* of those, left to the minimal fallback */
	double seconds;
};

/* ------------------------------------------------------------ engines */

/* An engine fills r (allocated by the caller with ibf_routes_init for
 * fabric->nsw and ibf_max_lid(fabric)).  The fabric must be finalized and
 * carry LIDs.  Returns 0 or a negative ibf_errcode; on failure r's contents
 * are unspecified (the caller discards them). */
typedef int (*ibf_engine_fn)(const struct ibf_fabric *f, const struct ibf_route_opts *o,
			     struct ibf_routes *r, struct ibf_route_report *rep,
			     struct ibf_error *err);

struct ibf_engine {
	const char *name;
	ibf_engine_fn fn;
	const char *summary;
};
/* Engines known to this build, terminated by a {NULL} entry. */
extern const struct ibf_engine ibf_engines[];
const struct ibf_engine *ibf_engine_find(const char *name);

/* Switch cables running below half the rate ibf_find_degraded expects of
 * them, and below half the rate most cables between the same two switch
 * models run at, are routed as if lost (routing/slow.c): *lean = a copy of
 * f without them (same nodes, ports, LIDs and switch indices: its tables
 * are f's), or NULL when none is left out.  They are taken slowest first,
 * and each is left out unless a switch of it has no other cable than such
 * ones, leaving it out (with those before it) would cut the fabric apart,
 * or `check` fails on the copy without it (*why: the reason, logged;
 * *quiet: drop the matter, say nothing, no copy).  `check` may be NULL; it
 * is taken to fail for every superset of a set of cables it fails for.
 * `who` prefixes the log lines. */
typedef int (*ibf_slow_check_fn)(const struct ibf_fabric *lean, const struct ibf_fabric *f,
				 void *arg, const char **why, int *quiet, struct ibf_error *err);
int ibf_route_drop_slow(const struct ibf_fabric *f, const struct ibf_route_opts *o,
			const char *who, ibf_slow_check_fn check, void *arg,
			struct ibf_fabric **lean, struct ibf_error *err);
/* *q = *o (the defaults when o is NULL) without its log: for a look at what
 * a run would do, which the run itself then says. */
void ibf_route_opts_quiet(const struct ibf_route_opts *o, struct ibf_route_opts *q);
/* The copy the named engine routes f as (NULL: f itself), without logging:
 * for checking earlier tables against what a fresh run would avoid. */
int ibf_route_lean(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
		   struct ibf_fabric **lean, struct ibf_error *err);

/* Convenience: allocate r and run the named engine. */
int ibf_route(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
	      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err);

int ibf_route_minimal(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err);
int ibf_route_layered(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err);

/* ------------------------------------------------------------ LFT dumps */

/* Write r in the opensm-lfts.dump format (what `opensm -R file -U` loads);
 * atomic; "-" = stdout. */
int ibf_lfts_write(const struct ibf_fabric *f, const struct ibf_routes *r, const char *path,
		   struct ibf_error *err);
/* Same, to an open stream (not atomic). */
int ibf_lfts_write_stream(const struct ibf_fabric *f, const struct ibf_routes *r, FILE *out,
			  struct ibf_error *err);
/* Read an opensm-lfts.dump or dump_lfts/ibroute output (auto-detected).
 * Switches are matched to the fabric by GUID; entries for unknown
 * switches are an error, LIDs above the fabric's max LID are an error.
 * r is allocated here (hops NULL, lmc = the largest LMC of the fabric's
 * ports, engine ""); switches absent from the dump keep IBF_LFT_NONE
 * everywhere.  Errors carry FILE:LINE; on failure r holds nothing to free.
 * "-" reads stdin. */
int ibf_lfts_read(const struct ibf_fabric *f, const char *path, struct ibf_routes *r,
		  struct ibf_error *err);
/* Same, from memory; name is used in error messages. */
int ibf_lfts_parse(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		   struct ibf_routes *r, struct ibf_error *err);

/* ------------------------------------------------------------ tracing */

#define IBF_TRACE_MAX 64

enum ibf_trace_result {
	IBF_TRACE_OK = 0,
	IBF_TRACE_UNREACHABLE = 1, /* no entry, or a port with no peer */
	IBF_TRACE_LOOP = 2,
	IBF_TRACE_WRONG = 3, /* delivered to a port that does not own the LID */
};

/* Follow the tables from switch index sw towards dlid.  Stores the switch
 * indices visited in path (up to IBF_TRACE_MAX) and their count in *nsw
 * (hops = *nsw - 1).  Returns enum ibf_trace_result.
 * Port 0 delivers to the switch itself; a port facing a CA/router delivers
 * there; WRONG when that port does not own dlid.  On LOOP the last stored
 * element is the first switch visited twice.  *nsw counts every switch
 * even beyond IBF_TRACE_MAX; path and nsw may be NULL. */
int ibf_trace(const struct ibf_fabric *f, const struct ibf_lidmap *m, const struct ibf_routes *r,
	      uint32_t sw, uint32_t dlid, uint32_t *path, int *nsw);

/* One node of a traced path: the packet enters `node` by port `in` (-1 at
 * the source) and leaves by port `out` (-1 where it ends; at a switch the
 * LFT entry, which may be IBF_LFT_NONE or a port that leads nowhere). */
struct ibf_trace_hop {
	int32_t node;
	int16_t in, out;
};
/* Follow dlid hop by hop from the end port (node, port) (port 0 of a switch:
 * the switch itself) through the tables.  hop[0] is the source; on OK and
 * WRONG the last hop is the end port the packet reaches (in = its port); on
 * UNREACHABLE the last hop is the node whose out port has no entry, does not
 * exist or has no cable (a CA source port without a cable too); on LOOP it
 * is the first switch entered a second time.  Up to max hops are stored,
 * *nhop counts them all (a walk never stores more than f->nsw + 2).
 * Returns enum ibf_trace_result, or IBF_ENOMEM. */
int ibf_trace_port(const struct ibf_fabric *f, const struct ibf_lidmap *m,
		   const struct ibf_routes *r, int node, int port, uint32_t dlid,
		   struct ibf_trace_hop *hop, int max, int *nhop);

/* The categories ok, unreachable, across, loops, wrong and too_long are
 * exclusive and sum to pairs (a correct delivery longer than max_hops counts as
 * too_long, not ok). */
struct ibf_check_report {
	uint64_t pairs; /* (source end port, destination LID) pairs traced */
	uint64_t ok;
	uint64_t unreachable;
	uint64_t loops;
	uint64_t wrong;
	uint64_t too_long;   /* longer than max_hops (when max_hops > 0) */
	uint64_t across;     /* not routed, between two switch components or to
				  * a port cabled to no switch: no table can (a
				  * rail-only fabric, a split fabric, hosts cabled
				  * back to back) */
	uint32_t components; /* switch components of the fabric */
	uint32_t max_hops_seen;
	/* first few problems, readable */
	char examples[8][160];
	int nexamples;
};
/* Worker threads of the table walks (route check, path statistics): 0
 * (default) picks by the amount of work, n >= 1 forces n (at most 64).
 * Process-wide; the results never depend on it. */
void ibf_set_walk_threads(int n);

/* Trace every (source end port: CA/router port cabled to a switch, or
 * switch port 0 with a LID; destination LID: every LID of every port
 * except the source's own) pair.  Hops are switch-to-switch links.
 * max_hops <= 0 disables the length check.  Examples: the first problems
 * by (source switch, destination LID), one per such pair. */
int ibf_route_check(const struct ibf_fabric *f, const struct ibf_routes *r, int max_hops,
		    struct ibf_check_report *rep, struct ibf_error *err);

/* ------------------------------------------------------------ stable reroutes */

/* Keep what still works after a change (routing/stable.c, docs/reliability.md):
 * a destination LID's column of the previous tables (old, for fabric fo)
 * is kept when it still delivers from every switch of f over f's cables,
 * without a loop, with a shortest path in LMC layer 0 and a path inside
 * o->max_len in the other layers (a switch f has and fo had not is grafted
 * onto the column through the neighbour that gives it the shortest such
 * path); the other LIDs are routed again. */
struct ibf_stable_report {
	uint32_t lids;		  /* destination LIDs of f */
	uint32_t lids_kept;	  /* columns taken from the previous tables */
	uint32_t lids_restored;	  /* columns that still worked but were taken from
				   * the fresh tables, which send them over
				   * switches or cables that came back or are new
				   * (IBF_STABLE_MODE_RESTORE) */
	uint32_t lids_healthy;	  /* columns that changed back to the healthy
				   * tables' (marked ones whose healthy column
				   * works again, at a gain), lids_partial
				   * included */
	uint32_t lids_partial;	  /* of those, columns taken from the healthy
				   * tables in part: their entries where those
				   * still deliver, grafts elsewhere (a column
				   * that would otherwise move onto the fresh
				   * run while a part is still missing) */
	uint32_t switches_gained; /* switches of f the previous fabric lacked */
	uint32_t cables_gained;	  /* switch-to-switch cables of f it lacked
				   * (or that the engine left out of its
				   * fabric as far below their rate) */
	uint32_t cables_rate_back; /* of those, the cables it had but left out
				    * as far below their rate that now run at
				    * it (ibf_route_lean) */
	int fresh;		  /* 1: IBF_STABLE_MODE_FRESH routed from scratch
				   * (something came back): nothing kept, the
				   * counts below 0 but full_run and seconds */
	int provisional;	  /* 1: fresh as well, because the healthy tables
				   * were provisional (ibf_routes.provisional)
				   * and the fabric outgrew them */
	int full_run;		  /* 1: the engine routed every destination (the
				   * route report covers them all), 0: only the
				   * LIDs not kept */
	uint64_t entries;	  /* (switch, LID) entries present before and after
				   * (switch and LID owner in both fabrics) */
	uint64_t entries_changed; /* of those, different from the previous tables */
	uint64_t entries_new;	  /* the other entries of f's destination LIDs: on
				   * switches the previous fabric did not have, or
				   * for LIDs whose port is new there */
	double seconds;		  /* keep + route + merge */
};
/* keep[0..ibf_max_lid(f)]: 1 for the LIDs whose old column can stay. */
int ibf_stable_keep(const struct ibf_fabric *f, const struct ibf_fabric *fo,
		    const struct ibf_routes *old, const struct ibf_route_opts *o, uint8_t *keep,
		    struct ibf_error *err);
/* Copy the kept columns of old into r (f's tables; a switch new to the
 * fabric is grafted onto each kept column) and count the changes. */
int ibf_stable_merge(const struct ibf_fabric *f, struct ibf_routes *r, const struct ibf_fabric *fo,
		     const struct ibf_routes *old, const struct ibf_route_opts *o,
		     const uint8_t *keep, struct ibf_stable_report *rep, struct ibf_error *err);

enum ibf_stable_mode {
	/* what came back carries its share again: when f gained a switch or
	 * a switch cable, the engine routes f from scratch and a column that
	 * still works is kept only when its fresh column sends nothing from
	 * a switch fo had over a gained cable; when f only lost things, the
	 * engine routes only the LIDs not kept (same as KEEP) */
	IBF_STABLE_MODE_RESTORE = 0,
	/* every column that still works is kept, also when something came
	 * back (which then carries no traffic but its grafted entries) */
	IBF_STABLE_MODE_KEEP = 1,
	/* when f gained a switch or a switch cable (both ends matched by
	 * node GUID and port number), the engine routes f from scratch and
	 * nothing is kept (the report says `fresh`); when f only lost
	 * things, as KEEP */
	IBF_STABLE_MODE_FRESH = 2,
};
/* ibf_route with the kept columns: the engine routes only the destinations
 * with a LID that is not kept (layered and minimal skip the others; dmodk
 * routes all and the kept columns overwrite), or, in RESTORE mode after a
 * gain, every destination; then the merge.  For every engine but layered
 * the keep check holds all layers to shortest paths (o->max_len applies to
 * layered's layers >= 1 only).  On failure r holds nothing. */
int ibf_route_stable_mode(const struct ibf_fabric *f, const char *engine,
			  const struct ibf_route_opts *o, const struct ibf_fabric *fo,
			  const struct ibf_routes *old, int mode, struct ibf_routes *r,
			  struct ibf_route_report *rrep, struct ibf_stable_report *srep,
			  struct ibf_error *err);
/* Offline marks (what the plugin carries from sweep to sweep): old's
 * columns (old for fabric fo, e.g. read from a dump) that differ from the
 * healthy tables h (for fabric fh) on a switch both fabrics have (by node
 * GUID), or whose LID names another port in fh, are marked in old->moved,
 * and old->healthy becomes a copy of h and fh, so ibf_route_stable_mode
 * treats old as the plugin's tables of a repair under way.  No column
 * differs: no mark, and H only when fo lacks a switch or switch cable of
 * fh (a loss that moved no column); else nothing set (old are the
 * healthy tables).  *nmarked (may be NULL): how many columns were
 * marked. */
int ibf_stable_set_healthy(struct ibf_routes *old, const struct ibf_fabric *fo,
			   const struct ibf_routes *h, const struct ibf_fabric *fh,
			   uint32_t *nmarked, struct ibf_error *err);
/* The healthy tables H that r (for fabric f) carries: r->healthy's when
 * set, else r and f themselves when nothing is marked (r is H); 0 and
 * NULLs when H is not known (marks without H). */
int ibf_routes_healthy(const struct ibf_routes *r, const struct ibf_fabric *f,
		       const struct ibf_fabric **hf, const struct ibf_routes **hr);
/* The plugin's stable_state_dir (routing/stable_state.c): H kept across
 * restarts as DIR/healthy-HASH.topo (ibnetdiscover format, with LIDs),
 * DIR/healthy-HASH.lfts (opensm-lfts.dump format) and the manifest
 * DIR/healthy.state naming both and the engine (and `provisional 1` when
 * h->provisional is set; the load sets h->provisional from it); the data
 * files are written first, the manifest last, each to a temporary file
 * renamed over it.
 * ibf_stable_state_save writes H (fh, h) made by engine unless *last (may
 * be NULL) is the hash of that content (nothing written then); *sig (may
 * be NULL) becomes the hash, *written (may be NULL) 1 when the files were
 * written.
 * ibf_stable_state_load reads them back for the fabric f now: 1 when dir
 * holds no manifest, 0 with *fh and h (free both) and *sig, else an error
 * with the file and line (a bad manifest or data file) or "stale" (another
 * engine's, a LID that names another port in f, nothing in common with
 * f); *fh NULL and h empty then. */
int ibf_stable_state_save(const char *dir, const char *engine, const struct ibf_fabric *fh,
			  const struct ibf_routes *h, const uint64_t *last, uint64_t *sig,
			  int *written, struct ibf_error *err);
int ibf_stable_state_load(const char *dir, const char *engine, const struct ibf_fabric *f,
			  struct ibf_fabric **fh, struct ibf_routes *h, uint64_t *sig,
			  struct ibf_error *err);
/* The report in one line for the logs: "kept K of L destination LIDs[,
 * took B back from the healthy tables], routed R again[ (G of them moved onto what came back or is new: ...)];
 * C of E <entries> changed (P%), N new (...)", entries naming what E
 * counts ("LFT entries"); after a fresh run (IBF_STABLE_MODE_FRESH) "a
 * switch or switch cable came back (or is new); routing every
 * destination again".  Returns buf. */
const char *ibf_stable_report_format(const struct ibf_stable_report *sr, const char *entries,
				     char *buf, size_t len);
/* ibf_route_stable_mode in IBF_STABLE_MODE_RESTORE. */
int ibf_route_stable(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
		     const struct ibf_fabric *fo, const struct ibf_routes *old,
		     struct ibf_routes *r, struct ibf_route_report *rrep,
		     struct ibf_stable_report *srep, struct ibf_error *err);

/* ------------------------------------------------------------ statistics */

/* Rate weights of the directed switch links (lw[adj_off[nsw]], indexed like
 * fabric->adj), as minimal and layered balance on them: a link runs at the
 * slower end's width x per-lane speed (an end that does not know it leaves
 * it to the other); its weight is the fastest switch link's rate over its
 * own, rounded to the nearest integer (halves up), 1 .. IBF_MAX_RATE_WEIGHT,
 * and 1 when the rate is unknown.  Returns 1 when some weight exceeds 1. */
#define IBF_MAX_RATE_WEIGHT 64
int ibf_link_rate_weights(const struct ibf_fabric *f, uint32_t *lw);
/* The data rate in 0.1 Gb/s of the cable at (node, port): width x per-lane
 * speed of the slower end, of the one end that knows it, 0 when neither
 * does (or the port is not cabled and does not know it). */
uint32_t ibf_cable_rate(const struct ibf_fabric *f, int node, int port);

/* Definitions: see the comment at the top of routing/stats.c. */
struct ibf_path_stats {
	int layers;
	uint32_t max_len;	 /* histogram length - 1 */
	uint64_t *len_hist;	 /* [layers][max_len + 1]: switch-to-switch hops of
				       * the delivered layer paths of the switch pairs */
	uint64_t pairs;		 /* ordered switch pairs (s, t), t with hosts */
	uint64_t pair_paths;	 /* layer paths traced for those pairs */
	uint64_t pair_failed;	 /* of those, not delivered (unreachable/loop/wrong) */
	uint64_t nlinks;	 /* directed switch-to-switch links */
	uint64_t *disjoint_hist; /* [layers + 1]: pairs with exactly k edge-disjoint paths */
	double share_ge[9];	 /* share of pairs with >= k disjoint paths, k = 0..8 */
	double link_min, link_mean, link_max, link_cv; /* paths per directed switch link */
	uint64_t *link_load; /* [nlinks] paths per link, indexed like fabric->adj */
	uint64_t *link_load0; /* [nlinks] the same, destination base LIDs only (layer 0) */
	double link_mean0, link_max0; /* mean and max of link_load0 */
	/* links slower than the fastest switch link (ibf_link_rate_weights):
	 * how many, the most paths on one of them, the mean paths per link
	 * of the others, and the busiest link in paths x rate weight */
	uint64_t nslow;
	double slow_max, fast_mean, link_wmax;
	/* switch links and end-port cables of different rates: paths per link
	 * with each path counted as min(its two end ports' cable rates) / the
	 * link's rate (see routing/stats.c); demand 0 (one rate) leaves them 0 */
	int demand;
	double demand_mean, demand_max;
	uint64_t unrouted;   /* (switch, assigned LID) pairs whose trace does not
				       * deliver to the LID's port */
};
int ibf_path_stats_compute(const struct ibf_fabric *f, const struct ibf_routes *r,
			   struct ibf_path_stats *st, struct ibf_error *err);
void ibf_path_stats_free(struct ibf_path_stats *st);
int ibf_path_stats_write_json(const struct ibf_path_stats *st, FILE *out);
int ibf_path_stats_write_text(const struct ibf_path_stats *st, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
