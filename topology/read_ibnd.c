/* Reader for ibnetdiscover topology files and ibsim net files.
 *
 * Both are records of optional attribute lines (vendid=, devid=,
 * sysimgguid=, switchguid=/caguid=/rtguid=), a node header
 * (Switch|Ca|Hca|Rt <nports> "<id>" # "<desc>" ...) and one line per cabled
 * port ([p](guid) "<peer id>"[pp](peer guid) # ...).  Every line is parsed
 * from the input buffer in place; peers are resolved by id through a hash
 * map once the whole file is read, so records may come in any order.
 *
 * ibsim mode follows what ibsim itself does with a file: node GUIDs come
 * from the guid base lines (switchguid= / caguid= / rtguid=) and advance
 * per node, CA port GUIDs are node GUID + port, and an unspecified link
 * runs at the net default (4x SDR unless width=/speed= say otherwise). */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

/* one port line: "this port is cabled to that one" */
struct half {
	const char *pid, *pdesc;
	uint32_t pidlen, pdesclen;
	uint64_t pguid;
	long line;
	int32_t node;
	uint16_t plid;
	uint8_t port, pport, width, speed;
	uint8_t has_pguid, has_plid, has_pdesc;
};

/* a peer id that no record defines */
struct placeholder {
	const char *id, *desc;
	uint32_t idlen, desclen;
	int maxport;
	int pguid_seen; /* a line printed a port GUID for it: not a switch */
	int from_ca;	/* referenced from a CA/router record */
	long line;
};

struct rd {
	const char *name;
	int ibsim;
	struct ibf_error *err;
	struct ibf_fabric *f;
	struct ibf_smap ids;
	struct half *h;
	size_t nh, caph;
	long *defline; /* line of each node's header */
	size_t defcap;
	int cur; /* node whose port lines follow, -1 when none */
	uint32_t stderr_lines;
	uint32_t progress_lines; /* ibnetdiscover -s */
	long header_line;	 /* line of "# Topology file: generated on" */

	/* attributes waiting for the next node header */
	struct {
		int have_guid, have_p0, have_sys, have_vend, have_dev;
		uint64_t guid, p0, sys;
		uint32_t vend, dev;
	} pa;

	/* ibsim state */
	uint64_t base[4], absbase[4];
	uint32_t net_dev;
	uint8_t def_width, def_speed, def_espeed;

	char *sbuf[2];
	size_t scap[2];

	/* node records whose id was already defined (ibnetdiscover of a fabric
	 * with duplicated GUIDs): dup[k] is the later record, first[k] the
	 * first; the later one is renamed "<id>#<n>" */
	int32_t *dfirst, *ddup;
	size_t ndup, capdup;
	uint32_t clones; /* nodes split off because two ports claim one peer port */
};

enum { T_CA = IBF_NODE_CA, T_SW = IBF_NODE_SWITCH, T_RT = IBF_NODE_ROUTER };

static int perr(struct rd *r, long ln, const char *msg, const char *s, size_t n)
{
	char ex[72];
	if (s)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s: '%s'", msg,
				     ibf_io_excerpt(s, n, ex, sizeof(ex)));
	return ibf_error_set(r->err, IBF_EPARSE, r->name, ln, "%s", msg);
}

static int oom(struct rd *r, long ln)
{
	return ibf_error_set(r->err, IBF_ENOMEM, r->name, ln, "out of memory");
}

/* NUL-terminated copy of (s, n) in scratch buffer k */
static const char *scratch(struct rd *r, int k, const char *s, size_t n)
{
	if (n + 1 > r->scap[k]) {
		size_t c = r->scap[k] ? r->scap[k] : 128;
		while (c < n + 1)
			c *= 2;
		char *b = realloc(r->sbuf[k], c);
		if (!b)
			return NULL;
		r->sbuf[k] = b;
		r->scap[k] = c;
	}
	memcpy(r->sbuf[k], s, n);
	r->sbuf[k][n] = '\0';
	return r->sbuf[k];
}

