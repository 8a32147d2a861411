/* Fuzz target: link width/speed values, "4xEDR", as `cabling slimfly
 * --link` (ibf_plan_link_parse), cable plans and the fabric readers take
 * them (ibf_parse_width_speed, ibf_speed_from_name). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int good_width(unsigned w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 12;
}

FUZZ_TARGET(link)
{
	const char *s = (const char *)data;
	uint8_t w = 0, sp = 0;
	char buf[32];
	if (!ibf_parse_width_speed(s, size, &w, &sp)) {
		if (!good_width(w) || sp >= IBF_SPEED_COUNT)
			abort();
		/* what ibfab writes reads back the same */
		ibf_format_width_speed(w, sp, buf, sizeof(buf));
		uint8_t w2 = 0, sp2 = 0;
		if (ibf_parse_width_speed(buf, strlen(buf), &w2, &sp2) || w2 != w || sp2 != sp)
			abort();
	}
	int pw = 0, psp = 0;
	if (!ibf_plan_link_parse(s, size, &pw, &psp)) {
		/* --link: a subset of the above, always with a known speed */
		if (pw != w || psp != sp || psp == IBF_SPEED_UNKNOWN)
			abort();
	}
	int k = ibf_speed_from_name(s, size);
	if (k) {
		const char *name = ibf_speed_name(k);
		/* speeds are read in any case: the name is the input up to case */
		if (k >= IBF_SPEED_COUNT || strlen(name) != size || strncasecmp(name, s, size))
			abort();
	}
	return 0;
}
