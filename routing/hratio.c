/* hratio: routing for rail fabrics (docs/rail.md).
 *
 * The switch graph is split into its connected components.  A rail-only
 * fabric has one component per rail (a switch or a small Clos); a
 * rail-optimized fabric is one component where spines join the rails.
 * Every component is copied into a fabric of its own (its switches, the
 * adapters cabled to them, their LIDs) and routed there with D-mod-K
 * (routing/dmodk.c): up/down paths, balanced over the upper levels, the
 * LMC layers of a destination leaving the leaf by different up-ports and
 * so reaching different spines.  The rows come back to the caller's
 * switch indices; a LID owned in another component stays IBF_LFT_NONE
 * (no cable path exists, route check reports such pairs as `split`).
 *
 * Same-rail traffic stays in its rail: D-mod-K climbs only to the first
 * level where a switch has a down path to the destination, and inside a
 * rail (one switch, or a rail Clos) that level is within the rail; only
 * cross-rail traffic reaches a spine.  A component that is not a tree
 * (ibf_ftree_build refuses it) is routed with the minimal engine and the
 * fallback is logged: such a component has no up/down guarantee, which
 * `ibfab deadlock verify` then shows. */
#include "engine_internal.h"
#include "ibf_fattree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fabric of component c: its switches and every non-switch node cabled
 * to one of them, in the caller's node order (so a sorted fabric gives a
 * sorted part).  newid[node] receives the node's id in the part or -1. */
static struct ibf_fabric *part_of(const struct ibf_fabric *f, const uint32_t *comp, uint32_t c,
				  int32_t *newid, struct ibf_error *err)
{
	struct ibf_fabric *p = ibf_fabric_new();
	if (!p) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		int in = 0;
		if (n->type == IBF_NODE_SWITCH) {
			in = comp[n->sw] == c;
		} else {
			for (int q = 1; q <= n->nports && !in; q++) {
				const struct ibf_port *pp = ibf_port(f, (int)i, q);
				if (pp->peer_node != IBF_NO_NODE &&
				    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH &&
				    comp[f->nodes[pp->peer_node].sw] == c)
					in = 1;
			}
		}
		newid[i] = -1;
		if (!in)
			continue;
		int id = ibf_fabric_add_node(p, n->type, n->nports, n->guid, n->desc, n->id, err);
		if (id < 0)
			goto fail;
		newid[i] = id;
		struct ibf_node *m = &p->nodes[id];
		m->enhanced_sp0 = n->enhanced_sp0;
		m->sysimg_guid = n->sysimg_guid;
		m->vendid = n->vendid;
		m->devid = n->devid;
		for (int q = 0; q <= n->nports; q++) {
			const struct ibf_port *src = ibf_port(f, (int)i, q);
			struct ibf_port *dst = ibf_port(p, id, q);
			dst->lid = src->lid;
			dst->lmc = src->lmc;
			dst->guid = src->guid;
			dst->width_sup = src->width_sup;
			dst->speed_sup = src->speed_sup;
		}
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		if (newid[i] < 0)
			continue;
		const struct ibf_node *n = &f->nodes[i];
		for (int q = 1; q <= n->nports; q++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, q);
			int32_t pn = pp->peer_node;
			if (pn == IBF_NO_NODE || newid[pn] < 0)
				continue;
			if ((uint32_t)pn < i || ((uint32_t)pn == i && pp->peer_port < q))
				continue; /* each cable once */
			if (ibf_fabric_connect(p, newid[i], q, newid[pn], pp->peer_port, pp->width,
					       pp->speed, err))
				goto fail;
		}
	}
	if (ibf_fabric_finalize(p, err))
		goto fail;
	return p;
fail:
	ibf_fabric_free(p);
	return NULL;
}

