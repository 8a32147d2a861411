/* Packet-level simulator: the discrete-event core (see ibf_sim_packet.h and
 * docs/simulation.md).
 *
 * Ports are named by their global index g = nodes[n].port_off + p; the
 * directed link g -> peer[g] belongs to its sending port.  The input buffer
 * of port g for VL v is the FIFO fid = v << psh | g (2^psh >= ports: no
 * divisions to get the port and VL back).  The sender of a link
 * holds the credits of the receiver's buffers (credits[fid], bytes),
 * takes a whole packet's worth when it starts sending (virtual cut-through)
 * and gets them back, one propagation delay later, when the packet's tail
 * has left the receiver's buffer.
 *
 * Events, ordered by time, then by type (this list's order), then by the
 * order they were pushed in (see push):
 *   GEN      a host creates a packet (open loop: Poisson, see gen_next)
 *   ARRIVE   a packet's head has reached a switch input and been routed
 *            (router delay included); it joins the FIFO of its VL
 *   TXDONE   an output port finished sending (the tail left): the output
 *            and the input it served are free, the input's credits go back
 *   CREDIT   wakes a sender that stalled on credits at its first pending
 *            return.  Credit returns are not events: each waits, with its
 *            time, in the sending port (the first) or the port's list (the
 *            others) and is counted in when the port next looks at its
 *            credits; credits that come back at time t count for every
 *            event at t
 *   DELIVER  a packet's tail reached its destination host (b: the busy
 *            time of its last link, ps)
 *   CHECK    the deadlock watchdog
 * Times are integer picoseconds. */
#include "ibf_sim_packet.h"
#include "ibf_sim.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Make room for one more element in the array arr (n used of cap, doubling
 * from `first`); runs `fail` when memory runs out. */
#define GROW(arr, n, cap, first, fail)                                  \
	do {                                                            \
		if ((n) == (cap)) {                                     \
			size_t c_ = (cap) ? (size_t)(cap)*2 : (first);  \
			void *x_ = realloc((arr), c_ * sizeof(*(arr))); \
			if (!x_)                                        \
				fail;                                   \
			(arr) = x_;                                     \
			(cap) = c_;                                     \
		}                                                       \
	} while (0)

enum {
	EV_GEN,
	EV_ARRIVE,
	EV_TXDONE,
	EV_CREDIT,
	EV_DELIVER,
	EV_CHECK,
	/* node model */
	EV_AGEN,   /* an accelerator creates a message */
	EV_NREADY, /* an intra-node packet is ready at an intra-node link */
	EV_NDONE,  /* an intra-node link finished sending */
	EV_AGG,	   /* a NIC's aggregation timeout */
	EV_HCA,	   /* a sealed fabric packet reaches the NIC's port queue */
	/* message streams */
	EV_STEP, /* a host (a; UINT32_MAX: the barrier) finished computing after a step */
	EV_NONE = 16, /* pop: no event left */
};
#define EV_BITS 4u

/* k: time (ps) << EV_BITS | type, the order of events (see push) */
struct ev {
	uint64_t k;
	uint32_t a, b;
};

struct evvec {
	struct ev *v;
	uint32_t n, cap;
};

/* A lane: the events scheduled one fixed delay d after their push, in a
 * ring (see push). */
#define NLANES 16
struct lane {
	struct ev *v;
	uint32_t head, n, mask;
	uint32_t type; /* of all its events */
};

struct qbucket {
	int32_t head, tail;
};

struct evn {
	struct ev e;
	int32_t next;
};

/* a credit return not (yet) queued as an event, after the port's first */
struct pcred {
	uint64_t t;	/* ps */
	uint32_t idx;	/* credits[] index */
	uint32_t bytes;
	int32_t next;
};

#define PK_MEASURED 1u
#define PK_STALLED 2u
#define PK_NONE (-1)
#define RT_NONE UINT32_MAX
#define RT_ANY (-2) /* downer: the home switch's entry is not an end port */

struct pkt {
	uint64_t birth;	   /* ps */
	uint64_t tail;	   /* ps: tail arrival at the current hop */
	int32_t next;	   /* FIFO / free list */
	uint32_t src, dst; /* host indices */
	uint32_t out;	   /* output port (global) at the current switch */
	uint32_t dlid;
	uint16_t bytes;
	uint8_t sl, vl;	 /* vl: VL of the link it last crossed */
	uint8_t vl_next; /* VL on the output link */
	uint16_t hops;	 /* links crossed */
	uint16_t swhops; /* switch-to-switch links crossed */
	uint8_t flags;
	uint8_t last;  /* output port at the home switch (the LFT entry there) */
	int32_t cargo; /* node model: its intra-node packets (list) */
	uint32_t cls;  /* column class of dlid in the compressed tables, RT_NONE */
	uint32_t home; /* switch of the destination's end port */
	uint32_t msg;  /* message streams: its message in the phase (stream_tag) */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct pkt) == 64, "a packet fills one cache line");

/* node model: an intra-node packet */
struct ipkt {
	uint64_t birth; /* message generation */
	uint64_t t[5];	/* link start, tail at the NIC, handed to the port,
			   * tail at the destination NIC, start on its NIC link */
	int32_t next;
	uint32_t src, dst; /* accelerators (node * K + a) */
	uint16_t bytes;
	uint8_t flags;
	uint8_t inter;
};

/* node model: an intra-node link (a FIFO server) */
struct nlink {
	int32_t qhead[2], qtail[2]; /* per node VL (node_vls): 0 intra-, 1 inter-node */
	int32_t cur;		    /* packet being sent, -1 */
	uint32_t rate;		    /* 0.1 Gb/s */
	uint64_t fixed;		    /* NIC processing: ps per packet instead of a rate */
	uint32_t used[2];	    /* bytes queued for it or on it per VL (bounded queues only) */
	uint8_t rrv;		    /* VL served last */
	uint8_t rrd;		    /* node_voq: destination queue served last */
	uint32_t nvq;		    /* node_voq: packets in its destination queues */
};

/* node model, node_voq: one queue of a link into the intra-node switch for
 * one output of the switch (an accelerator's down link, or the NIC link) */
struct nvq {
	int32_t head, tail;
};

/* node model: a NIC's fabric packet under construction for one node */
struct agg {
	int32_t head, tail;
	uint32_t bytes, n, gen;
};

/* An input buffer (port, VL): 16 bytes, four to a cache line. */
struct fifo {
	int32_t head, tail;
	int32_t rnext, rprev; /* request list of the head's output */
};

/* A port (global index g): its link g -> peer and the state of its output
 * and of its input buffers, in one cache line, with the earliest of its
 * pending credit returns (the others in a list, see credits_return). */
struct port {
	uint64_t prop;	  /* ps */
	uint64_t pct;	  /* the earliest pending credit return: time, UINT64_MAX none */
	uint32_t ser;	  /* ps for one full packet (when it fits: see psim.fullb) */
	int32_t peer;	  /* -1 none */
	uint32_t rate;	  /* 0.1 Gb/s, 0 without a cable */
	uint32_t base;	  /* global index of its node's port 0 */
	int32_t cur_fid;  /* FIFO the output is serving (-1: host queue) */
	int32_t req_head; /* requests for the output: FIFOs whose head wants it */
	int32_t host_of;  /* host index of an end port, -1 */
	int32_t sw;	  /* switch index of its node, -1 */
	uint16_t cur_bytes; /* size of the packet the output sends */
	uint16_t vmask;	    /* VLs whose input FIFO is not empty */
	uint16_t pcbytes;   /* pending return: bytes */
	uint8_t rr;	    /* last input port granted */
	uint8_t P;	    /* its node's ports + 1 (at most IBF_MAX_PORTS + 1) */
	uint8_t kind;	    /* 0 none, 1 switch-switch, 2 switch->host, 3 host->switch */
	uint8_t out_busy, in_busy;
	uint8_t cstall : 1; /* stalled on credits: a return wakes it (EV_CREDIT) */
	uint8_t cwake : 1;  /* an EV_CREDIT for it is queued */
	uint8_t pcmore : 1; /* more pending returns than pct's (list pcx[g]) */
	uint8_t pcvl : 4;   /* pending return: VL */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct port) == 64, "struct port fills one cache line");

struct host {
	uint32_t g; /* its port (global) */
	uint32_t lid;
	uint32_t nlids;	 /* 1 << lmc */
	uint32_t rate;	 /* 0.1 Gb/s */
	uint64_t gap_ps; /* mean gap between packets */
	int32_t qhead, qtail;
	uint32_t qlen;
	int32_t row; /* SL table row, -1 none */
};

struct psim {
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	const struct ibf_sl_table *sl;
	const struct ibf_sl2vl_table *s2v;
	const struct ibf_psim_opts *o;
	struct pstream *st; /* message streams (o->stream), NULL */
	/* open-loop generation without streams and the node model: the hosts'
	 * Poisson processes merged into one chain of GEN events, its next one
	 * held here beside the lanes and the calendar (see gen_setup, pop) */
	int gen_on;	     /* 0: a chain per host, in the calendar */
	uint64_t gen_k;	     /* the chain's next GEN (key; UINT64_MAX none) */
	uint32_t gen_a;	     /* its host */
	double gen_t;	     /* ps: the chain's last time, with its fraction */
	double gen_mean;     /* ps: mean gap of the merged process */
	uint32_t ngen;	     /* hosts that send */
	uint32_t *gen_host;  /* [ngen] */
	double *gen_keep;    /* [ngen] alias method (NULL: all rates equal) */
	uint32_t *gen_alias; /* [ngen] */
	struct ibf_psim_result *res;
	uint32_t max_hops; /* links a packet may cross: a longer path loops */
	uint32_t V, np, nh;
	uint32_t vsh;	    /* 2^vsh >= V */
	uint32_t psh, pmask; /* FIFO and credit index = VL << psh | port: the
			      * buffers of one VL side by side, so traffic on
			      * few VLs touches few cache lines */
	uint16_t *isl_apt;  /* iSLIP: [np] output an input accepted last */
	int32_t *isl_grant; /* iSLIP: [256] grant per output of a switch */
	uint8_t *isl_gl;    /* iSLIP: [256] outputs that granted */
	uint8_t *isl_acc;   /* iSLIP: [256] grant an input accepts */
	uint64_t *isl_akey; /* iSLIP: [256] its key */
	uint64_t *isl_rq;   /* iSLIP: [switch * 4] bits of the outputs with requests */
	int islip, age;	    /* o->islip_iters, o->arb == IBF_PSIM_ARB_AGE */
	uint64_t pkt_hops;  /* res->pkt_hops, counted here (no pointer to follow) */
	uint64_t router_ps; /* head arrival -> eligible */
	uint8_t vl0[16];    /* SL -> VL without SL2VL tables: SL mod V */
	/* the LFTs compressed for the host DLIDs (see rt_build) */
	uint8_t *ctab;	    /* [nsw * ncls] */
	uint32_t ncls;
	uint32_t *dcls;	    /* [stride] class of a DLID, RT_NONE */
	uint32_t *chome;    /* [ncls] home switch of a class */
	uint8_t *dlast;	    /* [stride] a DLID's entry at its home switch */
	int32_t *downer;    /* [stride] host behind that entry, RT_ANY (see rt_build) */
	uint32_t bytes;	    /* wire bytes per packet */
	/* per port */
	struct port *pt; /* [np] */
	uint32_t *node_of;
	int32_t *credits;     /* [V << psh] */
	struct fifo *fifo;    /* [V << psh] */
	uint64_t *link_bytes; /* [np] in the window */
	struct host *host;
	/* packets */
	struct pkt *pk;
	uint32_t npk, cappk;
	int32_t free_pk;
	/* events */
	struct evn *qpool; /* event nodes */
	uint32_t nqpool, capqpool;
	int32_t qfree;	    /* free nodes */
	int32_t qcur;	    /* the current bucket's events, sorted */
	int32_t qcur_tail;  /* its last node */
	struct qbucket *qb; /* [qnb] bucket lists */
	uint32_t qws, qnb;  /* bucket width 2^qws ps, buckets */
	struct evvec qover; /* beyond the horizon: a heap */
	uint64_t qbase;	    /* start of the current bucket */
	uint64_t qinb;	    /* events in the bucket lists */
	uint64_t qcb;	    /* no calendar event has a lower key (see pop_slow) */
	uint64_t qlb;	    /* min(qcb, gen_k): pop's fast path below it */
	/* lanes: the key of each one's head (UINT64_MAX when empty), side by
	 * side for the winner tree (lw) */
	uint64_t lt[NLANES + 1]; /* [NLANES]: never a lane */
	struct lane lane[NLANES];
	uint32_t nlanes;
	/* a winner tree over the lanes: lw[1] the lane with the least head,
	 * lw[k] the better of lw[2k] and lw[2k + 1], leaves lw[lwn + l] = l
	 * (lwn: a power of two >= nlanes; lw[1] = 0 before the first lane) */
	uint8_t lw[2 * NLANES]; /* padding leaves: NLANES */
	uint32_t lwn;
	uint64_t lkey[64]; /* delay << EV_BITS | type -> lane: open addressing, lidx -1 free */
	int8_t lidx[64];
	uint64_t lcd[16]; /* per event type: the delay of its last lane push, */
	int8_t lcl[16];	  /* and that lane (-1 none yet); */
	uint64_t lcd2[16]; /* the delay before it (an arrival's delay */
	int8_t lcl2[16];   /* alternates between host and switch links) */
	struct lane *lcp[16], *lcp2[16]; /* the lanes lcl, lcl2 (lnone: none) */
	struct lane lnone; /* no lane: empty and without room */
	uint64_t now;
	/* pending credit returns per sending port, in time order: the first
	 * in the port (pct...), the rest in a list of pc nodes */
	uint32_t fullb;	      /* bytes of a full packet, 0 when a ser does not fit */
	struct qbucket *pcx;  /* [np] the list: head, tail */
	struct pcred *pc;
	uint32_t npc, cappc;
	int32_t pc_free;
	uint64_t rng;
	/* window */
	uint64_t w0, w1, hard_end;
	uint64_t last_move;
	uint64_t tail_meas;   /* latest tail arrival of a measured packet delivered */
	uint64_t tail_any;    /* latest tail arrival of a packet delivered */
	uint64_t stall_ps;    /* deadlock watchdog period */
	uint64_t in_switches; /* packets in switch buffers */
	uint64_t outstanding; /* measured packets not yet delivered or dropped */
	uint64_t win_gen_bytes, win_acc_bytes, win_acc_payload;
	uint64_t vl_bytes[16];
	double *lat;
	size_t nlat, caplat;
	double hop_sum;
	int stop;
	/* node model */
	uint32_t K, NL; /* accelerators per node, links per node (2K + 2) */
	struct ipkt *ip;
	uint32_t nip, capip;
	/* node model: the intra-node packets the pool may hold (half the
	 * memory there is); ip_over when the offered load ran into it */
	size_t ip_max;
	int ip_over;
	struct ibf_mem_limit ip_ml;
	int32_t free_ip;
	struct nlink *nl;	       /* [nh * NL] */
	struct agg *agg;	       /* [nh * nh] */
	uint64_t *nic_used;	       /* [nh] bytes held by each NIC (aggregation + port queue) */
	struct nvq *vq;		       /* node_voq: [nh * (K + 1) * (K + 1)], else NULL */
	uint64_t *acc_gap;	       /* not per accelerator: one mean gap (ps) */
	uint64_t win_intra, win_inter; /* payload bytes delivered in the window */
	uint64_t agg_pkts, agg_seals;
	double comp_inter[7], comp_intra[2];
	uint64_t n_inter, n_intra;
	double *ilat;
	size_t nilat, capilat;
};

/* Picoseconds to send `bytes` at `rate` (0.1 Gb/s units), rounded up. */
static inline uint64_t ser_ps(uint32_t bytes, uint32_t rate)
{
	return ((uint64_t)bytes * 80000u + rate - 1) / rate;
}

/* Picoseconds for a packet of `bytes` on port g's link: the port's
 * precomputed time for a full packet, else computed. */
static inline uint64_t port_ser(const struct psim *s, uint32_t g, uint32_t bytes)
{
	return bytes == s->fullb ? s->pt[g].ser : ser_ps(bytes, s->pt[g].rate);
}

/* Buffer (FIFO, credits) index of port g, VL v, and back. */
static inline uint32_t BI(const struct psim *s, uint32_t g, uint32_t v)
{
	return v << s->psh | g;
}
static inline uint32_t BPORT(const struct psim *s, uint32_t f)
{
	return f & s->pmask;
}
static inline uint32_t BVL(const struct psim *s, uint32_t f)
{
	return f >> s->psh;
}
/* port-major rank of a buffer: ties are broken in this order */
static inline uint64_t BRANK(const struct psim *s, uint32_t f)
{
	return (uint64_t)BPORT(s, f) << s->vsh | BVL(s, f);
}

/* ------------------------------------------------------------ event queue */

/* A calendar queue: buckets of 2^qws picoseconds over a horizon of qnb
 * buckets, each a list of event nodes (indices into a pool) in insertion
 * order; the events of the current bucket in a list sorted by key (a
 * stable sort: equal keys in the order they came); events beyond the
 * horizon in an overflow heap.  The bucket width is chosen from the
 * expected event rate (a few events per bucket), so the cost per event
 * does not grow with the fabric. */
#define QHORIZON_PS 4000000ull /* ~4 us: most events are scheduled closer */

static inline int ev_less(const struct ev *x, const struct ev *y)
{
	return x->k < y->k;
}

static int heap_push(struct evvec *h, const struct ev *e)
{
	GROW(h->v, h->n, h->cap, 256, return IBF_ENOMEM);
	uint32_t i = h->n++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!ev_less(e, &h->v[p]))
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = *e;
	return 0;
}

