/* ibfab route: compute tables offline, check them, measure them. */
#include "cli.h"
#include "ibf_conf.h"
#include "ibf_routing.h"
#include "ibf_deadlock.h"
#include "ibf_fattree.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

enum {
	O_TOPO = 256,
	O_ENGINE,
	O_LMC,
	O_G2L,
	O_SEED,
	O_STATS,
	O_THREADS,
	O_LFTS,
	O_MINLEN,
	O_MAXLEN,
	O_MAXHOPS,
	O_JSON,
	O_FROM,
	O_TO,
	O_ALL_LAYERS,
	O_QUIET,
	O_MAXPATHS,
	O_L0BAL,
	O_VERBOSE
};

/* deadlock options (cli/cmd_deadlock.c has the verifier) */
enum {
	O_DL_SCHEME = 400,
	O_DL_MAXVLS,
	O_DL_BEST,
	O_DL_SL,
	O_DL_SL2VL,
	O_DL_NOFIT,
	O_DL_VERIFY,
	O_CONF,
	O_ROOTS,
	O_AVOID,
	O_PREV_TOPO,
	O_PREV_LFTS,
	O_HEALTHY_TOPO,
	O_HEALTHY_LFTS,
	O_STABLE
};

static int all_end_ports_have_lids(const struct ibf_fabric *f)
{
	int any = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH) {
			if (!ibf_port(f, (int)i, 0)->lid)
				return 0;
			any = 1;
			continue;
		}
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node != IBF_NO_NODE && !pp->lid)
				return 0;
			/* adapters cabled back to back, no switch: they have LIDs
			 * (the note "some ports have no LID" said otherwise) */
			any |= pp->peer_node != IBF_NO_NODE;
		}
	}
	return any;
}

/* any switch or connected end port with a LID (a file that has LIDs,
 * perhaps not on every port) */
static int some_end_ports_have_lids(const struct ibf_fabric *f)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH) {
			if (ibf_port(f, (int)i, 0)->lid)
				return 1;
			continue;
		}
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node != IBF_NO_NODE && pp->lid)
				return 1;
		}
	}
	return 0;
}

/* a port that needs a LID (switch port 0, a cabled end port) */
static int needs_lid(const struct ibf_fabric *f, int node, int p)
{
	if (f->nodes[node].type == IBF_NODE_SWITCH)
		return p == 0;
	return p >= 1 && ibf_port(f, node, p)->peer_node != IBF_NO_NODE;
}

/* another node's port with port GUID g, the first in canonical order
 * (node -1 when none) */
static void other_port_of_guid(const struct ibf_fabric *f, int node, uint64_t g, int *on,
			       int *op)
{
	*on = *op = -1;
	for (uint32_t j = 0; g && j < f->nnodes; j++) {
		if ((int)j == node || (*on >= 0 && ibf_node_cmp(f, (int)j, *on) > 0))
			continue;
		for (int q = 0; q <= f->nodes[j].nports; q++)
			if (ibf_port(f, (int)j, q)->guid == g) {
				*on = (int)j;
				*op = q;
				break;
			}
	}
}

/* The switches and connected end ports a guid2lid file left without a LID:
 * how many, and one named.  A port GUID two nodes' ports report can have
 * one LID there; such a port is named first (the lowest such GUID), with
 * both holders in canonical order, since the file gave its LID to one of
 * them.  Else the port of the node first in canonical order (GUID first).
 * Before, the port named was the first in the file's record order, and
 * which of a duplicate's two ports lacked the LID followed it too. */
static int g2l_missing_error(const struct ibf_fabric *f, const char *g2l, struct ibf_error *err)
{
	int miss = 0, mn = -1, mp = -1, dn = -1, dp = -1;
	uint64_t dg = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		for (int p = 0; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->lid || !needs_lid(f, (int)i, p))
				continue;
			miss++;
			int on, op;
			other_port_of_guid(f, (int)i, pp->guid, &on, &op);
			if (on >= 0 && ibf_port(f, on, op)->lid && (dn < 0 || pp->guid < dg)) {
				dn = (int)i;
				dp = p;
				dg = pp->guid;
			}
			if (mn < 0 || ibf_node_cmp(f, (int)i, mn) < 0)
				mn = (int)i, mp = p;
		}
	}
	if (mn < 0)
		return ibf_error_set(err, IBF_EINVAL, g2l, 0,
				     "does not give a LID to every switch and connected end port");
	char more[64] = "";
	if (miss > 1)
		snprintf(more, sizeof(more), " (and %d more port(s) without one)", miss - 1);
	if (dn >= 0) {
		/* the two holders of the GUID in canonical order: the one
		 * without the LID and the other */
		int on, op, an = dn, ap = dp;
		other_port_of_guid(f, dn, dg, &on, &op);
		int bn = on, bp = op;
		if (ibf_node_cmp(f, an, bn) > 0) {
			int t = an;
			an = bn, bn = t;
			t = ap, ap = bp, bp = t;
		}
		const char *ad = f->nodes[an].desc, *bd = f->nodes[bn].desc;
		return ibf_error_set(err, IBF_EINVAL, g2l, 0,
				     "gives a LID to only one of '%s' port %d and '%s' port %d: "
				     "both have port GUID 0x%016llx, and a GUID has one LID (a "
				     "duplicate port GUID: see ibfab topo info)%s",
				     ad ? ad : "?", ap, bd ? bd : "?", bp, (unsigned long long)dg,
				     more);
	}
	const char *d = f->nodes[mn].desc;
	return ibf_error_set(err, IBF_EINVAL, g2l, 0,
			     "gives no LID to '%s' port %d (port GUID 0x%016llx)%s; every switch "
			     "and connected end port needs one",
			     d ? d : "?", mp, (unsigned long long)ibf_port(f, mn, mp)->guid, more);
}

static int end_port_lmc(const struct ibf_fabric *f)
{
	int lmc = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		if (f->nodes[i].type == IBF_NODE_SWITCH)
			continue;
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->lid && pp->lmc > lmc)
				lmc = pp->lmc;
		}
	}
	return lmc;
}

/* Load a fabric and give it LIDs: from a guid2lid file, else from the file
 * itself when complete, else assigned with lmc (default 0). */
