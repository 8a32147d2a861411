/* Dragonfly (Kim, Dally, Scott, Abts 2008): g groups of a routers, each
 * router with p hosts and h global links; the routers of a group form a
 * complete graph.
 *
 * Global links use the consecutive ("absolute") arrangement: group i
 * numbers its a*h global ports 0..a*h-1, port t belonging to router t / h
 * (its global slot t % h), and port t leads to group t if t < i, else to
 * group t + 1, i.e. to the other groups in increasing order.  At group u the
 * matching port is i if i < u, else i - 1.  With g = a*h + 1 (the default,
 * maximum size) every port is used and every pair of groups has exactly one
 * global link; with fewer groups, ports t >= g - 1 stay unconnected, so the
 * routers holding them have fewer than a - 1 + h switch links (still one
 * link per group pair).
 *
 * Router ports: hosts 1..p, then the a - 1 local links (to the other routers
 * of the group in increasing order), then the h global slots.  Router
 * (group G, router r) is node G*a + r, named "df-g%03d-r%02d"; hosts follow
 * all routers, named "<router>-h%02d". */
#include "gen_internal.h"

#include <stdlib.h>

struct ibf_fabric *ibf_gen_dragonfly(const struct ibf_dragonfly_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no dragonfly options");
		return NULL;
	}
	int a = o->a, p = o->p, h = o->h;
	if (a < 1 || a > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "a=%d (routers per group) is out of range 1..%d", a, IBF_MAX_PORTS);
		return NULL;
	}
	if (p < 0 || p > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "p=%d (hosts per router) is out of range 0..%d", p, IBF_MAX_PORTS);
		return NULL;
	}
	if (h < 0 || h > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "h=%d (global links per router) is out of range 0..%d", h,
			      IBF_MAX_PORTS);
		return NULL;
	}
	long ports = (long)p + (a - 1) + h;
	if (ports > IBF_MAX_PORTS) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"routers need %ld ports (p=%d hosts + a-1=%d local + h=%d global); at "
			"most %d",
			ports, p, a - 1, h, IBF_MAX_PORTS);
		return NULL;
	}
	long gmax = (long)a * h + 1;
	long g = o->g ? o->g : gmax;
	if (g < 1 || g > gmax) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "g=%d (groups) is out of range 1..%ld (a*h+1), or 0 for the maximum",
			      o->g, gmax);
		return NULL;
	}
	uint64_t nodes = (uint64_t)g * (uint64_t)a * (uint64_t)(1 + p);
	if (nodes > IBF_GEN_MAX_NODES) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "this dragonfly has %llu nodes; at most %u supported",
			      (unsigned long long)nodes, IBF_GEN_MAX_NODES);
		return NULL;
	}
	struct ibf_fabric *f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	int nports = ports > 0 ? (int)ports : 1;
	int wg = ibf_gen_width(g, 3), wr = ibf_gen_width(a, 2);
	char name[96];
	uint32_t nr = (uint32_t)(g * a);
	for (long G = 0; G < g; G++)
		for (int r = 0; r < a; r++) {
			snprintf(name, sizeof(name), "df-g%0*ld-r%0*d", wg, G, wr, r);
			if (ibf_gen_add_switch(f, (uint32_t)(G * a + r), nports, name, err) < 0)
				goto fail;
		}
	/* local links: router r's local port for router r2 is p + (r2 < r ? r2 : r2 - 1) + 1 */
	for (long G = 0; G < g; G++)
		for (int r = 0; r < a; r++)
			for (int r2 = r + 1; r2 < a; r2++)
				if (ibf_gen_link(f, (int)(G * a + r), p + r2, (int)(G * a + r2),
						 p + r + 1, err))
					goto fail;
	/* global links, each added from its lower group */
	for (long G = 0; G < g; G++)
		for (long t = 0; t < g - 1; t++) {
			long U = t < G ? t : t + 1;
			if (U < G)
				continue;
			long t2 = G < U ? G : G - 1;
			int ra = (int)(t / h), rb = (int)(t2 / h);
			int pa = p + (a - 1) + (int)(t % h) + 1;
			int pb = p + (a - 1) + (int)(t2 % h) + 1;
			if (ibf_gen_link(f, (int)(G * a + ra), pa, (int)(U * a + rb), pb, err))
				goto fail;
		}
	if (ibf_gen_hosts(f, nr, p, 0, err))
		goto fail;
	char meta[160];
	snprintf(meta, sizeof(meta), "family=dragonfly;a=%d;p=%d;h=%d;g=%ld", a, p, h, g);
	return ibf_gen_done(f, meta, err);
fail:
	ibf_fabric_free(f);
	return NULL;
}
