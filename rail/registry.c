/* The rail health registry as a JSON file (format: docs/formats.md, "Rail
 * registry"): rail and domain scores 0..100 and the time they were written.
 * A strict reader for that one shape (unknown keys are skipped whatever
 * their value), FILE:LINE errors, and an atomic writer. */
#include "ibf_rail.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const char *p, *end, *name;
	long line;
	struct ibf_error *err;
};

static int jfail(struct jp *j, const char *what)
{
	return ibf_error_set(j->err, IBF_EPARSE, j->name, j->line, "%s", what);
}

static void ws(struct jp *j)
{
	while (j->p < j->end && isspace((unsigned char)*j->p)) {
		if (*j->p == '\n')
			j->line++;
		j->p++;
	}
}

static int expect(struct jp *j, char c)
{
	ws(j);
	if (j->p >= j->end || *j->p != c) {
		char msg[64];
		snprintf(msg, sizeof(msg), "expected '%c'", c);
		return jfail(j, msg);
	}
	j->p++;
	return 0;
}

/* a string into buf (escapes \" \\ \/ \n \t \r \b \f; \u00XX for ASCII) */
static int jstring(struct jp *j, char *buf, size_t cap)
{
	ws(j);
	if (j->p >= j->end || *j->p != '"')
		return jfail(j, "expected a string");
	j->p++;
	size_t n = 0;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if (c == '\n' || (unsigned char)c < 0x20)
			return jfail(j, "control character in a string");
		if (c == '\\') {
			if (j->p >= j->end)
				break;
			char e = *j->p++;
			switch (e) {
			case '"': case '\\': case '/': c = e; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				if (j->end - j->p < 4)
					return jfail(j, "bad \\u escape");
				char hex[5] = { j->p[0], j->p[1], j->p[2], j->p[3], 0 };
				char *x;
				long v = strtol(hex, &x, 16);
				if (*x || v < 1 || v > 0x7f)
					return jfail(j, "only ASCII \\u escapes are supported");
				c = (char)v;
				j->p += 4;
				break;
			}
			default: return jfail(j, "bad escape in a string");
			}
		}
		if (n + 1 >= cap)
			return jfail(j, "string too long");
		buf[n++] = c;
	}
	if (j->p >= j->end)
		return jfail(j, "unterminated string");
	j->p++;
	buf[n] = '\0';
	return 0;
}

static int jnumber(struct jp *j, double *v)
{
	ws(j);
	char tmp[64];
	size_t n = 0;
	while (j->p + n < j->end && n < sizeof(tmp) - 1 &&
	       (isdigit((unsigned char)j->p[n]) || strchr("+-.eE", j->p[n])))
		n++;
	if (!n)
		return jfail(j, "expected a number");
	memcpy(tmp, j->p, n);
	tmp[n] = '\0';
	char *x;
	*v = strtod(tmp, &x);
	if (*x)
		return jfail(j, "bad number");
	j->p += n;
	return 0;
}

/* skip any value (unknown keys) */
static int jskip(struct jp *j, int depth)
{
	ws(j);
	if (depth > 64)
		return jfail(j, "nested too deeply");
	if (j->p >= j->end)
		return jfail(j, "unexpected end of file");
	char c = *j->p;
	if (c == '"') {
		char buf[4096];
		return jstring(j, buf, sizeof(buf));
	}
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		for (;;) {
			if (c == '{') {
				char key[4096];
				if (jstring(j, key, sizeof(key)) || expect(j, ':'))
					return -1;
			}
			if (jskip(j, depth + 1))
				return -1;
			ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			return expect(j, close);
		}
	}
	for (const char *lit = "true\0false\0null\0"; *lit; lit += strlen(lit) + 1) {
		size_t n = strlen(lit);
		if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, lit, n)) {
			j->p += n;
			return 0;
		}
	}
	double v;
	return jnumber(j, &v);
}

static int score_of(struct jp *j, int *out)
{
	double v;
	if (jnumber(j, &v))
		return -1;
	if (v != (double)(long)v || v < 0 || v > 100)
		return jfail(j, "a score is an integer 0..100");
	*out = (int)v;
	return 0;
}

