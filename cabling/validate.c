/* Validator: compare a cable plan with a discovered fabric and name each
 * wrong cable with its fix.
 *
 * 1. Matching.  Every discovered node gets a plan name: by node
 *    description (equal to the plan name), else by the node-name-map
 *    (GUID -> plan name), else structurally from an anchor switch the user
 *    names (--anchor NAME=GUID): in waves, each unmatched discovered switch
 *    next to matched ones collects votes for the plan node that the plan
 *    puts behind the same port of the matched neighbour (2 when the far
 *    port number agrees too, else 1); the best-supported pairs are taken
 *    first, first those with score >= 2, then any.  Without an anchor the
 *    same waves run seeded by the nodes named so far, but a switch is
 *    placed only on strong evidence (structure_wave, strict), after setting
 *    aside named switches whose cables mostly disagree with their name
 *    (match_renamed); a switch placed so whose description is not its plan
 *    name is a "renamed" finding.  Hosts that are still unnamed are
 *    identified by position: the host the plan puts on the switch port
 *    they are found on.
 * 2. Cables.  With both ends expressed as (plan node, port), a discovered
 *    cable that joins exactly the planned two ends is correct (degraded
 *    when its width or speed is below the plan's).  The rest is explained
 *    in this order, each discovered and planned cable used once:
 *    - swapped: planned u-u' and v-v', found u-v and u'-v': one fix,
 *      exchange two plugs (on one switch when possible);
 *    - rotated: three or more cables each plugged where the next belongs,
 *      a circle of wrong plugs: one fix (unplug one, move the others along);
 *    - wrong-port: found between the right two nodes, but on another port
 *      at one end (or both): move that end;
 *    - miswired: one end sits where the plan puts a different cable: keep
 *      that end and move the other to where the plan says (cables with a
 *      single such explanation first, then those whose target port is free);
 *    - extra: whatever is left of the discovered cables;
 *    - missing: whatever is left of the planned cables, except those of a
 *      switch that was not found at all (one missing-node finding) and, with
 *      --partial, those of steps after the last step being cabled. */
#include "ibf_cabling.h"
#include "ibf_map.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const find_names[IBF_FIND_KIND_COUNT] = {
	[IBF_FIND_MISSING] = "missing",		  [IBF_FIND_EXTRA] = "extra",
	[IBF_FIND_MISWIRED] = "miswired",	  [IBF_FIND_WRONG_PORT] = "wrong-port",
	[IBF_FIND_SWAPPED] = "swapped",		  [IBF_FIND_DEGRADED] = "degraded",
	[IBF_FIND_UNKNOWN_NODE] = "unknown-node", [IBF_FIND_MISSING_NODE] = "missing-node",
	[IBF_FIND_RENAMED] = "renamed",		  [IBF_FIND_ROTATED] = "rotated",
	[IBF_FIND_PORT_LIMITED] = "port-limited",
};

const char *ibf_finding_kind_name(int kind)
{
	if (kind <= 0 || kind >= IBF_FIND_KIND_COUNT)
		return "";
	return find_names[kind];
}

/* ------------------------------------------------------------ context */

struct dlink {
	uint32_t un, vn; /* combined node ids */
	uint8_t up, vp;
	uint8_t width, speed;
	uint8_t wsup, ssup; /* the most both ends support, 0 when an end does not say */
	uint8_t used;
	uint8_t moved; /* a swap, rotation, wrong-port or miswire moves it */
};

enum { CS_OPEN = 0, CS_OK, CS_EXPLAINED, CS_FOLDED };

struct vctx {
	struct ibf_plan *plan;
	const struct ibf_fabric *fab;
	const struct ibf_validate_opts *o;
	struct ibf_vreport *r;
	int32_t *dmap;	   /* fabric node -> combined node */
	int32_t *pmap;	   /* plan node -> fabric node, -1 */
	uint8_t *method;   /* plan node -> enum ibf_match_method, 0 = unmatched */
	uint32_t ncomb;	   /* plan nodes + unknown fabric nodes */
	int32_t *comb_fab; /* combined node -> fabric node (-1 for unmatched plan nodes) */
	uint32_t *off;	   /* combined node -> first end */
	int32_t *act;	   /* end -> discovered link, -1 */
	struct dlink *links;
	uint32_t nlinks;
	uint8_t *cstate;       /* plan cable -> CS_* */
	uint8_t *xport;	       /* fabric port (port_off + q) -> port of its combined node */
	struct ibf_umap taken; /* (plan host << 8 | port) that a matched device uses */
};

static inline uint32_t end_of(const struct vctx *v, uint32_t node, int port)
{
	return v->off[node] + (uint32_t)port;
}

static inline int comb_nports(const struct vctx *v, uint32_t node)
{
	return (int)(v->off[node + 1] - v->off[node]) - 1;
}

static int act_at(const struct vctx *v, uint32_t node, int port)
{
	if (port < 0 || port > comb_nports(v, node))
		return -1;
	return v->act[end_of(v, node, port)];
}

static int cable_at(const struct vctx *v, uint32_t node, int port)
{
	if (node >= v->plan->nnodes)
		return -1;
	return ibf_plan_cable_at(v->plan, node, port);
}

/* the other end of planned cable c seen from (n, p) */
static void cable_other(const struct ibf_cable *c, uint32_t n, int p, uint32_t *on, int *op)
{
	if (c->a == n && c->ap == p) {
		*on = c->b;
		*op = c->bp;
	} else {
		*on = c->a;
		*op = c->ap;
	}
}

static void link_other(const struct dlink *l, uint32_t n, int p, uint32_t *on, int *op)
{
	if (l->un == n && l->up == p) {
		*on = l->vn;
		*op = l->vp;
	} else {
		*on = l->un;
		*op = l->up;
	}
}

/* ------------------------------------------------------------ text helpers */

/* Append printf-style text at buf + *len (cap bytes in all): the text is cut
 * where the buffer ends and *len never passes cap - 1, so later appends stay
 * inside the buffer whatever the lengths of node descriptions. */
static void bappend(char *buf, size_t cap, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void bappend(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	if (!cap || *len >= cap - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n >= cap ? cap - 1 : *len + (size_t)n;
}

/* Name of a combined node: the plan name, or the discovered description
 * and GUID for unknown nodes.  Returns buf. */
static const char *node_name(const struct vctx *v, uint32_t n, char *buf, size_t len)
{
	if (n < v->plan->nnodes)
		return v->plan->nodes[n].name;
	const struct ibf_node *fn = &v->fab->nodes[v->comb_fab[n]];
	snprintf(buf, len, "'%s' (0x%016" PRIx64 ")", fn->desc ? fn->desc : "", fn->guid);
	return buf;
}

/* "NAME port P" */
static const char *end_str(const struct vctx *v, uint32_t n, int p, char *buf, size_t len)
{
	char nb[300];
	snprintf(buf, len, "%s port %d", node_name(v, n, nb, sizeof(nb)), p);
	return buf;
}

static char *cable_desc(const struct vctx *v, int ci)
{
	const struct ibf_cable *c = &v->plan->cables[ci];
	char ws[24];
	ibf_format_width_speed(c->width, c->speed, ws, sizeof(ws));
	return ibf_asprintf("cable %u (step %u, %s): %s port %u -- %s port %u%s%s", c->id, c->step,
			    ibf_cable_kind_name(c->kind), v->plan->nodes[c->a].name, c->ap,
			    v->plan->nodes[c->b].name, c->bp, ws[0] ? " " : "", ws);
}

static char *link_desc(const struct vctx *v, int li)
{
	const struct dlink *l = &v->links[li];
	char a[400], b[400], ws[24];
	ibf_format_width_speed(l->width, l->speed, ws, sizeof(ws));
	return ibf_asprintf("%s -- %s%s%s", end_str(v, l->un, l->up, a, sizeof(a)),
			    end_str(v, l->vn, l->vp, b, sizeof(b)), ws[0] ? " " : "", ws);
}

static char *join2(char *x, char *y)
{
	char *s = x && y ? ibf_asprintf("%s; %s", x, y) : NULL;
	free(x);
	free(y);
	return s;
}

static int add_finding(struct vctx *v, int kind, int c0, int c1, char *expected, char *actual,
		       char *fix)
{
	struct ibf_vreport *r = v->r;
	if (!expected)
		expected = strdup("");
	if (!actual)
		actual = strdup("");
	if (!expected || !actual || !fix)
		goto nomem;
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 16;
		void *nf = realloc(r->f, cap * sizeof(*r->f));
		if (!nf)
			goto nomem;
		r->f = nf;
		r->cap = cap;
	}
	struct ibf_finding *f = &r->f[r->n++];
	f->kind = (uint8_t)kind;
	f->cable[0] = c0;
	f->cable[1] = c1;
	f->step = c0 >= 0 ? v->plan->cables[c0].step : 0;
	f->id[0] = c0 >= 0 ? v->plan->cables[c0].id : 0;
	f->id[1] = c1 >= 0 ? v->plan->cables[c1].id : 0;
	f->nmore = 0;
	f->more = NULL;
	f->expected = expected;
	f->actual = actual;
	f->fix = fix;
	r->counts[kind]++;
	return 0;
nomem:
	free(expected);
	free(actual);
	free(fix);
	return IBF_ENOMEM;
}

/* ------------------------------------------------------------ matching */

/* s without leading and trailing blanks, cut at IBF_PLAN_NAME_MAX bytes as
 * from-topology cuts the names it writes (and at len - 1). */
static void trimmed(const char *s, char *buf, size_t len)
{
	if (!s)
		s = "";
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n > IBF_PLAN_NAME_MAX)
		n = IBF_PLAN_NAME_MAX;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* The name `cabling from-topology` gives discovered node i when its own is
 * taken or empty: its description (else its node id) with "-0x<node GUID>"
 * appended, or "switch-0x<GUID>" / "host-0x<GUID>" when it has neither
 * (cabling/plan.c; the GUID is ibf_node_some_guid's: the first port GUID
 * when the input gives no node GUID).  A fabric whose switches keep a
 * factory description ("Quantum Mellanox Technologies" on every one) gets
 * such names in its own plan; they name the node as surely as a
 * description does.  Empty when no GUID is known. */
static void guid_name(const struct ibf_fabric *f, uint32_t i, char *buf, size_t len)
{
	const struct ibf_node *n = &f->nodes[i];
	uint64_t g = ibf_node_some_guid(f, (int)i);
	char base[512];
	buf[0] = '\0';
	if (!g)
		return;
	trimmed(n->desc, base, sizeof(base));
	if (!base[0])
		trimmed(n->id, base, sizeof(base));
	if (base[0])
		snprintf(buf, len, "%s-0x%016" PRIx64, base, g);
	else
		snprintf(buf, len, "%s-0x%016" PRIx64,
			 n->type == IBF_NODE_SWITCH ? "switch" : "host", g);
}

static int same_kind(const struct ibf_plan_node *pn, const struct ibf_node *fn)
{
	return (pn->type == IBF_NODE_SWITCH) == (fn->type == IBF_NODE_SWITCH);
}

static void bind(struct vctx *v, int fnode, int pnode, int method)
{
	v->dmap[fnode] = pnode;
	v->pmap[pnode] = fnode;
	v->method[pnode] = (uint8_t)method;
}

struct cand {
	int32_t fnode, pnode;
	int score;
};

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->fnode != b->fnode)
		return a->fnode < b->fnode ? -1 : 1;
	return (a->pnode > b->pnode) - (a->pnode < b->pnode);
}

