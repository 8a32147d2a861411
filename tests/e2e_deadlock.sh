#!/usr/bin/env bash
# End to end: deadlock freedom on a live (simulated) fabric, checked by the
# independent verifier from what the fabric gives back.
#  - Slim Fly q=5 (50 switches, 200 hosts), OpenSM 3.3.23 + the ibfab plugin,
#    routing_engine layered, lmc 2, qos TRUE, once with `deadlock dfsssp` and
#    once with `deadlock coloring`.  OpenSM runs in the background (the SA
#    must answer), and we read back: the LFTs (dump_lfts), the SL2VL tables
#    of every switch-to-switch out port (smpquery sl2vl LID PORT: ibsim
#    stores what OpenSM set), and the SL of every (source LID, destination
#    LID) pair of distinct ports from the SA (SubnAdmGet PathRecord with
#    SLID|DLID, the query `saquery -p --slid S --dlid D` makes, batched by
#    tests/sa_pathsl.c so 700k pairs take a minute, not hours).  `ibfab
#    deadlock verify` must find zero cycles and no missing SL; it reports
#    the VLs used.  The same live tables with every VL forced to 0 must be
#    cyclic (the check is not vacuous).
#  - a 4 x 4 torus the same way with `deadlock auto`;
#  - a 4-ary 3-tree routed by dmodk with `deadlock dfsssp` and `max_vls 1`:
#    deadlock-free on one VL, and D-mod-K's host paths kept (contention-free);
#  - a ring of 5 switches routed by stock minhop without QoS: the verifier
#    finds the cycle in the tables read back, and `ibfab deadlock apply`
#    (dfsssp) on them needs 2 layers and verifies clean;
#  - stock OpenSM dfsssp on a 5 x 4 torus: its host paths verify clean (any
#    cycle the verifier finds must need a path from or to a switch port 0,
#    which dfsssp skips on ibsim's switches).
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts smpquery
mk_workdir
need_sa_pathsl

# ------------------------------------------------------------------ Slim Fly q=5
"$IBFAB" topo gen slimfly --q 5 --format ibsim -o "$WORK/sf5.net"
check "generate Slim Fly q=5 (ibsim net)" test -s "$WORK/sf5.net"
opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
osm_conf "$WORK/opensm.default.conf" layered 2 "$WORK/opensm-qos.conf" -e 's|^qos .*|qos TRUE|'
check "opensm.conf: layered, lmc 2, qos TRUE, unicast cache off" \
	grep -q '^qos TRUE' "$WORK/opensm-qos.conf"

# live SCHEME [NET [DIRNAME [OSMCONF [MORE]]]]: opensm (background) + plugin on
# NET (the Slim Fly by default) with OSMCONF (layered, lmc 2, qos), MORE
# further ibfab.conf lines, then read everything back into $WORK/DIRNAME/sim
live() {
	local scheme=$1 net=${2:-$WORK/sf5.net} dir="$WORK/${3:-$1}" osm=${4:-$WORK/opensm-qos.conf}
	mkdir -p "$dir"
	printf 'deadlock %s\n%s\n' "$scheme" "${5:-}" >"$dir/ibfab.conf"
	env IBFAB_CONF="$dir/ibfab.conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$net" "$dir/sim" -- bash -c '
		. "$1"
		osm_up_read_tables "$0"
	' "$osm" "$top_srcdir/tests/lib.sh" 2>&1 | diag
	return "${PIPESTATUS[0]}"
}

