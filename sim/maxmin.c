/* Max-min fair rates by progressive filling (exact, docs/sim.md).
 *
 * Every flow crosses a set of links, each with a weight w/128 (1 for a
 * flow on one path; k/L when the flow is split evenly over L layer paths
 * and k of them cross the link).  All unfrozen flows grow at the same
 * rate t; link e saturates when F_e + t W_e = c_e (F_e: load of frozen
 * flows, W_e: summed weight of unfrozen flows), so its saturation level is
 * (c_e - F_e) / W_e.  The link with the smallest level freezes its
 * unfrozen flows at that level; a flow with a demand freezes when t
 * reaches it.  Freezing a flow never lowers another link's level, so a
 * heap of levels with lazy re-evaluation finds the next bottleneck: a
 * popped link whose level has grown since it was pushed goes back in. */
#include "sim_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void sim_inc_free(struct sim_inc *in)
{
	free(in->off);
	free(in->inc);
	free(in->demand);
	free(in->index);
	memset(in, 0, sizeof(*in));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* One worker's share of the tracing: flows [lo, hi) of the phase, with
 * layers chosen beforehand (so the result never depends on the split). */
struct tjob {
	const struct ibf_sim_net *n;
	const struct ibf_sim_placement *pl;
	const struct ibf_sim_phase *ph;
	const uint8_t *l0, *nl; /* per flow; nl 0 = local */
	uint16_t *cnt;		/* per flow: incidences written */
	uint64_t lo, hi;
	uint32_t *inc;
	uint64_t ninc, cap;
	uint64_t bad;	      /* undelivered flows */
	uint64_t bad_flow[3]; /* the first few of them, and their layers */
	uint32_t bad_layer[3];
	int oom;
};

static void *trace_job(void *arg)
{
	struct tjob *j = arg;
	const struct ibf_sim_net *n = j->n;
	uint32_t buf[IBF_TRACE_MAX + 2], all[128 * (IBF_TRACE_MAX + 2)];
	for (uint64_t i = j->lo; i < j->hi && !j->oom; i++) {
		j->cnt[i] = 0;
		uint32_t nl = j->nl[i];
		if (!nl)
			continue;
		const struct ibf_sim_flow *fl = &j->ph->flow[i];
		uint32_t a = j->pl->host[fl->src], b = j->pl->host[fl->dst];
		uint32_t L = 1u << ibf_port(n->f, n->host[b].node, n->host[b].port)->lmc;
		uint32_t tot = 0;
		int ok = 1;
		for (uint32_t k = 0; k < nl && ok; k++) {
			uint32_t layer = nl > 1 ? (j->l0[i] + k) % L : j->l0[i];
			int m = ibf_sim_trace(n, a, b, layer, buf, IBF_TRACE_MAX + 2);
			if (m < 0) {
				ok = 0;
				if (j->bad < 3) {
					j->bad_flow[j->bad] = i;
					j->bad_layer[j->bad] = layer;
				}
				j->bad++;
				break;
			}
			memcpy(all + tot, buf, (size_t)m * sizeof(uint32_t));
			tot += (uint32_t)m;
		}
		if (!ok)
			continue;
		if (nl > 1) {
			if (tot > 64) {
				qsort(all, tot, sizeof(uint32_t), cmp_u32);
			} else {
				for (uint32_t x = 1; x < tot; x++) {
					uint32_t v = all[x], y = x;
					for (; y > 0 && all[y - 1] > v; y--)
						all[y] = all[y - 1];
					all[y] = v;
				}
			}
		}
		if (j->ninc + tot > j->cap) {
			uint64_t nc = j->cap ? j->cap : 4096;
			while (nc < j->ninc + tot)
				nc *= 2;
			uint32_t *ni = realloc(j->inc, nc * sizeof(uint32_t));
			if (!ni) {
				j->oom = 1;
				break;
			}
			j->inc = ni;
			j->cap = nc;
		}
		uint16_t c = 0;
		for (uint32_t x = 0; x < tot;) {
			uint32_t y = x;
			while (y < tot && all[y] == all[x])
				y++;
			j->inc[j->ninc++] = SIM_INC(all[x], (y - x) * (128 / nl));
			c++;
			x = y;
		}
		j->cnt[i] = c;
	}
	return NULL;
}

/* Layer choices of every flow, in flow order (rr counts per source):
 * first layer l0[i] and number of layers nls[i] (0: a local flow). */
static int choose_layers(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			 const struct ibf_sim_phase *ph, const struct ibf_sim_layer_policy *lp,
			 uint8_t *l0, uint8_t *nls, uint32_t *rr, uint64_t *local,
			 struct ibf_error *err)
{
	uint64_t rnd = lp->seed ^ 0x6a09e667f3bcc909ull;
	for (uint64_t i = 0; i < ph->nflows; i++) {
		const struct ibf_sim_flow *fl = &ph->flow[i];
		if (fl->src >= pl->nranks || fl->dst >= pl->nranks)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "flow %llu names rank %u of %u", (unsigned long long)i,
					     fl->src > fl->dst ? fl->src : fl->dst, pl->nranks);
		uint32_t a = pl->host[fl->src], b = pl->host[fl->dst];
		if (a == b) {
			(*local)++;
			nls[i] = 0;
			continue;
		}
		const struct ibf_port *dp = ibf_port(n->f, n->host[b].node, n->host[b].port);
		uint32_t L = 1u << dp->lmc, first = 0, nl = 1;
		switch (lp->how) {
		case IBF_LAYERS_FIXED:
			first = lp->layer < L ? lp->layer : L - 1;
			break;
		case IBF_LAYERS_RR: {
			/* the flow's messages take the source's next layers in turn:
			 * k messages spread evenly over min(k, L) layers (rounded
			 * down to a power of two so the shares are exact) */
			double msgs = ceil((fl->bytes > 0 ? fl->bytes : ph->bytes) /
					   (lp->msg_bytes > 0 ? lp->msg_bytes : 65536.0));
			uint32_t k = msgs >= L ? L : msgs < 1 ? 1 : (uint32_t)msgs;
			while (k & (k - 1))
				k &= k - 1;
			first = rr[fl->src] % L;
			rr[fl->src] += k;
			nl = k;
			break;
		}
		case IBF_LAYERS_HASH:
			first = (uint32_t)(ibf_hash64(((uint64_t)fl->src << 32 | fl->dst) ^
						      lp->seed) %
					   L);
			break;
		case IBF_LAYERS_RANDOM:
			first = (uint32_t)ibf_rand_below(&rnd, L);
			break;
		default:
			nl = L;
			break;
		}
		l0[i] = (uint8_t)first;
		nls[i] = (uint8_t)(nl > 128 ? 128 : nl);
	}
	return 0;
}

