/* ibfab OpenSM plugin (libibfab.so): registers every ibfab routing engine
 * with a stock OpenSM 3.3.23 as an external routing engine.
 *
 * Loaded through opensm.conf "event_plugin_name ibfab"; enabled with
 * "routing_engine layered" (or lnmp, minimal, ...).  See docs/plugin.md.
 *
 * Mechanics (docs/plugin.md):
 *  - create(osm) reads ibfab.conf and registers one external engine per
 *    entry of ibf_engines[] with osm_register_external_routing_engine().
 *    It never returns NULL once an engine is registered: OpenSM dlclose()s
 *    a plugin whose create() fails, and the registered setup pointers would
 *    dangle.  A bad configuration is therefore reported in the log and the
 *    engines refuse to route (OpenSM falls back to the next engine).
 *  - build_lid_matrices returns 1: OpenSM computes its min-hop lid
 *    matrices.  Those hop counts describe the topology (hops to a LID
 *    through each port), not our tables; OpenSM uses them for multicast
 *    spanning trees and diagnostic dumps only, so they stay valid with
 *    non-minimal unicast routes.
 *  - ucast_build_fwd_tables builds an ibf_fabric from osm_subn_t, runs the
 *    engine, writes new_lft[] for every switch and checks that every LID is
 *    routed.  On any failure it clears what it wrote and returns -1.
 *  - report() feeds the rail health service (docs/rail.md, "Health
 *    service") when ibfab.conf sets rail_registry: PerfMgr's port counter
 *    events of rail switch ports go to rail/health.c (a binary search and a
 *    few stores under a mutex); at the end of a PerfMgr sweep a writer
 *    thread writes the registry (a file, or etcd through rail/store.c: one
 *    transaction per sweep, keys on a lease it renews), so OpenSM's threads
 *    never wait for file or network I/O.
 *
 * Every symbol except osm_event_plugin is static or hidden (version script
 * plugin/ibfab.map): the opensm executable exports many generic names.
 */
#include <opensm/osm_config.h> /* first: it changes the layout of osm_opensm_t */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <opensm/osm_version.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>

#include "ibf_conf.h"
#include "ibf_deadlock.h"
#include "ibf_fattree.h"
#include "ibf_rail.h"
#include "ibf_routing.h"
#include "ibf_topology.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "?"
#endif

#define IBFAB_CONF_DEFAULT "/etc/opensm/ibfab.conf"
#define IBFAB_CONF_ENV "IBFAB_CONF"
#define MSG_MAX 1024

/* the plugin: one per OpenSM, shared by every registered engine */
struct ibfab {
	osm_opensm_t *osm;
	struct ibf_conf conf;
	int conf_ok;		/* 0: the engines refuse to route */
	char conf_msg[MSG_MAX]; /* why, when !conf_ok */
	/* the file read at startup, to tell an admin who edits it that the
	 * running OpenSM keeps the options it started with */
	char conf_path[IBF_CONF_PATH_MAX];
	struct conf_stamp {
		int exists;
		dev_t dev;
		ino_t ino;
		off_t size;
		struct timespec mtime;
	} conf_stamp, conf_warned; /* at startup; last change warned about */
	int registered;		/* engines registered */

	/* the last tables this plugin configured (for path_sl / SL2VL later);
	 * dropped when an ibfab engine fails, because OpenSM then uses tables
	 * from another engine */
	struct ibf_fabric *fabric;
	struct ibf_routes routes;
	int have_routes;
	char engine[32];
	unsigned long runs;
	/* stable_state_dir: the first sweep read it (or had none to read);
	 * the hash of the H last written or read there */
	int state_tried, state_have_sig, state_failed;
	uint64_t state_sig;

	/* deadlock scheme (ibfab.conf `deadlock`): its result for the tables
	 * above (NULL when none); node GUID -> fabric node id, sorted, for
	 * update_sl2vl */
	struct ibf_dl *dl;
	struct dl_gidx {
		uint64_t guid;
		int32_t node;
	} * dl_gidx;
	uint32_t dl_ngidx;
	unsigned long routes_gen; /* bumped whenever fabric changes */

	/* rail health service (ibfab.conf rail_registry) */
	struct health {
		int on;
		pthread_mutex_t mu; /* h, pending, stop, events */
		pthread_cond_t cv;
		pthread_t writer;
		int writer_started;
		struct ibf_health *h;	  /* NULL until the rail structure is known */
		unsigned long h_gen;	  /* routes_gen h was built from (0: the subnet) */
		struct ibf_health_opts o; /* from ibfab.conf */
		struct ibf_rail_map *map;
		int pending; /* a closed sweep waits to be written */
		int stop;
		/* spines hratio avoids (ibfab.conf rail_avoid_below): the list,
		 * bumped on every change; reroute asks the writer for a reroute */
		uint64_t *avoid;
		uint32_t navoid;
		unsigned long avoid_gen;
		int reroute;
		int held_log; /* the held spines changed: log them */
		/* GPU NICs cabled off their rail as last logged (SM thread):
		 * the warning is logged when this set changes, not on every
		 * rebuild */
		struct nic_key *misfit;
		int nmisfit;
		unsigned long routed_avoid_gen; /* SM thread: in the tables now */
		unsigned long events, ignored, invalid;
		/* writer thread only */
		struct ibf_rail_store *store;  /* rail_registry, opened on the first write */
		struct ibf_rail_registry doms; /* last good domain scores */
		int have_doms;
		char last_err[MSG_MAX];
		char pub_err[MSG_MAX]; /* last registry write error, said once */
	} health;
};

/* a CA port by its node's GUID (ibf_node_some_guid) and port number,
 * with the switch (same GUID rule) and port it is cabled to: a NIC moved
 * from one wrong port to another is a new key */
struct nic_key {
	uint64_t guid;
	int port;
	uint64_t sw_guid;
	int sw_port;
};

/* one per routing engine instance OpenSM sets up (re->context) */
struct ibfab_engine {
	struct ibfab *pl;
	const struct ibf_engine *eng;
	struct osm_routing_engine *re; /* OpenSM's entry: re->next is tried after us */
};

/* ------------------------------------------------------------ logging */

static void plog(struct ibfab *pl, osm_log_level_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void plog(struct ibfab *pl, osm_log_level_t level, const char *fmt, ...)
{
	char buf[MSG_MAX];
	va_list ap;

	if (!osm_log_is_active(&pl->osm->log, level))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	osm_log(&pl->osm->log, level, "%s\n", buf);
}

struct engine_log_ctx {
	struct ibfab *pl;
	const char *engine;
};

/* the engines' log callback (may run on worker threads: osm_log locks) */
static void engine_log(void *ctx, int level, const char *msg)
{
	struct engine_log_ctx *lc = ctx;
	osm_log_level_t ol;

	if (level > lc->pl->conf.log_level)
		return;
	switch (level) {
	case IBF_LOG_ERROR:
		ol = OSM_LOG_ERROR;
		break;
	case IBF_LOG_INFO:
		ol = OSM_LOG_INFO;
		break;
	case IBF_LOG_VERBOSE:
		ol = OSM_LOG_VERBOSE;
		break;
	default:
		ol = OSM_LOG_DEBUG;
		break;
	}
	plog(lc->pl, ol, "ibfab %s: %s", lc->engine, msg);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ subnet -> fabric */

/* osm_node_t -> ibf node id, sorted by pointer for bsearch */
struct node_ref {
	const osm_node_t *node;
	int id;
};

static int node_ref_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct node_ref *)a)->node;
	uintptr_t y = (uintptr_t)((const struct node_ref *)b)->node;
	return x < y ? -1 : x > y;
}

static int node_id(const struct node_ref *refs, size_t n, const osm_node_t *node)
{
	struct node_ref key = { node, -1 };
	const struct node_ref *r = bsearch(&key, refs, n, sizeof(*refs), node_ref_cmp);
	return r ? r->id : -1;
}

/* PortInfo's active width/speed through the topology library's decoder
 * (FDR10 is in the vendor ExtPortInfo OpenSM keeps beside PortInfo). */
static uint8_t width_of(const osm_physp_t *p)
{
	return ibf_width_from_ib(p->port_info.link_width_active);
}

static uint8_t speed_of(const osm_physp_t *p)
{
	return ibf_speed_from_ib(ib_port_info_get_link_speed_active(&p->port_info),
				 ib_port_info_get_link_speed_ext_active(&p->port_info),
				 p->ext_port_info.link_speed_active & FDR10);
}

struct build_stats {
	unsigned nodes, links, unhealthy, loopbacks, inconsistent, end_ports, lids;
};

/* The fabric OpenSM discovered: every node, every link whose both ends are
 * valid physical ports (inter-switch links OpenSM marks unhealthy are left
 * out, as OpenSM's own engines do), and the LID ranges OpenSM assigned. */
