/* Unit tests for the hratio engine (routing/hratio.c) and the rail checks of
 * tables (rail/routecheck.c), on intact and damaged rail fabrics. */
#include "ibf_deadlock.h"
#include "ibf_fattree.h"
#include "ibf_rail.h"
#include "tt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ibf_fabric *gen(int m, int k, int r, int sp, int up, int lmc)
{
	struct ibf_rail_opts o = { 0 };
	o.servers = m;
	o.gpus = k;
	o.rail_switches = r;
	o.spines = sp;
	o.uplinks = up;
	o.switch_ports = 36;
	struct ibf_error err = { 0 };
	struct ibf_fabric *f = ibf_gen_rail(&o, &err);
	if (f && !f->finalized && ibf_fabric_finalize(f, &err))
		return NULL;
	if (f && ibf_assign_lids(f, lmc, 0, &err)) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}

static int find_desc_prefix(const struct ibf_fabric *f, const char *prefix, int type, int nth)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == type && f->nodes[i].desc &&
		    !strncmp(f->nodes[i].desc, prefix, strlen(prefix)) && nth-- == 0)
			return (int)i;
	return -1;
}

/* every cable between switches a and b (node ids), or all cables of a
 * (b < 0) */
static void cut(struct ibf_fabric *f, int a, int b, int max)
{
	for (int p = 1; p <= f->nodes[a].nports && max; p++) {
		const struct ibf_port *pp = ibf_port(f, a, p);
		if (pp->peer_node == IBF_NO_NODE || (b >= 0 && pp->peer_node != b))
			continue;
		ibf_fabric_disconnect(f, a, p);
		max--;
	}
}

struct figures {
	struct ibf_check_report ck;
	struct ibf_rail_route_report rr;
	int deadlock_free;
	int done; /* every step ran */
};

/* switches route_and_check avoids (test_avoid) */
static const uint64_t *avoid_guids;
static uint32_t navoid;

static void route_and_check(struct ibf_fabric *f, struct ibf_routes *r, struct figures *fig)
{
	struct ibf_error err = { 0 };
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.avoid = avoid_guids;
	o.navoid = navoid;
	memset(fig, 0, sizeof(*fig));
	if (!f->finalized)
		TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	int rc = ibf_route(f, "hratio", &o, r, NULL, &err);
	TT_EQ_INT(rc, 0);
	if (rc)
		return;
	TT_EQ_INT(ibf_route_check(f, r, 0, &fig->ck, &err), 0);
	struct ibf_rail_info ri;
	TT_REQUIRE(ibf_rail_detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ibf_rail_route_check(f, NULL, &ri, r, &fig->rr, &err), 0);
	ibf_rail_info_free(&ri);
	struct ibf_sl_table sl;
	struct ibf_sl2vl_table s2v;
	TT_REQUIRE(ibf_sl_table_const(f, r->stride, 0, &sl, &err) == 0);
	TT_REQUIRE(ibf_sl2vl_table_uniform(f, 1, &s2v, &err) == 0);
	struct ibf_verify_opts vo;
	ibf_verify_opts_default(&vo);
	struct ibf_verify_report vr;
	TT_EQ_INT(ibf_deadlock_verify(f, r, &sl, &s2v, &vo, &vr, &err), 0);
	fig->deadlock_free = ibf_verify_ok(&vr);
	ibf_verify_report_free(&vr);
	ibf_sl_table_free(&sl);
	ibf_sl2vl_table_free(&s2v);
	fig->done = 1;
}

/* the properties every rail fabric must keep, intact or damaged */
static void common(const struct figures *g)
{
	TT_EQ_INT(g->ck.unreachable, 0);
	TT_EQ_INT(g->ck.loops, 0);
	TT_EQ_INT(g->ck.wrong, 0);
	TT_EQ_INT(g->ck.ok + g->ck.across, g->ck.pairs);
	TT_EQ_INT(g->rr.same_failed, 0);
	TT_EQ_INT(g->rr.cross_failed, 0);
	TT_EQ_INT(g->rr.same_left, 0);
	TT_EQ_INT(g->rr.lmc_distinct, g->rr.lmc_pairs);
	TT_EQ_INT(g->deadlock_free, 1);
}

