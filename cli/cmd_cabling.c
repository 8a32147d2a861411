/* ibfab cabling: slimfly | from-topology | sheets | render
 * ibfab validate: compare a discovered fabric with a cable plan */
#include "cli.h"
#include "ibf_cabling.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibf_live.h"

enum {
	O_Q = 256,
	O_HOSTS,
	O_SWPORTS,
	O_FIRSTHOST,
	O_LINK,
	O_NET,
	O_IBND,
	O_NNMAP,
	O_JSON,
	O_SHEETS,
	O_NOFABRIC,
	O_PLAN,
	O_FABRIC,
	O_LIVE,
	O_ANCHOR,
	O_PARTIAL,
	O_STEP,
	O_FORMAT,
	O_CA,
	O_CAPORT
};

/* "/" after a directory name in a message, unless it ends in one already */
static const char *dir_slash(const char *dir)
{
	size_t n = strlen(dir);
	return n && dir[n - 1] == '/' ? "" : "/";
}

/* "plan.csv" -> "plan" + ext */
static char *sibling(const char *out, const char *ext)
{
	size_t n = strlen(out);
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
	if (dot && (!slash || dot > slash))
		n = (size_t)(dot - out);
	char *s = malloc(n + strlen(ext) + 1);
	if (s) {
		memcpy(s, out, n);
		strcpy(s + n, ext);
	}
	return s;
}

/* The output options of cabling slimfly and from-topology. */
struct plan_out {
	const char *out, *json, *net, *ibnd, *nnmap, *sheets;
	int fabric_files, quiet;
};

/* Take getopt's c when it is an output option; returns 1 then, else 0. */
static int plan_out_opt(int c, struct plan_out *o)
{
	switch (c) {
	case 'o':
		o->out = optarg;
		break;
	case O_JSON:
		o->json = optarg;
		break;
	case O_NET:
		o->net = optarg;
		break;
	case O_IBND:
		o->ibnd = optarg;
		break;
	case O_NNMAP:
		o->nnmap = optarg;
		break;
	case O_NOFABRIC:
		o->fabric_files = 0;
		break;
	case O_SHEETS:
		o->sheets = optarg;
		break;
	case 'q':
		o->quiet = 1;
		break;
	default:
		return 0;
	}
	return 1;
}

static void plan_summary(const struct ibf_plan *p)
{
	uint32_t cnt[IBF_CABLE_KIND_COUNT] = { 0 }, nsw = 0;
	for (uint32_t i = 0; i < p->ncables; i++)
		cnt[p->cables[i].kind]++;
	for (uint32_t i = 0; i < p->nnodes; i++)
		nsw += p->nodes[i].type == IBF_NODE_SWITCH;
	fprintf(stderr, "ibfab: plan with %u switches, %u hosts, %u cables:", nsw, p->nnodes - nsw,
		p->ncables);
	const char *sep = " ";
	for (int k = 1; k < IBF_CABLE_KIND_COUNT; k++)
		if (cnt[k]) {
			fprintf(stderr, "%s%u %s", sep, cnt[k], ibf_cable_kind_name(k));
			sep = ", ";
		}
	fputc('\n', stderr);
}

/* Write the files the options ask for, all or none (each is written to a
 * temporary file beside it and renamed when every one, the sheets
 * included, was written), then (unless -q) the summary. */
