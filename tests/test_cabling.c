/* Unit tests for cabling/: Slim Fly plans, plan CSV I/O, from-topology,
 * sheets, and the validator's fault classes. */
#include "gen_internal.h"
#include "ibf_cabling.h"
#include "ibf_topology.h"
#include "tt.h"
#include "tt_fabric.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted "nameA|nameB" strings (names ordered) of every link; *n set. */
static char **edge_names(const struct ibf_fabric *f, size_t *n)
{
	size_t cap = f->nports_total + 1, k = 0;
	char **v = malloc(cap * sizeof(char *));
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE || (uint32_t)pp->peer_node < i)
				continue;
			const char *a = f->nodes[i].desc, *b = f->nodes[pp->peer_node].desc;
			if (strcmp(a, b) > 0) {
				const char *t = a;
				a = b;
				b = t;
			}
			size_t l = strlen(a) + strlen(b) + 2;
			v[k] = malloc(l);
			snprintf(v[k], l, "%s|%s", a, b);
			k++;
		}
	qsort(v, k, sizeof(char *), cmp_str);
	*n = k;
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static struct ibf_plan *sf_plan(int q, int hosts, int swports, int first)
{
	struct ibf_sfplan_opts o = {
		.q = q, .hosts = hosts, .switch_ports = swports, .first_host_port = first
	};
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_slimfly(&o, &err);
	if (!p)
		printf("# plan q=%d: %s\n", q, err.msg);
	return p;
}

/* parse "sf-rXX-gG-sYY" */
static int sf_name(const char *s, int *x, int *g, int *y)
{
	return sscanf(s, "sf-r%d-g%d-s%d", x, g, y) == 3;
}

static int count_kind(const struct ibf_vreport *r, int kind)
{
	return (int)r->counts[kind];
}

static const struct ibf_finding *first_of(const struct ibf_vreport *r, int kind)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->f[i].kind == kind)
			return &r->f[i];
	return NULL;
}

static void dump_report(const struct ibf_vreport *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		printf("#   %s: %s\n", ibf_finding_kind_name(r->f[i].kind), r->f[i].fix);
}

/* ------------------------------------------------------------ Slim Fly plans */

static void check_sf_plan(int q)
{
	struct ibf_plan *p = sf_plan(q, -1, 0, 0);
	TT_REQUIRE(p);
	struct ibf_error err;
	struct ibf_fabric *f = ibf_plan_to_fabric(p, &err);
	struct ibf_slimfly_opts go = { .q = q, .hosts = -1 };
	struct ibf_fabric *g = ibf_gen_slimfly(&go, &err);
	TT_REQUIRE(f && g);
	/* same names -> same edges (switch graph and host attachment) */
	size_t nf, ng;
	char **ef = edge_names(f, &nf), **eg = edge_names(g, &ng);
	TT_EQ_INT(nf, ng);
	int same = nf == ng;
	for (size_t i = 0; same && i < nf; i++)
		same = !strcmp(ef[i], eg[i]);
	TT_CHECK_MSG(same, "q=%d: plan edges differ from ibf_gen_slimfly", q);
	free_names(ef, nf);
	free_names(eg, ng);
	/* independent MMS check of the cross edges: (0,x,y)~(1,m,c) iff y = m x + c */
	struct ibf_gf gf;
	TT_REQUIRE(ibf_gf_init(&gf, q, &err) == 0);
	int delta = q % 4 == 1 ? 1 : q % 4 == 0 ? 0 : -1, kp = (3 * q - delta) / 2;
	int bad_eq = 0, bad_ports = 0;
	for (uint32_t c = 0; c < p->ncables; c++) {
		const struct ibf_cable *cb = &p->cables[c];
		if (cb->ap < 1 || cb->ap > p->nodes[cb->a].nports || cb->bp < 1 ||
		    cb->bp > p->nodes[cb->b].nports)
			bad_ports++;
		int x1, g1, y1, x2, g2, y2;
		if (cb->kind == IBF_CABLE_HOST)
			continue;
		TT_REQUIRE(sf_name(p->nodes[cb->a].name, &x1, &g1, &y1) &&
			   sf_name(p->nodes[cb->b].name, &x2, &g2, &y2));
		if (g1 == g2) {
			if (x1 != x2 || cb->kind != IBF_CABLE_INTRA_SUBGROUP || cb->step != 1)
				bad_eq++;
			continue;
		}
		int x = g1 == 0 ? x1 : x2, y = g1 == 0 ? y1 : y2, m = g1 == 0 ? x2 : x1,
		    cc = g1 == 0 ? y2 : y1;
		if (y != ibf_gf_add(&gf, ibf_gf_mul(&gf, m, x), cc))
			bad_eq++;
		int want = x1 == x2 ? IBF_CABLE_INTRA_RACK : IBF_CABLE_INTER_RACK;
		if (cb->kind != want || cb->step != (want == IBF_CABLE_INTRA_RACK ? 2 : 3))
			bad_eq++;
	}
	ibf_gf_free(&gf);
	TT_EQ_INT(bad_eq, 0);
	TT_EQ_INT(bad_ports, 0);
	/* 2q^2 switches of degree k', diameter 2 */
	struct ibf_stats st;
	TT_REQUIRE(ibf_fabric_stats(f, &st, 1, &err) == 0);
	TT_EQ_INT(st.nswitches, 2 * q * q);
	TT_EQ_INT(st.max_degree, kp);
	TT_EQ_INT(st.min_degree, kp);
	TT_EQ_INT(st.diameter, 2);
	TT_EQ_INT(st.parallel_links, 0);
	ibf_stats_free(&st);
	/* the same port towards a given rack: for each subgroup g, port(rack) is
	 * one function for all switches, one port per rack */
	int rackport[2][128];
	memset(rackport, 0, sizeof(rackport));
	int bad_rack = 0;
	for (uint32_t n = 0; n < p->nnodes; n++) {
		int x, gg, y;
		if (p->nodes[n].type != IBF_NODE_SWITCH || !sf_name(p->nodes[n].name, &x, &gg, &y))
			continue;
		int seen[128] = { 0 };
		for (int port = 1; port <= p->nodes[n].nports; port++) {
			int c = ibf_plan_cable_at(p, n, port);
			if (c < 0 || p->cables[c].kind == IBF_CABLE_HOST ||
			    p->cables[c].kind == IBF_CABLE_INTRA_SUBGROUP)
				continue;
			uint32_t o = p->cables[c].a == n ? p->cables[c].b : p->cables[c].a;
			int ox, og, oy;
			sf_name(p->nodes[o].name, &ox, &og, &oy);
			if (seen[ox]++)
				bad_rack++;
			if (!rackport[gg][ox])
				rackport[gg][ox] = port;
			else if (rackport[gg][ox] != port)
				bad_rack++;
		}
		for (int r = 0; r < q; r++)
			if (seen[r] != 1)
				bad_rack++;
	}
	TT_EQ_INT(bad_rack, 0);
	/* intra-subgroup port assignment identical across racks */
	int bad_sub = 0;
	for (uint32_t c = 0; c < p->ncables; c++) {
		const struct ibf_cable *cb = &p->cables[c];
		if (cb->kind != IBF_CABLE_INTRA_SUBGROUP)
			continue;
		int x1, g1, y1, x2, g2, y2;
		sf_name(p->nodes[cb->a].name, &x1, &g1, &y1);
		sf_name(p->nodes[cb->b].name, &x2, &g2, &y2);
		char nm[64];
		for (int r = 0; r < q; r++) {
			snprintf(nm, sizeof(nm), "sf-r%02d-g%d-s%02d", r, g1, y1);
			int a = ibf_plan_find(p, nm);
			snprintf(nm, sizeof(nm), "sf-r%02d-g%d-s%02d", r, g2, y2);
			int b = ibf_plan_find(p, nm);
			int k = a >= 0 ? ibf_plan_cable_at(p, (uint32_t)a, cb->ap) : -1;
			if (k < 0 || p->cables[k].kind != IBF_CABLE_INTRA_SUBGROUP ||
			    (p->cables[k].a == (uint32_t)a ? p->cables[k].b : p->cables[k].a) !=
				    (uint32_t)b ||
			    (p->cables[k].a == (uint32_t)a ? p->cables[k].bp : p->cables[k].ap) !=
				    cb->bp)
				bad_sub++;
		}
	}
	TT_EQ_INT(bad_sub, 0);
	/* racks: q racks of 2q switches */
	int per_rack[128] = { 0 };
	for (uint32_t n = 0; n < p->nnodes; n++)
		if (p->nodes[n].type == IBF_NODE_SWITCH)
			per_rack[atoi(p->nodes[n].rack + 1)]++;
	for (int r = 0; r < q; r++)
		TT_EQ_INT(per_rack[r], 2 * q);
	ibf_fabric_free(f);
	ibf_fabric_free(g);
	ibf_plan_free(p);
}

static void test_sf_q5(void)
{
	check_sf_plan(5);
}
static void test_sf_q7(void)
{
	check_sf_plan(7);
}
static void test_sf_q9(void)
{
	check_sf_plan(9);
}
static void test_sf_q11(void)
{
	check_sf_plan(11);
}
static void test_sf_q4_q8(void)
{
	check_sf_plan(4);
	check_sf_plan(8);
}

static void test_sf_q5_counts(void)
{
	struct ibf_plan *p = sf_plan(5, -1, 0, 0);
	TT_REQUIRE(p);
	int cnt[IBF_CABLE_KIND_COUNT] = { 0 }, nsw = 0, nh = 0;
	for (uint32_t c = 0; c < p->ncables; c++)
		cnt[p->cables[c].kind]++;
	for (uint32_t n = 0; n < p->nnodes; n++)
		p->nodes[n].type == IBF_NODE_SWITCH ? nsw++ : nh++;
	TT_EQ_INT(nsw, 50);
	TT_EQ_INT(nh, 200);
	/* per subgroup: 5 switches of degree 2 in the subgroup -> 5 cables; 10 subgroups */
	TT_EQ_INT(cnt[IBF_CABLE_INTRA_SUBGROUP], 50);
	TT_EQ_INT(cnt[IBF_CABLE_INTRA_RACK], 25);
	TT_EQ_INT(cnt[IBF_CABLE_INTER_RACK], 100);
	TT_EQ_INT(cnt[IBF_CABLE_HOST], 200);
	/* cables numbered 1.. in step order */
	int ordered = 1;
	for (uint32_t c = 0; c < p->ncables; c++)
		ordered &= p->cables[c].id == c + 1 &&
			   (!c || p->cables[c - 1].step <= p->cables[c].step);
	TT_CHECK(ordered);
	/* default: hosts after the 7 switch links, ports 8..11 */
	int n0 = ibf_plan_find(p, "sf-r00-g0-s00");
	TT_REQUIRE(n0 >= 0);
	TT_EQ_INT(p->nodes[n0].nports, 11);
	for (int port = 1; port <= 11; port++) {
		int c = ibf_plan_cable_at(p, (uint32_t)n0, port);
		TT_REQUIRE(c >= 0);
		TT_EQ_INT(p->cables[c].kind == IBF_CABLE_HOST, port >= 8);
	}
	ibf_plan_free(p);
}

static void test_sf_host_ports(void)
{
	/* hosts first */
	struct ibf_plan *p = sf_plan(5, 4, 16, 1);
	TT_REQUIRE(p);
	int n0 = ibf_plan_find(p, "sf-r02-g1-s03");
	TT_REQUIRE(n0 >= 0);
	TT_EQ_INT(p->nodes[n0].nports, 16);
	for (int port = 1; port <= 16; port++) {
		int c = ibf_plan_cable_at(p, (uint32_t)n0, port);
		if (port <= 4)
			TT_CHECK(c >= 0 && p->cables[c].kind == IBF_CABLE_HOST);
		else if (port <= 11)
			TT_CHECK(c >= 0 && p->cables[c].kind != IBF_CABLE_HOST);
		else
			TT_CHECK(c < 0);
	}
	ibf_plan_free(p);
	/* hosts after a gap: 13..16 */
	p = sf_plan(5, 4, 16, 13);
	TT_REQUIRE(p);
	n0 = ibf_plan_find(p, "sf-r02-g1-s03");
	for (int port = 1; port <= 16; port++) {
		int c = ibf_plan_cable_at(p, (uint32_t)n0, port);
		if (port <= 7)
			TT_CHECK(c >= 0 && p->cables[c].kind != IBF_CABLE_HOST);
		else if (port <= 12)
			TT_CHECK(c < 0);
		else
			TT_CHECK(c >= 0 && p->cables[c].kind == IBF_CABLE_HOST);
	}
	ibf_plan_free(p);
	/* hosts in the middle: 3..6; switch links on 1-2 and 7-11 */
	p = sf_plan(5, 4, 0, 3);
	TT_REQUIRE(p);
	n0 = ibf_plan_find(p, "sf-r00-g0-s00");
	TT_EQ_INT(p->nodes[n0].nports, 11);
	for (int port = 1; port <= 11; port++) {
		int c = ibf_plan_cable_at(p, (uint32_t)n0, port);
		TT_CHECK(c >= 0 &&
			 (p->cables[c].kind == IBF_CABLE_HOST) == (port >= 3 && port <= 6));
	}
	ibf_plan_free(p);
}

