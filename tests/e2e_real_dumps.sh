#!/usr/bin/env bash
# End to end on the real fabric dumps of tests/fixtures/real (SOURCES.md
# there): every command that reads a fabric, on each file, with the counts
# taken from the files by hand; the real ibroute tables read back and traced;
# a cable plan made from a dump validated against it, clean and with one
# cable moved; and the largest dump (a QLogic 12800 chassis, 25 switch ASICs,
# 281 HCAs) run in ibsim under a stock OpenSM with the plugin, its tables read
# back with dump_lfts and checked.  The simulator part skips (one TAP line)
# when ibsim/opensm/the plugin are missing.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
R=$FIXTURES/real
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

# file switches CAs switch-links switch-pairs host-links engines
# (counts: SW lines by GUID, CA lines by port GUID, lines with a peer halved;
# dmodk only where the switches form a tree)
while read -r file sw ca swl pairs hl engines; do
	f=$R/$file
	n=${file%%.*}
	r=$(rc "$IBFAB" topo info "$f")
	check "$n: topo info exit 0" test "$r" = 0
	check "$n: $sw switches" grep -q "^switches: *$sw\$" "$W/out"
	check "$n: $ca channel adapters" grep -q "^channel adapters: *$ca " "$W/out"
	check "$n: $swl switch links between $pairs pairs" \
		grep -q "^switch links: *$swl between $pairs switch pairs" "$W/out"
	check "$n: $hl host links" grep -q "^host links: *$hl " "$W/out"
	check "$n: every link seen from both sides" grep -q "^one-sided links: *0\$" "$W/out"
	# the writers: ibnetdiscover and ibsim read back to the same links
	"$IBFAB" topo links "$f" >"$W/$n.links" 2>"$W/err"
	for fmt in ibnetdiscover ibsim; do
		"$IBFAB" topo convert "$f" --format "$fmt" -o "$W/$n.$fmt" 2>"$W/err" &&
			"$IBFAB" topo links "$W/$n.$fmt" >"$W/$n.$fmt.links" 2>>"$W/err"
		check "$n: written as $fmt, read back: the same links" cmp -s "$W/$n.links" "$W/$n.$fmt.links"
	done
	"$IBFAB" topo convert "$f" --format json -o "$W/$n.json" 2>"$W/err"
	r=$(rc "$IBFAB" topo info "$W/$n.json")
	check "$n: its JSON is refused as JSON (not read as another format)" \
		sh -c "test $r = 1 && grep -q 'reading JSON fabrics is not supported' '$W/err'"
	# the offline engines, their tables traced
	for e in $engines; do
		r=$(rc "$IBFAB" route --topology "$f" --engine "$e" -o "$W/$n.$e.dump")
		check "$n: route --engine $e" test "$r" = 0
		r=$(rc "$IBFAB" route check --topology "$f" --lfts "$W/$n.$e.dump")
		check "$n: $e tables deliver every pair, no loop" \
			sh -c "test $r = 0 && grep -q '^loops: *0\$' '$W/out'"
	done
	# LMC 1, two layers, deadlock-free SLs checked by the independent verifier
	r=$(rc "$IBFAB" route --topology "$f" --engine layered --lmc 1 --deadlock auto \
		-o "$W/$n.l1.dump" --sl "$W/$n.sl" --sl2vl "$W/$n.sl2vl")
	check "$n: layered, LMC 1, --deadlock auto" test "$r" = 0
	r=$(rc "$IBFAB" deadlock verify --topology "$f" --lmc 1 --lfts "$W/$n.l1.dump" \
		--sl "$W/$n.sl" --sl2vl "$W/$n.sl2vl" -q)
	check "$n: deadlock verify: deadlock-free" test "$r" = 0
	r=$(rc "$IBFAB" sim flow --topology "$f" --lfts "$W/$n.minimal.dump" --pattern shift:1)
	check "$n: sim flow shift:1 runs" test "$r" = 0
	r=$(rc "$IBFAB" sim packet --topology "$f" --lmc 1 --lfts "$W/$n.l1.dump" --sl "$W/$n.sl" \
		--sl2vl "$W/$n.sl2vl" --load 0.6 --warmup 1000 --measure 3000)
	check "$n: sim packet on the deadlock-free tables: no deadlock" \
		sh -c "test $r = 0 && grep -q '^deadlock: none' '$W/out'"
