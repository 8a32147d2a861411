/* Slim Fly (McKay-Miller-Siran graph) generator (McKay, Miller, Siran 1998; Besta and Hoefler 2014).
 *
 * q = 4w + delta is a prime power, delta in {-1, 0, 1}.  Switches are
 * (0,x,y) and (1,m,c) with x, y, m, c in GF(q); with xi a primitive element
 * the generator sets X (subgraph 0) and X' (subgraph 1) are
 *   delta =  1: X = {xi^i: i even, 0 <= i <= q-3}, X' = {xi^i: i odd, 1 <= i <= q-2}
 *   delta =  0: X = {xi^i: i even, 0 <= i <= q-2}, X' = {xi^i: i odd, 1 <= i <= q-1}
 *   delta = -1: X = {xi^i: i even, 0 <= i < 2w-1} u {xi^i: i odd, 2w-1 <= i < 4w-2}
 *              X' = {xi^i: i odd, 1 <= i < 2w} u {xi^i: i even, 2w <= i < 4w-1}
 * and the edges are
 *   (0,x,y) ~ (0,x,y')  iff y - y' in X
 *   (1,m,c) ~ (1,m,c')  iff c - c' in X'
 *   (0,x,y) ~ (1,m,c)   iff y = m x + c.
 * |X| = |X'| = (q - delta)/2, so every switch has k' = (3q - delta)/2 links.
 *
 * Layout (paper App. A.4): rack x holds group (0,x,.) then group (1,x,.),
 * so switch node id = x*2q + g*q + slot (g = 0, 1; slot = y or c, elements
 * numbered as in gen_internal.h).  Hosts follow all switches, in switch
 * order.
 *
 * Switch-link ports (1-based, shifted by the host count when
 * host_ports_first is set):
 *   (0,x,y): port j+1 (j < |X|) goes to (0,x,y-X[j]), i.e. y - y' = X[j];
 *            port |X|+m+1 goes to (1,m,y-m*x), one per m = rack m.
 *   (1,m,c): port j+1 goes to (1,m,c-X'[j]);
 *            port |X'|+x+1 goes to (0,x,m*x+c), one per x = rack x.
 * Intra-subgroup wiring is thus identical in every rack, and every switch
 * uses the same port towards a given other rack. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

#define SF_MAX_Q 128

int ibf_slimfly_admissible(int q, int *delta, int *lo, int *hi)
{
	int ok = q >= 3 && q <= SF_MAX_Q && ibf_prime_power(q, NULL, NULL);
	if (delta) {
		*delta = 0;
		if (ok)
			*delta = q % 4 == 1 ? 1 : q % 4 == 0 ? 0 : -1;
	}
	int l = 0, h = 0;
	long start = (long)q - 1 > SF_MAX_Q ? SF_MAX_Q : (long)q - 1;
	for (int v = (int)(start < 3 ? 2 : start); v >= 3; v--)
		if (ibf_prime_power(v, NULL, NULL)) {
			l = v;
			break;
		}
	long from = (long)q + 1 < 3 ? 3 : (long)q + 1;
	for (int v = (int)(from > SF_MAX_Q ? SF_MAX_Q + 1 : from); v <= SF_MAX_Q; v++)
		if (ibf_prime_power(v, NULL, NULL)) {
			h = v;
			break;
		}
	/* prime powers >= 3 are never 2 mod 4, so every one of them is admissible */
	if (lo)
		*lo = l;
	if (hi)
		*hi = h;
	return ok;
}

static int not_admissible(int q, struct ibf_error *err)
{
	int lo, hi;
	ibf_slimfly_admissible(q, NULL, &lo, &hi);
	char near[64];
	if (lo && hi)
		snprintf(near, sizeof(near), "%d, %d", lo, hi);
	else
		snprintf(near, sizeof(near), "%d", lo ? lo : hi);
	if (q > SF_MAX_Q && ibf_prime_power(q, NULL, NULL))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "q=%d is too large for a Slim Fly (supported: 3..%d); "
				     "nearest admissible: %s",
				     q, SF_MAX_Q, near);
	return ibf_error_set(
		err, IBF_EINVAL, NULL, 0,
		"q=%d is not admissible for a Slim Fly (needs a prime power "
		"q = 4w+\xce\xb4, \xce\xb4\xe2\x88\x88{-1,0,1}%s); nearest admissible: %s",
		q, q > SF_MAX_Q ? ", q <= 128" : "", near);
}