static struct ibf_fabric *fabric_from_subn(struct ibfab *pl, osm_subn_t *subn,
					   struct build_stats *st, struct ibf_error *err)
{
	cl_qmap_t *nodes = &subn->node_guid_tbl, *ports = &subn->port_guid_tbl;
	size_t n = cl_qmap_count(nodes), nrefs = 0;
	struct node_ref *refs = NULL;
	struct ibf_fabric *f = NULL;
	cl_map_item_t *it;

	memset(st, 0, sizeof(*st));
	refs = calloc(n ? n : 1, sizeof(*refs));
	f = ibf_fabric_new();
	if (!refs || !f) {
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		goto fail;
	}

	/* nodes (qmap order: by node GUID as stored) */
	for (it = cl_qmap_head(nodes); it != cl_qmap_end(nodes); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *)it;
		int type;
		switch (osm_node_get_type(node)) {
		case IB_NODE_TYPE_CA:
			type = IBF_NODE_CA;
			break;
		case IB_NODE_TYPE_SWITCH:
			type = IBF_NODE_SWITCH;
			break;
		case IB_NODE_TYPE_ROUTER:
			type = IBF_NODE_ROUTER;
			break;
		default:
			continue;
		}
		if (type == IBF_NODE_SWITCH && !node->sw)
			continue;
		int np = (int)osm_node_get_num_physp(node) - 1;
		if (np < 0)
			np = 0;
		if (np > IBF_MAX_PORTS)
			np = IBF_MAX_PORTS;
		char desc[IB_NODE_DESCRIPTION_SIZE + 1];
		memcpy(desc, node->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
		desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
		int id = ibf_fabric_add_node(f, type, np, cl_ntoh64(osm_node_get_node_guid(node)),
					     desc, NULL, err);
		if (id < 0)
			goto fail;
		struct ibf_node *in = &f->nodes[id];
		in->sysimg_guid = cl_ntoh64(node->node_info.sys_guid);
		in->vendid = cl_ntoh32(ib_node_info_get_vendor_id(&node->node_info));
		in->devid = cl_ntoh16(node->node_info.device_id);
		if (node->sw)
			in->enhanced_sp0 =
				ib_switch_info_is_enhanced_port0(&node->sw->switch_info) ? 1 : 0;
		refs[nrefs].node = node;
		refs[nrefs].id = id;
		nrefs++;
	}
	st->nodes = (unsigned)nrefs;
	qsort(refs, nrefs, sizeof(*refs), node_ref_cmp);

	/* links: both ends valid, connected to each other */
	for (size_t i = 0; i < nrefs; i++) {
		osm_node_t *node = (osm_node_t *)refs[i].node;
		int id = refs[i].id;
		for (int p = 1; p <= (int)f->nodes[id].nports; p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, (uint32_t)p);
			if (!ph)
				continue;
			ibf_port(f, id, p)->guid = cl_ntoh64(osm_physp_get_port_guid(ph));
			osm_physp_t *rph = osm_physp_get_remote(ph);
			if (!rph || !osm_physp_is_valid(rph))
				continue;
			int rid = node_id(refs, nrefs, osm_physp_get_node_ptr(rph));
			int rp = osm_physp_get_port_num(rph);
			if (rid < 0 || rp < 1 || rp > (int)f->nodes[rid].nports)
				continue;
			if (rid < id || (rid == id && rp <= p))
				continue; /* seen from the other end */
			if (rid == id) {
				st->loopbacks++;
				continue;
			}
			if (rph->p_remote_physp != ph) {
				st->inconsistent++;
				continue;
			}
			if (f->nodes[id].type == IBF_NODE_SWITCH &&
			    f->nodes[rid].type == IBF_NODE_SWITCH && !osm_link_is_healthy(ph)) {
				st->unhealthy++;
				plog(pl, OSM_LOG_VERBOSE,
				     "ibfab: skipping unhealthy link 0x%016" PRIx64
				     "/%d - 0x%016" PRIx64 "/%d",
				     f->nodes[id].guid, p, f->nodes[rid].guid, rp);
				continue;
			}
			struct ibf_error cerr;
			if (ibf_fabric_connect(f, id, p, rid, rp, width_of(ph), speed_of(ph),
					       &cerr)) {
				st->inconsistent++;
				plog(pl, OSM_LOG_VERBOSE, "ibfab: skipping link: %s", cerr.msg);
				continue;
			}
			st->links++;
		}
	}

	/* LIDs as OpenSM assigned them: one osm_port_t per end port (CA/router
	 * port, switch port 0) */
	for (it = cl_qmap_head(ports); it != cl_qmap_end(ports); it = cl_qmap_next(it)) {
		osm_port_t *port = (osm_port_t *)it;
		if (!port->p_physp || !port->p_node)
			continue;
		int id = node_id(refs, nrefs, port->p_node);
		int pn = osm_physp_get_port_num(port->p_physp);
		if (id < 0 || pn > (int)f->nodes[id].nports)
			continue;
		uint16_t lo = 0, hi = 0;
		osm_port_get_lid_range_ho(port, &lo, &hi);
		if (lo == 0 || hi < lo)
			continue; /* no LID yet */
		unsigned cnt = (unsigned)hi - lo + 1u, lmc = 0;
		while ((1u << lmc) < cnt)
			lmc++;
		if ((1u << lmc) != cnt || lmc > 7) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0,
				      "port 0x%016" PRIx64 " has LID range %u-%u (not 2^LMC LIDs)",
				      cl_ntoh64(port->guid), lo, hi);
			goto fail;
		}
		struct ibf_port *ip = ibf_port(f, id, pn);
		ip->lid = lo;
		ip->lmc = (uint8_t)lmc;
		ip->guid = cl_ntoh64(port->guid);
		st->end_ports++;
		st->lids += cnt;
	}

	free(refs);
	if (ibf_fabric_finalize(f, err)) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
fail:
	free(refs);
	ibf_fabric_free(f);
	return NULL;
}

/* ------------------------------------------------------------ tables */

static void clear_new_lfts(osm_subn_t *subn)
{
	cl_qmap_t *sws = &subn->sw_guid_tbl;
	for (cl_map_item_t *it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		if (sw->new_lft)
			memset(sw->new_lft, OSM_NO_PATH, sw->lft_size);
	}
}

static int switch_index(const struct ibf_fabric *f, const osm_switch_t *sw)
{
	int id = ibf_fabric_find_guid(f, cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
	return id >= 0 ? f->nodes[id].sw : -1;
}

/* Copy r into new_lft of every switch, then check every LID of every end
 * port is routed on every switch.  Returns 0 or fills err. */
static int write_lfts(osm_subn_t *subn, const struct ibf_fabric *f, const struct ibf_routes *r,
		      unsigned *nswitches, struct ibf_error *err)
{
	cl_qmap_t *sws = &subn->sw_guid_tbl;
	unsigned count = 0;

	for (cl_map_item_t *it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		uint64_t guid = cl_ntoh64(osm_node_get_node_guid(sw->p_node));
		int s = switch_index(f, sw);
		if (s < 0 || (uint32_t)s >= r->nsw)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "switch 0x%016" PRIx64 " is missing from the routes",
					     guid);
		if (!sw->new_lft || sw->lft_size < (uint32_t)sw->max_lid_ho + 1)
			return ibf_error_set(err, IBF_EINVAL, NULL, 0,
					     "switch 0x%016" PRIx64 " has no LFT to fill", guid);
		const uint8_t *lft = ibf_lft(r, (uint32_t)s);
		uint32_t top = sw->max_lid_ho < r->max_lid ? sw->max_lid_ho : r->max_lid;
		for (uint32_t lid = 1; lid <= top; lid++) {
			uint8_t port = lft[lid];
			if (port == IBF_LFT_NONE)
				continue;
			if (port >= sw->num_ports)
				return ibf_error_set(
					err, IBF_EINVAL, NULL, 0,
					"engine chose port %u for LID %u on switch 0x%016" PRIx64
					" which has ports 0..%u",
					port, lid, guid, sw->num_ports - 1u);
			sw->new_lft[lid] = port;
		}
		count++;
	}

	/* every LID of every end port must be routed on every switch */
	uint64_t missing = 0;
	char first[300] = "";
	for (uint32_t id = 0; id < f->nnodes; id++) {
		const struct ibf_node *nd = &f->nodes[id];
		for (int p = 0; p <= (int)nd->nports; p++) {
			const struct ibf_port *ip = ibf_port(f, (int)id, p);
			if (!ip->lid)
				continue;
			uint32_t lo = ip->lid, hi = ip->lid + (1u << ip->lmc) - 1u;
			for (cl_map_item_t *it = cl_qmap_head(sws); it != cl_qmap_end(sws);
			     it = cl_qmap_next(it)) {
				osm_switch_t *sw = (osm_switch_t *)it;
				for (uint32_t lid = lo; lid <= hi; lid++) {
					if (lid <= sw->max_lid_ho &&
					    sw->new_lft[lid] != OSM_NO_PATH)
						continue;
					if (!missing++)
						snprintf(first, sizeof(first),
							 "LID %u of '%s' port %d has no route on "
							 "switch 0x%016" PRIx64 " '%.64s'",
							 lid, nd->desc ? nd->desc : "", p,
							 cl_ntoh64(osm_node_get_node_guid(
								 sw->p_node)),
							 (const char *)
								 sw->p_node->node_desc.description);
				}
			}
		}
	}
	if (missing)
		return ibf_error_set(err, IBF_ENOROUTE, NULL, 0,
				     "%" PRIu64 " (switch, LID) pairs unrouted, e.g. %s", missing,
				     first);
	*nswitches = count;
	return 0;
}