static void test_sf_errors(void)
{
	struct ibf_error err;
	struct ibf_sfplan_opts o = { .q = 5, .hosts = 4, .switch_ports = 10 };
	TT_CHECK(ibf_plan_slimfly(&o, &err) == NULL);
	TT_CHECK_MSG(strstr(err.msg, "needs 11 switch ports"), "%s", err.msg);
	o.switch_ports = 12;
	o.first_host_port = 10; /* 10..13 > 12 */
	TT_CHECK(ibf_plan_slimfly(&o, &err) == NULL);
	TT_CHECK_MSG(strstr(err.msg, "switch ports"), "%s", err.msg);
	o.first_host_port = 0;
	o.q = 6;
	TT_CHECK(ibf_plan_slimfly(&o, &err) == NULL);
	TT_CHECK_MSG(strstr(err.msg, "admissible"), "%s", err.msg);
}

/* ------------------------------------------------------------ CSV */

static char *plan_csv(const struct ibf_plan *p, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	ibf_plan_write_csv_stream(p, m);
	fclose(m);
	return buf;
}

static void test_csv_roundtrip(void)
{
	struct ibf_plan *p = sf_plan(7, 3, 36, 1);
	TT_REQUIRE(p);
	size_t len;
	char *csv = plan_csv(p, &len);
	struct ibf_error err;
	struct ibf_plan *p2 = ibf_plan_parse_csv(csv, len, "x.csv", &err);
	TT_REQUIRE(p2);
	TT_EQ_INT(p2->ncables, p->ncables);
	TT_EQ_INT(p2->nnodes, p->nnodes);
	int same = 1;
	for (uint32_t c = 0; c < p->ncables && same; c++) {
		const struct ibf_cable *a = &p->cables[c], *b = &p2->cables[c];
		same = a->id == b->id && a->step == b->step && a->kind == b->kind &&
		       a->ap == b->ap && a->bp == b->bp && a->width == b->width &&
		       a->speed == b->speed && !strcmp(p->nodes[a->a].name, p2->nodes[b->a].name) &&
		       !strcmp(p->nodes[a->b].name, p2->nodes[b->b].name) &&
		       !strcmp(p->nodes[a->a].rack, p2->nodes[b->a].rack);
	}
	TT_CHECK(same);
	for (uint32_t n = 0; n < p->nnodes; n++)
		TT_EQ_INT(p2->nodes[n].nports, p->nodes[n].nports);
	size_t len2;
	char *csv2 = plan_csv(p2, &len2);
	TT_CHECK(len == len2 && !memcmp(csv, csv2, len));
	free(csv);
	free(csv2);
	ibf_plan_free(p2);
	ibf_plan_free(p);
	/* quoting, comments, CRLF, other column order, extra columns */
	const char *txt = "# my plan\r\n"
			  "note,b_port,b_switch,a_port,a_switch,kind,step,cable\r\n"
			  "\"hello, world\",1,\"sw \"\"b\"\"\",3,sw-a,switch,2,7\r\n"
			  "\r\n"
			  ",2,host-1,4,sw-a,host,3,8\r\n";
	p = ibf_plan_parse_csv(txt, strlen(txt), "q.csv", &err);
	TT_REQUIRE(p);
	TT_EQ_INT(p->ncables, 2);
	TT_CHECK(ibf_plan_find(p, "sw \"b\"") >= 0);
	TT_EQ_INT(p->nodes[ibf_plan_find(p, "host-1")].type, IBF_NODE_CA);
	TT_EQ_INT(p->cables[0].id, 7);
	TT_EQ_INT(p->cables[1].step, 3);
	csv = plan_csv(p, &len);
	p2 = ibf_plan_parse_csv(csv, len, "r.csv", &err);
	TT_CHECK(p2 && p2->ncables == 2 && ibf_plan_find(p2, "sw \"b\"") >= 0);
	ibf_plan_free(p2);
	free(csv);
	ibf_plan_free(p);
	/* a spreadsheet's UTF-8 byte order mark before the header: the first
	 * column ("cable") used to be unknown and silently renumbered */
	const char *bom = "\xef\xbb\xbf"
			  "cable,a_switch,a_port,b_switch,b_port\r\n"
			  "101,sw-a,1,sw-b,1\r\n"
			  "205,sw-a,2,sw-b,2\r\n";
	p = ibf_plan_parse_csv(bom, strlen(bom), "bom.csv", &err);
	TT_REQUIRE(p);
	TT_EQ_INT(p->ncables, 2);
	TT_EQ_INT(p->cables[0].id, 101);
	TT_EQ_INT(p->cables[1].id, 205);
	ibf_plan_free(p);
}

static void expect_csv_error(const char *txt, long line, const char *what)
{
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_parse_csv(txt, strlen(txt), "bad.csv", &err);
	TT_CHECK(p == NULL);
	ibf_plan_free(p);
	char buf[700];
	ibf_error_format(&err, buf, sizeof(buf));
	TT_CHECK_MSG(err.line == line && !strcmp(err.file, "bad.csv") && strstr(err.msg, what),
		     "want line %ld '%s', got '%s'", line, what, buf);
}

static void test_csv_errors(void)
{
	const char *h = "cable,step,kind,a_rack,a_switch,a_port,b_rack,b_switch,b_port\n";
	char t[1024];
	expect_csv_error("cable,a_switch,a_port,b_switch\n1,a,1,b\n", 1, "b_port");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,b,2\n2,1,switch,r0,a,x,r0,c,1\n", h);
	expect_csv_error(t, 3, "bad port");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,b,2\n\n2,1,switch,r0,a,1,r0,c,1\n", h);
	expect_csv_error(t, 4, "a port 1 is used by cable 1 (line 2) and cable 2");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,b,2\n1,1,switch,r0,a,2,r0,c,1\n", h);
	expect_csv_error(t, 3, "cable number 1 is used twice (first at line 2)");
	/* a row copied twice is a repeated cable, not "port 1 is used by cable
	 * 1 and cable 1" as it was reported */
	snprintf(t, sizeof(t),
		 "%s1,1,switch,r0,a,1,r0,b,2\n2,1,switch,r0,a,2,r0,c,1\n"
		 "# copy\n2,1,switch,r0,a,2,r0,c,1\n",
		 h);
	expect_csv_error(t, 5, "cable number 2 is used twice (first at line 3)");
	snprintf(t, sizeof(t), "%s1,1,bogus,r0,a,1,r0,b,2\n", h);
	expect_csv_error(t, 2, "unknown kind");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,\"a,1,r0,b,2\n", h);
	expect_csv_error(t, 2, "unterminated");
	snprintf(t, sizeof(t), "%s1,0,switch,r0,a,1,r0,b,2\n", h);
	expect_csv_error(t, 2, "bad step");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,300,r0,b,2\n", h);
	expect_csv_error(t, 2, "bad port");
	snprintf(t, sizeof(t), "%s1,1,host,r0,h,1,r0,b,2\n2,1,switch,r0,a,1,r0,b,3\n", h);
	expect_csv_error(t, 3, "both as a switch and as a host");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,a,1\n", h);
	expect_csv_error(t, 2, "to itself");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,b,2\n2,1,switch,r1,a,2,r0,c,1\n", h);
	expect_csv_error(t, 3, "a is in rack r0 and in rack r1");
	snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,b,2\n2,1,switch,r0,a,2,r0,c,1,4x\n", h);
	expect_csv_error(t, 3, "10 fields but the header has 9");
	/* a row cut short (a truncated copy: the cut may fall inside the last
	 * field, e.g. b_port 12 -> 1) used to be read with the missing fields
	 * left empty */
	expect_csv_error("a_switch,a_port,b_switch,b_port,a_nports,b_nports\n"
			 "a,1,b,2,36,36\na,2,c,12,36\n",
			 3, "5 fields but the header has 6");
	expect_csv_error("a_switch,a_port,b_switch,b_port,width,speed\nsw1,1,sw2,12,4x\n", 2,
			 "5 fields but the header has 6");
	{ /* empty fields beyond the header (a spreadsheet's unused columns) are fine */
		snprintf(t, sizeof(t), "%s1,1,switch,r0,a,1,r0,b,2,,\n2,1,switch,r0,a,2,r0,c,1, \n",
			 h);
		struct ibf_error e;
		struct ibf_plan *pl = ibf_plan_parse_csv(t, strlen(t), "t.csv", &e);
		TT_CHECK_MSG(pl && pl->ncables == 2, "%s", pl ? "" : e.msg);
		ibf_plan_free(pl);
	}
	{ /* speeds in any case, as widths already were ("4X"): a plan typed
	   * by hand with "edr" was refused */
		const char *lc = "a_switch,a_port,b_switch,b_port,width,speed\n"
				 "sw1,1,sw2,1,4X,edr\nsw1,2,sw2,2,2xhdr,\nsw1,3,sw2,3,4x,Fdr10\n";
		struct ibf_error e;
		struct ibf_plan *pl = ibf_plan_parse_csv(lc, strlen(lc), "lc.csv", &e);
		TT_CHECK_MSG(pl && pl->ncables == 3, "%s", pl ? "" : e.msg);
		if (pl && pl->ncables == 3) {
			TT_EQ_INT(pl->cables[0].width, 4);
			TT_EQ_INT(pl->cables[0].speed, IBF_SPEED_EDR);
			TT_EQ_INT(pl->cables[1].width, 2);
			TT_EQ_INT(pl->cables[1].speed, IBF_SPEED_HDR);
			TT_EQ_INT(pl->cables[2].speed, IBF_SPEED_FDR10);
		}
		ibf_plan_free(pl);
	}
	snprintf(t, sizeof(t), "cable,a_switch,a_port,b_switch,b_port,a_nports\n1,a,5,b,1,4\n");
	expect_csv_error(t, 2, "beyond its 4 ports");
	expect_csv_error("# only a comment\n", 1, "no header");
}

/* ------------------------------------------------------------ from-topology */

/* two switches with two cables between them, one at 1x (its twin says 4x):
 * the plan gives that cable 4x, so the fabric against its own plan reports
 * it degraded (it was planned as found, 1x, and validated clean) */
static void test_from_topology_degraded(void)
{
	struct ibf_error err;
	struct ibf_fabric *f = ibf_fabric_new();
	TT_REQUIRE(f);
	int a = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x10, "swA", "swA", NULL);
	int b = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x20, "swB", "swB", NULL);
	int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x30, "h1", "h1", NULL);
	TT_REQUIRE(a >= 0 && b >= 0 && h >= 0);
	TT_REQUIRE(ibf_fabric_connect(f, a, 5, b, 5, 4, IBF_SPEED_EDR, NULL) == 0);
	TT_REQUIRE(ibf_fabric_connect(f, a, 6, b, 6, 1, IBF_SPEED_EDR, NULL) == 0);
	TT_REQUIRE(ibf_fabric_connect(f, h, 1, a, 1, 4, IBF_SPEED_EDR, NULL) == 0);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	uint32_t nexp = 99;
	struct ibf_plan *p = ibf_plan_from_fabric_ex(f, &nexp, &err);
	TT_REQUIRE(p);
	TT_EQ_INT(nexp, 1);
	int seen = 0;
	for (uint32_t i = 0; i < p->ncables; i++) {
		TT_EQ_INT(p->cables[i].width, 4); /* the 1x one too */
		TT_EQ_INT(p->cables[i].speed, IBF_SPEED_EDR);
		seen += p->cables[i].ap == 6;
	}
	TT_EQ_INT(seen, 1);
	struct ibf_vreport r;
	TT_REQUIRE(ibf_validate(p, f, NULL, &r, &err) == 0);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(r.counts[IBF_FIND_DEGRADED], 1);
	ibf_vreport_free(&r);
	ibf_plan_free(p);
	ibf_fabric_free(f);
}

