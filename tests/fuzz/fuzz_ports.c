/* Fuzz target: the ibnetdiscover -p ports report reader, then what consumes a fabric. */
#include "fuzz.h"

FUZZ_TARGET(ports)
{
	fuzz_fabric_text(data, size, IBF_FMT_IBNETDISCOVER_P);
	return 0;
}
