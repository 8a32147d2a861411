/* Unit tests for the routing engines (minimal, layered) and the registry.
 * Tables are checked by an independent tracer (routing/engine_check.h). */
#include "ibf_routing.h"
#include "engine_check.h"
#include "engine_internal.h"
#include "tt.h"

#include <stdint.h>

static int add_sw(struct ibf_fabric *f, int idx, int nports)
{
	char name[32];
	snprintf(name, sizeof(name), "sw%d", idx);
	return ibf_fabric_add_node(f, IBF_NODE_SWITCH, nports,
				   ibf_gen_guid(IBF_NODE_SWITCH, (uint32_t)idx, 0), name, name,
				   NULL);
}

static int add_ca(struct ibf_fabric *f, int idx, int nports)
{
	char name[32];
	snprintf(name, sizeof(name), "h%d", idx);
	return ibf_fabric_add_node(f, IBF_NODE_CA, nports,
				   ibf_gen_guid(IBF_NODE_CA, (uint32_t)idx, 0), name, name, NULL);
}

/* hosts h per switch on ports 20.. */
static void add_hosts(struct ibf_fabric *f, int nsw, int h)
{
	int k = 0;
	for (int i = 0; i < nsw; i++)
		for (int j = 0; j < h; j++) {
			int c = add_ca(f, k++, 1);
			ibf_fabric_connect(f, c, 1, i, 20 + j, 4, IBF_SPEED_EDR, NULL);
		}
}

static struct ibf_fabric *ring(int n, int h)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < n; i++)
		add_sw(f, i, 32);
	for (int i = 0; i < n; i++)
		ibf_fabric_connect(f, i, 1, (i + 1) % n, 2, 4, IBF_SPEED_EDR, NULL);
	add_hosts(f, n, h);
	ibf_fabric_finalize(f, NULL);
	return f;
}

/* 3x3 mesh (wrap = 0) or torus (wrap = 1) */
static struct ibf_fabric *grid(int wrap, int h)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 9; i++)
		add_sw(f, i, 32);
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 3; x++) {
			int a = y * 3 + x;
			if (x < 2 || wrap)
				ibf_fabric_connect(f, a, 1, y * 3 + (x + 1) % 3, 2, 4,
						   IBF_SPEED_EDR, NULL);
			if (y < 2 || wrap)
				ibf_fabric_connect(f, a, 3, ((y + 1) % 3) * 3 + x, 4, 4,
						   IBF_SPEED_EDR, NULL);
		}
	add_hosts(f, 9, h);
	ibf_fabric_finalize(f, NULL);
	return f;
}

static int route(struct ibf_fabric *f, const char *eng, int lmc, int threads, uint64_t seed,
		 struct ibf_routes *r, struct ibf_route_report *rep, struct ibf_error *err)
{
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.threads = threads;
	o.seed = seed;
	if (ibf_assign_lids(f, lmc, 0, err))
		return -100;
	return ibf_route(f, eng, &o, r, rep, err);
}

static void check_clean(const struct ec_result *a)
{
	TT_EQ_INT(a->unrouted, 0);
	TT_EQ_INT(a->loops, 0);
	TT_EQ_INT(a->wrong, 0);
	TT_EQ_INT(a->hops_bad, 0);
	TT_CHECK(a->entries > 0);
}

static void test_registry(void)
{
	TT_CHECK(ibf_engine_find("minimal") != NULL);
	TT_CHECK(ibf_engine_find("layered") != NULL);
	TT_CHECK(ibf_engine_find("lnmp") != NULL);
	TT_CHECK(ibf_engine_find("lnmp")->fn == ibf_engine_find("layered")->fn);
	TT_CHECK(ibf_engine_find("nope") == NULL);
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	TT_EQ_INT(o.threads, 1);
	TT_EQ_INT(o.min_len.base, IBF_WIN_DIST);
	TT_EQ_INT(o.min_len.value, 1);
	TT_EQ_INT(o.max_len.base, IBF_WIN_DIAM);
	TT_EQ_INT(o.max_len.value, 1);
	struct ibf_fabric *f = ring(3, 1);
	struct ibf_routes r;
	struct ibf_error err;
	ibf_assign_lids(f, 0, 0, NULL);
	TT_CHECK(ibf_route(f, "nope", &o, &r, NULL, &err) == IBF_EINVAL);
	ibf_fabric_free(f);
}

