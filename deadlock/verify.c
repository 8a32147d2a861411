/* Independent deadlock verifier.
 *
 * Trusts nothing but the tables: the LFTs, the path SLs (per source port or
 * per source switch) and the switches' SL2VL tables.  It does not use the
 * schemes' CDG code or results.  For every source port (switch port 0s and
 * CA/router ports cabled to a switch), every destination LID and every SL
 * the source uses towards it, the packet is walked hop by hop; at each
 * switch the VL of the out channel is SL2VL[in port][out port][SL], so the
 * vertices are virtual channels (switch-to-switch channel, VL) and VL
 * changes along a path (the colouring scheme) are followed exactly.
 * Consecutive virtual channels give a dependency.  A cycle exists iff some
 * strongly connected component (Tarjan) has more than one vertex or a
 * self-loop; one shortest cycle per such component is extracted, and for
 * each of its dependencies a path that induces it is looked up again in the
 * tables.
 *
 * Memory: a bit per (dependency between channels, VL pair): channels x
 * degree x 256 bits; per-DLID work is O(sources + switches x hops) with a
 * memo on (channel, SL, VL entered on): the rest of a walk only depends on
 * (channel, SL), the next dependency also on the VL. */
#include "ibf_deadlock.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NVL 16

struct ver {
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	const struct ibf_sl_table *sl;
	const struct ibf_sl2vl_table *s2v;
	uint32_t nsw, nch;
	const int32_t *portlink; /* port id -> channel (fabric->port_adj) */
	uint64_t *eoff;		 /* [nch + 1] */
	uint8_t *bits;		 /* [eoff[nch] * 256 / 8] */
	uint8_t *used;		 /* [nch * 16] vertex used */
	struct ibf_lidmap m;
	/* sources */
	uint32_t nsrc;
	uint32_t *src_sw;
	uint8_t *src_in; /* in port at the switch: 0 = the switch itself */
	int32_t *src_node;
	uint8_t *src_port;
	int32_t *src_row; /* SL table row, -1 none */
	uint8_t *loop;	  /* [nsw] per DLID */
	uint8_t *state;
	uint32_t *stack;
	uint32_t *memo;	   /* [nch * 16] stamp = dlid, per (channel, SL) */
	uint16_t *memo_vl; /* [nch * 16] VLs the channel was entered on under that stamp */
};

static void ver_free(struct ver *v)
{
	free(v->eoff);
	free(v->bits);
	free(v->used);
	free(v->src_sw);
	free(v->src_in);
	free(v->src_node);
	free(v->src_port);
	free(v->src_row);
	free(v->loop);
	free(v->state);
	free(v->stack);
	free(v->memo);
	free(v->memo_vl);
	ibf_lidmap_free(&v->m);
}

void ibf_verify_opts_default(struct ibf_verify_opts *o)
{
	o->max_cycles = 16;
	o->threads = 1;
}

void ibf_verify_report_free(struct ibf_verify_report *rep)
{
	if (!rep)
		return;
	for (int i = 0; i < rep->ncycles; i++) {
		free(rep->cycles[i].hop);
		free(rep->cycles[i].path);
	}
	free(rep->cycles);
	rep->cycles = NULL;
	rep->ncycles = 0;
}

/* SL2VL entry, IBF_VL_NONE when not given */
static inline uint8_t s2v_get(const struct ver *v, uint32_t s, unsigned in, unsigned out,
			      unsigned sl)
{
	return ibf_sl2vl_get(v->f, v->s2v, s, in, out, sl);
}

static inline unsigned lft_get(const struct ver *v, uint32_t s, uint32_t d)
{
	return v->r->lft[(size_t)s * v->r->stride + d];
}

/* channel out of switch s by port p, -1 when p does not lead to a switch */
static inline int32_t chan(const struct ver *v, uint32_t s, unsigned p)
{
	const struct ibf_node *n = &v->f->nodes[v->f->switches[s]];
	if (p == 0 || p > n->nports)
		return -1;
	return v->portlink[n->port_off + p];
}

