/* Simulator network: hosts, directed links and their capacities, flow
 * tracing through the tables, rank placement, layer policies. */
#include "sim_internal.h"
#include "ibf_fattree.h"
#include "ibf_text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* data rate of `width` lanes at `speed`, Gb/s (0 when either is unknown) */
static double gbps(int width, int speed)
{
	return width && speed ? width * ibf_speed_rate(speed) / 10.0 : 0;
}

void ibf_sim_net_free(struct ibf_sim_net *n)
{
	if (!n)
		return;
	free(n->host);
	free(n->up);
	free(n->down);
	free(n->cap);
	free(n->kind);
	free(n->host_of_port);
	memset(n, 0, sizeof(*n));
}

int ibf_sim_net_init(struct ibf_sim_net *n, const struct ibf_fabric *f, const struct ibf_routes *r,
		     int order, struct ibf_error *err)
{
	memset(n, 0, sizeof(*n));
	if (!f || !f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no finalized fabric");
	if (r && r->nsw != f->nsw)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "route table has %u switches, the fabric %u", r->nsw, f->nsw);
	/* two ports on one LID (a guid2lid file or a dump that gives them
	 * the same): the tables can deliver it to one of them only, and the
	 * flows to the other came out as undelivered (sim flow) or as
	 * unroutable packets (sim packet) instead of this */
	struct ibf_lidmap lm;
	int rc = ibf_lidmap_build(f, &lm, err);
	if (rc)
		return rc;
	ibf_lidmap_free(&lm);
	n->f = f;
	n->r = r;
	rc = ibf_end_ports(f, order, &n->host, &n->nhosts, &n->order, NULL, NULL, err);
	if (rc)
		return rc;
	n->in_switch = ibf_end_ports_in_switch(f);
	n->nlinks = f->nports_total;
	size_t L = n->nlinks ? n->nlinks : 1, H = n->nhosts ? n->nhosts : 1;
	n->cap = calloc(L, sizeof(double));
	n->kind = calloc(L, 1);
	n->host_of_port = malloc(L * sizeof(int32_t));
	n->up = malloc(H * sizeof(uint32_t));
	n->down = malloc(H * sizeof(uint32_t));
	if (!n->cap || !n->kind || !n->host_of_port || !n->up || !n->down) {
		ibf_sim_net_free(n);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	/* the most common known rate stands in for unknown ones */
	double common = 0;
	uint32_t hist[IBF_SPEED_COUNT * 13];
	memset(hist, 0, sizeof(hist));
	for (uint32_t v = 0; v < f->nnodes; v++)
		for (int p = 1; p <= f->nodes[v].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)v, p);
			if (pp->peer_node != IBF_NO_NODE && pp->width && pp->width <= 12 &&
			    pp->speed && pp->speed < IBF_SPEED_COUNT)
				hist[pp->speed * 13 + pp->width]++;
		}
	uint32_t best = 0;
	for (int k = 0; k < IBF_SPEED_COUNT * 13; k++)
		if (hist[k] > best) {
			best = hist[k];
			common = gbps(k % 13, k / 13);
		}
	n->assumed_gbps = common > 0 ? common : 100.0;
	for (uint32_t i = 0; i < n->nlinks; i++)
		n->host_of_port[i] = -1;
	for (uint32_t v = 0; v < f->nnodes; v++)
		for (int p = 1; p <= f->nodes[v].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)v, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			uint32_t id = f->nodes[v].port_off + (uint32_t)p;
			const struct ibf_port *q = ibf_port(f, pp->peer_node, pp->peer_port);
			/* a link runs at what both ends report; unknown -> the common rate */
			double a = gbps(pp->width, pp->speed), b = gbps(q->width, q->speed),
			       c = a && b ? (a < b ? a : b)
				   : a	  ? a
					  : b;
			if (c <= 0) {
				c = n->assumed_gbps;
				n->assumed++;
			}
			n->cap[id] = c;
			int sa = f->nodes[v].type == IBF_NODE_SWITCH;
			int sb = f->nodes[pp->peer_node].type == IBF_NODE_SWITCH;
			n->kind[id] = sa && sb ? 1 : (sa || sb) ? 2 : 0;
		}
	for (uint32_t h = 0; h < n->nhosts; h++) {
		const struct ibf_endport *e = &n->host[h];
		const struct ibf_port *pp = ibf_port(f, e->node, e->port);
		n->up[h] = f->nodes[e->node].port_off + e->port;
		n->down[h] = f->nodes[pp->peer_node].port_off + pp->peer_port;
		n->host_of_port[n->up[h]] = (int32_t)h;
	}
	return 0;
}