struct ibf_fabric *cli_load_fabric(const char *path, const char *g2l, long lmc, int quiet,
				   struct ibf_error *err)
{
	struct ibf_fabric *f = cli_read_fabric(path, IBF_FMT_AUTO, err);
	if (!f)
		return NULL;
	int rc = 0, from_file = 0; /* LIDs as a file gives them */
	if (!f->finalized)
		rc = ibf_fabric_finalize(f, err);
	if (!rc && g2l) {
		/* the guid2lid file gives every LID: a port it leaves out kept
		 * the topology file's LID before, so the check below never
		 * failed on a dump with LIDs and the two sources were mixed */
		for (uint32_t i = 0; i < f->nports_total; i++) {
			f->ports[i].lid = 0;
			f->ports[i].lmc = 0;
		}
		rc = ibf_guid2lid_read(f, g2l, err);
		if (!rc && !all_end_ports_have_lids(f))
			rc = g2l_missing_error(f, g2l, err);
		from_file = 1;
	} else if (!rc && all_end_ports_have_lids(f)) {
		int have = end_port_lmc(f);
		from_file = lmc < 0 || lmc == have;
		if (lmc >= 0 && lmc != have) {
			if (!quiet)
				fprintf(stderr,
					"ibfab: note: %s has LIDs with LMC %d; re-assigning LIDs with LMC %ld\n",
					path, have, lmc);
			rc = ibf_assign_lids(f, (int)lmc, 0, err);
		}
	} else if (!rc && some_end_ports_have_lids(f) && (lmc < 0 || lmc == end_port_lmc(f))) {
		/* some ports have no LID yet (a switch added or replaced and not
		 * swept): the others keep theirs, as under OpenSM, so tables and
		 * a stable reroute fit the fabric (all were re-assigned before) */
		int have = end_port_lmc(f), fn, fp;
		int n = ibf_assign_missing_lids(f, have, &fn, &fp, err);
		from_file = 1;
		if (n < 0 && n != IBF_ENOMEM) {
			/* the file's LIDs leave no room: say which file */
			char msg[IBF_ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			rc = ibf_error_set(err, n, path, 0,
					   "%s between the LIDs the file gives (--lmc with another "
					   "LMC assigns every LID anew)",
					   msg);
		} else if (n < 0) {
			rc = n;
		} else if (!quiet && fn >= 0)
			fprintf(stderr,
				"ibfab: note: %s: %d port(s) without a LID (first '%s' port %d): "
				"the file's LIDs are kept and these get free ones (LID %u), as "
				"OpenSM gives a port it finds new\n",
				path, n, f->nodes[fn].desc ? f->nodes[fn].desc : "?", fp,
				ibf_port(f, fn, fp)->lid);
	} else if (!rc) {
		if (!quiet && some_end_ports_have_lids(f))
			fprintf(stderr,
				"ibfab: note: %s: some ports have no LID; re-assigning all LIDs with "
				"LMC %ld\n",
				path, lmc);
		rc = ibf_assign_lids(f, lmc < 0 ? 0 : (int)lmc, 0, err);
	}
	/* a LID two ports hold in the file: said here with the file's name
	 * (the engines and readers of tables said it without) */
	struct ibf_lidmap m;
	if (!rc && from_file) {
		if (ibf_lidmap_build(f, &m, err)) {
			char msg[IBF_ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			rc = ibf_error_set(err, IBF_EINVAL, g2l ? g2l : path, 0, "%s%s", msg,
					   g2l ? " (LIDs as this guid2lid file gives them)"
					       : " (LIDs as the file gives them; give --guid2lid, "
						 "or --lmc with another LMC to assign new ones)");
		} else {
			ibf_lidmap_free(&m);
		}
	}
	if (rc) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}

static const char route_help[] =
	"Usage: ibfab route --topology FILE [--engine NAME] [--lmc N] [--guid2lid F]\n"
	"                   [--seed S] [--threads N] [--min-len B] [--max-len B]\n"
	"                   [--conf ibfab.conf] [--dmodk-roots FILE] [--avoid FILE]\n"
	"                   [-o lfts.dump] [--stats stats.json]\n"
	"       ibfab route check --topology FILE --lfts DUMP [--max-hops N]\n"
	"       ibfab route stats --topology FILE (--lfts DUMP | --engine NAME ...) [--json]\n"
	"       ibfab route congestion --topology FILE (--lfts DUMP | --engine NAME) --pattern P\n"
	"       ibfab route diff --topology FILE --lfts A --lfts2 B\n"
	"       ibfab route trace --topology FILE (--lfts DUMP | --engine NAME ...)\n"
	"                   --from X --to Y [--all-layers] [--sl F [--sl2vl F]] [--json]\n"
	"\n"
	"Compute forwarding tables offline with the same engines the OpenSM plugin\n"
	"runs, and write them in the opensm-lfts.dump format that `opensm -R file -U`\n"
	"loads.  LIDs come from --guid2lid, else from the topology file when it has\n"
	"them (ibnetdiscover output does), else they are assigned as OpenSM would with\n"
	"--lmc (layers = 2^LMC).\n"
	"\n"
	"Options:\n"
	"  --engine NAME   routing engine (default layered); see the list below\n"
	"  --min-len B     shortest path allowed in layers >= 1 (default dist+1)\n"
	"  --max-len B     longest path allowed in layers >= 1 (default diameter+1)\n"
	"                  B is a hop count (3), dist+N (pair distance + N) or\n"
	"                  diameter+N\n"
	"  --max-paths N   cap on non-minimal paths per layer (default: none)\n"
	"  --layer0-balance base|all  layered with LMC >= 1: cool layer 0's\n"
	"                  busiest link on the base LIDs' own loads (base, the\n"
	"                  default: as balanced as minimal with LMC 0) or within\n"
	"                  the busiest link of all LIDs (all)\n"
	"  --seed S        seed of every random choice (default 0, as in the plugin)\n"
	"  --threads N     worker threads (default 2; 0 or auto: one per online\n"
	"                  CPU; the result never depends on it)\n"
	"  --conf FILE     read the engine and deadlock options from an ibfab.conf\n"
	"                  (the plugin's file, docs/plugin.md); options given here\n"
	"                  override it; every option below that is an ibfab.conf key\n"
	"                  is parsed by the same rules\n"
	"  --previous-lfts DUMP  stable reroute: keep every destination LID's column\n"
	"                  of these earlier tables that still delivers on this fabric\n"
	"                  (shortest in layer 0, inside the window in the others) and\n"
	"                  route only the other LIDs; the summary says how many\n"
	"                  entries changed\n"
	"  --previous-topology F  the fabric the earlier tables were made for\n"
	"                  (default: --topology); use --guid2lid or files with LIDs\n"
	"                  so a LID names the same port in both\n"
	"  --healthy-lfts DUMP  with --previous-lfts: the healthy tables H (of the\n"
	"                  fabric before the faults), as the plugin keeps them while\n"
	"                  a repair is under way: a column of the earlier tables that\n"
	"                  differs from H's is marked; when something came back, a\n"
	"                  marked column takes H's column again where that works on\n"
	"                  this fabric, so a chain of repairs ends on H\n"
	"  --healthy-topology F  the fabric of the healthy tables (default:\n"
	"                  --topology)\n"
	"  --stable-reroute V  with --previous-lfts, as the plugin's key: TRUE (the\n"
	"                  default): a switch or switch cable this fabric has and the\n"
	"                  previous one lacked takes the columns a fresh run sends\n"
	"                  over it (the engine routes everything, the other working\n"
	"                  columns are kept); keep: keep every working column;\n"
	"                  failures: a fresh run when something came back\n"
	"  --dmodk-roots F dmodk: the fat tree's root switches, one GUID per line\n"
	"                  (default: levels found from the structure)\n"
	"  --avoid F       hratio: switches (node GUIDs as in --dmodk-roots) to keep\n"
	"                  traffic off where another path exists, e.g. unhealthy\n"
	"                  spines (docs/rail.md); switches with GPUs stay in use; a\n"
	"                  GUID that is not a switch of the fabric is an error\n"
	"  -o FILE         write the tables (default: none, only the summary)\n"
	"  --stats FILE    write path statistics as JSON\n"
	"  -q, --quiet     no notes and no summary on stderr, only errors (also for\n"
	"                  check, stats, congestion, diff and trace)\n"
	"  -v, --verbose   print the engine's own report on stderr (what the\n"
	"                  plugin writes to the OpenSM log at INFO, e.g. dmodk's\n"
	"                  tree levels and what it changed on an irregular tree)\n"
	"  --deadlock S    dfsssp | coloring | auto | none (default none): assign SLs\n"
	"                  and SL2VL tables for deadlock freedom (docs/deadlock.md);\n"
	"                  when the routes need more VLs than there are, the LIDs\n"
	"                  that do not fit are rerouted (docs/deadlock.md) and the\n"
	"                  summary says how many\n"
	"  --max-vls N     data VLs the switches offer (1..15; default and 0: 8)\n"
	"  --no-fit        dfsssp: fail (exit 1) instead of rerouting when the VLs\n"
	"                  do not suffice\n"
	"  --best-effort   dfsssp: accept too few VLs; everything is written, but\n"
	"                  the exit status is 1 when the result is NOT deadlock-free\n"
	"  --sl FILE       write the path SL dump (with --deadlock)\n"
	"  --sl2vl FILE    write the SL2VL dump (with --deadlock)\n"
	"  --verify        with --deadlock: check the result with the independent\n"
	"                  verifier (the channel dependency graph over the tables,\n"
	"                  SLs and SL2VL, as `deadlock verify`); a cycle fails the\n"
	"                  run (exit 1, its report on stderr, no file written)\n"
	"\n"
	"check: trace every (source port, destination LID) pair through the tables and\n"
	"report unreachable pairs, loops, misdeliveries and paths longer than --max-hops\n"
	"switch hops (0, the default: no limit); exit 0 only when all pairs are fine.\n"
	"stats: path length histogram per layer, edge-disjoint paths per switch pair\n"
	"across layers, paths per link; from a dump (any engine, also one read back from\n"
	"a fabric with dump_lfts) or from an engine run.\n";

static void print_engines(FILE *out)
{
	fprintf(out, "\nEngines:\n");
	for (const struct ibf_engine *e = ibf_engines; e->name; e++)
		fprintf(out, "  %-10s %s\n", e->name, e->summary);
}

struct route_args {
	const char *topo, *engine, *g2l, *out, *stats, *lfts;
	long lmc, max_hops;
	int json, quiet;
	int verbose; /* the engine's own report lines (INFO) on stderr */
	/* engine and deadlock options: ibfab.conf's keys, set by --conf FILE
	 * and then by the options, through the same parser */
	struct ibf_conf conf;
	int dl_nofit;
	int dl_verify; /* --verify: the independent verifier on the scheme's result */
	const char *dl_sl, *dl_sl2vl;
	const char *prev_topo, *prev_lfts;	 /* stable reroute from these tables */
	const char *healthy_topo, *healthy_lfts; /* and the healthy tables H */
	const char *avoid;			 /* hratio: GUID file of switches to avoid */
	/* the last option given on the command line that only one engine
	 * family reads (an ibfab.conf may set them all: it serves every
	 * engine of the plugin) */
	const char *layered_opt, *roots_opt;
	const char *from, *to; /* route trace: the two ends */
	int all_layers;	       /* route trace: every LID of --to */
};

/* An option that is an ibfab.conf key: parsed by the configuration parser. */
static int conf_opt(const char *prog, struct route_args *a, const char *key, const char *opt,
		    const char *val)
{
	struct ibf_error err;
	char msg[IBF_ERR_MSG_MAX + 64];
	ibf_error_clear(&err);
	if (!ibf_conf_set(&a->conf, key, val, opt, &err))
		return 0;
	return cli_usage_error(prog, "%s", ibf_error_format(&err, msg, sizeof(msg)));
}

static const struct option route_lo[] = {
	{ "topology", required_argument, 0, O_TOPO },
	{ "engine", required_argument, 0, O_ENGINE },
	{ "lmc", required_argument, 0, O_LMC },
	{ "guid2lid", required_argument, 0, O_G2L },
	{ "seed", required_argument, 0, O_SEED },
	{ "threads", required_argument, 0, O_THREADS },
	{ "stats", required_argument, 0, O_STATS },
	{ "lfts", required_argument, 0, O_LFTS },
	{ "min-len", required_argument, 0, O_MINLEN },
	{ "max-len", required_argument, 0, O_MAXLEN },
	{ "max-hops", required_argument, 0, O_MAXHOPS },
	{ "max-paths", required_argument, 0, O_MAXPATHS },
	{ "layer0-balance", required_argument, 0, O_L0BAL },
	{ "deadlock", required_argument, 0, O_DL_SCHEME },
	{ "max-vls", required_argument, 0, O_DL_MAXVLS },
	{ "best-effort", no_argument, 0, O_DL_BEST },
	{ "no-fit", no_argument, 0, O_DL_NOFIT },
	{ "verify", no_argument, 0, O_DL_VERIFY },
	{ "sl", required_argument, 0, O_DL_SL },
	{ "sl2vl", required_argument, 0, O_DL_SL2VL },
	{ "conf", required_argument, 0, O_CONF },
	{ "dmodk-roots", required_argument, 0, O_ROOTS },
	{ "avoid", required_argument, 0, O_AVOID },
	{ "previous-topology", required_argument, 0, O_PREV_TOPO },
	{ "previous-lfts", required_argument, 0, O_PREV_LFTS },
	{ "healthy-topology", required_argument, 0, O_HEALTHY_TOPO },
	{ "healthy-lfts", required_argument, 0, O_HEALTHY_LFTS },
	{ "stable-reroute", required_argument, 0, O_STABLE },
	{ "json", no_argument, 0, O_JSON },
	{ "from", required_argument, 0, O_FROM },
	{ "to", required_argument, 0, O_TO },
	{ "all-layers", no_argument, 0, O_ALL_LAYERS },
	{ "quiet", no_argument, 0, O_QUIET },
	{ "verbose", no_argument, 0, O_VERBOSE },
	{ "output", required_argument, 0, 'o' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* Options that are ibfab.conf keys: set through the configuration parser
 * (the plugin's rules and messages). */
static const struct {
	int code;
	const char *key, *opt;
} route_conf_opts[] = {
	{ O_SEED, "seed", "--seed" },
	{ O_THREADS, "threads", "--threads" },
	{ O_ROOTS, "dmodk_roots", "--dmodk-roots" },
	{ O_MAXPATHS, "max_paths_per_layer", "--max-paths" },
	{ O_L0BAL, "layer0_balance", "--layer0-balance" },
	{ O_MINLEN, "min_path_len", "--min-len" },
	{ O_MAXLEN, "max_path_len", "--max-len" },
	{ O_DL_SCHEME, "deadlock", "--deadlock" },
	{ O_DL_MAXVLS, "max_vls", "--max-vls" },
	{ O_STABLE, "stable_reroute", "--stable-reroute" },
};

/* Options that name a file (or an engine): the argument is kept as is. */
static const struct {
	int code;
	size_t off;
} route_str_opts[] = {
	{ O_TOPO, offsetof(struct route_args, topo) },
	{ O_ENGINE, offsetof(struct route_args, engine) },
	{ O_G2L, offsetof(struct route_args, g2l) },
	{ O_STATS, offsetof(struct route_args, stats) },
	{ O_LFTS, offsetof(struct route_args, lfts) },
	{ 'o', offsetof(struct route_args, out) },
	{ O_PREV_TOPO, offsetof(struct route_args, prev_topo) },
	{ O_PREV_LFTS, offsetof(struct route_args, prev_lfts) },
	{ O_HEALTHY_TOPO, offsetof(struct route_args, healthy_topo) },
	{ O_HEALTHY_LFTS, offsetof(struct route_args, healthy_lfts) },
	{ O_DL_SL, offsetof(struct route_args, dl_sl) },
	{ O_DL_SL2VL, offsetof(struct route_args, dl_sl2vl) },
	{ O_AVOID, offsetof(struct route_args, avoid) },
	{ O_FROM, offsetof(struct route_args, from) },
	{ O_TO, offsetof(struct route_args, to) },
};

/* --conf FILE first, wherever it stands: the other options override it. */
static int read_conf_first(const char *prog, int argc, char **argv, struct route_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *path = NULL;
		if (!strcmp(argv[i], "--conf") && i + 1 < argc)
			path = argv[i + 1];
		else if (!strncmp(argv[i], "--conf=", 7))
			path = argv[i] + 7;
		if (!path)
			continue;
		struct ibf_error err;
		ibf_error_clear(&err);
		if (ibf_conf_read(path, &a->conf, &err)) {
			char msg[IBF_ERR_MSG_MAX + 64];
			fprintf(stderr, "%s: %s\n", prog, ibf_error_format(&err, msg, sizeof(msg)));
			return 1;
		}
	}
	return 0;
}

/* One option from the tables above: 1 when it was one (*rc: 0 or the
 * exit code of a bad value), 0 when not. */
static int route_table_opt(const char *prog, struct route_args *a, int c, int *rc)
{
	*rc = 0;
	for (size_t i = 0; i < sizeof(route_str_opts) / sizeof(route_str_opts[0]); i++)
		if (route_str_opts[i].code == c) {
			*(const char **)(void *)((char *)a + route_str_opts[i].off) = optarg;
			return 1;
		}
	for (size_t i = 0; i < sizeof(route_conf_opts) / sizeof(route_conf_opts[0]); i++)
		if (route_conf_opts[i].code == c) {
			if (conf_opt(prog, a, route_conf_opts[i].key, route_conf_opts[i].opt,
				     optarg))
				*rc = 2;
			return 1;
		}
	return 0;
}

/* The long name of an option code of route_lo. */
static const char *route_opt_name(int c)
{
	for (const struct option *o = route_lo; o->name; o++)
		if (o->val == c)
			return o->name;
	return NULL;
}

/* Is long option name in the space-separated list? */
static int route_opt_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* The subcommands' options (parse_route_args' only): any other route option
 * is a usage error there, not silently ignored (route check --deadlock,
 * route check -o, route congestion -o, route diff --json were) */
#define ROUTE_COMMON "topology lmc guid2lid quiet help"
#define ROUTE_ENGINE_OPTS                                                                      \
	"engine seed threads min-len max-len max-paths layer0-balance conf dmodk-roots avoid " \
	"previous-topology previous-lfts healthy-topology healthy-lfts stable-reroute verbose"
static const char route_check_opts[] = ROUTE_COMMON " lfts max-hops json";
static const char route_stats_opts[] = ROUTE_COMMON " lfts json output " ROUTE_ENGINE_OPTS;
static const char route_cong_opts[] = ROUTE_COMMON " lfts json " ROUTE_ENGINE_OPTS;
static const char route_diff_opts[] = ROUTE_COMMON " lfts";
static const char route_trace_opts[] =
	ROUTE_COMMON " lfts json sl sl2vl from to all-layers " ROUTE_ENGINE_OPTS;

static int parse_route_args(const char *prog, const char *only, int argc, char **argv,
			    struct route_args *a)
{
	memset(a, 0, sizeof(*a));
	a->lmc = -1;
	ibf_conf_default(&a->conf); /* seed 0: the plugin's default, same tables */
	a->conf.threads = 2;
	if (read_conf_first(prog, argc, argv, a))
		return 1;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:hqv", route_lo, NULL)) != -1) {
		const char *name = route_opt_name(c);
		if (only && name && !route_opt_listed(only, name))
			return cli_usage_error(prog, "--%s does not apply here", name);
		if (c == O_MINLEN || c == O_MAXLEN || c == O_MAXPATHS || c == O_L0BAL)
			a->layered_opt = name;
		else if (c == O_ROOTS)
			a->roots_opt = name;
		if (route_table_opt(prog, a, c, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case O_JSON:
			a->json = 1;
			break;
		case O_ALL_LAYERS:
			a->all_layers = 1;
			break;
		case 'q':
		case O_QUIET:
			a->quiet = 1;
			break;
		case 'v':
		case O_VERBOSE:
			a->verbose = 1;
			break;
		case O_LMC:
			if (cli_int("--lmc", optarg, 0, 7, &a->lmc))
				return 2;
			break;
		case O_CONF:
			break; /* read above */
		case O_MAXHOPS:
			if (cli_int("--max-hops", optarg, 0, 1000, &a->max_hops))
				return 2;
			break;
		case O_DL_BEST:
			if (conf_opt(prog, a, "best_effort", "--best-effort", "TRUE"))
				return 2;
			break;
		case O_DL_NOFIT:
			a->dl_nofit = 1;
			break;
		case O_DL_VERIFY:
			a->dl_verify = 1;
			break;
		case 'h':
			fputs(route_help, stdout);
			print_engines(stdout);
			return -1;
		default:
			return cli_usage_error(prog, "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!a->topo)
		return cli_usage_error(prog, "--topology FILE is required");
	if (a->prev_topo && !a->prev_lfts)
		return cli_usage_error(prog, "--previous-topology needs --previous-lfts");
	if (a->healthy_lfts && !a->prev_lfts)
		return cli_usage_error(prog, "--healthy-lfts needs --previous-lfts");
	if (a->healthy_topo && !a->healthy_lfts)
		return cli_usage_error(prog, "--healthy-topology needs --healthy-lfts");
	/* an unknown engine is a usage error, found before any file is
	 * loaded or written; an option the chosen engine never reads would
	 * change nothing; the roots file is read for dmodk only
	 * (ibf_conf_engine_opts: hratio finds its trees' levels from the
	 * structure) */
	const char *eng = a->engine ? a->engine : "layered";
	if (!ibf_engine_find(eng))
		return cli_usage_error(prog, "unknown engine '%s' (see ibfab route --help)", eng);
	if (a->layered_opt && strcmp(eng, "layered") && strcmp(eng, "lnmp"))
		return cli_usage_error(prog, "--%s is for the layered engine only (engine %s)",
				       a->layered_opt, eng);
	if (a->roots_opt && strcmp(eng, "dmodk"))
		return cli_usage_error(prog, "--%s is for the dmodk engine only (engine %s)",
				       a->roots_opt, eng);
	if (a->avoid && strcmp(eng, "hratio"))
		return cli_usage_error(prog, "--avoid is for the hratio engine only (engine %s)", eng);
	return 0;
}

/* --previous-lfts: keep the columns of the previous tables that still
 * work on this fabric, route the rest (docs/reliability.md) */
static int route_stable(const struct route_args *a, const struct ibf_fabric *f, const char *engine,
			const struct ibf_route_opts *o, struct ibf_routes *r,
			struct ibf_route_report *rep, struct ibf_error *err)
{
	struct ibf_fabric *fo =
		cli_load_fabric(a->prev_topo ? a->prev_topo : a->topo, a->g2l, a->lmc, 1, err);
	if (!fo)
		return err->code ? err->code : IBF_EINVAL;
	struct ibf_routes old;
	memset(&old, 0, sizeof(old));
	int rc = cli_lfts_read(fo, a->prev_lfts, &old, err);
	/* a LID that names another port in the two fabrics (LIDs assigned
	 * to each on its own, e.g. by --lmc) keeps nothing: say so, as the
	 * summary would only count its columns as routed again */
	struct ibf_lidmap m, mo;
	if (!rc && !a->quiet && !ibf_lidmap_build(f, &m, NULL)) {
		if (!ibf_lidmap_build(fo, &mo, NULL)) {
			uint32_t moved = 0, both = 0;
			for (uint32_t l = 1; l <= m.max_lid && l <= mo.max_lid; l++) {
				if (m.node[l] < 0 || mo.node[l] < 0)
					continue;
				both++;
				if (f->nodes[m.node[l]].guid != fo->nodes[mo.node[l]].guid ||
				    m.port[l] != mo.port[l])
					moved++;
			}
			if (moved)
				fprintf(stderr,
					"ibfab: note: %u of the %u LIDs both fabrics use name another "
					"port in %s than in %s; their columns are routed again (give "
					"both fabrics the same LIDs: --guid2lid, or files with LIDs "
					"and no --lmc that re-assigns them)\n",
					moved, both, a->prev_topo ? a->prev_topo : a->topo, a->topo);
			ibf_lidmap_free(&mo);
		}
		ibf_lidmap_free(&m);
	}
	/* --healthy-lfts: the marks and H the plugin would carry */
	if (!rc && a->healthy_lfts) {
		struct ibf_fabric *fh = cli_load_fabric(a->healthy_topo ? a->healthy_topo : a->topo,
							a->g2l, a->lmc, 1, err);
		struct ibf_routes h;
		memset(&h, 0, sizeof(h));
		uint32_t nm = 0;
		rc = fh ? cli_lfts_read(fh, a->healthy_lfts, &h, err)
			: (err->code ? err->code : IBF_EINVAL);
		if (!rc)
			rc = ibf_stable_set_healthy(&old, fo, &h, fh, &nm, err);
		if (!rc && !a->quiet)
			fprintf(stderr,
				"ibfab route: %u destination LIDs of %s have columns that differ "
				"from the healthy tables %s (marked)\n",
				nm, a->prev_lfts, a->healthy_lfts);
		ibf_routes_free(&h);
		ibf_fabric_free(fh);
	}
	struct ibf_stable_report sr;
	if (!rc)
		rc = ibf_route_stable_mode(f, engine, o, fo, &old, ibf_conf_stable_mode(&a->conf), r,
					   rep, &sr, err);
	char line[512];
	if (!rc && !a->quiet)
		fprintf(stderr, "ibfab route: %s: %s; %.3f s\n",
			sr.fresh ? "stable_reroute failures" : "stable",
			ibf_stable_report_format(&sr, "(switch, LID) entries", line, sizeof(line)),
			sr.seconds);
	ibf_routes_free(&old);
	ibf_fabric_free(fo);
	return rc;
}

static int run_engine(const struct route_args *a, const struct ibf_fabric *f, struct ibf_routes *r,
		      struct ibf_route_report *rep, struct ibf_error *err)
{
	const char *engine = a->engine ? a->engine : "layered"; /* known: parse_route_args */
	struct ibf_route_opts o;
	uint64_t *roots = NULL;
	int rc = ibf_conf_engine_opts(&a->conf, engine, &o, &roots, err);
	/* a root of no switch here: the file and line (the engine cannot
	 * name them); wrong-looking roots: a warning */
	if (!rc && roots)
		rc = cli_check_roots(f, engine, a->conf.dmodk_roots, roots, o.nroots, err);
	if (rc) {
		free(roots);
		return rc;
	}
	static int info = 1;
	o.log = cli_log;
	o.log_ctx = a->verbose ? &info : NULL; /* else errors only */
	memset(rep, 0, sizeof(*rep));
	uint64_t *avoid = NULL;
	if (a->avoid) {
		if (strcmp(engine, "hratio")) {
			free(roots);
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "--avoid is for the hratio engine only");
		}
		rc = ibf_ftree_read_roots(a->avoid, &avoid, &o.navoid, err);
		/* a GUID of no switch here (a typo, another fabric's list) would
		 * avoid nothing without a word; --dmodk-roots refuses it too */
		if (!rc)
			rc = ibf_ftree_check_guids(f, a->avoid, "GUID", avoid, o.navoid, 0, err);
		if (rc) {
			free(avoid);
			free(roots);
			return rc;
		}
		o.avoid = avoid;
	}
	if (a->prev_lfts && !a->conf.stable_reroute && !a->quiet)
		fprintf(stderr, "ibfab route: stable_reroute FALSE: routing every destination, "
				"the previous tables are not used\n");
	if (a->prev_lfts && a->conf.stable_reroute)
		rc = route_stable(a, f, engine, &o, r, rep, err);
	else
		rc = ibf_route(f, engine, &o, r, rep, err);
	free(avoid);
	free(roots);
	return rc;
}

/* The tables: read from --lfts, else computed by the engine. */
static int get_routes(const struct route_args *a, const struct ibf_fabric *f, struct ibf_routes *r,
		      struct ibf_error *err)
{
	memset(r, 0, sizeof(*r));
	if (a->lfts)
		return cli_lfts_read(f, a->lfts, r, err);
	struct ibf_route_report rep;
	return run_engine(a, f, r, &rep, err);
}

static int write_stats_stream(const struct ibf_fabric *f, const struct ibf_routes *r, FILE *fp,
			      int json, struct ibf_error *err)
{
	struct ibf_path_stats st;
	int rc = ibf_path_stats_compute(f, r, &st, err);
	if (rc)
		return rc;
	if (json)
		ibf_path_stats_write_json(&st, fp);
	else
		ibf_path_stats_write_text(&st, fp);
	ibf_path_stats_free(&st);
	return 0;
}

static int write_stats(const struct ibf_fabric *f, const struct ibf_routes *r, const char *path,
		       int json, struct ibf_error *err)
{
	struct ibf_atomic at;
	int rc = ibf_atomic_open(&at, path, err);
	if (rc)
		return rc;
	rc = write_stats_stream(f, r, at.fp, json, err);
	int rc2 = ibf_atomic_commit(&at, !rc, rc ? NULL : err);
	return rc ? rc : rc2;
}

/* --deadlock: run the scheme on r, report, write the SL / SL2VL dumps into
 * the open streams (NULL: not asked for). */
static int route_deadlock(int *not_free, const struct route_args *a, const struct ibf_fabric *f,
			  struct ibf_routes *r, FILE *sl_fp, FILE *sl2vl_fp, struct ibf_error *err)
{
	if (a->conf.deadlock == IBF_DEADLOCK_NONE)
		return 0; /* --sl / --sl2vl without a scheme were refused before */
	struct ibf_dl_opts o;
	ibf_dl_opts_default(&o);
	o.scheme = a->conf.deadlock;
	/* 0 = no cap: offline, the 8 data VLs of common switches */
	o.max_vls = a->conf.max_vls > 0 ? a->conf.max_vls : 8;
	o.best_effort = a->conf.best_effort;
	o.no_fit = a->dl_nofit;
	o.threads = a->conf.threads > 0 ? a->conf.threads : (int)cli_online_cpus(4096);
	struct ibf_dl *dlres = NULL;
	int rc = ibf_deadlock_apply(f, r, &o, &dlres, err);
	if (rc)
		return rc;
	const struct ibf_dl *dl = dlres;
	char buf[1024];
	if (!a->quiet || !dl->deadlock_free)
		fprintf(stderr, "ibfab route: deadlock %s\n", ibf_dl_summary(dl, buf, sizeof(buf)));
	*not_free = !dl->deadlock_free;
	if (a->dl_verify && dl->deadlock_free) {
		/* stderr: the tables may go to stdout (-o -) */
		int ok = 0;
		rc = cli_verify_dl(f, r, dl, 16, a->quiet ? NULL : stderr, err, &ok);
		if (!rc && !ok)
			rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
					   "--verify: the verifier found the scheme's result "
					   "cyclic%s; nothing written",
					   a->quiet ? "" : " (report above)");
	} else if (a->dl_verify) {
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
				   "--verify: the result is not deadlock-free (--best-effort); "
				   "nothing written");
	}
	if (!rc && sl_fp)
		ibf_sl_write_stream(f, dl, sl_fp);
	if (!rc && sl2vl_fp)
		ibf_sl2vl_write_stream(f, dl, sl2vl_fp);
	ibf_dl_free(dlres);
	return rc;
}

static int cmd_route_main(int argc, char **argv)
{
	struct route_args a;
	int rc = parse_route_args("ibfab route", NULL, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.from || a.to || a.all_layers)
		return cli_usage_error("ibfab route", "--from / --to / --all-layers are options of "
						      "`ibfab route trace`");
	if (a.conf.deadlock == IBF_DEADLOCK_NONE && (a.dl_sl || a.dl_sl2vl || a.dl_verify))
		return cli_usage_error("ibfab route",
				       "--sl / --sl2vl / --verify need --deadlock dfsssp|coloring|auto");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	memset(&r, 0, sizeof(r));
	struct ibf_route_report rep;
	memset(&rep, 0, sizeof(rep));
	/* the tables, stats, SL and SL2VL dumps belong together: all are
	 * written, or none (an SL dump without its tables is worse than none) */
	struct cli_outs outs = { .n = 0 };
	FILE *out_fp, *stats_fp, *sl_fp = NULL, *sl2vl_fp = NULL;

	if (!rc)
		rc = cli_outs_add(&outs, a.out, &out_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, a.stats, &stats_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, a.dl_sl, &sl_fp, &err);
	if (!rc)
		rc = cli_outs_add(&outs, a.dl_sl2vl, &sl2vl_fp, &err);
	/* --best-effort: written, but exit 1 (as deadlock apply does) */
	int not_free = 0;
	double t0 = ibf_now();
	if (!rc)
		rc = run_engine(&a, f, &r, &rep, &err);
	double t1 = ibf_now();
	/* the scheme may reroute the destinations that do not fit the VLs:
	 * the tables are written after it */
	if (!rc)
		rc = route_deadlock(&not_free, &a, f, &r, sl_fp, sl2vl_fp, &err);
	if (!rc && out_fp)
		rc = ibf_lfts_write_stream(f, &r, out_fp, &err);
	if (!rc && stats_fp)
		rc = write_stats_stream(f, &r, stats_fp, 1, &err);
	{
		int rc2 = cli_outs_finish(&outs, !rc, rc ? NULL : &err);
		if (!rc)
			rc = rc2;
	}
	if (!rc && !a.quiet) {
		fprintf(stderr,
			"ibfab route: engine %s, %u switches, max LID %u, %d layer(s), %.3f s\n",
			r.engine[0] ? r.engine : (a.engine ? a.engine : "layered"), r.nsw,
			r.max_lid, 1 << r.lmc, t1 - t0);
		if (rep.pairs_total)
			fprintf(stderr,
				"ibfab route: layers >= 1: %llu (switch, destination) pairs, %llu inside the "
				"hop window, %llu fell back to minimal\n",
				(unsigned long long)rep.pairs_total,
				(unsigned long long)rep.pairs_nonminimal,
				(unsigned long long)rep.pairs_fallback);
	}
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	if (not_free) {
		if (!a.quiet)
			fprintf(stderr, "ibfab route: the tables are written, but the deadlock "
					"scheme's result is NOT deadlock-free (--best-effort): exit 1\n");
		return 1;
	}
	return 0;
}

static int cmd_route_check(int argc, char **argv)
{
	struct route_args a;
	int rc = parse_route_args("ibfab route check", route_check_opts, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!a.lfts)
		return cli_usage_error("ibfab route check", "--lfts DUMP is required");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	memset(&r, 0, sizeof(r));
	rc = cli_lfts_read(f, a.lfts, &r, &err);
	struct ibf_check_report rep;
	memset(&rep, 0, sizeof(rep));
	if (!rc)
		rc = ibf_route_check(f, &r, (int)a.max_hops, &rep, &err);
	uint32_t first_missing = 0, missing = 0;
	if (!rc)
		missing = cli_lfts_missing(f, &r, &first_missing);
	if (!rc) {
		if (a.json) {
			printf("{\"pairs\": %llu, \"ok\": %llu, \"unreachable\": %llu, \"loops\": %llu, "
			       "\"wrong\": %llu, \"too_long\": %llu, \"across_components\": %llu, "
			       "\"components\": %u, \"max_hops\": %u, \"switches_without_table\": "
			       "%u}\n",
			       (unsigned long long)rep.pairs, (unsigned long long)rep.ok,
			       (unsigned long long)rep.unreachable, (unsigned long long)rep.loops,
			       (unsigned long long)rep.wrong, (unsigned long long)rep.too_long,
			       (unsigned long long)rep.across, rep.components, rep.max_hops_seen,
			       missing);
		} else {
			if (missing) {
				const struct ibf_node *n = &f->nodes[f->switches[first_missing]];
				/* the first thing to read: opensm -R file leaves such a
				 * switch with no route and does not say so */
				printf("no table:        %u of the fabric's %u switches are not in "
				       "the dump, e.g. '%s' (guid 0x%016llx)\n",
				       missing, f->nsw, n->desc ? n->desc : "",
				       (unsigned long long)n->guid);
			}
			printf("pairs traced:    %llu\n", (unsigned long long)rep.pairs);
			printf("ok:              %llu\n", (unsigned long long)rep.ok);
			printf("unreachable:     %llu\n", (unsigned long long)rep.unreachable);
			if (rep.components > 1)
				printf("across:          %llu (between the %u switch components%s: "
				       "no path exists)\n",
				       (unsigned long long)rep.across, rep.components,
				       " or to ports cabled to no switch");
			else if (rep.across)
				printf("across:          %llu (to ports cabled to no switch: no path "
				       "exists)\n",
				       (unsigned long long)rep.across);
			printf("loops:           %llu\n", (unsigned long long)rep.loops);
			printf("misdelivered:    %llu\n", (unsigned long long)rep.wrong);
			if (a.max_hops > 0)
				printf("longer than %ld: %llu\n", a.max_hops,
				       (unsigned long long)rep.too_long);
			printf("longest path:    %u switch hops\n", rep.max_hops_seen);
			for (int i = 0; i < rep.nexamples; i++)
				printf("  %s\n", rep.examples[i]);
		}
	}
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	return (rep.ok + rep.across == rep.pairs && !missing) ? 0 : 1;
}

static int cmd_route_stats(int argc, char **argv)
{
	struct route_args a;
	int rc = parse_route_args("ibfab route stats", route_stats_opts, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* both: the dump was measured and the engine ignored without a word */
	if (a.lfts && a.engine)
		return cli_usage_error("ibfab route stats",
				       "give --lfts DUMP or --engine NAME, not both");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	rc = get_routes(&a, f, &r, &err);
	if (!rc)
		rc = write_stats(f, &r, a.out ? a.out : "-", a.json, &err);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	return rc ? cli_fail(&err) : 0;
}

/* ---------------------------------------------- route congestion / diff */

static const char congestion_help[] =
	"Usage: ibfab route congestion --topology FILE (--lfts DUMP | --engine NAME)\n"
	"                   [--lmc N] [--guid2lid F] [--pattern shift|perm|all]\n"
	"                   [--shift C] [--perms N] [--seed S] [--layer J|all]\n"
	"                   [--order auto|tree|fabric] [--json]\n"
	"\n"
	"Count flows per directed switch link for permutation traffic among the\n"
	"hosts, tracing every flow through the tables (a dump from any SM, e.g. read\n"
	"back with dump_lfts, or an engine run).  Hosts (CA and router ports cabled\n"
	"to a switch, not a CA inside its switch such as a SHARP aggregation node) are\n"
	"numbered leaf by leaf in port order when the fabric is a fat tree (--order\n"
	"auto), else by switch.\n"
	"\n"
	"  --pattern shift  every shift d = (s + c) mod N, c = 1..N-1 (or only --shift C)\n"
	"  --pattern perm   --perms random permutations (default 100) from --seed (default 1;\n"
	"                   with --engine also the engine's seed)\n"
	"  --pattern all    both (default)\n"
	"  --layer J|all    destination LID = base + J (default 0; all = every LMC layer)\n"
	"\n"
	"Per layer: the worst max link load over the shifts, the share of\n"
	"contention-free shifts (max load 1), the mean max load over the permutations,\n"
	"and the cell worst/share/mean.  Beside each: the cut lower bound of the same\n"
	"instances (flows leaving or entering a leaf, or a pod on a fat tree of 3+\n"
	"levels, over its cables, rounded up; docs/dmodk.md), so a routing at the\n"
	"bound is visible.  With switch links of different rates also the same\n"
	"figures in flows x (fastest rate / link rate).  Exit 1 when a flow is not\n"
	"delivered.\n";

static const char diff_help[] =
	"Usage: ibfab route diff --topology FILE --lfts A --lfts2 B [--guid2lid F]\n"
	"\n"
	"Compare two forwarding-table dumps of one fabric entry by entry; print the\n"
	"first differing (switch, LID) and the number of differing entries.  Exit 0\n"
	"when equal, 1 when they differ.\n";

/* take "--name V" / "--name=V" out of argv; returns V or NULL (argv compacted) */
static const char *take_opt(int *argc, char **argv, const char *name, int *bad)
{
	size_t n = strlen(name);
	for (int i = 1; i < *argc; i++) {
		const char *v = NULL;
		int drop = 0;
		if (!strcmp(argv[i], name)) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "ibfab: option %s needs a value\n", name);
				*bad = 1;
				return NULL;
			}
			v = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], name, n) && argv[i][n] == '=') {
			v = argv[i] + n + 1;
			drop = 1;
		} else {
			continue;
		}
		for (int j = i; j + drop <= *argc; j++)
			argv[j] = argv[j + drop];
		*argc -= drop;
		return v;
	}
	return NULL;
}