/* ibsim answers PortInfo with 12x HDR supported on every port: each cable
 * is then degraded by the supported values, and the plan gave every one
 * 12x HDR (the fabric against its own plan: every cable degraded).  The
 * rate most cables between the same two models run at bounds what a cable
 * is planned at: only the 1x cable goes into the plan at 4xEDR. */
static void test_from_topology_supported_absurd(void)
{
	struct ibf_error err;
	struct ibf_fabric *f = ibf_fabric_new();
	TT_REQUIRE(f);
	int a = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x10, "swA", "swA", NULL);
	int b = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x20, "swB", "swB", NULL);
	int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x30, "h1", "h1", NULL);
	int h2 = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x40, "h2", "h2", NULL);
	TT_REQUIRE(a >= 0 && b >= 0 && h >= 0 && h2 >= 0);
	for (int p = 4; p <= 7; p++)
		TT_REQUIRE(ibf_fabric_connect(f, a, p, b, p, p == 7 ? 1 : 4, IBF_SPEED_EDR, NULL) ==
			   0);
	TT_REQUIRE(ibf_fabric_connect(f, h, 1, a, 1, 4, IBF_SPEED_EDR, NULL) == 0);
	TT_REQUIRE(ibf_fabric_connect(f, h2, 1, b, 1, 4, IBF_SPEED_EDR, NULL) == 0);
	for (uint32_t i = 0; i < f->nports_total; i++) {
		f->ports[i].width_sup = 12;
		f->ports[i].speed_sup = IBF_SPEED_HDR;
	}
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	uint32_t nexp = 99;
	struct ibf_plan *p = ibf_plan_from_fabric_ex(f, &nexp, &err);
	TT_REQUIRE(p);
	TT_EQ_INT(nexp, 1);
	for (uint32_t i = 0; i < p->ncables; i++) {
		TT_EQ_INT(p->cables[i].width, 4); /* the 1x one too, none 12x */
		TT_EQ_INT(p->cables[i].speed, IBF_SPEED_EDR);
	}
	struct ibf_vreport r;
	TT_REQUIRE(ibf_validate(p, f, NULL, &r, &err) == 0);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(r.counts[IBF_FIND_DEGRADED], 1);
	ibf_vreport_free(&r);
	ibf_plan_free(p);
	ibf_fabric_free(f);
}

static void test_from_topology(void)
{
	struct ibf_error err;
	struct ibf_fabric *ft = ibf_gen_kary_ntree(4, 3, &err);
	TT_REQUIRE(ft);
	struct ibf_plan *p = ibf_plan_from_fabric(ft, &err);
	TT_REQUIRE(p);
	struct ibf_fabric *back = ibf_plan_to_fabric(p, &err);
	TT_REQUIRE(back);
	size_t n1, n2;
	char **e1 = edge_names(ft, &n1), **e2 = edge_names(back, &n2);
	TT_EQ_INT(n1, n2);
	int same = n1 == n2;
	for (size_t i = 0; same && i < n1; i++)
		same = !strcmp(e1[i], e2[i]);
	TT_CHECK(same);
	free_names(e1, n1);
	free_names(e2, n2);
	/* the fabric validates clean against its own plan */
	struct ibf_vreport r;
	TT_REQUIRE(ibf_validate(p, ft, NULL, &r, &err) == 0);
	TT_EQ_INT(r.n, 0);
	TT_EQ_INT(r.ok, p->ncables);
	ibf_vreport_free(&r);
	ibf_fabric_free(back);
	ibf_plan_free(p);
	ibf_fabric_free(ft);
	/* rails */
	struct ibf_rail_opts ro = {
		.servers = 8, .gpus = 4, .rail_switches = 1, .spines = 2, .uplinks = 1
	};
	struct ibf_fabric *rf = ibf_gen_rail(&ro, &err);
	TT_REQUIRE(rf);
	p = ibf_plan_from_fabric(rf, &err);
	TT_REQUIRE(p);
	TT_REQUIRE(ibf_validate(p, rf, NULL, &r, &err) == 0);
	TT_EQ_INT(r.n, 0);
	ibf_vreport_free(&r);
	ibf_plan_free(p);
	ibf_fabric_free(rf);
	/* the Slim Fly rendering round-trips: racks from names */
	struct ibf_plan *sp = sf_plan(5, 2, 0, 0);
	struct ibf_fabric *sf = ibf_plan_to_fabric(sp, &err);
	p = ibf_plan_from_fabric(sf, &err);
	TT_REQUIRE(p);
	TT_CHECK(!strcmp(p->nodes[ibf_plan_find(p, "sf-r03-g1-s02")].rack, "r03"));
	ibf_plan_free(p);
	ibf_fabric_free(sf);
	ibf_plan_free(sp);
}

/* ------------------------------------------------------------ sheets */

static void test_sheets(void)
{
	struct ibf_plan *p = sf_plan(5, -1, 0, 0);
	TT_REQUIRE(p);
	char dir[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(dir));
	struct ibf_error err;
	int n = ibf_sheets_write(p, dir, &err);
	TT_EQ_INT(n, 5 + 10);
	char path[256];
	const char *files[] = { "index.md",	   "rack-r00.svg", "rack-r00.dot",
				"rack-r00.md",	   "rack-r00.csv", "racks-r00-r01.svg",
				"racks-r03-r04.md" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		TT_CHECK_MSG(access(path, R_OK) == 0, "%s", path);
	}
	/* rack checklist: 10 intra-subgroup + 5 intra-rack + 40 host cables */
	snprintf(path, sizeof(path), "%s/rack-r00.csv", dir);
	FILE *fp = fopen(path, "r");
	int lines = 0, c;
	while (fp && (c = fgetc(fp)) != EOF)
		lines += c == '\n';
	if (fp)
		fclose(fp);
	TT_EQ_INT(lines, 1 + 10 + 5 + 40);
	snprintf(path, sizeof(path), "%s/racks-r00-r01.md", dir);
	fp = fopen(path, "r");
	char buf[8192] = "";
	size_t got = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
	buf[got] = '\0';
	if (fp)
		fclose(fp);
	TT_CHECK_MSG(strstr(buf, "## Step 3 (10 cables)"), "%.200s", buf);
	/* clean up */
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	TT_CHECK(system(cmd) == 0);
	ibf_plan_free(p);
}

/* Sheets into a directory holding the sheets of a plan with more racks:
 * refused before anything is written (the q=7 plan's rack-r05 and rack-r06
 * sheets used to stay beside the q=5 ones, listed nowhere but printable),
 * while writing the same plan again, or another one with the same racks, is
 * fine, and files that are not sheets do not matter. */
static void test_sheets_stale(void)
{
	struct ibf_plan *p7 = sf_plan(7, -1, 0, 0), *p5 = sf_plan(5, -1, 0, 0);
	struct ibf_plan *p5h = sf_plan(5, 2, 0, 0);
	TT_REQUIRE(p7 && p5 && p5h);
	char dir[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(dir));
	struct ibf_error err;
	char path[256];
	snprintf(path, sizeof(path), "%s/rack-notes.txt", dir);
	FILE *fp = fopen(path, "w");
	TT_REQUIRE(fp);
	fclose(fp);
	TT_EQ_INT(ibf_sheets_write(p7, dir, &err), 7 + 21);
	TT_EQ_INT(ibf_sheets_write(p7, dir, &err), 7 + 21);
	TT_EQ_INT(ibf_sheets_check(p7, dir, &err), 0);
	TT_EQ_INT(ibf_sheets_check(p5, dir, &err), IBF_EINVAL);
	TT_EQ_INT(ibf_sheets_write(p5, dir, &err), IBF_EINVAL);
	/* 2 rack sheets and 11 rack-pair sheets of 4 files each */
	TT_CHECK_MSG(strstr(err.msg, "holds 52 sheet files") && strstr(err.msg, "rack-r05.csv"),
		     "%s", err.msg);
	/* nothing was written: the index is still the q=7 one */
	snprintf(path, sizeof(path), "%s/index.md", dir);
	fp = fopen(path, "r");
	char buf[256] = "";
	size_t got = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
	buf[got] = '\0';
	if (fp)
		fclose(fp);
	TT_CHECK_MSG(strstr(buf, "7 racks"), "%s", buf);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/rack-r05.* '%s'/rack-r06.* '%s'/racks-*-r05.* "
				   "'%s'/racks-*-r06.* '%s'/racks-r05-r06.*",
		 dir, dir, dir, dir, dir);
	TT_CHECK(system(cmd) == 0);
	TT_EQ_INT(ibf_sheets_write(p5, dir, &err), 5 + 10);
	TT_EQ_INT(ibf_sheets_write(p5h, dir, &err), 5 + 10);
	/* a file where the directory should be */
	snprintf(path, sizeof(path), "%s/index.md", dir);
	TT_EQ_INT(ibf_sheets_check(p5, path, &err), IBF_EIO);
	TT_CHECK_MSG(strstr(err.msg, "not a directory"), "%s", err.msg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	TT_CHECK(system(cmd) == 0);
	ibf_plan_free(p7);
	ibf_plan_free(p5);
	ibf_plan_free(p5h);
}

static char *slurp(const char *dir, const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int c;
	while ((c = fgetc(fp)) != EOF)
		fputc(c, mem);
	fclose(mem);
	fclose(fp);
	return buf;
}

/* The sheets of a plan read back from its CSV are the sheets of the plan:
 * switches top to bottom by name, not in the order the CSV first names them
 * (rack r00 of q=7 was drawn s00, s06, s05, s01, ... from the CSV). */
static void test_sheets_from_csv(void)
{
	struct ibf_plan *p = sf_plan(7, -1, 0, 0);
	TT_REQUIRE(p);
	size_t len;
	char *csv = plan_csv(p, &len);
	struct ibf_error err;
	struct ibf_plan *p2 = ibf_plan_parse_csv(csv, len, "p.csv", &err);
	TT_REQUIRE(p2);
	char d1[] = "/tmp/ibfab-sheets.XXXXXX", d2[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(d1) && mkdtemp(d2));
	TT_EQ_INT(ibf_sheets_write(p, d1, &err), 7 + 21);
	TT_EQ_INT(ibf_sheets_write(p2, d2, &err), 7 + 21);
	const char *files[] = { "rack-r00.svg", "rack-r03.dot", "racks-r01-r05.svg",
				"racks-r02-r06.dot", "rack-r04.md" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *a = slurp(d1, files[i]), *b = slurp(d2, files[i]);
		TT_CHECK_MSG(a && b && !strcmp(a, b), "%s differs", files[i]);
		free(a);
		free(b);
	}
	/* the first switch rows of rack r00, in slot order */
	char *svg = slurp(d2, "rack-r00.svg");
	const char *s0 = svg ? strstr(svg, ">sf-r00-g0-s00<") : NULL;
	const char *s1 = svg ? strstr(svg, ">sf-r00-g0-s01<") : NULL;
	const char *s6 = svg ? strstr(svg, ">sf-r00-g0-s06<") : NULL;
	TT_CHECK(s0 && s1 && s6 && s0 < s1 && s1 < s6);
	free(svg);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", d1, d2);
	TT_CHECK(system(cmd) == 0);
	free(csv);
	ibf_plan_free(p2);
	ibf_plan_free(p);
}

/* Cable types on the sheets: every checklist row and sheet CSV row names its
 * type, index.md counts cables per type; the drawings label the types only
 * where the lines mix them (a uniform sheet's DOT has no type at all). */
