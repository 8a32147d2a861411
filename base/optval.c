/* Numbers of command-line option values (ibf_base.h): integers, plain
 * numbers, times with a unit, byte counts with a unit, A:B:STEP ranges.
 * Every parser reads (s, n), need not be NUL-terminated, wants the whole
 * value (no blanks, no trailing junk) and never overflows: a value out of
 * range, NaN or infinite is refused. */
#include "ibf_base.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a NUL-terminated copy of a value short enough to be a number */
static int copy(const char *s, size_t n, char *buf, size_t size)
{
	if (!n || n >= size || memchr(s, '\0', n))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "0x" or "0X" and a hex digit at p: a hex number starts there */
static int hex_start(const char *p)
{
	char c = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? p[2] : '\0';
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int ibf_num_long(const char *s, size_t n, long lo, long hi, long *out)
{
	char buf[64];
	if (copy(s, n, buf, sizeof(buf)))
		return -1;
	const char *p = buf + (buf[0] == '-');
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (!hex_start(p))
			return -1;
		base = 16;
	} else if (!is_digit(*p)) {
		return -1; /* blanks, '+', empty */
	}
	errno = 0;
	char *end;
	long v = strtol(buf, &end, base);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int ibf_num_u64(const char *s, size_t n, uint64_t *out)
{
	char buf[64];
	if (copy(s, n, buf, sizeof(buf)) || !is_digit(buf[0]))
		return -1;
	int base = 10;
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		if (!hex_start(buf))
			return -1;
		base = 16;
	}
	errno = 0;
	char *end;
	unsigned long long v = strtoull(buf, &end, base);
	if (errno || *end)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* a finite decimal number at the start of buf (no blanks, no hex, no
 * "inf"/"nan"); *end after it */
static int lead_double(const char *buf, double *x, const char **end)
{
	const char *p = buf + (buf[0] == '-' || buf[0] == '+');
	if (!is_digit(*p) && !(*p == '.' && is_digit(p[1])))
		return -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -1;
	char *e;
	errno = 0;
	double v = strtod(buf, &e);
	if (e == buf || !isfinite(v))
		return -1;
	*x = v;
	*end = e;
	return 0;
}

int ibf_num_double(const char *s, size_t n, double lo, double hi, double *out)
{
	char buf[64];
	double x;
	const char *end;
	if (copy(s, n, buf, sizeof(buf)) || lead_double(buf, &x, &end) || *end ||
	    !(x >= lo && x <= hi))
		return -1;
	*out = x == 0 ? 0 : x; /* no -0 */
	return 0;
}

int ibf_num_time_ns(const char *s, size_t n, double max, double *out)
{
	char buf[64];
	double x, mul;
	const char *end;
	if (copy(s, n, buf, sizeof(buf)) || lead_double(buf, &x, &end))
		return -1;
	if (!*end || !strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else
		return -1;
	/* x <= max / mul first: x * mul cannot overflow to inf */
	if (!(x >= 0) || !(x <= max / mul) || !(x * mul <= max))
		return -1;
	*out = x == 0 ? 0 : x * mul;
	return 0;
}

int ibf_num_bytes(const char *s, size_t n, long lo, long hi, long *out)
{
	char buf[64];
	if (copy(s, n, buf, sizeof(buf)) || !is_digit(buf[0]))
		return -1;
	errno = 0;
	char *end;
	long x = strtol(buf, &end, 10);
	long unit = ibf_byte_unit(end);
	if (errno || !unit || x > hi / unit)
		return -1;
	x *= unit;
	if (x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

int ibf_num_size(const char *s, size_t n, double lo, double hi, double *out)
{
	char buf[64];
	double x;
	const char *end;
	if (copy(s, n, buf, sizeof(buf)) || lead_double(buf, &x, &end))
		return -1;
	long unit = ibf_byte_unit(end);
	if (!unit || !(x <= hi / (double)unit))
		return -1;
	x *= (double)unit;
	if (!(x >= lo && x <= hi))
		return -1;
	*out = x == 0 ? 0 : x;
	return 0;
}

int ibf_num_range(const char *s, size_t n, double lo, double hi, long maxn, double *a, double *b,
		  double *step, long *count)
{
	char buf[128];
	double v[3];
	const char *p;
	if (copy(s, n, buf, sizeof(buf)))
		return -1;
	p = buf;
	for (int i = 0; i < 3; i++) {
		const char *end;
		if (lead_double(p, &v[i], &end))
			return -1;
		if (i < 2 && *end != ':')
			return -1;
		if (i == 2 && *end)
			return -1;
		p = end + 1;
	}
	if (!(v[0] >= lo) || !(v[1] >= v[0]) || !(v[1] <= hi) || !(v[2] > 0))
		return -1;
	if (!((v[1] - v[0]) / v[2] < (double)maxn))
		return -2;
	/* the values the sweep runs: A, A + STEP, ... up to B (a small
	 * tolerance for the rounding of A + k * STEP) */
	long k = 0;
	while (k < maxn && v[0] + (double)k * v[2] <= v[1] + 1e-9)
		k++;
	*a = v[0];
	*b = v[1];
	*step = v[2];
	*count = k;
	return 0;
}