static int hexdig(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* "S-0002c903000e0b72" -> 0x0002c903000e0b72; 0 when the id is not of that form */
static uint64_t guid_from_id(const char *s, size_t n)
{
	if (n < 3 || n > 18 || (s[0] != 'S' && s[0] != 'H' && s[0] != 'R') || s[1] != '-')
		return 0;
	struct ibf_cur c = { s + 2, s + n };
	for (const char *p = c.p; p < c.e; p++)
		if (!hexdig(*p))
			return 0;
	uint64_t v = 0;
	if (ibf_cur_hex(&c, &v) || c.p != c.e)
		return 0;
	return v;
}

static const char *find_sub(const char *s, const char *e, const char *sub)
{
	size_t n = strlen(sub);
	for (const char *p = s; p + n <= e; p++)
		if (*p == sub[0] && memcmp(p, sub, n) == 0)
			return p;
	return NULL;
}

static void token(struct ibf_cur *c, const char **t, size_t *tn)
{
	ibf_cur_ws(c);
	*t = c->p;
	while (c->p < c->e && !ibf_is_ws(*c->p))
		c->p++;
	*tn = (size_t)(c->p - *t);
}

static int tok_is(const char *t, size_t tn, const char *w)
{
	return strlen(w) == tn && memcmp(t, w, tn) == 0;
}

/* A decimal or 0x number as a whole token. */
static int tok_num(struct ibf_cur *c, uint64_t max, uint64_t *v)
{
	const char *t;
	size_t tn;
	token(c, &t, &tn);
	struct ibf_cur d = { t, t + tn };
	if (!tn || ibf_cur_num(&d, max, v) || d.p != d.e)
		return -1;
	return 0;
}

/* Quoted description starting at c->p (a '"'): it runs to the LAST quote of
 * the segment, so descriptions may hold quotes and '#'.  Returns -1 when
 * there is no closing quote. */
static int quoted_desc(struct ibf_cur *c, const char **d, size_t *dn)
{
	const char *q = NULL;
	for (const char *p = c->e; p > c->p + 1; p--)
		if (p[-1] == '"') {
			q = p - 1;
			break;
		}
	if (!q)
		return -1;
	*d = c->p + 1;
	*dn = (size_t)(q - c->p - 1);
	c->p = q + 1;
	return 0;
}

/* Unquoted description (ibsim): up to " lid ", " lmc ", " base port ",
 * " enhanced port " or the end; trimmed. */
static void bare_desc(struct ibf_cur *c, const char **d, size_t *dn)
{
	static const char *const marks[] = { " enhanced port ", " base port ", " lid ",
					     " lmc ",		"\tlid ",      "\tlmc " };
	const char *end = c->e;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *m = find_sub(c->p, end, marks[i]);
		if (m)
			end = m;
	}
	const char *s = c->p;
	while (s < end && ibf_is_ws(*s))
		s++;
	const char *t = end;
	while (t > s && ibf_is_ws(t[-1]))
		t--;
	*d = s;
	*dn = (size_t)(t - s);
	c->p = end;
}

/* ------------------------------------------------------------ attributes */

static int attr_line(struct rd *r, struct ibf_cur *c, const char *key, long ln)
{
	const char *line = c->p;
	size_t linelen = (size_t)(c->e - c->p);
	c->p += strlen(key);
	ibf_cur_ws(c);
	int rel = 0;
	if (ibf_cur_peek(c, '+') && r->ibsim)
		rel = 1;
	else if (!ibf_cur_peek(c, '='))
		return perr(r, ln, "expected '=' after the attribute name", line, linelen);
	c->p++;
	ibf_cur_ws(c);
	uint64_t v = 0;
	int is_guid = strstr(key, "guid") != NULL;
	int rc = is_guid ? ((ibf_cur_peek(c, '0') && c->e - c->p > 1 &&
			     (c->p[1] == 'x' || c->p[1] == 'X'))
				    ? ibf_cur_hex(c, &v)
				    : ibf_cur_udec(c, UINT64_MAX, &v))
			 : ibf_cur_num(c, UINT32_MAX, &v);
	if (rc == -2)
		return perr(r, ln, "value out of range", line, linelen);
	if (rc)
		return perr(r, ln, "expected a number", line, linelen);
	uint64_t p0 = 0;
	int have_p0 = 0;
	if (ibf_cur_peek(c, '(')) {
		c->p++;
		if (ibf_cur_hex(c, &p0) || !ibf_cur_peek(c, ')'))
			return perr(r, ln, "bad port GUID in parentheses", line, linelen);
		c->p++;
		have_p0 = 1;
	}
	ibf_cur_ws(c);
	if (c->p < c->e && *c->p != '#')
		return perr(r, ln, "unexpected text after the value", line, linelen);

	r->cur = -1;
	int t = -1;
	if (!strcmp(key, "vendid")) {
		r->pa.vend = (uint32_t)v;
		r->pa.have_vend = 1;
	} else if (!strcmp(key, "devid")) {
		r->pa.dev = (uint32_t)v;
		r->pa.have_dev = 1;
		r->net_dev = (uint32_t)v;
	} else if (!strcmp(key, "sysimgguid")) {
		r->pa.sys = v;
		r->pa.have_sys = 1;
	} else if (!strcmp(key, "switchguid")) {
		t = T_SW;
	} else if (!strcmp(key, "caguid") || !strcmp(key, "hcaguids")) {
		t = T_CA;
	} else if (!strcmp(key, "rtguid") || !strcmp(key, "routerguid")) {
		t = T_RT;
	} else if (!strcmp(key, "width")) {
		if (!ibf_width_from_ib((unsigned)v))
			return perr(r, ln, "bad width mask", line, linelen);
		r->def_width = ibf_width_from_ib((unsigned)v);
	} else if (!strcmp(key, "speed")) {
		if (!ibf_speed_from_ib((unsigned)v, 0, 0))
			return perr(r, ln, "bad speed mask", line, linelen);
		r->def_speed = ibf_speed_from_ib((unsigned)v, 0, 0);
	} else if (!strcmp(key, "extspeed")) {
		r->def_espeed = ibf_speed_from_ib(0, (unsigned)v, 0);
	}
	if (t >= 0) {
		if (rel)
			v += r->absbase[t];
		else
			r->absbase[t] = v;
		r->base[t] = v;
		r->pa.guid = v;
		r->pa.have_guid = 1;
		r->pa.p0 = p0;
		r->pa.have_p0 = have_p0;
	}
	return 0;
}

/* ------------------------------------------------------------ node header */

static int grow_defline(struct rd *r, size_t need)
{
	if (need <= r->defcap)
		return 0;
	size_t c = r->defcap ? r->defcap * 2 : 256;
	while (c < need)
		c *= 2;
	long *d = realloc(r->defline, c * sizeof(*d));
	if (!d)
		return -1;
	r->defline = d;
	r->defcap = c;
	return 0;
}

