/* Reader for iblinkinfo output (infiniband-diags), both layouts:
 *
 * block (default): a header per node, then one line per port
 *   Switch: 0x0002c90200000100 ft-l1-s0001:
 *              2    1[  ] ==( 4X  25.78125 Gbps Active/  LinkUp)==>  8    1[  ] "ft-h00003" ( )
 *   CA: ft-h00005:
 *         0x0002c90100000501     10    1[  ] ==( 4X ...)==>   2    3[  ] "ft-l1-s0001" ( )
 * line (-l): every line names its node
 *   0x0002c90200000100 "   ft-l1-s0001"  2  1[  ] ==( 4X ...)==>  0x0002c90100000301  8  1[  ] "ft-h00003" ( )
 *
 * The port part is "LID PORT[EXT] ==( WIDTH SPEED Gbps PHYS/ LOGICAL)==>
 * [PEER-GUID] PEER-LID PEER-PORT[EXT] "PEER" (HINTS)"; a port that is down
 * prints "==(  Down/ Polling)==>  [ ] "" ( )".  The hints "Could be 4X" /
 * "Could be 25.78125 Gbps" say what both ends could run: they become the
 * ports' supported width/speed, so topo info reports such a link as
 * degraded with that evidence (a link without hints runs at its best).
 *
 * Peers are found by the peer port GUID (line layout), else by LID (every
 * line carries the peer's LID and port), else, for a peer with LID 0, by
 * the one line that points back.  FDR10 prints as "10.0 Gbps (FDR10)"; an
 * up port whose far end was not scanned as "Port not available".
 * A switch's GUID is its node GUID; a CA line carries the port GUID, and
 * the CA's node GUID is taken as port GUID - port number (the usual
 * allocation).  In the line layout a GUID with lines for two or more ports
 * is a switch (iblinkinfo lists every switch port, an adapter port has a
 * GUID of its own); its ports share one LID. */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

struct ilnode {
	int type;
	uint64_t guid;
	const char *name;
	size_t namelen;
	uint8_t maxport;
	long line;
	int id; /* fabric node, -1 before creation */
};

struct ilport {
	uint32_t node;
	uint8_t port, w, s, wc, sc, down, pport;
	uint8_t gone; /* up, but iblinkinfo says "Port not available" */
	uint16_t lid, plid;
	uint64_t pguid;	 /* CA port GUID (0: unknown) */
	uint64_t ppguid; /* line layout: the peer's port GUID (0: not given) */
	long line;
};

struct ilrd {
	const char *name;
	struct ibf_error *err;
	struct ilnode *nodes;
	size_t nn, capn;
	struct ilport *ports;
	size_t np, capp;
	int cur; /* block layout: node of the last header, -1 none */
	int line_mode;
	struct ibf_umap key; /* line layout: GUID -> node */
	uint32_t stderr_lines;
};

static int perr(struct ilrd *r, long ln, const char *msg, const char *s, size_t n)
{
	char ex[72];
	if (s)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s: '%s'", msg,
				     ibf_io_excerpt(s, n, ex, sizeof(ex)));
	return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s", msg);
}

static int add_node(struct ilrd *r, int type, uint64_t guid, const char *nm, size_t nl, long ln)
{
	if (r->nn == r->capn) {
		size_t c = r->capn ? r->capn * 2 : 64;
		struct ilnode *x = realloc(r->nodes, c * sizeof(*x));
		if (!x)
			return -1;
		r->nodes = x;
		r->capn = c;
	}
	r->nodes[r->nn] = (struct ilnode){ type, guid, nm, nl, 0, ln, -1 };
	return (int)r->nn++;
}

/* Per-lane rate as iblinkinfo prints it -> enum ibf_speed (0: unknown). */
static int rate_speed(const char *s, size_t n)
{
	static const struct {
		const char *txt;
		int speed;
	} tab[] = {
		{ "2.5", IBF_SPEED_SDR },     { "5.0", IBF_SPEED_DDR },
		{ "10.0", IBF_SPEED_QDR },    { "10.3125", IBF_SPEED_FDR10 },
		{ "14.0625", IBF_SPEED_FDR }, { "25.78125", IBF_SPEED_EDR },
		{ "53.125", IBF_SPEED_HDR },  { "106.25", IBF_SPEED_NDR },
		{ "212.5", IBF_SPEED_XDR },   { "FDR10", IBF_SPEED_FDR10 },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].txt) == n && !memcmp(tab[i].txt, s, n))
			return tab[i].speed;
	return 0;
}

