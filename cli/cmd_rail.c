/* ibfab rail: rail structure of GPU fabrics (docs/rail.md). */
#include "cli.h"
#include "ibf_rail.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char rail_info_help[] =
	"Usage: ibfab rail info FILE [--map MAPFILE] [--list]\n"
	"Print the domains (servers), rails, GPUs per domain, spines and what does\n"
	"not fit (a domain missing a rail, two GPUs of one domain on one rail, a GPU\n"
	"whose device index differs from the rail it reaches).  --map overrides\n"
	"domains and rails (format: docs/rail.md); --list prints every GPU.  A\n"
	"fabric where no server has two NICs and device numbers make two or more\n"
	"rails is reported as not a rail fabric.  Rail switches the structure\n"
	"implies but the fabric lacks are listed as missing: a whole rail that GPU\n"
	"NICs without a cable carry, and a leaf of a present rail when two or more\n"
	"servers sharing a leaf on another rail all lack a GPU on it; device numbers\n"
	"skipped between rails are named, not counted as missing (docs/rail.md).\n"
	"Spines that reach no common rail switch (directly or through rail\n"
	"switches) are listed by spine group when there are two or more groups.\n"
	"Exit 0 (also when something does not fit), 1 on errors, 2 on usage errors.\n";

/* A fabric where no server has two GPU NICs has no rails (one rail's
 * subnet excepted): say so on stderr for the commands that go on with
 * its guessed rails. */
/* mapping lines that matched no node were skipped: say which */
static void warn_unmatched(const char *file, const struct ibf_rail_info *ri,
			   const struct ibf_rail_map *map)
{
	if (ri->unmatched && map)
		fprintf(stderr,
			"ibfab: warning: %s:%ld: %d mapping line(s) name no node of %s "
			"(skipped: a server that is off, or a typo), the first here\n",
			map->name, ri->unmatched_line, ri->unmatched, file);
}

static void warn_not_rail(const char *file, const struct ibf_rail_info *ri,
			  const struct ibf_rail_map *map)
{
	warn_unmatched(file, ri, map);
	if (ri->nrails > 1 && !ibf_rail_multi_gpu_domains(ri))
		fprintf(stderr,
			"ibfab: warning: %s is not a rail fabric (no server has two NICs on it); "
			"its %d rail(s) are only device numbers\n",
			file, ri->nrails);
}

