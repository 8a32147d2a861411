/* Rail health scores from PerfMgr counters (docs/rail.md, "Health
 * service").  No OpenSM dependency: the plugin feeds counters of rail
 * switch ports with ibf_health_sample(); a sweep's deltas become port
 * scores, the rail's score is a percentile of its ports' scores, smoothed
 * over sweeps with an EWMA.  Sampling is a binary search and a few stores,
 * so it can run in OpenSM's PerfMgr callback; the scores are computed once
 * per sweep. */
#include "ibf_rail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELTA_RESET (UINT64_C(1) << 63)

struct hport {
	uint64_t key; /* node GUID, port: the GUID is shifted left by 8 */
	int32_t rail; /* group: dense rail, or nrails + spine number */
	uint64_t prev[2];
	uint64_t delta[2];
	uint8_t have_prev; /* bit per counter: prev[] holds a reading */
	uint8_t seen;	   /* bit per counter: a difference came before */
	uint8_t got;	   /* bit per counter: reported in the open sweep */
	uint8_t bad;	   /* bit per counter: reported, but no usable delta */
};

struct ibf_health {
	struct ibf_health_opts o;
	struct hport *port; /* sorted by key */
	int nports;
	int ncomplete;	     /* ports with both counters in the open sweep */
	int nsampled;	     /* ports with any counter in the open sweep */
	int nrails, nspines; /* groups: the rails, then the spines */
	int32_t *label;	     /* [nrails] */
	uint64_t *spine;     /* [nspines] node GUIDs */
	double *score;	     /* smoothed, [group] */
	uint8_t *measured;   /* ever measured */
	int *low;	     /* spines: consecutive sweeps below avoid_below */
	uint8_t *avoided;    /* spines */
	uint8_t *held;	     /* spines: low long enough, held by a cap (IBF_HELD_*) */
	int *held_rail;	     /* spines held by a rail's cap: that rail */
	uint8_t *held_seen;  /* spines: held as last reported (held_changed) */
	int *cand;	     /* [nspines] scratch: spines that qualify */
	int ngroups;	     /* spine groups (ibf_rail_info.sw_group), >= 1 with spines */
	int *sgroup;	     /* [nspines] group of each spine */
	int *gsize;	     /* [ngroups] spines per group */
	int *groom;	     /* [ngroups] scratch: free avoid slots */
	uint8_t *grail;	     /* [ngroups * nrails] rails a group's spines are cabled to */
	uint8_t *sreach;     /* [nspines * nrails] rails each spine is cabled to */
	int *rsize;	     /* [nrails] spines cabled to each rail */
	int *rroom;	     /* [nrails] scratch: free avoid slots per rail */
	int avoid_changed, held_changed;
	double *scratch; /* port scores of one rail */
	int *rail_ports; /* ports per rail */
	int *rail_first; /* [nrails + 1]: rail g's ports are order[rail_first[g]..] */
	int *order;	 /* port indexes grouped by rail */
	int ndomains;
	char **domain;
	unsigned long sweeps;
	int last_ports;
	int ngone;     /* rails seen earlier (ibf_health_carry) that this fabric lacks */
	int32_t *gone; /* [ngone] their labels, ascending */
};

void ibf_health_opts_default(struct ibf_health_opts *o)
{
	o->alpha = 0.5;
	o->wait_weight = 1.0;
	o->min_words = 65536.0;
	o->percentile = 90;
	o->dflt = 100;
	o->avoid_below = 0;
	o->avoid_sweeps = 3;
	o->avoid_above = 60;
	o->avoid_max_pct = 50;
}

static uint64_t port_key(uint64_t guid, int port)
{
	return (guid << 8) | (uint64_t)(port & 0xff);
}

static int hport_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct hport *)a)->key, y = ((const struct hport *)b)->key;
	return x < y ? -1 : x > y;
}

