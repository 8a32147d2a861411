/* Unit tests for topology file I/O: the readers on real and captured
 * fixtures, writer round trips, garbage input, node-name-maps. */
#include "ibf_topology.h"
#include "tt.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

static const char *fixtures_dir(void)
{
	const char *d = getenv("FIXTURES");
	if (d && *d)
		return d;
	if (access("../tests/fixtures", R_OK) == 0)
		return "../tests/fixtures";
	return "tests/fixtures";
}

static char *fixture_path(const char *rel)
{
	static char buf[4][1024];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", fixtures_dir(), rel);
	return buf[k];
}

static struct ibf_fabric *read_fixture(const char *rel, int fmt)
{
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = ibf_fabric_read(fixture_path(rel), fmt, &err);
	if (!f) {
		char m[800];
		printf("# %s\n", ibf_error_format(&err, m, sizeof(m)));
	}
	return f;
}

static int count_type(const struct ibf_fabric *f, int type)
{
	int n = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		n += f->nodes[i].type == type;
	return n;
}

/* undirected links (loopbacks count once) of the given width and speed
 * (-1: any) */
static int count_links_ws(const struct ibf_fabric *f, int width, int speed)
{
	int n = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			if (((uint32_t)pp->peer_node > i ||
			     ((uint32_t)pp->peer_node == i && pp->peer_port > p)) &&
			    (width < 0 || pp->width == width) && (speed < 0 || pp->speed == speed))
				n++;
		}
	return n;
}

static int count_links(const struct ibf_fabric *f)
{
	return count_links_ws(f, -1, -1);
}

static int count_width(const struct ibf_fabric *f, int width)
{
	return count_links_ws(f, width, -1);
}

static int count_speed(const struct ibf_fabric *f, int speed)
{
	return count_links_ws(f, -1, speed);
}

static int find_id(const struct ibf_fabric *f, const char *id)
{
	return ibf_fabric_find_id(f, id);
}

static long meta_long(const struct ibf_fabric *f, const char *key)
{
	char buf[64];
	if (!ibf_fabric_get_meta(f, key, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

static struct ibf_fabric *parse_str(const char *s, int fmt, struct ibf_error *err)
{
	ibf_error_clear(err);
	return ibf_fabric_parse(s, strlen(s), "test.txt", fmt, err);
}

/* ------------------------------------------------------------ real fixtures */

static void test_voltaire_2007(void)
{
	struct ibf_fabric *f = read_fixture(
		"real/sdr-voltaire-manpage-nonchassis-2007.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 2);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 4);
	TT_EQ_INT(f->nnodes, 6);
	TT_EQ_INT(count_links(f), 7);
	TT_EQ_INT(count_width(f, 1), 2); /* two 1xSDR degraded links */
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	int s1 = find_id(f, "S-005442ba00003080"), s2 = find_id(f, "S-0008f10400410015");
	int h = find_id(f, "H-0008f10403960558");
	TT_REQUIRE(s1 >= 0 && s2 >= 0 && h >= 0);
	TT_CHECK(!strcmp(f->nodes[s1].desc, "ISR9024 Voltaire"));
	TT_EQ_INT(f->nodes[s1].nports, 24);
	TT_EQ_INT(f->nodes[s2].nports, 8);
	TT_CHECK(f->nodes[s1].guid == 0x5442ba00003080ULL);
	TT_CHECK(f->nodes[s1].sysimg_guid == 0x5442ba00003000ULL);
	TT_CHECK(f->nodes[s2].sysimg_guid == 0); /* no sysimgguid line */
	TT_EQ_INT(f->nodes[s1].vendid, 0x8f1);
	TT_EQ_INT(f->nodes[s1].devid, 0x5a06);
	TT_EQ_INT(ibf_port(f, s1, 0)->lid, 6);
	TT_EQ_INT(ibf_port(f, s2, 0)->lid, 3);
	TT_CHECK(ibf_port(f, s1, 0)->guid == 0x5442ba00003080ULL);
	TT_EQ_INT(f->nodes[s1].enhanced_sp0, 0);
	/* the multi-port HCA has both ports on s1 */
	TT_EQ_INT(f->nodes[h].nports, 2);
	TT_EQ_INT(ibf_port(f, h, 1)->peer_node, s1);
	TT_EQ_INT(ibf_port(f, h, 1)->peer_port, 12);
	TT_EQ_INT(ibf_port(f, h, 1)->width, 1);
	TT_EQ_INT(ibf_port(f, h, 1)->speed, IBF_SPEED_SDR);
	TT_EQ_INT(ibf_port(f, h, 2)->peer_node, s1);
	TT_EQ_INT(ibf_port(f, h, 2)->peer_port, 8);
	TT_EQ_INT(ibf_port(f, h, 2)->width, 4);
	TT_CHECK(ibf_port(f, h, 2)->guid == 0x8f1040396055aULL);
	TT_EQ_INT(ibf_port(f, h, 2)->lid, 14);
	TT_EQ_INT(ibf_port(f, h, 2)->lmc, 1);
	TT_CHECK(f->nodes[h].guid == 0x8f10403960558ULL);
	/* parallel switch links s2[1]-s1[10] (1x) and s2[3]-s1[6] */
	TT_EQ_INT(ibf_port(f, s2, 1)->peer_node, s1);
	TT_EQ_INT(ibf_port(f, s2, 1)->peer_port, 10);
	TT_EQ_INT(ibf_port(f, s2, 1)->width, 1);
	TT_EQ_INT(ibf_port(f, s2, 3)->peer_port, 6);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.sw_links, 2);
	TT_EQ_INT(st.parallel_links, 1);
	TT_EQ_INT(st.host_links, 5);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
}

static void test_mt43132_2009(void)
{
	struct ibf_fabric *f =
		read_fixture("real/sdr-mt43132-1switch-2hosts-2009.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 1);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 2);
	TT_EQ_INT(count_links(f), 2);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	int sw = find_id(f, "S-000b8cffff0053ee");
	int a = find_id(f, "H-0002c902002789ac"), b = find_id(f, "H-0002c9030002847c");
	TT_REQUIRE(sw >= 0 && a >= 0 && b >= 0);
	TT_CHECK(f->nodes[sw].sysimg_guid == 0);
	TT_EQ_INT(f->nodes[a].nports, 2);
	TT_EQ_INT(f->nodes[b].nports, 2);
	TT_EQ_INT(ibf_port(f, a, 1)->peer_node, sw);
	TT_EQ_INT(ibf_port(f, a, 2)->peer_node, IBF_NO_NODE);
	TT_EQ_INT(ibf_port(f, b, 1)->peer_node, IBF_NO_NODE);
	TT_EQ_INT(ibf_port(f, b, 2)->peer_node, sw);
	TT_EQ_INT(ibf_port(f, b, 2)->peer_port, 2);
	TT_CHECK(!strcmp(f->nodes[b].desc, "compute-00-00 HCA-1"));
	TT_EQ_INT(ibf_port(f, b, 2)->lid, 2);
	ibf_fabric_free(f);
}

static void test_mixed_loopbacks_2016(void)
{
	struct ibf_fabric *f =
		read_fixture("real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover",
			     IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 2);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 6);
	TT_EQ_INT(count_links(f), 10);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	TT_EQ_INT(meta_long(f, "stderr_lines"), 1); /* the src/query_smp.c line */
	int ib = find_id(f, "S-e41d2d030003e470"), sx = find_id(f, "S-f4521403005764b0");
	TT_REQUIRE(ib >= 0 && sx >= 0);
	TT_EQ_INT(f->nodes[ib].nports, 36);
	TT_EQ_INT(f->nodes[sx].nports, 12);
	TT_EQ_INT(f->nodes[sx].enhanced_sp0, 1);
	TT_EQ_INT(f->nodes[ib].enhanced_sp0, 0);
	TT_CHECK(!strcmp(f->nodes[sx].desc, "MF0;switch-de779e:SX6012/U1"));
	TT_EQ_INT(ibf_port(f, ib, 0)->lid, 268);
	TT_EQ_INT(ibf_port(f, sx, 0)->lid, 174);
	/* loopbacks 1<->2, 19<->21, 29<->30 */
	TT_EQ_INT(ibf_port(f, ib, 1)->peer_node, ib);
	TT_EQ_INT(ibf_port(f, ib, 1)->peer_port, 2);
	TT_EQ_INT(ibf_port(f, ib, 19)->peer_port, 21);
	TT_EQ_INT(ibf_port(f, ib, 30)->peer_port, 29);
	TT_EQ_INT(ibf_port(f, ib, 1)->speed, IBF_SPEED_EDR);
	TT_EQ_INT(ibf_port(f, ib, 3)->peer_node, sx);
	TT_EQ_INT(ibf_port(f, ib, 3)->speed, IBF_SPEED_FDR);
	/* the EDR HCA trained at 4xSDR */
	int u96 = find_id(f, "H-e41d2d03005cf1f8");
	TT_REQUIRE(u96 >= 0);
	TT_EQ_INT(ibf_port(f, u96, 1)->speed, IBF_SPEED_SDR);
	TT_EQ_INT(ibf_port(f, u96, 1)->width, 4);
	TT_EQ_INT(ibf_port(f, u96, 1)->lid, 1);
	/* a 2-port CA cabled on port 2 only */
	int u111 = find_id(f, "H-0002c903003421b0");
	TT_REQUIRE(u111 >= 0);
	TT_EQ_INT(f->nodes[u111].nports, 2);
	TT_EQ_INT(ibf_port(f, u111, 1)->peer_node, IBF_NO_NODE);
	TT_EQ_INT(ibf_port(f, u111, 2)->peer_node, ib);
	TT_EQ_INT(ibf_port(f, u111, 2)->peer_port, 35);
	TT_CHECK(ibf_port(f, u111, 2)->guid == 0x2c903003421b2ULL);
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.loopback_links, 3);
	TT_EQ_INT(st.host_links, 6);
	ibf_stats_free(&st);
	ibf_fabric_free(f);
}

static void test_qdr_single_space_separator(void)
{
	struct ibf_fabric *f =
		read_fixture("real/qdr-sun-dcs36-1switch-1host.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nnodes, 2);
	TT_EQ_INT(count_links(f), 1);
	int sw = find_id(f, "S-0021283a8389a0a0"), h = find_id(f, "H-0003ba000100e388");
	TT_REQUIRE(sw >= 0 && h >= 0);
	TT_EQ_INT(f->nodes[sw].enhanced_sp0, 1);
	TT_EQ_INT(ibf_port(f, sw, 0)->lid, 15);
	TT_EQ_INT(ibf_port(f, h, 2)->peer_node, sw);
	TT_EQ_INT(ibf_port(f, h, 2)->peer_port, 23);
	TT_EQ_INT(ibf_port(f, h, 2)->speed, IBF_SPEED_QDR);
	TT_EQ_INT(ibf_port(f, h, 2)->lid, 14);
	TT_CHECK(!strcmp(f->nodes[sw].desc, "Sun DCS 36 QDR switch localhost"));
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	ibf_fabric_free(f);
}

static void test_ports_report_excerpt(void)
{
	struct ibf_fabric *f = read_fixture("real/edr-osc-excerpt.ibnetdiscover-p", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 4);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 3);
	TT_EQ_INT(count_links(f), 4);
	TT_EQ_INT(meta_long(f, "one_sided"), 1); /* ib-i1l1s01[1] -> ib-i1l2s01[1] */
	int l1 = ibf_fabric_find_guid(f, 0x7cfe9003009ce5b0ULL);
	int l4 = ibf_fabric_find_guid(f, 0x506b4b03005c2740ULL);
	int l2 = ibf_fabric_find_guid(f, 0x7cfe900300b07320ULL);
	int l7 = ibf_fabric_find_guid(f, 0x08c0eb0300add20eULL);
	TT_REQUIRE(l1 >= 0 && l4 >= 0 && l2 >= 0 && l7 >= 0);
	TT_CHECK(!strcmp(f->nodes[l1].desc, "ib-i1l1s01"));
	TT_CHECK(!strcmp(f->nodes[l2].desc, "ib-i1l2s01"));
	TT_EQ_INT(f->nodes[l1].nports, 11);
	TT_EQ_INT(f->nodes[l4].nports, 37);
	TT_EQ_INT(f->nodes[l7].nports, 80);
	TT_EQ_INT(ibf_port(f, l4, 37)->peer_node, IBF_NO_NODE);
	TT_EQ_INT(ibf_port(f, l1, 0)->lid, 1719);
	TT_EQ_INT(ibf_port(f, l1, 1)->peer_node, l2);
	int port = 0;
	int o1 = ibf_fabric_find_port_guid(f, 0x7cfe9003003b4bdeULL, &port);
	TT_REQUIRE(o1 >= 0);
	TT_EQ_INT(port, 1);
	TT_CHECK(!strcmp(f->nodes[o1].desc, "o0001 HCA-1"));
	TT_EQ_INT(ibf_port(f, o1, 1)->lid, 134);
	TT_EQ_INT(ibf_port(f, o1, 1)->peer_node, l1);
	TT_EQ_INT(ibf_port(f, o1, 1)->peer_port, 10);
	TT_EQ_INT(ibf_port(f, o1, 1)->speed, IBF_SPEED_EDR);
	TT_EQ_INT(ibf_port(f, o1, 1)->width, 4);
	ibf_fabric_free(f);
}

/* The counts below were taken from the files with awk/grep (SW lines by
 * GUID, CA lines by port GUID, lines with a peer halved), not from ibfab. */

/* stats of a fabric: switches, CAs, switch links, distinct switch pairs,
 * host links, diameter */
static void check_stats(const struct ibf_fabric *f, int sw, int ca, int swl, int pairs, int hl,
			int diam)
{
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, NULL) == 0);
	TT_EQ_INT(st.nswitches, sw);
	TT_EQ_INT(st.ncas, ca);
	TT_EQ_INT(st.nrouters, 0);
	TT_EQ_INT(st.sw_links, swl);
	TT_EQ_INT(st.sw_pairs_linked, pairs);
	TT_EQ_INT(st.parallel_links, swl - pairs);
	TT_EQ_INT(st.host_links, hl);
	TT_EQ_INT(st.loopback_links, 0);
	TT_EQ_INT(st.components, 1);
	TT_EQ_INT(st.diameter, diam);
	ibf_stats_free(&st);
}