/* Trace the flows in T contiguous slices (a slice whose thread cannot
 * start is traced here). */
static void trace_slices(struct tjob *job, int T)
{
	pthread_t tid[64];
	int started[64] = { 0 };
	for (int t = 1; t < T; t++)
		if (pthread_create(&tid[t], NULL, trace_job, &job[t]) == 0)
			started[t] = 1;
	trace_job(&job[0]);
	for (int t = 1; t < T; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			trace_job(&job[t]);
	}
}

/* Undelivered flows as an error naming the first three in flow order;
 * *ninc: the incidences of all slices. */
static int check_slices(const struct tjob *job, int T, const struct ibf_sim_placement *pl,
			const struct ibf_sim_phase *ph, uint64_t *ninc, struct ibf_error *err)
{
	uint64_t bad = 0;
	char list[IBF_ERR_MSG_MAX] = "";
	size_t ll = 0;
	int listed = 0;
	*ninc = 0;
	for (int t = 0; t < T; t++) {
		if (job[t].oom)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		for (uint64_t k = 0; k < job[t].bad && k < 3 && listed < 3; k++, listed++) {
			const struct ibf_sim_flow *fl = &ph->flow[job[t].bad_flow[k]];
			int w = snprintf(list + ll, sizeof(list) - ll,
					 "%srank %u -> rank %u (host %u -> host %u, layer %u)",
					 listed ? "; " : "", fl->src, fl->dst, pl->host[fl->src],
					 pl->host[fl->dst], job[t].bad_layer[k]);
			if (w > 0 && (size_t)w < sizeof(list) - ll)
				ll += (size_t)w;
		}
		bad += job[t].bad;
		*ninc += job[t].ninc;
	}
	if (bad)
		return ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
				     "%llu flow(s) not delivered by the tables: %s%s",
				     (unsigned long long)bad, list, bad > 3 ? "; ..." : "");
	return 0;
}