static int write_plan_outputs(const struct ibf_plan *p, const struct plan_out *o)
{
	const char *out = o->out, *net = o->net, *ibnd = o->ibnd, *nnmap = o->nnmap;
	struct ibf_error err;
	ibf_error_clear(&err);
	/* a sheets directory that cannot take the sheets fails before any file
	 * is written */
	if (o->sheets && ibf_sheets_check(p, o->sheets, &err))
		return cli_fail(&err);
	char *dnet = NULL, *dibnd = NULL, *dnm = NULL;
	/* the fabric files go beside a plan written to a file, not beside
	 * stdout or a device (-o /dev/null would make /dev/null.net) */
	struct stat st;
	int plain = strcmp(out, "-") && (stat(out, &st) != 0 || S_ISREG(st.st_mode));
	if (o->fabric_files && plain) {
		if (!net)
			net = dnet = sibling(out, ".net");
		if (!ibnd)
			ibnd = dibnd = sibling(out, ".ibnetdiscover");
		if (!nnmap)
			nnmap = dnm = sibling(out, ".node-name-map");
	}
	/* the sheets directory named like one of the files: the sheets would
	 * be written into it and the file's rename then fail, leaving them */
	const char *files[] = { out, o->json, net, ibnd, nnmap };
	for (size_t i = 0; o->sheets && i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i] && strcmp(files[i], "-") && cli_same_file(files[i], o->sheets)) {
			ibf_error_set(&err, IBF_EINVAL, o->sheets, 0,
				      "--sheets names a directory that is also an output file");
			free(dnet);
			free(dibnd);
			free(dnm);
			return cli_fail(&err);
		}
	struct cli_outs outs = { .n = 0 };
	FILE *csv_fp = NULL, *json_fp = NULL, *net_fp = NULL, *ibnd_fp = NULL, *nm_fp = NULL;
	int rc = cli_outs_add(&outs, out, &csv_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, o->json, &json_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, net, &net_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, ibnd, &ibnd_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, nnmap, &nm_fp, &err);
	if (!rc && ibf_plan_write_csv_stream(p, csv_fp))
		rc = ibf_error_set(&err, IBF_EIO, out, 0, "write error");
	if (!rc && json_fp && ibf_plan_write_json_stream(p, json_fp))
		rc = ibf_error_set(&err, IBF_EIO, o->json, 0, "write error");
	if (!rc && (net_fp || ibnd_fp || nm_fp)) {
		struct ibf_fabric *f = ibf_plan_to_fabric(p, &err);
		if (!f || ibf_assign_lids(f, 0, 0, &err) ||
		    (net_fp && ibf_fabric_write_stream(f, net_fp, IBF_FMT_IBSIM, &err)) ||
		    (ibnd_fp && ibf_fabric_write_stream(f, ibnd_fp, IBF_FMT_IBNETDISCOVER, &err)) ||
		    (nm_fp && ibf_namemap_write_fabric_stream(f, nm_fp, &err)))
			rc = err.code ? err.code : IBF_EIO;
		ibf_fabric_free(f);
	}
	int nsheets = 0;
	if (!rc && o->sheets && (nsheets = ibf_sheets_write(p, o->sheets, &err)) < 0)
		rc = err.code ? err.code : IBF_EIO;
	{
		int rc2 = cli_outs_finish(&outs, !rc, rc ? NULL : &err);
		if (!rc)
			rc = rc2;
	}
	if (!rc && !o->quiet) {
		if ((net || ibnd || nnmap) && strcmp(out, "-"))
			fprintf(stderr, "ibfab: planned fabric:%s%s%s%s%s%s\n", net ? " " : "",
				net ? net : "", ibnd ? " " : "", ibnd ? ibnd : "", nnmap ? " " : "",
				nnmap ? nnmap : "");
		if (o->sheets)
			fprintf(stderr, "ibfab: %d wiring sheets in %s%s (index.md)\n", nsheets,
				o->sheets, dir_slash(o->sheets));
		plan_summary(p);
	}
	free(dnet);
	free(dibnd);
	free(dnm);
	return rc ? cli_fail(&err) : 0;
}

