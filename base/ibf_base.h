/* ibfab base layer: the small pieces every module needs — errors with file
 * and line, atomic output files, whole-file reading, JSON strings, a
 * logging callback type, and the seeded PRNG and hash functions.
 *
 * Nothing here knows about fabrics.  No printing (except into a caller's
 * FILE), no exit(), no getenv(). */
#ifndef IBF_BASE_H
#define IBF_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

#define IBF_ERR_MSG_MAX 512
#define IBF_ERR_FILE_MAX 256

enum ibf_errcode {
	IBF_OK = 0,
	IBF_EINVAL = -1,   /* bad argument or bad input */
	IBF_ENOMEM = -2,   /* allocation failed */
	IBF_EIO = -3,	   /* read/write failure */
	IBF_EPARSE = -4,   /* syntax error in an input file */
	IBF_ENOROUTE = -5, /* cannot route (disconnected, ...) */
	IBF_ENOTSUP = -6,  /* valid request this build or input cannot satisfy */
};

struct ibf_error {
	int code;		     /* one of enum ibf_errcode */
	char file[IBF_ERR_FILE_MAX]; /* input file, "" when none */
	long line;		     /* 1-based line, 0 when none */
	char msg[IBF_ERR_MSG_MAX];
};

/* Fill err (may be NULL) and return code.  printf-style message. */
int ibf_error_set(struct ibf_error *err, int code, const char *file, long line, const char *fmt,
		  ...) __attribute__((format(printf, 5, 6)));
void ibf_error_clear(struct ibf_error *err);
/* "FILE:LINE: message", "FILE: message" or "message" into buf. */
const char *ibf_error_format(const struct ibf_error *err, char *buf, size_t len);

/* printf into a malloc'd string; NULL when out of memory or on a bad format. */
char *ibf_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *ibf_vasprintf(const char *fmt, va_list ap);

/* ---------------------------------------------------------------- logging */

/* Where library code reports progress: the CLI prints, the plugin forwards
 * to OpenSM's log.  ctx is the caller's. */
