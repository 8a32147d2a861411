/* LFT dumps: the opensm-lfts.dump writer and a reader for both that format
 * and the dump_lfts / ibroute text layout.
 *
 * opensm-lfts.dump (osm_dump.c, what `opensm -R file -U FILE` loads):
 *   Unicast lids [0-<max>] of switch Lid <dec> guid 0x<16hex> ('<desc>'):
 *   0x<4hex> <3-digit port> # <Channel Adapter|Switch|Router> portguid 0x<16hex>: '<desc>'
 *   0x<4hex> <3-digit port> # unknown node and type
 *   <max> lids dumped
 * dump_lfts / ibroute:
 *   Unicast lids [0x<lo>-0x<hi>] of switch <Lid N | DR path ...> guid 0x<16hex> (<desc>):
 *     Lid  Out   Destination
 *          Port     Info
 *   0x<4hex> <3-digit port> : (<type> portguid 0x<16hex>: '<desc>')
 *   <n> valid lids dumped        (<n> lids dumped with -a, which also
 *                                 lists port 255 entries as "illegal port")
 * Older OpenSM (opensm.fdbs) and ibdiagnet (ibdiagnet.fdbs):
 *   [osm_ucast_mgr_|__osm_ucast_mgr_]dump_ucast_routes: Switch 0x<16hex>
 *   LID    : Port : Hops : Optimal
 *   0x<4hex> : <port> : <hops> : <yes|no> [more text]
 *   0x<4hex> : UNREACHABLE | No path ...
 *   (no footer: a table ends at the next switch, a blank line or the end)
 * All forms are recognised line by line, so a file may even mix them. */
#include "ibf_routing.h"
#include "ibf_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ writer */

static const char *type_name(int type)
{
	switch (type) {
	case IBF_NODE_CA:
		return "Channel Adapter";
	case IBF_NODE_SWITCH:
		return "Switch";
	case IBF_NODE_ROUTER:
		return "Router";
	default:
		return "Unknown";
	}
}

/* A growable byte buffer for the writer. */
struct obuf {
	char *b;
	size_t n, cap;
	int oom;
};

static void ob_put(struct obuf *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->n + n > o->cap) {
		size_t nc = o->cap ? o->cap : 4096;
		while (nc < o->n + n)
			nc *= 2;
		char *t = realloc(o->b, nc);
		if (!t) {
			o->oom = 1;
			return;
		}
		o->b = t;
		o->cap = nc;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* Node descriptions go between quotes on one line: control characters
 * become spaces. */
static void ob_desc(struct obuf *o, const char *d)
{
	for (; d && *d; d++) {
		char c = (unsigned char)*d < 0x20 ? ' ' : *d;
		ob_put(o, &c, 1);
	}
}

static void ob_fmt(struct obuf *o, const char *fmt, unsigned long long a, unsigned long long b)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), fmt, a, b);
	ob_put(o, tmp, (size_t)n);
}