static struct ev heap_pop(struct evvec *h)
{
	struct ev top = h->v[0];
	struct ev last = h->v[--h->n];
	uint32_t n = h->n, i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&h->v[c + 1], &h->v[c]))
			c++;
		if (!ev_less(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (n)
		h->v[i] = last;
	return top;
}

/* Size the calendar for about `per_ps` events per picosecond. */
static int q_init(struct psim *s, double per_ps)
{
	uint32_t ws = 4; /* >= 16 ps */
	while (ws < 20 && (double)(1ull << (ws + 1)) * per_ps < 3.0)
		ws++;
	uint32_t nb = 1024;
	while (nb < (1u << 20) && ((uint64_t)nb << ws) < QHORIZON_PS)
		nb *= 2;
	s->qws = ws;
	s->qnb = nb;
	s->qb = malloc((size_t)nb * sizeof(*s->qb));
	if (!s->qb)
		return IBF_ENOMEM;
	for (uint32_t k = 0; k < nb; k++)
		s->qb[k].head = s->qb[k].tail = PK_NONE;
	s->qcur = s->qcur_tail = PK_NONE;
	s->qfree = PK_NONE;
	for (uint32_t l = 0; l <= NLANES; l++)
		s->lt[l] = UINT64_MAX;
	memset(s->lidx, -1, sizeof(s->lidx));
	memset(s->lcl, -1, sizeof(s->lcl));
	memset(s->lcl2, -1, sizeof(s->lcl2));
	for (uint32_t t = 0; t < 16; t++)
		s->lcp[t] = s->lcp2[t] = &s->lnone;
	return 0;
}

static int32_t q_node(struct psim *s)
{
	int32_t n = s->qfree;
	if (n != PK_NONE) {
		s->qfree = s->qpool[n].next;
		return n;
	}
	GROW(s->qpool, s->nqpool, s->capqpool, 4096, return PK_NONE);
	return (int32_t)s->nqpool++;
}

/* Insert node n into the sorted current list, after the nodes with equal
 * keys.  Events mostly come in key order (a burst at one time: every
 * host's first message of a stream phase), so the end is tried first. */
static void q_cur_insert(struct psim *s, int32_t n)
{
	struct evn *P = s->qpool;
	if (s->qcur == PK_NONE || !ev_less(&P[n].e, &P[s->qcur_tail].e)) {
		P[n].next = PK_NONE;
		if (s->qcur == PK_NONE)
			s->qcur = n;
		else
			P[s->qcur_tail].next = n;
		s->qcur_tail = n;
		return;
	}
	int32_t *at = &s->qcur;
	while (!ev_less(&P[n].e, &P[*at].e)) /* stops before the tail */
		at = &P[*at].next;
	P[n].next = *at;
	*at = n;
}

/* Sort the list from node `head` by key, equal keys in list order (a
 * bottom-up merge sort: a bucket can hold thousands of events, which
 * inserting one by one would sort in quadratic time); *tail: its last
 * node, *count: its nodes. */
static int32_t q_sort(struct evn *P, int32_t head, int32_t *tail, uint64_t *count)
{
	*tail = PK_NONE;
	*count = 0;
	if (head == PK_NONE)
		return head;
	for (uint32_t run = 1;; run *= 2) {
		int32_t a = head, out = PK_NONE, last = PK_NONE;
		uint32_t merges = 0;
		head = PK_NONE;
		while (a != PK_NONE) {
			merges++;
			int32_t b = a;
			uint32_t na = 0, nb = run;
			while (na < run && b != PK_NONE) {
				na++;
				b = P[b].next;
			}
			/* merge a (na nodes) and b (up to nb nodes); a first on ties */
			while (na || (nb && b != PK_NONE)) {
				int32_t x;
				if (!na) {
					x = b;
					b = P[b].next;
					nb--;
				} else if (!nb || b == PK_NONE || !ev_less(&P[b].e, &P[a].e)) {
					x = a;
					a = P[a].next;
					na--;
				} else {
					x = b;
					b = P[b].next;
					nb--;
				}
				if (last == PK_NONE)
					out = x;
				else
					P[last].next = x;
				last = x;
				*count += run == 1; /* the first pass sees each node once */
			}
			a = b;
		}
		P[last].next = PK_NONE;
		head = out;
		if (merges <= 1) {
			*tail = last;
			return head;
		}
	}
}

/* An event (key k, see struct ev) into the calendar. */
static inline __attribute__((always_inline)) int push_cal(struct psim *s, uint64_t k, uint32_t a,
							  uint32_t b)
{
	struct ev e = { k, a, b };
	uint64_t t = k >> EV_BITS;
	if (k < s->qcb) {
		s->qcb = k;
		if (k < s->qlb)
			s->qlb = k;
	}
	/* the current bucket may lie a little ahead of now (pop_slow): an
	 * event up to its end goes into its sorted list */
	uint64_t tb = t >> s->qws, cb = s->qbase >> s->qws;
	uint64_t d = tb > cb ? tb - cb : 0;
	if (d >= s->qnb)
		return heap_push(&s->qover, &e);
	int32_t n = q_node(s);
	if (n == PK_NONE)
		return IBF_ENOMEM;
	struct evn *x = &s->qpool[n];
	x->e = e;
	if (!d) {
		q_cur_insert(s, n);
		return 0;
	}
	x->next = PK_NONE;
	struct qbucket *B = &s->qb[(uint32_t)tb & (s->qnb - 1)];
	if (B->tail != PK_NONE)
		s->qpool[B->tail].next = n;
	else
		B->head = n;
	B->tail = n;
	s->qinb++;
	return 0;
}

static void lw_build(struct psim *s);

/* The lane of events of one type pushed `d` after now (key d << EV_BITS |
 * type): -1 when there is none and no room for another. */
static inline int lane_of(struct psim *s, uint64_t d)
{
	uint32_t h = (uint32_t)((d * 0x9e3779b97f4a7c15ull) >> 58);
	while (s->lidx[h] >= 0) {
		if (s->lkey[h] == d)
			return s->lidx[h];
		h = (h + 1) & 63;
	}
	if (s->nlanes == NLANES)
		return -1;
	s->lkey[h] = d;
	s->lidx[h] = (int8_t)s->nlanes;
	s->lane[s->nlanes++].type = (uint32_t)(d & ((1u << EV_BITS) - 1));
	lw_build(s);
	return (int)s->nlanes - 1;
}

static inline int lane_less(const struct psim *s, uint32_t x, uint32_t y)
{
	return s->lt[x] < s->lt[y];
}

/* Lane l's head changed: the matches on its way to the root of the
 * winner tree, one comparison of keys each (equal keys: the lower lane),
 * without branches on the times. */
static inline __attribute__((always_inline)) void lw_replay(struct psim *s, uint32_t l)
{
	if (__builtin_expect(s->lwn <= 4, 1))
		return; /* up to four lanes: no tree (lane_best) */
	for (uint32_t k = (s->lwn + l) >> 1; k; k >>= 1) {
		uint8_t x = s->lw[2 * k], y = s->lw[2 * k + 1];
		s->lw[k] = lane_less(s, y, x) ? y : x;
	}
}

/* The lane with the least head (equal keys: the lower lane).  Up to four
 * lanes (one link rate and two cable classes: an end of transmission and
 * two arrivals) the four heads are compared at once, which costs less than
 * replaying two matches of the tree after each pop; lanes not in use have
 * no head (UINT64_MAX). */
static inline __attribute__((always_inline)) int lane_best(const struct psim *s)
{
	if (__builtin_expect(s->nlanes <= 3, 1)) {
		/* the usual three: one link rate, host and switch cables */
		uint64_t t0 = s->lt[0], t1 = s->lt[1], t2 = s->lt[2];
		int a = t1 < t0;
		uint64_t ta = a ? t1 : t0;
		int c = t2 < ta;
		return a ^ ((a ^ 2) & -c);
	}
	if (__builtin_expect(s->lwn <= 4, 1)) {
		uint64_t t0 = s->lt[0], t1 = s->lt[1], t2 = s->lt[2], t3 = s->lt[3];
		int a = t1 < t0, b = t3 < t2;
		uint64_t ta = a ? t1 : t0, tb = b ? t3 : t2;
		int c = tb < ta; /* selected by arithmetic: no branch on times */
		return a ^ ((a ^ (2 + b)) & -c);
	}
	return s->lw[1];
}

/* A lane was added: a wider tree when needed, all matches played again. */
static void lw_build(struct psim *s)
{
	uint32_t n = 1;
	while (n < s->nlanes)
		n *= 2;
	s->lwn = n;
	for (uint32_t l = 0; l < n; l++)
		s->lw[n + l] = (uint8_t)(l < s->nlanes ? l : NLANES);
	for (uint32_t k = n - 1; k; k--) {
		uint8_t x = s->lw[2 * k], y = s->lw[2 * k + 1];
		s->lw[k] = lane_less(s, y, x) ? y : x;
	}
}

static int lane_grow(struct lane *L)
{
	uint32_t cap = L->mask ? (L->mask + 1) * 2 : 1024;
	struct ev *v = malloc((size_t)cap * sizeof(*v));
	if (!v)
		return IBF_ENOMEM;
	for (uint32_t k = 0; k < L->n; k++)
		v[k] = L->v[(L->head + k) & L->mask];
	free(L->v);
	L->v = v;
	L->head = 0;
	L->mask = cap - 1;
	return 0;
}

/* An event's key is its time << EV_BITS | its type: events are ordered by
 * time, then type; equal keys in one lane in the order they were pushed,
 * in different lanes by lane, in the calendar in the order they came, and
 * a calendar event before a lane event.  Most events happen a fixed delay
 * after the event that schedules them (a propagation, router or
 * serialisation time of a link class), so the keys of one type and delay
 * grow with the order they are pushed in: kept in a ring per type and
 * delay (a lane) they are already sorted, and the next event is the least
 * of the lanes' heads and the calendar's.  Pushing is an append, popping
 * reads the rings in order: no list walking, no bucket scattered over
 * memory.  Events with random delays (packet generation, credit wake-ups)
 * and the watchdog go to the calendar. */
static int push_lane_slow(struct psim *s, uint64_t t, int type, uint32_t a, uint32_t b);

static inline __attribute__((always_inline)) int push(struct psim *s, uint64_t t, int type,
						      uint32_t a, uint32_t b)
{
	uint64_t k = t << EV_BITS | (uint64_t)type;
	if (type == EV_GEN || type == EV_AGEN || type == EV_CHECK || type == EV_CREDIT ||
	    type == EV_STEP)
		return push_cal(s, k, a, b);
	/* the common case: one of the type's last two lanes (picked
	 * without a branch), not empty, with room */
	uint64_t d = t - s->now;
	int two = s->lcd2[type] == d;
	struct lane *L = two ? s->lcp2[type] : s->lcp[type];
	uint64_t ld = two ? d : s->lcd[type];
	if (__builtin_expect(ld != d || L->n - 1u >= L->mask, 0))
		return push_lane_slow(s, t, type, a, b);
	L->v[(L->head + L->n++) & L->mask] = (struct ev){ k, a, b };
	return 0;
}

/* push: a new delay for the type, or an empty or full lane. */
static __attribute__((noinline)) int push_lane_slow(struct psim *s, uint64_t t, int type,
						    uint32_t a, uint32_t b)
{
	uint64_t d = t - s->now, k = t << EV_BITS | (uint64_t)type;
	int l = s->lcl[type];
	if (l < 0 || s->lcd[type] != d) {
		/* a type's events mostly share one delay: look up only on a change */
		l = lane_of(s, d << EV_BITS | (uint64_t)type);
		if (l < 0)
			return push_cal(s, k, a, b);
		s->lcd2[type] = s->lcd[type];
		s->lcl2[type] = s->lcl[type];
		s->lcp2[type] = s->lcp[type];
		s->lcd[type] = d;
		s->lcl[type] = (int8_t)l;
		s->lcp[type] = &s->lane[l];
	}
	struct lane *L = &s->lane[l];
	if ((!L->v || L->n > L->mask) && lane_grow(L))
		return IBF_ENOMEM;
	L->v[(L->head + L->n) & L->mask] = (struct ev){ k, a, b };
	if (!L->n++) {
		s->lt[l] = k;
		lw_replay(s, (uint32_t)l);
	}
	return 0;
}

static inline uint32_t ev_type(const struct ev *e)
{
	return (uint32_t)(e->k & ((1u << EV_BITS) - 1));
}

/* Lane L's next events come within a few pops of it: fetch the lines they
 * will touch (timing only) in two steps, the second reading only lines the
 * first fetched: one pop ahead the packet (a) and port (b) of an ARRIVE or
 * DELIVER (whose b is a time: a wasted fetch, no branch), the output (a)
 * and the served port (b: FIFO, or the output) of a TXDONE; at the head an ARRIVE's table entry, a TXDONE's FIFO and the port
 * its credits go back to. */
static inline __attribute__((always_inline)) void lane_prefetch(struct psim *s,
								 const struct lane *L, uint32_t ty)
{
	if (!((1u << EV_ARRIVE | 1u << EV_TXDONE | 1u << EV_DELIVER) >> ty & 1))
		return;
	if (L->n > 1) {
		const struct ev *e = &L->v[(L->head + 1) & L->mask];
		const void *a0 = ty == EV_TXDONE ? (const void *)&s->pt[e->a]
						 : (const void *)&s->pk[e->a];
		__builtin_prefetch(a0);
		__builtin_prefetch(&s->pt[e->b & s->pmask]);
	}
	const struct ev *h = &L->v[L->head];
	if (ty == EV_ARRIVE) {
		const struct pkt *p = &s->pk[h->a];
		const struct port *pin = &s->pt[h->b];
		/* without branches (they mispredict): the entry also at the
		 * home switch, where the lookup does not need it; index 0
		 * without a class */
		size_t at = p->cls != RT_NONE ? (size_t)(uint32_t)pin->sw * s->ncls + p->cls : 0;
		__builtin_prefetch(&s->ctab[at]);
	} else if (ty == EV_TXDONE) {
		/* a host's link (b == a) fetches its own FIFO index and its
		 * switch port: harmless, and no branch */
		int32_t up = s->pt[BPORT(s, h->b)].peer;
		__builtin_prefetch(&s->fifo[h->b]);
		__builtin_prefetch(&s->pt[up >= 0 ? (uint32_t)up : h->a]);
	}
}

/* Take the next event from lane bl (its head is the least of all; ty:
 * the lane's type, a constant where the caller knows it). */
static inline __attribute__((always_inline)) void lane_pop_t(struct psim *s, int bl,
							     struct ev *out, uint32_t ty)
{
	struct lane *L = &s->lane[bl];
	*out = L->v[L->head];
	L->head = (L->head + 1) & L->mask;
	if (--L->n) {
		s->lt[bl] = L->v[L->head].k;
		lane_prefetch(s, L, ty);
	} else {
		s->lt[bl] = UINT64_MAX;
	}
	lw_replay(s, (uint32_t)bl);
}

static inline __attribute__((always_inline)) void lane_pop(struct psim *s, int bl, struct ev *out)
{
	lane_pop_t(s, bl, out, s->lane[bl].type);
}

static __attribute__((noinline)) int pop_slow(struct psim *s, struct ev *out, int bl);

/* Take the generation chain's event (the next is set by ev_gen). */
static inline void gen_pop(struct psim *s, struct ev *out)
{
	*out = (struct ev){ s->gen_k, s->gen_a, 0 };
	s->gen_k = UINT64_MAX;
}

/* The next event; returns its type, EV_NONE when none is left, or an
 * error (< 0).  The event is the least of the lanes' heads, the
 * calendar's and the merged generation chain's (gen_k).  Usually the best
 * lane's head is below s->qlb, the lower of gen_k and a bound below every
 * calendar event (the first event of the current bucket, else the start of
 * the next bucket, lowered by every calendar push): then neither need be
 * looked at. */
static inline __attribute__((always_inline)) int pop(struct psim *s, struct ev *out)
{
	int bl = lane_best(s);
	if (__builtin_expect(s->lt[bl] < s->qlb, 1)) {
		/* the two common types with their prefetch folded for them */
		uint32_t ty = s->lane[bl].type;
		if (ty == EV_TXDONE) {
			lane_pop_t(s, bl, out, EV_TXDONE);
			return EV_TXDONE;
		}
		if (ty == EV_ARRIVE) {
			lane_pop_t(s, bl, out, EV_ARRIVE);
			return EV_ARRIVE;
		}
		lane_pop_t(s, bl, out, ty);
		return (int)ty;
	}
	if (s->gen_k < s->lt[bl] && s->gen_k < s->qcb) {
		/* the generation chain's next event (pop_slow's first case) */
		gen_pop(s, out);
		s->qlb = s->qcb;
		return EV_GEN;
	}
	int rc = pop_slow(s, out, bl);
	return rc ? (rc > 0 ? EV_NONE : rc) : (int)ev_type(out);
}


/* pop, looking at the calendar.  When its current bucket is empty it
 * moves on to the next bucket with events, as far as 16 buckets past the
 * best lane's time: then s->qlb is that bucket's first event, and the
 * lane events before it take the fast path of pop.  Events pushed for a
 * time before the end of the current bucket join its sorted list
 * (push_cal); the limit keeps that list short. */
static __attribute__((noinline)) int pop_slow(struct psim *s, struct ev *out, int bl)
{
	if (s->lt[bl] == UINT64_MAX)
		bl = -1; /* all lanes empty */
	uint64_t bk = bl >= 0 ? s->lt[bl] : UINT64_MAX; /* a key */
	if (s->gen_k < bk && s->gen_k < s->qcb) {
		gen_pop(s, out);
		s->qlb = s->qcb;
		return 0;
	}
	uint64_t lim = (bk >> EV_BITS) + (16ull << s->qws);
	if (bk == UINT64_MAX)
		lim = UINT64_MAX;
	while (s->qcur == PK_NONE && (s->qinb || s->qover.n)) {
		uint64_t nb = s->qinb ? s->qbase + (1ull << s->qws)
				      : s->qover.v[0].k >> EV_BITS >> s->qws << s->qws;
		if (nb > lim)
			break;
		s->qbase = nb;
		uint32_t k = (uint32_t)(s->qbase >> s->qws) & (s->qnb - 1);
		/* qcur is empty: the bucket's list (in insertion order), sorted
		 * stably by key, becomes it */
		uint64_t nk;
		s->qcur = q_sort(s->qpool, s->qb[k].head, &s->qcur_tail, &nk);
		s->qinb -= nk;
		s->qb[k].head = s->qb[k].tail = PK_NONE;
		while (s->qover.n && s->qover.v[0].k >> EV_BITS >> s->qws == s->qbase >> s->qws) {
			int32_t n = q_node(s);
			if (n == PK_NONE)
				return IBF_ENOMEM;
			s->qpool[n].e = heap_pop(&s->qover);
			q_cur_insert(s, n);
		}
	}
	uint64_t ck = s->qcur == PK_NONE ? UINT64_MAX : s->qpool[s->qcur].e.k;
	if (bl < 0 && ck == UINT64_MAX && s->gen_k == UINT64_MAX)
		return 1; /* no event left */
	if (s->gen_k < bk && s->gen_k < ck) {
		gen_pop(s, out);
	} else if (bl >= 0 && ck > bk) {
		lane_pop(s, bl, out);
	} else {
		int32_t n = s->qcur;
		s->qcur = s->qpool[n].next;
		if (s->qcur == PK_NONE)
			s->qcur_tail = PK_NONE;
		*out = s->qpool[n].e;
		s->qpool[n].next = s->qfree;
		s->qfree = n;
	}
	/* the current bucket's events are sorted; those of later buckets
	 * (lists and overflow heap) are no earlier than the next bucket, and
	 * with no bucket list left the overflow heap's first event is the
	 * calendar's (else a run whose calendar holds only the watchdog would
	 * take this slow path for every event) */
	if (s->qcur != PK_NONE)
		s->qcb = s->qpool[s->qcur].e.k;
	else if (s->qinb)
		s->qcb = (s->qbase + (1ull << s->qws)) << EV_BITS;
	else if (s->qover.n)
		s->qcb = s->qover.v[0].k;
	else
		s->qcb = UINT64_MAX;
	s->qlb = s->qcb < s->gen_k ? s->qcb : s->gen_k;
	return 0;
}

/* ------------------------------------------------------------ packets */

static int32_t pk_alloc(struct psim *s)
{
	if (s->free_pk != PK_NONE) {
		int32_t i = s->free_pk;
		s->free_pk = s->pk[i].next;
		return i;
	}
	if (s->npk == s->cappk) {
		/* grown by hand: the array stays aligned to cache lines */
		uint32_t c = s->cappk ? s->cappk * 2 : 4096;
		struct pkt *x = aligned_alloc(64, (size_t)c * sizeof(*x));
		if (!x)
			return PK_NONE;
		if (s->npk)
			memcpy(x, s->pk, (size_t)s->npk * sizeof(*x));
		free(s->pk);
		s->pk = x;
		s->cappk = c;
	}
	return (int32_t)s->npk++;
}

static void pk_free(struct psim *s, int32_t i)
{
	s->pk[i].next = s->free_pk;
	s->free_pk = i;
}

static uint64_t rand_u64(struct psim *s)
{
	return ibf_splitmix64(&s->rng);
}

/* Uniform in [0, 1), 53 random bits. */
static inline double rand_unit(struct psim *s)
{
	return (double)(rand_u64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* An exponential gap of mean `mean` (ps), unrounded. */
static inline double rand_exp(struct psim *s, double mean)
{
	return -log1p(-rand_unit(s)) * mean;
}

/* ------------------------------------------------------------ credits */

/* Port g's first pending return is (t, buffer VL vl, bytes). */
static inline void pc_set(struct psim *s, uint32_t g, uint64_t t, uint32_t vl, uint32_t bytes)
{
	struct port *P = &s->pt[g];
	P->pct = t;
	P->pcvl = vl & 15u;
	P->pcbytes = (uint16_t)bytes;
}

/* The first pending return of port g was counted in: the next of its
 * list takes its place. */
static __attribute__((noinline)) void pc_shift(struct psim *s, uint32_t g)
{
	int32_t c = s->pcx[g].head;
	const struct pcred *x = &s->pc[c];
	pc_set(s, g, x->t, BVL(s, x->idx), x->bytes);
	s->pcx[g].head = x->next;
	if (x->next == PK_NONE) {
		s->pcx[g].tail = PK_NONE;
		s->pt[g].pcmore = 0;
	}
	s->pc[c].next = s->pc_free;
	s->pc_free = c;
}

/* Count in the pending credit returns of port g up to now: credits that
 * reach a port at time t count for every event at t. */
static inline void credits_settle(struct psim *s, uint32_t g)
{
	struct port *P = &s->pt[g];
	while (P->pct <= s->now) { /* UINT64_MAX: none */
		s->credits[BI(s, g, P->pcvl)] += (int32_t)P->pcbytes;
		if (__builtin_expect(!P->pcmore, 1)) {
			P->pct = UINT64_MAX;
			return;
		}
		pc_shift(s, g);
	}
}

/* Port g waits for credits: an EV_CREDIT wakes it at its first pending
 * return (one queued at a time; without a pending return the next return
 * queues it, see credits_return). */
static int credits_wake(struct psim *s, uint32_t g)
{
	struct port *P = &s->pt[g];
	if (P->cwake || P->pct == UINT64_MAX)
		return 0;
	P->cwake = 1;
	return push(s, P->pct, EV_CREDIT, g, 0);
}

/* Port g stalled on credits. */
static int credits_wait(struct psim *s, uint32_t g)
{
	s->pt[g].cstall = 1;
	return credits_wake(s, g);
}

/* A second pending return of port g: to the end of its list. */
static __attribute__((noinline)) int pc_append(struct psim *s, uint32_t g, uint32_t idx,
					       uint64_t t, uint32_t bytes)
{
	int32_t c = s->pc_free;
	if (c != PK_NONE) {
		s->pc_free = s->pc[c].next;
	} else {
		GROW(s->pc, s->npc, s->cappc, 1024, return IBF_ENOMEM);
		c = (int32_t)s->npc++;
	}
	s->pc[c] = (struct pcred){ t, idx, bytes, PK_NONE };
	if (s->pt[g].pcmore)
		s->pc[s->pcx[g].tail].next = c;
	else
		s->pcx[g].head = c;
	s->pcx[g].tail = c;
	s->pt[g].pcmore = 1;
	return 0;
}

/* The credits of buffer (g, vl) go back to port g at time t: pending until
 * the port looks at its credits (a port's returns come in time order). */
static inline __attribute__((always_inline)) int
credits_return(struct psim *s, uint32_t g, uint32_t vl, uint64_t t, uint32_t bytes)
{
	int rc = 0;
	if (s->pt[g].pct == UINT64_MAX)
		pc_set(s, g, t, vl, bytes);
	else
		rc = pc_append(s, g, BI(s, g, vl), t, bytes);
	if (__builtin_expect(s->pt[g].cstall, 0) && !rc)
		rc = credits_wake(s, g);
	return rc;
}

/* Output g has the credits for packet p's next hop (a link to an end port
 * needs none). */
static inline int out_credits(const struct psim *s, uint32_t g, const struct pkt *p)
{
	return s->pt[g].kind == 2 || s->credits[BI(s, g, p->vl_next)] >= (int32_t)p->bytes;
}

/* ------------------------------------------------------------ requests */

static inline __attribute__((always_inline)) void
req_add(struct psim *s, uint32_t fid)
{
	struct fifo *q = &s->fifo[fid];
	uint32_t out = s->pk[q->head].out;
	q->rprev = -1;
	q->rnext = s->pt[out].req_head;
	if (q->rnext >= 0)
		s->fifo[q->rnext].rprev = (int32_t)fid;
	s->pt[out].req_head = (int32_t)fid;
	if (s->isl_rq) {
		uint32_t op = out - s->pt[out].base;
		s->isl_rq[(uint32_t)s->pt[out].sw * 4 + (op >> 6)] |= 1ull << (op & 63);
	}
}

static inline __attribute__((always_inline)) void
req_del(struct psim *s, uint32_t fid, uint32_t out)
{
	struct fifo *q = &s->fifo[fid];
	if (q->rprev >= 0) {
		s->fifo[q->rprev].rnext = q->rnext;
	} else {
		s->pt[out].req_head = q->rnext;
		if (s->isl_rq && q->rnext < 0) {
			uint32_t op = out - s->pt[out].base;
			s->isl_rq[(uint32_t)s->pt[out].sw * 4 + (op >> 6)] &= ~(1ull << (op & 63));
		}
	}
	if (q->rnext >= 0)
		s->fifo[q->rnext].rprev = q->rprev;
	q->rnext = q->rprev = -1;
}

/* ------------------------------------------------------------ sending */

static int in_window(const struct psim *s, uint64_t t)
{
	return t >= s->w0 && t < s->w1;
}

static void mark_stall(struct psim *s, struct pkt *p)
{
	s->res->credit_stalls++;
	if (!(p->flags & PK_STALLED)) {
		p->flags |= PK_STALLED;
		s->res->stalled_pkts++;
	}
}

static int deliver(struct psim *s, int32_t i, uint64_t t, uint64_t dur);

/* The share of `bytes` sent or received evenly from t0 to t1 (t0 < t1)
 * that falls inside the measurement window. */
static uint64_t win_share(const struct psim *s, uint64_t bytes, uint64_t t0, uint64_t t1)
{
	uint64_t a = t0 > s->w0 ? t0 : s->w0;
	uint64_t b = t1 < s->w1 ? t1 : s->w1;
	return b > a ? bytes * (b - a) / (t1 - t0) : 0;
}

/* A transmission from now to end that straddles an end of the measurement
 * window counts with the share of its bytes sent inside the window, so a
 * link's utilisation never exceeds 1 (bytes counted whole at the start
 * overstated it by up to one packet's time over the window). */
static __attribute__((noinline)) void win_part(struct psim *s, uint32_t g, uint8_t vl,
					       uint32_t bytes, uint64_t end)
{
	uint64_t part = win_share(s, bytes, s->now, end);
	s->link_bytes[g] += part;
	if (s->pt[g].kind == 1)
		s->vl_bytes[vl] += part;
}

/* Start sending packet i on output g (fid: the input FIFO it leaves, -1 for
 * a host's queue). */
static inline __attribute__((always_inline)) int
transmit(struct psim *s, uint32_t g, int32_t fid, int32_t i)
{
	struct pkt *p = &s->pk[i];
	uint8_t vl = fid >= 0 ? p->vl_next : p->vl;
	s->pt[g].out_busy = 1;
	s->pt[g].cstall = 0;
	s->pt[g].cur_fid = fid;
	if (fid >= 0)
		s->pt[BPORT(s, (uint32_t)fid)].in_busy = 1;
	if (s->pt[g].kind != 2)
		s->credits[BI(s, g, vl)] -= p->bytes;
	uint64_t ser = port_ser(s, g, p->bytes);
	uint64_t end = s->now + ser;
	s->pt[g].cur_bytes = p->bytes;
	if (fid >= 0 && p->tail > end)
		end = p->tail; /* a faster output cannot overtake the tail */
	/* b: for the prefetch only (lane_pop) */
	int rc = push(s, end, EV_TXDONE, g, fid >= 0 ? (uint32_t)fid : g);
	uint64_t head = s->now + s->pt[g].prop;
	p->vl = vl;
	p->tail = head + ser;
	if (end + s->pt[g].prop > p->tail)
		p->tail = end + s->pt[g].prop;
	p->hops++;
	uint32_t peer = (uint32_t)s->pt[g].peer;
	if (!rc && s->pt[g].kind != 2)
		rc = push(s, head + s->router_ps, EV_ARRIVE, (uint32_t)i, peer);
	s->pkt_hops++;
	s->last_move = s->now;
	if (s->now >= s->w0 && end <= s->w1) {
		s->link_bytes[g] += p->bytes;
		if (s->pt[g].kind == 1)
			s->vl_bytes[vl] += p->bytes;
	} else if (s->now < s->w1 && end > s->w0) {
		win_part(s, g, vl, p->bytes, end);
	}
	if (s->pt[g].kind == 1)
		p->swhops++;
	if (!rc && s->pt[g].kind == 2) {
		/* Nothing can stop a packet on its last link: without streams
		 * or the node model (whose deliveries start more events) it is
		 * counted in now, at its tail's arrival time, and freed. */
		uint64_t busy = end - s->now;
		if (!s->st && !s->K && p->tail < s->hard_end)
			rc = deliver(s, i, p->tail, busy);
		else
			rc = push(s, p->tail, EV_DELIVER, (uint32_t)i,
				  busy < UINT32_MAX ? (uint32_t)busy : UINT32_MAX);
	}
	return rc;
}

static int nl_wake(struct psim *s, uint32_t h, int64_t L);

static int arb_host(struct psim *s, uint32_t h)
{
	struct host *H = &s->host[h];
	if (s->pt[H->g].out_busy || H->qhead == PK_NONE)
		return 0;
	int32_t i = H->qhead;
	struct pkt *p = &s->pk[i];
	credits_settle(s, H->g);
	if (s->credits[BI(s, H->g, p->vl)] < (int32_t)p->bytes) {
		mark_stall(s, p);
		return credits_wait(s, H->g);
	}
	H->qhead = p->next;
	if (H->qhead == PK_NONE)
		H->qtail = PK_NONE;
	H->qlen--;
	int rc = transmit(s, H->g, -1, i);
	if (!rc && s->K && s->o->node_buf_bytes) {
		/* the NIC's copy is gone: room for more from the node */
		s->nic_used[h] -= (uint64_t)(p->bytes - s->o->hdr_bytes);
		rc = nl_wake(s, h, -1);
	}
	return rc;
}

/* The FIFO whose head output g grants (round-robin after the last input
 * granted, or the oldest packet), among those whose input is free and not
 * taken and that have the credits; -1 none (*stalled: a head lacked
 * credits). */
static inline __attribute__((always_inline)) int32_t
arb_pick(struct psim *s, uint32_t g, int *stalled)
{
	uint32_t V = s->V;
	uint32_t base = s->pt[g].base, P = s->pt[g].P;
	int32_t best = -1;
	uint64_t bkey = UINT64_MAX;
	*stalled = 0;
	credits_settle(s, g);
	for (int32_t fid = s->pt[g].req_head; fid >= 0; fid = s->fifo[fid].rnext) {
		uint32_t gin = BPORT(s, (uint32_t)fid);
		if (s->pt[gin].in_busy)
			continue;
		struct pkt *p = &s->pk[s->fifo[fid].head];
		if (!out_credits(s, g, p)) {
			mark_stall(s, p);
			*stalled = 1;
			continue;
		}
		if (best < 0 && s->fifo[fid].rnext < 0)
			return fid; /* the only head that can go: no key needed */
		uint64_t key;
		if (s->age) {
			key = p->birth;
		} else {
			uint32_t lp = gin - base;
			uint32_t d = lp + P - s->pt[g].rr - 1u; /* (lp - rr - 1) mod P */
			if (d >= P)
				d -= P;
			key = (uint64_t)d * V + BVL(s, (uint32_t)fid);
		}
		if (key < bkey ||
		    (key == bkey && BRANK(s, (uint32_t)fid) < BRANK(s, (uint32_t)best))) {
			bkey = key;
			best = fid;
		}
	}
	return best;
}

/* Output g takes the head of FIFO best; upd: move its round-robin pointer
 * to that input. */
static inline __attribute__((always_inline)) int
arb_take(struct psim *s, uint32_t g, int32_t best, int upd)
{
	struct fifo *q = &s->fifo[best];
	int32_t i = q->head;
	req_del(s, (uint32_t)best, g);
	q->head = s->pk[i].next;
	if (q->head == PK_NONE)
		q->tail = PK_NONE;
	s->in_switches--;
	if (q->head != PK_NONE)
		req_add(s, (uint32_t)best);
	else
		s->pt[BPORT(s, (uint32_t)best)].vmask &=
			(uint16_t) ~(1u << BVL(s, (uint32_t)best));
	if (upd)
		s->pt[g].rr = (uint8_t)(BPORT(s, (uint32_t)best) - s->pt[g].base);
	return transmit(s, g, best, i);
}

static int arb_islip(struct psim *s, uint32_t g0);

/* Pick one of the FIFO heads that want switch output g, which is free. */
static __attribute__((noinline)) int arb_free(struct psim *s, uint32_t g)
{
	if (s->islip)
		return arb_islip(s, g);
	int stalled;
	int32_t best = arb_pick(s, g, &stalled);
	if (best < 0)
		return stalled ? credits_wait(s, g) : 0;
	return arb_take(s, g, best, 1);
}

/* Pick one of the FIFO heads that want switch output g: nothing while it
 * sends (tested here, not in a call: most arrivals and freed inputs find
 * their output busy). */
static inline __attribute__((always_inline)) int arb_out(struct psim *s, uint32_t g)
{
	if (s->pt[g].out_busy)
		return 0;
	return arb_free(s, g);
}

/* iSLIP (McKeown 1999) over the switch of output g0, islip_iters rounds:
 * every free output grants one requesting free input (as arb_pick), every
 * input accepts one of its grants (round-robin after the output it
 * accepted last, or the oldest packet), and the matched pairs start; the
 * unmatched try again in the next round.  Pointers move only for the
 * grants accepted in the first round. */
static int arb_islip(struct psim *s, uint32_t g0)
{
	uint32_t base = s->pt[g0].base, P = s->pt[g0].P;
	int32_t *grant = s->isl_grant;	  /* [op]: the FIFO output op grants */
	uint8_t *gl = s->isl_gl;	  /* the outputs that granted, ascending */
	uint8_t *acc = s->isl_acc;	  /* [ip]: the grant input ip accepts, 0 none */
	uint64_t *akey = s->isl_akey;	  /* [ip]: its key */
	uint64_t in_m[4];		  /* inputs with a grant */
	const uint64_t *rqs = &s->isl_rq[(uint32_t)s->pt[g0].sw * 4];
	int rc = 0;
	for (int it = 0; it < s->o->islip_iters && !rc; it++) {
		uint32_t ng = 0;
		/* the outputs with requests, ascending (granting changes no
		 * request: arb_take below does) */
		for (uint32_t w = 0; w < 4 && !rc; w++)
			for (uint64_t m = rqs[w]; m && !rc; m &= m - 1) {
				uint32_t op = w * 64 + (uint32_t)__builtin_ctzll(m), g = base + op;
				int stalled = 0;
				if (s->pt[g].out_busy)
					continue;
				grant[op] = arb_pick(s, g, &stalled);
				if (grant[op] >= 0)
					gl[ng++] = (uint8_t)op;
				else if (stalled)
					rc = credits_wait(s, g);
			}
		if (!ng || rc)
			break;
		/* every input picks among the grants it got (round-robin after
		 * the output it accepted last, or the oldest packet; equal keys:
		 * the lower output, as the grants are visited in output order) */
		memset(in_m, 0, sizeof(in_m));
		for (uint32_t k = 0; k < ng; k++) {
			uint32_t op = gl[k];
			uint32_t gin = BPORT(s, (uint32_t)grant[op]), ip = gin - base;
			uint64_t key;
			if (s->age) {
				key = s->pk[s->fifo[grant[op]].head].birth;
			} else {
				key = op + P - s->isl_apt[gin] - 1u;
				if (key >= P)
					key -= P;
			}
			if (!(in_m[ip >> 6] >> (ip & 63) & 1) || key < akey[ip]) {
				in_m[ip >> 6] |= 1ull << (ip & 63);
				acc[ip] = (uint8_t)op;
				akey[ip] = key;
			}
		}
		/* the matched pairs start, inputs in ascending order */
		for (uint32_t w = 0; w < 4 && !rc; w++)
			for (uint64_t m = in_m[w]; m && !rc; m &= m - 1) {
				uint32_t ip = w * 64 + (uint32_t)__builtin_ctzll(m), gin = base + ip;
				if (s->pt[gin].in_busy)
					continue;
				uint32_t pick = acc[ip];
				if (it == 0)
					s->isl_apt[gin] = (uint16_t)pick;
				rc = arb_take(s, base + pick, grant[pick], it == 0);
			}
	}
	return rc;
}

static int arb_port(struct psim *s, uint32_t g)
{
	if (s->pt[g].host_of >= 0)
		return arb_host(s, (uint32_t)s->pt[g].host_of);
	return arb_out(s, g);
}

/* ------------------------------------------------------------ events */

static void ip_drop_list(struct psim *s, int32_t c);

static int stream_done(struct psim *s, const struct pkt *p);

static void stream_lost(struct psim *s, const struct pkt *p);

static void drop_pkt(struct psim *s, int32_t i)
{
	s->res->unroutable++;
	if (s->st) {
		stream_lost(s, &s->pk[i]);
		stream_done(s, &s->pk[i]); /* a lost packet still ends its part of the phase */
	}
	if ((s->pk[i].flags & PK_MEASURED) && !s->K)
		s->outstanding--;
	ip_drop_list(s, s->pk[i].cargo);
	pk_free(s, i);
}

/* The SL of host h's packets towards dlid (SL 0 without a table). */
static inline __attribute__((always_inline)) uint8_t host_sl(const struct psim *s, uint32_t h,
							     uint32_t dlid)
{
	const struct host *H = &s->host[h];
	if (!s->sl || H->row < 0 || dlid >= s->sl->stride)
		return 0;
	uint16_t m = s->sl->mask[(size_t)H->row * s->sl->stride + dlid];
	return m ? (uint8_t)__builtin_ctz(m) : 0;
}

/* Rearrange a[lo..hi] so that a[k] holds the value of rank k and nothing
 * before it is larger, nothing after it smaller (quickselect, median of
 * three): the percentiles without sorting every latency. */
static void select_rank(double *a, size_t lo_, size_t hi_, size_t k_)
{
	ptrdiff_t lo = (ptrdiff_t)lo_, hi = (ptrdiff_t)hi_, k = (ptrdiff_t)k_;
	while (lo < hi) {
		double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi], t;
		double piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < piv)
				i++;
			while (a[j] > piv)
				j--;
			if (i <= j) {
				t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		/* a[lo..j] <= piv <= a[i..hi], anything between == piv */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* Mean, p50, p99 and max of a[n] (n > 0; a is reordered). */
static void lat_stats(double *a, size_t n, double *mean, double *p50, double *p99, double *max)
{
	double sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += a[k];
	*mean = sum / (double)n;
	size_t k50 = (n - 1) / 2, k99 = (size_t)((double)(n - 1) * 0.99);
	select_rank(a, 0, n - 1, k50);
	select_rank(a, k50, n - 1, k99);
	double m = a[k99];
	for (size_t k = k99; k < n; k++)
		if (a[k] > m)
			m = a[k];
	*p50 = a[k50];
	*p99 = a[k99];
	if (max)
		*max = m;
}

static int dpush(double **a, size_t *n, size_t *cap, double v)
{
	GROW(*a, *n, *cap, 4096, return IBF_ENOMEM);
	(*a)[(*n)++] = v;
	return 0;
}

static int host_send(struct psim *s, uint32_t h, uint32_t d, uint32_t bytes);
static inline __attribute__((always_inline)) void pk_dest(struct psim *s, struct pkt *p,
							  uint32_t d, uint32_t dlid);
static int stream_gen(struct psim *s, uint32_t h);
static void stream_tag(const struct psim *s, struct pkt *p);

/* The merged chain's next GEN: an exponential gap of the summed rate, its
 * host drawn in proportion to the hosts' rates (so each host still sends
 * a Poisson stream at its own rate, independent of the others). */
static int gen_next(struct psim *s)
{
	s->gen_t += rand_exp(s, s->gen_mean);
	uint64_t t = (uint64_t)s->gen_t;
	if (t < s->now)
		t = s->now;
	uint32_t i = (uint32_t)ibf_rand_below(&s->rng, s->ngen);
	if (s->gen_keep && rand_unit(s) >= s->gen_keep[i])
		i = s->gen_alias[i];
	s->gen_k = t << EV_BITS | EV_GEN;
	s->gen_a = s->gen_host[i];
	if (s->gen_k < s->qlb)
		s->qlb = s->gen_k;
	return 0;
}

static inline __attribute__((always_inline)) int ev_gen(struct psim *s, uint32_t h)
{
	if (s->st)
		return stream_gen(s, h);
	struct host *H = &s->host[h];
	uint64_t now = s->now;
	int rc;
	if (s->gen_on) {
		rc = gen_next(s);
	} else {
		/* the host's next one: exponential gap */
		uint64_t gap = (uint64_t)rand_exp(s, (double)H->gap_ps) + 1;
		rc = push(s, now + gap, EV_GEN, h, 0);
	}
	if (rc)
		return rc;
	uint32_t d;
	if (s->o->traffic_off) {
		const uint32_t *off = s->o->traffic_off;
		d = s->o->traffic_dst[off[h] + ibf_rand_below(&s->rng, off[h + 1] - off[h])];
	} else {
		d = (uint32_t)ibf_rand_below(&s->rng, s->nh - 1);
		if (d >= h)
			d++;
	}
	return host_send(s, h, d, s->bytes);
}

/* Host h creates a packet of `bytes` wire bytes for host d (a random LID
 * layer) and queues it, or drops it when its queue is full. */
static int host_send(struct psim *s, uint32_t h, uint32_t d, uint32_t bytes)
{
	struct host *H = &s->host[h];
	uint64_t now = s->now;
	/* nlids is a power of two: the remainder is a mask (no division) */
	uint32_t layer = (uint32_t)rand_u64(s) & (s->host[d].nlids - 1);
	s->res->generated++;
	int win = in_window(s, now);
	if (win)
		s->win_gen_bytes += bytes;
	if (H->qlen >= s->o->srcq_max) {
		s->res->src_dropped++;
		return 0;
	}
	int32_t i = pk_alloc(s);
	if (i == PK_NONE)
		return IBF_ENOMEM;
	struct pkt *p = &s->pk[i];
	memset(p, 0, sizeof(*p));
	p->birth = now;
	p->next = PK_NONE;
	p->src = h;
	if (s->st)
		stream_tag(s, p);
	pk_dest(s, p, d, s->host[d].lid + layer);
	p->bytes = (uint16_t)bytes;
	p->cargo = PK_NONE;
	p->sl = host_sl(s, h, p->dlid);
	p->vl = s->vl0[p->sl & 15];
	if (win) {
		p->flags |= PK_MEASURED;
		s->res->measured++;
		s->outstanding++;
	}
	if (H->qtail != PK_NONE)
		s->pk[H->qtail].next = i;
	else
		H->qhead = i;
	H->qtail = i;
	H->qlen++;
	/* sent at once when the link is free (tested here, not in a call) */
	return s->pt[H->g].out_busy ? 0 : arb_host(s, h);
}

/* ------------------------------------------------------------ tables */

/* The output a table entry `port` names at the switch of port sp (any of
 * its ports): its global index, or -1 when route() refuses it (no entry,
 * beyond the switch's ports, a port without a cable). */
static inline int64_t rt_out(const struct psim *s, const struct port *sp, uint8_t port)
{
	if (port == 0 || port == IBF_LFT_NONE || port >= sp->P)
		return -1;
	uint32_t go = sp->base + port;
	if (s->pt[go].peer < 0 || !s->pt[go].rate)
		return -1;
	return go;
}

/* rt_build: the entry `port` of host h's DLID dlid at its home switch,
 * checked as route() checks it; the host behind it when it is an end
 * port. */
static void rt_home(struct psim *s, uint32_t dlid, uint32_t h, uint8_t port)
{
	int64_t go = rt_out(s, &s->pt[s->pt[s->host[h].g].peer], port);
	s->dlast[dlid] = 0;
	if (go < 0)
		return;
	s->dlast[dlid] = port;
	if (s->pt[go].kind == 2)
		s->downer[dlid] = s->pt[s->pt[go].peer].host_of;
}

/* The forwarding tables compressed for the DLIDs packets are sent to (the
 * hosts' LIDs and LMC layers): DLIDs with the same home switch (the switch
 * of their end port) whose entries agree at every other switch share a
 * column class; ctab[sw * ncls + class] is the class's entry at switch sw,
 * and a DLID's entry at its home switch is dlast[dlid].  When the tables
 * route all hosts of a switch alike a class is a (home switch, layer) pair
 * and a switch's row shrinks from one byte per LID to one per class (338
 * instead of 3718 bytes on the 3380-host Slim Fly, 114 KiB in all instead
 * of 1.3 MiB); tables that spread the hosts of a switch over different
 * paths (the minimal engine there: 3293 classes) gain little.  Exact for
 * every DLID: the same port as the LFT.
 * A home switch entry that route() would refuse (port 0 or beyond the
 * switch's ports, a port without a cable) is stored as 0, and the host
 * behind an end port there is downer[dlid], which pk_dest checks against
 * the packet's destination: the last hop needs neither the output port
 * nor the destination host's port line to check the entry. */
static int rt_build(struct psim *s)
{
	const struct ibf_routes *r = s->r;
	uint32_t nsw = r->nsw, stride = r->stride, ncls = 0;
	/* the host DLIDs (each once) and their home switches */
	size_t nd = 0;
	for (uint32_t h = 0; h < s->nh; h++)
		nd += s->host[h].nlids;
	uint32_t *dl = malloc((nd ? nd : 1) * sizeof(*dl));
	uint32_t *hm = malloc((nd ? nd : 1) * sizeof(*hm));
	uint32_t *hh = malloc((nd ? nd : 1) * sizeof(*hh)); /* the DLID's host */
	s->dcls = malloc((stride ? stride : 1) * sizeof(*s->dcls));
	s->dlast = calloc(stride ? stride : 1, 1);
	s->downer = malloc((stride ? stride : 1) * sizeof(*s->downer));
	s->chome = malloc((nd ? nd : 1) * sizeof(*s->chome));
	if (!dl || !hm || !hh || !s->dcls || !s->dlast || !s->downer || !s->chome) {
		free(dl);
		free(hm);
		free(hh);
		return IBF_ENOMEM;
	}
	for (uint32_t k = 0; k < stride; k++) {
		s->dcls[k] = RT_NONE;
		s->downer[k] = RT_ANY;
	}
	nd = 0;
	for (uint32_t h = 0; h < s->nh; h++) {
		const struct host *H = &s->host[h];
		uint32_t home = (uint32_t)s->pt[s->pt[H->g].peer].sw;
		for (uint32_t k = 0; k < H->nlids; k++) {
			uint32_t dlid = H->lid + k;
			if (dlid >= stride || s->dcls[dlid] != RT_NONE)
				continue;
			s->dcls[dlid] = 0; /* seen */
			dl[nd] = dlid;
			hh[nd] = h;
			hm[nd++] = home;
		}
	}
	/* their columns, one row per DLID (no larger than the LFT), copied
	 * 64 switches at a time so the LFT is read row by row */
	uint8_t *cm = malloc(nd * (size_t)nsw + 1);
	uint32_t hsz = 16;
	while (hsz < 2 * nd)
		hsz *= 2;
	int32_t *hash = malloc(hsz * sizeof(*hash));
	uint32_t *rep = malloc((nd ? nd : 1) * sizeof(*rep)); /* a class's first DLID row */
	int rc = cm && hash && rep ? 0 : IBF_ENOMEM;
	for (uint32_t b0 = 0; b0 < nsw && !rc; b0 += 64) {
		uint32_t b1 = b0 + 64 < nsw ? b0 + 64 : nsw;
		for (size_t i = 0; i < nd; i++)
			for (uint32_t sw = b0; sw < b1; sw++)
				cm[i * nsw + sw] = r->lft[(size_t)sw * stride + dl[i]];
	}
	for (uint32_t k = 0; k < hsz && !rc; k++)
		hash[k] = -1;
	for (size_t i = 0; i < nd && !rc; i++) {
		uint8_t *col = cm + i * nsw;
		rt_home(s, dl[i], hh[i], col[hm[i]]);
		col[hm[i]] = 0; /* the home entry is the DLID's own */
		/* the hash only picks the first slot to look at: the classes
		 * are numbered in DLID order whatever it is; eight entries per
		 * step */
		uint64_t x = 1469598103934665603ull ^ hm[i];
		uint32_t sw = 0;
		for (; sw + 8 <= nsw; sw += 8) {
			uint64_t w;
			memcpy(&w, col + sw, 8);
			x = (x ^ w) * 1099511628211ull;
			x ^= x >> 31; /* the high bytes down for the next step */
		}
		for (; sw < nsw; sw++)
			x = (x ^ col[sw]) * 1099511628211ull;
		x = ibf_hash64(x);
		uint32_t at = (uint32_t)x & (hsz - 1);
		while (hash[at] >= 0 &&
		       (s->chome[hash[at]] != hm[i] ||
			memcmp(cm + (size_t)rep[hash[at]] * nsw, col, nsw)))
			at = (at + 1) & (hsz - 1);
		if (hash[at] < 0) {
			s->chome[ncls] = hm[i];
			rep[ncls] = (uint32_t)i;
			hash[at] = (int32_t)ncls++;
		}
		s->dcls[dl[i]] = (uint32_t)hash[at];
	}
	if (!rc && !(s->ctab = malloc((size_t)nsw * (ncls ? ncls : 1))))
		rc = IBF_ENOMEM;
	for (uint32_t c = 0; c < ncls && !rc; c++)
		for (uint32_t sw = 0; sw < nsw; sw++)
			s->ctab[(size_t)sw * ncls + c] = cm[(size_t)rep[c] * nsw + sw];
	s->ncls = ncls;
	free(cm);
	free(hash);
	free(rep);
	free(dl);
	free(hm);
	free(hh);
	return rc;
}

/* Packet p goes to host d at dlid: its column class, home switch and the
 * entry there. */
static inline __attribute__((always_inline)) void pk_dest(struct psim *s, struct pkt *p,
							  uint32_t d, uint32_t dlid)
{
	p->dst = d;
	p->dlid = dlid;
	p->cls = dlid < s->r->stride ? s->dcls[dlid] : RT_NONE;
	if (p->cls != RT_NONE) {
		p->home = s->chome[p->cls];
		p->last = s->dlast[dlid];
		if (s->downer[dlid] != RT_ANY && s->downer[dlid] != (int32_t)d)
			p->last = 0; /* the home switch hands it to another end port */
	}
}

static inline __attribute__((always_inline)) int give_credit(struct psim *s, uint32_t gin,
							       uint8_t vl, uint32_t bytes)
{
	uint32_t up = (uint32_t)s->pt[gin].peer;
	return credits_return(s, up, vl, s->now + s->pt[up].prop, bytes);
}

/* Route packet i that arrived at switch input gin; 0 when it has an output,
 * -2 when the SL2VL table gives a VL beyond the simulated ones, else -1. */
static int route(struct psim *s, uint32_t gin, struct pkt *p)
{
	const struct port *pin = &s->pt[gin];
	if (p->hops >= s->max_hops || p->cls == RT_NONE)
		return -1;
	/* the home switch's entry is checked already (rt_build, pk_dest): 0
	 * when refused */
	uint32_t sw = (uint32_t)pin->sw;
	uint8_t port;
	uint32_t go;
	if (sw == p->home) {
		port = p->last;
		if (!port)
			return -1;
		go = pin->base + port;
	} else {
		port = s->ctab[(size_t)sw * s->ncls + p->cls];
		int64_t o = rt_out(s, pin, port);
		if (o < 0)
			return -1;
		go = (uint32_t)o;
		if (s->pt[go].kind == 2 && s->pt[s->pt[go].peer].host_of != (int32_t)p->dst)
			return -1; /* delivered to the wrong end port */
	}
	uint32_t vl;
	if (s->s2v) {
		uint32_t in = gin - pin->base;
		vl = s->s2v->vl[s->s2v->off[pin->sw] + ((uint64_t)in * pin->P + port) * 16u +
				p->sl];
		if (vl == IBF_VL_NONE)
			return -1; /* no entry (a switch missing from the dump): not a
				    * VL beyond the simulated ones */
	} else {
		vl = s->vl0[p->sl & 15];
	}
	if (vl >= s->V)
		return -2;
	p->out = go;
	p->vl_next = (uint8_t)vl;
	return 0;
}

static int ev_arrive(struct psim *s, int32_t i, uint32_t gin)
{
	struct pkt *p = &s->pk[i];
	int why = route(s, gin, p);
	if (why) {
		s->res->unroutable_vl += why == -2;
		int rc = give_credit(s, gin, p->vl, p->bytes);
		drop_pkt(s, i);
		return rc;
	}
	uint32_t fid = BI(s, gin, p->vl);
	struct port *pin = &s->pt[gin], *po = &s->pt[p->out];
	p->next = PK_NONE;
	/* one branch on the five conditions (bitwise, not short-circuit: the
	 * lines are read anyway and each condition alone is unpredictable) */
	if (!((pin->vmask >> p->vl & 1u) | (uint32_t)(po->req_head >= 0) | po->out_busy |
	      pin->in_busy | (uint32_t)s->islip)) {
		/* The packet would be the only request of a free output from a
		 * free input: unless it lacks credits, arb_out would grant it at
		 * once.  Send it without queueing it, with the same state
		 * changes (the round-robin pointer moves to its input; the FIFO,
		 * request list, vmask and in_switches end as they were). */
		credits_settle(s, p->out);
		if (out_credits(s, p->out, p)) {
			po->rr = (uint8_t)(gin - po->base);
			return transmit(s, p->out, (int32_t)fid, i);
		}
	}
	struct fifo *q = &s->fifo[fid];
	if (q->tail != PK_NONE)
		s->pk[q->tail].next = i;
	else
		q->head = i;
	q->tail = i;
	s->in_switches++;
	if (q->head == i) {
		pin->vmask |= (uint16_t)(1u << p->vl);
		req_add(s, fid);
		return arb_out(s, p->out);
	}
	return 0;
}

static inline __attribute__((always_inline)) int ev_txdone(struct psim *s, uint32_t g)
{
	s->pt[g].out_busy = 0;
	int32_t fid = s->pt[g].cur_fid;
	if (fid < 0) {
		/* a host's link: the host sends its next packet, if it has one
		 * (tested here, not in a call: the queue is mostly empty) */
		uint32_t h = (uint32_t)s->pt[g].host_of;
		return s->host[h].qhead == PK_NONE ? 0 : arb_host(s, h);
	}
	uint32_t gin = BPORT(s, (uint32_t)fid);
	s->pt[gin].in_busy = 0;
	int rc = give_credit(s, gin, (uint8_t)BVL(s, (uint32_t)fid),
			     s->pt[g].cur_bytes);
	/* no requests: arb_free would only count in the credits (no call) */
	if (!rc && (s->pt[g].req_head >= 0 || s->islip))
		rc = arb_free(s, g);
	else if (!rc)
		credits_settle(s, g);
	/* the input is free again: its other heads may go now */
	for (unsigned m = s->pt[gin].vmask; m && !rc && !s->pt[gin].in_busy; m &= m - 1) {
		/* m is a snapshot: an arbitration above may have emptied a FIFO */
		int32_t h = s->fifo[BI(s, gin, (uint32_t)__builtin_ctz(m))].head;
		if (h != PK_NONE && s->pk[h].out != g)
			rc = arb_out(s, s->pk[h].out);
	}
	return rc;
}

/* Packet i's tail reaches its destination at time t (now, or later for a
 * packet that has just started on its last link); its bytes came in over
 * the last `dur` ps before t (the last link's busy time, longer than the
 * link's own serialisation when the packet came from a slower link). */
static int deliver(struct psim *s, int32_t i, uint64_t t, uint64_t dur)
{
	struct pkt *p = &s->pk[i];
	s->res->delivered++;
	s->last_move = s->now;
	if (t > s->tail_any)
		s->tail_any = t;
	/* accepted: the bytes whose arrival falls inside the window, spread
	 * evenly over the last link's busy time, so a host never takes in
	 * more than its link's rate, nor more than a slower source sent (a
	 * packet counted whole at its tail overstated it by up to one packet
	 * time over the window; spread over the fast last link's own
	 * serialisation, a packet from a slower host counted up to its
	 * rate ratio in a window shorter than its packet time) */
	uint64_t t0 = t > dur ? t - dur : 0;
	if (t0 >= s->w0 && t <= s->w1) {
		s->win_acc_bytes += p->bytes;
		s->win_acc_payload += p->bytes - s->o->hdr_bytes;
	} else if (t > s->w0 && t0 < s->w1) {
		s->win_acc_bytes += win_share(s, p->bytes, t0, t);
		s->win_acc_payload += win_share(s, p->bytes - s->o->hdr_bytes, t0, t);
	}
	int rc = 0;
	if (p->flags & PK_MEASURED) {
		if (!s->K)
			s->outstanding--;
		if (t > s->tail_meas)
			s->tail_meas = t;
		s->res->measured_done++;
		rc = dpush(&s->lat, &s->nlat, &s->caplat, (double)(t - p->birth) / 1000.0);
		s->hop_sum += p->swhops;
	}
	if (s->st && !rc)
		rc = stream_done(s, p);
	/* node model: the destination NIC splits the packet */
	for (int32_t c = p->cargo, nx; c != PK_NONE && !rc; c = nx) {
		nx = s->ip[c].next;
		s->ip[c].t[3] = s->now;
		rc = push(s, s->now + (uint64_t)(s->o->nic_split_ns * 1000.0), EV_NREADY,
			  (uint32_t)c, p->dst * s->NL + 2 * s->K + (s->o->nic_pkt_ns > 0 ? 3 : 1));
	}
	pk_free(s, i);
	return rc;
}

/* ------------------------------------------------------------ message streams */

/* The current repetition of the current phase: its messages sorted by
 * source: host h sends msgs
 * [off[h], off[h + 1]), `left` bytes each still to packetise, taken in
 * turn from cur[h].  A message with a rate cap (gbps[j] > 0) sends its
 * next packet no earlier than next[j]: its bytes become available at the
 * cap, a packet once its payload is.  With capped messages in the phase,
 * npk[j] counts each message's packets not delivered yet; a packet carries
 * its message j (pkt.msg).  gen[h]: host h has an EV_GEN pending (one
 * chain of generation events per host, across repetitions and phases
 * too).  A phase runs reps times back to back: repetition rep + 1 is
 * loaded when every packet of repetition rep is in. */
struct pstream {
	uint32_t phase;
	uint32_t rep, reps; /* the phase's repetition running, of reps */
	uint64_t pstart;    /* ps, the phase's start (its first repetition's) */
	uint64_t start;	    /* ps, the repetition's start */
	uint64_t pending;   /* packets of the repetition not delivered or dropped */
	uint32_t *off, *cur, *dst;
	uint64_t *left;
	double *done_ns;
	uint32_t *mk;	  /* message index in the input */
	double *gbps;	  /* cap, payload Gb/s (0: none) */
	uint64_t *next;	  /* ps: capped messages, earliest next packet */
	uint64_t *npk;	  /* packets not delivered (phases with caps) */
	uint8_t *gen;	  /* per host: an EV_GEN pending */
	uint32_t sending; /* the message stream_gen packetises (stream_tag) */
	uint32_t ncap;	  /* capped messages in the phase */
	uint32_t el_left; /* uncapped messages not delivered (phases with caps) */
	int el_lost;	  /* an uncapped message of the repetition lost a packet */
	struct ibf_psim_phase_caps *caps;
	struct ibf_psim_phase_reps *rp; /* [nphases] */
	/* per-rank dependencies (IBF_PSIM_SYNC_RANK, see rank_setup); the
	 * fields above are then unused but for gen, sending and caps */
	int rank;
	struct rhost *rh; /* [nrh] */
	uint32_t nrh;
	uint32_t *by_src, *by_dst; /* [nmsg] each phase's messages by source, by destination */
	uint64_t *rleft;	   /* [nmsg] bytes left of the message at by_src[i] */
	uint64_t *pbase;	   /* [nphases + 1] number of the phase's first message, rep 0 */
	uint64_t *sbase;	   /* [nphases + 1] its first step */
	uint32_t *npart;	   /* [nphases] hosts taking part in each of its steps */
	uint64_t nsteps;
	uint64_t *sfirst, *slast; /* [nsteps] ps: first start, last finish */
	uint32_t *sdone;	  /* [nsteps] hosts that finished it */
	uint32_t hosts_done;	  /* hosts past the last step */
	uint64_t tend;		  /* ps: the last of them */
	/* rate caps (ncapmsg > 0): a capped message at by_src[i] sends its
	 * next packet no earlier than rnext[i]; each capped message of a step
	 * in flight is in a hash table by its number (rkey, rval; RK_NONE
	 * free): its sender's step start and packets not in yet; per phase
	 * the uncapped packets of its last step (elneed), those in (elgot)
	 * and when the last came (elast, ps; UINT64_MAX none) */
	uint32_t ncapmsg;
	uint64_t *rnext;
	uint32_t *rkey;
	struct rcapv {
		uint64_t start, npk;
	} * rval;
	uint32_t rcap, rn; /* slots (a power of two), used */
	uint64_t *elneed, *elgot, *elast;
	/* compute after steps (ibf_psim_stream.compute_ns, reduce_gbps): per
	 * phase the longest of a host's (ps), what the barrier waits for;
	 * NULL without compute.  computed: the barrier's EV_STEP for the
	 * repetition that just ended has fired */
	uint64_t *dcomp;
	int computed;
};
#define RK_NONE UINT32_MAX /* no message number (they stay below 2^32 - 1) */
/* In npk[j] and rval[i].npk: a packet of the message was dropped as
 * unroutable (the count is in the bits below) */
#define NPK_LOST (1ull << 63)

/* A host's place in its steps (per-rank dependencies). */
struct rhost {
	uint64_t step;	    /* the step it is in; nsteps: all done */
	uint64_t end;	    /* ps: when it finished the last one */
	uint64_t need, got; /* packets addressed to it in the step, in so far */
	uint32_t phase, rep;
	uint32_t a, b, cur; /* its messages: by_src[a .. b - 1], the next in turn */
	uint32_t unsent;    /* of those, with bytes left */
	uint8_t part;	    /* takes part in the step */
	uint8_t cstate;	    /* compute after the step: 0 not begun, 1 running (an EV_STEP
			     * pending), 2 done */
	uint64_t rbytes;    /* payload bytes addressed to it in the step */
	uint32_t ehead, nearly, capearly;
	struct rearly {
		uint64_t step, got;
	} * early; /* early[ehead .. nearly - 1]: packets in for later steps, by step */
};

/* ps a capped message needs for `pay` payload bytes at its cap (rounded
 * up: the rate never exceeds the cap). */
static uint64_t stream_pace(double gbps, uint32_t pay)
{
	double ps = ceil((double)pay * 8000.0 / gbps);
	/* event keys hold times below 2^60 ps (~13 days) */
	return ps < 1e17 ? (uint64_t)ps : (uint64_t)1e17;
}

/* ps a host computes after a step of phase k in which `rbytes` payload
 * bytes were addressed to it (ibf_psim_stream.compute_ns, reduce_gbps;
 * rounded up).  stream_compute_setup refuses runs where it passes 1e16 ps,
 * so the run converts it to the clock's integer as it is. */
static double comp_ps(const struct ibf_psim_stream *in, uint32_t k, uint64_t rbytes)
{
	double ps = in->compute_ns ? in->compute_ns[k] * 1000.0 : 0;
	if (in->reduce_gbps && in->reduce_gbps[k] > 0)
		ps += (double)rbytes * 8000.0 / in->reduce_gbps[k];
	return ceil(ps);
}

/* Payload of the next packet of a message with `left` bytes to send. */
static inline uint32_t stream_pay(uint64_t left, uint32_t mtu)
{
	return left < mtu ? (uint32_t)left : mtu;
}

/* Host h's next generation event at t: the host's only one pending. */
static int stream_push_gen(struct psim *s, uint32_t h, uint64_t t)
{
	s->st->gen[h] = 1;
	return push(s, t, EV_GEN, h, 0);
}

/* host_send: the packet it creates belongs to the message stream_gen
 * packetises. */
static void stream_tag(const struct psim *s, struct pkt *p)
{
	p->msg = s->st->sending;
}

/* Load the current repetition of the current phase, starting now, and
 * start the generation chains of its senders. */
static int stream_load(struct psim *s)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	uint32_t a = in->off[st->phase], b = in->off[st->phase + 1];
	uint32_t mtu = s->o->mtu_payload;
	memset(st->off, 0, (s->nh + 1) * sizeof(*st->off));
	for (uint32_t k = a; k < b; k++)
		st->off[in->msg[k].src + 1]++;
	for (uint32_t h = 0; h < s->nh; h++) {
		st->off[h + 1] += st->off[h];
		st->cur[h] = st->off[h];
	}
	st->start = s->now;
	st->pending = 0;
	st->ncap = 0;
	for (uint32_t k = a; k < b; k++) {
		const struct ibf_psim_msg *m = &in->msg[k];
		uint32_t j = st->cur[m->src]++;
		st->dst[j] = m->dst;
		st->left[j] = m->bytes;
		st->mk[j] = k;
		st->gbps[j] = m->gbps;
		st->npk[j] = (m->bytes + mtu - 1) / mtu;
		st->pending += st->npk[j];
		if (m->gbps > 0) {
			st->ncap++;
			st->next[j] =
				s->now +
				stream_pace(m->gbps, stream_pay(m->bytes, mtu));
		}
	}
	st->el_left = (b - a) - st->ncap;
	st->el_lost = 0;
	/* a host whose generation event of the previous repetition or phase
	 * is still pending (its pacing gap after its last packet, at a low
	 * load) starts the repetition there: a second event would double its
	 * rate */
	int rc = 0;
	for (uint32_t h = 0; h < s->nh && !rc; h++) {
		st->cur[h] = st->off[h];
		if (st->off[h + 1] > st->off[h] && !st->gen[h])
			rc = stream_push_gen(s, h, s->now);
	}
	return rc;
}

static int rank_gen(struct psim *s, uint32_t h);

/* Host h's turn over its messages [a, b), from *cur on (left[j]: bytes
 * still to packetise; a capped message, cap in->msg[mk[j]].gbps, sends its
 * next packet no earlier than next[j]): one packet of the first message
 * with bytes left whose time has come, and h's next try after the pacing
 * gap of that packet.  *j: the message, UINT32_MAX when none was taken
 * (all sent; or only capped messages wait: h tries again at the earliest
 * of their times; or h's queue is full: again after one gap); *bytes: the
 * packet's wire bytes.  Shared by both synchronisations (stream_gen,
 * rank_gen). */
static int stream_take(struct psim *s, uint32_t h, uint64_t *left, uint64_t *next,
		       const uint32_t *mk, uint32_t a, uint32_t b, uint32_t *cur, uint32_t *j,
		       uint32_t *bytes)
{
	const struct ibf_psim_msg *msg = s->o->stream->msg;
	struct host *H = &s->host[h];
	uint32_t k = *cur, n = 0;
	uint64_t wake = UINT64_MAX;
	*j = UINT32_MAX;
	for (; n < b - a; n++, k = k + 1 < b ? k + 1 : a) {
		if (!left[k])
			continue;
		if (!(msg[mk[k]].gbps > 0) || next[k] <= s->now)
			break;
		if (next[k] < wake)
			wake = next[k];
	}
	if (n == b - a)
		/* all sent: the host waits for its next phase or step; or for a cap */
		return wake == UINT64_MAX ? 0 : stream_push_gen(s, h, wake);
	if (H->qlen >= s->o->srcq_max)
		return stream_push_gen(s, h, s->now + H->gap_ps);
	uint32_t mtu = s->o->mtu_payload;
	uint32_t pay = stream_pay(left[k], mtu);
	double gbps = msg[mk[k]].gbps;
	left[k] -= pay;
	if (gbps > 0 && left[k])
		next[k] = s->now + stream_pace(gbps, stream_pay(left[k], mtu));
	*cur = k + 1 < b ? k + 1 : a;
	*bytes = pay + s->o->hdr_bytes;
	uint64_t gap = (H->gap_ps * *bytes + s->bytes - 1) / s->bytes;
	*j = k;
	return stream_push_gen(s, h, s->now + (gap ? gap : 1));
}

/* One packet of host h's next message whose time has come (stream_take),
 * with the barrier between phases and repetitions. */
static int stream_gen(struct psim *s, uint32_t h)
{
	struct pstream *st = s->st;
	if (st->rank)
		return rank_gen(s, h);
	st->gen[h] = 0; /* this one */
	uint32_t j, bytes;
	int rc = stream_take(s, h, st->left, st->next, st->mk, st->off[h], st->off[h + 1],
			     &st->cur[h], &j, &bytes);
	if (rc || j == UINT32_MAX)
		return rc;
	st->sending = j;
	return host_send(s, h, st->dst[j], bytes);
}

/* A capped message m is all in, ns after its start: count its achieved
 * rate in c. */
static void stream_cap_count(struct ibf_psim_phase_caps *c, const struct ibf_psim_msg *m, double ns)
{
	double g = ns > 0 ? (double)m->bytes * 8.0 / ns : 0;
	double q = g / m->gbps;
	if (!c->capped_done || g < c->gbps_min)
		c->gbps_min = g;
	if (!c->capped_done || g > c->gbps_max)
		c->gbps_max = g;
	if (!c->capped_done || q > c->ratio_max)
		c->ratio_max = q;
	c->gbps_mean += g; /* a sum until the phase ends */
	c->capped_done++;
}

/* Packet p of the phase was delivered or dropped: with caps in the phase,
 * its message counts it (a phase ends only when all its packets are in, so
 * p->msg is an index of the current phase). */
static void stream_msg_done(struct psim *s, const struct pkt *p)
{
	struct pstream *st = s->st;
	uint32_t j = p->msg;
	if (--st->npk[j] & ~NPK_LOST)
		return;
	struct ibf_psim_phase_caps *c = &st->caps[st->phase];
	double ns = (double)(s->now - st->start) / 1000.0;
	if (!(st->gbps[j] > 0)) {
		/* all uncapped messages in, none of them short of a packet */
		if (!--st->el_left && st->rep + 1 == st->reps && !st->el_lost)
			c->elastic_ns = (double)(s->now - st->pstart) / 1000.0;
		return;
	}
	/* a capped message that lost a packet was not delivered: neither
	 * counted nor given a rate */
	if (!(st->npk[j] & NPK_LOST))
		stream_cap_count(c, &s->o->stream->msg[st->mk[j]], ns);
}

static void stream_caps_close(struct pstream *st)
{
	struct ibf_psim_phase_caps *c = &st->caps[st->phase];
	if (c->capped_done)
		c->gbps_mean /= c->capped_done;
}

static uint32_t stream_reps(const struct ibf_psim_stream *in, uint32_t k)
{
	return in->repeat ? in->repeat[k] : 1;
}

/* The current repetition has all its packets in (now): count it, load the
 * next repetition or the next phase's first; the run stops after the
 * last.  A repetition without packets ends at once (a loop, not a
 * recursion: a phase may repeat many times). */
static int stream_next(struct psim *s)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	for (;;) {
		/* the hosts compute first: the repetition ends with that */
		uint64_t dc = st->dcomp ? st->dcomp[st->phase] : 0;
		if (dc && !st->computed) {
			st->computed = 1;
			return push(s, s->now + dc, EV_STEP, UINT32_MAX, 0);
		}
		st->computed = 0;
		struct ibf_psim_phase_reps *rp = &st->rp[st->phase];
		double ns = (double)(s->now - st->start) / 1000.0;
		if (!rp->done || ns < rp->min_ns)
			rp->min_ns = ns;
		if (!rp->done || ns > rp->max_ns)
			rp->max_ns = ns;
		rp->done++;
		/* back to back: the finished repetitions span the phase so far */
		rp->sum_ns = (double)(s->now - st->pstart) / 1000.0;
		if (++st->rep == st->reps) {
			st->done_ns[st->phase] = rp->sum_ns;
			if (!st->ncap)
				st->caps[st->phase].elastic_ns = rp->sum_ns;
			stream_caps_close(st);
			if (++st->phase == in->nphases) {
				s->stop = 1;
				return 0;
			}
			st->rep = 0;
			st->reps = stream_reps(in, st->phase);
			st->pstart = s->now;
		}
		int rc = stream_load(s);
		if (rc || st->pending)
			return rc;
	}
}

/* A packet of the repetition was delivered (or dropped). */
static int rank_done(struct psim *s, const struct pkt *p);

/* The phase of a packet of message streams: the one running (barrier:
 * a phase ends only when all its packets are in or dropped), or with
 * per-rank dependencies the one its message number falls in. */
static uint32_t stream_phase_of(const struct psim *s, const struct pkt *p)
{
	const struct pstream *st = s->st;
	if (!st->rank)
		return st->phase;
	uint32_t lo = 0, hi = s->o->stream->nphases; /* pbase[k] <= msg < pbase[k + 1] */
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (st->pbase[mid] <= p->msg)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A packet of a message dropped as unroutable (a pair the tables do not
 * join): its phase still ends, and the count says that its messages did
 * not arrive (a phase of nothing but such packets read as done in the
 * time its packets took to be dropped). */
static uint32_t rcap_find(const struct pstream *st, uint32_t key);

static void stream_lost(struct psim *s, const struct pkt *p)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	uint32_t k = stream_phase_of(s, p);
	if (k >= in->nphases)
		return;
	st->rp[k].lost++;
	/* its message is not delivered: with rate caps it must not count as
	 * a delivered capped message, nor end the uncapped ones (elastic) */
	if (!st->rank) {
		st->npk[p->msg] |= NPK_LOST;
		if (!(st->gbps[p->msg] > 0))
			st->el_lost = 1;
		return;
	}
	if (!st->ncapmsg)
		return;
	uint32_t nm = in->off[k + 1] - in->off[k];
	uint64_t rep = (p->msg - st->pbase[k]) / nm;
	const struct ibf_psim_msg *m = &in->msg[in->off[k] + (p->msg - st->pbase[k]) % nm];
	if (m->gbps > 0)
		st->rval[rcap_find(st, p->msg)].npk |= NPK_LOST;
	else if (rep + 1 == stream_reps(in, k))
		st->elneed[k] |= NPK_LOST; /* elgot never reaches it: no elastic time */
}

static int stream_done(struct psim *s, const struct pkt *p)
{
	struct pstream *st = s->st;
	if (st->rank)
		return rank_done(s, p);
	if (st->ncap)
		stream_msg_done(s, p);
	if (!st->pending || --st->pending)
		return 0;
	return stream_next(s);
}

/* ------------------------------------------------------------ per-rank dependencies
 *
 * Every host walks the steps (phase 0 repetition 0, 1, ..., phase 1
 * repetition 0, ...) on its own: it enters step s when it has finished
 * s - 1, i.e. every packet addressed to it in s - 1 is in (delivered or
 * dropped) and it has handed all its own packets of s - 1 to its queue.
 * The messages of a step are the phase's (repetitions have the same ones),
 * so nothing is materialised per step: a host's messages of phase k are
 * by_src[a .. b - 1], their bytes left in rleft[a .. b - 1] (only the host
 * itself touches them, and it is in one step at a time).  A packet
 * carries its message's number over the whole run, pbase[k] + rep x
 * (messages of phase k) + its index in the phase, which gives back the
 * step it belongs to; packets for a step its destination has not entered
 * yet wait as counts in the destination's `early` list. */

/* First position in by[lo .. hi - 1] (sorted by key) whose message's key
 * (source or destination) is >= h. */
static uint32_t rank_lower(const struct ibf_psim_msg *msg, const uint32_t *by, uint32_t lo,
			   uint32_t hi, uint32_t h, int dst)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t k = dst ? msg[by[mid]].dst : msg[by[mid]].src;
		if (k < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The number of message m (an index of in->msg) of phase k, repetition
 * rep, over all steps. */
static uint32_t rank_msg_no(const struct psim *s, uint32_t k, uint32_t rep, uint32_t m)
{
	const struct ibf_psim_stream *in = s->o->stream;
	return (uint32_t)(s->st->pbase[k] + (uint64_t)rep * (in->off[k + 1] - in->off[k]) +
			  (m - in->off[k]));
}

/* The capped messages in flight: open addressing, linear probing. */
static uint32_t rcap_slot(const struct pstream *st, uint32_t key)
{
	return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (st->rcap - 1);
}

static uint32_t rcap_find(const struct pstream *st, uint32_t key)
{
	uint32_t i = rcap_slot(st, key);
	while (st->rkey[i] != key)
		i = (i + 1) & (st->rcap - 1);
	return i;
}

static int rcap_add(struct psim *s, uint32_t key, uint64_t npk)
{
	struct pstream *st = s->st;
	if (2 * (st->rn + 1) > st->rcap) { /* at most half full: rehash into twice the slots */
		uint32_t oc = st->rcap, nc = oc ? 2 * oc : 64;
		uint32_t *ok = st->rkey, *nk = malloc(nc * sizeof(*nk));
		struct rcapv *ov = st->rval, *nv = malloc(nc * sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return IBF_ENOMEM;
		}
		for (uint32_t i = 0; i < nc; i++)
			nk[i] = RK_NONE;
		st->rkey = nk;
		st->rval = nv;
		st->rcap = nc;
		for (uint32_t i = 0; i < oc; i++)
			if (ok[i] != RK_NONE) {
				uint32_t j = rcap_slot(st, ok[i]);
				while (nk[j] != RK_NONE)
					j = (j + 1) & (nc - 1);
				nk[j] = ok[i];
				nv[j] = ov[i];
			}
		free(ok);
		free(ov);
	}
	uint32_t i = rcap_slot(st, key);
	while (st->rkey[i] != RK_NONE)
		i = (i + 1) & (st->rcap - 1);
	st->rkey[i] = key;
	st->rval[i] = (struct rcapv){ s->now, npk };
	st->rn++;
	return 0;
}

/* Free slot i, moving back the entries after it that would no longer be
 * found (no tombstones). */
static void rcap_del(struct pstream *st, uint32_t i)
{
	uint32_t mask = st->rcap - 1, j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (st->rkey[j] == RK_NONE)
			break;
		uint32_t k = rcap_slot(st, st->rkey[j]);
		/* stays when its home k is cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		st->rkey[i] = st->rkey[j];
		st->rval[i] = st->rval[j];
		i = j;
	}
	st->rkey[i] = RK_NONE;
	st->rn--;
}

/* Host h enters its step R->step (< nsteps) now: its messages, the
 * packets it waits for (those already in counted), its generation chain
 * (started unless one is pending: one chain per host). */
static int rank_enter(struct psim *s, uint32_t h)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	struct rhost *R = &st->rh[h];
	uint32_t k = R->phase, lo = in->off[k], hi = in->off[k + 1];
	uint32_t mtu = s->o->mtu_payload;
	R->a = rank_lower(in->msg, st->by_src, lo, hi, h, 0);
	R->b = rank_lower(in->msg, st->by_src, R->a, hi, h + 1, 0);
	R->cur = R->a;
	R->unsent = R->b - R->a;
	for (uint32_t i = R->a; i < R->b; i++) {
		const struct ibf_psim_msg *m = &in->msg[st->by_src[i]];
		st->rleft[i] = m->bytes;
		if (m->gbps > 0) {
			st->rnext[i] = s->now + stream_pace(m->gbps, stream_pay(m->bytes, mtu));
			int rc = rcap_add(s, rank_msg_no(s, k, R->rep, st->by_src[i]),
					  (m->bytes + mtu - 1) / mtu);
			if (rc)
				return rc;
		}
	}
	uint32_t d0 = rank_lower(in->msg, st->by_dst, lo, hi, h, 1);
	uint32_t d1 = rank_lower(in->msg, st->by_dst, d0, hi, h + 1, 1);
	R->need = 0;
	R->rbytes = 0;
	R->cstate = 0;
	for (uint32_t i = d0; i < d1; i++) {
		R->need += (in->msg[st->by_dst[i]].bytes + mtu - 1) / mtu;
		R->rbytes += in->msg[st->by_dst[i]].bytes;
	}
	R->got = 0;
	if (R->ehead < R->nearly && R->early[R->ehead].step == R->step) {
		R->got = R->early[R->ehead++].got;
		if (R->ehead == R->nearly)
			R->ehead = R->nearly = 0;
	}
	R->part = R->b > R->a || d1 > d0;
	if (R->part && s->now < st->sfirst[R->step])
		st->sfirst[R->step] = s->now;
	if (R->unsent && !st->gen[h])
		return stream_push_gen(s, h, s->now);
	return 0;
}

/* Host h may have finished its step: while it has, count it and enter the
 * next (a loop: steps it takes no part in pass at once). */
static int rank_try(struct psim *s, uint32_t h)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	struct rhost *R = &st->rh[h];
	while (R->step < st->nsteps && !R->unsent && R->got >= R->need) {
		if (R->part && st->dcomp && R->cstate != 2) {
			/* it computes first: the step ends with that (EV_STEP) */
			if (R->cstate == 1)
				return 0;
			uint64_t c = (uint64_t)comp_ps(in, R->phase, R->rbytes);
			if (c) {
				R->cstate = 1;
				return push(s, s->now + c, EV_STEP, h, 0);
			}
		}
		if (R->part) {
			if (s->now > st->slast[R->step])
				st->slast[R->step] = s->now;
			st->sdone[R->step]++;
		}
		if (++R->step == st->nsteps) {
			st->tend = R->end = s->now;
			if (++st->hosts_done == s->nh)
				s->stop = 1;
			return 0;
		}
		if (++R->rep == stream_reps(in, R->phase)) {
			R->rep = 0;
			R->phase++;
		}
		int rc = rank_enter(s, h);
		if (rc)
			return rc;
	}
	return 0;
}

/* rank mode's stream_gen: one packet of host h's current step, its
 * messages in turn; the step may end with it. */
static int rank_gen(struct psim *s, uint32_t h)
{
	struct pstream *st = s->st;
	struct rhost *R = &st->rh[h];
	st->gen[h] = 0; /* this one */
	if (!R->unsent)
		return 0; /* waits for its input: the chain ends, rank_enter restarts it */
	uint32_t j, bytes;
	int rc = stream_take(s, h, st->rleft, st->rnext, st->by_src, R->a, R->b, &R->cur, &j,
			     &bytes);
	if (rc || j == UINT32_MAX)
		return rc;
	if (!st->rleft[j])
		R->unsent--;
	st->sending = rank_msg_no(s, R->phase, R->rep, st->by_src[j]);
	rc = host_send(s, h, s->o->stream->msg[st->by_src[j]].dst, bytes);
	if (!rc && !R->unsent)
		rc = rank_try(s, h);
	return rc;
}

/* rank mode's stream_done: packet p is in (delivered or dropped): its
 * destination counts it for the step it belongs to. */
static int rank_done(struct psim *s, const struct pkt *p)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	uint32_t lo = stream_phase_of(s, p); /* rank mode: by its message number */
	uint32_t nm = in->off[lo + 1] - in->off[lo];
	uint64_t rep = (p->msg - st->pbase[lo]) / nm, step = st->sbase[lo] + rep;
	if (st->ncapmsg) {
		const struct ibf_psim_msg *m =
			&in->msg[in->off[lo] + (p->msg - st->pbase[lo]) % nm];
		if (m->gbps > 0) {
			uint32_t i = rcap_find(st, p->msg);
			if (!(--st->rval[i].npk & ~NPK_LOST)) {
				if (!(st->rval[i].npk & NPK_LOST)) /* else not delivered */
					stream_cap_count(&st->caps[lo], m,
							 (double)(s->now - st->rval[i].start) /
								 1000.0);
				rcap_del(st, i);
			}
		} else if (rep + 1 == stream_reps(in, lo) && ++st->elgot[lo] == st->elneed[lo]) {
			st->elast[lo] = s->now;
		}
	}
	struct rhost *R = &st->rh[p->dst];
	if (step == R->step) {
		if (++R->got == R->need)
			return rank_try(s, p->dst);
		return 0;
	}
	/* a later step (an earlier one is finished: all its packets are in) */
	uint32_t e = R->nearly;
	while (e > R->ehead && R->early[e - 1].step > step)
		e--;
	if (e > R->ehead && R->early[e - 1].step == step) {
		R->early[e - 1].got++;
		return 0;
	}
	if (R->ehead && R->nearly == R->capearly) { /* the taken ones make room */
		memmove(R->early, R->early + R->ehead, (R->nearly - R->ehead) * sizeof(*R->early));
		R->nearly -= R->ehead;
		e -= R->ehead;
		R->ehead = 0;
	}
	GROW(R->early, R->nearly, R->capearly, 4, return IBF_ENOMEM);
	memmove(R->early + e + 1, R->early + e, (R->nearly - e) * sizeof(*R->early));
	R->early[e] = (struct rearly){ step, 1 };
	R->nearly++;
	return 0;
}

/* Per-rank dependencies: check what fits, sort each phase's messages by
 * source and by destination, and let every host enter step 0 at time 0. */
static int rank_setup(struct psim *s, struct ibf_error *err)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	uint32_t P = in->nphases, nm = in->off[P];
	st->rank = 1;
	st->pbase = calloc(P + 1, sizeof(*st->pbase));
	st->sbase = calloc(P + 1, sizeof(*st->sbase));
	st->npart = calloc(P, sizeof(*st->npart));
	if (!st->pbase || !st->sbase || !st->npart)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	st->elneed = calloc(P, sizeof(*st->elneed));
	st->elgot = calloc(P, sizeof(*st->elgot));
	st->elast = malloc(P * sizeof(*st->elast));
	if (!st->elneed || !st->elgot || !st->elast)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t k = 0; k < P; k++) {
		uint64_t reps = stream_reps(in, k);
		st->elast[k] = UINT64_MAX;
		for (uint32_t m = in->off[k]; m < in->off[k + 1]; m++) {
			if (in->msg[m].gbps > 0)
				st->ncapmsg++;
			else
				st->elneed[k] += (in->msg[m].bytes + s->o->mtu_payload - 1) /
						 s->o->mtu_payload;
		}
		st->pbase[k + 1] = st->pbase[k] + reps * (in->off[k + 1] - in->off[k]);
		st->sbase[k + 1] = st->sbase[k] + reps;
	}
	if (st->pbase[P] > UINT32_MAX)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "message streams: %llu messages over all steps; per-rank "
				     "dependencies number them in 32 bits (at most %u)",
				     (unsigned long long)st->pbase[P], UINT32_MAX);
	if (st->sbase[P] > (1u << 24))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "message streams: %llu steps; per-rank dependencies "
				     "keep at most 2^24",
				     (unsigned long long)st->sbase[P]);
	st->nsteps = st->sbase[P];
	size_t n = nm ? nm : 1;
	st->by_src = malloc(n * sizeof(*st->by_src));
	st->by_dst = malloc(n * sizeof(*st->by_dst));
	st->rleft = calloc(n, sizeof(*st->rleft));
	st->rnext = calloc(n, sizeof(*st->rnext));
	st->rh = calloc(s->nh ? s->nh : 1, sizeof(*st->rh));
	st->nrh = s->nh;
	st->sfirst = malloc(st->nsteps * sizeof(*st->sfirst));
	st->slast = calloc(st->nsteps, sizeof(*st->slast));
	st->sdone = calloc(st->nsteps, sizeof(*st->sdone));
	uint32_t *cnt = calloc(s->nh + 1, sizeof(*cnt));
	uint32_t *mark = calloc(s->nh ? s->nh : 1, sizeof(*mark));
	if (!st->by_src || !st->by_dst || !st->rleft || !st->rnext || !st->rh || !st->sfirst ||
	    !st->slast || !st->sdone || !cnt || !mark) {
		free(cnt);
		free(mark);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint64_t q = 0; q < st->nsteps; q++)
		st->sfirst[q] = UINT64_MAX;
	/* counting sorts per phase (stable: a host's messages in input order) */
	for (uint32_t k = 0; k < P; k++) {
		uint32_t a = in->off[k], b = in->off[k + 1];
		for (int dst = 0; dst < 2; dst++) {
			uint32_t *by = dst ? st->by_dst : st->by_src;
			memset(cnt, 0, (s->nh + 1) * sizeof(*cnt));
			for (uint32_t m = a; m < b; m++)
				cnt[(dst ? in->msg[m].dst : in->msg[m].src) + 1]++;
			for (uint32_t h = 0; h < s->nh; h++)
				cnt[h + 1] += cnt[h];
			for (uint32_t m = a; m < b; m++)
				by[a + cnt[dst ? in->msg[m].dst : in->msg[m].src]++] = m;
		}
		for (uint32_t m = a; m < b; m++)
			for (int e = 0; e < 2; e++) {
				uint32_t h = e ? in->msg[m].dst : in->msg[m].src;
				if (mark[h] != k + 1) {
					mark[h] = k + 1;
					st->npart[k]++;
				}
			}
	}
	free(cnt);
	free(mark);
	int rc = 0;
	for (uint32_t h = 0; h < s->nh && !rc; h++)
		rc = rank_enter(s, h);
	for (uint32_t h = 0; h < s->nh && !rc; h++)
		rc = rank_try(s, h);
	if (rc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	return 0;
}

