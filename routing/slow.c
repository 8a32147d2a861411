/* Switch cables far below their rate, routed as if lost.
 *
 * A switch-to-switch cable that trained at a fraction of what it should run
 * at (1x instead of 4x, SDR instead of EDR: a bad cable or connector) would
 * get its full share of paths from any engine and carry it at that fraction
 * of the rate.  The engines therefore route a copy of the fabric without
 * the cables running below half the rate ibf_find_degraded expects of them
 * (same nodes, ports, LIDs and switch indices, so the copy's tables are the
 * fabric's).  At half or above (FDR in an EDR fabric, 2x split ports) a
 * cable is used as it is: it is often built so on purpose, and moving its
 * paths elsewhere doubles the load there. */
#include "ibf_routing.h"
#include "ibf_fattree.h"

#include <stdio.h>
#include <stdlib.h>

int ibf_route_drop_slow(const struct ibf_fabric *f, const struct ibf_route_opts *o,
			const char *who, ibf_slow_check_fn check, void *arg,
			struct ibf_fabric **lean, struct ibf_error *err)
{
	*lean = NULL;
	struct ibf_degraded *dg = NULL;
	uint32_t nd = 0, nout = 0;
	struct ibf_error e2;
	ibf_error_clear(&e2);
	if (ibf_find_degraded(f, &dg, &nd, &e2) == IBF_ENOMEM)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (uint32_t i = 0; i < nd; i++) {
		const struct ibf_degraded *x = &dg[i];
		uint64_t run = (uint64_t)x->width * ibf_speed_rate(x->speed);
		uint64_t exp = (uint64_t)x->exp_width * ibf_speed_rate(x->exp_speed);
		if (f->nodes[x->node_a].type == IBF_NODE_SWITCH &&
		    f->nodes[x->node_b].type == IBF_NODE_SWITCH && run && 2 * run < exp)
			dg[nout++] = *x;
	}
	if (!nout) {
		free(dg);
		return 0;
	}
	struct ibf_fabric *c = ibf_fabric_clone(f, err);
	if (!c) {
		free(dg);
		return err && err->code ? err->code : IBF_ENOMEM;
	}
	for (uint32_t i = 0; i < nout; i++)
		ibf_fabric_disconnect(c, dg[i].node_a, dg[i].port_a);
	int rc = ibf_fabric_finalize(c, err);
	const char *why = NULL;
	int quiet = 0;
	if (!rc) {
		uint32_t S = f->nsw ? f->nsw : 1;
		uint32_t *comp = malloc(S * sizeof(*comp));
		if (!comp)
			rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		else if (ibf_components(c, comp) != ibf_components(f, comp))
			why = "would cut the fabric apart";
		free(comp);
	}
	if (!rc && !why && check)
		rc = check(c, f, arg, &why, &quiet, err);
	if (!rc && o && o->log && !quiet) {
		char list[400], a[24], b[24];
		size_t n = 0;
		list[0] = '\0';
		for (uint32_t i = 0; i < nout && i < 4; i++) {
			const struct ibf_degraded *x = &dg[i];
			const char *da = f->nodes[x->node_a].desc, *db = f->nodes[x->node_b].desc;
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s/P%u <-> %s/P%u at %s (%s)",
					      i ? ", " : "", da ? da : "?", x->port_a, db ? db : "?",
					      x->port_b,
					      ibf_format_width_speed(x->width, x->speed, a, sizeof(a)),
					      ibf_format_width_speed(x->exp_width, x->exp_speed, b,
								     sizeof(b)));
			if (n >= sizeof(list))
				break;
		}
		if (why)
			ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
				 "%s: %u switch cable(s) run below half their rate but are used: "
				 "leaving them out %s: %s%s",
				 who, nout, why, list, nout > 4 ? ", ..." : "");
		else
			ibf_logf(o->log, o->log_ctx, IBF_LOG_INFO,
				 "%s: %u switch cable(s) run below half their rate, routed as if "
				 "lost: %s%s",
				 who, nout, list, nout > 4 ? ", ..." : "");
	}
	free(dg);
	if (rc || why || quiet)
		ibf_fabric_free(c);
	else
		*lean = c;
	return rc;
}

int ibf_route_lean(const struct ibf_fabric *f, const char *engine, const struct ibf_route_opts *o,
		   struct ibf_fabric **lean, struct ibf_error *err)
{
	*lean = NULL;
	const struct ibf_engine *e = ibf_engine_find(engine);
	if (!f || !f->finalized || !e)
		return 0;
	if (e->fn == ibf_route_dmodk || e->fn == ibf_route_hratio)
		return ibf_dmodk_lean(f, o, lean, err);
	struct ibf_route_opts q;
	ibf_route_opts_quiet(o, &q);
	return ibf_route_drop_slow(f, &q, e->name, NULL, NULL, lean, err);
}

void ibf_route_opts_quiet(const struct ibf_route_opts *o, struct ibf_route_opts *q)
{
	if (o)
		*q = *o;
	else
		ibf_route_opts_default(q);
	q->log = NULL;
}
