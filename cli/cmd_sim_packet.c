/* ibfab sim packet: the packet-level simulator on a fabric and its tables
 * (docs/simulation.md). */
#include "cli.h"
#include "ibf_sim.h"
#include "ibf_sim_packet.h"

#include <getopt.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

enum {
	O_TOPO = 256,
	O_G2L,
	O_LMC,
	O_LFTS,
	O_SL,
	O_SL2VL,
	O_ENGINE,
	O_DEADLOCK,
	O_VLS,
	O_TRAFFIC,
	O_LOAD,
	O_LOADS,
	O_SEED,
	O_WARMUP,
	O_MEASURE,
	O_DRAIN,
	O_BUF,
	O_ARB,
	O_MTU,
	O_HDR,
	O_STALL,
	O_ROUTER,
	O_NSM,
	O_HOSTM,
	O_SWM,
	O_SRCQ,
	O_JSON,
	O_QUIET,
	O_ACCELS,
	O_ACCG,
	O_NICG,
	O_MIX,
	O_INTER,
	O_IPAY,
	O_IHDR,
	O_MSG,
	O_AGGT,
	O_THREADS,
	O_LINKU,
	O_NICPKT,
	O_NODEBUF,
	O_NICBUF,
	O_SVG,
	O_CODES,
	O_STREAMS,
	O_BYTES,
	O_REPS,
	O_SYNC,
	O_COMPUTE,
	O_REDUCE,
	O_NODEVLS,
	O_NODEVOQ,
	O_ACCPKT,
	O_ISLIP
};

static const char sp_help[] =
	"Usage: ibfab sim packet --topology FILE (--lfts DUMP [--sl F] [--sl2vl F] |\n"
	"                        --engine E [--lmc N] [--deadlock S] [--vls N])\n"
	"                        [--traffic uniform|PATTERN] (--load L | --loads A:B:STEP)\n"
	"                        [--seed S] [--warmup T] [--measure T] [--drain T]\n"
	"                        [--buffer BYTES] [--arb rr|age] [--mtu BYTES] [--json] [-q]\n"
	"\n"
	"Discrete-event packet simulation driven by the forwarding tables: input-queued\n"
	"switches with a buffer per input port and VL, virtual cut-through, credit-based\n"
	"flow control per VL, round-robin or oldest-first output arbitration, link rates\n"
	"from the ports' width x speed.  Every host (a CA or router port cabled to a\n"
	"switch, not a CA inside its switch such as a SHARP aggregation node) sends\n"
	"open-loop traffic (uniform random, or a fixed pattern) at L x its link rate.\n"
	"Reports accepted throughput, latency (mean, p50, p99), per-VL utilisation of\n"
	"the switch links, credit stalls; when packets sit in switch buffers and\n"
	"nothing moves for the stall time, the run stops and prints the cycle of\n"
	"(link, VL) buffers that wait on each other.\n"
	"\n"
	"  --topology F      the fabric (any format ibfab reads); --guid2lid F, --lmc N\n"
	"  --lfts DUMP       tables to simulate (opensm-lfts.dump, dump_lfts output)\n"
	"  --sl F            path SLs (ibfab SL dump, saquery -p); default SL 0\n"
	"  --sl2vl F         switch SL2VL tables (ibfab dump, smpquery sl2vl); default\n"
	"                    VL = SL mod --vls\n"
	"  --engine E        compute the tables with engine E instead (seeded by --seed)\n"
	"  --deadlock S      none (default), dfsssp, coloring or auto: SLs and SL2VL from\n"
	"                    the deadlock module, on --vls VLs\n"
	"  --vls N           data VLs per port (buffers), 1..15 (default 8)\n"
	"  --traffic T       uniform (default), or a pattern of `ibfab sim flow`\n"
	"                    (shift:C, perm, bisection, adversarial, file:PATH, ...):\n"
	"                    its first phase fixes each host's destinations, one drawn\n"
	"                    per packet (file:PATH: ranks are hosts in fabric order;\n"
	"                    with --streams each flow moves its own BYTES)\n"
	"  --streams         with --traffic PATTERN: every phase of the pattern as timed\n"
	"                    message streams (--bytes B per flow, default 1 MiB; the next\n"
	"                    phase starts when the previous one is delivered); reports\n"
	"                    each phase's completion time beside the flow simulator's;\n"
	"                    a flow's demand caps its message (payload Gb/s), shown\n"
	"                    with the achieved rate and when the uncapped were done;\n"
	"                    a phase repeated R times runs R times, back to back\n"
	"  --reps all|first  with --streams: all repetitions (default), or only each\n"
	"                    phase's first, the total then an estimate (first x R)\n"
	"  --sync barrier|rank  with --streams: when a host starts its next step (a\n"
	"                    repetition of a phase): barrier (default) when every\n"
	"                    packet of the step is delivered; rank when its own input\n"
	"                    of the step is in and it has queued its own packets, so\n"
	"                    steps overlap across hosts; reports per phase its first\n"
	"                    start, last finish and per-step spans\n"
	"  --compute T[,T...]  with --streams: after each step it takes part in, a\n"
	"                    host computes T (ns, us, ms) before its next step; one\n"
	"                    value per phase, the last one for the phases after it\n"
	"  --reduce-gbps G[,G...]  with --streams: and the bytes it received in the\n"
	"                    step at G Gb/s (a reduction; 0: none), per phase as\n"
	"                    --compute; the flow simulator's figures add the longest\n"
	"                    compute of each step\n"
	"  --load L          offered load per host, fraction of its link rate, 1e-6..1\n"
	"  --loads A:B:STEP  a sweep of loads, one run each; --threads N runs N load\n"
	"                    points at once (same results for any N; 1..64, or 0 /\n"
	"                    auto for one per online CPU; default 1)\n"
	"  --warmup T, --measure T, --drain T   times (ns, or with us/ms); defaults\n"
	"                    20us, 50us, drain = measure (waiting for measured packets)\n"
	"  --buffer BYTES    input buffer per port and VL (default 131072; k/KiB, M/MiB\n"
	"                    or G/GiB suffix, binary, as every byte count)\n"
	"  --arb rr|age      output arbitration (default rr)\n"
	"  --islip-iters N   iSLIP over each switch's free outputs and inputs with N\n"
	"                    grant/accept rounds (default 0: each output on its own)\n"
	"  --mtu BYTES       payload per packet (default 4032; header 64, --header B)\n"
	"  --json            the report as JSON on stdout instead of text\n"
	"  -q, --quiet       no notes and no summary on stderr, only errors\n"
	"  --svg FILE        SVG figure: accepted throughput against load (intra- and\n"
	"                    inter-node with --accels) and stacked latency bars per load\n"
	"  --export-codes DIR  write the fabric, LFTs and traffic as input of CODES's\n"
	"                    fattree model (static routing) instead of simulating; the\n"
	"                    fabric must be wired as CODES's 2- or 3-level fat tree\n"
	"                    (one --load; not with --json, --svg, --link-util,\n"
	"                    --streams or --accels)\n"
	"  --link-util FILE  utilisation of every directed link (CSV: load, from, port,\n"
	"                    to, port, kind, Gb/s, utilisation, from and to node GUID)\n"
	"  --stall T         deadlock watchdog (default 50us, at least 8 packet times\n"
	"                    and twice the longest cable's propagation)\n"
	"  --router-ns N     head arrival to eligibility at the output (default 100)\n"
	"  --ns-per-m N      propagation per metre (default 25)\n"
	"  --host-cable-m M, --switch-cable-m M   cable lengths (default 2 and 10)\n"
	"  --srcq N          packets a host queues before dropping new ones (default 256)\n"
	"\n"
	"Node model (--accels K): every host port is the NIC of a node with K\n"
	"accelerators on an intra-node switch; --load is then a fraction of the\n"
	"accelerator rate and the traffic is the node mix (the options below go\n"
	"with --accels only):\n"
	"  --accels K        accelerators per node (1..64; with 1 every message leaves\n"
	"                    its node)\n"
	"  --acc-gbps G      accelerator link (default 512); --nic-gbps G: switch-NIC\n"
	"                    link (default 128)\n"
	"  --mix C1..C5      20/15/10/5/0 % of the messages leave the node (default C1);\n"
	"                    or --inter-frac F\n"
	"  --ipkt-payload B  intra-node packet payload (default 128; header --ipkt-header 20)\n"
	"  --msg B           message size (default 4096)\n"
	"  --agg-timeout T   NIC: send a partly filled fabric packet after T (default 200ns)\n"
	"  --nic-pkt-ns N    NIC: processing time per intra-node packet, each way (default 0)\n"
	"  --node-buf B      bounded intra-node queues (bytes) with back-pressure and\n"
	"                    head-of-line blocking; --nic-buf B what a NIC holds (256k)\n"
	"  --acc-pkt-ns N    accelerator links: at least N ns per intra-node packet (a\n"
	"                    packet-rate limit; default 0)\n"
	"  --node-vls 2      with --node-buf: intra- and inter-node packets on their own\n"
	"                    VL inside the node (own FIFO and credits per queue)\n"
	"  --node-voq        with --node-buf: the links into the intra-node switch keep\n"
	"                    one queue per switch output (virtual output queues) and\n"
	"                    serve them round-robin (no head-of-line blocking behind\n"
	"                    a full output); combines with --node-vls 2\n"
	"Exit 0; 1 when a run deadlocked or on an error (a file that cannot be read or\n"
	"written, tables that do not fit the fabric: the message on stderr says which);\n"
	"2 on usage errors.\n";

struct sp_args {
	const char *topo, *g2l, *lfts, *sl, *sl2vl, *engine, *link_util, *svg, *codes;
	int have_pattern, streams;
	int reps_first; /* --reps first: each phase once, repeats estimated */
	int reps_set;
	int sync; /* enum ibf_psim_sync (--sync) */
	int sync_set;
	/* --compute T[,T...], --reduce-gbps G[,G...]: per phase, the last
	 * value for the phases after it */
#define SP_MAXLIST 256
	uint32_t ncomp, nred;
	double comp[SP_MAXLIST], red[SP_MAXLIST];
	const char *node_opt; /* a node-model option given (the last one) */
	int frac_set;	      /* --mix or --inter-frac given */
	int nic_buf_set;      /* --nic-buf given */
	double bytes;
	struct ibf_sim_pattern pattern;
	long lmc, vls, threads;
	int deadlock, json, quiet;
	double l0, l1, lstep;
	long nloads;   /* of the sweep l0, l0 + lstep, ... <= l1 */
	int load_opts; /* 1: --load given, 2: --loads (both: a usage error) */
	struct ibf_psim_opts o;
};

