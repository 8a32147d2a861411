/* Private helpers shared by the topology readers and writers (io.c,
 * read_ibnd.c, read_ports.c, read_subnet_lst.c, write.c, namemap.c).
 * Not installed; nothing here is part of the public API. */
#ifndef IBF_IO_INTERNAL_H
#define IBF_IO_INTERNAL_H

#include "ibf_topology.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ lines */

/* Iterates over the lines of a memory buffer without copying: a line is
 * everything up to '\n' (a trailing '\r' is dropped).  Lines may be of any
 * length and may hold NUL bytes (has_nul tells). */
struct ibf_lines {
	const char *p, *end;
	long lineno; /* number of the line last returned, 1-based */
};

void ibf_lines_init(struct ibf_lines *L, const char *buf, size_t len);
/* Returns 1 and the line in (*s, *n), or 0 at the end of the buffer. */
int ibf_lines_next(struct ibf_lines *L, const char **s, size_t *n, int *has_nul);

/* ------------------------------------------------------------ cursor */

/* A cursor over one line: [p, e). */
struct ibf_cur {
	const char *p, *e;
};

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

/* Width/speed tokens as infiniband-diags prints them: "4xEDR", "1xSDR",
 * "??QDR", "4x???", "4x".  Returns 0 on success. */
int ibf_io_parse_ws(const char *s, size_t n, uint8_t *width, uint8_t *speed);

/* Quote a short excerpt of a line for an error message (printable only). */
const char *ibf_io_excerpt(const char *s, size_t n, char *buf, size_t len);

/* A line a diagnostic tool printed on stderr (ibwarn:, src/foo.c:123; ...). */
int ibf_io_is_stderr_line(const char *s, size_t n);

/* ------------------------------------------------------------ hash maps */

/* Map of byte strings (not copied: the caller keeps them alive) to ints. */
struct ibf_smap_slot {
	const char *s;
	uint32_t len;
	uint32_t hash;
	int32_t val;
};
struct ibf_smap {
	struct ibf_smap_slot *slot;
	uint32_t cap, n;
};
int32_t ibf_smap_get(const struct ibf_smap *m, const char *s, size_t n);
/* Insert (s, n) -> val.  Returns 0 when inserted, 1 when the key was
 * already there (*old gets its value, nothing changes), IBF_ENOMEM. */
int ibf_smap_put(struct ibf_smap *m, const char *s, size_t n, int32_t val, int32_t *old);
void ibf_smap_free(struct ibf_smap *m);

/* Map of 64-bit keys to ints. */
struct ibf_umap_slot {
	uint64_t key;
	int32_t val; /* -1 = empty */
};
struct ibf_umap {
	struct ibf_umap_slot *slot;
	uint32_t cap, n;
};
int32_t ibf_umap_get(const struct ibf_umap *m, uint64_t key);
int ibf_umap_put(struct ibf_umap *m, uint64_t key, int32_t val, int32_t *old);
void ibf_umap_free(struct ibf_umap *m);

/* ------------------------------------------------------------ linking */

/* Link bookkeeping shared by the readers: which port ends were described
 * by the input (seen) and on which line each link was first made. */
struct ibf_linker {
	struct ibf_fabric *f;
	const char *name;   /* input name for messages */
	uint8_t *seen;      /* [nports_total] */
	long *line;         /* [nports_total] */
};
int ibf_linker_init(struct ibf_linker *k, struct ibf_fabric *f, const char *name,
		    struct ibf_error *err);
void ibf_linker_free(struct ibf_linker *k);
/* (a, pa) says it is cabled to (b, pb).  Reconciles with what other lines
 * said: the same link again merges width/speed (lowest known wins), a
 * different peer is an IBF_EPARSE error at `line`. */
int ibf_linker_add(struct ibf_linker *k, int a, int pa, int b, int pb, int width, int speed,
		   long line, struct ibf_error *err);
/* Links whose two ends were not both described. */
uint32_t ibf_linker_one_sided(const struct ibf_linker *k);

/* Append "key=value" to the fabric meta ("k=v;k=v"). */
int ibf_io_meta_add(struct ibf_fabric *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Duplicate n bytes as a C string. */
char *ibf_io_strndup(const char *s, size_t n);

/* ------------------------------------------------------------ formats */

/* Read the whole file ("-" = stdin) into a malloc'd *buf.  0, or IBF_EIO
 * ("cannot open: ...", "read error") / IBF_ENOMEM, naming path. */
int ibf_io_slurp(const char *path, char **buf, size_t *len, struct ibf_error *err);

struct ibf_fabric *ibf_io_read_ibnd(const char *buf, size_t len, const char *name, int ibsim,
				    struct ibf_error *err);
struct ibf_fabric *ibf_io_read_ports(const char *buf, size_t len, const char *name,
				     struct ibf_error *err);
struct ibf_fabric *ibf_io_read_subnet_lst(const char *buf, size_t len, const char *name,
					  struct ibf_error *err);
/* Guess the format of a buffer: an enum ibf_format value, or -1. */
int ibf_io_sniff(const char *buf, size_t len);

#endif