/* A second record with an id already defined: two nodes share a GUID
 * (known firmware bug of e.g. SHARP aggregation nodes).  Keep both: the
 * later one is renamed "<id>#<n>" and remembered, so that resolve() can
 * give each port line the copy whose own record points back at it. */
static int dup_record(struct rd *r, int node, int32_t first, size_t idlen)
{
	struct ibf_fabric *f = r->f;
	char *nid = malloc(idlen + 16);
	if (!nid)
		return IBF_ENOMEM;
	for (unsigned k = 2;; k++) {
		snprintf(nid, idlen + 16, "%.*s#%u", (int)idlen, f->nodes[node].id, k);
		if (ibf_smap_get(&r->ids, nid, strlen(nid)) < 0)
			break;
	}
	free(f->nodes[node].id);
	f->nodes[node].id = nid;
	int32_t old;
	if (ibf_smap_put(&r->ids, nid, strlen(nid), node, &old) < 0)
		return IBF_ENOMEM;
	if (r->ndup == r->capdup) {
		size_t nc = r->capdup ? r->capdup * 2 : 8;
		int32_t *a = realloc(r->dfirst, nc * sizeof(*a));
		if (!a)
			return IBF_ENOMEM;
		r->dfirst = a;
		a = realloc(r->ddup, nc * sizeof(*a));
		if (!a)
			return IBF_ENOMEM;
		r->ddup = a;
		r->capdup = nc;
	}
	r->dfirst[r->ndup] = first;
	r->ddup[r->ndup++] = node;
	return 0;
}

static int header_line(struct rd *r, struct ibf_cur *c, int type, long ln)
{
	const char *line = c->p;
	size_t linelen = (size_t)(c->e - c->p);
	const char *t;
	size_t tn;
	token(c, &t, &tn); /* the keyword */
	ibf_cur_ws(c);
	if (ibf_cur_peek(c, ':'))
		return perr(r, ln,
			    "a node list of ibnetdiscover -l/-H/-S/-R, ibswitches or ibhosts (no "
			    "links) is not supported: give the output of ibnetdiscover without "
			    "those options",
			    line, linelen);
	uint64_t np = 0;
	int rc = ibf_cur_udec(c, UINT64_MAX, &np);
	if (rc == -1)
		return perr(r, ln, "expected a port count in node header", line, linelen);
	if (rc == -2 || np < 1 || np > IBF_MAX_PORTS)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "node port count out of range 1..%d", IBF_MAX_PORTS);
	ibf_cur_ws(c);
	if (!ibf_cur_peek(c, '"'))
		return perr(r, ln, "expected a quoted node id in node header", line, linelen);
	const char *id = c->p + 1;
	const char *q = memchr(id, '"', (size_t)(c->e - id));
	if (!q)
		return perr(r, ln, "unterminated node id", line, linelen);
	size_t idlen = (size_t)(q - id);
	if (!idlen)
		return perr(r, ln, "empty node id", line, linelen);
	c->p = q + 1;

	const char *desc = NULL;
	size_t dlen = 0;
	int esp0 = 0;
	uint64_t lid = 0, lmc = 0;
	ibf_cur_ws(c);
	if (ibf_cur_peek(c, '#')) {
		c->p++;
		ibf_cur_ws(c);
		if (ibf_cur_peek(c, '"')) {
			if (quoted_desc(c, &desc, &dlen))
				return perr(r, ln, "unterminated node description", line, linelen);
		} else {
			bare_desc(c, &desc, &dlen);
		}
	}
	while (!ibf_cur_end(c)) {
		token(c, &t, &tn);
		if (tok_is(t, tn, "enhanced") || tok_is(t, tn, "base")) {
			int enh = t[0] == 'e';
			const char *t2, *t3;
			size_t n2, n3;
			token(c, &t2, &n2);
			token(c, &t3, &n3);
			if (!tok_is(t2, n2, "port") || !tok_is(t3, n3, "0"))
				return perr(r, ln, "expected 'port 0' after base/enhanced", line,
					    linelen);
			esp0 = enh;
		} else if (tok_is(t, tn, "lid")) {
			if (tok_num(c, 0xffff, &lid))
				return perr(r, ln, "bad LID in node header", line, linelen);
		} else if (tok_is(t, tn, "lmc")) {
			if (tok_num(c, 7, &lmc))
				return perr(r, ln, "bad LMC in node header", line, linelen);
		} else if (tok_is(t, tn, "(scp)")) {
			/* Xsigo marker */
		} else {
			return perr(r, ln, "unexpected text in node header", t, tn);
		}
	}

	/* create the node */
	struct ibf_fabric *f = r->f;
	uint64_t guid;
	if (r->ibsim) {
		guid = r->base[type];
		r->base[type] += type == T_SW ? 1 : np + 1;
	} else {
		guid = r->pa.have_guid ? r->pa.guid : guid_from_id(id, idlen);
	}
	const char *sid = scratch(r, 0, id, idlen);
	const char *sdesc = desc ? scratch(r, 1, desc, dlen) : (r->ibsim ? sid : "");
	if (!sid || !sdesc)
		return oom(r, ln);
	int node = ibf_fabric_add_node(f, type, (int)np, guid, sdesc, sid, r->err);
	if (node < 0) {
		r->err->line = ln;
		snprintf(r->err->file, sizeof(r->err->file), "%s", r->name);
		return node;
	}
	if (grow_defline(r, (size_t)node + 1))
		return oom(r, ln);
	r->defline[node] = ln;
	int32_t old;
	/* the key must outlive the map: point it at the node's own copy */
	rc = ibf_smap_put(&r->ids, f->nodes[node].id, idlen, node, &old);
	if (rc < 0)
		return oom(r, ln);
	if (rc == 1 && r->ibsim)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "node id '%s' is defined twice (first on line %ld)", sid,
				     r->defline[old]);
	if (rc == 1 && (rc = dup_record(r, node, old, idlen)))
		return rc == IBF_ENOMEM ? oom(r, ln) : rc;
	struct ibf_node *n = &f->nodes[node];
	n->enhanced_sp0 = (uint8_t)esp0;
	n->vendid = r->pa.have_vend ? r->pa.vend : 0;
	n->devid = r->pa.have_dev ? r->pa.dev : (r->ibsim ? r->net_dev : 0);
	if (r->ibsim) {
		n->sysimg_guid = r->pa.have_sys && r->pa.sys ? r->pa.sys : guid;
		if (type == T_SW) {
			ibf_port(f, node, 0)->guid = guid;
		} else {
			for (int p = 1; p <= n->nports; p++)
				ibf_port(f, node, p)->guid = guid + (uint64_t)p;
		}
	} else {
		n->sysimg_guid = r->pa.have_sys ? r->pa.sys : 0;
		if (type == T_SW)
			ibf_port(f, node, 0)->guid = r->pa.have_p0 ? r->pa.p0 : guid;
	}
	if (type == T_SW) {
		ibf_port(f, node, 0)->lid = (uint16_t)lid;
		ibf_port(f, node, 0)->lmc = (uint8_t)lmc;
	}
	memset(&r->pa, 0, sizeof(r->pa));
	r->cur = node;
	return 0;
}

