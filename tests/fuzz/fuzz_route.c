/* Fuzz target: a small fabric in any format (sniffed), routed with every
 * engine (minimal, layered, dmodk), each table set through every deadlock
 * scheme on 8 and 2 VLs, the verifier, route check, stats and the
 * validator. */
#include "fuzz.h"

FUZZ_TARGET(route)
{
	struct ibf_fabric *f =
		ibf_fabric_parse((const char *)data, size, "fuzz", IBF_FMT_AUTO, NULL);
	if (!f)
		return 0;
	fuzz_consume_fabric(f, 1);
	ibf_fabric_free(f);
	return 0;
}
