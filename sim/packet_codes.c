/* Packet-level simulator: export of a fabric, its forwarding tables and the
 * traffic to the input of CODES's fat-tree network model (docs/simulation.md,
 * "Export to CODES").
 *
 * CODES (the MPI-parallel simulator on ROSS) has one network model that
 * takes forwarding tables: `fattree` with routing="static" reads one file
 * per switch, <routing_folder>/0x<switch guid>.lft, lines "0x<terminal guid>
 * <port>" (port 1-based, CODES's own port order).  The model builds its
 * wiring itself from (levels, radix, leaf count); it has no cabling input.
 * So the export rebuilds CODES's wiring (the rules of its fattree.c for
 * ft_type 0 with tapering 1), finds an isomorphism between that and the
 * fabric (levels, switch multigraph, hosts per leaf), and translates every
 * LFT entry of every host's base LID into CODES's port numbering.  Fabrics
 * that are not a CODES fat tree are refused with the reason.  Not mapped:
 * LMC layers above 0, SLs and SL2VL (the model has no virtual lanes),
 * per-link rates (one switch and one terminal bandwidth), cable lengths. */
#include "ibf_sim.h"
#include "ibf_sim_packet.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CODES_TERM_GUID ((uint64_t)64 << 32) /* fattree.c TERMINAL_GUID_PREFIX */
#define CODES_MAX_SW 4096
#define CODES_SEARCH_STEPS 2000000

/* CODES's fat tree: counts as fattree.c derives them (tapering 1). */
struct ct_shape {
	int levels, k, n[3], l0_term, l0_set, l1_set, rep, ns;
	uint32_t nsw, nterm;
	/* per CODES switch: its ports' peers, >= 0 a switch, < 0 terminal -1-t */
	uint32_t *off;
	int32_t *peer;
};

static int ct_level(const struct ct_shape *s, int c)
{
	return c < s->n[0] ? 0 : c < s->n[0] + s->n[1] ? 1 : 2;
}

/* The wiring of fattree.c's switch_init for ft_type 0: 0 or a reason. */
static const char *ct_build(struct ct_shape *s)
{
	int k = s->k, n0 = s->n[0];
	s->ns = k / 2;
	s->l0_set = k / 2;
	s->l0_term = k / 2;
	if (k < 2 || n0 % s->ns)
		return "CODES wants the leaf count to be a multiple of radix/2";
	if (s->levels == 2) {
		s->n[1] = n0 / 2;
		s->l1_set = s->n[1];
		s->n[2] = 0;
	} else {
		s->l1_set = k / 2;
		int np = n0 / s->l0_set;
		s->n[1] = np * s->l1_set;
		if (np > k)
			return "more pods than the radix: CODES cannot wire the top level";
		s->rep = k / np;
		while (s->l1_set % s->rep)
			s->rep--;
		s->n[2] = s->l1_set / s->rep * s->ns;
	}
	s->nsw = (uint32_t)(s->n[0] + s->n[1] + s->n[2]);
	s->nterm = (uint32_t)n0 * (uint32_t)s->l0_term;
	if (s->nsw > CODES_MAX_SW)
		return "more than 4096 switches";
	s->off = calloc(s->nsw + 1, sizeof(*s->off));
	s->peer = malloc((size_t)s->nsw * (size_t)(4 * k + 4) * sizeof(*s->peer));
	if (!s->off || !s->peer)
		return "out of memory";
	uint32_t m = 0;
	for (int c = 0; c < (int)s->nsw; c++) {
		s->off[c] = m;
		int lv = ct_level(s, c);
		if (lv == 0) {
			for (int t = 0; t < s->l0_term; t++)
				s->peer[m++] = -1 - (c * s->l0_term + t);
			int con = s->levels == 2 ? 2 : 1;
			int base = (s->levels == 2 ? 0 : c / s->l0_set) * s->l1_set;
			for (int j = 0; j < s->l1_set; j++)
				for (int x = 0; x < con; x++)
					s->peer[m++] = n0 + base + j;
		} else if (lv == 1) {
			int rel = c - n0, con = s->levels == 2 ? 2 : 1;
			int base = s->levels == 2 ? 0 : rel / s->l1_set * s->l0_set;
			for (int j = 0; j < s->l0_set; j++)
				for (int x = 0; x < con; x++)
					s->peer[m++] = base + j;
			if (s->levels == 3) {
				int l2 = rel % s->l1_set / s->rep * s->ns;
				for (int j = 0; j < s->ns; j++)
					s->peer[m++] = n0 + s->n[1] + l2 + j;
			}
		} else {
			int rel = c - n0 - s->n[1];
			for (int l1 = rel / s->ns * s->rep; l1 < s->n[1]; l1 += s->l1_set)
				for (int j = 0; j < s->rep; j++)
					s->peer[m++] = n0 + l1 + j;
		}
		if ((int)(m - s->off[c]) > k)
			return "a CODES switch would need more ports than the radix";
	}
	s->off[s->nsw] = m;
	/* CODES's rules are consistent only for some sizes: each cable must be
	 * seen from both ends as often */
	for (uint32_t c = 0; c < s->nsw; c++)
		for (uint32_t q = s->off[c]; q < s->off[c + 1]; q++) {
			int32_t d = s->peer[q];
			if (d < 0)
				continue;
			int a = 0, b = 0;
			for (uint32_t x = s->off[c]; x < s->off[c + 1]; x++)
				a += s->peer[x] == d;
			for (uint32_t x = s->off[d]; x < s->off[d + 1]; x++)
				b += s->peer[x] == (int32_t)c;
			if (a != b)
				return "CODES's wiring rules give a one-sided link at this size";
		}
	return NULL;
}