/* The run's end in rank mode: per phase its span, steps done and their
 * spans, per host the steps it finished. */
static int rank_finish(struct psim *s)
{
	struct pstream *st = s->st;
	struct ibf_psim_result *res = s->res;
	const struct ibf_psim_stream *in = s->o->stream;
	uint32_t P = in->nphases;
	res->sync = IBF_PSIM_SYNC_RANK;
	res->steps = st->nsteps;
	res->rank_total_ns = st->hosts_done == s->nh ? (double)st->tend / 1000.0 : -1;
	res->host_steps = malloc((s->nh ? s->nh : 1) * sizeof(*res->host_steps));
	res->host_end_ns = malloc((s->nh ? s->nh : 1) * sizeof(*res->host_end_ns));
	res->phase_rank = calloc(P, sizeof(*res->phase_rank));
	if (!res->host_steps || !res->host_end_ns || !res->phase_rank)
		return IBF_ENOMEM;
	for (uint32_t h = 0; h < s->nh; h++) {
		res->host_steps[h] = st->rh[h].step;
		res->host_end_ns[h] =
			st->rh[h].step == st->nsteps ? (double)st->rh[h].end / 1000.0 : -1;
	}
	res->phases_done = 0;
	for (uint32_t k = 0; k < P; k++) {
		struct ibf_psim_phase_rank *pr = &res->phase_rank[k];
		struct ibf_psim_phase_reps *rp = &st->rp[k];
		pr->hosts = st->npart[k];
		pr->first_ns = pr->last_ns = -1;
		uint64_t first = UINT64_MAX, last = 0;
		for (uint64_t q = st->sbase[k]; q < st->sbase[k + 1]; q++) {
			if (st->sfirst[q] < first)
				first = st->sfirst[q];
			if (st->sdone[q] < st->npart[k])
				continue; /* not done by all its hosts */
			if (st->slast[q] > last)
				last = st->slast[q];
			double ns =
				st->npart[k] ? (double)(st->slast[q] - st->sfirst[q]) / 1000.0 : 0;
			if (!rp->done || ns < rp->min_ns)
				rp->min_ns = ns;
			if (!rp->done || ns > rp->max_ns)
				rp->max_ns = ns;
			rp->sum_ns += ns;
			rp->done++;
		}
		pr->span_mean_ns = rp->done ? rp->sum_ns / rp->done : -1;
		if (first != UINT64_MAX)
			pr->first_ns = (double)first / 1000.0;
		if (rp->done == rp->reps) {
			res->phases_done++;
			if (st->npart[k]) {
				pr->last_ns = (double)last / 1000.0;
				st->done_ns[k] = pr->last_ns - pr->first_ns;
			} else {
				st->done_ns[k] = 0;
			}
		}
		/* rate caps: as the barrier reports them, the uncapped messages'
		 * time from the phase's first start (the phase's span without
		 * caps) */
		struct ibf_psim_phase_caps *c = &st->caps[k];
		if (c->capped_done)
			c->gbps_mean /= c->capped_done;
		if (!c->capped)
			c->elastic_ns = st->done_ns[k];
		else if (st->elast[k] != UINT64_MAX)
			c->elastic_ns = (double)(st->elast[k] - first) / 1000.0;
	}
	return 0;
}