/* route congestion / diff: --help anywhere prints help (returns -1); the
 * options names[0..n) are taken out of a copy of argv into vals[], the rest
 * are parsed as route options. */
static int parse_route_args_plus(const char *prog, const char *help, const char *only, int argc,
				 char **argv, const char *const *names, const char **vals, int n,
				 struct route_args *a)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(help, stdout);
			return -1;
		}
	char **av = malloc(((size_t)argc + 1) * sizeof(char *));
	if (!av)
		return 1;
	memcpy(av, argv, (size_t)argc * sizeof(char *));
	av[argc] = NULL;
	int bad = 0;
	for (int i = 0; i < n; i++)
		vals[i] = take_opt(&argc, av, names[i], &bad);
	int rc = bad ? 2 : parse_route_args(prog, only, argc, av, a);
	free(av);
	return rc;
}

static int cong_run(const struct ibf_fabric *f, const struct ibf_routes *r,
		    struct ibf_cong_opts *co, int pattern, uint32_t shift, int have_shift,
		    struct ibf_cong_report *sh, struct ibf_cong_report *pm, struct ibf_error *err)
{
	memset(sh, 0, sizeof(*sh));
	memset(pm, 0, sizeof(*pm));
	int rc = 0;
	if (pattern != IBF_CONG_PERM) {
		co->pattern = have_shift ? IBF_CONG_SHIFT : IBF_CONG_SHIFT_ALL;
		co->shift = shift;
		rc = ibf_congestion(f, r, co, sh, err);
	}
	/* --pattern shift (IBF_CONG_SHIFT_ALL) runs no permutations: they
	 * were run, not printed, and their flows counted in the warning */
	if (!rc && pattern != IBF_CONG_SHIFT_ALL) {
		co->pattern = IBF_CONG_PERM;
		rc = ibf_congestion(f, r, co, pm, err);
	}
	return rc;
}

