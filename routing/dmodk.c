/* dmodk: D-mod-K routing for fat trees (Zahavi 2010), with LMC layers.
 *
 * The tree comes from routing/fattree.c: levels, up-port slots per switch
 * (U_l = W_l * p_l slots at level l, cable-major, W_l parents; P_l =
 * W_1 ... W_{l-1}) and a D-mod-K index x per
 * end port (leaf by leaf, phantom slots on short leaves; hosts on switches
 * above the leaves and then the switches themselves get indices after the
 * leaf slots).  For a destination LID with index x in layer j:
 *
 *   up:    a level-l switch takes slot (floor(x / P_l) + off_l(j)) mod n_s,
 *          n_s its slot count (= U_l on a complete tree).  Layer offsets:
 *          off_l(j) are the mixed-radix digits (leaf digit most significant)
 *          of floor(j * G / 2^lmc), G = U_1 ... U_{h-1}.  Rotating a level's
 *          slots by a constant relabels the parents of that level the same
 *          way for every switch, so each layer is D-mod-K on a relabelled
 *          tree (contention-free on its own), and the layers of one
 *          destination leave a leaf by different up-ports / spines.
 *   chain: the destination's switch climbs with the same rule; the switches
 *          it reaches form the destination's chain, and each of them sends
 *          the LID down the cable the chain came up.  A source climbing by
 *          the rule meets the chain at the first common level, which is what
 *          makes shift permutations contention-free (unique down path).
 *   down:  any other switch with a down path to the destination (an
 *          ancestor off the chain) goes down the ancestor children by the
 *          same rule one level lower.
 *
 * Irregular trees.  A slot whose bundle is short spreads its destinations
 * over the cables left to that parent (balance by cable count) while they
 * fit there within the leaf's cut; beyond that (one of 2 cables lost) the
 * lost cable's slot is dealt over all the switch's surviving up-cables like
 * an unusable slot (see bundles()); the chain
 * weights parents by their surviving up-cables; switches below the chain
 * climb to it; a parent of the destination switch off the chain goes down
 * the cable with the fewest chain destinations (hosts on a spine).  A slot
 * whose parent cannot be used at all (no cable, or no up-then-down route to
 * the destination) is replaced by the next usable slot in rotation, so
 * only the destinations of that slot move, and the chain and the sources
 * move the same way.  A switch that cannot reach
 * the destination up-then-down at all (e.g. a spine that lost its only
 * cable to that leaf) follows a shortest path to the switches that can.
 * On a 2-level tree the LIDs of leaf hosts do not deal their moved slots
 * by counters but through tables built before routing, one set per LMC
 * layer, filled by the load of the sources' up-cables over runs of hosts
 * and of the destination's down-cables (leaf_remap); a layer whose worst
 * shift the counters make less busy is routed by them (rm_check).
 * Every choice is either strictly up, strictly down or strictly closer to
 * the up/down region, so the tables are loop-free.  All of it is logged. */
#include "ibf_fattree.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOSW UINT32_MAX

void ibf_dmodk_opts_default(struct ibf_dmodk_opts *o)
{
	memset(o, 0, sizeof(*o));
	ibf_ftree_opts_default(&o->tree);
	o->layer_rule = IBF_DMODK_LAYER_ROTATE;
}

struct dk {
	const struct ibf_fabric *f;
	const struct ibf_ftree *t;
	const struct ibf_route_opts *o;
	const struct ibf_dmodk_opts *d;
	struct ibf_routes *r;
	uint32_t S;
	uint32_t *anc, *reach; /* == rcur: member for the current destination switch */
	uint32_t *chain;       /* == ccur: on the current column's chain */
	uint32_t rcur, ccur;
	uint8_t *chain_port;
	uint32_t *nxt;			 /* next switch of the column, NOSW at the end */
	uint32_t *fdist, *fnext, *queue; /* fallback towards the up/down region */
	uint32_t *bylevel;		 /* switches, highest level first */
	uint64_t *moved_missing;	 /* [S] LIDs moved off a missing slot */
	uint64_t *moved_other;		 /* [S] of those, to another parent */
	uint64_t moved_unusable;	 /* (switch, LID) moved off an unusable parent */
	uint64_t fallback;		 /* (switch, LID) outside the up/down region */
	uint32_t fallback_dests;	 /* destination switches with such entries */
	uint8_t *hopbuf;
	uint32_t *stack;
	uint32_t *pres, *pres_off, *pres_n, *pnom; /* bundles per slot, see bundles() */
	uint8_t *dealt; /* per slot: its bundle is short and over budget, see bundles() */
	uint32_t *wgt;		     /* per slot: weight of its parent, see pick_chain */
	uint32_t *dload;	     /* chain destinations per port of the destination switch */
	uint32_t *doff;		     /* off-chain destinations given to each port */
	uint32_t *dlb;		     /* [dln * 512] dload and doff of each layer, see dl_layer */
	uint32_t dln;		     /* 1, or 2^LMC: each layer counts its own (dl_layer) */
	uint32_t nsp;		     /* hosts on spines with an index per layer (spine_layers) */
	uint64_t *spx;		     /* [(2 nlayers - 1) * nsp] their index in layer j of L */
	uint32_t *below, *below_par; /* == ccur: climbs to the chain, through which parent */
	uint64_t chain_weighted;     /* chain steps moved by parent weights */
	uint32_t nlayers;	     /* 2^(largest LMC of an end port) */
	uint32_t *deal;		     /* [S * nlayers] see deal_counter */
	uint32_t *cdeal, *cstamp;    /* [S * nlayers] see chain_counter */
	uint64_t lbase;		     /* the current LID: end port index, */
	uint32_t lj, lL;	     /* its layer and layer count (layer_parents) */
	uint32_t *rm_slot, *rm_cab;  /* [S * rm_n] each leaf's own chain table, see leaf_remap */
	uint32_t *rm_kslot;	     /* [rm_n] the chain's slot per residue, see leaf_remap */
	uint32_t *rm_roff;	     /* [S * rm_n] a leaf's down cable per moved residue */
	uint32_t rm_n;		     /* room per switch: the longest period */
	uint32_t rm_p;		     /* the current period */
	uint32_t rm_dsw;	     /* the destination switch it was built for */
	int rm_on;		     /* the remap holds for rm_dsw */
	uint32_t rm_nh;		     /* leaf hosts (indices 0 .. rm_nh - 1), 0: no remap */
	uint32_t *rm_x;		     /* [S * rm_nh] a source's up-cable per destination index */
	uint16_t *rm_mv;	     /* [S * rm_nh] its cable position when moved, else RM_NONE */
	uint32_t *rm_tot;	     /* [S * rm_n] moves per cable position over the run */
	uint32_t *rm_pd;	     /* [S] the period of each leaf's table, 0: none */
	uint32_t *hx0, *hx1;	     /* [S] a leaf's host indices hx0 .. hx1 - 1 */
	uint32_t *rm_ksl;	     /* [rm_n] scratch of leaf_remap */
	uint32_t rm_ns;		     /* hosts on spines, after the leaf hosts in the patterns */
	uint16_t *rm_sp;	     /* [S * rm_ns] a leaf's cable position towards each */
	/* LMC layers: the rm_ tables above are the slices of layer rm_lay of
	 * these (rm_layer); layer j's leaf slots are rotated by rm_o */
	uint32_t nrl;		     /* layers with tables: 2^LMC, 1 under the interleave rule */
	int rm_lay;		     /* the current LID's table layer, -1: none (rm_select) */
	uint32_t rm_o;		     /* the leaf offset off_1 of that layer */
	uint32_t rm_offs[128];	     /* off_1 of every layer with tables */
	uint32_t rm_cl;		     /* the layer whose tables are built (remap_all) */
	int rm_nouse;		     /* route with the dealing counters only (rm_check) */
	int own0;		     /* layer 0 avoids no other layer's parent (layers_alt) */
	int quiet;		     /* no log lines (the second routing of layers_alt) */
	uint32_t *lrw;		     /* [2 nlayers] per layer: worst after the repair, and the
				      * (shift, link) at it; UINT32_MAX: not repaired */
	uint8_t *lrch;		     /* [nlayers] per layer: the repair kept chains of moves */
	const uint32_t *lrtgt;	     /* the first routing's lrw while the second one is
				      * repaired (layers_alt), else NULL */
	uint32_t *rmb_slot, *rmb_cab, *rmb_roff, *rmb_x, *rmb_tot;
	uint16_t *rmb_mv, *rmb_sp;
};

static uint64_t layer_index(const struct dk *c, uint64_t x, uint32_t j, uint32_t L, uint32_t *off);
static int spine_layers(struct dk *c);

#define RM_NONE 0xffffu /* rm_mv: not built yet */
#define RM_NOUP 0xfffeu /* rm_mv: built, no up-cable of the source */

static void layer_offsets(const struct ibf_ftree *t, uint32_t j, uint32_t L, uint32_t *off);

/* point the rm_ tables at layer j's slices (j < nrl) */
static void rm_layer(struct dk *c, uint32_t j)
{
	size_t sn = (size_t)c->S * c->rm_n, sh = (size_t)c->S * c->rm_nh;
	size_t ss = (size_t)c->S * c->rm_ns;
	uint32_t off[IBF_FTREE_MAX_LEVELS + 2];
	c->rm_slot = c->rmb_slot + j * sn;
	c->rm_cab = c->rmb_cab + j * sn;
	c->rm_roff = c->rmb_roff + j * sn;
	if (c->rm_nh) {
		c->rm_x = c->rmb_x + j * sh;
		c->rm_mv = c->rmb_mv + j * sh;
		c->rm_tot = c->rmb_tot + j * sn;
		c->rm_sp = c->rmb_sp + j * ss;
	}
	layer_offsets(c->t, j, c->nrl, off);
	c->rm_o = c->t->levels == 2 ? off[1] : 0;
	c->rm_cl = j;
}

/* the table layer of the current LID (lbase, lj, lL): layer 0 for the
 * first LID of any port (no rotation), layer j for LID j of a port with
 * nrl LIDs; -1 (no table: the dealing counters) for the other layers of a
 * port with fewer LIDs and for every layer under the interleave rule */
static void rm_select(struct dk *c)
{
	int j = -1;
	if (c->rm_nouse)
		j = -1;
	else if (c->lL == 1)
		j = 0;
	else if (c->d->layer_rule == IBF_DMODK_LAYER_ROTATE && c->lL == c->nrl)
		j = (int)c->lj;
	c->rm_lay = j;
	if (j >= 0 && c->rmb_slot)
		rm_layer(c, (uint32_t)j);
}

static void log_msg(const struct dk *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void log_msg(const struct dk *c, int level, const char *fmt, ...)
{
	if (!c->o || c->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	ibf_vlogf(c->o->log, c->o->log_ctx, level, fmt, ap);
	va_end(ap);
}

/* layer offsets per level for layer j of L layers */
static void layer_offsets(const struct ibf_ftree *t, uint32_t j, uint32_t L, uint32_t *off)
{
	int h = t->levels;
	for (int l = 0; l <= h; l++)
		off[l] = 0;
	if (!j || L <= 1)
		return;
	const uint64_t cap = (uint64_t)1 << 56;
	uint64_t G = 1;
	for (int l = 1; l < h; l++) {
		uint64_t u = t->nup[l] ? t->nup[l] : 1;
		G = G > cap / u ? cap : G * u;
	}
	uint64_t o = (uint64_t)j * (G / L) + (uint64_t)j * (G % L) / L;
	/* digits: level h-1 least significant, level 1 most */
	for (int l = h - 1; l >= 1; l--) {
		uint64_t u = t->nup[l] ? t->nup[l] : 1;
		uint64_t q = o % u;
		o /= u;
		/* The digit q counts slots parent-major (q / p: parent, q % p:
		 * cable of the bundle), slots are numbered cable-major (c * W +
		 * i), so that on bundled trees (p > 1) the layers of a destination
		 * reach different parents before they reuse one (with q read as
		 * a slot, layers 0, 2, 4, 6 of 4 parents x 2 cables would meet on
		 * parents 0 and 2 only).  With p = 1 this is q itself. */
		uint64_t w = t->npar[l];
		if (w && u % w == 0 && u > w) {
			uint64_t p = u / w;
			q = (q / p) + (q % p) * w;
		}
		off[l] = (uint32_t)q;
	}
}

static uint64_t digit(const struct ibf_ftree *t, uint64_t x, int l)
{
	uint64_t p = t->prod[l];
	return p ? x / p : 0;
}

/* slot g of a switch can carry a destination: a cable left for it, and the
 * parent is usable (elig stamp: a down path, or an up path to one).  A
 * slot whose own cable is gone counts as having one while its bundle keeps
 * enough cables (the bundle rule spreads it over them, see bundles());
 * when the bundle is over budget (dealt) the slot is unusable and its
 * destinations are dealt over every surviving up-cable of the switch. */
static int usable(const struct dk *c, uint32_t g, const uint32_t *elig)
{
	if (c->dealt[g] ? c->t->slot[g] == IBF_FTREE_MISSING : !c->pres_n[g])
		return 0;
	return elig[c->t->slot_par[g]] == c->rcur;
}

/* the cable of usable slot g for digit d on a switch with n slots: its own
 * on a dealt bundle, else q mod b of the b cables left to g's parent with
 * q = (d div n) * p + c (on a full bundle both are cable c) */
static uint32_t slot_cable(const struct dk *c, uint32_t g, uint64_t d, uint32_t n)
{
	if (c->dealt[g])
		return c->t->slot[g];
	uint64_t q = (d / n) * c->pnom[g] + c->t->slot_cab[g];
	return c->pres[c->pres_off[g] + (uint32_t)(q % c->pres_n[g])];
}

/* up link of s for (x, off); elig: stamps of usable parents.  Slot k0 =
 * (d mod n) names a parent y and a cable rank c in y's bundle of nominal
 * size p; the cable used is q mod b of the b cables s really has to y, with
 * q = (d div n) * p + c.  On a full bundle that is cable c; on a short one
 * the destinations of y still spread evenly over the surviving cables
 * (balance by cable count).  A slot that cannot be used (no cable left to
 * its parent, or no down path there) hands its destinations round-robin to
 * the usable slots: with M unusable slots, k0 the i-th of them, the
 * destination goes to usable slot number (M * (d div n) + i) mod u in slot
 * order (u usable slots), so the destinations of all unusable slots, taken
 * together, are dealt out one by one (see spread_pick).  Returns adj index
 * or NOSW; counts moves. */
static uint32_t pick_up(struct dk *c, uint32_t s, uint64_t x, const uint32_t *off,
			const uint32_t *elig, int count)
{
	const struct ibf_ftree *t = c->t;
	uint32_t n = t->slot_off[s + 1] - t->slot_off[s];
	if (!n)
		return NOSW;
	int l = t->level[s];
	uint32_t base = t->slot_off[s];
	uint64_t d = digit(t, x, l) + off[l];
	uint32_t k0 = (uint32_t)(d % n);
	if (usable(c, base + k0, elig))
		return slot_cable(c, base + k0, d, n);
	uint32_t nu = 0, i = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (usable(c, base + k, elig))
			nu++;
		else if (k < k0)
			i++;
	}
	if (!nu)
		return NOSW;
	uint64_t z = (uint64_t)(n - nu) * (d / n) + i;
	uint32_t want = (uint32_t)(z % nu);
	for (uint32_t j = 1; j <= n; j++) {
		uint32_t k = (k0 + j) % n;
		if (usable(c, base + k, elig) && !want--) {
			if (count && t->slot[base + k0] != IBF_FTREE_MISSING)
				c->moved_unusable++;
			return slot_cable(c, base + k, d, n);
		}
	}
	return NOSW;
}

/* Closed slots of a two-level tree, spread by load (LMC 0 LIDs of leaf
 * hosts).  Built before routing, leaf by leaf in index order (remap_all),
 * for each destination leaf D (leaf_remap):
 *   - D itself (its chain): a table from the residue r = x mod P of a
 *     destination index (P = n times the slot cycles a leaf's hosts span,
 *     so a run of a leaf's sources covers each residue at most once) to
 *     the up-cable.  A residue whose slot is usable keeps it (slot_cable,
 *     so a short bundle that keeps the bundle rule still spreads over its
 *     survivors); the others (no cable to the slot's parent, or a short
 *     bundle over its budget) go, in residue order, to D's cable with the
 *     fewest residues, then the parent with the fewest, then the first in
 *     slot order.  The slot a residue ends on is the chain's slot
 *     (rm_kslot); its cable is the residue's down cable.
 *   - every other leaf s: an up-cable per host x of D (rm_x).  With u
 *     cables of s whose parent has a cable down to D, cap = ceil(P / u).
 *     The residues D kept take s's own cable of the chain slot while the
 *     table gives it fewer than cap; then, in index order, s follows the
 *     residues D moved while no run of P hosts through x (cyclic, as the
 *     shifts run: win_max, seq_pos) takes that cable beyond cap, and
 *     places the rest by least cost (remap_pick): the excess over cap of
 *     the busiest run through x, or over capd on the down cable the
 *     parent would take to D (capd: the larger of the chain's own largest
 *     load there and the tree's leaf cut, below which no shift's worst
 *     is); ties to the cable s has used least over all leaves so far, so
 *     the extra destination of a run moves from cable to cable from one
 *     destination leaf to the next (random permutations), then the
 *     chain's parent, the parent an earlier source moved the same
 *     destination to, the fewest in the runs, the least down load, the
 *     first in slot order from the chain's slot.  A parent off the chain
 *     sends such a destination down the cable counted here (rm_roff, see
 *     pick_down).
 * Dealing the moved destinations by a counter (the rule for every other
 * case, pick_chain) spreads them over the run but lands them on cables
 * that their own residues already fill.  Nothing is built while every
 * leaf can use every slot: complete trees keep their tables. */
static uint32_t slot_pos(const struct dk *c, uint32_t s, uint32_t e)
{
	const struct ibf_ftree *t = c->t;
	for (uint32_t g = t->slot_off[s]; g < t->slot_off[s + 1]; g++)
		if (t->slot[g] == e)
			return g - t->slot_off[s];
	return NOSW;
}

static int in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* the parents that the other LMC layers of a destination take from leaf s
 * by their own slot where it is usable (as layer_parents does for the
 * dealing), for digit d of the layer whose tables are built; the count */
static uint32_t rm_taken(const struct dk *c, uint32_t s, uint64_t d, uint32_t *tk)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, nt = 0;
	if (!n)
		return 0;
	uint64_t base = d + n - c->rm_offs[c->rm_cl] % n; /* the digit of layer 0 (mod n) */
	for (uint32_t j = 0; j < c->nrl && j < 128; j++) {
		if (j == c->rm_cl)
			continue;
		uint32_t g = a + (uint32_t)((base + c->rm_offs[j]) % n);
		if (usable(c, g, c->anc) && !in_list(tk, nt, t->slot_par[g]))
			tk[nt++] = t->slot_par[g];
	}
	return nt;
}

/* the down load towards D (leaf dsw) through parent y: the fewest residues
 * on one of D's cables to y, chain ones (dc) and moved ones (doffr);
 * the position of that cable in *hd */
static uint32_t down_load(const struct dk *c, uint32_t dsw, uint32_t y, const uint32_t *dc,
			  const uint32_t *doffr, uint32_t *hd)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[dsw], n = t->slot_off[dsw + 1] - a, best = UINT32_MAX;
	*hd = NOSW;
	for (uint32_t h = 0; h < n; h++)
		if (t->slot_par[a + h] == y && t->slot[a + h] != IBF_FTREE_MISSING &&
		    dc[h] + doffr[h] < best) {
			best = dc[h] + doffr[h];
			*hd = h;
		}
	return best;
}

/* the best cable position of s for residue r whose chain slot is k at
 * parent y (see leaf_remap).  The cost of a cable: how far it would take
 * the up load of s (cnt) beyond cap or the down load of a cable of D beyond
 * capd (the chain's parent y adds none, nor the parent an earlier source
 * moved r to (yr): one flow per shift reaches a destination); then the
 * fewest destinations s has sent on the cable so far (tot, NULL: none),
 * the chain's parent, yr, the lowest cnt, the least down load to D, the
 * least-loaded parent of s, and the first in rotation from k.  dsw NOSW:
 * no down side (D's own chain). */
static uint32_t remap_pick(const struct dk *c, uint32_t s, uint32_t k, uint32_t y, uint32_t yr,
			   uint32_t cap, const uint32_t *cnt, const uint32_t *pc, uint32_t dsw,
			   const uint32_t *dc, const uint32_t *doffr, uint32_t capd,
			   const uint32_t *tot, const uint32_t *tk, uint32_t ntk)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, best = NOSW, bk[10];
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t h = (k + i) % n, g = a + h;
		if (t->slot[g] == IBF_FTREE_MISSING || !usable(c, g, c->anc))
			continue;
		uint32_t par = t->slot_par[g];
		uint32_t pr = 0, hd, dl = 0, ex = 0;
		for (uint32_t q = a; q < a + n; q++)
			if (t->slot_par[q] == par) {
				pr = pc[q - a];
				break;
			}
		uint32_t mx = cnt[h] + 1;
		if (cap && cnt[h] + 1 > cap)
			ex = cnt[h] + 1 - cap;
		if (dsw != NOSW && par != y) {
			dl = down_load(c, dsw, par, dc, doffr, &hd);
			uint32_t dx = dl + (par != yr);
			if (dx > capd && dx - capd > ex)
				ex = dx - capd;
			if (dx > mx)
				mx = dx;
		}
		if (!ex)
			mx = 0; /* within both: the preferences below decide */
		/* a parent another LMC layer of the destination takes by its own
		 * slot: after the excess for a source, after the count on D's
		 * cables for D's own chain (its down cables come first there) */
		uint32_t tl = in_list(tk, ntk, par);
		uint32_t key[10] = { ex, mx, dsw != NOSW ? tl : 0, tot ? tot[h] : 0, par != y,
				     par != yr, cnt[h], dsw == NOSW ? tl : 0, dl, pr };
		int better = best == NOSW;
		for (int q = 0; q < 10 && !better; q++) {
			if (key[q] != bk[q]) {
				better = key[q] < bk[q];
				break;
			}
		}
		if (better) {
			memcpy(bk, key, sizeof(bk));
			best = h;
		}
	}
	return best;
}

/* count residue on cable position h of s (and on its parent, kept at the
 * parent's first slot position) */
static void remap_count(const struct dk *c, uint32_t s, uint32_t h, uint32_t *cnt, uint32_t *pc)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, par = t->slot_par[a + h];
	cnt[h]++;
	for (uint32_t q = 0; q < n; q++)
		if (t->slot_par[a + q] == par) {
			pc[q]++;
			break;
		}
}

