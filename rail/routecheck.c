/* Rail properties of a set of forwarding tables (docs/rail.md, "Checking
 * tables"): same-rail pairs stay in their rail, cross-rail paths spread
 * over the spines, LMC layers of a destination on distinct spines.  Works
 * on any tables (an engine's or a dump read back from the switches). */
#include "ibf_rail.h"
#include "ibf_routing.h"

#include <stdlib.h>
#include <string.h>

static int inrail(const struct ibf_rail_info *ri, uint32_t s)
{
	return ri->sw_rail[s] >= 0 && ri->sw_role[s] == IBF_RAIL_SW_RAIL;
}

/* rcomp[s]: the component of switch s inside its own rail (only switches
 * of one rail; spines and loose switches -1) */
static void rail_components(const struct ibf_fabric *f, const struct ibf_rail_info *ri,
			    int32_t *rcomp, uint32_t *queue)
{
	int32_t nc = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		rcomp[s] = -1;
	for (uint32_t s0 = 0; s0 < f->nsw; s0++) {
		if (rcomp[s0] >= 0 || !inrail(ri, s0))
			continue;
		uint32_t qh = 0, qt = 0;
		queue[qt++] = s0;
		rcomp[s0] = nc;
		while (qh < qt) {
			uint32_t u = queue[qh++];
			for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
				uint32_t v = f->adj[k].nbr;
				if (rcomp[v] < 0 && ri->sw_rail[v] == ri->sw_rail[s0] &&
				    inrail(ri, v)) {
					rcomp[v] = nc;
					queue[qt++] = v;
				}
			}
		}
		nc++;
	}
}

void ibf_rail_route_report_free(struct ibf_rail_route_report *rep)
{
	if (!rep)
		return;
	free(rep->spine_paths);
	free(rep->spine_sw);
	memset(rep, 0, sizeof(*rep));
}

int ibf_rail_route_check(const struct ibf_fabric *f, const struct ibf_fabric *cables,
			 const struct ibf_rail_info *ri, const struct ibf_routes *r,
			 struct ibf_rail_route_report *rep, struct ibf_error *err)
{
	memset(rep, 0, sizeof(*rep));
	int rc = ibf_routes_fit(f, r, err);
	if (rc)
		return rc;
	/* c: the switch cables that count (the same switch indices as f) */
	const struct ibf_fabric *c = cables ? cables : f;
	if (c->nsw != f->nsw || c->nnodes != f->nnodes)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "rail check: the fabric of the cables is not a copy of the "
				     "fabric's");
	struct ibf_lidmap m;
	rc = ibf_lidmap_build(f, &m, err);
	if (rc)
		return rc;
	uint32_t S = f->nsw;
	int32_t *rcomp = malloc((S + 1) * sizeof(*rcomp));
	uint32_t *gcomp = malloc((S + 1) * sizeof(*gcomp));
	uint32_t *queue = malloc((S + 1) * sizeof(*queue));
	int32_t *spidx = malloc((S + 1) * sizeof(*spidx));
	uint32_t *path = malloc(IBF_TRACE_MAX * sizeof(*path));
	rep->spine_paths = calloc(S + 1, sizeof(*rep->spine_paths));
	rep->spine_sw = calloc(S + 1, sizeof(*rep->spine_sw));
	if (!rcomp || !gcomp || !queue || !spidx || !path || !rep->spine_paths || !rep->spine_sw) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	rail_components(c, ri, rcomp, queue);
	if (S && !ibf_components(f, gcomp)) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (uint32_t s = 0; s < S; s++) {
		spidx[s] = -1;
		if (ri->sw_role[s] == IBF_RAIL_SW_SPINE) {
			spidx[s] = rep->nspines;
			rep->spine_sw[rep->nspines++] = s;
		}
	}
	for (int a = 0; a < ri->ngpus; a++) {
		const struct ibf_rail_gpu *A = &ri->gpu[a];
		uint32_t as = (uint32_t)f->nodes[A->leaf].sw;
		for (int b = 0; b < ri->ngpus; b++) {
			const struct ibf_rail_gpu *B = &ri->gpu[b];
			if (b == a || B->domain == A->domain)
				continue; /* same server: NVLink, not the network */
			const struct ibf_port *bp = ibf_port(f, B->node, B->port);
			if (!bp->lid)
				continue;
			uint32_t bs = (uint32_t)f->nodes[B->leaf].sw;
			int same = B->rail == A->rail;
			int confinable = same && rcomp[as] >= 0 && rcomp[as] == rcomp[bs];
			uint32_t L = 1u << bp->lmc;
			int nused = 0, failed = 0;
			int32_t usedsp[8];
			if (gcomp[as] != gcomp[bs]) {
				rep->split_paths += L; /* no cable path: separate rails */
				continue;
			}
			for (uint32_t l = 0; l < L; l++) {
				uint32_t dlid = bp->lid + l;
				int n = 0;
				int res = ibf_trace(f, &m, r, as, dlid, path, &n);
				if (same)
					rep->same_paths++;
				else
					rep->cross_paths++;
				if (res != IBF_TRACE_OK) {
					failed = 1;
					if (same)
						rep->same_failed++;
					else
						rep->cross_failed++;
					continue;
				}
				if (same && (uint32_t)(n - 1) > rep->same_max_hops)
					rep->same_max_hops = (uint32_t)(n - 1);
				if (!same && (uint32_t)(n - 1) > rep->cross_max_hops)
					rep->cross_max_hops = (uint32_t)(n - 1);
				int left = 0, first_spine = -1;
				for (int i = 0; i < n && i < IBF_TRACE_MAX; i++) {
					uint32_t s = path[i];
					if (ri->sw_rail[s] != A->rail)
						left = 1;
					if (first_spine < 0 && spidx[s] >= 0)
						first_spine = spidx[s];
				}
				if (confinable) {
					rep->same_confinable++;
					rep->same_left += left;
				}
				if (!same && first_spine >= 0) {
					rep->spine_paths[first_spine]++;
					int dup = 0;
					for (int i = 0; i < nused; i++)
						dup |= usedsp[i] == first_spine;
					if (!dup && nused < 8)
						usedsp[nused++] = first_spine;
				}
			}
			if (!same && L > 1 && !failed) {
				/* spines cabled to both leaves: how many distinct
				 * spines the layers can use at best */
				int upsp = 0;
				for (uint32_t k = c->adj_off[as]; k < c->adj_off[as + 1]; k++) {
					uint32_t v = c->adj[k].nbr;
					int seen = spidx[v] < 0;
					for (uint32_t k2 = c->adj_off[as]; k2 < k && !seen; k2++)
						seen = c->adj[k2].nbr == v;
					int both = 0;
					for (uint32_t k2 = c->adj_off[bs]; k2 < c->adj_off[bs + 1];
					     k2++)
						both |= c->adj[k2].nbr == v;
					upsp += !seen && both;
				}
				rep->lmc_pairs++;
				int want = (int)L < upsp ? (int)L : upsp;
				if (nused >= want)
					rep->lmc_distinct++;
			}
		}
	}
out:
	free(rcomp);
	free(gcomp);
	free(queue);
	free(spidx);
	free(path);
	ibf_lidmap_free(&m);
	if (rc)
		ibf_rail_route_report_free(rep);
	return rc;
}
