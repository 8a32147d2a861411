/* ibfab cabling: cable plans (Slim Fly rack layout and generic plans), plan
 * I/O (CSV, JSON, rendering as a fabric), wiring sheets, and the validator
 * that compares a plan with a discovered fabric and names each wrong cable
 * with its fix.
 *
 * A plan is a set of named nodes (switches and hosts, each optionally in a
 * rack) and cables between (node, port) ends.  Every cable has a wiring
 * step and a kind.  Like the topology core: no printing, no exit(); errors
 * come back in an ibf_error (with FILE:LINE for CSV input). */
#ifndef IBF_CABLING_H
#define IBF_CABLING_H

#include "ibf_topology.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ plan model */

enum ibf_cable_kind {
	IBF_CABLE_INTRA_SUBGROUP = 1, /* Slim Fly step 1: inside one group */
	IBF_CABLE_INTRA_RACK,	      /* step 2: between the two groups of one rack */
	IBF_CABLE_INTER_RACK,	      /* step 3: rack to rack */
	IBF_CABLE_HOST,		      /* step 4: switch to host */
	IBF_CABLE_SWITCH,	      /* generic switch-to-switch cable (from-topology) */
	IBF_CABLE_ADAPTER,	      /* adapter to adapter, no switch (from-topology) */
	IBF_CABLE_KIND_COUNT
};
const char *ibf_cable_kind_name(int kind);	/* "intra-subgroup", ... */
int ibf_cable_kind_from_name(const char *name); /* -1 when unknown */

/* The longest description (or node id) a plan name takes from a fabric
 * node: `cabling from-topology` cuts longer ones here, and validate cuts the
 * discovered names the same way before it compares them. */
#define IBF_PLAN_NAME_MAX 400

struct ibf_plan_node {
	char *name;	      /* unique in the plan (switch or host name), owned */
	char *rack;	      /* rack label ("r03"), "" when unknown, owned */
	uint8_t type;	      /* IBF_NODE_SWITCH or IBF_NODE_CA */
	uint16_t nports;      /* port count: declared, else the highest port cabled */
	uint8_t nports_fixed; /* 1 when nports was declared (ports beyond it are errors) */
};

struct ibf_cable {
	uint32_t id;	/* cable number (CSV "cable"), unique */
	uint16_t step;	/* wiring step, >= 1 */
	uint8_t kind;	/* enum ibf_cable_kind */
	uint8_t width;	/* planned lanes (0 = unspecified) */
	uint8_t speed;	/* planned enum ibf_speed (0 = unspecified) */
	uint8_t ap, bp; /* ports, 1..254 */
	uint32_t a, b;	/* plan node indices */
};

struct ibf_plan {
	struct ibf_plan_node *nodes;
	uint32_t nnodes, nodes_cap;
	struct ibf_cable *cables;
	uint32_t ncables, cables_cap;
	/* name -> node index (open addressing, private) */
	int32_t *hidx;
	uint32_t hcap;
	/* (node, port) -> cable index, built lazily by ibf_plan_index() */
	uint32_t *port_off;  /* nnodes + 1 */
	int32_t *port_cable; /* port_off[n] + p -> cable index or -1 */
	char *meta;	     /* "key=value;..." (family, q, hosts, ...), owned, may be NULL */
};

struct ibf_plan *ibf_plan_new(void);
void ibf_plan_free(struct ibf_plan *p);

/* Find a node by name; -1 when absent. */
int ibf_plan_find(const struct ibf_plan *p, const char *name);
/* Find or add a node.  An existing node must have the same type and, when
 * both are given, the same rack (rack and port count are filled in when they
 * were unknown).  nports 0 = unknown.
 * Returns the node index or a negative error code. */
int ibf_plan_node(struct ibf_plan *p, const char *name, int type, const char *rack, int nports,
		  struct ibf_error *err);
/* Append a cable (ends by node index).  Ports must be 1..254 and within the
 * nodes' port counts when those are declared.  A port used twice is
 * reported by ibf_plan_index(). */
int ibf_plan_add_cable(struct ibf_plan *p, const struct ibf_cable *c, struct ibf_error *err);
/* Build the (node, port) -> cable index and check that no port carries two
 * cables and no cable id repeats.  Invalidated by later additions. */
int ibf_plan_index(struct ibf_plan *p, struct ibf_error *err);
/* Cable at (node, port) after ibf_plan_index(); -1 when none. */
static inline int ibf_plan_cable_at(const struct ibf_plan *p, uint32_t node, int port)
{
	if (!p->port_cable || port < 0 || (uint32_t)port > p->nodes[node].nports)
		return -1;
	return p->port_cable[p->port_off[node] + (uint32_t)port];
}
int ibf_plan_set_meta(struct ibf_plan *p, const char *meta);

