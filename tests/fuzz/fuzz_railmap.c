/* Fuzz target: rail mapping files, then rail detection on a copy of the
 * base fabric with the parsed map. */
#include "fuzz.h"
#include "ibf_rail.h"

FUZZ_TARGET(railmap)
{
	struct ibf_rail_map *m = ibf_rail_map_parse((const char *)data, size, "fuzz", NULL);
	if (m) {
		struct ibf_fabric *f = fuzz_base_copy();
		struct ibf_rail_info ri;
		if ((f->finalized || !ibf_fabric_finalize(f, NULL)) &&
		    !ibf_rail_detect(f, m, &ri, NULL))
			ibf_rail_info_free(&ri);
		ibf_fabric_free(f);
		ibf_rail_map_free(m);
	}
	return 0;
}
