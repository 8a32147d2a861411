/* Rail-only GPU cluster, path policies compared (docs/rail.md, "Evaluation").
 *
 * A standalone flow model on the flow simulator's exact max-min solver:
 * D servers (domains) of G GPUs; GPU g of every server has a NIC on rail g
 * (one non-blocking rail switch per rail) and a port into its server's
 * NVSwitch.  Directed links: NIC up/down per GPU (C_nic), NVSwitch in/out per
 * GPU (C_nv), and one backplane per rail (D x C_nic).  A congested rail or
 * domain keeps only its health share of capacity (H x capacity), and the
 * same health, as scores 0..100, is what the registry tells the policies.
 * Paths for GPU (d1,g1) -> (d2,g2): same server: NVSwitch; same rail: the
 * rail; otherwise rd (rail g1, then the NVSwitch of d2), dr (the NVSwitch of
 * d1, then rail g2: what NCCL's PXN does) or a remote rail g3.  Policies:
 * h-ratio (ibf_rail_registry_decide), always dr, always rd, random (seeded).
 * Patterns: all-to-all, and one ring all-reduce step over the GPUs in
 * (server, GPU) order (the server-to-server hops cross rails).
 * Prints aggregate Gb/s and the time of a 64 MiB message per flow (the
 * slowest flow) for each scenario and policy.  Never pass/fail. */
#include "ibf_rail.h"
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L_UP, L_DN, L_NVO, L_NVI, L_KINDS };

struct model {
	int D, G;
	double nic, nv;
	double *cap;    /* [links] */
	uint32_t nlinks;
};

static uint32_t lk(const struct model *m, int kind, int d, int g)
{
	return (uint32_t)(((kind * m->D) + d) * m->G + g);
}

static uint32_t rail_link(const struct model *m, int g)
{
	return (uint32_t)(L_KINDS * m->D * m->G + g);
}

struct growbuf {
	uint32_t *inc;
	uint64_t n, cap;
};

static void put(struct growbuf *b, uint32_t link)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 1024;
		b->inc = realloc(b->inc, b->cap * sizeof(uint32_t));
		if (!b->inc)
			abort();
	}
	b->inc[b->n++] = SIM_INC(link, 128);
}

/* the links of a pair's path */
static void path(const struct model *m, struct growbuf *b, int d1, int g1, int d2, int g2,
		 enum ibf_rail_path p, int g3)
{
	switch (p) {
	case IBF_RAIL_D:
		put(b, lk(m, L_NVO, d1, g1));
		put(b, lk(m, L_NVI, d1, g2));
		break;
	case IBF_RAIL_R:
		put(b, lk(m, L_UP, d1, g1));
		put(b, rail_link(m, g1));
		put(b, lk(m, L_DN, d2, g1));
		break;
	case IBF_RAIL_RD:
		put(b, lk(m, L_UP, d1, g1));
		put(b, rail_link(m, g1));
		put(b, lk(m, L_DN, d2, g1));
		put(b, lk(m, L_NVO, d2, g1));
		put(b, lk(m, L_NVI, d2, g2));
		break;
	case IBF_RAIL_DR:
		put(b, lk(m, L_NVO, d1, g1));
		put(b, lk(m, L_NVI, d1, g2));
		put(b, lk(m, L_UP, d1, g2));
		put(b, rail_link(m, g2));
		put(b, lk(m, L_DN, d2, g2));
		break;
	case IBF_RAIL_REMOTE:
		put(b, lk(m, L_NVO, d1, g1));
		put(b, lk(m, L_NVI, d1, g3));
		put(b, lk(m, L_UP, d1, g3));
		put(b, rail_link(m, g3));
		put(b, lk(m, L_DN, d2, g3));
		put(b, lk(m, L_NVO, d2, g3));
		put(b, lk(m, L_NVI, d2, g2));
		break;
	}
}

enum policy { P_HRATIO, P_DR, P_RD, P_RANDOM, P_COUNT };
static const char *const pname[] = { "h-ratio", "always dr (PXN)", "always rd", "random" };

