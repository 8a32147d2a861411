/* ibfab: command-line entry point and shared helpers. */
#include "cli.h"
#include "ibf_conf.h"
#include "ibf_fattree.h"
#include "ibf_live.h"
#include "ibf_routing.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_fail(const struct ibf_error *err)
{
	char buf[IBF_ERR_MSG_MAX + IBF_ERR_FILE_MAX + 32];
	fprintf(stderr, "ibfab: %s\n", ibf_error_format(err, buf, sizeof(buf)));
	return 1;
}

/* Two names of one file: the same text, the same existing file ("./x" and
 * "x", a link), or, for files not there yet, the same name in the same
 * directory. */
int cli_same_file(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return 1;
	struct stat sa, sb;
	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	const char *sla = strrchr(a, '/'), *slb = strrchr(b, '/');
	if (strcmp(sla ? sla + 1 : a, slb ? slb + 1 : b))
		return 0;
	char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	/* the directory: "." without a slash, "/" for "/x" */
	snprintf(da, sizeof(da), "%.*s", sla ? (int)(sla - a) + (sla == a) : 1, sla ? a : ".");
	snprintf(db, sizeof(db), "%.*s", slb ? (int)(slb - b) + (slb == b) : 1, slb ? b : ".");
	return realpath(da, ra) && realpath(db, rb) && !strcmp(ra, rb);
}

long cli_byte_unit(const char *s)
{
	return ibf_byte_unit(s);
}

int cli_outs_add(struct cli_outs *o, const char *path, FILE **fp, struct ibf_error *err)
{
	*fp = NULL;
	if (!path)
		return 0;
	if (o->n >= CLI_OUTS_MAX) {
		cli_outs_finish(o, 0, NULL);
		return ibf_error_set(err, IBF_EINVAL, path, 0, "too many output files");
	}
	/* two outputs on stdout would be interleaved into one stream */
	for (int i = 0; i < o->n; i++)
		if (o->path[i] && !strcmp(path, "-") && !strcmp(o->path[i], "-")) {
			cli_outs_finish(o, 0, NULL);
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "'-' (stdout) given for two outputs of this command");
		}
	/* two outputs into one file: the second would silently replace the
	 * first (stdout "-" and devices are written in place, in order) */
	for (int i = 0; i < o->n; i++)
		if (o->path[i] && strcmp(path, "-") != 0 && strcmp(o->path[i], "-") != 0 &&
		    !o->at[i].direct && cli_same_file(o->path[i], path)) {
			cli_outs_finish(o, 0, NULL);
			return ibf_error_set(err, IBF_EINVAL, path, 0,
					     "given for two outputs of this command");
		}
	int rc = ibf_atomic_open(&o->at[o->n], path, err);
	if (rc) {
		cli_outs_finish(o, 0, NULL);
		return rc;
	}
	o->path[o->n] = path;
	*fp = o->at[o->n++].fp;
	return 0;
}

int cli_outs_finish(struct cli_outs *o, int ok, struct ibf_error *err)
{
	int rc = 0;
	/* a stream error anywhere (flushed first, so a full disk shows here and
	 * not after some files were renamed): drop them all */
	for (int i = 0; ok && i < o->n; i++)
		if ((fflush(o->at[i].fp) != 0) | ferror(o->at[i].fp)) {
			rc = ibf_error_set(err, IBF_EIO, o->at[i].path ? o->at[i].path : "-", 0,
					   "write error");
			ok = 0;
		}
	for (int i = 0; i < o->n; i++) {
		int r = ibf_atomic_commit(&o->at[i], ok, rc ? NULL : err);
		if (r && ok) {
			rc = r;
			ok = 0;
		}
	}
	o->n = 0;
	return rc;
}

