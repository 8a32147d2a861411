/* The deadlock schemes by name: what the configuration, the CLI and the
 * deadlock module agree on. */
#ifndef IBF_DL_SCHEME_H
#define IBF_DL_SCHEME_H

#ifdef __cplusplus
extern "C" {
#endif

enum ibf_deadlock_scheme {
	IBF_DEADLOCK_NONE = 0,
	IBF_DEADLOCK_DFSSSP = 1,
	IBF_DEADLOCK_COLORING = 2,
	IBF_DEADLOCK_AUTO = 3,
};
#define IBF_DEADLOCK_COUNT 4

/* "none", "dfsssp", "coloring", "auto", or "?" */
const char *ibf_deadlock_name(int scheme);
/* The scheme named s (case-insensitive), or -1. */
int ibf_deadlock_from_name(const char *s);

#ifdef __cplusplus
}
#endif
#endif
