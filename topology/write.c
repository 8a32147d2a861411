/* Writers: ibnetdiscover topology text, ibsim net files and JSON.
 *
 * The ibnetdiscover writer prints what infiniband-diags prints (switches,
 * then CAs, then routers; the same fields and separators), so our reader,
 * ibsim and third-party parsers read it.  The ibsim writer prints a file
 * `ibsim -s` loads with every node GUID pinned by a switchguid=/caguid=/
 * rtguid= line, so the GUIDs survive ibsim -> ibnetdiscover (ibsim derives
 * CA port GUIDs as node GUID + port number, as the generators do). */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

static char type_letter(int type)
{
	return type == IBF_NODE_SWITCH ? 'S' : type == IBF_NODE_CA ? 'H' : 'R';
}

struct names {
	char **v;
	uint32_t n;
};

static void names_free(struct names *nm)
{
	if (nm->v)
		for (uint32_t i = 0; i < nm->n; i++)
			free(nm->v[i]);
	free(nm->v);
	nm->v = NULL;
}

/* ibsim: at most 64 bytes, no '"', '#', '@'; ibnetdiscover: no '"'.
 * Never control characters, never empty. */
static int name_ok(const char *s, int ibsim)
{
	if (!s || !*s)
		return 0;
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
		if (*p < 0x20 || *p == 0x7f || *p == '"')
			return 0;
		if (ibsim && (*p == '#' || *p == '@'))
			return 0;
	}
	return !ibsim || n <= 64;
}

enum { NM_DESC, NM_ID, NM_GUID, NM_INDEX };

/* Try one naming scheme for every node; 0 when all names are valid and unique. */
static int names_try(const struct ibf_fabric *f, int scheme, int ibsim, struct names *nm)
{
	struct ibf_smap seen = { 0 };
	int rc = 0;
	nm->n = f->nnodes;
	nm->v = calloc(f->nnodes ? f->nnodes : 1, sizeof(*nm->v));
	if (!nm->v)
		return IBF_ENOMEM;
	for (uint32_t i = 0; i < f->nnodes && !rc; i++) {
		const struct ibf_node *n = &f->nodes[i];
		char buf[40];
		const char *s = NULL;
		switch (scheme) {
		case NM_DESC:
			s = n->desc;
			break;
		case NM_ID:
			s = n->id;
			break;
		case NM_GUID:
			if (n->guid) {
				snprintf(buf, sizeof(buf), "%c-%016llx", type_letter(n->type),
					 (unsigned long long)n->guid);
				s = buf;
			}
			break;
		default:
			snprintf(buf, sizeof(buf), "%c-node%u", type_letter(n->type), i);
			s = buf;
			break;
		}
		if (!name_ok(s, ibsim)) {
			rc = 1;
			break;
		}
		nm->v[i] = strdup(s);
		if (!nm->v[i]) {
			rc = IBF_ENOMEM;
			break;
		}
		int put = ibf_smap_put(&seen, nm->v[i], strlen(nm->v[i]), (int32_t)i, NULL);
		if (put < 0)
			rc = IBF_ENOMEM;
		else if (put == 1)
			rc = 1;
	}
	ibf_smap_free(&seen);
	if (rc)
		names_free(nm);
	return rc;
}

static int names_make(const struct ibf_fabric *f, int ibsim, struct names *nm,
		      struct ibf_error *err)
{
	static const int ibnd_order[] = { NM_GUID, NM_ID, NM_INDEX };
	static const int ibsim_order[] = { NM_DESC, NM_ID, NM_GUID, NM_INDEX };
	const int *order = ibsim ? ibsim_order : ibnd_order;
	size_t k = ibsim ? 4 : 3;
	for (size_t i = 0; i < k; i++) {
		int rc = names_try(f, order[i], ibsim, nm);
		if (rc == 0)
			return 0;
		if (rc < 0)
			return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	return ibf_error_set(err, IBF_EINVAL, NULL, 0, "cannot name the nodes uniquely");
}

/* ------------------------------------------------------------ helpers */

/* Description as tools print it: non-printable characters become spaces.
 * ibsim (1): also '"', which it cannot quote, and at most 63 bytes;
 * ibsim peer descriptions (2): also '=', which ibsim would take for a port
 * option ("s=2") anywhere after the peer id. */
static void put_desc(FILE *out, const char *s, int ibsim)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++, n++) {
		if (ibsim && n >= 63)
			break;
		unsigned char ch = *p;
		if (ch < 0x20 || ch == 0x7f)
			ch = ' ';
		if (ibsim && ch == '"')
			ch = '\'';
		if (ibsim == 2 && ch == '=')
			ch = ' ';
		fputc(ch, out);
	}
}

