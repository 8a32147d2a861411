/* ibfab topology core: the fabric graph every other module shares.
 *
 * A fabric is a set of nodes (switches, channel adapters, routers), each with
 * ports 0..nports.  Port 0 is the switch management port (switches only); CA
 * and router ports are 1..nports.  Links join two (node, port) pairs.  Nodes
 * and ports have dense integer ids; switches also get a dense switch index
 * and a CSR adjacency over switch-to-switch links.
 *
 * No OpenSM headers, no printing, no exit(): errors come back in an
 * ibf_error with a message and, where it applies, the input file and line.
 */
#ifndef IBF_TOPOLOGY_H
#define IBF_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibf_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- link speeds */

/* Width: number of lanes (1, 2, 4, 8, 12); 0 = unknown. */
/* Speed: per-lane signalling, enum below; 0 = unknown. */
enum ibf_speed {
	IBF_SPEED_UNKNOWN = 0,
	IBF_SPEED_SDR,
	IBF_SPEED_DDR,
	IBF_SPEED_QDR,
	IBF_SPEED_FDR10,
	IBF_SPEED_FDR,
	IBF_SPEED_EDR,
	IBF_SPEED_HDR,
	IBF_SPEED_NDR,
	IBF_SPEED_XDR,
	IBF_SPEED_COUNT
};

const char *ibf_speed_name(int speed);		  /* "SDR", ... or "" */
int ibf_speed_from_name(const char *s, size_t n); /* 0 when unknown */
/* Parse "4xEDR" / "1xSDR" / "4x" etc.  Returns 0 on success. */
int ibf_parse_width_speed(const char *s, size_t n, uint8_t *width, uint8_t *speed);
/* Writes e.g. "4xEDR", "??EDR" when the width is unknown (or "" when both
 * are); returns buf. */
char *ibf_format_width_speed(uint8_t width, uint8_t speed, char *buf, size_t len);
/* Per-lane data rate in units of 0.1 Gb/s, 0 when unknown. */
unsigned ibf_speed_rate(int speed);

/* The one decoder of PortInfo's width/speed fields, used by every reader
 * (ibsim net files, libibnetdisc discovery, the OpenSM plugin).  Each takes
 * a bit mask; an "active" field holds one bit, an "enabled"/"supported"
 * field several, and the widest / fastest bit wins.
 *   width: LinkWidth bits 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x -> lanes.
 *   speed: LinkSpeedExt bits 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR, 16 = XDR
 *          (32 is also read as XDR: older ibsim net files used it) win over
 *          the vendor FDR10 bit (Mellanox ExtPortInfo LinkSpeedActive bit 1),
 *          which wins over LinkSpeed bits 1 = SDR, 2 = DDR, 4 = QDR.
 * Both return 0 when no known bit is set. */
uint8_t ibf_width_from_ib(unsigned width_mask);
uint8_t ibf_speed_from_ib(unsigned speed_mask, unsigned ext_mask, unsigned fdr10_mask);

/* ------------------------------------------------------------- the graph */

enum ibf_node_type {
	IBF_NODE_CA = 1,
	IBF_NODE_SWITCH = 2,
	IBF_NODE_ROUTER = 3,
};

#define IBF_NO_NODE (-1)
#define IBF_MAX_PORTS 254 /* port numbers fit a byte; 255 means "none" */

struct ibf_port {
	int32_t peer_node; /* IBF_NO_NODE when unconnected */
	uint8_t peer_port;
	uint8_t width;	   /* lanes, 0 = unknown */
	uint8_t speed;	   /* enum ibf_speed */
	uint8_t lmc;	   /* CA ports and switch port 0 */
	uint16_t lid;	   /* base LID, 0 = unassigned */
	uint8_t width_sup; /* widest width the port supports (lanes), 0 = unknown */
	uint8_t speed_sup; /* fastest speed the port supports (enum ibf_speed), 0 = unknown */
	uint64_t guid;	   /* port GUID, 0 = unknown */
};

