/* Path tracing through the LFTs and the all-pairs route check.
 *
 * ibf_trace() follows one (switch, DLID) walk and records it.
 * ibf_route_check() settles every (switch, DLID) pair with the per-DLID
 * functional-graph pass of walk.h (one O(nsw) pass per DLID, in blocks of
 * DLIDs, threads over blocks), then weights each (switch, DLID) result by
 * the number of source end ports at that switch.  Counts are sums and the
 * examples are the smallest (source switch, DLID) keys, switches in
 * canonical order (by GUID, not by their place in the input), so the report
 * depends neither on the number of threads nor on the order of the fabric
 * file's records. */
#include "walk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ walk engine */

int ibf_walk_init(struct ibf_walk *w, const struct ibf_fabric *f, const struct ibf_lidmap *m,
		  const struct ibf_routes *r, uint32_t block)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->m = m;
	w->r = r;
	w->nsw = f->nsw;
	w->block = block ? block : 1;
	size_t n = (size_t)w->nsw * w->block + 1;
	w->col = malloc(n);
	w->res = malloc(n);
	w->hops = malloc(n * sizeof(*w->hops));
	w->next = malloc(n * sizeof(*w->next));
	w->order = malloc(n * sizeof(*w->order));
	w->state = malloc((size_t)w->nsw + 1);
	w->stack = malloc(((size_t)w->nsw + 1) * sizeof(*w->stack));
	if (!w->col || !w->res || !w->hops || !w->next || !w->order || !w->state || !w->stack) {
		ibf_walk_free(w);
		return IBF_ENOMEM;
	}
	return 0;
}

void ibf_walk_free(struct ibf_walk *w)
{
	free(w->col);
	free(w->res);
	free(w->hops);
	free(w->next);
	free(w->order);
	free(w->state);
	free(w->stack);
	memset(w, 0, sizeof(*w));
}

enum { ST_NEW = 0, ST_OPEN = 1, ST_DONE = 2 };

static void walk_column(struct ibf_walk *w, uint32_t dlid, uint32_t k)
{
	const uint32_t nsw = w->nsw;
	const uint8_t *col = w->col + (size_t)k * nsw;
	uint8_t *res = w->res + (size_t)k * nsw;
	uint16_t *hops = w->hops + (size_t)k * nsw;
	uint32_t *next = w->next + (size_t)k * nsw;
	uint32_t *order = w->order + (size_t)k * nsw;
	uint8_t *state = w->state;
	uint32_t *stack = w->stack;
	uint32_t nord = 0;

	memset(state, ST_NEW, nsw);
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		if (state[s0] == ST_DONE)
			continue;
		uint32_t sp = 0, cur = s0;
		int fres;
		unsigned fh;
		for (;;) {
			if (state[cur] == ST_DONE) {
				fres = res[cur];
				fh = hops[cur];
				break;
			}
			if (state[cur] == ST_OPEN) {
				fres = IBF_TRACE_LOOP;
				fh = 0;
				break;
			}
			uint32_t nx = IBF_WALK_NONE;
			int rr = ibf_walk_step(w->f, w->m, cur, dlid, col[cur], &nx);
			if (rr != IBF_WALK_CONT) {
				res[cur] = (uint8_t)rr;
				hops[cur] = 0;
				next[cur] = IBF_WALK_NONE;
				state[cur] = ST_DONE;
				order[nord++] = cur;
				fres = rr;
				fh = 0;
				break;
			}
			state[cur] = ST_OPEN;
			stack[sp++] = cur;
			next[cur] = nx;
			cur = nx;
		}
		while (sp) {
			uint32_t s = stack[--sp];
			if (fres == IBF_TRACE_LOOP)
				fh = 0;
			else if (fh < UINT16_MAX)
				fh++;
			res[s] = (uint8_t)fres;
			hops[s] = (uint16_t)fh;
			state[s] = ST_DONE;
			order[nord++] = s;
		}
	}
}

