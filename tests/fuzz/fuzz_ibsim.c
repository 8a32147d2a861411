/* Fuzz target: the ibsim net file reader, then what consumes a fabric. */
#include "fuzz.h"

FUZZ_TARGET(ibsim)
{
	fuzz_fabric_text(data, size, IBF_FMT_IBSIM);
	return 0;
}
