/* bench_route: the layered engine on Slim Fly fabrics.  Prints wall time,
 * peak RSS, LIDs, fallback counts and path quality read back from the
 * tables; figures only, never pass/fail.
 *   bench_route            q = 5 7 11 13 17 19, LMC 2 and 3
 *   bench_route Q LMC      one case
 *   bench_route Q LMC T    with T threads (default 2)
 *   bench_route Q LMC T 0  the same without the (slow) path-quality read-back */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "ibf_routing.h"
#include "engine_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void one(int q, int lmc, int threads, int quality)
{
	struct ibf_slimfly_opts so = { q, -1, 0, 0 };
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	if (!f) {
		printf("q=%d: %s\n", q, err.msg);
		return;
	}
	if (ibf_assign_lids(f, lmc, 0, &err)) {
		printf("q=%d lmc=%d: %s\n", q, lmc, err.msg);
		ibf_fabric_free(f);
		return;
	}
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.threads = threads;
	struct ibf_routes r;
	struct ibf_route_report rep;
	double t0 = now(), c0 = cpu_now();
	int rc = ibf_route(f, "layered", &o, &r, &rep, &err);
	double dt = now() - t0, dc = cpu_now() - c0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("q=%-2d lmc=%d switches=%u hosts=%u lids=%u threads=%d: %s wall %.2f s, cpu %.2f s, peak RSS %ld MB, "
	       "layer>=1 pairs %llu, in window %llu, fallback %llu\n",
	       q, lmc, f->nsw, f->nhosts_ports, ibf_max_lid(f), threads, rc ? err.msg : "ok", dt,
	       dc, ru.ru_maxrss / 1024, (unsigned long long)rep.pairs_total,
	       (unsigned long long)rep.pairs_nonminimal, (unsigned long long)rep.pairs_fallback);
	if (!rc && quality) {
		struct ec_result a;
		if (!ec_analyse(f, &r, &a) && a.pairs_sw) {
			double n = (double)a.pairs_sw;
			printf("      unrouted %llu loops %llu; switch pairs %llu: >=2 %.1f%% >=3 %.1f%% "
			       ">=4 %.1f%% disjoint; longest layer>=1 path %u hops (%llu > 3); "
			       "paths per link max/mean %.3f\n",
			       (unsigned long long)a.unrouted, (unsigned long long)a.loops,
			       (unsigned long long)a.pairs_sw, 100.0 * (double)a.ge[2] / n,
			       100.0 * (double)a.ge[3] / n, 100.0 * (double)a.ge[4] / n,
			       a.max_len_hi, (unsigned long long)a.len_hi_over3,
			       a.link_max / a.link_mean);
		}
		/* the link balance exactly as `ibfab route stats` reports it */
		struct ibf_path_stats ps;
		if (!ibf_path_stats_compute(f, &r, &ps, &err)) {
			printf("      path_stats: >=3 %.1f%% >=4 %.1f%%, paths per link max/mean %.3f "
			       "(max %.0f mean %.2f min %.0f cv %.3f)\n",
			       100 * ps.share_ge[3], 100 * ps.share_ge[4],
			       ps.link_max / ps.link_mean, ps.link_max, ps.link_mean, ps.link_min,
			       ps.link_cv);
			ibf_path_stats_free(&ps);
		}
	}
	fflush(stdout);
	if (!rc)
		ibf_routes_free(&r);
	ibf_fabric_free(f);
}

int main(int argc, char **argv)
{
	int threads = argc > 3 ? atoi(argv[3]) : 2;
	if (argc > 2) {
		one(atoi(argv[1]), atoi(argv[2]), threads, argc > 4 ? atoi(argv[4]) : 1);
		return 0;
	}
	static const int qs[] = { 5, 7, 11, 13, 17, 19 };
	for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		for (int lmc = 2; lmc <= 3; lmc++)
			one(qs[i], lmc, threads, qs[i] <= 11);
	return 0;
}
