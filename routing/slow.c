/* Switch cables far below their rate, routed as if lost.
 *
 * A switch-to-switch cable that trained at a fraction of what it should run
 * at (1x instead of 4x, SDR instead of EDR: a bad cable or connector) would
 * get its full share of paths from any engine and carry it at that fraction
 * of the rate.  The engines therefore route a copy of the fabric without
 * such cables (same nodes, ports, LIDs and switch indices, so the copy's
 * tables are the fabric's).
 *
 * Far below: under half of what ibf_find_degraded expects of the cable and
 * under half of what most cables between the same two switch models run at
 * (the second guards against supported values no cable of the fabric
 * reaches: ibsim claims 12x HDR on every port).  At half or above (FDR in
 * an EDR fabric, 2x split ports) a cable is used as it is: it is often
 * built so on purpose, and moving its paths elsewhere doubles the load
 * there.
 *
 * Which of them are left out is decided one at a time, slowest (run / expected
 * rate) first, ties by the lower end's node and port: a cable is left out
 * unless one of its switches has no other cable than far-slow ones (leaving
 * some out would only load the rest, as slow), leaving it out together
 * with those already left out would cut the fabric apart, or the engine's
 * own check (D-mod-K: a fat tree is still found) fails.
 *
 * The connectivity test works on the switch graph with the switches joined
 * by other cables merged (union-find): only the far-slow cables stay as
 * edges between the merged groups, so testing one costs a pass over those
 * few, not over the fabric.  The engine's check needs a finalized copy per
 * call: it is asked once with every cable the connectivity test lets go;
 * only when that fails, bisection finds the longest accepted prefix (the
 * check is taken to fail for any superset of a set it fails), the next
 * cable is kept and the rest decided again. */
#include "ibf_routing.h"
#include "ibf_fattree.h"
#include "uf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_OPEN, S_TRY, S_LOST, S_KEPT };

struct slow {
	struct ibf_degraded d;
	uint64_t run, exp; /* rate it runs at / should run at (ibf_speed_rate units) */
	uint8_t ew, es;	   /* the expected width/speed shown in the log */
	uint32_t su, sv;   /* its ends' switch indices */
	uint32_t gu, gv;   /* in a round: its ends' groups (dense) */
	int state;	   /* S_* */
	int fixed;	   /* kept for good: one of its switches has only such cables */
	int32_t only;	   /* fixed: that switch's node */
	const char *why;   /* S_KEPT: why (fixed: NULL unless it is a bridge too) */
};

static uint64_t rate_of(uint8_t w, uint8_t s)
{
	return (uint64_t)w * ibf_speed_rate(s);
}

/* slowest relative to its expectation first, then the lower end */
static int cmp_slow(const void *x, const void *y)
{
	const struct slow *p = x, *q = y;
	uint64_t l = p->run * q->exp, r = q->run * p->exp;
	if (l != r)
		return l < r ? -1 : 1;
	if (p->d.node_a != q->d.node_a)
		return p->d.node_a < q->d.node_a ? -1 : 1;
	if (p->d.port_a != q->d.port_a)
		return p->d.port_a < q->d.port_a ? -1 : 1;
	return 0;
}

struct greedy {
	const struct ibf_fabric *f;
	struct slow *c;
	uint32_t n;
	uint32_t *cand;	 /* [nports_total]: candidate index + 1 of a switch port, 0 none */
	uint32_t *uf;	 /* [nsw] */
	uint32_t *dense; /* [nsw] */
	uint32_t *small; /* [2n] */
	uint32_t *order; /* [n]: the S_TRY ones of a round */
	ibf_slow_check_fn check;
	void *arg;
	struct ibf_fabric *good; /* the last copy the check accepted */
	uint32_t good_n;	 /* how many cables it lacks */
	int quiet;
};

/* g->uf: the switches joined by the cables in use.  Cables that are no
 * candidates always are; with only_fixed, every candidate but those fixed
 * (kept because a switch has nothing faster) counts as in use, else only
 * the candidates kept before `start` or fixed (those still to be decided
 * or already left out do not). */
