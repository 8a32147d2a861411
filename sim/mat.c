/* Maximum achievable throughput (max concurrent flow) of a phase's
 * demands, docs/sim.md.
 *
 * Host links take no routing decision: a host's flows all cross its own
 * up and down link, so the host links alone allow lambda_host =
 * min over hosts of capacity / demand through the link, and the network
 * (switch-to-switch links) is a separate problem over aggregated
 * commodities:
 *   ROUTING  (source switch, destination host), candidate paths = the
 *            tables' paths of the destination's 2^LMC LIDs;
 *   ANY      (source switch, destination switch), any path.
 * lambda = min(lambda_host, lambda_net).
 *
 * lambda_net: Garg-Koenemann with Fleischer's phases (ROUTING: shortest of
 * the candidate paths; ANY: Karakostas' grouping, one shortest-path tree
 * per source switch and phase step).  The primal flows, scaled to fit, give
 * a feasible lambda (lo); every few phases the lengths give the dual bound
 * D(l) / alpha(l) (hi).  It stops when hi <= (1 + eps) lo, when D(l)
 * reaches 1, or after max_phases.  The exact LP uses GLPK (configure finds
 * libglpk). */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_GLPK
#include <glpk.h>
#endif

void ibf_mat_opts_default(struct ibf_mat_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = IBF_MAT_ROUTING;
	o->method = IBF_MAT_GK;
	o->eps = 0.05;
	o->max_phases = 2000;
}

int ibf_sim_have_lp(void)
{
#ifdef HAVE_GLPK
	return 1;
#else
	return 0;
#endif
}

/* commodities: demand and candidate paths (switch-switch links only) */
struct comm {
	uint64_t n;
	double *d;
	uint32_t *src;        /* ANY: source switch; ROUTING: unused */
	uint32_t *dst;        /* ANY: destination switch */
	uint64_t *poff;       /* ROUTING: [n + 1] into paths (path index) */
	uint64_t *loff;       /* ROUTING: [npaths + 1] into links */
	uint32_t *links;
	uint64_t npaths, nlinks_used, cappaths, caplinks;
};

static void comm_free(struct comm *c)
{
	free(c->d);
	free(c->src);
	free(c->dst);
	free(c->poff);
	free(c->loff);
	free(c->links);
	memset(c, 0, sizeof(*c));
}

static int grow(void **p, uint64_t *cap, uint64_t need, size_t sz)
{
	if (need <= *cap)
		return 0;
	uint64_t nc = *cap ? *cap : 1024;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, nc * sz);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