/* the cut lower bound of a congestion report (docs/dmodk.md) */
/* ", e.g. on SW/Pn -> SW/Pm" for directed switch link e (adj index) */
static void cong_link_name(const struct ibf_fabric *f, uint32_t e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (e == UINT32_MAX || e >= f->adj_off[f->nsw])
		return;
	const struct ibf_adj *ad = &f->adj[e];
	uint32_t s = 0;
	while (f->adj_off[s + 1] <= e)
		s++;
	char a[160], b[160];
	snprintf(buf, len, ", e.g. on %s/P%u -> %s/P%u",
		 ibf_node_label(f, (int)f->switches[s], a, sizeof(a)), ad->lport,
		 ibf_node_label(f, (int)f->switches[ad->nbr], b, sizeof(b)), ad->rport);
}

static void print_bound(const struct ibf_fabric *f, const struct ibf_cong_report *rp,
			const char *inst, int json)
{
	uint32_t pod = 0;
	for (int l = 1; l < rp->cut_levels; l++)
		if (rp->cut[l] > pod)
			pod = rp->cut[l];
	char na[128] = "", nb[128] = "";
	if (rp->pair_on && rp->pair) {
		ibf_ftree_swname(f, rp->pair_src, na, sizeof(na));
		ibf_ftree_swname(f, rp->pair_dst, nb, sizeof(nb));
	}
	if (json) {
		printf(", \"bound\": %u, \"bound_leaf\": %u", rp->cut_worst, rp->cut[0]);
		if (rp->cut_levels > 1)
			printf(", \"bound_pod\": %u", pod);
		printf(", \"bound_mean\": %.4f, \"at_bound\": %u", rp->cut_mean, rp->at_cut);
		if (!rp->pair_on)
			return;
		/* flat fields: readers that take the object up to its first
		 * '}' still see all of it */
		printf(", \"bound_pair\": %u, \"bound_updown\": %u, \"bound_updown_mean\": %.4f, "
		       "\"at_bound_updown\": %u, \"below_bound_updown\": %u, "
		       "\"pair_nopath\": %llu",
		       rp->pair, rp->updown, rp->updown_mean, rp->at_updown, rp->below_updown,
		       (unsigned long long)rp->pair_nopath);
		if (rp->pair) {
			printf(", \"bound_pair_src\": ");
			ibf_json_str(stdout, na);
			printf(", \"bound_pair_dst\": ");
			ibf_json_str(stdout, nb);
			printf(", \"bound_pair_pod\": %s", rp->pair_pod ? "true" : "false");
			printf(", \"bound_pair_flows\": %u, \"bound_pair_cables\": %u, "
			       "\"bound_pair_side\": \"%s\", \"bound_pair_%s\": %u",
			       rp->pair_flows, rp->pair_cables, rp->pair_side ? "dst" : "src", inst,
			       rp->pair_inst);
		}
		return;
	}
	printf("    cut lower bound: worst %u (leaf cut %u", rp->cut_worst, rp->cut[0]);
	if (rp->cut_levels > 1)
		printf(", pod cut %u", pod);
	printf("), mean %.2f; %u/%u instances at their bound%s\n", rp->cut_mean, rp->at_cut,
	       rp->ninst, rp->ninst && rp->worst == rp->cut_worst ? "; worst AT the bound" : "");
	if (!rp->pair_on)
		return;
	/* a bound for up*down* routes only: a routing with valleys may beat it */
	printf("    up/down bound (valley-free routes only): worst %u (pair cut %u", rp->updown,
	       rp->pair);
	if (rp->pair)
		printf(": %s %u, %s'%s' -> %s'%s', %u flow%s share %u cable%s %s %s'%s'", inst,
		       rp->pair_inst, rp->pair_pod ? "pod of " : "", na,
		       rp->pair_pod ? "pod of " : "", nb, rp->pair_flows,
		       rp->pair_flows == 1 ? "" : "s", rp->pair_cables,
		       rp->pair_cables == 1 ? "" : "s", rp->pair_side ? "into" : "out of",
		       rp->pair_pod ? "the pod of " : "", rp->pair_side ? nb : na);
	printf("), mean %.2f; %u/%u instances at it%s", rp->updown_mean, rp->at_updown,
	       rp->ninst, rp->ninst && rp->worst == rp->updown ? "; worst AT it" : "");
	if (rp->below_updown)
		printf("; %u below it (routes with valleys)", rp->below_updown);
	printf("\n");
	if (rp->pair_nopath)
		printf("    note: %llu flow(s) have no up/down path in the tree: not bounded, "
		       "a valley-free routing cannot deliver them\n",
		       (unsigned long long)rp->pair_nopath);
}

