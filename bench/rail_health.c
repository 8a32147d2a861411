/* bench/rail_health: what the plugin's report() path costs.  A rail
 * cluster (SERVERS x GPUS, SPINES spines; default 256 x 8, 16 spines) is
 * scored by rail/health.c over SWEEPS PerfMgr sweeps (default 20) of
 * deltas as OpenSM reports them, in the order PerfMgr would (port by
 * port, wait then data); prints the ports, the time per counter event and
 * per closed sweep (rails of 32-GPU leaves).  Figures, never pass/fail: docs/performance.md. */
#include "ibf_rail.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct ibf_rail_opts ro = { 0 };
	ro.servers = argc > 1 ? atoi(argv[1]) : 256;
	ro.gpus = argc > 2 ? atoi(argv[2]) : 8;
	ro.spines = argc > 3 ? atoi(argv[3]) : 16;
	int sweeps = argc > 4 ? atoi(argv[4]) : 20;
	ro.rail_switches = ro.servers > 32 ? ro.servers / 32 : 1; /* 32 GPUs per leaf */
	struct ibf_error err = { 0 };
	char msg[512];
	struct ibf_fabric *f = ibf_gen_rail(&ro, &err);
	if (!f || (!f->finalized && ibf_fabric_finalize(f, &err))) {
		fprintf(stderr, "rail_health: %s\n", ibf_error_format(&err, msg, sizeof(msg)));
		return 1;
	}
	struct ibf_rail_info ri;
	if (ibf_rail_detect(f, NULL, &ri, &err)) {
		fprintf(stderr, "rail_health: %s\n", ibf_error_format(&err, msg, sizeof(msg)));
		return 1;
	}
	struct ibf_health_opts o;
	ibf_health_opts_default(&o);
	o.avoid_below = 30;
	struct ibf_health *h = ibf_health_new(f, &ri, &o, &err);
	if (!h) {
		fprintf(stderr, "rail_health: %s\n", ibf_error_format(&err, msg, sizeof(msg)));
		return 1;
	}
	uint64_t state = 1, events = 0;
	unsigned long closed = 0;
	double t0 = now();
	for (int s = 0; s < sweeps; s++)
		for (uint32_t id = 0; id < f->nnodes; id++) {
			const struct ibf_node *nd = &f->nodes[id];
			for (int p = 1; p <= (int)nd->nports; p++) {
				uint64_t w = ibf_splitmix64(&state) % 2000000;
				uint64_t d = ibf_splitmix64(&state) % 4000000;
				closed += ibf_health_sample(h, nd->guid, p, IBF_HEALTH_WAIT, w,
							    IBF_HEALTH_DELTA) == IBF_HEALTH_SWEEP;
				closed += ibf_health_sample(h, nd->guid, p, IBF_HEALTH_DATA, d,
							    IBF_HEALTH_DELTA) == IBF_HEALTH_SWEEP;
				events += 2;
			}
		}
	double secs = now() - t0;
	printf("rail cluster %d servers x %d GPUs, %d spines: %d rails, %d scored switch ports "
	       "(rails and spines), %u nodes\n",
	       ro.servers, ro.gpus, ro.spines, ibf_health_nrails(h), ibf_health_nports(h),
	       f->nnodes);
	printf("%d sweeps, %llu counter events (CA ports included, as PerfMgr reports them), "
	       "%lu sweeps closed\n",
	       sweeps, (unsigned long long)events, closed);
	printf("%.1f ns per event, %.3f ms per sweep of events and scores\n",
	       secs * 1e9 / (double)events, secs * 1e3 / sweeps);
	ibf_health_free(h);
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
	return 0;
}
