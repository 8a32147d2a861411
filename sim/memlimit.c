/* The memory this process may use, and which limit says so.
 *
 * Candidates, the smallest wins (the first of equal ones in this order):
 *   - physical memory (sysconf);
 *   - cgroup v2: memory.max of the process's own cgroup (the "0::PATH" line
 *     of /proc/self/cgroup) and of each of its ancestors up to the root of
 *     the mount at /sys/fs/cgroup, since a parent's limit binds its
 *     children too;
 *   - cgroup v1: memory.limit_in_bytes of the cgroup of the "memory"
 *     controller's line (/sys/fs/cgroup/memory/PATH) and its ancestors;
 *   - RLIMIT_AS and RLIMIT_DATA (ulimit -v, ulimit -d) when set.
 * A cgroup file that is missing, unreadable, says "max", is not a plain
 * number, is 0 or is at least 2^62 bytes (cgroup v1 writes about 2^63 for
 * "no limit") is ignored.  Inside a container the cgroup root mounted at
 * /sys/fs/cgroup is usually the container's own cgroup, whose memory.max
 * is the container's limit: the walk up to the mount's root reads it.
 *
 * root (or, when root is NULL, the environment variable IBFAB_CGROUP_ROOT)
 * is put in front of both /proc/self/cgroup and /sys/fs/cgroup, so a test
 * can point them at files of its own; physical memory and the rlimits are
 * always the process's. */
#include "ibf_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CG_ABSURD (1ull << 62)

const char *ibf_mem_limit_source_name(int source)
{
	switch (source) {
	case IBF_MEMLIM_PHYS:
		return "physical memory";
	case IBF_MEMLIM_CGROUP2:
		return "cgroup v2 memory.max";
	case IBF_MEMLIM_CGROUP1:
		return "cgroup v1 memory.limit_in_bytes";
	case IBF_MEMLIM_AS:
		return "address-space ulimit (RLIMIT_AS, ulimit -v)";
	case IBF_MEMLIM_DATA:
		return "data ulimit (RLIMIT_DATA, ulimit -d)";
	case IBF_MEMLIM_CALLER:
		return "the caller's limit";
	default:
		return "no known limit";
	}
}

static void offer(struct ibf_mem_limit *m, uint64_t bytes, int source, const char *where)
{
	if (bytes >= m->bytes)
		return;
	m->bytes = bytes;
	m->source = source;
	snprintf(m->where, sizeof(m->where), "%s", where ? where : "");
}

uint64_t ibf_cgroup_limit_parse(const char *buf, size_t n)
{
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (!n || n > 20)
		return 0; /* empty, or more digits than any limit we take */
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return 0; /* "max", garbage, a NUL */
		v = v * 10 + (uint64_t)(buf[i] - '0');
		if (v >= CG_ABSURD)
			return 0; /* "no limit" (cgroup v1), and no overflow */
	}
	return v;
}

/* a cgroup limit file's value; 0 when it is to be ignored */
static uint64_t read_limit(const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	char buf[64];
	size_t n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	return n < sizeof(buf) ? ibf_cgroup_limit_parse(buf, n) : 0;
}

/* The file `name` in dir base + path and in each ancestor of path up to
 * base itself.  A path that is not absolute or has a ".." component (a
 * cgroup outside the namespace's root: what is mounted is not its
 * ancestor) is not read at all. */
static void walk_cgroup(struct ibf_mem_limit *m, const char *base, const char *path,
			const char *name, int source)
{
	if (path[0] != '/' || strstr(path, "/.."))
		return;
	char dir[IBF_MEM_LIMIT_PATH];
	int n = snprintf(dir, sizeof(dir), "%s%s", base, path);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return;
	size_t blen = strlen(base);
	for (;;) {
		size_t len = strlen(dir);
		while (len > blen && dir[len - 1] == '/')
			dir[--len] = '\0';
		char file[IBF_MEM_LIMIT_PATH + 64];
		snprintf(file, sizeof(file), "%s/%s", dir, name);
		uint64_t v = read_limit(file);
		if (v)
			offer(m, v, source, file);
		if (len <= blen)
			break;
		char *slash = strrchr(dir + blen, '/');
		if (!slash)
			slash = dir + blen;
		*slash = '\0';
	}
}

/* does the comma-separated controller list hold "memory"? */
static int has_memory(const char *list, size_t len)
{
	const char *p = list, *end = list + len;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);
		if (l == 6 && !memcmp(p, "memory", 6))
			return 1;
		p += l + 1;
	}
	return 0;
}

int ibf_cgroup_line_parse(const char *line, size_t n, size_t *path)
{
	/* hierarchy-ID:controller-list:cgroup-path */
	const char *end = line + n;
	const char *c1 = memchr(line, ':', n);
	const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
	if (!c2)
		return 0;
	*path = (size_t)(c2 + 1 - line);
	if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
		return IBF_MEMLIM_CGROUP2;
	if (has_memory(c1 + 1, (size_t)(c2 - c1 - 1)))
		return IBF_MEMLIM_CGROUP1;
	return 0;
}

static void cgroup_limits(struct ibf_mem_limit *m, const char *root)
{
	char path[IBF_MEM_LIMIT_PATH];
	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return;
	char line[IBF_MEM_LIMIT_PATH];
	char v2base[IBF_MEM_LIMIT_PATH], v1base[IBF_MEM_LIMIT_PATH];
	snprintf(v2base, sizeof(v2base), "%s/sys/fs/cgroup", root);
	snprintf(v1base, sizeof(v1base), "%s/sys/fs/cgroup/memory", root);
	while (fgets(line, sizeof(line), fp)) {
		size_t n = strlen(line);
		if (n && line[n - 1] != '\n' && !feof(fp)) {
			int ch; /* longer than any path we can use: skip the rest */
			while ((ch = fgetc(fp)) != EOF && ch != '\n')
				;
			continue;
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		size_t at;
		int kind = ibf_cgroup_line_parse(line, n, &at);
		if (kind == IBF_MEMLIM_CGROUP2)
			walk_cgroup(m, v2base, line + at, "memory.max", kind);
		else if (kind == IBF_MEMLIM_CGROUP1)
			walk_cgroup(m, v1base, line + at, "memory.limit_in_bytes", kind);
	}
	fclose(fp);
}

void ibf_mem_limit_get(const char *root, struct ibf_mem_limit *m)
{
	memset(m, 0, sizeof(*m));
	m->bytes = UINT64_MAX;
	m->source = IBF_MEMLIM_NONE;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psz > 0)
		offer(m, (uint64_t)pages * (uint64_t)psz, IBF_MEMLIM_PHYS, NULL);
	if (!root)
		root = getenv("IBFAB_CGROUP_ROOT");
	cgroup_limits(m, root ? root : "");
	struct rlimit rl;
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
		offer(m, (uint64_t)rl.rlim_cur, IBF_MEMLIM_AS, NULL);
	if (!getrlimit(RLIMIT_DATA, &rl) && rl.rlim_cur != RLIM_INFINITY)
		offer(m, (uint64_t)rl.rlim_cur, IBF_MEMLIM_DATA, NULL);
}
