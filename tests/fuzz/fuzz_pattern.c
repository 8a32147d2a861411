/* Fuzz target: the traffic pattern specs of `ibfab sim flow --pattern` and
 * `ibfab sim packet --traffic` (shift:C, perm:K, bisection:K, mix:C3, ...)
 * and the layer policies of `sim flow --layers` (rr, hash, layer:J, ...).
 * Input, one item per line:
 *	PATTERN
 *	[LAYERS]                  default rr
 *	[RANKS PPN RANDOM SEED]   numbers; default every host slot, ppn 1,
 *	                          linear placement
 * Ranks are placed on the base fabric (6 hosts), the pattern's phases are
 * built and checked (ranks in range, no self flow, sane bytes and phase
 * numbers), and the first phases get max-min fair rates over the base
 * fabric's minimal routes. */
#include "fuzz.h"
#include "ibf_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 256
#define MAX_SOLVED 4	   /* phases solved per input */
#define MAX_FLOWS 20000ull /* flows built per input before stopping */

struct walk {
	const struct ibf_sim_net *n;
	const struct ibf_sim_placement *pl;
	const struct ibf_sim_layer_policy *lp;
	uint64_t flows;
	uint32_t solved, next;
};

static int phase(void *ctx, const struct ibf_sim_phase *ph, uint32_t index, uint32_t nphases)
{
	struct walk *w = ctx;
	/* phases come in order and, when the count is known, within it */
	if (index != w->next++ || (nphases && index >= nphases))
		abort();
	if (!(ph->bytes >= 0) || !isfinite(ph->bytes) || !memchr(ph->label, 0, sizeof(ph->label)))
		abort();
	for (uint64_t i = 0; i < ph->nflows; i++) {
		const struct ibf_sim_flow *fl = &ph->flow[i];
		if (fl->src >= w->pl->nranks || fl->dst >= w->pl->nranks || fl->src == fl->dst ||
		    !(fl->demand >= 0) || !isfinite(fl->demand))
			abort();
	}
	if (w->solved < MAX_SOLVED && ph->nflows) {
		struct ibf_sim_phase_result res;
		double *rates = malloc(ph->nflows * sizeof(double));
		if (rates &&
		    !ibf_sim_maxmin_phase(w->n, w->pl, ph, w->lp, &res, rates, NULL, NULL)) {
			for (uint64_t i = 0; i < ph->nflows; i++)
				if (!(rates[i] >= 0) || !isfinite(rates[i]))
					abort();
			if (!(res.aggregate >= 0) || !isfinite(res.aggregate))
				abort();
		}
		free(rates);
		w->solved++;
	}
	w->flows += ph->nflows;
	return w->flows > MAX_FLOWS;
}

/* line k (0-based) of the input into buf, NUL-terminated (cut at
 * MAX_LINE - 1 bytes); 0 when the input has fewer lines */
static int line(const uint8_t *data, size_t size, int k, char *buf)
{
	size_t i = 0;
	for (; k > 0; k--) {
		const uint8_t *nl = size > i ? memchr(data + i, '\n', size - i) : NULL;
		if (!nl)
			return 0;
		i = (size_t)(nl - data) + 1;
	}
	size_t j = 0;
	while (i < size && data[i] != '\n' && j < MAX_LINE - 1)
		buf[j++] = (char)data[i++];
	buf[j] = 0;
	return 1;
}

FUZZ_TARGET(pattern)
{
	static struct ibf_sim_net net;
	static int have_net;
	if (!have_net) {
		if (ibf_sim_net_init(&net, fuzz_base_fabric(), fuzz_base_routes(),
				     IBF_CONG_ORDER_AUTO, NULL))
			abort();
		have_net = 1;
	}
	char spec[MAX_LINE], lay[MAX_LINE], place[MAX_LINE];
	if (!line(data, size, 0, spec))
		return 0;
	struct ibf_sim_pattern p;
	if (ibf_sim_pattern_parse(spec, &p, NULL))
		return 0;
	/* file:PATH would open what the input names ("-" reads stdin): the
	 * traffic file parser has its own target (fuzz_traffic.c) */
	if (p.id == IBF_PAT_FILE)
		return 0;
	struct ibf_sim_layer_policy lp;
	if (ibf_sim_layers_parse(line(data, size, 1, lay) && lay[0] ? lay : "rr", &lp, NULL))
		return 0;
	unsigned ranks = 0, ppn = 1, random = 0;
	unsigned long long seed = 1;
	if (line(data, size, 2, place))
		sscanf(place, "%u %u %u %llu", &ranks, &ppn, &random, &seed);
	if (ranks > 64 || ppn < 1 || ppn > 8)
		return 0;
	p.seed = seed;
	struct ibf_sim_placement pl;
	if (ibf_sim_place(&net, random ? IBF_PLACE_RANDOM : IBF_PLACE_LINEAR, ranks, ppn, seed,
			  NULL, &pl, NULL))
		return 0;
	struct walk w = { &net, &pl, &lp, 0, 0, 0 };
	ibf_sim_pattern_run(&net, &pl, &p, phase, &w, NULL);
	ibf_sim_placement_free(&pl);
	return 0;
}
