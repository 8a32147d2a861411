/* Shared driver of the minimal and layered engines: the deterministic
 * round-based worker pool, one unit of work (a destination's in-trees and
 * LFT columns), the load rebalancing pass and the run with its final
 * reachability verdict.  The setup (destinations, links, distances,
 * workspaces) is in engine_setup.c. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "engine_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENG_MAX_THREADS 64

uint32_t eng_order_by_dist(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t, uint32_t *order)
{
	const uint16_t *D = c->dist + (size_t)t * c->S;
	uint32_t nb = c->diam + 2;
	uint32_t *cnt = ws->bcount;
	memset(cnt, 0, (size_t)(nb + 1) * sizeof(*cnt));
	uint32_t nreach = 0;
	for (uint32_t s = 0; s < c->S; s++)
		if (D[s] != ENG_DIST_INF) {
			cnt[D[s] + 1]++;
			nreach++;
		}
	for (uint32_t k = 1; k <= nb; k++)
		cnt[k] += cnt[k - 1];
	for (uint32_t s = 0; s < c->S; s++)
		if (D[s] != ENG_DIST_INF)
			order[cnt[D[s]]++] = s;
	return nreach;
}

void eng_down_links(const struct eng_ctx *c, struct eng_ws *ws, uint32_t t)
{
	const uint16_t *D = c->dist + (size_t)t * c->S;
	const struct ibf_fabric *f = c->f;
	uint32_t k = 0;
	for (uint32_t s = 0; s < c->S; s++) {
		ws->down_off[s] = k;
		if (D[s] == ENG_DIST_INF)
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			ws->down[k] = e; /* branch-free */
			k += D[f->adj[e].nbr] + 1 == D[s];
		}
	}
	ws->down_off[c->S] = k;
}

/* ------------------------------------------------------------- one unit */

/* The LFT (and hop) columns of every LID of the unit, switch by switch, so
 * each switch's row is touched once for its (consecutive) LIDs. */
static void write_columns(const struct eng_ctx *c, struct eng_ws *ws, const struct eng_dest *d,
			  uint32_t nreach)
{
	struct ibf_routes *r = c->r;
	const struct ibf_adj *adj = c->f->adj;
	uint32_t S = c->S, nl = d->nlids, extra = d->is_sw ? 0u : 1u;
	for (uint32_t i = 0; i < nreach; i++) {
		uint32_t s = ws->order[i];
		size_t at = (size_t)s * r->stride + d->lid;
		for (uint32_t j = 0; j < nl; j++) {
			uint32_t len;
			if (s == d->t) {
				r->lft[at + j] = d->tport;
				len = 0;
			} else {
				r->lft[at + j] = adj[ws->nxt[(size_t)j * S + s]].lport;
				len = (uint32_t)ws->rlen[(size_t)j * S + s];
			}
			if (r->hops) {
				len += extra;
				r->hops[at + j] = (uint8_t)(len > 254 ? 254 : len);
			}
		}
	}
}

/* exact loads of one CA LID's tree: every source CA port at s adds one to
 * each link of s's path; summed over subtrees, farthest first */
static void charge_exact(const struct eng_ctx *c, struct eng_ws *ws, const uint32_t *nxt,
			 uint32_t nreach)
{
	const struct ibf_adj *adj = c->f->adj;
	const uint32_t *order = ws->order;
	const int32_t *len = ws->len;
	uint64_t *acc = ws->acc;
	uint32_t *cnt = ws->bcount, *byl = ws->bucket, maxl = 0;
	for (uint32_t i = 0; i < nreach; i++) {
		uint32_t x = order[i];
		acc[x] = c->hca[x];
		if ((uint32_t)len[x] > maxl)
			maxl = (uint32_t)len[x];
	}
	memset(cnt, 0, (size_t)(maxl + 2) * sizeof(*cnt));
	for (uint32_t i = 0; i < nreach; i++)
		cnt[len[order[i]] + 1]++;
	for (uint32_t k = 1; k <= maxl + 1; k++)
		cnt[k] += cnt[k - 1];
	for (uint32_t i = 0; i < nreach; i++)
		byl[cnt[len[order[i]]]++] = order[i];
	for (uint32_t i = nreach; i-- > 1;) {
		uint32_t x = byl[i], e = nxt[x];
		if (acc[x])
			eng_add_x(c, ws, e, (int64_t)acc[x]);
		acc[adj[e].nbr] += acc[x];
	}
}

static void flush_exact(struct eng_ws *ws, struct eng_unit_out *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < ws->nxt_touched; i++) {
		uint32_t e = ws->xtouched[i];
		if (ws->xdelta[e]) {
			out->xe[n] = e;
			out->xw[n++] = ws->xdelta[e];
		}
		ws->xdelta[e] = 0;
		ws->xflag[e] = 0;
	}
	out->nx = n;
	ws->nxt_touched = 0;
}

static void run_unit(const struct eng_ctx *c, struct eng_ws *ws, uint32_t di,
		     struct eng_unit_out *out)
{
	out->moves = 0;
	const struct eng_dest *d = &c->dest[di];
	uint32_t S = c->S;
	out->pairs_total = out->pairs_nonmin = out->pairs_fallback = 0;
	out->unreachable = out->long_paths = 0;
	out->max_len = 0;
	ws->ntouched = 0;
	uint32_t nreach = eng_order_by_dist(c, ws, d->t, ws->order);
	out->unreachable = (uint64_t)(S - nreach) * d->nlids;
	if (c->kind->layer_tree) {
		memset(ws->level, 0, (size_t)S * sizeof(*ws->level));
		const uint64_t *row =
			c->possible ? c->possible + (size_t)d->t * c->pwords : NULL;
		for (uint32_t s = 0; s < S; s++)
			ws->nopath[s] = row && (row[s >> 6] >> (s & 63) & 1) ? 0 : 2;
		eng_down_links(c, ws, d->t);
	}
	/* per-layer cap on in-window paths, split evenly over destinations */
	long cap = -1;
	if (c->o->max_paths_per_layer > 0) {
		uint64_t tot = (uint64_t)c->o->max_paths_per_layer;
		cap = (long)(tot * (di + 1) / c->ndest - tot * di / c->ndest);
	}
	for (uint32_t j = 0; j < d->nlids; j++) {
		uint32_t lid = d->lid + j;
		uint32_t *nxt = ws->nxt + (size_t)j * S;
		int mt = !c->kind->layer_tree || j % (uint32_t)c->layers == 0;
		if (mt) {
			/* charges the exact loads itself, switch by switch */
			uint64_t key = c->o->seed ? ibf_mix64(c->o->seed ^ ibf_mix64(lid)) : 0;
			/* the candidate's tree of this LID was built for the
			 * destination that owns it; a LID two ports claim (a
			 * broken dump) has it for the other one only */
			const uint32_t *sd = c->seed_opt && c->lid_dest[lid] == di
						     ? eng_seed_of(c, lid)
						     : NULL;
			if (sd)
				eng_seed_tree(c, ws, d->t, ws->order, nreach, sd, eng_xoff(c, j),
					      nxt);
			else
				c->kind->min_tree(c, ws, d->t, ws->order, nreach, key,
						  d->rank * d->nlids + j, !d->is_sw, eng_xoff(c, j),
						  nxt);
		} else {
			c->kind->layer_tree(c, ws, di, (int)j, nreach, cap, out);
		}
		int32_t *rl = ws->rlen + (size_t)j * S;
		for (uint32_t i = 0; i < nreach; i++)
			rl[ws->order[i]] = ws->len[ws->order[i]];
		if (!d->is_sw && !mt)
			charge_exact(c, ws, nxt, nreach);
	}
	write_columns(c, ws, d, nreach);
	flush_exact(ws, out);
	out->ntouched = ws->ntouched;
	for (uint32_t i = 0; i < ws->ntouched; i++) {
		uint32_t e = ws->touched[i];
		out->e[i] = e;
		out->w[i] = ws->delta[e];
		ws->delta[e] = 0;
	}
	ws->ntouched = 0;
}

