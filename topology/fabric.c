/* Fabric graph: construction, finalisation (switch index + CSR), lookups. */
#include "ibf_topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ speeds */

static const char *const speed_names[IBF_SPEED_COUNT] = {
	"", "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR",
};
/* 0.1 Gb/s per lane (signalling data rate after encoding) */
static const unsigned speed_rates[IBF_SPEED_COUNT] = {
	0, 20, 40, 80, 100, 136, 250, 500, 1000, 2000,
};

const char *ibf_speed_name(int speed)
{
	if (speed <= 0 || speed >= IBF_SPEED_COUNT)
		return "";
	return speed_names[speed];
}

unsigned ibf_speed_rate(int speed)
{
	if (speed <= 0 || speed >= IBF_SPEED_COUNT)
		return 0;
	return speed_rates[speed];
}

uint8_t ibf_width_from_ib(unsigned m)
{
	if (m & 8)
		return 12;
	if (m & 4)
		return 8;
	if (m & 2)
		return 4;
	if (m & 16)
		return 2;
	if (m & 1)
		return 1;
	return 0;
}

uint8_t ibf_speed_from_ib(unsigned s, unsigned e, unsigned fdr10)
{
	if (e & (16 | 32))
		return IBF_SPEED_XDR;
	if (e & 8)
		return IBF_SPEED_NDR;
	if (e & 4)
		return IBF_SPEED_HDR;
	if (e & 2)
		return IBF_SPEED_EDR;
	if (e & 1)
		return IBF_SPEED_FDR;
	if (fdr10 & 1)
		return IBF_SPEED_FDR10;
	if (s & 4)
		return IBF_SPEED_QDR;
	if (s & 2)
		return IBF_SPEED_DDR;
	if (s & 1)
		return IBF_SPEED_SDR;
	return IBF_SPEED_UNKNOWN;
}

int ibf_speed_from_name(const char *s, size_t n)
{
	for (int i = 1; i < IBF_SPEED_COUNT; i++) {
		size_t l = strlen(speed_names[i]);
		if (l == n && strncasecmp(s, speed_names[i], n) == 0)
			return i;
	}
	return 0;
}

int ibf_parse_width_speed(const char *s, size_t n, uint8_t *width, uint8_t *speed)
{
	size_t i = 0;
	unsigned w = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9' && w < 100)
		w = w * 10 + (unsigned)(s[i++] - '0');
	if (i == 0 || i >= n || (s[i] != 'x' && s[i] != 'X'))
		return -1;
	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
		return -1;
	i++;
	int sp = 0;
	if (i < n) {
		sp = ibf_speed_from_name(s + i, n - i);
		if (!sp && !(n - i == 3 && strncmp(s + i, "???", 3) == 0))
			return -1;
	}
	*width = (uint8_t)w;
	*speed = (uint8_t)sp;
	return 0;
}

char *ibf_format_width_speed(uint8_t width, uint8_t speed, char *buf, size_t len)
{
	if (!width && !speed)
		buf[0] = '\0';
	else if (!width) /* "??", as infiniband-diags prints an unknown width */
		snprintf(buf, len, "??%s", ibf_speed_name(speed));
	else
		snprintf(buf, len, "%ux%s", width, ibf_speed_name(speed));
	return buf;
}

/* ------------------------------------------------------------ graph */

/* ------------------------------------------------------------ GUID index */

struct ibf_guid_ent {
	uint64_t guid;
	uint32_t node;
	int32_t port;
};

struct ibf_guid_index {
	struct ibf_guid_ent *node, *port; /* sorted by (guid, node, port) */
	uint32_t nnode, nport;
};

static void guid_index_drop(struct ibf_fabric *f)
{
	if (!f->guid_index)
		return;
	free(f->guid_index->node);
	free(f->guid_index->port);
	free(f->guid_index);
	f->guid_index = NULL;
}

static int guid_ent_cmp(const void *pa, const void *pb)
{
	const struct ibf_guid_ent *a = pa, *b = pb;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
}