/* The fabric's side: switch levels (hops from the nearest leaf), a dense
 * multiplicity matrix, switch neighbour lists. */
struct ct_fab {
	uint32_t nsw;
	int *level, *hosts;
	uint8_t *mult;	     /* nsw x nsw cables */
	uint32_t *aoff, *an; /* distinct switch neighbours */
};

static int ct_fab_build(const struct ibf_fabric *f, struct ct_fab *x)
{
	uint32_t n = f->nsw;
	x->nsw = n;
	x->level = malloc(n * sizeof(int));
	x->hosts = calloc(n, sizeof(int));
	x->mult = calloc((size_t)n * n, 1);
	x->aoff = calloc(n + 1, sizeof(uint32_t));
	uint32_t *q = malloc(n * sizeof(uint32_t));
	if (!x->level || !x->hosts || !x->mult || !x->aoff || !q) {
		free(q);
		return IBF_ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct ibf_node *nd = &f->nodes[f->switches[i]];
		x->level[i] = -1;
		for (int p = 1; p <= nd->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, f->switches[i], p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			int32_t s = f->nodes[pp->peer_node].sw;
			if (s < 0)
				x->hosts[i]++;
			else if (x->mult[(size_t)i * n + (uint32_t)s] < 255)
				x->mult[(size_t)i * n + (uint32_t)s]++;
		}
	}
	uint32_t h = 0, t = 0, na = 0;
	for (uint32_t i = 0; i < n; i++)
		if (x->hosts[i]) {
			x->level[i] = 0;
			q[t++] = i;
		}
	while (h < t) {
		uint32_t i = q[h++];
		for (uint32_t j = 0; j < n; j++)
			if (x->mult[(size_t)i * n + j] && x->level[j] < 0) {
				x->level[j] = x->level[i] + 1;
				q[t++] = j;
			}
	}
	free(q);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			na += x->mult[(size_t)i * n + j] != 0;
	x->an = malloc((na ? na : 1) * sizeof(uint32_t));
	if (!x->an)
		return IBF_ENOMEM;
	na = 0;
	for (uint32_t i = 0; i < n; i++) {
		x->aoff[i] = na;
		for (uint32_t j = 0; j < n; j++)
			if (x->mult[(size_t)i * n + j])
				x->an[na++] = j;
	}
	x->aoff[n] = na;
	return 0;
}

/* Backtracking search for CODES switch -> fabric switch, CODES switches in
 * BFS order; a candidate must sit on the same level, carry the same hosts,
 * and agree in cable counts with every neighbour already mapped (on both
 * sides). */
struct ct_search {
	const struct ct_shape *s;
	const struct ct_fab *x;
	uint8_t *cm; /* CODES multiplicity, nsw x nsw */
	int32_t *map, *inv;
	uint32_t *order;
	long steps;
};

static int ct_fits(struct ct_search *S, uint32_t c, uint32_t v)
{
	const struct ct_shape *s = S->s;
	const struct ct_fab *x = S->x;
	uint32_t n = s->nsw;
	if (S->inv[v] >= 0 || x->level[v] != ct_level(s, (int)c) ||
	    x->hosts[v] != (ct_level(s, (int)c) ? 0 : s->l0_term))
		return 0;
	for (uint32_t q = s->off[c]; q < s->off[c + 1]; q++) {
		int32_t d = s->peer[q];
		if (d >= 0 && S->map[d] >= 0 &&
		    x->mult[(size_t)v * n + (uint32_t)S->map[d]] !=
			    S->cm[(size_t)c * n + (uint32_t)d])
			return 0;
	}
	for (uint32_t a = x->aoff[v]; a < x->aoff[v + 1]; a++) {
		uint32_t w = x->an[a];
		if (S->inv[w] >= 0 &&
		    S->cm[(size_t)c * n + (uint32_t)S->inv[w]] != x->mult[(size_t)v * n + w])
			return 0;
	}
	return 1;
}

static int ct_search(struct ct_search *S, uint32_t pos)
{
	const struct ct_shape *s = S->s;
	if (pos == s->nsw)
		return 1;
	if (++S->steps > CODES_SEARCH_STEPS)
		return -1;
	uint32_t c = S->order[pos];
	/* candidates: the neighbours of a mapped neighbour's image, or all */
	int32_t anchor = -1;
	for (uint32_t q = s->off[c]; q < s->off[c + 1] && anchor < 0; q++)
		if (s->peer[q] >= 0 && S->map[s->peer[q]] >= 0)
			anchor = S->map[s->peer[q]];
	uint32_t lo = 0, hi = S->x->nsw;
	if (anchor >= 0) {
		lo = S->x->aoff[anchor];
		hi = S->x->aoff[anchor + 1];
	}
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t v = anchor >= 0 ? S->x->an[i] : i;
		if (!ct_fits(S, c, v))
			continue;
		S->map[c] = (int32_t)v;
		S->inv[v] = (int32_t)c;
		int rc = ct_search(S, pos + 1);
		if (rc)
			return rc;
		S->map[c] = -1;
		S->inv[v] = -1;
	}
	return 0;
}

