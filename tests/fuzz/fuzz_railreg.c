/* Fuzz target: the rail registry reader (rail/registry.c), then a decision
 * and a rewrite-free round of every score it read. */
#include "fuzz.h"
#include "ibf_rail.h"

FUZZ_TARGET(railreg)
{
	struct ibf_rail_registry reg;
	if (ibf_rail_registry_parse((const char *)data, size, "fuzz", &reg, NULL))
		return 0;
	struct ibf_rail_choice ch;
	const char *h1 = reg.ndomains ? reg.domain[0] : "a";
	const char *h2 = reg.ndomains > 1 ? reg.domain[1] : "b";
	int g2 = reg.nrails ? reg.rail_label[reg.nrails - 1] : 1;
	ibf_rail_registry_decide(&reg, 1, h1, 0, h2, g2, 0, 100, 1, &ch);
	ibf_rail_registry_free(&reg);
	return 0;
}
