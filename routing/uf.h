/* Union-find over uint32_t indices, the lower index the root of a merged
 * set (so a set's root does not depend on the order of the joins): p[x] = x
 * for every x to start with.  Shared by the fat-tree finder and the slow
 * cables' cut test. */
#ifndef IBF_UF_H
#define IBF_UF_H
#include <stdint.h>

static inline uint32_t uf_find(uint32_t *p, uint32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]]; /* path halving */
		x = p[x];
	}
	return x;
}

static inline void uf_join(uint32_t *p, uint32_t a, uint32_t b)
{
	a = uf_find(p, a);
	b = uf_find(p, b);
	if (a < b)
		p[b] = a;
	else if (b < a)
		p[a] = b;
}
#endif