static void test_rail_only(void)
{
	struct ibf_fabric *f = gen(16, 8, 1, 0, 0, 1);
	TT_REQUIRE(f);
	struct ibf_routes r;
	struct figures g;
	route_and_check(f, &r, &g);
	TT_REQUIRE(g.done);
	common(&g);
	/* 128 GPUs, 2 LIDs each; pairs between rails have no cable path */
	TT_EQ_INT(g.ck.across > 0, 1);
	TT_EQ_INT(g.rr.split_paths, 128ull * 105 * 2);
	TT_EQ_INT(g.rr.same_paths, 128ull * 15 * 2);
	TT_EQ_INT(g.rr.same_max_hops, 0); /* one switch per rail */
	TT_EQ_INT(g.rr.cross_paths, 0);
	ibf_routes_free(&r);
	ibf_rail_route_report_free(&g.rr);
	/* a broken table on one rail is still an error, not "split" */
	route_and_check(f, &r, &g);
	TT_REQUIRE(g.done);
	int gpu = find_desc_prefix(f, "srv003", IBF_NODE_CA, 0);
	TT_REQUIRE(gpu >= 0);
	int sp = 0;
	int sw = ibf_port_switch(f, gpu, 1, &sp);
	TT_REQUIRE(sw >= 0);
	ibf_lft(&r, (uint32_t)f->nodes[sw].sw)[ibf_port(f, gpu, 1)->lid] = IBF_LFT_NONE;
	struct ibf_check_report ck;
	struct ibf_error err = { 0 };
	TT_EQ_INT(ibf_route_check(f, &r, 0, &ck, &err), 0);
	TT_EQ_INT(ck.unreachable, 16); /* the other GPUs of its rail and the switch */
	TT_EQ_INT(ck.across, g.ck.across);
	ibf_routes_free(&r);
	ibf_rail_route_report_free(&g.rr);
	ibf_fabric_free(f);
}

static void test_rail_optimized(void)
{
	struct ibf_fabric *f = gen(32, 8, 1, 4, 1, 2);
	TT_REQUIRE(f);
	struct ibf_routes r;
	struct figures g;
	route_and_check(f, &r, &g);
	TT_REQUIRE(g.done);
	common(&g);
	TT_EQ_INT(g.ck.across, 0);
	TT_EQ_INT(g.rr.split_paths, 0);
	TT_EQ_INT(g.rr.same_confinable, g.rr.same_paths);
	TT_EQ_INT(g.rr.cross_max_hops, 2);
	TT_EQ_INT(g.rr.nspines, 4);
	for (int i = 1; i < g.rr.nspines; i++)
		TT_EQ_INT(g.rr.spine_paths[i], g.rr.spine_paths[0]);
	TT_EQ_INT(g.rr.lmc_pairs, 256ull * 7 * 31); /* cross-rail, other server */
	/* deterministic */
	struct ibf_routes r2;
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.threads = 2;
	struct ibf_error err = { 0 };
	TT_EQ_INT(ibf_route(f, "hratio", &o, &r2, NULL, &err), 0);
	TT_EQ_INT(memcmp(r.lft, r2.lft, (size_t)r.nsw * r.stride), 0);
	ibf_routes_free(&r2);
	ibf_routes_free(&r);
	ibf_rail_route_report_free(&g.rr);
	ibf_fabric_free(f);
}

