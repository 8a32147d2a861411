/* Fuzz target: path SL dumps (ibfab SL dump, "<slid> <dlid> <sl>" lines,
 * saquery -p output) for the base fabric, then the verifier with them. */
#include "fuzz.h"

FUZZ_TARGET(sl)
{
	const struct ibf_fabric *f = fuzz_base_fabric();
	struct ibf_sl_table sl;
	if (ibf_sl_parse(f, (const char *)data, size, "fuzz", &sl, NULL))
		return 0;
	struct ibf_sl2vl_table s2v;
	if (!ibf_sl2vl_table_uniform(f, 8, &s2v, NULL)) {
		fuzz_consume_sl(&sl, &s2v);
		ibf_sl2vl_table_free(&s2v);
	}
	ibf_sl_table_free(&sl);
	return 0;
}
