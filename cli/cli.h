/* ibfab command line: shared helpers for the subcommands. */
#ifndef IBF_CLI_H
#define IBF_CLI_H
#include "ibf_topology.h"

/* Each subcommand: argc/argv start at the subcommand's own name. Returns the
 * process exit status. */
typedef int (*ibf_cmd_fn)(int argc, char **argv);

struct ibf_cmd {
	const char *name;
	ibf_cmd_fn fn;
	const char *summary;
};

/* Print "ibfab: <formatted error>" to stderr; returns 1 (or 2 for usage). */
int cli_fail(const struct ibf_error *err);
/* The multiplier of a byte-count suffix: k, K, KiB 1024; M, MiB 2^20; G, GiB
 * 2^30; "" 1; anything else 0. */
long cli_byte_unit(const char *suffix);
int cli_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse an integer option value; prints an error and returns -1 on failure. */
int cli_int(const char *opt, const char *val, long lo, long hi, long *out);
/* --threads N of every command: a count 1..max, or 0 / "auto" for one per
 * online CPU (at most max; a note on stderr says how many), by the rules of
 * the ibfab.conf key `threads`.  Prints a usage error for prog and returns 2
 * on a bad value, else 0. */
int cli_threads(const char *prog, const char *val, long max, long *out);
/* Online CPUs, in 1..max. */
long cli_online_cpus(long max);
/* Log callback for the library's options: errors always, info messages too
 * when ctx points to a non-zero int. */
void cli_log(void *ctx, int level, const char *msg);
/* Parse a fabric format option: any readable format (input) or one ibfab
 * writes (ibnetdiscover, ibsim, json).  0 on success, else the usage error
 * was printed and the exit status (2) is returned. */
int cli_input_format(const char *prog, const char *val, int *fmt);
int cli_output_format(const char *prog, const char *val, int *fmt);
/* Dispatch to a sub-subcommand table (e.g. topo gen|info|convert). */
int cli_dispatch(const char *prefix, const struct ibf_cmd *cmds, int argc, char **argv);

/* A command's output files, all or nothing: every file is opened (as a
 * temporary beside it) before anything is computed or written, and renamed
 * into place only when all were written; on any failure none is. */
#define CLI_OUTS_MAX 6
struct cli_outs {
	struct ibf_atomic at[CLI_OUTS_MAX];
	const char *path[CLI_OUTS_MAX]; /* as given */
	int n;
};
/* Open path (NULL: nothing, *fp = NULL); on failure every file opened so far
 * is dropped and the error is returned.  A regular file named for two
 * outputs is an error. */
int cli_outs_add(struct cli_outs *o, const char *path, FILE **fp, struct ibf_error *err);
/* Two names of one file: the same text, the same existing file, or, for
 * files not there yet, the same name in the same directory. */
int cli_same_file(const char *a, const char *b);
/* ok: rename every file into place (a write error drops all that are not
 * yet renamed); !ok: remove them all.  Returns 0 or the first error. */
int cli_outs_finish(struct cli_outs *o, int ok, struct ibf_error *err);

/* Switches of f with no entry at all in r (absent from the dump read into
 * r); *first = the first of them in the fabric's canonical order (by GUID,
 * not by place in the file), as a switch index. */
struct ibf_routes;
uint32_t cli_lfts_missing(const struct ibf_fabric *f, const struct ibf_routes *r, uint32_t *first);

/* A roots file (path, its GUIDs roots[n]) for engine: a GUID of no switch
 * of f is an error with the file's line; for dmodk, switches that look
 * like the wrong ones (a leaf, part of the top) are a warning on stderr,
 * even with -q (the tables still route, worse than expected). */
int cli_check_roots(const struct ibf_fabric *f, const char *engine, const char *path,
		    const uint64_t *roots, uint32_t n, struct ibf_error *err);

/* The independent verifier on a deadlock scheme's result dl for tables r
 * (cli/cmd_deadlock.c): *ok = deadlock-free; the report goes to out (NULL:
 * none).  Returns 0 or an error. */
struct ibf_dl;
int cli_verify_dl(const struct ibf_fabric *f, const struct ibf_routes *r, const struct ibf_dl *dl,
		  long max_cycles, FILE *out, struct ibf_error *err, int *ok);

int cmd_topo(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_deadlock(int argc, char **argv);
int cmd_cabling(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_rail(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sim_packet(int argc, char **argv);

/* Read a fabric from a file, or discover it now when path is "live:[CA[:PORT]]"
 * (what --live becomes; docs/formats.md). */
struct ibf_fabric *cli_read_fabric(const char *path, int fmt, struct ibf_error *err);
/* ibf_lfts_read, and a note on stderr when the file is ibroute / dump_lfts
 * output whose switches' top LID, a multiple of 64, has no entry in any
 * table (infiniband-diags does not read that block; docs/formats.md). */
int cli_lfts_read(const struct ibf_fabric *f, const char *path, struct ibf_routes *r,
		  struct ibf_error *err);
/* A number the reader left in the fabric's meta (key), def when absent. */
long cli_meta_long(const struct ibf_fabric *f, const char *key, long def);

/* Read a fabric and give it LIDs (guid2lid file, the file's own, or assigned
 * with lmc; lmc < 0 = keep the file's / 0). */
struct ibf_fabric *cli_load_fabric(const char *path, const char *g2l, long lmc, int quiet,
				   struct ibf_error *err);

#endif