static void base_graph(struct greedy *g, int only_fixed, uint32_t start)
{
	const struct ibf_fabric *f = g->f;
	uint32_t *p = g->uf;
	for (uint32_t s = 0; s < f->nsw; s++)
		p[s] = s;
	for (uint32_t u = 0; u < f->nsw; u++) {
		const struct ibf_node *nd = &f->nodes[f->switches[u]];
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
			uint32_t ci = g->cand[nd->port_off + f->adj[k].lport];
			const struct slow *x = ci ? &g->c[ci - 1] : NULL;
			int use = !x ||
				  (only_fixed ? !x->fixed
					      : x->state == S_KEPT && (ci - 1 < start || x->fixed));
			if (use)
				uf_join(p, u, f->adj[k].nbr);
		}
	}
}

/* x's ends' groups in g->uf, numbered densely (*ng: groups so far) */
static void group_ends(struct greedy *g, struct slow *x, uint32_t *ng)
{
	uint32_t r[2] = { uf_find(g->uf, x->su), uf_find(g->uf, x->sv) };
	for (int e = 0; e < 2; e++)
		if (g->dense[r[e]] == UINT32_MAX)
			g->dense[r[e]] = (*ng)++;
	x->gu = g->dense[r[0]];
	x->gv = g->dense[r[1]];
}

/* undo group_ends: dense is all UINT32_MAX again between rounds */
static void ungroup_ends(struct greedy *g, const struct slow *x)
{
	g->dense[uf_find(g->uf, x->su)] = UINT32_MAX;
	g->dense[uf_find(g->uf, x->sv)] = UINT32_MAX;
}

/* Connectivity, in the order of c from `start`: each open cable becomes
 * S_TRY when its ends stay joined without it and without the S_TRY/S_LOST
 * ones, else S_KEPT. */
static void connect_round(struct greedy *g, uint32_t start)
{
	base_graph(g, 0, start);
	uint32_t ng = 0;
	for (uint32_t i = start; i < g->n; i++) {
		struct slow *x = &g->c[i];
		if (x->state == S_OPEN)
			group_ends(g, x, &ng);
	}
	for (uint32_t i = start; i < g->n; i++) {
		struct slow *x = &g->c[i];
		if (x->state != S_OPEN)
			continue;
		if (x->gu == x->gv) {
			x->state = S_TRY;
			continue;
		}
		uint32_t *q = g->small;
		for (uint32_t k = 0; k < ng; k++)
			q[k] = k;
		/* still in use: the open ones and those kept in this round */
		for (uint32_t j = start; j < g->n; j++) {
			const struct slow *y = &g->c[j];
			if (j != i && !y->fixed && (y->state == S_OPEN || y->state == S_KEPT))
				uf_join(q, y->gu, y->gv);
		}
		if (uf_find(q, x->gu) == uf_find(q, x->gv)) {
			x->state = S_TRY;
		} else {
			x->state = S_KEPT;
			x->why = "would cut the fabric apart";
		}
	}
	for (uint32_t i = start; i < g->n; i++)
		if (!g->c[i].fixed)
			ungroup_ends(g, &g->c[i]);
}

/* Of the cables kept because a switch of them has only far-slow cables,
 * those that are bridges (everything else in use) say so: the plainer
 * reason. */
static void fixed_bridges(struct greedy *g)
{
	base_graph(g, 1, 0);
	uint32_t ng = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		struct slow *x = &g->c[i];
		if (x->fixed)
			group_ends(g, x, &ng);
	}
	for (uint32_t i = 0; i < g->n; i++) {
		struct slow *x = &g->c[i];
		if (!x->fixed || x->gu == x->gv)
			continue;
		uint32_t *q = g->small;
		for (uint32_t k = 0; k < ng; k++)
			q[k] = k;
		for (uint32_t j = 0; j < g->n; j++)
			if (j != i && g->c[j].fixed)
				uf_join(q, g->c[j].gu, g->c[j].gv);
		if (uf_find(q, x->gu) != uf_find(q, x->gv))
			x->why = "would cut the fabric apart";
	}
	for (uint32_t i = 0; i < g->n; i++)
		if (g->c[i].fixed)
			ungroup_ends(g, &g->c[i]);
}