/* ------------------------------------------------------------ engine callbacks */

static int ibfab_lid_matrices(void *context)
{
	(void)context;
	return 1; /* > 0: OpenSM computes its min-hop lid matrices */
}

static void drop_routes(struct ibfab *pl)
{
	ibf_dl_free(pl->dl);
	pl->dl = NULL;
	free(pl->dl_gidx);
	pl->dl_gidx = NULL;
	pl->dl_ngidx = 0;
	if (pl->have_routes)
		ibf_routes_free(&pl->routes);
	pl->have_routes = 0;
	ibf_fabric_free(pl->fabric);
	pl->fabric = NULL;
	pl->engine[0] = '\0';
}

/* ------------------------------------------------------------ deadlock (deadlock/) */

static unsigned vls_from_cap(unsigned cap)
{
	/* PortInfo VLCap / OperVLs / max_op_vls encoding: 1 = VL0, 2 = VL0-1,
	 * 3 = VL0-3, 4 = VL0-7, 5 = VL0-14 */
	static const unsigned n[] = { 0, 1, 2, 4, 8, 15 };
	return cap < 6 ? n[cap] : 15;
}

/* Data VLs every switch-to-switch port can use: the smaller VLCap of every
 * link's ends, capped by OpenSM's max_op_vls and ibfab.conf's max_vls. */
static int subnet_vls(struct ibfab *pl, osm_subn_t *subn)
{
	unsigned v = vls_from_cap(subn->opt.max_op_vls ? subn->opt.max_op_vls : 5);
	cl_qmap_t *sws = &subn->sw_guid_tbl;
	for (cl_map_item_t *it = cl_qmap_head(sws); it != cl_qmap_end(sws); it = cl_qmap_next(it)) {
		osm_node_t *node = ((osm_switch_t *)it)->p_node;
		uint32_t np = osm_node_get_num_physp(node);
		for (uint32_t p = 1; p < np; p++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, p);
			if (!ph || !osm_physp_is_valid(ph))
				continue;
			osm_physp_t *rph = osm_physp_get_remote(ph);
			if (!rph ||
			    osm_node_get_type(osm_physp_get_node_ptr(rph)) != IB_NODE_TYPE_SWITCH)
				continue;
			unsigned a = vls_from_cap(ib_port_info_get_vl_cap(&ph->port_info));
			unsigned b = vls_from_cap(ib_port_info_get_vl_cap(&rph->port_info));
			if (a && a < v)
				v = a;
			if (b && b < v)
				v = b;
		}
	}
	if (pl->conf.max_vls > 0 && (unsigned)pl->conf.max_vls < v)
		v = (unsigned)pl->conf.max_vls;
	return v ? (int)v : 1;
}

/* Run the configured scheme on r (result in *out).  0 or -1 (logged). */
static int apply_deadlock(struct ibfab *pl, const char *name, osm_subn_t *subn,
			  const struct ibf_fabric *f, struct ibf_routes *r,
			  struct engine_log_ctx *lc, struct ibf_dl **out)
{
	struct ibf_dl_opts o;
	struct ibf_error err;
	char msg[MSG_MAX];

	ibf_dl_opts_default(&o);
	o.scheme = pl->conf.deadlock;
	o.max_vls = subnet_vls(pl, subn);
	o.best_effort = pl->conf.best_effort;
	o.threads = pl->conf.threads > 0 ? pl->conf.threads : 1;
	o.log = engine_log;
	o.log_ctx = lc;
	ibf_error_clear(&err);
	if (ibf_deadlock_apply(f, r, &o, out, &err)) {
		plog(pl, OSM_LOG_ERROR, "ibfab %s: deadlock %s: %s", name,
		     ibf_deadlock_name(pl->conf.deadlock),
		     ibf_error_format(&err, msg, sizeof(msg)));
		return -1;
	}
	const struct ibf_dl *dl = *out;
	plog(pl, dl->deadlock_free ? OSM_LOG_INFO : OSM_LOG_ERROR, "ibfab %s: deadlock %s", name,
	     ibf_dl_summary(dl, msg, sizeof(msg)));
	if (!subn->opt.qos)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: warning: qos is FALSE, so OpenSM does not program the SL2VL "
		     "tables of the deadlock scheme (set qos TRUE)",
		     name);
	if (subn->opt.use_ucast_cache)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: warning: use_ucast_cache is TRUE; cached LFT changes bypass the "
		     "path SLs (set use_ucast_cache FALSE)",
		     name);
	return 0;
}

static int gidx_cmp(const void *a, const void *b)
{
	const struct dl_gidx *x = a, *y = b;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static void build_gidx(struct ibfab *pl)
{
	const struct ibf_fabric *f = pl->fabric;
	pl->dl_gidx = malloc(((size_t)f->nnodes + 1) * sizeof(*pl->dl_gidx));
	pl->dl_ngidx = 0;
	if (!pl->dl_gidx)
		return; /* update_sl2vl falls back to a linear search */
	for (uint32_t i = 0; i < f->nnodes; i++) {
		pl->dl_gidx[i].guid = f->nodes[i].guid;
		pl->dl_gidx[i].node = (int32_t)i;
	}
	pl->dl_ngidx = f->nnodes;
	qsort(pl->dl_gidx, pl->dl_ngidx, sizeof(*pl->dl_gidx), gidx_cmp);
}

/* SA PathRecord threads, shared lock: read-only, no locks, reentrant. */
static uint8_t ibfab_path_sl(void *context, uint8_t hint, const ib_net16_t slid,
			     const ib_net16_t dlid)
{
	struct ibfab_engine *ec = context;
	const struct ibfab *pl = ec->pl;
	if (!pl->have_routes || !pl->dl)
		return hint;
	int sl = ibf_dl_path_sl(pl->dl, cl_ntoh16(slid), cl_ntoh16(dlid));
	return sl < 0 ? hint : (uint8_t)sl;
}

/* SM thread (osm_qos_setup, exclusive lock): the scheme's SL2VL row. */
static void ibfab_update_sl2vl(void *context, osm_physp_t *port, uint8_t in_port, uint8_t out_port,
			       ib_slvl_table_t *t)
{
	struct ibfab_engine *ec = context;
	const struct ibfab *pl = ec->pl;
	if (!pl->have_routes || !pl->dl || !pl->fabric)
		return; /* keep OpenSM's QoS table */
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(port)));
	int node = -1;
	if (pl->dl_gidx) {
		struct dl_gidx key = { guid, 0 };
		const struct dl_gidx *hit =
			bsearch(&key, pl->dl_gidx, pl->dl_ngidx, sizeof(key), gidx_cmp);
		node = hit ? hit->node : -1;
	} else {
		node = ibf_fabric_find_guid(pl->fabric, guid);
	}
	if (node < 0)
		return;
	const struct ibf_node *n = &pl->fabric->nodes[node];
	if (in_port > n->nports || out_port > n->nports)
		return;
	uint8_t vl[16];
	ibf_dl_sl2vl(pl->dl, pl->fabric, node, in_port, out_port, vl);
	for (uint8_t sl = 0; sl < 16; sl++)
		ib_slvl_table_set(t, sl, vl[sl]);
}

/* What OpenSM does after this engine failed (osm_ucast_mgr_process of
 * 3.3.23: the next engine of routing_engine, then minhop unless no_fallback
 * is in the list). */
static void log_fallback(struct ibfab *pl, const struct ibfab_engine *ec)
{
	const char *name = ec->eng->name;
	const struct osm_routing_engine *next = ec->re ? ec->re->next : NULL;
	if (next && next->name)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: routing failed, OpenSM falls back to the next engine, '%s'", name,
		     next->name);
	else if (pl->osm->no_fallback_routing_engine)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: routing failed and no_fallback is in routing_engine: OpenSM "
		     "programs no new tables this sweep",
		     name);
	else
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: routing failed, OpenSM falls back to the next engine, its default "
		     "minhop",
		     name);
}

