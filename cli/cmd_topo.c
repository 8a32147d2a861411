/* ibfab topo: placeholder until the readers and generators land. */
#include "cli.h"
int cmd_topo(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 2;
}
