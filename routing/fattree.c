/* Fat-tree recognition: levels, up/down ports, up-port slots, D-mod-K
 * numbering of the hosts.
 *
 * Levels.  In order of preference: (1) BFS down from the root switches the
 * caller names; (2) the generator's "ft-l<level>-s<idx>" names when every
 * switch carries one; (3) BFS over the switch graph from the leaves.  The
 * leaves are the switches with hosts, minus "hosts on a spine": while two
 * switches with hosts are linked, the one linked to the most other
 * switches with hosts (at least two of them; then the most switch links,
 * then the highest GUID rank) is taken out of the leaf set, because a leaf
 * has no switch below it.  A link between exactly two switches with hosts
 * is left alone and reported as breaking the tree.  Leaves at another
 * depth (shallow_leaves: with them BFS gives no tree) and hosts on a top
 * switch (top_hosts: with them the pods merge into one block; when every
 * top switch has hosts, flat_candidates and deep_top_hosts' second kind)
 * are taken out of the leaf set as well.
 *
 * A tree: every switch link joins adjacent levels.  Anything else is
 * reported with the offending links named, and IBF_ENOTSUP is returned (the
 * OpenSM plugin then falls back to the next engine).
 *
 * Up-port slots.  The switches of level l joined through common parents
 * form a block; the block's W parents, in GUID order, each with as many
 * slots (p_y) as the most cables any switch of the block has to parent y,
 * are the slots of every switch of the block, cable-major: round c holds
 * the c-th cable (port order) of every parent with p_y > c (slot c * W + i
 * on an even tree), so the parent of slot k is k mod W there, a parent
 * receives every W-th destination and the next level can spread them by
 * floor(x / W); uneven bundles give each parent slots in proportion to its
 * cables.  A missing cable stays a slot (IBF_FTREE_MISSING, slot_par and
 * slot_cab still name its parent and rank), so the other slots keep their
 * positions; dmodk spreads the slot's destinations over the cables left.
 *
 * Numbering.  Leaves are sorted by the components of the subgraph of
 * levels <= l (l = h-1 down to 1; each component keyed by its smallest
 * GUID rank): every subtree is a run of consecutive leaves.  With 3+
 * levels the host ports of leaf i, in port order, get indices i * H .. i * H
 * + n_i - 1 with H the largest host count of any leaf (the rest of the run
 * are phantom slots); with 2 levels they are numbered consecutively (no
 * subtree runs to keep).  Hosts on switches above level 1 follow; one on a
 * level-2 switch s takes the next index whose leaf slot has parent s (a
 * virtual leaf below s).
 */
#include "ibf_fattree.h"
#include "ibf_text.h"
#include "uf.h"

#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOSLOT UINT32_MAX

void ibf_ftree_opts_default(struct ibf_ftree_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->use_names = 1;
}

/* the description alone, for messages that give the GUID themselves */
static const char *swdesc(const struct ibf_fabric *f, uint32_t sw)
{
	const struct ibf_node *n = &f->nodes[f->switches[sw]];
	return n->desc && *n->desc ? n->desc : n->id && *n->id ? n->id : "?";
}

const char *ibf_ftree_swname(const struct ibf_fabric *f, uint32_t sw, char *buf, size_t len)
{
	/* the description, with the GUID when other switches share it */
	return ibf_node_label(f, (int)f->switches[sw], buf, len);
}

struct guid_key {
	uint64_t guid;
	uint32_t sw;
};

static int cmp_guid_key(const void *a, const void *b)
{
	const struct guid_key *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* multi-source BFS over switch links; dist IBF_DIST_INF when unreached */
static void bfs_multi(const struct ibf_fabric *f, const uint8_t *src, uint32_t *dist,
		      uint32_t *queue)
{
	uint32_t head = 0, tail = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		dist[s] = IBF_DIST_INF;
		if (src[s]) {
			dist[s] = 0;
			queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t s = queue[head++];
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (dist[nb] == IBF_DIST_INF) {
				dist[nb] = dist[s] + 1;
				queue[tail++] = nb;
			}
		}
	}
}

/* "ft-l<level>-s<digits>" -> level, else 0 */
static int name_level(const char *s)
{
	if (!s || strncmp(s, "ft-l", 4))
		return 0;
	s += 4;
	if (!isdigit((unsigned char)*s))
		return 0;
	long l = 0;
	while (isdigit((unsigned char)*s) && l < 1000)
		l = l * 10 + (*s++ - '0');
	if (strncmp(s, "-s", 2) || !isdigit((unsigned char)s[2]))
		return 0;
	return (int)l;
}

static int levels_by_names(const struct ibf_fabric *f, uint8_t *level)
{
	for (uint32_t s = 0; s < f->nsw; s++) {
		const struct ibf_node *n = &f->nodes[f->switches[s]];
		int l = name_level(n->desc);
		if (!l)
			l = name_level(n->id);
		if (l < 1 || l > IBF_FTREE_MAX_LEVELS)
			return 0;
		level[s] = (uint8_t)l;
	}
	return 1;
}

static int levels_by_roots(const struct ibf_fabric *f, const struct ibf_ftree_opts *o,
			   uint8_t *level, uint32_t *dist, uint32_t *queue, struct ibf_error *err)
{
	uint8_t *src = calloc(f->nsw ? f->nsw : 1, 1);
	if (!src)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t i = 0; i < o->nroots; i++) {
		int node = ibf_fabric_find_guid(f, o->roots[i]);
		if (node < 0 || f->nodes[node].type != IBF_NODE_SWITCH) {
			free(src);
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "root GUID 0x%016llx is not a switch of this fabric",
					     (unsigned long long)o->roots[i]);
		}
		src[f->nodes[node].sw] = 1;
	}
	bfs_multi(f, src, dist, queue);
	free(src);
	uint32_t maxd = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (dist[s] == IBF_DIST_INF) {
			char nm[96];
			return ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
					     "switch %s is not connected to the roots",
					     ibf_ftree_swname(f, s, nm, sizeof(nm)));
		}
		if (dist[s] > maxd)
			maxd = dist[s];
	}
	if (maxd + 1 > IBF_FTREE_MAX_LEVELS)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "the tree below the roots has %u levels; at most %d supported",
				     maxd + 1, IBF_FTREE_MAX_LEVELS);
	for (uint32_t s = 0; s < f->nsw; s++)
		level[s] = (uint8_t)(maxd + 1 - dist[s]);
	return 0;
}

/* Links whose ends are not on adjacent levels of dist (ends with
 * skip[] set left out), their ends marked in end[] when end is not NULL. */
static uint32_t bad_links(const struct ibf_fabric *f, const uint32_t *dist, const uint8_t *skip,
			  uint8_t *end)
{
	uint32_t bad = 0;
	if (end)
		memset(end, 0, f->nsw);
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (skip[s])
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (skip[nb] || dist[s] == IBF_DIST_INF || dist[nb] == IBF_DIST_INF)
				continue;
			if (dist[s] + 1 == dist[nb] || dist[nb] + 1 == dist[s])
				continue;
			bad++;
			if (end)
				end[s] = end[nb] = 1;
		}
	}
	return bad;
}

/* Leaves at another depth: a switch with hosts cabled straight to switches
 * of a higher level than the other leaves' parents (a service or storage
 * leaf on the core switches of a 3-level tree).  BFS from every leaf puts
 * those core switches a level too low, next to the switches below them.
 * While links join switches that are not on adjacent levels, the leaves
 * all of whose cables go to the ends of such links are taken out of the
 * BFS sources, as long as that leaves fewer such links; when none is left,
 * each of them is placed one level below its lowest neighbour (a switch
 * with hosts above level 1, like hosts on a spine; *shallow counts them)
 * and dist describes the others.  When that does not give a tree, dist and
 * leaf[] are as they came in and the caller's check names the links. */
static int shallow_leaves(const struct ibf_fabric *f, uint8_t *leaf, uint32_t nleaf,
			  uint8_t *level, uint32_t *dist, uint32_t *queue, uint8_t *sh,
			  uint32_t *shallow, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	*shallow = 0;
	uint8_t *out = calloc(S ? S : 1, 1), *end = malloc(S ? S : 1);
	if (!out || !end) {
		free(out);
		free(end);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	uint32_t nbad = bad_links(f, dist, out, end), nout = 0;
	for (int round = 0; nbad && round < 8; round++) {
		uint32_t nc = 0;
		for (uint32_t s = 0; s < S; s++) {
			if (!leaf[s] || f->adj_off[s] == f->adj_off[s + 1])
				continue;
			uint32_t e = f->adj_off[s];
			while (e < f->adj_off[s + 1] && end[f->adj[e].nbr] && !leaf[f->adj[e].nbr])
				e++;
			if (e == f->adj_off[s + 1]) {
				leaf[s] = 2; /* candidate */
				nc++;
			}
		}
		if (!nc || nc + nout >= nleaf) {
			for (uint32_t s = 0; s < S; s++)
				leaf[s] = leaf[s] ? 1 : 0;
			break;
		}
		for (uint32_t s = 0; s < S; s++)
			if (leaf[s] == 2) {
				leaf[s] = 0;
				out[s] = 1;
			}
		bfs_multi(f, leaf, dist, queue);
		uint32_t nb2 = bad_links(f, dist, out, end);
		if (nb2 >= nbad) {
			nout += nc;
			nbad = UINT32_MAX; /* no better: undo the whole attempt */
			break;
		}
		nout += nc;
		nbad = nb2;
	}
	int ok = nout && nbad == 0;
	if (ok) {
		/* one level below the lowest neighbour, which must be above the
		 * leaves' parents' level; every neighbour then one level up */
		for (uint32_t s = 0; s < S && ok; s++) {
			if (!out[s])
				continue;
			uint32_t lo = IBF_DIST_INF;
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
				uint32_t nb = f->adj[e].nbr;
				if (out[nb] || dist[nb] == IBF_DIST_INF)
					continue;
				if (dist[nb] < lo)
					lo = dist[nb];
			}
			if (lo == IBF_DIST_INF || lo < 2 || lo + 1 > IBF_FTREE_MAX_LEVELS) {
				ok = 0;
				break;
			}
			level[s] = (uint8_t)lo; /* dist lo is level lo + 1 */
		}
	}
	if (!ok) {
		for (uint32_t s = 0; s < S; s++)
			if (out[s]) {
				leaf[s] = 1;
				level[s] = 0;
			}
		if (nout)
			bfs_multi(f, leaf, dist, queue);
	} else {
		*shallow = nout;
		memcpy(sh, out, S);
	}
	free(out);
	free(end);
	return 0;
}

