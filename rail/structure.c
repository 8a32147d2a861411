/* Rail structure of a fabric: which server (domain) and which rail every GPU
 * NIC belongs to, which switches form each rail and which join rails.
 *
 * Domain of a CA: the mapping file, else the host name when the node
 * description is "HOST DEVICE" with a device name ending in a digit (what
 * rdma-ndd sets, e.g. "gpu-node017 mlx5_3"), else the system image GUID,
 * else the node GUID.
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
	free(ri->gpu_of_node);
	memset(ri, 0, sizeof(*ri));
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

int ibf_rail_detect(const struct ibf_fabric *f, const struct ibf_rail_map *map,
		    struct ibf_rail_info *ri, struct ibf_error *err)
{
	memset(ri, 0, sizeof(*ri));
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric is not finalized");
	uint32_t nn = f->nnodes, nsw = f->nsw;
	int rc = IBF_ENOMEM;
	int32_t *ov = malloc((nn + 1) * sizeof(*ov));	      /* map entry per node */
	int32_t *dom_of = malloc((nn + 1) * sizeof(*dom_of)); /* domain per CA node */
	int32_t *label = malloc((nsw + 1) * sizeof(*label));
	int32_t *nlabel = malloc((nsw + 1) * sizeof(*nlabel));
	int32_t *tmp = NULL, *cnt = NULL, *uf = NULL;
	struct ibf_smap dmap = { 0 };
	struct ibf_umap named = { 0 };
	char **names = NULL;
	int ndom = 0, namecap = 0;
	ri->gpu_of_node = malloc((nn + 1) * sizeof(int32_t));
	ri->sw_rail = malloc((nsw + 1) * sizeof(int32_t));
	ri->sw_role = calloc(nsw + 1, 1);
	if (!ov || !dom_of || !label || !nlabel || !ri->gpu_of_node || !ri->sw_rail || !ri->sw_role)
		goto oom;
	for (uint32_t i = 0; i < nn; i++) {
		ov[i] = -1;
		dom_of[i] = -1;
		ri->gpu_of_node[i] = -1;
	}

	/* the map's entries, matched to CA nodes */
	for (int k = 0; map && k < map->n; k++) {
		const struct ibf_rail_map_entry *e = &map->e[k];
		int node = -1, port;
		if (e->kind == 0) {
			node = ibf_fabric_find_guid(f, e->guid);
			if (node < 0)
				node = ibf_fabric_find_port_guid(f, e->guid, &port);
		} else if (e->kind == 1) {
			node = ibf_fabric_find_id(f, e->key + 1);
		} else {
			node = ibf_fabric_find_desc(f, e->key + 1);
		}
		if (node < 0) {
			rc = ibf_error_set(err, IBF_EINVAL, map->name, e->line,
					   "no node in the fabric matches this selector");
			goto fail;
		}
		if (f->nodes[node].type == IBF_NODE_SWITCH) {
			rc = ibf_error_set(err, IBF_EINVAL, map->name, e->line,
					   "the selector names a switch; map CAs only");
			goto fail;
		}
		if (ov[node] >= 0) {
			rc = ibf_error_set(err, IBF_EINVAL, map->name, e->line,
					   "this CA was already mapped on line %ld",
					   map->e[ov[node]].line);
			goto fail;
		}
		ov[node] = k;
	}

	/* GPUs: CA/router ports facing a switch */
	int ngpu = 0, gcap = 0;
	for (uint32_t i = 0; i < nn; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		if (nd->type == IBF_NODE_SWITCH)
			continue;
		for (int p = 1; p <= nd->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH) {
				ri->unattached++;
				continue;
			}
			if (ngpu == gcap) {
				int nc = gcap ? gcap * 2 : 64;
				void *q = realloc(ri->gpu, (size_t)nc * sizeof(*ri->gpu));
				if (!q)
					goto oom;
				ri->gpu = q;
				gcap = nc;
			}
			ri->gpu[ngpu++] = (struct ibf_rail_gpu){ (int32_t)i, (uint8_t)p,   -1, -1,
								 -1,	     pp->peer_node };
		}
	}
	ri->ngpus = ngpu;

	/* a CA without a host name takes the one of a CA sharing its system
	 * image GUID (the first in node order) */
	for (int g = 0; g < ngpu; g++) {
		const struct ibf_node *nd = &f->nodes[ri->gpu[g].node];
		size_t hl;
		int idx;
		int32_t old;
		if (nd->sysimg_guid && ov[ri->gpu[g].node] < 0 &&
		    host_of_desc(nd->desc, &hl, &idx) &&
		    ibf_umap_put(&named, nd->sysimg_guid, ri->gpu[g].node, &old) < 0)
			goto oom;
	}
	/* domains and hints */
	for (int g = 0; g < ngpu; g++) {
		struct ibf_rail_gpu *G = &ri->gpu[g];
		const struct ibf_node *nd = &f->nodes[G->node];
		if (dom_of[G->node] < 0) {
			char buf[64];
			const char *key;
			size_t kl, hl;
			int idx;
			if (ov[G->node] >= 0) {
				key = map->e[ov[G->node]].domain;
				kl = strlen(key);
			} else if (host_of_desc(nd->desc, &hl, &idx)) {
				key = nd->desc;
				kl = hl;
			} else if (nd->sysimg_guid &&
				   (idx = ibf_umap_get(&named, nd->sysimg_guid)) >= 0 &&
				   host_of_desc(f->nodes[idx].desc, &hl, &idx)) {
				key = f->nodes[ibf_umap_get(&named, nd->sysimg_guid)].desc;
				kl = hl;
			} else {
				snprintf(buf, sizeof(buf), "%s0x%016" PRIx64,
					 nd->sysimg_guid ? "sysimg-" : "guid-",
					 nd->sysimg_guid ? nd->sysimg_guid : nd->guid);
				key = buf;
				kl = strlen(buf);
			}
			int32_t d = ibf_smap_get(&dmap, key, kl);
			if (d < 0) {
				if (ndom == namecap) {
					int nc = namecap ? namecap * 2 : 32;
					void *q = realloc(names, (size_t)nc * sizeof(*names));
					if (!q)
						goto oom;
					names = q;
					namecap = nc;
				}
				char *s = malloc(kl + 1);
				if (!s)
					goto oom;
				memcpy(s, key, kl);
				s[kl] = 0;
				names[ndom] = s;
				d = ndom++;
				int32_t old;
				if (ibf_smap_put(&dmap, s, kl, d, &old) < 0)
					goto oom;
			}
			dom_of[G->node] = d;
		}
		G->domain = dom_of[G->node];
		size_t hl;
		int idx;
		if (ov[G->node] >= 0 && map->e[ov[G->node]].rail >= 0)
			G->hint = map->e[ov[G->node]].rail;
		else if (host_of_desc(nd->desc, &hl, &idx))
			G->hint = idx;
	}
	ri->domain = names;
	ri->ndomains = ndom;
	names = NULL;
	/* rank fallback for GPUs without a hint */
	cnt = calloc((size_t)ndom + 1, sizeof(*cnt));
	if (!cnt)
		goto oom;
	for (int g = 0; g < ngpu; g++) {
		int32_t r = cnt[ri->gpu[g].domain]++;
		if (ri->gpu[g].hint < 0)
			ri->gpu[g].hint = r;
	}

	/* leaf votes: (switch index, hint) pairs sorted, most frequent per switch */
	for (uint32_t s = 0; s < nsw; s++)
		label[s] = -1;
	tmp = malloc(((size_t)ngpu + 1) * 2 * sizeof(*tmp));
	if (!tmp)
		goto oom;
	{
		int64_t *pairs = (int64_t *)(void *)tmp;
		for (int g = 0; g < ngpu; g++)
			pairs[g] = ((int64_t)f->nodes[ri->gpu[g].leaf].sw << 32) |
				   (uint32_t)ri->gpu[g].hint;
		qsort(pairs, (size_t)ngpu, sizeof(*pairs), cmp_i64);
	}
	{
		int64_t *pairs = (int64_t *)(void *)tmp;
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
			label[s] = best;
			a = b;
		}
	}

	/* spines among the leaves, then propagation to the other switches */
	for (uint32_t s = 0; s < nsw; s++)
		nlabel[s] = label[s];
	for (uint32_t s = 0; s < nsw; s++) {
		int32_t seen = -1;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
			int32_t l = label[f->adj[a].nbr];
			if (l < 0)
				continue;
			if (seen >= 0 && l != seen) {
				nlabel[s] = -2;
				break;
			}
			seen = l;
		}
	}
	memcpy(label, nlabel, nsw * sizeof(*label));
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t s = 0; s < nsw; s++) {
			nlabel[s] = label[s];
			if (label[s] != -1)
				continue;
			int32_t seen = -1;
			for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
				int32_t l = label[f->adj[a].nbr];
				if (l < 0)
					continue;
				if (seen >= 0 && l != seen) {
					seen = -2;
					break;
				}
				seen = l;
			}
			if (seen != -1) {
				nlabel[s] = seen;
				changed = 1;
			}
		}
		memcpy(label, nlabel, nsw * sizeof(*label));
	}

	/* rails of the GPUs */
	for (int g = 0; g < ngpu; g++) {
		struct ibf_rail_gpu *G = &ri->gpu[g];
		int32_t l = label[f->nodes[G->leaf].sw];
		int forced = ov[G->node] >= 0 && map->e[ov[G->node]].rail >= 0;
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

	/* dense rail numbers: sorted distinct labels of GPUs and switches */
	free(tmp);
	tmp = malloc(((size_t)ngpu + nsw + 1) * sizeof(*tmp));
	if (!tmp)
		goto oom;
	int nl = 0;
	for (int g = 0; g < ngpu; g++)
		tmp[nl++] = ri->gpu[g].rail;
	for (uint32_t s = 0; s < nsw; s++)
		if (label[s] >= 0)
			tmp[nl++] = label[s];
	qsort(tmp, (size_t)nl, sizeof(*tmp), cmp_i32);
	int nr = 0;
	for (int i = 0; i < nl; i++)
		if (i == 0 || tmp[i] != tmp[i - 1])
			tmp[nr++] = tmp[i];
	ri->nrails = nr;
	ri->rail_label = malloc(((size_t)nr + 1) * sizeof(int32_t));
	if (!ri->rail_label)
		goto oom;
	memcpy(ri->rail_label, tmp, (size_t)nr * sizeof(int32_t));
#define DENSE(v)                                                                         \
	((int32_t)((int32_t *)bsearch(&(v), ri->rail_label, (size_t)nr, sizeof(int32_t), \
				      cmp_i32) -                                         \
		   ri->rail_label))
	for (int g = 0; g < ngpu; g++)
		ri->gpu[g].rail = DENSE(ri->gpu[g].rail);
	for (uint32_t s = 0; s < nsw; s++) {
		if (label[s] >= 0) {
			ri->sw_rail[s] = DENSE(label[s]);
			ri->sw_role[s] = IBF_RAIL_SW_RAIL;
		} else {
			ri->sw_rail[s] = -1;
			ri->sw_role[s] = label[s] == -2 ? IBF_RAIL_SW_SPINE : IBF_RAIL_SW_LOOSE;
			if (label[s] == -2)
				ri->nspines++;
		}
	}
#undef DENSE
	qsort(ri->gpu, (size_t)ngpu, sizeof(*ri->gpu), cmp_gpu);
	for (int g = ngpu - 1; g >= 0; g--)
		ri->gpu_of_node[ri->gpu[g].node] = g;

	/* what does not fit: per domain, GPUs per rail */
	for (int a = 0; a < ngpu;) {
		int b = a, seen = 0;
		while (b < ngpu && ri->gpu[b].domain == ri->gpu[a].domain) {
			if (b == a || ri->gpu[b].rail != ri->gpu[b - 1].rail)
				seen++;
			else
				ri->doubled++;
			b++;
		}
		ri->missing += nr - seen;
		a = b;
	}
	/* rail components: switches joined without passing a spine */
	uf = malloc(((size_t)nsw + 1) * sizeof(*uf));
	if (!uf)
		goto oom;
	for (uint32_t s = 0; s < nsw; s++)
		uf[s] = (int32_t)s;
	for (uint32_t s = 0; s < nsw; s++) {
		if (ri->sw_role[s] != IBF_RAIL_SW_RAIL)
			continue;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
			uint32_t t = f->adj[a].nbr;
			if (ri->sw_role[t] != IBF_RAIL_SW_RAIL)
				continue;
			int32_t x = find_uf(uf, (int32_t)s), y = find_uf(uf, (int32_t)t);
			if (x != y)
				uf[x] = y;
		}
	}
	for (uint32_t s = 0; s < nsw; s++)
		if (ri->sw_role[s] == IBF_RAIL_SW_RAIL && find_uf(uf, (int32_t)s) == (int32_t)s)
			ri->rail_components++;

	rc = 0;
	goto out;
oom:
	rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
fail:
	if (names) {
		for (int i = 0; i < ndom; i++)
			free(names[i]);
		free(names);
		names = NULL;
	}
	ibf_rail_info_free(ri);
out:
	ibf_smap_free(&dmap);
	ibf_umap_free(&named);
	free(ov);
	free(dom_of);
	free(label);
	free(nlabel);
	free(tmp);
	free(cnt);
	free(uf);
	return rc;
}
