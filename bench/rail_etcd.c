/* The rail registry's etcd backend against a running etcd: time to publish
 * a registry of R rails and D domains (every key, one transaction), to
 * publish a sweep that changes one rail, one that changes every rail, and to
 * read it all back (one range).  Prints figures; never passes or fails on
 * time.  Usage: bench/rail_etcd etcd://HOST:PORT[/PREFIX] [RAILS DOMAINS]...
 * (bench/rail_etcd.sh starts a private etcd with the limits this needs). */
#include "ibf_rail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define REPS 5

static int run(const char *loc, int nr, int nd)
{
	struct ibf_error err = { 0 };
	char where[512];
	snprintf(where, sizeof(where), "%s/bench/r%dd%d", loc, nr, nd);
	struct ibf_rail_store *s = ibf_rail_store_open(where, NULL, &err);
	if (!s) {
		fprintf(stderr, "rail_etcd: %s\n", err.msg);
		return 1;
	}
	struct ibf_rail_registry r;
	ibf_rail_registry_init(&r);
	for (int g = 0; g < nr; g++)
		ibf_rail_registry_set_rail(&r, g, 100);
	for (int d = 0; d < nd; d++) {
		char name[32];
		snprintf(name, sizeof(name), "gpu-node%05d", d);
		ibf_rail_registry_set_domain(&r, name, 100 - d % 7);
	}
	double t_first, t_one[REPS], t_all[REPS], t_load[REPS];
	r.timestamp = 1;
	double t0 = now_ms();
	int rc = ibf_rail_store_save(s, &r, &err);
	t_first = now_ms() - t0;
	for (int k = 0; k < REPS && !rc; k++) {
		r.timestamp++;
		r.rail_score[k % nr] = 50 + k;
		t0 = now_ms();
		rc = ibf_rail_store_save(s, &r, &err);
		t_one[k] = now_ms() - t0;
	}
	for (int k = 0; k < REPS && !rc; k++) {
		r.timestamp++;
		for (int g = 0; g < nr; g++)
			r.rail_score[g] = (g + k) % 101;
		t0 = now_ms();
		rc = ibf_rail_store_save(s, &r, &err);
		t_all[k] = now_ms() - t0;
	}
	for (int k = 0; k < REPS && !rc; k++) {
		struct ibf_rail_registry back;
		t0 = now_ms();
		rc = ibf_rail_store_load(s, &back, &err);
		t_load[k] = now_ms() - t0;
		if (!rc && (back.nrails != nr || back.ndomains != nd)) {
			fprintf(stderr, "rail_etcd: read back %d rails %d domains\n", back.nrails,
				back.ndomains);
			rc = 1;
		}
		ibf_rail_registry_free(&back);
	}
	if (rc) {
		fprintf(stderr, "rail_etcd: %s\n", err.msg);
	} else {
		qsort(t_one, REPS, sizeof(double), cmp_d);
		qsort(t_all, REPS, sizeof(double), cmp_d);
		qsort(t_load, REPS, sizeof(double), cmp_d);
		printf("%6d %8d %7d %12.1f %12.1f %12.1f %12.1f\n", nr, nd, 2 * nd + nr + 3, t_first,
		       t_one[REPS / 2], t_all[REPS / 2], t_load[REPS / 2]);
	}
	ibf_rail_registry_free(&r);
	ibf_rail_store_close(s);
	return rc != 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc % 2) {
		fprintf(stderr, "usage: rail_etcd etcd://HOST:PORT[/PREFIX] [RAILS DOMAINS]...\n");
		return 2;
	}
	printf("# medians of %d; ms per operation\n", REPS);
	printf("%6s %8s %7s %12s %12s %12s %12s\n", "rails", "domains", "keys", "publish",
	       "1 rail", "all rails", "read all");
	int bad = 0;
	if (argc == 2) {
		static const int sizes[][2] = { { 8, 512 }, { 8, 4096 }, { 64, 4096 }, { 1000, 4000 } };
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			bad |= run(argv[1], sizes[i][0], sizes[i][1]);
	}
	for (int i = 2; i + 1 < argc; i += 2)
		bad |= run(argv[1], atoi(argv[i]), atoi(argv[i + 1]));
	return bad;
}