/* ------------------------------------------------------------ port lines */

struct ptail {
	uint64_t own_lid, own_lmc, peer_lid;
	int has_own_lid, has_own_lmc, has_peer_lid;
	uint8_t width, speed;
	uint64_t wmask, smask, emask;
	int has_w, has_s, has_e;
};

/* Tokens of a port comment.  pre: before the peer description (a CA's
 * own "lid N lmc M"). */
static int port_tokens(struct rd *r, struct ibf_cur *c, int pre, struct ptail *pt, long ln)
{
	while (!ibf_cur_end(c)) {
		const char *t;
		size_t tn;
		token(c, &t, &tn);
		if (tok_is(t, tn, "lid")) {
			uint64_t v;
			if (tok_num(c, 0xffff, &v))
				return perr(r, ln, "bad LID in port line", t, (size_t)(c->e - t));
			struct ibf_cur d = *c;
			const char *t2;
			size_t n2;
			token(&d, &t2, &n2);
			if (pre || tok_is(t2, n2, "lmc")) {
				pt->own_lid = v;
				pt->has_own_lid = 1;
			} else {
				pt->peer_lid = v;
				pt->has_peer_lid = 1;
			}
		} else if (tok_is(t, tn, "lmc")) {
			if (tok_num(c, 7, &pt->own_lmc))
				return perr(r, ln, "bad LMC in port line", t, (size_t)(c->e - t));
			pt->has_own_lmc = 1;
		} else if (tok_is(t, tn, "slot")) {
			uint64_t v;
			if (tok_num(c, 0xffff, &v))
				return perr(r, ln, "bad slot number", t, (size_t)(c->e - t));
		} else if (tok_is(t, tn, "(scp)")) {
			/* Xsigo marker */
		} else if (tn >= 3 && t[1] == '=' &&
			   (t[0] == 'w' || t[0] == 's' || t[0] == 'e' || t[0] == 'v')) {
			struct ibf_cur d = { t + 2, t + tn };
			uint64_t v;
			if (ibf_cur_num(&d, 0xff, &v) || d.p != d.e)
				return perr(r, ln, "bad port option", t, tn);
			if (t[0] == 'w') {
				pt->wmask = v;
				pt->has_w = 1;
			} else if (t[0] == 's') {
				pt->smask = v;
				pt->has_s = 1;
			} else if (t[0] == 'e') {
				pt->emask = v;
				pt->has_e = 1;
			}
		} else if (tn >= 2 && ((t[0] >= '0' && t[0] <= '9') || t[0] == '?')) {
			if (ibf_io_parse_ws(t, tn, &pt->width, &pt->speed))
				return perr(r, ln, "bad link width/speed", t, tn);
		} else {
			return perr(r, ln, "unexpected text in port line", t, tn);
		}
	}
	return 0;
}

static int opt_bracket_ext(struct ibf_cur *c)
{
	/* "[ext N]" as ibnetdiscover -g prints external port numbers */
	struct ibf_cur d = *c;
	uint64_t v;
	if (!ibf_cur_lit(&d, "[ext"))
		return 0;
	ibf_cur_ws(&d);
	if (ibf_cur_udec(&d, 0xffff, &v) || !ibf_cur_peek(&d, ']'))
		return -1;
	c->p = d.p + 1;
	return 0;
}

