/* Regression tests for crashes found by fuzzing (issue 14): each builds the
 * smallest input that crashed and checks the library now handles it.  The
 * sanitizer build (make check-unit) also catches silent out-of-bounds
 * writes these inputs used to cause. */
#include "ibf_cabling.h"
#include "ibf_deadlock.h"
#include "tt.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* n switches without switch-to-switch links, one host on port 1 of each */
static struct ibf_fabric *isolated_switches(int n)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "sw%d", i);
		int sw = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8,
					     ibf_gen_guid(IBF_NODE_SWITCH, (uint32_t)i, 0), name,
					     name, NULL);
		ibf_port(f, sw, 0)->guid = ibf_gen_guid(IBF_NODE_SWITCH, (uint32_t)i, 0);
	}
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "h%d", i);
		int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1,
					    ibf_gen_guid(IBF_NODE_CA, (uint32_t)i, 0), name, name,
					    NULL);
		ibf_port(f, c, 1)->guid = ibf_gen_guid(IBF_NODE_CA, (uint32_t)i, 1);
		ibf_fabric_connect(f, c, 1, i, 1, 4, IBF_SPEED_EDR, NULL);
	}
	ibf_fabric_finalize(f, NULL);
	ibf_assign_lids(f, 0, 0, NULL);
	return f;
}

/* each switch forwards its own LID and its host's LID, nothing else */
static void local_routes(const struct ibf_fabric *f, struct ibf_routes *r)
{
	struct ibf_lidmap m;
	ibf_lidmap_build(f, &m, NULL);
	ibf_routes_init(r, f->nsw, ibf_max_lid(f), 0, NULL);
	for (uint32_t d = 1; d <= m.max_lid; d++) {
		if (m.node[d] < 0)
			continue;
		int node = m.node[d], port = m.port[d];
		if (f->nodes[node].type != IBF_NODE_SWITCH)
			node = ibf_port_switch(f, node, port, &port);
		ibf_lft(r, (uint32_t)f->nodes[node].sw)[d] = (uint8_t)port;
	}
	ibf_lidmap_free(&m);
}

/* dfsssp's online insertion sized a per-switch scratch by channels: more
 * switches than switch-to-switch channels overflowed it */
static void test_dfsssp_more_switches_than_channels(void)
{
	for (int n = 1; n <= 9; n += 8)
		for (int lay = 0; lay < 2; lay++) {
			struct ibf_error err;
			struct ibf_fabric *f = isolated_switches(n);
			struct ibf_routes r;
			local_routes(f, &r);
			struct ibf_dl_opts o;
			struct ibf_dl *dlres = NULL;
			ibf_dl_opts_default(&o);
			o.layering = lay;
			TT_CHECK_MSG(ibf_deadlock_apply(f, &r, &o, &dlres, &err) == 0,
				     "%d switches, layering %d: %s", n, lay, err.msg);
			ibf_dl_free(dlres);
			ibf_routes_free(&r);
			ibf_fabric_free(f);
		}
}