int ibf_lfts_write_stream(const struct ibf_fabric *f, const struct ibf_routes *r, FILE *fp,
			  struct ibf_error *err)
{
	int rc = ibf_routes_fit(f, r, err);
	if (rc)
		return rc;
	struct ibf_lidmap m;
	rc = ibf_lidmap_build(f, &m, err);
	if (rc)
		return rc;
	/* The text after "# " depends only on the LID: build it once.  Lines
	 * are then a fixed 12-byte prefix and a copy. */
	struct obuf sfx = { 0 }, line = { 0 };
	uint32_t *soff = malloc(((size_t)r->max_lid + 2) * sizeof(*soff));
	if (!soff) {
		ibf_lidmap_free(&m);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t lid = 0; lid <= r->max_lid; lid++) {
		soff[lid] = (uint32_t)sfx.n;
		int on = lid <= m.max_lid ? m.node[lid] : -1;
		if (on < 0) {
			ob_put(&sfx, "unknown node and type\n", 22);
			continue;
		}
		const struct ibf_node *o = &f->nodes[on];
		uint64_t pg = ibf_port(f, on, m.port[lid])->guid;
		if (!pg)
			pg = o->guid;
		const char *tn = type_name(o->type);
		ob_put(&sfx, tn, strlen(tn));
		ob_fmt(&sfx, " portguid 0x%016llx: '", (unsigned long long)pg, 0);
		ob_desc(&sfx, o->desc);
		ob_put(&sfx, "'\n", 2);
		if (sfx.n > UINT32_MAX / 2)
			sfx.oom = 1;
	}
	soff[r->max_lid + 1] = (uint32_t)sfx.n;
	static const char hex[] = "0123456789abcdef";
	for (uint32_t s = 0; s < f->nsw && !sfx.oom && !line.oom; s++) {
		int sn = f->switches[s];
		const struct ibf_node *n = &f->nodes[sn];
		line.n = 0;
		ob_fmt(&line, "Unicast lids [0-%llu] of switch Lid %llu guid ",
		       (unsigned long long)r->max_lid,
		       (unsigned long long)f->ports[n->port_off].lid);
		ob_fmt(&line, "0x%016llx ('", (unsigned long long)n->guid, 0);
		ob_desc(&line, n->desc);
		ob_put(&line, "'):\n", 4);
		const uint8_t *lft = ibf_lft(r, s);
		for (uint32_t lid = 0; lid <= r->max_lid; lid++) {
			unsigned p = lft[lid];
			if (p == IBF_LFT_NONE)
				continue;
			char pre[12] = { '0',
					 'x',
					 hex[(lid >> 12) & 15],
					 hex[(lid >> 8) & 15],
					 hex[(lid >> 4) & 15],
					 hex[lid & 15],
					 ' ',
					 (char)('0' + p / 100),
					 (char)('0' + p / 10 % 10),
					 (char)('0' + p % 10),
					 ' ',
					 '#' };
			ob_put(&line, pre, sizeof(pre));
			ob_put(&line, " ", 1);
			ob_put(&line, sfx.b + soff[lid], soff[lid + 1] - soff[lid]);
		}
		ob_fmt(&line, "%llu lids dumped\n", (unsigned long long)r->max_lid, 0);
		if (!line.oom && fwrite(line.b, 1, line.n, fp) != line.n) {
			rc = ibf_error_set(err, IBF_EIO, NULL, 0, "write error");
			break;
		}
	}
	if (!rc && (sfx.oom || line.oom))
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	free(sfx.b);
	free(line.b);
	free(soff);
	ibf_lidmap_free(&m);
	return rc;
}

int ibf_lfts_write(const struct ibf_fabric *f, const struct ibf_routes *r, const char *path,
		   struct ibf_error *err)
{
	if (!f->finalized || r->nsw != f->nsw || !r->lft)
		return ibf_lfts_write_stream(f, r, NULL, err); /* reports the problem */
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	rc = ibf_lfts_write_stream(f, r, a.fp, err);
	if (rc) {
		ibf_atomic_commit(&a, 0, NULL);
		return rc;
	}
	return ibf_atomic_commit(&a, 1, err);
}

/* ------------------------------------------------------------ reader */

struct guid_sw {
	uint64_t guid;
	uint32_t sw;
};

static int guid_cmp(const void *a, const void *b)
{
	const struct guid_sw *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_space(const char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

/* Hex number without the 0x; at most max_digits significant digits.
 * Returns the end, or NULL when there is no digit or it is too long. */
static const char *parse_hex(const char *s, int max_digits, uint64_t *v)
{
	uint64_t x = 0;
	int nd = 0;
	while (*s == '0' && ((s[1] >= '0' && s[1] <= '9') || (s[1] >= 'a' && s[1] <= 'f') ||
			     (s[1] >= 'A' && s[1] <= 'F')))
		s++, nd = 1; /* leading zeros do not count */
	int sig = 0;
	for (;; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (++sig > max_digits)
			return NULL;
		x = x << 4 | (uint64_t)d;
		nd = 1;
	}
	if (!nd)
		return NULL;
	*v = x;
	return s;
}

static const char *parse_dec(const char *s, uint64_t limit, uint64_t *v)
{
	uint64_t x = 0;
	const char *b = s;
	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > limit)
			return NULL;
		s++;
	}
	if (s == b)
		return NULL;
	*v = x;
	return s;
}

