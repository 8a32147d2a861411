/* Cable plan model: nodes and cables, CSV/JSON I/O, rendering a plan as a
 * fabric and turning any fabric into a plan. */
#include "ibf_cabling.h"
#include "ibf_text.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[IBF_CABLE_KIND_COUNT] = {
	[IBF_CABLE_INTRA_SUBGROUP] = "intra-subgroup",
	[IBF_CABLE_INTRA_RACK] = "intra-rack",
	[IBF_CABLE_INTER_RACK] = "inter-rack",
	[IBF_CABLE_HOST] = "host",
	[IBF_CABLE_SWITCH] = "switch",
	[IBF_CABLE_ADAPTER] = "adapter",
};

const char *ibf_cable_kind_name(int kind)
{
	if (kind <= 0 || kind >= IBF_CABLE_KIND_COUNT)
		return "";
	return kind_names[kind];
}

int ibf_cable_kind_from_name(const char *name)
{
	for (int k = 1; k < IBF_CABLE_KIND_COUNT; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

/* ------------------------------------------------------------ model */

struct ibf_plan *ibf_plan_new(void)
{
	return calloc(1, sizeof(struct ibf_plan));
}

static void drop_index(struct ibf_plan *p)
{
	free(p->port_off);
	free(p->port_cable);
	p->port_off = NULL;
	p->port_cable = NULL;
}

void ibf_plan_free(struct ibf_plan *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].name);
		free(p->nodes[i].rack);
	}
	free(p->nodes);
	free(p->cables);
	free(p->hidx);
	free(p->meta);
	drop_index(p);
	free(p);
}

static uint32_t name_hash(const char *s)
{
	return ibf_fnv1a(s, strlen(s));
}

int ibf_plan_find(const struct ibf_plan *p, const char *name)
{
	if (!p->hcap)
		return -1;
	uint32_t mask = p->hcap - 1;
	for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
		int32_t v = p->hidx[i];
		if (v < 0)
			return -1;
		if (!strcmp(p->nodes[v].name, name))
			return v;
	}
}

static int hash_grow(struct ibf_plan *p)
{
	uint32_t cap = p->hcap ? p->hcap * 2 : 64;
	int32_t *h = malloc(cap * sizeof(*h));
	if (!h)
		return -1;
	for (uint32_t i = 0; i < cap; i++)
		h[i] = -1;
	for (uint32_t n = 0; n < p->nnodes; n++) {
		uint32_t i = name_hash(p->nodes[n].name) & (cap - 1);
		while (h[i] >= 0)
			i = (i + 1) & (cap - 1);
		h[i] = (int32_t)n;
	}
	free(p->hidx);
	p->hidx = h;
	p->hcap = cap;
	return 0;
}

int ibf_plan_node(struct ibf_plan *p, const char *name, int type, const char *rack, int nports,
		  struct ibf_error *err)
{
	if (!name || !*name)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "empty node name");
	if (nports < 0 || nports > IBF_MAX_PORTS)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "%s: port count %d out of range 1..%d", name, nports,
				     IBF_MAX_PORTS);
	int id = ibf_plan_find(p, name);
	if (id >= 0) {
		struct ibf_plan_node *n = &p->nodes[id];
		if (n->type != type)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "%s is used both as a switch and as a host", name);
		if (rack && *rack && *n->rack && strcmp(rack, n->rack))
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "%s is in rack %s and in rack %s", name, n->rack,
					     rack);
		if (rack && *rack && !*n->rack) {
			char *r = strdup(rack);
			if (!r)
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			free(n->rack);
			n->rack = r;
		}
		if (nports) {
			if (n->nports_fixed && n->nports != nports)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "%s is declared with %d and with %d ports",
						     name, n->nports, nports);
			if (nports < n->nports)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "%s has %d ports but port %d is cabled", name,
						     nports, n->nports);
			n->nports = (uint16_t)nports;
			n->nports_fixed = 1;
		}
		return id;
	}
	if (p->nnodes >= INT32_MAX / 2)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "too many nodes");
	if (p->nnodes == p->nodes_cap) {
		uint32_t cap = p->nodes_cap ? p->nodes_cap * 2 : 64;
		void *nn = realloc(p->nodes, cap * sizeof(*p->nodes));
		if (!nn)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		p->nodes = nn;
		p->nodes_cap = cap;
	}
	if ((p->nnodes + 1) * 2 > p->hcap && hash_grow(p))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	struct ibf_plan_node *n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	n->rack = strdup(rack ? rack : "");
	if (!n->name || !n->rack) {
		free(n->name);
		free(n->rack);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	n->type = (uint8_t)type;
	n->nports = (uint16_t)nports;
	n->nports_fixed = nports > 0;
	uint32_t mask = p->hcap - 1, i = name_hash(name) & mask;
	while (p->hidx[i] >= 0)
		i = (i + 1) & mask;
	p->hidx[i] = (int32_t)p->nnodes;
	drop_index(p);
	return (int)p->nnodes++;
}

