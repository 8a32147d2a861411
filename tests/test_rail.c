/* Unit tests for the h-ratio path decision (rail/decide.c). */
#include "ibf_rail.h"
#include "ibf_fattree.h"
#include "tt.h"

#include <unistd.h>

#include <stdint.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

static struct ibf_fabric *gen(int m, int k, int r, int sp)
{
	struct ibf_rail_opts o = { 0 };
	o.servers = m;
	o.gpus = k;
	o.rail_switches = r;
	o.spines = sp;
	struct ibf_error err = { 0 };
	struct ibf_fabric *f = ibf_gen_rail(&o, &err);
	if (f && !f->finalized)
		ibf_fabric_finalize(f, &err);
	return f;
}

static int detect(struct ibf_fabric *f, const char *maptext, struct ibf_rail_info *ri,
		  struct ibf_error *err)
{
	struct ibf_rail_map *m = NULL;
	if (maptext && !(m = ibf_rail_map_parse(maptext, strlen(maptext), "map", err)))
		return -1;
	int rc = ibf_rail_detect(f, m, ri, err);
	ibf_rail_map_free(m);
	return rc;
}

static void test_structure_generated(void)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_fabric *f = gen(6, 4, 2, 3);
	TT_REQUIRE(f);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.ngpus, 24);
	TT_EQ_INT(ri.ndomains, 6);
	TT_EQ_INT(ri.nrails, 4);
	TT_EQ_INT(ri.nspines, 3);
	TT_EQ_INT(ri.rail_components, 8); /* 2 leaves per rail, joined only by spines */
	TT_EQ_INT(ri.missing + ri.doubled + ri.mismatched + ri.unattached, 0);
	for (int g = 0; g < ri.ngpus; g++)
		TT_EQ_INT(ri.gpu[g].rail, g % 4);
	TT_EQ_INT(ibf_rail_multi_gpu_domains(&ri), 6);
	ibf_rail_info_free(&ri);
	/* rail-only */
	ibf_fabric_free(f);
	f = gen(5, 3, 1, 0);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.nrails, 3);
	TT_EQ_INT(ri.nspines, 0);
	TT_EQ_INT(ri.rail_components, 3);
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
}

static void test_structure_damaged(void)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_fabric *f = gen(4, 4, 1, 2);
	TT_REQUIRE(f);
	/* a missing rail cable: srv002's GPU 1 */
	int n = ibf_fabric_find_id(f, "srv002-mlx5_1");
	TT_REQUIRE(n >= 0);
	ibf_fabric_disconnect(f, n, 1);
	/* srv001 without host names (no rdma-ndd): its domain comes from the
	 * system image GUID, its rails from the rank of its NICs; srv000 keeps
	 * the name on one NIC only, the others find it by system image GUID */
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == IBF_NODE_CA && f->nodes[i].desc &&
		    (!strncmp(f->nodes[i].desc, "srv001 ", 7) ||
		     (!strncmp(f->nodes[i].desc, "srv000 ", 7) &&
		      strcmp(f->nodes[i].desc, "srv000 mlx5_2")))) {
			free(f->nodes[i].desc);
			f->nodes[i].desc = NULL;
		}
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.ngpus, 15);
	TT_EQ_INT(ri.nrails, 4);
	TT_EQ_INT(ri.ndomains, 4);
	TT_EQ_INT(ri.missing, 1);
	TT_EQ_INT(ri.doubled, 0);
	TT_EQ_INT(ri.mismatched, 0);
	TT_CHECK(!strcmp(ri.domain[ri.gpu[0].domain], "srv000"));
	ibf_rail_info_free(&ri);
	/* the map moves srv001's GPU 2 onto rail 3 and renames a domain */
	TT_REQUIRE(detect(f, "# moves\n \"srv002 mlx5_2\" srv002 3\n\"srv003 mlx5_0\" box3 -\n",
			  &ri, &err) == 0);
	TT_EQ_INT(ri.ndomains, 5); /* box3 holds one NIC of srv003 */
	TT_EQ_INT(ri.doubled, 1);
	TT_EQ_INT(ri.missing, 1 + 1 + 3 + 1); /* srv002: rails 1, 2; box3: 1-3; srv003: 0 */
	ibf_rail_info_free(&ri);
	/* a missing spine changes nothing about rails */
	ibf_fabric_free(f);
	f = gen(4, 4, 1, 2);
	int sp = ibf_fabric_find_desc(f, "spine01");
	TT_REQUIRE(sp >= 0);
	for (int p = 1; p <= f->nodes[sp].nports; p++)
		ibf_fabric_disconnect(f, sp, p);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.nrails, 4);
	TT_EQ_INT(ri.nspines, 1);
	TT_EQ_INT(ri.missing + ri.doubled + ri.mismatched, 0);
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
}

/* A rail fabric whose adapters are all gone (no cable left on any): no
 * GPU, and detection says so instead of sorting a GPU list that was never
 * allocated (UBSan: null pointer passed to qsort; `ibfab rail info` on the
 * QA sweep's switches-only rail fabrics) */
static void test_structure_no_gpus(void)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_fabric *f = gen(4, 4, 1, 2);
	TT_REQUIRE(f);
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type != IBF_NODE_SWITCH)
			for (int p = 1; p <= f->nodes[i].nports; p++)
				ibf_fabric_disconnect(f, (int)i, p);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.ngpus, 0);
	TT_EQ_INT(ri.missing + ri.doubled + ri.mismatched + ri.unattached, 0);
	TT_EQ_INT(ri.nrails, 0); /* rails are what GPUs label */
	TT_EQ_INT(ri.nspines, 0);
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
}

/* A router cabled to a rail leaf (an IB router joining subnets, `Rt` in
 * ibnetdiscover) is no server's NIC: it was a GPU of a domain of its own
 * that "reached another rail" and missed the others; it is left out and
 * counted apart, and the map may still name it as a GPU. */