void ibf_walk_block(struct ibf_walk *w, uint32_t d0, uint32_t n)
{
	const struct ibf_routes *r = w->r;
	const uint32_t nsw = w->nsw;
	/* transpose: rows of n bytes from each switch's LFT into columns */
	uint32_t have = 0;
	if (d0 <= r->max_lid)
		have = r->max_lid - d0 + 1 < n ? r->max_lid - d0 + 1 : n;
	for (uint32_t s = 0; s < nsw; s++) {
		const uint8_t *row = ibf_lft(r, s) + d0;
		uint32_t k = 0;
		for (; k < have; k++)
			w->col[(size_t)k * nsw + s] = row[k];
		for (; k < n; k++)
			w->col[(size_t)k * nsw + s] = IBF_LFT_NONE;
	}
	for (uint32_t k = 0; k < n; k++)
		walk_column(w, d0 + k, k);
}

static int walk_threads; /* 0 = by the amount of work */

void ibf_set_walk_threads(int n)
{
	__atomic_store_n(&walk_threads, n < 0 ? 0 : n > 64 ? 64 : n, __ATOMIC_RELAXED);
}

int ibf_walk_threads(uint64_t work)
{
	int t = __atomic_load_n(&walk_threads, __ATOMIC_RELAXED);
	if (t > 0)
		return t;
	if (work < (1u << 21))
		return 1;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > 16)
		n = 16;
	return (int)n;
}

/* ------------------------------------------------------------ one trace */

int ibf_trace(const struct ibf_fabric *f, const struct ibf_lidmap *m, const struct ibf_routes *r,
	      uint32_t sw, uint32_t dlid, uint32_t *path, int *nsw)
{
	uint32_t local[IBF_TRACE_MAX];
	uint32_t *p = path ? path : local;
	uint32_t count = 0, cur = sw;
	int rc;

	if (sw >= f->nsw || sw >= r->nsw) {
		rc = IBF_TRACE_UNREACHABLE;
		goto out;
	}
	for (;;) {
		if (count < IBF_TRACE_MAX)
			p[count] = cur;
		count++;
		unsigned port = dlid <= r->max_lid ? ibf_lft(r, cur)[dlid] : IBF_LFT_NONE;
		uint32_t nx = IBF_WALK_NONE;
		rc = ibf_walk_step(f, m, cur, dlid, port, &nx);
		if (rc != IBF_WALK_CONT)
			break;
		/* a walk that has visited more switches than exist revisits one */
		if (count > f->nsw) {
			rc = IBF_TRACE_LOOP;
			break;
		}
		uint32_t stored = count < IBF_TRACE_MAX ? count : IBF_TRACE_MAX;
		int again = 0;
		for (uint32_t i = 0; i < stored; i++)
			if (p[i] == nx) {
				again = 1;
				break;
			}
		if (again) {
			/* the repeated switch ends the recorded path */
			if (count < IBF_TRACE_MAX)
				p[count] = nx;
			count++;
			rc = IBF_TRACE_LOOP;
			break;
		}
		cur = nx;
	}
out:
	if (nsw)
		*nsw = (int)count;
	return rc;
}

/* ------------------------------------------------------------ one trace, by port */

static void hop_put(struct ibf_trace_hop *hop, int max, int *n, int node, int in, int out)
{
	if (*n < max)
		hop[*n] = (struct ibf_trace_hop){ node, (int16_t)in, (int16_t)out };
	(*n)++;
}

