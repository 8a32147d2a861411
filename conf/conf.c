/* ibfab.conf parser: OpenSM-style "key value" lines.  See ibf_conf.h. */
#include "ibf_conf.h"
#include "ibf_fattree.h"
#include "ibf_rail.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* hop counts beyond this cannot be traced (IBF_TRACE_MAX) and make no sense */
#define CONF_MAX_HOPS 63
#define CONF_MAX_THREADS 4096
#define CONF_MAX_FILE (16u << 20)

static const char *const log_names[] = { "error", "info", "verbose", "debug" };

void ibf_conf_default(struct ibf_conf *c)
{
	struct ibf_route_opts o;

	memset(c, 0, sizeof(*c));
	ibf_route_opts_default(&o);
	c->min_len = o.min_len;
	c->max_len = o.max_len;
	c->max_paths_per_layer = o.max_paths_per_layer > 0 ? o.max_paths_per_layer : 0;
	c->seed = o.seed;
	c->threads = o.threads >= 1 ? o.threads : 1;
	c->deadlock = IBF_DEADLOCK_NONE;
	c->max_vls = 0;
	c->stable_reroute = 1;
	c->best_effort = 0;
	c->log_level = IBF_LOG_INFO;
	c->rail_health_alpha = 0.5;
	c->rail_health_wait_weight = 1.0;
	c->rail_health_min_words = 65536.0;
	c->rail_health_percentile = 90;
	c->rail_avoid_below = 0;
	c->rail_avoid_sweeps = 3;
	c->rail_avoid_above = 60;
	c->rail_avoid_max = 50;
}

/* ------------------------------------------------------------ values */

/* A value token: [s, s + n), no surrounding blanks, n > 0. */
struct tok {
	const char *s;
	size_t n;
};

static int tok_eq(struct tok t, const char *word)
{
	size_t n = strlen(word);
	return t.n == n && !strncasecmp(t.s, word, n);
}

