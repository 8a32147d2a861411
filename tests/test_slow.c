/* Unit tests for the switch cables far below their rate (routing/slow.c):
 * which of them the engines route as lost and which they keep, one at a
 * time, slowest first: a bridge (after other failures) stays while the
 * other 1x cables go, dmodk's tree check keeps the one cable whose loss
 * leaves no tree, supported values no cable reaches (ibsim's 12x HDR) do
 * not make every cable slow, and the order (ratio, then node/port) decides
 * between two cables that may not both go. */
#include "ibf_routing.h"
#include "ibf_fattree.h"
#include "tt.h"

#include <stdint.h>

/* both ends of the cable on (node, port) run at w x s */
static void set_rate(struct ibf_fabric *f, int node, int port, int w, int s)
{
	struct ibf_port *x = ibf_port(f, node, port);
	TT_REQUIRE(x->peer_node != IBF_NO_NODE);
	struct ibf_port *y = ibf_port(f, x->peer_node, x->peer_port);
	x->width = y->width = (uint8_t)w;
	x->speed = y->speed = (uint8_t)s;
}

/* the port of switch node a that is cabled to node b, 0 when none */
static int port_to(const struct ibf_fabric *f, int a, int b)
{
	for (int p = 1; p <= f->nodes[a].nports; p++)
		if (ibf_port(f, a, p)->peer_node == b)
			return p;
	return 0;
}

/* is the cable on (node, port) of f still cabled in the copy? */
static int kept_in(const struct ibf_fabric *lean, const struct ibf_fabric *f, int node, int port)
{
	const struct ibf_port *x = ibf_port(f, node, port), *y = ibf_port(lean, node, port);
	return y->peer_node == x->peer_node && y->peer_port == x->peer_port;
}

/* switch cables cabled in f but not in lean */
static uint32_t left_out(const struct ibf_fabric *lean, const struct ibf_fabric *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (int p = 1; p <= f->nodes[i].nports; p++) {
			const struct ibf_port *x = ibf_port(f, (int)i, p);
			if (x->peer_node != IBF_NO_NODE && (uint32_t)x->peer_node > i &&
			    !kept_in(lean, f, (int)i, p))
				n++;
		}
	return n;
}

static int ncomp(const struct ibf_fabric *f)
{
	uint32_t *c = malloc((f->nsw ? f->nsw : 1) * sizeof(*c));
	int n = c ? (int)ibf_components(f, c) : -1;
	free(c);
	return n;
}

static int drop_slow(const struct ibf_fabric *f, ibf_slow_check_fn check, void *arg,
		     struct ibf_fabric **lean, struct tt_logbuf *lb)
{
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	lb->len = 0;
	lb->text[0] = '\0';
	o.log = tt_logger;
	o.log_ctx = lb;
	struct ibf_error err;
	ibf_error_clear(&err);
	int rc = ibf_route_drop_slow(f, &o, "test", check, arg, lean, &err);
	if (rc)
		printf("# drop_slow: %s\n", err.msg);
	return rc;
}

static int routes_ok(const struct ibf_fabric *f, const char *engine, struct tt_logbuf *lb)
{
	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	lb->len = 0;
	lb->text[0] = '\0';
	o.log = tt_logger;
	o.log_ctx = lb;
	struct ibf_routes r;
	struct ibf_error err;
	if (ibf_route(f, engine, &o, &r, NULL, &err)) {
		printf("# %s: %s\n", engine, err.msg);
		return 0;
	}
	struct ibf_check_report rep;
	int ok = !ibf_route_check(f, &r, 0, &rep, &err) && rep.ok == rep.pairs;
	ibf_routes_free(&r);
	return ok;
}

/* a check that fails whenever the cable on (node, port) is left out, and
 * counts its calls */
struct refuse {
	int node, port;
	int calls;
};

static int refuse_check(const struct ibf_fabric *lean, const struct ibf_fabric *f, void *arg,
			const char **why, int *quiet, struct ibf_error *err)
{
	(void)err;
	(void)quiet;
	struct refuse *r = arg;
	r->calls++;
	if (!kept_in(lean, f, r->node, r->port))
		*why = "would upset the test";
	return 0;
}

/* ------------------------------------------------------------ Slim Fly */