static void test_qlogic_chassis_show_ports(void)
{
	/* ibnetdiscover -s -p: 834 progress lines, then the ports report */
	struct ibf_fabric *f = read_fixture(
		"real/qdr-qlogic-12800-avakas-25sw-281hca-2016.ibnetdiscover-s-p", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	char buf[64];
	TT_CHECK(ibf_fabric_get_meta(f, "format", buf, sizeof(buf)) &&
		 !strcmp(buf, "ibnetdiscover-p"));
	TT_EQ_INT(meta_long(f, "progress_lines"), 834);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 25);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 281);
	TT_EQ_INT(count_links(f), 288 + 281);
	TT_EQ_INT(count_width(f, 4), 569);
	TT_EQ_INT(count_speed(f, IBF_SPEED_QDR), 568);
	TT_EQ_INT(count_speed(f, IBF_SPEED_DDR), 1);
	check_stats(f, 25, 281, 288, 144, 281, 2);
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == IBF_NODE_SWITCH)
			TT_EQ_INT(f->nodes[i].nports, 36);
	/* a leaf of the chassis: node GUID 0x00066a02e8001310 (the chassis GUID
	 * in every description is 0x00066a00e8001310) */
	int l101 = ibf_fabric_find_guid(f, 0x00066a02e8001310ULL);
	TT_REQUIRE(l101 >= 0);
	TT_CHECK(!strcmp(f->nodes[l101].desc, "QLogic 12800-180 GUID=0x00066a00e8001310 L101"));
	TT_EQ_INT(ibf_port(f, l101, 0)->lid, 1);
	int port = 0;
	int h = ibf_fabric_find_port_guid(f, 0x001175000077cfa0ULL, &port);
	TT_REQUIRE(h >= 0);
	TT_EQ_INT(port, 1);
	TT_CHECK(!strcmp(f->nodes[h].desc, "node053 HCA-1"));
	TT_EQ_INT(ibf_port(f, h, 1)->lid, 77);
	TT_EQ_INT(ibf_port(f, h, 1)->peer_node, l101);
	TT_EQ_INT(ibf_port(f, h, 1)->peer_port, 17);
	/* the one 4xDDR link: node008 on leaf L107 port 6 */
	int l107 = ibf_fabric_find_guid(f, 0x00066a00ec002e04ULL);
	int n8 = ibf_fabric_find_port_guid(f, 0x001175000077f8e0ULL, &port);
	TT_REQUIRE(l107 >= 0 && n8 >= 0);
	TT_EQ_INT(ibf_port(f, l107, 6)->peer_node, n8);
	TT_EQ_INT(ibf_port(f, l107, 6)->speed, IBF_SPEED_DDR);
	ibf_fabric_free(f);
}

