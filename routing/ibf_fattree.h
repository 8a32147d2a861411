/* ibfab fat trees: tree recognition, D-mod-K routing (engine "dmodk") and
 * flows-per-link congestion from any route tables.
 *
 * Tree recognition (routing/fattree.c) gives every switch a level (1 =
 * leaves, the switches holding the compute hosts; h = the top), its up and
 * down ports, and every end port a D-mod-K index: hosts are numbered leaf by
 * leaf, so every subtree holds a contiguous range, with phantom slots that
 * pad every leaf to the largest host count.  See docs/dmodk.md.
 *
 * No OpenSM headers, no printing: errors come back in an ibf_error. */
#ifndef IBF_FATTREE_H
#define IBF_FATTREE_H

#include "ibf_routing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IBF_FTREE_MAX_LEVELS 16
#define IBF_FTREE_MISSING UINT32_MAX /* an up-port slot whose cable is absent */

/* Where the switch levels came from. */
enum ibf_ftree_source {
	IBF_FTREE_BY_LEAVES = 0, /* BFS over the switch graph from the leaves */
	IBF_FTREE_BY_NAMES = 1,	 /* "ft-l<level>-s<idx>" names of the generator */
	IBF_FTREE_BY_ROOTS = 2,	 /* BFS down from a given set of root switches */
};

struct ibf_ftree_opts {
	const uint64_t *roots; /* node GUIDs of the top switches (NULL: find the levels) */
	uint32_t nroots;
	int use_names; /* 1 (default): take the levels from ft-l names when
				  * every switch carries one */
};
void ibf_ftree_opts_default(struct ibf_ftree_opts *o);

/* One end port: a CA/router port cabled to a switch.  Hosts on leaves get
 * index leaf_rank * hosts_per_leaf + (rank of the port among the leaf's
 * host ports); hosts on switches above level 1 ("hosts on a spine") come
 * after every leaf slot, from nslots on. */
struct ibf_ftree_end {
	int32_t node;
	uint8_t port;
	uint8_t swport; /* port of the switch it is cabled to */
	uint32_t sw;	/* switch index */
	uint32_t index; /* D-mod-K index */
};

struct ibf_ftree {
	uint32_t nsw;
	int levels;	/* h: the top level */
	int source;	/* enum ibf_ftree_source */
	uint8_t *level; /* [nsw] 1..h */
	uint8_t *shallow_sw; /* [nsw] 1: a shallow leaf (see shallow below) */
	uint8_t *top_sw;     /* [nsw] 1: hosts on a top switch (see tophost below) */
	uint32_t *rank; /* [nsw] rank of the switch by node GUID */

	/* up-port slots per switch: the cables to every parent of the
	 * switch's block (switches of its level joined through common
	 * parents): W parents in GUID order, parent y given p_y slots, p_y the
	 * most cables any switch of the block has to y; cable-major (round c
	 * holds the c-th cable, in port order, of every parent with p_y > c;
	 * slot c * W + i on an even tree); IBF_FTREE_MISSING where this switch
	 * lacks the cable.  Entries are indices into fabric->adj. */
	uint32_t *slot_off; /* [nsw + 1] */
	uint32_t *slot;
	uint32_t *slot_par; /* parent switch of each slot (also where the cable is missing) */
	uint32_t *slot_cab; /* cable rank of each slot within its parent's bundle */
	/* down links (adj indices, in port order) */
	uint32_t *down_off; /* [nsw + 1] */
	uint32_t *down;
	uint32_t nup[IBF_FTREE_MAX_LEVELS + 1];	 /* U_l: most slots of a level-l switch */
	uint32_t npar[IBF_FTREE_MAX_LEVELS + 1]; /* W_l: most parents of a level-l block */
	uint64_t prod[IBF_FTREE_MAX_LEVELS + 2]; /* P_l = W_1 ... W_{l-1}, P_1 = 1 */
	uint32_t nswl[IBF_FTREE_MAX_LEVELS + 1]; /* switches per level */