/* every engine on a fabric: clean, minimal is shortest, layered layer 0 is */
static void run_both_x(struct ibf_fabric *f, int lmc, const char *what, int expect_nonmin)
{
	for (int e = 0; e < 2; e++) {
		const char *eng = e ? "layered" : "minimal";
		struct ibf_routes r;
		struct ibf_route_report rep;
		struct ibf_error err;
		int rc = route(f, eng, lmc, 2, 7, &r, &rep, &err);
		TT_CHECK_MSG(rc == 0, "%s %s lmc %d: %s", what, eng, lmc, err.msg);
		if (rc)
			continue;
		struct ec_result a;
		TT_REQUIRE(ec_analyse(f, &r, &a) == 0);
		check_clean(&a);
		TT_EQ_INT(a.nonshortest0, 0);
		if (!e)
			TT_EQ_INT(a.nonshortest, 0);
		if (e && lmc > 0) {
			TT_EQ_INT(rep.layers, 1 << lmc);
			TT_CHECK(rep.pairs_total > 0);
			TT_EQ_INT(rep.pairs_total, rep.pairs_nonminimal + rep.pairs_fallback);
			if (expect_nonmin) {
				TT_CHECK_MSG(rep.pairs_nonminimal > 0, "%s: no non-minimal paths",
					     what);
				TT_CHECK(a.nonshortest > 0);
			}
		}
		ibf_routes_free(&r);
	}
}

static void run_both(struct ibf_fabric *f, int lmc, const char *what)
{
	run_both_x(f, lmc, what, 1);
}

static void test_ring(void)
{
	struct ibf_fabric *f = ring(6, 2);
	run_both(f, 0, "ring6");
	run_both(f, 2, "ring6");
	ibf_fabric_free(f);
}

static void test_mesh_torus(void)
{
	for (int w = 0; w < 2; w++) {
		struct ibf_fabric *f = grid(w, 2);
		run_both(f, 0, w ? "torus" : "mesh");
		run_both(f, 1, w ? "torus" : "mesh");
		run_both(f, 3, w ? "torus" : "mesh");
		ibf_fabric_free(f);
	}
}

/* layered on the torus: every pair gets non-minimal in-window paths in
 * layers >= 1 (a 3x3 torus has them for every pair) */