/* The cable position leaf s takes towards host number z of the traffic
 * patterns (leaf hosts 0 .. rm_nh - 1 by index, then the hosts on spines),
 * as far as it is known while the tables of leaf dsw are built: what an
 * earlier table gave; nothing for s's own hosts and for the moves of dsw
 * not made yet; for a leaf whose table comes later, the plain slot's cable
 * (what a leaf that lost nothing gets); for a host on a spine, the cable
 * towards that spine.  NOSW: no up-cable of s. */
static uint32_t seq_pos(const struct dk *c, uint32_t s, uint32_t dsw, uint32_t z)
{
	const struct ibf_ftree *t = c->t;
	if (z >= c->rm_nh) {
		uint16_t v = c->rm_sp[(size_t)s * c->rm_ns + (z - c->rm_nh)];
		return v == RM_NONE ? NOSW : v;
	}
	uint16_t v = c->rm_mv[(size_t)s * c->rm_nh + z];
	if (v == RM_NOUP)
		return NOSW;
	if (v != RM_NONE)
		return v;
	if ((z >= c->hx0[s] && z < c->hx1[s]) || (z >= c->hx0[dsw] && z < c->hx1[dsw]))
		return NOSW;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, g = a + (z + c->rm_o) % n;
	if (c->dealt[g] ? t->slot[g] == IBF_FTREE_MISSING : !c->pres_n[g])
		return NOSW;
	return slot_pos(c, s, slot_cable(c, g, z + c->rm_o, n));
}

/* for every cable position h of s: the most destinations that a run of P
 * consecutive hosts (cyclic, as the shifts take them) containing host x
 * sends up h, x itself not counted (seq_pos) */
static void win_max(const struct dk *c, uint32_t s, uint32_t dsw, uint32_t x, uint32_t P,
		    uint32_t *best)
{
	const struct ibf_ftree *t = c->t;
	uint32_t n = t->slot_off[s + 1] - t->slot_off[s], N = c->rm_nh + c->rm_ns;
	uint32_t cur[256], L = P < N ? P : N;
	memset(cur, 0, n * sizeof(uint32_t));
	/* window [x - L + 1, x], then slide to [x, x + L - 1] */
	for (uint32_t k = 1; k < L; k++) {
		uint32_t p = seq_pos(c, s, dsw, (x + N - k) % N);
		if (p != NOSW)
			cur[p]++;
	}
	memcpy(best, cur, n * sizeof(uint32_t));
	for (uint32_t i = 1; i < L; i++) {
		uint32_t po = seq_pos(c, s, dsw, (x + N - (L - i)) % N);
		uint32_t pn = seq_pos(c, s, dsw, (x + i) % N);
		if (po != NOSW)
			cur[po]--;
		if (pn != NOSW && ++cur[pn] > best[pn])
			best[pn] = cur[pn];
	}
}

static void regions(struct dk *c, uint32_t dsw, uint32_t *outside);
static uint32_t pick_toward(struct dk *c, uint32_t s, uint32_t p, uint64_t x, const uint32_t *off);

static void leaf_remap(struct dk *c, uint32_t dsw)
{
	const struct ibf_ftree *t = c->t;
	c->rm_pd[dsw] = 0;
	if (t->levels != 2 || t->level[dsw] != 1 || !c->rm_n || !c->rm_nh)
		return;
	uint32_t aD = t->slot_off[dsw], n = t->slot_off[dsw + 1] - aD;
	if (!n || n > 256)
		return;
	/* the period: n slots times the cycles a leaf's hosts span */
	uint32_t H = t->hosts_per_leaf ? t->hosts_per_leaf : 1;
	uint32_t P = n * ((H + n - 1) / n);
	if (P > c->rm_n)
		return;
	int damaged = 0;
	for (uint32_t s = 0; s < c->S && !damaged; s++) {
		if (t->level[s] != 1)
			continue;
		for (uint32_t g = t->slot_off[s]; g < t->slot_off[s + 1]; g++)
			if (t->slot[g] == IBF_FTREE_MISSING || !usable(c, g, c->anc))
				damaged = 1;
	}
	if (!damaged)
		return;
	uint32_t cnt[256], pc[256];
	uint32_t *kslot = c->rm_kslot;
	memset(cnt, 0, n * sizeof(uint32_t));
	memset(pc, 0, n * sizeof(uint32_t));
	uint32_t *cab = c->rm_cab + (size_t)dsw * c->rm_n, *sl = c->rm_slot + (size_t)dsw * c->rm_n;
	for (uint32_t r = 0; r < P; r++) {
		cab[r] = sl[r] = NOSW;
		kslot[r] = NOSW;
		if (!usable(c, aD + r % n, c->anc))
			continue;
		uint32_t h = slot_pos(c, dsw, slot_cable(c, aD + r % n, r, n));
		if (h == NOSW)
			continue;
		kslot[r] = r % n;
		sl[r] = aD + r % n;
		remap_count(c, dsw, h, cnt, pc);
	}
	for (uint32_t r = 0; r < P; r++) {
		if (kslot[r] != NOSW)
			continue;
		uint32_t tk[128], ntk = rm_taken(c, dsw, r, tk);
		uint32_t h = remap_pick(c, dsw, r % n, NOSW, NOSW, 0, cnt, pc, NOSW, NULL,
					NULL, 0, NULL, tk, ntk);
		if (h == NOSW)
			continue;
		kslot[r] = h;
		cab[r] = t->slot[aD + h];
		remap_count(c, dsw, h, cnt, pc);
	}
	c->rm_pd[dsw] = P;
	uint32_t dc[256], doffr[256]; /* D's cables: chain and moved residues */
	/* per residue: D's cable an earlier source moved it to (its spine goes
	 * down that cable, see pick_down) */
	uint32_t *roff = c->rm_roff + (size_t)dsw * c->rm_n;
	uint32_t capd = 0;
	memcpy(dc, cnt, n * sizeof(uint32_t));
	memset(doffr, 0, n * sizeof(uint32_t));
	for (uint32_t h = 0; h < n; h++)
		if (dc[h] > capd)
			capd = dc[h];
	for (uint32_t r = 0; r < P; r++)
		roff[r] = NOSW;
	uint32_t bg = 0; /* the leaf cut of the shifts: no shift's worst is below it */
	for (uint32_t s = 0; s < c->S; s++) {
		uint32_t nc = 0, hs = c->hx1[s] - c->hx0[s];
		if (t->level[s] != 1)
			continue;
		for (uint32_t g = t->slot_off[s]; g < t->slot_off[s + 1]; g++)
			nc += t->slot[g] != IBF_FTREE_MISSING;
		if (nc && (hs + nc - 1) / nc > bg)
			bg = (hs + nc - 1) / nc;
	}
	if (bg > capd)
		capd = bg;
	uint32_t x0 = c->hx0[dsw], x1 = c->hx1[dsw], NH = c->rm_nh, o = c->rm_o;
	for (uint32_t s = 0; s < c->S; s++) {
		if (s == dsw || t->level[s] != 1)
			continue;
		uint32_t a = t->slot_off[s], ns = t->slot_off[s + 1] - a, u = 0;
		uint32_t *row = c->rm_x + (size_t)s * NH, *tot = c->rm_tot + (size_t)s * c->rm_n;
		uint16_t *mv = c->rm_mv + (size_t)s * NH;
		for (uint32_t x = x0; x < x1; x++) {
			row[x] = NOSW;
			mv[x] = RM_NONE;
		}
		if (ns != n)
			continue;
		for (uint32_t g = a; g < a + n; g++)
			u += t->slot[g] != IBF_FTREE_MISSING && usable(c, g, c->anc);
		if (!u)
			continue;
		uint32_t cap = (P + u - 1) / u;
		memset(cnt, 0, n * sizeof(uint32_t));
		memset(pc, 0, n * sizeof(uint32_t));
		sl = c->rm_ksl; /* s's kept slot per residue */
		for (uint32_t r = 0; r < P; r++)
			sl[r] = NOSW;
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t r = 0; r < P; r++) {
				uint32_t k = kslot[r];
				if (k == NOSW || (k == r % n) != !pass || !usable(c, a + k, c->anc))
					continue;
				uint32_t h = slot_pos(c, s, slot_cable(c, a + k, r, n));
				if (h == NOSW || cnt[h] >= cap)
					continue;
				sl[r] = a + k;
				remap_count(c, s, h, cnt, pc);
			}
		/* the destinations D keeps on their own slot and s can follow
		 * first; then, in index order, those D moved, which s follows
		 * while no run of P hosts through x takes that cable beyond cap,
		 * and the rest, each to the cable of least cost (remap_pick) with
		 * a cable's count the most any run of P hosts through x puts on
		 * it (win_max) */
		for (uint32_t x = x0; x < x1; x++) {
			uint32_t r = (x + o) % P;
			if (sl[r] == NOSW || kslot[r] != r % n)
				continue;
			row[x] = slot_cable(c, sl[r], x + o, n);
			uint32_t hk = slot_pos(c, s, row[x]);
			mv[x] = hk == NOSW ? RM_NOUP : (uint16_t)hk;
			if (hk != NOSW)
				tot[hk]++;
		}
		for (uint32_t x = x0; x < x1; x++) {
			uint32_t r = (x + o) % P;
			uint32_t w[256], pw[256];
			if (sl[r] != NOSW && kslot[r] != r % n) {
				uint32_t e = slot_cable(c, sl[r], x + o, n), hk = slot_pos(c, s, e);
				win_max(c, s, dsw, x, P, w);
				if (hk != NOSW && w[hk] + 1 <= cap) {
					row[x] = e;
					mv[x] = (uint16_t)hk;
					tot[hk]++;
					continue;
				}
			} else if (sl[r] != NOSW)
				continue;
			mv[x] = RM_NOUP;
			if (kslot[r] == NOSW)
				continue;
			win_max(c, s, dsw, x, P, w);
			memset(pw, 0, n * sizeof(uint32_t));
			for (uint32_t h = 0; h < n; h++) {
				uint32_t par = t->slot_par[a + h], q = 0;
				while (t->slot_par[a + q] != par)
					q++;
				pw[q] += w[h];
			}
			uint32_t y = t->slot_par[aD + kslot[r]];
			uint32_t yr = roff[r] == NOSW ? NOSW : t->slot_par[aD + roff[r]];
			uint32_t tk[128], ntk = rm_taken(c, s, x + o, tk);
			uint32_t h = remap_pick(c, s, kslot[r], y, yr, cap, w, pw, dsw, dc, doffr,
						capd, tot, tk, ntk);
			if (h == NOSW)
				continue;
			row[x] = t->slot[a + h];
			mv[x] = (uint16_t)h;
			tot[h]++;
			uint32_t par = t->slot_par[a + h], hd;
			if (par != y && roff[r] == NOSW) {
				down_load(c, dsw, par, dc, doffr, &hd);
				if (hd != NOSW) {
					roff[r] = hd;
					doffr[hd]++;
				}
			}
		}
	}
}

/* the tables of every leaf, built leaf by leaf in index order (so a
 * source's moves towards one leaf see its moves towards the leaves before) */
static void remap_all(struct dk *c)
{
	const struct ibf_ftree *t = c->t;
	if (!c->rm_nh)
		return;
	uint32_t off[IBF_FTREE_MAX_LEVELS + 2];
	for (uint32_t l = 0; l < c->nrl; l++) {
		rm_layer(c, l);
		layer_offsets(t, l, c->nrl, off);
		for (uint32_t s = 0; s < c->S; s++)
			for (uint32_t j = 0; j < c->rm_ns; j++) {
				const struct ibf_ftree_end *en =
					&t->ends[t->nleaf_hosts + t->ninside + j];
				uint32_t e = t->level[s] == 1
						     ? pick_toward(c, s, en->sw,
								   layer_index(c, en->index, l,
									       c->nrl, off),
								   off)
						     : NOSW;
				uint32_t h = e == NOSW ? NOSW : slot_pos(c, s, e);
				c->rm_sp[(size_t)s * c->rm_ns + j] =
					h == NOSW ? RM_NONE : (uint16_t)h;
			}
	}
	/* each layer is a pattern of its own: its tables are built as those of
	 * LMC 0, on the leaf slots rotated by its offset */
	for (uint32_t i = 0; i < t->nleaves; i++) {
		uint32_t dsw = t->leaves[i], nout;
		c->rcur++;
		regions(c, dsw, &nout);
		for (uint32_t l = 0; l < c->nrl; l++) {
			rm_layer(c, l);
			leaf_remap(c, dsw);
		}
	}
}

/* the remapped up-cable of leaf s for the current destination (d: the
 * destination's digit), or NOSW when leaf_remap does not apply */
static uint32_t remap_cable(const struct dk *c, uint32_t s, uint64_t d)
{
	const struct ibf_ftree *t = c->t;
	if (!c->rm_on || c->rm_lay < 0 || t->level[s] != 1)
		return NOSW;
	if (s != c->rm_dsw) {
		uint64_t x = c->lbase; /* the host index; d is rotated by the layer */
		if (x < c->hx0[c->rm_dsw] || x >= c->hx1[c->rm_dsw])
			return NOSW;
		return c->rm_x[(size_t)s * c->rm_nh + x];
	}
	uint32_t n = t->slot_off[s + 1] - t->slot_off[s];
	if (!n || c->rm_p % n)
		return NOSW;
	uint32_t r = (uint32_t)(d % c->rm_p);
	const uint32_t *cab = c->rm_cab + (size_t)s * c->rm_n, *sl = c->rm_slot + (size_t)s * c->rm_n;
	if (sl[r] != NOSW)
		return slot_cable(c, sl[r], d, n);
	return cab[r];
}


/* the slot of position v of s's weighted round-robin (see pick_chain):
 * round r holds every slot of weight > r, in slot order */
static uint32_t pos_slot(const struct dk *c, uint32_t a, uint32_t n, uint32_t wmax, uint32_t v,
			 uint32_t *round)
{
	for (uint32_t r = 0, pos = 0; r < wmax; r++)
		for (uint32_t h = a; h < a + n; h++)
			if (c->wgt[h] > r && pos++ == v) {
				if (round)
					*round = r;
				return h;
			}
	return NOSW;
}

/* the parents through which the other LMC layers of the current LID
 * (lbase, lj, lL) leave s by their own usable position: a layer whose
 * position must be dealt avoids them, so the layers of a destination keep
 * distinct parents as long as s has enough of them.  Returns the count
 * (at most max) written to par. */
static uint32_t layer_parents(struct dk *c, uint32_t s, const uint32_t *elig, uint32_t V,
			      uint32_t wmax, uint32_t *par, uint32_t max)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, np = 0;
	uint32_t off2[IBF_FTREE_MAX_LEVELS + 2];
	for (uint32_t j = 0; j < c->lL && np < max; j++) {
		if (j == c->lj)
			continue;
		uint64_t xx = layer_index(c, c->lbase, j, c->lL, off2);
		uint64_t d = digit(t, xx, t->level[s]) + off2[t->level[s]];
		uint32_t g = pos_slot(c, a, n, wmax, (uint32_t)(d % V), NULL);
		if (g != NOSW && usable(c, g, elig))
			par[np++] = t->slot_par[g];
	}
	return np;
}

/* the chain's climb: like pick_up, but a parent's slots count in
 * proportion to the parent's own surviving up-cables (wgt), so a parent
 * that lost uplinks receives fewer destinations.  The slots are taken
 * round-robin by weight (round r holds every slot of weight > r: V
 * positions in all), which on an even tree is the plain slot order: there
 * it is pick_up exactly.  A position whose slot cannot be used deals its
 * destinations out over the usable positions as pick_up does over slots:
 * number (M * (d div V) * w0 + M * r0 + i) mod u, with w0 the weight of the
 * position's slot, r0 its round, M the unusable slots and i the rank of
 * the slot among them (on an even tree (d div V) * w0 + r0 = d div n, and
 * usable position number j is usable slot number j mod u: pick_up's
 * choice).  That is the order in which the destination's own switch meets
 * them.  A source switch (deal given) meets a different set: its own
 * unusable slots, and the chain's moved destinations on top; it deals the
 * destinations it must move to the usable positions with its own counter
 * *deal (per layer, see deal_counter), so any run of them is split within
 * one; the destination's chain deals its moved destinations in the same
 * way with a counter per destination switch (chain_counter).  Counts an
 * entry moved off a parent that had a cable but no use. */
static uint32_t pick_chain(struct dk *c, uint32_t s, uint64_t x, const uint32_t *off,
			   const uint32_t *elig, int count, uint32_t *deal)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, V = 0, wmax = 0;
	if (!n)
		return NOSW;
	for (uint32_t g = a; g < a + n; g++) {
		V += c->wgt[g];
		if (c->wgt[g] > wmax)
			wmax = c->wgt[g];
	}
	int l = t->level[s];
	uint64_t d = digit(t, x, l) + off[l];
	if (!V)
		return pick_up(c, s, x, off, elig, count);
	uint32_t v0 = (uint32_t)(d % V), r0 = 0;
	uint32_t g0 = pos_slot(c, a, n, wmax, v0, &r0);
	if (usable(c, g0, elig))
		return slot_cable(c, g0, d, n);
	if (elig == c->anc && s == c->rm_dsw) {
		uint32_t e = remap_cable(c, s, d); /* the destination leaf's own table */
		if (e != NOSW)
			return e;
	}
	/* layer 0 of a damaged tree of 3+ levels deals as at LMC 0 (layers_alt) */
	uint32_t taken[8];
	uint32_t nt = c->own0 && !c->lj ? 0 : layer_parents(c, s, elig, V, wmax, taken, 8);
	uint32_t nu = 0, m = 0, i = 0; /* usable positions, unusable slots, rank of g0 */
	for (int pass = 0; pass < 2 && !nu; pass++) {
		if (pass)
			nt = 0; /* every usable parent is another layer's: share */
		m = i = 0;
		for (uint32_t h = a; h < a + n; h++) {
			if (usable(c, h, elig)) {
				if (!in_list(taken, nt, t->slot_par[h]))
					nu += c->wgt[h];
			} else {
				m++;
				if (h < g0)
					i++;
			}
		}
	}
	/* every usable parent weighs 0 (it lost all its up-cables, or has none
	 * above it though it is not on the top level: a switch without hosts
	 * hanging off some spines makes a level above them).  It still has its
	 * down path: use it by the plain slot rule rather than leave the
	 * destination without an entry. */
	if (!nu)
		return pick_up(c, s, x, off, elig, count);
	uint64_t z = (uint64_t)m * ((d / V) * c->wgt[g0] + r0) + i;
	if (deal)
		z = (*deal)++;
	uint32_t want = (uint32_t)(z % nu);
	/* the usable positions from v0 + 1 on, cyclically */
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t r = 0, pos = 0; r < wmax; r++)
			for (uint32_t h = a; h < a + n; h++) {
				if (c->wgt[h] <= r)
					continue;
				uint32_t v = pos++;
				if ((pass == 0) != (v > v0) || !usable(c, h, elig) ||
				    in_list(taken, nt, t->slot_par[h]) || want--)
					continue;
				if (count && t->slot[g0] != IBF_FTREE_MISSING)
					c->moved_unusable++;
				return slot_cable(c, h, d, n);
			}
	return NOSW;
}

/* a switch below a chain switch p goes up to p: by its own slot's cable
 * when that slot names p (NOSW when that cable is gone: the caller deals
 * the destination over its surviving up-cables, as the chain does), else
 * by a cable of its bundle to p spread by d / W */
static uint32_t pick_toward(struct dk *c, uint32_t s, uint32_t p, uint64_t x, const uint32_t *off)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a;
	if (!n)
		return NOSW;
	int l = t->level[s];
	uint64_t d = digit(t, x, l) + off[l];
	uint32_t k0 = (uint32_t)(d % n), g = a + k0;
	if (t->slot_par[g] == p) {
		if (c->dealt[g])
			return t->slot[g] == IBF_FTREE_MISSING ? NOSW : t->slot[g];
		if (!c->pres_n[g])
			return NOSW;
		uint64_t q = (d / n) * c->pnom[g] + t->slot_cab[g];
		return c->pres[c->pres_off[g] + (uint32_t)(q % c->pres_n[g])];
	}
	for (g = a; g < a + n && t->slot_par[g] != p; g++)
		;
	if (g == a + n)
		return NOSW;
	uint64_t w = t->npar[l] ? t->npar[l] : 1;
	uint64_t q = d / w;
	uint32_t b = c->pres_n[g];
	if (!b)
		return NOSW;
	return c->pres[c->pres_off[g] + (uint32_t)(q % b)];
}

/* per slot: the surviving cables of the slot's bundle (pres_off/pres_n into
 * pres, in cable order) and the bundle's nominal size (pnom) */
static int bundles(struct dk *c)
{
	const struct ibf_ftree *t = c->t;
	uint32_t ns = t->slot_off[c->S];
	c->pres = malloc((ns ? ns : 1) * sizeof(uint32_t));
	c->pres_off = malloc((ns ? ns : 1) * sizeof(uint32_t));
	c->pres_n = malloc((ns ? ns : 1) * sizeof(uint32_t));
	c->pnom = malloc((ns ? ns : 1) * sizeof(uint32_t));
	c->wgt = malloc((ns ? ns : 1) * sizeof(uint32_t));
	c->dealt = malloc(ns ? ns : 1);
	if (!c->pres || !c->pres_off || !c->pres_n || !c->pnom || !c->wgt || !c->dealt)
		return -1;
	for (uint32_t g = 0; g < ns; g++) { /* surviving up-cables of the slot's parent */
		uint32_t y = t->slot_par[g], u = 0;
		for (uint32_t h = t->slot_off[y]; h < t->slot_off[y + 1]; h++)
			if (t->slot[h] != IBF_FTREE_MISSING)
				u++;
		c->wgt[g] = t->level[y] >= t->levels ? 1 : u;
	}
	uint32_t w = 0;
	for (uint32_t s = 0; s < c->S; s++) {
		uint32_t a = t->slot_off[s], z = t->slot_off[s + 1];
		for (uint32_t g = a; g < z; g++) {
			uint32_t y = t->slot_par[g], first = NOSW, nb = 0, np = 0;
			for (uint32_t h = a; h < z; h++) /* same parent seen before: share */
				if (t->slot_par[h] == y) {
					if (first == NOSW)
						first = h;
					np++;
				}
			c->pnom[g] = np;
			if (first < g) {
				c->pres_off[g] = c->pres_off[first];
				c->pres_n[g] = c->pres_n[first];
				continue;
			}
			c->pres_off[g] = w;
			for (uint32_t cab = 0; cab < np; cab++) /* in cable order */
				for (uint32_t h = a; h < z; h++)
					if (t->slot_par[h] == y && t->slot_cab[h] == cab &&
					    t->slot[h] != IBF_FTREE_MISSING) {
						c->pres[w++] = t->slot[h];
						nb++;
					}
			c->pres_n[g] = nb;
		}
	}
	/* Short bundles: a leaf with H hosts and u surviving up-cables must put
	 * ceil(H / u) flows on some cable in a shift (its cut); a bundle to a
	 * parent that lost cables (b of p nominal left) carries p of the n
	 * slots' destinations, p * H / n in a run of H.  While that fits on its
	 * b cables within the cut (p * H <= b * n * ceil(H / u)), the bundle
	 * rule spreads them over the survivors and every flow still follows
	 * the destination's chain; beyond it (one of 2 cables lost: the
	 * survivor doubles) the lost cables' slots are dealt over all the
	 * switch's surviving up-cables.  Above the leaves, where no such count
	 * of hosts applies, a short bundle is always dealt. */
	uint32_t *hosts = calloc(c->S ? c->S : 1, sizeof(uint32_t));
	if (!hosts)
		return -1;
	for (uint32_t i = 0; i < t->nends; i++)
		hosts[t->ends[i].sw]++;
	for (uint32_t s = 0; s < c->S; s++) {
		uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a, u = 0;
		for (uint32_t g = a; g < a + n; g++)
			u += t->slot[g] != IBF_FTREE_MISSING;
		for (uint32_t g = a; g < a + n; g++) {
			uint32_t b = c->pres_n[g], p = c->pnom[g];
			c->dealt[g] = 0;
			if (!b || b >= p)
				continue;
			uint64_t H = hosts[s];
			if (t->level[s] != 1 || !H)
				c->dealt[g] = 1;
			else
				c->dealt[g] = (uint64_t)p * H > (uint64_t)b * n * ((H + u - 1) / u);
		}
	}
	free(hosts);
	return 0;
}