for scheme in dfsssp coloring; do
	d="$WORK/$scheme/sim"
	live "$scheme"
	check "$scheme: opensm + plugin ran, tables, SL2VL and SLs read back" test $? -eq 0
	grep -E 'ibfab layered|tables configured|SUBNET UP' "$d/opensm.log" |
		sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | diag
	check "$scheme: the plugin applied the scheme" grep -qF "ibfab layered: deadlock $scheme: " "$d/opensm.log"
	check "$scheme: layered tables configured by ibfab (no fallback)" \
		grep -q "layered: tables configured by ibfab: 50 switches, 850 LIDs" "$d/opensm.log"
	check "$scheme: SA answered every pair ($(wc -l <"$d/sl.txt" 2>/dev/null) of $(wc -l <"$d/pairs" 2>/dev/null))" \
		test -s "$d/sl.txt" -a "$(wc -l <"$d/sl.txt")" -eq "$(wc -l <"$d/pairs")"
	check "$scheme: $(wc -l <"$d/swports") switch-to-switch SL2VL tables read back" \
		test "$(grep -c '^# SL2VL table: Lid' "$d/sl2vl.txt")" -eq 350
	check "$scheme: OpenSM programmed them (not ibsim's default SL2VL)" \
		bash -c "! grep -q '| 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|' '$d/sl2vl.txt'"
	"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
		--sl2vl "$d/sl2vl.txt" >"$d/verify.txt" 2>&1
	rc=$?
	diag <"$d/verify.txt"
	check "$scheme: verifier on the live tables: deadlock-free (exit $rc)" test $rc -eq 0
	check "$scheme: zero cycles" grep -q '^cycles: *0 cyclic' "$d/verify.txt"
	check "$scheme: no SL missing" grep -q '^missing SL: *0 ' "$d/verify.txt"
	vls=$(sed -n 's/^VLs used: *//p' "$d/verify.txt")
	check "$scheme: VLs used reported ($vls)" test -n "$vls"
	"$IBFAB" deadlock verify -q --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
		--sl2vl-identity 1
	check "$scheme: the same routes on one VL are cyclic (exit 1)" test $? -eq 1
done
check "coloring: 3 buckets on 8 VLs" grep -q 'SL2VL buckets by hop position on 8 VLs' "$WORK/coloring/sim/opensm.log"

# ------------------------------------------------------------------ layered on a torus, live
# a 4 x 4 torus (topo gen torus, 2 hosts per switch): layered routes with
# LMC 2 close credit loops around the rings; deadlock auto under stock
# OpenSM, and the verifier on what the fabric holds
"$IBFAB" topo gen torus --dims 4,4 --hosts 2 --format ibsim -o "$WORK/tor44.net"
live auto "$WORK/tor44.net" tor-auto
check "torus 4 x 4, deadlock auto: opensm + plugin ran, tables, SL2VL and SLs read back" test $? -eq 0
d="$WORK/tor-auto/sim"
grep -E 'ibfab layered: deadlock|tables configured' "$d/opensm.log" |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-200 | diag
# auto: the colouring needs paths of at most 3 hops, layered's layers >= 1
# take 4 on this torus, so the choice is dfsssp
check "torus: layered tables configured by ibfab (16 switches, 144 LIDs), auto chose dfsssp" \
	sh -c "grep -q 'layered: tables configured by ibfab: 16 switches, 144 LIDs' '$d/opensm.log' &&
		grep -q 'ibfab layered: deadlock dfsssp: .*deadlock-free.*auto: coloring preconditions failed' '$d/opensm.log'"
"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
	--sl2vl "$d/sl2vl.txt" >"$d/verify.txt" 2>&1
rc=$?
grep -E '^(VLs used|cycles|missing SL|result)' "$d/verify.txt" | diag
check "torus: verifier on the live tables: deadlock-free, no SL missing (exit $rc)" \
	sh -c "test $rc -eq 0 && grep -q '^cycles: *0 cyclic' '$d/verify.txt' && grep -q '^missing SL: *0 ' '$d/verify.txt'"
"$IBFAB" deadlock verify -q --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
	--sl2vl-identity 1
check "torus: the same routes on one VL are cyclic (exit 1)" test $? -eq 1