int ibf_fabric_index_guids(struct ibf_fabric *f)
{
	guid_index_drop(f);
	struct ibf_guid_index *x = calloc(1, sizeof(*x));
	if (!x)
		return IBF_ENOMEM;
	x->node = malloc(((size_t)f->nnodes + 1) * sizeof(*x->node));
	x->port = malloc(((size_t)f->nports_total + 1) * sizeof(*x->port));
	if (!x->node || !x->port) {
		free(x->node);
		free(x->port);
		free(x);
		return IBF_ENOMEM;
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		x->node[x->nnode++] = (struct ibf_guid_ent){ n->guid, i, -1 };
		for (int p = 0; p <= n->nports; p++)
			x->port[x->nport++] =
				(struct ibf_guid_ent){ f->ports[n->port_off + (uint32_t)p].guid, i,
						       p };
	}
	qsort(x->node, x->nnode, sizeof(*x->node), guid_ent_cmp);
	qsort(x->port, x->nport, sizeof(*x->port), guid_ent_cmp);
	f->guid_index = x;
	return 0;
}

/* First entry with this GUID (the lowest node, then port), or NULL. */
static const struct ibf_guid_ent *guid_lookup(const struct ibf_guid_ent *e, uint32_t n,
					      uint64_t guid)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (e[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].guid == guid ? &e[lo] : NULL;
}

struct ibf_fabric *ibf_fabric_new(void)
{
	return calloc(1, sizeof(struct ibf_fabric));
}

void ibf_fabric_free(struct ibf_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].desc);
		free(f->nodes[i].id);
	}
	free(f->nodes);
	free(f->ports);
	free(f->switches);
	free(f->adj_off);
	free(f->adj);
	free(f->port_adj);
	free(f->adj_src);
	free(f->adj_rev);
	free(f->meta);
	guid_index_drop(f);
	free(f);
}

static char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int ibf_fabric_add_node(struct ibf_fabric *f, int type, int nports, uint64_t guid, const char *desc,
			const char *id, struct ibf_error *err)
{
	if (type != IBF_NODE_CA && type != IBF_NODE_SWITCH && type != IBF_NODE_ROUTER)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "bad node type %d", type);
	if (nports < 1 || nports > IBF_MAX_PORTS)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "node port count %d out of range 1..%d", nports,
				     IBF_MAX_PORTS);
	if (f->nnodes >= INT32_MAX - 1)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "too many nodes");
	if (f->nnodes == f->nodes_cap) {
		uint32_t nc = f->nodes_cap ? f->nodes_cap * 2 : 64;
		struct ibf_node *n = realloc(f->nodes, nc * sizeof(*n));
		if (!n)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		f->nodes = n;
		f->nodes_cap = nc;
	}
	uint32_t need = f->nports_total + (uint32_t)nports + 1;
	if (need > f->ports_cap) {
		uint32_t pc = f->ports_cap ? f->ports_cap : 256;
		while (pc < need)
			pc *= 2;
		struct ibf_port *p = realloc(f->ports, pc * sizeof(*p));
		if (!p)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		f->ports = p;
		f->ports_cap = pc;
	}
	struct ibf_node *n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	n->nports = (uint16_t)nports;
	n->port_off = f->nports_total;
	n->sw = -1;
	n->guid = guid;
	n->desc = xstrdup(desc ? desc : "");
	n->id = xstrdup(id);
	if (!n->desc || (id && !n->id)) {
		free(n->desc);
		free(n->id);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (int p = 0; p <= nports; p++) {
		struct ibf_port *pp = &f->ports[f->nports_total + (uint32_t)p];
		memset(pp, 0, sizeof(*pp));
		pp->peer_node = IBF_NO_NODE;
	}
	f->nports_total = need;
	f->finalized = 0;
	guid_index_drop(f);
	return (int)f->nnodes++;
}

