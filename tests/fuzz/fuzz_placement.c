/* Fuzz target: simulator placement files ("RANK HOST[:PORT]") on the base
 * fabric, then every pattern's phases over the parsed placement. */
#include "fuzz.h"
#include "ibf_sim.h"

static int count(void *ctx, const struct ibf_sim_phase *ph, uint32_t i, uint32_t np)
{
	(void)i;
	(void)np;
	*(uint64_t *)ctx += ph->nflows;
	return *(uint64_t *)ctx > 200000; /* enough: stop big patterns early */
}

FUZZ_TARGET(placement)
{
	struct ibf_fabric *f = fuzz_base_copy();
	struct ibf_sim_net n;
	if ((f->finalized || !ibf_fabric_finalize(f, NULL)) &&
	    !ibf_sim_net_init(&n, f, NULL, IBF_CONG_ORDER_AUTO, NULL)) {
		struct ibf_sim_placement pl;
		if (!ibf_sim_place_parse(&n, (const char *)data, size, "fuzz", &pl, NULL)) {
			static const char *const pats[] = { "a2a", "hier", "adversarial", "recdbl",
							    "bruck", "mix:C1", "cumulative" };
			for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
				struct ibf_sim_pattern p;
				uint64_t flows = 0;
				if (!ibf_sim_pattern_parse(pats[k], &p, NULL))
					ibf_sim_pattern_run(&n, &pl, &p, count, &flows, NULL);
			}
			ibf_sim_placement_free(&pl);
		}
		ibf_sim_net_free(&n);
	}
	ibf_fabric_free(f);
	return 0;
}