/* Join the slices' incidences (grow the first, append the others) and
 * index the non-local flows: offsets, demands, phase positions. */
static int join_slices(struct sim_inc *in, struct tjob *job, int T, uint64_t ninc,
		       const struct ibf_sim_phase *ph, const uint8_t *nls, const uint16_t *cnt,
		       struct ibf_error *err)
{
	in->inc = job[0].inc;
	job[0].inc = NULL;
	if (T > 1 || !in->inc) {
		uint32_t *ni = realloc(in->inc, (ninc ? ninc : 1) * sizeof(uint32_t));
		if (!ni)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		in->inc = ni;
	}
	uint64_t at = job[0].ninc;
	for (int t = 1; t < T; t++) {
		if (job[t].ninc)
			memcpy(in->inc + at, job[t].inc, job[t].ninc * sizeof(uint32_t));
		at += job[t].ninc;
		free(job[t].inc);
		job[t].inc = NULL;
	}
	in->ninc = ninc;
	uint64_t nf = ph->nflows, nn = nf - in->local;
	in->off = malloc((nn + 1) * sizeof(uint64_t));
	in->demand = malloc((nn ? nn : 1) * sizeof(double));
	in->index = in->local ? malloc((nn ? nn : 1) * sizeof(uint64_t)) : NULL;
	if (!in->off || !in->demand || (in->local && !in->index))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	in->off[0] = 0;
	for (uint64_t i = 0; i < nf; i++) {
		if (!nls[i])
			continue;
		in->demand[in->nf] = ph->flow[i].demand;
		if (in->index)
			in->index[in->nf] = i;
		in->off[in->nf + 1] = in->off[in->nf] + cnt[i];
		in->nf++;
	}
	return 0;
}

int sim_inc_build(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
		  const struct ibf_sim_phase *ph, const struct ibf_sim_layer_policy *lp,
		  struct sim_inc *in, struct ibf_error *err)
{
	memset(in, 0, sizeof(*in));
	uint64_t nf = ph->nflows;
	if (n->nlinks >= SIM_MAX_LINKS)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "%u ports: the simulator handles fewer than %u", n->nlinks,
				     SIM_MAX_LINKS);
	uint8_t *l0 = malloc(nf ? nf : 1), *nls = malloc(nf ? nf : 1);
	uint16_t *cnt = malloc((nf ? nf : 1) * sizeof(uint16_t));
	uint32_t *rr = calloc(pl->nranks ? pl->nranks : 1, sizeof(uint32_t));
	int T = n->threads > 0 ? n->threads : 1;
	if (T > 64)
		T = 64;
	if ((uint64_t)T > nf / 4096 + 1)
		T = (int)(nf / 4096 + 1);
	struct tjob job[64];
	memset(job, 0, sizeof(job));
	int rc = 0;
	uint64_t ninc = 0;
	if (!l0 || !nls || !cnt || !rr) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	if ((rc = choose_layers(n, pl, ph, lp, l0, nls, rr, &in->local, err)))
		goto out;
	for (int t = 0; t < T; t++)
		job[t] = (struct tjob){ .n = n,
					.pl = pl,
					.ph = ph,
					.l0 = l0,
					.nl = nls,
					.cnt = cnt,
					.lo = nf * (uint64_t)t / (uint64_t)T,
					.hi = nf * (uint64_t)(t + 1) / (uint64_t)T };
	trace_slices(job, T);
	if ((rc = check_slices(job, T, pl, ph, &ninc, err)))
		goto out;
	rc = join_slices(in, job, T, ninc, ph, nls, cnt, err);