static void test_torus_window(void)
{
	struct ibf_fabric *f = grid(1, 1);
	struct ibf_routes r;
	struct ibf_route_report rep;
	struct ibf_error err;
	TT_REQUIRE(route(f, "layered", 2, 1, 1, &r, &rep, &err) == 0);
	/* window [dist+1, 3]: pairs at distance 2 need 3 hops; adjacent 2 or 3 */
	TT_CHECK_MSG(rep.pairs_nonminimal * 2 >= rep.pairs_total, "in window %llu of %llu",
		     (unsigned long long)rep.pairs_nonminimal, (unsigned long long)rep.pairs_total);
	struct ec_result a;
	TT_REQUIRE(ec_analyse(f, &r, &a) == 0);
	check_clean(&a);
	TT_CHECK(a.max_len_hi <= 3 + 2);
	TT_CHECK(a.ge[2] * 10 >= a.pairs_sw * 9);
	printf("# torus lmc2: >=2 %.1f%% >=3 %.1f%% fallback %llu/%llu\n",
	       100.0 * (double)a.ge[2] / (double)a.pairs_sw,
	       100.0 * (double)a.ge[3] / (double)a.pairs_sw, (unsigned long long)rep.pairs_fallback,
	       (unsigned long long)rep.pairs_total);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

/* dual-port HCA, both ports cabled, to different switches */
static void test_dual_port(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 4; i++)
		add_sw(f, i, 32);
	for (int i = 0; i < 4; i++)
		ibf_fabric_connect(f, i, 1, (i + 1) % 4, 2, 4, IBF_SPEED_EDR, NULL);
	int c = add_ca(f, 0, 2);
	ibf_fabric_connect(f, c, 1, 0, 20, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(f, c, 2, 2, 20, 4, IBF_SPEED_EDR, NULL);
	/* an HCA with only port 2 cabled (LNMP defect D3) */
	int c2 = add_ca(f, 1, 2);
	ibf_fabric_connect(f, c2, 2, 1, 21, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_finalize(f, NULL);
	run_both(f, 0, "dual");
	run_both(f, 2, "dual");
	struct ibf_routes r;
	struct ibf_error err;
	TT_REQUIRE(route(f, "layered", 1, 1, 0, &r, NULL, &err) == 0);
	/* switch 0 delivers port 1 locally (port 20), switch 2 delivers port 2 */
	uint32_t l1 = ibf_port(f, c, 1)->lid, l2 = ibf_port(f, c, 2)->lid;
	TT_EQ_INT(ibf_lft(&r, 0)[l1], 20);
	TT_EQ_INT(ibf_lft(&r, 2)[l2], 20);
	TT_EQ_INT(ibf_lft(&r, 0)[l1 + 1], 20);
	TT_CHECK(ibf_lft(&r, 0)[l2] != 20);
	TT_EQ_INT(ibf_lft(&r, 1)[ibf_port(f, c2, 2)->lid], 21);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

/* two parallel cables between sw0 and sw1: both carry traffic */
static void test_parallel(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 3; i++)
		add_sw(f, i, 32);
	ibf_fabric_connect(f, 0, 1, 1, 1, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(f, 0, 2, 1, 2, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(f, 1, 3, 2, 3, 4, IBF_SPEED_EDR, NULL);
	add_hosts(f, 3, 4);
	ibf_fabric_finalize(f, NULL);
	/* a line of switches has no non-minimal simple paths */
	run_both_x(f, 0, "parallel", 0);
	run_both_x(f, 2, "parallel", 0);
	for (int e = 0; e < 2; e++) {
		struct ibf_routes r;
		struct ibf_error err;
		TT_REQUIRE(route(f, e ? "layered" : "minimal", 0, 1, 0, &r, NULL, &err) == 0);
		int used[3] = { 0 };
		for (uint32_t lid = 1; lid <= r.max_lid; lid++) {
			unsigned p = ibf_lft(&r, 0)[lid];
			if (p == 1 || p == 2)
				used[p]++;
		}
		TT_CHECK_MSG(used[1] > 0 && used[2] > 0, "port 1: %d, port 2: %d", used[1],
			     used[2]);
		TT_CHECK(abs(used[1] - used[2]) <= 1);
		ibf_routes_free(&r);
	}
	ibf_fabric_free(f);
}

/* a disconnected switch: ENOROUTE with a message, no crash, no leak */
static void test_disconnected(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 5; i++)
		add_sw(f, i, 32);
	for (int i = 0; i < 4; i++)
		ibf_fabric_connect(f, i, 1, (i + 1) % 4, 2, 4, IBF_SPEED_EDR, NULL);
	add_hosts(f, 5, 1);
	ibf_fabric_finalize(f, NULL);
	for (int e = 0; e < 2; e++) {
		struct ibf_routes r;
		struct ibf_error err;
		ibf_error_clear(&err);
		int rc = route(f, e ? "layered" : "minimal", 1, 2, 0, &r, NULL, &err);
		TT_EQ_INT(rc, IBF_ENOROUTE);
		TT_CHECK(strstr(err.msg, "unreachable") != NULL);
		TT_CHECK(r.lft == NULL);
		/* the engine itself still routes what it can */
		struct ibf_route_opts o;
		ibf_route_opts_default(&o);
		TT_REQUIRE(ibf_routes_init(&r, f->nsw, ibf_max_lid(f), 1, NULL) == 0);
		rc = e ? ibf_route_layered(f, &o, &r, NULL, &err)
		       : ibf_route_minimal(f, &o, &r, NULL, &err);
		TT_EQ_INT(rc, IBF_ENOROUTE);
		uint32_t l0 = ibf_port(f, 5, 1)->lid; /* host on sw0 */
		TT_EQ_INT(ibf_lft(&r, 0)[l0], 20);
		TT_CHECK(ibf_lft(&r, 2)[l0] != IBF_LFT_NONE);
		TT_CHECK(ibf_lft(&r, 4)[l0] == IBF_LFT_NONE);
		ibf_routes_free(&r);
	}
	ibf_fabric_free(f);
}

/* two hosts cabled back to back beside a ring: the engines route the
 * ring, and route check counts the pairs towards the two hosts as "across"
 * (no table can reach a port cabled to no switch), not as unreachable */
static void test_back_to_back_beside(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 4; i++)
		add_sw(f, i, 32);
	for (int i = 0; i < 4; i++)
		ibf_fabric_connect(f, i, 1, (i + 1) % 4, 2, 4, IBF_SPEED_EDR, NULL);
	add_hosts(f, 4, 2);
	int a = add_ca(f, 100, 1), b = add_ca(f, 101, 1);
	ibf_fabric_connect(f, a, 1, b, 1, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_finalize(f, NULL);
	const char *engines[] = { "minimal", "layered", "hratio" };
	for (int e = 0; e < 3; e++) {
		struct ibf_routes r;
		struct ibf_error err;
		ibf_error_clear(&err);
		TT_REQUIRE(route(f, engines[e], 1, 1, 0, &r, NULL, &err) == 0);
		struct ibf_check_report ck;
		TT_REQUIRE(ibf_route_check(f, &r, 0, &ck, &err) == 0);
		printf("# %s: %llu pairs, %llu ok, %llu across, %llu unreachable\n", engines[e],
		       (unsigned long long)ck.pairs, (unsigned long long)ck.ok,
		       (unsigned long long)ck.across, (unsigned long long)ck.unreachable);
		TT_EQ_INT(ck.unreachable, 0);
		TT_EQ_INT(ck.loops + ck.wrong, 0);
		/* 8 hosts + 4 switch ports as sources, 2 LIDs each (LMC 1) on
		 * the two back-to-back hosts */
		TT_EQ_INT(ck.across, 12 * 2 * 2);
		TT_EQ_INT(ck.ok + ck.across, ck.pairs);
		ibf_routes_free(&r);
	}
	ibf_fabric_free(f);
}

/* same seed: same tables for 1, 2, 4 threads; another seed may differ */
static void test_determinism(void)
{
	struct ibf_fabric *f = grid(1, 3);
	for (int e = 0; e < 2; e++) {
		const char *eng = e ? "layered" : "minimal";
		struct ibf_routes r1, r2, r4, rs;
		struct ibf_error err;
		TT_REQUIRE(route(f, eng, 2, 1, 42, &r1, NULL, &err) == 0);
		TT_REQUIRE(route(f, eng, 2, 2, 42, &r2, NULL, &err) == 0);
		TT_REQUIRE(route(f, eng, 2, 4, 42, &r4, NULL, &err) == 0);
		TT_REQUIRE(route(f, eng, 2, 2, 43, &rs, NULL, &err) == 0);
		size_t n = (size_t)r1.nsw * r1.stride;
		TT_CHECK(memcmp(r1.lft, r2.lft, n) == 0);
		TT_CHECK(memcmp(r1.lft, r4.lft, n) == 0);
		TT_CHECK(memcmp(r1.hops, r4.hops, n) == 0);
		if (e)
			TT_CHECK(memcmp(r1.lft, rs.lft, n) != 0);
		ibf_routes_free(&r1);
		ibf_routes_free(&r2);
		ibf_routes_free(&r4);
		ibf_routes_free(&rs);
	}
	ibf_fabric_free(f);
}

/* options: LNMP-compatible absolute window, cap, layers */
static void test_options(void)
{
	struct ibf_fabric *f = grid(1, 2);
	ibf_assign_lids(f, 2, 0, NULL);
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.min_len.base = IBF_WIN_ABS;
	o.min_len.value = 2;
	o.max_len.base = IBF_WIN_ABS;
	o.max_len.value = 3;
	struct ibf_routes r;
	struct ibf_route_report rep;
	struct ibf_error err;
	TT_REQUIRE(ibf_route(f, "lnmp", &o, &r, &rep, &err) == 0);
	struct ec_result a;
	TT_REQUIRE(ec_analyse(f, &r, &a) == 0);
	check_clean(&a);
	TT_CHECK(rep.pairs_nonminimal > 0);
	ibf_routes_free(&r);
	/* cap: (almost) no in-window paths when the cap is tiny */
	ibf_route_opts_default(&o);
	o.max_paths_per_layer = 1;
	TT_REQUIRE(ibf_route(f, "layered", &o, &r, &rep, &err) == 0);
	TT_CHECK_MSG(rep.pairs_nonminimal <= 3 * 4, "%llu",
		     (unsigned long long)rep.pairs_nonminimal);
	TT_REQUIRE(ec_analyse(f, &r, &a) == 0);
	check_clean(&a);
	ibf_routes_free(&r);
	/* layers = 1: everything minimal */
	ibf_route_opts_default(&o);
	o.layers = 1;
	TT_REQUIRE(ibf_route(f, "layered", &o, &r, &rep, &err) == 0);
	TT_REQUIRE(ec_analyse(f, &r, &a) == 0);
	check_clean(&a);
	TT_EQ_INT(a.nonshortest, 0);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

static void sf_quality(int lmc, double want3)
{
	struct ibf_slimfly_opts so = { 5, 4, 0, 0 };
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	TT_REQUIRE(f != NULL);
	struct ibf_routes r;
	struct ibf_route_report rep;
	TT_REQUIRE(route(f, "layered", lmc, 2, 0, &r, &rep, &err) == 0);
	struct ec_result a;
	TT_REQUIRE(ec_analyse(f, &r, &a) == 0);
	check_clean(&a);
	TT_EQ_INT(a.nonshortest0, 0);
	TT_EQ_INT(a.len_hi_over3, 0);
	double s2 = (double)a.ge[2] / (double)a.pairs_sw, s3 = (double)a.ge[3] / (double)a.pairs_sw,
	       s4 = (double)a.ge[4] / (double)a.pairs_sw;
	printf("# SF q=5 lmc %d: pairs %llu >=2 %.1f%% >=3 %.1f%% >=4 %.1f%% (per port >=3 %.1f%%); "
	       "fallback %llu of %llu; link max/mean %.3f; %.3f s\n",
	       lmc, (unsigned long long)a.pairs_sw, 100 * s2, 100 * s3, 100 * s4,
	       100.0 * (double)a.ge_port[3] / (double)a.pairs_port,
	       (unsigned long long)rep.pairs_fallback, (unsigned long long)rep.pairs_total,
	       a.link_max / a.link_mean, rep.seconds);
	TT_CHECK_MSG(s3 >= want3, ">=3 disjoint share %.3f < %.3f", s3, want3);
	/* LNMP reaches max/mean 1.02 (with 58 % >= 3 disjoint); the rebalancing
	 * pass brings us to ~1.005 at LMC 2 and 3 */
	TT_CHECK_MSG(a.link_max / a.link_mean < 1.03, "link max/mean %.3f",
		     a.link_max / a.link_mean);
	/* cross-check with the routing module's own statistics */
	struct ibf_path_stats ps;
	TT_REQUIRE(ibf_path_stats_compute(f, &r, &ps, &err) == 0);
	printf("# path_stats: >=2 %.1f%% >=3 %.1f%% >=4 %.1f%%, link max/mean %.3f, unrouted %llu\n",
	       100 * ps.share_ge[2], 100 * ps.share_ge[3], 100 * ps.share_ge[4],
	       ps.link_max / ps.link_mean, (unsigned long long)ps.unrouted);
	TT_EQ_INT(ps.unrouted, 0);
	TT_CHECK_MSG(ps.share_ge[3] >= want3, "path_stats >=3 share %.3f", ps.share_ge[3]);
	TT_CHECK_MSG(ps.link_max / ps.link_mean < 1.03, "path_stats link max/mean %.3f",
		     ps.link_max / ps.link_mean);
	ibf_path_stats_free(&ps);
	struct ibf_check_report cr;
	TT_REQUIRE(ibf_route_check(f, &r, 0, &cr, &err) == 0);
	TT_EQ_INT(cr.unreachable, 0);
	TT_EQ_INT(cr.loops, 0);
	TT_EQ_INT(cr.wrong, 0);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

/* minimal on the Hoffman-Singleton graph: every pair has one shortest
 * path, so the loads are even (like OpenSM minhop / dfsssp) */
static void test_slimfly_minimal_balance(void)
{
	struct ibf_slimfly_opts so = { 5, 4, 0, 0 };
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	TT_REQUIRE(f != NULL);
	struct ibf_routes r;
	TT_REQUIRE(route(f, "minimal", 2, 2, 0, &r, NULL, &err) == 0);
	struct ibf_path_stats ps;
	TT_REQUIRE(ibf_path_stats_compute(f, &r, &ps, &err) == 0);
	TT_CHECK_MSG(ps.link_max / ps.link_mean < 1.001, "minimal link max/mean %.3f",
		     ps.link_max / ps.link_mean);
	ibf_path_stats_free(&ps);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

/* thread-count independence where rounds hold several destinations (the
 * small fabrics above run one destination per round) */
static void test_determinism_rounds(void)
{
	struct ibf_slimfly_opts so = { 7, -1, 0, 0 };
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	TT_REQUIRE(f != NULL);
	for (int e = 0; e < 2; e++) {
		const char *eng = e ? "layered" : "minimal";
		struct ibf_routes r1, r3;
		TT_REQUIRE(route(f, eng, 2, 1, 5, &r1, NULL, &err) == 0);
		TT_REQUIRE(route(f, eng, 2, 3, 5, &r3, NULL, &err) == 0);
		size_t n = (size_t)r1.nsw * r1.stride;
		TT_CHECK_MSG(memcmp(r1.lft, r3.lft, n) == 0, "%s: LFTs differ with 3 threads", eng);
		TT_CHECK(memcmp(r1.hops, r3.hops, n) == 0);
		ibf_routes_free(&r1);
		ibf_routes_free(&r3);
	}
	ibf_fabric_free(f);
}

static void test_slimfly_q5_lmc2(void)
{
	sf_quality(2, 0.80);
}

static void test_slimfly_q5_lmc3(void)
{
	sf_quality(3, 0.85);
}

/* The layered engine's table of pairs with some path in their window
 * (eng_build_possible).  On K(40,40), a bipartite graph like every fat
 * tree, two switches of one side are 2 hops apart and every path between
 * them has even length: the window of exactly 5 hops holds none.  The
 * bounded search cannot tell (it gives up after 20000 steps and answers
 * yes, as on high-radix fat trees), so the parity must; switches of
 * opposite sides do have 5-hop paths.  With one layer the table is not
 * built at all (nothing reads it). */
static void test_possible_parity(void)
{
	const int n = 40;
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 2 * n; i++)
		add_sw(f, i, n + 1);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			ibf_fabric_connect(f, a, 1 + b, n + b, 1 + a, 4, IBF_SPEED_EDR, NULL);
	add_hosts(f, 2 * n, 1);
	TT_EQ_INT(ibf_fabric_finalize(f, NULL), 0);
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.min_len.base = o.max_len.base = IBF_WIN_ABS;
	o.min_len.value = o.max_len.value = 5;
	for (int layers = 1; layers <= 4; layers += 3) {
		struct eng_ctx c;
		memset(&c, 0, sizeof(c));
		c.f = f;
		c.o = &o;
		c.S = f->nsw;
		c.layers = layers;
		TT_EQ_INT(eng_build_dist(&c, NULL), 0);
		TT_EQ_INT(c.diam, 2);
		TT_EQ_INT(eng_build_possible(&c, NULL), 0);
		if (layers == 1) {
			TT_CHECK(c.possible == NULL);
		} else {
			TT_CHECK(c.possible != NULL);
			uint32_t same = 0, cross = 0;
			for (uint32_t t = 0; c.possible && t < c.S; t++)
				for (uint32_t s = 0; s < c.S; s++) {
					int bit = (int)(c.possible[(size_t)t * c.pwords + s / 64] >>
							(s % 64) & 1);
					if (s == t)
						continue;
					if ((s < (uint32_t)n) == (t < (uint32_t)n))
						same += (uint32_t)bit;
					else
						cross += (uint32_t)bit;
				}
			TT_EQ_INT(same, 0);
			TT_EQ_INT(cross, 2 * n * n);
		}
		free(c.possible);
		free(c.dist);
	}
	ibf_fabric_free(f);
}

int main(void)
{
	TT(test_registry);
	TT(test_ring);
	TT(test_mesh_torus);
	TT(test_torus_window);
	TT(test_dual_port);
	TT(test_parallel);
	TT(test_disconnected);
	TT(test_back_to_back_beside);
	TT(test_determinism);
	TT(test_options);
	TT(test_slimfly_minimal_balance);
	TT(test_determinism_rounds);
	TT(test_slimfly_q5_lmc2);
	TT(test_slimfly_q5_lmc3);
	TT(test_possible_parity);
	return tt_done();
}