struct ibf_node {
	uint8_t type;	      /* enum ibf_node_type */
	uint8_t enhanced_sp0; /* switch: enhanced port 0 */
	uint16_t nports;      /* highest port number (ports 1..nports) */
	uint32_t port_off;    /* ports of this node: fabric->ports[port_off + p], p = 0..nports */
	int32_t sw;	      /* dense switch index, -1 for non-switches */
	uint64_t guid;	      /* node GUID */
	uint64_t sysimg_guid;
	uint32_t vendid, devid;
	char *desc; /* node description (owned) */
	char *id;   /* name used in files (e.g. "S-0002c9..." or "sw1"), owned, may be NULL */
};

/* One switch-to-switch adjacency entry (a directed link). */
struct ibf_adj {
	uint32_t nbr;  /* neighbour switch index */
	uint8_t lport; /* port on this switch */
	uint8_t rport; /* port on the neighbour */
};

struct ibf_fabric {
	struct ibf_node *nodes;
	uint32_t nnodes, nodes_cap;
	struct ibf_port *ports;
	uint32_t nports_total, ports_cap;

	/* switch index -> node id; valid after ibf_fabric_finalize() */
	int32_t *switches;
	uint32_t nsw;
	/* CSR of switch-to-switch links, ordered by local port */
	uint32_t *adj_off; /* nsw + 1 */
	struct ibf_adj *adj;
	/* number of non-switch (CA/router) ports that are connected to a switch */
	uint32_t nhosts_ports;
	/* link indexes, built by ibf_fabric_finalize() for every module:
	 * port_adj[global port id] = adj index of a switch port facing another
	 * switch, -1 otherwise; adj_src[e] = the switch adj entry e leaves;
	 * adj_rev[e] = the adj entry of the same cable the other way
	 * (UINT32_MAX for none) */
	int32_t *port_adj; /* [nports_total] */
	uint32_t *adj_src; /* [adj_off[nsw]] */
	uint32_t *adj_rev; /* [adj_off[nsw]] */

	/* free-form generator metadata, "key=value;key=value", owned, may be NULL */
	char *meta;
	int finalized;
	/* GUID -> node / port lookup, built by ibf_fabric_finalize() or
	 * ibf_fabric_index_guids(), dropped by ibf_fabric_add_node() and
	 * ibf_fabric_sort(); NULL means the finders scan linearly. */
	struct ibf_guid_index *guid_index;
};

struct ibf_fabric *ibf_fabric_new(void);
void ibf_fabric_free(struct ibf_fabric *f);

/* Add a node with ports 0..nports (all unconnected).  desc and id are copied;
 * either may be NULL.  Returns node id >= 0 or a negative error code. */
int ibf_fabric_add_node(struct ibf_fabric *f, int type, int nports, uint64_t guid, const char *desc,
			const char *id, struct ibf_error *err);

/* Connect (a, pa) with (b, pb).  Fails if either port is out of range or
 * already connected to something else (re-connecting the same pair is a
 * no-op that updates width/speed when they were unknown). */
int ibf_fabric_connect(struct ibf_fabric *f, int a, int pa, int b, int pb, int width, int speed,
		       struct ibf_error *err);
/* Disconnect (a, pa) and its peer; no-op when unconnected. */
void ibf_fabric_disconnect(struct ibf_fabric *f, int a, int pa);

static inline struct ibf_port *ibf_port(const struct ibf_fabric *f, int node, int port)
{
	return &f->ports[f->nodes[node].port_off + (uint32_t)port];
}

/* Build switch indices and the CSR adjacency.  Call after the last change
 * to nodes or links; changes after it require another call. */
int ibf_fabric_finalize(struct ibf_fabric *f, struct ibf_error *err);

/* Find nodes. -1 when absent.  Linear scans unless an index was built. */
/* GUID finders: O(log n) once the GUID index exists (finalize builds it),
 * a linear scan before.  With a duplicated GUID both return the lowest node
 * id (and its lowest port).  A GUID field written directly after the index
 * was built is still found (a miss or a stale hit falls back to the scan),
 * only slowly: call ibf_fabric_index_guids() (or finalize) again. */
