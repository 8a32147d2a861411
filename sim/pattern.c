/* Traffic patterns as phases of flows between ranks (definitions and
 * citations in docs/sim.md). */
#include "ibf_sim.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[IBF_PAT_SHIFT] = "shift",
	[IBF_PAT_SHIFTS] = "shifts",
	[IBF_PAT_PERM] = "perm",
	[IBF_PAT_A2A] = "a2a",
	[IBF_PAT_A2A_PHASED] = "a2a-phased",
	[IBF_PAT_PAIRWISE] = "pairwise",
	[IBF_PAT_CUMULATIVE] = "cumulative",
	[IBF_PAT_RANDPAIR] = "random-pairwise",
	[IBF_PAT_BISECT] = "bisection",
	[IBF_PAT_RING] = "ring",
	[IBF_PAT_RECDBL] = "recdbl",
	[IBF_PAT_BRUCK] = "bruck",
	[IBF_PAT_BCAST] = "bcast",
	[IBF_PAT_HIER] = "hier",
	[IBF_PAT_ADVERSARIAL] = "adversarial",
	[IBF_PAT_MIX] = "mix",
	[IBF_PAT_FILE] = "file",
};

const char *ibf_sim_pattern_name(int id)
{
	return id >= 0 && id <= IBF_PAT_FILE ? names[id] : "?";
}

int ibf_sim_pattern_parse(const char *s, struct ibf_sim_pattern *p, struct ibf_error *err)
{
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->bytes = 1 << 20;
	p->mice = 4;
	const char *colon = strchr(s, ':');
	size_t nl = colon ? (size_t)(colon - s) : strlen(s);
	int id = -1;
	for (int i = 0; i <= IBF_PAT_FILE; i++)
		if (strlen(names[i]) == nl && !strncmp(names[i], s, nl))
			id = i;
	if (id < 0)
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"unknown pattern \"%s\" (shift:C, shifts, perm[:K], a2a, "
			"a2a-phased, pairwise, cumulative, random-pairwise[:K], "
			"bisection[:K], ring, recdbl, bruck, bcast, hier, adversarial, "
			"mix:C1..C5, file:PATH)",
			s);
	p->id = id;
	p->count = id == IBF_PAT_BISECT ? 50 : 10;
	const char *arg = colon ? colon + 1 : NULL;
	char *end = NULL;
	switch (id) {
	case IBF_PAT_SHIFT: {
		/* digits only: strtoul would take " 3", "+3" and wrap "-1" */
		unsigned long c = arg && isdigit((unsigned char)*arg) ? strtoul(arg, &end, 10) : 0;
		if (!c || *end || c > UINT32_MAX)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "pattern \"%s\": expected shift:C with C >= 1", s);
		p->shift = (uint32_t)c;
		return 0;
	}
	case IBF_PAT_PERM:
	case IBF_PAT_RANDPAIR:
	case IBF_PAT_BISECT:
		if (arg) {
			unsigned long k = isdigit((unsigned char)*arg) ? strtoul(arg, &end, 10) : 0;
			if (!k || *end || k > 1000000)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "pattern \"%s\": K must be 1..1000000", s);
			p->count = (uint32_t)k;
		}
		return 0;
	case IBF_PAT_MIX:
		if (!arg || (arg[0] != 'C' && arg[0] != 'c') || arg[1] < '1' || arg[1] > '5' ||
		    arg[2])
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "pattern \"%s\": expected mix:C1 .. mix:C5", s);
		p->mix = arg[1] - '0';
		return 0;
	case IBF_PAT_FILE:
		if (!arg || !*arg)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "pattern \"%s\": expected file:PATH (a traffic file)",
					     s);
		p->file = arg;
		return 0;
	default:
		if (arg)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "pattern \"%s\" takes no argument", s);
		return 0;
	}
}

/* ------------------------------------------------------------ phase building */

struct gen {
	const struct ibf_sim_net *n;
	const struct ibf_sim_placement *pl;
	const struct ibf_sim_pattern *p;
	ibf_sim_phase_fn fn;
	void *ctx;
	struct ibf_sim_phase ph;
	uint32_t index, nphases;
	int stop;
	int oom;
	uint64_t maxflows; /* flows a phase may have (memory / SIM_FLOW_BYTES) */
	int toobig;	   /* a phase reached maxflows */
	uint64_t need;	   /* flows of that phase when known before building it */
};

/* Flows of the single phase of a2a and mix:C, which grow as the square of
 * the ranks, counted before any is built (0 for the other patterns:
 * their phases have at most a few flows per rank). */
