/* Path statistics of a set of route tables: the path quality measure of
 * docs/competitors.md, computed only from what the LFTs say (every path is traced).
 *
 * Definitions
 *   Layers.  L = 1 << r->lmc.  Layer l of a destination port d is the DLID
 *   base(d) + l; a port whose own LMC gives it fewer than L LIDs has no
 *   layer l (the layer is "missing" and simply not traced).
 *
 *   Switch pairs.  Every ordered pair (s, t) of distinct switches where t
 *   has at least one CA or router port cabled to it.  The destination of
 *   the pair is t's representative port: its attached end port whose node
 *   comes first in canonical order (GUID first: ibf_node_cmp, not the
 *   order of the input's records), then the lowest port number.  For l = 0 .. L-1 the path of
 *   layer l is the trace from s towards base(d) + l.  `pairs` counts these
 *   (s, t); `pair_paths` the traces, `pair_failed` those that did not
 *   deliver to d (unreachable, loop, wrong port).
 *
 *   Path length.  len_hist[l][h] = number of delivered layer-l pair paths
 *   with h switch-to-switch hops (links; the host cables do not count).
 *
 *   Edge-disjoint paths.  A directed link is (switch, output port): two
 *   parallel cables between the same switches are two links, and a -> b is
 *   a different link from b -> a.  For each pair, the number of edge-
 *   disjoint paths is the size of the largest subset of its delivered layer
 *   paths whose link sets are pairwise disjoint.  Identical paths share all
 *   their links, so they count once.  Exact (branch and bound) for up to
 *   32 delivered paths per pair (LMC <= 5); for more, a greedy lower bound
 *   (shortest paths first).  disjoint_hist[k] = pairs with exactly k;
 *   share_ge[k] = share of pairs with at least k (k = 0 .. 8).
 *
 *   Paths per link.  Over every (source end port p, destination LID x)
 *   where p is a CA/router port cabled to a switch and x is a LID of a
 *   CA/router port: the trace from p's switch towards x, if it delivers,
 *   adds one to every switch-to-switch link it crosses.  So the trace from
 *   switch s towards x is weighted by the number of end ports at s.  All
 *   directed links count in min / mean / max / cv, unused ones as 0;
 *   cv = population standard deviation / mean.  link_load0 counts only
 *   the destinations' base LIDs (layer 0), so with LMC >= 1 the single-path
 *   balance of layer 0 can be read alone (link_max0, link_mean0).
 *
 *   Demand-weighted paths (only when the switch links and the end ports'
 *   cables do not all run at one rate).  The same paths, each counted as
 *   min(rate of p's cable, rate of x's port's cable) / rate of the link:
 *   the share of the link a flow of that pair could use at most.  With
 *   one rate everywhere it is the path count.  Rates as ibf_cable_rate
 *   gives them, an unknown one the fastest of the fabric; the sums are
 *   integers (rates in 0.1 Gb/s) divided by the link's rate at the end.
 *
 *   Unrouted.  (switch, LID) pairs over every switch and every assigned
 *   LID whose trace does not deliver to the LID's port.
 *
 * Cost: the link loads and `unrouted` come from the per-DLID pass of walk.h
 * (O(nsw) per LID); the pair part traces nsw x (nsw - 1) x L short paths.
 * Threads split both; all results are integer sums, so they do not depend
 * on the thread count. */
#include "walk.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_MAX 32

struct st_shared {
	const struct ibf_fabric *f;
	const struct ibf_lidmap *m;
	const struct ibf_routes *r;
	const int32_t *portlinks;
	const uint32_t *hosts;	 /* [nsw] end ports cabled to each switch */
	const int32_t *rep_node; /* [nsw] representative destination port, -1 none */
	const uint8_t *rep_port;
	/* demand weights; hrcnt NULL on a one-rate fabric */
	uint32_t nrates, top;	/* distinct end-port cable rates; the fastest rate */
	const uint32_t *rates;	/* [nrates] */
	const uint32_t *hrcnt;	/* [nsw * nrates] end ports of each rate at each switch */
	int layers;
	uint32_t block, nblocks;
	int nthreads;
};

