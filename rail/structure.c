/* Rail structure of a fabric: which server (domain) and which rail every GPU
 * NIC belongs to, which switches form each rail and which join rails.
 *
 * Domain of a CA: the mapping file, else the host name when the node
 * description is "HOST DEVICE" with a device name ending in a digit (what
 * rdma-ndd sets, e.g. "gpu-node017 mlx5_3"), else the system image GUID,
 * else the node GUID (else a port GUID, else the node index: GUID 0 is
 * unknown, never shared).
 *
 * Rail: every GPU gets a hint (the mapping file's rail, else the device
 * index from the description, else its rank among its domain's GPUs in node
 * order).  A leaf switch (one with GPUs) takes the most frequent hint of its
 * GPUs (ties: the smallest).  A switch whose labelled neighbours carry two or
 * more labels is a spine; switches without GPUs take the label of their
 * labelled neighbours when it is unique, in synchronous rounds, so an
 * aggregation layer inside a rail joins its rail and whatever joins rails is
 * a spine.  A GPU's rail is its leaf's label (the rail it reaches); the map
 * overrides that too.  GPUs hanging off a spine keep their hint. */
#include "ibf_rail.h"
#include "ibf_map.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ibf_rail_info_free(struct ibf_rail_info *ri)
{
	if (!ri)
		return;
	for (int i = 0; i < ri->ndomains; i++)
		free(ri->domain[i]);
	free(ri->domain);
	free(ri->gpu);
	free(ri->rail_label);
	free(ri->sw_rail);
	free(ri->sw_role);
	free(ri->sw_group);
	free(ri->gpu_of_node);
	memset(ri, 0, sizeof(*ri));
}

int ibf_rail_multi_gpu_domains(const struct ibf_rail_info *ri)
{
	int n = 0;
	/* gpu[] is domain-major: count each domain once, at its second GPU */
	for (int g = 1; g < ri->ngpus; g++)
		n += ri->gpu[g].domain == ri->gpu[g - 1].domain &&
		     (g < 2 || ri->gpu[g - 2].domain != ri->gpu[g].domain);
	return n;
}

/* "HOST DEV" with DEV ending in a digit: host length and the device index. */
static int host_of_desc(const char *d, size_t *hl, int *idx)
{
	if (!d)
		return 0;
	const char *sp = strchr(d, ' ');
	if (!sp || sp == d)
		return 0;
	const char *dev = sp + 1;
	size_t dl = strlen(dev);
	if (!dl || strchr(dev, ' ') || dev[dl - 1] < '0' || dev[dl - 1] > '9')
		return 0;
	size_t k = dl;
	while (k > 0 && dev[k - 1] >= '0' && dev[k - 1] <= '9')
		k--;
	if (dl - k > 4)
		return 0;
	*hl = (size_t)(sp - d);
	*idx = atoi(dev + k);
	return 1;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_gpu(const void *a, const void *b)
{
	const struct ibf_rail_gpu *x = a, *y = b;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->rail != y->rail)
		return x->rail < y->rail ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

static int find_uf(int32_t *p, int32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

/* Union switch s with each rail switch cabled to it. */
static void join_rail_nbrs(const struct ibf_fabric *f, const struct ibf_rail_info *ri, int32_t *uf,
			   uint32_t s)
{
	for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
		uint32_t t = f->adj[a].nbr;
		if (ri->sw_role[t] != IBF_RAIL_SW_RAIL)
			continue;
		int32_t x = find_uf(uf, (int32_t)s), y = find_uf(uf, (int32_t)t);
		if (x != y)
			uf[x] = y;
	}
}

/* State of one detection. */
struct rdet {
	const struct ibf_fabric *f;
	const struct ibf_rail_map *map;
	struct ibf_rail_info *ri;
	struct ibf_error *err;
	int32_t *ov;	       /* [nnodes] map entry per node, -1 none */
	int32_t *dom_of;       /* [nnodes] domain per CA node, -1 not yet */
	int32_t *label;	       /* [nsw] rail label per switch; -1 none, -2 spine */
	int32_t *nlabel;       /* [nsw] next labels */
	struct ibf_smap dmap;  /* domain name -> domain */
	struct ibf_umap named; /* system image GUID -> a CA with a host name */
	char **names;	       /* domain names until they move to ri */
	int ndom, namecap;
};

static int oom(struct rdet *d)
{
	return ibf_error_set(d->err, IBF_ENOMEM, NULL, 0, "out of memory");
}

/* The nodes one selector fits: how many, and the first few in canonical
 * order (GUID first), so a line that fits several is refused the same way
 * whatever the order of the fabric file's records. */
#define CAND_SHOWN 4
struct cand {
	int32_t n;
	int32_t last;		  /* the node counted last (a node's ports may share a GUID) */
	int32_t low[CAND_SHOWN]; /* the lowest nodes, ascending */
};

static void cand_add(const struct ibf_fabric *f, struct cand *c, int32_t node)
{
	if (c->n && c->last == node)
		return;
	c->last = node;
	int k = c->n < CAND_SHOWN ? c->n : CAND_SHOWN;
	c->n++;
	while (k > 0 && ibf_node_cmp(f, node, c->low[k - 1]) < 0) {
		if (k < CAND_SHOWN)
			c->low[k] = c->low[k - 1];
		k--;
	}
	if (k < CAND_SHOWN)
		c->low[k] = node;
}

/* Selector indexes of a fabric: description, node id, node GUID and port
 * GUID -> index into cand[]. */
struct sel_index {
	struct ibf_smap desc, id;
	struct ibf_umap guid, pguid;
	struct cand *cand;
	int32_t n, cap;
};

static void sel_free(struct sel_index *x)
{
	ibf_smap_free(&x->desc);
	ibf_smap_free(&x->id);
	ibf_umap_free(&x->guid);
	ibf_umap_free(&x->pguid);
	free(x->cand);
}

/* the candidates of a key, made when new; NULL when out of memory */
static struct cand *sel_slot(struct sel_index *x, struct ibf_smap *sm, struct ibf_umap *um,
			     const char *s, uint64_t key)
{
	int32_t old = -1;
	int rc = sm ? ibf_smap_put(sm, s, strlen(s), x->n, &old) : ibf_umap_put(um, key, x->n, &old);
	if (rc < 0)
		return NULL;
	if (rc == 1)
		return &x->cand[old];
	if (x->n == x->cap) {
		int32_t nc = x->cap ? x->cap * 2 : 64;
		struct cand *p = realloc(x->cand, (size_t)nc * sizeof(*p));
		if (!p)
			return NULL; /* the key points at a slot never made: the caller fails */
		x->cand = p;
		x->cap = nc;
	}
	memset(&x->cand[x->n], 0, sizeof(x->cand[0]));
	return &x->cand[x->n++];
}

static int sel_build(const struct ibf_fabric *f, struct sel_index *x)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		struct cand *c;
		if (nd->desc && *nd->desc) {
			if (!(c = sel_slot(x, &x->desc, NULL, nd->desc, 0)))
				return IBF_ENOMEM;
			cand_add(f, c, (int32_t)i);
		}
		if (nd->id && *nd->id) {
			if (!(c = sel_slot(x, &x->id, NULL, nd->id, 0)))
				return IBF_ENOMEM;
			cand_add(f, c, (int32_t)i);
		}
		if (nd->guid) {
			if (!(c = sel_slot(x, NULL, &x->guid, NULL, nd->guid)))
				return IBF_ENOMEM;
			cand_add(f, c, (int32_t)i);
		}
		for (int p = 0; p <= nd->nports; p++) {
			uint64_t g = f->ports[nd->port_off + (uint32_t)p].guid;
			if (!g)
				continue;
			if (!(c = sel_slot(x, NULL, &x->pguid, NULL, g)))
				return IBF_ENOMEM;
			cand_add(f, c, (int32_t)i);
		}
	}
	return 0;
}

