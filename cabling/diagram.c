/* Wiring sheets: per rack and per rack pair, an SVG drawing, a Graphviz
 * DOT graph, and a printable checklist (Markdown and CSV) in wiring-step
 * order with the cable count of every step, plus an index.
 *
 * Rack sheet: the rack's switches stacked by name (digits by value),
 * each cable inside the rack drawn as an arc on the right, coloured by
 * step and labelled "cable: port-port"; hosts are listed per switch.
 * Rack-pair sheet: the two racks side by side, one line per cable between
 * them, port numbers at both ends. */
#include "ibf_cabling.h"
#include "ibf_map.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Nodes without a rack are one group of their own, told apart from the
 * racks by a NULL name (not by a name a real rack could also have: a rack
 * once named "norack" was merged with them).  Its label on the sheets, and
 * the part of its file names: no real rack's file name can hold a '.'
 * (safe_name turns it into '_'), so "no.rack" is no rack's. */
static const char no_rack_label[] = "(no rack)";
#define NO_RACK_FILE "no.rack"

struct sheet {
	const struct ibf_plan *p;
	uint32_t *cab; /* plan cable indices on this sheet, in step order */
	uint32_t ncab;
	uint32_t *sw; /* switches drawn, top to bottom (by side, then name) */
	uint32_t nsw;
	int32_t *row; /* plan node -> row on the sheet (-1), and column for pairs */
	uint8_t *col;
	const char *r1, *r2; /* racks (r2 NULL for a rack sheet) */
	char title[200];
};

static const char *step_colour(int step)
{
	static const char *const c[] = { "#555555", "#1f77b4", "#2ca02c", "#d62728",
					 "#7f7f7f", "#9467bd", "#8c564b", "#e377c2" };
	return c[step >= 0 && step < 8 ? step : 0];
}

/* A node's rack, NULL when it has none. */
static const char *rack_of(const struct ibf_plan *p, uint32_t n)
{
	return p->nodes[n].rack[0] ? p->nodes[n].rack : NULL;
}

static const char *rack_label(const char *rack)
{
	return rack ? rack : no_rack_label;
}

