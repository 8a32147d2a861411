/* Unit tests for the topology core: graph building, CSR, metrics, LIDs. */
#include "ibf_topology.h"
#include "tt.h"

#include <unistd.h>

/* ring of n switches, each with h hosts */
static struct ibf_fabric *ring(int n, int h)
{
	struct ibf_fabric *f = ibf_fabric_new();
	char name[32];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "sw%d", i);
		ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8,
				    ibf_gen_guid(IBF_NODE_SWITCH, (uint32_t)i, 0), name, name,
				    NULL);
	}
	for (int i = 0; i < n; i++)
		ibf_fabric_connect(f, i, 1, (i + 1) % n, 2, 4, IBF_SPEED_EDR, NULL);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < h; j++) {
			snprintf(name, sizeof(name), "h%d-%d", i, j);
			int c = ibf_fabric_add_node(
				f, IBF_NODE_CA, 1,
				ibf_gen_guid(IBF_NODE_CA, (uint32_t)(i * h + j), 0), name, name,
				NULL);
			ibf_fabric_connect(f, c, 1, i, 3 + j, 4, IBF_SPEED_EDR, NULL);
		}
	ibf_fabric_finalize(f, NULL);
	return f;
}

static void test_ring_csr(void)
{
	struct ibf_fabric *f = ring(6, 2);
	TT_EQ_INT(f->nsw, 6);
	TT_EQ_INT(f->nnodes, 18);
	TT_EQ_INT(f->nhosts_ports, 12);
	for (uint32_t s = 0; s < f->nsw; s++)
		TT_EQ_INT(f->adj_off[s + 1] - f->adj_off[s], 2);
	/* sw0 port 1 goes to sw1 port 2 */
	TT_EQ_INT(f->adj[f->adj_off[0]].nbr, 1);
	TT_EQ_INT(f->adj[f->adj_off[0]].lport, 1);
	TT_EQ_INT(f->adj[f->adj_off[0]].rport, 2);
	ibf_fabric_free(f);
}

static void test_ring_stats(void)
{
	struct ibf_fabric *f = ring(7, 1);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 2, NULL) == 0);
	TT_EQ_INT(st.diameter, 3);
	TT_EQ_INT(st.components, 1);
	TT_EQ_INT(st.sw_links, 7);
	TT_EQ_INT(st.parallel_links, 0);
	TT_EQ_INT(st.host_links, 7);
	/* ring of 7: distances 1,1,2,2,3,3 -> mean 2 */
	TT_CHECK(st.avg_distance > 1.999 && st.avg_distance < 2.001);
	TT_EQ_INT(st.degree_hist[2], 7);
	ibf_stats_free(&st);
	/* thread count never changes the answer */
	struct ibf_stats st1;
	TT_REQUIRE(ibf_fabric_stats(f, &st1, 1, NULL) == 0);
	TT_EQ_INT(st1.diameter, 3);
	ibf_stats_free(&st1);
	ibf_fabric_free(f);
}

static void test_disconnected(void)
{
	struct ibf_fabric *f = ring(4, 0);
	ibf_fabric_disconnect(f, 0, 1);
	ibf_fabric_disconnect(f, 2, 1);
	ibf_fabric_finalize(f, NULL);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.components, 2);
	TT_CHECK(st.diameter == IBF_DIST_INF);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
}

static void test_parallel_and_degraded(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	int a = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 1, "a", NULL, NULL);
	int b = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 2, "b", NULL, NULL);
	TT_EQ_INT(ibf_fabric_connect(f, a, 1, b, 1, 4, IBF_SPEED_EDR, NULL), 0);
	TT_EQ_INT(ibf_fabric_connect(f, a, 2, b, 2, 4, IBF_SPEED_EDR, NULL), 0);
	TT_EQ_INT(ibf_fabric_connect(f, a, 3, b, 3, 1, IBF_SPEED_EDR, NULL), 0);
	/* a port can not take a second peer */
	struct ibf_error err;
	TT_CHECK(ibf_fabric_connect(f, a, 1, b, 4, 4, IBF_SPEED_EDR, &err) < 0);
	TT_CHECK(strstr(err.msg, "already linked") != NULL);
	/* loopback cable on one switch */
	TT_EQ_INT(ibf_fabric_connect(f, a, 5, a, 6, 4, IBF_SPEED_EDR, NULL), 0);
	ibf_fabric_finalize(f, NULL);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.sw_links, 3);
	TT_EQ_INT(st.sw_pairs_linked, 1);
	TT_EQ_INT(st.parallel_links, 2);
	TT_EQ_INT(st.loopback_links, 1);
	TT_EQ_INT(st.degraded_links, 1);
	TT_EQ_INT(st.diameter, 1);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
}

/* Two leaves, one spine; four twin cables per leaf-spine pair; QDR HCAs
 * (older model) and FDR HCAs (newer model) on FDR10 leaves. */