static void conf_stamp_get(const char *path, struct conf_stamp *st)
{
	struct stat sb;
	memset(st, 0, sizeof(*st));
	if (!path[0] || stat(path, &sb))
		return;
	st->exists = 1;
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	st->size = sb.st_size;
	st->mtime = sb.st_mtim;
}

static int conf_stamp_eq(const struct conf_stamp *a, const struct conf_stamp *b)
{
	if (a->exists != b->exists)
		return 0;
	return !a->exists ||
	       (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec);
}

/* ibfab.conf is read once: when it changed since OpenSM started, say so
 * (once per change) so an edit followed by a re-sweep is not mistaken for
 * applied options. */
static void conf_check_changed(struct ibfab *pl, const char *name)
{
	struct conf_stamp now;
	conf_stamp_get(pl->conf_path, &now);
	if (conf_stamp_eq(&now, &pl->conf_stamp) || conf_stamp_eq(&now, &pl->conf_warned))
		return;
	pl->conf_warned = now;
	plog(pl, OSM_LOG_ERROR,
	     "ibfab %s: warning: %s %s since OpenSM started; the engines keep the options read "
	     "at startup (%s) until OpenSM is restarted",
	     name, pl->conf_path,
	     !now.exists ? "was removed" : pl->conf_stamp.exists ? "changed" : "was created",
	     pl->conf_ok ? "valid" : "a configuration error");
}

/* dmodk_roots names the fat tree's top switches.  A root that is not in
 * the subnet now (a spine that failed or lost every cable) is left out, as
 * OpenSM's ftree does with its root_guid_file, so dmodk routes the tree
 * below the other roots instead of failing over to minhop until the spine
 * is back.  When none is left the list stays as it is and the engine
 * refuses it with the first GUID named.  A GUID of a node that is there but
 * is not a switch stays too: that is a mistake in the file. */
static void drop_missing_roots(struct ibfab *pl, const char *name, const struct ibf_fabric *f,
			       struct ibf_route_opts *o, uint64_t *roots)
{
	uint32_t n = o->nroots, kept = 0, unnamed = 0;
	char list[MSG_MAX / 2];
	size_t len = 0;
	list[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		if (ibf_fabric_find_guid(f, roots[i]) >= 0)
			kept++;
	if (kept == n || kept == 0)
		return;
	kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (ibf_fabric_find_guid(f, roots[i]) >= 0) {
			roots[kept++] = roots[i];
		} else if (len + 24 < sizeof(list)) {
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s0x%016" PRIx64,
						len ? " " : "", roots[i]);
		} else {
			unnamed++;
		}
	}
	o->nroots = kept;
	plog(pl, OSM_LOG_ERROR,
	     "ibfab %s: warning: %u of the %u dmodk_roots switch(es) not in the fabric (%s%s); "
	     "the levels come from the other %u",
	     name, n - kept, n, list, unnamed ? " ..." : "", kept);
}

/* stable_state_dir: write the healthy tables H the tables just configured
 * carry when they differ from the H last written (or read at the start);
 * a failure is logged, routing goes on */
static void save_state(struct ibfab *pl, const char *name)
{
	const struct ibf_fabric *hf;
	const struct ibf_routes *hr;
	if (!pl->conf.stable_state_dir[0] || !pl->conf.stable_reroute ||
	    !ibf_routes_healthy(&pl->routes, pl->fabric, &hf, &hr))
		return;
	struct ibf_error err;
	char msg[MSG_MAX];
	uint64_t sig = 0;
	int written = 0;
	memset(&err, 0, sizeof(err));
	if (ibf_stable_state_save(pl->conf.stable_state_dir, name, hf, hr,
				  pl->state_have_sig ? &pl->state_sig : NULL, &sig, &written, &err)) {
		/* once until it works again, not every sweep */
		if (!pl->state_failed)
			plog(pl, OSM_LOG_ERROR,
			     "ibfab %s: stable_state_dir: cannot keep the healthy tables: %s", name,
			     ibf_error_format(&err, msg, sizeof(msg)));
		pl->state_failed = 1;
		return;
	}
	pl->state_failed = 0;
	pl->state_sig = sig;
	pl->state_have_sig = 1;
	if (written)
		plog(pl, OSM_LOG_INFO,
		     "ibfab %s: stable_state_dir: kept the healthy tables (%u switches, max LID %u) "
		     "in %s",
		     name, hf->nsw, hr->max_lid, pl->conf.stable_state_dir);
}