struct st_thread {
	struct st_shared *sh;
	int idx, rc;
	pthread_t tid;
	uint64_t *len_hist;  /* [layers][nsw + 1] */
	uint64_t *disj_hist; /* [layers + 1] */
	uint64_t *load;	     /* [nadj] */
	uint64_t *load0;     /* [nadj] the base LIDs' share of load */
	uint64_t *dload;     /* [nadj] sum of the paths' demands (NULL: one rate) */
	uint64_t pairs, pair_paths, pair_failed, unrouted;
	uint32_t max_len;
};

/* Trace from switch s towards dlid recording the directed links crossed
 * (adjacency indices).  Returns enum ibf_trace_result. */
static int trace_links(const struct st_shared *sh, uint32_t s, uint32_t dlid, uint32_t *links,
		       uint32_t *nlinks)
{
	const struct ibf_fabric *f = sh->f;
	const struct ibf_routes *r = sh->r;
	uint32_t n = 0, cur = s;
	for (;;) {
		unsigned port = dlid <= r->max_lid ? ibf_lft(r, cur)[dlid] : IBF_LFT_NONE;
		uint32_t nx = IBF_WALK_NONE;
		int rc = ibf_walk_step(f, sh->m, cur, dlid, port, &nx);
		if (rc != IBF_WALK_CONT) {
			*nlinks = n;
			return rc;
		}
		if (n >= f->nsw) { /* more links than switches: a loop */
			*nlinks = n;
			return IBF_TRACE_LOOP;
		}
		int32_t l = sh->portlinks[f->nodes[f->switches[cur]].port_off + port];
		links[n++] = (uint32_t)l; /* l >= 0: the port faces another switch */
		cur = nx;
	}
}

static int share_link(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	for (uint32_t i = 0; i < na; i++)
		for (uint32_t j = 0; j < nb; j++)
			if (a[i] == b[j])
				return 1;
	return 0;
}

/* Largest set of pairwise compatible vertices (maximum independent set of
 * the conflict graph), cand and conf[] as bit masks. */
static int mis(uint32_t cand, const uint32_t *conf, int cur, int best)
{
	while (cand) {
		if (cur + __builtin_popcount(cand) <= best)
			return best;
		int v = __builtin_ctz(cand);
		uint32_t bit = 1u << v;
		if (!(cand & conf[v])) { /* no conflict left: always take it */
			cand &= ~bit;
			cur++;
			continue;
		}
		int with = mis(cand & ~bit & ~conf[v], conf, cur + 1, best);
		if (with > best)
			best = with;
		cand &= ~bit; /* and go on without v */
	}
	return cur > best ? cur : best;
}

static int disjoint_count(int np, uint32_t *const *paths, const uint32_t *plen)
{
	if (np <= 1)
		return np;
	if (np <= EXACT_MAX) {
		uint32_t conf[EXACT_MAX];
		for (int i = 0; i < np; i++) {
			conf[i] = 0;
			for (int j = 0; j < np; j++)
				if (i != j && share_link(paths[i], plen[i], paths[j], plen[j]))
					conf[i] |= 1u << j;
		}
		uint32_t all = np == 32 ? UINT32_MAX : (1u << np) - 1;
		return mis(all, conf, 0, 0);
	}
	/* greedy: shortest first, keep what does not collide */
	int *ord = malloc((size_t)np * sizeof(*ord));
	int *kept = malloc((size_t)np * sizeof(*kept));
	if (!ord || !kept) {
		free(ord);
		free(kept);
		return 1;
	}
	for (int i = 0; i < np; i++)
		ord[i] = i;
	for (int i = 1; i < np; i++) { /* insertion sort by length, stable */
		int v = ord[i], j = i;
		while (j > 0 && plen[ord[j - 1]] > plen[v]) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = v;
	}
	int nk = 0;
	for (int i = 0; i < np; i++) {
		int a = ord[i], ok = 1;
		for (int k = 0; k < nk && ok; k++)
			if (share_link(paths[a], plen[a], paths[kept[k]], plen[kept[k]]))
				ok = 0;
		if (ok)
			kept[nk++] = a;
	}
	free(ord);
	free(kept);
	return nk;
}

