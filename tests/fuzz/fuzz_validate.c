/* Fuzz target: the cabling validator's two inputs together, as `ibfab
 * cabling validate PLAN FABRIC` reads them: a cable plan CSV and a
 * discovered fabric (any reader format, auto-detected), separated by a line
 * "---".  An optional first line "#! [partial] [step=N] [anchor=NAME=GUID]"
 * sets the validator's options like --partial, --step and --anchor.  The
 * report is written as text and as JSON; the JSON must parse. */
#include "fuzz.h"
#include "ibf_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "#! ..." options (the harness's own syntax); returns the bytes used */
static size_t options(const char *s, size_t n, struct ibf_validate_opts *o, char *aname, size_t asz)
{
	if (n < 2 || memcmp(s, "#!", 2))
		return 0;
	const char *nl = memchr(s, '\n', n);
	size_t len = nl ? (size_t)(nl - s) : n;
	char line[256];
	snprintf(line, sizeof(line), "%.*s", (int)(len < 255 ? len : 255), s);
	for (char *save, *t = strtok_r(line + 2, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(t, "partial")) {
			o->partial = 1;
		} else if (!strncmp(t, "step=", 5)) {
			o->step = atoi(t + 5) & 0xffff;
		} else if (!strncmp(t, "anchor=", 7)) {
			char *eq = strrchr(t + 7, '=');
			if (eq && eq != t + 7) {
				snprintf(aname, asz, "%.*s", (int)(eq - (t + 7)), t + 7);
				o->anchor_name = aname;
				o->anchor_guid = strtoull(eq + 1, NULL, 0);
			}
		}
	}
	return nl ? len + 1 : n;
}

static void report(const struct ibf_vreport *rep)
{
	FILE *o = fopen("/dev/null", "w");
	if (o) {
		ibf_vreport_write_text(rep, o);
		fclose(o);
	}
	char *buf = NULL;
	size_t len = 0;
	o = open_memstream(&buf, &len);
	if (!o)
		abort();
	ibf_vreport_write_json(rep, o);
	if (fclose(o))
		abort();
	struct ibf_jval *v = ibf_json_parse(buf, len, "report", NULL);
	if (!v)
		abort(); /* the JSON report is not JSON */
	ibf_json_free(v);
	free(buf);
}

FUZZ_TARGET(validate)
{
	const char *s = (const char *)data;
	struct ibf_validate_opts o;
	memset(&o, 0, sizeof(o));
	char aname[128];
	size_t skip = options(s, size, &o, aname, sizeof(aname));
	s += skip;
	size -= skip;
	/* the plan ends at the first "---" line */
	size_t cut = size, rest = size;
	for (size_t i = 0; i + 3 <= size; i++)
		if ((i == 0 || s[i - 1] == '\n') && !memcmp(s + i, "---", 3) &&
		    (i + 3 == size || s[i + 3] == '\n')) {
			cut = i;
			rest = i + 3 < size ? i + 4 : size;
			break;
		}
	if (cut == size)
		return 0;
	struct ibf_plan *p = ibf_plan_parse_csv(s, cut, "plan", NULL);
	if (!p)
		return 0;
	struct ibf_fabric *f =
		ibf_fabric_parse(s + rest, size - rest, "fabric", IBF_FMT_AUTO, NULL);
	if (f) {
		struct ibf_vreport rep;
		if (!ibf_validate(p, f, &o, &rep, NULL)) {
			report(&rep);
			ibf_vreport_free(&rep);
		}
		ibf_fabric_free(f);
	}
	ibf_plan_free(p);
	return 0;
}