/* ibsim takes a node's own description after '#' either between double
 * quotes (up to the next '"', so it cannot hold one) or bare, up to " lid ",
 * " lmc ", " base port " or " enhanced port " (or the end of the line).
 * A description with a '"' is written bare when that reads back whole:
 * not empty, not starting with a quote or a blank (ibsim skips blanks
 * after '#'), none of those words in its first 63 bytes. */
static int ibsim_bare_desc(const char *s)
{
	if (!s || !strchr(s, '"') || !*s || *s == '"' || *s == ' ' || *s == '\t')
		return 0;
	char cut[64];
	size_t n = strlen(s);
	if (n > 63)
		n = 63;
	memcpy(cut, s, n);
	cut[n] = '\0';
	if (!strchr(cut, '"'))
		return 0; /* the quote falls past the 63 bytes kept */
	static const char *const stop[] = { " lid ", " lmc ", " base port ", " enhanced port " };
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++)
		if (strstr(cut, stop[i]))
			return 0;
	/* the last byte: a blank there would be followed by the "base port"
	 * words and end the description one byte early */
	return cut[n - 1] != ' ';
}

/* A node's description after the '#' of its line: quoted as ibnetdiscover
 * writes it, or for ibsim bare where ibsim reads it back whole
 * (ibsim_bare_desc), else quoted with ibsim's escapes. */
static void put_node_desc(FILE *out, const char *s, int ibsim)
{
	if (!ibsim || !ibsim_bare_desc(s)) {
		fputc('"', out);
		put_desc(out, s, ibsim);
		fputc('"', out);
		return;
	}
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && n < 63; p++, n++)
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
}

static const char *ws_str(uint8_t w, uint8_t s, char *buf, size_t len)
{
	if (!w && !s) {
		buf[0] = '\0';
		return buf;
	}
	char wb[8];
	if (w)
		snprintf(wb, sizeof(wb), "%ux", w);
	else
		snprintf(wb, sizeof(wb), "??");
	snprintf(buf, len, "%s%s", wb, s ? ibf_speed_name(s) : "???");
	return buf;
}

/* LID a port line shows for the peer: a switch's port-0 LID, else the port's. */
static unsigned peer_lid(const struct ibf_fabric *f, int node, int port)
{
	if (f->nodes[node].type == IBF_NODE_SWITCH)
		return ibf_port(f, node, 0)->lid;
	return ibf_port(f, node, port)->lid;
}

/* ------------------------------------------------------------ ibnetdiscover */

static void ibnd_port(const struct ibf_fabric *f, FILE *out, const struct names *nm, int i, int p,
		      int ibsim)
{
	const struct ibf_node *n = &f->nodes[i];
	const struct ibf_port *pp = ibf_port(f, i, p);
	int b = pp->peer_node, bp = pp->peer_port;
	const struct ibf_node *bn = &f->nodes[b];
	char ws[24];
	ws_str(pp->width, pp->speed, ws, sizeof(ws));
	if (ibsim && (!pp->width || !pp->speed))
		ws[0] = '\0'; /* ibsim wants both or neither */
	if (n->type == IBF_NODE_SWITCH) {
		fprintf(out, "[%d]\t\"%s\"[%d]", p, nm->v[b], bp);
		if (bn->type != IBF_NODE_SWITCH && !ibsim)
			fprintf(out, "(%llx) ", (unsigned long long)ibf_port(f, b, bp)->guid);
		fprintf(out, "\t\t# \"");
		put_desc(out, bn->desc, ibsim ? 2 : 0);
		fprintf(out, "\" lid %u", peer_lid(f, b, bp));
	} else {
		fprintf(out, "[%d]", p);
		if (!ibsim)
			fprintf(out, "(%llx) ", (unsigned long long)pp->guid);
		fprintf(out, "\t\"%s\"[%d]", nm->v[b], bp);
		if (bn->type != IBF_NODE_SWITCH && !ibsim)
			fprintf(out, " (%llx) ", (unsigned long long)ibf_port(f, b, bp)->guid);
		fprintf(out, "\t\t# lid %u lmc %u \"", pp->lid, pp->lmc);
		put_desc(out, bn->desc, ibsim ? 2 : 0);
		fprintf(out, "\" lid %u", peer_lid(f, b, bp));
	}
	if (ws[0])
		fprintf(out, " %s", ws);
	fputc('\n', out);
}