/* How discovered switch i is named pn: by its description or its
 * node-name-map entry, else it was renamed (after an RMA, a factory
 * default, a typo). */
static int named_as(const struct vctx *v, uint32_t i, int pn)
{
	char buf[1024];
	const char *name = v->plan->nodes[pn].name;
	trimmed(v->fab->nodes[i].desc, buf, sizeof(buf));
	if (!buf[0])
		trimmed(v->fab->nodes[i].id, buf, sizeof(buf));
	if (buf[0] && !strcmp(buf, name))
		return IBF_MATCH_DESC;
	guid_name(v->fab, i, buf, sizeof(buf));
	if (buf[0] && !strcmp(buf, name))
		return IBF_MATCH_DESC;
	const char *nm = v->o && v->o->namemap
				 ? ibf_namemap_lookup(v->o->namemap, v->fab->nodes[i].guid)
				 : NULL;
	if (nm) {
		trimmed(nm, buf, sizeof(buf));
		if (!strcmp(buf, name))
			return IBF_MATCH_NAMEMAP;
	}
	return IBF_MATCH_RENAMED;
}

/* Plan-side evidence that discovered switch i stands where the plan puts
 * switch pn: of pn's planned switch cables whose far switch is named and
 * has a cable on the far port, more than half end on i at the planned
 * port (none such: no evidence against). */
static int plan_side_agrees(const struct vctx *v, uint32_t i, uint32_t pn)
{
	const struct ibf_plan *p = v->plan;
	int occ = 0, hit = 0;
	for (int q = 1; q <= p->nodes[pn].nports; q++) {
		int c = ibf_plan_cable_at(p, pn, q);
		if (c < 0)
			continue;
		uint32_t on;
		int op;
		cable_other(&p->cables[c], pn, q, &on, &op);
		if (p->nodes[on].type != IBF_NODE_SWITCH || v->pmap[on] < 0 ||
		    op > v->fab->nodes[v->pmap[on]].nports)
			continue;
		const struct ibf_port *fp = ibf_port(v->fab, v->pmap[on], op);
		if (fp->peer_node == IBF_NO_NODE)
			continue;
		occ++;
		hit += (uint32_t)fp->peer_node == i && fp->peer_port == q;
	}
	return !occ || 2 * hit > occ;
}

static int cand_pnode_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->pnode != b->pnode)
		return a->pnode < b->pnode ? -1 : 1;
	return cand_cmp(x, y);
}

/* Scratch of the structural waves. */
struct wave {
	struct cand *cands;
	int32_t *cp; /* candidate plan nodes of one switch */
	int *cs;     /* their scores */
	int *cx;     /* their votes with the far port agreeing too */
};

/* Strict waves: drop the candidates of a plan node that several switches
 * want unless the best scores more than twice the next one (never two
 * discovered switches for one plan node, and no coin toss).  Returns the
 * number of candidates kept, in cand_cmp order. */
static uint32_t unique_cands(struct cand *c, uint32_t nc)
{
	if (nc < 2)
		return nc;
	qsort(c, nc, sizeof(*c), cand_pnode_cmp);
	uint32_t k = 0;
	for (uint32_t a = 0, b; a < nc; a = b) {
		for (b = a + 1; b < nc && c[b].pnode == c[a].pnode; b++)
			;
		if (b - a == 1 || c[a].score > 2 * c[a + 1].score)
			c[k++] = c[a];
	}
	if (k > 1)
		qsort(c, k, sizeof(*c), cand_cmp);
	return k;
}

/* One wave of structural matching: every unmatched discovered switch next
 * to matched nodes votes for plan nodes; pairs with score >= min_score are
 * bound, best first.  strict (no anchor, seeded by the switches named so
 * far): a switch is placed only with strong evidence, i.e. at least two
 * of its cables and more than half of those to named nodes sit exactly
 * where the plan puts the cables of that plan switch, the plan side agrees
 * (plan_side_agrees) and no other switch competes for it (unique_cands).
 * Returns the number bound. */
static uint32_t structure_wave(struct vctx *v, int min_score, int strict, struct wave *w)
{
	const struct ibf_fabric *f = v->fab;
	const struct ibf_plan *p = v->plan;
	struct cand *cands = w->cands;
	int32_t *cp = w->cp;
	int *cs = w->cs, *cx = w->cx;
	uint32_t nc = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *fn = &f->nodes[i];
		if (v->dmap[i] >= 0 || fn->type != IBF_NODE_SWITCH)
			continue;
		int ncp = 0, nb = 0;
		for (int q = 1; q <= fn->nports; q++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, q);
			if (pp->peer_node == IBF_NO_NODE || v->dmap[pp->peer_node] < 0)
				continue;
			nb++;
			uint32_t pn = (uint32_t)v->dmap[pp->peer_node];
			int c = ibf_plan_cable_at(p, pn, pp->peer_port);
			if (c < 0)
				continue;
			uint32_t on;
			int op;
			cable_other(&p->cables[c], pn, pp->peer_port, &on, &op);
			if (v->pmap[on] >= 0 || !same_kind(&p->nodes[on], fn))
				continue;
			int k;
			for (k = 0; k < ncp && cp[k] != (int32_t)on; k++)
				;
			if (k == ncp) {
				cp[ncp] = (int32_t)on;
				cs[ncp] = cx[ncp] = 0;
				ncp++;
			}
			cs[k] += op == q ? 2 : 1;
			cx[k] += op == q;
		}
		int best = -1;
		for (int k = 0; k < ncp; k++)
			if (best < 0 || cs[k] > cs[best])
				best = k;
		if (best < 0 || cs[best] < min_score)
			continue;
		if (strict && (cx[best] < 2 || 2 * cx[best] <= nb ||
			       !plan_side_agrees(v, i, (uint32_t)cp[best])))
			continue;
		cands[nc++] = (struct cand){ (int32_t)i, cp[best], cs[best] };
	}
	if (strict)
		nc = unique_cands(cands, nc);
	else if (nc > 1)
		qsort(cands, nc, sizeof(*cands), cand_cmp);
	uint32_t took = 0;
	for (uint32_t k = 0; k < nc; k++)
		if (v->dmap[cands[k].fnode] < 0 && v->pmap[cands[k].pnode] < 0) {
			bind(v, cands[k].fnode, cands[k].pnode,
			     strict ? named_as(v, (uint32_t)cands[k].fnode, cands[k].pnode)
				    : IBF_MATCH_STRUCTURE);
			took++;
		}
	return took;
}

static int wave_init(struct vctx *v, struct wave *w)
{
	w->cands = malloc(((size_t)v->fab->nnodes + 1) * sizeof(*w->cands));
	w->cp = malloc(((size_t)IBF_MAX_PORTS + 2) * sizeof(int32_t));
	w->cs = malloc(((size_t)IBF_MAX_PORTS + 2) * sizeof(int));
	w->cx = malloc(((size_t)IBF_MAX_PORTS + 2) * sizeof(int));
	return w->cands && w->cp && w->cs && w->cx ? 0 : IBF_ENOMEM;
}

static void wave_free(struct wave *w)
{
	free(w->cands);
	free(w->cp);
	free(w->cs);
	free(w->cx);
}

/* Structural matching from the anchor: strong waves (score >= 2) while
 * they bind anything, then one weak wave, then strong again.  Returns 0
 * or IBF_ENOMEM. */
static int match_structure(struct vctx *v)
{
	struct wave w;
	int rc = wave_init(v, &w);
	if (!rc) {
		int min_score = 2;
		for (;;) {
			if (structure_wave(v, min_score, 0, &w))
				min_score = 2;
			else if (min_score == 2)
				min_score = 1;
			else
				break;
		}
	}
	wave_free(&w);
	return rc;
}

/* Cables of named switch i (bound to plan node pn) to named nodes: *nb in
 * all, returns how many of them the plan puts exactly there. */
static int switch_agreement(const struct vctx *v, uint32_t i, uint32_t pn, int *nb)
{
	const struct ibf_fabric *f = v->fab;
	int agree = 0;
	*nb = 0;
	for (int q = 1; q <= f->nodes[i].nports; q++) {
		const struct ibf_port *pp = ibf_port(f, (int)i, q);
		if (pp->peer_node == IBF_NO_NODE || v->dmap[pp->peer_node] < 0)
			continue;
		(*nb)++;
		int c = ibf_plan_cable_at(v->plan, pn, q);
		if (c < 0)
			continue;
		uint32_t on;
		int op;
		cable_other(&v->plan->cables[c], pn, q, &on, &op);
		agree += (uint32_t)v->dmap[pp->peer_node] == on && op == pp->peer_port;
	}
	return agree;
}

/* From an anchor the waves are greedy: the anchor's neighbours are placed
 * on the anchor's word alone, so two cables exchanged at the anchor put
 * the two switches behind them in each other's place, and in a symmetric
 * graph (a Slim Fly) the waves then carry that on across the fabric (q = 4:
 * one swap at the anchor and one missing cable gave 13 swaps).  Here the
 * switches placed by structure whose cables disagree with the plan
 * exchange their plan names in pairs while that makes more of their
 * cables agree (each pass in plan order, at most 32 passes; skipped beyond
 * 512 such switches).  anchor: the anchor's fabric node, never moved. */
