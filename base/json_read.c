/* The JSON reader of ibf_json.h: recursive descent over the buffer. */
#include "ibf_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

struct jp {
	const char *p, *e, *name;
	long line;
	struct ibf_error *err;
};

static int jerr(struct jp *j, const char *msg)
{
	return ibf_error_set(j->err, IBF_EPARSE, j->name, j->line, "%s", msg);
}

static void ws(struct jp *j)
{
	while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) {
		if (*j->p == '\n')
			j->line++;
		j->p++;
	}
}

static void val_free(struct ibf_jval *v)
{
	free(v->str);
	free(v->key);
	for (size_t i = 0; i < v->nkid; i++)
		val_free(&v->kid[i]);
	free(v->kid);
}

void ibf_json_free(struct ibf_jval *v)
{
	if (v) {
		val_free(v);
		free(v);
	}
}

/* append code point cp as UTF-8 */
static int put_utf8(char *o, size_t *k, unsigned cp)
{
	if (cp < 0x80) {
		o[(*k)++] = (char)cp;
	} else if (cp < 0x800) {
		o[(*k)++] = (char)(0xc0 | cp >> 6);
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		o[(*k)++] = (char)(0xe0 | cp >> 12);
		o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*k)++] = (char)(0xf0 | cp >> 18);
		o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*k)++] = (char)(0x80 | (cp & 0x3f));
	}
	return 0;
}

static int hex4(struct jp *j, unsigned *v)
{
	if (j->e - j->p < 4)
		return -1;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = j->p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v * 16 + (unsigned)d;
	}
	j->p += 4;
	return 0;
}

