/* Live discovery through libibnetdisc (ibf_live.h). */
#include "ibf_live.h"

#ifdef IBF_HAVE_IBNETDISC
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

static unsigned field(const uint8_t *info, enum MAD_FIELDS f)
{
	return (unsigned)mad_get_field((void *)info, 0, f);
}

int ibf_have_live(void)
{
	return 1;
}

struct ibf_fabric *ibf_fabric_discover(const char *ca, int port, struct ibf_error *err)
{
	struct ibnd_config cfg = { 0 };
	ibnd_fabric_t *d = ibnd_discover_fabric((char *)ca, port, NULL, &cfg);
	if (!d) {
		ibf_error_set(err, IBF_EIO, NULL, 0,
			      "libibnetdisc could not discover the fabric (is the HCA up, are you "
			      "allowed to send SMPs?)");
		return NULL;
	}
	struct ibf_fabric *f = ibf_fabric_new();
	int ok = f != NULL;
	if (!ok)
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (ibnd_node_t *n = d->nodes; n && ok; n = n->next) {
		int type = n->type == IB_NODE_SWITCH ? IBF_NODE_SWITCH
			   : n->type == IB_NODE_ROUTER ? IBF_NODE_ROUTER
						       : IBF_NODE_CA;
		int id = ibf_fabric_add_node(f, type, n->numports, n->guid, n->nodedesc, NULL, err);
		if (id < 0) {
			ok = 0;
			break;
		}
		struct ibf_node *nd = &f->nodes[id];
		nd->sysimg_guid = mad_get_field64(n->info, 0, IB_NODE_SYSTEM_GUID_F);
		nd->vendid = field(n->info, IB_NODE_VENDORID_F);
		nd->devid = field(n->info, IB_NODE_DEVID_F);
		if (type == IBF_NODE_SWITCH) {
			nd->enhanced_sp0 = (uint8_t)(n->smaenhsp0 != 0);
			struct ibf_port *p0 = ibf_port(f, id, 0);
			p0->lid = n->smalid;
			p0->lmc = n->smalmc;
			p0->guid = n->ports && n->ports[0] ? n->ports[0]->guid : n->guid;
		}
		for (int p = 1; p <= n->numports; p++) {
			ibnd_port_t *pt = n->ports ? n->ports[p] : NULL;
			if (!pt)
				continue;
			struct ibf_port *fp = ibf_port(f, id, p);
			if (type != IBF_NODE_SWITCH) {
				fp->guid = pt->guid;
				fp->lid = pt->base_lid;
				fp->lmc = pt->lmc;
			}
		}
	}
	if (ok && ibf_fabric_index_guids(f)) { /* no quadratic GUID lookups below */
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		ok = 0;
	}
	for (ibnd_node_t *n = d->nodes; n && ok; n = n->next) {
		int a = ibf_fabric_find_guid(f, n->guid);
		for (int p = 1; p <= n->numports && ok && a >= 0; p++) {
			ibnd_port_t *pt = n->ports ? n->ports[p] : NULL;
			if (!pt || !pt->remoteport || !pt->remoteport->node)
				continue;
			int b = ibf_fabric_find_guid(f, pt->remoteport->node->guid);
			if (b < 0)
				continue;
			int w = ibf_width_from_ib(field(pt->info, IB_PORT_LINK_WIDTH_ACTIVE_F));
			int s = ibf_speed_from_ib(field(pt->info, IB_PORT_LINK_SPEED_ACTIVE_F),
						  field(pt->info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F), 0);
			if (ibf_port(f, a, p)->peer_node == IBF_NO_NODE &&
			    ibf_port(f, b, pt->remoteport->portnum)->peer_node == IBF_NO_NODE)
				ok = !ibf_fabric_connect(f, a, p, b, pt->remoteport->portnum, w, s, err);
			struct ibf_port *fp = ibf_port(f, a, p);
			fp->width_sup = ibf_width_from_ib(field(pt->info, IB_PORT_LINK_WIDTH_SUPPORTED_F));
			fp->speed_sup = ibf_speed_from_ib(field(pt->info, IB_PORT_LINK_SPEED_SUPPORTED_F),
							  field(pt->info, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F),
							  0);
		}
	}
	ibnd_destroy_fabric(d);
	if (ok && ibf_fabric_finalize(f, err))
		ok = 0;
	if (!ok) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}

#else

int ibf_have_live(void)
{
	return 0;
}

struct ibf_fabric *ibf_fabric_discover(const char *ca, int port, struct ibf_error *err)
{
	(void)ca;
	(void)port;
	ibf_error_set(err, IBF_ENOTSUP, NULL, 0,
		      "live discovery is not available: ibfab was built without libibnetdisc "
		      "(install libibnetdisc-dev and libibmad-dev, then reconfigure)");
	return NULL;
}

#endif
