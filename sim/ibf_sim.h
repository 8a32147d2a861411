/* ibfab offline simulator, flow level (docs/sim.md).
 *
 * Ranks are placed on host ports, a traffic pattern gives phases of flows
 * between ranks, every flow is traced through the forwarding tables (the
 * routing module's tables: any engine's, or a dump read back from a fabric)
 * and gets its max-min fair rate over the links' capacities (width x speed
 * of each directed link, host links included).  The maximum achievable
 * throughput of a phase's demands is bounded by Garg-Koenemann (both with
 * the tables' layer paths and over any path), or solved exactly by GLPK
 * when the build has it.  Knows routing only through struct ibf_routes. */
#ifndef IBF_SIM_H
#define IBF_SIM_H

#include "ibf_fattree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ the network */

/* Links are directed and named by the global index of their sending port
 * (fabric->nodes[n].port_off + p), so there are fabric->nports_total ids;
 * parallel cables are separate links. */
struct ibf_sim_net {
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	uint32_t nhosts;	  /* end ports (CA/router ports cabled to a switch) */
	uint32_t in_switch;	  /* CA ports inside their switch, no hosts (ibf_end_ports) */
	struct ibf_endport *host; /* [nhosts] in the order of ibf_end_ports() */
	uint32_t *up;		  /* [nhosts] link host -> switch */
	uint32_t *down;		  /* [nhosts] link switch -> host */
	uint32_t nlinks;	  /* fabric->nports_total */
	double *cap;		  /* [nlinks] Gb/s, 0 for ports without a cable */
	uint8_t *kind;		  /* [nlinks] 0 none, 1 switch-switch, 2 host link */
	uint32_t assumed;	  /* cabled ports whose width or speed was unknown */
	double assumed_gbps;	  /* the rate given to those */
	int order;		  /* host order used (enum ibf_cong_order) */
	int32_t *host_of_port;	  /* [nlinks] host index of an end port, -1 else */
	int threads;		  /* tracing workers (0 = 1); never changes results */
	double fluid_eps;	  /* completions within this relative time of the
				   * earliest are one event (0: 1e-9) */
};
int ibf_sim_net_init(struct ibf_sim_net *n, const struct ibf_fabric *f, const struct ibf_routes *r,
		     int order, struct ibf_error *err);
void ibf_sim_net_free(struct ibf_sim_net *n);

/* Trace host a -> host b's LID + layer (clamped to b's LMC) through the
 * tables: the links crossed, host links included, into links[max];
 * returns the count, or -1 when the flow is not delivered to b (no entry,
 * loop, delivered elsewhere, longer than max). */
int ibf_sim_trace(const struct ibf_sim_net *n, uint32_t a, uint32_t b, uint32_t layer,
		  uint32_t *links, int max);

/* ------------------------------------------------------------ placement */

enum ibf_sim_place { IBF_PLACE_LINEAR = 0, IBF_PLACE_RANDOM = 1, IBF_PLACE_FILE = 2 };

/* rank -> host index.  LINEAR: slot r / ppn in host order; RANDOM: a seeded
 * shuffle of the host x ppn slots; FILE: lines "RANK HOST[:PORT]" (HOST a
 * node description, its first word, a node name or a node GUID; PORT the
 * CA port, default the first cabled one; '#' comments).  nranks 0 = every
 * slot (hosts x ppn; FILE: the file's ranks, which must be 0..n-1). */
struct ibf_sim_placement {
	uint32_t nranks;
	uint32_t *host; /* [nranks] */
	uint32_t ppn;
};
int ibf_sim_place(const struct ibf_sim_net *n, int how, uint32_t nranks, uint32_t ppn,
		  uint64_t seed, const char *file, struct ibf_sim_placement *pl,
		  struct ibf_error *err);
