/* Unit tests for rail health scores from PerfMgr counters (rail/health.c). */
#include "ibf_rail.h"
#include "tt.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fx {
	struct ibf_fabric *f;
	struct ibf_rail_info ri;
	struct ibf_health *h;
};

/* servers x gpus, one switch per rail, spines (rail-optimized when > 0);
 * block: NULL, or spine k keeps only its cables to the rails r with
 * r / 2 == block[k] (-1: every cable), e.g. { 0, 0, 1, 1 } on 4 rails: two
 * spine groups, rails 0-1 and rails 2-3 */
static int fx_init_keep(struct fx *x, int servers, int gpus, int spines, const unsigned *keep,
			const struct ibf_health_opts *o);

static int fx_init_cut(struct fx *x, int servers, int gpus, int spines, const int *block,
		       const struct ibf_health_opts *o)
{
	unsigned keep[16];
	for (int k = 0; block && k < spines && k < 16; k++) {
		keep[k] = 0;
		for (int r = 0; r < gpus; r++)
			if (block[k] < 0 || r / 2 == block[k])
				keep[k] |= 1u << r;
	}
	return fx_init_keep(x, servers, gpus, spines, block ? keep : NULL, o);
}

/* the same with keep: NULL, or spine k keeps its cables to the rails r
 * whose bit (1 << r) keep[k] has */
static int fx_init_keep(struct fx *x, int servers, int gpus, int spines, const unsigned *keep,
			const struct ibf_health_opts *o)
{
	struct ibf_rail_opts ro = { 0 };
	struct ibf_error err = { 0 };
	memset(x, 0, sizeof(*x));
	ro.servers = servers;
	ro.gpus = gpus;
	ro.rail_switches = 1;
	ro.spines = spines;
	x->f = ibf_gen_rail(&ro, &err);
	if (!x->f || (!x->f->finalized && ibf_fabric_finalize(x->f, &err)))
		return -1;
	for (int k = 0; keep && k < spines; k++) {
		char name[16];
		snprintf(name, sizeof(name), "spine%02d", k);
		int id = ibf_fabric_find_desc(x->f, name);
		if (id < 0)
			return -1;
		/* the generator cables spine port r + 1 to rail r's leaf */
		for (int r = 0; r < gpus; r++)
			if (!(keep[k] >> r & 1))
				ibf_fabric_disconnect(x->f, id, r + 1);
	}
	if (!x->f->finalized && ibf_fabric_finalize(x->f, &err))
		return -1;
	if (ibf_rail_detect(x->f, NULL, &x->ri, &err))
		return -1;
	x->h = ibf_health_new(x->f, &x->ri, o, &err);
	if (!x->h)
		return -1;
	/* OpenSM's first difference of every port is against zero: a sweep
	 * that scores nothing */
	for (uint32_t id = 0; id < x->f->nnodes; id++)
		for (int p = 1; p <= (int)x->f->nodes[id].nports; p++)
			for (int c = 0; c < 2; c++)
				ibf_health_sample(x->h, x->f->nodes[id].guid, p,
						  (enum ibf_health_counter)c, 1000000000,
						  IBF_HEALTH_DELTA);
	if (x->ri.nrails && (ibf_health_sweeps(x->h) != 1 || ibf_health_last_ports(x->h) != 0 ||
			     ibf_health_measured(x->h, 0)))
		return -1;
	return 0;
}

static int fx_init(struct fx *x, int servers, int gpus, int spines, const struct ibf_health_opts *o)
{
	return fx_init_cut(x, servers, gpus, spines, NULL, o);
}

static void fx_free(struct fx *x)
{
	ibf_health_free(x->h);
	ibf_rail_info_free(&x->ri);
	ibf_fabric_free(x->f);
}

/* Dense rail of node id's switch, -1 for spines and CAs. */
static int rail_of(const struct fx *x, uint32_t id)
{
	const struct ibf_node *nd = &x->f->nodes[id];
	return nd->type == IBF_NODE_SWITCH && nd->sw >= 0 ? x->ri.sw_rail[nd->sw] : -1;
}

/* spine k of the fixture (node order), -1 when id is not a spine */
static int spine_of(const struct fx *x, uint32_t id)
{
	const struct ibf_node *nd = &x->f->nodes[id];
	if (nd->type != IBF_NODE_SWITCH || x->ri.sw_role[nd->sw] != IBF_RAIL_SW_SPINE)
		return -1;
	int k = 0;
	for (uint32_t i = 0; i < id; i++)
		k += x->f->nodes[i].type == IBF_NODE_SWITCH &&
		     x->ri.sw_role[x->f->nodes[i].sw] == IBF_RAIL_SW_SPINE;
	return k;
}

/* what the spines report in sweep(): wait of spine k, data 10^6 */
static uint64_t spine_wait[8];

/* One sweep: every connected port of every rail switch reports data[g] /
 * wait[g] of its rail g (deltas), except rail skip (-1: none) and, when
 * only_first is set, all but the first port of each rail; spine k's ports
 * report spine_wait[k].  Returns how many samples reported a closed
 * sweep. */
