/* Packet-level simulator: text and JSON reports of a run. */
#include "ibf_sim_packet.h"
#include "ibf_fattree.h"

static const char *const comp_names[7] = {
	"src-acc", "src-net", "src-nic-agg", "fabric", "dst-nic-split", "dst-net", "dst-acc",
};

static const char *node_name(const struct ibf_fabric *f, int32_t n)
{
	const struct ibf_node *nd = &f->nodes[n];
	return nd->desc ? nd->desc : nd->id ? nd->id : "?";
}

void ibf_psim_result_write_text(const struct ibf_fabric *f, const struct ibf_psim_result *res,
				int vls, FILE *out)
{
	fprintf(out, "hosts %u (%.0f Gb/s injection capacity), simulated %.1f us\n", res->nhosts,
		res->host_gbps, res->sim_ns / 1000.0);
	if (res->in_switch)
		fprintf(out, "note: %u " IBF_IN_SWITCH_NOTE "\n", res->in_switch);
	if (res->assumed_links)
		fprintf(out,
			"note: %u cabled ports of unknown width/speed run at the fabric's most "
			"common rate\n",
			res->assumed_links);
	fprintf(out, "offered %.4f, accepted %.4f of capacity (%.1f Gb/s payload)\n",
		res->offered_frac, res->accepted_frac, res->accepted_gbps);
	if (res->measured_done)
		fprintf(out, "latency ns: mean %.1f p50 %.1f p99 %.1f max %.1f; switch hops %.2f\n",
			res->lat_mean, res->lat_p50, res->lat_p99, res->lat_max, res->hops_mean);
	else /* no latency to give, rather than 0 ns */
		fprintf(out, "latency ns: none (no measured packet delivered)\n");
	fprintf(out, "packets: generated %llu, source-dropped %llu, unroutable %llu",
		(unsigned long long)res->generated, (unsigned long long)res->src_dropped,
		(unsigned long long)res->unroutable);
	if (res->unroutable_vl) /* say why: the tables, or --vls too small for them */
		fprintf(out, " (%llu for a VL >= %d in the SL2VL tables)",
			(unsigned long long)res->unroutable_vl, vls);
	fprintf(out, ", delivered %llu; measured %llu, of those delivered %llu\n",
		(unsigned long long)res->delivered, (unsigned long long)res->measured,
		(unsigned long long)res->measured_done);
	fprintf(out, "switch-link utilisation by VL:");
	for (int v = 0; v < vls && v < 16; v++)
		fprintf(out, " %d:%.3f", v, res->vl_util[v]);
	fprintf(out, "; busiest link %.3f\n", res->link_util_max);
	fprintf(out, "credit stalls %llu (packets stalled %llu)\n",
		(unsigned long long)res->credit_stalls, (unsigned long long)res->stalled_pkts);
	fprintf(out, "events %llu, packet hops %llu, %.3f s wall, %.3g hops/s\n",
		(unsigned long long)res->events, (unsigned long long)res->pkt_hops, res->wall_s,
		res->wall_s > 0 ? (double)res->pkt_hops / res->wall_s : 0.0);
	if (res->node_max_gbps > 0) {
		double tot = res->intra_gbps + res->inter_gbps;
		fprintf(out,
			"node model: accepted %.1f Gb/s = %.4f of %.0f (intra-node %.1f, inter-node "
			"%.1f); %.2f intra-node packets per fabric packet\n",
			tot, tot / res->node_max_gbps, res->node_max_gbps, res->intra_gbps,
			res->inter_gbps, res->agg_mean);
		fprintf(out, "  intra-node packets: measured %llu, delivered %llu; ",
			(unsigned long long)res->ipkts_measured,
			(unsigned long long)res->ipkts_done);
		if (res->ipkts_done)
			fprintf(out, "latency ns mean %.1f p50 %.1f p99 %.1f\n", res->ilat_mean,
				res->ilat_p50, res->ilat_p99);
		else
			fprintf(out, "latency ns none\n");
		fprintf(out, "  inter-node components ns:");
		for (int k = 0; k < 7 && res->n_inter; k++)
			fprintf(out, " %s %.1f", comp_names[k], res->comp_inter[k]);
		if (res->n_intra)
			fprintf(out,
				"%s\n  intra-node components ns: src-acc %.1f intra-net %.1f\n",
				res->n_inter ? "" : " none", res->comp_intra[0],
				res->comp_intra[1]);
		else
			fprintf(out, "%s\n  intra-node components ns: none\n",
				res->n_inter ? "" : " none");
	}
	if (!res->deadlock) {
		fprintf(out, "deadlock: none\n");
		return;
	}
	if (res->deadlock_end)
		fprintf(out,
			"DEADLOCK at %.1f us: %llu packets in switch buffers, a cycle of them "
			"can never move again (found at the end of the run);\n",
			res->deadlock_ns / 1000.0, (unsigned long long)res->deadlock_pkts);
	else if (res->deadlock_partial)
		fprintf(out,
			"DEADLOCK at %.1f us: %llu packets in switch buffers, a cycle of them "
			"can never move again (found while other packets still moved);\n",
			res->deadlock_ns / 1000.0, (unsigned long long)res->deadlock_pkts);
	else
		fprintf(out,
			"DEADLOCK at %.1f us: %llu packets in switch buffers, nothing moved;\n",
			res->deadlock_ns / 1000.0, (unsigned long long)res->deadlock_pkts);
	if (!res->cycle_len) {
		fprintf(out, "  no cycle of credit waits found (blocked elsewhere)\n");
		return;
	}
	/* the whole cycle's length, not the listed part's (a ring of 80
	 * switches read "cycle of 64 input buffers") */
	uint32_t total = res->cycle_total > res->cycle_len ? res->cycle_total : res->cycle_len;
	if (total > res->cycle_len)
		fprintf(out,
			"  cycle of %u input buffers, each waiting for credits of the next (the "
			"first %u listed):\n",
			total, res->cycle_len);
	else
		fprintf(out, "  cycle of %u input buffers, each waiting for credits of the next:\n",
			total);
	for (uint32_t k = 0; k < res->cycle_len; k++) {
		const struct ibf_psim_buf *b = &res->cycle[k];
		fprintf(out, "  '%s'/%u -> '%s'/%u VL %u (%u packets)\n",
			node_name(f, b->from_node), b->from_port, node_name(f, b->node), b->port,
			b->vl, b->pkts);
	}
}

