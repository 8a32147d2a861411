/* ibfab deadlock: apply a deadlock-avoidance scheme to tables offline, and
 * verify tables (from ibfab or read back from a fabric) independently. */
#include "cli.h"
#include "ibf_deadlock.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
	O_TOPO = 256,
	O_G2L,
	O_LMC,
	O_LFTS,
	O_SL,
	O_SL2VL,
	O_SCHEME,
	O_MAXVLS,
	O_BEST,
	O_MAXCYC,
	O_QUIET,
	O_SLCONST,
	O_VLS,
	O_VERIFY
};

static const char dl_help[] =
	"Usage: ibfab deadlock verify --topology FILE --lfts DUMP\n"
	"                             (--sl FILE | --sl-const SL)\n"
	"                             (--sl2vl FILE | --sl2vl-identity VLS)\n"
	"                             [--guid2lid F] [--lmc N] [--max-vls N]\n"
	"                             [--max-cycles N] [-q]\n"
	"       ibfab deadlock apply  --topology FILE --lfts DUMP\n"
	"                             [--scheme dfsssp|coloring|auto] [--max-vls N]\n"
	"                             [--best-effort] [--sl OUT] [--sl2vl OUT] [--verify]\n"
	"\n"
	"verify: rebuild the channel dependency graph over (switch-to-switch channel,\n"
	"VL) from the tables alone -- the LFTs, the SL of every (source, destination\n"
	"LID) pair and every switch's SL2VL table -- and report each cyclic component\n"
	"with one cycle and the paths that close it, plus pairs whose SL is missing.\n"
	"Inputs may be ibfab dumps or what a live fabric gives back: dump_lfts output,\n"
	"`saquery -p` PathRecords (or '<slid> <dlid> <sl>' lines), `smpquery sl2vl`\n"
	"output queried by LID.  --sl-const SL: every packet uses SL (no QoS / no\n"
	"path_sl); --sl2vl-identity V: SL s -> VL s mod V on every switch (V <= 15).\n"
	"--max-vls N: the switches have N data VLs; an SL2VL entry for VL N..14 is an\n"
	"error at its line (VL 15 means drop: a path that takes it is reported).\n"
	"Exit 0 when deadlock-free, 1 when not (or SLs/SL2VL entries are missing, or\n"
	"a path is sent to VL 15, or an input is malformed), 2 on usage errors.\n"
	"\n"
	"apply: run a scheme on the tables in DUMP (any engine) and write the SL dump\n"
	"and the SL2VL dump (formats: docs/deadlock.md), both or neither.  Exit 1 and\n"
	"no output when the VLs do not suffice; with --best-effort the result is\n"
	"written, marked NOT deadlock-free, and the exit status is still 1.\n"
	"  --scheme S      dfsssp (default), coloring (falls back to dfsssp when its\n"
	"                  preconditions fail, and says so) or auto\n"
	"  --max-vls N     data VLs the switches offer (1..15, default 8)\n"
	"  --verify        also run the verifier on the result\n";

struct dl_args {
	const char *topo, *g2l, *lfts, *sl, *sl2vl;
	long lmc, max_vls, max_cycles, sl_const, vls;
	int max_cycles_set; /* --max-cycles given (apply: only with --verify) */
	int scheme, best_effort, quiet, verify;
	/* options given that only one of verify / apply takes */
	const char *apply_only, *verify_only;
	int max_vls_given;
};

static int parse_scheme(const char *v)
{
	for (int i = 0; i <= IBF_DEADLOCK_AUTO; i++)
		if (!strcmp(v, ibf_deadlock_name(i)))
			return i;
	return -1;
}