static struct ibf_fabric *mixed_gen(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	int sp = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 36, 100, "spine", NULL, NULL);
	int lf[2];
	for (int l = 0; l < 2; l++) {
		lf[l] = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 36, 200 + (uint64_t)l,
					    l ? "leaf1" : "leaf0", NULL, NULL);
		f->nodes[lf[l]].devid = 0xc738;
		for (int c = 0; c < 4; c++)
			ibf_fabric_connect(f, lf[l], 1 + c, sp, 1 + 4 * l + c, 4, IBF_SPEED_FDR10,
					   NULL);
	}
	f->nodes[sp].devid = 0xc738;
	char name[32];
	for (int l = 0; l < 2; l++)
		for (int h = 0; h < 6; h++) {
			snprintf(name, sizeof(name), "node%02d HCA-1", l * 6 + h);
			int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 1000 + (uint64_t)(l * 6 + h),
						    name, NULL, NULL);
			int old = h < 4;
			f->nodes[c].devid = old ? 0x673c : 0x1003;
			ibf_fabric_connect(f, c, 1, lf[l], 10 + h, 4,
					   old ? IBF_SPEED_QDR : IBF_SPEED_FDR10, NULL);
		}
	return f;
}

static uint32_t ndegraded(struct ibf_fabric *f, struct ibf_degraded **dl)
{
	uint32_t n = 99;
	ibf_fabric_finalize(f, NULL);
	TT_EQ_INT(ibf_find_degraded(f, dl, &n, NULL), 0);
	return n;
}

/* usual_width/usual_speed: what most links between the same two node
 * models run at, the faster on a tie, unknown rates not counted */
static void test_degraded_usual(void)
{
	static const struct {
		int w[4];
		int uw;
	} cases[] = {
		{ { 1, 1, 4, 0 }, 1 }, /* two of three at 1x: 1x is the usual */
		{ { 1, 4, 0, 0 }, 4 }, /* one each: the faster */
		{ { 1, 4, 4, 1 }, 4 },
		{ { 2, 1, 1, 2 }, 2 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ibf_fabric *f = ibf_fabric_new();
		int a = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 1, "a", NULL, NULL);
		int b = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 2, "b", NULL, NULL);
		f->nodes[a].devid = f->nodes[b].devid = 0xcf08;
		for (int i = 0; i < 4 && cases[c].w[i]; i++) {
			TT_CHECK(ibf_fabric_connect(f, a, i + 1, b, i + 1, cases[c].w[i],
						    IBF_SPEED_EDR, NULL) == 0);
			ibf_port(f, a, i + 1)->width_sup = ibf_port(f, b, i + 1)->width_sup = 4;
			ibf_port(f, a, i + 1)->speed_sup = ibf_port(f, b, i + 1)->speed_sup =
				IBF_SPEED_EDR;
		}
		/* a link whose rate is unknown does not count */
		TT_CHECK(ibf_fabric_connect(f, a, 7, b, 7, 0, IBF_SPEED_UNKNOWN, NULL) == 0);
		TT_CHECK(ibf_fabric_connect(f, a, 8, b, 8, 0, IBF_SPEED_UNKNOWN, NULL) == 0);
		struct ibf_degraded *dl;
		uint32_t n = ndegraded(f, &dl);
		TT_CHECK_MSG(n >= 1, "case %zu", c);
		for (uint32_t i = 0; i < n; i++) {
			TT_EQ_INT(dl[i].usual_width, cases[c].uw);
			TT_EQ_INT(dl[i].usual_speed, IBF_SPEED_EDR);
		}
		free(dl);
		ibf_fabric_free(f);
	}
}