int ibf_fabric_index_guids(struct ibf_fabric *f); /* 0 or IBF_ENOMEM */
int ibf_fabric_find_guid(const struct ibf_fabric *f, uint64_t node_guid);
int ibf_fabric_find_port_guid(const struct ibf_fabric *f, uint64_t port_guid, int *port);
int ibf_fabric_find_id(const struct ibf_fabric *f, const char *id);
int ibf_fabric_find_desc(const struct ibf_fabric *f, const char *desc);

/* A node named by a user: its name in files (id), its description, a node
 * GUID or port GUID (0x...), or the first word of a CA/router description,
 * tried in that order.  *port (may be NULL) = the port a port GUID names,
 * else -1.  Returns the node id or -1: the first node named so. */
int ibf_fabric_find_name(const struct ibf_fabric *f, const char *tok, int *port);
/* The same, and *dup (may be NULL) = a second node that the same kind of
 * name matches (two hosts with one description, two nodes with one GUID,
 * "h1" of "h1 HCA-1" and "h1 HCA-2"), else -1: a name that is not unique,
 * which callers refuse rather than pick one of the nodes.  Then the
 * returned node and *dup are the first two such nodes in canonical order
 * (ibf_node_cmp), whatever the order of the fabric file's records. */
int ibf_fabric_find_name_dup(const struct ibf_fabric *f, const char *tok, int *port, int *dup);
/* A GUID that tells a node apart in a message: its node GUID, else (the
 * ports report of ibnetdiscover -p has none) its first port GUID. */
uint64_t ibf_node_some_guid(const struct ibf_fabric *f, int node);
/* A node's name for a message: its description, followed by " (0x<GUID>)"
 * (ibf_node_some_guid) when the description is empty or another node has
 * the same one -- switches left at their factory description ("SwitchIB
 * Mellanox Technologies" on every switch of a fabric) -- so the message
 * names one node.  Writes into buf (a description longer than the buffer
 * is cut) and returns it. */
const char *ibf_node_label(const struct ibf_fabric *f, int node, char *buf, size_t len);
/* 1 when another node of f has node's description (or it has none). */
int ibf_node_desc_shared(const struct ibf_fabric *f, int node);
/* Port `port` of CA `node` is a function of the switch it is cabled to, not
 * a server's NIC: the CA shares that switch's system image GUID (a SHARP
 * aggregation node, on the last port of every Quantum switch, is one).
 * Inputs without system image GUIDs (ibnetdiscover -p, iblinkinfo) never
 * give one. */
int ibf_ca_in_switch(const struct ibf_fabric *f, int node, int port);

int ibf_fabric_set_meta(struct ibf_fabric *f, const char *meta);
/* Look up "key" in meta; copies its value to buf and returns 1 when found. */
int ibf_fabric_get_meta(const struct ibf_fabric *f, const char *key, char *buf, size_t len);

/* Reorder the nodes into the canonical order (node GUID, then type, then
 * description, then id; the original order breaks remaining ties), so that
 * results that depend on node order do not depend on the order of an input
 * file.  old_of_new (may be NULL) receives, for each new node id, its old id
 * (nnodes entries, allocated here, freed by the caller).  The fabric is
 * finalized again when it was.  Returns 0 or a negative code. */
int ibf_fabric_sort(struct ibf_fabric *f, int32_t **old_of_new, struct ibf_error *err);
/* 1 when the nodes are already in canonical order. */
int ibf_fabric_is_sorted(const struct ibf_fabric *f);
/* Sort n node ids into that canonical order (ties: the lower id first), in
 * place, without moving the nodes.  Returns 0 or IBF_ENOMEM. */
int ibf_fabric_sort_ids(const struct ibf_fabric *f, int32_t *ids, uint32_t n);

/* <0, 0, >0: node a before, as, after node b in that canonical order (0
 * only when a == b).  For picking an example or a name that does not follow
 * the input's record order. */