static uint64_t quadratic_flows(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
				const struct ibf_sim_pattern *p)
{
	uint64_t N = pl->nranks;
	if (p->id == IBF_PAT_A2A)
		return N * (N - 1);
	if (p->id != IBF_PAT_MIX || p->mix < 1 || p->mix > 4)
		return 0; /* C5: nothing leaves a node */
	uint32_t *per = calloc(n->nhosts ? n->nhosts : 1, sizeof(uint32_t));
	if (!per)
		return 0;
	uint64_t k = 0;
	for (uint32_t r = 0; r < pl->nranks; r++)
		per[pl->host[r]]++;
	for (uint32_t r = 0; r < pl->nranks; r++)
		k += N - per[pl->host[r]];
	free(per);
	return k;
}

/* Memory a phase takes per flow, all told: the flow itself (24 bytes),
 * its links in both incidence lists, its rate, bytes and state, the
 * solver's copies.  Measured: about 190 bytes on a 3-level fat tree (a2a
 * on 4096 hosts, 16.8 million flows, 3.1 GB peak; 8 links per path), more
 * on longer paths.  a2a on 13824 hosts (191 million flows) grew to the
 * machine's 24 GiB and was killed after 7 minutes. */
#define SIM_FLOW_BYTES 192u

static void begin(struct gen *g, double bytes, uint32_t repeat, const char *label)
{
	g->ph.nflows = 0;
	g->ph.bytes = bytes;
	g->ph.repeat = repeat;
	snprintf(g->ph.label, sizeof(g->ph.label), "%s", label);
}

static void add(struct gen *g, uint32_t s, uint32_t d, double demand)
{
	if (s == d || g->oom || g->toobig)
		return;
	if (g->ph.nflows >= g->maxflows) {
		g->toobig = 1;
		return;
	}
	if (g->ph.nflows == g->ph.cap) {
		uint64_t nc = g->ph.cap ? g->ph.cap * 2 : 1024;
		struct ibf_sim_flow *nf = realloc(g->ph.flow, nc * sizeof(*nf));
		if (!nf) {
			g->oom = 1;
			return;
		}
		g->ph.flow = nf;
		g->ph.cap = nc;
	}
	struct ibf_sim_flow *fl = &g->ph.flow[g->ph.nflows++];
	fl->src = s;
	fl->dst = d;
	fl->demand = demand;
	fl->bytes = 0; /* the phase's */
}

/* hand the phase over; returns non-zero to stop */
static int emit(struct gen *g)
{
	if (g->oom || g->toobig || g->stop)
		return 1;
	g->stop = g->fn(g->ctx, &g->ph, g->index++, g->nphases);
	return g->stop;
}

static void shuffle(uint32_t *a, uint32_t n, uint64_t *st)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)ibf_rand_below(st, i);
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static uint32_t ilog2_floor(uint32_t n)
{
	uint32_t k = 0;
	while ((2ull << k) <= n)
		k++;
	return k;
}

/* pair the two halves of a shuffled rank list, both directions */
static int random_pairs(struct gen *g, uint32_t N, uint32_t *perm, const char *what)
{
	for (uint32_t k = 0; k < g->p->count; k++) {
		uint64_t st = g->p->seed ^ (0xd1b54a32d192ed03ull * (k + 1));
		for (uint32_t i = 0; i < N; i++)
			perm[i] = i;
		shuffle(perm, N, &st);
		char lab[48];
		snprintf(lab, sizeof(lab), "%s %u", what, k + 1);
		begin(g, g->p->bytes, 1, lab);
		for (uint32_t i = 0; i + N / 2 < N && i < N / 2; i++) {
			add(g, perm[i], perm[i + N / 2], 0);
			add(g, perm[i + N / 2], perm[i], 0);
		}
		if (emit(g))
			return 1;
	}
	return 0;
}

/* switch-level longest matching (Jyothi et al.): every switch with ranks is
 * paired, greedily in a seeded order, with the unpaired switch farthest away */