int ibf_fabric_connect(struct ibf_fabric *f, int a, int pa, int b, int pb, int width, int speed,
		       struct ibf_error *err)
{
	if (a < 0 || (uint32_t)a >= f->nnodes || b < 0 || (uint32_t)b >= f->nnodes)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "link to unknown node");
	if (pa < 1 || pa > f->nodes[a].nports)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "port %d out of range 1..%d on '%s'",
				     pa, f->nodes[a].nports, f->nodes[a].desc);
	if (pb < 1 || pb > f->nodes[b].nports)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "port %d out of range 1..%d on '%s'",
				     pb, f->nodes[b].nports, f->nodes[b].desc);
	if (a == b && pa == pb)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "port %d of '%s' linked to itself",
				     pa, f->nodes[a].desc);
	struct ibf_port *x = ibf_port(f, a, pa), *y = ibf_port(f, b, pb);
	if (x->peer_node != IBF_NO_NODE && !(x->peer_node == b && x->peer_port == pb))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "port %d of '%s' is already linked to port %d of '%s'", pa,
				     f->nodes[a].desc, x->peer_port, f->nodes[x->peer_node].desc);
	if (y->peer_node != IBF_NO_NODE && !(y->peer_node == a && y->peer_port == pa))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "port %d of '%s' is already linked to port %d of '%s'", pb,
				     f->nodes[b].desc, y->peer_port, f->nodes[y->peer_node].desc);
	x->peer_node = b;
	x->peer_port = (uint8_t)pb;
	y->peer_node = a;
	y->peer_port = (uint8_t)pa;
	if (width) {
		x->width = (uint8_t)width;
		y->width = (uint8_t)width;
	}
	if (speed) {
		x->speed = (uint8_t)speed;
		y->speed = (uint8_t)speed;
	}
	f->finalized = 0;
	return 0;
}

void ibf_fabric_disconnect(struct ibf_fabric *f, int a, int pa)
{
	struct ibf_port *x = ibf_port(f, a, pa);
	if (x->peer_node == IBF_NO_NODE)
		return;
	struct ibf_port *y = ibf_port(f, x->peer_node, x->peer_port);
	y->peer_node = IBF_NO_NODE;
	y->peer_port = 0;
	x->peer_node = IBF_NO_NODE;
	x->peer_port = 0;
	f->finalized = 0;
}

int ibf_fabric_finalize(struct ibf_fabric *f, struct ibf_error *err)
{
	free(f->switches);
	free(f->adj_off);
	free(f->adj);
	f->switches = NULL;
	f->adj_off = NULL;
	f->adj = NULL;
	f->nsw = 0;
	f->nhosts_ports = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == IBF_NODE_SWITCH)
			f->nsw++;
	f->switches = malloc((f->nsw ? f->nsw : 1) * sizeof(*f->switches));
	f->adj_off = calloc(f->nsw + 1, sizeof(*f->adj_off));
	if (!f->switches || !f->adj_off)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint32_t s = 0, nadj = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct ibf_node *n = &f->nodes[i];
		if (n->type != IBF_NODE_SWITCH) {
			n->sw = -1;
			for (int p = 1; p <= n->nports; p++) {
				struct ibf_port *pp = ibf_port(f, (int)i, p);
				if (pp->peer_node != IBF_NO_NODE &&
				    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH)
					f->nhosts_ports++;
			}
			continue;
		}
		n->sw = (int32_t)s;
		f->switches[s++] = (int32_t)i;
	}
	for (s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		uint32_t deg = 0;
		for (int p = 1; p <= f->nodes[node].nports; p++) {
			struct ibf_port *pp = ibf_port(f, node, p);
			if (pp->peer_node != IBF_NO_NODE && pp->peer_node != node &&
			    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH)
				deg++;
		}
		f->adj_off[s + 1] = f->adj_off[s] + deg;
		nadj += deg;
	}
	f->adj = malloc((nadj ? nadj : 1) * sizeof(*f->adj));
	if (!f->adj)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		uint32_t k = f->adj_off[s];
		for (int p = 1; p <= f->nodes[node].nports; p++) {
			struct ibf_port *pp = ibf_port(f, node, p);
			if (pp->peer_node != IBF_NO_NODE && pp->peer_node != node &&
			    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH) {
				f->adj[k].nbr = (uint32_t)f->nodes[pp->peer_node].sw;
				f->adj[k].lport = (uint8_t)p;
				f->adj[k].rport = pp->peer_port;
				k++;
			}
		}
	}
	/* link indexes every module uses */
	free(f->port_adj);
	free(f->adj_src);
	free(f->adj_rev);
	f->port_adj = malloc(((size_t)f->nports_total + 1) * sizeof(*f->port_adj));
	f->adj_src = malloc((nadj ? nadj : 1) * sizeof(*f->adj_src));
	f->adj_rev = malloc((nadj ? nadj : 1) * sizeof(*f->adj_rev));
	if (!f->port_adj || !f->adj_src || !f->adj_rev)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t i = 0; i < f->nports_total; i++)
		f->port_adj[i] = -1;
	for (s = 0; s < f->nsw; s++) {
		const struct ibf_node *n = &f->nodes[f->switches[s]];
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			f->port_adj[n->port_off + f->adj[e].lport] = (int32_t)e;
			f->adj_src[e] = s;
		}
	}
	for (uint32_t e = 0; e < nadj; e++) {
		/* the reverse: the neighbour's port the cable ends on */
		const struct ibf_node *nb = &f->nodes[f->switches[f->adj[e].nbr]];
		int32_t r = f->port_adj[nb->port_off + f->adj[e].rport];
		f->adj_rev[e] = r >= 0 ? (uint32_t)r : UINT32_MAX;
	}
	if (ibf_fabric_index_guids(f))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	f->finalized = 1;
	return 0;
}