/* Slim Fly q=5 (50 switches, 7 switch cables each).  Switch X keeps two
 * switch cables, to W and to Y; W keeps only the one to X (their other
 * cables failed): X-Y is a bridge.  X-Y and four cables elsewhere train at
 * 1x.  The four go, X-Y stays (it would cut X and W off).  All or none
 * would have kept all five. */
static struct ibf_fabric *sf_bridge(int *x, int *y, int *xp, int other[4][2])
{
	struct ibf_slimfly_opts so = { 5, 2, 0, 0 };
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	if (!f)
		return NULL;
	int X = f->switches[0], W = -1, Y = -1;
	for (int p = 1; p <= f->nodes[X].nports; p++) {
		int nb = ibf_port(f, X, p)->peer_node;
		if (nb == IBF_NO_NODE || f->nodes[nb].type != IBF_NODE_SWITCH)
			continue;
		if (W < 0)
			W = nb;
		else if (Y < 0)
			Y = nb;
	}
	if (W < 0 || Y < 0) {
		ibf_fabric_free(f);
		return NULL;
	}
	for (int p = 1; p <= f->nodes[X].nports; p++) {
		int nb = ibf_port(f, X, p)->peer_node;
		if (nb != IBF_NO_NODE && f->nodes[nb].type == IBF_NODE_SWITCH && nb != W && nb != Y)
			ibf_fabric_disconnect(f, X, p);
	}
	for (int p = 1; p <= f->nodes[W].nports; p++) {
		int nb = ibf_port(f, W, p)->peer_node;
		if (nb != IBF_NO_NODE && f->nodes[nb].type == IBF_NODE_SWITCH && nb != X)
			ibf_fabric_disconnect(f, W, p);
	}
	*x = X;
	*y = Y;
	*xp = port_to(f, X, Y);
	set_rate(f, X, *xp, 1, IBF_SPEED_EDR);
	/* four more 1x cables, from the last switches, away from X, W, Y */
	int k = 0;
	for (uint32_t s = f->nsw; s-- > 0 && k < 4;) {
		int a = f->switches[s];
		if (a == X || a == W || a == Y)
			continue;
		for (int p = 1; p <= f->nodes[a].nports; p++) {
			const struct ibf_port *pp = ibf_port(f, a, p);
			int b = pp->peer_node;
			if (b == IBF_NO_NODE || f->nodes[b].type != IBF_NODE_SWITCH || b == X ||
			    b == W || b == Y || pp->width == 1 || ibf_port(f, b, 1)->width == 1)
				continue;
			/* one per switch at most */
			int twice = 0;
			for (int q = 1; q <= f->nodes[b].nports; q++)
				twice |= ibf_port(f, b, q)->width == 1;
			if (twice)
				continue;
			set_rate(f, a, p, 1, IBF_SPEED_EDR);
			other[k][0] = a;
			other[k][1] = p;
			k++;
			break;
		}
	}
	if (k != 4 || ibf_fabric_finalize(f, &err) || ibf_assign_lids(f, 0, 0, &err)) {
		ibf_fabric_free(f);
		return NULL;
	}
	return f;
}