static const char *find_lit(const char *p, const char *e, const char *lit)
{
	size_t l = strlen(lit);
	for (; p + l <= e; p++)
		if (*p == lit[0] && !memcmp(p, lit, l))
			return p;
	return NULL;
}

static const char *token(struct ibf_cur *c, size_t *n)
{
	ibf_cur_ws(c);
	const char *t = c->p;
	while (c->p < c->e && !ibf_is_ws(*c->p))
		c->p++;
	*n = (size_t)(c->p - t);
	return t;
}

/* "12X" / "4X" -> lanes */
static int width_tok(const char *t, size_t n)
{
	if (n < 2 || (t[n - 1] != 'X' && t[n - 1] != 'x'))
		return -1;
	int w = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return -1;
		w = w * 10 + (t[i] - '0');
		if (w > 12)
			return -1;
	}
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 12 ? w : -1;
}

/* "PORT[EXT]": the port number; the bracket may hold blanks or digits. */
static int port_tok(struct ibf_cur *c, uint64_t *port)
{
	ibf_cur_ws(c);
	if (ibf_cur_udec(c, 255, port))
		return -1;
	if (!ibf_cur_lit(c, "["))
		return -1;
	while (c->p < c->e && *c->p != ']')
		c->p++;
	return ibf_cur_lit(c, "]") ? 0 : -1;
}

/* The port part of a line, from the LID on. */
static int port_part(struct ilrd *r, struct ibf_cur *c, struct ilport *x, long ln, const char *s,
		     size_t n)
{
	uint64_t lid, port, plid = 0, pport = 0, pg = 0;
	ibf_cur_ws(c);
	if (ibf_cur_udec(c, 0xffff, &lid) || port_tok(c, &port) || port < 1)
		return perr(r, ln, "expected 'LID PORT[..]'", s, n);
	ibf_cur_ws(c);
	if (!ibf_cur_lit(c, "==("))
		return perr(r, ln, "expected '==('", s, n);
	const char *end = c->p;
	while (end + 4 <= c->e && memcmp(end, ")==>", 4))
		end++;
	if (end + 4 > c->e)
		return perr(r, ln, "expected ')==>'", s, n);
	struct ibf_cur st = { c->p, end };
	x->lid = (uint16_t)lid;
	x->port = (uint8_t)port;
	size_t tn;
	const char *t = token(&st, &tn);
	if (tn >= 4 && !memcmp(t, "Down", 4)) {
		x->down = 1;
	} else {
		int w = width_tok(t, tn);
		if (w < 0)
			return perr(r, ln, "bad link width", t, tn);
		x->w = (uint8_t)w;
		t = token(&st, &tn);
		x->s = (uint8_t)rate_speed(t, tn);
		if (!x->s && !(tn == 1 && t[0] == '?'))
			return perr(r, ln, "unknown link speed", t, tn);
		t = token(&st, &tn);
		if (tn != 4 || memcmp(t, "Gbps", 4))
			return perr(r, ln, "expected 'Gbps'", t, tn);
		/* Mellanox FDR10 runs at the QDR signalling rate and prints as
		 * "10.0 Gbps (FDR10)" */
		struct ibf_cur f10 = st;
		t = token(&f10, &tn);
		if (tn == 7 && !memcmp(t, "(FDR10)", 7))
			x->s = IBF_SPEED_FDR10;
	}
	c->p = end + 4;
	if (x->down)
		return 0; /* the rest names no peer */
	ibf_cur_ws(c);
	if (c->e - c->p >= 20 && !memcmp(c->p, "\"Port not available\"", 20)) {
		/* up, but discovery did not reach the far end (partial scan) */
		x->gone = 1;
		return 0;
	}
	/* iblinkinfo builds the peer part in a 256-byte buffer: a very long
	 * (node-name-map) name loses the newline and the next port line is
	 * glued on; reading on would drop that port silently */
	if (find_lit(c->p, c->e, "==(") || find_lit(c->p, c->e, ")==>"))
		return perr(r, ln,
			    "two port lines on one line (iblinkinfo cut a long peer name and "
			    "lost the newline)",
			    s, n);
	if (c->e - c->p > 2 && c->p[0] == '0' && c->p[1] == 'x') {
		if (ibf_cur_hex(c, &pg))
			return perr(r, ln, "bad peer GUID", s, n);
		x->ppguid = pg;
		ibf_cur_ws(c);
	}
	if (ibf_cur_udec(c, 0xffff, &plid) || port_tok(c, &pport) || pport < 1)
		return perr(r, ln, "expected the peer's 'LID PORT[..]'", s, n);
	x->plid = (uint16_t)plid;
	x->pport = (uint8_t)pport;
	/* the peer's name, then the hints */
	ibf_cur_ws(c);
	if (ibf_cur_lit(c, "\"")) {
		/* the name may hold quotes; the hints after it hold none */
		const char *q = c->e;
		while (q > c->p && q[-1] != '"')
			q--;
		if (q <= c->p)
			return perr(r, ln, "unterminated peer name", s, n);
		c->p = q;
	}
	const char *h = c->p;
	for (; h + 9 <= c->e; h++) {
		if (memcmp(h, "Could be ", 9))
			continue;
		struct ibf_cur hc = { h + 9, c->e };
		t = token(&hc, &tn);
		while (tn && t[tn - 1] == ')')
			tn--;
		int w = width_tok(t, tn);
		if (w > 0) {
			x->wc = (uint8_t)w;
		} else {
			int sp = rate_speed(t, tn);
			if (sp)
				x->sc = (uint8_t)sp;
		}
	}
	return 0;
}