/* Generator set element values in port order (by exponent as listed in the
 * definition).  set0 = X, set1 = X'. */
static void generator_sets(const struct ibf_gf *gf, int delta, int *set0, int *set1)
{
	int q = gf->q, n0 = 0, n1 = 0;
	if (delta == 1) {
		for (int i = 0; i <= q - 3; i += 2)
			set0[n0++] = ibf_gf_pow_prim(gf, i);
		for (int i = 1; i <= q - 2; i += 2)
			set1[n1++] = ibf_gf_pow_prim(gf, i);
	} else if (delta == 0) {
		for (int i = 0; i <= q - 2; i += 2)
			set0[n0++] = ibf_gf_pow_prim(gf, i);
		for (int i = 1; i <= q - 1; i += 2)
			set1[n1++] = ibf_gf_pow_prim(gf, i);
	} else {
		int w = (q + 1) / 4;
		for (int i = 0; i < 2 * w - 1; i += 2)
			set0[n0++] = ibf_gf_pow_prim(gf, i);
		for (int i = 2 * w - 1; i < 4 * w - 2; i += 2)
			set0[n0++] = ibf_gf_pow_prim(gf, i);
		for (int i = 1; i < 2 * w; i += 2)
			set1[n1++] = ibf_gf_pow_prim(gf, i);
		for (int i = 2 * w; i < 4 * w - 1; i += 2)
			set1[n1++] = ibf_gf_pow_prim(gf, i);
	}
}

/* For each j, the index of -set[j] in set; -1 when the set is not symmetric. */
static int negation_index(const struct ibf_gf *gf, const int *set, int n, int *negidx)
{
	for (int j = 0; j < n; j++) {
		int want = gf->neg[set[j]];
		negidx[j] = -1;
		for (int k = 0; k < n; k++)
			if (set[k] == want)
				negidx[j] = k;
		if (negidx[j] < 0)
			return -1;
	}
	return 0;
}