/* ------------------------------------------------------------- rebalancing
 *
 * After every table is built, each CA destination port is revisited (in the
 * same deterministic rounds): in each of its LID trees a switch s may re-point
 * its next hop to another neighbour u one step closer to t *in that tree*
 * (len[u] = len[s] - 1).  Every path length stays as it was, so minimal paths
 * stay minimal, in-window paths stay in window and the hop table is unchanged;
 * the tree stays a tree (u is not below s).  A move is taken only when it
 * lowers the sum of squared exact link loads (paths per link as
 * ibf_path_stats counts them), and only when, for s and every switch below
 * it, the LIDs of the port whose paths share a cable or a directed link with
 * the new path are a subset of those sharing one with the old path: the
 * conflict graph between the paths of a pair only loses edges, so no pair
 * loses edge-disjoint paths.
 *
 * Phase 2 repeats the sweep (up to ENG_MINMAX times, until a sweep moves
 * nothing) with another rule aimed at the busiest link: a move is taken
 * when the busiest link it touches gets cooler -- every link of the new
 * segment, with the subtree's load added, stays below the busiest link of
 * the old segment -- the candidate with the coolest new segment first.  No
 * link rises to the old maximum, so the largest load never grows and the
 * sweeps end.  When no move helps a path through a link at the largest
 * load, a swap with another destination's LID at the same switch may
 * (try_swap), under the same rule.
 *
 * layered with several LIDs per port keeps X twice (eng_xoff): over all
 * LIDs, and over the base LIDs alone (plane 1, X + E).  Every change of a
 * layer-0 tree goes to both, of another layer to plane 0 only.  Phases 0
 * and 1 read plane 0 for every tree.  With layer0_balance base, phase 2
 * reads plane 1 for layer-0 trees, so layer 0 is cooled on its own loads
 * as minimal cools its one tree with LMC 0; with all, phase 2 reads plane
 * 0 throughout and phase 3 then cools the layer-0 trees on plane 1 where
 * no link's plane-0 load passes the plane-0 maximum (xmax[0]).  Layer 0
 * takes part in swaps on both sides, under the disjointness check of a
 * move (move_ok for this tree, swap_pair_ok for the other LID's pair). */

/* LID bit `bit` on link e and its cable (stamp st: the bits of an older
 * stamp are cleared first) */
static inline void mark_bit(const struct eng_ctx *c, struct eng_ws *ws, uint32_t e, uint64_t bit,
			    uint32_t st)
{
	uint32_t u = c->und[e];
	if (ws->cst[u] != st) {
		ws->cst[u] = st;
		ws->cb[u] = 0;
	}
	ws->cb[u] |= bit;
	if (ws->dst[e] != st) {
		ws->dst[e] = st;
		ws->db[e] = 0;
	}
	ws->db[e] |= bit;
}

/* stamps cb/db with the cables / links of y's paths for every LID k != j */
static void mark_other(const struct eng_ctx *c, struct eng_ws *ws, uint32_t y, uint32_t t,
		       uint32_t nl, uint32_t j)
{
	const struct ibf_adj *adj = c->f->adj;
	if (++ws->stamp2 == 0) {
		memset(ws->cst, 0, (size_t)c->E * sizeof(*ws->cst));
		memset(ws->dst, 0, (size_t)c->E * sizeof(*ws->dst));
		ws->stamp2 = 1;
	}
	uint32_t st = ws->stamp2;
	for (uint32_t k = 0; k < nl; k++) {
		if (k == j)
			continue;
		const uint32_t *nx = ws->nxt + (size_t)k * c->S;
		uint64_t bit = 1ull << k;
		for (uint32_t x = y, g = 0; x != t && g < c->S; g++) {
			uint32_t e = nx[x];
			mark_bit(c, ws, e, bit, st);
			x = adj[e].nbr;
		}
	}
}

static inline void conflicts(const struct eng_ctx *c, const struct eng_ws *ws, uint32_t e,
			     uint64_t *cm, uint64_t *dm)
{
	uint32_t u = c->und[e];
	if (ws->cst[u] == ws->stamp2)
		*cm |= ws->cb[u];
	if (ws->dst[e] == ws->stamp2)
		*dm |= ws->db[e];
}

/* may s (layer j) leave by link en instead of nx[s]?  see above */
static int move_ok(const struct eng_ctx *c, struct eng_ws *ws, uint32_t s, uint32_t en, uint32_t t,
		   uint32_t nl, uint32_t j)
{
	const struct ibf_adj *adj = c->f->adj;
	const uint32_t *nx = ws->nxt + (size_t)j * c->S;
	uint32_t *stk = ws->tmp, ns = 0;
	stk[ns++] = s;
	while (ns) {
		uint32_t y = stk[--ns];
		for (uint32_t ch = ws->fc[y]; ch != ENG_NOLINK; ch = ws->sib[ch])
			stk[ns++] = ch;
		mark_other(c, ws, y, t, nl, j);
		uint64_t oc = 0, od = 0, nc = 0, nd = 0;
		uint32_t x = y, g = 0;
		for (; x != s && g < c->S; g++) { /* the common prefix y -> s */
			conflicts(c, ws, nx[x], &oc, &od);
			x = adj[nx[x]].nbr;
		}
		for (x = s, g = 0; x != t && g < c->S; g++) {
			conflicts(c, ws, nx[x], &oc, &od);
			x = adj[nx[x]].nbr;
		}
		conflicts(c, ws, en, &nc, &nd);
		for (x = adj[en].nbr, g = 0; x != t && g < c->S; g++) {
			conflicts(c, ws, nx[x], &nc, &nd);
			x = adj[nx[x]].nbr;
		}
		if ((nc & ~oc) || (nd & ~od))
			return 0;
	}
	return 1;
}

/* Phase 2 (or 3), when no single move cools a path through a busiest
 * link: a swap with another destination's LID l2 at the same switch s.  s sends its
 * subtree (weight a) of this tree over e instead of eo, and l2, which
 * leaves s over e as a leaf of its own tree (its weight is s's CA ports),
 * over eo instead; both keep their path lengths (e and eo lead one step
 * closer to either destination).  Taken when every link whose load
 * changes stays below the busiest of them before, the coolest such swap
 * first.  Only run while phases 2 and 3 go one unit at a time (other
 * destinations' columns are read and written).  For layered, l2 is a base
 * LID (a minimal tree on the same plane) and both sides keep their pairs'
 * disjoint paths (move_ok, swap_pair_ok).  xa / xp: the plane offsets
 * written / read (see above); in phase 3 no link's plane-0 load may pass
 * xmax[0].  Returns the link s now takes for this tree (l2's side already
 * applied), ENG_NOLINK for none. */