static int sweep(struct fx *x, const uint64_t *data, const uint64_t *wait, int skip, int only_first)
{
	int closed = 0;
	for (uint32_t id = 0; id < x->f->nnodes; id++) {
		int k = spine_of(x, id);
		for (int p = 1; k >= 0 && p <= (int)x->f->nodes[id].nports; p++) {
			closed += ibf_health_sample(x->h, x->f->nodes[id].guid, p, IBF_HEALTH_DATA,
						    1000000, IBF_HEALTH_DELTA) == IBF_HEALTH_SWEEP;
			closed += ibf_health_sample(x->h, x->f->nodes[id].guid, p, IBF_HEALTH_WAIT,
						    spine_wait[k],
						    IBF_HEALTH_DELTA) == IBF_HEALTH_SWEEP;
		}
		int g = rail_of(x, id);
		if (g < 0 || g == skip)
			continue;
		int first = 1;
		for (int p = 1; p <= (int)x->f->nodes[id].nports; p++) {
			if (ibf_port(x->f, (int)id, p)->peer_node == IBF_NO_NODE)
				continue;
			if (only_first && !first)
				break;
			first = 0;
			closed += ibf_health_sample(x->h, x->f->nodes[id].guid, p, IBF_HEALTH_DATA,
						    data[g], IBF_HEALTH_DELTA) == IBF_HEALTH_SWEEP;
			closed += ibf_health_sample(x->h, x->f->nodes[id].guid, p, IBF_HEALTH_WAIT,
						    wait[g], IBF_HEALTH_DELTA) == IBF_HEALTH_SWEEP;
		}
	}
	return closed;
}

static void test_formula(void)
{
	struct ibf_health_opts o;
	ibf_health_opts_default(&o);
	TT_CHECK(fabs(ibf_health_port_score(&o, 0, 0) - 100) < 1e-9);
	TT_CHECK(fabs(ibf_health_port_score(&o, 1000000, 0) - 100) < 1e-9);
	TT_CHECK(fabs(ibf_health_port_score(&o, 0, 1000000) - 0) < 1e-9);
	TT_CHECK(fabs(ibf_health_port_score(&o, 1000000, 1000000) - 50) < 1e-9);
	TT_CHECK(fabs(ibf_health_port_score(&o, 300000, 100000) - 75) < 1e-9);
	/* little traffic: the floor V keeps a few wait ticks from meaning "blocked" */
	TT_CHECK(fabs(ibf_health_port_score(&o, 0, 655) - 100 * (1 - 655 / 65536.0)) < 1e-9);
	o.wait_weight = 4; /* one tick counts as 4 words */
	TT_CHECK(fabs(ibf_health_port_score(&o, 400000, 100000) - 50) < 1e-9);
	o.min_words = 0;
	TT_CHECK(fabs(ibf_health_port_score(&o, 0, 1) - 0) < 1e-9);
	TT_CHECK(fabs(ibf_health_port_score(&o, 0, 0) - 100) < 1e-9);
}

static void test_options(void)
{
	struct ibf_health_opts o;
	struct fx x;
	ibf_health_opts_default(&o);
	o.alpha = 0;
	TT_CHECK(fx_init(&x, 4, 2, 2, &o) != 0 && !x.h);
	fx_free(&x);
	ibf_health_opts_default(&o);
	o.percentile = 101;
	TT_CHECK(fx_init(&x, 4, 2, 2, &o) != 0 && !x.h);
	fx_free(&x);
}

static void test_sweeps_and_smoothing(void)
{
	struct ibf_health_opts o;
	struct fx x;
	ibf_health_opts_default(&o);
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0);
	TT_EQ_INT(ibf_health_nrails(x.h), 2);
	/* 4 GPUs + 2 spine cables per rail, 2 rails to each of 2 spines */
	TT_EQ_INT(ibf_health_nports(x.h), 2 * (4 + 2) + 2 * 2);
	TT_EQ_INT(ibf_health_nspines(x.h), 2);
	/* nothing measured yet: the default */
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	TT_EQ_INT(ibf_health_measured(x.h, 0), 0);
	uint64_t data[2] = { 1000000, 1000000 }, wait[2] = { 0, 4000000 };
	/* a complete sweep closes as soon as every port has both counters */
	TT_EQ_INT(sweep(&x, data, wait, -1, 0), 1);
	TT_EQ_INT(ibf_health_sweeps(x.h), 2);
	TT_EQ_INT(ibf_health_last_ports(x.h), 12);
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	TT_EQ_INT(ibf_health_score(x.h, 1), 20); /* first measurement: raw, no smoothing */
	/* rail 1 recovers: EWMA alpha 0.5 -> 60, then 80 */
	wait[1] = 0;
	TT_EQ_INT(sweep(&x, data, wait, -1, 0), 1);
	TT_EQ_INT(ibf_health_score(x.h, 1), 60);
	TT_EQ_INT(sweep(&x, data, wait, -1, 0), 1);
	TT_EQ_INT(ibf_health_score(x.h, 1), 80);
	/* rail 0 silent: keeps its score; rail 1 alone does not complete a
	 * sweep, the next sweep's first repeated counter closes it */
	wait[1] = 1000000;
	TT_EQ_INT(sweep(&x, data, wait, 0, 0), 0);
	TT_EQ_INT(ibf_health_sweeps(x.h), 4);
	TT_EQ_INT(sweep(&x, data, wait, 0, 0), 1);
	TT_EQ_INT(ibf_health_sweeps(x.h), 5);
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	TT_EQ_INT(ibf_health_score(x.h, 1), 65); /* 0.5 * 50 + 0.5 * 80 */
	TT_EQ_INT(ibf_health_last_ports(x.h), 6);
	TT_EQ_INT(ibf_health_close(x.h), 1); /* the open sweep (rail 1 again) */
	TT_EQ_INT(ibf_health_score(x.h, 1), 58);
	TT_EQ_INT(ibf_health_close(x.h), 0); /* nothing open */
	/* a rebuilt fabric keeps the scores of its rails */
	struct fx y;
	TT_REQUIRE(fx_init(&y, 4, 2, 2, &o) == 0);
	ibf_health_carry(y.h, x.h);
	TT_EQ_INT(ibf_health_score(y.h, 1), 58);
	TT_EQ_INT(ibf_health_measured(y.h, 1), 1);
	TT_EQ_INT(ibf_health_sweeps(y.h), 6);
	fx_free(&y);
	fx_free(&x);

	/* alpha 1: no smoothing */
	o.alpha = 1;
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0);
	wait[0] = 3000000;
	wait[1] = 0;
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_score(x.h, 0), 25);
	wait[0] = 0;
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	fx_free(&x);
}

