/* Unit tests for the h-ratio path decision (rail/decide.c). */
#include "ibf_rail.h"
#include "tt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		     (!strncmp(f->nodes[i].desc, "srv000 ", 7) && strcmp(f->nodes[i].desc, "srv000 mlx5_2")))) {
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
	TT_REQUIRE(detect(f, "# moves\n \"srv002 mlx5_2\" srv002 3\n\"srv003 mlx5_0\" box3 -\n", &ri,
			  &err) == 0);
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
		struct ibf_rail_map *m = ibf_rail_map_parse(bad[i].text, strlen(bad[i].text), "m", &err);
		TT_CHECK_MSG(!m, "case %zu parsed", i);
		TT_EQ_INT(err.line, bad[i].line);
		TT_CHECK(!strcmp(err.file, "m"));
		ibf_rail_map_free(m);
	}
	/* a selector matching nothing is an error at its line */
	struct ibf_fabric *f = gen(2, 2, 1, 0);
	struct ibf_error err = { 0 };
	struct ibf_rail_info ri;
	TT_CHECK(detect(f, "srv000-mlx5_0 a 0\nnosuch b 1\n", &ri, &err) != 0);
	TT_EQ_INT(err.line, 2);
	TT_CHECK(detect(f, "\"rail0-l0\" a 0\n", &ri, &err) != 0);
	TT_EQ_INT(err.line, 1);
	ibf_fabric_free(f);
}

static int decide(const int *rail, int nr, const int *dom, int nd, int d1, int g1, int d2,
		  int g2, int prefer_rd, struct ibf_rail_choice *c)
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

/* ------------------------------------------------------------ registry */