static int check_port(struct ibf_plan *p, uint32_t node, int port, struct ibf_error *err)
{
	struct ibf_plan_node *n = &p->nodes[node];
	if (port < 1 || port > IBF_MAX_PORTS)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "%s: port %d out of range 1..%d",
				     n->name, port, IBF_MAX_PORTS);
	if (port > n->nports) {
		if (n->nports_fixed)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "%s: port %d is beyond its %d ports", n->name, port,
					     n->nports);
		n->nports = (uint16_t)port;
	}
	return 0;
}

int ibf_plan_add_cable(struct ibf_plan *p, const struct ibf_cable *c, struct ibf_error *err)
{
	if (c->a >= p->nnodes || c->b >= p->nnodes)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "cable %u: bad node index", c->id);
	if (c->a == c->b && c->ap == c->bp)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "cable %u connects %s port %d to itself", c->id,
				     p->nodes[c->a].name, c->ap);
	int rc = check_port(p, c->a, c->ap, err);
	if (!rc)
		rc = check_port(p, c->b, c->bp, err);
	if (rc)
		return rc;
	if (c->step < 1)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "cable %u: step must be >= 1",
				     c->id);
	if (p->ncables == p->cables_cap) {
		uint32_t cap = p->cables_cap ? p->cables_cap * 2 : 256;
		void *nc = realloc(p->cables, cap * sizeof(*p->cables));
		if (!nc)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		p->cables = nc;
		p->cables_cap = cap;
	}
	p->cables[p->ncables++] = *c;
	drop_index(p);
	return 0;
}

int ibf_plan_set_meta(struct ibf_plan *p, const char *meta)
{
	char *m = meta ? strdup(meta) : NULL;
	if (meta && !m)
		return IBF_ENOMEM;
	free(p->meta);
	p->meta = m;
	return 0;
}

/* Index; lines (may be NULL) gives each cable's input line for messages. */
static int plan_index(struct ibf_plan *p, const long *lines, const char *file,
		      struct ibf_error *err)
{
	drop_index(p);
	p->port_off = malloc(((size_t)p->nnodes + 1) * sizeof(uint32_t));
	if (!p->port_off)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint32_t off = 0;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		p->port_off[i] = off;
		off += (uint32_t)p->nodes[i].nports + 1;
	}
	p->port_off[p->nnodes] = off;
	p->port_cable = malloc(((size_t)off + 1) * sizeof(int32_t));
	if (!p->port_cable) {
		drop_index(p);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t i = 0; i < off; i++)
		p->port_cable[i] = -1;
	/* repeated cable numbers: hash them into an open table of >= 2n slots */
	uint32_t cap = 16;
	while (cap < p->ncables * 2)
		cap *= 2;
	int32_t *tab = malloc(cap * sizeof(int32_t));
	if (!tab) {
		drop_index(p);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t i = 0; i < cap; i++)
		tab[i] = -1;
	int rc = 0;
	for (uint32_t c = 0; c < p->ncables && !rc; c++) {
		uint32_t i = (p->cables[c].id * 2654435761u) & (cap - 1);
		while (tab[i] >= 0) {
			if (p->cables[tab[i]].id == p->cables[c].id) {
				long l = lines ? lines[c] : 0;
				long l0 = lines ? lines[tab[i]] : 0;
				if (l0)
					rc = ibf_error_set(
						err, IBF_EINVAL, l ? file : NULL, l,
						"cable number %u is used twice (first at "
						"line %ld)",
						p->cables[c].id, l0);
				else
					rc = ibf_error_set(err, IBF_EINVAL, l ? file : NULL, l,
							   "cable number %u is used twice",
							   p->cables[c].id);
				break;
			}
			i = (i + 1) & (cap - 1);
		}
		tab[i] = (int32_t)c;
	}
	free(tab);
	if (rc) {
		drop_index(p);
		return rc;
	}
	for (uint32_t c = 0; c < p->ncables; c++) {
		const struct ibf_cable *cb = &p->cables[c];
		for (int e = 0; e < 2; e++) {
			uint32_t n = e ? cb->b : cb->a;
			int port = e ? cb->bp : cb->ap;
			int32_t *slot = &p->port_cable[p->port_off[n] + (uint32_t)port];
			if (*slot >= 0) {
				const struct ibf_cable *o = &p->cables[*slot];
				long l = lines ? lines[c] : 0, l0 = lines ? lines[*slot] : 0;
				char at[40] = "";
				if (l0)
					snprintf(at, sizeof(at), " (line %ld)", l0);
				int prc = ibf_error_set(
					err, IBF_EINVAL, l ? file : NULL, l,
					"%s port %d is used by cable %u%s and cable %u",
					p->nodes[n].name, port, o->id, at, cb->id);
				drop_index(p);
				return prc;
			}
			*slot = (int32_t)c;
		}
	}
	return 0;
}