/* Port p of switch s is a loopback cable (to another port of s itself):
 * no channel of the switch graph, but a route into it comes back to s
 * and takes the same entry again, for good. */
static int loopback(const struct ver *v, uint32_t s, unsigned p)
{
	int node = v->f->switches[s];
	const struct ibf_node *n = &v->f->nodes[node];
	return p >= 1 && p <= (unsigned)n->nports && v->f->ports[n->port_off + p].peer_node == node;
}

static inline uint64_t dep_bit(const struct ver *v, int32_t c1, unsigned vl1, int32_t c2,
			       unsigned vl2)
{
	uint32_t y = v->f->adj[c1].nbr;
	uint64_t e = v->eoff[c1] + (uint64_t)((uint32_t)c2 - v->f->adj_off[y]);
	return e * (NVL * NVL) + vl1 * NVL + vl2;
}

static uint16_t source_mask(const struct ver *v, uint32_t i, uint32_t d)
{
	int32_t row = v->sl->per_port ? v->src_row[i] : (int32_t)v->src_sw[i];
	if (row < 0 || (uint32_t)row >= v->sl->nrows || d >= v->sl->stride)
		return 0;
	return v->sl->mask[(size_t)row * v->sl->stride + d];
}

static int ver_init(struct ver *v, struct ibf_error *err)
{
	const struct ibf_fabric *f = v->f;
	v->nsw = f->nsw;
	v->nch = f->adj_off[f->nsw];
	int rc = ibf_lidmap_build(f, &v->m, err);
	if (rc)
		return rc;
	v->portlink = f->port_adj;
	v->eoff = malloc(((size_t)v->nch + 1) * sizeof(*v->eoff));
	v->used = calloc((size_t)v->nch * NVL + 1, 1);
	v->memo = calloc((size_t)v->nch * NVL + 1, sizeof(*v->memo));
	v->memo_vl = calloc((size_t)v->nch * NVL + 1, sizeof(*v->memo_vl));
	v->loop = malloc((size_t)v->nsw + 1);
	v->state = malloc((size_t)v->nsw + 1);
	v->stack = malloc(((size_t)v->nsw + 1) * sizeof(*v->stack));
	size_t ns = (size_t)f->nsw + f->nports_total + 1;
	v->src_sw = malloc(ns * sizeof(*v->src_sw));
	v->src_in = malloc(ns);
	v->src_node = malloc(ns * sizeof(*v->src_node));
	v->src_port = malloc(ns);
	v->src_row = malloc(ns * sizeof(*v->src_row));
	if (!v->eoff || !v->used || !v->memo || !v->memo_vl || !v->loop || !v->state || !v->stack ||
	    !v->src_sw || !v->src_in || !v->src_node || !v->src_port || !v->src_row)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "verify: out of memory");
	uint64_t e = 0;
	for (uint32_t c = 0; c < v->nch; c++) {
		v->eoff[c] = e;
		uint32_t y = f->adj[c].nbr;
		e += f->adj_off[y + 1] - f->adj_off[y];
	}
	v->eoff[v->nch] = e;
	v->bits = calloc((size_t)(e * NVL * NVL / 8) + 1, 1);
	if (!v->bits)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0,
				     "verify: out of memory for %llu dependency bits",
				     (unsigned long long)(e * NVL * NVL));
	/* sources: switch port 0 (with a LID), CA/router ports cabled to a switch */
	v->nsrc = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH) {
			if (!ibf_port(f, (int)i, 0)->lid)
				continue;
			v->src_sw[v->nsrc] = (uint32_t)n->sw;
			v->src_in[v->nsrc] = 0;
			v->src_node[v->nsrc] = (int32_t)i;
			v->src_port[v->nsrc] = 0;
			v->nsrc++;
			continue;
		}
		for (int p = 1; p <= n->nports; p++) {
			int swp;
			int sn = ibf_port_switch(f, (int)i, p, &swp);
			if (sn < 0 || !ibf_port(f, (int)i, p)->lid)
				continue;
			v->src_sw[v->nsrc] = (uint32_t)f->nodes[sn].sw;
			v->src_in[v->nsrc] = (uint8_t)swp;
			v->src_node[v->nsrc] = (int32_t)i;
			v->src_port[v->nsrc] = (uint8_t)p;
			v->nsrc++;
		}
	}
	for (uint32_t i = 0; i < v->nsrc; i++) {
		v->src_row[i] = -1;
		if (v->sl->per_port && v->sl->port_row) {
			uint32_t pid = f->nodes[v->src_node[i]].port_off + v->src_port[i];
			v->src_row[i] = v->sl->port_row[pid];
		}
	}
	return 0;
}