int ibf_trace_port(const struct ibf_fabric *f, const struct ibf_lidmap *m,
		   const struct ibf_routes *r, int node, int port, uint32_t dlid,
		   struct ibf_trace_hop *hop, int max, int *nhop)
{
	int n = 0, rc = IBF_TRACE_UNREACHABLE;
	uint8_t *seen = NULL;
	uint32_t cur;
	int in;
	if (node < 0 || (uint32_t)node >= f->nnodes || port < 0 || port > f->nodes[node].nports)
		goto out;
	if (f->nodes[node].type == IBF_NODE_SWITCH) {
		cur = (uint32_t)f->nodes[node].sw;
		in = -1;
	} else {
		/* the source end port and its cable to a switch */
		const struct ibf_port *pp = ibf_port(f, node, port);
		hop_put(hop, max, &n, node, -1, port);
		if (pp->peer_node == IBF_NO_NODE)
			goto out;
		if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH) {
			/* cabled back to back: delivered when the peer owns dlid */
			hop_put(hop, max, &n, pp->peer_node, pp->peer_port, -1);
			int owner = dlid <= m->max_lid ? m->node[dlid] : -1;
			rc = owner == pp->peer_node && m->port[dlid] == pp->peer_port
				     ? IBF_TRACE_OK
				     : IBF_TRACE_WRONG;
			goto out;
		}
		cur = (uint32_t)f->nodes[pp->peer_node].sw;
		in = pp->peer_port;
	}
	if (cur >= r->nsw)
		goto out;
	seen = calloc((size_t)f->nsw + 1, 1);
	if (!seen) {
		rc = IBF_ENOMEM;
		goto out;
	}
	for (;;) {
		int sn = f->switches[cur];
		if (seen[cur]) {
			hop_put(hop, max, &n, sn, in, -1);
			rc = IBF_TRACE_LOOP;
			break;
		}
		seen[cur] = 1;
		unsigned p = dlid <= r->max_lid ? ibf_lft(r, cur)[dlid] : IBF_LFT_NONE;
		hop_put(hop, max, &n, sn, in, (int)p);
		uint32_t nx = 0;
		rc = ibf_walk_step(f, m, cur, dlid, p, &nx);
		if (rc != IBF_WALK_CONT) {
			if (p != 0 && p != IBF_LFT_NONE && p <= f->nodes[sn].nports &&
			    ibf_port(f, sn, (int)p)->peer_node != IBF_NO_NODE) {
				/* the end port it reaches, right or wrong */
				const struct ibf_port *pp = ibf_port(f, sn, (int)p);
				hop_put(hop, max, &n, pp->peer_node, pp->peer_port, -1);
			}
			break;
		}
		in = ibf_port(f, sn, (int)p)->peer_port;
		cur = nx;
	}
out:
	free(seen);
	if (nhop)
		*nhop = n;
	return rc;
}

/* ------------------------------------------------------------ route check */

struct ck_example {
	uint32_t s, dlid;
	uint32_t rank; /* s's canonical rank: the examples' order */
	uint8_t kind; /* enum ibf_trace_result, or KIND_LONG */
	uint16_t hops;
};
#define KIND_LONG 4
#define NEX 8

struct ck_shared {
	const struct ibf_fabric *f;
	const struct ibf_lidmap *m;
	const struct ibf_routes *r;
	int max_hops;
	const uint32_t *w;     /* [nsw] source end ports at each switch */
	const uint32_t *ownsw; /* [lid] switch of the source port owning the LID */
	const uint32_t *comp;  /* [nsw] switch component (ibf_components) */
	const uint32_t *rank;  /* [nsw] canonical rank (ibf_switch_ranks) */
	uint32_t nblocks, block;
	int nthreads;
};

struct ck_thread {
	struct ck_shared *sh;
	int idx, rc;
	pthread_t tid;
	struct ibf_check_report rep;
	struct ck_example ex[NEX];
	int nex;
};

static int ex_less(const struct ck_example *a, const struct ck_example *b)
{
	return a->rank != b->rank ? a->rank < b->rank : a->dlid < b->dlid;
}

static void ex_add(struct ck_example *ex, int *nex, const struct ck_example *e)
{
	int n = *nex;
	if (n == NEX && !ex_less(e, &ex[NEX - 1]))
		return;
	int i = n < NEX ? n : NEX - 1;
	while (i > 0 && ex_less(e, &ex[i - 1])) {
		ex[i] = ex[i - 1];
		i--;
	}
	ex[i] = *e;
	if (n < NEX)
		*nex = n + 1;
}

