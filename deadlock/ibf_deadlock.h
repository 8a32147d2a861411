/* ibfab deadlock freedom: channel dependency graph, DFSSSP-style VL
 * layering, the <= 3-hop switch colouring scheme, SL / SL2VL dumps and an
 * independent verifier.  Depends on topology/ and routing/ only.
 *
 * Terms
 *   channel   a directed switch-to-switch link (fabric->adj entry).  Links
 *             to CAs and routers are never on a dependency cycle (they are
 *             sources or sinks) and are left out.
 *   path      (source switch s, destination LID d).  Routes are destination
 *             based, so every source port on s (its CA ports and its port 0)
 *             follows the same switch path towards d: the path set is
 *             S x LIDs, linear in the LIDs, not quadratic.
 *   SL        the schemes assign one SL per (source switch, destination
 *             LID).  path_sl(slid, dlid) maps slid to the switch its port is
 *             cabled to (a switch LID to the switch itself) and answers that
 *             switch's SL.  This is the granularity of the result, stated
 *             honestly: two hosts on one switch always get the same SL
 *             towards a DLID.
 *
 * Schemes (docs/deadlock.md has the details and the proofs)
 *   dfsssp    virtual layers: each path gets one layer; every layer's CDG is
 *             acyclic.  Default: each path goes into the lowest layer that
 *             stays acyclic (online insertion); alternative (layering CUT):
 *             classic DFSSSP, cycles broken at their least-used dependency,
 *             whose paths move one layer up.  Either way a final Tarjan pass
 *             checks every layer.  Spare VLs are then spread over the
 *             layers; SL = VL, SL2VL is the identity.  Works on any engine's
 *             routes.  More layers than VLs: error, or with best_effort the
 *             overflow is merged into the last VL and the result is marked
 *             not deadlock-free.
 *   coloring  paths of at most 3 switch hops: proper colouring of the switch
 *             graph; SL 1 for paths of <= 2 hops, colour(2nd switch) + 2 for
 *             3 hops; SL2VL picks the VL bucket from the hop position.
 *             Needs >= 3 VLs, every path <= 3 hops, <= 13 colours; when a
 *             precondition fails it falls back to dfsssp (and says so).
 *   auto      coloring when its preconditions hold, else dfsssp.
 */
#ifndef IBF_DEADLOCK_H
#define IBF_DEADLOCK_H

#include "ibf_dl_scheme.h"
#include "ibf_routing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IBF_DL_MAX_VLS 15    /* data VLs InfiniBand can have */
#define IBF_DL_MAX_COLORS 13 /* colours 0..12 -> SL 2..14 */
#define IBF_SL_NONE 0xFFu    /* "no SL" in a per-path SL entry */
#define IBF_VL_NONE 0xFFu    /* "not given" in an SL2VL entry */

/* How dfsssp builds the virtual layers (docs/deadlock.md compares them). */
enum ibf_dl_layering {
	IBF_DL_LAYER_ONLINE = 0, /* default: insert each path into the lowest layer that
				  * stays acyclic (dynamic topological order per layer) */
	IBF_DL_LAYER_CUT = 1,	 /* classic DFSSSP: all paths in layer 0, cut cycles at
				  * their least-used dependency, move its paths up */
};

struct ibf_dl_opts {
	int scheme;	 /* enum ibf_deadlock_scheme (ibf_conf.h); NONE does nothing */
	int layering;	 /* enum ibf_dl_layering (dfsssp) */
	int max_vls;	 /* data VLs every switch port can use (1..15); 0 = 8 */
	int best_effort; /* dfsssp: accept a result that needs more VLs, marked not deadlock-free */
	int no_fit;	 /* dfsssp: fail when the layers exceed max_vls instead of rerouting the
			  * destinations that do not fit (the default; docs/deadlock.md) */
	int threads;	 /* accepted for the API; the schemes run single-threaded today */
	ibf_log_fn log;	 /* may be NULL */
	void *log_ctx;
};
void ibf_dl_opts_default(struct ibf_dl_opts *o);

