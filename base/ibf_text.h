/* Line iterator and cursor shared by every line-oriented reader. */
#ifndef IBF_TEXT_H
#define IBF_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ lines */

/* Iterates over the lines of a memory buffer without copying: a line is
 * everything up to '\n' (a trailing '\r' is dropped).  Lines may be of any
 * length and may hold NUL bytes (has_nul tells).  A UTF-8 byte order mark
 * at the start of the buffer is skipped. */
struct ibf_lines {
	const char *p, *end;
	long lineno; /* number of the line last returned, 1-based */
};

void ibf_lines_init(struct ibf_lines *L, const char *buf, size_t len);
/* Length of the UTF-8 byte order mark at the start of buf: 3 or 0 (files
 * saved by spreadsheets and Windows editors carry one). */
static inline size_t ibf_bom_len(const char *buf, size_t len)
{
	return len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
}
/* Returns 1 and the line in (*s, *n), or 0 at the end of the buffer. */
int ibf_lines_next(struct ibf_lines *L, const char **s, size_t *n, int *has_nul);

struct ibf_error;
/* The next line of L as a C string in buf[cap], cut at its first '#' (a
 * comment): 1, 0 at the end, or an IBF_EPARSE error "NAME:LINE: NUL byte
 * in line" / "line too long" (cap bytes or more) returned as a negative
 * code.  *raw (may be NULL) gets the line's start in the buffer: the byte
 * at buf + k is at *raw + k, and stays valid while the buffer does. */
int ibf_lines_next_text(struct ibf_lines *L, char *buf, size_t cap, const char **raw,
			const char *name, struct ibf_error *err);
/* Call fn(ctx, line, length, line number) for every line of buf, stopping
 * at the first non-zero return; a line holding a NUL byte is an IBF_EPARSE
 * error "NAME:LINE: NUL byte in a text line".  Returns 0 or fn's code. */
int ibf_each_line(const char *buf, size_t len, const char *name, struct ibf_error *err,
		  int (*fn)(void *ctx, const char *s, size_t n, long ln), void *ctx);

/* ------------------------------------------------------------ cursor */

/* A cursor over one line: [p, e). */
struct ibf_cur {
	const char *p, *e;
};

/* Value of a hexadecimal digit, or -1. */
static inline int ibf_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static inline int ibf_is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline void ibf_cur_ws(struct ibf_cur *c)
{
	while (c->p < c->e && ibf_is_ws(*c->p))
		c->p++;
}

static inline int ibf_cur_end(struct ibf_cur *c)
{
	ibf_cur_ws(c);
	return c->p >= c->e;
}

static inline int ibf_cur_peek(const struct ibf_cur *c, char ch)
{
	return c->p < c->e && *c->p == ch;
}

/* Consume the literal s when the cursor starts with it. */
static inline int ibf_cur_lit(struct ibf_cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->e - c->p) < n || memcmp(c->p, s, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

/* Same, but the literal must be followed by whitespace or the end. */
static inline int ibf_cur_word(struct ibf_cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->e - c->p) < n || memcmp(c->p, s, n) != 0)
		return 0;
	if (c->p + n < c->e && !ibf_is_ws(c->p[n]))
		return 0;
	c->p += n;
	return 1;
}

/* Decimal number <= max.  Returns 0, -1 when there is no digit, -2 when
 * the value exceeds max (the digits are consumed either way). */
int ibf_cur_udec(struct ibf_cur *c, uint64_t max, uint64_t *v);
/* Hexadecimal number with an optional 0x prefix, at most 64 bits.
 * Returns 0, -1 when there is no digit, -2 on overflow. */
int ibf_cur_hex(struct ibf_cur *c, uint64_t *v);
/* "0x..." hex or decimal (strtoul base 0 without octal). */
int ibf_cur_num(struct ibf_cur *c, uint64_t max, uint64_t *v);

#endif
