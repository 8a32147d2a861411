/* Reader for OpenSM's opensm-subnet.lst (osm_dump.c): one line per cabled
 * port, both ends in braces, then the link state:
 *
 *   { CA Ports:02 SystemGUID:... NodeGUID:... PortGUID:... VenID:0002C9
 *     DevID:1003 Rev:000000A1 {r-ufm100 HCA-2} LID:001C PN:01 }
 *   { SW Ports:0C ... {MF0;switch-de779e:SX6012/U1} LID:00AE PN:06 } PHY=4x LOG=ACT SPD=14
 *
 * (one line in the file).  Older OpenSM releases end the line after LOG=
 * (no SPD=): such links get an unknown speed.  Port counts, LIDs and port numbers are hex.
 * A link is normally listed once from each end.  The LID of a switch end
 * is the switch's (port 0) LID; LMC is not in the file. */
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lend {
	int type;
	uint64_t nports, sysguid, nodeguid, portguid, ven, dev, lid, pn;
	const char *desc;
	size_t desclen;
};

struct lrd {
	const char *name;
	struct ibf_error *err;
	struct ibf_fabric *f;
	struct ibf_umap guids;
	struct ibf_linker k;
	long *defline;
	size_t defcap;
	/* links, kept until every node exists */
	struct lk {
		int32_t a, b;
		uint8_t pa, pb, w, s;
		long line;
	} * lk;
	size_t nlk, caplk;
};

static int perr(struct lrd *r, long ln, const char *msg, const char *s, size_t n)
{
	char ex[72];
	if (s)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s: '%s'", msg,
				     ibf_io_excerpt(s, n, ex, sizeof(ex)));
	return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s", msg);
}

/* "Key:HEX" */
static int field(struct ibf_cur *c, const char *key, uint64_t *v)
{
	ibf_cur_ws(c);
	if (!ibf_cur_lit(c, key))
		return -1;
	if (ibf_cur_hex(c, v))
		return -1;
	return 0;
}

/* "} LID:XXXX PN:XX }" starting at p; returns the end or NULL */
static const char *desc_tail(const char *p, const char *e, uint64_t *lid, uint64_t *pn)
{
	struct ibf_cur c = { p + 1, e };
	if (field(&c, "LID:", lid) || field(&c, "PN:", pn))
		return NULL;
	ibf_cur_ws(&c);
	if (!ibf_cur_peek(&c, '}'))
		return NULL;
	return c.p + 1;
}

static int parse_end(struct ibf_cur *c, struct lend *x)
{
	ibf_cur_ws(c);
	if (!ibf_cur_peek(c, '{'))
		return -1;
	c->p++;
	ibf_cur_ws(c);
	if (ibf_cur_lit(c, "SW"))
		x->type = IBF_NODE_SWITCH;
	else if (ibf_cur_lit(c, "CA"))
		x->type = IBF_NODE_CA;
	else if (ibf_cur_lit(c, "Rt"))
		x->type = IBF_NODE_ROUTER;
	else
		return -2;
	ibf_cur_lit(c, "-SM");
	if (c->p < c->e && !ibf_is_ws(*c->p))
		return -2;
	if (field(c, "Ports:", &x->nports) || field(c, "SystemGUID:", &x->sysguid) ||
	    field(c, "NodeGUID:", &x->nodeguid) || field(c, "PortGUID:", &x->portguid) ||
	    field(c, "VenID:", &x->ven) || field(c, "DevID:", &x->dev))
		return -1;
	uint64_t rev;
	if (field(c, "Rev:", &rev))
		return -1;
	ibf_cur_ws(c);
	if (!ibf_cur_peek(c, '{'))
		return -1;
	const char *d = c->p + 1;
	/* the description ends at the first '}' followed by " LID:.. PN:.. }" */
	for (const char *p = d; p < c->e; p++) {
		if (*p != '}')
			continue;
		const char *end = desc_tail(p, c->e, &x->lid, &x->pn);
		if (end) {
			x->desc = d;
			x->desclen = (size_t)(p - d);
			c->p = end;
			return 0;
		}
	}
	return -1;
}

