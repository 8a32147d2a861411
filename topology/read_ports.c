/* Reader for the `ibnetdiscover -p` ports report: one line per port,
 *
 *   CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  1719 10 0x7cfe9003009ce5b0 ( 'o0001 HCA-1' - 'ib-i1l1s01' )
 *   SW  2052 37 0x506b4b03005c2740 4x ???                                    'ib-i4l1s01'
 *
 * (type, LID, port, port GUID, width, speed, then the peer or just the
 * node's name).  Switches are keyed by their GUID (every switch port shows
 * the switch's port GUID); CA and router ports carry their own port GUIDs,
 * so ports of one adapter are grouped by port GUID - port number, which is
 * the adapter's node GUID on most HCAs.  The node GUID of a CA is not in
 * the report and is left 0.  Excerpts are fine: nodes seen only as peers
 * are created with as many ports as the highest port number seen. */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

struct pnode {
	uint64_t key, guid;
	const char *name;
	size_t namelen;
	int type, maxport;
	int32_t next_copy; /* next copy of a device whose GUID two devices share, -1 none */
	uint32_t copy_no;  /* 0: the first; n >= 2: id "<id>#<n>" */
};

struct pent {
	uint64_t aguid, bguid;
	long line;
	int32_t a, b; /* b = -1: unconnected */
	uint16_t alid, blid;
	uint8_t pa, pb, width, speed;
};

struct prd {
	const char *name;
	struct ibf_error *err;
	struct pnode *nodes;
	size_t nn, capn;
	struct pent *e;
	size_t ne, cape;
	struct ibf_umap sw, ca, rt;
	uint32_t stderr_lines;
	uint32_t progress_lines; /* ibnetdiscover -s -p */
	uint32_t copies;	 /* devices added for shared GUIDs */
};

static int perr(struct prd *r, long ln, const char *msg, const char *s, size_t n)
{
	char ex[72];
	if (s)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s: '%s'", msg,
				     ibf_io_excerpt(s, n, ex, sizeof(ex)));
	return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s", msg);
}

/* One "TYPE LID PORT GUID" group. */
static int end_point(struct ibf_cur *c, int *type, uint64_t *lid, uint64_t *port, uint64_t *guid)
{
	ibf_cur_ws(c);
	if (ibf_cur_word(c, "SW"))
		*type = IBF_NODE_SWITCH;
	else if (ibf_cur_word(c, "CA"))
		*type = IBF_NODE_CA;
	else if (ibf_cur_word(c, "RT"))
		*type = IBF_NODE_ROUTER;
	else
		return -1;
	ibf_cur_ws(c);
	if (ibf_cur_udec(c, 0xffff, lid))
		return -2;
	ibf_cur_ws(c);
	if (ibf_cur_udec(c, UINT64_MAX, port) || *port < 1 || *port > IBF_MAX_PORTS)
		return -3;
	ibf_cur_ws(c);
	if (!ibf_cur_lit(c, "0x") || ibf_cur_hex(c, guid))
		return -4;
	if (c->p < c->e && !ibf_is_ws(*c->p))
		return -4;
	return 0;
}

/* A new (uninitialised) node record at the end of r->nodes: its index in
 * *idx; -1 when memory (or the index range) runs out. */
static int pnode_add(struct prd *r, int32_t *idx)
{
	if (r->nn == r->capn) {
		size_t nc = r->capn ? r->capn * 2 : 256;
		struct pnode *nn = realloc(r->nodes, nc * sizeof(*nn));
		if (!nn)
			return -1;
		r->nodes = nn;
		r->capn = nc;
	}
	if (r->nn >= INT32_MAX / 2)
		return -1;
	*idx = (int32_t)r->nn++;
	return 0;
}

