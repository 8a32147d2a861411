/* Private helpers shared by the topology generators (gen_*.c) and their
 * unit tests: finite fields GF(p^n) and small fabric-building helpers.
 * Not part of the public API. */
#ifndef IBF_GEN_INTERNAL_H
#define IBF_GEN_INTERNAL_H

#include "ibf_topology.h"

#include <stdint.h>

/* ------------------------------------------------------------ GF(q) */

/* Elements of GF(p^n) are the integers 0..q-1: element e stands for the
 * polynomial sum_i d_i x^i over GF(p), where d_i are the base-p digits of e
 * (d_0 least significant).  0 and 1 are the field's zero and one; for n = 1
 * this is plain arithmetic modulo p.  Multiplication is modulo the smallest
 * monic irreducible polynomial of degree n, "smallest" meaning its lower
 * coefficients c_0..c_{n-1}, read as a base-p number with c_0 least
 * significant, are minimal.  The primitive element is the smallest integer
 * whose multiplicative order is q - 1. */
#define IBF_GF_MAX_Q 256
#define IBF_GF_MAX_N 8

struct ibf_gf {
	int q, p, n;
	int poly[IBF_GF_MAX_N + 1]; /* c_0..c_n of the modulus, c_n = 1 */
	int prim;		    /* primitive element xi */
	uint8_t *add, *mul;	    /* q*q tables, [a*q + b] */
	uint8_t *neg, *inv;	    /* q entries; inv[0] = 0 */
	uint8_t *exp;		    /* exp[i] = xi^i, i = 0..q-2 */
	int *log;		    /* log[a] with xi^log[a] = a; log[0] = -1 */
};

/* 1 when q = p^n (n >= 1, p prime), filling p and n (either may be NULL). */
int ibf_prime_power(int q, int *p, int *n);
/* Build GF(q) for a prime power 2 <= q <= IBF_GF_MAX_Q.  0 or IBF_EINVAL /
 * IBF_ENOMEM; on error gf holds nothing to free. */
int ibf_gf_init(struct ibf_gf *gf, int q, struct ibf_error *err);
void ibf_gf_free(struct ibf_gf *gf);

static inline int ibf_gf_add(const struct ibf_gf *gf, int a, int b)
{
	return gf->add[a * gf->q + b];
}
static inline int ibf_gf_sub(const struct ibf_gf *gf, int a, int b)
{
	return gf->add[a * gf->q + gf->neg[b]];
}
static inline int ibf_gf_mul(const struct ibf_gf *gf, int a, int b)
{
	return gf->mul[a * gf->q + b];
}
/* xi^i for any integer i >= 0 (exponents taken modulo q - 1). */
static inline int ibf_gf_pow_prim(const struct ibf_gf *gf, int i)
{
	return gf->exp[i % (gf->q - 1)];
}

/* ------------------------------------------------------------ building */

#define IBF_GEN_WIDTH 4		     /* 4x links */
#define IBF_GEN_SPEED IBF_SPEED_EDR  /* EDR by default */
#define IBF_GEN_MAX_NODES (1u << 22) /* per generated fabric (GUID index is 24 bits) */
#define IBF_GEN_VENDOR 0x02c9u
#define IBF_GEN_SWITCH_DEVID 0xcf08u
#define IBF_GEN_CA_DEVID 0x1017u

/* Add a switch with node GUID ibf_gen_guid(SWITCH, index, 0) (also port 0's
 * GUID and the system image GUID); desc and id are both name.  Returns the
 * node id or a negative error code. */
int ibf_gen_add_switch(struct ibf_fabric *f, uint32_t index, int nports, const char *name,
		       struct ibf_error *err);
/* Add a CA with node GUID ibf_gen_guid(CA, index, 0) and port GUIDs
 * ibf_gen_guid(CA, index, p); sysimg 0 means "the node GUID". */
int ibf_gen_add_ca(struct ibf_fabric *f, uint32_t index, int nports, const char *desc,
		   const char *id, uint64_t sysimg, struct ibf_error *err);
/* Connect with the generators' default width and speed. */
int ibf_gen_link(struct ibf_fabric *f, int a, int pa, int b, int pb, struct ibf_error *err);
/* Give each of the switches 0..nsw-1 `hosts` CAs: "<switch desc>-hNN" on
 * switch ports port0 + 1 .. port0 + hosts (CA index s * hosts + h, port 1). */
int ibf_gen_hosts(struct ibf_fabric *f, uint32_t nsw, int hosts, int port0, struct ibf_error *err);
/* Set meta and finalize.  Returns f, or frees it and returns NULL. */
struct ibf_fabric *ibf_gen_done(struct ibf_fabric *f, const char *meta, struct ibf_error *err);
/* Number of decimal digits of v >= 0 (1 for 0). */
int ibf_gen_digits(long v);
/* max(min_width, digits(count - 1)): zero-padding width for indices < count. */
int ibf_gen_width(long count, int min_width);

#endif