static int one_line(struct ilrd *r, const char *s, size_t n, long ln)
{
	struct ibf_cur c = { s, s + n };
	ibf_cur_ws(&c);
	if (c.p >= c.e || *c.p == '#')
		return 0;
	if (ibf_io_is_stderr_line(c.p, (size_t)(c.e - c.p))) {
		/* 2>&1: ibwarn:, src/query_smp.c:228; ... timed out, WARN: */
		r->stderr_lines++;
		return 0;
	}
	if (c.e - c.p > 2 && (*c.p == '<' || *c.p == '>') && c.p[1] == ' ')
		return perr(r, ln,
			    "iblinkinfo --diff output (lines of two fabrics) is not supported: "
			    "give plain iblinkinfo output",
			    s, n);
	/* block headers */
	int type = 0;
	if (ibf_cur_lit(&c, "Switch:"))
		type = IBF_NODE_SWITCH;
	else if (ibf_cur_lit(&c, "CA:"))
		type = IBF_NODE_CA;
	else if (ibf_cur_lit(&c, "Router:"))
		type = IBF_NODE_ROUTER;
	if (type) {
		if (r->line_mode)
			return perr(r, ln, "a node header in the line layout", s, n);
		uint64_t g = 0;
		ibf_cur_ws(&c);
		if (type == IBF_NODE_SWITCH && ibf_cur_hex(&c, &g))
			return perr(r, ln, "expected 'Switch: 0xGUID NAME:'", s, n);
		ibf_cur_ws(&c);
		const char *e = c.e;
		while (e > c.p && ibf_is_ws(e[-1]))
			e--;
		if (e > c.p && e[-1] == ':')
			e--;
		int id = add_node(r, type, g, c.p, (size_t)(e - c.p), ln);
		if (id < 0)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
		r->cur = id;
		return 0;
	}
	struct ilport x;
	memset(&x, 0, sizeof(x));
	x.line = ln;
	int32_t node = r->cur;
	int lead_guid = c.e - c.p > 2 && c.p[0] == '0' && c.p[1] == 'x';
	uint64_t g = 0;
	if (lead_guid && ibf_cur_hex(&c, &g))
		return perr(r, ln, "bad GUID", s, n);
	ibf_cur_ws(&c);
	if (lead_guid && ibf_cur_peek(&c, '"')) {
		/* line layout: GUID "NAME" */
		if (r->nn && r->cur >= 0)
			return perr(r, ln, "a line-layout line after node headers", s, n);
		r->line_mode = 1;
		c.p++;
		while (c.p < c.e && *c.p == ' ')
			c.p++; /* iblinkinfo right-aligns the name in 30 columns */
		const char *nm = c.p;
		/* the name may hold quotes: it ends at the last one before "==(" */
		const char *arrow = find_lit(c.p, c.e, "==(");
		const char *q = arrow ? arrow : c.e;
		while (q > c.p && q[-1] != '"')
			q--;
		if (q <= c.p)
			return perr(r, ln, "unterminated node name", s, n);
		size_t nl = (size_t)(q - 1 - nm);
		c.p = q;
		int rc = port_part(r, &c, &x, ln, s, n);
		if (rc)
			return rc;
		node = ibf_umap_get(&r->key, g);
		if (node < 0) {
			/* the type is settled once every line is read */
			node = add_node(r, IBF_NODE_CA, g, nm, nl, ln);
			if (node < 0 || ibf_umap_put(&r->key, g, node, NULL) < 0)
				return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln,
						     "out of memory");
		}
		x.pguid = g;
	} else {
		if (node < 0)
			return perr(r, ln, "a port line before any 'Switch:' or 'CA:' header", s,
				    n);
		int rc = port_part(r, &c, &x, ln, s, n);
		if (rc)
			return rc;
		x.pguid = lead_guid ? g : 0;
	}
	x.node = (uint32_t)node;
	struct ilnode *nd = &r->nodes[node];
	if (x.port > nd->maxport)
		nd->maxport = x.port;
	if (r->np == r->capp) {
		size_t cp = r->capp ? r->capp * 2 : 1024;
		struct ilport *np = realloc(r->ports, cp * sizeof(*np));
		if (!np)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
		r->ports = np;
		r->capp = cp;
	}
	r->ports[r->np++] = x;
	return 0;
}