done <<'EOF'
qdr-qlogic-12800-avakas-25sw-281hca-2016.ibnetdiscover-s-p 25 281 288 144 281 minimal layered dmodk hratio
qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p 9 125 76 12 125 minimal layered hratio
qdr-truescale-plafrim2-7sw-2016.ibnetdiscover-s-p 7 96 59 10 96 minimal layered dmodk hratio
qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p 1 23 0 0 23 minimal layered
fdr10-qdr-sx6036-8sw-2014.ibnetdiscover 8 144 47 12 145 minimal layered dmodk hratio
qdr-ddr-voltaire-4036-psmn-x5-11sw-2020.ibnetdiscover 11 89 70 24 89 minimal layered dmodk hratio
ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover 40 582 532 269 582 minimal layered dmodk hratio
EOF

# an excerpt with two aggregation nodes sharing a port GUID (ibnetdiscover -p)
r=$(rc "$IBFAB" topo info "$R/hdr-quantum2-excerpt-shared-an-guid.ibnetdiscover-p")
check "shared AN GUID (-p): read, both devices kept and the GUID reported" \
	sh -c "test $r = 0 && grep -q '^duplicate GUIDs: 2 nodes' '$W/out' && grep -q \"cabled to ' 5FB0406-spine-IB03 ' port 81\" '$W/out'"

# dmodk on a fabric whose switches do not form a tree: a clear refusal
r=$(rc "$IBFAB" route --topology "$R/qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p" --engine dmodk)
check "plafrim: dmodk refuses a non-tree, naming the link" \
	sh -c "test $r = 1 && grep -q 'not a fat tree.*not on adjacent levels' '$W/err'"

# dmodk on the True Scale tree, whose leaf TS-i12k00066a00e30076ab lost one
# of its 12 up-cables: -v prints the engine's report; the LIDs the missing
# cable would carry were counted as 0 (only a fallback path counted them)
P2=$R/qdr-truescale-plafrim2-7sw-2016.ibnetdiscover-s-p
r=$(rc "$IBFAB" route --topology "$P2" --engine dmodk -v)
P2MISS=$(sed -n 's/.*TS-i12k00066a00e30076ab (level 1) has 11 of 12 up-port cables (missing slot 10); \([0-9]*\) destination LIDs moved off them.*/\1/p' "$W/err")
check "plafrim2: dmodk -v reports the leaf's missing cable and the ${P2MISS:-?} LIDs it would carry (> 0)" \
	sh -c "test $r = 0 && test '${P2MISS:-0}' -gt 0"

# the real ibroute tables of all 9 switches of the Voltaire/Infiniscale fabric
cat "$R"/plafrim-2016-ibroute/lid-*.ibroute >"$W/plafrim.lfts"
PL=$R/qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p
r=$(rc "$IBFAB" route check --topology "$PL" --lfts "$W/plafrim.lfts")
check "plafrim: the real tables deliver all 134 x 133 pairs, up to 5 switch hops" \
	sh -c "test $r = 0 && grep -q '^pairs traced: *17822\$' '$W/out' && grep -q '^ok: *17822\$' '$W/out' && grep -q '^longest path: *5 ' '$W/out'"
r=$(rc "$IBFAB" deadlock verify --topology "$PL" --lfts "$W/plafrim.lfts" --sl-const 0 --sl2vl-identity 1 -q)
check "plafrim: the real tables on one VL: deadlock verify finds no cycle (exit $r)" \
	test "$r" = 0
r=$(rc "$IBFAB" sim flow --topology "$PL" --lfts "$W/plafrim.lfts" --pattern shift:1 --pattern a2a)
check "plafrim: sim flow on the real tables" test "$r" = 0
r=$(rc "$IBFAB" route stats --topology "$PL" --lfts "$W/plafrim.lfts")
check "plafrim: route stats on the real tables" test "$r" = 0
# the damaged table of the True Scale fabric: an error at its first repeat
r=$(rc "$IBFAB" route check --topology "$R/qdr-truescale-plafrim2-7sw-2016.ibnetdiscover-s-p" \
	--lfts "$R/plafrim2-2016-ibroute/subnet0-lid-60.ibroute")