/* The FILE form from memory (path names it in errors). */
int ibf_sim_place_parse(const struct ibf_sim_net *n, const char *buf, size_t len, const char *path,
			struct ibf_sim_placement *pl, struct ibf_error *err);
void ibf_sim_placement_free(struct ibf_sim_placement *pl);

/* ------------------------------------------------------------ patterns */

/* One flow between ranks; demand 0 = elastic (takes what max-min gives),
 * else the rate (Gb/s) it asks for at most; bytes 0 = the phase's bytes,
 * else what this flow moves (traffic files give each flow its own). */
struct ibf_sim_flow {
	uint32_t src, dst;
	double demand;
	double bytes;
};
/* One phase: flows that run at the same time, each moving `bytes` (or its
 * own bytes, the largest of which is then `bytes`); the phase happens
 * `repeat` times in the pattern. */
struct ibf_sim_phase {
	struct ibf_sim_flow *flow;
	uint64_t nflows, cap;
	double bytes;
	uint32_t repeat;
	char label[48];
};

enum ibf_sim_pattern_id {
	IBF_PAT_SHIFT,
	IBF_PAT_SHIFTS,
	IBF_PAT_PERM,
	IBF_PAT_A2A,
	IBF_PAT_A2A_PHASED,
	IBF_PAT_PAIRWISE,
	IBF_PAT_CUMULATIVE,
	IBF_PAT_RANDPAIR,
	IBF_PAT_BISECT,
	IBF_PAT_RING,
	IBF_PAT_RECDBL,
	IBF_PAT_BRUCK,
	IBF_PAT_BCAST,
	IBF_PAT_HIER,
	IBF_PAT_ADVERSARIAL,
	IBF_PAT_MIX,
	IBF_PAT_FILE,
};
struct ibf_sim_pattern {
	int id;		/* enum ibf_sim_pattern_id */
	uint32_t shift; /* SHIFT */
	uint32_t count; /* PERM, BISECT, RANDPAIR: instances (defaults 10) */
	uint64_t seed;
	double bytes;	  /* message size per flow (collectives: the vector) */
	int mix;	  /* MIX: 1..5 = C1..C5 */
	double acc_gbps;  /* MIX: accelerator injection rate (0: host link / ppn) */
	double mice_gbps; /* ADVERSARIAL: demand of each small flow (0: 1 % of a host link) */
	uint32_t mice;	  /* ADVERSARIAL: small flows per host (default 4) */
	const char *file; /* FILE: the traffic file (points into the spec) */
	uint64_t mem_limit; /* bytes a phase may take (0: ibf_mem_limit_get's,
			     * else the smaller of the two); a phase with more
			     * flows than fit at about 192 bytes each is
			     * refused (IBF_ENOMEM) */
};
/* "shift:C", "shifts", "perm[:K]", "a2a", "a2a-phased", "pairwise",
 * "cumulative", "random-pairwise[:K]", "bisection[:K]", "ring", "recdbl",
 * "bruck", "bcast", "hier", "adversarial", "mix:C1".."mix:C5",
 * "file:PATH" (p->file points into s, which must outlive p). */
int ibf_sim_pattern_parse(const char *s, struct ibf_sim_pattern *p, struct ibf_error *err);
const char *ibf_sim_pattern_name(int id);

/* The memory the process may use (sim/memlimit.c): the smallest of
 * physical memory, the cgroup v2 memory.max and cgroup v1
 * memory.limit_in_bytes of the process's cgroup and its ancestors, and
 * RLIMIT_AS / RLIMIT_DATA.  root is put in front of /proc/self/cgroup and
 * /sys/fs/cgroup (NULL: the environment variable IBFAB_CGROUP_ROOT, or
 * none); bytes is UINT64_MAX when nothing is known. */
