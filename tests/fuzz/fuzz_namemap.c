/* Fuzz target: node-name-map files, then the validator using the map to
 * name the base fabric's switches against the base fabric's plan. */
#include "fuzz.h"

FUZZ_TARGET(namemap)
{
	struct ibf_namemap m;
	if (ibf_namemap_parse(&m, (const char *)data, size, "fuzz", NULL))
		return 0;
	const struct ibf_fabric *f = fuzz_base_fabric();
	for (uint32_t i = 0; i < f->nnodes; i++)
		(void)ibf_namemap_lookup(&m, f->nodes[i].guid);
	struct ibf_plan *p = ibf_plan_from_fabric(f, NULL);
	if (p) {
		struct ibf_validate_opts o = { .namemap = &m };
		struct ibf_vreport rep;
		if (!ibf_validate(p, f, &o, &rep, NULL))
			ibf_vreport_free(&rep);
		ibf_plan_free(p);
	}
	ibf_namemap_free(&m);
	return 0;
}