static int grow(void **p, int n, size_t size)
{
	if (n & (n - 1) && n)
		return 0; /* capacity doubles at powers of two */
	void *q = realloc(*p, (size_t)(n ? 2 * n : 4) * size);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* "rails": { "LABEL": SCORE, ... } or "domains": { "NAME": SCORE, ... } */
static int jscores(struct jp *j, struct ibf_rail_registry *reg, int rails)
{
	if (expect(j, '{'))
		return -1;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		char key[256];
		ws(j);
		long kline = j->line;
		if (jstring(j, key, sizeof(key)) || expect(j, ':'))
			return -1;
		int sc = 0;
		if (score_of(j, &sc))
			return -1;
		if (rails) {
			char *x;
			long lab = strtol(key, &x, 10);
			if (!*key || *x || lab < 0 || lab > 4095) {
				j->line = kline;
				return jfail(j, "a rail key is a rail number 0..4095 in quotes");
			}
			for (int i = 0; i < reg->nrails; i++)
				if (reg->rail_label[i] == lab) {
					j->line = kline;
					return jfail(j, "rail given twice");
				}
			if (grow((void **)&reg->rail_label, reg->nrails, sizeof(int)) ||
			    grow((void **)&reg->rail_score, reg->nrails, sizeof(int)))
				return ibf_error_set(j->err, IBF_ENOMEM, NULL, 0, "out of memory");
			reg->rail_label[reg->nrails] = (int)lab;
			reg->rail_score[reg->nrails++] = sc;
		} else {
			if (!*key) {
				j->line = kline;
				return jfail(j, "empty domain name");
			}
			for (int i = 0; i < reg->ndomains; i++)
				if (!strcmp(reg->domain[i], key)) {
					j->line = kline;
					return jfail(j, "domain given twice");
				}
			if (grow((void **)&reg->domain, reg->ndomains, sizeof(char *)) ||
			    grow((void **)&reg->domain_score, reg->ndomains, sizeof(int)))
				return ibf_error_set(j->err, IBF_ENOMEM, NULL, 0, "out of memory");
			char *d = strdup(key);
			if (!d)
				return ibf_error_set(j->err, IBF_ENOMEM, NULL, 0, "out of memory");
			reg->domain[reg->ndomains] = d;
			reg->domain_score[reg->ndomains++] = sc;
		}
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		return expect(j, '}');
	}
}

void ibf_rail_registry_free(struct ibf_rail_registry *reg)
{
	if (!reg)
		return;
	for (int i = 0; i < reg->ndomains; i++)
		free(reg->domain[i]);
	free(reg->domain);
	free(reg->domain_score);
	free(reg->rail_label);
	free(reg->rail_score);
	memset(reg, 0, sizeof(*reg));
}

int ibf_rail_registry_parse(const char *buf, size_t len, const char *name,
			    struct ibf_rail_registry *reg, struct ibf_error *err)
{
	memset(reg, 0, sizeof(*reg));
	struct jp j = { buf, buf + len, name ? name : "registry", 1, err };
	int have_ts = 0, have_ver = 0, rc = 0;
	if (memchr(buf, '\0', len))
		return ibf_error_set(err, IBF_EPARSE, j.name, 1, "NUL byte in the registry");
	if (expect(&j, '{'))
		goto fail;
	ws(&j);
	if (j.p < j.end && *j.p == '}') {
		j.p++;
	} else {
		for (;;) {
			char key[256];
			long kline;
			ws(&j);
			kline = j.line;
			if (jstring(&j, key, sizeof(key)) || expect(&j, ':'))
				goto fail;
			if (!strcmp(key, "version")) {
				double v;
				if (jnumber(&j, &v))
					goto fail;
				if (v != 1) {
					j.line = kline;
					jfail(&j, "unsupported registry version (this build reads 1)");
					goto fail;
				}
				have_ver = 1;
			} else if (!strcmp(key, "timestamp")) {
				double v;
				if (jnumber(&j, &v))
					goto fail;
				if (v < 0 || v > 4e12 || v != (double)(long long)v) {
					j.line = kline;
					jfail(&j, "timestamp: seconds since 1970 (an integer)");
					goto fail;
				}
				reg->timestamp = (int64_t)v;
				have_ts = 1;
			} else if (!strcmp(key, "rails")) {
				if (jscores(&j, reg, 1))
					goto fail;
			} else if (!strcmp(key, "domains")) {
				if (jscores(&j, reg, 0))
					goto fail;
			} else if (jskip(&j, 0)) {
				goto fail;
			}
			ws(&j);
			if (j.p < j.end && *j.p == ',') {
				j.p++;
				continue;
			}
			if (expect(&j, '}'))
				goto fail;
			break;
		}
	}
	ws(&j);
	if (j.p != j.end) {
		jfail(&j, "text after the registry object");
		goto fail;
	}
	if (!have_ver || !have_ts) {
		ibf_error_set(err, IBF_EPARSE, j.name, j.line, "the registry needs \"version\" and "
			      "\"timestamp\"");
		goto fail;
	}
	return 0;
fail:
	rc = err && err->code ? err->code : IBF_EPARSE;
	ibf_rail_registry_free(reg);
	return rc;
}