static void test_degraded_rule(void)
{
	struct ibf_degraded *dl;
	/* mixed generations: older HCAs at their own maximum are not degraded */
	struct ibf_fabric *f = mixed_gen();
	TT_EQ_INT(ndegraded(f, &dl), 0);
	free(dl);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.degraded_links, 0);
	ibf_stats_free(&st);

	/* one twin cable trained at 1x, another at a lower speed */
	ibf_fabric_disconnect(f, 1, 2);
	ibf_fabric_connect(f, 1, 2, 0, 2, 1, IBF_SPEED_FDR10, NULL);
	ibf_fabric_disconnect(f, 2, 4);
	ibf_fabric_connect(f, 2, 4, 0, 8, 4, IBF_SPEED_QDR, NULL);
	TT_REQUIRE(ndegraded(f, &dl) == 2);
	/* sorted by the lower end: the spine (node 0) ports 2 and 8 */
	TT_EQ_INT(dl[0].node_a, 0);
	TT_EQ_INT(dl[0].port_a, 2);
	TT_EQ_INT(dl[0].width, 1);
	TT_EQ_INT(dl[0].exp_width, 4);
	TT_EQ_INT(dl[0].evidence, IBF_DEGR_TWINS);
	TT_EQ_INT(dl[0].peers, 3);
	TT_EQ_INT(dl[1].port_a, 8);
	TT_EQ_INT(dl[1].speed, IBF_SPEED_QDR);
	TT_EQ_INT(dl[1].exp_speed, IBF_SPEED_FDR10);
	TT_EQ_INT(dl[1].exp_width, 4);
	TT_EQ_INT(dl[1].evidence, IBF_DEGR_TWINS);
	free(dl);

	/* an old-model HCA at 1x: judged against the same model elsewhere */
	int h = ibf_fabric_find_guid(f, 1001);
	TT_REQUIRE(h >= 0);
	int sw = ibf_port(f, h, 1)->peer_node, sp = ibf_port(f, h, 1)->peer_port;
	ibf_fabric_disconnect(f, h, 1);
	ibf_fabric_connect(f, h, 1, sw, sp, 1, IBF_SPEED_QDR, NULL);
	TT_REQUIRE(ndegraded(f, &dl) == 3);
	int found = 0;
	for (int i = 0; i < 3; i++)
		if (dl[i].evidence == IBF_DEGR_MODEL) {
			found++;
			TT_EQ_INT(dl[i].width, 1);
			TT_EQ_INT(dl[i].exp_width, 4);
			TT_EQ_INT(dl[i].exp_speed, IBF_SPEED_QDR);
			TT_EQ_INT(dl[i].peers, 7); /* 8 old HCAs, the others */
		}
	TT_EQ_INT(found, 1);
	free(dl);

	/* supported values (live discovery) are exact and win over comparison:
	 * a QDR-only HCA port at QDR is fine, an FDR10-capable one at QDR is not */
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (int p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port(f, (int)n, p)->width_sup = 4;
			ibf_port(f, (int)n, p)->speed_sup =
				f->nodes[n].devid == 0x673c ? IBF_SPEED_QDR : IBF_SPEED_FDR10;
		}
	TT_REQUIRE(ndegraded(f, &dl) == 3);
	for (int i = 0; i < 3; i++)
		TT_EQ_INT(dl[i].evidence, IBF_DEGR_SUPPORTED);
	free(dl);
	ibf_fabric_free(f);

	/* a lone link with nothing like it is never reported */
	f = ibf_fabric_new();
	int a = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 1, "a", NULL, NULL);
	int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 2, "c", NULL, NULL);
	ibf_fabric_connect(f, a, 1, c, 1, 1, IBF_SPEED_SDR, NULL);
	TT_EQ_INT(ndegraded(f, &dl), 0);
	TT_CHECK(dl == NULL);
	ibf_fabric_free(f);
}

/* A whole bundle trained down: every cable between leaf1 and the spine at
 * 1x (twins all alike, so they cannot tell) is judged against the same two
 * models elsewhere (leaf0's cables at 4x); a bundle at its models' best
 * stays clean, and so does a bundle of one-of-a-kind nodes. */
static void test_degraded_whole_bundle(void)
{
	struct ibf_degraded *dl;
	struct ibf_fabric *f = mixed_gen();
	for (int c = 0; c < 4; c++) {
		ibf_fabric_disconnect(f, 2, 1 + c);
		ibf_fabric_connect(f, 2, 1 + c, 0, 5 + c, 1, IBF_SPEED_FDR10, NULL);
	}
	TT_REQUIRE(ndegraded(f, &dl) == 4);
	for (int i = 0; i < 4; i++) {
		TT_EQ_INT(dl[i].node_a, 0);
		TT_EQ_INT(dl[i].port_a, 5 + i);
		TT_EQ_INT(dl[i].width, 1);
		TT_EQ_INT(dl[i].exp_width, 4);
		TT_EQ_INT(dl[i].exp_speed, IBF_SPEED_FDR10);
		TT_EQ_INT(dl[i].evidence, IBF_DEGR_MODEL);
		TT_EQ_INT(dl[i].peers, 7);
	}
	free(dl);
	/* leaf1 another model (an older switch at its own best): clean */
	f->nodes[2].devid = 0x5a5a;
	TT_EQ_INT(ndegraded(f, &dl), 0);
	free(dl);
	ibf_fabric_free(f);
}

/* Split ports: NDR200 adapters (2xNDR) beside NDR400 ones (4xNDR) of the
 * same device id on one Quantum-2 switch are not degraded (they were, by the
 * model rule); a 1x link among them still is, and iblinkinfo-style
 * supported values still judge a 2x link exactly. */