/* down link of an ancestor off the chain.  A parent of the destination's
 * own switch takes, of its cables to it, the one that carries the fewest
 * chain destinations (then the fewest off-chain ones given so far), so
 * traffic from hosts on that parent (a virtual leaf) does not pile onto a
 * cable the chains already fill; other ancestors go down by the rule one
 * level lower. */
static uint32_t pick_down(struct dk *c, uint32_t s, uint32_t dsw, uint64_t x, const uint32_t *off,
			  int count)
{
	const struct ibf_ftree *t = c->t;
	const struct ibf_fabric *f = c->f;
	uint32_t n = 0;
	for (uint32_t i = t->down_off[s]; i < t->down_off[s + 1]; i++)
		if (c->anc[f->adj[t->down[i]].nbr] == c->rcur)
			n++;
	if (!n)
		return NOSW;
	int l = t->level[s] - 1;
	uint32_t k = (uint32_t)((digit(t, x, l) + off[l]) % n);
	if (c->rm_on && dsw == c->rm_dsw && c->rm_lay >= 0 && t->level[s] == t->level[dsw] + 1 &&
	    x >= c->hx0[dsw] && x < c->hx1[dsw]) {
		/* a destination some leaf moved to this spine: the down cable
		 * leaf_remap counted it on */
		uint32_t aD = t->slot_off[dsw];
		uint32_t hd = c->rm_roff[(size_t)dsw * c->rm_n + (x + c->rm_o) % c->rm_p];
		if (hd != NOSW && t->slot_par[aD + hd] == s && t->slot[aD + hd] != IBF_FTREE_MISSING) {
			uint8_t dp = f->adj[t->slot[aD + hd]].lport;
			for (uint32_t g = t->down_off[s]; g < t->down_off[s + 1]; g++) {
				uint32_t e = t->down[g];
				if (f->adj[e].nbr == dsw && f->adj[e].rport == dp) {
					if (count)
						c->doff[dp]++;
					return e;
				}
			}
		}
	}
	if (t->level[s] == t->level[dsw] + 1) {
		uint32_t best = NOSW, bl = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = k + i, m = 0;
			if (j >= n)
				j -= n;
			for (uint32_t g = t->down_off[s]; g < t->down_off[s + 1]; g++) {
				uint32_t e = t->down[g];
				if (c->anc[f->adj[e].nbr] != c->rcur || m++ != j)
					continue;
				uint32_t v = f->adj[e].nbr != dsw
						     ? UINT32_MAX
						     : c->dload[f->adj[e].rport] * 65536u +
							       (c->doff[f->adj[e].rport] & 0xffffu);
				if (v < bl) {
					bl = v;
					best = e;
				}
				break;
			}
		}
		if (best != NOSW) {
			if (count)
				c->doff[f->adj[best].rport]++;
			return best;
		}
	}
	for (uint32_t i = t->down_off[s]; i < t->down_off[s + 1]; i++)
		if (c->anc[f->adj[t->down[i]].nbr] == c->rcur && !k--)
			return t->down[i];
	return NOSW;
}

/* ancestors of dsw (down path to it) and the up/down region (an up path
 * to an ancestor); fallback BFS for everything else */
static void regions(struct dk *c, uint32_t dsw, uint32_t *outside)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_ftree *t = c->t;
	uint32_t head = 0, tail = 0;
	c->anc[dsw] = c->rcur;
	c->queue[tail++] = dsw;
	while (head < tail) {
		uint32_t s = c->queue[head++];
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (t->level[nb] == t->level[s] + 1 && c->anc[nb] != c->rcur) {
				c->anc[nb] = c->rcur;
				c->queue[tail++] = nb;
			}
		}
	}
	uint32_t nout = 0;
	for (uint32_t i = 0; i < c->S; i++) {
		uint32_t s = c->bylevel[i];
		if (c->anc[s] == c->rcur) {
			c->reach[s] = c->rcur;
			continue;
		}
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (t->level[nb] == t->level[s] + 1 && c->reach[nb] == c->rcur) {
				c->reach[s] = c->rcur;
				break;
			}
		}
		if (c->reach[s] != c->rcur)
			nout++;
	}
	*outside = nout;
	if (!nout)
		return;
	head = tail = 0;
	for (uint32_t s = 0; s < c->S; s++) {
		c->fnext[s] = NOSW;
		if (c->reach[s] == c->rcur) {
			c->fdist[s] = 0;
			c->queue[tail++] = s;
		} else {
			c->fdist[s] = IBF_DIST_INF;
		}
	}
	while (head < tail) {
		uint32_t s = c->queue[head++];
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (c->fdist[nb] != IBF_DIST_INF)
				continue;
			c->fdist[nb] = c->fdist[s] + 1;
			c->queue[tail++] = nb;
		}
	}
	for (uint32_t s = 0; s < c->S; s++) {
		if (c->reach[s] == c->rcur || c->fdist[s] == IBF_DIST_INF)
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			if (c->fdist[f->adj[e].nbr] + 1 == c->fdist[s]) {
				c->fnext[s] = e;
				break;
			}
	}
}

/* s's own D-mod-K slot for index x names a cable that is missing: s's
 * table entry for the destination, which that cable would carry, goes over
 * the parent's surviving cables (or to the other usable slots) instead.
 * Returns that slot, else NOSW.  Only the up entries of s count: a chain
 * switch's own entry points down. */
static uint32_t slot_missing(const struct dk *c, uint32_t s, uint64_t x, const uint32_t *off)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a;
	if (!n)
		return NOSW;
	uint64_t d = digit(t, x, t->level[s]) + off[t->level[s]];
	uint32_t g = a + (uint32_t)(d % n);
	return t->slot[g] == IBF_FTREE_MISSING ? g : NOSW;
}

/* s's plain D-mod-K slot for x can carry it to the destination's switch
 * (so a different chain step is the parents' weights, not a dealt move) */
static int plain_usable(const struct dk *c, uint32_t s, uint64_t x, const uint32_t *off)
{
	const struct ibf_ftree *t = c->t;
	uint32_t a = t->slot_off[s], n = t->slot_off[s + 1] - a;
	if (!n)
		return 0;
	uint64_t d = digit(t, x, t->level[s]) + off[t->level[s]];
	return usable(c, a + (uint32_t)(d % n), c->anc);
}

/* switch s's counter of the destinations it has dealt out (pick_chain) in
 * layer j, over the whole run (destination switches in order, their LIDs
 * in index order): the moved destinations of s go round-robin over all of
 * them, not only within one destination switch */
static uint32_t *deal_counter(struct dk *c, uint32_t s, uint32_t j)
{
	return &c->deal[(size_t)s * c->nlayers + (j < c->nlayers ? j : c->nlayers - 1)];
}

/* chain switch s's counter of the destinations of the current destination
 * switch it has dealt out in layer j: zero at the first use, so the first
 * moved destination of a leaf goes to the next usable slot, as before this
 * rule, and the following ones round-robin */
static uint32_t *chain_counter(struct dk *c, uint32_t s, uint32_t j)
{
	size_t k = (size_t)s * c->nlayers + (j < c->nlayers ? j : c->nlayers - 1);
	if (c->cstamp[k] != c->rcur) {
		c->cstamp[k] = c->rcur;
		c->cdeal[k] = 0;
	}
	return &c->cdeal[k];
}

/* one LID column: destination on switch dsw, delivered through tport */
static void column(struct dk *c, uint32_t dsw, uint8_t tport, uint64_t x, const uint32_t *off,
		   uint32_t lid, uint32_t layer, int count)
{
	const struct ibf_fabric *f = c->f;
	struct ibf_routes *r = c->r;
	/* the chain */
	c->ccur++;
	uint32_t s = dsw;
	c->chain[s] = c->ccur;
	c->chain_port[s] = tport;
	c->nxt[s] = NOSW;
	uint32_t clist[IBF_FTREE_MAX_LEVELS + 2], nc = 0;
	clist[nc++] = s;
	for (;;) {
		uint32_t e = pick_chain(c, s, x, off, c->anc, 0,
					    count ? chain_counter(c, s, layer) : NULL);
		if (e == NOSW)
			break;
		if (count && plain_usable(c, s, x, off) && e != pick_up(c, s, x, off, c->anc, 0))
			c->chain_weighted++;
		uint32_t p = f->adj[e].nbr;
		c->chain[p] = c->ccur;
		c->chain_port[p] = f->adj[e].rport;
		c->nxt[p] = s;
		s = p;
		if (nc < IBF_FTREE_MAX_LEVELS + 2)
			clist[nc++] = p;
	}
	/* the switches below the chain climb to it: children of a chain
	 * switch, then (top down) switches with a parent that climbs to it */
	const struct ibf_ftree *t = c->t;
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t v = clist[i];
		for (uint32_t k = t->down_off[v]; k < t->down_off[v + 1]; k++) {
			uint32_t ch = f->adj[t->down[k]].nbr;
			c->below[ch] = c->ccur;
			c->below_par[ch] = v;
		}
	}
	if (t->levels > 2)
		for (uint32_t i = 0; i < c->S; i++) {
			uint32_t v = c->bylevel[i];
			if (c->below[v] == c->ccur || c->chain[v] == c->ccur ||
			    c->anc[v] == c->rcur || c->reach[v] != c->rcur)
				continue;
			uint32_t a = t->slot_off[v], n = t->slot_off[v + 1] - a;
			if (!n)
				continue;
			uint64_t d = digit(t, x, t->level[v]) + off[t->level[v]];
			uint32_t k0 = (uint32_t)(d % n);
			for (uint32_t j = 0; j < n; j++) {
				uint32_t g = a + (k0 + j) % n, y = t->slot_par[g];
				if (c->pres_n[g] &&
				    (c->below[y] == c->ccur || c->chain[y] == c->ccur)) {
					c->below[v] = c->ccur;
					c->below_par[v] = y;
					break;
				}
			}
		}
	for (s = 0; s < c->S; s++) {
		uint8_t *lft = ibf_lft(r, s);
		uint32_t e;
		if (c->chain[s] == c->ccur) {
			lft[lid] = c->chain_port[s];
			continue;
		}
		if (c->anc[s] == c->rcur)
			e = pick_down(c, s, dsw, x, off, count);
		else if (c->reach[s] == c->rcur) {
			e = remap_cable(c, s, digit(t, x, t->level[s]) + off[t->level[s]]);
			if (e == NOSW && c->below[s] == c->ccur)
				e = pick_toward(c, s, c->below_par[s], x, off);
			if (e == NOSW)
				e = pick_chain(c, s, x, off, c->reach, count,
					       count ? deal_counter(c, s, layer) : NULL);
			uint32_t gm = count && e != NOSW ? slot_missing(c, s, x, off) : NOSW;
			if (gm != NOSW) {
				c->moved_missing[s]++;
				if (f->adj[e].nbr != t->slot_par[gm])
					c->moved_other[s]++;
			}
		} else {
			e = c->fnext[s];
			if (count && e != NOSW)
				c->fallback++;
		}
		if (e == NOSW) {
			c->nxt[s] = NOSW;
			lft[lid] = IBF_LFT_NONE;
			continue;
		}
		lft[lid] = f->adj[e].lport;
		c->nxt[s] = f->adj[e].nbr;
	}
	if (!r->hops)
		return;
	/* hops along the column (loop-free by construction; guarded anyway) */
	uint8_t *hb = c->hopbuf;
	memset(hb, 0xff, c->S);
	hb[dsw] = 0;
	for (s = 0; s < c->S; s++) {
		uint32_t n = 0, v = s;
		while (hb[v] == 0xff && c->nxt[v] != NOSW && n < c->S) {
			c->stack[n++] = v;
			v = c->nxt[v];
		}
		uint32_t base = hb[v];
		if (base == 0xff) /* unreachable (or a guard hit): leave unknown */
			continue;
		while (n) {
			v = c->stack[--n];
			base = base + 1 > 254 ? 254 : base + 1;
			hb[v] = (uint8_t)base;
		}
	}
	for (s = 0; s < c->S; s++)
		r->hops[(size_t)s * r->stride + lid] = hb[s];
}

/* Group n records (stride bytes each, from base) by their switch, the
 * uint32_t at byte swoff of a record: off[S + 1] (zeroed by the caller)
 * gets each switch's start in list[n], which gets the record indices in
 * order; fill[S] is scratch. */
static void group_by_switch(const void *base, size_t stride, size_t swoff, uint32_t n, uint32_t S,
			    uint32_t *off, uint32_t *list, uint32_t *fill)
{
	const char *b = (const char *)base + swoff;
	uint32_t sw;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&sw, b + (size_t)i * stride, sizeof(sw));
		off[sw + 1]++;
	}
	for (uint32_t s = 0; s < S; s++)
		off[s + 1] += off[s];
	memcpy(fill, off, S * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&sw, b + (size_t)i * stride, sizeof(sw));
		list[fill[sw]++] = i;
	}
}

/* Scratch of one run, the switches by level (highest first) and the end
 * ports grouped by their switch (eoff/elist, CSR). */
static int dk_setup(struct dk *c, uint32_t **eoff, uint32_t **elist, struct ibf_error *err)
{
	const struct ibf_ftree *t = c->t;
	uint32_t S = c->S;
	c->anc = calloc(S, sizeof(uint32_t));
	c->reach = calloc(S, sizeof(uint32_t));
	c->chain = calloc(S, sizeof(uint32_t));
	c->chain_port = calloc(S, 1);
	c->nxt = malloc(S * sizeof(uint32_t));
	c->fdist = malloc(S * sizeof(uint32_t));
	c->fnext = malloc(S * sizeof(uint32_t));
	c->queue = malloc(S * sizeof(uint32_t));
	c->bylevel = malloc(S * sizeof(uint32_t));
	c->moved_missing = calloc(S, sizeof(uint64_t));
	c->moved_other = calloc(S, sizeof(uint64_t));
	c->nlayers = 1;
	for (uint32_t i = 0; i < t->nends; i++) {
		const struct ibf_port *pp = ibf_port(c->f, t->ends[i].node, t->ends[i].port);
		if ((1u << pp->lmc) > c->nlayers)
			c->nlayers = 1u << pp->lmc;
	}
	c->deal = calloc((size_t)S * c->nlayers, sizeof(uint32_t));
	c->dlb = calloc((size_t)c->nlayers * 512, sizeof(uint32_t));
	c->lrw = malloc((size_t)c->nlayers * 2 * sizeof(uint32_t));
	c->lrch = calloc(c->nlayers ? c->nlayers : 1, 1);
	c->dln = 1;
	c->cdeal = calloc((size_t)S * c->nlayers, sizeof(uint32_t));
	c->cstamp = calloc((size_t)S * c->nlayers, sizeof(uint32_t));
	c->hopbuf = malloc(S);
	c->stack = malloc(S * sizeof(uint32_t));
	c->below = calloc(S, sizeof(uint32_t));
	c->below_par = calloc(S, sizeof(uint32_t));
	/* the remap's period: a leaf's slots times the cycles its hosts span */
	for (uint32_t s = 0; s < S; s++) {
		uint32_t n = t->slot_off[s + 1] - t->slot_off[s], H = t->hosts_per_leaf;
		if (t->levels == 2 && t->level[s] == 1 && n && n <= 256) {
			uint32_t P = n * ((H + n - 1) / n);
			if (P > c->rm_n && P <= 4096)
				c->rm_n = P;
		}
	}
	c->nrl = c->d->layer_rule == IBF_DMODK_LAYER_ROTATE ? c->nlayers : 1;
	for (uint32_t j = 0; j < c->nrl && j < 128; j++) {
		uint32_t loff[IBF_FTREE_MAX_LEVELS + 2];
		layer_offsets(t, j, c->nrl, loff);
		c->rm_offs[j] = t->levels == 2 ? loff[1] : 0;
	}
	size_t nl = c->nrl;
	c->rmb_slot = malloc((nl * S * c->rm_n + 1) * sizeof(uint32_t));
	c->rmb_cab = malloc((nl * S * c->rm_n + 1) * sizeof(uint32_t));
	c->rm_kslot = malloc((c->rm_n + 1) * sizeof(uint32_t));
	c->rmb_roff = malloc((nl * S * c->rm_n + 1) * sizeof(uint32_t));
	c->rm_ksl = malloc((c->rm_n + 1) * sizeof(uint32_t));
	c->rm_pd = calloc(S, sizeof(uint32_t));
	c->hx0 = calloc(S, sizeof(uint32_t));
	c->hx1 = calloc(S, sizeof(uint32_t));
	/* per source and destination index tables only where a 2-level tree
	 * lacks cables (leaf_remap never applies to a complete tree) */
	if (c->rm_n && t->missing_slots && t->nleaf_hosts && t->nslots == t->nleaf_hosts) {
		c->rm_nh = t->nleaf_hosts;
		c->rmb_x = malloc(nl * S * c->rm_nh * sizeof(uint32_t));
		c->rmb_mv = malloc(nl * S * c->rm_nh * sizeof(uint16_t));
		c->rmb_tot = calloc(nl * S * c->rm_n + 1, sizeof(uint32_t));
		c->rm_ns = t->nspine_hosts;
		if (t->nleaf_hosts + t->ninside + c->rm_ns > t->nends)
			c->rm_ns = 0;
		c->rmb_sp = malloc((nl * S * c->rm_ns + 1) * sizeof(uint16_t));
		if (c->rmb_x && c->rmb_mv) {
			memset(c->rmb_x, 0xff, nl * S * c->rm_nh * sizeof(uint32_t));
			memset(c->rmb_mv, 0xff, nl * S * c->rm_nh * sizeof(uint16_t));
		}
	}
	if (c->hx0 && c->hx1)
		for (uint32_t i = 0; i < t->nleaf_hosts && i < t->nends; i++) {
			const struct ibf_ftree_end *en = &t->ends[i];
			if (!c->hx1[en->sw])
				c->hx0[en->sw] = en->index;
			c->hx1[en->sw] = en->index + 1;
		}
	*eoff = calloc((size_t)S + 1, sizeof(uint32_t));
	*elist = malloc((t->nends ? t->nends : 1) * sizeof(uint32_t));
	if (!c->anc || !c->reach || !c->chain || !c->chain_port || !c->nxt || !c->fdist ||
	    !c->fnext || !c->queue || !c->bylevel || !c->moved_missing || !c->moved_other ||
	    !c->deal || !c->dlb || !c->lrw || !c->lrch || !c->cdeal || !c->cstamp || !c->hopbuf || !c->stack ||
	    !*eoff || !*elist || !c->below || !c->below_par || !c->rmb_slot || !c->rmb_cab ||
	    !c->rm_kslot || !c->rmb_roff || !c->rm_ksl || !c->rm_pd || !c->hx0 || !c->hx1 ||
	    (c->rm_nh && (!c->rmb_x || !c->rmb_mv || !c->rmb_tot || !c->rmb_sp)) || bundles(c))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (spine_layers(c))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	rm_layer(c, 0);
	c->dload = c->dlb;
	c->doff = c->dlb + 256;
	uint32_t k = 0; /* highest level first */
	for (int l = t->levels; l >= 1; l--)
		for (uint32_t s = 0; s < S; s++)
			if (t->level[s] == l)
				c->bylevel[k++] = s;
	group_by_switch(t->ends, sizeof(*t->ends), offsetof(struct ibf_ftree_end, sw), t->nends, S,
			*eoff, *elist, c->queue);
	return 0;
}

static void dk_free(struct dk *c)
{
	free(c->anc);
	free(c->reach);
	free(c->chain);
	free(c->chain_port);
	free(c->nxt);
	free(c->fdist);
	free(c->fnext);
	free(c->queue);
	free(c->bylevel);
	free(c->moved_missing);
	free(c->moved_other);
	free(c->deal);
	free(c->dlb);
	free(c->spx);
	free(c->lrw);
	free(c->lrch);
	free(c->cdeal);
	free(c->cstamp);
	free(c->hopbuf);
	free(c->stack);
	free(c->below);
	free(c->below_par);
	free(c->pres);
	free(c->wgt);
	free(c->pres_off);
	free(c->pres_n);
	free(c->pnom);
	free(c->dealt);
	free(c->rmb_slot);
	free(c->rmb_cab);
	free(c->rm_kslot);
	free(c->rmb_roff);
	free(c->rm_ksl);
	free(c->rm_pd);
	free(c->hx0);
	free(c->hx1);
	free(c->rmb_x);
	free(c->rmb_mv);
	free(c->rmb_tot);
	free(c->rmb_sp);
}

/* The D-mod-K index of LID offset j of an end port with index x (L LIDs),
 * and the level offsets its layer uses. */
static uint64_t layer_index(const struct dk *c, uint64_t x, uint32_t j, uint32_t L, uint32_t *off)
{
	if (c->d->layer_rule == IBF_DMODK_LAYER_INTERLEAVE) {
		layer_offsets(c->t, 0, 1, off);
		return x * L + j;
	}
	layer_offsets(c->t, j, L, off);
	if (c->nsp && j && L > 1 && L <= c->nlayers && x >= c->spx[0]) {
		/* a host on a spine: its own index in this layer (spine_layers) */
		uint32_t lo = 0, hi = c->nsp;
		while (lo < hi) {
			uint32_t m = (lo + hi) / 2;
			if (c->spx[m] < x)
				lo = m + 1;
			else
				hi = m;
		}
		if (lo < c->nsp && c->spx[lo] == x)
			return c->spx[(size_t)(L - 1 + j) * c->nsp + lo];
	}
	return x;
}