/* "123", "12.5us", "1ms", "800ns" -> ns (at most 1e10 ns) */
static int parse_time(const char *opt, const char *v, double *out)
{
	if (ibf_num_time_ns(v, strlen(v), 1e10, out)) {
		fprintf(stderr, "ibfab: %s: bad time '%s' (ns, or with ns/us/ms; at most 10 s)\n",
			opt, v);
		return -1;
	}
	return 0;
}

static int parse_double(const char *opt, const char *v, double lo, double hi, double *out)
{
	if (ibf_num_double(v, strlen(v), lo, hi, out)) {
		fprintf(stderr, "ibfab: %s: '%s' is not a number in [%g, %g]\n", opt, v, lo, hi);
		return -1;
	}
	return 0;
}

static int parse_bytes(const char *opt, const char *v, long lo, long hi, long *out)
{
	if (ibf_num_bytes(v, strlen(v), lo, hi, out)) {
		fprintf(stderr, "ibfab: %s: '%s' is not a byte count in [%ld, %ld]\n", opt, v, lo,
			hi);
		return -1;
	}
	return 0;
}

/* "A,B,C": up to SP_MAXLIST values, each a time (ns, us, ms) or a
 * number in [0, 1e6]; an empty item is an error. */
static int parse_list(const char *prog, const char *opt, const char *v, int time, double *out,
		      uint32_t *n)
{
	char item[64];
	*n = 0;
	for (const char *p = v;;) {
		size_t l = strcspn(p, ",");
		if (!l || l >= sizeof(item))
			return cli_usage_error(prog, "%s: bad list '%s' (values separated by commas, "
					       "one per phase)", opt, v);
		if (*n == SP_MAXLIST)
			return cli_usage_error(prog, "%s: more than %d values", opt, SP_MAXLIST);
		memcpy(item, p, l);
		item[l] = 0;
		if (time ? parse_time(opt, item, &out[*n]) : parse_double(opt, item, 0, 1e6, &out[*n]))
			return 2; /* it said why */
		++*n;
		if (!p[l])
			return 0;
		p += l + 1;
	}
}