static void dotesc(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void dotq(FILE *out, const char *s)
{
	fputc('"', out);
	dotesc(out, s);
	fputc('"', out);
}

/* Markdown table cells: escape '|' */
static void mdcell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void csvcell(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* ------------------------------------------------------------ cable types */

/* A cable's type as the cabling team names it: "4x EDR", "4x" or "EDR" when
 * the plan gives only one of them, "" when it gives neither. */
static const char *cable_type(const struct ibf_cable *c, char *buf, size_t len)
{
	const char *sp = ibf_speed_name(c->speed);
	if (c->width && sp[0])
		snprintf(buf, len, "%ux %s", c->width, sp);
	else if (c->width)
		snprintf(buf, len, "%ux", c->width);
	else
		snprintf(buf, len, "%s", sp);
	return buf;
}

static uint16_t type_key(const struct ibf_cable *c)
{
	return (uint16_t)(c->width << 8 | c->speed);
}

#define MAX_TYPES 64

/* The cable types of a set of cables, most used first (ties: by width,
 * then speed), with their counts; cables of types beyond MAX_TYPES (a
 * plan with odd widths) are counted as "other" and drawn in the last
 * style, their labels still name their type. */
struct types {
	uint16_t key[MAX_TYPES];
	uint32_t cnt[MAX_TYPES];
	int n;
	uint32_t other;
};

static void types_add(struct types *t, uint16_t key)
{
	for (int i = 0; i < t->n; i++)
		if (t->key[i] == key) {
			t->cnt[i]++;
			return;
		}
	if (t->n < MAX_TYPES) {
		t->key[t->n] = key;
		t->cnt[t->n++] = 1;
	} else {
		t->other++;
	}
}

static void types_sort(struct types *t)
{
	for (int i = 1; i < t->n; i++)
		for (int j = i; j > 0; j--) {
			int sw = t->cnt[j] > t->cnt[j - 1] ||
				 (t->cnt[j] == t->cnt[j - 1] && t->key[j] < t->key[j - 1]);
			if (!sw)
				break;
			uint16_t k = t->key[j];
			uint32_t c = t->cnt[j];
			t->key[j] = t->key[j - 1];
			t->cnt[j] = t->cnt[j - 1];
			t->key[j - 1] = k;
			t->cnt[j - 1] = c;
		}
}

static const char *key_type(uint16_t key, char *buf, size_t len)
{
	struct ibf_cable c = { .width = (uint8_t)(key >> 8), .speed = (uint8_t)key };
	return cable_type(&c, buf, len);
}

/* The types of the cables a sheet draws as lines (switch to switch); hosts
 * are listed per switch, not drawn. */
static void sheet_types(const struct sheet *s, int drawn_only, struct types *t)
{
	const struct ibf_plan *p = s->p;
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 0; i < s->ncab; i++) {
		const struct ibf_cable *c = &p->cables[s->cab[i]];
		if (drawn_only && p->nodes[c->b].type != IBF_NODE_SWITCH)
			continue;
		types_add(t, type_key(c));
	}
	types_sort(t);
}

/* Line style of a type on a mixed sheet: solid for the most used one, then
 * dashes and dots (the colour already says the step). */
static const char *type_dash(const struct types *t, uint16_t key)
{
	static const char *const d[] = { "", "8 4", "2 3", "10 3 2 3", "1 6" };
	int n = (int)(sizeof(d) / sizeof(d[0]));
	for (int i = 0; i < t->n; i++)
		if (t->key[i] == key)
			return d[i < n ? i : n - 1];
	return d[n - 1];
}

/* "4x EDR (12), 4x FDR (3)" */
static void types_line(const struct types *t, FILE *out, int xml)
{
	char tb[32];
	for (int i = 0; i < t->n; i++) {
		key_type(t->key[i], tb, sizeof(tb));
		fputs(i ? ", " : "", out);
		if (xml)
			ibf_xml_str(out, tb[0] ? tb : "unspecified");
		else
			fputs(tb[0] ? tb : "unspecified", out);
		fprintf(out, " (%u)", t->cnt[i]);
	}
	if (t->other)
		fprintf(out, ", other types (%u)", t->other);
}

/* ------------------------------------------------------------ writers */

static void write_checklist_md(const struct sheet *s, FILE *out)
{
	const struct ibf_plan *p = s->p;
	fprintf(out, "# %s\n\n", s->title);
	fprintf(out, "| step | kind | cables |\n|---:|---|---:|\n");
	for (uint32_t i = 0; i < s->ncab;) {
		uint32_t j = i;
		while (j < s->ncab && p->cables[s->cab[j]].step == p->cables[s->cab[i]].step &&
		       p->cables[s->cab[j]].kind == p->cables[s->cab[i]].kind)
			j++;
		fprintf(out, "| %u | %s | %u |\n", p->cables[s->cab[i]].step,
			ibf_cable_kind_name(p->cables[s->cab[i]].kind), j - i);
		i = j;
	}
	fprintf(out, "| | **total** | **%u** |\n", s->ncab);
	struct types t;
	sheet_types(s, 0, &t);
	fputs("\nCable types: ", out);
	types_line(&t, out, 0);
	fputs("\n", out);
	int last = -1;
	for (uint32_t i = 0; i < s->ncab; i++) {
		const struct ibf_cable *c = &p->cables[s->cab[i]];
		if (c->step != last) {
			uint32_t n = 0;
			for (uint32_t j = i; j < s->ncab && p->cables[s->cab[j]].step == c->step;
			     j++)
				n++;
			fprintf(out, "\n## Step %u (%u cables)\n\n", c->step, n);
			fprintf(out, "| done | cable | kind | type | from | port | to | port |\n"
				     "|:---:|---:|---|---|---|---:|---|---:|\n");
			last = c->step;
		}
		char tb[32];
		cable_type(c, tb, sizeof(tb));
		fprintf(out, "| [ ] | %u | %s | %s | ", c->id, ibf_cable_kind_name(c->kind),
			tb[0] ? tb : "-");
		mdcell(out, p->nodes[c->a].name);
		fprintf(out, " | %u | ", c->ap);
		mdcell(out, p->nodes[c->b].name);
		fprintf(out, " | %u |\n", c->bp);
	}
}

static void write_checklist_csv(const struct sheet *s, FILE *out)
{
	const struct ibf_plan *p = s->p;
	fputs("done,cable,step,kind,a_rack,a_switch,a_port,b_rack,b_switch,b_port,type\n", out);
	for (uint32_t i = 0; i < s->ncab; i++) {
		const struct ibf_cable *c = &p->cables[s->cab[i]];
		fprintf(out, ",%u,%u,%s,", c->id, c->step, ibf_cable_kind_name(c->kind));
		csvcell(out, p->nodes[c->a].rack);
		fputc(',', out);
		csvcell(out, p->nodes[c->a].name);
		fprintf(out, ",%u,", c->ap);
		csvcell(out, p->nodes[c->b].rack);
		fputc(',', out);
		csvcell(out, p->nodes[c->b].name);
		char tb[32];
		fprintf(out, ",%u,%s\n", c->bp, cable_type(c, tb, sizeof(tb)));
	}
}

/* Edge styles of the cable types on a DOT sheet whose lines mix types, most
 * used type first; the fourth and later share "bold" (their label names
 * them). */
static const char *const DOT_STYLE[] = { "solid", "dashed", "dotted", "bold" };

static void write_dot(const struct sheet *s, FILE *out)
{
	const struct ibf_plan *p = s->p;
	struct types t;
	sheet_types(s, 1, &t);
	int mixed = t.n > 1; /* label the types only when the lines differ */
	fputs("graph cabling {\n\tlabel=", out);
	if (mixed) {
		/* "Rack r00\ncable types: 4x EDR (3, solid), 4x FDR (1, dashed)" */
		char tb[32];
		fputc('"', out);
		dotesc(out, s->title);
		fputs("\\ncable types:", out);
		for (int i = 0; i < t.n; i++)
			fprintf(out, "%s %s (%u, %s)", i ? "," : "",
				key_type(t.key[i], tb, sizeof(tb))[0] ? tb : "unspecified",
				t.cnt[i], DOT_STYLE[i < 4 ? i : 3]);
		fputc('"', out);
	} else {
		dotq(out, s->title);
	}
	fputs(";\n\tnode [shape=box, fontname=\"monospace\"];\n", out);
	for (int side = 0; side < (s->r2 ? 2 : 1); side++) {
		fprintf(out, "\tsubgraph cluster_%d {\n\t\tlabel=", side);
		dotq(out, side ? s->r2 : s->r1);
		fputs(";\n", out);
		for (uint32_t i = 0; i < s->nsw; i++)
			if (s->col[s->sw[i]] == side) {
				fputs("\t\t", out);
				dotq(out, p->nodes[s->sw[i]].name);
				fputs(";\n", out);
			}
		fputs("\t}\n", out);
	}
	for (uint32_t i = 0; i < s->ncab; i++) {
		const struct ibf_cable *c = &p->cables[s->cab[i]];
		if (c->kind == IBF_CABLE_HOST || p->nodes[c->b].type != IBF_NODE_SWITCH)
			continue;
		fputc('\t', out);
		dotq(out, p->nodes[c->a].name);
		fputs(" -- ", out);
		dotq(out, p->nodes[c->b].name);
		if (!mixed) {
			fprintf(out,
				" [label=\"%u\", taillabel=\"%u\", headlabel=\"%u\", color=\"%s\"];\n",
				c->id, c->ap, c->bp, step_colour(c->step));
			continue;
		}
		int k = 0;
		while (k < t.n && t.key[k] != type_key(c))
			k++;
		char tb[32];
		cable_type(c, tb, sizeof(tb));
		fprintf(out,
			" [label=\"%u %s\", taillabel=\"%u\", headlabel=\"%u\", color=\"%s\", "
			"style=%s];\n",
			c->id, tb[0] ? tb : "?", c->ap, c->bp, step_colour(c->step),
			DOT_STYLE[k < 4 ? k : 3]);
	}
	fputs("}\n", out);
}

#define BOX_W 200
#define BOX_H 26
#define ROW_H 34
#define TOP 70

/* <svg> of w x h on white, and the title (its <text> left open) */
static void svg_head(FILE *out, int w, int h, const char *title)
{
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" "
		"height=\"100%%\" fill=\"white\"/>\n<text x=\"20\" y=\"24\" font-size=\"16\">",
		w, h);
	ibf_xml_str(out, title);
}

