/* Rail-aware path decision (h-ratio).  Pure arithmetic, no I/O: given the
 * health scores (integers 0..100, 100 idle, 0 blocked) of the rails and the
 * domains (servers) a GPU pair can use, choose the path class.  A path's
 * score is the product of the normalised scores of what it crosses. */
#ifndef IBF_RAIL_H
#define IBF_RAIL_H

#include "ibf_topology.h"
#include "ibf_routing.h"

enum ibf_rail_path {
	IBF_RAIL_D,	 /* same domain: stay on NVLink/NVSwitch */
	IBF_RAIL_R,	 /* same rail: stay on the rail */
	IBF_RAIL_RD,	 /* source rail first, then destination domain */
	IBF_RAIL_DR,	 /* source domain first, then destination rail */
	IBF_RAIL_REMOTE, /* d1 -> rail g3 -> d2 over a third rail */
};

/* Scores: -1 means unknown (missing entry); unknown scores count as the
 * caller's default (dflt, 0..100).  Out-of-range values are clamped. */
struct ibf_rail_scores {
	int nrails, ndomains;
	const int *rail;   /* [nrails] */
	const int *domain; /* [ndomains] */
	int dflt;
};

struct ibf_rail_choice {
	enum ibf_rail_path path;
	int via_rail; /* rail carrying the inter-domain hop (r/rd: g1, dr: g2, remote: g3) */
	double score; /* product of normalised scores of the chosen path */
	double rd, dr, remote; /* the alternatives' scores (remote: best third rail, 0 if none) */
	double gamma_src, gamma_dst;
};

/* Decide for GPU g1 of domain d1 to GPU g2 of domain d2.  Ties between rd
 * and dr go to prefer_rd (the configured default); a remote rail wins only
 * when strictly better than both.  Returns -1 on an index out of range. */
int ibf_rail_decide(const struct ibf_rail_scores *s, int d1, int g1, int d2, int g2, int prefer_rd,
		    struct ibf_rail_choice *out);

const char *ibf_rail_path_name(enum ibf_rail_path p);

/* ------------------------------------------------------------ registry */

/* Health scores as the registry holds them (file backend: rail/registry.c,
 * format in docs/formats.md): rails by their number (label), domains by
 * name, a timestamp and how long the scores stay valid; a stale or missing
 * registry makes hosts fall back to the configured default path. */
struct ibf_rail_registry {
	long long timestamp; /* seconds since the epoch of the last update, 0 never */
	long max_age;	     /* seconds the scores stay valid (0: forever) */
	int prefer_rd;	     /* default path and tie-break: 1 rd, 0 dr */
	int dflt;	     /* score of a rail/domain without an entry */
	int nrails;
	int *rail_label; /* ascending */
	int *rail_score;
	int ndomains;
	char **domain;
	int *domain_score;
};
void ibf_rail_registry_init(struct ibf_rail_registry *r);
void ibf_rail_registry_free(struct ibf_rail_registry *r);
int ibf_rail_registry_parse(const char *buf, size_t len, const char *name,
			    struct ibf_rail_registry *r, struct ibf_error *err);
int ibf_rail_registry_read(const char *path, struct ibf_rail_registry *r, struct ibf_error *err);
/* Atomic (temporary file + rename): readers never see a torn file. */
int ibf_rail_registry_write(const char *path, const struct ibf_rail_registry *r,
			    struct ibf_error *err);
/* Rail indexes best score first (ties: ascending label) into ord[nrails]. */
void ibf_rail_registry_by_score(const struct ibf_rail_registry *r, int *ord);
/* The h-ratio of GPU (domain index d, rail index g): H(rail)/H(domain), 1e9
 * for a blocked domain with a usable rail, 1 when both are blocked. */
double ibf_rail_registry_gamma(const struct ibf_rail_registry *r, int d, int g);
int ibf_rail_registry_set_rail(struct ibf_rail_registry *r, int label, int score);
int ibf_rail_registry_set_domain(struct ibf_rail_registry *r, const char *name, int score);
int ibf_rail_registry_find_rail(const struct ibf_rail_registry *r, int label);
int ibf_rail_registry_find_domain(const struct ibf_rail_registry *r, const char *name);

