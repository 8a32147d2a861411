/* Stable reroutes: after a change in the fabric, keep the forwarding-table
 * column of every destination LID whose previous paths still work and are
 * still short enough, so only the destinations the change affects are
 * routed again (fewer LFT blocks to send, less disruption, faster sweeps).
 *
 * A column is one destination LID across every switch; it forms an in-tree
 * towards the LID's port.  Columns are kept or replaced whole: mixing the
 * entries of two different in-trees towards one LID could make a loop.
 * A previous column is kept when, on the new fabric:
 *  - the LID still belongs to the same port (node GUID, port number);
 *  - every switch of the new fabric was in the old one (by GUID) and
 *    following the old entries over the new fabric's cables delivers to
 *    the LID's port, without a loop;
 *  - the path of LMC layer 0 is a shortest path and the path of a layer
 *    >= 1 stays inside the engine's window (max_len, relative to the new
 *    distances and typical diameter), as a fresh run would require; only
 *    layered has such a window, the other engines' layers are all held to
 *    shortest paths (ibf_route_stable). */
#include "ibf_fattree.h"
#include "ibf_routing.h"
#include "ibf_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_UNKNOWN = 0, ST_OK = 1, ST_BAD = 2, ST_ONSTACK = 3, ST_NEW = 4 };

/* ibf_routes.moved: a column off H (marked), and one that is off H and
 * already moved at a gain of the repair under way (onto the fresh run or
 * onto H's column in part): at a later gain such a column is taken whole
 * from H when that works, else kept when it still fits (step 1), and
 * moves again only when it no longer fits, so a repair in many steps
 * moves a column at most twice (off its fault-time column, back to H)
 * unless a cable's return makes its path no longer a shortest one. */
enum { MOVED_MARK = 1, MOVED_REPAIR = 2 };

struct stab {
	const struct ibf_fabric *f, *fo;
	const struct ibf_routes *old;
	int32_t *oldsw; /* [f->nsw] old switch index, -1 when new */
	struct ibf_lidmap m, mo;
	uint32_t diam_ref;
	/* per column */
	uint8_t *state;		/* [nsw] */
	uint32_t *len;		/* [nsw] hops to the destination */
	uint32_t *stack;	/* [nsw + 1] */
	uint32_t *dist, *queue; /* [nsw] BFS from the destination switch */
	uint8_t *graft;		/* [nsw] port of a new switch into the kept tree */
	uint32_t dist_of;	/* destination switch dist[] holds, UINT32_MAX none */
};

/* The healthy tables H (ibf_routes.healthy): a copy of the tables of the
 * last sweep that ended with no mark and of their fabric. */
struct ibf_healthy {
	unsigned refs;
	struct ibf_fabric *f;
	struct ibf_routes r; /* lft only */
};

void ibf_healthy_release(struct ibf_healthy *h)
{
	if (!h || --h->refs)
		return;
	ibf_routes_free(&h->r);
	ibf_fabric_free(h->f);
	free(h);
}

void ibf_healthy_get(const struct ibf_healthy *h, const struct ibf_fabric **f,
		     const struct ibf_routes **r)
{
	*f = h ? h->f : NULL;
	*r = h ? &h->r : NULL;
}

static struct ibf_healthy *healthy_ref(struct ibf_healthy *h)
{
	if (h)
		h->refs++;
	return h;
}

/* A new H: copies of r (its tables only) and f. */
static struct ibf_healthy *healthy_copy(const struct ibf_fabric *f, const struct ibf_routes *r,
					struct ibf_error *err)
{
	struct ibf_healthy *h = calloc(1, sizeof(*h));
	if (!h) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	h->refs = 1;
	if (ibf_routes_init(&h->r, r->nsw, r->max_lid, 0, err) ||
	    !(h->f = ibf_fabric_clone(f, err))) {
		ibf_routes_free(&h->r);
		free(h);
		return NULL;
	}
	memcpy(h->r.lft, r->lft, (size_t)r->nsw * r->stride);
	h->r.lmc = r->lmc;
	h->r.provisional = r->provisional;
	return h;
}

/* oldsw[s]: the index in fo of switch s of f (same node GUID), -1 when fo
 * has no such switch or its index is not below lim. */
static int switch_map(const struct ibf_fabric *f, const struct ibf_fabric *fo, uint32_t lim,
		      int32_t *oldsw, struct ibf_error *err)
{
	struct ibf_umap um = { 0 };
	for (uint32_t s = 0; s < fo->nsw; s++)
		if (ibf_umap_put(&um, fo->nodes[fo->switches[s]].guid, (int32_t)s, NULL) < 0) {
			ibf_umap_free(&um);
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		}
	for (uint32_t s = 0; s < f->nsw; s++) {
		int32_t o = ibf_umap_get(&um, f->nodes[f->switches[s]].guid);
		oldsw[s] = o >= 0 && (uint32_t)o < lim ? o : -1;
	}
	ibf_umap_free(&um);
	return 0;
}

/* Old switch index of every new switch, by node GUID. */
static int map_switches(struct stab *st, struct ibf_error *err)
{
	return switch_map(st->f, st->fo, st->old->nsw, st->oldsw, err);
}

/* Typical diameter of the new fabric (the engines' window reference). */
static int typical_diameter(struct stab *st, struct ibf_error *err)
{
	const struct ibf_fabric *f = st->f;
	uint64_t *hist = calloc((size_t)f->nsw + 1, sizeof(*hist));
	if (!hist)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint32_t maxd = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		ibf_bfs(f, s, st->dist, st->queue);
		for (uint32_t t = 0; t < f->nsw; t++)
			if (st->dist[t] != IBF_DIST_INF && st->dist[t] <= f->nsw) {
				hist[st->dist[t]]++;
				if (st->dist[t] > maxd)
					maxd = st->dist[t];
			}
	}
	st->diam_ref = ibf_typical_diameter(hist, maxd);
	free(hist);
	return 0;
}

/* Next switch from x over new port p, or -1 when p does not face a switch. */
static int64_t next_switch(const struct ibf_fabric *f, uint32_t x, uint8_t p)
{
	const struct ibf_node *n = &f->nodes[f->switches[x]];
	if (p < 1 || p > n->nports)
		return -1;
	const struct ibf_port *pp = ibf_port(f, (int)f->switches[x], p);
	if (pp->peer_node == IBF_NO_NODE || f->nodes[pp->peer_node].type != IBF_NODE_SWITCH)
		return -1;
	return f->nodes[pp->peer_node].sw;
}

/* Walk the old column of lid from every switch of the new fabric over the
 * new cables.  t = the destination's switch, tport its delivering port (0:
 * t itself).  Fills state[] (OK with len[], BAD, or NEW for a switch the
 * old fabric did not have; a walk into a NEW switch is BAD). */
