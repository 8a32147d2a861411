/* Finite fields GF(p^n) with full addition and multiplication tables.
 *
 * Representation (see gen_internal.h): element e <-> polynomial whose
 * coefficients are the base-p digits of e.  For n > 1 the modulus is the
 * smallest monic irreducible polynomial of degree n found by exhaustive
 * search; a candidate is accepted when multiplication modulo it has no zero
 * divisors (which for a finite commutative ring means it is a field).  The
 * tables are q*q bytes, fine for q <= 256. */
#include "gen_internal.h"

#include <stdlib.h>
#include <string.h>

int ibf_prime_power(int q, int *pp, int *pn)
{
	if (q < 2)
		return 0;
	int p = 2;
	while ((long)p * p <= q && q % p)
		p++;
	if (q % p)
		p = q; /* no factor up to sqrt(q): q is prime */
	int n = 0, r = q;
	while (r % p == 0) {
		r /= p;
		n++;
	}
	if (r != 1)
		return 0;
	if (pp)
		*pp = p;
	if (pn)
		*pn = n;
	return 1;
}

static void to_digits(int e, int p, int n, int *d)
{
	for (int i = 0; i < n; i++) {
		d[i] = e % p;
		e /= p;
	}
}

static int from_digits(const int *d, int p, int n)
{
	int e = 0;
	for (int i = n - 1; i >= 0; i--)
		e = e * p + d[i];
	return e;
}

/* a * b modulo the monic polynomial x^n + sum_{i<n} f[i] x^i over GF(p). */
static int poly_mulmod(int a, int b, const int *f, int p, int n)
{
	int da[IBF_GF_MAX_N], db[IBF_GF_MAX_N], prod[2 * IBF_GF_MAX_N];
	to_digits(a, p, n, da);
	to_digits(b, p, n, db);
	memset(prod, 0, sizeof(prod));
	for (int i = 0; i < n; i++) {
		if (!da[i])
			continue;
		for (int j = 0; j < n; j++)
			prod[i + j] = (prod[i + j] + da[i] * db[j]) % p;
	}
	/* c x^d = c x^(d-n) x^n == -c x^(d-n) sum_i f[i] x^i */
	for (int d = 2 * n - 2; d >= n; d--) {
		int c = prod[d];
		if (!c)
			continue;
		prod[d] = 0;
		for (int i = 0; i < n; i++)
			prod[d - n + i] = ((prod[d - n + i] - c * f[i]) % p + p) % p;
	}
	return from_digits(prod, p, n);
}

static int poly_add(int a, int b, int p, int n)
{
	int da[IBF_GF_MAX_N], db[IBF_GF_MAX_N];
	to_digits(a, p, n, da);
	to_digits(b, p, n, db);
	for (int i = 0; i < n; i++)
		da[i] = (da[i] + db[i]) % p;
	return from_digits(da, p, n);
}

/* Fill mul for modulus f; returns 1 when there are no zero divisors. */
static int build_mul(uint8_t *mul, const int *f, int p, int n, int q)
{
	for (int a = 0; a < q; a++) {
		for (int b = a; b < q; b++) {
			int c = poly_mulmod(a, b, f, p, n);
			if (c == 0 && a != 0)
				return 0;
			mul[a * q + b] = (uint8_t)c;
			mul[b * q + a] = (uint8_t)c;
		}
	}
	return 1;
}

void ibf_gf_free(struct ibf_gf *gf)
{
	if (!gf)
		return;
	free(gf->add);
	free(gf->mul);
	free(gf->neg);
	free(gf->inv);
	free(gf->exp);
	free(gf->log);
	memset(gf, 0, sizeof(*gf));
}

int ibf_gf_init(struct ibf_gf *gf, int q, struct ibf_error *err)
{
	int p, n;
	memset(gf, 0, sizeof(*gf));
	if (q < 2 || q > IBF_GF_MAX_Q || !ibf_prime_power(q, &p, &n))
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "GF(%d): the order must be a prime power in 2..%d", q,
				     IBF_GF_MAX_Q);
	gf->q = q;
	gf->p = p;
	gf->n = n;
	size_t qq = (size_t)q * (size_t)q;
	gf->add = malloc(qq);
	gf->mul = malloc(qq);
	gf->neg = malloc((size_t)q);
	gf->inv = calloc((size_t)q, 1);
	gf->exp = malloc((size_t)q);
	gf->log = malloc((size_t)q * sizeof(*gf->log));
	if (!gf->add || !gf->mul || !gf->neg || !gf->inv || !gf->exp || !gf->log) {
		ibf_gf_free(gf);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}

	/* addition: digit-wise modulo p */
	for (int a = 0; a < q; a++)
		for (int b = 0; b < q; b++)
			gf->add[a * q + b] = (uint8_t)poly_add(a, b, p, n);
	for (int a = 0; a < q; a++)
		for (int b = 0; b < q; b++)
			if (gf->add[a * q + b] == 0)
				gf->neg[a] = (uint8_t)b;

	/* modulus: smallest monic irreducible of degree n (x for n = 1) */
	int found = 0;
	for (int c = 0; c < q && !found; c++) {
		int f[IBF_GF_MAX_N];
		to_digits(c, p, n, f);
		if (n > 1 && f[0] == 0)
			continue; /* divisible by x */
		if (build_mul(gf->mul, f, p, n, q)) {
			for (int i = 0; i < n; i++)
				gf->poly[i] = f[i];
			gf->poly[n] = 1;
			found = 1;
		}
	}
	if (!found) { /* cannot happen: irreducibles exist for every degree */
		ibf_gf_free(gf);
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "GF(%d): no irreducible polynomial found", q);
	}

	for (int a = 1; a < q; a++)
		for (int b = 1; b < q; b++)
			if (gf->mul[a * q + b] == 1)
				gf->inv[a] = (uint8_t)b;

	/* smallest primitive element */
	gf->prim = -1;
	for (int g = 1; g < q && gf->prim < 0; g++) {
		int x = g, order = 1;
		while (x != 1) {
			x = gf->mul[x * q + g];
			order++;
		}
		if (order == q - 1)
			gf->prim = g;
	}
	if (gf->prim < 0) {
		ibf_gf_free(gf);
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "GF(%d): no primitive element found",
				     q);
	}
	for (int a = 0; a < q; a++)
		gf->log[a] = -1;
	int x = 1;
	for (int i = 0; i < q - 1; i++) {
		gf->exp[i] = (uint8_t)x;
		gf->log[x] = i;
		x = gf->mul[x * q + gf->prim];
	}
	gf->exp[q - 1] = 1; /* convenience: xi^(q-1) = 1 */
	return 0;
}