static void ibnd_node(const struct ibf_fabric *f, FILE *out, const struct names *nm, int i,
		      int ibsim, int pin_guids)
{
	const struct ibf_node *n = &f->nodes[i];
	fprintf(out, "\nvendid=0x%x\ndevid=0x%x\n", n->vendid, n->devid);
	if (n->sysimg_guid)
		fprintf(out, "sysimgguid=0x%llx\n", (unsigned long long)n->sysimg_guid);
	if (n->type == IBF_NODE_SWITCH) {
		const struct ibf_port *p0 = ibf_port(f, i, 0);
		if (!ibsim)
			fprintf(out, "switchguid=0x%llx(%llx)\n", (unsigned long long)n->guid,
				(unsigned long long)p0->guid);
		else if (pin_guids)
			fprintf(out, "switchguid=0x%llx\n", (unsigned long long)n->guid);
		fprintf(out, "Switch\t%d \"%s\"\t\t# ", n->nports, nm->v[i]);
		put_node_desc(out, n->desc, ibsim);
		fprintf(out, " %s port 0 lid %u lmc %u\n", n->enhanced_sp0 ? "enhanced" : "base",
			p0->lid, p0->lmc);
	} else {
		const char *g = n->type == IBF_NODE_CA ? "caguid" : "rtguid";
		if (!ibsim || pin_guids)
			fprintf(out, "%s=0x%llx\n", g, (unsigned long long)n->guid);
		fprintf(out, "%s\t%d \"%s\"\t\t# ", n->type == IBF_NODE_CA ? "Ca" : "Rt",
			n->nports, nm->v[i]);
		put_node_desc(out, n->desc, ibsim);
		fputc('\n', out);
	}
	for (int p = 1; p <= n->nports; p++)
		if (ibf_port(f, i, p)->peer_node != IBF_NO_NODE)
			ibnd_port(f, out, nm, i, p, ibsim);
}

/* ibsim pins GUIDs with base lines only when they are all set and distinct
 * (ibsim refuses duplicate node GUIDs). */
static int guids_pinnable(const struct ibf_fabric *f)
{
	struct ibf_umap m = { 0 };
	int ok = 1;
	for (uint32_t i = 0; i < f->nnodes && ok; i++) {
		uint64_t g = f->nodes[i].guid;
		int rc = g ? ibf_umap_put(&m, g, (int32_t)i, NULL) : 1;
		if (rc != 0)
			ok = 0;
	}
	ibf_umap_free(&m);
	return ok;
}

static int write_ibnd(const struct ibf_fabric *f, FILE *out, int ibsim, struct ibf_error *err)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE)
				continue;
			if (pp->peer_node < 0 || (uint32_t)pp->peer_node >= f->nnodes ||
			    pp->peer_port < 1 || pp->peer_port > f->nodes[pp->peer_node].nports)
				return ibf_error_set(err, IBF_EINVAL, NULL, 0,
						     "node %u port %d has a bad peer", i, p);
		}
	}
	struct names nm = { 0 };
	int rc = names_make(f, ibsim, &nm, err);
	if (rc)
		return rc;
	int pin = ibsim ? guids_pinnable(f) : 1;
	if (ibsim) {
		fprintf(out, "# ibsim net file written by ibfab (load with: ibsim -s FILE)\n");
		if (!pin)
			fprintf(out,
				"# node GUIDs are not all set and distinct: ibsim assigns them\n");
	} else {
		fprintf(out, "#\n# Topology file: generated by ibfab\n#\n");
	}
	for (int t = 0; t < 3; t++) {
		int want = t == 0 ? IBF_NODE_SWITCH : t == 1 ? IBF_NODE_CA : IBF_NODE_ROUTER;
		for (uint32_t i = 0; i < f->nnodes; i++)
			if (f->nodes[i].type == want)
				ibnd_node(f, out, &nm, (int)i, ibsim, pin);
	}
	names_free(&nm);
	return 0;
}