static int ibfab_build_lfts(void *context)
{
	struct ibfab_engine *ec = context;
	struct ibfab *pl = ec->pl;
	const char *name = ec->eng->name;
	osm_subn_t *subn = &pl->osm->subn;
	struct ibf_error err;
	struct ibf_fabric *f = NULL;
	struct ibf_routes r;
	int have_r = 0;
	struct ibf_dl *dl = NULL;
	char msg[MSG_MAX];
	double t0 = now_seconds();

	ibf_error_clear(&err);
	memset(&r, 0, sizeof(r));
	pl->runs++;
	conf_check_changed(pl, name);

	if (!pl->conf_ok) {
		plog(pl, OSM_LOG_ERROR, "ibfab %s: cannot route: configuration error: %s", name,
		     pl->conf_msg);
		goto fail_nowrite;
	}

	struct build_stats st;
	f = fabric_from_subn(pl, subn, &st, &err);
	if (!f) {
		plog(pl, OSM_LOG_ERROR, "ibfab %s: cannot route: cannot build the fabric: %s", name,
		     ibf_error_format(&err, msg, sizeof(msg)));
		goto fail_nowrite;
	}
	plog(pl, OSM_LOG_VERBOSE,
	     "ibfab %s: fabric from OpenSM: %u nodes (%u switches), %u links, %u end ports, "
	     "%u LIDs, max LID %u; skipped %u unhealthy, %u loopback, %u inconsistent links",
	     name, st.nodes, f->nsw, st.links, st.end_ports, st.lids, ibf_max_lid(f), st.unhealthy,
	     st.loopbacks, st.inconsistent);

	struct ibf_route_opts o;
	struct engine_log_ctx lc = { pl, name };
	struct ibf_route_report rep;
	memset(&rep, 0, sizeof(rep));
	uint64_t *roots = NULL;
	if (ibf_conf_engine_opts(&pl->conf, name, &o, &roots, &err)) {
		plog(pl, OSM_LOG_ERROR, "ibfab %s: cannot route: %s", name,
		     ibf_error_format(&err, msg, sizeof(msg)));
		goto fail_nowrite;
	}
	o.log = engine_log;
	o.log_ctx = &lc;
	if (roots && o.roots == roots)
		drop_missing_roots(pl, name, f, &o, roots);
	/* a root that is no switch (an adapter's GUID, or none is left): the
	 * file and line */
	if (roots && ibf_ftree_check_guids(f, pl->conf.dmodk_roots, "root GUID", o.roots, o.nroots,
					   0, &err)) {
		free(roots);
		plog(pl, OSM_LOG_ERROR, "ibfab %s: cannot route: %s", name,
		     ibf_error_format(&err, msg, sizeof(msg)));
		goto fail_nowrite;
	}
	/* a roots file naming the wrong switches still routes, badly: say so
	 * (a warning, the tables are the roots file's) */
	if (roots && !strcmp(name, "dmodk")) {
		char *w = malloc(4096);
		if (w && ibf_ftree_check_roots(f, pl->conf.dmodk_roots, o.roots, o.nroots, 1, w,
					       4096))
			for (char *ln = w, *nl; *ln; ln = nl + 1) {
				if (!(nl = strchr(ln, '\n')))
					break;
				*nl = '\0';
				plog(pl, OSM_LOG_ERROR, "ibfab %s: %s", name, ln);
			}
		free(w);
	}
	/* hratio: the spines the health service avoids now */
	uint64_t *avoid = NULL;
	unsigned long avoid_gen = 0;
	if (pl->health.on && !strcmp(name, "hratio")) {
		pthread_mutex_lock(&pl->health.mu);
		avoid_gen = pl->health.avoid_gen;
		if (pl->health.navoid && (avoid = malloc(pl->health.navoid * sizeof(*avoid)))) {
			memcpy(avoid, pl->health.avoid, pl->health.navoid * sizeof(*avoid));
			o.avoid = avoid;
			o.navoid = pl->health.navoid;
		}
		pthread_mutex_unlock(&pl->health.mu);
	}
	/* stable reroute: keep what still works of the tables this engine
	 * programmed last time, route only the destinations the change hit
	 * (not when the avoided spines changed: every column moves); with
	 * TRUE, a switch or switch cable that came back (or is new) takes the
	 * columns a fresh run sends over it (ibf_route_stable_mode) */
	int stable = pl->conf.stable_reroute && pl->have_routes && pl->fabric &&
		     !strcmp(pl->engine, name) && avoid_gen == pl->health.routed_avoid_gen;
	/* stable_state_dir: the first sweep after a start takes the healthy
	 * tables H kept there as the previous tables (they carry no mark: H
	 * itself), so a repair that started before the restart still ends on
	 * H; a bad or stale file is logged and ignored (a fresh start) */
	struct ibf_fabric *state_f = NULL;
	struct ibf_routes state_h;
	memset(&state_h, 0, sizeof(state_h));
	if (!stable && !pl->state_tried && pl->conf.stable_state_dir[0] &&
	    pl->conf.stable_reroute && !pl->have_routes &&
	    avoid_gen == pl->health.routed_avoid_gen) {
		pl->state_tried = 1;
		int lrc = ibf_stable_state_load(pl->conf.stable_state_dir, name, f, &state_f,
						&state_h, &pl->state_sig, &err);
		if (lrc < 0)
			plog(pl, OSM_LOG_ERROR,
			     "ibfab %s: stable_state_dir: ignoring the healthy tables kept in %s "
			     "(routing afresh): %s",
			     name, pl->conf.stable_state_dir, ibf_error_format(&err, msg, sizeof(msg)));
		else if (lrc > 0)
			plog(pl, OSM_LOG_INFO,
			     "ibfab %s: stable_state_dir: no healthy tables kept in %s yet (routing "
			     "afresh)",
			     name, pl->conf.stable_state_dir);
		else {
			pl->state_have_sig = 1;
			plog(pl, OSM_LOG_INFO,
			     "ibfab %s: stable_state_dir: the healthy tables kept in %s (%u "
			     "switches, max LID %u) are the previous tables of this first sweep",
			     name, pl->conf.stable_state_dir, state_f->nsw, state_h.max_lid);
			stable = 1;
		}
	}
	struct ibf_stable_report sr;
	int route_rc = stable ? ibf_route_stable_mode(f, name, &o, state_f ? state_f : pl->fabric,
						      state_f ? &state_h : &pl->routes,
						      ibf_conf_stable_mode(&pl->conf), &r, &rep,
						      &sr, &err)
			      : ibf_route(f, name, &o, &r, &rep, &err);
	ibf_routes_free(&state_h);
	if (route_rc && state_f) {
		/* the kept H did not serve (a file that parsed but does not fit
		 * this fabric in a way the load checks do not see): a fresh run */
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: stable_state_dir: the healthy tables kept in %s did not serve "
		     "(routing afresh): %s",
		     name, pl->conf.stable_state_dir, ibf_error_format(&err, msg, sizeof(msg)));
		ibf_routes_free(&r);
		memset(&err, 0, sizeof(err));
		stable = 0;
		route_rc = ibf_route(f, name, &o, &r, &rep, &err);
	}
	if (!route_rc && !stable && pl->conf.stable_state_dir[0] && pl->conf.stable_reroute) {
		/* no kept H (the first start, or a run that did not start
		 * from the previous tables: another engine, other avoided
		 * spines): this run's tables become H, but the fabric may be
		 * damaged now; once it has every part of theirs and parts they
		 * lack, a fresh run replaces them (ibf_routes.provisional) */
		r.provisional = 1;
		plog(pl, OSM_LOG_INFO,
		     "ibfab %s: stable_state_dir: these tables are the healthy tables for now "
		     "(provisional: replaced by a fresh run once the fabric has every part of this "
		     "one and parts it lacks)",
		     name);
	}
	ibf_fabric_free(state_f);
	free(roots);
	free(avoid);
	if (!route_rc && stable)
		plog(pl, OSM_LOG_INFO, "ibfab %s: %s: %s", name,
		     sr.fresh && !sr.provisional ? "stable_reroute failures" : "stable reroute",
		     ibf_stable_report_format(&sr, "LFT entries", msg, sizeof(msg)));
	if (route_rc) {
		plog(pl, OSM_LOG_ERROR, "ibfab %s: cannot route: %s", name,
		     ibf_error_format(&err, msg, sizeof(msg)));
		goto fail_nowrite;
	}
	have_r = 1;

	if (pl->conf.deadlock != IBF_DEADLOCK_NONE &&
	    apply_deadlock(pl, name, subn, f, &r, &lc, &dl))
		goto fail_nowrite;

	/* OpenSM does not reset the tables between engines */
	clear_new_lfts(subn);
	unsigned nsw = 0;
	if (write_lfts(subn, f, &r, &nsw, &err)) {
		plog(pl, OSM_LOG_ERROR, "ibfab %s: cannot route: %s", name,
		     ibf_error_format(&err, msg, sizeof(msg)));
		clear_new_lfts(subn);
		goto fail_nowrite;
	}

	double secs = now_seconds() - t0;
	/* after a stable reroute the engine's counts cover only the LIDs it
	 * routed again, not the kept columns (a sweep that kept everything
	 * would read "non-minimal 0" on tables full of non-minimal paths) */
	char part[128] = "";
	if (stable && sr.full_run)
		snprintf(part, sizeof(part),
			 " (of a run over all %u LIDs; %u columns then kept from the last tables)",
			 sr.lids, sr.lids_kept);
	else if (stable)
		snprintf(part, sizeof(part), " (of the %u LIDs routed this sweep; %u kept)",
			 sr.lids - sr.lids_kept, sr.lids_kept);
	plog(pl, OSM_LOG_INFO,
	     "%s: tables configured by ibfab: %u switches, %u LIDs (%u end ports, LMC %d, "
	     "%d layers), max LID %u, %.3f s; layer pairs %" PRIu64 ", non-minimal %" PRIu64
	     ", minimal fallback %" PRIu64 "%s",
	     name, nsw, st.lids, st.end_ports, r.lmc, rep.layers ? rep.layers : 1 << r.lmc,
	     r.max_lid, secs, rep.pairs_total, rep.pairs_nonminimal, rep.pairs_fallback, part);

	drop_routes(pl);
	pl->fabric = f;
	pl->routes = r;
	pl->have_routes = 1;
	pl->dl = dl;
	if (pl->dl)
		build_gidx(pl);
	snprintf(pl->engine, sizeof(pl->engine), "%s", name);
	pl->routes_gen++;
	pl->health.routed_avoid_gen = avoid_gen;
	save_state(pl, name);
	return 0;

fail_nowrite:
	ibf_dl_free(dl);
	if (have_r)
		ibf_routes_free(&r);
	ibf_fabric_free(f);
	drop_routes(pl);
	log_fallback(pl, ec);
	return -1;
}

static void ibfab_engine_destroy(void *context)
{
	free(context);
}

static int ibfab_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct ibfab *pl = re->context;
	const struct ibf_engine *eng = ibf_engine_find(re->name);
	struct ibfab_engine *ec;

	if (!pl || !eng) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibfab: no engine '%s' in this build\n",
			re->name);
		return -1;
	}
	ec = calloc(1, sizeof(*ec));
	if (!ec) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibfab %s: out of memory\n", re->name);
		return -1;
	}
	ec->pl = pl;
	ec->eng = eng;
	ec->re = re;
	re->context = ec;
	re->build_lid_matrices = ibfab_lid_matrices;
	re->ucast_build_fwd_tables = ibfab_build_lfts;
	re->destroy = ibfab_engine_destroy;
	re->path_sl = ibfab_path_sl;
	re->update_sl2vl = ibfab_update_sl2vl;

	plog(pl, OSM_LOG_INFO, "ibfab %s: routing engine set up (%s)", eng->name, eng->summary);
	if (osm->subn.opt.use_ucast_cache)
		plog(pl, OSM_LOG_INFO,
		     "ibfab %s: warning: use_ucast_cache is TRUE; the unicast cache can change "
		     "tables without the engine (set use_ucast_cache FALSE)",
		     eng->name);
	if (!pl->conf_ok)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: configuration error, this engine will not route: %s", eng->name,
		     pl->conf_msg);
	return 0;
}

/* ------------------------------------------------------------ rail health service */

/* "group G: rails A,B" between pre and post into buf (rail labels cut
 * short with ".." when they do not fit in 32 characters). */
static void group_name(const struct ibf_health *h, int g, const char *pre, const char *post,
		       char *buf, size_t len)
{
	char rails[32];
	int n = ibf_health_group_rails(h, g, rails, sizeof(rails)), shown = rails[0] != '\0';
	for (const char *c = rails; *c; c++)
		shown += *c == ',';
	snprintf(buf, len, "%sgroup %d: rails %s%s%s", pre, g, rails, shown < n ? ",.." : "", post);
}

static int nic_key_cmp(const void *a, const void *b)
{
	const struct nic_key *x = a, *y = b;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->port != y->port)
		return (x->port > y->port) - (x->port < y->port);
	if (x->sw_guid != y->sw_guid)
		return x->sw_guid < y->sw_guid ? -1 : 1;
	return (x->sw_port > y->sw_port) - (x->sw_port < y->sw_port);
}