/* "[port][ext N](port GUID)" of the node being read: h->port, *own_guid. */
static int port_own(struct rd *r, struct ibf_cur *c, long ln, struct half *h, uint64_t *own_guid,
		    int *has_own_guid)
{
	const char *line = c->p;
	size_t linelen = (size_t)(c->e - c->p);
	const struct ibf_node *n = &r->f->nodes[r->cur];
	c->p++; /* '[' */
	uint64_t port;
	int rc = ibf_cur_udec(c, UINT64_MAX, &port);
	if (rc == -1 || !ibf_cur_peek(c, ']'))
		return perr(r, ln, "expected '[port]'", line, linelen);
	c->p++;
	if (rc == -2 || port < 1 || port > IBF_MAX_PORTS)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "port number out of range 1..%d", IBF_MAX_PORTS);
	if (port > n->nports)
		return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
				     "port %d is beyond the %d ports of '%s'", (int)port, n->nports,
				     n->id);
	h->port = (uint8_t)port;
	if (opt_bracket_ext(c))
		return perr(r, ln, "bad '[ext N]'", line, linelen);
	ibf_cur_ws(c);
	if (ibf_cur_peek(c, '(')) {
		c->p++;
		if (ibf_cur_hex(c, own_guid) || !ibf_cur_peek(c, ')'))
			return perr(r, ln, "bad port GUID in parentheses", line, linelen);
		c->p++;
		*has_own_guid = 1;
		ibf_cur_ws(c);
	}
	return 0;
}

/* "\"peer id\"[peer port][ext N](peer port GUID)" (line, linelen: the
 * whole port line for messages). */
static int port_peer(struct rd *r, struct ibf_cur *c, long ln, struct half *h, const char *line,
		     size_t linelen)
{
	if (!ibf_cur_peek(c, '"'))
		return perr(r, ln, "expected a quoted peer id", line, linelen);
	h->pid = c->p + 1;
	const char *q = memchr(h->pid, '"', (size_t)(c->e - h->pid));
	if (!q)
		return perr(r, ln, "unterminated peer id", line, linelen);
	if (q == h->pid)
		return perr(r, ln, "empty peer id", line, linelen);
	if ((size_t)(q - h->pid) > UINT32_MAX / 2)
		return perr(r, ln, "peer id too long", NULL, 0);
	h->pidlen = (uint32_t)(q - h->pid);
	c->p = q + 1;
	h->pport = 1; /* ibsim's default */
	int has_pport = ibf_cur_peek(c, '[') && !(c->e - c->p >= 4 && !memcmp(c->p, "[ext", 4));
	/* ibnetdiscover always prints it: without it the line was cut, and port
	 * 1 would be a wrong cable (read as a duplicate GUID) */
	if (!has_pport && !r->ibsim)
		return perr(r, ln, "expected '[peer port]' after the peer id", line, linelen);
	if (has_pport) {
		c->p++;
		uint64_t pp;
		int rc = ibf_cur_udec(c, UINT64_MAX, &pp);
		if (rc == -1 || !ibf_cur_peek(c, ']'))
			return perr(r, ln, "expected '[peer port]'", line, linelen);
		c->p++;
		if (rc == -2 || pp < 1 || pp > IBF_MAX_PORTS)
			return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
					     "peer port number out of range 1..%d", IBF_MAX_PORTS);
		h->pport = (uint8_t)pp;
	}
	if (opt_bracket_ext(c))
		return perr(r, ln, "bad '[ext N]'", line, linelen);
	ibf_cur_ws(c);
	if (ibf_cur_peek(c, '(')) {
		c->p++;
		if (ibf_cur_hex(c, &h->pguid) || !ibf_cur_peek(c, ')'))
			return perr(r, ln, "bad peer port GUID in parentheses", line, linelen);
		c->p++;
		h->has_pguid = 1;
		ibf_cur_ws(c);
	}
	return 0;
}

/* The rest of a port line: ibsim port options ("w=1 s=2") before the
 * comment, then "# ... \"peer description\" lid N ... 4xEDR" or a bare
 * description, into pt and h. */
static int port_tail(struct rd *r, struct ibf_cur *c, long ln, struct half *h, struct ptail *pt,
		     const char *line, size_t linelen)
{
	for (;;) {
		ibf_cur_ws(c);
		const char *o = c->p;
		while (c->p < c->e && !ibf_is_ws(*c->p) && *c->p != '#')
			c->p++;
		if (c->p - o >= 3 && o[1] == '=' && strchr("wsev", o[0])) {
			struct ibf_cur oc = { o, c->p };
			if (port_tokens(r, &oc, 0, pt, ln))
				return r->err->code;
			continue;
		}
		c->p = o;
		break;
	}
	if (ibf_cur_peek(c, '#')) {
		c->p++;
		ibf_cur_ws(c);
		const char *q1 = memchr(c->p, '"', (size_t)(c->e - c->p));
		if (q1) {
			struct ibf_cur pre = { c->p, q1 };
			if (port_tokens(r, &pre, 1, pt, ln))
				return r->err->code;
			c->p = q1;
			const char *d;
			size_t dn;
			if (quoted_desc(c, &d, &dn))
				return perr(r, ln, "unterminated peer description", line, linelen);
			if (dn > UINT32_MAX / 2)
				return perr(r, ln, "peer description too long", NULL, 0);
			h->pdesc = d;
			h->pdesclen = (uint32_t)dn;
			h->has_pdesc = 1;
		} else {
			struct ibf_cur d0 = *c;
			const char *t;
			size_t tn;
			token(&d0, &t, &tn);
			int known = tok_is(t, tn, "lid") || tok_is(t, tn, "lmc") ||
				    (tn && ((t[0] >= '0' && t[0] <= '9') || t[0] == '?')) ||
				    (tn >= 2 && t[1] == '=');
			if (!known && tn) {
				const char *d;
				size_t dn;
				bare_desc(c, &d, &dn);
				h->pdesc = d;
				h->pdesclen = (uint32_t)dn;
				h->has_pdesc = 1;
			}
		}
	}
	if (port_tokens(r, c, 0, pt, ln))
		return r->err->code;
	return 0;
}

