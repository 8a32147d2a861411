#!/usr/bin/env bash
# Mixed generations end to end: a 4 x 4 torus (2 hosts per switch) whose
# switches differ in radix (6, 12, 36 ports), device id and rate (EDR, FDR,
# one QDR switch with QDR hosts), one host with a second port on another
# switch, and one host cable trained at 1x (tests/fixtures/mixed-torus.awk).
#  - offline and from what ibnetdiscover finds under ibsim: only the 1x cable
#    is degraded (older hardware at its own rate is not); every engine's
#    tables with deadlock auto on 2 VLs pass route check and the verifier;
#  - live: stock OpenSM with the plugin (layered, deadlock auto, qos TRUE),
#    with max_op_vls giving 2 data VLs, then 1 (ibsim gives every port the
#    same VLCap, so OpenSM's cap stands in for the smallest one): the tables
#    are configured by ibfab, every pair is reachable in what dump_lfts reads
#    back, every switch-to-switch SL2VL entry the switches hold is below the
#    VLs there are, and the verifier finds the live tables deadlock-free on
#    that many VLs.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts smpquery
mk_workdir
need_sa_pathsl

"$IBFAB" topo gen torus --dims 4,4 --hosts 2 --format ibsim -o "$WORK/tor.net"
awk -f "$FIXTURES/mixed-torus.awk" "$WORK/tor.net" >"$WORK/mixed.net"
check "mixed net file: 36- and 12-port switches, FDR and QDR lines, a 2-port host" sh -c "
	test \$(grep -c '^Switch	36 ' '$WORK/mixed.net') -eq 4 &&
	test \$(grep -c '^Switch	12 ' '$WORK/mixed.net') -eq 4 &&
	grep -q '4xFDR\$' '$WORK/mixed.net' && grep -q '4xQDR\$' '$WORK/mixed.net' &&
	grep -q '^Ca	2 \"tor-00-00-h00\"' '$WORK/mixed.net'"

# the one degraded link, offline and as discovered
degraded_only_1x() {
	"$IBFAB" topo info "$1" >"$1.info" 2>&1
	grep -q '^degraded links:  1$' "$1.info" &&
		grep -qE '^  degraded: tor-00-00 port 2 <-> tor-00-00-h01 port 1 runs at 1xEDR, expected 4xEDR' "$1.info"
}
check "offline: only the 1x host cable is degraded" degraded_only_1x "$WORK/mixed.net"
diag <"$WORK/mixed.net.info"

# every engine offline: all pairs delivered, and deadlock auto on 2 VLs
# verified by the independent checker
for e in minimal layered dmodk hratio; do
	"$IBFAB" route --topology "$WORK/mixed.net" --engine "$e" --deadlock auto --max-vls 2 \
		--verify -o "$WORK/off-$e.lfts" >"$WORK/off-$e.txt" 2>&1
	rc=$?
	"$IBFAB" route check -q --topology "$WORK/mixed.net" --lfts "$WORK/off-$e.lfts" \
		>"$WORK/off-$e-check.txt" 2>&1
	check "offline $e: deadlock auto on 2 VLs verified (exit $rc), route check clean" \
		sh -c "test $rc -eq 0 && grep -q '^unreachable: *0$' '$WORK/off-$e-check.txt'"
done

opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
# live VLS: opensm (background) + plugin on the mixed fabric with max_op_vls
# giving VLS data VLs, then everything read back into $WORK/vlVLS/sim
live() {
	local vls=$1 cap
	case $vls in 1) cap=1 ;; 2) cap=2 ;; 4) cap=3 ;; 8) cap=4 ;; *) return 1 ;; esac
	local dir="$WORK/vl$vls"
	mkdir -p "$dir"
	osm_conf "$WORK/opensm.default.conf" layered 0 "$dir/opensm.conf" \
		-e 's|^qos .*|qos TRUE|' -e "s|^max_op_vls .*|max_op_vls $cap|"
	grep -q "^max_op_vls $cap\$" "$dir/opensm.conf" || return 1
	printf 'deadlock auto\n' >"$dir/ibfab.conf"
	env IBFAB_CONF="$dir/ibfab.conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$WORK/mixed.net" "$dir/sim" -- bash -c '
		. "$1"
		osm_up_read_tables "$0"
	' "$dir/opensm.conf" "$top_srcdir/tests/lib.sh" 2>&1 | diag
	return "${PIPESTATUS[0]}"
}

for vls in 2 1; do
	d="$WORK/vl$vls/sim"
	live $vls
	check "$vls VL(s): opensm + plugin ran, tables, SL2VL and SLs read back" test $? -eq 0
	grep -E 'ibfab layered|tables configured' "$d/opensm.log" |
		sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-200 | diag
	if [ $vls = 2 ]; then
		check "discovered: only the 1x host cable is degraded" degraded_only_1x "$d/net.ibnd"
		check "discovered: the links run at their mixed rates (FDR, QDR, 1x)" sh -c "
			grep -q '4xFDR' '$d/net.ibnd' && grep -q '4xQDR' '$d/net.ibnd' && grep -q '1xEDR' '$d/net.ibnd'"
	fi
	check "$vls VL(s): layered tables configured by ibfab (16 switches, 49 LIDs), no fallback" \
		sh -c "grep -q 'layered: tables configured by ibfab: 16 switches, 49 LIDs' '$d/opensm.log' &&
			! grep -q 'routing failed' '$d/opensm.log'"
	check "$vls VL(s): the deadlock scheme ran on $vls VL(s)" \
		grep -qE "ibfab layered: deadlock [a-z]+: .* on $vls VLs?, .*deadlock-free" "$d/opensm.log"
	"$IBFAB" route check -q --topology "$d/net.ibnd" --lfts "$d/lfts.txt" >"$d/check.txt" 2>&1
	rc=$?
	check "$vls VL(s): every pair reachable in the tables read back (exit $rc)" \
		sh -c "test $rc -eq 0 && grep -q '^unreachable: *0$' '$d/check.txt'"
	check "$vls VL(s): $(wc -l <"$d/swports") switch-to-switch SL2VL tables read back" \
		test "$(grep -c '^# SL2VL table: Lid' "$d/sl2vl.txt")" -eq 64
	# rows "ports: in  I, out  O: |  0|  1| ... |": every VL below $vls
	check "$vls VL(s): every switch-to-switch SL2VL entry is below VL $vls" sh -c "
		awk -v V=$vls '/^#/ { next } /\|/ { n = split(\$0, f, \"|\"); for (i = 2; i < n; i++) { v = f[i]; gsub(/ /, \"\", v); if (v != \"\" && v + 0 >= V) bad++ } } END { exit bad > 0 }' '$d/sl2vl.txt'"
	"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
		--sl2vl "$d/sl2vl.txt" --max-vls $vls >"$d/verify.txt" 2>&1
	rc=$?
	grep -E '^(VLs used|cycles|missing SL|result)' "$d/verify.txt" | diag
	check "$vls VL(s): verifier on the live tables: deadlock-free, no SL missing (exit $rc)" \
		sh -c "test $rc -eq 0 && grep -q '^cycles: *0 cyclic' '$d/verify.txt' && grep -q '^missing SL: *0 ' '$d/verify.txt'"
done

done_testing