static void test_sheets_cable_types(void)
{
	const char *csv = "a_rack,a_switch,a_port,b_rack,b_switch,b_port,width,speed\n"
			  "r1,s1,1,r1,s2,1,4x,EDR\n"
			  "r1,s1,2,r1,s2,2,4x,FDR\n"
			  "r1,s1,3,r1,s3,1,4x,EDR\n"
			  "r1,s1,4,r2,s4,1,4x,EDR\n"
			  "r1,s2,4,r2,s4,2,4x,EDR\n"
			  "r2,s4,3,r2,s5,1,1x,QDR\n"
			  "r2,s4,4,r2,s5,2,1x,QDR\n";
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_parse_csv(csv, strlen(csv), "types.csv", &err);
	TT_REQUIRE(p && ibf_plan_index(p, &err) == 0);
	char dir[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(dir));
	TT_EQ_INT(ibf_sheets_write(p, dir, &err), 3);
	char *md = slurp(dir, "rack-r1.md"), *sc = slurp(dir, "rack-r1.csv");
	char *dot1 = slurp(dir, "rack-r1.dot"), *dot2 = slurp(dir, "rack-r2.dot");
	char *svg1 = slurp(dir, "rack-r1.svg"), *svg2 = slurp(dir, "rack-r2.svg");
	char *pair = slurp(dir, "racks-r1-r2.dot"), *idx = slurp(dir, "index.md");
	TT_REQUIRE(md && sc && dot1 && dot2 && svg1 && svg2 && pair && idx);
	TT_CHECK_MSG(strstr(md, "| [ ] | 2 | switch | 4x FDR | s1 | 2 | s2 | 2 |"), "%s", md);
	TT_CHECK_MSG(strstr(md, "Cable types: 4x EDR (2), 4x FDR (1)"), "%s", md);
	TT_CHECK_MSG(strstr(sc, ",b_port,type\n") && strstr(sc, ",s2,2,4x FDR\n"), "%s", sc);
	/* rack r1 mixes EDR and FDR: labelled and styled */
	TT_CHECK_MSG(strstr(dot1, "label=\"2 4x FDR\"") && strstr(dot1, "style=dashed") &&
			     strstr(dot1, "cable types: 4x EDR (2, solid), 4x FDR (1, dashed)"),
		     "%s", dot1);
	TT_CHECK(strstr(svg1, "stroke-dasharray=\"8 4\"") && strstr(svg1, "4x FDR (1)</text>"));
	/* rack r2 has one type (1x QDR): the DOT stays as it was, the SVG's
	 * subtitle names the type, no legend or dashes */
	TT_CHECK_MSG(!strstr(dot2, "style=") && !strstr(dot2, "QDR"), "%s", dot2);
	TT_CHECK(strstr(svg2, "cable types: 1x QDR (2)</text>") && !strstr(svg2, "dasharray"));
	TT_CHECK(!strstr(pair, "style=") && !strstr(pair, "EDR"));
	TT_CHECK_MSG(strstr(idx, "| 4x EDR | 4 |\n| 1x QDR | 2 |\n| 4x FDR | 1 |\n") &&
			     strstr(idx, "| cable types |") &&
			     strstr(idx, "| 4x EDR (2), 4x FDR (1) | 3 |"),
		     "%s", idx);
	free(md);
	free(sc);
	free(dot1);
	free(dot2);
	free(svg1);
	free(svg2);
	free(pair);
	free(idx);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	TT_CHECK(system(cmd) == 0);
	ibf_plan_free(p);
}

/* Racks whose names differ only in characters a file name cannot hold, and
 * rack pairs a-b + c and a + b-c: each sheet gets its own file (the second
 * one used to overwrite the first, whose cables were then on no sheet). */
static void test_sheets_name_clash(void)
{
	const char *csv = "a_rack,a_switch,a_port,b_rack,b_switch,b_port\n"
			  "row 1,s1,1,row 1,s2,1\n"
			  "row_1,s3,1,row_1,s4,1\n"
			  "a-b,s5,1,c,s6,1\n"
			  "a,s7,1,b-c,s8,1\n"
			  "R9,s9,1,R9,s10,1\n"
			  "r9,s11,1,r9,s12,1\n";
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_parse_csv(csv, strlen(csv), "clash.csv", &err);
	TT_REQUIRE(p);
	char dir[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(dir));
	int n = ibf_sheets_write(p, dir, &err);
	TT_EQ_INT(n, 10); /* 8 racks with switches, 2 rack pairs */
	/* racks R9 and r9 would be one file on a case-insensitive file system */
	const char *want[][2] = { { "rack-row_1.csv", "s1" },	 { "rack-row_1-2.csv", "s3" },
				  { "racks-a-b-c.csv", "s5" },	 { "racks-a-b-c-2.csv", "s7" },
				  { "rack-R9.csv", "s9" },	 { "rack-r9-2.csv", "s11" } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char path[256], buf[2048] = "";
		snprintf(path, sizeof(path), "%s/%s", dir, want[i][0]);
		FILE *fp = fopen(path, "r");
		size_t got = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
		buf[got] = '\0';
		if (fp)
			fclose(fp);
		char cell[16];
		snprintf(cell, sizeof(cell), ",%s,", want[i][1]);
		TT_CHECK_MSG(strstr(buf, cell), "%s lacks %s: '%s'", path, want[i][1], buf);
	}
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	TT_CHECK(system(cmd) == 0);
	ibf_plan_free(p);
}

/* A real rack named "norack" beside switches with no rack: two groups, each
 * with its own sheet (they were one group, "norack", whose sheet held the
 * cables of both and no rack-pair sheet the cable between them). */
static void test_sheets_norack(void)
{
	const char *csv = "a_rack,a_switch,a_port,b_rack,b_switch,b_port\n"
			  "norack,s1,1,norack,s2,1\n"
			  ",s3,1,,s4,1\n"
			  "norack,s1,2,,s3,2\n";
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_parse_csv(csv, strlen(csv), "norack.csv", &err);
	TT_REQUIRE(p);
	char dir[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(dir));
	/* rack norack, the rack-less switches, and the pair of the two */
	TT_EQ_INT(ibf_sheets_write(p, dir, &err), 3);
	char *real = slurp(dir, "rack-norack.csv");
	char *none = slurp(dir, "rack-no.rack.csv");
	char *pair = slurp(dir, "racks-norack-no.rack.csv");
	char *idx = slurp(dir, "index.md");
	TT_CHECK_MSG(real && strstr(real, ",s1,1,") && strstr(real, ",s2,1") && !strstr(real, ",s3,"),
		     "%s", real ? real : "(none)");
	TT_CHECK_MSG(none && strstr(none, ",s3,1,") && strstr(none, ",s4,1") && !strstr(none, ",s1,"),
		     "%s", none ? none : "(none)");
	TT_CHECK_MSG(pair && strstr(pair, "norack,s1,2,,s3,2"), "%s", pair ? pair : "(none)");
	TT_CHECK_MSG(idx && strstr(idx, "[Rack norack](rack-norack.md)") &&
			     strstr(idx, "[Switches without a rack](rack-no.rack.md)") &&
			     strstr(idx, "[Racks norack - (no rack)](racks-norack-no.rack.md)"),
		     "%s", idx ? idx : "(none)");
	/* the same sheets when the rack-less switches come first */
	const char *csv2 = "a_rack,a_switch,a_port,b_rack,b_switch,b_port\n"
			   ",s3,1,,s4,1\n"
			   "norack,s1,1,norack,s2,1\n";
	struct ibf_plan *p2 = ibf_plan_parse_csv(csv2, strlen(csv2), "norack2.csv", &err);
	char dir2[] = "/tmp/ibfab-sheets.XXXXXX";
	TT_REQUIRE(mkdtemp(dir2));
	TT_EQ_INT(p2 ? ibf_sheets_write(p2, dir2, &err) : -1, 2);
	char *real2 = slurp(dir2, "rack-norack.csv");
	TT_CHECK_MSG(real2 && strstr(real2, ",s1,1,") && !strstr(real2, ",s3,"), "%s",
		     real2 ? real2 : "(none)");
	free(real);
	free(none);
	free(pair);
	free(idx);
	free(real2);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, dir2);
	TT_CHECK(system(cmd) == 0);
	ibf_plan_free(p);
	ibf_plan_free(p2);
}

/* ------------------------------------------------------------ validator */

struct fx {
	struct ibf_plan *p;
	struct ibf_fabric *f;
};

static int fx_setup(struct fx *x)
{
	struct ibf_error err;
	x->p = sf_plan(5, 4, 16, 0); /* ports 12..16 free */
	x->f = x->p ? ibf_plan_to_fabric(x->p, &err) : NULL;
	return x->p && x->f;
}

static void fx_free(struct fx *x)
{
	ibf_fabric_free(x->f);
	ibf_plan_free(x->p);
}

static int node(const struct fx *x, const char *name)
{
	return ibf_fabric_find_desc(x->f, name);
}

static int run(struct fx *x, const struct ibf_validate_opts *o, struct ibf_vreport *r)
{
	struct ibf_error err;
	int rc = ibf_validate(x->p, x->f, o, r, &err);
	if (rc)
		printf("# validate: %s\n", err.msg);
	return rc;
}