/* "0x1f" or "31" */
static const char *parse_num(const char *s, uint64_t limit, uint64_t *v)
{
	const char *e;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		e = parse_hex(s + 2, 16, v);
	else
		e = parse_dec(s, limit, v);
	if (!e || *v > limit)
		return NULL;
	return e;
}

struct rd {
	const struct ibf_fabric *f;
	struct ibf_routes *r;
	const char *name;
	struct ibf_error *err;
	struct guid_sw *idx;
	size_t nidx;
	uint8_t *seen; /* [nsw] line of header seen (as a flag) */
	long ln;
	int tables; /* tables opened so far */
	/* the open table */
	int open;
	int fdbs; /* the open table is an fdbs block (no footer) */
	uint32_t sw;
	long hdr_line;
	uint64_t lo, hi;	/* LID range of the open "Unicast lids" header */
	/* ibroute / dump_lfts tables (a "[0x..-0x..]" header): the open one
	 * is one (ib_open) and has an entry for its top LID hi (ib_hi_seen);
	 * of all of them, how many there were, how many had a top LID that
	 * is a multiple of 64 and no entry for it, and that LID (0 when
	 * they differ) */
	int ib_open, ib_hi_seen, ib_tables, ib_unread;
	uint64_t ib_unread_lid;
	int high_port;		/* the open table has an entry to a port >= 128 */
	struct ibf_lidmap lids; /* the fabric's LIDs, built when first needed */
	int have_lids;
};

/* The open table ends.  infiniband-diags' ibroute (and dump_lfts, which
 * runs it per switch) reads the forwarding-table blocks below
 * ALIGN(top, 64) / 64, so when the switch's top LID is a multiple of 64 the
 * block that holds it is never read and the top LID has no entry, whatever
 * the switch does with it (ibtracert, which reads the block, shows the
 * path).  Counted here, so callers can say why that LID looks unrouted. */
static void table_close(struct rd *d)
{
	if (d->open && d->ib_open) {
		d->ib_tables++;
		if (d->hi && d->hi % 64 == 0 && d->lo <= d->hi && !d->ib_hi_seen) {
			d->ib_unread_lid = d->ib_unread && d->ib_unread_lid != d->hi ? 0 : d->hi;
			d->ib_unread++;
		}
	}
	d->open = 0;
	d->ib_open = 0;
}

static const char *sw_desc(const struct rd *d, uint32_t sw)
{
	const char *s = d->f->nodes[d->f->switches[sw]].desc;
	return s ? s : "";
}

/* The fabric's LID map, built when first needed. */
static int rd_lids(struct rd *d)
{
	if (d->have_lids)
		return 0;
	int rc = ibf_lidmap_build(d->f, &d->lids, d->err);
	if (!rc)
		d->have_lids = 1;
	return rc;
}

/* one LFT entry of the open table; port 255 ("illegal port" of dump_lfts
 * -a) leaves no entry */