/* 1 when the neighbours of switch s that have child[] set lie in two or
 * more blocks of the union-find uf. */
static int nbrs_split(const struct ibf_fabric *f, uint32_t s, const uint8_t *child, uint32_t *uf)
{
	uint32_t blk = UINT32_MAX;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		uint32_t nb = f->adj[e].nbr;
		if (!child[nb])
			continue;
		uint32_t r = uf_find(uf, nb);
		if (blk == UINT32_MAX)
			blk = r;
		else if (r != blk)
			return 1;
	}
	return 0;
}

/* top_hosts when the top level joins every level-2 switch into one block
 * (every top switch cabled to every level-2 switch): the first test then
 * holds for every leaf and no pods are left to count.  The candidates
 * (cand[], which held the first test's) are then the leaves cabled like a
 * top switch: two or more switch neighbours, all on level 2, covering more
 * than half of the level-2 neighbours of some switch of level 3 (a real
 * leaf covers its pod's level-2 switches only, at most half of them when
 * there are two pods or more).  0 (and cand[] cleared) when the level-2
 * switches that have parents (child[]) lie in more than one block of uf;
 * UINT32_MAX when out of memory.  cnt: S words of scratch. */
static uint32_t twin_candidates(const struct ibf_fabric *f, const uint32_t *dist,
				const uint8_t *sh, const uint8_t *child, uint32_t *uf,
				uint8_t *cand, uint32_t *cnt)
{
	uint32_t S = f->nsw, blk = UINT32_MAX, n = 0;
	memset(cand, 0, S);
	for (uint32_t s = 0; s < S; s++) {
		if (!child[s])
			continue;
		if (blk == UINT32_MAX)
			blk = uf_find(uf, s);
		else if (uf_find(uf, s) != blk)
			return 0;
	}
	if (blk == UINT32_MAX)
		return 0;
	uint32_t *seen = calloc(S, sizeof(uint32_t)), *ny = calloc(S, sizeof(uint32_t));
	if (!seen || !ny) {
		free(seen);
		free(ny);
		return UINT32_MAX;
	}
	/* ny[y]: distinct level-2 neighbours of each level-3 switch y */
	uint32_t stamp = 0;
	for (uint32_t y = 0; y < S; y++) {
		if (sh[y] || dist[y] != 2)
			continue;
		stamp++;
		for (uint32_t e = f->adj_off[y]; e < f->adj_off[y + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (!sh[nb] && dist[nb] == 1 && seen[nb] != stamp) {
				seen[nb] = stamp;
				ny[y]++;
			}
		}
	}
	memset(cnt, 0, S * sizeof(uint32_t));
	for (uint32_t x = 0; x < S; x++) {
		if (dist[x] != 0 || sh[x])
			continue;
		uint32_t distinct = 0;
		int ok = 1;
		stamp++;
		uint32_t mark = stamp;
		for (uint32_t e = f->adj_off[x]; e < f->adj_off[x + 1] && ok; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (sh[nb] || dist[nb] != 1) {
				ok = 0;
				break;
			}
			if (seen[nb] == mark)
				continue;
			seen[nb] = mark;
			distinct++;
		}
		if (!ok || distinct < 2)
			continue;
		/* cnt[y]: x's neighbours among y's, each counted once */
		for (uint32_t e = f->adj_off[x]; e < f->adj_off[x + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (seen[nb] != mark)
				continue;
			seen[nb] = mark + 1; /* done; the next stamp skips this value */
			for (uint32_t e2 = f->adj_off[nb]; e2 < f->adj_off[nb + 1]; e2++) {
				uint32_t y = f->adj[e2].nbr;
				if (sh[y] || dist[y] != 2 || cnt[y] & 0x80000000u)
					continue;
				cnt[y] = (cnt[y] + 1) | 0x80000000u; /* once per nb */
			}
			for (uint32_t e2 = f->adj_off[nb]; e2 < f->adj_off[nb + 1]; e2++)
				cnt[f->adj[e2].nbr] &= 0x7fffffffu;
		}
		stamp++;
		for (uint32_t e = f->adj_off[x]; e < f->adj_off[x + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			for (uint32_t e2 = f->adj_off[nb]; e2 < f->adj_off[nb + 1]; e2++) {
				uint32_t y = f->adj[e2].nbr;
				if (cnt[y] && 2 * (uint64_t)cnt[y] > ny[y])
					cand[x] = 1;
				cnt[y] = 0;
			}
		}
		n += cand[x];
	}
	free(seen);
	free(ny);
	return n;
}

/* top_hosts when every top switch has hosts: BFS from the leaves then
 * puts the top switches on level 1 next to the leaves and their children
 * on level 2 with the leaves' parents, a 2-level tree with every pod's
 * switches in one block and most up-port slots missing (dist has nothing
 * above 1).  No switch is left on the top to compare with, and on an even
 * tree the two readings are the same graph (a pod's leaves cabled to its
 * row of level-2 switches, a top switch to its column), so the structure
 * alone cannot tell which side is the top.  The candidates (cand[]) are the
 * leaves with fewer hosts than the most any leaf has (hosts on a top switch
 * use its spare ports; a leaf is mostly hosts), at least 2 switch
 * neighbours, all at dist 1; the pod, BFS and missing-slot tests of
 * top_hosts then decide.  0 when dist reaches above 1. */
static uint32_t flat_candidates(const struct ibf_fabric *f, const uint8_t *leaf,
				const uint32_t *dist, const uint8_t *sh, const uint32_t *nhost,
				uint8_t *cand)
{
	uint32_t S = f->nsw, hmax = 0, n = 0;
	memset(cand, 0, S);
	for (uint32_t s = 0; s < S; s++) {
		if (!sh[s] && dist[s] != IBF_DIST_INF && dist[s] > 1)
			return 0;
		if (leaf[s] && nhost[s] > hmax)
			hmax = nhost[s];
	}
	for (uint32_t s = 0; s < S; s++) {
		if (!leaf[s] || nhost[s] >= hmax)
			continue;
		uint32_t first = UINT32_MAX;
		int ok = 1, two = 0;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1] && ok; e++) {
			uint32_t nb = f->adj[e].nbr;
			ok = !sh[nb] && dist[nb] == 1;
			if (first == UINT32_MAX)
				first = nb;
			else if (nb != first)
				two = 1;
		}
		cand[s] = (uint8_t)(ok && two);
		n += cand[s];
	}
	return n;
}

/* Hosts on a top switch.  A top switch of a 3-level tree with hosts is
 * linked to no other switch with hosts, so it passes for a leaf: BFS then
 * puts it on level 1 and its children (one level-2 switch per pod, all
 * under one set of top switches) on level 2, where they join the pods'
 * blocks into one, and most up-port slots are missing.  dist is that tree
 * (links on adjacent levels, shallow leaves sh[] placed).  A leaf x is such
 * a switch when
 *  - x has at least 2 switch neighbours, the ones with parents all in one
 *    block of level 2 (what a top switch's children are; a leaf's parents
 *    lie in every plane),
 *  - with the leaves that do not pass the first test (the real leaves),
 *    x's neighbours lie in at least 2 blocks of level 1 (pods),
 *  - BFS without every such x leaves each other switch where it was, x's
 *    neighbours on level 2 and no switch above level 3: x goes to level 3.
 * th[] marks them; the caller keeps them only when that tree has fewer
 * missing up-port slots than the tree with them as leaves.  mode TH_TWIN
 * and TH_FLAT take the first test's candidates from twin_candidates and
 * flat_candidates instead (nhost: hosts per switch, for TH_FLAT). */
enum { TH_PLAIN, TH_TWIN, TH_FLAT };
static int top_hosts(const struct ibf_fabric *f, const uint8_t *leaf, const uint32_t *dist,
		     const uint8_t *sh, const uint32_t *nhost, uint32_t *queue, uint8_t *th,
		     uint32_t *ntop, int mode, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	*ntop = 0;
	memset(th, 0, S);
	uint32_t *uf = malloc(S * sizeof(uint32_t)), *d2 = malloc(S * sizeof(uint32_t));
	uint8_t *cand = calloc(S, 1), *child = calloc(S, 1), *src = calloc(S, 1);
	int rc = 0;
	if (!uf || !d2 || !cand || !child || !src) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* the blocks of level 2: components of the links from dist 1 up */
	for (uint32_t s = 0; s < S; s++)
		uf[s] = s;
	for (uint32_t s = 0; s < S; s++) {
		if (sh[s] || dist[s] != 1)
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (!sh[nb] && dist[nb] == 2) {
				uf_join(uf, s, nb);
				child[s] = 1; /* has a parent */
			}
		}
	}
	uint32_t ncand = 0;
	for (uint32_t s = 0; s < S; s++) {
		if (!leaf[s])
			continue;
		uint32_t first = UINT32_MAX;
		int ok = 1, two = 0;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr;
			if (sh[nb] || dist[nb] != 1) {
				ok = 0;
				break;
			}
			if (first == UINT32_MAX)
				first = nb;
			else if (nb != first)
				two = 1;
		}
		if (ok && two && !nbrs_split(f, s, child, uf)) {
			cand[s] = 1;
			ncand++;
		}
	}
	if (mode == TH_TWIN &&
	    (ncand = twin_candidates(f, dist, sh, child, uf, cand, d2)) == UINT32_MAX) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	if (mode == TH_FLAT)
		ncand = flat_candidates(f, leaf, dist, sh, nhost, cand);
	if (!ncand)
		goto out;
	/* the blocks of level 1 of the other leaves; child[]: has one of them */
	memset(child, 0, S);
	for (uint32_t s = 0; s < S; s++)
		uf[s] = s;
	for (uint32_t s = 0; s < S; s++) {
		if (!leaf[s] || cand[s])
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uf_join(uf, s, f->adj[e].nbr);
			child[f->adj[e].nbr] = 1;
		}
	}
	for (uint32_t s = 0; s < S; s++) {
		if (!cand[s])
			continue;
		th[s] = (uint8_t)nbrs_split(f, s, child, uf);
		*ntop += th[s];
	}
	if (!*ntop)
		goto out;
	for (uint32_t s = 0; s < S; s++)
		src[s] = leaf[s] && !th[s];
	bfs_multi(f, src, d2, queue);
	for (uint32_t s = 0; s < S && *ntop; s++)
		if (th[s] ? d2[s] != 2 : d2[s] != dist[s] || (!sh[s] && dist[s] > 2))
			*ntop = 0;
	if (!*ntop)
		memset(th, 0, S);
