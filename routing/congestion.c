/* Flows per link from route tables, for permutation traffic.
 *
 * Hosts are the end ports (CA/router ports cabled to a switch), numbered
 * 0..N-1 in tree order (leaf by leaf, port order: the D-mod-K order without
 * phantom slots, hosts above the leaves last) when the fabric is a fat tree,
 * else by switch index and switch port.  A pattern instance is a
 * permutation pi of the hosts; host a sends one flow to LID
 * base(pi(a)) + layer.  Every flow is traced through the tables from a's
 * switch; each directed switch-to-switch cable it crosses gains one flow.
 * The instance's figure is its largest link load; "contention-free" means
 * at most one flow per link.
 *
 * Demand load (fabrics whose switch and host cables do not all run at one
 * rate).  A flow cannot run faster than the slower of its two host cables:
 * its demand is min(rate(a), rate(b)).  A link's demand load is the sum of
 * its flows' demands over its own rate: 1 when it just carries what its
 * flows can inject, above 1 when it is the bottleneck (at least one of its
 * flows then gets at most 1/load of its demand).  With every cable at one
 * rate each demand is the link's rate and the demand load is the flow
 * count.  Rates are ibf_cable_rate's; a cable whose rate is unknown counts
 * as the fastest cable of the fabric.
 *
 *   shift (all):  pi(a) = (a + c) mod N for every c = 1..N-1
 *   shift c:      that one shift
 *   perm:         `perms` uniformly random permutations (Fisher-Yates,
 *                 splitmix64 seeded from (seed, permutation number)) */
#include "ibf_fattree.h"

#include <stdlib.h>
#include <string.h>

void ibf_cong_opts_default(struct ibf_cong_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pattern = IBF_CONG_SHIFT_ALL;
	o->perms = 100;
	o->seed = 1;
	o->layer = 0;
	o->order = IBF_CONG_ORDER_AUTO;
}

void ibf_cong_report_free(struct ibf_cong_report *rep)
{
	if (!rep)
		return;
	free(rep->max_load);
	rep->max_load = NULL;
}

int ibf_end_ports(const struct ibf_fabric *f, int order, struct ibf_endport **out, uint32_t *n,
		  int *used, struct ibf_ftree *tree, int *have_tree, struct ibf_error *err)
{
	*out = NULL;
	*n = 0;
	if (have_tree)
		*have_tree = 0;
	if (order == IBF_CONG_ORDER_AUTO || order == IBF_CONG_ORDER_TREE) {
		struct ibf_ftree t;
		struct ibf_error e2;
		ibf_error_clear(&e2);
		int trc = ibf_ftree_build(f, NULL, &t, &e2);
		if (trc && order == IBF_CONG_ORDER_TREE) {
			if (err)
				*err = e2;
			return trc;
		}
		if (!trc) {
			struct ibf_endport *e = malloc((t.nends ? t.nends : 1) * sizeof(*e));
			if (!e) {
				ibf_ftree_free(&t);
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			}
			uint32_t k = 0;
			for (uint32_t i = 0; i < t.nends; i++) {
				if (ibf_ca_in_switch(f, t.ends[i].node, t.ends[i].port))
					continue; /* no rank: part of its switch */
				e[k].node = t.ends[i].node;
				e[k].port = t.ends[i].port;
				e[k].sw = t.ends[i].sw;
				k++;
			}
			*out = e;
			*n = k;
			if (tree && have_tree) {
				*tree = t; /* the caller frees it */
				*have_tree = 1;
			} else {
				ibf_ftree_free(&t);
			}
			if (used)
				*used = IBF_CONG_ORDER_TREE;
			return 0;
		}
	}
	/* switches in canonical order (ibf_fabric_sort's: node GUID first), so
	 * the fabric order of the end ports does not follow the order in which
	 * the input listed the nodes */
	int32_t *ids = malloc((f->nsw ? f->nsw : 1) * sizeof(*ids));
	if (ids)
		memcpy(ids, f->switches, f->nsw * sizeof(*ids));
	if (!ids || ibf_fabric_sort_ids(f, ids, f->nsw)) {
		free(ids);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	uint32_t cnt = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < f->nsw; k++) {
			int node = ids[k];
			uint32_t s = (uint32_t)f->nodes[node].sw;
			for (int p = 1; p <= f->nodes[node].nports; p++) {
				const struct ibf_port *pp = ibf_port(f, node, p);
				if (pp->peer_node == IBF_NO_NODE ||
				    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH ||
				    ibf_ca_in_switch(f, pp->peer_node, pp->peer_port))
					continue;
				if (pass) {
					(*out)[*n].node = pp->peer_node;
					(*out)[*n].port = pp->peer_port;
					(*out)[*n].sw = s;
					(*n)++;
				} else {
					cnt++;
				}
			}
		}
		if (!pass && !(*out = malloc((cnt ? cnt : 1) * sizeof(**out)))) {
			free(ids);
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		}
	}
	free(ids);
	if (used)
		*used = IBF_CONG_ORDER_FABRIC;
	return 0;
}