/* demands per (flow) with elastic = 1; host bound; commodities */
static int build(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
		 const struct ibf_sim_phase *ph, int mode, struct comm *c, double *host_bound,
		 double *dsum, struct ibf_error *err)
{
	const struct ibf_fabric *f = n->f;
	uint32_t H = n->nhosts, S = f->nsw;
	double *out = calloc(H ? H : 1, sizeof(double)), *in = calloc(H ? H : 1, sizeof(double));
	uint64_t keys = mode == IBF_MAT_ANY ? (uint64_t)S * S : (uint64_t)S * H;
	int64_t *idx = malloc((keys ? keys : 1) * sizeof(int64_t));
	uint64_t capn = 0;
	int rc = 0;
	memset(c, 0, sizeof(*c));
	if (!out || !in || !idx) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (uint64_t k = 0; k < keys; k++)
		idx[k] = -1;
	*dsum = 0;
	uint32_t buf[IBF_TRACE_MAX + 2];
	for (uint64_t i = 0; i < ph->nflows && !rc; i++) {
		const struct ibf_sim_flow *fl = &ph->flow[i];
		uint32_t a = pl->host[fl->src], b = pl->host[fl->dst];
		if (a == b)
			continue;
		double d = fl->demand > 0 ? fl->demand : 1.0;
		*dsum += d;
		out[a] += d;
		in[b] += d;
		uint32_t sa = n->host[a].sw, sb = n->host[b].sw;
		if (sa == sb)
			continue;
		uint64_t key = mode == IBF_MAT_ANY ? (uint64_t)sa * S + sb : (uint64_t)sa * H + b;
		if (idx[key] >= 0) {
			c->d[idx[key]] += d;
			continue;
		}
		if (grow((void **)&c->d, &capn, c->n + 1, sizeof(double)) ||
		    (mode == IBF_MAT_ANY &&
		     (!(c->src = realloc(c->src, capn * sizeof(uint32_t))) ||
		      !(c->dst = realloc(c->dst, capn * sizeof(uint32_t))))) ||
		    (mode == IBF_MAT_ROUTING &&
		     !(c->poff = realloc(c->poff, (capn + 1) * sizeof(uint64_t))))) {
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			break;
		}
		idx[key] = (int64_t)c->n;
		c->d[c->n] = d;
		if (mode == IBF_MAT_ANY) {
			c->src[c->n] = sa;
			c->dst[c->n] = sb;
			c->n++;
			continue;
		}
		/* the distinct paths of b's LIDs from a's switch */
		if (!c->n) {
			c->poff[0] = 0;
			if (grow((void **)&c->loff, &c->cappaths, 1, sizeof(uint64_t))) {
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
				break;
			}
			c->loff[0] = 0;
		}
		const struct ibf_port *dp = ibf_port(f, n->host[b].node, n->host[b].port);
		uint32_t L = 1u << dp->lmc;
		uint64_t first = c->npaths;
		for (uint32_t j = 0; j < L; j++) {
			int k = ibf_sim_trace(n, a, b, j, buf, IBF_TRACE_MAX + 2);
			if (k < 0) {
				rc = ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
						   "rank %u -> rank %u layer %u is not delivered by the tables",
						   fl->src, fl->dst, j);
				break;
			}
			/* drop the two host links */
			uint32_t *p = buf + 1;
			uint64_t len = (uint64_t)k - 2;
			int dup = 0;
			for (uint64_t q = first; q < c->npaths && !dup; q++)
				dup = c->loff[q + 1] - c->loff[q] == len &&
				      !memcmp(c->links + c->loff[q], p, len * sizeof(uint32_t));
			if (dup)
				continue;
			if (grow((void **)&c->links, &c->caplinks, c->nlinks_used + len, sizeof(uint32_t)) ||
			    grow((void **)&c->loff, &c->cappaths, c->npaths + 2, sizeof(uint64_t))) {
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
				break;
			}
			memcpy(c->links + c->nlinks_used, p, len * sizeof(uint32_t));
			c->nlinks_used += len;
			c->loff[++c->npaths] = c->nlinks_used;
		}
		c->n++;
		c->poff[c->n] = c->npaths;
	}
	double hb = INFINITY;
	for (uint32_t h = 0; h < H; h++) {
		if (out[h] > 0 && n->cap[n->up[h]] / out[h] < hb)
			hb = n->cap[n->up[h]] / out[h];
		if (in[h] > 0 && n->cap[n->down[h]] / in[h] < hb)
			hb = n->cap[n->down[h]] / in[h];
	}
	*host_bound = hb;
out:
	free(out);
	free(in);
	free(idx);
	if (rc)
		comm_free(c);
	return rc;
}

/* ------------------------------------------------------------ Dijkstra over switches */

struct dj {
	uint32_t S;
	double *dist;
	uint32_t *pred;     /* directed link id into the switch, UINT32_MAX none */
	uint32_t *heap, *pos, nheap;
};

static void dj_up(struct dj *d, uint32_t i)
{
	uint32_t v = d->heap[i];
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (d->dist[d->heap[p]] <= d->dist[v])
			break;
		d->heap[i] = d->heap[p];
		d->pos[d->heap[i]] = i;
		i = p;
	}
	d->heap[i] = v;
	d->pos[v] = i;
}

