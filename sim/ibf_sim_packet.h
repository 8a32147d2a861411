/* ibfab offline simulator, packet level (docs/simulation.md).
 *
 * A discrete-event model of an InfiniBand fabric driven by the tables ibfab
 * (or a live fabric) programs: the LFTs (struct ibf_routes), the path SLs
 * (struct ibf_sl_table) and the switches' SL2VL tables (struct
 * ibf_sl2vl_table).  Switches are input-queued with one buffer per input
 * port and VL, forward by virtual cut-through, and send only when the
 * downstream buffer has room for the whole packet (credit-based flow
 * control per VL).  Each output port arbitrates among the heads of the input
 * buffers that want it, round-robin over the input ports or oldest packet
 * first.  Links run at width x speed of the fabric's ports; a link's
 * propagation delay is ns_per_m x a length per link class.
 *
 * Hosts are the end ports (CA/router ports cabled to a switch).  Each
 * sends open-loop traffic: packets with exponential gaps at `load` x its
 * link rate, to a destination host drawn uniformly among the others, or
 * among its destinations in a fixed pattern (LID layer drawn uniformly when
 * the LMC is > 0).
 *
 * Deterministic: the same inputs and seed give the same results (events
 * ordered by time, ties broken by insertion order; one random stream).
 * Single-threaded.  No OpenSM headers, no printing. */
#ifndef IBF_SIM_PACKET_H
#define IBF_SIM_PACKET_H

#include "ibf_deadlock.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ibf_psim_arb {
	IBF_PSIM_ARB_RR = 0,  /* round-robin over the input ports (then VLs) */
	IBF_PSIM_ARB_AGE = 1, /* oldest packet (generation time) first */
};

/* Timed message streams: phases of messages (host indices as
 * ibf_sim_net_init numbers them); phase k is msg[off[k] .. off[k + 1] - 1].
 * gbps > 0 caps a message's rate (payload Gb/s, as a flow's demand in the
 * flow simulator): its bytes become available at that rate and a packet
 * leaves no earlier than its payload is available, so the message takes at
 * least bytes x 8 / gbps ns; 0: elastic (as fast as the host's load and
 * queue allow). */
struct ibf_psim_msg {
	uint32_t src, dst;
	uint64_t bytes;
	double gbps;
};
struct ibf_psim_stream {
	uint32_t nphases;
	const uint32_t *off; /* [nphases + 1] */
	const struct ibf_psim_msg *msg;
	/* [nphases]: phase k runs repeat[k] times (>= 1), each repetition
	 * starting when every packet of the previous one is delivered or
	 * dropped, as the next phase does; NULL: every phase once */
	const uint32_t *repeat;
	int sync; /* enum ibf_psim_sync: when a host starts its next step */
	/* [nphases] each, or NULL (none): compute after every step of phase k
	 * a host takes part in, before it may start its next step (and, after
	 * its last step, before it is done): compute_ns[k] plus the payload
	 * bytes addressed to it in the step x 8 / reduce_gbps[k] (0: no
	 * per-byte part); compute_ns[k] in [0, 1e13], and the sum for any
	 * host at most 1e13 ns (IBF_EINVAL: a reduction rate too low).  With
	 * the barrier a step ends when every packet is in and every host
	 * taking part has computed. */
	const double *compute_ns;
	const double *reduce_gbps;
};

/* A step is one repetition of one phase, in order (phase 0's repetitions,
 * then phase 1's, ...).
 *   BARRIER: every host starts step s + 1 when every packet of step s is
 *            delivered (or dropped).
 *   RANK:    host h starts step s + 1 as soon as (a) every packet
 *            addressed to h in step s is delivered to h (or dropped on the
 *            way) and (b) h has handed all its own packets of step s to
 *            its queue; a host with nothing to receive needs only (b), one
 *            with nothing to send or receive passes the step at once.
 *            Steps of different hosts overlap.  A packet carries its
 *            message's number over all steps (at most 2^32 - 1 of them in
 *            a run) and at most 2^24 steps.  A capped message's bytes
 *            become available at its cap from its sender's start of the
 *            step (ibf_psim_phase_caps: its achieved rate from there; the
 *            uncapped messages' time from the phase's first start). */