static int adversarial(struct gen *g, uint32_t N)
{
	const struct ibf_sim_net *n = g->n;
	const struct ibf_fabric *f = n->f;
	uint32_t S = f->nsw;
	uint32_t *cnt = calloc(S + 1, sizeof(uint32_t)), *first = calloc(S + 1, sizeof(uint32_t));
	uint32_t *byrank = malloc((N ? N : 1) * sizeof(uint32_t));
	uint32_t *order = malloc((S ? S : 1) * sizeof(uint32_t));
	int32_t *mate = malloc((S ? S : 1) * sizeof(int32_t));
	uint32_t *dist = malloc((S ? S : 1) * sizeof(uint32_t)),
		 *q = malloc((S ? S : 1) * sizeof(uint32_t));
	int rc = 0;
	if (!cnt || !first || !byrank || !order || !mate || !dist || !q) {
		g->oom = 1;
		rc = 1;
		goto out;
	}
	/* ranks grouped by their host's switch */
	for (uint32_t r = 0; r < N; r++)
		cnt[n->host[g->pl->host[r]].sw + 1]++;
	for (uint32_t s = 0; s < S; s++)
		cnt[s + 1] += cnt[s];
	memcpy(first, cnt, (S + 1) * sizeof(uint32_t));
	for (uint32_t r = 0; r < N; r++)
		byrank[first[n->host[g->pl->host[r]].sw]++] = r;
	uint32_t m = 0;
	for (uint32_t s = 0; s < S; s++) {
		mate[s] = -1;
		if (cnt[s + 1] > cnt[s])
			order[m++] = s;
	}
	uint64_t st = g->p->seed ^ 0x2545f4914f6cdd1dull;
	shuffle(order, m, &st);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t a = order[i];
		if (mate[a] >= 0)
			continue;
		ibf_bfs(f, a, dist, q);
		int32_t best = -1;
		for (uint32_t j = 0; j < m; j++) {
			uint32_t b = order[j];
			if (b == a || mate[b] >= 0 || dist[b] == UINT32_MAX)
				continue;
			if (best < 0 || dist[b] > dist[best])
				best = (int32_t)b;
		}
		if (best >= 0) {
			mate[a] = best;
			mate[best] = (int32_t)a;
		}
	}
	double mice = g->p->mice_gbps > 0 ? g->p->mice_gbps : n->assumed_gbps * 0.01;
	begin(g, g->p->bytes, 1, "elephants + mice");
	for (uint32_t s = 0; s < S; s++) {
		if (mate[s] < 0)
			continue;
		uint32_t t = (uint32_t)mate[s];
		uint32_t na = cnt[s + 1] - cnt[s], nb = cnt[t + 1] - cnt[t];
		for (uint32_t i = 0; i < na && nb; i++)
			add(g, byrank[cnt[s] + i], byrank[cnt[t] + i % nb], 0);
	}
	for (uint32_t r = 0; r < N && N > 1; r++)
		for (uint32_t k = 0; k < g->p->mice; k++) {
			uint32_t d = (uint32_t)ibf_rand_below(&st, N - 1);
			add(g, r, d >= r ? d + 1 : d, mice);
		}
	rc = emit(g);
out:
	free(cnt);
	free(first);
	free(byrank);
	free(order);
	free(mate);
	free(dist);
	free(q);
	return rc;
}

/* hierarchical all-reduce: ring reduce-scatter inside each switch's ranks,
 * ring all-reduce across switches among ranks of equal position, ring
 * all-gather inside each switch again */
static int hierarchical(struct gen *g, uint32_t N)
{
	const struct ibf_sim_net *n = g->n;
	uint32_t S = n->f->nsw;
	uint32_t *cnt = calloc(S + 1, sizeof(uint32_t)), *pos = calloc(S + 1, sizeof(uint32_t));
	uint32_t *byrank = malloc((N ? N : 1) * sizeof(uint32_t));
	int rc = 0;
	if (!cnt || !pos || !byrank) {
		g->oom = 1;
		rc = 1;
		goto out;
	}
	for (uint32_t r = 0; r < N; r++)
		cnt[n->host[g->pl->host[r]].sw + 1]++;
	uint32_t gmax = 0, ngroups = 0;
	for (uint32_t s = 0; s < S; s++) {
		if (cnt[s + 1] > gmax)
			gmax = cnt[s + 1];
		ngroups += cnt[s + 1] > 0;
		cnt[s + 1] += cnt[s];
	}
	memcpy(pos, cnt, (S + 1) * sizeof(uint32_t));
	for (uint32_t r = 0; r < N; r++)
		byrank[pos[n->host[g->pl->host[r]].sw]++] = r;
	double M = g->p->bytes, part = gmax ? M / gmax : M;
	for (int half = 0; half < 2; half++) {
		if (half == 1) {
			/* across switches: ranks at position i of each switch form a ring */
			begin(g, ngroups ? part / ngroups : part,
			      ngroups > 1 ? 2 * (ngroups - 1) : 0, "across switches");
			for (uint32_t i = 0; i < gmax; i++) {
				int64_t firstr = -1, prev = -1;
				for (uint32_t s = 0; s < S; s++) {
					if (cnt[s + 1] - cnt[s] <= i)
						continue;
					uint32_t r = byrank[cnt[s] + i];
					if (prev >= 0)
						add(g, (uint32_t)prev, r, 0);
					else
						firstr = r;
					prev = r;
				}
				if (prev >= 0 && firstr >= 0)
					add(g, (uint32_t)prev, (uint32_t)firstr, 0);
			}
			if (g->ph.nflows && emit(g)) {
				rc = 1;
				goto out;
			}
		}
		begin(g, part, gmax > 1 ? gmax - 1 : 0,
		      half ? "all-gather in switch" : "reduce-scatter in switch");
		for (uint32_t s = 0; s < S; s++) {
			uint32_t k = cnt[s + 1] - cnt[s];
			for (uint32_t i = 0; k > 1 && i < k; i++)
				add(g, byrank[cnt[s] + i], byrank[cnt[s] + (i + 1) % k], 0);
		}
		if (g->ph.nflows && emit(g)) {
			rc = 1;
			goto out;
		}
	}
out:
	free(cnt);
	free(pos);
	free(byrank);
	return rc;
}

