/* File I/O entry points: format names, sniffing, ibf_fabric_read/parse,
 * and the helpers every reader shares (lines, cursors, hash maps, link
 * reconciliation). */
#include "io_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ names */

static const struct {
	const char *name;
	int fmt;
} fmt_names[] = {
	{ "auto", IBF_FMT_AUTO },
	{ "ibnetdiscover", IBF_FMT_IBNETDISCOVER },
	{ "ibnetdiscover-p", IBF_FMT_IBNETDISCOVER_P },
	{ "ibsim", IBF_FMT_IBSIM },
	{ "subnet-lst", IBF_FMT_SUBNET_LST },
	{ "json", IBF_FMT_JSON },
	{ "iblinkinfo", IBF_FMT_IBLINKINFO },
	/* aliases */
	{ "ibnd", IBF_FMT_IBNETDISCOVER },
	{ "topo", IBF_FMT_IBNETDISCOVER },
	{ "ibnetdiscover_p", IBF_FMT_IBNETDISCOVER_P },
	{ "ports", IBF_FMT_IBNETDISCOVER_P },
	{ "ibsim-net", IBF_FMT_IBSIM },
	{ "net", IBF_FMT_IBSIM },
	{ "subnet.lst", IBF_FMT_SUBNET_LST },
	{ "subnet_lst", IBF_FMT_SUBNET_LST },
	{ "opensm-subnet.lst", IBF_FMT_SUBNET_LST },
	{ "lst", IBF_FMT_SUBNET_LST },
};

const char *ibf_format_name(int fmt)
{
	for (size_t i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
		if (fmt_names[i].fmt == fmt)
			return fmt_names[i].name;
	return "unknown";
}

int ibf_format_from_name(const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
		if (strcasecmp(fmt_names[i].name, name) == 0)
			return fmt_names[i].fmt;
	return -1;
}

int ibf_io_parse_ws(const char *s, size_t n, uint8_t *width, uint8_t *speed)
{
	size_t i = 0;
	unsigned w = 0;
	if (n >= 2 && s[0] == '?' && s[1] == '?') {
		i = 2; /* "??" unknown width, as infiniband-diags prints it */
	} else {
		while (i < n && i < 3 && s[i] >= '0' && s[i] <= '9')
			w = w * 10 + (unsigned)(s[i++] - '0');
		if (i == 0 || i >= n || s[i] != 'x')
			return -1;
		if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
			return -1;
		i++;
	}
	int sp = 0;
	if (i < n) {
		if (n - i == 3 && memcmp(s + i, "???", 3) == 0)
			sp = 0;
		else if (!(sp = ibf_speed_from_name(s + i, n - i)))
			return -1;
	} else if (w == 0) {
		return -1; /* "??" alone */
	}
	*width = (uint8_t)w;
	*speed = (uint8_t)sp;
	return 0;
}

const char *ibf_io_excerpt(const char *s, size_t n, char *buf, size_t len)
{
	size_t max = len > 4 ? len - 4 : 0, j = 0, i = 0;
	while (i < n && j < max) {
		unsigned char ch = (unsigned char)s[i];
		/* a tab (ibnetdiscover's separator) reads as a blank, a
		 * well-formed UTF-8 character (a description's 'é') as it
		 * is; other bytes as '?' */
		size_t k = ch < 0x80 ? 0 : ch >= 0xc2 && ch <= 0xdf ? 1 : ch >= 0xe0 && ch <= 0xef ? 2
					  : ch >= 0xf0 && ch <= 0xf4 ? 3 : 4;
		if (k == 0) {
			buf[j++] = ch == '\t' ? ' ' : (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
			i++;
			continue;
		}
		size_t q = 1;
		while (k < 4 && q <= k && i + q < n && ((unsigned char)s[i + q] & 0xc0) == 0x80)
			q++;
		if (k < 4 && q == k + 1 && j + q <= max) {
			memcpy(buf + j, s + i, q);
			j += q;
			i += q;
		} else {
			buf[j++] = '?';
			i++;
		}
	}
	if (i < n && len >= 4) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	if (len)
		buf[j < len ? j : len - 1] = '\0';
	return buf;
}

static const char *io_find_sub(const char *s, const char *e, const char *sub)
{
	size_t n = strlen(sub);
	for (const char *p = s; p + n <= e; p++)
		if (*p == sub[0] && memcmp(p, sub, n) == 0)
			return p;
	return NULL;
}

int ibf_io_is_progress_line(const char *s, size_t n)
{
	const char *e = s + n;
	if (!((n > 8 && !memcmp(s, "DR path ", 8)) || (n > 4 && !memcmp(s, "Lid ", 4))))
		return 0;
	const char *a = io_find_sub(s, e, " -> ");
	if (!a || (!io_find_sub(a, e, " new ") && !io_find_sub(a, e, " known ")))
		return 0;
	const char *b = io_find_sub(a, e, " {");
	return b && io_find_sub(b, e, "} portnum ") != NULL;
}

int ibf_io_is_ibnd_header(const char *s, size_t n)
{
	static const char hdr[] = "Topology file: generated on";
	struct ibf_cur h = { s, s + n };
	if (!ibf_cur_peek(&h, '#'))
		return 0;
	h.p++;
	ibf_cur_ws(&h);
	return (size_t)(h.e - h.p) >= sizeof(hdr) - 1 && !memcmp(h.p, hdr, sizeof(hdr) - 1);
}

int ibf_io_is_stderr_line(const char *s, size_t n)
{
	static const char *const prefixes[] = {
		"ibwarn:",
		"ibwarn ",
		"ibpanic:",
		"ibdebug:",
		"ibnetdiscover:",
		"ibnetdiscover ",
		"src/",
		"libibnetdisc/",
		"libibmad/",
		"../",
		"./",
		"ibnd_",
		"_do_madrpc",
		"mad_rpc",
		"smp_query",
		"WARN:",
		"WARNING:",
		"Warning:",
		"ERROR:",
		"Error:",
		"ibsim-run:",
		"umad2sim:",
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t l = strlen(prefixes[i]);
		if (n >= l && memcmp(s, prefixes[i], l) == 0)
			return 1;
	}
	/* "something.c:123" at the start of the line */
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '/' || s[i] == '-'))
		i++;
	if (i > 0 && i + 3 < n && s[i] == '.' && s[i + 1] == 'c' && s[i + 2] == ':' &&
	    isdigit((unsigned char)s[i + 3]))
		return 1;
	return 0;
}