out:
	free(uf);
	free(d2);
	free(cand);
	free(child);
	free(src);
	return rc;
}

/* leaves = switches with hosts, minus hosts-on-a-spine (see the top) and
 * leaves at another depth (shallow_leaves); th[] (*ntop of them) the leaves
 * that may be hosts on a top switch (top_hosts), still on level 1 here.
 * skip (or NULL): switches taken out of the leaves after the spine rule
 * (deep_top_hosts; top_hosts is not tried then); leaf_out (or NULL) gets
 * the leaves after the spine rule, before shallow_leaves; *flat (flat may
 * be NULL) is set to 1 when th[] came from flat_candidates. */
static int levels_by_leaves(const struct ibf_fabric *f, const uint32_t *nhost, const uint32_t *rank,
			    uint8_t *level, uint32_t *dist, uint32_t *queue, uint32_t *demoted,
			    uint8_t *sh, uint32_t *shallow, uint8_t *th, uint32_t *ntop, uint8_t *flat,
			    const uint8_t *skip, uint8_t *leaf_out, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	uint8_t *leaf = calloc(S ? S : 1, 1);
	uint32_t *seen = calloc(S ? S : 1, sizeof(uint32_t));
	if (!leaf || !seen) {
		free(leaf);
		free(seen);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	uint32_t nleaf = 0, stamp = 0;
	for (uint32_t s = 0; s < S; s++)
		if (nhost[s]) {
			leaf[s] = 1;
			nleaf++;
		}
	*demoted = 0;
	for (;;) {
		uint32_t best = UINT32_MAX, bhn = 0, bdeg = 0;
		for (uint32_t s = 0; s < S; s++) {
			if (!leaf[s])
				continue;
			uint32_t hn = 0;
			stamp++;
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
				uint32_t nb = f->adj[e].nbr;
				if (nb != s && leaf[nb] && seen[nb] != stamp) {
					seen[nb] = stamp;
					hn++;
				}
			}
			uint32_t deg = f->adj_off[s + 1] - f->adj_off[s];
			if (hn < 2)
				continue;
			if (best == UINT32_MAX || hn > bhn || (hn == bhn && deg > bdeg) ||
			    (hn == bhn && deg == bdeg && rank[s] > rank[best])) {
				best = s;
				bhn = hn;
				bdeg = deg;
			}
		}
		if (best == UINT32_MAX)
			break;
		leaf[best] = 0;
		nleaf--;
		(*demoted)++;
	}
	free(seen);
	if (leaf_out)
		memcpy(leaf_out, leaf, S);
	for (uint32_t s = 0; skip && s < S; s++)
		if (skip[s] && leaf[s]) {
			leaf[s] = 0;
			nleaf--;
		}
	if (!nleaf) {
		free(leaf);
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "not a fat tree: no switch has hosts, so there are no leaves");
	}
	bfs_multi(f, leaf, dist, queue);
	int rc = shallow_leaves(f, leaf, nleaf, level, dist, queue, sh, shallow, err);
	*ntop = 0;
	for (int mode = TH_PLAIN; !rc && !skip && !*ntop && mode <= TH_FLAT; mode++) {
		if (bad_links(f, dist, sh, NULL))
			break;
		rc = top_hosts(f, leaf, dist, sh, nhost, queue, th, ntop, mode, err);
		if (*ntop && flat)
			*flat = mode == TH_FLAT;
	}
	free(leaf);
	if (rc)
		return rc;
	for (uint32_t s = 0; s < S; s++) {
		if (level[s])
			continue; /* a shallow leaf: placed by shallow_leaves */
		if (dist[s] == IBF_DIST_INF) {
			char nm[96];
			return ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
					     "switch %s is not connected to any leaf",
					     ibf_ftree_swname(f, s, nm, sizeof(nm)));
		}
		if (dist[s] + 1 > IBF_FTREE_MAX_LEVELS)
			return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
					     "the tree has more than %d levels",
					     IBF_FTREE_MAX_LEVELS);
		level[s] = (uint8_t)(dist[s] + 1);
	}
	return 0;
}

static const char *source_name(int src)
{
	switch (src) {
	case IBF_FTREE_BY_NAMES:
		return "the ft-l switch names";
	case IBF_FTREE_BY_ROOTS:
		return "BFS from the given roots";
	default:
		return "BFS from the leaves (switches with hosts)";
	}
}

/* every link must join adjacent levels */
static int check_links(const struct ibf_fabric *f, const struct ibf_ftree *t, struct ibf_error *err)
{
	char msg[IBF_ERR_MSG_MAX];
	size_t used = 0;
	uint32_t bad = 0;
	msg[0] = '\0';
	for (uint32_t s = 0; s < f->nsw; s++) {
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			const struct ibf_adj *a = &f->adj[e];
			int dl = (int)t->level[a->nbr] - (int)t->level[s];
			if (dl == 1 || dl == -1)
				continue;
			if (a->nbr < s || (a->nbr == s && a->rport < a->lport))
				continue; /* report each cable once */
			bad++;
			if (bad <= 4 && used < sizeof(msg) - 1) {
				char n1[64], n2[64];
				int k = snprintf(msg + used, sizeof(msg) - used,
						 "%s%s/P%u - %s/P%u (levels %u, %u)",
						 bad > 1 ? "; " : "",
						 ibf_ftree_swname(f, s, n1, sizeof(n1)), a->lport,
						 ibf_ftree_swname(f, a->nbr, n2, sizeof(n2)),
						 a->rport, t->level[s], t->level[a->nbr]);
				if (k > 0)
					used += (size_t)k;
				if (used >= sizeof(msg))
					used = sizeof(msg) - 1;
			}
		}
	}
	if (!bad)
		return 0;
	return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
			     "not a fat tree (levels from %s): %u link%s join%s switches that are "
			     "not on adjacent levels: %s%s",
			     source_name(t->source), bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "",
			     msg, bad > 4 ? "; ..." : "");
}

void ibf_ftree_free(struct ibf_ftree *t)
{
	if (!t)
		return;
	free(t->level);
	free(t->shallow_sw);
	free(t->top_sw);
	free(t->rank);
	free(t->slot_off);
	free(t->slot);
	free(t->slot_par);
	free(t->slot_cab);
	free(t->down_off);
	free(t->down);
	free(t->leaves);
	free(t->ends);
	memset(t, 0, sizeof(*t));
}

/* A shallow leaf's up-port slots: its own parents in GUID order, each with
 * as many slots as it has cables to it (cable-major, as below), none
 * missing; it takes no part in the blocks of its level. */
static int shallow_slots(const struct ibf_fabric *f, struct ibf_ftree *t, const uint32_t *byrank,
			 uint32_t s, uint32_t **stash, struct ibf_error *err)
{
	uint32_t n = 0, pmax = 0;
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
		n += t->level[f->adj[e].nbr] == t->level[s] + 1;
	t->slot_off[s + 1] = n;
	if (!n)
		return 0;
	uint32_t *lst = malloc(3 * (size_t)n * sizeof(uint32_t));
	if (!lst)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
		uint32_t y = f->adj[e].nbr, m = 0;
		for (uint32_t e2 = f->adj_off[s]; e2 < f->adj_off[s + 1]; e2++)
			m += f->adj[e2].nbr == y;
		if (m > pmax)
			pmax = m;
	}
	uint32_t k = 0;
	for (uint32_t c = 0; c < pmax; c++)
		for (uint32_t i = 0; i < t->nsw; i++) { /* parents in GUID order */
			uint32_t y = byrank[i], m = 0, e = f->adj_off[s];
			if (t->level[y] != t->level[s] + 1)
				continue;
			for (; e < f->adj_off[s + 1]; e++)
				if (f->adj[e].nbr == y && m++ == c)
					break;
			if (e == f->adj_off[s + 1])
				continue;
			lst[k] = e;
			lst[n + k] = y;
			lst[2 * n + k] = c;
			k++;
		}
	stash[s] = lst;
	return 0;
}