/* Per DLID: loop[s] = 1 when the walk from switch s never ends. */
static void mark_loops(struct ver *v, uint32_t d)
{
	enum { NEW, OPEN, DONE };
	memset(v->state, NEW, v->nsw);
	for (uint32_t s0 = 0; s0 < v->nsw; s0++) {
		if (v->state[s0] == DONE)
			continue;
		uint32_t sp = 0, cur = s0;
		int lp = 0;
		for (;;) {
			if (v->state[cur] == DONE) {
				lp = v->loop[cur];
				break;
			}
			if (v->state[cur] == OPEN) {
				lp = 1;
				break;
			}
			v->state[cur] = OPEN;
			v->stack[sp++] = cur;
			unsigned p = lft_get(v, cur, d);
			int32_t c = chan(v, cur, p);
			if (c < 0) {
				/* a loopback cable is no channel: the walk ended there
				 * as if delivered, and tables that send a LID round
				 * it (a credit loop of one buffer, which the packet
				 * simulator locks) passed as deadlock-free */
				lp = loopback(v, cur, p);
				break;
			}
			cur = v->f->adj[c].nbr;
		}
		while (sp) {
			uint32_t s = v->stack[--sp];
			v->loop[s] = (uint8_t)lp;
			v->state[s] = DONE;
		}
	}
}

static int walk_hops(const struct ver *v, uint32_t s, uint32_t d)
{
	int h = 0;
	int32_t c = chan(v, s, lft_get(v, s, d));
	while (c >= 0 && h <= (int)v->nsw) {
		h++;
		c = chan(v, v->f->adj[c].nbr, lft_get(v, v->f->adj[c].nbr, d));
	}
	return h;
}

static void add_example(struct ibf_verify_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_example(struct ibf_verify_report *rep, const char *fmt, ...)
{
	if (rep->nexamples >= 8)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->examples[rep->nexamples++], sizeof(rep->examples[0]), fmt, ap);
	va_end(ap);
}

static const char *node_name(const struct ibf_fabric *f, int node)
{
	const struct ibf_node *n = &f->nodes[node];
	return n->desc && n->desc[0] ? n->desc : (n->id ? n->id : "?");
}

