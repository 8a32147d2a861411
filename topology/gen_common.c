/* Small helpers shared by the topology generators. */
#include "gen_internal.h"

#include <stdlib.h>

int ibf_gen_add_switch(struct ibf_fabric *f, uint32_t index, int nports, const char *name,
		       struct ibf_error *err)
{
	if (index > 0xffffffu)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "too many switches for the generated GUID scheme");
	uint64_t guid = ibf_gen_guid(IBF_NODE_SWITCH, index, 0);
	int id = ibf_fabric_add_node(f, IBF_NODE_SWITCH, nports, guid, name, name, err);
	if (id < 0)
		return id;
	struct ibf_node *n = &f->nodes[id];
	n->sysimg_guid = guid;
	n->vendid = IBF_GEN_VENDOR;
	n->devid = IBF_GEN_SWITCH_DEVID;
	ibf_port(f, id, 0)->guid = guid;
	return id;
}

int ibf_gen_add_ca(struct ibf_fabric *f, uint32_t index, int nports, const char *desc,
		   const char *id, uint64_t sysimg, struct ibf_error *err)
{
	if (index > 0xffffffu)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0,
				     "too many hosts for the generated GUID scheme");
	uint64_t guid = ibf_gen_guid(IBF_NODE_CA, index, 0);
	int node = ibf_fabric_add_node(f, IBF_NODE_CA, nports, guid, desc, id, err);
	if (node < 0)
		return node;
	struct ibf_node *n = &f->nodes[node];
	n->sysimg_guid = sysimg ? sysimg : guid;
	n->vendid = IBF_GEN_VENDOR;
	n->devid = IBF_GEN_CA_DEVID;
	for (int p = 1; p <= nports; p++)
		ibf_port(f, node, p)->guid = ibf_gen_guid(IBF_NODE_CA, index, p);
	return node;
}

int ibf_gen_link(struct ibf_fabric *f, int a, int pa, int b, int pb, struct ibf_error *err)
{
	return ibf_fabric_connect(f, a, pa, b, pb, IBF_GEN_WIDTH, IBF_GEN_SPEED, err);
}

int ibf_gen_hosts(struct ibf_fabric *f, uint32_t nsw, int hosts, int port0, struct ibf_error *err)
{
	char name[96];
	int wh = ibf_gen_width(hosts, 2);
	if (wh > 10) /* never (an int has 10 digits); bounds it for -Wformat-truncation */
		wh = 10;
	for (uint32_t s = 0; s < nsw; s++)
		for (int h = 0; h < hosts; h++) {
			snprintf(name, sizeof(name), "%s-h%0*d", f->nodes[s].desc, wh, h);
			uint32_t idx = s * (uint32_t)hosts + (uint32_t)h;
			int c = ibf_gen_add_ca(f, idx, 1, name, name, 0, err);
			if (c < 0)
				return c;
			int rc = ibf_gen_link(f, (int)s, port0 + h + 1, c, 1, err);
			if (rc)
				return rc;
		}
	return 0;
}

struct ibf_fabric *ibf_gen_done(struct ibf_fabric *f, const char *meta, struct ibf_error *err)
{
	if (ibf_fabric_set_meta(f, meta)) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		ibf_fabric_free(f);
		return NULL;
	}
	if (ibf_fabric_finalize(f, err)) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}

int ibf_gen_digits(long v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

int ibf_gen_width(long count, int min_width)
{
	int d = ibf_gen_digits(count > 1 ? count - 1 : 0);
	return d > min_width ? d : min_width;
}