check "plafrim2: the damaged ibroute table is an error at line 65" \
	sh -c "test $r = 1 && grep -q 'subnet0-lid-60.ibroute:65: LID 0x003f appears twice' '$W/err'"
r=$(rc "$IBFAB" route check --topology "$R/qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p" \
	--lfts "$R/plafrim2-2016-ibroute/subnet1-lid-109.ibroute")
check "plafrim2 subnet 1: the real IS5030 table delivers all 24 x 23 pairs" \
	sh -c "test $r = 0 && grep -q '^ok: *552\$' '$W/out'"
# a chassis leaf's table that ends in ibroute's 'iberror:' line
r=$(rc "$IBFAB" route check --topology "$R/qdr-qlogic-12800-avakas-25sw-281hca-2016.ibnetdiscover-s-p" \
	--lfts "$R/qdr-qlogic-12800-avakas-L101-2016.ibroute")
check "avakas: one leaf's table read (the others missing: unreachable, exit 1), examples tell the ASICs apart" \
	sh -c "test $r = 1 && grep -q \"from 'QLogic 12800-180...0066a00e8001310 S209A' port 0 to LID 0x0001 ('QLogic 12800-180...00066a00e8001310 L101'): no route at\" '$W/out'"

# a cable plan from the largest dump: clean; one host cable moved in the plan
AV=$R/qdr-qlogic-12800-avakas-25sw-281hca-2016.ibnetdiscover-s-p
r=$(rc "$IBFAB" cabling from-topology "$AV" -o "$W/av.plan.csv")
check "avakas: plan from the dump (569 cables)" \
	sh -c "test $r = 0 && test \$(grep -c '^[0-9]' '$W/av.plan.csv') = 569"
r=$(rc "$IBFAB" validate --plan "$W/av.plan.csv" --fabric "$AV")
# node008 runs 4xDDR among 263 QDR links of its model (topo info: degraded):
# the plan says QDR, so the dump against it reports that cable (it was
# planned as found, DDR, and validated clean)
check "avakas: the dump against its own plan: only node008's DDR cable, degraded" \
	sh -c "test $r = 1 && grep -q '^degraded: .* L107 port 6 and node008 HCA-1 port 1: it runs at 4xDDR, the plan says 4xQDR' '$W/out' && grep -q '^1 finding: 1 degraded; 569 of 569' '$W/out'"
sed 's/^\([0-9]*,2,host,,[^,]* L112\),2,\(,node166 HCA-1,\)/\1,1,\2/' "$W/av.plan.csv" >"$W/av.moved.csv"
r=$(rc "$IBFAB" validate --plan "$W/av.moved.csv" --fabric "$AV")
check "avakas: node166 planned on L112 port 1, found on port 2: one wrong-port finding" \
	sh -c "test $r = 1 && grep -q '^wrong-port: move the cable at node166 HCA-1 port 1 from .* L112 port 2 to .* L112 port 1' '$W/out' && grep -q '^2 findings: 1 wrong-port, 1 degraded' '$W/out'"
# the two excerpts hold switches with no cable at all (the plan CSV cannot
# name them): against their own plans they are clean, not unknown-node
for x in edr-osc-excerpt.ibnetdiscover-p hdr-quantum2-excerpt-shared-an-guid.ibnetdiscover-p; do
	"$IBFAB" cabling from-topology "$R/$x" -o "$W/$x.plan.csv" 2>/dev/null
	r=$(rc "$IBFAB" validate --plan "$W/$x.plan.csv" --fabric "$R/$x")
	check "$x: the excerpt against its own plan is clean (exit $r; was unknown-node for cable-less switches)" \
		sh -c "test $r = 0 && grep -q '^clean: ' '$W/out'"
done

