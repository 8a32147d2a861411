/* SL and SL2VL tables: construction from a scheme's result, dumps, and
 * readers for the dumps and for what a live fabric gives back (`saquery -p`
 * PathRecords, `smpquery sl2vl`).  Formats: docs/deadlock.md. */
#include "dl_internal.h"
#include "ibf_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ tables */

void ibf_sl_table_free(struct ibf_sl_table *t)
{
	if (!t)
		return;
	free(t->row_node);
	free(t->row_port);
	free(t->port_row);
	free(t->mask);
	memset(t, 0, sizeof(*t));
}

static int sl_table_alloc(const struct ibf_fabric *f, int per_port, uint32_t stride,
			  struct ibf_sl_table *t, struct ibf_error *err)
{
	memset(t, 0, sizeof(*t));
	t->per_port = per_port;
	t->stride = stride;
	if (per_port) {
		size_t cap = (size_t)f->nsw + f->nports_total + 1;
		t->row_node = malloc(cap * sizeof(*t->row_node));
		t->row_port = malloc(cap);
		t->port_row = malloc(((size_t)f->nports_total + 1) * sizeof(*t->port_row));
		if (!t->row_node || !t->row_port || !t->port_row) {
			ibf_sl_table_free(t);
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		}
		for (uint32_t i = 0; i < f->nports_total; i++)
			t->port_row[i] = -1;
		for (uint32_t i = 0; i < f->nnodes; i++) {
			const struct ibf_node *n = &f->nodes[i];
			for (int p = 0; p <= n->nports; p++) {
				int swp;
				if (n->type == IBF_NODE_SWITCH
					    ? p != 0
					    : (p == 0 || ibf_port_switch(f, (int)i, p, &swp) < 0))
					continue;
				t->port_row[n->port_off + (uint32_t)p] = (int32_t)t->nrows;
				t->row_node[t->nrows] = (int32_t)i;
				t->row_port[t->nrows] = (uint8_t)p;
				t->nrows++;
			}
		}
	} else {
		t->nrows = f->nsw;
	}
	size_t n = (size_t)t->nrows * stride;
	t->mask = calloc(n ? n : 1, sizeof(*t->mask));
	if (!t->mask) {
		ibf_sl_table_free(t);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for %zu SL entries",
				     n);
	}
	return 0;
}

int ibf_sl_table_from_dl(const struct ibf_fabric *f, const struct ibf_dl *dl,
			 struct ibf_sl_table *t, struct ibf_error *err)
{
	int rc = sl_table_alloc(f, 0, dl->stride, t, err);
	if (rc)
		return rc;
	for (size_t k = 0; k < (size_t)dl->nsw * dl->stride; k++)
		if (dl->sl[k] != IBF_SL_NONE)
			t->mask[k] = (uint16_t)(1u << (dl->sl[k] & 15));
	return 0;
}

int ibf_sl_table_const(const struct ibf_fabric *f, uint32_t stride, int sl, struct ibf_sl_table *t,
		       struct ibf_error *err)
{
	if (sl < 0 || sl > 15)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "SL %d out of range", sl);
	int rc = sl_table_alloc(f, 0, stride, t, err);
	if (rc)
		return rc;
	for (size_t k = 0; k < (size_t)t->nrows * stride; k++)
		t->mask[k] = (uint16_t)(1u << sl);
	return 0;
}

uint16_t ibf_sl_table_mask(const struct ibf_fabric *f, const struct ibf_sl_table *t, int node,
			   int port, uint32_t dlid)
{
	if (node < 0 || (uint32_t)node >= f->nnodes || port < 0 || port > f->nodes[node].nports ||
	    dlid >= t->stride)
		return 0;
	int32_t row;
	if (t->per_port) {
		row = t->port_row ? t->port_row[f->nodes[node].port_off + (uint32_t)port] : -1;
	} else {
		/* rows of source switches: a CA port's is the switch it is cabled to */
		int sn = f->nodes[node].type == IBF_NODE_SWITCH
				 ? node
				 : ibf_port_switch(f, node, port, NULL);
		row = sn >= 0 ? f->nodes[sn].sw : -1;
	}
	if (row < 0 || (uint32_t)row >= t->nrows)
		return 0;
	return t->mask[(size_t)row * t->stride + dlid];
}

void ibf_sl2vl_table_free(struct ibf_sl2vl_table *t)
{
	if (!t)
		return;
	free(t->off);
	free(t->vl);
	memset(t, 0, sizeof(*t));
}