static const struct option sp_lo[] = {
	{ "topology", required_argument, 0, O_TOPO },
	{ "guid2lid", required_argument, 0, O_G2L },
	{ "lmc", required_argument, 0, O_LMC },
	{ "lfts", required_argument, 0, O_LFTS },
	{ "sl", required_argument, 0, O_SL },
	{ "sl2vl", required_argument, 0, O_SL2VL },
	{ "engine", required_argument, 0, O_ENGINE },
	{ "deadlock", required_argument, 0, O_DEADLOCK },
	{ "vls", required_argument, 0, O_VLS },
	{ "traffic", required_argument, 0, O_TRAFFIC },
	{ "load", required_argument, 0, O_LOAD },
	{ "loads", required_argument, 0, O_LOADS },
	{ "seed", required_argument, 0, O_SEED },
	{ "warmup", required_argument, 0, O_WARMUP },
	{ "measure", required_argument, 0, O_MEASURE },
	{ "drain", required_argument, 0, O_DRAIN },
	{ "buffer", required_argument, 0, O_BUF },
	{ "arb", required_argument, 0, O_ARB },
	{ "mtu", required_argument, 0, O_MTU },
	{ "header", required_argument, 0, O_HDR },
	{ "stall", required_argument, 0, O_STALL },
	{ "router-ns", required_argument, 0, O_ROUTER },
	{ "ns-per-m", required_argument, 0, O_NSM },
	{ "host-cable-m", required_argument, 0, O_HOSTM },
	{ "switch-cable-m", required_argument, 0, O_SWM },
	{ "srcq", required_argument, 0, O_SRCQ },
	{ "json", no_argument, 0, O_JSON },
	{ "accels", required_argument, 0, O_ACCELS },
	{ "acc-gbps", required_argument, 0, O_ACCG },
	{ "nic-gbps", required_argument, 0, O_NICG },
	{ "mix", required_argument, 0, O_MIX },
	{ "inter-frac", required_argument, 0, O_INTER },
	{ "ipkt-payload", required_argument, 0, O_IPAY },
	{ "ipkt-header", required_argument, 0, O_IHDR },
	{ "msg", required_argument, 0, O_MSG },
	{ "agg-timeout", required_argument, 0, O_AGGT },
	{ "threads", required_argument, 0, O_THREADS },
	{ "link-util", required_argument, 0, O_LINKU },
	{ "nic-pkt-ns", required_argument, 0, O_NICPKT },
	{ "node-buf", required_argument, 0, O_NODEBUF },
	{ "nic-buf", required_argument, 0, O_NICBUF },
	{ "svg", required_argument, 0, O_SVG },
	{ "export-codes", required_argument, 0, O_CODES },
	{ "streams", no_argument, 0, O_STREAMS },
	{ "node-vls", required_argument, 0, O_NODEVLS },
	{ "node-voq", no_argument, 0, O_NODEVOQ },
	{ "acc-pkt-ns", required_argument, 0, O_ACCPKT },
	{ "islip-iters", required_argument, 0, O_ISLIP },
	{ "bytes", required_argument, 0, O_BYTES },
	{ "reps", required_argument, 0, O_REPS },
	{ "sync", required_argument, 0, O_SYNC },
	{ "compute", required_argument, 0, O_COMPUTE },
	{ "reduce-gbps", required_argument, 0, O_REDUCE },
	{ "quiet", no_argument, 0, O_QUIET },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* How a table option's value is read and stored. */
enum sp_kind {
	SP_STR,	  /* const char * */
	SP_DBL,	  /* double in [lo, hi] (parse_double) */
	SP_TIME,  /* double ns (parse_time) */
	SP_BYTES, /* uint32_t bytes in [lo, hi] (parse_bytes) */
	SP_INT,	  /* int in [lo, hi] (cli_int) */
	SP_U32,	  /* uint32_t in [lo, hi] (cli_int) */
	SP_LONG,  /* long in [lo, hi] (cli_int) */
};

#define SPA(f) 0, offsetof(struct sp_args, f)	    /* a field of sp_args */
#define SPO(f) 1, offsetof(struct ibf_psim_opts, f) /* a field of the simulator's options */

/* The options whose value goes straight into one field. */
static const struct sp_opt {
	int code;
	const char *name;
	enum sp_kind kind;
	int in_opts;
	size_t off;
	double lo, hi;
} sp_opts[] = {
	{ O_TOPO, "--topology", SP_STR, SPA(topo), 0, 0 },
	{ O_G2L, "--guid2lid", SP_STR, SPA(g2l), 0, 0 },
	{ O_LFTS, "--lfts", SP_STR, SPA(lfts), 0, 0 },
	{ O_SL, "--sl", SP_STR, SPA(sl), 0, 0 },
	{ O_SL2VL, "--sl2vl", SP_STR, SPA(sl2vl), 0, 0 },
	{ O_ENGINE, "--engine", SP_STR, SPA(engine), 0, 0 },
	{ O_LINKU, "--link-util", SP_STR, SPA(link_util), 0, 0 },
	{ O_SVG, "--svg", SP_STR, SPA(svg), 0, 0 },
	{ O_CODES, "--export-codes", SP_STR, SPA(codes), 0, 0 },
	{ O_LMC, "--lmc", SP_LONG, SPA(lmc), 0, 7 },
	{ O_VLS, "--vls", SP_LONG, SPA(vls), 1, 15 },
	{ O_WARMUP, "--warmup", SP_TIME, SPO(warmup_ns), 0, 0 },
	{ O_DRAIN, "--drain", SP_TIME, SPO(drain_ns), 0, 0 },
	{ O_AGGT, "--agg-timeout", SP_TIME, SPO(agg_timeout_ns), 0, 0 },
	{ O_BUF, "--buffer", SP_BYTES, SPO(buf_bytes), 1, 1L << 30 },
	{ O_MTU, "--mtu", SP_BYTES, SPO(mtu_payload), 1, 65000 },
	{ O_HDR, "--header", SP_BYTES, SPO(hdr_bytes), 0, 512 },
	{ O_IPAY, "--ipkt-payload", SP_BYTES, SPO(ipkt_payload), 1, 60000 },
	{ O_IHDR, "--ipkt-header", SP_BYTES, SPO(ipkt_hdr), 0, 512 },
	{ O_MSG, "--msg", SP_BYTES, SPO(msg_bytes), 1, 1L << 24 },
	{ O_NODEBUF, "--node-buf", SP_BYTES, SPO(node_buf_bytes), 1, 1L << 30 },
	{ O_NICBUF, "--nic-buf", SP_BYTES, SPO(nic_buf_bytes), 1, 1L << 30 },
	{ O_ROUTER, "--router-ns", SP_DBL, SPO(router_ns), 0, 1e6 },
	{ O_NSM, "--ns-per-m", SP_DBL, SPO(ns_per_m), 0, 1e4 },
	{ O_HOSTM, "--host-cable-m", SP_DBL, SPO(host_cable_m), 0, 1e5 },
	{ O_SWM, "--switch-cable-m", SP_DBL, SPO(switch_cable_m), 0, 1e5 },
	{ O_ACCG, "--acc-gbps", SP_DBL, SPO(acc_gbps), 0.1, 1e6 },
	{ O_NICG, "--nic-gbps", SP_DBL, SPO(nic_gbps), 0.1, 1e6 },
	{ O_INTER, "--inter-frac", SP_DBL, SPO(inter_frac), 0, 1 },
	{ O_ACCPKT, "--acc-pkt-ns", SP_DBL, SPO(acc_pkt_ns), 0, 1e6 },
	{ O_NICPKT, "--nic-pkt-ns", SP_DBL, SPO(nic_pkt_ns), 0, 1e6 },
	{ O_SRCQ, "--srcq", SP_U32, SPO(srcq_max), 1, 1L << 20 },
	{ O_ACCELS, "--accels", SP_INT, SPO(accels), 1, 64 },
	{ O_ISLIP, "--islip-iters", SP_INT, SPO(islip_iters), 0, 16 },
	{ O_NODEVLS, "--node-vls", SP_INT, SPO(node_vls), 1, 2 },
};

/* A table option: 1 when c is one (*rc: 0, or 2 for a bad value), else 0. */
static int sp_table_opt(struct sp_args *a, int c, int *rc)
{
	if (c == O_THREADS) {
		/* the rule of every --threads: 1..64, or 0 / auto per CPU */
		*rc = cli_threads("ibfab sim packet", optarg, 64, &a->threads);
		return 1;
	}
	const struct sp_opt *t = NULL;
	for (size_t i = 0; i < sizeof(sp_opts) / sizeof(sp_opts[0]) && !t; i++)
		if (sp_opts[i].code == c)
			t = &sp_opts[i];
	if (!t)
		return 0;
	void *dst = (char *)(t->in_opts ? (void *)&a->o : (void *)a) + t->off;
	long lo = (long)t->lo, hi = (long)t->hi, v = 0;
	int bad = 0;
	switch (t->kind) {
	case SP_STR:
		*(const char **)dst = optarg;
		break;
	case SP_DBL:
		bad = parse_double(t->name, optarg, t->lo, t->hi, dst);
		break;
	case SP_TIME:
		bad = parse_time(t->name, optarg, dst);
		break;
	case SP_BYTES:
		bad = parse_bytes(t->name, optarg, lo, hi, &v);
		if (!bad)
			*(uint32_t *)dst = (uint32_t)v;
		break;
	case SP_INT:
	case SP_U32:
		bad = cli_int(t->name, optarg, lo, hi, &v);
		if (!bad && t->kind == SP_INT)
			*(int *)dst = (int)v;
		else if (!bad)
			*(uint32_t *)dst = (uint32_t)v;
		break;
	case SP_LONG:
		bad = cli_int(t->name, optarg, lo, hi, dst);
		break;
	}
	*rc = bad ? 2 : 0;
	return 1;
}

/* --loads A:B:STEP: at most this many loads */
#define SWEEP_MAX 10000

/* --loads A:B:STEP */
static int sp_loads(const char *prog, struct sp_args *a)
{
	int rc = ibf_num_range(optarg, strlen(optarg), 1e-6, 1.0, SWEEP_MAX, &a->l0, &a->l1,
			       &a->lstep, &a->nloads);
	if (rc == -2)
		return cli_usage_error(prog, "--loads %s: more than %d loads", optarg, SWEEP_MAX);
	if (rc)
		return cli_usage_error(prog,
				       "--loads '%s': want A:B:STEP with 1e-6 <= A <= B <= 1, "
				       "STEP > 0",
				       optarg);
	return 0;
}

/* The options with their own rules: 0, -1 after help, else an exit code. */
static int sp_other_opt(const char *prog, struct sp_args *a, int c)
{
	long v;
	switch (c) {
	case O_JSON:
		a->json = 1;
		return 0;
	case 'q':
	case O_QUIET:
		a->quiet = 1;
		return 0;
	case O_STREAMS:
		a->streams = 1;
		return 0;
	case O_NODEVOQ:
		a->o.node_voq = 1;
		return 0;
	case O_DEADLOCK:
		a->deadlock = ibf_deadlock_from_name(optarg);
		if (a->deadlock < 0)
			return cli_usage_error(
				prog, "--deadlock: '%s' is not none, dfsssp, coloring or auto",
				optarg);
		return 0;
	case O_TRAFFIC:
		a->have_pattern = strcmp(optarg, "uniform") != 0;
		if (a->have_pattern) {
			struct ibf_error e;
			ibf_error_clear(&e);
			if (ibf_sim_pattern_parse(optarg, &a->pattern, &e))
				return cli_usage_error(prog, "--traffic: %s", e.msg);
		}
		return 0;
	case O_LOAD:
		if (a->load_opts & 2)
			return cli_usage_error(prog, "--load and --loads: give one of them");
		a->load_opts |= 1;
		if (parse_double("--load", optarg, 1e-6, 1.0, &a->l0))
			return 2;
		a->l1 = a->l0;
		a->lstep = 1;
		a->nloads = 1;
		return 0;
	case O_LOADS:
		/* the later of the two won, silently: a sweep ran as one load */
		if (a->load_opts & 1)
			return cli_usage_error(prog, "--load and --loads: give one of them");
		a->load_opts |= 2;
		return sp_loads(prog, a);
	case O_SEED:
		if (cli_int("--seed", optarg, 0, 0x7fffffffL, &v))
			return 2;
		a->o.seed = (uint64_t)v;
		return 0;
	case O_MEASURE:
		if (parse_time("--measure", optarg, &a->o.measure_ns))
			return 2; /* parse_time said why */
		if (!(a->o.measure_ns > 0))
			return cli_usage_error(prog, "--measure must be > 0");
		return 0;
	case O_STALL:
		if (parse_time("--stall", optarg, &a->o.stall_ns))
			return 2; /* parse_time said why */
		if (!(a->o.stall_ns > 0))
			return cli_usage_error(prog, "--stall must be > 0");
		return 0;
	case O_ARB:
		if (!strcmp(optarg, "rr"))
			a->o.arb = IBF_PSIM_ARB_RR;
		else if (!strcmp(optarg, "age"))
			a->o.arb = IBF_PSIM_ARB_AGE;
		else
			return cli_usage_error(prog, "--arb: rr or age");
		return 0;
	case O_MIX:
		if (strlen(optarg) != 2 || (optarg[0] != 'C' && optarg[0] != 'c') ||
		    optarg[1] < '1' || optarg[1] > '5')
			return cli_usage_error(prog, "--mix: C1, C2, C3, C4 or C5");
		a->o.inter_frac = (5 - (optarg[1] - '0')) * 0.05;
		return 0;
	case O_BYTES:
		if (parse_bytes("--bytes", optarg, 1, 1L << 40, &v))
			return 2;
		a->bytes = (double)v;
		return 0;
	case O_REPS:
		if (!strcmp(optarg, "all"))
			a->reps_first = 0;
		else if (!strcmp(optarg, "first"))
			a->reps_first = 1;
		else
			return cli_usage_error(prog, "--reps: all or first");
		a->reps_set = 1;
		return 0;
	case O_SYNC:
		if (!strcmp(optarg, "barrier"))
			a->sync = IBF_PSIM_SYNC_BARRIER;
		else if (!strcmp(optarg, "rank"))
			a->sync = IBF_PSIM_SYNC_RANK;
		else
			return cli_usage_error(prog, "--sync: barrier or rank");
		a->sync_set = 1;
		return 0;
	case O_COMPUTE:
		return parse_list(prog, "--compute", optarg, 1, a->comp, &a->ncomp);
	case O_REDUCE:
		return parse_list(prog, "--reduce-gbps", optarg, 0, a->red, &a->nred);
	case 'h':
		fputs(sp_help, stdout);
		return -1;
	default:
		return cli_usage_error(prog, "bad option");
	}
}

static int parse_args(const char *prog, int argc, char **argv, struct sp_args *a)
{
	memset(a, 0, sizeof(*a));
	ibf_psim_opts_default(&a->o);
	a->lmc = -1;
	a->vls = 8;
	a->threads = 1;
	a->l0 = -1;
	/* the options of the node model (--accels K), which mean nothing
	 * without it */
	static const int node_opts[] = { O_ACCG,   O_NICG,    O_MIX,	 O_INTER,  O_IPAY,
					 O_IHDR,   O_MSG,     O_AGGT,	 O_NICPKT, O_NODEBUF,
					 O_NICBUF, O_NODEVLS, O_NODEVOQ, O_ACCPKT };
	int c, rc, li = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", sp_lo, &li)) != -1) {
		for (size_t k = 0; k < sizeof(node_opts) / sizeof(node_opts[0]); k++)
			if (c == node_opts[k])
				a->node_opt = sp_lo[li].name;
		a->frac_set |= c == O_MIX || c == O_INTER;
		a->nic_buf_set |= c == O_NICBUF;
		if (!sp_table_opt(a, c, &rc))
			rc = sp_other_opt(prog, a, c);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!a->topo)
		return cli_usage_error(prog, "--topology FILE is required");
	if (!a->lfts == !a->engine)
		return cli_usage_error(prog, "give exactly one of --lfts DUMP and --engine E");
	if (a->engine && !ibf_engine_find(a->engine))
		return cli_usage_error(prog, "unknown engine '%s' (see ibfab route --help)",
				       a->engine);
	if (a->lfts && a->deadlock)
		return cli_usage_error(
			prog, "--deadlock goes with --engine (with --lfts give --sl/--sl2vl)");
	if (a->engine && (a->sl || a->sl2vl))
		return cli_usage_error(
			prog, "--sl/--sl2vl go with --lfts (with --engine use --deadlock)");
	if (a->l0 < 0)
		return cli_usage_error(prog, "--load L or --loads A:B:STEP is required");
	/* the report (text or JSON) always goes to stdout: a figure or CSV
	 * there too would be interleaved with it into one unreadable stream */
	if (a->svg && !strcmp(a->svg, "-"))
		return cli_usage_error(prog, "--svg -: stdout carries the report; give a file");
	if (a->link_util && !strcmp(a->link_util, "-"))
		return cli_usage_error(prog,
				       "--link-util -: stdout carries the report; give a file");
	if (a->streams && !a->have_pattern)
		return cli_usage_error(prog, "--streams wants --traffic PATTERN");
	if (a->bytes > 0 && !a->streams)
		return cli_usage_error(prog, "--bytes goes with --streams");
	if (a->reps_set && !a->streams)
		return cli_usage_error(prog, "--reps goes with --streams");
	if (a->sync_set && !a->streams)
		return cli_usage_error(prog, "--sync goes with --streams");
	if ((a->ncomp || a->nred) && !a->streams)
		return cli_usage_error(prog, "--compute and --reduce-gbps go with --streams");
	if (a->sync == IBF_PSIM_SYNC_RANK && a->reps_first)
		return cli_usage_error(prog, "--sync rank runs every repetition: not with "
					     "--reps first");
	if (a->node_opt && !a->o.accels)
		return cli_usage_error(prog, "--%s goes with the node model (--accels K)",
				       a->node_opt);
	if (a->o.node_voq && !a->o.node_buf_bytes)
		return cli_usage_error(prog, "--node-voq goes with --accels K and --node-buf B");
	/* the NIC's bound is one of the bounded queues: without --node-buf
	 * nothing reads it (it was ignored without a word) */
	if (a->nic_buf_set && !a->o.node_buf_bytes)
		return cli_usage_error(prog, "--nic-buf goes with --accels K and --node-buf B");
	if (a->o.accels == 1 && a->frac_set && a->o.inter_frac < 1)
		return cli_usage_error(prog,
				       "--accels 1: a node has no other accelerator, every message "
				       "leaves it (--mix/--inter-frac below 1 cannot hold)");
	if (a->codes) {
		/* the export writes CODES's input instead of simulating: options
		 * for the runs' output or for what CODES cannot take were
		 * ignored (--json printed the text summary, --loads exported the
		 * first load) */
		const char *no = a->json	 ? "--json"
				 : a->svg	 ? "--svg"
				 : a->link_util	 ? "--link-util"
				 : a->l1 > a->l0 ? "--loads with more than one load"
				 : a->streams	 ? "--streams"
				 : a->o.accels
					 ? "--accels (CODES's fattree model has no node model)"
					 : NULL;
		if (no)
			return cli_usage_error(prog,
					       "--export-codes writes CODES's input instead of "
					       "simulating: %s does not go with it",
					       no);
	}
	a->o.vls = (int)a->vls;
	/* the simulator's own checks of option combinations (a buffer smaller
	 * than one packet of --mtu + --header, ...): a usage error now, not
	 * exit 1 after the fabric was loaded and routed */
	struct ibf_psim_opts o = a->o;
	struct ibf_error e;
	o.load = a->l0;
	if (ibf_psim_opts_check(&o, &e))
		return cli_usage_error(prog, "%s", e.msg);
	return 0;
}