static int set_entry(struct rd *d, uint64_t lid, uint64_t port)
{
	if (d->ib_open && lid == d->hi)
		d->ib_hi_seen = 1;
	if (lid > d->r->max_lid)
		return ibf_error_set(d->err, IBF_EINVAL, d->name, d->ln,
				     "LID 0x%04llx is above the fabric's largest LID 0x%04x (LMC "
				     "%u: tables made with another LMC, or for another fabric? "
				     "give --lmc or --guid2lid as when they were made)",
				     (unsigned long long)lid, d->r->max_lid, (unsigned)d->r->lmc);
	if (port == IBF_LFT_NONE)
		return 0;
	const struct ibf_node *n = &d->f->nodes[d->f->switches[d->sw]];
	if (port > n->nports)
		return ibf_error_set(d->err, IBF_EINVAL, d->name, d->ln,
				     "port %llu is beyond the %u ports of switch '%s'",
				     (unsigned long long)port, (unsigned)n->nports,
				     sw_desc(d, d->sw));
	/* no tool prints a LID twice in one table (and a second table of the
	 * same switch is refused): a repeat is a damaged dump, e.g. an ibroute
	 * output whose LID column stuck at one value */
	uint8_t *ent = &ibf_lft(d->r, d->sw)[lid];
	if (*ent != IBF_LFT_NONE)
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "LID 0x%04llx appears twice in the table of switch '%s' "
				     "(line %ld), here with port %llu, before with port %u: a "
				     "damaged dump",
				     (unsigned long long)lid, sw_desc(d, d->sw), d->hdr_line,
				     (unsigned long long)port, (unsigned)*ent);
	*ent = (uint8_t)port;
	if (port >= 128)
		d->high_port = 1;
	return 0;
}

/* open the table of the switch with this node (or port 0) GUID; lid: the
 * header's "Lid N" (-1: none).  Two switches that report one GUID (a
 * firmware bug, or a node the reader split because two ports claim one
 * peer port) each have a table: the one whose LID the header names, else
 * the first (in switch order, as ibfab writes them) not read yet. */
static int open_switch(struct rd *d, uint64_t guid, long lid)
{
	/* lower bound: the first (lowest switch index) entry with this GUID */
	size_t lo_i = 0, hi_i = d->nidx;
	while (lo_i < hi_i) {
		size_t mid = (lo_i + hi_i) / 2;
		if (d->idx[mid].guid < guid)
			lo_i = mid + 1;
		else
			hi_i = mid;
	}
	const struct guid_sw *hit =
		lo_i < d->nidx && d->idx[lo_i].guid == guid ? &d->idx[lo_i] : NULL;
	if (hit && lo_i + 1 < d->nidx && d->idx[lo_i + 1].guid == guid) {
		const struct guid_sw *by_lid = NULL, *unseen = NULL;
		for (size_t i = lo_i; i < d->nidx && d->idx[i].guid == guid; i++) {
			uint32_t s = d->idx[i].sw;
			if (d->seen[s])
				continue;
			const struct ibf_node *n = &d->f->nodes[d->f->switches[s]];
			if (!by_lid && lid > 0 && d->f->ports[n->port_off].lid == (uint32_t)lid)
				by_lid = &d->idx[i];
			if (!unseen)
				unseen = &d->idx[i];
		}
		if (by_lid)
			hit = by_lid;
		else if (unseen)
			hit = unseen;
	}
	if (!hit) {
		int other = ibf_fabric_find_guid(d->f, guid);
		if (other >= 0)
			return ibf_error_set(
				d->err, IBF_EINVAL, d->name, d->ln,
				"guid 0x%016llx is '%s', not a switch", (unsigned long long)guid,
				d->f->nodes[other].desc ? d->f->nodes[other].desc : "");
		return ibf_error_set(d->err, IBF_EINVAL, d->name, d->ln,
				     "switch guid 0x%016llx is not in the fabric",
				     (unsigned long long)guid);
	}
	if (d->seen[hit->sw])
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "switch guid 0x%016llx ('%s') appears twice",
				     (unsigned long long)guid, sw_desc(d, hit->sw));
	d->seen[hit->sw] = 1;
	d->open = 1;
	d->sw = hit->sw;
	d->hdr_line = d->ln;
	d->fdbs = 0;
	d->high_port = 0;
	d->lo = 0;
	d->hi = d->r->max_lid;
	d->tables++;
	return 0;
}

