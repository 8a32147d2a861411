/* LID assignment, LID map, guid2lid files, atomic output files. */
#include "io_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IBF_MAX_UCAST_LID 0xBFFF

static int port_has_lid(const struct ibf_fabric *f, int node, int p)
{
	const struct ibf_node *n = &f->nodes[node];
	if (n->type == IBF_NODE_SWITCH)
		return p == 0;
	return p >= 1 && ibf_port(f, node, p)->peer_node != IBF_NO_NODE;
}

/* the node ids in canonical order (NULL when out of memory) */
static int32_t *canonical_ids(const struct ibf_fabric *f)
{
	int32_t *ids = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*ids));
	if (!ids)
		return NULL;
	for (uint32_t i = 0; i < f->nnodes; i++)
		ids[i] = (int32_t)i;
	if (ibf_fabric_sort_ids(f, ids, f->nnodes)) {
		free(ids);
		return NULL;
	}
	return ids;
}

int ibf_assign_lids(struct ibf_fabric *f, int lmc, int switch_lmc, struct ibf_error *err)
{
	if (lmc < 0 || lmc > 7)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "LMC %d out of range 0..7", lmc);
	uint32_t next = 1;
	/* Switches first (OpenSM discovers from the SM's switch outward and
	 * reuses guid2lid; on a fresh subnet the exact order differs, so this is
	 * a deterministic stand-in: switches, then end ports, in canonical node
	 * order, GUID first, so the same fabric gets the same LIDs whatever the
	 * order of its file's records; node order before) */
	int32_t *ids = canonical_ids(f);
	if (!ids)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < f->nnodes; k++) {
			uint32_t i = (uint32_t)ids[k];
			struct ibf_node *n = &f->nodes[i];
			int is_sw = n->type == IBF_NODE_SWITCH;
			if (is_sw != (pass == 0))
				continue;
			for (int p = 0; p <= n->nports; p++) {
				struct ibf_port *pp = ibf_port(f, (int)i, p);
				if (!port_has_lid(f, (int)i, p)) {
					pp->lid = 0;
					pp->lmc = 0;
					continue;
				}
				int l = (is_sw && !switch_lmc) ? 0 : lmc;
				uint32_t span = 1u << l;
				uint32_t base = (next + span - 1) & ~(span - 1);
				if (base + span - 1 > IBF_MAX_UCAST_LID) {
					free(ids);
					return ibf_error_set(
						err, IBF_EINVAL, NULL, 0,
						"out of unicast LIDs (LMC %d needs more than %u)",
						lmc, IBF_MAX_UCAST_LID);
				}
				pp->lid = (uint16_t)base;
				pp->lmc = (uint8_t)l;
				next = base + span;
			}
		}
	}
	free(ids);
	return 0;
}

int ibf_assign_missing_lids(struct ibf_fabric *f, int lmc, int *first_node, int *first_port,
			    struct ibf_error *err)
{
	*first_node = *first_port = -1;
	if (lmc < 0 || lmc > 7)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "LMC %d out of range 0..7", lmc);
	uint8_t *used = calloc(IBF_MAX_UCAST_LID + 1, 1);
	if (!used)
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	used[0] = 1;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 0; p <= f->nodes[i].nports; p++) {
			/* every LID the file gives is taken, also one of a port
			 * that needs none (a CA port whose cable is gone): the
			 * LID map holds it too, so giving it again made two */
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (!pp->lid)
				continue;
			uint32_t top = (uint32_t)pp->lid + (1u << pp->lmc);
			for (uint32_t l = pp->lid; l < top && l <= IBF_MAX_UCAST_LID; l++)
				used[l] = 1;
		}
	int n = 0;
	uint32_t next[2] = { 1, 1 }; /* lowest LID that may be free, per span kind */
	/* canonical node order: which port gets which free LID, and the
	 * port named first, do not follow the file's record order */
	int32_t *ids = canonical_ids(f);
	if (!ids) {
		free(used);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < f->nnodes; k++) {
			uint32_t i = (uint32_t)ids[k];
			struct ibf_node *nd = &f->nodes[i];
			int is_sw = nd->type == IBF_NODE_SWITCH;
			if (is_sw != (pass == 0))
				continue;
			for (int p = 0; p <= nd->nports; p++) {
				struct ibf_port *pp = ibf_port(f, (int)i, p);
				if (pp->lid || !port_has_lid(f, (int)i, p))
					continue;
				int l = is_sw ? 0 : lmc;
				uint32_t span = 1u << l,
					 base = (next[l > 0] + span - 1) & ~(span - 1);
				for (;; base += span) {
					if (base + span - 1 > IBF_MAX_UCAST_LID) {
						free(used);
						free(ids);
						return ibf_error_set(
							err, IBF_EINVAL, NULL, 0,
							"out of unicast LIDs: no free block of %u for "
							"'%s' port %d",
							span, nd->desc ? nd->desc : "?", p);
					}
					uint32_t u = 0;
					while (u < span && !used[base + u])
						u++;
					if (u == span)
						break;
				}
				memset(used + base, 1, span);
				next[l > 0] = base + span;
				pp->lid = (uint16_t)base;
				pp->lmc = (uint8_t)l;
				if (!n++) {
					*first_node = (int)i;
					*first_port = p;
				}
			}
		}
	}
	free(used);
	free(ids);
	return n;
}