static int one_line_cb(void *ctx, const char *s, size_t n, long ln)
{
	return one_line(ctx, s, n, ln);
}

/* Line layout: a GUID with two or more ports is a switch; a CA's node GUID
 * is port GUID - port, and the ports of one CA (same node GUID and name)
 * are merged. */
static void settle_line_types(struct ilrd *r)
{
	uint8_t *cnt = calloc(r->nn + 1, 1);
	if (!cnt)
		return;
	for (size_t i = 0; i < r->np; i++)
		if (cnt[r->ports[i].node] < 2)
			cnt[r->ports[i].node]++;
	for (size_t i = 0; i < r->nn; i++)
		if (cnt[i] >= 2)
			r->nodes[i].type = IBF_NODE_SWITCH;
	free(cnt);
}

/* The fabric node of every reader node, and the CAs' merged ports. */
static int build_nodes(struct ilrd *r, struct ibf_fabric *f, uint32_t *map)
{
	struct ibf_umap ca = { 0 };
	int rc = 0;
	for (size_t i = 0; !rc && i < r->nn; i++) {
		struct ilnode *nd = &r->nodes[i];
		if (!nd->maxport)
			continue; /* a header without ports */
		uint64_t g = nd->guid;
		if (nd->type != IBF_NODE_SWITCH) {
			/* node GUID from a port GUID: the first port line */
			for (size_t k = 0; k < r->np; k++)
				if (r->ports[k].node == i && r->ports[k].pguid) {
					g = r->ports[k].pguid - r->ports[k].port;
					break;
				}
			if (r->line_mode) {
				/* the other ports of this CA: same derived GUID */
				int32_t other = ibf_umap_get(&ca, g);
				if (other >= 0) {
					struct ilnode *o = &r->nodes[other];
					if (o->namelen == nd->namelen &&
					    !memcmp(o->name, nd->name, o->namelen)) {
						map[i] = map[other];
						if (nd->maxport > f->nodes[map[other]].nports) {
							rc = ibf_error_set(
								r->err, IBF_EPARSE, r->name,
								nd->line,
								"adapter ports listed out of order");
							break;
						}
						continue;
					}
				}
			}
		}
		char id[24];
		snprintf(id, sizeof(id), "%c-%016llx",
			 nd->type == IBF_NODE_SWITCH ? 'S'
			 : nd->type == IBF_NODE_CA   ? 'H'
						     : 'R',
			 (unsigned long long)g);
		char *desc = ibf_io_strndup(nd->name, nd->namelen);
		if (!desc)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, 0, "out of memory");
		int maxp = nd->maxport;
		if (r->line_mode && nd->type != IBF_NODE_SWITCH) {
			/* a dual-port CA whose second port comes later */
			for (size_t j = i + 1; j < r->nn; j++) {
				struct ilnode *o = &r->nodes[j];
				if (o->type == nd->type && o->namelen == nd->namelen &&
				    !memcmp(o->name, nd->name, o->namelen) && o->maxport > maxp)
					for (size_t k = 0; k < r->np; k++)
						if (r->ports[k].node == j && r->ports[k].pguid &&
						    r->ports[k].pguid - r->ports[k].port == g)
							maxp = o->maxport;
			}
		}
		int node = ibf_fabric_add_node(f, nd->type, maxp, g, desc, id, r->err);
		free(desc);
		if (node < 0) {
			r->err->line = nd->line;
			snprintf(r->err->file, sizeof(r->err->file), "%s", r->name);
			rc = node;
			break;
		}
		map[i] = (uint32_t)node;
		nd->id = node;
		if (nd->type != IBF_NODE_SWITCH && ibf_umap_put(&ca, g, (int32_t)i, NULL) < 0)
			rc = ibf_error_set(r->err, IBF_ENOMEM, r->name, 0, "out of memory");
	}
	ibf_umap_free(&ca);
	return rc;
}