int ibf_sl2vl_table_init(const struct ibf_fabric *f, struct ibf_sl2vl_table *t,
			 struct ibf_error *err)
{
	memset(t, 0, sizeof(*t));
	t->nsw = f->nsw;
	t->off = malloc(((size_t)f->nsw + 1) * sizeof(*t->off));
	if (!t->off)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint64_t o = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint64_t np = (uint64_t)f->nodes[f->switches[s]].nports + 1;
		t->off[s] = o;
		o += np * np * 16;
	}
	t->off[f->nsw] = o;
	t->vl = malloc(o ? o : 1);
	if (!t->vl) {
		ibf_sl2vl_table_free(t);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for SL2VL tables");
	}
	memset(t->vl, IBF_VL_NONE, o ? o : 1);
	return 0;
}

int ibf_sl2vl_table_from_dl(const struct ibf_fabric *f, const struct ibf_dl *dl,
			    struct ibf_sl2vl_table *t, struct ibf_error *err)
{
	int rc = ibf_sl2vl_table_init(f, t, err);
	if (rc)
		return rc;
	for (uint32_t s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		int np = f->nodes[node].nports;
		for (int in = 0; in <= np; in++)
			for (int out = 0; out <= np; out++)
				ibf_dl_sl2vl(dl, f, node, in, out,
					     &t->vl[t->off[s] + ((uint64_t)in * (uint64_t)(np + 1) +
								 (uint64_t)out) *
									16]);
	}
	return 0;
}

int ibf_sl2vl_table_uniform(const struct ibf_fabric *f, int vls, struct ibf_sl2vl_table *t,
			    struct ibf_error *err)
{
	if (vls < 1 || vls > 16)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "VL count %d out of range", vls);
	int rc = ibf_sl2vl_table_init(f, t, err);
	if (rc)
		return rc;
	for (uint64_t k = 0; k < t->off[f->nsw]; k++)
		t->vl[k] = (uint8_t)((k % 16) % (unsigned)vls);
	return 0;
}

/* ------------------------------------------------------------ writers */

static const char *desc_of(const struct ibf_node *n)
{
	return n->desc ? n->desc : "";
}

static const char *scheme_line(const struct ibf_dl *dl, char *buf, size_t len)
{
	snprintf(buf, len, "scheme %s, %d layer(s), %d VLs available, %d used, %s%s%s",
		 ibf_deadlock_name(dl->scheme), dl->layers, dl->vls, dl->vls_used,
		 dl->deadlock_free ? "deadlock-free" : "NOT deadlock-free (best effort)",
		 dl->note[0] ? "; " : "", dl->note);
	return buf;
}

void ibf_sl_write_stream(const struct ibf_fabric *f, const struct ibf_dl *dl, FILE *o)
{
	char buf[768];
	fprintf(o, "# ibfab path SL dump (docs/deadlock.md): %s\n",
		scheme_line(dl, buf, sizeof(buf)));
	fprintf(o, "# one SL per (source switch, destination LID): every source port on the "
		   "switch (CA ports, port 0) uses it\n");
	for (uint32_t s = 0; s < dl->nsw && s < f->nsw; s++) {
		const struct ibf_node *n = &f->nodes[f->switches[s]];
		fprintf(o, "Source switch guid 0x%016llx lid %u ('%s'):\n",
			(unsigned long long)n->guid, ibf_port(f, f->switches[s], 0)->lid,
			desc_of(n));
		const uint8_t *row = dl->sl + (size_t)s * dl->stride;
		for (uint32_t d = 1; d < dl->stride; d++)
			if (row[d] != IBF_SL_NONE)
				fprintf(o, "0x%04x %u\n", d, row[d]);
	}
}

int ibf_sl_write(const struct ibf_fabric *f, const struct ibf_dl *dl, const char *path,
		 struct ibf_error *err)
{
	struct ibf_atomic at;
	int rc = ibf_atomic_open(&at, path, err);
	if (rc)
		return rc;
	ibf_sl_write_stream(f, dl, at.fp);
	return ibf_atomic_commit(&at, !ferror(at.fp), err);
}