static void dj_down(struct dj *d, uint32_t i)
{
	uint32_t v = d->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= d->nheap)
			break;
		if (c + 1 < d->nheap && d->dist[d->heap[c + 1]] < d->dist[d->heap[c]])
			c++;
		if (d->dist[v] <= d->dist[d->heap[c]])
			break;
		d->heap[i] = d->heap[c];
		d->pos[d->heap[i]] = i;
		i = c;
	}
	d->heap[i] = v;
	d->pos[v] = i;
}

static void dijkstra(const struct ibf_sim_net *n, struct dj *d, uint32_t src, const double *len)
{
	const struct ibf_fabric *f = n->f;
	for (uint32_t v = 0; v < d->S; v++) {
		d->dist[v] = INFINITY;
		d->pred[v] = UINT32_MAX;
		d->pos[v] = UINT32_MAX;
	}
	d->dist[src] = 0;
	d->nheap = 0;
	d->heap[d->nheap] = src;
	d->pos[src] = d->nheap++;
	while (d->nheap) {
		uint32_t u = d->heap[0];
		d->pos[u] = UINT32_MAX - 1; /* settled */
		d->heap[0] = d->heap[--d->nheap];
		if (d->nheap)
			dj_down(d, 0);
		int node = f->switches[u];
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
			uint32_t v = f->adj[k].nbr, e = f->nodes[node].port_off + f->adj[k].lport;
			if (v == u || n->cap[e] <= 0 || d->pos[v] == UINT32_MAX - 1)
				continue;
			double nd = d->dist[u] + len[e];
			if (nd < d->dist[v]) {
				d->dist[v] = nd;
				d->pred[v] = e;
				if (d->pos[v] == UINT32_MAX) {
					d->heap[d->nheap] = v;
					d->pos[v] = d->nheap++;
				}
				dj_up(d, d->pos[v]);
			}
		}
	}
}

/* ------------------------------------------------------------ Garg-Koenemann */

/* the switch a directed switch-switch link (a port id) leaves */
#define TAIL(link) (f->adj_src[f->port_adj[(link)]])

/* Garg-Koenemann state: edge lengths, routed flow, per-commodity totals. */
struct gks {
	const struct ibf_sim_net *n;
	const struct ibf_fabric *f;
	const struct comm *c;
	int mode;
	double eps, D, scale;
	double *len, *flow, *routed;
	/* ANY: commodities by source switch, Dijkstra, per-step scratch */
	uint64_t *cfirst, *bysrc;
	double *rem, *sub;
	struct dj d;
};

static void gks_free(struct gks *g)
{
	free(g->len);
	free(g->flow);
	free(g->routed);
	free(g->cfirst);
	free(g->bysrc);
	free(g->rem);
	free(g->sub);
	free(g->d.dist);
	free(g->d.pred);
	free(g->d.heap);
	free(g->d.pos);
}