out:
	for (int t = 0; t < T; t++)
		free(job[t].inc);
	free(l0);
	free(nls);
	free(cnt);
	free(rr);
	if (rc)
		sim_inc_free(in);
	return rc;
}

/* ------------------------------------------------------------ the heap */

struct hent {
	double key;
	uint32_t e;
};
struct heap {
	struct hent *a;
	size_t n, cap;
};

static int hpush(struct heap *h, double key, uint32_t e)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		struct hent *na = realloc(h->a, nc * sizeof(*na));
		if (!na)
			return -1;
		h->a = na;
		h->cap = nc;
	}
	size_t i = h->n++;
	while (i) {
		size_t p = (i - 1) / 2;
		if (h->a[p].key < key || (h->a[p].key == key && h->a[p].e < e))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i].key = key;
	h->a[i].e = e;
	return 0;
}

static void hpop(struct heap *h)
{
	struct hent last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->a[c + 1].key < h->a[c].key ||
				     (h->a[c + 1].key == h->a[c].key && h->a[c + 1].e < h->a[c].e)))
			c++;
		if (last.key < h->a[c].key || (last.key == h->a[c].key && last.e < h->a[c].e))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
}

/* indices of capped flows sorted by demand (merge sort, stable) */
static int sort_by_demand(const double *d, uint64_t *idx, uint64_t n)
{
	uint64_t *tmp = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!tmp)
		return -1;
	for (uint64_t w = 1; w < n; w *= 2) {
		for (uint64_t lo = 0; lo < n; lo += 2 * w) {
			uint64_t mid = lo + w < n ? lo + w : n,
				 hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = d[idx[j]] < d[idx[i]] ? idx[j++] : idx[i++];
			while (i < mid)
				tmp[k++] = idx[i++];
			while (j < hi)
				tmp[k++] = idx[j++];
		}
		memcpy(idx, tmp, n * sizeof(uint64_t));
	}
	free(tmp);
	return 0;
}

