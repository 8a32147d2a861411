/* Shared parts of the fuzz targets: the base fabric, the consumers that run
 * engines, deadlock schemes, the verifier and the validator on what a reader
 * accepted, and the registry the replay uses. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* inputs bigger than this are parsed but not routed (keeps one run fast) */
#define FUZZ_MAX_SW 24
#define FUZZ_MAX_NODES 96
#define FUZZ_MAX_LIDS 1024

static struct ibf_fabric *base;
static struct ibf_routes base_routes;
static int base_routed;

const struct ibf_fabric *fuzz_base_fabric(void)
{
	if (!base) {
		struct ibf_hyperx_opts o = { .s1 = 3, .s2 = 2, .trunk = 1, .hosts = 1 };
		base = ibf_gen_hyperx(&o, NULL);
		if (!base || ibf_assign_lids(base, 1, 0, NULL))
			abort();
	}
	return base;
}

struct ibf_fabric *fuzz_base_copy(void)
{
	struct ibf_fabric *f = ibf_fabric_clone(fuzz_base_fabric(), NULL);
	if (!f)
		abort();
	return f;
}

const struct ibf_routes *fuzz_base_routes(void)
{
	if (!base_routed) {
		struct ibf_route_opts ro;
		ibf_route_opts_default(&ro);
		ro.threads = 1;
		if (ibf_route(fuzz_base_fabric(), "minimal", &ro, &base_routes, NULL, NULL))
			abort();
		base_routed = 1;
	}
	return &base_routes;
}

/* LIDs in use (every LID of every port): what route check and the
 * verifier walk per source; the LID values themselves may be anything */
static int too_big(const struct ibf_fabric *f)
{
	if (f->nsw > FUZZ_MAX_SW || f->nnodes > FUZZ_MAX_NODES)
		return 1;
	uint64_t lids = 0;
	for (uint32_t i = 0; i < f->nports_total; i++)
		if (f->ports[i].lid)
			lids += 1u << (f->ports[i].lmc & 15);
	return lids > FUZZ_MAX_LIDS;
}