uint32_t cli_lfts_missing(const struct ibf_fabric *f, const struct ibf_routes *r, uint32_t *first)
{
	uint32_t missing = 0;
	*first = 0;
	for (uint32_t s = 0; s < f->nsw && s < r->nsw; s++) {
		const uint8_t *row = r->lft + (size_t)s * r->stride;
		uint32_t d = 1;
		while (d < r->stride && row[d] == IBF_LFT_NONE)
			d++;
		if (d < r->stride)
			continue;
		/* the example: the first such switch in canonical order, not
		 * the first in the fabric file */
		if (!missing++ ||
		    ibf_node_cmp(f, f->switches[s], f->switches[*first]) < 0)
			*first = s;
	}
	return missing;
}

int cli_check_roots(const struct ibf_fabric *f, const char *engine, const char *path,
		    const uint64_t *roots, uint32_t n, struct ibf_error *err)
{
	int rc = ibf_ftree_check_guids(f, path, "root GUID", roots, n, 0, err);
	if (!rc && !strcmp(engine, "dmodk")) {
		char msg[4096];
		if (ibf_ftree_check_roots(f, path, roots, n, 1, msg, sizeof(msg)))
			fprintf(stderr, "%s", msg);
	}
	return rc;
}

int cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return 2;
}

int cli_int(const char *opt, const char *val, long lo, long hi, long *out)
{
	if (!val) {
		fprintf(stderr, "ibfab: option %s needs a value\n", opt);
		return -1;
	}
	long v;
	if (ibf_num_long(val, strlen(val), lo, hi, &v)) {
		fprintf(stderr, "ibfab: option %s: '%s' is not an integer in %ld..%ld\n", opt, val,
			lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

long cli_online_cpus(long max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > max ? max : n;
}

int cli_threads(const char *prog, const char *val, long max, long *out)
{
	struct ibf_conf c;
	struct ibf_error err;
	ibf_conf_default(&c);
	ibf_error_clear(&err);
	if (ibf_conf_set(&c, "threads", val, "--threads", &err))
		return cli_usage_error(prog, "--threads: %s", err.msg);
	if (c.threads > max)
		return cli_usage_error(prog, "--threads: at most %ld here, got %s", max, val);
	if (c.threads > 0) {
		*out = c.threads;
		return 0;
	}
	/* say what "auto" became: the output never depends on it */
	*out = cli_online_cpus(max);
	fprintf(stderr, "%s: --threads %s: %ld thread(s), one per online CPU (at most %ld)\n",
		prog, val, *out, max);
	return 0;
}

void cli_log(void *ctx, int level, const char *msg)
{
	int info = ctx ? *(int *)ctx : 0;
	if (level <= IBF_LOG_ERROR || (info && level <= IBF_LOG_INFO))
		fprintf(stderr, "ibfab: %s\n", msg);
}

int cli_input_format(const char *prog, const char *val, int *fmt)
{
	int f = ibf_format_from_name(val);
	if (f < 0 || f == IBF_FMT_JSON)
		return cli_usage_error(prog, "unknown input format '%s'", val);
	*fmt = f;
	return 0;
}

int cli_output_format(const char *prog, const char *val, int *fmt)
{
	int f = ibf_format_from_name(val);
	if (f != IBF_FMT_IBNETDISCOVER && f != IBF_FMT_IBSIM && f != IBF_FMT_JSON)
		return cli_usage_error(prog, "--format must be ibnetdiscover, ibsim or json");
	*fmt = f;
	return 0;
}

long cli_meta_long(const struct ibf_fabric *f, const char *key, long def)
{
	char buf[32];
	if (!ibf_fabric_get_meta(f, key, buf, sizeof(buf)))
		return def;
	return strtol(buf, NULL, 10);
}

/* One warning per file (a command may read one file twice, e.g. as the
 * fabric and as the healthy fabric) when the reader found links seen from
 * one side only: a port naming a peer that does not name it back, or a
 * peer the file has no record of.  ibnetdiscover output has no end mark,
 * so a dump cut short at a line end reads without an error; say so on
 * stderr whatever the command, and go on (the exit status is unchanged). */
static void warn_one_sided(const struct ibf_fabric *f, const char *path)
{
	static char warned[8][256];
	static int nwarned;
	long n = cli_meta_long(f, "one_sided", 0);
	if (n <= 0)
		return;
	for (int i = 0; i < nwarned; i++)
		if (!strncmp(warned[i], path, sizeof(warned[i]) - 1))
			return;
	if (nwarned < 8)
		snprintf(warned[nwarned++], sizeof(warned[0]), "%s", path);
	long line = cli_meta_long(f, "one_sided_line", 0);
	long node = cli_meta_long(f, "one_sided_node", -1);
	long port = cli_meta_long(f, "one_sided_port", 0);
	char where[64] = "";
	if (line > 0)
		snprintf(where, sizeof(where), ":%ld", line);
	char ex[600] = "";
	if (node >= 0 && (uint32_t)node < f->nnodes && port >= 1 &&
	    port <= f->nodes[node].nports) {
		const struct ibf_port *pp = ibf_port(f, (int)node, (int)port);
		if (pp->peer_node != IBF_NO_NODE) {
			char a[160], b[160];
			int described = 1;
			described = cli_meta_long(f, "one_sided_peer_described", 1) != 0;
			snprintf(ex, sizeof(ex), ", e.g. '%s' port %ld names '%s' port %u as its peer, %s",
				 ibf_node_label(f, (int)node, a, sizeof(a)), port,
				 ibf_node_label(f, pp->peer_node, b, sizeof(b)),
				 (unsigned)pp->peer_port,
				 described ? "whose own lines do not name it back"
					   : "a node no line of the file describes (its record "
					     "is missing)");
		}
	}
	/* a device split off a shared GUID has no record of its own either */
	char dbuf[32];
	int dup = ibf_fabric_get_meta(f, "duplicate_guid_nodes", dbuf, sizeof(dbuf));
	fprintf(stderr,
		"ibfab: warning: %s%s: %ld link%s seen from one side only%s: the file may be "
		"truncated, or taken while the fabric changed%s\n",
		path, where, n, n == 1 ? "" : "s", ex,
		dup ? ", or two devices share a GUID (ibfab topo info lists them)" : "");
}

int cli_lfts_read(const struct ibf_fabric *f, const char *path, struct ibf_routes *r,
		  struct ibf_error *err)
{
	int rc = ibf_lfts_read(f, path, r, err);
	if (!rc && r->unread_lid)
		fprintf(stderr,
			"ibfab: note: %s: LID %u has no entry in any table: it is the switches' "
			"top LID and a multiple of 64, and ibroute/dump_lfts (infiniband-diags) "
			"do not read the forwarding-table block that holds it, so the switches "
			"may route it all the same (ibtracert shows the path; OpenSM's "
			"opensm-lfts.dump lists it)\n",
			path, r->unread_lid);
	return rc;
}

struct ibf_fabric *cli_read_fabric(const char *path, int fmt, struct ibf_error *err)
{
	if (strncmp(path, "live:", 5)) {
		struct ibf_fabric *f = ibf_fabric_read(path, fmt, err);
		if (f)
			warn_one_sided(f, path);
		return f;
	}
	/* live:[CA[:PORT]] */
	char ca[128] = "";
	long port = 0;
	const char *p = path + 5, *colon = strchr(p, ':');
	size_t n = colon ? (size_t)(colon - p) : strlen(p);
	if (n >= sizeof(ca)) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "HCA name too long in '%s'", path);
		return NULL;
	}
	memcpy(ca, p, n);
	ca[n] = 0;
	if (colon) {
		char *end;
		port = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || port < 0 || port > 254) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0, "bad port in '%s' (live:CA:PORT)",
				      path);
			return NULL;
		}
	}
	return ibf_fabric_discover(ca[0] ? ca : NULL, (int)port, err);
}