static void test_validate_clean(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_EQ_INT(r.n, 0);
	TT_EQ_INT(r.ok, x.p->ncables);
	TT_EQ_INT(r.matched_by[IBF_MATCH_DESC], 250);
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* a is switch node, port pa; returns its peer */
static void peer(const struct fx *x, int a, int pa, int *b, int *pb)
{
	const struct ibf_port *pp = ibf_port(x->f, a, pa);
	*b = pp->peer_node;
	*pb = pp->peer_port;
}

/* exchange the far ends of the cables at (a, pa) and (c, pc) */
static void swap_far_ends(struct fx *x, int a, int pa, int c, int pc)
{
	int b1, p1, b2, p2;
	peer(x, a, pa, &b1, &p1);
	peer(x, c, pc, &b2, &p2);
	ibf_fabric_disconnect(x->f, a, pa);
	ibf_fabric_disconnect(x->f, c, pc);
	ibf_fabric_connect(x->f, a, pa, b2, p2, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(x->f, c, pc, b1, p1, 4, IBF_SPEED_EDR, NULL);
}

static void test_validate_missing_extra(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r01-g0-s02"), b, pb;
	peer(&x, a, 3, &b, &pb);
	ibf_fabric_disconnect(x.f, a, 3);
	int c = node(&x, "sf-r02-g1-s04"), d = node(&x, "sf-r04-g0-s00");
	ibf_fabric_connect(x.f, c, 14, d, 15, 4, IBF_SPEED_EDR, NULL);
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_EXTRA), 1);
	const struct ibf_finding *f = first_of(&r, IBF_FIND_MISSING);
	char want[200], want2[200];
	snprintf(want, sizeof(want), "connect sf-r01-g0-s02 port 3 to %s port %d",
		 x.f->nodes[b].desc, pb);
	snprintf(want2, sizeof(want2), "connect %s port %d to sf-r01-g0-s02 port 3",
		 x.f->nodes[b].desc, pb);
	TT_CHECK_MSG(f && (strstr(f->fix, want) || strstr(f->fix, want2)), "%s", f ? f->fix : "");
	f = first_of(&r, IBF_FIND_EXTRA);
	TT_CHECK_MSG(f && !strcmp(f->fix, "unplug the cable between sf-r02-g1-s04 port 14 and "
					  "sf-r04-g0-s00 port 15"),
		     "%s", f ? f->fix : "");
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* Rotate cables: the cable planned at end j (n[j], p[j]) is plugged into
 * end j+1 (the last one into end 0); the far ends stay. */
static void rotate(struct fx *x, int k, const int *n, const int *p)
{
	int fn[8], fp[8];
	for (int j = 0; j < k; j++) {
		peer(x, n[j], p[j], &fn[j], &fp[j]);
		ibf_fabric_disconnect(x->f, n[j], p[j]);
	}
	for (int j = 0; j < k; j++)
		ibf_fabric_connect(x->f, n[(j + 1) % k], p[(j + 1) % k], fn[j], fp[j], 4,
				   IBF_SPEED_EDR, NULL);
}

/* "NAME port N" or, on one switch, "port N" of sw; returns chars read */
static int parse_end(const struct fx *x, const char *s, int sw, int *n, int *p)
{
	char name[128];
	int used = 0;
	if (sscanf(s, "port %d%n", p, &used) == 1) {
		*n = sw;
		return used;
	}
	if (sscanf(s, "%127s port %d%n", name, p, &used) == 2) {
		*n = node(x, name);
		return *n >= 0 ? used : 0;
	}
	return 0;
}

/* Do what a rotated finding's fix says, plug by plug: unplug the cable at
 * the first port, move each listed one, plug the first into the last port. */
static int apply_rotation_fix(struct fx *x, const char *fix)
{
	int sw = -1, n, p, n2, p2, hn, hp;
	const char *s = strstr(fix, "among the ports of ");
	if (s) {
		char name[128];
		if (sscanf(s + 19, "%127[^:]", name) != 1)
			return 0;
		sw = node(x, name);
	}
	s = strstr(fix, "; unplug the cable at ");
	if (!s)
		return 0;
	s += 22;
	int u = parse_end(x, s, sw, &n, &p);
	if (!u)
		return 0;
	peer(x, n, p, &hn, &hp);
	ibf_fabric_disconnect(x->f, n, p);
	s += u;
	for (;;) {
		const char *m = strstr(s, " the one at ");
		if (!m)
			break;
		m += 12;
		u = parse_end(x, m, sw, &n, &p);
		if (!u || strncmp(m + u, " to ", 4))
			return 0;
		m += u + 4;
		int u2 = parse_end(x, m, sw, &n2, &p2);
		if (!u2)
			return 0;
		int fn, fp;
		peer(x, n, p, &fn, &fp);
		ibf_fabric_disconnect(x->f, n, p);
		ibf_fabric_connect(x->f, n2, p2, fn, fp, 4, IBF_SPEED_EDR, NULL);
		s = m + u2;
	}
	s = strstr(s, "plug the unplugged cable into ");
	if (!s || !parse_end(x, s + 30, sw, &n, &p))
		return 0;
	ibf_fabric_connect(x->f, n, p, hn, hp, 4, IBF_SPEED_EDR, NULL);
	return 1;
}

/* Cables rotated among ports (each plugged where the next belongs), on one
 * switch and across two, 3 and 4 of them: one rotated finding each (they
 * were one wrong-port or miswired finding per cable, each saying "move that
 * one first"), naming the cycle; doing what it says, in its order, leaves a
 * clean fabric.  A rotation beside a missing cable is still one finding; a
 * rotation one of whose cables is missing is no cycle but a chain of moves,
 * reported as before. */
static void test_validate_rotated(void)
{
	static const struct {
		int k;
		const char *sw[4];
		int port[4];
		int unplug; /* also unplug this switch port 14 cable (-1: none) */
	} cases[] = {
		{ 3, { "sf-r00-g0-s00", "sf-r00-g0-s00", "sf-r00-g0-s00" }, { 1, 2, 3 }, -1 },
		{ 4, { "sf-r00-g0-s00", "sf-r00-g0-s00", "sf-r00-g0-s00", "sf-r00-g0-s00" },
		  { 2, 5, 1, 8 }, -1 },
		{ 3, { "sf-r00-g0-s00", "sf-r01-g1-s02", "sf-r00-g0-s00" }, { 3, 4, 9 }, -1 },
		{ 4, { "sf-r02-g0-s01", "sf-r02-g0-s03", "sf-r02-g0-s01", "sf-r02-g0-s03" },
		  { 1, 6, 8, 2 }, -1 },
		{ 3, { "sf-r00-g0-s00", "sf-r00-g0-s00", "sf-r00-g0-s00" }, { 1, 2, 3 }, 1 },
	};
	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		struct fx x;
		TT_REQUIRE(fx_setup(&x));
		int n[4], k = cases[t].k;
		for (int j = 0; j < k; j++)
			n[j] = node(&x, cases[t].sw[j]);
		rotate(&x, k, n, cases[t].port);
		int bn = -1, bp = 0;
		if (cases[t].unplug >= 0) { /* a missing cable elsewhere */
			int a = node(&x, "sf-r03-g1-s02");
			peer(&x, a, 2, &bn, &bp);
			ibf_fabric_disconnect(x.f, a, 2);
		}
		struct ibf_vreport r;
		TT_REQUIRE(run(&x, NULL, &r) == 0);
		dump_report(&r);
		TT_EQ_INT(count_kind(&r, IBF_FIND_ROTATED), 1);
		TT_EQ_INT(r.n, cases[t].unplug >= 0 ? 2 : 1);
		TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), cases[t].unplug >= 0);
		const struct ibf_finding *f = first_of(&r, IBF_FIND_ROTATED);
		TT_REQUIRE(f);
		TT_EQ_INT(f->nmore, (uint32_t)(k - 2));
		char want[32];
		snprintf(want, sizeof(want), "%d cables rotated among ", k);
		TT_CHECK_MSG(strstr(f->fix, want) == f->fix, "%s", f->fix);
		/* the cables in the cycle's order start at the lowest number */
		for (uint32_t j = 0; j < f->nmore; j++)
			TT_CHECK(f->more[j] > f->id[0]);
		TT_CHECK(f->id[1] > f->id[0]);
		TT_CHECK_MSG(apply_rotation_fix(&x, f->fix), "cannot follow: %s", f->fix);
		ibf_vreport_free(&r);
		TT_REQUIRE(run(&x, NULL, &r) == 0);
		dump_report(&r);
		TT_EQ_INT(r.n, cases[t].unplug >= 0 ? 1 : 0);
		ibf_vreport_free(&r);
		fx_free(&x);
	}
	/* one switch, exact text: planned port 1, 2, 3 cables now in 2, 3, 1 */
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int s0 = node(&x, "sf-r00-g0-s00"), n3[3] = { s0, s0, s0 }, p3[3] = { 1, 2, 3 };
	rotate(&x, 3, n3, p3);
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_REQUIRE(r.n == 1);
	TT_CHECK_MSG(!strcmp(r.f[0].fix,
			     "3 cables rotated among the ports of sf-r00-g0-s00: the cable for "
			     "port 1 is in port 2, the one for port 2 in port 3, the one for port "
			     "3 in port 1; unplug the cable at port 1, move the one at port 2 to "
			     "port 1, then the one at port 3 to port 2, and plug the unplugged "
			     "cable into port 3"),
		     "%s", r.f[0].fix);
	ibf_vreport_free(&r);
	fx_free(&x);
	/* a rotation with one of its cables missing: a chain of moves, each
	 * target freed by the one before (as before: wrong-port and missing) */
	TT_REQUIRE(fx_setup(&x));
	s0 = node(&x, "sf-r00-g0-s00");
	rotate(&x, 3, n3, p3);
	ibf_fabric_disconnect(x.f, s0, 1); /* the cable planned at port 3 */
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(count_kind(&r, IBF_FIND_ROTATED), 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_WRONG_PORT), 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 1);
	ibf_vreport_free(&r);
	fx_free(&x);
}

static void test_validate_swapped(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	/* two cables swapped on one switch: ports 6 and 9 of sf-r03-g1-s02 */
	int a = node(&x, "sf-r03-g1-s02");
	swap_far_ends(&x, a, 6, a, 9);
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_SWAPPED), 1);
	const struct ibf_finding *f = first_of(&r, IBF_FIND_SWAPPED);
	TT_CHECK_MSG(f && strstr(f->fix, "swap the two cables at sf-r03-g1-s02 port ") &&
			     strstr(f->fix, "port 6") && strstr(f->fix, "port 9"),
		     "%s", f ? f->fix : "");
	ibf_vreport_free(&r);
	/* swap far ends between two different switches: A1-B, C1-D -> A1-D, C1-B */
	fx_free(&x);
	TT_REQUIRE(fx_setup(&x));
	int A = node(&x, "sf-r00-g0-s01"), C = node(&x, "sf-r02-g0-s03");
	swap_far_ends(&x, A, 9, C, 10);
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_SWAPPED), 1);
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* The report does not depend on the order in which the fabric lists its
 * nodes (ibnetdiscover's walk, live discovery): a swap between two
 * switches, one within a switch, a wrong port, a miswire and an extra
 * cable give the same findings, word for word, on the fabric and on the
 * same fabric listed backwards (it used not to: the 'found' text of the
 * swaps and of the miswire, and the extra cable's fix, named the ends in
 * the order the file listed them, and a swap's fix named its two ports in
 * either order). */
static void test_validate_node_order(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	swap_far_ends(&x, node(&x, "sf-r00-g0-s01"), 9, node(&x, "sf-r02-g0-s03"), 10);
	int a = node(&x, "sf-r03-g1-s02");
	swap_far_ends(&x, a, 6, a, 9);
	int b, pb, c = node(&x, "sf-r01-g0-s02"), d = node(&x, "sf-r04-g1-s03");
	peer(&x, c, 3, &b, &pb);
	ibf_fabric_disconnect(x.f, c, 3);
	TT_REQUIRE(ibf_fabric_connect(x.f, c, 3, b, 13, 4, IBF_SPEED_EDR, NULL) == 0);
	ibf_fabric_disconnect(x.f, d, 4);
	TT_REQUIRE(ibf_fabric_connect(x.f, d, 4, node(&x, "sf-r02-g1-s04"), 14, 4, IBF_SPEED_EDR,
				      NULL) == 0);
	TT_REQUIRE(ibf_fabric_connect(x.f, node(&x, "sf-r00-g1-s00"), 15, node(&x, "sf-r03-g0-s04"),
				      15, 4, IBF_SPEED_EDR, NULL) == 0);
	struct ibf_fabric *g = tt_fabric_reversed(x.f);
	TT_REQUIRE(g);
	struct ibf_vreport r1, r2;
	struct ibf_error err;
	TT_REQUIRE(run(&x, NULL, &r1) == 0);
	TT_REQUIRE(ibf_validate(x.p, g, NULL, &r2, &err) == 0);
	dump_report(&r1);
	TT_EQ_INT(r1.n, 5);
	TT_EQ_INT(count_kind(&r1, IBF_FIND_SWAPPED), 2);
	TT_EQ_INT(r2.n, r1.n);
	for (uint32_t i = 0; i < r1.n && i < r2.n; i++) {
		const struct ibf_finding *f1 = &r1.f[i], *f2 = &r2.f[i];
		TT_CHECK_MSG(f1->kind == f2->kind && !strcmp(f1->fix, f2->fix) &&
				     !strcmp(f1->expected, f2->expected) &&
				     !strcmp(f1->actual, f2->actual),
			     "finding %u: '%s' / '%s' against '%s' / '%s'", i, f1->fix, f1->actual,
			     f2->fix, f2->actual);
	}
	ibf_vreport_free(&r1);
	ibf_vreport_free(&r2);
	ibf_fabric_free(g);
	fx_free(&x);
}

static void test_validate_wrong_port_miswired(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	/* wrong port: the far end moves to free port 13 of the same switch */
	int a = node(&x, "sf-r01-g1-s01"), b, pb;
	peer(&x, a, 2, &b, &pb);
	ibf_fabric_disconnect(x.f, a, 2);
	ibf_fabric_connect(x.f, a, 2, b, 13, 4, IBF_SPEED_EDR, NULL);
	/* miswired: sf-r00-g0-s00 port 5's far end moves to free port 12 of another switch */
	int m = node(&x, "sf-r00-g0-s00"), mb, mpb;
	peer(&x, m, 5, &mb, &mpb);
	int other = node(&x, "sf-r04-g1-s04");
	ibf_fabric_disconnect(x.f, m, 5);
	ibf_fabric_connect(x.f, m, 5, other, 12, 4, IBF_SPEED_EDR, NULL);
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_WRONG_PORT), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISWIRED), 1);
	char want[300];
	const struct ibf_finding *f = first_of(&r, IBF_FIND_WRONG_PORT);
	snprintf(want, sizeof(want),
		 "move the cable at sf-r01-g1-s01 port 2 from %s port 13 to %s port %d",
		 x.f->nodes[b].desc, x.f->nodes[b].desc, pb);
	TT_CHECK_MSG(f && !strcmp(f->fix, want), "%s != %s", f ? f->fix : "", want);
	f = first_of(&r, IBF_FIND_MISWIRED);
	snprintf(want, sizeof(want),
		 "move the cable at sf-r00-g0-s00 port 5 from sf-r04-g1-s04 port 12 to %s port %d",
		 x.f->nodes[mb].desc, mpb);
	TT_CHECK_MSG(f && !strcmp(f->fix, want), "%s != %s", f ? f->fix : "", want);
	ibf_vreport_free(&r);
	fx_free(&x);
	/* miswired onto a used port: the displaced cable is reported too */
	TT_REQUIRE(fx_setup(&x));
	int s = node(&x, "sf-r02-g0-s02"), t, tp, u, up;
	peer(&x, s, 6, &t, &tp); /* s:6 -- t:tp (planned) */
	int v2 = node(&x, "sf-r03-g0-s01");
	peer(&x, v2, 1, &u, &up); /* v2:1 -- u:up (planned) */
	ibf_fabric_disconnect(x.f, s, 6);
	ibf_fabric_disconnect(x.f, v2, 1);
	ibf_fabric_connect(x.f, s, 6, v2, 1, 4, IBF_SPEED_EDR, NULL); /* s:6 -- v2:1 */
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	/* one move + the cables that are now absent */
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISWIRED), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 1);
	TT_EQ_INT(r.n, 2);
	ibf_vreport_free(&r);
	fx_free(&x);
}