#define SW_MAXP 64
struct sw_acc {
	uint32_t e[4 * SW_MAXP];
	int64_t d[4 * SW_MAXP];
	uint32_t n;
};

static void sw_add(struct sw_acc *s, uint32_t e, int64_t v)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->e[i] == e) {
			s->d[i] += v;
			return;
		}
	s->e[s->n] = e;
	s->d[s->n++] = v;
}

/* the link switch x uses for LID l (ENG_NOLINK: none) */
static uint32_t lft_link(const struct eng_ctx *c, uint32_t x, uint32_t l)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_node *sn = &f->nodes[f->switches[x]];
	uint8_t port = c->r->lft[(size_t)x * c->r->stride + l];
	if (port == IBF_LFT_NONE || port == 0 || port > sn->nports)
		return ENG_NOLINK;
	int32_t g = f->port_adj[sn->port_off + port];
	return g < 0 ? ENG_NOLINK : (uint32_t)g;
}

/* adds v to the links of l's path from x to t (D: distances to t); the
 * path must be minimal and at most SW_MAXP links, else 0 */
static int sw_path(const struct eng_ctx *c, struct sw_acc *a, uint32_t x, uint32_t t, uint32_t l,
		   const uint16_t *D, int64_t v)
{
	for (uint32_t g = 0; x != t; g++) {
		uint32_t e = lft_link(c, x, l);
		if (g >= SW_MAXP || e == ENG_NOLINK || D[c->f->adj[e].nbr] + 1 != D[x])
			return 0;
		sw_add(a, e, v);
		x = c->f->adj[e].nbr;
	}
	return 1;
}

/* stamps cb/db with the cables / links of the paths from s of d2's LIDs
 * other than its base LID, read from the LFTs */
static void mark_lft(const struct eng_ctx *c, struct eng_ws *ws, uint32_t s,
		     const struct eng_dest *d2)
{
	const struct ibf_adj *adj = c->f->adj;
	if (++ws->stamp2 == 0) {
		memset(ws->cst, 0, (size_t)c->E * sizeof(*ws->cst));
		memset(ws->dst, 0, (size_t)c->E * sizeof(*ws->dst));
		ws->stamp2 = 1;
	}
	uint32_t st = ws->stamp2;
	for (uint32_t k = 1; k < d2->nlids; k++) {
		uint64_t bit = 1ull << k;
		for (uint32_t x = s, g = 0; x != d2->t && g < c->S; g++) {
			uint32_t e = lft_link(c, x, d2->lid + k);
			if (e == ENG_NOLINK)
				break;
			mark_bit(c, ws, e, bit, st);
			x = adj[e].nbr;
		}
	}
}

/* the conflict masks of d2's base LID's path from s when it leaves s by
 * link e (the LFTs from there on) */
static void lft_conflicts(const struct eng_ctx *c, const struct eng_ws *ws, uint32_t e,
			  const struct eng_dest *d2, uint64_t *cm, uint64_t *dm)
{
	for (uint32_t g = 0; e != ENG_NOLINK && g < c->S; g++) {
		conflicts(c, ws, e, cm, dm);
		uint32_t x = c->f->adj[e].nbr;
		if (x == d2->t)
			break;
		e = lft_link(c, x, d2->lid);
	}
}

/* may s, a leaf of the tree of d2's base LID, leave by en instead of eo?
 * The rule of move_ok for the pair (s, d2): the other LIDs of d2 whose
 * paths from s share a cable or a link with the new path must share one
 * with the old path too. */
static int swap_pair_ok(const struct eng_ctx *c, struct eng_ws *ws, uint32_t s,
			const struct eng_dest *d2, uint32_t eo, uint32_t en)
{
	if (d2->nlids <= 1)
		return 1;
	if (d2->nlids > 64)
		return 0;
	mark_lft(c, ws, s, d2);
	uint64_t oc = 0, od = 0, nc = 0, nd = 0;
	lft_conflicts(c, ws, eo, d2, &oc, &od);
	lft_conflicts(c, ws, en, d2, &nc, &nd);
	return !(nc & ~oc) && !(nd & ~od);
}

static uint32_t try_swap(const struct eng_ctx *c, struct eng_ws *ws, const struct eng_dest *d,
			 uint32_t s, uint32_t j, int64_t a, int64_t hi, uint32_t xa, uint32_t xp)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_adj *adj = f->adj;
	uint32_t S = c->S, t = d->t;
	const uint32_t *nx = ws->nxt + (size_t)j * S;
	const int32_t *len = ws->rlen + (size_t)j * S;
	uint32_t eo = nx[s];
	int64_t a2 = (int64_t)c->hca[s];
	if (!a2 || len[s] > SW_MAXP) /* acc holds 4 paths of at most SW_MAXP links */
		return ENG_NOLINK;
	int64_t bestm = INT64_MAX;
	uint32_t bl = ENG_NOLINK, be = ENG_NOLINK;
	/* the swap only helps when this tree's path from some other next
	 * neighbour on stays below the busiest link with the subtree added */
	uint32_t ok[256], nok = 0;
	int check = c->kind->layer_tree && d->nlids > 1;
	for (uint32_t k = f->adj_off[s]; k < f->adj_off[s + 1] && nok < 256; k++) {
		uint32_t u = adj[k].nbr;
		if (k == eo || len[u] != len[s] - 1)
			continue;
		int64_t m = a; /* the busiest link on with the subtree added */
		for (uint32_t x = u; x != t; x = adj[nx[x]].nbr) {
			int64_t v = eng_x(c, ws, nx[x] + xp) + eng_wx(c, nx[x], a);
			if (v > m)
				m = v;
		}
		/* this tree's own pairs keep their disjoint paths (move_ok) */
		if (m < hi && (!check || move_ok(c, ws, s, k, t, d->nlids, j)))
			ok[nok++] = k;
	}
	if (!nok)
		return ENG_NOLINK;
	struct sw_acc acc;
	for (uint32_t l = 1; l <= c->r->max_lid; l++) {
		uint32_t di2 = c->lid_dest[l];
		if (di2 == ENG_NOLINK || &c->dest[di2] == d)
			continue;
		const struct eng_dest *d2 = &c->dest[di2];
		/* layered: only base LIDs, which are minimal trees balanced
		 * on the same plane as this one */
		if (d2->is_sw || (c->kind->layer_tree && l != d2->lid))
			continue;
		uint32_t e = lft_link(c, s, l);
		uint32_t q = 0;
		while (q < nok && ok[q] != e)
			q++;
		if (q == nok)
			continue;
		const uint16_t *D2 = c->dist + (size_t)d2->t * S;
		if (s == d2->t || D2[adj[eo].nbr] + 1 != D2[s])
			continue;
		/* s must be a leaf of l's tree: no neighbour farther away sends l to s */
		int child = 0;
		for (uint32_t k = f->adj_off[s]; k < f->adj_off[s + 1] && !child; k++) {
			uint32_t y = adj[k].nbr;
			if (D2[y] == D2[s] + 1) {
				uint32_t g = lft_link(c, y, l);
				child = g != ENG_NOLINK && adj[g].nbr == s;
			}
		}
		if (child)
			continue;
		acc.n = 0;
		for (uint32_t x = s; x != t; x = adj[nx[x]].nbr)
			sw_add(&acc, nx[x], -a);
		sw_add(&acc, e, a);
		for (uint32_t x = adj[e].nbr; x != t; x = adj[nx[x]].nbr)
			sw_add(&acc, nx[x], a);
		if (!sw_path(c, &acc, s, d2->t, l, D2, -a2))
			continue;
		sw_add(&acc, eo, a2);
		if (!sw_path(c, &acc, adj[eo].nbr, d2->t, l, D2, a2))
			continue;
		int64_t mo = 0, mn = 0, m0 = 0;
		for (uint32_t i = 0; i < acc.n; i++) {
			if (!acc.d[i])
				continue;
			int64_t dw = eng_wx(c, acc.e[i], acc.d[i]);
			if (xp && eng_x(c, ws, acc.e[i]) + dw > m0)
				m0 = eng_x(c, ws, acc.e[i]) + dw;
			int64_t v = eng_x(c, ws, acc.e[i] + xp);
			if (v > mo)
				mo = v;
			if (v + dw > mn)
				mn = v + dw;
		}
		if (mn >= mo || mn >= bestm || (c->phase == 3 && m0 > c->xmax[0]))
			continue;
		if (c->kind->layer_tree && !swap_pair_ok(c, ws, s, d2, e, eo))
			continue;
		bestm = mn;
		bl = l;
		be = e;
	}
	if (bl == ENG_NOLINK)
		return ENG_NOLINK;
	/* l2's part here; the caller moves this tree's subtree over be */
	uint32_t t2 = c->dest[c->lid_dest[bl]].t;
	for (uint32_t x = s; x != t2;) {
		uint32_t g = lft_link(c, x, bl);
		eng_add_xp(c, ws, g, xa, -a2);
		x = adj[g].nbr;
	}
	c->r->lft[(size_t)s * c->r->stride + bl] = adj[eo].lport;
	for (uint32_t x = s; x != t2;) {
		uint32_t g = lft_link(c, x, bl);
		eng_add_xp(c, ws, g, xa, a2);
		x = adj[g].nbr;
	}
	return be;
}

