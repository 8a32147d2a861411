#!/usr/bin/env bash
# End to end, beside tests/e2e_hratio.sh: hratio in a stock OpenSM 3.3.23
# (our plugin) on ibsim rail fabrics, checked with `ibfab rail check` on the
# tables read back with dump_lfts (docs/rail.md).
#  - rail-only, 16 servers x 8 GPUs: one OpenSM per rail, as a rail-only
#    cluster runs them (each started on a GPU of its rail through umad2sim's
#    SIM_HOST); each sees its rail only and delivers every pair of it in one
#    switch;
#  - rail-optimized, 32 servers x 8 GPUs, 4 spines with 2 cables from every
#    rail switch to every spine, LMC 2: same-rail pairs stay in the rail,
#    cross-rail paths evenly over the spines, the 4 LMC layers of every
#    cross-rail pair on 4 different spines (bundles: the parent-major layer
#    offsets of dmodk), every shift at the cut bound, the offline tables,
#    deadlock-free on one VL.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
"$IBFAB" route --help 2>/dev/null | grep -q hratio || skip_all "ibfab has no hratio engine"
mk_workdir

opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
check "opensm -c writes a default opensm.conf" grep -q "^event_plugin_name" "$WORK/opensm.default.conf"
osm_conf "$WORK/opensm.default.conf" hratio 0 "$WORK/lmc0.conf"
osm_conf "$WORK/opensm.default.conf" hratio 2 "$WORK/lmc2.conf"
echo '# defaults' >"$WORK/empty.conf"
export IBFAB_CONF="$WORK/empty.conf"
export LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ------------------------------------------------------------------ rail-only

"$IBFAB" topo gen rail --servers 16 --gpus 8 --format ibsim -o "$WORK/ro.net" >/dev/null 2>&1
check "generate rail-only 16 x 8 (8 rail switches, no spine)" test -s "$WORK/ro.net"
# one sweep per rail, from GPU r of server 2r (so the SM moves between servers)
"$HARNESS" with "$WORK/ro.net" "$WORK/ro-sim" -- bash -c '
	. "$0"
	for r in 0 1 2 3 4 5 6 7; do
		d=$IBFAB_SIM_DIR/rail$r
		mkdir -p "$d"
		export SIM_HOST="srv$(printf %03d $((2 * r))) mlx5_$r"
		opensm_once "$d" -F "$1" || { echo "rail $r: opensm failed"; tail -5 "$d/opensm.out"; exit 1; }
		ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || exit 2
		ibsim-run dump_lfts 2>"$d/lfts.err" | grep -v "replaced by dump_fts" >"$d/dump.txt" || exit 3
	done
' "$top_srcdir/tests/lib.sh" "$WORK/lmc0.conf" 2>&1 | diag
check "rail-only: ibsim + 8 OpenSM sweeps (hratio plugin) + dump_lfts ran" test "${PIPESTATUS[0]}" -eq 0
for r in 0 1 2 3 4 5 6 7; do
	d=$WORK/ro-sim/rail$r
	nca=$(grep -c '^Ca' "$d/net.ibnd" 2>/dev/null)
	nsw=$(grep -c '^Switch' "$d/net.ibnd" 2>/dev/null)
	gpus=$(grep "^Ca" "$d/net.ibnd" 2>/dev/null | grep -c "mlx5_$r\"")
	check "rail $r: the SM sees its rail only (${nca:-0} CAs, all mlx5_$r; ${nsw:-0} switch)" \
		test "${nca:-0}" -eq 16 -a "${gpus:-0}" -eq 16 -a "${nsw:-0}" -eq 1
	check "rail $r: OpenSM used hratio" grep -q "hratio tables configured on all switches" "$d/opensm.log"
	"$IBFAB" rail check "$d/net.ibnd" --lfts "$d/dump.txt" >"$d/rail.txt" 2>&1
	rc=$?
	check "rail $r: 240 same-rail GPU pairs delivered in one switch, read back (exit $rc)" \
		grep -q "^same rail:  240 paths, 0 not delivered, 0 of 240 confinable left the rail, longest 0 switch hops" "$d/rail.txt"
	[ "$r" -eq 0 ] && diag <"$d/rail.txt"