static int write_text(const char *dir, const char *name, const char *body, struct ibf_error *err)
{
	char path[4200];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "path too long: %s/%s", dir, name);
	struct ibf_atomic at;
	int rc = ibf_atomic_open(&at, path, err);
	if (rc)
		return rc;
	fputs(body, at.fp);
	return ibf_atomic_commit(&at, 1, err);
}

/* One export: the fabric, its CODES shape and the match between them. */
struct ct_export {
	const struct ibf_fabric *f;
	const struct ibf_routes *r;
	const struct ibf_psim_opts *o;
	const char *dir;
	struct ibf_psim_codes_info *info;
	struct ibf_error *err;
	struct ct_shape s;
	struct ct_fab x;
	struct ct_search S;
	struct ibf_sim_net net;
	int32_t *cport;	    /* [global port] CODES port index, -1 none */
	int32_t *term_host; /* [CODES terminal] global port of its host */
	const char *udir;   /* DIR as given (dir: where the files are written) */
	char stage[4200];   /* the staging directory */
	int fresh, staged;  /* DIR did not exist; the stage is made */
};

static int ct_oom(struct ct_export *e)
{
	return ibf_error_set(e->err, IBF_ENOMEM, NULL, 0, "out of memory");
}

/* The CODES fat tree the fabric would be: levels from the leaves, radix
 * twice the hosts per leaf, as many leaves; refused with the reason when
 * the fabric cannot be one. */
static int ct_shape_of(struct ct_export *e)
{
	struct ct_fab *x = &e->x;
	struct ct_shape *s = &e->s;
	const char *why = NULL;
	int maxlv = -1, leaves = 0, hosts0 = -1;
	for (uint32_t i = 0; i < x->nsw; i++) {
		if (x->level[i] < 0) {
			why = "a switch is not connected to any leaf";
			break;
		}
		if (x->level[i] > maxlv)
			maxlv = x->level[i];
		if (x->hosts[i]) {
			leaves++;
			if (hosts0 >= 0 && x->hosts[i] != hosts0)
				why = "leaves with different host counts";
			hosts0 = x->hosts[i];
		}
	}
	if (!why && (maxlv < 1 || maxlv > 2))
		why = "not a 2- or 3-level tree of switches (CODES's fattree has 2 or 3 levels)";
	if (!why) {
		s->levels = maxlv + 1;
		s->k = 2 * hosts0;
		s->n[0] = leaves;
		why = ct_build(s);
	}
	if (!why && s->nsw != x->nsw)
		why = "switch count differs from CODES's fat tree of that radix and leaf count";
	if (!why)
		return 0;
	if (s->levels)
		return ibf_error_set(e->err, IBF_EINVAL, NULL, 0,
				     "CODES export: the fabric is not a CODES fat tree (%d "
				     "levels, %d leaves of %d hosts: CODES radix %d; %s)",
				     s->levels, s->n[0], hosts0, s->k, why);
	return ibf_error_set(e->err, IBF_EINVAL, NULL, 0,
			     "CODES export: the fabric is not a CODES fat tree (%s)", why);
}

/* Search the fabric's switches for CODES's wiring (CODES switches in
 * breadth-first order over its links). */
static int ct_match(struct ct_export *e)
{
	struct ct_shape *s = &e->s;
	struct ct_search *S = &e->S;
	uint32_t n = s->nsw;
	S->s = s;
	S->x = &e->x;
	S->cm = calloc((size_t)n * n, 1);
	S->map = malloc(n * sizeof(int32_t));
	S->inv = malloc(n * sizeof(int32_t));
	S->order = malloc(n * sizeof(uint32_t));
	uint8_t *seen = calloc(n, 1);
	if (!S->cm || !S->map || !S->inv || !S->order || !seen) {
		free(seen);
		return ct_oom(e);
	}
	for (uint32_t c = 0; c < n; c++) {
		S->map[c] = S->inv[c] = -1;
		for (uint32_t q = s->off[c]; q < s->off[c + 1]; q++)
			if (s->peer[q] >= 0)
				S->cm[(size_t)c * n + (uint32_t)s->peer[q]]++;
	}
	uint32_t h = 0, t = 0;
	for (uint32_t c0 = 0; c0 < n; c0++) {
		if (seen[c0])
			continue;
		seen[c0] = 1;
		S->order[t++] = c0;
		while (h < t) {
			uint32_t c = S->order[h++];
			for (uint32_t q = s->off[c]; q < s->off[c + 1]; q++)
				if (s->peer[q] >= 0 && !seen[s->peer[q]]) {
					seen[s->peer[q]] = 1;
					S->order[t++] = (uint32_t)s->peer[q];
				}
		}
	}
	free(seen);
	int found = ct_search(S, 0);
	if (found > 0)
		return 0;
	return ibf_error_set(e->err, IBF_EINVAL, NULL, 0,
			     "CODES export: the fabric is not wired as CODES's %d-level fat "
			     "tree of radix %d with %d leaves%s",
			     s->levels, s->k, s->n[0], found < 0 ? " (search limit reached)" : "");
}

