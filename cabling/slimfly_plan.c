/* Slim Fly cabling plan: racks, wiring steps and explicit port numbers.
 *
 * The graph and its logical link order come from ibf_gen_slimfly() (built
 * with no hosts, so its switch links sit on logical slots 1..k'):
 *   (0,x,y): slots 1..|X| intra-subgroup (by generator element), slot
 *            |X|+m+1 the single link to group (1,m,.) = rack m;
 *   (1,m,c): slots 1..|X'| intra-subgroup, slot |X'|+x+1 the link to rack x.
 * The plan maps slot l to physical port l when l < N and l + P otherwise,
 * where hosts take ports N..N+P-1 (N = --first-host-port, default k'+1).
 * Since the map depends only on the slot, the intra-subgroup ports are the
 * same in every rack and each switch uses one fixed port per remote rack.
 *
 * Racks: rack x holds group (0,x,.) and group (1,x,.) (paper App. A.4).
 * Steps: 1 intra-subgroup, 2 intra-rack ((0,x,y)~(1,x,c)), 3 inter-rack,
 * 4 hosts.  Cables are numbered in step order, then by rack (rack pair for
 * step 3), then by switch and port; the a end is the switch that comes
 * first in rack order. */
#include "ibf_cabling.h"

#include <stdlib.h>
#include <string.h>

struct sfc {
	uint32_t a, b;
	uint8_t ap, bp;
	uint8_t kind, step;
	uint16_t ra, rb;
};

static int sfc_cmp(const void *x, const void *y)
{
	const struct sfc *a = x, *b = y;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->ra != b->ra)
		return a->ra < b->ra ? -1 : 1;
	if (a->rb != b->rb)
		return a->rb < b->rb ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->ap < b->ap ? -1 : a->ap > b->ap;
}

static int digits(long v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* The plan's port layout from the options: k' switch links, hosts per
 * switch, first host port, ports per switch.  0 or an error. */
struct sf_layout {
	int q, delta, kp, hosts, first, nports;
};

static int sf_layout(const struct ibf_sfplan_opts *o, struct sf_layout *L, struct ibf_error *err)
{
	int q = o->q, delta = 0;
	if (!ibf_slimfly_admissible(q, &delta, NULL, NULL)) {
		/* let the generator phrase the error (nearest admissible q) */
		struct ibf_slimfly_opts go = { .q = q, .hosts = 0 };
		struct ibf_fabric *bad = ibf_gen_slimfly(&go, err);
		ibf_fabric_free(bad);
		if (bad)
			ibf_error_set(err, IBF_EINVAL, NULL, 0, "q=%d is not admissible", q);
		return IBF_EINVAL;
	}
	int kp = (3 * q - delta) / 2;
	int hosts = o->hosts < 0 ? (kp + 1) / 2 : o->hosts;
	if (hosts > IBF_MAX_PORTS - kp)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "q=%d: %d hosts per switch plus k'=%d switch links exceed the "
				     "%d ports a switch can have",
				     q, hosts, kp, IBF_MAX_PORTS);
	int first = o->first_host_port ? o->first_host_port : kp + 1;
	if (first < 1 || first > IBF_MAX_PORTS)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "first host port %d out of range 1..%d", first, IBF_MAX_PORTS);
	/* highest port used: switch slots shift past the host block only when
	 * the block starts at or before the last slot */
	int need = first <= kp ? kp + hosts : kp;
	if (hosts > 0 && first + hosts - 1 > need)
		need = first + hosts - 1;
	int nports = o->switch_ports ? o->switch_ports : need;
	if (o->switch_ports < 0 || nports > IBF_MAX_PORTS || need > IBF_MAX_PORTS)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "switch ports %d out of range (the plan needs %d, at most %d)",
				     o->switch_ports, need, IBF_MAX_PORTS);
	if (nports < need)
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"q=%d needs %d switch ports (k'=%d switch links + %d hosts%s), "
			"but switches have only %d",
			q, need, kp, hosts, first > kp + 1 ? " placed after a gap" : "", nports);
	*L = (struct sf_layout){ q, delta, kp, hosts, first, nports };
	return 0;
}

/* The generator's switch links as cables on plan ports (after the host
 * block when it comes first), with their rack, kind and wiring step,
 * sorted into wiring order.  *n: how many (nsw * k' / 2). */
static int sf_cables(const struct ibf_fabric *g, const struct sf_layout *L, struct sfc *cs,
		     size_t ncab, struct ibf_error *err)
{
	uint32_t nsw = 2u * (uint32_t)L->q * (uint32_t)L->q, q = (uint32_t)L->q;
	size_t n = 0;
	for (uint32_t i = 0; i < nsw; i++)
		for (int l = 1; l <= L->kp; l++) {
			const struct ibf_port *pp = ibf_port(g, (int)i, l);
			uint32_t j = (uint32_t)pp->peer_node;
			if (pp->peer_node == IBF_NO_NODE || j < i || n >= ncab)
				continue;
			struct sfc *c = &cs[n++];
			uint32_t xi = i / (2u * q), xj = j / (2u * q);
			uint32_t gi = (i / q) % 2, gj = (j / q) % 2;
			c->a = i;
			c->b = j;
			c->ap = (uint8_t)(l < L->first ? l : l + L->hosts);
			c->bp = (uint8_t)(pp->peer_port < L->first ? pp->peer_port
								   : pp->peer_port + L->hosts);
			c->ra = (uint16_t)xi;
			c->rb = (uint16_t)xj;
			if (gi == gj)
				c->kind = IBF_CABLE_INTRA_SUBGROUP, c->step = 1;
			else if (xi == xj)
				c->kind = IBF_CABLE_INTRA_RACK, c->step = 2;
			else
				c->kind = IBF_CABLE_INTER_RACK, c->step = 3;
		}
	if (n != ncab)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "internal error: %zu Slim Fly links, expected %zu", n, ncab);
	qsort(cs, n, sizeof(*cs), sfc_cmp);
	return 0;
}