static void t_slimfly_bridge(void)
{
	int X, Y, xp, other[4][2];
	struct ibf_fabric *f = sf_bridge(&X, &Y, &xp, other);
	TT_REQUIRE(f);
	struct tt_logbuf lb;
	struct ibf_fabric *lean = NULL;
	TT_REQUIRE(drop_slow(f, NULL, NULL, &lean, &lb) == 0);
	printf("%s", lb.text);
	TT_REQUIRE(lean);
	TT_CHECK(kept_in(lean, f, X, xp));
	for (int k = 0; k < 4; k++)
		TT_CHECK(!kept_in(lean, f, other[k][0], other[k][1]));
	TT_EQ_INT(left_out(lean, f), 4);
	TT_EQ_INT(ncomp(lean), ncomp(f));
	TT_CHECK(strstr(lb.text,
			"test: 4 switch cable(s) run below half their rate, routed as if lost"));
	char want[200];
	snprintf(
		want, sizeof(want),
		"test: 1 switch cable(s) run below half their rate but are used: %s/P%d <-> %s/P%d "
		"at 1xEDR (4xEDR): leaving it out would cut the fabric apart",
		X < Y ? f->nodes[X].desc : f->nodes[Y].desc, X < Y ? xp : port_to(f, Y, X),
		X < Y ? f->nodes[Y].desc : f->nodes[X].desc, X < Y ? port_to(f, Y, X) : xp);
	TT_CHECK_MSG(strstr(lb.text, want), "want '%s'", want);

	/* the same again: the same copy */
	struct ibf_fabric *again = NULL;
	TT_REQUIRE(drop_slow(f, NULL, NULL, &again, &lb) == 0);
	TT_REQUIRE(again);
	for (uint32_t i = 0; i < f->nports_total; i++)
		TT_CHECK(again->ports[i].peer_node == lean->ports[i].peer_node &&
			 again->ports[i].peer_port == lean->ports[i].peer_port);
	ibf_fabric_free(again);

	/* an engine's check that refuses one of the four: it stays with the
	 * bridge, the other three go; asked once with all, then bisected */
	struct refuse rf = { other[2][0], other[2][1], 0 };
	TT_REQUIRE(drop_slow(f, refuse_check, &rf, &again, &lb) == 0);
	printf("%s# check calls: %d\n", lb.text, rf.calls);
	TT_REQUIRE(again);
	TT_CHECK(kept_in(again, f, other[2][0], other[2][1]));
	TT_CHECK(kept_in(again, f, X, xp));
	TT_EQ_INT(left_out(again, f), 3);
	TT_CHECK(strstr(lb.text, ": leaving it out would upset the test"));
	/* 1 with all four, bisection over 4 (2), 1 with the one after it */
	TT_CHECK(rf.calls <= 4);
	ibf_fabric_free(again);

	/* minimal and layered route the copy: every pair delivered, the log
	 * names the four and the bridge */
	TT_CHECK(routes_ok(f, "minimal", &lb));
	TT_CHECK(strstr(lb.text,
			"minimal: 4 switch cable(s) run below half their rate, routed as if lost"));
	TT_CHECK(strstr(lb.text,
			"minimal: 1 switch cable(s) run below half their rate but are used"));
	TT_CHECK(routes_ok(f, "layered", &lb));
	ibf_fabric_free(lean);
	ibf_fabric_free(f);
}

/* Many slow cables, one refused by the check: the check runs a few times
 * (once with all, a bisection, once for the rest), not once per cable. */
static void t_few_checks(void)
{
	struct ibf_slimfly_opts so = { 7, 1, 0, 0 };
	struct ibf_error err;
	struct ibf_fabric *f = ibf_gen_slimfly(&so, &err);
	TT_REQUIRE(f);
	/* one 1x cable on each of the first switches (its first switch port
	 * whose peer has none yet) */
	uint32_t n = 0;
	int refused = -1, rport = 0;
	uint8_t *has = calloc(f->nnodes, 1);
	TT_REQUIRE(has);
	for (uint32_t s = 0; s < f->nsw; s++) {
		int a = f->switches[s];
		if (has[a])
			continue;
		for (int p = 1; p <= f->nodes[a].nports; p++) {
			int b = ibf_port(f, a, p)->peer_node;
			if (b == IBF_NO_NODE || f->nodes[b].type != IBF_NODE_SWITCH || has[b])
				continue;
			set_rate(f, a, p, 1, IBF_SPEED_EDR);
			has[a] = has[b] = 1;
			if (++n == 20) {
				refused = a;
				rport = p;
			}
			break;
		}
	}
	free(has);
	TT_REQUIRE(n >= 30 && refused >= 0);
	TT_REQUIRE(ibf_fabric_finalize(f, &err) == 0);
	struct refuse rf = { refused, rport, 0 };
	struct tt_logbuf lb;
	struct ibf_fabric *lean = NULL;
	TT_REQUIRE(drop_slow(f, refuse_check, &rf, &lean, &lb) == 0);
	printf("# %u slow cables, %d check calls\n", n, rf.calls);
	TT_REQUIRE(lean);
	TT_EQ_INT(left_out(lean, f), n - 1);
	TT_CHECK(kept_in(lean, f, refused, rport));
	int lg = 0;
	while ((1u << lg) < n)
		lg++;
	TT_CHECK(rf.calls <= lg + 2);
	ibf_fabric_free(lean);
	ibf_fabric_free(f);
}

/* ------------------------------------------------------------ order */

/* Switches A-D and B-C joined by 4xEDR cables, A and B by two cables, the
 * only way between the halves; every port says it supports 4xEDR.  Both of
 * A-B trained down: only one may go, the slower for its rate; on a tie the
 * one on A's lower port. */
