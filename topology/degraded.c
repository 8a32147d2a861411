/* Degraded links: links that run below what both of their ends support.
 *
 * Exact when both ports' supported width and speed are known.  Otherwise a
 * link is compared with like links only: the other cables between the same
 * two nodes (twins), else the other links joining the same two node models.
 * Comparing a link with whatever else is on the same switch would flag every
 * older HCA on a newer switch, which runs at its own maximum.  A 2x link is
 * a split port (HDR100, NDR200), not a 4x one trained down: only supported
 * values can call it narrow. */
#include "ibf_topology.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct dlink {
	int32_t a, b; /* a's (node, port) is the lower end */
	uint8_t pa, pb, w, s;
	uint32_t tk1, tk2;	/* twin key: the two nodes, lower first */
	uint32_t mk1, mk2;	/* model key: the two node models, lower first */
	uint8_t tw, ts, mw, ms; /* best width/speed among twins / same-model links */
	uint8_t uw, us;		/* the usual width/speed among same-model links */
	uint32_t tn, mn;	/* number of twins / same-model links (self included) */
};

/* what one kind of evidence expects of a link */
struct evid {
	uint8_t w, s, ev;
	uint32_t peers; /* links compared against */
};

struct mkey {
	char *key;
	uint32_t node;
};

static int cmp_mkey(const void *x, const void *y)
{
	return strcmp(((const struct mkey *)x)->key, ((const struct mkey *)y)->key);
}

static int cmp_twin(const void *x, const void *y)
{
	const struct dlink *p = *(struct dlink *const *)x, *q = *(struct dlink *const *)y;
	if (p->tk1 != q->tk1)
		return p->tk1 < q->tk1 ? -1 : 1;
	if (p->tk2 != q->tk2)
		return p->tk2 < q->tk2 ? -1 : 1;
	return 0;
}

static int cmp_model(const void *x, const void *y)
{
	const struct dlink *p = *(struct dlink *const *)x, *q = *(struct dlink *const *)y;
	if (p->mk1 != q->mk1)
		return p->mk1 < q->mk1 ? -1 : 1;
	if (p->mk2 != q->mk2)
		return p->mk2 < q->mk2 ? -1 : 1;
	return 0;
}

/* The model of a node: type + vendor/device id when known, else type +
 * node description without digits ("node017 HCA-1" -> "node HCA-"). */
static char *model_key(const struct ibf_node *n)
{
	size_t len = strlen(n->desc) + 48;
	char *k = malloc(len);
	if (!k)
		return NULL;
	if (n->devid) {
		snprintf(k, len, "%d:id:%x:%x", n->type, n->vendid, n->devid);
		return k;
	}
	int o = snprintf(k, len, "%d:desc:", n->type);
	for (const char *c = n->desc; *c; c++)
		if (!isdigit((unsigned char)*c))
			k[o++] = *c;
	k[o] = '\0';
	return k;
}

static int cmp_rate(const void *x, const void *y)
{
	const struct dlink *p = *(struct dlink *const *)x, *q = *(struct dlink *const *)y;
	if (p->w != q->w)
		return p->w < q->w ? -1 : 1;
	if (p->s != q->s)
		return p->s < q->s ? -1 : 1;
	return 0;
}

/* The width and speed most of the links idx[i..j) run at (both known): of
 * the combinations that tie, the faster one (rate, then width); 0/0 when
 * no link has both.  Reorders idx[i..j). */
static void group_usual(struct dlink **idx, uint32_t i, uint32_t j, uint8_t *uw, uint8_t *us)
{
	uint32_t best = 0;
	uint64_t brate = 0;
	*uw = *us = 0;
	qsort(idx + i, j - i, sizeof(*idx), cmp_rate);
	for (uint32_t k = i; k < j;) {
		uint32_t m = k;
		while (m < j && cmp_rate(&idx[k], &idx[m]) == 0)
			m++;
		const struct dlink *l = idx[k];
		uint64_t rate = (uint64_t)l->w * ibf_speed_rate(l->s);
		if (rate && (m - k > best ||
			     (m - k == best && (rate > brate || (rate == brate && l->w > *uw))))) {
			best = m - k;
			brate = rate;
			*uw = l->w;
			*us = l->s;
		}
		k = m;
	}
}

