/* Setup of the minimal and layered engines' run (engine_core.c): the
 * destination list, the link tables, all-pairs switch distances, the
 * possible-path tables of the layered engine, per-worker workspaces, and the
 * engines' log helper. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "engine_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eng_log(const struct ibf_route_opts *o, int level, const char *fmt, ...)
{
	if (!o)
		return;
	va_list ap;
	va_start(ap, fmt);
	ibf_vlogf(o->log, o->log_ctx, level, fmt, ap);
	va_end(ap);
}

void eng_ws_free(struct eng_ws *ws)
{
	free(ws->delta);
	free(ws->touched);
	free(ws->order);
	free(ws->tmp);
	free(ws->acc);
	free(ws->len);
	free(ws->fixed);
	free(ws->level);
	free(ws->nopath);
	free(ws->nxt);
	free(ws->mark);
	free(ws->bucket);
	free(ws->down_off);
	free(ws->down);
	free(ws->bcount);
	free(ws->xdelta);
	free(ws->xflag);
	free(ws->xtouched);
	free(ws->rlen);
	free(ws->fc);
	free(ws->sib);
	free(ws->cst);
	free(ws->dst);
	free(ws->cb);
	free(ws->db);
	free(ws->tcost);
	free(ws->tstamp);
	free(ws->lbnd);
	free(ws->lstamp);
	free(ws->lexact);
	free(ws->opt_e);
	free(ws->opt_off);
	free(ws->opt_n);
	free(ws->opt_stamp);
	memset(ws, 0, sizeof(*ws));
}

int eng_ws_init(struct eng_ws *ws, const struct eng_ctx *c, uint32_t maxlids)
{
	size_t S = c->S ? c->S : 1, E = c->E ? c->E : 1;
	memset(ws, 0, sizeof(*ws));
	ws->delta = calloc(E, sizeof(*ws->delta));
	ws->touched = malloc(E * sizeof(*ws->touched));
	ws->order = malloc(S * sizeof(*ws->order));
	ws->tmp = malloc(S * sizeof(*ws->tmp));
	ws->acc = malloc(S * sizeof(*ws->acc));
	ws->len = malloc(S * sizeof(*ws->len));
	ws->fixed = malloc(S);
	ws->level = calloc(S, sizeof(*ws->level));
	ws->nopath = calloc(S, 1);
	ws->nxt = malloc(S * maxlids * sizeof(*ws->nxt));
	ws->mark = calloc(E, sizeof(*ws->mark));
	ws->bucket = malloc(S * sizeof(*ws->bucket));
	ws->down_off = malloc((S + 1) * sizeof(*ws->down_off));
	ws->down = malloc(E * sizeof(*ws->down));
	/* counting sorts: by distance (diam + 3), by path length (< S + 2) and
	 * by level up to the LID index of the unit (maxlids + 3) */
	ws->bcount = malloc(((size_t)c->diam + 4400 + S + maxlids) * sizeof(*ws->bcount));
	size_t XE = E * (c->xplanes ? c->xplanes : 1);
	ws->xdelta = calloc(XE, sizeof(*ws->xdelta));
	ws->xflag = calloc(XE, 1);
	ws->xtouched = malloc(XE * sizeof(*ws->xtouched));
	ws->rlen = malloc(S * maxlids * sizeof(*ws->rlen));
	ws->fc = malloc(S * sizeof(*ws->fc));
	ws->sib = malloc(S * sizeof(*ws->sib));
	ws->cst = calloc(E, sizeof(*ws->cst));
	ws->dst = calloc(E, sizeof(*ws->dst));
	ws->cb = malloc(E * sizeof(*ws->cb));
	ws->db = malloc(E * sizeof(*ws->db));
	ws->tcost = malloc(S * sizeof(*ws->tcost));
	ws->tstamp = calloc(S, sizeof(*ws->tstamp));
	ws->lbnd = malloc(S * ENG_PMAX * sizeof(*ws->lbnd));
	ws->lstamp = calloc(S * ENG_PMAX, sizeof(*ws->lstamp));
	ws->lexact = malloc(S * ENG_PMAX);
	ws->opt_e = malloc(E * ENG_PMAX * sizeof(*ws->opt_e));
	ws->opt_off = malloc(S * ENG_PMAX * sizeof(*ws->opt_off));
	ws->opt_n = malloc(S * ENG_PMAX * sizeof(*ws->opt_n));
	ws->opt_stamp = calloc(S * ENG_PMAX, sizeof(*ws->opt_stamp));
	if (!ws->tcost || !ws->tstamp || !ws->lbnd || !ws->lstamp || !ws->lexact ||
	    !ws->opt_e || !ws->opt_off || !ws->opt_n || !ws->opt_stamp ||
	    !ws->delta || !ws->touched || !ws->order || !ws->tmp || !ws->acc || !ws->len ||
	    !ws->fixed || !ws->level || !ws->nopath || !ws->nxt || !ws->mark || !ws->bucket ||
	    !ws->down_off || !ws->down || !ws->bcount || !ws->xdelta || !ws->xflag ||
	    !ws->xtouched || !ws->rlen || !ws->fc || !ws->sib || !ws->cst || !ws->dst || !ws->cb ||
	    !ws->db) {
		eng_ws_free(ws);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- setup */

void eng_ctx_free(struct eng_ctx *c)
{
	free(c->und);
	free(c->dist);
	free(c->hosts);
	free(c->dest);
	free(c->W);
	free(c->possible);
	free(c->X);
	free(c->winlo);
	free(c->winhi);
	free(c->hca);
	free(c->lw);
	free(c->lid_dest);
	eng_seed_free(c);
	for (unsigned i = 0; i < ENG_ROUND; i++) {
		free(c->out[i].e);
		free(c->out[i].w);
		free(c->out[i].xe);
		free(c->out[i].xw);
	}
}

static int add_dest(struct eng_ctx *c, uint32_t *cap, const struct eng_dest *d)
{
	if (c->ndest == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 256;
		struct eng_dest *nd = realloc(c->dest, nc * sizeof(*nd));
		if (!nd)
			return -1;
		c->dest = nd;
		*cap = nc;
	}
	c->dest[c->ndest++] = *d;
	return 0;
}

struct dest_key {
	uint64_t key;
	uint32_t idx;
};

static int cmp_key(const void *a, const void *b)
{
	const struct dest_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

int eng_build_dests(struct eng_ctx *c, struct ibf_error *err, uint32_t *maxlids, int *maxlmc)
{
	const struct ibf_fabric *f = c->f;
	uint32_t cap = 0;
	*maxlids = 1;
	*maxlmc = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH) {
			const struct ibf_port *pp = ibf_port(f, (int)i, 0);
			if (!pp->lid)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "switch '%s' has no LID (assign LIDs first)",
						     n->desc ? n->desc : "?");
			struct eng_dest d = { (int32_t)i,   0, 0, 1, (uint32_t)n->sw, pp->lid,
					      1u << pp->lmc, 0 };
			if (add_dest(c, &cap, &d))
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			c->hosts[n->sw]++;
			continue;
		}
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			int swp = 0;
			int swn = ibf_port_switch(f, (int)i, p, &swp);
			if (swn < 0) {
				eng_log(c->o, IBF_LOG_VERBOSE,
					"'%s' port %d does not face a switch; not routed",
					n->desc ? n->desc : "?", p);
				continue;
			}
			if (!pp->lid)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "'%s' port %d has no LID (assign LIDs first)",
						     n->desc ? n->desc : "?", p);
			struct eng_dest d = { (int32_t)i,
					      (uint8_t)p,
					      (uint8_t)swp,
					      0,
					      (uint32_t)f->nodes[swn].sw,
					      pp->lid,
					      1u << pp->lmc,
					      0 };
			if (add_dest(c, &cap, &d))
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			c->hosts[d.t]++;
			if (pp->lmc > *maxlmc)
				*maxlmc = pp->lmc;
		}
	}
	for (uint32_t i = 0; i < c->ndest; i++) {
		const struct eng_dest *d = &c->dest[i];
		if ((uint64_t)d->lid + d->nlids - 1 > c->r->max_lid)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "LID %u above the route table's max LID %u", d->lid,
					     c->r->max_lid);
		if (d->nlids > *maxlids)
			*maxlids = d->nlids;
		if (d->is_sw && d->nlids > 1 && (int)__builtin_ctz(d->nlids) > *maxlmc)
			*maxlmc = __builtin_ctz(d->nlids);
	}
	/* stable reroutes: the caller keeps the columns of these LIDs from the
	 * previous tables; a destination with every LID kept is not routed
	 * (counted in hosts[] above all the same) */
	if (c->o->lid_keep) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < c->ndest; i++) {
			const struct eng_dest *d = &c->dest[i];
			uint32_t kept = 0;
			for (uint32_t j = 0; j < d->nlids; j++)
				kept += d->lid + j < c->o->nlid_keep && c->o->lid_keep[d->lid + j];
			if (kept < d->nlids)
				c->dest[k++] = *d;
		}
		c->ndest = k;
	}
	/* Interleave destinations over switches (first port of every switch,
	 * then the second, ...) so the units of one round spread their load
	 * over the fabric instead of crowding the links into one switch. */
	if (c->ndest > 1) {
		struct dest_key *k = malloc(c->ndest * sizeof(*k));
		uint32_t *rank = calloc(c->S ? c->S : 1, sizeof(*rank));
		struct eng_dest *nd = malloc(c->ndest * sizeof(*nd));
		if (!k || !rank || !nd) {
			free(k);
			free(rank);
			free(nd);
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		}
		for (uint32_t i = 0; i < c->ndest; i++) {
			const struct eng_dest *d = &c->dest[i];
			uint32_t rk = d->is_sw ? 0xffffu : rank[d->t]++;
			k[i].key = ((uint64_t)rk << 32) | d->t;
			k[i].idx = i;
		}
		qsort(k, c->ndest, sizeof(*k), cmp_key);
		for (uint32_t i = 0; i < c->ndest; i++) {
			nd[i] = c->dest[k[i].idx];
			nd[i].rank = nd[i].is_sw ? 0 : (uint32_t)(k[i].key >> 32);
		}
		free(c->dest);
		c->dest = nd;
		free(k);
		free(rank);
	}
	return 0;
}

