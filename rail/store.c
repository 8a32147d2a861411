/* The rail health registry behind one location string (docs/rail.md, "The
 * etcd backend"): a file path (the atomic JSON file of registry.c) or
 * etcd://HOST:PORT[/PREFIX], etcd's v3 JSON gateway over HTTP (libcurl).
 *
 * etcd key layout under PREFIX (default /ibfab/rails/), values as text:
 *   meta              {"version":1,"timestamp":T,"max_age":A,"default_path":"rd","default_score":S}
 *   gen               generation counter, bumped by every update
 *   rail/LABEL        score 0..100
 *   domain/NAME       score 0..100
 *   rails_by_score    JSON array of rail labels, best first
 *   gamma/NAME        JSON object rail label -> h-ratio of that GPU
 * Every update is one transaction (/v3/kv/txn) guarded by the mod revision
 * of "gen"; every key is attached to the writer's lease when it has one. */
#include "ibf_rail.h"
#include "ibf_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CURL
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#endif

#define ETCD_DEFAULT_PREFIX "/ibfab/rails/"
#define ETCD_MAX_RESPONSE (256u << 20)

#ifdef HAVE_CURL
/* libcurl is loaded when the first etcd location is opened, not linked:
 * the ibfab command and the OpenSM plugin do not pull libcurl and its TLS,
 * LDAP and SSH libraries into every process (OpenSM among them) for a
 * backend most sites do not use.  The headers fix the ABI (libcurl 4). */
static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *c);
	void (*easy_reset)(CURL *c);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode cc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
} lc;
static char lc_error[256]; /* why loading failed */
static int lc_ok;	   /* every pointer set, libcurl initialised */
static pthread_once_t lc_once = PTHREAD_ONCE_INIT;

static void lc_load(void)
{
	/* either build of libcurl 4 (OpenSSL or GnuTLS): one ABI */
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lc_error, sizeof(lc_error), "%s", dlerror());
		return;
	}
	struct {
		const char *name;
		void **fn;
	} syms[] = {
		{ "curl_global_init", (void **)&lc.global_init },
		{ "curl_easy_init", (void **)&lc.easy_init },
		{ "curl_easy_cleanup", (void **)&lc.easy_cleanup },
		{ "curl_easy_reset", (void **)&lc.easy_reset },
		{ "curl_easy_setopt", (void **)&lc.easy_setopt },
		{ "curl_easy_perform", (void **)&lc.easy_perform },
		{ "curl_easy_getinfo", (void **)&lc.easy_getinfo },
		{ "curl_easy_strerror", (void **)&lc.easy_strerror },
		{ "curl_slist_append", (void **)&lc.slist_append },
		{ "curl_slist_free_all", (void **)&lc.slist_free_all },
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!(*syms[i].fn = dlsym(h, syms[i].name))) {
			snprintf(lc_error, sizeof(lc_error), "libcurl has no %s", syms[i].name);
			return;
		}
	if (lc.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(lc_error, sizeof(lc_error), "curl_global_init failed");
		return;
	}
	lc_ok = 1;
}

/* 0 when libcurl is loaded (once per process), else a message in err. */
static int lc_ready(const char *location, struct ibf_error *err)
{
	pthread_once(&lc_once, lc_load);
	if (lc_ok)
		return 0;
	return ibf_error_set(err, IBF_ENOTSUP, location, 0,
			     "the etcd backend needs libcurl at run time: %s (Debian: install "
			     "libcurl4 or libcurl3-gnutls)",
			     lc_error);
}
#endif

/* one key of the prefix: name relative to the prefix, value, lease */
struct kv {
	char *key, *val;
	long long lease;
};
struct kvset {
	struct kv *v;
	size_t n, cap;
	long long gen;	   /* value of "gen" (0 absent) */
	long long gen_rev; /* its mod revision (0 absent) */
};

struct ibf_rail_store {
	int etcd;
	char *name;   /* the location as given */
	char *path;   /* file backend */
	char *url;    /* http://HOST:PORT */
	char *prefix; /* etcd key prefix */
	long ttl, timeout_ms;
	long long lease;
	struct kvset known; /* what the prefix holds, as last read or written */
	int known_valid;
#ifdef HAVE_CURL
	CURL *curl;
#endif
};

