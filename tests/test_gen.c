/* Unit tests for the topology generators and GF(q). */
#include "gen_internal.h"
#include "ibf_topology.h"
#include "tt.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ helpers */

static uint32_t sw_degree(const struct ibf_fabric *f, uint32_t s)
{
	return f->adj_off[s + 1] - f->adj_off[s];
}

/* hosts (CA ports) attached to switch index s */
static int sw_hosts(const struct ibf_fabric *f, uint32_t s)
{
	int node = f->switches[s], n = 0;
	for (int p = 1; p <= f->nodes[node].nports; p++) {
		const struct ibf_port *pp = ibf_port(f, node, p);
		if (pp->peer_node != IBF_NO_NODE && f->nodes[pp->peer_node].type == IBF_NODE_CA)
			n++;
	}
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Names (desc and id) unique, GUIDs (node and port) unique and as the
 * generator scheme says, links symmetric. */
static void check_sane(const struct ibf_fabric *f)
{
	TT_REQUIRE(f->finalized);
	uint32_t n = f->nnodes;
	char **names = malloc(n * sizeof(*names));
	uint64_t *guids = malloc((n + f->nports_total) * sizeof(*guids));
	TT_REQUIRE(names && guids);
	uint32_t ng = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		names[i] = nd->desc;
		TT_CHECK(nd->id != NULL);
		guids[ng++] = nd->guid;
		if (nd->type == IBF_NODE_SWITCH) {
			TT_EQ_INT(ibf_port(f, (int)i, 0)->guid, nd->guid);
		} else {
			for (int p = 1; p <= nd->nports; p++) {
				uint64_t g = ibf_port(f, (int)i, p)->guid;
				TT_CHECK(g != 0);
				guids[ng++] = g;
			}
		}
		for (int p = 1; p <= nd->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			const struct ibf_port *bk = ibf_port(f, pp->peer_node, pp->peer_port);
			TT_CHECK(bk->peer_node == (int)i && bk->peer_port == p);
			TT_CHECK(pp->width == 4 && pp->speed == IBF_SPEED_EDR);
		}
	}
	qsort(names, n, sizeof(*names), cmp_str);
	int dup = 0;
	for (uint32_t i = 1; i < n; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			dup++;
	TT_EQ_INT(dup, 0);
	/* switch node GUIDs equal their port-0 GUIDs: count node GUIDs once */
	qsort(guids, ng, sizeof(*guids), cmp_u64);
	dup = 0;
	for (uint32_t i = 1; i < ng; i++)
		if (guids[i - 1] == guids[i])
			dup++;
	TT_EQ_INT(dup, 0);
	free(names);
	free(guids);
}

/* Same nodes, ports and links. */
static int same_fabric(const struct ibf_fabric *a, const struct ibf_fabric *b)
{
	if (a->nnodes != b->nnodes || a->nports_total != b->nports_total)
		return 0;
	if ((a->meta == NULL) != (b->meta == NULL) || (a->meta && strcmp(a->meta, b->meta)))
		return 0;
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct ibf_node *x = &a->nodes[i], *y = &b->nodes[i];
		if (x->type != y->type || x->nports != y->nports || x->guid != y->guid ||
		    x->sysimg_guid != y->sysimg_guid || strcmp(x->desc, y->desc))
			return 0;
	}
	return memcmp(a->ports, b->ports, a->nports_total * sizeof(*a->ports)) == 0;
}

/* Diameter <= 2 and simple (no self-loops, no multi-edges) via bitsets:
 * closed 1-neighbourhoods N[u]; u reaches everything in 2 hops iff the union
 * of N[v] over v in N[u] is everything. */
static void check_simple_diam2(const struct ibf_fabric *f, int *simple, int *diam2)
{
	uint32_t n = f->nsw, words = (n + 63) / 64;
	uint64_t *nb = calloc((size_t)n * words, sizeof(uint64_t));
	uint64_t *acc = malloc(words * sizeof(uint64_t));
	*simple = 1;
	*diam2 = 1;
	if (!nb || !acc) {
		*simple = *diam2 = 0;
		free(nb);
		free(acc);
		return;
	}
	for (uint32_t u = 0; u < n; u++) {
		uint64_t *row = nb + (size_t)u * words;
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
			uint32_t v = f->adj[k].nbr;
			if (v == u || (row[v / 64] >> (v % 64) & 1))
				*simple = 0;
			row[v / 64] |= 1ull << (v % 64);
		}
	}
	for (uint32_t u = 0; u < n; u++) /* close */
		nb[(size_t)u * words + u / 64] |= 1ull << (u % 64);
	for (uint32_t u = 0; u < n && *diam2; u++) {
		memcpy(acc, nb + (size_t)u * words, words * sizeof(uint64_t));
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
			const uint64_t *r = nb + (size_t)f->adj[k].nbr * words;
			for (uint32_t w = 0; w < words; w++)
				acc[w] |= r[w];
		}
		for (uint32_t v = 0; v < n; v++)
			if (!(acc[v / 64] >> (v % 64) & 1)) {
				*diam2 = 0;
				break;
			}
	}
	free(nb);
	free(acc);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ GF(q) */

static void test_prime_power(void)
{
	int p = 0, n = 0;
	TT_CHECK(ibf_prime_power(2, &p, &n) && p == 2 && n == 1);
	TT_CHECK(ibf_prime_power(128, &p, &n) && p == 2 && n == 7);
	TT_CHECK(ibf_prime_power(243, &p, &n) && p == 3 && n == 5);
	TT_CHECK(ibf_prime_power(121, &p, &n) && p == 11 && n == 2);
	TT_CHECK(ibf_prime_power(127, &p, &n) && p == 127 && n == 1);
	TT_CHECK(!ibf_prime_power(1, NULL, NULL));
	TT_CHECK(!ibf_prime_power(0, NULL, NULL));
	TT_CHECK(!ibf_prime_power(-4, NULL, NULL));
	TT_CHECK(!ibf_prime_power(6, NULL, NULL));
	TT_CHECK(!ibf_prime_power(12, NULL, NULL));
	TT_CHECK(!ibf_prime_power(100, NULL, NULL));
}