uint32_t ibf_end_ports_in_switch(const struct ibf_fabric *f)
{
	uint32_t n = 0;
	for (uint32_t v = 0; v < f->nnodes; v++)
		for (int p = 1; f->nodes[v].type != IBF_NODE_SWITCH && p <= f->nodes[v].nports; p++)
			n += (uint32_t)ibf_ca_in_switch(f, (int)v, p);
	return n;
}

struct host {
	int32_t node;
	uint8_t port;
	uint32_t sw;
	uint32_t dlid; /* 0: no LID */
	uint32_t rate; /* its cable's rate (unknown: the fastest) */
};

struct cg {
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	const struct host *h;
	uint32_t N;
	uint32_t *load; /* [E] */
	uint32_t *lw;	/* [E] rate weights; NULL on a one-rate fabric */
	uint32_t maxw;	/* largest load x weight of the open instance */
	uint32_t maxwe; /* its link */
	uint32_t *lrate; /* [E] link rates; NULL when every cable runs at one rate */
	uint64_t *dload; /* [E] sum of the demands of the link's flows */
	double maxd;	 /* largest demand load of the open instance */
	uint32_t maxde;	 /* its link */
	uint32_t *touched;
	uint32_t ntouched;
	const uint32_t *hcomp; /* [N] switch component of each host's switch */
	uint64_t flows, unrouted, apart;
};

/* trace one flow; returns 0 when delivered */
static int flow(struct cg *c, uint32_t a, uint32_t b, uint32_t *maxl, uint32_t *maxe)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_routes *r = c->r;
	uint32_t dlid = c->h[b].dlid;
	if (c->hcomp && c->hcomp[a] != c->hcomp[b]) {
		c->apart++; /* no cable path: nothing for any table to deliver */
		return 0;
	}
	c->flows++;
	if (!dlid || dlid > r->max_lid) {
		c->unrouted++;
		return -1;
	}
	uint32_t s = c->h[a].sw;
	for (uint32_t steps = 0; steps <= r->nsw; steps++) {
		uint8_t port = ibf_lft(r, s)[dlid];
		int node = f->switches[s];
		if (port == IBF_LFT_NONE || port == 0 || port > f->nodes[node].nports)
			break;
		const struct ibf_port *pp = ibf_port(f, node, port);
		if (pp->peer_node == IBF_NO_NODE)
			break;
		if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH) {
			if (pp->peer_node == c->h[b].node && pp->peer_port == c->h[b].port)
				return 0;
			break;
		}
		uint32_t e = (uint32_t)f->port_adj[f->nodes[node].port_off + port];
		if (e == UINT32_MAX)
			break;
		if (!c->load[e]++)
			c->touched[c->ntouched++] = e;
		if (c->load[e] > *maxl) {
			*maxl = c->load[e];
			*maxe = e;
		}
		if (c->lw && c->load[e] * c->lw[e] > c->maxw) {
			c->maxw = c->load[e] * c->lw[e];
			c->maxwe = e;
		}
		if (c->lrate) {
			uint32_t ra = c->h[a].rate, rb = c->h[b].rate;
			c->dload[e] += ra < rb ? ra : rb;
			double u = (double)c->dload[e] / (double)c->lrate[e];
			if (u > c->maxd) {
				c->maxd = u;
				c->maxde = e;
			}
		}
		s = f->adj[e].nbr;
	}
	c->unrouted++;
	return -1;
}

/* Cut lower bound.  Level 0 of the cut: every switch with hosts is a group
 * and its capacity is its number of switch-to-switch cables (on a fat tree
 * a leaf and its up-cables: the leaf cut).  On a fat tree with h levels,
 * cut level l = 1 .. h-2 groups the hosts by the component of the switches
 * of tree levels <= l + 1 (a pod), its capacity the cables leaving the
 * component.  Any routing puts at least ceil(flows out of G / cap(G)) flows
 * on one cable leaving G, and the same for flows into G over the cables
 * entering it. */
#define CUT_MAX (IBF_FTREE_MAX_LEVELS + 1)
struct cut {
	int nlv;		/* cut levels in use */
	uint32_t *gid[CUT_MAX]; /* [N] group of each host, UINT32_MAX: none */
	uint32_t *cap[CUT_MAX]; /* [nsw] cables leaving group g (groups are switch ids) */
	uint32_t *sg[CUT_MAX];	/* [nsw] group of each switch (levels >= 1; its own id above) */
	uint32_t *cin, *cout;	/* [nsw] scratch counters */
	uint32_t *hcomp;	/* [N] switch component of each host's switch */
};

static void cut_free(struct cut *k)
{
	for (int l = 0; l < CUT_MAX; l++) {
		free(k->gid[l]);
		free(k->cap[l]);
		free(k->sg[l]);
	}
	free(k->cin);
	free(k->cout);
	free(k->hcomp);
}

/* groups of level lv: the components of the switches with tree level <=
 * maxlevel, or every switch alone when level is NULL.  A component's id is
 * the switch that names it (a pod in the up/down bound's example): its
 * member of the lowest tree level, the first in canonical order among those
 * (rank[]), so the name does not follow the order of the fabric file. */