/* a string literal at j->p (the opening quote) into *out (malloc'd) */
static int string(struct jp *j, char **out)
{
	j->p++;
	const char *q = j->p;
	size_t n = 0;
	while (q < j->e && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
		n++;
	}
	if (q >= j->e)
		return jerr(j, "unterminated string");
	/* each input byte gives at most 3 output bytes (\uXXXX gives <= 3, pairs 4 for 12) */
	char *o = malloc(n * 3 + 1);
	if (!o)
		return ibf_error_set(j->err, IBF_ENOMEM, j->name, j->line, "out of memory");
	size_t k = 0;
	while (*j->p != '"') {
		unsigned char c = (unsigned char)*j->p++;
		if (c < 0x20) {
			free(o);
			return jerr(j, "control character in a string");
		}
		if (c != '\\') {
			o[k++] = (char)c;
			continue;
		}
		char esc = *j->p++;
		unsigned cp;
		switch (esc) {
		case '"': o[k++] = '"'; break;
		case '\\': o[k++] = '\\'; break;
		case '/': o[k++] = '/'; break;
		case 'b': o[k++] = '\b'; break;
		case 'f': o[k++] = '\f'; break;
		case 'n': o[k++] = '\n'; break;
		case 'r': o[k++] = '\r'; break;
		case 't': o[k++] = '\t'; break;
		case 'u':
			if (hex4(j, &cp)) {
				free(o);
				return jerr(j, "bad \\u escape");
			}
			if (cp >= 0xd800 && cp < 0xdc00) {
				unsigned lo;
				if (j->e - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
				    (j->p += 2, hex4(j, &lo)) || lo < 0xdc00 || lo > 0xdfff) {
					free(o);
					return jerr(j, "unpaired surrogate in a \\u escape");
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				free(o);
				return jerr(j, "unpaired surrogate in a \\u escape");
			}
			if (cp == 0) {
				free(o);
				return jerr(j, "\\u0000 in a string");
			}
			put_utf8(o, &k, cp);
			break;
		default:
			free(o);
			return jerr(j, "bad escape in a string");
		}
	}
	j->p++;
	o[k] = 0;
	*out = o;
	return 0;
}

static int value(struct jp *j, struct ibf_jval *v, int depth);

static int push_kid(struct jp *j, struct ibf_jval *v, size_t *cap, struct ibf_jval **slot)
{
	if (v->nkid == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		struct ibf_jval *nk = realloc(v->kid, nc * sizeof(*nk));
		if (!nk)
			return ibf_error_set(j->err, IBF_ENOMEM, j->name, j->line, "out of memory");
		v->kid = nk;
		*cap = nc;
	}
	*slot = &v->kid[v->nkid];
	memset(*slot, 0, sizeof(**slot));
	return 0;
}

static int container(struct jp *j, struct ibf_jval *v, int depth)
{
	int obj = *j->p == '{';
	char close = obj ? '}' : ']';
	v->type = obj ? IBF_JOBJ : IBF_JARR;
	j->p++;
	ws(j);
	size_t cap = 0;
	if (j->p < j->e && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		struct ibf_jval *kid = NULL;
		int rc = push_kid(j, v, &cap, &kid);
		if (rc)
			return rc;
		v->nkid++;
		ws(j);
		if (obj) {
			if (j->p >= j->e || *j->p != '"')
				return jerr(j, "expected a member name");
			if ((rc = string(j, &kid->key)))
				return rc;
			ws(j);
			if (j->p >= j->e || *j->p != ':')
				return jerr(j, "expected ':' after a member name");
			j->p++;
		}
		if ((rc = value(j, kid, depth + 1)))
			return rc;
		ws(j);
		if (j->p < j->e && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->e && *j->p == close) {
			j->p++;
			return 0;
		}
		return jerr(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int number(struct jp *j, struct ibf_jval *v)
{
	const char *s = j->p;
	if (s < j->e && *s == '-')
		s++;
	if (s >= j->e || !(*s >= '0' && *s <= '9'))
		return jerr(j, "bad number");
	if (*s == '0' && s + 1 < j->e && s[1] >= '0' && s[1] <= '9')
		return jerr(j, "leading zero in a number");
	while (s < j->e && ((*s >= '0' && *s <= '9') || *s == '.' || *s == 'e' || *s == 'E' ||
			    *s == '+' || *s == '-'))
		s++;
	char tmp[64];
	size_t n = (size_t)(s - j->p);
	if (n >= sizeof(tmp))
		return jerr(j, "number too long");
	memcpy(tmp, j->p, n);
	tmp[n] = 0;
	char *end;
	errno = 0;
	v->num = strtod(tmp, &end);
	if (*end || errno == ERANGE)
		return jerr(j, "bad number");
	v->type = IBF_JNUM;
	j->p = s;
	return 0;
}

static int word(struct jp *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->e - j->p) < n || memcmp(j->p, w, n))
		return -1;
	j->p += n;
	return 0;
}

static int value(struct jp *j, struct ibf_jval *v, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return jerr(j, "nested too deeply");
	ws(j);
	v->line = j->line;
	if (j->p >= j->e)
		return jerr(j, "unexpected end of the document");
	switch (*j->p) {
	case '{':
	case '[': return container(j, v, depth);
	case '"':
		v->type = IBF_JSTR;
		return string(j, &v->str);
	case 't': v->type = IBF_JTRUE; return word(j, "true") ? jerr(j, "bad literal") : 0;
	case 'f': v->type = IBF_JFALSE; return word(j, "false") ? jerr(j, "bad literal") : 0;
	case 'n': v->type = IBF_JNULL; return word(j, "null") ? jerr(j, "bad literal") : 0;
	default: return number(j, v);
	}
}

struct ibf_jval *ibf_json_parse(const char *buf, size_t len, const char *name,
				struct ibf_error *err)
{
	struct jp j = { buf, buf + len, name, 1, err };
	struct ibf_jval *v = calloc(1, sizeof(*v));
	if (!v) {
		ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	if (memchr(buf, 0, len)) {
		ibf_error_set(err, IBF_EPARSE, name, 0, "NUL byte in the document");
		free(v);
		return NULL;
	}
	int rc = value(&j, v, 0);
	if (!rc) {
		ws(&j);
		if (j.p != j.e)
			rc = jerr(&j, "text after the document");
	}
	if (rc) {
		ibf_json_free(v);
		return NULL;
	}
	return v;
}

const struct ibf_jval *ibf_json_get(const struct ibf_jval *obj, const char *key)
{
	const struct ibf_jval *hit = NULL;
	if (obj && obj->type == IBF_JOBJ)
		for (size_t i = 0; i < obj->nkid; i++)
			if (obj->kid[i].key && !strcmp(obj->kid[i].key, key))
				hit = &obj->kid[i];
	return hit;
}