static void test_gf_axioms(void)
{
	int checked = 0;
	for (int q = 2; q <= IBF_GF_MAX_Q; q++) {
		if (!ibf_prime_power(q, NULL, NULL))
			continue;
		struct ibf_gf gf;
		struct ibf_error err;
		int rc = ibf_gf_init(&gf, q, &err);
		TT_CHECK_MSG(rc == 0, "GF(%d): %s", q, err.msg);
		if (rc)
			continue;
		checked++;
		int bad = 0;
		/* identities, inverses, commutativity; rows of mul are permutations */
		for (int a = 0; a < q; a++) {
			if (ibf_gf_add(&gf, a, 0) != a || ibf_gf_mul(&gf, a, 1) != a ||
			    ibf_gf_mul(&gf, a, 0) != 0 || ibf_gf_add(&gf, a, gf.neg[a]) != 0)
				bad++;
			if (a && ibf_gf_mul(&gf, a, gf.inv[a]) != 1)
				bad++;
			unsigned char seen[IBF_GF_MAX_Q] = { 0 };
			for (int b = 0; b < q; b++) {
				if (ibf_gf_add(&gf, a, b) != ibf_gf_add(&gf, b, a) ||
				    ibf_gf_mul(&gf, a, b) != ibf_gf_mul(&gf, b, a))
					bad++;
				seen[ibf_gf_mul(&gf, a, b)] = 1;
			}
			if (a) {
				for (int b = 0; b < q; b++)
					if (!seen[b])
						bad++;
			}
		}
		/* associativity and distributivity: all triples for small q, a sample else */
		int step = q <= 32 ? 1 : 7;
		for (int a = 0; a < q; a += step)
			for (int b = 0; b < q; b += (step == 1 ? 1 : 3))
				for (int c = 0; c < q; c++) {
					int l = ibf_gf_mul(&gf, a, ibf_gf_add(&gf, b, c));
					int r = ibf_gf_add(&gf, ibf_gf_mul(&gf, a, b),
							   ibf_gf_mul(&gf, a, c));
					if (l != r)
						bad++;
					if (ibf_gf_mul(&gf, ibf_gf_mul(&gf, a, b), c) !=
					    ibf_gf_mul(&gf, a, ibf_gf_mul(&gf, b, c)))
						bad++;
					if (ibf_gf_add(&gf, ibf_gf_add(&gf, a, b), c) !=
					    ibf_gf_add(&gf, a, ibf_gf_add(&gf, b, c)))
						bad++;
				}
		/* characteristic p: p * 1 = 0 */
		int x = 0;
		for (int i = 0; i < gf.p; i++)
			x = ibf_gf_add(&gf, x, 1);
		if (x != 0)
			bad++;
		/* xi has order q-1: exp is a bijection onto the non-zero elements */
		unsigned char seen[IBF_GF_MAX_Q] = { 0 };
		for (int i = 0; i < q - 1; i++) {
			if (gf.exp[i] == 0 || seen[gf.exp[i]] || gf.log[gf.exp[i]] != i)
				bad++;
			seen[gf.exp[i]] = 1;
		}
		if (ibf_gf_mul(&gf, gf.exp[q - 2], gf.prim) != 1)
			bad++;
		TT_CHECK_MSG(bad == 0, "GF(%d): %d failures", q, bad);
		ibf_gf_free(&gf);
	}
	TT_EQ_INT(checked, 70); /* prime powers 2..256 */
}

static void test_gf_known(void)
{
	struct ibf_gf gf;
	/* GF(4) = GF(2)[x]/(x^2+x+1), GF(8) mod x^3+x+1, GF(9) mod x^2+1 */
	TT_REQUIRE(ibf_gf_init(&gf, 4, NULL) == 0);
	TT_CHECK(gf.poly[0] == 1 && gf.poly[1] == 1 && gf.poly[2] == 1);
	TT_EQ_INT(ibf_gf_mul(&gf, 2, 2), 3); /* x*x = x+1 */
	TT_EQ_INT(gf.prim, 2);
	ibf_gf_free(&gf);
	TT_REQUIRE(ibf_gf_init(&gf, 8, NULL) == 0);
	TT_CHECK(gf.poly[0] == 1 && gf.poly[1] == 1 && gf.poly[2] == 0 && gf.poly[3] == 1);
	ibf_gf_free(&gf);
	TT_REQUIRE(ibf_gf_init(&gf, 9, NULL) == 0);
	TT_CHECK(gf.poly[0] == 1 && gf.poly[1] == 0 && gf.poly[2] == 1);
	TT_EQ_INT(ibf_gf_mul(&gf, 3, 3), 2); /* x*x = -1 = 2 */
	TT_EQ_INT(gf.prim, 4);		     /* 1+x; x itself has order 4 */
	ibf_gf_free(&gf);
	TT_REQUIRE(ibf_gf_init(&gf, 7, NULL) == 0);
	TT_EQ_INT(gf.prim, 3);
	TT_EQ_INT(ibf_gf_mul(&gf, 5, 4), 6);
	ibf_gf_free(&gf);
	TT_REQUIRE(ibf_gf_init(&gf, 128, NULL) == 0);
	TT_CHECK(gf.poly[0] == 1 && gf.poly[1] == 1 && gf.poly[7] == 1); /* x^7+x+1 */
	ibf_gf_free(&gf);
	struct ibf_error err;
	TT_EQ_INT(ibf_gf_init(&gf, 6, &err), IBF_EINVAL);
	TT_EQ_INT(ibf_gf_init(&gf, 512, &err), IBF_EINVAL);
	TT_EQ_INT(ibf_gf_init(&gf, 1, &err), IBF_EINVAL);
	ibf_gf_free(&gf); /* harmless on a zeroed struct */
}

/* ------------------------------------------------------------ Slim Fly */

static struct ibf_fabric *sf(int q, int hosts, struct ibf_error *err)
{
	struct ibf_slimfly_opts o = { .q = q, .hosts = hosts };
	return ibf_gen_slimfly(&o, err);
}

/* Independent restatement of the MMS construction (docs/cabling.md): is there an edge
 * between switch node ids u and v (node id = x*2q + g*q + slot)? */
static int mms_edge(const struct ibf_gf *gf, int delta, int u, int v)
{
	int q = gf->q;
	int xu = u / (2 * q), gu = (u / q) % 2, su = u % q;
	int xv = v / (2 * q), gv = (v / q) % 2, sv = v % q;
	if (gu > gv)
		return mms_edge(gf, delta, v, u);
	if (gu == 1 && gv == 1) {
		if (xu != xv || su == sv)
			return 0;
		int e = gf->log[ibf_gf_sub(gf, su, sv)];
		/* X' */
		if (delta == 1 || delta == 0)
			return e % 2 == 1 || (delta == 0 && e == 0);
		int w = (q + 1) / 4;
		return (e % 2 == 1 && e < 2 * w) || (e % 2 == 0 && (e >= 2 * w || e == 0));
	}
	if (gu == 0 && gv == 0) {
		if (xu != xv || su == sv)
			return 0;
		int e = gf->log[ibf_gf_sub(gf, su, sv)];
		if (delta == 1 || delta == 0)
			return e % 2 == 0;
		int w = (q + 1) / 4;
		return (e % 2 == 0 && e < 2 * w - 1) || (e % 2 == 1 && e >= 2 * w - 1);
	}
	/* (0, x=xu, y=su) ~ (1, m=xv, c=sv) iff y = m x + c */
	return su == ibf_gf_add(gf, ibf_gf_mul(gf, xv, xu), sv);
}