int eng_build_links(struct eng_ctx *c, struct ibf_error *err)
{
	const struct ibf_fabric *f = c->f;
	uint32_t E = c->E;
	c->esrc = f->adj_src; /* the fabric's own link indexes */
	c->rev = f->adj_rev;
	c->und = malloc((E ? E : 1) * sizeof(*c->und));
	c->W = calloc(E ? E : 1, sizeof(*c->W));
	c->X = calloc(E ? (size_t)E * c->xplanes : 1, sizeof(*c->X));
	if (!c->esrc || !c->rev || !c->und || !c->W || !c->X)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t e = 0; e < E; e++)
		c->und[e] = (c->rev[e] != ENG_NOLINK && c->rev[e] < e) ? c->rev[e] : e;
	return 0;
}

/* a port's data rate in 0.1 Gb/s, 0 when its width or speed is unknown */
static uint32_t port_rate(const struct ibf_fabric *f, int node, int port)
{
	const struct ibf_port *pp = ibf_port(f, node, port);
	return (uint32_t)pp->width * ibf_speed_rate(pp->speed);
}

uint32_t ibf_cable_rate(const struct ibf_fabric *f, int node, int port)
{
	const struct ibf_port *pp = ibf_port(f, node, port);
	uint32_t x = port_rate(f, node, port);
	uint32_t y = pp->peer_node == IBF_NO_NODE ? 0 : port_rate(f, pp->peer_node, pp->peer_port);
	return x && y ? (x < y ? x : y) : x ? x : y;
}