enum ibf_psim_sync {
	IBF_PSIM_SYNC_BARRIER = 0,
	IBF_PSIM_SYNC_RANK = 1,
};

struct ibf_psim_opts {
	uint64_t seed;
	double load;	       /* offered load per host, fraction of its link rate [1e-6, 1] */
	uint32_t mtu_payload;  /* payload bytes per packet (default 4032; >= 1 with streams) */
	uint32_t hdr_bytes;    /* header bytes per packet (default 64) */
	uint32_t buf_bytes;    /* input buffer per port and VL (default 131072) */
	int vls;	       /* data VLs modelled, 1..15 (default 8) */
	int arb;	       /* enum ibf_psim_arb */
	int islip_iters;       /* 0 (default): each output arbitrates alone when it is free;
				* N: iSLIP over the switch's free outputs and inputs with N
				* grant/accept rounds (pointers move in the first only) */
	double warmup_ns;      /* default 20000 */
	double measure_ns;     /* default 50000 */
	double drain_ns;       /* after the window: wait this long at most for
				* the measured packets still in flight (default
				* = measure_ns); generation goes on meanwhile */
	double router_ns;      /* head arrival -> eligible at the output (default 100) */
	double ns_per_m;       /* propagation (default 25, as in SAURON) */
	double host_cable_m;   /* length of host links (default 2) */
	double switch_cable_m; /* length of switch-to-switch links (default 10) */
	double stall_ns;       /* deadlock: packets in switch buffers and nothing
				* moved for this long (default 50000) */
	uint32_t srcq_max;     /* packets a host queues before it drops new ones (default 256) */
	uint32_t max_cycle;    /* longest deadlock cycle reported, >= 1 (default 64) */
	/* fixed destinations instead of uniform traffic (NULL: uniform): host
	 * h sends to dst[off[h] .. off[h + 1] - 1] (host indices as
	 * ibf_sim_net_init numbers them), one drawn uniformly per packet; a
	 * host without destinations stays silent.  off has nhosts + 1 entries.
	 * Not used (nor checked) with message streams or the node model. */
	const uint32_t *traffic_off, *traffic_dst;
	uint32_t traffic_nhosts;
	/* message streams instead of open-loop traffic (NULL: off): phase 0
	 * starts at time 0, every phase (and every repetition of a phase)
	 * starts when the previous one's messages are all delivered; each
	 * host sends its messages of the phase at once, packet by packet in
	 * turn over them (MTU payload, the
	 * last packet of a message shorter), paced at `load` x its link rate
	 * and waiting (not dropping) while its queue holds srcq_max packets;
	 * a message with a rate cap (ibf_psim_msg.gbps) is skipped in the turn
	 * until its next packet's payload is available at the cap.
	 * The run stops after the last phase, or at warmup + measure + drain
	 * (the window starts at 0).  Not with the node model. */
	const struct ibf_psim_stream *stream;
	/* node model (accels > 0): every end port is the NIC of a node of
	 * `accels` accelerators on an intra-node switch; the accelerators send
	 * open-loop messages at `load` x acc_gbps (payload), split into
	 * intra-node packets; those for other nodes cross the NIC link, are
	 * packed by the NIC into fabric packets per destination node (sealed
	 * when the next one would not fit or after agg_timeout_ns), and split
	 * again by the destination NIC.  Intra-node links are store-and-forward
	 * queues, unbounded or (node_buf_bytes) with back-pressure; the fabric
 * keeps its full model.
	 * At most 4096 nodes. */
	int accels;	       /* accelerators per node, 0 = off (hosts send uniform traffic) */
	double acc_gbps;       /* accelerator <-> intra-node switch link, 0.1..1e6 (default 512) */
	double nic_gbps;       /* intra-node switch <-> NIC link, 0.1..1e6 (default 128) */
	uint32_t ipkt_payload; /* intra-node packet payload (default 128) */
	uint32_t ipkt_hdr;     /* intra-node packet header (default 20) */
	uint32_t msg_bytes;    /* message size (default 4096) */
	double inter_frac;     /* share of messages for other nodes (C1..C5: .20 .15 .10 .05 0) */
	double node_hop_ns;    /* each intra-node link: propagation + switching (default 20) */
	double nic_agg_ns; /* NIC: cost of handing a sealed fabric packet to the port (default 50) */
	double nic_split_ns;	 /* NIC: cost of splitting a fabric packet (default 50) */
	uint32_t node_buf_bytes; /* > 0: bounded intra-node queues with back-pressure: a
				  * link sends its head packet only when the queue after it
				  * (accelerator link, NIC link) holds less than this many
				  * bytes, else it waits (its FIFO blocks behind: head-of-line
				  * blocking); 0 (default): unbounded */
	uint32_t nic_buf_bytes;	 /* with node_buf_bytes: what a NIC holds (aggregation and
				  * port queue) before the NIC link waits (default 262144) */
	double nic_pkt_ns;	 /* NIC: processing time of each intra-node packet, on its way
				* in (before aggregation) and out (after the split); one
				* packet at a time per direction (default 0: none) */
	double agg_timeout_ns;	 /* NIC: seal a partly filled fabric packet after (default 200) */
	double acc_pkt_ns;	 /* an accelerator link (either way) is busy at least this long
				  * per intra-node packet: a packet-rate limit (default 0) */
	int node_vls;		 /* with node_buf_bytes: 1 (default): one queue per intra-node
				  * link; 2: intra-node and inter-node packets on their own
				  * VL, each with its own FIFO and node_buf_bytes of credits
				  * per queue, the link serving the VLs in turn */
	int node_voq;		 /* with node_buf_bytes: 1: the links into the intra-node
				  * switch (accelerator up links, the link from the NIC)
				  * keep one queue per output of the switch (virtual
				  * output queues) and send, round-robin over the outputs,
				  * the first head whose next queue has room; a full
				  * output no longer holds back packets for the others.
				  * Each such queue holds one node VL's packets, so it
				  * combines with node_vls 2 (default 0: one FIFO per VL) */
};
void ibf_psim_opts_default(struct ibf_psim_opts *o);