static struct ibf_fabric *pair(int s1, int s2)
{
	struct ibf_fabric *f = ibf_fabric_new();
	int sw[4];
	for (int i = 0; i < 4; i++) {
		char name[8];
		snprintf(name, sizeof(name), "s%c", 'A' + i);
		sw[i] = ibf_fabric_add_node(f, IBF_NODE_SWITCH, 8, 0x100 + (uint64_t)i, name, NULL,
					    NULL);
		f->nodes[sw[i]].devid = 0xcf08;
	}
	TT_CHECK(ibf_fabric_connect(f, sw[0], 1, sw[1], 1, 1, s1, NULL) == 0);
	TT_CHECK(ibf_fabric_connect(f, sw[0], 2, sw[1], 2, 1, s2, NULL) == 0);
	TT_CHECK(ibf_fabric_connect(f, sw[0], 3, sw[3], 1, 4, IBF_SPEED_EDR, NULL) == 0);
	for (int p = 3; p <= 5; p++)
		TT_CHECK(ibf_fabric_connect(f, sw[1], p, sw[2], p, 4, IBF_SPEED_EDR, NULL) == 0);
	for (int i = 0; i < 4; i++) {
		char name[12];
		snprintf(name, sizeof(name), "h%d", i);
		int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0x200 + (uint64_t)i, name, NULL,
					    NULL);
		TT_CHECK(ibf_fabric_connect(f, h, 1, sw[i], 8, 4, IBF_SPEED_EDR, NULL) == 0);
	}
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (int p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port(f, (int)n, p)->width_sup = 4;
			ibf_port(f, (int)n, p)->speed_sup = IBF_SPEED_EDR;
		}
	TT_CHECK(ibf_fabric_finalize(f, NULL) == 0);
	return f;
}