void ibf_sl2vl_write_stream(const struct ibf_fabric *f, const struct ibf_dl *dl, FILE *o)
{
	char buf[768];
	fprintf(o, "# ibfab SL2VL dump (docs/deadlock.md): %s\n",
		scheme_line(dl, buf, sizeof(buf)));
	fprintf(o, "# rows for port 0 and every connected port; the layout of `smpquery sl2vl`\n");
	for (uint32_t s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		const struct ibf_node *n = &f->nodes[node];
		fprintf(o, "Switch guid 0x%016llx lid %u ('%s'):\n", (unsigned long long)n->guid,
			ibf_port(f, node, 0)->lid, desc_of(n));
		fprintf(o,
			"#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n");
		for (int in = 0; in <= n->nports; in++) {
			if (in && ibf_port(f, node, in)->peer_node == IBF_NO_NODE)
				continue;
			for (int out = 0; out <= n->nports; out++) {
				if (out && ibf_port(f, node, out)->peer_node == IBF_NO_NODE)
					continue;
				uint8_t vl[16];
				ibf_dl_sl2vl(dl, f, node, in, out, vl);
				fprintf(o, "ports: in %2d, out %2d: ", in, out);
				for (int k = 0; k < 16; k++)
					fprintf(o, "|%2u", vl[k]);
				fprintf(o, "|\n");
			}
		}
	}
}

int ibf_sl2vl_write(const struct ibf_fabric *f, const struct ibf_dl *dl, const char *path,
		    struct ibf_error *err)
{
	struct ibf_atomic at;
	int rc = ibf_atomic_open(&at, path, err);
	if (rc)
		return rc;
	ibf_sl2vl_write_stream(f, dl, at.fp);
	return ibf_atomic_commit(&at, !ferror(at.fp), err);
}

/* ------------------------------------------------------------ readers */

/* next line into a NUL-terminated copy; returns 0 at the end.  The copy's
 * buffer holds the longest line of the input (a switch header carries the
 * node description, which a node-name-map may make long): every line the
 * writers above produce reads back. */
struct lines {
	const char *p, *end;
	long ln;
	char *line; /* shared by copies of the struct (a look-ahead) */
};

static int lines_open(struct lines *L, const char *buf, size_t len, const char *name,
		      struct ibf_error *err)
{
	size_t longest = 0;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if ((size_t)(e - p) > longest)
			longest = (size_t)(e - p);
		p = e + 1;
	}
	L->p = buf;
	L->end = buf + len;
	L->ln = 0;
	L->line = malloc(longest + 1);
	if (!L->line)
		return ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
	return 0;
}

static int next_line(struct lines *L)
{
	if (L->p >= L->end)
		return 0;
	const char *e = memchr(L->p, '\n', (size_t)(L->end - L->p));
	if (!e)
		e = L->end;
	size_t n = (size_t)(e - L->p);
	L->ln++;
	memcpy(L->line, L->p, n);
	for (size_t i = 0; i < n; i++)
		if (L->line[i] == '\0')
			L->line[i] = ' ';
	if (n && L->line[n - 1] == '\r')
		n--;
	L->line[n] = '\0';
	L->p = e < L->end ? e + 1 : e;
	return 1;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* unsigned number (0x hex or decimal); returns the end or NULL */
static const char *num(const char *s, unsigned long long max, unsigned long long *v)
{
	s = skip_ws(s);
	if (*s < '0' || *s > '9')
		return NULL;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || x > max)
		return NULL;
	*v = x;
	return end;
}

/* saquery field "name.......value" */
static int sa_field(const char *s, const char *name, unsigned long long *v)
{
	s = skip_ws(s);
	size_t n = strlen(name);
	if (strncmp(s, name, n) != 0 || s[n] != '.')
		return 0;
	s += n;
	while (*s == '.')
		s++;
	return num(s, 0xFFFFFFFFULL, v) ? 1 : -1;
}

/* A "... guid 0x<GUID> [lid <LID>] [('<desc>')]:" block header (s: the
 * GUID): *sw = that switch's index.  The LID and the description, which
 * the writers give, must be the switch's in this fabric: generated fabrics
 * of other sizes reuse GUIDs, so a dump of one used to be taken for
 * another's without a word (a switch whose description or LID differs is
 * another switch under the same GUID). */