static const struct cand *sel_find(const struct sel_index *x, const struct ibf_rail_map_entry *e)
{
	int32_t k;
	if (e->kind == 0) {
		/* a node GUID first, then a port GUID */
		k = ibf_umap_get(&x->guid, e->guid);
		if (k < 0)
			k = ibf_umap_get(&x->pguid, e->guid);
	} else {
		k = ibf_smap_get(e->kind == 1 ? &x->id : &x->desc, e->key + 1, strlen(e->key + 1));
	}
	return k < 0 ? NULL : &x->cand[k];
}

/* A selector that fits several nodes: which one the line means is not
 * known (the first in the file would follow the record order).  The error
 * names them by GUID, the lowest first. */
static int sel_ambiguous(struct rdet *d, const struct ibf_rail_map_entry *e, const struct cand *c)
{
	const struct ibf_fabric *f = d->f;
	char list[CAND_SHOWN * 24 + 48];
	size_t n = 0;
	int shown = c->n < CAND_SHOWN ? c->n : CAND_SHOWN;
	for (int i = 0; i < shown; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s0x%016" PRIx64,
				      i ? (i + 1 == c->n ? " and " : ", ") : "",
				      ibf_node_some_guid(f, c->low[i]));
	if (c->n > shown)
		snprintf(list + n, sizeof(list) - n, " and %d more", c->n - shown);
	if (e->kind == 0)
		return ibf_error_set(d->err, IBF_EINVAL, d->map->name, e->line,
				     "%d nodes of the fabric have this GUID (%s): a line maps one "
				     "CA; name it by its description",
				     c->n, list);
	return ibf_error_set(d->err, IBF_EINVAL, d->map->name, e->line,
			     "%d nodes of the fabric have this %s (%s): a line maps one CA; "
			     "name each by its GUID",
			     c->n, e->kind == 1 ? "node id" : "description", list);
}

/* The map's entries, matched to CA nodes.  A selector that fits no node
 * is skipped (counted); one that fits several is an error. */
static int match_map(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	const struct ibf_rail_map *map = d->map;
	if (!map || !map->n)
		return 0;
	struct sel_index x;
	memset(&x, 0, sizeof(x));
	int rc = sel_build(f, &x);
	if (rc) {
		sel_free(&x);
		return oom(d);
	}
	for (int k = 0; map && k < map->n; k++) {
		const struct ibf_rail_map_entry *e = &map->e[k];
		const struct cand *c = sel_find(&x, e);
		if (!c) {
			/* a server that is off or unplugged takes its NICs out of
			 * the fabric: its lines are skipped, counted for the caller
			 * (a typo looks the same, so callers say which line) */
			if (!d->ri->unmatched++)
				d->ri->unmatched_line = e->line;
			continue;
		}
		if (c->n > 1) {
			rc = sel_ambiguous(d, e, c);
			break;
		}
		int node = c->low[0];
		if (f->nodes[node].type == IBF_NODE_SWITCH) {
			rc = ibf_error_set(d->err, IBF_EINVAL, map->name, e->line,
					   "the selector names a switch; map CAs only");
			break;
		}
		if (d->ov[node] >= 0) {
			rc = ibf_error_set(d->err, IBF_EINVAL, map->name, e->line,
					   "this CA was already mapped on line %ld",
					   map->e[d->ov[node]].line);
			break;
		}
		d->ov[node] = k;
	}
	sel_free(&x);
	return rc;
}