/* a temp file holding text; returns its path (static buffer) */
static const char *temp_text(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/ibfab-regress.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	FILE *fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

/* two linked switches, one host on each */
static struct ibf_fabric *pair_of_switches(void)
{
	struct ibf_fabric *f = isolated_switches(2);
	ibf_fabric_connect(f, 0, 2, 1, 2, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_finalize(f, NULL);
	ibf_assign_lids(f, 0, 0, NULL);
	return f;
}

/* guid2lid: a LID range needing LMC > 7 is an error at its line (it used to
 * be accepted up to LMC 14 and overflowed the layered engine) */
static void test_guid2lid_lmc_above_7(void)
{
	struct ibf_fabric *f = pair_of_switches();
	char text[256];
	uint64_t g = ibf_port(f, 2, 1)->guid;
	snprintf(text, sizeof(text), "# ok lines first\n0x%016llx 128 255\n0x%016llx 8192 16383\n",
		 (unsigned long long)g, (unsigned long long)g);
	const char *path = temp_text(text);
	TT_REQUIRE(path);
	struct ibf_error err;
	ibf_error_clear(&err);
	TT_CHECK(ibf_guid2lid_read(f, path, &err) == IBF_EPARSE);
	TT_EQ_INT(err.line, 3);
	TT_CHECK(strcmp(err.file, path) == 0);
	TT_CHECK_MSG(strstr(err.msg, "LMC 13") != NULL, "%s", err.msg);
	unlink(path);
	ibf_fabric_free(f);
}

/* the engines' per-LID scratch must hold every LID of a unit, whatever LMC
 * a caller sets (the library does not rely on the readers' LMC check) */
static void test_engine_large_lmc(void)
{
	static const char *const engines[] = { "layered", "minimal" };
	for (unsigned k = 0; k < sizeof(engines) / sizeof(engines[0]); k++) {
		struct ibf_fabric *f = pair_of_switches();
		/* host LIDs 8192.. with LMC 13 (beyond InfiniBand's 7) */
		for (int h = 0; h < 2; h++) {
			struct ibf_port *pp = ibf_port(f, 2 + h, 1);
			pp->lid = (uint16_t)(8192 * (h + 1));
			pp->lmc = 13;
		}
		struct ibf_route_opts ro;
		ibf_route_opts_default(&ro);
		struct ibf_routes r;
		struct ibf_error err;
		int rc = ibf_route(f, engines[k], &ro, &r, NULL, &err);
		TT_CHECK_MSG(rc == 0, "%s: %s", engines[k], err.msg);
		if (!rc)
			ibf_routes_free(&r);
		ibf_fabric_free(f);
	}
}

/* guid2lid: GUID 0 is an error at its line (it used to re-LID the first
 * port whose GUID is unknown) */
static void test_guid2lid_guid_zero(void)
{
	struct ibf_fabric *f = pair_of_switches();
	ibf_port(f, 3, 1)->guid = 0; /* a port of unknown GUID */
	uint16_t lid = ibf_port(f, 3, 1)->lid;
	const char *path = temp_text("0x0 100 100\n");
	TT_REQUIRE(path);
	struct ibf_error err;
	ibf_error_clear(&err);
	TT_CHECK(ibf_guid2lid_read(f, path, &err) == IBF_EPARSE);
	TT_EQ_INT(err.line, 1);
	TT_EQ_INT(ibf_port(f, 3, 1)->lid, lid);
	unlink(path);
	ibf_fabric_free(f);
}

/* validate: an unknown switch whose cables lead to nodes with descriptions
 * of hundreds of bytes overflowed the text listing its cables */
static void test_validate_long_descriptions(void)
{
	struct ibf_fabric *f = pair_of_switches();
	struct ibf_error err;
	struct ibf_plan *plan = ibf_plan_from_fabric(f, &err);
	TT_REQUIRE(plan);
	ibf_fabric_free(f);
	/* the discovered fabric: the planned one plus a switch the plan does not
	 * know, cabled to hosts with long and short descriptions */
	f = isolated_switches(2);
	ibf_fabric_connect(f, 0, 2, 1, 2, 4, IBF_SPEED_EDR, NULL);
	int x = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, ibf_gen_guid(IBF_NODE_SWITCH, 99, 0),
				    "mystery", "mystery", NULL);
	static const int lens[] = { 290, 70, 290, 290, 5, 400 };
	for (int i = 0; i < 6; i++) {
		char desc[512];
		memset(desc, 'a' + i, (size_t)lens[i]);
		desc[lens[i]] = '\0';
		int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1,
					    ibf_gen_guid(IBF_NODE_CA, 50u + (uint32_t)i, 0), desc,
					    desc, NULL);
		ibf_fabric_connect(f, c, 1, x, 1 + i, 4, IBF_SPEED_EDR, NULL);
	}
	ibf_fabric_finalize(f, NULL);
	struct ibf_vreport rep;
	TT_REQUIRE(ibf_validate(plan, f, NULL, &rep, &err) == 0);
	TT_EQ_INT(rep.counts[IBF_FIND_UNKNOWN_NODE], 1);
	for (uint32_t i = 0; i < rep.n; i++)
		TT_CHECK(strlen(rep.f[i].actual) < 2048);
	ibf_vreport_free(&rep);
	ibf_plan_free(plan);
	ibf_fabric_free(f);
}

/* a fabric without switches (two adapters back to back): every engine says
 * so instead of returning an empty table set */
static void test_route_no_switches(void)
{
	struct ibf_fabric *f = ibf_fabric_new();
	for (int i = 0; i < 2; i++) {
		char name[16];
		snprintf(name, sizeof(name), "h%d", i);
		int c = ibf_fabric_add_node(f, IBF_NODE_CA, 1,
					    ibf_gen_guid(IBF_NODE_CA, (uint32_t)i, 0), name, name,
					    NULL);
		ibf_port(f, c, 1)->guid = ibf_gen_guid(IBF_NODE_CA, (uint32_t)i, 1);
	}
	ibf_fabric_connect(f, 0, 1, 1, 1, 4, IBF_SPEED_EDR, NULL);
	ibf_fabric_finalize(f, NULL);
	ibf_assign_lids(f, 0, 0, NULL);
	for (const struct ibf_engine *e = ibf_engines; e->name; e++) {
		struct ibf_route_opts ro;
		ibf_route_opts_default(&ro);
		struct ibf_routes r;
		struct ibf_error err;
		ibf_error_clear(&err);
		int rc = ibf_route(f, e->name, &ro, &r, NULL, &err);
		TT_CHECK_MSG(rc != 0, "%s routed a fabric without switches", e->name);
		TT_CHECK_MSG(strstr(err.msg, "no switches") != NULL, "%s: %s", e->name, err.msg);
		if (!rc)
			ibf_routes_free(&r);
	}
	ibf_fabric_free(f);
}

int main(void)
{
	TT(test_dfsssp_more_switches_than_channels);
	TT(test_guid2lid_lmc_above_7);
	TT(test_engine_large_lmc);
	TT(test_guid2lid_guid_zero);
	TT(test_validate_long_descriptions);
	TT(test_route_no_switches);
	return tt_done();
}