# X5: four switches share one description, two another, and every HCA keeps
# the default one; the plan names them DESC-0x<GUID> and validate used to
# report 4 of the switches as renamed against the fabric's own plan
X5=$R/qdr-ddr-voltaire-4036-psmn-x5-11sw-2020.ibnetdiscover
"$IBFAB" cabling from-topology "$X5" -o "$W/x5.plan.csv" 2>/dev/null
r=$(rc "$IBFAB" validate --plan "$W/x5.plan.csv" --fabric "$X5")
check "x5: against its own plan: clean, all 100 nodes named (repeated descriptions by their GUID names)" \
	sh -c "test $r = 0 && grep -q '^clean: 159 of 159' '$W/out' && grep -q 'nodes named by description 100,' '$W/out'"

# plafrim2 subnet 1 (-s -p: port GUIDs, no node GUIDs): 20 hosts repeat the
# adapter's default description; from-topology named them DESC-0x0000000000000000,
# -2, -3, ... (a GUID it did not have), which validate could only match by
# position; their first port GUID names them, as ibfab's messages do
IS5=$R/qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p
"$IBFAB" cabling from-topology "$IS5" -o "$W/is5.plan.csv" 2>/dev/null
r=$(rc "$IBFAB" validate --plan "$W/is5.plan.csv" --fabric "$IS5")
check "is5030 subnet (-s -p): its own plan names every host by a port GUID, validate takes them by name (24, none by position)" \
	sh -c "test $r = 0 && ! grep -q -- '-0x0000000000000000' '$W/is5.plan.csv' && test \$(grep -c 'MT25408 ConnectX Mellanox Technologies-0xf452140300[0-9a-f]\{6\},' '$W/is5.plan.csv') = 20 && grep -q '^clean: 23 of 23' '$W/out' && grep -q 'nodes named by description 24,.* hosts by position 0' '$W/out'"
# ... so two of them swapped between their switch ports are found (with
# the old names, matched by position, the swap was "clean")
sed -e 's/0xf4521403007a6be1/0xSWAP/' -e 's/0xf4521403007a6c11/0xf4521403007a6be1/' \
	-e 's/0xSWAP/0xf4521403007a6c11/' "$IS5" >"$W/is5-swapped.p"
r=$(rc "$IBFAB" validate --plan "$W/is5.plan.csv" --fabric "$W/is5-swapped.p")
check "is5030 subnet (-s -p): two hosts of one description swapped: a swapped finding at ports 21 and 23" \
	sh -c "test $r = 1 && grep -q '^1 finding: 1 swapped;' '$W/out' && grep -q 'swap the two cables at MF0;switchIB-MLX01:IS5030/U1 port 21 and MF0;switchIB-MLX01:IS5030/U1 port 23' '$W/out'"

# NDR Quantum-2: the SHARP aggregation node on port 65 of each of the 40
# switches (the switch's system image GUID) is no server: rail info counted
# each as a one-NIC server missing 5 rails (582 GPUs, 40 false domains)
ND=$R/ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover
r=$(rc "$IBFAB" rail info "$ND")
check "ndr: rail info leaves the 40 aggregation nodes out (542 GPUs), no switch's system image as a server" \
	sh -c "test $r = 0 && grep -q '^gpus 542 ' '$W/out' && grep -q '^left out: 40 CA(s) inside the switch' '$W/out' && ! grep -q 'sysimg-0x2c5eab0300b87b40' '$W/out'"
# ... nor a host of the traffic: congestion patterns and both simulators
# number 542 hosts (with the 40 as hosts, shifts sent flows to the spines)
r=$(rc "$IBFAB" route congestion --topology "$ND" --engine dmodk)
check "ndr: route congestion: 542 hosts, the 40 aggregation nodes named in a note" \
	sh -c "test $r = 0 && grep -q '^hosts: 542 ' '$W/out' && grep -q '^note: 40 CA port(s) inside their switch' '$W/out'"
r=$(rc "$IBFAB" route congestion --topology "$ND" --engine dmodk --json)
check "ndr: route congestion --json: hosts 542, in_switch 40" \
	sh -c "test $r = 0 && grep -q '\"hosts\": 542, \"in_switch\": 40,' '$W/out'"
