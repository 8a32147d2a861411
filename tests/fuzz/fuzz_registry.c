/* Fuzz target: the rail health registry (JSON), then decisions for every
 * pair of its GPUs at a fresh and a stale time. */
#include "fuzz.h"
#include "ibf_rail.h"

FUZZ_TARGET(registry)
{
	struct ibf_rail_registry r;
	if (ibf_rail_registry_parse((const char *)data, size, "fuzz", &r, NULL))
		return 0;
	int nd = r.ndomains < 6 ? r.ndomains : 6, nr = r.nrails < 6 ? r.nrails : 6;
	for (int a = 0; a < nd; a++)
		for (int b = 0; b < nd; b++)
			for (int g = 0; g < nr; g++)
				for (int h = 0; h < nr; h++) {
					struct ibf_rail_decision x;
					ibf_rail_registry_decide(&r, r.timestamp + 1, r.domain[a],
								 r.rail_label[g], r.domain[b],
								 r.rail_label[h], &x);
					ibf_rail_registry_decide(&r, r.timestamp + r.max_age + 2,
								 r.domain[a], r.rail_label[g],
								 r.domain[b], r.rail_label[h], &x);
				}
	ibf_rail_registry_free(&r);
	return 0;
}