/* up-port slots (see the top): per-switch lists into stash[s] */
static int build_slots(const struct ibf_fabric *f, struct ibf_ftree *t, const uint32_t *byrank,
		       uint32_t **stash, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	uint32_t *bpar_off = calloc((size_t)S + 1, sizeof(uint32_t)); /* parents per block root */
	uint32_t *bpar = malloc(S * sizeof(uint32_t));
	uint32_t *bfill = calloc((size_t)S + 1, sizeof(uint32_t));
	uint32_t *pnom = calloc(S, sizeof(uint32_t));
	uint32_t *broot = malloc(S * sizeof(uint32_t));
	uint32_t *uf = malloc(S * sizeof(uint32_t));
	uint32_t *cnt = calloc(S, sizeof(uint32_t));
	t->slot_off = calloc((size_t)S + 1, sizeof(uint32_t));
	int rc = 0;
	if (!bpar_off || !bpar || !bfill || !pnom || !broot || !uf || !cnt || !t->slot_off) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* links join adjacent levels only; the blocks of level l are the
	 * components of the up links from level l to level l + 1 */
	for (int l = 1; l < t->levels; l++) {
		for (uint32_t s = 0; s < S; s++)
			uf[s] = s;
		for (uint32_t s = 0; s < S; s++) {
			if (t->level[s] != l || t->shallow_sw[s])
				continue; /* a shallow leaf joins no block */
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
				if (t->level[f->adj[e].nbr] == l + 1)
					uf_join(uf, s, f->adj[e].nbr);
		}
		for (uint32_t s = 0; s < S; s++)
			broot[s] = uf_find(uf, s);
		/* parents of each block, sorted by GUID rank */
		memset(bpar_off, 0, ((size_t)S + 1) * sizeof(uint32_t));
		for (uint32_t s = 0; s < S; s++)
			if (t->level[s] == l + 1)
				bpar_off[broot[s] + 1]++;
		for (uint32_t s = 0; s < S; s++)
			bpar_off[s + 1] += bpar_off[s];
		memcpy(bfill, bpar_off, ((size_t)S + 1) * sizeof(uint32_t));
		for (uint32_t i = 0; i < S; i++) { /* in GUID order */
			uint32_t s = byrank[i];
			if (t->level[s] == l + 1)
				bpar[bfill[broot[s]]++] = s;
		}
		/* the block's nominal cables per (child, parent): pnom[y] for
		 * parent y is the most cables any switch of y's block has to y */
		memset(pnom, 0, S * sizeof(uint32_t));
		for (uint32_t s = 0; s < S; s++) {
			if (t->level[s] != l || t->shallow_sw[s])
				continue;
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
				uint32_t nb = f->adj[e].nbr;
				if (t->level[nb] != l + 1)
					continue;
				if (++cnt[nb] > pnom[nb])
					pnom[nb] = cnt[nb];
			}
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
				cnt[f->adj[e].nbr] = 0;
		}
		for (uint32_t s = 0; s < S; s++) {
			if (t->level[s] != l)
				continue;
			if (t->shallow_sw[s]) {
				if ((rc = shallow_slots(f, t, byrank, s, stash, err)))
					goto out;
				continue;
			}
			uint32_t b = broot[s];
			uint32_t W = bpar_off[b + 1] - bpar_off[b], n = 0, pmax = 0;
			for (uint32_t i = 0; i < W; i++) {
				uint32_t y = bpar[bpar_off[b] + i];
				n += pnom[y];
				if (pnom[y] > pmax)
					pmax = pnom[y];
			}
			t->slot_off[s + 1] = n;
			if (!n)
				continue;
			/* [0,n): adj index or MISSING; [n,2n): parent; [2n,3n): cable rank */
			uint32_t *lst = malloc(3 * (size_t)n * sizeof(uint32_t));
			if (!lst) {
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
				goto out;
			}
			/* cable-major: round c holds cable c of every parent that has
			 * at least c + 1 cables (slot c * W + i on an even tree) */
			uint32_t k = 0;
			for (uint32_t c = 0; c < pmax; c++)
				for (uint32_t i = 0; i < W; i++) {
					uint32_t y = bpar[bpar_off[b] + i];
					if (c >= pnom[y])
						continue;
					uint32_t e = f->adj_off[s], m = 0;
					for (; e < f->adj_off[s + 1]; e++)
						if (f->adj[e].nbr == y && m++ == c)
							break;
					lst[k] = e < f->adj_off[s + 1] ? e : IBF_FTREE_MISSING;
					lst[n + k] = y;
					lst[2 * n + k] = c;
					if (lst[k] == IBF_FTREE_MISSING)
						t->missing_slots++;
					k++;
				}
			if (W > t->npar[l])
				t->npar[l] = W;
			stash[s] = lst;
		}
	}
out:
	free(bpar_off);
	free(bpar);
	free(bfill);
	free(pnom);
	free(broot);
	free(uf);
	free(cnt);
	return rc;
}

/* Missing up-port slots of the tree whose levels are lv and shallow
 * leaves sh (slots built on a scratch tree and thrown away); *shortfall
 * (when not NULL): the slots every other switch below the top has fewer
 * than the most of its level (a block short of parents). */
static int slots_deficit(const struct ibf_fabric *f, uint8_t *lv, uint8_t *sh,
			 const uint32_t *order, uint32_t *miss, uint64_t *shortfall,
			 struct ibf_error *err)
{
	uint32_t S = f->nsw;
	struct ibf_ftree x;
	memset(&x, 0, sizeof(x));
	x.nsw = S;
	x.level = lv;
	x.shallow_sw = sh;
	x.levels = 1;
	for (uint32_t s = 0; s < S; s++)
		if (lv[s] > x.levels)
			x.levels = lv[s];
	uint32_t **stash = calloc(S, sizeof(uint32_t *));
	if (!stash)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	int rc = build_slots(f, &x, order, stash, err);
	*miss = x.missing_slots;
	if (!rc && shortfall) {
		uint32_t most[IBF_FTREE_MAX_LEVELS + 1] = { 0 };
		*shortfall = 0;
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t s = 0; s < S; s++) {
				uint32_t n = x.slot_off[s + 1];
				if (sh[s] || lv[s] >= x.levels)
					continue;
				if (!pass && n > most[lv[s]])
					most[lv[s]] = n;
				else if (pass)
					*shortfall += most[lv[s]] - n;
			}
	}
	for (uint32_t s = 0; s < S; s++)
		free(stash[s]);
	free(stash);
	free(x.slot_off);
	return rc;
}

static int missing_of(const struct ibf_fabric *f, const struct ibf_ftree *t, uint8_t *lv,
		      const uint32_t *order, uint32_t *miss, struct ibf_error *err)
{
	return slots_deficit(f, lv, t->shallow_sw, order, miss, NULL, err);
}

/* 1 when every switch link joins adjacent levels of lv */
static int links_adjacent(const struct ibf_fabric *f, const uint8_t *lv)
{
	for (uint32_t s = 0; s < f->nsw; s++)
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			int dl = (int)lv[f->adj[e].nbr] - (int)lv[s];
			if (dl != 1 && dl != -1)
				return 0;
		}
	return 1;
}

/* The switches top_hosts found (t->top_sw) go to level 3 when that leaves
 * fewer up-port slots missing than keeping them as leaves; else they stay
 * leaves and t->top_sw is cleared. */
static int place_top_hosts(const struct ibf_fabric *f, struct ibf_ftree *t, const uint32_t *order,
			   struct ibf_error *err)
{
	uint32_t S = f->nsw, ma = 0, mb = 0;
	uint8_t *lb = malloc(S);
	if (!lb)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t s = 0; s < S; s++)
		lb[s] = t->top_sw[s] ? 3 : t->level[s];
	int rc = missing_of(f, t, t->level, order, &ma, err);
	if (!rc)
		rc = missing_of(f, t, lb, order, &mb, err);
	if (!rc && mb < ma) {
		memcpy(t->level, lb, S);
	} else {
		memset(t->top_sw, 0, S);
		t->tophost = 0;
	}
	free(lb);
	return rc;
}

/* Group ink[] of deep_top_hosts with dist from BFS from every leaf not in
 * out[] (ink[] among them): 1 when every neighbour of the group lies at one
 * distance D >= 2, D + 1 the deepest distance of the switches not in out[],
 * each with a neighbour at D + 1 (a parent), and, when pods is set, the
 * neighbours lie in two or more components of the switches not in out[]
 * up to distance D; 2 when every neighbour lies at the deepest distance
 * D >= 2 with no parent (nothing is left above: every top switch has
 * hosts) and those neighbours lie in two or more such components (the tree
 * falls apart without the group; pods or not).  pod: S words of scratch. */