/* CSV: header row naming the columns (any order; unknown columns ignored):
 *   cable,step,kind,a_rack,a_switch,a_port,b_rack,b_switch,b_port
 * required: a_switch, a_port, b_switch, b_port; optional: width (e.g. "4x"
 * or "4xEDR"), speed ("EDR"), a_nports, b_nports (port count of that node).
 * For kind "host" the b end is the host.  Fields may be quoted ("..."
 * with "" for a quote); blank lines and lines starting with '#' are
 * skipped.  Errors are reported as FILE:LINE. */
struct ibf_plan *ibf_plan_read_csv(const char *path, struct ibf_error *err);
struct ibf_plan *ibf_plan_parse_csv(const char *buf, size_t len, const char *name,
				    struct ibf_error *err);
/* Writes atomically; "-" = stdout. */
int ibf_plan_write_csv(const struct ibf_plan *p, const char *path, struct ibf_error *err);
int ibf_plan_write_csv_stream(const struct ibf_plan *p, FILE *out);
int ibf_plan_write_json_stream(const struct ibf_plan *p, FILE *out);

/* The planned fabric: switches (in plan order), then hosts; the plan's
 * names become node descriptions and ids, GUIDs follow ibf_gen_guid() by
 * ordinal, links get the planned width/speed (4xEDR when unspecified).
 * LIDs are not assigned. */
struct ibf_fabric *ibf_plan_to_fabric(const struct ibf_plan *p, struct ibf_error *err);

/* A plan from any fabric: nodes named by description (else id, else GUID;
 * duplicates get "-<guid>" appended), switch cables of kind "switch" in
 * step 1, host cables in step 2, racks taken from an "rNN" token in the
 * name ("sf-r03-g1-s02" -> "r03"), width/speed as found, except on a
 * degraded link (ibf_find_degraded: a 1x cable among 4x twins, ...; not a
 * GRADE one, which may be a lower-grade part at its best): there the rate
 * the link should run at (ibf_degr_target: not above what most like links
 * run at), so validating the fabric against its own plan
 * reports the cable (it was written as found, and validated clean).
 * *expected (may be NULL) gets the number of cables so written. */
struct ibf_plan *ibf_plan_from_fabric_ex(const struct ibf_fabric *f, uint32_t *expected,
					 struct ibf_error *err);
struct ibf_plan *ibf_plan_from_fabric(const struct ibf_fabric *f, struct ibf_error *err);

/* ------------------------------------------------------------ Slim Fly */

struct ibf_sfplan_opts {
	int q;		     /* prime power, q = 4w + d, docs/cabling.md */
	int hosts;	     /* hosts per switch, -1 = ceil(k'/2) */
	int switch_ports;    /* ports per switch, 0 = k' + hosts */
	int first_host_port; /* hosts on ports N..N+hosts-1; 0 = after the switch links */
	int width, speed;    /* planned link width/speed, 0 = 4x / EDR */
};

/* Slim Fly cabling plan (paper App. A.4): rack x holds group (0,x,.) and
 * group (1,x,.).  Switch links use the ports that are not host ports, in
 * order; the logical link slots follow ibf_gen_slimfly():
 *   (0,x,y): slots 1..|X|   intra-subgroup, by generator element;
 *            slot |X|+m+1   the one link to group (1,m,.), i.e. to rack m
 *                           (m = x is the intra-rack cable)
 *   (1,m,c): slots 1..|X'|  intra-subgroup; slot |X'|+x+1 the link to rack x
 * so the intra-subgroup port assignment is identical in every rack and
 * every switch uses the same port towards a given rack.  Steps: 1
 * intra-subgroup, 2 intra-rack, 3 inter-rack, 4 hosts. */
struct ibf_plan *ibf_plan_slimfly(const struct ibf_sfplan_opts *o, struct ibf_error *err);
/* The planned link of `cabling slimfly --link WS` (n bytes): a width and a
 * known speed, "4xEDR", "2xHDR" (ibf_parse_width_speed); a width alone or
 * an unknown speed "4x???" is -1 (they became 4xEDR, silently). */
int ibf_plan_link_parse(const char *s, size_t n, int *width, int *speed);

/* ------------------------------------------------------------ sheets */

