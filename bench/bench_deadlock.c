/* bench_deadlock: time and peak memory of the deadlock schemes and the
 * verifier on Slim Fly fabrics routed by `layered` (prints figures, never
 * pass/fail).
 *
 *   bench/bench_deadlock [--lmc N] [--threads N] [--scheme dfsssp|coloring]
 *                        [--no-verify] [q ...]   (default q = 5 7 11 13, both schemes)
 *
 * Each (q, scheme) runs in its own child process, so the peak RSS (VmHWM)
 * of one run does not hide another's.  Columns: route = layered engine
 * time; scheme = dfsssp / coloring time; verify = the independent verifier
 * on the scheme's SL and SL2VL tables (skipped with --no-verify); hwm = the
 * child's peak RSS; after route = its peak RSS before the scheme ran.
 * For dfsssp also the work of its online cycle checks, which does not
 * depend on the machine's load: searches (new dependencies against a
 * layer's topological order), of them closing a cycle, and channels the
 * searches expanded, in thousands. */
#include "ibf_deadlock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long hwm_kb(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	if (!fp)
		return -1;
	char line[256];
	long v = -1;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "VmHWM:", 6))
			v = strtol(line + 6, NULL, 10);
	fclose(fp);
	return v;
}

static int run(int q, int lmc, int threads, int scheme, int verify)
{
	struct ibf_error err;
	struct ibf_slimfly_opts so = { q, -1, 0, 0 };
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	if (!f || ibf_assign_lids(f, lmc, 0, &err)) {
		fprintf(stderr, "q=%d: %s\n", q, err.msg);
		return 1;
	}
	struct ibf_route_opts ro;
	ibf_route_opts_default(&ro);
	ro.threads = threads;
	struct ibf_routes r;
	double t0 = now();
	if (ibf_route(f, "layered", &ro, &r, NULL, &err)) {
		fprintf(stderr, "q=%d: layered: %s\n", q, err.msg);
		return 1;
	}
	double t1 = now();
	long hwm_route = hwm_kb();
	struct ibf_dl_opts o;
	ibf_dl_opts_default(&o);
	o.scheme = scheme;
	o.max_vls = 8;
	o.threads = threads;
	struct ibf_dl *dlres = NULL;
	int rc = ibf_deadlock_apply(f, &r, &o, &dlres, &err);
	double t2 = now();
	long hwm_scheme = hwm_kb();
	if (rc) {
		printf("%-4d %6u %6u  %-9s  %7.2f  failed: %s\n", q, f->nsw, r.max_lid,
		       ibf_deadlock_name(scheme), t1 - t0, err.msg);
		return 1;
	}
	struct ibf_sl_table sl;
	struct ibf_sl2vl_table s2v;
	struct ibf_verify_opts vo;
	ibf_verify_opts_default(&vo);
	struct ibf_verify_report rep;
	double t3 = now();
	memset(&sl, 0, sizeof(sl));
	memset(&s2v, 0, sizeof(s2v));
	memset(&rep, 0, sizeof(rep));
	if (verify) {
		rc = ibf_sl_table_from_dl(f, dlres, &sl, &err);
		if (!rc)
			rc = ibf_sl2vl_table_from_dl(f, dlres, &s2v, &err);
		if (!rc)
			rc = ibf_deadlock_verify(f, &r, &sl, &s2v, &vo, &rep, &err);
	}
	double t4 = now();
	long hwm_verify = hwm_kb();
	const struct ibf_dl *dl = dlres;
	const char *vres = rc		     ? "error"
			   : !verify		     ? "-"
			   : ibf_verify_ok(&rep) ? "ok"
						     : "CYCLES";
	printf("%-4d %6u %6u  %-9s  %7.2f  %7.2f  %7.2f  %4d  %3d  %6s  %8.1f  %8.1f  %8.1f", q,
	       f->nsw, r.max_lid, ibf_deadlock_name(dl->scheme), t1 - t0, t2 - t1, t4 - t3,
	       dl->scheme == IBF_DEADLOCK_DFSSSP ? dl->layers : dl->ncolors, dl->vls_used, vres,
	       hwm_route / 1024.0, hwm_scheme / 1024.0, hwm_verify / 1024.0);
	if (dl->scheme == IBF_DEADLOCK_DFSSSP)
		printf("  %9.1f  %9.1f  %10.1f\n", dl->order_checks / 1e3, dl->order_cycles / 1e3,
		       dl->order_visits / 1e3);
	else
		printf("  %9s  %9s  %10s\n", "-", "-", "-");
	fflush(stdout);
	if (!rc)
		ibf_verify_report_free(&rep);
	ibf_sl_table_free(&sl);
	ibf_sl2vl_table_free(&s2v);
	ibf_dl_free(dlres);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	int lmc = 2, threads = 2, qs[32], nq = 0, verify = 1;
	int s_lo = IBF_DEADLOCK_DFSSSP, s_hi = IBF_DEADLOCK_COLORING;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lmc") && i + 1 < argc)
			lmc = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-verify"))
			verify = 0;
		else if (!strcmp(argv[i], "--scheme") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "dfsssp"))
				s_lo = s_hi = IBF_DEADLOCK_DFSSSP;
			else if (!strcmp(argv[i], "coloring"))
				s_lo = s_hi = IBF_DEADLOCK_COLORING;
			else {
				fprintf(stderr, "bench_deadlock: --scheme dfsssp|coloring\n");
				return 2;
			}
		} else if (argv[i][0] == '-' || atoi(argv[i]) < 2) {
			fprintf(stderr,
				"usage: bench_deadlock [--lmc N] [--threads N] "
				"[--scheme dfsssp|coloring] [--no-verify] [q ...]\n");
			return 2;
		} else if (nq < 32)
			qs[nq++] = atoi(argv[i]);
	}
	if (!nq) {
		int def[] = { 5, 7, 11, 13 };
		for (int i = 0; i < 4; i++)
			qs[nq++] = def[i];
	}
	printf("# Slim Fly, layered routes, LMC %d, 8 VLs, %d threads; times in s, memory in MiB "
	       "(peak RSS of the process so far)\n",
	       lmc, threads);
	printf("%-4s %6s %6s  %-9s  %7s  %7s  %7s  %4s  %3s  %6s  %8s  %8s  %8s  %9s  %9s  %10s\n",
	       "q", "sw", "maxlid", "scheme", "route", "scheme", "verify", "L/C", "VLs", "verify",
	       "hwm-rt", "hwm-sch", "hwm-ver", "checks-k", "cycles-k", "visits-k");
	int fails = 0;
	for (int i = 0; i < nq; i++)
		for (int scheme = s_lo; scheme <= s_hi; scheme++) {
			fflush(stdout);
			pid_t pid = fork();
			if (pid == 0)
				_exit(run(qs[i], lmc, threads, scheme, verify));
			int st = 0;
			if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
			    WEXITSTATUS(st))
				fails++;
		}
	printf("# L/C = virtual layers (dfsssp) or colours (coloring); checks/cycles/visits: dfsssp's "
	       "online cycle searches, those that closed a cycle, channels they expanded "
	       "(thousands)\n");
	return fails ? 1 : 0;
}
