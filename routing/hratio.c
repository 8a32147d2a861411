/* The hratio engine: routing for rail GPU clusters (docs/rail.md).
 *
 * Rail-only clusters are several switch components (each rail its own
 * switch or Clos, one SM per rail in practice): every component is routed
 * on its own, and pairs between components get no entry (route check counts
 * them apart: no table can route them).  Inside a component, and on
 * rail-optimized clusters where spines join the rails, the fabric is a tree
 * of rail leaves, rail aggregation and spines, so D-mod-K routes it: traffic
 * between two GPUs of one rail climbs only to their lowest common switch and
 * never leaves the rail, traffic between rails spreads over the spines by
 * destination, and the LMC layers of a destination take different spines,
 * so a host can steer around a congested spine by choosing the LID.  A
 * component that is not a tree (damage, odd cabling) falls back to the
 * balanced minimal engine and the log says so.
 *
 * Avoided switches (o->avoid: unhealthy spines, from the plugin's health
 * service or `ibfab route --avoid`): the fabric without them is routed the
 * same way, and its tables replace the full fabric's on every switch that
 * stays, for every LID the reduced fabric routes.  The avoided switches,
 * and LIDs the reduced fabric cannot reach (a GPU on an avoided leaf,
 * rails only an avoided spine joins), keep the full fabric's routes.  A
 * path then follows full-fabric routes until the first switch with a
 * reduced-fabric entry and reduced-fabric routes from there, which stay
 * inside that switch's reduced component: loop-free whenever both tables
 * are.
 *
 * The path choice per GPU pair lives in the rail registry (rail/registry.c). */
#include "ibf_fattree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dmodk where the component is a tree, else minimal */
static int route_one(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     struct ibf_routes *r, struct ibf_route_report *rep, const char *what,
		     struct ibf_error *err)
{
	struct ibf_error e2;
	ibf_error_clear(&e2);
	/* dmodk returns "not a fat tree" without logging it: here that is the
	 * way to the minimal fallback, logged below as information */
	if (!ibf_route_dmodk(f, o, r, rep, &e2))
		return 0;
	if (o)
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "hratio: %s is not a tree (%s); balanced minimal paths there", what,
			 e2.msg);
	for (uint32_t s = 0; s < r->nsw; s++)
		memset(ibf_lft(r, s), IBF_LFT_NONE, r->stride);
	return ibf_route_minimal(f, o, r, rep, err);
}

/* The sub-fabric of switch component c: its switches, and every CA or
 * router with a port cabled into it (only those ports stay cabled).  Node
 * order is kept, so the copy is as canonical as the original; orig[k] is
 * the original node of sub node k. */
static struct ibf_fabric *component(const struct ibf_fabric *f, const uint32_t *comp, uint32_t c,
				    int32_t *orig, int32_t *sub, struct ibf_error *err)
{
	struct ibf_fabric *g = ibf_fabric_new();
	if (!g) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	for (uint32_t v = 0; v < f->nnodes; v++) {
		const struct ibf_node *n = &f->nodes[v];
		sub[v] = -1;
		int in = 0;
		if (n->type == IBF_NODE_SWITCH) {
			in = comp[n->sw] == c;
		} else {
			for (int p = 1; p <= n->nports && !in; p++) {
				const struct ibf_port *pp = ibf_port(f, (int)v, p);
				in = pp->peer_node != IBF_NO_NODE &&
				     f->nodes[pp->peer_node].type == IBF_NODE_SWITCH &&
				     comp[f->nodes[pp->peer_node].sw] == c;
			}
		}
		if (!in)
			continue;
		int k = ibf_fabric_add_node(g, n->type, n->nports, n->guid, n->desc, n->id, err);
		if (k < 0) {
			ibf_fabric_free(g);
			return NULL;
		}
		struct ibf_node *m = &g->nodes[k];
		m->enhanced_sp0 = n->enhanced_sp0;
		m->sysimg_guid = n->sysimg_guid;
		m->vendid = n->vendid;
		m->devid = n->devid;
		for (int p = 0; p <= n->nports; p++) {
			struct ibf_port *dst = ibf_port(g, k, p);
			const struct ibf_port *src = ibf_port(f, (int)v, p);
			int32_t keep = dst->peer_node;
			*dst = *src;
			dst->peer_node = keep;
			dst->peer_port = 0;
		}
		sub[v] = k;
		orig[k] = (int32_t)v;
	}
	for (uint32_t v = 0; v < f->nnodes; v++) {
		if (sub[v] < 0)
			continue;
		for (int p = 1; p <= f->nodes[v].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)v, p);
			if (pp->peer_node == IBF_NO_NODE || sub[pp->peer_node] < 0)
				continue;
			/* a CA port into another rail stays out of this one */
			const struct ibf_node *a = &f->nodes[v], *b = &f->nodes[pp->peer_node];
			if ((a->type == IBF_NODE_SWITCH && comp[a->sw] != c) ||
			    (b->type == IBF_NODE_SWITCH && comp[b->sw] != c) ||
			    (a->type != IBF_NODE_SWITCH && b->type != IBF_NODE_SWITCH))
				continue;
			if ((uint32_t)pp->peer_node < v ||
			    ((uint32_t)pp->peer_node == v && pp->peer_port < p))
				continue; /* each cable once */
			if (ibf_fabric_connect(g, sub[v], p, sub[pp->peer_node], pp->peer_port,
					       pp->width, pp->speed, err)) {
				ibf_fabric_free(g);
				return NULL;
			}
		}
	}
	if (ibf_fabric_finalize(g, err)) {
		ibf_fabric_free(g);
		return NULL;
	}
	return g;
}