/* a rail switch port by rank among the rail's connected ports */
static int port_of_rail(const struct fx *x, int g, int k, uint64_t *guid)
{
	for (uint32_t id = 0; id < x->f->nnodes; id++) {
		if (rail_of(x, id) != g)
			continue;
		for (int p = 1; p <= (int)x->f->nodes[id].nports; p++)
			if (ibf_port(x->f, (int)id, p)->peer_node != IBF_NO_NODE && k-- == 0) {
				*guid = x->f->nodes[id].guid;
				return p;
			}
	}
	return -1;
}

static void test_percentile_and_missing(void)
{
	struct ibf_health_opts o;
	struct fx x;
	ibf_health_opts_default(&o);
	o.alpha = 1;
	/* 20 servers, 1 rail switch per rail, 2 spines: 22 ports per rail */
	TT_REQUIRE(fx_init(&x, 20, 2, 2, &o) == 0);
	uint64_t guid;
	/* ports 0..2 of rail 0 congested at 0, 10, 20; the rest idle */
	for (int k = 0; k < 22; k++) {
		int p = port_of_rail(&x, 0, k, &guid);
		TT_REQUIRE(p > 0);
		uint64_t w = k < 3 ? (uint64_t)(1000000 - 100000 * k) : 0;
		uint64_t d = k < 3 ? (uint64_t)(100000 * k) : 5000000;
		ibf_health_sample(x.h, guid, p, IBF_HEALTH_DATA, d, IBF_HEALTH_DELTA);
		ibf_health_sample(x.h, guid, p, IBF_HEALTH_WAIT, w, IBF_HEALTH_DELTA);
	}
	TT_EQ_INT(ibf_health_close(x.h), 1);
	/* percentile 90 of 22 ports: the 3rd worst (index floor(2.2) = 2) */
	TT_EQ_INT(ibf_health_score(x.h, 0), 20);
	TT_EQ_INT(ibf_health_measured(x.h, 1), 0); /* rail 1 sent nothing */
	TT_EQ_INT(ibf_health_score(x.h, 1), 100);
	fx_free(&x);
	o.percentile = 100; /* the worst port */
	TT_REQUIRE(fx_init(&x, 20, 2, 2, &o) == 0);
	for (int k = 0; k < 3; k++) { /* only 3 ports answer: the others are missing */
		int p = port_of_rail(&x, 0, k, &guid);
		ibf_health_sample(x.h, guid, p, IBF_HEALTH_DATA, (uint64_t)(100000 * k + 1),
				  IBF_HEALTH_DELTA);
		ibf_health_sample(x.h, guid, p, IBF_HEALTH_WAIT, (uint64_t)(1000000 - 100000 * k),
				  IBF_HEALTH_DELTA);
	}
	TT_EQ_INT(ibf_health_close(x.h), 1);
	TT_EQ_INT(ibf_health_last_ports(x.h), 3);
	TT_EQ_INT(ibf_health_score(x.h, 0), 0);
	fx_free(&x);
}

static void test_reset_and_wrap(void)
{
	struct ibf_health_opts o;
	struct fx x;
	ibf_health_opts_default(&o);
	o.alpha = 1;
	o.percentile = 100;
	TT_REQUIRE(fx_init(&x, 2, 1, 0, &o) == 0); /* one rail, one switch, 2 ports */
	TT_EQ_INT(ibf_health_nports(x.h), 2);
	uint64_t g0, g1;
	int p0 = port_of_rail(&x, 0, 0, &g0), p1 = port_of_rail(&x, 0, 1, &g1);
	TT_REQUIRE(p0 > 0 && p1 > 0);
	/* absolute readings: the first gives no delta */
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_DATA, 1000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_WAIT, 5000000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_DATA, 1000, IBF_HEALTH_ABS);
	TT_EQ_INT(ibf_health_sample(x.h, g1, p1, IBF_HEALTH_WAIT, 5000000, IBF_HEALTH_ABS),
		  IBF_HEALTH_SWEEP);
	TT_EQ_INT(ibf_health_last_ports(x.h), 0);
	TT_EQ_INT(ibf_health_measured(x.h, 0), 0);
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	/* second: deltas 1000000 data, 1000000 wait on port 0 -> 50 */
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_DATA, 1001000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_WAIT, 6000000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_DATA, 2001000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_WAIT, 5000000, IBF_HEALTH_ABS);
	TT_EQ_INT(ibf_health_last_ports(x.h), 2);
	TT_EQ_INT(ibf_health_score(x.h, 0), 50);
	/* port 0's wait counter is cleared (goes down): port 0 has no delta
	 * this sweep, port 1 alone (idle) scores the rail */
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_DATA, 2001000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_WAIT, 10, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_DATA, 3001000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_WAIT, 5000000, IBF_HEALTH_ABS);
	TT_EQ_INT(ibf_health_last_ports(x.h), 1);
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	/* then deltas from the new base again */
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_DATA, 2001000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_WAIT, 1000010, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_DATA, 4001000, IBF_HEALTH_ABS);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_WAIT, 5000000, IBF_HEALTH_ABS);
	TT_EQ_INT(ibf_health_last_ports(x.h), 2);
	TT_EQ_INT(ibf_health_score(x.h, 0), 0); /* 1e6 wait ticks, no data */
	fx_free(&x);
}