/* GPU NICs cabled off their rail: when the set differs from the one last
 * logged (it appeared, grew, shrank, or other NICs), the warning with the
 * count and the first by name and port (ibfab rail info lists them all);
 * when it emptied, that it has, once.  Nothing while it stays the same:
 * the health service is rebuilt after every fabric change. */
static void health_misfit_log(struct ibfab *pl, const struct ibf_fabric *f,
			      const struct ibf_rail_info *ri)
{
	struct health *hs = &pl->health;
	int off = 0, first = -1;
	struct nic_key *keys = calloc((size_t)(ri->ngpus > 0 ? ri->ngpus : 1), sizeof(*keys));
	if (!keys) {
		plog(pl, OSM_LOG_ERROR, "ibfab health: out of memory");
		return;
	}
	for (int g = 0; g < ri->ngpus; g++)
		if (ibf_rail_gpu_misfit(f, ri, g, NULL, 0)) {
			if (!off)
				first = g;
			const struct ibf_port *pp =
				ibf_port((struct ibf_fabric *)f, ri->gpu[g].node, ri->gpu[g].port);
			keys[off].guid = ibf_node_some_guid(f, ri->gpu[g].node);
			keys[off].port = ri->gpu[g].port;
			keys[off].sw_guid = ibf_node_some_guid(f, ri->gpu[g].leaf);
			keys[off].sw_port = pp->peer_port;
			off++;
		}
	if (!off) {
		free(keys);
		keys = NULL;
	}
	if (off > 1)
		qsort(keys, (size_t)off, sizeof(*keys), nic_key_cmp);
	int was = hs->nmisfit, same = off == was;
	for (int k = 0; same && k < off; k++)
		same = !nic_key_cmp(&keys[k], &hs->misfit[k]);
	if (same) {
		free(keys);
		return;
	}
	free(hs->misfit);
	hs->misfit = keys;
	hs->nmisfit = off;
	if (!off) {
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: no GPU NIC is cabled off its rail any more (before: %d)", was);
		return;
	}
	char why[400], dn[160], before[48] = "";
	ibf_rail_gpu_misfit(f, ri, first, why, sizeof(why));
	ibf_node_label(f, ri->gpu[first].node, dn, sizeof(dn));
	if (was)
		snprintf(before, sizeof(before), "; the set changed, %d before", was);
	plog(pl, OSM_LOG_INFO,
	     "ibfab health: warning: %d GPU NIC(s) cabled off their rail (ibfab rail info lists "
	     "them%s), the first: %s port %d %s",
	     off, before, dn, ri->gpu[first].port, why);
}

/* The rail structure of f (a fabric the plugin owns or built for this):
 * a new ibf_health, carrying the old one's scores over.  SM thread. */
static void health_rebuild(struct ibfab *pl, const struct ibf_fabric *f, unsigned long gen)
{
	struct health *hs = &pl->health;
	struct ibf_rail_info ri;
	struct ibf_error err;
	char msg[MSG_MAX];

	ibf_error_clear(&err);
	if (ibf_rail_detect(f, hs->map, &ri, &err)) {
		plog(pl, OSM_LOG_ERROR, "ibfab health: no rail structure: %s",
		     ibf_error_format(&err, msg, sizeof(msg)));
		return;
	}
	struct ibf_health *h = ibf_health_new(f, &ri, &hs->o, &err);
	if (!h) {
		plog(pl, OSM_LOG_ERROR, "ibfab health: %s",
		     ibf_error_format(&err, msg, sizeof(msg)));
		ibf_rail_info_free(&ri);
		return;
	}
	plog(pl, OSM_LOG_INFO,
	     "ibfab health: %d rails, %d domains, %d spines; %d rail switch and spine ports "
	     "monitored",
	     ri.nrails, ri.ndomains, ri.nspines, ibf_health_nports(h));
	if (ibf_health_ngroups(h) > 1) {
		/* spines that share no rail switch: rail_avoid_max counts
		 * each group on its own */
		char list[MSG_MAX / 2], one[64];
		size_t n = 0;
		list[0] = '\0';
		for (int g = 0; g < ibf_health_ngroups(h) && n + 80 < sizeof(list); g++) {
			group_name(h, g, g ? "; " : "", "", one, sizeof(one));
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s (%d spines)", one,
					      ibf_health_group_size(h, g));
		}
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: %d spine groups (no rail switch in common; rail_avoid_max "
		     "counts each on its own): %s",
		     ibf_health_ngroups(h), list);
	}
	health_misfit_log(pl, f, &ri);
	if (ri.unmatched)
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: %s:%ld: %d rail_map line(s) name no node of the fabric "
		     "(skipped: a server that is off, or a typo), the first here",
		     hs->map->name, ri.unmatched_line, ri.unmatched);
	/* every rail the mapping file numbers exists: one the fabric lacks was
	 * lost, before this OpenSM started if need be */
	int erc = ibf_health_expect_map(h, hs->map, &ri);
	if (erc == 1)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab health: no line of %s names a node of the fabric: its rail numbers "
		     "are not taken as rails (none is published as lost)",
		     hs->map->name);
	else if (erc)
		plog(pl, OSM_LOG_ERROR, "ibfab health: out of memory");
	ibf_rail_info_free(&ri);
	pthread_mutex_lock(&hs->mu);
	ibf_health_carry(h, hs->h);
	struct ibf_health *old = hs->h;
	int was_gone = ibf_health_ngone(old);
	hs->h = h;
	hs->h_gen = gen;
	pthread_mutex_unlock(&hs->mu);
	ibf_health_free(old);
	/* h is the SM thread's until the next rebuild (only this thread
	 * replaces it; the writer reads it under the mutex) */
	int ng = ibf_health_ngone(h);
	if (ng) {
		char list[MSG_MAX / 2];
		size_t n = 0;
		list[0] = '\0';
		for (int i = 0; i < ng && n + 16 < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d", i ? " " : "",
					      ibf_health_gone_label(h, i));
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: rail(s) %s gone from the fabric (no switch or GPU of it "
		     "left): published at score 0 until back",
		     list);
	} else if (was_gone) {
		plog(pl, OSM_LOG_INFO, "ibfab health: the rails lost earlier are back");
	}
}

/* SUBNET_UP (SM thread, no lock held): the structure of the fabric the
 * plugin last routed, else of the subnet as OpenSM sees it. */
static void health_subnet_up(struct ibfab *pl)
{
	struct health *hs = &pl->health;
	if (pl->fabric) {
		if (!hs->h || hs->h_gen != pl->routes_gen)
			health_rebuild(pl, pl->fabric, pl->routes_gen);
		return;
	}
	struct build_stats st;
	struct ibf_error err;
	char msg[MSG_MAX];
	ibf_error_clear(&err);
	cl_plock_acquire(&pl->osm->lock);
	struct ibf_fabric *f = fabric_from_subn(pl, &pl->osm->subn, &st, &err);
	cl_plock_release(&pl->osm->lock);
	if (!f) {
		plog(pl, OSM_LOG_ERROR, "ibfab health: cannot build the fabric: %s",
		     ibf_error_format(&err, msg, sizeof(msg)));
		return;
	}
	health_rebuild(pl, f, 0);
	ibf_fabric_free(f);
}

/* PerfMgr counters (PerfMgr threads, with PerfMgr's database locked):
 * cheap, never blocks on I/O.  OpenSM reports differences from its last
 * reading; the first one of a port is against zero (rail/health.c leaves
 * it out). */
static void health_counter(struct ibfab *pl, const osm_epi_port_id_t *id,
			   enum ibf_health_counter which, uint64_t delta)
{
	struct health *hs = &pl->health;
	pthread_mutex_lock(&hs->mu);
	hs->events++;
	enum ibf_health_result r = ibf_health_sample(hs->h, id->node_guid, id->port_num, which,
						     delta, IBF_HEALTH_DELTA);
	if (r == IBF_HEALTH_IGNORED)
		hs->ignored++;
	else if (delta >= (UINT64_C(1) << 63))
		hs->invalid++; /* a counter went down */
	if (r == IBF_HEALTH_SWEEP) {
		if (ibf_health_avoid_changed(hs->h)) {
			/* a few spines at most: the new list, and a reroute */
			int n = ibf_health_avoid_list(hs->h, NULL, 0);
			uint64_t *a = malloc(((size_t)n + 1) * sizeof(*a));
			if (a) {
				ibf_health_avoid_list(hs->h, a, n);
				free(hs->avoid);
				hs->avoid = a;
				hs->navoid = (uint32_t)n;
				hs->avoid_gen++;
				hs->reroute = 1;
			}
		}
		if (ibf_health_held_changed(hs->h))
			hs->held_log = 1;
		hs->pending = 1;
		pthread_cond_signal(&hs->cv);
	}
	pthread_mutex_unlock(&hs->mu);
}

