/* Fabric helpers shared by the unit tests (header-only, as tt.h). */
#ifndef IBF_TT_FABRIC_H
#define IBF_TT_FABRIC_H
#include "ibf_topology.h"

#include <stdint.h>

/* The same fabric with its nodes listed in reverse order (as another
 * discovery order or OpenSM's maps would list them): same GUIDs, ports,
 * cables and LIDs. */
static inline struct ibf_fabric *tt_fabric_reversed(const struct ibf_fabric *f)
{
	struct ibf_fabric *g = ibf_fabric_new();
	uint32_t n = f->nnodes;
	for (uint32_t i = 0; i < n; i++) {
		const struct ibf_node *o = &f->nodes[n - 1 - i];
		int k = ibf_fabric_add_node(g, o->type, o->nports, o->guid, o->desc, o->id, NULL);
		if (k != (int)i) {
			ibf_fabric_free(g);
			return NULL;
		}
		for (int p = 0; p <= o->nports; p++) {
			const struct ibf_port *a = ibf_port(f, (int)(n - 1 - i), p);
			struct ibf_port *b = ibf_port(g, k, p);
			b->guid = a->guid;
			b->lid = a->lid;
			b->lmc = a->lmc;
		}
	}
	for (uint32_t a = 0; a < n; a++)
		for (int p = 1; p <= f->nodes[a].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)a, p);
			if (pp->peer_node == IBF_NO_NODE || (uint32_t)pp->peer_node < a ||
			    ((uint32_t)pp->peer_node == a && pp->peer_port < p))
				continue;
			if (ibf_fabric_connect(g, (int)(n - 1 - a), p,
					       (int)(n - 1 - (uint32_t)pp->peer_node),
					       pp->peer_port, pp->width, pp->speed, NULL)) {
				ibf_fabric_free(g);
				return NULL;
			}
		}
	if (ibf_fabric_finalize(g, NULL)) {
		ibf_fabric_free(g);
		return NULL;
	}
	return g;
}

#endif