static void svg_legend(const struct sheet *s, FILE *out, int y)
{
	const struct ibf_plan *p = s->p;
	int x = 20, seen[8] = { 0 };
	for (uint32_t i = 0; i < s->ncab; i++) {
		int st = p->cables[s->cab[i]].step;
		if (st < 8 && !seen[st]) {
			seen[st] = 1;
			fprintf(out,
				"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
				"stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">step %d (%s)</text>\n",
				x, y, x + 30, y, step_colour(st), x + 36, y + 4, st,
				ibf_cable_kind_name(p->cables[s->cab[i]].kind));
			x += 200;
		}
	}
}

/* On a sheet whose lines mix cable types: one sample line per type in its
 * dash style, with the type and its count. */
static void svg_type_legend(const struct types *t, FILE *out, int y)
{
	char tb[32];
	int x = 20;
	for (int i = 0; i < t->n; i++) {
		const char *dash = type_dash(t, t->key[i]);
		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" "
			"stroke-width=\"2\"%s%s%s/><text x=\"%d\" y=\"%d\">",
			x, y, x + 30, y, dash[0] ? " stroke-dasharray=\"" : "", dash,
			dash[0] ? "\"" : "", x + 36, y + 4);
		ibf_xml_str(out, key_type(t->key[i], tb, sizeof(tb))[0] ? tb : "unspecified");
		fprintf(out, " (%u)</text>\n", t->cnt[i]);
		x += 160;
	}
}

/* stroke-dasharray attribute of a cable on a sheet with mixed lines */
static void svg_dash(const struct types *t, const struct ibf_cable *c, FILE *out)
{
	const char *dash = t->n > 1 ? type_dash(t, type_key(c)) : "";
	if (dash[0])
		fprintf(out, " stroke-dasharray=\"%s\"", dash);
}

/* " 4x FDR" after a label or tooltip on a sheet with mixed lines */
static void svg_type_suffix(const struct types *t, const struct ibf_cable *c, FILE *out)
{
	char tb[32];
	if (t->n > 1) {
		fputc(' ', out);
		ibf_xml_str(out, cable_type(c, tb, sizeof(tb))[0] ? tb : "?");
	}
}

/* "55 cables (15 between switches); cable types: 15 4x EDR, 40 4x FDR" */
static void svg_subtitle_types(const struct sheet *s, FILE *out)
{
	struct types all;
	sheet_types(s, 0, &all);
	fputs("; cable types: ", out);
	types_line(&all, out, 1);
}