static int pair_part(struct st_thread *t)
{
	const struct st_shared *sh = t->sh;
	const struct ibf_fabric *f = sh->f;
	const uint32_t nsw = f->nsw;
	const int L = sh->layers;
	uint32_t *buf = malloc((size_t)L * (nsw + 1) * sizeof(*buf));
	uint32_t **paths = malloc((size_t)L * sizeof(*paths));
	uint32_t *plen = malloc((size_t)L * sizeof(*plen));
	if (!buf || !paths || !plen) {
		free(buf);
		free(paths);
		free(plen);
		return IBF_ENOMEM;
	}
	for (uint32_t s = (uint32_t)t->idx; s < nsw; s += (uint32_t)sh->nthreads) {
		for (uint32_t d = 0; d < nsw; d++) {
			if (d == s || sh->rep_node[d] < 0)
				continue;
			const struct ibf_port *dp = ibf_port(f, sh->rep_node[d], sh->rep_port[d]);
			t->pairs++;
			int np = 0;
			for (int l = 0; l < L; l++) {
				if (!dp->lid || l >= (1 << dp->lmc))
					continue; /* layer missing */
				uint32_t *links = buf + (size_t)l * (nsw + 1);
				uint32_t n = 0;
				t->pair_paths++;
				int rc = trace_links(sh, s, (uint32_t)dp->lid + (uint32_t)l, links,
						     &n);
				if (rc != IBF_TRACE_OK) {
					t->pair_failed++;
					continue;
				}
				t->len_hist[(size_t)l * (nsw + 1) + n]++;
				if (n > t->max_len)
					t->max_len = n;
				paths[np] = links;
				plen[np] = n;
				np++;
			}
			t->disj_hist[disjoint_count(np, paths, plen)]++;
		}
	}
	free(buf);
	free(paths);
	free(plen);
	return 0;
}

static int link_part(struct st_thread *t)
{
	const struct st_shared *sh = t->sh;
	const struct ibf_fabric *f = sh->f;
	const struct ibf_lidmap *m = sh->m;
	const uint32_t nsw = f->nsw;
	struct ibf_walk w;
	uint64_t *acc = malloc(((size_t)nsw + 1) * sizeof(*acc));
	uint64_t *dacc = sh->hrcnt ? malloc(((size_t)nsw + 1) * sizeof(*dacc)) : NULL;
	if (!acc || (sh->hrcnt && !dacc) || ibf_walk_init(&w, f, m, sh->r, sh->block)) {
		free(acc);
		free(dacc);
		return IBF_ENOMEM;
	}
	for (uint32_t b = (uint32_t)t->idx; b < sh->nblocks; b += (uint32_t)sh->nthreads) {
		uint32_t d0 = b * sh->block, n = sh->block;
		if (d0 + n - 1 > m->max_lid)
			n = m->max_lid - d0 + 1;
		ibf_walk_block(&w, d0, n);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t d = d0 + k;
			if (m->node[d] < 0)
				continue;
			const uint8_t *res = w.res + (size_t)k * nsw;
			for (uint32_t s = 0; s < nsw; s++)
				if (res[s] != IBF_TRACE_OK)
					t->unrouted++;
			if (f->nodes[m->node[d]].type == IBF_NODE_SWITCH)
				continue;
			int base = ibf_port(f, m->node[d], m->port[d])->lid == d;
			/* push the sources' weight along the in-tree of d: in
			 * reverse settling order a switch comes before its next hop */
			const uint8_t *col = w.col + (size_t)k * nsw;
			const uint32_t *next = w.next + (size_t)k * nsw;
			const uint32_t *order = w.order + (size_t)k * nsw;
			for (uint32_t s = 0; s < nsw; s++)
				acc[s] = sh->hosts[s];
			if (dacc) {
				uint32_t rd = ibf_cable_rate(f, m->node[d], m->port[d]);
				if (!rd)
					rd = sh->top;
				for (uint32_t s = 0; s < nsw; s++) {
					const uint32_t *c = sh->hrcnt + (size_t)s * sh->nrates;
					uint64_t x = 0;
					for (uint32_t q = 0; q < sh->nrates; q++)
						x += (uint64_t)c[q] *
						     (sh->rates[q] < rd ? sh->rates[q] : rd);
					dacc[s] = x;
				}
			}
			for (uint32_t i = nsw; i-- > 0;) {
				uint32_t s = order[i];
				if (res[s] != IBF_TRACE_OK || next[s] == IBF_WALK_NONE || !acc[s])
					continue;
				int32_t l =
					sh->portlinks[f->nodes[f->switches[s]].port_off + col[s]];
				if (l >= 0) {
					t->load[l] += acc[s];
					if (base)
						t->load0[l] += acc[s];
					if (dacc)
						t->dload[l] += dacc[s];
				}
				acc[next[s]] += acc[s];
				if (dacc)
					dacc[next[s]] += dacc[s];
			}
		}
	}
	ibf_walk_free(&w);
	free(acc);
	free(dacc);
	return 0;
}