/* GPUs: CA ports facing a switch.  Left out and counted unless the map
 * names them: a CA inside that switch (SHARP aggregation node), and a
 * router, which joins subnets and is no server's NIC. */
static int collect_gpus(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	struct ibf_rail_info *ri = d->ri;
	int ngpu = 0, gcap = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		if (nd->type == IBF_NODE_SWITCH)
			continue;
		int inside = 0, router = 0;
		for (int p = 1; p <= nd->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH) {
				ri->unattached++;
				continue;
			}
			if (d->ov[i] < 0 && nd->type == IBF_NODE_ROUTER) {
				router = 1;
				continue;
			}
			if (d->ov[i] < 0 && ibf_ca_in_switch(f, (int)i, p)) {
				inside = 1;
				continue;
			}
			if (ngpu == gcap) {
				int nc = gcap ? gcap * 2 : 64;
				void *q = realloc(ri->gpu, (size_t)nc * sizeof(*ri->gpu));
				if (!q)
					return oom(d);
				ri->gpu = q;
				gcap = nc;
			}
			ri->gpu[ngpu++] = (struct ibf_rail_gpu){ (int32_t)i, (uint8_t)p,   -1, -1,
								 -1,	     pp->peer_node };
		}
		ri->in_switch += inside;
		ri->routers += router;
	}
	ri->ngpus = ngpu;
	return 0;
}

/* The domain key of a CA: the map's domain, the host name of its
 * description, the host name of a CA sharing its system image GUID, or
 * its (system image) GUID.  buf holds the last kind. */
static const char *domain_key(struct rdet *d, int32_t node, char *buf, size_t blen, size_t *kl)
{
	const struct ibf_fabric *f = d->f;
	const struct ibf_node *nd = &f->nodes[node];
	size_t hl;
	int idx;
	if (d->ov[node] >= 0) {
		const char *key = d->map->e[d->ov[node]].domain;
		*kl = strlen(key);
		return key;
	}
	if (host_of_desc(nd->desc, &hl, &idx)) {
		*kl = hl;
		return nd->desc;
	}
	if (nd->sysimg_guid && (idx = ibf_umap_get(&d->named, nd->sysimg_guid)) >= 0 &&
	    host_of_desc(f->nodes[idx].desc, &hl, &idx)) {
		*kl = hl;
		return f->nodes[ibf_umap_get(&d->named, nd->sysimg_guid)].desc;
	}
	/* GUID 0 means unknown (ibnetdiscover -s -p prints port GUIDs only):
	 * never a key that joins unrelated CAs; the port GUID, else the node */
	const char *kind = nd->sysimg_guid ? "sysimg-" : "guid-";
	uint64_t g = nd->sysimg_guid ? nd->sysimg_guid : nd->guid;
	for (int p = 1; !g && p <= nd->nports; p++)
		if ((g = ibf_port(f, node, p)->guid))
			kind = "port-";
	if (g)
		snprintf(buf, blen, "%s0x%016" PRIx64, kind, g);
	else
		snprintf(buf, blen, "node-%" PRId32, node);
	*kl = strlen(buf);
	return buf;
}

/* The domain numbered for a key (a new one when first seen). */
static int domain_of_key(struct rdet *d, const char *key, size_t kl, int32_t *dom)
{
	int32_t x = ibf_smap_get(&d->dmap, key, kl);
	if (x < 0) {
		if (d->ndom == d->namecap) {
			int nc = d->namecap ? d->namecap * 2 : 32;
			void *q = realloc(d->names, (size_t)nc * sizeof(*d->names));
			if (!q)
				return oom(d);
			d->names = q;
			d->namecap = nc;
		}
		char *s = malloc(kl + 1);
		if (!s)
			return oom(d);
		memcpy(s, key, kl);
		s[kl] = 0;
		d->names[d->ndom] = s;
		x = d->ndom++;
		int32_t old;
		if (ibf_smap_put(&d->dmap, s, kl, x, &old) < 0)
			return oom(d);
	}
	*dom = x;
	return 0;
}

struct dom_ord {
	const char *name;
	int32_t old;
};

static int cmp_dom_ord(const void *a, const void *b)
{
	return strcmp(((const struct dom_ord *)a)->name, ((const struct dom_ord *)b)->name);
}

/* a GPU by domain, then its node in canonical order (as ibf_node_cmp) */
struct gpu_ord {
	int32_t domain;
	int type;
	uint64_t guid;
	const char *desc, *id;
	int32_t node, port;
	int g;
};

static int cmp_str0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_gpu_ord(const void *pa, const void *pb)
{
	const struct gpu_ord *a = pa, *b = pb;
	int c;
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if ((c = cmp_str0(a->desc, b->desc)) || (c = cmp_str0(a->id, b->id)))
		return c;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->port > b->port) - (a->port < b->port);
}