static void test_structure_router(void)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_rail_opts o = { 4, 4, 1, 2, 0, 16 };
	struct ibf_fabric *f = ibf_gen_rail(&o, &err);
	TT_REQUIRE(f);
	int leaf = -1;
	for (uint32_t i = 0; i < f->nnodes && leaf < 0; i++) {
		const struct ibf_node *nd = &f->nodes[i];
		for (int p = 1; nd->type == IBF_NODE_SWITCH && p <= nd->nports; p++) {
			int pn = ibf_port(f, (int)i, p)->peer_node;
			if (pn != IBF_NO_NODE && f->nodes[pn].desc &&
			    !strcmp(f->nodes[pn].desc, "srv000 mlx5_2"))
				leaf = (int)i;
		}
	}
	TT_REQUIRE(leaf >= 0);
	int free_port = 0;
	for (int p = f->nodes[leaf].nports; p >= 1 && !free_port; p--)
		if (ibf_port(f, leaf, p)->peer_node == IBF_NO_NODE)
			free_port = p;
	TT_REQUIRE(free_port > 0);
	int rt = ibf_fabric_add_node(f, IBF_NODE_ROUTER, 2, 0x0008f10500000100ull, "ib-router-1",
				     "R-0008f10500000100", &err);
	TT_REQUIRE(rt >= 0);
	f->nodes[rt].sysimg_guid = 0x0008f10500000100ull;
	ibf_port(f, rt, 1)->guid = 0x0008f10500000101ull;
	TT_REQUIRE(ibf_fabric_connect(f, rt, 1, leaf, free_port, 4, 0, &err) == 0);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.ngpus, 16);
	TT_EQ_INT(ri.ndomains, 4);
	TT_EQ_INT(ri.nrails, 4);
	TT_EQ_INT(ri.routers, 1);
	TT_EQ_INT(ri.in_switch, 0);
	TT_EQ_INT(ri.missing + ri.doubled + ri.mismatched + ri.unattached, 0);
	TT_EQ_INT(ri.gpu_of_node[rt], -1);
	ibf_rail_info_free(&ri);
	/* named by the map: a GPU of the domain the map gives */
	TT_REQUIRE(detect(f, "\"ib-router-1\" gw 2\n", &ri, &err) == 0);
	TT_EQ_INT(ri.ngpus, 17);
	TT_EQ_INT(ri.ndomains, 5);
	TT_EQ_INT(ri.routers, 0);
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
}

/* CAs whose GUIDs are unknown (0, as `ibnetdiscover -s -p` leaves node and
 * system image GUIDs) and whose descriptions name no host: each is its own
 * domain, never one "guid-0x0" domain of all of them. */
static void test_structure_unknown_guids(void)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_fabric *f = gen(3, 2, 1, 1);
	TT_REQUIRE(f);
	int k = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		struct ibf_node *nd = &f->nodes[i];
		if (nd->type != IBF_NODE_CA)
			continue;
		nd->guid = nd->sysimg_guid = 0;
		free(nd->desc);
		nd->desc = strdup("MT25408 ConnectX Mellanox Technologies");
		if (k++ == 0) /* the first one without any GUID at all */
			ibf_port(f, (int)i, 1)->guid = 0;
	}
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.ngpus, 6);
	TT_EQ_INT(ri.ndomains, 6);
	TT_EQ_INT(ri.doubled, 0);
	int port = 0, node = 0;
	for (int d = 0; d < ri.ndomains; d++) {
		port += !strncmp(ri.domain[d], "port-0x", 7);
		node += !strncmp(ri.domain[d], "node-", 5);
	}
	TT_EQ_INT(port, 5);
	TT_EQ_INT(node, 1);
	TT_EQ_INT(ibf_rail_multi_gpu_domains(&ri), 0); /* one NIC per domain: no rails */
	ibf_rail_info_free(&ri);
	ibf_fabric_free(f);
}

/* A GPU NIC cabled off its rail is told with the switch port its cable
 * reaches: two NICs of srv001 swapped between rails 0 and 3, then one on a
 * spine. */
static void test_structure_misfit(void)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_fabric *f = gen(4, 4, 1, 2);
	TT_REQUIRE(f);
	int a = ibf_fabric_find_desc(f, "srv001 mlx5_0"), b = ibf_fabric_find_desc(f, "srv001 mlx5_3");
	TT_REQUIRE(a >= 0 && b >= 0);
	struct ibf_port pa = *ibf_port(f, a, 1), pb = *ibf_port(f, b, 1);
	ibf_fabric_disconnect(f, a, 1);
	ibf_fabric_disconnect(f, b, 1);
	TT_REQUIRE(ibf_fabric_connect(f, a, 1, pb.peer_node, pb.peer_port, pa.width, pa.speed,
				      &err) == 0);
	TT_REQUIRE(ibf_fabric_connect(f, b, 1, pa.peer_node, pa.peer_port, pb.width, pb.speed,
				      &err) == 0);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
	TT_EQ_INT(ri.mismatched, 2);
	char buf[256], want[160];
	int off = 0;
	for (int g = 0; g < ri.ngpus; g++)
		off += ibf_rail_gpu_misfit(f, &ri, g, NULL, 0);
	TT_EQ_INT(off, 2);
	int ga = ri.gpu_of_node[a];
	TT_EQ_INT(ibf_rail_gpu_misfit(f, &ri, ga, buf, sizeof(buf)), 1);
	snprintf(want, sizeof(want),
		 "reaches another rail: cabled to rail03-l00 port %d (rail 3), its device index is "
		 "rail 0's",
		 pb.peer_port);
	TT_CHECK_MSG(!strcmp(buf, want), "%s", buf);
	int ok = ri.gpu_of_node[ibf_fabric_find_desc(f, "srv002 mlx5_1")];
	TT_EQ_INT(ibf_rail_gpu_misfit(f, &ri, ok, buf, sizeof(buf)), 0);
	TT_CHECK(buf[0] == '\0');
	ibf_rail_info_free(&ri);
	/* srv002's mlx5_1 on spine00's last port (its cable to a rail leaf
	 * pulled: the generated spines have no free port) */
	int c = ibf_fabric_find_desc(f, "srv002 mlx5_1"), sp = ibf_fabric_find_desc(f, "spine00");
	TT_REQUIRE(c >= 0 && sp >= 0);
	struct ibf_port pc = *ibf_port(f, c, 1);
	int free_port = f->nodes[sp].nports;
	ibf_fabric_disconnect(f, sp, free_port);
	{
		ibf_fabric_disconnect(f, c, 1);
		TT_REQUIRE(ibf_fabric_connect(f, c, 1, sp, free_port, pc.width, pc.speed, &err) ==
			   0);
		TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
		TT_REQUIRE(detect(f, NULL, &ri, &err) == 0);
		TT_EQ_INT(ri.mismatched, 3);
		TT_EQ_INT(ibf_rail_gpu_misfit(f, &ri, ri.gpu_of_node[c], buf, sizeof(buf)), 1);
		snprintf(want, sizeof(want),
			 "cabled to spine00 port %d, a spine, not to a rail switch (counted on rail 1 "
			 "by its device index)",
			 free_port);
		TT_CHECK_MSG(!strcmp(buf, want), "%s", buf);
		ibf_rail_info_free(&ri);
	}
	ibf_fabric_free(f);
}