done
# ------------------------------------------------------------------ rail-optimized

"$IBFAB" topo gen rail --servers 32 --gpus 8 --spines 4 --uplinks 2 --format ibsim -o "$WORK/opt.net" >/dev/null 2>&1
check "generate rail-optimized 32 x 8 with 4 spines x 2 cables" test -s "$WORK/opt.net"
"$HARNESS" with "$WORK/opt.net" "$WORK/opt-sim" -- bash -c '
	. "$0"
	d=$IBFAB_SIM_DIR
	opensm_once "$d" -F "$1" || { echo "opensm failed"; tail -5 "$d/opensm.out"; exit 1; }
	ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || exit 2
	ibsim-run dump_lfts 2>"$d/lfts.err" | grep -v "replaced by dump_fts" >"$d/dump.txt" || exit 3
' "$top_srcdir/tests/lib.sh" "$WORK/lmc2.conf" 2>&1 | diag
check "rail-optimized: ibsim + OpenSM (hratio, lmc 2) + dump_lfts ran" test "${PIPESTATUS[0]}" -eq 0
d=$WORK/opt-sim
check "rail-optimized: OpenSM used hratio" grep -q "hratio tables configured on all switches" "$d/opensm.log"
"$IBFAB" route check --topology "$d/net.ibnd" --lfts "$d/dump.txt" >"$d/check.txt" 2>&1
check "rail-optimized: every (source, LID) pair routed, no loop (exit $?)" grep -q '^loops: *0$' "$d/check.txt"
"$IBFAB" rail check "$d/net.ibnd" --lfts "$d/dump.txt" >"$d/rail.txt" 2>&1
rc=$?
diag <"$d/rail.txt"
check "rail-optimized: rail check passes (exit $rc)" test "$rc" -eq 0
check "rail-optimized: no same-rail path leaves its rail" \
	grep -q "^same rail:  31744 paths, 0 not delivered, 0 of 31744 confinable left the rail, longest 0" "$d/rail.txt"
check "rail-optimized: cross-rail paths evenly over the 4 spines" \
	grep -q "^spines: 4, cross-rail paths per spine min 55552 max 55552" "$d/rail.txt"
check "rail-optimized: the 4 LMC layers of every cross-rail pair on 4 spines" \
	grep -q "^lmc: 55552 of 55552 " "$d/rail.txt"
"$IBFAB" route congestion --topology "$d/net.ibnd" --lfts "$d/dump.txt" --pattern shift --layer all \
	--json >"$d/cong.json" 2>"$d/cong.err"
check "rail-optimized: every flow of every shift delivered" test -s "$d/cong.json"
"$IBFAB" route congestion --topology "$d/net.ibnd" --lfts "$d/dump.txt" --pattern shift --layer all \
	2>&1 | grep -E "^layer|shifts:|bound" | diag
nat=$("$IBFAB" route congestion --topology "$d/net.ibnd" --lfts "$d/dump.txt" --pattern shift \
	--layer all 2>/dev/null | grep -c "255/255 instances at their bound")
check "rail-optimized: every shift of every layer at its cut bound ($nat of 4 layers)" test "${nat:-0}" -eq 4
"$IBFAB" route -q --topology "$d/net.ibnd" --engine hratio -o "$d/offline.dump" 2>"$d/offline.err"
"$IBFAB" route diff --topology "$d/net.ibnd" --lfts "$d/dump.txt" --lfts2 "$d/offline.dump" \
	>"$d/diff.txt" 2>&1
rc=$?
diag <"$d/diff.txt"
check "rail-optimized: tables read back = offline ibfab route --engine hratio (exit $rc)" \
	test "$rc" -eq 0
"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/dump.txt" --sl-const 0 \
	--sl2vl-identity 1 >"$d/dl.txt" 2>&1
check "rail-optimized: the read-back tables are deadlock-free on one VL (up/down)" \
	grep -q "^result: *deadlock-free" "$d/dl.txt"

done_testing
