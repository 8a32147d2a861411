/* Fuzz target: cable plan CSV, then the plan's rendering validated against
 * it and the base fabric validated against it. */
#include "fuzz.h"

FUZZ_TARGET(plan)
{
	struct ibf_plan *p = ibf_plan_parse_csv((const char *)data, size, "fuzz", NULL);
	if (!p)
		return 0;
	struct ibf_vreport rep;
	if (p->nnodes <= 256) {
		struct ibf_fabric *g = ibf_plan_to_fabric(p, NULL);
		if (g) {
			if (!ibf_validate(p, g, NULL, &rep, NULL))
				ibf_vreport_free(&rep);
			ibf_fabric_free(g);
		}
	}
	if (!ibf_validate(p, fuzz_base_fabric(), NULL, &rep, NULL))
		ibf_vreport_free(&rep);
	ibf_plan_free(p);
	return 0;
}
