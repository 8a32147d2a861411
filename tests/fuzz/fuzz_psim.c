/* Fuzz target: the packet-level simulator (sim/packet.c).
 *
 * The input is a small text of `key value...` lines (unknown keys and
 * lines without a value are skipped) that picks one of a few tiny fabrics
 * (the base HyperX 3x2, a 2-host star with two link rates, a ring of five
 * switches with one host link of unknown rate, a 2-level fat tree, a
 * single switch with three hosts), its LMC, the engine (minimal or dmodk)
 * and optionally a deadlock scheme whose SLs and SL2VL tables the run
 * uses, then every simulator option: load, packet and buffer sizes, VLs,
 * arbitration, iSLIP, delays, stall time, the window (kept to a few
 * microseconds so one execution stays in the millisecond range), pattern
 * traffic, message streams (phases, messages, repeats, barrier or rank
 * sync, compute and reduction per phase) and the node model.  Values the
 * library must reject (NaN, negative, out of range) are passed as they
 * are; only finite values that would make a run long are clamped.
 *
 * After a successful run the result's invariants are checked and a broken
 * one aborts: finite numbers, consistent packet counts, utilisations at
 * most 1, accepted bytes at most what the hosts' links take in over the
 * window (accepted load at most 1 when every host sends), accepted at most
 * offered when the window starts at 0, ordered latency percentiles, a reported deadlock cycle that is a
 * chain of real cables closing on itself, no deadlock with tables of a
 * scheme that claims deadlock freedom, message-stream and node-model
 * bookkeeping, the same result twice, and the JSON report parsing.
 *
 * FUZZ_PSIM_DEBUG=1 tests/fuzz/replay psim FILE prints each run's JSON
 * report and per-phase times on stderr (nothing is printed without it). */
#include "fuzz.h"
#include "ibf_json.h"
#include "ibf_sim.h"
#include "ibf_sim_packet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTOPO 5
#define MAXLMC 2
#define NENG 2
#define NSCHEME 3

struct tcase {
	struct ibf_fabric *f;
	struct ibf_routes r;
	int routed; /* 1 ok, -1 failed */
	int dl;	    /* SL tables present */
	int dl_free;
	int dl_vls;
	struct ibf_sl_table sl;
	struct ibf_sl2vl_table s2v;
	double recv_gbps; /* every host's link rate, as the simulator rounds it */
};
static struct tcase cases[NTOPO][MAXLMC + 1][NENG][NSCHEME];
static struct ibf_fabric *fabrics[NTOPO][MAXLMC + 1];

static int add(struct ibf_fabric *f, int type, int nports, uint64_t guid, const char *desc)
{
	int n = ibf_fabric_add_node(f, type, nports, guid, desc, NULL, NULL);
	if (n < 0)
		abort();
	return n;
}

static void wire(struct ibf_fabric *f, int a, int pa, int b, int pb, int w, int sp)
{
	if (ibf_fabric_connect(f, a, pa, b, pb, w, sp, NULL))
		abort();
}

static struct ibf_fabric *make_topo(int t)
{
	struct ibf_fabric *f = NULL;
	switch (t) {
	case 0:
		return fuzz_base_copy();
	case 1: { /* star: one switch, two hosts at different rates */
		f = ibf_fabric_new();
		if (!f)
			abort();
		int s = add(f, IBF_NODE_SWITCH, 4, 0x100, "star-sw");
		int a = add(f, IBF_NODE_CA, 1, 0x200, "star-h0");
		int b = add(f, IBF_NODE_CA, 1, 0x201, "star-h1");
		wire(f, s, 1, a, 1, 4, IBF_SPEED_EDR);
		wire(f, s, 2, b, 1, 4, IBF_SPEED_QDR);
		break;
	}
	case 2: { /* ring of five switches (minimal routes go one way round:
		   * it can deadlock), one host each (one of unknown rate) */
		f = ibf_fabric_new();
		if (!f)
			abort();
		int sw[5];
		char d[32];
		for (int i = 0; i < 5; i++) {
			snprintf(d, sizeof(d), "ring-sw%d", i);
			sw[i] = add(f, IBF_NODE_SWITCH, 4, 0x300 + (uint64_t)i, d);
		}
		for (int i = 0; i < 5; i++)
			wire(f, sw[i], 1, sw[(i + 1) % 5], 2, 4, IBF_SPEED_EDR);
		for (int i = 0; i < 5; i++) {
			snprintf(d, sizeof(d), "ring-h%d", i);
			int h = add(f, IBF_NODE_CA, 1, 0x400 + (uint64_t)i, d);
			if (i == 3)
				wire(f, sw[i], 3, h, 1, 0, 0);
			else
				wire(f, sw[i], 3, h, 1, 4, IBF_SPEED_HDR);
		}
		break;
	}
	case 3: { /* 2-level fat tree: 2 leaves of 2 hosts, 2 spines */
		struct ibf_fattree_opts o = { .levels = 2, .parallel = 1 };
		o.m[0] = 2;
		o.m[1] = 2;
		o.w[0] = 1;
		o.w[1] = 2;
		f = ibf_gen_fattree(&o, NULL);
		if (!f)
			abort();
		break;
	}
	default: { /* one switch, three hosts, one at 1xSDR */
		f = ibf_fabric_new();
		if (!f)
			abort();
		int s = add(f, IBF_NODE_SWITCH, 8, 0x500, "tri-sw");
		for (int i = 0; i < 3; i++) {
			int h = add(f, IBF_NODE_CA, 1, 0x600 + (uint64_t)i, "tri-h");
			wire(f, s, 2 * i + 1, h, 1, i == 2 ? 1 : 4,
			     i == 2 ? IBF_SPEED_SDR : IBF_SPEED_NDR);
		}
		break;
	}
	}
	if (!f->finalized && ibf_fabric_finalize(f, NULL))
		abort();
	return f;
}