static void write_svg_rack(const struct sheet *s, FILE *out)
{
	const struct ibf_plan *p = s->p;
	uint32_t nsw_cab = 0;
	for (uint32_t i = 0; i < s->ncab; i++)
		nsw_cab += p->nodes[p->cables[s->cab[i]].b].type == IBF_NODE_SWITCH;
	int h = TOP + (int)s->nsw * ROW_H + 60;
	int w = 120 + BOX_W + 60 + (int)s->nsw * 14 + 260;
	struct types t, all;
	sheet_types(s, 1, &t);
	sheet_types(s, 0, &all);
	if (all.n > 1)
		w += 40 + 90 * (all.n < 4 ? all.n : 4); /* host lines name their types */
	if (t.n > 1 && w < 20 + 160 * t.n)
		w = 20 + 160 * t.n; /* the type legend */
	svg_head(out, w, h, s->title);
	fprintf(out, "</text>\n<text x=\"20\" y=\"42\">%u cables (%u between switches)",
		s->ncab, nsw_cab);
	svg_subtitle_types(s, out);
	fputs("</text>\n", out);
	svg_legend(s, out, 58);
	if (t.n > 1)
		svg_type_legend(&t, out, TOP + (int)s->nsw * ROW_H + 20);
	int x0 = 20;
	for (uint32_t i = 0; i < s->nsw; i++) {
		uint32_t n = s->sw[i];
		int y = TOP + (int)i * ROW_H;
		uint32_t hosts = 0;
		int hlo = 999, hhi = 0;
		struct types ht = { .n = 0 };
		for (int q = 1; q <= p->nodes[n].nports; q++) {
			int c = ibf_plan_cable_at(p, n, q);
			if (c >= 0 && p->nodes[p->cables[c].b].type != IBF_NODE_SWITCH &&
			    p->cables[c].a == n) {
				hosts++;
				types_add(&ht, type_key(&p->cables[c]));
				hlo = q < hlo ? q : hlo;
				hhi = q > hhi ? q : hhi;
			}
		}
		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eef\" "
			"stroke=\"black\"/>\n<text x=\"%d\" y=\"%d\">",
			x0, y, BOX_W, BOX_H, x0 + 6, y + 17);
		ibf_xml_str(out, p->nodes[n].name);
		fputs("</text>\n", out);
		if (hosts) {
			fprintf(out,
				"<text x=\"%d\" y=\"%d\" fill=\"%s\">%u hosts, ports %d-%d",
				x0 + BOX_W + 100 + (int)s->nsw * 14, y + 17, step_colour(4), hosts,
				hlo, hhi);
			if (all.n > 1) { /* the sheet mixes types: say which these are */
				char tb[32];
				types_sort(&ht);
				fputs(": ", out);
				if (ht.n == 1)
					ibf_xml_str(out, key_type(ht.key[0], tb, sizeof(tb))[0]
								 ? tb
								 : "type unspecified");
				else
					types_line(&ht, out, 1);
			}
			fputs("</text>\n", out);
		}
	}
	for (uint32_t i = 0; i < s->ncab; i++) {
		const struct ibf_cable *c = &p->cables[s->cab[i]];
		if (p->nodes[c->b].type != IBF_NODE_SWITCH)
			continue;
		int ya = TOP + s->row[c->a] * ROW_H + BOX_H / 2,
		    yb = TOP + s->row[c->b] * ROW_H + BOX_H / 2;
		int span = abs(s->row[c->a] - s->row[c->b]);
		int xr = x0 + BOX_W, bulge = 30 + span * 14;
		fprintf(out,
			"<path d=\"M %d %d C %d %d, %d %d, %d %d\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.5\"",
			xr, ya, xr + bulge, ya, xr + bulge, yb, xr, yb, step_colour(c->step));
		svg_dash(&t, c, out);
		fprintf(out, "><title>cable %u: ", c->id);
		ibf_xml_str(out, p->nodes[c->a].name);
		fprintf(out, " port %u -- ", c->ap);
		ibf_xml_str(out, p->nodes[c->b].name);
		fprintf(out, " port %u", c->bp);
		svg_type_suffix(&t, c, out);
		fputs("</title></path>\n", out);
		fprintf(out,
			"<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"%s\">%u: %u-%u",
			xr + bulge * 3 / 4 + 2, (ya + yb) / 2 + 3, step_colour(c->step), c->id,
			c->ap, c->bp);
		svg_type_suffix(&t, c, out);
		fputs("</text>\n", out);
	}
	fputs("</svg>\n", out);
}