static int deep_group_ok(const struct ibf_fabric *f, const uint8_t *ink, const uint8_t *out,
			 const uint32_t *dist, uint32_t *pod, int pods)
{
	uint32_t S = f->nsw, maxd = 0, D = IBF_DIST_INF, nup = 0, nnb = 0;
	for (uint32_t s = 0; s < S; s++) {
		if (out[s])
			continue;
		if (dist[s] == IBF_DIST_INF)
			return 0;
		if (dist[s] > maxd)
			maxd = dist[s];
	}
	for (uint32_t s = 0; s < S; s++) {
		if (!ink[s])
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t nb = f->adj[e].nbr, up = 0;
			if (out[nb] || (D != IBF_DIST_INF && dist[nb] != D))
				return 0;
			D = dist[nb];
			for (uint32_t e2 = f->adj_off[nb]; e2 < f->adj_off[nb + 1]; e2++)
				up += !out[f->adj[e2].nbr] && dist[f->adj[e2].nbr] == D + 1;
			nup += up > 0;
			nnb++;
		}
	}
	if (D == IBF_DIST_INF || D < 2)
		return 0;
	int kind;
	if (nup == nnb && D + 1 == maxd)
		kind = 1;
	else if (!nup && D == maxd)
		kind = 2;
	else
		return 0;
	if (kind == 1 && !pods)
		return 1;
	for (uint32_t s = 0; s < S; s++)
		pod[s] = s;
	for (uint32_t s = 0; s < S; s++) {
		if (out[s] || dist[s] > D)
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			if (!out[f->adj[e].nbr] && dist[f->adj[e].nbr] <= D)
				uf_join(pod, s, f->adj[e].nbr);
	}
	uint32_t first = UINT32_MAX;
	for (uint32_t s = 0; s < S; s++) {
		if (!ink[s])
			continue;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
			uint32_t p = uf_find(pod, f->adj[e].nbr);
			if (first == UINT32_MAX)
				first = p;
			else if (p != first)
				return kind;
		}
	}
	return 0;
}

/* Hosts on a top switch of a tree of 4 or more levels.  The children of
 * such a switch are a level below the top, two or more levels above the
 * leaves, so BFS from every leaf puts them next to the level-2 switches:
 * the switch ends up a leaf at another depth (shallow_leaves) on an even
 * number of levels, or a leaf over a wrong tree on an odd one.  The leaves
 * are taken in groups, those joined through common neighbours (a pod's
 * leaves, or top switches sharing children).  First each group K on its
 * own: BFS from the other leaves puts every neighbour of K on one level
 * D + 1 >= 3 just below the top (D + 1 = the deepest distance + 1), each of
 * them with a parent on the top level.  Then the groups that pass, all
 * left out at once (so that one such switch does not join the pods below
 * another): the same with BFS from the remaining leaves, and the
 * neighbours of each group lie in two or more pods (components of the
 * switches up to their level).  q[] marks them (*nq).  dist and queue are
 * scratch.
 * Every top switch with hosts: a group whose neighbours are the deepest
 * switches, with no parent, passes when the tree falls apart under them
 * (deep_group_ok's second kind).  A group on its own passes only when it
 * holds the whole top; when the top switches lie in several groups (one
 * per plane), the other groups' switches, still sources, shorten the
 * distances, so when no group passes on its own the leaves with fewer
 * hosts than the most any leaf has (nhost) are tried together, as a group
 * of that kind, and *byhosts is set when they pass. */
static int deep_top_hosts(const struct ibf_fabric *f, const uint8_t *leaf, const uint32_t *nhost,
			  uint32_t *dist, uint32_t *queue, uint8_t *q, uint32_t *nq, int *byhosts,
			  struct ibf_error *err)
{
	uint32_t S = f->nsw, nleaf = 0;
	*nq = 0;
	memset(q, 0, S);
	uint32_t *uf = malloc(S * sizeof(uint32_t)), *pod = malloc(S * sizeof(uint32_t));
	uint8_t *src = malloc(S), *done = calloc(S, 1), *ink = malloc(S), *c1 = calloc(S, 1);
	int rc = 0, any = 0;
	if (!uf || !pod || !src || !done || !ink || !c1) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < S; s++)
		uf[s] = s;
	for (uint32_t s = 0; s < S; s++) {
		if (!leaf[s])
			continue;
		nleaf++;
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			uf_join(uf, s, f->adj[e].nbr);
	}
	*byhosts = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass && !any) {
			uint32_t hmax = 0, kn = 0;
			for (uint32_t s = 0; s < S; s++)
				if (leaf[s] && nhost[s] > hmax)
					hmax = nhost[s];
			for (uint32_t s = 0; s < S; s++) {
				ink[s] = leaf[s] && nhost[s] < hmax;
				src[s] = leaf[s] && !ink[s];
				kn += ink[s];
			}
			if (!kn)
				break;
			bfs_multi(f, src, dist, queue);
			if (deep_group_ok(f, ink, ink, dist, pod, 1) != 2)
				break;
			memcpy(c1, ink, S);
			any = *byhosts = 1;
		}
		if (pass) {
			for (uint32_t s = 0; s < S; s++)
				src[s] = leaf[s] && !c1[s];
			bfs_multi(f, src, dist, queue);
			memset(done, 0, S);
		}
		for (uint32_t x = 0; x < S; x++) {
			uint32_t r = uf_find(uf, x), kn = 0;
			if (!leaf[x] || done[r] || (pass && !c1[x]))
				continue;
			done[r] = 1;
			for (uint32_t s = 0; s < S; s++) {
				ink[s] = leaf[s] && uf_find(uf, s) == r;
				kn += ink[s];
			}
			if (kn == nleaf)
				continue;
			if (!pass) {
				for (uint32_t s = 0; s < S; s++)
					src[s] = leaf[s] && !ink[s];
				bfs_multi(f, src, dist, queue);
				if (deep_group_ok(f, ink, ink, dist, pod, 0)) {
					for (uint32_t s = 0; s < S; s++)
						c1[s] |= ink[s];
					any = 1;
				}
			} else if (deep_group_ok(f, ink, c1, dist, pod, 1)) {
				for (uint32_t s = 0; s < S; s++)
					if (ink[s]) {
						q[s] = 1;
						(*nq)++;
					}
			}
		}
	}
out:
	free(uf);
	free(pod);
	free(src);
	free(done);
	free(ink);
	free(c1);
	return rc;
}

/* The switches deep_top_hosts finds go to the top level when the tree with
 * them there (BFS from the other leaves) is a tree of 4 or more levels with
 * them on its top and has fewer missing up-port slots, plus slots short of
 * the most of their level, than the tree with them as leaves (when that is
 * a tree at all).  On a tie they stay where they were. */
static int place_deep_top_hosts(const struct ibf_fabric *f, struct ibf_ftree *t,
				const uint32_t *nhost, const uint8_t *leaf, const uint32_t *order,
				uint32_t *dist, uint32_t *queue, struct ibf_error *err)
{
	uint32_t S = f->nsw, nq = 0, dem = 0, nsh = 0, nth = 0;
	uint8_t *q = malloc(S), *lv = calloc(S, 1), *sh = calloc(S, 1), *th = calloc(S, 1);
	int rc = 0;
	if (!q || !lv || !sh || !th) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* a tree with no slot missing or short cannot get better: no search
	 * (one BFS per group of leaves) on such trees */
	uint32_t ma = 0, mb = 0;
	uint64_t sa = 0, sb = 0, da = UINT64_MAX, db;
	if (links_adjacent(f, t->level)) {
		if ((rc = slots_deficit(f, t->level, t->shallow_sw, order, &ma, &sa, err)))
			goto out;
		da = (uint64_t)ma + sa;
	}
	if (!da)
		goto out;
	int byhosts = 0;
	if ((rc = deep_top_hosts(f, leaf, nhost, dist, queue, q, &nq, &byhosts, err)) || !nq)
		goto out;
	struct ibf_error e2;
	ibf_error_clear(&e2);
	rc = levels_by_leaves(f, nhost, t->rank, lv, dist, queue, &dem, sh, &nsh, th, &nth, NULL, q,
			      NULL, &e2);
	if (rc) {
		if (rc == IBF_ENOMEM)
			ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		else
			rc = 0;
		goto out;
	}
	int h = 1;
	for (uint32_t s = 0; s < S; s++)
		if (lv[s] > h)
			h = lv[s];
	int ok = h >= 4 && links_adjacent(f, lv);
	for (uint32_t s = 0; s < S && ok; s++)
		if (q[s] && (lv[s] != h || sh[s]))
			ok = 0;
	if (!ok)
		goto out;
	if ((rc = slots_deficit(f, lv, sh, order, &mb, &sb, err)))
		goto out;
	db = (uint64_t)mb + sb;
	if (db < da) {
		memcpy(t->level, lv, S);
		memcpy(t->shallow_sw, sh, S);
		memcpy(t->top_sw, q, S);
		t->shallow = nsh;
		t->demoted = dem;
		t->tophost = nq;
		t->topall = byhosts ? IBF_FTREE_TOPALL_FEWER_HOSTS : IBF_FTREE_TOPALL_SPLIT;
		for (uint32_t s = 0; s < S; s++)
			if (lv[s] == h && !q[s])
				t->topall = 0;
	}
out:
	free(q);
	free(lv);
	free(sh);
	free(th);
	return rc;
}

/* Hosts per switch, and the switches in GUID order (order[i]; rank[s] is
 * s's position). */
static int count_and_order(const struct ibf_fabric *f, uint32_t *nhost, uint32_t *order,
			   uint32_t *rank, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	for (uint32_t s = 0; s < S; s++) {
		int node = f->switches[s];
		const struct ibf_node *n = &f->nodes[node];
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, node, p);
			if (pp->peer_node != IBF_NO_NODE &&
			    f->nodes[pp->peer_node].type != IBF_NODE_SWITCH)
				nhost[s]++;
		}
	}
	struct guid_key *gk = malloc(S * sizeof(*gk));
	if (!gk)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t s = 0; s < S; s++) {
		gk[s].guid = f->nodes[f->switches[s]].guid;
		gk[s].sw = s;
	}
	qsort(gk, S, sizeof(*gk), cmp_guid_key);
	for (uint32_t i = 0; i < S; i++) {
		order[i] = gk[i].sw;
		rank[gk[i].sw] = i;
	}
	free(gk);
	return 0;
}