r=$(rc "$IBFAB" sim flow --topology "$ND" --engine dmodk --pattern shift:1 --json)
check "ndr: sim flow: 542 hosts and ranks, in_switch 40" \
	sh -c "test $r = 0 && grep -q '\"hosts\": 542, \"in_switch\": 40, \"ranks\": 542,' '$W/out'"
r=$(rc "$IBFAB" sim packet --topology "$ND" --engine dmodk --load 0.3 --warmup 500 --measure 1500)
check "ndr: sim packet: 542 hosts, the note, every packet routable" \
	sh -c "test $r = 0 && grep -q '^hosts 542 ' '$W/out' && grep -q '^note: 40 CA port(s) inside their switch' '$W/out' && grep -q 'unroutable 0,' '$W/out'"
# dmodk numbers the leaves' aggregation nodes after the leaf hosts, so the
# hosts' D-mod-K indices run without gaps, as the patterns number them
r=$(rc "$IBFAB" route -v --topology "$ND" --engine dmodk -o "$W/ndr-an.lfts")
check "ndr: dmodk numbers the 31 leaf aggregation nodes after the 542 hosts" \
	sh -c "test $r = 0 && grep -q '31 leaves x 20 host slots = 542 (542 hosts' '$W/err' && grep -q 'dmodk: 31 CA ports inside their leaf switch (SHARP aggregation nodes) get indices 542\.\.' '$W/err'"
r=$(rc "$IBFAB" route check --topology "$ND" --lfts "$W/ndr-an.lfts")
check "ndr: those tables deliver every pair, no loop" \
	sh -c "test $r = 0 && grep -q '^loops: *0\$' '$W/out'"
# a dump without system image GUIDs (-p) has none
r=$(rc "$IBFAB" route congestion --topology "$R/qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p" --engine minimal --json)
check "plafrim (-p): in_switch 0, every CA a host" \
	sh -c "test $r = 0 && grep -q '\"hosts\": 125, \"in_switch\": 0,' '$W/out'"

# sim packet --sl: the note on a partial SL dump counts the (host, LID)
# pairs the simulation uses; it counted the aggregation nodes too, so a
# dump without their LIDs was "partial" (23240 of 338142 pairs, e.g. an
# aggregation node to another's LID) though no packet goes there
"$IBFAB" route -q --topology "$ND" --engine dmodk --deadlock dfsssp -o "$W/ndr.lfts" --sl "$W/ndr.sl" \
	>/dev/null 2>&1
awk '/^Ca.*"Mellanox Technologies Aggregation Node"/ { an = 1; next }
	an && /^\[1\]/ { for (i = 1; i < NF; i++) if ($i == "lid") { printf "0x%04x\n", $(i + 1); break } }
	{ an = 0 }' "$ND" >"$W/ndr-an.lids"
awk 'NR == FNR { an[$1] = 1; next } !($1 in an)' "$W/ndr-an.lids" "$W/ndr.sl" >"$W/ndr-noan.sl"
r=$(rc "$IBFAB" sim packet --topology "$ND" --lfts "$W/ndr.lfts" --sl "$W/ndr-noan.sl" --load 0.1 \
	--warmup 100 --measure 200)
check "ndr: an SL dump without the 40 aggregation nodes' LIDs is complete for the 542 hosts (no note)" \
	sh -c "test $r = 0 && test \$(wc -l <'$W/ndr-an.lids') = 40 && ! grep -q 'gives no SL' '$W/err'"
# ... and one without a host's LID is partial for 541 of the 542 x 541 pairs
hl=$(awk '/^Ca.*"a08-p1-dgx-04-c17 mlx5_5"/ { h = 1; next } h { for (i = 1; i < NF; i++) if ($i == "lid") { printf "0x%04x", $(i + 1); exit } }' "$ND")
grep -v "^$hl " "$W/ndr.sl" >"$W/ndr-nohost.sl"
r=$(rc "$IBFAB" sim packet --topology "$ND" --lfts "$W/ndr.lfts" --sl "$W/ndr-nohost.sl" --load 0.1 \
	--warmup 100 --measure 200)
check "ndr: an SL dump without one host's LID ($hl): no SL for 541 of 293222 pairs" \
	sh -c "test $r = 0 && grep -q 'gives no SL for 541 of 293222 ' '$W/err'"