struct ibf_rail_decision {
	struct ibf_rail_choice c; /* via_rail is a rail label here */
	int stale;		  /* the registry is older than max_age (or never written) */
	int missing;		  /* a domain or rail of the pair has no entry */
	int fallback;		  /* the default path was taken (stale or missing) */
};
/* The path for GPU src_rail of domain src_dom to GPU dst_rail of dst_dom at
 * time now: d / r when the pair shares a domain / rail, else the h-ratio
 * decision, or the default path when the registry is stale or lacks the
 * pair's entries.  -1 on an internal inconsistency. */
/* 1 when the registry is stale at `now`: never written, older than
 * max_age, or dated more than a minute in the future. */
int ibf_rail_registry_stale(const struct ibf_rail_registry *r, long long now);
int ibf_rail_registry_decide(const struct ibf_rail_registry *r, long long now, const char *src_dom,
			     int src_rail, const char *dst_dom, int dst_rail,
			     struct ibf_rail_decision *out);

/* ------------------------------------------------------------ store */

/* The registry behind one location (rail/store.c, docs/rail.md): a file
 * path (the JSON file above, written atomically) or etcd://HOST:PORT[/PREFIX]
 * (etcd's v3 JSON gateway; default prefix /ibfab/rails/; needs libcurl at
 * build time, else open fails with IBF_ENOTSUP).  One store per thread. */
struct ibf_rail_store;
struct ibf_rail_store_opts {
	long ttl;	 /* etcd: lease TTL in seconds for written keys, 0 = no lease */
	long timeout_ms; /* etcd: per HTTP request, 0 = 5000 */
};
/* An etcd location etcd://HOST:PORT[/PREFIX] (n bytes, not NUL-terminated)
 * as the store uses it: *url "http://HOST:PORT" and *prefix, ending in '/'
 * (/ibfab/rails/ when there is none), both malloc'd; HOST of letters,
 * digits, '.', '-', '_', PORT digits 1..65535.  Else IBF_EINVAL naming the
 * location (*url and *prefix NULL). */
int ibf_rail_etcd_location(const char *loc, size_t n, char **url, char **prefix,
			   struct ibf_error *err);
struct ibf_rail_store *ibf_rail_store_open(const char *location,
					   const struct ibf_rail_store_opts *opts,
					   struct ibf_error *err);
/* Read the whole registry.  A file that does not exist and an unreachable
 * etcd are IBF_EIO; an etcd prefix without keys (never written, or expired
 * with its lease) is an empty registry that is stale (timestamp 0). */
int ibf_rail_store_load(struct ibf_rail_store *s, struct ibf_rail_registry *r,
			struct ibf_error *err);
/* Replace the registry: the file atomically; in etcd one transaction that
 * puts the changed keys and deletes stale ones, on the lease (granted on the
 * first save when opts.ttl > 0). */
int ibf_rail_store_save(struct ibf_rail_store *s, const struct ibf_rail_registry *r,
			struct ibf_error *err);
/* Read-modify-write: fn changes the registry as the location holds it now
 * (empty when there is none yet; fn returns 0 or an IBF_E* code) and the
 * result is saved.  In etcd the transaction only succeeds when no other
 * writer came in between, else it starts again from a fresh read (so
 * writers of different scores, e.g. the SM's rails and a node agent's
 * domain, never undo each other); a file is simply read and replaced.
 * Keys written without a TTL keep the lease the registry already has. */
typedef int (*ibf_rail_update_fn)(struct ibf_rail_registry *r, void *ctx);
int ibf_rail_store_update(struct ibf_rail_store *s, ibf_rail_update_fn fn, void *ctx,
			  struct ibf_error *err);
/* Renew the lease (etcd with a TTL; otherwise nothing).  IBF_EIO when it has
 * expired: its keys are gone and the next save writes them on a new lease. */
int ibf_rail_store_keepalive(struct ibf_rail_store *s, struct ibf_error *err);
void ibf_rail_store_close(struct ibf_rail_store *s);
const char *ibf_rail_store_name(const struct ibf_rail_store *s);
int ibf_rail_store_is_etcd(const char *location);
/* The registry held by an etcd /v3/kv/range reply for keys under prefix
 * (exposed for tests and fuzzing). */
int ibf_rail_etcd_parse_range(const char *buf, size_t len, const char *name, const char *prefix,
			      struct ibf_rail_registry *r, struct ibf_error *err);