/* Group the links (sorted through idx by the key cmp compares) and store
 * each group's best width/speed and size through the setter. */
static void group_best(struct dlink **idx, uint32_t nl, int (*cmp)(const void *, const void *),
		       int model)
{
	qsort(idx, nl, sizeof(*idx), cmp);
	for (uint32_t i = 0; i < nl;) {
		uint32_t j = i;
		uint8_t bw = 0, bs = 0;
		while (j < nl && cmp(&idx[i], &idx[j]) == 0) {
			if (idx[j]->w > bw)
				bw = idx[j]->w;
			if (idx[j]->s > bs)
				bs = idx[j]->s;
			j++;
		}
		uint8_t uw = 0, us = 0;
		if (model)
			group_usual(idx, i, j, &uw, &us);
		for (uint32_t k = i; k < j; k++) {
			if (model) {
				idx[k]->uw = uw;
				idx[k]->us = us;
				idx[k]->mw = bw;
				idx[k]->ms = bs;
				idx[k]->mn = j - i;
			} else {
				idx[k]->tw = bw;
				idx[k]->ts = bs;
				idx[k]->tn = j - i;
			}
		}
		i = j;
	}
}

const char *ibf_degr_evidence_name(int evidence)
{
	switch (evidence) {
	case IBF_DEGR_SUPPORTED:
		return "supported";
	case IBF_DEGR_TWINS:
		return "twins";
	case IBF_DEGR_MODEL:
		return "model";
	case IBF_DEGR_GRADE:
		return "grade";
	default:
		return "";
	}
}

uint32_t ibf_degr_counts(const struct ibf_degraded *d, uint32_t n, uint32_t *grade)
{
	uint32_t g = 0;
	for (uint32_t i = 0; i < n; i++)
		g += d[i].evidence == IBF_DEGR_GRADE;
	if (grade)
		*grade = g;
	return n - g;
}

uint64_t ibf_degr_target(const struct ibf_degraded *d, uint8_t *width, uint8_t *speed)
{
	uint64_t exp = (uint64_t)d->exp_width * ibf_speed_rate(d->exp_speed);
	uint64_t usual = (uint64_t)d->usual_width * ibf_speed_rate(d->usual_speed);
	if (usual && usual < exp) {
		*width = d->usual_width;
		*speed = d->usual_speed;
		return usual;
	}
	*width = d->exp_width;
	*speed = d->exp_speed;
	return exp;
}

static uint8_t min_known(uint8_t x, uint8_t y)
{
	return x < y ? x : y;
}