static void walk_column(struct stab *st, uint32_t lid, uint32_t t, uint8_t tport)
{
	const struct ibf_fabric *f = st->f;
	const uint32_t S = f->nsw;
	memset(st->state, ST_UNKNOWN, S);
	if (st->oldsw[t] < 0) { /* the destination's switch is new: it delivers */
		st->state[t] = ST_OK;
		st->len[t] = 0;
		st->graft[t] = tport;
	}
	for (uint32_t s0 = 0; s0 < S; s0++) {
		if (st->state[s0] != ST_UNKNOWN)
			continue;
		uint32_t depth = 0, x = s0;
		int result;
		uint32_t tail_len = 0;
		for (;;) {
			if (st->state[x] == ST_OK) {
				result = ST_OK;
				tail_len = st->len[x];
				break;
			}
			if (st->state[x] != ST_UNKNOWN) {
				result = ST_BAD; /* known bad, a loop, or a new switch */
				break;
			}
			int32_t xo = st->oldsw[x];
			if (xo < 0) {
				st->state[x] = ST_NEW;
				result = ST_BAD;
				break;
			}
			uint8_t p = ibf_lft(st->old, (uint32_t)xo)[lid];
			st->stack[depth++] = x;
			st->state[x] = ST_ONSTACK;
			if (x == t) {
				result = p == tport ? ST_OK : ST_BAD;
				tail_len = 0;
				if (result == ST_OK) {
					/* x itself is the end: length 0 */
					st->state[x] = ST_OK;
					st->len[x] = 0;
					depth--;
				}
				break;
			}
			int64_t y = next_switch(f, x, p);
			if (y < 0) {
				result = ST_BAD;
				break;
			}
			x = (uint32_t)y;
		}
		/* unwind: the switches on the stack get the result */
		while (depth) {
			uint32_t v = st->stack[--depth];
			if (result == ST_OK) {
				st->state[v] = ST_OK;
				st->len[v] = ++tail_len;
			} else {
				st->state[v] = ST_BAD;
			}
		}
	}
}

/* After walk_column, with dist[] from the destination switch: does the
 * column fit the new fabric?  Every old switch must deliver (OK) with a
 * shortest path in layer 0 and a path inside max_len in the others; a
 * switch new to the fabric is grafted onto the kept in-tree: it points to
 * the neighbour in the tree that gives it the shortest path that fits
 * (ties: the lowest port), graft[s] = that port; with pref (fresh tables
 * of this fabric), to the port pref gives it for lid when that neighbour
 * is in the tree and the path fits (the fresh run's entry where it works).
 * New switches only point at switches already in the tree, so no loop can
 * form. */
static int column_fits(struct stab *st, uint32_t layer, const struct ibf_win_bound *maxb,
		       uint8_t *graft, const struct ibf_routes *pref, uint32_t lid)
{
	const struct ibf_fabric *f = st->f;
	const uint32_t S = f->nsw;
	uint32_t nnew = 0;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t d = st->dist[s];
		if (d == IBF_DIST_INF)
			return 0;
		if (st->state[s] == ST_NEW) {
			nnew++;
			continue;
		}
		if (st->state[s] != ST_OK)
			return 0;
		if (layer == 0 ? st->len[s] != d
			       : st->len[s] > (uint32_t)ibf_win_eval(maxb, d, st->diam_ref))
			return 0;
	}
	/* with pref, a pass places only the switches whose preferred
	 * neighbour is in the tree; when it places none, one pass by the
	 * shortest path */
	int by_pref = pref != NULL;
	while (nnew) {
		uint32_t placed = 0;
		for (uint32_t s = 0; s < S; s++) {
			if (st->state[s] != ST_NEW)
				continue;
			uint32_t d = st->dist[s], best = UINT32_MAX;
			uint32_t hi =
				layer == 0 ? d : (uint32_t)ibf_win_eval(maxb, d, st->diam_ref);
			uint8_t port = 0;
			for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
				uint32_t y = f->adj[a].nbr;
				if (st->state[y] != ST_OK)
					continue;
				uint32_t l = st->len[y] + 1;
				if (l > hi || (layer == 0 && l != d))
					continue;
				if (by_pref) {
					if (f->adj[a].lport == ibf_lft(pref, s)[lid]) {
						best = l;
						port = f->adj[a].lport;
						break;
					}
					continue;
				}
				if (l < best || (l == best && f->adj[a].lport < port)) {
					best = l;
					port = f->adj[a].lport;
				}
			}
			if (best == UINT32_MAX)
				continue;
			st->state[s] = ST_OK;
			st->len[s] = best;
			graft[s] = port;
			placed++;
			nnew--;
		}
		if (!placed && !by_pref)
			return 0;
		by_pref = pref != NULL && placed;
	}
	return 1;
}

static int stab_init(struct stab *st, const struct ibf_fabric *f, const struct ibf_fabric *fo,
		     const struct ibf_routes *old, struct ibf_error *err)
{
	memset(st, 0, sizeof(*st));
	st->f = f;
	st->fo = fo;
	st->old = old;
	size_t S = f->nsw ? f->nsw : 1;
	st->oldsw = malloc(S * sizeof(*st->oldsw));
	st->state = malloc(S);
	st->len = malloc(S * sizeof(*st->len));
	st->stack = malloc((S + 1) * sizeof(*st->stack));
	st->dist = malloc(S * sizeof(*st->dist));
	st->queue = malloc(S * sizeof(*st->queue));
	st->graft = malloc(S);
	if (!st->oldsw || !st->state || !st->len || !st->stack || !st->dist || !st->queue ||
	    !st->graft)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	int rc = ibf_lidmap_build(f, &st->m, err);
	if (!rc)
		rc = ibf_lidmap_build(fo, &st->mo, err);
	if (!rc)
		rc = map_switches(st, err);
	return rc;
}

static void stab_free(struct stab *st)
{
	free(st->oldsw);
	free(st->state);
	free(st->len);
	free(st->stack);
	free(st->dist);
	free(st->queue);
	free(st->graft);
	ibf_lidmap_free(&st->m);
	ibf_lidmap_free(&st->mo);
}

/* stab_init, then the typical diameter of the new fabric. */
static int stab_open(struct stab *st, const struct ibf_fabric *f, const struct ibf_fabric *fo,
		     const struct ibf_routes *old, struct ibf_error *err)
{
	int rc = stab_init(st, f, fo, old, err);
	return rc ? rc : typical_diameter(st, err);
}

static int stab_keep(struct stab *st, const struct ibf_route_opts *o, uint8_t *keep,
		     struct ibf_error *err);
static int stab_merge(struct stab *st, struct ibf_routes *r, const struct ibf_route_opts *o,
		      const uint8_t *keep, const struct ibf_routes *pref,
		      struct ibf_stable_report *rep, struct ibf_error *err);