static int cut_level(struct cut *k, int lv, const struct ibf_fabric *f, const struct host *h,
		     uint32_t N, const uint8_t *level, int maxlevel, const uint32_t *rank)
{
	uint32_t S = f->nsw;
	uint32_t *uf = malloc((S ? S : 1) * sizeof(uint32_t));
	k->gid[lv] = malloc((N ? N : 1) * sizeof(uint32_t));
	k->cap[lv] = calloc(S ? S : 1, sizeof(uint32_t));
	if (!uf || !k->gid[lv] || !k->cap[lv]) {
		free(uf);
		return -1;
	}
	for (uint32_t s = 0; s < S; s++)
		uf[s] = s;
	if (level)
		for (uint32_t s = 0; s < S; s++)
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
				uint32_t nb = f->adj[e].nbr;
				if (level[s] > maxlevel || level[nb] > maxlevel)
					continue;
				uint32_t a = s, b = nb;
				while (uf[a] != a)
					a = uf[a];
				while (uf[b] != b)
					b = uf[b];
				if (a != b)
					uf[a > b ? a : b] = a > b ? b : a;
			}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t a = s;
		while (uf[a] != a)
			a = uf[a];
		uf[s] = a;
	}
	if (level) {
		uint32_t *name = malloc((S ? S : 1) * sizeof(uint32_t));
		if (!name) {
			free(uf);
			return -1;
		}
		for (uint32_t s = 0; s < S; s++)
			name[s] = UINT32_MAX;
		for (uint32_t s = 0; s < S; s++) {
			uint32_t *n = &name[uf[s]];
			if (*n == UINT32_MAX || level[s] < level[*n] ||
			    (level[s] == level[*n] && rank[s] < rank[*n]))
				*n = s;
		}
		for (uint32_t s = 0; s < S; s++)
			uf[s] = name[uf[s]];
		free(name);
	}
	for (uint32_t s = 0; s < S; s++)
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			if (uf[f->adj[e].nbr] != uf[s])
				k->cap[lv][uf[s]]++;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t s = h[i].sw;
		k->gid[lv][i] = (level && level[s] > maxlevel) ? UINT32_MAX : uf[s];
	}
	if (level)
		k->sg[lv] = uf; /* the pod pair cut's groups */
	else
		free(uf);
	return 0;
}

/* the bound of one instance at cut level lv: dst[a] is a's destination */
static uint32_t cut_bound(struct cut *k, int lv, const uint32_t *dst, uint32_t N, uint32_t S)
{
	const uint32_t *g = k->gid[lv];
	memset(k->cin, 0, S * sizeof(uint32_t));
	memset(k->cout, 0, S * sizeof(uint32_t));
	for (uint32_t a = 0; a < N; a++) {
		uint32_t b = dst[a];
		/* a flow between two switch components has no path under any
		 * routing: it is counted as not delivered, not bounded here */
		if (b == a || g[a] == g[b] || k->hcomp[a] != k->hcomp[b])
			continue;
		if (g[a] != UINT32_MAX)
			k->cout[g[a]]++;
		if (g[b] != UINT32_MAX)
			k->cin[g[b]]++;
	}
	uint32_t best = 0;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t c = k->cap[lv][s], m = k->cout[s] > k->cin[s] ? k->cout[s] : k->cin[s];
		if (!m)
			continue;
		uint32_t v = c ? (m + c - 1) / c : UINT32_MAX; /* no cable out: unroutable */
		if (v > best)
			best = v;
	}
	return best;
}

/* Up/down pair cut.  A valley-free path on the tree goes up zero or more
 * levels, then down.  A switch's summits are the switches with no up-cable
 * that it reaches going up only (itself when it has none); x reaches b by
 * up-then-down iff x and b share a summit (the highest common ancestor,
 * extended upwards, is one).  For a pair (a, b) of switches with hosts,
 * every valley-free path from a to b leaves a over an up-cable to an x that
 * reaches b that way, or a down-cable to an x above b (b reaches x going
 * up), and enters b over a down-cable from a y that a reaches that way, or
 * an up-cable from a y above a.  The f_ab flows share those cables: one of
 * them carries at least ceil(f_ab / count).  Parallel cables count one
 * each.  The same holds for a pair of pods (P, Q) of a cut level: a
 * valley-free path from P to Q leaves P once, up a cable from P to an x
 * outside it that reaches some switch of Q with hosts up-then-down, and
 * enters Q once, down a cable from a y outside it that some switch of P
 * with hosts reaches that way; the flows from P's hosts to Q's share those
 * cables.  Only valley-free routing is bound: a path may go down and up
 * again (a valley) over other cables. */
struct pent {
	uint32_t a, b;	   /* switch indices (pods: their groups); a == UINT32_MAX: empty */
	uint32_t lv;	   /* cut level: 0 the switches with hosts, >= 1 pods */
	uint32_t out, in;  /* usable cables leaving a, entering b */
	uint32_t stamp;	   /* instance that last counted it, plus 1 */
	uint32_t cnt;	   /* its flows in that instance */
};
struct pcut {
	int on;
	uint32_t S, sw, aw;
	uint8_t *lvl;	 /* [S] tree levels */
	uint64_t *sum;	 /* [S * sw] summit bit sets */
	uint32_t *hrow;	 /* [S] row in anc of a switch with hosts, UINT32_MAX: none */
	uint64_t *anc;	 /* [rows * aw] switches a host switch reaches going up (itself too) */
	uint8_t *hashost; /* [S] the switch has hosts */
	uint64_t *gs;	 /* [2 * sw] scratch: summits of a pod's host switches */
	struct pent *tab;
	uint32_t tcap, tused;
	uint32_t *touched; /* [N] slots counted in the open instance */
	uint32_t ntouched;
};