static int node_for(struct prd *r, int type, uint64_t guid, int port, const char *name,
		    size_t namelen, int32_t *out)
{
	struct ibf_umap *m = type == IBF_NODE_SWITCH ? &r->sw
			     : type == IBF_NODE_CA   ? &r->ca
						     : &r->rt;
	uint64_t key = type == IBF_NODE_SWITCH ? guid : guid - (uint64_t)port;
	int32_t idx = ibf_umap_get(m, key);
	if (idx < 0) {
		if (pnode_add(r, &idx))
			return IBF_ENOMEM;
		struct pnode *p = &r->nodes[idx];
		memset(p, 0, sizeof(*p));
		p->next_copy = -1;
		p->key = key;
		p->guid = type == IBF_NODE_SWITCH ? guid : 0;
		p->type = type;
		if (ibf_umap_put(m, key, idx, NULL) < 0)
			return IBF_ENOMEM;
	}
	struct pnode *p = &r->nodes[idx];
	if (port > p->maxport)
		p->maxport = port;
	if (!p->name && name) {
		p->name = name;
		p->namelen = namelen;
	}
	*out = idx;
	return 0;
}

static int ws_tokens(struct ibf_cur *c, uint8_t *w, uint8_t *s)
{
	char buf[24];
	ibf_cur_ws(c);
	const char *a = c->p;
	while (c->p < c->e && !ibf_is_ws(*c->p))
		c->p++;
	size_t an = (size_t)(c->p - a);
	ibf_cur_ws(c);
	const char *b = c->p;
	while (c->p < c->e && !ibf_is_ws(*c->p))
		c->p++;
	size_t bn = (size_t)(c->p - b);
	if (!an || !bn || an > 8 || bn > 8)
		return -1;
	memcpy(buf, a, an);
	memcpy(buf + an, b, bn);
	return ibf_io_parse_ws(buf, an + bn, w, s);
}

static int one_line(struct prd *r, const char *s, size_t n, long ln)
{
	struct ibf_cur c = { s, s + n };
	ibf_cur_ws(&c);
	if (c.p >= c.e || *c.p == '#')
		return 0;
	if (ibf_io_is_stderr_line(c.p, (size_t)(c.e - c.p))) {
		r->stderr_lines++;
		return 0;
	}
	if (ibf_io_is_progress_line(c.p, (size_t)(c.e - c.p))) {
		r->progress_lines++;
		return 0;
	}
	int ta, tb;
	uint64_t la, pa, ga, lb = 0, pb = 0, gb = 0;
	int rc = end_point(&c, &ta, &la, &pa, &ga);
	if (rc == -1)
		return perr(r, ln, "expected SW, CA or RT", s, n);
	if (rc == -2)
		return perr(r, ln, "bad LID", s, n);
	if (rc == -3)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "bad port number (must be 1..%d)", IBF_MAX_PORTS);
	if (rc)
		return perr(r, ln, "bad port GUID", s, n);
	struct pent e;
	memset(&e, 0, sizeof(e));
	e.line = ln;
	if (ws_tokens(&c, &e.width, &e.speed))
		return perr(r, ln, "bad link width/speed", s, n);
	ibf_cur_ws(&c);
	const char *na, *nb = NULL;
	size_t nal, nbl = 0;
	if (ibf_cur_peek(&c, '-')) {
		c.p++;
		rc = end_point(&c, &tb, &lb, &pb, &gb);
		if (rc == -3)
			return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
					     "bad peer port number (must be 1..%d)", IBF_MAX_PORTS);
		if (rc)
			return perr(r, ln, "bad peer description", s, n);
		ibf_cur_ws(&c);
		if (!ibf_cur_peek(&c, '('))
			return perr(r, ln, "expected \"( 'name' - 'peer name' )\"", s, n);
		c.p++;
		ibf_cur_ws(&c);
		/* ( 'name' - 'peer' ): names may hold anything but the separator */
		const char *close = c.e;
		while (close > c.p && ibf_is_ws(close[-1]))
			close--;
		if (close <= c.p || close[-1] != ')')
			return perr(r, ln, "expected ')' at the end of the line", s, n);
		close--;
		while (close > c.p && ibf_is_ws(close[-1]))
			close--;
		if (!ibf_cur_peek(&c, '\'') || close - c.p < 2 || close[-1] != '\'')
			return perr(r, ln, "expected quoted node names", s, n);
		const char *in = c.p + 1, *ie = close - 1;
		const char *sep = NULL;
		for (const char *p = in; p + 5 <= ie; p++)
			if (p[0] == '\'' && p[1] == ' ' && p[2] == '-' && p[3] == ' ' &&
			    p[4] == '\'') {
				sep = p;
				break;
			}
		if (!sep)
			return perr(r, ln, "expected \"'name' - 'peer name'\"", s, n);
		na = in;
		nal = (size_t)(sep - in);
		nb = sep + 5;
		nbl = (size_t)(ie - nb);
	} else {
		tb = 0;
		const char *close = c.e;
		while (close > c.p && ibf_is_ws(close[-1]))
			close--;
		if (!ibf_cur_peek(&c, '\'') || close - c.p < 2 || close[-1] != '\'')
			return perr(r, ln, "expected a quoted node name or '- peer'", s, n);
		na = c.p + 1;
		nal = (size_t)(close - 1 - na);
	}
	if (node_for(r, ta, ga, (int)pa, na, nal, &e.a))
		return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
	e.pa = (uint8_t)pa;
	e.aguid = ga;
	e.alid = (uint16_t)la;
	e.b = -1;
	if (nb) {
		if (node_for(r, tb, gb, (int)pb, nb, nbl, &e.b))
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
		e.pb = (uint8_t)pb;
		e.bguid = gb;
		e.blid = (uint16_t)lb;
	}
	if (r->ne == r->cape) {
		size_t nc = r->cape ? r->cape * 2 : 1024;
		struct pent *ne = realloc(r->e, nc * sizeof(*ne));
		if (!ne)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
		r->e = ne;
		r->cape = nc;
	}
	r->e[r->ne++] = e;
	return 0;
}

