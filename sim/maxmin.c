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

/* (key, index), least key first, ties by index: the links of the
 * progressive filling and the fluid model's completion events (time, flow) */
struct hent {
	double key;
	uint64_t e;
};
struct heap {
	struct hent *a;
	size_t n, cap;
};

static inline int hent_less(const struct hent *x, const struct hent *y)
{
	return x->key < y->key || (x->key == y->key && x->e < y->e);
}

/* Entry v into the hole at i of the heap a[0, n), moving down: the
 * smaller child moves up while it is less than v.  pos (or NULL): the
 * index of each entry moved, by its e.  Returns v's index. */
static inline size_t sift_down(struct hent *a, uint32_t *pos, size_t n, size_t i, struct hent v)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && hent_less(&a[c + 1], &a[c]))
			c++;
		if (!hent_less(&a[c], &v))
			break;
		a[i] = a[c];
		if (pos)
			pos[a[i].e] = (uint32_t)i;
		i = c;
	}
	a[i] = v;
	if (pos)
		pos[v.e] = (uint32_t)i;
	return i;
}

static int hpush(struct heap *h, double key, uint64_t e)
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
	if (h->n)
		sift_down(h->a, NULL, h->n, 0, last);
}

/* the least entry's key grows to key: the entry moves down (the same
 * entries as a pop and a push, in one pass) */
static void hraise_top(struct heap *h, double key)
{
	struct hent v = { key, h->a[0].e };
	sift_down(h->a, NULL, h->n, 0, v);
}

/* the heap order of a[0, n), bottom-up (the same entries, so the same
 * least one as pushing them one by one) */