static void rank_free(struct pstream *st)
{
	if (st->rh)
		for (uint32_t h = 0; h < st->nrh; h++)
			free(st->rh[h].early);
	free(st->rh);
	free(st->by_src);
	free(st->by_dst);
	free(st->rleft);
	free(st->pbase);
	free(st->sbase);
	free(st->npart);
	free(st->sfirst);
	free(st->slast);
	free(st->sdone);
	free(st->rnext);
	free(st->rkey);
	free(st->rval);
	free(st->elneed);
	free(st->elgot);
	free(st->elast);
}

static int stream_compute_setup(struct psim *s, struct ibf_error *err);

static int stream_setup(struct psim *s, struct ibf_error *err)
{
	const struct ibf_psim_stream *in = s->o->stream;
	if (s->K)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "message streams drive hosts, not the node model");
	if (!in->nphases)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "message streams: no phases");
	uint32_t most = 0;
	for (uint32_t k = 0; k < in->nphases; k++) {
		if (in->off[k + 1] - in->off[k] > most)
			most = in->off[k + 1] - in->off[k];
		uint32_t reps = stream_reps(in, k);
		if (!reps)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "message streams: phase %u repeated 0 times", k);
		/* its capped messages are counted over the repetitions */
		if ((uint64_t)(in->off[k + 1] - in->off[k]) * reps > UINT32_MAX)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "message streams: phase %u has more than 2^32 "
					     "messages over its %u repetitions",
					     k, reps);
		for (uint32_t m = in->off[k]; m < in->off[k + 1]; m++) {
			const struct ibf_psim_msg *g = &in->msg[m];
			if (g->src >= s->nh || g->dst >= s->nh || g->src == g->dst || !g->bytes)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "message streams: phase %u has a message "
						     "%u -> %u of %llu bytes",
						     k, g->src, g->dst,
						     (unsigned long long)g->bytes);
			if (!(g->gbps >= 0) || isinf(g->gbps))
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "message streams: phase %u has a message "
						     "%u -> %u with a rate cap of %g Gb/s",
						     k, g->src, g->dst, g->gbps);
		}
	}
	struct pstream *st = calloc(1, sizeof(*st));
	s->st = st;
	size_t nm = most ? most : 1;
	if (st) {
		st->off = calloc(s->nh + 1, sizeof(*st->off));
		st->cur = calloc(s->nh + 1, sizeof(*st->cur));
		st->dst = malloc(nm * sizeof(*st->dst));
		st->left = malloc(nm * sizeof(*st->left));
		st->done_ns = malloc(in->nphases * sizeof(*st->done_ns));
		st->mk = malloc(nm * sizeof(*st->mk));
		st->gbps = malloc(nm * sizeof(*st->gbps));
		st->next = malloc(nm * sizeof(*st->next));
		st->npk = malloc(nm * sizeof(*st->npk));
		st->gen = calloc(s->nh ? s->nh : 1, sizeof(*st->gen));
		st->caps = calloc(in->nphases, sizeof(*st->caps));
		st->rp = calloc(in->nphases, sizeof(*st->rp));
	}
	if (!st || !st->off || !st->cur || !st->dst || !st->left || !st->done_ns || !st->mk ||
	    !st->gbps || !st->next || !st->npk || !st->gen || !st->caps || !st->rp)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t k = 0; k < in->nphases; k++) {
		st->done_ns[k] = -1;
		st->caps[k].elastic_ns = -1;
		for (uint32_t m = in->off[k]; m < in->off[k + 1]; m++)
			st->caps[k].capped += in->msg[m].gbps > 0;
		st->rp[k].reps = stream_reps(in, k);
		st->caps[k].capped *= st->rp[k].reps;
		st->rp[k].min_ns = st->rp[k].max_ns = -1;
	}
	if (in->compute_ns || in->reduce_gbps) {
		int rc = stream_compute_setup(s, err); /* err may be NULL */
		if (rc)
			return rc;
	}
	/* the window starts at 0 and ends at warm-up + measure as before */
	s->w0 = 0;
	if (in->sync == IBF_PSIM_SYNC_RANK)
		return rank_setup(s, err);
	if (in->sync != IBF_PSIM_SYNC_BARRIER)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "message streams: unknown synchronisation %d", in->sync);
	st->reps = stream_reps(in, 0);
	int rc = stream_load(s);
	if (!rc && !st->pending)
		rc = stream_next(s);
	if (rc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	return 0;
}