int ibf_fabric_find_guid(const struct ibf_fabric *f, uint64_t node_guid)
{
	if (f->guid_index) {
		const struct ibf_guid_ent *e =
			guid_lookup(f->guid_index->node, f->guid_index->nnode, node_guid);
		/* a GUID written after the index was built: scan below */
		if (e && f->nodes[e->node].guid == node_guid)
			return (int)e->node;
	}
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].guid == node_guid)
			return (int)i;
	return -1;
}

int ibf_fabric_find_port_guid(const struct ibf_fabric *f, uint64_t port_guid, int *port)
{
	if (f->guid_index) {
		const struct ibf_guid_ent *e =
			guid_lookup(f->guid_index->port, f->guid_index->nport, port_guid);
		if (e && ibf_port(f, (int)e->node, e->port)->guid == port_guid) {
			if (port)
				*port = e->port;
			return (int)e->node;
		}
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		for (int p = 0; p <= n->nports; p++) {
			if (f->ports[n->port_off + (uint32_t)p].guid == port_guid) {
				if (port)
					*port = p;
				return (int)i;
			}
		}
	}
	return -1;
}

int ibf_fabric_find_id(const struct ibf_fabric *f, const char *id)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].id && strcmp(f->nodes[i].id, id) == 0)
			return (int)i;
	return -1;
}

int ibf_fabric_find_desc(const struct ibf_fabric *f, const char *desc)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].desc && strcmp(f->nodes[i].desc, desc) == 0)
			return (int)i;
	return -1;
}

/* the first word of a CA or router description ("h1" of "h1 HCA-1") */
static int first_word_is(const struct ibf_node *n, const char *tok, size_t tl)
{
	const char *d = n->desc;
	return n->type != IBF_NODE_SWITCH && d && tl && !strncmp(d, tok, tl) &&
	       (d[tl] == ' ' || d[tl] == '\t');
}

uint64_t ibf_node_some_guid(const struct ibf_fabric *f, int node)
{
	const struct ibf_node *n = &f->nodes[node];
	for (int p = 0; !n->guid && p <= n->nports; p++)
		if (f->ports[n->port_off + (uint32_t)p].guid)
			return f->ports[n->port_off + (uint32_t)p].guid;
	return n->guid;
}

int ibf_node_desc_shared(const struct ibf_fabric *f, int node)
{
	const char *d = f->nodes[node].desc;
	if (!d || !*d)
		return 1;
	for (uint32_t i = 0; i < f->nnodes; i++)
		if ((int)i != node && f->nodes[i].desc && !strcmp(f->nodes[i].desc, d))
			return 1;
	return 0;
}

const char *ibf_node_label(const struct ibf_fabric *f, int node, char *buf, size_t len)
{
	const struct ibf_node *n = &f->nodes[node];
	const char *d = n->desc && *n->desc ? n->desc : n->id ? n->id : "?";
	if (!len)
		return buf;
	if (!ibf_node_desc_shared(f, node)) {
		snprintf(buf, len, "%s", d);
		return buf;
	}
	char g[24];
	int gl = snprintf(g, sizeof(g), " (0x%016llx)",
			  (unsigned long long)ibf_node_some_guid(f, node));
	/* the GUID is what tells the node apart: cut the description, not it */
	size_t dl = strlen(d);
	if (dl + (size_t)gl + 1 > len)
		dl = len > (size_t)gl + 1 ? len - (size_t)gl - 1 : 0;
	while (dl > 0 && dl < strlen(d) && ((unsigned char)d[dl] & 0xc0) == 0x80)
		dl--;
	snprintf(buf, len, "%.*s%s", (int)dl, d, g);
	return buf;
}