/* The engine's check on f without the S_LOST cables and the first m of
 * order: 0 and *ok, or an error; g->quiet when the check says to drop the
 * whole matter. */
static int try_set(struct greedy *g, uint32_t m, int *ok, const char **why, struct ibf_error *err)
{
	*ok = 0;
	*why = NULL;
	struct ibf_fabric *c = ibf_fabric_clone(g->f, err);
	if (!c)
		return err && err->code ? err->code : IBF_ENOMEM;
	uint32_t nout = m;
	for (uint32_t i = 0; i < g->n; i++)
		if (g->c[i].state == S_LOST) {
			ibf_fabric_disconnect(c, g->c[i].d.node_a, g->c[i].d.port_a);
			nout++;
		}
	for (uint32_t k = 0; k < m; k++)
		ibf_fabric_disconnect(c, g->c[g->order[k]].d.node_a, g->c[g->order[k]].d.port_a);
	int rc = ibf_fabric_finalize(c, err);
	if (!rc)
		rc = g->check(c, g->f, g->arg, why, &g->quiet, err);
	if (!rc && !*why && !g->quiet) {
		*ok = 1;
		ibf_fabric_free(g->good);
		g->good = c;
		g->good_n = nout;
		return 0;
	}
	ibf_fabric_free(c);
	return rc;
}

/* Rounds until every cable is S_LOST or S_KEPT. */
static int decide(struct greedy *g, struct ibf_error *err)
{
	uint32_t start = 0;
	for (;;) {
		connect_round(g, start);
		uint32_t nt = 0;
		for (uint32_t i = start; i < g->n; i++)
			if (g->c[i].state == S_TRY)
				g->order[nt++] = i;
		if (!g->check || !nt) {
			for (uint32_t k = 0; k < nt; k++)
				g->c[g->order[k]].state = S_LOST;
			return 0;
		}
		int ok;
		const char *why, *hwhy;
		int rc = try_set(g, nt, &ok, &why, err);
		if (rc || g->quiet)
			return rc;
		if (ok) {
			for (uint32_t k = 0; k < nt; k++)
				g->c[g->order[k]].state = S_LOST;
			return 0;
		}
		/* the longest accepted prefix: lo passes (the cables left out so
		 * far passed before), hi fails */
		uint32_t lo = 0, hi = nt;
		hwhy = why;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			if ((rc = try_set(g, mid, &ok, &why, err)) || g->quiet)
				return rc;
			if (ok) {
				lo = mid;
			} else {
				hi = mid;
				hwhy = why;
			}
		}
		for (uint32_t k = 0; k < lo; k++)
			g->c[g->order[k]].state = S_LOST;
		uint32_t at = g->order[lo];
		g->c[at].state = S_KEPT;
		g->c[at].why = hwhy;
		for (uint32_t i = at + 1; i < g->n; i++)
			if (!g->c[i].fixed && g->c[i].state != S_LOST) {
				g->c[i].state = S_OPEN;
				g->c[i].why = NULL;
			}
		start = at + 1;
	}
}

static const char *desc_of(const struct ibf_fabric *f, int32_t n)
{
	const char *d = f->nodes[n].desc;
	return d && *d ? d : "?";
}

/* "A/P5 <-> B/P2 at 1xEDR (4xEDR)" appended to buf at *len */
static void put_cable(char *buf, size_t size, size_t *len, const struct ibf_fabric *f,
		      const struct slow *x, const char *sep)
{
	char a[24], b[24];
	if (*len >= size)
		return;
	int k = snprintf(buf + *len, size - *len, "%s%s/P%u <-> %s/P%u at %s (%s)", sep,
			 desc_of(f, x->d.node_a), x->d.port_a, desc_of(f, x->d.node_b), x->d.port_b,
			 ibf_format_width_speed(x->d.width, x->d.speed, a, sizeof(a)),
			 ibf_format_width_speed(x->ew, x->es, b, sizeof(b)));
	if (k > 0)
		*len += (size_t)k;
}

enum { LOG_MAX = 8 };