/* ri's GPUs in canonical order into o[ngpus], by domain first when
 * by_domain */
static void gpu_order(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
		      struct gpu_ord *o, int by_domain)
{
	for (int g = 0; g < ri->ngpus; g++) {
		const struct ibf_node *nd = &f->nodes[ri->gpu[g].node];
		o[g] = (struct gpu_ord){ by_domain ? ri->gpu[g].domain : 0,
					 (int)nd->type,
					 nd->guid,
					 nd->desc,
					 nd->id,
					 ri->gpu[g].node,
					 ri->gpu[g].port,
					 g };
	}
	if (ri->ngpus > 1)
		qsort(o, (size_t)ri->ngpus, sizeof(*o), cmp_gpu_ord);
}

/* Domains and rail hints of the GPUs; a GPU without a hint takes its rank
 * inside its domain. */
static int assign_domains(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	struct ibf_rail_info *ri = d->ri;
	int ngpu = ri->ngpus;
	/* a CA without a host name takes the one of a CA sharing its system
	 * image GUID (the first in canonical node order, GUID first) */
	struct gpu_ord *gord = malloc(((size_t)ngpu + 1) * sizeof(*gord));
	if (!gord)
		return oom(d);
	gpu_order(f, ri, gord, 0);
	for (int i = 0; i < ngpu; i++) {
		int32_t node = ri->gpu[gord[i].g].node;
		const struct ibf_node *nd = &f->nodes[node];
		size_t hl;
		int idx;
		int32_t old;
		if (nd->sysimg_guid && d->ov[node] < 0 && host_of_desc(nd->desc, &hl, &idx) &&
		    ibf_umap_put(&d->named, nd->sysimg_guid, node, &old) < 0) {
			free(gord);
			return oom(d);
		}
	}
	for (int g = 0; g < ngpu; g++) {
		struct ibf_rail_gpu *G = &ri->gpu[g];
		const struct ibf_node *nd = &f->nodes[G->node];
		if (d->dom_of[G->node] < 0) {
			char buf[64];
			size_t kl;
			const char *key = domain_key(d, G->node, buf, sizeof(buf), &kl);
			int rc = domain_of_key(d, key, kl, &d->dom_of[G->node]);
			if (rc) {
				free(gord);
				return rc;
			}
		}
		G->domain = d->dom_of[G->node];
		size_t hl;
		int idx;
		if (d->ov[G->node] >= 0 && d->map->e[d->ov[G->node]].rail >= 0)
			G->hint = d->map->e[d->ov[G->node]].rail;
		else if (host_of_desc(nd->desc, &hl, &idx))
			G->hint = idx;
	}
	/* domains numbered in name order (names are unique), not in the order
	 * the fabric file lists their NICs: lists and registries do not
	 * follow the records */
	struct dom_ord *dord = malloc(((size_t)d->ndom + 1) * sizeof(*dord));
	int32_t *renum = malloc(((size_t)d->ndom + 1) * sizeof(*renum));
	if (!dord || !renum) {
		free(dord);
		free(renum);
		free(gord);
		return oom(d);
	}
	for (int i = 0; i < d->ndom; i++)
		dord[i] = (struct dom_ord){ d->names[i], i };
	qsort(dord, (size_t)d->ndom, sizeof(*dord), cmp_dom_ord);
	for (int i = 0; i < d->ndom; i++) {
		renum[dord[i].old] = i;
		d->names[i] = (char *)dord[i].name;
	}
	for (int g = 0; g < ngpu; g++)
		ri->gpu[g].domain = renum[ri->gpu[g].domain];
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (d->dom_of[i] >= 0)
			d->dom_of[i] = renum[d->dom_of[i]];
	free(dord);
	free(renum);
	ri->domain = d->names;
	ri->ndomains = d->ndom;
	d->names = NULL;
	/* rank fallback for GPUs without a hint: the rank among the domain's
	 * GPUs in canonical node order (GUID first), not the records' order */
	gpu_order(f, ri, gord, 1);
	for (int i = 0, r = 0; i < ngpu; i++) {
		r = i && gord[i].domain == gord[i - 1].domain ? r + 1 : 0;
		if (ri->gpu[gord[i].g].hint < 0)
			ri->gpu[gord[i].g].hint = r;
	}
	free(gord);
	return 0;
}

/* Leaf votes: every switch with GPUs takes the hint most of its GPUs carry
 * ((switch, hint) pairs sorted; ties to the smaller hint). */
static int vote_leaves(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	struct ibf_rail_info *ri = d->ri;
	int ngpu = ri->ngpus;
	for (uint32_t s = 0; s < f->nsw; s++)
		d->label[s] = -1;
	int64_t *pairs = malloc(((size_t)ngpu + 1) * sizeof(*pairs));
	if (!pairs)
		return oom(d);
	for (int g = 0; g < ngpu; g++)
		pairs[g] =
			((int64_t)f->nodes[ri->gpu[g].leaf].sw << 32) | (uint32_t)ri->gpu[g].hint;
	qsort(pairs, (size_t)ngpu, sizeof(*pairs), cmp_i64);
	int32_t best = -1, bestn = 0;
	for (int a = 0; a < ngpu;) {
		int b = a;
		while (b < ngpu && pairs[b] == pairs[a])
			b++;
		int32_t s = (int32_t)(pairs[a] >> 32), h = (int32_t)(pairs[a] & 0xffffffff);
		if (a == 0 || (int32_t)(pairs[a - 1] >> 32) != s) {
			best = -1;
			bestn = 0;
		}
		if (b - a > bestn) {
			bestn = b - a;
			best = h;
		}
		d->label[s] = best;
		a = b;
	}
	free(pairs);
	return 0;
}