# ------------------------------------------------------------------ ibsim + OpenSM + plugin
sim_ok=1
for t in ibsim ibsim-run opensm ibnetdiscover dump_lfts; do
	command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 || sim_ok=0
done
PATH=$PATH:/usr/sbin:/sbin
PLUGIN_DIR="$top_builddir/.libs"
[ -f "$PLUGIN_DIR/libibfab.so" ] || sim_ok=0
if [ "$sim_ok" = 0 ]; then
	ok "# SKIP ibsim/opensm/infiniband-diags or the plugin missing"
	# the Sun DCS 36 with one host: route congestion had no flow to count and
# printed "worst max link load 0 (shift 0)", 100/100 permutations at their
# bound, exit 0 (sim flow already refused a pattern on one rank)
for o in "" "--json"; do
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" route congestion --topology "$R/qdr-sun-dcs36-1switch-1host.ibnetdiscover" \
		--engine minimal $o)
	check "one host: route congestion $o exits 1 with nothing on stdout" \
		sh -c "test $r = 1 && test ! -s '$W/out' && grep -q '1 host port(s) cabled to a switch: a pattern needs at least 2' '$W/err'"
done
done_testing
fi
"$IBFAB" topo convert "$AV" --format ibsim -o "$W/av.net" 2>"$W/err"
opensm -c "$W/opensm.default.conf" >/dev/null 2>&1 </dev/null
osm_conf "$W/opensm.default.conf" layered 1 "$W/osm.conf"
echo '# defaults' >"$W/empty.conf"
# osm_sweep NET CONF DIR: NET in ibsim, one OpenSM sweep with the plugin
# and CONF, then the switches' tables (DIR/s/lfts.txt) and the fabric as
# discovered (DIR/s/net.ibnd) read back; exit status of the run
osm_sweep() {
	mkdir -p "$3"
	IBFAB_CONF="$W/empty.conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$1" "$3/s" -- bash -c '
	. "$0"
	d=$IBFAB_SIM_DIR
	opensm_once "$d" -F "$1" || { echo "opensm failed ($?)"; tail -20 "$d/opensm.out"; exit 1; }
	ibsim-run dump_lfts 2>"$d/dump_lfts.err" | grep -v "replaced by dump_fts" >"$d/lfts.txt" || exit 2
	ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || exit 3
' "$top_srcdir/tests/lib.sh" "$2" 2>&1 | diag
	return "${PIPESTATUS[0]}"
}
osm_sweep "$W/av.net" "$W/osm.conf" "$W/sim"
check "avakas in ibsim: opensm with the plugin, dump_lfts and ibnetdiscover ran" test $? -eq 0
S=$W/sim/s
check "avakas in ibsim: the plugin's layered engine configured 25 switches, 587 LIDs (LMC 1)" \
	grep -q "layered: tables configured by ibfab: 25 switches, 587 LIDs (306 end ports, LMC 1, 2 layers)" "$S/opensm.log"