static void test_voltaire_mellanox_mix_show_ports(void)
{
	struct ibf_fabric *f = read_fixture(
		"real/qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(meta_long(f, "progress_lines"), 270);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	TT_EQ_INT(count_links(f), 76 + 125);
	TT_EQ_INT(count_width(f, 4), 201);
	TT_EQ_INT(count_speed(f, IBF_SPEED_QDR), 163);
	TT_EQ_INT(count_speed(f, IBF_SPEED_DDR), 32);
	TT_EQ_INT(count_speed(f, IBF_SPEED_SDR), 6);
	check_stats(f, 9, 125, 76, 12, 125, 5);
	/* names with '#', an older 24-port Infiniscale-III among 36-port switches */
	int v8500 = ibf_fabric_find_guid(f, 0x0008f10500108500ULL);
	int v8524 = ibf_fabric_find_guid(f, 0x0008f10500108524ULL);
	int is3 = ibf_fabric_find_guid(f, 0x000b8cffff004939ULL);
	TT_REQUIRE(v8500 >= 0 && v8524 >= 0 && is3 >= 0);
	TT_CHECK(!strcmp(f->nodes[v8500].desc, "Voltaire 4036 # 4036-8500"));
	TT_EQ_INT(f->nodes[v8500].nports, 36);
	TT_EQ_INT(f->nodes[is3].nports, 24);
	TT_CHECK(!strcmp(f->nodes[is3].desc, "MT47396 Infiniscale-III Mellanox Technologies"));
	/* the switch-switch cable that trained at 4xSDR among QDR twins */
	TT_EQ_INT(ibf_port(f, v8500, 7)->peer_node, v8524);
	TT_EQ_INT(ibf_port(f, v8500, 7)->peer_port, 7);
	TT_EQ_INT(ibf_port(f, v8500, 7)->speed, IBF_SPEED_SDR);
	TT_EQ_INT(ibf_port(f, v8524, 18)->peer_node, is3);
	TT_EQ_INT(ibf_port(f, v8524, 18)->speed, IBF_SPEED_DDR);
	/* reported as degraded: 8 twin cables between the same two switches
	 * run 4xQDR */
	struct ibf_degraded *d = NULL;
	uint32_t nd = 0;
	TT_REQUIRE(ibf_find_degraded(f, &d, &nd, NULL) == 0);
	int found = 0;
	for (uint32_t i = 0; i < nd; i++)
		if ((d[i].node_a == v8500 || d[i].node_a == v8524) && d[i].port_a == 7) {
			found++;
			TT_EQ_INT(d[i].evidence, IBF_DEGR_TWINS);
			TT_EQ_INT(d[i].peers, 8);
			TT_EQ_INT(d[i].exp_speed, IBF_SPEED_QDR);
		}
	TT_EQ_INT(found, 1);
	free(d);
	ibf_fabric_free(f);
}

static void test_truescale_two_subnets_show_ports(void)
{
	struct ibf_fabric *f = read_fixture(
		"real/qdr-truescale-plafrim2-7sw-2016.ibnetdiscover-s-p", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(meta_long(f, "progress_lines"), 209);
	TT_EQ_INT(count_links(f), 59 + 96);
	TT_EQ_INT(count_speed(f, IBF_SPEED_QDR), 155);
	check_stats(f, 7, 96, 59, 10, 96, 2);
	int core = ibf_fabric_find_guid(f, 0x00066a00e3006cb2ULL);
	TT_REQUIRE(core >= 0);
	TT_CHECK(!strcmp(f->nodes[core].desc, "ibcore01"));
	ibf_fabric_free(f);
	/* the second subnet (fe80::1) of the same cluster: one IS5030 */
	f = read_fixture("real/qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(meta_long(f, "progress_lines"), 24);
	TT_EQ_INT(count_links(f), 23);
	TT_EQ_INT(count_speed(f, IBF_SPEED_QDR), 22);
	TT_EQ_INT(count_speed(f, IBF_SPEED_SDR), 1);
	check_stats(f, 1, 23, 0, 0, 23, 0);
	int sw = ibf_fabric_find_guid(f, 0x0002c90200493108ULL);
	TT_REQUIRE(sw >= 0);
	TT_CHECK(!strcmp(f->nodes[sw].desc, "MF0;switchIB-MLX01:IS5030/U1"));
	ibf_fabric_free(f);
}

static void test_sx6036_fdr10_2014(void)
{
	struct ibf_fabric *f =
		read_fixture("real/fdr10-qdr-sx6036-8sw-2014.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	TT_EQ_INT(count_links(f), 47 + 145);
	TT_EQ_INT(count_speed(f, IBF_SPEED_FDR10), 47);
	TT_EQ_INT(count_speed(f, IBF_SPEED_QDR), 145);
	check_stats(f, 8, 144, 47, 12, 145, 2);
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (f->nodes[i].type == IBF_NODE_CA)
			TT_EQ_INT(f->nodes[i].nports, 2);
	/* tank1 has both ports on ib7 (ports 12 and 9) */
	int ib7 = find_id(f, "S-f4521403007eaa70"), tank1 = find_id(f, "H-f452140300081a20");
	TT_REQUIRE(ib7 >= 0 && tank1 >= 0);
	TT_CHECK(!strcmp(f->nodes[ib7].desc, "MF0;ib7:SX6036/U1"));
	TT_EQ_INT(f->nodes[ib7].enhanced_sp0, 1);
	TT_EQ_INT(ibf_port(f, ib7, 0)->lid, 18);
	TT_EQ_INT(ibf_port(f, tank1, 1)->peer_node, ib7);
	TT_EQ_INT(ibf_port(f, tank1, 1)->peer_port, 12);
	TT_EQ_INT(ibf_port(f, tank1, 2)->peer_node, ib7);
	TT_EQ_INT(ibf_port(f, tank1, 2)->peer_port, 9);
	TT_EQ_INT(ibf_port(f, tank1, 2)->lid, 10);
	ibf_fabric_free(f);
}

static void test_ports_report_shared_guid(void)
{
	/* two aggregation nodes with one port GUID (0x946dae0300630bfe, LIDs 78
	 * and 60) on port 81 of two 81-port switches: the adapter's own line
	 * (line 1) keeps it on the leaf, the spine's line gets a copy */
	struct ibf_fabric *f = read_fixture(
		"real/hdr-quantum2-excerpt-shared-an-guid.ibnetdiscover-p", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 5);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 3);
	TT_EQ_INT(count_links(f), 3);
	TT_EQ_INT(meta_long(f, "one_sided"), 3);
	int leaf = ibf_fabric_find_guid(f, 0x946dae0300630bf6ULL);
	int spine = ibf_fabric_find_guid(f, 0x946dae030053ec1aULL);
	int an = find_id(f, "H-946dae0300630bfd"), an2 = find_id(f, "H-946dae0300630bfd#2");
	int s2 = ibf_fabric_find_guid(f, 0x946dae0300618c83ULL);
	TT_REQUIRE(leaf >= 0 && spine >= 0 && an >= 0 && an2 >= 0 && s2 >= 0);
	TT_EQ_INT(f->nodes[leaf].nports, 81);
	TT_EQ_INT(f->nodes[spine].nports, 81);
	/* names keep their blanks */
	TT_CHECK(!strcmp(f->nodes[leaf].desc, "5FB0405-leaf-IB01 "));
	TT_CHECK(!strcmp(f->nodes[s2].desc, " 5FB0406-spine-IB02 "));
	TT_CHECK(!strcmp(f->nodes[an2].desc, "Mellanox Technologies Aggregation Node"));
	TT_EQ_INT(ibf_port(f, an, 1)->peer_node, leaf);
	TT_EQ_INT(ibf_port(f, an, 1)->peer_port, 81);
	TT_EQ_INT(ibf_port(f, an, 1)->lid, 78);
	TT_EQ_INT(ibf_port(f, an2, 1)->peer_node, spine);
	TT_EQ_INT(ibf_port(f, an2, 1)->peer_port, 81);
	TT_EQ_INT(ibf_port(f, an2, 1)->lid, 60);
	TT_EQ_INT(ibf_port(f, an2, 1)->speed, IBF_SPEED_HDR);
	TT_CHECK(ibf_port(f, an2, 1)->guid == 0x946dae0300630bfeULL);
	struct ibf_dup_guid *d = NULL;
	uint32_t nd = 0;
	TT_REQUIRE(ibf_find_dup_guids(f, &d, &nd, NULL) == 0);
	TT_EQ_INT(nd, 2);
	if (nd == 2) {
		TT_CHECK(d[0].guid == 0x946dae0300630bfeULL && d[1].guid == d[0].guid);
		TT_CHECK((d[0].node == an && d[1].node == an2) ||
			 (d[0].node == an2 && d[1].node == an));
	}
	free(d);
	ibf_fabric_free(f);
	/* the adapter's own line last: it still wins, the earlier switch line
	 * gets the copy */
	const char *t = "SW 9 81 0x20 4x HDR - CA 60 1 0x1001 ( 'spine' - 'an' )\n"
			"SW 51 81 0x10 4x HDR - CA 78 1 0x1001 ( 'leaf' - 'an' )\n"
			"CA 78 1 0x1001 4x HDR - SW 51 81 0x10 ( 'an' - 'leaf' )\n";
	struct ibf_error err;
	f = parse_str(t, IBF_FMT_AUTO, &err);
	TT_REQUIRE(f);
	an = find_id(f, "H-0000000000001000");
	an2 = find_id(f, "H-0000000000001000#2");
	leaf = ibf_fabric_find_guid(f, 0x10);
	spine = ibf_fabric_find_guid(f, 0x20);
	TT_REQUIRE(an >= 0 && an2 >= 0 && leaf >= 0 && spine >= 0);
	TT_EQ_INT(ibf_port(f, an, 1)->peer_node, leaf);
	TT_EQ_INT(ibf_port(f, an2, 1)->peer_node, spine);
	TT_EQ_INT(meta_long(f, "one_sided"), 1);
	ibf_fabric_free(f);
	/* two switches claiming one switch port is still an error */
	const char *u = "SW 1 1 0x10 4x QDR - SW 2 1 0x20 ( 'a' - 'b' )\n"
			"SW 3 1 0x30 4x QDR - SW 2 1 0x20 ( 'c' - 'b' )\n";
	TT_CHECK(parse_str(u, IBF_FMT_AUTO, &err) == NULL);
	TT_EQ_INT(err.line, 2);
	TT_CHECK_MSG(strstr(err.msg, "line 1 links 'S-0000000000000020'[1] to "
				     "'S-0000000000000010'[1]") != NULL,
		     "%s", err.msg);
}

static void test_sniff_fixtures(void)
{
	static const struct {
		const char *file;
		int fmt;
	} t[] = {
		{ "real/sdr-voltaire-manpage-nonchassis-2007.ibnetdiscover",
		  IBF_FMT_IBNETDISCOVER },
		{ "real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover",
		  IBF_FMT_IBNETDISCOVER },
		{ "real/edr-osc-excerpt.ibnetdiscover-p", IBF_FMT_IBNETDISCOVER_P },
		{ "real/qdr-qlogic-12800-avakas-25sw-281hca-2016.ibnetdiscover-s-p",
		  IBF_FMT_IBNETDISCOVER_P },
		{ "real/fdr10-qdr-sx6036-8sw-2014.ibnetdiscover", IBF_FMT_IBNETDISCOVER },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ibf_fabric *f = read_fixture(t[i].file, IBF_FMT_AUTO);
		TT_REQUIRE(f);
		char buf[64];
		TT_CHECK(ibf_fabric_get_meta(f, "format", buf, sizeof(buf)));
		TT_CHECK_MSG(!strcmp(buf, ibf_format_name(t[i].fmt)), "%s: %s", t[i].file, buf);
		ibf_fabric_free(f);
	}
}

/* ------------------------------------------------------------ grammar variants */

static const char *const variants_txt =
	"ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1)\n"
	"#\n# Topology file: generated on today\n#\n"
	"Non-Chassis Nodes\n"
	"vendid=0x2c9\n"
	"devid=0xcb20\n"
	"switchguid=0x1000(1000)\n"
	"Switch\t8 \"S-0000000000001000\"\t\t# \" sw \"a\" # b \" enhanced port 0 lid 4 lmc 1\n"
	"[1]\t\"H-0000000000002000\"[1](2001) \t\t# \"h # 1\" lid 7 4xHDR\n"
	"[2]\t\"H-0000000000002000\"[2](2002) \t\t# \"h # 1\" lid 8 4xNDR\n"
	"[3]\t\"R-0000000000003000\"[1](3001) \t\t# \"rt\" lid 13 4xFDR10\n"
	"[4][ext 7]\t\"S-0000000000004000\"[1][ext 2]\t\t# \"old sw\" lid 12\n"
	"vendid=0x2c9\n"
	"devid=0x1017\n"
	"caguid=0x2000\n"
	"Ca\t2 \"H-0000000000002000\"\t\t# \"h # 1\"\n"
	"[1](2001) \t\"S-0000000000001000\"[1]\t\t# lid 7 lmc 0 \" sw \"a\" # b \" lid 4 4xHDR\n"
	"[2](2002) \t\"S-0000000000001000\"[2]\t\t# lid 8 lmc 2 \" sw \"a\" # b \" lid 4 4xNDR s=4 w=2 v=8\n"
	" \n"
	"vendid=0x2c9\n"
	"devid=0x1017\n"
	"rtguid=0x3000\n"
	"Rt\t1 \"R-0000000000003000\"\t\t# \"rt\"\n"
	"[1](3001) \t\"S-0000000000001000\"[3]\t\t# lid 13 lmc 0 \" sw \"a\" # b \" lid 4 4xFDR10\n"
	"vendid=0x8f1\n"
	"devid=0x5a05\n"
	"switchguid=0x4000(4000)\n"
	"Switch 4 \"S-0000000000004000\" # \"old sw\" base port 0 lid 12 lmc 0\n"
	"[1] \"S-0000000000001000\"[4] # \" sw \"a\" # b \" lid 4\n";

static void test_grammar_variants(void)
{
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(variants_txt, IBF_FMT_AUTO, &err);
	char m[800];
	TT_REQUIRE(f || (printf("# %s\n", ibf_error_format(&err, m, sizeof(m))), 0));
	TT_EQ_INT(f->nnodes, 4);
	int sw = find_id(f, "S-0000000000001000"), h = find_id(f, "H-0000000000002000");
	int rt = find_id(f, "R-0000000000003000"), old = find_id(f, "S-0000000000004000");
	TT_REQUIRE(sw >= 0 && h >= 0 && rt >= 0 && old >= 0);
	TT_CHECK_MSG(!strcmp(f->nodes[sw].desc, " sw \"a\" # b "), "desc '%s'", f->nodes[sw].desc);
	TT_CHECK(!strcmp(f->nodes[h].desc, "h # 1"));
	TT_EQ_INT(f->nodes[rt].type, IBF_NODE_ROUTER);
	TT_EQ_INT(f->nodes[sw].enhanced_sp0, 1);
	TT_EQ_INT(ibf_port(f, sw, 0)->lid, 4);
	TT_EQ_INT(ibf_port(f, sw, 0)->lmc, 1);
	TT_EQ_INT(ibf_port(f, h, 2)->lmc, 2);
	TT_EQ_INT(ibf_port(f, h, 1)->speed, IBF_SPEED_HDR);
	TT_EQ_INT(ibf_port(f, h, 2)->speed, IBF_SPEED_NDR);
	TT_EQ_INT(ibf_port(f, rt, 1)->speed, IBF_SPEED_FDR10);
	TT_EQ_INT(ibf_port(f, old, 1)->peer_node, sw);
	TT_EQ_INT(ibf_port(f, old, 1)->width, 0); /* old files: no width/speed */
	TT_EQ_INT(ibf_port(f, old, 1)->speed, 0);
	TT_CHECK(ibf_port(f, rt, 1)->guid == 0x3001);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	TT_EQ_INT(meta_long(f, "stderr_lines"), 1);
	ibf_fabric_free(f);
}

static void test_one_sided_and_placeholder(void)
{
	struct ibf_error err;
	/* s1 port 2 goes to a switch nobody describes; s2 lists no ports */
	const char *txt = "switchguid=0x10(10)\n"
			  "Switch 4 \"S-0000000000000010\" # \"s1\" base port 0 lid 1 lmc 0\n"
			  "[1] \"S-0000000000000020\"[3] # \"s2\" lid 2 4xEDR\n"
			  "[2] \"S-0000000000000099\"[7] # \"ghost\" lid 9 4xEDR\n"
			  "\n"
			  "switchguid=0x20(20)\n"
			  "Switch 4 \"S-0000000000000020\" # \"s2\" base port 0 lid 2 lmc 0\n";
	struct ibf_fabric *f = parse_str(txt, IBF_FMT_IBNETDISCOVER, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nnodes, 3);
	TT_EQ_INT(count_links(f), 2);
	TT_EQ_INT(meta_long(f, "one_sided"), 2);
	TT_EQ_INT(meta_long(f, "placeholders"), 1);
	int g = find_id(f, "S-0000000000000099");
	TT_REQUIRE(g >= 0);
	TT_EQ_INT(f->nodes[g].type, IBF_NODE_SWITCH);
	TT_EQ_INT(f->nodes[g].nports, 7);
	TT_CHECK(f->nodes[g].guid == 0x99);
	TT_CHECK(!strcmp(f->nodes[g].desc, "ghost"));
	TT_EQ_INT(ibf_port(f, g, 0)->lid, 9);
	/* the first one-sided link (lowest line) as the end a line described,
	 * for the commands' warning: s1 port 1 on line 3; s2 describes no port */
	TT_EQ_INT(meta_long(f, "one_sided_line"), 3);
	TT_EQ_INT(meta_long(f, "one_sided_node"), find_id(f, "S-0000000000000010"));
	TT_EQ_INT(meta_long(f, "one_sided_port"), 1);
	TT_EQ_INT(meta_long(f, "one_sided_peer_described"), 0);
	ibf_fabric_free(f);
	/* s2 names s1 port 1 back, not port 2 (line 4) */
	const char *txt2 = "switchguid=0x10(10)\n"
			   "Switch 4 \"S-0000000000000010\" # \"s1\" base port 0 lid 1 lmc 0\n"
			   "[1] \"S-0000000000000020\"[1] # \"s2\" lid 2 4xEDR\n"
			   "[2] \"S-0000000000000020\"[2] # \"s2\" lid 2 4xEDR\n"
			   "\n"
			   "switchguid=0x20(20)\n"
			   "Switch 4 \"S-0000000000000020\" # \"s2\" base port 0 lid 2 lmc 0\n"
			   "[1] \"S-0000000000000010\"[1] # \"s1\" lid 1 4xEDR\n";
	f = parse_str(txt2, IBF_FMT_IBNETDISCOVER, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(meta_long(f, "one_sided"), 1);
	TT_EQ_INT(meta_long(f, "one_sided_line"), 4);
	TT_EQ_INT(meta_long(f, "one_sided_node"), find_id(f, "S-0000000000000010"));
	TT_EQ_INT(meta_long(f, "one_sided_port"), 2);
	TT_EQ_INT(meta_long(f, "one_sided_peer_described"), 1);
	ibf_fabric_free(f);
	/* none: no example keys */
	f = parse_str("switchguid=0x10(10)\n"
		      "Switch 4 \"S-0000000000000010\" # \"s1\" base port 0 lid 1 lmc 0\n",
		      IBF_FMT_IBNETDISCOVER, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	TT_CHECK(!ibf_fabric_get_meta(f, "one_sided_line", NULL, 0));
	ibf_fabric_free(f);
}

static void expect_error(const char *txt, int fmt, long line, const char *what)
{
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(txt, fmt, &err);
	TT_CHECK_MSG(!f, "%s: parsed", what);
	ibf_fabric_free(f);
	if (f)
		return;
	char m[800];
	ibf_error_format(&err, m, sizeof(m));
	TT_CHECK_MSG(err.code == IBF_EPARSE, "%s: code %d (%s)", what, err.code, m);
	TT_CHECK_MSG(err.line == line, "%s: line %ld, want %ld (%s)", what, err.line, line, m);
	TT_CHECK_MSG(!strcmp(err.file, "test.txt"), "%s: file '%s'", what, err.file);
}

/* txt parses, and `guid` is shared by `nodes` nodes */
static void expect_dup(const char *txt, uint64_t guid, uint32_t nodes, const char *what)
{
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(txt, IBF_FMT_IBNETDISCOVER, &err);
	TT_CHECK_MSG(f != NULL, "%s: %s", what, err.msg);
	if (!f)
		return;
	struct ibf_dup_guid *d = NULL;
	uint32_t n = 0;
	TT_CHECK(ibf_find_dup_guids(f, &d, &n, &err) == 0);
	uint32_t hit = 0;
	for (uint32_t i = 0; i < n; i++)
		hit += d[i].guid == guid;
	TT_CHECK_MSG(hit == nodes, "%s: %u nodes with GUID 0x%llx, %u listed", what, hit,
		     (unsigned long long)guid, n);
	free(d);
	ibf_fabric_free(f);
}

/* A switch and a host with the LID fields of each case (line 0: the
 * fabric parses; else the error is at that line and its message says
 * what). */
struct lid_case {
	const char *sw, *ca;
	long line;
};

static void check_lid_cases(const struct lid_case *cases, size_t n, const char *what)
{
	for (size_t k = 0; k < n; k++) {
		char buf[1024];
		snprintf(buf, sizeof(buf),
			 "switchguid=0x10(10)\n"
			 "Switch 4 \"S-0000000000000010\" # \"s1\" base port 0 %s\n"
			 "[1] \"H-0000000000000020\"[1](21) # \"h1\" 4xEDR\n\n"
			 "caguid=0x20\n"
			 "Ca 1 \"H-0000000000000020\" # \"h1\"\n"
			 "[1](21) \"S-0000000000000010\"[1] # %s \"s1\" 4xEDR\n",
			 cases[k].sw, cases[k].ca);
		struct ibf_error err;
		struct ibf_fabric *f = parse_str(buf, IBF_FMT_IBNETDISCOVER, &err);
		if (!cases[k].line) {
			TT_CHECK_MSG(f != NULL, "case %zu: %s", k, err.msg);
			ibf_fabric_free(f);
			continue;
		}
		ibf_fabric_free(f);
		TT_CHECK_MSG(!f, "case %zu parsed", k);
		if (f)
			continue;
		TT_EQ_INT(err.code, IBF_EPARSE);
		TT_EQ_INT(err.line, cases[k].line);
		TT_CHECK_MSG(strstr(err.msg, what), "case %zu: %s", k, err.msg);
	}
}

/* LIDs past the unicast range (0xC000.. multicast, 0xFFFF permissive) were
 * taken as unicast LIDs: routed, and written into LFT dumps OpenSM cannot
 * load.  Refused at the node record's line; the last unicast LID and an
 * LMC block ending on it are fine. */
static void test_lids_beyond_unicast(void)
{
	static const struct lid_case cases[] = {
		{ "lid 1 lmc 0", "lid 49151 lmc 0", 0 },
		{ "lid 1 lmc 0", "lid 49148 lmc 2", 0 },
		{ "lid 1 lmc 0", "lid 49152 lmc 0", 6 },
		{ "lid 1 lmc 0", "lid 65535 lmc 0", 6 },
		{ "lid 1 lmc 0", "lid 49150 lmc 2", 6 },
		{ "lid 49153 lmc 0", "lid 5 lmc 0", 2 },
	};
	check_lid_cases(cases, sizeof(cases) / sizeof(cases[0]), "unicast");
}

/* A base LID with LMC > 0 is a multiple of 2^LMC (the port answers to the
 * block its upper bits name): one that is not is an error at the line of
 * its node record, not read as it stands (routing failed later on a LID
 * "used by" two ports, or a LID outside the block was routed). */
static void test_lid_alignment(void)
{
	static const struct lid_case cases[] = {
		{ "lid 1 lmc 0", "lid 8 lmc 2", 0 },  { "lid 1 lmc 0", "lid 9 lmc 0", 0 },
		{ "lid 1 lmc 0", "lid 13 lmc 2", 6 }, { "lid 1 lmc 0", "lid 6 lmc 2", 6 },
		{ "lid 1 lmc 0", "lid 11 lmc 1", 6 }, { "lid 3 lmc 1", "lid 8 lmc 0", 2 },
		{ "lid 128 lmc 7", "lid 8 lmc 0", 0 },
	};
	check_lid_cases(cases, sizeof(cases) / sizeof(cases[0]), "is not a multiple of");
}

/* The line quoted in a reader's error: a tab reads as a blank, a UTF-8
 * description as it is (both were '?'), other bytes as '?'. */
static void test_error_excerpt(void)
{
	const char *txt = "switchguid=0x10(10)\n"
			  "Switch 4 \"S-0000000000000010\" # \"s1\" base port 0 lid 1\n"
			  "[1/1]\t\"H-0000000000000020\"[1](21) # \"n\xc5\x93ud-\xc3\xa9t\xc3\xa9\" lid 2 4xEDR\n";
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(txt, IBF_FMT_IBNETDISCOVER, &err);
	TT_REQUIRE(!f);
	TT_EQ_INT(err.line, 3);
	TT_CHECK_MSG(strstr(err.msg, "'[1/1] \"H-0000000000000020\"[1](21) # \"n\xc5\x93ud-\xc3\xa9t\xc3\xa9\""),
		     "%s", err.msg);
	const char *bin = "Switch 4 \"S-1\" # \"s\" x\xff\xc3\n";
	f = parse_str(bin, IBF_FMT_IBNETDISCOVER, &err);
	TT_REQUIRE(!f);
	TT_CHECK_MSG(strstr(err.msg, "'x?" "?'"), "%s", err.msg);
}

/* A node named in a message: its description, with its GUID when another
 * node has the same description or it has none. */
static void test_node_label(void)
{
	const char *txt = "switchguid=0x10(10)\n"
			  "Switch 4 \"S-0000000000000010\" # \"SwitchIB\" base port 0 lid 1\n"
			  "[1] \"S-0000000000000030\"[1] # \"SwitchIB\" lid 3 4xEDR\n"
			  "[2] \"H-0000000000000020\"[1](21) # \"h1\" lid 2 4xEDR\n"
			  "[3] \"H-0000000000000040\"[1](41) # \"\" lid 4 4xEDR\n\n"
			  "switchguid=0x30(30)\n"
			  "Switch 4 \"S-0000000000000030\" # \"SwitchIB\" base port 0 lid 3\n"
			  "[1] \"S-0000000000000010\"[1] # \"SwitchIB\" lid 1 4xEDR\n\n"
			  "caguid=0x20\n"
			  "Ca 1 \"H-0000000000000020\" # \"h1\"\n"
			  "[1](21) \"S-0000000000000010\"[2] # lid 2 lmc 0 \"SwitchIB\" lid 1 4xEDR\n\n"
			  "caguid=0x40\n"
			  "Ca 1 \"H-0000000000000040\" # \"\"\n"
			  "[1](41) \"S-0000000000000010\"[3] # lid 4 lmc 0 \"SwitchIB\" lid 1 4xEDR\n";
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(txt, IBF_FMT_IBNETDISCOVER, &err);
	char m[800];
	TT_REQUIRE(f || (printf("# %s\n", ibf_error_format(&err, m, sizeof(m))), 0));
	int s1 = find_id(f, "S-0000000000000010"), h1 = find_id(f, "H-0000000000000020");
	int h2 = find_id(f, "H-0000000000000040");
	TT_REQUIRE(s1 >= 0 && h1 >= 0 && h2 >= 0);
	char b[64];
	TT_CHECK(ibf_node_desc_shared(f, s1) && !ibf_node_desc_shared(f, h1));
	TT_CHECK_MSG(!strcmp(ibf_node_label(f, s1, b, sizeof(b)), "SwitchIB (0x0000000000000010)"),
		     "%s", b);
	TT_CHECK_MSG(!strcmp(ibf_node_label(f, h1, b, sizeof(b)), "h1"), "%s", b);
	TT_CHECK_MSG(!strcmp(ibf_node_label(f, h2, b, sizeof(b)),
			     "H-0000000000000040 (0x0000000000000040)"),
		     "%s", b);
	/* a short buffer cuts the description and keeps the GUID */
	TT_CHECK_MSG(!strcmp(ibf_node_label(f, s1, b, 24), "Sw (0x0000000000000010)"), "%s", b);
	ibf_fabric_free(f);
}

static void test_errors_with_lines(void)
{
	const char *hdr = "switchguid=0x10(10)\n"
			  "Switch 4 \"S-0000000000000010\" # \"s1\" base port 0 lid 1 lmc 0\n";
	char buf[1024];
	/* conflicting sides: s1[1] -> s2[1], but s2[1] -> s3[1] */
	snprintf(buf, sizeof(buf),
		 "%s[1] \"S-0000000000000020\"[1] # \"s2\" lid 2 4xEDR\n\n"
		 "Switch 4 \"S-0000000000000020\" # \"s2\" base port 0 lid 2 lmc 0\n"
		 "[1] \"S-0000000000000030\"[1] # \"s3\" lid 3 4xEDR\n\n"
		 "Switch 4 \"S-0000000000000030\" # \"s3\" base port 0 lid 3 lmc 0\n",
		 hdr);
	/* two ports claiming one peer port: a GUID seen at two places (two
	 * devices sharing it); both cables are kept, the GUID is reported */
	expect_dup(buf, 0x20, 2, "conflict");
	snprintf(buf, sizeof(buf),
		 "%s[1] \"S-0000000000000010\"[2] # \"s1\" lid 1 4xEDR\nhello world\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 4, "garbage line");
	snprintf(buf, sizeof(buf), "%s[255] \"S-0000000000000010\"[2] # \"s1\" lid 1 4xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "port 255");
	snprintf(buf, sizeof(buf), "%s[5] \"S-0000000000000010\"[2] # \"s1\" lid 1 4xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "port beyond nports");
	snprintf(buf, sizeof(buf), "%s[1] \"S-0000000000000010\"[9] # \"s1\" lid 1 4xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "peer port beyond nports");
	/* a port line cut after the peer id: ibnetdiscover always prints the
	 * peer port; reading ibsim's default 1 made a wrong cable that showed
	 * as a duplicate GUID */
	snprintf(buf, sizeof(buf), "%s[2] \"S-0000000000000010\"\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "peer port missing");
	snprintf(buf, sizeof(buf), "%s[2] \"S-0000000000000010\" # \"s1\" lid 1 4xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "peer port missing, comment kept");
	snprintf(buf, sizeof(buf), "%s[-1] \"S-0000000000000010\"[2] # \"s1\" lid 1 4xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "negative port");
	snprintf(buf, sizeof(buf), "%s[1] \"S-0000000000000010\"[1] # \"s1\" lid 1 4xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "port to itself");
	snprintf(buf, sizeof(buf), "%s[1] \"S-0000000000000010\"[2] # \"s1\" lid 1 5xEDR\n", hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "bad width");
	snprintf(buf, sizeof(buf), "%s[1] \"S-0000000000000010\"[2] # \"s1\" lid 99999 4xEDR\n",
		 hdr);
	expect_error(buf, IBF_FMT_IBNETDISCOVER, 3, "bad lid");
	expect_error("Switch 255 \"S-1\" # \"x\"\n", IBF_FMT_IBNETDISCOVER, 1, "255 ports");
	expect_error("Switch 0 \"S-1\" # \"x\"\n", IBF_FMT_IBNETDISCOVER, 1, "0 ports");
	expect_error("Switch -3 \"S-1\" # \"x\"\n", IBF_FMT_IBNETDISCOVER, 1, "negative ports");
	expect_error("Switch 99999999999999999999999999 \"S-1\" # \"x\"\n", IBF_FMT_IBNETDISCOVER,
		     1, "huge ports");
	expect_error("#\nSwitch 4 \"S-1\n", IBF_FMT_IBNETDISCOVER, 2, "unterminated id");
	expect_dup("Switch 4 \"S-1\" # \"x\"\nSwitch 4 \"S-1\" # \"y\"\n", 1, 2, "duplicate id");
	/* two adapters with their own node GUIDs and one port GUID (a cloned or
	 * mis-set port GUID): listed under the port GUID (it was only when the
	 * node GUIDs were unknown, ibnetdiscover -p) */
	static const char *two_ca = "switchguid=0x10(10)\n"
				    "Switch 4 \"S-10\" # \"s\" base port 0 lid 1 lmc 0\n"
				    "[1] \"H-20\"[1](99) # \"a\" lid 2 4xEDR\n"
				    "[2] \"H-%s\"[1](99) # \"b\" lid 3 4xEDR\n\n"
				    "caguid=0x20\nCa 1 \"H-20\" # \"a\"\n"
				    "[1](99) \"S-10\"[1] # lid 2 lmc 0 \"s\" lid 1 4xEDR\n\n"
				    "caguid=0x%s\nCa 1 \"H-%s\" # \"b\"\n"
				    "[1](99) \"S-10\"[2] # lid 3 lmc 0 \"s\" lid 1 4xEDR\n";
	snprintf(buf, sizeof(buf), two_ca, "30", "30", "30");
	expect_dup(buf, 0x99, 2, "one port GUID, two node GUIDs");
	/* a clone (node and port GUID alike) is listed once, under the node GUID */
	snprintf(buf, sizeof(buf), two_ca, "20", "20", "20");
	expect_dup(buf, 0x20, 2, "clone: node GUID");
	expect_dup(buf, 0x99, 0, "clone: not again under the port GUID");
	/* ibsim net files may not repeat a name */
	expect_error("Switch 4 \"s1\"\nSwitch 4 \"s1\"\n", IBF_FMT_IBSIM, 2,
		     "duplicate ibsim name");
	expect_error("[1] \"S-1\"[1] # \"x\" lid 1 4xEDR\n", IBF_FMT_IBNETDISCOVER, 1,
		     "port outside record");
	expect_error("vendid=0x2c9\ndevid=0xzz\n", IBF_FMT_IBNETDISCOVER, 2, "bad devid");
	expect_error("sysimgguid=0x12345678901234567\n", IBF_FMT_IBNETDISCOVER, 1, "guid overflow");
	expect_error("#\n#\n", IBF_FMT_IBNETDISCOVER, 0, "no records");
	expect_error("Switch 4 \"S-1\" # \"x\" base port 1 lid 3\n", IBF_FMT_IBNETDISCOVER, 1,
		     "base port 1");
	/* what other ibnetdiscover options print is named, not mistaken */
	struct ibf_error err;
	static const char list[] =
		"Ca\t : 0x0c42a10300ac0000 ports 1 devid 0x0 vendid 0x0 \"agg node\"\n"
		"Switch\t : 0xb83fd20300a20000 ports 129 devid 0x0 vendid 0x0 \"spine01\"\n";
	ibf_error_clear(&err);
	TT_CHECK(ibf_fabric_parse(list, strlen(list), "list", IBF_FMT_AUTO, &err) == NULL);
	TT_EQ_INT(err.line, 1);
	TT_CHECK_MSG(strstr(err.msg, "ibnetdiscover -l") != NULL, "%s", err.msg);
	static const char cache[] = { 0x2b, (char)0x83, (char)0xe7, (char)0x8f, 1, 0, 0, 0, 5, 0 };
	ibf_error_clear(&err);
	TT_CHECK(ibf_fabric_parse(cache, sizeof(cache), "cache", IBF_FMT_AUTO, &err) == NULL);
	TT_CHECK_MSG(strstr(err.msg, "--cache") != NULL, "%s", err.msg);
	ibf_error_clear(&err);
	TT_CHECK(ibf_fabric_parse("", 0, "empty", IBF_FMT_AUTO, &err) == NULL);
	TT_CHECK_MSG(strstr(err.msg, "empty file") != NULL, "%s", err.msg);
	/* a UTF-8 byte order mark (a file saved by a Windows editor) */
	const char *bom = "\xef\xbb\xbf"
			  "switchguid=0x2(2)\n"
			  "Switch\t2 \"S-0000000000000002\"\t\t# \"s\" base port 0 lid 2 lmc 0\n"
			  "[1]\t\"S-0000000000000002\"[2]\t\t# \"s\" lid 2 4xNDR\n";
	ibf_error_clear(&err);
	struct ibf_fabric *f = ibf_fabric_parse(bom, strlen(bom), "bom", IBF_FMT_AUTO, &err);
	TT_CHECK_MSG(f != NULL, "%s:%ld: %s", err.file, err.line, err.msg);
	if (f) {
		const char *g2l = "\xef\xbb\xbf" "0x2 0x10 0x10\n";
		TT_EQ_INT(ibf_guid2lid_parse(f, g2l, strlen(g2l), "g2l", NULL), 0);
		TT_EQ_INT(ibf_port(f, 0, 0)->lid, 16);
	}
	ibf_fabric_free(f);
	struct ibf_namemap nm;
	const char *map = "\xef\xbb\xbf" "0x2 \"core\"\n";
	TT_EQ_INT(ibf_namemap_parse(&nm, map, strlen(map), "map", NULL), 0);
	const char *nmv = ibf_namemap_lookup(&nm, 2);
	TT_CHECK(nmv && !strcmp(nmv, "core"));
	ibf_namemap_free(&nm);
}

/* ------------------------------------------------------------ garbage */

static void parse_any(const char *buf, size_t len, int fmt)
{
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = ibf_fabric_parse(buf, len, "fuzz", fmt, &err);
	if (f) {
		/* whatever came out must be a consistent graph */
		for (uint32_t i = 0; i < f->nnodes; i++)
			for (int p = 1; p <= f->nodes[i].nports; p++) {
				const struct ibf_port *pp = ibf_port(f, (int)i, p);
				if (pp->peer_node == IBF_NO_NODE)
					continue;
				const struct ibf_port *q =
					ibf_port(f, pp->peer_node, pp->peer_port);
				TT_CHECK(q->peer_node == (int)i && q->peer_port == p);
			}
		ibf_fabric_free(f);
	} else {
		TT_CHECK(err.code != 0 && err.msg[0]);
	}
}

static const char *const all_fixtures[] = {
	"real/sdr-voltaire-manpage-nonchassis-2007.ibnetdiscover",
	"real/sdr-mt43132-1switch-2hosts-2009.ibnetdiscover",
	"real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover",
	"real/qdr-sun-dcs36-1switch-1host.ibnetdiscover",
	"real/edr-osc-excerpt.ibnetdiscover-p",
};

static void test_truncated_every_offset(void)
{
	for (size_t k = 0; k < sizeof(all_fixtures) / sizeof(all_fixtures[0]); k++) {
		size_t len;
		char *b = tt_slurp(fixture_path(all_fixtures[k]), &len);
		TT_REQUIRE(b);
		for (size_t cut = 0; cut <= len; cut++) {
			/* a private copy so ASan sees reads past the cut */
			char *c = malloc(cut ? cut : 1);
			memcpy(c, b, cut);
			parse_any(c, cut, IBF_FMT_AUTO);
			free(c);
		}
		free(b);
	}
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void test_random_bytes(void)
{
	static const int fmts[] = { IBF_FMT_AUTO, IBF_FMT_IBNETDISCOVER, IBF_FMT_IBNETDISCOVER_P,
				    IBF_FMT_IBSIM, IBF_FMT_SUBNET_LST };
	for (int it = 0; it < 300; it++) {
		size_t len = rnd() % 2048;
		char *b = malloc(len ? len : 1);
		for (size_t i = 0; i < len; i++)
			b[i] = it % 2 ? (char)rnd() : " \t\n\"[]()#0x1Sw=-"[rnd() % 16];
		for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++)
			parse_any(b, len, fmts[k]);
		free(b);
	}
}

static void test_mutated_fixtures(void)
{
	static const char tokens[][8] = { "\"", "[",	"]",  "(",   ")",  "#",
					  "\n", " ",	"\0", "255", "-1", "999999",
					  "0x", "lid ", "4x", "'",   "{",  "}" };
	for (size_t k = 0; k < sizeof(all_fixtures) / sizeof(all_fixtures[0]); k++) {
		size_t len;
		char *b = tt_slurp(fixture_path(all_fixtures[k]), &len);
		TT_REQUIRE(b);
		for (int it = 0; it < 400; it++) {
			char *c = malloc(len + 16);
			memcpy(c, b, len);
			size_t at = rnd() % len;
			const char *t = tokens[rnd() % (sizeof(tokens) / sizeof(tokens[0]))];
			size_t tl = strlen(t) ? strlen(t) : 1;
			if (at + tl > len)
				at = len - tl;
			memcpy(c + at, t, tl);
			parse_any(c, len, IBF_FMT_AUTO);
			free(c);
		}
		free(b);
	}
}

static void test_huge_line_and_nul(void)
{
	size_t big = 10u << 20;
	char *b = malloc(big + 64);
	TT_REQUIRE(b);
	/* a 10 MB line of garbage after a valid record */
	const char *hdr = "Switch 4 \"S-1\" # \"x\"\n";
	size_t hl = strlen(hdr);
	memcpy(b, hdr, hl);
	memset(b + hl, 'a', big);
	struct ibf_error err;
	struct ibf_fabric *f = ibf_fabric_parse(b, hl + big, "big", IBF_FMT_IBNETDISCOVER, &err);
	TT_CHECK(!f);
	TT_EQ_INT(err.line, 2);
	ibf_fabric_free(f);
	/* a 10 MB node id is just a long id */
	memcpy(b, "Switch 4 \"", 10);
	memset(b + 10, 'b', big);
	memcpy(b + 10 + big, "\" # \"d\"\n", 8);
	f = ibf_fabric_parse(b, big + 18, "big", IBF_FMT_IBNETDISCOVER, &err);
	TT_CHECK(f != NULL);
	if (f)
		TT_EQ_INT(strlen(f->nodes[0].id), big);
	ibf_fabric_free(f);
	/* 10 MB description */
	memcpy(b, "Switch 4 \"S-1\" # \"", 18);
	memset(b + 18, 'c', big);
	memcpy(b + 18 + big, "\"\n", 2);
	f = ibf_fabric_parse(b, big + 20, "big", IBF_FMT_AUTO, &err);
	TT_CHECK(f != NULL);
	if (f)
		TT_EQ_INT(strlen(f->nodes[0].desc), big);
	ibf_fabric_free(f);
	free(b);
	/* embedded NUL */
	const char txt[] = "Switch 4 \"S-1\" # \"x\"\n[1] \"S-1\"[2]\0 # \"x\" lid 0 4xEDR\n";
	f = ibf_fabric_parse(txt, sizeof(txt) - 1, "nul", IBF_FMT_IBNETDISCOVER, &err);
	TT_CHECK(!f);
	TT_EQ_INT(err.line, 2);
	ibf_fabric_free(f);
}

/* ------------------------------------------------------------ round trips */

/* Switches (one enhanced), multi-port CAs with one or both ports cabled,
 * parallel links, a loopback, degraded links, a router, extended speeds.
 * tricky: descriptions with quotes, '#' and outer spaces, links with
 * unknown width/speed and a back-to-back CA pair (not for ibsim). */
static struct ibf_fabric *hand_fabric(int tricky)
{
	struct ibf_fabric *f = ibf_fabric_new();
	static const char *const sdesc[2][3] = {
		{ "sw-0", "sw-1", "sw-2 leaf" },
		{ " sw \"zero\" # 0 ", "sw-1 \"", "#sw-2" },
	};
	static const int sports[3] = { 36, 36, 12 };
	for (int i = 0; i < 3; i++) {
		uint64_t g = ibf_gen_guid(IBF_NODE_SWITCH, (uint32_t)i, 0);
		int n = ibf_fabric_add_node(f, IBF_NODE_SWITCH, sports[i], g, sdesc[tricky][i],
					    NULL, NULL);
		f->nodes[n].sysimg_guid = g | 0xff;
		f->nodes[n].vendid = 0x2c9;
		f->nodes[n].devid = 0xcb20;
		f->nodes[n].enhanced_sp0 = i == 2;
		ibf_port(f, n, 0)->guid = g;
	}
	static const char *const hdesc[2][5] = {
		{ "h0 HCA-1", "h1 HCA-1", "h2 HCA-1", "h3 HCA-1", "h4 HCA-1" },
		{ "h0 \"quoted\" HCA-1", " h1 # not a comment", "h2 HCA-1 ", "h3", "h4" },
	};
	static const int hports[5] = { 2, 2, 1, 1, 1 };
	int nca = tricky ? 5 : 3;
	for (int i = 0; i < nca; i++) {
		uint64_t g = ibf_gen_guid(IBF_NODE_CA, (uint32_t)i, 0);
		int n = ibf_fabric_add_node(f, IBF_NODE_CA, hports[i], g, hdesc[tricky][i], NULL,
					    NULL);
		f->nodes[n].sysimg_guid = g | 0xff;
		f->nodes[n].vendid = 0x2c9;
		f->nodes[n].devid = 0x1017;
		for (int p = 1; p <= hports[i]; p++)
			ibf_port(f, n, p)->guid = g + (uint64_t)p;
	}
	uint64_t rg = ibf_gen_guid(IBF_NODE_ROUTER, 0, 0);
	int r = ibf_fabric_add_node(f, IBF_NODE_ROUTER, 1, rg, "router-0", NULL, NULL);
	f->nodes[r].sysimg_guid = rg;
	f->nodes[r].vendid = 0x2c9;
	f->nodes[r].devid = 0x1234;
	ibf_port(f, r, 1)->guid = rg + 1;
	int s0 = 0, s1 = 1, s2 = 2, h0 = 3, h1 = 4, h2 = 5;
	ibf_fabric_connect(f, h0, 1, s0, 1, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(f, h0, 2, s1, 1, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(f, h1, 2, s0, 2, 1, IBF_SPEED_SDR, NULL); /* degraded */
	ibf_fabric_connect(f, h2, 1, s2, 1, 4, IBF_SPEED_HDR, NULL);
	ibf_fabric_connect(f, r, 1, s1, 2, 4, IBF_SPEED_FDR10, NULL);
	ibf_fabric_connect(f, s0, 10, s1, 10, 4, IBF_SPEED_EDR, NULL); /* parallel */
	ibf_fabric_connect(f, s0, 11, s1, 11, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(f, s2, 5, s2, 6, 4, IBF_SPEED_EDR, NULL); /* loopback */
	ibf_fabric_connect(f, s1, 20, s2, 3, 4, IBF_SPEED_NDR, NULL);
	ibf_fabric_connect(f, s0, 12, s2, 2, 4, IBF_SPEED_DDR, NULL); /* degraded speed */
	if (tricky) {
		ibf_fabric_connect(f, s0, 20, s2, 4, 4, 0, NULL);
		ibf_fabric_connect(f, s0, 21, s2, 7, 0, 0, NULL);
		ibf_fabric_connect(f, s0, 22, s2, 8, 0, IBF_SPEED_QDR, NULL);
		ibf_fabric_connect(f, 6, 1, 7, 1, 12, IBF_SPEED_QDR, NULL); /* CA-CA */
	}
	ibf_assign_lids(f, 1, 0, NULL);
	ibf_fabric_finalize(f, NULL);
	return f;
}

/* node order by type: switches, CAs, routers (what the writers print) */
static void type_order(const struct ibf_fabric *f, int *ord)
{
	int k = 0;
	for (int t = 0; t < 3; t++) {
		int want = t == 0 ? IBF_NODE_SWITCH : t == 1 ? IBF_NODE_CA : IBF_NODE_ROUTER;
		for (uint32_t i = 0; i < f->nnodes; i++)
			if (f->nodes[i].type == want)
				ord[k++] = (int)i;
	}
}

enum {
	CMP_LIDS = 1,
	CMP_PORTGUIDS = 2,
	CMP_DESC = 4,
	CMP_IDS = 8,
	CMP_BY_GUID = 16,
	CMP_NO_ESP0 = 32
};

/* Same fabric up to node order (by type).  Returns the number of differences. */
static int same_fabric(const struct ibf_fabric *a, const struct ibf_fabric *b, int flags)
{
	if (a->nnodes != b->nnodes) {
		printf("# node count %u != %u\n", a->nnodes, b->nnodes);
		return 1;
	}
	int n = (int)a->nnodes, bad = 0;
	int *oa = malloc(sizeof(int) * (size_t)n), *ob = malloc(sizeof(int) * (size_t)n);
	int *a2b = malloc(sizeof(int) * (size_t)n);
	type_order(a, oa);
	type_order(b, ob);
	for (int k = 0; k < n; k++)
		a2b[oa[k]] = ob[k];
	if (flags & CMP_BY_GUID) {
		for (int i = 0; i < n; i++) {
			int j = ibf_fabric_find_guid(b, a->nodes[i].guid);
			if (j < 0) {
				printf("# node %d guid %llx missing\n", i,
				       (unsigned long long)a->nodes[i].guid);
				bad++;
				j = 0;
			}
			a2b[i] = j;
		}
	}
	for (int i = 0; i < n && bad < 10; i++) {
		const struct ibf_node *x = &a->nodes[i], *y = &b->nodes[a2b[i]];
#define DIFF(cond, ...)                                           \
	do {                                                      \
		if (cond) {                                       \
			printf("# node %d ('%s'): ", i, x->desc); \
			printf(__VA_ARGS__);                      \
			printf("\n");                             \
			bad++;                                    \
		}                                                 \
	} while (0)
		DIFF(x->type != y->type, "type %d != %d", x->type, y->type);
		DIFF(x->nports != y->nports, "nports %d != %d", x->nports, y->nports);
		DIFF(x->guid != y->guid, "guid %llx != %llx", (unsigned long long)x->guid,
		     (unsigned long long)y->guid);
		DIFF(x->sysimg_guid != y->sysimg_guid, "sysimg %llx != %llx",
		     (unsigned long long)x->sysimg_guid, (unsigned long long)y->sysimg_guid);
		DIFF(x->vendid != y->vendid || x->devid != y->devid, "vendid/devid");
		DIFF(!(flags & CMP_NO_ESP0) && x->type == IBF_NODE_SWITCH &&
			     x->enhanced_sp0 != y->enhanced_sp0,
		     "esp0");
		if (flags & CMP_DESC)
			DIFF(strcmp(x->desc, y->desc), "desc '%s' != '%s'", x->desc, y->desc);
		if ((flags & CMP_IDS) && x->id && y->id)
			DIFF(strcmp(x->id, y->id), "id '%s' != '%s'", x->id, y->id);
		if (x->nports != y->nports)
			continue;
		for (int p = 0; p <= x->nports; p++) {
			const struct ibf_port *u = ibf_port(a, i, p), *v = ibf_port(b, a2b[i], p);
			if (p > 0) {
				int up = u->peer_node == IBF_NO_NODE ? -1 : a2b[u->peer_node];
				DIFF(up != v->peer_node ||
					     (up >= 0 && u->peer_port != v->peer_port),
				     "port %d peer %d[%d] != %d[%d]", p, up, u->peer_port,
				     v->peer_node, v->peer_port);
				DIFF(u->width != v->width || u->speed != v->speed,
				     "port %d width/speed %d/%d != %d/%d", p, u->width, u->speed,
				     v->width, v->speed);
			}
			int has_addr = x->type == IBF_NODE_SWITCH ? p == 0 : p > 0;
			if (!has_addr)
				continue;
			if (flags & CMP_LIDS)
				DIFF(u->lid != v->lid || u->lmc != v->lmc,
				     "port %d lid %u/%u != %u/%u", p, u->lid, u->lmc, v->lid,
				     v->lmc);
			if ((flags & CMP_PORTGUIDS) &&
			    (x->type == IBF_NODE_SWITCH || u->peer_node != IBF_NO_NODE))
				DIFF(u->guid != v->guid, "port %d guid %llx != %llx", p,
				     (unsigned long long)u->guid, (unsigned long long)v->guid);
		}
#undef DIFF
	}
	free(oa);
	free(ob);
	free(a2b);
	return bad;
}

static struct ibf_fabric *via_text(const struct ibf_fabric *f, int wfmt, int rfmt, char **text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct ibf_error err;
	ibf_error_clear(&err);
	int rc = ibf_fabric_write_stream(f, mem, wfmt, &err);
	fclose(mem);
	if (rc) {
		char m[800];
		printf("# write: %s\n", ibf_error_format(&err, m, sizeof(m)));
		free(buf);
		return NULL;
	}
	struct ibf_fabric *g = ibf_fabric_parse(buf, len, "roundtrip", rfmt, &err);
	if (!g) {
		char m[800];
		printf("# read back: %s\n", ibf_error_format(&err, m, sizeof(m)));
		fputs(buf, stdout);
	}
	if (text)
		*text = buf;
	else
		free(buf);
	return g;
}

static void test_roundtrip_ibnetdiscover(void)
{
	for (int tricky = 0; tricky < 2; tricky++) {
		struct ibf_fabric *f = hand_fabric(tricky);
		char *text = NULL;
		struct ibf_fabric *g = via_text(f, IBF_FMT_IBNETDISCOVER, IBF_FMT_AUTO, &text);
		TT_REQUIRE(g);
		TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC), 0);
		TT_EQ_INT(meta_long(g, "one_sided"), 0);
		char fmt[32];
		TT_CHECK(ibf_fabric_get_meta(g, "format", fmt, sizeof(fmt)) &&
			 !strcmp(fmt, "ibnetdiscover"));
		/* the output looks like ibnetdiscover's */
		TT_CHECK(strstr(text, "switchguid=0x2c90200000000(2c90200000000)\n"));
		TT_CHECK(strstr(text, "Switch\t36 \"S-0002c90200000000\"\t\t# \""));
		TT_CHECK(strstr(text, "Ca\t2 \"H-0002c90100000000\"\t\t# \""));
		TT_CHECK(strstr(text, "Rt\t1 \"R-0002c90300000000\""));
		TT_CHECK(strstr(text, "[1](2c90100000001) \t\"S-0002c90200000000\"[1]\t\t# lid "));
		/* write again: the same text (ids now come from the read) */
		char *text2 = NULL;
		struct ibf_fabric *h =
			via_text(g, IBF_FMT_IBNETDISCOVER, IBF_FMT_IBNETDISCOVER, &text2);
		TT_REQUIRE(h);
		TT_CHECK(text2 && !strcmp(text, text2));
		TT_EQ_INT(same_fabric(g, h, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC | CMP_IDS), 0);
		free(text);
		free(text2);
		ibf_fabric_free(h);
		ibf_fabric_free(g);
		ibf_fabric_free(f);
	}
}

static void test_roundtrip_no_guids(void)
{
	/* no GUIDs, no ids, duplicate descriptions: writers invent names */
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 4; i++)
		ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0, "same", NULL, NULL);
	for (int i = 0; i < 4; i++) {
		int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0, "host", NULL, NULL);
		ibf_fabric_connect(f, h, 1, i, 1, 4, IBF_SPEED_HDR, NULL);
		ibf_fabric_connect(f, i, 2, (i + 1) % 4, 3, 4, IBF_SPEED_HDR, NULL);
	}
	for (int fmt = IBF_FMT_IBNETDISCOVER; fmt <= IBF_FMT_IBSIM; fmt += 2) {
		char *text = NULL;
		struct ibf_fabric *g = via_text(f, fmt, fmt, &text);
		TT_REQUIRE(g);
		/* ibsim hands out its own GUIDs when the file pins none */
		if (fmt == IBF_FMT_IBSIM) {
			TT_CHECK(strstr(text, "switchguid") == NULL);
			TT_CHECK(g->nodes[0].guid == 0x200000 && g->nodes[4].guid == 0x100000);
			for (uint32_t i = 0; i < g->nnodes; i++) {
				g->nodes[i].guid = 0;
				g->nodes[i].sysimg_guid = 0;
			}
		}
		TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_DESC), 0);
		free(text);
		ibf_fabric_free(g);
	}
	ibf_fabric_free(f);
}

static void test_roundtrip_ibsim(void)
{
	struct ibf_fabric *f = hand_fabric(0);
	char *text = NULL;
	struct ibf_fabric *g = via_text(f, IBF_FMT_IBSIM, IBF_FMT_AUTO, &text);
	TT_REQUIRE(g);
	/* ibsim derives CA port GUIDs as node GUID + port: the generators' scheme */
	TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC), 0);
	char fmt[32];
	TT_CHECK(ibf_fabric_get_meta(g, "format", fmt, sizeof(fmt)) && !strcmp(fmt, "ibsim"));
	/* names are the (unique) descriptions, GUIDs pinned by base lines */
	TT_CHECK(strstr(text, "switchguid=0x2c90200000000\nSwitch\t36 \"sw-0\"\t\t# \"sw-0\""));
	TT_CHECK(strstr(text, "caguid=0x2c90100000000\nCa\t2 \"h0 HCA-1\""));
	TT_CHECK(strstr(text, "rtguid=0x2c90300000000\nRt\t1 \"router-0\""));
	/* ibsim's line buffer is 256 bytes */
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		TT_CHECK(l < 250);
		p += l + (nl ? 1 : 0);
	}
	const char *dump = getenv("IBF_IO_DUMP_IBSIM");
	if (dump) {
		FILE *o = fopen(dump, "w");
		if (o) {
			fputs(text, o);
			fclose(o);
		}
	}
	free(text);
	ibf_fabric_free(g);
	/* duplicate descriptions: names fall back to ids/GUIDs */
	free(f->nodes[1].desc);
	f->nodes[1].desc = strdup("sw-0");
	g = via_text(f, IBF_FMT_IBSIM, IBF_FMT_IBSIM, &text);
	TT_REQUIRE(g);
	TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC), 0);
	TT_CHECK(strstr(text, "Switch\t36 \"S-0002c90200000100\"\t\t# \"sw-0\""));
	free(text);
	ibf_fabric_free(g);
	/* every description shared (as in a dump of switches under their factory
	 * description and hosts named alike): every name is a GUID id and the
	 * file looks like ibnetdiscover output; ibfab's ibsim header still makes
	 * it an ibsim file (it used to be read as ibnetdiscover: CA port GUIDs 0,
	 * where ibsim gives node GUID + port) */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].desc);
		f->nodes[i].desc = strdup("MT4123 ConnectX6 Mellanox Technologies");
	}
	g = via_text(f, IBF_FMT_IBSIM, IBF_FMT_AUTO, &text);
	TT_REQUIRE(g);
	TT_CHECK(strstr(text, "Ca\t2 \"H-0002c90100000000\""));
	TT_CHECK(ibf_fabric_get_meta(g, "format", fmt, sizeof(fmt)) && !strcmp(fmt, "ibsim"));
	TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC), 0);
	free(text);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