static struct ibf_fabric *fabric_for(int t, int lmc)
{
	if (!fabrics[t][lmc]) {
		struct ibf_fabric *f = make_topo(t);
		if (ibf_assign_lids(f, lmc, 0, NULL))
			abort();
		fabrics[t][lmc] = f;
	}
	return fabrics[t][lmc];
}

static struct tcase *case_for(int t, int lmc, int eng, int scheme, int dlvls)
{
	struct tcase *c = &cases[t][lmc][eng][scheme];
	if (c->routed)
		return c->routed > 0 ? c : NULL;
	c->f = fabric_for(t, lmc);
	struct ibf_route_opts ro;
	ibf_route_opts_default(&ro);
	ro.threads = 1;
	if (ibf_route(c->f, eng ? "dmodk" : "minimal", &ro, &c->r, NULL, NULL) &&
	    (!eng || ibf_route(c->f, "minimal", &ro, &c->r, NULL, NULL))) {
		c->routed = -1;
		return NULL;
	}
	c->routed = 1;
	struct ibf_sim_net net;
	if (ibf_sim_net_init(&net, c->f, &c->r, IBF_CONG_ORDER_FABRIC, NULL))
		abort();
	for (uint32_t h = 0; h < net.nhosts; h++)
		c->recv_gbps += (double)(uint32_t)(net.cap[net.down[h]] * 10.0 + 0.5) / 10.0;
	ibf_sim_net_free(&net);
	if (!scheme)
		return c;
	struct ibf_dl_opts o;
	ibf_dl_opts_default(&o);
	o.scheme = scheme == 1 ? IBF_DEADLOCK_DFSSSP : IBF_DEADLOCK_COLORING;
	o.max_vls = dlvls;
	struct ibf_dl *dl = NULL;
	if (ibf_deadlock_apply(c->f, &c->r, &o, &dl, NULL))
		return c; /* the run goes without SL tables */
	if (!ibf_sl_table_from_dl(c->f, dl, &c->sl, NULL)) {
		if (!ibf_sl2vl_table_from_dl(c->f, dl, &c->s2v, NULL)) {
			c->dl = 1;
			c->dl_free = dl->deadlock_free;
			c->dl_vls = dl->vls;
		} else {
			ibf_sl_table_free(&c->sl);
		}
	}
	ibf_dl_free(dl);
	return c;
}

/* ------------------------------------------------------------ input */

#define MAXMSG 64
#define MAXPH 8
#define MAXDST 64

struct in {
	int topo, lmc, eng, scheme, dlvls, twice, write, use_compute, rawhosts;
	struct ibf_psim_opts o;
	/* pattern */
	uint32_t ndst, dh[MAXDST], dd[MAXDST];
	int pattern;
	/* streams */
	int streams;
	uint32_t nph, nmsg;
	uint32_t ph_first[MAXPH], rep[MAXPH];
	double comp[MAXPH], red[MAXPH];
	struct ibf_psim_msg msg[MAXMSG];
	uint32_t msg_ph[MAXMSG];
	int sync;
};

/* finite values above hi become hi (keeps the run short); NaN, negative
 * and infinite values go through for the library to refuse */
static double clampd(double v, double hi)
{
	return isfinite(v) && v > hi ? hi : v;
}

static uint64_t clampu(double v, uint64_t hi)
{
	if (!(v >= 0))
		return 0;
	return v > (double)hi ? hi : (uint64_t)v;
}