static void test_delta_mode(void)
{
	struct ibf_health_opts o;
	struct fx x;
	ibf_health_opts_default(&o);
	o.alpha = 1;
	o.percentile = 100;
	TT_REQUIRE(fx_init(&x, 2, 1, 0, &o) == 0);
	uint64_t g0, g1;
	int p0 = port_of_rail(&x, 0, 0, &g0), p1 = port_of_rail(&x, 0, 1, &g1);
	/* a negative difference as OpenSM's unsigned subtraction gives it */
	uint64_t down = (uint64_t)0 - 12345;
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_DATA, 100000, IBF_HEALTH_DELTA);
	ibf_health_sample(x.h, g0, p0, IBF_HEALTH_WAIT, down, IBF_HEALTH_DELTA);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_DATA, 100000, IBF_HEALTH_INVALID);
	ibf_health_sample(x.h, g1, p1, IBF_HEALTH_WAIT, 0, IBF_HEALTH_DELTA);
	TT_EQ_INT(ibf_health_sweeps(x.h), 2);
	TT_EQ_INT(ibf_health_last_ports(x.h), 0);
	TT_EQ_INT(ibf_health_measured(x.h, 0), 0);
	/* unknown GUIDs, port 0, spine ports, CA ports are ignored */
	TT_EQ_INT(ibf_health_sample(x.h, 0x1234, 1, IBF_HEALTH_DATA, 1, IBF_HEALTH_DELTA),
		  IBF_HEALTH_IGNORED);
	TT_EQ_INT(ibf_health_sample(x.h, g0, 0, IBF_HEALTH_DATA, 1, IBF_HEALTH_DELTA),
		  IBF_HEALTH_IGNORED);
	for (uint32_t id = 0; id < x.f->nnodes; id++)
		if (x.f->nodes[id].type != IBF_NODE_SWITCH)
			TT_EQ_INT(ibf_health_sample(x.h, x.f->nodes[id].guid, 1, IBF_HEALTH_WAIT, 1,
						    IBF_HEALTH_DELTA),
				  IBF_HEALTH_IGNORED);
	TT_EQ_INT(ibf_health_sample(NULL, g0, p0, IBF_HEALTH_DATA, 1, IBF_HEALTH_DELTA),
		  IBF_HEALTH_IGNORED);
	fx_free(&x);

	/* spine ports are monitored, but never count for a rail */
	ibf_health_opts_default(&o);
	o.alpha = 1;
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0);
	int spines = 0;
	for (uint32_t id = 0; id < x.f->nnodes; id++) {
		const struct ibf_node *nd = &x.f->nodes[id];
		if (nd->type == IBF_NODE_SWITCH && x.ri.sw_role[nd->sw] == IBF_RAIL_SW_SPINE) {
			spines++;
			for (int p = 1; p <= 2; p++) {
				TT_EQ_INT(ibf_health_sample(x.h, nd->guid, p, IBF_HEALTH_WAIT,
							    1000000, IBF_HEALTH_DELTA),
					  IBF_HEALTH_STORED);
				ibf_health_sample(x.h, nd->guid, p, IBF_HEALTH_DATA, 0,
						  IBF_HEALTH_DELTA);
			}
		}
	}
	TT_EQ_INT(spines, 2);
	TT_EQ_INT(ibf_health_close(x.h), 1);
	TT_EQ_INT(ibf_health_last_ports(x.h), 0);
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	TT_EQ_INT(ibf_health_measured(x.h, 0), 0);
	TT_EQ_INT(ibf_health_spine_score(x.h, 0), 0);
	TT_EQ_INT(ibf_health_spine_score(x.h, 1), 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 0); /* avoid_below 0: never */
	fx_free(&x);
}

static void test_registry_fill(void)
{
	struct ibf_health_opts o;
	struct fx x;
	ibf_health_opts_default(&o);
	o.alpha = 1;
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0);
	uint64_t data[2] = { 1000000, 1000000 }, wait[2] = { 0, 1000000 };
	sweep(&x, data, wait, -1, 0);
	/* the hosts' file: one known host, one the fabric does not show */
	const char *doc = "{\"version\": 1, \"domains\": {\"srv001\": 40, \"elsewhere\": 70}}";
	struct ibf_rail_registry doms, r;
	struct ibf_error err = { 0 };
	TT_REQUIRE(ibf_rail_registry_parse(doc, strlen(doc), "doms", &doms, &err) == 0);
	ibf_rail_registry_init(&r);
	TT_REQUIRE(ibf_health_fill(x.h, &doms, &r) == 0);
	TT_EQ_INT(r.nrails, 2);
	TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, ibf_health_label(x.h, 0))], 100);
	TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, ibf_health_label(x.h, 1))], 50);
	TT_EQ_INT(r.ndomains, 5);
	int d = ibf_rail_registry_find_domain(&r, "srv001");
	TT_REQUIRE(d >= 0);
	TT_EQ_INT(r.domain_score[d], 40);
	d = ibf_rail_registry_find_domain(&r, "srv000");
	TT_REQUIRE(d >= 0);
	TT_EQ_INT(r.domain_score[d], 100);
	d = ibf_rail_registry_find_domain(&r, "elsewhere");
	TT_REQUIRE(d >= 0);
	TT_EQ_INT(r.domain_score[d], 70);
	/* written and read back; gamma of srv001's GPU on rail 1 = 0.5 / 0.4 */
	char path[] = "/tmp/ibfab-health-XXXXXX";
	int fd = mkstemp(path);
	TT_REQUIRE(fd >= 0);
	close(fd);
	r.timestamp = 1700000000;
	TT_REQUIRE(ibf_rail_registry_write(path, &r, &err) == 0);
	char *buf = NULL;
	size_t len = 0;
	TT_REQUIRE(ibf_slurp(path, &buf, &len, &err) == 0);
	TT_CHECK(strstr(buf, "\"srv001\": {\"0\": 2.5, \"1\": 1.25}") != NULL);
	free(buf);
	unlink(path);
	/* without a hosts' file every domain gets the default */
	ibf_rail_registry_free(&r);
	TT_REQUIRE(ibf_health_fill(x.h, NULL, &r) == 0);
	TT_EQ_INT(r.ndomains, 4);
	ibf_rail_registry_free(&r);
	ibf_rail_registry_free(&doms);
	fx_free(&x);
}