/* One buffer of a deadlock cycle: the input buffer of (node, port) for VL
 * vl, fed by (from_node, from_port). */
struct ibf_psim_buf {
	int32_t from_node, node;
	uint8_t from_port, port, vl;
	uint32_t pkts; /* packets in it */
};

struct ibf_psim_result {
	uint32_t nhosts;
	uint32_t in_switch; /* CA ports inside their switch: no hosts (ibf_end_ports) */
	double host_gbps;	/* sum of the sending hosts' link rates (Gb/s) */
	uint32_t assumed_links; /* cabled ports of unknown width/speed: given the
				  * fabric's most common rate (as in ibf_sim_net) */
	double sim_ns;		/* simulated time at the end */
	/* packets */
	uint64_t generated;	/* created by the hosts (whole run) */
	uint64_t src_dropped;	/* not queued: the host's queue was full */
	uint64_t unroutable;	/* dropped in the fabric: no LFT entry, no cable,
				  * no SL2VL entry or a VL >= vls, delivered to the
				  * wrong host or past max(64, switches + 2)
				  * links (a loop) */
	uint64_t unroutable_vl; /* of those, for a VL >= vls from the SL2VL table */
	uint64_t delivered;	/* whole run */
	uint64_t measured;	/* generated inside the window */
	uint64_t measured_done; /* of those, delivered before the end */
	/* accepted throughput: wire bytes delivered inside the window */
	double offered_frac;  /* generated (incl. dropped) / host capacity in the window */
	double accepted_frac; /* delivered / host capacity */
	double accepted_gbps; /* aggregate, payload only */
	/* latency of the measured packets delivered: generation -> tail at the
	 * destination, ns */
	double lat_mean, lat_p50, lat_p99, lat_max;
	double hops_mean; /* switch-to-switch hops of those packets */
	/* switch-to-switch links, inside the window */
	double vl_util[16];	/* bytes on VL v / capacity of all such links */
	double link_util_max;	/* busiest directed switch link */
	float *link_util;	/* [nlinks] every directed link by its sending port's global
				  * index (nodes[n].port_off + p): bytes sent in the window /
				  * capacity; 0 without a cable.  Owned (NULL when memory ran out) */
	float *link_gbps;	/* [nlinks] the rate each link ran at (0: none); owned */
	uint32_t nlinks;	/* 0 when the two arrays are missing */
	uint64_t credit_stalls; /* arbitrations where a head packet found its output
				  * and input free but not enough credits */
	uint64_t stalled_pkts;	/* packets that waited for credits at least once */
	/* work */
	uint64_t events;
	uint64_t pkt_hops; /* link traversals (host links included) */
	double wall_s;
	/* node model (accels > 0): intra-node packets generated inside the
	 * window and delivered to their accelerator */
	double node_max_gbps;	       /* nodes x accels x acc_gbps */
	double intra_gbps, inter_gbps; /* payload delivered in the window, by kind */
	uint64_t ipkts_measured, ipkts_done;
	double ilat_mean, ilat_p50, ilat_p99; /* generation -> tail at the accelerator, ns */
	/* mean latency components (ns) of the inter-node packets: source
	 * accelerator (queue before its link), source intra-node network (to
	 * the tail at the NIC), source NIC aggregation (until handed to the
	 * port, incl. waiting for the packet to fill), fabric (port queue and
	 * fabric, to the tail at the destination NIC), destination NIC split
	 * (until it starts on the NIC link), destination intra-node network,
	 * destination accelerator (no receive cost is modelled: 0) */
	double comp_inter[7];
	double comp_intra[2]; /* intra-node packets: source accelerator, intra-node network */
	/* measured intra-node packets delivered that left their node (the
	 * count behind comp_inter) and that stayed in it (comp_intra) */
	uint64_t n_inter, n_intra;
	double agg_mean; /* intra-node packets per fabric packet */
	/* message streams: completion time of each phase, all its
	 * repetitions (ns from its start, -1: not finished), owned;
	 * phases_done of nphases finished */
	uint32_t nphases, phases_done;
	double *phase_ns;
	/* and per phase (owned, [nphases]) its repetitions: they run back to
	 * back from the phase's start, so the finished ones of all phases end
	 * at the sum of their sum_ns */
	struct ibf_psim_phase_reps {
		uint32_t reps;		       /* to run (ibf_psim_stream.repeat, 1 without) */
		uint32_t done;		       /* of those, finished */
		double sum_ns, min_ns, max_ns; /* of the finished ones (sum 0, min/max -1 when
						* none) */
		uint64_t lost; /* packets of its messages dropped as unroutable (all
				* repetitions): their messages never arrive, though the
				* repetition ends when every packet is in or dropped */
	} * phase_reps;
	/* and per phase (owned, [nphases]) its rate-capped messages, over
	 * all its repetitions */
	struct ibf_psim_phase_caps {
		uint32_t capped;      /* messages with a cap (x the repetitions) */
		uint32_t capped_done; /* of those, delivered */
		double elastic_ns;    /* the uncapped messages of the last repetition all
				       * delivered (ns from the phase's start); -1: not
				       * finished, or none */
		/* achieved payload rate of the delivered capped messages: bytes x 8
		 * / (last packet delivered - start of its repetition), Gb/s; and
		 * the highest achieved / cap (<= 1: the cap counts from the
		 * repetition's start) */
		double gbps_min, gbps_mean, gbps_max, ratio_max;
	} * phase_caps;
	/* message streams with IBF_PSIM_SYNC_RANK (sync 1; the fields above:
	 * phase_ns[k] is the phase's span, first start to last finish, -1
	 * until every step of it is done by every host taking part;
	 * phases_done counts those phases; phase_reps[k].done counts the
	 * phase's steps done by all its hosts, sum_ns / min_ns / max_ns their
	 * spans).  A host takes part in a step when it sends or receives a
	 * message in it; it starts the step when it may (see ibf_psim_sync)
	 * and finishes it when it may start the next. */
	int sync;
	uint64_t steps;	      /* of the run: the phases' repeat counts summed */
	uint64_t *host_steps; /* [nhosts] steps each host finished; owned */
	double *host_end_ns;  /* [nhosts] when it finished the last one (-1: not); owned */
	double rank_total_ns; /* every host finished every step (ns); -1 */
	struct ibf_psim_phase_rank {
		uint32_t hosts;	     /* taking part in each of its steps */
		double first_ns;     /* the first of them started its first step; -1 */
		double last_ns;	     /* the last finished its last step; -1 until all did */
		double span_mean_ns; /* per step done: last finish - first start, mean */
	} * phase_rank;		     /* [nphases], owned */
	/* [nphases], owned, NULL without compute (ibf_psim_stream.compute_ns,
	 * reduce_gbps): per phase the longest compute of one host after one
	 * of its steps (ns), what a barrier waits for after the step's last
	 * packet */
	double *phase_compute_ns;
	/* deadlock */
	int deadlock;		/* 1: detected (the run stopped there) */
	double deadlock_ns;	/* simulated time of the detection */
	uint64_t deadlock_pkts; /* packets in switch buffers then */
	int deadlock_partial;	/* 1: the cycle locked while other packets still moved */
	int deadlock_end;	/* 1 (with partial): found by the look at the end of the
				 * run, the cycle having locked after the last watchdog
				 * check */
	uint32_t cycle_len;
	struct ibf_psim_buf *cycle; /* [cycle_len], owned; buffer i waits on i + 1 */
	uint32_t cycle_total;	    /* buffers of the whole cycle: cycle_len of them are
				     * listed (at most ibf_psim_opts.max_cycle) */
};
void ibf_psim_result_free(struct ibf_psim_result *res);

