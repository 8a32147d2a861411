/* ibfab.conf: the engine options file shared by the OpenSM plugin and the
 * command line.
 *
 * OpenSM-style "key value" lines; '#' starts a comment (at the start of a
 * line, or after whitespace following the value); blank lines are ignored.
 * Keys (see docs/plugin.md for the full description):
 *
 *   min_path_len, max_path_len   hop window for layers >= 1:
 *                                "3" (absolute), "dist+1" / "+1" / "dist"
 *                                (relative to the pair's distance),
 *                                "diameter+1" / "diameter" (relative to the
 *                                fabric diameter)
 *   max_paths_per_layer          cap on non-minimal paths per layer
 *                                (0 or "unlimited": no cap)
 *   layer0_balance               base | all: what layered's busiest-link
 *                                cooling balances layer 0 on with LMC >= 1
 *   seed                         random seed (decimal or 0x hex)
 *   threads                      worker threads (>= 1, or "auto" / 0)
 *   deadlock                     none | dfsssp | coloring | auto
 *   max_vls                      VL cap for deadlock avoidance (0 = no cap)
 *   best_effort                  TRUE | FALSE
 *   log_level                    error | info | verbose | debug (or 0..3)
 *   dmodk_roots                  file of root switch GUIDs for dmodk ("none")
 *   stable_reroute               TRUE | FALSE | failures | keep: reroute only what a
 *                                change broke; TRUE: what came back takes the
 *                                columns a fresh run puts on it (failures: a
 *                                fresh run when something came back; keep: keep
 *                                every column that still works)
 *   rail_registry                health registry the plugin writes from PerfMgr
 *                                counters ("none": no health service)
 *   rail_domain_scores           registry file the hosts write their domain
 *                                scores into ("none")
 *   rail_map                     rail mapping file for rail detection ("none")
 *   rail_health_alpha            EWMA weight of the newest sweep, (0, 1]
 *   rail_health_wait_weight      data words one XmitWait tick counts as, > 0
 *   rail_health_min_words        congestion denominator floor per port, >= 0
 *   rail_health_percentile       port score percentile of a rail, 1..100
 *   rail_avoid_below             hratio avoids a spine whose score stayed below
 *                                this (0 = never) for rail_avoid_sweeps sweeps,
 *                                until it is above rail_avoid_above
 *   rail_avoid_max               at most this % of the spines of each spine
 *                                group avoided at once
 *
 * Spellings of the SPCL OpenSM fork: lnmp_max_num_paths (= max_paths_per_layer),
 * lnmp_min_path_len / lnmp_max_path_len (absolute hops),
 * layers_remove_deadlocks (TRUE = deadlock dfsssp, FALSE = deadlock coloring),
 * dfsssp_max_vls (= max_vls), dfsssp_best_effort (= best_effort).
 *
 * Unknown keys and bad values are errors reported as "FILE:LINE: message".
 * No OpenSM dependency: the plugin and the CLI both use this.
 */
#ifndef IBF_CONF_H
#define IBF_CONF_H

#include "ibf_dl_scheme.h"
#include "ibf_routing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IBF_CONF_PATH_MAX 512

/* stable_reroute failures: stable reroutes after losses only; a sweep in
 * which a switch or a switch-to-switch cable appears routes from scratch */
#define IBF_STABLE_FAILURES 2
/* stable_reroute keep: every column that still works is kept, also when a
 * switch or switch cable came back (it stays idle; IBF_STABLE_MODE_KEEP) */
#define IBF_STABLE_KEEP 3

struct ibf_conf {
	struct ibf_win_bound min_len;	     /* default {IBF_WIN_DIST, +1} */
	struct ibf_win_bound max_len;	     /* default {IBF_WIN_DIAM, +1} */
	long max_paths_per_layer;	     /* <= 0: no cap (default 0) */
	int layer0_balance;		     /* enum ibf_layer0_balance (default base) */
	uint64_t seed;			     /* default 0 */
	int threads;			     /* >= 1; 0 = one per online CPU (default 1) */
	int deadlock;			     /* enum ibf_deadlock_scheme (default none) */
	int max_vls;			     /* 0 = no cap: every data VL the hardware has
					* (OpenSM's operational VLs; offline, 8), else
					* 1..15 (default 0) */
	int best_effort;		     /* 0/1 (default 0) */
	int log_level;			     /* IBF_LOG_* (default IBF_LOG_INFO) */
	int stable_reroute;		     /* 0/1: keep the columns of the last tables that
					* still work, but move those a fresh run puts on
					* what came back (default 1; IBF_STABLE_MODE_RESTORE);
					* IBF_STABLE_FAILURES: only when no switch or switch
					* cable came back; IBF_STABLE_KEEP: all of them */
	char dmodk_roots[IBF_CONF_PATH_MAX]; /* GUID file naming the fat tree's roots ("" = find
					* the levels from the structure) */
	char stable_state_dir[IBF_CONF_PATH_MAX]; /* the plugin keeps the healthy tables H
					* and their fabric here across restarts
					* ("" = off, the default) */