int ibf_node_cmp(const struct ibf_fabric *f, int a, int b);
/* rank[s]: the place of switch index s (0..nsw-1) among the switches in
 * canonical order.  Returns 0 or IBF_ENOMEM. */
int ibf_switch_ranks(const struct ibf_fabric *f, uint32_t *rank);

/* Deep copy. */
struct ibf_fabric *ibf_fabric_clone(const struct ibf_fabric *f, struct ibf_error *err);
/* *out: a finalized deep copy in canonical order (ibf_fabric_sort), for
 * results that must not depend on the input's node order; *sw_of: for each
 * switch index of the copy, the index of the same switch in f (nsw entries).
 * Both freed by the caller.  Returns 0 or a negative code. */
int ibf_fabric_canonical(const struct ibf_fabric *f, struct ibf_fabric **out, uint32_t **sw_of,
			 struct ibf_error *err);

/* Move row k of a table of n rows of len bytes to row to[k], in place (to:
 * a permutation of 0..n-1, e.g. ibf_fabric_canonical's sw_of to bring a
 * canonical copy's per-switch rows back to the caller's switch order, or
 * its inverse for the other way).  Returns 0 or IBF_ENOMEM (the table is
 * then unchanged). */
int ibf_rows_permute(uint8_t *tab, size_t len, uint32_t n, const uint32_t *to);

/* The switch a CA/router port attaches to: returns switch node id and sets
 * *sw_port, or -1 when the port does not face a switch. */
int ibf_port_switch(const struct ibf_fabric *f, int node, int port, int *sw_port);

/* ----------------------------------------------------------- metrics */

#define IBF_DIST_INF UINT32_MAX

/* BFS hop distances over switch-to-switch links from switch index src.
 * dist has nsw entries. */
void ibf_bfs(const struct ibf_fabric *f, uint32_t src, uint32_t *dist, uint32_t *queue);

/* Connected components of the switch graph; comp has nsw entries.
 * Returns the number of components. */
uint32_t ibf_components(const struct ibf_fabric *f, uint32_t *comp);

struct ibf_stats {
	uint32_t nswitches, ncas, nrouters;
	uint32_t ca_ports_connected; /* CA ports with a peer */
	uint32_t sw_links;	     /* undirected switch-switch links (parallel counted) */
	uint32_t sw_pairs_linked;    /* distinct adjacent switch pairs */
	uint32_t parallel_links;     /* links beyond the first between the same switch pair */
	uint32_t host_links;	     /* switch-CA/router links */
	uint32_t adapter_links;	     /* CA/router to CA/router, no switch between */
	uint32_t loopback_links;     /* links from a switch to itself */
	uint32_t components;
	uint32_t diameter;		 /* IBF_DIST_INF when disconnected */
	double avg_distance;		 /* over ordered distinct reachable switch pairs */
	uint32_t max_degree, min_degree; /* switch-switch degree (links) */
	uint32_t *degree_hist;		 /* [0..max_degree], owned */
	uint32_t max_hosts_per_switch, min_hosts_per_switch;
	uint32_t degraded_links; /* links ibf_find_degraded() reports, GRADE ones not */
	uint32_t grade_links;	 /* its GRADE entries (maybe a lower speed grade) */
};

/* Computes the stats (BFS from every switch; threads > 1 uses pthreads). */
int ibf_fabric_stats(const struct ibf_fabric *f, struct ibf_stats *st, int threads,
		     struct ibf_error *err);
void ibf_stats_free(struct ibf_stats *st);

/* ------------------------------------------------------ duplicate GUIDs */

/* Nodes whose node GUID another node also has (a firmware bug of some
 * devices, e.g. SHARP aggregation nodes, makes discovery see one GUID at
 * two places).  Readers keep both nodes (ibnetdiscover: a second record of
 * one id, or two cables claiming one peer port); this lists every node of
 * every shared GUID, sorted by GUID then node, into *out (malloc'd, NULL
 * when none), from the GUID index of a finalized fabric.  GUID 0 (unknown)
 * is never reported. */