static int repair_structure(struct vctx *v, int anchor)
{
	const struct ibf_fabric *f = v->fab;
	uint32_t nc = 0, *cand = malloc(((size_t)f->nnodes + 1) * sizeof(uint32_t));
	if (!cand)
		return IBF_ENOMEM;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		int nb;
		if (f->nodes[i].type != IBF_NODE_SWITCH || (int)i == anchor || v->dmap[i] < 0 ||
		    v->method[v->dmap[i]] != IBF_MATCH_STRUCTURE)
			continue;
		if (switch_agreement(v, i, (uint32_t)v->dmap[i], &nb) < nb)
			cand[nc++] = i;
	}
	if (nc >= 2 && nc <= 512) {
		/* plan order, not the file's */
		for (uint32_t a = 1; a < nc; a++)
			for (uint32_t b = a; b > 0 && v->dmap[cand[b - 1]] > v->dmap[cand[b]];
			     b--) {
				uint32_t t = cand[b];
				cand[b] = cand[b - 1];
				cand[b - 1] = t;
			}
		for (int pass = 0; pass < 32; pass++) {
			int better = 0;
			for (uint32_t x = 0; x < nc; x++)
				for (uint32_t y = x + 1; y < nc; y++) {
					uint32_t i = cand[x], j = cand[y];
					int32_t pi = v->dmap[i], pj = v->dmap[j];
					int nb;
					int before = switch_agreement(v, i, (uint32_t)pi, &nb) +
						     switch_agreement(v, j, (uint32_t)pj, &nb);
					v->dmap[i] = pj;
					v->dmap[j] = pi;
					v->pmap[pi] = (int32_t)j;
					v->pmap[pj] = (int32_t)i;
					int after = switch_agreement(v, i, (uint32_t)pj, &nb) +
						    switch_agreement(v, j, (uint32_t)pi, &nb);
					if (after > before) {
						better = 1;
						continue;
					}
					v->dmap[i] = pi;
					v->dmap[j] = pj;
					v->pmap[pi] = (int32_t)i;
					v->pmap[pj] = (int32_t)j;
				}
			if (!better)
				break;
		}
	}
	free(cand);
	return 0;
}

/* The plain name of discovered node i in a plan from-topology wrote: its
 * description, else its node id (trimmed and cut like the plan's). */
static void plain_name(const struct ibf_fabric *f, uint32_t i, char *buf, size_t len)
{
	trimmed(f->nodes[i].desc, buf, len);
	if (!buf[0])
		trimmed(f->nodes[i].id, buf, len);
}

/* Copies of one device: discovered nodes of one GUID and one plain name,
 * as the reader makes them when it splits a node (a port line the node's
 * own record contradicts gets a copy of that node) or when two devices
 * report one GUID and one description.  from-topology names them in node
 * order: the plain name, then the plain name with "-0x<GUID>" appended,
 * then that with "-2", "-3", ...  The description pass gave the plain name
 * to the first copy; here every copy is placed again on those plan names,
 * the one whose cables to named nodes agree most with a name's planned
 * cables first (ties: node order, then name order), so a fabric validates
 * clean against its own plan, and against a plan written from another
 * reading in which the copies came in another order.  twice: the GUIDs
 * two or more nodes share.  Returns 0 or IBF_ENOMEM. */
static int match_copies(struct vctx *v, const struct ibf_umap *twice)
{
	const struct ibf_fabric *f = v->fab;
	const struct ibf_plan *p = v->plan;
	uint32_t nf = f->nnodes;
	int rc = 0;
	uint8_t *done = calloc((size_t)nf + 1, 1);
	int32_t *mem = malloc(((size_t)nf + 1) * sizeof(int32_t));
	int32_t *cand = malloc(((size_t)nf + 2) * sizeof(int32_t));
	uint8_t *used = calloc((size_t)nf + 2, 1);
	char *name = malloc(1024), *other = malloc(1024), *gname = malloc(1100);
	if (!done || !mem || !cand || !used || !name || !other || !gname) {
		rc = IBF_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < nf; i++) {
		uint64_t g = ibf_node_some_guid(f, (int)i);
		if (done[i] || !g || ibf_umap_get(twice, g) < 0)
			continue;
		plain_name(f, i, name, 1024);
		if (!name[0])
			continue;
		uint32_t nm = 0;
		for (uint32_t j = i; j < nf; j++) {
			if (done[j] || ibf_node_some_guid(f, (int)j) != g ||
			    (f->nodes[j].type == IBF_NODE_SWITCH) !=
				    (f->nodes[i].type == IBF_NODE_SWITCH))
				continue;
			plain_name(f, j, other, 1024);
			if (strcmp(name, other))
				continue;
			done[j] = 1;
			mem[nm++] = (int32_t)j;
		}
		if (nm < 2)
			continue;
		/* the plan names of the copies: free, or held by one of them */
		uint32_t nc = 0;
		guid_name(f, i, gname, 1100);
		size_t gl = strlen(gname);
		for (unsigned k = 0; nc < nf; k++) {
			if (k == 0)
				snprintf(other, 1024, "%s", name);
			else if (k == 1)
				snprintf(other, 1024, "%s", gname);
			else if (gl + 12 < 1024)
				snprintf(other, 1024, "%s-%u", gname, k);
			else
				break;
			int pn = ibf_plan_find(p, other);
			if (pn < 0) {
				if (k == 0)
					continue; /* the plain name may have gone */
				break;
			}
			if (!same_kind(&p->nodes[pn], &f->nodes[i]))
				continue;
			int holder = v->pmap[pn], ours = holder < 0;
			for (uint32_t m = 0; m < nm && !ours; m++)
				ours = mem[m] == holder;
			if (ours)
				cand[nc++] = pn;
		}
		for (uint32_t m = 0; m < nm; m++)
			for (uint32_t c = 0; c < nc; c++)
				if (v->dmap[mem[m]] == cand[c]) {
					v->pmap[cand[c]] = -1;
					v->method[cand[c]] = 0;
					v->dmap[mem[m]] = -1;
				}
		memset(used, 0, (size_t)nc + 1);
		for (uint32_t left = nm < nc ? nm : nc; left; left--) {
			int bs = -1, nb;
			uint32_t bm = 0, bc = 0;
			for (uint32_t m = 0; m < nm; m++) {
				if (v->dmap[mem[m]] >= 0)
					continue;
				for (uint32_t c = 0; c < nc; c++) {
					if (used[c])
						continue;
					int a = switch_agreement(v, (uint32_t)mem[m],
								 (uint32_t)cand[c], &nb);
					if (a > bs) {
						bs = a;
						bm = m;
						bc = c;
					}
				}
			}
			if (bs < 0)
				break;
			used[bc] = 1;
			bind(v, mem[bm], cand[bc], IBF_MATCH_DESC);
		}
	}
out:
	free(done);
	free(mem);
	free(cand);
	free(used);
	free(name);
	free(other);
	free(gname);
	return rc;
}

/* No anchor: place the switches left unnamed by description and
 * node-name-map structurally, seeded by the switches already named, with
 * strong evidence only (strict waves).  A named switch most of whose
 * cables to named nodes disagree with its plan node (two switches with
 * exchanged descriptions) is set aside first and may be placed elsewhere;
 * if it is not, it gets its name back.  Returns 0 or IBF_ENOMEM. */
static int match_renamed(struct vctx *v)
{
	const struct ibf_fabric *f = v->fab;
	uint32_t nf = f->nnodes, nsus = 0, nfree = 0;
	int32_t *sus = NULL; /* set-aside switch, its plan node, its method */
	for (uint32_t i = 0; i < nf; i++) {
		if (f->nodes[i].type != IBF_NODE_SWITCH)
			continue;
		if (v->dmap[i] < 0) {
			nfree++;
			continue;
		}
		int nb, agree = switch_agreement(v, i, (uint32_t)v->dmap[i], &nb);
		if (nb < 2 || 2 * agree >= nb)
			continue;
		if (!sus && !(sus = malloc(3 * ((size_t)nf + 1) * sizeof(int32_t))))
			return IBF_ENOMEM;
		sus[3 * nsus] = (int32_t)i;
		sus[3 * nsus + 1] = v->dmap[i];
		sus[3 * nsus + 2] = v->method[v->dmap[i]];
		nsus++;
	}
	if (!nfree && !nsus)
		return 0;
	/* set aside only once all are found: each is judged by the same names */
	for (uint32_t k = 0; k < nsus; k++) {
		v->pmap[sus[3 * k + 1]] = -1;
		v->method[sus[3 * k + 1]] = 0;
		v->dmap[sus[3 * k]] = -1;
	}
	struct wave w;
	int rc = wave_init(v, &w);
	for (int round = 0; !rc && round < 2; round++) {
		while (structure_wave(v, 1, 1, &w))
			;
		/* set-aside switches not placed elsewhere get their name back */
		uint32_t back = 0;
		for (uint32_t k = 0; k < nsus; k++)
			if (v->dmap[sus[3 * k]] < 0 && v->pmap[sus[3 * k + 1]] < 0) {
				bind(v, sus[3 * k], sus[3 * k + 1], sus[3 * k + 2]);
				back++;
			}
		if (!back)
			break;
	}
	wave_free(&w);
	free(sus);
	return rc;
}

/* The first word of a description: "gpu01 mlx5_3" -> "gpu01". */
static size_t host_word(const char *d)
{
	size_t n = 0;
	while (d && d[n] && d[n] != ' ' && d[n] != '\t')
		n++;
	return n;
}

/* The plan host that the first word of discovered CA i's description names
 * ("gpu01 mlx5_3" -> host "gpu01"), -1 when none. */
static int named_host(const struct vctx *v, uint32_t i)
{
	const struct ibf_node *d = &v->fab->nodes[i];
	size_t hn = host_word(d->desc);
	if (d->type == IBF_NODE_SWITCH || !hn || !d->desc[hn] || hn >= 1024)
		return -1;
	char buf[1024];
	memcpy(buf, d->desc, hn);
	buf[hn] = '\0';
	int pn = ibf_plan_find(v->plan, buf);
	return pn >= 0 && v->plan->nodes[pn].type != IBF_NODE_SWITCH ? pn : -1;
}

/* Is port op of plan host pn already taken by a discovered device? */
static int host_port_taken(const struct vctx *v, int pn, int op)
{
	return ibf_umap_get(&v->taken, (uint64_t)(uint32_t)pn << 8 | (uint8_t)op) >= 0;
}

/* Record the host ports matched CA i uses. */
static int take_ports(struct vctx *v, uint32_t i)
{
	const struct ibf_node *d = &v->fab->nodes[i];
	if (v->dmap[i] < 0 || d->type == IBF_NODE_SWITCH)
		return 0;
	for (int q = 1; q <= d->nports; q++)
		if (ibf_port(v->fab, (int)i, q)->peer_node != IBF_NO_NODE &&
		    ibf_umap_put(&v->taken,
				 (uint64_t)(uint32_t)v->dmap[i] << 8 |
					 v->xport[d->port_off + (uint32_t)q],
				 1, NULL) < 0)
			return -1;
	return 0;
}

/* The plan port of host pn at the switch port CA i's port q is cabled to,
 * when the plan puts that host there; else 0. */