/* ------------------------------------------------------------ structure */

/* A mapping file (see docs/rail.md) that overrides the detected domain and
 * rail of CAs.  Parsed on its own; CAs are matched when applied. */
struct ibf_rail_map_entry {
	int kind; /* 0 GUID (node or port), 1 node id, 2 node description */
	uint64_t guid;
	char *key;    /* 'i' + node id or 'd' + description (owned), NULL for GUIDs */
	char *domain; /* owned */
	int rail;     /* >= 0, or -1 = detect */
	long line;
};
struct ibf_rail_map {
	struct ibf_rail_map_entry *e;
	int n;
	char *name;
};
/* Parse a mapping file from memory (name is used in FILE:LINE errors). */
struct ibf_rail_map *ibf_rail_map_parse(const char *buf, size_t len, const char *name,
					struct ibf_error *err);
struct ibf_rail_map *ibf_rail_map_read(const char *path, struct ibf_error *err);
void ibf_rail_map_free(struct ibf_rail_map *m);

/* One GPU NIC port: a CA port attached to a switch. */
struct ibf_rail_gpu {
	int32_t node; /* CA node id */
	uint8_t port;
	int32_t domain; /* index into domain names */
	int32_t rail;	/* dense rail index */
	int32_t hint;	/* HCA index from the description / map / rank, -1 none */
	int32_t leaf;	/* switch node id it attaches to */
};

enum ibf_rail_sw_role { IBF_RAIL_SW_RAIL = 0, IBF_RAIL_SW_SPINE = 1, IBF_RAIL_SW_LOOSE = 2 };

struct ibf_rail_info {
	int ngpus, ndomains, nrails;
	struct ibf_rail_gpu *gpu; /* [ngpus], domain-major, then rail */
	char **domain;		  /* [ndomains] names, owned */
	int32_t *rail_label;	  /* [nrails] the HCA index / map number of each rail */
	int32_t *sw_rail;	  /* [nsw] rail of each switch, -1 when not in one rail */
	uint8_t *sw_role;	  /* [nsw] enum ibf_rail_sw_role */
	int nspines;		  /* switches joining two or more rails */
	/* Spine groups: spines that reach a common rail component (rail
	 * switches joined without passing a spine), directly or through
	 * other spines of the group.  Spines of different groups reach no
	 * common rail switch, so one group cannot stand in for another; a
	 * rail-optimized fabric, damaged or not, is one group.  sw_group[nsw]:
	 * the group of each spine, numbered in switch order of the groups'
	 * first spines; -1 for other switches. */
	int nspine_groups;
	int32_t *sw_group;
	int32_t *gpu_of_node;	  /* [nnodes] first GPU index of a CA node, -1 */
	/* what does not fit */
	int missing;	     /* (domain, rail) pairs without a GPU */
	int doubled;	     /* extra GPUs of one domain on one rail */
	int mismatched;	     /* GPUs whose HCA index differs from their leaf's rail */
	int unattached;	     /* CA ports without a switch peer */
	int rail_components; /* switch components after removing spines */
	int unmatched;	     /* map entries that name no node of the fabric (skipped) */
	long unmatched_line; /* the first of them, its line in the map */
	int in_switch;	     /* CAs left out: part of the switch they are cabled to */
	int routers;	     /* routers cabled to a switch, left out: no server's NIC */
};

/* Detect domains and rails in a finalized fabric; map may be NULL.
 * Returns 0, or a negative code (bad map reference: FILE:LINE error).  A map
 * entry that names no node of f (the server is off, or a typo) is skipped
 * and counted in ri->unmatched; a switch or a CA mapped twice is an error. */
int ibf_rail_detect(const struct ibf_fabric *f, const struct ibf_rail_map *map,
		    struct ibf_rail_info *ri, struct ibf_error *err);
void ibf_rail_info_free(struct ibf_rail_info *ri);
/* on[0..nrails) = 1 for each rail a spine of group g (every spine when
 * g < 0) is cabled to, through a switch of that rail; 0 for the others. */
void ibf_rail_group_rails(const struct ibf_fabric *f, const struct ibf_rail_info *ri, int g,
			  uint8_t *on);
/* Domains with two or more GPUs; 0 means not a rail fabric (every server
 * has one NIC on it, so its "rails" are only device numbers). */