/* Key of a port line by where it is and where it points. */
static uint64_t back_key(uint16_t lid, uint8_t port, uint16_t plid, uint8_t pport)
{
	return (uint64_t)lid << 32 | (uint64_t)port << 24 | (uint64_t)plid << 8 | pport;
}

/* Port lines of LID-0 ports by (LID, port, peer LID, peer port), so a line
 * whose peer has LID 0 finds the peer's own line.  For the first line i of
 * a key, twin[i] is -1 when it is the only one, the second line when there
 * are two (two LID-0 adapters cabled back to back: each finds the other),
 * -2 when there are more. */
static int back_index(struct ilrd *r, struct ibf_umap *back, int32_t **twin)
{
	*twin = malloc((r->np + 1) * sizeof(**twin));
	if (!*twin)
		return ibf_error_set(r->err, IBF_ENOMEM, r->name, 0, "out of memory");
	for (size_t i = 0; i < r->np; i++) {
		const struct ilport *x = &r->ports[i];
		if (x->lid || x->down || x->gone)
			continue;
		int32_t old;
		int rc = ibf_umap_put(back, back_key(x->lid, x->port, x->plid, x->pport),
				      (int32_t)i, &old);
		if (rc < 0)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, 0, "out of memory");
		(*twin)[i] = -1;
		if (rc == 1)
			(*twin)[old] = (*twin)[old] == -1 ? (int32_t)i : -2;
	}
	return 0;
}

