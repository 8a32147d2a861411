/* smp_sl2vl: read the SL2VL tables of many (switch LID, out port) pairs with
 * SubnGet(SLtoVLMappingTable) and print them in the text `smpquery sl2vl
 * LID PORT` prints (the format `ibfab deadlock verify --sl2vl` reads): a
 * "# SL2VL table: Lid N" header, then one "ports: in I, out O:" row per input
 * port 0..NumPorts.  The same queries as smpquery, in one process: hundreds
 * of ports without a process start per port.  Test helper for the e2e
 * scripts (tests/lib.sh read_tables), compiled there when libibmad is
 * available (not part of the build).
 *
 *   smp_sl2vl < ports     (ports: "<lid> <out port>" per line, decimal)
 * Exit status 1 when a query failed (reported on stderr). */
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct ibmad_port *port = mad_rpc_open_port(NULL, 0, classes, 2);
	if (!port) {
		fprintf(stderr, "smp_sl2vl: cannot open the umad port\n");
		return 2;
	}
	/* a loaded test machine runs ibsim slowly: longer waits, more tries
	 * than libibmad's defaults before a query counts as failed */
	mad_rpc_set_timeout(port, 4000);
	mad_rpc_set_retries(port, 5);
	unsigned lid, out;
	int bad = 0;
	while (scanf("%u %u", &lid, &out) == 2) {
		ib_portid_t to;
		memset(&to, 0, sizeof(to));
		to.lid = (int)lid;
		uint8_t ni[IB_SMP_DATA_SIZE];
		memset(ni, 0, sizeof(ni));
		if (!smp_query_via(ni, &to, IB_ATTR_NODE_INFO, 0, 0, port)) {
			fprintf(stderr, "smp_sl2vl: NodeInfo of LID %u failed\n", lid);
			bad = 1;
			continue;
		}
		unsigned nports = (unsigned)mad_get_field(ni, 0, IB_NODE_NPORTS_F);
		printf("# SL2VL table: Lid %u\n", lid);
		printf("#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n");
		for (unsigned in = 0; in <= nports; in++) {
			uint8_t t[IB_SMP_DATA_SIZE];
			memset(t, 0, sizeof(t));
			if (!smp_query_via(t, &to, IB_ATTR_SLVL_TABLE, (in << 8) | out, 0, port)) {
				fprintf(stderr, "smp_sl2vl: SL2VL of LID %u in %u out %u failed\n",
					lid, in, out);
				bad = 1;
				break;
			}
			printf("ports: in %2u, out %2u: |", in, out);
			for (int sl = 0; sl < 16; sl++) /* two SLs per byte, SL 0 high */
				printf("%2u|", (t[sl / 2] >> (sl % 2 ? 0 : 4)) & 0xF);
			printf("\n");
		}
	}
	mad_rpc_close_port(port);
	return bad;
}