# ------------------------------------------------------------------ D-mod-K on a fat tree, one VL
# dfsssp within 1 VL: the only layer is the escape layer, ranked from a leaf,
# so D-mod-K's up-then-down host paths stay as routed (contention-free on
# every shift) and only switch LIDs are rerouted; ranked from a spine (as
# before 2026-11-27) the host paths were rewritten too (worst shift 10)
"$IBFAB" topo gen fattree --kary 4 --n 3 --format ibsim -o "$WORK/k43.net"
osm_conf "$WORK/opensm.default.conf" dmodk 0 "$WORK/opensm-dmodk.conf" -e 's|^qos .*|qos TRUE|'
live dfsssp "$WORK/k43.net" k43-1vl "$WORK/opensm-dmodk.conf" 'max_vls 1'
check "4-ary 3-tree, dmodk, dfsssp on 1 VL: opensm + plugin ran, tables read back" test $? -eq 0
d="$WORK/k43-1vl/sim"
grep -E 'ibfab dmodk: deadlock|tables configured' "$d/opensm.log" |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-300 | diag
check "4-ary 3-tree, 1 VL: dmodk tables configured by ibfab, dfsssp fitted them into 1 VL" \
	sh -c "grep -q 'dmodk: tables configured by ibfab' '$d/opensm.log' &&
		grep -q 'ibfab dmodk: deadlock dfsssp: .*deadlock-free.*within 1 VLs' '$d/opensm.log'"
"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl-const 0 \
	--sl2vl-identity 1 >"$d/verify.txt" 2>&1
rc=$?
grep -E '^(cycles|result)' "$d/verify.txt" | diag
check "4-ary 3-tree, 1 VL: the tables the switches hold are deadlock-free on one VL (exit $rc)" \
	test $rc -eq 0
w=$("$IBFAB" route congestion --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --pattern shift \
	--json 2>/dev/null | sed -n 's/.*"shift": {"count": [0-9]*, "worst": \([0-9]*\),.*/\1/p')
check "4-ary 3-tree, 1 VL: D-mod-K's host paths kept, every shift contention-free (worst ${w:-?})" \
	test "${w:-0}" = 1

# ------------------------------------------------------------------ minhop on a ring
{
	for i in 1 2 3 4 5; do
		n=$((i % 5 + 1)) p=$(((i + 3) % 5 + 1))
		printf 'Switch 8 "r%d"\n[1] "r%d"[2]\n[2] "r%d"[1]\n[3] "h%d"[1]\n\n' "$i" "$n" "$p" "$i"
	done
	for i in 1 2 3 4 5; do
		printf 'Hca 1 "h%d"\n[1] "r%d"[3]\n\n' "$i" "$i"
	done
} >"$WORK/ring5.net"
"$HARNESS" with "$WORK/ring5.net" "$WORK/ring/sim" -- bash -c '
	. "$0"
	d=$IBFAB_SIM_DIR
	opensm_once "$d" -R minhop || { echo "opensm failed"; tail -5 "$d/opensm.out"; exit 1; }
	ibsim-run ibnetdiscover >"$d/net.ibnd" 2>/dev/null || exit 2
	ibsim-run dump_lfts 2>/dev/null | grep -v "replaced by dump_fts" >"$d/lfts.txt" || exit 3
' "$top_srcdir/tests/lib.sh" 2>&1 | diag
check "ring of 5: minhop tables read back" test "${PIPESTATUS[0]}" -eq 0
d="$WORK/ring/sim"
"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl-const 0 \
	--sl2vl-identity 1 >"$d/verify.txt" 2>&1
rc=$?
diag <"$d/verify.txt"
check "ring of 5, minhop, one VL: verifier finds the cycle (exit $rc)" test $rc -eq 1
check "ring of 5: the cycle is reported with the paths that close it" grep -q 'by path' "$d/verify.txt"
"$IBFAB" deadlock apply --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --scheme dfsssp --verify \
	>"$d/apply.txt" 2>&1