static uint8_t lst_speed(const char *s, size_t n, int *ok)
{
	static const struct {
		const char *name;
		uint8_t speed;
	} sp[] = {
		{ "2.5", IBF_SPEED_SDR }, { "5", IBF_SPEED_DDR },
		{ "10", IBF_SPEED_QDR },  { "FDR10", IBF_SPEED_FDR10 },
		{ "14", IBF_SPEED_FDR },  { "25", IBF_SPEED_EDR },
		{ "50", IBF_SPEED_HDR },  { "100", IBF_SPEED_NDR },
		{ "200", IBF_SPEED_XDR }, { "??", 0 },
	};
	for (size_t i = 0; i < sizeof(sp) / sizeof(sp[0]); i++)
		if (strlen(sp[i].name) == n && memcmp(sp[i].name, s, n) == 0) {
			*ok = 1;
			return sp[i].speed;
		}
	*ok = 0;
	return 0;
}

static int get_node(struct lrd *r, const struct lend *x, long ln, int32_t *out)
{
	struct ibf_fabric *f = r->f;
	int32_t idx = ibf_umap_get(&r->guids, x->nodeguid);
	if (idx >= 0) {
		const struct ibf_node *n = &f->nodes[idx];
		if (n->type != x->type || n->nports != x->nports)
			return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
					     "node GUID %016llx differs from line %ld (type or "
					     "port count)",
					     (unsigned long long)x->nodeguid, r->defline[idx]);
		*out = idx;
		return 0;
	}
	if (x->nports < 1 || x->nports > IBF_MAX_PORTS)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "node port count out of range 1..%d", IBF_MAX_PORTS);
	char id[24];
	snprintf(id, sizeof(id), "%c-%016llx",
		 x->type == IBF_NODE_SWITCH ? 'S'
		 : x->type == IBF_NODE_CA   ? 'H'
					    : 'R',
		 (unsigned long long)x->nodeguid);
	char *desc = ibf_io_strndup(x->desc, x->desclen);
	if (!desc)
		return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
	int node = ibf_fabric_add_node(f, x->type, (int)x->nports, x->nodeguid, desc, id, r->err);
	free(desc);
	if (node < 0) {
		r->err->line = ln;
		snprintf(r->err->file, sizeof(r->err->file), "%s", r->name);
		return node;
	}
	struct ibf_node *n = &f->nodes[node];
	n->sysimg_guid = x->sysguid;
	n->vendid = (uint32_t)x->ven;
	n->devid = (uint32_t)(x->dev > 0xffff && !(x->dev & 0xffff) ? x->dev >> 16 : x->dev);
	if ((size_t)node >= r->defcap) {
		size_t c = r->defcap ? r->defcap * 2 : 256;
		long *d = realloc(r->defline, c * sizeof(*d));
		if (!d)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
		r->defline = d;
		r->defcap = c;
	}
	r->defline[node] = ln;
	if (ibf_umap_put(&r->guids, x->nodeguid, node, NULL) < 0)
		return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
	*out = node;
	return 0;
}

static void set_end(struct ibf_fabric *f, int node, const struct lend *x)
{
	if (x->type == IBF_NODE_SWITCH) {
		struct ibf_port *p0 = ibf_port(f, node, 0);
		p0->guid = x->portguid;
		p0->lid = (uint16_t)x->lid;
	} else if (x->pn >= 1 && x->pn <= f->nodes[node].nports) {
		struct ibf_port *p = ibf_port(f, node, (int)x->pn);
		p->guid = x->portguid;
		p->lid = (uint16_t)x->lid;
	}
}