/* down_off/down: every switch's links one level down, in adjacency order. */
static int build_down(const struct ibf_fabric *f, struct ibf_ftree *t, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	t->down_off = calloc((size_t)S + 1, sizeof(uint32_t));
	if (!t->down_off)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t s = 0; s < S; s++) {
		t->down_off[s + 1] = t->down_off[s];
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			if (t->level[f->adj[e].nbr] + 1 == t->level[s])
				t->down_off[s + 1]++;
	}
	t->down = malloc((t->down_off[S] ? t->down_off[S] : 1) * sizeof(uint32_t));
	if (!t->down)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t s = 0, k = 0; s < S; s++)
		for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
			if (t->level[f->adj[e].nbr] + 1 == t->level[s])
				t->down[k++] = e;
	return 0;
}

/* The up-port slots build_slots stashed per switch (slot, parent, cable
 * count, n each) into the flat arrays; nup and prod per level. */
static int flatten_slots(struct ibf_ftree *t, uint32_t S, uint32_t **stash, struct ibf_error *err)
{
	for (uint32_t s = 0; s < S; s++)
		t->slot_off[s + 1] += t->slot_off[s];
	size_t n_all = t->slot_off[S] ? t->slot_off[S] : 1;
	t->slot = malloc(n_all * sizeof(uint32_t));
	t->slot_par = malloc(n_all * sizeof(uint32_t));
	t->slot_cab = malloc(n_all * sizeof(uint32_t));
	if (!t->slot || !t->slot_par || !t->slot_cab)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t s = 0; s < S; s++) {
		uint32_t n = t->slot_off[s + 1] - t->slot_off[s];
		if (n) {
			memcpy(t->slot + t->slot_off[s], stash[s], n * sizeof(uint32_t));
			memcpy(t->slot_par + t->slot_off[s], stash[s] + n, n * sizeof(uint32_t));
			memcpy(t->slot_cab + t->slot_off[s], stash[s] + 2 * (size_t)n,
			       n * sizeof(uint32_t));
		}
		if (n > t->nup[t->level[s]] && !t->shallow_sw[s])
			t->nup[t->level[s]] = n;
	}
	t->prod[1] = 1;
	for (int l = 1; l <= t->levels; l++) {
		uint64_t u = t->npar[l] ? t->npar[l] : 1;
		t->prod[l + 1] = t->prod[l] > UINT64_MAX / u ? UINT64_MAX : t->prod[l] * u;
	}
	return 0;
}

/* The leaves in subtree order: sorted by the smallest GUID rank of their
 * component at every level from the top down (uf and low are S scratch
 * words each). */
static int order_leaves(const struct ibf_fabric *f, struct ibf_ftree *t, uint32_t *uf,
			uint32_t *low, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	int h = t->levels;
	uint32_t nk = (uint32_t)(h > 1 ? h - 1 : 1);
	t->nleaves = t->nswl[1];
	t->leaves = malloc((t->nleaves ? t->nleaves : 1) * sizeof(uint32_t));
	uint32_t *keys = malloc((size_t)S * nk * sizeof(uint32_t));
	if (!t->leaves || !keys) {
		free(keys);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	/* keys[s * nk + (h-1-l)] = smallest rank in s's component of levels <= l */
	for (int l = 1; l <= h - 1 || (l == 1 && h == 1); l++) {
		for (uint32_t s = 0; s < S; s++)
			uf[s] = s;
		for (uint32_t s = 0; s < S; s++) {
			if (t->level[s] > l)
				continue;
			for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++)
				if (t->level[f->adj[e].nbr] <= l)
					uf_join(uf, s, f->adj[e].nbr);
		}
		for (uint32_t s = 0; s < S; s++)
			low[s] = UINT32_MAX;
		for (uint32_t s = 0; s < S; s++) {
			uint32_t r = uf_find(uf, s);
			if (t->rank[s] < low[r])
				low[r] = t->rank[s];
		}
		uint32_t col = h > 1 ? (uint32_t)(h - 1 - l) : 0;
		for (uint32_t s = 0; s < S; s++)
			keys[(size_t)s * nk + col] = low[uf_find(uf, s)];
	}
	uint32_t k = 0;
	for (uint32_t s = 0; s < S; s++)
		if (t->level[s] == 1)
			t->leaves[k++] = s;
	/* insertion sort by key vector (leaves are few enough; stable) */
	for (uint32_t i = 1; i < t->nleaves; i++) {
		uint32_t x = t->leaves[i];
		uint32_t j = i;
		while (j > 0) {
			uint32_t y = t->leaves[j - 1];
			int c = 0;
			for (uint32_t q = 0; q < nk && !c; q++) {
				uint32_t ky = keys[(size_t)y * nk + q],
					 kx = keys[(size_t)x * nk + q];
				c = ky < kx ? -1 : ky > kx;
			}
			if (c <= 0)
				break;
			t->leaves[j] = y;
			j--;
		}
		t->leaves[j] = x;
	}
	free(keys);
	return 0;
}

/* A host on a level-2 switch s is routed as if on a virtual leaf below s:
 * from index, the next one whose level-1 slot has parent s, so the leaves
 * send it up the bundle to s without rotating onto another spine's slot. */
static uint32_t virtual_leaf_index(const struct ibf_ftree *t, uint32_t s, uint32_t index)
{
	uint32_t lf = NOSLOT;
	for (uint32_t v = 0; v < t->nleaves && lf == NOSLOT; v++)
		for (uint32_t g = t->slot_off[t->leaves[v]]; g < t->slot_off[t->leaves[v] + 1]; g++)
			if (t->slot_par[g] == s) {
				lf = t->leaves[v];
				break;
			}
	if (lf != NOSLOT) {
		uint32_t a = t->slot_off[lf];
		uint32_t n = t->slot_off[lf + 1] - a;
		while (t->slot_par[a + index % n] != s)
			index++;
	}
	return index;
}

/* End k: the CA port behind port p (pp) of switch s; its index is the
 * caller's. */
static struct ibf_ftree_end *end_at(struct ibf_ftree *t, uint32_t k, const struct ibf_port *pp,
				    int p, uint32_t s)
{
	struct ibf_ftree_end *en = &t->ends[k];
	en->node = pp->peer_node;
	en->port = pp->peer_port;
	en->swport = (uint8_t)p;
	en->sw = s;
	return en;
}

/* The end ports with their D-mod-K indexes: leaf hosts in leaf order, then
 * hosts above level 1 by level and GUID rank. */
static int place_ends(const struct ibf_fabric *f, struct ibf_ftree *t, const uint32_t *nhost,
		      const uint32_t *order, struct ibf_error *err)
{
	uint32_t S = f->nsw;
	int h = t->levels;
	uint32_t H = 0, nends = 0;
	for (uint32_t i = 0; i < t->nleaves; i++)
		if (nhost[t->leaves[i]] > H)
			H = nhost[t->leaves[i]];
	for (uint32_t s = 0; s < S; s++)
		nends += nhost[s];
	t->hosts_per_leaf = H;
	t->nslots = t->nleaves * H;
	t->ends = malloc((nends ? nends : 1) * sizeof(*t->ends));
	if (!t->ends)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* pass 0 numbers the leaf hosts; pass 1 the CAs inside their leaf
	 * (SHARP aggregation nodes), which are no hosts of the traffic
	 * patterns: after the leaf hosts, so the hosts' indices run without
	 * gaps, as the patterns number them */
	uint32_t k = 0, next = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			t->nleaf_hosts = k;
			if (h <= 2)
				t->nslots = k;
			next = t->nslots;
		}
		for (uint32_t i = 0; i < t->nleaves; i++) {
			uint32_t s = t->leaves[i], j = 0;
			int node = f->switches[s];
			for (int p = 1; p <= f->nodes[node].nports; p++) {
				const struct ibf_port *pp = ibf_port(f, node, p);
				if (pp->peer_node == IBF_NO_NODE ||
				    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH ||
				    ibf_ca_in_switch(f, pp->peer_node, pp->peer_port) != pass)
					continue;
				struct ibf_ftree_end *en = end_at(t, k++, pp, p, s);
				/* two levels: no subtree runs to keep, so no
				 * phantom slots (a gap would break the even
				 * spread over a bundle) */
				en->index = pass ? next++ : h <= 2 ? k - 1 : i * H + j;
				j++;
			}
		}
	}
	uint32_t inside = k - t->nleaf_hosts;
	for (int l = 2; l <= h; l++) {
		for (uint32_t i = 0; i < S; i++) {
			uint32_t s = order[i];
			if (t->level[s] != l || !nhost[s])
				continue;
			int node = f->switches[s];
			for (int p = 1; p <= f->nodes[node].nports; p++) {
				const struct ibf_port *pp = ibf_port(f, node, p);
				if (pp->peer_node == IBF_NO_NODE ||
				    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH)
					continue;
				struct ibf_ftree_end *en = end_at(t, k++, pp, p, s);
				en->index = l == 2 ? virtual_leaf_index(t, s, next) : next;
				next = en->index + 1;
			}
		}
	}
	t->nends = k;
	t->nspine_hosts = k - t->nleaf_hosts - inside;
	t->ninside = inside;
	return 0;
}

/* A fat tree is one piece.  A switch graph in several pieces (a leaf with
 * every uplink unplugged, a rail-only cluster) is refused here rather than
 * routed piece by piece with no entry between the pieces: the layered and
 * minimal engines refuse it too, and hratio routes each piece on its own
 * (it calls dmodk per piece).  comp is S words of scratch. */