static int one_line_cb(void *ctx, const char *s, size_t n, long ln)
{
	return one_line(ctx, s, n, ln);
}

static void set_port(struct ibf_fabric *f, int node, int port, uint64_t guid, uint16_t lid)
{
	const struct ibf_node *nd = &f->nodes[node];
	struct ibf_port *p = ibf_port(f, node, nd->type == IBF_NODE_SWITCH ? 0 : port);
	if (!p->guid)
		p->guid = guid;
	if (!p->lid)
		p->lid = lid;
}

/* An end (node, port) of the report as a map key. */
static uint64_t end_key(int32_t node, int port)
{
	return ((uint64_t)(uint32_t)node << 8) | (uint64_t)(port & 0xff);
}

/* Entry j joins the same two ends as e (in either direction). */
static int same_link(const struct pent *j, const struct pent *e)
{
	return (j->a == e->a && j->pa == e->pa && j->b == e->b && j->pb == e->pb) ||
	       (j->a == e->b && j->pa == e->pb && j->b == e->a && j->pb == e->pa);
}

/* A copy of adapter/router node b whose port pb is not taken yet: an
 * existing copy, else a new one (same type, key, name; id "<id>#<n>"). */
static int copy_for(struct prd *r, int32_t b, int pb, const struct ibf_umap *ends, int32_t *out)
{
	int32_t c = b, last = b;
	while ((c = r->nodes[c].next_copy) >= 0) {
		if (ibf_umap_get(ends, end_key(c, pb)) < 0) {
			*out = c;
			return 0;
		}
		last = c;
	}
	int32_t idx;
	if (pnode_add(r, &idx))
		return IBF_ENOMEM;
	r->nodes[idx] = r->nodes[b];
	r->nodes[idx].next_copy = -1;
	r->nodes[idx].copy_no = (last == b ? 1 : r->nodes[last].copy_no) + 1;
	r->nodes[last].next_copy = idx;
	r->copies++;
	*out = idx;
	return 0;
}

/* Two devices with one GUID (SHARP aggregation nodes are known to share
 * them): the report then has a switch port line naming an adapter port
 * whose own line (or an earlier switch line) names another peer.  As the
 * ibnetdiscover reader does, such a line gets a copy of the adapter, so
 * both cables survive; the adapters' own lines are read first and win.
 * Conflicts between switches are left to the linker (an error). */