/* Hosts on the spines of a 2-level tree, per LMC layer.  Such a host is
 * routed as if on a virtual leaf below its spine s: its index is the next
 * free one whose leaf slot names s (ibf_ftree_build), so every leaf sends
 * it straight up a bundle to s, spread over the bundle like any other
 * destination.  Layer j reads the slots rotated by off_1(j); where that
 * rotation does not map s's slots onto s's slots (bundles of different
 * sizes: 3 cables to one spine and 2 to the other on 5 slots), the layer's
 * slot of the host names another spine, and the leaves reach s by the
 * spread of pick_toward instead, which put both ports of a dual-port host
 * on one cable (4 flows on it in a shift where layer 0 has 3).  So each
 * layer numbers these hosts afresh, by the same rule on its own rotated
 * slots: index x in layer j with slot (x + off_1(j)) mod n naming s, the
 * next free one in the order of layer 0.  Row L - 1 + j of spx holds layer
 * j of L (row 0: layer 0, the ends' own indices, sorted). */
static int spine_layers(struct dk *c)
{
	const struct ibf_ftree *t = c->t;
	uint32_t k0 = t->nleaf_hosts + t->ninside, ns = t->nspine_hosts;
	if (t->levels != 2 || !ns || c->nlayers < 2 || k0 + ns > t->nends ||
	    c->d->layer_rule != IBF_DMODK_LAYER_ROTATE)
		return 0;
	for (uint32_t k = 1; k < ns; k++)
		if (t->ends[k0 + k].index <= t->ends[k0 + k - 1].index)
			return 0; /* not in index order: leave them alone */
	c->spx = malloc((size_t)(2 * c->nlayers - 1) * ns * sizeof(uint64_t));
	if (!c->spx)
		return -1;
	c->nsp = ns;
	for (uint32_t L = 1; L <= c->nlayers; L *= 2)
		for (uint32_t j = 0; j < L; j++) {
			uint64_t *row = c->spx + (size_t)(L - 1 + j) * ns;
			uint32_t off[IBF_FTREE_MAX_LEVELS + 2];
			layer_offsets(t, j, L, off);
			uint64_t next = (uint64_t)t->nslots + t->ninside;
			for (uint32_t k = 0; k < ns; k++) {
				const struct ibf_ftree_end *en = &t->ends[k0 + k];
				uint64_t x = next;
				if (!j) {
					x = en->index;
				} else {
					uint32_t a = 0, n = 0;
					for (uint32_t v = 0; v < t->nleaves && !n; v++) {
						uint32_t lf = t->leaves[v];
						for (uint32_t g = t->slot_off[lf];
						     g < t->slot_off[lf + 1]; g++)
							if (t->slot_par[g] == en->sw) {
								a = t->slot_off[lf];
								n = t->slot_off[lf + 1] - a;
								break;
							}
					}
					for (uint32_t i = 0; n && i < n; i++, x++)
						if (t->slot_par[a + (x + off[1]) % n] == en->sw)
							break;
				}
				row[k] = x;
				next = x + 1;
			}
		}
	return 0;
}

/* the down loads of layer j (chain_loads, pick_down).  On a 2-level tree
 * that lost a cable or has hosts on a spine each layer counts its own (dln
 * = 2^LMC): a layer is a pattern of its own, and with one count over all
 * of them the off-chain spines of layer 0 chose their down cables by the
 * other layers' chains too, so that layer 0 at LMC 1 was busier than LMC 0
 * (5 against 4 on the 2014-like tree).  So also on a damaged tree of 3+
 * levels (layers_alt).  Elsewhere one count over all the layers, as
 * before: on a complete tree no host traffic reaches an off-chain spine. */
static void dl_layer(struct dk *c, uint32_t j)
{
	uint32_t k = j < c->dln ? j : c->dln - 1;
	c->dload = c->dlb + (size_t)k * 512;
	c->doff = c->dload + 256;
}

/* The chains' cables out of dsw, before any off-chain choice: the up port
 * every LID of dsw's end ports would take from dsw itself. */
static void chain_loads(struct dk *c, uint32_t dsw, const uint32_t *eoff, const uint32_t *elist)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_ftree *t = c->t;
	uint32_t off[IBF_FTREE_MAX_LEVELS + 2];
	uint32_t deal[128]; /* per layer, as the chain will deal in column() */
	memset(deal, 0, sizeof(deal)); /* chain_counter starts at 0 */
	memset(c->dlb, 0, (size_t)c->dln * 512 * sizeof(uint32_t));
	for (uint32_t k = eoff[dsw]; k < eoff[dsw + 1]; k++) {
		const struct ibf_ftree_end *en = &t->ends[elist[k]];
		const struct ibf_port *pp = ibf_port(f, en->node, en->port);
		uint32_t L = 1u << pp->lmc;
		for (uint32_t j = 0; j < L && pp->lid; j++) {
			uint64_t xx = layer_index(c, en->index, j, L, off);
			c->lbase = en->index;
			c->lj = j;
			c->lL = L;
			rm_select(c);
			dl_layer(c, j);
			uint32_t e = pick_chain(c, dsw, xx, off, c->anc, 0, &deal[j < 128 ? j : 127]);
			if (e != NOSW)
				c->dload[f->adj[e].lport]++;
		}
	}
}

/* Every LID behind destination switch dsw (its end ports, then dsw's own
 * LIDs with index xsw0 + GUID rank, which carry no data traffic): one
 * column each.  Returns the largest LMC of an end port seen. */
static int route_dest_switch(struct dk *c, uint32_t dsw, const uint32_t *eoff,
			     const uint32_t *elist, uint64_t xsw0)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_ftree *t = c->t;
	uint32_t off[IBF_FTREE_MAX_LEVELS + 2];
	int maxlmc = 0;
	for (uint32_t k = eoff[dsw]; k <= eoff[dsw + 1]; k++) {
		int node, port;
		uint8_t tport;
		uint64_t x;
		int count = 1;
		if (k < eoff[dsw + 1]) {
			const struct ibf_ftree_end *en = &t->ends[elist[k]];
			node = en->node;
			port = en->port;
			tport = en->swport;
			x = en->index;
		} else {
			node = f->switches[dsw];
			port = 0;
			tport = 0;
			x = xsw0 + t->rank[dsw];
			count = 0; /* switch LIDs carry no data traffic */
		}
		const struct ibf_port *pp = ibf_port(f, node, port);
		if (!pp->lid)
			continue;
		int lmc = pp->lmc;
		if (lmc > maxlmc && port)
			maxlmc = lmc;
		uint32_t L = 1u << lmc;
		for (uint32_t j = 0; j < L; j++) {
			uint32_t lid = pp->lid + j;
			if (lid > c->r->max_lid)
				break;
			uint64_t xx = layer_index(c, x, j, L, off);
			c->lbase = x;
			c->lj = j;
			c->lL = L;
			rm_select(c);
			dl_layer(c, j);
			column(c, dsw, tport, xx, off, lid, j, count);
		}
	}
	return maxlmc;
}

/* What changed on an irregular tree: switches with missing up-port cables
 * (the first 16 by name), chain steps moved to better-cabled parents,
 * entries moved off parents without a down path, shortest-path fallbacks. */
static void log_irregular(struct dk *c)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_ftree *t = c->t;
	uint32_t nmiss = 0;
	for (uint32_t s = 0; s < c->S; s++) {
		uint32_t n = t->slot_off[s + 1] - t->slot_off[s], m = 0;
		for (uint32_t i = t->slot_off[s]; i < t->slot_off[s + 1]; i++)
			if (t->slot[i] == IBF_FTREE_MISSING)
				m++;
		if (!m)
			continue;
		if (++nmiss > 16)
			continue;
		char nm[96], slots[256];
		size_t u = 0;
		slots[0] = '\0';
		for (uint32_t i = t->slot_off[s]; i < t->slot_off[s + 1] && u < sizeof(slots); i++)
			if (t->slot[i] == IBF_FTREE_MISSING) {
				int w = snprintf(slots + u, sizeof(slots) - u, "%s%u", u ? "," : "",
						 i - t->slot_off[s]);
				if (w > 0)
					u += (size_t)w;
			}
		log_msg(c, IBF_LOG_INFO,
			"dmodk: %s (level %u) has %u of %u up-port cables (missing slot%s %s); %llu "
			"destination LID%s moved off them: %llu to the surviving cables to the same "
			"parent, %llu moved to the other usable slots",
			ibf_ftree_swname(f, s, nm, sizeof(nm)), t->level[s], n - m, n,
			m == 1 ? "" : "s", slots, (unsigned long long)c->moved_missing[s],
			c->moved_missing[s] == 1 ? "" : "s",
			(unsigned long long)(c->moved_missing[s] - c->moved_other[s]),
			(unsigned long long)c->moved_other[s]);
	}
	if (nmiss > 16)
		log_msg(c, IBF_LOG_INFO,
			"dmodk: ... %u switches with missing up-port cables in all", nmiss);
	if (c->chain_weighted)
		log_msg(c, IBF_LOG_INFO,
			"dmodk: %llu destination chain steps moved to a parent with more surviving "
			"up-cables (parents weighted by their uplinks)",
			(unsigned long long)c->chain_weighted);
	if (c->moved_unusable)
		log_msg(c, IBF_LOG_INFO,
			"dmodk: %llu (switch, LID) entries moved off a parent that has no down path "
			"to the destination",
			(unsigned long long)c->moved_unusable);
	if (c->fallback)
		log_msg(c, IBF_LOG_INFO,
			"dmodk: %llu (switch, LID) entries towards %u destination switch%s have no "
			"up-then-down route and take a shortest path to one",
			(unsigned long long)c->fallback, c->fallback_dests,
			c->fallback_dests == 1 ? "" : "es");
}

/* every destination switch's LIDs, in switch order; the largest LMC of an
 * end port */
static int route_all(struct dk *c, const uint32_t *eoff, const uint32_t *elist, uint64_t xsw0)
{
	int maxlmc = 0;
	for (uint32_t dsw = 0; dsw < c->S; dsw++) {
		c->rcur++;
		uint32_t nout = 0;
		regions(c, dsw, &nout);
		c->rm_p = c->rm_pd[dsw];
		c->rm_on = c->rm_p != 0;
		c->rm_dsw = c->rm_on ? dsw : NOSW;
		chain_loads(c, dsw, eoff, elist);
		if (nout)
			c->fallback_dests++;
		int lmc = route_dest_switch(c, dsw, eoff, elist, xsw0);
		if (lmc > maxlmc)
			maxlmc = lmc;
	}
	return maxlmc;
}

/* flows the check of the closed-slot tables may trace per routing: all
 * shifts of N hosts are N (N - 1) flows per layer */
#define RM_CHECK_FLOWS ((uint64_t)1 << 24)

/* the closed-slot tables are in use (some leaf has one) and small enough
 * to be checked (rm_check) */
static int rm_guarded(const struct dk *c)
{
	const struct ibf_ftree *t = c->t;
	int any = 0;
	for (uint32_t s = 0; s < c->S && !any; s++)
		any = c->rm_pd[s] != 0;
	uint64_t N = (uint64_t)t->nleaf_hosts + t->nspine_hosts;
	return any && (uint64_t)c->nrl * N * N <= RM_CHECK_FLOWS;
}

/* The closed-slot tables are heuristics: on some damaged trees a layer
 * routed by them has a busier worst shift than the same layer by the
 * dealing counters.  Each layer's worst shift load (all shifts, the tree
 * order of route congestion) is taken both ways, and a layer whose
 * counters are strictly better takes its LIDs' columns from r2 (each
 * column is a complete routing of its LID on its own, so columns of the
 * two may be mixed). */
static void rm_take_back(struct dk *c, const struct ibf_routes *r2, const uint8_t *back,
			 int node, int port);

static int rm_check(struct dk *c, const struct ibf_routes *r2, struct ibf_error *err)
{
	const struct ibf_fabric *f = c->f;
	const struct ibf_ftree *t = c->t;
	struct ibf_routes *r = c->r;
	uint8_t back[128];
	uint32_t wa[128], wb[128], nback = 0;
	memset(back, 0, sizeof(back));
	for (uint32_t j = 0; j < c->nrl && j < 128; j++) {
		struct ibf_cong_opts o;
		struct ibf_cong_report ra, rb;
		ibf_cong_opts_default(&o);
		o.pattern = IBF_CONG_SHIFT_ALL;
		o.layer = (int)j;
		int rc = ibf_congestion(f, r, &o, &ra, err);
		if (rc)
			return rc;
		rc = ibf_congestion(f, r2, &o, &rb, err);
		if (rc) {
			ibf_cong_report_free(&ra);
			return rc;
		}
		wa[j] = ra.worst;
		wb[j] = rb.worst;
		back[j] = rb.worst < ra.worst && !rb.unrouted;
		nback += back[j];
		ibf_cong_report_free(&ra);
		ibf_cong_report_free(&rb);
	}
	if (!nback)
		return 0;
	for (uint32_t i = 0; i < t->nends; i++)
		rm_take_back(c, r2, back, t->ends[i].node, t->ends[i].port);
	for (uint32_t s = 0; s < c->S; s++)
		rm_take_back(c, r2, back, f->switches[s], 0);
	char buf[256];
	size_t u = 0;
	buf[0] = '\0';
	for (uint32_t j = 0; j < c->nrl && j < 128 && u < sizeof(buf); j++)
		if (back[j]) {
			int w = snprintf(buf + u, sizeof(buf) - u, "%s%u (%u against %u)",
					 u ? ", " : "", j, wb[j], wa[j]);
			if (w > 0)
				u += (size_t)w;
		}
	log_msg(c, IBF_LOG_INFO,
		"dmodk: the closed-slot tables gave a busier worst shift than the dealing "
		"counters in layer%s %s: %s routed by the counters",
		nback == 1 ? "" : "s", buf, nback == 1 ? "it is" : "they are");
	return 0;
}

/* the LIDs of port (node, port) in the layers taken back (rm_select's
 * layer of each) get r2's columns */
static void rm_take_back(struct dk *c, const struct ibf_routes *r2, const uint8_t *back,
			 int node, int port)
{
	struct ibf_routes *r = c->r;
	const struct ibf_port *pp = ibf_port(c->f, node, port);
	if (!pp->lid)
		return;
	c->lL = 1u << pp->lmc;
	for (uint32_t j = 0; j < c->lL; j++) {
		uint32_t lid = pp->lid + j;
		c->lj = j;
		rm_select(c);
		if (lid > r->max_lid || c->rm_lay < 0 || c->rm_lay >= 128 || !back[c->rm_lay])
			continue;
		for (uint32_t s = 0; s < c->S; s++) {
			size_t k = (size_t)s * r->stride + lid;
			r->lft[k] = r2->lft[(size_t)s * r2->stride + lid];
			if (r->hops && r2->hops)
				r->hops[k] = r2->hops[(size_t)s * r2->stride + lid];
		}
	}
}

/* ------------------------------------------------------------------
 * Leaf repair on damaged trees of 3 or more levels (and on damaged
 * 2-level trees, see damaged2).
 *
 * The dealing counters move a closed slot's destinations without looking
 * at what the cables already carry, and a source leaf follows the
 * destination's chain into its plane even when it reaches that plane by
 * fewer cables than the destination's chain sends there: on
 * XGFT(3;16,4,4;1,4,4) with 2 cables per pair and 10 % of the cables cut,
 * a leaf that kept one cable to a level-2 switch put 8 flows of one shift
 * on it where the shift's up/down bound is 4.  The repair works on the
 * finished tables, per LMC layer, with the flows of every shift counted
 * per directed link (the pattern and host order of route congestion): a
 * leaf's up entry towards a destination host is moved to another of its
 * up-cables when the flows of that entry (one per host of the leaf, each
 * in its own shift) take some (shift, link) off the layer's worst load W
 * and none of them reaches W on the new path.  When no such move is left,
 * one pass also takes moves that bring some counters to W but take more
 * off it, and the up entries of level-2 switches (the flows of the leaves
 * below that climb through them: they change the top switch, so the links
 * above level 2) move by the same rules.  So the worst never rises and the
 * (shift, link) at W become strictly fewer with every move, which ends the
 * passes; at none, W drops by one and the repair goes on, until W is down
 * to what the leaves' own cables force (lr_floor).  Only up entries move,
 * to a cable whose switch routes the destination up and then down (its own
 * column is kept), so every path stays up/down and the column loop-free;
 * a parent that routes the LID down through the moving switch (a shortest
 * path fallback) blocks the move only when some host's flow of the layer
 * is not up/down, as no other flow can take that turn.  Nothing runs on a
 * complete tree. */

/* The counters are link-major, [link][shift - 1] with the row padded to an
 * even length, so the flows of one leaf entry (consecutive shifts when the
 * leaf's hosts are consecutive) sit side by side.  They are 4 bits wide,
 * or 8 or 16 when the tables put more flows of one shift on a link: the
 * repair never raises any counter above the worst, so the width the first
 * count needs holds for the whole layer.  At most this many bytes: */
#define LR_MAX_BYTES ((uint64_t)1 << 27)
#define LR_PATH 32
#define LR_HB 64
/* destinations per block of the count */
#define LR_BLOCK 64
#define LR_NOLINK (-1) /* no cable, or not a switch-to-switch link */
#define LR_CA (-2)     /* a CA behind the port */

struct lrep {
	const struct ibf_fabric *f;
	const struct ibf_ftree *t;
	struct ibf_routes *r;
	uint32_t N, E, R;    /* hosts, directed switch links, counters per link */
	struct ibf_endport *h;
	uint32_t *dlid, *hoff, *hlist; /* dlid per host; hosts per switch (CSR) */
	uint32_t *src;		       /* scratch [N]: the hosts whose flows an entry carries */
	int32_t *pl;	     /* per switch port (port_off + port): link, LR_CA or LR_NOLINK */
	int bits;	     /* counter width: 4, 8 or 16 */
	uint32_t vmax;	     /* the largest value a counter holds */
	int over;	     /* a count went past vmax */
	uint8_t *c8;	     /* the counters, (E * R * bits / 8) bytes */
	uint32_t *hot;	     /* per link: its counters at W */
	uint16_t *hotb;	     /* per link and block of LR_HB shifts: its counters at W */
	uint32_t NB;	     /* blocks per link */
	uint32_t W;	     /* the worst load */
	uint32_t W0;	     /* the worst load before the repair */
	uint64_t nat;	     /* (shift, link) at W */
	uint64_t moved2;     /* level-2 entries moved in the layer */
	int offud;	     /* some host's flow is not on an up/down path */
	int relax;	     /* moves may bring counters to W (fewer at W in all) */
	/* the two-step moves */
	uint64_t nover;	     /* (shift, link) above W, between the two steps */
	uint32_t *src2;	     /* scratch [N]: the hosts of the first step's entry */
	uint32_t *mark, *stk; /* per switch: a stamp, and a stack */
	uint32_t stamp;
	uint64_t budget;     /* first steps a pass may still try */
	uint64_t npair;	     /* two-step moves made in the layer */
	/* the chains of moves (lr_chain) */
	uint32_t *csrc;	     /* scratch [LR_CHAIN][N]: the hosts of each step's entry */
	struct lr_step *chain; /* [LR_CHAIN]: the steps made */
	int nchain;
	uint64_t cnat0;	     /* (shift, link) at W before the chain */
	uint64_t nchains;    /* chains kept in the layer */
	int downk;	     /* lr_through lists level-2 switches' down entries too */
	uint64_t moveddn;    /* level-2 down entries moved in the layer */
	uint64_t cbudget;    /* moves the chains may still try at this W */
	uint32_t wkeep;	     /* chains stay only when they end below this W too */
	uint8_t *snap;	     /* the level-1 and level-2 columns of the layer (and hop counts) */
	int sepl;	     /* no move to a parent another layer of the destination takes */
};

static inline uint32_t lr_get(const struct lrep *q, size_t i)
{
	switch (q->bits) {
	case 4:
		return (uint32_t)(q->c8[i >> 1] >> ((i & 1) << 2)) & 15u;
	case 8:
		return q->c8[i];
	default:
		return ((const uint16_t *)(const void *)q->c8)[i];
	}
}

static inline void lr_inc(struct lrep *q, size_t i)
{
	uint32_t v = lr_get(q, i);
	if (v >= q->vmax) {
		q->over = 1;
		return;
	}
	switch (q->bits) {
	case 4:
		q->c8[i >> 1] = (uint8_t)(q->c8[i >> 1] + (1u << ((i & 1) << 2)));
		break;
	case 8:
		q->c8[i]++;
		break;
	default:
		((uint16_t *)(void *)q->c8)[i]++;
	}
}

static inline void lr_dec(struct lrep *q, size_t i)
{
	switch (q->bits) {
	case 4:
		q->c8[i >> 1] = (uint8_t)(q->c8[i >> 1] - (1u << ((i & 1) << 2)));
		break;
	case 8:
		q->c8[i]--;
		break;
	default:
		((uint16_t *)(void *)q->c8)[i]--;
	}
}

/* the counter of (link e, shift cs) */
static inline size_t lr_cell(const struct lrep *q, uint32_t e, uint32_t cs)
{
	return (size_t)e * q->R + (cs - 1);
}

/* the links from switch s to host b by the tables; -1 if b is not
 * reached, -2 if the path is not strictly up and then strictly down */
static int lr_path(const struct lrep *q, uint32_t s, uint32_t b, uint32_t *p)
{
	const struct ibf_fabric *f = q->f;
	uint32_t lid = q->dlid[b];
	int n = 0, down = 0;
	for (int steps = 0; steps < LR_PATH; steps++) {
		uint8_t port = ibf_lft(q->r, s)[lid];
		int node = f->switches[s];
		if (port == IBF_LFT_NONE || port == 0 || port > f->nodes[node].nports)
			return -1;
		int32_t e = q->pl[f->nodes[node].port_off + port];
		if (e == LR_CA) {
			const struct ibf_port *pp = ibf_port(f, node, port);
			return pp->peer_node == q->h[b].node && pp->peer_port == q->h[b].port ? n
												  : -1;
		}
		if (e < 0)
			return -1;
		uint32_t nb = f->adj[e].nbr;
		if (q->t->level[nb] > q->t->level[s]) {
			if (down)
				return -2;
		} else if (q->t->level[nb] + 1 == q->t->level[s]) {
			down = 1;
		} else {
			return -2;
		}
		p[n++] = (uint32_t)e;
		s = nb;
	}
	return -1;
}

