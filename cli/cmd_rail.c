/* ibfab rail: rail structure of GPU fabrics (docs/rail.md). */
#include "cli.h"
#include "ibf_rail.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ------------------------------------------------------------ path, registry */

static const char rail_path_help[] =
	"Usage: ibfab rail path --registry R --src HOST:GPU --dst HOST:GPU [options]\n"
	"       ibfab rail path --registry R --all --hosts H1,H2,... --gpus K [options]\n"
	"The h-ratio path for GPU pairs (docs/rail.md): d (same server), r (same\n"
	"rail), rd (source rail, then the destination server), dr (the source\n"
	"server, then the destination rail) or a remote rail, with the scores\n"
	"behind it.  GPU is the GPU's index = its rail number.  The scores come\n"
	"from the registry R (JSON, docs/formats.md); a missing registry, or one\n"
	"older than --max-age, is not used: every score is then unknown and pairs\n"
	"between different servers and rails take the --default path.\n"
	"  --all            every ordered pair of GPUs of the hosts, then a summary\n"
	"  --default rd|dr  the fallback and the tie-break (default rd)\n"
	"  --default-score N  score of rails/domains the registry does not name (100)\n"
	"  --max-age S      seconds after which the registry is stale (default 300;\n"
	"                   0 = never stale)\n"
	"  --rails N        rails of the cluster (remote-rail candidates 0..N-1;\n"
	"                   default: the rails the registry names)\n"
	"  --now T          the current time in seconds since 1970 (tests)\n";

static int parse_gpu(const char *arg, char *host, size_t cap, int *gpu)
{
	const char *c = strrchr(arg, ':');
	if (!c || c == arg || (size_t)(c - arg) >= cap)
		return -1;
	char *x;
	long g = strtol(c + 1, &x, 10);
	if (!c[1] || *x || g < 0 || g > 4095)
		return -1;
	memcpy(host, arg, (size_t)(c - arg));
	host[c - arg] = '\0';
	*gpu = (int)g;
	return 0;
}

static int num_arg(const char *prog, const char *opt, const char *v, long lo, long hi, long *out)
{
	char *x;
	long n = strtol(v, &x, 10);
	if (!*v || *x || n < lo || n > hi)
		return cli_usage_error(prog, "%s wants an integer %ld..%ld", opt, lo, hi);
	*out = n;
	return 0;
}

static void print_choice(const char *h1, int g1, const char *h2, int g2,
			 const struct ibf_rail_choice *c)
{
	printf("%s:%d -> %s:%d  %-6s", h1, g1, h2, g2, ibf_rail_path_name(c->path));
	if (c->path == IBF_RAIL_D) {
		printf(" score %.3f\n", c->score);
		return;
	}
	printf(" via rail %d  score %.3f", c->via_rail, c->score);
	if (c->path != IBF_RAIL_R)
		printf("  (rd %.3f, dr %.3f, best remote %.3f; gamma src %.3g dst %.3g)", c->rd,
		       c->dr, c->remote, c->gamma_src, c->gamma_dst);
	printf("\n");
}