/* One phase per shift c = 1 .. N-1 (shifts, or all-to-all in phases). */
static void gen_shifts(struct gen *g, uint32_t N, int phased)
{
	char lab[48];
	g->nphases = N - 1;
	for (uint32_t c = 1; c < N; c++) {
		snprintf(lab, sizeof(lab), "%s %u", phased ? "phase" : "shift", c);
		begin(g, g->p->bytes, 1, lab);
		for (uint32_t r = 0; r < N; r++)
			add(g, r, (r + c) % N, 0);
		if (emit(g))
			return;
	}
}

/* count seeded random permutations, one phase each. */
static void gen_perms(struct gen *g, uint32_t N, uint32_t *perm)
{
	const struct ibf_sim_pattern *p = g->p;
	char lab[48];
	g->nphases = p->count;
	for (uint32_t k = 0; k < p->count; k++) {
		uint64_t st = p->seed ^ (0xd1b54a32d192ed03ull * (k + 1));
		for (uint32_t i = 0; i < N; i++)
			perm[i] = i;
		shuffle(perm, N, &st);
		snprintf(lab, sizeof(lab), "permutation %u", k + 1);
		begin(g, p->bytes, 1, lab);
		for (uint32_t r = 0; r < N; r++)
			add(g, r, perm[r], 0);
		if (emit(g))
			return;
	}
}

/* Pairwise exchange: at distance s every rank sends both ways. */
static void gen_pairwise(struct gen *g, uint32_t N)
{
	char lab[48];
	g->nphases = N / 2;
	for (uint32_t s = 1; s <= N / 2; s++) {
		snprintf(lab, sizeof(lab), "distance %u", s);
		begin(g, g->p->bytes, 1, lab);
		for (uint32_t r = 0; r < N; r++) {
			add(g, r, (r + s) % N, 0);
			if ((r + s) % N != (r + N - s) % N)
				add(g, r, (r + N - s) % N, 0);
		}
		if (emit(g))
			return;
	}
}

/* 1, 2, .. N/2 neighbouring pairs exchanging at once. */
static void gen_cumulative(struct gen *g, uint32_t N)
{
	char lab[48];
	g->nphases = N / 2;
	for (uint32_t k = 1; k <= N / 2; k++) {
		snprintf(lab, sizeof(lab), "%u pairs", k);
		begin(g, g->p->bytes, 1, lab);
		for (uint32_t i = 0; i < k; i++) {
			add(g, 2 * i, 2 * i + 1, 0);
			add(g, 2 * i + 1, 2 * i, 0);
		}
		if (emit(g))
			return;
	}
}

/* Recursive doubling over the largest power of two P <= N; ranks >= P
 * fold into their partner r - P before and after. */
static void gen_recdbl(struct gen *g, uint32_t N)
{
	double M = g->p->bytes;
	uint32_t lg = ilog2_floor(N), P = 1u << lg;
	char lab[48];
	g->nphases = lg + (P < N ? 2 : 0);
	if (P < N) {
		begin(g, M, 1, "fold in");
		for (uint32_t r = P; r < N; r++)
			add(g, r, r - P, 0);
		if (emit(g))
			return;
	}
	for (uint32_t k = 0; k < lg; k++) {
		snprintf(lab, sizeof(lab), "distance %u", 1u << k);
		begin(g, M, 1, lab);
		for (uint32_t r = 0; r < P; r++)
			add(g, r, r ^ (1u << k), 0);
		if (emit(g))
			return;
	}
	if (P < N) {
		begin(g, M, 1, "fold out");
		for (uint32_t r = P; r < N; r++)
			add(g, r - P, r, 0);
		emit(g);
	}
}