	/* rail health service (docs/rail.md): "" = off / none */
	char rail_registry[IBF_CONF_PATH_MAX];
	char rail_domain_scores[IBF_CONF_PATH_MAX];
	char rail_map[IBF_CONF_PATH_MAX];
	double rail_health_alpha;	/* default 0.5 */
	double rail_health_wait_weight; /* default 1 */
	double rail_health_min_words;	/* default 65536 */
	int rail_health_percentile;	/* default 90 */
	int rail_avoid_below;		/* 0 = never (default) */
	int rail_avoid_sweeps;		/* default 3 */
	int rail_avoid_above;		/* default 60 */
	int rail_avoid_max;		/* % of each spine group, default 50 */

	/* where the settings came from: the file read ("" = defaults) and the
	 * lines that set the deadlock scheme and the window bounds (0 = default
	 * or the command line), for error messages */
	char source[IBF_CONF_PATH_MAX];
	long deadlock_line;
	long min_len_line, max_len_line; /* lines of the window bounds (0 = default) */
	long rail_avoid_line;		 /* last line of rail_avoid_below / _above */
	int lines; /* settings lines read */
};

/* Defaults (the window comes from ibf_route_opts_default). */
void ibf_conf_default(struct ibf_conf *c);

/* Read a file over c's current values (call ibf_conf_default first).
 * Returns 0; IBF_EIO when the file cannot be read; IBF_EPARSE with
 * FILE:LINE for unknown keys and bad values.  (Every deadlock scheme is
 * accepted; deadlock/ decides per run whether the VLs suffice.) */
int ibf_conf_read(const char *path, struct ibf_conf *c, struct ibf_error *err);
/* The same from memory; name is used in error messages. */
int ibf_conf_parse(const char *buf, size_t len, const char *name, struct ibf_conf *c,
		   struct ibf_error *err);

/* One setting by its ibfab.conf key, as the command line gives it (the same
 * parser and rules as the file; origin, e.g. "--min-len", names it in error
 * messages), then the semantic checks. */
int ibf_conf_set(struct ibf_conf *c, const char *key, const char *value, const char *origin,
		 struct ibf_error *err);

/* Semantic checks (window sanity, unsupported features); ibf_conf_read and
 * ibf_conf_parse already call this. */
int ibf_conf_check(const struct ibf_conf *c, struct ibf_error *err);

/* Engine options from c: seed, threads (0 resolved to the CPU count),
 * window, path cap.  Other fields of o (layers, log) are set to their
 * defaults; the caller fills log/log_ctx. */
void ibf_conf_to_route_opts(const struct ibf_conf *c, struct ibf_route_opts *o);

/* ibf_conf_to_route_opts, and the dmodk roots file read into *roots
 * (caller frees; NULL when none), pointed to by o->roots. */
int ibf_conf_route_opts(const struct ibf_conf *c, struct ibf_route_opts *o, uint64_t **roots,
			struct ibf_error *err);

/* The options for one engine: ibf_conf_route_opts when the engine uses the
 * dmodk roots (dmodk), else ibf_conf_to_route_opts with *roots = NULL, so a
 * dmodk_roots file that cannot be read does not stop the other engines.  A
 * roots file error names the key. */
int ibf_conf_engine_opts(const struct ibf_conf *c, const char *engine, struct ibf_route_opts *o,
			 uint64_t **roots, struct ibf_error *err);

/* The ibf_route_stable_mode mode of c's stable_reroute (TRUE: restore,
 * failures: fresh, keep: keep); meaningful when stable_reroute is not 0. */
int ibf_conf_stable_mode(const struct ibf_conf *c);

/* Format one window bound: "3", "dist+1", "diameter+0", ... */
const char *ibf_win_bound_format(const struct ibf_win_bound *b, char *buf, size_t len);

/* One-line summary for logs:
 * "min_path_len dist+1, max_path_len diameter+1, max_paths_per_layer unlimited,
 *  seed 0, threads 1, deadlock none, max_vls 0, best_effort FALSE, log_level info".
 * Returns buf. */
const char *ibf_conf_format(const struct ibf_conf *c, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