/* s (subtree weight acc[s]) of tree j leaves by en from now on: loads,
 * subtree sums, child lists, the LFT entry */
static void apply_move(const struct eng_ctx *c, struct eng_ws *ws, const struct eng_dest *d,
		       uint32_t j, uint32_t s, uint32_t en, uint32_t xa)
{
	const struct ibf_adj *adj = c->f->adj;
	uint32_t *nx = ws->nxt + (size_t)j * c->S;
	uint64_t *acc = ws->acc;
	uint32_t t = d->t;
	int64_t a = (int64_t)acc[s];
	uint32_t po = adj[nx[s]].nbr, pn = adj[en].nbr;
	for (uint32_t x = s; x != t;) {
		uint32_t e = nx[x];
		eng_add_xp(c, ws, e, xa, -a);
		x = adj[e].nbr;
		if (x != t)
			acc[x] -= (uint64_t)a;
	}
	uint32_t *pp = &ws->fc[po];
	while (*pp != s)
		pp = &ws->sib[*pp];
	*pp = ws->sib[s];
	nx[s] = en;
	ws->sib[s] = ws->fc[pn];
	ws->fc[pn] = s;
	for (uint32_t x = s; x != t;) {
		uint32_t e = nx[x];
		eng_add_xp(c, ws, e, xa, a);
		x = adj[e].nbr;
		if (x != t)
			acc[x] += (uint64_t)a;
	}
	c->r->lft[(size_t)s * c->r->stride + d->lid + j] = adj[en].lport;
}

/* adds v to the links of tree nx's path from x to t; 0 when longer than
 * SW_MAXP links */
static int sw_tree_path(const struct eng_ctx *c, struct sw_acc *acc, const uint32_t *nx, uint32_t x,
			uint32_t t, int64_t v)
{
	for (uint32_t g = 0; x != t; g++) {
		if (g >= SW_MAXP)
			return 0;
		sw_add(acc, nx[x], v);
		x = c->f->adj[nx[x]].nbr;
	}
	return 1;
}

/* Phase 2, when neither a move nor a swap cools a path of s through a
 * busiest link: a pair of moves in the same tree.  s moves to a cool
 * first link e whose path on is blocked by exactly one link f (f would
 * reach the old busiest load with s's subtree added); another switch s2
 * whose path crosses f, with at least s's weight, leaves f by a link of
 * its own one step closer, so f loses at least what it gains.  Neither
 * switch may lie on the other's paths (old or new), so the two moves do
 * not change each other's segments.  Taken under the rule of a move and a
 * swap: every link whose load changes stays below the busiest of them
 * before, the coolest pair first.  Path lengths stay; in a tree with the
 * disjointness check (layered's layer 0) both moves must pass move_ok
 * (each is checked alone: neither changes the other's segments).
 * Returns 1 when both moves were made. */