static void t_order(void)
{
	static const struct {
		int s1, s2, gone;
	} cases[] = {
		{ IBF_SPEED_SDR, IBF_SPEED_EDR, 1 }, /* 1xSDR is the slower: it goes */
		{ IBF_SPEED_EDR, IBF_SPEED_SDR, 2 },
		{ IBF_SPEED_EDR, IBF_SPEED_EDR, 1 }, /* a tie: the lower port */
		{ IBF_SPEED_QDR, IBF_SPEED_DDR, 2 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibf_fabric *f = pair(cases[i].s1, cases[i].s2);
		struct tt_logbuf lb;
		struct ibf_fabric *lean = NULL;
		TT_REQUIRE(drop_slow(f, NULL, NULL, &lean, &lb) == 0);
		TT_REQUIRE(lean);
		int sa = ibf_fabric_find_guid(f, 0x100);
		TT_EQ_INT(left_out(lean, f), 1);
		TT_CHECK_MSG(!kept_in(lean, f, sa, cases[i].gone) &&
				     kept_in(lean, f, sa, 3 - cases[i].gone),
			     "case %zu", i);
		TT_CHECK(strstr(lb.text, "leaving it out would cut the fabric apart"));
		ibf_fabric_free(lean);
		ibf_fabric_free(f);
	}
}

/* ------------------------------------------------------------ absurd supported values */

/* ibsim says every port supports 12x HDR: every cable of the fat tree runs
 * far below that.  What most cables between the two switch models run at
 * (4xEDR) is the expectation then: only the two 1x cables go, and on the
 * healthy fabric nothing does. */
static void t_absurd_supported(void)
{
	for (int bad = 0; bad <= 1; bad++) {
		struct ibf_fabric *f = ibf_gen_kary_ntree(4, 3, NULL);
		TT_REQUIRE(f);
		for (uint32_t n = 0; n < f->nnodes; n++)
			for (int p = 1; p <= f->nodes[n].nports; p++) {
				ibf_port(f, (int)n, p)->width_sup = 12;
				ibf_port(f, (int)n, p)->speed_sup = IBF_SPEED_HDR;
			}
		int c[2][2] = { { 0, 0 }, { 0, 0 } };
		if (bad) {
			/* an up-cable of leaf 1 and of the first level-2 switch */
			uint32_t k = 0;
			for (uint32_t s = 0; s < f->nsw && k < 2; s++) {
				int a = f->switches[s];
				if (strstr(f->nodes[a].desc, k ? "ft-l2" : "ft-l1-s0001")) {
					int p = f->nodes[a].nports; /* its last: an up-cable */
					while (p > 0 && ibf_port(f, a, p)->peer_node == IBF_NO_NODE)
						p--;
					set_rate(f, a, p, 1, IBF_SPEED_EDR);
					c[k][0] = a;
					c[k][1] = p;
					k++;
				}
			}
			TT_REQUIRE(k == 2);
		}
		TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
		struct ibf_degraded *dg = NULL;
		uint32_t nd = 0;
		TT_REQUIRE(ibf_find_degraded(f, &dg, &nd, NULL) == 0);
		TT_CHECK(nd == f->nports_total / 2 ||
			 nd > 100); /* every cable, by supported values */
		free(dg);
		struct tt_logbuf lb;
		struct ibf_fabric *lean = NULL;
		TT_REQUIRE(drop_slow(f, NULL, NULL, &lean, &lb) == 0);
		printf("%s", lb.text);
		TT_CHECK(strstr(lb.text,
				"at the rate most cables between the same switch models run at"));
		if (!bad) {
			TT_CHECK(lean == NULL);
		} else {
			TT_REQUIRE(lean);
			TT_EQ_INT(left_out(lean, f), 2);
			TT_CHECK(!kept_in(lean, f, c[0][0], c[0][1]) &&
				 !kept_in(lean, f, c[1][0], c[1][1]));
			TT_CHECK(strstr(lb.text,
					"test: 2 switch cable(s) run below half their rate, "
					"routed as if lost") &&
				 strstr(lb.text, "at 1xEDR (4xEDR)"));
		}
		ibf_fabric_free(lean);
		ibf_fabric_free(f);
	}
}

/* ------------------------------------------------------------ dmodk */

/* A 4-ary 3-tree (two free ports per switch) without ft-l names: the
 * levels come from the structure, the leaves being the switches with hosts
 * but for those beside two or more leaves (hosts on a spine).  Level-2
 * switch X carries a host; three of its four down-cables and two leaf
 * up-cables in another pod train at 1x.  Without all three, X would be
 * beside one leaf only: a leaf itself, cabled to a leaf, no tree.  dmodk
 * leaves out two of X's (the check keeps the last in node/port order) and
 * the two elsewhere.  All or none kept all five. */
static void t_dmodk_keeps_one(void)
{
	struct ibf_fattree_opts fo;
	memset(&fo, 0, sizeof(fo));
	fo.levels = 3;
	for (int l = 0; l < 3; l++) {
		fo.m[l] = 4;
		fo.w[l] = l ? 4 : 1;
	}
	fo.parallel = 1;
	fo.switch_ports = 10;
	struct ibf_fabric *f = ibf_gen_fattree(&fo, NULL);
	TT_REQUIRE(f);
	int X = -1;
	for (uint32_t s = 0; s < f->nsw && X < 0; s++)
		if (strstr(f->nodes[f->switches[s]].desc, "ft-l2-s0001"))
			X = f->switches[s];
	TT_REQUIRE(X >= 0);
	/* three of the leaves below X (their own names give them away), and a
	 * host on a free port */
	int down[3], nd = 0, free_port = 0;
	for (int p = 1; p <= f->nodes[X].nports; p++) {
		int b = ibf_port(f, X, p)->peer_node;
		if (b == IBF_NO_NODE && !free_port)
			free_port = p;
		if (b != IBF_NO_NODE && strstr(f->nodes[b].desc, "ft-l1") && nd < 3)
			down[nd++] = p;
	}
	TT_REQUIRE(nd == 3 && free_port);
	int h = ibf_fabric_add_node(f, IBF_NODE_CA, 1, 0xabc000, "spinehost HCA-1", NULL, NULL);
	TT_REQUIRE(h >= 0);
	TT_REQUIRE(ibf_fabric_connect(f, h, 1, X, free_port, 4, IBF_SPEED_EDR, NULL) == 0);
	for (int i = 0; i < 3; i++)
		set_rate(f, X, down[i], 1, IBF_SPEED_EDR);
	/* pod 3's leaves: the first up-cable of two of them */
	int el[2][2], ne = 0;
	for (uint32_t s = 0; s < f->nsw && ne < 2; s++) {
		int a = f->switches[s];
		if (!strstr(f->nodes[a].desc, "ft-l1-s0013") &&
		    !strstr(f->nodes[a].desc, "ft-l1-s0014"))
			continue;
		for (int p = 1; p <= f->nodes[a].nports; p++) {
			int b = ibf_port(f, a, p)->peer_node;
			if (b != IBF_NO_NODE && f->nodes[b].type == IBF_NODE_SWITCH) {
				set_rate(f, a, p, 1, IBF_SPEED_EDR);
				el[ne][0] = a;
				el[ne][1] = p;
				ne++;
				break;
			}
		}
	}
	TT_REQUIRE(ne == 2);
	/* names without the level: the tree is found from the structure */
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == IBF_NODE_SWITCH) {
			f->nodes[n].desc[0] = 'X';
			if (f->nodes[n].id && *f->nodes[n].id)
				f->nodes[n].id[0] = 'X';
		}
	TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
	TT_REQUIRE(ibf_assign_lids(f, 0, 0, NULL) == 0);

	struct ibf_route_opts o;
	ibf_route_opts_default(&o);
	struct ibf_fabric *lean = NULL;
	TT_REQUIRE(ibf_dmodk_lean(f, &o, &lean, NULL) == 0);
	TT_REQUIRE(lean);
	TT_EQ_INT(left_out(lean, f), 4);
	for (int e = 0; e < 2; e++)
		TT_CHECK(!kept_in(lean, f, el[e][0], el[e][1]));
	/* the kept one: X's cable with the highest (lower node, port) end */
	int last = -1;
	int32_t lnode = -1;
	uint8_t lport = 0;
	for (int i = 0; i < 3; i++) {
		const struct ibf_port *x = ibf_port(f, X, down[i]);
		int32_t na = X < x->peer_node ? X : x->peer_node;
		uint8_t pa = X < x->peer_node ? (uint8_t)down[i] : x->peer_port;
		if (na > lnode || (na == lnode && pa > lport)) {
			lnode = na;
			lport = pa;
			last = i;
		}
	}
	for (int i = 0; i < 3; i++)
		TT_CHECK_MSG(kept_in(lean, f, X, down[i]) == (i == last), "down-cable %d", i);
	ibf_fabric_free(lean);

	struct tt_logbuf lb;
	TT_CHECK(routes_ok(f, "dmodk", &lb));
	printf("%s", lb.text);
	TT_CHECK(strstr(lb.text,
			"dmodk: 4 switch cable(s) run below half their rate, routed as if lost"));
	TT_CHECK(strstr(lb.text,
			"dmodk: 1 switch cable(s) run below half their rate but are used: ") &&
		 strstr(lb.text, "at 1xEDR (4xEDR): leaving it out would leave no fat tree"));
	ibf_fabric_free(f);
}