static int plan_port_here(const struct vctx *v, uint32_t i, int q, int pn)
{
	const struct ibf_port *pp = ibf_port(v->fab, (int)i, q);
	if (pp->peer_node == IBF_NO_NODE || v->dmap[pp->peer_node] < 0)
		return 0;
	uint32_t sn = (uint32_t)v->dmap[pp->peer_node];
	int c = ibf_plan_cable_at(v->plan, sn, pp->peer_port);
	if (c < 0)
		return 0;
	uint32_t on;
	int op;
	cable_other(&v->plan->cables[c], sn, pp->peer_port, &on, &op);
	return on == (uint32_t)pn ? op : 0;
}

/* Give discovered CA i plan host pn: the first device binds it; adapters
 * of ConnectX-4 and later are one single-port device per port ("gpu01
 * mlx5_0", "gpu01 mlx5_1") while a plan names the host once with several
 * ports, so a further single-port device joins the host.  A single-port
 * device takes port op of the host (its own port number says nothing
 * about which port of the host it is); op 0: the lowest planned port of the
 * host no device has yet.  Returns 1 when i was placed. */
static int place_device(struct vctx *v, uint32_t i, int pn, int op, int method)
{
	const struct ibf_node *d = &v->fab->nodes[i];
	if (d->nports != 1) {
		if (v->pmap[pn] >= 0)
			return 0;
		bind(v, (int)i, pn, method);
		return take_ports(v, i) ? -1 : 1;
	}
	if (!op)
		for (int p = 1; p <= v->plan->nodes[pn].nports && !op; p++)
			if (ibf_plan_cable_at(v->plan, (uint32_t)pn, p) >= 0 &&
			    !host_port_taken(v, pn, p))
				op = p;
	if (!op || op > 254 || host_port_taken(v, pn, op))
		return 0;
	if (v->pmap[pn] < 0)
		bind(v, (int)i, pn, method);
	else
		v->dmap[i] = pn;
	v->xport[d->port_off + 1] = (uint8_t)op;
	return take_ports(v, i) ? -1 : 1;
}

/* Hosts named by the first word of their description: devices at the
 * ports the plan gives their host first, then the others. */
static int match_host_names(struct vctx *v)
{
	const struct ibf_fabric *f = v->fab;
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (take_ports(v, i))
			return -1;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < f->nnodes; i++) {
			if (v->dmap[i] >= 0)
				continue;
			int pn = named_host(v, i);
			if (pn < 0)
				continue;
			int op = 0;
			for (int q = 1; q <= f->nodes[i].nports && !op; q++)
				op = plan_port_here(v, i, q, pn);
			if (pass == 0 && !op)
				continue;
			if (place_device(v, i, pn, f->nodes[i].nports == 1 ? op : 0,
					 IBF_MATCH_DESC) < 0)
				return -1;
		}
	return 0;
}

/* A single-port device found where the plan puts a host that another
 * device already has: the same host when both share a system image GUID or
 * the first word of their descriptions. */
static int same_host(const struct vctx *v, uint32_t i, int pn)
{
	const struct ibf_node *d = &v->fab->nodes[i];
	if (d->nports != 1 || v->pmap[pn] < 0)
		return 0;
	const struct ibf_node *m = &v->fab->nodes[v->pmap[pn]];
	size_t hn = host_word(d->desc);
	if (hn && d->desc[hn] && host_word(m->desc) == hn && !memcmp(m->desc, d->desc, hn))
		return 1;
	return d->sysimg_guid && d->sysimg_guid == m->sysimg_guid;
}

/* How many ports of discovered CA i are cabled where the plan puts plan
 * host pn (at a switch already named). */
static int host_agreement(const struct vctx *v, uint32_t i, int pn)
{
	int n = 0;
	for (int q = 1; q <= v->fab->nodes[i].nports; q++)
		n += plan_port_here(v, i, q, pn) != 0;
	return n;
}

static int match_nodes(struct vctx *v, const struct ibf_validate_opts *o, struct ibf_error *err)
{
	const struct ibf_fabric *f = v->fab;
	struct ibf_plan *p = v->plan;
	char buf[1024];
	/* names with the node's GUID first: the node whose description a plan
	 * name repeats is then the one that has no such name.  A GUID two
	 * nodes share (aggregation nodes of one port GUID in ibnetdiscover -p,
	 * duplicate GUIDs) names neither: from-topology gave the plain name to
	 * one of them and the GUID name to the other */
	struct ibf_umap seen = { 0 }, twice = { 0 };
	int mrc = 0, crc;
	for (uint32_t i = 0; i < f->nnodes && !mrc; i++) {
		uint64_t g = ibf_node_some_guid(f, (int)i);
		int r = g ? ibf_umap_put(&seen, g, (int32_t)i, NULL) : 0;
		if (r == 1)
			r = ibf_umap_put(&twice, g, 0, NULL);
		mrc = r < 0;
	}
	for (uint32_t i = 0; i < f->nnodes && !mrc; i++) {
		if (ibf_umap_get(&twice, ibf_node_some_guid(f, (int)i)) >= 0)
			continue;
		guid_name(f, i, buf, sizeof(buf));
		int pn = buf[0] ? ibf_plan_find(p, buf) : -1;
		if (pn >= 0 && v->pmap[pn] < 0 && same_kind(&p->nodes[pn], &f->nodes[i]))
			bind(v, (int)i, pn, IBF_MATCH_DESC);
	}
	ibf_umap_free(&seen);
	if (mrc) {
		ibf_umap_free(&twice);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	/* switches first, so that two adapters with one description (a host
	 * that took another's name) are told apart by where they are: the one
	 * the plan puts behind more of its switch ports keeps the name (ties:
	 * node order), whatever order the file lists them in; the other is
	 * named later by its position */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < f->nnodes; i++) {
			if (v->dmap[i] >= 0 || (f->nodes[i].type == IBF_NODE_SWITCH) != !pass)
				continue;
			/* no description: the plan names it by its node id */
			plain_name(f, i, buf, sizeof(buf));
			int pn = buf[0] ? ibf_plan_find(p, buf) : -1;
			if (pn < 0 || !same_kind(&p->nodes[pn], &f->nodes[i]))
				continue;
			int32_t h = v->pmap[pn];
			if (h < 0) {
				bind(v, (int)i, pn, IBF_MATCH_DESC);
			} else if (pass && (uint32_t)h < i && f->nodes[h].type != IBF_NODE_SWITCH &&
				   host_agreement(v, i, pn) > host_agreement(v, (uint32_t)h, pn)) {
				char hb[1024];
				plain_name(f, (uint32_t)h, hb, sizeof(hb));
				if (!strcmp(hb, buf)) { /* h holds it by the same plain name */
					v->dmap[h] = -1;
					bind(v, (int)i, pn, IBF_MATCH_DESC);
				}
			}
		}
	/* copies of one device (a node the reader split): one name each */
	crc = match_copies(v, &twice);
	ibf_umap_free(&twice);
	if (crc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (o && o->namemap)
		for (uint32_t i = 0; i < f->nnodes; i++) {
			if (v->dmap[i] >= 0)
				continue;
			const char *nm = ibf_namemap_lookup(o->namemap, f->nodes[i].guid);
			if (!nm)
				continue;
			trimmed(nm, buf, sizeof(buf));
			int pn = ibf_plan_find(p, buf);
			if (pn >= 0 && v->pmap[pn] < 0 && same_kind(&p->nodes[pn], &f->nodes[i]))
				bind(v, (int)i, pn, IBF_MATCH_NAMEMAP);
		}
	if (o && o->anchor_name) {
		int pn = ibf_plan_find(p, o->anchor_name);
		if (pn < 0 || p->nodes[pn].type != IBF_NODE_SWITCH)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "anchor '%s' is not a switch of the plan",
					     o->anchor_name);
		int fn = ibf_fabric_find_guid(f, o->anchor_guid);
		if (fn < 0 || f->nodes[fn].type != IBF_NODE_SWITCH)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "anchor GUID 0x%016" PRIx64
					     " is not a switch of the discovered fabric",
					     o->anchor_guid);
		if (v->dmap[fn] >= 0 && v->dmap[fn] != pn) {
			v->pmap[v->dmap[fn]] = -1;
			v->method[v->dmap[fn]] = 0;
		}
		if (v->pmap[pn] >= 0 && v->pmap[pn] != fn)
			v->dmap[v->pmap[pn]] = -1;
		bind(v, fn, pn, IBF_MATCH_STRUCTURE);
		if (match_structure(v) || repair_structure(v, fn))
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	} else if (match_renamed(v)) {
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	if (match_host_names(v))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* hosts by position (not those whose description names another host) */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *fn = &f->nodes[i];
		if (v->dmap[i] >= 0 || fn->type == IBF_NODE_SWITCH || named_host(v, i) >= 0)
			continue;
		for (int q = 1; q <= fn->nports && v->dmap[i] < 0; q++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, q);
			if (pp->peer_node == IBF_NO_NODE || v->dmap[pp->peer_node] < 0)
				continue;
			int c = ibf_plan_cable_at(p, (uint32_t)v->dmap[pp->peer_node],
						  pp->peer_port);
			if (c < 0)
				continue;
			uint32_t on;
			int op;
			cable_other(&p->cables[c], (uint32_t)v->dmap[pp->peer_node], pp->peer_port,
				    &on, &op);
			if (p->nodes[on].type == IBF_NODE_SWITCH)
				continue;
			if ((v->pmap[on] < 0 || same_host(v, i, (int)on)) &&
			    place_device(v, i, (int)on, op, IBF_MATCH_POSITION) < 0)
				return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		}
	}
	return 0;
}

/* ------------------------------------------------------------ classification */

static int find_ok_and_degraded(struct vctx *v)
{
	const struct ibf_plan *p = v->plan;
	for (uint32_t c = 0; c < p->ncables; c++) {
		const struct ibf_cable *cb = &p->cables[c];
		if (v->pmap[cb->a] < 0 || v->pmap[cb->b] < 0)
			continue;
		int l = act_at(v, cb->a, cb->ap);
		if (l < 0)
			continue;
		uint32_t on;
		int op;
		link_other(&v->links[l], cb->a, cb->ap, &on, &op);
		if (on != cb->b || op != cb->bp || v->links[l].used)
			continue;
		v->links[l].used = 1;
		v->cstate[c] = CS_OK;
		v->r->ok++;
		const struct dlink *dl = &v->links[l];
		int narrow = cb->width && dl->width && dl->width < cb->width;
		int slow = cb->speed && dl->speed &&
			   ibf_speed_rate(dl->speed) < ibf_speed_rate(cb->speed);
		if (!narrow && !slow)
			continue;
		char pw[24], aw[24], a[400], b[400];
		ibf_format_width_speed(cb->width, cb->speed, pw, sizeof(pw));
		ibf_format_width_speed(dl->width, dl->speed, aw, sizeof(aw));
		end_str(v, cb->a, cb->ap, a, sizeof(a));
		end_str(v, cb->b, cb->bp, b, sizeof(b));
		/* Older hardware: each shortfall is what the two ports support at
		 * most (both ends' supported values known), so no cable would run
		 * faster there.  Without supported values an older switch and a
		 * wrong cable type look the same and the cable is blamed. */
		int hw = (!narrow || (dl->wsup && dl->wsup <= dl->width)) &&
			 (!slow ||
			  (dl->ssup && ibf_speed_rate(dl->ssup) <= ibf_speed_rate(dl->speed)));
		char *fix = hw ? ibf_asprintf("the cable between %s and %s runs at %s, the most "
					      "its two ports support; the plan says %s: fit "
					      "ports that support %s, or correct the plan (the "
					      "cable is not at fault)",
					      a, b, aw, pw, pw)
			       : ibf_asprintf("reseat or replace the cable between %s and %s: "
					      "it runs at %s, the plan says %s",
					      a, b, aw, pw);
		if (add_finding(v, hw ? IBF_FIND_PORT_LIMITED : IBF_FIND_DEGRADED, (int)c, -1,
				cable_desc(v, (int)c), link_desc(v, l), fix))
			return IBF_ENOMEM;
	}
	return 0;
}