static void check_slimfly(int q, int hosts_opt)
{
	struct ibf_error err;
	int delta, lo, hi;
	TT_REQUIRE(ibf_slimfly_admissible(q, &delta, &lo, &hi));
	int kp = (3 * q - delta) / 2;
	int hosts = hosts_opt < 0 ? (kp + 1) / 2 : hosts_opt;
	struct ibf_fabric *f = sf(q, hosts_opt, &err);
	if (!f) {
		TT_CHECK_MSG(f, "q=%d: %s", q, err.msg);
		return;
	}
	TT_EQ_INT(f->nsw, 2 * q * q);
	TT_EQ_INT(f->nnodes, 2 * q * q * (1 + hosts));
	int bad_deg = 0, bad_hosts = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (sw_degree(f, s) != (uint32_t)kp)
			bad_deg++;
		if (sw_hosts(f, s) != hosts)
			bad_hosts++;
		if (f->nodes[f->switches[s]].nports != kp + hosts)
			bad_deg++;
	}
	TT_CHECK_MSG(bad_deg == 0, "q=%d: %d switches with degree != k'=%d", q, bad_deg, kp);
	TT_CHECK_MSG(bad_hosts == 0, "q=%d: %d switches without %d hosts", q, bad_hosts, hosts);
	int simple, diam2;
	check_simple_diam2(f, &simple, &diam2);
	TT_CHECK_MSG(simple, "q=%d: self-loop or multi-edge", q);
	TT_CHECK_MSG(diam2, "q=%d: diameter > 2", q);

	/* edge set exactly as the definition says */
	struct ibf_gf gf;
	TT_REQUIRE(ibf_gf_init(&gf, q, NULL) == 0);
	int n = 2 * q * q, mismatch = 0;
	unsigned char *adj = calloc((size_t)n * (size_t)n, 1);
	TT_REQUIRE(adj);
	for (int u = 0; u < n; u++)
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++)
			adj[(size_t)u * (size_t)n + f->adj[k].nbr] = 1;
	for (int u = 0; u < n && mismatch < 5; u++)
		for (int v = 0; v < n; v++)
			if (adj[(size_t)u * (size_t)n + (size_t)v] !=
			    (u != v && mms_edge(&gf, delta, u, v))) {
				mismatch++;
				break;
			}
	TT_CHECK_MSG(mismatch == 0, "q=%d: edge set differs from the MMS definition", q);
	free(adj);
	ibf_gf_free(&gf);

	/* names, ports towards racks: (0,x,y) port half+m+1 leads to rack m, group 1,
	 * and (1,m,c) port half+x+1 to rack x, group 0 */
	int half = (q - delta) / 2, wq = q <= 100 ? 2 : 3, bad = 0;
	char want[64];
	for (int x = 0; x < q; x++)
		for (int g = 0; g < 2; g++)
			for (int s = 0; s < q; s++) {
				int node = x * 2 * q + g * q + s;
				snprintf(want, sizeof(want), "sf-r%0*d-g%d-s%0*d", wq, x, g, wq, s);
				if (strcmp(f->nodes[node].desc, want) ||
				    strcmp(f->nodes[node].id, want))
					bad++;
				for (int r = 0; r < q; r++) {
					const struct ibf_port *pp = ibf_port(f, node, half + r + 1);
					int peer = pp->peer_node;
					if (peer / (2 * q) != r || (peer / q) % 2 != 1 - g ||
					    pp->peer_port != half + x + 1)
						bad++;
				}
				for (int j = 0; j < half; j++) {
					int peer = ibf_port(f, node, j + 1)->peer_node;
					if (peer / (2 * q) != x || (peer / q) % 2 != g)
						bad++;
				}
				for (int h = 0; h < hosts; h++) {
					const struct ibf_port *pp = ibf_port(f, node, kp + h + 1);
					if (pp->peer_node < n || pp->peer_port != 1)
						bad++;
				}
			}
	TT_CHECK_MSG(bad == 0, "q=%d: %d naming/port-layout problems", q, bad);
	/* intra-subgroup wiring identical in every rack: port j of (g,x,s) goes to
	 * the same slot for every x */
	bad = 0;
	for (int g = 0; g < 2; g++)
		for (int s = 0; s < q; s++)
			for (int j = 1; j <= half; j++) {
				int ref = ibf_port(f, g * q + s, j)->peer_node % q;
				for (int x = 1; x < q; x++)
					if (ibf_port(f, x * 2 * q + g * q + s, j)->peer_node % q !=
					    ref)
						bad++;
			}
	TT_CHECK_MSG(bad == 0, "q=%d: intra-subgroup wiring differs between racks", q);

	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "family", buf, sizeof(buf)) && strcmp(buf, "slimfly") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "kprime", buf, sizeof(buf)) && atoi(buf) == kp);
	TT_CHECK(ibf_fabric_get_meta(f, "delta", buf, sizeof(buf)) && atoi(buf) == delta);
	TT_CHECK(ibf_fabric_get_meta(f, "q", buf, sizeof(buf)) && atoi(buf) == q);
	TT_CHECK(ibf_fabric_get_meta(f, "hosts", buf, sizeof(buf)) && atoi(buf) == hosts);
	check_sane(f);
	ibf_fabric_free(f);
}

static void test_slimfly_all_q(void)
{
	static const int qs[] = { 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29 };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		check_slimfly(qs[i], -1);
}

static void test_slimfly_stats(void)
{
	/* the library's own metrics agree on the small ones */
	static const int qs[] = { 3, 4, 5, 7, 8, 9 };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		int q = qs[i], delta;
		ibf_slimfly_admissible(q, &delta, NULL, NULL);
		struct ibf_fabric *f = sf(q, 2, NULL);
		TT_REQUIRE(f);
		struct ibf_stats st;
		TT_REQUIRE(ibf_fabric_stats(f, &st, 2, NULL) == 0);
		TT_EQ_INT(st.diameter, 2);
		TT_EQ_INT(st.components, 1);
		TT_EQ_INT(st.loopback_links, 0);
		TT_EQ_INT(st.parallel_links, 0);
		TT_EQ_INT(st.min_degree, (3 * q - delta) / 2);
		TT_EQ_INT(st.max_degree, (3 * q - delta) / 2);
		TT_EQ_INT(st.host_links, 2 * q * q * 2);
		TT_EQ_INT(st.sw_links, q * q * (3 * q - delta) / 2);
		ibf_stats_free(&st);
		ibf_fabric_free(f);
	}
}

static void test_slimfly_hoffman_singleton(void)
{
	struct ibf_fabric *f = sf(5, 4, NULL);
	TT_REQUIRE(f);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.nswitches, 50);
	TT_EQ_INT(st.sw_links, 175);
	TT_EQ_INT(st.ncas, 200);
	TT_EQ_INT(st.host_links, 200);
	TT_EQ_INT(st.diameter, 2);
	TT_EQ_INT(st.min_degree, 7);
	TT_EQ_INT(st.max_degree, 7);
	ibf_stats_free(&st);
	/* girth 5: adjacent pairs share no neighbour (no triangle), non-adjacent
	 * pairs share exactly one (no 4-cycle, diameter 2): the Moore graph */
	unsigned char a[50][50];
	memset(a, 0, sizeof(a));
	for (uint32_t u = 0; u < 50; u++)
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++)
			a[u][f->adj[k].nbr] = 1;
	int tri = 0, c4 = 0, far = 0;
	for (int u = 0; u < 50; u++)
		for (int v = u + 1; v < 50; v++) {
			int common = 0;
			for (int w = 0; w < 50; w++)
				common += a[u][w] && a[v][w];
			if (a[u][v] && common)
				tri++;
			if (!a[u][v] && common > 1)
				c4++;
			if (!a[u][v] && common == 0)
				far++;
		}
	TT_EQ_INT(tri, 0);
	TT_EQ_INT(c4, 0);
	TT_EQ_INT(far, 0);
	ibf_fabric_free(f);
}

