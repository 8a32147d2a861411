/* node-name-map files as OpenSM and infiniband-diags use them:
 *
 *   # comment
 *   0x0002c903000e0b72 "sw-r01-a"
 *   0x0002c903000e0b73 unquoted name   # comment
 *
 * The map is kept sorted by GUID (first entry wins on duplicates, as in
 * infiniband-diags) so lookups are binary searches. */
#include "io_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ent {
	uint64_t guid;
	char *name;
	uint32_t order;
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int push(struct ent **v, uint32_t *n, uint32_t *cap, uint64_t guid, char *name)
{
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 64;
		if (nc < *cap)
			return -1;
		struct ent *nv = realloc(*v, (size_t)nc * sizeof(*nv));
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n] = (struct ent){ guid, name, *n };
	(*n)++;
	return 0;
}

int ibf_namemap_read(struct ibf_namemap *m, const char *path, struct ibf_error *err)
{
	memset(m, 0, sizeof(*m));
	char *buf;
	size_t len;
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_namemap_parse(m, buf, len, path, err);
	free(buf);
	return rc;
}

int ibf_namemap_parse(struct ibf_namemap *m, const char *buf, size_t len, const char *path,
		      struct ibf_error *err)
{
	memset(m, 0, sizeof(*m));
	struct ent *v = NULL;
	uint32_t n = 0, vcap = 0;
	int rc = 0;
	struct ibf_lines L;
	const char *s;
	size_t sn;
	int nul;
	ibf_lines_init(&L, buf, len);
	while (!rc && ibf_lines_next(&L, &s, &sn, &nul)) {
		struct ibf_cur c = { s, s + sn };
		ibf_cur_ws(&c);
		if (c.p >= c.e || *c.p == '#')
			continue;
		if (nul) {
			rc = ibf_error_set(err, IBF_EPARSE, path, L.lineno,
					   "NUL byte in a text line");
			break;
		}
		uint64_t guid;
		int hrc;
		if (c.e - c.p >= 2 && c.p[0] == '0' && (c.p[1] == 'x' || c.p[1] == 'X'))
			hrc = ibf_cur_hex(&c, &guid);
		else
			hrc = ibf_cur_udec(&c, UINT64_MAX, &guid);
		if (hrc || (c.p < c.e && !ibf_is_ws(*c.p) && *c.p != '#')) {
			char ex[72];
			rc = ibf_error_set(err, IBF_EPARSE, path, L.lineno,
					   "expected '0x<guid> \"name\"': '%s'",
					   ibf_io_excerpt(s, sn, ex, sizeof(ex)));
			break;
		}
		ibf_cur_ws(&c);
		const char *ns, *ne;
		if (ibf_cur_peek(&c, '"')) {
			ns = c.p + 1;
			ne = memchr(ns, '"', (size_t)(c.e - ns));
			if (!ne) {
				rc = ibf_error_set(err, IBF_EPARSE, path, L.lineno,
						   "unterminated quoted name");
				break;
			}
			struct ibf_cur t = { ne + 1, c.e };
			ibf_cur_ws(&t);
			if (t.p < t.e && *t.p != '#') {
				rc = ibf_error_set(err, IBF_EPARSE, path, L.lineno,
						   "unexpected text after the name");
				break;
			}
		} else {
			ns = c.p;
			ne = memchr(ns, '#', (size_t)(c.e - ns));
			if (!ne)
				ne = c.e;
			while (ne > ns && ibf_is_ws(ne[-1]))
				ne--;
		}
		if (ne == ns) {
			rc = ibf_error_set(err, IBF_EPARSE, path, L.lineno, "GUID without a name");
			break;
		}
		char *name = ibf_io_strndup(ns, (size_t)(ne - ns));
		if (!name || push(&v, &n, &vcap, guid, name)) {
			free(name);
			rc = ibf_error_set(err, IBF_ENOMEM, path, L.lineno, "out of memory");
		}
	}
	if (!rc && n) {
		qsort(v, n, sizeof(*v), ent_cmp);
		m->guid = malloc((size_t)n * sizeof(*m->guid));
		m->name = malloc((size_t)n * sizeof(*m->name));
		if (!m->guid || !m->name)
			rc = ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
	}
	if (rc) {
		for (uint32_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		free(m->guid);
		free(m->name);
		memset(m, 0, sizeof(*m));
		return rc;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (k && m->guid[k - 1] == v[i].guid) {
			free(v[i].name); /* first one wins */
			continue;
		}
		m->guid[k] = v[i].guid;
		m->name[k] = v[i].name;
		k++;
	}
	m->n = k;
	m->cap = n;
	free(v);
	return 0;
}

const char *ibf_namemap_lookup(const struct ibf_namemap *m, uint64_t guid)
{
	if (!m || !m->n)
		return NULL;
	uint32_t lo = 0, hi = m->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->guid[mid] < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->guid[lo] == guid)
		return m->name[lo];
	return NULL;
}

void ibf_namemap_free(struct ibf_namemap *m)
{
	if (!m)
		return;
	if (m->name)
		for (uint32_t i = 0; i < m->n; i++)
			free(m->name[i]);
	free(m->name);
	free(m->guid);
	memset(m, 0, sizeof(*m));
}

int ibf_namemap_write_fabric_stream(const struct ibf_fabric *f, FILE *out, struct ibf_error *err)
{
	int rc = 0;
	struct ibf_umap done = { 0 };
	fprintf(out, "# node-name-map written by ibfab: node GUID -> node description\n");
	for (uint32_t i = 0; i < f->nnodes && !rc; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (!n->guid)
			continue;
		int put = ibf_umap_put(&done, n->guid, (int32_t)i, NULL);
		if (put < 0) {
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			break;
		}
		if (put == 1)
			continue; /* a GUID twice: readers keep the first */
		fprintf(out, "0x%016llx \"", (unsigned long long)n->guid);
		/* the reader ends a name at the next quote */
		for (const unsigned char *p = (const unsigned char *)n->desc; p && *p; p++)
			fputc((*p < 0x20 || *p == 0x7f) ? ' ' : *p == '"' ? '\'' : *p, out);
		fputs("\"\n", out);
	}
	ibf_umap_free(&done);
	return rc;
}

int ibf_namemap_write_fabric(const struct ibf_fabric *f, const char *path, struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	rc = ibf_namemap_write_fabric_stream(f, a.fp, err);
	if (rc) {
		ibf_atomic_commit(&a, 0, NULL);
		return rc;
	}
	return ibf_atomic_commit(&a, 1, err);
}