/* Signed decimal integer in [lo, hi] filling the whole token. */
static int parse_long(struct tok t, long lo, long hi, long *out)
{
	char buf[32];
	if (t.n == 0 || t.n >= sizeof(buf))
		return -1;
	memcpy(buf, t.s, t.n);
	buf[t.n] = '\0';
	const char *p = buf;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	char *end;
	long v = strtol(buf, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A finite decimal number in [lo, hi] filling the whole token (lo_open:
 * lo itself is refused). */
static int parse_double(struct tok t, double lo, int lo_open, double hi, double *out)
{
	char buf[64];
	if (t.n == 0 || t.n >= sizeof(buf))
		return -1;
	memcpy(buf, t.s, t.n);
	buf[t.n] = '\0';
	if (!isdigit((unsigned char)buf[0]) && buf[0] != '.')
		return -1;
	errno = 0;
	char *end;
	double v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v < lo || (lo_open && v == lo) || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A path, or "none" for none. */
static int parse_path(struct tok t, char *out, size_t size)
{
	if (tok_eq(t, "none")) {
		out[0] = '\0';
		return 0;
	}
	if (t.n >= size)
		return -1;
	memcpy(out, t.s, t.n);
	out[t.n] = '\0';
	return 0;
}

/* OpenSM writes TRUE/FALSE; accept the usual spellings too. */
static int parse_bool(struct tok t, int *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (tok_eq(t, yes[i])) {
			*out = 1;
			return 0;
		}
		if (tok_eq(t, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* "3" | "+1" | "-1" | "dist" | "dist+1" | "dist-1" | "diameter" |
 * "diameter+1" | "diam+1" (case-insensitive, no blanks inside). */
static int parse_bound(struct tok t, struct ibf_win_bound *b)
{
	static const struct {
		const char *word;
		int base;
	} words[] = {
		{ "diameter", IBF_WIN_DIAM },
		{ "diam", IBF_WIN_DIAM },
		{ "distance", IBF_WIN_DIST },
		{ "dist", IBF_WIN_DIST },
	};
	long v;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word);
		if (t.n < n || strncasecmp(t.s, words[i].word, n))
			continue;
		struct tok rest = { t.s + n, t.n - n };
		if (rest.n == 0) {
			v = 0;
		} else if (rest.s[0] != '+' && rest.s[0] != '-') {
			continue; /* e.g. "distx": try the other words, then fail */
		} else if (parse_long(rest, -CONF_MAX_HOPS, CONF_MAX_HOPS, &v)) {
			return -1;
		}
		b->base = words[i].base;
		b->value = (int)v;
		return 0;
	}
	if (t.n && (t.s[0] == '+' || t.s[0] == '-')) {
		if (parse_long(t, -CONF_MAX_HOPS, CONF_MAX_HOPS, &v))
			return -1;
		b->base = IBF_WIN_DIST;
		b->value = (int)v;
		return 0;
	}
	if (parse_long(t, 1, CONF_MAX_HOPS, &v))
		return -1;
	b->base = IBF_WIN_ABS;
	b->value = (int)v;
	return 0;
}

static int parse_word(struct tok t, const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++)
		if (tok_eq(t, names[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

/* ------------------------------------------------------------ keys */

enum key_id {
	K_MIN_LEN,
	K_MAX_LEN,
	K_MAX_PATHS,
	K_LAYER0_BALANCE,
	K_SEED,
	K_THREADS,
	K_DEADLOCK,
	K_MAX_VLS,
	K_BEST_EFFORT,
	K_LOG_LEVEL,
	K_LNMP_MAX_NUM_PATHS,
	K_LNMP_MIN_LEN,
	K_LNMP_MAX_LEN,
	K_LAYERS_REMOVE_DEADLOCKS,
	K_DFSSSP_MAX_VLS,
	K_DFSSSP_BEST_EFFORT,
	K_DMODK_ROOTS,
	K_STABLE_REROUTE,
	K_STABLE_STATE_DIR,
	K_RAIL_REGISTRY,
	K_RAIL_DOMAIN_SCORES,
	K_RAIL_MAP,
	K_RAIL_ALPHA,
	K_RAIL_WAIT_WEIGHT,
	K_RAIL_MIN_WORDS,
	K_RAIL_PERCENTILE,
	K_RAIL_AVOID_BELOW,
	K_RAIL_AVOID_SWEEPS,
	K_RAIL_AVOID_ABOVE,
	K_RAIL_AVOID_MAX,
};

static const struct {
	const char *name;
	int id;
	const char *expect; /* for "bad value" messages */
} keys[] = {
	{ "min_path_len", K_MIN_LEN, "hops (e.g. 3), dist+N, +N or diameter+N" },
	{ "max_path_len", K_MAX_LEN, "hops (e.g. 3), dist+N, +N or diameter+N" },
	{ "max_paths_per_layer", K_MAX_PATHS, "a count >= 0 or 'unlimited'" },
	{ "layer0_balance", K_LAYER0_BALANCE, "base or all" },
	{ "seed", K_SEED, "an unsigned integer (decimal or 0x hex)" },
	{ "threads", K_THREADS, "a count 1..4096, or 'auto' or 0 for one per CPU" },
	{ "deadlock", K_DEADLOCK, "none, dfsssp, coloring or auto" },
	{ "max_vls", K_MAX_VLS, "0 (no cap) .. 15" },
	{ "best_effort", K_BEST_EFFORT, "TRUE or FALSE" },
	{ "log_level", K_LOG_LEVEL, "error, info, verbose, debug or 0..3" },
	{ "lnmp_max_num_paths", K_LNMP_MAX_NUM_PATHS, "a count >= 0" },
	{ "lnmp_min_path_len", K_LNMP_MIN_LEN, "hops 1..63" },
	{ "lnmp_max_path_len", K_LNMP_MAX_LEN, "hops 1..63" },
	{ "layers_remove_deadlocks", K_LAYERS_REMOVE_DEADLOCKS, "TRUE or FALSE" },
	{ "dfsssp_max_vls", K_DFSSSP_MAX_VLS, "0 (no cap) .. 15" },
	{ "dfsssp_best_effort", K_DFSSSP_BEST_EFFORT, "TRUE or FALSE" },
	{ "dmodk_roots", K_DMODK_ROOTS, "a file of root switch GUIDs, or 'none'" },
	{ "stable_reroute", K_STABLE_REROUTE, "TRUE, FALSE, failures or keep" },
	{ "stable_state_dir", K_STABLE_STATE_DIR, "a directory, or 'none'" },
	{ "rail_registry", K_RAIL_REGISTRY, "a file path, etcd://HOST:PORT[/PREFIX], or 'none'" },
	{ "rail_domain_scores", K_RAIL_DOMAIN_SCORES, "a file path, or 'none'" },
	{ "rail_map", K_RAIL_MAP, "a rail mapping file, or 'none'" },
	{ "rail_health_alpha", K_RAIL_ALPHA, "a number in (0, 1]" },
	{ "rail_health_wait_weight", K_RAIL_WAIT_WEIGHT, "a number > 0" },
	{ "rail_health_min_words", K_RAIL_MIN_WORDS, "a number >= 0" },
	{ "rail_health_percentile", K_RAIL_PERCENTILE, "1..100" },
	{ "rail_avoid_below", K_RAIL_AVOID_BELOW, "a score 0..100 (0: never)" },
	{ "rail_avoid_sweeps", K_RAIL_AVOID_SWEEPS, "a count 1..1000" },
	{ "rail_avoid_above", K_RAIL_AVOID_ABOVE, "a score 1..100" },
	{ "rail_avoid_max", K_RAIL_AVOID_MAX, "a percentage 0..100" },
};

/* Apply one key; returns 0, or -1 for a bad value. */
static int apply(struct ibf_conf *c, int id, struct tok v, long line)
{
	uint64_t u;
	long l;
	int i;

	switch (id) {
	case K_MIN_LEN:
		if (parse_bound(v, &c->min_len))
			return -1;
		c->min_len_line = line;
		return 0;
	case K_MAX_LEN:
		if (parse_bound(v, &c->max_len))
			return -1;
		c->max_len_line = line;
		return 0;
	case K_LNMP_MIN_LEN:
	case K_LNMP_MAX_LEN:
		if (parse_long(v, 1, CONF_MAX_HOPS, &l))
			return -1;
		if (id == K_LNMP_MIN_LEN) {
			c->min_len = (struct ibf_win_bound){ IBF_WIN_ABS, (int)l };
			c->min_len_line = line;
		} else {
			c->max_len = (struct ibf_win_bound){ IBF_WIN_ABS, (int)l };
			c->max_len_line = line;
		}
		return 0;
	case K_MAX_PATHS:
		if (tok_eq(v, "unlimited") || tok_eq(v, "none")) {
			c->max_paths_per_layer = 0;
			return 0;
		}
		/* fall through */
	case K_LNMP_MAX_NUM_PATHS:
		if (parse_long(v, 0, LONG_MAX, &l) || (v.n && v.s[0] == '+'))
			return -1;
		c->max_paths_per_layer = l;
		return 0;
	case K_LAYER0_BALANCE: {
		static const char *const names[] = { "base", "all" };
		if (parse_word(v, names, 2, &i))
			return -1;
		c->layer0_balance = i ? IBF_L0_ALL : IBF_L0_BASE;
		return 0;
	}
	case K_SEED:
		if (ibf_num_u64(v.s, v.n, &u)) /* decimal or 0x hex */
			return -1;
		c->seed = u;
		return 0;
	case K_THREADS:
		if (tok_eq(v, "auto")) {
			c->threads = 0;
			return 0;
		}
		if (parse_long(v, 0, CONF_MAX_THREADS, &l) || v.s[0] == '+' || v.s[0] == '-')
			return -1;
		c->threads = (int)l;
		return 0;
	case K_DEADLOCK: {
		const char *names[IBF_DEADLOCK_COUNT];
		for (int k = 0; k < IBF_DEADLOCK_COUNT; k++)
			names[k] = ibf_deadlock_name(k);
		if (parse_word(v, names, IBF_DEADLOCK_COUNT, &i))
			return -1;
		c->deadlock = i;
		c->deadlock_line = line;
		return 0;
	}
	case K_LAYERS_REMOVE_DEADLOCKS:
		if (parse_bool(v, &i))
			return -1;
		c->deadlock = i ? IBF_DEADLOCK_DFSSSP : IBF_DEADLOCK_COLORING;
		c->deadlock_line = line;
		return 0;
	case K_MAX_VLS:
	case K_DFSSSP_MAX_VLS:
		if (parse_long(v, 0, 15, &l) || v.s[0] == '+' || v.s[0] == '-')
			return -1;
		c->max_vls = (int)l;
		return 0;
	case K_BEST_EFFORT:
	case K_DFSSSP_BEST_EFFORT:
		if (parse_bool(v, &i))
			return -1;
		c->best_effort = i;
		return 0;
	case K_LOG_LEVEL:
		if (!parse_word(v, log_names, 4, &i)) {
			c->log_level = i;
			return 0;
		}
		if (parse_long(v, 0, 3, &l) || v.s[0] == '+' || v.s[0] == '-')
			return -1;
		c->log_level = (int)l;
		return 0;
	case K_STABLE_REROUTE: {
		static const char *const words[] = { "failures", "keep" };
		if (!parse_word(v, words, 2, &i)) {
			c->stable_reroute = i ? IBF_STABLE_KEEP : IBF_STABLE_FAILURES;
			return 0;
		}
		if (parse_bool(v, &i))
			return -1;
		c->stable_reroute = i;
		return 0;
	}
	case K_RAIL_REGISTRY:
		/* an etcd location is checked here, where the error has the
		 * file and line (the plugin opens it at the first sweep) */
		if (v.n >= 7 && !memcmp(v.s, "etcd://", 7)) {
			char *url, *prefix;
			if (ibf_rail_etcd_location(v.s, v.n, &url, &prefix, NULL))
				return -1;
			free(url);
			free(prefix);
		}
		return parse_path(v, c->rail_registry, sizeof(c->rail_registry));
	case K_RAIL_DOMAIN_SCORES:
		return parse_path(v, c->rail_domain_scores, sizeof(c->rail_domain_scores));
	case K_RAIL_MAP:
		return parse_path(v, c->rail_map, sizeof(c->rail_map));
	case K_STABLE_STATE_DIR:
		return parse_path(v, c->stable_state_dir, sizeof(c->stable_state_dir));
	case K_RAIL_ALPHA:
		return parse_double(v, 0, 1, 1, &c->rail_health_alpha);
	case K_RAIL_WAIT_WEIGHT:
		return parse_double(v, 0, 1, 1e12, &c->rail_health_wait_weight);
	case K_RAIL_MIN_WORDS:
		return parse_double(v, 0, 0, 1e18, &c->rail_health_min_words);
	case K_RAIL_AVOID_BELOW:
	case K_RAIL_AVOID_SWEEPS:
	case K_RAIL_AVOID_ABOVE:
		if (parse_long(v, id == K_RAIL_AVOID_BELOW ? 0 : 1,
			       id == K_RAIL_AVOID_SWEEPS ? 1000 : 100, &l) ||
		    v.s[0] == '+' || v.s[0] == '-')
			return -1;
		if (id == K_RAIL_AVOID_BELOW)
			c->rail_avoid_below = (int)l;
		else if (id == K_RAIL_AVOID_SWEEPS)
			c->rail_avoid_sweeps = (int)l;
		else
			c->rail_avoid_above = (int)l;
		if (id != K_RAIL_AVOID_SWEEPS)
			c->rail_avoid_line = line;
		return 0;
	case K_RAIL_AVOID_MAX:
		if (parse_long(v, 0, 100, &l) || v.s[0] == '+' || v.s[0] == '-')
			return -1;
		c->rail_avoid_max = (int)l;
		return 0;
	case K_RAIL_PERCENTILE:
		if (parse_long(v, 1, 100, &l) || v.s[0] == '+' || v.s[0] == '-')
			return -1;
		c->rail_health_percentile = (int)l;
		return 0;
	case K_DMODK_ROOTS:
		if (tok_eq(v, "none")) {
			c->dmodk_roots[0] = '\0';
			return 0;
		}
		if (v.n >= sizeof(c->dmodk_roots))
			return -1;
		memcpy(c->dmodk_roots, v.s, v.n);
		c->dmodk_roots[v.n] = '\0';
		return 0;
	}
	return -1;
}

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

static int find_key(struct tok key)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (key.n == strlen(keys[i].name) && !memcmp(key.s, keys[i].name, key.n))
			return (int)i;
	return -1;
}

/* One setting; name/line locate it in error messages. */
static int set_key(struct ibf_conf *c, struct tok key, struct tok val, const char *name, long line,
		   struct ibf_error *err)
{
	int idx = find_key(key);
	if (idx < 0) {
		int n = key.n > 64 ? 64 : (int)key.n;
		return ibf_error_set(err, IBF_EPARSE, name, line, "unknown key '%.*s'%s", n, key.s,
				     key.n > 64 ? "..." : "");
	}
	if (val.n == 0)
		return ibf_error_set(err, IBF_EPARSE, name, line, "missing value for '%s'",
				     keys[idx].name);
	if (apply(c, keys[idx].id, val, line)) {
		int n = val.n > 64 ? 64 : (int)val.n;
		return ibf_error_set(err, IBF_EPARSE, name, line,
				     "bad value '%.*s' for '%s' (expected %s)", n, val.s,
				     keys[idx].name, keys[idx].expect);
	}
	return 0;
}

int ibf_conf_set(struct ibf_conf *c, const char *key, const char *value, const char *origin,
		 struct ibf_error *err)
{
	if (!c || !key || !value)
		return ibf_error_set(err, IBF_EINVAL, origin, 0, "no setting");
	struct tok k = { key, strlen(key) }, v = { value, strlen(value) };
	for (size_t i = 0; i < v.n; i++)
		if (is_blank(value[i]) || value[i] == '\n' || (i == 0 && value[i] == '#'))
			return ibf_error_set(err, IBF_EPARSE, origin, 0,
					     "bad value '%.64s' for '%s' (no blanks, no '#' first)",
					     value, key);
	int rc = set_key(c, k, v, origin, 0, err);
	if (!rc)
		rc = ibf_conf_check(c, err);
	return rc;
}

int ibf_conf_parse(const char *buf, size_t len, const char *name, struct ibf_conf *c,
		   struct ibf_error *err)
{
	const char *p = buf, *end = buf + len;
	long line = 0;

	if (!c)
		return ibf_error_set(err, IBF_EINVAL, name, 0, "no configuration to fill");
	if (!name)
		name = "ibfab.conf";
	snprintf(c->source, sizeof(c->source), "%s", name);
	/* a UTF-8 byte order mark (Windows editors write one) is not part of
	 * the first key */
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		line++;

		const char *s = p;
		p = eol ? eol + 1 : end;
		while (s < le && is_blank(*s))
			s++;
		if (s == le || *s == '#')
			continue;
		if (memchr(s, '\0', (size_t)(le - s)))
			return ibf_error_set(err, IBF_EPARSE, name, line, "NUL byte in line");

		/* key */
		const char *k = s;
		while (s < le && !is_blank(*s))
			s++;
		struct tok key = { k, (size_t)(s - k) };
		while (s < le && is_blank(*s))
			s++;
		/* value: up to a blank (a '#' inside it is part of it, as in a
		 * path; one after a blank starts a comment), the rest must be
		 * blanks or a comment */
		const char *v = s;
		while (s < le && !is_blank(*s) && !(s == v && *s == '#'))
			s++;
		struct tok val = { v, (size_t)(s - v) };
		while (s < le && is_blank(*s))
			s++;

		int idx = find_key(key);
		if (idx < 0 || val.n == 0) /* the unknown-key / missing-value error */
			return set_key(c, key, val, name, line, err);
		if (s < le && *s != '#') {
			int n = (int)(le - s) > 64 ? 64 : (int)(le - s);
			while (n > 0 && is_blank(s[n - 1]))
				n--;
			return ibf_error_set(err, IBF_EPARSE, name, line,
					     "unexpected text after the value of '%s': '%.*s'",
					     keys[idx].name, n, s);
		}
		int rc = set_key(c, key, val, name, line, err);
		if (rc)
			return rc;
		c->lines++;
	}
	return ibf_conf_check(c, err);
}

int ibf_conf_check(const struct ibf_conf *c, struct ibf_error *err)
{
	const char *src = c->source[0] ? c->source : NULL;
	char a[32], b[32];
	/* a conflict between the two bounds is reported at the later of their
	 * lines (0 when neither came from a file) */
	long wline = c->min_len_line > c->max_len_line ? c->min_len_line : c->max_len_line;

	if (c->min_len.base == c->max_len.base && c->min_len.value > c->max_len.value)
		return ibf_error_set(err, IBF_EINVAL, src, wline,
				     "min_path_len %s is above max_path_len %s",
				     ibf_win_bound_format(&c->min_len, a, sizeof(a)),
				     ibf_win_bound_format(&c->max_len, b, sizeof(b)));
	if (c->max_len.base == IBF_WIN_ABS && c->max_len.value < 1)
		return ibf_error_set(err, IBF_EINVAL, src, c->max_len_line,
				     "max_path_len must be at least 1 hop");
	if (c->rail_avoid_below > 0 && c->rail_avoid_above <= c->rail_avoid_below)
		return ibf_error_set(err, IBF_EINVAL, src, c->rail_avoid_line,
				     "rail_avoid_above %d must be above rail_avoid_below %d",
				     c->rail_avoid_above, c->rail_avoid_below);
	/* every deadlock scheme exists (deadlock/); whether the VLs suffice is
	 * decided per sweep, where a failure makes the engine fail */
	return 0;
}

int ibf_conf_read(const char *path, struct ibf_conf *c, struct ibf_error *err)
{
	if (!path || !c)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no configuration file or struct");
	char *buf;
	size_t len;
	int rc = ibf_slurp_limit(path, CONF_MAX_FILE, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_conf_parse(buf, len, path, c, err);
	free(buf);
	return rc;
}

int ibf_conf_route_opts(const struct ibf_conf *c, struct ibf_route_opts *o, uint64_t **roots,
			struct ibf_error *err)
{
	ibf_conf_to_route_opts(c, o);
	*roots = NULL;
	if (!c->dmodk_roots[0])
		return 0;
	int rc = ibf_ftree_read_roots(c->dmodk_roots, roots, &o->nroots, err);
	if (rc)
		return rc;
	o->roots = *roots;
	return 0;
}

int ibf_conf_engine_opts(const struct ibf_conf *c, const char *engine, struct ibf_route_opts *o,
			 uint64_t **roots, struct ibf_error *err)
{
	if (!engine || strcmp(engine, "dmodk")) {
		ibf_conf_to_route_opts(c, o);
		*roots = NULL;
		return 0;
	}
	int rc = ibf_conf_route_opts(c, o, roots, err);
	if (rc && err) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		snprintf(err->msg, sizeof(err->msg), "%.*s (the dmodk_roots file)",
			 (int)sizeof(err->msg) - 32, msg);
	}
	return rc;
}

int ibf_conf_stable_mode(const struct ibf_conf *c)
{
	switch (c->stable_reroute) {
	case IBF_STABLE_FAILURES:
		return IBF_STABLE_MODE_FRESH;
	case IBF_STABLE_KEEP:
		return IBF_STABLE_MODE_KEEP;
	default:
		return IBF_STABLE_MODE_RESTORE;
	}
}

void ibf_conf_to_route_opts(const struct ibf_conf *c, struct ibf_route_opts *o)
{
	ibf_route_opts_default(o);
	o->seed = c->seed;
	o->threads = c->threads;
	if (o->threads <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		o->threads = n >= 1 ? (n > CONF_MAX_THREADS ? CONF_MAX_THREADS : (int)n) : 1;
	}
	o->min_len = c->min_len;
	o->max_len = c->max_len;
	o->max_paths_per_layer = c->max_paths_per_layer > 0 ? c->max_paths_per_layer : 0;
	o->layer0_balance = c->layer0_balance;
}

const char *ibf_win_bound_format(const struct ibf_win_bound *b, char *buf, size_t len)
{
	switch (b->base) {
	case IBF_WIN_ABS:
		snprintf(buf, len, "%d", b->value);
		break;
	case IBF_WIN_DIST:
		snprintf(buf, len, "dist%+d", b->value);
		break;
	case IBF_WIN_DIAM:
		snprintf(buf, len, "diameter%+d", b->value);
		break;
	default:
		snprintf(buf, len, "?%d", b->value);
		break;
	}
	return buf;
}

const char *ibf_conf_format(const struct ibf_conf *c, char *buf, size_t len)
{
	char a[32], b[32], paths[32], threads[16];

	if (c->max_paths_per_layer > 0)
		snprintf(paths, sizeof(paths), "%ld", c->max_paths_per_layer);
	else
		snprintf(paths, sizeof(paths), "unlimited");
	if (c->threads > 0)
		snprintf(threads, sizeof(threads), "%d", c->threads);
	else
		snprintf(threads, sizeof(threads), "auto");
	snprintf(buf, len,
		 "min_path_len %s, max_path_len %s, max_paths_per_layer %s, seed %llu, "
		 "threads %s, deadlock %s, max_vls %d, best_effort %s, log_level %s, "
		 "stable_reroute %s%s%s%s%s%s",
		 ibf_win_bound_format(&c->min_len, a, sizeof(a)),
		 ibf_win_bound_format(&c->max_len, b, sizeof(b)), paths,
		 (unsigned long long)c->seed, threads, ibf_deadlock_name(c->deadlock), c->max_vls,
		 c->best_effort ? "TRUE" : "FALSE",
		 c->log_level >= 0 && c->log_level <= 3 ? log_names[c->log_level] : "?",
		 c->stable_reroute == IBF_STABLE_FAILURES ? "failures"
		 : c->stable_reroute == IBF_STABLE_KEEP	  ? "keep"
		 : c->stable_reroute			  ? "TRUE"
							  : "FALSE",
		 c->layer0_balance == IBF_L0_ALL ? ", layer0_balance all" : "",
		 c->dmodk_roots[0] ? ", dmodk_roots " : "", c->dmodk_roots,
		 c->stable_state_dir[0] ? ", stable_state_dir " : "", c->stable_state_dir);
	/* the health service, when on */
	size_t n = strlen(buf);
	if (c->rail_registry[0] && n < len)
		snprintf(buf + n, len - n,
			 ", rail_registry %s, rail_domain_scores %s, rail_map %s, "
			 "rail_health_alpha %g, rail_health_wait_weight %g, "
			 "rail_health_min_words %g, rail_health_percentile %d, "
			 "rail_avoid_below %d, rail_avoid_sweeps %d, rail_avoid_above %d, "
			 "rail_avoid_max %d",
			 c->rail_registry,
			 c->rail_domain_scores[0] ? c->rail_domain_scores : "none",
			 c->rail_map[0] ? c->rail_map : "none", c->rail_health_alpha,
			 c->rail_health_wait_weight, c->rail_health_min_words,
			 c->rail_health_percentile, c->rail_avoid_below, c->rail_avoid_sweeps,
			 c->rail_avoid_above, c->rail_avoid_max);
	return buf;
}