/* The rail label the neighbours of s agree on: -1 when none has one, -2
 * when two disagree. */
static int32_t neighbour_label(const struct ibf_fabric *f, const int32_t *label, uint32_t s)
{
	int32_t seen = -1;
	for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
		int32_t l = label[f->adj[a].nbr];
		if (l < 0)
			continue;
		if (seen >= 0 && l != seen)
			return -2;
		seen = l;
	}
	return seen;
}

/* Spines among the voted switches (neighbours of two rails), then labels
 * spread to unlabelled switches whose labelled neighbours agree (a switch
 * between two rails becomes a spine). */
static void label_switches(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	uint32_t nsw = f->nsw;
	int32_t *label = d->label, *nlabel = d->nlabel;
	for (uint32_t s = 0; s < nsw; s++)
		nlabel[s] = neighbour_label(f, label, s) == -2 ? -2 : label[s];
	memcpy(label, nlabel, nsw * sizeof(*label));
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t s = 0; s < nsw; s++) {
			nlabel[s] = label[s];
			if (label[s] != -1)
				continue;
			int32_t seen = neighbour_label(f, label, s);
			if (seen != -1) {
				nlabel[s] = seen;
				changed = 1;
			}
		}
		memcpy(label, nlabel, nsw * sizeof(*label));
	}
}

/* Rails of the GPUs: the leaf's label unless the map forces one; a GPU on
 * a spine or against its hint counts as mismatched. */
static void assign_rails(struct rdet *d)
{
	struct ibf_rail_info *ri = d->ri;
	for (int g = 0; g < ri->ngpus; g++) {
		struct ibf_rail_gpu *G = &ri->gpu[g];
		int32_t l = d->label[d->f->nodes[G->leaf].sw];
		int forced = d->ov[G->node] >= 0 && d->map->e[d->ov[G->node]].rail >= 0;
		if (forced || l < 0) {
			G->rail = G->hint;
			if (!forced)
				ri->mismatched++; /* GPU on a spine */
		} else {
			G->rail = l;
			if (G->hint != l)
				ri->mismatched++;
		}
	}
}

static int32_t dense_rail(const struct ibf_rail_info *ri, int32_t v)
{
	const int32_t *x =
		bsearch(&v, ri->rail_label, (size_t)ri->nrails, sizeof(int32_t), cmp_i32);
	return (int32_t)(x - ri->rail_label);
}

/* Dense rail numbers (the sorted distinct labels of GPUs and switches),
 * switch roles, GPUs sorted and indexed by node. */
static int dense_rails(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	struct ibf_rail_info *ri = d->ri;
	int ngpu = ri->ngpus;
	uint32_t nsw = f->nsw;
	int32_t *tmp = malloc(((size_t)ngpu + nsw + 1) * sizeof(*tmp));
	if (!tmp)
		return oom(d);
	int nl = 0;
	for (int g = 0; g < ngpu; g++)
		tmp[nl++] = ri->gpu[g].rail;
	for (uint32_t s = 0; s < nsw; s++)
		if (d->label[s] >= 0)
			tmp[nl++] = d->label[s];
	qsort(tmp, (size_t)nl, sizeof(*tmp), cmp_i32);
	int nr = 0;
	for (int i = 0; i < nl; i++)
		if (i == 0 || tmp[i] != tmp[i - 1])
			tmp[nr++] = tmp[i];
	ri->nrails = nr;
	ri->rail_label = malloc(((size_t)nr + 1) * sizeof(int32_t));
	if (!ri->rail_label) {
		free(tmp);
		return oom(d);
	}
	memcpy(ri->rail_label, tmp, (size_t)nr * sizeof(int32_t));
	free(tmp);
	for (int g = 0; g < ngpu; g++)
		ri->gpu[g].rail = dense_rail(ri, ri->gpu[g].rail);
	for (uint32_t s = 0; s < nsw; s++) {
		if (d->label[s] >= 0) {
			ri->sw_rail[s] = dense_rail(ri, d->label[s]);
			ri->sw_role[s] = IBF_RAIL_SW_RAIL;
		} else {
			ri->sw_rail[s] = -1;
			ri->sw_role[s] = d->label[s] == -2 ? IBF_RAIL_SW_SPINE : IBF_RAIL_SW_LOOSE;
			if (d->label[s] == -2)
				ri->nspines++;
		}
	}
	if (ngpu > 1) /* no GPU: no list was allocated */
		qsort(ri->gpu, (size_t)ngpu, sizeof(*ri->gpu), cmp_gpu);
	for (int g = ngpu - 1; g >= 0; g--)
		ri->gpu_of_node[ri->gpu[g].node] = g;
	return 0;
}

