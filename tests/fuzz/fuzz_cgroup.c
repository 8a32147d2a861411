/* Fuzz target: the cgroup files the memory limit is read from (sim
 * flow/packet phases, sim/memlimit.c): a memory.max / memory.limit_in_bytes
 * file, and the lines of /proc/self/cgroup. */
#include "fuzz.h"
#include "ibf_sim.h"

#include <stdlib.h>
#include <string.h>

FUZZ_TARGET(cgroup)
{
	const char *s = (const char *)data;
	uint64_t v = ibf_cgroup_limit_parse(s, size);
	if (v) {
		/* digits, then only newlines and blanks; below 2^62 */
		if (v >= (1ull << 62) || !size || s[0] < '0' || s[0] > '9')
			abort();
		uint64_t x = 0;
		size_t i = 0;
		while (i < size && s[i] >= '0' && s[i] <= '9')
			x = x * 10 + (uint64_t)(s[i++] - '0');
		if (x != v)
			abort();
		for (; i < size; i++)
			if (s[i] != '\n' && s[i] != ' ')
				abort();
	}
	/* every line of the input as a /proc/self/cgroup line */
	for (size_t p = 0; p <= size;) {
		const char *nl = p < size ? memchr(s + p, '\n', size - p) : NULL;
		size_t n = nl ? (size_t)(nl - (s + p)) : size - p, at = 0;
		int kind = ibf_cgroup_line_parse(s + p, n, &at);
		if (kind) {
			if (kind != IBF_MEMLIM_CGROUP1 && kind != IBF_MEMLIM_CGROUP2)
				abort();
			/* PATH follows the second ':' of the line */
			if (at < 2 || at > n || s[p + at - 1] != ':' || !memchr(s + p, ':', at - 1))
				abort();
			if (kind == IBF_MEMLIM_CGROUP2 && (at != 3 || memcmp(s + p, "0::", 3)))
				abort();
		}
		p += n + 1;
	}
	return 0;
}