/* Destination switch, delivering port and LMC layer of lid in the new
 * fabric; 0 when lid is not a routable destination there. */
static int dest_of(const struct stab *st, uint32_t lid, uint32_t *t, uint8_t *tport,
		   uint32_t *layer)
{
	const struct ibf_fabric *f = st->f;
	if (lid > st->m.max_lid || st->m.node[lid] < 0)
		return 0;
	int n = st->m.node[lid], p = st->m.port[lid];
	const struct ibf_port *pp = ibf_port(f, n, p);
	*layer = lid - pp->lid;
	if (f->nodes[n].type == IBF_NODE_SWITCH) {
		*t = (uint32_t)f->nodes[n].sw;
		*tport = 0;
		return 1;
	}
	int swp = 0;
	int sn = ibf_port_switch(f, n, p, &swp);
	if (sn < 0)
		return 0;
	*t = (uint32_t)f->nodes[sn].sw;
	*tport = (uint8_t)swp;
	return 1;
}

/* The same LID on the same port (node GUID, port) in the old fabric? */
static int same_owner(const struct stab *st, uint32_t lid)
{
	if (lid > st->mo.max_lid || st->mo.node[lid] < 0 || lid > st->old->max_lid)
		return 0;
	const struct ibf_node *a = &st->f->nodes[st->m.node[lid]];
	const struct ibf_node *b = &st->fo->nodes[st->mo.node[lid]];
	return a->guid == b->guid && a->type == b->type && st->m.port[lid] == st->mo.port[lid];
}

int ibf_stable_keep(const struct ibf_fabric *f, const struct ibf_fabric *fo,
		    const struct ibf_routes *old, const struct ibf_route_opts *o, uint8_t *keep,
		    struct ibf_error *err)
{
	if (!f || !fo || !old || !o || !keep)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "stable reroute: missing argument");
	if (!f->finalized || !fo->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "stable reroute: fabric not finalized");
	struct stab st;
	int rc = stab_open(&st, f, fo, old, err);
	if (!rc)
		rc = stab_keep(&st, o, keep, err);
	stab_free(&st);
	return rc;
}

/* keep[] for every LID of st's new fabric (stab_open done). */
static int stab_keep(struct stab *st, const struct ibf_route_opts *o, uint8_t *keep,
		     struct ibf_error *err)
{
	const struct ibf_fabric *f = st->f;
	uint32_t max_lid = ibf_max_lid(f);
	memset(keep, 0, (size_t)max_lid + 1);
	/* LIDs grouped by destination switch: one BFS per switch */
	uint32_t *order = malloc(((size_t)max_lid + 1) * sizeof(*order));
	uint32_t *cnt = calloc((size_t)f->nsw + 1, sizeof(*cnt));
	if (!order || !cnt) {
		free(order);
		free(cnt);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t lid = 1; lid <= max_lid; lid++) {
		uint32_t t, layer;
		uint8_t tp;
		if (dest_of(st, lid, &t, &tp, &layer) && same_owner(st, lid))
			cnt[t + 1]++;
	}
	for (uint32_t s = 0; s < f->nsw; s++)
		cnt[s + 1] += cnt[s];
	uint32_t *pos = malloc(((size_t)f->nsw + 1) * sizeof(*pos));
	if (!pos) {
		free(order);
		free(cnt);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	memcpy(pos, cnt, ((size_t)f->nsw + 1) * sizeof(*pos));
	for (uint32_t lid = 1; lid <= max_lid; lid++) {
		uint32_t t, layer;
		uint8_t tp;
		if (dest_of(st, lid, &t, &tp, &layer) && same_owner(st, lid))
			order[pos[t]++] = lid;
	}
	for (uint32_t t = 0; t < f->nsw; t++) {
		if (cnt[t] == cnt[t + 1])
			continue;
		ibf_bfs(f, t, st->dist, st->queue);
		for (uint32_t i = cnt[t]; i < cnt[t + 1]; i++) {
			uint32_t lid = order[i], tt, layer;
			uint8_t tp;
			if (!dest_of(st, lid, &tt, &tp, &layer))
				continue; /* cannot happen: the lid was sorted by it */
			walk_column(st, lid, t, tp);
			keep[lid] = (uint8_t)column_fits(st, layer, &o->max_len, st->graft, NULL, 0);
		}
	}
	free(order);
	free(cnt);
	free(pos);
	return 0;
}

int ibf_stable_merge(const struct ibf_fabric *f, struct ibf_routes *r, const struct ibf_fabric *fo,
		     const struct ibf_routes *old, const struct ibf_route_opts *o,
		     const uint8_t *keep, struct ibf_stable_report *rep, struct ibf_error *err)
{
	struct stab st;
	int rc = stab_open(&st, f, fo, old, err);
	if (!rc)
		rc = stab_merge(&st, r, o, keep, NULL, rep, err);
	stab_free(&st);
	return rc;
}

/* Copy the kept columns into r and count the changes (stab_open done).
 * pref: the fresh tables whose entries a new switch takes where they fit
 * (column_fits; r itself after a full run: a column's entries are read
 * before it is overwritten), or NULL. */
static int stab_merge(struct stab *st, struct ibf_routes *r, const struct ibf_route_opts *o,
		      const uint8_t *keep, const struct ibf_routes *pref,
		      struct ibf_stable_report *rep, struct ibf_error *err)
{
	double t0 = ibf_now();
	const struct ibf_fabric *f = st->f;
	const struct ibf_routes *old = st->old;
	st->dist_of = UINT32_MAX;
	uint32_t max_lid = ibf_max_lid(f);
	if (r->nsw != f->nsw || r->max_lid < max_lid)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "stable reroute: tables do not match the fabric");
	struct ibf_stable_report R;
	memset(&R, 0, sizeof(R));
	for (uint32_t lid = 1; lid <= max_lid; lid++) {
		uint32_t t, layer;
		uint8_t tp;
		if (!dest_of(st, lid, &t, &tp, &layer))
			continue;
		R.lids++;
		int same = same_owner(st, lid);
		if (keep[lid] && same) {
			if (st->dist_of != t) {
				ibf_bfs(f, t, st->dist, st->queue);
				st->dist_of = t;
			}
			walk_column(st, lid, t, tp);
			int fits = column_fits(st, layer, &o->max_len, st->graft, pref, lid);
			if (!fits && pref) { /* fits without pref (stab_keep said so) */
				walk_column(st, lid, t, tp);
				fits = column_fits(st, layer, &o->max_len, st->graft, NULL, 0);
			}
			if (!fits)
				return ibf_error_set(
					err, IBF_EINVAL, NULL, 0,
					"stable reroute: LID %u was kept but does not fit", lid);
			R.lids_kept++;
			for (uint32_t s = 0; s < f->nsw; s++) {
				ibf_lft(r, s)[lid] =
					st->oldsw[s] >= 0
						? ibf_lft(old, (uint32_t)st->oldsw[s])[lid]
						: st->graft[s];
				if (r->hops)
					r->hops[(size_t)s * r->stride + lid] =
						(uint8_t)(st->len[s] > 254 ? 254 : st->len[s]);
			}
		}
		if (!same) {
			R.entries_new += f->nsw;
			continue;
		}
		for (uint32_t s = 0; s < f->nsw; s++) {
			if (st->oldsw[s] < 0) {
				R.entries_new++;
				continue;
			}
			R.entries++;
			R.entries_changed +=
				ibf_lft(r, s)[lid] != ibf_lft(old, (uint32_t)st->oldsw[s])[lid];
		}
	}
	R.seconds = ibf_now() - t0;
	if (rep)
		*rep = R;
	return 0;
}