static void parse(struct in *p, char *text)
{
	struct ibf_psim_opts *o = &p->o;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char key[16];
		int kn = 0;
		while (*line == ' ' || *line == '\t')
			line++;
		while (*line && *line != ' ' && *line != '\t' && kn < 15)
			key[kn++] = *line++;
		key[kn] = 0;
		double v[4] = { 0, 0, 0, 0 };
		int nv = 0;
		char word[16] = "";
		while (nv < 4) {
			while (*line == ' ' || *line == '\t')
				line++;
			if (!*line)
				break;
			char *e;
			v[nv] = strtod(line, &e);
			if (e == line) {
				if (!nv)
					sscanf(line, "%15s", word);
				break;
			}
			nv++;
			line = e;
		}
		if (!nv && !word[0] && strcmp(key, "phase") && strcmp(key, "twice") &&
		    strcmp(key, "write") && strcmp(key, "compute"))
			continue;
		double x = v[0];
		if (!strcmp(key, "topo"))
			p->topo = (int)clampu(x, NTOPO - 1);
		else if (!strcmp(key, "lmc"))
			p->lmc = (int)clampu(x, MAXLMC);
		else if (!strcmp(key, "engine"))
			p->eng = !strcmp(word, "dmodk") || x == 1;
		else if (!strcmp(key, "scheme"))
			p->scheme = !strcmp(word, "dfsssp") ? 1 :
				    !strcmp(word, "coloring") ? 2 :
								(int)clampu(x, NSCHEME - 1);
		else if (!strcmp(key, "dlvls"))
			p->dlvls = (int)clampu(x, 15);
		else if (!strcmp(key, "twice"))
			p->twice = 1;
		else if (!strcmp(key, "write"))
			p->write = 1;
		else if (!strcmp(key, "compute"))
			p->use_compute = 1;
		else if (!strcmp(key, "seed"))
			o->seed = clampu(x, UINT64_MAX / 2);
		else if (!strcmp(key, "load"))
			o->load = x;
		else if (!strcmp(key, "mtu"))
			o->mtu_payload = (uint32_t)clampu(x, 1u << 20);
		else if (!strcmp(key, "hdr"))
			o->hdr_bytes = (uint32_t)clampu(x, 1u << 20);
		else if (!strcmp(key, "buf"))
			o->buf_bytes = (uint32_t)clampu(x, 1u << 31);
		else if (!strcmp(key, "vls"))
			o->vls = (int)(x >= -100 && x <= 100 ? x : 99);
		else if (!strcmp(key, "arb"))
			o->arb = !strcmp(word, "age") || x == 1;
		else if (!strcmp(key, "islip"))
			o->islip_iters = (int)(x >= -100 && x <= 100 ? x : 99);
		else if (!strcmp(key, "warmup"))
			o->warmup_ns = clampd(x, 3000);
		else if (!strcmp(key, "measure"))
			o->measure_ns = clampd(x, 6000);
		else if (!strcmp(key, "drain"))
			o->drain_ns = clampd(x, 6000);
		else if (!strcmp(key, "router"))
			o->router_ns = clampd(x, 1e6);
		else if (!strcmp(key, "nspm"))
			o->ns_per_m = clampd(x, 1e3);
		else if (!strcmp(key, "hostm"))
			o->host_cable_m = clampd(x, 1e3);
		else if (!strcmp(key, "swm"))
			o->switch_cable_m = clampd(x, 1e3);
		else if (!strcmp(key, "stall"))
			o->stall_ns = clampd(x, 1e7);
		else if (!strcmp(key, "srcq"))
			o->srcq_max = (uint32_t)clampu(x, 4096);
		else if (!strcmp(key, "maxcycle"))
			o->max_cycle = (uint32_t)clampu(x, 4096);
		else if (!strcmp(key, "dst") && nv >= 2 && p->ndst < MAXDST) {
			p->pattern = 1;
			p->dh[p->ndst] = (uint32_t)clampu(v[0], 1000);
			p->dd[p->ndst] = (uint32_t)clampu(v[1], 1000);
			p->ndst++;
		} else if (!strcmp(key, "pattern"))
			p->pattern = 1;
		else if (!strcmp(key, "rawhosts"))
			p->rawhosts = 1;
		else if (!strcmp(key, "sync")) {
			p->streams = 1;
			p->sync = !strcmp(word, "rank") ? 1 : !strcmp(word, "barrier") ? 0 : (int)(x >= -100 && x <= 100 ? x : 99);
		} else if (!strcmp(key, "phase") && p->nph < MAXPH) {
			p->streams = 1;
			p->ph_first[p->nph] = p->nmsg;
			p->rep[p->nph] = nv >= 1 ? (uint32_t)clampu(v[0], 100000) : 1;
			p->comp[p->nph] = nv >= 2 ? clampd(v[1], 1e6) : 0;
			p->red[p->nph] = nv >= 3 ? v[2] : 0;
			p->nph++;
		} else if (!strcmp(key, "msg") && nv >= 3 && p->nmsg < MAXMSG) {
			p->streams = 1;
			if (!p->nph) {
				p->ph_first[0] = 0;
				p->rep[0] = 1;
				p->nph = 1;
			}
			struct ibf_psim_msg *m = &p->msg[p->nmsg];
			m->src = (uint32_t)clampu(v[0], 1000);
			m->dst = (uint32_t)clampu(v[1], 1000);
			m->bytes = clampu(v[2], 1u << 20);
			m->gbps = nv >= 4 ? v[3] : 0;
			p->msg_ph[p->nmsg] = p->nph - 1;
			p->nmsg++;
		} else if (!strcmp(key, "accels"))
			o->accels = (int)(x >= -100 && x <= 4 ? x : 4);
		else if (!strcmp(key, "accgbps"))
			o->acc_gbps = clampd(x, 2000);
		else if (!strcmp(key, "nicgbps"))
			o->nic_gbps = clampd(x, 2000);
		else if (!strcmp(key, "ipkt"))
			o->ipkt_payload = (uint32_t)clampu(x, 1u << 20);
		else if (!strcmp(key, "ihdr"))
			o->ipkt_hdr = (uint32_t)clampu(x, 1u << 20);
		else if (!strcmp(key, "msgbytes"))
			o->msg_bytes = (uint32_t)clampu(x, 1u << 25);
		else if (!strcmp(key, "inter"))
			o->inter_frac = x;
		else if (!strcmp(key, "hop"))
			o->node_hop_ns = clampd(x, 1e6);
		else if (!strcmp(key, "nicagg"))
			o->nic_agg_ns = clampd(x, 1e6);
		else if (!strcmp(key, "nicsplit"))
			o->nic_split_ns = clampd(x, 1e6);
		else if (!strcmp(key, "nodebuf"))
			o->node_buf_bytes = (uint32_t)clampu(x, 1u << 30);
		else if (!strcmp(key, "nicbuf"))
			o->nic_buf_bytes = (uint32_t)clampu(x, 1u << 30);
		else if (!strcmp(key, "nicpkt"))
			o->nic_pkt_ns = clampd(x, 1e6);
		else if (!strcmp(key, "aggto"))
			o->agg_timeout_ns = clampd(x, 1e6);
		else if (!strcmp(key, "accpkt"))
			o->acc_pkt_ns = clampd(x, 1e7);
		else if (!strcmp(key, "nodevls"))
			o->node_vls = (int)(x >= -100 && x <= 100 ? x : 99);
		else if (!strcmp(key, "voq"))
			o->node_voq = x != 0;
	}
}

