/* The engine registry and the ibf_route convenience entry point. */
#include "ibf_routing.h"

#include <stdio.h>
#include <string.h>

const struct ibf_engine ibf_engines[] = {
	{ "minimal", ibf_route_minimal,
	  "balanced shortest paths, one balanced tree per LID (like minhop/SSSP)" },
	{ "layered", ibf_route_layered,
	  "layer 0 minimal, layers >= 1 non-minimal and edge-disjoint per pair (LNMP-style)" },
	{ "lnmp", ibf_route_layered, "alias of layered" },
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

int ibf_route(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
	      struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	const struct ibf_engine *e = ibf_engine_find(engine);
	if (!e)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "unknown routing engine '%s'",
				     engine ? engine : "(null)");
	if (!f || !r)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fabric or route table");
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