static void test_slimfly_admissible(void)
{
	int d, lo, hi;
	TT_CHECK(ibf_slimfly_admissible(5, &d, &lo, &hi) && d == 1);
	TT_CHECK(ibf_slimfly_admissible(4, &d, NULL, NULL) && d == 0);
	TT_CHECK(ibf_slimfly_admissible(3, &d, NULL, NULL) && d == -1);
	TT_CHECK(ibf_slimfly_admissible(7, &d, NULL, NULL) && d == -1);
	TT_CHECK(ibf_slimfly_admissible(128, &d, NULL, NULL) && d == 0);
	TT_CHECK(ibf_slimfly_admissible(125, &d, NULL, NULL) && d == 1);
	TT_CHECK(!ibf_slimfly_admissible(6, &d, &lo, &hi) && lo == 5 && hi == 7);
	TT_CHECK(!ibf_slimfly_admissible(2, &d, &lo, &hi) && lo == 0 && hi == 3);
	TT_CHECK(!ibf_slimfly_admissible(15, &d, &lo, &hi) && lo == 13 && hi == 16);
	TT_CHECK(!ibf_slimfly_admissible(1000, &d, &lo, &hi) && lo == 128 && hi == 0);
	TT_CHECK(!ibf_slimfly_admissible(-5, &d, &lo, &hi) && lo == 0 && hi == 3);
	TT_CHECK(!ibf_slimfly_admissible(INT_MAX, &d, &lo, &hi) && lo == 128 && hi == 0);
	TT_CHECK(!ibf_slimfly_admissible(INT_MIN, &d, &lo, &hi) && lo == 0 && hi == 3);
	static const int bad[] = {
		2, 6, 10, 12, 15, 1, 0, -1, -7, 1000, 131, 256, INT_MAX, INT_MIN
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibf_error err;
		ibf_error_clear(&err);
		struct ibf_fabric *f = sf(bad[i], -1, &err);
		TT_CHECK_MSG(!f, "q=%d accepted", bad[i]);
		ibf_fabric_free(f);
		TT_EQ_INT(err.code, IBF_EINVAL);
		TT_CHECK(strstr(err.msg, "nearest admissible") != NULL);
	}
	struct ibf_error err;
	TT_CHECK(!sf(6, -1, &err));
	TT_CHECK_MSG(
		strcmp(err.msg,
		       "q=6 is not admissible for a Slim Fly (needs a prime power q = "
		       "4w+\xce\xb4, \xce\xb4\xe2\x88\x88{-1,0,1}); nearest admissible: 5, 7") == 0,
		"%s", err.msg);
	TT_CHECK(!sf(1, -1, &err));
	TT_CHECK_MSG(strstr(err.msg, "nearest admissible: 3") != NULL, "%s", err.msg);
	TT_CHECK(!sf(1000, -1, &err));
	TT_CHECK_MSG(strstr(err.msg, "nearest admissible: 128") != NULL, "%s", err.msg);
}

static void test_slimfly_options(void)
{
	struct ibf_error err;
	struct ibf_slimfly_opts o = { .q = 5, .hosts = 0 };
	struct ibf_fabric *f = ibf_gen_slimfly(&o, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nnodes, 50);
	TT_EQ_INT(f->nodes[0].nports, 7);
	ibf_fabric_free(f);

	/* hosts first, wider switches */
	o.hosts = 3;
	o.switch_ports = 12;
	o.host_ports_first = 1;
	f = ibf_gen_slimfly(&o, &err);
	TT_REQUIRE(f);
	int bad = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		if (f->nodes[node].nports != 12)
			bad++;
		for (int p = 1; p <= 12; p++) {
			int peer = ibf_port(f, node, p)->peer_node;
			int want = p <= 3 ? IBF_NODE_CA : p <= 10 ? IBF_NODE_SWITCH : 0;
			if (want ? peer == IBF_NO_NODE || f->nodes[peer].type != want
				 : peer != IBF_NO_NODE)
				bad++;
		}
	}
	TT_EQ_INT(bad, 0);
	TT_CHECK(ibf_fabric_find_desc(f, "sf-r04-g1-s02-h02") >= 0);
	TT_CHECK(ibf_fabric_find_id(f, "sf-r00-g0-s00") == 0);
	/* GUIDs follow ibf_gen_guid */
	int h = ibf_fabric_find_desc(f, "sf-r00-g0-s00-h01");
	TT_REQUIRE(h >= 0);
	TT_EQ_INT(f->nodes[h].guid, ibf_gen_guid(IBF_NODE_CA, 1, 0));
	TT_EQ_INT(ibf_port(f, h, 1)->guid, ibf_gen_guid(IBF_NODE_CA, 1, 1));
	TT_EQ_INT(f->nodes[7].guid, ibf_gen_guid(IBF_NODE_SWITCH, 7, 0));
	check_sane(f);
	ibf_fabric_free(f);

	/* too few ports, too many hosts, bad hosts */
	o.switch_ports = 9;
	ibf_error_clear(&err);
	TT_CHECK(!ibf_gen_slimfly(&o, &err));
	TT_CHECK_MSG(err.code == IBF_EINVAL && strstr(err.msg, "switch_ports=9") &&
			     strstr(err.msg, "10"),
		     "%s", err.msg);
	o.switch_ports = 0;
	o.hosts = 250;
	TT_CHECK(!ibf_gen_slimfly(&o, &err));
	TT_CHECK(strstr(err.msg, "hosts=250") != NULL);
	o.hosts = -2;
	TT_CHECK(!ibf_gen_slimfly(&o, &err));
	o.hosts = -1;
	o.switch_ports = 300;
	TT_CHECK(!ibf_gen_slimfly(&o, &err));
	TT_CHECK(!ibf_gen_slimfly(NULL, &err));
	/* q = 128: default hosts do not fit 254 ports, hosts = 0 does */
	o.q = 128;
	o.switch_ports = 0;
	TT_CHECK(!ibf_gen_slimfly(&o, &err));
	TT_CHECK_MSG(strstr(err.msg, "288 ports") && strstr(err.msg, "0..62"), "%s", err.msg);
	o.hosts = 0;
	f = ibf_gen_slimfly(&o, &err);
	TT_CHECK_MSG(f != NULL, "%s", err.msg);
	if (f) {
		TT_EQ_INT(f->nsw, 32768);
		TT_CHECK(ibf_fabric_find_id(f, "sf-r127-g1-s127") == 32767);
		ibf_fabric_free(f);
	}

	/* deterministic */
	struct ibf_fabric *a = sf(9, 3, NULL), *b = sf(9, 3, NULL);
	TT_REQUIRE(a && b);
	TT_CHECK(same_fabric(a, b));
	ibf_fabric_free(a);
	ibf_fabric_free(b);
}

static void test_slimfly_q29_speed(void)
{
	double t0 = now_s();
	struct ibf_fabric *f = sf(29, 22, NULL);
	double t = now_s() - t0;
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 1682);
	TT_EQ_INT(f->nnodes - f->nsw, 37004);
	printf("# Slim Fly q=29, 22 hosts/switch (1682 switches, 37004 hosts): %.3f s\n", t);
	ibf_fabric_free(f);
}

/* ------------------------------------------------------------ fat trees */

static int ft_level(const struct ibf_fabric *f, int node)
{
	const char *d = f->nodes[node].desc;
	if (strncmp(d, "ft-l", 4) == 0)
		return atoi(d + 4);
	return 0; /* host */
}