int ibf_io_check_unicast_lids(const struct ibf_fabric *f, const char *name, const long *defline,
			      struct ibf_error *err)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		for (int p = 0; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			uint32_t top = (uint32_t)pp->lid + (1u << pp->lmc) - 1;
			if (!pp->lid)
				continue;
			if (top <= IBF_MAX_UCAST_LID) {
				/* a port answers to the 2^LMC LIDs that share its base
				 * LID's upper bits: the base is a multiple of 2^LMC */
				if (pp->lid & ((1u << pp->lmc) - 1))
					return ibf_error_set(
						err, IBF_EPARSE, name, defline ? defline[i] : 0,
						"'%s' port %d: LID %u with LMC %u is not a multiple of %u "
						"(a port's 2^LMC LIDs are an aligned block: %u-%u)",
						n->desc, p, pp->lid, pp->lmc, 1u << pp->lmc,
						pp->lid & ~((1u << pp->lmc) - 1u),
						(pp->lid & ~((1u << pp->lmc) - 1u)) + (1u << pp->lmc) - 1);
				continue;
			}
			if (pp->lmc)
				return ibf_error_set(
					err, IBF_EPARSE, name, defline ? defline[i] : 0,
					"'%s' port %d: LIDs %u-%u (LID %u, LMC %u) reach past the "
					"unicast range 1-%u (0x%X; 0xC000 and above are multicast)",
					n->desc, p, pp->lid, top, pp->lid, pp->lmc, IBF_MAX_UCAST_LID,
					IBF_MAX_UCAST_LID);
			return ibf_error_set(err, IBF_EPARSE, name, defline ? defline[i] : 0,
					     "'%s' port %d: LID %u (0x%04X) is not a unicast LID "
					     "(1-%u, 0x%X; 0xC000 and above are multicast)",
					     n->desc, p, pp->lid, pp->lid, IBF_MAX_UCAST_LID,
					     IBF_MAX_UCAST_LID);
		}
	}
	return 0;
}

uint32_t ibf_max_lid(const struct ibf_fabric *f)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < f->nports_total; i++) {
		const struct ibf_port *p = &f->ports[i];
		if (p->lid) {
			uint32_t top = (uint32_t)p->lid + (1u << p->lmc) - 1;
			if (top > m)
				m = top;
		}
	}
	return m;
}

int ibf_lidmap_build(const struct ibf_fabric *f, struct ibf_lidmap *m, struct ibf_error *err)
{
	memset(m, 0, sizeof(*m));
	m->max_lid = ibf_max_lid(f);
	m->node = malloc(((size_t)m->max_lid + 1) * sizeof(*m->node));
	m->port = calloc((size_t)m->max_lid + 1, 1);
	if (!m->node || !m->port) {
		ibf_lidmap_free(m);
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	for (uint32_t l = 0; l <= m->max_lid; l++)
		m->node[l] = -1;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		for (int p = 0; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (!pp->lid)
				continue;
			uint32_t top = (uint32_t)pp->lid + (1u << pp->lmc);
			for (uint32_t l = pp->lid; l < top; l++) {
				if (m->node[l] >= 0) {
					const struct ibf_node *o = &f->nodes[m->node[l]];
					const char *od = o->desc ? o->desc : "";
					const char *nd = n->desc ? n->desc : "";
					int code;
					/* one description for both (a node and its
					 * copy, a record missing from a cut dump
					 * whose peers' comments name it): the GUIDs
					 * tell them apart */
					if (m->node[l] != (int32_t)i && !strcmp(od, nd))
						code = ibf_error_set(
							err, IBF_EINVAL, NULL, 0,
							"LID %u used by '%s' (guid 0x%016llx) port %d "
							"and '%s' (guid 0x%016llx) port %d",
							l, od, (unsigned long long)o->guid, m->port[l],
							nd, (unsigned long long)n->guid, p);
					else
						code = ibf_error_set(
							err, IBF_EINVAL, NULL, 0,
							"LID %u used by '%s' port %d and '%s' port %d", l,
							od, m->port[l], nd, p);
					ibf_lidmap_free(m);
					return code;
				}
				m->node[l] = (int32_t)i;
				m->port[l] = (uint8_t)p;
			}
		}
	}
	return 0;
}