struct ibf_dup_guid {
	uint64_t guid;
	int32_t node;
};
int ibf_find_dup_guids(const struct ibf_fabric *f, struct ibf_dup_guid **out, uint32_t *n,
		       struct ibf_error *err);

/* ------------------------------------------------------ degraded links */

/* A link is degraded when it runs below what both of its ends support.
 * The evidence a finding rests on, strongest first:
 *   SUPPORTED  both ports' supported width and speed are known (live
 *              discovery, iblinkinfo "Could be" hints): exact;
 *   TWINS      the other cables between the same two nodes run faster or wider;
 *   MODEL      other links joining the same two node models (device id, else
 *              the node description with digits removed) run faster or wider.
 * A link is judged by the strongest evidence it has; a link with no
 * comparable link and no supported values is never reported, so older HCAs
 * on newer switches (they run at their own maximum) are not degraded.
 *   GRADE      MODEL evidence of a speed shortfall alone, to more than half
 *              the like links' rate: what a lower speed grade sold under the
 *              same device id runs at too (ConnectX-3 QDR/FDR10/FDR,
 *              ConnectX-4 FDR/EDR, SwitchX FDR10/FDR), so not a degraded
 *              link: listed, never counted as degraded (ibf_degr_counts). */
enum ibf_degr_evidence {
	IBF_DEGR_SUPPORTED = 1,
	IBF_DEGR_TWINS,
	IBF_DEGR_MODEL,
	IBF_DEGR_GRADE,
};

struct ibf_degraded {
	int32_t node_a, node_b; /* node_a is the lower (node, port) end */
	uint8_t port_a, port_b;
	uint8_t width, speed;	      /* what the link runs at */
	uint8_t exp_width, exp_speed; /* what it should run at */
	uint8_t evidence;	      /* enum ibf_degr_evidence */
	uint32_t peers;		      /* TWINS/MODEL: number of links compared against */
	/* what most links between the same two node models run at (the link
	 * itself included; ties: the faster), 0 when none reports both */
	uint8_t usual_width, usual_speed;
};

/* Lists the degraded links (sorted by node_a, port_a) into *out (malloc'd,
 * free with free(); NULL when none) and their number into *n. */
int ibf_find_degraded(const struct ibf_fabric *f, struct ibf_degraded **out, uint32_t *n,
		      struct ibf_error *err);
/* "supported", "twins", "model", "grade" or "" */
const char *ibf_degr_evidence_name(int evidence);
/* Of the n entries of ibf_find_degraded, the degraded links (all but
 * GRADE); the number of GRADE entries into *grade (may be NULL). */
uint32_t ibf_degr_counts(const struct ibf_degraded *d, uint32_t n, uint32_t *grade);
/* What the link of d should run at as far as this fabric shows it: its
 * expected width/speed, or the usual ones (what most links between the same
 * two node models run at) when their rate is lower: supported values that
 * no link of the fabric reaches (ibsim claims 12x HDR on every port) say
 * nothing of the cable.  Returns that rate (width x ibf_speed_rate), 0 when
 * the speed is unknown. */
uint64_t ibf_degr_target(const struct ibf_degraded *d, uint8_t *width, uint8_t *speed);

/* ----------------------------------------------------------- LIDs */

/* Assign LIDs the way OpenSM does on a fresh subnet: base LIDs aligned to
 * 2^lmc for CA/router ports, switches get one LID (LMC 0) unless
 * switch_lmc is set; LIDs are handed out in canonical node order
 * (ibf_fabric_sort_ids: GUID first, not the file's record order), switches
 * first, starting at 1.
 * Existing LIDs are discarded.  Fails when LIDs run out (0xBFFF). */
int ibf_assign_lids(struct ibf_fabric *f, int lmc, int switch_lmc, struct ibf_error *err);