static void test_validate_degraded_nodes(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r04-g1-s03");
	ibf_port(x.f, a, 5)->width = 1;
	const struct ibf_port *pp = ibf_port(x.f, a, 5);
	ibf_port(x.f, pp->peer_node, pp->peer_port)->width = 1;
	/* unknown switch on free ports */
	struct ibf_error err;
	int u = ibf_fabric_add_node(x.f, IBF_NODE_SWITCH, 8, 0x1234, "mystery switch", NULL, &err);
	TT_REQUIRE(u >= 0);
	ibf_fabric_connect(x.f, u, 1, node(&x, "sf-r00-g0-s00"), 16, 4, IBF_SPEED_EDR, NULL);
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_DEGRADED), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_UNKNOWN_NODE), 1);
	const struct ibf_finding *f = first_of(&r, IBF_FIND_DEGRADED);
	TT_CHECK_MSG(f && strstr(f->fix, "runs at 1xEDR, the plan says 4xEDR"), "%s",
		     f ? f->fix : "");
	ibf_vreport_free(&r);
	/* missing node: a plan switch that is not there */
	struct ibf_plan *p2 = ibf_plan_new();
	/* copy the plan through CSV and add a switch cabled to free ports */
	size_t len;
	char *csv = plan_csv(x.p, &len);
	csv = realloc(csv, len + 200);
	len += (size_t)sprintf(csv + len, "9999,3,inter-rack,r00,sf-r00-g0-s00,14,r09,"
					  "sf-r09-g0-s00,1,4x,EDR,16,16\n");
	ibf_plan_free(p2);
	p2 = ibf_plan_parse_csv(csv, len, "p2.csv", &err);
	free(csv);
	TT_REQUIRE(p2);
	ibf_vreport_free(&r);
	TT_REQUIRE(ibf_validate(p2, x.f, NULL, &r, &err) == 0);
	dump_report(&r);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING_NODE), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 0); /* folded into the node */
	ibf_vreport_free(&r);
	ibf_plan_free(p2);
	fx_free(&x);
}

/* A cable below the plan's rate is a cable fault (degraded) unless both of
 * its ports are known to support no more than it runs at (live discovery,
 * iblinkinfo hints): an older switch or adapter, reported as port-limited.
 * A shortfall beyond what the ports support stays degraded. */
static void test_validate_port_limited(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r04-g1-s03"), c = node(&x, "sf-r01-g0-s02");
	struct ibf_port *pa = ibf_port(x.f, a, 5);
	struct ibf_port *pb = ibf_port(x.f, pa->peer_node, pa->peer_port);
	struct ibf_port *pc = ibf_port(x.f, c, 6);
	struct ibf_port *pd = ibf_port(x.f, pc->peer_node, pc->peer_port);
	/* an FDR switch port: the link runs 4xFDR, which is all it supports */
	pa->speed = pb->speed = IBF_SPEED_FDR;
	pa->width_sup = pb->width_sup = 4;
	pa->speed_sup = IBF_SPEED_FDR;
	pb->speed_sup = IBF_SPEED_EDR;
	/* EDR ports on both ends, trained at 4xFDR: the cable */
	pc->speed = pd->speed = IBF_SPEED_FDR;
	pc->width_sup = pd->width_sup = 4;
	pc->speed_sup = pd->speed_sup = IBF_SPEED_EDR;
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_PORT_LIMITED), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_DEGRADED), 1);
	const struct ibf_finding *f = first_of(&r, IBF_FIND_PORT_LIMITED);
	TT_CHECK_MSG(f && strstr(f->fix, "sf-r04-g1-s03 port 5") &&
			     strstr(f->fix, "runs at 4xFDR, the most its two ports support; the "
					    "plan says 4xEDR") &&
			     strstr(f->fix, "not at fault"),
		     "%s", f ? f->fix : "");
	f = first_of(&r, IBF_FIND_DEGRADED);
	TT_CHECK_MSG(f && strstr(f->fix, "sf-r01-g0-s02 port 6") &&
			     strstr(f->fix, "reseat or replace"),
		     "%s", f ? f->fix : "");
	TT_CHECK(!strcmp(ibf_finding_kind_name(IBF_FIND_PORT_LIMITED), "port-limited"));
	ibf_vreport_free(&r);
	/* the FDR port's link also trained at 1x: the width is the cable's fault */
	pa->width = pb->width = 1;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_PORT_LIMITED), 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_DEGRADED), 2);
	ibf_vreport_free(&r);
	/* supported values of one end only say nothing: degraded as before */
	pa->width = pb->width = 4;
	pb->speed_sup = 0;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_PORT_LIMITED), 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_DEGRADED), 2);
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* Two neighbouring switches missing: each finding counts all of its planned
 * cables, also the one between them (it was 0 or 10 for the second). */
static void test_validate_two_missing_nodes(void)
{
	struct ibf_plan *p = sf_plan(5, 4, 16, 0);
	TT_REQUIRE(p);
	size_t len;
	char *csv = plan_csv(p, &len);
	TT_REQUIRE(csv);
	/* the fabric: the plan without sf-r00-g0-s00, sf-r00-g0-s01 and their hosts */
	char *w = csv;
	for (char *l = csv, *e; *l; l = e) {
		e = strchr(l, '\n');
		e = e ? e + 1 : l + strlen(l);
		char save = *e;
		*e = '\0';
		int keep = !strstr(l, ",sf-r00-g0-s00") && !strstr(l, ",sf-r00-g0-s01");
		*e = save;
		if (keep) {
			memmove(w, l, (size_t)(e - l));
			w += e - l;
		}
	}
	struct ibf_error err;
	struct ibf_plan *fp = ibf_plan_parse_csv(csv, (size_t)(w - csv), "f.csv", &err);
	free(csv);
	TT_REQUIRE(fp);
	struct ibf_fabric *f = ibf_plan_to_fabric(fp, &err);
	TT_REQUIRE(f);
	struct ibf_vreport r;
	TT_REQUIRE(ibf_validate(p, f, NULL, &r, &err) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING_NODE), 2);
	for (uint32_t i = 0; i < r.n; i++)
		TT_CHECK_MSG(strstr(r.f[i].expected, "with 11 planned cables"), "%s",
			     r.f[i].expected);
	ibf_vreport_free(&r);
	ibf_fabric_free(f);
	ibf_plan_free(fp);
	ibf_plan_free(p);
}

static void test_validate_matching(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	/* node-name-map: descriptions useless, names from the map */
	char path[] = "/tmp/ibfab-nnm.XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	close(fd);
	struct ibf_error err;
	TT_REQUIRE(ibf_namemap_write_fabric(x.f, path, &err) == 0);
	struct ibf_namemap nm = { 0 };
	TT_REQUIRE(ibf_namemap_read(&nm, path, &err) == 0);
	unlink(path);
	for (uint32_t i = 0; i < x.f->nnodes; i++) {
		free(x.f->nodes[i].desc);
		x.f->nodes[i].desc =
			strdup(x.f->nodes[i].type == IBF_NODE_SWITCH ? "MF0;switch" : "node HCA-1");
	}
	struct ibf_vreport r;
	struct ibf_validate_opts o = { .namemap = &nm };
	TT_REQUIRE(run(&x, &o, &r) == 0);
	TT_EQ_INT(r.n, 0);
	TT_EQ_INT(r.matched_by[IBF_MATCH_NAMEMAP], 250);
	ibf_vreport_free(&r);
	/* nothing names them: all unknown without an anchor */
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_UNKNOWN_NODE), 50);
	ibf_vreport_free(&r);
	/* structure from one anchor (plus a swap and a wrong port to cope with) */
	int a = ibf_fabric_find_guid(x.f, ibf_gen_guid(IBF_NODE_SWITCH, 17, 0));
	swap_far_ends(&x, a, 1, a, 2);
	o.namemap = NULL;
	o.anchor_name = "sf-r00-g0-s00";
	o.anchor_guid = ibf_gen_guid(IBF_NODE_SWITCH, 0, 0);
	TT_REQUIRE(run(&x, &o, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.matched_by[IBF_MATCH_STRUCTURE], 50);
	TT_EQ_INT(r.matched_by[IBF_MATCH_POSITION], 200);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_SWAPPED), 1);
	ibf_vreport_free(&r);
	/* bad anchors are errors */
	o.anchor_name = "no-such-switch";
	TT_CHECK(ibf_validate(x.p, x.f, &o, &r, &err) == IBF_EINVAL);
	o.anchor_name = "sf-r00-g0-s00";
	o.anchor_guid = 0x42;
	TT_CHECK(ibf_validate(x.p, x.f, &o, &r, &err) == IBF_EINVAL);
	ibf_namemap_free(&nm);
	fx_free(&x);
}

static void test_validate_partial(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	/* steps 1 and 2 cabled, 3 and 4 not yet */
	int removed = 0;
	for (uint32_t c = 0; c < x.p->ncables; c++)
		if (x.p->cables[c].step >= 3) {
			int a = node(&x, x.p->nodes[x.p->cables[c].a].name);
			ibf_fabric_disconnect(x.f, a, x.p->cables[c].ap);
			removed++;
		}
	/* hosts are not cabled, so they are not discovered: drop their names */
	struct ibf_vreport r;
	struct ibf_validate_opts o = { .partial = 1 };
	TT_REQUIRE(run(&x, &o, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 0);
	TT_EQ_INT(r.partial_step, 2);
	TT_EQ_INT(r.expected_missing, removed);
	ibf_vreport_free(&r);
	/* without --partial they are all missing */
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), removed);
	ibf_vreport_free(&r);
	/* a wrong cable of step 1 and a missing step-2 cable are still reported */
	int a = node(&x, "sf-r02-g0-s01"), b, pb;
	peer(&x, a, 1, &b, &pb);
	ibf_fabric_disconnect(x.f, a, 1);
	ibf_fabric_connect(x.f, a, 1, b, 14, 4, IBF_SPEED_EDR, NULL);
	int c2 = node(&x, "sf-r03-g1-s00");
	for (int port = 1; port <= 7; port++) {
		int k = ibf_plan_cable_at(x.p, (uint32_t)ibf_plan_find(x.p, "sf-r03-g1-s00"), port);
		if (k >= 0 && x.p->cables[k].step == 2) {
			ibf_fabric_disconnect(x.f, c2, port);
			break;
		}
	}
	TT_REQUIRE(run(&x, &o, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_WRONG_PORT), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 1);
	ibf_vreport_free(&r);
	/* explicit step 1: the missing step-2 cable is expected */
	o.step = 1;
	TT_REQUIRE(run(&x, &o, &r) == 0);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_WRONG_PORT), 1);
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* the e2e fault set at once: swap, wrong port, missing, extra, 1x */
static void test_validate_all_faults(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r01-g0-s00");
	swap_far_ends(&x, a, 6, a, 7);
	int w = node(&x, "sf-r02-g1-s03"), wb, wp;
	peer(&x, w, 1, &wb, &wp);
	ibf_fabric_disconnect(x.f, w, 1);
	ibf_fabric_connect(x.f, w, 12, wb, wp, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_disconnect(x.f, node(&x, "sf-r03-g0-s04"), 7);
	ibf_fabric_connect(x.f, node(&x, "sf-r04-g0-s00"), 15, node(&x, "sf-r00-g1-s02"), 15, 4,
			   IBF_SPEED_EDR, NULL);
	int d = node(&x, "sf-r00-g0-s03");
	ibf_port(x.f, d, 4)->width = 1;
	ibf_port(x.f, ibf_port(x.f, d, 4)->peer_node, ibf_port(x.f, d, 4)->peer_port)->width = 1;
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 5);
	TT_EQ_INT(count_kind(&r, IBF_FIND_SWAPPED), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_WRONG_PORT), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_EXTRA), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_DEGRADED), 1);
	const struct ibf_finding *f = first_of(&r, IBF_FIND_WRONG_PORT);
	TT_CHECK_MSG(f && strstr(f->fix, "from sf-r02-g1-s03 port 12 to sf-r02-g1-s03 port 1"),
		     "%s", f ? f->fix : "");
	ibf_vreport_free(&r);
	fx_free(&x);
}