static uint32_t ceil_log2(uint32_t N)
{
	uint32_t steps = 0;
	while ((1ull << steps) < N)
		steps++;
	return steps;
}

/* Bruck's all-gather: at distance d = 2^k, min(d, N-d) blocks. */
static void gen_bruck(struct gen *g, uint32_t N)
{
	uint32_t steps = ceil_log2(N);
	char lab[48];
	g->nphases = steps;
	for (uint32_t k = 0; k < steps; k++) {
		uint32_t d = 1u << k, blocks = d < N - d ? d : N - d;
		snprintf(lab, sizeof(lab), "distance %u", d);
		begin(g, g->p->bytes / N * blocks, 1, lab);
		for (uint32_t r = 0; r < N; r++)
			add(g, r, (r + N - d) % N, 0);
		if (emit(g))
			return;
	}
}

/* Binomial-tree broadcast from rank 0. */
static void gen_bcast(struct gen *g, uint32_t N)
{
	uint32_t steps = ceil_log2(N);
	char lab[48];
	g->nphases = steps;
	for (uint32_t k = 0; k < steps; k++) {
		uint32_t d = 1u << k;
		snprintf(lab, sizeof(lab), "step %u", k + 1);
		begin(g, g->p->bytes, 1, lab);
		for (uint32_t r = 0; r < d && r + d < N; r++)
			add(g, r, r + d, 0);
		if (emit(g))
			return;
	}
}

/* C1..C5: every rank's inter-node share, spread evenly over the ranks of
 * other hosts. */
static void gen_mix(struct gen *g, uint32_t N)
{
	static const double share[6] = { 0, 0.20, 0.15, 0.10, 0.05, 0.0 };
	const struct ibf_sim_pattern *p = g->p;
	const struct ibf_sim_net *n = g->n;
	const struct ibf_sim_placement *pl = g->pl;
	double frac = share[p->mix];
	char lab[48];
	g->nphases = 1;
	snprintf(lab, sizeof(lab), "C%d (%.0f %% inter-node)", p->mix, frac * 100);
	begin(g, p->bytes, 1, lab);
	uint32_t *per = calloc(n->nhosts ? n->nhosts : 1, sizeof(uint32_t));
	if (!per) {
		g->oom = 1;
		return;
	}
	for (uint32_t r = 0; r < N; r++)
		per[pl->host[r]]++;
	for (uint32_t r = 0; r < N && frac > 0; r++) {
		uint32_t h = pl->host[r];
		double acc = p->acc_gbps > 0 ? p->acc_gbps : n->cap[n->up[h]] / per[h];
		uint32_t others = N - per[h];
		for (uint32_t d = 0; d < N && others; d++)
			if (pl->host[d] != h)
				add(g, r, d, acc * frac / others);
	}
	free(per);
	emit(g);
}

/* A single phase: one shift, all-to-all, or one ring step. */
static void gen_single(struct gen *g, uint32_t N)
{
	const struct ibf_sim_pattern *p = g->p;
	char lab[48];
	g->nphases = 1;
	if (p->id == IBF_PAT_SHIFT) {
		snprintf(lab, sizeof(lab), "shift %u", p->shift);
		begin(g, p->bytes, 1, lab);
		for (uint32_t r = 0; r < N; r++)
			add(g, r, (uint32_t)((r + (uint64_t)p->shift) % N), 0);
	} else if (p->id == IBF_PAT_A2A) {
		begin(g, p->bytes, 1, "all-to-all");
		for (uint32_t r = 0; r < N; r++)
			for (uint32_t d = 0; d < N; d++)
				add(g, r, d, 0);
	} else { /* IBF_PAT_RING */
		begin(g, p->bytes / N, 2 * (N - 1), "ring step");
		for (uint32_t r = 0; r < N; r++)
			add(g, r, (r + 1) % N, 0);
	}
	emit(g);
}