enum {
	IBF_MEMLIM_NONE = 0,
	IBF_MEMLIM_PHYS,
	IBF_MEMLIM_CGROUP2,
	IBF_MEMLIM_CGROUP1,
	IBF_MEMLIM_AS,
	IBF_MEMLIM_DATA,
	IBF_MEMLIM_CALLER, /* not found here: a limit the caller gives (mem_limit) */
};
#define IBF_MEM_LIMIT_PATH 512
struct ibf_mem_limit {
	uint64_t bytes;
	int source;			     /* IBF_MEMLIM_* of the smallest */
	char where[IBF_MEM_LIMIT_PATH + 64]; /* a cgroup limit's file, else "" */
};
void ibf_mem_limit_get(const char *root, struct ibf_mem_limit *m);
/* The parsers under it, reading memory.  A cgroup limit file's contents
 * (memory.max, memory.limit_in_bytes): the limit in bytes, or 0 when it is
 * to be ignored (empty, "max", not only decimal digits before trailing
 * newlines and blanks, 0, at least 2^62). */
uint64_t ibf_cgroup_limit_parse(const char *buf, size_t n);
/* One line of /proc/self/cgroup (without its newline): IBF_MEMLIM_CGROUP2
 * for the v2 line "0::PATH", IBF_MEMLIM_CGROUP1 for a v1 line whose
 * controllers include memory, else 0; *path = the offset of PATH in line. */
int ibf_cgroup_line_parse(const char *line, size_t n, size_t *path);
/* "physical memory", "cgroup v2 memory.max", ... */
const char *ibf_mem_limit_source_name(int source);

/* Calls fn once per phase (the phase's memory is reused after fn returns).
 * Needs the placement (hierarchy and node sharing) and the network
 * (adversarial pairs switches far apart); fn returns non-zero to stop. */
typedef int (*ibf_sim_phase_fn)(void *ctx, const struct ibf_sim_phase *ph, uint32_t index,
				uint32_t nphases);
int ibf_sim_pattern_run(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			const struct ibf_sim_pattern *p, ibf_sim_phase_fn fn, void *ctx,
			struct ibf_error *err);

/* A traffic matrix the user writes (file:PATH; docs/formats.md): lines
 * "SRC DST BYTES [PHASE]", SRC and DST a rank number (< the placement's
 * ranks) or a host (HOST[:PORT] as in placement files: its lowest rank),
 * BYTES > 0 with an optional k/KiB, M/MiB, G/GiB suffix, PHASE an integer
 * >= 0 (default 0); '#' comments and blank lines.  A flow from a rank to
 * itself is an error.  Flows are kept sorted by phase, file order within
 * a phase.  Errors carry path:line. */
struct ibf_sim_traffic_flow {
	uint32_t src, dst; /* ranks */
	uint32_t phase;
	double bytes;
};
struct ibf_sim_traffic {
	uint64_t n;
	struct ibf_sim_traffic_flow *fl;
	uint32_t nphases; /* distinct phase numbers */
};
int ibf_sim_traffic_parse(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			  const char *buf, size_t len, const char *path, struct ibf_sim_traffic *t,
			  struct ibf_error *err);
int ibf_sim_traffic_read(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			 const char *path, struct ibf_sim_traffic *t, struct ibf_error *err);
void ibf_sim_traffic_free(struct ibf_sim_traffic *t);
/* One phase per distinct phase number, in increasing order, labelled
 * "phase N"; each flow moves its own bytes (the phase's bytes: the
 * largest).  fn as for ibf_sim_pattern_run. */
int ibf_sim_traffic_run(const struct ibf_sim_traffic *t, ibf_sim_phase_fn fn, void *ctx,
			struct ibf_error *err);

/* ------------------------------------------------------------ layers */