int ibf_plan_index(struct ibf_plan *p, struct ibf_error *err)
{
	return plan_index(p, NULL, NULL, err);
}

/* ------------------------------------------------------------ CSV read */

enum col {
	C_CABLE,
	C_STEP,
	C_KIND,
	C_ARACK,
	C_ASW,
	C_APORT,
	C_BRACK,
	C_BSW,
	C_BPORT,
	C_WIDTH,
	C_SPEED,
	C_ANPORTS,
	C_BNPORTS,
	C_COUNT
};
static const char *const col_names[C_COUNT] = {
	"cable",    "step",   "kind",  "a_rack", "a_switch", "a_port",	 "b_rack",
	"b_switch", "b_port", "width", "speed",	 "a_nports", "b_nports",
};

#define CSV_MAX_FIELDS 64

/* Split one line (without its newline) into fields in place.  Returns the
 * field count or -1 for an unterminated quote. */
static int csv_split(char *s, char **fld, int max)
{
	int n = 0;
	char *w = s;
	for (;;) {
		char *start = w;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s)
					return -1;
				if (*s == '"') {
					if (s[1] == '"') {
						*w++ = '"';
						s += 2;
						continue;
					}
					s++;
					break;
				}
				*w++ = *s++;
			}
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s && *s != ',')
				return -2;
		} else {
			while (*s && *s != ',')
				*w++ = *s++;
			/* trim trailing blanks of an unquoted field */
			while (w > start && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
		}
		int more = *s == ',';
		if (n < max)
			fld[n] = start;
		n++;
		if (more)
			s++;
		*w++ = '\0';
		if (!more)
			break;
		if (w > s) /* cannot happen: output never overtakes input */
			return -1;
	}
	return n;
}

static int parse_uint(const char *s, long lo, long hi, long *out)
{
	if (!*s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* State of one CSV plan being read. */
struct csv_rd {
	struct ibf_plan *p;
	const char *file;
	struct ibf_error *err;
	int col[C_COUNT]; /* field index of each column, -1 absent */
	int have_header;
	int nhdr;    /* fields of the header row */
	long lineno; /* last line read */
	long *lines; /* input line of every cable */
	size_t lines_cap;
	char *line; /* the current line, NUL-terminated, split in place */
	size_t line_cap;
};

/* The header row: which field holds which column. */
static int csv_header(struct csv_rd *r, char **fld, int nf)
{
	for (int i = 0; i < nf; i++)
		for (int c = 0; c < C_COUNT; c++)
			if (!strcmp(fld[i], col_names[c])) {
				if (r->col[c] >= 0)
					return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno,
							     "column '%s' appears twice",
							     col_names[c]);
				r->col[c] = i;
			}
	static const int req[] = { C_ASW, C_APORT, C_BSW, C_BPORT };
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if (r->col[req[i]] < 0)
			return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno,
					     "header lacks column '%s' (need at least "
					     "a_switch,a_port,b_switch,b_port)",
					     col_names[req[i]]);
	r->have_header = 1;
	r->nhdr = nf;
	return 0;
}