struct ibf_fabric *ibf_gen_slimfly(const struct ibf_slimfly_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no Slim Fly options");
		return NULL;
	}
	int q = o->q, delta;
	if (!ibf_slimfly_admissible(q, &delta, NULL, NULL)) {
		not_admissible(q, err);
		return NULL;
	}
	int kp = (3 * q - delta) / 2;
	int half = (q - delta) / 2; /* |X| = |X'| */
	int hosts = o->hosts == -1 ? (kp + 1) / 2 : o->hosts;
	if (o->hosts == -1 && hosts > IBF_MAX_PORTS - kp) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"q=%d with the default %d hosts per switch needs %d ports per switch "
			"(k'=%d switch links + %d hosts), more than the %d a switch can have; "
			"set hosts to 0..%d",
			q, hosts, kp + hosts, kp, hosts, IBF_MAX_PORTS, IBF_MAX_PORTS - kp);
		return NULL;
	}
	if (hosts < 0 || hosts > IBF_MAX_PORTS - kp) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "hosts=%d is out of range for q=%d: use 0..%d (each switch has "
			      "k'=%d switch links and at most %d ports), or -1 for the default %d",
			      o->hosts, q, IBF_MAX_PORTS - kp, kp, IBF_MAX_PORTS, (kp + 1) / 2);
		return NULL;
	}
	int need = kp + hosts;
	if (o->switch_ports < 0 || o->switch_ports > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "switch_ports=%d is out of range (0 = as needed, else %d..%d)",
			      o->switch_ports, need, IBF_MAX_PORTS);
		return NULL;
	}
	if (o->switch_ports && o->switch_ports < need) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "switch_ports=%d is too small: q=%d needs %d ports per switch "
			      "(k'=%d switch links + %d hosts)",
			      o->switch_ports, q, need, kp, hosts);
		return NULL;
	}
	int nports = o->switch_ports ? o->switch_ports : need;
	uint32_t nsw = 2u * (uint32_t)q * (uint32_t)q;
	if ((uint64_t)nsw * (uint64_t)(1 + hosts) > IBF_GEN_MAX_NODES) {
		ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"q=%d with %d hosts per switch makes %llu nodes; at most %u supported", q,
			hosts, (unsigned long long)nsw * (unsigned long long)(1 + hosts),
			IBF_GEN_MAX_NODES);
		return NULL;
	}

	struct ibf_gf gf;
	if (ibf_gf_init(&gf, q, err))
		return NULL;
	struct ibf_fabric *f = NULL;
	int *set0 = malloc((size_t)half * sizeof(int));
	int *set1 = malloc((size_t)half * sizeof(int));
	int *neg0 = malloc((size_t)half * sizeof(int));
	int *neg1 = malloc((size_t)half * sizeof(int));
	if (!set0 || !set1 || !neg0 || !neg1) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}
	generator_sets(&gf, delta, set0, set1);
	if (negation_index(&gf, set0, half, neg0) || negation_index(&gf, set1, half, neg1)) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "internal error: Slim Fly generator set for q=%d is not symmetric",
			      q);
		goto fail;
	}
	f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}

	int link0 = o->host_ports_first ? hosts : 0; /* port before the first switch link */
	int host0 = o->host_ports_first ? 0 : kp;    /* port before the first host */
	int wq = ibf_gen_width(q, 2);
	char name[96];
	/* switches: node id = x*2q + g*q + slot */
	for (int x = 0; x < q; x++)
		for (int g = 0; g < 2; g++)
			for (int s = 0; s < q; s++) {
				snprintf(name, sizeof(name), "sf-r%0*d-g%d-s%0*d", wq, x, g, wq, s);
				uint32_t idx = (uint32_t)(x * 2 * q + g * q + s);
				if (ibf_gen_add_switch(f, idx, nports, name, err) < 0)
					goto fail;
			}
#define SW0(x, y) ((x)*2 * q + (y))
#define SW1(m, c) ((m)*2 * q + q + (c))
	for (int x = 0; x < q; x++) {
		for (int y = 0; y < q; y++) {
			/* intra-subgroup, both subgraphs: each link added from its lower end */
			for (int j = 0; j < half; j++) {
				int y2 = ibf_gf_sub(&gf, y, set0[j]);
				if (SW0(x, y) < SW0(x, y2) &&
				    ibf_gen_link(f, SW0(x, y), link0 + j + 1, SW0(x, y2),
						 link0 + neg0[j] + 1, err))
					goto fail;
				int c2 = ibf_gf_sub(&gf, y, set1[j]);
				if (SW1(x, y) < SW1(x, c2) &&
				    ibf_gen_link(f, SW1(x, y), link0 + j + 1, SW1(x, c2),
						 link0 + neg1[j] + 1, err))
					goto fail;
			}
			/* (0,x,y) -- (1,m,y - m x) */
			for (int m = 0; m < q; m++) {
				int c = ibf_gf_sub(&gf, y, ibf_gf_mul(&gf, m, x));
				if (ibf_gen_link(f, SW0(x, y), link0 + half + m + 1, SW1(m, c),
						 link0 + half + x + 1, err))
					goto fail;
			}
		}
	}
#undef SW0
#undef SW1
	/* hosts, in switch order */
	if (ibf_gen_hosts(f, nsw, hosts, host0, err))
		goto fail;

	char meta[256];
	snprintf(meta, sizeof(meta),
		 "family=slimfly;q=%d;delta=%d;w=%d;hosts=%d;kprime=%d;switch_ports=%d;"
		 "host_ports_first=%d",
		 q, delta, (q - delta) / 4, hosts, kp, nports, o->host_ports_first ? 1 : 0);
	free(set0);
	free(set1);
	free(neg0);
	free(neg1);
	ibf_gf_free(&gf);
	return ibf_gen_done(f, meta, err);

fail:
	free(set0);
	free(set1);
	free(neg0);
	free(neg1);
	ibf_gf_free(&gf);
	ibf_fabric_free(f);
	return NULL;
}
