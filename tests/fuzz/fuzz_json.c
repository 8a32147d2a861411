/* Fuzz target: the JSON reader itself (base/json_read.c, under the rail
 * registry, the etcd replies and every JSON file ibfab reads).  A document
 * that parses is checked (keys exactly on object members, strings
 * NUL-terminated without NUL inside, lines counting up from 1,
 * ibf_json_get() finding the last member of a name), written back with
 * ibf_json_str() and "%.17g" numbers, parsed again and compared: the two
 * trees must be equal. */
#include "fuzz.h"
#include "ibf_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(const struct ibf_jval *v, int in_obj, long minline)
{
	if ((in_obj != 0) != (v->key != NULL) || v->line < minline)
		abort();
	if (v->type == IBF_JSTR && !v->str)
		abort();
	if (v->type != IBF_JARR && v->type != IBF_JOBJ && v->nkid)
		abort();
	for (size_t i = 0; i < v->nkid; i++) {
		const struct ibf_jval *k = &v->kid[i];
		check(k, v->type == IBF_JOBJ, v->line);
		if (v->type == IBF_JOBJ) {
			/* the last member of this name */
			const struct ibf_jval *hit = ibf_json_get(v, k->key);
			size_t last = i;
			for (size_t m = i + 1; m < v->nkid; m++)
				if (!strcmp(v->kid[m].key, k->key))
					last = m;
			if (hit != &v->kid[last])
				abort();
		}
	}
}

static void write_val(FILE *o, const struct ibf_jval *v)
{
	switch (v->type) {
	case IBF_JNULL:
		fputs("null", o);
		break;
	case IBF_JFALSE:
		fputs("false", o);
		break;
	case IBF_JTRUE:
		fputs("true", o);
		break;
	case IBF_JNUM:
		fprintf(o, "%.17g", v->num);
		break;
	case IBF_JSTR:
		ibf_json_str(o, v->str);
		break;
	default:
		fputc(v->type == IBF_JOBJ ? '{' : '[', o);
		for (size_t i = 0; i < v->nkid; i++) {
			if (i)
				fputs(",\n", o);
			if (v->type == IBF_JOBJ) {
				ibf_json_str(o, v->kid[i].key);
				fputc(':', o);
			}
			write_val(o, &v->kid[i]);
		}
		fputc(v->type == IBF_JOBJ ? '}' : ']', o);
	}
}

static int same(const struct ibf_jval *a, const struct ibf_jval *b)
{
	if (a->type != b->type || a->nkid != b->nkid || (!a->key) != (!b->key) ||
	    (a->key && strcmp(a->key, b->key)))
		return 0;
	if (a->type == IBF_JNUM && a->num != b->num)
		return 0;
	if (a->type == IBF_JSTR && strcmp(a->str, b->str))
		return 0;
	for (size_t i = 0; i < a->nkid; i++)
		if (!same(&a->kid[i], &b->kid[i]))
			return 0;
	return 1;
}

FUZZ_TARGET(json)
{
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_jval *v = ibf_json_parse((const char *)data, size, "fuzz", &err);
	if (!v) {
		/* an error names the document and a line inside it */
		if (!err.msg[0] || err.line < 0)
			abort();
		return 0;
	}
	check(v, 0, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		abort();
	write_val(o, v);
	if (fclose(o))
		abort();
	struct ibf_jval *w = ibf_json_parse(buf, len, "again", NULL);
	if (!w)
		abort();
	/* a string byte outside well-formed UTF-8 is written as its Latin-1
	 * character (\u0080..\u00ff, which nothing else writes so: valid
	 * UTF-8 is copied as is), so it reads back as other bytes (that
	 * character in UTF-8); what was read back must then go round exactly */
	int latin1 = 0;
	for (size_t i = 0; i + 5 < len && !latin1; i++)
		latin1 = !memcmp(buf + i, "\\u00", 4) && buf[i + 4] && strchr("89abcdef", buf[i + 4]);
	if (!latin1 && !same(v, w))
		abort();
	if (latin1) {
		char *buf2 = NULL;
		size_t len2 = 0;
		FILE *o2 = open_memstream(&buf2, &len2);
		if (!o2)
			abort();
		write_val(o2, w);
		if (fclose(o2))
			abort();
		struct ibf_jval *x = ibf_json_parse(buf2, len2, "third", NULL);
		if (!x || !same(w, x))
			abort();
		ibf_json_free(x);
		free(buf2);
	}
	ibf_json_free(w);
	free(buf);
	ibf_json_free(v);
	return 0;
}