/* The fabric port a CODES port q of switch c (matched to node) stands for:
 * the hostk-th host port of the leaf, or the next unused cable to the image
 * of CODES switch d; -1 when none. */
static int ct_port_of(const struct ct_export *e, int32_t node, int32_t d, int hostk)
{
	const struct ibf_fabric *f = e->f;
	const struct ibf_node *nd = &f->nodes[node];
	int seen_h = 0;
	for (int p = 1; p <= nd->nports; p++) {
		const struct ibf_port *pp = ibf_port(f, node, p);
		if (pp->peer_node == IBF_NO_NODE)
			continue;
		if (d < 0 && f->nodes[pp->peer_node].sw < 0 && seen_h++ == hostk)
			return p;
		if (d >= 0 && f->nodes[pp->peer_node].sw == e->S.map[d] &&
		    e->cport[nd->port_off + (uint32_t)p] < 0)
			return p;
	}
	return -1;
}

/* Ports: fabric (global port id) -> CODES port, CODES terminal -> host,
 * and the map as CSV in *csv (caller frees). */
static int ct_map_ports(struct ct_export *e, char **csv)
{
	const struct ibf_fabric *f = e->f;
	const struct ct_shape *s = &e->s;
	size_t blen = 0;
	e->cport = malloc(f->nports_total * sizeof(int32_t));
	e->term_host = malloc(s->nterm * sizeof(int32_t));
	FILE *mem = open_memstream(csv, &blen);
	if (!e->cport || !e->term_host || !mem) {
		if (mem)
			fclose(mem);
		return ct_oom(e);
	}
	for (uint32_t g = 0; g < f->nports_total; g++)
		e->cport[g] = -1;
	fprintf(mem, "codes_switch,level,codes_port,peer_kind,peer_codes_id,node_guid,port,"
		     "peer_guid,peer_port\n");
	for (uint32_t c = 0; c < s->nsw; c++) {
		int32_t node = f->switches[e->S.map[c]];
		const struct ibf_node *nd = &f->nodes[node];
		int hostk = 0;
		for (uint32_t q = s->off[c]; q < s->off[c + 1]; q++) {
			int32_t d = s->peer[q];
			int got = ct_port_of(e, node, d, hostk);
			if (d < 0)
				hostk++;
			if (got < 0) {
				fclose(mem);
				return ibf_error_set(e->err, IBF_EINVAL, NULL, 0,
						     "CODES export: internal mismatch at switch %u",
						     c);
			}
			e->cport[nd->port_off + (uint32_t)got] = (int32_t)(q - s->off[c]);
			const struct ibf_port *pp = ibf_port(f, node, got);
			if (d < 0)
				e->term_host[-1 - d] =
					(int32_t)(f->nodes[pp->peer_node].port_off + pp->peer_port);
			fprintf(mem, "%u,%d,%u,%s,%d,0x%016" PRIx64 ",%d,0x%016" PRIx64 ",%u\n", c,
				ct_level(s, (int)c), q - s->off[c] + 1,
				d < 0 ? "terminal" : "switch", d < 0 ? -1 - d : d,
				f->nodes[node].guid, got, f->nodes[pp->peer_node].guid,
				pp->peer_port);
			if (d >= 0)
				e->info->links++;
		}
	}
	e->info->links /= 2;
	return fclose(mem) ? ct_oom(e) : 0;
}

/* The CODES port switch c takes towards terminal tm (the table's entry for
 * the terminal's base LID), -1 when there is none CODES knows. */
static int32_t ct_route(const struct ct_export *e, uint32_t c, uint32_t tm)
{
	const struct ibf_fabric *f = e->f;
	uint32_t sw = (uint32_t)e->S.map[c];
	int32_t node = f->switches[sw];
	uint32_t lid = f->ports[e->term_host[tm]].lid;
	uint8_t p = lid && lid <= e->r->max_lid ? ibf_lft(e->r, sw)[lid] : IBF_LFT_NONE;
	if (p == IBF_LFT_NONE || p > f->nodes[node].nports)
		return -1;
	return e->cport[f->nodes[node].port_off + p];
}

static const char *ct_name(const struct ct_export *e, uint32_t c)
{
	const struct ibf_node *nd = &e->f->nodes[e->f->switches[e->S.map[c]]];
	return nd->desc ? nd->desc : "?";
}

/* The tables, followed through CODES's wiring, must bring every terminal's
 * packets there from every switch: checked before anything is written.
 * (Checking only that each switch has a port CODES knows let through
 * tables that send a terminal's LID out of another terminal's port, which
 * CODES counts as delivered, or round a loop, which it never reports.)
 * One walk per terminal, each switch visited once: state[c] is 2 t + 1
 * while on the current walk, 2 t + 2 once it is known to deliver. */