static void kv_clear(struct kvset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		free(s->v[i].val);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* append (taking ownership of key and val) */
static int kv_add(struct kvset *s, char *key, char *val, long long lease)
{
	if (!key || !val)
		goto nomem;
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 64;
		struct kv *nv = realloc(s->v, c * sizeof(*nv));
		if (!nv)
			goto nomem;
		s->v = nv;
		s->cap = c;
	}
	s->v[s->n].key = key;
	s->v[s->n].val = val;
	s->v[s->n].lease = lease;
	s->n++;
	return 0;
nomem:
	free(key);
	free(val);
	return IBF_ENOMEM;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* ---------------------------------------------------------- registry <-> keys */

/* The keys a registry is stored as, sorted by key. */
#ifdef HAVE_CURL
static int registry_to_kv(const struct ibf_rail_registry *r, struct kvset *s)
{
	int rc = 0;
	memset(s, 0, sizeof(*s));
	rc |= kv_add(
		s, strdup("meta"),
		ibf_asprintf(
			"{\"version\":1,\"timestamp\":%lld,\"max_age\":%ld,\"default_path\":\"%s\","
			"\"default_score\":%d}",
			r->timestamp, r->max_age, r->prefer_rd ? "rd" : "dr", r->dflt),
		0);
	for (int i = 0; i < r->nrails; i++)
		rc |= kv_add(s, ibf_asprintf("rail/%d", r->rail_label[i]),
			     ibf_asprintf("%d", r->rail_score[i]), 0);
	for (int d = 0; d < r->ndomains; d++)
		rc |= kv_add(s, ibf_asprintf("domain/%s", r->domain[d]),
			     ibf_asprintf("%d", r->domain_score[d]), 0);
	/* derived: rails best first, the h-ratio of every GPU */
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	int *ord = malloc(((size_t)r->nrails + 1) * sizeof(int));
	if (!o || !ord) {
		if (o)
			fclose(o);
		free(buf);
		free(ord);
		kv_clear(s);
		return IBF_ENOMEM;
	}
	ibf_rail_registry_by_score(r, ord);
	fputc('[', o);
	for (int i = 0; i < r->nrails; i++)
		fprintf(o, "%s%d", i ? "," : "", r->rail_label[ord[i]]);
	fputc(']', o);
	free(ord);
	if (fclose(o))
		rc |= IBF_ENOMEM;
	rc |= kv_add(s, strdup("rails_by_score"), buf, 0);
	for (int d = 0; d < r->ndomains; d++) {
		buf = NULL;
		o = open_memstream(&buf, &len);
		if (!o) {
			rc |= IBF_ENOMEM;
			break;
		}
		fputc('{', o);
		for (int g = 0; g < r->nrails; g++)
			fprintf(o, "%s\"%d\":%.6g", g ? "," : "", r->rail_label[g],
				ibf_rail_registry_gamma(r, d, g));
		fputc('}', o);
		if (fclose(o))
			rc |= IBF_ENOMEM;
		rc |= kv_add(s, ibf_asprintf("gamma/%s", r->domain[d]), buf, 0);
	}
	if (rc) {
		kv_clear(s);
		return IBF_ENOMEM;
	}
	qsort(s->v, s->n, sizeof(s->v[0]), kv_cmp);
	return 0;
}
#endif

static int int_value(const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

/* The registry the keys hold.  No keys (or no "meta") is an empty registry
 * that was never written: hosts take the default path. */
static int kv_to_registry(const struct kvset *s, const char *name, struct ibf_rail_registry *r,
			  struct ibf_error *err)
{
	ibf_rail_registry_init(r);
	int rc = 0;
	for (size_t i = 0; i < s->n && !rc; i++) {
		const char *k = s->v[i].key, *v = s->v[i].val;
		long x, sc;
		if (!strncmp(k, "rail/", 5)) {
			if (int_value(k + 5, 0, 1000000, &x) || int_value(v, 0, 100, &sc))
				rc = ibf_error_set(err, IBF_EPARSE, name, 0,
						   "key %s: expected rail/NUMBER = score 0..100, "
						   "got '%.40s'",
						   k, v);
			else if (ibf_rail_registry_set_rail(r, (int)x, (int)sc))
				rc = ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		} else if (!strncmp(k, "domain/", 7)) {
			if (!k[7] || int_value(v, 0, 100, &sc))
				rc = ibf_error_set(err, IBF_EPARSE, name, 0,
						   "key %s: expected domain/NAME = score 0..100, "
						   "got '%.40s'",
						   k, v);
			else if (ibf_rail_registry_set_domain(r, k + 7, (int)sc))
				rc = ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
		} else if (!strcmp(k, "meta")) {
			/* the same fields as the file's header: reuse its parser */
			struct ibf_rail_registry m;
			struct ibf_error e2 = { 0 };
			if (ibf_rail_registry_parse(v, strlen(v), k, &m, &e2)) {
				rc = ibf_error_set(err, IBF_EPARSE, name, 0, "key meta: %s",
						   e2.msg);
			} else {
				r->timestamp = m.timestamp;
				r->max_age = m.max_age;
				r->prefer_rd = m.prefer_rd;
				r->dflt = m.dflt;
				ibf_rail_registry_free(&m);
			}
		}
		/* gen, rails_by_score and gamma/ are derived; other keys are
		 * not ours and are ignored (and removed by the next update) */
	}
	if (rc)
		ibf_rail_registry_free(r);
	return rc;
}

static long long jint(const struct ibf_jval *v)
{
	if (!v)
		return 0;
	if (v->type == IBF_JNUM)
		return (long long)v->num;
	if (v->type == IBF_JSTR)
		return strtoll(v->str, NULL, 10);
	return 0;
}

/* The "kvs" of a /v3/kv/range response: keys relative to prefix (keys
 * outside it are an error), decoded, sorted. */
static int range_doc(const struct ibf_jval *doc, const char *name, const char *prefix,
		     struct kvset *s, struct ibf_error *err)
{
	memset(s, 0, sizeof(*s));
	int rc = 0;
	size_t plen = strlen(prefix);
	const struct ibf_jval *kvs = doc->type == IBF_JOBJ ? ibf_json_get(doc, "kvs") : NULL;
	if (doc->type != IBF_JOBJ || !ibf_json_get(doc, "header") ||
	    (kvs && kvs->type != IBF_JARR)) {
		rc = ibf_error_set(err, IBF_EPARSE, name, 0,
				   "not an etcd range response (no \"header\" or bad \"kvs\")");
		goto out;
	}
	for (size_t i = 0; kvs && i < kvs->nkid && !rc; i++) {
		const struct ibf_jval *e = &kvs->kid[i];
		const struct ibf_jval *k = e->type == IBF_JOBJ ? ibf_json_get(e, "key") : NULL;
		const struct ibf_jval *v = e->type == IBF_JOBJ ? ibf_json_get(e, "value") : NULL;
		char *key = NULL, *val = NULL;
		size_t kl = 0, vl = 0;
		if (!k || k->type != IBF_JSTR || (v && v->type != IBF_JSTR) ||
		    ibf_base64_decode(k->str, strlen(k->str), &key, &kl) ||
		    (v ? ibf_base64_decode(v->str, strlen(v->str), &val, &vl)
		       : !(val = calloc(1, 1)))) {
			free(key);
			rc = ibf_error_set(err, IBF_EPARSE, name, 0,
					   "entry %zu of the range response: bad key or value", i);
			break;
		}
		if (kl != strlen(key) || vl != strlen(val) || kl <= plen ||
		    memcmp(key, prefix, plen)) {
			rc = ibf_error_set(
				err, IBF_EPARSE, name, 0,
				"entry %zu: key outside the prefix %s or with a NUL byte", i,
				prefix);
			free(key);
			free(val);
			break;
		}
		memmove(key, key + plen, kl - plen + 1);
		if (!strcmp(key, "gen")) {
			s->gen = strtoll(val, NULL, 10);
			s->gen_rev = jint(ibf_json_get(e, "mod_revision"));
		}
		if (kv_add(s, key, val, jint(ibf_json_get(e, "lease"))))
			rc = ibf_error_set(err, IBF_ENOMEM, name, 0, "out of memory");
	}
	if (!rc) {
		if (s->n)
			qsort(s->v, s->n, sizeof(s->v[0]), kv_cmp);
		for (size_t i = 1; i < s->n && !rc; i++)
			if (!strcmp(s->v[i - 1].key, s->v[i].key))
				rc = ibf_error_set(err, IBF_EPARSE, name, 0, "key %s twice",
						   s->v[i].key);
	}
out:
	if (rc)
		kv_clear(s);
	return rc;
}

static int parse_range(const char *buf, size_t len, const char *name, const char *prefix,
		       struct kvset *s, struct ibf_error *err)
{
	memset(s, 0, sizeof(*s));
	struct ibf_jval *doc = ibf_json_parse(buf, len, name, err);
	if (!doc)
		return err ? err->code : IBF_EPARSE;
	int rc = range_doc(doc, name, prefix, s, err);
	ibf_json_free(doc);
	return rc;
}

int ibf_rail_etcd_parse_range(const char *buf, size_t len, const char *name, const char *prefix,
			      struct ibf_rail_registry *r, struct ibf_error *err)
{
	struct kvset s;
	ibf_rail_registry_init(r);
	int rc = parse_range(buf, len, name, prefix, &s, err);
	if (rc)
		return rc;
	rc = kv_to_registry(&s, name, r, err);
	kv_clear(&s);
	return rc;
}

/* ---------------------------------------------------------- location */

int ibf_rail_store_is_etcd(const char *location)
{
	return !strncmp(location, "etcd://", 7);
}

int ibf_rail_etcd_location(const char *loc, size_t n, char **url, char **prefix,
			   struct ibf_error *err)
{
	*url = *prefix = NULL;
	if (n < 7 || memcmp(loc, "etcd://", 7) || memchr(loc, '\0', n))
		goto bad;
	const char *h = loc + 7, *end = loc + n, *slash = memchr(h, '/', (size_t)(end - h));
	const char *hend = slash ? slash : end, *colon = memchr(h, ':', (size_t)(hend - h));
	if (!colon || colon == h || colon + 1 == hend || hend - colon - 1 > 5)
		goto bad;
	/* the port: digits only (it is copied into the URL as written) */
	long port = 0;
	for (const char *c = colon + 1; c < hend; c++) {
		if (*c < '0' || *c > '9')
			goto bad;
		port = port * 10 + (*c - '0');
	}
	if (port < 1 || port > 65535)
		goto bad;
	for (const char *c = h; c < colon; c++)
		if (!(*c == '.' || *c == '-' || *c == '_' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			goto bad;
	*url = ibf_asprintf("http://%.*s", (int)(hend - h), h);
	if (!slash || slash + 1 == end)
		*prefix = strdup(ETCD_DEFAULT_PREFIX);
	else
		*prefix = ibf_asprintf("%.*s%s", (int)(end - slash), slash,
				       end[-1] == '/' ? "" : "/");
	if (!*url || !*prefix) {
		free(*url);
		free(*prefix);
		*url = *prefix = NULL;
		return ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
	}
	return 0;
bad:
	return ibf_error_set(err, IBF_EINVAL, NULL, 0,
			     "bad registry location '%.*s': expected etcd://HOST:PORT[/PREFIX] "
			     "(PORT 1..65535)",
			     (int)(n < 256 ? n : 256), loc);
}

const char *ibf_rail_store_name(const struct ibf_rail_store *s)
{
	return s->name;
}

void ibf_rail_store_close(struct ibf_rail_store *s)
{
	if (!s)
		return;
#ifdef HAVE_CURL
	if (s->curl)
		lc.easy_cleanup(s->curl);
#endif
	kv_clear(&s->known);
	free(s->name);
	free(s->path);
	free(s->url);
	free(s->prefix);
	free(s);
}

struct ibf_rail_store *ibf_rail_store_open(const char *location,
					   const struct ibf_rail_store_opts *opts,
					   struct ibf_error *err)
{
	struct ibf_rail_store *s = calloc(1, sizeof(*s));
	if (!s || !(s->name = strdup(location))) {
		free(s);
		ibf_error_set(err, IBF_ENOMEM, NULL, 0, "out of memory");
		return NULL;
	}
	s->ttl = opts ? opts->ttl : 0;
	s->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 5000;
	if (!ibf_rail_store_is_etcd(location)) {
		if (!*location || !(s->path = strdup(location))) {
			ibf_error_set(err, IBF_EINVAL, NULL, 0, "empty registry location");
			ibf_rail_store_close(s);
			return NULL;
		}
		return s;
	}
	s->etcd = 1;
	if (ibf_rail_etcd_location(location, strlen(location), &s->url, &s->prefix, err)) {
		ibf_rail_store_close(s);
		return NULL;
	}
#ifdef HAVE_CURL
	if (lc_ready(location, err)) {
		ibf_rail_store_close(s);
		return NULL;
	}
	if (!(s->curl = lc.easy_init())) {
		ibf_error_set(err, IBF_ENOMEM, location, 0, "cannot set up libcurl");
		ibf_rail_store_close(s);
		return NULL;
	}
	return s;
#else
	ibf_error_set(err, IBF_ENOTSUP, location, 0,
		      "this ibfab was built without libcurl: no etcd registry (install "
		      "libcurl4-openssl-dev and run configure again), use a file");
	ibf_rail_store_close(s);
	return NULL;
#endif
}

/* ---------------------------------------------------------- HTTP */

#ifdef HAVE_CURL
struct resp {
	char *buf;
	size_t len, cap;
	int over;
};

static size_t on_data(char *p, size_t sz, size_t n, void *ctx)
{
	struct resp *r = ctx;
	size_t k = sz * n;
	if (r->len + k + 1 > ETCD_MAX_RESPONSE) {
		r->over = 1;
		return 0;
	}
	if (r->len + k + 1 > r->cap) {
		size_t c = r->cap ? r->cap : 4096;
		while (c < r->len + k + 1)
			c *= 2;
		char *nb = realloc(r->buf, c);
		if (!nb)
			return 0;
		r->buf = nb;
		r->cap = c;
	}
	memcpy(r->buf + r->len, p, k);
	r->len += k;
	r->buf[r->len] = 0;
	return k;
}

/* POST body to url+path; the parsed JSON reply in *out.  Transport errors,
 * HTTP errors and etcd's {"error": ...} replies become messages naming the
 * location. */
static int etcd_call(struct ibf_rail_store *s, const char *path, const char *body,
		     struct ibf_jval **out, struct ibf_error *err)
{
	*out = NULL;
	char *url = ibf_asprintf("%s%s", s->url, path);
	struct resp r = { 0 };
	struct curl_slist *hdr = lc.slist_append(NULL, "Content-Type: application/json");
	if (!url || !hdr) {
		free(url);
		lc.slist_free_all(hdr);
		return ibf_error_set(err, IBF_ENOMEM, s->name, 0, "out of memory");
	}
	CURL *c = s->curl;
	lc.easy_reset(c);
	lc.easy_setopt(c, CURLOPT_URL, url);
	lc.easy_setopt(c, CURLOPT_POSTFIELDS, body);
	lc.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	lc.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	lc.easy_setopt(c, CURLOPT_WRITEDATA, &r);
	lc.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* large transactions take longer: 1 ms more per 10 kB sent */
	lc.easy_setopt(c, CURLOPT_TIMEOUT_MS, s->timeout_ms + (long)(strlen(body) / 10000));
	lc.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, s->timeout_ms < 3000 ? s->timeout_ms : 3000L);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85: the string form */
	lc.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
#else
	lc.easy_setopt(c, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	lc.easy_setopt(c, CURLOPT_PROXY, "");
	CURLcode cc = lc.easy_perform(c);
	long status = 0;
	lc.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	lc.slist_free_all(hdr);
	int rc = 0;
	if (cc != CURLE_OK) {
		rc = ibf_error_set(err, IBF_EIO, s->name, 0, "cannot reach etcd at %s: %s%s", url,
				   r.over ? "reply too large" : lc.easy_strerror(cc),
				   cc == CURLE_COULDNT_CONNECT ? " (is etcd running there?)" : "");
		goto done;
	}
	struct ibf_error je = { 0 };
	struct ibf_jval *doc = r.buf ? ibf_json_parse(r.buf, r.len, url, &je) : NULL;
	const struct ibf_jval *e = doc && doc->type == IBF_JOBJ ? ibf_json_get(doc, "error") : NULL;
	if (e && e->type == IBF_JOBJ) /* streamed replies wrap it */
		e = ibf_json_get(e, "message");
	if (status != 200 || e || !doc || doc->type != IBF_JOBJ) {
		const struct ibf_jval *m =
			doc && doc->type == IBF_JOBJ ? ibf_json_get(doc, "message") : NULL;
		const char *msg = m && m->type == IBF_JSTR	   ? m->str
				  : e && e->type == IBF_JSTR	   ? e->str
				  : !doc && r.buf && status == 200 ? je.msg
				  : r.buf			   ? r.buf
								   : "empty reply";
		rc = ibf_error_set(err, IBF_EIO, s->name, 0, "etcd %s: HTTP %ld: %.300s%s", path,
				   status, msg,
				   strstr(msg, "too many operations")
					   ? " (raise etcd's --max-txn-ops, default 128, to at "
					     "least the number of registry keys)"
				   : strstr(msg, "request is too large")
					   ? " (raise etcd's --max-request-bytes)"
					   : "");
		ibf_json_free(doc);
		goto done;
	}
	*out = doc;
done:
	free(url);
	free(r.buf);
	return rc;
}

static const struct kv *kv_find(const struct kvset *s, const char *key)
{
	struct kv k = { (char *)key, NULL, 0 };
	return s->n ? bsearch(&k, s->v, s->n, sizeof(k), kv_cmp) : NULL;
}

static char *b64(const char *a, const char *b)
{
	char *k = ibf_asprintf("%s%s", a, b);
	char *e = k ? ibf_base64_encode(k, strlen(k), NULL) : NULL;
	free(k);
	return e;
}

/* read every key of the prefix into s->known */
static int refresh(struct ibf_rail_store *s, struct ibf_error *err)
{
	size_t pl = strlen(s->prefix);
	char *end = strdup(s->prefix);
	if (!end)
		return ibf_error_set(err, IBF_ENOMEM, s->name, 0, "out of memory");
	/* range_end: the prefix with its last byte incremented, i.e. every
	 * key that starts with the prefix (the prefix ends in '/') */
	end[pl - 1]++;
	char *k = b64(s->prefix, ""), *e = b64(end, "");
	free(end);
	char *body = k && e ? ibf_asprintf("{\"key\":\"%s\",\"range_end\":\"%s\"}", k, e) : NULL;
	free(k);
	free(e);
	if (!body)
		return ibf_error_set(err, IBF_ENOMEM, s->name, 0, "out of memory");
	struct ibf_jval *doc;
	int rc = etcd_call(s, "/v3/kv/range", body, &doc, err);
	free(body);
	if (rc)
		return rc;
	struct kvset n;
	rc = range_doc(doc, s->name, s->prefix, &n, err);
	ibf_json_free(doc);
	if (rc)
		return rc;
	kv_clear(&s->known);
	s->known = n;
	s->known_valid = 1;
	return 0;
}

static int grant(struct ibf_rail_store *s, struct ibf_error *err)
{
	char body[64];
	snprintf(body, sizeof(body), "{\"TTL\":%ld}", s->ttl);
	struct ibf_jval *doc;
	int rc = etcd_call(s, "/v3/lease/grant", body, &doc, err);
	if (rc)
		return rc;
	long long id = jint(ibf_json_get(doc, "ID"));
	ibf_json_free(doc);
	if (id == 0)
		return ibf_error_set(err, IBF_EIO, s->name, 0, "etcd granted no lease");
	s->lease = id;
	return 0;
}

/* one put or delete of the txn, base64 key under the prefix */
static void txn_put(FILE *o, int *first, const char *prefix, const char *key, const char *val,
		    long long lease)
{
	char *k = b64(prefix, key), *v = ibf_base64_encode(val, strlen(val), NULL);
	fprintf(o, "%s{\"requestPut\":{\"key\":\"%s\",\"value\":\"%s\"", *first ? "" : ",",
		k ? k : "", v ? v : "");
	if (lease)
		fprintf(o, ",\"lease\":\"%lld\"", lease);
	fprintf(o, "}}");
	*first = 0;
	free(k);
	free(v);
}

static int save_once(struct ibf_rail_store *s, const struct kvset *want, int *conflict,
		     struct ibf_error *err)
{
	*conflict = 0;
	char *body = NULL;
	size_t blen = 0;
	FILE *o = open_memstream(&body, &blen);
	if (!o)
		return ibf_error_set(err, IBF_ENOMEM, s->name, 0, "out of memory");
	char *gk = b64(s->prefix, "gen");
	fprintf(o,
		"{\"compare\":[{\"key\":\"%s\",\"target\":\"MOD\",\"result\":\"EQUAL\","
		"\"mod_revision\":\"%lld\"}],\"success\":[",
		gk ? gk : "", s->known.gen_rev);
	free(gk);
	int first = 1;
	char gen[32];
	snprintf(gen, sizeof(gen), "%lld", s->known.gen + 1);
	/* the lease the keys go on: ours, or (a writer without a TTL) the one
	 * the registry already has, so that it still expires as a whole */
	const struct kv *meta = kv_find(&s->known, "meta");
	long long L = s->ttl > 0 ? s->lease : meta ? meta->lease : 0;
	txn_put(o, &first, s->prefix, "gen", gen, L);
	size_t nput = 1, ndel = 0;
	for (size_t i = 0; i < want->n; i++) {
		const struct kv *k = kv_find(&s->known, want->v[i].key);
		if (k && !strcmp(k->val, want->v[i].val) && k->lease == L)
			continue; /* unchanged: no op */
		txn_put(o, &first, s->prefix, want->v[i].key, want->v[i].val, L);
		nput++;
	}
	for (size_t i = 0; i < s->known.n; i++) {
		if (!strcmp(s->known.v[i].key, "gen") || kv_find(want, s->known.v[i].key))
			continue;
		char *k = b64(s->prefix, s->known.v[i].key);
		fprintf(o, ",{\"requestDeleteRange\":{\"key\":\"%s\"}}", k ? k : "");
		free(k);
		ndel++;
	}
	fprintf(o, "]}");
	if (fclose(o)) {
		free(body);
		return ibf_error_set(err, IBF_ENOMEM, s->name, 0, "out of memory");
	}
	struct ibf_jval *doc;
	int rc = etcd_call(s, "/v3/kv/txn", body, &doc, err);
	free(body);
	if (rc && strstr(err ? err->msg : "", "lease not found")) {
		/* the lease expired under us: take a new one (ours) or none */
		if (s->ttl > 0)
			s->lease = 0;
		*conflict = 1;
		s->known_valid = 0;
		return 0;
	}
	if (rc) {
		if (strstr(err ? err->msg : "", "too many operations")) {
			char m[IBF_ERR_MSG_MAX];
			memcpy(m, err->msg, sizeof(m));
			m[300] = 0;
			ibf_error_set(err, rc, s->name, 0, "%s; this update has %zu operations", m,
				      nput + ndel);
		}
		s->known_valid = 0;
		return rc;
	}
	const struct ibf_jval *okv = ibf_json_get(doc, "succeeded");
	int ok = okv && okv->type == IBF_JTRUE;
	long long rev = jint(ibf_json_get(ibf_json_get(doc, "header"), "revision"));
	ibf_json_free(doc);
	if (!ok) {
		*conflict = 1; /* another writer in between: read again */
		s->known_valid = 0;
		return 0;
	}
	/* the prefix now holds want (+ gen), all on our lease */
	struct kvset n = { 0 };
	for (size_t i = 0; i < want->n && !rc; i++)
		rc = kv_add(&n, strdup(want->v[i].key), strdup(want->v[i].val), L);
	if (!rc)
		rc = kv_add(&n, strdup("gen"), strdup(gen), L);
	if (rc) {
		kv_clear(&n);
		s->known_valid = 0;
		return 0; /* written; only our copy is lost: read it next time */
	}
	qsort(n.v, n.n, sizeof(n.v[0]), kv_cmp);
	n.gen = s->known.gen + 1;
	n.gen_rev = rev;
	kv_clear(&s->known);
	s->known = n;
	return 0;
}

/* Write r (fn == NULL) or what fn makes of the registry as etcd holds it:
 * one transaction, retried from a fresh read when another writer came in
 * between (the compare on gen's mod revision failed). */
static int etcd_write(struct ibf_rail_store *s, const struct ibf_rail_registry *r,
		      ibf_rail_update_fn fn, void *ctx, struct ibf_error *err)
{
	int rc = 0;
	for (int tries = 0;; tries++) {
		if (tries == 8)
			return ibf_error_set(err, IBF_EIO, s->name, 0,
					     "the registry kept changing under this update (%d "
					     "tries): another writer?",
					     tries);
		if ((fn || !s->known_valid) && (rc = refresh(s, err)))
			return rc;
		struct ibf_rail_registry cur;
		const struct ibf_rail_registry *w = r;
		if (fn) {
			if ((rc = kv_to_registry(&s->known, s->name, &cur, err)))
				return rc;
			if ((rc = fn(&cur, ctx))) {
				ibf_rail_registry_free(&cur);
				return ibf_error_set(err, rc, s->name, 0,
						     "updating the registry: %s",
						     rc == IBF_ENOMEM ? "out of memory" : "failed");
			}
			w = &cur;
		}
		struct kvset want;
		rc = registry_to_kv(w, &want);
		if (fn)
			ibf_rail_registry_free(&cur);
		if (rc)
			return ibf_error_set(err, IBF_ENOMEM, s->name, 0, "out of memory");
		int conflict = 0;
		if (s->ttl > 0 && !s->lease)
			rc = grant(s, err);
		if (!rc)
			rc = save_once(s, &want, &conflict, err);
		kv_clear(&want);
		if (rc || !conflict)
			return rc;
	}
}

static int etcd_save(struct ibf_rail_store *s, const struct ibf_rail_registry *r,
		     struct ibf_error *err)
{
	return etcd_write(s, r, NULL, NULL, err);
}

static int etcd_update(struct ibf_rail_store *s, ibf_rail_update_fn fn, void *ctx,
		       struct ibf_error *err)
{
	return etcd_write(s, NULL, fn, ctx, err);
}

static int etcd_keepalive(struct ibf_rail_store *s, struct ibf_error *err)
{
	if (!s->lease)
		return 0;
	char body[64];
	snprintf(body, sizeof(body), "{\"ID\":\"%lld\"}", s->lease);
	struct ibf_jval *doc;
	int rc = etcd_call(s, "/v3/lease/keepalive", body, &doc, err);
	if (rc)
		return rc;
	const struct ibf_jval *res = ibf_json_get(doc, "result");
	long long ttl = jint(res ? ibf_json_get(res, "TTL") : NULL);
	ibf_json_free(doc);
	if (ttl <= 0) {
		/* expired: its keys are gone.  The next save takes a new lease
		 * and writes every key again. */
		long long old = s->lease;
		s->lease = 0;
		s->known_valid = 0;
		return ibf_error_set(err, IBF_EIO, s->name, 0,
				     "lease %llx expired: the registry keys are gone until the "
				     "next update",
				     (unsigned long long)old);
	}
	return 0;
}

static int etcd_load(struct ibf_rail_store *s, struct ibf_rail_registry *r, struct ibf_error *err)
{
	int rc = refresh(s, err);
	return rc ? rc : kv_to_registry(&s->known, s->name, r, err);
}
#else
static int etcd_save(struct ibf_rail_store *s, const struct ibf_rail_registry *r,
		     struct ibf_error *err)
{
	return ibf_error_set(err, IBF_ENOTSUP, s->name, 0, "built without libcurl");
}
static int etcd_update(struct ibf_rail_store *s, ibf_rail_update_fn fn, void *ctx,
		       struct ibf_error *err)
{
	return ibf_error_set(err, IBF_ENOTSUP, s->name, 0, "built without libcurl");
}
static int etcd_keepalive(struct ibf_rail_store *s, struct ibf_error *err)
{
	return ibf_error_set(err, IBF_ENOTSUP, s->name, 0, "built without libcurl");
}
static int etcd_load(struct ibf_rail_store *s, struct ibf_rail_registry *r, struct ibf_error *err)
{
	return ibf_error_set(err, IBF_ENOTSUP, s->name, 0, "built without libcurl");
}
#endif

int ibf_rail_store_load(struct ibf_rail_store *s, struct ibf_rail_registry *r,
			struct ibf_error *err)
{
	ibf_rail_registry_init(r);
	return s->etcd ? etcd_load(s, r, err) : ibf_rail_registry_read(s->path, r, err);
}

int ibf_rail_store_save(struct ibf_rail_store *s, const struct ibf_rail_registry *r,
			struct ibf_error *err)
{
	return s->etcd ? etcd_save(s, r, err) : ibf_rail_registry_write(s->path, r, err);
}

int ibf_rail_store_update(struct ibf_rail_store *s, ibf_rail_update_fn fn, void *ctx,
			  struct ibf_error *err)
{
	if (s->etcd)
		return etcd_update(s, fn, ctx, err);
	/* file: read (a missing file starts empty), change, write atomically */
	struct ibf_rail_registry r;
	FILE *probe = fopen(s->path, "r");
	int rc = 0;
	if (probe) {
		fclose(probe);
		rc = ibf_rail_registry_read(s->path, &r, err);
	} else {
		ibf_rail_registry_init(&r);
	}
	if (!rc && (rc = fn(&r, ctx)))
		ibf_error_set(err, rc, s->path, 0, "updating the registry: %s",
			      rc == IBF_ENOMEM ? "out of memory" : "failed");
	if (!rc)
		rc = ibf_rail_registry_write(s->path, &r, err);
	ibf_rail_registry_free(&r);
	return rc;
}

int ibf_rail_store_keepalive(struct ibf_rail_store *s, struct ibf_error *err)
{
	return s->etcd ? etcd_keepalive(s, err) : 0;
}
