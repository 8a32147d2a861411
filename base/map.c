/* Open-addressing hash maps: byte strings -> int and 64-bit keys -> int. */
#include "ibf_map.h"

#include <stdlib.h>
#include <string.h>

int32_t ibf_smap_get(const struct ibf_smap *m, const char *s, size_t n)
{
	if (!m->cap)
		return -1;
	uint32_t h = ibf_fnv1a(s, n), mask = m->cap - 1;
	for (uint32_t i = h & mask;; i = (i + 1) & mask) {
		const struct ibf_smap_slot *sl = &m->slot[i];
		if (!sl->s)
			return -1;
		if (sl->hash == h && sl->len == n && memcmp(sl->s, s, n) == 0)
			return sl->val;
	}
}

static int smap_grow(struct ibf_smap *m)
{
	uint32_t nc = m->cap ? m->cap * 2 : 64;
	if (nc < m->cap)
		return IBF_ENOMEM;
	struct ibf_smap_slot *ns = calloc(nc, sizeof(*ns));
	if (!ns)
		return IBF_ENOMEM;
	for (uint32_t i = 0; i < m->cap; i++) {
		struct ibf_smap_slot *sl = &m->slot[i];
		if (!sl->s)
			continue;
		uint32_t j = sl->hash & (nc - 1);
		while (ns[j].s)
			j = (j + 1) & (nc - 1);
		ns[j] = *sl;
	}
	free(m->slot);
	m->slot = ns;
	m->cap = nc;
	return 0;
}

int ibf_smap_put(struct ibf_smap *m, const char *s, size_t n, int32_t val, int32_t *old)
{
	if (n > UINT32_MAX)
		return IBF_ENOMEM;
	if ((m->n + 1) * 2 > m->cap && smap_grow(m))
		return IBF_ENOMEM;
	uint32_t h = ibf_fnv1a(s, n), mask = m->cap - 1;
	uint32_t i = h & mask;
	for (;; i = (i + 1) & mask) {
		struct ibf_smap_slot *sl = &m->slot[i];
		if (!sl->s)
			break;
		if (sl->hash == h && sl->len == n && memcmp(sl->s, s, n) == 0) {
			if (old)
				*old = sl->val;
			return 1;
		}
	}
	/* an empty key still needs a non-NULL pointer to mark the slot used */
	m->slot[i].s = n ? s : "";
	m->slot[i].len = (uint32_t)n;
	m->slot[i].hash = h;
	m->slot[i].val = val;
	m->n++;
	return 0;
}

void ibf_smap_free(struct ibf_smap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}

int32_t ibf_umap_get(const struct ibf_umap *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	uint32_t mask = m->cap - 1;
	for (uint32_t i = (uint32_t)ibf_hash64(key) & mask;; i = (i + 1) & mask) {
		if (m->slot[i].val < 0)
			return -1;
		if (m->slot[i].key == key)
			return m->slot[i].val;
	}
}

static int umap_grow(struct ibf_umap *m)
{
	uint32_t nc = m->cap ? m->cap * 2 : 64;
	if (nc < m->cap)
		return IBF_ENOMEM;
	struct ibf_umap_slot *ns = malloc((size_t)nc * sizeof(*ns));
	if (!ns)
		return IBF_ENOMEM;
	for (uint32_t i = 0; i < nc; i++)
		ns[i].val = -1;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->slot[i].val < 0)
			continue;
		uint32_t j = (uint32_t)ibf_hash64(m->slot[i].key) & (nc - 1);
		while (ns[j].val >= 0)
			j = (j + 1) & (nc - 1);
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->cap = nc;
	return 0;
}

int ibf_umap_put(struct ibf_umap *m, uint64_t key, int32_t val, int32_t *old)
{
	if ((m->n + 1) * 2 > m->cap && umap_grow(m))
		return IBF_ENOMEM;
	uint32_t mask = m->cap - 1;
	uint32_t i = (uint32_t)ibf_hash64(key) & mask;
	for (; m->slot[i].val >= 0; i = (i + 1) & mask) {
		if (m->slot[i].key == key) {
			if (old)
				*old = m->slot[i].val;
			return 1;
		}
	}
	m->slot[i].key = key;
	m->slot[i].val = val;
	m->n++;
	return 0;
}

void ibf_umap_free(struct ibf_umap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}