static int split_duplicates(struct prd *r)
{
	struct ibf_umap ends;
	memset(&ends, 0, sizeof(ends));
	int rc = 0;
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (size_t i = 0; i < r->ne && !rc; i++) {
			struct pent *e = &r->e[i];
			if (e->b < 0)
				continue;
			int own = r->nodes[e->a].type != IBF_NODE_SWITCH;
			if (own != (pass == 0))
				continue;
			int32_t jb = ibf_umap_get(&ends, end_key(e->b, e->pb));
			if (pass == 1 && jb >= 0 && !same_link(&r->e[jb], e) &&
			    r->nodes[e->b].type != IBF_NODE_SWITCH) {
				int32_t c;
				if ((rc = copy_for(r, e->b, e->pb, &ends, &c)) != 0)
					break;
				e->b = c;
				jb = -1;
			}
			if ((ibf_umap_get(&ends, end_key(e->a, e->pa)) < 0 &&
			     ibf_umap_put(&ends, end_key(e->a, e->pa), (int32_t)i, NULL) < 0) ||
			    (jb < 0 &&
			     ibf_umap_put(&ends, end_key(e->b, e->pb), (int32_t)i, NULL) < 0))
				rc = IBF_ENOMEM;
		}
	ibf_umap_free(&ends);
	if (rc)
		return ibf_error_set(r->err, rc, r->name, 0, "out of memory");
	return 0;
}

static int build(struct prd *r, struct ibf_fabric *f)
{
	char id[32];
	int rc = split_duplicates(r);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->nn; i++) {
		const struct pnode *p = &r->nodes[i];
		char *desc = ibf_io_strndup(p->name ? p->name : "", p->name ? p->namelen : 0);
		if (!desc)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, 0, "out of memory");
		int k = snprintf(id, sizeof(id), "%c-%016llx",
				 p->type == IBF_NODE_SWITCH ? 'S'
				 : p->type == IBF_NODE_CA   ? 'H'
							    : 'R',
				 (unsigned long long)p->key);
		if (p->copy_no)
			snprintf(id + k, sizeof(id) - (size_t)k, "#%u", p->copy_no);
		rc = ibf_fabric_add_node(f, p->type, p->maxport, p->guid, desc, id, r->err);
		free(desc);
		if (rc < 0)
			return rc;
	}
	struct ibf_linker k;
	rc = ibf_linker_init(&k, f, r->name, r->err);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->ne && !rc; i++) {
		const struct pent *e = &r->e[i];
		set_port(f, e->a, e->pa, e->aguid, e->alid);
		if (e->b < 0)
			continue;
		set_port(f, e->b, e->pb, e->bguid, e->blid);
		rc = ibf_linker_add(&k, e->a, e->pa, e->b, e->pb, e->width, e->speed, e->line,
				    r->err);
	}
	if (!rc) {
		if (ibf_io_meta_add(f, "format", "ibnetdiscover-p") || ibf_linker_meta(&k) ||
		    (r->stderr_lines &&
		     ibf_io_meta_add(f, "stderr_lines", "%u", r->stderr_lines)) ||
		    (r->progress_lines &&
		     ibf_io_meta_add(f, "progress_lines", "%u", r->progress_lines)))
			rc = ibf_error_set(r->err, IBF_ENOMEM, r->name, 0, "out of memory");
	}
	ibf_linker_free(&k);
	return rc;
}

struct ibf_fabric *ibf_io_read_ports(const char *buf, size_t len, const char *name,
				     struct ibf_error *err)
{
	struct ibf_error local;
	struct prd r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.err = err ? err : &local;
	struct ibf_fabric *f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	int rc = ibf_each_line(buf, len, name, r.err, one_line_cb, &r);
	if (!rc && r.nn == 0)
		rc = ibf_error_set(r.err, IBF_EPARSE, name, 0, "no port lines found");
	if (!rc)
		rc = build(&r, f);
	if (!rc)
		rc = ibf_io_check_unicast_lids(f, name, NULL, r.err);
	if (!rc)
		rc = ibf_fabric_finalize(f, r.err);
	free(r.nodes);
	free(r.e);
	ibf_umap_free(&r.sw);
	ibf_umap_free(&r.ca);
	ibf_umap_free(&r.rt);
	if (rc) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}