char *ibf_io_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int ibf_io_meta_add(struct ibf_fabric *f, const char *key, const char *fmt, ...)
{
	char val[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	size_t old = f->meta ? strlen(f->meta) : 0;
	size_t need = old + strlen(key) + strlen(val) + 3;
	char *m = malloc(need);
	if (!m)
		return IBF_ENOMEM;
	snprintf(m, need, "%s%s%s=%s", old ? f->meta : "", old ? ";" : "", key, val);
	free(f->meta);
	f->meta = m;
	return 0;
}

/* ------------------------------------------------------------ linking */

int ibf_linker_init(struct ibf_linker *k, struct ibf_fabric *f, const char *name,
		    struct ibf_error *err)
{
	k->f = f;
	k->name = name;
	size_t n = f->nports_total ? f->nports_total : 1;
	k->seen = calloc(n, 1);
	k->line = calloc(n, sizeof(*k->line));
	if (!k->seen || !k->line) {
		ibf_linker_free(k);
		return ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
	}
	return 0;
}

void ibf_linker_free(struct ibf_linker *k)
{
	free(k->seen);
	free(k->line);
	k->seen = NULL;
	k->line = NULL;
}

static const char *node_label(const struct ibf_fabric *f, int n)
{
	const struct ibf_node *nd = &f->nodes[n];
	return nd->id ? nd->id : nd->desc;
}

static uint8_t merge_val(uint8_t a, int b)
{
	if (!a)
		return (uint8_t)b;
	if (!b)
		return a;
	return (uint8_t)(a < b ? a : b);
}

int ibf_linker_add(struct ibf_linker *k, int a, int pa, int b, int pb, int width, int speed,
		   long line, struct ibf_error *err)
{
	struct ibf_fabric *f = k->f;
	if (pa < 1 || pa > f->nodes[a].nports)
		return ibf_error_set(err, IBF_EPARSE, k->name, line,
				     "port %d out of range 1..%d on '%s'", pa, f->nodes[a].nports,
				     node_label(f, a));
	if (pb < 1 || pb > f->nodes[b].nports)
		return ibf_error_set(err, IBF_EPARSE, k->name, line,
				     "peer port %d out of range 1..%d on '%s'", pb,
				     f->nodes[b].nports, node_label(f, b));
	if (a == b && pa == pb)
		return ibf_error_set(err, IBF_EPARSE, k->name, line,
				     "port %d of '%s' is cabled to itself", pa, node_label(f, a));
	uint32_t ia = f->nodes[a].port_off + (uint32_t)pa;
	uint32_t ib = f->nodes[b].port_off + (uint32_t)pb;
	struct ibf_port *x = &f->ports[ia], *y = &f->ports[ib];
	if (x->peer_node != IBF_NO_NODE && !(x->peer_node == b && x->peer_port == pb))
		return ibf_error_set(err, IBF_EPARSE, k->name, line,
				     "port %d of '%s' is linked to '%s'[%d] here but to '%s'[%d] "
				     "on line %ld",
				     pa, node_label(f, a), node_label(f, b), pb,
				     node_label(f, x->peer_node), x->peer_port, k->line[ia]);
	if (y->peer_node != IBF_NO_NODE && !(y->peer_node == a && y->peer_port == pa))
		return ibf_error_set(err, IBF_EPARSE, k->name, line,
				     "'%s'[%d] is linked to '%s'[%d] here but line %ld links "
				     "'%s'[%d] to '%s'[%d]",
				     node_label(f, a), pa, node_label(f, b), pb, k->line[ib],
				     node_label(f, b), pb, node_label(f, y->peer_node),
				     y->peer_port);
	if (x->peer_node == IBF_NO_NODE) {
		x->peer_node = b;
		x->peer_port = (uint8_t)pb;
		y->peer_node = a;
		y->peer_port = (uint8_t)pa;
		x->width = y->width = (uint8_t)width;
		x->speed = y->speed = (uint8_t)speed;
		k->line[ia] = k->line[ib] = line;
		f->finalized = 0;
	} else {
		x->width = y->width = merge_val(x->width, width);
		x->speed = y->speed = merge_val(x->speed, speed);
	}
	k->seen[ia] = 1;
	return 0;
}

/* The one-sided links' count, and the first of them (lowest line) as
 * the end the input described: node, port and line; 0 when none. */
static uint32_t one_sided(const struct ibf_linker *k, int *node, int *port, long *line)
{
	const struct ibf_fabric *f = k->f;
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		for (int p = 1; p <= nd->nports; p++) {
			uint32_t ia = nd->port_off + (uint32_t)p;
			const struct ibf_port *x = &f->ports[ia];
			if (x->peer_node == IBF_NO_NODE)
				continue;
			uint32_t ib = f->nodes[x->peer_node].port_off + x->peer_port;
			if (ia > ib || (k->seen[ia] && k->seen[ib]))
				continue;
			/* the end a line described (one of them was) */
			int na = k->seen[ia] ? (int)i : x->peer_node;
			int pa = k->seen[ia] ? p : x->peer_port;
			long l = k->line[ia];
			if (!n++ || l < *line) {
				*node = na;
				*port = pa;
				*line = l;
			}
		}
	}
	return n;
}