/* ------------------------------------------------------------ invariants */

static void fail(const char *what, double a, double b)
{
	fprintf(stderr, "fuzz psim: invariant broken: %s (%.17g, %.17g)\n", what, a, b);
	abort();
}

#define CHECK(cond, what, a, b)                 \
	do {                                    \
		if (!(cond))                    \
			fail(what, (double)(a), (double)(b)); \
	} while (0)

static void fin(double v, const char *what)
{
	CHECK(isfinite(v), what, v, 0);
}

static void check_result(const struct ibf_fabric *f, const struct in *p,
			 const struct ibf_psim_opts *o, const struct ibf_psim_result *r,
			 int dl_free_tables, double recv_gbps)
{
	const double E = 1e-9;
	fin(r->host_gbps, "host_gbps finite");
	fin(r->sim_ns, "sim_ns finite");
	fin(r->offered_frac, "offered finite");
	fin(r->accepted_frac, "accepted finite");
	fin(r->accepted_gbps, "accepted_gbps finite");
	fin(r->lat_mean, "lat_mean finite");
	fin(r->lat_p50, "lat_p50 finite");
	fin(r->lat_p99, "lat_p99 finite");
	fin(r->lat_max, "lat_max finite");
	fin(r->hops_mean, "hops_mean finite");
	fin(r->link_util_max, "link_util_max finite");
	CHECK(r->sim_ns >= 0, "sim_ns >= 0", r->sim_ns, 0);
	/* 0 when a pattern leaves every host silent */
	CHECK(r->host_gbps >= 0, "host_gbps >= 0", r->host_gbps, 0);
	/* packet counts */
	CHECK(r->delivered + r->src_dropped + r->unroutable <= r->generated,
	      "delivered + dropped <= generated", r->delivered + r->src_dropped + r->unroutable,
	      r->generated);
	CHECK(r->measured_done <= r->measured, "measured delivered <= measured", r->measured_done,
	      r->measured);
	CHECK(r->measured <= r->generated, "measured <= generated", r->measured, r->generated);
	CHECK(r->unroutable_vl <= r->unroutable, "unroutable_vl <= unroutable", r->unroutable_vl,
	      r->unroutable);
	/* utilisations */
	CHECK(r->offered_frac >= 0, "offered >= 0", r->offered_frac, 0);
	CHECK(r->accepted_frac >= 0 && r->accepted_gbps >= 0, "accepted >= 0", r->accepted_frac,
	      r->accepted_gbps);
	/* Each host takes in at most its link's rate over the window (a
	 * packet's bytes count over its last link's busy time), so the hosts
	 * together take in at most the sum of their rates: accepted <= 1 when
	 * every host sends.  With silent hosts (a pattern) the senders' rates
	 * are the capacity and accepted may pass 1 in a window a few packet
	 * times long: bytes that were in the switches at its start, or a
	 * packet from a slow host that a switch buffered through its router
	 * delay and passed on to a faster host in one burst.  Not with the
	 * node model, whose NIC links may carry more than the hosts offer in
	 * the window (aggregation). */
	if (!o->accels)
		CHECK(r->accepted_frac * r->host_gbps <= recv_gbps * (1 + E) + E,
		      "accepted <= the hosts' rates", r->accepted_frac * r->host_gbps, recv_gbps);
	if (!o->accels && !o->stream && o->warmup_ns == 0)
		CHECK(r->accepted_frac <= r->offered_frac + 1e-9, "accepted <= offered (warm-up 0)",
		      r->accepted_frac, r->offered_frac);
	CHECK(r->link_util_max >= 0 && r->link_util_max <= 1 + 1e-6, "link_util_max in [0,1]",
	      r->link_util_max, 0);
	for (int v = 0; v < 16; v++) {
		fin(r->vl_util[v], "vl_util finite");
		CHECK(r->vl_util[v] >= 0 && r->vl_util[v] <= 1 + 1e-6, "vl_util in [0,1]", v,
		      r->vl_util[v]);
	}
	if (r->nlinks) {
		CHECK(r->link_util && r->link_gbps && r->nlinks == f->nports_total,
		      "link arrays", r->nlinks, f->nports_total);
		for (uint32_t g = 0; g < r->nlinks; g++) {
			CHECK(isfinite(r->link_util[g]) && r->link_util[g] >= 0 &&
				      r->link_util[g] <= 1 + 1e-5,
			      "link_util in [0,1]", g, r->link_util[g]);
			CHECK(isfinite(r->link_gbps[g]) && r->link_gbps[g] >= 0, "link_gbps", g,
			      r->link_gbps[g]);
		}
	}
	/* latency */
	if (r->measured_done) {
		CHECK(r->lat_p50 <= r->lat_p99 + 1e-9 && r->lat_p99 <= r->lat_max + 1e-9,
		      "p50 <= p99 <= max", r->lat_p50, r->lat_max);
		CHECK(r->lat_mean > 0 && r->lat_mean <= r->lat_max + 1e-6, "0 < mean <= max",
		      r->lat_mean, r->lat_max);
		CHECK(r->hops_mean >= 0 && r->hops_mean <= 64, "hops in [0,64]", r->hops_mean, 0);
	}
	/* deadlock */
	if (r->deadlock) {
		CHECK(r->deadlock_ns >= 0 && r->deadlock_ns <= r->sim_ns + 1e-6,
		      "deadlock time in the run", r->deadlock_ns, r->sim_ns);
		CHECK(r->cycle_len <= o->max_cycle, "cycle_len <= max_cycle", r->cycle_len,
		      o->max_cycle);
		CHECK(!r->deadlock_partial || r->cycle_len, "partial deadlock has a cycle",
		      r->cycle_len, 0);
		CHECK(!r->cycle_len || r->cycle, "cycle array", r->cycle_len, 0);
		for (uint32_t k = 0; k < r->cycle_len; k++) {
			const struct ibf_psim_buf *b = &r->cycle[k];
			CHECK(b->node >= 0 && (uint32_t)b->node < f->nnodes && b->from_node >= 0 &&
				      (uint32_t)b->from_node < f->nnodes,
			      "cycle nodes", b->node, b->from_node);
			CHECK(f->nodes[b->node].type == IBF_NODE_SWITCH, "cycle buffer in a switch",
			      b->node, 0);
			CHECK(b->port >= 1 && b->port <= f->nodes[b->node].nports &&
				      b->from_port >= 1 &&
				      b->from_port <= f->nodes[b->from_node].nports,
			      "cycle ports", b->port, b->from_port);
			const struct ibf_port *up = ibf_port(f, b->from_node, b->from_port);
			CHECK(up->peer_node == b->node && up->peer_port == b->port,
			      "cycle buffer fed by its cable", b->node, b->port);
			CHECK(b->vl < o->vls, "cycle VL < vls", b->vl, o->vls);
			CHECK(b->pkts >= 1, "cycle buffer holds a packet", k, b->pkts);
			if (k + 1 < r->cycle_len)
				CHECK(r->cycle[k + 1].from_node == b->node,
				      "cycle buffer waits on the next", k, r->cycle[k + 1].from_node);
		}
		if (r->cycle_len && r->cycle_len < o->max_cycle)
			CHECK(r->cycle[0].from_node == r->cycle[r->cycle_len - 1].node,
			      "cycle closes", r->cycle[0].from_node, r->cycle[r->cycle_len - 1].node);
	} else {
		CHECK(r->cycle_len == 0, "no deadlock, no cycle", r->cycle_len, 0);
	}
	if (dl_free_tables)
		CHECK(!r->deadlock || !r->cycle_len, "deadlock cycle with deadlock-free tables",
		      r->cycle_len, r->deadlock_ns);
	/* message streams */
	if (o->stream) {
		const struct ibf_psim_stream *s = o->stream;
		CHECK(r->nphases == s->nphases && r->phases_done <= r->nphases,
		      "phases done <= phases", r->phases_done, r->nphases);
		CHECK(r->phase_ns && r->phase_reps && r->phase_caps, "phase arrays", 0, 0);
		uint64_t steps = 0;
		double payload = 0;
		int all = r->phases_done == r->nphases;
		for (uint32_t k = 0; k < r->nphases; k++) {
			const struct ibf_psim_phase_reps *pr = &r->phase_reps[k];
			const struct ibf_psim_phase_caps *pc = &r->phase_caps[k];
			fin(r->phase_ns[k], "phase_ns finite");
			CHECK(r->phase_ns[k] == -1 || r->phase_ns[k] >= 0, "phase_ns", k,
			      r->phase_ns[k]);
			CHECK(pr->reps == (s->repeat ? s->repeat[k] : 1) && pr->done <= pr->reps,
			      "phase reps", pr->done, pr->reps);
			CHECK(!all || pr->done == pr->reps, "all phases done, all reps done", pr->done,
			      pr->reps);
			fin(pr->sum_ns, "rep sum finite");
			CHECK(pr->done || (pr->sum_ns == 0 && pr->min_ns == -1 && pr->max_ns == -1),
			      "no rep done: sum 0, min/max -1", pr->sum_ns, pr->min_ns);
			if (pr->done)
				CHECK(pr->min_ns >= 0 && pr->min_ns <= pr->max_ns + 1e-9 &&
					      pr->max_ns <= pr->sum_ns + 1e-6,
				      "rep min <= max <= sum", pr->min_ns, pr->max_ns);
			CHECK(pc->capped_done <= pc->capped, "capped done <= capped", pc->capped_done,
			      pc->capped);
			if (pc->capped_done) {
				fin(pc->gbps_mean, "cap rate finite");
				fin(pc->ratio_max, "cap ratio finite");
				CHECK(pc->gbps_min <= pc->gbps_mean * (1 + 1e-9) &&
					      pc->gbps_mean <= pc->gbps_max * (1 + 1e-9),
				      "cap min <= mean <= max", pc->gbps_min, pc->gbps_max);
				CHECK(pc->ratio_max <= 1 + 1e-6, "cap achieved <= cap", pc->ratio_max,
				      0);
			}
			steps += pr->reps;
			for (uint32_t m = s->off[k]; m < s->off[k + 1]; m++)
				payload += (double)s->msg[m].bytes * pr->done;
		}
		/* barrier: the steps run back to back from time 0, a phase's
		 * time is the sum of its repetitions' */
		if (s->sync == IBF_PSIM_SYNC_BARRIER) {
			double sum = 0;
			for (uint32_t k = 0; k < r->nphases; k++) {
				const struct ibf_psim_phase_reps *pr = &r->phase_reps[k];
				sum += pr->sum_ns;
				if (r->phase_ns[k] >= 0)
					CHECK(pr->done == pr->reps &&
						      fabs(r->phase_ns[k] - pr->sum_ns) <=
							      1e-6 * (1 + pr->sum_ns),
					      "barrier: phase time = its repetitions' sum",
					      r->phase_ns[k], pr->sum_ns);
			}
			CHECK(sum <= r->sim_ns * (1 + 1e-9) + 1e-3,
			      "barrier: the steps fit in the run", sum, r->sim_ns);
		}
		if (r->phase_compute_ns)
			for (uint32_t k = 0; k < r->nphases; k++)
				CHECK(isfinite(r->phase_compute_ns[k]) && r->phase_compute_ns[k] >= 0,
				      "phase compute", k, r->phase_compute_ns[k]);
		/* every payload byte of a stream that finished inside the window
		 * (it ends at warm-up + measure; the drain runs past it) was
		 * carried at accepted_gbps over the run */
		if (all && !r->unroutable && !r->deadlock && r->sim_ns > 0 &&
		    r->sim_ns <= o->warmup_ns + o->measure_ns) {
			double got = r->accepted_gbps * r->sim_ns / 8;
			CHECK(fabs(got - payload) <= 0.01 * payload + 1,
			      "stream payload = accepted_gbps x time", got, payload);
		}
		if (s->sync == IBF_PSIM_SYNC_RANK) {
			CHECK(r->steps == steps, "rank steps", r->steps, steps);
			CHECK(r->host_steps && r->host_end_ns && r->phase_rank, "rank arrays", 0, 0);
			for (uint32_t h = 0; h < r->nhosts; h++) {
				CHECK(r->host_steps[h] <= steps, "host steps <= steps", h,
				      r->host_steps[h]);
				CHECK(r->host_end_ns[h] == -1 ||
					      (r->host_end_ns[h] >= 0 &&
					       r->host_end_ns[h] <= r->sim_ns + 1e-6),
				      "host end in the run", h, r->host_end_ns[h]);
			}
			fin(r->rank_total_ns, "rank total finite");
		}
	}
	/* node model */
	if (o->accels) {
		fin(r->intra_gbps, "intra finite");
		fin(r->inter_gbps, "inter finite");
		fin(r->ilat_mean, "ilat finite");
		fin(r->agg_mean, "agg finite");
		CHECK(r->intra_gbps >= 0 && r->inter_gbps >= 0 &&
			      r->intra_gbps + r->inter_gbps <= r->node_max_gbps * (1 + 1e-9),
		      "intra + inter <= node capacity", r->intra_gbps + r->inter_gbps,
		      r->node_max_gbps);
		CHECK(r->inter_gbps <= r->host_gbps * (1 + 1e-9), "inter <= host capacity",
		      r->inter_gbps, r->host_gbps);
		CHECK(r->ipkts_done <= r->ipkts_measured, "ipkts done <= measured", r->ipkts_done,
		      r->ipkts_measured);
		CHECK(r->n_inter + r->n_intra <= r->ipkts_done, "n_inter + n_intra <= done",
		      r->n_inter + r->n_intra, r->ipkts_done);
		if (r->ipkts_done)
			CHECK(r->ilat_p50 <= r->ilat_p99 + 1e-9, "ilat p50 <= p99", r->ilat_p50,
			      r->ilat_p99);
		for (int c = 0; c < 7; c++)
			CHECK(isfinite(r->comp_inter[c]) && r->comp_inter[c] >= -1e-9,
			      "inter component", c, r->comp_inter[c]);
		for (int c = 0; c < 2; c++)
			CHECK(isfinite(r->comp_intra[c]) && r->comp_intra[c] >= -1e-9,
			      "intra component", c, r->comp_intra[c]);
	}
	(void)p;
}