/* the switch whose description holds name, -1 when none */
static int switch_named(const struct ibf_fabric *f, const char *name)
{
	for (uint32_t s = 0; s < f->nsw; s++)
		if (strstr(f->nodes[f->switches[s]].desc, name))
			return f->switches[s];
	return -1;
}

/* every switch cable of node a at 1xEDR; returns how many */
static int all_1x(struct ibf_fabric *f, int a)
{
	int n = 0;
	for (int p = 1; p <= f->nodes[a].nports; p++) {
		int b = ibf_port(f, a, p)->peer_node;
		if (b != IBF_NO_NODE && f->nodes[b].type == IBF_NODE_SWITCH) {
			set_rate(f, a, p, 1, IBF_SPEED_EDR);
			n++;
		}
	}
	return n;
}

/* A leaf whose up-cables all run at 1x keeps them: leaving some out only
 * loads the rest, as slow.  The other 1x cable goes. */
static void t_all_slow_switch(void)
{
	struct ibf_fabric *f = ibf_gen_kary_ntree(4, 2, NULL);
	TT_REQUIRE(f);
	int leaf = switch_named(f, "ft-l1-s0000"), other = switch_named(f, "ft-l1-s0002"), op = 0;
	TT_REQUIRE(leaf >= 0 && other >= 0);
	TT_REQUIRE(all_1x(f, leaf) == 4);
	for (int p = f->nodes[other].nports; p >= 1 && !op; p--) {
		int b = ibf_port(f, other, p)->peer_node;
		if (b != IBF_NO_NODE && f->nodes[b].type == IBF_NODE_SWITCH) {
			set_rate(f, other, p, 1, IBF_SPEED_EDR);
			op = p;
		}
	}
	TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
	struct tt_logbuf lb;
	struct ibf_fabric *lean = NULL;
	TT_REQUIRE(drop_slow(f, NULL, NULL, &lean, &lb) == 0);
	printf("%s", lb.text);
	TT_REQUIRE(lean);
	TT_EQ_INT(left_out(lean, f), 1);
	TT_CHECK(!kept_in(lean, f, other, op));
	TT_CHECK(strstr(lb.text,
			"test: 4 switch cable(s) run below half their rate but are used: ") &&
		 strstr(lb.text, ": ft-l1-s0000 has no faster switch cable"));
	TT_CHECK(!strstr(lb.text, "cut the fabric apart"));
	ibf_fabric_free(lean);
	ibf_fabric_free(f);

	/* a leaf's only up-cable: the plainer reason, it is a bridge */
	struct ibf_fattree_opts fo;
	memset(&fo, 0, sizeof(fo));
	fo.levels = 2;
	fo.m[0] = 3;
	fo.m[1] = 2;
	fo.w[0] = fo.w[1] = 1;
	fo.parallel = 1;
	f = ibf_gen_fattree(&fo, NULL);
	TT_REQUIRE(f);
	int l1 = switch_named(f, "ft-l1-s0001");
	TT_REQUIRE(l1 >= 0);
	all_1x(f, l1);
	TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
	lean = NULL;
	TT_REQUIRE(drop_slow(f, NULL, NULL, &lean, &lb) == 0);
	printf("%s", lb.text);
	TT_CHECK(lean == NULL);
	TT_CHECK(strstr(lb.text,
			"test: 1 switch cable(s) run below half their rate but are used: ") &&
		 strstr(lb.text, "at 1xEDR (4xEDR): leaving it out would cut the fabric apart"));
	ibf_fabric_free(f);
}