/* An ibnetdiscover dump with "Hca" for "Ca" (an edited dump, older tools):
 * its header says what it is, so it is read as ibnetdiscover output and the
 * CA port GUIDs are those it gives.  A ConnectX-7's port GUID is its node
 * GUID; read as an ibsim net file it became node GUID + 1 and LID 1 named
 * another port than in the same dump spelled "Ca" (found on the NDR DGX
 * dump of tests/fixtures/real).  Without the header "Hca" still means ibsim. */
static void test_sniff_hca_dump(void)
{
	static const char body[] =
		"vendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0x2c5eab0300c26400\n"
		"switchguid=0x2c5eab0300c26400(2c5eab0300c26400)\n"
		"Switch\t64 \"S-2c5eab0300c26400\"\t\t# \"leaf\" enhanced port 0 lid 32 lmc 0\n"
		"[22]\t\"H-1070fd0300478cf8\"[1](1070fd0300478cf8) \t\t# \"cufm mlx5_0\" lid 1 4xNDR\n"
		"\n"
		"vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x1070fd0300478cf8\ncaguid=0x1070fd0300478cf8\n"
		"%s\t1 \"H-1070fd0300478cf8\"\t\t# \"cufm mlx5_0\"\n"
		"[1](1070fd0300478cf8) \t\"S-2c5eab0300c26400\"[22]\t\t# lid 1 lmc 0 \"leaf\" lid 32 4xNDR\n";
	static const char hdr[] = "#\n# Topology file: generated on Tue Mar  4 10:00:00 2025\n#\n"
				  "# Initiated from node 1070fd0300478cf8 port 1070fd0300478cf8\n\n";
	for (int k = 0; k < 3; k++) {
		char txt[2048];
		int n = snprintf(txt, sizeof(txt), "%s", k < 2 ? hdr : "");
		snprintf(txt + n, sizeof(txt) - (size_t)n, body, k == 0 ? "Ca" : "Hca");
		struct ibf_error err;
		struct ibf_fabric *f = parse_str(txt, IBF_FMT_AUTO, &err);
		TT_CHECK_MSG(f, "variant %d: %s", k, err.msg);
		TT_REQUIRE(f);
		char fmt[32];
		TT_CHECK(ibf_fabric_get_meta(f, "format", fmt, sizeof(fmt)) &&
			 !strcmp(fmt, k < 2 ? "ibnetdiscover" : "ibsim"));
		int h = ibf_fabric_find_desc(f, "cufm mlx5_0");
		TT_REQUIRE(h >= 0);
		/* ibsim: node GUID + port */
		uint64_t want = 0x1070fd0300478cf8ull + (k < 2 ? 0 : 1);
		TT_CHECK_MSG(ibf_port(f, h, 1)->guid == want, "variant %d: port GUID 0x%llx", k,
			     (unsigned long long)ibf_port(f, h, 1)->guid);
		ibf_fabric_free(f);
	}
}