/* Walk source i towards d with SL sl and record the dependencies. */
static void walk_record(struct ver *v, uint32_t i, uint32_t d, unsigned sl,
			struct ibf_verify_report *rep)
{
	uint32_t cur = v->src_sw[i];
	unsigned in = v->src_in[i];
	int32_t prev = -1;
	unsigned pvl = 0;
	for (uint32_t steps = 0; steps <= v->nsw; steps++) {
		unsigned p = lft_get(v, cur, d);
		int32_t c = chan(v, cur, p);
		if (c < 0) {
			/* out to an end port (or nowhere): no dependency, but a
			 * packet sent to VL 15 on the last hop is dropped too */
			const struct ibf_node *n = &v->f->nodes[v->f->switches[cur]];
			if (p >= 1 && p <= n->nports &&
			    ibf_port(v->f, (int)v->f->switches[cur], (int)p)->peer_node !=
				    IBF_NO_NODE &&
			    s2v_get(v, cur, in, p, sl) == 15) {
				rep->vl15++;
				add_example(rep,
					    "SL2VL sends data to VL 15 (dropped): switch '%s' in %u "
					    "out %u SL %u (to an end port)",
					    node_name(v->f, v->f->switches[cur]), in, p, sl);
			}
			return;
		}
		uint8_t vl = s2v_get(v, cur, in, p, sl);
		if (vl == IBF_VL_NONE || vl >= NVL) {
			rep->missing_sl2vl++;
			add_example(rep, "no SL2VL entry: switch '%s' in %u out %u SL %u",
				    node_name(v->f, v->f->switches[cur]), in, p, sl);
			return;
		}
		if (vl == 15) { /* management VL: a data packet is dropped here */
			rep->vl15++;
			add_example(
				rep,
				"SL2VL sends data to VL 15 (dropped): switch '%s' in %u out %u SL %u",
				node_name(v->f, v->f->switches[cur]), in, p, sl);
			return;
		}
		v->used[(size_t)c * NVL + vl] = 1;
		rep->vl_mask |= 1u << vl;
		if (prev >= 0) {
			uint64_t b = dep_bit(v, prev, pvl, c, vl);
			v->bits[b >> 3] |= (uint8_t)(1u << (b & 7));
		}
		/* The rest of the walk (its channels and their VLs) depends only on
		 * (c, SL), but the next dependency starts from (c, vl): the VL of c
		 * can differ between walks (SL2VL by in port), so stop only when c
		 * was already entered on this very VL. */
		size_t mi = (size_t)c * NVL + sl;
		if (v->memo[mi] != d) {
			v->memo[mi] = d;
			v->memo_vl[mi] = 0;
		}
		if (v->memo_vl[mi] >> vl & 1)
			return;
		v->memo_vl[mi] |= (uint16_t)(1u << vl);
		prev = c;
		pvl = vl;
		in = v->f->adj[c].rport;
		cur = v->f->adj[c].nbr;
	}
}

/* ------------------------------------------------------------ cycles */

struct graph {
	uint64_t nv;
	uint64_t *start; /* [nv + 1] */
	uint32_t *to;
};

static int build_graph(const struct ver *v, struct graph *g, uint64_t *ndeps)
{
	g->nv = (uint64_t)v->nch * NVL;
	g->start = calloc(g->nv + 1, sizeof(*g->start));
	if (!g->start)
		return -1;
	uint64_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (uint32_t c = 0; c < v->nch; c++) {
			uint32_t y = v->f->adj[c].nbr;
			for (unsigned vl = 0; vl < NVL; vl++) {
				uint64_t u = (uint64_t)c * NVL + vl;
				if (pass == 0)
					g->start[u] = n;
				for (uint64_t e = v->eoff[c]; e < v->eoff[c + 1]; e++) {
					uint32_t c2 = v->f->adj_off[y] + (uint32_t)(e - v->eoff[c]);
					for (unsigned vl2 = 0; vl2 < NVL; vl2++) {
						uint64_t b = e * (NVL * NVL) + vl * NVL + vl2;
						if (!(v->bits[b >> 3] >> (b & 7) & 1))
							continue;
						if (pass == 1)
							g->to[n] = c2 * NVL + vl2;
						n++;
					}
				}
			}
		}
		if (pass == 0) {
			g->start[g->nv] = n;
			g->to = malloc((n + 1) * sizeof(*g->to));
			if (!g->to)
				return -1;
		}
	}
	*ndeps = n;
	return 0;
}

/* Find a path from one of source i's walks towards some DLID that induces
 * dependency (c1, vl1) -> (c2, vl2). */