/* "...dump_ucast_routes: Switch 0x<guid>" of an fdbs file */
static int rd_fdbs_header(struct rd *d, const char *p)
{
	p = skip_space(p + strlen("dump_ucast_routes:"));
	uint64_t guid;
	const char *e = NULL;
	if (starts(p, "Switch"))
		p = skip_space(p + 6);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		e = parse_hex(p + 2, 16, &guid);
	if (!e || *skip_space(e))
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "malformed 'dump_ucast_routes: Switch 0x<guid>' header");
	int rc = open_switch(d, guid, -1);
	if (!rc)
		d->fdbs = 1;
	return rc;
}

/* "0x<lid> : <port> : <hops> : <optimal>" or "0x<lid> : UNREACHABLE" */
static int rd_fdbs_entry(struct rd *d, const char *line)
{
	uint64_t lid, port;
	const char *p = parse_hex(line + 2, 4, &lid);
	if (p)
		p = skip_space(p);
	if (!p || *p != ':')
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "expected '0x<lid> : <port> : <hops> : <optimal>'");
	p = skip_space(p + 1);
	if (!(*p >= '0' && *p <= '9'))
		return 0; /* UNREACHABLE, "No path", ...: no entry */
	p = parse_dec(p, 999, &port);
	if (!p || (*p && !is_space(*p) && *p != ':'))
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "expected '0x<lid> : <port> : <hops> : <optimal>'");
	return set_entry(d, lid, port);
}

static int rd_header(struct rd *d, const char *line)
{
	const char *p = line + strlen("Unicast lids");
	p = skip_space(p);
	if (*p != '[')
		goto bad;
	p++;
	uint64_t lo, hi;
	int ib = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	p = parse_num(p, 0xFFFF, &lo);
	if (!p || *p != '-')
		goto bad;
	p = parse_num(p + 1, 0xFFFF, &hi);
	if (!p || *p != ']' || hi < lo)
		goto bad;
	p = skip_space(p + 1);
	if (!starts(p, "of switch"))
		goto bad;
	const char *g = strstr(p, " guid 0x");
	if (!g)
		goto bad;
	uint64_t guid;
	const char *e = parse_hex(g + strlen(" guid 0x"), 16, &guid);
	if (!e || (*e && !is_space(*e)))
		goto bad;
	/* "of switch Lid N guid ..." (ibfab, dump_lfts); "DR path ..." has none */
	long lid = -1;
	const char *l = skip_space(p + strlen("of switch"));
	uint64_t lv;
	if (starts(l, "Lid ") && (l = parse_dec(skip_space(l + 4), 0xFFFF, &lv)) != NULL &&
	    l <= g)
		lid = (long)lv;
	int rc = open_switch(d, guid, lid);
	d->lo = lo;
	d->hi = hi;
	d->ib_open = ib;
	d->ib_hi_seen = 0;
	return rc;
bad:
	return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln, "malformed 'Unicast lids' header");
}

/* The comment of an entry (ibfab's dump, dump_lfts, ibroute) names the port
 * the LID belonged to where the dump was made: "... portguid 0x<16hex>".
 * When that port has another LID in this fabric, the tables were made for
 * another LID assignment (a plan's LIDs, a fabric since re-swept): every
 * entry would send packets to the wrong ports, so it is an error here, not
 * misdeliveries found later. */
static int check_owner(struct rd *d, uint64_t lid, const char *rest)
{
	const char *g = strstr(rest, "portguid 0x");
	if (!g)
		return 0;
	uint64_t pg;
	const char *e = parse_hex(g + strlen("portguid 0x"), 16, &pg);
	if (!e || !pg)
		return 0;
	int rc = rd_lids(d);
	if (rc)
		return rc;
	const struct ibf_fabric *f = d->f;
	int node = lid <= d->lids.max_lid ? d->lids.node[lid] : -1;
	if (node >= 0) {
		const struct ibf_port *pt = ibf_port(f, node, d->lids.port[lid]);
		if (!pt->guid || pt->guid == pg || f->nodes[node].guid == pg)
			return 0;
		const struct ibf_node *n = &f->nodes[node];
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "LID 0x%04llx belongs to port guid 0x%016llx in the dump but "
				     "to '%s' port %u (guid 0x%016llx) in the fabric: the tables "
				     "were made for other LIDs (route the fabric as discovered, "
				     "or give its LIDs with --guid2lid or the --lmc they were "
				     "made with)",
				     (unsigned long long)lid, (unsigned long long)pg,
				     n->desc ? n->desc : "", (unsigned)d->lids.port[lid],
				     (unsigned long long)pt->guid);
	}
	return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
			     "LID 0x%04llx belongs to port guid 0x%016llx in the dump but to no "
			     "port of the fabric: the tables were made for other LIDs (route the "
			     "fabric as discovered, or give its LIDs with --guid2lid or the "
			     "--lmc they were made with)",
			     (unsigned long long)lid, (unsigned long long)pg);
}