static int cmd_route_congestion(int argc, char **argv)
{
	const char *prog = "ibfab route congestion";
	static const char *const names[] = { "--pattern", "--shift", "--perms",
					     "--layer",	  "--order", "--seed" };
	const char *v[6];
	struct route_args a;
	int rc = parse_route_args_plus(prog, congestion_help, route_cong_opts, argc, argv, names,
				       v, 6, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	const char *pat = v[0], *shs = v[1], *prs = v[2], *lay = v[3], *ord = v[4], *sds = v[5];
	/* --seed: the permutations' seed (default 1) and the engine's (default
	 * the engine default) */
	long pseed = 1;
	if (sds) {
		if (cli_int("--seed", sds, 0, 0x7fffffffffffffffL, &pseed))
			return 2;
		a.conf.seed = (uint64_t)pseed;
	}
	int pattern = -1; /* -1: both */
	if (pat && !strcmp(pat, "shift"))
		pattern = IBF_CONG_SHIFT_ALL;
	else if (pat && !strcmp(pat, "perm"))
		pattern = IBF_CONG_PERM;
	else if (pat && strcmp(pat, "all"))
		return cli_usage_error(prog, "--pattern must be shift, perm or all");
	long shift = 0, perms = 100, layer = 0;
	int all_layers = 0;
	if (shs && cli_int("--shift", shs, 0, 0x7fffffffL, &shift))
		return 2;
	if (prs && cli_int("--perms", prs, 1, 1000000L, &perms))
		return 2;
	if (lay && !strcmp(lay, "all"))
		all_layers = 1;
	else if (lay && cli_int("--layer", lay, 0, 127, &layer))
		return 2;
	struct ibf_cong_opts co;
	ibf_cong_opts_default(&co);
	co.perms = (uint32_t)perms;
	co.seed = (uint64_t)pseed;
	if (ord && !strcmp(ord, "tree"))
		co.order = IBF_CONG_ORDER_TREE;
	else if (ord && !strcmp(ord, "fabric"))
		co.order = IBF_CONG_ORDER_FABRIC;
	else if (ord && strcmp(ord, "auto"))
		return cli_usage_error(prog, "--order must be auto, tree or fabric");
	if (!a.lfts && !a.engine)
		return cli_usage_error(prog, "give --lfts DUMP or --engine NAME");
	/* both: the dump was measured and the engine ignored without a word */
	if (a.lfts && a.engine)
		return cli_usage_error(prog, "give --lfts DUMP or --engine NAME, not both");

	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	rc = get_routes(&a, f, &r, &err);
	/* a layer beyond the tables' LIDs was traced at base + J anyway and
	 * printed as "layer J" */
	if (!rc && !all_layers && layer >= (1L << r.lmc))
		rc = ibf_error_set(&err, IBF_EINVAL, NULL, 0,
				   "--layer %ld: the tables have %d LID layer(s) (LMC %u): J must "
				   "be 0..%d or all",
				   layer, 1 << r.lmc, (unsigned)r.lmc, (1 << r.lmc) - 1);
	int l0 = all_layers ? 0 : (int)layer, l1 = all_layers ? (1 << r.lmc) - 1 : (int)layer;
	uint64_t unrouted = 0;
	for (int l = l0; !rc && l <= l1; l++) {
		struct ibf_cong_report sh, pm;
		co.layer = l;
		rc = cong_run(f, &r, &co, pattern, (uint32_t)shift, shs != NULL, &sh, &pm, &err);
		if (rc)
			break;
		const struct ibf_cong_report *any =
			sh.ninst || pattern != IBF_CONG_PERM ? &sh : &pm;
		/* with one host there is no flow: the report read "worst max
		 * link load 0 (shift 0)", "100/100 instances at their bound" */
		if (any->nhosts < 2) {
			rc = ibf_error_set(&err, IBF_EINVAL, NULL, 0,
					   "%u host port(s) cabled to a switch: a pattern needs "
					   "at least 2",
					   any->nhosts);
			ibf_cong_report_free(&sh);
			ibf_cong_report_free(&pm);
			break;
		}
		if (a.json && l == l0)
			printf("{\"source\": \"%s\", \"layers\": [",
			       a.lfts ? a.lfts : r.engine);
		unrouted += sh.unrouted + pm.unrouted;
		if (a.json) {
			printf("%s{\"layer\": %d, \"hosts\": %u, \"in_switch\": %u, \"links\": %u, "
			       "\"order\": \"%s\", \"apart_flows\": %llu",
			       l > l0 ? ", " : "", l, any->nhosts, any->in_switch, any->nlinks,
			       any->order == IBF_CONG_ORDER_TREE ? "tree" : "fabric",
			       (unsigned long long)(sh.apart + pm.apart));
			if (pattern != IBF_CONG_PERM)
				printf(", \"shift\": {\"count\": %u, \"worst\": %u, \"worst_shift\": %u, "
				       "\"contention_free\": %u, \"share_free\": %.4f, \"mean_max\": %.4f, "
				       "\"unrouted\": %llu",
				       sh.ninst, sh.worst, sh.worst_inst, sh.free_inst,
				       sh.share_free, sh.mean_max, (unsigned long long)sh.unrouted);
			if (pattern != IBF_CONG_PERM && sh.rated)
				printf(", \"rate_weighted\": {\"worst\": %u, \"worst_shift\": %u, "
				       "\"mean_max\": %.4f}",
				       sh.wworst, sh.wworst_inst, sh.wmean_max);
			/* demand_load after the bound: scripts that read the
			 * bound out of the text as far as the first '}' still do */
			if (pattern != IBF_CONG_PERM) {
				print_bound(f, &sh, "shift", 1);
				if (sh.demand)
					printf(", \"demand_load\": {\"worst\": %.4f, "
					       "\"worst_shift\": %u, \"mean_max\": %.4f}",
					       sh.dworst, sh.dworst_inst, sh.dmean_max);
				printf("}");
			}
			if (pattern != IBF_CONG_SHIFT_ALL)
				printf(", \"perm\": {\"count\": %u, \"seed\": %llu, \"worst\": %u, "
				       "\"mean_max\": %.4f, \"unrouted\": %llu",
				       pm.ninst, (unsigned long long)co.seed, pm.worst, pm.mean_max,
				       (unsigned long long)pm.unrouted);
			if (pattern != IBF_CONG_SHIFT_ALL && pm.rated)
				printf(", \"rate_weighted\": {\"worst\": %u, \"mean_max\": %.4f}",
				       pm.wworst, pm.wmean_max);
			if (pattern != IBF_CONG_SHIFT_ALL) {
				print_bound(f, &pm, "perm", 1);
				if (pm.demand)
					printf(", \"demand_load\": {\"worst\": %.4f, "
					       "\"mean_max\": %.4f}",
					       pm.dworst, pm.dmean_max);
				printf("}");
			}
			printf("}");
		} else {
			if (l == l0)
				printf("hosts: %u (%s order), directed switch links: %u, tables: %s\n",
				       any->nhosts,
				       any->order == IBF_CONG_ORDER_TREE ? "tree" : "fabric",
				       any->nlinks, a.lfts ? a.lfts : r.engine);
			if (l == l0 && any->in_switch)
				printf("note: %u " IBF_IN_SWITCH_NOTE "\n", any->in_switch);
			printf("layer %d:\n", l);
			/* a rail-only cluster's rails: pairs no table can join, as
			 * route check's "across"; the loads are those of the rest */
			if (sh.apart + pm.apart)
				printf("  note: %llu flows between switch components apart (no cable "
				       "path under any routing) left out\n",
				       (unsigned long long)(sh.apart + pm.apart));
			if (pattern != IBF_CONG_PERM) {
				char wl[160] = "";
				if (sh.worst > 0)
					cong_link_name(f, sh.worst_link, wl, sizeof(wl));
				if (shs)
					printf("  shift %ld: max link load %u%s\n", shift, sh.worst,
					       wl);
				else
					printf("  shifts: worst max link load %u (shift %u%s), contention-free "
					       "%u/%u (%.1f%%), mean max load %.2f\n",
					       sh.worst, sh.worst_inst, wl, sh.free_inst, sh.ninst,
					       100.0 * sh.share_free, sh.mean_max);
				print_bound(f, &sh, "shift", 0);
				if (sh.demand) {
					char wl2[160] = "";
					if (sh.dworst > 0)
						cong_link_name(f, sh.dworst_link, wl2, sizeof(wl2));
					printf("    demand load (flows' host rates / link rate): "
					       "worst %.2f (shift %u%s), mean max %.2f\n",
					       sh.dworst, sh.dworst_inst, wl2, sh.dmean_max);
				}
			}
			if (pattern != IBF_CONG_SHIFT_ALL)
				printf("  permutations: %u random (seed %llu): mean max link load %.2f, "
				       "worst %u\n",
				       pm.ninst, (unsigned long long)co.seed, pm.mean_max,
				       pm.worst);
			if (pattern != IBF_CONG_SHIFT_ALL)
				print_bound(f, &pm, "permutation", 0);
			if (pattern != IBF_CONG_SHIFT_ALL && pm.demand)
				printf("    demand load (flows' host rates / link rate): mean max "
				       "%.2f, worst %.2f\n",
				       pm.dmean_max, pm.dworst);
			if (pattern == -1 && !shs)
				printf("  cell: %u/%.1f%%/%.2f\n", sh.worst, 100.0 * sh.share_free,
				       pm.mean_max);
			if (sh.unrouted + pm.unrouted)
				printf("  WARNING: %llu flows not delivered by the tables\n",
				       (unsigned long long)(sh.unrouted + pm.unrouted));
		}
		ibf_cong_report_free(&sh);
		ibf_cong_report_free(&pm);
	}
	if (!rc && a.json)
		printf("]}\n");
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	return unrouted ? 1 : 0;
}

static int cmd_route_diff(int argc, char **argv)
{
	const char *prog = "ibfab route diff";
	static const char *const names[] = { "--lfts2" };
	const char *b;
	struct route_args a;
	int rc = parse_route_args_plus(prog, diff_help, route_diff_opts, argc, argv, names, &b, 1,
				       &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!a.lfts || !b)
		return cli_usage_error(prog, "--lfts A and --lfts2 B are required");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r1, r2;
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	rc = cli_lfts_read(f, a.lfts, &r1, &err);
	if (!rc)
		rc = cli_lfts_read(f, b, &r2, &err);
	uint64_t ndiff = 0, compared = 0;
	if (!rc) {
		uint32_t maxl = r1.max_lid < r2.max_lid ? r1.max_lid : r2.max_lid;
		/* switches in canonical order: the first difference named does
		 * not follow the order of the fabric file's records */
		int32_t *ids = malloc((f->nsw ? f->nsw : 1) * sizeof(*ids));
		if (ids)
			memcpy(ids, f->switches, f->nsw * sizeof(*ids));
		if (!ids || ibf_fabric_sort_ids(f, ids, f->nsw))
			rc = ibf_error_set(&err, IBF_ENOMEM, NULL, 0, "out of memory");
		for (uint32_t k = 0; !rc && k < f->nsw; k++) {
			uint32_t s = (uint32_t)f->nodes[ids[k]].sw;
			const uint8_t *x = ibf_lft(&r1, s), *y = ibf_lft(&r2, s);
			for (uint32_t lid = 1; lid <= maxl; lid++) {
				compared++;
				if (x[lid] == y[lid])
					continue;
				if (!ndiff++) {
					const struct ibf_node *n = &f->nodes[f->switches[s]];
					printf("first difference: switch '%s' (guid 0x%016llx) LID %u: "
					       "%s port %u, %s port %u\n",
					       n->desc ? n->desc : "", (unsigned long long)n->guid,
					       lid, a.lfts, x[lid], b, y[lid]);
				}
			}
		}
		free(ids);
	}
	if (!rc) {
		printf("%llu of %llu (switch, LID) entries differ (%.2f%%)\n",
		       (unsigned long long)ndiff, (unsigned long long)compared,
		       compared ? 100.0 * (double)ndiff / (double)compared : 0.0);
	}
	ibf_routes_free(&r1);
	ibf_routes_free(&r2);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	return ndiff ? 1 : 0;
}

/* ---------------------------------------------- route trace */

/* One end of a trace: a port and the LID it was named by (0: by name). */
struct trace_end {
	int node, port;
	uint32_t lid; /* the port's base LID, or the LID given */
	int by_lid;
};

static const char *node_desc(const struct ibf_fabric *f, int node)
{
	const struct ibf_node *n = &f->nodes[node];
	return n->desc && n->desc[0] ? n->desc : n->id ? n->id : "?";
}


/* The largest unicast LID (0xc000 and up are multicast, 0xffff permissive). */
#define TRACE_LID_MAX 0xbfffUL

/* How --from / --to spell a LID: decimal digits, or 0x with 1 to 4 hex
 * digits as ibtracert and ibroute take them (a GUID has more digits:
 * ibfab and the diags print 16).  Returns 1 for a LID (*lid its value,
 * at most 0x10000 when larger, so a range check can refuse it), 0 for
 * anything else (a name, a GUID, or a 0x token that is no hex number). */
static int trace_lid_token(const char *s, unsigned long *lid)
{
	size_t n = strspn(s, "0123456789");
	if (n && !s[n]) {
		*lid = 0;
		for (; *s; s++) /* saturated: any number of digits, no overflow */
			if (*lid <= TRACE_LID_MAX)
				*lid = *lid * 10 + (unsigned long)(*s - '0');
		return 1;
	}
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	n = strspn(s + 2, "0123456789abcdefABCDEF");
	if (!n || n > 4 || s[2 + n])
		return 0;
	*lid = strtoul(s + 2, NULL, 16);
	return 1;
}

/* A 0x token that is neither a LID nor a GUID: 0x alone, or a character
 * that is no hex digit. */
static int trace_bad_hex(const char *s)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	size_t n = strspn(s + 2, "0123456789abcdefABCDEF");
	return !n || s[2 + n];
}