int ibf_rail_multi_gpu_domains(const struct ibf_rail_info *ri);
/* GPU g (index into ri->gpu) cabled off its rail: to a switch of no rail
 * (a spine), or to a rail other than the one its device index names.
 * Returns 1 and writes what is wrong, with the switch and port its cable
 * reaches, into buf ("cabled to spine00 port 5, a spine, not to a rail
 * switch (...)", "reaches another rail: cabled to rail02-l00 port 11 (rail
 * 2), its device index is rail 1's"); 0 (buf "") when it is where it
 * belongs.  buf may be NULL. */
int ibf_rail_gpu_misfit(const struct ibf_fabric *f, const struct ibf_rail_info *ri, int g,
			char *buf, size_t len);

/* A rail switch the structure implies but the fabric lacks (rail info).
 * A whole rail (rail -1): its device number lies between those of two
 * present rails (only while at most as many numbers are skipped as there
 * are rails), or CAs without any cable carry it in their description
 * ("HOST mlx5_N" of a known server).  One leaf of a present rail: two or
 * more servers that share a leaf on another rail (like_sw, every server of
 * it) all lack a GPU on this rail.  A missing cable (one server) or a
 * missing spine is not a missing leaf. */
struct ibf_rail_gap {
	int32_t label;	 /* rail label (device number / map number) */
	int32_t rail;	 /* dense rail index, -1: no switch of this rail is left */
	int32_t like_sw; /* switch index of the other rail's leaf, -1 for a whole rail */
	int ndomains;	 /* servers without a GPU on it (the leaf's servers) */
	int nics;	 /* CAs without a cable that carry this device number */
	int between;	 /* whole rail: skipped between two present rails */
};
/* Gaps of a detected fabric, in order: whole rails by label, then leaves by
 * rail and switch.  *out is malloc'ed (NULL when none). */
int ibf_rail_gaps(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
		  struct ibf_rail_gap **out, int *n, struct ibf_error *err);

/* ------------------------------------------------------------ tables */

/* Rail properties of forwarding tables (rail/routecheck.c).  Paths are
 * traced from a GPU's leaf to every LID (all LMC layers) of every GPU of
 * another domain.  Counts are paths (pair x layer). */
struct ibf_rail_route_report {
	uint64_t same_paths, same_failed; /* same rail: traced, not delivered */
	uint64_t same_confinable;	  /* same rail, both leaves joined inside the rail */
	uint64_t same_left;		  /* of those, delivered through a switch of
					     * another rail or a spine */
	uint32_t same_max_hops, cross_max_hops;
	uint64_t cross_paths, cross_failed; /* different rails, one switch component */
	uint64_t split_paths;		    /* no cable path (separate switch components) */
	int nspines;
	uint32_t *spine_sw;    /* [nspines] switch index of each spine */
	uint64_t *spine_paths; /* [nspines] cross-rail paths through it */
	uint64_t lmc_pairs;    /* cross-rail GPU pairs with >1 layer, delivered */
	uint64_t lmc_distinct; /* of those, layers over min(layers, spines
					     * cabled to both leaves) distinct spines */
};
/* cables: the fabric whose switch cables the tables are judged on, NULL:
 * f.  ibf_route_lean's copy of f (same nodes, ports, LIDs and switch
 * indices, without the cables the engine routes as if lost) makes a leaf
 * joined to a spine only over such a cable not count that spine among
 * those its layers can use, nor such a cable join two leaves of a rail.
 * Paths are traced on f either way (a table that uses the cable still
 * delivers). */
int ibf_rail_route_check(const struct ibf_fabric *f, const struct ibf_fabric *cables,
			 const struct ibf_rail_info *ri, const struct ibf_routes *r,
			 struct ibf_rail_route_report *rep, struct ibf_error *err);
void ibf_rail_route_report_free(struct ibf_rail_route_report *rep);

/* ------------------------------------------------------------ health */