typedef void (*ibf_log_fn)(void *ctx, int level, const char *msg);
enum { IBF_LOG_ERROR = 0, IBF_LOG_INFO = 1, IBF_LOG_VERBOSE = 2, IBF_LOG_DEBUG = 3 };
/* Format a message (up to 1 KiB) and hand it to fn; nothing when fn is NULL. */
void ibf_logf(ibf_log_fn fn, void *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ibf_vlogf(ibf_log_fn fn, void *ctx, int level, const char *fmt, va_list ap);

/* ---------------------------------------------------------------- files */

/* Open a temporary file beside path for writing; ibf_atomic_commit renames
 * it over path (or removes it when ok is 0).  path "-" is stdout; a device,
 * FIFO or socket (/dev/stdout, /dev/null) is written in place (appended
 * to); a symbolic link keeps pointing at the file it names, which is
 * replaced. */
struct ibf_atomic {
	FILE *fp;
	char *path, *tmp;
	int direct; /* a device written in place */
};
int ibf_atomic_open(struct ibf_atomic *a, const char *path, struct ibf_error *err);
int ibf_atomic_commit(struct ibf_atomic *a, int ok, struct ibf_error *err);

/* Standard input can be read once per process: a second input named "-"
 * (two options given '-', say --lfts - and --sl -) would read an empty
 * stream and pass for an empty file.  ibf_stdin_claim(path) is 0 for any
 * path but "-", and for "-" the first time; after that IBF_EINVAL naming
 * "-".  Every reader that takes "-" (ibf_slurp, ibf_lfts_read) claims it. */
int ibf_stdin_claim(const char *path, struct ibf_error *err);

/* Read the whole file ("-" = stdin) into a malloc'd, NUL-terminated *buf
 * (*len excludes the NUL).  0, or IBF_EIO ("cannot open: ...", "read
 * error") / IBF_ENOMEM, naming path. */
int ibf_slurp(const char *path, char **buf, size_t *len, struct ibf_error *err);
/* The same with a size cap: a file over max bytes (max > 0) is IBF_EINVAL
 * "file too large". */
int ibf_slurp_limit(const char *path, size_t max, char **buf, size_t *len, struct ibf_error *err);

/* ---------------------------------------------------------------- time */

/* Seconds on the monotonic clock (for durations in logs and reports; never
 * an input to routing decisions). */
double ibf_now(void);

/* The multiplier of a byte-count suffix: "" 1; k, K, KiB 1024; M, MiB 2^20;
 * G, GiB 2^30; anything else 0. */
long ibf_byte_unit(const char *suffix);

/* ------------------------------------------------ option values (optval.c) */

/* Each reads the whole of (s, n) (no blanks, no trailing junk, not
 * NUL-terminated), returns 0 and sets *out, or -1 for anything else,
 * including values out of range, NaN and infinities; the caller names the
 * option in its error. */
/* an integer in [lo, hi]: decimal (optional '-') or 0x hex; a leading 0
 * is decimal, not octal */
int ibf_num_long(const char *s, size_t n, long lo, long hi, long *out);
/* an unsigned 64-bit integer, decimal or 0x hex (seeds) */
int ibf_num_u64(const char *s, size_t n, uint64_t *out);
/* a finite decimal number in [lo, hi] */
int ibf_num_double(const char *s, size_t n, double lo, double hi, double *out);
/* a time in ns: a number >= 0 with no unit or ns, us, ms; at most max ns */
int ibf_num_time_ns(const char *s, size_t n, double max, double *out);
/* a byte count: decimal digits and an optional ibf_byte_unit suffix, the
 * product in [lo, hi] */
int ibf_num_bytes(const char *s, size_t n, long lo, long hi, long *out);
/* the same as a number that may have a fraction (1.5MiB) */
int ibf_num_size(const char *s, size_t n, double lo, double hi, double *out);
/* A:B:STEP with lo <= A <= B <= hi, STEP > 0 and at most maxn values
 * A, A + STEP, ... <= B (*count of them); -2 when it is well formed but
 * has more values */
int ibf_num_range(const char *s, size_t n, double lo, double hi, long maxn, double *a, double *b,
		  double *step, long *count);

/* ---------------------------------------------------------------- JSON */

/* s as a JSON string literal with quotes; control characters, quotes and
 * backslashes escaped; NULL prints "". */
void ibf_json_str(FILE *out, const char *s);
/* Write s as XML/SVG text or attribute content (<, >, & and " escaped). */
void ibf_xml_str(FILE *out, const char *s);

/* ---------------------------------------------------------------- base64 */

/* RFC 4648 base64 with padding of n bytes: a malloc'd NUL-terminated string
 * (*outlen its length, may be NULL), NULL when out of memory. */
char *ibf_base64_encode(const void *data, size_t n, size_t *outlen);
/* Decode n characters of s (no whitespace; padding required, canonical):
 * a malloc'd buffer NUL-terminated after *outlen bytes.  0, IBF_EINVAL on
 * bad input (then *out is NULL) or IBF_ENOMEM. */
int ibf_base64_decode(const char *s, size_t n, char **out, size_t *outlen);

/* ---------------------------------------------------------------- PRNG, hashes */

/* One step of the splitmix64 generator: advances *state, returns 64 random
 * bits.  Every random choice in ibfab comes from a stream seeded by an
 * option, so results depend on the seed only. */
static inline uint64_t ibf_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The splitmix64 output for state x, without a stream: a keyed hash. */
static inline uint64_t ibf_mix64(uint64_t x)
{
	return ibf_splitmix64(&x);
}

/* Uniform-enough integer in [0, n) (n >= 1) from the stream. */
static inline uint64_t ibf_rand_below(uint64_t *state, uint64_t n)
{
	return ibf_splitmix64(state) % n;
}

/* 64-bit finaliser (murmur3 fmix64): a bijective mix for hash tables. */
static inline uint64_t ibf_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* 32-bit FNV-1a over n bytes. */
static inline uint32_t ibf_fnv1a(const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return h;
}

#ifdef __cplusplus
}
#endif
#endif