static void test_registry_roundtrip(void)
{
	char dir[] = "/tmp/ibfab-railreg.XXXXXX";
	TT_REQUIRE(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/reg.json", dir);
	struct ibf_rail_registry reg;
	memset(&reg, 0, sizeof(reg));
	TT_EQ_INT(ibf_rail_registry_set(&reg, 3, NULL, 40), 0);
	TT_EQ_INT(ibf_rail_registry_set(&reg, 0, NULL, 100), 0);
	TT_EQ_INT(ibf_rail_registry_set(&reg, 0, "gpu \"node\" 7", 0), 0);
	TT_EQ_INT(ibf_rail_registry_set(&reg, 0, "srv1", 55), 0);
	TT_EQ_INT(ibf_rail_registry_set(&reg, 3, NULL, 41), 0); /* update */
	TT_CHECK(ibf_rail_registry_set(&reg, 3, NULL, 101) != 0);
	reg.timestamp = 1700000000;
	struct ibf_error err = { 0 };
	TT_EQ_INT(ibf_rail_registry_write(path, &reg, &err), 0);
	struct ibf_rail_registry back;
	TT_EQ_INT(ibf_rail_registry_read(path, &back, &err), 0);
	TT_EQ_INT(back.timestamp, 1700000000);
	TT_EQ_INT(back.nrails, 2);
	TT_EQ_INT(back.rail_label[0], 3);
	TT_EQ_INT(back.rail_score[0], 41);
	TT_EQ_INT(back.ndomains, 2);
	TT_CHECK(!strcmp(back.domain[0], "gpu \"node\" 7"));
	TT_EQ_INT(back.domain_score[0], 0);
	TT_EQ_INT(back.domain_score[1], 55);
	/* decisions from the registry: rail 3 at 41, srv1 at 55, others unknown (100) */
	struct ibf_rail_choice ch;
	TT_EQ_INT(ibf_rail_registry_decide(&back, 1, "srv1", 3, "srv2", 5, 8, 100, 1, &ch), 0);
	/* rd = H(3) H(srv2) = 0.41, dr = H(srv1) H(5) = 0.55, remote = 0.55: not strictly better */
	TT_EQ_INT(ch.path, IBF_RAIL_DR);
	TT_EQ_INT(ch.via_rail, 5);
	/* unusable (stale or missing): the default, both ways */
	TT_EQ_INT(ibf_rail_registry_decide(&back, 0, "srv1", 3, "srv2", 5, 8, 100, 1, &ch), 0);
	TT_EQ_INT(ch.path, IBF_RAIL_RD);
	TT_EQ_INT(ibf_rail_registry_decide(&back, 0, "srv1", 3, "srv2", 5, 8, 100, 0, &ch), 0);
	TT_EQ_INT(ch.path, IBF_RAIL_DR);
	TT_EQ_INT(ibf_rail_registry_decide(&back, 1, "srv1", 3, "srv1", 5, 8, 100, 0, &ch), 0);
	TT_EQ_INT(ch.path, IBF_RAIL_D);
	TT_EQ_INT(ibf_rail_registry_decide(&back, 1, "srv1", 3, "srv9", 3, 8, 100, 0, &ch), 0);
	TT_EQ_INT(ch.path, IBF_RAIL_R);
	TT_CHECK(ibf_rail_registry_decide(&back, 1, "srv1", -1, "srv9", 3, 8, 100, 0, &ch) != 0);
	/* a blocked domain: the path avoids it */
	TT_EQ_INT(ibf_rail_registry_decide(&back, 1, "gpu \"node\" 7", 1, "srv2", 2, 8, 100, 1, &ch),
		  0);
	TT_EQ_INT(ch.path, IBF_RAIL_RD);
	ibf_rail_registry_free(&back);
	ibf_rail_registry_free(&reg);
	remove(path);
	rmdir(dir);
}

static void test_registry_errors(void)
{
	static const struct {
		const char *text;
		long line;
		const char *msg;
	} bad[] = {
		{ "", 1, "expected '{'" },
		{ "{\"version\": 1}", 1, "needs" },
		{ "{\"version\": 2, \"timestamp\": 1}", 1, "version" },
		{ "{\"version\": 1,\n\"timestamp\": -4}", 2, "timestamp" },
		{ "{\"version\": 1, \"timestamp\": 1,\n\"rails\": {\"x\": 3}}", 2, "rail number" },
		{ "{\"version\": 1, \"timestamp\": 1,\n\"rails\": {\"1\": 3,\n \"1\": 4}}", 3, "twice" },
		{ "{\"version\": 1, \"timestamp\": 1,\n\"rails\": {\"1\": 100.5}}", 2, "integer" },
		{ "{\"version\": 1, \"timestamp\": 1,\n\"domains\": {\"a\": 3, \"a\": 4}}", 2, "twice" },
		{ "{\"version\": 1, \"timestamp\": 1,\n\"domains\": {\"\": 3}}", 2, "empty" },
		{ "{\"version\": 1, \"timestamp\": 1} x", 1, "after" },
		{ "{\"version\": 1, \"timestamp\": 1, \"rails\": {\"1\": 3", 1, "expected '}'" },
		{ "{\"version\": 1, \"timestamp\": 1, \"domains\": {\"a\nb\": 3}}", 1, "control" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibf_error err = { 0 };
		struct ibf_rail_registry reg;
		int rc = ibf_rail_registry_parse(bad[i].text, strlen(bad[i].text), "reg.json", &reg,
						 &err);
		TT_CHECK(rc != 0);
		TT_EQ_INT(err.line, bad[i].line);
		if (!strstr(err.msg, bad[i].msg))
			fprintf(stderr, "# case %zu: '%s'\n", i, err.msg);
		TT_CHECK(strstr(err.msg, bad[i].msg) != NULL);
	}
	/* unknown keys of any shape are skipped */
	const char *ok = "{\"note\": [1, {\"x\": null}, true, \"s\\u0041\"], \"version\": 1,\n"
			 "\"timestamp\": 12, \"gamma\": {}, \"rails\": {}, \"domains\": {\"h\\\"1\": 7}}";
	struct ibf_error err = { 0 };
	struct ibf_rail_registry reg;
	TT_EQ_INT(ibf_rail_registry_parse(ok, strlen(ok), "ok", &reg, &err), 0);
	TT_EQ_INT(reg.ndomains, 1);
	TT_CHECK(!strcmp(reg.domain[0], "h\"1"));
	TT_EQ_INT(reg.timestamp, 12);
	ibf_rail_registry_free(&reg);
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
	TT(test_map_errors);
	TT(test_registry_roundtrip);
	TT(test_registry_errors);
	return tt_done();
}