static int ct_check_routes(struct ct_export *e)
{
	const struct ibf_fabric *f = e->f;
	uint32_t n = e->s.nsw;
	uint32_t *state = calloc(n ? n : 1, sizeof(*state));
	uint32_t *walk = malloc((n ? n : 1) * sizeof(*walk));
	if (!state || !walk) {
		free(state);
		free(walk);
		return ct_oom(e);
	}
	int rc = 0;
	for (uint32_t tm = 0; tm < e->s.nterm && !rc; tm++) {
		uint32_t lid = f->ports[e->term_host[tm]].lid, on = 2 * tm + 1, ok = 2 * tm + 2;
		for (uint32_t c0 = 0; c0 < n && !rc; c0++) {
			uint32_t len = 0, c = c0;
			while (state[c] != ok) {
				if (state[c] == on) {
					rc = ibf_error_set(e->err, IBF_EINVAL, NULL, 0,
							   "CODES export: the route to LID %u "
							   "from switch '%s' loops (through '%s')",
							   lid, ct_name(e, c0), ct_name(e, c));
					break;
				}
				int32_t p = ct_route(e, c, tm);
				if (p < 0) {
					rc = ibf_error_set(e->err, IBF_EINVAL, NULL, 0,
							   "CODES export: switch '%s' has no "
							   "usable route to LID %u",
							   ct_name(e, c), lid);
					break;
				}
				state[c] = on;
				walk[len++] = c;
				int32_t d = e->s.peer[e->s.off[c] + (uint32_t)p];
				if (d >= 0) {
					c = (uint32_t)d;
					continue;
				}
				if ((uint32_t)(-1 - d) != tm) {
					rc = ibf_error_set(
						e->err, IBF_EINVAL, NULL, 0,
						"CODES export: switch '%s' sends LID %u to the "
						"port of LID %u",
						ct_name(e, c), lid,
						f->ports[e->term_host[-1 - d]].lid);
				}
				break;
			}
			for (uint32_t k = 0; k < len && !rc; k++)
				state[walk[k]] = ok;
		}
	}
	free(state);
	free(walk);
	return rc;
}

/* One 0x<guid>.lft per CODES switch: every terminal's port. */
static int ct_write_lfts(struct ct_export *e)
{
	int rc = 0;
	for (uint32_t c = 0; !rc && c < e->s.nsw; c++) {
		char path[4200];
		uint64_t guid = ((uint64_t)(ct_level(&e->s, (int)c) + 1) << 32) + c;
		snprintf(path, sizeof(path), "%s/0x%016" PRIx64 ".lft", e->dir, guid);
		struct ibf_atomic at;
		rc = ibf_atomic_open(&at, path, e->err);
		if (rc)
			break;
		for (uint32_t tm = 0; tm < e->s.nterm; tm++) {
			fprintf(at.fp, "0x%016" PRIx64 " %d\n", CODES_TERM_GUID + tm,
				ct_route(e, c, tm) + 1); /* checked above */
			e->info->lft_rows++;
		}
		rc = ibf_atomic_commit(&at, 1, e->err);
	}
	return rc;
}

/* traffic.txt: a pattern's destinations in CODES terminal numbers. */
static int ct_write_traffic(struct ct_export *e)
{
	const struct ibf_fabric *f = e->f;
	const struct ibf_psim_opts *o = e->o;
	const struct ibf_sim_net *net = &e->net;
	char *buf = NULL;
	size_t blen = 0;
	int32_t *term_of_host = malloc(net->nhosts * sizeof(int32_t));
	FILE *mem = open_memstream(&buf, &blen);
	if (!term_of_host || !mem) {
		free(term_of_host);
		if (mem)
			fclose(mem);
		free(buf);
		return ct_oom(e);
	}
	for (uint32_t hh = 0; hh < net->nhosts; hh++) {
		term_of_host[hh] = -1;
		uint32_t g = f->nodes[net->host[hh].node].port_off + net->host[hh].port;
		for (uint32_t tm = 0; tm < e->s.nterm; tm++)
			if ((uint32_t)e->term_host[tm] == g)
				term_of_host[hh] = (int32_t)tm;
	}
	fprintf(mem, "# src_terminal dst_terminal (CODES terminal ids), one flow a line\n");
	for (uint32_t hh = 0; hh < o->traffic_nhosts && hh < net->nhosts; hh++)
		for (uint32_t k = o->traffic_off[hh]; k < o->traffic_off[hh + 1]; k++) {
			uint32_t d = o->traffic_dst[k];
			if (d < net->nhosts && term_of_host[hh] >= 0 && term_of_host[d] >= 0) {
				fprintf(mem, "%d %d\n", term_of_host[hh], term_of_host[d]);
				e->info->flows++;
			}
		}
	free(term_of_host);
	int rc = fclose(mem) ? ct_oom(e) : write_text(e->dir, "traffic.txt", buf, e->err);
	free(buf);
	return rc;
}

