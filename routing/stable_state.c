/* The healthy tables H kept on disk across restarts (the plugin's
 * stable_state_dir): H's fabric in the ibnetdiscover format and H's tables
 * in the opensm-lfts.dump format (what `ibfab route --healthy-topology` and
 * `--healthy-lfts` read), and a small manifest that names both and the
 * engine.  The two data files carry a hash of their content in their names
 * and are written (temporary file, rename) before the manifest is replaced
 * the same way, so a reader sees the old pair or the new one, never a mix. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibf_routing.h"

#define MANIFEST "healthy.state"
#define STATE_MAX_FILE (1UL << 30)

int ibf_routes_healthy(const struct ibf_routes *r, const struct ibf_fabric *f,
		       const struct ibf_fabric **hf, const struct ibf_routes **hr)
{
	const struct ibf_fabric *fh = NULL;
	const struct ibf_routes *rh = NULL;
	if (r && r->healthy)
		ibf_healthy_get(r->healthy, &fh, &rh);
	else if (r && f && !r->moved) {
		fh = f;
		rh = r;
	}
	if (hf)
		*hf = fh;
	if (hr)
		*hr = rh;
	return fh && rh;
}

static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* the name of a kept pair: a 64-bit FNV-1a of the engine, the fabric file
 * and the tables file, as written, and of the provisional mark when set */
static uint64_t state_sig(const char *engine, const char *tb, size_t tn, const char *lb, size_t ln,
			  int provisional)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, engine, strlen(engine) + 1);
	h = fnv(fnv(h, tb, tn), lb, ln);
	return provisional ? fnv(h, "provisional", 11) : h;
}

static int path_in(char *out, size_t size, const char *dir, const char *name, struct ibf_error *err)
{
	if ((size_t)snprintf(out, size, "%s/%s", dir, name) >= size)
		return ibf_error_set(err, IBF_EINVAL, NULL, 0, "stable state: path too long: %s/%s",
				     dir, name);
	return 0;
}

static int write_buf(const char *path, const char *buf, size_t len, struct ibf_error *err)
{
	struct ibf_atomic a;
	int rc = ibf_atomic_open(&a, path, err);
	if (rc)
		return rc;
	int ok = fwrite(buf, 1, len, a.fp) == len && !fflush(a.fp) && !fsync(fileno(a.fp));
	if (!ok)
		ibf_error_set(err, IBF_EIO, path, 0, "write error: %s", strerror(errno));
	rc = ibf_atomic_commit(&a, ok, ok ? err : NULL);
	return ok ? rc : IBF_EIO;
}

/* The manifest's lines: "engine E", "healthy-topology F", "healthy-lfts F"
 * (names inside dir, no '/'); '#' comments. */
struct manifest {
	char engine[32], topo[256], lfts[256];
	long engine_line;
	int provisional;
};

static int manifest_read(const char *path, struct manifest *m, struct ibf_error *err)
{
	char *buf;
	size_t len;
	memset(m, 0, sizeof(*m));
	int rc = ibf_slurp_limit(path, 65536, &buf, &len, err);
	if (rc)
		return rc;
	long line = 0;
	for (char *p = buf, *nl; !rc && p < buf + len; p = nl + 1) {
		line++;
		nl = strchr(p, '\n');
		if (!nl)
			nl = buf + len;
		*nl = '\0';
		if (!*p || *p == '#')
			continue;
		char key[32], val[256];
		int n = -1;
		if (sscanf(p, "%31s %255s %n", key, val, &n) != 2 || n < 0 || p[n])
			rc = ibf_error_set(err, IBF_EPARSE, path, line, "expected KEY VALUE");
		else if (!strcmp(key, "engine") && strlen(val) < sizeof(m->engine)) {
			strcpy(m->engine, val);
			m->engine_line = line;
		}
		else if (!strcmp(key, "healthy-topology") && !strchr(val, '/'))
			strcpy(m->topo, val);
		else if (!strcmp(key, "healthy-lfts") && !strchr(val, '/'))
			strcpy(m->lfts, val);
		else if (!strcmp(key, "provisional") && (!strcmp(val, "0") || !strcmp(val, "1")))
			m->provisional = val[0] == '1';
		else
			rc = ibf_error_set(err, IBF_EPARSE, path, line, "unknown key or bad value '%s'",
					   key);
	}
	if (!rc && (!m->engine[0] || !m->topo[0] || !m->lfts[0]))
		rc = ibf_error_set(err, IBF_EPARSE, path, line,
				   "needs the lines engine, healthy-topology and healthy-lfts");
	free(buf);
	return rc;
}