static int route_all(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err);

/* The full fabric is routed in r; route it again without the avoided
 * switches and take those tables where they have an entry. */
static int route_avoiding(const struct ibf_fabric *f, const struct ibf_route_opts *o,
			  struct ibf_routes *r, struct ibf_error *err)
{
	uint32_t *keep = malloc(((size_t)f->nsw + 1) * sizeof(*keep));
	int32_t *orig = malloc(((size_t)f->nnodes + 1) * sizeof(int32_t));
	int32_t *sub = malloc(((size_t)f->nnodes + 1) * sizeof(int32_t));
	int rc = 0;
	if (!keep || !orig || !sub) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* part[s] = 1: left out; a switch with end ports (a rail leaf) stays,
	 * its GPUs have no other way in.  A CA inside the switch (a SHARP
	 * aggregation node, on every Quantum spine) is no reason to keep it:
	 * its LID keeps the full fabric's entries, through that switch */
	uint32_t *part = keep, navoided = 0, leaves = 0, found = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint32_t v = f->switches[s];
		uint64_t guid = f->nodes[v].guid;
		part[s] = 0;
		for (uint32_t i = 0; i < o->navoid; i++)
			if (o->avoid[i] == guid) {
				part[s] = 1;
				break;
			}
		for (int p = 1; part[s] && p <= f->nodes[v].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)v, p);
			if (pp->peer_node != IBF_NO_NODE &&
			    f->nodes[pp->peer_node].type != IBF_NODE_SWITCH &&
			    !ibf_ca_in_switch(f, pp->peer_node, pp->peer_port)) {
				part[s] = 0;
				leaves++;
			}
		}
		navoided += part[s];
	}
	found = navoided + leaves;
	if (leaves)
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "hratio: %u avoided switches have end ports and stay in use", leaves);
	/* a leaf that stays is in the fabric: "0 of 1 in the fabric" for an
	 * avoided leaf read as a wrong GUID */
	if (!navoided || navoided == f->nsw) {
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "hratio: %u of %u avoided GUIDs are switches of the fabric, %u of them "
			 "left out%s",
			 found, o->navoid, navoided,
			 navoided ? ": all switches, nothing to avoid" : ": nothing to avoid");
		goto out;
	}
	struct ibf_fabric *g = component(f, part, 0, orig, sub, err);
	if (!g) {
		rc = err ? err->code : IBF_ENOMEM;
		goto out;
	}
	struct ibf_route_opts o2 = *o;
	o2.avoid = NULL;
	o2.navoid = 0;
	o2.lid_keep = NULL; /* the reduced fabric is routed whole */
	o2.nlid_keep = 0;
	struct ibf_routes rs;
	struct ibf_route_report rp;
	memset(&rp, 0, sizeof(rp));
	rc = ibf_routes_init(&rs, g->nsw, ibf_max_lid(g), 1, err);
	if (!rc)
		rc = route_all(g, &o2, &rs, &rp, err);
	if (!rc) {
		uint64_t taken = 0;
		for (uint32_t s = 0; s < g->nsw; s++) {
			uint32_t os = (uint32_t)f->nodes[orig[g->switches[s]]].sw;
			const uint8_t *from = ibf_lft(&rs, s);
			uint8_t *to = ibf_lft(r, os);
			uint32_t top = rs.max_lid < r->max_lid ? rs.max_lid : r->max_lid;
			for (uint32_t lid = 1; lid <= top; lid++)
				if (from[lid] != IBF_LFT_NONE) {
					taken += to[lid] != from[lid];
					to[lid] = from[lid];
					if (r->hops && rs.hops)
						r->hops[(size_t)os * r->stride + lid] =
							rs.hops[(size_t)s * rs.stride + lid];
				}
		}
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "hratio: avoiding %u switches: %llu LFT entries moved off them", navoided,
			 (unsigned long long)taken);
	}
	ibf_routes_free(&rs);
	ibf_fabric_free(g);
