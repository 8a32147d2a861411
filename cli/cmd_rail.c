/* ibfab rail: rail structure of GPU fabrics (docs/rail.md). */
#include "cli.h"
#include "ibf_rail.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char rail_info_help[] =
	"Usage: ibfab rail info FILE [--map MAPFILE] [--list]\n"
	"Print the domains (servers), rails, GPUs per domain, spines and what does\n"
	"not fit (a domain missing a rail, two GPUs of one domain on one rail, a GPU\n"
	"whose device index differs from the rail it reaches).  --map overrides\n"
	"domains and rails (format: docs/rail.md); --list prints every GPU.\n"
	"Exit 0 (also when something does not fit), 1 on errors, 2 on usage errors.\n";

static int cmd_info(int argc, char **argv)
{
	static const struct option lo[] = {
		{"map", required_argument, 0, 'm'},
		{"list", no_argument, 0, 'l'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *mapf = NULL;
	int list = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': mapf = optarg; break;
		case 'l': list = 1; break;
		case 'h': fputs(rail_info_help, stdout); return 0;
		default: return 2;
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("ibfab rail info", "expected one fabric FILE");
	struct ibf_error err = { 0 };
	struct ibf_rail_map *map = NULL;
	if (mapf && !(map = ibf_rail_map_read(mapf, &err)))
		return cli_fail(&err);
	struct ibf_fabric *f = cli_load_fabric(argv[optind], NULL, -1, 1, &err);
	if (!f) {
		ibf_rail_map_free(map);
		return cli_fail(&err);
	}
	struct ibf_rail_info ri;
	if (ibf_rail_detect(f, map, &ri, &err) != 0) {
		ibf_fabric_free(f);
		ibf_rail_map_free(map);
		return cli_fail(&err);
	}
	printf("gpus %d  domains %d  rails %d  switches %u  spines %d  rail components %d\n",
	       ri.ngpus, ri.ndomains, ri.nrails, f->nsw, ri.nspines, ri.rail_components);
	printf("kind %s\n", ri.nrails <= 1 ? "single rail" :
	       ri.nspines ? "rail-optimized (spines join the rails)" :
	       ri.rail_components >= ri.nrails ? "rail-only (no switch path between rails)" :
	       "rails joined without spines");
	/* per rail: label, switches, GPUs */
	printf("rail  label  switches  gpus\n");
	for (int r = 0; r < ri.nrails; r++) {
		int nsw = 0, ng = 0;
		for (uint32_t s = 0; s < f->nsw; s++)
			nsw += ri.sw_rail[s] == r;
		for (int g = 0; g < ri.ngpus; g++)
			ng += ri.gpu[g].rail == r;
		printf("%4d  %5d  %8d  %4d\n", r, ri.rail_label[r], nsw, ng);
	}
	/* histogram of GPUs per domain */
	int *per = calloc((size_t)ri.ndomains + 1, sizeof(int)), maxg = 0;
	for (int g = 0; g < ri.ngpus; g++)
		if (per && ++per[ri.gpu[g].domain] > maxg)
			maxg = per[ri.gpu[g].domain];
	printf("gpus per domain:");
	for (int k = 1; per && k <= maxg; k++) {
		int n = 0;
		for (int d = 0; d < ri.ndomains; d++)
			n += per[d] == k;
		if (n)
			printf(" %d x %d", n, k);
	}
	printf("\n");
	free(per);
	printf("does not fit: missing %d, doubled %d, mismatched %d, unattached %d\n",
	       ri.missing, ri.doubled, ri.mismatched, ri.unattached);
	/* name the domains that miss or double a rail */
	for (int a = 0; a < ri.ngpus;) {
		int b = a;
		while (b < ri.ngpus && ri.gpu[b].domain == ri.gpu[a].domain)
			b++;
		int r = 0;
		for (int g = a; g < b; g++) {
			while (r < ri.gpu[g].rail)
				printf("  %s: no GPU on rail %d\n", ri.domain[ri.gpu[a].domain], r++);
			if (g > a && ri.gpu[g].rail == ri.gpu[g - 1].rail)
				printf("  %s: two GPUs on rail %d\n", ri.domain[ri.gpu[a].domain],
				       ri.gpu[g].rail);
			r = ri.gpu[g].rail + 1;
		}
		while (r < ri.nrails)
			printf("  %s: no GPU on rail %d\n", ri.domain[ri.gpu[a].domain], r++);
		a = b;
	}
	for (int g = 0; g < ri.ngpus; g++) {
		const struct ibf_rail_gpu *G = &ri.gpu[g];
		int bad = G->hint != ri.rail_label[G->rail];
		if (list || bad) {
			const char *d = f->nodes[G->node].desc;
			printf("  gpu %s port %d: domain %s rail %d (device index %d)%s\n",
			       d ? d : "?", G->port, ri.domain[G->domain], G->rail, G->hint,
			       bad ? ": reaches another rail" : "");
		}
	}
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
	ibf_rail_map_free(map);
	return 0;
}

static const char rail_check_help[] =
	"Usage: ibfab rail check FILE --lfts DUMP [--lmc N] [--guid2lid F] [--map MAPFILE]\n"
	"Trace the tables (opensm-lfts.dump or dump_lfts output, e.g. read back from\n"
	"the switches) from every GPU to every LID of every GPU of another server and\n"
	"report: same-rail paths that leave their rail (only pairs whose leaves are\n"
	"joined inside the rail), paths not delivered, pairs without any cable path\n"
	"(separate rails of a rail-only fabric: expected), cross-rail paths per\n"
	"spine, and whether the LMC layers of a cross-rail destination use distinct\n"
	"spines.  Exit 1 when a path is not delivered or a same-rail path leaves its\n"
	"rail.\n";

static int cmd_check(int argc, char **argv)
{
	static const struct option lo[] = {
		{"map", required_argument, 0, 'm'},
		{"lfts", required_argument, 0, 'f'},
		{"lmc", required_argument, 0, 'L'},
		{"guid2lid", required_argument, 0, 'g'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *mapf = NULL, *lfts = NULL, *g2l = NULL;
	long lmc = -1;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': mapf = optarg; break;
		case 'f': lfts = optarg; break;
		case 'g': g2l = optarg; break;
		case 'L': {
			char *end;
			lmc = strtol(optarg, &end, 10);
			if (*end || lmc < 0 || lmc > 7)
				return cli_usage_error("ibfab rail check", "--lmc wants 0..7");
			break;
		}
		case 'h': fputs(rail_check_help, stdout); return 0;
		default: return 2;
		}
	}
	if (optind + 1 != argc || !lfts)
		return cli_usage_error("ibfab rail check", "expected one fabric FILE and --lfts DUMP");
	struct ibf_error err = { 0 };
	struct ibf_rail_map *map = NULL;
	if (mapf && !(map = ibf_rail_map_read(mapf, &err)))
		return cli_fail(&err);
	struct ibf_fabric *f = cli_load_fabric(argv[optind], g2l, lmc, 1, &err);
	struct ibf_routes r;
	memset(&r, 0, sizeof(r));
	struct ibf_rail_info ri;
	memset(&ri, 0, sizeof(ri));
	struct ibf_rail_route_report rep;
	memset(&rep, 0, sizeof(rep));
	int rc = f ? 0 : -1;
	int have_ri = 0;
	if (!rc)
		rc = ibf_lfts_read(f, lfts, &r, &err);
	if (!rc && !(rc = ibf_rail_detect(f, map, &ri, &err)))
		have_ri = 1;
	if (!rc)
		rc = ibf_rail_route_check(f, &ri, &r, &rep, &err);
	int bad = 0;
	if (!rc) {
		printf("same rail:  %llu paths, %llu not delivered, %llu of %llu confinable "
		       "left the rail, longest %u switch hops\n",
		       (unsigned long long)rep.same_paths, (unsigned long long)rep.same_failed,
		       (unsigned long long)rep.same_left, (unsigned long long)rep.same_confinable,
		       rep.same_max_hops);
		printf("cross rail: %llu paths, %llu not delivered, longest %u switch hops\n",
		       (unsigned long long)rep.cross_paths, (unsigned long long)rep.cross_failed,
		       rep.cross_max_hops);
		printf("no cable path (separate switch components, expected): %llu paths\n",
		       (unsigned long long)rep.split_paths);
		if (rep.nspines) {
			uint64_t lo_ = UINT64_MAX, hi = 0;
			for (int i = 0; i < rep.nspines; i++) {
				if (rep.spine_paths[i] < lo_)
					lo_ = rep.spine_paths[i];
				if (rep.spine_paths[i] > hi)
					hi = rep.spine_paths[i];
			}
			printf("spines: %d, cross-rail paths per spine min %llu max %llu\n",
			       rep.nspines, (unsigned long long)lo_, (unsigned long long)hi);
			for (int i = 0; i < rep.nspines; i++) {
				const char *d = f->nodes[f->switches[rep.spine_sw[i]]].desc;
				printf("  %-24s %llu\n", d ? d : "?",
				       (unsigned long long)rep.spine_paths[i]);
			}
		}
		if (rep.lmc_pairs)
			printf("lmc: %llu of %llu cross-rail pairs have their layers on distinct "
			       "spines (as many as both leaves reach)\n",
			       (unsigned long long)rep.lmc_distinct, (unsigned long long)rep.lmc_pairs);
		bad = rep.same_failed || rep.cross_failed || rep.same_left;
	}
	ibf_rail_route_report_free(&rep);
	if (have_ri)
		ibf_rail_info_free(&ri);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	ibf_rail_map_free(map);
	if (rc)
		return cli_fail(&err);
	return bad ? 1 : 0;
}

int cmd_rail(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{"info", cmd_info, "domains, rails, spines and what does not fit"},
		{"check", cmd_check, "rail properties of forwarding tables (same rail stays, spines)"},
		{NULL, NULL, NULL},
	};
	return cli_dispatch("ibfab rail", cmds, argc, argv);
}