int ibf_ca_in_switch(const struct ibf_fabric *f, int node, int port)
{
	const struct ibf_node *n = &f->nodes[node];
	if (n->type == IBF_NODE_SWITCH || !n->sysimg_guid || port < 1 || port > n->nports)
		return 0;
	const struct ibf_port *pp = &f->ports[n->port_off + (uint32_t)port];
	if (pp->peer_node == IBF_NO_NODE)
		return 0;
	const struct ibf_node *sw = &f->nodes[pp->peer_node];
	return sw->type == IBF_NODE_SWITCH &&
	       (n->sysimg_guid == sw->sysimg_guid || n->sysimg_guid == sw->guid);
}

static int node_cmp(const struct ibf_fabric *f, uint32_t a, uint32_t b);

/* node i matches tok the way `way` names nodes: 0 node name (id), 1
 * description, 2 node GUID g, 3 a port of GUID g, 4 the first word (tl
 * bytes) of a CA's description */
static int name_match(const struct ibf_fabric *f, uint32_t i, int way, const char *tok,
		      uint64_t g, size_t tl)
{
	const struct ibf_node *n = &f->nodes[i];
	switch (way) {
	case 0:
		return n->id && !strcmp(n->id, tok);
	case 1:
		return n->desc && !strcmp(n->desc, tok);
	case 2:
		return n->guid == g;
	case 3:
		for (int p = 0; p <= n->nports; p++)
			if (f->ports[n->port_off + (uint32_t)p].guid == g)
				return 1;
		return 0;
	default:
		return first_word_is(n, tok, tl);
	}
}

/* a name that fits two or more nodes: *node and *dup become the first two
 * of them in canonical order (GUID first), so an error that names them
 * does not follow the file's record order; *port the port of GUID g on
 * *node for way 3 */
static void name_dup_canonical(const struct ibf_fabric *f, int way, const char *tok, uint64_t g,
			       size_t tl, int *node, int *dup, int *port)
{
	int a = -1, b = -1;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		if (!name_match(f, i, way, tok, g, tl))
			continue;
		if (a < 0 || node_cmp(f, i, (uint32_t)a) < 0) {
			b = a;
			a = (int)i;
		} else if (b < 0 || node_cmp(f, i, (uint32_t)b) < 0) {
			b = (int)i;
		}
	}
	*node = a;
	*dup = b;
	if (way == 3 && port)
		for (int p = f->nodes[a].nports; p >= 0; p--)
			if (f->ports[f->nodes[a].port_off + (uint32_t)p].guid == g)
				*port = p;
}

int ibf_fabric_find_name_dup(const struct ibf_fabric *f, const char *tok, int *port, int *dup)
{
	if (port)
		*port = -1;
	if (dup)
		*dup = -1;
	/* each way of naming is tried on its own; the first that matches
	 * decides, and a second node it also matches is the duplicate (then
	 * the two are the first in canonical order) */
	int node = ibf_fabric_find_id(f, tok);
	if (node >= 0) {
		for (uint32_t i = (uint32_t)node + 1; dup && i < f->nnodes && *dup < 0; i++)
			if (f->nodes[i].id && !strcmp(f->nodes[i].id, tok))
				*dup = (int)i;
		if (dup && *dup >= 0)
			name_dup_canonical(f, 0, tok, 0, 0, &node, dup, port);
		return node;
	}
	node = ibf_fabric_find_desc(f, tok);
	if (node >= 0) {
		for (uint32_t i = (uint32_t)node + 1; dup && i < f->nnodes && *dup < 0; i++)
			if (f->nodes[i].desc && !strcmp(f->nodes[i].desc, tok))
				*dup = (int)i;
		if (dup && *dup >= 0)
			name_dup_canonical(f, 1, tok, 0, 0, &node, dup, port);
		return node;
	}
	if ((!strncmp(tok, "0x", 2) || !strncmp(tok, "0X", 2)) && tok[2]) {
		char *end;
		errno = 0;
		uint64_t g = strtoull(tok + 2, &end, 16);
		if (!*end && g && !errno && isxdigit((unsigned char)tok[2])) {
			node = ibf_fabric_find_guid(f, g);
			if (node >= 0) {
				for (uint32_t i = 0; dup && i < f->nnodes && *dup < 0; i++)
					if (i != (uint32_t)node && f->nodes[i].guid == g)
						*dup = (int)i;
				if (dup && *dup >= 0)
					name_dup_canonical(f, 2, tok, g, 0, &node, dup, port);
				return node;
			}
			int gp = -1;
			node = ibf_fabric_find_port_guid(f, g, &gp);
			if (node >= 0) {
				if (port)
					*port = gp;
				/* another node with a port of this GUID (one node's
				 * ports may share it) */
				for (uint32_t i = 0; dup && i < f->nnodes && *dup < 0; i++) {
					const struct ibf_node *n = &f->nodes[i];
					for (int p = 0; p <= n->nports && i != (uint32_t)node; p++)
						if (f->ports[n->port_off + (uint32_t)p].guid == g) {
							*dup = (int)i;
							break;
						}
				}
				if (dup && *dup >= 0)
					name_dup_canonical(f, 3, tok, g, 0, &node, dup, port);
				return node;
			}
		}
	}
	size_t tl = strlen(tok);
	for (uint32_t v = 0; v < f->nnodes; v++)
		if (first_word_is(&f->nodes[v], tok, tl)) {
			if (node < 0) {
				node = (int)v;
				if (!dup)
					break;
			} else {
				*dup = (int)v;
				break;
			}
		}
	if (dup && *dup >= 0)
		name_dup_canonical(f, 4, tok, 0, tl, &node, dup, port);
	return node;
}