static int rd_entry(struct rd *d, const char *line)
{
	uint64_t lid, port;
	const char *p = parse_hex(line + 2, 4, &lid);
	if (!p || !is_space(*p))
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "expected '0x<lid> <port>'");
	p = skip_space(p);
	p = parse_dec(p, 999, &port);
	if (!p || (*p && !is_space(*p)))
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "expected '0x<lid> <port>'");
	p = skip_space(p);
	if (*p && *p != '#' && *p != ':')
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "unexpected text after the port number");
	if (!d->open)
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "LFT entry outside a switch table");
	int rc = set_entry(d, lid, port);
	if (rc)
		return rc;
	return check_owner(d, lid, p);
}

/* "<n> lids dumped" / "<n> valid lids dumped"; returns 1 when the line is
 * a footer (and *n is set, *valid when it says "valid"), 0 otherwise. */
static int is_footer(const char *line, uint64_t *n, int *valid)
{
	const char *p = parse_dec(line, 0xFFFFFFFFull, n);
	if (!p || !is_space(*p))
		return 0;
	p = skip_space(p);
	*valid = starts(p, "valid");
	if (*valid)
		p = skip_space(p + 5);
	if (!starts(p, "lids dumped"))
		return 0;
	p = skip_space(p + strlen("lids dumped"));
	return *p == '\0';
}

/* dump_lfts (dump_fts) of infiniband-diags before rdma-core 63, and ibroute
 * before 36, kept the table in signed chars: every entry to a port >= 128
 * looked negative, "illegal", and was left out unless -a was given (which
 * prints it with its right port number).  A table of only the valid entries
 * of a switch with 128 ports or more that names no such port and misses a
 * LID the fabric has is such a dump: an error, not routes that vanish. */
static int check_high_ports(struct rd *d)
{
	const struct ibf_node *n = &d->f->nodes[d->f->switches[d->sw]];
	if (n->nports < 128 || d->high_port)
		return 0;
	int rc = rd_lids(d);
	if (rc)
		return rc;
	const uint8_t *lft = ibf_lft(d->r, d->sw);
	uint64_t top = d->hi < d->lids.max_lid ? d->hi : d->lids.max_lid;
	for (uint64_t lid = d->lo ? d->lo : 1; lid <= top; lid++)
		if (d->lids.node[lid] >= 0 && lft[lid] == IBF_LFT_NONE)
			return ibf_error_set(
				d->err, IBF_EPARSE, d->name, d->ln,
				"the table of switch '%s' (%d ports, line %ld) has no entry for "
				"LID 0x%04llx and none to a port above 127: dump_lfts before "
				"rdma-core 63 (ibroute before 36) leaves entries to ports 128 and "
				"up out; dump with -a, whose '(illegal port)' lines keep them",
				sw_desc(d, d->sw), n->nports, d->hdr_line, (unsigned long long)lid);
	return 0;
}