int ibf_sim_trace(const struct ibf_sim_net *n, uint32_t a, uint32_t b, uint32_t layer,
		  uint32_t *links, int max)
{
	const struct ibf_fabric *f = n->f;
	const struct ibf_routes *r = n->r;
	const struct ibf_endport *src = &n->host[a], *dst = &n->host[b];
	const struct ibf_port *dp = ibf_port(f, dst->node, dst->port);
	uint32_t L = 1u << dp->lmc;
	if (!dp->lid || max < 2 || !r)
		return -1;
	uint32_t dlid = dp->lid + (layer < L ? layer : L - 1);
	if (dlid > r->max_lid)
		return -1;
	int k = 0;
	links[k++] = n->up[a];
	uint32_t s = src->sw;
	for (uint32_t steps = 0; steps <= r->nsw; steps++) {
		uint8_t port = ibf_lft(r, s)[dlid];
		int node = f->switches[s];
		if (port == IBF_LFT_NONE || port == 0 || port > f->nodes[node].nports)
			return -1;
		const struct ibf_port *pp = ibf_port(f, node, port);
		if (pp->peer_node == IBF_NO_NODE || k >= max)
			return -1;
		links[k++] = f->nodes[node].port_off + port;
		if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH)
			return pp->peer_node == dst->node && pp->peer_port == dst->port ? k : -1;
		s = (uint32_t)f->nodes[pp->peer_node].sw;
	}
	return -1; /* loop */
}

/* ------------------------------------------------------------ placement */

void ibf_sim_placement_free(struct ibf_sim_placement *pl)
{
	if (pl) {
		free(pl->host);
		memset(pl, 0, sizeof(*pl));
	}
}


/* a host token: node name, description, its first word, a node GUID or
 * the port GUID of a host port (with :PORT, that port's number) */
static int find_host(const struct ibf_sim_net *n, const char *tok, long port, int *dup)
{
	int gport;
	int node = ibf_fabric_find_name_dup(n->f, tok, &gport, dup);
	if (node < 0 || *dup >= 0)
		return -1;
	if (gport >= 0) { /* a port GUID names its port */
		if (port >= 0 && gport != port)
			return -2;
		port = gport;
	}
	for (uint32_t h = 0; h < n->nhosts; h++)
		if (n->host[h].node == node && (port < 0 || n->host[h].port == port))
			return (int)h;
	/* a port left out of the hosts as part of its switch (ibf_end_ports) */
	for (int p = 1; p <= n->f->nodes[node].nports; p++)
		if ((port < 0 || p == port) && ibf_ca_in_switch(n->f, node, p))
			return -3;
	return -2;
}

int sim_host_token(const struct ibf_sim_net *n, char *tok, const char *path, unsigned line,
		   struct ibf_error *err)
{
	long port = -1;
	char *colon = strrchr(tok, ':');
	if (colon) {
		char *end;
		port = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || port < 1 || port > IBF_MAX_PORTS)
			return ibf_error_set(err, IBF_EPARSE, path, line, "bad port in \"%s\"",
					     tok);
		*colon = 0;
	}
	int dup = -1;
	int h = find_host(n, tok, port, &dup);
	if (dup >= 0) {
		/* the two nodes first in canonical order (not in the file's) */
		int first = ibf_fabric_find_name_dup(n->f, tok, NULL, &dup);
		return ibf_error_set(err, IBF_EPARSE, path, line,
				     "host \"%s\" is not unique: it names 0x%016llx and 0x%016llx "
				     "(maybe more); give a port GUID or a rank",
				     tok, (unsigned long long)ibf_node_some_guid(n->f, first),
				     (unsigned long long)ibf_node_some_guid(n->f, dup));
	}
	if (h < 0)
		return ibf_error_set(err, IBF_EPARSE, path, line,
				     h == -1 ? "unknown host \"%s\""
				     : h == -3
					     ? "\"%s\" is a CA inside its switch (its system image "
					       "GUID: a SHARP aggregation node), no host of the "
					       "traffic"
					     : "host \"%s\" has no such port cabled to a switch",
				     tok);
	return h;
}

int ibf_sim_place_parse(const struct ibf_sim_net *n, const char *buf, size_t len, const char *path,
			struct ibf_sim_placement *pl, struct ibf_error *err)
{
	memset(pl, 0, sizeof(*pl));
	pl->ppn = 1;
	int rc = 0;
	uint32_t cap = 64, maxr = 0, cnt = 0;
	int32_t *host = malloc(cap * sizeof(int32_t));
	if (!host)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t i = 0; i < cap; i++)
		host[i] = -1;
	struct ibf_lines it;
	ibf_lines_init(&it, buf, len);
	char tmp[512], tok[256];
	int got;
	while (!rc && (got = ibf_lines_next_text(&it, tmp, sizeof(tmp), NULL, path, err)) != 0) {
		if (got < 0) {
			rc = got;
			break;
		}
		char *p = tmp;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		char *end;
		unsigned long rank = strtoul(p, &end, 10);
		if (end == p || !isspace((unsigned char)*end) || rank > 10000000ul) {
			rc = ibf_error_set(err, IBF_EPARSE, path, it.lineno,
					   "expected \"RANK HOST[:PORT]\"");
			break;
		}
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		size_t tl = strcspn(p, " \t\r");
		if (!tl || tl >= sizeof(tok) || p[tl + strspn(p + tl, " \t\r")]) {
			rc = ibf_error_set(err, IBF_EPARSE, path, it.lineno,
					   "expected \"RANK HOST[:PORT]\"");
			break;
		}
		memcpy(tok, p, tl);
		tok[tl] = 0;
		int h = sim_host_token(n, tok, path, it.lineno, err);
		if (h < 0) {
			rc = h;
			break;
		}
		if (rank >= cap) {
			uint32_t nc = cap;
			while (nc <= rank)
				nc *= 2;
			int32_t *nh = realloc(host, nc * sizeof(int32_t));
			if (!nh) {
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
				break;
			}
			for (uint32_t i = cap; i < nc; i++)
				nh[i] = -1;
			host = nh;
			cap = nc;
		}
		if (host[rank] >= 0) {
			rc = ibf_error_set(err, IBF_EPARSE, path, it.lineno,
					   "rank %lu placed twice", rank);
			break;
		}
		host[rank] = h;
		cnt++;
		if (rank + 1 > maxr)
			maxr = (uint32_t)rank + 1;
	}
	if (!rc && cnt == 0)
		rc = ibf_error_set(err, IBF_EPARSE, path, 0, "no ranks placed");
	if (!rc && cnt != maxr)
		rc = ibf_error_set(err, IBF_EPARSE, path, 0,
				   "ranks must be 0..%u without gaps (%u placed)", maxr - 1, cnt);
	if (rc) {
		free(host);
		return rc;
	}
	pl->nranks = maxr;
	pl->host = (uint32_t *)host;
	return 0;
}