static void log_result(const struct ibf_route_opts *o, const char *who, const struct greedy *g,
		       uint32_t nusual, const struct ibf_degraded *usual_ex)
{
	const struct ibf_fabric *f = g->f;
	char line[2400];
	size_t len;
	if (nusual) {
		char a[24], b[24], u[24];
		const struct ibf_degraded *x = usual_ex;
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "%s: %u switch cable(s) run below half the rate expected of them but at "
			 "the rate most cables between the same switch models run at: not taken "
			 "as slow (%s/P%u <-> %s/P%u at %s, expected %s, usual %s%s)",
			 who, nusual, desc_of(f, x->node_a), x->port_a, desc_of(f, x->node_b),
			 x->port_b, ibf_format_width_speed(x->width, x->speed, a, sizeof(a)),
			 ibf_format_width_speed(x->exp_width, x->exp_speed, b, sizeof(b)),
			 ibf_format_width_speed(x->usual_width, x->usual_speed, u, sizeof(u)),
			 nusual > 1 ? ", ..." : "");
	}
	uint32_t nl = 0, nk = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		nl += g->c[i].state == S_LOST;
		nk += g->c[i].state == S_KEPT;
	}
	if (nl) {
		len = 0;
		line[0] = '\0';
		uint32_t shown = 0;
		for (uint32_t i = 0; i < g->n && shown < LOG_MAX; i++)
			if (g->c[i].state == S_LOST)
				put_cable(line, sizeof(line), &len, f, &g->c[i],
					  shown++ ? ", " : "");
		ibf_logf(
			o->log, o->log_ctx, IBF_LOG_INFO,
			"%s: %u switch cable(s) run below half their rate, routed as if lost: %s%s",
			who, nl, line, nl > shown ? ", ..." : "");
	}
	if (nk) {
		len = 0;
		line[0] = '\0';
		uint32_t shown = 0;
		for (uint32_t i = 0; i < g->n && shown < LOG_MAX; i++) {
			const struct slow *x = &g->c[i];
			if (x->state != S_KEPT)
				continue;
			put_cable(line, sizeof(line), &len, f, x, shown++ ? "; " : "");
			if (len < sizeof(line)) {
				int k = x->fixed && !x->why
						? snprintf(line + len, sizeof(line) - len,
							   ": %s has no faster switch cable",
							   desc_of(f, x->only))
						: snprintf(line + len, sizeof(line) - len,
							   ": leaving it out %s",
							   x->why ? x->why : "?");
				if (k > 0)
					len += (size_t)k;
			}
		}
		ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
			 "%s: %u switch cable(s) run below half their rate but are used: %s%s", who,
			 nk, line, nk > shown ? "; ..." : "");
	}
}