/* the same inputs give the same result (the wall time aside) */
static void check_same(const struct ibf_psim_result *a, const struct ibf_psim_result *b)
{
#define SAME(x) CHECK(a->x == b->x, "same result twice: " #x, a->x, b->x)
	SAME(generated);
	SAME(delivered);
	SAME(src_dropped);
	SAME(unroutable);
	SAME(measured);
	SAME(measured_done);
	SAME(events);
	SAME(pkt_hops);
	SAME(sim_ns);
	SAME(accepted_frac);
	SAME(offered_frac);
	SAME(lat_mean);
	SAME(lat_max);
	SAME(deadlock);
	SAME(cycle_len);
	SAME(phases_done);
	SAME(credit_stalls);
	SAME(ipkts_done);
#undef SAME
}

static void check_json(const struct ibf_fabric *f, const struct ibf_psim_result *r, int vls)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		return;
	ibf_psim_result_write_json(f, r, vls, fp);
	if (fclose(fp)) {
		free(buf);
		return;
	}
	struct ibf_error err;
	memset(&err, 0, sizeof(err));
	struct ibf_jval *j = ibf_json_parse(buf, len, "psim", &err);
	if (!j) {
		fprintf(stderr, "fuzz psim: the JSON report does not parse: %s\n%.*s\n", err.msg,
			(int)(len > 2000 ? 2000 : len), buf);
		abort();
	}
	ibf_json_free(j);
	free(buf);
	fp = open_memstream(&buf, &len);
	if (!fp)
		return;
	ibf_psim_result_write_text(f, r, vls, fp);
	fclose(fp);
	free(buf);
}