/* ------------------------------------------------------------ JSON */

static const char *type_name(int t)
{
	return t == IBF_NODE_SWITCH ? "switch" : t == IBF_NODE_CA ? "ca" : "router";
}

static int write_json(const struct ibf_fabric *f, FILE *out)
{
	fprintf(out, "{\n  \"format\": \"ibfab-fabric\",\n  \"version\": 1,\n  \"meta\": ");
	ibf_json_str(out, f->meta);
	fprintf(out, ",\n  \"nodes\": [");
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct ibf_node *n = &f->nodes[i];
		fprintf(out, "%s\n    {\"index\": %u, \"type\": \"%s\", \"id\": ", i ? "," : "", i,
			type_name(n->type));
		if (n->id)
			ibf_json_str(out, n->id);
		else
			fputs("null", out);
		fprintf(out,
			", \"guid\": \"0x%016llx\", \"sysimgguid\": \"0x%016llx\", "
			"\"vendid\": %u, \"devid\": %u, \"desc\": ",
			(unsigned long long)n->guid, (unsigned long long)n->sysimg_guid, n->vendid,
			n->devid);
		ibf_json_str(out, n->desc);
		fprintf(out, ", \"nports\": %d", n->nports);
		if (n->type == IBF_NODE_SWITCH) {
			const struct ibf_port *p0 = ibf_port(f, (int)i, 0);
			fprintf(out,
				", \"enhanced_port0\": %s, \"port_guid\": \"0x%016llx\", "
				"\"lid\": %u, \"lmc\": %u",
				n->enhanced_sp0 ? "true" : "false", (unsigned long long)p0->guid,
				p0->lid, p0->lmc);
		}
		fprintf(out, ",\n     \"ports\": [");
		int first = 1;
		for (int p = 1; p <= n->nports; p++) {
			const struct ibf_port *pp = ibf_port(f, (int)i, p);
			if (pp->peer_node == IBF_NO_NODE && !pp->guid && !pp->lid)
				continue;
			fprintf(out, "%s\n       {\"port\": %d", first ? "" : ",", p);
			first = 0;
			if (n->type != IBF_NODE_SWITCH)
				fprintf(out, ", \"guid\": \"0x%016llx\", \"lid\": %u, \"lmc\": %u",
					(unsigned long long)pp->guid, pp->lid, pp->lmc);
			if (pp->peer_node != IBF_NO_NODE)
				fprintf(out, ", \"peer\": {\"node\": %d, \"port\": %u}",
					pp->peer_node, pp->peer_port);
			else
				fputs(", \"peer\": null", out);
			fprintf(out, ", \"width\": %u, \"speed\": \"%s\"}", pp->width,
				ibf_speed_name(pp->speed));
		}
		fprintf(out, "%s]}", first ? "" : "\n     ");
	}
	fprintf(out, "\n  ]\n}\n");
	return 0;
}

/* ------------------------------------------------------------ entry points */

int ibf_fabric_write_stream(const struct ibf_fabric *f, FILE *out, int fmt, struct ibf_error *err)
{
	int rc;
	if (!f || !out)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "no fabric or stream");
	switch (fmt) {
	case IBF_FMT_IBNETDISCOVER:
	case IBF_FMT_AUTO:
		rc = write_ibnd(f, out, 0, err);
		break;
	case IBF_FMT_IBSIM:
		rc = write_ibnd(f, out, 1, err);
		break;
	case IBF_FMT_JSON:
		rc = write_json(f, out);
		break;
	case IBF_FMT_IBNETDISCOVER_P:
	case IBF_FMT_SUBNET_LST:
		return ibf_error_set(err, IBF_ENOTSUP, NULL, 0, "writing %s is not supported",
				     ibf_format_name(fmt));
	default:
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "unknown format %d", fmt);
	}
	if (rc)
		return rc;
	if (fflush(out) != 0 || ferror(out))
		return ibf_error_set(err, IBF_EIO, NULL, 0, "write error");
	return 0;
}

int ibf_fabric_write(const struct ibf_fabric *f, const char *path, int fmt, struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	rc = ibf_fabric_write_stream(f, a.fp, fmt, err);
	if (rc) {
		if (err && !err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", path);
		ibf_atomic_commit(&a, 0, NULL);
		return rc;
	}
	return ibf_atomic_commit(&a, 1, err);
}
