/* Private helpers shared by the topology readers and writers (io.c,
 * read_ibnd.c, read_ports.c, read_subnet_lst.c, write.c, namemap.c).
 * Not installed; nothing here is part of the public API. */
#ifndef IBF_IO_INTERNAL_H
#define IBF_IO_INTERNAL_H

#include "ibf_topology.h"
#include "ibf_map.h"
#include "ibf_text.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Width/speed tokens as infiniband-diags prints them: "4xEDR", "1xSDR",
 * "??QDR", "4x???", "4x".  Returns 0 on success. */
int ibf_io_parse_ws(const char *s, size_t n, uint8_t *width, uint8_t *speed);

/* Quote a short excerpt of a line for an error message (printable only). */
const char *ibf_io_excerpt(const char *s, size_t n, char *buf, size_t len);

/* A line a diagnostic tool printed on stderr (ibwarn:, src/foo.c:123; ...). */
int ibf_io_is_stderr_line(const char *s, size_t n);

/* The header ibnetdiscover writes once at the top of its topology file
 * ("# Topology file: generated on <date>"); s starts at the '#'. */
int ibf_io_is_ibnd_header(const char *s, size_t n);

/* A discovery progress line of ibnetdiscover -s (libibnetdisc's
 * dump_endnode), printed on stdout before the topology or the -p ports
 * report:
 *   DR path slid 0; dlid 0; 0,1 -> new Channel Adapter {0002c90300000100} portnum 1 lid 12-15 "h1"
 * It carries nothing the records or port lines below do not. */
int ibf_io_is_progress_line(const char *s, size_t n);

/* ------------------------------------------------------------ linking */

/* Link bookkeeping shared by the readers: which port ends were described
 * by the input (seen) and on which line each link was first made. */
struct ibf_linker {
	struct ibf_fabric *f;
	const char *name; /* input name for messages */
	uint8_t *seen;	  /* [nports_total] */
	long *line;	  /* [nports_total] */
};
int ibf_linker_init(struct ibf_linker *k, struct ibf_fabric *f, const char *name,
		    struct ibf_error *err);
void ibf_linker_free(struct ibf_linker *k);
/* (a, pa) says it is cabled to (b, pb).  Reconciles with what other lines
 * said: the same link again merges width/speed (lowest known wins), a
 * different peer is an IBF_EPARSE error at `line`. */
int ibf_linker_add(struct ibf_linker *k, int a, int pa, int b, int pb, int width, int speed,
		   long line, struct ibf_error *err);
/* Into the fabric's meta: one_sided=N, the links whose two ends were not
 * both described, and, when N > 0, the first such link
 * (lowest line) as the end a line described: one_sided_line, _node (node
 * id), _port and _peer_described (1 when lines of the peer node describe
 * some of its ports, 0 when the input has no record of it).  0 or
 * IBF_ENOMEM. */
int ibf_linker_meta(const struct ibf_linker *k);

/* Append "key=value" to the fabric meta ("k=v;k=v"). */
int ibf_io_meta_add(struct ibf_fabric *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Duplicate n bytes as a C string. */
char *ibf_io_strndup(const char *s, size_t n);

/* ------------------------------------------------------------ formats */

struct ibf_fabric *ibf_io_read_ibnd(const char *buf, size_t len, const char *name, int ibsim,
				    struct ibf_error *err);
struct ibf_fabric *ibf_io_read_ports(const char *buf, size_t len, const char *name,
				     struct ibf_error *err);
struct ibf_fabric *ibf_io_read_iblinkinfo(const char *buf, size_t len, const char *name,
					  struct ibf_error *err);
struct ibf_fabric *ibf_io_read_subnet_lst(const char *buf, size_t len, const char *name,
					  struct ibf_error *err);
/* Guess the format of a buffer: an enum ibf_format value, or -1. */
int ibf_io_sniff(const char *buf, size_t len);

/* Every LID a reader took from its input lies in the unicast range: base
 * LID + 2^LMC - 1 <= 0xBFFF (0xC000 and above are multicast, 0xFFFF the
 * permissive LID).  Else IBF_EPARSE naming the port, at defline[node]
 * (the node record's line) when defline is given. */
int ibf_io_check_unicast_lids(const struct ibf_fabric *f, const char *name, const long *defline,
			      struct ibf_error *err);

#endif