static void *ck_worker(void *arg)
{
	struct ck_thread *t = arg;
	struct ck_shared *sh = t->sh;
	const struct ibf_fabric *f = sh->f;
	const struct ibf_lidmap *m = sh->m;
	struct ibf_walk w;
	if (ibf_walk_init(&w, f, m, sh->r, sh->block)) {
		t->rc = IBF_ENOMEM;
		return NULL;
	}
	const uint32_t nsw = f->nsw;
	struct ibf_check_report *rep = &t->rep;
	for (uint32_t b = (uint32_t)t->idx; b < sh->nblocks; b += (uint32_t)sh->nthreads) {
		uint32_t d0 = b * sh->block;
		uint32_t n = sh->block;
		if (d0 + n - 1 > m->max_lid)
			n = m->max_lid - d0 + 1;
		ibf_walk_block(&w, d0, n);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t d = d0 + k;
			if (m->node[d] < 0)
				continue; /* not an assigned LID */
			const uint8_t *res = w.res + (size_t)k * nsw;
			const uint16_t *hops = w.hops + (size_t)k * nsw;
			for (uint32_t s = 0; s < nsw; s++) {
				uint64_t cnt = sh->w[s] - (sh->ownsw[d] == s ? 1u : 0u);
				if (!cnt)
					continue;
				rep->pairs += cnt;
				int kind = res[s];
				switch (kind) {
				case IBF_TRACE_OK:
					if (hops[s] > rep->max_hops_seen)
						rep->max_hops_seen = hops[s];
					if (sh->max_hops > 0 && hops[s] > (unsigned)sh->max_hops) {
						rep->too_long += cnt;
						kind = KIND_LONG;
					} else {
						rep->ok += cnt;
					}
					break;
				case IBF_TRACE_UNREACHABLE:
					/* no table can route between switch components,
					 * nor to a port cabled to no switch (hosts
					 * cabled back to back beside the fabric) */
					if (sh->ownsw[d] == IBF_WALK_NONE ||
					    sh->comp[s] != sh->comp[sh->ownsw[d]]) {
						rep->across += cnt;
						kind = IBF_TRACE_OK;
					} else {
						rep->unreachable += cnt;
					}
					break;
				case IBF_TRACE_LOOP:
					rep->loops += cnt;
					break;
				default:
					rep->wrong += cnt;
					break;
				}
				if (kind != IBF_TRACE_OK) {
					struct ck_example e = { s, d, sh->rank[s], (uint8_t)kind,
								hops[s] };
					ex_add(t->ex, &t->nex, &e);
				}
			}
		}
	}
	ibf_walk_free(&w);
	return NULL;
}

static const char *ndesc(const struct ibf_fabric *f, int node)
{
	const char *d = f->nodes[node].desc;
	return d ? d : "";
}

/* A node description of at most 40 bytes for an example line.  A longer one
 * keeps its start and its end around "...": the part that tells nodes apart
 * is often last (the ASICs of a chassis are all "QLogic 12800-180
 * GUID=0x00066a00e8001310 L101", ".. L112", ...), so cutting the end made
 * every switch of a real chassis read the same. */
struct sdesc {
	char s[68];
};
static struct sdesc sdesc(const struct ibf_fabric *f, int node)
{
	struct sdesc o;
	const char *d = ndesc(f, node);
	size_t n = strlen(d);
	/* a description other nodes share (switches at their factory name)
	 * tells nothing apart: its GUID follows */
	if (ibf_node_desc_shared(f, node)) {
		char l[160];
		ibf_node_label(f, node, l, sizeof(l));
		size_t ll = strlen(l);
		if (ll < sizeof(o.s)) {
			memcpy(o.s, l, ll + 1);
			return o;
		}
		/* " (0x" + 16 + ")" = 21 bytes after a cut description */
		size_t a = sizeof(o.s) - 1 - 21 - 3;
		while (a > 0 && ((unsigned char)l[a] & 0xc0) == 0x80)
			a--;
		memcpy(o.s, l, a);
		memcpy(o.s + a, "...", 3);
		memcpy(o.s + a + 3, l + ll - 21, 22);
		return o;
	}
	if (n <= 40) {
		memcpy(o.s, d, n + 1);
		return o;
	}
	/* 16 + 3 + 21 bytes; never split a UTF-8 sequence */
	size_t a = 16, b = n - 21;
	while (a > 0 && ((unsigned char)d[a] & 0xc0) == 0x80)
		a--;
	while (b < n && ((unsigned char)d[b] & 0xc0) == 0x80)
		b++;
	memcpy(o.s, d, a);
	memcpy(o.s + a, "...", 3);
	memcpy(o.s + a + 3, d + b, n - b + 1);
	return o;
}