static void pcut_free(struct pcut *p)
{
	free(p->lvl);
	free(p->sum);
	free(p->hrow);
	free(p->anc);
	free(p->hashost);
	free(p->gs);
	free(p->tab);
	free(p->touched);
}

static int pcut_build(struct pcut *p, const struct ibf_fabric *f, const struct ibf_ftree *t,
		      const struct host *h, uint32_t N)
{
	uint32_t S = f->nsw;
	p->S = S;
	p->lvl = malloc(S ? S : 1);
	uint32_t *ord = malloc((S ? S : 1) * sizeof(uint32_t));
	uint32_t *sid = malloc((S ? S : 1) * sizeof(uint32_t));
	p->hrow = malloc((S ? S : 1) * sizeof(uint32_t));
	p->touched = malloc((N ? N : 1) * CUT_MAX * sizeof(uint32_t));
	p->hashost = calloc(S ? S : 1, 1);
	if (!p->lvl || !ord || !sid || !p->hrow || !p->touched || !p->hashost)
		goto nomem;
	for (uint32_t i = 0; i < N; i++)
		p->hashost[h[i].sw] = 1;
	memcpy(p->lvl, t->level, S);
	/* switches from the top level down; summits numbered in that order */
	uint32_t nsum = 0, k = 0;
	for (int l = t->levels; l >= 1; l--)
		for (uint32_t s = 0; s < S; s++)
			if (p->lvl[s] == l)
				ord[k++] = s;
	for (uint32_t s = 0; s < S; s++) {
		sid[s] = UINT32_MAX;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			if (p->lvl[f->adj[e].nbr] > p->lvl[s])
				goto notsum;
		sid[s] = nsum++;
	notsum:;
	}
	p->sw = (nsum + 63) / 64;
	p->sum = calloc((size_t)S * p->sw + 1, sizeof(uint64_t));
	p->gs = calloc(2 * (size_t)p->sw + 1, sizeof(uint64_t));
	if (!p->sum || !p->gs)
		goto nomem;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t s = ord[i];
		uint64_t *ms = p->sum + (size_t)s * p->sw;
		if (sid[s] != UINT32_MAX) {
			ms[sid[s] / 64] |= 1ull << (sid[s] % 64);
			continue;
		}
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t x = f->adj[e].nbr;
			if (p->lvl[x] <= p->lvl[s])
				continue;
			const uint64_t *mx = p->sum + (size_t)x * p->sw;
			for (uint32_t w = 0; w < p->sw; w++)
				ms[w] |= mx[w];
		}
	}
	/* ancestors, needed only where a switch with hosts sits above level 1
	 * (a cable down from a source, or up into a destination) */
	int high = 0;
	for (uint32_t i = 0; i < N; i++)
		high |= p->lvl[h[i].sw] > 1;
	uint32_t rows = 0;
	for (uint32_t s = 0; s < S; s++)
		p->hrow[s] = UINT32_MAX;
	if (high) {
		for (uint32_t i = 0; i < N; i++)
			if (p->hrow[h[i].sw] == UINT32_MAX)
				p->hrow[h[i].sw] = rows++;
		p->aw = (S + 63) / 64;
		p->anc = calloc((size_t)rows * p->aw + 1, sizeof(uint64_t));
		if (!p->anc)
			goto nomem;
		for (uint32_t s = 0; s < S; s++) {
			if (p->hrow[s] == UINT32_MAX)
				continue;
			uint64_t *ma = p->anc + (size_t)p->hrow[s] * p->aw;
			uint32_t q0 = 0, q1 = 0;
			sid[q1++] = s; /* sid is free now: the BFS queue */
			ma[s / 64] |= 1ull << (s % 64);
			while (q0 < q1) {
				uint32_t u = sid[q0++];
				for (uint32_t e = f->adj_off[u]; e < f->adj_off[u + 1]; e++) {
					uint32_t x = f->adj[e].nbr;
					if (p->lvl[x] <= p->lvl[u] || (ma[x / 64] >> (x % 64) & 1))
						continue;
					ma[x / 64] |= 1ull << (x % 64);
					sid[q1++] = x;
				}
			}
		}
	}
	p->tcap = 1024;
	p->tab = malloc(p->tcap * sizeof(*p->tab));
	if (!p->tab)
		goto nomem;
	for (uint32_t i = 0; i < p->tcap; i++)
		p->tab[i].a = UINT32_MAX;
	free(ord);
	free(sid);
	p->on = 1;
	return 0;
nomem:
	free(ord);
	free(sid);
	return -1;
}

