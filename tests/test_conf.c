/* Unit tests for the ibfab.conf parser (conf/conf.c). */
#include "ibf_conf.h"
#include "tt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *text, struct ibf_conf *c, struct ibf_error *err)
{
	ibf_conf_default(c);
	ibf_error_clear(err);
	return ibf_conf_parse(text, strlen(text), "t.conf", c, err);
}

static void defaults(void)
{
	struct ibf_conf c;
	struct ibf_route_opts o, d;
	char buf[512];

	ibf_conf_default(&c);
	ibf_route_opts_default(&d);
	TT_EQ_INT(c.min_len.base, d.min_len.base);
	TT_EQ_INT(c.min_len.value, d.min_len.value);
	TT_EQ_INT(c.max_len.base, d.max_len.base);
	TT_EQ_INT(c.max_len.value, d.max_len.value);
	TT_EQ_INT(c.min_len.base, IBF_WIN_DIST);
	TT_EQ_INT(c.max_len.base, IBF_WIN_DIAM);
	TT_EQ_INT(c.deadlock, IBF_DEADLOCK_NONE);
	TT_EQ_INT(c.threads, 1);
	TT_EQ_INT(c.log_level, IBF_LOG_INFO);
	TT_EQ_INT(ibf_conf_check(&c, NULL), 0);

	ibf_conf_to_route_opts(&c, &o);
	TT_EQ_INT(o.threads, 1);
	TT_EQ_INT(o.seed, 0);
	TT_EQ_INT(o.min_len.base, IBF_WIN_DIST);
	TT_EQ_INT(o.max_len.value, 1);
	TT_EQ_INT(o.layers, 0);

	ibf_conf_format(&c, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, "min_path_len dist+1") != NULL, "%s", buf);
	TT_CHECK_MSG(strstr(buf, "max_path_len diameter+1") != NULL, "%s", buf);
	TT_CHECK_MSG(strstr(buf, "deadlock none") != NULL, "%s", buf);
	TT_CHECK_MSG(strstr(buf, "max_paths_per_layer unlimited") != NULL, "%s", buf);
}