/* Rail health from PerfMgr counters (rail/health.c, docs/rail.md "Health
 * service").  Per port of a rail switch and per sweep: W = PortXmitWait
 * ticks, D = PortXmitData words (4 octets) since the last reading;
 *   congestion c = k*W / max(k*W + D, V)      (k = wait_weight, V = min_words)
 *   port score    = 100 * (1 - c)
 *   raw rail score = the port score at the configured percentile, counted
 *                    from the best (100: the worst port of the rail)
 *   rail score     = alpha * raw + (1 - alpha) * previous (EWMA; the first
 *                    measured sweep starts it at raw)
 * A rail without a usable port in a sweep keeps its previous score, or dflt
 * until it was ever measured. */
struct ibf_health_opts {
	double alpha;	    /* EWMA weight of the newest sweep, (0, 1] (default 0.5) */
	double wait_weight; /* k: data words one XmitWait tick counts as, > 0 (default 1) */
	double min_words;   /* V: denominator floor per port and sweep (default 65536) */
	int percentile;	    /* 1..100 (default 90) */
	int dflt;	    /* score of a rail never measured, 0..100 (default 100) */
	/* spines (switches joining rails) are scored alike; a spine is
	 * avoided once its score stayed below avoid_below for avoid_sweeps
	 * sweeps, and used again once above avoid_above (hysteresis);
	 * avoid_below 0: never (default; avoid_sweeps 3, avoid_above 60) */
	int avoid_below, avoid_sweeps, avoid_above;
	/* at most avoid_max_pct % of the spines of each spine group (rounded
	 * down; ibf_rail_info.sw_group), and of the spines cabled to each
	 * rail, are avoided at once, so the rest never takes all the
	 * traffic; when more qualify, the lowest scores go first (lower
	 * index on ties) and the others are held until a slot of their
	 * group and rails frees (0..100, default 50) */
	int avoid_max_pct;
};
void ibf_health_opts_default(struct ibf_health_opts *o);

enum ibf_health_counter { IBF_HEALTH_DATA = 0, IBF_HEALTH_WAIT = 1 };
enum ibf_health_mode {
	IBF_HEALTH_ABS,	    /* a counter reading: the delta is taken against the last one */
	IBF_HEALTH_DELTA,   /* already a delta (OpenSM's events); >= 2^63 means the
			     * counter went down (reset): no delta; the first
			     * one of a port is against zero: not used */
	IBF_HEALTH_INVALID, /* reported, but not usable (e.g. a first reading) */
};
/* what ibf_health_sample did */
enum ibf_health_result {
	IBF_HEALTH_IGNORED = 0, /* not a port of a rail switch (or bad port) */
	IBF_HEALTH_STORED = 1,
	IBF_HEALTH_SWEEP = 2, /* stored, and a sweep was closed (scores updated) */
};

struct ibf_health;
/* The rail switch and spine ports of a fabric (every connected port 1..n
 * of a switch with sw_rail >= 0 or the spine role); domain names are kept
 * for ibf_health_fill. */
struct ibf_health *ibf_health_new(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
				  const struct ibf_health_opts *o, struct ibf_error *err);
void ibf_health_free(struct ibf_health *h);
/* One counter of one port (node GUID, port number).  Sweep end: a sweep
 * is closed when every rail port has reported both counters, or before a
 * counter that was already reported in the open sweep is stored (the next
 * sweep has begun; this also closes a sweep in which a port never
 * answered). */
enum ibf_health_result ibf_health_sample(struct ibf_health *h, uint64_t guid, int port,
					 enum ibf_health_counter which, uint64_t value,
					 enum ibf_health_mode mode);
/* After a fabric change: the smoothed scores of src's rails (by label), its
 * counter readings (by port) and sweep count go to dst; rails src had (or
 * had already lost) that dst lacks are dst's gone rails. */
void ibf_health_carry(struct ibf_health *dst, const struct ibf_health *src);
/* Rails seen before a fabric change that the fabric now lacks (no switch or
 * GPU of the rail left): count and labels, ascending (-1 out of range).
 * ibf_health_fill publishes them at score 0 until they come back. */
/* Rails known to exist (labels[n], e.g. every rail number a rail mapping
 * file names) that h's fabric lacks become gone rails too: a rail lost
 * before the first sweep is published at 0 like one lost later.  Negative
 * labels are skipped.  0, or IBF_ENOMEM (h unchanged). */