static void test_degraded_split_ports(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	int sw = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 65, 0x100, "qm9700", NULL, NULL);
	f->nodes[sw].vendid = 0x2c9;
	f->nodes[sw].devid = 0xd2f0;
	static const uint8_t w[] = { 4, 4, 2, 2, 1 };
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "h%d", i);
		int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x200 + (uint64_t)i, name, NULL,
					    NULL);
		f->nodes[h].vendid = 0x2c9;
		f->nodes[h].devid = 0x1021;
		ibf_fabric_connect(f, sw, 1 + i, h, 1, w[i], IBF_SPEED_NDR, NULL);
	}
	TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
	struct ibf_degraded *dl;
	TT_REQUIRE(ndegraded(f, &dl) == 1);
	TT_EQ_INT(dl[0].port_a, 5);
	TT_EQ_INT(dl[0].width, 1);
	TT_EQ_INT(dl[0].exp_width, 4);
	TT_EQ_INT(dl[0].evidence, IBF_DEGR_MODEL);
	free(dl);
	/* both ends say 4x: the 2x link on port 3 is narrow after all */
	ibf_port(f, sw, 3)->width_sup = 4;
	ibf_port(f, sw, 3)->speed_sup = IBF_SPEED_NDR;
	int h = ibf_port(f, sw, 3)->peer_node;
	ibf_port(f, h, 1)->width_sup = 4;
	ibf_port(f, h, 1)->speed_sup = IBF_SPEED_NDR;
	TT_REQUIRE(ndegraded(f, &dl) == 2);
	TT_EQ_INT(dl[0].port_a, 3);
	TT_EQ_INT(dl[0].evidence, IBF_DEGR_SUPPORTED);
	free(dl);
	ibf_fabric_free(f);
}

/* The same findings after writing the fabric as ibnetdiscover and as an
 * ibsim net file and reading it back (device ids and speeds survive). */
static void test_degraded_roundtrip(void)
{
	struct ibf_fabric *f = mixed_gen();
	ibf_fabric_disconnect(f, 1, 3);
	ibf_fabric_connect(f, 1, 3, 0, 3, 1, IBF_SPEED_FDR10, NULL); /* 1x twin */
	int h = ibf_fabric_find_guid(f, 1007);
	int sw = ibf_port(f, h, 1)->peer_node, sp = ibf_port(f, h, 1)->peer_port;
	ibf_fabric_disconnect(f, h, 1);
	ibf_fabric_connect(f, h, 1, sw, sp, 4, IBF_SPEED_SDR, NULL); /* slow old HCA */
	struct ibf_degraded *dl;
	TT_REQUIRE(ndegraded(f, &dl) == 2);
	free(dl);
	static const int fmts[] = { IBF_FMT_IBNETDISCOVER, IBF_FMT_IBSIM };
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		char path[] = "/tmp/ibf_degr_XXXXXX";
		int fd = mkstemp(path);
		TT_REQUIRE(fd >= 0);
		close(fd);
		struct ibf_error err;
		TT_EQ_INT(ibf_fabric_write(f, path, fmts[i], &err), 0);
		struct ibf_fabric *g = ibf_fabric_read(path, IBF_FMT_AUTO, &err);
		unlink(path);
		TT_REQUIRE(g != NULL);
		uint32_t n = 0;
		TT_REQUIRE(ndegraded(g, &dl) == 2);
		n = 0;
		for (int k = 0; k < 2; k++) {
			const struct ibf_node *a = &g->nodes[dl[k].node_a],
					      *b = &g->nodes[dl[k].node_b];
			if (dl[k].evidence == IBF_DEGR_TWINS && dl[k].width == 1 &&
			    a->type == IBF_NODE_SWITCH && b->type == IBF_NODE_SWITCH)
				n++;
			if (dl[k].evidence == IBF_DEGR_MODEL && dl[k].speed == IBF_SPEED_SDR &&
			    dl[k].exp_speed == IBF_SPEED_QDR &&
			    (a->guid == 1007 || b->guid == 1007))
				n++;
		}
		TT_EQ_INT(n, 2);
		free(dl);
		ibf_fabric_free(g);
	}
	ibf_fabric_free(f);
}

