/* Traffic matrices the user writes: `--pattern file:PATH` (format in
 * docs/formats.md, "Traffic files"). */
#include "sim_internal.h"
#include "ibf_map.h"
#include "ibf_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRAFFIC_LINE_MAX 1024

void ibf_sim_traffic_free(struct ibf_sim_traffic *t)
{
	if (t) {
		free(t->fl);
		memset(t, 0, sizeof(*t));
	}
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Host tokens already resolved in this file (-> rank).  A traffic file
 * names the same few hosts on many lines, and a lookup by name scans every
 * node of the fabric (1e6 lines on a 4096-host fabric: 32 s in strcmp).
 * The keys point into the file's buffer, alive while it is parsed.
 *
 * SRC or DST: a rank number, or a host and then its lowest rank */
static int end_rank(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
		    const uint32_t *first, struct ibf_smap *cache, const char *key, char *tok,
		    const char *what, const char *path, unsigned line, uint32_t *rank,
		    struct ibf_error *err)
{
	if (all_digits(tok)) {
		errno = 0;
		unsigned long long r = strtoull(tok, NULL, 10);
		if (errno || r >= pl->nranks)
			return ibf_error_set(err, IBF_EPARSE, path, line,
					     "%s rank %s: the placement has %u ranks (0..%u)%s", what,
					     tok, pl->nranks, pl->nranks - 1,
					     ibf_fabric_find_name(n->f, tok, NULL) >= 0
						     ? "; digits are a rank: a host named so is "
						       "given by its GUID"
						     : "");
		*rank = (uint32_t)r;
		return 0;
	}
	size_t kl = strlen(tok);
	int32_t known = ibf_smap_get(cache, key, kl);
	if (known >= 0) {
		*rank = (uint32_t)known;
		return 0;
	}
	char name[TRAFFIC_LINE_MAX];
	snprintf(name, sizeof(name), "%s", tok);
	int h = sim_host_token(n, tok, path, line, err);
	if (h < 0)
		return h;
	if (first[h] == UINT32_MAX)
		return ibf_error_set(err, IBF_EPARSE, path, line,
				     "%s host \"%s\" has no rank in the placement", what, name);
	*rank = first[h];
	if (*rank <= INT32_MAX) /* out of memory: no harm, only slower */
		ibf_smap_put(cache, key, kl, (int32_t)*rank, NULL);
	return 0;
}

/* BYTES: a number > 0 with an optional unit suffix */
static int parse_bytes(const char *tok, const char *path, unsigned line, double *out,
		       struct ibf_error *err)
{
	if (tok[0] == '-')
		return ibf_error_set(err, IBF_EPARSE, path, line, "negative byte count \"%s\"",
				     tok);
	/* digits first: strtod would take "inf", "nan" and blanks */
	char *end = (char *)tok;
	double v = 0;
	errno = 0;
	if (isdigit((unsigned char)tok[0]) || tok[0] == '.')
		v = strtod(tok, &end);
	long unit = end != tok ? ibf_byte_unit(end) : 0;
	if (end == tok || !unit || errno || !isfinite(v))
		return ibf_error_set(err, IBF_EPARSE, path, line,
				     "bad byte count \"%s\" (a number with an optional k/KiB, "
				     "M/MiB or G/GiB suffix)",
				     tok);
	v *= (double)unit;
	if (!(v > 0) || v > 1e15)
		return ibf_error_set(err, IBF_EPARSE, path, line,
				     "byte count \"%s\" out of range (0, 1e15]", tok);
	*out = v;
	return 0;
}

static int cmp_phase(const void *a, const void *b)
{
	const struct ibf_sim_traffic_flow *x = a, *y = b;
	return x->phase != y->phase ? (x->phase < y->phase ? -1 : 1) : 0;
}

/* a stable sort by phase: the file order stays within a phase */
static int sort_by_phase(struct ibf_sim_traffic *t)
{
	int sorted = 1;
	for (uint64_t i = 1; i < t->n && sorted; i++)
		sorted = t->fl[i - 1].phase <= t->fl[i].phase;
	if (sorted)
		return 0;
	/* merge sort through a scratch copy (qsort is not stable) */
	struct ibf_sim_traffic_flow *tmp = malloc(t->n * sizeof(*tmp));
	if (!tmp)
		return IBF_ENOMEM;
	for (uint64_t w = 1; w < t->n; w *= 2) {
		for (uint64_t lo = 0; lo < t->n; lo += 2 * w) {
			uint64_t mid = lo + w < t->n ? lo + w : t->n;
			uint64_t hi = lo + 2 * w < t->n ? lo + 2 * w : t->n;
			uint64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = cmp_phase(&t->fl[j], &t->fl[i]) < 0 ? t->fl[j++]
									       : t->fl[i++];
			while (i < mid)
				tmp[k++] = t->fl[i++];
			while (j < hi)
				tmp[k++] = t->fl[j++];
		}
		memcpy(t->fl, tmp, t->n * sizeof(*tmp));
	}
	free(tmp);
	return 0;
}

int ibf_sim_traffic_parse(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			  const char *buf, size_t len, const char *path, struct ibf_sim_traffic *t,
			  struct ibf_error *err)
{
	memset(t, 0, sizeof(*t));
	if (!path)
		path = "traffic";
	uint32_t *first = malloc((n->nhosts ? n->nhosts : 1) * sizeof(*first));
	if (!first)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t h = 0; h < n->nhosts; h++)
		first[h] = UINT32_MAX;
	for (uint32_t r = pl->nranks; r-- > 0;)
		if (pl->host[r] < n->nhosts)
			first[pl->host[r]] = r;
	uint64_t cap = 0;
	int rc = 0;
	struct ibf_smap cache = { NULL, 0, 0 };
	struct ibf_lines it;
	ibf_lines_init(&it, buf, len);
	char tmp[TRAFFIC_LINE_MAX];
	const char *line = NULL;
	int got;
	while (!rc && (got = ibf_lines_next_text(&it, tmp, sizeof(tmp), &line, path, err)) != 0) {
		if (got < 0) {
			rc = got;
			break;
		}
		char *tok[5];
		int nt = 0;
		for (char *p = tmp; nt < 5;) {
			while (*p && isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			tok[nt++] = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
			if (*p)
				*p++ = 0;
		}
		if (!nt)
			continue;
		if (nt < 3 || nt > 4) {
			rc = ibf_error_set(err, IBF_EPARSE, path, it.lineno,
					   "expected \"SRC DST BYTES [PHASE]\", %s",
					   nt < 3 ? "too few fields" : "too many fields");
			break;
		}
		struct ibf_sim_traffic_flow fl = { 0, 0, 0, 0 };
		/* tokens in tmp are at the same offsets in the line */
		rc = end_rank(n, pl, first, &cache, line + (tok[0] - tmp), tok[0], "source", path,
			      it.lineno, &fl.src, err);
		if (!rc)
			rc = end_rank(n, pl, first, &cache, line + (tok[1] - tmp), tok[1],
				      "destination", path, it.lineno, &fl.dst, err);
		if (!rc)
			rc = parse_bytes(tok[2], path, it.lineno, &fl.bytes, err);
		if (!rc && nt == 4) {
			errno = 0;
			unsigned long long ph = all_digits(tok[3]) ? strtoull(tok[3], NULL, 10) : 0;
			if (!all_digits(tok[3]) || errno || ph > 1000000000ull)
				rc = ibf_error_set(err, IBF_EPARSE, path, it.lineno,
						   "bad phase \"%s\" (an integer 0..1000000000)",
						   tok[3]);
			fl.phase = (uint32_t)ph;
		}
		if (!rc && fl.src == fl.dst)
			rc = ibf_error_set(err, IBF_EPARSE, path, it.lineno,
					   "a flow from rank %u to itself", fl.src);
		if (rc)
			break;
		if (t->n == cap) {
			uint64_t nc = cap ? cap * 2 : 256;
			struct ibf_sim_traffic_flow *nf = realloc(t->fl, nc * sizeof(*nf));
			if (!nf) {
				rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
				break;
			}
			t->fl = nf;
			cap = nc;
		}
		t->fl[t->n++] = fl;
	}
	free(first);
	ibf_smap_free(&cache);
	if (!rc && !t->n)
		rc = ibf_error_set(err, IBF_EPARSE, path, 0,
				   "no flows (lines \"SRC DST BYTES [PHASE]\")");
	if (!rc && sort_by_phase(t))
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (rc) {
		ibf_sim_traffic_free(t);
		return rc;
	}
	for (uint64_t i = 0; i < t->n; i++)
		t->nphases += !i || t->fl[i].phase != t->fl[i - 1].phase;
	return 0;
}

int ibf_sim_traffic_read(const struct ibf_sim_net *n, const struct ibf_sim_placement *pl,
			 const char *path, struct ibf_sim_traffic *t, struct ibf_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	memset(t, 0, sizeof(*t));
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_sim_traffic_parse(n, pl, buf, len, path, t, err);
	free(buf);
	return rc;
}

int ibf_sim_traffic_run(const struct ibf_sim_traffic *t, ibf_sim_phase_fn fn, void *ctx,
			struct ibf_error *err)
{
	struct ibf_sim_phase ph;
	memset(&ph, 0, sizeof(ph));
	uint64_t most = 0; /* flows of the largest phase */
	for (uint64_t i = 0, k = 0; i < t->n; i = k) {
		for (k = i; k < t->n && t->fl[k].phase == t->fl[i].phase; k++)
			;
		if (k - i > most)
			most = k - i;
	}
	ph.flow = malloc((most ? most : 1) * sizeof(*ph.flow));
	if (!ph.flow)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	ph.cap = most;
	ph.repeat = 1;
	uint32_t index = 0;
	for (uint64_t i = 0, k = 0; i < t->n; i = k) {
		ph.nflows = 0;
		ph.bytes = 0;
		for (k = i; k < t->n && t->fl[k].phase == t->fl[i].phase; k++) {
			const struct ibf_sim_traffic_flow *tf = &t->fl[k];
			ph.flow[ph.nflows++] =
				(struct ibf_sim_flow){ tf->src, tf->dst, 0, tf->bytes };
			if (tf->bytes > ph.bytes)
				ph.bytes = tf->bytes;
		}
		snprintf(ph.label, sizeof(ph.label), "phase %u", t->fl[i].phase);
		if (fn(ctx, &ph, index++, t->nphases))
			break;
	}
	free(ph.flow);
	return 0;
}