/* A rail whose switch died is gone from the next fabric with its GPUs: the
 * registry must not drop it (hosts would read the default, 100, and send
 * over a rail that is not there) but publish it at 0 until it is back. */
static void test_gone_rails(void)
{
	struct ibf_health_opts o;
	ibf_health_opts_default(&o);
	o.alpha = 1;
	struct fx x, y, z, w;
	TT_REQUIRE(fx_init(&x, 4, 4, 2, &o) == 0);
	TT_EQ_INT(ibf_health_nrails(x.h), 4);
	TT_EQ_INT(ibf_health_ngone(x.h), 0);
	/* rail 3 gone (4 servers x 3 GPUs): gone = {3} */
	TT_REQUIRE(fx_init(&y, 4, 3, 2, &o) == 0);
	ibf_health_carry(y.h, x.h);
	TT_EQ_INT(ibf_health_nrails(y.h), 3);
	TT_EQ_INT(ibf_health_ngone(y.h), 1);
	TT_EQ_INT(ibf_health_gone_label(y.h, 0), 3);
	TT_EQ_INT(ibf_health_gone_label(y.h, 1), -1);
	struct ibf_rail_registry r;
	ibf_rail_registry_init(&r);
	TT_REQUIRE(ibf_health_fill(y.h, NULL, &r) == 0);
	TT_EQ_INT(r.nrails, 4);
	int i = ibf_rail_registry_find_rail(&r, 3);
	TT_REQUIRE(i >= 0);
	TT_EQ_INT(r.rail_score[i], 0);
	TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, 2)], 100);
	ibf_rail_registry_free(&r);
	/* rail 2 goes as well: both stay gone, ascending */
	TT_REQUIRE(fx_init(&z, 4, 2, 2, &o) == 0);
	ibf_health_carry(z.h, y.h);
	TT_EQ_INT(ibf_health_ngone(z.h), 2);
	TT_EQ_INT(ibf_health_gone_label(z.h, 0), 2);
	TT_EQ_INT(ibf_health_gone_label(z.h, 1), 3);
	/* all four back: nothing gone, every rail published with its score */
	TT_REQUIRE(fx_init(&w, 4, 4, 2, &o) == 0);
	ibf_health_carry(w.h, z.h);
	TT_EQ_INT(ibf_health_ngone(w.h), 0);
	ibf_rail_registry_init(&r);
	TT_REQUIRE(ibf_health_fill(w.h, NULL, &r) == 0);
	TT_EQ_INT(r.nrails, 4);
	for (int l = 0; l < 4; l++)
		TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, l)], 100);
	ibf_rail_registry_free(&r);
	fx_free(&w);
	fx_free(&z);
	fx_free(&y);
	fx_free(&x);
}

/* Rails known from a mapping file that the first fabric lacks (lost before
 * the SM started) are gone from the start; labels the fabric has, repeated
 * ones and -1 (detect) are not; a later carry keeps them gone until back. */
static void test_expected_rails(void)
{
	struct ibf_health_opts o;
	ibf_health_opts_default(&o);
	o.alpha = 1;
	struct fx x, y;
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0); /* rails 0 and 1 */
	const int32_t lab[] = { 5, 1, -1, 3, 5, 0, 3 };
	TT_EQ_INT(ibf_health_expect(x.h, lab, 7), 0);
	TT_EQ_INT(ibf_health_ngone(x.h), 2);
	TT_EQ_INT(ibf_health_gone_label(x.h, 0), 3);
	TT_EQ_INT(ibf_health_gone_label(x.h, 1), 5);
	TT_EQ_INT(ibf_health_expect(x.h, lab, 0), 0);
	TT_EQ_INT(ibf_health_ngone(x.h), 2);
	struct ibf_rail_registry r;
	ibf_rail_registry_init(&r);
	TT_REQUIRE(ibf_health_fill(x.h, NULL, &r) == 0);
	TT_EQ_INT(r.nrails, 4);
	TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, 3)], 0);
	TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, 5)], 0);
	TT_EQ_INT(r.rail_score[ibf_rail_registry_find_rail(&r, 1)], 100);
	ibf_rail_registry_free(&r);
	/* rail 3 appears (4 rails now): only 5 stays gone */
	TT_REQUIRE(fx_init(&y, 4, 4, 2, &o) == 0);
	ibf_health_carry(y.h, x.h);
	TT_EQ_INT(ibf_health_ngone(y.h), 1);
	TT_EQ_INT(ibf_health_gone_label(y.h, 0), 5);
	fx_free(&y);
	fx_free(&x);
}

/* A mapping file's rail numbers become expected rails when at least one of
 * its lines names a node of the fabric (an absent server's rail 5 is lost);
 * a map none of whose lines matches (another fabric's) ties its numbers to
 * nothing: no rail is published as lost. */