out:
	free(keep);
	free(orig);
	free(sub);
	return rc;
}

int ibf_route_hratio(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	int rc = route_all(f, o, r, rep, err);
	if (!rc && o && o->avoid && o->navoid)
		rc = route_avoiding(f, o, r, err);
	return rc;
}

static int route_all(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	uint32_t *comp = malloc(((size_t)f->nsw + 1) * sizeof(*comp));
	if (!comp)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint32_t nc = ibf_components(f, comp);
	if (nc <= 1) {
		free(comp);
		int rc = route_one(f, o, r, rep, "the fabric", err);
		if (!rc)
			snprintf(r->engine, sizeof(r->engine), "hratio");
		return rc;
	}
	if (o)
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "hratio: %u switch components (rails without spines): each routed on its "
			 "own, no paths between them",
			 nc);
	int32_t *orig = malloc(((size_t)f->nnodes + 1) * sizeof(int32_t));
	int32_t *sub = malloc(((size_t)f->nnodes + 1) * sizeof(int32_t));
	int rc = 0;
	if (!orig || !sub)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	struct ibf_route_report total;
	memset(&total, 0, sizeof(total));
	for (uint32_t c = 0; c < nc && !rc; c++) {
		struct ibf_fabric *g = component(f, comp, c, orig, sub, err);
		if (!g) {
			rc = err ? err->code : IBF_ENOMEM;
			break;
		}
		struct ibf_routes rs;
		struct ibf_route_report rp;
		memset(&rp, 0, sizeof(rp));
		char what[64];
		snprintf(what, sizeof(what), "switch component %u", c);
		rc = ibf_routes_init(&rs, g->nsw, ibf_max_lid(g), 1, err);
		if (!rc)
			rc = route_one(g, o, &rs, &rp, what, err);
		if (!rc) {
			/* the component's columns into the whole fabric's tables */
			for (uint32_t s = 0; s < g->nsw; s++) {
				int on = orig[g->switches[s]];
				uint32_t os = (uint32_t)f->nodes[on].sw;
				uint32_t top = rs.max_lid < r->max_lid ? rs.max_lid : r->max_lid;
				memcpy(ibf_lft(r, os), ibf_lft(&rs, s), (size_t)top + 1);
				if (r->hops && rs.hops)
					memcpy(r->hops + (size_t)os * r->stride,
					       rs.hops + (size_t)s * rs.stride, (size_t)top + 1);
			}
			if (rp.layers > total.layers)
				total.layers = rp.layers;
			if (rs.lmc > r->lmc)
				r->lmc = rs.lmc;
			total.pairs_total += rp.pairs_total;
			total.pairs_nonminimal += rp.pairs_nonminimal;
			total.pairs_fallback += rp.pairs_fallback;
			total.seconds += rp.seconds;
		}
		ibf_routes_free(&rs);
		ibf_fabric_free(g);
	}
	free(orig);
	free(sub);
	free(comp);
	if (!rc) {
		snprintf(r->engine, sizeof(r->engine), "hratio");
		if (rep)
			*rep = total;
	}
	return rc;
}