/* Give LIDs to the ports that need one and have none (switch port 0,
 * CA/router ports cabled to something), keeping every LID already there:
 * what OpenSM does for a port it finds on a subnet whose other ports keep
 * theirs (a switch added or replaced, not swept yet).  Each gets the lowest
 * free block aligned to its span (switches LMC 0, end ports lmc), switches
 * first, then end ports, in canonical node order (so neither the LIDs nor
 * the port named first follow the record order).  first_node and first_port
 * name the first port so given a LID (-1 when none); returns how many such
 * ports, or a negative error code when LIDs run out (0xBFFF). */
int ibf_assign_missing_lids(struct ibf_fabric *f, int lmc, int *first_node, int *first_port,
			    struct ibf_error *err);

/* Highest LID in use (base + 2^lmc - 1). */
uint32_t ibf_max_lid(const struct ibf_fabric *f);

/* guid2lid: "0x<port guid> <base lid> <top lid>" per line. */
int ibf_guid2lid_read(struct ibf_fabric *f, const char *path, struct ibf_error *err);
/* The same from memory; name is used in error messages. */
int ibf_guid2lid_parse(struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		       struct ibf_error *err);
int ibf_guid2lid_write(const struct ibf_fabric *f, const char *path, struct ibf_error *err);

/* LID -> (node, port) lookup table covering every LID of every port. */
struct ibf_lidmap {
	uint32_t max_lid;
	int32_t *node; /* [max_lid + 1], -1 when unused */
	uint8_t *port; /* [max_lid + 1] */
};
int ibf_lidmap_build(const struct ibf_fabric *f, struct ibf_lidmap *m, struct ibf_error *err);
void ibf_lidmap_free(struct ibf_lidmap *m);

/* ----------------------------------------------------------- file I/O */

enum ibf_format {
	IBF_FMT_AUTO = 0,
	IBF_FMT_IBNETDISCOVER,
	IBF_FMT_IBNETDISCOVER_P, /* ibnetdiscover -p ports report */
	IBF_FMT_IBSIM,
	IBF_FMT_SUBNET_LST, /* OpenSM opensm-subnet.lst */
	IBF_FMT_JSON,	    /* write only */
	IBF_FMT_IBLINKINFO, /* iblinkinfo output (block or -l line layout), read only */
};

const char *ibf_format_name(int fmt);
int ibf_format_from_name(const char *name); /* -1 when unknown */

/* Read a fabric from a file (fmt AUTO sniffs the content).  On error
 * returns NULL with err filled, including file and line. */
struct ibf_fabric *ibf_fabric_read(const char *path, int fmt, struct ibf_error *err);
/* Same, from a memory buffer; name is used in error messages. */
struct ibf_fabric *ibf_fabric_parse(const char *buf, size_t len, const char *name, int fmt,
				    struct ibf_error *err);

/* Write a fabric.  ibf_fabric_write() writes atomically (temp file, rename);
 * path "-" means stdout. */
int ibf_fabric_write(const struct ibf_fabric *f, const char *path, int fmt, struct ibf_error *err);
int ibf_fabric_write_stream(const struct ibf_fabric *f, FILE *out, int fmt, struct ibf_error *err);

/* node-name-map: "0x<guid> \"name\"" per line, # comments. */
struct ibf_namemap {
	uint32_t n, cap;
	uint64_t *guid;
	char **name;
};
int ibf_namemap_read(struct ibf_namemap *m, const char *path, struct ibf_error *err);
/* The same from memory; path names the input in error messages. */
int ibf_namemap_parse(struct ibf_namemap *m, const char *buf, size_t len, const char *path,
		      struct ibf_error *err);
const char *ibf_namemap_lookup(const struct ibf_namemap *m, uint64_t guid);
void ibf_namemap_free(struct ibf_namemap *m);
int ibf_namemap_write_fabric(const struct ibf_fabric *f, const char *path, struct ibf_error *err);
int ibf_namemap_write_fabric_stream(const struct ibf_fabric *f, FILE *out, struct ibf_error *err);

/* ----------------------------------------------------------- generators */