/* Compute after steps: the values checked, per phase the longest compute
 * of a host taking part in a step (dcomp, ps; the result's
 * phase_compute_ns). */
static int stream_compute_setup(struct psim *s, struct ibf_error *err)
{
	struct pstream *st = s->st;
	const struct ibf_psim_stream *in = s->o->stream;
	uint32_t P = in->nphases;
	for (uint32_t k = 0; k < P; k++) {
		double c = in->compute_ns ? in->compute_ns[k] : 0;
		double g = in->reduce_gbps ? in->reduce_gbps[k] : 0;
		if (!(c >= 0 && c <= 1e13) || !(g >= 0) || isinf(g))
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "message streams: phase %u has a compute time of %g "
					     "ns or a reduction rate of %g Gb/s",
					     k, c, g);
	}
	st->dcomp = calloc(P, sizeof(*st->dcomp));
	s->res->phase_compute_ns = calloc(P, sizeof(*s->res->phase_compute_ns));
	uint64_t *rb = calloc(s->nh ? s->nh : 1, sizeof(*rb));
	uint8_t *part = calloc(s->nh ? s->nh : 1, 1);
	int rc = !st->dcomp || !s->res->phase_compute_ns || !rb || !part;
	double longest = 0; /* ps, of all phases */
	uint32_t kl = 0;
	for (uint32_t k = 0; k < P && !rc; k++) {
		uint32_t a = in->off[k], b = in->off[k + 1];
		double kmax = 0; /* ps, the phase's longest */
		for (uint32_t m = a; m < b; m++) {
			rb[in->msg[m].dst] += in->msg[m].bytes;
			part[in->msg[m].src] = part[in->msg[m].dst] = 1;
		}
		for (uint32_t m = a; m < b; m++)
			for (int e = 0; e < 2; e++) {
				uint32_t h = e ? in->msg[m].dst : in->msg[m].src;
				if (!part[h])
					continue;
				double c = comp_ps(in, k, rb[h]);
				if (c > kmax)
					kmax = c;
				part[h] = 0;
				rb[h] = 0;
			}
		if (kmax > longest) {
			longest = kmax;
			kl = k;
		}
		/* beyond 1e16 ps the run is refused below (and the cast undefined) */
		st->dcomp[k] = kmax <= 1e16 ? (uint64_t)kmax : 0;
		s->res->phase_compute_ns[k] = (double)st->dcomp[k] / 1000.0;
	}
	free(rb);
	free(part);
	if (rc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	/* a reduction rate so low that one step's compute passes the longest
	 * compute time would be cut to the clock's cap and reported wrong */
	if (!(longest <= 1e16))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "message streams: a host of phase %u would compute %g ns "
				     "after a step (at most 1e13 ns: a reduction rate of %g Gb/s "
				     "is too low)",
				     kl, longest / 1000.0, in->reduce_gbps ? in->reduce_gbps[kl] : 0.0);
	return 0;
}

