/* Internal to deadlock/: the channel dependency graph shared by the two
 * schemes (the verifier in verify.c builds its own graph on purpose). */
#ifndef IBF_DL_INTERNAL_H
#define IBF_DL_INTERNAL_H

#include "ibf_deadlock.h"

#define CDG_MAX_LAYERS 64

/* Channels are the fabric's directed switch links (adj indices).  The
 * dependency universe is fixed by the topology: a channel c into switch y
 * can only be followed by one of y's channels, so the dependency c -> c2
 * has the compact id eoff[c] + (c2 - adj_off[y]).  Per layer we keep a path
 * count for each dependency; a dependency "exists" in a layer when its
 * count is non-zero.  Memory: O(channels * degree) per layer, nothing per
 * LID pair. */
struct ibf_cdg {
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	uint32_t nsw, stride, nch;
	uint64_t nedges;
	const int32_t *portlink; /* [nports_total] port id -> channel, -1 (fabric->port_adj) */
	const uint32_t *ch_tail; /* [nch] switch index of the channel's tail (fabric->adj_src) */
	uint64_t *eoff;		 /* [nch + 1] */
	uint32_t *sw_off;	 /* [nsw] port_off of the switch node */
	uint16_t *sw_np;	 /* [nsw] nports of the switch node */
	uint32_t *dlids;	 /* assigned LIDs, increasing */
	uint32_t ndl;
	int32_t *lid_sw;    /* [stride] switch index the LID's port hangs off, -1 */
	uint32_t *lid_base; /* [stride] base LID of the LID's port (itself for LMC 0), 0 none */
	int nlayers;	    /* layers with count arrays */
	uint32_t *cnt[CDG_MAX_LAYERS]; /* [nedges] path counts per layer */
};

int cdg_init(struct ibf_cdg *g, const struct ibf_fabric *f, const struct ibf_routes *r,
	     struct ibf_error *err);
void cdg_free(struct ibf_cdg *g);
/* Make layer v's count array exist (zeroed). */
int cdg_layer(struct ibf_cdg *g, int v, struct ibf_error *err);

/* Channel switch s uses towards dlid d, -1 when the next hop is not a
 * switch (delivery, CA/router port, no route, bad port). */
static inline int32_t cdg_out(const struct ibf_cdg *g, uint32_t s, uint32_t d)
{
	unsigned p = g->r->lft[(size_t)s * g->stride + d];
	if (p == 0 || p == IBF_LFT_NONE || p > g->sw_np[s])
		return -1;
	return g->portlink[g->sw_off[s] + p];
}

/* Switch s sends d into a loopback cable (to another port of s): no
 * channel, but the packet comes back to s and takes the same entry again. */
static inline int cdg_loopback(const struct ibf_cdg *g, uint32_t s, uint32_t d)
{
	unsigned p = g->r->lft[(size_t)s * g->stride + d];
	if (p == 0 || p == IBF_LFT_NONE || p > g->sw_np[s])
		return 0;
	return g->f->ports[g->sw_off[s] + p].peer_node == g->f->switches[s];
}

static inline uint32_t cdg_head(const struct ibf_cdg *g, int32_t c)
{
	return g->f->adj[c].nbr;
}

static inline uint64_t cdg_edge(const struct ibf_cdg *g, int32_t c1, int32_t c2)
{
	return g->eoff[c1] + (uint64_t)((uint32_t)c2 - g->f->adj_off[g->f->adj[c1].nbr]);
}

/* Settle every switch for dlid d: ch[s] = first channel of path (s, d) (or
 * -1) and hops[s] = its switch-to-switch hops.  Scratch: state[nsw],
 * stack[nsw].  Returns 0, or -1 when the tables loop (then *loop_sw is a
 * switch on the loop). */
int cdg_settle(const struct ibf_cdg *g, uint32_t d, int32_t *ch, uint16_t *hops, uint8_t *state,
	       uint32_t *stack, uint32_t *loop_sw);

/* Check the routes for loops (error with an example) and report the
 * longest path in *max_hops. */
int cdg_check_routes(const struct ibf_cdg *g, int *max_hops, struct ibf_error *err);

/* dfsssp on the tables as routed, online layering capped at the VLs: fails
 * (IBF_EINVAL) at the first path that finds no layer, without counting the
 * layers that would be needed and without rewriting any entry. */
int dl_dfsssp_as_routed(const struct ibf_fabric *f, struct ibf_routes *r,
			const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err);

/* Layer only the paths longer than min_hops switch hops, online, into at
 * most L layers (dfsssp.c): layer[s * stride + d] for each of them.  With
 * the switch colours given, a path whose later hops the colouring's SL2VL
 * rows keep in bucket B2 is first tried in the tail layer (layer[] = L):
 * only its dependencies from the third hop on count there.  With
 * convert, further LIDs of multi-LID ports that do not fit take their base
 * LID's paths from the failing sources on (r is rewritten).  IBF_ENOTSUP
 * when they do not fit. */
struct dl_long {
	int layers;		  /* layers holding a path */
	uint64_t paths;		  /* long paths placed */
	uint64_t tail_paths;	  /* of them, in the tail layer (B2) */
	uint64_t lids_converted;  /* LIDs moved onto base LID paths */
	uint64_t entries_changed; /* LFT entries rewritten */
};
int dl_layer_long_paths(const struct ibf_fabric *f, struct ibf_routes *r, int min_hops, int L,
			const uint8_t *color, int convert, uint8_t *layer, struct dl_long *res,
			struct ibf_error *err);
/* Rewrite d's entries along tcol's path from switch s (every switch when
 * s < 0) to tcol; the rewritten switches are closed under "next switch of
 * tcol", so the column stays loop free.  Returns the entries changed. */
uint64_t dl_convert(const struct ibf_cdg *g, struct ibf_routes *r, uint32_t d, const uint8_t *tcol,
		    int64_t s);
/* Recompute r->hops (when present) for LID d's column. */
void dl_column_hops(const struct ibf_cdg *g, struct ibf_routes *r, uint32_t d);

/* Helpers shared by the schemes. */
struct ibf_dl *dl_new(const struct ibf_cdg *g, struct ibf_error *err);
/* Put saved tables back into r: lft (and hops, when saved) of ntab bytes. */
void dl_tables_set(struct ibf_routes *r, const uint8_t *lft, const uint8_t *hops, size_t ntab);
void dl_log(const struct ibf_dl_opts *o, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 64-bit mix for deterministic choices. */
/* Switch-to-switch channel test for a port of a switch node. */
int dl_port_faces_switch(const struct ibf_fabric *f, int node, int port);

#endif