static int parse_args(const char *prog, int argc, char **argv, struct dl_args *a)
{
	static const struct option lo[] = {
		{ "topology", required_argument, 0, O_TOPO },
		{ "guid2lid", required_argument, 0, O_G2L },
		{ "lmc", required_argument, 0, O_LMC },
		{ "lfts", required_argument, 0, O_LFTS },
		{ "sl", required_argument, 0, O_SL },
		{ "sl2vl", required_argument, 0, O_SL2VL },
		{ "sl-const", required_argument, 0, O_SLCONST },
		{ "sl2vl-identity", required_argument, 0, O_VLS },
		{ "scheme", required_argument, 0, O_SCHEME },
		{ "max-vls", required_argument, 0, O_MAXVLS },
		{ "best-effort", no_argument, 0, O_BEST },
		{ "max-cycles", required_argument, 0, O_MAXCYC },
		{ "verify", no_argument, 0, O_VERIFY },
		{ "quiet", no_argument, 0, O_QUIET },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(a, 0, sizeof(*a));
	a->lmc = -1;
	a->max_vls = 8;
	a->max_cycles = 16;
	a->sl_const = -1;
	a->vls = -1;
	a->scheme = IBF_DEADLOCK_DFSSSP;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
		switch (c) {
		case O_TOPO:
			a->topo = optarg;
			break;
		case O_G2L:
			a->g2l = optarg;
			break;
		case O_LFTS:
			a->lfts = optarg;
			break;
		case O_SL:
			a->sl = optarg;
			break;
		case O_SL2VL:
			a->sl2vl = optarg;
			break;
		case O_BEST:
			a->best_effort = 1;
			a->apply_only = "--best-effort";
			break;
		case O_VERIFY:
			a->verify = 1;
			a->apply_only = "--verify";
			break;
		case 'q':
		case O_QUIET:
			a->quiet = 1;
			break;
		case O_SCHEME:
			a->scheme = parse_scheme(optarg);
			if (a->scheme <= 0)
				return cli_usage_error(
					prog, "--scheme: '%s' is not dfsssp, coloring or auto",
					optarg);
			a->apply_only = "--scheme";
			break;
		case O_LMC:
			if (cli_int("--lmc", optarg, 0, 7, &a->lmc))
				return 2;
			break;
		case O_MAXVLS:
			if (cli_int("--max-vls", optarg, 1, 15, &a->max_vls))
				return 2;
			a->max_vls_given = 1;
			break;
		case O_MAXCYC:
			a->max_cycles_set = 1;
			if (cli_int("--max-cycles", optarg, 0, 100000, &a->max_cycles))
				return 2;
			break;
		case O_SLCONST:
			if (cli_int("--sl-const", optarg, 0, 15, &a->sl_const))
				return 2;
			a->verify_only = "--sl-const";
			break;
		case O_VLS:
			/* 15 data VLs at most: SL 15 -> VL 15 would be the
			 * management VL */
			if (cli_int("--sl2vl-identity", optarg, 1, 15, &a->vls))
				return 2;
			a->verify_only = "--sl2vl-identity";
			break;
		case 'h':
			fputs(dl_help, stdout);
			return -1;
		default:
			return cli_usage_error(prog, "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!a->topo)
		return cli_usage_error(prog, "--topology FILE is required");
	if (!a->lfts)
		return cli_usage_error(prog, "--lfts DUMP is required");
	return 0;
}

/* Every switch of the fabric must have a table in the dump: a switch the dump
 * lacks (a dump of another fabric, a switch that did not answer dump_lfts)
 * would hold no route at all, and the paths through it would end there
 * unseen by the scheme and the verifier. */
static int lfts_complete(const struct ibf_fabric *f, const struct ibf_routes *r, const char *path,
			 struct ibf_error *err)
{
	uint32_t first;
	uint32_t missing = cli_lfts_missing(f, r, &first);
	if (!missing)
		return 0;
	const struct ibf_node *n = &f->nodes[f->switches[first]];
	return ibf_error_set(err, IBF_EPARSE, path, 0,
			     "no table for switch 0x%016llx ('%s')%s: %u of the fabric's %u "
			     "switches have none (is the dump of this fabric?)",
			     (unsigned long long)n->guid, n->desc ? n->desc : "",
			     missing > 1 ? " and others" : "", missing, f->nsw);
}

static int do_verify(const struct ibf_fabric *f, const struct ibf_routes *r,
		     const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v,
		     long max_cycles, FILE *out, struct ibf_error *err, int *ok)
{
	struct ibf_verify_opts vo;
	ibf_verify_opts_default(&vo);
	vo.max_cycles = (int)max_cycles;
	struct ibf_verify_report rep;
	int rc = ibf_deadlock_verify(f, r, sl, s2v, &vo, &rep, err);
	if (rc)
		return rc;
	if (out)
		ibf_verify_report_write(f, &rep, out);
	*ok = ibf_verify_ok(&rep);
	ibf_verify_report_free(&rep);
	return 0;
}

int cli_verify_dl(const struct ibf_fabric *f, const struct ibf_routes *r, const struct ibf_dl *dl,
		  long max_cycles, FILE *out, struct ibf_error *err, int *ok)
{
	struct ibf_sl_table sl;
	struct ibf_sl2vl_table s2v;
	memset(&sl, 0, sizeof(sl));
	memset(&s2v, 0, sizeof(s2v));
	int rc = ibf_sl_table_from_dl(f, dl, &sl, err);
	if (!rc)
		rc = ibf_sl2vl_table_from_dl(f, dl, &s2v, err);
	if (!rc)
		rc = do_verify(f, r, &sl, &s2v, max_cycles, out, err, ok);
	ibf_sl_table_free(&sl);
	ibf_sl2vl_table_free(&s2v);
	return rc;
}

static int cmd_verify(int argc, char **argv)
{
	struct dl_args a;
	const char *prog = "ibfab deadlock verify";
	int rc = parse_args(prog, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!a.sl == (a.sl_const < 0))
		return cli_usage_error(prog, "give exactly one of --sl FILE and --sl-const SL");
	if (!a.sl2vl == (a.vls < 0))
		return cli_usage_error(prog,
				       "give exactly one of --sl2vl FILE and --sl2vl-identity V");
	if (a.apply_only)
		return cli_usage_error(prog, "%s is an option of 'deadlock apply'", a.apply_only);
	/* verify: --max-vls is the VLs the switches have; no limit without it */
	long vlim = a.max_vls_given ? a.max_vls : 0;
	if (vlim && a.vls > vlim)
		return cli_usage_error(
			prog, "--sl2vl-identity %ld uses more VLs than --max-vls %ld", a.vls, vlim);
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	struct ibf_sl_table sl;
	struct ibf_sl2vl_table s2v;
	memset(&r, 0, sizeof(r));
	memset(&sl, 0, sizeof(sl));
	memset(&s2v, 0, sizeof(s2v));
	int ok = 0;
	rc = cli_lfts_read(f, a.lfts, &r, &err);
	if (!rc)
		rc = lfts_complete(f, &r, a.lfts, &err);
	if (!rc)
		rc = a.sl ? ibf_sl_read(f, a.sl, &sl, &err)
			  : ibf_sl_table_const(f, r.stride, (int)a.sl_const, &sl, &err);
	if (!rc)
		rc = a.sl2vl ? ibf_sl2vl_read_limit(f, a.sl2vl, (int)vlim, &s2v, &err)
			     : ibf_sl2vl_table_uniform(f, (int)a.vls, &s2v, &err);
	if (!rc)
		rc = do_verify(f, &r, &sl, &s2v, a.max_cycles, a.quiet ? NULL : stdout, &err, &ok);
	ibf_sl_table_free(&sl);
	ibf_sl2vl_table_free(&s2v);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	return ok ? 0 : 1;
}

static int cmd_apply(int argc, char **argv)
{
	struct dl_args a;
	const char *prog = "ibfab deadlock apply";
	int rc = parse_args(prog, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.verify_only)
		return cli_usage_error(prog, "%s is an option of 'deadlock verify'", a.verify_only);
	if (a.max_cycles_set && !a.verify)
		return cli_usage_error(prog, "--max-cycles needs --verify");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	memset(&r, 0, sizeof(r));
	int ok = 1;
	struct ibf_dl *dlres = NULL;
	/* the SL and SL2VL dumps are written both or neither, and only once the
	 * scheme (and --verify) succeeded */
	struct cli_outs outs = { .n = 0 };
	FILE *sl_fp = NULL, *sl2vl_fp = NULL;
	rc = cli_outs_add(&outs, a.sl, &sl_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, a.sl2vl, &sl2vl_fp, &err);
	if (!rc)
		rc = cli_lfts_read(f, a.lfts, &r, &err);
	if (!rc)
		rc = lfts_complete(f, &r, a.lfts, &err);
	if (!rc) {
		struct ibf_dl_opts o;
		ibf_dl_opts_default(&o);
		o.scheme = a.scheme;
		o.max_vls = (int)a.max_vls;
		o.best_effort = a.best_effort;
		o.no_fit = 1; /* the tables are given: never reroute them here */
		int info = !a.quiet;
		o.log = cli_log;
		o.log_ctx = &info;
		rc = ibf_deadlock_apply(f, &r, &o, &dlres, &err);
	}
	if (!rc) {
		const struct ibf_dl *dl = dlres;
		char buf[1024];
		if (!a.quiet)
			fprintf(stderr, "ibfab deadlock: %s\n",
				ibf_dl_summary(dl, buf, sizeof(buf)));
		if (a.verify)
			rc = cli_verify_dl(f, &r, dl, a.max_cycles, a.quiet ? NULL : stdout, &err,
					   &ok);
		if (!dl->deadlock_free)
			ok = 0;
		/* a best-effort result is written (marked NOT deadlock-free in
		 * the headers); one that failed --verify is not */
		if (!rc && (ok || !dl->deadlock_free)) {
			if (sl_fp)
				ibf_sl_write_stream(f, dl, sl_fp);
			if (sl2vl_fp)
				ibf_sl2vl_write_stream(f, dl, sl2vl_fp);
		} else if (!rc) {
			fprintf(stderr,
				"ibfab deadlock: the verifier rejected the scheme's result; "
				"nothing written\n");
		}
	}
	{
		int wrote = !rc && (ok || (dlres && !dlres->deadlock_free));
		int rc2 = cli_outs_finish(&outs, wrote, rc ? NULL : &err);
		if (!rc)
			rc = rc2;
	}
	ibf_dl_free(dlres);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	return ok ? 0 : 1;
}

int cmd_deadlock(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{ "verify", cmd_verify, "check tables for channel dependency cycles" },
		{ "apply", cmd_apply, "assign SLs and SL2VL tables to routes (dfsssp, coloring)" },
		{ NULL, NULL, NULL },
	};
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(dl_help, stdout);
		return 0;
	}
	return cli_dispatch("ibfab deadlock", cmds, argc, argv);
}