static int meet(const struct pcut *p, uint32_t x, uint32_t y)
{
	const uint64_t *mx = p->sum + (size_t)x * p->sw, *my = p->sum + (size_t)y * p->sw;
	for (uint32_t w = 0; w < p->sw; w++)
		if (mx[w] & my[w])
			return 1;
	return 0;
}

/* x is above (or is) host switch b: b reaches x going up */
static int above(const struct pcut *p, uint32_t b, uint32_t x)
{
	const uint64_t *ma = p->anc + (size_t)p->hrow[b] * p->aw;
	return (int)(ma[x / 64] >> (x % 64) & 1);
}

/* x meets a pod: shares a summit with gs (the pod's host switches' summits) */
static int meet_set(const struct pcut *p, uint32_t x, const uint64_t *gs)
{
	const uint64_t *mx = p->sum + (size_t)x * p->sw;
	for (uint32_t w = 0; w < p->sw; w++)
		if (mx[w] & gs[w])
			return 1;
	return 0;
}

/* the usable cables of pod pair (a, b) at cut level t->lv (sg: the
 * switches' groups) */
static void pod_caps(const struct pcut *p, const struct ibf_fabric *f, const uint32_t *sg,
		     struct pent *t)
{
	uint64_t *ga = p->gs, *gb = p->gs + p->sw;
	memset(p->gs, 0, 2 * p->sw * sizeof(uint64_t));
	for (uint32_t s = 0; s < p->S; s++) {
		if (!p->hashost[s] || (sg[s] != t->a && sg[s] != t->b))
			continue;
		uint64_t *g = sg[s] == t->a ? ga : gb;
		const uint64_t *ms = p->sum + (size_t)s * p->sw;
		for (uint32_t w = 0; w < p->sw; w++)
			g[w] |= ms[w];
	}
	t->out = t->in = 0;
	for (uint32_t s = 0; s < p->S; s++) {
		if (sg[s] != t->a && sg[s] != t->b)
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t x = f->adj[e].nbr;
			if (sg[x] == sg[s])
				continue;
			/* a pod is closed downwards: a cable leaving it goes up */
			if (sg[s] == t->a && meet_set(p, x, gb))
				t->out++;
			if (sg[s] == t->b && meet_set(p, x, ga))
				t->in++;
		}
	}
}

static void pair_caps(const struct pcut *p, const struct ibf_fabric *f, const struct cut *k,
		      struct pent *t)
{
	uint32_t a = t->a, b = t->b;
	if (t->lv) {
		pod_caps(p, f, k->sg[t->lv], t);
		return;
	}
	t->out = t->in = 0;
	for (uint32_t e = f->adj_off[a]; e < f->adj_off[a + 1]; e++) {
		uint32_t x = f->adj[e].nbr;
		if (p->lvl[x] > p->lvl[a] ? meet(p, x, b) : p->lvl[x] < p->lvl[a] && above(p, b, x))
			t->out++;
	}
	for (uint32_t e = f->adj_off[b]; e < f->adj_off[b + 1]; e++) {
		uint32_t y = f->adj[e].nbr;
		if (p->lvl[y] > p->lvl[b] ? meet(p, a, y) : p->lvl[y] < p->lvl[b] && above(p, a, y))
			t->in++;
	}
}

static uint32_t phash(uint32_t a, uint32_t b, uint32_t lv)
{
	uint64_t x = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull + lv * 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(x >> 32);
}

/* the table slot of pair (a, b), made (its cables counted) when new;
 * NULL when out of memory */
static struct pent *pair_get(struct pcut *p, const struct ibf_fabric *f, const struct cut *k,
			     uint32_t lv, uint32_t a, uint32_t b)
{
	uint32_t m = p->tcap - 1, i = phash(a, b, lv) & m;
	while (p->tab[i].a != UINT32_MAX) {
		if (p->tab[i].a == a && p->tab[i].b == b && p->tab[i].lv == lv)
			return &p->tab[i];
		i = (i + 1) & m;
	}
	if (2 * (p->tused + 1) > p->tcap) {
		/* grow; done between instances only (no slot counted) */
		uint32_t nc = p->tcap * 2;
		struct pent *nt = malloc(nc * sizeof(*nt));
		if (!nt)
			return NULL;
		for (uint32_t j = 0; j < nc; j++)
			nt[j].a = UINT32_MAX;
		for (uint32_t j = 0; j < p->tcap; j++) {
			if (p->tab[j].a == UINT32_MAX)
				continue;
			uint32_t q = phash(p->tab[j].a, p->tab[j].b, p->tab[j].lv) & (nc - 1);
			while (nt[q].a != UINT32_MAX)
				q = (q + 1) & (nc - 1);
			nt[q] = p->tab[j];
		}
		free(p->tab);
		p->tab = nt;
		p->tcap = nc;
		m = nc - 1;
		i = phash(a, b, lv) & m;
		while (p->tab[i].a != UINT32_MAX)
			i = (i + 1) & m;
	}
	struct pent *t = &p->tab[i];
	t->a = a;
	t->b = b;
	t->lv = lv;
	t->stamp = 0;
	t->cnt = 0;
	pair_caps(p, f, k, t);
	p->tused++;
	return t;
}

