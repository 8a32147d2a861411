/* tt: a tiny TAP test harness.  Each test is a function; TT_CHECK records a
 * failure and goes on; the program prints "ok N - name" / "not ok N - name"
 * per test, then the plan, and exits non-zero when any test failed.  The
 * automake TAP driver counts every test, and .ci/run sums them. */
#ifndef IBF_TT_H
#define IBF_TT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tt_count, tt_failed, tt_cur_failed;

#define TT_CHECK(cond)                                                                    \
	do {                                                                              \
		if (!(cond)) {                                                            \
			tt_cur_failed = 1;                                                \
			printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                         \
	} while (0)

#define TT_CHECK_MSG(cond, ...)                                                           \
	do {                                                                              \
		if (!(cond)) {                                                            \
			tt_cur_failed = 1;                                                \
			printf("# %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                              \
			printf("\n");                                                     \
		}                                                                         \
	} while (0)

#define TT_EQ_INT(a, b)                                                                            \
	do {                                                                                       \
		long long tt_a_ = (long long)(a), tt_b_ = (long long)(b);                          \
		if (tt_a_ != tt_b_) {                                                              \
			tt_cur_failed = 1;                                                         \
			printf("# %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, \
			       #b, tt_a_, tt_b_);                                                  \
		}                                                                                  \
	} while (0)

/* Abort the current test (after a failed check that later code depends on). */
#define TT_REQUIRE(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			tt_cur_failed = 1;                                            \
			printf("# %s:%d: required: %s\n", __FILE__, __LINE__, #cond); \
			return;                                                       \
		}                                                                     \
	} while (0)

static inline void tt_run(const char *name, void (*fn)(void))
{
	tt_cur_failed = 0;
	fflush(stdout);
	fn();
	tt_count++;
	if (tt_cur_failed)
		tt_failed++;
	printf("%s %d - %s\n", tt_cur_failed ? "not ok" : "ok", tt_count, name);
	fflush(stdout);
}

static inline int tt_done(void)
{
	printf("1..%d\n", tt_count);
	return tt_failed ? 1 : 0;
}

/* The whole file, NUL-terminated (*len: its length, when len is given);
 * NULL when it cannot be read. */
static inline char *tt_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n, fp)) > 0) {
		n += k;
		if (n == cap) {
			char *t = realloc(b, cap * 2);
			if (!t) {
				free(b);
				b = NULL;
				break;
			}
			b = t;
			cap *= 2;
		}
	}
	fclose(fp);
	if (b)
		b[n < cap ? n : cap - 1] = '\0';
	if (len)
		*len = n;
	return b;
}

/* A log sink for the library's ibf_log callbacks: appends every message
 * as a line to text (what does not fit is dropped). */
struct tt_logbuf {
	char text[16384];
	size_t len;
};

static inline void tt_logger(void *ctx, int level, const char *msg)
{
	struct tt_logbuf *b = ctx;
	(void)level;
	int n = snprintf(b->text + b->len, sizeof(b->text) - b->len, "%s\n", msg);
	if (n > 0 && b->len + (size_t)n < sizeof(b->text))
		b->len += (size_t)n;
}

#define TT(fn) tt_run(#fn, fn)

#endif