static int check_connected(const struct ibf_fabric *f, uint32_t *comp, struct ibf_error *err)
{
	uint32_t nc = ibf_components(f, comp);
	if (!nc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (nc == 1)
		return 0;
	/* name the first switch of another piece than switch 0's */
	uint32_t other = 0;
	while (other < f->nsw && comp[other] == comp[0])
		other++;
	char a[96], b[96];
	return ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
			     "not a fat tree: the switch graph is in %u pieces (switches %s and %s "
			     "are not connected); route each piece on its own (engine hratio "
			     "does)",
			     nc, ibf_ftree_swname(f, 0, a, sizeof(a)),
			     ibf_ftree_swname(f, other, b, sizeof(b)));
}

int ibf_ftree_build(const struct ibf_fabric *f, const struct ibf_ftree_opts *o, struct ibf_ftree *t,
		    struct ibf_error *err)
{
	memset(t, 0, sizeof(*t));
	struct ibf_ftree_opts defo;
	if (!o) {
		ibf_ftree_opts_default(&defo);
		o = &defo;
	}
	if (!f || !f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	uint32_t S = f->nsw;
	if (!S)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0, "not a fat tree: no switches");
	int rc = 0;
	uint32_t *nhost = calloc(S, sizeof(uint32_t));
	uint32_t *dist = malloc(S * sizeof(uint32_t));
	uint32_t *queue = malloc(S * sizeof(uint32_t));
	uint32_t *order = malloc(S * sizeof(uint32_t));
	uint32_t **stash = calloc(S, sizeof(uint32_t *));
	t->nsw = S;
	t->level = calloc(S, 1);
	t->shallow_sw = calloc(S, 1);
	t->top_sw = calloc(S, 1);
	t->rank = malloc(S * sizeof(uint32_t));
	if (!nhost || !dist || !queue || !order || !stash || !t->level || !t->shallow_sw ||
	    !t->top_sw || !t->rank) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	if ((rc = count_and_order(f, nhost, order, t->rank, err)) ||
	    (rc = check_connected(f, dist, err)))
		goto out;

	/* levels */
	if (o->roots && o->nroots) {
		t->source = IBF_FTREE_BY_ROOTS;
		rc = levels_by_roots(f, o, t->level, dist, queue, err);
	} else if (o->use_names && levels_by_names(f, t->level)) {
		t->source = IBF_FTREE_BY_NAMES;
	} else {
		t->source = IBF_FTREE_BY_LEAVES;
		uint8_t *leaf = malloc(S);
		if (!leaf) {
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
			goto out;
		}
		uint8_t flat = 0;
		rc = levels_by_leaves(f, nhost, t->rank, t->level, dist, queue, &t->demoted,
				      t->shallow_sw, &t->shallow, t->top_sw, &t->tophost, &flat,
				      NULL, leaf, err);
		if (!rc && t->tophost)
			rc = place_top_hosts(f, t, order, err);
		if (!rc && t->tophost && flat)
			t->topall = IBF_FTREE_TOPALL_FEWER_HOSTS;
		if (!rc && !t->tophost)
			rc = place_deep_top_hosts(f, t, nhost, leaf, order, dist, queue, err);
		free(leaf);
	}
	if (rc)
		goto out;
	t->levels = 1;
	for (uint32_t s = 0; s < S; s++) {
		if (t->level[s] > t->levels)
			t->levels = t->level[s];
		t->nswl[t->level[s]]++;
	}
	/* levels given (roots file, ft-l names): the switches with hosts on the
	 * top level of a tree of 3 or more levels are hosts on a top switch as
	 * well, so that dmodk treats the tree as the structure rule's */
	if (t->source != IBF_FTREE_BY_LEAVES && t->levels >= 3)
		for (uint32_t s = 0; s < S; s++)
			if (t->level[s] == t->levels && nhost[s]) {
				t->top_sw[s] = 1;
				t->tophost++;
			}
	if ((rc = check_links(f, t, err)) || (rc = build_down(f, t, err)) ||
	    (rc = build_slots(f, t, order, stash, err)) || (rc = flatten_slots(t, S, stash, err)) ||
	    (rc = order_leaves(f, t, dist, queue, err)))
		goto out;
	rc = place_ends(f, t, nhost, order, err);
out:
	if (stash)
		for (uint32_t s = 0; s < S; s++)
			free(stash[s]);
	free(stash);
	free(nhost);
	free(dist);
	free(queue);
	free(order);
	if (rc)
		ibf_ftree_free(t);
	return rc;
}

void ibf_ftree_describe(const struct ibf_ftree *t, char *buf, size_t len)
{
	size_t u = 0;
	int k = snprintf(buf, len, "fat tree, %d level%s (from %s), switches per level", t->levels,
			 t->levels == 1 ? "" : "s", source_name(t->source));
	if (k > 0)
		u = (size_t)k;
	for (int l = 1; l <= t->levels && u < len; l++) {
		k = snprintf(buf + u, len - u, "%s%u", l == 1 ? " " : ",", t->nswl[l]);
		if (k > 0)
			u += (size_t)k;
	}
	if (u < len) {
		k = snprintf(buf + u, len - u, ", up-port slots per level");
		if (k > 0)
			u += (size_t)k;
	}
	for (int l = 1; l < t->levels && u < len; l++) {
		k = snprintf(buf + u, len - u, "%s%u", l == 1 ? " " : ",", t->nup[l]);
		if (k > 0)
			u += (size_t)k;
	}
	if (u < len)
		snprintf(buf + u, len - u,
			 "; %u leaves x %u host slots = %u (%u hosts, %u phantom), %u host%s above "
			 "the leaves, %u missing up-port cable%s",
			 t->nleaves, t->hosts_per_leaf, t->nslots, t->nleaf_hosts,
			 t->nslots - t->nleaf_hosts, t->nspine_hosts,
			 t->nspine_hosts == 1 ? "" : "s", t->missing_slots,
			 t->missing_slots == 1 ? "" : "s");
}

/* The GUIDs of a roots file's text (name in messages) and, when lines is
 * not NULL, the line of each. */
static int parse_roots(const char *buf, size_t len, const char *name, uint64_t **guids,
		       uint32_t **lines, uint32_t *n, struct ibf_error *err)
{
	*guids = NULL;
	if (lines)
		*lines = NULL;
	*n = 0;
	int rc = 0;
	struct ibf_lines L;
	const char *ls;
	size_t ln;
	uint32_t cap = 0;
	ibf_lines_init(&L, buf, len);
	while (!rc && ibf_lines_next(&L, &ls, &ln, NULL)) {
		const char *hash = memchr(ls, '#', ln);
		struct ibf_cur c = { ls, hash ? hash : ls + ln };
		for (;;) {
			while (c.p < c.e && (ibf_is_ws(*c.p) || *c.p == ','))
				c.p++;
			if (c.p >= c.e)
				break;
			const char *tok = c.p;
			uint64_t g = 0;
			int bad = ibf_cur_num(&c, UINT64_MAX, &g);
			if (bad || !g || (c.p < c.e && !ibf_is_ws(*c.p) && *c.p != ',')) {
				const char *te = tok;
				while (te < c.e && !ibf_is_ws(*te) && *te != ',')
					te++;
				rc = ibf_error_set(err, IBF_EPARSE, name, L.lineno,
						   "'%.*s' is not a node GUID",
						   (int)(te - tok > 64 ? 64 : te - tok), tok);
				break;
			}
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				uint64_t *ng = realloc(*guids, cap * sizeof(uint64_t));
				if (ng)
					*guids = ng;
				uint32_t *nl = NULL;
				if (ng && lines && (nl = realloc(*lines, cap * sizeof(uint32_t))))
					*lines = nl;
				if (!ng || (lines && !nl)) {
					rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0,
							   "out of memory");
					break;
				}
			}
			if (lines)
				(*lines)[*n] = (uint32_t)L.lineno;
			(*guids)[(*n)++] = g;
		}
	}
	if (!rc && !*n)
		rc = ibf_error_set(err, IBF_EPARSE, name, 0, "no GUIDs in the file");
	if (rc) {
		free(*guids);
		*guids = NULL;
		if (lines) {
			free(*lines);
			*lines = NULL;
		}
		*n = 0;
	}
	return rc;
}

/* The same for the file at path. */
static int read_roots(const char *path, uint64_t **guids, uint32_t **lines, uint32_t *n,
		      struct ibf_error *err)
{
	*guids = NULL;
	if (lines)
		*lines = NULL;
	*n = 0;
	char *buf;
	size_t len;
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = parse_roots(buf, len, path, guids, lines, n, err);
	free(buf);
	return rc;
}

int ibf_ftree_parse_roots(const char *buf, size_t len, const char *name, uint64_t **guids,
			  uint32_t *n, struct ibf_error *err)
{
	return parse_roots(buf, len, name, guids, NULL, n, err);
}

int ibf_ftree_read_roots(const char *path, uint64_t **guids, uint32_t *n, struct ibf_error *err)
{
	return read_roots(path, guids, NULL, n, err);
}

