/* Fuzz target: LFT dumps (opensm-lfts.dump, dump_lfts / ibroute output) read
 * against the base fabric, then route check, stats, the deadlock schemes and
 * the verifier on the tables read. */
#include "fuzz.h"

FUZZ_TARGET(lfts)
{
	const struct ibf_fabric *f = fuzz_base_fabric();
	struct ibf_routes r;
	if (ibf_lfts_parse(f, (const char *)data, size, "fuzz", &r, NULL))
		return 0;
	fuzz_consume_routes(f, &r);
	ibf_routes_free(&r);
	return 0;
}
