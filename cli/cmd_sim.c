/* ibfab sim: offline simulators (packet level: cmd_sim_packet.c). */
#include "cli.h"

int cmd_sim(int argc, char **argv)
{
	static const struct ibf_cmd cmds[] = {
		{"packet", cmd_sim_packet, "packet-level simulation: credits, VLs, deadlocks (docs/simulation.md)"},
		{0, 0, 0},
	};
	return cli_dispatch("ibfab sim", cmds, argc, argv);
}
