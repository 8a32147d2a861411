/* Packet-level simulator: an SVG figure of a load sweep (docs/simulation.md).
 *
 * Two panels in one hand-written SVG document: accepted throughput against
 * the offered load (one polyline per series: intra-node and inter-node Gb/s
 * and their sum with the node model, the accepted payload Gb/s without it),
 * and one stacked bar per load point of the seven mean latency components of
 * the packets that leave their node (without the node model: one bar of the
 * mean packet latency with its p99 as a tick).  Every plotted point and bar
 * segment carries its value in data-series / data-component, data-load and
 * data-value attributes, so a reader (or a test) can take the numbers back
 * out of the figure. */
#include "ibf_sim_packet.h"

#include <math.h>

#define SVG_W 930
#define PLOT_X 80
#define PLOT_W 560
#define LEG_X 670
#define TP_Y 50 /* throughput panel: top and height */
#define TP_H 260
#define LB_Y 400 /* latency panel */
#define LB_H 260
#define SVG_H 730

static const char *const comp_label[7] = {
	"source accelerator",	   "source intra-node network",
	"source NIC aggregation",  "fabric",
	"destination NIC split",   "destination intra-node network",
	"destination accelerator",
};
static const char *const comp_key[7] = {
	"src-acc", "src-net", "src-nic-agg", "fabric", "dst-nic-split", "dst-net", "dst-acc",
};
static const char *const comp_colour[7] = {
	"#4e79a7", "#76b7b2", "#f28e2b", "#e15759", "#edc948", "#59a14f", "#b07aa1",
};
static const char *const series_colour[3] = { "#1f77b4", "#d62728", "#333333" };

/* The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k at or above v (v > 0),
 * else 1: a y range with five round grid steps. */
static double nice_ceil(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1;
	double p = pow(10, floor(log10(v)));
	static const double step[] = { 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
	for (int k = 0; k < 10; k++)
		if (step[k] * p >= v * (1 - 1e-12))
			return step[k] * p;
	return 10 * p;
}

static void text_at(FILE *o, double x, double y, const char *anchor, const char *extra,
		    const char *s)
{
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
	ibf_xml_str(o, s);
	fputs("</text>\n", o);
}

/* Frame, horizontal grid and y labels of a panel with the range 0..ymax;
 * the y axis title turned on its side. */
static void panel(FILE *o, int top, int h, double ymax, const char *title, const char *ytitle)
{
	char b[48];
	text_at(o, PLOT_X + PLOT_W / 2.0, top - 12, "middle", " font-size=\"14\"", title);
	for (int k = 0; k <= 5; k++) {
		double y = top + h - (double)h * k / 5;
		fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			PLOT_X, y, PLOT_X + PLOT_W, y, k ? "#e0e0e0" : "black");
		snprintf(b, sizeof(b), "%.7g", ymax * k / 5);
		text_at(o, PLOT_X - 6, y + 4, "end", "", b);
	}
	fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", PLOT_X,
		top, PLOT_X, top + h);
	snprintf(b, sizeof(b), " transform=\"rotate(-90 18 %d)\"", top + h / 2);
	text_at(o, 18, top + h / 2.0, "middle", b, ytitle);
}

static void legend(FILE *o, int k, int top, const char *colour, int line, const char *s)
{
	double y = top + 8 + 20.0 * k;
	if (line)
		fprintf(o,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"%s/>\n",
			LEG_X, y, LEG_X + 18, y, colour,
			line > 1 ? " stroke-dasharray=\"5,4\"" : "");
	else
		fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n",
			LEG_X + 2, y - 6, colour);
	text_at(o, LEG_X + 24, y + 4, "start", "", s);
}

/* 2. stacked latency components per load point (node model), else the
 * mean latency with p99 as a tick. */
static void latency_panel(FILE *o, const double *load, const struct ibf_psim_result *res, int n,
			  int node)
{
	double ymax = 0;
	for (int k = 0; k < n; k++) {
		double t = 0;
		if (node)
			for (int c = 0; c < 7; c++)
				t += res[k].comp_inter[c];
		else
			t = res[k].lat_p99 > res[k].lat_mean ? res[k].lat_p99 : res[k].lat_mean;
		if (t > ymax)
			ymax = t;
	}
	ymax = nice_ceil(ymax);
	fputs("<g id=\"latency\">\n", o);
	panel(o, LB_Y, LB_H, ymax,
	      node ? "mean latency components of the inter-node packets"
		   : "packet latency (bar: mean, tick: p99)",
	      "latency (ns)");
	double slot = n > 0 ? (double)PLOT_W / n : PLOT_W;
	double bw = slot * 0.7 > 48 ? 48 : slot * 0.7;
	int every = n > 14 ? (n + 13) / 14 : 1;
	for (int k = 0; k < n; k++) {
		double x = PLOT_X + slot * k + (slot - bw) / 2, base = 0;
		/* no bar where no measured packet arrived: a latency of 0 it is not */
		int nc = !(node ? res[k].n_inter : res[k].measured_done) ? 0 : node ? 7 : 1;
		for (int c = 0; c < nc; c++) {
			double v = node ? res[k].comp_inter[c] : res[k].lat_mean;
			double h = LB_H * v / ymax;
			double y = LB_Y + LB_H - LB_H * base / ymax - h;
			fprintf(o,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\" data-component=\"%s\" data-load=\"%.4f\" "
				"data-value=\"%.2f\"><title>load %.2f, %s: %.1f ns</title></rect>\n",
				x, y, bw, h, node ? comp_colour[c] : comp_colour[3],
				node ? comp_key[c] : "mean", load[k], v, load[k],
				node ? comp_label[c] : "mean latency", v);
			base += v;
		}
		if (!node && nc) {
			double y = LB_Y + LB_H - LB_H * res[k].lat_p99 / ymax;
			fprintf(o,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"black\" stroke-width=\"2\" data-component=\"p99\" "
				"data-load=\"%.4f\" data-value=\"%.2f\"/>\n",
				x, y, x + bw, y, load[k], res[k].lat_p99);
		}
		if (k % every == 0) {
			char b[16];
			snprintf(b, sizeof(b), "%.2f", load[k]);
			text_at(o, x + bw / 2, LB_Y + LB_H + 18, "middle", "", b);
		}
	}
	text_at(o, PLOT_X + PLOT_W / 2.0, LB_Y + LB_H + 36, "middle", "", "offered load");
	if (node)
		for (int c = 6; c >= 0; c--)
			legend(o, 6 - c, LB_Y, comp_colour[c], 0, comp_label[c]);
	else {
		legend(o, 0, LB_Y, comp_colour[3], 0, "mean");
		legend(o, 1, LB_Y, "black", 1, "p99");
	}
	fputs("</g>\n", o);
}

