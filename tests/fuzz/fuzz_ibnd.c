/* Fuzz target: the ibnetdiscover text reader, then what consumes a fabric. */
#include "fuzz.h"

FUZZ_TARGET(ibnd)
{
	fuzz_fabric_text(data, size, IBF_FMT_IBNETDISCOVER);
	return 0;
}