static void test_lids(void)
{
	struct ibf_fabric *f = ring(3, 2);
	TT_REQUIRE(ibf_assign_lids(f, 2, 0, NULL) == 0);
	/* 3 switches LIDs 1,2,3; then CA ports aligned to 4: 4,8,...,24 */
	TT_EQ_INT(ibf_port(f, 0, 0)->lid, 1);
	TT_EQ_INT(ibf_port(f, 2, 0)->lid, 3);
	for (uint32_t i = 3; i < f->nnodes; i++) {
		TT_EQ_INT(ibf_port(f, (int)i, 1)->lid % 4, 0);
		TT_EQ_INT(ibf_port(f, (int)i, 1)->lmc, 2);
	}
	TT_EQ_INT(ibf_max_lid(f), 27);
	struct ibf_lidmap m;
	TT_REQUIRE(ibf_lidmap_build(f, &m, NULL) == 0);
	TT_EQ_INT(m.node[5], 3);
	TT_EQ_INT(m.port[5], 1);
	TT_EQ_INT(m.node[3], 2);
	TT_EQ_INT(m.node[0], -1);
	ibf_lidmap_free(&m);

	/* guid2lid round trip */
	char path[] = "/tmp/ibf-g2l-XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	close(fd);
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 0; p <= f->nodes[i].nports; p++)
			ibf_port(f, (int)i, p)->guid = ibf_gen_guid(f->nodes[i].type, i, p);
	TT_EQ_INT(ibf_guid2lid_write(f, path, NULL), 0);
	struct ibf_fabric *g = ring(3, 2);
	for (uint32_t i = 0; i < g->nnodes; i++)
		for (int p = 0; p <= g->nodes[i].nports; p++)
			ibf_port(g, (int)i, p)->guid = ibf_gen_guid(g->nodes[i].type, i, p);
	TT_EQ_INT(ibf_guid2lid_read(g, path, NULL), 0);
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 0; p <= f->nodes[i].nports; p++) {
			TT_EQ_INT(ibf_port(g, (int)i, p)->lid, ibf_port(f, (int)i, p)->lid);
			TT_EQ_INT(ibf_port(g, (int)i, p)->lmc, ibf_port(f, (int)i, p)->lmc);
		}
	/* a bad line is reported with its line number */
	FILE *fp = fopen(path, "a");
	fprintf(fp, "0x12 7 9\n");
	fclose(fp);
	struct ibf_error err;
	TT_CHECK(ibf_guid2lid_read(g, path, &err) < 0);
	TT_EQ_INT(err.line, (long)(3 * 1 + 6) + 1);
	unlink(path);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

/* a switch without a LID on a fabric whose other ports have theirs: those
 * are kept, the switch and a CA port without one get the lowest free
 * blocks (the CA's aligned to its LMC) */
static void test_missing_lids(void)
{
	struct ibf_fabric *f = ring(3, 2); /* nodes 0..2 switches, 3..8 CAs */
	TT_REQUIRE(ibf_assign_lids(f, 1, 0, NULL) == 0);
	/* switches 1,2,3; CA ports 4,6,8,10,12,14 (LMC 1) */
	TT_EQ_INT(ibf_port(f, 1, 0)->lid, 2);
	TT_EQ_INT(ibf_port(f, 3, 1)->lid, 4);
	TT_EQ_INT(ibf_port(f, 8, 1)->lid, 14);
	ibf_port(f, 1, 0)->lid = 0; /* switch 1 not swept yet */
	ibf_port(f, 3, 1)->lid = 0; /* nor the first CA: its block 4-5 is free */
	ibf_port(f, 3, 1)->lmc = 0;
	ibf_port(f, 0, 0)->lid = 5; /* switch 0 moved into that block */
	int fn, fp;
	TT_EQ_INT(ibf_assign_missing_lids(f, 1, &fn, &fp, NULL), 2);
	TT_EQ_INT(fn, 1);
	TT_EQ_INT(fp, 0);
	TT_EQ_INT(ibf_port(f, 1, 0)->lid, 1); /* the lowest free LID */
	TT_EQ_INT(ibf_port(f, 1, 0)->lmc, 0);
	TT_EQ_INT(ibf_port(f, 3, 1)->lid, 16); /* 2 and 4-5 taken: the next free pair */
	TT_EQ_INT(ibf_port(f, 3, 1)->lmc, 1);
	TT_EQ_INT(ibf_port(f, 0, 0)->lid, 5); /* kept */
	TT_EQ_INT(ibf_port(f, 2, 0)->lid, 3);
	TT_EQ_INT(ibf_port(f, 8, 1)->lid, 14);
	struct ibf_lidmap m;
	TT_REQUIRE(ibf_lidmap_build(f, &m, NULL) == 0); /* no LID given twice */
	ibf_lidmap_free(&m);
	/* nothing missing: nothing changes */
	TT_EQ_INT(ibf_assign_missing_lids(f, 1, &fn, &fp, NULL), 0);
	TT_EQ_INT(fn, -1);
	ibf_fabric_free(f);
}

/* a port that keeps a LID it needs no more (an adapter port whose cable is
 * gone, listed with its LID): a new LID is not given twice, the lidmap of
 * the result has each LID once */
static void test_missing_lids_stale(void)
{
	struct ibf_fabric *f = ring(3, 2); /* nodes 0..2 switches, 3..8 CAs */
	TT_REQUIRE(ibf_assign_lids(f, 0, 0, NULL) == 0);
	TT_EQ_INT(ibf_port(f, 3, 1)->lid, 4);
	ibf_fabric_disconnect(f, 3, 1); /* h0-0's cable is gone, LID 4 stays */
	TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
	ibf_port(f, 4, 1)->lid = 2; /* h0-1 holds 2 */
	ibf_port(f, 1, 0)->lid = 0; /* switch 1 not swept yet */
	TT_EQ_INT(ibf_port(f, 3, 1)->lid, 4);
	int fn, fp;
	TT_EQ_INT(ibf_assign_missing_lids(f, 0, &fn, &fp, NULL), 1);
	TT_CHECK_MSG(ibf_port(f, 1, 0)->lid != 4, "switch 1 got LID 4, which h0-0 holds");
	TT_EQ_INT(ibf_port(f, 1, 0)->lid, 5);
	struct ibf_lidmap m;
	TT_CHECK(ibf_lidmap_build(f, &m, NULL) == 0);
	ibf_lidmap_free(&m);
	ibf_fabric_free(f);
}