int ibf_route_drop_slow(const struct ibf_fabric *f, const struct ibf_route_opts *o, const char *who,
			ibf_slow_check_fn check, void *arg, struct ibf_fabric **lean,
			struct ibf_error *err)
{
	*lean = NULL;
	struct ibf_degraded *dg = NULL;
	uint32_t nd = 0, n = 0, nusual = 0;
	struct ibf_degraded usual_ex;
	memset(&usual_ex, 0, sizeof(usual_ex));
	struct ibf_error e2;
	ibf_error_clear(&e2);
	if (ibf_find_degraded(f, &dg, &nd, &e2) == IBF_ENOMEM)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	struct greedy g;
	memset(&g, 0, sizeof(g));
	g.f = f;
	g.check = check;
	g.arg = arg;
	if (nd && !(g.c = calloc(nd, sizeof(*g.c)))) {
		free(dg);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t i = 0; i < nd; i++) {
		const struct ibf_degraded *x = &dg[i];
		const struct ibf_node *na = &f->nodes[x->node_a], *nb = &f->nodes[x->node_b];
		uint64_t run = rate_of(x->width, x->speed),
			 exp = rate_of(x->exp_width, x->exp_speed);
		/* a loopback (two ports of one switch) is no edge of the switch
		 * graph and carries no route: counting it made a switch whose
		 * real cables are all far-slow look as if it had others */
		if (na->type != IBF_NODE_SWITCH || nb->type != IBF_NODE_SWITCH || !run ||
		    2 * run >= exp || na->sw < 0 || nb->sw < 0 || x->node_a == x->node_b)
			continue;
		struct slow *s = &g.c[n];
		s->d = *x;
		exp = ibf_degr_target(x, &s->ew, &s->es);
		if (2 * run >= exp) {
			if (!nusual++)
				usual_ex = *x;
			continue;
		}
		s->run = run;
		s->exp = exp;
		s->su = (uint32_t)na->sw;
		s->sv = (uint32_t)nb->sw;
		n++;
	}
	free(dg);
	g.n = n;
	int rc = 0;
	if (!n)
		goto done;
	qsort(g.c, n, sizeof(*g.c), cmp_slow);
	g.cand = calloc(f->nports_total, sizeof(*g.cand));
	g.uf = malloc(f->nsw * sizeof(*g.uf));
	g.dense = malloc(f->nsw * sizeof(*g.dense));
	g.small = malloc(2 * n * sizeof(*g.small));
	g.order = malloc(n * sizeof(*g.order));
	uint32_t *other = calloc(f->nsw, sizeof(*other));
	if (!g.cand || !g.uf || !g.dense || !g.small || !g.order || !other) {
		free(other);
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto done;
	}
	for (uint32_t s = 0; s < f->nsw; s++) {
		g.dense[s] = UINT32_MAX;
		other[s] = f->adj_off[s + 1] - f->adj_off[s];
	}
	for (uint32_t i = 0; i < n; i++) {
		struct slow *x = &g.c[i];
		g.cand[f->nodes[x->d.node_a].port_off + x->d.port_a] = i + 1;
		g.cand[f->nodes[x->d.node_b].port_off + x->d.port_b] = i + 1;
		other[x->su]--;
		other[x->sv]--;
	}
	/* a switch whose switch cables are all far-slow keeps them all:
	 * leaving some out only loads the others, as slow */
	for (uint32_t i = 0; i < n; i++) {
		struct slow *x = &g.c[i];
		if (!other[x->su] || !other[x->sv]) {
			x->state = S_KEPT;
			x->fixed = 1;
			x->only = other[x->su] ? x->d.node_b : x->d.node_a;
		}
	}
	free(other);
	fixed_bridges(&g);
	rc = decide(&g, err);
	if (rc || g.quiet)
		goto done;
	uint32_t nl = 0;
	for (uint32_t i = 0; i < n; i++)
		nl += g.c[i].state == S_LOST;
	if (nl && g.good && g.good_n == nl) {
		*lean = g.good;
		g.good = NULL;
	} else if (nl) {
		struct ibf_fabric *c = ibf_fabric_clone(f, err);
		if (!c) {
			rc = err && err->code ? err->code : IBF_ENOMEM;
			goto done;
		}
		for (uint32_t i = 0; i < n; i++)
			if (g.c[i].state == S_LOST)
				ibf_fabric_disconnect(c, g.c[i].d.node_a, g.c[i].d.port_a);
		if ((rc = ibf_fabric_finalize(c, err))) {
			ibf_fabric_free(c);
			goto done;
		}
		*lean = c;
	}
done:
	if (!rc && !g.quiet && o && o->log)
		log_result(o, who, &g, nusual, &usual_ex);
	ibf_fabric_free(g.good);
	free(g.cand);
	free(g.uf);
	free(g.dense);
	free(g.small);
	free(g.order);
	free(g.c);
	return rc;
}

int ibf_route_lean(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
		   struct ibf_fabric **lean, struct ibf_error *err)
{
	*lean = NULL;
	const struct ibf_engine *e = ibf_engine_find(engine);
	if (!f || !f->finalized || !e)
		return 0;
	if (e->fn == ibf_route_dmodk || e->fn == ibf_route_hratio)
		return ibf_dmodk_lean(f, o, lean, err);
	struct ibf_route_opts q;
	ibf_route_opts_quiet(o, &q);
	return ibf_route_drop_slow(f, &q, e->name, NULL, NULL, lean, err);
}

void ibf_route_opts_quiet(const struct ibf_route_opts *o, struct ibf_route_opts *q)
{
	if (o)
		*q = *o;
	else
		ibf_route_opts_default(q);
	q->log = NULL;
}