static int try_pair(const struct eng_ctx *c, struct eng_ws *ws, const struct eng_dest *d,
		    uint32_t s, uint32_t j, int64_t a, int64_t hi, uint32_t xa, uint32_t xp)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_adj *adj = f->adj;
	uint32_t S = c->S, t = d->t;
	const uint32_t *nx = ws->nxt + (size_t)j * S;
	const int32_t *len = ws->rlen + (size_t)j * S;
	const uint64_t *acc = ws->acc;
	uint32_t eo = nx[s];
	int check = c->kind->layer_tree && d->nlids > 1;
	if (len[s] > SW_MAXP)
		return 0;
	uint32_t oldp[SW_MAXP], no = 0;
	for (uint32_t x = s; x != t; x = adj[nx[x]].nbr)
		oldp[no++] = nx[x];
	int64_t bestm = INT64_MAX;
	uint32_t be = ENG_NOLINK, bs2 = ENG_NOLINK, be2 = ENG_NOLINK;
	struct sw_acc sa;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		uint32_t u = adj[e].nbr;
		if (e == eo || len[u] != len[s] - 1 ||
		    eng_x(c, ws, e + xp) + eng_wx(c, e, a) >= hi)
			continue;
		/* the one blocking link of the new path (links of the old path
		 * keep their load) and the switches of the new path */
		uint32_t fb = ENG_NOLINK, nb = 0, newsw[SW_MAXP], nn = 0;
		for (uint32_t x = u; x != t; x = adj[nx[x]].nbr) {
			newsw[nn++] = x;
			uint32_t g = nx[x], k = 0;
			while (k < no && oldp[k] != g)
				k++;
			if (k == no && eng_x(c, ws, g + xp) + eng_wx(c, g, a) >= hi) {
				fb = g;
				nb++;
			}
		}
		if (nb != 1)
			continue;
		/* s2: the switches whose path crosses fb, i.e. the subtree of
		 * its tail, depth first */
		uint32_t *stk = ws->tmp, ns = 0;
		stk[ns++] = c->esrc[fb];
		while (ns) {
			uint32_t s2 = stk[--ns];
			for (uint32_t ch = ws->fc[s2]; ch != ENG_NOLINK; ch = ws->sib[ch])
				stk[ns++] = ch;
			int64_t a2 = (int64_t)acc[s2];
			if (a2 < a || s2 == s)
				continue;
			uint32_t k = 0;
			while (k < nn && newsw[k] != s2)
				k++;
			if (k < nn)
				continue; /* on s's new path */
			int below = 0;	  /* s2 in s's subtree */
			for (uint32_t x = s2; x != t && !below; x = adj[nx[x]].nbr)
				below = x == s;
			if (below)
				continue;
			for (uint32_t e2 = f->adj_off[s2]; e2 < f->adj_off[s2 + 1]; e2++) {
				uint32_t u2 = adj[e2].nbr;
				if (e2 == nx[s2] || len[u2] != len[s2] - 1 ||
				    eng_x(c, ws, e2 + xp) + eng_wx(c, e2, a2) >= hi)
					continue;
				int bad = 0; /* the new path of s2 avoids fb and s */
				for (uint32_t x = u2; x != t && !bad; x = adj[nx[x]].nbr)
					bad = x == s || nx[x] == fb;
				if (bad)
					continue;
				sa.n = 0;
				sw_tree_path(c, &sa, nx, s, t, -a);
				sw_add(&sa, e, a);
				sw_tree_path(c, &sa, nx, u, t, a);
				if (!sw_tree_path(c, &sa, nx, s2, t, -a2))
					continue;
				sw_add(&sa, e2, a2);
				if (!sw_tree_path(c, &sa, nx, u2, t, a2))
					continue;
				int64_t mo = 0, mn = 0;
				for (uint32_t i = 0; i < sa.n; i++) {
					if (!sa.d[i])
						continue;
					int64_t v = eng_x(c, ws, sa.e[i] + xp);
					if (v > mo)
						mo = v;
					if (v + eng_wx(c, sa.e[i], sa.d[i]) > mn)
						mn = v + eng_wx(c, sa.e[i], sa.d[i]);
				}
				if (mn >= mo || mn >= bestm)
					continue;
				/* both moves keep their pairs' disjoint paths */
				if (check && (!move_ok(c, ws, s, e, t, d->nlids, j) ||
					      !move_ok(c, ws, s2, e2, t, d->nlids, j)))
					continue;
				bestm = mn;
				be = e;
				bs2 = s2;
				be2 = e2;
			}
		}
	}
	if (be == ENG_NOLINK)
		return 0;
	apply_move(c, ws, d, j, s, be, xa);
	apply_move(c, ws, d, j, bs2, be2, xa);
	return 1;
}

static void rebalance_tree(const struct eng_ctx *c, struct eng_ws *ws, const struct eng_dest *d,
			   uint32_t nreach, uint32_t j, struct eng_unit_out *out)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_adj *adj = f->adj;
	uint32_t S = c->S, t = d->t, nl = d->nlids;
	uint32_t *nx = ws->nxt + (size_t)j * S;
	int32_t *len = ws->rlen + (size_t)j * S;
	uint64_t *acc = ws->acc;
	const uint32_t *order = ws->order;
	int check = c->kind->layer_tree && nl > 1;
	int minmax = c->phase >= 2;
	/* changes go to plane 0 and, for a base LID, to plane 1 too (xa);
	 * the plane read (xp) is plane 1 for a base LID while layer 0 is
	 * cooled alone: phase 2 with c->l0base, else phase 3, which keeps
	 * every link's load on plane 0 within the busiest one (xmax[0]) */
	uint32_t xa = eng_xoff(c, j), xp = (c->l0base ? minmax : c->phase == 3) ? xa : 0;
	int pl = xp != 0;

	/* children, and the switches by tree length (counting sort) */
	uint32_t maxl = 0;
	for (uint32_t i = 0; i < nreach; i++) {
		uint32_t x = order[i];
		ws->fc[x] = ENG_NOLINK;
		acc[x] = c->hca[x];
		if ((uint32_t)len[x] > maxl)
			maxl = (uint32_t)len[x];
	}
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t x = order[i], p = adj[nx[x]].nbr;
		ws->sib[x] = ws->fc[p];
		ws->fc[p] = x;
	}
	uint32_t *cnt = ws->bcount, *byl = ws->bucket;
	memset(cnt, 0, (size_t)(maxl + 2) * sizeof(*cnt));
	for (uint32_t i = 0; i < nreach; i++)
		cnt[len[order[i]] + 1]++;
	for (uint32_t k = 1; k <= maxl + 1; k++)
		cnt[k] += cnt[k - 1];
	for (uint32_t i = 0; i < nreach; i++)
		byl[cnt[len[order[i]]]++] = order[i];
	for (uint32_t i = nreach; i-- > 1;) {
		uint32_t x = byl[i];
		acc[adj[nx[x]].nbr] += acc[x];
	}
	/* nearest first: the big subtrees move first, the leaves fine-tune */
	for (uint32_t i = 1; i < nreach; i++) {
		uint32_t s = byl[i];
		int64_t a = (int64_t)acc[s];
		if (!a)
			continue;
		uint32_t eo = nx[s];
		/* only a path with a link above the mean load is worth leaving */
		int64_t hi = 0;
		for (uint32_t x = s; x != t;) {
			uint32_t e = nx[x];
			int64_t w = eng_x(c, ws, e + xp);
			if (w > hi)
				hi = w;
			x = adj[e].nbr;
		}
		if (hi <= c->xmean[pl])
			continue;
		int64_t bestd = minmax ? INT64_MAX : 0, bestm = INT64_MAX;
		uint32_t beste = ENG_NOLINK;
		/* branch-free filter: neighbours one step closer in this tree */
		uint32_t cand[256], n = 0, e0 = f->adj_off[s], deg = f->adj_off[s + 1] - e0;
		int32_t want = len[s] - 1;
		if (deg > 256)
			deg = 256; /* cannot happen: ports are 8-bit */
		for (uint32_t k = 0; k < deg; k++) {
			cand[n] = e0 + k;
			n += len[adj[e0 + k].nbr] == want;
		}
		for (uint32_t ci = 0; ci < n; ci++) {
			uint32_t e = cand[ci], u = adj[e].nbr;
			if (e == eo || u == s)
				continue;
			/* walk old and new paths in lockstep until they meet; a
			 * link's load changes by a times its rate weight */
			int64_t an = eng_wx(c, e, a), ao = eng_wx(c, eo, a);
			int64_t dl = an * (2 * eng_x(c, ws, e + xp) + an) -
				     ao * (2 * eng_x(c, ws, eo + xp) - ao);
			int64_t mo = eng_x(c, ws, eo + xp), mn = eng_x(c, ws, e + xp) + an;
			int64_t m0 = eng_x(c, ws, e) + an; /* plane 0 (== mn without xp) */
			uint32_t xo = adj[eo].nbr, xn = u;
			while (xo != xn) {
				uint32_t fo = nx[xo], fn = nx[xn];
				int64_t vo = eng_x(c, ws, fo + xp), vn = eng_x(c, ws, fn + xp);
				an = eng_wx(c, fn, a);
				ao = eng_wx(c, fo, a);
				if (xp && eng_x(c, ws, fn) + an > m0)
					m0 = eng_x(c, ws, fn) + an;
				dl += an * (2 * vn + an) - ao * (2 * vo - ao);
				if (vo > mo)
					mo = vo;
				if (vn + an > mn)
					mn = vn + an;
				xo = adj[fo].nbr;
				xn = adj[fn].nbr;
			}
			if (minmax) {
				/* the busiest link the move touches must get cooler */
				if (mn >= mo || mn > bestm || (mn == bestm && dl >= bestd))
					continue;
				if (xp && c->phase == 3 && m0 > c->xmax[0])
					continue;
			} else if (dl >= bestd) {
				continue;
			}
			if (check && !move_ok(c, ws, s, e, t, nl, j))
				continue;
			bestd = dl;
			bestm = mn;
			beste = e;
		}
		/* n > 1: s has another way one step closer */
		if (beste == ENG_NOLINK && minmax && (!check || j == 0) && n > 1 &&
		    hi >= c->xmax[pl])
			beste = try_swap(c, ws, d, s, j, a, hi, xa, xp);
		if (beste == ENG_NOLINK && minmax && (!check || j == 0) && n > 1 &&
		    hi >= c->xmax[pl] && c->phase == 2 && try_pair(c, ws, d, s, j, a, hi, xa, xp)) {
			out->moves += 2;
			continue;
		}
		if (beste == ENG_NOLINK)
			continue;
		apply_move(c, ws, d, j, s, beste, xa);
		out->moves++;
	}
}