void fuzz_consume_routes(const struct ibf_fabric *f, struct ibf_routes *r)
{
	struct ibf_check_report cr;
	if (ibf_route_check(f, r, 0, &cr, NULL))
		return;
	struct ibf_path_stats st;
	if (!ibf_path_stats_compute(f, r, &st, NULL))
		ibf_path_stats_free(&st);
	if (cr.loops)
		return; /* the schemes require loop-free tables */
	static const int schemes[] = { IBF_DEADLOCK_DFSSSP, IBF_DEADLOCK_COLORING, IBF_DEADLOCK_AUTO };
	for (unsigned i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		for (int vls = 8; vls >= 2; vls -= 6) {
			struct ibf_dl_opts o;
			ibf_dl_opts_default(&o);
			o.scheme = schemes[i];
			o.max_vls = vls;
			struct ibf_dl *dlres = NULL;
			if (ibf_deadlock_apply(f, r, &o, &dlres, NULL))
				continue;
			const struct ibf_dl *dl = dlres;
			struct ibf_sl_table sl;
			struct ibf_sl2vl_table s2v;
			if (!ibf_sl_table_from_dl(f, dl, &sl, NULL)) {
				if (!ibf_sl2vl_table_from_dl(f, dl, &s2v, NULL)) {
					struct ibf_verify_opts vo;
					ibf_verify_opts_default(&vo);
					vo.threads = 1;
					struct ibf_verify_report rep;
					if (!ibf_deadlock_verify(f, r, &sl, &s2v, &vo, &rep, NULL)) {
						/* a scheme's claim, checked independently */
						if (dl->deadlock_free && !ibf_verify_ok(&rep)) {
							fprintf(stderr, "fuzz: %s claims deadlock freedom, "
									"the verifier finds %llu cyclic "
									"component(s)\n",
								ibf_deadlock_name(schemes[i]),
								(unsigned long long)rep.cyclic_sccs);
							abort();
						}
						ibf_verify_report_free(&rep);
					}
					ibf_sl2vl_table_free(&s2v);
				}
				ibf_sl_table_free(&sl);
			}
			ibf_dl_free(dlres);
		}
}

void fuzz_consume_fabric(const struct ibf_fabric *in, int all)
{
	if (too_big(in))
		return;
	struct ibf_fabric *f = ibf_fabric_clone(in, NULL);
	if (!f)
		return;
	if (!f->finalized && ibf_fabric_finalize(f, NULL))
		goto out;
	if (!ibf_max_lid(f) && ibf_assign_lids(f, all ? 1 : 0, 0, NULL))
		goto out;
	static const char *const engines[] = { "minimal", "layered", "dmodk", "hratio" };
	for (unsigned i = 0; i < (all ? 4u : 1u); i++) {
		struct ibf_route_opts ro;
		ibf_route_opts_default(&ro);
		ro.threads = 1;
		struct ibf_routes r;
		if (ibf_route(f, engines[i], &ro, &r, NULL, NULL))
			continue;
		fuzz_consume_routes(f, &r);
		ibf_routes_free(&r);
	}
	/* the validator: the fabric against a plan made from itself, and
	 * against the plan's own rendering */
	struct ibf_plan *p = ibf_plan_from_fabric(f, NULL);
	if (p) {
		struct ibf_vreport rep;
		if (!ibf_validate(p, f, NULL, &rep, NULL))
			ibf_vreport_free(&rep);
		struct ibf_fabric *g = ibf_plan_to_fabric(p, NULL);
		if (g) {
			if (!ibf_validate(p, g, NULL, &rep, NULL))
				ibf_vreport_free(&rep);
			ibf_fabric_free(g);
		}
		ibf_plan_free(p);
	}
	/* and against the base fabric's plan: the input's nodes are unknown or
	 * missing there (the report texts carry its node descriptions) */
	p = ibf_plan_from_fabric(fuzz_base_fabric(), NULL);
	if (p) {
		struct ibf_vreport rep;
		if (!ibf_validate(p, f, NULL, &rep, NULL))
			ibf_vreport_free(&rep);
		ibf_plan_free(p);
	}
out:
	ibf_fabric_free(f);
}

void fuzz_consume_sl(const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v)
{
	struct ibf_verify_opts vo;
	ibf_verify_opts_default(&vo);
	vo.threads = 1;
	struct ibf_verify_report rep;
	if (!ibf_deadlock_verify(fuzz_base_fabric(), fuzz_base_routes(), sl, s2v, &vo, &rep, NULL))
		ibf_verify_report_free(&rep);
}

/* write f in fmt to memory and read it back (the writers must produce what
 * the readers take; a failure is not a crash, so it is not checked) */
static void roundtrip(const struct ibf_fabric *f, int fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		return;
	int rc = ibf_fabric_write_stream(f, fp, fmt, NULL);
	if (fclose(fp) == 0 && !rc && fmt != IBF_FMT_JSON) {
		struct ibf_fabric *g = ibf_fabric_parse(buf, len, "roundtrip", fmt, NULL);
		ibf_fabric_free(g);
	}
	free(buf);
}

void fuzz_fabric_text(const uint8_t *data, size_t size, int fmt)
{
	struct ibf_fabric *f = ibf_fabric_parse((const char *)data, size, "fuzz", fmt, NULL);
	if (!f)
		return;
	if (!too_big(f)) {
		roundtrip(f, IBF_FMT_IBNETDISCOVER);
		roundtrip(f, IBF_FMT_IBSIM);
		roundtrip(f, IBF_FMT_JSON);
	}
	fuzz_consume_fabric(f, 0);
	ibf_fabric_free(f);
}

/* ------------------------------------------------------------ replay registry */

struct fuzz_reg fuzz_regs[64];
int fuzz_nregs;

void fuzz_register(const char *name, fuzz_fn fn)
{
	if (fuzz_nregs < (int)(sizeof(fuzz_regs) / sizeof(fuzz_regs[0])))
		fuzz_regs[fuzz_nregs++] = (struct fuzz_reg){ name, fn };
}
