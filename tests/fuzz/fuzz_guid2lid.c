/* Fuzz target: guid2lid files applied to a copy of the base fabric, then
 * the LID map and every engine on the LIDs read. */
#include "fuzz.h"

FUZZ_TARGET(guid2lid)
{
	struct ibf_fabric *f = fuzz_base_copy();
	if (!ibf_guid2lid_parse(f, (const char *)data, size, "fuzz", NULL)) {
		struct ibf_lidmap m;
		if (!ibf_lidmap_build(f, &m, NULL)) {
			ibf_lidmap_free(&m);
			fuzz_consume_fabric(f, 1);
		}
	}
	ibf_fabric_free(f);
	return 0;
}