/* What does not fit: per domain, rails without a GPU and rails with two. */
static void count_misfits(struct ibf_rail_info *ri)
{
	for (int a = 0; a < ri->ngpus;) {
		int b = a, seen = 0;
		while (b < ri->ngpus && ri->gpu[b].domain == ri->gpu[a].domain) {
			if (b == a || ri->gpu[b].rail != ri->gpu[b - 1].rail)
				seen++;
			else
				ri->doubled++;
			b++;
		}
		ri->missing += ri->nrails - seen;
		a = b;
	}
}

/* Rail components: rail switches joined without passing a spine; spine
 * groups: spines that share a rail component, directly or through other
 * spines (see struct ibf_rail_info). */
static int rail_components(struct rdet *d)
{
	const struct ibf_fabric *f = d->f;
	struct ibf_rail_info *ri = d->ri;
	uint32_t nsw = f->nsw;
	int32_t *uf = malloc(((size_t)nsw + 1) * sizeof(*uf));
	if (!uf)
		return oom(d);
	for (uint32_t s = 0; s < nsw; s++)
		uf[s] = (int32_t)s;
	for (uint32_t s = 0; s < nsw; s++)
		if (ri->sw_role[s] == IBF_RAIL_SW_RAIL)
			join_rail_nbrs(f, ri, uf, s);
	for (uint32_t s = 0; s < nsw; s++)
		if (ri->sw_role[s] == IBF_RAIL_SW_RAIL && find_uf(uf, (int32_t)s) == (int32_t)s)
			ri->rail_components++;
	/* spine groups: every spine joins the rail components it is cabled
	 * to; spines end up together when their components meet */
	for (uint32_t s = 0; s < nsw; s++) {
		ri->sw_group[s] = -1;
		if (ri->sw_role[s] == IBF_RAIL_SW_SPINE)
			join_rail_nbrs(f, ri, uf, s);
	}
	/* numbered in canonical order of their first spine (GUID first, not
	 * the records' order; num[] by root, by[] the switches by rank) */
	int32_t *num = malloc(((size_t)nsw + 1) * sizeof(*num));
	uint32_t *rank = malloc(((size_t)nsw + 1) * sizeof(*rank));
	int32_t *by = malloc(((size_t)nsw + 1) * sizeof(*by));
	if (!num || !rank || !by || ibf_switch_ranks(f, rank)) {
		free(num);
		free(rank);
		free(by);
		free(uf);
		return oom(d);
	}
	for (uint32_t s = 0; s < nsw; s++) {
		num[s] = -1;
		by[rank[s]] = (int32_t)s;
	}
	for (uint32_t k = 0; k < nsw; k++) {
		int32_t s = by[k];
		if (ri->sw_role[s] != IBF_RAIL_SW_SPINE)
			continue;
		int32_t root = find_uf(uf, s);
		if (num[root] < 0)
			num[root] = ri->nspine_groups++;
		ri->sw_group[s] = num[root];
	}
	free(num);
	free(rank);
	free(by);
	free(uf);
	return 0;
}

void ibf_rail_group_rails(const struct ibf_fabric *f, const struct ibf_rail_info *ri, int g,
			  uint8_t *on)
{
	memset(on, 0, (size_t)(ri->nrails > 0 ? ri->nrails : 0));
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (ri->sw_role[s] != IBF_RAIL_SW_SPINE ||
		    (g >= 0 && (!ri->sw_group || ri->sw_group[s] != g)))
			continue;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
			uint32_t t = f->adj[a].nbr;
			if (ri->sw_role[t] == IBF_RAIL_SW_RAIL && ri->sw_rail[t] >= 0 &&
			    ri->sw_rail[t] < ri->nrails)
				on[ri->sw_rail[t]] = 1;
		}
	}
}

int ibf_rail_detect(const struct ibf_fabric *f, const struct ibf_rail_map *map,
		    struct ibf_rail_info *ri, struct ibf_error *err)
{
	memset(ri, 0, sizeof(*ri));
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric is not finalized");
	uint32_t nn = f->nnodes, nsw = f->nsw;
	struct rdet d = { .f = f, .map = map, .ri = ri, .err = err };
	int rc;
	d.ov = malloc((nn + 1) * sizeof(*d.ov));
	d.dom_of = malloc((nn + 1) * sizeof(*d.dom_of));
	d.label = malloc((nsw + 1) * sizeof(*d.label));
	d.nlabel = malloc((nsw + 1) * sizeof(*d.nlabel));
	ri->gpu_of_node = malloc((nn + 1) * sizeof(int32_t));
	ri->sw_rail = malloc((nsw + 1) * sizeof(int32_t));
	ri->sw_role = calloc(nsw + 1, 1);
	ri->sw_group = malloc((nsw + 1) * sizeof(int32_t));
	if (!d.ov || !d.dom_of || !d.label || !d.nlabel || !ri->gpu_of_node || !ri->sw_rail ||
	    !ri->sw_role || !ri->sw_group) {
		rc = oom(&d);
		goto out;
	}
	for (uint32_t i = 0; i < nn; i++) {
		d.ov[i] = -1;
		d.dom_of[i] = -1;
		ri->gpu_of_node[i] = -1;
	}
	if ((rc = match_map(&d)) || (rc = collect_gpus(&d)) || (rc = assign_domains(&d)) ||
	    (rc = vote_leaves(&d)))
		goto out;
	label_switches(&d);
	assign_rails(&d);
	if ((rc = dense_rails(&d)))
		goto out;
	count_misfits(ri);
	rc = rail_components(&d);
out:
	if (rc) {
		if (d.names) {
			for (int i = 0; i < d.ndom; i++)
				free(d.names[i]);
			free(d.names);
		}
		ibf_rail_info_free(ri);
	}
	ibf_smap_free(&d.dmap);
	ibf_umap_free(&d.named);
	free(d.ov);
	free(d.dom_of);
	free(d.label);
	free(d.nlabel);
	return rc;
}