static int gks_init(struct gks *g, const struct ibf_sim_net *n, const struct comm *c, int mode)
{
	const struct ibf_fabric *f = n->f;
	uint32_t E = n->nlinks, S = f->nsw;
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->f = f;
	g->c = c;
	g->mode = mode;
	g->len = calloc(E ? E : 1, sizeof(double));
	g->flow = calloc(E ? E : 1, sizeof(double));
	g->routed = calloc(c->n ? c->n : 1, sizeof(double));
	if (!g->len || !g->flow || !g->routed)
		return -1;
	if (mode != IBF_MAT_ANY)
		return 0;
	g->d.S = S;
	g->d.dist = malloc((S ? S : 1) * sizeof(double));
	g->d.pred = malloc((S ? S : 1) * sizeof(uint32_t));
	g->d.heap = malloc((S ? S : 1) * sizeof(uint32_t));
	g->d.pos = malloc((S ? S : 1) * sizeof(uint32_t));
	g->rem = malloc((c->n ? c->n : 1) * sizeof(double));
	g->sub = calloc(S ? S : 1, sizeof(double));
	g->cfirst = calloc((size_t)S + 1, sizeof(uint64_t));
	g->bysrc = malloc((c->n ? c->n : 1) * sizeof(uint64_t));
	uint64_t *fill = malloc(((size_t)S + 1) * sizeof(uint64_t));
	if (!g->d.dist || !g->d.pred || !g->d.heap || !g->d.pos || !g->rem || !g->sub ||
	    !g->cfirst || !g->bysrc || !fill) {
		free(fill);
		return -1;
	}
	/* commodities of each source switch, in order */
	for (uint64_t j = 0; j < c->n; j++)
		g->cfirst[c->src[j] + 1]++;
	for (uint32_t s = 0; s < S; s++)
		g->cfirst[s + 1] += g->cfirst[s];
	memcpy(fill, g->cfirst, ((size_t)S + 1) * sizeof(uint64_t));
	for (uint64_t j = 0; j < c->n; j++)
		g->bysrc[fill[c->src[j]]++] = j;
	free(fill);
	return 0;
}

/* A feasible lambda to scale demands by: every commodity evenly over its
 * candidate paths (ANY: one shortest path in hops); 0 when a demand
 * crosses between switch components (nothing fits). */
static double gks_first_lambda(struct gks *g)
{
	const struct ibf_sim_net *n = g->n;
	const struct ibf_fabric *f = g->f;
	const struct comm *c = g->c;
	uint32_t E = n->nlinks, S = f->nsw;
	if (g->mode == IBF_MAT_ROUTING) {
		for (uint64_t j = 0; j < c->n; j++) {
			uint64_t np = c->poff[j + 1] - c->poff[j];
			for (uint64_t p = c->poff[j]; p < c->poff[j + 1]; p++)
				for (uint64_t k = c->loff[p]; k < c->loff[p + 1]; k++)
					g->flow[c->links[k]] += c->d[j] / (double)np;
		}
	} else {
		for (uint32_t e = 0; e < E; e++)
			g->len[e] = 1;
		for (uint32_t s = 0; s < S; s++) {
			if (g->cfirst[s] == g->cfirst[s + 1])
				continue;
			dijkstra(n, &g->d, s, g->len);
			for (uint64_t x = g->cfirst[s]; x < g->cfirst[s + 1]; x++) {
				uint64_t j = g->bysrc[x];
				if (g->d.dist[c->dst[j]] == INFINITY)
					return 0;
				for (uint32_t v = c->dst[j]; v != s; v = TAIL(g->d.pred[v]))
					g->flow[g->d.pred[v]] += c->d[j];
			}
		}
	}
	double kappa = 0;
	for (uint32_t e = 0; e < E; e++)
		if (n->kind[e] == 1 && n->cap[e] > 0 && g->flow[e] / n->cap[e] > kappa)
			kappa = g->flow[e] / n->cap[e];
	return kappa > 0 ? 1.0 / kappa : 1.0;
}

/* route u along link e (lengths grow multiplicatively) */
static inline void gks_push(struct gks *g, uint32_t e, double u)
{
	g->flow[e] += u;
	g->D += g->eps * u * g->len[e];
	g->len[e] *= 1 + g->eps * u / g->n->cap[e];
}

/* one phase, ROUTING: each commodity's scaled demand on its currently
 * shortest candidate path, a path's bottleneck at a time */