/* Hosts of every switch (step 4), named after their switch. */
static int sf_hosts(struct ibf_plan *p, const struct ibf_sfplan_opts *o, const struct sf_layout *L,
		    uint32_t nsw, uint32_t *id, struct ibf_error *err)
{
	int wh = digits(L->hosts > 1 ? L->hosts - 1 : 0);
	wh = wh > 8 ? 8 : wh < 2 ? 2 : wh;
	char name[128];
	for (uint32_t i = 0; i < nsw; i++)
		for (int h = 0; h < L->hosts; h++) {
			snprintf(name, sizeof(name), "%s-h%0*d", p->nodes[i].name, wh, h);
			int hn = ibf_plan_node(p, name, IBF_NODE_CA, p->nodes[i].rack, 1, err);
			if (hn < 0)
				return hn;
			struct ibf_cable c = { .id = ++*id,
					       .step = 4,
					       .kind = IBF_CABLE_HOST,
					       .width = (uint8_t)(o->width ? o->width : 4),
					       .speed = (uint8_t)(o->speed ? o->speed
									   : IBF_SPEED_EDR),
					       .a = i,
					       .b = (uint32_t)hn,
					       .ap = (uint8_t)(L->first + h),
					       .bp = 1 };
			int rc = ibf_plan_add_cable(p, &c, err);
			if (rc)
				return rc;
		}
	return 0;
}

struct ibf_plan *ibf_plan_slimfly(const struct ibf_sfplan_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no Slim Fly plan options");
		return NULL;
	}
	struct sf_layout L = { 0 };
	if (sf_layout(o, &L, err))
		return NULL;
	int q = L.q;
	struct ibf_slimfly_opts go = { .q = q, .hosts = 0, .switch_ports = 0 };
	struct ibf_fabric *g = ibf_gen_slimfly(&go, err);
	if (!g)
		return NULL;
	struct ibf_plan *p = ibf_plan_new();
	uint32_t nsw = 2u * (uint32_t)q * (uint32_t)q;
	size_t ncab = (size_t)nsw * (size_t)L.kp / 2;
	struct sfc *cs = malloc((ncab + 1) * sizeof(*cs));
	if (!p || !cs) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	int wq = digits(q - 1);
	wq = wq > 8 ? 8 : wq < 2 ? 2 : wq;
	char rack[32];
	for (uint32_t i = 0; i < nsw; i++) {
		if (g->nodes[i].type != IBF_NODE_SWITCH || g->nodes[i].nports != L.kp) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0,
				      "internal error: unexpected Slim Fly generator layout");
			goto fail;
		}
		snprintf(rack, sizeof(rack), "r%0*u", wq, i / (2u * (uint32_t)q));
		if (ibf_plan_node(p, g->nodes[i].desc, IBF_NODE_SWITCH, rack, L.nports, err) !=
		    (int)i)
			goto fail;
	}
	if (sf_cables(g, &L, cs, ncab, err))
		goto fail;
	uint32_t id = 0;
	for (size_t k = 0; k < ncab; k++) {
		struct ibf_cable c = { .id = ++id,
				       .step = cs[k].step,
				       .kind = cs[k].kind,
				       .width = (uint8_t)(o->width ? o->width : 4),
				       .speed = (uint8_t)(o->speed ? o->speed : IBF_SPEED_EDR),
				       .a = cs[k].a,
				       .b = cs[k].b,
				       .ap = cs[k].ap,
				       .bp = cs[k].bp };
		if (ibf_plan_add_cable(p, &c, err))
			goto fail;
	}
	if (sf_hosts(p, o, &L, nsw, &id, err))
		goto fail;
	char meta[256];
	snprintf(meta, sizeof(meta),
		 "family=slimfly;q=%d;delta=%d;kprime=%d;hosts=%d;switch_ports=%d;"
		 "first_host_port=%d",
		 q, L.delta, L.kp, L.hosts, L.nports, L.first);
	if (ibf_plan_set_meta(p, meta)) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	if (ibf_plan_index(p, err))
		goto fail;
	free(cs);
	ibf_fabric_free(g);
	return p;
fail:
	free(cs);
	ibf_fabric_free(g);
	ibf_plan_free(p);
	return NULL;
}

int ibf_plan_link_parse(const char *s, size_t n, int *width, int *speed)
{
	uint8_t w, sp;
	if (ibf_parse_width_speed(s, n, &w, &sp) || sp == IBF_SPEED_UNKNOWN)
		return -1;
	*width = w;
	*speed = sp;
	return 0;
}