int ibf_ftree_check_guids(const struct ibf_fabric *f, const char *path, const char *what,
			  const uint64_t *guids, uint32_t n, int missing_ok, struct ibf_error *err)
{
	for (uint32_t i = 0; i < n; i++) {
		int node = ibf_fabric_find_guid(f, guids[i]);
		if (node >= 0 ? f->nodes[node].type == IBF_NODE_SWITCH : missing_ok)
			continue;
		/* the line from the file as it is now: 0 (the file alone) when
		 * it changed since the list was read */
		uint64_t *g;
		uint32_t *ln, m, line = 0;
		struct ibf_error e2;
		if (!read_roots(path, &g, &ln, &m, &e2)) {
			for (uint32_t k = 0; k < m && !line; k++)
				if (g[k] == guids[i])
					line = ln[k];
			free(g);
			free(ln);
		}
		const struct ibf_node *x = node >= 0 ? &f->nodes[node] : NULL;
		const char *nm = !x ? "" : x->desc && x->desc[0] ? x->desc : x->id ? x->id : "";
		if (!x)
			return ibf_error_set(err, IBF_EINVAL, path, line,
					     "%s 0x%016" PRIx64
					     " is not a switch of this fabric (no node has it)",
					     what, guids[i]);
		return ibf_error_set(
			err, IBF_EINVAL, path, line,
			"%s 0x%016" PRIx64
			" is not a switch of this fabric (it is the end node '%.200s')",
			what, guids[i], nm);
	}
	return 0;
}

/* ------------------------------------------------------------ roots check */

/* The warning text: lines of "<where>: warning: ...", '\n' after each. */
struct roots_msg {
	char *buf;
	size_t len, used;
	int nlines;
};

static void rm_add(struct roots_msg *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rm_add(struct roots_msg *w, const char *fmt, ...)
{
	w->nlines++;
	if (!w->buf || w->used + 2 >= w->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(w->buf + w->used, w->len - w->used - 1, fmt, ap);
	va_end(ap);
	if (k < 0)
		k = 0;
	w->used += (size_t)k < w->len - w->used - 1 ? (size_t)k : w->len - w->used - 2;
	w->buf[w->used++] = '\n';
	w->buf[w->used] = '\0';
}

/* Up to 4 switch names of the set: "'a', 'b', 'c', 'd' and 3 more". */
static void name_list(const struct ibf_fabric *f, const uint8_t *in, char *buf, size_t len)
{
	uint32_t n = 0, shown = 0;
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (!in[s])
			continue;
		n++;
		if (shown < 4 && used + 8 < len) {
			int k = snprintf(buf + used, len - used, "%s'%s' (0x%016" PRIx64 ")",
					 shown ? ", " : "", swdesc(f, s),
					 f->nodes[f->switches[s]].guid);
			if (k > 0)
				used += (size_t)k < len - used ? (size_t)k : len - used - 1;
			shown++;
		}
	}
	if (n > shown && used + 1 < len)
		snprintf(buf + used, len - used, " and %u more", n - shown);
}

int ibf_ftree_check_roots(const struct ibf_fabric *f, const char *path, const uint64_t *roots,
			  uint32_t nroots, int use_names, char *buf, size_t len)
{
	struct roots_msg w = { buf, len, 0, 0 };
	if (buf && len)
		buf[0] = '\0';
	if (!f || !f->finalized || !roots || !nroots || !f->nsw)
		return 0;
	const char *file = path && *path ? path : "the roots";
	uint32_t S = f->nsw;
	struct ibf_ftree tr, ts;
	struct ibf_ftree_opts o;
	struct ibf_error e2;
	ibf_ftree_opts_default(&o);
	o.roots = roots;
	o.nroots = nroots;
	ibf_error_clear(&e2);
	if (ibf_ftree_build(f, &o, &tr, &e2))
		return 0; /* no tree below the roots: the engine says why */
	o.roots = NULL;
	o.nroots = 0;
	o.use_names = use_names;
	int have_ts = !ibf_ftree_build(f, &o, &ts, &e2);

	uint32_t *hosts = calloc(S, sizeof(uint32_t));
	uint8_t *isroot = calloc(S, 1), *set = calloc(S, 1);
	uint64_t *g = NULL;
	uint32_t *ln = NULL, m = 0;
	if (!hosts || !isroot || !set)
		goto out;
	if (path && *path && read_roots(path, &g, &ln, &m, &e2))
		m = 0;
	/* hosts: end ports cabled to the switch that are not a function of
	 * the switch itself (a SHARP aggregation node sits on every switch) */
	uint32_t nhostsw = 0;
	for (uint32_t s = 0; s < S; s++) {
		int node = f->switches[s];
		for (int p = 1; p <= f->nodes[node].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, node, p);
			if (pp->peer_node != IBF_NO_NODE &&
			    f->nodes[pp->peer_node].type != IBF_NODE_SWITCH &&
			    !ibf_ca_in_switch(f, pp->peer_node, pp->peer_port))
				hosts[s]++;
		}
		nhostsw += hosts[s] > 0;
	}
	for (uint32_t i = 0; i < nroots; i++) {
		int node = ibf_fabric_find_guid(f, roots[i]);
		if (node >= 0 && f->nodes[node].type == IBF_NODE_SWITCH)
			isroot[f->nodes[node].sw] = 1;
	}
	if (!nhostsw)
		goto out;
	char names[640];
	/* (1) the roots' tree has switches below every switch with hosts:
	 * BFS from the roots ran past the leaves, so the roots are not the
	 * top of the tree (a middle-level switch, or only some of the top
	 * switches, is the usual cause) */
	int lowhost = IBF_FTREE_MAX_LEVELS + 1;
	for (uint32_t s = 0; s < S; s++)
		if (hosts[s] && tr.level[s] < lowhost)
			lowhost = tr.level[s];
	uint32_t deep = 0;
	for (uint32_t s = 0; s < S; s++) {
		set[s] = tr.level[s] < lowhost;
		deep += set[s];
	}
	if (deep) {
		name_list(f, set, names, sizeof(names));
		rm_add(&w,
		       "%s: warning: %u switch%s without hosts lie%s below every switch with hosts "
		       "in the tree from these roots (%s): the roots look like a middle level or "
		       "part of the top, not the whole top",
		       file, deep, deep == 1 ? "" : "es", deep == 1 ? "s" : "", names);
	}
	/* (2) the structure finds another top level, and a tree no worse than
	 * the roots' (a roots file is needed where the structure misreads a
	 * tree, and the structure's reading then lacks more cables) */
	int other_top = 0;
	uint32_t ntop = 0, rin = 0;
	if (have_ts)
		for (uint32_t s = 0; s < S; s++) {
			int top = ts.level[s] == ts.levels;
			ntop += top;
			rin += top && isroot[s];
			other_top |= top != isroot[s];
		}
	int worse = other_top && tr.missing_slots > ts.missing_slots;
	int no_better = other_top && tr.missing_slots >= ts.missing_slots;
	/* switches with hosts that the structure puts on the bottom level and
	 * the roots above it */
	uint32_t lifted = 0, rootleaf = 0;
	memset(set, 0, S);
	if (no_better)
		for (uint32_t s = 0; s < S; s++)
			if (hosts[s] && ts.level[s] == 1 && tr.level[s] > 1) {
				set[s] = 1;
				lifted++;
				rootleaf += isroot[s];
			}
	if (worse || (no_better && rootleaf)) {
		if (lifted) {
			name_list(f, set, names, sizeof(names));
			rm_add(&w,
			       "%s: warning: %u switch%s with hosts that the structure finds on the "
			       "bottom level (leaves) lie%s above it in the tree from these roots "
			       "(%s)",
			       file, lifted, lifted == 1 ? "" : "es", lifted == 1 ? "s" : "",
			       names);
		}
		rm_add(&w,
		       "%s: warning: the tree from these roots has %u level%s and lacks %u up-port "
		       "cable%s; the tree the structure gives (no roots file) has %d and lacks %u",
		       file, (unsigned)tr.levels, tr.levels == 1 ? "" : "s", tr.missing_slots,
		       tr.missing_slots == 1 ? "" : "s", ts.levels, ts.missing_slots);
	}
	if (w.nlines && other_top) {
		/* the roots the structure does not put on its top, with their lines */
		uint32_t shown = 0, notin = 0;
		for (uint32_t i = 0; i < nroots; i++) {
			int node = ibf_fabric_find_guid(f, roots[i]);
			if (node < 0 || f->nodes[node].type != IBF_NODE_SWITCH)
				continue;
			uint32_t s = f->nodes[node].sw;
			if (ts.level[s] == ts.levels)
				continue;
			notin++;
			if (shown++ >= 8)
				continue;
			uint32_t line = 0;
			for (uint32_t k = 0; k < m && !line; k++)
				if (g[k] == roots[i])
					line = ln[k];
			char where[64] = "", hs[48] = "";
			if (line)
				snprintf(where, sizeof(where), ":%u", line);
			if (hosts[s])
				snprintf(hs, sizeof(hs), ", has %u host%s,", hosts[s],
					 hosts[s] == 1 ? "" : "s");
			rm_add(&w,
			       "%s%s: warning: root 0x%016" PRIx64 " ('%s')%s is on level %u of %d "
			       "in the tree the structure gives%s",
			       file, where, roots[i], swdesc(f, s), hs,
			       (unsigned)ts.level[s], ts.levels,
			       ts.level[s] == 1 ? " (a leaf)" : "");
		}
		if (notin > 8)
			rm_add(&w, "%s: warning: and %u more roots below the structure's top", file,
			       notin - 8);
		memset(set, 0, S);
		for (uint32_t s = 0; s < S; s++)
			set[s] = ts.level[s] == ts.levels;
		name_list(f, set, names, sizeof(names));
		rm_add(&w,
		       "%s: warning: the structure's top level (level %d) is %u switch%s: %s; "
		       "%u of them %s in the file",
		       file, ts.levels, ntop, ntop == 1 ? "" : "es", names, rin,
		       rin == 1 ? "is" : "are");
	}
out:
	free(g);
	free(ln);
	free(hosts);
	free(isroot);
	free(set);
	ibf_ftree_free(&tr);
	if (have_ts)
		ibf_ftree_free(&ts);
	return w.nlines;
}