void ibf_psim_svg_write(FILE *o, const char *title, const double *load,
			const struct ibf_psim_result *res, int n)
{
	int node = n > 0 && res[0].node_max_gbps > 0;
	fprintf(o,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
		SVG_W, SVG_H, SVG_W, SVG_H, SVG_W, SVG_H);
	text_at(o, SVG_W / 2.0, 20, "middle", " font-size=\"15\" font-weight=\"bold\"",
		title ? title : "ibfab sim packet");

	/* 1. throughput against offered load: x axis 0..1 */
	int ns = node ? 3 : 1;
	static const char *const sname_node[3] = { "intra-node", "inter-node", "total" };
	double ymax = 0;
	for (int k = 0; k < n; k++) {
		double v = node ? res[k].intra_gbps + res[k].inter_gbps : res[k].accepted_gbps;
		double off = node ? load[k] * res[k].node_max_gbps : 0;
		if (v > ymax)
			ymax = v;
		if (off > ymax)
			ymax = off;
	}
	ymax = nice_ceil(ymax);
	fputs("<g id=\"throughput\">\n", o);
	panel(o, TP_Y, TP_H, ymax, "accepted throughput against offered load",
	      "accepted payload (Gb/s)");
	for (int k = 0; k <= 10; k++) {
		char b[16];
		double x = PLOT_X + PLOT_W * k / 10.0;
		snprintf(b, sizeof(b), "%.1f", k / 10.0);
		fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n",
			x, TP_Y + TP_H, x, TP_Y + TP_H + 4);
		text_at(o, x, TP_Y + TP_H + 18, "middle", "", b);
	}
	text_at(o, PLOT_X + PLOT_W / 2.0, TP_Y + TP_H + 36, "middle", "",
		node ? "offered load (fraction of the accelerator rate)"
		     : "offered load (fraction of the host link rate)");
#define XP(l) (PLOT_X + PLOT_W * (l))
#define YP(v) (TP_Y + TP_H - TP_H * (v) / ymax)
	if (node && n > 0) {
		/* what was offered: load x nodes x accels x rate */
		fprintf(o, "<polyline fill=\"none\" stroke=\"#999\" stroke-width=\"1.5\" "
			   "stroke-dasharray=\"5,4\" points=\"");
		for (int k = 0; k < n; k++)
			fprintf(o, "%s%.1f,%.1f", k ? " " : "", XP(load[k]),
				YP(load[k] * res[k].node_max_gbps));
		fputs("\"/>\n", o);
	}
	for (int s = 0; s < ns; s++) {
		const char *name = node ? sname_node[s] : "accepted";
		const char *col = series_colour[node ? s : 0];
		fprintf(o,
			"<polyline class=\"series\" data-series=\"%s\" fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"2\" points=\"",
			name, col);
		for (int k = 0; k < n; k++) {
			double v = !node    ? res[k].accepted_gbps
				   : s == 0 ? res[k].intra_gbps
				   : s == 1 ? res[k].inter_gbps
					    : res[k].intra_gbps + res[k].inter_gbps;
			fprintf(o, "%s%.1f,%.1f", k ? " " : "", XP(load[k]), YP(v));
		}
		fputs("\"/>\n", o);
		for (int k = 0; k < n; k++) {
			double v = !node    ? res[k].accepted_gbps
				   : s == 0 ? res[k].intra_gbps
				   : s == 1 ? res[k].inter_gbps
					    : res[k].intra_gbps + res[k].inter_gbps;
			fprintf(o,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" "
				"data-series=\"%s\" data-load=\"%.4f\" data-value=\"%.3f\">"
				"<title>%s at load %.2f: %.1f Gb/s</title></circle>\n",
				XP(load[k]), YP(v), col, name, load[k], v, name, load[k], v);
		}
	}
#undef XP
#undef YP
	for (int s = 0; s < ns; s++)
		legend(o, s, TP_Y, series_colour[node ? s : 0], 1,
		       node ? sname_node[s] : "accepted (payload)");
	if (node)
		legend(o, ns, TP_Y, "#999", 2, "offered");
	for (int k = 0; k < n; k++)
		if (res[k].deadlock) {
			text_at(o, PLOT_X + 10, TP_Y + 16, "start", " fill=\"#c00\"",
				"a run deadlocked: its figures stop at the detection");
			break;
		}
	fputs("</g>\n", o);

	latency_panel(o, load, res, n, node);
	fputs("</svg>\n", o);
}
