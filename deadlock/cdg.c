/* Channel dependency graph over switch-to-switch channels, built from the
 * LFTs, plus the helpers both schemes share (result object, logging,
 * path_sl).
 *
 * Paths are (source switch, destination LID).  For one DLID the LFTs form a
 * functional graph on the switches (an in-tree when loop-free), so one O(S)
 * pass settles the first channel and hop count of every switch, and the
 * dependencies of a path are its consecutive channel pairs.  Building all
 * layer-0 counts is O(S x LIDs x hops) time and O(channels x degree)
 * memory. */
#include "dl_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ibf_dl_opts_default(struct ibf_dl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->scheme = IBF_DEADLOCK_DFSSSP;
	o->max_vls = 8;
	o->threads = 1;
}

void dl_tables_set(struct ibf_routes *r, const uint8_t *lft, const uint8_t *hops, size_t ntab)
{
	memcpy(r->lft, lft, ntab);
	if (hops)
		memcpy(r->hops, hops, ntab);
}

void dl_log(const struct ibf_dl_opts *o, int level, const char *fmt, ...)
{
	if (!o)
		return;
	va_list ap;
	va_start(ap, fmt);
	ibf_vlogf(o->log, o->log_ctx, level, fmt, ap);
	va_end(ap);
}

int dl_port_faces_switch(const struct ibf_fabric *f, int node, int port)
{
	if (port <= 0 || port > f->nodes[node].nports)
		return 0;
	const struct ibf_port *p = ibf_port(f, node, port);
	return p->peer_node != IBF_NO_NODE && f->nodes[p->peer_node].type == IBF_NODE_SWITCH;
}

void cdg_free(struct ibf_cdg *g)
{
	free(g->eoff);
	free(g->sw_off);
	free(g->sw_np);
	free(g->dlids);
	free(g->lid_sw);
	free(g->lid_base);
	for (int v = 0; v < CDG_MAX_LAYERS; v++)
		free(g->cnt[v]);
	memset(g, 0, sizeof(*g));
}

int cdg_layer(struct ibf_cdg *g, int v, struct ibf_error *err)
{
	if (v >= CDG_MAX_LAYERS)
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
				     "more than %d virtual layers needed", CDG_MAX_LAYERS);
	while (g->nlayers <= v) {
		g->cnt[g->nlayers] = calloc(g->nedges ? g->nedges : 1, sizeof(uint32_t));
		if (!g->cnt[g->nlayers])
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0,
					     "out of memory for a dependency layer");
		g->nlayers++;
	}
	return 0;
}

int cdg_init(struct ibf_cdg *g, const struct ibf_fabric *f, const struct ibf_routes *r,
	     struct ibf_error *err)
{
	memset(g, 0, sizeof(*g));
	if (!f->finalized || r->nsw != f->nsw || !r->lft)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "deadlock: routes do not match the fabric (%u vs %u switches)",
				     r->nsw, f->nsw);
	g->f = f;
	g->r = r;
	g->nsw = f->nsw;
	g->stride = r->stride;
	g->nch = f->adj_off[f->nsw];
	g->portlink = f->port_adj; /* the fabric's link indexes */
	g->ch_tail = f->adj_src;
	g->eoff = malloc(((size_t)g->nch + 1) * sizeof(*g->eoff));
	g->sw_off = malloc(((size_t)g->nsw + 1) * sizeof(*g->sw_off));
	g->sw_np = malloc(((size_t)g->nsw + 1) * sizeof(*g->sw_np));
	g->lid_sw = malloc((size_t)g->stride * sizeof(*g->lid_sw));
	g->lid_base = calloc((size_t)g->stride + 1, sizeof(*g->lid_base));
	g->dlids = malloc((size_t)g->stride * sizeof(*g->dlids));
	if (!g->eoff || !g->sw_off || !g->sw_np || !g->lid_sw || !g->lid_base || !g->dlids) {
		cdg_free(g);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for the CDG");
	}
	uint64_t e = 0;
	for (uint32_t s = 0; s < g->nsw; s++) {
		const struct ibf_node *n = &f->nodes[f->switches[s]];
		g->sw_off[s] = n->port_off;
		g->sw_np[s] = n->nports;
	}
	for (uint32_t c = 0; c < g->nch; c++) {
		g->eoff[c] = e;
		uint32_t y = f->adj[c].nbr;
		e += f->adj_off[y + 1] - f->adj_off[y];
	}
	g->eoff[g->nch] = e;
	g->nedges = e;

	struct ibf_lidmap m;
	int rc = ibf_lidmap_build(f, &m, err);
	if (rc) {
		cdg_free(g);
		return rc;
	}
	for (uint32_t d = 0; d < g->stride; d++) {
		g->lid_sw[d] = -1;
		if (d == 0 || d > m.max_lid || m.node[d] < 0)
			continue;
		int node = m.node[d];
		uint32_t base = f->ports[f->nodes[node].port_off + m.port[d]].lid;
		g->lid_base[d] = base && base <= d ? base : d;
		if (f->nodes[node].type == IBF_NODE_SWITCH) {
			g->lid_sw[d] = f->nodes[node].sw;
		} else {
			int swp;
			int sn = ibf_port_switch(f, node, m.port[d], &swp);
			if (sn >= 0)
				g->lid_sw[d] = f->nodes[sn].sw;
		}
		g->dlids[g->ndl++] = d;
	}
	ibf_lidmap_free(&m);
	return 0;
}

