/* Replays the fuzz inputs kept in the tree through every fuzz target
 * without libFuzzer (normal compiler, `make check`): each file of
 * tests/fuzz/regress/NAME/ (inputs that once crashed) and of
 * tests/fuzz/corpus/NAME/ (the seed corpus) goes through target NAME.  One
 * TAP line per target and directory; a crash fails the test (and the
 * sanitizer build names the fault).  Arguments: files to run through one
 * target, `replay NAME FILE...`, for reproducing a libFuzzer finding. */
#include "fuzz.h"
#include "tt.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_file(const struct fuzz_reg *t, const char *path)
{
	size_t size;
	char *data = tt_slurp(path, &size);
	if (!data) {
		printf("# cannot read %s\n", path);
		return -1;
	}
	printf("# %s < %s\n", t->name, path);
	fflush(stdout);
	/* an exact-size copy, as libFuzzer passes it (no terminating NUL to
	 * hide a read past the end from the sanitizers) */
	uint8_t *exact = malloc(size ? size : 1);
	if (exact) {
		memcpy(exact, data, size);
		t->fn(exact, size);
		free(exact);
	}
	free(data);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every regular file of DIR (sorted); -1 when it cannot be read, else the count */
static int run_dir(const struct fuzz_reg *t, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* a target without inputs of this kind */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(len);
		if (path) {
			snprintf(path, len, "%s/%s", dir, names[i]);
			if (run_file(t, path) == 0)
				count++;
			else
				count = -1000000;
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return count;
}

static const struct fuzz_reg *find(const char *name)
{
	for (int i = 0; i < fuzz_nregs; i++)
		if (!strcmp(fuzz_regs[i].name, name))
			return &fuzz_regs[i];
	return NULL;
}

static const char *top; /* tests/fuzz of the source tree */
static int cur;

static void replay_one(void)
{
	static const char *const kinds[] = { "regress", "corpus" };
	const struct fuzz_reg *t = &fuzz_regs[cur];
	int total = 0;
	for (int k = 0; k < 2; k++) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/%s/%s", top, kinds[k], t->name);
		int c = run_dir(t, dir);
		TT_CHECK_MSG(c >= 0, "unreadable input in %s", dir);
		total += c > 0 ? c : 0;
	}
	printf("# %s: %d input(s) replayed\n", t->name, total);
	/* every target has a seed corpus */
	TT_CHECK_MSG(total > 0, "no inputs for target %s", t->name);
}

/* the corpus's tables were written for the base fabric: they must parse
 * against it, or the table targets would only ever see parse errors */
static void base_matches_corpus(void)
{
	static const struct {
		const char *file;
		int kind;
	} seeds[] = {
		{ "lfts/base-minimal.lfts", 0 },
		{ "lfts/base-layered.lfts", 0 },
		{ "lfts/base-minimal.dump_lfts", 0 },
		{ "lfts/base-minimal.opensm.fdbs", 0 },
		{ "lfts/base-minimal.ibdiagnet.fdbs", 0 },
		{ "sl/base-dfsssp.sl", 1 },
		{ "sl/base-triples.sl", 1 },
		{ "sl2vl/base-dfsssp.sl2vl", 2 },
		{ "sl2vl/smpquery.sl2vl", 2 },
		{ "guid2lid/base.guid2lid", 3 },
	};
	const struct ibf_fabric *f = fuzz_base_fabric();
	for (unsigned i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/corpus/%s", top, seeds[i].file);
		size_t len;
		char *buf = tt_slurp(path, &len);
		TT_CHECK_MSG(buf != NULL, "%s missing", path);
		if (!buf)
			continue;
		struct ibf_error err;
		ibf_error_clear(&err);
		int rc = -1;
		if (seeds[i].kind == 0) {
			struct ibf_routes r;
			rc = ibf_lfts_parse(f, buf, len, path, &r, &err);
			if (!rc)
				ibf_routes_free(&r);
		} else if (seeds[i].kind == 1) {
			struct ibf_sl_table t;
			rc = ibf_sl_parse(f, buf, len, path, &t, &err);
			if (!rc)
				ibf_sl_table_free(&t);
		} else if (seeds[i].kind == 2) {
			struct ibf_sl2vl_table t;
			rc = ibf_sl2vl_parse(f, buf, len, path, &t, &err);
			if (!rc)
				ibf_sl2vl_table_free(&t);
		} else {
			struct ibf_fabric *c = fuzz_base_copy();
			rc = ibf_guid2lid_parse(c, buf, len, path, &err);
			ibf_fabric_free(c);
		}
		char msg[1024];
		TT_CHECK_MSG(rc == 0, "%s", ibf_error_format(&err, msg, sizeof(msg)));
		free(buf);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3) {
		const struct fuzz_reg *t = find(argv[1]);
		if (!t) {
			fprintf(stderr, "replay: no target '%s'\n", argv[1]);
			return 2;
		}
		for (int i = 2; i < argc; i++)
			if (run_file(t, argv[i]))
				return 1;
		return 0;
	}
	/* tests/fuzz of the source tree: from top_srcdir (make check) or
	 * FIXTURES (tests/fixtures, as CI's valgrind run sets it) */
	static char dir[4096];
	const char *src = getenv("top_srcdir"), *fx = getenv("FIXTURES");
	if (src)
		snprintf(dir, sizeof(dir), "%s/tests/fuzz", src);
	else if (fx)
		snprintf(dir, sizeof(dir), "%s/../fuzz", fx);
	else
		snprintf(dir, sizeof(dir), "../tests/fuzz");
	top = dir;
	if (!fuzz_nregs) {
		printf("not ok 1 - no fuzz target linked\n1..1\n");
		return 1;
	}
	TT(base_matches_corpus);
	for (cur = 0; cur < fuzz_nregs; cur++)
		tt_run(fuzz_regs[cur].name, replay_one);
	return tt_done();
}