static void test_write_json(void)
{
	struct ibf_fabric *f = hand_fabric(1);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	TT_EQ_INT(ibf_fabric_write_stream(f, mem, IBF_FMT_JSON, NULL), 0);
	fclose(mem);
	TT_CHECK(strstr(buf, "\"type\": \"switch\""));
	TT_CHECK(strstr(buf, "\"desc\": \" sw \\\"zero\\\" # 0 \""));
	TT_CHECK(strstr(buf, "\"guid\": \"0x0002c90200000000\""));
	TT_CHECK(strstr(buf,
			"\"peer\": {\"node\": 3, \"port\": 1}, \"width\": 4, \"speed\": \"EDR\""));
	TT_CHECK(strstr(buf, "\"enhanced_port0\": true"));
	/* balanced brackets outside strings */
	int depth = 0, instr = 0, ok = 1;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (instr) {
			if (c == '\\')
				i++;
			else if (c == '"')
				instr = 0;
			continue;
		}
		if (c == '"')
			instr = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			ok &= --depth >= 0;
	}
	TT_CHECK(ok && depth == 0 && !instr);
	/* read back with the format sniffed: JSON is written, not read; it
	 * used to be taken for opensm-subnet.lst ('{' first) and fail with
	 * "expected '{ TYPE Ports:..'" */
	struct ibf_error err;
	ibf_error_clear(&err);
	TT_CHECK(ibf_fabric_parse(buf, len, "f.json", IBF_FMT_AUTO, &err) == NULL);
	TT_EQ_INT(err.code, IBF_ENOTSUP);
	TT_CHECK_MSG(strstr(err.msg, "JSON") != NULL, "%s", err.msg);
	free(buf);
	ibf_fabric_free(f);
}

