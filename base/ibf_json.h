/* A small JSON reader (RFC 8259) for the files ibfab keeps itself, e.g. the
 * rail health registry.  The whole document becomes a tree of values; errors
 * carry FILE:LINE.  Limits: nesting depth 64, strings and documents of any
 * size that fit in memory; numbers are doubles. */
#ifndef IBF_JSON_H
#define IBF_JSON_H
#include "ibf_base.h"

enum ibf_jtype { IBF_JNULL, IBF_JFALSE, IBF_JTRUE, IBF_JNUM, IBF_JSTR, IBF_JARR, IBF_JOBJ };

struct ibf_jval {
	int type;             /* enum ibf_jtype */
	double num;           /* IBF_JNUM */
	char *str;            /* IBF_JSTR (UTF-8, NUL-terminated; "\u0000" is refused) */
	char *key;            /* the member name when the value sits in an object */
	struct ibf_jval *kid; /* IBF_JARR / IBF_JOBJ: elements / members in order */
	size_t nkid;
	long line;            /* line where the value starts */
};

/* Parse buf (len bytes); name is used in errors.  NULL with err set on a
 * syntax error, trailing garbage or out of memory. */
struct ibf_jval *ibf_json_parse(const char *buf, size_t len, const char *name,
				struct ibf_error *err);
void ibf_json_free(struct ibf_jval *v);
/* The member `key` of an object (the last one when repeated), or NULL. */
const struct ibf_jval *ibf_json_get(const struct ibf_jval *obj, const char *key);

#endif