static void *st_worker(void *arg)
{
	struct st_thread *t = arg;
	t->rc = pair_part(t);
	if (!t->rc)
		t->rc = link_part(t);
	return NULL;
}

void ibf_path_stats_free(struct ibf_path_stats *st)
{
	if (!st)
		return;
	free(st->len_hist);
	free(st->disjoint_hist);
	free(st->link_load);
	free(st->link_load0);
	memset(st, 0, sizeof(*st));
}

/* End ports per switch and each switch's representative end port (nodes in
 * canonical order, then port order). */
static void switch_hosts(const struct ibf_fabric *f, uint32_t *hosts, int32_t *rep_node,
			 uint8_t *rep_port)
{
	for (uint32_t s = 0; s < f->nsw; s++)
		rep_node[s] = -1;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH)
			continue;
		for (int p = 1; p <= n->nports; p++) {
			int sn = ibf_port_switch(f, (int)i, p, NULL);
			if (sn < 0)
				continue;
			uint32_t s = (uint32_t)f->nodes[sn].sw;
			hosts[s]++;
			if (rep_node[s] < 0 || ibf_node_cmp(f, (int)i, rep_node[s]) < 0) {
				rep_node[s] = (int32_t)i;
				rep_port[s] = (uint8_t)p;
			}
		}
	}
}

/* Run the workers over the shared job (a worker that cannot start runs on
 * the caller's thread).  0, or -1 when one ran out of memory. */
static int run_workers(struct st_thread *th, int nth)
{
	int started = 0;
	for (int i = 1; i < nth; i++) {
		if (pthread_create(&th[i].tid, NULL, st_worker, &th[i]) != 0)
			break;
		started = i;
	}
	st_worker(&th[0]);
	for (int i = started + 1; i < nth; i++)
		st_worker(&th[i]);
	for (int i = 1; i <= started; i++)
		pthread_join(th[i].tid, NULL);
	for (int i = 0; i < nth; i++)
		if (th[i].rc)
			return -1;
	return 0;
}

/* Sum the threads' counts and histograms into st (thread order: the
 * result does not depend on the thread count). */
static int gather(struct ibf_path_stats *st, const struct st_thread *th, int nth, uint32_t nsw,
		  uint32_t nadj, int L)
{
	st->layers = L;
	st->nlinks = nadj;
	uint32_t max_len = 0;
	for (int i = 0; i < nth; i++)
		if (th[i].max_len > max_len)
			max_len = th[i].max_len;
	st->max_len = max_len;
	st->len_hist = calloc((size_t)L * (max_len + 1), sizeof(uint64_t));
	st->disjoint_hist = calloc((size_t)L + 1, sizeof(uint64_t));
	st->link_load = calloc((size_t)nadj + 1, sizeof(uint64_t));
	st->link_load0 = calloc((size_t)nadj + 1, sizeof(uint64_t));
	if (!st->len_hist || !st->disjoint_hist || !st->link_load || !st->link_load0)
		return -1;
	for (int i = 0; i < nth; i++) {
		const struct st_thread *t = &th[i];
		st->pairs += t->pairs;
		st->pair_paths += t->pair_paths;
		st->pair_failed += t->pair_failed;
		st->unrouted += t->unrouted;
		for (int l = 0; l < L; l++)
			for (uint32_t h = 0; h <= max_len; h++)
				st->len_hist[(size_t)l * (max_len + 1) + h] +=
					t->len_hist[(size_t)l * (nsw + 1) + h];
		for (int k = 0; k <= L; k++)
			st->disjoint_hist[k] += t->disj_hist[k];
		for (uint32_t a = 0; a < nadj; a++) {
			st->link_load[a] += t->load[a];
			st->link_load0[a] += t->load0[a];
		}
	}
	return 0;
}