int ibf_fabric_find_name(const struct ibf_fabric *f, const char *tok, int *port)
{
	return ibf_fabric_find_name_dup(f, tok, port, NULL);
}

int ibf_fabric_set_meta(struct ibf_fabric *f, const char *meta)
{
	char *m = xstrdup(meta);
	if (meta && !m)
		return IBF_ENOMEM;
	free(f->meta);
	f->meta = m;
	return 0;
}

int ibf_fabric_get_meta(const struct ibf_fabric *f, const char *key, char *buf, size_t len)
{
	if (!f->meta)
		return 0;
	size_t kl = strlen(key);
	const char *p = f->meta;
	while (*p) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t vl = n - kl - 1;
			if (len) {
				if (vl >= len)
					vl = len - 1;
				memcpy(buf, p + kl + 1, vl);
				buf[vl] = '\0';
			}
			return 1;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

struct ibf_fabric *ibf_fabric_clone(const struct ibf_fabric *f, struct ibf_error *err)
{
	struct ibf_fabric *c = ibf_fabric_new();
	if (!c)
		goto oom;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		int id = ibf_fabric_add_node(c, n->type, n->nports, n->guid, n->desc, n->id, err);
		if (id < 0) {
			ibf_fabric_free(c);
			return NULL;
		}
		struct ibf_node *cn = &c->nodes[id];
		cn->enhanced_sp0 = n->enhanced_sp0;
		cn->sysimg_guid = n->sysimg_guid;
		cn->vendid = n->vendid;
		cn->devid = n->devid;
		memcpy(&c->ports[cn->port_off], &f->ports[n->port_off],
		       ((size_t)n->nports + 1) * sizeof(struct ibf_port));
	}
	if (f->meta && ibf_fabric_set_meta(c, f->meta))
		goto oom;
	if (f->finalized && ibf_fabric_finalize(c, err)) {
		ibf_fabric_free(c);
		return NULL;
	}
	return c;
oom:
	ibf_fabric_free(c);
	ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	return NULL;
}

int ibf_port_switch(const struct ibf_fabric *f, int node, int port, int *sw_port)
{
	const struct ibf_port *p = ibf_port(f, node, port);
	if (p->peer_node == IBF_NO_NODE || f->nodes[p->peer_node].type != IBF_NODE_SWITCH)
		return -1;
	if (sw_port)
		*sw_port = p->peer_port;
	return p->peer_node;
}

uint64_t ibf_gen_guid(int type, uint32_t index, int port)
{
	/* OUI 0x0002c9 (as Mellanox devices carry), then a type byte, a 24-bit
	 * index and the port number: stable, readable and unique. */
	return (0x0002c9ULL << 40) | ((uint64_t)(type & 0xff) << 32) |
	       ((uint64_t)(index & 0xffffff) << 8) | (uint64_t)(port & 0xff);
}

/* ------------------------------------------------------------ canonical order */

static int str_cmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int node_cmp(const struct ibf_fabric *f, uint32_t a, uint32_t b)
{
	const struct ibf_node *x = &f->nodes[a], *y = &f->nodes[b];
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	int c = str_cmp0(x->desc, y->desc);
	if (c)
		return c;
	c = str_cmp0(x->id, y->id);
	if (c)
		return c;
	return a < b ? -1 : (a > b);
}

