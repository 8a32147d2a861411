/* Fuzz target: the numbers of command-line option values (base/optval.c),
 * as the ibfab commands parse them: integers (counts, LMC, seeds, ports),
 * numbers in a range, times with a unit (--measure 5us), byte counts with a
 * unit (--buffer 128KiB, --bytes 1.5MiB), load sweeps (--loads
 * 0.1:1.0:0.1).  The first byte picks the parser and its bounds, the rest
 * is the value.  Every accepted value must be in its bounds and finite, and
 * read back the same when written out. */
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long long_bounds[][2] = {
	{ 0, 7 },		    /* --lmc */
	{ 1, 4096 },		    /* --threads */
	{ 0, 0x7fffffffL },	    /* sim packet --seed */
	{ 0, 0x7fffffffffffffffL }, /* route congestion --seed */
	{ -100000, 100000 },
	{ (-0x7fffffffffffffffL - 1), 0x7fffffffffffffffL },
};
static const double dbl_bounds[][2] = {
	{ 1e-6, 1.0 },	 /* --load */
	{ 0.001, 0.4 },	 /* --eps */
	{ 1e-300, 1e6 }, /* --acc-gbps */
	{ -1e300, 1e300 },
};
static const long byte_bounds[][2] = {
	{ 1, 1L << 40 }, /* sim packet --bytes */
	{ 64, 1L << 30 },
	{ 0, 0x7fffffffffffffffL },
};

static void check_long(const char *s, size_t n, unsigned b)
{
	const long *bd = long_bounds[b % (sizeof(long_bounds) / sizeof(long_bounds[0]))];
	long v, v2;
	if (ibf_num_long(s, n, bd[0], bd[1], &v))
		return;
	if (v < bd[0] || v > bd[1])
		abort();
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", v);
	if (ibf_num_long(buf, strlen(buf), bd[0], bd[1], &v2) || v2 != v)
		abort();
	snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)v);
	if (v >= 0 && (ibf_num_long(buf, strlen(buf), bd[0], bd[1], &v2) || v2 != v))
		abort();
}

static void check_u64(const char *s, size_t n)
{
	uint64_t v, v2;
	if (ibf_num_u64(s, n, &v))
		return;
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	if (ibf_num_u64(buf, strlen(buf), &v2) || v2 != v)
		abort();
}

static void check_double(const char *s, size_t n, unsigned b)
{
	const double *bd = dbl_bounds[b % (sizeof(dbl_bounds) / sizeof(dbl_bounds[0]))];
	double v, v2;
	if (ibf_num_double(s, n, bd[0], bd[1], &v))
		return;
	if (!isfinite(v) || v < bd[0] || v > bd[1] || signbit(v) != (v < 0))
		abort();
	char buf[64];
	snprintf(buf, sizeof(buf), "%.17g", v);
	if (ibf_num_double(buf, strlen(buf), bd[0], bd[1], &v2) || v2 != v)
		abort();
}

static void check_time(const char *s, size_t n, unsigned b)
{
	double max = b & 1 ? 1e10 : 1e300, v;
	if (ibf_num_time_ns(s, n, max, &v))
		return;
	if (!isfinite(v) || !(v >= 0) || v > max || signbit(v))
		abort();
}

static void check_bytes(const char *s, size_t n, unsigned b)
{
	const long *bd = byte_bounds[b % (sizeof(byte_bounds) / sizeof(byte_bounds[0]))];
	long v, v2;
	double d;
	if (ibf_num_bytes(s, n, bd[0], bd[1], &v))
		return;
	if (v < bd[0] || v > bd[1])
		abort();
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", v);
	if (ibf_num_bytes(buf, strlen(buf), bd[0], bd[1], &v2) || v2 != v)
		abort();
	/* an integer byte count is also a size, of the same value */
	if (ibf_num_size(s, n, (double)bd[0], (double)bd[1], &d) || d != (double)v)
		abort();
}

static void check_size(const char *s, size_t n)
{
	double v;
	if (ibf_num_size(s, n, 1e-300, 1e15, &v))
		return;
	if (!isfinite(v) || v < 1e-300 || v > 1e15)
		abort();
}

static void check_range(const char *s, size_t n, unsigned b)
{
	double a, z, st;
	long count, maxn = b & 1 ? 10000 : 7;
	if (ibf_num_range(s, n, 1e-6, 1.0, maxn, &a, &z, &st, &count))
		return;
	if (!(a >= 1e-6) || !(z >= a) || !(z <= 1.0) || !(st > 0) || !isfinite(st))
		abort();
	if (count < 1 || count > maxn)
		abort();
	/* the last load within B (and the tolerance) */
	if (!(a + (double)(count - 1) * st <= z + 1e-9))
		abort();
}

FUZZ_TARGET(optval)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	const char *s = (const char *)data + 1;
	size_t n = size - 1;
	switch (sel % 8) {
	case 0:
		check_long(s, n, sel / 8);
		break;
	case 1:
		check_u64(s, n);
		break;
	case 2:
		check_double(s, n, sel / 8);
		break;
	case 3:
		check_time(s, n, sel / 8);
		break;
	case 4:
		check_bytes(s, n, sel / 8);
		break;
	case 5:
		check_size(s, n);
		break;
	case 6:
		check_range(s, n, sel / 8);
		break;
	default: /* every parser on the same value */
		for (unsigned b = 0; b < 6; b++) {
			check_long(s, n, b);
			check_double(s, n, b);
			check_time(s, n, b);
			check_bytes(s, n, b);
			check_range(s, n, b);
		}
		check_u64(s, n);
		check_size(s, n);
		break;
	}
	return 0;
}