static int find_inducer(const struct ver *v, uint32_t c1, unsigned vl1, uint32_t c2, unsigned vl2,
			struct ibf_vpath *out)
{
	const struct ibf_fabric *f = v->f;
	uint32_t x = 0;
	while (x + 1 <= f->nsw && f->adj_off[x + 1] <= c1)
		x++;
	uint32_t y = f->adj[c1].nbr;
	unsigned p = f->adj[c1].lport, q = f->adj[c2].lport;
	for (uint32_t d = 1; d < v->r->stride; d++) {
		if (lft_get(v, x, d) != p || lft_get(v, y, d) != q)
			continue;
		for (uint32_t i = 0; i < v->nsrc; i++) {
			uint16_t mask = source_mask(v, i, d);
			for (unsigned sl = 0; mask && sl < NVL; sl++) {
				if (!(mask >> sl & 1))
					continue;
				uint32_t cur = v->src_sw[i];
				unsigned in = v->src_in[i];
				int32_t prev = -1;
				unsigned pvl = 0;
				for (uint32_t steps = 0; steps <= v->nsw; steps++) {
					unsigned pp = lft_get(v, cur, d);
					int32_t c = chan(v, cur, pp);
					if (c < 0)
						break;
					uint8_t vl = s2v_get(v, cur, in, pp, sl);
					if (vl == IBF_VL_NONE)
						break;
					if (prev == (int32_t)c1 && pvl == vl1 && c == (int32_t)c2 &&
					    vl == vl2) {
						out->src_node = v->src_node[i];
						out->src_port = v->src_port[i];
						out->sl = (uint8_t)sl;
						out->dlid = d;
						return 1;
					}
					prev = c;
					pvl = vl;
					in = f->adj[c].rport;
					cur = f->adj[c].nbr;
				}
			}
		}
	}
	return 0;
}

/* Shortest cycle through vertex s inside the SCC marked comp == cid. */
static int extract_cycle(const struct ver *v, const struct graph *g, const uint32_t *comp,
			 uint32_t cid, uint32_t s, struct ibf_dl_cycle *cy)
{
	uint32_t *parent = malloc(g->nv * sizeof(*parent));
	uint32_t *queue = malloc(g->nv * sizeof(*queue));
	if (!parent || !queue) {
		free(parent);
		free(queue);
		return -1;
	}
	for (uint64_t i = 0; i < g->nv; i++)
		parent[i] = UINT32_MAX;
	uint32_t qh = 0, qt = 0, last = UINT32_MAX;
	queue[qt++] = s;
	while (qh < qt && last == UINT32_MAX) {
		uint32_t u = queue[qh++];
		for (uint64_t k = g->start[u]; k < g->start[u + 1]; k++) {
			uint32_t w = g->to[k];
			if (comp[w] != cid)
				continue;
			if (w == s) {
				last = u;
				break;
			}
			if (parent[w] == UINT32_MAX) {
				parent[w] = u;
				queue[qt++] = w;
			}
		}
	}
	int len = 0;
	if (last != UINT32_MAX) {
		for (uint32_t u = last; u != s; u = parent[u])
			len++;
		len++;
	}
	cy->len = len;
	cy->hop = calloc((size_t)len + 1, sizeof(*cy->hop));
	cy->path = calloc((size_t)len + 1, sizeof(*cy->path));
	if (!cy->hop || !cy->path) {
		free(parent);
		free(queue);
		return -1;
	}
	uint32_t u = last;
	for (int k = len - 1; k >= 0; k--) {
		uint32_t c = u / NVL;
		uint32_t sw = 0;
		while (sw + 1 <= v->f->nsw && v->f->adj_off[sw + 1] <= c)
			sw++;
		cy->hop[k].sw = sw;
		cy->hop[k].port = v->f->adj[c].lport;
		cy->hop[k].vl = (uint8_t)(u % NVL);
		cy->path[k].src_node = -1;
		if (k > 0)
			u = parent[u];
	}
	for (int k = 0; k < len; k++) {
		uint32_t b;
		/* hop k -> hop k+1 */
		const struct ibf_vchan *h1 = &cy->hop[k], *h2 = &cy->hop[(k + 1) % len];
		uint32_t c1 =
			(uint32_t)v
				->portlink[v->f->nodes[v->f->switches[h1->sw]].port_off + h1->port];
		b = (uint32_t)v->portlink[v->f->nodes[v->f->switches[h2->sw]].port_off + h2->port];
		find_inducer(v, c1, h1->vl, b, h2->vl, &cy->path[k]);
	}
	free(parent);
	free(queue);
	return 0;
}