static int ct_cmp_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The most common link rate of one class (net->kind 1: switch to switch,
 * 2: switch to host), the faster on a tie; 0 with no such link, -1 out of
 * memory.  *mixed is set when the class has more than one rate. */
static double ct_common_rate(const struct ibf_sim_net *net, int kind, int *mixed)
{
	double *r = malloc((net->nlinks ? net->nlinks : 1) * sizeof(*r));
	if (!r)
		return -1;
	uint32_t n = 0;
	for (uint32_t l = 0; l < net->nlinks; l++)
		if (net->kind[l] == kind && net->cap[l] > 0)
			r[n++] = net->cap[l];
	qsort(r, n, sizeof(*r), ct_cmp_rate);
	double best = 0;
	uint32_t best_n = 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && r[j] == r[i]; j++)
			;
		if (j - i >= best_n) {
			best = r[i];
			best_n = j - i;
		}
	}
	if (n && best_n < n)
		*mixed = 1;
	free(r);
	return best;
}

/* codes-fattree.conf (the model's parameters, switch and host rates the
 * most common ones) and run-codes.sh. */
static int ct_write_conf(struct ct_export *e)
{
	const struct ibf_psim_opts *o = e->o;
	const struct ibf_sim_net *net = &e->net;
	const struct ct_shape *s = &e->s;
	struct ibf_psim_codes_info *info = e->info;
	/* the most common rate of each class (it was the first seen, so one
	 * degraded cable early in the file made every CODES link a 1x one) */
	double sw_gbps = ct_common_rate(net, 1, &info->mixed_rates);
	double cn_gbps = ct_common_rate(net, 2, &info->mixed_rates);
	if (sw_gbps < 0 || cn_gbps < 0)
		return ct_oom(e);
	uint32_t pkt = o->mtu_payload + o->hdr_bytes;
	char *conf = ibf_asprintf(
		"# CODES fattree model, written by ibfab sim packet --export-codes\n"
		"# (docs/simulation.md, \"Export to CODES\"); static routing from the\n"
		"# fabric's LFTs in the 0x<guid>.lft files of routing_folder.\n"
		"LPGROUPS\n{\n   MODELNET_GRP\n   {\n"
		"      repetitions=\"%d\";\n      nw-lp=\"%d\";\n      modelnet_fattree=\"%d\";\n"
		"      fattree_switch=\"%d\";\n   }\n}\n"
		"PARAMS\n{\n   ft_type=\"0\";\n   num_levels=\"%d\";\n   switch_count=\"%d\";\n"
		"   switch_radix=\"%d\";\n   tapering=\"1\";\n   num_rails=\"1\";\n"
		"   num_injection_queues=\"1\";\n   rail_select=\"dedicated\";\n"
		"   terminal_radix=\"1\";\n   packet_size=\"%u\";\n   chunk_size=\"%u\";\n"
		"   # size of CODES's own event messages, as in its example configs\n"
		"   message_size=\"512\";\n   modelnet_scheduler=\"fcfs\";\n"
		"   modelnet_order=( \"fattree\" );\n   router_delay=\"%.1f\";\n"
		"   vc_size=\"%u\";\n   cn_vc_size=\"%u\";\n"
		"   # GB/s (ibfab: %.1f Gb/s switch links, %.1f Gb/s host links%s)\n"
		"   link_bandwidth=\"%.4f\";\n   cn_bandwidth=\"%.4f\";\n"
		"   routing=\"static\";\n   routing_folder=\"%s\";\n   dot_file=\"ibfab\";\n}\n",
		s->n[0], s->l0_term, s->l0_term, s->levels, s->levels, s->n[0], s->k, pkt, pkt,
		o->router_ns, o->buf_bytes, o->buf_bytes, sw_gbps, cn_gbps,
		info->mixed_rates ? "; the fabric mixes rates, these are the most common" : "",
		sw_gbps / 8, cn_gbps / 8, info->folder);
	/* ibfab's gap: a packet's serialisation on the host link over the
	 * load; CODES gets whole wire packets (payload + header, = packet_size)
	 * as its messages, so each message is one CODES packet of ibfab's size */
	double gap = o->load > 0 && cn_gbps > 0 ? pkt * 8.0 / (o->load * cn_gbps) : 0;
	char *run = ibf_asprintf(
		"#!/bin/sh\n"
		"# CODES's model-net-synthetic-fattree on this export (CODES is not part of\n"
		"# ibfab).  %s traffic: messages of %u B (%u B payload + %u B\n"
		"# header: one CODES packet each), exponential gaps of mean %.3f ns = load\n"
		"# %.3f of a %.1f Gb/s host link, as ibfab sim packet sends them.\n"
		"%s"
		"# CODES_BIN: the binary, an absolute path (default: model-net-synthetic-fattree\n"
		"# on PATH, an installed CODES; a CMake build tree has it in <build>/src/).\n"
		"# NP=1 (default) runs ROSS sequentially; NP>1 in parallel, SYNC=3\n"
		"# (optimistic, default) or 2 (conservative).  CODES writes ross.csv and\n"
		"# modelnet-test-*/ into this directory.\n"
		"cd \"$(dirname \"$0\")\" || exit 1\n"
		"NP=${NP:-1}\n"
		"if [ \"$NP\" -gt 1 ]; then SYNC=${SYNC:-3}; else SYNC=${SYNC:-1}; fi\n"
		"exec mpirun -np \"$NP\" \"${CODES_BIN:-model-net-synthetic-fattree}\" "
		"--sync=\"$SYNC\" --traffic=1 --payload_size=%u --arrival_time=%.3f --end=%.0f "
		"-- codes-fattree.conf\n",
		o->traffic_off ? "uniform random" : "Uniform random", pkt, o->mtu_payload,
		o->hdr_bytes, gap, o->load, cn_gbps,
		o->traffic_off
			? "# The pattern's flows are in traffic.txt; no stock CODES workload reads\n"
			  "# them, so this runs uniform random traffic at the same load.\n"
			: "",
		pkt, gap, o->warmup_ns + o->measure_ns);
	int rc = !conf || !run ? ct_oom(e) : write_text(e->dir, "codes-fattree.conf", conf, e->err);
	if (!rc)
		rc = write_text(e->dir, "run-codes.sh", run, e->err);
	free(conf);
	free(run);
	return rc;
}

