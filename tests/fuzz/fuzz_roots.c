/* Fuzz target: a roots file (node GUIDs, the dmodk_roots / --dmodk-roots
 * file; the same reader takes the GUIDs of --avoid), then on a 4-ary
 * 2-tree: the GUID check, the roots check (ibf_ftree_check_roots), the
 * tree from those roots, dmodk with them and hratio avoiding them (tables
 * with a loop or a wrong delivery abort). */
#include "fuzz.h"
#include "ibf_fattree.h"

#include <stdlib.h>

/* a path that never names a file, so the checks that re-read the file for
 * line numbers find nothing */
#define ROOTS_PATH "/nonexistent/fuzz-roots"

static struct ibf_fabric *tree;

FUZZ_TARGET(roots)
{
	uint64_t *g;
	uint32_t n;
	if (ibf_ftree_parse_roots((const char *)data, size, ROOTS_PATH, &g, &n, NULL))
		return 0;
	if (!tree) {
		tree = ibf_gen_kary_ntree(4, 2, NULL);
		if (!tree || ibf_assign_lids(tree, 0, 0, NULL))
			abort();
	}
	if (n <= 64) {
		char buf[2048];
		if (!ibf_ftree_check_guids(tree, ROOTS_PATH, "root", g, n, 0, NULL)) {
			ibf_ftree_check_roots(tree, ROOTS_PATH, g, n, 1, buf, sizeof(buf));
			ibf_ftree_check_roots(tree, ROOTS_PATH, g, n, 0, buf, sizeof(buf));
			struct ibf_ftree_opts to;
			ibf_ftree_opts_default(&to);
			to.roots = g;
			to.nroots = n;
			struct ibf_ftree t;
			if (!ibf_ftree_build(tree, &to, &t, NULL)) {
				ibf_ftree_describe(&t, buf, sizeof(buf));
				ibf_ftree_free(&t);
			}
		}
		struct ibf_route_opts ro;
		ibf_route_opts_default(&ro);
		ro.threads = 1;
		ro.roots = g;
		ro.nroots = n;
		ro.avoid = g;
		ro.navoid = n;
		static const char *const engines[] = { "dmodk", "hratio" };
		for (unsigned i = 0; i < 2; i++) {
			struct ibf_routes r;
			if (ibf_route(tree, engines[i], &ro, &r, NULL, NULL))
				continue;
			/* whatever the roots, the tables an engine hands out
			 * never loop and never deliver to the wrong port */
			struct ibf_check_report cr;
			if (!ibf_route_check(tree, &r, 0, &cr, NULL) && (cr.loops || cr.wrong))
				abort();
			ibf_routes_free(&r);
		}
	}
	free(g);
	return 0;
}
