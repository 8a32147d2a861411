/* Fuzz target: traffic files of `ibfab sim flow --pattern file:PATH`
 * ("SRC DST BYTES [PHASE]" lines) on the base fabric, its 6 hosts with 2
 * ranks each (linear placement: ranks 2h and 2h + 1 share host h).  A file
 * that parses is checked (ranks in range, no flow to itself, bytes in
 * (0, 1e15], flows sorted by phase, the phase count), run as phases (in
 * order, each phase's bytes its largest flow's), and its first phases get
 * max-min fair rates and a finite or infinite, never negative, time. */
#include "fuzz.h"
#include "ibf_sim.h"

#include <math.h>
#include <stdlib.h>

#define MAX_SOLVED 3

struct walk {
	const struct ibf_sim_net *n;
	const struct ibf_sim_placement *pl;
	uint32_t next, nphases, solved;
	uint64_t flows;
};

static int phase(void *ctx, const struct ibf_sim_phase *ph, uint32_t index, uint32_t nphases)
{
	struct walk *w = ctx;
	if (index != w->next++ || nphases != w->nphases || index >= nphases || !ph->nflows ||
	    ph->repeat != 1)
		abort();
	for (uint64_t i = 0; i < ph->nflows; i++) {
		const struct ibf_sim_flow *fl = &ph->flow[i];
		if (fl->src >= w->pl->nranks || fl->dst >= w->pl->nranks || fl->src == fl->dst ||
		    fl->demand != 0 || !(fl->bytes > 0) || fl->bytes > ph->bytes)
			abort();
	}
	w->flows += ph->nflows;
	if (w->solved < MAX_SOLVED) {
		struct ibf_sim_layer_policy lp;
		ibf_sim_layers_parse(w->solved & 1 ? "split" : "rr", &lp, NULL);
		struct ibf_sim_phase_result res;
		if (!ibf_sim_maxmin_phase(w->n, w->pl, ph, &lp, &res, NULL, NULL, NULL) &&
		    (res.flows + res.local != ph->nflows || !(res.time_us >= 0) ||
		     !(res.aggregate >= 0) || !isfinite(res.aggregate)))
			abort();
		w->solved++;
	}
	return 0;
}

FUZZ_TARGET(traffic)
{
	static struct ibf_sim_net net;
	static struct ibf_sim_placement pl;
	static int ready;
	if (!ready) {
		if (ibf_sim_net_init(&net, fuzz_base_fabric(), fuzz_base_routes(),
				     IBF_CONG_ORDER_AUTO, NULL) ||
		    ibf_sim_place(&net, IBF_PLACE_LINEAR, 0, 2, 1, NULL, &pl, NULL))
			abort();
		ready = 1;
	}
	struct ibf_sim_traffic t;
	if (ibf_sim_traffic_parse(&net, &pl, (const char *)data, size, "fuzz", &t, NULL)) {
		if (t.n || t.fl) /* nothing is left behind on an error */
			abort();
		return 0;
	}
	uint32_t np = 0;
	for (uint64_t i = 0; i < t.n; i++) {
		const struct ibf_sim_traffic_flow *f = &t.fl[i];
		if (f->src >= pl.nranks || f->dst >= pl.nranks || f->src == f->dst ||
		    !(f->bytes > 0) || f->bytes > 1e15 || (i && f->phase < t.fl[i - 1].phase))
			abort();
		np += !i || f->phase != t.fl[i - 1].phase;
	}
	if (!t.n || np != t.nphases)
		abort();
	struct walk w = { &net, &pl, 0, t.nphases, 0, 0 };
	if (ibf_sim_traffic_run(&t, phase, &w, NULL) || w.next != t.nphases || w.flows != t.n)
		abort();
	ibf_sim_traffic_free(&t);
	return 0;
}