static void hheapify(struct heap *h)
{
	for (size_t i = h->n / 2; i-- > 0;)
		sift_down(h->a, NULL, h->n, i, h->a[i]);
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

/* ------------------------------------------------------------ completion times (fluid) */

/* Flows finishing within this relative distance of the earliest one are
 * one event (one re-solve), unless the network gives another. */
#define FLUID_EPS 1e-9

/* A flow's value in struct fluid's v[] besides its rate (>= 0). */
#define FV_GROWING (-1.0) /* being re-solved, not frozen yet */
#define FV_DONE (-2.0)	  /* finished */

/* the solver's state kept over a phase's events */
struct fluid {
	const struct sim_inc *in;
	const double *cap;
	uint32_t nlinks;
	uint64_t *loff;	 /* [nlinks + 1] link -> its flows, in flow order */
	uint32_t *lcnt;	 /* [nlinks] entries still in the list (finished flows drop out) */
	uint32_t *lflow; /* flow */
	uint8_t *lw;	 /* its weight on the link (w/128) */
	uint32_t *sflow; /* [ninc] at loff[e]: the re-solved flows of link e (one solve) */
	uint32_t *scnt;	 /* [nlinks] how many */
	uint64_t *W;	 /* [nlinks] weight of growing flows (0 outside a solve) */
	double *F;	 /* [nlinks] load of the flows that keep their rate */
	uint32_t *touched;
	double *hl; /* [longest link list] the held flows' loads on a link */
	/* [nf] one read tells what the solve needs of a flow: its rate while
	 * it runs (the new one once frozen in a solve), FV_GROWING, FV_DONE */
	double *v;
	uint64_t *capped;
	uint64_t *fo;	  /* [nf] the re-solved flows in the order they froze */
	uint64_t running; /* flows not finished */
	int anycap;	  /* some flow has a demand */
	struct heap h;
};

static int cmp_rate_desc(const void *a, const void *b, const double *r)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	if (r[x] != r[y])
		return r[x] > r[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* idx[0, n) by rate, fastest first, ties by flow index (merge sort:
 * the order is total, so the result does not depend on the algorithm) */
static int sort_by_rate(uint64_t *idx, uint64_t n, const double *r)
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
				tmp[k++] = cmp_rate_desc(&idx[j], &idx[i], r) < 0 ? idx[j++]
										  : idx[i++];
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

/* Freeze re-solved flow f at level: its new rate, its weight off and its
 * load onto every link it crosses but skip (the link being frozen, whose
 * W and F are not read again in the solve). */
static inline void fluid_freeze(struct fluid *fl, uint64_t f, double level, uint64_t *nfo,
				uint32_t skip)
{
	const struct sim_inc *in = fl->in;
	fl->v[f] = level;
	fl->fo[(*nfo)++] = f;
	for (uint64_t j = in->off[f]; j < in->off[f + 1]; j++) {
		uint32_t e = SIM_LINK(in->inc[j]);
		if (e == skip)
			continue;
		fl->W[e] -= SIM_W(in->inc[j]);
		fl->F[e] += level * SIM_W(in->inc[j]) / 128.0;
	}
}

/* One link's list before a solve: the held flows' load summed in flow
 * order into F, the growing flows listed apart in flow order (sflow,
 * scnt), finished flows dropped from the list; returns the growing
 * flows' weight. */
static inline uint64_t fluid_scan_link(struct fluid *fl, uint32_t e)
{
	const double *v = fl->v;
	uint32_t *lf = fl->lflow + fl->loff[e];
	uint8_t *lw = fl->lw + fl->loff[e];
	uint32_t *sf = fl->sflow + fl->loff[e];
	double *hl = fl->hl;
	uint32_t m = 0, s = 0, nh = 0, n = fl->lcnt[e];
	uint64_t W = 0;
	/* without branches on which kind a flow is (they alternate at
	 * random): each goes to its list, the held ones' loads to hl */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = lf[i];
		double x = v[f];
		uint32_t w = lw[i];
		if (x == FV_DONE)
			continue;
		lf[m] = f;
		lw[m] = (uint8_t)w;
		m++;
		uint32_t grow = x < 0;
		sf[s] = f;
		s += grow;
		W += w & (0 - grow);
		hl[nh] = x * w / 128.0;
		nh += !grow;
	}
	double load = 0;
	for (uint32_t i = 0; i < nh; i++)
		load += hl[i];
	fl->lcnt[e] = m;
	fl->scnt[e] = s;
	fl->F[e] = load;
	return W;
}

/* Max-min rates of the flows set[0..k) (v FV_GROWING) with every other
 * running flow held at its rate v[]: progressive filling over the
 * capacity the held flows leave, as sim_maxmin does for all flows.  New
 * rates in v; fl->fo gets the set in the order its flows froze (their
 * levels never decrease), *nfz of them, then those never frozen (rate 0).
 * Exact when the held flows are those below the slowest flow that
 * finished: a link that fills below that level carries none of the
 * finished flows, so the filling up to it is unchanged. */
static int fluid_solve(struct fluid *fl, const uint64_t *set, uint64_t k, uint64_t *nfz)
{
	const struct sim_inc *in = fl->in;
	double *v = fl->v;
	uint32_t nt = 0;
	uint64_t ncap = 0, nfo = 0;
	if (4 * k >= fl->running) {
		/* a large part of the flows: every link with flows is scanned
		 * (no pass over the re-solved flows' links first) */
		if (fl->anycap)
			for (uint64_t x = 0; x < k; x++)
				if (in->demand[set[x]] > 0)
					fl->capped[ncap++] = set[x];
		for (uint32_t e = 0; e < fl->nlinks; e++) {
			if (!fl->lcnt[e])
				continue;
			fl->W[e] = fluid_scan_link(fl, e);
			if (fl->W[e])
				fl->touched[nt++] = e;
		}
	} else {
		for (uint64_t x = 0; x < k; x++) {
			uint64_t f = set[x];
			if (in->demand[f] > 0)
				fl->capped[ncap++] = f;
			for (uint64_t j = in->off[f]; j < in->off[f + 1]; j++) {
				uint32_t e = SIM_LINK(in->inc[j]);
				if (!fl->W[e])
					fl->touched[nt++] = e;
				fl->W[e] += SIM_W(in->inc[j]);
			}
		}
		/* the held flows' load on the links the re-solved ones
		 * cross */
		for (uint32_t t = 0; t < nt; t++)
			fluid_scan_link(fl, fl->touched[t]);
	}
	if (sort_by_demand(in->demand, fl->capped, ncap))
		return -1;
	struct heap *h = &fl->h;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t e = fl->touched[t];
		double lv = (fl->cap[e] - fl->F[e]) * 128.0 / (double)fl->W[e];
		h->a[t].key = lv < 0 ? 0 : lv;
		h->a[t].e = e;
	}
	h->n = nt;
	hheapify(h);
	uint64_t remaining = k, ci = 0;
	while (remaining) {
		while (h->n) {
			uint32_t e = h->a[0].e;
			if (!fl->W[e]) {
				hpop(h);
				continue;
			}
			double cur = (fl->cap[e] - fl->F[e]) * 128.0 / (double)fl->W[e];
			if (cur < 0)
				cur = 0;
			if (cur > h->a[0].key * (1 + 1e-12) + 1e-300) {
				hraise_top(h, cur);
				continue;
			}
			break;
		}
		while (ci < ncap && v[fl->capped[ci]] >= 0)
			ci++;
		if (!h->n && ci == ncap)
			break;
		if (ci < ncap && (!h->n || in->demand[fl->capped[ci]] <= h->a[0].key)) {
			uint64_t f = fl->capped[ci++];
			fluid_freeze(fl, f, in->demand[f], &nfo, UINT32_MAX);
			remaining--;
			continue;
		}
		/* every re-solved flow of the link not frozen yet */
		double level = h->a[0].key;
		uint32_t e = h->a[0].e;
		hpop(h);
		const uint32_t *sf = fl->sflow + fl->loff[e];
		for (uint32_t x = 0; x < fl->scnt[e]; x++) {
			uint32_t f = sf[x];
			if (v[f] >= 0)
				continue;
			fluid_freeze(fl, f, level, &nfo, e);
			remaining--;
		}
	}
	*nfz = nfo;
	for (uint64_t x = 0; x < k; x++)
		if (v[set[x]] < 0) {
			v[set[x]] = 0;
			fl->fo[nfo++] = set[x];
		}
	for (uint32_t t = 0; t < nt; t++)
		fl->W[fl->touched[t]] = 0;
	return 0;
}

