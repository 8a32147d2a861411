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

int cmd_rail(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{"info", cmd_info, "domains, rails, spines and what does not fit"},
		{NULL, NULL, NULL},
	};
	return cli_dispatch("ibfab rail", cmds, argc, argv);
}