struct ibf_health *ibf_health_new(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
				  const struct ibf_health_opts *o, struct ibf_error *err)
{
	struct ibf_health_opts def;
	if (!o) {
		ibf_health_opts_default(&def);
		o = &def;
	}
	if (!(o->alpha > 0 && o->alpha <= 1) || !(o->wait_weight > 0) || !(o->min_words >= 0) ||
	    o->percentile < 1 || o->percentile > 100 || o->dflt < 0 || o->dflt > 100 ||
	    o->avoid_below < 0 || o->avoid_below > 100 || o->avoid_sweeps < 1 ||
	    (o->avoid_below > 0 && (o->avoid_above <= o->avoid_below || o->avoid_above > 100)) ||
	    o->avoid_max_pct < 0 || o->avoid_max_pct > 100) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "bad health options (alpha in (0,1], wait weight > 0, "
			      "min words >= 0, percentile 1..100, default 0..100, "
			      "avoid below < avoid above <= 100, avoid sweeps >= 1, "
			      "avoid max 0..100 %%)");
		return NULL;
	}
	struct ibf_health *h = calloc(1, sizeof(*h));
	if (!h)
		goto nomem;
	h->o = *o;
	h->nrails = ri->nrails;
	for (uint32_t s = 0; s < f->nsw; s++)
		h->nspines += ri->sw_role[s] == IBF_RAIL_SW_SPINE;
	size_t nr = (size_t)ri->nrails + (size_t)h->nspines + 1;
	h->label = calloc(nr, sizeof(*h->label));
	h->spine = calloc(nr, sizeof(*h->spine));
	h->low = calloc(nr, sizeof(int));
	h->avoided = calloc(nr, 1);
	h->held = calloc(nr, 1);
	h->held_rail = calloc(nr, sizeof(int));
	h->held_seen = calloc(nr, 1);
	h->cand = calloc(nr, sizeof(int));
	h->sgroup = calloc(nr, sizeof(int));
	h->score = calloc(nr, sizeof(*h->score));
	h->measured = calloc(nr, 1);
	h->rail_ports = calloc(nr, sizeof(int));
	h->rail_first = calloc(nr + 1, sizeof(int));
	h->domain = calloc((size_t)ri->ndomains + 1, sizeof(char *));
	if (!h->label || !h->spine || !h->low || !h->avoided || !h->held || !h->held_rail ||
	    !h->held_seen ||
	    !h->cand || !h->sgroup || !h->score || !h->measured || !h->rail_ports ||
	    !h->rail_first || !h->domain)
		goto nomem;
	for (int g = 0; g < ri->nrails; g++)
		h->label[g] = ri->rail_label[g];
	for (int g = 0; g < ri->nrails + h->nspines; g++)
		h->score[g] = o->dflt;
	for (int d = 0; d < ri->ndomains; d++) {
		if (!(h->domain[d] = strdup(ri->domain[d])))
			goto nomem;
		h->ndomains++;
	}
	size_t n = 0;
	for (uint32_t id = 0; id < f->nnodes; id++) {
		const struct ibf_node *nd = &f->nodes[id];
		if (nd->type != IBF_NODE_SWITCH || nd->sw < 0 ||
		    (ri->sw_rail[nd->sw] < 0 && ri->sw_role[nd->sw] != IBF_RAIL_SW_SPINE))
			continue;
		for (int p = 1; p <= (int)nd->nports; p++)
			if (ibf_port((struct ibf_fabric *)f, (int)id, p)->peer_node != IBF_NO_NODE)
				n++;
	}
	h->port = calloc(n + 1, sizeof(*h->port));
	if (!h->port)
		goto nomem;
	int nsp = 0;
	h->ngroups = h->nspines ? 1 : 0;
	if (h->nspines && ri->sw_group && ri->nspine_groups > 1)
		h->ngroups = ri->nspine_groups;
	h->gsize = calloc((size_t)h->ngroups + 1, sizeof(int));
	h->groom = calloc((size_t)h->ngroups + 1, sizeof(int));
	h->grail = calloc((size_t)h->ngroups * (size_t)ri->nrails + 1, 1);
	h->sreach = calloc((size_t)h->nspines * (size_t)ri->nrails + 1, 1);
	h->rsize = calloc((size_t)ri->nrails + 1, sizeof(int));
	h->rroom = calloc((size_t)ri->nrails + 1, sizeof(int));
	if (!h->gsize || !h->groom || !h->grail || !h->sreach || !h->rsize || !h->rroom)
		goto nomem;
	for (int g = 0; g < h->ngroups; g++)
		ibf_rail_group_rails(f, ri, h->ngroups > 1 ? g : -1,
				     h->grail + (size_t)g * (size_t)ri->nrails);
	for (uint32_t id = 0; id < f->nnodes; id++) {
		const struct ibf_node *nd = &f->nodes[id];
		if (nd->type != IBF_NODE_SWITCH || nd->sw < 0)
			continue;
		int grp = ri->sw_rail[nd->sw];
		if (grp < 0 && ri->sw_role[nd->sw] == IBF_RAIL_SW_SPINE) {
			int sg = h->ngroups > 1 ? ri->sw_group[nd->sw] : 0;
			if (sg < 0 || sg >= h->ngroups)
				sg = 0; /* not from ibf_rail_detect: one group */
			h->sgroup[nsp] = sg;
			h->gsize[sg]++;
			/* the rails it is cabled to (a switch of theirs) */
			uint8_t *on = h->sreach + (size_t)nsp * (size_t)h->nrails;
			for (uint32_t a = f->adj_off[nd->sw]; a < f->adj_off[nd->sw + 1]; a++) {
				uint32_t t = f->adj[a].nbr;
				int r = ri->sw_rail[t];
				if (ri->sw_role[t] == IBF_RAIL_SW_RAIL && r >= 0 && r < h->nrails &&
				    !on[r]) {
					on[r] = 1;
					h->rsize[r]++;
				}
			}
			grp = h->nrails + nsp;
			h->spine[nsp++] = nd->guid;
		}
		if (grp < 0)
			continue;
		for (int p = 1; p <= (int)nd->nports; p++) {
			if (ibf_port((struct ibf_fabric *)f, (int)id, p)->peer_node == IBF_NO_NODE)
				continue;
			struct hport *hp = &h->port[h->nports++];
			hp->key = port_key(nd->guid, p);
			hp->rail = grp;
			h->rail_ports[grp]++;
		}
	}
	qsort(h->port, (size_t)h->nports, sizeof(*h->port), hport_cmp);
	int most = 1;
	for (int g = 0; g < h->nrails + h->nspines; g++) {
		if (h->rail_ports[g] > most)
			most = h->rail_ports[g];
		h->rail_first[g + 1] = h->rail_first[g] + h->rail_ports[g];
	}
	h->scratch = calloc((size_t)most, sizeof(double));
	h->order = calloc((size_t)h->nports + 1, sizeof(int));
	if (!h->scratch || !h->order)
		goto nomem;
	int *fill = calloc(nr, sizeof(int));
	if (!fill)
		goto nomem;
	for (int i = 0; i < h->nports; i++) {
		int g = h->port[i].rail;
		h->order[h->rail_first[g] + fill[g]++] = i;
	}
	free(fill);
	return h;