static void test_expected_map(void)
{
	struct ibf_health_opts o;
	ibf_health_opts_default(&o);
	struct fx x;
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0); /* rails 0 and 1 */
	struct ibf_error err = { 0 };
	const char *none = "\"other01 mlx5_0\" a 5\n\"other01 mlx5_1\" a 7\n";
	struct ibf_rail_map *m = ibf_rail_map_parse(none, strlen(none), "none.map", &err);
	TT_REQUIRE(m);
	struct ibf_rail_info ri;
	TT_REQUIRE(ibf_rail_detect(x.f, m, &ri, &err) == 0);
	TT_EQ_INT(ri.unmatched, 2);
	TT_EQ_INT(ibf_health_expect_map(x.h, m, &ri), 1);
	TT_EQ_INT(ibf_health_ngone(x.h), 0);
	ibf_rail_info_free(&ri);
	ibf_rail_map_free(m);
	const char *some = "\"srv000 mlx5_0\" a 0\n\"other01 mlx5_0\" b 5\n\"other01 mlx5_1\" b -\n";
	m = ibf_rail_map_parse(some, strlen(some), "some.map", &err);
	TT_REQUIRE(m);
	TT_REQUIRE(ibf_rail_detect(x.f, m, &ri, &err) == 0);
	TT_EQ_INT(ri.unmatched, 2);
	TT_EQ_INT(ibf_health_expect_map(x.h, m, &ri), 0);
	TT_EQ_INT(ibf_health_ngone(x.h), 1);
	TT_EQ_INT(ibf_health_gone_label(x.h, 0), 5);
	ibf_rail_info_free(&ri);
	ibf_rail_map_free(m);
	TT_EQ_INT(ibf_health_expect_map(x.h, NULL, NULL), 0);
	fx_free(&x);
}

/* every sweep counts whole; avoided below 40 for 2 sweeps, used again above 70 */
static void avoid_opts(struct ibf_health_opts *o)
{
	ibf_health_opts_default(o);
	o->alpha = 1;
	o->avoid_below = 40;
	o->avoid_sweeps = 2;
	o->avoid_above = 70;
}

/* spines below avoid_below for avoid_sweeps sweeps are avoided, used again
 * only above avoid_above */
static void test_avoid_hysteresis(void)
{
	struct ibf_health_opts o;
	struct fx x;
	avoid_opts(&o);
	TT_REQUIRE(fx_init(&x, 4, 2, 2, &o) == 0);
	uint64_t data[2] = { 1000000, 1000000 }, wait[2] = { 0, 0 }, list[4];
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 0);
	spine_wait[0] = 9000000; /* score 10 */
	spine_wait[1] = 0;
	TT_EQ_INT(sweep(&x, data, wait, -1, 0), 1);
	TT_EQ_INT(ibf_health_spine_score(x.h, 0), 10);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 0); /* one sweep low: not yet */
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 1);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 1);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 0); /* cleared */
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 1);
	TT_CHECK(list[0] == ibf_health_spine_guid(x.h, 0));
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 0);
	/* between the thresholds: stays avoided */
	spine_wait[0] = 1000000; /* 50 */
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_score(x.h, 0), 50);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 1);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 0);
	/* the rails are not affected by the spines */
	TT_EQ_INT(ibf_health_score(x.h, 0), 100);
	/* above: used again */
	spine_wait[0] = 0;
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 0);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 1);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 0);
	/* a rebuilt fabric keeps the state */
	spine_wait[1] = 9000000;
	sweep(&x, data, wait, -1, 0);
	struct fx y;
	TT_REQUIRE(fx_init(&y, 4, 2, 2, &o) == 0);
	ibf_health_carry(y.h, x.h);
	sweep(&y, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(y.h, 1), 1); /* second low sweep, counted on */
	fx_free(&y);
	/* flapping between 0 and 100 never reaches two low sweeps in a row */
	spine_wait[1] = 0;
	sweep(&x, data, wait, -1, 0);
	ibf_health_avoid_changed(x.h);
	for (int i = 0; i < 6; i++) {
		spine_wait[0] = i % 2 ? 0 : 100000000;
		sweep(&x, data, wait, -1, 0);
		TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 0);
	}
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 0);
	spine_wait[0] = spine_wait[1] = 0;
	fx_free(&x);
	/* bad thresholds */
	o.avoid_above = 30;
	TT_CHECK(fx_init(&x, 4, 2, 2, &o) != 0 && !x.h);
	fx_free(&x);
}

/* At most avoid_max_pct % of the spines are avoided at once: four spines,
 * three of them low, two slots at 50 %: the two lowest scores are avoided,
 * the third is held in use; a worse spine that comes later does not take
 * an avoided spine's slot; when an avoided spine recovers, the held one
 * with the lowest score gets its slot. */
