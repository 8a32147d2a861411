/* The engine registry and the ibf_route convenience entry point. */
#include "ibf_routing.h"
#include "ibf_fattree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ibf_engine ibf_engines[] = {
	{ "minimal", ibf_route_minimal,
	  "balanced shortest paths, one balanced tree per LID (like minhop/SSSP)" },
	{ "layered", ibf_route_layered,
	  "layer 0 minimal, layers >= 1 non-minimal and edge-disjoint per pair (LNMP-style)" },
	{ "lnmp", ibf_route_layered, "alias of layered" },
	{ "dmodk", ibf_route_dmodk,
	  "D-mod-K for fat trees (Zahavi), LMC layers over different spines" },
	{ "hratio", ibf_route_hratio,
	  "rail GPU clusters: each rail component on its own, D-mod-K over rails and spines" },
	{ NULL, NULL, NULL },
};

const struct ibf_engine *ibf_engine_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct ibf_engine *e = ibf_engines; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

void ibf_route_opts_default(struct ibf_route_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 0;
	o->threads = 1;
	o->min_len.base = IBF_WIN_DIST;
	o->min_len.value = 1;
	o->max_len.base = IBF_WIN_DIAM;
	o->max_len.value = 1;
	o->max_paths_per_layer = 0;
	o->layers = 0;
}

/* Engines visit switches and destinations in node order.  So that the
 * tables do not depend on the order in which an input file (ibnetdiscover
 * discovery order) or OpenSM's maps list the nodes, ibf_route() routes a
 * copy in canonical order (ibf_fabric_canonical: by node GUID) and maps the
 * rows back to the caller's switch indices. */
static int route_canonical(const struct ibf_fabric *f, const struct ibf_engine *e,
			   const struct ibf_route_opts *o, struct ibf_routes *r,
			   struct ibf_route_report *rep, struct ibf_error *err)
{
	struct ibf_fabric *c = NULL;
	uint32_t *sw_of = NULL;
	memset(r, 0, sizeof(*r)); /* on failure the caller finds no tables */
	int rc = ibf_fabric_canonical(f, &c, &sw_of, err);
	if (rc)
		return rc;
	struct ibf_routes cr;
	memset(&cr, 0, sizeof(cr));
	rc = ibf_routes_init(&cr, c->nsw, ibf_max_lid(c), 1, err);
	if (!rc)
		rc = e->fn(c, o, &cr, rep, err);
	/* row s of the copy belongs to the caller's switch sw_of[s] */
	if (!rc && (ibf_rows_permute(cr.lft, cr.stride, c->nsw, sw_of) ||
		    (cr.hops && ibf_rows_permute(cr.hops, cr.stride, c->nsw, sw_of))))
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (!rc) {
		*r = cr; /* the caller's switch order now; the tables exist once */
		memset(&cr, 0, sizeof(cr));
		snprintf(r->engine, sizeof(r->engine), "%s", e->name);
	}
	ibf_routes_free(&cr);
	free(sw_of);
	ibf_fabric_free(c);
	return rc;
}

int ibf_route(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
	      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	const struct ibf_engine *e = ibf_engine_find(engine);
	if (!e)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "unknown routing engine '%s'",
				     engine ? engine : "(null)");
	if (!f || !r)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fabric or route table");
	uint32_t nsw = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		nsw += f->nodes[i].type == IBF_NODE_SWITCH;
	if (!nsw) /* an empty table set would look like a successful route */
		return ibf_error_set(
			err, IBF_ENOROUTE, NULL, 0,
			"the fabric has no switches: there are no forwarding tables to "
			"compute (adapters cabled back to back need none)");
	if (!ibf_fabric_is_sorted(f))
		return route_canonical(f, e, o, r, rep, err);
	int rc = ibf_routes_init(r, f->nsw, ibf_max_lid(f), 1, err);
	if (rc)
		return rc;
	rc = e->fn(f, o, r, rep, err);
	if (rc) {
		ibf_routes_free(r);
		return rc;
	}
	snprintf(r->engine, sizeof(r->engine), "%s", e->name);
	return 0;
}