static int one_line(struct lrd *r, const char *s, size_t n, long ln)
{
	struct ibf_cur c = { s, s + n };
	ibf_cur_ws(&c);
	if (c.p >= c.e || *c.p == '#')
		return 0;
	struct lend a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (parse_end(&c, &a) || parse_end(&c, &b))
		return perr(r, ln,
			    "expected '{ TYPE Ports:.. SystemGUID:.. NodeGUID:.. PortGUID:.. "
			    "VenID:.. DevID:.. Rev:.. {desc} LID:.. PN:.. }' twice",
			    s, n);
	if (a.lid > 0xffff || b.lid > 0xffff)
		return perr(r, ln, "LID out of range", s, n);
	uint8_t w = 0, sp = 0;
	ibf_cur_ws(&c);
	if (!ibf_cur_lit(&c, "PHY="))
		return perr(r, ln, "expected 'PHY='", s, n);
	const char *t = c.p;
	while (c.p < c.e && !ibf_is_ws(*c.p))
		c.p++;
	if (!(c.p - t == 2 && t[0] == '?' && t[1] == '?') &&
	    ibf_io_parse_ws(t, (size_t)(c.p - t), &w, &sp))
		return perr(r, ln, "bad PHY width", t, (size_t)(c.p - t));
	ibf_cur_ws(&c);
	if (!(ibf_cur_lit(&c, "LOG=ACT") || ibf_cur_lit(&c, "LOG=ARM") ||
	      ibf_cur_lit(&c, "LOG=INI") || ibf_cur_lit(&c, "LOG=DWN")))
		return perr(r, ln, "expected 'LOG=ACT|ARM|INI|DWN'", s, n);
	ibf_cur_ws(&c);
	/* older releases end the line after LOG=: the speed stays unknown */
	if (!ibf_cur_end(&c)) {
		if (!ibf_cur_lit(&c, "SPD="))
			return perr(r, ln, "expected 'SPD=' or the end of the line", s, n);
		t = c.p;
		while (c.p < c.e && !ibf_is_ws(*c.p))
			c.p++;
		int ok;
		sp = lst_speed(t, (size_t)(c.p - t), &ok);
		if (!ok)
			return perr(r, ln, "bad SPD speed", t, (size_t)(c.p - t));
	}
	if (!ibf_cur_end(&c))
		return perr(r, ln, "unexpected text at the end of the line", c.p,
			    (size_t)(c.e - c.p));
	int32_t na, nb;
	int rc;
	if ((rc = get_node(r, &a, ln, &na)) || (rc = get_node(r, &b, ln, &nb)))
		return rc;
	if (a.pn < 1 || a.pn > a.nports || b.pn < 1 || b.pn > b.nports)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "port number out of range of the node's ports");
	set_end(r->f, na, &a);
	set_end(r->f, nb, &b);
	if (r->nlk == r->caplk) {
		size_t nc = r->caplk ? r->caplk * 2 : 1024;
		struct lk *nl = realloc(r->lk, nc * sizeof(*nl));
		if (!nl)
			return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
		r->lk = nl;
		r->caplk = nc;
	}
	r->lk[r->nlk++] = (struct lk){ na, nb, (uint8_t)a.pn, (uint8_t)b.pn, w, sp, ln };
	return 0;
}

static int one_line_cb(void *ctx, const char *s, size_t n, long ln)
{
	return one_line(ctx, s, n, ln);
}

struct ibf_fabric *ibf_io_read_subnet_lst(const char *buf, size_t len, const char *name,
					  struct ibf_error *err)
{
	struct ibf_error local;
	struct lrd r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.err = err ? err : &local;
	r.f = ibf_fabric_new();
	if (!r.f) {
		ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	int rc = ibf_each_line(buf, len, name, r.err, one_line_cb, &r);
	if (!rc && r.f->nnodes == 0)
		rc = ibf_error_set(r.err, IBF_EPARSE, name, 0, "no links found");
	if (!rc)
		rc = ibf_linker_init(&r.k, r.f, name, r.err);
	for (size_t i = 0; !rc && i < r.nlk; i++)
		rc = ibf_linker_add(&r.k, r.lk[i].a, r.lk[i].pa, r.lk[i].b, r.lk[i].pb, r.lk[i].w,
				    r.lk[i].s, r.lk[i].line, r.err);
	if (!rc && (ibf_io_meta_add(r.f, "format", "subnet-lst") ||
		    ibf_linker_meta(&r.k)))
		rc = ibf_error_set(r.err, IBF_ENOMEM, name, 0, "out of memory");
	if (!rc)
		rc = ibf_io_check_unicast_lids(r.f, name, NULL, r.err);
	if (!rc)
		rc = ibf_fabric_finalize(r.f, r.err);
	ibf_linker_free(&r.k);
	ibf_umap_free(&r.guids);
	free(r.defline);
	free(r.lk);
	if (rc) {
		ibf_fabric_free(r.f);
		return NULL;
	}
	return r.f;
}