/* Width (a lane count or e.g. 4xEDR, which sets the speed too) and speed
 * columns into cb. */
static int csv_link(struct csv_rd *r, const char *width, const char *speed, struct ibf_cable *cb)
{
	if (*width) {
		uint8_t w = 0, sp = 0;
		const char *ws = width;
		char tmp[16];
		if (isdigit((unsigned char)ws[0]) && !strchr(ws, 'x') && !strchr(ws, 'X') &&
		    strlen(ws) < 8) {
			snprintf(tmp, sizeof(tmp), "%sx", ws);
			ws = tmp;
		}
		if (ibf_parse_width_speed(ws, strlen(ws), &w, &sp))
			return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno,
					     "bad width '%s' (1x, 2x, 4x, 8x, 12x or e.g. 4xEDR)",
					     width);
		cb->width = w;
		cb->speed = sp;
	}
	if (*speed) {
		int sp = ibf_speed_from_name(speed, strlen(speed));
		if (!sp)
			return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno,
					     "bad speed '%s' (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, "
					     "NDR or XDR)",
					     speed);
		cb->speed = (uint8_t)sp;
	}
	return 0;
}

/* The number columns of a cable row: cable id, step, kind, ports and port
 * counts (an/bn: 0 when not given). */
static int csv_numbers(struct csv_rd *r, const char **v, struct ibf_cable *cb, long *an, long *bn)
{
	const char *file = r->file;
	long ln = r->lineno, x, ap, bp;
	if (!*v[C_CABLE])
		cb->id = r->p->ncables + 1;
	else if (parse_uint(v[C_CABLE], 0, UINT32_MAX / 2, &x))
		return ibf_error_set(r->err, IBF_EPARSE, file, ln, "bad cable number '%s'",
				     v[C_CABLE]);
	else
		cb->id = (uint32_t)x;
	if (!*v[C_STEP])
		cb->step = 1;
	else if (parse_uint(v[C_STEP], 1, 65535, &x))
		return ibf_error_set(r->err, IBF_EPARSE, file, ln,
				     "bad step '%s' (an integer 1..65535)", v[C_STEP]);
	else
		cb->step = (uint16_t)x;
	int kind = *v[C_KIND] ? ibf_cable_kind_from_name(v[C_KIND]) : IBF_CABLE_SWITCH;
	if (kind < 0)
		return ibf_error_set(r->err, IBF_EPARSE, file, ln,
				     "unknown kind '%s' (intra-subgroup, intra-rack, inter-rack, "
				     "host, switch or adapter)",
				     v[C_KIND]);
	cb->kind = (uint8_t)kind;
	if (parse_uint(v[C_APORT], 1, IBF_MAX_PORTS, &ap) ||
	    parse_uint(v[C_BPORT], 1, IBF_MAX_PORTS, &bp))
		return ibf_error_set(
			r->err, IBF_EPARSE, file, ln, "bad port '%s' (an integer 1..%d)",
			parse_uint(v[C_APORT], 1, IBF_MAX_PORTS, &ap) ? v[C_APORT] : v[C_BPORT],
			IBF_MAX_PORTS);
	cb->ap = (uint8_t)ap;
	cb->bp = (uint8_t)bp;
	if ((*v[C_ANPORTS] && parse_uint(v[C_ANPORTS], 1, IBF_MAX_PORTS, an)) ||
	    (*v[C_BNPORTS] && parse_uint(v[C_BNPORTS], 1, IBF_MAX_PORTS, bn)))
		return ibf_error_set(r->err, IBF_EPARSE, file, ln, "bad port count (1..%d)",
				     IBF_MAX_PORTS);
	return 0;
}

/* One cable row: its fields, its two ends as plan nodes, the cable, and
 * the line it came from. */