static void all_keys(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	const char *text = "# ibfab.conf\n"
			   "\n"
			   "   # indented comment\n"
			   "min_path_len 2\n"
			   "max_path_len\tdiameter+2   # trailing comment\n"
			   "max_paths_per_layer 5000\r\n"
			   "seed 0x1f\n"
			   "threads 4\n"
			   "deadlock none\n"
			   "max_vls 8\n"
			   "best_effort TRUE\n"
			   "log_level debug\n";
	TT_EQ_INT(parse(text, &c, &err), 0);
	TT_EQ_INT(c.min_len.base, IBF_WIN_ABS);
	TT_EQ_INT(c.min_len.value, 2);
	TT_EQ_INT(c.max_len.base, IBF_WIN_DIAM);
	TT_EQ_INT(c.max_len.value, 2);
	TT_EQ_INT(c.max_paths_per_layer, 5000);
	TT_EQ_INT(c.seed, 31);
	TT_EQ_INT(c.threads, 4);
	TT_EQ_INT(c.max_vls, 8);
	TT_EQ_INT(c.best_effort, 1);
	TT_EQ_INT(c.log_level, IBF_LOG_DEBUG);
	TT_EQ_INT(c.lines, 9);

	struct ibf_route_opts o;
	ibf_conf_to_route_opts(&c, &o);
	TT_EQ_INT(o.seed, 31);
	TT_EQ_INT(o.threads, 4);
	TT_EQ_INT(o.max_paths_per_layer, 5000);
	TT_EQ_INT(o.min_len.base, IBF_WIN_ABS);
	TT_EQ_INT(o.max_len.base, IBF_WIN_DIAM);

	char buf[512];
	ibf_conf_format(&c, buf, sizeof(buf));
	TT_CHECK_MSG(!strcmp(buf, "min_path_len 2, max_path_len diameter+2, max_paths_per_layer "
				  "5000, seed 31, threads 4, deadlock none, max_vls 8, "
				  "best_effort TRUE, log_level debug, stable_reroute TRUE"),
		     "%s", buf);
	TT_EQ_INT(o.layer0_balance, IBF_L0_BASE);
	struct ibf_conf c2;
	TT_EQ_INT(parse("stable_reroute FALSE\n", &c2, &err), 0);
	TT_EQ_INT(c2.stable_reroute, 0);
	/* layer0_balance: base (the default) or all; shown only when all */
	TT_EQ_INT(parse("layer0_balance all\n", &c2, &err), 0);
	TT_EQ_INT(c2.layer0_balance, IBF_L0_ALL);
	ibf_conf_to_route_opts(&c2, &o);
	TT_EQ_INT(o.layer0_balance, IBF_L0_ALL);
	ibf_conf_format(&c2, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, ", layer0_balance all") != NULL, "%s", buf);
	TT_EQ_INT(parse("layer0_balance base\n", &c2, &err), 0);
	TT_EQ_INT(c2.layer0_balance, IBF_L0_BASE);
	TT_EQ_INT(c.stable_reroute, 1); /* the default */
	TT_CHECK(parse("stable_reroute maybe\n", &c2, &err) == IBF_EPARSE);
	TT_CHECK_MSG(strstr(err.msg, "TRUE, FALSE, failures or keep") != NULL, "%s", err.msg);
	/* failures: stable after losses only (a keyword: any case) */
	TT_EQ_INT(parse("stable_reroute Failures\n", &c2, &err), 0);
	TT_EQ_INT(c2.stable_reroute, IBF_STABLE_FAILURES);
	ibf_conf_format(&c2, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, "stable_reroute failures") != NULL, "%s", buf);
	TT_CHECK(parse("stable_reroute failure\n", &c2, &err) == IBF_EPARSE);
	/* keep: every working column stays, also when something came back */
	TT_EQ_INT(parse("stable_reroute KEEP\n", &c2, &err), 0);
	TT_EQ_INT(c2.stable_reroute, IBF_STABLE_KEEP);
	ibf_conf_format(&c2, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, "stable_reroute keep") != NULL, "%s", buf);
	/* stable_state_dir: off by default, a directory, 'none' */
	TT_CHECK(c.stable_state_dir[0] == '\0');
	TT_CHECK(strstr(buf, "stable_state_dir") == NULL);
	TT_EQ_INT(parse("stable_state_dir /var/cache/opensm/ibfab\n", &c2, &err), 0);
	TT_CHECK(!strcmp(c2.stable_state_dir, "/var/cache/opensm/ibfab"));
	ibf_conf_format(&c2, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, ", stable_state_dir /var/cache/opensm/ibfab") != NULL, "%s", buf);
	TT_EQ_INT(parse("stable_state_dir none\n", &c2, &err), 0);
	TT_CHECK(c2.stable_state_dir[0] == '\0');
}