int ibf_link_rate_weights(const struct ibf_fabric *f, uint32_t *lw)
{
	uint32_t E = f->adj_off ? f->adj_off[f->nsw] : 0;
	/* pass 1: each link's rate into lw, the fastest into top */
	uint64_t top = 0;
	for (uint32_t e = 0; e < E; e++) {
		const struct ibf_adj *a = &f->adj[e];
		uint32_t x = port_rate(f, f->switches[f->adj_src[e]], a->lport);
		uint32_t y = port_rate(f, f->switches[a->nbr], a->rport);
		lw[e] = x && y ? (x < y ? x : y) : x ? x : y;
		if (lw[e] > top)
			top = lw[e];
	}
	/* pass 2: the rate becomes top / rate, rounded (halves up) */
	int any = 0;
	for (uint32_t e = 0; e < E; e++) {
		uint64_t w = lw[e] ? (2 * top + lw[e]) / (2 * (uint64_t)lw[e]) : 1;
		if (w < 1)
			w = 1;
		if (w > IBF_MAX_RATE_WEIGHT)
			w = IBF_MAX_RATE_WEIGHT;
		any |= w > 1;
		lw[e] = (uint32_t)w;
	}
	return any;
}

int eng_build_rates(struct eng_ctx *c, struct ibf_error *err)
{
	uint32_t E = c->E, P = c->xplanes ? c->xplanes : 1;
	c->lw = malloc((E ? (size_t)E * P : 1) * sizeof(*c->lw));
	if (!c->lw)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	int any = ibf_link_rate_weights(c->f, c->lw);
	/* the same weights on every plane of X */
	for (uint32_t p = 1; p < P; p++)
		memcpy(c->lw + (size_t)p * E, c->lw, (size_t)E * sizeof(*c->lw));
	return any;
}

