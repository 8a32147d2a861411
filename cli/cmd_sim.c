/* ibfab sim flow: flow-level simulation over forwarding tables (docs/sim.md). */
#include "cli.h"
#include "ibf_conf.h"
#include "ibf_sim.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char flow_help[] =
	"Usage: ibfab sim flow --topology F (--lfts DUMP | --engine E)... --pattern P...\n"
	"         [--lmc N] [--guid2lid F] [--conf F] [--seed S] [--threads N]\n"
	"         [--placement linear|random|FILE] [--ppn N] [--ranks N] [--layers POLICY]\n"
	"         [--bytes B] [--acc-gbps R] [--mat routing|any|both] [--mat-method gk|lp]\n"
	"         [--eps E] [--fluid-eps E] [--phases] [--json] [--svg DIR]\n"
	"Traces every flow of a traffic pattern through forwarding tables (an engine's,\n"
	"or dumps read back with dump_lfts / opensm-lfts.dump) and gives each its\n"
	"max-min fair rate over the links (width x speed, host links included).\n"
	"Several --lfts/--engine give one side-by-side table over the same pattern and\n"
	"placement.  Patterns: shift:C, shifts, perm[:K], a2a, a2a-phased, pairwise,\n"
	"cumulative, random-pairwise[:K], bisection[:K], ring, recdbl, bruck, bcast,\n"
	"hier, adversarial, mix:C1..C5 (definitions in docs/sim.md), and file:PATH:\n"
	"your own traffic, lines \"SRC DST BYTES [PHASE]\" with SRC/DST a rank (placed\n"
	"by --placement) or a host description, BYTES with an optional k/M/G suffix,\n"
	"PHASE an integer (default 0; phases run in increasing order); '#' comments\n"
	"(docs/formats.md).\n"
	"  --layers   rr (default), hash, random, split, layer:J: which of a\n"
	"             destination's 2^LMC LIDs a flow uses\n"
	"  --ppn      ranks per host port (they share its link); --ranks N uses N slots\n"
	"  --mat      maximum achievable throughput of the pattern's first phase: over\n"
	"             the tables' layer paths (routing), any path (any), or both;\n"
	"             gk = Garg-Koenemann bounds lo..hi, lp = exact (GLPK)\n"
	"  --fluid-eps flows that finish within this relative time of one another\n"
	"             are one event of the completion model (default 1e-9; at most\n"
	"             0.1): larger is faster and less exact when sizes differ\n"
	"  --phases   one line per phase; --json machine-readable; --svg DIR plots\n"
	"  --threads  workers of --engine and of tracing (at most 16 trace): 1..4096,\n"
	"             or 0 / auto for one per online CPU (also the default); results\n"
	"             never depend on it\n"
	"Exit 0, 1 on errors (undelivered flows, bad input), 2 on usage errors.\n";

#define MAXSRC 16
#define MAXPAT 16

struct src {
	const char *label;
	const char *lfts; /* or */
	const char *engine;
	struct ibf_routes r;
	struct ibf_sim_net net;
};

struct phase_row {
	struct ibf_sim_phase_result res;
	char label[48];
	uint32_t repeat;
	double bytes;
};

struct run {
	const struct ibf_sim_net *net;
	const struct ibf_sim_placement *pl;
	const struct ibf_sim_layer_policy *lp;
	int mat_routing, mat_any;
	struct ibf_mat_opts mo;
	struct phase_row *rows;
	uint32_t nrows, caprows;
	struct ibf_mat_result mat[2];
	int have_mat[2];
	double *rates; /* first phase's flow rates (for the CDF) */
	uint64_t nrates;
	double *load; /* first phase's link loads (for the histogram) */
	struct ibf_error *err;
	int failed;
};

static int on_phase(void *ctx, const struct ibf_sim_phase *ph, uint32_t index, uint32_t nphases)
{
	(void)nphases;
	struct run *u = ctx;
	if (u->nrows == u->caprows) {
		uint32_t nc = u->caprows ? u->caprows * 2 : 16;
		struct phase_row *nr = realloc(u->rows, nc * sizeof(*nr));
		if (!nr) {
			ibf_error_set(u->err, IBF_ENOMEM, NULL, 0, "out of memory");
			u->failed = 1;
			return 1;
		}
		u->rows = nr;
		u->caprows = nc;
	}
	struct phase_row *row = &u->rows[u->nrows];
	double *rates = NULL, *load = NULL;
	if (index == 0) {
		rates = malloc((ph->nflows ? ph->nflows : 1) * sizeof(double));
		load = malloc((u->net->nlinks ? u->net->nlinks : 1) * sizeof(double));
		if (!rates || !load) {
			free(rates);
			free(load);
			ibf_error_set(u->err, IBF_ENOMEM, NULL, 0, "out of memory");
			u->failed = 1;
			return 1;
		}
	}
	if (ibf_sim_maxmin_phase(u->net, u->pl, ph, u->lp, &row->res, rates, load, u->err)) {
		free(rates);
		free(load);
		u->failed = 1;
		return 1;
	}
	snprintf(row->label, sizeof(row->label), "%s", ph->label);
	row->repeat = ph->repeat;
	row->bytes = ph->bytes;
	u->nrows++;
	if (index == 0) {
		u->rates = rates;
		u->nrates = ph->nflows;
		u->load = load;
		/* no flow between host ports: nothing to bound (lambda would be
		 * infinite and the throughput 0 x inf) */
		for (int m = 0; m < 2 && row->res.flows; m++) {
			if (!(m ? u->mat_any : u->mat_routing))
				continue;
			struct ibf_mat_opts mo = u->mo;
			mo.mode = m ? IBF_MAT_ANY : IBF_MAT_ROUTING;
			if (ibf_sim_mat(u->net, u->pl, ph, &mo, &u->mat[m], u->err)) {
				u->failed = 1;
				return 1;
			}
			u->have_mat[m] = 1;
		}
	}
	return 0;
}