static void gks_phase_routing(struct gks *g)
{
	const struct comm *c = g->c;
	const double *cap = g->n->cap;
	for (uint64_t j = 0; j < c->n && g->D < 1; j++) {
		double r = c->d[j] * g->scale;
		while (r > 0 && g->D < 1) {
			uint64_t best = c->poff[j];
			double bl = INFINITY, bc = INFINITY;
			for (uint64_t p = c->poff[j]; p < c->poff[j + 1]; p++) {
				double l = 0, mc = INFINITY;
				for (uint64_t k = c->loff[p]; k < c->loff[p + 1]; k++) {
					l += g->len[c->links[k]];
					if (cap[c->links[k]] < mc)
						mc = cap[c->links[k]];
				}
				if (l < bl) {
					bl = l;
					best = p;
					bc = mc;
				}
			}
			double u = r < bc ? r : bc;
			for (uint64_t k = c->loff[best]; k < c->loff[best + 1]; k++)
				gks_push(g, c->links[k], u);
			r -= u;
			g->routed[j] += u;
		}
	}
}

/* one phase, ANY: per source switch, the remaining demands along one
 * shortest-path tree, scaled so no tree link takes more than its capacity
 * in a step (Karakostas) */
static void gks_phase_any(struct gks *g)
{
	const struct ibf_sim_net *n = g->n;
	const struct ibf_fabric *f = g->f;
	const struct comm *c = g->c;
	uint32_t S = f->nsw;
	for (uint32_t s = 0; s < S && g->D < 1; s++) {
		if (g->cfirst[s] == g->cfirst[s + 1])
			continue;
		for (uint64_t x = g->cfirst[s]; x < g->cfirst[s + 1]; x++)
			g->rem[g->bysrc[x]] = c->d[g->bysrc[x]] * g->scale;
		for (int more = 1; more && g->D < 1;) {
			dijkstra(n, &g->d, s, g->len);
			/* load of each tree link if all remaining demand went now */
			for (uint64_t x = g->cfirst[s]; x < g->cfirst[s + 1]; x++) {
				uint64_t j = g->bysrc[x];
				for (uint32_t v = c->dst[j]; v != s && g->d.pred[v] != UINT32_MAX;
				     v = TAIL(g->d.pred[v]))
					g->sub[v] += g->rem[j];
			}
			double sigma = 1;
			for (uint32_t v = 0; v < S; v++)
				if (g->sub[v] > 0 && g->d.pred[v] != UINT32_MAX &&
				    g->sub[v] / n->cap[g->d.pred[v]] > sigma)
					sigma = g->sub[v] / n->cap[g->d.pred[v]];
			for (uint32_t v = 0; v < S; v++) {
				if (g->sub[v] > 0 && g->d.pred[v] != UINT32_MAX)
					gks_push(g, g->d.pred[v], g->sub[v] / sigma);
				g->sub[v] = 0;
			}
			more = 0;
			for (uint64_t x = g->cfirst[s]; x < g->cfirst[s + 1]; x++) {
				uint64_t j = g->bysrc[x];
				double u = g->rem[j] / sigma;
				g->routed[j] += u;
				g->rem[j] -= u;
				if (g->rem[j] > c->d[j] * g->scale * 1e-9)
					more = 1;
				else
					g->rem[j] = 0;
			}
		}
	}
}

/* bounds from the current state: lo = the routed flow scaled to fit,
 * hi = D(l) / alpha(l) */
