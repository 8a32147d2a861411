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

/* ------------------------------------------------------------ lines */

void ibf_lines_init(struct ibf_lines *L, const char *buf, size_t len)
{
	L->p = buf;
	L->end = buf + len;
	L->lineno = 0;
}

int ibf_lines_next(struct ibf_lines *L, const char **s, size_t *n, int *has_nul)
{
	if (L->p >= L->end)
		return 0;
	const char *b = L->p;
	const char *nl = memchr(b, '\n', (size_t)(L->end - b));
	const char *e = nl ? nl : L->end;
	L->p = nl ? nl + 1 : L->end;
	L->lineno++;
	if (e > b && e[-1] == '\r')
		e--;
	*s = b;
	*n = (size_t)(e - b);
	if (has_nul)
		*has_nul = memchr(b, '\0', *n) != NULL;
	return 1;
}

/* ------------------------------------------------------------ cursor */

int ibf_cur_udec(struct ibf_cur *c, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	int over = 0;
	const char *s = c->p;
	while (c->p < c->e && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (x > (UINT64_MAX - d) / 10)
			over = 1;
		else
			x = x * 10 + d;
		c->p++;
	}
	if (c->p == s)
		return -1;
	if (over || x > max)
		return -2;
	*v = x;
	return 0;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int ibf_cur_hex(struct ibf_cur *c, uint64_t *v)
{
	if (c->e - c->p >= 3 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X') &&
	    hexval(c->p[2]) >= 0)
		c->p += 2;
	uint64_t x = 0;
	int over = 0;
	const char *s = c->p;
	int d;
	while (c->p < c->e && (d = hexval(*c->p)) >= 0) {
		if (x >> 60)
			over = 1;
		x = (x << 4) | (uint64_t)d;
		c->p++;
	}
	if (c->p == s)
		return -1;
	if (over)
		return -2;
	*v = x;
	return 0;
}

int ibf_cur_num(struct ibf_cur *c, uint64_t max, uint64_t *v)
{
	if (c->e - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		uint64_t x;
		int rc = ibf_cur_hex(c, &x);
		if (rc)
			return rc;
		if (x > max)
			return -2;
		*v = x;
		return 0;
	}
	return ibf_cur_udec(c, max, v);
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
	size_t max = len > 4 ? len - 4 : 0, j = 0;
	for (size_t i = 0; i < n && j < max; i++) {
		unsigned char ch = (unsigned char)s[i];
		buf[j++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	if (j < n && len >= 4) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	if (len)
		buf[j < len ? j : len - 1] = '\0';
	return buf;
}

int ibf_io_is_stderr_line(const char *s, size_t n)
{
	static const char *const prefixes[] = {
		"ibwarn:", "ibwarn ", "ibpanic:", "ibdebug:", "ibnetdiscover:", "ibnetdiscover ",
		"src/", "libibnetdisc/", "libibmad/", "../", "./", "ibnd_", "_do_madrpc",
		"mad_rpc", "smp_query", "WARN:", "WARNING:", "Warning:", "ERROR:", "Error:",
		"ibsim-run:", "umad2sim:",
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

/* ------------------------------------------------------------ hash maps */

static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static uint32_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

int32_t ibf_smap_get(const struct ibf_smap *m, const char *s, size_t n)
{
	if (!m->cap)
		return -1;
	uint32_t h = hash_bytes(s, n), mask = m->cap - 1;
	for (uint32_t i = h & mask;; i = (i + 1) & mask) {
		const struct ibf_smap_slot *sl = &m->slot[i];
		if (!sl->s)
			return -1;
		if (sl->hash == h && sl->len == n && memcmp(sl->s, s, n) == 0)
			return sl->val;
	}
}

static int smap_grow(struct ibf_smap *m)
{
	uint32_t nc = m->cap ? m->cap * 2 : 64;
	if (nc < m->cap)
		return IBF_ENOMEM;
	struct ibf_smap_slot *ns = calloc(nc, sizeof(*ns));
	if (!ns)
		return IBF_ENOMEM;
	for (uint32_t i = 0; i < m->cap; i++) {
		struct ibf_smap_slot *sl = &m->slot[i];
		if (!sl->s)
			continue;
		uint32_t j = sl->hash & (nc - 1);
		while (ns[j].s)
			j = (j + 1) & (nc - 1);
		ns[j] = *sl;
	}
	free(m->slot);
	m->slot = ns;
	m->cap = nc;
	return 0;
}

int ibf_smap_put(struct ibf_smap *m, const char *s, size_t n, int32_t val, int32_t *old)
{
	if (n > UINT32_MAX)
		return IBF_ENOMEM;
	if ((m->n + 1) * 2 > m->cap && smap_grow(m))
		return IBF_ENOMEM;
	uint32_t h = hash_bytes(s, n), mask = m->cap - 1;
	uint32_t i = h & mask;
	for (;; i = (i + 1) & mask) {
		struct ibf_smap_slot *sl = &m->slot[i];
		if (!sl->s)
			break;
		if (sl->hash == h && sl->len == n && memcmp(sl->s, s, n) == 0) {
			if (old)
				*old = sl->val;
			return 1;
		}
	}
	/* an empty key still needs a non-NULL pointer to mark the slot used */
	m->slot[i].s = n ? s : "";
	m->slot[i].len = (uint32_t)n;
	m->slot[i].hash = h;
	m->slot[i].val = val;
	m->n++;
	return 0;
}

void ibf_smap_free(struct ibf_smap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}

int32_t ibf_umap_get(const struct ibf_umap *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	uint32_t mask = m->cap - 1;
	for (uint32_t i = hash_u64(key) & mask;; i = (i + 1) & mask) {
		if (m->slot[i].val < 0)
			return -1;
		if (m->slot[i].key == key)
			return m->slot[i].val;
	}
}

static int umap_grow(struct ibf_umap *m)
{
	uint32_t nc = m->cap ? m->cap * 2 : 64;
	if (nc < m->cap)
		return IBF_ENOMEM;
	struct ibf_umap_slot *ns = malloc((size_t)nc * sizeof(*ns));
	if (!ns)
		return IBF_ENOMEM;
	for (uint32_t i = 0; i < nc; i++)
		ns[i].val = -1;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->slot[i].val < 0)
			continue;
		uint32_t j = hash_u64(m->slot[i].key) & (nc - 1);
		while (ns[j].val >= 0)
			j = (j + 1) & (nc - 1);
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->cap = nc;
	return 0;
}

int ibf_umap_put(struct ibf_umap *m, uint64_t key, int32_t val, int32_t *old)
{
	if ((m->n + 1) * 2 > m->cap && umap_grow(m))
		return IBF_ENOMEM;
	uint32_t mask = m->cap - 1;
	uint32_t i = hash_u64(key) & mask;
	for (; m->slot[i].val >= 0; i = (i + 1) & mask) {
		if (m->slot[i].key == key) {
			if (old)
				*old = m->slot[i].val;
			return 1;
		}
	}
	m->slot[i].key = key;
	m->slot[i].val = val;
	m->n++;
	return 0;
}

void ibf_umap_free(struct ibf_umap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
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
				     "'%s'[%d] is linked to '%s'[%d] here but line %ld links it "
				     "to '%s'[%d]",
				     node_label(f, a), pa, node_label(f, b), pb, k->line[ib],
				     node_label(f, y->peer_node), y->peer_port);
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

uint32_t ibf_linker_one_sided(const struct ibf_linker *k)
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
			if (ia < ib && !(k->seen[ia] && k->seen[ib]))
				n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------ sniffing */

static int is_guid_id(const char *s, size_t n)
{
	if (n != 18 || (s[0] != 'S' && s[0] != 'H' && s[0] != 'R') || s[1] != '-')
		return 0;
	for (size_t i = 2; i < n; i++)
		if (hexval(s[i]) < 0)
			return 0;
	return 1;
}

int ibf_io_sniff(const char *buf, size_t len)
{
	struct ibf_lines L;
	const char *s;
	size_t n;
	int family = -1, ibsim = 0, headers = 0;
	ibf_lines_init(&L, buf, len);
	while (ibf_lines_next(&L, &s, &n, NULL) && L.lineno < 100000) {
		struct ibf_cur c = { s, s + n };
		ibf_cur_ws(&c);
		if (c.p >= c.e || *c.p == '#' || ibf_io_is_stderr_line(c.p, (size_t)(c.e - c.p)))
			continue;
		if (*c.p == '{')
			return IBF_FMT_SUBNET_LST;
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
			if (headers >= 64 && ibsim)
				break;
		}
		if (headers >= 4096)
			break;
	}
	if (family < 0)
		return -1;
	return ibsim ? IBF_FMT_IBSIM : IBF_FMT_IBNETDISCOVER;
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
		if (fmt < 0) {
			ibf_error_set(err, IBF_EPARSE, name, 0,
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
	case IBF_FMT_JSON:
		ibf_error_set(err, IBF_ENOTSUP, name, 0, "reading JSON fabrics is not supported");
		return NULL;
	default:
		ibf_error_set(err, IBF_EINVAL, name, 0, "unknown format %d", fmt);
		return NULL;
	}
}

int ibf_io_slurp(const char *path, char **out, size_t *outlen, struct ibf_error *err)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!fp)
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot open: %s", strerror(errno));
	size_t cap = 1 << 16, len = 0;
	struct stat st;
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 1;
	char *buf = malloc(cap);
	if (!buf)
		goto oom;
	for (;;) {
		if (len == cap) {
			if (cap > SIZE_MAX / 2)
				goto oom;
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				goto oom;
			buf = nb;
			cap *= 2;
		}
		size_t r = fread(buf + len, 1, cap - len, fp);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(fp)) {
		free(buf);
		if (fp != stdin)
			fclose(fp);
		return ibf_error_set(err, IBF_EIO, path, 0, "read error");
	}
	if (fp != stdin)
		fclose(fp);
	*out = buf;
	*outlen = len;
	return 0;
oom:
	free(buf);
	if (fp != stdin)
		fclose(fp);
	return ibf_error_set(err, IBF_ENOMEM, path, 0, "out of memory");
}

struct ibf_fabric *ibf_fabric_read(const char *path, int fmt, struct ibf_error *err)
{
	char *buf;
	size_t len;
	if (ibf_io_slurp(path, &buf, &len, err))
		return NULL;
	struct ibf_fabric *f = ibf_fabric_parse(buf, len, path, fmt, err);
	free(buf);
	return f;
}
