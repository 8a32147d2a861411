/* Base64 (RFC 4648, standard alphabet with '=' padding), as etcd's v3 JSON
 * gateway carries keys and values. */
#include "ibf_base.h"

#include <stdlib.h>
#include <string.h>

static const char b64_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *ibf_base64_encode(const void *data, size_t n, size_t *outlen)
{
	const unsigned char *s = data;
	if (n > (SIZE_MAX - 1) / 4 * 3 - 3)
		return NULL;
	size_t m = (n + 2) / 3 * 4;
	char *o = malloc(m + 1);
	if (!o)
		return NULL;
	size_t k = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
		o[k++] = b64_alpha[v >> 18];
		o[k++] = b64_alpha[(v >> 12) & 63];
		o[k++] = b64_alpha[(v >> 6) & 63];
		o[k++] = b64_alpha[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
		o[k++] = b64_alpha[v >> 18];
		o[k++] = b64_alpha[(v >> 12) & 63];
		o[k++] = i + 1 < n ? b64_alpha[(v >> 6) & 63] : '=';
		o[k++] = '=';
	}
	o[k] = 0;
	if (outlen)
		*outlen = k;
	return o;
}

static int b64_val(unsigned char c)
{
	return c >= 'A' && c <= 'Z'   ? c - 'A'
	       : c >= 'a' && c <= 'z' ? c - 'a' + 26
	       : c >= '0' && c <= '9' ? c - '0' + 52
	       : c == '+'	      ? 62
	       : c == '/'	      ? 63
				      : -1;
}

int ibf_base64_decode(const char *s, size_t n, char **out, size_t *outlen)
{
	*out = NULL;
	if (outlen)
		*outlen = 0;
	if (n % 4)
		return IBF_EINVAL;
	char *o = malloc(n / 4 * 3 + 1);
	if (!o)
		return IBF_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i += 4) {
		int pad = 0, d[4];
		for (int j = 0; j < 4; j++) {
			unsigned char c = (unsigned char)s[i + j];
			if (c == '=' && i + 4 == n && j >= 2) {
				/* padding only at the end: "x=" needs "==" after it */
				if (j == 2 && s[i + 3] != '=') {
					free(o);
					return IBF_EINVAL;
				}
				d[j] = 0;
				pad++;
				continue;
			}
			if (pad || (d[j] = b64_val(c)) < 0) {
				free(o);
				return IBF_EINVAL;
			}
		}
		uint32_t v = (uint32_t)d[0] << 18 | (uint32_t)d[1] << 12 | (uint32_t)d[2] << 6 |
			     (uint32_t)d[3];
		/* the bits the padding drops must be zero (canonical form) */
		if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff))) {
			free(o);
			return IBF_EINVAL;
		}
		o[k++] = (char)(v >> 16);
		if (pad < 2)
			o[k++] = (char)(v >> 8);
		if (pad < 1)
			o[k++] = (char)v;
	}
	o[k] = 0;
	*out = o;
	if (outlen)
		*outlen = k;
	return 0;
}