static const char *node_label(const struct ibf_fabric *f, uint32_t n)
{
	const struct ibf_node *nd = &f->nodes[n];
	return nd->desc ? nd->desc : nd->id ? nd->id : "?";
}

/* A dump without the table of some switches (a partial capture) is
 * simulated, their packets dropped as unroutable: say so up front, or a
 * run that drops most of its packets looks like a routing failure. */
static void note_empty_tables(const char *path, const struct ibf_fabric *f,
			      const struct ibf_routes *r)
{
	uint32_t n = 0, first = 0;
	for (uint32_t sw = 0; sw < r->nsw; sw++) {
		const uint8_t *row = r->lft + (size_t)sw * r->stride;
		uint32_t l = 0;
		while (l < r->stride && row[l] == IBF_LFT_NONE)
			l++;
		if (l == r->stride && !n++)
			first = sw;
	}
	if (n)
		fprintf(stderr,
			"ibfab sim packet: note: %s has no table for %u of %u switches (e.g. "
			"'%s'): the packets reaching them are dropped as unroutable\n",
			path, n, r->nsw, node_label(f, (uint32_t)f->switches[first]));
}

/* Likewise an SL2VL dump without the tables of some switches: every packet
 * through them is dropped as unroutable (no VL to put it on). */
static void note_empty_sl2vl(const char *path, const struct ibf_fabric *f,
			     const struct ibf_sl2vl_table *t)
{
	uint32_t n = 0, first = 0;
	for (uint32_t sw = 0; sw < t->nsw; sw++) {
		uint64_t e = t->off[sw];
		while (e < t->off[sw + 1] && t->vl[e] == IBF_VL_NONE)
			e++;
		if (e == t->off[sw + 1] && !n++)
			first = sw;
	}
	if (n)
		fprintf(stderr,
			"ibfab sim packet: note: %s has no SL2VL table for %u of %u switches (e.g. "
			"'%s'): the packets reaching them are dropped as unroutable\n",
			path, n, t->nsw, node_label(f, (uint32_t)f->switches[first]));
}

/* And a path SL dump without the SL of some (source, destination LID)
 * pairs (a partial `saquery -p` capture): their packets use SL 0, which
 * can put them on a VL the deadlock scheme did not mean for them. */
static void note_missing_sl(const char *path, const struct ibf_fabric *f,
			    const struct ibf_sl_table *t)
{
	/* the hosts the simulation sends from and to (ibf_end_ports: CA
	 * ports inside their switch are none), with a LID: port id, node */
	struct ibf_endport *ep = NULL;
	uint32_t nep = 0, nh = 0;
	struct ibf_error e2;
	if (ibf_end_ports(f, IBF_CONG_ORDER_FABRIC, &ep, &nep, NULL, NULL, NULL, &e2))
		return;
	uint32_t *hp = malloc((nep + 1) * sizeof(uint32_t));
	int32_t *hn = malloc((nep + 1) * sizeof(int32_t));
	if (!hp || !hn) {
		free(ep);
		free(hp);
		free(hn);
		return;
	}
	for (uint32_t k = 0; k < nep; k++)
		if (ibf_port(f, ep[k].node, ep[k].port)->lid) {
			hp[nh] = f->nodes[ep[k].node].port_off + ep[k].port;
			hn[nh++] = ep[k].node;
		}
	free(ep);
	uint64_t n = 0, all = 0;
	uint32_t ex_src = 0, ex_lid = 0;
	for (uint32_t a = 0; a < nh; a++) {
		const struct ibf_port *pa = &f->ports[hp[a]];
		int64_t row = t->per_port ? t->port_row[hp[a]] : f->nodes[pa->peer_node].sw;
		for (uint32_t b = 0; b < nh; b++) {
			const struct ibf_port *pb = &f->ports[hp[b]];
			for (uint32_t l = pb->lid;
			     b != a && l < (uint32_t)pb->lid + (1u << (pb->lmc & 7)); l++) {
				all++;
				if ((row < 0 || (uint64_t)row >= t->nrows || l >= t->stride ||
				     !t->mask[(size_t)row * t->stride + l]) &&
				    !n++) {
					ex_src = (uint32_t)hn[a];
					ex_lid = l;
				}
			}
		}
	}
	if (n)
		fprintf(stderr,
			"ibfab sim packet: note: %s gives no SL for %llu of %llu (source, "
			"destination LID) pairs (e.g. '%s' to LID %u): their packets use SL 0\n",
			path, (unsigned long long)n, (unsigned long long)all, node_label(f, ex_src),
			ex_lid);
	free(hp);
	free(hn);
}

/* Hosts on switches that no cable path joins (a leaf cut off, a rail-only
 * cluster routed by hratio): no table can take their packets to each
 * other, which the run counts as unroutable; say so, or a run that drops
 * most of its packets with exit 0 reads as a routing failure (sim flow
 * refuses such flows). */
static void note_pieces(const struct ibf_fabric *f)
{
	if (f->nsw < 2)
		return;
	uint32_t *comp = malloc((size_t)f->nsw * sizeof(*comp));
	if (!comp)
		return;
	uint32_t nc = ibf_components(f, comp);
	int32_t first[2] = { -1, -1 }; /* a host switch of two pieces */
	uint32_t with_hosts = 0;
	uint8_t *seen = nc > 1 ? calloc(nc, 1) : NULL;
	for (uint32_t i = 0; seen && i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH)
			continue;
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			int32_t sw = f->nodes[pp->peer_node].sw;
			if (sw < 0 || seen[comp[sw]])
				continue;
			seen[comp[sw]] = 1;
			if (with_hosts < 2)
				first[with_hosts] = pp->peer_node;
			with_hosts++;
		}
	}
	if (with_hosts > 1)
		fprintf(stderr,
			"ibfab sim packet: note: the switch graph is in %u pieces, %u of them with "
			"hosts (e.g. '%s' and '%s' are not connected): packets between hosts of "
			"two pieces have no path and are dropped as unroutable\n",
			nc, with_hosts, node_label(f, (uint32_t)first[0]),
			node_label(f, (uint32_t)first[1]));
	free(seen);
	free(comp);
}

/* Tables read from a dump may not deliver some LIDs of the hosts: no
 * entry or a port without a cable on the way, a loop, or another port at
 * the end.  The run drops such packets as unroutable (a loop after the
 * hop limit, or it locks into a credit deadlock first); say up front which,
 * or "unroutable N" reads as a fault of the simulator.  Traced per (switch
 * with hosts, host LID), as the path depends only on the switch a packet
 * enters; pairs between two pieces of the switch graph are note_pieces'. */
static void note_undelivered(const char *path, const struct ibf_fabric *f,
			     const struct ibf_routes *r)
{
	struct ibf_endport *ep = NULL;
	uint32_t nep = 0;
	struct ibf_error e2;
	if (f->nsw < 1 ||
	    ibf_end_ports(f, IBF_CONG_ORDER_FABRIC, &ep, &nep, NULL, NULL, NULL, &e2))
		return;
	struct ibf_lidmap m;
	uint32_t *comp = malloc((size_t)f->nsw * sizeof(*comp));
	uint8_t *src = calloc(f->nsw, 1);
	if (!comp || !src || ibf_lidmap_build(f, &m, NULL)) {
		free(comp);
		free(src);
		free(ep);
		return;
	}
	ibf_components(f, comp);
	for (uint32_t k = 0; k < nep; k++) {
		const struct ibf_port *pp = ibf_port(f, ep[k].node, ep[k].port);
		src[f->nodes[pp->peer_node].sw] = 1;
	}
	uint64_t all = 0, n[4] = { 0 };
	uint32_t ex_sw[4] = { 0 }, ex_lid[4] = { 0 };
	for (uint32_t k = 0; k < nep; k++) {
		const struct ibf_port *pp = ibf_port(f, ep[k].node, ep[k].port);
		uint32_t dsw = (uint32_t)f->nodes[pp->peer_node].sw;
		for (uint32_t l = pp->lid; pp->lid && l < (uint32_t)pp->lid + (1u << (pp->lmc & 7));
		     l++)
			for (uint32_t sw = 0; sw < f->nsw; sw++) {
				if (!src[sw] || comp[sw] != comp[dsw])
					continue;
				all++;
				int t = ibf_trace(f, &m, r, sw, l, NULL, NULL);
				if (t > 0 && t < 4 && !n[t]++) {
					ex_sw[t] = sw;
					ex_lid[t] = l;
				}
			}
	}
	if (n[1] + n[2] + n[3]) {
		fprintf(stderr,
			"ibfab sim packet: note: %s does not deliver %llu of %llu (switch with "
			"hosts, host LID) pairs:",
			path, (unsigned long long)(n[1] + n[2] + n[3]), (unsigned long long)all);
		static const char *what[4] = { "", "no entry or no cable on the way",
					       "a loop", "delivered to another port" };
		const char *sep = " ";
		for (int t = 1; t < 4; t++)
			if (n[t]) {
				fprintf(stderr, "%s%llu %s (e.g. LID %u from '%s')", sep,
					(unsigned long long)n[t], what[t], ex_lid[t],
					node_label(f, (uint32_t)f->switches[ex_sw[t]]));
				sep = ", ";
			}
		fprintf(stderr, "; their packets are dropped as unroutable (in a loop after "
				"the hop limit, unless the loop fills up and deadlocks)\n");
	}
	ibf_lidmap_free(&m);
	free(comp);
	free(src);
	free(ep);
}