static int csv_row(struct csv_rd *r, char **fld, int nf)
{
	struct ibf_plan *p = r->p;
	/* a value beyond the header's fields is one the reader would drop (an
	 * unquoted comma, a column left out of the header); empty ones, as
	 * spreadsheets write for their unused columns, are not */
	for (int i = r->nhdr; i < nf; i++)
		if (fld[i][strspn(fld[i], " \t")])
			return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno,
					     "%d fields but the header has %d (quote names with "
					     "commas)",
					     nf, r->nhdr);
	/* a row that ends early is a line cut short (a truncated copy: its last
	 * field, a port number, may be cut too) or a value left out: every row
	 * has the header's fields, empty ones too */
	if (nf < r->nhdr)
		return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno,
				     "%d fields but the header has %d (a line cut short? give "
				     "every field, empty ones too)",
				     nf, r->nhdr);
	const char *v[C_COUNT];
	for (int c = 0; c < C_COUNT; c++)
		v[c] = r->col[c] >= 0 ? fld[r->col[c]] : "";
	struct ibf_cable cb = { 0 };
	long an = 0, bn = 0;
	int rc;
	if ((rc = csv_numbers(r, v, &cb, &an, &bn)) ||
	    (rc = csv_link(r, v[C_WIDTH], v[C_SPEED], &cb)))
		return rc;
	if (!*v[C_ASW] || !*v[C_BSW])
		return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno, "empty switch name");
	/* a host cable joins a switch (a) and an adapter (b); an adapter
	 * cable two adapters cabled back to back */
	int btype = cb.kind == IBF_CABLE_HOST || cb.kind == IBF_CABLE_ADAPTER ? IBF_NODE_CA
									     : IBF_NODE_SWITCH;
	int atype = cb.kind == IBF_CABLE_ADAPTER ? IBF_NODE_CA : IBF_NODE_SWITCH;
	struct ibf_error e2;
	int a = ibf_plan_node(p, v[C_ASW], atype, v[C_ARACK], (int)an, &e2);
	int b = a < 0 ? a : ibf_plan_node(p, v[C_BSW], btype, v[C_BRACK], (int)bn, &e2);
	if (a < 0 || b < 0)
		return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno, "%s", e2.msg);
	cb.a = (uint32_t)a;
	cb.b = (uint32_t)b;
	if (ibf_plan_add_cable(p, &cb, &e2))
		return ibf_error_set(r->err, IBF_EPARSE, r->file, r->lineno, "%s", e2.msg);
	if (p->ncables > r->lines_cap) {
		size_t cap = r->lines_cap ? r->lines_cap * 2 : 256;
		long *nl = realloc(r->lines, cap * sizeof(long));
		if (!nl)
			return ibf_error_set(r->err, IBF_ENOMEM, NULL, 0, "out of memory");
		r->lines = nl;
		r->lines_cap = cap;
	}
	r->lines[p->ncables - 1] = r->lineno;
	return 0;
}

static int csv_line(void *ctx, const char *s, size_t n, long ln)
{
	struct csv_rd *r = ctx;
	r->lineno = ln;
	if (n + 1 > r->line_cap) {
		char *nb = realloc(r->line, n + 1);
		if (!nb)
			return ibf_error_set(r->err, IBF_ENOMEM, NULL, 0, "out of memory");
		r->line = nb;
		r->line_cap = n + 1;
	}
	memcpy(r->line, s, n);
	r->line[n] = '\0';
	const char *t = r->line;
	while (*t == ' ' || *t == '\t')
		t++;
	if (!*t || *t == '#')
		return 0;
	char *fld[CSV_MAX_FIELDS];
	int nf = csv_split(r->line, fld, CSV_MAX_FIELDS);
	if (nf < 0)
		return ibf_error_set(r->err, IBF_EPARSE, r->file, ln,
				     nf == -1 ? "unterminated quoted field"
					      : "text after a closing quote");
	if (nf > CSV_MAX_FIELDS)
		return ibf_error_set(r->err, IBF_EPARSE, r->file, ln, "more than %d fields",
				     CSV_MAX_FIELDS);
	if (!r->have_header)
		return csv_header(r, fld, nf);
	return csv_row(r, fld, nf);
}

struct ibf_plan *ibf_plan_parse_csv(const char *buf, size_t len, const char *name,
				    struct ibf_error *err)
{
	struct csv_rd r = { .file = name ? name : "<plan>", .err = err };
	r.p = ibf_plan_new();
	if (!r.p) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	for (int i = 0; i < C_COUNT; i++)
		r.col[i] = -1;
	int rc = ibf_each_line(buf, len, r.file, err, csv_line, &r);
	if (!rc && !r.have_header)
		rc = ibf_error_set(err, IBF_EPARSE, r.file, r.lineno ? r.lineno : 1,
				   "no header row (cable,step,kind,a_rack,a_switch,a_port,b_rack,"
				   "b_switch,b_port)");
	if (!rc)
		rc = plan_index(r.p, r.lines, r.file, err);
	free(r.line);
	free(r.lines);
	if (rc) {
		ibf_plan_free(r.p);
		return NULL;
	}
	return r.p;
}