static int lr_has(const uint32_t *p, int n, uint32_t e)
{
	for (int i = 0; i < n; i++)
		if (p[i] == e)
			return 1;
	return 0;
}

/* the worst load, how many (shift, link) carry it, and per link and per
 * block of its counters how many of them do */
static void lr_worst(struct lrep *q)
{
	uint8_t mx[256];
	for (uint32_t x = 0; x < 256; x++)
		mx[x] = (uint8_t)((x & 15) > (x >> 4) ? (x & 15) : (x >> 4));
	q->W = 0;
	q->nat = 0;
	for (uint32_t e = 0; e < q->E; e++) { /* each link's own worst first */
		size_t i0 = (size_t)e * q->R, i1 = i0 + q->R;
		uint32_t w = 0;
		if (q->bits == 4) {
			const uint8_t *c = q->c8 + i0 / 2;
			for (size_t i = 0; i < q->R / 2; i++)
				w = mx[c[i]] > w ? mx[c[i]] : w;
		} else {
			for (size_t i = i0; i < i1; i++) {
				uint32_t v = lr_get(q, i);
				w = v > w ? v : w;
			}
		}
		q->hot[e] = w;
		q->W = w > q->W ? w : q->W;
	}
	memset(q->hotb, 0, (size_t)q->E * q->NB * sizeof(uint16_t));
	for (uint32_t e = 0; e < q->E; e++) {
		if (!q->W || q->hot[e] != q->W) {
			q->hot[e] = 0;
			continue;
		}
		size_t i0 = (size_t)e * q->R;
		uint32_t n = 0;
		for (uint32_t i = 0; i < q->R; i++)
			if (lr_get(q, i0 + i) == q->W) {
				n++;
				q->hotb[(size_t)e * q->NB + i / LR_HB]++;
			}
		q->hot[e] = n;
		q->nat += n;
	}
}

/* some counter of link e at W among the shifts of the hosts src[0..ns)
 * towards b */
static int lr_hot(const struct lrep *q, const uint32_t *src, uint32_t ns, uint32_t b, uint32_t e)
{
	if (!q->hot[e])
		return 0;
	const uint16_t *hb = q->hotb + (size_t)e * q->NB;
	for (uint32_t k = 0; k < ns; k++) {
		uint32_t cs = (b + q->N - src[k]) % q->N;
		if (cs && hb[(cs - 1) / LR_HB])
			return 1;
	}
	return 0;
}

/* What moving the flows of the hosts src[0..ns) towards b from path po to
 * path pn does to the counters (a link both paths share keeps its flow). */
struct lr_eff {
	uint32_t score, sum; /* the highest new count on the new path, their sum */
	int64_t rem, add;    /* (shift, link) that leave W, that reach it */
	int64_t orem, oadd;  /* that leave W + 1, that reach it */
};

/* the effect of the move; stops early (score is then above cap) once some
 * new count is above cap */
static void lr_eval(const struct lrep *q, const uint32_t *src, uint32_t ns, uint32_t b,
		    const uint32_t *po, int no, const uint32_t *pn, int nn, uint32_t cap,
		    struct lr_eff *x)
{
	uint32_t N = q->N, W = q->W;
	memset(x, 0, sizeof(*x));
	for (uint32_t k = 0; k < ns && x->score <= cap; k++) {
		uint32_t a = src[k], cs = (b + N - a) % N;
		if (!cs)
			continue;
		for (int i = 0; i < no; i++)
			if (!lr_has(pn, nn, po[i])) {
				uint32_t v = lr_get(q, lr_cell(q, po[i], cs));
				x->rem += v == W;
				x->orem += v == W + 1;
			}
		for (int i = 0; i < nn; i++)
			if (!lr_has(po, no, pn[i])) {
				uint32_t v = lr_get(q, lr_cell(q, pn[i], cs)) + 1u;
				x->sum += v;
				x->add += v == W;
				x->oadd += v == W + 1;
				if (v > x->score)
					x->score = v;
			}
	}
}

static int pb_other_layer(const struct lrep *q, uint32_t s, uint32_t b, uint32_t j, uint32_t m);
/* parent m of switch s is not the one s takes towards host b's LID in the
 * current layer, and another layer of that host takes it from s */
static int lr_sepl(const struct lrep *q, uint32_t s, uint32_t b, uint32_t m)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_port *pp = ibf_port(f, q->h[b].node, q->h[b].port);
	if (!pp->lmc || q->dlid[b] < pp->lid)
		return 0;
	int node = f->switches[s];
	uint8_t pt = ibf_lft(q->r, s)[q->dlid[b]];
	if (pt != IBF_LFT_NONE && pt && pt <= f->nodes[node].nports) {
		int32_t x = f->port_adj[f->nodes[node].port_off + pt];
		if (x >= 0 && (uint32_t)f->adj[x].nbr == m)
			return 0;
	}
	return pb_other_layer(q, s, b, q->dlid[b] - pp->lid, m);
}

/* the path from switch s to b by its up-cable e (pn[0] = e): its length,
 * or -1 when e does not go up or its switch has no up/down path to b (or,
 * with sepl, when another layer of b takes e's parent from s) */
static int lr_alt(const struct lrep *q, uint32_t s, uint32_t b, uint32_t e, uint32_t *pn)
{
	uint32_t m = q->f->adj[e].nbr;
	if (q->t->level[m] != q->t->level[s] + 1)
		return -1;
	if (q->sepl && lr_sepl(q, s, b, m))
		return -1;
	pn[0] = e;
	int nn = lr_path(q, m, b, pn + 1);
	if (nn < 0 || nn + 1 >= LR_PATH)
		return -1;
	return nn + 1;
}

/* a parent of s routing lid down through s: s carries transit flows, which
 * some host's flow may take when not every flow is up/down (the move of
 * s's entry is then not made) */
static int lr_transit(const struct lrep *q, uint32_t s, uint32_t lid)
{
	const struct ibf_fabric *f = q->f;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1] && q->offud; e++) {
		uint32_t m = f->adj[e].nbr;
		if (q->t->level[m] <= q->t->level[s])
			continue;
		uint8_t pt = ibf_lft(q->r, m)[lid];
		int node = f->switches[m];
		if (pt != IBF_LFT_NONE && pt && pt <= f->nodes[node].nports) {
			int32_t x = f->port_adj[f->nodes[node].port_off + pt];
			if (x >= 0 && f->adj[x].nbr == s)
				return 1;
		}
	}
	return 0;
}

/* one counter up or down, with the tallies of those at W (and the number
 * above W, which only the first step of a two-step move leaves for a
 * while) */
static void lr_dec_t(struct lrep *q, uint32_t e, uint32_t cs)
{
	size_t ci = lr_cell(q, e, cs);
	uint32_t v = lr_get(q, ci);
	if (v == q->W) {
		q->nat--;
		q->hot[e]--;
		q->hotb[(size_t)e * q->NB + (cs - 1) / LR_HB]--;
	} else if (v == q->W + 1) {
		q->nover--;
	}
	lr_dec(q, ci);
}

static void lr_inc_t(struct lrep *q, uint32_t e, uint32_t cs)
{
	size_t ci = lr_cell(q, e, cs);
	lr_inc(q, ci);
	uint32_t v = lr_get(q, ci);
	if (v == q->W) {
		q->nat++;
		q->hot[e]++;
		q->hotb[(size_t)e * q->NB + (cs - 1) / LR_HB]++;
	} else if (v == q->W + 1) {
		q->nover++;
	}
}

/* move switch s's entry towards b, whose flows are those of the hosts
 * src[0..ns), from path po to path pn: the counters, and the entry set to
 * pn's first cable with its hop count one more than the next switch's */
static void lr_apply(struct lrep *q, uint32_t s, uint32_t b, const uint32_t *src, uint32_t ns,
		     const uint32_t *po, int no, const uint32_t *pn, int nn)
{
	const struct ibf_fabric *f = q->f;
	uint32_t N = q->N, lid = q->dlid[b];
	for (uint32_t k = 0; k < ns; k++) {
		uint32_t a = src[k], cs = (b + N - a) % N;
		if (!cs)
			continue;
		for (int i = 0; i < no; i++)
			if (!lr_has(pn, nn, po[i]))
				lr_dec_t(q, po[i], cs);
		for (int i = 0; i < nn; i++)
			if (!lr_has(po, no, pn[i]))
				lr_inc_t(q, pn[i], cs);
	}
	uint32_t m = f->adj[pn[0]].nbr;
	ibf_lft(q->r, s)[lid] = f->adj[pn[0]].lport;
	if (q->r->hops) {
		uint8_t hm = q->r->hops[(size_t)m * q->r->stride + lid];
		q->r->hops[(size_t)s * q->r->stride + lid] = hm >= 254 ? hm : (uint8_t)(hm + 1);
	}
}

/* try to move switch s's up entry towards host b, whose flows through s
 * are those of the hosts src[0..ns); 1 if moved */
static int lr_move(struct lrep *q, uint32_t s, uint32_t b, const uint32_t *src, uint32_t ns,
		   const uint32_t *po, int no)
{
	const struct ibf_fabric *f = q->f;
	uint32_t N = q->N;
	uint32_t pn[LR_PATH], best[LR_PATH];
	/* some flow of the entry on a link at W: first whether a link of the
	 * path has any counter at W at all */
	int gain = 0;
	for (int i = 0; i < no && !gain; i++)
		gain = lr_hot(q, src, ns, b, po[i]);
	if (!gain)
		return 0;
	gain = 0;
	for (uint32_t k = 0; k < ns && !gain; k++) {
		uint32_t a = src[k], cs = (b + N - a) % N;
		if (!cs)
			continue;
		for (int i = 0; i < no && !gain; i++)
			gain = lr_get(q, lr_cell(q, po[i], cs)) == q->W;
	}
	if (!gain || lr_transit(q, s, q->dlid[b]))
		return 0;
	uint32_t bscore = UINT32_MAX, bsum = UINT32_MAX, be = NOSW;
	int64_t bnet = 0;
	int nb = 0;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		if (e == po[0])
			continue;
		int nn = lr_alt(q, s, b, e, pn);
		if (nn < 0)
			continue;
		struct lr_eff x;
		lr_eval(q, src, ns, b, po, no, pn, nn, q->W, &x);
		uint32_t score = x.score, sum = x.sum;
		if (score > q->W || x.rem <= x.add || (score == q->W && !q->relax))
			continue;
		int64_t net = x.add - x.rem;
		int better;
		if ((score < q->W) != (bscore < q->W))
			better = score < q->W;
		else if (score < q->W)
			better = score < bscore || (score == bscore && sum < bsum);
		else
			better = net < bnet || (net == bnet && sum < bsum);
		if (better) {
			bnet = net;
			bscore = score;
			bsum = sum;
			be = e;
			memcpy(best, pn, (size_t)nn * sizeof(uint32_t));
			nb = nn;
		}
	}
	if (be == NOSW)
		return 0;
	lr_apply(q, s, b, src, ns, po, no, best, nb);
	return 1;
}

/* switch s's path towards b when it starts with an up-cable: its length,
 * else 0 */
static int lr_upath(const struct lrep *q, uint32_t s, uint32_t b, uint32_t *po)
{
	int no = lr_path(q, s, b, po);
	if (no < 1 || q->t->level[q->f->adj[po[0]].nbr] <= q->t->level[s])
		return 0;
	return no;
}

/* the hosts whose flows switch s's entry towards b carries, into src; their
 * number.  A leaf's (lev 1): its own hosts.  A level-2 switch's: its own
 * hosts and those of every leaf below it whose entry towards b is a cable
 * to it. */
static uint32_t lr_src(const struct lrep *q, int lev, uint32_t s, uint32_t b, uint32_t *src)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	uint32_t ns = 0, lid = q->dlid[b];
	for (uint32_t k = q->hoff[s]; k < q->hoff[s + 1]; k++)
		src[ns++] = q->hlist[k];
	if (lev == 1)
		return ns;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		uint32_t u = f->adj[e].nbr;
		if (t->level[u] + 1 != t->level[s] || q->hoff[u] == q->hoff[u + 1])
			continue;
		uint8_t pt = ibf_lft(q->r, u)[lid];
		int node = f->switches[u];
		if (pt == IBF_LFT_NONE || !pt || pt > f->nodes[node].nports)
			continue;
		int32_t x = q->pl[f->nodes[node].port_off + pt];
		/* the leaf's cable is this one: each leaf once, by its own cable */
		if (x < 0 || f->adj_rev[x] != e)
			continue;
		for (uint32_t k = q->hoff[u]; k < q->hoff[u + 1]; k++)
			src[ns++] = q->hlist[k];
	}
	return ns;
}

/* leaf s's entry towards b: the flows of its own hosts */
static int lr_try(struct lrep *q, uint32_t s, uint32_t b)
{
	uint32_t po[LR_PATH];
	int no = lr_upath(q, s, b, po);
	if (!no)
		return 0;
	return lr_move(q, s, b, q->hlist + q->hoff[s], q->hoff[s + 1] - q->hoff[s], po, no);
}

/* a level-2 switch m's up entry towards b: the flows of m's own hosts and
 * of the hosts of every leaf below m whose entry towards b is a cable to m */
static int lr_try2(struct lrep *q, uint32_t m, uint32_t b)
{
	uint32_t po[LR_PATH];
	int no = lr_upath(q, m, b, po);
	if (!no)
		return 0;
	int hot = 0;
	for (int i = 0; i < no && !hot; i++)
		hot = q->hot[po[i]] != 0;
	if (!hot)
		return 0;
	uint32_t ns = lr_src(q, 2, m, b, q->src);
	return ns ? lr_move(q, m, b, q->src, ns, po, no) : 0;
}

/* the counters for bits-wide cells, (re)allocated; 0 if they fit */
static int lr_alloc(struct lrep *q, int bits)
{
	uint64_t bytes = ((uint64_t)q->E * q->R * (uint64_t)bits + 7) / 8;
	if (bytes > LR_MAX_BYTES)
		return -1;
	free(q->c8);
	q->c8 = malloc(bytes ? (size_t)bytes : 1);
	q->bits = bits;
	q->vmax = bits == 16 ? UINT16_MAX : (1u << bits) - 1;
	return q->c8 ? 0 : -2;
}

/* count the flows of every shift: per switch with hosts and destination
 * host one path, added to the shifts of the switch's hosts */
static void lr_count(struct lrep *q)
{
	uint32_t N = q->N, p[LR_PATH];
	memset(q->c8, 0, ((size_t)q->E * q->R * (size_t)q->bits + 7) / 8);
	q->over = 0;
	q->offud = 0;
	/* by blocks of destinations, so that neighbouring sources reuse the
	 * cache lines of the links into the block */
	for (uint32_t b0 = 0; b0 < N; b0 += LR_BLOCK)
		for (uint32_t s = 0; s < q->f->nsw; s++) {
			if (q->hoff[s] == q->hoff[s + 1])
				continue;
			for (uint32_t b = b0; b < N && b < b0 + LR_BLOCK; b++) {
				if (!q->dlid[b])
					continue;
				int n = lr_path(q, s, b, p);
				q->offud |= n < 0;
				for (int i = 0; i < n; i++)
					for (uint32_t k = q->hoff[s]; k < q->hoff[s + 1]; k++) {
						uint32_t cs = (b + N - q->hlist[k]) % N;
						if (cs)
							lr_inc(q, lr_cell(q, p[i], cs));
					}
			}
		}
}

/* a worst load no tables can go below: a switch with nh hosts sends, in
 * the shift by nh, as many flows off itself as it has hosts whose
 * destination is elsewhere, and receives as many, over its cables */
static uint32_t lr_floor(const struct lrep *q)
{
	const struct ibf_fabric *f = q->f;
	uint32_t N = q->N, lb = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint32_t nh = q->hoff[s + 1] - q->hoff[s];
		uint32_t nc = f->adj_off[s + 1] - f->adj_off[s];
		if (!nh || !nc || nh % N == 0)
			continue;
		uint32_t out = 0, in = 0;
		for (uint32_t k = q->hoff[s]; k < q->hoff[s + 1]; k++) {
			uint32_t a = q->hlist[k], b = (a + nh) % N, c = (a + N - nh % N) % N;
			out += q->h[b].sw != s && q->dlid[b];
			in += q->h[c].sw != s && q->dlid[a];
		}
		out = out > in ? out : in;
		out = (out + nc - 1) / nc;
		lb = out > lb ? out : lb;
	}
	return lb;
}

static int lr_cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Destination host b is no candidate for switch s's entry in layer j: it
 * is on s, has no LID, or its port has fewer layers. */
static int lr_skip(const struct lrep *q, uint32_t s, uint32_t b, uint32_t j)
{
	const struct ibf_port *pp = ibf_port(q->f, q->h[b].node, q->h[b].port);
	return q->h[b].sw == s || !q->dlid[b] || j >= (1u << pp->lmc);
}

/* Try to move switch s's entry towards host b: a leaf's (lev 1) or a
 * level-2 switch's (lev 2, counted in moved2); 1 when it moved. */
static int lr_try_at(struct lrep *q, int lev, uint32_t s, uint32_t b)
{
	if (lev == 1)
		return lr_try(q, s, b);
	int mv = lr_try2(q, s, b);
	q->moved2 += (uint64_t)mv;
	return mv;
}

/* The next (link, shift) pair at the worst load W after (*e, *cs), links
 * in index order, then shifts; links and blocks of LR_HB shifts without a
 * pair at W are passed over.  Start with *e = *cs = 0.  0 when none is
 * left. */
static int lr_next_at_w(const struct lrep *q, uint32_t *e, uint32_t *cs)
{
	for (; *e < q->E; (*e)++, *cs = 0) {
		if (!q->hot[*e])
			continue;
		for ((*cs)++; *cs < q->N; (*cs)++) {
			if (!q->hotb[(size_t)*e * q->NB + (*cs - 1) / LR_HB]) {
				*cs = ((*cs - 1) / LR_HB + 1) * LR_HB; /* next block */
				continue;
			}
			if (lr_get(q, lr_cell(q, *e, *cs)) == q->W)
				return 1;
		}
	}
	return 0;
}

/* v[0..n) sorted, each value once: the new n */
static size_t lr_sort_unique(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(uint64_t), lr_cmp64);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || v[i] != v[u - 1])
			v[u++] = v[i];
	return u;
}

/* the entries (switch << 32 | destination host) that carry a flow on a
 * (shift, link) at W, sorted, each once: the leaves' entries, then (when
 * relaxed) those of the level-2 switches the flows climb through; their
 * number in *n1 and *n2; NULL out of memory */
static uint64_t *lr_hot_entries(struct lrep *q, uint32_t j, size_t *n1, size_t *n2)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	uint32_t N = q->N, p[LR_PATH];
	size_t n = 0, cap = 64, k1 = 0;
	uint64_t *v = malloc(cap * sizeof(uint64_t));
	for (int lev = 1; lev <= (q->relax ? 2 : 1) && v; lev++) {
		size_t n0 = n;
		for (uint32_t e = 0, cs = 0; v && lr_next_at_w(q, &e, &cs);) {
			for (uint32_t a = 0; a < N; a++) {
				uint32_t b = (a + cs) % N, s = q->h[a].sw;
				if (t->level[s] != 1 || lr_skip(q, s, b, j))
					continue;
				int np = lr_path(q, s, b, p);
				if (np < 1 || !lr_has(p, np, e))
					continue;
				uint32_t w = s;
				if (lev == 2) {
					/* the level-2 switch the flow climbs through */
					w = f->adj[p[0]].nbr;
					if (np < 2 || t->level[w] != 2 ||
					    t->level[f->adj[p[1]].nbr] <= 2)
						continue;
				}
				if (n == cap) {
					uint64_t *x = realloc(v, 2 * cap * sizeof(uint64_t));
					if (!x) {
						free(v);
						v = NULL;
						break;
					}
					v = x;
					cap *= 2;
				}
				v[n++] = (uint64_t)w << 32 | b;
			}
		}
		if (!v)
			break;
		n = n0 + lr_sort_unique(v + n0, n - n0);
		if (lev == 1)
			k1 = n;
	}
	*n1 = k1;
	*n2 = n - k1;
	return v;
}

/* ------------------------------------------------------------------
 * Two-step moves, when no single move is left: a first move of one entry
 * (which may take no flow off W, and may for a while put one flow of a
 * (shift, link) above W) makes room on a cable for a second entry, which
 * then leaves W.  Both stay only when, together, no (shift, link) is above
 * W and fewer are at W; else the first is undone (its counters and its
 * table entry and hop count, byte for byte).  Two entries of one leaf
 * trading cables are such a pair as well. */

/* an entry: switch s's up entry towards host b, a leaf's (lev 1) or a
 * level-2 switch's (lev 2); the keys sort the leaves' first */
#define LR_KEY(lev, s, b) ((uint64_t)(lev) << 62 | (uint64_t)(s) << 32 | (uint64_t)(b))
#define LR_KLEV(k) ((int)((k) >> 62))
#define LR_KSW(k) ((uint32_t)((k) >> 32) & 0x3fffffffu)
#define LR_KDST(k) ((uint32_t)(k))
/* first steps tried for one second step, and per pass */
#define LR_NA 64
#define LR_TWO_BUDGET ((uint64_t)1 << 16)
/* entries listed per pass at most */
#define LR_TWO_LIST ((size_t)1 << 22)

/* the switches at or below switch u, level by level down, into q->stk:
 * their number */
static uint32_t lr_below(struct lrep *q, uint32_t u)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	if (++q->stamp == 0) {
		memset(q->mark, 0, f->nsw * sizeof(uint32_t));
		q->stamp = 1;
	}
	uint32_t n = 0;
	q->mark[u] = q->stamp;
	q->stk[n++] = u;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = q->stk[i];
		for (uint32_t e = f->adj_off[w]; e < f->adj_off[w + 1]; e++) {
			uint32_t v = f->adj[e].nbr;
			if (t->level[v] + 1 == t->level[w] && q->mark[v] != q->stamp) {
				q->mark[v] = q->stamp;
				q->stk[n++] = v;
			}
		}
	}
	return n;
}

/* the cables between the ends of link l (l among them) */
static uint32_t lr_parallel(const struct lrep *q, uint32_t l)
{
	const struct ibf_fabric *f = q->f;
	uint32_t from = f->adj_src[l], to = f->adj[l].nbr, n = 0;
	for (uint32_t e = f->adj_off[from]; e < f->adj_off[from + 1]; e++)
		n += f->adj[e].nbr == to;
	return n;
}

/* Append to v[0..n), at most cap in all, the entries with a flow on (link
 * l, shift cs): the source leaf's, and the level-2 switch's the flow climbs
 * through when l is above it; with dedup each key once and none equal to
 * skip.  The flows of an up-link come from the hosts below its lower end,
 * those of a down-link go to them.  The new n. */