static void test_write_file_atomic(void)
{
	struct ibf_fabric *f = hand_fabric(0);
	char path[] = "/tmp/ibfab-test-io-XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	close(fd);
	struct ibf_error err;
	TT_EQ_INT(ibf_fabric_write(f, path, IBF_FMT_IBNETDISCOVER, &err), 0);
	struct ibf_fabric *g = ibf_fabric_read(path, IBF_FMT_AUTO, &err);
	TT_REQUIRE(g);
	TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC), 0);
	ibf_fabric_free(g);
	TT_CHECK(ibf_fabric_write(f, path, IBF_FMT_SUBNET_LST, &err) == IBF_ENOTSUP);
	TT_CHECK(ibf_fabric_write(f, "/nonexistent-dir/x", IBF_FMT_JSON, &err) == IBF_EIO);
	g = ibf_fabric_read("/nonexistent-dir/x", IBF_FMT_AUTO, &err);
	TT_CHECK(!g && err.code == IBF_EIO);
	unlink(path);
	ibf_fabric_free(f);
}

static void test_format_names(void)
{
	for (int fmt = IBF_FMT_AUTO; fmt <= IBF_FMT_JSON; fmt++)
		TT_EQ_INT(ibf_format_from_name(ibf_format_name(fmt)), fmt);
	TT_EQ_INT(ibf_format_from_name("nonsense"), -1);
	TT_EQ_INT(ibf_format_from_name("subnet.lst"), IBF_FMT_SUBNET_LST);
}

/* ------------------------------------------------------------ through ibsim */

/* hand_fabric(0) as ibsim 0.10 presents it: it has no NDR (the link falls
 * to SDR) and does not read router port lines (router LID 0, SDR). */
static struct ibf_fabric *hand_as_ibsim_shows_it(void)
{
	struct ibf_fabric *f = hand_fabric(0);
	int r = (int)f->nnodes - 1;
	ibf_port(f, r, 1)->lid = 0;
	ibf_port(f, r, 1)->lmc = 0;
	ibf_port(f, r, 1)->speed = IBF_SPEED_SDR;
	ibf_port(f, 1, 2)->speed = IBF_SPEED_SDR;
	ibf_port(f, 1, 20)->speed = IBF_SPEED_SDR;
	ibf_port(f, 2, 3)->speed = IBF_SPEED_SDR;
	return f;
}

static void test_ibsim_writer_golden(void)
{
	struct ibf_fabric *f = hand_fabric(0);
	char *buf = NULL;
	size_t len = 0, glen = 0;
	FILE *mem = open_memstream(&buf, &len);
	TT_EQ_INT(ibf_fabric_write_stream(f, mem, IBF_FMT_IBSIM, NULL), 0);
	fclose(mem);
	char *golden = tt_slurp(fixture_path("io/hand.ibsim"), &glen);
	TT_REQUIRE(golden);
	/* the fixture ibsim loaded is what the writer prints today */
	TT_CHECK(glen == len && !memcmp(buf, golden, len));
	free(golden);
	free(buf);
	ibf_fabric_free(f);
}

static void test_guids_survive_ibsim(void)
{
	/* ibsim -s io/hand.ibsim; ibnetdiscover (stderr included, no SM ran) */
	struct ibf_fabric *g = read_fixture("io/hand-via-ibsim.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(g);
	struct ibf_fabric *f = hand_as_ibsim_shows_it();
	TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC | CMP_BY_GUID), 0);
	TT_EQ_INT(meta_long(g, "stderr_lines"), 1); /* "ibwarn: ... sim_connect" */
	TT_EQ_INT(meta_long(g, "one_sided"), 0);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

static void test_ports_report_via_ibsim(void)
{
	struct ibf_fabric *g = read_fixture("io/hand-via-ibsim.ibnetdiscover-p", IBF_FMT_AUTO);
	TT_REQUIRE(g);
	struct ibf_fabric *f = hand_as_ibsim_shows_it();
	TT_EQ_INT(count_type(g, IBF_NODE_SWITCH), 3);
	TT_EQ_INT(count_type(g, IBF_NODE_CA), 3);
	TT_EQ_INT(count_type(g, IBF_NODE_ROUTER), 1);
	TT_EQ_INT(count_links(g), count_links(f));
	TT_EQ_INT(meta_long(g, "one_sided"), 0);
	/* every link of f is in g, found by port GUIDs, with its width/speed */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *u = ibf_port(f, (int)i, p);
			if (u->peer_node == IBF_NO_NODE)
				continue;
			int gi, gp = p;
			if (f->nodes[i].type == IBF_NODE_SWITCH)
				gi = ibf_fabric_find_guid(g, f->nodes[i].guid);
			else
				gi = ibf_fabric_find_port_guid(g, u->guid, &gp);
			TT_REQUIRE(gi >= 0 && gp == p);
			const struct ibf_port *v = ibf_port(g, gi, p);
			TT_REQUIRE(v->peer_node != IBF_NO_NODE);
			TT_CHECK(!strcmp(g->nodes[v->peer_node].desc, f->nodes[u->peer_node].desc));
			TT_EQ_INT(v->peer_port, u->peer_port);
			TT_EQ_INT(v->width, u->width);
			TT_EQ_INT(v->speed, u->speed);
		}
	}
	/* switches keep their GUIDs and LIDs; 36-port switches show 36 ports */
	int s1 = ibf_fabric_find_guid(g, ibf_gen_guid(IBF_NODE_SWITCH, 1, 0));
	TT_REQUIRE(s1 >= 0);
	TT_EQ_INT(g->nodes[s1].nports, 36);
	TT_EQ_INT(ibf_port(g, s1, 0)->lid, 2);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

static void test_subnet_lst_via_opensm(void)
{
	/* ibsim -s io/hand.ibsim; opensm -o (one sweep) wrote this */
	struct ibf_fabric *g = read_fixture("io/hand-via-ibsim-opensm.subnet.lst", IBF_FMT_AUTO);
	TT_REQUIRE(g);
	char fmt[32];
	TT_CHECK(ibf_fabric_get_meta(g, "format", fmt, sizeof(fmt)) && !strcmp(fmt, "subnet-lst"));
	struct ibf_fabric *f = hand_as_ibsim_shows_it();
	/* with an SM the router link comes up at QDR (ibsim's FDR10 fallback) */
	int r = (int)f->nnodes - 1;
	ibf_port(f, r, 1)->speed = IBF_SPEED_QDR;
	ibf_port(f, 1, 2)->speed = IBF_SPEED_QDR;
	/* (subnet.lst does not say which switches have an enhanced port 0) */
	TT_EQ_INT(same_fabric(f, g, CMP_PORTGUIDS | CMP_DESC | CMP_BY_GUID | CMP_NO_ESP0), 0);
	TT_EQ_INT(meta_long(g, "one_sided"), 0);
	/* OpenSM's LIDs: every switch and cabled CA/router port has one */
	struct ibf_lidmap lm;
	TT_EQ_INT(ibf_lidmap_build(g, &lm, NULL), 0);
	TT_CHECK(lm.max_lid >= 10);
	ibf_lidmap_free(&lm);
	for (uint32_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].type == IBF_NODE_SWITCH)
			TT_CHECK(ibf_port(g, (int)i, 0)->lid != 0);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

/* the guid2lid file OpenSM itself writes: hex LIDs ("0x0010 0x0013") and a
 * blank line after every entry (osm_db_files.c) */
static void test_guid2lid_from_opensm(void)
{
	struct ibf_fabric *f = read_fixture("io/q129-via-ibsim.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	struct ibf_error err;
	ibf_error_clear(&err);
	int rc = ibf_guid2lid_read(f, fixture_path("io/q129-via-ibsim-opensm.guid2lid"), &err);
	TT_CHECK_MSG(rc == 0, "%s:%ld: %s", err.file, err.line, err.msg);
	static const struct {
		uint64_t guid;
		int lid, lmc;
	} want[] = {
		{ 0xb83fd20300a10000ULL, 3, 0 },  { 0xb83fd20300a20000ULL, 4, 0 },
		{ 0x0c42a10300ac0001ULL, 8, 2 },  { 0x0c42a10300ab0001ULL, 12, 2 },
		{ 0x0c42a10300ab0002ULL, 16, 2 }, { 0x0002c90300000101ULL, 20, 2 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int port = -1;
		int n = ibf_fabric_find_port_guid(f, want[i].guid, &port);
		TT_REQUIRE(n >= 0);
		if (f->nodes[n].type == IBF_NODE_SWITCH)
			port = 0;
		TT_EQ_INT(ibf_port(f, n, port)->lid, want[i].lid);
		TT_EQ_INT(ibf_port(f, n, port)->lmc, want[i].lmc);
	}
	/* decimal (what ibfab writes) still reads; other bases and junk do not */
	const char *ok = "0xb83fd20300a10000 7 7\r\n\n0x0c42a10300ab0001 0x20 0x23\n";
	TT_EQ_INT(ibf_guid2lid_parse(f, ok, strlen(ok), "ok", NULL), 0);
	int port = -1, n = ibf_fabric_find_port_guid(f, 0x0c42a10300ab0001ULL, &port);
	TT_REQUIRE(n >= 0);
	TT_EQ_INT(ibf_port(f, n, port)->lid, 32);
	TT_EQ_INT(ibf_port(f, n, port)->lmc, 2);
	static const char *const bad[] = { "0x0c42a10300ab0001 0x20 0x23 x\n",
					   "0x0c42a10300ab0001 0x20x 0x23\n",
					   "0x0c42a10300ab0001 12 0x\n", "0xzz 1 1\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ibf_error_clear(&err);
		TT_CHECK_MSG(ibf_guid2lid_parse(f, bad[i], strlen(bad[i]), "bad", &err) ==
				     IBF_EPARSE,
			     "%s", bad[i]);
		TT_EQ_INT(err.line, 1);
	}
	ibf_fabric_free(f);
}

/* ------------------------------------------------------------ iblinkinfo */

/* links of f and g agree port by port, nodes matched by GUID (iblinkinfo
 * derives a CA's node GUID from its port GUID; ibsim allocates them so) */
static int links_by_guid_differ(const struct ibf_fabric *f, const struct ibf_fabric *g)
{
	int bad = 0, nf = 0, ng = 0;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		int j = ibf_fabric_find_guid(g, n->guid);
		if (j < 0) {
			bad++;
			continue;
		}
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *a = ibf_port(f, (int)i, p);
			if (a->peer_node == IBF_NO_NODE)
				continue;
			nf++;
			if (p > g->nodes[j].nports) {
				bad++;
				continue;
			}
			const struct ibf_port *b = ibf_port(g, j, p);
			if (b->peer_node == IBF_NO_NODE ||
			    g->nodes[b->peer_node].guid != f->nodes[a->peer_node].guid ||
			    b->peer_port != a->peer_port)
				bad++;
		}
	}
	for (uint32_t i = 0; i < g->nnodes; i++)
		for (int p = 1; p <= g->nodes[i].nports; p++)
			ng += ibf_port(g, (int)i, p)->peer_node != IBF_NO_NODE;
	return bad + (nf != ng);
}