/* set[0, k) fastest first, ties by flow index, from the freeze order of
 * the solve (fo: nfz flows with non-decreasing rates, then the k - nfz
 * left at 0): reversed group by group (a group, the flows frozen at one
 * level, keeps its order: mostly one link's flows, in index order), each
 * run of equal rates then put in index order.  The result is checked
 * and, should it not be sorted, sorted in full (the order is total, so
 * either way it is the one sort_by_rate gives). */
static int order_set(uint64_t *set, uint64_t k, const uint64_t *fo, uint64_t nfz, const double *v)
{
	uint64_t j = 0;
	for (uint64_t b = nfz; b > 0;) {
		uint64_t a = b - 1;
		while (a > 0 && v[fo[a - 1]] == v[fo[b - 1]])
			a--;
		memcpy(set + j, fo + a, (b - a) * sizeof(uint64_t));
		j += b - a;
		b = a;
	}
	memcpy(set + j, fo + nfz, (k - nfz) * sizeof(uint64_t));
	for (uint64_t a = 0; a < k;) {
		uint64_t b = a + 1, up = 1;
		for (; b < k && v[set[b]] == v[set[a]]; b++)
			up &= set[b - 1] < set[b];
		if (!up && b - a > 64) {
			if (sort_by_rate(set + a, b - a, v))
				return -1;
		} else if (!up) {
			for (uint64_t x = a + 1; x < b; x++) {
				uint64_t f = set[x], y = x;
				for (; y > a && set[y - 1] > f; y--)
					set[y] = set[y - 1];
				set[y] = f;
			}
		}
		a = b;
	}
	for (uint64_t i = 1; i < k; i++)
		if (cmp_rate_desc(&set[i - 1], &set[i], v) >= 0)
			return sort_by_rate(set, k, v);
	return 0;
}

static void fluid_free(struct fluid *fl)
{
	free(fl->loff);
	free(fl->lcnt);
	free(fl->lflow);
	free(fl->lw);
	free(fl->sflow);
	free(fl->scnt);
	free(fl->W);
	free(fl->F);
	free(fl->touched);
	free(fl->hl);
	free(fl->v);
	free(fl->capped);
	free(fl->fo);
	free(fl->h.a);
}