FUZZ_TARGET(psim)
{
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct in *p = calloc(1, sizeof(*p));
	if (!p) {
		free(text);
		return 0;
	}
	struct ibf_psim_opts *o = &p->o;
	ibf_psim_opts_default(o);
	/* small defaults: the window a few microseconds */
	o->warmup_ns = 500;
	o->measure_ns = 2000;
	o->drain_ns = 2000;
	o->stall_ns = 20000;
	o->buf_bytes = 16384;
	o->mtu_payload = 1024;
	p->dlvls = 8;
	parse(p, text);
	free(text);
	/* one execution stays short: packets of at least 64 bytes (fabric and
	 * intra-node), at most 4 accelerators per node */
	if ((uint64_t)o->mtu_payload + o->hdr_bytes < 64)
		o->mtu_payload = 64 - o->hdr_bytes;
	if (o->accels && (uint64_t)o->ipkt_payload + o->ipkt_hdr < 64)
		o->ipkt_payload = 64 - o->ipkt_hdr;
	if (o->accels && o->msg_bytes && o->msg_bytes < 64)
		o->msg_bytes = 64;

	struct tcase *c = case_for(p->topo, p->lmc, p->eng, p->scheme,
				   p->dlvls ? p->dlvls : 8);
	if (!c) {
		free(p);
		return 0;
	}
	const struct ibf_fabric *f = c->f;
	uint32_t nh = f->nhosts_ports;
	/* host indices taken modulo the host count unless rawhosts */
#define HOST(x) (p->rawhosts ? (x) : (x) % nh)
	uint32_t *toff = NULL, *tdst = NULL;
	if (p->pattern) {
		toff = calloc(nh + 1, sizeof(*toff));
		tdst = calloc(p->ndst ? p->ndst : 1, sizeof(*tdst));
		if (!toff || !tdst)
			goto out;
		/* counting sort of the (host, destination) pairs by host */
		uint32_t n = 0;
		for (uint32_t h = 0; h < nh; h++) {
			toff[h] = n;
			for (uint32_t k = 0; k < p->ndst; k++)
				if (p->dh[k] % nh == h)
					tdst[n++] = HOST(p->dd[k]);
		}
		toff[nh] = n;
		o->traffic_off = toff;
		o->traffic_dst = tdst;
		o->traffic_nhosts = p->rawhosts ? nh + 1 : nh;
	}
	struct ibf_psim_stream st;
	uint32_t off[MAXPH + 1];
	struct ibf_psim_msg msg[MAXMSG];
	if (p->streams) {
		memset(&st, 0, sizeof(st));
		uint32_t n = 0;
		for (uint32_t k = 0; k < p->nph; k++) {
			off[k] = n;
			for (uint32_t m = 0; m < p->nmsg; m++)
				if (p->msg_ph[m] == k) {
					msg[n] = p->msg[m];
					msg[n].src = HOST(msg[n].src);
					msg[n].dst = HOST(msg[n].dst);
					n++;
				}
		}
		off[p->nph] = n;
		st.nphases = p->nph;
		st.off = off;
		st.msg = msg;
		st.repeat = p->rep;
		st.sync = p->sync;
		if (p->use_compute) {
			st.compute_ns = p->comp;
			st.reduce_gbps = p->red;
		}
		o->stream = &st;
	}
#undef HOST
	struct ibf_psim_result res;
	if (ibf_psim_run(f, &c->r, c->dl ? &c->sl : NULL, c->dl ? &c->s2v : NULL, o, &res, NULL))
		goto out;
	if (getenv("FUZZ_PSIM_DEBUG")) {
		ibf_psim_result_write_json(f, &res, o->vls, stderr);
		fputc('\n', stderr);
		for (uint32_t k = 0; k < res.nphases && o->stream; k++)
			fprintf(stderr, "phase %u: off %u..%u ns %g reps %u/%u sum %g\n", k,
				o->stream->off[k], o->stream->off[k + 1], res.phase_ns[k],
				res.phase_reps[k].done, res.phase_reps[k].reps,
				res.phase_reps[k].sum_ns);
	}
	/* tables of a scheme that claims freedom, all their VLs simulated */
	int dl_free = c->dl && c->dl_free && c->dl_vls <= o->vls && !p->rawhosts;
	check_result(f, p, o, &res, dl_free, c->recv_gbps);
	if (p->write)
		check_json(f, &res, o->vls);
	if (p->twice) {
		struct ibf_psim_result again;
		if (ibf_psim_run(f, &c->r, c->dl ? &c->sl : NULL, c->dl ? &c->s2v : NULL, o,
				 &again, NULL))
			fail("second run failed", 0, 0);
		check_same(&res, &again);
		ibf_psim_result_free(&again);
	}
	ibf_psim_result_free(&res);
out:
	free(toff);
	free(tdst);
	free(p);
	return 0;
}