/* The tables: read, or computed (and given SLs by the deadlock module). */
static int get_tables(const struct sp_args *a, const struct ibf_fabric *f, struct ibf_routes *r,
		      struct ibf_sl_table *sl, struct ibf_sl2vl_table *s2v, int *have_sl,
		      int *have_s2v, struct ibf_error *err)
{
	int rc;
	if (!a->quiet)
		note_pieces(f);
	if (a->lfts) {
		rc = cli_lfts_read(f, a->lfts, r, err);
		if (!rc && !a->quiet) {
			note_empty_tables(a->lfts, f, r);
			note_undelivered(a->lfts, f, r);
		}
		if (!rc && a->sl) {
			rc = ibf_sl_read(f, a->sl, sl, err);
			*have_sl = !rc;
			if (!rc && !a->quiet)
				note_missing_sl(a->sl, f, sl);
		}
		if (!rc && a->sl2vl) {
			rc = ibf_sl2vl_read(f, a->sl2vl, s2v, err);
			*have_s2v = !rc;
			if (!rc && !a->quiet)
				note_empty_sl2vl(a->sl2vl, f, s2v);
		}
		return rc;
	}
	/* a->engine is known: parse_args refused any other name */
	struct ibf_route_opts ro;
	ibf_route_opts_default(&ro);
	ro.seed = a->o.seed;
	ro.log = cli_log;
	rc = ibf_route(f, a->engine, &ro, r, NULL, err);
	if (rc || a->deadlock == IBF_DEADLOCK_NONE)
		return rc;
	struct ibf_dl_opts dlo;
	ibf_dl_opts_default(&dlo);
	dlo.scheme = a->deadlock;
	dlo.max_vls = (int)a->vls;
	int info = !a->quiet;
	dlo.log = cli_log;
	dlo.log_ctx = &info;
	struct ibf_dl *dl = NULL;
	rc = ibf_deadlock_apply(f, r, &dlo, &dl, err);
	if (!rc) {
		char buf[1024];
		if (!a->quiet)
			fprintf(stderr, "ibfab sim packet: %s\n",
				ibf_dl_summary(dl, buf, sizeof(buf)));
		rc = ibf_sl_table_from_dl(f, dl, sl, err);
		*have_sl = !rc;
		if (!rc) {
			rc = ibf_sl2vl_table_from_dl(f, dl, s2v, err);
			*have_s2v = !rc;
		}
	}
	ibf_dl_free(dl);
	return rc;
}

/* CSV field: quoted, inner quotes doubled */
static void csv_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fputc('"', o);
}

/* A link end's GUID: its node's, or where the dump gives none (a ports
 * report) the port's, else the node's port 0's. */
static uint64_t end_guid(const struct ibf_fabric *f, uint32_t v, int p)
{
	if (f->nodes[v].guid)
		return f->nodes[v].guid;
	if (ibf_port(f, (int)v, p)->guid)
		return ibf_port(f, (int)v, p)->guid;
	return ibf_port(f, (int)v, 0)->guid;
}

static void write_link_util(FILE *o, const struct ibf_fabric *f, const double *load,
			    const struct ibf_psim_result *res, int n)
{
	/* the ends' GUIDs last (end_guid): real fabrics repeat descriptions
	 * (HCAs left at "MT25408 ConnectX Mellanox Technologies"), which
	 * alone cannot tell their links apart */
	fprintf(o, "load,from,from_port,to,to_port,kind,gbps,util,from_guid,to_guid\n");
	for (int k = 0; k < n; k++) {
		if (!res[k].nlinks)
			continue;
		for (uint32_t v = 0; v < f->nnodes; v++)
			for (int p = 1; p <= f->nodes[v].nports; p++) {
				const struct ibf_port *pp = ibf_port(f, (int)v, p);
				uint32_t g = f->nodes[v].port_off + (uint32_t)p;
				if (pp->peer_node == IBF_NO_NODE || g >= res[k].nlinks)
					continue;
				int a = f->nodes[v].type == IBF_NODE_SWITCH;
				int b = f->nodes[pp->peer_node].type == IBF_NODE_SWITCH;
				if (!a && !b)
					continue;
				fprintf(o, "%.4f,", load[k]);
				csv_str(o, node_label(f, v));
				fprintf(o, ",%d,", p);
				csv_str(o, node_label(f, (uint32_t)pp->peer_node));
				fprintf(o, ",%u,%s,%.3f,%.6f,0x%016llx,0x%016llx\n", pp->peer_port,
					a && b ? "switch"
					: a    ? "to-host"
					       : "from-host",
					(double)res[k].link_gbps[g], (double)res[k].link_util[g],
					(unsigned long long)end_guid(f, v, p),
					(unsigned long long)end_guid(f, (uint32_t)pp->peer_node,
								     pp->peer_port));
			}
	}
}

static void write_svg(FILE *o, const struct sp_args *a, const double *load,
		      const struct ibf_psim_result *res, int n)
{
	char title[512];
	const char *base = strrchr(a->topo, '/');
	snprintf(title, sizeof(title), "%s, %s%s%s, %s arbitration, seed %llu",
		 base ? base + 1 : a->topo, a->engine ? a->engine : "tables from ",
		 a->engine ? "" : (strrchr(a->lfts, '/') ? strrchr(a->lfts, '/') + 1 : a->lfts),
		 a->o.accels ? ", node model" : "",
		 a->o.arb == IBF_PSIM_ARB_AGE ? "age" : "round-robin",
		 (unsigned long long)a->o.seed);
	ibf_psim_svg_write(o, title, load, res, n);
}

/* Destinations per host from the first phase of a flow-simulator pattern
 * (ranks = hosts, one per host, in ibf_sim_net order). */
struct phase0 {
	uint32_t nh;
	uint32_t *off, *dst;
	int done;
};

static int take_phase(void *ctx, const struct ibf_sim_phase *ph, uint32_t index, uint32_t n)
{
	struct phase0 *p = ctx;
	(void)index;
	(void)n;
	p->off = calloc((size_t)p->nh + 1, sizeof(*p->off));
	p->dst = malloc((ph->nflows ? ph->nflows : 1) * sizeof(*p->dst));
	if (!p->off || !p->dst)
		return 1;
	for (uint64_t k = 0; k < ph->nflows; k++)
		if (ph->flow[k].src != ph->flow[k].dst && ph->flow[k].src < p->nh)
			p->off[ph->flow[k].src + 1]++;
	for (uint32_t h = 0; h < p->nh; h++)
		p->off[h + 1] += p->off[h];
	uint32_t *fill = calloc(p->nh ? p->nh : 1, sizeof(*fill));
	if (!fill)
		return 1;
	for (uint64_t k = 0; k < ph->nflows; k++) {
		const struct ibf_sim_flow *fl = &ph->flow[k];
		if (fl->src != fl->dst && fl->src < p->nh)
			p->dst[p->off[fl->src] + fill[fl->src]++] = fl->dst;
	}
	free(fill);
	p->done = 1;
	return 1; /* the first phase is enough */
}

/* The pattern run over the fabric's hosts in the flow simulator's order,
 * one rank each (linear placement), its phases to fn; ready(ctx, net, pl)
 * first, for callbacks that need them.  The network and placement live
 * only for the run. */
static int run_host_pattern(const struct sp_args *a, const struct ibf_fabric *f,
			    const struct ibf_routes *r, const struct ibf_sim_pattern *pat,
			    ibf_sim_phase_fn fn, void *ctx,
			    void (*ready)(void *ctx, const struct ibf_sim_net *net,
					  const struct ibf_sim_placement *pl),
			    struct ibf_error *err)
{
	struct ibf_sim_net net;
	int rc = ibf_sim_net_init(&net, f, r, IBF_CONG_ORDER_AUTO, err);
	if (rc)
		return rc;
	struct ibf_sim_placement pl;
	memset(&pl, 0, sizeof(pl));
	rc = ibf_sim_place(&net, IBF_PLACE_LINEAR, 0, 1, a->o.seed, NULL, &pl, err);
	if (!rc) {
		ready(ctx, &net, &pl);
		rc = ibf_sim_pattern_run(&net, &pl, pat, fn, ctx, err);
	}
	ibf_sim_placement_free(&pl);
	ibf_sim_net_free(&net);
	return rc;
}

static void phase0_ready(void *ctx, const struct ibf_sim_net *net,
			 const struct ibf_sim_placement *pl)
{
	(void)pl;
	((struct phase0 *)ctx)->nh = net->nhosts;
}

static int build_traffic(const struct sp_args *a, const struct ibf_fabric *f,
			 const struct ibf_routes *r, struct phase0 *p, struct ibf_error *err)
{
	struct ibf_sim_pattern pat = a->pattern;
	pat.seed = a->o.seed;
	int rc = run_host_pattern(a, f, r, &pat, take_phase, p, phase0_ready, err);
	if (!rc && !p->done)
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0, "the traffic pattern has no flows");
	if (rc == 0 && p->done && !p->off)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* flows from a host to itself are left out: none left would simulate
	 * an idle fabric and report 0 of 0 */
	if (rc == 0 && p->done && p->off && !p->off[p->nh])
		rc = ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"the traffic pattern has no flow between two hosts on this "
			"fabric (%u hosts: every flow of its first phase stays on its host)",
			p->nh);
	if (rc && p->done && err->code == 0)
		rc = 0;
	return rc;
}

/* Every phase of the pattern as message streams, with the flow simulator's
 * completion estimate of each phase (max-min fair rates, flows split
 * evenly over the LID layers as the packets are). */
struct streams {
	const struct ibf_sim_net *net;
	const struct ibf_sim_placement *pl;
	struct ibf_sim_layer_policy lp;
	struct ibf_error *err;
	uint32_t n, cap;
	uint32_t *off; /* [n + 1] */
	uint32_t *rep; /* [n] the phases' repeat counts */
	int first;     /* --reps first: each phase simulated once */
	struct ibf_psim_msg *msg;
	uint32_t nmsg, capmsg;
	struct sphase {
		char label[48];
		uint32_t repeat;
		double bytes, flow_us;
		int mixed; /* its messages differ in size (a traffic file): bytes is the largest */
	} * ph;
	struct ibf_psim_stream st;
	double *cns, *rg; /* [n] --compute, --reduce-gbps per phase (NULL: not given) */
	int fail;
	/* the tables do not deliver some flows: their packets are dropped as
	 * unroutable, and those phases have no flow simulator's time (-1);
	 * the first such phase's message, for a note */
	uint32_t noroute;
	char noroute_msg[IBF_ERR_MSG_MAX + 64];
};