static int port_line(struct rd *r, struct ibf_cur *c, long ln)
{
	const char *line = c->p;
	size_t linelen = (size_t)(c->e - c->p);
	if (r->cur < 0)
		return perr(r, ln, "port line outside a node record", line, linelen);
	struct ibf_fabric *f = r->f;
	struct ibf_node *n = &f->nodes[r->cur];
	struct half h;
	memset(&h, 0, sizeof(h));
	h.node = r->cur;
	h.line = ln;
	uint64_t own_guid = 0;
	int has_own_guid = 0;
	struct ptail pt;
	memset(&pt, 0, sizeof(pt));
	int rc;
	if ((rc = port_own(r, c, ln, &h, &own_guid, &has_own_guid)) ||
	    (rc = port_peer(r, c, ln, &h, line, linelen)) ||
	    (rc = port_tail(r, c, ln, &h, &pt, line, linelen)))
		return rc;

	h.width = pt.width ? pt.width : (pt.has_w ? ibf_width_from_ib((unsigned)pt.wmask) : 0);
	h.speed = pt.speed ? pt.speed
			   : ((pt.has_s || pt.has_e)
				      ? ibf_speed_from_ib((unsigned)pt.smask, (unsigned)pt.emask, 0)
				      : 0);
	if (r->ibsim) {
		if (!h.width)
			h.width = r->def_width;
		if (!h.speed)
			h.speed = r->def_espeed ? r->def_espeed : r->def_speed;
	}
	if (pt.has_peer_lid) {
		h.plid = (uint16_t)pt.peer_lid;
		h.has_plid = 1;
	}
	struct ibf_port *own = ibf_port(f, r->cur, (int)h.port);
	if (n->type != T_SW) {
		if (has_own_guid && !r->ibsim)
			own->guid = own_guid;
		if (pt.has_own_lid)
			own->lid = (uint16_t)pt.own_lid;
		if (pt.has_own_lmc)
			own->lmc = (uint8_t)pt.own_lmc;
	}

	if (r->nh == r->caph) {
		size_t nc = r->caph ? r->caph * 2 : 1024;
		struct half *nhp = realloc(r->h, nc * sizeof(*nhp));
		if (!nhp)
			return oom(r, ln);
		r->h = nhp;
		r->caph = nc;
	}
	r->h[r->nh++] = h;
	return 0;
}

/* ------------------------------------------------------------ lines */

static int one_line(struct rd *r, const char *s, size_t n, long ln)
{
	struct ibf_cur c = { s, s + n };
	ibf_cur_ws(&c);
	if (c.p >= c.e) { /* blank (or a single space): end of record */
		r->cur = -1;
		return 0;
	}
	char ch = *c.p;
	if (ch == '#') {
		/* ibnetdiscover writes this header once: a second one is a second
		 * dump appended (its records would read as duplicate-GUID devices) */
		if (ibf_io_is_ibnd_header(c.p, (size_t)(c.e - c.p))) {
			if (r->header_line)
				return ibf_error_set(r->err, IBF_EPARSE, r->name, ln,
						     "a second ibnetdiscover header (the first is on "
						     "line %ld): two dumps in one file",
						     r->header_line);
			r->header_line = ln;
		}
		return 0;
	}
	if (ch == '[')
		return port_line(r, &c, ln);
	if (ch == '@')
		return perr(r, ln, "ibsim port aliases ('@') are not supported", s, n);
	struct ibf_cur d = c;
	if (ibf_cur_word(&d, "Switch"))
		return header_line(r, &c, T_SW, ln);
	if (ibf_cur_word(&d, "Ca") || ibf_cur_word(&d, "Hca"))
		return header_line(r, &c, T_CA, ln);
	if (ibf_cur_word(&d, "Rt"))
		return header_line(r, &c, T_RT, ln);
	static const char *const keys[] = {
		"vendid", "devid",	"sysimgguid", "switchguid", "caguid",	"hcaguids",
		"rtguid", "routerguid", "width",      "speed",	    "extspeed",
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t kl = strlen(keys[i]);
		if ((size_t)(c.e - c.p) > kl && memcmp(c.p, keys[i], kl) == 0) {
			struct ibf_cur e = { c.p + kl, c.e };
			ibf_cur_ws(&e);
			if (ibf_cur_peek(&e, '=') || (r->ibsim && ibf_cur_peek(&e, '+')))
				return attr_line(r, &c, keys[i], ln);
		}
	}
	/* ibnetdiscover grouping (-g) headers */
	if (ibf_cur_lit(&d, "Non-Chassis Nodes") || ibf_cur_word(&d, "Chassis") ||
	    ibf_cur_lit(&d, "Hostname:")) {
		r->cur = -1;
		return 0;
	}
	if (ibf_cur_lit(&d, "pdebug")) /* ibsim debug switch */
		return 0;
	if (ibf_cur_word(&d, "include") || ibf_cur_word(&d, "module") || ibf_cur_word(&d, "do"))
		return perr(r, ln, "ibsim directive not supported", s, n);
	if (ibf_io_is_stderr_line(c.p, (size_t)(c.e - c.p))) {
		r->stderr_lines++;
		return 0;
	}
	if (!r->ibsim && ibf_io_is_progress_line(c.p, (size_t)(c.e - c.p))) {
		r->progress_lines++;
		return 0;
	}
	return perr(r, ln, "unexpected line", s, n);
}

