/* The rail health registry, file backend (docs/rail.md, docs/formats.md):
 * a JSON document written atomically, read by every host that decides
 * paths.  Scores are integers 0..100 (100 idle, 0 blocked). */
#include "ibf_rail.h"
#include "ibf_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ibf_rail_registry_init(struct ibf_rail_registry *r)
{
	memset(r, 0, sizeof(*r));
	r->prefer_rd = 1;
	r->max_age = 300;
	r->dflt = 100;
}

void ibf_rail_registry_free(struct ibf_rail_registry *r)
{
	if (!r)
		return;
	free(r->rail_label);
	free(r->rail_score);
	for (int i = 0; i < r->ndomains; i++)
		free(r->domain[i]);
	free(r->domain);
	free(r->domain_score);
	ibf_rail_registry_init(r);
}

int ibf_rail_registry_find_rail(const struct ibf_rail_registry *r, int label)
{
	for (int i = 0; i < r->nrails; i++)
		if (r->rail_label[i] == label)
			return i;
	return -1;
}

int ibf_rail_registry_find_domain(const struct ibf_rail_registry *r, const char *name)
{
	for (int i = 0; i < r->ndomains; i++)
		if (!strcmp(r->domain[i], name))
			return i;
	return -1;
}

static int clamp_score(double v)
{
	return v < 0 ? 0 : v > 100 ? 100 : (int)lround(v);
}

int ibf_rail_registry_set_rail(struct ibf_rail_registry *r, int label, int score)
{
	int i = ibf_rail_registry_find_rail(r, label);
	if (i < 0) {
		int *a = realloc(r->rail_label, (size_t)(r->nrails + 1) * sizeof(int));
		if (!a)
			return IBF_ENOMEM;
		r->rail_label = a;
		a = realloc(r->rail_score, (size_t)(r->nrails + 1) * sizeof(int));
		if (!a)
			return IBF_ENOMEM;
		r->rail_score = a;
		/* keep labels ascending */
		i = r->nrails++;
		while (i > 0 && r->rail_label[i - 1] > label) {
			r->rail_label[i] = r->rail_label[i - 1];
			r->rail_score[i] = r->rail_score[i - 1];
			i--;
		}
		r->rail_label[i] = label;
	}
	r->rail_score[i] = clamp_score(score);
	return 0;
}

int ibf_rail_registry_set_domain(struct ibf_rail_registry *r, const char *name, int score)
{
	int i = ibf_rail_registry_find_domain(r, name);
	if (i < 0) {
		char **a = realloc(r->domain, (size_t)(r->ndomains + 1) * sizeof(char *));
		if (!a)
			return IBF_ENOMEM;
		r->domain = a;
		int *b = realloc(r->domain_score, (size_t)(r->ndomains + 1) * sizeof(int));
		if (!b)
			return IBF_ENOMEM;
		r->domain_score = b;
		char *c = strdup(name);
		if (!c)
			return IBF_ENOMEM;
		i = r->ndomains++;
		r->domain[i] = c;
	}
	r->domain_score[i] = clamp_score(score);
	return 0;
}

/* -------------------------------------------------------------- reading */

static int score_of(const struct ibf_jval *v, const char *name, struct ibf_error *err, int *out)
{
	if (v->type != IBF_JNUM || v->num != floor(v->num) || v->num < 0 || v->num > 100)
		return ibf_error_set(err, IBF_EPARSE, name, v->line,
				     "score of '%s' must be an integer 0..100",
				     v->key ? v->key : "?");
	*out = (int)v->num;
	return 0;
}