nomem:
	ibf_health_free(h);
	ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	return NULL;
}

void ibf_health_free(struct ibf_health *h)
{
	if (!h)
		return;
	free(h->port);
	free(h->label);
	free(h->spine);
	free(h->low);
	free(h->avoided);
	free(h->held);
	free(h->held_rail);
	free(h->held_seen);
	free(h->cand);
	free(h->sgroup);
	free(h->gsize);
	free(h->groom);
	free(h->grail);
	free(h->sreach);
	free(h->rsize);
	free(h->rroom);
	free(h->score);
	free(h->measured);
	free(h->scratch);
	free(h->rail_ports);
	free(h->rail_first);
	free(h->order);
	for (int d = 0; d < h->ndomains; d++)
		free(h->domain[d]);
	free(h->domain);
	free(h->gone);
	free(h);
}

double ibf_health_port_score(const struct ibf_health_opts *o, uint64_t data, uint64_t wait)
{
	double w = o->wait_weight * (double)wait, d = (double)data;
	double den = w + d;
	if (den < o->min_words)
		den = o->min_words;
	double c = den > 0 ? w / den : 0.0;
	return 100.0 * (1.0 - c);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* free slots on every rail spine sp is cabled to: -1, else the first rail
 * without one */
static int rail_without_room(const struct ibf_health *h, int sp)
{
	const uint8_t *on = h->sreach + (size_t)sp * (size_t)h->nrails;
	for (int r = 0; r < h->nrails; r++)
		if (on[r] && h->rroom[r] <= 0)
			return r;
	return -1;
}

static void rails_take(struct ibf_health *h, int sp, int n)
{
	const uint8_t *on = h->sreach + (size_t)sp * (size_t)h->nrails;
	for (int r = 0; r < h->nrails; r++)
		if (on[r])
			h->rroom[r] -= n;
}

/* Spines that stayed below avoid_below for avoid_sweeps sweeps are avoided,
 * as many as the cap leaves room for in their group (avoid_max_pct of the
 * group's spines, rounded down) and on each rail they are cabled to (the
 * same share of the spines cabled to that rail): the lowest scores first
 * (lower index on ties); spines already avoided keep their slots (no
 * flapping when a worse one comes), the rest is held until a slot frees.
 * The cap per rail is what keeps a rail some of its spines when groups
 * overlap in a chain (spines of rails 0-1, of rails 1-2, ...: one group,
 * whose cap alone let both spines of rails 0-1 go, and hratio cannot move
 * rail 0's paths off them). */
static void avoid_capped(struct ibf_health *h)
{
	if (h->o.avoid_below <= 0)
		return;
	int nc = 0;
	for (int g = 0; g < h->ngroups; g++)
		h->groom[g] = (int)(((long)h->gsize[g] * h->o.avoid_max_pct) / 100);
	for (int r = 0; r < h->nrails; r++)
		h->rroom[r] = (int)(((long)h->rsize[r] * h->o.avoid_max_pct) / 100);
	for (int sp = 0; sp < h->nspines; sp++) {
		h->groom[h->sgroup[sp]] -= h->avoided[sp];
		rails_take(h, sp, h->avoided[sp]);
		h->held[sp] = 0;
		if (!h->avoided[sp] && h->low[sp] >= h->o.avoid_sweeps)
			h->cand[nc++] = sp;
	}
	/* insertion sort by (score, index): a few spines */
	for (int i = 1; i < nc; i++) {
		int c = h->cand[i], j = i;
		double sc = h->score[h->nrails + c];
		while (j > 0 && h->score[h->nrails + h->cand[j - 1]] > sc)
			h->cand[j] = h->cand[j - 1], j--;
		h->cand[j] = c;
	}
	for (int i = 0; i < nc; i++) {
		int sp = h->cand[i], r = -1;
		if (h->groom[h->sgroup[sp]] <= 0) {
			h->held[sp] = IBF_HELD_GROUP; /* the group's cap, whatever the rails */
		} else if ((r = rail_without_room(h, sp)) >= 0) {
			h->held[sp] = IBF_HELD_RAIL;
			h->held_rail[sp] = r;
		} else {
			h->groom[h->sgroup[sp]]--;
			rails_take(h, sp, 1);
			h->avoided[sp] = 1;
			h->avoid_changed = 1;
		}
	}
	for (int sp = 0; sp < h->nspines; sp++)
		if (h->held[sp] != h->held_seen[sp]) {
			h->held_seen[sp] = h->held[sp];
			h->held_changed = 1;
		}
}

/* Scores of the open sweep, then a new sweep. */
static void close_sweep(struct ibf_health *h)
{
	int scored = 0;
	for (int g = 0; g < h->nrails + h->nspines; g++) {
		int n = 0;
		for (int j = h->rail_first[g]; j < h->rail_first[g + 1]; j++) {
			const struct hport *p = &h->port[h->order[j]];
			if (p->got != 3 || p->bad)
				continue;
			h->scratch[n++] = ibf_health_port_score(&h->o, p->delta[IBF_HEALTH_DATA],
								p->delta[IBF_HEALTH_WAIT]);
		}
		if (g < h->nrails)
			scored += n;
		if (!n)
			continue; /* keeps its score (or the default) */
		qsort(h->scratch, (size_t)n, sizeof(double), dbl_cmp);
		int k = (int)(((long)(100 - h->o.percentile) * n) / 100);
		if (k > n - 1)
			k = n - 1;
		double raw = h->scratch[k];
		h->score[g] =
			h->measured[g] ? h->o.alpha * raw + (1.0 - h->o.alpha) * h->score[g] : raw;
		h->measured[g] = 1;
		if (g < h->nrails || h->o.avoid_below <= 0)
			continue;
		/* spines: hysteresis, so that tables never flap */
		int sp = g - h->nrails;
		if (h->score[g] < h->o.avoid_below)
			h->low[sp]++;
		else
			h->low[sp] = 0;
		if (h->avoided[sp] && h->score[g] > h->o.avoid_above) {
			h->avoided[sp] = 0;
			h->avoid_changed = 1;
		}
	}
	avoid_capped(h);
	for (int i = 0; i < h->nports; i++) {
		h->port[i].got = 0;
		h->port[i].bad = 0;
	}
	h->ncomplete = 0;
	h->nsampled = 0;
	h->sweeps++;
	h->last_ports = scored;
}

int ibf_health_close(struct ibf_health *h)
{
	if (!h || !h->nsampled)
		return 0;
	close_sweep(h);
	return 1;
}

enum ibf_health_result ibf_health_sample(struct ibf_health *h, uint64_t guid, int port,
					 enum ibf_health_counter which, uint64_t value,
					 enum ibf_health_mode mode)
{
	if (!h || port < 1 || port > 255 || (which != IBF_HEALTH_DATA && which != IBF_HEALTH_WAIT))
		return IBF_HEALTH_IGNORED;
	struct hport key = { .key = port_key(guid, port) };
	struct hport *p = bsearch(&key, h->port, (size_t)h->nports, sizeof(*p), hport_cmp);
	if (!p)
		return IBF_HEALTH_IGNORED;
	enum ibf_health_result res = IBF_HEALTH_STORED;
	uint8_t bit = (uint8_t)(1u << which);
	if (p->got & bit) {
		/* the port reports again: the next sweep has begun */
		close_sweep(h);
		res = IBF_HEALTH_SWEEP;
	}
	int usable = 1;
	switch (mode) {
	case IBF_HEALTH_ABS:
		if (!(p->have_prev & bit) || value < p->prev[which])
			usable = 0; /* first reading, or the counter went down (reset) */
		else
			p->delta[which] = value - p->prev[which];
		p->prev[which] = value;
		p->have_prev |= bit;
		break;
	case IBF_HEALTH_DELTA:
		/* OpenSM's first difference of a port is against zero */
		if (!(p->seen & bit) || value >= DELTA_RESET)
			usable = 0;
		else
			p->delta[which] = value;
		p->seen |= bit;
		break;
	default:
		usable = 0;
		break;
	}
	if (!p->got)
		h->nsampled++;
	p->got |= bit;
	if (!usable)
		p->bad |= bit;
	if (p->got == 3 && ++h->ncomplete == h->nports) {
		close_sweep(h);
		res = IBF_HEALTH_SWEEP;
	}
	return res;
}

/* labels[n] that h has neither as a rail nor as a gone one join its gone
 * rails (kept ascending and unique); -1 when out of memory (h unchanged) */
static int gone_merge(struct ibf_health *h, const int32_t *labels, int n)
{
	if (n <= 0)
		return 0;
	int32_t *gone = realloc(h->gone, (size_t)(h->ngone + n) * sizeof(*gone));
	if (!gone)
		return -1;
	h->gone = gone;
	for (int k = 0; k < n; k++) {
		int32_t l = labels[k];
		int have = l < 0;
		for (int g = 0; g < h->nrails && !have; g++)
			have = h->label[g] == l;
		for (int i = 0; i < h->ngone && !have; i++)
			have = gone[i] == l;
		if (have)
			continue;
		int i = h->ngone++;
		while (i > 0 && gone[i - 1] > l) {
			gone[i] = gone[i - 1];
			i--;
		}
		gone[i] = l;
	}
	return 0;
}

void ibf_health_carry(struct ibf_health *dst, const struct ibf_health *src)
{
	if (!dst || !src)
		return;
	for (int g = 0; g < dst->nrails; g++)
		for (int k = 0; k < src->nrails; k++)
			if (src->label[k] == dst->label[g] && src->measured[k]) {
				dst->score[g] = src->score[k];
				dst->measured[g] = 1;
				break;
			}
	for (int g = 0; g < dst->nspines; g++)
		for (int k = 0; k < src->nspines; k++)
			if (src->spine[k] == dst->spine[g]) {
				dst->score[dst->nrails + g] = src->score[src->nrails + k];
				dst->measured[dst->nrails + g] = src->measured[src->nrails + k];
				dst->low[g] = src->low[k];
				dst->avoided[g] = src->avoided[k];
				break;
			}
	/* counter readings of ports that stay (absolute mode) */
	for (int i = 0; i < dst->nports; i++) {
		const struct hport *o = bsearch(&dst->port[i], src->port, (size_t)src->nports,
						sizeof(*src->port), hport_cmp);
		if (o) {
			memcpy(dst->port[i].prev, o->prev, sizeof(o->prev));
			dst->port[i].have_prev = o->have_prev;
			dst->port[i].seen = o->seen;
		}
	}
	dst->sweeps = src->sweeps;
	dst->last_ports = src->last_ports;
	/* rails src had (or had lost already) that dst lacks: gone until they
	 * come back (a rail switch that died takes its GPUs out of the sweep
	 * too, and without a word hosts would take the rail for idle) */
	if (gone_merge(dst, src->label, src->nrails) || gone_merge(dst, src->gone, src->ngone))
		return; /* out of memory: gone rails forgotten, nothing else */
}

int ibf_health_expect(struct ibf_health *h, const int32_t *labels, int n)
{
	if (!h || n <= 0)
		return 0;
	return gone_merge(h, labels, n) ? IBF_ENOMEM : 0;
}

int ibf_health_expect_map(struct ibf_health *h, const struct ibf_rail_map *map,
			  const struct ibf_rail_info *ri)
{
	if (!h || !map || map->n <= 0)
		return 0;
	/* no line names a node here: nothing ties the map's numbers to the
	 * rails the fabric was found to have (another fabric's map, or every
	 * line a typo), so none of them is taken for a lost rail */
	if (ri && ri->unmatched >= map->n)
		return 1;
	int32_t *lab = malloc((size_t)map->n * sizeof(*lab));
	if (!lab)
		return IBF_ENOMEM;
	for (int i = 0; i < map->n; i++)
		lab[i] = map->e[i].rail;
	int rc = ibf_health_expect(h, lab, map->n);
	free(lab);
	return rc;
}

int ibf_health_ngone(const struct ibf_health *h)
{
	return h ? h->ngone : 0;
}

int ibf_health_gone_label(const struct ibf_health *h, int i)
{
	return h && i >= 0 && i < h->ngone ? h->gone[i] : -1;
}

int ibf_health_nrails(const struct ibf_health *h)
{
	return h ? h->nrails : 0;
}

int ibf_health_nports(const struct ibf_health *h)
{
	return h ? h->nports : 0;
}

int ibf_health_score(const struct ibf_health *h, int g)
{
	if (!h || g < 0 || g >= h->nrails)
		return -1;
	double s = h->score[g];
	return s < 0 ? 0 : s > 100 ? 100 : (int)lround(s);
}

int ibf_health_label(const struct ibf_health *h, int g)
{
	return h && g >= 0 && g < h->nrails ? h->label[g] : -1;
}

int ibf_health_measured(const struct ibf_health *h, int g)
{
	return h && g >= 0 && g < h->nrails ? h->measured[g] : 0;
}

unsigned long ibf_health_sweeps(const struct ibf_health *h)
{
	return h ? h->sweeps : 0;
}

int ibf_health_last_ports(const struct ibf_health *h)
{
	return h ? h->last_ports : 0;
}

int ibf_health_fill(const struct ibf_health *h, const struct ibf_rail_registry *doms,
		    struct ibf_rail_registry *r)
{
	for (int g = 0; g < h->nrails; g++)
		if (ibf_rail_registry_set_rail(r, h->label[g], ibf_health_score(h, g)))
			return IBF_ENOMEM;
	/* a rail that is gone carries nothing: blocked, not the default */
	for (int i = 0; i < h->ngone; i++)
		if (ibf_rail_registry_set_rail(r, h->gone[i], 0))
			return IBF_ENOMEM;
	for (int d = 0; d < h->ndomains; d++) {
		int i = doms ? ibf_rail_registry_find_domain(doms, h->domain[d]) : -1;
		if (ibf_rail_registry_set_domain(r, h->domain[d],
						 i >= 0 ? doms->domain_score[i] : r->dflt))
			return IBF_ENOMEM;
	}
	/* hosts the file names that the fabric does not show (yet) */
	for (int i = 0; doms && i < doms->ndomains; i++)
		if (ibf_rail_registry_find_domain(r, doms->domain[i]) < 0 &&
		    ibf_rail_registry_set_domain(r, doms->domain[i], doms->domain_score[i]))
			return IBF_ENOMEM;
	return 0;
}

int ibf_health_nspines(const struct ibf_health *h)
{
	return h ? h->nspines : 0;
}

int ibf_health_spine_score(const struct ibf_health *h, int k)
{
	if (!h || k < 0 || k >= h->nspines)
		return -1;
	double v = h->score[h->nrails + k];
	return v < 0 ? 0 : v > 100 ? 100 : (int)lround(v);
}

uint64_t ibf_health_spine_guid(const struct ibf_health *h, int k)
{
	return h && k >= 0 && k < h->nspines ? h->spine[k] : 0;
}

int ibf_health_spine_avoided(const struct ibf_health *h, int k)
{
	return h && k >= 0 && k < h->nspines ? h->avoided[k] : 0;
}

int ibf_health_spine_held(const struct ibf_health *h, int k)
{
	return h && k >= 0 && k < h->nspines ? h->held[k] != 0 : 0;
}

int ibf_health_spine_held_by(const struct ibf_health *h, int k, int *rail, int *cap, int *size)
{
	int by = h && k >= 0 && k < h->nspines ? h->held[k] : 0, r = -1, n = 0;
	if (by == IBF_HELD_GROUP) {
		n = h->gsize[h->sgroup[k]];
	} else if (by == IBF_HELD_RAIL) {
		r = h->held_rail[k];
		n = h->rsize[r];
	}
	if (rail)
		*rail = r >= 0 ? (int)h->label[r] : -1;
	if (size)
		*size = n;
	if (cap)
		*cap = by ? (int)(((long)n * h->o.avoid_max_pct) / 100) : 0;
	return by;
}

int ibf_health_held_note(const struct ibf_health *h, int k, char *buf, size_t len)
{
	int rail, cap, size;
	int by = ibf_health_spine_held_by(h, k, &rail, &cap, &size);
	if (!len)
		return by;
	buf[0] = '\0';
	if (by == IBF_HELD_RAIL) {
		snprintf(buf, len, "held by the cap of rail %d: %d of its %d spines", rail, cap,
			 size);
	} else if (by == IBF_HELD_GROUP && h->ngroups > 1) {
		char rails[32];
		int g = h->sgroup[k], nr = ibf_health_group_rails(h, g, rails, sizeof(rails)),
		    shown = rails[0] != '\0';
		for (const char *c = rails; *c; c++)
			shown += *c == ',';
		snprintf(buf, len, "held by the cap of group %d (rails %s%s): %d of its %d spines",
			 g, rails, shown < nr ? ",.." : "", cap, size);
	} else if (by == IBF_HELD_GROUP) {
		snprintf(buf, len, "held by the cap: %d of the %d spines", cap, size);
	}
	return by;
}

int ibf_health_ngroups(const struct ibf_health *h)
{
	return h ? h->ngroups : 0;
}

int ibf_health_spine_group(const struct ibf_health *h, int k)
{
	return h && k >= 0 && k < h->nspines ? h->sgroup[k] : -1;
}

int ibf_health_group_size(const struct ibf_health *h, int g)
{
	return h && g >= 0 && g < h->ngroups ? h->gsize[g] : 0;
}

int ibf_health_group_rails(const struct ibf_health *h, int g, char *buf, size_t len)
{
	if (!len)
		return 0;
	buf[0] = '\0';
	if (!h || g < 0 || g >= h->ngroups)
		return 0;
	size_t n = 0;
	int cnt = 0, full = 0;
	for (int r = 0; r < h->nrails; r++) {
		if (!h->grail[(size_t)g * (size_t)h->nrails + (size_t)r])
			continue;
		if (!full) {
			int w = snprintf(buf + n, len - n, "%s%d", cnt ? "," : "",
					 (int)h->label[r]);
			if (w < 0 || (size_t)w >= len - n) {
				buf[n] = '\0'; /* whole labels only */
				full = 1;
			} else {
				n += (size_t)w;
			}
		}
		cnt++;
	}
	return cnt;
}

int ibf_health_held_changed(struct ibf_health *h)
{
	if (!h || !h->held_changed)
		return 0;
	h->held_changed = 0;
	return 1;
}

int ibf_health_avoid_changed(struct ibf_health *h)
{
	if (!h || !h->avoid_changed)
		return 0;
	h->avoid_changed = 0;
	return 1;
}

int ibf_health_avoid_list(const struct ibf_health *h, uint64_t *out, int max)
{
	int n = 0;
	for (int k = 0; h && k < h->nspines; k++)
		if (h->avoided[k]) {
			if (n < max)
				out[n] = h->spine[k];
			n++;
		}
	return n;
}