int ibf_linker_meta(const struct ibf_linker *k)
{
	int node = 0, port = 0;
	long line = 0;
	uint32_t n = one_sided(k, &node, &port, &line);
	if (ibf_io_meta_add(k->f, "one_sided", "%u", n))
		return IBF_ENOMEM;
	if (!n)
		return 0;
	/* whether the peer's own lines describe any of its ports (else the
	 * input has no record of it: it is known from the peers' lines) */
	const struct ibf_fabric *f = k->f;
	const struct ibf_port *x = ibf_port(f, node, port);
	const struct ibf_node *pn = &f->nodes[x->peer_node];
	int described = 0;
	for (int q = 1; q <= pn->nports && !described; q++)
		described = k->seen[pn->port_off + (uint32_t)q];
	if (ibf_io_meta_add(k->f, "one_sided_line", "%ld", line) ||
	    ibf_io_meta_add(k->f, "one_sided_node", "%d", node) ||
	    ibf_io_meta_add(k->f, "one_sided_port", "%d", port) ||
	    ibf_io_meta_add(k->f, "one_sided_peer_described", "%d", described))
		return IBF_ENOMEM;
	return 0;
}

/* ------------------------------------------------------------ sniffing */

static int is_guid_id(const char *s, size_t n)
{
	if (n != 18 || (s[0] != 'S' && s[0] != 'H' && s[0] != 'R') || s[1] != '-')
		return 0;
	for (size_t i = 2; i < n; i++)
		if (ibf_hexval(s[i]) < 0)
			return 0;
	return 1;
}