int ibf_node_cmp(const struct ibf_fabric *f, int a, int b)
{
	return node_cmp(f, (uint32_t)a, (uint32_t)b);
}

int ibf_switch_ranks(const struct ibf_fabric *f, uint32_t *rank)
{
	int32_t *ids = malloc((f->nsw ? f->nsw : 1) * sizeof(*ids));
	if (!ids)
		return IBF_ENOMEM;
	memcpy(ids, f->switches, f->nsw * sizeof(*ids));
	if (ibf_fabric_sort_ids(f, ids, f->nsw)) {
		free(ids);
		return IBF_ENOMEM;
	}
	for (uint32_t k = 0; k < f->nsw; k++)
		rank[f->nodes[ids[k]].sw] = k;
	free(ids);
	return 0;
}

int ibf_fabric_is_sorted(const struct ibf_fabric *f)
{
	for (uint32_t i = 1; i < f->nnodes; i++)
		if (node_cmp(f, i - 1, i) > 0)
			return 0;
	return 1;
}

/* merge sort of node ids (stable, no global state for a qsort context) */
static void sort_ids(const struct ibf_fabric *f, int32_t *ids, int32_t *tmp, uint32_t n)
{
	if (n < 2)
		return;
	uint32_t h = n / 2;
	sort_ids(f, ids, tmp, h);
	sort_ids(f, ids + h, tmp, n - h);
	uint32_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] =
			node_cmp(f, (uint32_t)ids[i], (uint32_t)ids[j]) <= 0 ? ids[i++] : ids[j++];
	while (i < h)
		tmp[k++] = ids[i++];
	while (j < n)
		tmp[k++] = ids[j++];
	memcpy(ids, tmp, n * sizeof(*ids));
}

int ibf_fabric_sort_ids(const struct ibf_fabric *f, int32_t *ids, uint32_t n)
{
	int32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		return IBF_ENOMEM;
	sort_ids(f, ids, tmp, n);
	free(tmp);
	return 0;
}

int ibf_fabric_sort(struct ibf_fabric *f, int32_t **old_of_new, struct ibf_error *err)
{
	uint32_t n = f->nnodes;
	int32_t *order = malloc((n ? n : 1) * sizeof(*order));
	int32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	struct ibf_node *nodes = malloc((n ? n : 1) * sizeof(*nodes));
	struct ibf_port *ports = malloc((f->ports_cap ? f->ports_cap : 1) * sizeof(*ports));
	if (!order || !tmp || !nodes || !ports) {
		free(order);
		free(tmp);
		free(nodes);
		free(ports);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = (int32_t)i;
	sort_ids(f, order, tmp, n);
	/* tmp becomes new_of_old */
	for (uint32_t i = 0; i < n; i++)
		tmp[order[i]] = (int32_t)i;
	uint32_t off = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct ibf_node *o = &f->nodes[order[i]];
		nodes[i] = *o;
		nodes[i].port_off = off;
		for (int p = 0; p <= o->nports; p++) {
			struct ibf_port pp = f->ports[o->port_off + (uint32_t)p];
			if (pp.peer_node != IBF_NO_NODE)
				pp.peer_node = tmp[pp.peer_node];
			ports[off + (uint32_t)p] = pp;
		}
		off += (uint32_t)o->nports + 1;
	}
	free(f->nodes);
	free(f->ports);
	guid_index_drop(f);
	f->nodes = nodes;
	f->nodes_cap = n ? n : 1;
	f->ports = ports;
	f->nports_total = off;
	free(tmp);
	int rc = 0;
	if (f->finalized)
		rc = ibf_fabric_finalize(f, err);
	if (old_of_new && !rc)
		*old_of_new = order;
	else
		free(order);
	return rc;
}

int ibf_fabric_canonical(const struct ibf_fabric *f, struct ibf_fabric **out, uint32_t **sw_of,
			 struct ibf_error *err)
{
	*out = NULL;
	*sw_of = NULL;
	int32_t *old_of_new = NULL;
	struct ibf_fabric *c = ibf_fabric_clone(f, err);
	if (!c)
		return err ? err->code : IBF_ENOMEM;
	int rc = ibf_fabric_sort(c, &old_of_new, err);
	if (!rc && !c->finalized)
		rc = ibf_fabric_finalize(c, err);
	uint32_t *map = rc ? NULL : malloc((c->nsw ? c->nsw : 1) * sizeof(*map));
	if (!rc && !map)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (!rc)
		for (uint32_t s = 0; s < c->nsw; s++)
			map[s] = (uint32_t)f->nodes[old_of_new[c->switches[s]]].sw;
	free(old_of_new);
	if (rc) {
		ibf_fabric_free(c);
		return rc;
	}
	*out = c;
	*sw_of = map;
	return 0;
}