struct ibf_plan *ibf_plan_read_csv(const char *path, struct ibf_error *err)
{
	char *buf;
	size_t len;
	if (ibf_slurp(path, &buf, &len, err))
		return NULL;
	struct ibf_plan *p = ibf_plan_parse_csv(buf, len, path, err);
	free(buf);
	return p;
}

/* ------------------------------------------------------------ CSV/JSON write */

static void csv_field(FILE *out, const char *s)
{
	size_t n = strlen(s);
	int quote = n && (s[0] == ' ' || s[n - 1] == ' ' || s[0] == '#');
	for (const char *c = s; *c && !quote; c++)
		if (*c == ',' || *c == '"' || *c == '\n' || *c == '\r' || *c == '\t')
			quote = 1;
	if (!quote) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

int ibf_plan_write_csv_stream(const struct ibf_plan *p, FILE *out)
{
	fputs("cable,step,kind,a_rack,a_switch,a_port,b_rack,b_switch,b_port,width,speed,"
	      "a_nports,b_nports\n",
	      out);
	for (uint32_t i = 0; i < p->ncables; i++) {
		const struct ibf_cable *c = &p->cables[i];
		const struct ibf_plan_node *a = &p->nodes[c->a], *b = &p->nodes[c->b];
		fprintf(out, "%u,%u,%s,", c->id, c->step, ibf_cable_kind_name(c->kind));
		csv_field(out, a->rack);
		fputc(',', out);
		csv_field(out, a->name);
		fprintf(out, ",%u,", c->ap);
		csv_field(out, b->rack);
		fputc(',', out);
		csv_field(out, b->name);
		fprintf(out, ",%u,", c->bp);
		if (c->width)
			fprintf(out, "%ux", c->width);
		fprintf(out, ",%s,", c->speed ? ibf_speed_name(c->speed) : "");
		if (a->nports_fixed)
			fprintf(out, "%u", a->nports);
		fputc(',', out);
		if (b->nports_fixed)
			fprintf(out, "%u", b->nports);
		fputc('\n', out);
	}
	return ferror(out) ? IBF_EIO : 0;
}

int ibf_plan_write_csv(const struct ibf_plan *p, const char *path, struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	rc = ibf_plan_write_csv_stream(p, a.fp);
	if (rc)
		ibf_error_set(err, IBF_EIO, path, 0, "write error");
	int rc2 = ibf_atomic_commit(&a, rc == 0, rc ? NULL : err);
	return rc ? rc : rc2;
}

int ibf_plan_write_json_stream(const struct ibf_plan *p, FILE *out)
{
	fputs("{\n  \"meta\": ", out);
	ibf_json_str(out, p->meta ? p->meta : "");
	fputs(",\n  \"nodes\": [", out);
	for (uint32_t i = 0; i < p->nnodes; i++) {
		const struct ibf_plan_node *n = &p->nodes[i];
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		ibf_json_str(out, n->name);
		fputs(", \"rack\": ", out);
		ibf_json_str(out, n->rack);
		fprintf(out, ", \"type\": \"%s\", \"nports\": %u}",
			n->type == IBF_NODE_SWITCH ? "switch" : "host", n->nports);
	}
	fputs("\n  ],\n  \"cables\": [", out);
	for (uint32_t i = 0; i < p->ncables; i++) {
		const struct ibf_cable *c = &p->cables[i];
		fprintf(out, "%s    {\"cable\": %u, \"step\": %u, \"kind\": \"%s\", \"a\": ",
			i ? ",\n" : "\n", c->id, c->step, ibf_cable_kind_name(c->kind));
		ibf_json_str(out, p->nodes[c->a].name);
		fprintf(out, ", \"a_port\": %u, \"b\": ", c->ap);
		ibf_json_str(out, p->nodes[c->b].name);
		fprintf(out, ", \"b_port\": %u", c->bp);
		if (c->width || c->speed) {
			char ws[24];
			fprintf(out, ", \"link\": \"%s\"",
				ibf_format_width_speed(c->width, c->speed, ws, sizeof(ws)));
		}
		fputc('}', out);
	}
	fputs("\n  ]\n}\n", out);
	return ferror(out) ? IBF_EIO : 0;
}

/* ------------------------------------------------------------ plan <-> fabric */

struct ibf_fabric *ibf_plan_to_fabric(const struct ibf_plan *p, struct ibf_error *err)
{
	struct ibf_fabric *f = ibf_fabric_new();
	int32_t *map = malloc(((size_t)p->nnodes + 1) * sizeof(int32_t));
	if (!f || !map) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	uint32_t nsw = 0, nca = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < p->nnodes; i++) {
			const struct ibf_plan_node *n = &p->nodes[i];
			int sw = n->type == IBF_NODE_SWITCH;
			if (sw != (pass == 0))
				continue;
			uint32_t ord = sw ? nsw++ : nca++;
			int type = sw ? IBF_NODE_SWITCH : IBF_NODE_CA;
			uint64_t guid = ibf_gen_guid(type, ord, 0);
			int np = n->nports ? n->nports : 1;
			int id = ibf_fabric_add_node(f, type, np, guid, n->name, n->name, err);
			if (id < 0)
				goto fail;
			map[i] = id;
			struct ibf_node *fn = &f->nodes[id];
			fn->sysimg_guid = guid;
			/* a plan names no device: no vendor or device id (one
			 * made-up id for all made every node the same model, so
			 * topo info of a plan mixing HDR and FDR cables, as
			 * planned, called the slower ones degraded) */
			fn->vendid = 0;
			fn->devid = 0;
			if (sw)
				ibf_port(f, id, 0)->guid = guid;
			else
				for (int q = 1; q <= np; q++)
					ibf_port(f, id, q)->guid = ibf_gen_guid(type, ord, q);
		}
	for (uint32_t i = 0; i < p->ncables; i++) {
		const struct ibf_cable *c = &p->cables[i];
		int w = c->width ? c->width : 4, s = c->speed ? c->speed : IBF_SPEED_EDR;
		if (ibf_fabric_connect(f, map[c->a], c->ap, map[c->b], c->bp, w, s, err))
			goto fail;
	}
	if (p->meta && ibf_fabric_set_meta(f, p->meta)) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	if (ibf_fabric_finalize(f, err))
		goto fail;
	free(map);
	return f;
fail:
	free(map);
	ibf_fabric_free(f);
	return NULL;
}