/* The first source end port at switch index s (the node first in canonical
 * order, then the lowest port) that does not own dlid. */
static void ex_source(const struct ibf_fabric *f, const struct ibf_lidmap *m, uint32_t s,
		      uint32_t dlid, int *node, int *port)
{
	int sn = f->switches[s];
	const struct ibf_node *n = &f->nodes[sn];
	int bn = -1, bp = 0;
	for (int p = 1; p <= n->nports; p++) {
		const struct ibf_port *pp = &f->ports[n->port_off + (uint32_t)p];
		if (pp->peer_node == IBF_NO_NODE || f->nodes[pp->peer_node].type == IBF_NODE_SWITCH)
			continue;
		if (m->node[dlid] == pp->peer_node && m->port[dlid] == pp->peer_port)
			continue;
		int c = bn < 0 ? -1 : ibf_node_cmp(f, pp->peer_node, bn);
		if (c < 0 || (c == 0 && pp->peer_port < bp)) {
			bn = pp->peer_node;
			bp = pp->peer_port;
		}
	}
	if (bn < 0) {
		bn = sn;
		bp = 0;
	}
	*node = bn;
	*port = bp;
}

static void ex_render(const struct ibf_fabric *f, const struct ibf_lidmap *m,
		      const struct ibf_routes *r, int max_hops, const struct ck_example *e,
		      char *buf, size_t len)
{
	uint32_t path[IBF_TRACE_MAX];
	int np = 0;
	int rc = ibf_trace(f, m, r, e->s, e->dlid, path, &np);
	uint32_t last = np > 0 ? path[(np < IBF_TRACE_MAX ? np : IBF_TRACE_MAX) - 1] : e->s;
	int lnode = f->switches[last];
	char why[200];
	if (e->kind == KIND_LONG) {
		snprintf(why, sizeof(why), "%u hops, more than %d", (unsigned)e->hops, max_hops);
	} else if (rc == IBF_TRACE_LOOP) {
		snprintf(why, sizeof(why), "loop at '%s'", sdesc(f, lnode).s);
	} else if (rc == IBF_TRACE_WRONG) {
		unsigned p = ibf_lft(r, last)[e->dlid];
		int dn = lnode, dp = 0;
		if (p != 0) {
			const struct ibf_port *pp = ibf_port(f, lnode, (int)p);
			dn = pp->peer_node;
			dp = pp->peer_port;
		}
		snprintf(why, sizeof(why), "delivered to '%s' port %d by '%s'", sdesc(f, dn).s, dp,
			 sdesc(f, lnode).s);
	} else {
		unsigned p = e->dlid <= r->max_lid ? ibf_lft(r, last)[e->dlid] : IBF_LFT_NONE;
		if (p == IBF_LFT_NONE)
			snprintf(why, sizeof(why), "no route at '%s'", sdesc(f, lnode).s);
		else if (p > f->nodes[lnode].nports)
			snprintf(why, sizeof(why), "port %u of '%s' does not exist", p,
				 sdesc(f, lnode).s);
		else
			snprintf(why, sizeof(why), "port %u of '%s' is not connected", p,
				 sdesc(f, lnode).s);
	}
	int sn, sp;
	ex_source(f, m, e->s, e->dlid, &sn, &sp);
	char full[512];
	snprintf(full, sizeof(full), "from '%s' port %d to LID 0x%04x ('%s'): %s", sdesc(f, sn).s,
		 sp, (unsigned)e->dlid, sdesc(f, m->node[e->dlid]).s, why);
	size_t n = strlen(full);
	if (n >= len) /* cut, and say so */
		n = len - 1, memcpy(full + n - 3, "...", 3);
	memcpy(buf, full, n);
	buf[n] = '\0';
}

