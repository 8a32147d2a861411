/* libFuzzer targets for every reader of ibfab, and their replay.
 *
 * A target is one file tests/fuzz/fuzz_NAME.c:
 *
 *	#include "fuzz.h"
 *	FUZZ_TARGET(NAME)
 *	{
 *		... parse (data, size), hand what parses to fuzz_consume_*() ...
 *		return 0;
 *	}
 *
 * plus one line `FUZZ_SRCS += tests/fuzz/fuzz_NAME.c` in tests/fuzz/fuzz.am.
 * Built with --enable-fuzz (clang), each file becomes its own libFuzzer
 * binary (FUZZ_TARGET is LLVMFuzzerTestOneInput).  In a normal build all
 * files link into tests/fuzz/replay, where FUZZ_TARGET registers the
 * function under NAME and the replay runs every file of
 * tests/fuzz/regress/NAME/ through it (a crash there fails `make check`).
 * Targets must not leak, exit or print; they may abort() on a broken
 * invariant. */
#ifndef IBF_FUZZ_H
#define IBF_FUZZ_H
#include "ibf_cabling.h"
#include "ibf_conf.h"
#include "ibf_deadlock.h"
#include "ibf_routing.h"
#include "ibf_topology.h"

#include <stddef.h>
#include <stdint.h>

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);
struct fuzz_reg {
	const char *name;
	fuzz_fn fn;
};
/* the targets linked into this program (replay only) */
extern struct fuzz_reg fuzz_regs[];
extern int fuzz_nregs;
void fuzz_register(const char *name, fuzz_fn fn);

#ifdef FUZZ_REPLAY
#define FUZZ_TARGET(name)                                              \
	static int fuzz_one_##name(const uint8_t *data, size_t size);  \
	__attribute__((constructor)) static void fuzz_reg_##name(void) \
	{                                                              \
		fuzz_register(#name, fuzz_one_##name);                 \
	}                                                              \
	static int fuzz_one_##name(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name)                                             \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

/* The fixed fabric the table readers (LFTs, SL, SL2VL, guid2lid, ...) read
 * against: HyperX 3x2, one host per switch, LMC 1, as
 * `ibfab topo gen hyperx --s1 3 --s2 2 --hosts 1 --lmc 1` writes it (the
 * seed corpus is made from that command).  Built once; never modify it. */
const struct ibf_fabric *fuzz_base_fabric(void);
/* A private copy of it (free with ibf_fabric_free). */
struct ibf_fabric *fuzz_base_copy(void);
/* Minimal routes of the base fabric (built once, read only). */
const struct ibf_routes *fuzz_base_routes(void);

/* Everything that consumes a fabric: LIDs when missing, every engine (or
 * only minimal when !all), deadlock schemes on the tables with the
 * independent verifier, route check and stats, a cable plan made from the
 * fabric and the validator.  Skips fabrics above a small size so one input
 * stays fast.  Aborts when the verifier contradicts a scheme's claim of
 * deadlock freedom. */
void fuzz_consume_fabric(const struct ibf_fabric *f, int all);
/* Tables read for f: route check, stats, each deadlock scheme, verifier. */
void fuzz_consume_routes(const struct ibf_fabric *f, struct ibf_routes *r);
/* Deadlock verification of the base routes with these SL / SL2VL tables. */
void fuzz_consume_sl(const struct ibf_sl_table *sl, const struct ibf_sl2vl_table *s2v);
/* A fabric reader's input: parse as fmt, write back in every format and
 * read that again, then fuzz_consume_fabric(f, 0). */
void fuzz_fabric_text(const uint8_t *data, size_t size, int fmt);
#endif