static void rebal_unit(const struct eng_ctx *c, struct eng_ws *ws, uint32_t di,
		       struct eng_unit_out *out)
{
	const struct eng_dest *d = &c->dest[di];
	const struct ibf_adj *adj = c->f->adj;
	uint32_t S = c->S, t = d->t;
	out->ntouched = 0;
	out->nx = 0;
	out->moves = 0;
	if (d->is_sw || d->nlids > 64)
		return;
	uint32_t nreach = eng_order_by_dist(c, ws, t, ws->order);
	const struct ibf_routes *r = c->r;
	/* the trees from the LFTs, switch by switch (one row touch each) */
	for (uint32_t i = 0; i < nreach; i++) {
		uint32_t s = ws->order[i];
		const uint8_t *row = r->lft + (size_t)s * r->stride + d->lid;
		const struct ibf_node *sn = &c->f->nodes[c->f->switches[s]];
		for (uint32_t j = 0; j < d->nlids; j++) {
			uint32_t *nx = ws->nxt + (size_t)j * S;
			if (s == t) {
				nx[s] = ENG_NOLINK;
				continue;
			}
			/* the fabric's port -> link index (-1: not a switch link) */
			uint8_t port = row[j];
			nx[s] = port == IBF_LFT_NONE || port > sn->nports
					? ENG_NOLINK
					: (uint32_t)c->f->port_adj[sn->port_off + port];
			if (nx[s] == ENG_NOLINK)
				return;
		}
	}
	for (uint32_t j = 0; j < d->nlids; j++) {
		uint32_t *nx = ws->nxt + (size_t)j * S;
		int32_t *len = ws->rlen + (size_t)j * S;
		for (uint32_t i = 0; i < nreach; i++) {
			len[ws->order[i]] = -1;
			ws->fixed[ws->order[i]] = 0;
		}
		/* tree lengths: walk up to a known switch, then unwind */
		len[t] = 0;
		ws->fixed[t] = 1;
		uint32_t *stk = ws->tmp;
		for (uint32_t i = 1; i < nreach; i++) {
			uint32_t x = ws->order[i], n = 0;
			while (!ws->fixed[x]) {
				if (n >= nreach)
					return; /* not a tree: leave it alone */
				ws->fixed[x] = 2;
				stk[n++] = x;
				x = adj[nx[x]].nbr;
				if (ws->fixed[x] == 2)
					return;
			}
			while (n) {
				uint32_t y = stk[--n];
				len[y] = len[adj[nx[y]].nbr] + 1;
				ws->fixed[y] = 1;
			}
		}
	}
	/* a candidate tree that meets the lower bound stays as it is */
	for (uint32_t j = c->seed_opt ? 1 : 0; j < (c->phase == 3 ? 1 : d->nlids); j++)
		rebalance_tree(c, ws, d, nreach, j, out);
	flush_exact(ws, out);
}

/* ------------------------------------------------------------- the pool */

/* A small generation barrier whose size is set once every worker exists
 * (so a failed pthread_create just means fewer workers). */
struct eng_bar {
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned n, count, gen;
};

static void bar_wait(struct eng_bar *b)
{
	pthread_mutex_lock(&b->m);
	unsigned g = b->gen;
	if (++b->count == b->n) {
		b->count = 0;
		b->gen++;
		pthread_cond_broadcast(&b->cv);
	} else {
		while (g == b->gen)
			pthread_cond_wait(&b->cv, &b->m);
	}
	pthread_mutex_unlock(&b->m);
}

struct eng_worker {
	struct eng_pool *p;
	int tid;
};

struct eng_pool {
	struct eng_ctx *c;
	struct eng_ws *ws;
	int nws;      /* workspaces initialised (freed by pool_free) */
	int nthreads; /* the caller + started workers */
	struct eng_bar bar;
	int have_bar;
	int started; /* worker threads running */
	pthread_t tids[ENG_MAX_THREADS];
	struct eng_worker wk[ENG_MAX_THREADS];
	uint32_t base, n;
	atomic_uint next;
	int done;
};

static void pool_work(struct eng_pool *p, int tid)
{
	unsigned i;
	while ((i = atomic_fetch_add(&p->next, 1u)) < p->n)
		(p->c->phase ? rebal_unit : run_unit)(p->c, &p->ws[tid], p->base + i,
						      &p->c->out[i]);
}

static void *worker_main(void *arg)
{
	struct eng_worker *w = arg;
	struct eng_pool *p = w->p;
	for (;;) {
		bar_wait(&p->bar);
		if (p->done)
			break;
		pool_work(p, w->tid);
		bar_wait(&p->bar);
	}
	return NULL;
}

/* The context of one run: destinations, links, distances, the hop windows
 * per distance, layers, round size and the per-unit outputs of a round.
 * *maxlids: the most LIDs of one destination. */