/* --live [--ca NAME] [--ca-port N] on any command that reads a fabric becomes
 * the fabric argument "live:NAME:N": --topology for route, deadlock, sim and
 * rail registry, the FILE operand for topo, the other rail commands and
 * cabling from-topology (validate has its own --live; the other cabling
 * commands read no fabric and refuse --live themselves).  argv is rewritten
 * in place into a new vector. */
static char **rewrite_live(int *argc, char **argv)
{
	if (*argc < 2 || !strcmp(argv[1], "validate"))
		return argv;
	int from_topo =
		!strcmp(argv[1], "cabling") && *argc >= 3 && !strcmp(argv[2], "from-topology");
	if (!strcmp(argv[1], "cabling") && !from_topo)
		return argv;
	int live = 0;
	const char *ca = "", *port = NULL;
	for (int i = 2; i < *argc; i++) {
		if (!strcmp(argv[i], "--live"))
			live = 1;
		else if (!strcmp(argv[i], "--ca") && i + 1 < *argc)
			ca = argv[++i];
		else if (!strcmp(argv[i], "--ca-port") && i + 1 < *argc)
			port = argv[++i];
	}
	if (!live)
		return argv;
	static char spec[300];
	snprintf(spec, sizeof(spec), "live:%s%s%s", ca, port ? ":" : "", port ? port : "");
	char **nv = calloc((size_t)*argc + 3, sizeof(char *));
	if (!nv)
		return argv;
	int k = 0;
	for (int i = 0; i < *argc; i++) {
		if (i >= 2 && !strcmp(argv[i], "--live"))
			continue;
		if (i >= 2 && (!strcmp(argv[i], "--ca") || !strcmp(argv[i], "--ca-port")) &&
		    i + 1 < *argc) {
			i++;
			continue;
		}
		nv[k++] = argv[i];
	}
	/* rail registry names its fabric with --topology, the other rail
	 * commands with their FILE operand */
	int rail_reg = !strcmp(argv[1], "rail") && *argc >= 3 && !strcmp(argv[2], "registry");
	int positional =
		!strcmp(argv[1], "topo") || (!strcmp(argv[1], "rail") && !rail_reg) || from_topo;
	if (!positional)
		nv[k++] = "--topology";
	nv[k++] = spec;
	nv[k] = NULL;
	*argc = k;
	return nv;
}

