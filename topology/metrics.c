/* Graph metrics over the switch graph: BFS, components, summary stats. */
#include "ibf_topology.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void ibf_bfs(const struct ibf_fabric *f, uint32_t src, uint32_t *dist, uint32_t *queue)
{
	for (uint32_t i = 0; i < f->nsw; i++)
		dist[i] = IBF_DIST_INF;
	uint32_t head = 0, tail = 0;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
			uint32_t v = f->adj[k].nbr;
			if (dist[v] == IBF_DIST_INF) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
}

uint32_t ibf_components(const struct ibf_fabric *f, uint32_t *comp)
{
	uint32_t nc = 0;
	uint32_t *queue = malloc((f->nsw ? f->nsw : 1) * sizeof(*queue));
	if (!queue)
		return 0;
	for (uint32_t i = 0; i < f->nsw; i++)
		comp[i] = UINT32_MAX;
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (comp[s] != UINT32_MAX)
			continue;
		uint32_t head = 0, tail = 0;
		comp[s] = nc;
		queue[tail++] = s;
		while (head < tail) {
			uint32_t u = queue[head++];
			for (uint32_t k = f->adj_off[u]; k < f->adj_off[u + 1]; k++) {
				uint32_t v = f->adj[k].nbr;
				if (comp[v] == UINT32_MAX) {
					comp[v] = nc;
					queue[tail++] = v;
				}
			}
		}
		nc++;
	}
	free(queue);
	return nc;
}

struct bfs_job {
	const struct ibf_fabric *f;
	uint32_t first, step;
	uint32_t diameter;
	int disconnected;
	uint64_t sum, pairs;
	int failed;
};

static void *bfs_worker(void *arg)
{
	struct bfs_job *j = arg;
	const struct ibf_fabric *f = j->f;
	uint32_t *dist = malloc(f->nsw * sizeof(*dist));
	uint32_t *queue = malloc(f->nsw * sizeof(*queue));
	if (!dist || !queue) {
		j->failed = 1;
		free(dist);
		free(queue);
		return NULL;
	}
	for (uint32_t s = j->first; s < f->nsw; s += j->step) {
		ibf_bfs(f, s, dist, queue);
		for (uint32_t t = 0; t < f->nsw; t++) {
			if (t == s)
				continue;
			if (dist[t] == IBF_DIST_INF) {
				j->disconnected = 1;
				continue;
			}
			if (dist[t] > j->diameter)
				j->diameter = dist[t];
			j->sum += dist[t];
			j->pairs++;
		}
	}
	free(dist);
	free(queue);
	return NULL;
}

int ibf_fabric_stats(const struct ibf_fabric *f, struct ibf_stats *st, int threads,
		     struct ibf_error *err)
{
	memset(st, 0, sizeof(*st));
	if (!f->finalized)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "fabric not finalized");
	st->min_degree = UINT32_MAX;
	st->min_hosts_per_switch = UINT32_MAX;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH)
			st->nswitches++;
		else if (n->type == IBF_NODE_CA)
			st->ncas++;
		else
			st->nrouters++;
		if (n->type != IBF_NODE_SWITCH) {
			for (int p = 1; p <= n->nports; p++)
				if (ibf_port(f, (int)i, p)->peer_node != IBF_NO_NODE)
					st->ca_ports_connected++;
		}
	}
	struct ibf_degraded *dl;
	uint32_t ndl;
	if (ibf_find_degraded(f, &dl, &ndl, err))
		return err ? err->code : IBF_ENOMEM;
	st->degraded_links = ibf_degr_counts(dl, ndl, &st->grade_links);
	free(dl);
	/* cables between two end nodes (adapters back to back): no switch
	 * forwards over them, so they are in no other count */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		if (n->type == IBF_NODE_SWITCH)
			continue;
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE ||
			    f->nodes[pp->peer_node].type == IBF_NODE_SWITCH)
				continue;
			if ((uint32_t)pp->peer_node > i ||
			    ((uint32_t)pp->peer_node == i && pp->peer_port > p))
				st->adapter_links++;
		}
	}
	/* degrees, links, parallel links, host counts */
	for (uint32_t s = 0; s < f->nsw; s++) {
		int node = f->switches[s];
		const struct ibf_node *n = &f->nodes[node];
		uint32_t deg = f->adj_off[s + 1] - f->adj_off[s];
		if (deg > st->max_degree)
			st->max_degree = deg;
		if (deg < st->min_degree)
			st->min_degree = deg;
		uint32_t hosts = 0;
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, node, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			if (pp->peer_node == node) {
				if (p < pp->peer_port)
					st->loopback_links++;
			} else if (f->nodes[pp->peer_node].type != IBF_NODE_SWITCH) {
				hosts++;
				st->host_links++;
			}
		}
		if (hosts > st->max_hosts_per_switch)
			st->max_hosts_per_switch = hosts;
		if (hosts < st->min_hosts_per_switch)
			st->min_hosts_per_switch = hosts;
		/* parallel links: neighbours already seen at a lower port */
		for (uint32_t k = f->adj_off[s]; k < f->adj_off[s + 1]; k++) {
			uint32_t v = f->adj[k].nbr;
			int first = 1;
			for (uint32_t k2 = f->adj_off[s]; k2 < k; k2++)
				if (f->adj[k2].nbr == v) {
					first = 0;
					break;
				}
			if (v > s) {
				st->sw_links++;
				if (first)
					st->sw_pairs_linked++;
				else
					st->parallel_links++;
			}
		}
	}
	if (st->min_degree == UINT32_MAX)
		st->min_degree = 0;
	if (st->min_hosts_per_switch == UINT32_MAX)
		st->min_hosts_per_switch = 0;
	st->degree_hist = calloc(st->max_degree + 1, sizeof(*st->degree_hist));
	if (!st->degree_hist)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t s = 0; s < f->nsw; s++)
		st->degree_hist[f->adj_off[s + 1] - f->adj_off[s]]++;

	uint32_t *comp = malloc((f->nsw ? f->nsw : 1) * sizeof(*comp));
	if (!comp)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	st->components = ibf_components(f, comp);
	free(comp);

	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;
	if ((uint32_t)threads > f->nsw)
		threads = f->nsw ? (int)f->nsw : 1;
	struct bfs_job jobs[64];
	pthread_t tids[64];
	int started[64] = { 0 };
	for (int t = 0; t < threads; t++) {
		memset(&jobs[t], 0, sizeof(jobs[t]));
		jobs[t].f = f;
		jobs[t].first = (uint32_t)t;
		jobs[t].step = (uint32_t)threads;
		if (t > 0 && pthread_create(&tids[t], NULL, bfs_worker, &jobs[t]) == 0)
			started[t] = 1;
	}
	bfs_worker(&jobs[0]);
	for (int t = 1; t < threads; t++) {
		if (started[t])
			pthread_join(tids[t], NULL);
		else
			bfs_worker(&jobs[t]);
	}
	uint64_t sum = 0, pairs = 0;
	int disc = 0;
	for (int t = 0; t < threads; t++) {
		if (jobs[t].failed)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		if (jobs[t].diameter > st->diameter)
			st->diameter = jobs[t].diameter;
		sum += jobs[t].sum;
		pairs += jobs[t].pairs;
		disc |= jobs[t].disconnected;
	}
	if (disc)
		st->diameter = IBF_DIST_INF;
	st->avg_distance = pairs ? (double)sum / (double)pairs : 0.0;
	return 0;
}

void ibf_stats_free(struct ibf_stats *st)
{
	free(st->degree_hist);
	st->degree_hist = NULL;
}