static int cmd_path(int argc, char **argv)
{
	const char *prog = "ibfab rail path";
	static const struct option lo[] = {
		{"registry", required_argument, 0, 'r'},
		{"src", required_argument, 0, 's'},
		{"dst", required_argument, 0, 'd'},
		{"all", no_argument, 0, 'a'},
		{"hosts", required_argument, 0, 'H'},
		{"gpus", required_argument, 0, 'G'},
		{"default", required_argument, 0, 'D'},
		{"default-score", required_argument, 0, 'S'},
		{"max-age", required_argument, 0, 'M'},
		{"rails", required_argument, 0, 'R'},
		{"now", required_argument, 0, 'N'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *regf = NULL, *src = NULL, *dst = NULL, *hosts = NULL;
	long gpus = 0, dscore = 100, maxage = 300, nrails = 0, now = (long)time(NULL);
	int all = 0, prefer_rd = 1, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		int rc = 0;
		switch (c) {
		case 'r': regf = optarg; break;
		case 's': src = optarg; break;
		case 'd': dst = optarg; break;
		case 'a': all = 1; break;
		case 'H': hosts = optarg; break;
		case 'G': rc = num_arg(prog, "--gpus", optarg, 1, 4096, &gpus); break;
		case 'S': rc = num_arg(prog, "--default-score", optarg, 0, 100, &dscore); break;
		case 'M': rc = num_arg(prog, "--max-age", optarg, 0, 1L << 40, &maxage); break;
		case 'R': rc = num_arg(prog, "--rails", optarg, 1, 4096, &nrails); break;
		case 'N': rc = num_arg(prog, "--now", optarg, 0, 1L << 42, &now); break;
		case 'D':
			if (!strcmp(optarg, "rd"))
				prefer_rd = 1;
			else if (!strcmp(optarg, "dr"))
				prefer_rd = 0;
			else
				rc = cli_usage_error(prog, "--default wants rd or dr");
			break;
		case 'h': fputs(rail_path_help, stdout); return 0;
		default: return 2;
		}
		if (rc)
			return rc;
	}
	if (optind != argc || !regf)
		return cli_usage_error(prog, "--registry R is required");
	if (all ? (!hosts || !gpus || src || dst) : (!src || !dst || hosts))
		return cli_usage_error(prog, "give --src and --dst, or --all with --hosts and --gpus");
	char h1[256], h2[256];
	int g1 = 0, g2 = 0;
	if (!all && (parse_gpu(src, h1, sizeof(h1), &g1) || parse_gpu(dst, h2, sizeof(h2), &g2)))
		return cli_usage_error(prog, "a GPU is HOST:INDEX (INDEX 0..4095)");
	struct ibf_error err = { 0 };
	struct ibf_rail_registry reg;
	memset(&reg, 0, sizeof(reg));
	int usable = 0;
	int rc = ibf_rail_registry_read(regf, &reg, &err);
	if (rc == IBF_EIO) { /* missing or unreadable: fall back */
		fprintf(stderr, "ibfab rail path: %s: %s; using the default %s\n", regf, err.msg,
			prefer_rd ? "rd" : "dr");
		printf("registry: missing, default %s\n", prefer_rd ? "rd" : "dr");
	} else if (rc) {
		return cli_fail(&err);
	} else if (maxage && now - reg.timestamp > maxage) {
		printf("registry: stale (written %lld s ago, max age %ld s), default %s\n",
		       (long long)(now - reg.timestamp), maxage, prefer_rd ? "rd" : "dr");
	} else {
		usable = 1;
		printf("registry: fresh (written %lld s ago), %d rails, %d domains\n",
		       (long long)(now - reg.timestamp), reg.nrails, reg.ndomains);
	}
	int bad = 0;
	if (!all) {
		struct ibf_rail_choice ch;
		if (ibf_rail_registry_decide(&reg, usable, h1, g1, h2, g2, (int)nrails, (int)dscore,
					     prefer_rd, &ch))
			bad = 1;
		else
			print_choice(h1, g1, h2, g2, &ch);
	} else {
		/* split the host list */
		char *list = strdup(hosts);
		char **hv = NULL;
		int nh = 0;
		for (char *t = list ? strtok(list, ",") : NULL; t; t = strtok(NULL, ",")) {
			char **q = realloc(hv, (size_t)(nh + 1) * sizeof(*hv));
			if (!q)
				break;
			hv = q;
			hv[nh++] = t;
		}
		uint64_t count[5] = { 0 };
		for (int a = 0; a < nh && !bad; a++)
			for (int ga = 0; ga < gpus && !bad; ga++)
				for (int b = 0; b < nh && !bad; b++)
					for (int gb = 0; gb < gpus; gb++) {
						if (a == b && ga == gb)
							continue;
						struct ibf_rail_choice ch;
						if (ibf_rail_registry_decide(&reg, usable, hv[a], ga, hv[b],
									     gb, (int)nrails, (int)dscore,
									     prefer_rd, &ch)) {
							bad = 1;
							break;
						}
						count[ch.path]++;
						print_choice(hv[a], ga, hv[b], gb, &ch);
					}
		printf("pairs %llu: d %llu, r %llu, rd %llu, dr %llu, remote %llu\n",
		       (unsigned long long)(count[0] + count[1] + count[2] + count[3] + count[4]),
		       (unsigned long long)count[IBF_RAIL_D], (unsigned long long)count[IBF_RAIL_R],
		       (unsigned long long)count[IBF_RAIL_RD], (unsigned long long)count[IBF_RAIL_DR],
		       (unsigned long long)count[IBF_RAIL_REMOTE]);
		free(hv);
		free(list);
	}
	ibf_rail_registry_free(&reg);
	if (bad) {
		fprintf(stderr, "ibfab rail path: cannot decide (out of memory)\n");
		return 1;
	}
	return 0;
}

static const char rail_registry_help[] =
	"Usage: ibfab rail registry --registry R [--rail G=SCORE]... [--domain HOST=SCORE]...\n"
	"                           [--timestamp T] [--new]\n"
	"Set rail and domain scores (0..100) in the registry R and write it back\n"
	"atomically (a reader sees the old or the new file, never a mix) with the\n"
	"current time (or T).  An absent R is created; --new starts from an empty\n"
	"registry.  With no score given, prints the registry.\n";

static int cmd_registry(int argc, char **argv)
{
	const char *prog = "ibfab rail registry";
	static const struct option lo[] = {
		{"registry", required_argument, 0, 'r'},
		{"rail", required_argument, 0, 'g'},
		{"domain", required_argument, 0, 'd'},
		{"timestamp", required_argument, 0, 't'},
		{"new", no_argument, 0, 'n'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *regf = NULL;
	long ts = (long)time(NULL);
	int fresh = 0, c, nset = 0;
	optind = 1;
	/* first pass: the registry and the flags; second: the scores in order */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r': regf = optarg; break;
		case 'n': fresh = 1; break;
		case 't':
			if (num_arg(prog, "--timestamp", optarg, 0, 1L << 42, &ts))
				return 2;
			break;
		case 'g': case 'd': nset++; break;
		case 'h': fputs(rail_registry_help, stdout); return 0;
		default: return 2;
		}
	}
	if (optind != argc || !regf)
		return cli_usage_error(prog, "--registry R is required");
	struct ibf_error err = { 0 };
	struct ibf_rail_registry reg;
	memset(&reg, 0, sizeof(reg));
	if (!fresh) {
		int rc = ibf_rail_registry_read(regf, &reg, &err);
		if (rc && !(rc == IBF_EIO && nset))
			return cli_fail(&err);
	}
	if (!nset) {
		printf("timestamp %lld\n", (long long)reg.timestamp);
		for (int i = 0; i < reg.nrails; i++)
			printf("rail %d %d\n", reg.rail_label[i], reg.rail_score[i]);
		for (int i = 0; i < reg.ndomains; i++)
			printf("domain %s %d\n", reg.domain[i], reg.domain_score[i]);
		ibf_rail_registry_free(&reg);
		return 0;
	}
	optind = 1;
	int rc = 0;
	while (!rc && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c != 'g' && c != 'd')
			continue;
		const char *eq = strrchr(optarg, '=');
		char *x;
		long sc = eq ? strtol(eq + 1, &x, 10) : -1;
		if (!eq || eq == optarg || !eq[1] || *x || sc < 0 || sc > 100) {
			rc = cli_usage_error(prog, "'%s': want NAME=SCORE with SCORE 0..100", optarg);
			break;
		}
		char name[256];
		size_t n = (size_t)(eq - optarg);
		if (n >= sizeof(name)) {
			rc = cli_usage_error(prog, "'%s': name too long", optarg);
			break;
		}
		memcpy(name, optarg, n);
		name[n] = '\0';
		if (c == 'g') {
			long g = strtol(name, &x, 10);
			if (*x || g < 0 || g > 4095) {
				rc = cli_usage_error(prog, "--rail wants a rail number 0..4095");
				break;
			}
			rc = ibf_rail_registry_set(&reg, (int)g, NULL, (int)sc);
		} else {
			rc = ibf_rail_registry_set(&reg, 0, name, (int)sc);
		}
	}
	if (!rc) {
		reg.timestamp = ts;
		rc = ibf_rail_registry_write(regf, &reg, &err);
		if (rc) {
			ibf_rail_registry_free(&reg);
			return cli_fail(&err);
		}
	}
	ibf_rail_registry_free(&reg);
	return rc ? (rc > 0 ? rc : 1) : 0;
}

int cmd_rail(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{"info", cmd_info, "domains, rails, spines and what does not fit"},
		{"path", cmd_path, "h-ratio path of GPU pairs from the health registry"},
		{"registry", cmd_registry, "set rail/domain scores in the registry file"},
		{"check", cmd_check, "rail properties of forwarding tables (same rail stays, spines)"},
		{NULL, NULL, NULL},
	};
	return cli_dispatch("ibfab rail", cmds, argc, argv);
}