struct summary {
	double agg_mean, ratio_mean, ratio_min, time_us, mean_rate, min_rate, max_util;
	uint64_t flows, local;
};

static void summarize(const struct run *u, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->ratio_min = INFINITY;
	s->min_rate = INFINITY;
	uint32_t nr = 0;
	for (uint32_t i = 0; i < u->nrows; i++) {
		const struct ibf_sim_phase_result *r = &u->rows[i].res;
		s->flows += r->flows;
		s->local += r->local;
		if (!r->flows)
			continue;
		nr++;
		double ratio = r->inj_bound > 0 ? r->aggregate / r->inj_bound : 0;
		s->agg_mean += r->aggregate;
		s->ratio_mean += ratio;
		s->mean_rate += r->mean_rate;
		if (ratio < s->ratio_min)
			s->ratio_min = ratio;
		if (r->min_rate < s->min_rate)
			s->min_rate = r->min_rate;
		if (r->max_util > s->max_util)
			s->max_util = r->max_util;
		s->time_us += r->time_us * u->rows[i].repeat;
	}
	if (nr) {
		s->agg_mean /= nr;
		s->ratio_mean /= nr;
		s->mean_rate /= nr;
	} else {
		s->ratio_min = s->min_rate = 0;
	}
}

static void json_phase(const struct phase_row *row)
{
	const struct ibf_sim_phase_result *r = &row->res;
	printf("{\"label\": ");
	ibf_json_str(stdout, row->label);
	printf(", \"repeat\": %u, \"bytes\": %.17g, \"flows\": %llu, \"local\": %llu, "
	       "\"aggregate_gbps\": %.17g, \"injection_bound_gbps\": %.17g, \"min_gbps\": %.17g, "
	       "\"mean_gbps\": %.17g, \"median_gbps\": %.17g, \"max_gbps\": %.17g, "
	       "\"max_util\": %.17g, \"mean_util\": %.17g, \"max_host_util\": %.17g, "
	       "\"time_us\": %.17g, \"demand_gbps\": %.17g, \"fct_mean_us\": %.17g, "
	       "\"fct_p50_us\": %.17g, \"fct_p99_us\": %.17g, \"fluid_steps\": %llu}",
	       row->repeat, row->bytes, (unsigned long long)r->flows, (unsigned long long)r->local,
	       r->aggregate, r->inj_bound, r->min_rate, r->mean_rate, r->median_rate, r->max_rate,
	       r->max_util, r->mean_util, r->max_host_util, isfinite(r->time_us) ? r->time_us : -1,
	       r->demand_total, isfinite(r->fct_mean_us) ? r->fct_mean_us : -1,
	       isfinite(r->fct_p50_us) ? r->fct_p50_us : -1,
	       isfinite(r->fct_p99_us) ? r->fct_p99_us : -1, (unsigned long long)r->fluid_steps);
}

/* ------------------------------------------------------------ SVG */

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				       "#9467bd", "#8c564b", "#e377c2", "#7f7f7f" };

static void svg_open(FILE *o, const char *title, int w, int h)
{
	fprintf(o,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">",
		w, h, w / 2);
	ibf_xml_str(o, title);
	fputs("</text>\n", o);
}

static void svg_text(FILE *o, double x, double y, const char *anchor, const char *s)
{
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	ibf_xml_str(o, s);
	fputs("</text>\n", o);
}

/* axes with a y range 0..ymax; returns the plot box */
static void svg_axes(FILE *o, int x0, int y0, int w, int h, double ymax, const char *ylab,
		     const char *xlab)
{
	fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x0, y0, x0,
		y0 + h);
	fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x0, y0 + h,
		x0 + w, y0 + h);
	for (int k = 0; k <= 4; k++) {
		char b[32];
		double v = ymax * k / 4;
		snprintf(b, sizeof(b), "%.3g", v);
		double y = y0 + h - (double)h * k / 4;
		fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			x0, y, x0 + w, y);
		svg_text(o, x0 - 4, y + 4, "end", b);
	}
	svg_text(o, x0 + w / 2.0, y0 + h + 34, "middle", xlab);
	fprintf(o,
		"<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>\n",
		y0 + h / 2, y0 + h / 2, ylab);
}

static FILE *svg_file(const char *dir, const char *name, char *tmp, size_t tl, char *path,
		      size_t pl, struct ibf_error *err)
{
	snprintf(path, pl, "%s/%s", dir, name);
	snprintf(tmp, tl, "%s/.%s.tmp", dir, name);
	FILE *o = fopen(tmp, "w");
	if (!o)
		ibf_error_set(err, IBF_EIO, path, 0, "cannot write");
	return o;
}

