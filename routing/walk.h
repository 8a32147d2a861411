/* Internal to routing/: following the LFTs towards one destination LID from
 * every switch at once.  For a fixed DLID the tables define a functional
 * graph on the switches (each switch has one next hop or stops), so the
 * fate of every switch follows from its successor's: one pass over the
 * switches per DLID, O(nsw), instead of one walk per (switch, DLID).
 *
 * The tables are read a block of DLIDs at a time and transposed into a
 * column buffer, so the walks touch a few cache-resident bytes per switch
 * instead of striding through nsw rows of the LFT. */
#ifndef IBF_WALK_H
#define IBF_WALK_H

#include "ibf_routing.h"

#define IBF_WALK_CONT 255      /* ibf_walk_step: continue at *next */
#define IBF_WALK_NONE UINT32_MAX

/* One forwarding decision: switch index s sends dlid out of port p.  Returns
 * IBF_WALK_CONT with *next = the neighbour switch index, or the final
 * enum ibf_trace_result. */
static inline int ibf_walk_step(const struct ibf_fabric *f, const struct ibf_lidmap *m,
				uint32_t s, uint32_t dlid, unsigned p, uint32_t *next)
{
	if (p == IBF_LFT_NONE)
		return IBF_TRACE_UNREACHABLE;
	int node = f->switches[s];
	const struct ibf_node *n = &f->nodes[node];
	int owner = dlid <= m->max_lid ? m->node[dlid] : -1;
	if (p == 0)
		return (owner == node && m->port[dlid] == 0) ? IBF_TRACE_OK : IBF_TRACE_WRONG;
	if (p > n->nports)
		return IBF_TRACE_UNREACHABLE;
	const struct ibf_port *pp = &f->ports[n->port_off + p];
	if (pp->peer_node == IBF_NO_NODE)
		return IBF_TRACE_UNREACHABLE;
	const struct ibf_node *pn = &f->nodes[pp->peer_node];
	if (pn->type != IBF_NODE_SWITCH)
		return (owner == pp->peer_node && m->port[dlid] == pp->peer_port) ? IBF_TRACE_OK
										  : IBF_TRACE_WRONG;
	*next = (uint32_t)pn->sw;
	return IBF_WALK_CONT;
}

/* Per-thread scratch and results of one block of DLIDs; arrays indexed
 * [k * nsw + s] for DLID d0 + k and switch index s. */
struct ibf_walk {
	const struct ibf_fabric *f;
	const struct ibf_lidmap *m;
	const struct ibf_routes *r;
	uint32_t nsw, block;
	uint8_t *col;    /* out port */
	uint8_t *res;    /* enum ibf_trace_result */
	uint16_t *hops;  /* switch-to-switch hops to delivery (OK entries; saturates) */
	uint32_t *next;  /* next switch index, IBF_WALK_NONE at the last switch */
	uint32_t *order; /* switches in the order they were settled: for an OK
			  * switch s, next[s] comes before s */
	uint8_t *state;  /* [nsw] */
	uint32_t *stack; /* [nsw] */
};

int ibf_walk_init(struct ibf_walk *w, const struct ibf_fabric *f, const struct ibf_lidmap *m,
		  const struct ibf_routes *r, uint32_t block);
void ibf_walk_free(struct ibf_walk *w);
/* Settle DLIDs d0 .. d0 + n - 1 (n <= block).  DLIDs above r->max_lid
 * have no entries anywhere (unreachable). */
void ibf_walk_block(struct ibf_walk *w, uint32_t d0, uint32_t n);

/* Worker threads worth using for `work` elementary steps (1 when small;
 * the environment variable IBFAB_THREADS overrides, for tests and
 * benchmarks: results never depend on it). */
int ibf_walk_threads(uint64_t work);


#endif