static int find_cycles(const struct ver *v, const struct ibf_verify_opts *o,
		       struct ibf_verify_report *rep, struct ibf_error *err)
{
	struct graph g;
	memset(&g, 0, sizeof(g));
	uint64_t nd = 0;
	int rc = 0;
	uint64_t nv = (uint64_t)v->nch * NVL;
	int32_t *idx = malloc((nv + 1) * sizeof(*idx));
	int32_t *low = malloc((nv + 1) * sizeof(*low));
	uint8_t *onst = calloc(nv + 1, 1);
	uint32_t *ts = malloc((nv + 1) * sizeof(*ts));
	uint32_t *cs = malloc((nv + 1) * sizeof(*cs));
	uint64_t *it = malloc((nv + 1) * sizeof(*it));
	uint32_t *comp = malloc((nv + 1) * sizeof(*comp));
	if (!idx || !low || !onst || !ts || !cs || !it || !comp || build_graph(v, &g, &nd)) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "verify: out of memory");
		goto out;
	}
	rep->deps = nd;
	for (uint64_t u = 0; u < nv; u++) {
		idx[u] = -1;
		comp[u] = UINT32_MAX;
		if (v->used[u])
			rep->vchans++;
	}
	int32_t counter = 0;
	uint32_t tsp = 0, ncomp = 0;
	int maxc = o && o->max_cycles >= 0 ? o->max_cycles : 16;
	for (uint64_t root = 0; root < nv; root++) {
		if (idx[root] >= 0 || g.start[root] == g.start[root + 1])
			continue;
		uint32_t sp = 0;
		cs[sp] = (uint32_t)root;
		it[sp] = g.start[root];
		sp++;
		idx[root] = low[root] = counter++;
		ts[tsp++] = (uint32_t)root;
		onst[root] = 1;
		while (sp) {
			uint32_t u = cs[sp - 1];
			if (it[sp - 1] < g.start[u + 1]) {
				uint32_t w = g.to[it[sp - 1]++];
				if (idx[w] < 0) {
					idx[w] = low[w] = counter++;
					ts[tsp++] = w;
					onst[w] = 1;
					cs[sp] = w;
					it[sp] = g.start[w];
					sp++;
				} else if (onst[w] && idx[w] < low[u]) {
					low[u] = idx[w];
				}
				continue;
			}
			sp--;
			if (sp && low[u] < low[cs[sp - 1]])
				low[cs[sp - 1]] = low[u];
			if (low[u] != idx[u])
				continue;
			uint32_t base = tsp;
			do {
				base--;
				onst[ts[base]] = 0;
				comp[ts[base]] = ncomp;
			} while (ts[base] != u);
			uint32_t sz = tsp - base;
			int cyclic = sz > 1;
			if (!cyclic)
				for (uint64_t k = g.start[u]; k < g.start[u + 1]; k++)
					if (g.to[k] == u)
						cyclic = 1;
			if (cyclic) {
				rep->cyclic_sccs++;
				rep->cyclic_vchans += sz;
				if (rep->ncycles < maxc) {
					struct ibf_dl_cycle *nc =
						realloc(rep->cycles,
							((size_t)rep->ncycles + 1) * sizeof(*nc));
					if (!nc) {
						rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0,
								   "out of memory");
						goto out;
					}
					rep->cycles = nc;
					memset(&nc[rep->ncycles], 0, sizeof(*nc));
					/* smallest vertex of the SCC, for determinism */
					uint32_t sv = ts[base];
					for (uint32_t k = base; k < tsp; k++)
						if (ts[k] < sv)
							sv = ts[k];
					if (extract_cycle(v, &g, comp, ncomp, sv,
							  &nc[rep->ncycles])) {
						rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0,
								   "out of memory");
						goto out;
					}
					rep->ncycles++;
				}
			}
			ncomp++;
			tsp = base;
		}
	}