/* ------------------------------------------------------------ gaps */

static int gap_push(struct ibf_rail_gap **v, int *n, int *cap, struct ibf_rail_gap g)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		void *q = realloc(*v, (size_t)nc * sizeof(**v));
		if (!q)
			return -1;
		*v = q;
		*cap = nc;
	}
	(*v)[(*n)++] = g;
	return 0;
}

static int cmp_gap_label(const void *a, const void *b)
{
	const struct ibf_rail_gap *x = a, *y = b;
	return (x->label > y->label) - (x->label < y->label);
}

/* The rail index of a label, -1 when no rail has it. */
static int32_t rail_of_label(const struct ibf_rail_info *ri, int32_t v)
{
	const int32_t *x =
		bsearch(&v, ri->rail_label, (size_t)ri->nrails, sizeof(int32_t), cmp_i32);
	return x ? (int32_t)(x - ri->rail_label) : -1;
}

/* Whole rails: skipped device numbers and numbers of CAs without a cable. */
static int whole_rail_gaps(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
			   struct ibf_rail_gap **v, int *n, int *cap)
{
	int rail_fabric = ri->nrails >= 2 && ibf_rail_multi_gpu_domains(ri);
	if (rail_fabric) {
		int64_t skipped = (int64_t)ri->rail_label[ri->nrails - 1] - ri->rail_label[0] + 1 -
				  ri->nrails;
		for (int r = 0; skipped <= ri->nrails && r + 1 < ri->nrails; r++)
			for (int32_t l = ri->rail_label[r] + 1; l < ri->rail_label[r + 1]; l++)
				if (gap_push(v, n, cap,
					     (struct ibf_rail_gap){ l, -1, -1, ri->ndomains, 0, 1 }))
					return -1;
	}
	/* device numbers a map gave another rail number: a cabled GPU "HOST
	 * DEV<n>" whose hint is not n.  Such an n is on a rail of another
	 * label, so a NIC of it without a cable is a cut cable, not a rail
	 * (host_of_desc reads at most 4 digits) */
	uint8_t *renum = calloc(10000, 1);
	if (!renum)
		return -1;
	for (int g = 0; g < ri->ngpus; g++) {
		size_t hl;
		int idx;
		if (ri->gpu[g].hint >= 0 &&
		    host_of_desc(f->nodes[ri->gpu[g].node].desc, &hl, &idx) &&
		    ri->gpu[g].hint != idx)
			renum[idx] = 1;
	}
	/* CAs without any cable, "HOST DEV<n>" of a known server, n no rail
	 * (a router is no server's NIC) */
	for (uint32_t i = 0; ri->ngpus && i < f->nnodes; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		if (nd->type != IBF_NODE_CA)
			continue;
		int cabled = 0;
		for (int p = 1; p <= nd->nports && !cabled; p++)
			cabled = ibf_port(f, (int)i, p)->peer_node != IBF_NO_NODE;
		size_t hl;
		int idx;
		if (cabled || !host_of_desc(nd->desc, &hl, &idx) || rail_of_label(ri, idx) >= 0 ||
		    renum[idx])
			continue;
		int known = 0;
		for (int d = 0; d < ri->ndomains && !known; d++)
			known = strlen(ri->domain[d]) == hl && !memcmp(ri->domain[d], nd->desc, hl);
		if (!known)
			continue;
		int k = 0;
		while (k < *n && (*v)[k].label != idx)
			k++;
		if (k == *n &&
		    gap_push(v, n, cap, (struct ibf_rail_gap){ idx, -1, -1, ri->ndomains, 0, 0 })) {
			free(renum);
			return -1;
		}
		(*v)[k].nics++;
	}
	free(renum);
	if (*n > 1) /* *v is NULL while nothing was found */
		qsort(*v, (size_t)*n, sizeof(**v), cmp_gap_label);
	return 0;
}

/* Leaves of present rails: for rail r, a leaf of another rail whose two
 * or more servers all lack rail r.  The leaves with most servers go first
 * and a leaf sharing a server with one taken is skipped, so one missing
 * leaf is reported once even when a cable of another rail is missing too. */
struct leaf_cand {
	int servers;
	uint32_t sw;
	int a, b; /* its GPUs: by_leaf[a..b) */
};

static int cmp_cand(const void *x, const void *y)
{
	const struct leaf_cand *p = x, *q = y;
	if (p->servers != q->servers)
		return p->servers > q->servers ? -1 : 1;
	return (p->sw > q->sw) - (p->sw < q->sw);
}