/* Shares of pairs with >= k edge-disjoint paths; link load spread. */
static void summarize(struct ibf_path_stats *st, uint32_t nadj, int L)
{
	for (int k = 0; k <= 8; k++) {
		uint64_t ge = 0;
		for (int j = k; j <= L; j++)
			ge += st->disjoint_hist[j];
		st->share_ge[k] = st->pairs ? (double)ge / (double)st->pairs : 0.0;
	}
	if (!nadj)
		return;
	uint64_t sum0 = 0, mx0 = 0;
	for (uint32_t a = 0; a < nadj; a++) {
		sum0 += st->link_load0[a];
		if (st->link_load0[a] > mx0)
			mx0 = st->link_load0[a];
	}
	st->link_max0 = (double)mx0;
	st->link_mean0 = (double)sum0 / nadj;
	double sum = 0, mn = (double)st->link_load[0], mx = mn;
	for (uint32_t a = 0; a < nadj; a++) {
		double x = (double)st->link_load[a];
		sum += x;
		if (x < mn)
			mn = x;
		if (x > mx)
			mx = x;
	}
	double mean = sum / nadj, var = 0;
	for (uint32_t a = 0; a < nadj; a++) {
		double dx = (double)st->link_load[a] - mean;
		var += dx * dx;
	}
	var /= nadj;
	st->link_min = mn;
	st->link_max = mx;
	st->link_mean = mean;
	st->link_cv = mean > 0 ? sqrt(var) / mean : 0.0;
}

/* Demand weights: each switch link's rate (lrate[nadj]) and the end ports'
 * cable rates per switch (sh->rates, sh->hrcnt), unknown rates the
 * fastest.  Returns 1 when they are not all one rate, 0 when they are
 * (nothing allocated), -1 out of memory. */
static int demand_setup(const struct ibf_fabric *f, struct st_shared *sh, uint32_t *lrate,
			uint32_t **rates_out, uint32_t **hrcnt_out)
{
	uint32_t nsw = f->nsw, nadj = f->adj_off[nsw], top = 0;
	for (uint32_t e = 0; e < nadj; e++) {
		lrate[e] = ibf_cable_rate(f, f->switches[f->adj_src[e]], f->adj[e].lport);
		if (lrate[e] > top)
			top = lrate[e];
	}
	/* distinct end-port rates, in increasing order (unknown: 0 for now) */
	uint32_t rates[64], nr = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; f->nodes[i].type != IBF_NODE_SWITCH && p <= f->nodes[i].nports; p++) {
			if (ibf_port_switch(f, (int)i, p, NULL) < 0)
				continue;
			uint32_t r = ibf_cable_rate(f, (int)i, p), k = 0;
			if (r > top)
				top = r;
			while (k < nr && rates[k] < r)
				k++;
			if (k < nr && rates[k] == r)
				continue;
			if (nr == 64)
				return -1; /* more rates than InfiniBand has widths x speeds */
			memmove(rates + k + 1, rates + k, (nr - k) * sizeof(*rates));
			rates[k] = r;
			nr++;
		}
	int mixed = 0;
	for (uint32_t e = 0; e < nadj; e++) {
		if (!lrate[e])
			lrate[e] = top;
		mixed |= lrate[e] != top;
	}
	for (uint32_t k = 0; k < nr; k++)
		mixed |= rates[k] && rates[k] != top;
	if (!mixed || !top)
		return 0;
	uint32_t *rv = malloc((size_t)nr * sizeof(*rv));
	uint32_t *cnt = calloc((size_t)nsw * nr + 1, sizeof(*cnt));
	if (!rv || !cnt) {
		free(rv);
		free(cnt);
		return -1;
	}
	for (uint32_t k = 0; k < nr; k++)
		rv[k] = rates[k] ? rates[k] : top;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; f->nodes[i].type != IBF_NODE_SWITCH && p <= f->nodes[i].nports; p++) {
			int sn = ibf_port_switch(f, (int)i, p, NULL);
			if (sn < 0)
				continue;
			uint32_t r = ibf_cable_rate(f, (int)i, p), k = 0;
			while (rates[k] != r)
				k++;
			cnt[(size_t)f->nodes[sn].sw * nr + k]++;
		}
	sh->nrates = nr;
	sh->top = top;
	sh->rates = *rates_out = rv;
	sh->hrcnt = *hrcnt_out = cnt;
	return 1;
}