/* --from / --to: a node description or name, a node or port GUID (0x and
 * more than 4 hex digits), or a LID (decimal, or 0x and 1 to 4 hex
 * digits).  Unknown or malformed: a usage error (returns 2). */
static int trace_end_resolve(const char *prog, const char *opt, const char *tok,
			     const struct ibf_fabric *f, const struct ibf_lidmap *m,
			     struct trace_end *e)
{
	memset(e, 0, sizeof(*e));
	unsigned long lid;
	if (!*tok)
		return cli_usage_error(prog, "%s: empty (give a node name, a GUID or a LID)", opt);
	if (trace_lid_token(tok, &lid)) {
		if (!lid || lid > TRACE_LID_MAX)
			return cli_usage_error(prog,
					       "%s %s: not a unicast LID (1..49151, 0x1..0xbfff)",
					       opt, tok);
		if (lid > m->max_lid || m->node[lid] < 0)
			return cli_usage_error(prog, "%s %s: no port of this fabric has LID %s%s",
					       opt, tok, tok,
					       ibf_fabric_find_name(f, tok, NULL) >= 0
						       ? " (digits are a LID: a node named so is "
							 "given by its GUID)"
						       : "");
		e->node = m->node[lid];
		e->port = m->port[lid];
		e->lid = (uint32_t)lid;
		e->by_lid = 1;
		return 0;
	}
	/* 0xZZ, 0x: a typo of a LID or GUID, unless a node is named so */
	if (trace_bad_hex(tok) && ibf_fabric_find_name(f, tok, NULL) < 0)
		return cli_usage_error(prog,
				       "%s '%s': not a hex number (a LID is 0x and 1 to 4 hex digits, "
				       "a GUID 0x and more)",
				       opt, tok);
	int gport, dup;
	int node = ibf_fabric_find_name_dup(f, tok, &gport, &dup);
	if (node < 0)
		return cli_usage_error(prog,
				       "%s '%s': no node of this fabric has that description, "
				       "name or GUID (a LID is a decimal number or 0x and 1 to 4 "
				       "hex digits)",
				       opt, tok);
	if (dup >= 0)
		return cli_usage_error(prog,
				       "%s '%s': more than one node is named so (0x%016llx and "
				       "0x%016llx, maybe more); name it by port GUID or LID",
				       opt, tok, (unsigned long long)ibf_node_some_guid(f, node),
				       (unsigned long long)ibf_node_some_guid(f, dup));
	const struct ibf_node *n = &f->nodes[node];
	int port = -1;
	if (n->type == IBF_NODE_SWITCH) {
		port = 0;
	} else if (gport > 0) {
		port = gport;
	} else {
		/* the first port with a LID, one cabled to a switch first */
		for (int pass = 0; pass < 2 && port < 0; pass++)
			for (int p = 1; p <= n->nports && port < 0; p++)
				if (ibf_port(f, node, p)->lid &&
				    (pass || ibf_port_switch(f, node, p, NULL) >= 0))
					port = p;
	}
	if (port < 0 || !ibf_port(f, node, port)->lid)
		return cli_usage_error(prog, "%s '%s': '%s' has no port with a LID", opt, tok,
				       node_desc(f, node));
	e->node = node;
	e->port = port;
	e->lid = ibf_port(f, node, port)->lid;
	return 0;
}