static int stream_finish(struct psim *s)
{
	struct ibf_psim_result *res = s->res;
	res->nphases = s->o->stream->nphases;
	res->phases_done = s->st->phase;
	if (s->st->rank && rank_finish(s))
		return IBF_ENOMEM;
	res->phase_ns = s->st->done_ns;
	s->st->done_ns = NULL;
	if (!s->st->rank && s->st->phase < res->nphases)
		stream_caps_close(s->st); /* the phase the run stopped in */
	res->phase_caps = s->st->caps;
	s->st->caps = NULL;
	res->phase_reps = s->st->rp;
	s->st->rp = NULL;
	return 0;
}

static void stream_free(struct psim *s)
{
	if (!s->st)
		return;
	free(s->st->off);
	free(s->st->cur);
	free(s->st->dst);
	free(s->st->left);
	free(s->st->done_ns);
	free(s->st->mk);
	free(s->st->gbps);
	free(s->st->next);
	free(s->st->npk);
	free(s->st->gen);
	free(s->st->caps);
	free(s->st->rp);
	free(s->st->dcomp);
	rank_free(s->st);
	free(s->st);
	s->st = NULL;
}

/* ------------------------------------------------------------ node model */

static int32_t ip_alloc(struct psim *s)
{
	if (s->free_ip != PK_NONE) {
		int32_t i = s->free_ip;
		s->free_ip = s->ip[i].next;
		return i;
	}
	/* the accelerators' queues are not bounded: an offered load their
	 * links cannot carry (small intra-node packets, whose headers take
	 * most of the link) grew the pool until the kernel killed the run */
	if (s->nip == s->capip && s->capip && (size_t)s->capip * 2 > s->ip_max) {
		s->ip_over = 1;
		return PK_NONE;
	}
	GROW(s->ip, s->nip, s->capip, 4096, return PK_NONE);
	return (int32_t)s->nip++;
}

static void ip_free(struct psim *s, int32_t i)
{
	s->ip[i].next = s->free_ip;
	s->free_ip = i;
}

static void ip_drop_list(struct psim *s, int32_t c)
{
	while (c != PK_NONE) {
		int32_t nx = s->ip[c].next;
		if (s->ip[c].flags & PK_MEASURED)
			s->outstanding--;
		ip_free(s, c);
		c = nx;
	}
}

static int nl_start(struct psim *s, uint32_t L);

/* The node VL of an intra-node packet: with node_vls 2 the packets that
 * leave or enter the node have their own queues and credits (VL 1). */
static inline uint32_t nl_vl(const struct psim *s, const struct ipkt *p)
{
	return s->o->node_vls > 1 ? p->inter : 0;
}

static inline int nl_queued(const struct nlink *l)
{
	return l->qhead[0] != PK_NONE || l->qhead[1] != PK_NONE || l->nvq;
}

/* node_voq: the K + 1 destination queues of link L when it is one of the
 * links into the intra-node switch (an accelerator's up link, the link
 * from the NIC), else NULL.  Queue d < K feeds accelerator d's down link,
 * queue K the link to the NIC. */
static inline struct nvq *nl_voq(const struct psim *s, uint32_t L)
{
	uint32_t h = L / s->NL, j = L % s->NL, K = s->K;
	if (!s->vq || (j >= K && j != 2 * K + 1))
		return NULL;
	return &s->vq[((size_t)h * (K + 1) + (j < K ? j : K)) * (K + 1)];
}

/* Node back-pressure (node_buf_bytes > 0): the bounded queue packet i
 * enters after link L (-1: none, -2: its NIC). */
static int64_t nl_next(const struct psim *s, uint32_t L, const struct ipkt *p)
{
	uint32_t h = L / s->NL, j = L % s->NL, K = s->K;
	if (j < K)
		return p->inter ? (int64_t)(h * s->NL + 2 * K)
				: (int64_t)(h * s->NL + K + p->dst % K);
	if (j == 2 * K + 1)
		return (int64_t)(h * s->NL + K + p->dst % K);
	if (j == 2 * K)
		return -2;
	return -1;
}

/* Space freed in queue L (or NIC h's buffer when L is -1): restart the
 * idle links that feed it. */
static int nl_wake(struct psim *s, uint32_t h, int64_t L)
{
	uint32_t K = s->K, base = h * s->NL;
	int rc = 0;
	if (L < 0) {
		struct nlink *t = &s->nl[base + 2 * K];
		if (t->cur == PK_NONE && nl_queued(t))
			rc = nl_start(s, base + 2 * K);
		return rc;
	}
	for (uint32_t j = 0; j < K && !rc; j++)
		if (s->nl[base + j].cur == PK_NONE && nl_queued(&s->nl[base + j]))
			rc = nl_start(s, base + j);
	uint32_t fr = base + 2 * K + 1;
	if (!rc && (uint32_t)L != base + 2 * K && s->nl[fr].cur == PK_NONE && nl_queued(&s->nl[fr]))
		rc = nl_start(s, fr);
	return rc;
}

/* May the head i of a node link go on?  With bounded queues only when the
 * queue after the link has room for it on its VL (behind a head that may
 * not, its VL's FIFO waits: head-of-line blocking); the room is taken. */
static int nl_room(struct psim *s, uint32_t L, int32_t i)
{
	if (!s->o->node_buf_bytes)
		return 1;
	int64_t nx = nl_next(s, L, &s->ip[i]);
	uint32_t b = s->ip[i].bytes, v = nl_vl(s, &s->ip[i]);
	if (nx >= 0) {
		if (s->nl[nx].used[v] && s->nl[nx].used[v] + b > s->o->node_buf_bytes)
			return 0;
		s->nl[nx].used[v] += b;
	} else if (nx == -2) {
		uint32_t h = L / s->NL;
		if (s->nic_used[h] && s->nic_used[h] + b > s->o->nic_buf_bytes)
			return 0;
		s->nic_used[h] += b;
	}
	return 1;
}

static int nl_start(struct psim *s, uint32_t L)
{
	struct nlink *l = &s->nl[L];
	int32_t i = PK_NONE, *hd, *tl;
	struct nvq *q = nl_voq(s, L);
	if (q) {
		/* the destinations in turn, starting after the one served
		 * last: the first head with room downstream goes */
		uint32_t D = s->K + 1, d = 0;
		for (uint32_t k = 1; k <= D && i == PK_NONE; k++) {
			d = (l->rrd + k) % D;
			if (q[d].head != PK_NONE && nl_room(s, L, q[d].head))
				i = q[d].head;
		}
		if (i == PK_NONE)
			return 0;
		l->rrd = (uint8_t)d;
		hd = &q[d].head;
		tl = &q[d].tail;
		l->nvq--;
	} else {
		uint32_t v = 0;
		/* the VLs in turn, starting after the one served last */
		for (uint32_t k = 1; k <= 2 && i == PK_NONE; k++) {
			v = (l->rrv + k) & 1u;
			if (l->qhead[v] != PK_NONE && nl_room(s, L, l->qhead[v]))
				i = l->qhead[v];
		}
		if (i == PK_NONE)
			return 0;
		l->rrv = (uint8_t)v;
		hd = &l->qhead[v];
		tl = &l->qtail[v];
	}
	/* i leaves the head of its queue */
	*hd = s->ip[i].next;
	if (*hd == PK_NONE)
		*tl = PK_NONE;
	l->cur = i;
	uint32_t j = L % s->NL;
	if (j < s->K)
		s->ip[i].t[0] = s->now;
	else if (j == 2 * s->K + 1)
		s->ip[i].t[4] = s->now;
	/* (intra-node moves do not feed the fabric's deadlock watchdog) */
	uint64_t ser = l->fixed ? l->fixed : ser_ps(s->ip[i].bytes, l->rate);
	/* an accelerator link takes at least acc_pkt_ns per packet */
	uint64_t floor_ps = (uint64_t)(s->o->acc_pkt_ns * 1000.0 + 0.5);
	if (j < 2 * s->K && ser < floor_ps)
		ser = floor_ps;
	return push(s, s->now + ser, EV_NDONE, L, 0);
}

static int nl_ready(struct psim *s, int32_t i, uint32_t L)
{
	struct nlink *l = &s->nl[L];
	uint32_t v = nl_vl(s, &s->ip[i]);
	s->ip[i].next = PK_NONE;
	int32_t *hd = &l->qhead[v], *tl = &l->qtail[v];
	struct nvq *q = nl_voq(s, L);
	if (q) {
		/* the queue of the switch output it leaves by */
		q += nl_next(s, L, &s->ip[i]) - (int64_t)(L / s->NL * s->NL + s->K);
		hd = &q->head;
		tl = &q->tail;
		l->nvq++;
	}
	if (*tl != PK_NONE)
		s->ip[*tl].next = i;
	else
		*hd = i;
	*tl = i;
	return l->cur == PK_NONE ? nl_start(s, L) : 0;
}

/* The tail of intra-node packet i reached its accelerator at time t. */
static int ip_deliver(struct psim *s, int32_t i, uint64_t t)
{
	struct ipkt *p = &s->ip[i];
	int rc = 0;
	/* its bytes arrive during the serialisation on the accelerator's
	 * link before t: the share inside the window counts (as deliver) */
	uint64_t ser = ser_ps(p->bytes, s->nl[p->dst / s->K * s->NL + s->K + p->dst % s->K].rate);
	uint64_t pay = win_share(s, p->bytes - s->o->ipkt_hdr, t - ser, t);
	if (p->inter)
		s->win_inter += pay;
	else
		s->win_intra += pay;
	if (p->flags & PK_MEASURED) {
		s->outstanding--;
		s->res->ipkts_done++;
		rc = dpush(&s->ilat, &s->nilat, &s->capilat, (double)(t - p->birth) / 1000.0);
		if (p->inter) {
			uint64_t at[7] = {
				p->birth, p->t[0], p->t[1], p->t[2], p->t[3], p->t[4], t
			};
			for (int k = 0; k < 6; k++)
				s->comp_inter[k] += (double)(at[k + 1] - at[k]) / 1000.0;
			s->n_inter++;
		} else {
			s->comp_intra[0] += (double)(p->t[0] - p->birth) / 1000.0;
			s->comp_intra[1] += (double)(t - p->t[0]) / 1000.0;
			s->n_intra++;
		}
	}
	ip_free(s, i);
	return rc;
}

/* Seal NIC h's packet for node d and hand it to the port. */
static int nic_seal(struct psim *s, uint32_t h, uint32_t d)
{
	struct agg *a = &s->agg[(size_t)h * s->nh + d];
	int32_t i = pk_alloc(s);
	if (i == PK_NONE)
		return IBF_ENOMEM;
	struct pkt *p = &s->pk[i];
	memset(p, 0, sizeof(*p));
	p->birth = s->now;
	p->next = PK_NONE;
	p->src = h;
	pk_dest(s, p, d, s->host[d].lid + (uint32_t)ibf_rand_below(&s->rng, s->host[d].nlids));
	p->bytes = (uint16_t)(s->o->hdr_bytes + a->bytes);
	p->sl = host_sl(s, h, p->dlid);
	p->vl = s->vl0[p->sl & 15];
	p->cargo = a->head;
	s->res->generated++;
	if (in_window(s, s->now)) {
		p->flags |= PK_MEASURED;
		s->res->measured++;
		s->win_gen_bytes += p->bytes;
	}
	uint64_t t = s->now + (uint64_t)(s->o->nic_agg_ns * 1000.0);
	for (int32_t c = a->head; c != PK_NONE; c = s->ip[c].next)
		s->ip[c].t[2] = t;
	s->agg_pkts += a->n;
	s->agg_seals++;
	a->head = a->tail = PK_NONE;
	a->bytes = a->n = 0;
	a->gen++;
	return push(s, t, EV_HCA, (uint32_t)i, h);
}

static int nic_arrive(struct psim *s, uint32_t h, int32_t i)
{
	struct ipkt *p = &s->ip[i];
	uint32_t d = p->dst / s->K;
	struct agg *a = &s->agg[(size_t)h * s->nh + d];
	/* an intra-node packet larger than the fabric payload travels alone */
	uint32_t cap = s->o->mtu_payload > p->bytes ? s->o->mtu_payload : p->bytes;
	int rc = 0;
	if (a->n && a->bytes + p->bytes > cap)
		rc = nic_seal(s, h, d);
	if (rc)
		return rc;
	p->next = PK_NONE;
	if (a->tail != PK_NONE)
		s->ip[a->tail].next = i;
	else
		a->head = i;
	a->tail = i;
	a->bytes += p->bytes;
	a->n++;
	if (a->bytes + s->o->ipkt_payload + s->o->ipkt_hdr > cap)
		return nic_seal(s, h, d);
	if (a->n == 1)
		rc = push(s, s->now + (uint64_t)(s->o->agg_timeout_ns * 1000.0), EV_AGG,
			  h * s->nh + d, a->gen);
	return rc;
}