enum ibf_sim_layers {
	IBF_LAYERS_RR,
	IBF_LAYERS_HASH,
	IBF_LAYERS_RANDOM,
	IBF_LAYERS_SPLIT,
	IBF_LAYERS_FIXED
};
struct ibf_sim_layer_policy {
	int how;	  /* enum ibf_sim_layers */
	uint32_t layer;	  /* FIXED */
	uint64_t seed;	  /* RANDOM, HASH */
	double msg_bytes; /* RR: message size a flow is cut into (default 64 KiB) */
};
/* "rr", "hash", "random", "split", "layer:J".
 *   rr      a flow is cut into messages of msg_bytes; each source hands its
 *           messages to its destination LIDs in turn (Open MPI's default
 *           for ports with several LIDs), so a flow of k messages spreads
 *           evenly over min(k, 2^LMC) layers (a power of two)
 *   hash    one layer per flow from a hash of (source, destination, seed)
 *   random  one seeded random layer per flow
 *   split   every flow evenly over all 2^LMC layers
 *   layer:J every flow on layer J (clamped to the destination's LMC) */
int ibf_sim_layers_parse(const char *s, struct ibf_sim_layer_policy *lp, struct ibf_error *err);

/* ------------------------------------------------------------ max-min fair rates */

struct ibf_sim_phase_result {
	uint64_t flows;	  /* flows through the network */
	uint64_t local;	  /* flows between ranks on one host port (not simulated) */
	double aggregate; /* sum of rates, Gb/s */
	double min_rate, mean_rate, median_rate, max_rate;
	double inj_bound;	    /* aggregate with only the host links as constraints */
	double max_util, mean_util; /* switch-switch links (mean over all of them) */
	double max_host_util;
	double time_us;	     /* until the last counted flow is done, microseconds */
	double demand_total; /* sum of demands of capped flows (0: elastic only) */
	/* flow completion times of the counted flows (the elastic ones when
	 * there are any), microseconds from the phase's start: the flows'
	 * rates are re-solved as flows finish (fluid model); time_us is the
	 * largest */
	double fct_mean_us, fct_p50_us, fct_p99_us;
	uint64_t fluid_steps; /* max-min re-solves after completions */
};
/* Solve one phase: trace flows (layer policy), max-min fair rates at the
 * phase's start, then the flows' completion times as rates are re-solved
 * when flows finish.  rates (optional, [nflows] in the phase's order,
 * local flows 0) and link load (optional, [nlinks] Gb/s) are filled when
 * non-NULL, both at the phase's start. */
int ibf_sim_maxmin_phase(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			 const struct ibf_sim_phase *ph, const struct ibf_sim_layer_policy *lp,
			 struct ibf_sim_phase_result *res, double *rates, double *load,
			 struct ibf_error *err);

/* ------------------------------------------------------------ maximum achievable throughput */

enum ibf_mat_mode { IBF_MAT_ROUTING = 0, IBF_MAT_ANY = 1 };
enum ibf_mat_method { IBF_MAT_GK = 0, IBF_MAT_LP = 1 };
struct ibf_mat_opts {
	int mode;	     /* ROUTING: split over the tables' layer paths; ANY: any path */
	int method;	     /* GK approximation, or the exact LP (needs GLPK) */
	double eps;	     /* GK accuracy (default 0.05) */
	uint32_t max_phases; /* GK cap (default 2000) */
};
void ibf_mat_opts_default(struct ibf_mat_opts *o);
/* Largest lambda with every flow's demand (elastic flows: demand 1) carried
 * at lambda x demand at once.  lo is feasible (a routing exists), hi an
 * upper bound from the dual; LP gives lo == hi.  throughput = lo x sum of
 * demands in Gb/s. */
struct ibf_mat_result {
	double lo, hi;
	double throughput_lo, throughput_hi;
	double host_bound; /* lambda allowed by host links alone */
	uint32_t phases;
	uint64_t commodities;
	int exact;
};
int ibf_sim_mat(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
		const struct ibf_sim_phase *ph, const struct ibf_mat_opts *o,
		struct ibf_mat_result *res, struct ibf_error *err);
int ibf_sim_have_lp(void);

#ifdef __cplusplus
}
#endif
#endif
