/* Errors that carry the input file and line; the monotonic clock. */
#include "ibf_base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int ibf_error_set(struct ibf_error *err, int code, const char *file, long line, const char *fmt,
		  ...)
{
	if (!err)
		return code;
	err->code = code;
	err->line = line;
	if (file)
		snprintf(err->file, sizeof(err->file), "%s", file);
	else
		err->file[0] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void ibf_error_clear(struct ibf_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

const char *ibf_error_format(const struct ibf_error *err, char *buf, size_t len)
{
	if (!err) {
		snprintf(buf, len, "unknown error");
	} else if (err->file[0] && err->line > 0) {
		snprintf(buf, len, "%s:%ld: %s", err->file, err->line, err->msg);
	} else if (err->file[0]) {
		snprintf(buf, len, "%s: %s", err->file, err->msg);
	} else {
		snprintf(buf, len, "%s", err->msg[0] ? err->msg : "unknown error");
	}
	return buf;
}

void ibf_vlogf(ibf_log_fn fn, void *ctx, int level, const char *fmt, va_list ap)
{
	if (!fn)
		return;
	char buf[1024];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fn(ctx, level, buf);
}

void ibf_logf(ibf_log_fn fn, void *ctx, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ibf_vlogf(fn, ctx, level, fmt, ap);
	va_end(ap);
}

double ibf_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