static int take_stream_phase(void *ctx, const struct ibf_sim_phase *ph, uint32_t index, uint32_t n)
{
	struct streams *S = ctx;
	(void)index;
	(void)n;
	if (!ph->repeat)
		return 0; /* a step that happens 0 times (a ring of one) */
	if (S->n + 1 >= S->cap) {
		uint32_t c = S->cap ? 2 * S->cap : 16;
		uint32_t *o = realloc(S->off, (c + 1) * sizeof(*o));
		if (o)
			S->off = o;
		struct sphase *p = realloc(S->ph, c * sizeof(*p));
		if (p)
			S->ph = p;
		uint32_t *rp = realloc(S->rep, c * sizeof(*rp));
		if (rp)
			S->rep = rp;
		if (!o || !p || !rp)
			return S->fail = 1;
		S->cap = c;
	}
	if (S->nmsg + ph->nflows > S->capmsg) {
		uint64_t c = (S->nmsg + ph->nflows) * 2 + 64;
		if (c > UINT32_MAX)
			return S->fail = 1;
		struct ibf_psim_msg *m = realloc(S->msg, c * sizeof(*m));
		if (!m)
			return S->fail = 1;
		S->msg = m;
		S->capmsg = (uint32_t)c;
	}
	struct sphase *P = &S->ph[S->n];
	snprintf(P->label, sizeof(P->label), "%s", ph->label);
	P->repeat = ph->repeat;
	S->rep[S->n] = P->repeat;
	P->bytes = ph->bytes;
	P->mixed = 0;
	for (uint64_t k = 0; k < ph->nflows; k++)
		P->mixed |= ph->flow[k].bytes > 0 && ph->flow[k].bytes != ph->bytes;
	struct ibf_sim_phase_result pr;
	int frc = ibf_sim_maxmin_phase(S->net, S->pl, ph, &S->lp, &pr, NULL, NULL, S->err);
	if (frc == IBF_ENOROUTE) {
		/* the run itself drops such packets as unroutable, as with the
		 * other traffics (before, streams refused the tables) */
		if (!S->noroute++)
			snprintf(S->noroute_msg, sizeof(S->noroute_msg), "phase '%s': %s",
				 ph->label, S->err->msg);
		memset(S->err, 0, sizeof(*S->err));
		P->flow_us = -1;
	} else if (frc) {
		return S->fail = 2;
	} else {
		P->flow_us = pr.time_us;
	}
	S->off[S->n] = S->nmsg;
	for (uint64_t k = 0; k < ph->nflows; k++) {
		const struct ibf_sim_flow *fl = &ph->flow[k];
		uint32_t a = S->pl->host[fl->src], b = S->pl->host[fl->dst];
		if (a == b)
			continue; /* ranks on one host port: not in the network */
		/* a flow's demand caps its message (payload Gb/s); 0: elastic; a
		 * traffic file gives each flow its own size */
		double bytes = fl->bytes > 0 ? fl->bytes : ph->bytes;
		S->msg[S->nmsg++] = (struct ibf_psim_msg){ a, b, (uint64_t)(bytes + 0.5),
							   fl->demand > 0 ? fl->demand : 0 };
	}
	S->n++;
	S->off[S->n] = S->nmsg;
	return 0;
}

static void streams_ready(void *ctx, const struct ibf_sim_net *net,
			  const struct ibf_sim_placement *pl)
{
	struct streams *S = ctx;
	S->net = net;
	S->pl = pl;
}

/* --compute / --reduce-gbps: a value per phase (the last one for the
 * phases after it), no more values than phases. */
static int streams_compute(const struct sp_args *a, struct streams *S, struct ibf_error *err)
{
	const struct {
		const char *opt;
		uint32_t n;
		const double *v;
		double **out;
	} l[2] = { { "--compute", a->ncomp, a->comp, &S->cns },
		   { "--reduce-gbps", a->nred, a->red, &S->rg } };
	for (int i = 0; i < 2; i++) {
		if (!l[i].n)
			continue;
		if (l[i].n > S->n)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "%s has %u values, the pattern %u phase%s on this "
					     "fabric (one value per phase)",
					     l[i].opt, l[i].n, S->n, S->n == 1 ? "" : "s");
		*l[i].out = malloc(S->n * sizeof(double));
		if (!*l[i].out)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		for (uint32_t k = 0; k < S->n; k++)
			(*l[i].out)[k] = l[i].v[k < l[i].n ? k : l[i].n - 1];
	}
	S->st.compute_ns = S->cns;
	S->st.reduce_gbps = S->rg;
	return 0;
}

static int build_streams(const struct sp_args *a, const struct ibf_fabric *f,
			 const struct ibf_routes *r, struct streams *S, struct ibf_error *err)
{
	struct ibf_sim_pattern pat = a->pattern;
	pat.seed = a->o.seed;
	pat.bytes = a->bytes > 0 ? a->bytes : 1 << 20;
	S->err = err;
	ibf_sim_layers_parse("split", &S->lp, err);
	int rc = run_host_pattern(a, f, r, &pat, take_stream_phase, S, streams_ready, err);
	if (!rc && S->fail == 1)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	else if (!rc && S->fail)
		rc = err->code ? err->code : IBF_EINVAL;
	else if (!rc && !S->n)
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0, "the pattern has no phases");
	else if (!rc && !S->nmsg) /* as build_traffic: not an idle run done in 0 us */
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
				   "the traffic pattern has no flow between two hosts on this "
				   "fabric (every flow of every phase stays on its host)");
	S->net = NULL; /* freed with the run */
	S->pl = NULL;
	S->st.nphases = S->n;
	S->st.off = S->off;
	S->st.msg = S->msg;
	S->first = a->reps_first;
	S->st.repeat = S->first ? NULL : S->rep;
	S->st.sync = a->sync;
	if (!rc && S->noroute && !a->quiet)
		fprintf(stderr,
			"ibfab sim packet: note: the tables do not deliver every flow of %u phase(s), "
			"e.g. %s; their packets are dropped as unroutable and those phases have no "
			"flow simulator's time\n",
			S->noroute, S->noroute_msg);
	if (!rc)
		rc = streams_compute(a, S, err);
	return rc;
}

/* Mean cap of phase k's capped messages (0: none). */
static double streams_mean_cap(const struct streams *S, uint32_t k)
{
	double sum = 0;
	uint32_t n = 0;
	for (uint32_t m = S->off[k]; m < S->off[k + 1]; m++)
		if (S->msg[m].gbps > 0) {
			sum += S->msg[m].gbps;
			n++;
		}
	return n ? sum / n : 0;
}

/* Phase k's capped messages, when it has any: demand against what they got. */
static void print_caps(const struct streams *S, const struct ibf_psim_result *res, uint32_t k,
		       int json)
{
	const struct ibf_psim_phase_caps *c = res->phase_caps ? &res->phase_caps[k] : NULL;
	if (!c || !c->capped)
		return;
	if (json) {
		printf(",\"elastic_us\":%.4f,\"capped\":{\"messages\":%u,\"done\":%u,"
		       "\"demand_gbps_mean\":%.4f,\"gbps_min\":%.4f,\"gbps_mean\":%.4f,"
		       "\"gbps_max\":%.4f,\"max_of_demand\":%.4f}",
		       c->elastic_ns >= 0 ? c->elastic_ns / 1000.0 : -1.0, c->capped,
		       c->capped_done, streams_mean_cap(S, k), c->gbps_min, c->gbps_mean,
		       c->gbps_max, c->ratio_max);
		return;
	}
	printf("    %u capped (mean demand %.3f Gb/s), %u delivered", c->capped,
	       streams_mean_cap(S, k), c->capped_done);
	if (c->capped_done)
		printf(" at %.3f / %.3f / %.3f Gb/s min / mean / max (at most %.3f of the demand)",
		       c->gbps_min, c->gbps_mean, c->gbps_max, c->ratio_max);
	printf("; uncapped ");
	if (c->capped == S->off[k + 1] - S->off[k])
		printf("none\n");
	else if (c->elastic_ns >= 0)
		printf("done at %.3f us\n", c->elastic_ns / 1000.0);
	else
		printf("not finished\n");
}

/* The flow simulator's figure for the text after "flow simulator":
 * " 12.345 us" + what, or why there is none. */
static const char *flow_txt(char *buf, size_t n, double us, const char *what)
{
	if (us < 0)
		snprintf(buf, n, ": none, the tables do not deliver every flow");
	else
		snprintf(buf, n, " %.3f us%s", us, what);
	return buf;
}

/* The flow simulator's time of one repetition of phase k, plus with
 * --compute / --reduce-gbps the longest compute of a host after it (the
 * barrier's wait): the flow simulator moves bytes only. */
static double flow_step_us(const struct streams *S, const struct ibf_psim_result *res, uint32_t k)
{
	if (S->ph[k].flow_us < 0)
		return -1; /* the tables do not deliver all its flows */
	return S->ph[k].flow_us + (res->phase_compute_ns ? res->phase_compute_ns[k] / 1000.0 : 0);
}

/* With compute after steps: phase k's longest compute of a host after a
 * step (JSON field, or text inside the flow simulator's parenthesis). */
static void print_compute(const struct ibf_psim_result *res, uint32_t k, int json)
{
	if (!res->phase_compute_ns)
		return;
	if (json)
		printf(",\"compute_us\":%.4f", res->phase_compute_ns[k] / 1000.0);
	else
		printf(", of it compute %.3f us", res->phase_compute_ns[k] / 1000.0);
}

/* Phase k's repetitions as the run left them (NULL-safe). */
static struct ibf_psim_phase_reps phase_reps(const struct ibf_psim_result *res, uint32_t k)
{
	struct ibf_psim_phase_reps z = { 0, 0, 0, -1, -1, 0 };
	return res->phase_reps ? res->phase_reps[k] : z;
}

/* Packets of the streams dropped as unroutable (pairs the tables do not
 * join), all phases. */