/* ibsim without an SM: the router and one CA have LID 0, so the lines
 * towards them give peer LID 0 (the whole file used to be rejected) */
static void test_iblinkinfo_lid0_peers(void)
{
	struct ibf_fabric *f = read_fixture("io/q129-via-ibsim.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	static const char *const files[] = { "io/q129-via-ibsim.iblinkinfo",
					     "io/q129-via-ibsim.iblinkinfo-l" };
	for (int k = 0; k < 2; k++) {
		struct ibf_fabric *g = read_fixture(files[k], IBF_FMT_AUTO);
		TT_CHECK_MSG(g != NULL, "%s", files[k]);
		if (!g)
			continue;
		TT_EQ_INT(links_by_guid_differ(f, g), 0);
		TT_EQ_INT(count_links(g), 7);
		TT_EQ_INT(meta_long(g, "one_sided"), 0);
		ibf_fabric_free(g);
	}
	/* a CA-to-CA cable with LID 0 at both ends twice over: the two
	 * candidates cannot be told apart, which is an error at the line */
	const char *amb = "CA: a:\n"
			  "      0x0000000000000011      0    1[  ] ==( 4X 2.5 Gbps Initialize/  "
			  "LinkUp)==>       0    1[  ] \"b\" ( )\n"
			  "CA: b:\n"
			  "      0x0000000000000021      0    1[  ] ==( 4X 2.5 Gbps Initialize/  "
			  "LinkUp)==>       0    1[  ] \"a\" ( )\n"
			  "CA: c:\n"
			  "      0x0000000000000031      0    1[  ] ==( 4X 2.5 Gbps Initialize/  "
			  "LinkUp)==>       0    1[  ] \"d\" ( )\n";
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *g = ibf_fabric_parse(amb, strlen(amb), "amb", IBF_FMT_AUTO, &err);
	TT_CHECK(g == NULL);
	TT_EQ_INT(err.line, 2);
	TT_CHECK_MSG(strstr(err.msg, "LID 0") != NULL, "%s", err.msg);
	ibf_fabric_free(g);
	/* one such pair alone (two adapters back to back, no SM) is a link */
	const char *c = strstr(amb, "CA: c:");
	TT_REQUIRE(c);
	g = ibf_fabric_parse(amb, (size_t)(c - amb), "pair", IBF_FMT_AUTO, &err);
	TT_CHECK_MSG(g != NULL, "%s:%ld: %s", err.file, err.line, err.msg);
	if (g)
		TT_EQ_INT(count_links(g), 1);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

/* the layout of infiniband-diags' iblinkinfo.c: FDR10 prints as
 * "10.0 Gbps (FDR10)" (it was read as QDR), the hint "Could be FDR10 (...)",
 * "Port not available" for an up port whose far end was not scanned, and
 * names with quotes and '#' */
static void test_iblinkinfo_fdr10_and_oddities(void)
{
	const char *t =
		"Switch: 0x0002c90200001000 sx6036 \"core\" #1:\n"
		"           5    1[  ] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp)==>      12    1[  ] \"node \"a\" 01 HCA-1\" ( )\n"
		"           5    2[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>      13    1[  ] \"node02 HCA-1\" ( Could be FDR10 (Found link at QDR but expected speed is FDR10))\n"
		"           5    3[  ] ==( 4X       14.0625 Gbps Active/  LinkUp)==>      \"Port not available\"\n"
		"           5    4[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
		"CA: node \"a\" 01 HCA-1:\n"
		"      0x0002c90300002001     12    1[  ] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp)==>       5    1[  ] \"sx6036 \"core\" #1\" ( )\n"
		"CA: node02 HCA-1:\n"
		"      0x0002c90300002101     13    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       5    2[  ] \"sx6036 \"core\" #1\" ( Could be FDR10 (Found link at QDR but expected speed is FDR10))\n";
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = ibf_fabric_parse(t, strlen(t), "fdr10", IBF_FMT_AUTO, &err);
	TT_CHECK_MSG(f != NULL, "%s:%ld: %s", err.file, err.line, err.msg);
	TT_REQUIRE(f);
	int sw = ibf_fabric_find_guid(f, 0x0002c90200001000ULL);
	TT_REQUIRE(sw >= 0);
	TT_CHECK(strcmp(f->nodes[sw].desc, "sx6036 \"core\" #1") == 0);
	TT_EQ_INT(ibf_port(f, sw, 1)->speed, IBF_SPEED_FDR10);
	TT_EQ_INT(ibf_port(f, sw, 2)->speed, IBF_SPEED_QDR);
	TT_EQ_INT(ibf_port(f, sw, 2)->speed_sup, IBF_SPEED_FDR10);
	TT_EQ_INT(ibf_port(f, sw, 3)->peer_node, IBF_NO_NODE);
	TT_EQ_INT(meta_long(f, "ports_not_available"), 1);
	int a = ibf_port(f, sw, 1)->peer_node;
	TT_REQUIRE(a >= 0);
	TT_CHECK(strcmp(f->nodes[a].desc, "node \"a\" 01 HCA-1") == 0);
	ibf_fabric_free(f);

	/* the line layout: quotes in both names, peers found by GUID */
	const char *l = "0x0002c90200001000 \"        sx6036 \"core\" #1\"      5    1[  ] ==( "
			"4X  10.0 Gbps (FDR10) Active/  LinkUp)==>  0x0002c90300002001     12    "
			"1[  ] \"node \"a\" 01\" ( )\n"
			"0x0002c90300002001 \"           node \"a\" 01\"     12    1[  ] ==( 4X  "
			"10.0 Gbps (FDR10) Active/  LinkUp)==>  0x0002c90200001000      5    1[  ] "
			"\"sx6036 \"core\" #1\" ( )\n";
	ibf_error_clear(&err);
	f = ibf_fabric_parse(l, strlen(l), "line", IBF_FMT_AUTO, &err);
	TT_CHECK_MSG(f != NULL, "%s:%ld: %s", err.file, err.line, err.msg);
	TT_REQUIRE(f);
	TT_EQ_INT(count_links(f), 1);
	a = ibf_fabric_find_guid(f, 0x0002c90300002000ULL);
	TT_REQUIRE(a >= 0);
	TT_CHECK(strcmp(f->nodes[a].desc, "node \"a\" 01") == 0);
	TT_EQ_INT(ibf_port(f, a, 1)->speed, IBF_SPEED_FDR10);
	ibf_fabric_free(f);

	/* the tool's own messages captured with 2>&1 are skipped and counted */
	const char *w = "ibwarn: [26507] sim_connect: attached as client 0 at node \"sw\"\n"
			"Switch: 0x0002c90200001000 sw:\n"
			"src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,25 Attr 0x15:25) "
			"bad status 110; Connection timed out\n"
			"           5    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>      12    1[  ] "
			"\"a\" ( )\n"
			"CA: a:\n"
			"      0x0002c90300002001     12    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>"
			"       5    1[  ] \"sw\" ( )\n";
	ibf_error_clear(&err);
	f = ibf_fabric_parse(w, strlen(w), "warn", IBF_FMT_AUTO, &err);
	TT_CHECK_MSG(f != NULL, "%s:%ld: %s", err.file, err.line, err.msg);
	if (f) {
		TT_EQ_INT(count_links(f), 1);
		TT_EQ_INT(meta_long(f, "stderr_lines"), 2);
	}
	ibf_fabric_free(f);

	/* iblinkinfo --diff prefixes the lines of the two fabrics */
	const char *dl = "Switch: 0x0002c90200001000 sw:\n"
			 "<           5    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>      12    1[  ] "
			 "\"a\" ( )\n";
	ibf_error_clear(&err);
	f = ibf_fabric_parse(dl, strlen(dl), "diff", IBF_FMT_AUTO, &err);
	TT_CHECK(f == NULL);
	TT_EQ_INT(err.line, 2);
	TT_CHECK_MSG(strstr(err.msg, "--diff") != NULL, "%s", err.msg);
	ibf_fabric_free(f);

	/* a peer name too long for iblinkinfo's buffer: the newline is lost and
	 * the next port line is glued on; that is an error, not a lost port */
	const char *g = "Switch: 0x0002c90200001000 sw:\n"
			"           5    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>      12    1[  ] "
			"\"aaaaaaaaaaaaaaaa           5    2[  ] ==( 4X 2.5 Gbps Active/  LinkUp)"
			"==>      13    1[  ] \"b\" ( )\n";
	ibf_error_clear(&err);
	f = ibf_fabric_parse(g, strlen(g), "glued", IBF_FMT_AUTO, &err);
	TT_CHECK(f == NULL);
	TT_EQ_INT(err.line, 2);
	TT_CHECK_MSG(strstr(err.msg, "two port lines") != NULL, "%s", err.msg);
	ibf_fabric_free(f);
}

/* two ibnetdiscover dumps in one file (appended): an error at the second
 * header, not every node read as a duplicate-GUID device */
static void test_ibnetdiscover_two_dumps(void)
{
	size_t len;
	char *one = tt_slurp(fixture_path("io/q129-via-ibsim.ibnetdiscover"), &len);
	TT_REQUIRE(one);
	long lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += one[i] == '\n';
	char *two = malloc(2 * len);
	TT_REQUIRE(two);
	memcpy(two, one, len);
	memcpy(two + len, one, len);
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = ibf_fabric_parse(two, 2 * len, "two", IBF_FMT_AUTO, &err);
	TT_CHECK(f == NULL);
	TT_EQ_INT(err.line, lines + 2);
	TT_CHECK_MSG(strstr(err.msg, "two dumps") != NULL, "%s", err.msg);
	ibf_fabric_free(f);
	free(two);
	free(one);
}

/* ibnetdiscover -s prints a progress line per port it reaches on stdout
 * before the topology ("DR path ... -> new Switch {guid} portnum 0 lid
 * 12-15 \"desc\""): skipped and counted (they were "unexpected line") */
static void test_ibnetdiscover_show_progress(void)
{
	struct ibf_fabric *f = read_fixture("io/q129-via-ibsim.ibnetdiscover", IBF_FMT_AUTO);
	struct ibf_fabric *g =
		read_fixture("io/q129-via-ibsim-opensm.ibnetdiscover-s", IBF_FMT_AUTO);
	TT_REQUIRE(f && g);
	TT_EQ_INT(links_by_guid_differ(f, g), 0);
	TT_EQ_INT(meta_long(g, "progress_lines"), 10);
	ibf_fabric_free(g);
	const char *t = "DR path slid 0; dlid 0; 0,1 -> known Channel Adapter {0c42a10300ab0000} "
			"portnum 1 lid 12-15 \"gpu node 001 mlx5_0\"\n"
			"Lid 3 -> new Switch {b83fd20300a10000} portnum 0 lid 3-3 \"leaf01\"\n"
			"switchguid=0x2(2)\n"
			"Switch\t2 \"S-0000000000000002\"\t\t# \"s\" base port 0 lid 2 lmc 0\n"
			"[1]\t\"S-0000000000000002\"[2]\t\t# \"s\" lid 2 4xNDR\n";
	struct ibf_error err;
	ibf_error_clear(&err);
	g = ibf_fabric_parse(t, strlen(t), "s", IBF_FMT_AUTO, &err);
	TT_CHECK_MSG(g != NULL, "%s:%ld: %s", err.file, err.line, err.msg);
	if (g)
		TT_EQ_INT(meta_long(g, "progress_lines"), 2);
	ibf_fabric_free(g);
	/* anything else is still an unexpected line */
	const char *u = "DR path slid 0; dlid 0; 0,1 -> something else\n"
			"Switch\t2 \"S-0000000000000002\"\t\t# \"s\" base port 0 lid 2 lmc 0\n";
	ibf_error_clear(&err);
	TT_CHECK(ibf_fabric_parse(u, strlen(u), "u", IBF_FMT_AUTO, &err) == NULL);
	TT_EQ_INT(err.line, 1);
	ibf_fabric_free(f);
}

static void test_subnet_lst_loopbacks(void)
{
	/* the 2016 real fixture through ibsim and OpenSM */
	struct ibf_fabric *g =
		read_fixture("io/mixed-2016-via-ibsim-opensm.subnet.lst", IBF_FMT_AUTO);
	TT_REQUIRE(g);
	struct ibf_fabric *f =
		read_fixture("real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover",
			     IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(g, IBF_NODE_SWITCH), 2);
	TT_EQ_INT(count_type(g, IBF_NODE_CA), 6);
	TT_EQ_INT(count_links(g), 10);
	int ib = ibf_fabric_find_guid(g, 0xe41d2d030003e470ULL);
	TT_REQUIRE(ib >= 0);
	TT_EQ_INT(g->nodes[ib].nports, 36);
	TT_EQ_INT(ibf_port(g, ib, 19)->peer_node, ib);
	TT_EQ_INT(ibf_port(g, ib, 19)->peer_port, 21);
	TT_EQ_INT(ibf_port(g, ib, 0)->lid, 268);
	TT_EQ_INT(g->nodes[ib].devid, 0xcb20);
	TT_EQ_INT(g->nodes[ib].vendid, 0x2c9);
	TT_CHECK(!strcmp(g->nodes[ib].desc, "SwitchIB Mellanox Technologies"));
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(g, &st, 1, NULL) == 0);
	TT_EQ_INT(st.loopback_links, 3);
	ibf_stats_free(&st);
	/* same links and speeds as the original, node by node GUID */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		int j = ibf_fabric_find_guid(g, f->nodes[i].guid);
		TT_REQUIRE(j >= 0);
		TT_CHECK(!strcmp(f->nodes[i].desc, g->nodes[j].desc));
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *u = ibf_port(f, (int)i, p), *v = ibf_port(g, j, p);
			TT_EQ_INT(u->peer_node == IBF_NO_NODE, v->peer_node == IBF_NO_NODE);
			if (u->peer_node == IBF_NO_NODE || v->peer_node == IBF_NO_NODE)
				continue;
			TT_CHECK(f->nodes[u->peer_node].guid == g->nodes[v->peer_node].guid);
			TT_EQ_INT(u->peer_port, v->peer_port);
			TT_EQ_INT(u->width, v->width);
			TT_EQ_INT(u->speed, v->speed);
		}
	}
	ibf_fabric_free(f);
	ibf_fabric_free(g);
}