static void window_forms(void)
{
	static const struct {
		const char *v;
		int base, value;
	} cases[] = {
		{ "3", IBF_WIN_ABS, 3 },	   { "+1", IBF_WIN_DIST, 1 },
		{ "-1", IBF_WIN_DIST, -1 },	   { "dist", IBF_WIN_DIST, 0 },
		{ "dist+1", IBF_WIN_DIST, 1 },	   { "DIST+2", IBF_WIN_DIST, 2 },
		{ "distance+1", IBF_WIN_DIST, 1 }, { "diameter", IBF_WIN_DIAM, 0 },
		{ "diameter+1", IBF_WIN_DIAM, 1 }, { "diam-1", IBF_WIN_DIAM, -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[64];
		struct ibf_conf c;
		struct ibf_error err;
		/* an absolute min_path_len is never compared with a relative max */
		snprintf(text, sizeof(text), "min_path_len 1\nmax_path_len %s\n", cases[i].v);
		TT_EQ_INT(parse(text, &c, &err), 0);
		TT_CHECK_MSG(c.max_len.base == cases[i].base && c.max_len.value == cases[i].value,
			     "%s -> %d/%d", cases[i].v, c.max_len.base, c.max_len.value);
		/* round trip through the formatter */
		char f[32], again[64];
		ibf_win_bound_format(&c.max_len, f, sizeof(f));
		snprintf(again, sizeof(again), "min_path_len 1\nmax_path_len %s", f);
		struct ibf_conf c2;
		TT_EQ_INT(parse(again, &c2, &err), 0);
		TT_CHECK(c2.max_len.base == c.max_len.base && c2.max_len.value == c.max_len.value);
	}
	static const char *const bad[] = { "0",		"64", "x",   "dist+",	 "dist1",
					   "diameterx", "+",  "3.5", "dist+100", "2hops" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[64];
		struct ibf_conf c;
		struct ibf_error err;
		snprintf(text, sizeof(text), "min_path_len %s\n", bad[i]);
		int rc = parse(text, &c, &err);
		TT_CHECK_MSG(rc == IBF_EPARSE, "'%s' accepted (rc %d)", bad[i], rc);
		TT_EQ_INT(err.line, 1);
	}
}

static void spcl_keys(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	TT_EQ_INT(parse("lnmp_max_num_paths 100000\nlnmp_min_path_len 2\nlnmp_max_path_len 3\n"
			"dfsssp_max_vls 4\ndfsssp_best_effort FALSE\n",
			&c, &err),
		  0);
	TT_EQ_INT(c.max_paths_per_layer, 100000);
	TT_EQ_INT(c.min_len.base, IBF_WIN_ABS);
	TT_EQ_INT(c.min_len.value, 2);
	TT_EQ_INT(c.max_len.base, IBF_WIN_ABS);
	TT_EQ_INT(c.max_len.value, 3);
	TT_EQ_INT(c.max_vls, 4);
	TT_EQ_INT(c.best_effort, 0);

	/* the SPCL fork's window is absolute only */
	TT_EQ_INT(parse("lnmp_max_path_len dist+1\n", &c, &err), IBF_EPARSE);

	/* layers_remove_deadlocks maps to the deadlock scheme (deadlock/) */
	TT_EQ_INT(parse("seed 1\nlayers_remove_deadlocks TRUE\n", &c, &err), 0);
	TT_EQ_INT(c.deadlock, IBF_DEADLOCK_DFSSSP);
	TT_EQ_INT(c.seed, 1);
	TT_EQ_INT(c.deadlock_line, 2);
	TT_EQ_INT(parse("layers_remove_deadlocks FALSE\n", &c, &err), 0);
	TT_EQ_INT(c.deadlock, IBF_DEADLOCK_COLORING);
}

static void deadlock_unsupported(void)
{
	static const char *const schemes[] = { "dfsssp", "coloring", "auto" };
	for (int i = 0; i < 3; i++) {
		struct ibf_conf c;
		struct ibf_error err;
		char text[64], msg[600];
		snprintf(text, sizeof(text), "threads 2\n\ndeadlock %s\n", schemes[i]);
		/* the schemes exist now (deadlock/): accepted */
		TT_EQ_INT(parse(text, &c, &err), 0);
		TT_EQ_INT(c.deadlock, i + 1);
		TT_EQ_INT(c.threads, 2);
		TT_EQ_INT(c.deadlock_line, 3);
		(void)msg;
	}
	struct ibf_conf c;
	struct ibf_error err;
	TT_EQ_INT(parse("deadlock banana\n", &c, &err), IBF_EPARSE);
	/* the last setting wins: back to none is fine */
	TT_EQ_INT(parse("deadlock dfsssp\ndeadlock none\n", &c, &err), 0);
}

static void errors(void)
{
	static const struct {
		const char *text;
		int code;
		long line;
		const char *msg;
	} cases[] = {
		{ "seed 1\nbogus 3\n", IBF_EPARSE, 2, "t.conf:2: unknown key 'bogus'" },
		{ "\n\nthreads\n", IBF_EPARSE, 3, "t.conf:3: missing value for 'threads'" },
		{ "threads 4 5\n", IBF_EPARSE, 1, "unexpected text" },
		{ "threads -1\n", IBF_EPARSE, 1, "bad value '-1' for 'threads'" },
		{ "threads 99999\n", IBF_EPARSE, 1, "bad value" },
		{ "seed -5\n", IBF_EPARSE, 1, "bad value" },
		{ "seed 0xg\n", IBF_EPARSE, 1, "bad value" },
		{ "seed 99999999999999999999999\n", IBF_EPARSE, 1, "bad value" },
		{ "max_vls 16\n", IBF_EPARSE, 1, "bad value" },
		{ "best_effort maybe\n", IBF_EPARSE, 1, "bad value" },
		{ "log_level 4\n", IBF_EPARSE, 1, "bad value" },
		{ "max_paths_per_layer -3\n", IBF_EPARSE, 1, "bad value" },
		{ "layer0_balance most\n", IBF_EPARSE, 1, "bad value" },
		{ "Seed 1\n", IBF_EPARSE, 1, "unknown key 'Seed'" },
		/* a window conflict is reported at the later of the two lines */
		{ "min_path_len 5\nmax_path_len 3\n", IBF_EINVAL, 2,
		  "t.conf:2: min_path_len 5 is above max_path_len 3" },
		{ "max_path_len +2\n\nseed 1\nmin_path_len dist+3\nseed 2\n", IBF_EINVAL, 4,
		  "t.conf:4: min_path_len dist+3 is above" },
		{ "lnmp_max_path_len 2\nlnmp_min_path_len 3\n", IBF_EINVAL, 2, "t.conf:2: " },
		{ "max_path_len dist-5\n", IBF_EINVAL, 1, "t.conf:1: min_path_len dist+1 is above" },
		{ "seed 1\nrail_avoid_below 70\n", IBF_EINVAL, 2,
		  "t.conf:2: rail_avoid_above 60 must be above rail_avoid_below 70" },
		/* a byte order mark is skipped, but only at the start of the file */
		{ "\xef\xbb\xbfseed 1\nbogus 2\n", IBF_EPARSE, 2, "t.conf:2: unknown key 'bogus'" },
		{ "seed 1\n\xef\xbb\xbfseed 2\n", IBF_EPARSE, 2, "t.conf:2: unknown key" },
		{ "seed=1\n", IBF_EPARSE, 1, "unknown key 'seed=1'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibf_conf c;
		struct ibf_error err;
		char msg[600];
		int rc = parse(cases[i].text, &c, &err);
		ibf_error_format(&err, msg, sizeof(msg));
		TT_CHECK_MSG(rc == cases[i].code, "case %zu: rc %d: %s", i, rc, msg);
		TT_CHECK_MSG(err.line == cases[i].line, "case %zu: line %ld", i, err.line);
		TT_CHECK_MSG(strstr(msg, cases[i].msg) != NULL, "case %zu: '%s'", i, msg);
	}
	/* different bases cannot be compared statically: accepted */
	struct ibf_conf c;
	struct ibf_error err;
	/* a UTF-8 byte order mark, CRLF line ends and no final newline */
	TT_EQ_INT(parse("\xef\xbb\xbfseed 7\r\nthreads 3", &c, &err), 0);
	TT_EQ_INT(c.seed, 7);
	TT_EQ_INT(c.threads, 3);
	TT_EQ_INT(c.lines, 2);
	TT_EQ_INT(parse("\xef\xbb\xbf", &c, &err), 0);
	TT_EQ_INT(c.lines, 0);
	TT_EQ_INT(parse("min_path_len 9\nmax_path_len dist+1\n", &c, &err), 0);
	/* keywords and booleans are case-insensitive, keys are not */
	TT_EQ_INT(parse("best_effort yes\nlog_level ERROR\nthreads auto\n"
			"max_paths_per_layer unlimited\n",
			&c, &err),
		  0);
	TT_EQ_INT(c.best_effort, 1);
	TT_EQ_INT(c.log_level, IBF_LOG_ERROR);
	TT_EQ_INT(c.threads, 0);
	struct ibf_route_opts o;
	ibf_conf_to_route_opts(&c, &o);
	TT_CHECK(o.threads >= 1);
	/* garbage never crashes, no terminating newline is fine */
	TT_EQ_INT(parse("seed 5", &c, &err), 0);
	TT_EQ_INT(c.seed, 5);
	TT_EQ_INT(ibf_conf_parse("seed 1\0x", 8, "t", &c, &err), IBF_EPARSE);
	TT_EQ_INT(parse("", &c, &err), 0);
	TT_EQ_INT(c.lines, 0);
}

static void files(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	char path[] = "/tmp/ibfab-test-conf-XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	TT_REQUIRE(fp != NULL);
	fputs("# test\nseed 42\nmax_path_len 4\nbad_key 1\n", fp);
	fclose(fp);

	ibf_conf_default(&c);
	TT_EQ_INT(ibf_conf_read(path, &c, &err), IBF_EPARSE);
	char msg[800], want[600];
	ibf_error_format(&err, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s:4: unknown key 'bad_key'", path);
	TT_CHECK_MSG(!strcmp(msg, want), "%s", msg);

	fp = fopen(path, "w");
	TT_REQUIRE(fp != NULL);
	fputs("seed 42\nmax_path_len 4\n", fp);
	fclose(fp);
	ibf_conf_default(&c);
	TT_EQ_INT(ibf_conf_read(path, &c, &err), 0);
	TT_EQ_INT(c.seed, 42);
	TT_EQ_INT(c.max_len.value, 4);
	TT_CHECK(!strcmp(c.source, path));
	unlink(path);

	ibf_conf_default(&c);
	TT_EQ_INT(ibf_conf_read(path, &c, &err), IBF_EIO);
	ibf_error_format(&err, msg, sizeof(msg));
	TT_CHECK_MSG(strstr(msg, "cannot open") != NULL, "%s", msg);
	TT_EQ_INT(ibf_conf_read(NULL, &c, &err), IBF_EINVAL);
}

/* contrib/ibfab.conf.example parses and spells out the defaults */
static void example_file(void)
{
	const char *src = getenv("top_srcdir");
	char path[1024];
	snprintf(path, sizeof(path), "%s/contrib/ibfab.conf.example", src ? src : "..");
	if (access(path, R_OK)) {
		printf("# %s not found, skipped\n", path);
		return;
	}
	struct ibf_conf c, d;
	struct ibf_error err;
	char msg[800], a[512], b[512];
	ibf_conf_default(&c);
	ibf_conf_default(&d);
	int rc = ibf_conf_read(path, &c, &err);
	TT_CHECK_MSG(rc == 0, "%s", ibf_error_format(&err, msg, sizeof(msg)));
	TT_CHECK(c.lines > 5);
	ibf_conf_format(&c, a, sizeof(a));
	ibf_conf_format(&d, b, sizeof(b));
	TT_CHECK_MSG(!strcmp(a, b), "example: %s\n# defaults: %s", a, b);
}

/* the command line's settings go through the same parser */
static void set_one(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	char buf[IBF_ERR_MSG_MAX + 64];
	ibf_conf_default(&c);
	ibf_error_clear(&err);
	TT_EQ_INT(ibf_conf_set(&c, "min_path_len", "diameter+1", "--min-len", &err), 0);
	TT_EQ_INT(c.min_len.base, IBF_WIN_DIAM);
	TT_EQ_INT(c.min_len.value, 1);
	TT_EQ_INT(ibf_conf_set(&c, "seed", "0x10", "--seed", &err), 0);
	TT_EQ_INT(c.seed, 16);
	TT_EQ_INT(ibf_conf_set(&c, "deadlock", "Coloring", "--deadlock", &err), 0);
	TT_EQ_INT(c.deadlock, IBF_DEADLOCK_COLORING);
	/* the same rule as the file: +64 is out of range in both */
	TT_CHECK(ibf_conf_set(&c, "max_path_len", "dist+64", "--max-len", &err) == IBF_EPARSE);
	ibf_error_format(&err, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, "--max-len: bad value 'dist+64' for 'max_path_len'") != NULL, "%s",
		     buf);
	TT_CHECK(ibf_conf_set(&c, "max_path_len", "3 4", "--max-len", &err) == IBF_EPARSE);
	TT_CHECK(ibf_conf_set(&c, "nosuch", "1", "--x", &err) == IBF_EPARSE);
	TT_CHECK(strstr(err.msg, "unknown key") != NULL);
	/* the window check runs after each setting */
	TT_EQ_INT(ibf_conf_set(&c, "max_path_len", "4", "--max-len", &err), 0);
	TT_CHECK(ibf_conf_set(&c, "min_path_len", "5", "--min-len", &err) == IBF_EINVAL);
	/* a '#' inside a value is part of it (a path); first it would read as a comment */
	TT_CHECK(ibf_conf_set(&c, "seed", "#3", "--seed", &err) == IBF_EPARSE);
	TT_CHECK(ibf_conf_set(&c, "seed", "3#x", "--seed", &err) == IBF_EPARSE);
	TT_CHECK(strstr(err.msg, "3#x") != NULL);
}

/* '#' starts a comment at the start of a line or after a blank; inside a
 * value it is part of it: "seed 3#x" is a bad number (it read as seed 3),
 * a path keeps its '#' */
static void hash_in_value(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	ibf_error_clear(&err);
	TT_CHECK(parse("seed 3#x\n", &c, &err) == IBF_EPARSE);
	TT_EQ_INT((int)err.line, 1);
	TT_CHECK(strstr(err.msg, "3#x") != NULL);
	TT_EQ_INT(parse("seed 3 #x\n# all comment\n  # indented comment\nseed 4# \n", &c, &err) ==
			  IBF_EPARSE,
		  1);
	TT_EQ_INT((int)err.line, 4);
	TT_EQ_INT(parse("seed 3 #x\nthreads 2\t# two\n", &c, &err), 0);
	TT_EQ_INT((int)c.seed, 3);
	TT_CHECK(parse("seed #3\n", &c, &err) == IBF_EPARSE);
	TT_CHECK(strstr(err.msg, "seed") != NULL);
	TT_EQ_INT(parse("dmodk_roots /tmp/run#2/roots.txt # the roots\n", &c, &err), 0);
	TT_CHECK_MSG(!strcmp(c.dmodk_roots, "/tmp/run#2/roots.txt"), "%s", c.dmodk_roots);
}

static void dmodk_roots(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	struct ibf_route_opts o;
	uint64_t *roots = (uint64_t *)1;
	char path[64], text[128];
	snprintf(path, sizeof(path), "/tmp/ibf-test-roots.%ld", (long)getpid());
	FILE *fp = fopen(path, "w");
	TT_REQUIRE(fp);
	fputs("# roots\n0x2c90200000010, 0x2c90200000020\n\n3 # decimal\n", fp);
	fclose(fp);
	snprintf(text, sizeof(text), "dmodk_roots %s\n", path);
	TT_EQ_INT(parse(text, &c, &err), 0);
	TT_CHECK(strcmp(c.dmodk_roots, path) == 0);
	TT_EQ_INT(ibf_conf_route_opts(&c, &o, &roots, &err), 0);
	TT_EQ_INT(o.nroots, 3);
	TT_REQUIRE(roots && o.roots == roots);
	TT_CHECK(roots[0] == 0x2c90200000010ull && roots[1] == 0x2c90200000020ull && roots[2] == 3);
	free(roots);
	/* a bad GUID names the file and line */
	fp = fopen(path, "w");
	TT_REQUIRE(fp);
	fputs("0x10\n0xZZ\n", fp);
	fclose(fp);
	TT_CHECK(ibf_conf_route_opts(&c, &o, &roots, &err) == IBF_EPARSE);
	TT_EQ_INT(err.line, 2);
	TT_CHECK(roots == NULL);
	unlink(path);
	TT_CHECK(ibf_conf_route_opts(&c, &o, &roots, &err) == IBF_EIO);
	/* only dmodk reads the roots: a missing file does not stop the others,
	 * and dmodk's error names the key */
	roots = (uint64_t *)1;
	TT_EQ_INT(ibf_conf_engine_opts(&c, "layered", &o, &roots, &err), 0);
	TT_CHECK(roots == NULL && o.roots == NULL && o.nroots == 0);
	ibf_error_clear(&err);
	TT_CHECK(ibf_conf_engine_opts(&c, "dmodk", &o, &roots, &err) == IBF_EIO);
	TT_CHECK_MSG(strstr(err.msg, "(the dmodk_roots file)") != NULL, "%s", err.msg);
	TT_CHECK(roots == NULL);
	/* none: back to the structure */
	TT_EQ_INT(parse("dmodk_roots none\n", &c, &err), 0);
	TT_EQ_INT(ibf_conf_route_opts(&c, &o, &roots, &err), 0);
	TT_CHECK(roots == NULL && o.roots == NULL && o.nroots == 0);
}

static void rail_health_keys(void)
{
	struct ibf_conf c;
	struct ibf_error err;
	char buf[1024], msg[600];
	TT_EQ_INT(parse("", &c, &err), 0);
	TT_CHECK(c.rail_registry[0] == '\0');
	TT_CHECK(c.rail_health_alpha == 0.5 && c.rail_health_wait_weight == 1.0);
	TT_EQ_INT(c.rail_health_percentile, 90);
	ibf_conf_format(&c, buf, sizeof(buf));
	TT_CHECK(!strstr(buf, "rail_"));
	TT_EQ_INT(parse("rail_registry etcd://etcd-0:2379/site/a\n", &c, &err), 0);
	TT_CHECK(!strcmp(c.rail_registry, "etcd://etcd-0:2379/site/a"));
	TT_EQ_INT(parse("rail_registry /var/lib/ibfab/rails.json\n"
			"rail_domain_scores /run/doms.json\nrail_map none\n"
			"rail_health_alpha 0.25\nrail_health_wait_weight 2.5\n"
			"rail_health_min_words 0\nrail_health_percentile 100\n",
			&c, &err),
		  0);
	TT_CHECK(!strcmp(c.rail_registry, "/var/lib/ibfab/rails.json"));
	TT_CHECK(!strcmp(c.rail_domain_scores, "/run/doms.json"));
	TT_CHECK(c.rail_map[0] == '\0');
	TT_CHECK(c.rail_health_alpha == 0.25 && c.rail_health_wait_weight == 2.5);
	TT_CHECK(c.rail_health_min_words == 0);
	TT_EQ_INT(c.rail_health_percentile, 100);
	ibf_conf_format(&c, buf, sizeof(buf));
	TT_CHECK_MSG(strstr(buf, ", rail_registry /var/lib/ibfab/rails.json, rail_domain_scores "
				 "/run/doms.json, rail_map none, rail_health_alpha 0.25, "
				 "rail_health_wait_weight 2.5, rail_health_min_words 0, "
				 "rail_health_percentile 100, rail_avoid_below 0, "
				 "rail_avoid_sweeps 3, rail_avoid_above 60, rail_avoid_max 50"),
		     "%s", buf);
	static const char *const bad[] = {
		"rail_health_alpha 0\n",
		"rail_health_alpha 1.5\n",
		"rail_health_alpha nan\n",
		"rail_health_alpha -0.5\n",
		"rail_health_wait_weight 0\n",
		"rail_health_min_words -1\n",
		"rail_health_percentile 0\n",
		"rail_health_percentile 101\n",
		"rail_health_alpha 0.5x\n",
		/* a bad etcd location was only refused when the plugin opened it */
		"rail_registry etcd://h:+80\n",
		"rail_registry etcd://:2379\n",
		"rail_registry etcd://h:2379x/p\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TT_CHECK_MSG(parse(bad[i], &c, &err) == IBF_EPARSE, "%s", bad[i]);
		ibf_error_format(&err, msg, sizeof(msg));
		TT_CHECK_MSG(strstr(msg, "t.conf:1:") != NULL, "%s", msg);
	}
	TT_EQ_INT(parse("rail_avoid_below 30\nrail_avoid_above 30\n", &c, &err), IBF_EINVAL);
	ibf_error_format(&err, msg, sizeof(msg));
	TT_CHECK_MSG(strstr(msg, "rail_avoid_above 30 must be above") != NULL, "%s", msg);
	TT_EQ_INT(parse("rail_avoid_sweeps 0\n", &c, &err), IBF_EPARSE);
	TT_EQ_INT(
		parse("rail_avoid_below 30\nrail_avoid_sweeps 2\nrail_avoid_above 70\n", &c, &err),
		0);
	TT_EQ_INT(c.rail_avoid_below + c.rail_avoid_sweeps + c.rail_avoid_above, 102);
	TT_EQ_INT(c.rail_avoid_max, 50);
	TT_EQ_INT(parse("rail_avoid_max 101\n", &c, &err), IBF_EPARSE);
	TT_EQ_INT(parse("rail_avoid_max -1\n", &c, &err), IBF_EPARSE);
	TT_EQ_INT(parse("rail_avoid_max 25\n", &c, &err), 0);
	TT_EQ_INT(c.rail_avoid_max, 25);
	TT_EQ_INT(parse("rail_health_alpha 1\n", &c, &err), 0);
	TT_CHECK(c.rail_health_alpha == 1.0);
}

int main(void)
{
	TT(rail_health_keys);
	TT(set_one);
	TT(hash_in_value);
	TT(dmodk_roots);
	TT(defaults);
	TT(all_keys);
	TT(window_forms);
	TT(spcl_keys);
	TT(deadlock_unsupported);
	TT(errors);
	TT(files);
	TT(example_file);
	return tt_done();
}