static unsigned long long streams_lost(const struct streams *S, const struct ibf_psim_result *res)
{
	unsigned long long n = 0;
	for (uint32_t k = 0; k < S->n; k++)
		n += phase_reps(res, k).lost;
	return n;
}

/* A phase whose messages lost packets ends all the same (when every packet
 * is in or dropped): its time is not that of delivered messages, say so */
static void print_lost(const struct ibf_psim_phase_reps *rp, int json)
{
	if (json)
		printf(",\"unroutable_packets\":%llu", (unsigned long long)rp->lost);
	else if (rp->lost)
		printf("  NOT DELIVERED: %llu packets of these messages dropped as unroutable "
		       "(no route between their hosts): the messages did not arrive, the time is "
		       "when the rest was in\n",
		       (unsigned long long)rp->lost);
}

/* Why a stream run that did not finish stopped: a deadlock, or the time
 * limit (text; JSON with json). */
static const char *stream_stop(const struct ibf_psim_result *res, int json)
{
	if (res->deadlock)
		return json ? "\"deadlock\"" : "stopped by a deadlock (above)";
	return json ? "\"time limit\""
		    : "stopped by the time limit (--warmup + --measure + --drain)";
}

/* --sync rank: every host walks the steps on its own (rate caps as with
 * the barrier, each capped message's rate from its sender's step start).  The run's total
 * is when the last host finished its last step (-1 unless all did); per
 * phase the first start and last finish of its steps by the hosts taking
 * part, their span, and per step (first start to last finish) the mean,
 * min and max of the steps all its hosts finished.  A run stopped by the
 * time limit gives the steps every host finished (slowest, fastest, each
 * in JSON), nothing extrapolated. */
static void print_streams_rank(const struct streams *S, const struct ibf_psim_result *res, int json,
			       double ftot)
{
	char fb[64];
	uint64_t lo = 0, hi = 0;
	for (uint32_t h = 0; res->host_steps && h < res->nhosts; h++) {
		if (!h || res->host_steps[h] < lo)
			lo = res->host_steps[h];
		if (!h || res->host_steps[h] > hi)
			hi = res->host_steps[h];
	}
	int all = res->rank_total_ns >= 0;
	if (json) {
		printf(",\"streams\":{\"sync\":\"rank\",\"steps\":%llu,\"host_steps_min\":%llu,"
		       "\"host_steps_max\":%llu,\"phases_done\":%u,\"total_us\":%.4f,"
		       "\"stopped_by\":%s,\"flow_total_us\":%.4f,\"unroutable_packets\":%llu,"
		       "\"host_steps\":[",
		       (unsigned long long)res->steps, (unsigned long long)lo,
		       (unsigned long long)hi, res->phases_done,
		       all ? res->rank_total_ns / 1000.0 : -1.0, all ? "null" : stream_stop(res, 1),
		       ftot, streams_lost(S, res));
		for (uint32_t h = 0; res->host_steps && h < res->nhosts; h++)
			printf("%s%llu", h ? "," : "", (unsigned long long)res->host_steps[h]);
		printf("],\"host_end_us\":[");
		for (uint32_t h = 0; res->host_end_ns && h < res->nhosts; h++)
			printf("%s%.4f", h ? "," : "",
			       res->host_end_ns[h] >= 0 ? res->host_end_ns[h] / 1000.0 : -1.0);
		printf("],\"phases\":[");
		for (uint32_t k = 0; k < S->n; k++) {
			struct ibf_psim_phase_reps rp = phase_reps(res, k);
			const struct ibf_psim_phase_rank *pr = &res->phase_rank[k];
			printf("%s{\"label\":", k ? "," : "");
			ibf_json_str(stdout, S->ph[k].label);
			printf(",\"repeat\":%u,\"messages\":%u,\"bytes\":%.0f,\"hosts\":%u,"
			       "\"steps_done\":%u,\"first_start_us\":%.4f,\"last_finish_us\":%.4f,"
			       "\"span_us\":%.4f,\"step_us_mean\":%.4f,\"step_us_min\":%.4f,"
			       "\"step_us_max\":%.4f,\"flow_us\":%.4f",
			       S->ph[k].repeat, S->off[k + 1] - S->off[k], S->ph[k].bytes,
			       pr->hosts, rp.done, pr->first_ns >= 0 ? pr->first_ns / 1000.0 : -1.0,
			       pr->last_ns >= 0 ? pr->last_ns / 1000.0 : -1.0,
			       res->phase_ns[k] >= 0 ? res->phase_ns[k] / 1000.0 : -1.0,
			       rp.done ? rp.sum_ns / rp.done / 1000.0 : -1.0,
			       rp.done ? rp.min_ns / 1000.0 : -1.0,
			       rp.done ? rp.max_ns / 1000.0 : -1.0, flow_step_us(S, res, k));
			print_compute(res, k, 1);
			print_caps(S, res, k, 1);
			print_lost(&rp, 1);
			printf("}");
		}
		printf("]}");
		return;
	}
	printf("message streams, per-rank dependencies (--sync rank): ");
	if (all)
		printf("every host finished all %llu steps, total %.3f us (flow simulator%s)%s\n",
		       (unsigned long long)res->steps, res->rank_total_ns / 1000.0,
		       flow_txt(fb, sizeof(fb), ftot, ""),
		       streams_lost(S, res) ? "; NOT every message delivered (below)" : "");
	else
		printf("%s: the slowest host finished %llu of %llu steps, the fastest %llu; no "
		       "total\n",
		       stream_stop(res, 0), (unsigned long long)lo, (unsigned long long)res->steps,
		       (unsigned long long)hi);
	for (uint32_t k = 0; k < S->n; k++) {
		struct ibf_psim_phase_reps rp = phase_reps(res, k);
		const struct ibf_psim_phase_rank *pr = &res->phase_rank[k];
		printf("  phase %u '%s' x%u: %u messages of %s%.0f B, %u hosts: %u of %u steps done",
		       k, S->ph[k].label, S->ph[k].repeat, S->off[k + 1] - S->off[k],
		       S->ph[k].mixed ? "up to " : "", S->ph[k].bytes, pr->hosts, rp.done, rp.reps);
		if (pr->first_ns >= 0)
			printf(", first start %.3f us", pr->first_ns / 1000.0);
		if (pr->last_ns >= 0)
			printf(", last finish %.3f us (span %.3f us)", pr->last_ns / 1000.0,
			       res->phase_ns[k] / 1000.0);
		if (rp.done)
			printf("; per step %.3f / %.3f / %.3f us mean / min / max",
			       rp.sum_ns / rp.done / 1000.0, rp.min_ns / 1000.0,
			       rp.max_ns / 1000.0);
		printf(" (flow simulator%s",
		       flow_txt(fb, sizeof(fb), flow_step_us(S, res, k), " per repetition"));
		if (flow_step_us(S, res, k) >= 0) /* "of it": of the flow simulator's time */
			print_compute(res, k, 0);
		printf(")\n");
		print_caps(S, res, k, 0);
		print_lost(&rp, 0);
	}
}

/* Per phase: its repetitions run and finished, their time (the phase's
 * when all finished, -1 else) and mean / min / max per repetition; the run
 * total is the sum of what was simulated.  With --reps first only each
 * phase's first repetition ran: the total with the repeat counts is then an
 * estimate and says so (text and JSON). */
static void print_streams(const struct streams *S, const struct ibf_psim_result *res, int json)
{
	char fb[64];
	double simulated = 0, est = 0, ftot = 0;
	unsigned long long reps = 0, reps_done = 0;
	for (uint32_t k = 0; k < S->n; k++) {
		struct ibf_psim_phase_reps rp = phase_reps(res, k);
		simulated += rp.sum_ns / 1000.0;
		reps += rp.reps;
		reps_done += rp.done;
		est += rp.sum_ns / 1000.0 * S->ph[k].repeat;
		double f = flow_step_us(S, res, k);
		ftot = ftot < 0 || f < 0 ? -1 : ftot + f * S->ph[k].repeat;
	}
	if (res->sync == IBF_PSIM_SYNC_RANK) {
		print_streams_rank(S, res, json, ftot);
		return;
	}
	int all = res->phases_done == S->n;
	if (json) {
		printf(",\"streams\":{\"sync\":\"barrier\",\"reps\":\"%s\",\"phases_done\":%u,\"reps_run\":%llu,"
		       "\"reps_done\":%llu,\"simulated_us\":%.4f,\"total_us\":%.4f,\"stopped_by\":%s,",
		       S->first ? "first" : "all", res->phases_done, reps, reps_done, simulated,
		       all && !S->first ? simulated : -1.0, all ? "null" : stream_stop(res, 1));
		if (S->first)
			printf("\"estimated_total_us\":%.4f,", all ? est : -1.0);
		printf("\"flow_total_us\":%.4f,\"unroutable_packets\":%llu,\"phases\":[", ftot,
		       streams_lost(S, res));
		for (uint32_t k = 0; k < S->n; k++) {
			struct ibf_psim_phase_reps rp = phase_reps(res, k);
			double ph_us = res->phase_ns && res->phase_ns[k] >= 0
					       ? res->phase_ns[k] / 1000.0
					       : -1.0;
			printf("%s{\"label\":", k ? "," : "");
			ibf_json_str(stdout, S->ph[k].label);
			printf(",\"repeat\":%u,\"reps_run\":%u,\"reps_done\":%u,\"messages\":%u,"
			       "\"bytes\":%.0f,\"us\":%.4f,\"done_us\":%.4f,\"rep_us_mean\":%.4f,"
			       "\"rep_us_min\":%.4f,\"rep_us_max\":%.4f,",
			       S->ph[k].repeat, rp.reps, rp.done, S->off[k + 1] - S->off[k],
			       S->ph[k].bytes, ph_us, rp.sum_ns / 1000.0,
			       rp.done ? rp.sum_ns / rp.done / 1000.0 : -1.0,
			       rp.done ? rp.min_ns / 1000.0 : -1.0,
			       rp.done ? rp.max_ns / 1000.0 : -1.0);
			if (S->first)
				printf("\"estimated_us\":%.4f,",
				       ph_us >= 0 ? ph_us * S->ph[k].repeat : -1.0);
			printf("\"flow_us\":%.4f", flow_step_us(S, res, k));
			print_compute(res, k, 1);
			print_caps(S, res, k, 1);
			print_lost(&rp, 1);
			printf("}");
		}
		printf("]}");
		return;
	}
	if (S->first)
		printf("message streams, first repetition of each phase only (--reps first): "
		       "%u of %u phases done, %.3f us simulated",
		       res->phases_done, S->n, simulated);
	else
		printf("message streams: %u of %u phases done, %llu of %llu repetitions in %.3f us",
		       res->phases_done, S->n, reps_done, reps, simulated);
	if (all && S->first)
		printf("; ESTIMATE with repeats %.3f us (first repetition x repeat count, not "
		       "simulated; flow simulator%s)",
		       est, flow_txt(fb, sizeof(fb), ftot, ""));
	else if (all)
		printf(", total %.3f us (flow simulator%s)", simulated,
		       flow_txt(fb, sizeof(fb), ftot, ""));
	else
		printf("; %s: no total", stream_stop(res, 0));
	if (streams_lost(S, res))
		printf("; NOT every message delivered (below)");
	printf("\n");
	for (uint32_t k = 0; k < S->n; k++) {
		struct ibf_psim_phase_reps rp = phase_reps(res, k);
		int fin = res->phase_ns && res->phase_ns[k] >= 0;
		printf("  phase %u '%s' x%u: %u messages of %s%.0f B: ", k, S->ph[k].label,
		       S->ph[k].repeat, S->off[k + 1] - S->off[k], S->ph[k].mixed ? "up to " : "",
		       S->ph[k].bytes);
		if (S->first && fin)
			printf("first repetition %.3f us, ESTIMATE x%u %.3f us", rp.sum_ns / 1000.0,
			       S->ph[k].repeat, rp.sum_ns / 1000.0 * S->ph[k].repeat);
		else if (rp.done)
			printf("%u of %u repetitions in %.3f us%s, per repetition %.3f / %.3f / "
			       "%.3f us mean / min / max",
			       rp.done, rp.reps, rp.sum_ns / 1000.0, fin ? "" : " (not finished)",
			       rp.sum_ns / rp.done / 1000.0, rp.min_ns / 1000.0,
			       rp.max_ns / 1000.0);
		else
			printf("not finished (0 of %u repetitions)", rp.reps);
		printf(" (flow simulator%s",
		       flow_txt(fb, sizeof(fb), flow_step_us(S, res, k), " per repetition"));
		if (flow_step_us(S, res, k) >= 0) /* "of it": of the flow simulator's time */
			print_compute(res, k, 0);
		printf(")\n");
		print_caps(S, res, k, 0);
		print_lost(&rp, 0);
	}
}