	uint32_t nleaves;
	uint32_t *leaves;	    /* [nleaves] level-1 switches in numbering order */
	uint32_t hosts_per_leaf;    /* largest host count of a leaf */
	uint32_t nslots;	    /* nleaves * hosts_per_leaf */
	struct ibf_ftree_end *ends; /* [nends] ordered by index */
	uint32_t nends;
	uint32_t nleaf_hosts;	/* ends on leaves */
	uint32_t nspine_hosts;	/* ends on switches above level 1 */
	uint32_t ninside;	/* ends inside their leaf (ibf_ca_in_switch), after the leaf hosts */
	uint32_t missing_slots; /* slots of all switches with no cable */
	uint32_t demoted;	/* switches with hosts placed above level 1 */
	uint32_t shallow;	/* of all switches with hosts, those cabled only to
				 * switches above the other leaves' parents (a
				 * service leaf on the core): placed one level
				 * below their lowest neighbour, with their own
				 * up-port slots (no block with other switches) */
	uint32_t tophost;	/* of all switches with hosts, those on the top
				 * level of a tree of 3 or more levels: from the
				 * structure, those no other switch with hosts is
				 * linked to (their children lie in different
				 * pods); with the levels given (roots, names),
				 * every switch with hosts on the top level */
	int topall;		/* from the structure, every top switch has hosts:
				 * IBF_FTREE_TOPALL_FEWER_HOSTS (the switches with
				 * fewer hosts than the fullest leaf were taken for
				 * the top: on 3 levels the structure cannot tell)
				 * or IBF_FTREE_TOPALL_SPLIT (4+ levels, one group:
				 * the tree falls apart without them); 0 otherwise */
};

enum { IBF_FTREE_TOPALL_FEWER_HOSTS = 1, IBF_FTREE_TOPALL_SPLIT };

/* Recognise the tree.  Fails with IBF_ENOTSUP when the switch graph is not
 * a tree of levels (a link joins two switches of one level, or levels
 * more than one apart: the message names the links), IBF_ENOROUTE when a
 * switch is cut off, IBF_EINVAL for bad roots.  f must be finalized. */
int ibf_ftree_build(const struct ibf_fabric *f, const struct ibf_ftree_opts *o, struct ibf_ftree *t,
		    struct ibf_error *err);
void ibf_ftree_free(struct ibf_ftree *t);
/* Readable summary (levels, switches per level, U_l, hosts, phantoms). */
void ibf_ftree_describe(const struct ibf_ftree *t, char *buf, size_t len);
/* A switch's name for messages: description, id or GUID. */
const char *ibf_ftree_swname(const struct ibf_fabric *f, uint32_t sw, char *buf, size_t len);

/* A roots file: node GUIDs (0x hex or decimal), one per line or separated
 * by blanks/commas, '#' comments.  *guids is malloc'ed. */
int ibf_ftree_read_roots(const char *path, uint64_t **guids, uint32_t *n, struct ibf_error *err);
/* The same for the file's text in buf (name in messages). */
int ibf_ftree_parse_roots(const char *buf, size_t len, const char *name, uint64_t **guids,
			  uint32_t *n, struct ibf_error *err);
/* Every GUID of guids (read from the file path) is a switch of f (or, with
 * missing_ok, of no node of f); else IBF_EINVAL at path and the GUID's line
 * ("<what> 0x... is not a switch of this fabric (...)"). */
int ibf_ftree_check_guids(const struct ibf_fabric *f, const char *path, const char *what,
			  const uint64_t *guids, uint32_t n, int missing_ok, struct ibf_error *err);
/* A roots file that names the wrong switches (a leaf, a middle-level
 * switch, only some of the top switches) still gives levels, since the
 * switch graph of a fat tree has levels from any roots, but a bad tree.
 * Looks at the tree from the roots and at the one the structure gives
 * (ibf_ftree_build without roots, use_names as given) and writes what looks
 * wrong into buf as lines "<path>[:<line>]: warning: ...", each ended by
 * '\n' (docs/dmodk.md, "Checking a roots file").  Returns the number of
 * lines (0: nothing suspect, or no tree from the roots: the engine says
 * why).  Never changes what the engine does with the roots. */
int ibf_ftree_check_roots(const struct ibf_fabric *f, const char *path, const uint64_t *roots,
			  uint32_t nroots, int use_names, char *buf, size_t len);

/* ------------------------------------------------------------ D-mod-K */

enum ibf_dmodk_layer_rule {
	/* layer j of destination d: the up-port digits of d are rotated per
	 * level by the digits of floor(j * G / 2^lmc), G = U_1 ... U_{h-1}
	 * (leaf digit most significant): every layer is D-mod-K on a relabelled
	 * tree, so each layer alone is contention-free, and the layers of one
	 * destination leave through different leaf up-ports / spines. */
	IBF_DMODK_LAYER_ROTATE = 0,
	/* d' = d * 2^lmc + j (the textbook interleave); kept for comparison:
	 * with an even number of up-ports a layer uses only half of them. */
	IBF_DMODK_LAYER_INTERLEAVE = 1,
};

