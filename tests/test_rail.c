/* Unit tests for the h-ratio path decision (rail/decide.c). */
#include "ibf_rail.h"
#include "tt.h"

#include <stdint.h>

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

int main(void)
{
	TT(test_same_domain_and_rail);
	TT(test_gamma_rule);
	TT(test_ties_and_extremes);
	TT(test_missing_entries);
	TT(test_remote_rail);
	TT(test_property);
	return tt_done();
}