/* The load points of a sweep, run by `threads` workers (each run is
 * independent and deterministic: the results do not depend on the thread
 * count); printed in load order afterwards. */
struct sweep {
	int n;
	double *load;
	struct ibf_psim_result *res;
	int *rc;
	struct ibf_error *err;
	/* shared with the workers */
	const struct sp_args *a;
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	const struct ibf_sl_table *sl;
	const struct ibf_sl2vl_table *s2v;
	pthread_mutex_t mu;
	int next;
};

static void *sweep_worker(void *arg)
{
	struct sweep *w = arg;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		int k = w->next++;
		pthread_mutex_unlock(&w->mu);
		if (k >= w->n)
			return NULL;
		struct ibf_psim_opts o = w->a->o;
		o.load = w->load[k];
		ibf_error_clear(&w->err[k]);
		w->rc[k] = ibf_psim_run(w->f, w->r, w->sl, w->s2v, &o, &w->res[k], &w->err[k]);
	}
}

static void sweep_free(struct sweep *w)
{
	for (int k = 0; k < w->n; k++)
		if (!w->rc[k])
			ibf_psim_result_free(&w->res[k]);
	free(w->load);
	free(w->res);
	free(w->rc);
	free(w->err);
	memset(w, 0, sizeof(*w));
}

static int sweep_run(const struct sp_args *a, const struct ibf_fabric *f,
		     const struct ibf_routes *r, const struct ibf_sl_table *sl,
		     const struct ibf_sl2vl_table *s2v, struct sweep *w, struct ibf_error *err)
{
	int n = (int)a->nloads;
	w->load = calloc((size_t)n, sizeof(*w->load));
	w->res = calloc((size_t)n, sizeof(*w->res));
	w->rc = calloc((size_t)n, sizeof(*w->rc));
	w->err = calloc((size_t)n, sizeof(*w->err));
	if (!w->load || !w->res || !w->rc || !w->err)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	w->n = n;
	for (int k = 0; k < n; k++) {
		double l = a->l0 + k * a->lstep;
		w->load[k] = l > 1.0 ? 1.0 : l;
		w->rc[k] = IBF_EINVAL; /* not run yet */
	}
	w->a = a;
	w->f = f;
	w->r = r;
	w->sl = sl;
	w->s2v = s2v;
	pthread_mutex_init(&w->mu, NULL);
	int nt = (int)(a->threads < n ? a->threads : n);
	pthread_t th[64];
	int started = 0;
	for (int t = 1; t < nt; t++)
		if (!pthread_create(&th[started], NULL, sweep_worker, w))
			started++;
	sweep_worker(w);
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&w->mu);
	for (int k = 0; k < n; k++)
		if (w->rc[k]) {
			*err = w->err[k];
			return w->rc[k];
		}
	return 0;
}

int cmd_sim_packet(int argc, char **argv)
{
	struct sp_args a;
	const char *prog = "ibfab sim packet";
	int rc = parse_args(prog, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a.topo, a.g2l, a.lmc, a.quiet, &err);
	if (!f)
		return cli_fail(&err);
	struct ibf_routes r;
	struct ibf_sl_table sl;
	struct ibf_sl2vl_table s2v;
	memset(&r, 0, sizeof(r));
	memset(&sl, 0, sizeof(sl));
	memset(&s2v, 0, sizeof(s2v));
	int have_sl = 0, have_s2v = 0, dead = 0;
	rc = get_tables(&a, f, &r, &sl, &s2v, &have_sl, &have_s2v, &err);
	struct phase0 tr;
	memset(&tr, 0, sizeof(tr));
	if (!rc && a.have_pattern && a.o.accels)
		rc = ibf_error_set(
			&err, IBF_EINVAL, NULL, 0,
			"--traffic patterns drive hosts; the node model has its own mixes");
	struct streams S;
	memset(&S, 0, sizeof(S));
	if (!rc && a.streams) {
		rc = build_streams(&a, f, &r, &S, &err);
		a.o.stream = &S.st;
	} else if (!rc && a.have_pattern) {
		rc = build_traffic(&a, f, &r, &tr, &err);
		a.o.traffic_off = tr.off;
		a.o.traffic_dst = tr.dst;
		a.o.traffic_nhosts = tr.nh;
	}
	struct sweep sw;
	memset(&sw, 0, sizeof(sw));
	if (!rc && a.codes) {
		struct ibf_psim_codes_info ci;
		a.o.load = a.l0;
		rc = ibf_psim_export_codes(f, &r, &a.o, a.codes, &ci, &err);
		if (!rc)
			printf("CODES fattree export in %s: %d levels, radix %d, %u routers, %u "
			       "terminals, %u switch links, %llu LFT rows, %llu flows%s%s",
			       ci.folder, ci.levels, ci.radix, ci.routers, ci.terminals, ci.links,
			       (unsigned long long)ci.lft_rows, (unsigned long long)ci.flows,
			       have_sl ? "; SLs/SL2VL not exported (the model has no VLs)" : "",
			       ci.mixed_rates ? "; mixed link rates: one rate per link class" : "");
		/* the simulation draws one of 2^LMC LIDs per packet; CODES has one
		 * entry per terminal: say that the other layers are not there */
		if (!rc && ci.lmc)
			printf("; LMC %d: the routes of the base LIDs only (layer 0 of %d)", ci.lmc,
			       1 << ci.lmc);
		if (!rc)
			printf("\n");
		goto done;
	}
	/* the output files are opened (created as temporaries) before the
	 * runs, so a path that cannot be written fails at once and not after
	 * a long sweep, and are committed together at the end */
	struct ibf_atomic lu, fig;
	struct ibf_error e2;
	int rc2;
	memset(&lu, 0, sizeof(lu));
	memset(&fig, 0, sizeof(fig));
	if (!rc && a.link_util)
		rc = ibf_atomic_open(&lu, a.link_util, &err);
	if (!rc && a.svg)
		rc = ibf_atomic_open(&fig, a.svg, &err);
	if (!rc)
		rc = sweep_run(&a, f, &r, have_sl ? &sl : NULL, have_s2v ? &s2v : NULL, &sw, &err);
	for (int k = 0; !rc && k < sw.n; k++) {
		const struct ibf_psim_result *res = &sw.res[k];
		if (a.json) {
			printf("%s{\"load\":%.6f,\"result\":", k ? "," : "{\"runs\":[", sw.load[k]);
			ibf_psim_result_write_json(f, res, a.o.vls, stdout);
			if (a.streams)
				print_streams(&S, res, 1);
			printf("}");
		} else {
			printf("%sload %.4f (seed %llu, %s arbitration, %u B buffers, %u B packets)\n",
			       k ? "\n" : "", sw.load[k], (unsigned long long)a.o.seed,
			       a.o.arb == IBF_PSIM_ARB_AGE ? "age" : "round-robin", a.o.buf_bytes,
			       a.o.mtu_payload + a.o.hdr_bytes);
			ibf_psim_result_write_text(f, res, a.o.vls, stdout);
			if (a.streams)
				print_streams(&S, res, 0);
		}
		dead |= res->deadlock;
	}
	if (!rc && a.json)
		printf("]}\n");
	if (!rc && a.link_util)
		write_link_util(lu.fp, f, sw.load, sw.res, sw.n);
	if (!rc && a.svg)
		write_svg(fig.fp, &a, sw.load, sw.res, sw.n);
	/* committed when the runs succeeded, else removed */
	if (lu.fp && (rc2 = ibf_atomic_commit(&lu, !rc, rc ? &e2 : &err)) && !rc)
		rc = rc2;
	if (fig.fp && (rc2 = ibf_atomic_commit(&fig, !rc, rc ? &e2 : &err)) && !rc)
		rc = rc2;
done:
	sweep_free(&sw);
	free(tr.off);
	free(tr.dst);
	free(S.off);
	free(S.msg);
	free(S.ph);
	free(S.rep);
	free(S.cns);
	free(S.rg);
	ibf_sl_table_free(&sl);
	ibf_sl2vl_table_free(&s2v);
	ibf_routes_free(&r);
	ibf_fabric_free(f);
	if (rc)
		return cli_fail(&err);
	return dead ? 1 : 0;
}