static int ctx_setup(struct eng_ctx *c, uint32_t *maxlids, struct ibf_error *err)
{
	const struct ibf_route_opts *o = c->o;
	int rc;
	c->hosts = calloc(c->S ? c->S : 1, sizeof(*c->hosts));
	c->hca = calloc(c->S ? c->S : 1, sizeof(*c->hca));
	if (!c->hosts || !c->hca)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	*maxlids = 1;
	int maxlmc = 0;
	if ((rc = eng_build_dests(c, err, maxlids, &maxlmc)))
		return rc;
	/* layered with several LIDs per port: its layer 0 balances on the
	 * base LIDs' loads alone (plane 1 of X), as minimal does with LMC 0 */
	c->xplanes = c->kind->layer_tree && *maxlids > 1 ? 2 : 1;
	c->l0base = c->xplanes == 2 && o->layer0_balance == IBF_L0_BASE;
	if ((rc = eng_build_links(c, err)) || (rc = eng_build_dist(c, err)))
		return rc;
	if ((rc = eng_build_rates(c, err)) < 0)
		return rc;
	c->rated = rc;
	if (c->rated)
		eng_log(o, IBF_LOG_VERBOSE,
			"%s: switch links run at different rates: loads weighted by rate",
			c->kind->name);
	c->winlo = malloc(((size_t)c->diam + 1) * sizeof(*c->winlo));
	c->winhi = malloc(((size_t)c->diam + 1) * sizeof(*c->winhi));
	if (!c->winlo || !c->winhi)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t k = 0; k <= c->diam; k++) {
		c->winlo[k] = eng_bound(c, &o->min_len, k);
		c->winhi[k] = eng_bound(c, &o->max_len, k);
	}
	for (uint32_t i = 0; i < c->ndest; i++)
		if (!c->dest[i].is_sw)
			c->hca[c->dest[i].t]++;
	c->layers = o->layers > 0 ? o->layers : 1 << maxlmc;
	if (c->layers > 128)
		c->layers = 128;
	if (c->kind->layer_tree && (rc = eng_build_possible(c, err)))
		return rc;
	c->pmax = 4;
	c->round = c->ndest / 256;
	if (c->round < 1)
		c->round = 1;
	if (c->round > ENG_ROUND)
		c->round = ENG_ROUND;
	/* phase 2 one unit at a time: its rule (no link reaches the busiest
	 * link's old load) only holds when every move sees all earlier ones;
	 * in a round of 16 the units all fled onto the same cool link */
	c->rounds[0] = c->rounds[1] = c->round;
	c->rounds[2] = c->rounds[3] = 1;
	c->lid_dest = malloc(((size_t)c->r->max_lid + 1) * sizeof(*c->lid_dest));
	if (!c->lid_dest)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t l = 0; l <= c->r->max_lid; l++)
		c->lid_dest[l] = ENG_NOLINK;
	for (uint32_t i = 0; i < c->ndest; i++)
		for (uint32_t j = 0; j < c->dest[i].nlids; j++)
			c->lid_dest[c->dest[i].lid + j] = i;
	c->r->lmc = maxlmc;
	snprintf(c->r->engine, sizeof(c->r->engine), "%s", c->kind->name);
	size_t XE = c->E ? (size_t)c->E * c->xplanes : 1;
	for (unsigned i = 0; i < ENG_ROUND; i++) {
		c->out[i].e = malloc((c->E ? c->E : 1) * sizeof(*c->out[i].e));
		c->out[i].w = malloc((c->E ? c->E : 1) * sizeof(*c->out[i].w));
		c->out[i].xe = malloc(XE * sizeof(*c->out[i].xe));
		c->out[i].xw = malloc(XE * sizeof(*c->out[i].xw));
		if (!c->out[i].e || !c->out[i].w || !c->out[i].xe || !c->out[i].xw)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	return 0;
}

/* Workspaces for up to o->threads threads (never more than a round's units)
 * and the worker threads; a worker that cannot start only means fewer
 * (the tables do not depend on it). */
static int pool_start(struct eng_pool *p, struct eng_ctx *c, uint32_t maxlids,
		      struct ibf_error *err)
{
	const struct ibf_route_opts *o = c->o;
	int nt = o->threads < 1 ? 1 : o->threads;
	if (nt > ENG_MAX_THREADS)
		nt = ENG_MAX_THREADS;
	if ((uint32_t)nt > c->round)
		nt = (int)c->round;
	if ((uint32_t)nt > c->ndest)
		nt = c->ndest ? (int)c->ndest : 1;
	p->c = c;
	p->ws = calloc((size_t)nt, sizeof(*p->ws));
	if (!p->ws)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	p->nws = nt;
	p->nthreads = nt;
	for (int i = 0; i < nt; i++)
		if (eng_ws_init(&p->ws[i], c, maxlids))
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for scratch");
	if (nt == 1)
		return 0;
	if (pthread_mutex_init(&p->bar.m, NULL))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "cannot create a mutex");
	if (pthread_cond_init(&p->bar.cv, NULL)) {
		pthread_mutex_destroy(&p->bar.m);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "cannot create a condition");
	}
	p->have_bar = 1;
	/* workers block on the mutex until the barrier size is known */
	pthread_mutex_lock(&p->bar.m);
	for (int i = 1; i < nt; i++) {
		p->wk[i].p = p;
		p->wk[i].tid = i;
		if (pthread_create(&p->tids[i], NULL, worker_main, &p->wk[i])) {
			/* fewer workers give the same tables */
			eng_log(o, IBF_LOG_INFO, "could not start thread %d; continuing", i);
			break;
		}
		p->started++;
	}
	p->nthreads = p->started + 1;
	p->bar.n = (unsigned)p->nthreads;
	pthread_mutex_unlock(&p->bar.m);
	return 0;
}

/* Stop the workers (they wait at the barrier between rounds). */
static void pool_stop(struct eng_pool *p)
{
	if (!p->started)
		return;
	p->done = 1;
	bar_wait(&p->bar);
	for (int i = 1; i <= p->started; i++)
		pthread_join(p->tids[i], NULL);
	p->started = 0;
}

static void pool_free(struct eng_pool *p)
{
	pool_stop(p);
	if (p->have_bar) {
		pthread_cond_destroy(&p->bar.cv);
		pthread_mutex_destroy(&p->bar.m);
	}
	if (p->ws) {
		for (int i = 0; i < p->nws; i++)
			eng_ws_free(&p->ws[i]);
		free(p->ws);
	}
}

/* What the rounds add up to. */
struct run_sums {
	uint64_t unreach, ptot, pnon, pfb, plong, moves;
	uint32_t maxlen;
	int64_t first_bad; /* first destination with unreachable entries, -1 none */
};

/* One round: units base .. base+n-1 on the pool, then their outputs merged
 * into the loads in unit order (so the result never depends on threads). */
static void run_round(struct eng_ctx *c, struct eng_pool *p, uint32_t base, struct run_sums *t)
{
	p->base = base;
	uint32_t rs = c->rounds[c->phase];
	p->n = c->ndest - base < rs ? c->ndest - base : rs;
	atomic_store(&p->next, 0u);
	if (p->nthreads > 1 && p->n > 1) {
		bar_wait(&p->bar);
		pool_work(p, 0);
		bar_wait(&p->bar);
	} else {
		pool_work(p, 0);
	}
	for (uint32_t i = 0; i < p->n; i++) {
		const struct eng_unit_out *u = &c->out[i];
		for (uint32_t k = 0; k < u->nx; k++)
			c->X[u->xe[k]] += (uint64_t)u->xw[k];
		t->moves += u->moves;
		if (c->phase)
			continue;
		for (uint32_t k = 0; k < u->ntouched; k++)
			c->W[u->e[k]] += u->w[k];
		t->ptot += u->pairs_total;
		t->pnon += u->pairs_nonmin;
		t->pfb += u->pairs_fallback;
		t->plong += u->long_paths;
		if (u->max_len > t->maxlen)
			t->maxlen = u->max_len;
		if (u->unreachable) {
			t->unreach += u->unreachable;
			if (t->first_bad < 0)
				t->first_bad = base + i;
		}
	}
}