void ibf_lidmap_free(struct ibf_lidmap *m)
{
	free(m->node);
	free(m->port);
	m->node = NULL;
	m->port = NULL;
}

/* ------------------------------------------------------------ guid2lid */

int ibf_guid2lid_read(struct ibf_fabric *f, const char *path, struct ibf_error *err)
{
	char *buf;
	size_t len;
	int rc = ibf_slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ibf_guid2lid_parse(f, buf, len, path, err);
	free(buf);
	return rc;
}

int ibf_guid2lid_parse(struct ibf_fabric *f, const char *buf, size_t len, const char *path,
		       struct ibf_error *err)
{
	char line[512];
	int rc = 0;
	struct ibf_lines L;
	const char *s;
	size_t sn;
	int nul;
	ibf_lines_init(&L, buf, len);
	while (!rc && ibf_lines_next(&L, &s, &sn, &nul)) {
		long ln = L.lineno;
		if (sn >= sizeof(line) - 1) {
			rc = ibf_error_set(err, IBF_EPARSE, path, ln, "line too long");
			break;
		}
		if (nul) {
			rc = ibf_error_set(err, IBF_EPARSE, path, ln, "NUL byte in a text line");
			break;
		}
		memcpy(line, s, sn);
		line[sn] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		/* OpenSM writes "0x<guid> 0x<lid> 0x<lid>" (osm_db_pack.c) and reads
		 * any base; ibfab writes the LIDs in decimal: take 0x-hex or decimal */
		uint64_t guid = 0, v[2] = { 0, 0 };
		struct ibf_cur c = { p, line + sn };
		int bad = ibf_cur_hex(&c, &guid) || (c.p < c.e && !ibf_is_ws(*c.p));
		for (int k = 0; k < 2 && !bad; k++) {
			ibf_cur_ws(&c);
			bad = ibf_cur_num(&c, 0xffff, &v[k]) || (c.p < c.e && !ibf_is_ws(*c.p));
		}
		ibf_cur_ws(&c);
		unsigned lo = (unsigned)v[0], hi = (unsigned)v[1];
		if (bad || c.p < c.e || lo == 0 || lo > IBF_MAX_UCAST_LID || hi < lo ||
		    hi > IBF_MAX_UCAST_LID) {
			rc = ibf_error_set(err, IBF_EPARSE, path, ln,
					   "expected '0x<port guid> <base lid> <top lid>'");
			break;
		}
		if (guid == 0) { /* 0 is no GUID: it would match a port whose GUID is unknown */
			rc = ibf_error_set(err, IBF_EPARSE, path, ln,
					   "port GUID 0 is not a valid GUID");
			break;
		}
		unsigned span = hi - lo + 1;
		int lmc = 0;
		while ((1u << lmc) < span)
			lmc++;
		if ((1u << lmc) != span || (lo & (span - 1))) {
			rc = ibf_error_set(err, IBF_EPARSE, path, ln,
					   "LID range %u-%u is not an aligned power of two", lo,
					   hi);
			break;
		}
		if (lmc > 7) { /* InfiniBand's LMC field has 3 bits */
			rc = ibf_error_set(err, IBF_EPARSE, path, ln,
					   "LID range %u-%u needs LMC %d (InfiniBand allows 0..7)",
					   lo, hi, lmc);
			break;
		}
		int port = 0;
		int node = ibf_fabric_find_port_guid(f, guid, &port);
		if (node < 0)
			continue; /* not in this fabric (OpenSM keeps stale entries too) */
		struct ibf_port *pp = ibf_port(f, node, port);
		if (f->nodes[node].type == IBF_NODE_SWITCH) {
			/* all switch ports share the port-0 GUID in generated fabrics */
			pp = ibf_port(f, node, 0);
		}
		pp->lid = (uint16_t)lo;
		pp->lmc = (uint8_t)lmc;
	}
	return rc;
}

int ibf_guid2lid_write(const struct ibf_fabric *f, const char *path, struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		for (int p = 0; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (!pp->lid)
				continue;
			fprintf(a.fp, "0x%016llx %u %u\n", (unsigned long long)pp->guid, pp->lid,
				pp->lid + (1u << pp->lmc) - 1);
		}
	}
	return ibf_atomic_commit(&a, 1, err);
}