/* Route one part: D-mod-K, or minimal when the part is not a tree. */
static int route_part(const struct ibf_fabric *p, const struct ibf_route_opts *o,
		      struct ibf_routes *pr, uint32_t c, uint32_t *fallbacks, struct ibf_error *err)
{
	int rc = ibf_routes_init(pr, p->nsw, ibf_max_lid(p), 1, err);
	if (rc)
		return rc;
	struct ibf_route_opts po = *o;
	po.log = NULL; /* dmodk's refusal of a non-tree is not an error here */
	po.roots = NULL; /* roots are found per component */
	po.nroots = 0;
	struct ibf_error e2;
	ibf_error_clear(&e2);
	if (p->nsw == 1) {
		/* one switch: every LID leaves by the port it hangs off */
		rc = ibf_route_minimal(p, o, pr, NULL, err);
	} else {
		rc = ibf_route_dmodk(p, &po, pr, NULL, &e2);
		if (rc) {
			eng_log(o, IBF_LOG_INFO,
			       "hratio: switch component %u (%u switches) is not a tree (%s); "
			       "routed with minimal paths, no up/down guarantee",
			       c, p->nsw, e2.msg);
			(*fallbacks)++;
			memset(pr->lft, IBF_LFT_NONE, (size_t)pr->nsw * pr->stride);
			if (pr->hops)
				memset(pr->hops, 0xff, (size_t)pr->nsw * pr->stride);
			rc = ibf_route_minimal(p, o, pr, NULL, err);
		}
	}
	return rc;
}

int ibf_route_hratio(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	if (!f || !r || !r->lft)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fabric or route table");
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	struct ibf_route_opts defo;
	if (!o) {
		ibf_route_opts_default(&defo);
		o = &defo;
	}
	uint32_t S = f->nsw;
	uint32_t *comp = malloc((S ? S : 1) * sizeof(*comp));
	int32_t *newid = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*newid));
	uint32_t nc = comp && newid ? ibf_components(f, comp) : 0;
	if (!nc) {
		free(comp);
		free(newid);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	uint32_t fallbacks = 0;
	int rc = 0;
	for (uint32_t c = 0; c < nc && !rc; c++) {
		struct ibf_fabric *p = part_of(f, comp, c, newid, err);
		if (!p) {
			rc = err ? err->code : IBF_ENOMEM;
			break;
		}
		struct ibf_routes pr;
		memset(&pr, 0, sizeof(pr));
		rc = route_part(p, o, &pr, c, &fallbacks, err);
		if (!rc) {
			/* rows back to the caller's switch indices; the part keeps
			 * the caller's LIDs, so columns line up */
			for (uint32_t i = 0; i < f->nnodes; i++) {
				if (newid[i] < 0 || f->nodes[i].type != IBF_NODE_SWITCH)
					continue;
				uint32_t ps = (uint32_t)p->nodes[newid[i]].sw;
				uint32_t fs = (uint32_t)f->nodes[i].sw;
				uint32_t n = pr.stride < r->stride ? pr.stride : r->stride;
				memcpy(ibf_lft(r, fs), ibf_lft(&pr, ps), n);
				if (r->hops && pr.hops)
					memcpy(r->hops + (size_t)fs * r->stride,
					       pr.hops + (size_t)ps * pr.stride, n);
			}
		}
		ibf_routes_free(&pr);
		ibf_fabric_free(p);
	}
	free(comp);
	free(newid);
	if (rc)
		return rc;
	int lmc = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int q = 0; q <= f->nodes[i].nports; q++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, q);
			if (pp->lid && pp->lmc > lmc)
				lmc = pp->lmc;
		}
	r->lmc = lmc;
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		rep->layers = 1 << lmc;
	}
	eng_log(o, IBF_LOG_INFO,
	       "hratio: %u switch component(s)%s, %u routed up/down (D-mod-K), %u minimal", nc,
	       nc > 1 ? " (pairs across components have no path)" : "", nc - fallbacks,
	       fallbacks);
	return 0;
}