static int leaf_gaps(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
		     struct ibf_rail_gap **v, int *n, int *cap)
{
	int ng = ri->ngpus, nr = ri->nrails, nd = ri->ndomains;
	if (nr < 2 || !ibf_rail_multi_gpu_domains(ri))
		return 0;
	int rc = -1;
	uint8_t *has = calloc((size_t)nd * (size_t)nr + 1, 1);
	int32_t *covered = malloc(((size_t)nd + 1) * sizeof(int32_t));
	int32_t *stamp = malloc(((size_t)nd + 1) * sizeof(int32_t));
	int64_t *by_leaf = malloc(((size_t)ng + 1) * sizeof(int64_t));
	struct leaf_cand *cand = malloc(((size_t)ng + 1) * sizeof(*cand));
	if (!has || !covered || !stamp || !by_leaf || !cand)
		goto out;
	for (int g = 0; g < ng; g++) {
		has[(size_t)ri->gpu[g].domain * (size_t)nr + (size_t)ri->gpu[g].rail] = 1;
		by_leaf[g] = ((int64_t)f->nodes[ri->gpu[g].leaf].sw << 32) | (uint32_t)g;
	}
	qsort(by_leaf, (size_t)ng, sizeof(*by_leaf), cmp_i64);
	for (int r = 0; r < nr; r++) {
		int nc = 0;
		for (int d = 0; d < nd; d++)
			covered[d] = stamp[d] = -1;
		for (int a = 0; a < ng;) {
			uint32_t s = (uint32_t)(by_leaf[a] >> 32);
			int b = a, servers = 0, lacking = 1;
			for (; b < ng && (uint32_t)(by_leaf[b] >> 32) == s; b++) {
				int32_t d = ri->gpu[(uint32_t)by_leaf[b]].domain;
				if (stamp[d] == (int32_t)s)
					continue;
				stamp[d] = (int32_t)s;
				servers++;
				lacking &= !has[(size_t)d * (size_t)nr + (size_t)r];
			}
			if (ri->sw_role[s] == IBF_RAIL_SW_RAIL && ri->sw_rail[s] != r &&
			    servers >= 2 && lacking)
				cand[nc++] = (struct leaf_cand){ servers, s, a, b };
			a = b;
		}
		qsort(cand, (size_t)nc, sizeof(*cand), cmp_cand);
		for (int c = 0; c < nc; c++) {
			int taken = 0;
			for (int k = cand[c].a; k < cand[c].b && !taken; k++)
				taken = covered[ri->gpu[(uint32_t)by_leaf[k]].domain] >= 0;
			if (taken)
				continue;
			for (int k = cand[c].a; k < cand[c].b; k++)
				covered[ri->gpu[(uint32_t)by_leaf[k]].domain] = r;
			if (gap_push(v, n, cap,
				     (struct ibf_rail_gap){ ri->rail_label[r], r, (int32_t)cand[c].sw,
							    cand[c].servers, 0, 0 }))
				goto out;
		}
	}
	rc = 0;
out:
	free(has);
	free(covered);
	free(stamp);
	free(by_leaf);
	free(cand);
	return rc;
}

int ibf_rail_gaps(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
		  struct ibf_rail_gap **out, int *n, struct ibf_error *err)
{
	struct ibf_rail_gap *v = NULL;
	int cnt = 0, cap = 0;
	*out = NULL;
	*n = 0;
	if (whole_rail_gaps(f, ri, &v, &cnt, &cap) || leaf_gaps(f, ri, &v, &cnt, &cap)) {
		free(v);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	*out = v;
	*n = cnt;
	return 0;
}

int ibf_rail_gpu_misfit(const struct ibf_fabric *f, const struct ibf_rail_info *ri, int g,
			char *buf, size_t len)
{
	if (buf && len)
		buf[0] = '\0';
	if (g < 0 || g >= ri->ngpus)
		return 0;
	const struct ibf_rail_gpu *G = &ri->gpu[g];
	int lsw = f->nodes[G->leaf].sw;
	int on_rail = lsw >= 0 && ri->sw_role[lsw] == IBF_RAIL_SW_RAIL;
	int bad = G->hint != ri->rail_label[G->rail];
	if (on_rail && !bad)
		return 0;
	if (!buf || !len)
		return 1;
	char sw[160];
	const struct ibf_port *pp = ibf_port((struct ibf_fabric *)f, G->node, G->port);
	ibf_node_label(f, G->leaf, sw, sizeof(sw));
	if (!on_rail) {
		snprintf(buf, len,
			 "cabled to %s port %d, a %s, not to a rail switch (counted on rail %d by "
			 "its device index)",
			 sw, pp->peer_port,
			 lsw >= 0 && ri->sw_role[lsw] == IBF_RAIL_SW_SPINE ? "spine"
									   : "switch of no rail",
			 G->rail);
		return 1;
	}
	int hr = -1;
	for (int r = 0; r < ri->nrails; r++)
		if (ri->rail_label[r] == G->hint)
			hr = r;
	char want[64], at[48];
	if (hr >= 0 && ri->rail_label[hr] != hr)
		snprintf(want, sizeof(want), "rail %d's (label %d)", hr, ri->rail_label[hr]);
	else if (hr >= 0)
		snprintf(want, sizeof(want), "rail %d's", hr);
	else
		snprintf(want, sizeof(want), "no rail's here");
	if (ri->rail_label[G->rail] != G->rail)
		snprintf(at, sizeof(at), "rail %d, label %d", G->rail, ri->rail_label[G->rail]);
	else
		snprintf(at, sizeof(at), "rail %d", G->rail);
	snprintf(buf, len, "reaches another rail: cabled to %s port %d (%s), its device index is %s",
		 sw, pp->peer_port, at, want);
	return 1;
}