/* Phase 0 builds every table; phase 1 rebalances them (one sweep: more
 * gain little); phase 2 cools the busiest links, sweep after sweep while
 * moves are found (at most ENG_MINMAX); phase 3 (layered, LMC >= 1,
 * layer0_balance all) likewise cools layer 0 on the base LIDs' loads; all
 * in the same deterministic rounds. */
static void run_phases(struct eng_ctx *c, struct eng_pool *p, struct run_sums *t)
{
	int last = c->xplanes == 2 && !c->l0base ? 3 : 2, sweeps = 0;
	/* the candidate met the lower bound on every tree: nothing to move */
	if (c->seed_opt && c->xplanes == 1)
		last = 0;
	for (int ph = 0; ph <= ENG_SWEEPS + 2 * ENG_MINMAX && !(ph > 0 && t->unreach); ph++) {
		if (ph == 0 || ph <= ENG_SWEEPS)
			c->phase = ph == 0 ? 0 : 1;
		else if (c->phase < 2)
			c->phase = 2;
		if (c->phase > last)
			break;
		uint64_t moves0 = t->moves;
		if (c->phase) {
			/* moves keep every path length, so the total (and the mean)
			 * of X stays as it is; a hair above the mean: near balance,
			 * re-checking every path costs much and gains little */
			for (uint32_t pl = 0; pl < c->xplanes; pl++) {
				const uint64_t *X = c->X + (size_t)pl * c->E;
				uint64_t sum = 0, mx = 0;
				for (uint32_t e = 0; e < c->E; e++) {
					sum += X[e];
					if (X[e] > mx)
						mx = X[e];
				}
				int64_t mean = c->E ? (int64_t)(sum / c->E + sum / c->E / 512) : 0;
				/* phase 2 only cares for the busiest links: paths whose
				 * busiest link is in the upper half between mean and max */
				if (c->phase >= 2 && (int64_t)mx > mean)
					mean += ((int64_t)mx - mean) / 2;
				c->xmean[pl] = mean;
				c->xmax[pl] = (int64_t)mx;
			}
		}
		for (uint32_t base = 0; base < c->ndest; base += c->rounds[c->phase])
			run_round(c, p, base, t);
		if (c->phase >= 2 && (t->moves == moves0 || ++sweeps == ENG_MINMAX)) {
			c->phase++;
			sweeps = 0;
		}
	}
}

static int unreachable_error(const struct eng_ctx *c, const struct run_sums *t,
			     struct ibf_error *err)
{
	const struct eng_dest *d = &c->dest[t->first_bad];
	const struct ibf_node *n = &c->f->nodes[d->node];
	uint32_t nun = 0;
	for (uint32_t k = 0; k < c->S; k++)
		nun += c->dist[(size_t)d->t * c->S + k] == ENG_DIST_INF;
	return ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
			     "%llu (switch, LID) entries unreachable: the switch graph is "
			     "disconnected (e.g. LID %u of '%s' port %d is unreachable from "
			     "%u switch(es))",
			     (unsigned long long)t->unreach, d->lid, n->desc ? n->desc : "?",
			     d->port, nun);
}

int eng_run(const struct ibf_fabric *f_in, const struct ibf_route_opts *o, struct ibf_routes *r,
	    struct ibf_route_report *rep, struct ibf_error *err, const struct eng_kind *kind)
{
	double t0 = ibf_now();
	struct ibf_route_opts defo;
	if (!o) {
		ibf_route_opts_default(&defo);
		o = &defo;
	}
	if (!f_in || !r || !r->lft)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fabric or route table");
	if (!f_in->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	if (r->nsw != f_in->nsw)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "route table has %u switches, fabric %u", r->nsw, f_in->nsw);
	/* switch cables far below their rate are routed as if lost: the
	 * engine works on a copy without them, whose tables are f_in's */
	struct ibf_fabric *lean = NULL;
	int lrc = ibf_route_drop_slow(f_in, o, kind->name, NULL, NULL, &lean, err);
	if (lrc)
		return lrc;
	const struct ibf_fabric *f = lean ? lean : f_in;
	struct eng_ctx c;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.o = o;
	c.r = r;
	c.kind = kind;
	c.S = f->nsw;
	c.E = f->adj_off ? f->adj_off[f->nsw] : 0;
	struct eng_pool pool;
	memset(&pool, 0, sizeof(pool));
	uint32_t maxlids = 1;
	int rc;
	if ((rc = ctx_setup(&c, &maxlids, err)) || (rc = pool_start(&pool, &c, maxlids, err)))
		goto out;
	eng_log(o, IBF_LOG_VERBOSE,
		"%s: %u switches, %u destinations, %d layers, diameter %u (typical %u), %d threads",
		r->engine, c.S, c.ndest, c.layers, c.diam, c.diam_ref, pool.nthreads);

	if ((rc = eng_seed_build(&c, &pool.ws[0], err)))
		goto out;
	/* layered with LMC >= 1 can only start from the candidate: its other
	 * layers are built around layer 0 */
	if (!c.seed_opt && c.xplanes != 1)
		eng_seed_free(&c);
	eng_log(o, IBF_LOG_VERBOSE, "%s: least-used-port candidate: busiest link %llu%s", r->engine,
		(unsigned long long)c.seed_max, c.seed_opt ? " (the lower bound: used)" : "");
	struct run_sums t = { .first_bad = -1 };
	run_phases(&c, &pool, &t);
	if (!t.unreach && !c.seed_opt && eng_seed_better(&c)) {
		eng_seed_apply(&c);
		eng_log(o, IBF_LOG_VERBOSE, "%s: the candidate balances better: taken", r->engine);
	}
	eng_log(o, IBF_LOG_VERBOSE, "%s: rebalancing moved %llu next hops", r->engine,
		(unsigned long long)t.moves);
	pool_stop(&pool);
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		rep->layers = c.layers;
		rep->pairs_total = t.ptot;
		rep->pairs_nonminimal = t.pnon;
		rep->pairs_fallback = t.pfb;
		rep->seconds = ibf_now() - t0;
	}
	if (kind->layer_tree)
		eng_log(o, IBF_LOG_INFO,
			"%s: %d layers, %llu pairs in layers >= 1: %llu in window, %llu "
			"fallback (%llu longer than the window), longest %u hops",
			kind->name, c.layers, (unsigned long long)t.ptot,
			(unsigned long long)t.pnon, (unsigned long long)t.pfb,
			(unsigned long long)t.plong, t.maxlen);
	if (t.unreach)
		rc = unreachable_error(&c, &t, err);
out:
	pool_free(&pool);
	eng_ctx_free(&c);
	ibf_fabric_free(lean);
	return rc;
}