static const char common_out_help[] =
	"Output options:\n"
	"  -o, --output F       the plan CSV (atomically; '-' = stdout)\n"
	"  --json F             the plan as JSON too\n"
	"  --net F              the planned fabric as an ibsim net file (default: beside -o, .net)\n"
	"  --ibnd F             ... as ibnetdiscover text (default: beside -o, .ibnetdiscover)\n"
	"  --node-name-map F    ... node-name-map of it (default: beside -o, .node-name-map)\n"
	"                       (none of the three by default when -o is '-' or a device)\n"
	"  --no-fabric          do not write the default .net/.ibnetdiscover/.node-name-map\n"
	"  --sheets DIR         wiring sheets (SVG, DOT, Markdown, CSV per rack and rack pair)\n"
	"  -q, --quiet          no summary on stderr\n"
	"  -h, --help           this text\n";

static const char sf_help[] =
	"Usage: ibfab cabling slimfly --q Q [--hosts P] [--switch-ports K]\n"
	"                             [--first-host-port N] [--link 4xEDR] -o plan.csv [...]\n"
	"\n"
	"Cabling plan for a Slim Fly (MMS graph, q a prime power): q racks, rack x holds\n"
	"group (0,x,.) and group (1,x,.); switches are named sf-rRR-gG-sSS (rack, subgroup,\n"
	"slot), hosts sf-rRR-gG-sSS-hHH.  Wiring steps: 1 intra-subgroup (the same ports in\n"
	"every rack), 2 intra-rack (between the two subgroups), 3 inter-rack (every switch\n"
	"uses one fixed port towards each rack), 4 hosts.  The graph is exactly\n"
	"'ibfab topo gen slimfly'.\n"
	"\n"
	"  --q Q                prime power (5 = 50 switches in 5 racks)\n"
	"  --hosts P            hosts per switch (default ceil(k'/2))\n"
	"  --switch-ports K     ports per switch (default k' + P; error when too small)\n"
	"  --first-host-port N  hosts on ports N..N+P-1 (1 = hosts first); default: after\n"
	"                       the switch links.  Switch links use the other ports in order.\n"
	"  --link WS            planned width/speed of every cable (default 4xEDR)\n"
	"\n";