static int switch_header(const struct ibf_fabric *f, const char *s, const char *name, long ln,
			 int32_t *sw, struct ibf_error *err)
{
	unsigned long long g, lid;
	const char *q = num(s, ~0ULL, &g);
	if (!q)
		return ibf_error_set(err, IBF_EPARSE, name, ln, "bad switch GUID");
	int node = ibf_fabric_find_guid(f, g);
	if (node < 0 || f->nodes[node].type != IBF_NODE_SWITCH)
		return ibf_error_set(err, IBF_EPARSE, name, ln,
				     "switch 0x%016llx is not in the fabric", g);
	q = skip_ws(q);
	const char *l;
	if (!strncmp(q, "lid", 3) && (l = num(q + 3, 0xFFFF, &lid)) != NULL) {
		unsigned have = ibf_port(f, node, 0)->lid;
		/* two switches that report one GUID (a firmware bug, or a node
		 * the fabric reader split): the LID tells them apart */
		for (uint32_t k = 0; have && lid != have && k < f->nsw; k++) {
			int o = f->switches[k];
			if (f->nodes[o].guid == g && ibf_port(f, o, 0)->lid == lid) {
				node = o;
				have = (unsigned)lid;
			}
		}
		if (have && lid != have)
			return ibf_error_set(err, IBF_EPARSE, name, ln,
					     "switch 0x%016llx has LID %u in the fabric, the dump "
					     "says %llu: a dump of another fabric or LID assignment?",
					     g, have, lid);
		q = skip_ws(l);
	}
	const char *d = f->nodes[node].desc;
	const char *end = q[0] == '(' && q[1] == '\'' ? strrchr(q, ')') : NULL;
	if (end && end > q + 2 && end[-1] == '\'' && d && *d) {
		size_t n = (size_t)(end - 1 - (q + 2));
		if (n && (strlen(d) != n || memcmp(d, q + 2, n)))
			return ibf_error_set(err, IBF_EPARSE, name, ln,
					     "switch 0x%016llx is '%s' in the fabric, the dump "
					     "names it '%.*s': a dump of another fabric?",
					     g, d, (int)n, q + 2);
	}
	*sw = f->nodes[node].sw;
	return 0;
}

struct sl_rd {
	const struct ibf_fabric *f;
	struct ibf_lidmap m;
	struct ibf_sl_table *t;
	const char *name;
	struct ibf_error *err;
};

static int sl_put(struct sl_rd *R, long ln, unsigned long long slid, unsigned long long dlid,
		  unsigned long long sl)
{
	struct ibf_sl_table *t = R->t;
	if (!t->per_port) /* the file began as an ibfab SL dump (per source switch) */
		return ibf_error_set(R->err, IBF_EPARSE, R->name, ln,
				     "a PathRecord in an ibfab SL dump (one format per file)");
	if (sl > 15)
		return ibf_error_set(R->err, IBF_EPARSE, R->name, ln, "SL %llu out of range", sl);
	if (dlid == 0 || dlid >= t->stride || R->m.node[dlid] < 0)
		return ibf_error_set(R->err, IBF_EPARSE, R->name, ln,
				     "destination LID %llu is not a LID of the fabric", dlid);
	if (slid == 0 || slid > R->m.max_lid || R->m.node[slid] < 0)
		return ibf_error_set(R->err, IBF_EPARSE, R->name, ln,
				     "source LID %llu is not a LID of the fabric", slid);
	int node = R->m.node[slid];
	int32_t row = t->port_row[R->f->nodes[node].port_off + R->m.port[slid]];
	if (row < 0)
		return ibf_error_set(R->err, IBF_EPARSE, R->name, ln,
				     "source LID %llu is not on a port that can send", slid);
	t->mask[(size_t)row * t->stride + dlid] |= (uint16_t)(1u << sl);
	return 0;
}