int ibf_io_sniff(const char *buf, size_t len)
{
	struct ibf_lines L;
	const char *s;
	size_t n;
	int family = -1, ibsim = 0, headers = 0, ibnd_header = 0;
	ibf_lines_init(&L, buf, len);
	while (ibf_lines_next(&L, &s, &n, NULL) && L.lineno < 100000) {
		struct ibf_cur c = { s, s + n };
		ibf_cur_ws(&c);
		/* ibfab's own ibsim writer says what it wrote: its names are GUID
		 * ids (S-..., H-...) when descriptions are not unique, and nothing
		 * else would tell the file from ibnetdiscover output */
		static const char ibfab_net[] = "# ibsim net file written by ibfab";
		if (L.lineno == 1 && (size_t)(c.e - c.p) >= sizeof(ibfab_net) - 1 &&
		    !memcmp(c.p, ibfab_net, sizeof(ibfab_net) - 1))
			ibsim = 1;
		/* and ibnetdiscover's header says the file is its output: then
		 * "Hca" headers or names that are no GUID ids (an edited dump)
		 * do not make it an ibsim net file, whose CA port GUIDs would be
		 * node GUID + port instead of those the dump gives */
		if (!ibnd_header && ibf_io_is_ibnd_header(c.p, (size_t)(c.e - c.p)))
			ibnd_header = 1;
		if (c.p >= c.e || *c.p == '#' || ibf_io_is_stderr_line(c.p, (size_t)(c.e - c.p)))
			continue;
		if (*c.p == '{') {
			/* ibfab's own JSON ("{" alone, or "{\"format\": ...") is written,
			 * not read; opensm-subnet.lst lines are "{ CA Ports:..." */
			struct ibf_cur j = { c.p + 1, c.e };
			ibf_cur_ws(&j);
			if (j.p >= j.e || *j.p == '"')
				return IBF_FMT_JSON;
			return IBF_FMT_SUBNET_LST;
		}
		if (memmem(c.p, (size_t)(c.e - c.p), "==(", 3) &&
		    memmem(c.p, (size_t)(c.e - c.p), ")==>", 4))
			return IBF_FMT_IBLINKINFO;
		struct ibf_cur d = c;
		if ((ibf_cur_word(&d, "SW") || ibf_cur_word(&d, "CA") || ibf_cur_word(&d, "RT"))) {
			uint64_t v;
			ibf_cur_ws(&d);
			if (ibf_cur_udec(&d, UINT64_MAX, &v) == 0 && family < 0)
				return IBF_FMT_IBNETDISCOVER_P;
		}
		d = c;
		if (ibf_cur_word(&d, "Hca"))
			ibsim = 1;
		d = c;
		if (ibf_cur_lit(&d, "width") || ibf_cur_lit(&d, "speed") ||
		    ibf_cur_lit(&d, "extspeed") || ibf_cur_lit(&d, "hcaguids"))
			ibsim = 1;
		d = c;
		if (ibf_cur_lit(&d, "vendid") || ibf_cur_lit(&d, "devid") ||
		    ibf_cur_lit(&d, "sysimgguid") || ibf_cur_lit(&d, "switchguid") ||
		    ibf_cur_lit(&d, "caguid") || ibf_cur_lit(&d, "rtguid") ||
		    ibf_cur_lit(&d, "hcaguids") || ibf_cur_lit(&d, "width") ||
		    ibf_cur_lit(&d, "speed") || ibf_cur_lit(&d, "extspeed"))
			family = IBF_FMT_IBNETDISCOVER;
		d = c;
		if (ibf_cur_word(&d, "Switch") || ibf_cur_word(&d, "Ca") ||
		    ibf_cur_word(&d, "Hca") || ibf_cur_word(&d, "Rt")) {
			family = IBF_FMT_IBNETDISCOVER;
			headers++;
			const char *q = memchr(d.p, '"', (size_t)(d.e - d.p));
			if (q) {
				const char *q2 = memchr(q + 1, '"', (size_t)(d.e - q - 1));
				if (q2 && !is_guid_id(q + 1, (size_t)(q2 - q - 1)))
					ibsim = 1;
			}
			if (headers >= 64 && ibsim && !ibnd_header)
				break;
		}
		if (headers >= 4096)
			break;
	}
	if (family < 0)
		return -1;
	return ibsim && !ibnd_header ? IBF_FMT_IBSIM : IBF_FMT_IBNETDISCOVER;
}

