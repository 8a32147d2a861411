/* Open-addressing hash maps used for name, GUID and key lookups. */
#ifndef IBF_MAP_H
#define IBF_MAP_H

#include "ibf_base.h"

#include <stddef.h>
#include <stdint.h>

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

#endif