int sim_maxmin(const struct sim_inc *in, const double *cap, uint32_t nlinks, const uint8_t *use,
	       double *rate, double *load)
{
	uint64_t nf = in->nf;
	uint32_t *cnt = calloc((size_t)nlinks + 1, sizeof(uint32_t));
	uint64_t *loff = calloc((size_t)nlinks + 2, sizeof(uint64_t));
	uint64_t *W = calloc(nlinks ? nlinks : 1, sizeof(uint64_t));
	double *F = load ? load : calloc(nlinks ? nlinks : 1, sizeof(double));
	uint64_t *capped = NULL;
	uint32_t *lflow = NULL;
	struct heap h = { 0 };
	int rc = -1;
	if (!cnt || !loff || !W || !F)
		goto out;
	if (load)
		memset(load, 0, nlinks * sizeof(double));
	for (uint64_t i = 0; i < in->ninc; i++)
		if (!use || use[SIM_LINK(in->inc[i])])
			loff[SIM_LINK(in->inc[i]) + 1]++;
	for (uint32_t e = 0; e < nlinks; e++)
		loff[e + 1] += loff[e];
	lflow = malloc((loff[nlinks] ? loff[nlinks] : 1) * sizeof(uint32_t));
	if (!lflow)
		goto out;
	uint64_t ncap = 0, remaining = 0;
	for (uint64_t f = 0; f < nf; f++) {
		int any = 0;
		for (uint64_t k = in->off[f]; k < in->off[f + 1]; k++) {
			uint32_t e = SIM_LINK(in->inc[k]);
			if (use && !use[e])
				continue;
			lflow[loff[e] + cnt[e]++] = (uint32_t)f;
			W[e] += SIM_W(in->inc[k]);
			any = 1;
		}
		ncap += in->demand[f] > 0;
		rate[f] = -1;
		if (any)
			remaining++;
		else
			rate[f] = in->demand[f] > 0 ? in->demand[f] : INFINITY;
	}
	capped = malloc((ncap ? ncap : 1) * sizeof(uint64_t));
	if (!capped)
		goto out;
	ncap = 0;
	for (uint64_t f = 0; f < nf; f++)
		if (in->demand[f] > 0 && rate[f] < 0)
			capped[ncap++] = f;
	if (sort_by_demand(in->demand, capped, ncap))
		goto out;
	for (uint32_t e = 0; e < nlinks; e++)
		if (W[e] && hpush(&h, cap[e] * 128.0 / (double)W[e], e))
			goto out;
	uint64_t ci = 0;
	while (remaining) {
		while (h.n) {
			uint32_t e = h.a[0].e;
			if (!W[e]) {
				hpop(&h);
				continue;
			}
			double cur = (cap[e] - F[e]) * 128.0 / (double)W[e];
			if (cur < 0)
				cur = 0;
			if (cur > h.a[0].key * (1 + 1e-12) + 1e-300) {
				hpop(&h);
				if (hpush(&h, cur, e))
					goto out;
				continue;
			}
			break;
		}
		while (ci < ncap && rate[capped[ci]] >= 0)
			ci++;
		if (!h.n && ci == ncap)
			break;
		uint64_t fz_flow = UINT64_MAX;
		double level;
		uint32_t fz_link = UINT32_MAX;
		if (ci < ncap && (!h.n || in->demand[capped[ci]] <= h.a[0].key)) {
			fz_flow = capped[ci++];
			level = in->demand[fz_flow];
		} else {
			level = h.a[0].key;
			fz_link = h.a[0].e;
			hpop(&h);
		}
		/* freeze one capped flow, or every unfrozen flow of the link */
		uint64_t lo = fz_flow != UINT64_MAX ? 0 : loff[fz_link];
		uint64_t hi = fz_flow != UINT64_MAX ? 1 : loff[fz_link + 1];
		for (uint64_t x = lo; x < hi; x++) {
			uint64_t f = fz_flow != UINT64_MAX ? fz_flow : lflow[x];
			if (rate[f] >= 0)
				continue;
			rate[f] = level;
			remaining--;
			for (uint64_t k = in->off[f]; k < in->off[f + 1]; k++) {
				uint32_t e = SIM_LINK(in->inc[k]);
				if (use && !use[e])
					continue;
				W[e] -= SIM_W(in->inc[k]);
				F[e] += level * SIM_W(in->inc[k]) / 128.0;
			}
		}
	}
	for (uint64_t f = 0; f < nf; f++)
		if (rate[f] < 0)
			rate[f] = 0;
	rc = 0;
out:
	free(cnt);
	free(loff);
	free(W);
	if (!load)
		free(F);
	free(capped);
	free(lflow);
	free(h.a);
	return rc;
}

/* k-th smallest (0-based) of a[0..n-1], reorders a */
static double select_kth(double *a, uint64_t n, uint64_t k)
{
	uint64_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = a[lo + (hi - lo) / 2];
		uint64_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return a[k];
	}
	return a[k];
}

