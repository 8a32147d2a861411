/* bench_topo: time Slim Fly generation, writing and parsing (prints figures
 * only; never pass/fail).  Usage: bench_topo [q ...] (default 13 19 29). */
#include "ibf_topology.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static int bench(int q)
{
	struct ibf_error err;
	char path[] = "/tmp/ibfab-bench-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	struct ibf_slimfly_opts o = { q, -1, 0, 0 };
	double t0 = now_s();
	struct ibf_fabric *f = ibf_gen_slimfly(&o, &err);
	if (!f) {
		fprintf(stderr, "q=%d: %s\n", q, err.msg);
		unlink(path);
		return 1;
	}
	double t1 = now_s();
	if (ibf_assign_lids(f, 0, 0, &err) ||
	    ibf_fabric_write(f, path, IBF_FMT_IBNETDISCOVER, &err)) {
		fprintf(stderr, "q=%d: %s\n", q, err.msg);
		ibf_fabric_free(f);
		unlink(path);
		return 1;
	}
	double t2 = now_s();
	struct ibf_fabric *g = ibf_fabric_read(path, IBF_FMT_AUTO, &err);
	double t3 = now_s();
	if (!g) {
		fprintf(stderr, "q=%d: parse: %s\n", q, err.msg);
		ibf_fabric_free(f);
		unlink(path);
		return 1;
	}
	struct ibf_stats st;
	int rc = ibf_fabric_stats(g, &st, 2, &err);
	int have_stats = rc == 0;
	double t4 = now_s();
	/* guid2lid round trip: one GUID lookup per line */
	double t5 = t4, t6 = t4;
	if (rc == 0 && !(rc = ibf_guid2lid_write(f, path, &err))) {
		t5 = now_s();
		rc = ibf_guid2lid_read(g, path, &err);
		t6 = now_s();
		if (rc)
			fprintf(stderr, "q=%d: guid2lid: %s\n", q, err.msg);
	}
	if (rc == 0) {
		printf("q=%-3d switches=%-5u hosts=%-6u gen=%.3fs write=%.3fs parse=%.3fs "
		       "stats(2 threads)=%.3fs guid2lid read=%.3fs diameter=%u peak_rss=%ldMB\n",
		       q, st.nswitches, st.ncas, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t6 - t5,
		       st.diameter, peak_rss_mb());
	}
	if (have_stats)
		ibf_stats_free(&st);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
	unlink(path);
	return rc != 0;
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			rc |= bench(atoi(argv[i]));
	} else {
		int qs[] = { 13, 19, 29 };
		for (int i = 0; i < 3; i++)
			rc |= bench(qs[i]);
	}
	return rc;
}