static int cmd_info(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "map", required_argument, 0, 'm' },
		{ "list", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *mapf = NULL;
	int list = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			mapf = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 'h':
			fputs(rail_info_help, stdout);
			return 0;
		default:
			return 2;
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
	warn_unmatched(argv[optind], &ri, map);
	printf("gpus %d  domains %d  rails %d  switches %u  spines %d  rail components %d\n",
	       ri.ngpus, ri.ndomains, ri.nrails, f->nsw, ri.nspines, ri.rail_components);
	int multi = ibf_rail_multi_gpu_domains(&ri);
	printf("kind %s\n", ri.nrails <= 1
			    ? (multi ? "single rail"
				     : "single rail (no server has two NICs on it: a plain "
				       "fabric, or the subnet of one rail)")
			    : !multi ? "not a rail fabric (no server has two NICs on it)"
			    : ri.nspines   ? "rail-optimized (spines join the rails)"
			    : ri.rail_components >= ri.nrails
				    ? "rail-only (no switch path between rails)"
				    : "rails joined without spines");
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
	/* spine groups: only when there are two or more (rail_avoid_max
	 * counts each on its own) */
	if (ri.nspine_groups > 1) {
		printf("spine groups %d (spines of different groups reach no common rail "
		       "switch)\n",
		       ri.nspine_groups);
		/* on[r]: a spine of group g is cabled to a switch of rail r;
		 * spines listed in canonical order (by[], GUID first), not the
		 * records' */
		uint8_t *on = malloc((size_t)ri.nrails + 1);
		uint32_t *rank = malloc(((size_t)f->nsw + 1) * sizeof(*rank));
		uint32_t *by = malloc(((size_t)f->nsw + 1) * sizeof(*by));
		if (!rank || !by || ibf_switch_ranks(f, rank)) {
			free(on);
			on = NULL;
		} else {
			for (uint32_t s = 0; s < f->nsw; s++)
				by[rank[s]] = s;
		}
		for (int g = 0; on && g < ri.nspine_groups; g++) {
			ibf_rail_group_rails(f, &ri, g, on);
			printf("  group %d: rails", g);
			for (int r = 0, n = 0; r < ri.nrails; r++)
				if (on[r])
					printf("%s%d", n++ ? "," : " ", ri.rail_label[r]);
			printf(", spines");
			for (uint32_t k = 0, s; k < f->nsw; k++)
				if (ri.sw_group[s = by[k]] == g) {
					const char *d = f->nodes[f->switches[s]].desc;
					printf(" %s", d && *d ? d : "?");
				}
			printf("\n");
		}
		free(on);
		free(rank);
		free(by);
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
	printf("does not fit: missing %d, doubled %d, mismatched %d, unattached %d\n", ri.missing,
	       ri.doubled, ri.mismatched, ri.unattached);
	if (ri.in_switch)
		printf("left out: %d CA(s) inside the switch they are cabled to (its system image "
		       "GUID: SHARP aggregation nodes), no server's NIC\n",
		       ri.in_switch);
	if (ri.routers)
		printf("left out: %d router(s), no server's NIC (routed like any port, in no "
		       "domain or rail)\n",
		       ri.routers);
	/* name the domains that miss or double a rail */
	for (int a = 0; a < ri.ngpus;) {
		int b = a;
		while (b < ri.ngpus && ri.gpu[b].domain == ri.gpu[a].domain)
			b++;
		int r = 0;
		for (int g = a; g < b; g++) {
			while (r < ri.gpu[g].rail)
				printf("  %s: no GPU on rail %d\n", ri.domain[ri.gpu[a].domain],
				       r++);
			if (g > a && ri.gpu[g].rail == ri.gpu[g - 1].rail)
				printf("  %s: two GPUs on rail %d\n", ri.domain[ri.gpu[a].domain],
				       ri.gpu[g].rail);
			r = ri.gpu[g].rail + 1;
		}
		while (r < ri.nrails)
			printf("  %s: no GPU on rail %d\n", ri.domain[ri.gpu[a].domain], r++);
		a = b;
	}
	/* rail switches the structure implies but the fabric lacks */
	struct ibf_rail_gap *gap;
	int ngap;
	if (ibf_rail_gaps(f, &ri, &gap, &ngap, &err)) {
		ibf_rail_info_free(&ri);
		ibf_fabric_free(f);
		ibf_rail_map_free(map);
		return cli_fail(&err);
	}
	/* a device number skipped between rails alone is no evidence: DGX H100
	 * servers, for one, number their IB NICs 0, 3-6, 9-11 (the others are
	 * Ethernet); only NICs without a cable or a leaf's servers make a
	 * missing switch */
	int whole = 0, unused = 0;
	for (int i = 0; i < ngap; i++) {
		whole += gap[i].rail < 0 && gap[i].nics;
		unused += gap[i].rail < 0 && !gap[i].nics;
	}
	if (unused) {
		printf("device numbers between the rails without a rail:");
		for (int i = 0; i < ngap; i++)
			if (gap[i].rail < 0 && !gap[i].nics)
				printf(" %d", gap[i].label);
		printf(" (a rail lost whole, or numbers of devices not on this fabric)\n");
	}
	if (ngap - unused)
		printf("missing rail switches: %d whole rail(s), %d leaf switch(es)\n", whole,
		       ngap - unused - whole);
	for (int i = 0; i < ngap; i++) {
		const struct ibf_rail_gap *G = &gap[i];
		if (G->rail < 0 && !G->nics)
			continue;
		if (G->rail < 0) {
			printf("  rail label %d: missing (no switch or GPU of it in the fabric; %d "
			       "GPU NIC(s) without a cable carry it%s)\n",
			       G->label, G->nics,
			       G->between ? ", its number lies between present rails" : "");
			continue;
		}
		const char *d = f->nodes[f->switches[G->like_sw]].desc;
		printf("  rail %d (label %d): a leaf is missing: the %d servers of leaf %s "
		       "(rail %d) have no GPU on rail %d\n",
		       G->rail, G->label, G->ndomains, d ? d : "?", ri.sw_rail[G->like_sw],
		       G->rail);
	}
	free(gap);
	/* every GPU with --list; else the miscabled ones, each with the
	 * switch port its cable goes to, so the cable can be found */
	for (int g = 0; g < ri.ngpus; g++) {
		const struct ibf_rail_gpu *G = &ri.gpu[g];
		char why[512] = ": ";
		if (!ibf_rail_gpu_misfit(f, &ri, g, why + 2, sizeof(why) - 2)) {
			if (!list)
				continue;
			why[0] = '\0';
		}
		const char *d = f->nodes[G->node].desc;
		printf("  gpu %s port %d: domain %s rail %d (device index %d)%s\n", d ? d : "?",
		       G->port, ri.domain[G->domain], G->rail, G->hint, why);
	}
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
	ibf_rail_map_free(map);
	return 0;
}

/* ------------------------------------------------------------ registry */

static const char rail_registry_help[] =
	"Usage: ibfab rail registry --registry LOCATION [--topology F [--map M]]\n"
	"         [--rail N=SCORE]... [--domain NAME=SCORE]... [--default rd|dr]\n"
	"         [--default-score S] [--max-age SECONDS] [--now T] [--ttl S [--hold]]\n"
	"Create or update the rail health registry.  LOCATION is a file (JSON,\n"
	"written atomically: readers never see a torn file) or etcd://HOST:PORT[/PREFIX]\n"
	"(one etcd transaction per update; default prefix /ibfab/rails/).  --topology\n"
	"adds every rail and domain of a fabric (score 100 unless already present);\n"
	"--rail/--domain set scores 0..100 (100 idle, 0 blocked).  The timestamp\n"
	"becomes now (--now T: seconds since the epoch, for tests).  etcd only: --ttl S\n"
	"attaches the keys to a lease of S seconds (they vanish S seconds after the\n"
	"writer stops renewing it); --hold keeps renewing it until the process is\n"
	"terminated.  Format: docs/formats.md.  Exit 0, 1 on errors, 2 on usage.\n";

static volatile sig_atomic_t rail_stop;
static void on_stop(int sig)
{
	(void)sig;
	rail_stop = 1;
}

/* SIGTERM / SIGINT end the loops of --hold and `rail cache` between steps */
static void catch_stop(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* sleep ms milliseconds or until told to stop */
static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (!rail_stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int parse_assign(const char *prog, const char *what, const char *v, char *name, size_t nl,
			long *score)
{
	const char *eq = strrchr(v, '=');
	if (!eq || eq == v || (size_t)(eq - v) >= nl)
		return cli_usage_error(prog, "%s: expected NAME=SCORE, got '%s'", what, v);
	memcpy(name, v, (size_t)(eq - v));
	name[eq - v] = 0;
	return cli_int(what, eq + 1, 0, 100, score) ? 2 : 0;
}

/* the rail of --rail N=SCORE: a number 0..1000000 */
static int rail_label(const char *name, long *label)
{
	return ibf_num_long(name, strlen(name), 0, 1000000, label);
}

/* what `rail registry` changes, applied to the registry as it is at the
 * time of the update (again when another writer came in between) */
struct reg_edit {
	int argc;
	char **argv;
	const struct option *lo;
	const struct ibf_rail_info *ri; /* --topology, or NULL */
	const char *dflt;
	long dscore, maxage, now;
};

static int apply_edit(struct ibf_rail_registry *r, void *ctx)
{
	const struct reg_edit *e = ctx;
	int rc = 0, c;
	for (int i = 0; e->ri && i < e->ri->nrails && !rc; i++)
		if (ibf_rail_registry_find_rail(r, e->ri->rail_label[i]) < 0)
			rc = ibf_rail_registry_set_rail(r, e->ri->rail_label[i], 100);
	for (int i = 0; e->ri && i < e->ri->ndomains && !rc; i++)
		if (ibf_rail_registry_find_domain(r, e->ri->domain[i]) < 0)
			rc = ibf_rail_registry_set_domain(r, e->ri->domain[i], 100);
	/* scores, in order (checked before) */
	optind = 1;
	while (!rc && (c = getopt_long(e->argc, e->argv, "h", e->lo, NULL)) != -1) {
		if (c != 'R' && c != 'D')
			continue;
		/* checked before (parse_assign, rail_label): read the same way
		 * (atoi here took --rail 1=0x32, checked as 50, as 0) */
		const char *eq = strrchr(optarg, '=');
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(eq - optarg), optarg);
		long sc = 0, label = 0;
		if (ibf_num_long(eq + 1, strlen(eq + 1), 0, 100, &sc) ||
		    (c == 'R' && rail_label(name, &label)))
			return IBF_EINVAL;
		rc = c == 'R' ? ibf_rail_registry_set_rail(r, (int)label, (int)sc)
			      : ibf_rail_registry_set_domain(r, name, (int)sc);
	}
	if (e->dflt)
		r->prefer_rd = !strcmp(e->dflt, "rd");
	if (e->dscore >= 0)
		r->dflt = (int)e->dscore;
	if (e->maxage >= 0)
		r->max_age = e->maxage;
	r->timestamp = e->now > 0 ? e->now : (long long)time(NULL);
	return rc;
}

static int cmd_registry(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "registry", required_argument, 0, 'r' },
		{ "topology", required_argument, 0, 't' },
		{ "map", required_argument, 0, 'm' },
		{ "rail", required_argument, 0, 'R' },
		{ "domain", required_argument, 0, 'D' },
		{ "default", required_argument, 0, 'd' },
		{ "default-score", required_argument, 0, 's' },
		{ "max-age", required_argument, 0, 'a' },
		{ "now", required_argument, 0, 'n' },
		{ "ttl", required_argument, 0, 'T' },
		{ "hold", no_argument, 0, 'H' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *prog = "ibfab rail registry", *reg = NULL, *topo = NULL, *mapf = NULL;
	const char *dflt = NULL;
	long dscore = -1, maxage = -1, now = -1, ttl = 0;
	int c, hold = 0;
	/* first pass: options that do not change scores */
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			reg = optarg;
			break;
		case 't':
			topo = optarg;
			break;
		case 'm':
			mapf = optarg;
			break;
		case 'd':
			if (strcmp(optarg, "rd") && strcmp(optarg, "dr"))
				return cli_usage_error(prog, "--default must be rd or dr");
			dflt = optarg;
			break;
		case 's':
			if (cli_int("--default-score", optarg, 0, 100, &dscore))
				return 2;
			break;
		case 'a':
			if (cli_int("--max-age", optarg, 0, 1000000000L, &maxage))
				return 2;
			break;
		case 'n':
			if (cli_int("--now", optarg, 1, 0x7fffffffffffL, &now))
				return 2;
			break;
		case 'T':
			if (cli_int("--ttl", optarg, 1, 1000000L, &ttl))
				return 2;
			break;
		case 'H':
			hold = 1;
			break;
		case 'R':
		case 'D':
			break;
		case 'h':
			fputs(rail_registry_help, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (!reg)
		return cli_usage_error(prog, "--registry LOCATION is required");
	if (optind != argc)
		return cli_usage_error(prog, "unexpected argument %s", argv[optind]);
	if ((ttl || hold) && !ibf_rail_store_is_etcd(reg))
		return cli_usage_error(prog, "--ttl and --hold need an etcd:// registry");
	if (hold && !ttl)
		return cli_usage_error(prog, "--hold needs --ttl");
	if (mapf && !topo)
		return cli_usage_error(prog, "--map goes with --topology");
	/* check every score before touching the registry */
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char name[256];
		long sc;
		if (c != 'R' && c != 'D')
			continue;
		if (parse_assign(prog, c == 'R' ? "--rail" : "--domain", optarg, name, sizeof(name),
				 &sc))
			return 2;
		long label;
		if (c == 'R' && rail_label(name, &label))
			return cli_usage_error(prog, "--rail: a rail is named by its number");
	}
	struct ibf_error err = { 0 };
	struct ibf_rail_map *map = NULL;
	struct ibf_fabric *f = NULL;
	struct ibf_rail_info ri;
	if (topo && ((mapf && !(map = ibf_rail_map_read(mapf, &err))) ||
		     !(f = cli_load_fabric(topo, NULL, -1, 1, &err)) ||
		     ibf_rail_detect(f, map, &ri, &err))) {
		ibf_fabric_free(f);
		ibf_rail_map_free(map);
		return cli_fail(&err);
	}
	if (topo)
		warn_not_rail(topo, &ri, map);
	struct reg_edit ed = { argc, argv, lo, topo ? &ri : NULL, dflt, dscore, maxage, now };
	struct ibf_rail_store_opts o = { ttl, 0 };
	struct ibf_rail_store *st = ibf_rail_store_open(reg, &o, &err);
	int rc = st ? ibf_rail_store_update(st, apply_edit, &ed, &err) : -1;
	if (!rc && hold) {
		/* a writer that stays: renew the lease at a third of its TTL;
		 * when it was lost anyway (etcd down for longer), write again */
		catch_stop();
		while (!rail_stop) {
			nap(ttl * 1000 / 3);
			if (rail_stop)
				break;
			if (ibf_rail_store_keepalive(st, &err)) {
				fprintf(stderr, "ibfab: warning: %s\n", err.msg);
				if (ibf_rail_store_update(st, apply_edit, &ed, &err))
					fprintf(stderr, "ibfab: warning: %s\n", err.msg);
			}
		}
	}
	ibf_rail_store_close(st);
	if (topo) {
		ibf_rail_info_free(&ri);
		ibf_fabric_free(f);
		ibf_rail_map_free(map);
	}
	return rc ? cli_fail(&err) : 0;
}

/* ------------------------------------------------------------ path */

static const char rail_path_help[] =
	"Usage: ibfab rail path --registry LOCATION --src HOST:GPU --dst HOST:GPU [--json] [--now T]\n"
	"       ibfab rail path --registry LOCATION --all [--hosts H1,H2,...] [--json] [--now T]\n"
	"The path for a GPU pair (GPU g of a host sits on rail g): d (same host),\n"
	"r (same rail), rd (source rail, then the destination host) or dr (source\n"
	"host, then the destination rail) by the h-ratio of both ends, or a remote\n"
	"rail when its score beats both, with the scores behind the choice.  A stale\n"
	"or missing registry, or a pair without entries, takes the registry's default\n"
	"path (and says so).  --all decides every pair of the registry's GPUs (or of\n"
	"the --hosts listed) and prints how many take each path.  LOCATION is a file\n"
	"(e.g. the copy `ibfab rail cache` keeps) or etcd://HOST:PORT[/PREFIX]; an\n"
	"unreachable etcd is a warning and every cross pair takes the default path.\n"
	"--all exits 1 when there is no pair to decide (no hosts, or no rails in the\n"
	"registry, e.g. a missing one); a --hosts name the registry lacks is a warning.\n"
	"Usage errors (exit 2): --src and --dst naming the same GPU (no path to\n"
	"decide), an empty or repeated name in --hosts.\n";

static void print_decision(const char *s, const char *d, const struct ibf_rail_decision *x,
			   int json, int first)
{
	if (json) {
		printf("%s{\"src\": ", first ? "" : ",\n  ");
		ibf_json_str(stdout, s);
		printf(", \"dst\": ");
		ibf_json_str(stdout, d);
		printf(", \"path\": \"%s\", \"via_rail\": %d, \"score\": %.6g, \"rd\": %.6g, "
		       "\"dr\": %.6g, \"remote\": %.6g, \"gamma_src\": %.6g, \"gamma_dst\": %.6g, "
		       "\"fallback\": %s, \"stale\": %s, \"missing\": %s}",
		       ibf_rail_path_name(x->c.path), x->c.via_rail, x->c.score, x->c.rd, x->c.dr,
		       x->c.remote, x->c.gamma_src, x->c.gamma_dst, x->fallback ? "true" : "false",
		       x->stale ? "true" : "false", x->missing ? "true" : "false");
		return;
	}
	printf("%s -> %s: %s via rail %d", s, d, ibf_rail_path_name(x->c.path), x->c.via_rail);
	if (x->fallback)
		printf(" (default path: registry %s)", x->stale ? "stale" : "lacks this pair");
	else if (x->c.path == IBF_RAIL_RD || x->c.path == IBF_RAIL_DR ||
		 x->c.path == IBF_RAIL_REMOTE)
		printf(" (score %.4g; rd %.4g, dr %.4g, remote %.4g; gamma %.4g -> %.4g)",
		       x->c.score, x->c.rd, x->c.dr, x->c.remote, x->c.gamma_src, x->c.gamma_dst);
	printf("\n");
}

/* "HOST:GPU" -> host name (in buf) and GPU number */
static int split_gpu(const char *prog, const char *v, char *host, size_t hl, int *gpu)
{
	const char *colon = strrchr(v, ':');
	long g;
	if (!colon || colon == v || ibf_num_long(colon + 1, strlen(colon + 1), 0, 1000000, &g) ||
	    (size_t)(colon - v) >= hl)
		return cli_usage_error(prog, "expected HOST:GPU, got '%s'", v);
	memcpy(host, v, (size_t)(colon - v));
	host[colon - v] = 0;
	*gpu = (int)g;
	return 0;
}

static void free_hosts(char **hl, int nh)
{
	for (int i = 0; i < nh; i++)
		free(hl[i]);
	free(hl);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --hosts H1,H2,...: the names in order; an empty name or a name listed
 * twice is a usage error (a host's pairs would be decided twice, and with
 * itself) */
static int host_list(const char *prog, const char *hosts, char ***out, int *n)
{
	int nh = 1;
	for (const char *p = hosts; *p; p++)
		nh += *p == ',';
	char **hl = calloc((size_t)nh + 1, sizeof(char *));
	char **sorted = calloc((size_t)nh + 1, sizeof(char *));
	int k = 0, rc = 0;
	if (!hl || !sorted) {
		free(hl);
		free(sorted);
		fprintf(stderr, "%s: out of memory\n", prog);
		return 2;
	}
	for (const char *p = hosts;; k++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len) {
			rc = cli_usage_error(prog, "--hosts: empty host name (name %d of '%s')",
					     k + 1, hosts);
			break;
		}
		if (!(hl[k] = strndup(p, len))) {
			fprintf(stderr, "%s: out of memory\n", prog);
			rc = 2;
			break;
		}
		if (!e) {
			k++;
			break;
		}
		p = e + 1;
	}
	if (!rc) {
		memcpy(sorted, hl, (size_t)k * sizeof(char *));
		qsort(sorted, (size_t)k, sizeof(char *), cmp_str);
		for (int i = 1; i < k && !rc; i++)
			if (!strcmp(sorted[i], sorted[i - 1]))
				rc = cli_usage_error(prog, "--hosts: %s is listed twice", sorted[i]);
	}
	free(sorted);
	if (rc) {
		free_hosts(hl, nh);
		return rc;
	}
	*out = hl;
	*n = k;
	return 0;
}

static int cmd_path(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "registry", required_argument, 0, 'r' },
		{ "src", required_argument, 0, 's' },
		{ "dst", required_argument, 0, 'd' },
		{ "all", no_argument, 0, 'A' },
		{ "hosts", required_argument, 0, 'H' },
		{ "json", no_argument, 0, 'j' },
		{ "now", required_argument, 0, 'n' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *prog = "ibfab rail path", *reg = NULL, *src = NULL, *dst = NULL, *hosts = NULL;
	int all = 0, json = 0, c;
	long now = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			reg = optarg;
			break;
		case 's':
			src = optarg;
			break;
		case 'd':
			dst = optarg;
			break;
		case 'A':
			all = 1;
			break;
		case 'H':
			hosts = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'n':
			if (cli_int("--now", optarg, 1, 0x7fffffffffffL, &now))
				return 2;
			break;
		case 'h':
			fputs(rail_path_help, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (!reg || (!all && (!src || !dst)) || (all && (src || dst)) || optind != argc)
		return cli_usage_error(prog, "give --registry and either --src/--dst or --all");
	if (hosts && !all)
		return cli_usage_error(prog, "--hosts goes with --all");
	/* usage errors before the registry is read */
	char h1[256], h2[256];
	int g1 = -1, g2 = -1;
	if (!all) {
		if (split_gpu(prog, src, h1, sizeof(h1), &g1) ||
		    split_gpu(prog, dst, h2, sizeof(h2), &g2))
			return 2;
		if (!strcmp(h1, h2) && g1 == g2)
			return cli_usage_error(prog,
					       "--src and --dst are the same GPU (%s:%d): there is "
					       "no path to decide",
					       h1, g1);
	}
	int nh = 0;
	char **hl = NULL;
	if (hosts && host_list(prog, hosts, &hl, &nh))
		return 2;
	struct ibf_error err = { 0 };
	struct ibf_rail_registry r;
	int missing_file = 0;
	struct ibf_rail_store *st = ibf_rail_store_open(reg, NULL, &err);
	if (!st) {
		free_hosts(hl, nh);
		return cli_fail(&err);
	}
	if (ibf_rail_store_load(st, &r, &err)) {
		if (err.code != IBF_EIO) {
			ibf_rail_store_close(st);
			free_hosts(hl, nh);
			return cli_fail(&err);
		}
		/* no registry at all: every cross pair takes the default path */
		fprintf(stderr, "ibfab: warning: %s: %s; using the default path\n", reg, err.msg);
		ibf_rail_registry_init(&r);
		missing_file = 1;
	}
	ibf_rail_store_close(st);
	long long t = now > 0 ? now : (long long)time(NULL);
	struct ibf_rail_decision x;
	if (!all) {
		ibf_rail_registry_decide(&r, t, h1, g1, h2, g2, &x);
		if (json)
			printf("[");
		print_decision(src, dst, &x, json, 1);
		if (json)
			printf("]\n");
		ibf_rail_registry_free(&r);
		return 0;
	}
	/* every GPU pair of the chosen hosts (the registry's by default) */
	if (!hosts) {
		hl = calloc((size_t)r.ndomains + 1, sizeof(char *));
		for (int i = 0; hl && i < r.ndomains; i++)
			if ((hl[nh] = strdup(r.domain[i])))
				nh++;
	}
	for (int i = 0; hosts && i < nh; i++)
		if (ibf_rail_registry_find_domain(&r, hl[i]) < 0)
			fprintf(stderr,
				"ibfab: warning: host %s is not in the registry; its pairs take the "
				"default path\n",
				hl[i]);
	if (!nh || !r.nrails) {
		fprintf(stderr, "%s: no GPU pairs to decide: %d host(s), and %s lists %d rail(s)\n",
			prog, nh, reg, r.nrails);
		free_hosts(hl, nh);
		ibf_rail_registry_free(&r);
		return 1;
	}
	uint64_t count[5] = { 0 }, fb = 0;
	if (json)
		printf("[");
	int first = 1;
	for (int a = 0; a < nh; a++)
		for (int ga = 0; ga < r.nrails; ga++)
			for (int b = 0; b < nh; b++)
				for (int gb = 0; gb < r.nrails; gb++) {
					if (a == b && ga == gb)
						continue;
					ibf_rail_registry_decide(&r, t, hl[a], r.rail_label[ga],
								 hl[b], r.rail_label[gb], &x);
					count[x.c.path]++;
					fb += x.fallback;
					if (json) {
						char s1[300], s2[300];
						snprintf(s1, sizeof(s1), "%s:%d", hl[a],
							 r.rail_label[ga]);
						snprintf(s2, sizeof(s2), "%s:%d", hl[b],
							 r.rail_label[gb]);
						print_decision(s1, s2, &x, 1, first);
						first = 0;
					}
				}
	if (json)
		printf("]\n");
	else
		printf("%d hosts x %d rails: d %llu, r %llu, rd %llu, dr %llu, remote %llu "
		       "(%llu on the default path%s)\n",
		       nh, r.nrails, (unsigned long long)count[IBF_RAIL_D],
		       (unsigned long long)count[IBF_RAIL_R],
		       (unsigned long long)count[IBF_RAIL_RD],
		       (unsigned long long)count[IBF_RAIL_DR],
		       (unsigned long long)count[IBF_RAIL_REMOTE], (unsigned long long)fb,
		       missing_file ? ", no registry" : "");
	free_hosts(hl, nh);
	ibf_rail_registry_free(&r);
	return 0;
}

/* ------------------------------------------------------------ cache */

static const char rail_cache_help[] =
	"Usage: ibfab rail cache --registry LOCATION --out FILE [--interval S] [--once]\n"
	"         [--timeout MS]\n"
	"Keep a local copy of the registry at LOCATION (usually etcd://HOST:PORT[/PREFIX])\n"
	"in FILE, read every --interval seconds (default 5) and written atomically,\n"
	"for `ibfab rail path --registry FILE` and other readers on the host.  When\n"
	"the registry cannot be read (etcd unreachable, bad keys) or holds no keys\n"
	"(expired with its writer's lease), the copy is marked stale (timestamp 0;\n"
	"the last scores and default path stay for inspection) so decisions take the\n"
	"default path.  Runs until SIGTERM/SIGINT; --once polls once and exits 1 when\n"
	"the registry could not be read.  --timeout: per etcd request (default 5000).\n";

static int cmd_cache(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "registry", required_argument, 0, 'r' },
		{ "out", required_argument, 0, 'o' },
		{ "interval", required_argument, 0, 'i' },
		{ "once", no_argument, 0, '1' },
		{ "timeout", required_argument, 0, 't' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *prog = "ibfab rail cache", *reg = NULL, *out = NULL;
	long interval = 5, timeout = 5000;
	int once = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			reg = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'i':
			if (cli_int("--interval", optarg, 1, 86400, &interval))
				return 2;
			break;
		case 't':
			if (cli_int("--timeout", optarg, 10, 600000, &timeout))
				return 2;
			break;
		case '1':
			once = 1;
			break;
		case 'h':
			fputs(rail_cache_help, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (!reg || !out || optind != argc)
		return cli_usage_error(prog, "give --registry LOCATION and --out FILE");
	struct ibf_error err = { 0 };
	struct ibf_rail_store_opts o = { 0, timeout };
	struct ibf_rail_store *st = ibf_rail_store_open(reg, &o, &err);
	if (!st)
		return cli_fail(&err);
	catch_stop();
	struct ibf_rail_registry last;
	ibf_rail_registry_init(&last);
	int was_ok = -1, rc = 0;
	while (!rail_stop) {
		struct ibf_rail_registry r;
		int ok = !ibf_rail_store_load(st, &r, &err);
		if (ok && r.timestamp) {
			ibf_rail_registry_free(&last);
			last = r;
		} else {
			if (ok) {
				ibf_error_set(&err, IBF_EIO, reg, 0,
					      "no registry keys (never written, or expired with "
					      "the writer's lease)");
				ibf_rail_registry_free(&r);
				ok = 0;
			}
			last.timestamp = 0; /* stale: hosts take the default path */
		}
		/* state: 0 unreadable, 1 read but stale by its own timestamp (a
		 * writer that stopped without a lease), 2 fresh */
		int state = ok ? 2 - ibf_rail_registry_stale(&last, (long long)time(NULL)) : 0;
		if (state != was_ok) {
			if (state == 2)
				fprintf(stderr,
					"ibfab rail cache: %s: fresh (%d rails, %d domains)\n", reg,
					last.nrails, last.ndomains);
			else if (state == 1)
				fprintf(stderr,
					"ibfab rail cache: %s: read (%d rails, %d domains) but "
					"stale: written at %lld, max_age %ld s\n",
					reg, last.nrails, last.ndomains, last.timestamp,
					last.max_age);
			else
				fprintf(stderr, "ibfab rail cache: %s; %s marked stale\n", err.msg,
					out);
			was_ok = state;
		}
		struct ibf_error werr = { 0 };
		if (ibf_rail_registry_write(out, &last, &werr)) {
			rc = cli_fail(&werr);
			break;
		}
		if (once) {
			rc = ok ? 0 : 1;
			break;
		}
		nap(interval * 1000);
	}
	ibf_rail_registry_free(&last);
	ibf_rail_store_close(st);
	return rc;
}

static const char rail_check_help[] =
	"Usage: ibfab rail check FILE --lfts DUMP [--lmc N] [--guid2lid F] [--map MAPFILE]\n"
	"                        [--engine NAME]\n"
	"Trace the tables (opensm-lfts.dump or dump_lfts output, e.g. read back from\n"
	"the switches) from every GPU to every LID of every GPU of another server and\n"
	"report: same-rail paths that leave their rail (only pairs whose leaves are\n"
	"joined inside the rail), paths not delivered, pairs without any cable path\n"
	"(separate rails of a rail-only fabric: expected), cross-rail paths per\n"
	"spine, and whether the LMC layers of a cross-rail destination use distinct\n"
	"spines.  Exit 1 when a path is not delivered or a same-rail path leaves its\n"
	"rail, or when there is nothing to trace (no GPUs of two servers).\n"
	"Switch cables far below their rate that the engine (--engine, default\n"
	"hratio) routes as if lost do not count as a way to a spine or along a\n"
	"rail; the output says how many were left out.\n";

/* "left out: N switch cable(s) ..." for the switch cables f has and lean
 * (ibf_route_lean's copy) lacks, in canonical switch order; nothing when
 * none.  Returns 0 or IBF_ENOMEM. */
static int print_left_out(const struct ibf_fabric *f, const struct ibf_fabric *lean,
			  const char *engine)
{
	if (!lean)
		return 0;
	uint32_t *rank = malloc(((size_t)f->nsw + 1) * sizeof(*rank));
	struct cab {
		uint32_t ra, rb; /* ranks of the ends, ra < rb (or the same switch) */
		int a, b;	 /* nodes */
		int pa, pb;	 /* ports */
	} *cab = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	if (!rank || ibf_switch_ranks(f, rank)) {
		rc = IBF_ENOMEM;
		goto out;
	}
	for (uint32_t u = 0; u < f->nsw; u++) {
		int a = f->switches[u];
		const struct ibf_node *na = &f->nodes[a];
		for (int p = 1; p <= na->nports; p++) {
			const struct ibf_port *fp = ibf_port(f, a, p);
			int b = fp->peer_node;
			if (b == IBF_NO_NODE || f->nodes[b].type != IBF_NODE_SWITCH ||
			    ibf_port(lean, a, p)->peer_node != IBF_NO_NODE)
				continue;
			uint32_t ra = rank[u], rb = rank[f->nodes[b].sw];
			if (ra > rb || (ra == rb && p > fp->peer_port))
				continue; /* counted from its other end */
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 8;
				struct cab *t = realloc(cab, nc * sizeof(*cab));
				if (!t) {
					rc = IBF_ENOMEM;
					goto out;
				}
				cab = t;
				cap = nc;
			}
			cab[n++] = (struct cab){ ra, rb, a, b, p, fp->peer_port };
		}
	}
	if (!n)
		goto out;
	/* by the first end's rank, then its port (insertion: few cables) */
	for (size_t i = 1; i < n; i++) {
		struct cab x = cab[i];
		size_t j = i;
		while (j > 0 &&
		       (cab[j - 1].ra > x.ra || (cab[j - 1].ra == x.ra && cab[j - 1].pa > x.pa)))
			cab[j] = cab[j - 1], j--;
		cab[j] = x;
	}
	printf("left out: %zu switch cable(s) running below half their rate, which %s routes as "
	       "if lost (not counted as a way to a spine or along a rail):",
	       n, engine);
	for (size_t i = 0; i < n && i < 8; i++) {
		char ws[24];
		const struct ibf_port *fp = ibf_port(f, cab[i].a, cab[i].pa);
		const char *da = f->nodes[cab[i].a].desc, *db = f->nodes[cab[i].b].desc;
		printf("%s %s/P%d <-> %s/P%d at %s", i ? "," : "", da ? da : "?", cab[i].pa,
		       db ? db : "?", cab[i].pb,
		       ibf_format_width_speed(fp->width, fp->speed, ws, sizeof(ws)));
	}
	printf("%s\n", n > 8 ? ", ..." : "");
out:
	free(rank);
	free(cab);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "map", required_argument, 0, 'm' },
		{ "lfts", required_argument, 0, 'f' },
		{ "lmc", required_argument, 0, 'L' },
		{ "guid2lid", required_argument, 0, 'g' },
		{ "engine", required_argument, 0, 'e' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *mapf = NULL, *lfts = NULL, *g2l = NULL, *engine = "hratio";
	long lmc = -1;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			mapf = optarg;
			break;
		case 'f':
			lfts = optarg;
			break;
		case 'g':
			g2l = optarg;
			break;
		case 'e':
			engine = optarg;
			if (!ibf_engine_find(engine))
				return cli_usage_error("ibfab rail check",
						       "--engine: no such engine (ibfab route --help "
						       "lists them)");
			break;
		case 'L':
			if (ibf_num_long(optarg, strlen(optarg), 0, 7, &lmc))
				return cli_usage_error("ibfab rail check", "--lmc wants 0..7");
			break;
		case 'h':
			fputs(rail_check_help, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc || !lfts)
		return cli_usage_error("ibfab rail check",
				       "expected one fabric FILE and --lfts DUMP");
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
		rc = cli_lfts_read(f, lfts, &r, &err);
	if (!rc && !(rc = ibf_rail_detect(f, map, &ri, &err))) {
		have_ri = 1;
		warn_not_rail(argv[optind], &ri, map);
	}
	/* the cables the engine routes on: those far below their rate are
	 * left out by the engine's own rule */
	struct ibf_fabric *lean = NULL;
	if (!rc)
		rc = ibf_route_lean(f, engine, NULL, &lean, &err);
	if (!rc)
		rc = ibf_rail_route_check(f, lean, &ri, &r, &rep, &err);
	/* nothing traced (no GPUs, or all of one server) is not a pass */
	if (!rc && !rep.same_paths && !rep.cross_paths && !rep.split_paths)
		rc = ibf_error_set(&err, IBF_EINVAL, argv[optind], 0,
				   "no GPU pairs of two servers to trace (%d GPUs in %d domains): "
				   "nothing checked",
				   ri.ngpus, ri.ndomains);
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
		if (print_left_out(f, lean, engine))
			rc = ibf_error_set(&err, IBF_ENOMEM, NULL, 0, "out of memory");
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
			/* in canonical order (GUID first), not the records' */
			uint32_t *rank = malloc(((size_t)f->nsw + 1) * sizeof(*rank));
			int *ord = malloc(((size_t)rep.nspines + 1) * sizeof(*ord));
			int sorted = rank && ord && !ibf_switch_ranks(f, rank);
			for (int i = 0; sorted && i < rep.nspines; i++) {
				int j = i, v = i;
				while (j > 0 && rank[rep.spine_sw[ord[j - 1]]] > rank[rep.spine_sw[v]])
					ord[j] = ord[j - 1], j--;
				ord[j] = v;
			}
			for (int k = 0; k < rep.nspines; k++) {
				int i = sorted ? ord[k] : k;
				const char *d = f->nodes[f->switches[rep.spine_sw[i]]].desc;
				printf("  %-24s %llu\n", d ? d : "?",
				       (unsigned long long)rep.spine_paths[i]);
			}
			free(rank);
			free(ord);
		}
		if (rep.lmc_pairs)
			printf("lmc: %llu of %llu cross-rail pairs have their layers on distinct "
			       "spines (as many as both leaves reach)\n",
			       (unsigned long long)rep.lmc_distinct,
			       (unsigned long long)rep.lmc_pairs);
		bad = rep.same_failed || rep.cross_failed || rep.same_left;
	}
	ibf_rail_route_report_free(&rep);
	if (have_ri)
		ibf_rail_info_free(&ri);
	ibf_routes_free(&r);
	ibf_fabric_free(lean);
	ibf_fabric_free(f);
	ibf_rail_map_free(map);
	if (rc)
		return cli_fail(&err);
	return bad ? 1 : 0;
}

int cmd_rail(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{ "info", cmd_info, "domains, rails, spines and what does not fit" },
		{ "check", cmd_check,
		  "rail properties of forwarding tables (same rail stays, spines)" },
		{ "registry", cmd_registry,
		  "create or update the rail health registry (file or etcd)" },
		{ "path", cmd_path, "the h-ratio path decision for GPU pairs" },
		{ "cache", cmd_cache,
		  "keep a local copy of an (etcd) registry, stale when unreachable" },
		{ NULL, NULL, NULL },
	};
	return cli_dispatch("ibfab rail", cmds, argc, argv);
}