/* A cable a swap, rotation, wrong-port or miswire moves, found below the
 * plan's width or speed: its move does not mend that, so it is one more
 * finding (degraded), as for a cable in its planned place.  The rate it
 * is held to is the lower of the planned cables at its two ports (the
 * move makes it one of them; a port the plan leaves free counts as the
 * slowest planned cable of its node); a link at the most both its ports support
 * (port-limited where it stands) is left alone, its ports change.  Before,
 * such a cable was reported only as moved, and once moved still ran at
 * 1x. */
static int find_moved_degraded(struct vctx *v)
{
	const struct ibf_plan *p = v->plan;
	for (uint32_t d = 0; d < v->nlinks; d++) {
		const struct dlink *dl = &v->links[d];
		if (!dl->moved)
			continue;
		uint32_t en[2] = { dl->un, dl->vn };
		int ep[2] = { dl->up, dl->vp }, c = -1;
		uint8_t pw = 0, ps = 0;
		for (int e = 0; e < 2; e++) {
			int ce = cable_at(v, en[e], ep[e]);
			if (ce >= 0 && (c < 0 || ce < c))
				c = ce;
			/* a port the plan leaves free: held to the slowest of its
			 * node's planned cables (an older switch's spare port) */
			int q0 = ce >= 0 ? ep[e] : 1, q1 = ce >= 0 ? ep[e] : comb_nports(v, en[e]);
			for (int q = q0; q <= q1; q++) {
				int cq = cable_at(v, en[e], q);
				if (cq < 0)
					continue;
				const struct ibf_cable *cb = &p->cables[cq];
				if (cb->width && (!pw || cb->width < pw))
					pw = cb->width;
				if (cb->speed &&
				    (!ps || ibf_speed_rate(cb->speed) < ibf_speed_rate(ps)))
					ps = cb->speed;
			}
		}
		if (c < 0)
			continue;
		int narrow = pw && dl->width && dl->width < pw;
		int slow = ps && dl->speed && ibf_speed_rate(dl->speed) < ibf_speed_rate(ps);
		if (!narrow && !slow)
			continue;
		int hw = (!narrow || (dl->wsup && dl->wsup <= dl->width)) &&
			 (!slow ||
			  (dl->ssup && ibf_speed_rate(dl->ssup) <= ibf_speed_rate(dl->speed)));
		if (hw)
			continue;
		char pws[24], aw[24], a[400], b[400];
		ibf_format_width_speed(pw, ps, pws, sizeof(pws));
		ibf_format_width_speed(dl->width, dl->speed, aw, sizeof(aw));
		if (add_finding(
			    v, IBF_FIND_DEGRADED, c, -1, cable_desc(v, c), link_desc(v, (int)d),
			    ibf_asprintf("the cable between %s and %s runs at %s, the plan says "
					 "%s: moving it does not mend that; reseat or replace it",
					 end_str(v, dl->un, dl->up, a, sizeof(a)),
					 end_str(v, dl->vn, dl->vp, b, sizeof(b)), aw, pws)))
			return IBF_ENOMEM;
	}
	return 0;
}

/* The link's ends as (node, port) pairs when both sit on plan nodes. */
static int link_on_plan(const struct vctx *v, const struct dlink *l)
{
	return l->un < v->plan->nnodes && l->vn < v->plan->nnodes;
}

static int is_switch(const struct vctx *v, uint32_t n)
{
	return n < v->plan->nnodes && v->plan->nodes[n].type == IBF_NODE_SWITCH;
}

static int find_swaps(struct vctx *v)
{
	const struct ibf_plan *p = v->plan;
	for (uint32_t d = 0; d < v->nlinks; d++) {
		struct dlink *l = &v->links[d];
		if (l->used || !link_on_plan(v, l))
			continue;
		int cu = cable_at(v, l->un, l->up), cw = cable_at(v, l->vn, l->vp);
		if (cu < 0 || cw < 0 || cu == cw || v->cstate[cu] || v->cstate[cw])
			continue;
		uint32_t u2n, w2n;
		int u2p, w2p;
		cable_other(&p->cables[cu], l->un, l->up, &u2n, &u2p);
		cable_other(&p->cables[cw], l->vn, l->vp, &w2n, &w2p);
		int d2 = act_at(v, u2n, u2p);
		if (d2 < 0 || (uint32_t)d2 == d || v->links[d2].used)
			continue;
		uint32_t on;
		int op;
		link_other(&v->links[d2], u2n, u2p, &on, &op);
		if (on != w2n || op != w2p)
			continue;
		/* planned u-u2, w-w2; found u-w, u2-w2.  Exchanging the plugs at
		 * (w, u2) or at (u, w2) fixes both; prefer a pair on one switch,
		 * then on one host (a dual-port adapter whose two cables go to one
		 * switch: at the switch, as documented; it used to be the host's
		 * two ports), then on two switches.  Lower port first. */
		uint32_t xn = l->vn, yn = u2n;
		int xp = l->vp, yp = u2p;
		int s1 = l->vn == u2n ? 2 + is_switch(v, l->vn)
				      : is_switch(v, l->vn) && is_switch(v, u2n);
		int s2 = l->un == w2n ? 2 + is_switch(v, l->un)
				      : is_switch(v, l->un) && is_switch(v, w2n);
		if (s2 > s1) {
			xn = l->un;
			xp = l->up;
			yn = w2n;
			yp = w2p;
		}
		if (xn == yn && xp > yp) {
			int t = xp;
			xp = yp;
			yp = t;
		}
		l->used = l->moved = 1;
		v->links[d2].used = v->links[d2].moved = 1;
		v->cstate[cu] = v->cstate[cw] = CS_EXPLAINED;
		char a[400], b[400];
		int c0 = cu < cw ? cu : cw, c1 = cu < cw ? cw : cu;
		if (add_finding(
			    v, IBF_FIND_SWAPPED, c0, c1,
			    join2(cable_desc(v, c0), cable_desc(v, c1)),
			    join2(link_desc(v, (int)d), link_desc(v, d2)),
			    ibf_asprintf("swap the two cables at %s and %s (exchange the plugs)",
					 end_str(v, xn, xp, a, sizeof(a)),
					 end_str(v, yn, yp, b, sizeof(b)))))
			return IBF_ENOMEM;
	}
	return 0;
}

/* Growable text for findings whose length grows with a cycle. */
struct sbuf {
	char *s;
	size_t len, cap;
	int bad;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	if (b->bad)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->bad = 1;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap ? b->cap : 256) * 2 + (size_t)n;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->bad = 1;
			return;
		}
		if (!b->s)
			ns[0] = '\0';
		b->s = ns;
		b->cap = cap;
	}
}