/* The folder, named by its absolute path (CODES reads the tables from
 * routing_folder).  The files are written into a private staging directory
 * and moved into DIR only when all of them are written: beside DIR when it
 * does not exist yet (then renamed to DIR as a whole), inside it when it
 * does (then moved in file by file).  A failed export leaves DIR as it was,
 * or does not create it. */
static int ct_folder(struct ct_export *e)
{
	struct stat st;
	char *absdir = NULL;
	e->fresh = stat(e->dir, &st) != 0;
	if (!e->fresh && !S_ISDIR(st.st_mode))
		return ibf_error_set(e->err, IBF_EIO, e->dir, 0, "not a directory");
	if (!e->fresh) {
		absdir = realpath(e->dir, NULL);
	} else if (errno != ENOENT) {
		return ibf_error_set(e->err, IBF_EIO, e->dir, 0, "cannot create directory: %s",
				     strerror(errno));
	} else {
		/* DIR's parent must exist; DIR is named below it */
		size_t n = strlen(e->dir);
		while (n > 1 && e->dir[n - 1] == '/')
			n--;
		size_t b = n;
		while (b > 0 && e->dir[b - 1] != '/')
			b--;
		char *parent = b ? ibf_asprintf("%.*s", (int)b, e->dir) : ibf_asprintf(".");
		if (!parent)
			return ct_oom(e);
		char *rp = realpath(parent, NULL);
		int en = errno;
		free(parent);
		if (!rp)
			return ibf_error_set(e->err, IBF_EIO, e->dir, 0,
					     "cannot create directory: %s", strerror(en));
		absdir = ibf_asprintf("%s%s%.*s", rp, rp[strlen(rp) - 1] == '/' ? "" : "/",
				      (int)(n - b), e->dir + b);
		free(rp);
	}
	if (!absdir)
		return ibf_error_set(e->err, IBF_EIO, e->dir, 0, "cannot resolve: %s",
				     strerror(errno));
	int rc = 0;
	if (strlen(absdir) >= sizeof(e->info->folder) - 32)
		rc = ibf_error_set(e->err, IBF_EINVAL, e->dir, 0, "path too long");
	if (!rc) {
		snprintf(e->info->folder, sizeof(e->info->folder), "%s", absdir);
		/* mkdir, not mkdtemp: DIR gets the umask's mode, not 0700 */
		int en = EEXIST;
		for (int k = 0; k < 1000 && !e->staged; k++) {
			snprintf(e->stage, sizeof(e->stage),
				 e->fresh ? "%s.tmp-%ld-%d" : "%s/.tmp-%ld-%d", absdir,
				 (long)getpid(), k);
			if (!mkdir(e->stage, 0777))
				e->staged = 1;
			else if ((en = errno) != EEXIST)
				break;
		}
		if (!e->staged)
			rc = ibf_error_set(e->err, IBF_EIO, e->dir, 0,
					   "cannot create directory: %s", strerror(en));
	}
	free(absdir);
	return rc;
}

/* Is name a switch table of the shape CODES reads from routing_folder
 * (0x<16 hex digits>.lft), and not one of this export's switches? */
static int ct_stale_lft(const struct ct_export *e, const char *name)
{
	if (strlen(name) != 22 || name[0] != '0' || name[1] != 'x' || strcmp(name + 18, ".lft"))
		return 0;
	uint64_t g = 0;
	for (int i = 2; i < 18; i++) {
		char ch = name[i];
		int v = ch >= '0' && ch <= '9'	 ? ch - '0'
			: ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
						 : -1;
		if (v < 0)
			return 0;
		g = g << 4 | (uint64_t)v;
	}
	uint64_t c = g & 0xffffffffu, lv = g >> 32;
	return !(c < e->s.nsw && lv == (uint64_t)ct_level(&e->s, (int)c) + 1);
}

/* Empty the staging directory and remove it (a failed export), or move its
 * files into DIR (when DIR existed; a traffic.txt of an earlier export with
 * a pattern is removed when this one has none) or rename it to DIR. */