/* bundles (2 cables per spine) and rails of two leaves joined by the spines */
static void test_damaged(void)
{
	for (int k = 0; k < 4; k++) {
		struct ibf_fabric *f = gen(16, 4, 2, 4, 2, 2);
		TT_REQUIRE(f);
		int leaf = find_desc_prefix(f, "rail01", IBF_NODE_SWITCH, 0);
		int sp0 = find_desc_prefix(f, "spine00", IBF_NODE_SWITCH, 0);
		int sp2 = find_desc_prefix(f, "spine02", IBF_NODE_SWITCH, 0);
		int gpu = find_desc_prefix(f, "srv005", IBF_NODE_CA, 2);
		TT_REQUIRE(leaf >= 0 && sp0 >= 0 && sp2 >= 0 && gpu >= 0);
		if (k == 0 || k == 3) {
			cut(f, gpu, -1, 1);	      /* a missing rail cable: the SM gives */
			ibf_port(f, gpu, 1)->lid = 0; /* the port no LID */
		}
		if (k == 1 || k == 3)
			cut(f, leaf, sp0, 2); /* a leaf loses spine 0 */
		if (k == 2 || k == 3)
			cut(f, sp2, -1, 1000); /* a dead spine */
		if (k == 3)
			cut(f, leaf, sp0 + 1 == sp2 ? sp0 : sp0 + 1, 1); /* half a bundle */
		struct ibf_error err = { 0 };
		TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
		struct ibf_routes r;
		struct figures g;
		route_and_check(f, &r, &g);
		TT_REQUIRE(g.done);
		common(&g);
		TT_EQ_INT(g.rr.cross_paths > 0, 1);
		ibf_routes_free(&r);
		ibf_rail_route_report_free(&g.rr);
		ibf_fabric_free(f);
	}
}

/* counts the messages per log level */
static void count_log(void *ctx, int level, const char *msg)
{
	int *n = ctx;
	if (level >= 0 && level <= IBF_LOG_DEBUG)
		n[level]++;
	if (level == IBF_LOG_ERROR)
		printf("# error logged: %s\n", msg);
}

/* a component that is no tree (a ring of three rail switches) still routes,
 * with minimal paths, and says so as information, not as an error */
static void test_not_a_tree(void)
{
	struct ibf_fabric *f = gen(4, 3, 1, 0, 0, 0);
	TT_REQUIRE(f);
	int s[3];
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "rail%02d", i);
		s[i] = find_desc_prefix(f, name, IBF_NODE_SWITCH, 0);
		TT_REQUIRE(s[i] >= 0);
	}
	struct ibf_error err = { 0 };
	int np = f->nodes[s[0]].nports;
	for (int i = 0; i < 3; i++) { /* the last two ports are free */
		int rc = ibf_fabric_connect(f, s[i], np, s[(i + 1) % 3], np - 1, 4, IBF_SPEED_EDR,
					    &err);
		if (rc)
			fprintf(stderr, "# %s\n", err.msg);
		TT_REQUIRE(rc == 0);
	}
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	int nlog[IBF_LOG_DEBUG + 1] = { 0 };
	o.log = count_log;
	o.log_ctx = nlog;
	struct ibf_routes r;
	TT_EQ_INT(ibf_route(f, "hratio", &o, &r, NULL, &err), 0);
	TT_EQ_INT(nlog[IBF_LOG_ERROR], 0);
	TT_CHECK(nlog[IBF_LOG_INFO] > 0); /* "... is not a tree (...); balanced minimal paths" */
	struct ibf_check_report ck;
	TT_EQ_INT(ibf_route_check(f, &r, 0, &ck, &err), 0);
	TT_EQ_INT(ck.ok, ck.pairs);
	TT_EQ_INT(ck.across, 0);
	TT_EQ_INT(ck.max_hops_seen, 1);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