/* The text, owned by the caller (NULL when out of memory). */
static char *sb_take(struct sbuf *b)
{
	if (b->bad) {
		free(b->s);
		return NULL;
	}
	return b->s ? b->s : strdup("");
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* distinct nodes among n[0..k) (sorts tmp) */
static uint32_t distinct_nodes(const uint32_t *n, uint32_t k, uint32_t *tmp)
{
	memcpy(tmp, n, k * sizeof(*n));
	qsort(tmp, k, sizeof(*tmp), cmp_u32);
	uint32_t d = 0;
	for (uint32_t i = 0; i < k; i++)
		d += !i || tmp[i] != tmp[i - 1];
	return d;
}

/* One rotation: planned cables c[0..k) with ends (en, ep) -- (fn, fp),
 * found: f[i] joined to e[i+1] (and f[k-1] to e[0]).  Every cable is put
 * right by moving one plug per found link, all at the e ends (the plug at
 * e[i+1] goes to e[i]) or all at the f ends (the plug at f[i] goes to
 * f[i+1]); the side on fewer nodes is moved (one switch when possible),
 * then the side with more switch ports, then the one holding the first
 * cable's a end.  The report lists the moving ports P[0..k) so that the
 * cable for P[j] sits in P[j+1], starting at the cable with the lowest
 * number: unplug P[0], move P[1] to P[0], ..., plug the first into P[k-1]. */
struct rot {
	uint32_t *c, *en, *fn, *tmp, *pn, *pc;
	uint8_t *ep, *fp, *pp;
};

static int report_rotation(struct vctx *v, struct rot *w, uint32_t k)
{
	const struct ibf_plan *p = v->plan;
	uint32_t de = distinct_nodes(w->en, k, w->tmp), df = distinct_nodes(w->fn, k, w->tmp);
	uint32_t se = 0, sf = 0, lo = 0;
	for (uint32_t i = 0; i < k; i++) {
		se += is_switch(v, w->en[i]);
		sf += is_switch(v, w->fn[i]);
		if (p->cables[w->c[i]].id < p->cables[w->c[lo]].id)
			lo = i;
	}
	const struct ibf_cable *cl = &p->cables[w->c[lo]];
	int use_e = de != df ? de < df
		    : se != sf ? se > sf
			       : cl->a == w->en[lo] && cl->ap == w->ep[lo];
	/* P[j] = e[lo + j] (forward) or f[lo - j] (backward) */
	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = use_e ? (lo + j) % k : (lo + k - j) % k;
		w->pn[j] = use_e ? w->en[i] : w->fn[i];
		w->pp[j] = use_e ? w->ep[i] : w->fp[i];
		w->pc[j] = w->c[i];
	}
	int one = distinct_nodes(w->pn, k, w->tmp) == 1;
	char a[400], b[400], nb[300];
	struct sbuf ex = { 0 }, ac = { 0 }, fx = { 0 };
	for (uint32_t j = 0; j < k; j++) {
		char *cd = cable_desc(v, (int)w->pc[j]);
		int l = act_at(v, w->pn[j], w->pp[j]);
		char *ld = l >= 0 ? link_desc(v, l) : NULL;
		if (!cd || !ld)
			ex.bad = 1;
		sb_add(&ex, "%s%s", j ? "; " : "", cd ? cd : "");
		sb_add(&ac, "%s%s", j ? "; " : "", ld ? ld : "");
		free(cd);
		free(ld);
	}
#define PORT_STR(j, buf)                                                                  \
	(one ? (snprintf(buf, sizeof(buf), "port %u", w->pp[j]), buf)                   \
	     : end_str(v, w->pn[j], w->pp[j], buf, sizeof(buf)))
	if (one) {
		sb_add(&fx, "%u cables rotated among the ports of %s: ", k,
		       node_name(v, w->pn[0], nb, sizeof(nb)));
	} else {
		sb_add(&fx, "%u cables rotated among ports of ", k);
		uint32_t shown = 0;
		for (uint32_t j = 0; j < k && shown < 4; j++) {
			uint32_t q = 0;
			while (q < j && w->pn[q] != w->pn[j])
				q++;
			if (q < j)
				continue;
			sb_add(&fx, "%s%s", shown ? ", " : "", node_name(v, w->pn[j], nb, sizeof(nb)));
			shown++;
		}
		if (shown == 4 && distinct_nodes(w->pn, k, w->tmp) > 4)
			sb_add(&fx, ", ...");
		sb_add(&fx, ": ");
	}
	for (uint32_t j = 0; j < k; j++)
		sb_add(&fx, "%s %s %s %s", j ? ", the one for" : "the cable for", PORT_STR(j, a),
		       j ? "in" : "is in",
		       PORT_STR((j + 1) % k, b));
	sb_add(&fx, "; unplug the cable at %s", PORT_STR(0, a));
	for (uint32_t j = 1; j < k; j++)
		sb_add(&fx, ", %s the one at %s to %s", j == 1 ? "move" : "then", PORT_STR(j, a),
		       PORT_STR(j - 1, b));
	sb_add(&fx, ", and plug the unplugged cable into %s", PORT_STR(k - 1, a));
#undef PORT_STR
	char *exs = sb_take(&ex), *acs = sb_take(&ac), *fxs = sb_take(&fx);
	uint32_t *more = k > 2 ? malloc((k - 2) * sizeof(uint32_t)) : NULL;
	if (!more || !exs || !acs || !fxs) {
		free(exs);
		free(acs);
		free(fxs);
		free(more);
		return IBF_ENOMEM;
	}
	for (uint32_t j = 2; j < k; j++)
		more[j - 2] = p->cables[w->pc[j]].id;
	if (add_finding(v, IBF_FIND_ROTATED, (int)w->pc[0], (int)w->pc[1], exs, acs, fxs)) {
		free(more);
		return IBF_ENOMEM;
	}
	v->r->f[v->r->n - 1].nmore = k - 2;
	v->r->f[v->r->n - 1].more = more;
	return 0;
}

/* Rotations: three or more cables, each plugged where the next one
 * belongs, on one switch or across switches (with swaps, that find the
 * cycles of two, every cycle of wrong plugs is one finding).  Following a
 * discovered cable from one end to the planned cable at its other end, to
 * the discovered cable at that one's other end, and so on, either ends
 * (nothing there, a cable already explained, an unknown node) or comes
 * back to the start.  Every end has one planned and at most one discovered
 * cable, so each chain is walked once: links on a chain that ended are
 * marked and not started from again. */
static int find_rotations(struct vctx *v)
{
	const struct ibf_plan *p = v->plan;
	size_t n = (size_t)(v->nlinks < p->ncables ? v->nlinks : p->ncables) + 1;
	uint8_t *seen = calloc((size_t)v->nlinks + 1, 1);
	uint32_t *walk = malloc(n * sizeof(uint32_t));
	struct rot w = {
		.c = malloc(n * sizeof(uint32_t)),   .en = malloc(n * sizeof(uint32_t)),
		.fn = malloc(n * sizeof(uint32_t)),  .tmp = malloc(n * sizeof(uint32_t)),
		.pn = malloc(n * sizeof(uint32_t)),  .pc = malloc(n * sizeof(uint32_t)),
		.ep = malloc(n),		     .fp = malloc(n),
		.pp = malloc(n),
	};
	int rc = 0;
	if (!seen || !walk || !w.c || !w.en || !w.fn || !w.tmp || !w.pn || !w.pc || !w.ep ||
	    !w.fp || !w.pp) {
		rc = IBF_ENOMEM;
		goto out;
	}
	for (uint32_t d0 = 0; d0 < v->nlinks && !rc; d0++) {
		const struct dlink *l0 = &v->links[d0];
		if (seen[d0] || l0->used || !link_on_plan(v, l0))
			continue;
		uint32_t k = 0, nw = 0, cn = l0->vn;
		int cp = l0->vp, closed = 0;
		seen[d0] = 1;
		walk[nw++] = d0;
		while (k + 1 < n) {
			int c = cable_at(v, cn, cp);
			if (c < 0 || v->cstate[c])
				break;
			uint32_t yn;
			int yp;
			cable_other(&p->cables[c], cn, cp, &yn, &yp);
			w.c[k] = (uint32_t)c;
			w.en[k] = cn;
			w.ep[k] = (uint8_t)cp;
			w.fn[k] = yn;
			w.fp[k] = (uint8_t)yp;
			k++;
			int d = act_at(v, yn, yp);
			if (d < 0 || v->links[d].used || !link_on_plan(v, &v->links[d]))
				break;
			if ((uint32_t)d == d0) {
				closed = yn == l0->un && yp == l0->up;
				break;
			}
			if (seen[d])
				break;
			seen[d] = 1;
			walk[nw++] = (uint32_t)d;
			link_other(&v->links[d], yn, yp, &cn, &cp);
		}
		if (!closed || k < 3)
			continue; /* a chain, a swap, or a correct cable: left to the rest */
		for (uint32_t i = 0; i < nw; i++)
			v->links[walk[i]].used = v->links[walk[i]].moved = 1;
		for (uint32_t i = 0; i < k; i++)
			v->cstate[w.c[i]] = CS_EXPLAINED;
		rc = report_rotation(v, &w, k);
	}
out:
	free(seen);
	free(walk);
	free(w.c);
	free(w.en);
	free(w.fn);
	free(w.tmp);
	free(w.pn);
	free(w.pc);
	free(w.ep);
	free(w.fp);
	free(w.pp);
	return rc;
}

/* A move whose target port is taken: the cable there is moved first, and
 * moves that still go round in a circle (rotations are found before, so
 * only circles that mix other moves) need one cable unplugged to start. */
#define BUSY_NOTE                                                                     \
	" (that port holds another cable: move that one first, or, when the moves go " \
	"in a circle, unplug this one and plug it in once the port is free)"

static int find_wrong_ports(struct vctx *v)
{
	const struct ibf_plan *p = v->plan;
	for (uint32_t d = 0; d < v->nlinks; d++) {
		struct dlink *l = &v->links[d];
		if (l->used || !link_on_plan(v, l))
			continue;
		int c = -1, keep = -1; /* keep: 0 = u end stays, 1 = v end stays, 2 = none */
		uint32_t on;
		int op;
		int cu = cable_at(v, l->un, l->up), cw = cable_at(v, l->vn, l->vp);
		if (cu >= 0 && !v->cstate[cu]) {
			cable_other(&p->cables[cu], l->un, l->up, &on, &op);
			if (on == l->vn)
				c = cu, keep = 0;
		}
		if (c < 0 && cw >= 0 && !v->cstate[cw]) {
			cable_other(&p->cables[cw], l->vn, l->vp, &on, &op);
			if (on == l->un)
				c = cw, keep = 1;
		}
		if (c < 0) {
			/* right nodes, both ports wrong: any open planned cable between them */
			uint32_t n = l->un;
			for (int q = 1; q <= p->nodes[n].nports && c < 0; q++) {
				int k = ibf_plan_cable_at(p, n, q);
				if (k < 0 || v->cstate[k])
					continue;
				cable_other(&p->cables[k], n, q, &on, &op);
				if (on == l->vn && act_at(v, n, q) < 0 && act_at(v, on, op) < 0)
					c = k, keep = 2;
			}
		}
		if (c < 0)
			continue;
		const struct ibf_cable *cb = &p->cables[c];
		l->used = l->moved = 1;
		v->cstate[c] = CS_EXPLAINED;
		char a[400], b[400], t[400];
		char *fix;
		if (keep < 2) {
			uint32_t sn = keep == 0 ? l->un : l->vn, mn = keep == 0 ? l->vn : l->un;
			int sp = keep == 0 ? l->up : l->vp, mp = keep == 0 ? l->vp : l->up;
			uint32_t tn;
			int tp;
			cable_other(cb, sn, sp, &tn, &tp);
			int busy = act_at(v, tn, tp) >= 0;
			fix = ibf_asprintf(
				"move the cable at %s from %s to %s%s",
				end_str(v, sn, sp, a, sizeof(a)), end_str(v, mn, mp, b, sizeof(b)),
				end_str(v, tn, tp, t, sizeof(t)),
				busy ? BUSY_NOTE : "");
		} else {
			char t2[400];
			int ua = cb->a == l->un;
			fix = ibf_asprintf(
				"move the cable between %s and %s to %s and %s",
				end_str(v, l->un, l->up, a, sizeof(a)),
				end_str(v, l->vn, l->vp, b, sizeof(b)),
				end_str(v, ua ? cb->a : cb->b, ua ? cb->ap : cb->bp, t, sizeof(t)),
				end_str(v, ua ? cb->b : cb->a, ua ? cb->bp : cb->ap, t2,
					sizeof(t2)));
		}
		if (add_finding(v, IBF_FIND_WRONG_PORT, c, -1, cable_desc(v, c),
				link_desc(v, (int)d), fix))
			return IBF_ENOMEM;
	}
	return 0;
}

/* Miswired: keep end (sn, sp) whose planned cable is c, move the other. */
static int report_miswire(struct vctx *v, uint32_t d, int c, int keep_u)
{
	struct dlink *l = &v->links[d];
	uint32_t sn = keep_u ? l->un : l->vn, mn = keep_u ? l->vn : l->un, tn;
	int sp = keep_u ? l->up : l->vp, mp = keep_u ? l->vp : l->up, tp;
	cable_other(&v->plan->cables[c], sn, sp, &tn, &tp);
	int busy = v->pmap[tn] >= 0 && act_at(v, tn, tp) >= 0;
	l->used = l->moved = 1;
	v->cstate[c] = CS_EXPLAINED;
	char a[400], b[400], t[400];
	return add_finding(
		v, IBF_FIND_MISWIRED, c, -1, cable_desc(v, c), link_desc(v, (int)d),
		ibf_asprintf("move the cable at %s from %s to %s%s",
			     end_str(v, sn, sp, a, sizeof(a)), end_str(v, mn, mp, b, sizeof(b)),
			     end_str(v, tn, tp, t, sizeof(t)),
			     busy	       ? BUSY_NOTE
			     : v->pmap[tn] < 0 ? (v->plan->nodes[tn].type == IBF_NODE_SWITCH
							  ? " (that switch was not found)"
							  : " (that host was not found)")
					       : ""));
}