static int ev_ndone(struct psim *s, uint32_t L)
{
	struct nlink *l = &s->nl[L];
	int32_t i = l->cur;
	l->cur = PK_NONE;
	uint32_t h = L / s->NL, j = L % s->NL, K = s->K;
	uint64_t t = s->now + (uint64_t)(s->o->node_hop_ns * 1000.0);
	const struct ipkt *p = &s->ip[i];
	int rc;
	int freed = 0;
	if (s->o->node_buf_bytes && ((j >= K && j < 2 * K) || j == 2 * K)) {
		l->used[nl_vl(s, p)] -= p->bytes; /* its tail left this queue */
		freed = 1;
	}
	if (j < K) /* accelerator -> intra-node switch */
		rc = push(s, t, EV_NREADY, (uint32_t)i,
			  p->inter ? h * s->NL + 2 * K : h * s->NL + K + p->dst % K);
	else if (j < 2 * K) /* -> accelerator */
		rc = ip_deliver(s, i, t);
	else if (j == 2 * K) { /* -> NIC (its per-packet processing first, when it has a cost) */
		s->ip[i].t[1] = t;
		rc = push(s, t, EV_NREADY, (uint32_t)i,
			  s->o->nic_pkt_ns > 0 ? h * s->NL + 2 * K + 2 : s->nh * s->NL + h);
	} else if (j == 2 * K + 1) /* NIC -> intra-node switch */
		rc = push(s, t, EV_NREADY, (uint32_t)i, h * s->NL + K + p->dst % K);
	else if (j == 2 * K + 2) /* NIC processed it: aggregate */
		rc = nic_arrive(s, h, i);
	else /* destination NIC processed it: onto the NIC link */
		rc = nl_ready(s, i, h * s->NL + 2 * K + 1);
	if (!rc && nl_queued(l))
		rc = nl_start(s, L);
	if (!rc && freed)
		rc = nl_wake(s, h, (int64_t)L);
	return rc;
}

static int ev_nready(struct psim *s, int32_t i, uint32_t L)
{
	if (L >= s->nh * s->NL)
		return nic_arrive(s, L - s->nh * s->NL, i);
	return nl_ready(s, i, L);
}

static int ev_agen(struct psim *s, uint32_t acc)
{
	const struct ibf_psim_opts *o = s->o;
	uint32_t K = s->K, h = acc / K;
	uint64_t gap = (uint64_t)rand_exp(s, (double)*s->acc_gap) + 1;
	int rc = push(s, s->now + gap, EV_AGEN, acc, 0);
	if (rc)
		return rc;
	int inter = K == 1 || rand_unit(s) < o->inter_frac;
	uint32_t dst;
	if (inter) {
		uint32_t r = (uint32_t)ibf_rand_below(&s->rng, (uint64_t)(s->nh - 1) * K);
		uint32_t node = r / K;
		if (node >= h)
			node++;
		dst = node * K + r % K;
	} else {
		uint32_t a = (uint32_t)ibf_rand_below(&s->rng, K - 1);
		if (a >= acc % K)
			a++;
		dst = h * K + a;
	}
	int win = in_window(s, s->now);
	for (uint32_t off = 0; off < o->msg_bytes && !rc; off += o->ipkt_payload) {
		uint32_t pay =
			o->msg_bytes - off < o->ipkt_payload ? o->msg_bytes - off : o->ipkt_payload;
		int32_t i = ip_alloc(s);
		if (i == PK_NONE)
			return IBF_ENOMEM;
		struct ipkt *p = &s->ip[i];
		memset(p, 0, sizeof(*p));
		p->birth = s->now;
		p->src = acc;
		p->dst = dst;
		p->bytes = (uint16_t)(pay + o->ipkt_hdr);
		p->inter = (uint8_t)inter;
		if (win) {
			p->flags = PK_MEASURED;
			s->res->ipkts_measured++;
			s->outstanding++;
		}
		rc = nl_ready(s, i, h * s->NL + acc % K);
	}
	return rc;
}

static int ev_hca(struct psim *s, int32_t i, uint32_t h)
{
	struct host *H = &s->host[h];
	if (H->qtail != PK_NONE)
		s->pk[H->qtail].next = i;
	else
		H->qhead = i;
	H->qtail = i;
	H->qlen++;
	/* sent at once when the link is free (tested here, not in a call) */
	return s->pt[H->g].out_busy ? 0 : arb_host(s, h);
}

static int node_setup(struct psim *s, struct ibf_error *err)
{
	const struct ibf_psim_opts *o = s->o;
	uint32_t nh = s->nh, K = s->K;
	if (nh > 4096)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "the node model takes at most 4096 nodes (end ports), not %u",
				     nh);
	ibf_mem_limit_get(NULL, &s->ip_ml);
	s->ip_max = s->ip_ml.bytes / 2 / sizeof(struct ipkt);
	if (s->ip_max > INT32_MAX - 1) /* indices are int32_t, PK_NONE < 0 */
		s->ip_max = INT32_MAX - 1;
	s->NL = 2 * K + 4; /* K up, K down, to NIC, from NIC, NIC tx and rx processing */
	s->nl = malloc((size_t)nh * s->NL * sizeof(*s->nl));
	s->agg = malloc((size_t)nh * nh * sizeof(*s->agg));
	s->acc_gap = malloc(sizeof(*s->acc_gap));
	s->nic_used = calloc(nh, sizeof(*s->nic_used));
	if (!s->nl || !s->agg || !s->acc_gap || !s->nic_used)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint32_t ra = (uint32_t)(o->acc_gbps * 10.0 + 0.5),
		 rn = (uint32_t)(o->nic_gbps * 10.0 + 0.5);
	for (uint32_t L = 0; L < nh * s->NL; L++) {
		uint32_t j = L % s->NL;
		uint64_t fixed = j >= 2 * K + 2 ? (uint64_t)(o->nic_pkt_ns * 1000.0 + 0.5) : 0;
		s->nl[L] = (struct nlink){ { PK_NONE, PK_NONE },
					   { PK_NONE, PK_NONE },
					   PK_NONE,
					   j < 2 * K ? ra : rn,
					   fixed,
					   { 0, 0 },
					   1,
					   (uint8_t)K,
					   0 };
	}
	if (o->node_voq) {
		size_t nq = (size_t)nh * (K + 1) * (K + 1);
		s->vq = malloc(nq * sizeof(*s->vq));
		if (!s->vq)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		for (size_t k = 0; k < nq; k++)
			s->vq[k] = (struct nvq){ PK_NONE, PK_NONE };
	}
	for (size_t k = 0; k < (size_t)nh * nh; k++)
		s->agg[k] = (struct agg){ PK_NONE, PK_NONE, 0, 0, 0 };
	*s->acc_gap = (uint64_t)((double)o->msg_bytes * 8000.0 / (o->load * o->acc_gbps) + 0.5);
	s->free_ip = PK_NONE;
	s->res->node_max_gbps = (double)nh * K * o->acc_gbps;
	int rc = 0;
	for (uint32_t acc = 0; acc < nh * K && !rc; acc++)
		rc = push(s, ibf_rand_below(&s->rng, *s->acc_gap), EV_AGEN, acc, 0);
	if (rc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	return 0;
}

static void node_finish(struct psim *s, double win_s)
{
	struct ibf_psim_result *res = s->res;
	res->intra_gbps = (double)s->win_intra * 8.0 / win_s / 1e9;
	res->inter_gbps = (double)s->win_inter * 8.0 / win_s / 1e9;
	if (s->nilat) {
		lat_stats(s->ilat, s->nilat, &res->ilat_mean, &res->ilat_p50, &res->ilat_p99, NULL);
	}
	for (int k = 0; k < 7; k++)
		res->comp_inter[k] = s->n_inter ? s->comp_inter[k] / (double)s->n_inter : 0;
	for (int k = 0; k < 2; k++)
		res->comp_intra[k] = s->n_intra ? s->comp_intra[k] / (double)s->n_intra : 0;
	res->agg_mean = s->agg_seals ? (double)s->agg_pkts / (double)s->agg_seals : 0;
	res->n_inter = s->n_inter;
	res->n_intra = s->n_intra;
}

/* The credits of buffer (g, vl) with every pending return counted in,
 * also those still on their way (due after now), and those of a packet
 * leaving the buffer (returned when its tail is out). */
static int64_t credits_all(const struct psim *s, uint32_t g, uint32_t vl)
{
	const struct port *P = &s->pt[g];
	int64_t c = s->credits[BI(s, g, vl)];
	if (P->pct != UINT64_MAX && P->pcvl == vl)
		c += P->pcbytes;
	for (int32_t k = P->pcmore ? s->pcx[g].head : PK_NONE; k != PK_NONE; k = s->pc[k].next)
		if (BVL(s, s->pc[k].idx) == vl)
			c += s->pc[k].bytes;
	uint32_t in = (uint32_t)P->peer, fid = BI(s, in, vl);
	if (s->pt[in].in_busy)
		for (int o = 1; o <= s->f->nodes[s->node_of[in]].nports; o++) {
			const struct port *O = &s->pt[s->pt[in].base + (uint32_t)o];
			if (O->out_busy && O->cur_fid == (int32_t)fid)
				c += O->cur_bytes;
		}
	return c;
}

/* The buffer the head of FIFO fid waits for (-1: it does not wait for
 * credits); with all, only when the credits on their way would not do
 * either (such a wait cannot end unless the buffer waited for moves). */
static int64_t waits_on(const struct psim *s, uint32_t fid, int all)
{
	int32_t h = s->fifo[fid].head;
	if (h == PK_NONE)
		return -1;
	const struct pkt *p = &s->pk[h];
	uint32_t g = p->out;
	if (out_credits(s, g, p) || (all && credits_all(s, g, p->vl_next) >= (int64_t)p->bytes))
		return -1;
	return (int64_t)BI(s, (uint32_t)s->pt[g].peer, p->vl_next);
}

/* Find a cycle of buffers waiting on each other (each buffer waits on at
 * most one other: follow the chain from every non-empty buffer). */
static int find_cycle(struct psim *s, int all, int *found)
{
	*found = 0;
	size_t nf = (size_t)s->V << s->psh;
	uint32_t *mark = calloc(nf, sizeof(*mark));
	if (!mark)
		return IBF_ENOMEM;
	uint32_t walk = 0;
	int64_t start = -1;
	/* buffers in port-major order */
	for (size_t r = 0; r < ((size_t)s->np << s->vsh) && start < 0; r++) {
		if ((r & ((1u << s->vsh) - 1)) >= s->V)
			continue;
		size_t f0 = BI(s, (uint32_t)(r >> s->vsh), (uint32_t)(r & ((1u << s->vsh) - 1)));
		if (mark[f0] || s->fifo[f0].head == PK_NONE)
			continue;
		walk++;
		int64_t x = (int64_t)f0;
		while (x >= 0 && !mark[x]) {
			mark[x] = walk;
			x = waits_on(s, (uint32_t)x, all);
		}
		if (x >= 0 && mark[x] == walk)
			start = x;
	}
	free(mark);
	if (start < 0)
		return 0;
	uint32_t len = 0;
	int64_t x = start;
	do {
		len++;
		x = waits_on(s, (uint32_t)x, all);
	} while (x != start && len < 1000000);
	*found = 1;
	uint32_t keep = len < s->o->max_cycle ? len : s->o->max_cycle;
	free(s->res->cycle);
	s->res->cycle_len = 0;
	s->res->cycle = calloc(keep ? keep : 1, sizeof(*s->res->cycle));
	if (!s->res->cycle)
		return IBF_ENOMEM;
	s->res->cycle_len = keep;
	s->res->cycle_total = len;
	x = start;
	for (uint32_t k = 0; k < keep; k++) {
		uint32_t gin = BPORT(s, (uint32_t)x), up = (uint32_t)s->pt[gin].peer;
		struct ibf_psim_buf *b = &s->res->cycle[k];
		b->node = (int32_t)s->node_of[gin];
		b->port = (uint8_t)(gin - s->f->nodes[b->node].port_off);
		b->from_node = (int32_t)s->node_of[up];
		b->from_port = (uint8_t)(up - s->f->nodes[b->from_node].port_off);
		b->vl = (uint8_t)BVL(s, (uint32_t)x);
		b->pkts = 0;
		for (int32_t i = s->fifo[x].head; i != PK_NONE; i = s->pk[i].next)
			b->pkts++;
		x = waits_on(s, (uint32_t)x, all);
	}
	return 0;
}

/* A port still sending a packet: its end frees the output (and soon the
 * buffers behind it), so the fabric is not standing still. */
static int any_out_busy(const struct psim *s)
{
	for (uint32_t g = 0; g < s->np; g++)
		if (s->pt[g].out_busy)
			return 1;
	return 0;
}

static int ev_check(struct psim *s)
{
	uint64_t stall = s->stall_ps;
	/* nothing started nor arrived for the stall time, and nothing is on
	 * its way out of a port either: the stall floor is 8 times the
	 * slowest link's time of an MTU packet, and the node model's fabric
	 * packets can be 16 times that (an intra-node packet of up to 64 KiB
	 * travels alone), so one of them on a 1x link with another behind it
	 * was reported as a deadlock ("no cycle of credit waits found") */
	if (s->in_switches > 0 && s->now - s->last_move >= stall && !any_out_busy(s)) {
		s->stop = 1;
		if (s->res->deadlock) /* the partial one found before: all stands now */
			return 0;
		s->res->deadlock = 1;
		s->res->deadlock_ns = (double)s->now / 1000.0;
		s->res->deadlock_pkts = s->in_switches;
		for (uint32_t g = 0; g < s->np; g++)
			credits_settle(s, g);
		int found;
		return find_cycle(s, 0, &found);
	}
	/* a deadlock in part of the fabric while the rest moves: a cycle of
	 * buffers whose heads lack credits that even the returns on their way
	 * would not give (each waits for the next, which never moves).  It is
	 * reported, and the run goes on: the rest of the fabric is measured
	 * to the end of the window (stopping here would cut transmissions in
	 * progress) */
	if (s->in_switches > 0 && !s->res->deadlock) {
		int found;
		int rc = find_cycle(s, 1, &found);
		if (rc)
			return rc;
		if (found) {
			s->res->deadlock = s->res->deadlock_partial = 1;
			s->res->deadlock_ns = (double)s->now / 1000.0;
			s->res->deadlock_pkts = s->in_switches;
		}
	}
	return push(s, s->now + stall / 2 + 1, EV_CHECK, 0, 0);
}

/* ------------------------------------------------------------ setup */

void ibf_psim_opts_default(struct ibf_psim_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->load = 0.5;
	o->mtu_payload = 4032;
	o->hdr_bytes = 64;
	o->buf_bytes = 131072;
	o->vls = 8;
	o->arb = IBF_PSIM_ARB_RR;
	o->warmup_ns = 20000;
	o->measure_ns = 50000;
	o->drain_ns = -1;
	o->router_ns = 100;
	o->ns_per_m = 25;
	o->host_cable_m = 2;
	o->switch_cable_m = 10;
	o->stall_ns = 50000;
	o->srcq_max = 256;
	o->max_cycle = 64;
	o->acc_gbps = 512;
	o->nic_gbps = 128;
	o->ipkt_payload = 128;
	o->ipkt_hdr = 20;
	o->msg_bytes = 4096;
	o->inter_frac = 0.2;
	o->node_hop_ns = 20;
	o->nic_agg_ns = 50;
	o->nic_split_ns = 50;
	o->agg_timeout_ns = 200;
	o->nic_buf_bytes = 262144;
	o->node_vls = 1;
}

void ibf_psim_result_free(struct ibf_psim_result *res)
{
	free(res->phase_ns);
	res->phase_ns = NULL;
	free(res->phase_caps);
	res->phase_caps = NULL;
	free(res->phase_reps);
	res->phase_reps = NULL;
	free(res->host_steps);
	res->host_steps = NULL;
	free(res->host_end_ns);
	res->host_end_ns = NULL;
	free(res->phase_rank);
	res->phase_rank = NULL;
	free(res->phase_compute_ns);
	res->phase_compute_ns = NULL;
	free(res->link_util);
	free(res->link_gbps);
	res->link_util = NULL;
	res->link_gbps = NULL;
	res->nlinks = 0;
	free(res->cycle);
	res->cycle = NULL;
	res->cycle_len = 0;
	res->cycle_total = 0;
}

static void psim_free(struct psim *s)
{
	free(s->isl_apt);
	free(s->isl_grant);
	free(s->isl_gl);
	free(s->isl_acc);
	free(s->isl_akey);
	free(s->isl_rq);
	free(s->gen_host);
	free(s->gen_keep);
	free(s->gen_alias);
	free(s->pt);
	free(s->node_of);
	free(s->credits);
	free(s->fifo);
	free(s->link_bytes);
	free(s->host);
	free(s->pk);
	free(s->ctab);
	free(s->dcls);
	free(s->chome);
	free(s->dlast);
	free(s->downer);
	free(s->qpool);
	free(s->pc);
	free(s->pcx);
	free(s->qb);
	free(s->qover.v);
	for (uint32_t l = 0; l < NLANES; l++)
		free(s->lane[l].v);
	free(s->lat);
	free(s->ip);
	free(s->nl);
	free(s->agg);
	free(s->nic_used);
	free(s->vq);
	free(s->acc_gap);
	free(s->ilat);
}

int ibf_psim_opts_check(const struct ibf_psim_opts *o, struct ibf_error *err)
{
	/* below 1e-6 the gaps between packets overflow the picosecond clock */
	if (!(o->load >= 1e-6 && o->load <= 1.0))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "load must be in [1e-6, 1]");
	if (o->vls < 1 || o->vls > 15)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "vls must be 1..15");
	uint64_t b = (uint64_t)o->mtu_payload + o->hdr_bytes;
	if (b < 1 || b > 65535)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "packet size must be 1..65535 bytes");
	/* a message is cut into packets of mtu_payload bytes: none would end
	 * it (and the packet count divided by zero) */
	if (o->stream && !o->mtu_payload)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "message streams need a packet payload of at least 1 byte");
	/* node model: an intra-node packet larger than the fabric payload
	 * travels alone in a fabric packet (nic_arrive), which is then larger */
	uint64_t ib = (uint64_t)(o->ipkt_payload < o->msg_bytes ? o->ipkt_payload : o->msg_bytes) +
		      o->ipkt_hdr + o->hdr_bytes;
	if (o->accels && ib > b)
		b = ib;
	if (o->buf_bytes < b || o->buf_bytes > (1u << 30))
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"buffer (%u bytes) must hold one packet (%llu bytes) and be <= 1 GiB",
			o->buf_bytes, (unsigned long long)b);
	/* written so that NaN fails every test (it went through the old
	 * negative tests and was converted to picoseconds); a negative drain
	 * means "as long as the measurement" */
	if (!(o->measure_ns > 0) || !(o->warmup_ns >= 0) || !(o->stall_ns > 0) ||
	    !(o->router_ns >= 0) || !(o->ns_per_m >= 0) || !(o->host_cable_m >= 0) ||
	    !(o->switch_cable_m >= 0) || !(o->warmup_ns + o->measure_ns <= 1e10) ||
	    isnan(o->drain_ns) || o->drain_ns > 1e10 || o->stall_ns > 1e10 ||
	    o->router_ns > 1e10 || !(o->ns_per_m * o->host_cable_m <= 1e10) ||
	    !(o->ns_per_m * o->switch_cable_m <= 1e10))
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"times and lengths must be >= 0 (measure, stall > 0; at most 10 s)");
	if (o->srcq_max < 1)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "source queue must hold >= 1 packet");
	if (o->max_cycle < 1)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "a deadlock report lists >= 1 buffer of its cycle");
	if (!(o->acc_pkt_ns >= 0 && o->acc_pkt_ns <= 1e6))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "accelerator packet time must be >= 0");
	if (o->islip_iters < 0 || o->islip_iters > 16)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "iSLIP iterations must be 0..16");
	if (o->node_vls < 1 || o->node_vls > 2)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "node VLs must be 1 or 2");
	if (o->node_voq && (!o->accels || !o->node_buf_bytes))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "node VOQs go with the node model and bounded intra-node "
				     "queues (node_buf_bytes > 0)");
	if (o->accels &&
	    (o->accels < 1 || o->accels > 64 || !(o->acc_gbps >= 0.1 && o->acc_gbps <= 1e6) ||
	     !(o->nic_gbps >= 0.1 && o->nic_gbps <= 1e6) ||
	     o->ipkt_payload < 1 ||
	     (uint64_t)o->ipkt_payload + o->ipkt_hdr + o->hdr_bytes > 65535 || o->msg_bytes < 1 ||
	     o->msg_bytes > (1u << 24) || !(o->inter_frac >= 0 && o->inter_frac <= 1) ||
	     !(o->node_hop_ns >= 0 && o->node_hop_ns <= 1e10) ||
	     !(o->nic_pkt_ns >= 0 && o->nic_pkt_ns <= 1e10) ||
	     !(o->nic_agg_ns >= 0 && o->nic_agg_ns <= 1e10) ||
	     !(o->nic_split_ns >= 0 && o->nic_split_ns <= 1e10) ||
	     !(o->agg_timeout_ns >= 0 && o->agg_timeout_ns <= 1e10)))
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"node model: 1..64 accelerators, rates of 0.1..1e6 Gb/s, intra-node packets "
			"< 64 KiB, a share in [0, 1], times in [0, 10 s]");
	/* a bounded intra-node queue or NIC smaller than one intra-node
	 * packet: nl_room lets a packet into an empty queue whatever its size,
	 * so such a bound ran as one of a packet, with the figure asked for
	 * in no way part of the result */
	if (o->accels && o->node_buf_bytes) {
		uint64_t ip = (uint64_t)(o->ipkt_payload < o->msg_bytes ? o->ipkt_payload
									: o->msg_bytes) +
			      o->ipkt_hdr;
		if (o->node_buf_bytes < ip || o->nic_buf_bytes < ip)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "node model: the intra-node queues (%u bytes) and the "
					     "NIC (%u bytes) must hold one intra-node packet (%llu "
					     "bytes)",
					     o->node_buf_bytes, o->nic_buf_bytes,
					     (unsigned long long)ip);
	}
	return 0;
}