check "avakas in ibsim: subnet up" grep -q "SUBNET UP" "$S/opensm.log"
"$IBFAB" topo links "$S/net.ibnd" >"$W/sim/links" 2>"$W/err"
AVN=${AV##*/}
check "avakas in ibsim: ibnetdiscover finds the links of the dump" cmp -s "$W/${AVN%%.*}.links" "$W/sim/links"
check "avakas in ibsim: 25 tables, each with all 587 LIDs" \
	sh -c "test \$(grep -c '^587 valid lids dumped' '$S/lfts.txt') = 25"
r=$(rc "$IBFAB" route check --topology "$S/net.ibnd" --lfts "$S/lfts.txt")
check "avakas in ibsim: route check of the tables read back: all pairs, no loop" \
	sh -c "test $r = 0 && grep -q '^loops: *0\$' '$W/out' && grep -q '^unreachable: *0\$' '$W/out'"

# stock OpenSM minhop (no plugin) on the same chassis: the busiest link of
# its tables read back, against ibfab minimal and layered computed offline on
# the fabric as discovered (the same LIDs), as `route stats` counts paths
osm_conf "$W/opensm.default.conf" minhop 0 "$W/osm-mh.conf" -e '/^event_plugin_name /d'
osm_sweep "$W/av.net" "$W/osm-mh.conf" "$W/simmh"
check "avakas in ibsim: stock minhop ran, tables read back" test $? -eq 0
SM=$W/simmh/s
maxp() { sed -n 's/^paths per link: .* max \([0-9]*\) .*/\1/p' "$1"; }
"$IBFAB" route stats --topology "$SM/net.ibnd" --lfts "$SM/lfts.txt" >"$W/mh.stats" 2>"$W/err"
MH=$(maxp "$W/mh.stats")
for e in minimal layered; do
	"$IBFAB" route stats --topology "$SM/net.ibnd" --engine $e >"$W/$e.stats" 2>"$W/err"
	M=$(maxp "$W/$e.stats")
	check "avakas: $e's busiest link (${M:-?} paths) carries no more than stock minhop's (${MH:-?})" \
		sh -c "test -n '$MH' && test -n '$M' && test '$M' -le '$MH'"
done

# the True Scale tree under OpenSM with dmodk: the plugin's log reports the
# missing leaf cable as the offline run does, and the tables deliver
"$IBFAB" topo convert "$P2" --format ibsim -o "$W/p2.net" 2>"$W/err"
osm_conf "$W/opensm.default.conf" dmodk 0 "$W/osm-p2.conf"
osm_sweep "$W/p2.net" "$W/osm-p2.conf" "$W/sim2"
check "plafrim2 in ibsim: opensm with the plugin (dmodk), dump_lfts and ibnetdiscover ran" test $? -eq 0
S2=$W/sim2/s
check "plafrim2 in ibsim: dmodk configured the 7 switches (no fallback)" \
	sh -c "grep -q 'dmodk: tables configured by ibfab: 7 switches' '$S2/opensm.log' && grep -q 'dmodk tables configured on all switches' '$S2/opensm.log'"
# offline on the fabric as discovered (ibsim's GUIDs order the leaves, so
# the hosts' D-mod-K indices and the count differ from the dump's)
r=$(rc "$IBFAB" route --topology "$S2/net.ibnd" --engine dmodk -v -o "$W/p2sim.dump")
P2SIM=$(sed -n 's/.*TS-i12k00066a00e30076ab (level 1) has 11 of 12 up-port cables (missing slot 10); \([0-9]*\) destination LIDs moved off them.*/\1/p' "$W/err")
check "plafrim2 in ibsim: the log names the missing cable and the same ${P2SIM:-?} LIDs (> 0) as dmodk -v offline on the discovered fabric" \
	sh -c "test $r = 0 && test '${P2SIM:-0}' -gt 0 && grep -q 'TS-i12k00066a00e30076ab (level 1) has 11 of 12 up-port cables (missing slot 10); ${P2SIM:-x} destination LIDs' '$S2/opensm.log'"
r=$(rc "$IBFAB" route diff --topology "$S2/net.ibnd" --lfts "$S2/lfts.txt" --lfts2 "$W/p2sim.dump")
check "plafrim2 in ibsim: the tables read back are the offline dmodk tables" \
	sh -c "test $r = 0"
r=$(rc "$IBFAB" route check --topology "$S2/net.ibnd" --lfts "$S2/lfts.txt")
check "plafrim2 in ibsim: route check of the dmodk tables read back: all pairs, no loop" \
	sh -c "test $r = 0 && grep -q '^loops: *0\$' '$W/out' && grep -q '^unreachable: *0\$' '$W/out'"
# the Sun DCS 36 with one host: route congestion had no flow to count and
# printed "worst max link load 0 (shift 0)", 100/100 permutations at their
# bound, exit 0 (sim flow already refused a pattern on one rank)
for o in "" "--json"; do
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" route congestion --topology "$R/qdr-sun-dcs36-1switch-1host.ibnetdiscover" \
		--engine minimal $o)
	check "one host: route congestion $o exits 1 with nothing on stdout" \
		sh -c "test $r = 1 && test ! -s '$W/out' && grep -q '1 host port(s) cabled to a switch: a pattern needs at least 2' '$W/err'"
done
done_testing
