/* h-ratio path decision: see rail/ibf_rail.h and docs/rail.md. */
#include "ibf_rail.h"

static double norm(const struct ibf_rail_scores *s, int v)
{
	if (v < 0)
		v = s->dflt;
	if (v < 0)
		v = 0;
	if (v > 100)
		v = 100;
	return v / 100.0;
}

static double gamma_of(double rail, double dom)
{
	if (dom > 0)
		return rail / dom;
	return rail > 0 ? 1e300 : 1.0;
}

const char *ibf_rail_path_name(enum ibf_rail_path p)
{
	switch (p) {
	case IBF_RAIL_D:
		return "d";
	case IBF_RAIL_R:
		return "r";
	case IBF_RAIL_RD:
		return "rd";
	case IBF_RAIL_DR:
		return "dr";
	case IBF_RAIL_REMOTE:
		return "remote";
	}
	return "?";
}

int ibf_rail_decide(const struct ibf_rail_scores *s, int d1, int g1, int d2, int g2, int prefer_rd,
		    struct ibf_rail_choice *o)
{
	if (d1 < 0 || d2 < 0 || d1 >= s->ndomains || d2 >= s->ndomains || g1 < 0 || g2 < 0 ||
	    g1 >= s->nrails || g2 >= s->nrails)
		return -1;
	double h_d1 = norm(s, s->domain[d1]), h_d2 = norm(s, s->domain[d2]);
	double h_g1 = norm(s, s->rail[g1]), h_g2 = norm(s, s->rail[g2]);
	*o = (struct ibf_rail_choice){ 0 };
	o->gamma_src = gamma_of(h_g1, h_d1);
	o->gamma_dst = gamma_of(h_g2, h_d2);
	if (d1 == d2) {
		o->path = IBF_RAIL_D;
		o->via_rail = -1;
		o->score = h_d1;
		return 0;
	}
	if (g1 == g2) {
		o->path = IBF_RAIL_R;
		o->via_rail = g1;
		o->score = h_g1;
		return 0;
	}
	/* rd crosses rail g1 then domain d2; dr crosses domain d1 then rail g2.
	 * rd > dr  <=>  H(g1)H(d2) > H(d1)H(g2)  <=>  gamma(src) > gamma(dst)
	 * when the domain scores are non-zero; the products decide in general. */
	o->rd = h_g1 * h_d2;
	o->dr = h_d1 * h_g2;
	o->remote = 0;
	int best3 = -1;
	for (int g = 0; g < s->nrails; g++) {
		if (g == g1 || g == g2)
			continue;
		double v = h_d1 * norm(s, s->rail[g]) * h_d2;
		if (v > o->remote) {
			o->remote = v;
			best3 = g;
		}
	}
	if (o->rd > o->dr || (o->rd == o->dr && prefer_rd)) {
		o->path = IBF_RAIL_RD;
		o->via_rail = g1;
		o->score = o->rd;
	} else {
		o->path = IBF_RAIL_DR;
		o->via_rail = g2;
		o->score = o->dr;
	}
	if (best3 >= 0 && o->remote > o->score) {
		o->path = IBF_RAIL_REMOTE;
		o->via_rail = best3;
		o->score = o->remote;
	}
	return 0;
}
