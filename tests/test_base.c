/* The base layer: file reading, atomic output, JSON strings, PRNG and
 * hashes, the line cursor and the hash maps. */
#include "ibf_base.h"
#include "ibf_map.h"
#include "ibf_json.h"
#include "ibf_text.h"
#include "tt.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int count_files(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static void test_slurp(void)
{
	char p[128];
	struct ibf_error err;
	char *buf = NULL;
	size_t len = 0;
	path_in(p, sizeof(p), "in.txt");
	FILE *fp = fopen(p, "w");
	TT_REQUIRE(fp);
	fputs("abc\ndef", fp);
	fclose(fp);
	TT_EQ_INT(ibf_slurp(p, &buf, &len, &err), 0);
	TT_EQ_INT(len, 7);
	TT_CHECK(buf && strcmp(buf, "abc\ndef") == 0); /* NUL-terminated */
	free(buf);
	TT_EQ_INT(ibf_slurp_limit(p, 6, &buf, &len, &err), IBF_EINVAL);
	TT_CHECK(strstr(err.msg, "too large") != NULL);
	TT_CHECK(strcmp(err.file, p) == 0);
	TT_EQ_INT(ibf_slurp_limit(p, 7, &buf, &len, &err), 0);
	free(buf);
	path_in(p, sizeof(p), "missing.txt");
	TT_EQ_INT(ibf_slurp(p, &buf, &len, &err), IBF_EIO);
	TT_CHECK(strstr(err.msg, "cannot open") != NULL);
	/* an empty file */
	path_in(p, sizeof(p), "empty.txt");
	fp = fopen(p, "w");
	TT_REQUIRE(fp);
	fclose(fp);
	TT_EQ_INT(ibf_slurp(p, &buf, &len, &err), 0);
	TT_EQ_INT(len, 0);
	TT_CHECK(buf && buf[0] == '\0');
	free(buf);
	/* larger than the first buffer guess (a pipe has no size) */
	char cmd[256];
	path_in(p, sizeof(p), "big.txt");
	snprintf(cmd, sizeof(cmd), "head -c 300000 /dev/zero | tr '\\0' x > %s", p);
	TT_REQUIRE(system(cmd) == 0);
	TT_EQ_INT(ibf_slurp(p, &buf, &len, &err), 0);
	TT_EQ_INT(len, 300000);
	TT_CHECK(buf && buf[299999] == 'x' && buf[300000] == '\0');
	free(buf);
	unlink(p);
	path_in(p, sizeof(p), "in.txt");
	unlink(p);
	path_in(p, sizeof(p), "empty.txt");
	unlink(p);
}

static void test_atomic(void)
{
	char p[128];
	struct ibf_error err;
	struct ibf_atomic a;
	struct stat st;
	path_in(p, sizeof(p), "out.txt");
	mode_t old = umask(022);
	TT_EQ_INT(ibf_atomic_open(&a, p, &err), 0);
	fputs("one\n", a.fp);
	TT_CHECK(stat(p, &st) != 0); /* nothing at the final name yet */
	TT_EQ_INT(ibf_atomic_commit(&a, 1, &err), 0);
	TT_REQUIRE(stat(p, &st) == 0);
	TT_EQ_INT(st.st_mode & 0777, 0644); /* the umask, not mkstemp's 0600 */
	TT_EQ_INT(st.st_size, 4);
	/* a failed write leaves the old file and no temporary behind */
	TT_EQ_INT(ibf_atomic_open(&a, p, &err), 0);
	fputs("two two\n", a.fp);
	TT_EQ_INT(count_files(), 2);
	TT_CHECK(ibf_atomic_commit(&a, 0, &err) != 0);
	TT_REQUIRE(stat(p, &st) == 0);
	TT_EQ_INT(st.st_size, 4);
	TT_EQ_INT(count_files(), 1);
	/* a directory that does not exist */
	path_in(p, sizeof(p), "nodir/out.txt");
	TT_EQ_INT(ibf_atomic_open(&a, p, &err), IBF_EIO);
	TT_CHECK(strstr(err.msg, "cannot create") != NULL);
	TT_CHECK_MSG(!strcmp(err.file, p), "the error names '%s'", err.file);
	umask(old);
	path_in(p, sizeof(p), "out.txt");
	unlink(p);
}

/* Output to a FIFO (as /dev/stdout into a pipe) or through a symbolic link:
 * the FIFO is written in place and the link kept, the file it names
 * replaced.  Renaming the temporary over the path replaced the FIFO or the
 * link with a regular file (as root, --link-util /dev/stdout replaced
 * /dev/stdout). */