int ibf_rail_registry_parse(const char *buf, size_t len, const char *name,
			    struct ibf_rail_registry *r, struct ibf_error *err)
{
	ibf_rail_registry_init(r);
	struct ibf_jval *doc = ibf_json_parse(buf, len, name, err);
	if (!doc)
		return err ? err->code : IBF_EPARSE;
	int rc = 0;
	const struct ibf_jval *v;
	if (doc->type != IBF_JOBJ) {
		rc = ibf_error_set(err, IBF_EPARSE, name, doc->line,
				   "the registry is not a JSON object");
		goto out;
	}
	v = ibf_json_get(doc, "version");
	if (!v || v->type != IBF_JNUM || v->num != 1) {
		rc = ibf_error_set(err, IBF_EPARSE, name, v ? v->line : 1,
				   "expected \"version\": 1");
		goto out;
	}
	if ((v = ibf_json_get(doc, "timestamp"))) {
		if (v->type != IBF_JNUM || v->num < 0 || v->num > 9.2e15) {
			rc = ibf_error_set(err, IBF_EPARSE, name, v->line, "bad \"timestamp\"");
			goto out;
		}
		r->timestamp = (long long)v->num;
	}
	if ((v = ibf_json_get(doc, "max_age"))) {
		if (v->type != IBF_JNUM || v->num < 0 || v->num > 1e9) {
			rc = ibf_error_set(err, IBF_EPARSE, name, v->line, "bad \"max_age\"");
			goto out;
		}
		r->max_age = (long)v->num;
	}
	if ((v = ibf_json_get(doc, "default_path"))) {
		if (v->type != IBF_JSTR || (strcmp(v->str, "rd") && strcmp(v->str, "dr"))) {
			rc = ibf_error_set(err, IBF_EPARSE, name, v->line,
					   "\"default_path\" must be \"rd\" or \"dr\"");
			goto out;
		}
		r->prefer_rd = !strcmp(v->str, "rd");
	}
	if ((v = ibf_json_get(doc, "default_score")) && (rc = score_of(v, name, err, &r->dflt)))
		goto out;
	const struct ibf_jval *rails = ibf_json_get(doc, "rails");
	const struct ibf_jval *doms = ibf_json_get(doc, "domains");
	if ((rails && rails->type != IBF_JOBJ) || (doms && doms->type != IBF_JOBJ)) {
		rc = ibf_error_set(err, IBF_EPARSE, name,
				   (rails && rails->type != IBF_JOBJ) ? rails->line : doms->line,
				   "\"rails\" and \"domains\" map names to scores");
		goto out;
	}
	for (size_t i = 0; rails && i < rails->nkid; i++) {
		const struct ibf_jval *k = &rails->kid[i];
		char *end;
		errno = 0;
		long label = strtol(k->key, &end, 10);
		int sc = 0;
		if (!*k->key || *end || errno || label < 0 || label > 1000000) {
			rc = ibf_error_set(err, IBF_EPARSE, name, k->line,
					   "rail \"%s\": a rail is named by its number", k->key);
			goto out;
		}
		if ((rc = score_of(k, name, err, &sc)))
			goto out;
		/* a second entry (a hand edit, "0" and "00") would silently win */
		if (ibf_rail_registry_find_rail(r, (int)label) >= 0) {
			rc = ibf_error_set(err, IBF_EPARSE, name, k->line,
					   "rail %ld is listed twice", label);
			goto out;
		}
		if (ibf_rail_registry_set_rail(r, (int)label, sc)) {
			rc = ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; doms && i < doms->nkid; i++) {
		const struct ibf_jval *k = &doms->kid[i];
		int sc = 0;
		if (!*k->key) {
			rc = ibf_error_set(err, IBF_EPARSE, name, k->line, "empty domain name");
			goto out;
		}
		if ((rc = score_of(k, name, err, &sc)))
			goto out;
		if (ibf_rail_registry_find_domain(r, k->key) >= 0) {
			rc = ibf_error_set(err, IBF_EPARSE, name, k->line,
					   "domain \"%s\" is listed twice", k->key);
			goto out;
		}
		if (ibf_rail_registry_set_domain(r, k->key, sc)) {
			rc = ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
			goto out;
		}
	}
out:
	ibf_json_free(doc);
	if (rc)
		ibf_rail_registry_free(r);
	return rc;
}

int ibf_rail_registry_read(const char *path, struct ibf_rail_registry *r, struct ibf_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	ibf_rail_registry_init(r);
	int rc = ibf_slurp_limit(path, 64u << 20, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_rail_registry_parse(buf, len, path, r, err);
	free(buf);
	return rc;
}

/* -------------------------------------------------------------- writing */

static double score01(const struct ibf_rail_registry *r, int v)
{
	return (v < 0 ? r->dflt : v) / 100.0;
}

void ibf_rail_registry_by_score(const struct ibf_rail_registry *r, int *ord)
{
	for (int i = 0; i < r->nrails; i++) {
		int j = i;
		while (j > 0 && r->rail_score[ord[j - 1]] < r->rail_score[i]) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
}

double ibf_rail_registry_gamma(const struct ibf_rail_registry *r, int d, int g)
{
	double hd = score01(r, r->domain_score[d]), hr = score01(r, r->rail_score[g]);
	return hd > 0 ? hr / hd : (hr > 0 ? 1e9 : 1.0);
}

int ibf_rail_registry_write(const char *path, const struct ibf_rail_registry *r,
			    struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	FILE *o = a.fp;
	fprintf(o,
		"{\n  \"version\": 1,\n  \"timestamp\": %lld,\n  \"max_age\": %ld,\n"
		"  \"default_path\": \"%s\",\n  \"default_score\": %d,\n  \"rails\": {",
		r->timestamp, r->max_age, r->prefer_rd ? "rd" : "dr", r->dflt);
	for (int i = 0; i < r->nrails; i++)
		fprintf(o, "%s\"%d\": %d", i ? ", " : "", r->rail_label[i], r->rail_score[i]);
	fprintf(o, "},\n  \"domains\": {");
	for (int i = 0; i < r->ndomains; i++) {
		fprintf(o, "%s", i ? ", " : "");
		ibf_json_str(o, r->domain[i]);
		fprintf(o, ": %d", r->domain_score[i]);
	}
	/* derived, for readers that do not compute: rails best first, and the
	 * h-ratio of every GPU (domain, rail) */
	fprintf(o, "},\n  \"rails_by_score\": [");
	int *ord = malloc(((size_t)r->nrails + 1) * sizeof(int));
	if (ord)
		ibf_rail_registry_by_score(r, ord);
	for (int i = 0; ord && i < r->nrails; i++)
		fprintf(o, "%s%d", i ? ", " : "", r->rail_label[ord[i]]);
	free(ord);
	fprintf(o, "],\n  \"gamma\": {");
	for (int d = 0; d < r->ndomains; d++) {
		fprintf(o, "%s\n    ", d ? "," : "");
		ibf_json_str(o, r->domain[d]);
		fprintf(o, ": {");
		for (int g = 0; g < r->nrails; g++)
			fprintf(o, "%s\"%d\": %.6g", g ? ", " : "", r->rail_label[g],
				ibf_rail_registry_gamma(r, d, g));
		fprintf(o, "}");
	}
	fprintf(o, "%s}\n}\n", r->ndomains ? "\n  " : "");
	return ibf_atomic_commit(&a, !ferror(o), err);
}

/* -------------------------------------------------------------- deciding */

int ibf_rail_registry_stale(const struct ibf_rail_registry *r, long long now)
{
	return !r->timestamp || (r->max_age > 0 && now - r->timestamp > r->max_age) ||
	       now < r->timestamp - 60;
}

int ibf_rail_registry_decide(const struct ibf_rail_registry *r, long long now, const char *src_dom,
			     int src_rail, const char *dst_dom, int dst_rail,
			     struct ibf_rail_decision *out)
{
	memset(out, 0, sizeof(*out));
	int d1 = ibf_rail_registry_find_domain(r, src_dom);
	int d2 = ibf_rail_registry_find_domain(r, dst_dom);
	int g1 = ibf_rail_registry_find_rail(r, src_rail);
	int g2 = ibf_rail_registry_find_rail(r, dst_rail);
	out->stale = ibf_rail_registry_stale(r, now);
	out->missing = d1 < 0 || d2 < 0 || g1 < 0 || g2 < 0;
	int same_dom = !strcmp(src_dom, dst_dom), same_rail = src_rail == dst_rail;
	struct ibf_rail_scores s = { r->nrails, r->ndomains, r->rail_score, r->domain_score,
				     r->dflt };
	if (same_dom || same_rail || out->stale || out->missing) {
		/* no choice to make, or nothing to decide on: the fixed rules */
		out->c.path = same_dom	     ? IBF_RAIL_D
			      : same_rail    ? IBF_RAIL_R
			      : r->prefer_rd ? IBF_RAIL_RD
					     : IBF_RAIL_DR;
		out->c.via_rail = out->c.path == IBF_RAIL_DR ? dst_rail : src_rail;
		out->fallback = !same_dom && !same_rail;
		if (!out->stale && !out->missing) {
			struct ibf_rail_choice ch;
			if (!ibf_rail_decide(&s, d1, g1, d2, g2, r->prefer_rd, &ch))
				out->c.score = ch.score;
		}
		return 0;
	}
	if (ibf_rail_decide(&s, d1, g1, d2, g2, r->prefer_rd, &out->c))
		return -1;
	/* the decision works on dense indexes: report rail labels */
	out->c.via_rail = out->c.via_rail >= 0 && out->c.via_rail < r->nrails
				  ? r->rail_label[out->c.via_rail]
				  : out->c.via_rail;
	return 0;
}