int ibf_sim_pattern_run(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			const struct ibf_sim_pattern *p, ibf_sim_phase_fn fn, void *ctx,
			struct ibf_error *err)
{
	struct gen g;
	memset(&g, 0, sizeof(g));
	g.n = n;
	g.pl = pl;
	g.p = p;
	g.fn = fn;
	g.ctx = ctx;
	uint32_t N = pl->nranks;
	if (N < 2)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "a pattern needs at least 2 ranks");
	struct ibf_mem_limit ml;
	ibf_mem_limit_get(NULL, &ml);
	if (p->mem_limit && p->mem_limit < ml.bytes) {
		ml.bytes = p->mem_limit;
		ml.source = IBF_MEMLIM_CALLER;
		ml.where[0] = '\0';
	}
	uint64_t memlim = ml.bytes;
	g.maxflows = memlim / SIM_FLOW_BYTES;
	g.need = quadratic_flows(n, pl, p);
	if (g.need > g.maxflows)
		g.toobig = 1;
	if (p->id == IBF_PAT_FILE) {
		struct ibf_sim_traffic t;
		int rc = ibf_sim_traffic_read(n, pl, p->file, &t, err);
		if (!rc)
			rc = ibf_sim_traffic_run(&t, fn, ctx, err);
		ibf_sim_traffic_free(&t);
		return rc;
	}
	uint32_t *perm = g.toobig ? NULL : malloc(N * sizeof(uint32_t));
	if (!perm && !g.toobig)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	switch (g.toobig ? -1 : p->id) {
	case -1: /* refused before building */
		snprintf(g.ph.label, sizeof(g.ph.label), "%s",
			 p->id == IBF_PAT_A2A ? "all-to-all" : "inter-node mix");
		break;
	case IBF_PAT_SHIFT:
	case IBF_PAT_A2A:
	case IBF_PAT_RING:
		gen_single(&g, N);
		break;
	case IBF_PAT_SHIFTS:
	case IBF_PAT_A2A_PHASED:
		gen_shifts(&g, N, p->id == IBF_PAT_A2A_PHASED);
		break;
	case IBF_PAT_PERM:
		gen_perms(&g, N, perm);
		break;
	case IBF_PAT_PAIRWISE:
		gen_pairwise(&g, N);
		break;
	case IBF_PAT_CUMULATIVE:
		gen_cumulative(&g, N);
		break;
	case IBF_PAT_RANDPAIR:
	case IBF_PAT_BISECT:
		g.nphases = p->count;
		random_pairs(&g, N, perm, p->id == IBF_PAT_BISECT ? "bisection" : "shuffle");
		break;
	case IBF_PAT_RECDBL:
		gen_recdbl(&g, N);
		break;
	case IBF_PAT_BRUCK:
		gen_bruck(&g, N);
		break;
	case IBF_PAT_BCAST:
		gen_bcast(&g, N);
		break;
	case IBF_PAT_HIER:
		g.nphases = 3;
		hierarchical(&g, N);
		break;
	case IBF_PAT_ADVERSARIAL:
		g.nphases = 1;
		adversarial(&g, N);
		break;
	case IBF_PAT_MIX:
		gen_mix(&g, N);
		break;
	default:
		free(perm);
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "unknown pattern %d", p->id);
	}
	free(perm);
	free(g.ph.flow);
	if (g.toobig) {
		/* GiB as before; a small cgroup or ulimit read 0.00 GiB */
		char amount[48];
		if (memlim >= (1ull << 30))
			snprintf(amount, sizeof(amount), "%.2f GiB",
				 (double)memlim / (1024.0 * 1024.0 * 1024.0));
		else if (memlim >= (1ull << 20))
			snprintf(amount, sizeof(amount), "%.1f MiB", (double)memlim / (1024.0 * 1024.0));
		else
			snprintf(amount, sizeof(amount), "%llu bytes", (unsigned long long)memlim);
		return ibf_error_set(
			err, IBF_ENOMEM, NULL, 0,
			"pattern %s on %u ranks: phase '%s' has %s%llu flows, more than the "
			"%llu that fit in the %s of memory there is (limit: %s%s%s) at "
			"about %u bytes each; use fewer ranks or a pattern with smaller phases "
			"(a2a-phased instead of a2a)",
			ibf_sim_pattern_name(p->id), N, g.ph.label, g.need ? "" : "more than ",
			(unsigned long long)(g.need ? g.need : g.maxflows),
			(unsigned long long)g.maxflows, amount, ibf_mem_limit_source_name(ml.source),
			ml.where[0] ? " in " : "", ml.where, SIM_FLOW_BYTES);
	}
	if (g.oom)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0,
				     "out of memory building the pattern");
	return 0;
}