static void write_svg_pair(const struct sheet *s, FILE *out)
{
	const struct ibf_plan *p = s->p;
	uint32_t rows[2] = { 0, 0 };
	for (uint32_t i = 0; i < s->nsw; i++)
		rows[s->col[s->sw[i]]]++;
	uint32_t maxr = rows[0] > rows[1] ? rows[0] : rows[1];
	int gap = 360, h = TOP + 30 + (int)maxr * ROW_H + 40, w = 40 + 2 * BOX_W + gap;
	struct types t;
	sheet_types(s, 0, &t); /* every cable between the racks is drawn */
	if (t.n > 1 && w < 20 + 160 * t.n)
		w = 20 + 160 * t.n; /* the type legend */
	svg_head(out, w, h, s->title);
	fprintf(out, "</text>\n<text x=\"20\" y=\"42\">%u cables", s->ncab);
	svg_subtitle_types(s, out);
	fputs("</text>\n", out);
	svg_legend(s, out, 58);
	if (t.n > 1)
		svg_type_legend(&t, out, TOP + 30 + (int)maxr * ROW_H + 15);
	int xs[2] = { 20, 20 + BOX_W + gap };
	for (int side = 0; side < 2; side++) {
		const char *r = side ? s->r2 : s->r1;
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%s", xs[side], TOP + 12,
			r == no_rack_label ? "" : "rack ");
		ibf_xml_str(out, r);
		fputs("</text>\n", out);
	}
	for (uint32_t i = 0; i < s->nsw; i++) {
		uint32_t n = s->sw[i];
		int y = TOP + 24 + s->row[n] * ROW_H;
		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eef\" "
			"stroke=\"black\"/>\n<text x=\"%d\" y=\"%d\">",
			xs[s->col[n]], y, BOX_W, BOX_H, xs[s->col[n]] + 6, y + 17);
		ibf_xml_str(out, p->nodes[n].name);
		fputs("</text>\n", out);
	}
	for (uint32_t i = 0; i < s->ncab; i++) {
		const struct ibf_cable *c = &p->cables[s->cab[i]];
		uint32_t l = s->col[c->a] == 0 ? c->a : c->b, r = l == c->a ? c->b : c->a;
		int lp = l == c->a ? c->ap : c->bp, rp = l == c->a ? c->bp : c->ap;
		int yl = TOP + 24 + s->row[l] * ROW_H + BOX_H / 2;
		int yr = TOP + 24 + s->row[r] * ROW_H + BOX_H / 2;
		int x1 = xs[0] + BOX_W, x2 = xs[1];
		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"1.5\"",
			x1, yl, x2, yr, step_colour(c->step));
		svg_dash(&t, c, out);
		fprintf(out, "><title>cable %u", c->id);
		svg_type_suffix(&t, c, out);
		fprintf(out,
			"</title></line>\n"
			"<text x=\"%d\" y=\"%d\" font-size=\"9\">%d</text>"
			"<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"end\">%d</text>\n",
			x1 + 3, yl - 2, lp, x2 - 3, yr - 2, rp);
	}
	fputs("</svg>\n", out);
}

/* ------------------------------------------------------------ driver */

static int write_one(const char *dir, const char *base, const char *ext,
		     void (*fn)(const struct sheet *, FILE *), const struct sheet *s,
		     struct ibf_error *err)
{
	size_t len = strlen(dir) + strlen(base) + strlen(ext) + 4;
	char *path = malloc(len);
	if (!path)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	snprintf(path, len, "%s/%s.%s", dir, base, ext);
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (!rc) {
		fn(s, a.fp);
		int bad = ferror(a.fp);
		if (bad)
			ibf_error_set(err, IBF_EIO, path, 0, "write error");
		rc = ibf_atomic_commit(&a, !bad, bad ? NULL : err);
		if (bad)
			rc = IBF_EIO;
	}
	free(path);
	return rc;
}