/* The link that leaves (node, port): what it runs at, the slower end's
 * width and speed where both ends know them. */
static void trace_link(const struct ibf_fabric *f, int node, int port, uint8_t *width,
		       uint8_t *speed, double *gbps)
{
	const struct ibf_port *a = ibf_port(f, node, port);
	uint8_t w = a->width, sp = a->speed;
	if (a->peer_node != IBF_NO_NODE) {
		const struct ibf_port *b = ibf_port(f, a->peer_node, a->peer_port);
		if (b->width && (!w || b->width < w))
			w = b->width;
		if (b->speed && (!sp || ibf_speed_rate(b->speed) < ibf_speed_rate(sp)))
			sp = b->speed;
	}
	*width = w;
	*speed = sp;
	*gbps = w && sp ? w * ibf_speed_rate(sp) / 10.0 : 0;
}

/* The LID shown for a hop: a switch's port 0 LID, else the port's. */
static unsigned hop_lid(const struct ibf_fabric *f, const struct ibf_trace_hop *h)
{
	if (f->nodes[h->node].type == IBF_NODE_SWITCH)
		return ibf_port(f, h->node, 0)->lid;
	int p = h->in >= 0 ? h->in : h->out;
	return p > 0 && p <= f->nodes[h->node].nports ? ibf_port(f, h->node, p)->lid : 0;
}

/* The GUID shown for a hop: a CA's port GUID (what ibtracert shows; the
 * ports report of ibnetdiscover -p has no node GUIDs), a switch's node GUID. */
static unsigned long long hop_guid(const struct ibf_fabric *f, const struct ibf_trace_hop *h)
{
	const struct ibf_node *n = &f->nodes[h->node];
	int p = n->type == IBF_NODE_SWITCH ? 0 : h->in >= 0 ? h->in : h->out;
	uint64_t g = 0;
	if (p >= 0 && p <= n->nports)
		g = ibf_port(f, h->node, p)->guid;
	if (n->type == IBF_NODE_SWITCH || !g)
		g = n->guid ? n->guid : g;
	return (unsigned long long)g;
}

static const char *const trace_kind[] = {
	[IBF_TRACE_OK] = "ok",
	[IBF_TRACE_UNREACHABLE] = "unreachable",
	[IBF_TRACE_LOOP] = "loop",
	[IBF_TRACE_WRONG] = "misdelivered",
};

/* No entry at all for switch node (a dump without its table). */
static int lft_empty(const struct ibf_fabric *f, const struct ibf_routes *r, int node)
{
	int32_t s = f->nodes[node].sw;
	if (s < 0 || (uint32_t)s >= r->nsw)
		return 1;
	const uint8_t *row = ibf_lft(r, (uint32_t)s);
	for (uint32_t l = 0; l <= r->max_lid; l++)
		if (row[l] != IBF_LFT_NONE)
			return 0;
	return 1;
}

/* What happened, in words, at the trace's last hop. */
static void trace_verdict(const struct ibf_fabric *f, const struct ibf_lidmap *m,
			  const struct ibf_routes *r, uint32_t dlid, int res,
			  const struct ibf_trace_hop *hop, int nhop, char *buf, size_t len)
{
	const struct ibf_trace_hop *last = &hop[nhop - 1];
	const char *d = node_desc(f, last->node);
	int sw = f->nodes[last->node].type == IBF_NODE_SWITCH;
	int nsw = 0;
	for (int i = 0; i < nhop; i++)
		nsw += f->nodes[hop[i].node].type == IBF_NODE_SWITCH;
	switch (res) {
	case IBF_TRACE_OK:
		snprintf(buf, len, "delivered to '%s' port %d at hop %d (%d switch%s)", d,
			 sw ? 0 : last->in, nhop - 1, nsw, nsw == 1 ? "" : "es");
		break;
	case IBF_TRACE_LOOP: {
		int first = 0;
		while (first < nhop - 1 && hop[first].node != last->node)
			first++;
		snprintf(buf, len, "loop: switch '%s' is entered again at hop %d (first at hop %d)",
			 d, nhop - 1, first);
		break;
	}
	case IBF_TRACE_WRONG: {
		int owner = m->node[dlid];
		snprintf(buf, len,
			 "misdelivered at hop %d: '%s' port %d does not own LID 0x%04x (it is "
			 "'%s' port %d's)",
			 nhop - 1, d, sw ? 0 : last->in, (unsigned)dlid,
			 owner >= 0 ? node_desc(f, owner) : "?", owner >= 0 ? m->port[dlid] : 0);
		break;
	}
	default:
		if (!sw)
			snprintf(buf, len, "port %d of '%s' has no cable (hop %d)", last->out, d,
				 nhop - 1);
		else if (last->out == (int)IBF_LFT_NONE)
			snprintf(
				buf, len,
				"black hole at hop %d: switch '%s' has no LFT entry for LID 0x%04x%s",
				nhop - 1, d, (unsigned)dlid,
				lft_empty(f, r, last->node)
					? " (the tables have none for this switch)"
					: "");
		else if (last->out > f->nodes[last->node].nports)
			snprintf(buf, len,
				 "at hop %d switch '%s' forwards LID 0x%04x to port %d, which it "
				 "does not have",
				 nhop - 1, d, (unsigned)dlid, last->out);
		else
			snprintf(buf, len,
				 "at hop %d switch '%s' forwards LID 0x%04x to port %d, which has "
				 "no cable (a cut cable?)",
				 nhop - 1, d, (unsigned)dlid, last->out);
		break;
	}
}

struct trace_sl {
	const struct ibf_sl_table *sl;	   /* NULL: not given */
	const struct ibf_sl2vl_table *s2v; /* NULL: not given */
};

/* The SL of the trace (-1: not given) and, when the port's LIDs use
 * several, all of them in *mask. */
static int trace_pick_sl(const struct ibf_fabric *f, const struct trace_sl *q,
			 const struct trace_end *src, uint32_t dlid, uint16_t *mask)
{
	*mask = 0;
	if (!q->sl)
		return -1;
	*mask = ibf_sl_table_mask(f, q->sl, src->node, src->port, dlid);
	for (int s = 0; s < 16; s++)
		if (*mask >> s & 1)
			return s;
	return -1;
}

/* The VL of the link hop h leaves by (-1: unknown; only switches have
 * SL2VL tables here). */
static int trace_vl(const struct ibf_fabric *f, const struct trace_sl *q,
		    const struct ibf_trace_hop *h, int sl)
{
	if (!q->s2v || sl < 0 || f->nodes[h->node].type != IBF_NODE_SWITCH || h->out < 0 ||
	    h->out == (int)IBF_LFT_NONE)
		return -1;
	uint8_t vl =
		ibf_sl2vl_get(f, q->s2v, (uint32_t)f->nodes[h->node].sw,
			      (unsigned)(h->in < 0 ? 0 : h->in), (unsigned)h->out, (unsigned)sl);
	return vl == IBF_VL_NONE ? -1 : vl;
}

static void trace_print_text(const struct ibf_fabric *f, const struct trace_sl *q,
			     const struct ibf_trace_hop *hop, int nhop, int sl, uint16_t slmask,
			     uint32_t dlid, uint32_t layer, int res, const char *verdict)
{
	printf("\nLID 0x%04x (layer %u)", (unsigned)dlid, (unsigned)layer);
	if (q->sl && sl < 0)
		printf(", SL not given for this pair");
	else if (sl >= 0)
		printf(", SL %d", sl);
	if (slmask & (slmask - 1)) {
		printf(" (the source's LIDs use SLs");
		for (int s = 0, k = 0; s < 16; s++)
			if (slmask >> s & 1)
				printf("%s%d", k++ ? "," : " ", s);
		printf("; SL %d shown)", sl);
	}
	printf(":\n");
	printf("  %3s %4s %4s %-6s %-18s %-7s %7s%s  %s\n", "hop", "in", "out", "LID", "GUID",
	       "link", "Gb/s", q->s2v ? "  VL" : "", "node");
	for (int i = 0; i < nhop; i++) {
		const struct ibf_trace_hop *h = &hop[i];
		const struct ibf_node *n = &f->nodes[h->node];
		char in[16] = "-", out[16] = "-", link[16] = "-", rate[32] = "-", vl[16] = "-";
		if (h->in >= 0)
			snprintf(in, sizeof(in), "%d", h->in);
		if (h->out == (int)IBF_LFT_NONE)
			snprintf(out, sizeof(out), "none");
		else if (h->out >= 0)
			snprintf(out, sizeof(out), "%d", h->out);
		int last_bad = i == nhop - 1 && res != IBF_TRACE_OK;
		if (h->out > 0 && h->out <= n->nports &&
		    !(last_bad && res == IBF_TRACE_UNREACHABLE)) {
			uint8_t w, sp;
			double g;
			trace_link(f, h->node, h->out, &w, &sp, &g);
			ibf_format_width_speed(w, sp, link, sizeof(link));
			if (!link[0])
				snprintf(link, sizeof(link), "?");
			if (g > 0)
				snprintf(rate, sizeof(rate), "%.1f", g);
			int v = trace_vl(f, q, h, sl);
			if (v >= 0)
				snprintf(vl, sizeof(vl), "%d", v);
		}
		printf("  %3d %4s %4s 0x%04x 0x%016llx %-7s %7s", i, in, out, hop_lid(f, h),
		       hop_guid(f, h), link, rate);
		if (q->s2v)
			printf("  %2s", vl);
		printf("  %s\n", node_desc(f, h->node));
	}
	printf("  %s\n", verdict);
}