enum { ST_NEW = 0, ST_OPEN = 1, ST_DONE = 2 };

int cdg_settle(const struct ibf_cdg *g, uint32_t d, int32_t *ch, uint16_t *hops, uint8_t *state,
	       uint32_t *stack, uint32_t *loop_sw)
{
	const uint32_t nsw = g->nsw;
	memset(state, ST_NEW, nsw);
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		if (state[s0] == ST_DONE)
			continue;
		uint32_t sp = 0, cur = s0;
		for (;;) {
			if (state[cur] == ST_DONE)
				break;
			if (state[cur] == ST_OPEN) {
				*loop_sw = cur;
				return -1;
			}
			state[cur] = ST_OPEN;
			int32_t c = cdg_out(g, cur, d);
			ch[cur] = c;
			if (c < 0 && cdg_loopback(g, cur, d)) {
				/* into a loopback cable: back at cur, the same entry */
				*loop_sw = cur;
				return -1;
			}
			if (c < 0) {
				hops[cur] = 0;
				state[cur] = ST_DONE;
				break;
			}
			stack[sp++] = cur;
			cur = cdg_head(g, c);
		}
		while (sp > 0) {
			uint32_t s = stack[--sp];
			uint32_t h = (uint32_t)hops[cdg_head(g, ch[s])] + 1;
			hops[s] = (uint16_t)(h > 0xFFFF ? 0xFFFF : h);
			state[s] = ST_DONE;
		}
	}
	return 0;
}

int cdg_check_routes(const struct ibf_cdg *g, int *max_hops, struct ibf_error *err)
{
	int32_t *ch = malloc(((size_t)g->nsw + 1) * sizeof(*ch));
	uint16_t *hops = malloc(((size_t)g->nsw + 1) * sizeof(*hops));
	uint8_t *state = malloc((size_t)g->nsw + 1);
	uint32_t *stack = malloc(((size_t)g->nsw + 1) * sizeof(*stack));
	int rc = 0, mh = 0;
	if (!ch || !hops || !state || !stack) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < g->ndl; i++) {
		uint32_t d = g->dlids[i], ls = 0;
		if (cdg_settle(g, d, ch, hops, state, stack, &ls)) {
			const struct ibf_node *n = &g->f->nodes[g->f->switches[ls]];
			rc = ibf_error_set(
				err, IBF_EINVAL, NULL, 0,
				"deadlock: the routes towards LID %u loop (through switch "
				"0x%016llx '%s'); fix the routes first",
				d, (unsigned long long)n->guid, n->desc ? n->desc : "");
			goto out;
		}
		for (uint32_t s = 0; s < g->nsw; s++)
			if (hops[s] > mh)
				mh = hops[s];
	}
	*max_hops = mh;
out:
	free(ch);
	free(hops);
	free(state);
	free(stack);
	return rc;
}