/* "sf-r03-g1-s02" -> "r03": the first token r<digits> between '-', '_',
 * '.', ' ' or the ends of the name. */
static void rack_from_name(const char *name, char *rack, size_t len)
{
	rack[0] = '\0';
	for (const char *s = name; *s; s++) {
		if ((*s != 'r' && *s != 'R') || (s != name && !strchr("-_. ", s[-1])))
			continue;
		const char *d = s + 1;
		while (isdigit((unsigned char)*d))
			d++;
		if (d == s + 1 || (*d && !strchr("-_. ", *d)))
			continue;
		size_t n = (size_t)(d - s);
		if (n >= len)
			n = len - 1;
		memcpy(rack, s, n);
		rack[n] = '\0';
		return;
	}
}

/* the degraded entry (not GRADE) of the link at (node, port), or NULL;
 * d is sorted by (node_a, port_a) */
static const struct ibf_degraded *degraded_at(const struct ibf_degraded *d, uint32_t n,
					      uint32_t node, int port)
{
	for (uint32_t i = 0; i < n; i++)
		if (d[i].evidence != IBF_DEGR_GRADE &&
		    (((uint32_t)d[i].node_a == node && d[i].port_a == port) ||
		     ((uint32_t)d[i].node_b == node && d[i].port_b == port)))
			return &d[i];
	return NULL;
}

struct ibf_plan *ibf_plan_from_fabric(const struct ibf_fabric *f, struct ibf_error *err)
{
	return ibf_plan_from_fabric_ex(f, NULL, err);
}