int ibf_rail_registry_read(const char *path, struct ibf_rail_registry *reg,
			   struct ibf_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	memset(reg, 0, sizeof(*reg));
	int rc = ibf_slurp_limit(path, 64u << 20, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_rail_registry_parse(buf, len, path, reg, err);
	free(buf);
	return rc;
}

int ibf_rail_registry_write(const char *path, const struct ibf_rail_registry *reg,
			    struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	FILE *o = a.fp;
	fprintf(o, "{\n  \"version\": 1,\n  \"timestamp\": %lld,\n  \"rails\": {",
		(long long)reg->timestamp);
	for (int i = 0; i < reg->nrails; i++)
		fprintf(o, "%s\"%d\": %d", i ? ", " : "", reg->rail_label[i], reg->rail_score[i]);
	fprintf(o, "},\n  \"domains\": {");
	for (int i = 0; i < reg->ndomains; i++) {
		fputs(i ? ",\n    " : "\n    ", o);
		ibf_json_str(o, reg->domain[i]);
		fprintf(o, ": %d", reg->domain_score[i]);
	}
	fprintf(o, "%s}\n}\n", reg->ndomains ? "\n  " : "");
	return ibf_atomic_commit(&a, !ferror(o), err);
}

int ibf_rail_registry_set(struct ibf_rail_registry *reg, int rail, const char *domain, int score)
{
	if (score < 0 || score > 100)
		return IBF_EINVAL;
	if (!domain) {
		for (int i = 0; i < reg->nrails; i++)
			if (reg->rail_label[i] == rail) {
				reg->rail_score[i] = score;
				return 0;
			}
		if (grow((void **)&reg->rail_label, reg->nrails, sizeof(int)) ||
		    grow((void **)&reg->rail_score, reg->nrails, sizeof(int)))
			return IBF_ENOMEM;
		reg->rail_label[reg->nrails] = rail;
		reg->rail_score[reg->nrails++] = score;
		return 0;
	}
	for (int i = 0; i < reg->ndomains; i++)
		if (!strcmp(reg->domain[i], domain)) {
			reg->domain_score[i] = score;
			return 0;
		}
	char *d = strdup(domain);
	if (!d || grow((void **)&reg->domain, reg->ndomains, sizeof(char *)) ||
	    grow((void **)&reg->domain_score, reg->ndomains, sizeof(int))) {
		free(d);
		return IBF_ENOMEM;
	}
	reg->domain[reg->ndomains] = d;
	reg->domain_score[reg->ndomains++] = score;
	return 0;
}

int ibf_rail_registry_decide(const struct ibf_rail_registry *reg, int usable, const char *h1,
			     int g1, const char *h2, int g2, int nrails, int dflt, int prefer_rd,
			     struct ibf_rail_choice *out)
{
	if (g1 < 0 || g2 < 0 || g1 > 4095 || g2 > 4095 || !h1 || !h2)
		return -1;
	int n = nrails > 0 ? nrails : 0;
	if (g1 >= n)
		n = g1 + 1;
	if (g2 >= n)
		n = g2 + 1;
	if (usable && nrails <= 0)
		for (int i = 0; i < reg->nrails; i++)
			if (reg->rail_label[i] >= n)
				n = reg->rail_label[i] + 1;
	int *rail = malloc((size_t)n * sizeof(int));
	if (!rail)
		return -1;
	for (int g = 0; g < n; g++)
		rail[g] = -1;
	int dom[2] = { -1, -1 };
	if (usable) {
		for (int i = 0; i < reg->nrails; i++)
			if (reg->rail_label[i] < n)
				rail[reg->rail_label[i]] = reg->rail_score[i];
		for (int i = 0; i < reg->ndomains; i++) {
			if (!strcmp(reg->domain[i], h1))
				dom[0] = reg->domain_score[i];
			if (!strcmp(reg->domain[i], h2))
				dom[1] = reg->domain_score[i];
		}
	}
	int same = !strcmp(h1, h2);
	struct ibf_rail_scores s = { n, 2, rail, dom, dflt };
	int rc = ibf_rail_decide(&s, 0, g1, same ? 0 : 1, g2, prefer_rd, out);
	free(rail);
	return rc;
}