struct ibf_dl *dl_new(const struct ibf_cdg *g, struct ibf_error *err)
{
	struct ibf_dl *dl = calloc(1, sizeof(*dl));
	if (!dl) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	dl->nsw = g->nsw;
	dl->stride = g->stride;
	dl->deadlock_free = 1;
	memset(dl->esc_vl, 0xff, sizeof(dl->esc_vl));
	size_t n = (size_t)g->nsw * g->stride;
	dl->sl = malloc(n ? n : 1);
	dl->lid_sw = malloc((size_t)g->stride * sizeof(*dl->lid_sw));
	dl->sw_guid = malloc(((size_t)g->nsw + 1) * sizeof(*dl->sw_guid));
	if (!dl->sl || !dl->lid_sw || !dl->sw_guid) {
		ibf_dl_free(dl);
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory for %zu path SLs", n);
		return NULL;
	}
	memset(dl->sl, IBF_SL_NONE, n ? n : 1);
	memcpy(dl->lid_sw, g->lid_sw, (size_t)g->stride * sizeof(*dl->lid_sw));
	for (uint32_t s = 0; s < g->nsw; s++)
		dl->sw_guid[s] = g->f->nodes[g->f->switches[s]].guid;
	return dl;
}

void ibf_dl_free(struct ibf_dl *dl)
{
	if (!dl)
		return;
	free(dl->sl);
	free(dl->lid_sw);
	free(dl->color);
	free(dl->sw_guid);
	free(dl);
}

const char *ibf_dl_summary(const struct ibf_dl *dl, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s: ", ibf_deadlock_name(dl->scheme));
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (dl->scheme == IBF_DEADLOCK_COLORING && dl->esc_layers)
		n += snprintf(buf + n, len - (size_t)n,
			      "%d colours, SL2VL buckets by hop position on %d VLs, %llu path(s) "
			      "longer than 3 hops (%llu on their colouring SL, %llu in %d escape "
			      "layer(s) on VL %d..%d)",
			      dl->ncolors, dl->color_vls, (unsigned long long)dl->long_paths,
			      (unsigned long long)dl->tail_paths,
			      (unsigned long long)(dl->long_paths - dl->tail_paths), dl->esc_layers,
			      dl->color_vls, dl->color_vls + dl->esc_layers - 1);
	else if (dl->scheme == IBF_DEADLOCK_COLORING && dl->long_paths)
		n += snprintf(buf + n, len - (size_t)n,
			      "%d colours, SL2VL buckets by hop position on %d VLs, %llu path(s) "
			      "longer than 3 hops on their colouring SL",
			      dl->ncolors, dl->vls, (unsigned long long)dl->long_paths);
	else if (dl->scheme == IBF_DEADLOCK_COLORING)
		n += snprintf(buf + n, len - (size_t)n,
			      "%d colours, SL2VL buckets by hop position on %d VLs", dl->ncolors,
			      dl->vls);
	else
		n += snprintf(buf + n, len - (size_t)n,
			      "%d virtual layer(s) on %d VLs, %d VLs carry switch traffic, %llu "
			      "dependencies cut",
			      dl->layers, dl->vls, dl->vls_used, (unsigned long long)dl->breaks);
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", longest path %d hops, %s, %.3f s%s%s",
			      dl->max_hops,
			      dl->deadlock_free ? "deadlock-free" : "NOT deadlock-free",
			      dl->seconds, dl->note[0] ? "; " : "", dl->note);
	return buf;
}

int ibf_dl_path_sl(const struct ibf_dl *dl, uint32_t slid, uint32_t dlid)
{
	if (!dl || slid >= dl->stride || dlid >= dl->stride)
		return -1;
	int32_t s = dl->lid_sw[slid];
	if (s < 0 || dl->lid_sw[dlid] < 0)
		return -1;
	uint8_t sl = dl->sl[(size_t)s * dl->stride + dlid];
	return sl == IBF_SL_NONE ? -1 : sl;
}