static void test_atomic_special(void)
{
	char p[128], t[128];
	struct ibf_error err;
	struct ibf_atomic a;
	struct stat st;
	path_in(p, sizeof(p), "fifo");
	TT_REQUIRE(mkfifo(p, 0600) == 0);
	int rfd = open(p, O_RDONLY | O_NONBLOCK);
	TT_REQUIRE(rfd >= 0);
	TT_EQ_INT(ibf_atomic_open(&a, p, &err), 0);
	fputs("through\n", a.fp);
	TT_EQ_INT(ibf_atomic_commit(&a, 1, &err), 0);
	char buf[32] = { 0 };
	TT_CHECK(read(rfd, buf, sizeof(buf) - 1) == 8 && !strcmp(buf, "through\n"));
	close(rfd);
	TT_CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
	TT_EQ_INT(count_files(), 1);
	unlink(p);
	path_in(t, sizeof(t), "target.txt");
	path_in(p, sizeof(p), "link.txt");
	FILE *fp = fopen(t, "w");
	TT_REQUIRE(fp);
	fputs("old\n", fp);
	fclose(fp);
	TT_REQUIRE(symlink("target.txt", p) == 0);
	TT_EQ_INT(ibf_atomic_open(&a, p, &err), 0);
	fputs("new new\n", a.fp);
	TT_EQ_INT(ibf_atomic_commit(&a, 1, &err), 0);
	TT_CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
	TT_CHECK(stat(t, &st) == 0 && st.st_size == 8);
	TT_EQ_INT(count_files(), 2);
	unlink(p);
	unlink(t);
}

/* A path that names a directory: refused when opened, before anything is
 * written (the rename onto it used to fail only at the commit, after the
 * other outputs of a command had been renamed into place). */
static void test_atomic_dir(void)
{
	char p[128];
	struct ibf_error err = { 0 };
	struct ibf_atomic a;
	path_in(p, sizeof(p), "adir");
	TT_REQUIRE(mkdir(p, 0700) == 0);
	int n0 = count_files();
	int rc = ibf_atomic_open(&a, p, &err);
	if (!rc)
		ibf_atomic_commit(&a, 0, NULL);
	TT_EQ_INT(rc, IBF_EIO);
	TT_CHECK_MSG(strstr(err.msg, "directory") != NULL, "message '%s'", err.msg);
	TT_EQ_INT(count_files(), n0); /* no temporary left */
	rmdir(p);
}

static void test_json(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	TT_REQUIRE(fp);
	ibf_json_str(fp, "a\"b\\c\nd\te\x01");
	fputc(' ', fp);
	ibf_json_str(fp, NULL);
	fclose(fp);
	TT_CHECK_MSG(strcmp(out, "\"a\\\"b\\\\c\\nd\\te\\u0001\" \"\"") == 0, "%s", out);
	free(out);
}

/* Bytes outside well-formed UTF-8 (a Latin-1 node description, a cut
 * sequence, an overlong form, a surrogate) must not reach the JSON or XML
 * output as they are: a JSON reader refuses the whole document. */
static void test_json_utf8(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	TT_REQUIRE(fp);
	/* "né" in Latin-1, then UTF-8 é, € and U+1F600 kept, a cut sequence,
	 * an overlong '/', a surrogate, a stray continuation byte, 0xff */
	ibf_json_str(fp, "n\xe9 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xe2\x82 \xc0\xaf "
			 "\xed\xa0\x80 \x80\xff");
	fclose(fp);
	TT_CHECK_MSG(strcmp(out, "\"n\\u00e9 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 "
				 "\\u00e2\\u0082 \\u00c0\\u00af \\u00ed\\u00a0\\u0080 "
				 "\\u0080\\u00ff\"") == 0,
		     "%s", out);
	free(out);
	out = NULL;
	fp = open_memstream(&out, &len);
	TT_REQUIRE(fp);
	ibf_xml_str(fp, "a<\x01\t\xe9\xc3\xa9&");
	fclose(fp);
	TT_CHECK_MSG(strcmp(out, "a&lt;&#xfffd;\t&#xe9;\xc3\xa9&amp;") == 0, "%s", out);
	free(out);
}

