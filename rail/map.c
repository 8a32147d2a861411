/* Rail mapping file reader (format: docs/rail.md).
 *
 *   # comment
 *   SELECTOR DOMAIN [RAIL]
 *
 * SELECTOR is a GUID (0x..., node or port GUID), a node description in
 * double quotes, or a node id; DOMAIN a word; RAIL a number 0..4095 or "-"
 * (detect).  A selector may appear once. */
#include "ibf_rail.h"
#include "ibf_map.h"
#include "ibf_text.h"

#include <stdlib.h>
#include <string.h>

#define RAIL_MAX 4095

void ibf_rail_map_free(struct ibf_rail_map *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++) {
		free(m->e[i].key);
		free(m->e[i].domain);
	}
	free(m->e);
	free(m->name);
	free(m);
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* A word: up to whitespace or the end. */
static size_t word(struct ibf_cur *c, const char **s)
{
	ibf_cur_ws(c);
	*s = c->p;
	while (c->p < c->e && !ibf_is_ws(*c->p))
		c->p++;
	return (size_t)(c->p - *s);
}

static int is_hex_guid(const char *s, size_t n)
{
	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	for (size_t i = 2; i < n; i++)
		if (ibf_hexval(s[i]) < 0)
			return 0;
	return 1;
}

static int parse_line(struct ibf_rail_map *m, struct ibf_rail_map_entry *e, const char *s, size_t n,
		      const char *name, long line, struct ibf_error *err)
{
	struct ibf_cur c = { s, s + n };
	const char *w;
	size_t wn;
	e->rail = -1;
	e->line = line;
	ibf_cur_ws(&c);
	if (ibf_cur_peek(&c, '"')) {
		c.p++;
		const char *q = c.p;
		while (c.p < c.e && *c.p != '"')
			c.p++;
		if (c.p >= c.e)
			return ibf_error_set(err, IBF_EPARSE, name, line,
					     "unterminated quoted node description");
		if (c.p == q)
			return ibf_error_set(err, IBF_EPARSE, name, line, "empty node description");
		e->kind = 2;
		e->key = dupn(q, (size_t)(c.p - q));
		c.p++;
		if (c.p < c.e && !ibf_is_ws(*c.p))
			return ibf_error_set(err, IBF_EPARSE, name, line,
					     "expected whitespace after the quoted description");
	} else {
		wn = word(&c, &w);
		if (is_hex_guid(w, wn)) {
			struct ibf_cur g = { w, w + wn };
			uint64_t v;
			if (ibf_cur_hex(&g, &v) != 0 || v == 0)
				return ibf_error_set(err, IBF_EPARSE, name, line, "bad GUID");
			e->kind = 0;
			e->guid = v;
		} else {
			e->kind = 1;
			e->key = dupn(w, wn);
		}
	}
	if (e->kind != 0 && !e->key)
		return ibf_error_set(err, IBF_ENOMEM, name, line, "out of memory");
	wn = word(&c, &w);
	if (!wn)
		return ibf_error_set(err, IBF_EPARSE, name, line,
				     "expected a domain name after the selector");
	if (memchr(w, '"', wn))
		return ibf_error_set(err, IBF_EPARSE, name, line, "a domain name cannot hold '\"'");
	e->domain = dupn(w, wn);
	if (!e->domain)
		return ibf_error_set(err, IBF_ENOMEM, name, line, "out of memory");
	if (!ibf_cur_end(&c)) {
		if (ibf_cur_word(&c, "-")) {
			e->rail = -1;
		} else {
			uint64_t v;
			int rc = ibf_cur_udec(&c, RAIL_MAX, &v);
			if (rc == -2)
				return ibf_error_set(err, IBF_EPARSE, name, line,
						     "rail number above %d", RAIL_MAX);
			if (rc != 0 || (c.p < c.e && !ibf_is_ws(*c.p)))
				return ibf_error_set(err, IBF_EPARSE, name, line,
						     "expected a rail number or '-'");
			e->rail = (int)v;
		}
		if (!ibf_cur_end(&c))
			return ibf_error_set(err, IBF_EPARSE, name, line,
					     "unexpected text after the rail");
	}
	(void)m;
	return 0;
}

/* Parser state for one mapping file. */
struct map_rd {
	struct ibf_rail_map *m;
	struct ibf_smap keys;  /* 'd' + description / 'i' + node id -> entry */
	struct ibf_umap guids; /* GUID -> entry */
	int cap;
	const char *name;
	struct ibf_error *err;
};

static int map_line(void *ctx, const char *s, size_t n, long ln)
{
	struct map_rd *r = ctx;
	struct ibf_rail_map *m = r->m;
	const char *name = r->name;
	struct ibf_error *err = r->err;
	struct ibf_cur c = { s, s + n };
	if (ibf_cur_end(&c) || *c.p == '#')
		return 0;
	if (m->n == r->cap) {
		int nc = r->cap ? r->cap * 2 : 16;
		void *p = realloc(m->e, (size_t)nc * sizeof(*m->e));
		if (!p)
			return ibf_error_set(err, IBF_ENOMEM, name, ln, "out of memory");
		m->e = p;
		r->cap = nc;
	}
	struct ibf_rail_map_entry *e = &m->e[m->n];
	memset(e, 0, sizeof(*e));
	m->n++;
	int rc = parse_line(m, e, c.p, (size_t)(c.e - c.p), name, ln, err);
	if (rc != 0)
		return rc;
	int32_t old = -1;
	if (e->kind == 0) {
		rc = ibf_umap_put(&r->guids, e->guid, m->n - 1, &old);
	} else {
		/* descriptions and ids live in different name spaces */
		size_t kl = strlen(e->key);
		char *k = malloc(kl + 2);
		if (!k)
			return ibf_error_set(err, IBF_ENOMEM, name, ln, "out of memory");
		k[0] = e->kind == 2 ? 'd' : 'i';
		memcpy(k + 1, e->key, kl + 1);
		free(e->key);
		e->key = k; /* the map points into it; key + 1 is the selector */
		rc = ibf_smap_put(&r->keys, k, kl + 1, m->n - 1, &old);
	}
	if (rc < 0)
		return ibf_error_set(err, IBF_ENOMEM, name, ln, "out of memory");
	if (rc == 1)
		return ibf_error_set(err, IBF_EPARSE, name, ln,
				     "this CA was already mapped on line %ld", m->e[old].line);
	return 0;
}

struct ibf_rail_map *ibf_rail_map_parse(const char *buf, size_t len, const char *name,
					struct ibf_error *err)
{
	struct map_rd r = { .name = name, .err = err };
	struct ibf_rail_map *m = calloc(1, sizeof(*m));
	r.m = m;
	int rc;
	if (!m || !(m->name = dupn(name ? name : "", strlen(name ? name : "")))) {
		ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		rc = IBF_ENOMEM;
	} else {
		rc = ibf_each_line(buf, len, name, err, map_line, &r);
	}
	ibf_smap_free(&r.keys);
	ibf_umap_free(&r.guids);
	if (rc) {
		ibf_rail_map_free(m);
		return NULL;
	}
	return m;
}

struct ibf_rail_map *ibf_rail_map_read(const char *path, struct ibf_error *err)
{
	char *buf;
	size_t len;
	if (ibf_slurp(path, &buf, &len, err) != 0)
		return NULL;
	struct ibf_rail_map *m = ibf_rail_map_parse(buf, len, path, err);
	free(buf);
	return m;
}