static int rd_line(struct rd *d, char *line)
{
	/* strip trailing white space and CR */
	size_t len = strlen(line);
	while (len && (is_space(line[len - 1]) || line[len - 1] == '\r'))
		line[--len] = '\0';
	const char *s = skip_space(line);
	if (!*s && d->open && d->fdbs) {
		d->open = 0; /* a blank line ends an fdbs block */
		return 0;
	}
	if (!*s || *s == '#')
		return 0;
	const char *fh = strstr(s, "dump_ucast_routes:");
	if (fh && (fh == s || starts(s, "osm_ucast_mgr_") || starts(s, "__osm_ucast_mgr_"))) {
		if (d->open && !d->fdbs)
			return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
					     "new table before the end of the table of switch '%s' "
					     "(line %ld)",
					     sw_desc(d, d->sw), d->hdr_line);
		d->open = 0;
		return rd_fdbs_header(d, fh);
	}
	if (d->open && d->fdbs) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			return rd_fdbs_entry(d, s);
		if ((starts(s, "LID") && strstr(s, "Port")) || starts(s, "PLFT_NUM"))
			return 0;
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln, "unrecognised line");
	}
	if (starts(s, "PLFT_NUM"))
		return 0;
	if (starts(s, "Multicast mlids"))
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				     "a multicast forwarding table (dump_mfts, ibroute -M) is not "
				     "supported: give the unicast tables (dump_lfts, ibroute, "
				     "opensm-lfts.dump)");
	if (starts(s, "Unicast lids")) {
		if (d->open)
			return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
					     "new table before the end of the table of switch '%s' "
					     "(line %ld)",
					     sw_desc(d, d->sw), d->hdr_line);
		return rd_header(d, s);
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return rd_entry(d, s);
	uint64_t n;
	int valid = 0;
	if (is_footer(s, &n, &valid)) {
		if (!d->open)
			return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
					     "'lids dumped' line outside a switch table");
		/* the count is not checked: opensm writes the top LID, dump_lfts
		 * the number of lines, and excerpts of dumps keep the footer */
		table_close(d);
		return valid ? check_high_ports(d) : 0;
	}
	/* ibroute/dump_lfts stopped by a failed query print
	 * "/usr/sbin/ibroute: iberror: failed: dump tables: linear forwarding
	 * table get failed" (on stderr, captured with 2>&1) instead of the
	 * footer: the table ends there and keeps the entries printed before
	 * it; LIDs it never got to have no entry ('route check' reports them
	 * as unrouted) */
	if (strstr(s, "iberror: ")) {
		table_close(d);
		return 0;
	}
	/* the deprecation notice Debian's dump_lfts prints after its tables */
	if (!d->open && (starts(s, "*** WARNING ***") || starts(s, "WARNING:")))
		return 0;
	/* libibmad/umad warnings captured with 2>&1 (ibsim-run's "ibwarn: ...
	 * sim_connect: attached as client" on top); inside a table they mean
	 * a failed query and stay errors */
	if (!d->open && (starts(s, "ibwarn:") || starts(s, "ibdebug:")))
		return 0;
	/* dump_lfts column headings */
	if (d->open && ((starts(s, "Lid") && strstr(s, "Out") && strstr(s, "Destination")) ||
			(starts(s, "Port") && strstr(s, "Info"))))
		return 0;
	return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln, "unrecognised line");
}

static int rd_begin(struct rd *d, const struct ibf_fabric *f, struct ibf_routes *r,
		    const char *name, struct ibf_error *err)
{
	memset(d, 0, sizeof(*d));
	memset(r, 0, sizeof(*r));
	d->f = f;
	d->r = r;
	d->name = name;
	d->err = err;
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, name, 0, "fabric not finalized");
	int rc = ibf_routes_init(r, f->nsw, ibf_max_lid(f), 0, err);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < f->nports_total; i++)
		if (f->ports[i].lid && f->ports[i].lmc > r->lmc)
			r->lmc = f->ports[i].lmc;
	d->idx = malloc(((size_t)f->nsw * 2 + 1) * sizeof(*d->idx));
	d->seen = calloc((size_t)f->nsw + 1, 1);
	if (!d->idx || !d->seen)
		return ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
	for (uint32_t s = 0; s < f->nsw; s++) {
		const struct ibf_node *n = &f->nodes[f->switches[s]];
		d->idx[d->nidx++] = (struct guid_sw){ n->guid, s };
		uint64_t pg = f->ports[n->port_off].guid;
		if (pg && pg != n->guid)
			d->idx[d->nidx++] = (struct guid_sw){ pg, s };
	}
	qsort(d->idx, d->nidx, sizeof(*d->idx), guid_cmp);
	return 0;
}