int ibf_stable_state_save(const char *dir, const char *engine, const struct ibf_fabric *f,
			  const struct ibf_routes *r, const uint64_t *last, uint64_t *sig,
			  int *written, struct ibf_error *err)
{
	char *tb = NULL, *lb = NULL;
	size_t tn = 0, ln = 0;
	int rc = 0;
	if (written)
		*written = 0;
	FILE *ts = open_memstream(&tb, &tn), *ls = ts ? open_memstream(&lb, &ln) : NULL;
	if (!ts || !ls)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (!rc)
		rc = ibf_fabric_write_stream(f, ts, IBF_FMT_IBNETDISCOVER, err);
	if (!rc)
		rc = ibf_lfts_write_stream(f, r, ls, err);
	if (ts && fclose(ts) && !rc)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	if (ls && fclose(ls) && !rc)
		rc = ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	uint64_t h = rc ? 0 : state_sig(engine, tb, tn, lb, ln, r->provisional);
	if (!rc && sig)
		*sig = h;
	if (!rc && last && *last == h) {
		free(tb);
		free(lb);
		return 0;
	}
	char tname[64], lname[64], tpath[1024], lpath[1024], mpath[1024];
	snprintf(tname, sizeof(tname), "healthy-%016llx.topo", (unsigned long long)h);
	snprintf(lname, sizeof(lname), "healthy-%016llx.lfts", (unsigned long long)h);
	struct manifest old;
	int have_old = 0;
	if (!rc)
		rc = path_in(tpath, sizeof(tpath), dir, tname, err);
	if (!rc)
		rc = path_in(lpath, sizeof(lpath), dir, lname, err);
	if (!rc)
		rc = path_in(mpath, sizeof(mpath), dir, MANIFEST, err);
	if (!rc)
		have_old = !access(mpath, F_OK) && !manifest_read(mpath, &old, NULL);
	if (!rc)
		rc = write_buf(tpath, tb, tn, err);
	if (!rc)
		rc = write_buf(lpath, lb, ln, err);
	free(tb);
	free(lb);
	if (!rc) {
		char m[512];
		int n = snprintf(m, sizeof(m),
				 "# ibfab stable_state_dir: the healthy tables H and their fabric\n"
				 "engine %s\nhealthy-topology %s\nhealthy-lfts %s\n%s",
				 engine, tname, lname,
				 r->provisional ? "# made by a run that did not start from kept tables: "
						  "replaced once the fabric outgrows them\n"
						  "provisional 1\n"
						: "");
		rc = write_buf(mpath, m, (size_t)n, err);
	}
	if (!rc) {
		/* the pair before goes (the manifest no longer names it) */
		if (have_old && strcmp(old.topo, tname) && !path_in(tpath, sizeof(tpath), dir, old.topo, NULL))
			unlink(tpath);
		if (have_old && strcmp(old.lfts, lname) && !path_in(lpath, sizeof(lpath), dir, old.lfts, NULL))
			unlink(lpath);
		if (written)
			*written = 1;
	}
	return rc;
}

int ibf_stable_state_load(const char *dir, const char *engine, const struct ibf_fabric *f,
			  struct ibf_fabric **fh, struct ibf_routes *h, uint64_t *sig,
			  struct ibf_error *err)
{
	char mpath[1024], tpath[1024], lpath[1024];
	struct manifest m;
	*fh = NULL;
	memset(h, 0, sizeof(*h));
	int rc = path_in(mpath, sizeof(mpath), dir, MANIFEST, err);
	if (rc)
		return rc;
	if (access(mpath, F_OK))
		return 1;
	rc = manifest_read(mpath, &m, err);
	if (!rc && strcmp(m.engine, engine))
		rc = ibf_error_set(err, IBF_EINVAL, mpath, m.engine_line,
				   "stale: the healthy tables are engine %s's, this sweep routes with %s",
				   m.engine, engine);
	if (!rc)
		rc = path_in(tpath, sizeof(tpath), dir, m.topo, err);
	if (!rc)
		rc = path_in(lpath, sizeof(lpath), dir, m.lfts, err);
	char *tb = NULL, *lb = NULL;
	size_t tn = 0, ln = 0;
	if (!rc)
		rc = ibf_slurp_limit(tpath, STATE_MAX_FILE, &tb, &tn, err);
	if (!rc)
		rc = ibf_slurp_limit(lpath, STATE_MAX_FILE, &lb, &ln, err);
	struct ibf_fabric *g = NULL;
	if (!rc && !(g = ibf_fabric_parse(tb, tn, tpath, IBF_FMT_IBNETDISCOVER, err)))
		rc = err && err->code ? err->code : IBF_EINVAL;
	if (!rc && !g->finalized)
		rc = ibf_fabric_finalize(g, err);
	if (!rc)
		rc = ibf_lfts_parse(g, lb, ln, lpath, h, err);
	/* H's fabric against the current one: by identity (node GUIDs) and LIDs;
	 * a LID that names another port, or no switch in common: stale */
	struct ibf_lidmap a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!rc && !(rc = ibf_lidmap_build(f, &a, err)) && !(rc = ibf_lidmap_build(g, &b, err))) {
		uint32_t both = 0;
		for (uint32_t l = 1; !rc && l <= a.max_lid && l <= b.max_lid; l++) {
			if (a.node[l] < 0 || b.node[l] < 0)
				continue;
			both++;
			if (f->nodes[a.node[l]].guid != g->nodes[b.node[l]].guid || a.port[l] != b.port[l])
				rc = ibf_error_set(err, IBF_EINVAL, tpath, 0,
						   "stale: LID %u is node 0x%016llx port %u there, node "
						   "0x%016llx port %u in the fabric now",
						   l, (unsigned long long)g->nodes[b.node[l]].guid,
						   b.port[l], (unsigned long long)f->nodes[a.node[l]].guid,
						   a.port[l]);
		}
		uint32_t sw_both = 0;
		for (uint32_t s = 0; !rc && s < f->nsw; s++)
			sw_both += ibf_fabric_find_guid(g, f->nodes[f->switches[s]].guid) >= 0;
		if (!rc && (!both || !sw_both))
			rc = ibf_error_set(err, IBF_EINVAL, tpath, 0,
					   "stale: no switch or LID in common with the fabric now");
	}
	ibf_lidmap_free(&a);
	ibf_lidmap_free(&b);
	if (!rc && sig)
		*sig = state_sig(engine, tb, tn, lb, ln, m.provisional);
	free(tb);
	free(lb);
	if (rc) {
		ibf_routes_free(h);
		memset(h, 0, sizeof(*h));
		ibf_fabric_free(g);
		return rc;
	}
	h->provisional = m.provisional;
	*fh = g;
	return 0;
}