/* the links slower than the fastest switch link and the busiest link in
 * paths x rate weight (ibf_link_rate_weights); nothing on one-rate fabrics */
static int rate_summary(const struct ibf_fabric *f, struct ibf_path_stats *st, uint32_t nadj)
{
	uint32_t *lw = malloc(((size_t)nadj + 1) * sizeof(*lw));
	if (!lw)
		return -1;
	if (ibf_link_rate_weights(f, lw)) {
		uint64_t fsum = 0, nfast = 0, smax = 0, wmax = 0;
		for (uint32_t a = 0; a < nadj; a++) {
			uint64_t x = st->link_load[a];
			if (x * lw[a] > wmax)
				wmax = x * lw[a];
			if (lw[a] > 1) {
				st->nslow++;
				if (x > smax)
					smax = x;
			} else {
				fsum += x;
				nfast++;
			}
		}
		st->slow_max = (double)smax;
		st->fast_mean = nfast ? (double)fsum / (double)nfast : 0.0;
		st->link_wmax = (double)wmax;
	}
	free(lw);
	return 0;
}

int ibf_path_stats_compute(const struct ibf_fabric *f, const struct ibf_routes *r,
			   struct ibf_path_stats *st, struct ibf_error *err)
{
	memset(st, 0, sizeof(*st));
	int rc = ibf_routes_fit(f, r, err);
	if (rc)
		return rc;
	if (r->lmc < 0 || r->lmc > 7)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "LMC %d out of range", r->lmc);
	const uint32_t nsw = f->nsw;
	const uint32_t nadj = f->adj_off[nsw];
	const int L = 1 << r->lmc;
	struct ibf_lidmap m;
	rc = ibf_lidmap_build(f, &m, err);
	if (rc)
		return rc;
	uint32_t *hosts = calloc((size_t)nsw + 1, sizeof(*hosts));
	int32_t *rep_node = malloc(((size_t)nsw + 1) * sizeof(*rep_node));
	uint8_t *rep_port = calloc((size_t)nsw + 1, 1);
	const int32_t *portlinks = f->port_adj;
	struct st_thread *th = NULL;
	int nth = 0;
	uint32_t *lrate = malloc(((size_t)nadj + 1) * sizeof(*lrate));
	uint32_t *rates = NULL, *hrcnt = NULL;
	uint64_t *dsum = NULL;
	if (!hosts || !rep_node || !rep_port || !portlinks || !lrate)
		goto nomem;
	switch_hosts(f, hosts, rep_node, rep_port);

	struct st_shared sh = {
		.f = f,
		.m = &m,
		.r = r,
		.portlinks = portlinks,
		.hosts = hosts,
		.rep_node = rep_node,
		.rep_port = rep_port,
		.layers = L,
		.block = 64,
	};
	int dm = demand_setup(f, &sh, lrate, &rates, &hrcnt);
	if (dm < 0)
		goto nomem;
	sh.nblocks = (m.max_lid + sh.block) / sh.block;
	uint64_t work = (uint64_t)nsw * (m.max_lid + 1) + (uint64_t)nsw * nsw * (uint64_t)L * 4;
	nth = ibf_walk_threads(work);
	if ((uint32_t)nth > nsw && nsw > 0)
		nth = (int)nsw;
	sh.nthreads = nth;
	th = calloc((size_t)nth, sizeof(*th));
	if (!th)
		goto nomem;
	for (int i = 0; i < nth; i++) {
		th[i].sh = &sh;
		th[i].idx = i;
		th[i].len_hist = calloc((size_t)L * (nsw + 1), sizeof(uint64_t));
		th[i].disj_hist = calloc((size_t)L + 1, sizeof(uint64_t));
		th[i].load = calloc((size_t)nadj + 1, sizeof(uint64_t));
		th[i].load0 = calloc((size_t)nadj + 1, sizeof(uint64_t));
		th[i].dload = dm ? calloc((size_t)nadj + 1, sizeof(uint64_t)) : NULL;
		if (!th[i].len_hist || !th[i].disj_hist || !th[i].load || !th[i].load0 ||
		    (dm && !th[i].dload))
			goto nomem;
	}
	if (run_workers(th, nth) || gather(st, th, nth, nsw, nadj, L))
		goto nomem;
	summarize(st, nadj, L);
	if (dm) {
		/* integer sums in thread order, one division per link */
		if (!(dsum = calloc((size_t)nadj + 1, sizeof(*dsum))))
			goto nomem;
		for (int i = 0; i < nth; i++)
			for (uint32_t a = 0; a < nadj; a++)
				dsum[a] += th[i].dload[a];
		double mx = 0, sum = 0;
		for (uint32_t a = 0; a < nadj; a++) {
			double u = (double)dsum[a] / (double)lrate[a];
			sum += u;
			if (u > mx)
				mx = u;
		}
		st->demand = 1;
		st->demand_max = mx;
		st->demand_mean = nadj ? sum / nadj : 0.0;
	}
	if (rate_summary(f, st, nadj))
		goto nomem;
	rc = 0;
	goto out;