/* One line of l bytes (no newline) in a writable, NUL-terminated buffer. */
static int rd_feed(struct rd *d, char *line, size_t l)
{
	d->ln++;
	if (memchr(line, '\0', l))
		return ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln, "binary data (NUL byte)");
	if (d->ln == 1)
		line += ibf_bom_len(line, l);
	return rd_line(d, line);
}

static int rd_end(struct rd *d, int rc)
{
	if (!rc && d->open && !d->fdbs)
		rc = ibf_error_set(
			d->err, IBF_EPARSE, d->name, d->ln,
			"unexpected end of file: the table of switch '%s' (line %ld) has "
			"no 'lids dumped' line",
			sw_desc(d, d->sw), d->hdr_line);
	if (!rc && !d->tables)
		rc = ibf_error_set(d->err, IBF_EPARSE, d->name, d->ln,
				   "no 'Unicast lids' or 'dump_ucast_routes' table found");
	/* every ibroute table left its top LID out, the same LID, one the
	 * fabric has */
	if (!rc && d->ib_tables && d->ib_unread == d->ib_tables && d->ib_unread_lid &&
	    d->ib_unread_lid <= d->r->max_lid)
		d->r->unread_lid = (uint32_t)d->ib_unread_lid;
	free(d->idx);
	free(d->seen);
	d->idx = NULL;
	d->seen = NULL;
	if (d->have_lids)
		ibf_lidmap_free(&d->lids);
	d->have_lids = 0;
	if (rc)
		ibf_routes_free(d->r);
	return rc;
}

int ibf_lfts_parse(const struct ibf_fabric *f, const char *buf, size_t len, const char *name,
		   struct ibf_routes *r, struct ibf_error *err)
{
	struct rd d;
	if (!name)
		name = "<buffer>";
	int rc = rd_begin(&d, f, r, name, err);
	char *line = NULL;
	size_t cap = 0, pos = 0;
	while (!rc && pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		if (l + 1 > cap) {
			size_t nc = cap ? cap : 256;
			while (nc < l + 1)
				nc *= 2;
			char *t = realloc(line, nc);
			if (!t) {
				rc = ibf_error_set(err, IBF_ENOMEM, name, d.ln + 1,
						   "out of memory");
				break;
			}
			line = t;
			cap = nc;
		}
		memcpy(line, buf + pos, l);
		line[l] = '\0';
		rc = rd_feed(&d, line, l);
		pos += l + (nl ? 1 : 0);
	}
	free(line);
	return rd_end(&d, rc);
}

int ibf_lfts_read(const struct ibf_fabric *f, const char *path, struct ibf_routes *r,
		  struct ibf_error *err)
{
	memset(r, 0, sizeof(*r));
	if (ibf_stdin_claim(path, err))
		return IBF_EINVAL;
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!fp)
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot open: %s", strerror(errno));
	struct rd d;
	int rc = rd_begin(&d, f, r, path, err);
	char *line = NULL;
	size_t cap = 0;
	while (!rc) {
		errno = 0;
		ssize_t n = getline(&line, &cap, fp);
		if (n < 0) {
			if (ferror(fp))
				rc = ibf_error_set(err, errno == ENOMEM ? IBF_ENOMEM : IBF_EIO,
						   path, d.ln + 1, "read error");
			break;
		}
		size_t l = (size_t)n;
		if (l && line[l - 1] == '\n')
			line[--l] = '\0';
		rc = rd_feed(&d, line, l);
	}
	free(line);
	if (fp != stdin)
		fclose(fp);
	return rd_end(&d, rc);
}
