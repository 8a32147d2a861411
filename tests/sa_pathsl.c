/* sa_pathsl: ask the SA for the PathRecord of many (SLID, DLID) pairs and
 * print "0x<slid> 0x<dlid> <sl>" lines (the triple format `ibfab deadlock
 * verify --sl` reads).  The same query as `saquery -p --slid S --dlid D`
 * (SubnAdmGet(PathRecord), component mask SLID|DLID, so OpenSM's path_sl
 * callback decides the SL), but in one process: thousands of pairs
 * without a process start per pair.  Test helper for tests/e2e_deadlock.sh,
 * compiled there when libibmad is available (not part of the build).
 *
 *   sa_pathsl < pairs     (pairs: "<slid> <dlid>" per line, decimal)
 * Pairs the SA rejects are reported on stderr and skipped; exit status 1
 * when any was rejected. */
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	struct ibmad_port *port = mad_rpc_open_port(NULL, 0, classes, 3);
	if (!port) {
		fprintf(stderr, "sa_pathsl: cannot open the umad port\n");
		return 2;
	}
	/* a loaded test machine runs ibsim slowly: longer waits, more tries
	 * than libibmad's defaults before a query counts as failed */
	mad_rpc_set_timeout(port, 4000);
	mad_rpc_set_retries(port, 5);
	ib_portid_t sm;
	memset(&sm, 0, sizeof(sm));
	if (ib_resolve_smlid_via(&sm, 0, port) < 0) {
		fprintf(stderr, "sa_pathsl: cannot find the SM\n");
		return 2;
	}
	unsigned slid, dlid;
	long bad = 0;
	while (scanf("%u %u", &slid, &dlid) == 2) {
		uint8_t buf[1024];
		memset(buf, 0, sizeof(buf));
		mad_set_field(buf, 0, IB_SA_PR_DLID_F, dlid);
		mad_set_field(buf, 0, IB_SA_PR_SLID_F, slid);
		ib_sa_call_t sa;
		memset(&sa, 0, sizeof(sa));
		sa.attrid = IB_SA_ATTR_PATHRECORD;
		sa.mask = (1u << 4) | (1u << 5); /* component mask: DLID | SLID */
		sa.method = IB_MAD_METHOD_GET;
		uint8_t *p = sa_rpc_call(port, buf, &sm, &sa, 0);
		if (!p) {
			fprintf(stderr, "sa_pathsl: no PathRecord for %u -> %u\n", slid, dlid);
			bad++;
			continue;
		}
		unsigned rs = mad_get_field(p, 0, IB_SA_PR_SLID_F);
		unsigned rd = mad_get_field(p, 0, IB_SA_PR_DLID_F);
		unsigned sl = mad_get_field(p, 0, IB_SA_PR_SL_F);
		if (rs != slid || rd != dlid) {
			fprintf(stderr, "sa_pathsl: asked %u -> %u, got %u -> %u\n", slid, dlid, rs,
				rd);
			bad++;
			continue;
		}
		printf("0x%04x 0x%04x %u\n", slid, dlid, sl);
	}
	mad_rpc_close_port(port);
	return bad ? 1 : 0;
}