static int find_miswires(struct vctx *v)
{
	for (int pass = 0; pass < 3; pass++)
		for (uint32_t d = 0; d < v->nlinks; d++) {
			struct dlink *l = &v->links[d];
			if (l->used || (l->un >= v->plan->nnodes && l->vn >= v->plan->nnodes))
				continue;
			int cu = cable_at(v, l->un, l->up), cw = cable_at(v, l->vn, l->vp);
			if (cu >= 0 && v->cstate[cu])
				cu = -1;
			if (cw >= 0 && v->cstate[cw])
				cw = -1;
			int n = (cu >= 0) + (cw >= 0);
			if (!n)
				continue;
			if (pass == 0 && n != 1)
				continue;
			int keep_u = cu >= 0;
			if (n == 2) {
				/* prefer the move whose target port is free */
				uint32_t tn;
				int tp;
				cable_other(&v->plan->cables[cu], l->un, l->up, &tn, &tp);
				int u_free = v->pmap[tn] >= 0 && act_at(v, tn, tp) < 0;
				cable_other(&v->plan->cables[cw], l->vn, l->vp, &tn, &tp);
				int w_free = v->pmap[tn] >= 0 && act_at(v, tn, tp) < 0;
				if (pass == 1 && !u_free && !w_free)
					continue;
				keep_u = u_free || !w_free;
			}
			if (report_miswire(v, d, keep_u ? cu : cw, keep_u))
				return IBF_ENOMEM;
		}
	return 0;
}

static int report_rest(struct vctx *v, const struct ibf_validate_opts *o)
{
	struct ibf_plan *p = v->plan;
	const struct ibf_fabric *f = v->fab;
	/* the step being cabled */
	int step = 0;
	if (o && o->partial) {
		step = o->step;
		if (!step)
			for (uint32_t c = 0; c < p->ncables; c++)
				if (v->cstate[c] && p->cables[c].step > step)
					step = p->cables[c].step;
		v->r->partial_step = step;
	}
	int partial = o && o->partial;
	/* switches of the plan that were not found */
	for (uint32_t n = 0; n < p->nnodes; n++) {
		if (v->pmap[n] >= 0 || p->nodes[n].type != IBF_NODE_SWITCH)
			continue;
		uint32_t nc = 0, nexp = 0, ntot = 0, minstep = UINT32_MAX;
		int first = -1;
		/* a cable between two missing switches was folded into the first
		 * one; it is still one of this switch's cables */
		for (int q = 1; q <= p->nodes[n].nports; q++) {
			int c = ibf_plan_cable_at(p, n, q);
			if (c >= 0)
				ntot++;
			if (c < 0 || (v->cstate[c] != CS_OPEN && v->cstate[c] != CS_FOLDED))
				continue;
			nc++;
			if (first < 0)
				first = c;
			if (partial && p->cables[c].step > step)
				nexp++;
			if (p->cables[c].step < minstep)
				minstep = p->cables[c].step;
		}
		if (nc && nexp == nc)
			continue; /* everything of it is still to be cabled */
		for (int q = 1; q <= p->nodes[n].nports; q++) {
			int c = ibf_plan_cable_at(p, n, q);
			if (c >= 0 && !v->cstate[c])
				v->cstate[c] = CS_FOLDED;
		}
		if (add_finding(
			    v, IBF_FIND_MISSING_NODE, first, -1,
			    ibf_asprintf("switch %s (rack %s) with %u planned cables",
					 p->nodes[n].name,
					 p->nodes[n].rack[0] ? p->nodes[n].rack : "-", ntot),
			    strdup("not found in the discovered fabric"),
			    ibf_asprintf("install, power and cable %s (check its node description "
					 "or add it to the node-name-map if it is there)",
					 p->nodes[n].name)))
			return IBF_ENOMEM;
	}
	/* switches placed by their named neighbours: one finding each, its
	 * cables classified like any other */
	for (uint32_t n = 0; n < p->nnodes; n++) {
		if (v->method[n] != IBF_MATCH_RENAMED)
			continue;
		const struct ibf_node *fn = &f->nodes[v->pmap[n]];
		int total = 0, ok = 0, ntot = 0;
		for (int q = 1; q <= p->nodes[n].nports; q++)
			ntot += ibf_plan_cable_at(p, n, q) >= 0;
		for (int q = 1; q <= comb_nports(v, n); q++) {
			if (act_at(v, n, q) < 0)
				continue;
			total++;
			int c = cable_at(v, n, q);
			ok += c >= 0 && v->cstate[c] == CS_OK;
		}
		char d[300], agree[120];
		trimmed(fn->desc, d, sizeof(d));
		int other = d[0] ? ibf_plan_find(p, d) : -1;
		if (other >= 0 && p->nodes[other].type != IBF_NODE_SWITCH)
			other = -1;
		const char *nm = o && o->namemap ? ibf_namemap_lookup(o->namemap, fn->guid) : NULL;
		if (ok == total)
			snprintf(agree, sizeof(agree),
				 "every one of its %d cables matches the plan", total);
		else
			snprintf(agree, sizeof(agree),
				 "%d of its %d cables match the plan (the others are listed "
				 "below)",
				 ok, total);
		if (add_finding(
			    v, IBF_FIND_RENAMED, -1, -1,
			    ibf_asprintf("switch %s (rack %s) with %d planned cables",
					 p->nodes[n].name,
					 p->nodes[n].rack[0] ? p->nodes[n].rack : "-", ntot),
			    ibf_asprintf("switch 0x%016" PRIx64
					 " (description '%s'%s) stands where "
					 "the plan puts %s: %s",
					 fn->guid, d,
					 other >= 0 ? ", the name of another planned switch" : "",
					 p->nodes[n].name, agree),
			    nm ? ibf_asprintf("rename switch 0x%016" PRIx64 ": its node-name-map "
					      "entry says '%s', the plan puts %s there",
					      fn->guid, nm, p->nodes[n].name)
			       : ibf_asprintf("rename switch 0x%016" PRIx64 " ('%s') to %s: set "
					      "its node description (or map its GUID to %s in "
					      "the node-name-map)",
					      fn->guid, d, p->nodes[n].name, p->nodes[n].name)))
			return IBF_ENOMEM;
	}
	/* missing cables */
	for (uint32_t c = 0; c < p->ncables; c++) {
		if (v->cstate[c])
			continue;
		const struct ibf_cable *cb = &p->cables[c];
		if (partial && cb->step > step) {
			v->r->expected_missing++;
			continue;
		}
		char a[400], b[400];
		if (add_finding(v, IBF_FIND_MISSING, (int)c, -1, cable_desc(v, (int)c),
				strdup("no cable"),
				ibf_asprintf("connect %s to %s (cable %u, step %u)",
					     end_str(v, cb->a, cb->ap, a, sizeof(a)),
					     end_str(v, cb->b, cb->bp, b, sizeof(b)), cb->id,
					     cb->step)))
			return IBF_ENOMEM;
	}
	/* unknown switches with cables (their cables are part of the finding) */
	for (uint32_t n = p->nnodes; n < v->ncomb; n++) {
		const struct ibf_node *fn = &f->nodes[v->comb_fab[n]];
		if (fn->type != IBF_NODE_SWITCH)
			continue;
		char list[700] = "", nb[300], a[400];
		size_t len = 0;
		int shown = 0, total = 0;
		for (int q = 1; q <= comb_nports(v, n); q++) {
			int l = act_at(v, n, q);
			if (l < 0)
				continue;
			total++;
			v->links[l].used = 1;
			if (shown < 4 && len < sizeof(list) - 200) {
				uint32_t on;
				int op;
				link_other(&v->links[l], n, q, &on, &op);
				bappend(list, sizeof(list), &len, "%sport %d to %s",
					shown ? ", " : "", q, end_str(v, on, op, a, sizeof(a)));
				shown++;
			}
		}
		if (!total)
			continue; /* no cable to fix (only an excerpt of a dump has such) */
		if (total > shown)
			bappend(list, sizeof(list), &len, ", ... (%d cables)", total);
		if (add_finding(
			    v, IBF_FIND_UNKNOWN_NODE, -1, -1, strdup("no such switch in the plan"),
			    ibf_asprintf("switch %s: %s", node_name(v, n, nb, sizeof(nb)), list),
			    ibf_asprintf("remove switch %s, or give it its plan name (node "
					 "description, --node-name-map or --anchor)",
					 node_name(v, n, nb, sizeof(nb)))))
			return IBF_ENOMEM;
	}
	/* extra cables */
	for (uint32_t d = 0; d < v->nlinks; d++) {
		if (v->links[d].used)
			continue;
		const struct dlink *l = &v->links[d];
		char a[400], b[400];
		v->links[d].used = 1;
		if (add_finding(v, IBF_FIND_EXTRA, -1, -1, strdup("no cable"), link_desc(v, (int)d),
				ibf_asprintf("unplug the cable between %s and %s",
					     end_str(v, l->un, l->up, a, sizeof(a)),
					     end_str(v, l->vn, l->vp, b, sizeof(b)))))
			return IBF_ENOMEM;
	}
	return 0;
}

static int kind_rank(int k)
{
	switch (k) {
	case IBF_FIND_MISSING_NODE:
		return 0;
	case IBF_FIND_UNKNOWN_NODE:
		return 1;
	case IBF_FIND_RENAMED:
		return 2;
	default:
		return 3;
	}
}

static int dlink_cmp(const void *x, const void *y)
{
	const struct dlink *a = x, *b = y;
	if (a->un != b->un)
		return a->un < b->un ? -1 : 1;
	return a->up < b->up ? -1 : a->up > b->up;
}

/* The discovered links in the order of their ends in the plan's node and
 * port numbering, each from its lower end, and act[] for them: what is
 * reported (which link of a pair a swap is found from, which ends its fix
 * names, the order of the 'found' text) then does not depend on the order
 * of the records in the fabric file (ibnetdiscover's walk, live discovery). */