int cli_dispatch(const char *prefix, const struct ibf_cmd *cmds, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		FILE *out = argc < 2 ? stderr : stdout;
		fprintf(out, "Usage: %s <command> [options]\n\nCommands:\n", prefix);
		for (const struct ibf_cmd *c = cmds; c->name; c++)
			fprintf(out, "  %-12s %s\n", c->name, c->summary);
		fprintf(out, "\nRun '%s <command> --help' for a command's options.\n", prefix);
		if (!strchr(prefix, ' ')) /* the top level: ibfab --version */
			fprintf(out, "Run '%s --version' for the version.\n", prefix);
		return argc < 2 ? 2 : 0;
	}
	for (const struct ibf_cmd *c = cmds; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\nTry '%s --help'.\n", prefix, argv[1], prefix);
	return 2;
}

static const struct ibf_cmd top_cmds[] = {
	{ "topo", cmd_topo, "generate, inspect and convert fabric descriptions" },
	{ "route", cmd_route, "compute, check and measure forwarding tables offline" },
	{ "deadlock", cmd_deadlock, "deadlock freedom: SL/VL schemes and an independent verifier" },
	{ "cabling", cmd_cabling, "cable plans (Slim Fly racks, any fabric) and wiring sheets" },
	{ "validate", cmd_validate, "check a discovered fabric against a cable plan" },
	{ "rail", cmd_rail, "rail structure of GPU fabrics (domains, rails, spines)" },
	{ "sim", cmd_sim, "offline simulator: traffic patterns over forwarding tables" },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("ibfab %s\n", PACKAGE_VERSION);
		return 0;
	}
	/* IBFAB_THREADS: worker threads of route check / stats (the library
	 * reads no environment) */
	const char *t = getenv("IBFAB_THREADS");
	if (t && *t) {
		long n;
		if (ibf_num_long(t, strlen(t), 0, 64, &n)) {
			fprintf(stderr,
				"ibfab: IBFAB_THREADS='%s': want a whole number from 0 (by the "
				"amount of work) to 64\n",
				t);
			return 2;
		}
		ibf_set_walk_threads((int)n);
	}
	char **av = rewrite_live(&argc, argv);
	int rc = cli_dispatch("ibfab", top_cmds, argc, av);
	if (av != argv)
		free(av);
	return rc;
}