/* The checks ibf_psim_run makes of its options before it starts (ranges,
 * a buffer that holds one packet, times): 0 or IBF_EINVAL with the reason,
 * so a caller can refuse bad options before loading or routing a fabric. */
int ibf_psim_opts_check(const struct ibf_psim_opts *o, struct ibf_error *err);

/* Run one simulation.  f finalized with LIDs; r its tables; sl (NULL: SL 0
 * everywhere) and s2v (NULL: VL = SL mod vls) the SL tables.  A packet's VL
 * on its first link (host -> switch) is SL mod vls.  Returns 0 (a
 * deadlock is a result, not an error) or a negative ibf_errcode (err may be
 * NULL). */
int ibf_psim_run(const struct ibf_fabric *f, const struct ibf_routes *r,
		 const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v,
		 const struct ibf_psim_opts *o, struct ibf_psim_result *res, struct ibf_error *err);

/* Readable report / one JSON object (no trailing newline). */
void ibf_psim_result_write_text(const struct ibf_fabric *f, const struct ibf_psim_result *res,
				int vls, FILE *out);
void ibf_psim_result_write_json(const struct ibf_fabric *f, const struct ibf_psim_result *res,
				int vls, FILE *out);

/* An SVG figure of n runs (load[k] gave res[k]): accepted throughput against
 * the offered load (intra-node, inter-node and total Gb/s with the node
 * model, accepted payload Gb/s without) and per load point a stacked bar of
 * the seven mean latency components of the inter-node packets (without the
 * node model: mean latency, p99 as a tick).  Points and bar segments carry
 * data-series/data-component, data-load and data-value attributes.  title
 * may be NULL. */