int ibf_sim_maxmin_phase(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			 const struct ibf_sim_phase *ph, const struct ibf_sim_layer_policy *lp,
			 struct ibf_sim_phase_result *res, double *rates, double *load,
			 struct ibf_error *err)
{
	memset(res, 0, sizeof(*res));
	struct sim_inc in;
	int rc = sim_inc_build(n, pl, ph, lp, &in, err);
	if (rc)
		return rc;
	res->flows = in.nf;
	res->local = in.local;
	double *rate = malloc((in.nf ? in.nf : 1) * sizeof(double));
	double *ld = load ? load : malloc((n->nlinks ? n->nlinks : 1) * sizeof(double));
	if (!rate || !ld) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* the injection bound: the same flows with only their two host links
	 * (every layer path starts and ends on them, with the whole flow) */
	{
		struct sim_inc h2;
		memset(&h2, 0, sizeof(h2));
		h2.nf = in.nf;
		h2.ninc = 2 * in.nf;
		h2.off = malloc((in.nf + 1) * sizeof(uint64_t));
		h2.inc = malloc((h2.ninc ? h2.ninc : 1) * sizeof(uint32_t));
		h2.demand = in.demand;
		int bad = !h2.off || !h2.inc;
		for (uint64_t f = 0; !bad && f < in.nf; f++) {
			const struct ibf_sim_flow *fl = &ph->flow[in.index ? in.index[f] : f];
			h2.off[f] = 2 * f;
			h2.inc[2 * f] = SIM_INC(n->up[pl->host[fl->src]], 128);
			h2.inc[2 * f + 1] = SIM_INC(n->down[pl->host[fl->dst]], 128);
		}
		if (!bad) {
			h2.off[in.nf] = h2.ninc;
			bad = sim_maxmin(&h2, n->cap, n->nlinks, NULL, rate, NULL);
		}
		h2.demand = NULL;
		sim_inc_free(&h2);
		if (bad) {
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			goto out;
		}
	}
	for (uint64_t f = 0; f < in.nf; f++)
		res->inj_bound += rate[f];
	if (sim_maxmin(&in, n->cap, n->nlinks, NULL, rate, ld)) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	if (rates) {
		for (uint64_t i = 0; i < ph->nflows; i++)
			rates[i] = 0;
		for (uint64_t f = 0; f < in.nf; f++)
			rates[in.index ? in.index[f] : f] = rate[f];
	}
	/* rate figures over the elastic flows when there are any (flows with a
	 * demand get what they ask for or less; their time is not the phase's) */
	double mn = INFINITY, mx = 0, sum = 0, esum = 0, tmax = 0;
	uint64_t nel = 0;
	for (uint64_t f = 0; f < in.nf; f++)
		nel += in.demand[f] <= 0;
	for (uint64_t f = 0; f < in.nf; f++) {
		sum += rate[f];
		res->demand_total += in.demand[f];
		if (nel && in.demand[f] > 0)
			continue;
		esum += rate[f];
		/* the phase lasts until its slowest counted flow is done: its own
		 * bytes (traffic files) or the phase's, at its rate */
		const struct ibf_sim_flow *fl = &ph->flow[in.index ? in.index[f] : f];
		double b = fl->bytes > 0 ? fl->bytes : ph->bytes;
		double t = rate[f] > 0 ? b * 8.0 / (rate[f] * 1e3) : INFINITY;
		if (t > tmax)
			tmax = t;
		if (rate[f] < mn)
			mn = rate[f];
		if (rate[f] > mx)
			mx = rate[f];
	}
	res->aggregate = sum;
	uint64_t m = nel ? nel : in.nf;
	if (m) {
		/* compact the counted rates to the front for the median */
		uint64_t k = 0;
		for (uint64_t f = 0; f < in.nf; f++)
			if (!nel || in.demand[f] <= 0)
				rate[k++] = rate[f];
		res->min_rate = mn;
		res->max_rate = mx;
		res->mean_rate = esum / (double)m;
		res->median_rate = select_kth(rate, m, m / 2);
		res->time_us = tmax;
	}
	uint32_t nsl = 0;
	double usum = 0;
	for (uint32_t e = 0; e < n->nlinks; e++) {
		if (!n->cap[e])
			continue;
		double u = ld[e] / n->cap[e];
		if (n->kind[e] == 1) {
			nsl++;
			usum += u;
			if (u > res->max_util)
				res->max_util = u;
		} else if (n->kind[e] == 2 && u > res->max_host_util) {
			res->max_host_util = u;
		}
	}
	res->mean_util = nsl ? usum / nsl : 0;
out:
	free(rate);
	if (!load)
		free(ld);
	sim_inc_free(&in);
	return rc;
}