int ibf_health_expect(struct ibf_health *h, const int32_t *labels, int n);
/* ibf_health_expect with every rail number of a mapping file, ri being the
 * structure detected with it: unless no line of the map names a node of the
 * fabric (ri->unmatched == map->n: another fabric's map, or all typos),
 * when its numbers say nothing about this fabric's rails and 1 is returned
 * (h unchanged).  Else 0, or IBF_ENOMEM. */
int ibf_health_expect_map(struct ibf_health *h, const struct ibf_rail_map *map,
			  const struct ibf_rail_info *ri);
int ibf_health_ngone(const struct ibf_health *h);
int ibf_health_gone_label(const struct ibf_health *h, int i);
/* Close the open sweep now (e.g. at shutdown); 1 when it held samples. */
int ibf_health_close(struct ibf_health *h);
int ibf_health_nrails(const struct ibf_health *h);
int ibf_health_nports(const struct ibf_health *h);
/* smoothed score of dense rail g (0..100), its label, and whether it was
 * ever measured; ibf_health_last_ports counts rail ports only */
int ibf_health_score(const struct ibf_health *h, int g);
int ibf_health_label(const struct ibf_health *h, int g);
int ibf_health_measured(const struct ibf_health *h, int g);
/* sweeps closed so far, and ports scored in the last one */
unsigned long ibf_health_sweeps(const struct ibf_health *h);
int ibf_health_last_ports(const struct ibf_health *h);
/* Put every rail's score (gone rails at 0) and every detected domain into
 * r: the domain's score from doms (a registry read from the hosts' file;
 * NULL: none), else r->dflt.  Returns 0 or IBF_ENOMEM. */
int ibf_health_fill(const struct ibf_health *h, const struct ibf_rail_registry *doms,
		    struct ibf_rail_registry *r);
/* Spines: count, smoothed score, node GUID, avoided now; whether the set of
 * avoided spines changed since the last call (cleared); the GUIDs of the
 * avoided spines into out[max] (returns how many there are). */
int ibf_health_nspines(const struct ibf_health *h);
int ibf_health_spine_score(const struct ibf_health *h, int k);
uint64_t ibf_health_spine_guid(const struct ibf_health *h, int k);
int ibf_health_spine_avoided(const struct ibf_health *h, int k);
/* spine k stayed low long enough to be avoided but the avoid_max_pct cap
 * holds it in use */
int ibf_health_spine_held(const struct ibf_health *h, int k);
/* Which cap holds spine k: 0 (not held), IBF_HELD_GROUP (its spine group
 * has no slot left: *size the group's spines, *cap its slots) or
 * IBF_HELD_RAIL (the group has one, but a rail the spine is cabled to does
 * not: *rail that rail's label, *size the spines cabled to it, *cap its
 * slots).  Any pointer may be NULL. */
#define IBF_HELD_GROUP 1
#define IBF_HELD_RAIL 2
int ibf_health_spine_held_by(const struct ibf_health *h, int k, int *rail, int *cap, int *size);
/* The same for a log line, into buf: "held by the cap of rail 0: 1 of its
 * 2 spines", "held by the cap of group 1 (rails 2,3): 1 of its 2 spines",
 * or on a fabric of one group "held by the cap: 2 of the 4 spines"; empty
 * when not held.  Returns ibf_health_spine_held_by's answer. */
int ibf_health_held_note(const struct ibf_health *h, int k, char *buf, size_t len);
/* Spine groups (ibf_rail_info.sw_group; 1 on a fabric whose spines all
 * share the rails, 0 without spines): the cap counts each on its own.
 * The group of spine k (-1 out of range), spines in group g, and the rail
 * labels its spines are cabled to, comma-separated into buf (whole labels
 * only; returns how many rails there are). */
int ibf_health_ngroups(const struct ibf_health *h);
int ibf_health_spine_group(const struct ibf_health *h, int k);
int ibf_health_group_size(const struct ibf_health *h, int g);
int ibf_health_group_rails(const struct ibf_health *h, int g, char *buf, size_t len);
/* 1 once after the set of held spines changed (then cleared) */
int ibf_health_held_changed(struct ibf_health *h);
int ibf_health_avoid_changed(struct ibf_health *h);
int ibf_health_avoid_list(const struct ibf_health *h, uint64_t *out, int max);
/* The port score of one port over one sweep (the formula above). */
double ibf_health_port_score(const struct ibf_health_opts *o, uint64_t data, uint64_t wait);

#endif