/* A sweep merged into the registry as etcd holds it: the rail scores are
 * the SM's; domain scores come from the hosts' file when one is configured,
 * else the domain keys node agents wrote stay (new domains at the default);
 * the default path and score an operator set stay. */
struct health_merge {
	const struct ibf_rail_registry *r;
	int doms_file;
};

static int health_merge(struct ibf_rail_registry *cur, void *ctx)
{
	const struct health_merge *m = ctx;
	const struct ibf_rail_registry *r = m->r;
	if (!cur->timestamp) {
		cur->prefer_rd = r->prefer_rd;
		cur->dflt = r->dflt;
	}
	cur->timestamp = r->timestamp;
	cur->max_age = r->max_age;
	for (int i = 0; i < r->nrails; i++)
		if (ibf_rail_registry_set_rail(cur, r->rail_label[i], r->rail_score[i]))
			return IBF_ENOMEM;
	for (int i = 0; i < r->ndomains; i++)
		if ((m->doms_file || ibf_rail_registry_find_domain(cur, r->domain[i]) < 0) &&
		    ibf_rail_registry_set_domain(cur, r->domain[i], r->domain_score[i]))
			return IBF_ENOMEM;
	return 0;
}

/* Writer thread: the store is opened once; a file is replaced atomically,
 * etcd gets one transaction per sweep after the lease is renewed (TTL three
 * PerfMgr sweeps, at least 5 s: a dead SM's scores vanish). */
static int health_publish(struct ibfab *pl, const struct ibf_rail_registry *r,
			  struct ibf_error *err)
{
	struct health *hs = &pl->health;
	const struct ibf_conf *c = &pl->conf;
	int etcd = ibf_rail_store_is_etcd(c->rail_registry);
	if (!hs->store) {
		long sweep_s = pl->osm->subn.opt.perfmgr_sweep_time_s;
		struct ibf_rail_store_opts o = { 0, 0 };
		o.ttl = etcd ? (3 * sweep_s > 5 ? 3 * sweep_s : 5) : 0;
		hs->store = ibf_rail_store_open(c->rail_registry, &o, err);
		if (!hs->store)
			return err->code ? err->code : IBF_EINVAL;
		if (etcd)
			plog(pl, OSM_LOG_INFO, "ibfab health: registry in etcd %s, lease TTL %ld s",
			     c->rail_registry, o.ttl);
	}
	if (!etcd)
		return ibf_rail_store_save(hs->store, r, err);
	struct ibf_error kerr;
	ibf_error_clear(&kerr);
	if (ibf_rail_store_keepalive(hs->store, &kerr)) {
		char msg[MSG_MAX];
		plog(pl, OSM_LOG_ERROR, "ibfab health: %s",
		     ibf_error_format(&kerr, msg, sizeof(msg)));
	}
	struct health_merge m = { r, c->rail_domain_scores[0] != '\0' };
	return ibf_rail_store_update(hs->store, health_merge, &m, err);
}

/* Writer thread: domain scores from the hosts' file, the rail scores, then
 * the registry (health_publish). */
static void health_write(struct ibfab *pl)
{
	struct health *hs = &pl->health;
	struct ibf_error err;
	char msg[MSG_MAX];
	const struct ibf_conf *c = &pl->conf;

	if (c->rail_domain_scores[0]) {
		struct ibf_rail_registry d;
		ibf_error_clear(&err);
		if (ibf_rail_registry_read(c->rail_domain_scores, &d, &err)) {
			ibf_error_format(&err, msg, sizeof(msg));
			if (strcmp(msg, hs->last_err))
				plog(pl, OSM_LOG_ERROR,
				     "ibfab health: domain scores: %s (keeping the last good ones)",
				     msg);
			snprintf(hs->last_err, sizeof(hs->last_err), "%s", msg);
		} else {
			if (hs->have_doms)
				ibf_rail_registry_free(&hs->doms);
			hs->doms = d;
			hs->have_doms = 1;
			hs->last_err[0] = '\0';
		}
	}
	struct ibf_rail_registry r;
	ibf_rail_registry_init(&r);
	long sweep_s = pl->osm->subn.opt.perfmgr_sweep_time_s;
	if (sweep_s > 0 && 3 * sweep_s > r.max_age)
		r.max_age = 3 * sweep_s; /* three sweeps without an update: stale */
	pthread_mutex_lock(&hs->mu);
	int rc = hs->h ? ibf_health_fill(hs->h, hs->have_doms ? &hs->doms : NULL, &r) : IBF_EINVAL;
	unsigned long sweeps = ibf_health_sweeps(hs->h), events = hs->events, ignored = hs->ignored,
		      invalid = hs->invalid;
	int ports = ibf_health_last_ports(hs->h);
	int reroute = hs->reroute, held_log = hs->held_log;
	hs->reroute = 0;
	hs->held_log = 0;
	char spines[MSG_MAX - 200]; /* the log line's prefix and the rest fit */
	size_t sn = 0;
	spines[0] = '\0';
	int ngroups = ibf_health_ngroups(hs->h);
	for (int k = 0; hs->h && k < ibf_health_nspines(hs->h) && sn + 140 < sizeof(spines); k++) {
		/* a held spine says which cap holds it: its group's (named
		 * when there are two or more) or one of its rails' */
		char held[112];
		held[0] = '(';
		if (ibf_health_held_note(hs->h, k, held + 1, sizeof(held) - 2))
			strcat(held, ")");
		else
			held[0] = '\0';
		sn += (size_t)snprintf(spines + sn, sizeof(spines) - sn, " 0x%016" PRIx64 "=%d%s",
				       ibf_health_spine_guid(hs->h, k),
				       ibf_health_spine_score(hs->h, k),
				       ibf_health_spine_avoided(hs->h, k) ? "(avoided)" : held);
		if (k + 1 < ibf_health_nspines(hs->h) && sn + 140 >= sizeof(spines))
			snprintf(spines + sn, sizeof(spines) - sn, " ..");
	}
	pthread_mutex_unlock(&hs->mu);
	if (reroute) {
		/* as OpenSM's console command "reroute" does: the routing
		 * engine runs again on the next sweep */
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: avoided spines changed:%s; requesting a reroute", spines);
		pl->osm->subn.force_reroute = TRUE;
		osm_opensm_sweep(pl->osm);
	} else if (held_log) {
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: spines held in use by rail_avoid_max %d %% of %s and of each "
		     "rail's spines (low long enough to be avoided, no slot free):%s",
		     pl->conf.rail_avoid_max, ngroups > 1 ? "each spine group" : "the spines",
		     spines);
	}
	if (rc) {
		ibf_rail_registry_free(&r);
		return;
	}
	r.timestamp = (long long)time(NULL);
	ibf_error_clear(&err);
	if (health_publish(pl, &r, &err)) {
		/* once per distinct error, not every PerfMgr sweep */
		ibf_error_format(&err, msg, sizeof(msg));
		if (strcmp(msg, hs->pub_err))
			plog(pl, OSM_LOG_ERROR,
			     "ibfab health: cannot write the registry: %s (said again only when the "
			     "error changes; a write that works is logged)",
			     msg);
		snprintf(hs->pub_err, sizeof(hs->pub_err), "%s", msg);
	} else {
		if (hs->pub_err[0])
			plog(pl, OSM_LOG_INFO,
			     "ibfab health: the registry %s is written again (after: %s)",
			     c->rail_registry, hs->pub_err);
		hs->pub_err[0] = '\0';
		char rails[MSG_MAX / 2];
		size_t n = 0;
		rails[0] = '\0';
		for (int i = 0; i < r.nrails && n + 16 < sizeof(rails); i++)
			n += (size_t)snprintf(rails + n, sizeof(rails) - n, "%s%d=%d", i ? " " : "",
					      r.rail_label[i], r.rail_score[i]);
		plog(pl, OSM_LOG_INFO,
		     "ibfab health: PerfMgr sweep %lu: %d rail ports scored; rails %s; %d domains; "
		     "registry %s written (%lu counter events, %lu not on a rail switch or spine, "
		     "%lu counters that went down); spines%s",
		     sweeps, ports, rails, r.ndomains, c->rail_registry, events, ignored, invalid,
		     spines[0] ? spines : " none");
	}
	ibf_rail_registry_free(&r);
}

static void *health_writer(void *arg)
{
	struct ibfab *pl = arg;
	struct health *hs = &pl->health;
	pthread_mutex_lock(&hs->mu);
	for (;;) {
		while (!hs->pending && !hs->stop)
			pthread_cond_wait(&hs->cv, &hs->mu);
		if (hs->stop)
			break;
		hs->pending = 0;
		pthread_mutex_unlock(&hs->mu);
		health_write(pl);
		pthread_mutex_lock(&hs->mu);
	}
	pthread_mutex_unlock(&hs->mu);
	return NULL;
}