static void test_validate_q29_speed(void)
{
	struct ibf_plan *p = sf_plan(29, -1, 0, 0);
	TT_REQUIRE(p);
	struct ibf_error err;
	struct ibf_fabric *f = ibf_plan_to_fabric(p, &err);
	TT_REQUIRE(f);
	uint32_t sw = 0;
	for (uint32_t c = 0; c < p->ncables; c++)
		sw += p->cables[c].kind != IBF_CABLE_HOST;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct ibf_vreport r;
	TT_REQUIRE(ibf_validate(p, f, NULL, &r, &err) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TT_EQ_INT(r.n, 0);
	TT_EQ_INT(r.ok, p->ncables);
	printf("# q=29: %u switch cables, %u cables in all, validated in %.3f s\n", sw, p->ncables,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ibf_vreport_free(&r);
	ibf_fabric_free(f);
	ibf_plan_free(p);
}

/* Adapters of ConnectX-4 and later show as one single-port device per port
 * ("gpu01 mlx5_0", "gpu01 mlx5_1") while a plan names the host once with
 * several ports.  A correctly cabled fabric is clean (the second device
 * was "miswired" to its own host), and two devices of different hosts
 * exchanged on a rail switch are one swap (the device was taken for the
 * other host by position and its cable reported correct). */
static void test_validate_single_port_devices(void)
{
	const char *csv = "cable,kind,a_switch,a_port,b_switch,b_port\n"
			  "1,host,rail0,1,gpu01,1\n"
			  "2,host,rail1,1,gpu01,2\n"
			  "3,host,rail0,2,gpu02,1\n"
			  "4,host,rail1,2,gpu02,2\n";
	struct ibf_error err;
	struct ibf_plan *p = ibf_plan_parse_csv(csv, strlen(csv), "gpu.csv", &err);
	TT_REQUIRE(p);
	for (int swap = 0; swap < 2; swap++) {
		struct ibf_fabric *f = ibf_fabric_new();
		int r0 = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x100, "rail0", NULL, NULL);
		int r1 = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x200, "rail1", NULL, NULL);
		/* the mlx5_1 devices first, so they are met before their hosts are named */
		static const char *const names[] = { "gpu01 mlx5_1", "gpu02 mlx5_1", "gpu01 mlx5_0",
						     "gpu02 mlx5_0" };
		for (int i = 0; i < 4; i++) {
			int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x1000 + (uint64_t)i,
						    names[i], NULL, NULL);
			int rail = i < 2 ? r1 : r0, port = 1 + i % 2;
			if (swap && i < 2)
				port = 2 - i; /* gpu01 mlx5_1 and gpu02 mlx5_1 exchanged */
			ibf_fabric_connect(f, rail, port, h, 1, 4, IBF_SPEED_NDR, NULL);
		}
		TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
		struct ibf_vreport r;
		TT_REQUIRE(ibf_validate(p, f, NULL, &r, &err) == 0);
		dump_report(&r);
		if (!swap) {
			TT_EQ_INT(r.n, 0);
			TT_EQ_INT(r.ok, 4);
		} else {
			TT_EQ_INT(r.n, 1);
			TT_EQ_INT(count_kind(&r, IBF_FIND_SWAPPED), 1);
			const struct ibf_finding *x = first_of(&r, IBF_FIND_SWAPPED);
			TT_CHECK_MSG(x && strstr(x->fix, "rail1 port 1") &&
					     strstr(x->fix, "rail1 port 2"),
				     "%s", x ? x->fix : "");
			TT_EQ_INT(r.ok, 2);
		}
		ibf_vreport_free(&r);
		ibf_fabric_free(f);
	}
	ibf_plan_free(p);
}

static void set_desc(struct fx *x, int n, const char *d)
{
	free(x->f->nodes[n].desc);
	x->f->nodes[n].desc = strdup(d);
}

static const struct ibf_finding *renamed_for(const struct ibf_vreport *r, const char *name)
{
	char want[160];
	snprintf(want, sizeof(want), "switch %s (rack", name);
	for (uint32_t i = 0; i < r->n; i++)
		if (r->f[i].kind == IBF_FIND_RENAMED && strstr(r->f[i].expected, want))
			return &r->f[i];
	return NULL;
}

/* One switch of a well-named fabric carries another description (factory
 * default after an RMA, a typo): without an anchor it is placed by its
 * named neighbours and reported once, its cables and hosts correct (on
 * main: an unknown-node, a missing-node and nothing else correct there). */
static void test_validate_renamed(void)
{
	static const char *const descs[] = { "MF0;sw-r03-1:MQM8700/U1",
					     "Quantum Mellanox Technologies", "sf-r03-g1-s2" };
	for (int k = 0; k < 3; k++) {
		struct fx x;
		TT_REQUIRE(fx_setup(&x));
		int a = node(&x, "sf-r03-g1-s02");
		uint64_t guid = x.f->nodes[a].guid;
		set_desc(&x, a, descs[k]);
		struct ibf_vreport r;
		TT_REQUIRE(run(&x, NULL, &r) == 0);
		dump_report(&r);
		TT_EQ_INT(r.n, 1);
		TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 1);
		TT_EQ_INT(r.ok, x.p->ncables);
		TT_EQ_INT(r.matched_by[IBF_MATCH_RENAMED], 1);
		const struct ibf_finding *f = renamed_for(&r, "sf-r03-g1-s02");
		char want[200];
		snprintf(want, sizeof(want), "rename switch 0x%016llx ('%s') to sf-r03-g1-s02",
			 (unsigned long long)guid, descs[k]);
		TT_CHECK_MSG(f && strstr(f->fix, want), "%s", f ? f->fix : "");
		TT_CHECK_MSG(f && strstr(f->actual, "every one of its 11 cables matches"), "%s",
			     f ? f->actual : "");
		ibf_vreport_free(&r);
		fx_free(&x);
	}
	/* its hosts unnamed too: placed by position behind it */
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r03-g1-s02");
	for (int q = 8; q <= 11; q++)
		set_desc(&x, ibf_port(x.f, a, q)->peer_node, "node HCA-1");
	set_desc(&x, a, "MF0;switch");
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 1);
	TT_EQ_INT(r.matched_by[IBF_MATCH_POSITION], 4);
	TT_EQ_INT(r.ok, x.p->ncables);
	ibf_vreport_free(&r);
	/* the same with a node-name-map that lacks it; and one that names it wrongly */
	char path[] = "/tmp/ibfab-nnm.XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	uint64_t guid = x.f->nodes[a].guid;
	dprintf(fd, "0x%016llx \"sf-r9\"\n", (unsigned long long)guid);
	close(fd);
	struct ibf_error err;
	struct ibf_namemap nm = { 0 };
	TT_REQUIRE(ibf_namemap_read(&nm, path, &err) == 0);
	unlink(path);
	struct ibf_validate_opts o = { .namemap = &nm };
	TT_REQUIRE(run(&x, &o, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 1);
	const struct ibf_finding *f = renamed_for(&r, "sf-r03-g1-s02");
	TT_CHECK_MSG(f && strstr(f->fix, "node-name-map entry says 'sf-r9'"), "%s",
		     f ? f->fix : "");
	ibf_vreport_free(&r);
	ibf_namemap_free(&nm);
	fx_free(&x);
}

/* a renamed switch with one miswired cable, or one cable lost: the rename
 * plus that cable */
static void test_validate_renamed_faults(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r03-g1-s02"), b, pb;
	peer(&x, a, 4, &b, &pb);
	int other = node(&x, "sf-r04-g1-s04");
	ibf_fabric_disconnect(x.f, a, 4);
	ibf_fabric_connect(x.f, a, 4, other, 12, 4, IBF_SPEED_EDR, NULL);
	set_desc(&x, a, "MF0;switch");
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISWIRED), 1);
	const struct ibf_finding *f = first_of(&r, IBF_FIND_MISWIRED);
	char want[300];
	snprintf(want, sizeof(want),
		 "move the cable at sf-r03-g1-s02 port 4 from sf-r04-g1-s04 port 12 to %s port %d",
		 x.f->nodes[b].desc, pb);
	TT_CHECK_MSG(f && !strcmp(f->fix, want), "%s != %s", f ? f->fix : "", want);
	f = renamed_for(&r, "sf-r03-g1-s02");
	TT_CHECK_MSG(f && strstr(f->actual, "10 of its 11 cables match"), "%s", f ? f->actual : "");
	TT_EQ_INT(r.ok, x.p->ncables - 1);
	ibf_vreport_free(&r);
	fx_free(&x);
	/* lost a cable */
	TT_REQUIRE(fx_setup(&x));
	a = node(&x, "sf-r03-g1-s02");
	ibf_fabric_disconnect(x.f, a, 6);
	set_desc(&x, a, "MF0;switch");
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 2);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING), 1);
	f = first_of(&r, IBF_FIND_MISSING);
	TT_CHECK_MSG(f && strstr(f->fix, "sf-r03-g1-s02 port 6"), "%s", f ? f->fix : "");
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* two switches with exchanged descriptions, neighbours or not: each stands
 * where the other's name is planned (on main: their cables as miswires) */
static void test_validate_swapped_names(void)
{
	static const char *const pairs[][2] = { { "sf-r03-g1-s02", "sf-r03-g1-s04" },
						{ "sf-r00-g0-s01", "sf-r02-g1-s03" } };
	for (int k = 0; k < 2; k++) {
		struct fx x;
		TT_REQUIRE(fx_setup(&x));
		int a = node(&x, pairs[k][0]), b = node(&x, pairs[k][1]);
		set_desc(&x, a, pairs[k][1]);
		set_desc(&x, b, pairs[k][0]);
		struct ibf_vreport r;
		TT_REQUIRE(run(&x, NULL, &r) == 0);
		dump_report(&r);
		TT_EQ_INT(r.n, 2);
		TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 2);
		TT_EQ_INT(r.ok, x.p->ncables);
		const struct ibf_finding *f = renamed_for(&r, pairs[k][0]);
		char want[200];
		snprintf(want, sizeof(want), "('%s') to %s", pairs[k][1], pairs[k][0]);
		TT_CHECK_MSG(f && strstr(f->fix, want), "%s", f ? f->fix : "");
		TT_CHECK_MSG(f && strstr(f->actual, "the name of another planned switch"), "%s",
			     f ? f->actual : "");
		ibf_vreport_free(&r);
		fx_free(&x);
	}
}

/* every switch with a factory description, the hosts named: each switch
 * is placed by the hosts behind it (on main: 50 unknown-node, 50
 * missing-node and 200 miswired host cables) */
static void test_validate_renamed_by_hosts(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	for (uint32_t i = 0; i < x.f->nnodes; i++)
		if (x.f->nodes[i].type == IBF_NODE_SWITCH)
			set_desc(&x, (int)i, "MF0;switch");
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	TT_EQ_INT(r.n, 50);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 50);
	TT_EQ_INT(r.ok, x.p->ncables);
	TT_EQ_INT(r.matched_by[IBF_MATCH_RENAMED], 50);
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* a switch carrying the name of another switch that is there too: in
 * either node order, the one standing elsewhere is renamed and the other
 * keeps its name (on main: the first in node order took the name) */