nomem:
	rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	ibf_path_stats_free(st);
out:
	if (th)
		for (int i = 0; i < nth; i++) {
			free(th[i].len_hist);
			free(th[i].disj_hist);
			free(th[i].load);
			free(th[i].load0);
			free(th[i].dload);
		}
	free(th);
	free(lrate);
	free(rates);
	free(hrcnt);
	free(dsum);
	free(hosts);
	free(rep_node);
	free(rep_port);
	ibf_lidmap_free(&m);
	return rc;
}

/* ------------------------------------------------------------ output */

static double max_over_mean(const struct ibf_path_stats *st)
{
	return st->link_mean > 0 ? st->link_max / st->link_mean : 0.0;
}

int ibf_path_stats_write_json(const struct ibf_path_stats *st, FILE *out)
{
	int L = st->layers;
	fprintf(out, "{\"layers\":%d,\"pairs\":%llu,\"pair_paths\":%llu,\"pair_failed\":%llu,", L,
		(unsigned long long)st->pairs, (unsigned long long)st->pair_paths,
		(unsigned long long)st->pair_failed);
	fputs("\"length_hist\":[", out);
	for (int l = 0; l < L; l++) {
		fputs(l ? ",[" : "[", out);
		for (uint32_t h = 0; h <= st->max_len && st->len_hist; h++)
			fprintf(out, "%s%llu", h ? "," : "",
				(unsigned long long)
					st->len_hist[(size_t)l * (st->max_len + 1) + h]);
		fputc(']', out);
	}
	fputs("],\"disjoint_hist\":[", out);
	for (int k = 0; k <= L && st->disjoint_hist; k++)
		fprintf(out, "%s%llu", k ? "," : "", (unsigned long long)st->disjoint_hist[k]);
	fputs("],\"share_ge\":{", out);
	for (int k = 1; k <= L && k <= 8; k++)
		fprintf(out, "%s\"%d\":%.6f", k > 1 ? "," : "", k, st->share_ge[k]);
	fprintf(out,
		"},\"paths_per_link\":{\"links\":%llu,\"min\":%.0f,\"mean\":%.4f,\"max\":%.0f,"
		"\"max_over_mean\":%.4f,\"cv\":%.4f},\"paths_per_link_layer0\":{\"mean\":%.4f,"
		"\"max\":%.0f},",
		(unsigned long long)st->nlinks, st->link_min, st->link_mean, st->link_max,
		max_over_mean(st), st->link_cv, st->link_mean0, st->link_max0);
	if (st->nslow)
		fprintf(out,
			"\"slower_links\":{\"links\":%llu,\"max\":%.0f,\"full_rate_mean\":%.4f,"
			"\"rate_weighted_max\":%.0f},",
			(unsigned long long)st->nslow, st->slow_max, st->fast_mean, st->link_wmax);
	if (st->demand)
		fprintf(out, "\"demand_weighted_paths\":{\"mean\":%.4f,\"max\":%.4f},",
			st->demand_mean, st->demand_max);
	fprintf(out, "\"unrouted\":%llu}\n", (unsigned long long)st->unrouted);
	return ferror(out) ? IBF_EIO : 0;
}