/* ------------------------------------------------------------ entry points */

struct ibf_fabric *ibf_fabric_parse(const char *buf, size_t len, const char *name, int fmt,
				    struct ibf_error *err)
{
	if (!name)
		name = "<buffer>";
	if (!buf && len) {
		ibf_error_set(err, IBF_EINVAL, name, 0, "no input buffer");
		return NULL;
	}
	if (!buf)
		buf = "";
	if (fmt == IBF_FMT_AUTO) {
		fmt = ibf_io_sniff(buf, len);
		/* libibnetdisc's binary cache (ibnetdiscover --cache) starts with
		 * its magic 0x8FE7832B in the writer's byte order */
		static const unsigned char magic_le[4] = { 0x2b, 0x83, 0xe7, 0x8f };
		static const unsigned char magic_be[4] = { 0x8f, 0xe7, 0x83, 0x2b };
		if (fmt < 0 && len >= 4 && (!memcmp(buf, magic_le, 4) || !memcmp(buf, magic_be, 4))) {
			ibf_error_set(err, IBF_ENOTSUP, name, 0,
				      "an ibnetdiscover --cache file (binary) is not supported: "
				      "give the text output of ibnetdiscover, or "
				      "ibnetdiscover --load-cache FILE > topo.txt");
			return NULL;
		}
		if (fmt < 0 && len == 0) {
			ibf_error_set(err, IBF_EPARSE, name, 0, "empty file");
			return NULL;
		}
		if (fmt < 0) {
			ibf_error_set(
				err, IBF_EPARSE, name, 0,
				"cannot tell the format: not ibnetdiscover, ibnetdiscover -p, "
				"ibsim or opensm-subnet.lst");
			return NULL;
		}
	}
	switch (fmt) {
	case IBF_FMT_IBNETDISCOVER:
		return ibf_io_read_ibnd(buf, len, name, 0, err);
	case IBF_FMT_IBSIM:
		return ibf_io_read_ibnd(buf, len, name, 1, err);
	case IBF_FMT_IBNETDISCOVER_P:
		return ibf_io_read_ports(buf, len, name, err);
	case IBF_FMT_SUBNET_LST:
		return ibf_io_read_subnet_lst(buf, len, name, err);
	case IBF_FMT_IBLINKINFO:
		return ibf_io_read_iblinkinfo(buf, len, name, err);
	case IBF_FMT_JSON:
		ibf_error_set(err, IBF_ENOTSUP, name, 0,
			      "this is JSON (ibfab topo convert --format json writes it); reading "
			      "JSON fabrics is not supported: convert to ibnetdiscover or ibsim "
			      "format instead");
		return NULL;
	default:
		ibf_error_set(err, IBF_EINVAL, name, 0, "unknown format %d", fmt);
		return NULL;
	}
}

struct ibf_fabric *ibf_fabric_read(const char *path, int fmt, struct ibf_error *err)
{
	char *buf;
	size_t len;
	if (ibf_slurp(path, &buf, &len, err))
		return NULL;
	struct ibf_fabric *f = ibf_fabric_parse(buf, len, path, fmt, err);
	free(buf);
	return f;
}