/* The completion events: one entry (time, flow) per running flow with a
 * finite time, earliest first, ties by flow index; pos[f] is the flow's
 * place (UINT32_MAX: none), so a new time moves the entry. */
struct cheap {
	struct hent *a;
	uint32_t *pos;
	size_t n;
};

static void ch_place(struct cheap *h, size_t i, struct hent v)
{
	while (i) {
		size_t p = (i - 1) / 2;
		if (!hent_less(&v, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		h->pos[h->a[i].e] = (uint32_t)i;
		i = p;
	}
	sift_down(h->a, h->pos, h->n, i, v);
}

/* flow f's time: key (finite), or none */
static void ch_set(struct cheap *h, uint64_t f, double key)
{
	uint32_t p = h->pos[f];
	if (isfinite(key)) {
		struct hent v = { key, f };
		ch_place(h, p == UINT32_MAX ? h->n++ : p, v);
		return;
	}
	if (p == UINT32_MAX)
		return;
	h->pos[f] = UINT32_MAX;
	struct hent last = h->a[--h->n];
	if (p < h->n)
		ch_place(h, p, last);
}

/* flow f's time without keeping the heap order (many flows at once;
 * ch_heapify restores it) */
static void ch_set_unordered(struct cheap *h, uint64_t f, double key)
{
	uint32_t p = h->pos[f];
	if (isfinite(key)) {
		if (p == UINT32_MAX) {
			p = (uint32_t)h->n++;
			h->a[p].e = f;
			h->pos[f] = p;
		}
		h->a[p].key = key;
		return;
	}
	if (p == UINT32_MAX)
		return;
	h->pos[f] = UINT32_MAX;
	struct hent last = h->a[--h->n];
	if (p < h->n) {
		h->a[p] = last;
		h->pos[last.e] = p;
	}
}

/* the heap order again, bottom-up (the same entries, so the same
 * earliest one as updating them one by one) */
static void ch_heapify(struct cheap *h)
{
	for (size_t i = h->n / 2; i-- > 0;)
		sift_down(h->a, NULL, h->n, i, h->a[i]);
	for (size_t i = 0; i < h->n; i++)
		h->pos[h->a[i].e] = (uint32_t)i;
}

int sim_fluid(const struct sim_inc *in, const double *cap, uint32_t nlinks, const double *bytes,
	      const uint8_t *counted, const double *rate0, double eps, double *fct, uint64_t *steps)
{
	if (!(eps > 0))
		eps = FLUID_EPS;
	uint64_t nf = in->nf, nz = nf ? nf : 1;
	struct fluid fl = { .in = in, .cap = cap, .nlinks = nlinks };
	struct cheap ev = { 0 };
	double *t0 = malloc(nz * sizeof(double)), *rem = malloc(nz * sizeof(double));
	double *c = malloc(nz * sizeof(double)), *oldr = malloc(nz * sizeof(double));
	uint64_t *ord = malloc(nz * sizeof(uint64_t));
	int rc = -1;
	*steps = 0;
	fl.loff = calloc((size_t)nlinks + 1, sizeof(uint64_t));
	fl.lcnt = calloc(nlinks ? nlinks : 1, sizeof(uint32_t));
	fl.lflow = malloc((in->ninc ? in->ninc : 1) * sizeof(uint32_t));
	fl.lw = malloc(in->ninc ? in->ninc : 1);
	fl.sflow = malloc((in->ninc ? in->ninc : 1) * sizeof(uint32_t));
	fl.scnt = calloc(nlinks ? nlinks : 1, sizeof(uint32_t));
	fl.W = calloc(nlinks ? nlinks : 1, sizeof(uint64_t));
	fl.F = calloc(nlinks ? nlinks : 1, sizeof(double));
	fl.touched = malloc((nlinks ? nlinks : 1) * sizeof(uint32_t));
	fl.h.a = malloc((nlinks ? nlinks : 1) * sizeof(struct hent));
	fl.h.cap = nlinks ? nlinks : 1;
	fl.v = calloc(nz, sizeof(double));
	fl.capped = malloc(nz * sizeof(uint64_t));
	fl.fo = malloc(nz * sizeof(uint64_t));
	ev.a = malloc(nz * sizeof(struct hent));
	ev.pos = malloc(nz * sizeof(uint32_t));
	if (!t0 || !rem || !c || !oldr || !ord || !fl.loff || !fl.lcnt || !fl.lflow || !fl.lw ||
	    !fl.sflow || !fl.scnt || !fl.W || !fl.F || !fl.touched || !fl.h.a || !fl.v ||
	    !fl.capped || !fl.fo || !ev.a || !ev.pos)
		goto out;
	for (uint64_t j = 0; j < in->ninc; j++)
		fl.loff[SIM_LINK(in->inc[j]) + 1]++;
	uint64_t maxl = 1;
	for (uint32_t e = 0; e < nlinks; e++) {
		if (fl.loff[e + 1] > maxl)
			maxl = fl.loff[e + 1];
		fl.loff[e + 1] += fl.loff[e];
	}
	fl.hl = malloc(maxl * sizeof(double));
	if (!fl.hl)
		goto out;
	for (uint64_t f = 0; f < nf; f++)
		for (uint64_t j = in->off[f]; j < in->off[f + 1]; j++) {
			uint32_t e = SIM_LINK(in->inc[j]);
			uint64_t at = fl.loff[e] + fl.lcnt[e]++;
			fl.lflow[at] = (uint32_t)f;
			fl.lw[at] = (uint8_t)SIM_W(in->inc[j]);
		}
	/* every flow starts at its max-min rate with all its bytes; its
	 * completion is t0 + rem / r (the same expression as bytes / rate
	 * while the rate has not changed) */
	double *r = fl.v;
	uint64_t left = 0;
	for (uint64_t f = 0; f < nf; f++) {
		r[f] = rate0[f];
		t0[f] = 0;
		rem[f] = bytes[f];
		c[f] = r[f] > 0 ? t0[f] + rem[f] * 8.0 / (r[f] * 1e3) : INFINITY;
		fct[f] = INFINITY;
		ord[f] = f;
		left += !counted || counted[f];
		ev.pos[f] = UINT32_MAX;
		ch_set(&ev, f, c[f]);
		fl.anycap |= in->demand[f] > 0;
	}
	fl.running = nf;
	if (sort_by_rate(ord, nf, r))
		goto out;
	uint64_t head = 0; /* ord[head..nf): running and finished flows, fastest first */
	while (left && ev.n) {
		/* the earliest completion and every one within eps of it */
		double T = ev.a[0].key, tg = 0, thr = INFINITY;
		uint64_t nd = 0;
		while (ev.n) {
			struct hent top = ev.a[0];
			if (top.key > T * (1 + eps))
				break;
			ch_set(&ev, top.e, INFINITY);
			fct[top.e] = top.key;
			tg = top.key;
			if (r[top.e] < thr)
				thr = r[top.e];
			r[top.e] = FV_DONE;
			fl.running--;
			if (!counted || counted[top.e])
				left--;
			nd++;
		}
		if (!left)
			break;
		/* the flows at least as fast as the slowest finished one may
		 * change rate; they are the front of ord (finished flows are
		 * dropped from it as they are met) */
		uint64_t p = head, k = 0;
		for (; p < nf; p++) {
			uint64_t f = ord[p];
			double x = r[f];
			if (x == FV_DONE)
				continue;
			if (x < thr)
				break;
			ord[head + k++] = f;
		}
		/* ord[head, head + k) re-solved, ord[head + k, p) are gaps:
		 * move the set to end at p */
		if (k && head + k < p)
			memmove(ord + p - k, ord + head, k * sizeof(uint64_t));
		head = p - k;
		if (!k)
			continue;
		uint64_t *set = ord + head, nfz = 0;
		for (uint64_t x = 0; x < k; x++) {
			oldr[x] = r[set[x]];
			r[set[x]] = FV_GROWING;
		}
		if (fluid_solve(&fl, set, k, &nfz))
			goto out;
		(*steps)++;
		/* a new time for most of the heap: set them all, then rebuild */
		int bulk = 8 * k >= ev.n;
		for (uint64_t x = 0; x < k; x++) {
			uint64_t f = set[x];
			double was = oldr[x];
			if (r[f] == was)
				continue;
			/* bytes moved at the old rate until now, the rest at the new */
			double moved = isfinite(was) ? was * (tg - t0[f]) * 1e3 / 8.0 : rem[f];
			rem[f] = rem[f] - moved > 0 ? rem[f] - moved : 0;
			t0[f] = tg;
			c[f] = r[f] > 0 ? t0[f] + rem[f] * 8.0 / (r[f] * 1e3) : INFINITY;
			if (bulk)
				ch_set_unordered(&ev, f, c[f]);
			else
				ch_set(&ev, f, c[f]);
		}
		if (bulk)
			ch_heapify(&ev);
		/* keep ord fastest first: the re-solved flows among themselves,
		 * then (rarely, from rounding) merged into the held ones */
		if (order_set(set, k, fl.fo, nfz, r))
			goto out;
		uint64_t q = p;
		while (q < nf && r[ord[q]] == FV_DONE)
			q++;
		if (q < nf && cmp_rate_desc(&ord[q], &set[k - 1], r) < 0)
			if (sort_by_rate(ord + head, nf - head, r))
				goto out;
	}
	rc = 0;
out:
	fluid_free(&fl);
	free(ev.a);
	free(ev.pos);
	free(t0);
	free(rem);
	free(c);
	free(oldr);
	free(ord);
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
	double mn = INFINITY, mx = 0, sum = 0, esum = 0;
	uint64_t nel = 0;
	for (uint64_t f = 0; f < in.nf; f++)
		nel += in.demand[f] <= 0;
	uint64_t m = nel ? nel : in.nf;
	double *bytes = malloc((in.nf ? in.nf : 1) * sizeof(double));
	double *fct = malloc((in.nf ? in.nf : 1) * sizeof(double));
	uint8_t *counted = malloc(in.nf ? in.nf : 1);
	if (!bytes || !fct || !counted) {
		free(bytes);
		free(fct);
		free(counted);
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (uint64_t f = 0; f < in.nf; f++) {
		sum += rate[f];
		res->demand_total += in.demand[f];
		/* each flow's own bytes (traffic files) or the phase's */
		const struct ibf_sim_flow *fl = &ph->flow[in.index ? in.index[f] : f];
		bytes[f] = fl->bytes > 0 ? fl->bytes : ph->bytes;
		counted[f] = !nel || in.demand[f] <= 0;
		if (!counted[f])
			continue;
		esum += rate[f];
		if (rate[f] < mn)
			mn = rate[f];
		if (rate[f] > mx)
			mx = rate[f];
	}
	res->aggregate = sum;
	/* the phase lasts until its last counted flow is done; with equal
	 * bytes no flow outlives a faster one, nothing is re-solved and each
	 * time is bytes / its rate at the start */
	if (m && sim_fluid(&in, n->cap, n->nlinks, bytes, counted, rate, n->fluid_eps, fct,
			   &res->fluid_steps)) {
		free(bytes);
		free(fct);
		free(counted);
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	if (m) {
		/* compact the counted rates and times to the front */
		uint64_t k = 0;
		double tmax = 0, tsum = 0;
		for (uint64_t f = 0; f < in.nf; f++)
			if (counted[f]) {
				if (fct[f] > tmax)
					tmax = fct[f];
				tsum += fct[f];
				fct[k] = fct[f];
				rate[k++] = rate[f];
			}
		res->min_rate = mn;
		res->max_rate = mx;
		res->mean_rate = esum / (double)m;
		res->median_rate = select_kth(rate, m, m / 2);
		res->time_us = tmax;
		res->fct_mean_us = tsum / (double)m;
		/* nearest rank: the smallest time at least p % of the flows reach */
		res->fct_p50_us = select_kth(fct, m, (m + 1) / 2 - 1);
		res->fct_p99_us = select_kth(fct, m, (99 * m + 99) / 100 - 1);
	}
	free(bytes);
	free(fct);
	free(counted);
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
