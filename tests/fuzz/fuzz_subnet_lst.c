/* Fuzz target: the OpenSM opensm-subnet.lst reader, then what consumes a fabric. */
#include "fuzz.h"

FUZZ_TARGET(subnet_lst)
{
	fuzz_fabric_text(data, size, IBF_FMT_SUBNET_LST);
	return 0;
}