static void safe_name(char *out, size_t len, const char *s)
{
	size_t i = 0;
	for (; *s && i + 1 < len; s++)
		out[i++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					   (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'
				   ? *s
				   : '_';
	out[i] = '\0';
}

static int cab_cmp_step(const struct ibf_plan *p, uint32_t x, uint32_t y)
{
	const struct ibf_cable *a = &p->cables[x], *b = &p->cables[y];
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* insertion-friendly merge sort of cable indices by (step, id) */
static void sort_cabs(const struct ibf_plan *p, uint32_t *v, uint32_t *tmp, uint32_t n)
{
	if (n < 2)
		return;
	uint32_t h = n / 2;
	sort_cabs(p, v, tmp, h);
	sort_cabs(p, v + h, tmp, n - h);
	uint32_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cab_cmp_step(p, v[j], v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/* Names in the order a person reads them: runs of digits by value
 * (sf-r00-g0-s2 before sf-r00-g0-s10, ib2 before ib10), the rest bytewise;
 * names equal so (s01 and s1) by their bytes. */
static int name_cmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return strcmp(a0, b0);
}

/* The switches of a sheet from top to bottom: by side (rack pairs), then by
 * name, so that a plan read back from its CSV (nodes in order of first
 * appearance) draws its racks as the plan that wrote it (insertion sort:
 * a rack holds tens of switches, already nearly in order). */
static void sort_switches(const struct sheet *s)
{
	const struct ibf_plan *p = s->p;
	for (uint32_t i = 1; i < s->nsw; i++) {
		uint32_t v = s->sw[i], j = i;
		while (j > 0) {
			uint32_t u = s->sw[j - 1];
			int c = s->col[u] != s->col[v] ? (s->col[u] < s->col[v] ? -1 : 1)
						     : name_cmp(p->nodes[u].name, p->nodes[v].name);
			if (c <= 0)
				break;
			s->sw[j] = u;
			j--;
		}
		s->sw[j] = v;
	}
	uint32_t rows[2] = { 0, 0 };
	for (uint32_t i = 0; i < s->nsw; i++)
		s->row[s->sw[i]] = (int32_t)rows[s->col[s->sw[i]]]++;
}

static int emit(struct sheet *s, const char *dir, const char *base, FILE *idx, int mixed,
		struct ibf_error *err)
{
	int rc = write_one(dir, base, "md", write_checklist_md, s, err);
	if (!rc)
		rc = write_one(dir, base, "csv", write_checklist_csv, s, err);
	if (!rc)
		rc = write_one(dir, base, "dot", write_dot, s, err);
	if (!rc)
		rc = write_one(dir, base, "svg", s->r2 ? write_svg_pair : write_svg_rack, s, err);
	if (rc)
		return rc;
	fprintf(idx, "| [%s](%s.md) | ", s->title, base);
	uint32_t cnt[6] = { 0 };
	for (uint32_t i = 0; i < s->ncab; i++) {
		int st = s->p->cables[s->cab[i]].step;
		cnt[st < 5 ? st : 5]++;
	}
	for (int st = 1; st <= 5; st++)
		fprintf(idx, "%u | ", cnt[st]);
	if (mixed) {
		struct types t;
		sheet_types(s, 0, &t);
		types_line(&t, idx, 0);
		fputs(" | ", idx);
	}
	fprintf(idx, "%u | [svg](%s.svg) [dot](%s.dot) [csv](%s.csv) |\n", s->ncab, base, base,
		base);
	return 0;
}

/* The sheets of a plan: rack r1 alone (r2 < 0) or the rack pair r1 < r2,
 * each with its file name (without extension). */
struct sheet_name {
	uint32_t r1;
	int32_t r2;
	char *base;
	char *key; /* base in lower case: the names map's key */
};

struct sheet_set {
	const char **racks; /* in order of first appearance; NULL: no rack */
	uint32_t nr;
	int32_t *rack_id; /* plan node -> index in racks */
	struct sheet_name *v;
	uint32_t n, cap;
	struct ibf_smap names; /* base -> index in v */
};

static void sheet_set_free(struct sheet_set *set)
{
	for (uint32_t i = 0; i < set->n; i++) {
		free(set->v[i].base);
		free(set->v[i].key);
	}
	free(set->v);
	free(set->racks);
	free(set->rack_id);
	ibf_smap_free(&set->names);
}

/* Add a sheet named prefix + a (+ "-" + b).  Two racks whose names differ
 * only in characters a file name cannot hold ("row 1", "row/1", "row_1") or
 * in case ("A1", "a1"),
 * or rack pairs like a-b + c and a + b-c, give the same name: the later
 * sheet gets -2, -3, ... so that it does not overwrite the earlier one. */
static int sheet_add(struct sheet_set *set, uint32_t r1, int32_t r2, struct ibf_error *err)
{
	char a[120], b[120];
	const char *ra = set->racks[r1], *rb = r2 >= 0 ? set->racks[r2] : "";
	safe_name(a, sizeof(a), ra ? ra : "");
	if (!ra)
		snprintf(a, sizeof(a), "%s", NO_RACK_FILE);
	safe_name(b, sizeof(b), rb ? rb : "");
	if (!rb)
		snprintf(b, sizeof(b), "%s", NO_RACK_FILE);
	if (set->n == set->cap) {
		uint32_t cap = set->cap ? set->cap * 2 : 64;
		struct sheet_name *nv = realloc(set->v, cap * sizeof(*nv));
		if (!nv)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		set->v = nv;
		set->cap = cap;
	}
	size_t len = strlen(a) + strlen(b) + 32;
	char *base = malloc(len), *key = malloc(len);
	if (!base || !key) {
		free(base);
		free(key);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t k = 1;; k++) {
		int w = r2 >= 0 ? snprintf(base, len, "racks-%s-%s", a, b)
				: snprintf(base, len, "rack-%s", a);
		if (k > 1)
			snprintf(base + w, len - (size_t)w, "-%u", k);
		/* the names are compared without case: "rack-A" and "rack-a"
		 * are one file on a case-insensitive file system */
		size_t kl = strlen(base);
		for (size_t i = 0; i <= kl; i++)
			key[i] = (char)tolower((unsigned char)base[i]);
		int32_t old;
		int rc = ibf_smap_put(&set->names, key, kl, (int32_t)set->n, &old);
		if (rc < 0) {
			free(base);
			free(key);
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		}
		if (rc == 0)
			break;
	}
	set->v[set->n++] = (struct sheet_name){ .r1 = r1, .r2 = r2, .base = base, .key = key };
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* Racks, and the sheets in the order they are written: every rack with a
 * switch, then every rack pair with a cable between them (by rack order). */
static int sheet_set_build(const struct ibf_plan *p, struct sheet_set *set, struct ibf_error *err)
{
	memset(set, 0, sizeof(*set));
	set->racks = malloc(((size_t)p->nnodes + 1) * sizeof(char *));
	set->rack_id = malloc(((size_t)p->nnodes + 1) * sizeof(int32_t));
	uint64_t *pairs = malloc(((size_t)p->ncables + 1) * sizeof(uint64_t));
	uint8_t *has_sw = calloc((size_t)p->nnodes + 1, 1);
	int rc = 0;
	if (!set->racks || !set->rack_id || !pairs || !has_sw) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (uint32_t n = 0; n < p->nnodes; n++) {
		const char *r = rack_of(p, n);
		uint32_t k;
		for (k = 0; k < set->nr; k++)
			if (r && set->racks[k] ? !strcmp(set->racks[k], r) : r == set->racks[k])
				break;
		if (k == set->nr)
			set->racks[set->nr++] = r;
		set->rack_id[n] = (int32_t)k;
		if (p->nodes[n].type == IBF_NODE_SWITCH)
			has_sw[k] = 1;
	}
	for (uint32_t r = 0; r < set->nr && !rc; r++)
		if (has_sw[r])
			rc = sheet_add(set, r, -1, err);
	size_t np = 0;
	for (uint32_t c = 0; c < p->ncables; c++) {
		uint32_t x = (uint32_t)set->rack_id[p->cables[c].a];
		uint32_t y = (uint32_t)set->rack_id[p->cables[c].b];
		if (x != y)
			pairs[np++] = x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
	}
	qsort(pairs, np, sizeof(*pairs), cmp_u64);
	for (size_t i = 0; i < np && !rc; i++)
		if (!i || pairs[i] != pairs[i - 1])
			rc = sheet_add(set, (uint32_t)(pairs[i] >> 32), (int32_t)(uint32_t)pairs[i],
				       err);
out:
	free(pairs);
	free(has_sw);
	if (rc)
		sheet_set_free(set);
	return rc;
}

/* Is name (a directory entry) a sheet file: rack-*.EXT or racks-*.EXT with
 * EXT one of the sheet formats?  Returns the length of its base, else 0. */
static size_t sheet_file_base(const char *name)
{
	static const char *const ext[] = { ".svg", ".dot", ".md", ".csv" };
	if (strncmp(name, "rack-", 5) && strncmp(name, "racks-", 6))
		return 0;
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);
		if (n > e && !strcmp(name + n - e, ext[i]))
			return n - e;
	}
	return 0;
}

/* The directory must be one (or not exist yet) and hold no sheet this plan
 * does not write: a sheet left by another plan (a plan with fewer racks
 * written into the same directory) would be printed and cabled from. */
static int sheet_set_check(const struct sheet_set *set, const char *dir, struct ibf_error *err)
{
	struct stat st;
	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		return ibf_error_set(err, IBF_EIO, dir, 0, "%s", strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return ibf_error_set(err, IBF_EIO, dir, 0, "not a directory");
	DIR *d = opendir(dir);
	if (!d)
		return ibf_error_set(err, IBF_EIO, dir, 0, "cannot read directory: %s",
				     strerror(errno));
	char first[256] = "";
	unsigned long nstale = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t b = sheet_file_base(de->d_name);
		if (!b)
			continue;
		char key[300];
		size_t kl = b < sizeof(key) ? b : sizeof(key) - 1;
		for (size_t i = 0; i < kl; i++)
			key[i] = (char)tolower((unsigned char)de->d_name[i]);
		int32_t k = ibf_smap_get(&set->names, key, kl);
		if (k >= 0 && strlen(set->v[k].base) == b && !memcmp(set->v[k].base, de->d_name, b))
			continue; /* one of this plan's (exactly: a case variant is not) */
		/* report the same one whatever order readdir gives */
		if (!nstale++ || strcmp(de->d_name, first) < 0)
			snprintf(first, sizeof(first), "%s", de->d_name);
	}
	closedir(d);
	if (nstale)
		return ibf_error_set(err, IBF_EINVAL, dir, 0,
				     "holds %lu sheet file%s this plan does not have (%s%s): left "
				     "from another plan? Remove %s, or write the sheets to an "
				     "empty directory",
				     nstale, nstale == 1 ? "" : "s", first,
				     nstale == 1 ? "" : ", ...", nstale == 1 ? "it" : "them");
	return 0;
}

int ibf_sheets_check(const struct ibf_plan *p, const char *dir, struct ibf_error *err)
{
	struct sheet_set set;
	int rc = sheet_set_build(p, &set, err);
	if (rc)
		return rc;
	rc = sheet_set_check(&set, dir, err);
	sheet_set_free(&set);
	return rc;
}

int ibf_sheets_write(const struct ibf_plan *p, const char *dir, struct ibf_error *err)
{
	if (!p->port_cable)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "plan is not indexed");
	struct sheet_set set;
	int rc = sheet_set_build(p, &set, err);
	if (rc)
		return rc;
	if ((rc = sheet_set_check(&set, dir, err))) {
		sheet_set_free(&set);
		return rc;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		rc = ibf_error_set(err, IBF_EIO, dir, 0, "cannot create directory: %s",
				   strerror(errno));
		sheet_set_free(&set);
		return rc;
	}
	struct sheet s = { .p = p };
	s.cab = malloc(((size_t)p->ncables + 1) * sizeof(uint32_t));
	uint32_t *tmp = malloc(((size_t)p->ncables + 1) * sizeof(uint32_t));
	s.sw = malloc(((size_t)p->nnodes + 1) * sizeof(uint32_t));
	s.row = malloc(((size_t)p->nnodes + 1) * sizeof(int32_t));
	s.col = calloc((size_t)p->nnodes + 1, 1);
	char *idxpath = malloc(strlen(dir) + 16);
	struct ibf_atomic ia = { 0 };
	int32_t *rack_id = set.rack_id;
	if (!s.cab || !tmp || !s.sw || !s.row || !s.col || !idxpath) {
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	snprintf(idxpath, strlen(dir) + 16, "%s/index.md", dir);
	rc = ibf_atomic_open(&ia, idxpath, err);
	if (rc)
		goto out;
	fprintf(ia.fp, "# Wiring sheets\n\n%u rack%s, %u cable%s", set.nr, set.nr == 1 ? "" : "s",
		p->ncables, p->ncables == 1 ? "" : "s");
	if (p->meta)
		fprintf(ia.fp, " (%s)", p->meta);
	fprintf(ia.fp, "\n\nSteps: 1 intra-subgroup, 2 intra-rack, 3 inter-rack, 4 hosts "
		       "(generic plans: 1 switch cables, 2 hosts).\n\n");
	/* cables per type over the whole plan: what to order and bring */
	struct types pt = { .n = 0 };
	for (uint32_t c = 0; c < p->ncables; c++)
		types_add(&pt, type_key(&p->cables[c]));
	types_sort(&pt);
	fputs("| cable type | cables |\n|---|---:|\n", ia.fp);
	for (int k = 0; k < pt.n; k++) {
		char tb[32];
		fprintf(ia.fp, "| %s | %u |\n",
			key_type(pt.key[k], tb, sizeof(tb))[0] ? tb : "unspecified", pt.cnt[k]);
	}
	if (pt.other)
		fprintf(ia.fp, "| other | %u |\n", pt.other);
	int mixed = pt.n > 1;
	fprintf(ia.fp, "\n| sheet | step 1 | step 2 | step 3 | step 4 | later |%s total | files |\n"
		       "|---|---:|---:|---:|---:|---:|%s---:|---|\n",
		mixed ? " cable types |" : "", mixed ? "---|" : "");
	for (uint32_t i = 0; i < set.n && !rc; i++) {
		int32_t r1 = (int32_t)set.v[i].r1, r2 = set.v[i].r2;
		s.ncab = s.nsw = 0;
		if (r2 < 0) {
			/* rack sheet: the cables inside the rack, its switches stacked */
			for (uint32_t c = 0; c < p->ncables; c++)
				if (rack_id[p->cables[c].a] == r1 && rack_id[p->cables[c].b] == r1)
					s.cab[s.ncab++] = c;
			for (uint32_t n = 0; n < p->nnodes; n++) {
				s.row[n] = -1;
				if (rack_id[n] == r1 && p->nodes[n].type == IBF_NODE_SWITCH) {
					s.row[n] = (int32_t)s.nsw;
					s.col[n] = 0;
					s.sw[s.nsw++] = n;
				}
			}
			s.r1 = rack_label(set.racks[r1]);
			s.r2 = NULL;
			if (set.racks[r1])
				snprintf(s.title, sizeof(s.title), "Rack %s", s.r1);
			else
				snprintf(s.title, sizeof(s.title), "Switches without a rack");
		} else {
			/* rack-pair sheet: the cables between them, racks side by side */
			for (uint32_t c = 0; c < p->ncables; c++) {
				int32_t x = rack_id[p->cables[c].a], y = rack_id[p->cables[c].b];
				if ((x == r1 && y == r2) || (x == r2 && y == r1))
					s.cab[s.ncab++] = c;
			}
			uint32_t rows[2] = { 0, 0 };
			for (uint32_t n = 0; n < p->nnodes; n++) {
				s.row[n] = -1;
				if (p->nodes[n].type != IBF_NODE_SWITCH ||
				    (rack_id[n] != r1 && rack_id[n] != r2))
					continue;
				int side = rack_id[n] == r2;
				s.col[n] = (uint8_t)side;
				s.row[n] = (int32_t)rows[side]++;
				s.sw[s.nsw++] = n;
			}
			s.r1 = rack_label(set.racks[r1]);
			s.r2 = rack_label(set.racks[r2]);
			snprintf(s.title, sizeof(s.title), "Racks %s - %s", s.r1, s.r2);
		}
		sort_cabs(p, s.cab, tmp, s.ncab);
		sort_switches(&s);
		rc = emit(&s, dir, set.v[i].base, ia.fp, mixed, err);
	}
	if (ia.fp) {
		int bad = ferror(ia.fp);
		int rc2 = ibf_atomic_commit(&ia, !rc && !bad, rc ? NULL : err);
		if (!rc)
			rc = bad ? ibf_error_set(err, IBF_EIO, idxpath, 0, "write error") : rc2;
	}
out:;
	int nsheets = (int)set.n;
	sheet_set_free(&set);
	free(s.cab);
	free(tmp);
	free(s.sw);
	free(s.row);
	free(s.col);
	free(idxpath);
	return rc ? rc : nsheets;
}