/* avoided spines carry no path when others remain; all avoided: none is */
static void test_avoid(void)
{
	struct ibf_fabric *f = gen(8, 4, 1, 4, 1, 1);
	TT_REQUIRE(f);
	uint64_t sp[4], leaf;
	for (int i = 0; i < 4; i++) {
		int n = find_desc_prefix(f, "spine", IBF_NODE_SWITCH, i);
		TT_REQUIRE(n >= 0);
		sp[i] = f->nodes[n].guid;
	}
	int ln = find_desc_prefix(f, "rail", IBF_NODE_SWITCH, 1);
	TT_REQUIRE(ln >= 0);
	leaf = f->nodes[ln].guid;
	struct {
		uint64_t g[4];
		uint32_t n;
		int avoided; /* spines that must carry nothing: the first n */
	} cases[] = {
		{ { sp[0] }, 1, 1 },
		{ { sp[2], sp[3] }, 2, 2 },
		{ { sp[0], sp[1], sp[2], sp[3] }, 4, 0 }, /* all: nothing avoided */
		{ { leaf, sp[1] }, 2, 0 },		  /* a rail leaf: its GPUs still reached */
		{ { 0x1234 }, 1, 0 },			  /* not in the fabric */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ibf_routes r;
		struct figures g;
		avoid_guids = cases[c].g;
		navoid = cases[c].n;
		route_and_check(f, &r, &g);
		avoid_guids = NULL;
		navoid = 0;
		TT_REQUIRE(g.done);
		TT_EQ_INT(g.ck.unreachable, 0);
		TT_EQ_INT(g.ck.loops, 0);
		TT_EQ_INT(g.rr.cross_failed, 0);
		TT_EQ_INT(g.rr.same_left, 0);
		TT_EQ_INT(g.deadlock_free, 1);
		TT_EQ_INT(g.rr.nspines, 4);
		uint64_t busy = 0, idle = 0;
		for (int i = 0; i < g.rr.nspines; i++) {
			uint64_t guid = f->nodes[f->switches[g.rr.spine_sw[i]]].guid;
			int avoided = 0;
			for (int k = 0; k < cases[c].avoided; k++)
				avoided |= cases[c].g[k] == guid;
			if (c == 3 && guid == sp[1])
				avoided = 1;
			if (avoided)
				idle += g.rr.spine_paths[i];
			else
				busy += g.rr.spine_paths[i] > 0;
		}
		TT_CHECK_MSG(idle == 0, "case %zu: %llu paths over avoided spines", c,
			     (unsigned long long)idle);
		TT_CHECK_MSG(busy == (uint64_t)(4 - cases[c].avoided - (c == 3)),
			     "case %zu: %llu spines busy", c, (unsigned long long)busy);
		ibf_routes_free(&r);
		ibf_rail_route_report_free(&g.rr);
	}
	ibf_fabric_free(f);
}

/* keeps the last message that starts with "hratio: " and names the
 * avoided GUIDs */
static void last_avoid_log(void *ctx, int level, const char *msg)
{
	(void)level;
	if (strstr(msg, "avoided GUIDs"))
		snprintf(ctx, 256, "%s", msg);
}

/* when nothing is left out, the log tells a rail leaf that stays in use
 * (it is a switch of the fabric) from a GUID that is not in the fabric; it
 * used to say "0 of 1 avoided switches in the fabric" for both */
