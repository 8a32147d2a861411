/* JSON string literals and XML text. */
#include "ibf_base.h"

/* The length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when
 * the bytes there are not one (a stray continuation byte, an overlong or
 * surrogate form, a sequence cut short).  Node descriptions come from the
 * devices, 64 bytes of whatever the firmware or the administrator put
 * there, so Latin-1 bytes are met. */
static int utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	if (c < 0x80)
		return 1;
	int n;
	unsigned lo = 0x80, hi = 0xbf; /* range of the second byte */
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A byte that is not part of well-formed UTF-8 is written as the Latin-1
 * character of that value (\u00XX), so the output stays valid JSON and
 * no byte is lost. */
void ibf_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20) {
				fprintf(out, "\\u%04x", *p);
			} else {
				int n = utf8_len(p);
				if (!n) {
					fprintf(out, "\\u%04x", *p);
				} else {
					fwrite(p, 1, (size_t)n, out);
					p += n - 1;
				}
			}
		}
	}
	fputc('"', out);
}

/* XML 1.0 has no control characters but tab, LF and CR, even as
 * references: they become U+FFFD; a byte outside well-formed UTF-8 becomes
 * the Latin-1 character of that value, as in ibf_json_str. */
void ibf_xml_str(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\t':
		case '\n':
		case '\r':
			fputc(*s, out);
			break;
		default: {
			const unsigned char *p = (const unsigned char *)s;
			int n = *p < 0x20 ? 0 : utf8_len(p);
			if (*p < 0x20) {
				fputs("&#xfffd;", out);
			} else if (!n) {
				fprintf(out, "&#x%02x;", *p);
			} else {
				fwrite(p, 1, (size_t)n, out);
				s += n - 1;
			}
		}
		}
}