out:
	free(idx);
	free(low);
	free(onst);
	free(ts);
	free(cs);
	free(it);
	free(comp);
	free(g.start);
	free(g.to);
	return rc;
}

static void walk_all(struct ver *v, struct ibf_verify_report *rep, int ends);

int ibf_deadlock_verify(const struct ibf_fabric *f, const struct ibf_routes *r,
			const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v,
			const struct ibf_verify_opts *o, struct ibf_verify_report *rep,
			struct ibf_error *err)
{
	memset(rep, 0, sizeof(*rep));
	if (!f->finalized || r->nsw != f->nsw || !sl || !s2v || s2v->nsw != f->nsw)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "verify: tables do not match the fabric");
	struct ver v;
	memset(&v, 0, sizeof(v));
	v.f = f;
	v.r = r;
	v.sl = sl;
	v.s2v = s2v;
	int rc = ver_init(&v, err);
	if (rc)
		goto out;
	walk_all(&v, rep, 0);
	rc = find_cycles(&v, o, rep, err);
	if (!rc && rep->cyclic_sccs) {
		/* again over the paths between end ports only: are the cycles
		 * there without the switches' own traffic? */
		struct ibf_verify_report er;
		memset(&er, 0, sizeof(er));
		size_t nvc = (size_t)v.nch * NVL;
		memset(v.bits, 0, (size_t)(v.eoff[v.nch] * NVL * NVL / 8) + 1);
		memset(v.used, 0, nvc + 1);
		memset(v.memo, 0, (nvc + 1) * sizeof(*v.memo));
		memset(v.memo_vl, 0, (nvc + 1) * sizeof(*v.memo_vl));
		walk_all(&v, &er, 1);
		struct ibf_verify_opts eo = { .max_cycles = 0, .threads = 1 };
		rc = find_cycles(&v, &eo, &er, err);
		rep->ends_checked = 1;
		rep->ends_cyclic_sccs = er.cyclic_sccs;
		rep->ends_cyclic_vchans = er.cyclic_vchans;
		ibf_verify_report_free(&er);
	}
out:
	ver_free(&v);
	if (rc)
		ibf_verify_report_free(rep);
	return rc;
}

/* Walk every (source port, destination LID, SL) and record the
 * dependencies (ends: only CA/router ports towards CA/router port LIDs,
 * nothing counted but the dependencies). */
static void walk_all(struct ver *v, struct ibf_verify_report *rep, int ends)
{
	const struct ibf_fabric *f = v->f;
	uint32_t maxd = v->r->max_lid < v->m.max_lid ? v->r->max_lid : v->m.max_lid;
	for (uint32_t d = 1; d <= maxd; d++) {
		if (v->m.node[d] < 0)
			continue;
		if (ends && f->nodes[v->m.node[d]].type == IBF_NODE_SWITCH)
			continue;
		mark_loops(v, d);
		for (uint32_t i = 0; i < v->nsrc; i++) {
			if (v->m.node[d] == v->src_node[i] && v->m.port[d] == v->src_port[i])
				continue;
			if (ends && f->nodes[v->src_node[i]].type == IBF_NODE_SWITCH)
				continue;
			rep->pairs++;
			uint32_t s = v->src_sw[i];
			if (v->loop[s]) {
				rep->broken++;
				add_example(rep, "routes loop: '%s' -> LID %u",
					    node_name(f, f->switches[s]), d);
				continue;
			}
			uint16_t mask = source_mask(v, i, d);
			if (!mask) {
				rep->missing_sl++;
				if (walk_hops(v, s, d) >= 2) {
					rep->missing_sl_deps++;
					add_example(rep, "no SL: '%s' port %u -> LID %u",
						    node_name(f, v->src_node[i]), v->src_port[i], d);
				}
				continue;
			}
			rep->sl_mask |= mask;
			for (unsigned l = 0; l < NVL; l++)
				if (mask >> l & 1)
					walk_record(v, i, d, l, rep);
		}
	}
}

