/* Names of the deadlock schemes. */
#include "ibf_dl_scheme.h"

#include <stddef.h>
#include <strings.h>

static const char *const names[IBF_DEADLOCK_COUNT] = { "none", "dfsssp", "coloring", "auto" };

const char *ibf_deadlock_name(int scheme)
{
	if (scheme < 0 || scheme >= IBF_DEADLOCK_COUNT)
		return "?";
	return names[scheme];
}

int ibf_deadlock_from_name(const char *s)
{
	for (int i = 0; s && i < IBF_DEADLOCK_COUNT; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	return -1;
}