/* counts per level, degrees, leaf hosts, up/down structure, subtree sizes, diameter */
static void check_fattree(const struct ibf_fattree_opts *o)
{
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_fattree(o, &err);
	if (!f) {
		TT_CHECK_MSG(f, "%s", err.msg);
		return;
	}
	int h = o->levels, P = o->parallel;
	long count[IBF_FT_MAX_LEVELS + 1], total_sw = 0;
	for (int l = 0; l <= h; l++) {
		long c = 1;
		for (int i = l + 1; i <= h; i++)
			c *= o->m[i - 1];
		for (int i = 1; i <= l; i++)
			c *= o->w[i - 1];
		count[l] = c;
		if (l)
			total_sw += c;
	}
	TT_EQ_INT(f->nsw, total_sw);
	TT_EQ_INT(f->nnodes - f->nsw, count[0]);
	long seen[IBF_FT_MAX_LEVELS + 1] = { 0 };
	int bad = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		int node = f->switches[s], l = ft_level(f, node);
		TT_REQUIRE(l >= 1 && l <= h);
		seen[l]++;
		int down = 0, up = 0, hosts = 0, other = 0, lastup = 0, firstup = 0;
		for (int p = 1; p <= f->nodes[node].nports; p++) {
			int peer = ibf_port(f, node, p)->peer_node;
			if (peer == IBF_NO_NODE)
				continue;
			int pl = ft_level(f, peer);
			if (f->nodes[peer].type == IBF_NODE_CA) {
				hosts++;
				if (up)
					other++; /* down ports first */
			} else if (pl == l - 1) {
				down++;
				if (up)
					other++;
			} else if (pl == l + 1) {
				if (!up)
					firstup = p;
				up++;
				lastup = p;
			} else {
				other++;
			}
		}
		if (l == 1 ? hosts != o->m[0] || down : hosts || down != o->m[l - 1] * P)
			bad++;
		if (up != (l < h ? o->w[l] * P : 0) || other)
			bad++;
		if (up && lastup - firstup + 1 != up)
			bad++;
		/* parallel cables to the same parent are consecutive */
		if (up && P > 1) {
			for (int k = 0; k < up; k++) {
				int peer = ibf_port(f, node, firstup + k)->peer_node;
				int grp = ibf_port(f, node, firstup + (k / P) * P)->peer_node;
				if (peer != grp)
					bad++;
			}
		}
	}
	TT_CHECK_MSG(bad == 0, "%d switches with the wrong port structure", bad);
	for (int l = 1; l <= h; l++)
		TT_EQ_INT(seen[l], count[l]);

	/* the leaves below a level-l switch: m_2 * .. * m_l distinct ones
	 * (the XGFT connection rule makes subtrees disjoint) */
	uint32_t nsw = f->nsw;
	unsigned char *mark = calloc(nsw, 1);
	uint32_t *stack = malloc(nsw * 8 * sizeof(*stack) + 64);
	TT_REQUIRE(mark && stack);
	bad = 0;
	for (uint32_t s = 0; s < nsw; s++) {
		int l = ft_level(f, f->switches[s]);
		long want = 1;
		for (int i = 2; i <= l; i++)
			want *= o->m[i - 1];
		memset(mark, 0, nsw);
		uint32_t sp = 0;
		long leaves = 0;
		stack[sp++] = s;
		mark[s] = 1;
		while (sp) {
			uint32_t u = stack[--sp];
			int lu = ft_level(f, f->switches[u]);
			if (lu == 1) {
				leaves++;
				continue;
			}
			for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
				uint32_t v = f->adj[k].nbr;
				if (!mark[v] && ft_level(f, f->switches[v]) == lu - 1) {
					mark[v] = 1;
					stack[sp++] = v;
				}
			}
		}
		if (leaves != want)
			bad++;
	}
	TT_CHECK_MSG(bad == 0, "%d switches with the wrong subtree size", bad);
	free(mark);
	free(stack);

	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 2, NULL) == 0);
	TT_EQ_INT(st.diameter, 2 * (h - 1));
	TT_EQ_INT(st.components, 1);
	TT_EQ_INT(st.min_hosts_per_switch, 0 + (h == 1 ? o->m[0] : 0));
	ibf_stats_free(&st);

	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "family", buf, sizeof(buf)) && strcmp(buf, "fattree") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "levels", buf, sizeof(buf)) && atoi(buf) == h);
	check_sane(f);
	struct ibf_fabric *g = ibf_gen_fattree(o, NULL);
	TT_CHECK(g && same_fabric(f, g));
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

static void test_kary_ntree(void)
{
	for (int n = 1; n <= 3; n++) {
		int k = 4;
		struct ibf_fabric *f = ibf_gen_kary_ntree(k, n, NULL);
		TT_REQUIRE(f);
		long kn = 1;
		for (int i = 0; i < n; i++)
			kn *= k;
		TT_EQ_INT(f->nnodes - f->nsw, kn);
		TT_EQ_INT(f->nsw, n * kn / k);
		int bad = 0;
		for (uint32_t s = 0; s < f->nsw; s++) {
			int node = f->switches[s], l = ft_level(f, node);
			int used = (int)sw_degree(f, s) + sw_hosts(f, s);
			if (used != (l == n ? k : 2 * k) || f->nodes[node].nports != used)
				bad++;
		}
		TT_EQ_INT(bad, 0);
		ibf_fabric_free(f);
		struct ibf_fattree_opts o = { .levels = n, .parallel = 1 };
		for (int i = 0; i < n; i++) {
			o.m[i] = k;
			o.w[i] = i ? k : 1;
		}
		check_fattree(&o);
	}
	struct ibf_fabric *f = ibf_gen_kary_ntree(4, 2, NULL);
	TT_REQUIRE(f);
	/* leaf ft-l1-s0000: hosts 0..3 on ports 1..4, spines on 5..8 */
	TT_EQ_INT(ibf_port(f, 0, 1)->peer_node, ibf_fabric_find_desc(f, "ft-h00000"));
	TT_EQ_INT(ibf_port(f, 0, 4)->peer_node, ibf_fabric_find_desc(f, "ft-h00003"));
	TT_EQ_INT(ibf_port(f, 0, 5)->peer_node, ibf_fabric_find_desc(f, "ft-l2-s0000"));
	TT_EQ_INT(ibf_port(f, 0, 8)->peer_node, ibf_fabric_find_desc(f, "ft-l2-s0003"));
	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "m", buf, sizeof(buf)) && strcmp(buf, "4,4") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "w", buf, sizeof(buf)) && strcmp(buf, "1,4") == 0);
	ibf_fabric_free(f);
	struct ibf_error err;
	TT_CHECK(!ibf_gen_kary_ntree(1, 2, &err) && err.code == IBF_EINVAL);
	TT_CHECK(!ibf_gen_kary_ntree(4, 0, &err) && strstr(err.msg, "n=0"));
	TT_CHECK(!ibf_gen_kary_ntree(4, 7, &err));
	TT_CHECK(!ibf_gen_kary_ntree(128, 2, &err));
}

static void test_fattree_4ary3(void)
{
	struct ibf_fabric *f = ibf_gen_kary_ntree(4, 3, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 48);
	TT_EQ_INT(f->nnodes, 48 + 64);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.diameter, 4);
	TT_EQ_INT(st.sw_links, 16 * 4 + 16 * 4);
	TT_EQ_INT(st.parallel_links, 0);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
}

static void test_fattree_tapered(void)
{
	struct ibf_fattree_opts o = {
		.levels = 3, .m = { 4, 4, 4 }, .w = { 1, 2, 2 }, .parallel = 1
	};
	check_fattree(&o);
	struct ibf_fabric *f = ibf_gen_fattree(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 16 + 8 + 4);
	TT_EQ_INT(f->nnodes - f->nsw, 64);
	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "w", buf, sizeof(buf)) && strcmp(buf, "1,2,2") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "parallel", buf, sizeof(buf)) && strcmp(buf, "1") == 0);
	ibf_fabric_free(f);
	struct ibf_fattree_opts o2 = {
		.levels = 3, .m = { 3, 2, 5 }, .w = { 1, 3, 2 }, .parallel = 2
	};
	check_fattree(&o2);
}