static void test_lmc_exhaustion(void)
{
	struct ibf_fabric *f = ring(2, 0);
	for (int i = 0; i < 400; i++) {
		int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1, (uint64_t)(1000 + i), "h", NULL,
					    NULL);
		ibf_fabric_connect(f, c, 1, i % 2, 0, 0, 0, NULL); /* port 0 is invalid */
	}
	struct ibf_error err;
	TT_CHECK(ibf_fabric_connect(f, 2, 1, 0, 9, 0, 0, &err) < 0); /* port 9 > 8 */
	ibf_fabric_free(f);
}

static void test_meta_and_clone(void)
{
	struct ibf_fabric *f = ring(3, 1);
	ibf_fabric_set_meta(f, "family=slimfly;q=5;hosts=4");
	char buf[16];
	TT_CHECK(ibf_fabric_get_meta(f, "q", buf, sizeof(buf)) == 1 && strcmp(buf, "5") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "hosts", buf, sizeof(buf)) == 1 && strcmp(buf, "4") == 0);
	TT_CHECK(ibf_fabric_get_meta(f, "h", buf, sizeof(buf)) == 0);
	struct ibf_fabric *c = ibf_fabric_clone(f, NULL);
	TT_REQUIRE(c != NULL);
	TT_EQ_INT(c->nsw, 3);
	TT_EQ_INT(c->nnodes, f->nnodes);
	TT_CHECK(strcmp(c->nodes[1].desc, "sw1") == 0);
	TT_EQ_INT(ibf_port(c, 0, 1)->peer_node, 1);
	ibf_fabric_free(c);
	ibf_fabric_free(f);
}

static void test_width_speed(void)
{
	uint8_t w, s;
	TT_EQ_INT(ibf_parse_width_speed("4xEDR", 5, &w, &s), 0);
	TT_EQ_INT(w, 4);
	TT_EQ_INT(s, IBF_SPEED_EDR);
	TT_EQ_INT(ibf_parse_width_speed("1xSDR", 5, &w, &s), 0);
	TT_EQ_INT(w, 1);
	TT_EQ_INT(ibf_parse_width_speed("4xFDR10", 7, &w, &s), 0);
	TT_EQ_INT(s, IBF_SPEED_FDR10);
	TT_EQ_INT(ibf_parse_width_speed("4x???", 5, &w, &s), 0);
	TT_EQ_INT(s, 0);
	TT_CHECK(ibf_parse_width_speed("3xEDR", 5, &w, &s) < 0);
	TT_CHECK(ibf_parse_width_speed("4xFOO", 5, &w, &s) < 0);
	char buf[16];
	TT_CHECK(strcmp(ibf_format_width_speed(4, IBF_SPEED_NDR, buf, sizeof(buf)), "4xNDR") == 0);
	/* an unknown width (old ibnetdiscover prints 2x links as "??HDR") is
	 * not shown as 4x */
	TT_CHECK(strcmp(ibf_format_width_speed(0, IBF_SPEED_HDR, buf, sizeof(buf)), "??HDR") == 0);
	TT_CHECK(strcmp(ibf_format_width_speed(2, 0, buf, sizeof(buf)), "2x") == 0);
}

/* The GUID index answers like the linear scan: every node and port GUID,
 * misses, a duplicated GUID (lowest node wins), GUIDs written after the
 * index was built, and an index dropped by add_node. */
