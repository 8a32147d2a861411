/* 2-D HyperX (Ahn et al. 2009): S1 x S2 switches at coordinates (i, j);
 * switches sharing a coordinate are fully connected along that dimension,
 * with `trunk` parallel cables per pair, and every switch has `hosts` hosts.
 *
 * Ports: hosts 1..hosts, then dimension 1 (the other i' in increasing order,
 * `trunk` consecutive ports each), then dimension 2 likewise.  Switch (i, j)
 * is node i*S2 + j named "hx-%02d-%02d"; hosts follow all switches, named
 * "<switch>-h%02d". */
#include "gen_internal.h"

#include <stdlib.h>

struct ibf_fabric *ibf_gen_hyperx(const struct ibf_hyperx_opts *o, struct ibf_error *err)
{
	if (!o) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "no HyperX options");
		return NULL;
	}
	int s1 = o->s1, s2 = o->s2, T = o->trunk, H = o->hosts;
	if (s1 < 1 || s1 > IBF_MAX_PORTS + 1) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "s1=%d is out of range 1..%d", s1,
			      IBF_MAX_PORTS + 1);
		return NULL;
	}
	if (s2 < 1 || s2 > IBF_MAX_PORTS + 1) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "s2=%d is out of range 1..%d", s2,
			      IBF_MAX_PORTS + 1);
		return NULL;
	}
	if (T < 1 || T > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "trunk=%d is out of range 1..%d", T,
			      IBF_MAX_PORTS);
		return NULL;
	}
	if (H < 0 || H > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0, "hosts=%d is out of range 0..%d", H,
			      IBF_MAX_PORTS);
		return NULL;
	}
	long links = ((long)s1 - 1 + s2 - 1) * T;
	long ports = links + H;
	if (ports > IBF_MAX_PORTS) {
		ibf_error_set(err, IBF_EINVAL, NULL, 0,
			      "HyperX switches need %ld ports ((s1-1 + s2-1) x trunk = %ld links + "
			      "%d hosts); at most %d",
			      ports, links, H, IBF_MAX_PORTS);
		return NULL;
	}
	/* ports <= 254 bounds s1 + s2, so the node count is small */
	struct ibf_fabric *f = ibf_fabric_new();
	if (!f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	int nports = ports > 0 ? (int)ports : 1;
	int w1 = ibf_gen_width(s1, 2), w2 = ibf_gen_width(s2, 2);
	char name[96];
	for (int i = 0; i < s1; i++)
		for (int j = 0; j < s2; j++) {
			snprintf(name, sizeof(name), "hx-%0*d-%0*d", w1, i, w2, j);
			if (ibf_gen_add_switch(f, (uint32_t)(i * s2 + j), nports, name, err) < 0)
				goto fail;
		}
	int d2 = H + (s1 - 1) * T; /* port before the first dimension-2 port */
	for (int i = 0; i < s1; i++)
		for (int j = 0; j < s2; j++) {
			int me = i * s2 + j;
			/* dimension 1: (i, j) -- (i2, j) for i2 > i */
			for (int i2 = i + 1; i2 < s1; i2++)
				for (int t = 0; t < T; t++)
					if (ibf_gen_link(f, me, H + (i2 - 1) * T + t + 1,
							 i2 * s2 + j, H + i * T + t + 1, err))
						goto fail;
			/* dimension 2: (i, j) -- (i, j2) for j2 > j */
			for (int j2 = j + 1; j2 < s2; j2++)
				for (int t = 0; t < T; t++)
					if (ibf_gen_link(f, me, d2 + (j2 - 1) * T + t + 1,
							 i * s2 + j2, d2 + j * T + t + 1, err))
						goto fail;
		}
	if (ibf_gen_hosts(f, (uint32_t)(s1 * s2), H, 0, err))
		goto fail;
	char meta[160];
	snprintf(meta, sizeof(meta), "family=hyperx;s1=%d;s2=%d;trunk=%d;hosts=%d", s1, s2, T, H);
	return ibf_gen_done(f, meta, err);
fail:
	ibf_fabric_free(f);
	return NULL;
}