static void test_prng(void)
{
	/* splitmix64 reference values (seed 0 and seed 1234567) */
	uint64_t s = 0;
	TT_CHECK(ibf_splitmix64(&s) == 0xe220a8397b1dcdafull);
	TT_CHECK(ibf_splitmix64(&s) == 0x6e789e6aa1b965f4ull);
	s = 1234567;
	TT_CHECK(ibf_splitmix64(&s) == 6457827717110365317ull);
	TT_CHECK(ibf_mix64(0) == 0xe220a8397b1dcdafull);
	uint64_t st = 42;
	int seen[7] = { 0 };
	for (int i = 0; i < 7000; i++) {
		uint64_t v = ibf_rand_below(&st, 7);
		TT_REQUIRE(v < 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		TT_CHECK(seen[i] > 800 && seen[i] < 1200);
	/* FNV-1a 32 reference values */
	TT_CHECK(ibf_fnv1a("", 0) == 0x811c9dc5u);
	TT_CHECK(ibf_fnv1a("a", 1) == 0xe40c292cu);
	TT_CHECK(ibf_fnv1a("foobar", 6) == 0xbf9cf968u);
	/* fmix64 is a bijection with 0 -> 0 */
	TT_CHECK(ibf_hash64(0) == 0);
	TT_CHECK(ibf_hash64(1) != ibf_hash64(2));
}

static void test_text(void)
{
	const char buf[] = "first line\r\n  0x1F 42 99999999999999999999\nlast";
	struct ibf_lines L;
	const char *s;
	size_t n;
	ibf_lines_init(&L, buf, sizeof(buf) - 1);
	TT_REQUIRE(ibf_lines_next(&L, &s, &n, NULL));
	TT_EQ_INT(n, 10); /* the \r is dropped */
	TT_REQUIRE(ibf_lines_next(&L, &s, &n, NULL));
	TT_EQ_INT(L.lineno, 2);
	struct ibf_cur c = { s, s + n };
	uint64_t v;
	ibf_cur_ws(&c);
	TT_EQ_INT(ibf_cur_num(&c, UINT64_MAX, &v), 0);
	TT_EQ_INT(v, 31);
	ibf_cur_ws(&c);
	TT_EQ_INT(ibf_cur_udec(&c, 41, &v), -2); /* over the maximum */
	ibf_cur_ws(&c);
	TT_EQ_INT(ibf_cur_udec(&c, UINT64_MAX, &v), -2); /* over 64 bits */
	TT_CHECK(ibf_cur_end(&c));
	TT_REQUIRE(ibf_lines_next(&L, &s, &n, NULL));
	TT_EQ_INT(n, 4);
	TT_CHECK(!ibf_lines_next(&L, &s, &n, NULL));
	TT_EQ_INT(ibf_hexval('f'), 15);
	TT_EQ_INT(ibf_hexval('g'), -1);
}

static void test_maps(void)
{
	struct ibf_umap u = { 0 };
	struct ibf_smap m = { 0 };
	int32_t old;
	char names[2000][16]; /* room for any int: -O1 with sanitizers warns otherwise */
	for (int i = 0; i < 2000; i++) {
		TT_EQ_INT(ibf_umap_put(&u, 0x2c90000000000ull + (uint64_t)i * 0x100, i, &old), 0);
		snprintf(names[i], sizeof(names[i]), "n%d", i);
		TT_EQ_INT(ibf_smap_put(&m, names[i], strlen(names[i]), i, &old), 0);
	}
	TT_EQ_INT(ibf_umap_put(&u, 0x2c90000000000ull, 7, &old), 1);
	TT_EQ_INT(old, 0);
	TT_EQ_INT(ibf_smap_put(&m, "n5", 2, 9, &old), 1);
	TT_EQ_INT(old, 5);
	for (int i = 0; i < 2000; i++) {
		TT_EQ_INT(ibf_umap_get(&u, 0x2c90000000000ull + (uint64_t)i * 0x100), i);
		TT_EQ_INT(ibf_smap_get(&m, names[i], strlen(names[i])), i);
	}
	TT_EQ_INT(ibf_umap_get(&u, 1), -1);
	TT_EQ_INT(ibf_smap_get(&m, "n2000", 5), -1);
	ibf_umap_free(&u);
	ibf_smap_free(&m);
}

static void test_json_read(void)
{
	struct ibf_error err;
	const char *doc =
		"{\n \"a\": [1, -2.5e1, true, false, null],\n \"s\": \"x\\u00e9\\ud83d\\ude00\\n\","
		" \"o\": {\"k\": {}}, \"a\": \"last\"}";
	struct ibf_jval *v = ibf_json_parse(doc, strlen(doc), "t.json", &err);
	TT_REQUIRE(v != NULL);
	TT_CHECK(v->type == IBF_JOBJ && v->nkid == 4);
	const struct ibf_jval *a = &v->kid[0];
	TT_CHECK(a->type == IBF_JARR && a->nkid == 5 && a->kid[0].num == 1 &&
		 a->kid[1].num == -25 && a->kid[2].type == IBF_JTRUE &&
		 a->kid[3].type == IBF_JFALSE && a->kid[4].type == IBF_JNULL && a->line == 2);
	const struct ibf_jval *str = ibf_json_get(v, "s");
	TT_CHECK(str && !strcmp(str->str, "x\xc3\xa9\xf0\x9f\x98\x80\n"));
	TT_CHECK(ibf_json_get(v, "a")->type == IBF_JSTR); /* the last of a repeated key */
	TT_CHECK(ibf_json_get(ibf_json_get(v, "o"), "k")->type == IBF_JOBJ);
	TT_CHECK(ibf_json_get(v, "missing") == NULL);
	ibf_json_free(v);
	static const struct {
		const char *text;
		long line;
		const char *msg;
	} bad[] = {
		{ "", 1, "end of the document" },
		{ "{\"a\": 1,}", 1, "member name" },
		{ "[1 2]", 1, "expected ','" },
		{ "{\"a\"\n 1}", 2, "expected ':'" },
		{ "\"abc", 1, "unterminated" },
		{ "\"a\\qb\"", 1, "bad escape" },
		{ "\"\\ud800x\"", 1, "surrogate" },
		{ "\"\\u0000\"", 1, "\\u0000" },
		{ "01", 1, "leading zero" },
		{ "1e999", 1, "bad number" },
		{ "tru", 1, "bad literal" },
		{ "{} x", 1, "after the document" },
		{ "\"a\tb\"", 1, "control character" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		v = ibf_json_parse(bad[k].text, strlen(bad[k].text), "t.json", &err);
		TT_CHECK_MSG(!v && err.line == bad[k].line && strstr(err.msg, bad[k].msg),
			     "case %zu: %s at %ld", k, v ? "parsed" : err.msg, err.line);
		ibf_json_free(v);
	}
	/* nesting is bounded */
	char deep[300];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	v = ibf_json_parse(deep, 200, "t.json", &err);
	TT_CHECK(!v && strstr(err.msg, "deeply"));
	memset(deep, '[', 60);
	memset(deep + 60, ']', 60);
	v = ibf_json_parse(deep, 120, "t.json", &err);
	TT_CHECK(v != NULL);
	ibf_json_free(v);
}

static void test_base64(void)
{
	/* RFC 4648 section 10 vectors, both ways */
	static const char *plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *enc[] = {
		"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"
	};
	for (int i = 0; i < 7; i++) {
		size_t n = 0;
		char *e = ibf_base64_encode(plain[i], strlen(plain[i]), &n);
		TT_CHECK_MSG(e && !strcmp(e, enc[i]) && n == strlen(enc[i]), "encode %d: %s", i,
			     e ? e : "NULL");
		free(e);
		char *d = NULL;
		TT_EQ_INT(ibf_base64_decode(enc[i], strlen(enc[i]), &d, &n), 0);
		TT_CHECK(d && n == strlen(plain[i]) && !memcmp(d, plain[i], n) && d[n] == 0);
		free(d);
	}
	/* every byte value, every length up to 300, round trip */
	unsigned char buf[300];
	uint64_t st = 7;
	for (size_t len = 0; len <= sizeof(buf); len++) {
		for (size_t k = 0; k < len; k++)
			buf[k] = (unsigned char)ibf_splitmix64(&st);
		size_t n, m;
		char *e = ibf_base64_encode(buf, len, &n), *d = NULL;
		TT_REQUIRE(e != NULL);
		TT_CHECK(n == (len + 2) / 3 * 4);
		TT_CHECK(ibf_base64_decode(e, n, &d, &m) == 0 && m == len && !memcmp(d, buf, len));
		free(e);
		free(d);
	}
	/* bad input: length, alphabet, misplaced or non-canonical padding */
	static const char *bad[] = { "Zg=",  "Zm9",  "Z===", "=Zm9",	 "Zg=a", "Zm9v\n",
				     "Zm 9", "Zh==", "Zm9=", "Zg==Zg==", "Zm-v" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *d = (char *)1;
		size_t n = 5;
		TT_CHECK_MSG(ibf_base64_decode(bad[i], strlen(bad[i]), &d, &n) == IBF_EINVAL &&
				     !d && !n,
			     "accepted '%s'", bad[i]);
	}
}

/* "-" is stdin, which one process can read only once: the second read
 * found an empty stream and returned an empty file (sim packet --lfts -
 * --sl - ran with SL 0 everywhere, exit 0) */
static void test_stdin_once(void)
{
	char p[128];
	struct ibf_error err;
	char *buf = NULL;
	size_t len = 0;
	path_in(p, sizeof(p), "stdin.txt");
	FILE *fp = fopen(p, "w");
	TT_REQUIRE(fp);
	fputs("abc\n", fp);
	fclose(fp);
	TT_REQUIRE(freopen(p, "r", stdin) != NULL);
	TT_EQ_INT(ibf_stdin_claim("other.txt", &err), 0);
	TT_EQ_INT(ibf_slurp("-", &buf, &len, &err), 0);
	TT_EQ_INT(len, 4);
	free(buf);
	buf = NULL;
	TT_EQ_INT(ibf_slurp("-", &buf, &len, &err), IBF_EINVAL);
	TT_CHECK(buf == NULL);
	TT_CHECK(strstr(err.msg, "standard input was already read") != NULL);
	TT_CHECK(strcmp(err.file, "-") == 0);
	TT_EQ_INT(ibf_stdin_claim("-", &err), IBF_EINVAL);
	/* other paths are not affected */
	TT_EQ_INT(ibf_slurp(p, &buf, &len, &err), 0);
	free(buf);
	unlink(p);
}

/* option values (base/optval.c), and what the inline parsers they
 * replace got wrong */
static void test_optval(void)
{
	long l = 0;
	double d = 0, a, b, st;
	uint64_t u = 0;
#define S(x) x, strlen(x)
	/* integers: decimal, 0x hex; a leading 0 is not octal (--lmc 010 was
	 * 8, --vls 08 an error) */
	TT_CHECK(!ibf_num_long(S("010"), 0, 100, &l) && l == 10);
	TT_CHECK(!ibf_num_long(S("08"), 0, 100, &l) && l == 8);
	TT_CHECK(!ibf_num_long(S("0x1f"), 0, 100, &l) && l == 31);
	TT_CHECK(!ibf_num_long(S("-7"), -10, 10, &l) && l == -7);
	static const char *const badl[] = { "",	  " 5", "5 ",  "+5",  "5x",
					    "0x", "-",	"--5", "1e3", "99999999999999999999",
					    "-0x" };
	for (size_t i = 0; i < sizeof(badl) / sizeof(badl[0]); i++)
		TT_CHECK_MSG(ibf_num_long(S(badl[i]), -100000, 100000, &l), "'%s' taken", badl[i]);
	TT_CHECK(ibf_num_long(S("8"), 0, 7, &l));
	TT_CHECK(ibf_num_long("5\0", 2, 0, 7, &l));	      /* a NUL inside */
	TT_CHECK(!ibf_num_long("57", 1, 0, 7, &l) && l == 5); /* its length, not the NUL */
	/* seeds: unsigned, no sign ("-1" wrapped to 2^64 - 1) */
	TT_CHECK(!ibf_num_u64(S("18446744073709551615"), &u) && u == UINT64_MAX);
	TT_CHECK(ibf_num_u64(S("18446744073709551616"), &u));
	TT_CHECK(ibf_num_u64(S("-1"), &u));
	TT_CHECK(ibf_num_u64(S(" 1"), &u));
	TT_CHECK(!ibf_num_u64(S("0xdeadbeef"), &u) && u == 0xdeadbeef);
	/* numbers: finite, whole value */
	TT_CHECK(!ibf_num_double(S("0.5"), 0, 1, &d) && d == 0.5);
	TT_CHECK(!ibf_num_double(S("-0"), -1, 1, &d) && d == 0 && !signbit(d));
	static const char *const badd[] = { "",	    "nan",  "inf",  "-inf", "1e400", "0x1p-1",
					    " 0.5", "0.5 ", "0.5x", ".",    "e5",    "1e" };
	for (size_t i = 0; i < sizeof(badd) / sizeof(badd[0]); i++)
		TT_CHECK_MSG(ibf_num_double(S(badd[i]), -1e308, 1e308, &d), "'%s' taken", badd[i]);
	/* times */
	TT_CHECK(!ibf_num_time_ns(S("5us"), 1e10, &d) && d == 5000);
	TT_CHECK(!ibf_num_time_ns(S("1.5ms"), 1e10, &d) && d == 1.5e6);
	TT_CHECK(!ibf_num_time_ns(S("800"), 1e10, &d) && d == 800);
	TT_CHECK(!ibf_num_time_ns(S("10000ms"), 1e10, &d) && d == 1e10);
	static const char *const badt[] = { "1e30us", "1e308ms", "10001ms", "-1us", "nan", "inf",
					    "5 us",   "5us ",	 "5uss",    "us",   "",	   "5s" };
	for (size_t i = 0; i < sizeof(badt) / sizeof(badt[0]); i++)
		TT_CHECK_MSG(ibf_num_time_ns(S(badt[i]), 1e10, &d), "'%s' taken", badt[i]);
	/* byte counts */
	TT_CHECK(!ibf_num_bytes(S("128KiB"), 1, 1L << 40, &l) && l == 131072);
	TT_CHECK(!ibf_num_bytes(S("4G"), 1, 1L << 40, &l) && l == 4L << 30);
	static const char *const badb[] = {
		"-5", "-1K", "0",   "1.5K", "1T", "9223372036854775807k", "18014398509481985k",
		" 5", "+5",  "5 K", ""
	};
	for (size_t i = 0; i < sizeof(badb) / sizeof(badb[0]); i++)
		TT_CHECK_MSG(ibf_num_bytes(S(badb[i]), 1, 1L << 40, &l), "'%s' taken", badb[i]);
	TT_CHECK(!ibf_num_size(S("1.5MiB"), 1e-300, 1e15, &d) && d == 1.5 * 1048576);
	TT_CHECK(ibf_num_size(S("1e30"), 1e-300, 1e15, &d));
	TT_CHECK(ibf_num_size(S("1e300G"), 1e-300, 1e15, &d));
	TT_CHECK(ibf_num_size(S("-1"), 1e-300, 1e15, &d));
	/* ranges */
	TT_CHECK(!ibf_num_range(S("0.1:1.0:0.1"), 1e-6, 1, 10000, &a, &b, &st, &l) && l == 10);
	TT_CHECK(!ibf_num_range(S("0.5:0.5:1"), 1e-6, 1, 10000, &a, &b, &st, &l) && l == 1);
	TT_CHECK(!ibf_num_range(S("0.2:0.4:0.2"), 1e-6, 1, 10000, &a, &b, &st, &l) && l == 2);
	static const char *const badr[] = {
		"0:1:0",       "0.1:1:0",    "0.1:1:-0.1", "0.5:0.4:0.1", "0.1:1.0:0.1x",
		"0.1:1.0",     "0.1",	     "",	   "0.1:1:nan",	  "0.1::0.1",
		"0.1:1.5:0.1", " 0.1:1:0.1", "0.1:1:0.1:"
	};
	for (size_t i = 0; i < sizeof(badr) / sizeof(badr[0]); i++)
		TT_CHECK_MSG(ibf_num_range(S(badr[i]), 1e-6, 1, 10000, &a, &b, &st, &l) == -1,
			     "'%s' taken", badr[i]);
	TT_CHECK(ibf_num_range(S("0.1:1:1e-9"), 1e-6, 1, 10000, &a, &b, &st, &l) == -2);
#undef S
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ibf-test-base.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tt_run("slurp: whole file, NUL, size cap, missing, empty, large", test_slurp);
	tt_run("atomic output: umask mode, failed write leaves old file, no temp", test_atomic);
	tt_run("atomic output: a FIFO written in place, a symlink kept", test_atomic_special);
	tt_run("atomic output: a directory is refused at open", test_atomic_dir);
	tt_run("JSON string escaping", test_json);
	tt_run("JSON and XML text: bytes outside UTF-8", test_json_utf8);
	tt_run("JSON reader: values, escapes, errors with lines, depth", test_json_read);
	tt_run("splitmix64, rand_below, FNV-1a, fmix64", test_prng);
	tt_run("lines and cursor", test_text);
	tt_run("hash maps", test_maps);
	tt_run("base64: RFC 4648 vectors, round trips, bad input", test_base64);
	tt_run("stdin: '-' read once, a second '-' refused", test_stdin_once);
	tt_run("option values: integers, numbers, times, byte counts, ranges", test_optval);
	rmdir(dir);
	return tt_done();
}