uint32_t ibf_typical_diameter(const uint64_t *hist, uint32_t maxd)
{
	uint64_t tot = 0, acc = 0;
	for (uint32_t k = 0; k <= maxd; k++)
		tot += hist[k];
	for (uint32_t k = 0; k <= maxd; k++) {
		acc += hist[k];
		if (acc * 100 >= tot * 90)
			return k;
	}
	return maxd;
}

int eng_build_dist(struct eng_ctx *c, struct ibf_error *err)
{
	uint32_t S = c->S;
	if (S >= ENG_DIST_INF)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0, "%u switches: too many", S);
	size_t nn = (size_t)S * S;
	c->dist = malloc((nn ? nn : 1) * sizeof(*c->dist));
	uint32_t *d = malloc((S ? S : 1) * sizeof(*d));
	uint32_t *q = malloc((S ? S : 1) * sizeof(*q));
	if (!c->dist || !d || !q) {
		free(d);
		free(q);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0,
				     "out of memory for %u x %u switch distances", S, S);
	}
	c->diam = 0;
	for (uint32_t s = 0; s < S; s++) {
		ibf_bfs(c->f, s, d, q);
		uint16_t *row = c->dist + (size_t)s * S;
		for (uint32_t t = 0; t < S; t++) {
			row[t] = d[t] == IBF_DIST_INF ? ENG_DIST_INF : (uint16_t)d[t];
			if (d[t] != IBF_DIST_INF && d[t] > c->diam)
				c->diam = d[t];
		}
	}
	/* typical diameter: 90% of the connected ordered pairs lie within it */
	uint64_t *hist = calloc((size_t)c->diam + 2, sizeof(*hist));
	c->diam_ref = c->diam;
	if (hist) {
		for (size_t i = 0; i < nn; i++)
			if (c->dist[i] != ENG_DIST_INF)
				hist[c->dist[i]]++;
		c->diam_ref = ibf_typical_diameter(hist, c->diam);
		free(hist);
	}
	free(d);
	free(q);
	return 0;
}

/* Is there a simple path s -> ... -> t with lo <= length <= hi?  Bounded
 * DFS pruned by the distance to t; gives up (answers yes) after `budget`
 * expansions, so long windows on big graphs cost nothing. */
