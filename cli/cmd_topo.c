/* ibfab topo: gen | info | convert */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

static int parse_list(const char *opt, const char *val, int *out, int max, int *n)
{
	*n = 0;
	const char *p = val;
	while (*p) {
		/* one item: digits up to the next ',' (blanks, signs and an
		 * empty item are errors) */
		const char *end = p + strcspn(p, ",");
		long v;
		if (ibf_num_long(p, (size_t)(end - p), 0, 100000, &v) || *n >= max) {
			fprintf(stderr,
				"ibfab: option %s: '%s' is not a comma-separated list of up to %d integers\n",
				opt, val, max);
			return -1;
		}
		out[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
		if (*end && !*p) {
			fprintf(stderr, "ibfab: option %s: '%s' ends in a comma\n", opt, val);
			return -1;
		}
	}
	if (!*n) {
		fprintf(stderr, "ibfab: option %s: an empty list\n", opt);
		return -1;
	}
	return 0;
}

static const char gen_help[] =
	"Usage: ibfab topo gen FAMILY [options] [--format ibnetdiscover|ibsim|json] [-o FILE]\n"
	"\n"
	"Generate a fabric.  LIDs are assigned as OpenSM would (--lmc, default 0).\n"
	"\n"
	"Families and their options:\n"
	"  slimfly    --q Q [--hosts P] [--switch-ports K] [--hosts-first]\n"
	"             MMS Slim Fly for a prime power q = 4w+d, d in {-1,0,1}; 2q^2 switches,\n"
	"             network radix (3q-d)/2; P hosts per switch (default ceil(radix/2))\n"
	"  fattree    --kary K --n N              k-ary n-tree\n"
	"             --m M1,M2,.. --w 1,W2,.. [--parallel C] [--switch-ports K]\n"
	"                                         XGFT(h; m1..mh; w1..wh); m1 = hosts per leaf\n"
	"  rail       --servers M --gpus K [--rail-switches R] [--spines S] [--uplinks U]\n"
	"             [--switch-ports K]\n"
	"             rail-only (S = 0) or rail-optimized GPU cluster, one NIC per GPU;\n"
	"             U cables from every rail leaf to every spine (needs S > 0)\n"
	"  dragonfly  --a A --p P --h H [--g G]   A routers/group, P hosts, H global links\n"
	"  hyperx     --s1 X --s2 Y [--trunk T] [--hosts P]\n"
	"  torus      --dims K1[,K2,..] [--hosts P] [--mesh]\n"
	"             k-ary n-cube (one dimension: a ring), each Ki >= 2; --mesh: no\n"
	"             wrap-around cables; P hosts per switch (default 1)\n"
	"An option not listed for the family (--parallel and --switch-ports: not\n"
	"with --kary) is a usage error.\n"
	"\n"
	"Common options:\n"
	"  --format F     ibnetdiscover (default), ibsim, json\n"
	"  -o, --output F write to F atomically (default: stdout)\n"
	"  --lmc N        LMC of end ports (0..7, default 0)\n"
	"  --node-name-map F  also write a node-name-map (GUID -> description)\n"
	"  -h, --help     this text\n";

enum {
	O_Q = 256,
	O_HOSTS,
	O_SWPORTS,
	O_HFIRST,
	O_KARY,
	O_N,
	O_M,
	O_W,
	O_PAR,
	O_SERVERS,
	O_GPUS,
	O_RAILSW,
	O_SPINES,
	O_UPLINKS,
	O_A,
	O_P,
	O_H,
	O_G,
	O_S1,
	O_S2,
	O_TRUNK,
	O_DIMS,
	O_MESH,
	O_FORMAT,
	O_LMC,
	O_NNMAP,
	O_JSON,
	O_THREADS,
	O_INFMT
};

static const struct option gen_lo[] = {
	{ "q", required_argument, 0, O_Q },
	{ "hosts", required_argument, 0, O_HOSTS },
	{ "switch-ports", required_argument, 0, O_SWPORTS },
	{ "hosts-first", no_argument, 0, O_HFIRST },
	{ "kary", required_argument, 0, O_KARY },
	{ "n", required_argument, 0, O_N },
	{ "m", required_argument, 0, O_M },
	{ "w", required_argument, 0, O_W },
	{ "parallel", required_argument, 0, O_PAR },
	{ "servers", required_argument, 0, O_SERVERS },
	{ "gpus", required_argument, 0, O_GPUS },
	{ "rail-switches", required_argument, 0, O_RAILSW },
	{ "spines", required_argument, 0, O_SPINES },
	{ "uplinks", required_argument, 0, O_UPLINKS },
	{ "a", required_argument, 0, O_A },
	{ "p", required_argument, 0, O_P },
	{ "h", required_argument, 0, O_H },
	{ "g", required_argument, 0, O_G },
	{ "s1", required_argument, 0, O_S1 },
	{ "s2", required_argument, 0, O_S2 },
	{ "trunk", required_argument, 0, O_TRUNK },
	{ "dims", required_argument, 0, O_DIMS },
	{ "mesh", no_argument, 0, O_MESH },
	{ "format", required_argument, 0, O_FORMAT },
	{ "output", required_argument, 0, 'o' },
	{ "lmc", required_argument, 0, O_LMC },
	{ "node-name-map", required_argument, 0, O_NNMAP },
	{ "help", no_argument, 0, 'H' },
	{ 0, 0, 0, 0 },
};

/* What `topo gen` was asked for (-1: not given). */
struct gen_args {
	const char *family;
	long q, hosts, swports, kary, n, par, servers, gpus, railsw, spines, uplinks, a, p, h, g,
		s1, s2, trunk, lmc;
	int hfirst, m[IBF_FT_MAX_LEVELS], w[IBF_FT_MAX_LEVELS], nm, nw;
	int dims[IBF_TORUS_MAX_DIMS], ndims, mesh;
	const char *out, *nnmap;
	int fmt;
	unsigned long given; /* bit (code - O_Q) of each option given */
};

#define GIVEN(a, code) (((a)->given >> ((code) - O_Q)) & 1)

/* The families in the order of their bits in gen_fams[]. */
static const char *const gen_family_names[] = { "slimfly", "fattree", "rail", "dragonfly",
						"hyperx", "torus" };
enum { F_SF = 1, F_FT = 2, F_RAIL = 4, F_DF = 8, F_HX = 16, F_TOR = 32, F_ALL = 63 };

/* The families each option applies to; giving it to another one is a usage
 * error rather than silently ignored. */
static unsigned gen_fams(int code)
{
	switch (code) {
	case O_Q:
	case O_HFIRST:
		return F_SF;
	case O_HOSTS:
		return F_SF | F_HX | F_TOR;
	case O_SWPORTS:
		return F_SF | F_FT | F_RAIL;
	case O_KARY:
	case O_N:
	case O_M:
	case O_W:
	case O_PAR:
		return F_FT;
	case O_SERVERS:
	case O_GPUS:
	case O_RAILSW:
	case O_SPINES:
	case O_UPLINKS:
		return F_RAIL;
	case O_A:
	case O_P:
	case O_H:
	case O_G:
		return F_DF;
	case O_S1:
	case O_S2:
	case O_TRUNK:
		return F_HX;
	case O_DIMS:
	case O_MESH:
		return F_TOR;
	default:
		return F_ALL;
	}
}

/* The numeric options: where each goes and its upper bound (lower: 0). */
static const struct {
	int code;
	size_t off;
	long hi;
} gen_nums[] = {
	{ O_Q, offsetof(struct gen_args, q), 100000 },
	{ O_HOSTS, offsetof(struct gen_args, hosts), 1000000 },
	{ O_SWPORTS, offsetof(struct gen_args, swports), IBF_MAX_PORTS },
	{ O_KARY, offsetof(struct gen_args, kary), 1000000 },
	{ O_N, offsetof(struct gen_args, n), 1000000 },
	{ O_PAR, offsetof(struct gen_args, par), 1000000 },
	{ O_SERVERS, offsetof(struct gen_args, servers), 1000000 },
	{ O_GPUS, offsetof(struct gen_args, gpus), 1000000 },
	{ O_RAILSW, offsetof(struct gen_args, railsw), 1000000 },
	{ O_SPINES, offsetof(struct gen_args, spines), 1000000 },
	{ O_UPLINKS, offsetof(struct gen_args, uplinks), 1000000 },
	{ O_A, offsetof(struct gen_args, a), 1000000 },
	{ O_P, offsetof(struct gen_args, p), 1000000 },
	{ O_H, offsetof(struct gen_args, h), 1000000 },
	{ O_G, offsetof(struct gen_args, g), 1000000 },
	{ O_S1, offsetof(struct gen_args, s1), 1000000 },
	{ O_S2, offsetof(struct gen_args, s2), 1000000 },
	{ O_TRUNK, offsetof(struct gen_args, trunk), 1000000 },
	{ O_LMC, offsetof(struct gen_args, lmc), 7 },
};

/* Parse `topo gen FAMILY [options]`: 0, 1 when help was printed, else the
 * exit code of a usage error. */
static int gen_parse(int argc, char **argv, struct gen_args *a)
{
	*a = (struct gen_args){ .q = -1,
				.hosts = -1,
				.kary = -1,
				.n = -1,
				.par = 1,
				.servers = -1,
				.gpus = -1,
				.railsw = 1,
				.uplinks = 1,
				.a = -1,
				.p = -1,
				.h = -1,
				.s1 = -1,
				.s2 = -1,
				.trunk = 1,
				.out = "-",
				.fmt = IBF_FMT_IBNETDISCOVER };
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			fputs(gen_help, stdout);
			return 1;
		}
		return cli_usage_error("ibfab topo gen", "missing FAMILY");
	}
	a->family = argv[1];
	int fam = -1; /* unknown: gen_family reports it */
	for (int i = 0; i < (int)(sizeof(gen_family_names) / sizeof(gen_family_names[0])); i++)
		if (!strcmp(a->family, gen_family_names[i]))
			fam = i;
	int c, li = -1;
	optind = 2;
	opterr = 1;
	/* long options only: '-h' is the help flag, not dragonfly's h */
	while ((c = getopt_long_only(argc, argv, "o:", gen_lo, &li)) != -1) {
		char name[32];
		snprintf(name, sizeof(name), "--%s", li >= 0 ? gen_lo[li].name : "?");
		li = -1;
		if (c >= O_Q && c <= O_NNMAP) {
			if (fam >= 0 && !(gen_fams(c) & (1u << fam)))
				return cli_usage_error("ibfab topo gen", "%s does not apply to %s",
						       name, a->family);
			a->given |= 1ul << (c - O_Q);
		}
		long *dst = NULL, hi = 0;
		for (size_t i = 0; i < sizeof(gen_nums) / sizeof(gen_nums[0]); i++)
			if (gen_nums[i].code == c) {
				dst = (long *)(void *)((char *)a + gen_nums[i].off);
				hi = gen_nums[i].hi;
			}
		if (dst) {
			if (cli_int(name, optarg, 0, hi, dst))
				return 2;
			continue;
		}
		switch (c) {
		case O_HFIRST:
			a->hfirst = 1;
			break;
		case O_M:
			if (parse_list("--m", optarg, a->m, IBF_FT_MAX_LEVELS, &a->nm))
				return 2;
			break;
		case O_W:
			if (parse_list("--w", optarg, a->w, IBF_FT_MAX_LEVELS, &a->nw))
				return 2;
			break;
		case O_DIMS:
			if (parse_list("--dims", optarg, a->dims, IBF_TORUS_MAX_DIMS, &a->ndims))
				return 2;
			break;
		case O_MESH:
			a->mesh = 1;
			break;
		case O_FORMAT:
			if (cli_output_format("ibfab topo gen", optarg, &a->fmt))
				return 2;
			break;
		case 'o':
			a->out = optarg;
			break;
		case O_NNMAP:
			a->nnmap = optarg;
			break;
		case 'H':
			fputs(gen_help, stdout);
			return 1;
		default:
			return cli_usage_error("ibfab topo gen", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error("ibfab topo gen", "unexpected argument '%s'", argv[optind]);
	return 0;
}

static struct ibf_fabric *gen_fattree(const struct gen_args *a, int *usage, struct ibf_error *err)
{
	if (a->kary >= 0 || a->n >= 0) {
		if (a->kary < 0 || a->n < 0) {
			*usage = cli_usage_error("ibfab topo gen fattree",
						 "--kary and --n go together");
			return NULL;
		}
		if (a->nm || a->nw || GIVEN(a, O_PAR) || GIVEN(a, O_SWPORTS)) {
			*usage = cli_usage_error(
				"ibfab topo gen fattree",
				"--kary/--n take no --m, --w, --parallel or --switch-ports");
			return NULL;
		}
		return ibf_gen_kary_ntree((int)a->kary, (int)a->n, err);
	}
	if (a->nm == 0 || a->nm != a->nw) {
		*usage = cli_usage_error(
			"ibfab topo gen fattree",
			"give --kary K --n N, or --m and --w lists of equal length");
		return NULL;
	}
	struct ibf_fattree_opts o;
	memset(&o, 0, sizeof(o));
	o.levels = a->nm;
	for (int i = 0; i < a->nm; i++) {
		o.m[i] = a->m[i];
		o.w[i] = a->w[i];
	}
	o.parallel = (int)a->par;
	o.switch_ports = (int)a->swports;
	return ibf_gen_fattree(&o, err);
}

/* The family's generator; NULL with *usage set for a usage error, or with
 * err set when the generator refused. */
static struct ibf_fabric *gen_family(const struct gen_args *a, int *usage, struct ibf_error *err)
{
	const char *family = a->family;
	*usage = 0;
	if (!strcmp(family, "slimfly")) {
		if (a->q < 0) {
			*usage = cli_usage_error("ibfab topo gen slimfly", "--q is required");
			return NULL;
		}
		struct ibf_slimfly_opts o = { (int)a->q, (int)a->hosts, (int)a->swports,
					      a->hfirst };
		struct ibf_fabric *f = ibf_gen_slimfly(&o, err);
		/* a q no Slim Fly has is a bad option value: a usage error */
		if (!f && !ibf_slimfly_admissible((int)a->q, NULL, NULL, NULL))
			*usage = cli_usage_error("ibfab topo gen slimfly", "%s", err->msg);
		return f;
	}
	if (!strcmp(family, "fattree"))
		return gen_fattree(a, usage, err);
	if (!strcmp(family, "rail")) {
		if (a->servers < 0 || a->gpus < 0) {
			*usage = cli_usage_error("ibfab topo gen rail",
						 "--servers and --gpus are required");
			return NULL;
		}
		struct ibf_rail_opts o = { (int)a->servers, (int)a->gpus,    (int)a->railsw,
					   (int)a->spines,  (int)a->uplinks, (int)a->swports };
		return ibf_gen_rail(&o, err);
	}
	if (!strcmp(family, "dragonfly")) {
		if (a->a < 0 || a->p < 0 || a->h < 0) {
			*usage = cli_usage_error("ibfab topo gen dragonfly",
						 "--a, --p and --h are required");
			return NULL;
		}
		struct ibf_dragonfly_opts o = { (int)a->a, (int)a->p, (int)a->h, (int)a->g };
		return ibf_gen_dragonfly(&o, err);
	}
	if (!strcmp(family, "hyperx")) {
		if (a->s1 < 0 || a->s2 < 0) {
			*usage = cli_usage_error("ibfab topo gen hyperx",
						 "--s1 and --s2 are required");
			return NULL;
		}
		struct ibf_hyperx_opts o = { (int)a->s1, (int)a->s2, (int)a->trunk,
					     a->hosts < 0 ? 1 : (int)a->hosts };
		return ibf_gen_hyperx(&o, err);
	}
	if (!strcmp(family, "torus")) {
		if (!a->ndims) {
			*usage = cli_usage_error("ibfab topo gen torus", "--dims is required");
			return NULL;
		}
		for (int d = 0; d < a->ndims; d++)
			if (a->dims[d] < 2) {
				*usage = cli_usage_error("ibfab topo gen torus",
							 "--dims: every dimension needs 2 or more "
							 "switches (got %d)",
							 a->dims[d]);
				return NULL;
			}
		struct ibf_torus_opts o;
		memset(&o, 0, sizeof(o));
		o.ndims = a->ndims;
		memcpy(o.k, a->dims, sizeof(o.k));
		o.hosts = a->hosts < 0 ? 1 : (int)a->hosts;
		o.mesh = a->mesh;
		struct ibf_fabric *f = ibf_gen_torus(&o, err);
		/* every refusal of the generator is an option value out of its
		 * range (sizes, hosts for the ports): a usage error */
		if (!f && err->code == IBF_EINVAL)
			*usage = cli_usage_error("ibfab topo gen torus", "%s", err->msg);
		return f;
	}
	*usage = cli_usage_error("ibfab topo gen",
				 "unknown family '%s' (slimfly, fattree, rail, dragonfly, hyperx, "
				 "torus)",
				 family);
	return NULL;
}

static int cmd_gen(int argc, char **argv)
{
	struct gen_args a;
	int rc = gen_parse(argc, argv, &a);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct ibf_error err;
	ibf_error_clear(&err);
	int usage;
	struct ibf_fabric *f = gen_family(&a, &usage, &err);
	if (!f && !usage && err.code == IBF_EINVAL) {
		/* the generators refuse with IBF_EINVAL only a size or count out
		 * of its range (or too large a fabric): a bad option value, a
		 * usage error as for torus and for a q no Slim Fly has */
		char prog[64];
		snprintf(prog, sizeof(prog), "ibfab topo gen %s", a.family);
		return cli_usage_error(prog, "%s", err.msg);
	}
	if (!f)
		return usage ? usage : cli_fail(&err);
	rc = ibf_assign_lids(f, (int)a.lmc, 0, &err);
	if (!rc)
		rc = ibf_fabric_write(f, a.out, a.fmt, &err);
	if (!rc && a.nnmap)
		rc = ibf_namemap_write_fabric(f, a.nnmap, &err);
	ibf_fabric_free(f);
	return rc ? cli_fail(&err) : 0;
}

static const char info_help[] =
	"Usage: ibfab topo info FILE [--format F] [--json] [--threads N]\n"
	"\n"
	"Read a fabric (ibnetdiscover, ibnetdiscover -p, ibsim net file, OpenSM\n"
	"subnet.lst or iblinkinfo; detected from the content unless --format is\n"
	"given) and print\n"
	"node and link counts, the switch degree histogram, diameter, average switch\n"
	"distance, hosts per switch, parallel, degraded, loopback and one-sided links.\n"
	"\n"
	"A link is degraded when it runs below what both ends support: exact when the\n"
	"input carries the ports' supported width/speed (evidence \"supported\"), else\n"
	"judged against the other cables between the same two nodes (\"twins\") or the\n"
	"other links joining the same two node models (\"model\").  Each degraded link\n"
	"is listed with its evidence.\n"
	"\n"
	"--threads N: workers of the statistics, 1..64, or 0 / auto for one per\n"
	"online CPU (default 2; the output never depends on it).\n";

/* One degraded link: both ends, what it runs at, what it should run at. */
static void degraded_ends(const struct ibf_fabric *f, const struct ibf_degraded *d, char *ra,
			  size_t la, char *rb, size_t lb)
{
	const struct ibf_node *a = &f->nodes[d->node_a], *b = &f->nodes[d->node_b];
	snprintf(ra, la, "%s", a->desc[0] ? a->desc : a->id ? a->id : "?");
	snprintf(rb, lb, "%s", b->desc[0] ? b->desc : b->id ? b->id : "?");
}

/* The entries of ibf_find_degraded: the degraded links (grade 0) or the
 * GRADE ones (grade 1). */
static void print_degraded(const struct ibf_fabric *f, const struct ibf_degraded *dl, uint32_t n,
			   int json, int grade)
{
	char ra[160], rb[160], run[16], exp[16];
	int first = 1;
	for (uint32_t i = 0; i < n; i++) {
		const struct ibf_degraded *d = &dl[i];
		if ((d->evidence == IBF_DEGR_GRADE) != grade)
			continue;
		degraded_ends(f, d, ra, sizeof(ra), rb, sizeof(rb));
		if (!json) { /* JSON gives the GUIDs in their own fields */
			ibf_node_label(f, (int)d->node_a, ra, sizeof(ra));
			ibf_node_label(f, (int)d->node_b, rb, sizeof(rb));
		}
		ibf_format_width_speed(d->width, d->speed, run, sizeof(run));
		ibf_format_width_speed(d->exp_width, d->exp_speed, exp, sizeof(exp));
		const char *ev = ibf_degr_evidence_name(d->evidence);
		if (json) {
			printf("%s\n    {\"a\": ", first ? "" : ",");
			first = 0;
			ibf_json_str(stdout, ra);
			printf(", \"a_guid\": \"0x%016llx\", \"a_port\": %u, \"b\": ",
			       (unsigned long long)f->nodes[d->node_a].guid, d->port_a);
			ibf_json_str(stdout, rb);
			printf(", \"b_guid\": \"0x%016llx\", \"b_port\": %u, \"runs\": \"%s\", "
			       "\"expected\": \"%s\", \"evidence\": \"%s\", \"compared_links\": %u}",
			       (unsigned long long)f->nodes[d->node_b].guid, d->port_b, run, exp,
			       ev, d->peers);
			continue;
		}
		if (grade) {
			printf("  slower: %s port %u <-> %s port %u runs at %s, like links %s (%u other "
			       "link%s joining the same two node models)\n",
			       ra, d->port_a, rb, d->port_b, run, exp, d->peers,
			       d->peers == 1 ? "" : "s");
			continue;
		}
		printf("  degraded: %s port %u <-> %s port %u runs at %s, expected %s (", ra,
		       d->port_a, rb, d->port_b, run, exp);
		if (d->evidence == IBF_DEGR_SUPPORTED)
			printf("evidence: supported, both ports support %s)\n", exp);
		else if (d->evidence == IBF_DEGR_TWINS)
			printf("evidence: twins, %u other cable%s between the same two nodes)\n",
			       d->peers, d->peers == 1 ? "" : "s");
		else
			printf("evidence: model, %u other link%s joining the same two node models)\n",
			       d->peers, d->peers == 1 ? "" : "s");
	}
}

/* Where a node is: its description and what its first cabled port faces. */
static void node_where(const struct ibf_fabric *f, int v, char *buf, size_t len)
{
	const struct ibf_node *n = &f->nodes[v];
	size_t k = (size_t)snprintf(buf, len, "'%s'", n->desc ? n->desc : (n->id ? n->id : "?"));
	for (int p = 1; p <= n->nports && k < len; p++) {
		const struct ibf_port *pp = ibf_port(f, v, p);
		if (pp->peer_node == IBF_NO_NODE)
			continue;
		const struct ibf_node *q = &f->nodes[pp->peer_node];
		snprintf(buf + k, len - k, " port %d cabled to '%s' port %u", p,
			 q->desc ? q->desc : (q->id ? q->id : "?"), pp->peer_port);
		return;
	}
	if (k < len)
		snprintf(buf + k, len - k, " (no cable)");
}

static void print_dups(const struct ibf_fabric *f, const struct ibf_dup_guid *d, uint32_t n,
		       int json)
{
	char where[700];
	for (uint32_t i = 0; i < n; i++) {
		node_where(f, d[i].node, where, sizeof(where));
		if (json) {
			printf("%s\n    {\"guid\": \"0x%016llx\", \"where\": ", i ? "," : "",
			       (unsigned long long)d[i].guid);
			ibf_json_str(stdout, where);
			printf("}");
		} else {
			if (i == 0 || d[i].guid != d[i - 1].guid)
				printf("  duplicate GUID 0x%016llx (two devices report it: firmware bug, "
				       "e.g. SHARP aggregation nodes):\n",
				       (unsigned long long)d[i].guid);
			printf("    %s\n", where);
		}
	}
}

static void print_stats_json(const struct ibf_fabric *f, const struct ibf_stats *st,
			     const char *path, long one_sided, long tool_lines, long not_avail,
			     const struct ibf_degraded *dl, const struct ibf_dup_guid *dups,
			     uint32_t ndups)
{
	printf("{\n  \"file\": \"");
	for (const char *c = path; *c; c++) {
		if (*c == '"' || *c == '\\')
			putchar('\\');
		putchar(*c);
	}
	printf("\",\n  \"switches\": %u,\n  \"cas\": %u,\n  \"routers\": %u,\n", st->nswitches,
	       st->ncas, st->nrouters);
	printf("  \"host_ports\": %u,\n  \"switch_links\": %u,\n  \"switch_pairs\": %u,\n",
	       st->ca_ports_connected, st->sw_links, st->sw_pairs_linked);
	printf("  \"parallel_links\": %u,\n  \"host_links\": %u,\n  \"adapter_links\": %u,\n"
	       "  \"loopback_links\": %u,\n",
	       st->parallel_links, st->host_links, st->adapter_links, st->loopback_links);
	uint32_t ndl = st->degraded_links + st->grade_links;
	printf("  \"degraded_links\": %u,\n  \"degraded\": [", st->degraded_links);
	print_degraded(f, dl, ndl, 1, 0);
	printf("%s],\n", st->degraded_links ? "\n  " : "");
	printf("  \"slower_links\": %u,\n  \"slower\": [", st->grade_links);
	print_degraded(f, dl, ndl, 1, 1);
	printf("%s],\n  \"one_sided_links\": %ld,\n", st->grade_links ? "\n  " : "", one_sided);
	printf("  \"tool_message_lines\": %ld,\n  \"ports_not_available\": %ld,\n", tool_lines,
	       not_avail);
	printf("  \"duplicate_guids\": [");
	print_dups(f, dups, ndups, 1);
	printf("%s],\n", ndups ? "\n  " : "");
	printf("  \"components\": %u,\n", st->components);
	if (st->diameter == IBF_DIST_INF)
		printf("  \"diameter\": null,\n");
	else
		printf("  \"diameter\": %u,\n", st->diameter);
	printf("  \"avg_distance\": %.6f,\n", st->avg_distance);
	printf("  \"hosts_per_switch\": {\"min\": %u, \"max\": %u},\n", st->min_hosts_per_switch,
	       st->max_hosts_per_switch);
	printf("  \"degree_histogram\": {");
	int first = 1;
	for (uint32_t d = 0; d <= st->max_degree; d++)
		if (st->degree_hist[d]) {
			printf("%s\"%u\": %u", first ? "" : ", ", d, st->degree_hist[d]);
			first = 0;
		}
	printf("}\n}\n");
}

static int cmd_info(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, O_INFMT },
		{ "json", no_argument, 0, O_JSON },
		{ "threads", required_argument, 0, O_THREADS },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int fmt = IBF_FMT_AUTO, json = 0, c;
	long threads = 2;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_INFMT:
			if (cli_input_format("ibfab topo info", optarg, &fmt))
				return 2;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_THREADS:
			if (cli_threads("ibfab topo info", optarg, 64, &threads))
				return 2;
			break;
		case 'h':
			fputs(info_help, stdout);
			return 0;
		default:
			return cli_usage_error("ibfab topo info", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("ibfab topo info", "expected one FILE");
	const char *path = argv[optind];
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_read_fabric(path, fmt, &err);
	if (!f)
		return cli_fail(&err);
	if (!f->finalized && ibf_fabric_finalize(f, &err)) {
		ibf_fabric_free(f);
		return cli_fail(&err);
	}
	struct ibf_stats st;
	if (ibf_fabric_stats(f, &st, (int)threads, &err)) {
		ibf_fabric_free(f);
		return cli_fail(&err);
	}
	struct ibf_degraded *dl = NULL;
	uint32_t ndl = 0;
	if (ibf_find_degraded(f, &dl, &ndl, &err)) {
		ibf_stats_free(&st);
		ibf_fabric_free(f);
		return cli_fail(&err);
	}
	struct ibf_dup_guid *dups = NULL;
	uint32_t ndups = 0;
	if (ibf_find_dup_guids(f, &dups, &ndups, &err)) {
		free(dl);
		ibf_stats_free(&st);
		ibf_fabric_free(f);
		return cli_fail(&err);
	}
	long one_sided = cli_meta_long(f, "one_sided", 0);
	/* what the tool that wrote the file said about its own run */
	long tool_lines = cli_meta_long(f, "stderr_lines", 0);
	long not_avail = cli_meta_long(f, "ports_not_available", 0);
	if (json) {
		print_stats_json(f, &st, path, one_sided, tool_lines, not_avail, dl, dups, ndups);
	} else {
		printf("fabric:          %s\n", path);
		printf("switches:        %u\n", st.nswitches);
		printf("channel adapters:%s%u (%u connected ports)\n", " ", st.ncas,
		       st.ca_ports_connected);
		if (st.nrouters)
			printf("routers:         %u\n", st.nrouters);
		printf("switch links:    %u between %u switch pairs (%u parallel), %u loopback\n",
		       st.sw_links, st.sw_pairs_linked, st.parallel_links, st.loopback_links);
		printf("host links:      %u (hosts per switch %u..%u)\n", st.host_links,
		       st.min_hosts_per_switch, st.max_hosts_per_switch);
		if (st.adapter_links)
			printf("adapter links:   %u (adapters cabled to each other, no switch "
			       "between: no forwarding table routes over them)\n",
			       st.adapter_links);
		printf("degraded links:  %u\n", st.degraded_links);
		print_degraded(f, dl, ndl, 0, 0);
		if (st.grade_links) {
			printf("slower links:    %u (below like links by speed only, to more than half "
			       "their rate: a lower speed grade of the same device runs so too; "
			       "not counted as degraded)\n",
			       st.grade_links);
			print_degraded(f, dl, ndl, 0, 1);
		}
		printf("one-sided links: %ld\n", one_sided);
		if (tool_lines)
			printf("tool messages:   %ld line%s of the discovery tool's own messages "
			       "in the file (ibwarn:, src/...c:N); after a timeout a node that "
			       "did not answer may be missing\n",
			       tool_lines, tool_lines == 1 ? "" : "s");
		if (not_avail)
			printf("ports not available: %ld (up, far end not scanned: a partial "
			       "scan)\n",
			       not_avail);
		if (ndups) {
			printf("duplicate GUIDs: %u nodes\n", ndups);
			print_dups(f, dups, ndups, 0);
		}
		printf("components:      %u\n", st.components);
		if (st.diameter == IBF_DIST_INF)
			printf("diameter:        infinite (switch graph disconnected)\n");
		else
			printf("diameter:        %u\n", st.diameter);
		printf("avg distance:    %.4f\n", st.avg_distance);
		printf("degree histogram (switch-switch links: switches):");
		for (uint32_t d = 0; d <= st.max_degree; d++)
			if (st.degree_hist[d])
				printf(" %u:%u", d, st.degree_hist[d]);
		printf("\n");
	}
	free(dl);
	free(dups);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
	return 0;
}

static const char convert_help[] =
	"Usage: ibfab topo convert IN [--from F] --format F [-o FILE] [--lmc N]\n"
	"\n"
	"Read a fabric in any supported format and write it as ibnetdiscover, ibsim\n"
	"or json.  --lmc N re-assigns LIDs as OpenSM would; otherwise the LIDs of the\n"
	"input are kept.\n";

static int cmd_convert(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "from", required_argument, 0, O_INFMT },
		{ "format", required_argument, 0, O_FORMAT },
		{ "output", required_argument, 0, 'o' },
		{ "lmc", required_argument, 0, O_LMC },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int infmt = IBF_FMT_AUTO, fmt = -1, c;
	long lmc = -1;
	const char *out = "-";
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case O_INFMT:
			if (cli_input_format("ibfab topo convert", optarg, &infmt))
				return 2;
			break;
		case O_FORMAT:
			if (cli_output_format("ibfab topo convert", optarg, &fmt))
				return 2;
			break;
		case 'o':
			out = optarg;
			break;
		case O_LMC:
			if (cli_int("--lmc", optarg, 0, 7, &lmc))
				return 2;
			break;
		case 'h':
			fputs(convert_help, stdout);
			return 0;
		default:
			return cli_usage_error("ibfab topo convert", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("ibfab topo convert", "expected one input FILE");
	if (fmt < 0)
		return cli_usage_error("ibfab topo convert", "--format is required");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_read_fabric(argv[optind], infmt, &err);
	if (!f)
		return cli_fail(&err);
	int rc = 0;
	if (lmc >= 0)
		rc = ibf_assign_lids(f, (int)lmc, 0, &err);
	if (!rc)
		rc = ibf_fabric_write(f, out, fmt, &err);
	ibf_fabric_free(f);
	return rc ? cli_fail(&err) : 0;
}

static const char links_help[] =
	"Usage: ibfab topo links FILE [--format F] [--no-ports]\n"
	"\n"
	"Print every link once, named by node description, sorted:\n"
	"  \"desc A\"[port] \"desc B\"[port] WIDTHxSPEED\n"
	"(the end with the smaller name first).  Two fabrics with the same output\n"
	"have the same graph under their description names, whatever their GUIDs\n"
	"or LIDs; diff the outputs to compare a plan with a discovered fabric.\n";

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmd_links(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, O_INFMT },
		{ "no-ports", no_argument, 0, O_JSON },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int fmt = IBF_FMT_AUTO, noports = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_INFMT:
			if (cli_input_format("ibfab topo links", optarg, &fmt))
				return 2;
			break;
		case O_JSON:
			noports = 1;
			break;
		case 'h':
			fputs(links_help, stdout);
			return 0;
		default:
			return cli_usage_error("ibfab topo links", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("ibfab topo links", "expected one FILE");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_read_fabric(argv[optind], fmt, &err);
	if (!f)
		return cli_fail(&err);
	size_t n = 0, cap = 1024;
	char **lines = malloc(cap * sizeof(*lines));
	int rc = lines ? 0 : 1;
	for (uint32_t i = 0; !rc && i < f->nnodes; i++) {
		for (int p = 1; !rc && p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			const char *da = f->nodes[i].desc, *db = f->nodes[pp->peer_node].desc;
			int pa = p, pb = pp->peer_port;
			int d = strcmp(da, db);
			/* print each link once: from the end with the smaller (name, port) */
			if (d > 0 || (d == 0 && pa > pb))
				continue;
			if (d == 0 && pa == pb)
				continue;
			char ws[16], buf[1024];
			ibf_format_width_speed(pp->width, pp->speed, ws, sizeof(ws));
			if (noports)
				snprintf(buf, sizeof(buf), "\"%s\" \"%s\" %s", da, db, ws);
			else
				snprintf(buf, sizeof(buf), "\"%s\"[%d] \"%s\"[%d] %s", da, pa, db,
					 pb, ws);
			if (n == cap) {
				char **nl = realloc(lines, 2 * cap * sizeof(*lines));
				if (!nl) {
					rc = 1;
					break;
				}
				lines = nl;
				cap *= 2;
			}
			lines[n] = strdup(buf);
			if (!lines[n]) {
				rc = 1;
				break;
			}
			n++;
		}
	}
	if (!rc) {
		qsort(lines, n, sizeof(*lines), cmp_str);
		for (size_t i = 0; i < n; i++)
			puts(lines[i]);
	} else {
		fprintf(stderr, "ibfab: out of memory\n");
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	ibf_fabric_free(f);
	return rc;
}

static const struct ibf_cmd topo_cmds[] = {
	{ "gen", cmd_gen, "generate a fabric (slimfly, fattree, rail, dragonfly, hyperx, torus)" },
	{ "info", cmd_info, "counts, degrees, diameter and link problems of a fabric file" },
	{ "convert", cmd_convert, "convert between fabric file formats" },
	{ "links", cmd_links, "list every link by node description (for diffs)" },
	{ NULL, NULL, NULL },
};

int cmd_topo(int argc, char **argv)
{
	return cli_dispatch("ibfab topo", topo_cmds, argc, argv);
}