void ibf_psim_result_write_json(const struct ibf_fabric *f, const struct ibf_psim_result *res,
				int vls, FILE *out)
{
	fprintf(out,
		"{\"hosts\":%u,\"in_switch\":%u,\"host_gbps\":%.3f,\"assumed_links\":%u,\"sim_ns\":%.1f,"
		"\"offered\":%.6f,\"accepted\":%.6f,\"accepted_gbps\":%.3f,",
		res->nhosts, res->in_switch, res->host_gbps, res->assumed_links, res->sim_ns, res->offered_frac,
		res->accepted_frac, res->accepted_gbps);
	if (res->measured_done)
		fprintf(out,
			"\"latency_ns\":{\"mean\":%.2f,\"p50\":%.2f,\"p99\":%.2f,\"max\":%.2f},"
			"\"hops_mean\":%.4f,",
			res->lat_mean, res->lat_p50, res->lat_p99, res->lat_max, res->hops_mean);
	else /* no measured packet delivered: no latency, rather than 0 ns */
		fprintf(out, "\"latency_ns\":null,\"hops_mean\":null,");
	fprintf(out,
		"\"packets\":{\"generated\":%llu,\"src_dropped\":%llu,\"unroutable\":%llu,"
		"\"unroutable_vl\":%llu,\"delivered\":%llu,\"measured\":%llu,"
		"\"measured_delivered\":%llu},",
		(unsigned long long)res->generated, (unsigned long long)res->src_dropped,
		(unsigned long long)res->unroutable, (unsigned long long)res->unroutable_vl,
		(unsigned long long)res->delivered, (unsigned long long)res->measured,
		(unsigned long long)res->measured_done);
	fprintf(out, "\"vl_util\":[");
	for (int v = 0; v < vls && v < 16; v++)
		fprintf(out, "%s%.6f", v ? "," : "", res->vl_util[v]);
	fprintf(out, "],\"link_util_max\":%.6f,\"credit_stalls\":%llu,\"stalled_packets\":%llu,",
		res->link_util_max, (unsigned long long)res->credit_stalls,
		(unsigned long long)res->stalled_pkts);
	fprintf(out, "\"events\":%llu,\"packet_hops\":%llu,\"wall_s\":%.4f,",
		(unsigned long long)res->events, (unsigned long long)res->pkt_hops, res->wall_s);
	if (res->node_max_gbps > 0) {
		fprintf(out,
			"\"node\":{\"max_gbps\":%.1f,\"intra_gbps\":%.3f,\"inter_gbps\":%.3f,"
			"\"accepted\":%.6f,\"ipkts_measured\":%llu,\"ipkts_delivered\":%llu,"
			"\"latency_ns\":",
			res->node_max_gbps, res->intra_gbps, res->inter_gbps,
			(res->intra_gbps + res->inter_gbps) / res->node_max_gbps,
			(unsigned long long)res->ipkts_measured,
			(unsigned long long)res->ipkts_done);
		if (res->ipkts_done)
			fprintf(out, "{\"mean\":%.2f,\"p50\":%.2f,\"p99\":%.2f}", res->ilat_mean,
				res->ilat_p50, res->ilat_p99);
		else
			fprintf(out, "null");
		fprintf(out, ",\"per_fabric_packet\":%.3f,\"components_inter_ns\":%s",
			res->agg_mean, res->n_inter ? "{" : "null");
		for (int k = 0; k < 7 && res->n_inter; k++)
			fprintf(out, "%s\"%s\":%.2f%s", k ? "," : "", comp_names[k],
				res->comp_inter[k], k == 6 ? "}" : "");
		if (res->n_intra)
			fprintf(out,
				",\"components_intra_ns\":{\"src-acc\":%.2f,\"intra-net\":%.2f}},",
				res->comp_intra[0], res->comp_intra[1]);
		else
			fprintf(out, ",\"components_intra_ns\":null},");
	}
	fprintf(out, "\"deadlock\":");
	if (!res->deadlock) {
		fprintf(out, "null}");
		return;
	}
	fprintf(out,
		"{\"at_ns\":%.1f,\"packets\":%llu,\"partial\":%s,\"at_end\":%s,"
		"\"cycle_buffers\":%u,\"cycle\":[",
		res->deadlock_ns, (unsigned long long)res->deadlock_pkts,
		res->deadlock_partial ? "true" : "false", res->deadlock_end ? "true" : "false",
		res->cycle_total > res->cycle_len ? res->cycle_total : res->cycle_len);
	for (uint32_t k = 0; k < res->cycle_len; k++) {
		const struct ibf_psim_buf *b = &res->cycle[k];
		fprintf(out, "%s{\"from\":", k ? "," : "");
		ibf_json_str(out, node_name(f, b->from_node));
		fprintf(out, ",\"from_port\":%u,\"to\":", b->from_port);
		ibf_json_str(out, node_name(f, b->node));
		fprintf(out, ",\"to_port\":%u,\"vl\":%u,\"packets\":%u}", b->port, b->vl, b->pkts);
	}
	fprintf(out, "]}}");
}