/* The result of a scheme: owned by the caller, freed with ibf_dl_free. */
struct ibf_dl {
	int requested;	     /* scheme asked for */
	int scheme;	     /* scheme applied (DFSSSP or COLORING) */
	int vls;	     /* V: data VLs available */
	int layers;	     /* dfsssp: virtual layers needed; coloring: 3 buckets */
	int vls_used;	     /* VLs that carry switch-to-switch traffic */
	int deadlock_free;   /* 0 only for a best-effort dfsssp overflow */
	int ncolors;	     /* coloring: colours used */
	int color_vls;	     /* coloring: VLs of the three buckets (0: all vls) */
	int esc_layers;	     /* coloring hybrid: escape layers for the paths longer than 3
			     * hops (0: none) */
	uint8_t esc_vl[16];  /* coloring hybrid: VL of an escape SL at every switch hop,
			     * 0xff for the SLs that are not escape SLs */
	uint64_t long_paths; /* coloring hybrid: paths longer than 3 hops */
	uint64_t tail_paths; /* of them, kept on their colouring SL (hops 3.. in B2) */
	int max_hops;	     /* longest path, switch-to-switch hops */
	uint32_t nsw, stride;
	uint8_t *sl;	   /* [nsw * stride]: SL per (source switch, DLID), IBF_SL_NONE unused */
	int32_t *lid_sw;   /* [stride]: switch index a LID's port hangs off, -1 none */
	uint8_t *color;	   /* [nsw], coloring only */
	uint64_t *sw_guid; /* [nsw] switch node GUIDs (for the deterministic VL choice) */
	uint64_t paths_per_vl[16]; /* paths with >= 1 switch hop, by the VL of their first hop
				    * (dfsssp) or by SL (coloring: [SL]) */
	uint64_t layer_paths[64];  /* dfsssp: paths per virtual layer before balancing */
	uint8_t layer_base[64], layer_share[64]; /* dfsssp: VL range of each layer */
	uint64_t breaks;			 /* dfsssp: dependencies cut */
	uint64_t lids_aliased;	  /* dfsssp within the budget: LIDs given their base LID's paths */
	uint64_t lids_escaped;	  /* ... LIDs routed up*-down* in the escape layer */
	uint64_t entries_changed; /* ... LFT entries the scheme rewrote */
	uint64_t order_checks;	  /* dfsssp online: new dependencies against a layer's order
				   * (a cycle search) */
	uint64_t order_cycles;	  /* ... of them, closing a cycle */
	uint64_t order_visits;	  /* ... channels the searches expanded */
	double seconds;
	char note[512]; /* fallback reason, best-effort warning, ... ("" none) */
};

/* Run opts->scheme on the routes of f (the scheme may reroute LIDs that do
 * not fit the VLs, in r) and return the result in *out (caller frees with
 * ibf_dl_free; NULL for scheme NONE).  Routes must not loop.  Returns 0, or
 * IBF_ENOTSUP when the VLs do not suffice (and best_effort is off): the
 * message names the VLs needed.  On failure *out is NULL. */
int ibf_deadlock_apply(const struct ibf_fabric *f, struct ibf_routes *r,
		       const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err);
/* The two schemes directly (apply dispatches to them; coloring falls back
 * to dfsssp itself and notes it). */
int ibf_deadlock_dfsssp(const struct ibf_fabric *f, struct ibf_routes *r,
			const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err);
int ibf_deadlock_coloring(const struct ibf_fabric *f, struct ibf_routes *r,
			  const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err);
/* Do the colouring scheme's preconditions hold?  0 yes; else IBF_ENOTSUP
 * with the reason in err. */
int ibf_deadlock_coloring_check(const struct ibf_fabric *f, const struct ibf_routes *r,
				const struct ibf_dl_opts *o, struct ibf_error *err);

void ibf_dl_free(struct ibf_dl *dl);
/* One line: "dfsssp: 3 layer(s) on 8 VLs, VLs used 8, deadlock-free; ..." */
const char *ibf_dl_summary(const struct ibf_dl *dl, char *buf, size_t len);

/* SL of the path from slid to dlid, or -1 when either LID is unknown (the
 * caller then keeps its own hint).  Reentrant, read-only, lock-free. */
int ibf_dl_path_sl(const struct ibf_dl *dl, uint32_t slid, uint32_t dlid);
/* SL2VL row of switch or CA node `node` for (in port, out port): vl[sl] for
 * sl = 0..15.  CA tables are asked with in = out = 0.  Deterministic. */
void ibf_dl_sl2vl(const struct ibf_dl *dl, const struct ibf_fabric *f, int node, int in, int out,
		  uint8_t vl[16]);

/* ------------------------------------------------------------ tables */

/* Path SLs as read from a dump or a live fabric.  Rows are either source
 * switches (per_port 0) or source ports (per_port 1: switch port 0s and
 * CA/router ports cabled to a switch).  mask[row * stride + dlid] has bit
 * sl set when a source of the row uses SL sl towards dlid (a port has
 * several LIDs with LMC > 0; their SLs may differ); 0 = missing. */
