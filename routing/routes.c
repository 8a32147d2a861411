/* Route tables: allocation and release. */
#include "ibf_routing.h"

#include <stdlib.h>
#include <string.h>

int ibf_routes_init(struct ibf_routes *r, uint32_t nsw, uint32_t max_lid, int with_hops,
		    struct ibf_error *err)
{
	memset(r, 0, sizeof(*r));
	if (max_lid > 0xFFFF)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "max LID %u out of range", max_lid);
	size_t stride = (size_t)max_lid + 1;
	size_t n = (size_t)nsw * stride;
	r->lft = malloc(n ? n : 1);
	if (!r->lft)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0,
				     "out of memory for %u x %zu LFT entries", nsw, stride);
	memset(r->lft, IBF_LFT_NONE, n);
	if (with_hops) {
		r->hops = malloc(n ? n : 1);
		if (!r->hops) {
			free(r->lft);
			r->lft = NULL;
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0,
					     "out of memory for %u x %zu hop entries", nsw, stride);
		}
		memset(r->hops, 0xff, n);
	}
	r->nsw = nsw;
	r->max_lid = max_lid;
	r->stride = (uint32_t)stride;
	return 0;
}

void ibf_routes_free(struct ibf_routes *r)
{
	if (!r)
		return;
	free(r->lft);
	free(r->hops);
	free(r->moved);
	ibf_healthy_release(r->healthy);
	r->healthy = NULL;
	r->lft = NULL;
	r->hops = NULL;
	r->moved = NULL;
	r->nsw = 0;
	r->max_lid = 0;
	r->stride = 0;
	r->lmc = 0;
	r->engine[0] = '\0';
}

int ibf_routes_fit(const struct ibf_fabric *f, const struct ibf_routes *r, struct ibf_error *err)
{
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	if (r->nsw != f->nsw || !r->lft)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "route tables cover %u switches, the fabric has %u", r->nsw,
				     f->nsw);
	return 0;
}