static int one_line_cb(void *ctx, const char *s, size_t n, long ln)
{
	return one_line(ctx, s, n, ln);
}

/* ------------------------------------------------------------ resolve */

static int guess_type(const struct placeholder *ph)
{
	if (ph->idlen >= 2 && ph->id[1] == '-') {
		if (ph->id[0] == 'S')
			return T_SW;
		if (ph->id[0] == 'H')
			return T_CA;
		if (ph->id[0] == 'R')
			return T_RT;
	}
	if (ph->pguid_seen)
		return T_CA;
	return T_SW;
}

/* Port lines that claim a peer port whose own record (or an earlier line)
 * names a different peer: the peer's GUID is shared by two nodes.  Give
 * such a line the duplicate record whose own line points back at it, else
 * a new copy of the peer (same type, GUID and description, id
 * "<id>#<n>"), so both cables survive and `topo info` reports the GUID. */
static int split_duplicates(struct rd *r, int32_t *peer)
{
	struct ibf_fabric *f = r->f;
	uint32_t np = f->nports_total;
	int32_t *own = malloc((np ? np : 1) * sizeof(int32_t));
	int32_t *claim = malloc((np ? np : 1) * sizeof(int32_t));
	int rc = 0;
	if (!own || !claim) {
		rc = oom(r, 0);
		goto out;
	}
	for (uint32_t g = 0; g < np; g++)
		own[g] = claim[g] = -1;
	for (size_t i = 0; i < r->nh; i++) {
		const struct half *h = &r->h[i];
		if (h->port <= f->nodes[h->node].nports)
			own[f->nodes[h->node].port_off + h->port] = (int32_t)i;
	}
	/* pass 0: lines naming an id that has duplicate records take the copy
	 * whose own line points back; pass 1: any remaining conflict splits */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->nh; i++) {
			const struct half *h = &r->h[i];
			int32_t b = peer[i];
			if (b < 0 || (uint32_t)b >= f->nnodes || h->pport > f->nodes[b].nports ||
			    (b == h->node && h->pport == h->port))
				continue;
			int hasdup = 0;
			for (size_t d = 0; d < r->ndup && !hasdup; d++)
				hasdup = r->dfirst[d] == b;
			if (pass == 0) {
				if (!hasdup)
					continue;
				for (size_t d = 0; d <= r->ndup; d++) {
					int32_t c = d < r->ndup ? r->ddup[d] : b;
					if ((d < r->ndup && r->dfirst[d] != b) ||
					    h->pport > f->nodes[c].nports)
						continue;
					int32_t jj = own[f->nodes[c].port_off + h->pport];
					if (jj >= 0 && peer[jj] == h->node &&
					    r->h[jj].pport == h->port) {
						peer[i] = c;
						break;
					}
				}
				continue;
			}
			uint32_t gb = f->nodes[b].port_off + h->pport;
			if (gb >= np)
				continue;
			int32_t j = own[gb];
			int agrees = j >= 0 ? (peer[j] == h->node && r->h[j].pport == h->port)
					    : (claim[gb] < 0 || (r->h[claim[gb]].node == h->node &&
								 r->h[claim[gb]].port == h->port));
			if (agrees) {
				if (j < 0)
					claim[gb] = (int32_t)i;
				continue;
			}
			const struct ibf_node *bn = &f->nodes[b];
			char nid[300];
			snprintf(nid, sizeof(nid), "%s#%u", bn->id ? bn->id : "node",
				 (unsigned)(r->ndup + r->clones + 2));
			char *desc = bn->desc ? strdup(bn->desc) : NULL;
			int c = ibf_fabric_add_node(f, bn->type, bn->nports, bn->guid, desc, nid,
						    r->err);
			free(desc);
			if (c < 0) {
				rc = c;
				goto out;
			}
			bn = &f->nodes[b];
			f->nodes[c].sysimg_guid = bn->sysimg_guid;
			f->nodes[c].vendid = bn->vendid;
			f->nodes[c].devid = bn->devid;
			for (int p = 0; p <= bn->nports; p++)
				ibf_port(f, c, p)->guid = ibf_port(f, b, p)->guid;
			r->clones++;
			peer[i] = c;
		}
out:
	free(own);
	free(claim);
	return rc;
}