int ibf_route_check(const struct ibf_fabric *f, const struct ibf_routes *r, int max_hops,
		    struct ibf_check_report *rep, struct ibf_error *err)
{
	memset(rep, 0, sizeof(*rep));
	int rc = ibf_routes_fit(f, r, err);
	if (rc)
		return rc;
	struct ibf_lidmap m;
	rc = ibf_lidmap_build(f, &m, err);
	if (rc)
		return rc;
	uint32_t *w = calloc((size_t)f->nsw + 1, sizeof(*w));
	uint32_t *ownsw = malloc(((size_t)m.max_lid + 1) * sizeof(*ownsw));
	uint32_t *comp = malloc(((size_t)f->nsw + 1) * sizeof(*comp));
	uint32_t *rank = malloc(((size_t)f->nsw + 1) * sizeof(*rank));
	if (!w || !ownsw || !comp || !rank || ibf_switch_ranks(f, rank)) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto done;
	}
	/* source end ports: switch port 0 (when it has a LID) and CA/router
	 * ports cabled to a switch */
	for (uint32_t l = 0; l <= m.max_lid; l++) {
		ownsw[l] = IBF_WALK_NONE;
		int node = m.node[l];
		if (node < 0)
			continue;
		if (f->nodes[node].type == IBF_NODE_SWITCH) {
			if (m.port[l] == 0)
				ownsw[l] = (uint32_t)f->nodes[node].sw;
		} else {
			int sn = ibf_port_switch(f, node, m.port[l], NULL);
			if (sn >= 0)
				ownsw[l] = (uint32_t)f->nodes[sn].sw;
		}
	}
	for (uint32_t s = 0; s < f->nsw; s++) {
		int sn = f->switches[s];
		const struct ibf_node *n = &f->nodes[sn];
		if (f->ports[n->port_off].lid)
			w[s]++;
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = &f->ports[n->port_off + (uint32_t)p];
			if (pp->peer_node != IBF_NO_NODE &&
			    f->nodes[pp->peer_node].type != IBF_NODE_SWITCH)
				w[s]++;
		}
	}

	rep->components = f->nsw ? ibf_components(f, comp) : 0;
	struct ck_shared sh = {
		.f = f,
		.m = &m,
		.r = r,
		.max_hops = max_hops,
		.w = w,
		.ownsw = ownsw,
		.comp = comp,
		.rank = rank,
		.block = 64,
	};
	sh.nblocks = (m.max_lid + sh.block) / sh.block;
	sh.nthreads = ibf_walk_threads((uint64_t)f->nsw * (m.max_lid + 1));
	if ((uint32_t)sh.nthreads > sh.nblocks)
		sh.nthreads = sh.nblocks ? (int)sh.nblocks : 1;
	struct ck_thread *th = calloc((size_t)sh.nthreads, sizeof(*th));
	if (!th) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto done;
	}
	int started = 0;
	for (int i = 0; i < sh.nthreads; i++) {
		th[i].sh = &sh;
		th[i].idx = i;
	}
	for (int i = 1; i < sh.nthreads; i++) {
		if (pthread_create(&th[i].tid, NULL, ck_worker, &th[i]) != 0)
			break;
		started = i;
	}
	ck_worker(&th[0]);
	/* the share of threads that failed to start is done here */
	for (int i = started + 1; i < sh.nthreads; i++)
		ck_worker(&th[i]);
	for (int i = 1; i <= started; i++)
		pthread_join(th[i].tid, NULL);

	struct ck_example ex[NEX];
	int nex = 0;
	for (int i = 0; i < sh.nthreads; i++) {
		struct ibf_check_report *tr = &th[i].rep;
		if (th[i].rc && !rc)
			rc = ibf_error_set(err, th[i].rc, NULL, 0, "out of memory");
		rep->pairs += tr->pairs;
		rep->ok += tr->ok;
		rep->unreachable += tr->unreachable;
		rep->across += tr->across;
		rep->loops += tr->loops;
		rep->wrong += tr->wrong;
		rep->too_long += tr->too_long;
		if (tr->max_hops_seen > rep->max_hops_seen)
			rep->max_hops_seen = tr->max_hops_seen;
		for (int k = 0; k < th[i].nex; k++)
			ex_add(ex, &nex, &th[i].ex[k]);
	}
	free(th);
	if (!rc) {
		for (int k = 0; k < nex; k++)
			ex_render(f, &m, r, max_hops, &ex[k], rep->examples[k],
				  sizeof(rep->examples[k]));
		rep->nexamples = nex;
	}
done:
	free(w);
	free(ownsw);
	free(comp);
	free(rank);
	ibf_lidmap_free(&m);
	return rc;
}