struct ibf_dmodk_opts {
	struct ibf_ftree_opts tree;
	int layer_rule; /* enum ibf_dmodk_layer_rule */
	int no_balance; /* 1: leave out the path balance on damaged trees
			 * (docs/dmodk.md), for comparison */
};
/* Defaults; a roots file named by the environment variable
 * IBFAB_DMODK_ROOTS is NOT read here (ibf_route_dmodk does that). */
void ibf_dmodk_opts_default(struct ibf_dmodk_opts *o);

/* The engine ("dmodk" in ibf_engines[]).  Reads the roots file named by
 * IBFAB_DMODK_ROOTS when set.  Logs the recognised tree, every remapped
 * missing up-port and the routes that had to leave up/down order through
 * o->log. */
int ibf_route_dmodk(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		    struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err);
/* Same with explicit options. */
/* The fabric ibf_route_dmodk routes f as: *lean is a copy of f without the
 * switch cables running below half their rate when dmodk leaves them out
 * (same nodes, ports, switch indices and LIDs), NULL when it routes f
 * itself.  A stable reroute checks the earlier tables against it, so that
 * no column through such a cable is kept.  0, or IBF_ENOMEM. */
int ibf_dmodk_lean(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		   struct ibf_fabric **lean, struct ibf_error *err);
int ibf_route_dmodk_ex(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		       const struct ibf_dmodk_opts *d, struct ibf_routes *r,
		       struct ibf_route_report *rep, struct ibf_error *err);

/* The hratio engine for rail GPU clusters (routing/hratio.c): every switch
 * component on its own (rail-only clusters), D-mod-K inside a component
 * (rail leaves, rail aggregation, spines), minimal where a component is not
 * a tree. */
int ibf_route_hratio(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err);

/* ------------------------------------------------------------ congestion */

enum ibf_cong_pattern {
	IBF_CONG_SHIFT_ALL = 0, /* every shift d = (s + c) mod N, c = 1..N-1 */
	IBF_CONG_SHIFT = 1,	/* the single shift c = shift */
	IBF_CONG_PERM = 2,	/* `perms` random permutations from `seed` */
};

enum ibf_cong_order {
	IBF_CONG_ORDER_AUTO = 0,   /* tree order when the fabric is a fat tree, else fabric */
	IBF_CONG_ORDER_TREE = 1,   /* leaf by leaf, port order (D-mod-K order, no phantoms) */
	IBF_CONG_ORDER_FABRIC = 2, /* by switch (GUID order), then switch port */
};

/* An end port: a CA/router port cabled to a switch (index sw). */
struct ibf_endport {
	int32_t node;
	uint8_t port;
	uint32_t sw;
};
/* The end ports in `order` (AUTO: tree order when the fabric is a fat
 * tree, else fabric order) into *out (malloc'd, *n entries); *used gets the
 * order taken.  Every tool that numbers hosts (congestion, the simulator)
 * numbers them this way.  CA ports inside their switch (ibf_ca_in_switch:
 * SHARP aggregation nodes) are routed to but are no hosts: left out
 * (ibf_end_ports_in_switch counts them).  With tree and have_tree non-NULL, the tree found
 * for the tree order is handed over (*have_tree = 1; ibf_ftree_free it). */
int ibf_end_ports(const struct ibf_fabric *f, int order, struct ibf_endport **out, uint32_t *n,
		  int *used, struct ibf_ftree *tree, int *have_tree, struct ibf_error *err);
uint32_t ibf_end_ports_in_switch(const struct ibf_fabric *f);
/* What the tools print after that count ("note: %u " IBF_IN_SWITCH_NOTE). */
#define IBF_IN_SWITCH_NOTE                                                                      \
	"CA port(s) inside their switch (SHARP aggregation nodes): routed to, no hosts of the " \
	"traffic"

struct ibf_cong_opts {
	int pattern;	/* enum ibf_cong_pattern */
	uint32_t shift; /* IBF_CONG_SHIFT */
	uint32_t perms; /* IBF_CONG_PERM (default 100) */
	uint64_t seed;	/* IBF_CONG_PERM (default 1) */
	int layer;	/* destination LID = base + layer (clamped to the port's LMC) */
	int order;	/* enum ibf_cong_order */
};
void ibf_cong_opts_default(struct ibf_cong_opts *o);