/* The pair cut of one instance (dst[a]: a's destination, stamp: the
 * instance number + 1); the tightest pair into *w when it beats w->v.
 * -1: out of memory. */
struct pworst {
	uint32_t v, a, b, flows, cables, lv;
	int side;
};
/* the pair of flow a -> b at cut level lv (0: switches, else pods);
 * 0 when it has none (same switch or pod, a host above the pods) */
static int pair_of(const struct cut *k, const struct host *h, uint32_t lv, uint32_t a,
		   uint32_t b, uint32_t *ga, uint32_t *gb)
{
	*ga = lv ? k->gid[lv][a] : h[a].sw;
	*gb = lv ? k->gid[lv][b] : h[b].sw;
	return *ga != *gb && *ga != UINT32_MAX && *gb != UINT32_MAX;
}

static int pair_bound(struct pcut *p, const struct ibf_fabric *f, const struct host *h,
		      const struct cut *k, const uint32_t *dst, uint32_t N, uint32_t stamp,
		      uint32_t *bound, struct pworst *w, uint64_t *nopath)
{
	const uint32_t *hcomp = k->hcomp;
	/* pairs first, then counts: the table may grow (and move) while new
	 * pairs come in, so slots are kept as positions only after that */
	for (uint32_t lv = 0; lv <= (uint32_t)k->nlv; lv++)
		for (uint32_t a = 0; a < N; a++) {
			uint32_t b = dst[a], ga, gb;
			if (b == a || hcomp[a] != hcomp[b] || !pair_of(k, h, lv, a, b, &ga, &gb))
				continue;
			if (!pair_get(p, f, k, lv, ga, gb))
				return -1;
		}
	p->ntouched = 0;
	for (uint32_t lv = 0; lv <= (uint32_t)k->nlv; lv++)
		for (uint32_t a = 0; a < N; a++) {
			uint32_t b = dst[a], ga, gb;
			if (b == a || hcomp[a] != hcomp[b] || !pair_of(k, h, lv, a, b, &ga, &gb))
				continue;
			struct pent *t = pair_get(p, f, k, lv, ga, gb);
			if (t->stamp != stamp) {
				t->stamp = stamp;
				t->cnt = 0;
				p->touched[p->ntouched++] = (uint32_t)(t - p->tab);
			}
			t->cnt++;
		}
	uint32_t best = 0;
	for (uint32_t i = 0; i < p->ntouched; i++) {
		const struct pent *t = &p->tab[p->touched[i]];
		if (!t->out || !t->in) {
			if (!t->lv)
				*nopath += t->cnt; /* no valley-free path: not bounded */
			continue;
		}
		for (int side = 0; side < 2; side++) {
			uint32_t c = side ? t->in : t->out, v = (t->cnt + c - 1) / c;
			if (v > best)
				best = v;
			if (v > w->v) {
				w->v = v;
				w->a = t->a;
				w->b = t->b;
				w->flows = t->cnt;
				w->cables = c;
				w->lv = t->lv;
				w->side = side;
			}
		}
	}
	*bound = best;
	return 0;
}

static void reset(struct cg *c)
{
	for (uint32_t i = 0; i < c->ntouched; i++) {
		c->load[c->touched[i]] = 0;
		if (c->dload)
			c->dload[c->touched[i]] = 0;
	}
	c->ntouched = 0;
}

/* The hosts' and the switch links' cable rates (lrate[E]), an unknown one
 * the fastest known; returns 1 when they are not all one rate (all unknown
 * is one rate). */
static int demand_rates(const struct ibf_fabric *f, struct host *h, uint32_t N, uint32_t *lrate)
{
	uint32_t E = f->adj_off[f->nsw], top = 0;
	for (uint32_t e = 0; e < E; e++) {
		lrate[e] = ibf_cable_rate(f, f->switches[f->adj_src[e]], f->adj[e].lport);
		if (lrate[e] > top)
			top = lrate[e];
	}
	for (uint32_t i = 0; i < N; i++) {
		h[i].rate = ibf_cable_rate(f, h[i].node, h[i].port);
		if (h[i].rate > top)
			top = h[i].rate;
	}
	int mixed = 0;
	for (uint32_t e = 0; e < E; e++) {
		if (!lrate[e])
			lrate[e] = top;
		mixed |= lrate[e] != top;
	}
	for (uint32_t i = 0; i < N; i++) {
		if (!h[i].rate)
			h[i].rate = top;
		mixed |= h[i].rate != top;
	}
	return mixed;
}

/* The end ports in the pattern's order (*order: the order used) as hosts,
 * and the cuts: the pod cuts of a tree of more than 2 levels, then the
 * leaf cut (level 0); on a tree, the up/down pair cut's reach sets. */