rc=$?
diag <"$d/apply.txt"
check "ring of 5: dfsssp on the read-back tables needs 2 layers" grep -q '2 virtual layer' "$d/apply.txt"
check "ring of 5: and verifies deadlock-free (exit $rc)" test $rc -eq 0

# ------------------------------------------------------------------ minhop on a generated torus
# 5 x 4 torus (topo gen torus), stock minhop: cyclic on one VL; dfsssp on
# the tables read back breaks the cycles and verifies
"$IBFAB" topo gen torus --dims 5,4 --hosts 2 --format ibsim -o "$WORK/tor54.net"
"$HARNESS" with "$WORK/tor54.net" "$WORK/tor/sim" -- bash -c '
	. "$0"
	d=$IBFAB_SIM_DIR
	opensm_once "$d" -R minhop || { echo "opensm failed"; tail -5 "$d/opensm.out"; exit 1; }
	ibsim-run ibnetdiscover >"$d/net.ibnd" 2>/dev/null || exit 2
	ibsim-run dump_lfts 2>/dev/null | grep -v "replaced by dump_fts" >"$d/lfts.txt" || exit 3
' "$top_srcdir/tests/lib.sh" 2>&1 | diag
check "torus 5 x 4: minhop tables read back" test "${PIPESTATUS[0]}" -eq 0
d="$WORK/tor/sim"
"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl-const 0 \
	--sl2vl-identity 1 >"$d/verify.txt" 2>&1
rc=$?
grep -E '^(cycles|result)' "$d/verify.txt" | diag
check "torus 5 x 4, minhop, one VL: verifier finds cycles (exit $rc)" test $rc -eq 1
"$IBFAB" deadlock apply --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --scheme dfsssp --verify \
	--sl "$d/tor.sl" --sl2vl "$d/tor.sl2vl" >"$d/apply.txt" 2>&1
rc=$?
grep -E 'virtual layer|^result' "$d/apply.txt" | diag
check "torus 5 x 4: dfsssp on the read-back tables verifies deadlock-free (exit $rc)" \
	sh -c "test $rc -eq 0 && grep -q '^result: *deadlock-free' '$d/apply.txt'"

# ------------------------------------------------------------------ stock dfsssp on the same torus
# OpenSM's own dfsssp (QoS on) leaves out the paths from and to a switch
# port 0 without SL-to-VL mapping support (ibsim's switches): the verifier,
# which walks every path, may find cycles, and must then say that the paths
# between end ports alone have none
osm_conf "$WORK/opensm.default.conf" dfsssp 0 "$WORK/opensm-stock-dfsssp.conf" -e 's|^qos .*|qos TRUE|'
env LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	"$HARNESS" with "$WORK/tor54.net" "$WORK/tor-dfsssp/sim" -- bash -c '
	. "$1"
	osm_up_read_tables "$0"
' "$WORK/opensm-stock-dfsssp.conf" "$top_srcdir/tests/lib.sh" 2>&1 | diag
check "torus 5 x 4, stock dfsssp: tables, SL2VL and SLs read back" test "${PIPESTATUS[0]}" -eq 0
d="$WORK/tor-dfsssp/sim"
check "torus 5 x 4: OpenSM's dfsssp routed it" grep -q 'dfsssp_remove_deadlocks: Virtual Lanes needed' "$d/opensm.log"
"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
	--sl2vl "$d/sl2vl.txt" >"$d/verify.txt" 2>&1
rc=$?
grep -E '^(cycles|between|result)' "$d/verify.txt" | diag
check "torus 5 x 4, stock dfsssp: deadlock-free, or cyclic only through the switches' own paths (exit $rc)" \
	sh -c "test $rc -eq 0 && grep -q '^cycles: *0 cyclic' '$d/verify.txt' ||
	       grep -q '^between end ports: *no cycle' '$d/verify.txt'"

done_testing
