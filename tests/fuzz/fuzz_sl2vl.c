/* Fuzz target: SL2VL dumps (ibfab dump, smpquery sl2vl output) for the base
 * fabric, then the verifier with them; the same text also read against a
 * port limit of 2 data VLs (the reader of `--max-vls` checks). */
#include "fuzz.h"

FUZZ_TARGET(sl2vl)
{
	const struct ibf_fabric *f = fuzz_base_fabric();
	struct ibf_sl2vl_table s2v;
	if (!ibf_sl2vl_parse_limit(f, (const char *)data, size, "fuzz", 2, &s2v, NULL))
		ibf_sl2vl_table_free(&s2v);
	if (ibf_sl2vl_parse(f, (const char *)data, size, "fuzz", &s2v, NULL))
		return 0;
	struct ibf_sl_table sl;
	if (!ibf_sl_table_const(f, fuzz_base_routes()->stride, 0, &sl, NULL)) {
		fuzz_consume_sl(&sl, &s2v);
		ibf_sl_table_free(&sl);
	}
	ibf_sl2vl_table_free(&s2v);
	return 0;
}