/* Per-port state, credits, FIFOs, byte counters and host slots. */
static int setup_alloc(struct psim *s, struct ibf_error *err)
{
	const struct ibf_fabric *f = s->f;
	uint32_t np = f->nports_total;
	s->np = np;
	while ((1u << s->psh) < np)
		s->psh++;
	s->pmask = (1u << s->psh) - 1;
	size_t nb = (size_t)s->V << s->psh;
	s->pt = aligned_alloc(64, (np ? np : 1) * sizeof(*s->pt));
	if (s->pt)
		memset(s->pt, 0, (np ? np : 1) * sizeof(*s->pt));
	s->node_of = malloc((size_t)np * sizeof(*s->node_of));
	s->credits = calloc(nb, sizeof(*s->credits));
	s->fifo = aligned_alloc(64, (nb * sizeof(*s->fifo) + 63) / 64 * 64);
	s->link_bytes = calloc(np, sizeof(*s->link_bytes));
	s->host = calloc(np ? np : 1, sizeof(*s->host));
	if (!s->pt || !s->node_of || !s->credits || !s->fifo || !s->link_bytes || !s->host)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t v = 0; v < s->V; v++)
		for (uint32_t g = 0; g < np; g++)
			s->fifo[BI(s, g, v)] = (struct fifo){ PK_NONE, PK_NONE, -1, -1 };
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct ibf_node *nd = &f->nodes[n];
		for (uint32_t p = 0; p <= nd->nports; p++)
			s->node_of[nd->port_off + p] = n;
	}
	s->pcx = malloc((np ? np : 1) * sizeof(*s->pcx));
	if (!s->pcx)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t g = 0; g < np; g++) {
		s->pt[g].pct = UINT64_MAX;
		s->pcx[g].head = s->pcx[g].tail = PK_NONE;
	}
	s->pc_free = PK_NONE;
	s->fullb = s->bytes;
	return 0;
}

/* Every port: its node, and for a cabled switch port or host port its
 * peer, rate (net's capacities), kind, propagation and serialisation time
 * and initial credits.  Returns the slowest serialisation time. */
static uint64_t setup_links(struct psim *s, const struct ibf_sim_net *net)
{
	const struct ibf_fabric *f = s->f;
	const struct ibf_psim_opts *o = s->o;
	uint32_t V = s->V;
	uint64_t slowest = 0;
	for (uint32_t g = 0; g < s->np; g++) {
		s->pt[g].peer = -1;
		s->pt[g].cur_fid = -1;
		s->pt[g].req_head = -1;
		s->pt[g].host_of = -1;
		uint32_t n = s->node_of[g];
		const struct ibf_node *nd = &f->nodes[n];
		uint32_t p = g - nd->port_off;
		s->pt[g].base = nd->port_off;
		s->pt[g].P = (uint8_t)(nd->nports + 1u);
		s->pt[g].sw = nd->type == IBF_NODE_SWITCH ? nd->sw : -1;
		const struct ibf_port *pt = &f->ports[g];
		if (p == 0 || pt->peer_node < 0)
			continue;
		const struct ibf_node *pn = &f->nodes[pt->peer_node];
		int me_sw = nd->type == IBF_NODE_SWITCH, peer_sw = pn->type == IBF_NODE_SWITCH;
		if (!me_sw && !peer_sw)
			continue; /* CA to CA: not part of the fabric */
		uint32_t pg = pn->port_off + pt->peer_port;
		s->pt[g].peer = (int32_t)pg;
		s->pt[g].rate = (uint32_t)(net->cap[g] * 10.0 + 0.5);
		if (!s->pt[g].rate)
			s->pt[g].rate = 1;
		s->pt[g].kind = me_sw && peer_sw ? 1 : me_sw ? 2 : 3;
		double m = s->pt[g].kind == 1 ? o->switch_cable_m : o->host_cable_m;
		s->pt[g].prop = (uint64_t)(m * o->ns_per_m * 1000.0 + 0.5);
		uint64_t ser = ser_ps(s->bytes, s->pt[g].rate);
		s->pt[g].ser = (uint32_t)ser;
		if (ser > UINT32_MAX)
			s->fullb = 0; /* transmit computes every packet's time */
		if (ser > slowest)
			slowest = ser;
		if (s->pt[g].kind != 2)
			for (uint32_t v = 0; v < V; v++)
				s->credits[BI(s, g, v)] = (int32_t)o->buf_bytes;
	}
	return slowest;
}

/* The hosts in the flow simulator's order: port, LIDs, rate, SL row. */
static int setup_hosts(struct psim *s, const struct ibf_sim_net *net, struct ibf_error *err)
{
	const struct ibf_fabric *f = s->f;
	s->res->in_switch = net->in_switch;
	for (uint32_t h = 0; h < net->nhosts; h++) {
		uint32_t g = net->up[h];
		const struct ibf_node *nd = &f->nodes[s->node_of[g]];
		const struct ibf_port *pt = &f->ports[g];
		uint32_t p = g - nd->port_off;
		struct host *H = &s->host[s->nh];
		H->g = g;
		H->lid = pt->lid;
		H->nlids = 1u << (pt->lmc & 7);
		H->rate = s->pt[g].rate;
		H->qhead = H->qtail = PK_NONE;
		H->row = -1;
		if (s->sl) {
			if (s->sl->per_port)
				H->row = s->sl->port_row[g];
			else
				H->row = f->nodes[pt->peer_node].sw;
			if (H->row >= 0 && (uint32_t)H->row >= s->sl->nrows)
				H->row = -1;
		}
		if (!pt->lid)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0, "end port %s/%u has no LID",
					     nd->desc ? nd->desc : "?", p);
		s->pt[g].host_of = (int32_t)s->nh;
		s->nh++;
	}
	return 0;
}

/* Generation gaps from the load, the measurement windows, the stall limit
 * for deadlock detection (never under 8 packet times of the slowest
 * link). */
static void setup_times(struct psim *s, uint64_t slowest)
{
	const struct ibf_psim_opts *o = s->o;
	double hg = 0;
	for (uint32_t h = 0; h < s->nh; h++) {
		struct host *H = &s->host[h];
		/* the capacity of the hosts that send: a pattern leaves some
		 * silent, but message streams and the node model do not use it
		 * (with streams it cut the capacity to the pattern's senders
		 * while every host sent: accepted 82 on a 3-host switch) */
		if (!o->traffic_off || o->accels || o->stream || h >= o->traffic_nhosts ||
		    o->traffic_off[h + 1] > o->traffic_off[h])
			hg += H->rate / 10.0;
		/* the port's ser, which need not fit its 32 bits (0 without a cable) */
		uint64_t ser = H->rate ? ser_ps(s->bytes, H->rate) : 0;
		H->gap_ps = (uint64_t)((double)ser / o->load + 0.5);
	}
	s->res->nhosts = s->nh;
	s->res->host_gbps = hg;
	s->w0 = (uint64_t)(o->warmup_ns * 1000.0);
	s->w1 = s->w0 + (uint64_t)(o->measure_ns * 1000.0);
	double drain = o->drain_ns < 0 ? o->measure_ns : o->drain_ns;
	s->hard_end = s->w1 + (uint64_t)(drain * 1000.0);
	s->free_pk = PK_NONE;
	s->rng = o->seed ^ 0x5053494d5041434bull; /* "PSIMPACK" */
	/* a healthy fabric moves something within a few packet times */
	s->stall_ps = (uint64_t)(o->stall_ns * 1000.0);
	/* ... and credits take a cable's propagation back, the next packet
	 * as long forth: long cables hold a healthy fabric still for that */
	uint64_t prop = 0;
	for (uint32_t g = 0; g < s->np; g++)
		prop = s->pt[g].prop > prop ? s->pt[g].prop : prop;
	if (s->stall_ps < 8 * slowest + 2 * prop)
		s->stall_ps = 8 * slowest + 2 * prop;
}

/* The calendar sized by the rate of the events it holds (the others go to
 * lanes): about 1.5 per fabric packet (its generation, some credit
 * returns), 2 per accelerator message; iSLIP's scratch when asked for. */
static int setup_calendar(struct psim *s, struct ibf_error *err)
{
	const struct ibf_psim_opts *o = s->o;
	/* without streams the generations are no calendar events (gen_next) */
	double per_ps = 0, per_pkt = o->stream ? 1.5 : 0.5;
	for (uint32_t h = 0; h < s->nh && !s->K; h++)
		per_ps += per_pkt / (double)(s->host[h].gap_ps ? s->host[h].gap_ps : 1);
	if (s->K)
		per_ps = (double)s->nh * s->K * 2.0 * o->load * o->acc_gbps /
			 ((double)o->msg_bytes * 8000.0);
	if (q_init(s, per_ps))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (o->islip_iters) {
		s->isl_apt = calloc(s->np ? s->np : 1, sizeof(*s->isl_apt));
		s->isl_grant = malloc(256 * sizeof(*s->isl_grant));
		s->isl_gl = malloc(256);
		s->isl_acc = malloc(256);
		s->isl_akey = malloc(256 * sizeof(*s->isl_akey));
		s->isl_rq = calloc(((size_t)s->f->nsw + 1) * 4, sizeof(*s->isl_rq));
		if (!s->isl_apt || !s->isl_grant || !s->isl_gl || !s->isl_acc || !s->isl_akey ||
		    !s->isl_rq)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	return 0;
}

/* A fixed traffic pattern must name the fabric's hosts, never a host
 * itself. */
static int check_traffic(const struct psim *s, struct ibf_error *err)
{
	const struct ibf_psim_opts *o = s->o;
	const uint32_t *toff = o->traffic_off;
	if (!toff || s->K || o->stream)
		return 0; /* not used */
	if (o->traffic_nhosts != s->nh)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "traffic pattern for %u hosts, the fabric has %u",
				     o->traffic_nhosts, s->nh);
	for (uint32_t h = 0; h < s->nh; h++)
		for (uint32_t k = toff[h]; k < toff[h + 1]; k++)
			if (o->traffic_dst[k] >= s->nh || o->traffic_dst[k] == h)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "traffic pattern: host %u sends to %u", h,
						     o->traffic_dst[k]);
	return 0;
}

static int gen_setup(struct psim *s);

static int setup(struct psim *s, struct ibf_error *err)
{
	const struct ibf_fabric *f = s->f;
	const struct ibf_psim_opts *o = s->o;
	int rc = setup_alloc(s, err);
	if (rc)
		return rc;
	/* the flow simulator's view of the network: end ports in the common
	 * host order, link rates (unknown ones: the fabric's most common rate) */
	struct ibf_sim_net net;
	rc = ibf_sim_net_init(&net, f, s->r, IBF_CONG_ORDER_AUTO, err);
	if (rc)
		return rc;
	s->res->assumed_links = net.assumed;
	uint64_t slowest = setup_links(s, &net);
	rc = setup_hosts(s, &net, err);
	ibf_sim_net_free(&net);
	if (rc)
		return rc;
	if (s->nh < 2)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "the fabric has %u end port(s) cabled to a switch; need >= 2",
				     s->nh);
	if (s->s2v && s->s2v->nsw != f->nsw)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "SL2VL tables do not match the fabric");
	if (s->r->nsw != f->nsw)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "tables do not match the fabric");
	setup_times(s, slowest);
	if (rt_build(s))
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if ((rc = setup_calendar(s, err)))
		return rc;
	if (s->K && (rc = node_setup(s, err)))
		return rc;
	if ((rc = check_traffic(s, err)))
		return rc;
	if (o->stream && (rc = stream_setup(s, err)))
		return rc;
	if (!s->K && !s->st)
		rc = gen_setup(s);
	if (!rc)
		rc = push(s, s->stall_ps / 2 + 1, EV_CHECK, 0, 0);
	if (rc)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	return 0;
}

/* Open-loop generation: the hosts that send (a pattern may leave some
 * without destinations), the merged chain's mean gap (the inverse of the
 * summed rates), an alias table when the rates differ (Vose's method), and
 * the chain's first event. */
static int gen_setup(struct psim *s)
{
	const uint32_t *toff = s->o->traffic_off;
	s->gen_host = malloc((s->nh ? s->nh : 1) * sizeof(*s->gen_host));
	if (!s->gen_host)
		return IBF_ENOMEM;
	double sum = 0;
	int equal = 1;
	for (uint32_t h = 0; h < s->nh; h++) {
		if ((toff && toff[h + 1] <= toff[h]) || !s->host[h].gap_ps)
			continue;
		if (s->ngen && s->host[h].gap_ps != s->host[s->gen_host[0]].gap_ps)
			equal = 0;
		s->gen_host[s->ngen++] = h;
		sum += 1.0 / (double)s->host[h].gap_ps;
	}
	if (!s->ngen)
		return 0;
	s->gen_mean = 1.0 / sum;
	if (!equal) {
		uint32_t n = s->ngen, ns = 0, nl = 0;
		double *q = malloc(n * sizeof(*q));
		uint32_t *small = malloc(n * sizeof(*small)), *large = malloc(n * sizeof(*large));
		s->gen_keep = malloc(n * sizeof(*s->gen_keep));
		s->gen_alias = malloc(n * sizeof(*s->gen_alias));
		if (!q || !small || !large || !s->gen_keep || !s->gen_alias) {
			free(q);
			free(small);
			free(large);
			return IBF_ENOMEM;
		}
		for (uint32_t i = 0; i < n; i++) {
			q[i] = (double)n / ((double)s->host[s->gen_host[i]].gap_ps * sum);
			s->gen_alias[i] = i;
			if (q[i] < 1.0)
				small[ns++] = i;
			else
				large[nl++] = i;
		}
		while (ns && nl) {
			uint32_t a = small[--ns], b = large[nl - 1];
			s->gen_keep[a] = q[a];
			s->gen_alias[a] = b;
			q[b] -= 1.0 - q[a];
			if (q[b] < 1.0) {
				nl--;
				small[ns++] = b;
			}
		}
		while (nl)
			s->gen_keep[large[--nl]] = 1.0;
		while (ns) /* rounding */
			s->gen_keep[small[--ns]] = 1.0;
		free(q);
		free(small);
		free(large);
	}
	s->gen_on = 1;
	return gen_next(s);
}

static void finish(struct psim *s)
{
	struct ibf_psim_result *res = s->res;
	const struct ibf_psim_opts *o = s->o;
	/* a run that stopped early (a deadlock, or message streams all
	 * done) measured only until then */
	uint64_t wend = s->now < s->w1 && s->stop ? s->now : s->w1;
	double win_s = wend > s->w0 ? (double)(wend - s->w0) * 1e-12 : o->measure_ns * 1e-9;
	double cap_bytes = res->host_gbps * 1e9 / 8.0 * win_s;
	res->sim_ns = (double)s->now / 1000.0;
	res->offered_frac = cap_bytes > 0 ? (double)s->win_gen_bytes / cap_bytes : 0;
	res->accepted_frac = cap_bytes > 0 ? (double)s->win_acc_bytes / cap_bytes : 0;
	res->accepted_gbps = (double)s->win_acc_payload * 8.0 / win_s / 1e9;
	if (s->nlat) {
		lat_stats(s->lat, s->nlat, &res->lat_mean, &res->lat_p50, &res->lat_p99,
			  &res->lat_max);
		res->hops_mean = s->hop_sum / (double)s->nlat;
	}
	double swcap = 0, maxu = 0;
	for (uint32_t g = 0; g < s->np; g++) {
		if (s->pt[g].kind != 1)
			continue;
		double c = s->pt[g].rate / 10.0 * 1e9 / 8.0 * win_s;
		swcap += c;
		if (c > 0 && (double)s->link_bytes[g] / c > maxu)
			maxu = (double)s->link_bytes[g] / c;
	}
	for (uint32_t v = 0; v < s->V; v++)
		res->vl_util[v] = swcap > 0 ? (double)s->vl_bytes[v] / swcap : 0;
	res->link_util_max = maxu;
	res->link_util = calloc(s->np ? s->np : 1, sizeof(*res->link_util));
	res->link_gbps = calloc(s->np ? s->np : 1, sizeof(*res->link_gbps));
	if (res->link_util && res->link_gbps) {
		res->nlinks = s->np;
		for (uint32_t g = 0; g < s->np; g++)
			if (s->pt[g].rate && s->pt[g].peer >= 0) {
				res->link_gbps[g] = (float)(s->pt[g].rate / 10.0);
				res->link_util[g] =
					(float)((double)s->link_bytes[g] /
						(s->pt[g].rate / 10.0 * 1e9 / 8.0 * win_s));
			}
	}
	if (s->K)
		node_finish(s, win_s);
}

int ibf_psim_run(const struct ibf_fabric *f, const struct ibf_routes *r,
		 const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v,
		 const struct ibf_psim_opts *o, struct ibf_psim_result *res, struct ibf_error *err)
{
	memset(res, 0, sizeof(*res));
	int rc = ibf_psim_opts_check(o, err);
	if (rc)
		return rc;
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct psim s;
	memset(&s, 0, sizeof(s));
	s.gen_k = UINT64_MAX;
	s.f = f;
	/* a path without a loop enters each switch once: a host link, at most
	 * nsw - 1 switch links, a host link.  It was 64 links for any fabric,
	 * so on a ring of 160 switches (80 hops, which route check and sim
	 * flow deliver) a packet past 64 was dropped as unroutable. */
	s.max_hops = f->nsw + 2 > 64 ? (f->nsw + 2 < UINT16_MAX ? f->nsw + 2 : UINT16_MAX) : 64;
	s.r = r;
	s.sl = sl;
	s.s2v = s2v;
	s.o = o;
	s.res = res;
	s.V = (uint32_t)o->vls;
	while ((1u << s.vsh) < s.V)
		s.vsh++;
	for (uint32_t k = 0; k < 16; k++)
		s.vl0[k] = (uint8_t)(k % s.V);
	s.router_ps = (uint64_t)(o->router_ns * 1000.0);
	s.bytes = o->mtu_payload + o->hdr_bytes;
	s.K = (uint32_t)o->accels;
	s.islip = o->islip_iters != 0;
	s.age = o->arb == IBF_PSIM_ARB_AGE;
	rc = setup(&s, err);
	uint64_t nevents = 0;
	while (!rc && !s.stop) {
		struct ev e;
		int ty = pop(&s, &e);
		if (ty < 0) {
			rc = ty;
			ibf_error_set(err, rc, NULL, 0, "out of memory");
			break;
		}
		if (ty == EV_NONE)
			break;
		uint64_t et = e.k >> EV_BITS;
		if (et >= s.w1 && ((s.outstanding == 0 && et >= s.tail_meas) || et >= s.hard_end)) {
			/* the run ends at the last event before this one, which
			 * may have been a credit return kept pending or a
			 * delivery counted in when its last link started */
			uint64_t tend = s.outstanding == 0 ? s.w1 : s.hard_end;
			if (tend < s.tail_meas)
				tend = s.tail_meas;
			uint64_t tl = s.outstanding == 0 ? s.tail_meas : 0;
			if (s.tail_any < et && s.tail_any > tl)
				tl = s.tail_any;
			if (tl > s.now)
				s.now = tl;
			for (uint32_t g = 0; g < s.np; g++) {
				if (s.pt[g].pct < tend && s.pt[g].pct > s.now)
					s.now = s.pt[g].pct;
				if (s.pt[g].pcmore)
					for (int32_t c = s.pcx[g].head; c != PK_NONE; c = s.pc[c].next)
						if (s.pc[c].t < tend && s.pc[c].t > s.now)
							s.now = s.pc[c].t;
			}
			break;
		}
		s.now = et;
		nevents++;
		/* the two common types first, as tests the compiler can match
		 * with pop's (a constant type on its paths) */
		if (ty == EV_TXDONE) {
			rc = ev_txdone(&s, e.a);
		} else if (ty == EV_ARRIVE) {
			rc = ev_arrive(&s, (int32_t)e.a, e.b);
		} else {
			switch (ty) {
			case EV_GEN:
				rc = ev_gen(&s, e.a);
				break;
			case EV_CREDIT: /* port e.a waits for credits */
				s.pt[e.a].cwake = 0;
				if (!s.pt[e.a].out_busy)
					rc = arb_port(&s, e.a);
				break;
			case EV_DELIVER:
				rc = deliver(&s, (int32_t)e.a, s.now, e.b);
				break;
			case EV_AGEN:
				rc = ev_agen(&s, e.a);
				break;
			case EV_NREADY:
				rc = ev_nready(&s, (int32_t)e.a, e.b);
				break;
			case EV_NDONE:
				rc = ev_ndone(&s, e.a);
				break;
			case EV_AGG:
				if (s.agg[e.a].gen == e.b && s.agg[e.a].n)
					rc = nic_seal(&s, e.a / s.nh, e.a % s.nh);
				break;
			case EV_HCA:
				rc = ev_hca(&s, (int32_t)e.a, e.b);
				break;
			case EV_STEP: /* computing after a step is over */
				if (e.a == UINT32_MAX) {
					rc = stream_next(&s);
				} else {
					s.st->rh[e.a].cstate = 2;
					rc = rank_try(&s, e.a);
				}
				break;
			default:
				rc = ev_check(&s);
				break;
			}
		}
		if (rc && s.ip_over)
			rc = ibf_error_set(
				err, IBF_ENOMEM, NULL, 0,
				"node model: %u intra-node packets queued at once (%.1f MiB), no "
				"room for more in half the %.1f MiB of memory there is (%s%s%s): "
				"the accelerators offer more than their links carry with %u-byte "
				"intra-node packets (%u B payload + %u B header) at load %.3g; "
				"lower --load, raise --ipkt-payload or shorten the run",
				s.nip, (double)s.capip * sizeof(struct ipkt) / 1048576.0,
				(double)s.ip_ml.bytes / 1048576.0,
				ibf_mem_limit_source_name(s.ip_ml.source),
				s.ip_ml.where[0] ? " in " : "", s.ip_ml.where,
				o->ipkt_payload + o->ipkt_hdr, o->ipkt_payload, o->ipkt_hdr,
				o->load);
		else if (rc && (!err || !err->code))
			rc = ibf_error_set(err, rc, NULL, 0, "out of memory");
	}
	/* a cycle that locked after the watchdog's last check (it looks every
	 * half stall time, so up to 25 us by default before the end): one
	 * more look at the end, else the run ended with "deadlock: none" and
	 * the cycle's packets stuck for good */
	if (!rc && !res->deadlock && s.in_switches > 0) {
		int found;
		rc = find_cycle(&s, 1, &found);
		if (rc)
			ibf_error_set(err, rc, NULL, 0, "out of memory");
		else if (found) {
			res->deadlock = res->deadlock_partial = res->deadlock_end = 1;
			res->deadlock_ns = (double)s.now / 1000.0;
			res->deadlock_pkts = s.in_switches;
		}
	}
	res->events = nevents;
	res->pkt_hops = s.pkt_hops;
	if (!rc)
		finish(&s);
	if (!rc && s.st && (rc = stream_finish(&s)))
		ibf_error_set(err, rc, NULL, 0, "out of memory");
	stream_free(&s);
	psim_free(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (rc)
		ibf_psim_result_free(res);
	return rc;
}