static void test_guid_index(void)
{
	struct ibf_fabric *f = ring(6, 2);
	TT_CHECK(f->guid_index != NULL);
	for (uint32_t i = 0; i < f->nnodes; i++) {
		TT_EQ_INT(ibf_fabric_find_guid(f, f->nodes[i].guid), i);
		for (int p = 0; p <= f->nodes[i].nports; p++) {
			uint64_t g = ibf_gen_guid(f->nodes[i].type, i, p) ^ 0x5000000000000000ull;
			ibf_port(f, (int)i, p)->guid = g;
		}
	}
	/* port GUIDs written after finalize: still found (scan fallback) */
	int port = -1;
	TT_EQ_INT(ibf_fabric_find_port_guid(
			  f, ibf_gen_guid(IBF_NODE_CA, 7, 1) ^ 0x5000000000000000ull, &port),
		  7);
	TT_EQ_INT(port, 1);
	TT_EQ_INT(ibf_fabric_index_guids(f), 0);
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 0; p <= f->nodes[i].nports; p++) {
			port = -1;
			TT_EQ_INT(ibf_fabric_find_port_guid(f, ibf_port(f, (int)i, p)->guid, &port),
				  i);
			TT_EQ_INT(port, p);
		}
	TT_EQ_INT(ibf_fabric_find_guid(f, 0x1234), -1);
	TT_EQ_INT(ibf_fabric_find_port_guid(f, 0x1234, NULL), -1);
	/* a duplicated node GUID: the lowest node id, as the scan answers */
	int d = ibf_fabric_add_node(f, IBF_NODE_CA, 1, f->nodes[3].guid, "dup", "dup", NULL);
	TT_CHECK(d > 3 && f->guid_index == NULL);
	TT_EQ_INT(ibf_fabric_find_guid(f, f->nodes[3].guid), 3);
	TT_EQ_INT(ibf_fabric_finalize(f, NULL), 0);
	TT_EQ_INT(ibf_fabric_find_guid(f, f->nodes[3].guid), 3);
	/* a node GUID changed after the index: the stale hit is not returned */
	uint64_t old = f->nodes[3].guid;
	f->nodes[3].guid = 0x77;
	TT_EQ_INT(ibf_fabric_find_guid(f, old), d);
	TT_EQ_INT(ibf_fabric_find_guid(f, 0x77), 3);
	ibf_fabric_free(f);
}

/* ibf_rows_permute moves row k to row to[k] for permutations of every
 * cycle shape (fixed points, swaps, one long cycle, random), and the
 * inverse brings the table back. */
static void test_rows_permute(void)
{
	enum { N = 37, LEN = 5 };
	uint8_t tab[N * LEN], orig[N * LEN];
	uint32_t to[N], back[N];
	uint64_t seed = 12345;
	for (int shape = 0; shape < 5; shape++) {
		for (uint32_t k = 0; k < N; k++)
			to[k] = k;
		if (shape == 1) /* swaps of neighbours, one fixed point at the end */
			for (uint32_t k = 0; k + 1 < N; k += 2) {
				to[k] = k + 1;
				to[k + 1] = k;
			}
		else if (shape == 2) /* one cycle through all rows */
			for (uint32_t k = 0; k < N; k++)
				to[k] = (k + 1) % N;
		else if (shape >= 3) /* Fisher-Yates with a fixed generator */
			for (uint32_t k = N - 1; k > 0; k--) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				uint32_t j = (uint32_t)((seed >> 33) % (k + 1));
				uint32_t t = to[k];
				to[k] = to[j];
				to[j] = t;
			}
		for (uint32_t k = 0; k < N * LEN; k++)
			tab[k] = orig[k] = (uint8_t)(k * 7 + shape);
		TT_EQ_INT(ibf_rows_permute(tab, LEN, N, to), 0);
		int same = 1;
		for (uint32_t k = 0; k < N; k++)
			same &= memcmp(tab + (size_t)to[k] * LEN, orig + (size_t)k * LEN, LEN) == 0;
		TT_CHECK(same);
		for (uint32_t k = 0; k < N; k++)
			back[to[k]] = k;
		TT_EQ_INT(ibf_rows_permute(tab, LEN, N, back), 0);
		TT_CHECK(memcmp(tab, orig, sizeof(tab)) == 0);
	}
	TT_EQ_INT(ibf_rows_permute(tab, LEN, 1, to), 0); /* one row: nothing to do */
}

/* Every PortInfo code the decoder knows, and that the fastest/widest bit of
 * a supported mask wins, and that unknown bits decode to 0. */