struct ibf_sl_table {
	int per_port;
	uint32_t nrows, stride;
	int32_t *row_node; /* per_port: source port of each row */
	uint8_t *row_port;
	int32_t *port_row; /* per_port: [nports_total] port id -> row, -1 */
	uint16_t *mask;
};
void ibf_sl_table_free(struct ibf_sl_table *t);
/* The SLs a scheme assigned (per source switch). */
int ibf_sl_table_from_dl(const struct ibf_fabric *f, const struct ibf_dl *dl,
			 struct ibf_sl_table *t, struct ibf_error *err);

/* Every (source switch, DLID < stride) uses SL sl: for tables that were
 * never given SLs (no QoS, no path_sl: every packet uses SL sl). */
int ibf_sl_table_const(const struct ibf_fabric *f, uint32_t stride, int sl, struct ibf_sl_table *t,
		       struct ibf_error *err);

/* SL2VL tables of the switches: vl[off[s] + ((in * (np + 1)) + out) * 16 + sl]
 * with np = nports of switch s; IBF_VL_NONE when not given. */
struct ibf_sl2vl_table {
	uint32_t nsw;
	uint64_t *off; /* [nsw + 1] */
	uint8_t *vl;
};
int ibf_sl2vl_table_init(const struct ibf_fabric *f, struct ibf_sl2vl_table *t,
			 struct ibf_error *err);
void ibf_sl2vl_table_free(struct ibf_sl2vl_table *t);
int ibf_sl2vl_table_from_dl(const struct ibf_fabric *f, const struct ibf_dl *dl,
			    struct ibf_sl2vl_table *t, struct ibf_error *err);
/* Identity-like table: SL s -> VL s mod vls, every switch (minhop, no QoS). */
int ibf_sl2vl_table_uniform(const struct ibf_fabric *f, int vls, struct ibf_sl2vl_table *t,
			    struct ibf_error *err);

/* The SLs (bit sl set) the source end port (node, port) uses towards dlid
 * (port 0 of a switch: the switch itself); 0 when the table does not say. */
uint16_t ibf_sl_table_mask(const struct ibf_fabric *f, const struct ibf_sl_table *t, int node,
			   int port, uint32_t dlid);
/* The VL switch index s maps SL sl to from port in to port out;
 * IBF_VL_NONE when not given or the ports are out of range. */
static inline uint8_t ibf_sl2vl_get(const struct ibf_fabric *f, const struct ibf_sl2vl_table *t,
				    uint32_t s, unsigned in, unsigned out, unsigned sl)
{
	if (s >= t->nsw || sl > 15)
		return IBF_VL_NONE;
	unsigned np = f->nodes[f->switches[s]].nports + 1u;
	if (in >= np || out >= np)
		return IBF_VL_NONE;
	return t->vl[t->off[s] + ((uint64_t)in * np + out) * 16u + sl];
}

/* ------------------------------------------------------------ dumps */

/* SL dump (docs/deadlock.md): a block per source switch
 *   Source switch guid 0x<guid> lid <lid> ('<desc>'):
 *   0x<dlid> <sl>
 * Writers are atomic; "-" = stdout. */
int ibf_sl_write(const struct ibf_fabric *f, const struct ibf_dl *dl, const char *path,
		 struct ibf_error *err);
/* The same into an open stream (the caller checks ferror and commits). */
void ibf_sl_write_stream(const struct ibf_fabric *f, const struct ibf_dl *dl, FILE *out);
/* Reads, auto-detected: the ibfab SL dump; "<slid> <dlid> <sl>" lines (hex
 * 0x.. or decimal); `saquery -p` PathRecord output (slid, dlid, sl fields).
 * LIDs are resolved with f's LIDs.  Errors carry FILE:LINE. */
int ibf_sl_read(const struct ibf_fabric *f, const char *path, struct ibf_sl_table *t,
		struct ibf_error *err);
int ibf_sl_parse(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		 struct ibf_sl_table *t, struct ibf_error *err);

/* SL2VL dump: a block per switch
 *   Switch guid 0x<guid> lid <lid> ('<desc>'):
 *   ports: in  0, out  1: | 0| 1| ...| 7|     (16 VLs, the smpquery layout)
 * The reader also takes `smpquery sl2vl` output ("# SL2VL table: Lid N"
 * headers select the switch by LID; "DR path" headers are an error). */
int ibf_sl2vl_write(const struct ibf_fabric *f, const struct ibf_dl *dl, const char *path,
		    struct ibf_error *err);