static void test_fattree_rlft(void)
{
	/* 12 leaves x 6 spines x 3 cables, 18 hosts per leaf */
	struct ibf_fattree_opts o = { .levels = 2, .m = { 18, 12 }, .w = { 1, 6 }, .parallel = 3 };
	check_fattree(&o);
	struct ibf_fabric *f = ibf_gen_fattree(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 18);
	TT_EQ_INT(f->nnodes - f->nsw, 216);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.sw_links, 216);
	TT_EQ_INT(st.sw_pairs_linked, 72);
	TT_EQ_INT(st.parallel_links, 144);
	TT_EQ_INT(st.diameter, 2);
	TT_EQ_INT(st.max_hosts_per_switch, 18);
	ibf_stats_free(&st);
	for (uint32_t s = 0; s < f->nsw; s++)
		TT_EQ_INT(f->nodes[f->switches[s]].nports, 36);
	/* leaf 0: ports 19..21 to spine 0, 34..36 to spine 5; spine 0: 1..3 to leaf 0 */
	int sp0 = ibf_fabric_find_desc(f, "ft-l2-s0000"),
	    sp5 = ibf_fabric_find_desc(f, "ft-l2-s0005");
	TT_EQ_INT(ibf_port(f, 0, 19)->peer_node, sp0);
	TT_EQ_INT(ibf_port(f, 0, 21)->peer_node, sp0);
	TT_EQ_INT(ibf_port(f, 0, 34)->peer_node, sp5);
	TT_EQ_INT(ibf_port(f, 0, 19)->peer_port, 1);
	TT_EQ_INT(ibf_port(f, 0, 21)->peer_port, 3);
	TT_EQ_INT(ibf_port(f, 11, 36)->peer_port, 36);
	ibf_fabric_free(f);

	/* uniform switch ports */
	o.switch_ports = 40;
	f = ibf_gen_fattree(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nodes[17].nports, 40);
	ibf_fabric_free(f);
}

static void test_fattree_errors(void)
{
	struct ibf_error err;
	struct ibf_fattree_opts o = { .levels = 2, .m = { 18, 12 }, .w = { 1, 6 }, .parallel = 3 };
	o.switch_ports = 30;
	TT_CHECK(!ibf_gen_fattree(&o, &err) && strstr(err.msg, "switch_ports=30"));
	o.switch_ports = 0;
	o.w[0] = 2;
	TT_CHECK(!ibf_gen_fattree(&o, &err) && strstr(err.msg, "w[0]"));
	o.w[0] = 1;
	o.m[1] = 0;
	TT_CHECK(!ibf_gen_fattree(&o, &err) && strstr(err.msg, "m[1]"));
	o.m[1] = 12;
	o.parallel = 0;
	TT_CHECK(!ibf_gen_fattree(&o, &err) && strstr(err.msg, "parallel"));
	o.parallel = 30; /* 12*30 = 360 down ports */
	TT_CHECK(!ibf_gen_fattree(&o, &err) && strstr(err.msg, "level-2"));
	o.parallel = 1;
	o.levels = 0;
	TT_CHECK(!ibf_gen_fattree(&o, &err) && strstr(err.msg, "levels"));
	o.levels = 7;
	TT_CHECK(!ibf_gen_fattree(&o, &err));
	struct ibf_fattree_opts big = { .levels = 6,
					.m = { 40, 40, 40, 40, 40, 40 },
					.w = { 1, 40, 40, 40, 40, 40 },
					.parallel = 1 };
	TT_CHECK(!ibf_gen_fattree(&big, &err) && strstr(err.msg, "nodes"));
	TT_CHECK(!ibf_gen_fattree(NULL, &err));
	struct ibf_fattree_opts one = { .levels = 1, .m = { 8 }, .w = { 1 }, .parallel = 1 };
	check_fattree(&one);
}

/* ------------------------------------------------------------ rails */

static void test_rail_only(void)
{
	struct ibf_rail_opts o = { .servers = 8, .gpus = 4, .rail_switches = 1 };
	struct ibf_fabric *f = ibf_gen_rail(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 4);
	TT_EQ_INT(f->nnodes, 4 + 32);
	uint32_t comp[4];
	TT_EQ_INT(ibf_components(f, comp), 4);
	for (uint32_t s = 0; s < 4; s++) {
		TT_EQ_INT(sw_hosts(f, s), 8);
		TT_EQ_INT(sw_degree(f, s), 0);
	}
	/* NIC g of every server is on rail g; NICs of a server share a sysimg */
	int bad = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type != IBF_NODE_CA)
			continue;
		int srv, dev;
		if (sscanf(n->desc, "srv%d mlx5_%d", &srv, &dev) != 2)
			bad++;
		int sw = ibf_port_switch(f, (int)i, 1, NULL);
		int rail = -1, leaf = -1;
		if (sw < 0 || sscanf(f->nodes[sw].desc, "rail%d-l%d", &rail, &leaf) != 2 ||
		    rail != dev)
			bad++;
		char id0[32];
		snprintf(id0, sizeof(id0), "srv%03d-mlx5_0", srv);
		int n0 = ibf_fabric_find_id(f, id0);
		if (n0 < 0 || f->nodes[n0].sysimg_guid != n->sysimg_guid)
			bad++;
		if (srv > 0) {
			snprintf(id0, sizeof(id0), "srv%03d-mlx5_0", srv - 1);
			int p0 = ibf_fabric_find_id(f, id0);
			if (p0 < 0 || f->nodes[p0].sysimg_guid == n->sysimg_guid)
				bad++;
		}
	}
	TT_EQ_INT(bad, 0);
	TT_CHECK(ibf_fabric_find_desc(f, "srv007 mlx5_3") >= 0);
	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "family", buf, sizeof(buf)) && strcmp(buf, "rail") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "servers", buf, sizeof(buf)) && atoi(buf) == 8);
	TT_CHECK(ibf_fabric_get_meta(f, "gpus", buf, sizeof(buf)) && atoi(buf) == 4);
	check_sane(f);
	ibf_fabric_free(f);
}

static void test_rail_optimized(void)
{
	struct ibf_rail_opts o = {
		.servers = 10, .gpus = 8, .rail_switches = 3, .spines = 4, .uplinks = 2
	};
	struct ibf_fabric *f = ibf_gen_rail(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 8 * 3 + 4);
	TT_EQ_INT(f->nnodes - f->nsw, 80);
	uint32_t comp[64];
	TT_EQ_INT(ibf_components(f, comp), 1);
	int bad = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		const char *d = f->nodes[f->switches[s]].desc;
		if (strncmp(d, "spine", 5) == 0) {
			if (sw_degree(f, s) != 8 * 3 * 2 || sw_hosts(f, s) != 0)
				bad++;
			continue;
		}
		int rail, leaf;
		if (sscanf(d, "rail%d-l%d", &rail, &leaf) != 2)
			bad++;
		/* 10 servers over 3 leaves: 4, 3, 3 */
		if (sw_hosts(f, s) != (leaf == 0 ? 4 : 3) || sw_degree(f, s) != 8)
			bad++;
		if (f->nodes[f->switches[s]].nports != 4 + 8)
			bad++;
		/* every leaf uses ports 5,6 for spine 0 */
		int sp0 = ibf_fabric_find_desc(f, "spine00");
		if (ibf_port(f, f->switches[s], 5)->peer_node != sp0 ||
		    ibf_port(f, f->switches[s], 6)->peer_node != sp0)
			bad++;
	}
	TT_EQ_INT(bad, 0);
	/* servers contiguous per leaf: srv004 on rail 2 sits on rail02-l01 */
	int n = ibf_fabric_find_desc(f, "srv004 mlx5_2");
	TT_REQUIRE(n >= 0);
	TT_EQ_INT(ibf_port_switch(f, n, 1, NULL), ibf_fabric_find_desc(f, "rail02-l01"));
	n = ibf_fabric_find_desc(f, "srv009 mlx5_7");
	TT_EQ_INT(ibf_port_switch(f, n, 1, NULL), ibf_fabric_find_desc(f, "rail07-l02"));
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.diameter, 2);
	TT_EQ_INT(st.sw_links, 8 * 3 * 4 * 2);
	ibf_stats_free(&st);
	check_sane(f);
	struct ibf_fabric *g = ibf_gen_rail(&o, NULL);
	TT_CHECK(g && same_fabric(f, g));
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