static void gks_bounds(struct gks *g, double *lo, double *hi)
{
	const struct ibf_sim_net *n = g->n;
	const struct comm *c = g->c;
	double kappa = 0, mr = INFINITY, alpha = 0, Dn = 0;
	for (uint32_t e = 0; e < n->nlinks; e++)
		if (n->kind[e] == 1 && n->cap[e] > 0) {
			if (g->flow[e] / n->cap[e] > kappa)
				kappa = g->flow[e] / n->cap[e];
			Dn += n->cap[e] * g->len[e];
		}
	for (uint64_t j = 0; j < c->n; j++)
		if (g->routed[j] / c->d[j] < mr)
			mr = g->routed[j] / c->d[j];
	if (kappa > 0 && mr / kappa > *lo)
		*lo = mr / kappa;
	if (g->mode == IBF_MAT_ROUTING) {
		for (uint64_t j = 0; j < c->n; j++) {
			double bl = INFINITY;
			for (uint64_t p = c->poff[j]; p < c->poff[j + 1]; p++) {
				double l = 0;
				for (uint64_t k = c->loff[p]; k < c->loff[p + 1]; k++)
					l += g->len[c->links[k]];
				if (l < bl)
					bl = l;
			}
			alpha += c->d[j] * bl;
		}
	} else {
		for (uint32_t s = 0; s < g->f->nsw; s++) {
			if (g->cfirst[s] == g->cfirst[s + 1])
				continue;
			dijkstra(n, &g->d, s, g->len);
			for (uint64_t x = g->cfirst[s]; x < g->cfirst[s + 1]; x++)
				alpha += c->d[g->bysrc[x]] * g->d.dist[c->dst[g->bysrc[x]]];
		}
	}
	if (alpha > 0 && Dn / alpha < *hi)
		*hi = Dn / alpha;
}

static int gk(const struct ibf_sim_net *n, const struct comm *c, int mode,
	      const struct ibf_mat_opts *o, double hb, double *lo, double *hi, uint32_t *phases,
	      struct ibf_error *err)
{
	uint32_t E = n->nlinks, m = 0;
	struct gks g;
	*lo = 0;
	*hi = INFINITY;
	*phases = 0;
	if (gks_init(&g, n, c, mode)) {
		gks_free(&g);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t e = 0; e < E; e++)
		m += n->kind[e] == 1 && n->cap[e] > 0;
	if (!c->n || !m) {
		*lo = *hi = INFINITY;
		gks_free(&g);
		return 0;
	}
	g.eps = o->eps > 0 && o->eps < 0.5 ? o->eps : 0.05;
	g.scale = gks_first_lambda(&g);
	*lo = g.scale;
	if (g.scale <= 0) {
		*hi = 0;
		gks_free(&g);
		return 0;
	}
	/* Phases needed grow with lambda / scale: when the feasible bound has
	 * grown well past the scale, start again from it (the bounds stay
	 * valid, so only speed is at stake).  The host links cap lambda anyway:
	 * no need to go past hb. */
	double delta = pow((double)m / (1 - g.eps), -1.0 / g.eps);
	uint32_t maxph = o->max_phases ? o->max_phases : 2000, t = 0, restarts = 0;
	int again = 1;
	while (again) {
		again = 0;
		g.D = 0;
		for (uint32_t e = 0; e < E; e++) {
			int net = n->kind[e] == 1 && n->cap[e] > 0;
			g.len[e] = net ? delta / n->cap[e] : INFINITY;
			g.D += net ? delta : 0;
			g.flow[e] = 0;
		}
		for (uint64_t j = 0; j < c->n; j++)
			g.routed[j] = 0;
		for (; t < maxph && g.D < 1; t++) {
			if (mode == IBF_MAT_ROUTING)
				gks_phase_routing(&g);
			else
				gks_phase_any(&g);
			if ((t % 8) != 7 && g.D < 1 && t + 1 != maxph)
				continue;
			gks_bounds(&g, lo, hi);
			if (*hi <= *lo * (1 + g.eps) || *lo >= hb)
				break;
			if (*lo > 1.5 * g.scale && restarts < 6) {
				g.scale = *lo;
				restarts++;
				t++;
				again = 1;
				break;
			}
		}
	}
	*phases = t + 1 < maxph ? t + 1 : maxph;
	gks_free(&g);
	return 0;
}

/* ------------------------------------------------------------ exact LP */

#ifdef HAVE_GLPK
struct trip {
	int *ia, *ja;
	double *ar;
	size_t n, cap;
};