/* What f gained over fo (oldsw: switch_map): gp[s * 256 + p] = 1 (gp may
 * be NULL) when port p of switch s is a switch-to-switch cable fo lacked
 * (one end a switch fo lacked, or fo's port p of that switch led to
 * another port or nowhere).  Counts the switches fo lacked and such
 * cables (each once); with `first`, stops at the first gain.  Returns 1
 * when f gained something. */
static int gained(const struct ibf_fabric *f, const struct ibf_fabric *fo, const int32_t *oldsw,
		  uint8_t *gp, uint32_t *nsw_new, uint32_t *ncables, int first)
{
	*nsw_new = 0;
	*ncables = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		*nsw_new += oldsw[s] < 0;
		if (first && *nsw_new)
			return 1;
		for (uint32_t a = f->adj_off[s]; a < f->adj_off[s + 1]; a++) {
			const struct ibf_adj *e = &f->adj[a];
			int g = oldsw[s] < 0 || oldsw[e->nbr] < 0;
			if (!g) {
				int on = (int)fo->switches[oldsw[s]];
				if (e->lport > fo->nodes[on].nports) {
					g = 1;
				} else {
					const struct ibf_port *op = ibf_port(fo, on, e->lport);
					g = op->peer_node == IBF_NO_NODE ||
					    fo->nodes[op->peer_node].guid !=
						    f->nodes[f->switches[e->nbr]].guid ||
					    op->peer_port != e->rport;
				}
			}
			if (!g)
				continue;
			if (first)
				return 1;
			if (gp)
				gp[(size_t)s * 256 + e->lport] = 1;
			*ncables += s < e->nbr || (s == e->nbr && e->lport < e->rport);
		}
	}
	return *nsw_new || *ncables;
}

/* Did lid's column move at an earlier gain of the repair under way (and
 * is still off H)? */
static int moved_in_repair(const struct ibf_routes *old, uint32_t lid)
{
	return old->moved && lid <= old->max_lid && old->moved[lid] == MOVED_REPAIR;
}

/* Restore: of the columns keep[] would keep, give up those whose column in
 * the fresh tables r sends traffic from a switch that was there before
 * over a cable in gp (one that came back or is new); r then supplies them.
 * Returns how many were given up. */
static int sends_over(const struct stab *st, const struct ibf_routes *r, const uint8_t *gp,
		      uint32_t lid)
{
	for (uint32_t s = 0; s < st->f->nsw; s++)
		if (st->oldsw[s] >= 0 && gp[(size_t)s * 256 + ibf_lft(r, s)[lid]])
			return 1;
	return 0;
}

static uint32_t give_up_onto_gained(const struct stab *st, const struct ibf_routes *r,
				    const uint8_t *gp, uint8_t *keep, uint32_t max_lid)
{
	uint32_t n = 0;
	for (uint32_t lid = 1; lid <= max_lid; lid++)
		if (keep[lid] && sends_over(st, r, gp, lid)) {
			keep[lid] = 0;
			n++;
		}
	return n;
}

/* Restore, continued: of the columns keep[] would keep, give up those
 * the previous tables mark as moved (taken from a partial repair's fresh
 * run, or rerouted around a loss): r then supplies them.  Returns how
 * many. */
static uint32_t give_up_moved(const struct ibf_routes *old, uint8_t *keep, uint32_t max_lid)
{
	uint32_t n = 0;
	if (!old->moved)
		return 0;
	for (uint32_t lid = 1; lid <= max_lid && lid <= old->max_lid; lid++)
		if (keep[lid] && old->moved[lid]) {
			keep[lid] = 0;
			n++;
		}
	return n;
}

/* Is lid's column in r the one the previous tables had (on every switch
 * both fabrics have, and the same port owning the LID)? */
static int same_column(const struct stab *st, const struct ibf_routes *r, uint32_t lid)
{
	if (!same_owner(st, lid))
		return 0;
	for (uint32_t s = 0; s < st->f->nsw; s++)
		if (st->oldsw[s] >= 0 &&
		    ibf_lft(r, s)[lid] != ibf_lft(st->old, (uint32_t)st->oldsw[s])[lid])
			return 0;
	return 1;
}

/* Does port p of switch s of the new fabric lead where it led in H's
 * fabric (sh: the new fabric against H's; the same node GUID and port
 * number at the far end)?  Port 0 is the switch itself. */
static int same_cable(const struct stab *sh, uint32_t s, uint8_t p)
{
	if (p == 0)
		return 1;
	const struct ibf_fabric *f = sh->f, *fh = sh->fo;
	int n = (int)f->switches[s], nh = (int)fh->switches[sh->oldsw[s]];
	if (p > f->nodes[n].nports || p > fh->nodes[nh].nports)
		return 0;
	const struct ibf_port *a = ibf_port(f, n, p), *b = ibf_port(fh, nh, p);
	if (a->peer_node == IBF_NO_NODE || b->peer_node == IBF_NO_NODE)
		return 0;
	return f->nodes[a->peer_node].guid == fh->nodes[b->peer_node].guid &&
	       a->peer_port == b->peer_port;
}

/* Can lid take H's column on the new fabric (sh: the new fabric against
 * H's, with the new fabric's typical diameter)?  The LID names the same
 * port in both fabrics; every switch of the new fabric that H's has
 * has an entry whose port leads where it led in H; following the entries
 * from every such switch delivers without a loop, inside the length rules
 * of a kept column (column_fits), and a switch H's fabric lacks (growth)
 * is grafted onto that in-tree as on a kept column (pref: the fresh run's
 * entry where it fits, sh->graft).  Leaves the hops of each switch in
 * sh->len. */