static size_t lr_through(struct lrep *q, uint32_t j, uint32_t l, uint32_t cs, uint64_t skip,
			 uint64_t *v, size_t n, size_t cap, int dedup)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	uint32_t N = q->N, p[LR_PATH];
	uint32_t from = f->adj_src[l], to = f->adj[l].nbr;
	int up = t->level[to] > t->level[from];
	uint32_t nw = lr_below(q, up ? from : to);
	for (uint32_t i = 0; i < nw && n < cap; i++) {
		uint32_t w = q->stk[i];
		for (uint32_t k = q->hoff[w]; k < q->hoff[w + 1] && n < cap; k++) {
			uint32_t x = q->hlist[k];
			uint32_t a = up ? x : (x + N - cs) % N, b = up ? (x + cs) % N : x;
			uint32_t s = q->h[a].sw;
			if (t->level[s] != 1 || lr_skip(q, s, b, j))
				continue;
			int np = lr_path(q, s, b, p);
			if (np < 1 || !lr_has(p, np, l))
				continue;
			for (int lev = 1; lev <= (q->downk ? 3 : 2) && n < cap; lev++) {
				uint64_t key = LR_KEY(1, s, b);
				if (lev == 3) {
					/* a level-2 switch's cable down into b's leaf,
					 * when it has parallel ones */
					if (up || t->level[from] != 2 || t->level[to] != 1 ||
					    lr_parallel(q, l) < 2)
						continue;
					key = LR_KEY(3, from, b);
				} else if (lev == 2) {
					uint32_t m = f->adj[p[0]].nbr;
					if (np < 2 || p[0] == l || t->level[m] != 2 ||
					    t->level[f->adj[p[1]].nbr] <= 2)
						continue;
					key = LR_KEY(2, m, b);
				}
				size_t z = 0;
				if (dedup) {
					if (key == skip)
						continue;
					while (z < n && v[z] != key)
						z++;
				}
				if (!dedup || z == n)
					v[n++] = key;
			}
		}
	}
	return n;
}

/* the second step: switch s's entry towards b (flows of src[0..ns), path
 * po) to the cable after which no (shift, link) is above W and the fewest
 * are at W, fewer than nat0 (then the lowest sum); 1 if moved */
static int lr_move_second(struct lrep *q, uint32_t s, uint32_t b, const uint32_t *src, uint32_t ns,
			  const uint32_t *po, int no, uint64_t nat0)
{
	const struct ibf_fabric *f = q->f;
	uint32_t pn[LR_PATH], best[LR_PATH], bsum = UINT32_MAX;
	int64_t bnet = 0;
	int nb = 0;
	if (lr_transit(q, s, q->dlid[b]))
		return 0;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		if (e == po[0])
			continue;
		int nn = lr_alt(q, s, b, e, pn);
		if (nn < 0)
			continue;
		struct lr_eff x;
		lr_eval(q, src, ns, b, po, no, pn, nn, q->W, &x);
		int64_t net = x.add - x.rem;
		if (x.score > q->W || (int64_t)q->nover != x.orem || (int64_t)q->nat + net >= (int64_t)nat0)
			continue;
		if (!nb || net < bnet || (net == bnet && x.sum < bsum)) {
			bnet = net;
			bsum = x.sum;
			memcpy(best, pn, (size_t)nn * sizeof(uint32_t));
			nb = nn;
		}
	}
	if (!nb)
		return 0;
	lr_apply(q, s, b, src, ns, po, no, best, nb);
	return 1;
}

/* a two-step move whose second step is entry kb: the first steps are the
 * entries with a flow on a (shift, link) of kb's other paths that kb's
 * flow would bring to W or above; 1 if both moved */
static int lr_two(struct lrep *q, uint32_t j, uint64_t kb)
{
	const struct ibf_fabric *f = q->f;
	int lb = LR_KLEV(kb);
	uint32_t sb = LR_KSW(kb), b = LR_KDST(kb), N = q->N, W = q->W;
	uint32_t po[LR_PATH], pn[LR_PATH], pa[LR_PATH], pan[LR_PATH];
	uint64_t cand[LR_NA];
	size_t nc = 0;
	int no = lr_upath(q, sb, b, po);
	uint32_t ns = no ? lr_src(q, lb, sb, b, q->src) : 0;
	if (!ns || lr_transit(q, sb, q->dlid[b]))
		return 0;
	for (uint32_t e = f->adj_off[sb]; e < f->adj_off[sb + 1] && nc < LR_NA; e++) {
		if (e == po[0])
			continue;
		int nn = lr_alt(q, sb, b, e, pn);
		if (nn < 0)
			continue;
		struct lr_eff x;
		lr_eval(q, q->src, ns, b, po, no, pn, nn, UINT32_MAX, &x);
		if (!x.rem)
			continue;
		for (uint32_t k = 0; k < ns && nc < LR_NA; k++) {
			uint32_t cs = (b + N - q->src[k]) % N;
			if (!cs)
				continue;
			for (int i = 0; i < nn && nc < LR_NA; i++)
				if (!lr_has(po, no, pn[i]) &&
				    lr_get(q, lr_cell(q, pn[i], cs)) + 1u >= W)
					nc = lr_through(q, j, pn[i], cs, kb, cand, nc, LR_NA, 1);
		}
	}
	/* a first step may put one flow above W, if the counters hold it */
	uint32_t cap = W < q->vmax ? W + 1 : W;
	uint64_t nat0 = q->nat;
	for (size_t c = 0; c < nc; c++) {
		int la = LR_KLEV(cand[c]);
		uint32_t sa = LR_KSW(cand[c]), ba = LR_KDST(cand[c]), lid = q->dlid[ba];
		int na = lr_upath(q, sa, ba, pa);
		uint32_t nsa = na ? lr_src(q, la, sa, ba, q->src2) : 0;
		if (!nsa || lr_transit(q, sa, lid))
			continue;
		for (uint32_t e = f->adj_off[sa]; e < f->adj_off[sa + 1]; e++) {
			if (e == pa[0])
				continue;
			int nan = lr_alt(q, sa, ba, e, pan);
			if (nan < 0)
				continue;
			if (!q->budget)
				return 0;
			q->budget--;
			struct lr_eff x;
			lr_eval(q, q->src2, nsa, ba, pa, na, pan, nan, cap, &x);
			if (x.score > cap)
				continue;
			size_t hi = (size_t)sa * q->r->stride + lid;
			uint8_t hop = q->r->hops ? q->r->hops[hi] : 0;
			lr_apply(q, sa, ba, q->src2, nsa, pa, na, pan, nan);
			uint32_t pb[LR_PATH];
			int nob = lr_upath(q, sb, b, pb);
			uint32_t nsb = nob ? lr_src(q, lb, sb, b, q->src) : 0;
			if (nsb && lr_move_second(q, sb, b, q->src, nsb, pb, nob, nat0)) {
				q->moved2 += (uint64_t)(la == 2) + (uint64_t)(lb == 2);
				q->npair++;
				return 1;
			}
			lr_apply(q, sa, ba, q->src2, nsa, pan, nan, pa, na);
			if (q->r->hops)
				q->r->hops[hi] = hop;
		}
	}
	return 0;
}

/* The entries with a flow on a (shift, link) at W, sorted and without
 * repeats, at most mult x W x (pairs at W) of them (and LR_TWO_LIST); the
 * list (free it), its length in *u; NULL when out of memory. */
static uint64_t *lr_entries_at_w(struct lrep *q, uint32_t j, unsigned mult, size_t *u)
{
	uint64_t want = mult * (uint64_t)q->W * q->nat;
	size_t cap = want < LR_TWO_LIST ? (size_t)want : LR_TWO_LIST, n = 0;
	uint64_t *v = malloc((cap ? cap : 1) * sizeof(uint64_t));
	if (!v)
		return NULL;
	for (uint32_t e = 0, cs = 0; n < cap && lr_next_at_w(q, &e, &cs);)
		n = lr_through(q, j, e, cs, 0, v, n, cap, 0);
	*u = lr_sort_unique(v, n);
	return v;
}

/* a pass of two-step moves: the second steps are the entries through the
 * (shift, link) at W; the number of moves (2 per two-step move) */
static uint64_t lr_pass2(struct lrep *q, uint32_t j)
{
	size_t u;
	uint64_t *v = lr_entries_at_w(q, j, 2, &u);
	if (!v)
		return 0;
	uint64_t moved = 0;
	q->budget = LR_TWO_BUDGET;
	for (size_t i = 0; i < u && q->nat && q->budget; i++)
		moved += 2 * (uint64_t)lr_two(q, j, v[i]);
	free(v);
	return moved;
}

/* ------------------------------------------------------------------
 * Chains of moves, when no two-step move is left either.  Besides the up
 * entries, a chain may move a level-2 switch's down entry towards a host
 * to another of its parallel cables into the host's leaf (the path keeps
 * its switches: still up/down, the hop count unchanged; the flows moved
 * are those of every source whose path takes that cable to the host).  A
 * chain starts with an entry with a flow on a (shift, link) at W, which
 * moves to another cable even when that brings other (shift, link) pairs
 * to W, or one flow above it.  Then, while some pair above W is left (else
 * some pair at W on the path of an entry the chain moved), an entry with a
 * flow on the first such pair moves off it, without more pairs above W
 * than before, nor more at W when none is above; LR_CHAIN moves at most.
 * A chain stays when at its end no (shift, link) is above W and fewer are
 * at W than before it; otherwise its moves are undone in reverse order,
 * each exactly (counters, tallies, table entry, hop count).  Searched
 * depth first, in the order of the entries and of the cables.  A leaf
 * entry covers as many consecutive shifts as the leaf has hosts, so where
 * every cable between two leaves must carry exactly its share in one shift
 * the room is made by several entries in turn; and where a level-2 switch
 * sends too few of the leaf's hosts down one of its parallel cables, no up
 * entry can fill it.  The chains run at a W only while few pairs are at it
 * (LR_CHAIN_NAT), with one budget of moves tried for all their passes
 * there; the layer is saved before the first chain pass at a W, and when
 * the repair ends without W below that, it is put back as saved (lr_snap):
 * the chains change the tables only where they lower the worst. */

/* moves in a chain at most, and moves tried at one W (all passes) */
#define LR_CHAIN 4
#define LR_CHAIN_BUDGET ((uint64_t)1 << 18)
/* chains are looked for only while at most this many (shift, link) are at
 * W: every chain kept on the trees of bench/dmodk_closed.sh started from
 * 21 or fewer, and from 100 or more a chain pass cleared about a fifth of
 * them before its budget ran out (docs/performance.md) */
#define LR_CHAIN_NAT 32

struct lr_step {
	uint64_t key;
	uint32_t ns;
	int no, nn;
	uint8_t hop;
	uint32_t po[LR_PATH], pn[LR_PATH];
};

/* a level-2 switch m's down entry towards b: its cable into b's leaf, as
 * a path of one link (0 when m does not send b straight down into b's
 * leaf) */
static int lr_dpath(const struct lrep *q, uint32_t m, uint32_t b, uint32_t *po)
{
	const struct ibf_fabric *f = q->f;
	if (q->t->level[m] != 2 || lr_path(q, m, b, po) != 1 || f->adj[po[0]].nbr != q->h[b].sw ||
	    q->t->level[q->h[b].sw] != 1)
		return 0;
	return 1;
}

/* the hosts whose flows towards b take link l, into src: their number */
static uint32_t lr_dsrc(const struct lrep *q, uint32_t l, uint32_t b, uint32_t *src)
{
	uint32_t ns = 0, p[LR_PATH];
	for (uint32_t s = 0; s < q->f->nsw; s++) {
		if (q->hoff[s] == q->hoff[s + 1] || s == q->h[b].sw)
			continue;
		int n = lr_path(q, s, b, p);
		if (n < 1 || !lr_has(p, n, l))
			continue;
		for (uint32_t k = q->hoff[s]; k < q->hoff[s + 1]; k++)
			src[ns++] = q->hlist[k];
	}
	return ns;
}

/* make step d: entry key (flows of csrc[d], ns of them) from po to pn */
static void lr_step_do(struct lrep *q, int d, uint64_t key, uint32_t ns, const uint32_t *po, int no,
		       const uint32_t *pn, int nn)
{
	struct lr_step *st = &q->chain[d];
	uint32_t s = LR_KSW(key), b = LR_KDST(key);
	st->key = key;
	st->ns = ns;
	st->no = no;
	st->nn = nn;
	memcpy(st->po, po, (size_t)no * sizeof(uint32_t));
	memcpy(st->pn, pn, (size_t)nn * sizeof(uint32_t));
	st->hop = q->r->hops ? q->r->hops[(size_t)s * q->r->stride + q->dlid[b]] : 0;
	lr_apply(q, s, b, q->csrc + (size_t)d * q->N, ns, po, no, pn, nn);
	q->nchain = d + 1;
}

/* undo step d (the last one made) */
static void lr_step_undo(struct lrep *q, int d)
{
	const struct lr_step *st = &q->chain[d];
	uint32_t s = LR_KSW(st->key), b = LR_KDST(st->key);
	lr_apply(q, s, b, q->csrc + (size_t)d * q->N, st->ns, st->pn, st->nn, st->po, st->no);
	if (q->r->hops)
		q->r->hops[(size_t)s * q->r->stride + q->dlid[b]] = st->hop;
	q->nchain = d;
}

/* The first (shift, link) whose count is at least thr on the path (now) of
 * an entry the chain moved, in one of that entry's shifts: every pair
 * above W is such a pair.  0 when none is found. */
static int lr_chain_pair(const struct lrep *q, uint32_t thr, uint32_t *pl, uint32_t *pcs)
{
	uint32_t N = q->N, p[LR_PATH];
	for (int d = 0; d < q->nchain; d++) {
		const struct lr_step *st = &q->chain[d];
		uint32_t b = LR_KDST(st->key);
		const uint32_t *src = q->csrc + (size_t)d * N;
		int n = lr_path(q, LR_KSW(st->key), b, p);
		for (uint32_t k = 0; k < st->ns && n > 0; k++) {
			uint32_t cs = (b + N - src[k]) % N;
			if (!cs)
				continue;
			for (int i = 0; i < n; i++)
				if (lr_get(q, lr_cell(q, p[i], cs)) >= thr) {
					*pl = p[i];
					*pcs = cs;
					return 1;
				}
		}
	}
	return 0;
}

static int lr_in_chain(const struct lrep *q, uint64_t key)
{
	for (int d = 0; d < q->nchain; d++)
		if (q->chain[d].key == key)
			return 1;
	return 0;
}

static int lr_chain_next(struct lrep *q, uint32_t j, int d);

/* Step d of a chain with entry key (d = 0: an entry with a flow at W; else
 * one with a flow on (link l, shift cs)): its other cables in turn, each
 * whose move keeps the counters at most W + 1 and takes a flow off W (d =
 * 0) or off (l, cs) (d > 0), then at d > 0 leaves no more pairs above W
 * than before and, when as many, no more at W; the chain then ends (kept)
 * or goes on.  1 when a chain was kept. */
static int lr_chain_step(struct lrep *q, uint32_t j, int d, uint64_t key, uint32_t l, uint32_t cs)
{
	const struct ibf_fabric *f = q->f;
	int lev = LR_KLEV(key);
	uint32_t s = LR_KSW(key), b = LR_KDST(key);
	uint32_t po[LR_PATH], pn[LR_PATH];
	uint32_t *src = q->csrc + (size_t)d * q->N;
	int no = lev == 3 ? lr_dpath(q, s, b, po) : lr_upath(q, s, b, po);
	if (!no || (d && !lr_has(po, no, l)))
		return 0;
	uint32_t ns = lev == 3 ? lr_dsrc(q, po[0], b, src) : lr_src(q, lev, s, b, src);
	if (!ns || (lev < 3 && lr_transit(q, s, q->dlid[b])))
		return 0;
	uint32_t cap = q->W < q->vmax ? q->W + 1 : q->W;
	int64_t nover0 = (int64_t)q->nover, nat1 = (int64_t)q->nat;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		if (e == po[0])
			continue;
		int nn;
		if (lev == 3) {
			nn = f->adj[e].nbr == f->adj[po[0]].nbr ? 1 : -1;
			pn[0] = e;
		} else {
			nn = lr_alt(q, s, b, e, pn);
		}
		if (nn < 0 || (d && lr_has(pn, nn, l)))
			continue;
		if (!q->budget)
			return 0;
		q->budget--;
		struct lr_eff x;
		lr_eval(q, src, ns, b, po, no, pn, nn, cap, &x);
		if (x.score > cap || (!d && !x.rem))
			continue;
		int64_t nover = nover0 + x.oadd - x.orem, nat = nat1 + x.add - x.rem;
		if (d && (nover > nover0 || (nover == nover0 && nat > nat1)))
			continue;
		if (!nover && nat < (int64_t)q->cnat0) {
			lr_step_do(q, d, key, ns, po, no, pn, nn);
			return 1;
		}
		if (d + 1 >= LR_CHAIN)
			continue;
		lr_step_do(q, d, key, ns, po, no, pn, nn);
		if (lr_chain_next(q, j, d + 1))
			return 1;
		lr_step_undo(q, d);
	}
	return 0;
}

/* step d > 0: the entries with a flow on the pair to clear, not moved yet
 * in the chain */
static int lr_chain_next(struct lrep *q, uint32_t j, int d)
{
	uint32_t l, cs;
	uint64_t cand[LR_NA];
	if (!lr_chain_pair(q, q->nover ? q->W + 1 : q->W, &l, &cs))
		return 0;
	size_t nc = lr_through(q, j, l, cs, q->chain[0].key, cand, 0, LR_NA, 1);
	for (size_t c = 0; c < nc && q->budget; c++)
		if (!lr_in_chain(q, cand[c]) && lr_chain_step(q, j, d, cand[c], l, cs))
			return 1;
	return 0;
}

/* a pass of chains, one from each entry with a flow on a (shift, link) at
 * W; the number of moves */
static uint64_t lr_pass_chain(struct lrep *q, uint32_t j)
{
	size_t u;
	q->downk = 1;
	uint64_t *v = lr_entries_at_w(q, j, 3, &u);
	if (!v) {
		q->downk = 0;
		return 0;
	}
	uint64_t moved = 0;
	for (size_t i = 0; i < u && q->nat && q->budget; i++) {
		q->nchain = 0;
		q->cnat0 = q->nat;
		if (!lr_chain_step(q, j, 0, v[i], 0, 0))
			continue;
		for (int d = 0; d < q->nchain; d++) {
			q->moved2 += (uint64_t)(LR_KLEV(q->chain[d].key) == 2);
			q->moveddn += (uint64_t)(LR_KLEV(q->chain[d].key) == 3);
		}
		moved += (uint64_t)q->nchain;
		q->nchains++;
	}
	q->nchain = 0;
	q->downk = 0;
	free(v);
	return moved;
}

/* The layer's columns at the switches of levels 1 and 2 (the only ones
 * the repair changes), with their hop counts, into q->snap (save) or back
 * from it; restoring recounts.  0, or -1 when out of memory. */
static int lr_snap(struct lrep *q, int save)
{
	const struct ibf_fabric *f = q->f;
	uint32_t n12 = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		n12 += q->t->level[s] == 1 || q->t->level[s] == 2;
	size_t sz = (size_t)n12 * q->N * 2;
	if (save && !q->snap && !(q->snap = malloc(sz ? sz : 1)))
		return -1;
	size_t i = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (q->t->level[s] != 1 && q->t->level[s] != 2)
			continue;
		uint8_t *lft = ibf_lft(q->r, s);
		uint8_t *hop = q->r->hops ? q->r->hops + (size_t)s * q->r->stride : NULL;
		for (uint32_t b = 0; b < q->N; b++, i += 2) {
			uint32_t lid = q->dlid[b];
			if (!lid)
				continue;
			if (save) {
				q->snap[i] = lft[lid];
				q->snap[i + 1] = hop ? hop[lid] : 0;
			} else {
				lft[lid] = q->snap[i];
				if (hop)
					hop[lid] = q->snap[i + 1];
			}
		}
	}
	if (!save) {
		lr_count(q);
		lr_worst(q);
		q->nover = 0;
	}
	return 0;
}

/* one pass over every (leaf, destination) entry, and when relaxed every
 * (level-2 switch, destination) entry; the number moved */
static uint64_t lr_pass(struct lrep *q, uint32_t j)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	uint32_t N = q->N;
	uint64_t moved = 0;
	for (int lev = 1; lev <= (q->relax ? 2 : 1); lev++)
		for (uint32_t s = 0; s < f->nsw && q->nat; s++) {
			if (t->level[s] != lev ||
			    (lev == 1 && q->hoff[s] == q->hoff[s + 1]))
				continue;
			for (uint32_t b = 0; b < N && q->nat; b++)
				if (!lr_skip(q, s, b, j))
					moved += (uint64_t)lr_try_at(q, lev, s, b);
		}
	return moved;
}

/* one layer: count, then move entries while some do; -1 if the counters
 * would exceed LR_MAX_BYTES, -2 out of memory */