static int resolve(struct rd *r)
{
	struct ibf_fabric *f = r->f;
	int rc = 0;
	int32_t *peer = malloc((r->nh ? r->nh : 1) * sizeof(*peer));
	struct placeholder *ph = NULL;
	size_t nph = 0, capph = 0;
	struct ibf_smap phmap = { 0 };
	struct ibf_linker k = { 0 };
	if (!peer) {
		rc = oom(r, 0);
		goto out;
	}
	for (size_t i = 0; i < r->nh; i++) {
		struct half *h = &r->h[i];
		int32_t b = ibf_smap_get(&r->ids, h->pid, h->pidlen);
		if (b >= 0) {
			peer[i] = b;
			continue;
		}
		int32_t old;
		int prc = ibf_smap_put(&phmap, h->pid, h->pidlen, (int32_t)nph, &old);
		if (prc < 0) {
			rc = oom(r, h->line);
			goto out;
		}
		if (prc == 0) {
			if (nph == capph) {
				size_t nc = capph ? capph * 2 : 16;
				struct placeholder *np = realloc(ph, nc * sizeof(*np));
				if (!np) {
					rc = oom(r, h->line);
					goto out;
				}
				ph = np;
				capph = nc;
			}
			memset(&ph[nph], 0, sizeof(ph[nph]));
			ph[nph].id = h->pid;
			ph[nph].idlen = h->pidlen;
			ph[nph].line = h->line;
			old = (int32_t)nph++;
		}
		struct placeholder *p = &ph[old];
		if (h->pport > p->maxport)
			p->maxport = h->pport;
		if (h->has_pguid)
			p->pguid_seen = 1;
		if (f->nodes[h->node].type != T_SW)
			p->from_ca = 1;
		if (!p->desc && h->has_pdesc) {
			p->desc = h->pdesc;
			p->desclen = h->pdesclen;
		}
		peer[i] = -2 - old;
	}
	/* nodes that lines refer to but no record describes */
	int32_t first_ph = (int32_t)f->nnodes;
	for (size_t j = 0; j < nph; j++) {
		struct placeholder *p = &ph[j];
		const char *sid = scratch(r, 0, p->id, p->idlen);
		const char *sd = p->desc ? scratch(r, 1, p->desc, p->desclen) : sid;
		if (!sid || !sd) {
			rc = oom(r, p->line);
			goto out;
		}
		int type = guess_type(p);
		int node = ibf_fabric_add_node(f, type, p->maxport, guid_from_id(p->id, p->idlen),
					       sd, sid, r->err);
		if (node < 0) {
			/* add_node filled the message; give it the file and line */
			r->err->line = p->line;
			snprintf(r->err->file, sizeof(r->err->file), "%s", r->name);
			rc = node;
			goto out;
		}
		if (type == T_SW)
			ibf_port(f, node, 0)->guid = f->nodes[node].guid;
	}
	for (size_t i = 0; i < r->nh; i++)
		if (peer[i] < 0)
			peer[i] = first_ph + (-2 - peer[i]);
	if ((rc = split_duplicates(r, peer)))
		goto out;
	if ((rc = ibf_linker_init(&k, f, r->name, r->err)))
		goto out;
	for (size_t i = 0; i < r->nh; i++) {
		struct half *h = &r->h[i];
		int b = peer[i];
		const struct ibf_node *bn = &f->nodes[b];
		int is_ph = b >= first_ph;
		if (h->pport <= bn->nports) {
			if (bn->type == T_SW) {
				struct ibf_port *p0 = ibf_port(f, b, 0);
				if (h->has_plid && !p0->lid)
					p0->lid = h->plid;
			} else {
				struct ibf_port *bp = ibf_port(f, b, h->pport);
				if (h->has_plid && !bp->lid)
					bp->lid = h->plid;
				if (h->has_pguid && !bp->guid && (!r->ibsim || is_ph))
					bp->guid = h->pguid;
			}
		}
		if ((rc = ibf_linker_add(&k, h->node, h->port, b, h->pport, h->width, h->speed,
					 h->line, r->err)))
			goto out;
	}
	if (ibf_io_meta_add(f, "format", "%s", r->ibsim ? "ibsim" : "ibnetdiscover") ||
	    ibf_linker_meta(&k) ||
	    (nph && ibf_io_meta_add(f, "placeholders", "%zu", nph)) ||
	    ((r->ndup || r->clones) &&
	     ibf_io_meta_add(f, "duplicate_guid_nodes", "%zu", r->ndup + r->clones)) ||
	    (r->stderr_lines && ibf_io_meta_add(f, "stderr_lines", "%u", r->stderr_lines)) ||
	    (r->progress_lines &&
	     ibf_io_meta_add(f, "progress_lines", "%u", r->progress_lines))) {
		rc = oom(r, 0);
		goto out;
	}
out:
	ibf_linker_free(&k);
	ibf_smap_free(&phmap);
	free(ph);
	free(peer);
	return rc;
}

struct ibf_fabric *ibf_io_read_ibnd(const char *buf, size_t len, const char *name, int ibsim,
				    struct ibf_error *err)
{
	struct ibf_error local;
	struct rd r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.ibsim = ibsim;
	r.err = err ? err : &local;
	r.cur = -1;
	/* ibsim's defaults: CA GUIDs from 0x100000, switches from 0x200000 */
	r.base[T_CA] = r.absbase[T_CA] = 0x100000;
	r.base[T_SW] = r.absbase[T_SW] = 0x200000;
	r.base[T_RT] = r.absbase[T_RT] = 0;
	r.def_width = 4;
	r.def_speed = IBF_SPEED_SDR;
	r.f = ibf_fabric_new();
	if (!r.f) {
		ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		return NULL;
	}
	int rc = ibf_each_line(buf, len, name, r.err, one_line_cb, &r);
	if (!rc && r.f->nnodes == 0)
		rc = ibf_error_set(r.err, IBF_EPARSE, name, 0, "no node records found");
	if (!rc)
		rc = resolve(&r);
	if (!rc)
		rc = ibf_io_check_unicast_lids(r.f, name, r.defline, r.err);
	if (!rc)
		rc = ibf_fabric_finalize(r.f, r.err);
	free(r.h);
	free(r.defline);
	free(r.dfirst);
	free(r.ddup);
	free(r.sbuf[0]);
	free(r.sbuf[1]);
	ibf_smap_free(&r.ids);
	if (rc) {
		ibf_fabric_free(r.f);
		return NULL;
	}
	return r.f;
}