int ibf_sl_parse(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		 struct ibf_sl_table *t, struct ibf_error *err)
{
	struct lines L;
	struct sl_rd R;
	memset(&R, 0, sizeof(R));
	R.f = f;
	R.t = t;
	R.name = name;
	R.err = err;
	int rc = lines_open(&L, buf, len, name, err);
	if (rc)
		return rc;
	rc = ibf_lidmap_build(f, &R.m, err);
	if (rc) {
		free(L.line);
		return rc;
	}
	/* the format is fixed by the first meaningful line */
	int per_port = 1;
	{
		struct lines P = L;
		int k;
		while ((k = next_line(&P)) != 0) {
			const char *s = skip_ws(P.line);
			if (!*s || *s == '#')
				continue;
			per_port = strncmp(s, "Source switch", 13) != 0;
			break;
		}
	}
	rc = sl_table_alloc(f, per_port, R.m.max_lid + 1, t, err);
	if (rc) {
		ibf_lidmap_free(&R.m);
		free(L.line);
		return rc;
	}
	int32_t cur = -1;
	unsigned long long sa_s = 0, sa_d = 0, sa_sl = 0;
	int sa_have = 0, in_sa = 0;
	long sa_ln = 0;
	int k;
	while (!rc && (k = next_line(&L)) != 0) {
		const char *s = skip_ws(L.line);
		if (!*s || *s == '#' || !strncmp(s, "ibwarn", 6))
			continue;
		unsigned long long a = 0, b = 0, c = 0;
		const char *q;
		if (!strncmp(s, "PathRecord dump:", 16)) {
			if (in_sa && sa_have == 7)
				rc = sl_put(&R, sa_ln, sa_s, sa_d, sa_sl);
			else if (in_sa)
				rc = ibf_error_set(err, IBF_EPARSE, name, sa_ln,
						   "PathRecord without slid, dlid and sl");
			in_sa = 1;
			sa_have = 0;
			sa_ln = L.ln;
			continue;
		}
		if (in_sa) {
			int r1;
			if ((r1 = sa_field(s, "slid", &a)) != 0) {
				sa_s = a;
				sa_have |= 1;
			} else if ((r1 = sa_field(s, "dlid", &a)) != 0) {
				sa_d = a;
				sa_have |= 2;
			} else if ((r1 = sa_field(s, "sl", &a)) != 0) {
				sa_sl = a;
				sa_have |= 4;
			}
			if (r1 < 0)
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "bad PathRecord field");
			continue; /* other fields */
		}
		if (!per_port) {
			if (!strncmp(s, "Source switch guid", 18)) {
				if ((rc = switch_header(f, s + 18, name, L.ln, &cur, err)))
					break;
				continue;
			}
			if ((q = num(s, 0xFFFF, &b)) && (q = num(q, 255, &c)) && !*skip_ws(q)) {
				if (cur < 0) {
					rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
							   "SL line before a 'Source switch' line");
				} else if (b == 0 || b >= t->stride || R.m.node[b] < 0) {
					rc = ibf_error_set(
						err, IBF_EPARSE, name, L.ln,
						"destination LID %llu is not a LID of the fabric",
						b);
				} else if (c > 15) {
					rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
							   "SL %llu out of range", c);
				} else {
					t->mask[(size_t)cur * t->stride + b] |= (uint16_t)(1u << c);
				}
				continue;
			}
			rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
					   "unrecognised line in SL dump");
			break;
		}
		if ((q = num(s, 0xFFFF, &a)) && (q = num(q, 0xFFFF, &b)) && (q = num(q, 255, &c)) &&
		    !*skip_ws(q)) {
			rc = sl_put(&R, L.ln, a, b, c);
			continue;
		}
		rc = ibf_error_set(
			err, IBF_EPARSE, name, L.ln,
			"expected '<slid> <dlid> <sl>', a PathRecord or a 'Source switch' "
			"block");
	}
	if (!rc && in_sa) {
		if (sa_have == 7)
			rc = sl_put(&R, sa_ln, sa_s, sa_d, sa_sl);
		else
			rc = ibf_error_set(err, IBF_EPARSE, name, sa_ln,
					   "PathRecord without slid, dlid and sl");
	}
	ibf_lidmap_free(&R.m);
	free(L.line);
	if (rc)
		ibf_sl_table_free(t);
	return rc;
}

int ibf_sl_read(const struct ibf_fabric *f, const char *path, struct ibf_sl_table *t,
		struct ibf_error *err)
{
	char *buf;
	size_t len;
	memset(t, 0, sizeof(*t));
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_sl_parse(f, buf, len, path, t, err);
	free(buf);
	return rc;
}

int ibf_sl2vl_parse(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		    struct ibf_sl2vl_table *t, struct ibf_error *err)
{
	return ibf_sl2vl_parse_limit(f, buf, len, name, 0, t, err);
}