static void test_validate_duplicate_name(void)
{
	static const char *const pair[][2] = { { "sf-r03-g1-s02", "sf-r03-g1-s04" },
					       { "sf-r03-g1-s04", "sf-r03-g1-s02" } };
	for (int k = 0; k < 2; k++) {
		struct fx x;
		TT_REQUIRE(fx_setup(&x));
		set_desc(&x, node(&x, pair[k][0]), pair[k][1]);
		struct ibf_vreport r;
		TT_REQUIRE(run(&x, NULL, &r) == 0);
		dump_report(&r);
		TT_EQ_INT(r.n, 1);
		TT_CHECK(renamed_for(&r, pair[k][0]) != NULL);
		TT_EQ_INT(r.ok, x.p->ncables);
		TT_EQ_INT(r.matched_by[IBF_MATCH_DESC], 249);
		ibf_vreport_free(&r);
		fx_free(&x);
	}
}

/* a renamed switch while the fabric is half cabled (steps 1 and 2) */
static void test_validate_renamed_partial(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int removed = 0;
	for (uint32_t c = 0; c < x.p->ncables; c++)
		if (x.p->cables[c].step >= 3) {
			ibf_fabric_disconnect(x.f, node(&x, x.p->nodes[x.p->cables[c].a].name),
					      x.p->cables[c].ap);
			removed++;
		}
	set_desc(&x, node(&x, "sf-r03-g1-s02"), "MF0;switch");
	struct ibf_vreport r;
	struct ibf_validate_opts o = { .partial = 1 };
	TT_REQUIRE(run(&x, &o, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 1);
	TT_EQ_INT(r.partial_step, 2);
	TT_EQ_INT(r.expected_missing, removed);
	const struct ibf_finding *f = renamed_for(&r, "sf-r03-g1-s02");
	TT_CHECK_MSG(f && strstr(f->actual, "every one of its 3 cables"), "%s", f ? f->actual : "");
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* weak evidence names nothing: a foreign switch with two cables where the
 * plan puts a missing switch and three elsewhere, and a missing switch's
 * hosts split over two foreign switches, stay unknown; a heavily miswired
 * switch keeps its name (three swaps) */
static void test_validate_renamed_weak(void)
{
	struct fx x;
	TT_REQUIRE(fx_setup(&x));
	int a = node(&x, "sf-r03-g1-s02");
	int nb[11], np[11];
	for (int q = 1; q <= 11; q++)
		peer(&x, a, q, &nb[q - 1], &np[q - 1]);
	for (int q = 1; q <= 11; q++)
		ibf_fabric_disconnect(x.f, a, q);
	set_desc(&x, a, "spare switch, no cables"); /* not reported: nothing to fix */
	struct ibf_error err;
	int d = ibf_fabric_add_node(x.f, IBF_NODE_SWITCH, 16, 0x4242, "MF0;switch", NULL, &err);
	TT_REQUIRE(d >= 0);
	ibf_fabric_connect(x.f, d, 1, nb[0], np[0], 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(x.f, d, 2, nb[1], np[1], 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(x.f, d, 3, node(&x, "sf-r00-g0-s00"), 12, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(x.f, d, 4, node(&x, "sf-r01-g0-s00"), 12, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_connect(x.f, d, 5, node(&x, "sf-r02-g0-s00"), 12, 4, IBF_SPEED_EDR, NULL);
	struct ibf_vreport r;
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_UNKNOWN_NODE), 1);
	TT_EQ_INT(count_kind(&r, IBF_FIND_MISSING_NODE), 1);
	ibf_vreport_free(&r);
	/* the hosts of the missing switch, two by two on two foreign switches */
	int e = ibf_fabric_add_node(x.f, IBF_NODE_SWITCH, 16, 0x4343, "MF0;switch", NULL, &err);
	TT_REQUIRE(e >= 0);
	for (int q = 1; q <= 5; q++)
		ibf_fabric_disconnect(x.f, d, q);
	for (int q = 8; q <= 11; q++)
		ibf_fabric_connect(x.f, q < 10 ? d : e, q, nb[q - 1], np[q - 1], 4, IBF_SPEED_EDR,
				   NULL);
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 0);
	TT_EQ_INT(count_kind(&r, IBF_FIND_UNKNOWN_NODE), 2);
	ibf_vreport_free(&r);
	fx_free(&x);
	/* three swaps on one correctly named switch: 6 of its 11 cables wrong */
	TT_REQUIRE(fx_setup(&x));
	a = node(&x, "sf-r03-g1-s02");
	swap_far_ends(&x, a, 1, a, 2);
	swap_far_ends(&x, a, 3, a, 4);
	swap_far_ends(&x, a, 5, a, 6);
	TT_REQUIRE(run(&x, NULL, &r) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 3);
	TT_EQ_INT(count_kind(&r, IBF_FIND_SWAPPED), 3);
	TT_EQ_INT(r.matched_by[IBF_MATCH_DESC], 250);
	ibf_vreport_free(&r);
	fx_free(&x);
}

/* a fat tree planned from its topology: a renamed middle switch and two
 * leaves with exchanged descriptions */
static void test_validate_renamed_fat_tree(void)
{
	struct ibf_error err;
	struct ibf_fabric *ft = ibf_gen_kary_ntree(4, 3, &err);
	TT_REQUIRE(ft);
	struct ibf_plan *p = ibf_plan_from_fabric(ft, &err);
	TT_REQUIRE(p);
	/* switches with hosts are leaves; a switch without is higher up */
	int leaf[2] = { -1, -1 }, mid = -1;
	for (uint32_t i = 0; i < ft->nnodes; i++) {
		if (ft->nodes[i].type != IBF_NODE_SWITCH)
			continue;
		int hosts = 0;
		for (int q = 1; q <= ft->nodes[i].nports; q++) {
			const struct ibf_port *pp = ibf_port(ft, (int)i, q);
			hosts += pp->peer_node != IBF_NO_NODE &&
				 ft->nodes[pp->peer_node].type != IBF_NODE_SWITCH;
		}
		if (hosts && leaf[0] < 0)
			leaf[0] = (int)i;
		else if (hosts && leaf[1] < 0)
			leaf[1] = (int)i;
		else if (!hosts && mid < 0)
			mid = (int)i;
	}
	TT_REQUIRE(leaf[1] >= 0 && mid >= 0);
	char l0[100], l1[100], m[100];
	snprintf(l0, sizeof(l0), "%s", ft->nodes[leaf[0]].desc);
	snprintf(l1, sizeof(l1), "%s", ft->nodes[leaf[1]].desc);
	snprintf(m, sizeof(m), "%s", ft->nodes[mid].desc);
	free(ft->nodes[leaf[0]].desc);
	ft->nodes[leaf[0]].desc = strdup(l1);
	free(ft->nodes[leaf[1]].desc);
	ft->nodes[leaf[1]].desc = strdup(l0);
	free(ft->nodes[mid].desc);
	ft->nodes[mid].desc = strdup("MF0;switch");
	struct ibf_vreport r;
	TT_REQUIRE(ibf_validate(p, ft, NULL, &r, &err) == 0);
	dump_report(&r);
	TT_EQ_INT(r.n, 3);
	TT_EQ_INT(count_kind(&r, IBF_FIND_RENAMED), 3);
	TT_EQ_INT(r.ok, p->ncables);
	TT_CHECK(renamed_for(&r, l0) && renamed_for(&r, l1) && renamed_for(&r, m));
	ibf_vreport_free(&r);
	ibf_plan_free(p);
	ibf_fabric_free(ft);
}

/* cabling slimfly --link: a width and a known speed ("4x???" and "4x"
 * became 4xEDR without a word) */
static void test_link_parse(void)
{
	int w = 0, sp = 0;
	TT_CHECK(!ibf_plan_link_parse("4xEDR", 5, &w, &sp) && w == 4 && sp == IBF_SPEED_EDR);
	TT_CHECK(!ibf_plan_link_parse("2xHDR", 5, &w, &sp) && w == 2 && sp == IBF_SPEED_HDR);
	TT_CHECK(!ibf_plan_link_parse("12xFDR10", 8, &w, &sp) && w == 12 && sp == IBF_SPEED_FDR10);
	/* speeds in any case, as the plan CSV's speed column */
	TT_CHECK(!ibf_plan_link_parse("4xedr", 5, &w, &sp) && w == 4 && sp == IBF_SPEED_EDR);
	static const char *const bad[] = { "4x???", "4x", "4",	  "3xEDR",  "4xed",    "4xEDRx",
					   "",	    "x",  "xEDR", "4 xEDR", "100xEDR", "EDR" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TT_CHECK_MSG(ibf_plan_link_parse(bad[i], strlen(bad[i]), &w, &sp), "'%s' taken",
			     bad[i]);
}

int main(void)
{
	tt_run("slimfly plan q=5 = MMS graph, valid ports, per-rack ports", test_sf_q5);
	tt_run("slimfly plan q=7", test_sf_q7);
	tt_run("slimfly plan q=9 (GF(9))", test_sf_q9);
	tt_run("slimfly plan q=11", test_sf_q11);
	tt_run("slimfly plan q=4 and q=8 (delta 0)", test_sf_q4_q8);
	tt_run("slimfly q=5: 50 switches, 200 hosts, cable counts per kind", test_sf_q5_counts);
	tt_run("slimfly host port placement (first, gap, middle)", test_sf_host_ports);
	tt_run("slimfly plan errors (ports too few, q not admissible)", test_sf_errors);
	tt_run("slimfly --link: a width and a known speed", test_link_parse);
	tt_run("plan CSV round trip", test_csv_roundtrip);
	tt_run("plan CSV errors with FILE:LINE", test_csv_errors);
	tt_run("plan from topology (fat tree, rails, slim fly)", test_from_topology);
	tt_run("plan from topology: a degraded twin planned at its expected rate",
	       test_from_topology_degraded);
	tt_run("plan from topology: supported values no cable reaches (ibsim) do not set the plan",
	       test_from_topology_supported_absurd);
	tt_run("wiring sheets", test_sheets);
	tt_run("wiring sheets: racks whose file names clash", test_sheets_name_clash);
	tt_run("wiring sheets: a rack named norack and switches without a rack", test_sheets_norack);
	tt_run("wiring sheets of a plan read back from its CSV", test_sheets_from_csv);
	tt_run("wiring sheets: a directory with another plan's sheets", test_sheets_stale);
	tt_run("wiring sheets: cable types", test_sheets_cable_types);
	tt_run("validate: clean", test_validate_clean);
	tt_run("validate: missing and extra", test_validate_missing_extra);
	tt_run("validate: swapped pairs as one fix", test_validate_swapped);
	tt_run("validate: the same report whatever the order of the fabric's nodes", test_validate_node_order);
	tt_run("validate: cables rotated among ports", test_validate_rotated);
	tt_run("validate: wrong port and miswired", test_validate_wrong_port_miswired);
	tt_run("validate: degraded, unknown and missing nodes", test_validate_degraded_nodes);
	tt_run("validate: port-limited (older hardware) vs degraded", test_validate_port_limited);
	tt_run("validate: two neighbouring missing switches", test_validate_two_missing_nodes);
	tt_run("validate: node-name-map and structural matching", test_validate_matching);
	tt_run("validate: partial cabling", test_validate_partial);
	tt_run("validate: the e2e fault set", test_validate_all_faults);
	tt_run("validate: q=29 against its own rendering", test_validate_q29_speed);
	tt_run("validate: single-port devices of one host", test_validate_single_port_devices);
	tt_run("validate: a renamed switch placed by its named neighbours", test_validate_renamed);
	tt_run("validate: renamed switch with a miswired or a lost cable",
	       test_validate_renamed_faults);
	tt_run("validate: two switches with exchanged descriptions", test_validate_swapped_names);
	tt_run("validate: renamed switch in a partial cabling", test_validate_renamed_partial);
	tt_run("validate: all switches placed by their named hosts",
	       test_validate_renamed_by_hosts);
	tt_run("validate: a switch named like another one that is there",
	       test_validate_duplicate_name);
	tt_run("validate: weak structural evidence names nothing", test_validate_renamed_weak);
	tt_run("validate: renamed and exchanged switches of a fat tree",
	       test_validate_renamed_fat_tree);
	return tt_done();
}