static void test_rail_errors(void)
{
	struct ibf_error err;
	struct ibf_rail_opts o = { .servers = 8, .gpus = 4, .rail_switches = 2 };
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "spines"));
	o.rail_switches = 9;
	o.spines = 1;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "rail_switches=9"));
	o.rail_switches = 1;
	o.gpus = 0;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "gpus=0"));
	o.gpus = 4;
	o.servers = 0;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "servers=0"));
	o.servers = 300;
	o.spines = 0;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "ports"));
	o.servers = 8;
	o.switch_ports = 4;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "switch_ports=4"));
	o.switch_ports = 0;
	o.spines = 2;
	o.uplinks = -1;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "uplinks"));
	o.spines = 0; /* uplinks without spines were silently dropped */
	o.uplinks = 2;
	TT_CHECK(!ibf_gen_rail(&o, &err) && strstr(err.msg, "uplinks=2 needs spines"));
	o.uplinks = 1;
	struct ibf_fabric *f = ibf_gen_rail(&o, &err);
	TT_CHECK(f != NULL);
	ibf_fabric_free(f);
	TT_CHECK(!ibf_gen_rail(NULL, &err));
}

/* ------------------------------------------------------------ dragonfly */

static void test_dragonfly_max(void)
{
	struct ibf_dragonfly_opts o = { .a = 4, .p = 2, .h = 2 };
	struct ibf_fabric *f = ibf_gen_dragonfly(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 9 * 4);
	TT_EQ_INT(f->nnodes - f->nsw, 72);
	int bad = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		if (sw_degree(f, s) != 3 + 2 || sw_hosts(f, s) != 2)
			bad++;
	TT_EQ_INT(bad, 0);
	/* exactly one global link per pair of groups */
	int links[9][9];
	memset(links, 0, sizeof(links));
	for (uint32_t s = 0; s < f->nsw; s++)
		for (uint32_t k = f->adj_off[s]; k < f->adj_off[s + 1]; k++)
			if (s / 4 != f->adj[k].nbr / 4)
				links[s / 4][f->adj[k].nbr / 4]++;
	bad = 0;
	for (int i = 0; i < 9; i++)
		for (int j = 0; j < 9; j++)
			if (links[i][j] != (i != j))
				bad++;
	TT_EQ_INT(bad, 0);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 2, NULL) == 0);
	TT_EQ_INT(st.diameter, 3);
	TT_EQ_INT(st.parallel_links, 0);
	TT_EQ_INT(st.sw_links, 9 * 6 + 36);
	ibf_stats_free(&st);
	TT_EQ_INT(ibf_fabric_find_desc(f, "df-g008-r03"), 35);
	TT_CHECK(ibf_fabric_find_desc(f, "df-g008-r03-h01") >= 0);
	/* consecutive arrangement: group 0 router 0 global slot 0 -> group 1 */
	int peer = ibf_port(f, 0, 2 + 3 + 1)->peer_node;
	TT_EQ_INT(peer / 4, 1);
	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "g", buf, sizeof(buf)) && atoi(buf) == 9);
	check_sane(f);
	ibf_fabric_free(f);

	/* a bigger one: a=8, h=4, p=4: 33 groups, 264 routers */
	struct ibf_dragonfly_opts o2 = { .a = 8, .p = 4, .h = 4 };
	f = ibf_gen_dragonfly(&o2, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 264);
	TT_REQUIRE(ibf_fabric_stats(f, &st, 2, NULL) == 0);
	TT_EQ_INT(st.diameter, 3);
	TT_EQ_INT(st.min_degree, 11);
	TT_EQ_INT(st.max_degree, 11);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
}

static void test_dragonfly_small(void)
{
	struct ibf_dragonfly_opts o = { .a = 4, .p = 1, .h = 2, .g = 5 };
	struct ibf_fabric *f = ibf_gen_dragonfly(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 20);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.sw_links, 5 * 6 + 10); /* local + one per group pair */
	TT_CHECK(st.diameter <= 3);
	TT_EQ_INT(st.max_degree, 5);
	TT_EQ_INT(st.min_degree, 3);
	TT_EQ_INT(st.components, 1);
	ibf_stats_free(&st);
	/* every router keeps a-1+h global+local ports even when some are unused */
	TT_EQ_INT(f->nodes[0].nports, 1 + 3 + 2);
	ibf_fabric_free(f);
	struct ibf_error err;
	o.g = 10;
	TT_CHECK(!ibf_gen_dragonfly(&o, &err) && strstr(err.msg, "g=10"));
	o.g = 0;
	o.a = 0;
	TT_CHECK(!ibf_gen_dragonfly(&o, &err) && strstr(err.msg, "a=0"));
	o.a = 100;
	o.p = 100;
	o.h = 100;
	TT_CHECK(!ibf_gen_dragonfly(&o, &err) && strstr(err.msg, "ports"));
	struct ibf_dragonfly_opts one = { .a = 3, .p = 2, .h = 0 };
	f = ibf_gen_dragonfly(&one, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 3);
	ibf_fabric_free(f);
	TT_CHECK(!ibf_gen_dragonfly(NULL, &err));
}

/* ------------------------------------------------------------ HyperX */

/* Tori and meshes: a ring of 5 (degree 2, diameter 2), a 5 x 4 x 2 torus
 * (a dimension of 2: one cable per pair), a 3 x 3 mesh (corners 2, sides
 * 3, centre 4), names and ports, and the refusals. */