static int trip_add(struct trip *t, int i, int j, double v)
{
	if (t->n + 1 >= t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		int *a = realloc(t->ia, nc * sizeof(int)), *b;
		if (!a)
			return -1;
		t->ia = a;
		b = realloc(t->ja, nc * sizeof(int));
		if (!b)
			return -1;
		t->ja = b;
		double *c = realloc(t->ar, nc * sizeof(double));
		if (!c)
			return -1;
		t->ar = c;
		t->cap = nc;
	}
	t->n++; /* GLPK arrays are 1-based */
	t->ia[t->n] = i;
	t->ja[t->n] = j;
	t->ar[t->n] = v;
	return 0;
}

static int lp(const struct ibf_sim_net *n, const struct comm *c, int mode, double *lambda,
	      struct ibf_error *err)
{
	const struct ibf_fabric *f = n->f;
	uint32_t E = n->nlinks, S = f->nsw;
	int32_t *row_of = malloc((E ? E : 1) * sizeof(int32_t));
	struct trip t = { 0 };
	int rc = 0, nrows = 0;
	if (!row_of)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (!c->n) {
		free(row_of);
		*lambda = INFINITY;
		return 0;
	}
	glp_term_out(GLP_OFF);
	glp_prob *P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	/* rows: one capacity row per network link */
	for (uint32_t e = 0; e < E; e++)
		row_of[e] = n->kind[e] == 1 && n->cap[e] > 0 ? ++nrows : -1;
	int ncap = nrows;
	int col_lambda = 1;
	if (mode == IBF_MAT_ROUTING) {
		/* + one demand row per commodity: sum_p x_p - d lambda = 0 */
		nrows += (int)c->n;
		uint64_t ncols = 1 + c->npaths;
		glp_add_rows(P, nrows);
		glp_add_cols(P, (int)ncols);
		for (uint32_t e = 0; e < E; e++)
			if (row_of[e] > 0)
				glp_set_row_bnds(P, row_of[e], GLP_UP, 0, n->cap[e]);
		for (uint64_t j = 0; j < c->n; j++) {
			int row = ncap + 1 + (int)j;
			glp_set_row_bnds(P, row, GLP_FX, 0, 0);
			if (trip_add(&t, row, col_lambda, -c->d[j]))
				goto oom;
			for (uint64_t p = c->poff[j]; p < c->poff[j + 1]; p++) {
				int col = 2 + (int)p;
				if (trip_add(&t, row, col, 1))
					goto oom;
				for (uint64_t k = c->loff[p]; k < c->loff[p + 1]; k++)
					if (trip_add(&t, row_of[c->links[k]], col, 1))
						goto oom;
			}
		}
		for (uint64_t k = 1; k <= ncols; k++)
			glp_set_col_bnds(P, (int)k, GLP_LO, 0, 0);
	} else {
		/* arc flows per source switch; conservation rows per (source, switch) */
		uint32_t *srcs = malloc(S * sizeof(uint32_t));
		int32_t *sidx = malloc(S * sizeof(int32_t));
		double *need = calloc((size_t)S * S, sizeof(double));
		if (!srcs || !sidx || !need) {
			free(srcs);
			free(sidx);
			free(need);
			goto oom;
		}
		uint32_t ns = 0;
		for (uint32_t s = 0; s < S; s++)
			sidx[s] = -1;
		for (uint64_t j = 0; j < c->n; j++) {
			if (sidx[c->src[j]] < 0) {
				sidx[c->src[j]] = (int32_t)ns;
				srcs[ns++] = c->src[j];
			}
			need[(size_t)c->src[j] * S + c->dst[j]] += c->d[j];
		}
		int conv0 = nrows;
		nrows += (int)(ns * S);
		glp_add_rows(P, nrows);
		/* columns: lambda, then for each source its flow on every network link */
		int ncol = 1 + (int)(ns * (uint32_t)ncap);
		glp_add_cols(P, ncol);
		for (uint32_t e = 0; e < E; e++)
			if (row_of[e] > 0)
				glp_set_row_bnds(P, row_of[e], GLP_UP, 0, n->cap[e]);
		int bad = 0;
		for (uint32_t si = 0; si < ns && !bad; si++) {
			uint32_t s = srcs[si];
			double tot = 0;
			for (uint32_t v = 0; v < S; v++)
				tot += need[(size_t)s * S + v];
			for (uint32_t v = 0; v < S && !bad; v++) {
				int row = conv0 + 1 + (int)(si * S + v);
				glp_set_row_bnds(P, row, GLP_FX, 0, 0);
				/* out - in - (v == s ? tot : -need) lambda = 0 */
				double coef = v == s ? -tot : need[(size_t)s * S + v];
				if (coef != 0 && trip_add(&t, row, col_lambda, coef))
					bad = 1;
			}
			for (uint32_t u = 0; u < S && !bad; u++) {
				int node = f->switches[u];
				for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1] && !bad; k++) {
					uint32_t e = f->nodes[node].port_off + f->adj[k].lport;
					uint32_t v = f->adj[k].nbr;
					if (row_of[e] < 0 || v == u)
						continue;
					int col = 2 + (int)(si * (uint32_t)ncap) + row_of[e] - 1;
					if (trip_add(&t, row_of[e], col, 1) ||
					    trip_add(&t, conv0 + 1 + (int)(si * S + u), col, 1) ||
					    trip_add(&t, conv0 + 1 + (int)(si * S + v), col, -1))
						bad = 1;
				}
			}
		}
		free(srcs);
		free(sidx);
		free(need);
		if (bad)
			goto oom;
		for (int k = 1; k <= ncol; k++)
			glp_set_col_bnds(P, k, GLP_LO, 0, 0);
	}
	glp_set_obj_coef(P, col_lambda, 1);
	glp_load_matrix(P, (int)t.n, t.ia, t.ja, t.ar);
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	int sr = glp_simplex(P, &parm);
	if (sr != 0 || glp_get_status(P) != GLP_OPT) {
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
				   "GLPK could not solve the LP (simplex %d, status %d)", sr,
				   glp_get_status(P));
	} else {
		*lambda = glp_get_obj_val(P);
	}
	goto done;