static int svg_close(FILE *o, const char *tmp, const char *path, struct ibf_error *err)
{
	fputs("</svg>\n", o);
	if (fclose(o) != 0 || rename(tmp, path) != 0) {
		remove(tmp);
		return ibf_error_set(err, IBF_EIO, path, 0, "cannot write");
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* bars: per pattern, one bar per source (mean aggregate / injection bound);
 * CDF of the first phase's flow rates; link utilisation histogram; per-phase lines */
static int write_svgs(const char *dir, const struct src *srcs, int nsrc, struct run (*runs)[MAXSRC],
		      char (*patnames)[64], int npat, struct ibf_error *err)
{
	char tmp[4200], path[4200];
	/* 1. bars */
	FILE *o = svg_file(dir, "bars.svg", tmp, sizeof(tmp), path, sizeof(path), err);
	if (!o)
		return IBF_EIO;
	int W = 160 + npat * (nsrc * 28 + 30), H = 360;
	svg_open(o, "share of the injection bound (mean over phases)", W, H);
	svg_axes(o, 60, 40, W - 80, 240, 1.0, "aggregate / injection bound", "pattern");
	for (int p = 0; p < npat; p++) {
		double gx = 70 + p * (nsrc * 28 + 30);
		for (int s = 0; s < nsrc; s++) {
			struct summary sm;
			summarize(&runs[p][s], &sm);
			double v = sm.ratio_mean > 1 ? 1 : sm.ratio_mean, h = 240 * v;
			fprintf(o,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"%.1f\" fill=\"%s\">"
				"<title>",
				gx + s * 28, 280 - h, h, palette[s % 8]);
			ibf_xml_str(o, srcs[s].label);
			fprintf(o, " %.3f</title></rect>\n", sm.ratio_mean);
		}
		svg_text(o, gx + nsrc * 14, 296, "middle", patnames[p]);
	}
	for (int s = 0; s < nsrc; s++) {
		fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			70 + s * 150, 330, palette[s % 8]);
		svg_text(o, 86 + s * 150, 341, "start", srcs[s].label);
	}
	if (svg_close(o, tmp, path, err))
		return IBF_EIO;
	/* 2. CDF of flow rates, first pattern's first phase */
	o = svg_file(dir, "cdf.svg", tmp, sizeof(tmp), path, sizeof(path), err);
	if (!o)
		return IBF_EIO;
	double xmax = 0;
	for (int s = 0; s < nsrc; s++)
		for (uint64_t i = 0; i < runs[0][s].nrates; i++)
			if (runs[0][s].rates[i] > xmax)
				xmax = runs[0][s].rates[i];
	if (xmax <= 0)
		xmax = 1;
	svg_open(o, "CDF of flow rates (first phase)", 640, 400);
	svg_axes(o, 60, 40, 540, 280, 1.0, "share of flows", "flow rate (Gb/s)");
	for (int k = 0; k <= 4; k++) {
		char b[32];
		snprintf(b, sizeof(b), "%.3g", xmax * k / 4);
		svg_text(o, 60 + 540.0 * k / 4, 336, "middle", b);
	}
	for (int s = 0; s < nsrc; s++) {
		uint64_t m = runs[0][s].nrates;
		double *v = malloc((m ? m : 1) * sizeof(double));
		if (!v)
			break;
		uint64_t k = 0;
		for (uint64_t i = 0; i < m; i++)
			if (runs[0][s].rates[i] > 0)
				v[k++] = runs[0][s].rates[i];
		qsort(v, k, sizeof(double), cmp_double);
		fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			palette[s % 8]);
		uint64_t step = k > 400 ? k / 400 : 1;
		for (uint64_t i = 0; i < k; i += step)
			fprintf(o, "%.1f,%.1f ", 60 + 540 * v[i] / xmax,
				320 - 280.0 * (double)(i + 1) / k);
		if (k)
			fprintf(o, "%.1f,%.1f", 60 + 540 * v[k - 1] / xmax, 40.0);
		fputs("\"/>\n", o);
		svg_text(o, 80, 60 + 16 * s, "start", srcs[s].label);
		fprintf(o, "<rect x=\"66\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			51 + 16 * s, palette[s % 8]);
		free(v);
	}
	if (svg_close(o, tmp, path, err))
		return IBF_EIO;
	/* 3. link utilisation histogram (switch links, first phase) */
	o = svg_file(dir, "links.svg", tmp, sizeof(tmp), path, sizeof(path), err);
	if (!o)
		return IBF_EIO;
	svg_open(o, "switch link utilisation (first phase)", 640, 400);
	uint32_t hist[MAXSRC][10];
	uint32_t hmax = 1;
	memset(hist, 0, sizeof(hist));
	for (int s = 0; s < nsrc; s++) {
		const struct ibf_sim_net *n = &srcs[s].net;
		for (uint32_t e = 0; runs[0][s].load && e < n->nlinks; e++)
			if (n->kind[e] == 1 && n->cap[e] > 0) {
				double u = runs[0][s].load[e] / n->cap[e];
				int b = u >= 1 ? 9 : (int)(u * 10);
				if (++hist[s][b] > hmax)
					hmax = hist[s][b];
			}
	}
	svg_axes(o, 60, 40, 540, 280, hmax, "links", "utilisation (tenths)");
	for (int b = 0; b < 10; b++) {
		char lab[16];
		snprintf(lab, sizeof(lab), "%d%%", b * 10);
		svg_text(o, 60 + 54 * b + 27, 336, "middle", lab);
		for (int s = 0; s < nsrc; s++) {
			double h = 280.0 * hist[s][b] / hmax, bw = 48.0 / nsrc;
			fprintf(o,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
				63 + 54 * b + bw * s, 320 - h, bw, h, palette[s % 8]);
		}
	}
	if (svg_close(o, tmp, path, err))
		return IBF_EIO;
	/* 4. per-phase mean flow rate, first pattern */
	o = svg_file(dir, "phases.svg", tmp, sizeof(tmp), path, sizeof(path), err);
	if (!o)
		return IBF_EIO;
	svg_open(o, "mean flow rate per phase (first pattern)", 640, 400);
	double ymax = 0;
	uint32_t np = 1;
	for (int s = 0; s < nsrc; s++) {
		if (runs[0][s].nrows > np)
			np = runs[0][s].nrows;
		for (uint32_t i = 0; i < runs[0][s].nrows; i++)
			if (runs[0][s].rows[i].res.mean_rate > ymax)
				ymax = runs[0][s].rows[i].res.mean_rate;
	}
	if (ymax <= 0)
		ymax = 1;
	svg_axes(o, 60, 40, 540, 280, ymax, "Gb/s per flow", "phase");
	for (int s = 0; s < nsrc; s++) {
		fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			palette[s % 8]);
		for (uint32_t i = 0; i < runs[0][s].nrows; i++)
			fprintf(o, "%.1f,%.1f ", 60 + 540.0 * (np > 1 ? (double)i / (np - 1) : 0.5),
				320 - 280 * runs[0][s].rows[i].res.mean_rate / ymax);
		fputs("\"/>\n", o);
		svg_text(o, 80, 60 + 16 * s, "start", srcs[s].label);
		fprintf(o, "<rect x=\"66\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			51 + 16 * s, palette[s % 8]);
	}
	return svg_close(o, tmp, path, err) ? IBF_EIO : 0;
}

static void print_json(const char *topo, const char *place, const struct src *srcs, int nsrc,
		       struct run (*runs)[MAXSRC], char (*patnames)[64], int npat,
		       const struct ibf_sim_placement *pl)
{
	const struct ibf_sim_net *n0 = &srcs[0].net;
	printf("{\"topology\": ");
	ibf_json_str(stdout, topo);
	printf(", \"hosts\": %u, \"in_switch\": %u, \"ranks\": %u, \"ppn\": %u, \"placement\": ",
	       n0->nhosts, n0->in_switch, pl->nranks, pl->ppn);
	ibf_json_str(stdout, place);
	printf(", \"assumed_links\": %u, \"patterns\": [", n0->assumed);
	for (int p = 0; p < npat; p++) {
		printf("%s{\"pattern\": ", p ? ", " : "");
		ibf_json_str(stdout, patnames[p]);
		printf(", \"results\": [");
		for (int s = 0; s < nsrc; s++) {
			struct run *u = &runs[p][s];
			struct summary sm;
			summarize(u, &sm);
			printf("%s{\"source\": ", s ? ", " : "");
			ibf_json_str(stdout, srcs[s].label);
			printf(", \"kind\": \"%s\", \"flows\": %llu, \"local\": %llu, "
			       "\"mean_aggregate_gbps\": %.17g, \"mean_ratio\": %.17g, "
			       "\"min_ratio\": %.17g, \"mean_flow_gbps\": %.17g, \"time_us\": %.17g",
			       srcs[s].lfts ? "lfts" : "engine", (unsigned long long)sm.flows,
			       (unsigned long long)sm.local, sm.agg_mean, sm.ratio_mean,
			       sm.ratio_min, sm.mean_rate, isfinite(sm.time_us) ? sm.time_us : -1);
			for (int m = 0; m < 2; m++) {
				if (!u->have_mat[m])
					continue;
				const struct ibf_mat_result *M = &u->mat[m];
				printf(", \"mat_%s\": {\"lambda_lo\": %.17g, \"lambda_hi\": %.17g, "
				       "\"throughput_lo_gbps\": %.17g, \"throughput_hi_gbps\": %.17g, "
				       "\"host_bound\": %.17g, \"exact\": %s, \"phases\": %u}",
				       m ? "any" : "routing", M->lo, M->hi, M->throughput_lo,
				       M->throughput_hi,
				       isfinite(M->host_bound) ? M->host_bound : -1,
				       M->exact ? "true" : "false", M->phases);
			}
			printf(", \"phases\": [");
			for (uint32_t i = 0; i < u->nrows; i++) {
				if (i)
					printf(", ");
				json_phase(&u->rows[i]);
			}
			printf("]}");
		}
		printf("]}");
	}
	printf("]}\n");
}

static void print_text(const char *topo, const char *place, const struct src *srcs, int nsrc,
		       struct run (*runs)[MAXSRC], char (*patnames)[64], int npat,
		       const struct ibf_sim_placement *pl, const struct ibf_sim_layer_policy *lp,
		       double bytes, int mat_r, int mat_a, int phases)
{
	const struct ibf_sim_net *n0 = &srcs[0].net;
	printf("fabric %s: %u hosts (%s order), %u ranks (ppn %u, %s placement), layers %s\n", topo,
	       n0->nhosts, n0->order == IBF_CONG_ORDER_TREE ? "tree" : "fabric", pl->nranks,
	       pl->ppn, place,
	       lp->how == IBF_LAYERS_RR	      ? "rr"
	       : lp->how == IBF_LAYERS_HASH   ? "hash"
	       : lp->how == IBF_LAYERS_RANDOM ? "random"
	       : lp->how == IBF_LAYERS_SPLIT  ? "split"
					      : "fixed");
	if (n0->assumed)
		printf("note: %u cabled ports without width/speed, taken as %.1f Gb/s\n",
		       n0->assumed, n0->assumed_gbps);
	if (n0->in_switch)
		printf("note: %u " IBF_IN_SWITCH_NOTE "\n", n0->in_switch);
	for (int p = 0; p < npat; p++) {
		if (!strncmp(patnames[p], "file:", 5))
			printf("\npattern %s: %u phase(s), each flow's bytes from the file\n",
			       patnames[p], runs[p][0].nrows);
		else
			printf("\npattern %s: %u phase(s), %.3g bytes per flow\n", patnames[p],
			       runs[p][0].nrows, bytes);
		printf("%-24s %12s %8s %8s %10s %10s %8s %12s", "tables", "aggr Gb/s", "of inj",
		       "worst", "mean flow", "min flow", "max util", "time us");
		if (mat_r)
			printf(" %23s", "MAT routing Gb/s");
		if (mat_a || mat_r)
			printf(" %8s", "effic.");
		printf("\n");
		for (int s = 0; s < nsrc; s++) {
			struct run *u = &runs[p][s];
			struct summary sm;
			summarize(u, &sm);
			printf("%-24.24s %12.1f %8.3f %8.3f %10.3f %10.3f %8.3f %12.1f",
			       srcs[s].label, sm.agg_mean, sm.ratio_mean, sm.ratio_min,
			       sm.mean_rate, sm.min_rate, sm.max_util, sm.time_us);
			const struct ibf_mat_result *ref = mat_a   ? &runs[p][0].mat[1]
							   : mat_r ? &u->mat[0]
								   : NULL;
			if (mat_r) {
				char b[48];
				if (!u->have_mat[0])
					snprintf(b, sizeof(b), "-");
				else if (u->mat[0].exact)
					snprintf(b, sizeof(b), "%.1f", u->mat[0].throughput_lo);
				else
					snprintf(b, sizeof(b), "%.1f..%.1f",
						 u->mat[0].throughput_lo, u->mat[0].throughput_hi);
				printf(" %23s", b);
			}
			if (ref && u->nrows && ref->throughput_hi > 0)
				printf(" %8.3f", u->rows[0].res.aggregate / ref->throughput_hi);
			printf("\n");
			if (phases)
				for (uint32_t i = 0; i < u->nrows; i++) {
					const struct ibf_sim_phase_result *r = &u->rows[i].res;
					printf("    %-20.20s %12.1f %8.3f %8s %10.3f %10.3f %8.3f %12.1f%s\n",
					       u->rows[i].label, r->aggregate,
					       r->inj_bound > 0 ? r->aggregate / r->inj_bound : 0,
					       "", r->mean_rate, r->min_rate, r->max_util,
					       r->time_us * u->rows[i].repeat,
					       u->rows[i].repeat > 1 ? " (repeated)" : "");
				}
		}
		if (mat_a && !runs[p][0].have_mat[1]) {
			printf("MAT any path: none (phase 1 has no flow between host ports)\n");
		} else if (mat_a) {
			const struct ibf_mat_result *M = &runs[p][0].mat[1];
			printf("MAT any path (the topology's bound, phase 1): %s%.1f",
			       M->exact ? "" : "", M->throughput_lo);
			if (!M->exact)
				printf("..%.1f", M->throughput_hi);
			printf(" Gb/s (lambda %.4g%s, host links allow %.4g)\n", M->lo,
			       M->exact ? " exact" : " lower bound", M->host_bound);
		}
	}
	if (mat_a || mat_r)
		printf("\neffic. = aggregate of phase 1 / MAT (%s, upper value)\n",
		       mat_a ? "any path" : "routing");
}

/* ------------------------------------------------------------ the command */

enum {
	O_TOPO = 500,
	O_LFTS,
	O_ENGINE,
	O_PATTERN,
	O_LMC,
	O_G2L,
	O_CONF,
	O_SEED,
	O_THREADS,
	O_PLACE,
	O_PPN,
	O_RANKS,
	O_LAYERS,
	O_BYTES,
	O_ACC,
	O_MAT,
	O_MATM,
	O_EPS,
	O_FLUID_EPS,
	O_PHASES,
	O_JSON,
	O_SVG
};

static const struct option flow_lo[] = {
	{ "topology", required_argument, 0, O_TOPO },
	{ "lfts", required_argument, 0, O_LFTS },
	{ "engine", required_argument, 0, O_ENGINE },
	{ "pattern", required_argument, 0, O_PATTERN },
	{ "lmc", required_argument, 0, O_LMC },
	{ "guid2lid", required_argument, 0, O_G2L },
	{ "conf", required_argument, 0, O_CONF },
	{ "seed", required_argument, 0, O_SEED },
	{ "threads", required_argument, 0, O_THREADS },
	{ "placement", required_argument, 0, O_PLACE },
	{ "ppn", required_argument, 0, O_PPN },
	{ "ranks", required_argument, 0, O_RANKS },
	{ "layers", required_argument, 0, O_LAYERS },
	{ "bytes", required_argument, 0, O_BYTES },
	{ "acc-gbps", required_argument, 0, O_ACC },
	{ "mat", required_argument, 0, O_MAT },
	{ "mat-method", required_argument, 0, O_MATM },
	{ "eps", required_argument, 0, O_EPS },
	{ "fluid-eps", required_argument, 0, O_FLUID_EPS },
	{ "phases", no_argument, 0, O_PHASES },
	{ "json", no_argument, 0, O_JSON },
	{ "svg", required_argument, 0, O_SVG },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* What `sim flow` was asked for. */
struct flow_args {
	const char *topo, *g2l, *place, *svgdir;
	struct src srcs[MAXSRC];
	int nsrc, npat, json, phases;
	char patnames[MAXPAT][64];
	struct ibf_sim_pattern pats[MAXPAT];
	struct ibf_sim_layer_policy lp;
	struct ibf_conf conf;
	long lmc, ppn, ranks;
	double bytes, acc;
	uint64_t seed;
	int mat_r, mat_a, mat_opt;
	long threads; /* --threads resolved (0 / auto: per CPU), 0 when not given */
	struct ibf_mat_opts mo;
	double fluid_eps; /* 0: the simulator's default */
};

/* --lfts DUMP or --engine NAME: one more table source. */
static int flow_source(const char *prog, struct flow_args *a, int c)
{
	if (a->nsrc == MAXSRC)
		return cli_usage_error(prog, "at most %d tables", MAXSRC);
	struct src *sr = &a->srcs[a->nsrc];
	sr->label = optarg;
	if (c == O_LFTS && strrchr(optarg, '/') && strrchr(optarg, '/')[1])
		sr->label = strrchr(optarg, '/') + 1;
	if (c == O_LFTS)
		sr->lfts = optarg;
	else
		sr->engine = optarg;
	a->nsrc++;
	return 0;
}

/* The options about the maximum achievable throughput (--mat,
 * --mat-method, --eps). */
static int flow_mat_opt(const char *prog, struct flow_args *a, int c)
{
	switch (c) {
	case O_MAT:
		a->mat_r = !strcmp(optarg, "routing") || !strcmp(optarg, "both");
		a->mat_a = !strcmp(optarg, "any") || !strcmp(optarg, "both");
		if (!a->mat_r && !a->mat_a)
			return cli_usage_error(prog, "--mat must be routing, any or both");
		return 0;
	case O_MATM:
		a->mat_opt = 1;
		if (!strcmp(optarg, "gk"))
			a->mo.method = IBF_MAT_GK;
		else if (!strcmp(optarg, "lp"))
			a->mo.method = IBF_MAT_LP;
		else
			return cli_usage_error(prog, "--mat-method must be gk or lp");
		return 0;
	default: /* O_EPS */
		a->mat_opt = 1;
		if (ibf_num_double(optarg, strlen(optarg), 0.001, 0.4, &a->mo.eps))
			return cli_usage_error(prog, "--eps must be 0.001 .. 0.4");
		return 0;
	}
}

/* One option of `sim flow`: 0, 1 when help was printed, else an exit code. */
static int flow_opt(const char *prog, struct flow_args *a, int c)
{
	struct ibf_error err;
	ibf_error_clear(&err);
	switch (c) {
	case O_TOPO:
		a->topo = optarg;
		return 0;
	case O_LFTS:
	case O_ENGINE:
		return flow_source(prog, a, c);
	case O_PATTERN:
		if (a->npat == MAXPAT)
			return cli_usage_error(prog, "at most %d patterns", MAXPAT);
		if (ibf_sim_pattern_parse(optarg, &a->pats[a->npat], &err))
			return cli_usage_error(prog, "%s", err.msg);
		snprintf(a->patnames[a->npat], sizeof(a->patnames[a->npat]), "%s", optarg);
		a->npat++;
		return 0;
	case O_LMC:
		return cli_int("--lmc", optarg, 0, 7, &a->lmc) ? 2 : 0;
	case O_G2L:
		a->g2l = optarg;
		return 0;
	case O_CONF:
		return ibf_conf_read(optarg, &a->conf, &err) ? cli_fail(&err) : 0;
	case O_SEED:
		/* one reading for the engine (conf) and the placement and
		 * patterns: "010" was 8 here (octal) and 10 for the engine */
		if (ibf_conf_set(&a->conf, "seed", optarg, "--seed", &err))
			return cli_usage_error(prog, "%s", err.msg);
		a->seed = a->conf.seed;
		return 0;
	case O_THREADS:
		/* the engine's workers (--engine) and the tracing workers */
		if (cli_threads(prog, optarg, 4096, &a->threads))
			return 2;
		a->conf.threads = (int)a->threads;
		return 0;
	case O_PLACE:
		a->place = optarg;
		return 0;
	case O_PPN:
		return cli_int("--ppn", optarg, 1, 1024, &a->ppn) ? 2 : 0;
	case O_RANKS:
		return cli_int("--ranks", optarg, 2, 100000000L, &a->ranks) ? 2 : 0;
	case O_LAYERS:
		if (ibf_sim_layers_parse(optarg, &a->lp, &err))
			return cli_usage_error(prog, "%s", err.msg);
		return 0;
	case O_BYTES:
		/* the suffixes sim packet takes (64k, 1MiB) */
		if (ibf_num_size(optarg, strlen(optarg), 1e-300, 1e15, &a->bytes))
			return cli_usage_error(prog,
					       "--bytes: '%s' is not a byte count in (0, 1e15] "
					       "(suffix k/KiB, M/MiB or G/GiB)",
					       optarg);
		return 0;
	case O_ACC:
		if (ibf_num_double(optarg, strlen(optarg), 1e-300, 1e6, &a->acc))
			return cli_usage_error(
				prog, "--acc-gbps: '%s' is not a rate in (0, 1e6] Gb/s", optarg);
		return 0;
	case O_MAT:
	case O_MATM:
	case O_EPS:
		return flow_mat_opt(prog, a, c);
	case O_FLUID_EPS:
		if (ibf_num_double(optarg, strlen(optarg), 1e-300, 0.1, &a->fluid_eps))
			return cli_usage_error(prog, "--fluid-eps must be > 0 and at most 0.1");
		return 0;
	case O_PHASES:
		a->phases = 1;
		return 0;
	case O_JSON:
		a->json = 1;
		return 0;
	case O_SVG:
		/* a directory of plots: '-' would be created as a directory
		 * named '-' (stdout holds the report) */
		if (!strcmp(optarg, "-"))
			return cli_usage_error(prog, "--svg takes a directory, not '-'");
		a->svgdir = optarg;
		return 0;
	case 'h':
		fputs(flow_help, stdout);
		return 1;
	default:
		return 2;
	}
}

/* Parse `sim flow`: 0, 1 when help was printed, else an exit code. */
static int flow_parse(const char *prog, int argc, char **argv, struct flow_args *a)
{
	memset(a, 0, sizeof(*a));
	a->place = "linear";
	a->lmc = -1;
	a->ppn = 1;
	a->bytes = 1 << 20;
	a->seed = 1;
	ibf_mat_opts_default(&a->mo);
	ibf_conf_default(&a->conf);
	struct ibf_error err;
	ibf_error_clear(&err);
	ibf_sim_layers_parse("rr", &a->lp, &err);
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", flow_lo, NULL)) != -1)
		if ((rc = flow_opt(prog, a, c)))
			return rc;
	if (optind != argc)
		return cli_usage_error(prog, "unexpected argument %s", argv[optind]);
	if (!a->topo)
		return cli_usage_error(prog, "--topology is required");
	if (!a->nsrc)
		return cli_usage_error(
			prog, "give --lfts DUMP or --engine NAME (several for a comparison)");
	/* a misspelt engine: before the fabric is loaded or anything written */
	for (int s = 0; s < a->nsrc; s++)
		if (a->srcs[s].engine && !ibf_engine_find(a->srcs[s].engine))
			return cli_usage_error(prog,
					       "unknown engine '%s' (see ibfab route --help)",
					       a->srcs[s].engine);
	if (!a->npat)
		return cli_usage_error(prog, "give --pattern (see --help)");
	if (a->mat_opt && !a->mat_r && !a->mat_a)
		return cli_usage_error(prog, "--mat-method and --eps need --mat");
	int mix = 0;
	for (int p = 0; p < a->npat; p++)
		mix |= a->pats[p].id == IBF_PAT_MIX;
	if (a->acc > 0 && !mix)
		return cli_usage_error(prog, "--acc-gbps is used by the mix:C1..C5 patterns only");
	if (a->mo.method == IBF_MAT_LP && !ibf_sim_have_lp())
		return cli_usage_error(prog, "--mat-method lp: this build has no GLPK");
	a->lp.seed = a->seed;
	for (int p = 0; p < a->npat; p++) {
		a->pats[p].seed = a->seed;
		a->pats[p].bytes = a->bytes;
		a->pats[p].acc_gbps = a->acc;
	}
	return 0;
}

/* Every source's tables (read, or routed with the conf's options) and its
 * simulator network. */
static int flow_tables(struct flow_args *a, const struct ibf_fabric *f, struct ibf_error *err)
{
	int rc = 0;
	for (int s = 0; s < a->nsrc && !rc; s++) {
		struct src *sr = &a->srcs[s];
		if (sr->lfts) {
			rc = cli_lfts_read(f, sr->lfts, &sr->r, err);
		} else { /* a known engine: flow_parse checked the names */
			struct ibf_route_opts o;
			uint64_t *roots = NULL;
			rc = ibf_conf_engine_opts(&a->conf, sr->engine, &o, &roots, err);
			if (!rc && roots)
				rc = cli_check_roots(f, sr->engine, a->conf.dmodk_roots, roots,
						     o.nroots, err);
			if (!rc) {
				o.log = cli_log;
				struct ibf_route_report rep;
				rc = ibf_route(f, sr->engine, &o, &sr->r, &rep, err);
			}
			free(roots);
		}
		/* layer:J beyond every port's LIDs would be clamped to the last
		 * layer and reported as layer J */
		if (!rc && a->lp.how == IBF_LAYERS_FIXED && a->lp.layer >= (1u << sr->r.lmc))
			rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
					   "--layers layer:%u: the tables of %s have %u LID layer(s) "
					   "(LMC %u): J must be 0..%u",
					   a->lp.layer, sr->lfts ? sr->lfts : sr->engine,
					   1u << sr->r.lmc, (unsigned)sr->r.lmc, (1u << sr->r.lmc) - 1);
		if (!rc)
			rc = ibf_sim_net_init(&sr->net, f, &sr->r, IBF_CONG_ORDER_AUTO, err);
		if (!rc) {
			/* tracing workers: --threads, else one per online CPU;
			 * at most 16 */
			long nt = a->threads > 0 ? a->threads : cli_online_cpus(16);
			sr->net.threads = nt > 16 ? 16 : (int)nt;
			sr->net.fluid_eps = a->fluid_eps;
		}
	}
	return rc;
}

/* Every pattern on every source, with one placement for all (host order
 * is the fabric's, not the tables'). */
static int flow_runs(struct flow_args *a, struct run (*runs)[MAXSRC], struct ibf_sim_placement *pl,
		     struct ibf_error *err)
{
	int how = !strcmp(a->place, "linear")	? IBF_PLACE_LINEAR
		  : !strcmp(a->place, "random") ? IBF_PLACE_RANDOM
						: IBF_PLACE_FILE;
	int rc = ibf_sim_place(&a->srcs[0].net, how, (uint32_t)a->ranks, (uint32_t)a->ppn, a->seed,
			       how == IBF_PLACE_FILE ? a->place : NULL, pl, err);
	for (int p = 0; p < a->npat && !rc; p++)
		for (int s = 0; s < a->nsrc && !rc; s++) {
			struct run *u = &runs[p][s];
			u->net = &a->srcs[s].net;
			u->pl = pl;
			u->lp = &a->lp;
			u->mo = a->mo;
			u->mat_routing = a->mat_r;
			u->mat_any = a->mat_a && s == 0; /* the topology's bound: one per fabric */
			u->err = err;
			rc = ibf_sim_pattern_run(&a->srcs[s].net, pl, &a->pats[p], on_phase, u,
						 err);
			if (!rc && u->failed)
				rc = IBF_EINVAL;
			uint64_t nf = 0, nlocal = 0;
			for (uint32_t i = 0; !rc && i < u->nrows; i++) {
				nf += u->rows[i].res.flows;
				nlocal += u->rows[i].res.local;
			}
			/* nothing crosses the fabric: no rate, no time to report */
			if (!rc && !nf)
				rc = ibf_error_set(err, IBF_EINVAL, NULL, 0,
						   "pattern %s on %u ranks has no flow between two host "
						   "ports (%llu local to a port)",
						   a->patnames[p], pl->nranks,
						   (unsigned long long)nlocal);
		}
	return rc;
}

static int cmd_flow(int argc, char **argv)
{
	const char *prog = "ibfab sim flow";
	struct flow_args *a = calloc(1, sizeof(*a));
	if (!a)
		return cli_fail(&(struct ibf_error){ .code = IBF_ENOMEM, .msg = "out of memory" });
	int rc = flow_parse(prog, argc, argv, a);
	if (rc) {
		free(a);
		return rc == 1 ? 0 : rc;
	}
	struct ibf_error err;
	ibf_error_clear(&err);
	struct ibf_fabric *f = cli_load_fabric(a->topo, a->g2l, a->lmc, 1, &err);
	if (!f) {
		free(a);
		return cli_fail(&err);
	}
	struct ibf_sim_placement pl;
	memset(&pl, 0, sizeof(pl));
	struct run(*runs)[MAXSRC] = calloc((size_t)a->npat, sizeof(*runs));
	if (!runs) {
		ibf_fabric_free(f);
		free(a);
		return cli_fail(&(struct ibf_error){ .code = IBF_ENOMEM, .msg = "out of memory" });
	}
	/* the plots' directory is checked before the runs and the plots are
	 * written before the results are printed: a failure prints nothing */
	struct stat st;
	int made = 0; /* the directory is ours: a failed run removes it again */
	if (a->svgdir && !(made = !mkdir(a->svgdir, 0777)) && errno != EEXIST)
		rc = ibf_error_set(&err, IBF_EIO, a->svgdir, 0, "--svg: not a writable directory");
	if (!rc && a->svgdir &&
	    (stat(a->svgdir, &st) || !S_ISDIR(st.st_mode) || access(a->svgdir, W_OK | X_OK)))
		rc = ibf_error_set(&err, IBF_EIO, a->svgdir, 0, "--svg: not a writable directory");
	if (!rc)
		rc = flow_tables(a, f, &err);
	if (!rc)
		rc = flow_runs(a, runs, &pl, &err);
	if (!rc && a->svgdir)
		rc = write_svgs(a->svgdir, a->srcs, a->nsrc, runs, a->patnames, a->npat, &err);
	if (rc && made) {
		/* a failed run leaves no directory it made, nor plots in it */
		static const char *const plots[] = { "bars.svg", "cdf.svg", "links.svg",
						     "phases.svg" };
		for (size_t k = 0; k < sizeof(plots) / sizeof(plots[0]); k++) {
			char *q = ibf_asprintf("%s/%s", a->svgdir, plots[k]);
			if (q)
				unlink(q);
			free(q);
		}
		rmdir(a->svgdir);
	}
	if (rc)
		goto out;
	if (a->json)
		print_json(a->topo, a->place, a->srcs, a->nsrc, runs, a->patnames, a->npat, &pl);
	else
		print_text(a->topo, a->place, a->srcs, a->nsrc, runs, a->patnames, a->npat, &pl,
			   &a->lp, a->bytes, a->mat_r, a->mat_a, a->phases);
out:
	for (int p = 0; p < a->npat; p++)
		for (int s = 0; s < a->nsrc; s++) {
			free(runs[p][s].rows);
			free(runs[p][s].rates);
			free(runs[p][s].load);
		}
	free(runs);
	for (int s = 0; s < a->nsrc; s++) {
		ibf_sim_net_free(&a->srcs[s].net);
		ibf_routes_free(&a->srcs[s].r);
	}
	ibf_sim_placement_free(&pl);
	ibf_fabric_free(f);
	free(a);
	return rc ? cli_fail(&err) : 0;
}

int cmd_sim(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{ "flow", cmd_flow,
		  "flow-level simulation: max-min fair rates, MAT (docs/sim.md)" },
		{ "packet", cmd_sim_packet,
		  "packet-level simulation: credits, VLs, deadlocks (docs/simulation.md)" },
		{ 0, 0, 0 },
	};
	return cli_dispatch("ibfab sim", cmds, argc, argv);
}