static void test_avoid_cap(void)
{
	struct ibf_health_opts o;
	struct fx x;
	avoid_opts(&o);
	TT_EQ_INT(o.avoid_max_pct, 50);
	TT_REQUIRE(fx_init(&x, 4, 2, 4, &o) == 0);
	TT_REQUIRE(ibf_health_nspines(x.h) == 4);
	uint64_t data[2] = { 1000000, 1000000 }, wait[2] = { 0, 0 };
	spine_wait[0] = 9000000;  /* 10 */
	spine_wait[1] = 19000000; /* 5 */
	spine_wait[2] = 4000000;  /* 20 */
	spine_wait[3] = 0;	  /* 100 */
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_held_changed(x.h), 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_score(x.h, 1), 5);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 2), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 2), 1);
	TT_EQ_INT(ibf_health_spine_held(x.h, 3), 0);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 1);
	TT_EQ_INT(ibf_health_held_changed(x.h), 1);
	TT_EQ_INT(ibf_health_held_changed(x.h), 0); /* cleared */
	/* what holds it: the cap over the one group (every rail has its 4
	 * spines and room for 2 of them) */
	{
		char note[96];
		int rail = 7, cap = 0, size = 0;
		TT_EQ_INT(ibf_health_spine_held_by(x.h, 2, &rail, &cap, &size), IBF_HELD_GROUP);
		TT_EQ_INT(rail, -1);
		TT_EQ_INT(cap, 2);
		TT_EQ_INT(size, 4);
		TT_EQ_INT(ibf_health_held_note(x.h, 2, note, sizeof(note)), IBF_HELD_GROUP);
		TT_CHECK_MSG(!strcmp(note, "held by the cap: 2 of the 4 spines"), "%s", note);
		TT_EQ_INT(ibf_health_held_note(x.h, 3, note, sizeof(note)), 0);
		TT_CHECK_MSG(!strcmp(note, ""), "%s", note);
		TT_EQ_INT(ibf_health_spine_held_by(x.h, 0, NULL, NULL, NULL), 0); /* avoided */
	}
	/* spine 3 drops lower than all: held too, nothing moves */
	spine_wait[3] = 99000000; /* 1 */
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 3), 1);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 0);
	TT_EQ_INT(ibf_health_held_changed(x.h), 1);
	uint64_t list[4];
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 2);
	/* spine 1 recovers: the lowest held one (3) takes its slot */
	spine_wait[1] = 0;
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 3), 1);
	TT_EQ_INT(ibf_health_spine_held(x.h, 3), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 2), 1);
	TT_EQ_INT(ibf_health_avoid_changed(x.h), 1);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 2);
	fx_free(&x);
	/* no cap: all three low spines (then four) go; 0 %: none */
	for (int pct = 0; pct <= 100; pct += 100) {
		o.avoid_max_pct = pct;
		TT_REQUIRE(fx_init(&x, 4, 2, 4, &o) == 0);
		spine_wait[1] = 19000000;
		spine_wait[3] = 0;
		sweep(&x, data, wait, -1, 0);
		sweep(&x, data, wait, -1, 0);
		TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), pct ? 3 : 0);
		TT_EQ_INT(ibf_health_spine_held(x.h, 0), pct ? 0 : 1);
		fx_free(&x);
	}
	spine_wait[0] = spine_wait[1] = spine_wait[2] = spine_wait[3] = 0;
	o.avoid_max_pct = 101;
	TT_CHECK(fx_init(&x, 4, 2, 4, &o) != 0 && !x.h);
	fx_free(&x);
}

/* The cap counts each spine group on its own: 4 rails, spines 0-1 joined
 * to rails 0-1 only, spines 2-3 to rails 2-3 only.  Both spines of the
 * first group low: one slot there (50 % of 2), so the lower one is avoided
 * and the other held, although the fabric as a whole has room for two
 * (the old global cap avoided both, leaving rails 0-1 without a spine); a
 * low spine of the second group takes that group's own slot; a slot that
 * frees goes to a held spine of the same group only. */