struct ibf_plan *ibf_plan_from_fabric_ex(const struct ibf_fabric *f, uint32_t *expected,
					 struct ibf_error *err)
{
	struct ibf_degraded *dg = NULL;
	uint32_t ndg = 0, nexp = 0;
	if (expected)
		*expected = 0;
	if (ibf_find_degraded(f, &dg, &ndg, err))
		return NULL;
	struct ibf_plan *p = ibf_plan_new();
	int32_t *map = malloc(((size_t)f->nnodes + 1) * sizeof(int32_t));
	if (!p || !map) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	char name[512], rack[64];
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < f->nnodes; i++) {
			const struct ibf_node *n = &f->nodes[i];
			int sw = n->type == IBF_NODE_SWITCH;
			if (sw != (pass == 0))
				continue;
			const char *d = n->desc ? n->desc : "";
			while (*d == ' ')
				d++;
			size_t dl = strlen(d);
			while (dl && d[dl - 1] == ' ')
				dl--;
			if (!dl && n->id && *n->id) {
				d = n->id;
				dl = strlen(d);
			}
			if (dl > IBF_PLAN_NAME_MAX)
				dl = IBF_PLAN_NAME_MAX;
			/* the node GUID, else (ibnetdiscover -p has none) its
			 * first port GUID: a name validate can find it by */
			uint64_t g = ibf_node_some_guid(f, (int)i);
			if (dl)
				snprintf(name, sizeof(name), "%.*s", (int)dl, d);
			else
				snprintf(name, sizeof(name), "%s-0x%016" PRIx64,
					 sw ? "switch" : "host", g);
			if (ibf_plan_find(p, name) >= 0) {
				size_t l = strlen(name);
				snprintf(name + l, sizeof(name) - l, "-0x%016" PRIx64, g);
				/* "-k" replaces the previous try (a suffix growing on every
				 * try could be cut at the buffer's end and repeat forever) */
				l = strlen(name);
				for (unsigned k = 2; ibf_plan_find(p, name) >= 0; k++)
					snprintf(name + l, sizeof(name) - l, "-%u", k);
			}
			rack_from_name(name, rack, sizeof(rack));
			int id = ibf_plan_node(p, name, sw ? IBF_NODE_SWITCH : IBF_NODE_CA, rack,
					       n->nports ? n->nports : 1, err);
			if (id < 0)
				goto fail;
			map[i] = id;
		}
	uint32_t nid = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < f->nnodes; i++) {
			const struct ibf_node *n = &f->nodes[i];
			for (int q = 1; q <= n->nports; q++) {
				const struct ibf_port *pp = ibf_port(f, (int)i, q);
				if (pp->peer_node == IBF_NO_NODE)
					continue;
				uint32_t j = (uint32_t)pp->peer_node;
				int sw_i = n->type == IBF_NODE_SWITCH;
				int sw_j = f->nodes[j].type == IBF_NODE_SWITCH;
				int host = !(sw_i && sw_j);
				if (host != (pass == 1))
					continue;
				/* each cable once: from the switch side of a host cable,
				 * else from the lower (node, port) */
				if (host ? (!sw_i &&
					    (sw_j || j < i || (j == i && pp->peer_port < q)))
					 : (j < i || (j == i && pp->peer_port < q)))
					continue;
				struct ibf_cable c = { 0 };
				c.id = ++nid;
				c.kind = !host ? IBF_CABLE_SWITCH
					       : sw_i || sw_j ? IBF_CABLE_HOST
							      : IBF_CABLE_ADAPTER;
				c.step = host ? 2 : 1;
				c.width = pp->width;
				c.speed = pp->speed;
				/* a degraded cable at what it should run at; not above
				 * what most like cables run at (ibsim's supported 12x
				 * HDR planned every cable at 12x HDR) */
				const struct ibf_degraded *x = degraded_at(dg, ndg, i, q);
				uint8_t tw = 0, ts = 0;
				uint64_t tr = x ? ibf_degr_target(x, &tw, &ts) : 0;
				if (x &&
				    !(tr && tr <= (uint64_t)x->width * ibf_speed_rate(x->speed))) {
					c.width = tw;
					c.speed = ts;
					nexp++;
				}
				c.a = (uint32_t)map[i];
				c.ap = (uint8_t)q;
				c.b = (uint32_t)map[j];
				c.bp = pp->peer_port;
				if (ibf_plan_add_cable(p, &c, err))
					goto fail;
			}
		}
	if (f->meta && ibf_plan_set_meta(p, f->meta)) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	if (ibf_plan_index(p, err))
		goto fail;
	free(map);
	free(dg);
	if (expected)
		*expected = nexp;
	return p;
fail:
	free(map);
	free(dg);
	ibf_plan_free(p);
	return NULL;
}