/* Slim Fly MMS graph for prime power q (q = 4w + delta, delta in {-1,0,1}).
 * hosts: endpoints per switch (-1 = default ceil(k'/2)); switch_ports: port
 * count of each switch (0 = k' + hosts, rounded to nothing).  Switch
 * descriptions name rack, subgroup and slot: "sf-r03-g1-s02". */
struct ibf_slimfly_opts {
	int q;
	int hosts;
	int switch_ports;
	int host_ports_first; /* 1: hosts on ports 1..p, else after the switch links */
};
struct ibf_fabric *ibf_gen_slimfly(const struct ibf_slimfly_opts *o, struct ibf_error *err);
/* Is q admissible?  When not, fills lo/hi with the nearest admissible values. */
int ibf_slimfly_admissible(int q, int *delta, int *lo, int *hi);

/* Fat trees: XGFT(h; m1..mh; w1..wh) with parallel links p (cables between
 * each connected switch pair) and hosts per leaf m1.  k-ary n-tree is
 * XGFT(n; k,..,k; 1,k,..,k). */
#define IBF_FT_MAX_LEVELS 6
struct ibf_fattree_opts {
	int levels;		  /* h: switch levels (hosts are level 0) */
	int m[IBF_FT_MAX_LEVELS]; /* m[0] = hosts per leaf, m[l] = children of a level-l+1 switch */
	int w[IBF_FT_MAX_LEVELS]; /* w[0] = leaf ports per host (1), w[l] = parents of a level-l switch */
	int parallel;		  /* cables per switch-switch connection (>= 1) */
	int switch_ports;	  /* 0 = exactly what is needed */
};
struct ibf_fabric *ibf_gen_fattree(const struct ibf_fattree_opts *o, struct ibf_error *err);
/* k-ary n-tree convenience */
struct ibf_fabric *ibf_gen_kary_ntree(int k, int n, struct ibf_error *err);

/* Rail-only / rail-optimised GPU cluster: M servers x K GPUs (one NIC per
 * GPU, NIC g on rail g).  rail_switches: leaves per rail (hosts split evenly);
 * spines: 0 = rail-only (no switch path between rails), else spine switches
 * joining every rail leaf with `uplinks` cables each. */
struct ibf_rail_opts {
	int servers;
	int gpus;
	int rail_switches;
	int spines;
	int uplinks;
	int switch_ports;
};
struct ibf_fabric *ibf_gen_rail(const struct ibf_rail_opts *o, struct ibf_error *err);

/* Dragonfly (Kim et al.): g groups of a routers, p hosts per router, h global
 * links per router, routers in a group fully connected; global links
 * arranged consecutively (palmtree-free "absolute" arrangement). */
struct ibf_dragonfly_opts {
	int a, p, h, g; /* g = 0: a*h + 1 (maximum size) */
};
struct ibf_fabric *ibf_gen_dragonfly(const struct ibf_dragonfly_opts *o, struct ibf_error *err);

/* 2-D HyperX: S1 x S2 switches, each fully connected along each dimension
 * with `trunk` parallel links, `hosts` per switch. */
struct ibf_hyperx_opts {
	int s1, s2, trunk, hosts;
};
struct ibf_fabric *ibf_gen_hyperx(const struct ibf_hyperx_opts *o, struct ibf_error *err);

/* Torus (k-ary n-cube; one dimension: a ring) or mesh: k[0] x .. x k[n-1]
 * switches (each k >= 2), cabled to their neighbours in every dimension,
 * wrapping around unless mesh; `hosts` per switch on ports 1..hosts. */
#define IBF_TORUS_MAX_DIMS 6
struct ibf_torus_opts {
	int ndims;
	int k[IBF_TORUS_MAX_DIMS];
	int hosts;
	int mesh;
};
struct ibf_fabric *ibf_gen_torus(const struct ibf_torus_opts *o, struct ibf_error *err);

/* Deterministic GUID scheme used by every generator:
 * 0x0002c903_00_TT_NNNN_PP style, see topology/guid.c. */
uint64_t ibf_gen_guid(int type, uint32_t index, int port);

#ifdef __cplusplus
}
#endif
#endif