int ibf_find_degraded(const struct ibf_fabric *f, struct ibf_degraded **out, uint32_t *n,
		      struct ibf_error *err)
{
	*out = NULL;
	*n = 0;
	uint32_t nl = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node != IBF_NO_NODE &&
			    ((uint32_t)pp->peer_node > i ||
			     ((uint32_t)pp->peer_node == i && pp->peer_port > p)))
				nl++;
		}
	if (!nl)
		return 0;
	struct dlink *L = calloc(nl, sizeof(*L));
	struct dlink **idx = malloc(nl * sizeof(*idx));
	struct mkey *mk = calloc(f->nnodes, sizeof(*mk));
	uint32_t *model = malloc(f->nnodes * sizeof(*model));
	struct ibf_degraded *res = NULL;
	int rc = 0;
	if (!L || !idx || !mk || !model)
		goto oom;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		mk[i].node = i;
		mk[i].key = model_key(&f->nodes[i]);
		if (!mk[i].key)
			goto oom;
	}
	qsort(mk, f->nnodes, sizeof(*mk), cmp_mkey);
	for (uint32_t i = 0, id = 0; i < f->nnodes; i++) {
		if (i > 0 && strcmp(mk[i - 1].key, mk[i].key))
			id++;
		model[mk[i].node] = id;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE ||
			    !((uint32_t)pp->peer_node > i ||
			      ((uint32_t)pp->peer_node == i && pp->peer_port > p)))
				continue;
			struct dlink *l = &L[k];
			idx[k++] = l;
			l->a = (int32_t)i;
			l->pa = (uint8_t)p;
			l->b = pp->peer_node;
			l->pb = pp->peer_port;
			l->w = pp->width;
			l->s = pp->speed;
			l->tk1 = i;
			l->tk2 = (uint32_t)pp->peer_node;
			uint32_t ma = model[i], mb = model[pp->peer_node];
			l->mk1 = ma < mb ? ma : mb;
			l->mk2 = ma < mb ? mb : ma;
		}
	group_best(idx, nl, cmp_twin, 0);
	group_best(idx, nl, cmp_model, 1);

	uint32_t cap = 0;
	for (uint32_t i = 0; i < nl; i++) {
		const struct dlink *l = &L[i];
		const struct ibf_port *x = ibf_port(f, l->a, l->pa), *y = ibf_port(f, l->b, l->pb);
		/* the evidence that applies, strongest first: supported values
		 * alone when known; else twins, then model.  Twins that all run
		 * alike (a whole bundle trained down) say nothing about the
		 * bundle, so the model is asked next. */
		struct evid cand[2];
		int ncand = 0;
		if (x->width_sup && y->width_sup && x->speed_sup && y->speed_sup) {
			cand[ncand++] = (struct evid){ min_known(x->width_sup, y->width_sup),
							min_known(x->speed_sup, y->speed_sup),
							IBF_DEGR_SUPPORTED, 0 };
		} else {
			if (l->tn >= 2)
				cand[ncand++] = (struct evid){ l->tw, l->ts, IBF_DEGR_TWINS, l->tn - 1 };
			if (l->mn >= 2)
				cand[ncand++] = (struct evid){ l->mw, l->ms, IBF_DEGR_MODEL, l->mn - 1 };
		}
		uint8_t ew = 0, es = 0, ev = 0;
		uint32_t peers = 0;
		int below_w = 0, below_s = 0;
		for (int c = 0; c < ncand && !below_w && !below_s; c++) {
			ew = cand[c].w;
			es = cand[c].s;
			ev = cand[c].ev;
			peers = cand[c].peers;
			/* 2x is the width of a split port (HDR100, NDR200): set by
			 * the port's configuration, not trained down from 4x, so
			 * like links at 4x say nothing about it (supported values
			 * still do) */
			int split = l->w == 2 && ev != IBF_DEGR_SUPPORTED;
			below_w = l->w && ew && l->w < ew && !split;
			below_s = l->s && es && l->s < es;
		}
		if (!below_w && !below_s)
			continue;
		/* a device id can stand for several speed grades: by the model
		 * alone, a speed above half the like links' is a lower grade's
		 * as likely as a link trained down (half or less, e.g. DDR
		 * among QDR, SDR among anything, is no grade sold together) */
		if (ev == IBF_DEGR_MODEL && !below_w &&
		    2u * ibf_speed_rate(l->s) > ibf_speed_rate(es))
			ev = IBF_DEGR_GRADE;
		if (*n == cap) {
			uint32_t nc = cap ? cap * 2 : 16;
			struct ibf_degraded *r = realloc(res, nc * sizeof(*r));
			if (!r)
				goto oom;
			res = r;
			cap = nc;
		}
		struct ibf_degraded *d = &res[(*n)++];
		memset(d, 0, sizeof(*d));
		d->node_a = l->a;
		d->port_a = l->pa;
		d->node_b = l->b;
		d->port_b = l->pb;
		d->width = l->w;
		d->speed = l->s;
		d->exp_width = below_w ? ew : l->w;
		d->exp_speed = below_s ? es : l->s;
		d->evidence = ev;
		d->peers = peers;
		d->usual_width = l->uw;
		d->usual_speed = l->us;
	}
	*out = res;
	res = NULL;
	goto done;
oom:
	rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	*n = 0;
done:
	free(res);
	if (mk)
		for (uint32_t i = 0; i < f->nnodes; i++)
			free(mk[i].key);
	free(mk);
	free(model);
	free(idx);
	free(L);
	return rc;
}
