/* bench_validate: time Slim Fly plan generation, rendering and validation
 * of a plan against its own rendering, then against the rendering with
 * every switch under a factory description (all placed by the hosts behind
 * them: renamed findings).  Prints figures, never fails on time.
 * Usage: bench_validate [q ...]   (default: 5 11 19 29) */
#include "ibf_cabling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int bench(int q)
{
	struct ibf_error err;
	struct ibf_sfplan_opts o = { .q = q, .hosts = -1 };
	double t0 = now();
	struct ibf_plan *p = ibf_plan_slimfly(&o, &err);
	double t1 = now();
	struct ibf_fabric *f = p ? ibf_plan_to_fabric(p, &err) : NULL;
	double t2 = now();
	if (!f) {
		fprintf(stderr, "bench_validate: q=%d: %s\n", q, err.msg);
		ibf_plan_free(p);
		return 1;
	}
	struct ibf_vreport r;
	if (ibf_validate(p, f, NULL, &r, &err)) {
		fprintf(stderr, "bench_validate: q=%d: %s\n", q, err.msg);
		ibf_fabric_free(f);
		ibf_plan_free(p);
		return 1;
	}
	double t3 = now();
	uint32_t sw = 0;
	for (uint32_t c = 0; c < p->ncables; c++)
		sw += p->cables[c].kind != IBF_CABLE_HOST;
	printf("q=%-3d switches=%-5u switch_cables=%-6u cables=%-6u plan=%.3fs render=%.3fs "
	       "validate=%.3fs findings=%u",
	       q, 2u * (unsigned)q * (unsigned)q, sw, p->ncables, t1 - t0, t2 - t1, t3 - t2, r.n);
	ibf_vreport_free(&r);
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == IBF_NODE_SWITCH) {
			char *d = strdup("MF0;switch");
			if (!d)
				break;
			free(f->nodes[i].desc);
			f->nodes[i].desc = d;
		}
	double t4 = now();
	if (ibf_validate(p, f, NULL, &r, &err)) {
		fprintf(stderr, "\nbench_validate: q=%d: %s\n", q, err.msg);
		ibf_fabric_free(f);
		ibf_plan_free(p);
		return 1;
	}
	double t5 = now();
	printf(" factory_names=%.3fs renamed=%u\n", t5 - t4, r.counts[IBF_FIND_RENAMED]);
	ibf_vreport_free(&r);
	ibf_fabric_free(f);
	ibf_plan_free(p);
	return 0;
}

int main(int argc, char **argv)
{
	static const int def[] = { 5, 11, 19, 29 };
	int rc = 0;
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			rc |= bench(atoi(argv[i]));
	else
		for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
			rc |= bench(def[i]);
	return rc;
}