/* A loopback cable (two ports of one switch cabled together, as test plugs
 * in real dumps) carries no route and is no switch cable of the graph: a
 * far-slow one is no reason to leave a cable out.  The leaf's four up-cables
 * all at 1x are kept even when the leaf also has a 1x loopback. */
static void t_loopback(void)
{
	struct ibf_fabric *f = ibf_gen_kary_ntree(4, 2, NULL);
	TT_REQUIRE(f);
	int leaf = switch_named(f, "ft-l1-s0000");
	TT_REQUIRE(leaf >= 0);
	TT_REQUIRE(all_1x(f, leaf) == 4);
	int hp[2], nh = 0;
	for (int p = 1; p <= f->nodes[leaf].nports && nh < 2; p++) {
		int b = ibf_port(f, leaf, p)->peer_node;
		if (b != IBF_NO_NODE && f->nodes[b].type != IBF_NODE_SWITCH)
			hp[nh++] = p;
	}
	TT_REQUIRE(nh == 2);
	/* two host ports become a loopback at 1x */
	ibf_fabric_disconnect(f, leaf, hp[0]);
	ibf_fabric_disconnect(f, leaf, hp[1]);
	TT_REQUIRE(ibf_fabric_connect(f, leaf, hp[0], leaf, hp[1], 1, IBF_SPEED_EDR, NULL) == 0);
	TT_REQUIRE(ibf_fabric_finalize(f, NULL) == 0);
	struct tt_logbuf lb;
	struct ibf_fabric *lean = NULL;
	TT_REQUIRE(drop_slow(f, NULL, NULL, &lean, &lb) == 0);
	printf("%s", lb.text);
	for (int p = 1; p <= f->nodes[leaf].nports; p++) {
		int b = ibf_port(f, leaf, p)->peer_node;
		if (b != IBF_NO_NODE && b != leaf && f->nodes[b].type == IBF_NODE_SWITCH)
			TT_CHECK_MSG(!lean || kept_in(lean, f, leaf, p), "up-cable P%d left out",
				     p);
	}
	TT_CHECK(strstr(lb.text, ": ft-l1-s0000 has no faster switch cable"));
	ibf_fabric_free(lean);
	ibf_fabric_free(f);
}

int main(void)
{
	TT(t_slimfly_bridge);
	TT(t_few_checks);
	TT(t_order);
	TT(t_absurd_supported);
	TT(t_dmodk_keeps_one);
	TT(t_all_slow_switch);
	TT(t_loopback);
	return tt_done();
}