static int cmd_sf(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "q", required_argument, 0, O_Q },
		{ "hosts", required_argument, 0, O_HOSTS },
		{ "switch-ports", required_argument, 0, O_SWPORTS },
		{ "first-host-port", required_argument, 0, O_FIRSTHOST },
		{ "link", required_argument, 0, O_LINK },
		{ "output", required_argument, 0, 'o' },
		{ "json", required_argument, 0, O_JSON },
		{ "net", required_argument, 0, O_NET },
		{ "ibnd", required_argument, 0, O_IBND },
		{ "node-name-map", required_argument, 0, O_NNMAP },
		{ "no-fabric", no_argument, 0, O_NOFABRIC },
		{ "sheets", required_argument, 0, O_SHEETS },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	long q = -1, hosts = -1, swports = 0, first = 0;
	int width = 0, speed = 0;
	struct plan_out po = { .fabric_files = 1 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
		if (plan_out_opt(c, &po))
			continue;
		switch (c) {
		case O_Q:
			if (cli_int("--q", optarg, 2, 100000, &q))
				return 2;
			break;
		case O_HOSTS:
			if (cli_int("--hosts", optarg, 0, IBF_MAX_PORTS, &hosts))
				return 2;
			break;
		case O_SWPORTS:
			if (cli_int("--switch-ports", optarg, 1, IBF_MAX_PORTS, &swports))
				return 2;
			break;
		case O_FIRSTHOST:
			if (cli_int("--first-host-port", optarg, 1, IBF_MAX_PORTS, &first))
				return 2;
			break;
		case O_LINK:
			if (ibf_plan_link_parse(optarg, strlen(optarg), &width, &speed))
				return cli_usage_error(
					"ibfab cabling slimfly",
					"--link: '%s' is not a width and a speed "
					"like 4xEDR (widths 1x 2x 4x 8x 12x; speeds SDR "
					"DDR QDR FDR10 FDR EDR HDR NDR XDR)",
					optarg);
			break;
		case 'h':
			fputs(sf_help, stdout);
			fputs(common_out_help, stdout);
			return 0;
		default:
			return cli_usage_error("ibfab cabling slimfly", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error("ibfab cabling slimfly", "unexpected argument '%s'",
				       argv[optind]);
	if (q < 0)
		return cli_usage_error("ibfab cabling slimfly", "--q is required");
	if (!po.out)
		return cli_usage_error("ibfab cabling slimfly",
				       "-o FILE is required ('-' = stdout)");
	struct ibf_sfplan_opts o = { .q = (int)q,
				     .hosts = (int)hosts,
				     .switch_ports = (int)swports,
				     .first_host_port = (int)first,
				     .width = width,
				     .speed = speed };
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_slimfly(&o, &err);
	if (!p) {
		/* a q no Slim Fly has, hosts or switch ports that do not fit:
		 * bad option values, exit 2 as for a value out of cli_int's
		 * range and as `topo gen slimfly` */
		if (!ibf_slimfly_admissible((int)q, NULL, NULL, NULL) ||
		    (err.code == IBF_EINVAL && strncmp(err.msg, "internal error", 14) != 0))
			return cli_usage_error("ibfab cabling slimfly", "%s", err.msg);
		return cli_fail(&err);
	}
	int rc = write_plan_outputs(p, &po);
	ibf_plan_free(p);
	return rc;
}

static const char ft_help[] =
	"Usage: ibfab cabling from-topology FILE [--format F] -o plan.csv [...]\n"
	"\n"
	"Turn any fabric (generated by 'ibfab topo gen', or discovered with ibnetdiscover,\n"
	"ibnetdiscover -p, an ibsim net file, opensm-subnet.lst) into a cabling plan: nodes\n"
	"named by node description, switch cables in step 1 (kind 'switch'), host cables in\n"
	"step 2, racks from an 'rNN' token in the names, width/speed as found (a\n"
	"degraded cable, as 'ibfab topo info' lists them: at the rate it should run at).\n"
	"\n"
	"  --format F           input format (default: detected)\n"
	"\n";

static int cmd_from_topology(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, O_FORMAT },
		{ "output", required_argument, 0, 'o' },
		{ "json", required_argument, 0, O_JSON },
		{ "net", required_argument, 0, O_NET },
		{ "ibnd", required_argument, 0, O_IBND },
		{ "node-name-map", required_argument, 0, O_NNMAP },
		{ "no-fabric", no_argument, 0, O_NOFABRIC },
		{ "sheets", required_argument, 0, O_SHEETS },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct plan_out po = { .fabric_files = 0 };
	int fmt = IBF_FMT_AUTO, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
		if (plan_out_opt(c, &po))
			continue;
		switch (c) {
		case O_FORMAT:
			if (cli_input_format("ibfab cabling from-topology", optarg, &fmt))
				return 2;
			break;
		case 'h':
			fputs(ft_help, stdout);
			fputs(common_out_help, stdout);
			fputs("(from-topology writes the .net/.ibnetdiscover/.node-name-map files "
			      "only when asked)\n",
			      stdout);
			return 0;
		default:
			return cli_usage_error("ibfab cabling from-topology", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("ibfab cabling from-topology", "need exactly one FILE");
	if (!po.out)
		return cli_usage_error("ibfab cabling from-topology", "-o FILE is required");
	struct ibf_error err;
	struct ibf_fabric *f = cli_read_fabric(argv[optind], fmt, &err);
	if (!f)
		return cli_fail(&err);
	uint32_t nexp = 0;
	struct ibf_plan *p = ibf_plan_from_fabric_ex(f, &nexp, &err);
	ibf_fabric_free(f);
	if (!p)
		return cli_fail(&err);
	if (nexp && !po.quiet)
		fprintf(stderr,
			"ibfab cabling from-topology: note: %u degraded cable(s) planned at the rate "
			"they should run at, not as found (ibfab topo info lists them)\n",
			nexp);
	int rc = write_plan_outputs(p, &po);
	ibf_plan_free(p);
	return rc;
}

static const char sheets_help[] =
	"Usage: ibfab cabling sheets --plan plan.csv -o DIR\n"
	"\n"
	"Wiring sheets for a two-person cabling team, per rack (rack-R.*) and per rack pair\n"
	"(racks-R1-R2.*): an SVG drawing, a Graphviz DOT graph, and a printable checklist\n"
	"(Markdown with [ ] boxes, and CSV) in wiring-step order with the cable count of\n"
	"every step; index.md lists every sheet with its counts per step.\n";

static const char render_help[] =
	"Usage: ibfab cabling render --plan plan.csv [--format ibnetdiscover|ibsim|json]\n"
	"                            [--node-name-map F] [-o FILE]\n"
	"\n"
	"Write the fabric a plan describes (names as node descriptions, LIDs assigned as\n"
	"OpenSM would), e.g. to start ibsim from any plan.\n";

static int cmd_sheets_or_render(int argc, char **argv, int render)
{
	static const struct option lo[] = {
		{ "plan", required_argument, 0, O_PLAN },
		{ "output", required_argument, 0, 'o' },
		{ "format", required_argument, 0, O_FORMAT },
		{ "node-name-map", required_argument, 0, O_NNMAP },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *prog = render ? "ibfab cabling render" : "ibfab cabling sheets";
	const char *plan = NULL, *out = render ? "-" : NULL, *nnmap = NULL;
	int fmt = IBF_FMT_IBNETDISCOVER, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case O_PLAN:
			plan = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case O_FORMAT:
			if (!render)
				return cli_usage_error(
					prog, "--format must be ibnetdiscover, ibsim or json");
			if (cli_output_format(prog, optarg, &fmt))
				return 2;
			break;
		case O_NNMAP:
			if (!render)
				return cli_usage_error(prog, "bad option --node-name-map");
			nnmap = optarg;
			break;
		case 'h':
			fputs(render ? render_help : sheets_help, stdout);
			return 0;
		default:
			return cli_usage_error(prog, "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!plan || !out)
		return cli_usage_error(prog, render ? "--plan is required"
						    : "--plan and -o DIR are required");
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_read_csv(plan, &err);
	if (!p)
		return cli_fail(&err);
	int rc = 0;
	if (render) {
		struct ibf_fabric *f = ibf_plan_to_fabric(p, &err);
		if (!f || ibf_assign_lids(f, 0, 0, &err) || ibf_fabric_write(f, out, fmt, &err) ||
		    (nnmap && ibf_namemap_write_fabric(f, nnmap, &err)))
			rc = cli_fail(&err);
		ibf_fabric_free(f);
	} else {
		int n = ibf_sheets_write(p, out, &err);
		if (n < 0)
			rc = cli_fail(&err);
		else
			fprintf(stderr, "ibfab: %d wiring sheets in %s%s (index.md)\n", n, out,
				dir_slash(out));
	}
	ibf_plan_free(p);
	return rc;
}

static int cmd_sheets(int argc, char **argv)
{
	return cmd_sheets_or_render(argc, argv, 0);
}

static int cmd_render(int argc, char **argv)
{
	return cmd_sheets_or_render(argc, argv, 1);
}

int cmd_cabling(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{ "slimfly", cmd_sf, "Slim Fly plan: racks, ports, wiring steps (+ fabric files)" },
		{ "from-topology", cmd_from_topology,
		  "plan from any generated or discovered fabric" },
		{ "sheets", cmd_sheets,
		  "wiring sheets (SVG/DOT/Markdown/CSV) per rack and rack pair" },
		{ "render", cmd_render,
		  "write the fabric a plan describes (ibsim, ibnetdiscover)" },
		{ NULL, NULL, NULL },
	};
	return cli_dispatch("ibfab cabling", cmds, argc, argv);
}

/* ------------------------------------------------------------ validate */

static const char validate_help[] =
	"Usage: ibfab validate --plan plan.csv (--fabric FILE | --live) [options]\n"
	"\n"
	"Compare the cables of a fabric with a cable plan (any plan CSV) and print every\n"
	"problem with its fix: missing, extra, miswired (with the move: which end to unplug\n"
	"and where it goes), wrong-port (right neighbour, wrong port), swapped (two cables\n"
	"whose far ends are exchanged, one fix), degraded (width/speed below the plan),\n"
	"port-limited (below the plan, but at the most both ports support: older\n"
	"hardware, known from --live or iblinkinfo; not the cable's fault),\n"
	"unknown-node, missing-node and renamed.  Exit status: 0 clean, 1 findings,\n"
	"2 usage or other error (unreadable plan, fabric or node-name-map; report not\n"
	"written).\n"
	"\n"
	"Switches get their plan names from the node description, else from the\n"
	"node-name-map (GUID -> name), else structurally: from the --anchor switch, each\n"
	"unnamed switch takes the plan name the plan puts behind the same port of an\n"
	"already named neighbour (best-supported first).  Without --anchor the same runs\n"
	"from the nodes already named, on strong evidence only (most of its cables where\n"
	"the plan puts that switch's): a switch placed so whose description is not its\n"
	"plan name (replaced, factory default, names exchanged) is one 'renamed' finding,\n"
	"its cables checked as usual.  An adapter whose description starts with a plan\n"
	"host's name (\"gpu01 mlx5_3\") belongs to that host, one single-port device per\n"
	"planned port; other hosts are identified by the switch port they are on.\n"
	"\n"
	"  --plan F             plan CSV (ibfab cabling slimfly|from-topology, or your own)\n"
	"  --fabric F           discovered fabric (ibnetdiscover output; any topology format)\n"
#ifdef IBF_HAVE_IBNETDISC
	"  --live               discover the fabric now through libibnetdisc (under ibsim:\n"
	"                       ibsim-run ibfab validate --live ...)\n"
	"  --ca NAME, --ca-port N  the local HCA/port to discover from (--live)\n"
#else
	"  --live               NOT AVAILABLE in this build: ibfab was built without\n"
	"                       libibnetdisc; run 'ibnetdiscover > F' and use --fabric F\n"
#endif
	"  --node-name-map F    GUID -> plan name map\n"
	"  --anchor NAME=GUID   match by structure from this switch (plan name = node GUID)\n"
	"  --partial            fabric half cabled: missing cables of steps after the last\n"
	"                       step with any cable present are expected (wrong ones are not)\n"
	"  --step N             with --partial: the last step cabled so far (default: inferred)\n"
	"  --json               JSON report instead of text\n"
	"  -o, --output F       write the report to F (default: stdout)\n"
	"  -h, --help           this text\n";

int cmd_validate(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "plan", required_argument, 0, O_PLAN },
		{ "fabric", required_argument, 0, O_FABRIC },
		{ "live", no_argument, 0, O_LIVE },
		{ "ca", required_argument, 0, O_CA },
		{ "ca-port", required_argument, 0, O_CAPORT },
		{ "node-name-map", required_argument, 0, O_NNMAP },
		{ "anchor", required_argument, 0, O_ANCHOR },
		{ "partial", no_argument, 0, O_PARTIAL },
		{ "step", required_argument, 0, O_STEP },
		{ "json", no_argument, 0, O_JSON },
		{ "output", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *prog = "ibfab validate";
	const char *plan_path = NULL, *fab_path = NULL, *nnmap_path = NULL, *anchor = NULL,
		   *out = "-", *ca = NULL;
	int live = 0, json = 0, c;
	long step = 0, ca_port = 0;
	struct ibf_validate_opts o = { 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case O_PLAN:
			plan_path = optarg;
			break;
		case O_FABRIC:
			fab_path = optarg;
			break;
		case O_LIVE:
			live = 1;
			break;
		case O_CA:
			ca = optarg;
			break;
		case O_CAPORT:
			if (cli_int("--ca-port", optarg, 0, 254, &ca_port))
				return 2;
			break;
		case O_NNMAP:
			nnmap_path = optarg;
			break;
		case O_ANCHOR:
			anchor = optarg;
			break;
		case O_PARTIAL:
			o.partial = 1;
			break;
		case O_STEP:
			if (cli_int("--step", optarg, 1, 65535, &step))
				return 2;
			break;
		case O_JSON:
			json = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(validate_help, stdout);
			return 0;
		default:
			return cli_usage_error(prog, "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!plan_path)
		return cli_usage_error(prog, "--plan is required");
	if (!!fab_path + live != 1)
		return cli_usage_error(prog, "give exactly one of --fabric FILE and --live");
	if (step && !o.partial)
		return cli_usage_error(prog, "--step needs --partial");
	o.step = (int)step;
	char *aname = NULL;
	if (anchor) {
		/* the GUID: 0x hex or decimal ("-1" wrapped to 2^64 - 1, a
		 * too long one was cut to that, 010 was octal) */
		const char *eq = strrchr(anchor, '=');
		if (!eq || eq == anchor || ibf_num_u64(eq + 1, strlen(eq + 1), &o.anchor_guid) ||
		    !o.anchor_guid)
			return cli_usage_error(prog, "--anchor wants NAME=GUID (e.g. "
						     "sf-r00-g0-s00=0x0002c90200000000)");
		aname = strndup(anchor, (size_t)(eq - anchor));
		if (!aname)
			return cli_fail(&(struct ibf_error){ IBF_ENOMEM, "", 0, "out of memory" });
		o.anchor_name = aname;
	}
	struct ibf_error err;
	struct ibf_plan *plan = NULL;
	struct ibf_fabric *fab = NULL;
	struct ibf_namemap nm = { 0 };
	struct ibf_vreport r = { 0 };
	/* 1 means findings: every error exits 2 */
	int rc = 2, have_report = 0;
	plan = ibf_plan_read_csv(plan_path, &err);
	if (!plan) {
		cli_fail(&err);
		goto out;
	}
	if (live && !ibf_have_live()) {
		fprintf(stderr,
			"ibfab: --live is not available: this ibfab was built without "
			"libibnetdisc (libibnetdisc-dev); run 'ibnetdiscover > FILE' and pass "
			"--fabric FILE\n");
		goto out;
	}
	fab = live ? ibf_fabric_discover(ca, (int)ca_port, &err)
		   : cli_read_fabric(fab_path, IBF_FMT_AUTO, &err);
	if (!fab) {
		cli_fail(&err);
		goto out;
	}
	if (nnmap_path) {
		if (ibf_namemap_read(&nm, nnmap_path, &err)) {
			cli_fail(&err);
			goto out;
		}
		o.namemap = &nm;
	}
	if (ibf_validate(plan, fab, &o, &r, &err)) {
		cli_fail(&err);
		goto out;
	}
	have_report = 1;
	struct ibf_atomic a;
	if (ibf_atomic_open(&a, out, &err)) {
		cli_fail(&err);
		goto out;
	}
	if (json)
		ibf_vreport_write_json(&r, a.fp);
	else
		ibf_vreport_write_text(&r, a.fp);
	int bad = ferror(a.fp);
	if (ibf_atomic_commit(&a, !bad, &err)) {
		cli_fail(&err);
		goto out;
	}
	rc = r.n ? 1 : 0;
out:
	if (have_report)
		ibf_vreport_free(&r);
	ibf_namemap_free(&nm);
	ibf_fabric_free(fab);
	ibf_plan_free(plan);
	free(aname);
	return rc;
}