static int healthy_fits(struct stab *sh, uint32_t lid, const struct ibf_win_bound *maxb,
			const struct ibf_routes *pref)
{
	uint32_t t, layer;
	uint8_t tp;
	if (!dest_of(sh, lid, &t, &tp, &layer) || !same_owner(sh, lid))
		return 0;
	for (uint32_t s = 0; s < sh->f->nsw; s++) {
		if (sh->oldsw[s] < 0)
			continue;
		uint8_t p = ibf_lft(sh->old, (uint32_t)sh->oldsw[s])[lid];
		if (p == IBF_LFT_NONE || !same_cable(sh, s, p))
			return 0;
	}
	if (sh->dist_of != t) {
		ibf_bfs(sh->f, t, sh->dist, sh->queue);
		sh->dist_of = t;
	}
	walk_column(sh, lid, t, tp);
	return column_fits(sh, layer, maxb, sh->graft, pref, lid);
}

/* Can lid take H's column in part (sh as for healthy_fits, pref the
 * fresh tables)?  H's entries are followed over the new fabric's cables
 * from every switch; the switches from which they deliver keep them (and
 * must fit the length rules of a kept column, column_fits); the others
 * (H's path crosses a part still missing, or the switch is new to H) are
 * grafted onto that in-tree as a new switch is onto a kept column, so no
 * loop can form.  mixed[s] = 1 for a grafted switch (its entry in
 * sh->graft).  The destination's own switch must deliver by H's entry. */
static int healthy_part_fits(struct stab *sh, uint32_t lid, const struct ibf_win_bound *maxb,
			     const struct ibf_routes *pref, uint8_t *mixed)
{
	uint32_t t, layer;
	uint8_t tp;
	if (!dest_of(sh, lid, &t, &tp, &layer) || !same_owner(sh, lid) || sh->oldsw[t] < 0)
		return 0;
	if (sh->dist_of != t) {
		ibf_bfs(sh->f, t, sh->dist, sh->queue);
		sh->dist_of = t;
	}
	walk_column(sh, lid, t, tp);
	if (sh->state[t] != ST_OK)
		return 0;
	for (uint32_t s = 0; s < sh->f->nsw; s++) {
		mixed[s] = sh->state[s] != ST_OK;
		if (mixed[s])
			sh->state[s] = ST_NEW;
	}
	return column_fits(sh, layer, maxb, sh->graft, pref, lid);
}

/* Does the fabric f lack a switch or a switch cable of H's fabric (hs:
 * st->f against H's, same switch indices as f; f: the fabric itself,
 * with every cable)?  By identity: every switch of H's fabric (node GUID)
 * must be in f, and every switch-to-switch cable of H's must be in f
 * with the same node GUID and port number on both ends; a part H never
 * had does not make up for one that is missing.  1 when f lacks
 * something, 0 when not, < 0 when out of memory. */
static int short_of_healthy(const struct stab *hs, const struct ibf_fabric *f)
{
	const struct ibf_fabric *fh = hs->fo;
	int32_t *in_f = malloc((size_t)(fh->nsw ? fh->nsw : 1) * sizeof(*in_f));
	if (!in_f)
		return -1;
	for (uint32_t h = 0; h < fh->nsw; h++)
		in_f[h] = -1;
	for (uint32_t s = 0; s < hs->f->nsw; s++)
		if (hs->oldsw[s] >= 0)
			in_f[hs->oldsw[s]] = (int32_t)s;
	int lacks = 0;
	for (uint32_t h = 0; h < fh->nsw && !lacks; h++) {
		if (in_f[h] < 0) {
			lacks = 1;
			break;
		}
		int n = (int)f->switches[in_f[h]];
		for (uint32_t a = fh->adj_off[h]; a < fh->adj_off[h + 1] && !lacks; a++) {
			const struct ibf_adj *e = &fh->adj[a];
			if (e->lport > f->nodes[n].nports) {
				lacks = 1;
				break;
			}
			const struct ibf_port *pp = ibf_port(f, n, e->lport);
			lacks = pp->peer_node == IBF_NO_NODE ||
				f->nodes[pp->peer_node].guid != fh->nodes[fh->switches[e->nbr]].guid ||
				pp->peer_port != e->rport;
		}
	}
	free(in_f);
	return lacks;
}

/* Is lid's column in r the fresh run's (fresh: its tables, same layout
 * as r) on every switch? */
static int fresh_column(const struct ibf_routes *r, const uint8_t *fresh, uint32_t lid)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		if (ibf_lft(r, s)[lid] != fresh[(size_t)s * r->stride + lid])
			return 0;
	return 1;
}

/* r->moved after a stable reroute.  H: the healthy tables the previous
 * tables carry (sh: the new fabric against them), or the previous tables
 * themselves when they carry none (st).  Nothing is marked and r becomes
 * H when the fabric has every switch and switch cable of H's (by
 * identity, short_of_healthy) and every column is H's (on the switches
 * both have) or, after a full run (fresh: its tables, else NULL), the
 * fresh run's: a repair complete, or growth (the columns the fresh run
 * sends over a part H never had), or both.  Else, with sh, MOVED_MARK for a
 * column that differs from H's (MOVED_REPAIR when it was so marked or,
 * after a full run, moved on this sweep); without, 1 for a column that differs from the
 * previous one, the previous mark for one that does not.  r->healthy: H
 * while a mark remains or the fabric f lacks a part H's had (a loss that
 * moved no column, e.g. a leaf with its hosts: when it comes back it is
 * H's again, not a switch H never had); a copy of the previous tables and
 * fabric when they were H; else NULL (r is H). */
static int mark_moved(const struct stab *st, const struct stab *sh, const struct ibf_fabric *freal,
		      struct ibf_routes *r, const uint8_t *fresh, struct ibf_error *err)
{
	const struct ibf_fabric *f = st->f, *fo = st->fo;
	const struct stab *hs = sh ? sh : st;
	uint32_t max_lid = ibf_max_lid(f);
	free(r->moved);
	r->moved = NULL;
	ibf_healthy_release(r->healthy);
	r->healthy = NULL;
	int lacks = short_of_healthy(hs, freal);
	if (lacks < 0)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint8_t *m = calloc((size_t)max_lid + 1, 1);
	if (!m)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	int any = 0, off_both = 0;
	for (uint32_t lid = 1; lid <= max_lid; lid++) {
		uint32_t t, layer;
		uint8_t tp;
		if (!dest_of(st, lid, &t, &tp, &layer))
			continue;
		int is_h = same_column(hs, r, lid);
		int was = st->old->moved && lid <= st->old->max_lid ? st->old->moved[lid] : 0;
		if (sh)
			/* MOVED_REPAIR: off H and moved at a gain of this
			 * repair (or so before) */
			m[lid] = is_h ? 0
				 : was == MOVED_REPAIR || (fresh && !same_column(st, r, lid))
					 ? MOVED_REPAIR
					 : MOVED_MARK;
		else if (!is_h)
			m[lid] = MOVED_MARK;
		else
			m[lid] = was;
		any |= m[lid];
		off_both |= !is_h && !(fresh && fresh_column(r, fresh, lid));
	}
	if (!lacks && !off_both) {
		free(m);
		return 0;
	}
	if (!any) {
		free(m);
		m = NULL;
	}
	r->moved = m;
	if (st->old->healthy)
		r->healthy = healthy_ref(st->old->healthy);
	else if (!st->old->moved && !(r->healthy = healthy_copy(fo, st->old, err)))
		return err ? err->code : IBF_ENOMEM;
	return 0;
}