static void test_map_errors(void)
{
	static const struct {
		const char *text;
		long line;
	} bad[] = {
		{ "a d 1\n\"unterminated d 1\n", 2 },
		{ "\n\n0x12\n", 3 },
		{ "x d 4096\n", 1 },
		{ "x d 1 extra\n", 1 },
		{ "x d 1\ny e\nx f 2\n", 3 },
		{ "0x0 d 1\n", 1 },
		{ "\"\" d\n", 1 },
		{ "x d 1z\n", 1 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibf_error err = { 0 };
		struct ibf_rail_map *m =
			ibf_rail_map_parse(bad[i].text, strlen(bad[i].text), "m", &err);
		TT_CHECK_MSG(!m, "case %zu parsed", i);
		TT_EQ_INT(err.line, bad[i].line);
		TT_CHECK(!strcmp(err.file, "m"));
		ibf_rail_map_free(m);
	}
	/* a selector matching nothing (a server that is off) is skipped and
	 * counted with its line: the rest of the map still applies */
	struct ibf_fabric *f = gen(2, 2, 1, 0);
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	TT_REQUIRE(detect(f, "nosuch0 b 1\nsrv000-mlx5_0 a 0\nnosuch b 1\n", &ri, &err) == 0);
	TT_EQ_INT(ri.unmatched, 2);
	TT_EQ_INT(ri.unmatched_line, 1);
	int named_a = 0;
	for (int d = 0; d < ri.ndomains; d++)
		named_a += !strcmp(ri.domain[d], "a");
	TT_EQ_INT(named_a, 1);
	ibf_rail_info_free(&ri);
	TT_REQUIRE(detect(f, "srv000-mlx5_0 a 0\n", &ri, &err) == 0);
	TT_EQ_INT(ri.unmatched, 0);
	ibf_rail_info_free(&ri);
	/* a switch is an error at its line */
	TT_CHECK(detect(f, "\"rail00-l00\" a 0\n", &ri, &err) != 0);
	TT_EQ_INT(err.line, 1);
	/* a selector that fits several nodes is an error at its line naming
	 * them by GUID, lowest first (it applied to the first in node order):
	 * two CAs of one description, two of one node GUID */
	int cas[2], k = 0;
	for (uint32_t i = 0; i < f->nnodes && k < 2; i++)
		if (f->nodes[i].type == IBF_NODE_CA)
			cas[k++] = (int)i;
	TT_REQUIRE(k == 2);
	for (int j = 0; j < 2; j++) {
		free(f->nodes[cas[j]].desc);
		f->nodes[cas[j]].desc = strdup("MT4123 ConnectX6");
	}
	char want[160];
	uint64_t g0 = f->nodes[cas[0]].guid, g1 = f->nodes[cas[1]].guid;
	snprintf(want, sizeof(want),
		 "2 nodes of the fabric have this description (0x%016" PRIx64 " and 0x%016" PRIx64
		 "): a line maps one CA; name each by its GUID",
		 g0 < g1 ? g0 : g1, g0 < g1 ? g1 : g0);
	TT_CHECK(detect(f, "# shared\n\"MT4123 ConnectX6\" a 0\n", &ri, &err) != 0);
	TT_EQ_INT(err.line, 2);
	TT_CHECK_MSG(strstr(err.msg, want) != NULL, "%s", err.msg);
	/* ... the same CAs by GUID are fine */
	char map[96];
	snprintf(map, sizeof(map), "0x%016" PRIx64 " a 0\n0x%016" PRIx64 " b 1\n", g0, g1);
	TT_REQUIRE(detect(f, map, &ri, &err) == 0);
	TT_EQ_INT(ri.unmatched, 0);
	ibf_rail_info_free(&ri);
	f->nodes[cas[1]].guid = g0;
	ibf_fabric_index_guids(f);
	snprintf(map, sizeof(map), "0x%016" PRIx64 " a 0\n", g0);
	TT_CHECK(detect(f, map, &ri, &err) != 0);
	TT_EQ_INT(err.line, 1);
	TT_CHECK_MSG(strstr(err.msg, "2 nodes of the fabric have this GUID") != NULL, "%s", err.msg);
	ibf_fabric_free(f);
}

static int decide(const int *rail, int nr, const int *dom, int nd, int d1, int g1, int d2, int g2,
		  int prefer_rd, struct ibf_rail_choice *c)
{
	struct ibf_rail_scores s = { nr, nd, rail, dom, 100 };
	return ibf_rail_decide(&s, d1, g1, d2, g2, prefer_rd, c);
}

static void test_same_domain_and_rail(void)
{
	int rail[4] = { 100, 100, 100, 100 }, dom[2] = { 100, 100 };
	struct ibf_rail_choice c;
	TT_EQ_INT(decide(rail, 4, dom, 2, 1, 0, 1, 3, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_D);
	TT_EQ_INT(decide(rail, 4, dom, 2, 0, 2, 1, 2, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_R);
	TT_EQ_INT(c.via_rail, 2);
}

static void test_gamma_rule(void)
{
	/* source rail congested: gamma(src) < gamma(dst) -> dr */
	int rail[2] = { 40, 90 }, dom[2] = { 80, 80 };
	struct ibf_rail_choice c;
	TT_EQ_INT(decide(rail, 2, dom, 2, 0, 0, 1, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_DR);
	TT_CHECK(c.gamma_src < c.gamma_dst);
	/* destination domain busy: rd crosses it, dr crosses the idle d1 */
	int rail2[2] = { 100, 100 }, dom2[2] = { 100, 30 };
	TT_EQ_INT(decide(rail2, 2, dom2, 2, 0, 0, 1, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_DR);
	TT_EQ_INT(decide(rail2, 2, dom2, 2, 1, 0, 0, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_RD);
}

static void test_ties_and_extremes(void)
{
	int rail[2] = { 100, 100 }, dom[2] = { 100, 100 };
	struct ibf_rail_choice c;
	TT_EQ_INT(decide(rail, 2, dom, 2, 0, 0, 1, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_RD);
	TT_EQ_INT(decide(rail, 2, dom, 2, 0, 0, 1, 1, 0, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_DR);
	/* everything blocked: scores 0, tie -> default, no remote */
	int z[3] = { 0, 0, 0 }, zd[2] = { 0, 0 };
	TT_EQ_INT(decide(z, 3, zd, 2, 0, 0, 1, 1, 0, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_DR);
	TT_CHECK(c.score == 0);
	/* a zero domain score: gamma is infinite, the product still decides */
	int r3[2] = { 50, 50 }, d3[2] = { 0, 100 };
	TT_EQ_INT(decide(r3, 2, d3, 2, 0, 0, 1, 1, 0, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_RD);
	TT_CHECK(c.score == 0.5);
	/* out of range */
	TT_EQ_INT(decide(rail, 2, dom, 2, 0, 0, 2, 1, 0, &c), -1);
	TT_EQ_INT(decide(rail, 2, dom, 2, 0, -1, 1, 1, 0, &c), -1);
}

static void test_missing_entries(void)
{
	int rail[2] = { -1, 60 }, dom[2] = { 100, 100 };
	struct ibf_rail_scores s = { 2, 2, rail, dom, 100 };
	struct ibf_rail_choice c;
	TT_EQ_INT(ibf_rail_decide(&s, 0, 0, 1, 1, 0, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_RD); /* unknown rail 0 counts as 100 */
	s.dflt = 0;
	TT_EQ_INT(ibf_rail_decide(&s, 0, 0, 1, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_DR); /* unknown counts as blocked */
}

static void test_remote_rail(void)
{
	int rail[4] = { 20, 30, 95, 90 }, dom[2] = { 100, 100 };
	struct ibf_rail_choice c;
	TT_EQ_INT(decide(rail, 4, dom, 2, 0, 0, 1, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_REMOTE);
	TT_EQ_INT(c.via_rail, 2);
	TT_CHECK(c.remote > c.rd && c.remote > c.dr);
	/* equal to the best local path: local wins */
	int rail2[3] = { 50, 20, 50 };
	TT_EQ_INT(decide(rail2, 3, dom, 2, 0, 0, 1, 1, 1, &c), 0);
	TT_EQ_INT(c.path, IBF_RAIL_RD);
}

/* property: the chosen score is never below any alternative's */
static void test_property(void)
{
	uint64_t st = 12345;
	for (int it = 0; it < 20000; it++) {
		int rail[8], dom[4];
		for (int i = 0; i < 8; i++) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			rail[i] = (int)((st >> 33) % 103) - 1; /* -1..101 */
		}
		for (int i = 0; i < 4; i++) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			dom[i] = (int)((st >> 33) % 103) - 1;
		}
		int d1 = it % 4, d2 = (it / 4) % 4, g1 = (it / 16) % 8, g2 = (it / 128) % 8;
		struct ibf_rail_scores s = { 8, 4, rail, dom, it % 101 };
		struct ibf_rail_choice c;
		TT_REQUIRE(ibf_rail_decide(&s, d1, g1, d2, g2, it & 1, &c) == 0);
		if (d1 == d2 || g1 == g2)
			continue;
		TT_CHECK(c.score >= c.rd && c.score >= c.dr && c.score >= c.remote);
		double h1 = (dom[d1] < 0 ? s.dflt : dom[d1] > 100 ? 100 : dom[d1]) / 100.0;
		double h2 = (dom[d2] < 0 ? s.dflt : dom[d2] > 100 ? 100 : dom[d2]) / 100.0;
		for (int g = 0; g < 8; g++) {
			if (g == g1 || g == g2)
				continue;
			double hg = (rail[g] < 0 ? s.dflt : rail[g] > 100 ? 100 : rail[g]) / 100.0;
			TT_CHECK(c.score >= h1 * hg * h2);
		}
	}
}

/* the registry: round trip through the file, stale and missing entries
 * fall back to the default path, d/r need no scores, bad documents */
static void test_registry(void)
{
	struct ibf_rail_registry r;
	struct ibf_error err;
	ibf_rail_registry_init(&r);
	TT_REQUIRE(!ibf_rail_registry_set_rail(&r, 3, 100) &&
		   !ibf_rail_registry_set_rail(&r, 1, 30) &&
		   !ibf_rail_registry_set_rail(&r, 2, 140) &&
		   !ibf_rail_registry_set_domain(&r, "a", 100) &&
		   !ibf_rail_registry_set_domain(&r, "b", 50));
	TT_CHECK(r.nrails == 3 && r.rail_label[0] == 1 && r.rail_label[2] == 3 &&
		 r.rail_score[1] == 100);
	r.timestamp = 1000;
	r.max_age = 60;
	r.prefer_rd = 0;
	char path[] = "/tmp/ibfab-test-reg-XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	close(fd);
	TT_REQUIRE(!ibf_rail_registry_write(path, &r, &err));
	struct ibf_rail_registry q;
	TT_REQUIRE(!ibf_rail_registry_read(path, &q, &err));
	TT_CHECK(q.timestamp == 1000 && q.max_age == 60 && !q.prefer_rd && q.nrails == 3 &&
		 q.ndomains == 2 && q.rail_score[0] == 30 && q.domain_score[1] == 50 &&
		 !strcmp(q.domain[1], "b"));
	struct ibf_rail_decision x;
	/* a:1 -> b:3: rd = H(1) H(b) = 0.15, dr = H(a) H(3) = 1: dr via rail 3 */
	TT_CHECK(!ibf_rail_registry_decide(&q, 1030, "a", 1, "b", 3, &x));
	TT_CHECK(x.c.path == IBF_RAIL_DR && x.c.via_rail == 3 && !x.fallback && x.c.score == 1.0);
	/* remote rail 2 (score 100) on a:1 -> b:1? same rail: r */
	TT_CHECK(!ibf_rail_registry_decide(&q, 1030, "a", 1, "b", 1, &x) && x.c.path == IBF_RAIL_R);
	TT_CHECK(!ibf_rail_registry_decide(&q, 1030, "a", 1, "a", 3, &x) && x.c.path == IBF_RAIL_D);
	/* stale: the default (dr here) */
	TT_CHECK(!ibf_rail_registry_decide(&q, 2000, "b", 3, "a", 1, &x));
	TT_CHECK(x.stale && x.fallback && x.c.path == IBF_RAIL_DR && x.c.via_rail == 1);
	/* a host the registry does not know */
	TT_CHECK(!ibf_rail_registry_decide(&q, 1030, "zz", 3, "a", 1, &x));
	TT_CHECK(x.missing && x.fallback && x.c.path == IBF_RAIL_DR);
	ibf_rail_registry_free(&q);
	ibf_rail_registry_free(&r);
	remove(path);
	static const struct {
		const char *text;
		long line;
		const char *msg;
	} bad[] = {
		{ "[]", 1, "not a JSON object" },
		{ "{\"version\": 2}", 1, "version" },
		{ "{\"version\": 1,\n \"rails\": {\"x\": 5}}", 2, "by its number" },
		{ "{\"version\": 1,\n \"rails\": {\"1\": 101}}", 2, "0..100" },
		{ "{\"version\": 1,\n\n \"domains\": {\"h\": 2.5}}", 3, "0..100" },
		{ "{\"version\": 1, \"default_path\": \"xy\"}", 1, "rd" },
		{ "{\"version\": 1, \"rails\": [1]}", 1, "map names" },
		{ "{\"version\": 1", 1, "expected ','" },
		{ "{\"version\": 1,\n \"rails\": {\"0\": 50,\n \"00\": 20}}", 3, "rail 0 is listed twice" },
		{ "{\"version\": 1, \"domains\": {\"a\": 50,\n\n \"a\": 20}}", 3,
		  "domain \"a\" is listed twice" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int rc = ibf_rail_registry_parse(bad[k].text, strlen(bad[k].text), "reg.json", &q,
						 &err);
		TT_CHECK_MSG(rc && err.line == bad[k].line && strstr(err.msg, bad[k].msg),
			     "case %zu: rc %d line %ld: %s", k, rc, err.line, err.msg);
	}
}

/* hratio: every GPU pair in one switch component is delivered and pairs of
 * one rail never leave it (every switch on the path is in the pair's rail);
 * pairs across components are counted apart; damage falls back to minimal
 * and still delivers */
static void hratio_check(struct ibf_fabric *f, int lmc, const char *what, int in_rail)
{
	struct ibf_error err = { 0 };
	TT_REQUIRE(ibf_assign_lids(f, lmc, 0, &err) == 0);
	struct ibf_routes r;
	struct ibf_route_opts o;
	struct ibf_route_report rep;
	ibf_route_opts_default(&o);
	int rc = ibf_route(f, "hratio", &o, &r, &rep, &err);
	TT_CHECK_MSG(rc == 0, "%s: %s", what, err.msg);
	if (rc)
		return;
	struct ibf_check_report ck;
	TT_REQUIRE(ibf_route_check(f, &r, 0, &ck, &err) == 0);
	TT_CHECK_MSG(ck.ok + ck.across == ck.pairs && !ck.loops && !ck.wrong && !ck.unreachable,
		     "%s: ok %llu across %llu of %llu", what, (unsigned long long)ck.ok,
		     (unsigned long long)ck.across, (unsigned long long)ck.pairs);
	struct ibf_rail_info ri;
	TT_REQUIRE(ibf_rail_detect(f, NULL, &ri, &err) == 0);
	/* same-rail paths, traced by the library's rail check (ibfab rail check) */
	struct ibf_rail_route_report rr;
	TT_REQUIRE(ibf_rail_route_check(f, NULL, &ri, &r, &rr, &err) == 0);
	TT_CHECK_MSG(!rr.same_failed && !rr.same_left &&
			     (!in_rail || (rr.same_paths && rr.same_confinable == rr.same_paths)),
		     "%s: same-rail paths %llu, not delivered %llu, confinable %llu, leave their "
		     "rail %llu",
		     what, (unsigned long long)rr.same_paths, (unsigned long long)rr.same_failed,
		     (unsigned long long)rr.same_confinable, (unsigned long long)rr.same_left);
	ibf_rail_route_report_free(&rr);
	ibf_rail_info_free(&ri);
	ibf_routes_free(&r);
}

/* the node whose description is d, -1 when none */
static int node_named(const struct ibf_fabric *f, const char *d)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].desc && !strcmp(f->nodes[i].desc, d))
			return (int)i;
	return -1;
}

/* f with LMC 1 LIDs routed by hratio into *r, and the copy of f hratio
 * routes on into *lean (NULL: f itself) */
static int hratio_lean(struct ibf_fabric *f, struct ibf_routes *r, struct ibf_fabric **lean)
{
	struct ibf_error err = { 0 };
	struct ibf_route_opts o;
	struct ibf_route_report rep;
	ibf_route_opts_default(&o);
	if (ibf_assign_lids(f, 1, 0, &err) || ibf_route(f, "hratio", &o, r, &rep, &err))
		return -1;
	if (ibf_route_lean(f, "hratio", NULL, lean, &err)) {
		ibf_routes_free(r);
		return -1;
	}
	return 0;
}

/* rail check on the cables the engine routes on: rail02-l00's cable to
 * spine00 at 1xSDR (EDR elsewhere) is routed by hratio as if lost, so the
 * layers of rail 2's cross-rail pairs share spine01.  Judged on every cable
 * (NULL), half the pairs miss distinct spines (the figure rail check used
 * to give); judged on ibf_route_lean's copy, all have as many as the leaves
 * reach, and the paths are counted alike. */
static void test_route_check_slow(void)
{
	struct ibf_fabric *f = gen(8, 4, 1, 2);
	TT_REQUIRE(f);
	struct ibf_error err = { 0 };
	int leaf = node_named(f, "rail02-l00"), sp = node_named(f, "spine00"), port = 0;
	TT_REQUIRE(leaf >= 0 && sp >= 0);
	for (int p = 1; p <= f->nodes[leaf].nports && !port; p++)
		if (ibf_port(f, leaf, p)->peer_node == sp)
			port = p;
	TT_REQUIRE(port > 0);
	struct ibf_port *x = ibf_port(f, leaf, port), *y = ibf_port(f, sp, x->peer_port);
	x->width = y->width = 1;
	x->speed = y->speed = IBF_SPEED_SDR;
	struct ibf_routes r;
	struct ibf_fabric *lean = NULL;
	TT_REQUIRE(hratio_lean(f, &r, &lean) == 0);
	TT_REQUIRE(lean);
	TT_CHECK(ibf_port(lean, leaf, port)->peer_node == IBF_NO_NODE);
	struct ibf_rail_info ri;
	TT_REQUIRE(ibf_rail_detect(f, NULL, &ri, &err) == 0);
	struct ibf_rail_route_report all, used;
	TT_REQUIRE(ibf_rail_route_check(f, NULL, &ri, &r, &all, &err) == 0);
	TT_REQUIRE(ibf_rail_route_check(f, lean, &ri, &r, &used, &err) == 0);
	TT_EQ_INT((int)all.lmc_pairs, 672);
	TT_EQ_INT((int)all.lmc_distinct, 336);
	TT_EQ_INT((int)used.lmc_pairs, 672);
	TT_EQ_INT((int)used.lmc_distinct, 672);
	TT_CHECK(used.same_paths == all.same_paths && used.cross_paths == all.cross_paths &&
		 !used.same_failed && !used.cross_failed && !used.same_left);
	ibf_rail_route_report_free(&all);
	ibf_rail_route_report_free(&used);
	/* a fabric that is no copy of f: an error, not a figure */
	struct ibf_fabric *g = gen(8, 4, 1, 1);
	TT_REQUIRE(g);
	TT_CHECK(ibf_rail_route_check(f, g, &ri, &r, &used, &err) != 0);
	ibf_fabric_free(g);
	ibf_rail_info_free(&ri);
	ibf_fabric_free(lean);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
}

/* rail check and hratio with a cable joining two leaves of one rail: at
 * full rate rail 0's pairs on its two leaves are confinable and hratio keeps
 * them in the rail (over that cable); at 1xSDR (EDR elsewhere) hratio
 * routes the cable as if lost, so judged on the cables it routes on those
 * pairs are not confinable and none reads as leaving its rail, while judged
 * on every cable they do (what rail check said before it asked the engine);
 * every path is delivered either way. */
static void test_route_check_slow_leaf_leaf(void)
{
	for (int slow = 0; slow <= 1; slow++) {
		struct ibf_rail_opts ro = { 0 };
		ro.servers = 8;
		ro.gpus = 2;
		ro.rail_switches = 2;
		ro.spines = 2;
		ro.switch_ports = 8;
		struct ibf_error err = { 0 };
		struct ibf_fabric *f = ibf_gen_rail(&ro, &err);
		TT_REQUIRE(f);
		int a = node_named(f, "rail00-l00"), b = node_named(f, "rail00-l01"), pa = 0, pb = 0;
		TT_REQUIRE(a >= 0 && b >= 0);
		for (int p = f->nodes[a].nports; p >= 1 && !pa; p--)
			if (ibf_port(f, a, p)->peer_node == IBF_NO_NODE)
				pa = p;
		for (int p = f->nodes[b].nports; p >= 1 && !pb; p--)
			if (ibf_port(f, b, p)->peer_node == IBF_NO_NODE)
				pb = p;
		TT_REQUIRE(pa > 0 && pb > 0);
		TT_REQUIRE(ibf_fabric_connect(f, a, pa, b, pb, slow ? 1 : 4,
					      slow ? IBF_SPEED_SDR : IBF_SPEED_EDR, &err) == 0);
		TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
		struct ibf_routes r;
		struct ibf_fabric *lean = NULL;
		TT_REQUIRE(hratio_lean(f, &r, &lean) == 0);
		/* NULL: the engine routes f itself (nothing left out) */
		TT_CHECK(slow ? lean && ibf_port(lean, a, pa)->peer_node == IBF_NO_NODE : !lean);
		struct ibf_rail_info ri;
		TT_REQUIRE(ibf_rail_detect(f, NULL, &ri, &err) == 0);
		TT_EQ_INT(ri.nrails, 2);
		struct ibf_rail_route_report all, used;
		TT_REQUIRE(ibf_rail_route_check(f, NULL, &ri, &r, &all, &err) == 0);
		TT_REQUIRE(ibf_rail_route_check(f, lean, &ri, &r, &used, &err) == 0);
		/* LMC 1: two paths per pair.  Same-rail pairs of different
		 * servers: 2 rails x 8 x 7 = 112 */
		TT_EQ_INT((int)all.same_paths, 224);
		TT_CHECK(!all.same_failed && !all.cross_failed && !used.same_failed &&
			 !used.cross_failed);
		/* pairs within a leaf: 2 rails x 2 leaves x 4 x 3 = 48; rail
		 * 0's across its two leaves: 2 x 4 x 4 = 32 more when the
		 * cable joins them */
		TT_EQ_INT((int)used.same_confinable, 2 * (slow ? 48 : 80));
		TT_EQ_INT((int)all.same_confinable, 2 * 80);
		TT_EQ_INT((int)used.same_left, 0);
		TT_EQ_INT((int)all.same_left, 2 * (slow ? 32 : 0));
		ibf_rail_route_report_free(&all);
		ibf_rail_route_report_free(&used);
		ibf_rail_info_free(&ri);
		ibf_fabric_free(lean);
		ibf_routes_free(&r);
		ibf_fabric_free(f);
	}
}

static void test_hratio(void)
{
	struct ibf_fabric *f = gen(16, 8, 1, 0); /* rail-only: 8 components */
	TT_REQUIRE(f);
	hratio_check(f, 1, "rail-only 16x8", 1);
	ibf_fabric_free(f);
	f = gen(32, 8, 1, 4); /* rail-optimized */
	TT_REQUIRE(f);
	hratio_check(f, 2, "rail-optimized 32x8, 4 spines", 1);
	/* D-mod-K over the spines: shifts between hosts at the leaf cut bound */
	struct ibf_routes r;
	struct ibf_route_opts o;
	struct ibf_route_report rep;
	struct ibf_error err = { 0 };
	ibf_route_opts_default(&o);
	TT_REQUIRE(ibf_route(f, "hratio", &o, &r, &rep, &err) == 0);
	struct ibf_cong_report cr;
	TT_REQUIRE(ibf_congestion(f, &r, NULL, &cr, &err) == 0);
	TT_CHECK_MSG(cr.worst == cr.cut_worst && cr.unrouted == 0, "worst %u cut %u", cr.worst,
		     cr.cut_worst);
	ibf_cong_report_free(&cr);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	/* rails of two leaf switches each, joined only through the spines (the
	 * generator has no rail aggregation): same-rail pairs on different
	 * leaves must cross a spine */
	f = gen(16, 4, 2, 2);
	TT_REQUIRE(f);
	hratio_check(f, 1, "rails of 2 leaves, 16x4, 2 spines", 0);
	ibf_fabric_free(f);
	/* damage: a missing spine cable and a missing GPU cable */
	f = gen(16, 4, 1, 2);
	TT_REQUIRE(f);
	int sp = -1;
	for (uint32_t i = 0; i < f->nnodes && sp < 0; i++)
		if (f->nodes[i].type == IBF_NODE_SWITCH && f->nodes[i].desc &&
		    strstr(f->nodes[i].desc, "spine"))
			sp = (int)i;
	TT_REQUIRE(sp >= 0);
	ibf_fabric_disconnect(f, sp, 1);
	int n = ibf_fabric_find_id(f, "srv003-mlx5_2");
	TT_REQUIRE(n >= 0);
	ibf_fabric_disconnect(f, n, 1);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	hratio_check(f, 1, "rail-optimized with a missing spine cable and GPU cable", 1);
	ibf_fabric_free(f);
}

/* an etcd range reply with keys (relative to /p/) and values in base64 */
static char *etcd_reply(const char *const *kv, int n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&out, &len);
	fprintf(o, "{\"header\":{\"revision\":\"7\"},\"kvs\":[");
	for (int i = 0; i < n; i++) {
		char full[256];
		snprintf(full, sizeof(full), "/p/%s", kv[2 * i]);
		char *k = ibf_base64_encode(full, strlen(full), NULL);
		char *v = ibf_base64_encode(kv[2 * i + 1], strlen(kv[2 * i + 1]), NULL);
		fprintf(o, "%s{\"key\":\"%s\",\"value\":\"%s\",\"mod_revision\":\"5\"}",
			i ? "," : "", k, v);
		free(k);
		free(v);
	}
	fprintf(o, "],\"count\":\"%d\"}", n);
	fclose(o);
	return out;
}

static void test_etcd_range(void)
{
	static const char *const good[] = {
		"meta",
		("{\"version\":1,\"timestamp\":50,\"max_age\":9,\"default_path\":\"dr\","
		 "\"default_score\":70}"),
		"gen",
		"4",
		"rail/3",
		"20",
		"rail/1",
		"90",
		"domain/a b",
		"40",
		"domain/c",
		"100",
		"rails_by_score",
		"[1,3]",
		"gamma/c",
		"{}",
		"other",
		"ignored",
	};
	struct ibf_rail_registry r;
	struct ibf_error err;
	char *doc = etcd_reply(good, 9);
	TT_REQUIRE(ibf_rail_etcd_parse_range(doc, strlen(doc), "e", "/p/", &r, &err) == 0);
	free(doc);
	TT_CHECK(r.timestamp == 50 && r.max_age == 9 && !r.prefer_rd && r.dflt == 70);
	TT_CHECK(r.nrails == 2 && r.rail_label[0] == 1 && r.rail_score[0] == 90 &&
		 r.rail_label[1] == 3 && r.rail_score[1] == 20);
	TT_CHECK(r.ndomains == 2 && ibf_rail_registry_find_domain(&r, "a b") >= 0 &&
		 r.domain_score[ibf_rail_registry_find_domain(&r, "a b")] == 40);
	ibf_rail_registry_free(&r);
	/* no keys: an empty registry that was never written (stale) */
	const char *empty = "{\"header\":{\"revision\":\"3\"}}";
	TT_CHECK(ibf_rail_etcd_parse_range(empty, strlen(empty), "e", "/p/", &r, &err) == 0 &&
		 r.timestamp == 0 && r.nrails == 0);
	ibf_rail_registry_free(&r);
	/* bad replies and bad keys: errors naming the key, nothing kept */
	static const struct {
		const char *k, *v, *msg;
	} bad[] = {
		{ "rail/x", "5", "rail/NUMBER" },      { "rail/2", "101", "rail/NUMBER" },
		{ "domain/", "5", "domain/NAME" },     { "domain/d", "-1", "domain/NAME" },
		{ "meta", "{\"version\":2}", "meta" }, { "rail/1", "", "rail/NUMBER" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *kv[2] = { bad[i].k, bad[i].v };
		doc = etcd_reply(kv, 1);
		TT_CHECK_MSG(ibf_rail_etcd_parse_range(doc, strlen(doc), "e", "/p/", &r, &err) ==
					     IBF_EPARSE &&
				     strstr(err.msg, bad[i].msg) && r.nrails == 0,
			     "case %zu: %s", i, err.msg);
		free(doc);
	}
	static const char *const raw[] = {
		"[]",
		"{\"kvs\":[]}",
		"{\"header\":{},\"kvs\":[{\"key\":\"%%%%\",\"value\":\"MQ==\"}]}",
		"{\"header\":{},\"kvs\":[{\"key\":\"L3EvcmFpbC8x\",\"value\":\"MQ==\"}]}", /* /q/rail/1 */
		"{\"header\":{},\"kvs\":[{\"key\":\"L3AvZ2Vu\"},{\"key\":\"L3AvZ2Vu\"}]}", /* twice */
		"{\"header\":{},\"kvs\":{}}",
	};
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		TT_CHECK_MSG(ibf_rail_etcd_parse_range(raw[i], strlen(raw[i]), "e", "/p/", &r,
						       &err) != 0,
			     "raw case %zu accepted", i);
}

static int bump_rail(struct ibf_rail_registry *r, void *ctx)
{
	r->timestamp = 77;
	return ibf_rail_registry_set_rail(r, *(int *)ctx, 60);
}

static void test_store_file(void)
{
	char dir[] = "/tmp/ibf-test-store.XXXXXX", path[64];
	TT_REQUIRE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/reg.json", dir);
	struct ibf_error err;
	struct ibf_rail_store *s = ibf_rail_store_open(path, NULL, &err);
	TT_REQUIRE(s != NULL);
	struct ibf_rail_registry r;
	TT_CHECK(ibf_rail_store_load(s, &r, &err) == IBF_EIO); /* no file yet */
	int label = 4;
	TT_CHECK(ibf_rail_store_update(s, bump_rail, &label, &err) == 0);
	label = 2;
	TT_CHECK(ibf_rail_store_update(s, bump_rail, &label, &err) == 0);
	TT_CHECK(ibf_rail_store_keepalive(s, &err) == 0);
	TT_REQUIRE(ibf_rail_store_load(s, &r, &err) == 0);
	TT_CHECK(r.nrails == 2 && r.rail_label[0] == 2 && r.timestamp == 77);
	ibf_rail_registry_set_domain(&r, "x", 5);
	TT_CHECK(ibf_rail_store_save(s, &r, &err) == 0);
	ibf_rail_registry_free(&r);
	TT_CHECK(ibf_rail_registry_read(path, &r, &err) == 0 && r.ndomains == 1);
	ibf_rail_registry_free(&r);
	ibf_rail_store_close(s);
	unlink(path);
	rmdir(dir);
	/* bad locations */
	static const char *const bad[] = {
		"", "etcd://", "etcd://host", "etcd://:2379", "etcd://h:0", "etcd://h:70000/x",
		"etcd://h x:1",
		/* a sign or blank in the port went into the URL as written */
		"etcd://h:+80", "etcd://h: 80", "etcd://h:80 ", "etcd://h:0x50",
		"etcd://h:", "etcd://h:000080"
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = ibf_rail_store_open(bad[i], NULL, &err);
		TT_CHECK_MSG(!s && err.code == IBF_EINVAL, "'%s' accepted", bad[i]);
		ibf_rail_store_close(s);
	}
	/* good ones: the URL and the prefix the requests use */
	static const char *const good[][3] = {
		{ "etcd://127.0.0.1:2379", "http://127.0.0.1:2379", "/ibfab/rails/" },
		{ "etcd://h:2379/", "http://h:2379", "/ibfab/rails/" },
		{ "etcd://e-0.x_y:1/site/a", "http://e-0.x_y:1", "/site/a/" },
		{ "etcd://h:65535/p/", "http://h:65535", "/p/" },
		{ "etcd://h:080//", "http://h:080", "//" },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *url, *prefix;
		int rc =
			ibf_rail_etcd_location(good[i][0], strlen(good[i][0]), &url, &prefix, &err);
		TT_CHECK_MSG(rc == 0, "'%s': %s", good[i][0], err.msg);
		if (rc)
			continue;
		TT_CHECK_MSG(!strcmp(url, good[i][1]), "%s", url);
		TT_CHECK_MSG(!strcmp(prefix, good[i][2]), "%s", prefix);
		free(url);
		free(prefix);
	}
	/* a location read from memory stops at its length */
	char *url, *prefix;
	TT_CHECK(ibf_rail_etcd_location("etcd://h:80/p", 9, &url, &prefix, &err) != 0);
	TT_REQUIRE(ibf_rail_etcd_location("etcd://h:80/p", 11, &url, &prefix, &err) == 0);
	TT_CHECK_MSG(!strcmp(url, "http://h:80"), "%s", url);
	TT_CHECK_MSG(!strcmp(prefix, "/ibfab/rails/"), "%s", prefix);
	free(url);
	free(prefix);
}

/* Cut every cable of the named nodes (a switch gone from the fabric; its
 * GPU NICs stay, without a cable) and of the named single CA ports. */
static int cut(struct ibf_fabric *f, const char *const *desc)
{
	for (; *desc; desc++) {
		int n = ibf_fabric_find_desc(f, *desc);
		TT_CHECK_MSG(n >= 0, "no node %s", *desc);
		if (n < 0)
			return 0;
		for (int p = 1; p <= f->nodes[n].nports; p++)
			ibf_fabric_disconnect(f, n, p);
	}
	return 1;
}

/* The gaps of a fabric after cutting the nodes named: how many whole rails
 * and leaves, and the gaps themselves (caller frees). */
static struct ibf_rail_gap *gaps_after_map(int m, int k, int r, int sp, const char *const *desc,
					   const char *maptext, int *n, int *whole)
{
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	struct ibf_rail_gap *g = NULL;
	*n = -1;
	*whole = 0;
	struct ibf_fabric *f = gen(m, k, r, sp);
	if (!f)
		return NULL;
	int ok = cut(f, desc) && ibf_fabric_finalize(f, &err) == 0 &&
		 detect(f, maptext, &ri, &err) == 0;
	if (ok) {
		if (ibf_rail_gaps(f, &ri, &g, n, &err))
			*n = -1;
		for (int i = 0; i < *n; i++) {
			*whole += g[i].rail < 0;
			/* a leaf gap names a leaf of another rail */
			if (g[i].rail >= 0)
				TT_CHECK(ri.sw_rail[g[i].like_sw] != g[i].rail);
		}
		ibf_rail_info_free(&ri);
	}
	ibf_fabric_free(f);
	return g;
}

static struct ibf_rail_gap *gaps_after(int m, int k, int r, int sp, const char *const *desc,
				       int *n, int *whole)
{
	return gaps_after_map(m, k, r, sp, desc, NULL, n, whole);
}

/* With a map whose rail numbers are not the device numbers (mlx5_K on rail
 * 10 + K): a cut GPU cable is no missing rail (its device number was taken
 * for a rail label, "rail label 1: missing"); a rail lost whole still is. */
static void test_missing_rail_with_map(void)
{
	char map[2048];
	size_t len = 0;
	for (int sv = 0; sv < 4; sv++)
		for (int k = 0; k < 4; k++)
			len += (size_t)snprintf(map + len, sizeof(map) - len,
						"\"srv%03d mlx5_%d\" srv%03d %d\n", sv, k, sv,
						10 + k);
	int n, whole;
	struct ibf_rail_gap *g;
	static const char *const cable[] = { "srv002 mlx5_1", NULL };
	g = gaps_after_map(4, 4, 1, 2, cable, map, &n, &whole);
	TT_EQ_INT(n, 0);
	free(g);
	static const char *const last[] = { "rail03-l00", NULL };
	g = gaps_after_map(4, 4, 1, 2, last, map, &n, &whole);
	TT_REQUIRE(n == 1);
	TT_CHECK(g[0].rail == -1 && g[0].nics == 4);
	free(g);
}

static void test_missing_leaves(void)
{
	int n, whole;
	struct ibf_rail_gap *g;
	static const char *const none[] = { NULL };
	g = gaps_after(6, 4, 2, 2, none, &n, &whole);
	TT_EQ_INT(n, 0);
	free(g);
	/* one leaf of rail 1 (srv003..srv005 on it) */
	static const char *const one[] = { "rail01-l01", NULL };
	g = gaps_after(6, 4, 2, 2, one, &n, &whole);
	TT_REQUIRE(n == 1);
	TT_EQ_INT(g[0].rail, 1);
	TT_EQ_INT(g[0].label, 1);
	TT_EQ_INT(g[0].ndomains, 3);
	free(g);
	/* two leaves of two rails */
	static const char *const two[] = { "rail01-l01", "rail02-l00", NULL };
	g = gaps_after(6, 4, 2, 2, two, &n, &whole);
	TT_REQUIRE(n == 2);
	TT_EQ_INT(whole, 0);
	TT_CHECK(g[0].label == 1 && g[1].label == 2);
	TT_CHECK(g[0].ndomains == 3 && g[1].ndomains == 3);
	free(g);
	/* two leaves of one rail out of three: both reported, disjoint */
	static const char *const same[] = { "rail01-l00", "rail01-l02", NULL };
	g = gaps_after(9, 4, 3, 2, same, &n, &whole);
	TT_REQUIRE(n == 2);
	TT_CHECK(g[0].rail == 1 && g[1].rail == 1 && g[0].like_sw != g[1].like_sw);
	free(g);
	/* every leaf of rail 1: the whole rail, between rails 0 and 2, with
	 * its 6 GPU NICs left without a cable */
	static const char *const rail1[] = { "rail01-l00", "rail01-l01", NULL };
	g = gaps_after(6, 4, 2, 2, rail1, &n, &whole);
	TT_REQUIRE(n == 1);
	TT_CHECK(g[0].rail == -1 && g[0].label == 1 && g[0].between && g[0].nics == 6);
	free(g);
	/* the last rail: only its NICs without a cable tell */
	static const char *const last[] = { "rail03-l00", NULL };
	g = gaps_after(4, 4, 1, 2, last, &n, &whole);
	TT_REQUIRE(n == 1);
	TT_CHECK(g[0].rail == -1 && g[0].label == 3 && !g[0].between && g[0].nics == 4);
	free(g);
	/* two whole rails of a rail-only fabric (one switch per rail) */
	static const char *const rails12[] = { "rail01-l00", "rail02-l00", NULL };
	g = gaps_after(4, 4, 1, 0, rails12, &n, &whole);
	TT_REQUIRE(n == 2);
	TT_EQ_INT(whole, 2);
	free(g);
	/* damage that is no missing leaf: a GPU NIC cable, a spine */
	static const char *const cable[] = { "srv002 mlx5_1", NULL };
	g = gaps_after(6, 4, 2, 2, cable, &n, &whole);
	TT_EQ_INT(n, 0);
	free(g);
	static const char *const spine[] = { "spine01", NULL };
	g = gaps_after(6, 4, 2, 2, spine, &n, &whole);
	TT_EQ_INT(n, 0);
	free(g);
	/* a missing leaf plus a cut cable of one of its servers on another
	 * rail, plus a spine: still one leaf, its 3 servers */
	static const char *const mixed[] = { "rail01-l01", "srv003 mlx5_0", "spine00", NULL };
	g = gaps_after(6, 4, 2, 2, mixed, &n, &whole);
	TT_REQUIRE(n == 1);
	TT_CHECK(g[0].rail == 1 && g[0].ndomains == 3);
	free(g);
}

int main(void)
{
	TT(test_same_domain_and_rail);
	TT(test_gamma_rule);
	TT(test_ties_and_extremes);
	TT(test_missing_entries);
	TT(test_remote_rail);
	TT(test_property);
	TT(test_structure_generated);
	TT(test_structure_damaged);
	TT(test_structure_no_gpus);
	TT(test_structure_router);
	TT(test_structure_unknown_guids);
	TT(test_missing_leaves);
	TT(test_missing_rail_with_map);
	TT(test_structure_misfit);
	TT(test_map_errors);
	TT(test_registry);
	TT(test_hratio);
	TT(test_route_check_slow);
	TT(test_route_check_slow_leaf_leaf);
	TT(test_etcd_range);
	TT(test_store_file);
	return tt_done();
}