int ibf_sl2vl_parse_limit(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
			  int max_vls, struct ibf_sl2vl_table *t, struct ibf_error *err)
{
	struct lines L;
	struct ibf_lidmap m;
	int rc = lines_open(&L, buf, len, name, err);
	if (rc)
		return rc;
	rc = ibf_lidmap_build(f, &m, err);
	if (rc) {
		free(L.line);
		return rc;
	}
	rc = ibf_sl2vl_table_init(f, t, err);
	if (rc) {
		ibf_lidmap_free(&m);
		free(L.line);
		return rc;
	}
	int32_t cur = -1; /* switch index */
	int skip = 0;	  /* a CA's table: not needed */
	int k;
	while (!rc && (k = next_line(&L)) != 0) {
		const char *s = skip_ws(L.line);
		unsigned long long a, b;
		if (!strncmp(s, "# SL2VL table:", 14)) {
			const char *q = skip_ws(s + 14);
			if (strncmp(q, "Lid", 3) != 0 || !num(q + 3, 0xFFFF, &a)) {
				rc = ibf_error_set(
					err, IBF_EPARSE, name, L.ln,
					"SL2VL table not addressed by LID (query by LID, "
					"not by directed route)");
				break;
			}
			if (a > m.max_lid || m.node[a] < 0) {
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "LID %llu is not a LID of the fabric", a);
				break;
			}
			int node = m.node[a];
			skip = f->nodes[node].type != IBF_NODE_SWITCH;
			cur = skip ? -1 : f->nodes[node].sw;
			continue;
		}
		if (!*s || *s == '#' || !strncmp(s, "ibwarn", 6))
			continue;
		if (!strncmp(s, "Switch guid", 11)) {
			if ((rc = switch_header(f, s + 11, name, L.ln, &cur, err)))
				break;
			skip = 0;
			continue;
		}
		if (!strncmp(s, "ports:", 6)) {
			const char *q = skip_ws(s + 6);
			if (strncmp(q, "in", 2) || !(q = num(q + 2, 255, &a)) || *q != ',' ||
			    strncmp(q = skip_ws(q + 1), "out", 3) || !(q = num(q + 3, 255, &b)) ||
			    *q != ':') {
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "bad 'ports:' line");
				break;
			}
			if (skip)
				continue;
			if (cur < 0) {
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "SL2VL row before a switch header");
				break;
			}
			unsigned np = f->nodes[f->switches[cur]].nports;
			if (a > np || b > np) {
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "port out of range (switch has %u ports)", np);
				break;
			}
			uint8_t vl[16];
			q++;
			for (int i = 0; i < 16 && !rc; i++) {
				unsigned long long x;
				q = skip_ws(q);
				if (*q == '|')
					q++;
				if (!(q = num(q, 15, &x))) {
					rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
							   "expected 16 VLs (0..15)");
					break;
				}
				/* VL 15 (management) is what a switch holds for "drop";
				 * the verifier reports a path that takes it */
				if (max_vls > 0 && x != 15 && x >= (unsigned long long)max_vls) {
					rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
							   "SL %d -> VL %llu: beyond the %d data "
							   "VL(s) available (VL 0..%d)",
							   i, x, max_vls, max_vls - 1);
					break;
				}
				vl[i] = (uint8_t)x;
			}
			if (rc)
				break;
			q = skip_ws(q);
			if (*q == '|')
				q = skip_ws(q + 1);
			if (*q) {
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "expected 16 VLs (0..15), found more");
				break;
			}
			uint8_t *row = &t->vl[t->off[cur] + (a * (np + 1) + b) * 16];
			if (row[0] != IBF_VL_NONE && memcmp(row, vl, 16) != 0) {
				rc = ibf_error_set(err, IBF_EPARSE, name, L.ln,
						   "SL2VL row for in port %llu, out port %llu "
						   "differs from an earlier row for them",
						   a, b);
				break;
			}
			memcpy(row, vl, 16);
			continue;
		}
		rc = ibf_error_set(err, IBF_EPARSE, name, L.ln, "unrecognised line in SL2VL dump");
	}
	ibf_lidmap_free(&m);
	free(L.line);
	if (rc)
		ibf_sl2vl_table_free(t);
	return rc;
}

int ibf_sl2vl_read(const struct ibf_fabric *f, const char *path, struct ibf_sl2vl_table *t,
		   struct ibf_error *err)
{
	return ibf_sl2vl_read_limit(f, path, 0, t, err);
}

int ibf_sl2vl_read_limit(const struct ibf_fabric *f, const char *path, int max_vls,
			 struct ibf_sl2vl_table *t, struct ibf_error *err)
{
	char *buf;
	size_t len;
	memset(t, 0, sizeof(*t));
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_sl2vl_parse_limit(f, buf, len, path, max_vls, t, err);
	free(buf);
	return rc;
}