static void test_ib_decoder(void)
{
	TT_EQ_INT(ibf_width_from_ib(0), 0);
	TT_EQ_INT(ibf_width_from_ib(1), 1);
	TT_EQ_INT(ibf_width_from_ib(2), 4);
	TT_EQ_INT(ibf_width_from_ib(4), 8);
	TT_EQ_INT(ibf_width_from_ib(8), 12);
	TT_EQ_INT(ibf_width_from_ib(16), 2);
	TT_EQ_INT(ibf_width_from_ib(32), 0);
	TT_EQ_INT(ibf_width_from_ib(1 | 2 | 16), 4); /* supported mask 1x/2x/4x */
	TT_EQ_INT(ibf_width_from_ib(1 | 16), 2);
	TT_EQ_INT(ibf_width_from_ib(31), 12);

	TT_EQ_INT(ibf_speed_from_ib(0, 0, 0), IBF_SPEED_UNKNOWN);
	TT_EQ_INT(ibf_speed_from_ib(1, 0, 0), IBF_SPEED_SDR);
	TT_EQ_INT(ibf_speed_from_ib(2, 0, 0), IBF_SPEED_DDR);
	TT_EQ_INT(ibf_speed_from_ib(4, 0, 0), IBF_SPEED_QDR);
	TT_EQ_INT(ibf_speed_from_ib(8, 0, 0), IBF_SPEED_UNKNOWN);
	TT_EQ_INT(ibf_speed_from_ib(4, 0, 1), IBF_SPEED_FDR10);
	TT_EQ_INT(ibf_speed_from_ib(0, 0, 2), IBF_SPEED_UNKNOWN);
	TT_EQ_INT(ibf_speed_from_ib(4, 1, 0), IBF_SPEED_FDR);
	TT_EQ_INT(ibf_speed_from_ib(4, 2, 0), IBF_SPEED_EDR);
	TT_EQ_INT(ibf_speed_from_ib(4, 4, 0), IBF_SPEED_HDR);
	TT_EQ_INT(ibf_speed_from_ib(4, 8, 0), IBF_SPEED_NDR);
	TT_EQ_INT(ibf_speed_from_ib(4, 16, 0), IBF_SPEED_XDR);
	TT_EQ_INT(ibf_speed_from_ib(4, 32, 0), IBF_SPEED_XDR);
	TT_EQ_INT(ibf_speed_from_ib(0, 64, 0), IBF_SPEED_UNKNOWN);
	TT_EQ_INT(ibf_speed_from_ib(7, 1 | 2 | 4, 1), IBF_SPEED_HDR); /* supported */
	TT_EQ_INT(ibf_speed_from_ib(7, 0, 1), IBF_SPEED_FDR10);
	TT_EQ_INT(ibf_speed_from_ib(7, 0, 0), IBF_SPEED_QDR);
	/* every decoded speed has a name and a rate */
	for (unsigned e = 1; e <= 32; e <<= 1) {
		int sp = ibf_speed_from_ib(0, e, 0);
		TT_CHECK(ibf_speed_name(sp)[0] != '\0');
		TT_CHECK(ibf_speed_rate(sp) > 0);
	}
}

/* A name that fits two nodes: the first is returned and the second given
 * as the duplicate, for each way of naming; a unique name has none. */
static void test_find_name_dup(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	int s = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x10, "sw", "S-10", NULL);
	int a = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x20, "h1 HCA-1", "H-20", NULL);
	int b = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x30, "h1 HCA-2", "H-30", NULL);
	int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x40, "MT25408 ConnectX", "H-40", NULL);
	int d = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x50, "MT25408 ConnectX", "H-50", NULL);
	int e = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x50, "h9 HCA-1", "H-50#2", NULL);
	TT_REQUIRE(s >= 0 && a >= 0 && b >= 0 && c >= 0 && d >= 0 && e >= 0);
	ibf_port(f, a, 1)->guid = 0x21;
	ibf_port(f, b, 1)->guid = 0x31;
	ibf_port(f, c, 1)->guid = 0x99;
	ibf_port(f, d, 1)->guid = 0x99;
	int port, dup;
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "h1", &port, &dup), a);
	TT_EQ_INT(dup, b);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "MT25408 ConnectX", &port, &dup), c);
	TT_EQ_INT(dup, d);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "MT25408", &port, &dup), c);
	TT_EQ_INT(dup, d);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "0x50", &port, &dup), d);
	TT_EQ_INT(dup, e);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "0x99", &port, &dup), c);
	TT_EQ_INT(dup, d);
	TT_EQ_INT(port, 1);
	/* unique: by name, description, first word, node and port GUID */
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "H-30", &port, &dup), b);
	TT_EQ_INT(dup, -1);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "h1 HCA-2", &port, &dup), b);
	TT_EQ_INT(dup, -1);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "h9", &port, &dup), e);
	TT_EQ_INT(dup, -1);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "0x20", &port, &dup), a);
	TT_EQ_INT(dup, -1);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "0x31", &port, &dup), b);
	TT_EQ_INT(dup, -1);
	TT_EQ_INT(port, 1);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "sw", &port, &dup), s);
	TT_EQ_INT(dup, -1);
	TT_EQ_INT(ibf_fabric_find_name_dup(f, "nosuch", &port, &dup), -1);
	TT_EQ_INT(dup, -1);
	/* the old call still returns the first */
	TT_EQ_INT(ibf_fabric_find_name(f, "h1", NULL), a);
	ibf_fabric_free(f);
}

int main(void)
{
	TT(test_ring_csr);
	TT(test_ring_stats);
	TT(test_disconnected);
	TT(test_parallel_and_degraded);
	TT(test_find_name_dup);
	TT(test_degraded_rule);
	TT(test_degraded_usual);
	TT(test_degraded_whole_bundle);
	TT(test_degraded_split_ports);
	TT(test_degraded_roundtrip);
	TT(test_lids);
	TT(test_missing_lids);
	TT(test_missing_lids_stale);
	TT(test_lmc_exhaustion);
	TT(test_meta_and_clone);
	TT(test_width_speed);
	TT(test_ib_decoder);
	TT(test_guid_index);
	TT(test_rows_permute);
	return tt_done();
}