/* Flows of every pattern instance are traced through the tables from each
 * host's switch; the load of a directed switch-to-switch link (a cable in
 * one direction, fabric->adj entry) is the number of flows crossing it. */
struct ibf_cong_report {
	uint32_t nhosts;     /* end ports (CA/router ports cabled to a switch) */
	uint32_t in_switch;  /* CA ports inside their switch, left out of nhosts */
	uint32_t nlinks;     /* directed switch links */
	int order;	     /* the order used (TREE or FABRIC) */
	uint32_t ninst;	     /* pattern instances evaluated */
	uint32_t *max_load;  /* [ninst] the largest link load of each instance */
	uint32_t worst;	     /* largest of max_load */
	uint32_t worst_inst; /* instance with it: the shift c, or the permutation number */
	uint32_t worst_link; /* adj index of a link carrying `worst` */
	uint32_t free_inst;  /* instances with max_load <= 1 */
	double share_free;   /* free_inst / ninst */
	double mean_max;     /* mean of max_load */
	uint64_t flows;	     /* flows traced (self flows are none) */
	uint64_t unrouted;   /* flows not delivered (no entry, loop, misdelivered) */
	uint64_t apart;	     /* flows between hosts of switch components apart (a
			      * rail-only cluster's rails): no path under any
			      * routing, neither traced nor in flows/unrouted */
	/* cut lower bound of the same instances (docs/dmodk.md): cut[0] the
	 * leaf (switch) cut, cut[l] the pods of tree levels <= l + 1 on a fat
	 * tree of more than 2 levels; each the largest over the instances */
	int cut_levels; /* entries of cut[] in use */
	uint32_t cut[IBF_FTREE_MAX_LEVELS + 1];
	uint32_t cut_worst; /* largest of cut[] */
	double cut_mean;    /* mean over instances of the instance's bound */
	uint32_t at_cut;    /* instances whose max load equals their bound */
	/* up/down pair cut (docs/dmodk.md), a bound only for routings whose
	 * paths are valley-free on the recognised tree (up zero or more
	 * levels, then down): for every pair (a, b) of switches with hosts and
	 * f_ab flows from a's hosts to b's, ceil(f_ab / c) where c counts the
	 * cables leaving a (or, on the other side, entering b) that lie on a
	 * valley-free path from a to b; the same for pairs of pods of the pod
	 * cut levels; pair_on 0 (no tree) leaves it all 0 */
	int pair_on;
	uint32_t pair;	      /* largest over the instances */
	uint32_t pair_inst;   /* instance with it (shift c or permutation number) */
	uint32_t pair_src;    /* its pair: switch indices */
	uint32_t pair_dst;
	uint32_t pair_flows;  /* flows of the pair in that instance */
	uint32_t pair_cables; /* usable cables on the pair's tighter side */
	int pair_side;	      /* 0: cables leaving pair_src, 1: entering pair_dst */
	int pair_pod;	      /* 1: a pair of pods, src and dst name a switch of each */
	uint32_t updown;      /* largest of cut_worst and pair: the up/down bound */
	double updown_mean;   /* mean over instances of max(cut bound, pair cut) */
	uint32_t at_updown;   /* instances whose max load is at most that */
	uint32_t below_updown; /* instances with every flow delivered and a max load
				* below it: the routing used a valley */
	uint64_t pair_nopath; /* flows (same component) with no valley-free path */
	/* links of different rates (ibf_link_rate_weights): the same figures
	 * in flows x rate weight (the fastest switch link's rate over the
	 * link's), the time to drain relative to one flow on a fastest link;
	 * rated 0 (one rate) leaves them 0 */
	int rated;
	uint32_t wworst, wworst_inst, wworst_link;
	double wmean_max;
	/* cables (switch links and host cables) of different rates: the same
	 * figures in demand load, a link's sum over its flows of the slower
	 * host cable's rate, over the link's own rate (1: the link carries
	 * what its flows can inject; see routing/congestion.c); demand 0 (one
	 * rate) leaves them 0 */
	int demand;
	double dworst;
	uint32_t dworst_inst, dworst_link;
	double dmean_max;
};
int ibf_congestion(const struct ibf_fabric *f, const struct ibf_routes *r,
		   const struct ibf_cong_opts *o, struct ibf_cong_report *rep,
		   struct ibf_error *err);
void ibf_cong_report_free(struct ibf_cong_report *rep);

#ifdef __cplusplus
}
#endif
#endif
