/* Fuzz target: the iblinkinfo reader (block and line layouts), then what
 * consumes a fabric. */
#include "fuzz.h"

FUZZ_TARGET(iblinkinfo)
{
	fuzz_fabric_text(data, size, IBF_FMT_IBLINKINFO);
	return 0;
}
