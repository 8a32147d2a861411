/* Fuzz target: an etcd /v3/kv/range reply (JSON with base64 keys and values)
 * as the registry's etcd backend reads it, then decisions for its GPUs. */
#include "fuzz.h"
#include "ibf_rail.h"

FUZZ_TARGET(etcd)
{
	struct ibf_rail_registry r;
	if (ibf_rail_etcd_parse_range((const char *)data, size, "fuzz", "/ibfab/rails/", &r, NULL))
		return 0;
	int nd = r.ndomains < 4 ? r.ndomains : 4, nr = r.nrails < 4 ? r.nrails : 4;
	for (int a = 0; a < nd; a++)
		for (int b = 0; b < nd; b++)
			for (int g = 0; g < nr; g++)
				for (int h = 0; h < nr; h++) {
					struct ibf_rail_decision x;
					ibf_rail_registry_decide(&r, r.timestamp + 1, r.domain[a],
								 r.rail_label[g], r.domain[b],
								 r.rail_label[h], &x);
				}
	ibf_rail_registry_free(&r);
	return 0;
}