struct ibf_fabric *ibf_io_read_iblinkinfo(const char *buf, size_t len, const char *name,
					  struct ibf_error *err)
{
	struct ibf_error local;
	struct ilrd r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.err = err ? err : &local;
	r.cur = -1;
	struct ibf_fabric *f = ibf_fabric_new();
	uint32_t *map = NULL;
	int32_t *bylid = NULL;
	struct ibf_linker k;
	memset(&k, 0, sizeof(k));
	struct ibf_umap back = { 0 };
	int32_t *twin = NULL;
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	int rc = ibf_each_line(buf, len, name, r.err, one_line_cb, &r);
	if (!rc && !r.np)
		rc = ibf_error_set(r.err, IBF_EPARSE, name, 0, "no port lines found");
	if (!rc && r.line_mode)
		settle_line_types(&r);
	if (!rc) {
		map = malloc((r.nn + 1) * sizeof(*map));
		bylid = malloc(0x10000 * sizeof(*bylid));
		if (!map || !bylid)
			rc = ibf_error_set(r.err, IBF_ENOMEM, name, 0, "out of memory");
		for (size_t i = 0; map && i <= r.nn; i++)
			map[i] = UINT32_MAX; /* nodes without port lines stay unmapped */
	}
	if (!rc)
		rc = build_nodes(&r, f, map);
	/* LIDs onto the ports; LID -> node for the peers */
	if (!rc) {
		for (uint32_t i = 0; i < 0x10000; i++)
			bylid[i] = -1;
		for (size_t i = 0; i < r.np; i++) {
			const struct ilport *x = &r.ports[i];
			int node = (int)map[x->node];
			if (!x->lid)
				continue;
			struct ibf_node *nd = &f->nodes[node];
			struct ibf_port *p =
				ibf_port(f, node, nd->type == IBF_NODE_SWITCH ? 0 : x->port);
			if (p->lid && p->lid != x->lid) {
				rc = ibf_error_set(
					r.err, IBF_EPARSE, name, x->line,
					"LID %u differs from LID %u given for the same port",
					x->lid, p->lid);
				break;
			}
			p->lid = x->lid;
			if (nd->type != IBF_NODE_SWITCH && x->pguid)
				p->guid = x->pguid;
			if (bylid[x->lid] >= 0 && bylid[x->lid] != node) {
				rc = ibf_error_set(r.err, IBF_EPARSE, name, x->line,
						   "LID %u is used by two nodes", x->lid);
				break;
			}
			bylid[x->lid] = node;
		}
	}
	if (!rc)
		rc = back_index(&r, &back, &twin);
	if (!rc)
		rc = ibf_linker_init(&k, f, name, r.err);
	uint32_t gone = 0;
	for (size_t i = 0; !rc && i < r.np; i++) {
		const struct ilport *x = &r.ports[i];
		if (x->gone)
			gone++;
		if (x->down || x->gone)
			continue;
		int a = (int)map[x->node];
		int b = -1;
		/* the line layout names the peer's port GUID: the surest key */
		if (x->ppguid) {
			int32_t pn = ibf_umap_get(&r.key, x->ppguid);
			if (pn >= 0 && map[pn] != UINT32_MAX)
				b = (int)map[pn];
		}
		if (b < 0 && x->plid)
			b = bylid[x->plid];
		/* a peer without a LID (LID 0: no SM yet, a router, a port in
		 * Initialize): the one line of the file that points back here */
		if (b < 0 && !x->plid) {
			int32_t j = ibf_umap_get(&back, back_key(0, x->pport, x->lid, x->port));
			if (j >= 0 && twin[j] >= 0 && ((size_t)j == i || (size_t)twin[j] == i))
				j = (size_t)j == i ? twin[j] : j; /* back to back: the other one */
			else if (j >= 0 && twin[j] != -1)
				j = -2;
			if (j >= 0 && (size_t)j != i)
				b = (int)map[r.ports[j].node];
			else if (j == -2) {
				rc = ibf_error_set(r.err, IBF_EPARSE, name, x->line,
						   "the peer has LID 0 and several lines of the "
						   "file could be it (no LIDs: run the SM first)");
				break;
			}
		}
		if (b < 0) {
			rc = ibf_error_set(r.err, IBF_EPARSE, name, x->line,
					   "the peer LID %u is not listed in the file (a partial "
					   "scan, --switches-only or --cas-only leaves peers out)",
					   x->plid);
			break;
		}
		if (x->pport > f->nodes[b].nports) {
			rc = ibf_error_set(r.err, IBF_EPARSE, name, x->line,
					   "the peer has no port %u", x->pport);
			break;
		}
		rc = ibf_linker_add(&k, a, x->port, b, x->pport, x->w, x->s, x->line, r.err);
		if (rc)
			break;
		/* the hints: what both ends could run (none: the link runs at its best) */
		struct ibf_port *pa = ibf_port(f, a, x->port), *pb = ibf_port(f, b, x->pport);
		uint8_t ws = x->wc > x->w ? x->wc : x->w, ss = x->sc > x->s ? x->sc : x->s;
		if (ws > pa->width_sup)
			pa->width_sup = pb->width_sup = ws;
		if (ss > pa->speed_sup)
			pa->speed_sup = pb->speed_sup = ss;
	}
	if (!rc && (ibf_io_meta_add(f, "format", "iblinkinfo") ||
		    ibf_linker_meta(&k) ||
		    (gone && ibf_io_meta_add(f, "ports_not_available", "%u", gone)) ||
		    (r.stderr_lines &&
		     ibf_io_meta_add(f, "stderr_lines", "%u", r.stderr_lines))))
		rc = ibf_error_set(r.err, IBF_ENOMEM, name, 0, "out of memory");
	if (!rc)
		rc = ibf_io_check_unicast_lids(f, name, NULL, r.err);
	if (!rc)
		rc = ibf_fabric_finalize(f, r.err);
	ibf_linker_free(&k);
	ibf_umap_free(&back);
	free(twin);
	ibf_umap_free(&r.key);
	free(r.nodes);
	free(r.ports);
	free(map);
	free(bylid);
	if (rc) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}
