/* Line iterator and cursor for the line-oriented readers. */
#include "ibf_text.h"
#include "ibf_base.h"

#include <string.h>

/* ------------------------------------------------------------ lines */

void ibf_lines_init(struct ibf_lines *L, const char *buf, size_t len)
{
	L->p = buf;
	L->end = buf + len;
	L->lineno = 0;
	L->p += ibf_bom_len(buf, len); /* no part of the first line */
}

int ibf_lines_next(struct ibf_lines *L, const char **s, size_t *n, int *has_nul)
{
	if (L->p >= L->end)
		return 0;
	const char *b = L->p;
	const char *nl = memchr(b, '\n', (size_t)(L->end - b));
	const char *e = nl ? nl : L->end;
	L->p = nl ? nl + 1 : L->end;
	L->lineno++;
	if (e > b && e[-1] == '\r')
		e--;
	*s = b;
	*n = (size_t)(e - b);
	if (has_nul)
		*has_nul = memchr(b, '\0', *n) != NULL;
	return 1;
}

int ibf_lines_next_text(struct ibf_lines *L, char *buf, size_t cap, const char **raw,
			const char *name, struct ibf_error *err)
{
	const char *s;
	size_t n;
	int nul = 0;
	if (!ibf_lines_next(L, &s, &n, &nul))
		return 0;
	if (nul || n >= cap)
		return ibf_error_set(err, IBF_EPARSE, name, L->lineno,
				     nul ? "NUL byte in line" : "line too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (raw)
		*raw = s;
	char *hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	return 1;
}

int ibf_each_line(const char *buf, size_t len, const char *name, struct ibf_error *err,
		  int (*fn)(void *ctx, const char *s, size_t n, long ln), void *ctx)
{
	struct ibf_lines L;
	const char *s;
	size_t n;
	int nul;
	ibf_lines_init(&L, buf, len);
	while (ibf_lines_next(&L, &s, &n, &nul)) {
		if (nul)
			return ibf_error_set(err, IBF_EPARSE, name, L.lineno,
					     "NUL byte in a text line");
		int rc = fn(ctx, s, n, L.lineno);
		if (rc)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------ cursor */

int ibf_cur_udec(struct ibf_cur *c, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	int over = 0;
	const char *s = c->p;
	while (c->p < c->e && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (x > (UINT64_MAX - d) / 10)
			over = 1;
		else
			x = x * 10 + d;
		c->p++;
	}
	if (c->p == s)
		return -1;
	if (over || x > max)
		return -2;
	*v = x;
	return 0;
}

int ibf_cur_hex(struct ibf_cur *c, uint64_t *v)
{
	if (c->e - c->p >= 3 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X') &&
	    ibf_hexval(c->p[2]) >= 0)
		c->p += 2;
	uint64_t x = 0;
	int over = 0;
	const char *s = c->p;
	int d;
	while (c->p < c->e && (d = ibf_hexval(*c->p)) >= 0) {
		if (x >> 60)
			over = 1;
		x = (x << 4) | (uint64_t)d;
		c->p++;
	}
	if (c->p == s)
		return -1;
	if (over)
		return -2;
	*v = x;
	return 0;
}

int ibf_cur_num(struct ibf_cur *c, uint64_t max, uint64_t *v)
{
	if (c->e - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		uint64_t x;
		int rc = ibf_cur_hex(c, &x);
		if (rc)
			return rc;
		if (x > max)
			return -2;
		*v = x;
		return 0;
	}
	return ibf_cur_udec(c, max, v);
}

/* ------------------------------------------------------------ byte counts */

long ibf_byte_unit(const char *s)
{
	if (!*s)
		return 1;
	if (!strcmp(s, "k") || !strcmp(s, "K") || !strcmp(s, "KiB"))
		return 1L << 10;
	if (!strcmp(s, "M") || !strcmp(s, "MiB"))
		return 1L << 20;
	if (!strcmp(s, "G") || !strcmp(s, "GiB"))
		return 1L << 30;
	return 0;
}