int ibf_stable_set_healthy(struct ibf_routes *old, const struct ibf_fabric *fo,
			   const struct ibf_routes *h, const struct ibf_fabric *fh,
			   uint32_t *nmarked, struct ibf_error *err)
{
	if (nmarked)
		*nmarked = 0;
	if (!old || !fo || !h || !fh)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "healthy tables: missing argument");
	int rc = ibf_routes_fit(fo, old, err);
	if (!rc)
		rc = ibf_routes_fit(fh, h, err);
	if (rc)
		return rc;
	struct stab sh;
	rc = stab_init(&sh, fo, fh, h, err);
	uint32_t max_lid = ibf_max_lid(fo), n = 0;
	uint8_t *m = NULL;
	if (!rc && old->max_lid < max_lid)
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
				   "healthy tables: the tables do not cover the fabric's LIDs");
	if (!rc && !(m = calloc((size_t)max_lid + 1, 1)))
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t lid = 1; !rc && lid <= max_lid; lid++) {
		uint32_t t, layer;
		uint8_t tp;
		if (dest_of(&sh, lid, &t, &tp, &layer) && !same_column(&sh, old, lid)) {
			m[lid] = 1;
			n++;
		}
	}
	/* H also when nothing differs but fo lacks a part of fh (a loss that
	 * moved no column), as the sweeps keep it */
	int lacks = rc ? 0 : short_of_healthy(&sh, fo);
	if (lacks < 0)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	int keep_h = !rc && (n || lacks);
	struct ibf_healthy *hc = NULL;
	if (keep_h && !(hc = healthy_copy(fh, h, err)))
		rc = err ? err->code : IBF_ENOMEM;
	if (!rc && keep_h) {
		free(old->moved);
		old->moved = n ? m : NULL;
		if (n)
			m = NULL;
		ibf_healthy_release(old->healthy);
		old->healthy = hc;
	}
	free(m);
	stab_free(&sh);
	if (!rc && nmarked)
		*nmarked = n;
	return rc;
}

const char *ibf_stable_report_format(const struct ibf_stable_report *sr, const char *entries,
				     char *buf, size_t len)
{
	if (sr->provisional) {
		snprintf(
			buf, len,
			"the healthy tables were provisional (made by a run that did not start from "
			"kept tables, the fabric maybe damaged then) and the fabric now has every part "
			"of theirs and parts they lacked; routing every destination again, the "
			"result is the new healthy tables");
		return buf;
	}
	if (sr->fresh) {
		snprintf(buf, len,
			 "a switch or switch cable came back (or is new); routing every destination "
			 "again");
		return buf;
	}
	char back[224] = "", rate[96] = "";
	if (sr->cables_rate_back)
		snprintf(rate, sizeof(rate),
			 ", %u of them back at their rate (routed as lost before)",
			 sr->cables_rate_back);
	if (sr->full_run)
		snprintf(back, sizeof(back),
			 " (%u of them moved onto what came back or is new: %u switches, %u switch "
			 "cables%s)",
			 sr->lids_restored, sr->switches_gained, sr->cables_gained, rate);
	char healthy[80] = "";
	if (sr->lids_healthy)
		snprintf(healthy, sizeof(healthy), ", took %u back from the healthy tables",
			 sr->lids_healthy);
	char part[120] = "";
	if (sr->lids_partial)
		snprintf(part, sizeof(part),
			 "; %u of the columns taken back in part (grafted where a part is still "
			 "missing)",
			 sr->lids_partial);
	snprintf(buf, len,
		 "kept %u of %u destination LIDs%s, routed %u again%s; %llu of %llu %s changed "
		 "(%.2f%%), %llu new (switches or ports that were not there)%s",
		 sr->lids_kept, sr->lids, healthy, sr->lids - sr->lids_kept - sr->lids_healthy,
		 back, (unsigned long long)sr->entries_changed, (unsigned long long)sr->entries,
		 entries,
		 sr->entries ? 100.0 * (double)sr->entries_changed / (double)sr->entries : 0.0,
		 (unsigned long long)sr->entries_new, part);
	return buf;
}

/* Has the fabric outgrown the healthy tables H that old carries (st: the
 * new fabric as routed, against old's fabric; gfo: old's fabric as
 * routed; leanh: H's fabric as routed when old carries a copy of H, or
 * NULL; freal: the new fabric)?  *out = 1 when the fabric has every
 * switch and switch cable of H's fabric (short_of_healthy) and a part H's
 * fabric lacks or left out (a switch, a switch cable, or a cable back at
 * its rate).  Marks without H: 0. */
static int outgrown(const struct stab *st, const struct ibf_routes *old,
		    const struct ibf_fabric *gfo, const struct ibf_fabric *leanh,
		    const struct ibf_fabric *freal, int *out, struct ibf_error *err)
{
	uint32_t a, b;
	*out = 0;
	if (!old->healthy) {
		if (old->moved)
			return 0;
		int lacks = short_of_healthy(st, freal);
		if (lacks < 0)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		*out = !lacks && gained(st->f, gfo, st->oldsw, NULL, &a, &b, 1);
		return 0;
	}
	struct stab sh;
	int rc = stab_init(&sh, st->f, old->healthy->f, &old->healthy->r, err);
	if (!rc) {
		int lacks = short_of_healthy(&sh, freal);
		if (lacks < 0)
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		else
			*out = !lacks && gained(st->f, leanh ? leanh : old->healthy->f, sh.oldsw,
						NULL, &a, &b, 1);
	}
	stab_free(&sh);
	return rc;
}

int ibf_route_stable(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
		     const struct ibf_fabric *fo, const struct ibf_routes *old,
		     struct ibf_routes *r, struct ibf_route_report *rrep,
		     struct ibf_stable_report *srep, struct ibf_error *err)
{
	return ibf_route_stable_mode(f, engine, o, fo, old, IBF_STABLE_MODE_RESTORE, r, rrep,
				     srep, err);
}