static void test_avoid_cap_groups(void)
{
	struct ibf_health_opts o;
	struct fx x;
	avoid_opts(&o);
	static const int two[4] = { 0, 0, 1, 1 };
	TT_REQUIRE(fx_init_cut(&x, 4, 4, 4, two, &o) == 0);
	TT_EQ_INT(x.ri.nspines, 4);
	TT_EQ_INT(x.ri.nspine_groups, 2);
	TT_EQ_INT(ibf_health_nspines(x.h), 4);
	TT_EQ_INT(ibf_health_ngroups(x.h), 2);
	char buf[32];
	for (int k = 0; k < 4; k++)
		TT_EQ_INT(ibf_health_spine_group(x.h, k), k / 2);
	TT_EQ_INT(ibf_health_group_size(x.h, 1), 2);
	TT_EQ_INT(ibf_health_group_rails(x.h, 0, buf, sizeof(buf)), 2);
	TT_CHECK_MSG(!strcmp(buf, "0,1"), "%s", buf);
	TT_EQ_INT(ibf_health_group_rails(x.h, 1, buf, sizeof(buf)), 2);
	TT_CHECK_MSG(!strcmp(buf, "2,3"), "%s", buf);
	TT_EQ_INT(ibf_health_group_rails(x.h, 1, buf, 2), 2); /* whole labels only */
	TT_CHECK_MSG(!strcmp(buf, "2"), "%s", buf);
	uint64_t data[4] = { 1000000, 1000000, 1000000, 1000000 }, wait[4] = { 0 }, list[4];
	spine_wait[0] = 9000000;  /* 10 */
	spine_wait[1] = 19000000; /* 5 */
	spine_wait[2] = spine_wait[3] = 0;
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 0), 1);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 1);
	TT_EQ_INT(ibf_health_held_changed(x.h), 1);
	/* held by its group's cap (the fabric has room), named with its rails */
	{
		char note[96];
		TT_EQ_INT(ibf_health_held_note(x.h, 0, note, sizeof(note)), IBF_HELD_GROUP);
		TT_CHECK_MSG(!strcmp(note, "held by the cap of group 0 (rails 0,1): 1 of its 2 "
					   "spines"),
			     "%s", note);
	}
	/* the other group has its own slot */
	spine_wait[2] = 4000000; /* 20 */
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 2), 1);
	TT_EQ_INT(ibf_health_spine_held(x.h, 0), 1);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 2);
	/* spine 3 low too: group 1 is full, held; the slot spine 1 frees goes
	 * to spine 0 (its group), not to spine 3 although it scores lower */
	spine_wait[3] = 99000000; /* 1 */
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 3), 1);
	spine_wait[1] = 0;
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 2), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 3), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 3), 1);
	fx_free(&x);
	/* rail_avoid_max 100: no cap, a whole group may go */
	o.avoid_max_pct = 100;
	TT_REQUIRE(fx_init_cut(&x, 4, 4, 4, two, &o) == 0);
	spine_wait[0] = 9000000;
	spine_wait[1] = 19000000;
	spine_wait[2] = spine_wait[3] = 0;
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 2);
	TT_EQ_INT(ibf_health_spine_held(x.h, 0), 0);
	fx_free(&x);
	/* a group of one spine (rails 2-3) is never avoided at 50 %: it is
	 * the only way between its rails */
	o.avoid_max_pct = 50;
	static const int lone[3] = { 0, 0, 1 };
	TT_REQUIRE(fx_init_cut(&x, 4, 4, 3, lone, &o) == 0);
	TT_EQ_INT(ibf_health_ngroups(x.h), 2);
	TT_EQ_INT(ibf_health_group_size(x.h, 1), 1);
	spine_wait[0] = spine_wait[1] = 0;
	spine_wait[2] = 19000000;
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 2), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 2), 1);
	fx_free(&x);
	/* a spine that lost a cable stays in the group of the others: one
	 * group, the cap as on the whole fabric */
	static const int damaged[4] = { -1, -1, -1, 0 };
	TT_REQUIRE(fx_init_cut(&x, 4, 4, 4, damaged, &o) == 0);
	TT_EQ_INT(x.ri.nspine_groups, 1);
	TT_EQ_INT(ibf_health_ngroups(x.h), 1);
	TT_EQ_INT(ibf_health_group_rails(x.h, 0, buf, sizeof(buf)), 4);
	TT_CHECK_MSG(!strcmp(buf, "0,1,2,3"), "%s", buf);
	/* ... but the rails 2 and 3 it lost have 3 spines, of which one may
	 * go: spines 0 and 1, the lowest, are not avoided together (the cap
	 * of the group, 2 of 4, let them), spine 3 takes the second slot */
	spine_wait[0] = 19000000; /* 5 */
	spine_wait[1] = 9000000;  /* 10 */
	spine_wait[2] = 0;
	spine_wait[3] = 4000000;  /* 20 */
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 1), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 3), 1);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 4), 2);
	fx_free(&x);
	spine_wait[0] = spine_wait[1] = spine_wait[2] = spine_wait[3] = 0;
	/* spine sets that overlap in a chain: spines 0-1 on rails 0-1, 2-3
	 * on rails 1-2, 4-5 on rails 2-3: one group of 6 (cap 3), but rail 0
	 * has only spines 0 and 1: with both avoided, hratio has no spine
	 * left for rail 0 and keeps its paths on them.  Per rail, one of the
	 * two goes, the other is held, and spines of the other rails take
	 * the free slots */
	static const unsigned chain[6] = { 0x3, 0x3, 0x6, 0x6, 0xc, 0xc };
	TT_REQUIRE(fx_init_keep(&x, 4, 4, 6, chain, &o) == 0);
	TT_EQ_INT(x.ri.nspine_groups, 1);
	TT_EQ_INT(ibf_health_ngroups(x.h), 1);
	TT_EQ_INT(ibf_health_group_size(x.h, 0), 6);
	spine_wait[0] = 99000000; /* 1 */
	spine_wait[1] = 49000000; /* 2 */
	spine_wait[3] = 19000000; /* 5 */
	spine_wait[4] = 9000000;  /* 10 */
	sweep(&x, data, wait, -1, 0);
	sweep(&x, data, wait, -1, 0);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 0), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 1), 0);
	TT_EQ_INT(ibf_health_spine_held(x.h, 1), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 3), 1);
	TT_EQ_INT(ibf_health_spine_avoided(x.h, 4), 1);
	TT_EQ_INT(ibf_health_avoid_list(x.h, list, 6), 3);
	/* spine 1 is held by rail 0's cap (the group of 6 had 3 slots, 1 was
	 * taken when spine 1 came), and the note says so */
	{
		char note[96];
		int rail = -1, cap = 0, size = 0;
		TT_EQ_INT(ibf_health_spine_held_by(x.h, 1, &rail, &cap, &size), IBF_HELD_RAIL);
		TT_EQ_INT(rail, 0);
		TT_EQ_INT(cap, 1);
		TT_EQ_INT(size, 2);
		TT_EQ_INT(ibf_health_held_note(x.h, 1, note, sizeof(note)), IBF_HELD_RAIL);
		TT_CHECK_MSG(!strcmp(note, "held by the cap of rail 0: 1 of its 2 spines"), "%s",
			     note);
	}
	fx_free(&x);
	spine_wait[0] = spine_wait[1] = spine_wait[3] = spine_wait[4] = 0;
	/* no spines: no group */
	TT_REQUIRE(fx_init(&x, 2, 1, 0, &o) == 0);
	TT_EQ_INT(ibf_health_ngroups(x.h), 0);
	TT_EQ_INT(ibf_health_spine_group(x.h, 0), -1);
	fx_free(&x);
	spine_wait[0] = spine_wait[1] = spine_wait[2] = spine_wait[3] = 0;
}

int main(void)
{
	TT(test_avoid_hysteresis);
	TT(test_avoid_cap);
	TT(test_avoid_cap_groups);
	TT(test_formula);
	TT(test_options);
	TT(test_sweeps_and_smoothing);
	TT(test_percentile_and_missing);
	TT(test_reset_and_wrap);
	TT(test_delta_mode);
	TT(test_registry_fill);
	TT(test_gone_rails);
	TT(test_expected_rails);
	TT(test_expected_map);
	return tt_done();
}