static void run(const struct model *m, const struct ibf_rail_registry *reg, int pattern,
		int pol, double *agg, double *tmin)
{
	struct growbuf b = { 0 };
	struct sim_inc in;
	memset(&in, 0, sizeof(in));
	uint64_t nmax = (uint64_t)m->D * m->G * m->D * m->G;
	in.off = malloc((nmax + 1) * sizeof(uint64_t));
	in.demand = calloc(nmax + 1, sizeof(double));
	uint64_t rnd = 12345;
	char dn1[32], dn2[32];
	in.off[0] = 0;
	for (int d1 = 0; d1 < m->D; d1++)
		for (int g1 = 0; g1 < m->G; g1++)
			for (int d2 = 0; d2 < m->D; d2++)
				for (int g2 = 0; g2 < m->G; g2++) {
					if (d1 == d2 && g1 == g2)
						continue;
					if (pattern == 1) { /* ring: (d,g) -> next in (d,g) order */
						int nd = g1 + 1 < m->G ? d1 : (d1 + 1) % m->D;
						int ng = (g1 + 1) % m->G;
						if (d2 != nd || g2 != ng)
							continue;
					}
					snprintf(dn1, sizeof(dn1), "srv%03d", d1);
					snprintf(dn2, sizeof(dn2), "srv%03d", d2);
					struct ibf_rail_decision x;
					ibf_rail_registry_decide(reg, reg->timestamp, dn1, g1, dn2, g2, &x);
					enum ibf_rail_path p = x.c.path;
					int g3 = x.c.via_rail;
					if (p != IBF_RAIL_D && p != IBF_RAIL_R && pol != P_HRATIO) {
						int rd = pol == P_RD ||
							 (pol == P_RANDOM && ibf_rand_below(&rnd, 2));
						p = rd ? IBF_RAIL_RD : IBF_RAIL_DR;
					}
					path(m, &b, d1, g1, d2, g2, p, g3);
					in.off[++in.nf] = b.n;
				}
	in.inc = b.inc;
	in.ninc = b.n;
	double *rate = malloc((in.nf + 1) * sizeof(double));
	sim_maxmin(&in, m->cap, m->nlinks, NULL, rate, NULL);
	*agg = 0;
	*tmin = 1e300;
	for (uint64_t f = 0; f < in.nf; f++) {
		*agg += rate[f];
		if (rate[f] < *tmin)
			*tmin = rate[f];
	}
	free(rate);
	sim_inc_free(&in);
}

int main(int argc, char **argv)
{
	struct model m = { .D = 16, .G = 8, .nic = 400, .nv = 3600 };
	if (argc > 1)
		m.D = atoi(argv[1]);
	if (argc > 2)
		m.G = atoi(argv[2]);
	if (m.D < 2 || m.G < 2 || m.D > 256 || m.G > 16) {
		fprintf(stderr, "usage: rail_eval [SERVERS [GPUS]]\n");
		return 2;
	}
	m.nlinks = (uint32_t)(L_KINDS * m.D * m.G + m.G);
	m.cap = malloc(m.nlinks * sizeof(double));
	struct {
		const char *name;
		int rail, rail_h, dom, dom_h;
	} sc[] = {
		{ "healthy", -1, 100, -1, 100 },
		{ "rail 1 at 30 %", 1, 30, -1, 100 },
		{ "server 2 at 10 %", -1, 100, 2, 10 },
		{ "rail 1 at 30 %, server 2 at 10 %", 1, 30, 2, 10 },
		{ "rails 0-3 at 25 %", 0, 25, -1, 100 },
	};
	printf("rail-only cluster: %d servers x %d GPUs, NIC %.0f Gb/s, NVSwitch port %.0f Gb/s\n",
	       m.D, m.G, m.nic, m.nv);
	printf("%-34s %-16s %14s %12s   %14s %12s\n", "scenario", "policy", "a2a Gb/s",
	       "a2a ms", "ring Gb/s", "ring ms");
	for (size_t s = 0; s < sizeof(sc) / sizeof(sc[0]); s++) {
		struct ibf_rail_registry reg;
		ibf_rail_registry_init(&reg);
		reg.timestamp = 1;
		reg.max_age = 0;
		for (int g = 0; g < m.G; g++) {
			int h = (sc[s].rail == g || (s == 4 && g < 4)) ? sc[s].rail_h : 100;
			ibf_rail_registry_set_rail(&reg, g, h);
		}
		for (int d = 0; d < m.D; d++) {
			char dn[32];
			snprintf(dn, sizeof(dn), "srv%03d", d);
			ibf_rail_registry_set_domain(&reg, dn, d == sc[s].dom ? sc[s].dom_h : 100);
		}
		/* capacities: health share of what a congested rail / server has left */
		for (int d = 0; d < m.D; d++)
			for (int g = 0; g < m.G; g++) {
				double hd = reg.domain_score[d] / 100.0;
				m.cap[lk(&m, L_UP, d, g)] = m.cap[lk(&m, L_DN, d, g)] = m.nic;
				m.cap[lk(&m, L_NVO, d, g)] = m.cap[lk(&m, L_NVI, d, g)] = m.nv * hd;
			}
		for (int g = 0; g < m.G; g++)
			m.cap[rail_link(&m, g)] = m.D * m.nic * reg.rail_score[g] / 100.0;
		for (int p = 0; p < P_COUNT; p++) {
			double a_agg, a_min, r_agg, r_min;
			run(&m, &reg, 0, p, &a_agg, &a_min);
			run(&m, &reg, 1, p, &r_agg, &r_min);
			double bytes = 64.0 * 1024 * 1024;
			printf("%-34s %-16s %14.1f %12.3f   %14.1f %12.3f\n", p ? "" : sc[s].name, pname[p],
			       a_agg, bytes * 8 / (a_min * 1e9) * 1e3, r_agg,
			       bytes * 8 / (r_min * 1e9) * 1e3);
		}
		ibf_rail_registry_free(&reg);
	}
	free(m.cap);
	return 0;
}