static unsigned long long end_guid(const struct ibf_fabric *f, const struct trace_end *e)
{
	struct ibf_trace_hop h = { e->node, (int16_t)e->port, -1 };
	return hop_guid(f, &h);
}

static void trace_json_end(const struct ibf_fabric *f, const struct trace_end *e)
{
	printf("{\"node\": ");
	ibf_json_str(stdout, node_desc(f, e->node));
	printf(", \"guid\": \"0x%016llx\", \"port\": %d, \"lid\": %u}", end_guid(f, e), e->port,
	       (unsigned)e->lid);
}

static void trace_print_json(const struct ibf_fabric *f, const struct trace_sl *q,
			     const struct ibf_trace_hop *hop, int nhop, int sl, uint32_t dlid,
			     uint32_t layer, int res, const char *verdict, int first)
{
	printf("%s{\"dlid\": %u, \"layer\": %u, \"sl\": ", first ? "" : ", ", (unsigned)dlid,
	       (unsigned)layer);
	if (sl >= 0)
		printf("%d", sl);
	else
		printf("null");
	printf(", \"result\": \"%s\", \"message\": ", trace_kind[res]);
	ibf_json_str(stdout, verdict);
	printf(", \"hops\": [");
	for (int i = 0; i < nhop; i++) {
		const struct ibf_trace_hop *h = &hop[i];
		const struct ibf_node *n = &f->nodes[h->node];
		printf("%s{\"node\": ", i ? ", " : "");
		ibf_json_str(stdout, node_desc(f, h->node));
		printf(", \"guid\": \"0x%016llx\", \"type\": \"%s\", \"lid\": %u, \"in\": ",
		       hop_guid(f, h), n->type == IBF_NODE_SWITCH ? "switch" : "ca", hop_lid(f, h));
		if (h->in >= 0)
			printf("%d", h->in);
		else
			printf("null");
		printf(", \"out\": ");
		if (h->out >= 0 && h->out != (int)IBF_LFT_NONE)
			printf("%d", h->out);
		else
			printf("null");
		int last_bad = i == nhop - 1 && res == IBF_TRACE_UNREACHABLE;
		if (h->out > 0 && h->out <= n->nports && !last_bad) {
			uint8_t w, sp;
			double g;
			trace_link(f, h->node, h->out, &w, &sp, &g);
			printf(", \"width\": %u, \"speed\": \"%s\", \"gbps\": %.17g", w,
			       ibf_speed_name(sp), g);
			int v = trace_vl(f, q, h, sl);
			if (v >= 0)
				printf(", \"vl\": %d", v);
		}
		printf("}");
	}
	printf("]}");
}

static const char trace_help[] =
	"Usage: ibfab route trace --topology FILE (--lfts DUMP | --engine NAME ...)\n"
	"                         --from X --to Y [--all-layers] [--sl F [--sl2vl F]]\n"
	"                         [--lmc N] [--guid2lid F] [--json]\n"
	"\n"
	"Follow the forwarding tables from X to Y, hop by hop, as ibtracert does on a\n"
	"live fabric: each hop's node, GUID, LID, in port, out port, and the width,\n"
	"speed and data rate of the link it leaves by.  The tables are a dump\n"
	"(opensm-lfts.dump, dump_lfts/ibroute output) or an engine's run with the\n"
	"options `route stats` takes.\n"
	"\n"
	"X and Y: a node description, its first word for a CA, a node name, a node or\n"
	"port GUID (0x and more than 4 hex digits), or a unicast LID (1..49151: a\n"
	"decimal number, or 0x and 1 to 4 hex digits as ibtracert takes it and the\n"
	"trace prints it, 0x1a or 0x001A).  A switch is traced from\n"
	"and to its port 0; a CA named by description or node GUID from and to its\n"
	"first port with a LID.  --to by name traces the destination's base LID,\n"
	"--all-layers every LID of its LMC (one path each); a LID traces that LID.\n"
	"\n"
	"  --sl F     path SLs (the SL dump of `ibfab route --deadlock`, saquery -p\n"
	"             output or '<slid> <dlid> <sl>' lines): print the trace's SL\n"
	"  --sl2vl F  SL2VL tables (the SL2VL dump, smpquery sl2vl output): print the\n"
	"             VL of each link a switch sends on (needs --sl)\n"
	"  --json     machine-readable\n"
	"\n"
	"Exit 0 when every trace reaches its destination; 1 when one ends early: a\n"
	"missing LFT entry (black hole), a port with no cable or that the switch\n"
	"does not have, a loop, or a delivery to another port (the hop where it\n"
	"happens is printed); 2 on usage errors, unknown nodes and LIDs and names\n"
	"that several nodes share included.  A file that cannot be read or parsed\n"
	"is exit 1 too, with FILE:LINE on stderr and nothing on stdout.\n";

static int cmd_route_trace(int argc, char **argv)
{
	const char *prog = "ibfab route trace";
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(trace_help, stdout);
			print_engines(stdout);
			return 0;
		}
	struct route_args a;
	int rc = parse_route_args(prog, route_trace_opts, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!a.from || !a.to)
		return cli_usage_error(prog, "--from X and --to Y are required");
	if (!a.lfts && !a.engine)
		return cli_usage_error(prog, "give --lfts DUMP or --engine NAME");
	if (a.lfts && a.engine)
		return cli_usage_error(prog, "give --lfts DUMP or --engine NAME, not both");
	if (a.dl_sl2vl && !a.dl_sl)
		return cli_usage_error(prog, "--sl2vl needs --sl (the SL of the path)");
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_lidmap m;
	memset(&m, 0, sizeof(m));
	struct ibf_routes r;
	memset(&r, 0, sizeof(r));
	struct ibf_sl_table slt;
	struct ibf_sl2vl_table s2v;
	memset(&slt, 0, sizeof(slt));
	memset(&s2v, 0, sizeof(s2v));
	struct trace_sl q = { NULL, NULL };
	struct ibf_trace_hop *hop = NULL;
	struct trace_end src, dst;
	int usage = 0, broken = 0;
	rc = ibf_lidmap_build(f, &m, &err);
	/* the ends first: a typo is a usage error before any engine runs */
	if (!rc) {
		usage = trace_end_resolve(prog, "--from", a.from, f, &m, &src);
		if (!usage)
			usage = trace_end_resolve(prog, "--to", a.to, f, &m, &dst);
		if (!usage && dst.by_lid && a.all_layers)
			usage = cli_usage_error(prog,
						"--all-layers: --to %s is one LID; name the "
						"destination by description or GUID",
						a.to);
		if (usage)
			goto out;
	}
	if (!rc)
		rc = get_routes(&a, f, &r, &err);
	if (!rc && a.dl_sl) {
		rc = ibf_sl_read(f, a.dl_sl, &slt, &err);
		q.sl = rc ? NULL : &slt;
	}
	if (!rc && a.dl_sl2vl) {
		rc = ibf_sl2vl_read(f, a.dl_sl2vl, &s2v, &err);
		q.s2v = rc ? NULL : &s2v;
	}
	int maxhop = (int)f->nsw + 3;
	if (!rc && !(hop = malloc((size_t)maxhop * sizeof(*hop))))
		rc = ibf_error_set(&err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (rc)
		goto out;
	const struct ibf_port *dp = ibf_port(f, dst.node, dst.port);
	uint32_t base = dp->lid, nl = 1;
	uint32_t d0 = dst.lid;
	if (a.all_layers) {
		d0 = base;
		nl = 1u << dp->lmc;
	}
	if (a.json) {
		printf("{\"from\": ");
		trace_json_end(f, &src);
		printf(", \"to\": ");
		trace_json_end(f, &dst);
		printf(", \"traces\": [");
	} else {
		printf("from '%s' port %d (guid 0x%016llx, LID 0x%04x) to '%s' port %d (guid "
		       "0x%016llx, LID 0x%04x, LMC %u)\n",
		       node_desc(f, src.node), src.port, end_guid(f, &src), (unsigned)src.lid,
		       node_desc(f, dst.node), dst.port, end_guid(f, &dst), (unsigned)base,
		       (unsigned)dp->lmc);
	}
	for (uint32_t k = 0; k < nl; k++) {
		uint32_t dlid = d0 + k;
		int nhop = 0;
		int res = ibf_trace_port(f, &m, &r, src.node, src.port, dlid, hop, maxhop, &nhop);
		if (res < 0) {
			rc = ibf_error_set(&err, res, NULL, 0, "out of memory");
			break;
		}
		if (nhop > maxhop) /* cannot happen: a walk stores at most nsw + 2 */
			nhop = maxhop;
		if (!nhop) { /* the source itself is not a port of a node */
			rc = ibf_error_set(&err, IBF_EINVAL, NULL, 0, "nothing to trace");
			break;
		}
		char verdict[512];
		trace_verdict(f, &m, &r, dlid, res, hop, nhop, verdict, sizeof(verdict));
		uint16_t mask;
		int sl = trace_pick_sl(f, &q, &src, dlid, &mask);
		uint32_t layer = dlid - base;
		if (a.json)
			trace_print_json(f, &q, hop, nhop, sl, dlid, layer, res, verdict, k == 0);
		else
			trace_print_text(f, &q, hop, nhop, sl, mask, dlid, layer, res, verdict);
		broken += res != IBF_TRACE_OK;
	}
	if (!rc && a.json)
		printf("], \"ok\": %s}\n", broken ? "false" : "true");
out:
	free(hop);
	ibf_sl_table_free(&slt);
	ibf_sl2vl_table_free(&s2v);
	ibf_routes_free(&r);
	ibf_lidmap_free(&m);
	ibf_fabric_free(f);
	if (usage)
		return usage;
	if (rc)
		return cli_fail(&err);
	return broken ? 1 : 0;
}

int cmd_route(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_route_check(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "stats"))
		return cmd_route_stats(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "congestion"))
		return cmd_route_congestion(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "diff"))
		return cmd_route_diff(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "trace"))
		return cmd_route_trace(argc - 1, argv + 1);
	return cmd_route_main(argc, argv);
}