static void canon_links(struct vctx *v)
{
	for (uint32_t d = 0; d < v->nlinks; d++) {
		struct dlink *l = &v->links[d];
		if (l->vn < l->un || (l->vn == l->un && l->vp < l->up)) {
			uint32_t n = l->un;
			uint8_t p = l->up;
			l->un = l->vn;
			l->up = l->vp;
			l->vn = n;
			l->vp = p;
		}
	}
	if (v->nlinks > 1)
		qsort(v->links, v->nlinks, sizeof(*v->links), dlink_cmp);
	for (uint32_t d = 0; d < v->nlinks; d++) {
		v->act[end_of(v, v->links[d].un, v->links[d].up)] = (int32_t)d;
		v->act[end_of(v, v->links[d].vn, v->links[d].vp)] = (int32_t)d;
	}
}

static int finding_cmp(const void *x, const void *y)
{
	const struct ibf_finding *a = x, *b = y;
	int ra = kind_rank(a->kind), rb = kind_rank(b->kind);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->step != b->step)
		return a->step == 0 ? 1 : b->step == 0 ? -1 : a->step < b->step ? -1 : 1;
	uint32_t ia = a->cable[0] >= 0 ? a->id[0] : UINT32_MAX;
	uint32_t ib = b->cable[0] >= 0 ? b->id[0] : UINT32_MAX;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	return strcmp(a->actual, b->actual);
}

int ibf_validate(struct ibf_plan *plan, const struct ibf_fabric *fab,
		 const struct ibf_validate_opts *o, struct ibf_vreport *r, struct ibf_error *err)
{
	memset(r, 0, sizeof(*r));
	if (!plan->port_cable && ibf_plan_index(plan, err))
		return err ? err->code : IBF_EINVAL;
	struct vctx v = { .plan = plan, .fab = fab, .o = o, .r = r };
	int rc = IBF_ENOMEM;
	uint32_t nf = fab->nnodes, np = plan->nnodes;
	v.dmap = malloc(((size_t)nf + 1) * sizeof(int32_t));
	v.pmap = malloc(((size_t)np + 1) * sizeof(int32_t));
	v.method = calloc((size_t)np + 1, 1);
	v.cstate = calloc((size_t)plan->ncables + 1, 1);
	v.comb_fab = malloc(((size_t)np + nf + 1) * sizeof(int32_t));
	v.off = malloc(((size_t)np + nf + 2) * sizeof(uint32_t));
	v.xport = malloc((size_t)fab->nports_total + 1);
	if (!v.dmap || !v.pmap || !v.method || !v.cstate || !v.comb_fab || !v.off || !v.xport)
		goto nomem;
	for (uint32_t i = 0; i < nf; i++)
		for (int q = 0; q <= fab->nodes[i].nports; q++)
			v.xport[fab->nodes[i].port_off + (uint32_t)q] = (uint8_t)q;
	for (uint32_t i = 0; i < nf; i++)
		v.dmap[i] = -1;
	for (uint32_t i = 0; i < np; i++)
		v.pmap[i] = -1;
	rc = match_nodes(&v, o, err);
	if (rc)
		goto out;
	rc = IBF_ENOMEM;
	/* combined nodes: plan nodes, then unmatched discovered nodes */
	v.ncomb = np;
	for (uint32_t i = 0; i < np; i++)
		v.comb_fab[i] = v.pmap[i];
	for (uint32_t i = 0; i < nf; i++)
		if (v.dmap[i] < 0) {
			v.comb_fab[v.ncomb] = (int32_t)i;
			v.dmap[i] = (int32_t)v.ncomb++;
		}
	uint32_t off = 0;
	for (uint32_t n = 0; n < v.ncomb; n++) {
		int npt = n < np ? plan->nodes[n].nports : 0;
		if (v.comb_fab[n] >= 0 && fab->nodes[v.comb_fab[n]].nports > npt)
			npt = fab->nodes[v.comb_fab[n]].nports;
		v.off[n] = off;
		off += (uint32_t)npt + 1;
	}
	v.off[v.ncomb] = off;
	v.act = malloc(((size_t)off + 1) * sizeof(int32_t));
	v.links = malloc(((size_t)fab->nports_total / 2 + 2) * sizeof(*v.links));
	if (!v.act || !v.links)
		goto nomem;
	for (uint32_t i = 0; i < off; i++)
		v.act[i] = -1;
	for (uint32_t i = 0; i < nf; i++) {
		const struct ibf_node *fn = &fab->nodes[i];
		for (int q = 1; q <= fn->nports; q++) {
			const struct ibf_port *pp = ibf_port(fab, (int)i, q);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			uint32_t j = (uint32_t)pp->peer_node;
			if (j < i || (j == i && pp->peer_port <= q))
				continue;
			if (v.nlinks >= fab->nports_total / 2 + 1)
				break;
			const struct ibf_port *pq = ibf_port(fab, (int)j, pp->peer_port);
			struct dlink *l = &v.links[v.nlinks];
			l->un = (uint32_t)v.dmap[i];
			l->up = v.xport[fn->port_off + (uint32_t)q];
			l->vn = (uint32_t)v.dmap[j];
			l->vp = v.xport[fab->nodes[j].port_off + pp->peer_port];
			l->width = pp->width && pq->width && pq->width < pp->width ? pq->width
				   : pp->width					   ? pp->width
										   : pq->width;
			l->speed = pp->speed && pq->speed &&
						   ibf_speed_rate(pq->speed) <
							   ibf_speed_rate(pp->speed)
					   ? pq->speed
				   : pp->speed ? pp->speed
					       : pq->speed;
			l->wsup = pp->width_sup && pq->width_sup
					  ? (pp->width_sup < pq->width_sup ? pp->width_sup
									   : pq->width_sup)
					  : 0;
			l->ssup = pp->speed_sup && pq->speed_sup
					  ? (ibf_speed_rate(pp->speed_sup) <
							     ibf_speed_rate(pq->speed_sup)
						     ? pp->speed_sup
						     : pq->speed_sup)
					  : 0;
			l->used = l->moved = 0;
			v.nlinks++;
		}
	}
	canon_links(&v);
	for (uint32_t n = 0; n < np; n++)
		if (v.method[n])
			r->matched_by[v.method[n]]++;
	r->planned = plan->ncables;
	for (uint32_t n = 0; n < np; n++)
		r->plan_nodes += plan->nodes[n].type == IBF_NODE_SWITCH;
	for (uint32_t i = 0; i < nf; i++)
		r->found_nodes += fab->nodes[i].type == IBF_NODE_SWITCH;
	if (find_ok_and_degraded(&v) || find_swaps(&v) || find_rotations(&v) ||
	    find_wrong_ports(&v) || find_miswires(&v) || find_moved_degraded(&v) ||
	    report_rest(&v, o))
		goto nomem;
	if (r->n > 1)
		qsort(r->f, r->n, sizeof(*r->f), finding_cmp);
	rc = 0;
	goto out;
nomem:
	rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
out:
	free(v.dmap);
	free(v.xport);
	ibf_umap_free(&v.taken);
	free(v.pmap);
	free(v.method);
	free(v.cstate);
	free(v.comb_fab);
	free(v.off);
	free(v.act);
	free(v.links);
	if (rc)
		ibf_vreport_free(r);
	return rc;
}

void ibf_vreport_free(struct ibf_vreport *r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		free(r->f[i].expected);
		free(r->f[i].actual);
		free(r->f[i].fix);
		free(r->f[i].more);
	}
	free(r->f);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------ output */

void ibf_vreport_write_text(const struct ibf_vreport *r, FILE *out)
{
	fprintf(out,
		"plan: %u switches, %u cables; found %u switches; nodes named by description %u, "
		"by node-name-map %u, by structure %u, hosts by position %u",
		r->plan_nodes, r->planned, r->found_nodes, r->matched_by[IBF_MATCH_DESC],
		r->matched_by[IBF_MATCH_NAMEMAP], r->matched_by[IBF_MATCH_STRUCTURE],
		r->matched_by[IBF_MATCH_POSITION]);
	if (r->matched_by[IBF_MATCH_RENAMED])
		fprintf(out, ", switches placed by their named neighbours %u",
			r->matched_by[IBF_MATCH_RENAMED]);
	fputc('\n', out);
	if (r->partial_step)
		fprintf(out,
			"partial: cabling up to step %d; %u cables of later steps not yet "
			"expected\n",
			r->partial_step, r->expected_missing);
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ibf_finding *f = &r->f[i];
		fprintf(out, "%s: %s\n", ibf_finding_kind_name(f->kind), f->fix);
		if (f->expected[0])
			fprintf(out, "    expected: %s\n", f->expected);
		if (f->actual[0])
			fprintf(out, "    found:    %s\n", f->actual);
	}
	if (!r->n) {
		fprintf(out, "clean: %u of %u planned cables present and correct\n", r->ok,
			r->planned);
		return;
	}
	fprintf(out, "%u finding%s:", r->n, r->n == 1 ? "" : "s");
	const char *sep = " ";
	for (int k = 1; k < IBF_FIND_KIND_COUNT; k++)
		if (r->counts[k]) {
			fprintf(out, "%s%u %s", sep, r->counts[k], ibf_finding_kind_name(k));
			sep = ", ";
		}
	fprintf(out, "; %u of %u planned cables correct\n", r->ok, r->planned);
}

void ibf_vreport_write_json(const struct ibf_vreport *r, FILE *out)
{
	fprintf(out,
		"{\n  \"clean\": %s,\n  \"summary\": {\"planned_cables\": %u, \"ok\": %u, "
		"\"expected_missing\": %u, \"plan_switches\": %u, \"found_switches\": %u, "
		"\"partial_step\": %d",
		r->n ? "false" : "true", r->planned, r->ok, r->expected_missing, r->plan_nodes,
		r->found_nodes, r->partial_step);
	for (int k = 1; k < IBF_FIND_KIND_COUNT; k++)
		fprintf(out, ", \"%s\": %u", ibf_finding_kind_name(k), r->counts[k]);
	fputs("},\n  \"findings\": [", out);
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ibf_finding *f = &r->f[i];
		fprintf(out,
			"%s\n    {\"kind\": \"%s\", \"step\": %u, \"expected\": ", i ? "," : "",
			ibf_finding_kind_name(f->kind), f->step);
		ibf_json_str(out, f->expected);
		fputs(", \"cables\": [", out);
		for (int k = 0; k < 2; k++)
			if (f->cable[k] >= 0)
				fprintf(out, "%s%u", k ? ", " : "", f->id[k]);
		for (uint32_t k = 0; k < f->nmore; k++)
			fprintf(out, ", %u", f->more[k]);
		fputs("], \"actual\": ", out);
		ibf_json_str(out, f->actual);
		fputs(", \"fix\": ", out);
		ibf_json_str(out, f->fix);
		fputc('}', out);
	}
	fputs(r->n ? "\n  ]\n}\n" : "]\n}\n", out);
}