int ibf_route_stable_mode(const struct ibf_fabric *f, const char *engine,
			  const struct ibf_route_opts *o, const struct ibf_fabric *fo,
			  const struct ibf_routes *old, int mode, struct ibf_routes *r,
			  struct ibf_route_report *rrep, struct ibf_stable_report *srep,
			  struct ibf_error *err)
{
	double t0 = ibf_now();
	if (mode != IBF_STABLE_MODE_RESTORE && mode != IBF_STABLE_MODE_KEEP &&
	    mode != IBF_STABLE_MODE_FRESH)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "stable reroute: unknown mode %d",
				     mode);
	uint32_t max_lid = ibf_max_lid(f);
	uint8_t *keep = calloc((size_t)max_lid + 1, 1);
	if (!keep)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* only layered's layers >= 1 take paths longer than the shortest; a
	 * column of dmodk, hratio or minimal is kept only when every layer's
	 * path is still a shortest one, as a fresh run makes it (its detours
	 * around a failed cable, e.g. a spine's down-up-down path to a leaf
	 * that lost its cable to it, go when the cable is back) */
	const struct ibf_engine *e = ibf_engine_find(engine);
	struct ibf_route_opts ko = *o;
	if (e && e->fn != ibf_route_layered) {
		ko.max_len.base = IBF_WIN_DIST;
		ko.max_len.value = 0;
	}
	/* the engines route a copy without the cables far below their rate
	 * (ibf_route_lean): a column through one of them is not kept (it would
	 * go on carrying its share at a fraction of the rate), so the columns
	 * are checked on that copy (same switches, ports and LIDs as f); for
	 * hratio it is made for the whole fabric, so only a fabric that is one
	 * tree has one */
	/* the previous fabric and H's are compared as the engine routed them
	 * too (their lean copies): a cable it left out as far below its rate
	 * that now runs at its rate is a gain like a cable that comes back,
	 * and a part H never had, so it takes its share (without that, a
	 * cable slow in H's fabric that retrains during a repair stayed idle:
	 * the repair went back to H's columns, which avoid it) */
	struct ibf_fabric *lean = NULL, *leanfo = NULL, *leanh = NULL;
	struct ibf_route_opts q;
	ibf_route_opts_quiet(o, &q);
	int lrc = ibf_route_lean(f, engine, o, &lean, err);
	if (!lrc)
		lrc = ibf_route_lean(fo, engine, &q, &leanfo, err);
	if (!lrc && mode != IBF_STABLE_MODE_KEEP && old->healthy)
		lrc = ibf_route_lean(old->healthy->f, engine, &q, &leanh, err);
	if (lrc) {
		ibf_fabric_free(lean);
		ibf_fabric_free(leanfo);
		free(keep);
		return lrc;
	}
	/* one context (LID maps, switch map, typical diameter) for both steps */
	struct stab st;
	uint8_t *gp = NULL;
	uint32_t nsw_new = 0, ncables = 0, restored = 0, rate_back = 0;
	uint8_t *fresh_lft = NULL;
	const struct ibf_fabric *gfo = leanfo ? leanfo : fo; /* gains against it */
	int rc = stab_open(&st, lean ? lean : f, fo, old, err);
	if (!rc && leanfo) {
		/* the cables that count as gained only because they run at
		 * their rate again (for the log) */
		uint32_t a, b, c, d;
		gained(st.f, leanfo, st.oldsw, NULL, &a, &b, 0);
		gained(st.f, fo, st.oldsw, NULL, &c, &d, 0);
		rate_back = b - d;
	}
	/* provisional H (a first run's, the fabric maybe damaged then) that
	 * the fabric has outgrown: a fresh run, the new H */
	int prov = old->healthy ? old->healthy->r.provisional : old->provisional;
	int outgrew = 0;
	if (!rc && prov && mode != IBF_STABLE_MODE_KEEP)
		rc = outgrown(&st, old, gfo, leanh, f, &outgrew, err);
	/* a fresh run instead: the fabric outgrew a provisional H (the
	 * result is the new H), or something came back or is new in mode
	 * FRESH (the result keeps H's mark) */
	int afresh = !rc && outgrew;
	if (!rc && !afresh && mode == IBF_STABLE_MODE_FRESH)
		afresh = gained(st.f, gfo, st.oldsw, NULL, &nsw_new, &ncables, 1);
	if (afresh) {
		stab_free(&st);
		ibf_fabric_free(lean);
		ibf_fabric_free(leanfo);
		ibf_fabric_free(leanh);
		free(keep);
		rc = ibf_route(f, engine, o, r, rrep, err);
		if (!rc && !outgrew)
			r->provisional = prov;
		if (!rc && srep) {
			memset(srep, 0, sizeof(*srep));
			srep->fresh = 1;
			srep->provisional = outgrew;
			srep->full_run = 1;
			srep->seconds = ibf_now() - t0;
		}
		return rc;
	}
	if (!rc)
		rc = stab_keep(&st, &ko, keep, err);
	if (!rc && mode == IBF_STABLE_MODE_RESTORE) {
		gp = calloc((size_t)(f->nsw ? f->nsw : 1) * 256, 1);
		if (!gp)
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		else
			gained(st.f, gfo, st.oldsw, gp, &nsw_new, &ncables, 0);
	}
	/* the healthy tables H the previous ones carry (marks set): the new
	 * fabric against H's; a switch H never had (growth during a repair)
	 * is grafted onto H's columns as onto kept ones */
	struct stab sh;
	int have_sh = 0;
	if (!rc && mode != IBF_STABLE_MODE_KEEP && old->healthy) {
		have_sh = 1;
		rc = stab_init(&sh, st.f, old->healthy->f, &old->healthy->r, err);
		sh.diam_ref = st.diam_ref;
		sh.dist_of = UINT32_MAX;
	}
	uint8_t *useh = NULL, *gph = NULL;
	int routed = 0; /* r holds tables to free on failure */
	int full = !rc && (nsw_new || ncables);
	if (full) {
		/* something came back or is new: the fresh tables of this
		 * fabric, then the previous column of every LID whose fresh
		 * column does not use what came back (whole columns: in-trees
		 * towards the LID, so no mix makes a loop) */
		rc = ibf_route(f, engine, o, r, rrep, err);
		routed = !rc;
		/* the fresh run, to tell whether the merge leaves it whole (a
		 * repair complete: the healthy tables) */
		if (!rc && !(fresh_lft = malloc((size_t)r->nsw * r->stride + 1)))
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		if (!rc)
			memcpy(fresh_lft, r->lft, (size_t)r->nsw * r->stride);
		if (!rc && have_sh) {
			/* a column whose H column works again takes it (unless
			 * the fresh run sends it over a part H's fabric never
			 * had: that part takes its share as on growth); a
			 * marked column whose H column does not work yet keeps
			 * its column unless the fresh run sends it over what
			 * came back: it moves once, back to H, when it can */
			useh = calloc((size_t)max_lid + 1, 1);
			gph = calloc((size_t)(f->nsw ? f->nsw : 1) * 256, 1);
			if (!useh || !gph)
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			uint32_t a, b;
			if (!rc)
				gained(st.f, leanh ? leanh : sh.fo, sh.oldsw, gph, &a, &b, 0);
			/* with every part of H's fabric there (and routed on:
			 * a cable far below its rate, which the engine routes
			 * as lost, may train back), a column whose H column
			 * does not fit (a switch H never had gives shorter
			 * paths) never will: the fresh run's, as the growth
			 * over H gives it */
			int whole = rc ? 0 : !short_of_healthy(&sh, st.f);
			for (uint32_t lid = 1; !rc && lid <= max_lid; lid++) {
				uint32_t t, layer;
				uint8_t tp;
				if (keep[lid] && dest_of(&sh, lid, &t, &tp, &layer) &&
				    !same_owner(&sh, lid)) {
					/* a port H's fabric did not have (growth
					 * during the repair): the fresh run's column,
					 * as a gain of it over H would give */
					keep[lid] = 0;
					continue;
				}
				if (!healthy_fits(&sh, lid, &ko.max_len, r)) {
					if (whole && same_owner(&sh, lid))
						keep[lid] = 0;
					continue;
				}
				if (sends_over(&sh, r, gph, lid)) {
					/* growth: the fresh run's column, as a
					 * gain of that part over H would give */
					restored += keep[lid];
					keep[lid] = 0;
					continue;
				}
				useh[lid] = 1;
				keep[lid] = 0;
				for (uint32_t s = 0; s < f->nsw; s++) {
					uint32_t hl = sh.len[s] > 254 ? 254 : sh.len[s];
					ibf_lft(r, s)[lid] =
						sh.oldsw[s] >= 0
							? ibf_lft(sh.old, (uint32_t)sh.oldsw[s])[lid]
							: sh.graft[s];
					if (r->hops)
						r->hops[(size_t)s * r->stride + lid] = (uint8_t)hl;
				}
			}
			/* given up onto what came back (up[]): counted as
			 * restored unless H's column in part takes it below */
			uint8_t *up = NULL;
			if (!rc && !(up = calloc((size_t)max_lid + 1, 1)))
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			/* a column that moved at an earlier gain of this
			 * repair and still fits stays until H's column
			 * works (MOVED_REPAIR) */
			for (uint32_t lid = 1; !rc && lid <= max_lid; lid++)
				if (keep[lid] && !moved_in_repair(old, lid) &&
				    sends_over(&st, r, gp, lid)) {
					keep[lid] = 0;
					up[lid] = 1;
					restored++;
				}
			/* a column that would move onto the fresh run F while
			 * a part of H's fabric is still missing (F sends it
			 * over what came back, or its column no longer fits)
			 * would move again, back to H, when the part returns;
			 * H's entries where they still deliver and grafts
			 * elsewhere may move fewer entries in all: taken when
			 * they change fewer entries now and at the return
			 * (against the previous column, then against H) than
			 * F does */
			uint8_t *mixed = NULL;
			if (!rc && !(mixed = malloc(f->nsw ? f->nsw : 1)))
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			for (uint32_t lid = 1; !rc && !whole && lid <= max_lid; lid++) {
				if (keep[lid] || useh[lid] || sends_over(&sh, r, gph, lid) ||
				    !healthy_part_fits(&sh, lid, &ko.max_len, r, mixed))
					continue;
				int prev = same_owner(&st, lid);
				uint64_t cost_f = 0, cost_m = 0;
				for (uint32_t s = 0; s < f->nsw; s++) {
					uint8_t fe = ibf_lft(r, s)[lid];
					uint8_t me = mixed[s] ? sh.graft[s]
							      : ibf_lft(sh.old, (uint32_t)sh.oldsw[s])[lid];
					if (prev && st.oldsw[s] >= 0) {
						uint8_t pe = ibf_lft(old, (uint32_t)st.oldsw[s])[lid];
						cost_f += fe != pe;
						cost_m += me != pe;
					}
					if (sh.oldsw[s] >= 0) {
						uint8_t he = ibf_lft(sh.old, (uint32_t)sh.oldsw[s])[lid];
						cost_f += fe != he;
						cost_m += me != he;
					}
				}
				if (cost_m >= cost_f)
					continue;
				useh[lid] = 2;
				restored -= up[lid];
				for (uint32_t s = 0; s < f->nsw; s++) {
					uint32_t hl = sh.len[s] > 254 ? 254 : sh.len[s];
					ibf_lft(r, s)[lid] =
						mixed[s] ? sh.graft[s]
							 : ibf_lft(sh.old, (uint32_t)sh.oldsw[s])[lid];
					if (r->hops)
						r->hops[(size_t)s * r->stride + lid] = (uint8_t)hl;
				}
			}
			free(mixed);
			free(up);
		} else if (!rc) {
			/* H unknown: every marked column moves onto the fresh
			 * run */
			restored = give_up_onto_gained(&st, r, gp, keep, max_lid) +
				   give_up_moved(old, keep, max_lid);
		}
	} else if (!rc) {
		struct ibf_route_opts oo = *o;
		oo.lid_keep = keep;
		oo.nlid_keep = max_lid + 1;
		rc = ibf_route(f, engine, &oo, r, rrep, err);
		routed = !rc;
	}
	struct ibf_stable_report rp;
	memset(&rp, 0, sizeof(rp));
	if (!rc)
		rc = stab_merge(&st, r, &ko, keep, full ? r : NULL, &rp, err);
	/* the columns taken from H: kept when they are the previous ones */
	for (uint32_t lid = 1; !rc && useh && lid <= max_lid; lid++)
		if (useh[lid]) {
			if (same_column(&st, r, lid))
				rp.lids_kept++;
			else
				rp.lids_healthy++;
			if (useh[lid] == 2 && !same_column(&st, r, lid))
				rp.lids_partial++;
		}
	if (!rc && mode != IBF_STABLE_MODE_KEEP)
		rc = mark_moved(&st, have_sh ? &sh : NULL, f, r, fresh_lft, err);
	if (!rc)
		r->provisional = prov;
	free(fresh_lft);
	if (rc && routed)
		ibf_routes_free(r);
	if (have_sh)
		stab_free(&sh);
	stab_free(&st);
	ibf_fabric_free(lean);
	ibf_fabric_free(leanfo);
	ibf_fabric_free(leanh);
	free(gp);
	free(gph);
	free(useh);
	free(keep);
	if (!rc && srep) {
		*srep = rp;
		srep->seconds = ibf_now() - t0;
		srep->lids_restored = restored;
		srep->switches_gained = nsw_new;
		srep->cables_gained = ncables;
		srep->cables_rate_back = full ? rate_back : 0;
		srep->full_run = full;
	}
	return rc;
}