static int apply_scheme(const struct ibf_fabric *f, struct ibf_routes *r,
			const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err)
{
	*out = NULL;
	struct ibf_dl *dl = NULL;
	int rc;
	switch (o->scheme) {
	case IBF_DEADLOCK_NONE:
		return 0;
	case IBF_DEADLOCK_DFSSSP:
		rc = ibf_deadlock_dfsssp(f, r, o, &dl, err);
		break;
	case IBF_DEADLOCK_COLORING:
	case IBF_DEADLOCK_AUTO:
		rc = ibf_deadlock_coloring(f, r, o, &dl, err);
		break;
	default:
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "unknown deadlock scheme %d",
				     o->scheme);
	}
	if (rc)
		return rc;
	dl->requested = o->scheme;
	*out = dl;
	return 0;
}

/* The schemes visit switches in index order (layering, colouring), so on
 * their own their SLs, SL2VL tables and the LFT entries they rewrite depend
 * on the order in which the input lists the nodes (ibnetdiscover discovery
 * order, OpenSM's maps).  Like ibf_route, run them on a copy of the fabric
 * in canonical order (ibf_fabric_sort: by GUID) and map every per-switch
 * result back to the caller's switch indices. */
int ibf_deadlock_apply(const struct ibf_fabric *f, struct ibf_routes *r,
		       const struct ibf_dl_opts *o, struct ibf_dl **out, struct ibf_error *err)
{
	*out = NULL;
	if (o->scheme == IBF_DEADLOCK_NONE || !f || !r || ibf_fabric_is_sorted(f))
		return apply_scheme(f, r, o, out, err);
	int rc = ibf_routes_fit(f, r, err);
	if (rc)
		return rc;
	uint32_t *to_canon = NULL, *to_caller = NULL;
	struct ibf_routes cr = *r;
	cr.lft = NULL;
	cr.hops = NULL;
	struct ibf_dl *dl = NULL;
	struct ibf_fabric *c = NULL;
	rc = ibf_fabric_canonical(f, &c, &to_caller, err);
	if (rc)
		return rc;
	uint32_t n = f->nsw;
	size_t len = r->stride, sz = (size_t)n * len;
	to_canon = malloc((n ? n : 1) * sizeof(*to_canon));
	cr.lft = malloc(sz + 1);
	cr.hops = r->hops ? malloc(sz + 1) : NULL;
	if (!to_canon || !cr.lft || (r->hops && !cr.hops))
		goto nomem;
	for (uint32_t s = 0; s < n; s++)
		to_canon[to_caller[s]] = s;
	/* the scheme works on a copy: on failure the caller's tables stay */
	memcpy(cr.lft, r->lft, sz);
	if (r->hops)
		memcpy(cr.hops, r->hops, sz);
	if (ibf_rows_permute(cr.lft, len, n, to_canon) ||
	    (cr.hops && ibf_rows_permute(cr.hops, len, n, to_canon)))
		goto nomem;
	rc = apply_scheme(c, &cr, o, &dl, err);
	if (rc || !dl)
		goto out;
	/* the tables the scheme may have rewritten, and its per-switch results,
	 * back in the caller's switch order */
	if (ibf_rows_permute(cr.lft, len, n, to_caller) ||
	    (cr.hops && ibf_rows_permute(cr.hops, len, n, to_caller)) ||
	    ibf_rows_permute(dl->sl, dl->stride, n, to_caller) ||
	    (dl->color && ibf_rows_permute(dl->color, 1, n, to_caller)) ||
	    (dl->sw_guid &&
	     ibf_rows_permute((uint8_t *)dl->sw_guid, sizeof(*dl->sw_guid), n, to_caller))) {
		ibf_dl_free(dl);
		dl = NULL;
		goto nomem;
	}
	memcpy(r->lft, cr.lft, sz);
	if (r->hops)
		memcpy(r->hops, cr.hops, sz);
	for (uint32_t l = 0; l < dl->stride; l++)
		if (dl->lid_sw[l] >= 0)
			dl->lid_sw[l] = (int32_t)to_caller[dl->lid_sw[l]];
	*out = dl;
out:
	free(cr.lft);
	free(cr.hops);
	free(to_canon);
	free(to_caller);
	ibf_fabric_free(c);
	return rc;
nomem:
	rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	goto out;
}