static int hosts_and_cuts(const struct ibf_fabric *f, int *order, struct host **hp, uint32_t *np,
			  struct cut *cut, struct pcut *pc, struct ibf_error *err)
{
	struct ibf_endport *ep = NULL;
	struct ibf_ftree t;
	int have_tree = 0;
	uint32_t N = 0;
	int rc = ibf_end_ports(f, *order, &ep, &N, order, &t, &have_tree, err);
	if (rc)
		return rc;
	struct host *h = malloc((N ? N : 1) * sizeof(*h));
	if (!h) {
		free(ep);
		if (have_tree)
			ibf_ftree_free(&t);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t i = 0; i < N; i++) {
		h[i].node = ep[i].node;
		h[i].port = ep[i].port;
		h[i].sw = ep[i].sw;
	}
	free(ep);
	*hp = h;
	*np = N;
	uint32_t *rank = malloc((f->nsw ? f->nsw : 1) * sizeof(uint32_t));
	int cutrc = !rank || ibf_switch_ranks(f, rank);
	for (int l = 2; have_tree && l < t.levels && !cutrc; l++)
		cutrc = cut_level(cut, ++cut->nlv, f, h, N, t.level, l, rank);
	free(rank);
	if (have_tree && !cutrc)
		cutrc = pcut_build(pc, f, &t, h, N);
	if (have_tree)
		ibf_ftree_free(&t);
	if (!cutrc)
		cutrc = cut_level(cut, 0, f, h, N, NULL, 0, NULL);
	cut->cin = malloc((f->nsw ? f->nsw : 1) * sizeof(uint32_t));
	cut->cout = malloc((f->nsw ? f->nsw : 1) * sizeof(uint32_t));
	cut->hcomp = malloc((N ? N : 1) * sizeof(uint32_t));
	uint32_t *comp = malloc((f->nsw ? f->nsw : 1) * sizeof(uint32_t));
	if (cutrc || !cut->cin || !cut->cout || !cut->hcomp || !comp ||
	    (f->nsw && !ibf_components(f, comp))) {
		free(comp);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t i = 0; i < N; i++)
		cut->hcomp[i] = comp[h[i].sw];
	free(comp);
	return 0;
}

/* Destinations of instance k in perm[] (a seeded shuffle, or a shift),
 * its flows routed; *id names the instance in the report. */
static void instance(struct cg *c, const struct ibf_cong_opts *o, uint32_t k, uint32_t *perm,
		     uint32_t *maxl, uint32_t *maxe, uint32_t *id)
{
	uint32_t N = c->N;
	*id = k;
	if (o->pattern == IBF_CONG_PERM) {
		uint64_t st = o->seed ^ (0xd1b54a32d192ed03ull * (k + 1));
		for (uint32_t i = 0; i < N; i++)
			perm[i] = i;
		for (uint32_t i = N; i > 1; i--) {
			uint32_t j = (uint32_t)(ibf_splitmix64(&st) % i);
			uint32_t tmp = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = tmp;
		}
		for (uint32_t a = 0; a < N; a++)
			if (perm[a] != a)
				flow(c, a, perm[a], maxl, maxe);
		return;
	}
	uint32_t sh = o->pattern == IBF_CONG_SHIFT ? (N ? o->shift % N : 0) : k + 1;
	*id = o->pattern == IBF_CONG_SHIFT ? o->shift : k + 1;
	for (uint32_t a = 0; a < N; a++)
		perm[a] = (a + sh) % N;
	if (sh)
		for (uint32_t a = 0; a < N; a++)
			flow(c, a, (a + sh) % N, maxl, maxe);
}