static int ct_stage_end(struct ct_export *e, int ok)
{
	int rc = 0;
	if (ok && e->fresh) {
		if (rename(e->stage, e->info->folder) == 0)
			return 0;
		rc = ibf_error_set(e->err, IBF_EIO, e->udir, 0, "cannot create directory: %s",
				   strerror(errno));
		ok = 0;
	}
	DIR *d = opendir(e->stage);
	struct dirent *de;
	/* a name in DIR that a file cannot replace (a directory) fails the
	 * export before anything is moved */
	while (ok && d && (de = readdir(d)) != NULL) {
		struct stat st;
		char *to = ibf_asprintf("%s/%s", e->info->folder, de->d_name);
		if (!to) {
			rc = ct_oom(e);
			ok = 0;
		} else if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !lstat(to, &st) &&
			   S_ISDIR(st.st_mode)) {
			rc = ibf_error_set(e->err, IBF_EIO, to, 0, "cannot write: a directory");
			ok = 0;
		}
		free(to);
	}
	if (d)
		rewinddir(d);
	while (d && (de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *from = ibf_asprintf("%s/%s", e->stage, de->d_name);
		char *to = ibf_asprintf("%s/%s", e->info->folder, de->d_name);
		if (!from || !to) {
			if (!rc)
				rc = ct_oom(e);
			ok = 0;
		}
		if (ok && rename(from, to)) {
			rc = ibf_error_set(e->err, IBF_EIO, to, 0, "cannot write: %s",
					   strerror(errno));
			ok = 0;
		}
		if (!ok && from)
			unlink(from);
		free(from);
		free(to);
	}
	if (d)
		closedir(d);
	if (ok && !e->o->traffic_off) {
		char *t = ibf_asprintf("%s/traffic.txt", e->info->folder);
		if (t)
			unlink(t);
		free(t);
	}
	/* the tables of an earlier export's switches that this fabric does
	 * not have (a 3-level tree's, exported into the same DIR before a
	 * 2-level one) stayed beside the new ones: DIR then held 83 tables for
	 * 6 switches, and what it read back as did not match the export */
	DIR *od = ok ? opendir(e->info->folder) : NULL;
	while (od && (de = readdir(od)) != NULL) {
		if (!ct_stale_lft(e, de->d_name))
			continue;
		char *t = ibf_asprintf("%s/%s", e->info->folder, de->d_name);
		if (t)
			unlink(t);
		free(t);
	}
	if (od)
		closedir(od);
	rmdir(e->stage);
	return rc;
}

int ibf_psim_export_codes(const struct ibf_fabric *f, const struct ibf_routes *r,
			  const struct ibf_psim_opts *o, const char *dir,
			  struct ibf_psim_codes_info *info, struct ibf_error *err)
{
	struct ct_export e;
	memset(&e, 0, sizeof(e));
	memset(info, 0, sizeof(*info));
	e.f = f;
	e.r = r;
	e.o = o;
	e.dir = dir;
	e.udir = dir;
	e.info = info;
	e.err = err;
	char *csv = NULL;
	int rc = ibf_sim_net_init(&e.net, f, r, IBF_CONG_ORDER_AUTO, err);
	if (rc)
		return rc;
	if (f->nsw == 0 || f->nsw > CODES_MAX_SW) {
		rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
				   "CODES export: %u switches (want 1..%d)", f->nsw, CODES_MAX_SW);
		goto out;
	}
	if (ct_fab_build(f, &e.x)) {
		rc = ct_oom(&e);
		goto out;
	}
	if ((rc = ct_shape_of(&e)) || (rc = ct_match(&e)) || (rc = ct_map_ports(&e, &csv)) ||
	    (rc = ct_check_routes(&e)) || (rc = ct_folder(&e)))
		goto out;
	e.dir = e.stage; /* written there, moved into dir at the end */
	if ((rc = write_text(e.dir, "codes-map.csv", csv, err)) || (rc = ct_write_lfts(&e)) ||
	    (o->traffic_off && (rc = ct_write_traffic(&e))) || (rc = ct_write_conf(&e)))
		goto out;
	rc = ct_stage_end(&e, 1);
	e.staged = 0;
	if (rc)
		goto out;
	for (uint32_t tm = 0; tm < e.s.nterm; tm++)
		if (f->ports[e.term_host[tm]].lmc > info->lmc)
			info->lmc = f->ports[e.term_host[tm]].lmc;
	info->levels = e.s.levels;
	info->radix = e.s.k;
	info->routers = e.s.nsw;
	info->terminals = e.s.nterm;
out:
	if (e.staged)
		ct_stage_end(&e, 0);
	free(csv);
	free(e.cport);
	free(e.term_host);
	free(e.S.cm);
	free(e.S.map);
	free(e.S.inv);
	free(e.S.order);
	free(e.x.level);
	free(e.x.hosts);
	free(e.x.mult);
	free(e.x.aoff);
	free(e.x.an);
	free(e.s.off);
	free(e.s.peer);
	ibf_sim_net_free(&e.net);
	return rc;
}