void ibf_verify_report_write(const struct ibf_fabric *f, const struct ibf_verify_report *rep,
			     FILE *out)
{
	fprintf(out, "pairs examined:        %llu (source port, destination LID)\n",
		(unsigned long long)rep->pairs);
	fprintf(out, "missing SL:            %llu (%llu with >= 2 switch hops)\n",
		(unsigned long long)rep->missing_sl, (unsigned long long)rep->missing_sl_deps);
	fprintf(out, "missing SL2VL entries: %llu\n", (unsigned long long)rep->missing_sl2vl);
	fprintf(out, "looping pairs:         %llu\n", (unsigned long long)rep->broken);
	if (rep->vl15)
		fprintf(out,
			"hops on VL 15:         %llu (SL2VL sends data to the management VL: dropped)\n",
			(unsigned long long)rep->vl15);
	fprintf(out, "virtual channels:      %llu used, %llu dependencies\n",
		(unsigned long long)rep->vchans, (unsigned long long)rep->deps);
	fprintf(out, "SLs used:             ");
	for (int i = 0; i < 16; i++)
		if (rep->sl_mask >> i & 1)
			fprintf(out, " %d", i);
	fprintf(out, "\nVLs used:             ");
	int nvl = 0;
	for (int i = 0; i < 16; i++)
		if (rep->vl_mask >> i & 1) {
			fprintf(out, " %d", i);
			nvl++;
		}
	fprintf(out, " (%d on switch-to-switch channels)\n", nvl);
	fprintf(out,
		"cycles:                %llu cyclic component(s), %llu virtual channels in them\n",
		(unsigned long long)rep->cyclic_sccs, (unsigned long long)rep->cyclic_vchans);
	if (rep->ends_checked && rep->ends_cyclic_sccs)
		fprintf(out,
			"between end ports:     %llu cyclic component(s), %llu virtual channels in "
			"them (the paths between CA/router ports alone are cyclic too)\n",
			(unsigned long long)rep->ends_cyclic_sccs,
			(unsigned long long)rep->ends_cyclic_vchans);
	else if (rep->ends_checked)
		fprintf(out, "between end ports:     no cycle (every cycle needs a path from or to "
			     "a switch's port 0: the switches' own management traffic)\n");
	for (int i = 0; i < rep->ncycles; i++) {
		const struct ibf_dl_cycle *cy = &rep->cycles[i];
		fprintf(out, "cycle %d: %d dependencies\n", i + 1, cy->len);
		for (int k = 0; k < cy->len; k++) {
			const struct ibf_vchan *h1 = &cy->hop[k], *h2 = &cy->hop[(k + 1) % cy->len];
			int n1 = f->switches[h1->sw], n2 = f->switches[h2->sw];
			fprintf(out, "  '%s' port %u VL %u -> '%s' port %u VL %u", node_name(f, n1),
				h1->port, h1->vl, node_name(f, n2), h2->port, h2->vl);
			const struct ibf_vpath *p = &cy->path[k];
			if (p->src_node >= 0)
				fprintf(out, "  by path '%s' port %u -> LID %u (0x%04x) SL %u\n",
					node_name(f, p->src_node), p->src_port, p->dlid, p->dlid,
					p->sl);
			else
				fprintf(out, "\n");
		}
	}
	for (int i = 0; i < rep->nexamples; i++)
		fprintf(out, "  %s\n", rep->examples[i]);
	fprintf(out, "result:                %s\n",
		ibf_verify_ok(rep) ? "deadlock-free" : "NOT deadlock-free");
}