int ibf_congestion(const struct ibf_fabric *f, const struct ibf_routes *r,
		   const struct ibf_cong_opts *o, struct ibf_cong_report *rep,
		   struct ibf_error *err)
{
	memset(rep, 0, sizeof(*rep));
	struct ibf_cong_opts defo;
	if (!o) {
		ibf_cong_opts_default(&defo);
		o = &defo;
	}
	if (!f || !f->finalized || !r || !r->lft)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "no finalized fabric or route table");
	if (r->nsw != f->nsw)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "route table has %u switches, the fabric %u", r->nsw, f->nsw);
	if (o->layer < 0 || o->layer > 127)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "layer %d out of range 0..127",
				     o->layer);
	struct host *h = NULL;
	uint32_t N = 0;
	int order = o->order;
	struct cut cut;
	struct pcut pc;
	uint32_t *perm = NULL;
	struct cg c;
	memset(&c, 0, sizeof(c));
	memset(&cut, 0, sizeof(cut));
	memset(&pc, 0, sizeof(pc));
	int rc = hosts_and_cuts(f, &order, &h, &N, &cut, &pc, err);
	if (rc)
		goto out;
	for (uint32_t i = 0; i < N; i++) {
		const struct ibf_port *pp = ibf_port(f, h[i].node, h[i].port);
		uint32_t j = (uint32_t)o->layer, L = 1u << pp->lmc;
		if (j >= L)
			j = L - 1;
		h[i].dlid = pp->lid ? pp->lid + j : 0;
	}
	uint32_t E = f->adj_off[f->nsw];
	c.f = f;
	c.r = r;
	c.h = h;
	c.N = N;
	c.hcomp = cut.hcomp;
	c.load = calloc(E ? E : 1, sizeof(uint32_t));
	c.touched = malloc((E ? E : 1) * sizeof(uint32_t));
	c.lw = malloc((E ? E : 1) * sizeof(uint32_t));
	if (c.lw && !ibf_link_rate_weights(f, c.lw)) {
		free(c.lw); /* one rate: the weighted loads are the loads */
		c.lw = NULL;
	} else if (!c.lw) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	c.lrate = malloc((E ? E : 1) * sizeof(uint32_t));
	if (c.lrate && !demand_rates(f, h, N, c.lrate)) {
		free(c.lrate); /* one rate: the demand loads are the loads */
		c.lrate = NULL;
	} else if (!c.lrate || !(c.dload = calloc(E ? E : 1, sizeof(uint64_t)))) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	perm = calloc(N ? N : 1, sizeof(uint32_t));
	uint32_t ninst = 0;
	switch (o->pattern) {
	case IBF_CONG_SHIFT_ALL:
		ninst = N > 1 ? N - 1 : 0;
		break;
	case IBF_CONG_SHIFT:
		ninst = 1;
		break;
	case IBF_CONG_PERM:
		ninst = o->perms;
		break;
	default:
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0, "unknown pattern %d", o->pattern);
		goto out;
	}
	rep->max_load = calloc(ninst ? ninst : 1, sizeof(uint32_t));
	if (!c.load || !c.touched || !perm || !rep->max_load) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	rep->nhosts = N;
	rep->in_switch = ibf_end_ports_in_switch(f);
	rep->nlinks = E;
	rep->order = order;
	rep->ninst = ninst;
	rep->cut_levels = cut.nlv + 1;
	rep->rated = c.lw != NULL;
	rep->wworst_link = UINT32_MAX;
	rep->demand = c.lrate != NULL;
	rep->dworst_link = UINT32_MAX;
	rep->pair_on = pc.on;
	struct pworst pw;
	memset(&pw, 0, sizeof(pw));
	double sum = 0, bsum = 0, wsum = 0, dsum = 0, usum = 0;
	for (uint32_t k = 0; k < ninst; k++) {
		uint32_t maxl = 0, maxe = UINT32_MAX, id;
		uint64_t unr0 = c.unrouted;
		c.maxw = 0;
		c.maxwe = UINT32_MAX;
		c.maxd = 0;
		c.maxde = UINT32_MAX;
		instance(&c, o, k, perm, &maxl, &maxe, &id);
		if (c.lrate) {
			dsum += c.maxd;
			if (k == 0 || c.maxd > rep->dworst) {
				rep->dworst = c.maxd;
				rep->dworst_inst = id;
				rep->dworst_link = c.maxde;
			}
		}
		if (c.lw) {
			wsum += c.maxw;
			if (k == 0 || c.maxw > rep->wworst) {
				rep->wworst = c.maxw;
				rep->wworst_inst = id;
				rep->wworst_link = c.maxwe;
			}
		}
		reset(&c);
		uint32_t bmax = 0;
		for (int l = 0; l <= cut.nlv; l++) {
			uint32_t b = cut_bound(&cut, l, perm, N, f->nsw);
			if (b > rep->cut[l])
				rep->cut[l] = b;
			if (b > bmax)
				bmax = b;
		}
		bsum += bmax;
		if (maxl <= bmax)
			rep->at_cut++;
		uint32_t pb = 0, pv = pw.v;
		if (pc.on &&
		    pair_bound(&pc, f, h, &cut, perm, N, k + 1, &pb, &pw, &rep->pair_nopath)) {
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			goto out;
		}
		if (pw.v > pv)
			rep->pair_inst = id;
		if (pb < bmax)
			pb = bmax;
		usum += pb;
		if (maxl <= pb)
			rep->at_updown++;
		if (maxl < pb && c.unrouted == unr0)
			rep->below_updown++;
		rep->max_load[k] = maxl;
		sum += maxl;
		if (maxl <= 1)
			rep->free_inst++;
		if (k == 0 || maxl > rep->worst) {
			rep->worst = maxl;
			rep->worst_inst = id;
			rep->worst_link = maxe;
		}
	}
	rep->share_free = ninst ? (double)rep->free_inst / ninst : 0;
	rep->mean_max = ninst ? sum / ninst : 0;
	rep->wmean_max = ninst ? wsum / ninst : 0;
	rep->dmean_max = ninst ? dsum / ninst : 0;
	rep->cut_mean = ninst ? bsum / ninst : 0;
	for (int l = 0; l <= cut.nlv; l++)
		if (rep->cut[l] > rep->cut_worst)
			rep->cut_worst = rep->cut[l];
	if (pc.on) {
		rep->pair = pw.v;
		rep->pair_src = pw.a;
		rep->pair_dst = pw.b;
		rep->pair_flows = pw.flows;
		rep->pair_cables = pw.cables;
		rep->pair_side = pw.side;
		rep->pair_pod = pw.lv > 0;
	}
	rep->updown = rep->pair > rep->cut_worst ? rep->pair : rep->cut_worst;
	rep->updown_mean = ninst ? usum / ninst : 0;
	rep->flows = c.flows;
	rep->unrouted = c.unrouted;
	rep->apart = c.apart;
out:
	cut_free(&cut);
	pcut_free(&pc);
	free(h);
	free(c.load);
	free(c.lw);
	free(c.lrate);
	free(c.dload);
	free(c.touched);
	free(perm);
	if (rc)
		ibf_cong_report_free(rep);
	return rc;
}