/* Wiring sheets into directory dir (created if missing): per rack
 * rack-<R>.{svg,dot,md,csv} and per rack pair racks-<R1>-<R2>.{svg,dot,md,csv}
 * plus index.md with the cable counts per step.  Returns the number of
 * sheets (rack + rack-pair) written, or a negative error. */
int ibf_sheets_write(const struct ibf_plan *p, const char *dir, struct ibf_error *err);
/* What ibf_sheets_write checks before writing anything: dir is a directory
 * or does not exist yet, and holds no sheet file (rack-*, racks-* .svg, .dot,
 * .md, .csv) this plan does not write, e.g. one left by a plan with more
 * racks.  0 or a negative error. */
int ibf_sheets_check(const struct ibf_plan *p, const char *dir, struct ibf_error *err);

/* ------------------------------------------------------------ validation */

enum ibf_finding_kind {
	IBF_FIND_MISSING = 1,  /* planned cable absent */
	IBF_FIND_EXTRA,	       /* cable not in the plan and not explained as moved */
	IBF_FIND_MISWIRED,     /* one end right, the other on another switch's port */
	IBF_FIND_WRONG_PORT,   /* right two switches, wrong port on one or both ends */
	IBF_FIND_SWAPPED,      /* two cables with exchanged far ends (one fix) */
	IBF_FIND_DEGRADED,     /* right cable, width or speed below the plan */
	IBF_FIND_UNKNOWN_NODE, /* discovered switch not in the plan */
	IBF_FIND_MISSING_NODE, /* planned switch not discovered */
	IBF_FIND_RENAMED,      /* switch named by structure: its description names no plan switch
				* or another one (placed after the older kinds: numbers unchanged) */
	IBF_FIND_ROTATED,      /* three or more cables each plugged where the next belongs (one
				* fix: unplug one, move the others along, plug it back) */
	IBF_FIND_PORT_LIMITED, /* right cable below the plan's width or speed, but at the best
				* its two ports support (known from a live fabric or iblinkinfo
				* hints): older hardware, not a cable fault */
	IBF_FIND_KIND_COUNT
};
const char *ibf_finding_kind_name(int kind); /* "missing", "wrong-port", ... */

struct ibf_finding {
	uint8_t kind;
	uint16_t step;	  /* wiring step of the (first) planned cable, 0 when none */
	int32_t cable[2]; /* planned cable indices involved, -1 when none */
	uint32_t id[2];	  /* their cable numbers (0 when none) */
	uint32_t nmore;	  /* rotated: the cable numbers of the cycle after the first two, */
	uint32_t *more;	  /* in the cycle's order (owned, NULL when nmore is 0) */
	char *expected;	  /* text, owned; "" when not applicable */
	char *actual;
	char *fix;
};

enum ibf_match_method {
	IBF_MATCH_DESC = 1,  /* node description equals the plan name */
	IBF_MATCH_NAMEMAP,   /* node-name-map GUID -> plan name */
	IBF_MATCH_STRUCTURE, /* graph structure from the anchor */
	IBF_MATCH_POSITION,  /* host identified by the switch port it is on */
	IBF_MATCH_RENAMED,   /* no anchor: structure seeded by the switches already named
			      * (reported as a renamed finding) */
	IBF_MATCH_COUNT
};

struct ibf_validate_opts {
	const struct ibf_namemap *namemap; /* may be NULL */
	const char *anchor_name;	   /* NULL = structure only from the switches
					    * already named, with strong evidence */
	uint64_t anchor_guid;
	int partial; /* 0: every planned cable must be there; 1: cables of later steps may be missing */
	int step; /* with partial: last step cabled so far; 0 = infer */
};

struct ibf_vreport {
	struct ibf_finding *f;
	uint32_t n, cap;
	uint32_t counts[IBF_FIND_KIND_COUNT];
	/* summary */
	uint32_t planned, ok, expected_missing;
	uint32_t matched_by[IBF_MATCH_COUNT]; /* nodes matched per enum ibf_match_method */
	uint32_t plan_nodes, found_nodes;
	int partial_step; /* the step used for --partial, 0 when not partial */
};

/* Compare a plan with a discovered fabric.  Fills r (free with
 * ibf_vreport_free).  Returns 0 (even with findings) or a negative error
 * (bad anchor, out of memory). */
int ibf_validate(struct ibf_plan *plan, const struct ibf_fabric *fab,
		 const struct ibf_validate_opts *o, struct ibf_vreport *r, struct ibf_error *err);
void ibf_vreport_free(struct ibf_vreport *r);
void ibf_vreport_write_text(const struct ibf_vreport *r, FILE *out);
void ibf_vreport_write_json(const struct ibf_vreport *r, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