static void test_avoid_log(void)
{
	struct ibf_fabric *f = gen(4, 2, 1, 2, 1, 0);
	TT_REQUIRE(f);
	int ln = find_desc_prefix(f, "rail", IBF_NODE_SWITCH, 0);
	TT_REQUIRE(ln >= 0);
	struct {
		uint64_t g;
		const char *want;
	} cases[] = {
		{ f->nodes[ln].guid, "1 of 1 avoided GUIDs are switches of the fabric, 0 of them left out" },
		{ 0x1234, "0 of 1 avoided GUIDs are switches of the fabric, 0 of them left out" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char msg[256] = "";
		struct ibf_route_opts o;
		ibf_route_opts_default(&o);
		o.avoid = &cases[c].g;
		o.navoid = 1;
		o.log = last_avoid_log;
		o.log_ctx = msg;
		struct ibf_routes r;
		struct ibf_error err = { 0 };
		TT_EQ_INT(ibf_route(f, "hratio", &o, &r, NULL, &err), 0);
		TT_CHECK_MSG(strstr(msg, cases[c].want) != NULL, "case %zu: logged \"%s\"", c, msg);
		ibf_routes_free(&r);
	}
	ibf_fabric_free(f);
}

/* collects every "hratio: " message */
static void all_hratio_log(void *ctx, int level, const char *msg)
{
	(void)level;
	size_t n = strlen(ctx);
	if (strstr(msg, "hratio: ") && n < 1000)
		snprintf((char *)ctx + n, 1024 - n, "%s\n", msg);
}

/* Quantum switches have a SHARP aggregation node on their last port: a CA
 * that shares the switch's system image GUID.  It is part of the spine, not
 * an end port that keeps the spine in use: an avoided spine with one is
 * still left out (it stayed in use, "1 avoided switches have end ports",
 * so on a Quantum fabric no spine could ever be avoided), and the node
 * itself stays reachable (through its own spine only). */
static void test_avoid_spine_with_an(void)
{
	struct ibf_fabric *f = gen(8, 4, 1, 4, 1, 1);
	TT_REQUIRE(f);
	uint64_t sp[4];
	for (int i = 0; i < 4; i++) {
		int n = find_desc_prefix(f, "spine", IBF_NODE_SWITCH, i);
		TT_REQUIRE(n >= 0);
		sp[i] = f->nodes[n].guid;
		int free_p = 0;
		for (int p = f->nodes[n].nports; p >= 1 && !free_p; p--)
			if (ibf_port(f, n, p)->peer_node == IBF_NO_NODE)
				free_p = p;
		TT_REQUIRE(free_p > 0);
		int an = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x7e57000000000100ull + (uint64_t)i,
					     "Mellanox Technologies Aggregation Node", NULL, NULL);
		TT_REQUIRE(an >= 0);
		f->nodes[an].sysimg_guid = sp[i];
		TT_REQUIRE(ibf_fabric_connect(f, an, 1, n, free_p, 4, IBF_SPEED_EDR, NULL) == 0);
	}
	struct ibf_error err = { 0 };
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	TT_REQUIRE(ibf_assign_lids(f, 1, 0, &err) == 0);
	char msg[1024] = "";
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	o.avoid = &sp[0];
	o.navoid = 1;
	o.log = all_hratio_log;
	o.log_ctx = msg;
	struct ibf_routes r;
	TT_REQUIRE(ibf_route(f, "hratio", &o, &r, NULL, &err) == 0);
	TT_CHECK_MSG(strstr(msg, "hratio: avoiding 1 switches") && !strstr(msg, "stay in use"),
		     "%s", msg);
	struct ibf_check_report ck;
	TT_EQ_INT(ibf_route_check(f, &r, 0, &ck, &err), 0);
	TT_EQ_INT(ck.unreachable, 0);
	TT_EQ_INT(ck.loops, 0);
	struct ibf_rail_info ri;
	struct ibf_rail_route_report rr;
	TT_REQUIRE(ibf_rail_detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.in_switch, 4);
	TT_EQ_INT(ibf_rail_route_check(f, NULL, &ri, &r, &rr, &err), 0);
	TT_EQ_INT(rr.nspines, 4);
	for (int i = 0; i < rr.nspines; i++)
		if (f->nodes[f->switches[rr.spine_sw[i]]].guid == sp[0])
			TT_CHECK_MSG(rr.spine_paths[i] == 0, "%llu paths over the avoided spine",
				     (unsigned long long)rr.spine_paths[i]);
	ibf_rail_route_report_free(&rr);
	ibf_rail_info_free(&ri);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

int main(void)
{
	TT(test_avoid);
	TT(test_avoid_log);
	TT(test_avoid_spine_with_an);
	TT(test_rail_only);
	TT(test_rail_optimized);
	TT(test_damaged);
	TT(test_not_a_tree);
	return tt_done();
}