oom:
	rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
done:
	glp_delete_prob(P);
	free(t.ia);
	free(t.ja);
	free(t.ar);
	free(row_of);
	return rc;
}
#endif

int ibf_sim_mat(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
		const struct ibf_sim_phase *ph, const struct ibf_mat_opts *o,
		struct ibf_mat_result *res, struct ibf_error *err)
{
	struct ibf_mat_opts def;
	if (!o) {
		ibf_mat_opts_default(&def);
		o = &def;
	}
	memset(res, 0, sizeof(*res));
	if (o->mode == IBF_MAT_ROUTING && !n->r)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "routing-constrained MAT needs tables");
#ifndef HAVE_GLPK
	if (o->method == IBF_MAT_LP)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "this build has no GLPK (install libglpk-dev and reconfigure)");
#endif
	struct comm c;
	double hb = INFINITY, dsum = 0;
	int rc = build(n, pl, ph, o->mode, &c, &hb, &dsum, err);
	if (rc)
		return rc;
	res->commodities = c.n;
	res->host_bound = hb;
	double lo = INFINITY, hi = INFINITY;
	if (o->method == IBF_MAT_LP) {
#ifdef HAVE_GLPK
		rc = lp(n, &c, o->mode, &lo, err);
		hi = lo;
		res->exact = 1;
#endif
	} else {
		rc = gk(n, &c, o->mode, o, hb, &lo, &hi, &res->phases, err);
	}
	comm_free(&c);
	if (rc)
		return rc;
	res->lo = lo < hb ? lo : hb;
	res->hi = hi < hb ? hi : hb;
	if (res->hi < res->lo)
		res->hi = res->lo;
	res->throughput_lo = res->lo * dsum;
	res->throughput_hi = res->hi * dsum;
	return 0;
}