void ibf_psim_svg_write(FILE *out, const char *title, const double *load,
			const struct ibf_psim_result *res, int n);

/* Export to CODES (docs/simulation.md, "Export to CODES"): when the fabric
 * is wired as the fat tree CODES's `fattree` model builds (2 or 3 levels,
 * radix = 2 x hosts per leaf, ft_type 0, tapering 1), write into dir
 * (created if missing): codes-fattree.conf (the model's config, static
 * routing), one 0x<switch guid>.lft per switch (the fabric's LFT entries for
 * every host's base LID in CODES's port numbering), codes-map.csv (every
 * CODES switch port and the fabric port it stands for), traffic.txt (the
 * pattern's flows, when o->traffic_off is set) and run-codes.sh.  A fabric
 * of another shape or a missing route is IBF_EINVAL with the reason, before
 * anything is written. */
struct ibf_psim_codes_info {
	int levels, radix;
	uint32_t routers, terminals, links; /* links: switch-to-switch cables */
	uint64_t lft_rows, flows;
	int mixed_rates;   /* the fabric has more than one switch or host link rate */
	int lmc;	   /* the largest LMC of the terminals' ports: only their base
			    * LIDs' routes are exported (layer 0) */
	char folder[4096]; /* dir as an absolute path (the config's routing_folder) */
};
int ibf_psim_export_codes(const struct ibf_fabric *f, const struct ibf_routes *r,
			  const struct ibf_psim_opts *o, const char *dir,
			  struct ibf_psim_codes_info *info, struct ibf_error *err);

#ifdef __cplusplus
}
#endif
#endif