int ibf_path_stats_write_text(const struct ibf_path_stats *st, FILE *out)
{
	int L = st->layers, lmc = 0;
	while ((1 << lmc) < L)
		lmc++;
	fprintf(out, "layers: %d (LMC %d)\n", L, lmc);
	fprintf(out, "switch pairs: %llu (ordered, destination switch with hosts)\n",
		(unsigned long long)st->pairs);
	fprintf(out, "layer paths traced: %llu, not delivered: %llu\n",
		(unsigned long long)st->pair_paths, (unsigned long long)st->pair_failed);
	fputs("path length (switch hops) per layer:\n  hops", out);
	for (int l = 0; l < L; l++)
		fprintf(out, " %10s%d", "layer", l);
	fputc('\n', out);
	for (uint32_t h = 0; h <= st->max_len && st->len_hist; h++) {
		fprintf(out, "  %4u", h);
		for (int l = 0; l < L; l++)
			fprintf(out, " %11llu",
				(unsigned long long)
					st->len_hist[(size_t)l * (st->max_len + 1) + h]);
		fputc('\n', out);
	}
	fputs("edge-disjoint paths per switch pair:\n", out);
	for (int k = 0; k <= L && st->disjoint_hist; k++)
		fprintf(out, "  %3d: %llu (%.1f%%)\n", k, (unsigned long long)st->disjoint_hist[k],
			st->pairs ? 100.0 * (double)st->disjoint_hist[k] / (double)st->pairs : 0.0);
	for (int k = 1; k <= L && k <= 8; k++)
		fprintf(out, "switch pairs with >=%d edge-disjoint paths: %.1f%%\n", k,
			100.0 * st->share_ge[k]);
	fprintf(out,
		"paths per link: min %.0f mean %.2f max %.0f (max/mean %.2f), cv %.3f over %llu links\n",
		st->link_min, st->link_mean, st->link_max, max_over_mean(st), st->link_cv,
		(unsigned long long)st->nlinks);
	if (L > 1)
		fprintf(out, "paths per link, layer 0 (base LIDs) only: mean %.2f max %.0f\n",
			st->link_mean0, st->link_max0);
	if (st->nslow)
		fprintf(out,
			"links slower than the fastest: %llu, paths on one: max %.0f (full-rate "
			"links: mean %.2f); busiest link in paths x rate weight: %.0f\n",
			(unsigned long long)st->nslow, st->slow_max, st->fast_mean, st->link_wmax);
	if (st->demand)
		fprintf(out,
			"demand-weighted paths per link (each path x its slower host cable's rate / "
			"link rate): mean %.2f max %.2f\n",
			st->demand_mean, st->demand_max);
	fprintf(out, "unrouted (switch, LID) pairs: %llu\n", (unsigned long long)st->unrouted);
	return ferror(out) ? IBF_EIO : 0;
}