static void test_torus(void)
{
	struct ibf_torus_opts o;
	memset(&o, 0, sizeof(o));
	o.ndims = 1;
	o.k[0] = 5;
	o.hosts = 2;
	struct ibf_fabric *f = ibf_gen_torus(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 5);
	TT_EQ_INT(f->nnodes, 15);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.diameter, 2);
	TT_EQ_INT(st.sw_links, 5);
	ibf_stats_free(&st);
	/* tor-04 port 3 (+1 wraps) -> tor-00 port 4 (from -1) */
	int s4 = ibf_fabric_find_desc(f, "tor-04"), s0 = ibf_fabric_find_desc(f, "tor-00");
	TT_REQUIRE(s4 >= 0 && s0 >= 0);
	TT_EQ_INT(ibf_port(f, s4, 3)->peer_node, s0);
	TT_EQ_INT(ibf_port(f, s4, 3)->peer_port, 4);
	TT_CHECK(ibf_fabric_find_desc(f, "tor-02-h01") >= 0);
	check_sane(f);
	ibf_fabric_free(f);

	o.ndims = 3;
	o.k[0] = 5;
	o.k[1] = 4;
	o.k[2] = 2;
	o.hosts = 1;
	f = ibf_gen_torus(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 40);
	int bad = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		bad += sw_degree(f, s) != 5 || sw_hosts(f, s) != 1;
	TT_EQ_INT(bad, 0);
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.diameter, 2 + 2 + 1);
	TT_EQ_INT(st.sw_links, 40 + 40 + 20);
	TT_EQ_INT(st.parallel_links, 0);
	ibf_stats_free(&st);
	check_sane(f);
	ibf_fabric_free(f);

	memset(&o, 0, sizeof(o));
	o.ndims = 2;
	o.k[0] = o.k[1] = 3;
	o.mesh = 1;
	f = ibf_gen_torus(&o, NULL);
	TT_REQUIRE(f);
	int deg[5] = { 0 };
	for (uint32_t s = 0; s < f->nsw; s++)
		if (sw_degree(f, s) < 5)
			deg[sw_degree(f, s)]++;
	TT_EQ_INT(deg[2], 4);
	TT_EQ_INT(deg[3], 4);
	TT_EQ_INT(deg[4], 1);
	TT_CHECK(ibf_fabric_find_desc(f, "mesh-02-01") >= 0);
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.diameter, 4);
	ibf_stats_free(&st);
	ibf_fabric_free(f);

	struct ibf_error err;
	o.k[1] = 1;
	TT_CHECK(!ibf_gen_torus(&o, &err) && strstr(err.msg, "dimension 2 has 1"));
	o.k[1] = 3;
	o.ndims = 7;
	TT_CHECK(!ibf_gen_torus(&o, &err) && strstr(err.msg, "1..6"));
	o.ndims = 2;
	o.hosts = 252;
	TT_CHECK(!ibf_gen_torus(&o, &err) && strstr(err.msg, "ports"));
	o.hosts = 1;
	o.k[0] = o.k[1] = 300;
	TT_CHECK(!ibf_gen_torus(&o, &err) && strstr(err.msg, "65536"));
	TT_CHECK(!ibf_gen_torus(NULL, &err));
}

static void test_hyperx(void)
{
	struct ibf_hyperx_opts o = { .s1 = 4, .s2 = 3, .trunk = 2, .hosts = 3 };
	struct ibf_fabric *f = ibf_gen_hyperx(&o, NULL);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nsw, 12);
	TT_EQ_INT(f->nnodes - f->nsw, 36);
	int bad = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		if (sw_degree(f, s) != (3 + 2) * 2 || sw_hosts(f, s) != 3 ||
		    f->nodes[f->switches[s]].nports != 13)
			bad++;
	TT_EQ_INT(bad, 0);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.diameter, 2);
	TT_EQ_INT(st.sw_links, 60);
	TT_EQ_INT(st.sw_pairs_linked, 30);
	TT_EQ_INT(st.parallel_links, 30);
	ibf_stats_free(&st);
	TT_EQ_INT(ibf_fabric_find_desc(f, "hx-03-02"), 11);
	/* (0,0) ports 4,5 -> (1,0); ports 10,11 -> (0,1) */
	TT_EQ_INT(ibf_port(f, 0, 4)->peer_node, ibf_fabric_find_desc(f, "hx-01-00"));
	TT_EQ_INT(ibf_port(f, 0, 5)->peer_node, ibf_fabric_find_desc(f, "hx-01-00"));
	TT_EQ_INT(ibf_port(f, 0, 10)->peer_node, ibf_fabric_find_desc(f, "hx-00-01"));
	check_sane(f);
	ibf_fabric_free(f);
	struct ibf_error err;
	o.trunk = 0;
	TT_CHECK(!ibf_gen_hyperx(&o, &err) && strstr(err.msg, "trunk=0"));
	o.trunk = 100;
	TT_CHECK(!ibf_gen_hyperx(&o, &err) && strstr(err.msg, "ports"));
	o.trunk = 1;
	o.s1 = 0;
	TT_CHECK(!ibf_gen_hyperx(&o, &err) && strstr(err.msg, "s1=0"));
	o.s1 = 1;
	o.s2 = 1;
	o.hosts = 0;
	f = ibf_gen_hyperx(&o, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nnodes, 1);
	ibf_fabric_free(f);
	struct ibf_hyperx_opts big = { .s1 = 16, .s2 = 16, .trunk = 1, .hosts = 8 };
	f = ibf_gen_hyperx(&big, NULL);
	TT_REQUIRE(f);
	int simple, d2;
	check_simple_diam2(f, &simple, &d2);
	TT_CHECK(simple && d2);
	ibf_fabric_free(f);
}

/* extreme parameter values: clean errors, no overflow (UBSan build) */
static void test_extremes(void)
{
	static const int v[] = { INT_MIN, -2, -1, 0, 1, 2, 255, 256, 100000, INT_MAX };
	int nv = (int)(sizeof(v) / sizeof(v[0])), made = 0;
	for (int i = 0; i < nv; i++)
		for (int j = 0; j < nv; j++) {
			struct ibf_error err;
			struct ibf_slimfly_opts so = { .q = 5,
						       .hosts = v[i],
						       .switch_ports = v[j] };
			struct ibf_fattree_opts fo = {
				.levels = 2, .m = { v[i], 2 }, .w = { 1, v[j] }, .parallel = 1
			};
			struct ibf_fattree_opts fo2 = { .levels = 2,
							.m = { 2, 2 },
							.w = { 1, 2 },
							.parallel = v[i],
							.switch_ports = v[j] };
			struct ibf_rail_opts ro = { .servers = v[i],
						    .gpus = 2,
						    .rail_switches = 1,
						    .spines = v[j] > 8 ? 8 : v[j],
						    .uplinks = 1 };
			struct ibf_rail_opts ro2 = { .servers = 4,
						     .gpus = v[i],
						     .rail_switches = 1,
						     .spines = 1,
						     .uplinks = v[j] };
			struct ibf_dragonfly_opts dopt = {
				.a = v[i] > 16 ? 16 : v[i], .p = 1, .h = 2, .g = v[j]
			};
			struct ibf_hyperx_opts ho = {
				.s1 = v[i], .s2 = 2, .trunk = v[j], .hosts = 1
			};
			struct ibf_fabric *f[7] = {
				ibf_gen_slimfly(&so, &err),  ibf_gen_fattree(&fo, &err),
				ibf_gen_fattree(&fo2, &err), ibf_gen_rail(&ro, &err),
				ibf_gen_rail(&ro2, &err),    ibf_gen_dragonfly(&dopt, &err),
				ibf_gen_hyperx(&ho, &err),
			};
			for (int k = 0; k < 7; k++) {
				if (f[k]) {
					made++;
					TT_CHECK(f[k]->finalized);
				}
				ibf_fabric_free(f[k]);
			}
			ibf_fabric_free(
				ibf_gen_kary_ntree(v[i] > 8 ? 8 : v[i], v[j] > 3 ? 3 : v[j], NULL));
		}
	TT_CHECK(made > 0);
}

int main(void)
{
	TT(test_prime_power);
	TT(test_gf_axioms);
	TT(test_gf_known);
	TT(test_slimfly_admissible);
	TT(test_slimfly_all_q);
	TT(test_slimfly_stats);
	TT(test_slimfly_hoffman_singleton);
	TT(test_slimfly_options);
	TT(test_slimfly_q29_speed);
	TT(test_kary_ntree);
	TT(test_fattree_4ary3);
	TT(test_fattree_tapered);
	TT(test_fattree_rlft);
	TT(test_fattree_errors);
	TT(test_rail_only);
	TT(test_rail_optimized);
	TT(test_rail_errors);
	TT(test_dragonfly_max);
	TT(test_dragonfly_small);
	TT(test_hyperx);
	TT(test_torus);
	TT(test_extremes);
	return tt_done();
}
