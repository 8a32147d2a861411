/* stable_chain: a chain of stable reroutes in memory, as the plugin runs
 * them from sweep to sweep (the marks and the healthy tables carried in
 * the tables), so the figures do not depend on what a dump can carry.
 *   stable_chain ENGINE FABRIC0 FABRIC1 .. FABRICn
 * FABRIC0 is routed from scratch (the healthy tables H), then each next
 * fabric by ibf_route_stable from the tables of the one before.  Every
 * fabric file must carry LIDs (topo gen writes them), so a LID names the
 * same port in all of them.  One line per step: the (switch, LID) entries
 * the step changed on the switches present before and after, the columns
 * kept, how many entries differ from H on the switches the step's
 * fabric shares with FABRIC0 (by node GUID).  Then the end against the
 * last fabric routed from H in one stable reroute ("H grown": H itself
 * when the last fabric is FABRIC0's, the growth rule applied to H when
 * it has parts FABRIC0 lacks), and over the steps after the first (the
 * repair, when FABRIC1 is the fault) how many times a column moved at
 * most and how many columns moved more than twice.  Figures only. */
#include "ibf_routing.h"

#include <stdio.h>
#include <stdlib.h>

/* Entries of r (for f) that differ from h (for fh), on the switches both
 * have, for the LIDs up to both tables' max LID. */
static unsigned long long off_h(const struct ibf_fabric *f, const struct ibf_routes *r,
				const struct ibf_fabric *fh, const struct ibf_routes *h,
				unsigned long long *of)
{
	unsigned long long d = 0, n = 0;
	uint32_t ml = r->max_lid < h->max_lid ? r->max_lid : h->max_lid;
	for (uint32_t s = 0; s < f->nsw; s++) {
		int hn = ibf_fabric_find_guid(fh, f->nodes[f->switches[s]].guid);
		if (hn < 0 || fh->nodes[hn].type != IBF_NODE_SWITCH)
			continue;
		uint32_t hs = (uint32_t)fh->nodes[hn].sw;
		for (uint32_t l = 1; l <= ml; l++) {
			if (ibf_lft(h, hs)[l] == IBF_LFT_NONE && ibf_lft(r, s)[l] == IBF_LFT_NONE)
				continue;
			n++;
			d += ibf_lft(r, s)[l] != ibf_lft(h, hs)[l];
		}
	}
	*of = n;
	return d;
}

/* Destination LIDs of f whose column in r differs from the one in p (for
 * fp) on a switch both fabrics have; nmv[l]++ (nmv may be NULL) for each
 * such LID l. */
static unsigned cols_moved(const struct ibf_fabric *f, const struct ibf_routes *r,
			   const struct ibf_fabric *fp, const struct ibf_routes *p, unsigned *nmv)
{
	unsigned n = 0;
	uint32_t ml = r->max_lid < p->max_lid ? r->max_lid : p->max_lid;
	for (uint32_t l = 1; l <= ml; l++) {
		int d = 0;
		for (uint32_t s = 0; s < f->nsw && !d; s++) {
			int pn = ibf_fabric_find_guid(fp, f->nodes[f->switches[s]].guid);
			if (pn >= 0 && fp->nodes[pn].type == IBF_NODE_SWITCH)
				d = ibf_lft(r, s)[l] != ibf_lft(p, (uint32_t)fp->nodes[pn].sw)[l];
		}
		n += d;
		if (nmv)
			nmv[l] += d;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ENGINE FABRIC0 FABRIC1 [FABRIC2 ..]\n", argv[0]);
		return 2;
	}
	const char *engine = argv[1];
	int nf = argc - 2;
	struct ibf_fabric **f = calloc((size_t)nf, sizeof(*f));
	struct ibf_routes *r = calloc((size_t)nf, sizeof(*r));
	if (!f || !r)
		return 1;
	struct ibf_error err;
	for (int i = 0; i < nf; i++) {
		f[i] = ibf_fabric_read(argv[i + 2], IBF_FMT_AUTO, &err);
		if (!f[i] || (!f[i]->finalized && ibf_fabric_finalize(f[i], &err))) {
			fprintf(stderr, "%s: %s\n", argv[i + 2], err.msg);
			return 1;
		}
	}
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	if (ibf_route(f[0], engine, &o, &r[0], NULL, &err)) {
		fprintf(stderr, "%s: %s\n", argv[2], err.msg);
		return 1;
	}
	unsigned long long total = 0;
	/* per destination LID: the repair steps (2..) that moved its column */
	uint32_t maxl = 0;
	for (int i = 0; i < nf; i++)
		if (ibf_max_lid(f[i]) > maxl)
			maxl = ibf_max_lid(f[i]);
	unsigned *nmv = calloc((size_t)maxl + 1, sizeof(*nmv));
	if (!nmv)
		return 1;
	for (int i = 1; i < nf; i++) {
		struct ibf_stable_report rep;
		if (ibf_route_stable(f[i], engine, &o, f[i - 1], &r[i - 1], &r[i], NULL, &rep,
				     &err)) {
			fprintf(stderr, "%s: %s\n", argv[i + 2], err.msg);
			return 1;
		}
		struct ibf_check_report ck;
		if (ibf_route_check(f[i], &r[i], 0, &ck, &err) || ck.loops || ck.unreachable ||
		    ck.wrong)
			printf("step %d: route check FAILED\n", i);
		unsigned long long of, d = off_h(f[i], &r[i], f[0], &r[0], &of);
		total += rep.entries_changed;
		char line[512];
		printf("step %d: moved %llu of %llu entries (%u columns), kept %u of %u LIDs, %s; "
		       "off H %llu of %llu; %.3f s | %s\n",
		       i, (unsigned long long)rep.entries_changed, (unsigned long long)rep.entries,
		       cols_moved(f[i], &r[i], f[i - 1], &r[i - 1], i >= 2 ? nmv : NULL),
		       rep.lids_kept, rep.lids, r[i].moved ? "marks" : "no mark", d, of,
		       rep.seconds, ibf_stable_report_format(&rep, "entries", line, sizeof(line)));
	}
	unsigned most = 0, over2 = 0;
	for (uint32_t l = 1; l <= maxl; l++) {
		most = nmv[l] > most ? nmv[l] : most;
		over2 += nmv[l] > 2;
	}
	free(nmv);
	printf("total moved %llu\n", total);
	printf("repair steps: a column moved at most %u times, %u columns more than twice\n", most,
	       over2);
	struct ibf_routes g;
	if (ibf_route_stable(f[nf - 1], engine, &o, f[0], &r[0], &g, NULL, NULL, &err)) {
		fprintf(stderr, "%s: %s\n", argv[nf + 1], err.msg);
		return 1;
	}
	unsigned long long gn, gd = off_h(f[nf - 1], &r[nf - 1], f[nf - 1], &g, &gn);
	printf("end off H grown %llu of %llu, %s\n", gd, gn,
	       r[nf - 1].moved || r[nf - 1].healthy ? "H kept" : "no H kept");
	ibf_routes_free(&g);
	for (int i = 0; i < nf; i++) {
		ibf_routes_free(&r[i]);
		ibf_fabric_free(f[i]);
	}
	free(r);
	free(f);
	return 0;
}
