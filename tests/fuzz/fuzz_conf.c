/* Fuzz target: ibfab.conf, then the base fabric routed with the engine
 * options and the deadlock scheme it sets. */
#include "fuzz.h"

FUZZ_TARGET(conf)
{
	struct ibf_conf c;
	ibf_conf_default(&c);
	if (ibf_conf_parse((const char *)data, size, "fuzz", &c, NULL))
		return 0;
	char buf[512];
	ibf_conf_format(&c, buf, sizeof(buf));
	struct ibf_route_opts ro;
	ibf_conf_to_route_opts(&c, &ro);
	ro.threads = 1; /* the result never depends on it; keep the run single-threaded */
	const struct ibf_fabric *f = fuzz_base_fabric();
	static const char *const engines[] = { "minimal", "layered" };
	for (unsigned i = 0; i < 2; i++) {
		struct ibf_routes r;
		if (ibf_route(f, engines[i], &ro, &r, NULL, NULL))
			continue;
		struct ibf_dl_opts o;
		ibf_dl_opts_default(&o);
		o.scheme = c.deadlock;
		o.max_vls = c.max_vls;
		o.best_effort = c.best_effort;
		struct ibf_dl *dlres = NULL;
		if (!ibf_deadlock_apply(f, &r, &o, &dlres, NULL))
			ibf_dl_free(dlres);
		ibf_routes_free(&r);
	}
	return 0;
}