static int64_t lr_layer(struct lrep *q, uint32_t j)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	uint32_t N = q->N;
	uint64_t moves = 0;
	for (uint32_t i = 0; i < N; i++) {
		const struct ibf_port *pp = ibf_port(f, q->h[i].node, q->h[i].port);
		uint32_t L = 1u << pp->lmc, jj = j < L ? j : L - 1;
		q->dlid[i] = pp->lid && pp->lid + jj <= q->r->max_lid ? pp->lid + jj : 0;
	}
	for (;;) {
		lr_count(q);
		if (!q->over || q->bits == 16)
			break; /* 16 bits saturate: more flows than 65535 of one shift */
		int rc = lr_alloc(q, q->bits * 2);
		if (rc)
			return rc;
	}
	lr_worst(q);
	q->W0 = q->W;
	q->relax = 0;
	q->moved2 = 0;
	uint32_t lb = lr_floor(q), nleaf = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		nleaf += t->level[s] == 1 && q->hoff[s] < q->hoff[s + 1];
	q->nover = 0;
	q->npair = 0;
	q->nchains = 0;
	q->moveddn = 0;
	int two = 0; /* this pass makes two-step moves */
	/* the worst when the layer was saved before its first pass of chains
	 * there (0: not saved), and the tallies then */
	uint32_t cw = 0, bw = 0;
	uint64_t cmoves = 0, cmoved2 = 0, cnpair = 0, cnchains = 0, cdn = 0;
	for (int pass = 0; pass < 64 && q->W > 1 && q->W > lb; pass++) {
		uint64_t moved;
		size_t n1, n2;
		uint64_t *v;
		if (two) {
			/* no single move is left */
			two = 0;
			moved = lr_pass2(q, j);
			if (!moved) {
				/* nor a two-step one: chains, kept only if W drops */
				if (q->nat > LR_CHAIN_NAT)
					break;
				/* saved again at a lower W only once the chains
				 * are below wkeep */
				if (cw != q->W && (!cw || q->W < q->wkeep)) {
					if (lr_snap(q, 1))
						break;
					cw = q->W;
					cmoves = moves;
					cmoved2 = q->moved2;
					cnpair = q->npair;
					cnchains = q->nchains;
					cdn = q->moveddn;
				}
				if (bw != q->W) {
					bw = q->W;
					q->cbudget = LR_CHAIN_BUDGET;
				}
				q->budget = q->cbudget;
				moved = lr_pass_chain(q, j);
				q->cbudget = q->budget;
			}
			moves += moved;
			if (!moved)
				break;
			if (!q->nat)
				lr_worst(q);
			continue;
		}
		/* few (shift, link) at W: only the entries through them */
		if (q->nat < nleaf && (v = lr_hot_entries(q, j, &n1, &n2))) {
			moved = 0;
			for (size_t i = 0; i < n1 + n2 && q->nat; i++)
				moved += (uint64_t)lr_try_at(q, i < n1 ? 1 : 2, (uint32_t)(v[i] >> 32),
							   (uint32_t)v[i]);
			free(v);
		} else {
			moved = lr_pass(q, j);
		}
		moves += moved;
		if (q->relax) {
			q->relax = 0;
			if (!moved && q->nat) {
				two = 1;
				continue;
			}
		} else if (!moved && q->nat) {
			q->relax = 1;
			continue;
		}
		if (!q->nat)
			lr_worst(q);
		else if (!moved)
			break;
	}
	if (cw && (q->W >= cw || q->W >= q->wkeep)) {
		/* the chains did not lower W (below wkeep): the layer as it was
		 * before them */
		lr_snap(q, 0);
		moves = cmoves;
		q->moved2 = cmoved2;
		q->npair = cnpair;
		q->nchains = cnchains;
		q->moveddn = cdn;
	}
	return (int64_t)(moves - q->moved2 - q->moveddn);
}

/* A tree whose blocks of one level have different numbers of parents: a
 * switch below the top with fewer up-slots than the most of its level
 * (a whole spine gone takes the slots of its block's switches away, so
 * none is counted missing). */
static int uneven_blocks(const struct ibf_ftree *t)
{
	for (uint32_t s = 0; s < t->nsw; s++)
		if (t->level[s] < t->levels && !t->shallow_sw[s] &&
		    t->slot_off[s + 1] - t->slot_off[s] < t->nup[t->level[s]])
			return 1;
	return 0;
}

/* A damaged tree of 3 or more levels, or one with leaves at another depth
 * (leaf_repair works on these and on those of damaged2). */
static int damaged3(const struct ibf_ftree *t)
{
	return t->levels > 2 && (t->missing_slots || uneven_blocks(t) || t->shallow || t->tophost);
}

/* A 2-level tree that lost a cable or has hosts on a spine.  Its tables
 * come from the closed-slot tables (leaf_remap), which place each moved
 * destination by its source's up-cable runs and a down count summed over
 * all sources, not per shift: two moved flows and a bundle rule flow of
 * one shift could meet on one cable (t8x16-r10, t2miss of bench/ft_cases.sh).
 * leaf_repair works on these trees as well. */
static int damaged2(const struct ibf_ftree *t)
{
	return t->levels == 2 && (t->missing_slots || t->nspine_hosts);
}

/* the trees leaf_repair and path_balance work on */
static int repaired_tree(const struct ibf_ftree *t)
{
	return damaged3(t) || damaged2(t);
}

/* The counters and host lists of the leaf repair (and of the balancing
 * pass below) for c's tables: 0 when ready; 1 when there is nothing to
 * count (no tree order, fewer than 2 hosts) or no room (logged, with what
 * for); close with lr_close either way. */
static int lr_open(struct dk *c, struct lrep *q, const char *what)
{
	const struct ibf_fabric *f = c->f;
	memset(q, 0, sizeof(*q));
	q->f = f;
	q->t = c->t;
	q->r = c->r;
	q->E = f->adj_off[f->nsw];
	int used = 0;
	struct ibf_error e2;
	ibf_error_clear(&e2);
	if (ibf_end_ports(f, IBF_CONG_ORDER_AUTO, &q->h, &q->N, &used, NULL, NULL, &e2))
		return 1;
	if (used != IBF_CONG_ORDER_TREE || q->N < 2)
		return 1;
	q->R = q->N & ~1u; /* N - 1 counters, rounded up to even */
	if (lr_alloc(q, 4) == -1) {
		log_msg(c, IBF_LOG_INFO,
			"dmodk: %s skipped: %u hosts x %u links need more than its %llu MB "
			"of counters",
			what, q->N, q->E, (unsigned long long)(LR_MAX_BYTES >> 20));
		return 1;
	}
	q->dlid = malloc(q->N * sizeof(uint32_t));
	q->hoff = calloc((size_t)f->nsw + 1, sizeof(uint32_t));
	q->hlist = malloc(q->N * sizeof(uint32_t));
	q->src = malloc(q->N * sizeof(uint32_t));
	q->src2 = malloc(q->N * sizeof(uint32_t));
	q->csrc = malloc((size_t)LR_CHAIN * q->N * sizeof(uint32_t));
	q->chain = malloc(LR_CHAIN * sizeof(struct lr_step));
	q->mark = calloc((size_t)f->nsw + 1, sizeof(uint32_t));
	q->stk = malloc(((size_t)f->nsw + 1) * sizeof(uint32_t));
	q->hot = malloc((q->E ? q->E : 1) * sizeof(uint32_t));
	q->NB = (q->R + LR_HB - 1) / LR_HB;
	q->hotb = malloc(((size_t)q->E * q->NB + 1) * sizeof(uint16_t));
	q->pl = malloc((f->nports_total ? f->nports_total : 1) * sizeof(int32_t));
	if (!(q->c8 && q->dlid && q->hoff && q->hlist && q->src && q->src2 && q->csrc &&
	      q->chain && q->mark && q->stk && q->hot && q->hotb && q->pl)) {
		log_msg(c, IBF_LOG_INFO, "dmodk: %s skipped: out of memory", what);
		return 1;
	}
	for (uint32_t s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		for (int p = 0; p <= f->nodes[node].nports; p++) {
			uint32_t g = f->nodes[node].port_off + (uint32_t)p;
			const struct ibf_port *pp = ibf_port(f, node, p);
			if (pp->peer_node == IBF_NO_NODE)
				q->pl[g] = LR_NOLINK;
			else if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH)
				q->pl[g] = LR_CA;
			else
				q->pl[g] = f->port_adj[g] >= 0 ? f->port_adj[g] : LR_NOLINK;
		}
	}
	group_by_switch(q->h, sizeof(*q->h), offsetof(struct ibf_endport, sw), q->N, f->nsw, q->hoff,
			q->hlist, c->queue);
	return 0;
}

static void lr_close(struct lrep *q)
{
	free(q->h);
	free(q->dlid);
	free(q->hoff);
	free(q->hlist);
	free(q->src);
	free(q->src2);
	free(q->csrc);
	free(q->chain);
	free(q->snap);
	free(q->mark);
	free(q->stk);
	free(q->hot);
	free(q->hotb);
	free(q->pl);
	free(q->c8);
}

static void leaf_repair(struct dk *c, uint32_t nlayers)
{
	if (!repaired_tree(c->t))
		return;
	struct lrep q;
	if (lr_open(c, &q, "leaf repair")) {
		lr_close(&q);
		return;
	}
	/* on a 2-level tree the layers of a destination leave a leaf by
	 * different spines (leaf_remap, spine_layers): the moves keep that */
	q.sepl = damaged2(c->t);
	for (uint32_t j = 0; j < nlayers; j++) {
		q.wkeep = c->lrtgt && j < c->nlayers ? c->lrtgt[2 * j] : UINT32_MAX;
		int64_t mv = lr_layer(&q, j);
		if (mv >= 0 && j < c->nlayers) {
			c->lrch[j] = q.nchains != 0;
			c->lrw[2 * j] = q.W;
			c->lrw[2 * j + 1] = q.nat > UINT32_MAX ? UINT32_MAX : (uint32_t)q.nat;
		}
		if (mv < 0) {
			log_msg(c, IBF_LOG_INFO,
				"dmodk: leaf repair skipped from layer %u: %s", j,
				mv == -1 ? "more flows of one shift on a link than its counters "
					   "hold"
					 : "out of memory");
			break;
		}
		char pairs[160] = "";
		size_t pn = 0;
		if (q.npair)
			pn += (size_t)snprintf(pairs, sizeof(pairs), " (%llu two-step moves",
					       (unsigned long long)q.npair);
		if (q.nchains)
			pn += (size_t)snprintf(pairs + pn, sizeof(pairs) - pn,
					       "%s%llu chains", pn ? " and " : " (",
					       (unsigned long long)q.nchains);
		if (pn)
			pn += (size_t)snprintf(pairs + pn, sizeof(pairs) - pn, " among them)");
		if (q.moveddn)
			snprintf(pairs + pn, sizeof(pairs) - pn,
				 ", %llu level-2 down entries moved to a parallel cable",
				 (unsigned long long)q.moveddn);
		if (mv || q.moved2 || q.moveddn)
			log_msg(c, IBF_LOG_INFO,
				"dmodk: leaf repair, layer %u: %llu leaf entries and %llu "
				"level-2 entries moved to another up-cable, worst shift load "
				"%u -> %u%s",
				j, (unsigned long long)mv, (unsigned long long)q.moved2, q.W0,
				q.W, pairs);
	}
	lr_close(&q);
}


/* Path balance.  D-mod-K and the repairs above are built for the shifts.
 * A random permutation sends one flow from every host to a random other
 * one, so what it sees of a link is the host pairs whose path crosses it,
 * and on a damaged tree the destinations moved off lost cables leave a few
 * links with many more pairs than the rest (dfsssp, which balances path
 * counts, had the lower mean on most such trees).  So after the repairs,
 * per layer, every up entry of a leaf and of a level-2 switch, and every
 * down entry that has a parallel cable to the same child, is offered the
 * other cables, and moves to the one that lowers
 *
 *     F = sum over links e of exp(min(S_e, T_e)),
 *     S_e = sum over sources a of log(1 + (r_ae / (N - 1)) (e - 1)),
 *     T_e = sum over destinations b of log(1 + (c_be / (N - 1)) (e - 1)),
 *
 * most (r_ae: destinations of a whose path crosses e, c_be: sources of b
 * whose path does).  A link's load in a random permutation is a sum of
 * indicators, one per source (or one per destination), of probability
 * r_ae / (N - 1) (c_be / (N - 1)); a permutation's indicators are negatively
 * associated, so exp(S_e) and exp(T_e) both bound E[e^load] from above, and
 * log F bounds E[max load] (the mean of the largest link load, which
 * `route congestion` reports) from above.  Unlike the plain path count it
 * sees that a link whose pairs come from many sources with a few
 * destinations each varies more than one with a few sources and many
 * destinations each.
 *
 * A move is made only when no (shift, link) counter it raises goes above
 * the largest load of that shift before the pass: no shift's maximum link
 * load rises, so the worst shift, the contention-free shifts and the mean
 * over the shifts stay or improve.  Up entries move under the repair's
 * rules (the new switch routes the destination up and then down by its own
 * column, so paths stay up/down and columns loop-free; the transit rule),
 * and not to a parent that another layer of the same destination already
 * takes from this switch (the layers keep their own spines).  Down entries
 * only change the cable within a bundle.  Passes repeat while something
 * moves, at most PB_PASSES, and stop once the moves offered in the layer
 * have cost PB_WORK (host, link) steps.  Complete trees are not touched. */
#define PB_PASSES 16
/* (host, link) steps of the moves offered per layer; then it stops */
#define PB_WORK ((uint64_t)1 << 28)
/* r and c together at most this many bytes */
#define PB_MAX_BYTES ((uint64_t)1 << 27)

struct pbal {
	uint64_t *P;	/* per link: its path count */
	double *S, *T;	/* per link: S_e and T_e */
	double *lg;	/* [N]: log(1 + v / (N - 1) (e - 1)) */
	uint16_t *r, *c; /* [link][host]: r_ae and c_be */
	uint32_t *cap;	/* per shift: the most flows a link may carry */
	uint64_t work;	/* (host, link) steps of the moves offered in the layer */
};

static double pb_cost(double S, double T)
{
	return exp(S < T ? S : T);
}

/* r, c, P, S and T from the tables */
static void pb_build(const struct lrep *q, struct pbal *z)
{
	uint32_t N = q->N, p[LR_PATH];
	memset(z->r, 0, (size_t)q->E * N * sizeof(uint16_t));
	memset(z->c, 0, (size_t)q->E * N * sizeof(uint16_t));
	for (uint32_t s = 0; s < q->f->nsw; s++) {
		if (q->hoff[s] == q->hoff[s + 1])
			continue;
		for (uint32_t b = 0; b < N; b++) {
			if (!q->dlid[b])
				continue;
			int n = lr_path(q, s, b, p);
			for (int i = 0; i < n; i++)
				for (uint32_t k = q->hoff[s]; k < q->hoff[s + 1]; k++) {
					uint32_t a = q->hlist[k];
					if (a == b)
						continue;
					z->r[(size_t)p[i] * N + a]++;
					z->c[(size_t)p[i] * N + b]++;
				}
		}
	}
	for (uint32_t e = 0; e < q->E; e++) {
		uint64_t P = 0;
		double S = 0, T = 0;
		const uint16_t *r = z->r + (size_t)e * N, *c = z->c + (size_t)e * N;
		for (uint32_t a = 0; a < N; a++) {
			P += r[a];
			S += z->lg[r[a]];
			T += z->lg[c[a]];
		}
		z->P[e] = P;
		z->S[e] = S;
		z->T[e] = T;
	}
}

/* link e with the flows of src[0..ns) towards b added (sg 1) or taken off
 * (sg -1): its new S and T into *S, *T, and the number of flows */
static uint32_t pb_after(const struct lrep *q, const struct pbal *z, uint32_t e, const uint32_t *src,
			 uint32_t ns, uint32_t b, int sg, double *S, double *T)
{
	uint32_t N = q->N, k = 0;
	const uint16_t *r = z->r + (size_t)e * N;
	double s1 = z->S[e];
	for (uint32_t i = 0; i < ns; i++) {
		if (src[i] == b)
			continue;
		k++;
		uint32_t x = r[src[i]];
		s1 += z->lg[sg > 0 ? x + 1 : x - 1] - z->lg[x];
	}
	uint32_t cb = z->c[(size_t)e * N + b];
	*S = s1;
	*T = z->T[e] + z->lg[sg > 0 ? cb + k : cb - k] - z->lg[cb];
	return k;
}

/* what the cost of link e changes by */
static double pb_delta(const struct lrep *q, const struct pbal *z, uint32_t e, const uint32_t *src,
		       uint32_t ns, uint32_t b, int sg)
{
	double S, T;
	pb_after(q, z, e, src, ns, b, sg, &S, &T);
	return pb_cost(S, T) - pb_cost(z->S[e], z->T[e]);
}

/* make the change on link e */
static void pb_upd(const struct lrep *q, struct pbal *z, uint32_t e, const uint32_t *src, uint32_t ns,
		   uint32_t b, int sg)
{
	uint32_t N = q->N;
	uint32_t k = pb_after(q, z, e, src, ns, b, sg, &z->S[e], &z->T[e]);
	uint16_t *r = z->r + (size_t)e * N;
	for (uint32_t i = 0; i < ns; i++)
		if (src[i] != b)
			r[src[i]] = (uint16_t)(sg > 0 ? r[src[i]] + 1 : r[src[i]] - 1);
	uint16_t *cb = z->c + (size_t)e * N + b;
	*cb = (uint16_t)(sg > 0 ? *cb + k : *cb - k);
	z->P[e] = sg > 0 ? z->P[e] + k : z->P[e] - k;
}

/* the change of F when the flows of src[0..ns) towards b move from path
 * po to path pn (a link on both keeps its flows) */
static double pb_move_delta(const struct lrep *q, struct pbal *z, const uint32_t *src,
			    uint32_t ns, uint32_t b, const uint32_t *po, int no, const uint32_t *pn,
			    int nn)
{
	double d = 0;
	z->work += (uint64_t)ns * (uint64_t)(no + nn);
	for (int i = 0; i < nn; i++)
		if (!lr_has(po, no, pn[i]))
			d += pb_delta(q, z, pn[i], src, ns, b, 1);
	for (int i = 0; i < no; i++)
		if (!lr_has(pn, nn, po[i]))
			d += pb_delta(q, z, po[i], src, ns, b, -1);
	return d;
}

/* no counter the move raises goes above its shift's cap */
static int pb_fits(const struct lrep *q, const struct pbal *z, const uint32_t *src, uint32_t ns,
		   uint32_t b, const uint32_t *po, int no, const uint32_t *pn, int nn)
{
	uint32_t N = q->N;
	for (int i = 0; i < nn; i++) {
		if (lr_has(po, no, pn[i]))
			continue;
		for (uint32_t k = 0; k < ns; k++) {
			uint32_t cs = (b + N - src[k]) % N;
			if (cs && lr_get(q, lr_cell(q, pn[i], cs)) + 1 > z->cap[cs])
				return 0;
		}
	}
	return 1;
}

/* make the move: counters, r, c, P, S, T and the entry */
static void pb_apply(struct lrep *q, struct pbal *z, uint32_t s, uint32_t b, const uint32_t *src,
		     uint32_t ns, const uint32_t *po, int no, const uint32_t *pn, int nn)
{
	for (int i = 0; i < nn; i++)
		if (!lr_has(po, no, pn[i]))
			pb_upd(q, z, pn[i], src, ns, b, 1);
	for (int i = 0; i < no; i++)
		if (!lr_has(pn, nn, po[i]))
			pb_upd(q, z, po[i], src, ns, b, -1);
	lr_apply(q, s, b, src, ns, po, no, pn, nn);
}

/* d lower than the best so far by more than rounding */
static int pb_better(double d, double best)
{
	return d < best - 1e-9 * (fabs(best) + 1);
}

/* another layer's LID of host b's port leaves switch s towards parent m */
static int pb_other_layer(const struct lrep *q, uint32_t s, uint32_t b, uint32_t j, uint32_t m)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_port *pp = ibf_port(f, q->h[b].node, q->h[b].port);
	uint32_t L = 1u << pp->lmc;
	int node = f->switches[s];
	for (uint32_t jj = 0; jj < L; jj++) {
		uint32_t lid = pp->lid + jj;
		if (jj == j || lid > q->r->max_lid)
			continue;
		uint8_t pt = ibf_lft(q->r, s)[lid];
		if (pt == IBF_LFT_NONE || !pt || pt > f->nodes[node].nports)
			continue;
		int32_t x = f->port_adj[f->nodes[node].port_off + pt];
		if (x >= 0 && f->adj[x].nbr == m)
			return 1;
	}
	return 0;
}

/* offer switch s's up entry towards b (a leaf's, lev 1, or a level-2
 * switch's) the other up-cables of s; 1 if it moved */
static int pb_try_up(struct lrep *q, struct pbal *z, int lev, uint32_t s, uint32_t b, uint32_t j)
{
	const struct ibf_fabric *f = q->f;
	uint32_t po[LR_PATH], pn[LR_PATH], best[LR_PATH];
	int no = lr_upath(q, s, b, po);
	if (!no)
		return 0;
	const uint32_t *src = q->hlist + q->hoff[s];
	uint32_t ns = q->hoff[s + 1] - q->hoff[s];
	if (lev != 1) {
		ns = lr_src(q, 2, s, b, q->src);
		src = q->src;
	}
	if (!ns || lr_transit(q, s, q->dlid[b]))
		return 0;
	uint32_t m0 = f->adj[po[0]].nbr;
	double bd = 0;
	int nb = 0;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		if (e == po[0])
			continue;
		int nn = lr_alt(q, s, b, e, pn);
		if (nn < 0)
			continue;
		uint32_t m = f->adj[e].nbr;
		if (m != m0 && pb_other_layer(q, s, b, j, m))
			continue;
		double d = pb_move_delta(q, z, src, ns, b, po, no, pn, nn);
		if (!pb_better(d, bd) || !pb_fits(q, z, src, ns, b, po, no, pn, nn))
			continue;
		bd = d;
		memcpy(best, pn, (size_t)nn * sizeof(uint32_t));
		nb = nn;
	}
	if (!nb)
		return 0;
	pb_apply(q, z, s, b, src, ns, po, no, best, nb);
	return 1;
}

/* offer switch m's down entry towards b the other cables to the same
 * child: the same switches on the path, so still up/down with the same hop
 * count; its flows are those of every source whose path takes the cable.
 * 1 if it moved. */
static int pb_try_down(struct lrep *q, struct pbal *z, uint32_t m, uint32_t b)
{
	const struct ibf_fabric *f = q->f;
	uint32_t po[LR_PATH], pn[LR_PATH];
	int no = lr_path(q, m, b, po);
	if (no < 1 || q->t->level[f->adj[po[0]].nbr] + 1 != q->t->level[m] ||
	    lr_parallel(q, po[0]) < 2)
		return 0;
	uint32_t ns = lr_dsrc(q, po[0], b, q->src), u = f->adj[po[0]].nbr, be = NOSW;
	if (!ns)
		return 0;
	double bd = 0;
	memcpy(pn, po, (size_t)no * sizeof(uint32_t));
	for (uint32_t e = f->adj_off[m]; e < f->adj_off[m + 1]; e++) {
		if (e == po[0] || f->adj[e].nbr != u)
			continue;
		pn[0] = e;
		double d = pb_move_delta(q, z, q->src, ns, b, po, no, pn, no);
		if (!pb_better(d, bd) || !pb_fits(q, z, q->src, ns, b, po, no, pn, no))
			continue;
		bd = d;
		be = e;
	}
	if (be == NOSW)
		return 0;
	pn[0] = be;
	pb_apply(q, z, m, b, q->src, ns, po, no, pn, no);
	return 1;
}

/* switch m has two or more cables to some child */
static int pb_bundled(const struct lrep *q, uint32_t m)
{
	const struct ibf_fabric *f = q->f;
	for (uint32_t e = f->adj_off[m]; e < f->adj_off[m + 1]; e++)
		if (q->t->level[f->adj[e].nbr] + 1 == q->t->level[m] && lr_parallel(q, e) > 1)
			return 1;
	return 0;
}

/* one layer: count, then passes of moves; the up and down entries moved
 * into *up, *dn, and the largest path count before and after */