void ibf_sl2vl_write_stream(const struct ibf_fabric *f, const struct ibf_dl *dl, FILE *out);
int ibf_sl2vl_read(const struct ibf_fabric *f, const char *path, struct ibf_sl2vl_table *t,
		   struct ibf_error *err);
int ibf_sl2vl_parse(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		    struct ibf_sl2vl_table *t, struct ibf_error *err);
/* The same, and an entry VL >= max_vls (other than 15, "drop") is an error
 * at its line; max_vls 0: any VL 0..15.  A row with more than 16 VLs, and a
 * row for (switch, in, out) given twice with different VLs, are errors. */
int ibf_sl2vl_parse_limit(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
			  int max_vls, struct ibf_sl2vl_table *t, struct ibf_error *err);
int ibf_sl2vl_read_limit(const struct ibf_fabric *f, const char *path, int max_vls,
			 struct ibf_sl2vl_table *t, struct ibf_error *err);

/* ------------------------------------------------------------ verifier */

/* One virtual channel: switch index, output port, VL. */
struct ibf_vchan {
	uint32_t sw;
	uint8_t port, vl;
};
/* A path that induces one dependency of a cycle. */
struct ibf_vpath {
	int32_t src_node; /* source port (node id, port); port 0 = switch itself */
	uint8_t src_port;
	uint8_t sl;
	uint32_t dlid;
};
/* hop[i] -> hop[(i + 1) % len] is induced by path[i]. */
struct ibf_dl_cycle {
	int len;
	struct ibf_vchan *hop;
	struct ibf_vpath *path;
};

struct ibf_verify_opts {
	int max_cycles; /* cycles to extract (one per cyclic component), default 16 */
	int threads;
};
void ibf_verify_opts_default(struct ibf_verify_opts *o);

struct ibf_verify_report {
	uint64_t pairs;		  /* (source port, destination LID) pairs examined */
	uint64_t missing_sl;	  /* of those, without an SL */
	uint64_t missing_sl_deps; /* of those, with >= 2 switch hops (they could matter) */
	uint64_t missing_sl2vl;	  /* switch hops whose SL2VL entry was not given */
	uint64_t broken;	  /* pairs whose walk loops */
	uint64_t vl15;		  /* hops mapped to VL 15 (dropped), the last one too */
	uint64_t vchans, deps;	  /* vertices (channel, VL) used and dependencies */
	uint32_t vl_mask;	  /* VLs used on switch-to-switch channels */
	uint16_t sl_mask;	  /* SLs seen */
	uint64_t cyclic_sccs;	  /* strongly connected components with a cycle */
	uint64_t cyclic_vchans;	  /* vertices in them */
	int ncycles;		  /* cycles extracted (<= max_cycles) */
	struct ibf_dl_cycle *cycles;
	/* when there are cycles: the same check over the paths between end
	 * ports only (CA/router port to CA/router port LID), leaving out every
	 * path from or to a switch's port 0 (the switches' own management
	 * traffic, which some engines, e.g. OpenSM's dfsssp, do not place) */
	int ends_checked;
	uint64_t ends_cyclic_sccs, ends_cyclic_vchans;
	char examples[8][160]; /* first missing-SL / loop examples */
	int nexamples;
};
/* Rebuild the dependency graph over (channel, VL) from the LFTs, the path
 * SLs and the SL2VL tables alone, and look for cycles.  Deadlock-free iff
 * rep->cyclic_sccs == 0 && rep->broken == 0 && rep->missing_sl_deps == 0
 * && rep->missing_sl2vl == 0 && rep->vl15 == 0 (a packet SL2VL sends to
 * VL 15, the management VL, is dropped: the tables do not deliver it). */
int ibf_deadlock_verify(const struct ibf_fabric *f, const struct ibf_routes *r,
			const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v,
			const struct ibf_verify_opts *o, struct ibf_verify_report *rep,
			struct ibf_error *err);
void ibf_verify_report_free(struct ibf_verify_report *rep);
static inline int ibf_verify_ok(const struct ibf_verify_report *rep)
{
	return rep->cyclic_sccs == 0 && rep->broken == 0 && rep->missing_sl_deps == 0 &&
	       rep->missing_sl2vl == 0 && rep->vl15 == 0;
}
/* Readable report (cycles with the paths that close them). */
void ibf_verify_report_write(const struct ibf_fabric *f, const struct ibf_verify_report *rep,
			     FILE *out);

#ifdef __cplusplus
}
#endif
#endif