int ibf_rows_permute(uint8_t *tab, size_t len, uint32_t n, const uint32_t *to)
{
	if (n < 2 || !len)
		return 0;
	uint32_t *from = malloc((size_t)n * sizeof(*from));
	uint8_t *done = calloc(n, 1);
	uint8_t *tmp = malloc(len);
	if (!from || !done || !tmp) {
		free(from);
		free(done);
		free(tmp);
		return IBF_ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++)
		from[to[k]] = k;
	/* each cycle of the permutation once: its first row waits in tmp while
	 * every position takes the row that belongs there */
	for (uint32_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		done[i] = 1;
		if (from[i] == i)
			continue;
		memcpy(tmp, tab + (size_t)i * len, len);
		uint32_t j = i;
		while (from[j] != i) {
			memcpy(tab + (size_t)j * len, tab + (size_t)from[j] * len, len);
			j = from[j];
			done[j] = 1;
		}
		memcpy(tab + (size_t)j * len, tmp, len);
	}
	free(from);
	free(done);
	free(tmp);
	return 0;
}

/* ------------------------------------------------------------ duplicate GUIDs */

static int dup_cmp(const void *pa, const void *pb)
{
	const struct ibf_dup_guid *a = pa, *b = pb;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

int ibf_find_dup_guids(const struct ibf_fabric *f, struct ibf_dup_guid **out, uint32_t *n,
		       struct ibf_error *err)
{
	*out = NULL;
	*n = 0;
	const struct ibf_guid_index *x = f->guid_index;
	if (!x)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	/* the index lists nodes sorted by (GUID, node): shared GUIDs are runs */
	struct ibf_dup_guid *a = NULL;
	uint32_t k = 0;
	for (uint32_t i = 0; i < x->nnode;) {
		uint32_t j = i;
		while (j < x->nnode && x->node[j].guid == x->node[i].guid)
			j++;
		if (j - i > 1 && x->node[i].guid) {
			if (!a && !(a = malloc(((size_t)x->nnode + x->nport) * sizeof(*a))))
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			for (uint32_t y = i; y < j; y++)
				a[k++] = (struct ibf_dup_guid){ x->node[y].guid,
								(int32_t)x->node[y].node };
		}
		i = j;
	}
	/* a port GUID that two nodes report: readers that do not know
	 * adapters' node GUIDs (ibnetdiscover -p) leave them 0, so there it is
	 * the only sign of a shared GUID; with node GUIDs it is one too when
	 * they differ (an adapter whose port GUID was cloned or mis-set: a
	 * guid2lid file gives that GUID one LID, OpenSM sees one port).  Nodes
	 * that share their node GUID as well are listed under it already. */
	uint32_t from_ports = k;
	for (uint32_t i = 0; i < x->nport;) {
		uint32_t j = i;
		while (j < x->nport && x->port[j].guid == x->port[i].guid)
			j++;
		uint32_t nodes = 0;
		int other = 0; /* a node GUID unknown or unlike the first node's */
		uint64_t g0 = f->nodes[x->port[i].node].guid;
		for (uint32_t y = i; y < j; y++)
			if (y == i || x->port[y].node != x->port[y - 1].node) {
				nodes++;
				if (!g0 || f->nodes[x->port[y].node].guid != g0)
					other = 1;
			}
		if (nodes > 1 && other && x->port[i].guid) {
			if (!a && !(a = malloc(((size_t)x->nnode + x->nport) * sizeof(*a))))
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			for (uint32_t y = i; y < j; y++)
				if (y == i || x->port[y].node != x->port[y - 1].node)
					a[k++] = (struct ibf_dup_guid){ x->port[y].guid,
									(int32_t)x->port[y].node };
		}
		i = j;
	}
	if (k > from_ports && from_ports)
		qsort(a, k, sizeof(*a), dup_cmp);
	*out = a;
	*n = k;
	return 0;
}