static int pb_layer(struct lrep *q, struct pbal *z, uint32_t j, uint64_t *up, uint64_t *dn,
		    uint64_t *mx0, uint64_t *mx1)
{
	const struct ibf_fabric *f = q->f;
	const struct ibf_ftree *t = q->t;
	uint32_t N = q->N;
	for (uint32_t i = 0; i < N; i++) {
		const struct ibf_port *pp = ibf_port(f, q->h[i].node, q->h[i].port);
		uint32_t L = 1u << pp->lmc, jj = j < L ? j : L - 1;
		q->dlid[i] = pp->lid && pp->lid + jj <= q->r->max_lid ? pp->lid + jj : 0;
	}
	for (;;) {
		lr_count(q);
		if (!q->over)
			break;
		if (q->bits == 16 || lr_alloc(q, q->bits * 2))
			return -1;
	}
	/* lr_apply keeps the tallies at the worst up to date */
	lr_worst(q);
	q->nover = 0;
	pb_build(q, z);
	for (uint32_t cs = 1; cs < N; cs++) {
		uint32_t m = 0;
		for (uint32_t e = 0; e < q->E; e++) {
			uint32_t v = lr_get(q, lr_cell(q, e, cs));
			m = v > m ? v : m;
		}
		z->cap[cs] = m;
	}
	*up = *dn = *mx0 = *mx1 = 0;
	z->work = 0;
	for (uint32_t e = 0; e < q->E; e++)
		*mx0 = z->P[e] > *mx0 ? z->P[e] : *mx0;
	for (int pass = 0; pass < PB_PASSES; pass++) {
		uint64_t mu = 0, md = 0;
		for (int lev = 1; lev <= (t->levels > 2 ? 2 : 1); lev++)
			for (uint32_t s = 0; s < f->nsw; s++) {
				if (t->level[s] != lev || (lev == 1 && q->hoff[s] == q->hoff[s + 1]))
					continue;
				for (uint32_t b = 0; b < N && z->work < PB_WORK; b++)
					if (!lr_skip(q, s, b, j))
						mu += (uint64_t)pb_try_up(q, z, lev, s, b, j);
			}
		for (uint32_t m = 0; m < f->nsw; m++) {
			if (t->level[m] < 2 || !pb_bundled(q, m))
				continue;
			for (uint32_t b = 0; b < N && z->work < PB_WORK; b++)
				if (q->dlid[b] && q->h[b].sw != m)
					md += (uint64_t)pb_try_down(q, z, m, b);
		}
		*up += mu;
		*dn += md;
		if ((!mu && !md) || z->work >= PB_WORK)
			break;
	}
	for (uint32_t e = 0; e < q->E; e++)
		*mx1 = z->P[e] > *mx1 ? z->P[e] : *mx1;
	return 0;
}

static void path_balance(struct dk *c, uint32_t nlayers)
{
	if (!repaired_tree(c->t))
		return;
	struct lrep q;
	struct pbal z;
	memset(&z, 0, sizeof(z));
	if (lr_open(c, &q, "path balance"))
		goto out;
	size_t en = (size_t)(q.E ? q.E : 1);
	if ((uint64_t)en * q.N * 2 * sizeof(uint16_t) > PB_MAX_BYTES || q.N > UINT16_MAX) {
		log_msg(c, IBF_LOG_INFO,
			"dmodk: path balance skipped: %u hosts x %u links need more than its %llu "
			"MB of counters",
			q.N, q.E, (unsigned long long)(PB_MAX_BYTES >> 20));
		goto out;
	}
	z.P = malloc(en * sizeof(uint64_t));
	z.S = malloc(en * sizeof(double));
	z.T = malloc(en * sizeof(double));
	z.r = malloc(en * q.N * sizeof(uint16_t));
	z.c = malloc(en * q.N * sizeof(uint16_t));
	z.lg = malloc(((size_t)q.N + 1) * sizeof(double));
	z.cap = malloc(((size_t)q.N + 1) * sizeof(uint32_t));
	if (!z.P || !z.S || !z.T || !z.r || !z.c || !z.lg || !z.cap) {
		log_msg(c, IBF_LOG_INFO, "dmodk: path balance skipped: out of memory");
		goto out;
	}
	for (uint32_t v = 0; v <= q.N; v++)
		z.lg[v] = log1p((double)v / (q.N - 1) * (exp(1.0) - 1));
	for (uint32_t j = 0; j < nlayers; j++) {
		uint64_t up, dn, mx0, mx1;
		if (pb_layer(&q, &z, j, &up, &dn, &mx0, &mx1)) {
			log_msg(c, IBF_LOG_INFO,
				"dmodk: path balance skipped from layer %u: more flows of one shift "
				"on a link than its counters hold",
				j);
			break;
		}
		if (up || dn)
			log_msg(c, IBF_LOG_INFO,
				"dmodk: path balance, layer %u: %llu up entries moved to another "
				"up-cable and %llu down entries to a parallel cable, largest path "
				"count on a link %llu -> %llu, no shift's largest link load "
				"higher%s",
				j, (unsigned long long)up, (unsigned long long)dn,
				(unsigned long long)mx0, (unsigned long long)mx1,
				z.work >= PB_WORK ? " (stopped at its work limit)" : "");
	}
out:
	free(z.P);
	free(z.S);
	free(z.T);
	free(z.r);
	free(z.c);
	free(z.lg);
	free(z.cap);
	lr_close(&q);
}


/* LMC layers on a damaged tree of 3+ levels.  Each layer is a traffic
 * pattern of its own and should be as good as LMC 0.  Two things coupled
 * a layer to the others: the down loads of an off-chain ancestor counted
 * over the chains of every layer (pick_down), and a dealt layer avoiding
 * the parents of the others (layer_parents), so that even layer 0 at LMC
 * 1 was not LMC 0's tables (the QDR/DDR dump of tests/fixtures/real: 8
 * and 8 against 4).  The first routing counts per layer and lets layer 0
 * deal as at LMC 0, so layer 0 is LMC 0 exactly; the other layers avoid
 * its parents as before.  The leaf repair that follows is greedy, and on
 * some trees a layer of the old routing (one count, every layer avoiding
 * the others) ends lower than the same layer of the new one, or the other
 * way round.  So both are routed and repaired, and each layer keeps the
 * columns of the routing whose repair ended with the lower worst shift
 * load, then fewer (shift, link) at it; ties keep the first.  A column is
 * a complete routing of its LID, so layers may come from different
 * routings.  Only layers that both repairs counted are compared.  Above
 * RM_CHECK_FLOWS flows the second routing is made only when some layer
 * ended above layer 0. */
static int layers_alt(struct dk *c, const uint32_t *eoff, const uint32_t *elist, uint64_t xsw0,
		      uint32_t nlayers, struct ibf_error *err)
{
	const struct ibf_fabric *f = c->f;
	struct ibf_routes *r = c->r, r3;
	uint32_t L = nlayers < c->nlayers ? nlayers : c->nlayers;
	uint32_t *wb = malloc((size_t)c->nlayers * 2 * sizeof(uint32_t) + L);
	if (!wb)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	memcpy(wb, c->lrw, (size_t)c->nlayers * 2 * sizeof(uint32_t));
	/* the first routing's layers that kept chains of moves */
	uint8_t *chb = (uint8_t *)(wb + 2 * (size_t)c->nlayers);
	memcpy(chb, c->lrch, L);
	int any = 0, above = 0;
	for (uint32_t j = 0; j < L; j++) {
		any |= wb[2 * j] != UINT32_MAX;
		above |= wb[2 * j] != UINT32_MAX && wb[2 * j] > wb[0];
	}
	memset(&r3, 0, sizeof(r3));
	int rc = 0;
	if (!any)
		goto done; /* not repaired: nothing to compare */
	/* layer 0 is LMC 0's routing: when no layer ended above it, every
	 * layer is as good as LMC 0 already.  On a large tree the second
	 * routing (as long as the first, repair included: 25 s at LMC 2 on
	 * 8192 hosts) is then not worth its time; below the closed-slot
	 * check's size it still runs (it may end some layer lower) */
	uint64_t N = (uint64_t)c->t->nleaf_hosts + c->t->nspine_hosts;
	if ((!above || wb[0] == UINT32_MAX) && (uint64_t)L * N * N > RM_CHECK_FLOWS)
		goto done;
	if ((rc = ibf_routes_init(&r3, r->nsw, r->max_lid, r->hops != NULL, err)))
		goto done;
	/* the old routing, quietly: one count over all layers, every layer
	 * avoiding the others' parents */
	memset(c->deal, 0, (size_t)c->S * c->nlayers * sizeof(uint32_t));
	memset(c->moved_missing, 0, c->S * sizeof(uint64_t));
	memset(c->moved_other, 0, c->S * sizeof(uint64_t));
	c->moved_unusable = c->fallback = c->chain_weighted = 0;
	c->fallback_dests = 0;
	uint32_t dln = c->dln;
	c->dln = 1;
	c->own0 = 0;
	c->quiet = 1;
	c->r = &r3;
	route_all(c, eoff, elist, xsw0);
	memset(c->lrw, 0xff, (size_t)c->nlayers * 2 * sizeof(uint32_t));
	c->lrtgt = wb;
	leaf_repair(c, nlayers);
	c->lrtgt = NULL;
	c->r = r;
	c->quiet = 0;
	c->dln = dln;
	c->own0 = 1;
	char buf[256];
	size_t u = 0;
	buf[0] = '\0';
	for (uint32_t j = 0; j < L; j++) {
		uint32_t *a = c->lrw + 2 * j, *b = wb + 2 * j;
		/* a layer of the first routing that only its chains took to
		 * W or below loses the tie: the second routing's layer was
		 * what the repair chose before the chains */
		if (a[0] == UINT32_MAX || b[0] == UINT32_MAX ||
		    !(a[0] < b[0] || (a[0] == b[0] && (a[1] < b[1] || chb[j]))))
			continue;
		int w = snprintf(buf + u, sizeof(buf) - u, "%s%u (%u against %u)", u ? ", " : "",
				 j, a[0], b[0]);
		if (w > 0 && (size_t)w < sizeof(buf) - u)
			u += (size_t)w;
		for (uint32_t n = 0; n < f->nnodes; n++) {
			for (int p = 0; p <= f->nodes[n].nports; p++) {
				if (p ? f->nodes[n].type == IBF_NODE_SWITCH
				      : f->nodes[n].type != IBF_NODE_SWITCH)
					continue;
				const struct ibf_port *pp = ibf_port(f, (int)n, p);
				uint32_t lid = pp->lid + j;
				if (!pp->lid || j >= (1u << pp->lmc) || lid > r->max_lid)
					continue;
				for (uint32_t s = 0; s < c->S; s++) {
					size_t k = (size_t)s * r->stride + lid;
					size_t k3 = (size_t)s * r3.stride + lid;
					r->lft[k] = r3.lft[k3];
					if (r->hops && r3.hops)
						r->hops[k] = r3.hops[k3];
				}
			}
		}
	}
	if (u)
		log_msg(c, IBF_LOG_INFO,
			"dmodk: LMC layers, the routing with one down count over all layers ended "
			"lower in layer(s) %s: they keep its columns",
			buf);
done:
	ibf_routes_free(&r3);
	free(wb);
	return rc;
}

/* The names of the switches with flag[s] set, comma-separated, the first
 * four and "..." after them. */
static void flagged_names(const struct ibf_fabric *f, const struct ibf_ftree *t,
			  const uint8_t *flag, char *names, size_t len)
{
	char nm[96];
	size_t u = 0;
	uint32_t k = 0;
	names[0] = '\0';
	for (uint32_t s = 0; s < t->nsw && u < len; s++) {
		if (!flag[s])
			continue;
		int n = k < 4 ? snprintf(names + u, len - u, "%s%s", k ? ", " : "",
					 ibf_ftree_swname(f, s, nm, sizeof(nm)))
			      : k == 4 ? snprintf(names + u, len - u, ", ...") : 0;
		if (n > 0)
			u += (size_t)n;
		k++;
	}
}

static int dmodk_run(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		     const struct ibf_dmodk_opts *d, struct ibf_routes *r,
		     struct ibf_route_report *rep, struct ibf_error *err)
{
	double t0 = ibf_now(); /* f, r and d checked by ibf_route_dmodk_ex */
	if (r->nsw != f->nsw || r->max_lid < ibf_max_lid(f))
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"route table is %u switches x LID %u; the fabric needs %u x %u", r->nsw,
			r->max_lid, f->nsw, ibf_max_lid(f));
	struct ibf_ftree t;
	/* "not a fat tree" is returned, not logged as well: the caller reports
	 * it (the CLI and the plugin printed it twice) */
	int rc = ibf_ftree_build(f, &d->tree, &t, err);
	if (rc)
		return rc;
	uint32_t S = f->nsw;
	struct dk c;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.t = &t;
	c.o = o;
	c.d = d;
	c.r = r;
	c.S = S;
	uint32_t *eoff = NULL, *elist = NULL;
	if ((rc = dk_setup(&c, &eoff, &elist, err)))
		goto out;

	char desc[512];
	ibf_ftree_describe(&t, desc, sizeof(desc));
	log_msg(&c, IBF_LOG_INFO, "dmodk: %s", desc);
	if (t.demoted)
		log_msg(&c, IBF_LOG_INFO,
			"dmodk: %u switch%s with hosts sit%s above the leaves (hosts on a spine); "
			"their %u host port%s get indices %u.. after the leaf slots",
			t.demoted, t.demoted == 1 ? "" : "es", t.demoted == 1 ? "s" : "",
			t.nspine_hosts, t.nspine_hosts == 1 ? "" : "s", t.nslots + t.ninside);
	if (t.shallow) {
		char names[256];
		flagged_names(f, &t, t.shallow_sw, names, sizeof(names));
		log_msg(&c, IBF_LOG_INFO,
			"dmodk: %u switch%s with hosts cabled only to switches above the other "
			"leaves' parents (a leaf at another depth, e.g. a service leaf on the "
			"core): %s; each sits one level below its lowest neighbour with up-port "
			"slots of its own, its hosts after the leaf slots",
			t.shallow, t.shallow == 1 ? "" : "es", names);
	}
	if (t.tophost) {
		char names[256];
		flagged_names(f, &t, t.top_sw, names, sizeof(names));
		const char *one = t.tophost == 1 ? "its" : "their";
		if (t.topall == IBF_FTREE_TOPALL_FEWER_HOSTS)
			log_msg(&c, IBF_LOG_INFO,
				"dmodk: %u switch%s with hosts on the top level (hosts on every top "
				"switch, so none is left there to compare with: assumed that the "
				"switches with fewer hosts than the fullest leaf, whose children "
				"lie in different pods, are the top; give a roots file if not): "
				"%s; %s hosts get indices after the leaf slots",
				t.tophost, t.tophost == 1 ? "" : "es", names, one);
		else if (t.topall == IBF_FTREE_TOPALL_SPLIT)
			log_msg(&c, IBF_LOG_INFO,
				"dmodk: %u switch%s with hosts on the top level (hosts on every top "
				"switch: the tree below falls apart without %s): %s; %s hosts get "
				"indices after the leaf slots",
				t.tophost, t.tophost == 1 ? "" : "es", t.tophost == 1 ? "it" : "them",
				names, one);
		else if (t.source == IBF_FTREE_BY_LEAVES)
			log_msg(&c, IBF_LOG_INFO,
				"dmodk: %u switch%s with hosts on the top level (hosts on a top "
				"switch: %s children lie in different pods): %s; %s hosts get "
				"indices after the leaf slots",
				t.tophost, t.tophost == 1 ? "" : "es", one, names, one);
		else
			log_msg(&c, IBF_LOG_INFO,
				"dmodk: %u switch%s with hosts on the top level (hosts on a top "
				"switch, levels from %s): %s; %s hosts get indices after the leaf "
				"slots",
				t.tophost, t.tophost == 1 ? "" : "es",
				t.source == IBF_FTREE_BY_ROOTS ? "the roots" : "the ft-l names", names,
				one);
	}
	if (t.ninside)
		log_msg(&c, IBF_LOG_INFO,
			"dmodk: %u CA port%s inside %s leaf switch (SHARP aggregation nodes) %s "
			"indices %u.. after the leaf hosts, so the hosts' indices have no gaps",
			t.ninside, t.ninside == 1 ? "" : "s", t.ninside == 1 ? "its" : "their",
			t.ninside == 1 ? "gets" : "get", t.nslots);

	int maxlmc = 0;
	uint64_t xsw0 = (uint64_t)t.nslots; /* switch LIDs after every end port's index */
	for (uint32_t i = 0; i < t.nends; i++)
		if ((uint64_t)t.ends[i].index + 1 > xsw0)
			xsw0 = (uint64_t)t.ends[i].index + 1;
	remap_all(&c);
	/* each layer counts its own down loads on a 2-level tree that lost a
	 * cable or has hosts on a spine, and on a damaged tree of 3+ levels
	 * (dl_layer); there layer 0 also deals as at LMC 0 (layers_alt) */
	if (t.levels == 2 && (t.missing_slots || t.nspine_hosts))
		c.dln = c.nlayers;
	int alt = damaged3(&t) && c.nlayers > 1;
	if (alt) {
		c.dln = c.nlayers;
		c.own0 = 1;
	}
	struct ibf_routes r2;
	memset(&r2, 0, sizeof(r2));
	int guard = rm_guarded(&c);
	if (guard) {
		/* the same fabric by the dealing counters alone, for rm_check */
		if ((rc = ibf_routes_init(&r2, r->nsw, r->max_lid, r->hops != NULL, err)))
			goto out;
		c.r = &r2;
		c.rm_nouse = 1;
		route_all(&c, eoff, elist, xsw0);
		c.r = r;
		c.rm_nouse = 0;
		memset(c.deal, 0, (size_t)S * c.nlayers * sizeof(uint32_t));
		memset(c.moved_missing, 0, S * sizeof(uint64_t));
		memset(c.moved_other, 0, S * sizeof(uint64_t));
		c.moved_unusable = c.fallback = c.chain_weighted = 0;
		c.fallback_dests = 0;
	}
	maxlmc = route_all(&c, eoff, elist, xsw0);
	if (guard)
		rc = rm_check(&c, &r2, err);
	ibf_routes_free(&r2);
	if (rc)
		goto out;
	memset(c.lrw, 0xff, (size_t)c.nlayers * 2 * sizeof(uint32_t));
	leaf_repair(&c, 1u << maxlmc);
	r->lmc = maxlmc;
	snprintf(r->engine, sizeof(r->engine), "dmodk");
	log_irregular(&c);
	if (alt && (rc = layers_alt(&c, eoff, elist, xsw0, 1u << maxlmc, err)))
		goto out;
	if (!d->no_balance)
		path_balance(&c, 1u << maxlmc);
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		rep->layers = 1 << maxlmc;
		rep->seconds = ibf_now() - t0;
	}
out:
	dk_free(&c);
	free(eoff);
	free(elist);
	ibf_ftree_free(&t);
	return rc;
}

/* the engine's options from the route options (the roots file's GUIDs) */
static void dmodk_opts_of(const struct ibf_route_opts *o, struct ibf_dmodk_opts *d)
{
	ibf_dmodk_opts_default(d);
	if (o && o->roots && o->nroots) {
		d->tree.roots = o->roots;
		d->tree.nroots = o->nroots;
	}
}

/* D-mod-K gives every up-cable of a switch the same share of destinations,
 * whatever its rate: the cables far below their rate are left out
 * (ibf_route_drop_slow), each unless leaving it out as well leaves no tree
 * (then it is used as it is; with no tree either way, nothing is left out
 * and the engine says so itself). */
static int tree_check(const struct ibf_fabric *lean, const struct ibf_fabric *f, void *arg,
		      const char **why, int *quiet, struct ibf_error *err)
{
	(void)err;
	const struct ibf_dmodk_opts *d = arg;
	struct ibf_ftree t;
	struct ibf_error e2;
	ibf_error_clear(&e2);
	if (!ibf_ftree_build(lean, &d->tree, &t, &e2)) {
		ibf_ftree_free(&t);
		return 0;
	}
	*why = "would leave no fat tree";
	if (ibf_ftree_build(f, &d->tree, &t, &e2))
		*quiet = 1;
	else
		ibf_ftree_free(&t);
	return 0;
}

static int without_degraded(const struct ibf_fabric *f, const struct ibf_route_opts *o,
			    const struct ibf_dmodk_opts *d, struct ibf_fabric **lean,
			    struct ibf_error *err)
{
	return ibf_route_drop_slow(f, o, "dmodk", tree_check, (void *)d, lean, err);
}

int ibf_dmodk_lean(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		   struct ibf_fabric **lean, struct ibf_error *err)
{
	*lean = NULL;
	if (!f || !f->finalized)
		return 0;
	struct ibf_dmodk_opts d;
	dmodk_opts_of(o, &d);
	struct ibf_route_opts q;
	ibf_route_opts_quiet(o, &q); /* the engine's own run says it */
	return without_degraded(f, &q, &d, lean, err);
}

/* 1 when some CA or router port is cabled to a switch */
static int has_hosts(const struct ibf_fabric *f)
{
	for (uint32_t v = 0; v < f->nnodes; v++) {
		const struct ibf_node *n = &f->nodes[v];
		if (n->type == IBF_NODE_SWITCH)
			continue;
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)v, p);
			if (pp->peer_node != IBF_NO_NODE &&
			    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH)
				return 1;
		}
	}
	return 0;
}

int ibf_route_dmodk_ex(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		       const struct ibf_dmodk_opts *d, struct ibf_routes *r,
		       struct ibf_route_report *rep, struct ibf_error *err)
{
	struct ibf_dmodk_opts defd;
	if (!d) {
		ibf_dmodk_opts_default(&defd);
		d = &defd;
	}
	if (!f || !r || !r->lft)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fabric or route table");
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	/* Switches and no host (an SM on a switch whose every neighbour is
	 * gone, or on a spine that lost all its leaves): there is no tree to
	 * find and nothing to balance, only the switches' own LIDs to reach.
	 * Shortest paths do that; failing here made OpenSM fall back to its
	 * own engine. */
	if (f->nsw && !has_hosts(f)) {
		if (o)
			ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
				 "dmodk: no switch has hosts (%u switch%s, no CA): the switch "
				 "LIDs are routed on shortest paths",
				 f->nsw, f->nsw == 1 ? "" : "es");
		return ibf_route_minimal(f, o, r, rep, err);
	}
	struct ibf_fabric *lean = NULL;
	int rc = without_degraded(f, o, d, &lean, err);
	if (rc)
		return rc;
	rc = dmodk_run(lean ? lean : f, o, d, r, rep, err);
	ibf_fabric_free(lean);
	return rc;
}

int ibf_route_dmodk(const struct ibf_fabric *f, const struct ibf_route_opts *o,
		    struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	struct ibf_dmodk_opts d;
	dmodk_opts_of(o, &d);
	return ibf_route_dmodk_ex(f, o, &d, r, rep, err);
}