/* create(): the options, the mapping file and the writer thread. */
static void health_start(struct ibfab *pl)
{
	struct health *hs = &pl->health;
	const struct ibf_conf *c = &pl->conf;
	struct ibf_error err;
	char msg[MSG_MAX];

	pthread_mutex_init(&hs->mu, NULL);
	pthread_cond_init(&hs->cv, NULL);
	hs->on = 1;
	if (!pl->conf_ok || !c->rail_registry[0]) {
		hs->on = 0;
		return;
	}
	ibf_health_opts_default(&hs->o);
	hs->o.alpha = c->rail_health_alpha;
	hs->o.wait_weight = c->rail_health_wait_weight;
	hs->o.min_words = c->rail_health_min_words;
	hs->o.percentile = c->rail_health_percentile;
	hs->o.avoid_below = c->rail_avoid_below;
	hs->o.avoid_sweeps = c->rail_avoid_sweeps;
	hs->o.avoid_above = c->rail_avoid_above;
	hs->o.avoid_max_pct = c->rail_avoid_max;
	if (c->rail_map[0]) {
		ibf_error_clear(&err);
		hs->map = ibf_rail_map_read(c->rail_map, &err);
		if (!hs->map) {
			plog(pl, OSM_LOG_ERROR, "ibfab health: rail_map: %s; health service off",
			     ibf_error_format(&err, msg, sizeof(msg)));
			hs->on = 0;
			return;
		}
	}
	if (pthread_create(&hs->writer, NULL, health_writer, pl)) {
		plog(pl, OSM_LOG_ERROR,
		     "ibfab health: cannot start the writer thread; health "
		     "service off");
		hs->on = 0;
		return;
	}
	hs->writer_started = 1;
	if (!pl->osm->subn.opt.perfmgr)
		plog(pl, OSM_LOG_ERROR,
		     "ibfab health: warning: perfmgr is FALSE, so OpenSM reports no counters "
		     "(set perfmgr TRUE)");
	plog(pl, OSM_LOG_INFO,
	     "ibfab health: on, registry %s, domain scores %s, alpha %g, wait weight %g, "
	     "min words %g, percentile %d",
	     c->rail_registry, c->rail_domain_scores[0] ? c->rail_domain_scores : "none",
	     hs->o.alpha, hs->o.wait_weight, hs->o.min_words, hs->o.percentile);
}

static void health_stop(struct ibfab *pl)
{
	struct health *hs = &pl->health;
	if (hs->writer_started) {
		pthread_mutex_lock(&hs->mu);
		hs->stop = 1;
		pthread_cond_signal(&hs->cv);
		pthread_mutex_unlock(&hs->mu);
		pthread_join(hs->writer, NULL);
		hs->writer_started = 0;
	}
	ibf_rail_store_close(hs->store);
	hs->store = NULL;
	ibf_health_free(hs->h);
	hs->h = NULL;
	ibf_rail_map_free(hs->map);
	hs->map = NULL;
	free(hs->avoid);
	hs->avoid = NULL;
	hs->navoid = 0;
	free(hs->misfit);
	hs->misfit = NULL;
	hs->nmisfit = 0;
	if (hs->have_doms)
		ibf_rail_registry_free(&hs->doms);
	hs->have_doms = 0;
	pthread_cond_destroy(&hs->cv);
	pthread_mutex_destroy(&hs->mu);
}

static void ibfab_report(void *data, osm_epi_event_id_t id, void *event)
{
	struct ibfab *pl = data;
	if (!pl || !pl->health.on)
		return;
	switch (id) {
	case OSM_EVENT_ID_PORT_ERRORS: {
		const osm_epi_pe_event_t *pe = event;
		if (pe)
			health_counter(pl, &pe->port_id, IBF_HEALTH_WAIT, pe->xmit_wait);
		break;
	}
	case OSM_EVENT_ID_PORT_DATA_COUNTERS: {
		const osm_epi_dc_event_t *dc = event;
		if (dc)
			health_counter(pl, &dc->port_id, IBF_HEALTH_DATA, dc->xmit_data);
		break;
	}
	case OSM_EVENT_ID_SUBNET_UP:
		health_subnet_up(pl);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ the plugin */

static void *ibfab_create(osm_opensm_t *osm)
{
	struct ibfab *pl = calloc(1, sizeof(*pl));
	struct ibf_error err;
	char msg[MSG_MAX], opts[MSG_MAX];

	if (!pl) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibfab: out of memory\n");
		return NULL; /* nothing registered yet: safe */
	}
	pl->osm = osm;

	/* configuration: $IBFAB_CONF, else /etc/opensm/ibfab.conf when present */
	const char *env = getenv(IBFAB_CONF_ENV);
	const char *path = env && *env ? env : IBFAB_CONF_DEFAULT;
	int explicit_path = env && *env;
	ibf_conf_default(&pl->conf);
	ibf_error_clear(&err);
	snprintf(pl->conf_path, sizeof(pl->conf_path), "%s", path);
	conf_stamp_get(path, &pl->conf_stamp);
	pl->conf_warned = pl->conf_stamp;
	/* only a regular file (or /dev/null for the defaults): opening a FIFO
	 * would block OpenSM's startup until a writer comes, and "-" would read
	 * OpenSM's standard input */
	struct stat sb, nb;
	int rc;
	if (!strcmp(path, "-"))
		rc = ibf_error_set(&err, IBF_EIO, path, 0,
				   "not a file ('-' would be OpenSM's standard input)");
	else if (!stat(path, &sb) && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode) &&
		 !(S_ISCHR(sb.st_mode) && !stat("/dev/null", &nb) && sb.st_rdev == nb.st_rdev))
		rc = ibf_error_set(&err, IBF_EIO, path, 0, "not a regular file (%s)",
				   S_ISFIFO(sb.st_mode)	 ? "a FIFO"
				   : S_ISSOCK(sb.st_mode) ? "a socket"
				   : S_ISCHR(sb.st_mode)  ? "a character device"
				   : S_ISBLK(sb.st_mode)  ? "a block device"
							  : "not a file");
	else
		rc = ibf_conf_read(path, &pl->conf, &err);
	if (rc == IBF_EIO && !explicit_path && access(path, F_OK) && errno == ENOENT) {
		ibf_conf_default(&pl->conf);
		pl->conf_ok = 1;
		plog(pl, OSM_LOG_INFO, "ibfab %s: no %s, using the default options",
		     PACKAGE_VERSION, path);
	} else if (rc) {
		pl->conf_ok = 0;
		ibf_error_format(&err, pl->conf_msg, sizeof(pl->conf_msg));
		if (rc == IBF_EIO && explicit_path)
			snprintf(pl->conf_msg + strlen(pl->conf_msg),
				 sizeof(pl->conf_msg) - strlen(pl->conf_msg), " (from $%s)",
				 IBFAB_CONF_ENV);
		plog(pl, OSM_LOG_ERROR,
		     "ibfab %s: configuration error: %s; the ibfab routing engines will refuse "
		     "to route and OpenSM falls back to the next engine",
		     PACKAGE_VERSION, pl->conf_msg);
	} else {
		pl->conf_ok = 1;
		plog(pl, OSM_LOG_INFO, "ibfab %s: read %s (%d settings)", PACKAGE_VERSION, path,
		     pl->conf.lines);
	}
	plog(pl, pl->conf_ok ? OSM_LOG_INFO : OSM_LOG_ERROR, "ibfab: %soptions: %s",
	     pl->conf_ok ? "" : "(unused) ", ibf_conf_format(&pl->conf, opts, sizeof(opts)));

	/* one external engine per ibfab engine */
	msg[0] = '\0';
	for (const struct ibf_engine *e = ibf_engines; e->name; e++) {
		external_routing_engine_module_t m = { e->name, ibfab_setup, pl };
		cl_status_t st = osm_register_external_routing_engine(osm, &m, pl);
		if (st != CL_SUCCESS) {
			plog(pl, OSM_LOG_ERROR, "ibfab: cannot register routing engine '%s': %s",
			     e->name,
			     st == CL_DUPLICATE ? "the name is taken by another engine"
						: "OpenSM refused it");
			continue;
		}
		pl->registered++;
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, "%s%s", len ? " " : "", e->name);
	}
	plog(pl, OSM_LOG_INFO, "ibfab: registered routing engines: %s", msg[0] ? msg : "(none)");
	health_start(pl);
	return pl;
}

static void ibfab_delete(void *data)
{
	struct ibfab *pl = data;
	if (!pl)
		return;
	health_stop(pl);
	drop_routes(pl);
	free(pl);
}

__attribute__((visibility("default"))) osm_event_plugin_t osm_event_plugin = {
	OSM_VERSION,
	ibfab_create,
	ibfab_delete,
	ibfab_report,
};