static int place_file(const struct ibf_sim_net *n, const char *path, struct ibf_sim_placement *pl,
		      struct ibf_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_sim_place_parse(n, buf, len, path, pl, err);
	free(buf);
	return rc;
}

int ibf_sim_place(const struct ibf_sim_net *n, int how, uint32_t nranks, uint32_t ppn,
		  uint64_t seed, const char *file, struct ibf_sim_placement *pl,
		  struct ibf_error *err)
{
	memset(pl, 0, sizeof(*pl));
	if (ppn < 1)
		ppn = 1;
	pl->ppn = ppn;
	if (how == IBF_PLACE_FILE) {
		int rc = place_file(n, file, pl, err);
		if (rc)
			return rc;
		pl->ppn = ppn;
		if (nranks && nranks != pl->nranks) {
			ibf_sim_placement_free(pl);
			return ibf_error_set(err, IBF_EINVAL, file, 0,
					     "the file places %u ranks, %u asked for", pl->nranks,
					     nranks);
		}
		return 0;
	}
	uint64_t slots = (uint64_t)n->nhosts * ppn;
	if (!nranks)
		nranks = (uint32_t)(slots > UINT32_MAX ? UINT32_MAX : slots);
	if (!nranks)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "the fabric has no host ports");
	if (nranks > slots)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "%u ranks do not fit %u host ports x %u processes per node",
				     nranks, n->nhosts, ppn);
	uint32_t *slot = malloc(slots * sizeof(uint32_t));
	pl->host = malloc((size_t)nranks * sizeof(uint32_t));
	if (!slot || !pl->host) {
		free(slot);
		ibf_sim_placement_free(pl);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint64_t i = 0; i < slots; i++)
		slot[i] = (uint32_t)(i / ppn);
	if (how == IBF_PLACE_RANDOM) {
		uint64_t st = seed ^ 0x9e3779b97f4a7c15ull;
		for (uint64_t i = slots; i > 1; i--) {
			uint64_t j = ibf_rand_below(&st, i);
			uint32_t t = slot[i - 1];
			slot[i - 1] = slot[j];
			slot[j] = t;
		}
	}
	memcpy(pl->host, slot, (size_t)nranks * sizeof(uint32_t));
	free(slot);
	pl->nranks = nranks;
	return 0;
}

/* ------------------------------------------------------------ layer policies */

int ibf_sim_layers_parse(const char *s, struct ibf_sim_layer_policy *lp, struct ibf_error *err)
{
	memset(lp, 0, sizeof(*lp));
	lp->seed = 1;
	lp->msg_bytes = 65536;
	if (!strcmp(s, "rr"))
		lp->how = IBF_LAYERS_RR;
	else if (!strcmp(s, "hash"))
		lp->how = IBF_LAYERS_HASH;
	else if (!strcmp(s, "random"))
		lp->how = IBF_LAYERS_RANDOM;
	else if (!strcmp(s, "split"))
		lp->how = IBF_LAYERS_SPLIT;
	else if (!strncmp(s, "layer:", 6)) {
		char *end = NULL;
		/* digits only: strtoul would take " 3", "+3" and wrap "-1" */
		unsigned long j = isdigit((unsigned char)s[6]) ? strtoul(s + 6, &end, 10) : 0;
		if (!end || *end || j > 127)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "layer policy \"%s\": J must be 0..127", s);
		lp->how = IBF_LAYERS_FIXED;
		lp->layer = (uint32_t)j;
	} else {
		return ibf_error_set(
			err, IBF_EINVAL, NULL, 0,
			"unknown layer policy \"%s\" (rr, hash, random, split, layer:J)", s);
	}
	return 0;
}