static int path_exists(const struct eng_ctx *c, const uint16_t *D, uint32_t t, uint32_t *stk,
		       uint32_t *pos, uint8_t *on, uint32_t s, int lo, int hi, long budget)
{
	const struct ibf_fabric *f = c->f;
	int depth = 0, found = 0;
	stk[0] = s;
	pos[0] = f->adj_off[s];
	on[s] = 1;
	while (depth >= 0 && !found) {
		uint32_t x = stk[depth];
		if (pos[depth] >= f->adj_off[x + 1]) {
			on[x] = 0;
			depth--;
			continue;
		}
		uint32_t u = f->adj[pos[depth]++].nbr;
		if (--budget < 0) {
			found = 1;
			break;
		}
		if (on[u] || D[u] == ENG_DIST_INF)
			continue;
		int L = depth + 1;
		if (u == t) {
			if (L >= lo && L <= hi)
				found = 1;
			continue;
		}
		if (L + (int)D[u] > hi || L + 1 > hi)
			continue;
		depth++;
		stk[depth] = u;
		pos[depth] = f->adj_off[u];
		on[u] = 1;
	}
	for (int k = 0; k <= depth; k++)
		on[stk[k]] = 0;
	return found;
}

/* 1 when the switch graph has no odd cycle (loopback cables aside, which
 * no simple path uses): two-colouring by BFS.  Then every path from s to t
 * has the parity of their distance, as on every fat tree (links join
 * adjacent levels), and a window holding only lengths of the other parity
 * has no path at all. */
static int switch_graph_bipartite(const struct ibf_fabric *f, uint32_t S)
{
	int8_t *col = malloc((S ? S : 1) * sizeof(*col));
	uint32_t *q = malloc((S ? S : 1) * sizeof(*q));
	int bip = col && q;
	if (bip)
		memset(col, -1, S * sizeof(*col));
	for (uint32_t r = 0; bip && r < S; r++) {
		if (col[r] >= 0)
			continue;
		uint32_t h = 0, n = 0;
		col[r] = 0;
		q[n++] = r;
		while (bip && h < n) {
			uint32_t x = q[h++];
			for (uint32_t e = f->adj_off[x]; e < f->adj_off[x + 1]; e++) {
				uint32_t u = f->adj[e].nbr;
				if (u == x)
					continue;
				if (col[u] < 0) {
					col[u] = (int8_t)(1 - col[x]);
					q[n++] = u;
				} else if (col[u] == col[x]) {
					bip = 0;
					break;
				}
			}
		}
	}
	free(col);
	free(q);
	return bip;
}

int eng_build_possible(struct eng_ctx *c, struct ibf_error *err)
{
	uint32_t S = c->S;
	/* only the layers >= 1 look at it (run_unit: no table, no path) */
	if (c->layers <= 1)
		return 0;
	int bip = switch_graph_bipartite(c->f, S);
	c->pwords = (S + 63) / 64;
	c->possible = calloc((size_t)S * c->pwords + 1, sizeof(*c->possible));
	uint32_t *stk = malloc(((size_t)S + 2) * sizeof(*stk));
	uint32_t *pos = malloc(((size_t)S + 2) * sizeof(*pos));
	uint8_t *on = calloc((size_t)S + 1, 1);
	if (!c->possible || !stk || !pos || !on) {
		free(stk), free(pos), free(on);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t t = 0; t < S; t++) {
		const uint16_t *D = c->dist + (size_t)t * S;
		uint64_t *row = c->possible + (size_t)t * c->pwords;
		for (uint32_t s = 0; s < S; s++) {
			if (s == t || D[s] == ENG_DIST_INF)
				continue;
			int lo = eng_bound(c, &c->o->min_len, D[s]);
			int hi = eng_bound(c, &c->o->max_len, D[s]);
			if (hi > (int)S)
				hi = (int)S;
			if (lo > hi || hi < (int)D[s])
				continue;
			if (bip) {
				lo += (lo - (int)D[s]) & 1;
				hi -= (hi - (int)D[s]) & 1;
				if (lo > hi)
					continue;
			}
			if (path_exists(c, D, t, stk, pos, on, s, lo, hi, 20000))
				row[s >> 6] |= 1ull << (s & 63);
		}
	}
	free(stk), free(pos), free(on);
	return 0;
}