static void test_subnet_lst_errors(void)
{
	const char *a = "{ SW Ports:04 SystemGUID:0000000000000010 NodeGUID:0000000000000010 "
			"PortGUID:0000000000000010 VenID:0002C9 DevID:CB20 Rev:000000A1 {s } x} "
			"LID:0001 PN:01 }";
	const char *b = " { CA Ports:01 SystemGUID:0000000000000020 NodeGUID:0000000000000020 "
			"PortGUID:0000000000000021 VenID:0002C9 DevID:1017 Rev:000000A1 {h} "
			"LID:0002 PN:01 } PHY=4x LOG=ACT SPD=14\n";
	char buf[2048];
	snprintf(buf, sizeof(buf), "%s%s", a, b);
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(buf, IBF_FMT_AUTO, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(f->nnodes, 2);
	TT_CHECK(!strcmp(f->nodes[0].desc, "s } x")); /* a '}' inside the description */
	TT_EQ_INT(ibf_port(f, 1, 1)->speed, IBF_SPEED_FDR);
	TT_EQ_INT(meta_long(f, "one_sided"), 1);
	ibf_fabric_free(f);
	/* an older release: no SPD= field, speed unknown, width kept */
	snprintf(buf, sizeof(buf), "%s%s", a, b);
	char *spd = strstr(buf, " SPD=14");
	TT_REQUIRE(spd);
	memcpy(spd, "\n", 2);
	f = parse_str(buf, IBF_FMT_AUTO, &err);
	TT_REQUIRE(f);
	TT_EQ_INT(ibf_port(f, 1, 1)->speed, IBF_SPEED_UNKNOWN);
	TT_EQ_INT(ibf_port(f, 1, 1)->width, 4);
	ibf_fabric_free(f);
	/* but not some other word in its place */
	snprintf(buf, sizeof(buf), "%s%s", a, b);
	spd = strstr(buf, " SPD=14");
	TT_REQUIRE(spd);
	memcpy(spd, " XYZ=14", 7);
	expect_error(buf, IBF_FMT_SUBNET_LST, 1, "subnet.lst unknown field after LOG=");
	snprintf(buf, sizeof(buf), "%s%s%s junk\n", a, b, a);
	expect_error(buf, IBF_FMT_SUBNET_LST, 2, "subnet.lst garbage");
	/* PN beyond Ports */
	snprintf(buf, sizeof(buf), "%s%s", a, b);
	char *pn = strstr(buf, "PN:01 } {");
	TT_REQUIRE(pn);
	memcpy(pn, "PN:05", 5);
	expect_error(buf, IBF_FMT_SUBNET_LST, 1, "subnet.lst port range");
}

/* ------------------------------------------------------------ ibsim simple names */

static void test_ibsim_simple_names(void)
{
	const char *net = "# a hand-written ibsim net file\n"
			  "Switch 8 \"sw-a\" # \"Switch A\" enhanced port 0 lid 3\n"
			  "[1] \"h1\"[1] # \"host 1\" lid 6 4xEDR\n"
			  "[2] \"h1\"[2] w=1 s=1 # \"host 1\"\n"
			  "[3] \"sw-b\"[3]\n"
			  "[4] \"h2\"\n"
			  "\n"
			  "Switch 8 \"sw-b\"\n"
			  "[3] \"sw-a\"[3] # lid 3 4xHDR\n"
			  "\n"
			  "Hca 2 \"h1\" # \"host 1\"\n"
			  "[1] \"sw-a\"[1] # lid 6 lmc 1 \"Switch A\" lid 3 4xEDR\n"
			  "[2] \"sw-a\"[2]\n"
			  "\n"
			  "caguid=0x5000\n"
			  "Ca 1 \"h2\"\n"
			  "[1] \"sw-a\"[4]\n";
	struct ibf_error err;
	struct ibf_fabric *f = parse_str(net, IBF_FMT_AUTO, &err);
	char m[800];
	TT_REQUIRE(f || (printf("# %s\n", ibf_error_format(&err, m, sizeof(m))), 0));
	char fmt[32];
	TT_CHECK(ibf_fabric_get_meta(f, "format", fmt, sizeof(fmt)) && !strcmp(fmt, "ibsim"));
	int a = find_id(f, "sw-a"), b = find_id(f, "sw-b"), h1 = find_id(f, "h1"),
	    h2 = find_id(f, "h2");
	TT_REQUIRE(a >= 0 && b >= 0 && h1 >= 0 && h2 >= 0);
	TT_CHECK(!strcmp(f->nodes[a].desc, "Switch A"));
	TT_CHECK(!strcmp(f->nodes[b].desc, "sw-b")); /* ibsim: the name when no desc */
	TT_EQ_INT(f->nodes[a].enhanced_sp0, 1);
	TT_EQ_INT(ibf_port(f, a, 0)->lid, 3);
	/* ibsim GUIDs: switches from 0x200000, CAs from 0x100000 (+nports+1),
	 * caguid= moves the CA base */
	TT_CHECK(f->nodes[a].guid == 0x200000);
	TT_CHECK(f->nodes[b].guid == 0x200001);
	TT_CHECK(f->nodes[h1].guid == 0x100000);
	TT_CHECK(ibf_port(f, h1, 2)->guid == 0x100002);
	TT_CHECK(f->nodes[h2].guid == 0x5000);
	TT_CHECK(ibf_port(f, h2, 1)->guid == 0x5001);
	TT_EQ_INT(ibf_port(f, h1, 1)->lid, 6);
	TT_EQ_INT(ibf_port(f, h1, 1)->lmc, 1);
	TT_EQ_INT(ibf_port(f, h1, 1)->speed, IBF_SPEED_EDR);
	/* w=1 s=1: 1x SDR; no tail: ibsim's default 4x SDR; lowest side wins */
	TT_EQ_INT(ibf_port(f, h1, 2)->width, 1);
	TT_EQ_INT(ibf_port(f, h1, 2)->speed, IBF_SPEED_SDR);
	TT_EQ_INT(ibf_port(f, a, 3)->width, 4);
	TT_EQ_INT(ibf_port(f, a, 3)->speed, IBF_SPEED_SDR);
	/* "[4] \"h2\"" without a peer port means port 1 */
	TT_EQ_INT(ibf_port(f, a, 4)->peer_node, h2);
	TT_EQ_INT(ibf_port(f, a, 4)->peer_port, 1);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	ibf_fabric_free(f);
	expect_error("Switch 8 \"a\"\n@1 \"x\"\n", IBF_FMT_IBSIM, 2, "ibsim alias");
	expect_error("include \"other.net\"\n", IBF_FMT_IBSIM, 1, "ibsim include");
}

/* ------------------------------------------------------------ node-name-map */

static void test_namemap(void)
{
	char path[] = "/tmp/ibfab-test-nnm-XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	const char *txt = "# node name map\n"
			  "\n"
			  "0x0002c903000e0b72 \"sw-r01-a\"\n"
			  "  0x10   \"name with # hash\"   # trailing comment\n"
			  "0x20 unquoted name  # comment\n"
			  "0x0002c903000e0b72 \"duplicate loses\"\n"
			  "48 \"decimal\"\n";
	TT_REQUIRE(write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt));
	close(fd);
	struct ibf_namemap m;
	struct ibf_error err;
	TT_REQUIRE(ibf_namemap_read(&m, path, &err) == 0);
	TT_EQ_INT(m.n, 4);
	TT_CHECK(!strcmp(ibf_namemap_lookup(&m, 0x0002c903000e0b72ULL), "sw-r01-a"));
	TT_CHECK(!strcmp(ibf_namemap_lookup(&m, 0x10), "name with # hash"));
	TT_CHECK(!strcmp(ibf_namemap_lookup(&m, 0x20), "unquoted name"));
	TT_CHECK(!strcmp(ibf_namemap_lookup(&m, 48), "decimal"));
	TT_CHECK(ibf_namemap_lookup(&m, 0x11) == NULL);
	ibf_namemap_free(&m);

	static const struct {
		const char *txt;
		long line;
	} bad[] = {
		{ "0x10 \"a\"\nnot-a-guid \"b\"\n", 2 },
		{ "0x10 \"a\"\n\n0x11\n", 3 },
		{ "0x10 \"unterminated\n", 1 },
		{ "0x10 \"a\" trailing\n", 1 },
		{ "0x10zz \"a\"\n", 1 },
		{ "0x123456789012345678 \"a\"\n", 1 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *o = fopen(path, "w");
		TT_REQUIRE(o);
		fputs(bad[i].txt, o);
		fclose(o);
		TT_CHECK(ibf_namemap_read(&m, path, &err) == IBF_EPARSE);
		TT_CHECK_MSG(err.line == bad[i].line, "case %zu: line %ld", i, err.line);
		TT_CHECK(!strcmp(err.file, path));
		TT_EQ_INT(m.n, 0);
	}
	/* every node GUID -> its description, and back */
	struct ibf_fabric *f = hand_fabric(1);
	TT_EQ_INT(ibf_namemap_write_fabric(f, path, &err), 0);
	TT_REQUIRE(ibf_namemap_read(&m, path, &err) == 0);
	TT_EQ_INT(m.n, f->nnodes);
	TT_CHECK(!strcmp(ibf_namemap_lookup(&m, f->nodes[4].guid), f->nodes[4].desc));
	TT_CHECK(!strcmp(ibf_namemap_lookup(&m, f->nodes[0].guid), " sw 'zero' # 0 "));
	ibf_namemap_free(&m);
	ibf_fabric_free(f);
	unlink(path);
	TT_CHECK(ibf_namemap_read(&m, "/nonexistent/nnm", &err) == IBF_EIO);
}

/* ------------------------------------------------------------ performance */

/* 1682 switches x 22 hosts (37004 hosts), switch links in a ring plus
 * chords: the size of a large production fabric. */
static struct ibf_fabric *big_fabric(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	const int nsw = 1682, hps = 22;
	char d[64];
	for (int i = 0; i < nsw; i++) {
		snprintf(d, sizeof(d), "sw-%04d SwitchIB Mellanox Technologies", i);
		ibf_fabric_add_node(f, IBF_NODE_SWITCH, 36,
				    ibf_gen_guid(IBF_NODE_SWITCH, (uint32_t)i, 0), d, NULL, NULL);
		ibf_port(f, i, 0)->guid = f->nodes[i].guid;
	}
	for (int i = 0; i < nsw; i++) {
		ibf_fabric_connect(f, i, 23, (i + 1) % nsw, 24, 4, IBF_SPEED_EDR, NULL);
		ibf_fabric_connect(f, i, 25, (i + 41) % nsw, 26, 4, IBF_SPEED_EDR, NULL);
		ibf_fabric_connect(f, i, 27, (i + 577) % nsw, 28, 4, IBF_SPEED_EDR, NULL);
	}
	for (int i = 0; i < nsw * hps; i++) {
		snprintf(d, sizeof(d), "node%05d HCA-1", i);
		uint64_t g = ibf_gen_guid(IBF_NODE_CA, (uint32_t)i, 0);
		int n = ibf_fabric_add_node(f, IBF_NODE_CA, 1, g, d, NULL, NULL);
		ibf_port(f, n, 1)->guid = g + 1;
		ibf_fabric_connect(f, n, 1, i / hps, 1 + i % hps, 4, IBF_SPEED_EDR, NULL);
	}
	ibf_assign_lids(f, 0, 0, NULL);
	return f;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_big_fabric_speed(void)
{
	struct ibf_fabric *f = big_fabric();
	TT_EQ_INT(f->nnodes, 1682 + 37004);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	TT_EQ_INT(ibf_fabric_write_stream(f, mem, IBF_FMT_IBNETDISCOVER, NULL), 0);
	fclose(mem);
	struct ibf_error err;
	double t0 = now();
	struct ibf_fabric *g = ibf_fabric_parse(buf, len, "big", IBF_FMT_AUTO, &err);
	double t = now() - t0;
	TT_REQUIRE(g);
	printf("# parsed %zu bytes, %u nodes in %.3f s\n", len, g->nnodes, t);
	/* well under a second in a plain build; sanitizers and valgrind are slower */
	TT_CHECK(t < 20.0);
	TT_EQ_INT(same_fabric(f, g, CMP_LIDS | CMP_PORTGUIDS | CMP_DESC), 0);
	TT_EQ_INT(meta_long(g, "one_sided"), 0);
	free(buf);
	ibf_fabric_free(g);
	ibf_fabric_free(f);
}

static void test_grouping_and_full_info(void)
{
	struct ibf_fabric *f = read_fixture("io/grouped-chassis-g-f.ibnetdiscover", IBF_FMT_AUTO);
	TT_REQUIRE(f);
	TT_EQ_INT(count_type(f, IBF_NODE_SWITCH), 2);
	TT_EQ_INT(count_type(f, IBF_NODE_CA), 1);
	TT_EQ_INT(count_links(f), 2);
	TT_EQ_INT(meta_long(f, "one_sided"), 0);
	int line = find_id(f, "S-0008f10400411f56"), h = find_id(f, "H-0008f10403960558");
	TT_REQUIRE(line >= 0 && h >= 0);
	TT_CHECK(f->nodes[line].sysimg_guid == 0x8f104004128f7ULL);
	TT_EQ_INT(ibf_port(f, line, 1)->peer_node, h);
	TT_EQ_INT(ibf_port(f, line, 1)->speed, IBF_SPEED_DDR);
	TT_EQ_INT(ibf_port(f, h, 1)->lid, 2);
	ibf_fabric_free(f);
}

int main(void)
{
	TT(test_voltaire_2007);
	TT(test_mt43132_2009);
	TT(test_mixed_loopbacks_2016);
	TT(test_qdr_single_space_separator);
	TT(test_ports_report_excerpt);
	TT(test_qlogic_chassis_show_ports);
	TT(test_voltaire_mellanox_mix_show_ports);
	TT(test_truescale_two_subnets_show_ports);
	TT(test_sx6036_fdr10_2014);
	TT(test_ports_report_shared_guid);
	TT(test_sniff_fixtures);
	TT(test_grammar_variants);
	TT(test_grouping_and_full_info);
	TT(test_one_sided_and_placeholder);
	TT(test_errors_with_lines);
	TT(test_truncated_every_offset);
	TT(test_random_bytes);
	TT(test_mutated_fixtures);
	TT(test_huge_line_and_nul);
	TT(test_roundtrip_ibnetdiscover);
	TT(test_roundtrip_no_guids);
	TT(test_roundtrip_ibsim);
	TT(test_sniff_hca_dump);
	TT(test_write_json);
	TT(test_write_file_atomic);
	TT(test_format_names);
	TT(test_ibsim_writer_golden);
	TT(test_guids_survive_ibsim);
	TT(test_ports_report_via_ibsim);
	TT(test_subnet_lst_via_opensm);
	TT(test_subnet_lst_loopbacks);
	TT(test_guid2lid_from_opensm);
	TT(test_iblinkinfo_lid0_peers);
	TT(test_iblinkinfo_fdr10_and_oddities);
	TT(test_ibnetdiscover_show_progress);
	TT(test_ibnetdiscover_two_dumps);
	TT(test_subnet_lst_errors);
	TT(test_ibsim_simple_names);
	TT(test_namemap);
	TT(test_big_fabric_speed);
	TT(test_lids_beyond_unicast);
	TT(test_lid_alignment);
	TT(test_node_label);
	TT(test_error_excerpt);
	return tt_done();
}
