#!/usr/bin/env bash
# End to end: the dmodk engine inside a stock OpenSM 3.3.23 (our plugin) on
# ibsim fat trees.
#  - a 2-level fat tree, 8 leaves x 8 hosts, 4 spines, 2 cables per
#    leaf-spine pair (64 hosts): routing_engine dmodk with lmc 0 and lmc 1;
#    the tables read back from the switches (dump_lfts) route every pair, are
#    equal to the offline `ibfab route --engine dmodk` on the discovered
#    fabric (same LIDs), and every shift is contention-free in every layer;
#  - OpenSM's own ftree and minhop on the same fabric, and all three on the
#    4-ary 3-tree: the worst link load over all shifts of each, from their
#    dumps (TAP diagnostics; dmodk must be contention-free);
#  - the same tree with switch names a real fabric would have (no generator
#    names), one leaf-spine cable missing and a host on a spine: dmodk routes
#    every pair, says what it remapped, and the congestion report shows the
#    extra load;
#  - a damaged tree with uneven bundles (every leaf 3 cables to one spine, 2
#    to the other: 12 hosts over 5 up-cables) and a dual-port host on a
#    spine: dmodk reaches the leaf-cut bound and is no worse than stock
#    minhop, both read back from the switches;
#  - a 3-level tree with a service leaf on the core, and one with three
#    hosts on a top switch: dmodk recognises them (the log names the
#    switch), routes every pair as offline, and is no worse than minhop;
#  - a damaged 3-level tree (4 cables cut) with two hosts on a level-2
#    switch, where the leaf repair and the path balance run: the tables read
#    back are the offline ones at LMC 0 and 1.
. "$(dirname "$0")/lib.sh"
need_sim
command -v dump_lfts >/dev/null 2>&1 || skip_all "dump_lfts not installed (infiniband-diags)"
need_plugin
"$IBFAB" route --help 2>/dev/null | grep -q dmodk || skip_all "ibfab has no dmodk engine"
mk_workdir

# ------------------------------------------------------------------ inputs

"$IBFAB" topo gen fattree --m 8,8 --w 1,4 --parallel 2 --switch-ports 24 --format ibsim \
	-o "$WORK/ft.net" >/dev/null 2>&1
check "generate a 2-level fat tree (8 leaves x 8 hosts, 4 spines x 2 cables)" test -s "$WORK/ft.net"

# irregular: real-looking names, leaf 2 loses its first cable to spine 1,
# a host on spine 3 (spare port 17)
awk '
	/^Switch/ { sw = $3 }
	sw == "\"ft-l1-s0002\"" && /^\[11\]/ { next }
	sw == "\"ft-l2-s0001\"" && /^\[5\]/ { next }
	{ print }
	sw == "\"ft-l2-s0003\"" && /^Switch/ { print "[17]\t\"spinehost\"[1]" }
	END {
		print ""
		print "vendid=0x2c9"
		print "devid=0x1017"
		print "sysimgguid=0x2c901000ff000"
		print "caguid=0x2c901000ff000"
		print "Ca\t1 \"spinehost\""
		print "[1]\t\"ft-l2-s0003\"[17]"
	}' "$WORK/ft.net" | sed -e 's/ft-l1-s000\([0-9]\)/leaf0\1/g' -e 's/ft-l2-s000\([0-9]\)/spine0\1/g' \
	-e 's/ft-h000\([0-9][0-9]\)/node\1/g' >"$WORK/irr.net"
# uneven bundles: 6 leaves x 12 hosts, 3 cables to each of 2 spines; the
# third cable of every leaf to spine 1 removed (leaf port 18 = spine 1 port
# 3i+3), a dual-port host on spine 0 ports 20 and 21; real-looking names
"$IBFAB" topo gen fattree --m 12,6 --w 1,2 --parallel 3 --switch-ports 24 --format ibsim \
	-o "$WORK/ub0.net" >/dev/null 2>&1
awk '
	/^Switch/ { sw = $3 }
	sw ~ /ft-l1-/ && /^\[18\]/ { next }
	sw == "\"ft-l2-s0001\"" && /^\[(3|6|9|12|15|18)\]/ { next }
	{ print }
	sw == "\"ft-l2-s0000\"" && /^Switch/ { print "[20]\t\"dualhost\"[1]"; print "[21]\t\"dualhost\"[2]" }
	END {
		print ""
		print "vendid=0x2c9"
		print "devid=0x1003"
		print "sysimgguid=0x2c901000fe000"
		print "caguid=0x2c901000fe000"
		print "Ca\t2 \"dualhost\""
		print "[1]\t\"ft-l2-s0000\"[20]"
		print "[2]\t\"ft-l2-s0000\"[21]"
	}' "$WORK/ub0.net" | sed -e 's/ft-l1-s000\([0-9]\)/leaf0\1/g' -e 's/ft-l2-s000\([0-9]\)/spine0\1/g' \
	-e 's/ft-h000\([0-9][0-9]\)/node\1/g' >"$WORK/ub.net"
check "uneven-bundle variant: 6 cables fewer, a dual-port host on a spine" \
	test "$(grep -c '^\[' "$WORK/ub.net")" -eq $(( $(grep -c '^\[' "$WORK/ub0.net") - 12 + 4 ))
check "irregular variant: one cable fewer, a host on a spine" \
	test "$(grep -c '^\[' "$WORK/irr.net")" -eq $(( $(grep -c '^\[' "$WORK/ft.net") - 2 + 2 ))

opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
check "opensm -c writes a default opensm.conf" grep -q "^event_plugin_name" "$WORK/opensm.default.conf"
# mkconf ENGINE LMC OUT
mkconf() { osm_conf "$WORK/opensm.default.conf" "$1" "$2" "$3"; }
echo '# defaults' >"$WORK/empty.conf"

# run NAME NET CONF: one sweep, tables read back, fabric discovered
run() {
	local name=$1 net=$2 conf=$3
	mkdir -p "$WORK/$name"
	env IBFAB_CONF="$WORK/empty.conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$net" "$WORK/$name/sim" -- bash -c '
		. "$0"
		d=$IBFAB_SIM_DIR
		opensm_once "$d" -F "$1" || { echo "opensm failed ($?)"; tail -20 "$d/opensm.out"; exit 1; }
		ibsim-run dump_lfts >"$d/dump_lfts.raw" 2>"$d/dump_lfts.err" || exit 2
		ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || exit 3
	' "$top_srcdir/tests/lib.sh" "$conf" 2>&1 | diag
	local rc=${PIPESTATUS[0]}
	grep -v 'replaced by dump_fts' "$WORK/$name/sim/dump_lfts.raw" >"$WORK/$name/dump.txt" 2>/dev/null
	cp "$WORK/$name/sim/net.ibnd" "$WORK/$name/net.ibnd" 2>/dev/null
	return "$rc"
}
log_has() { grep -qF -- "$2" "$WORK/$1/sim/opensm.log"; }
show_log() { grep -E 'ibfab|dmodk|tables configured|SUBNET UP|fall|LMC' "$WORK/$1/sim/opensm.log" | sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | head -30 | diag; }

# routed NAME: ibfab route check over the tables read back
routed() {
	route_check_clean "$WORK/$1" --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt"
}
# same_as_offline NAME: offline dmodk on the discovered fabric = tables read back
same_as_offline() {
	"$IBFAB" route --topology "$WORK/$1/net.ibnd" --engine dmodk -o "$WORK/$1/offline.dump" \
		>"$WORK/$1/offline.log" 2>&1 || { diag <"$WORK/$1/offline.log"; return 1; }
	"$IBFAB" route diff --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt" \
		--lfts2 "$WORK/$1/offline.dump" >"$WORK/$1/diff.txt" 2>&1
	local rc=$?
	diag <"$WORK/$1/diff.txt"
	return "$rc"
}
# hosts_routed NAME: every flow of every shift is delivered by the dump
hosts_routed() {
	"$IBFAB" route congestion --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt" \
		--pattern shift >/dev/null 2>&1
}
# worst NAME [LAYER]: worst max link load over all shifts (from the dump)
worst() {
	"$IBFAB" route congestion --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt" \
		--pattern shift --layer "${2:-0}" --json 2>/dev/null |
		sed -n 's/.*"shift": {"count": [0-9]*, "worst": \([0-9]*\),.*/\1/p'
}
cell() {
	"$IBFAB" route congestion --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt" 2>/dev/null |
		sed -n 's/^  cell: //p'
}

# ------------------------------------------------------------------ regular tree

for lmc in 0 1; do
	name=dmodk$lmc
	mkconf dmodk $lmc "$WORK/opensm-$name.conf"
	run $name "$WORK/ft.net" "$WORK/opensm-$name.conf"
	check "lmc $lmc: ibsim + opensm (dmodk plugin) + dump_lfts ran" test $? -eq 0
	show_log $name
	check "lmc $lmc: OpenSM used the dmodk engine" log_has $name "dmodk tables configured on all switches"
	check "lmc $lmc: no fallback to minhop" eval "! log_has $name 'minhop tables configured'"
	check "lmc $lmc: every (source, LID) pair routed, no loop" routed $name
	check "lmc $lmc: tables read back = offline ibfab route --engine dmodk" same_as_offline $name
	for j in $(seq 0 $(( (1 << lmc) - 1 ))); do
		w=$(worst $name $j)
		check "lmc $lmc layer $j: every shift contention-free (worst link load ${w:-?})" test "${w:-0}" = 1
	done
done

for eng in ftree minhop; do
	mkconf $eng 0 "$WORK/opensm-$eng.conf"
	run $eng "$WORK/ft.net" "$WORK/opensm-$eng.conf"
	check "$eng: opensm ran" test $? -eq 0
	check "$eng: OpenSM used $eng" log_has $eng "$eng tables configured on all switches"
	# ftree leaves spine-to-spine switch LIDs unrouted: count host flows only
	check "$eng: every host-to-host flow of every shift delivered" hosts_routed $eng
done
wd=$(worst dmodk0); wf=$(worst ftree); wm=$(worst minhop)
echo "2-level, 8 leaves x 8 hosts, 4 spines x 2 cables: worst link load over all 63 shifts: dmodk $wd, ftree $wf, minhop $wm" | diag
echo "cells (worst/contention-free share/mean max over 100 random perms): dmodk $(cell dmodk0), ftree $(cell ftree), minhop $(cell minhop)" | diag
check "2-level: dmodk is no worse than ftree or minhop" test "${wd:-99}" -le "${wf:-0}" -a "${wd:-99}" -le "${wm:-0}"

# ------------------------------------------------------------------ 4-ary 3-tree

"$IBFAB" topo gen fattree --kary 4 --n 3 --format ibsim -o "$WORK/k43.net" >/dev/null 2>&1
check "generate the 4-ary 3-tree (48 switches, 64 hosts)" test -s "$WORK/k43.net"
for eng in dmodk ftree minhop; do
	mkconf $eng 0 "$WORK/opensm-k43-$eng.conf"
	run k43-$eng "$WORK/k43.net" "$WORK/opensm-k43-$eng.conf"
	check "4-ary 3-tree, $eng: opensm ran, OpenSM used $eng" \
		eval "log_has k43-$eng '$eng tables configured on all switches'"
	check "4-ary 3-tree, $eng: every host-to-host flow of every shift delivered" hosts_routed k43-$eng
done
check "4-ary 3-tree, dmodk: every (source, LID) pair routed, no loop" routed k43-dmodk
check "4-ary 3-tree, dmodk: tables read back = offline dmodk" same_as_offline k43-dmodk
wd=$(worst k43-dmodk); wf=$(worst k43-ftree); wm=$(worst k43-minhop)
echo "4-ary 3-tree: worst link load over all 63 shifts: dmodk $wd, ftree $wf, minhop $wm" | diag
echo "cells: dmodk $(cell k43-dmodk), ftree $(cell k43-ftree), minhop $(cell k43-minhop)" | diag
check "4-ary 3-tree: dmodk contention-free on every shift (worst $wd)" test "${wd:-0}" = 1
check "4-ary 3-tree: minhop is worse (worst $wm)" test "${wm:-0}" -gt 1

# ------------------------------------------------------------------ degraded cables

# two switch cables of the 4-ary 3-tree train at 1x (ibsim reports 1xEDR on
# both ends): D-mod-K gives every up-cable the same share, so a cable at a
# quarter of the rate would carry a full one; dmodk routes them as lost
# (their destinations dealt over the cables left), stock ftree does not look
# at rates.  route congestion's rate-weighted worst (flows x fastest rate /
# link rate) shows the difference.
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=3 -v degrade=2 -v rate=1xEDR \
	"$WORK/k43.net" "$WORK/k43.net" >"$WORK/k43d.net"
check "degraded 4-ary 3-tree: two cables at 1x (4 port lines)" \
	test "$(diff "$WORK/k43.net" "$WORK/k43d.net" | grep -c '^> .*1xEDR')" -eq 4
# wworst NAME: rate-weighted worst over all shifts (route congestion --json)
wworst() {
	"$IBFAB" route congestion --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt" \
		--pattern shift --json 2>/dev/null |
		sed -n 's/.*"rate_weighted": {"worst": \([0-9]*\),.*/\1/p'
}
for eng in dmodk ftree; do
	mkconf $eng 0 "$WORK/opensm-k43d-$eng.conf"
	run k43d-$eng "$WORK/k43d.net" "$WORK/opensm-k43d-$eng.conf"
	check "degraded, $eng: opensm ran, OpenSM used $eng" \
		eval "log_has k43d-$eng '$eng tables configured on all switches'"
	check "degraded, $eng: every host-to-host flow of every shift delivered" hosts_routed k43d-$eng
done
show_log k43d-dmodk
check "degraded, dmodk: the log names the two cables routed as lost" \
	log_has k43d-dmodk "dmodk: 2 switch cable(s) run below half their rate, routed as if lost"
check "degraded, dmodk: every (source, LID) pair routed, no loop" routed k43d-dmodk
check "degraded, dmodk: tables read back = offline dmodk" same_as_offline k43d-dmodk
wd=$(worst k43d-dmodk); wwd=$(wworst k43d-dmodk); wwf=$(wworst k43d-ftree)
echo "degraded 4-ary 3-tree: dmodk worst $wd, rate-weighted $wwd; ftree rate-weighted $wwf" | diag
check "degraded, dmodk: no flow on a 1x cable (rate-weighted worst $wwd = plain worst $wd)" \
	test -n "$wwd" -a "${wwd:-x}" = "${wd:-y}"
check "degraded: dmodk's rate-weighted worst below stock ftree's ($wwd < $wwf)" \
	test "${wwd:-99}" -lt "${wwf:-0}"

# ------------------------------------------------------------------ an older leaf

# leaf 0 is an older switch model (its own device id) whose four up-cables
# run at 4xQDR, what its ports support, in an EDR tree; two other cables
# trained at 1x.  ibsim reports every port as supporting 12X and HDR, and
# the plugin reads no supported values: the QDR cables are compared with
# links between the same two models only, so they are not degraded (had
# leaf 0 the EDR leaves' device id, they would be); only the two 1x cables
# are routed as lost.
"$IBFAB" topo gen fattree --m 4,8 --w 1,4 --format ibsim -o "$WORK/old0.net" >/dev/null 2>&1
awk '/^devid=/ { held = $0; next }
	/^(Switch|Ca|Hca)/ { cur = $3; if (held != "") print (cur == "\"ft-l1-s0000\"" ? "devid=0xbd36" : held); held = "" }
	/^\[/ {
		p = $1
		if ((cur == "\"ft-l1-s0000\"" && p ~ /^\[[5-8]\]$/) || (cur ~ /"ft-l2-s000[0-3]"/ && p == "[1]"))
			sub(/4xEDR$/, "4xQDR")
		if ((cur == "\"ft-l1-s0003\"" && p == "[5]") || (cur == "\"ft-l2-s0000\"" && p == "[4]") ||
		    (cur == "\"ft-l1-s0005\"" && p == "[7]") || (cur == "\"ft-l2-s0002\"" && p == "[6]"))
			sub(/4xEDR$/, "1xEDR")
	}
	{ print }' "$WORK/old0.net" >"$WORK/old.net"
check "older leaf: 8 port lines at 4xQDR, 4 at 1xEDR, one device id changed" sh -c "
	test \$(grep -c '4xQDR\$' '$WORK/old.net') -eq 8 && test \$(grep -c '1xEDR\$' '$WORK/old.net') -eq 4 &&
	test \$(grep -c '^devid=0xbd36' '$WORK/old.net') -eq 1"
mkconf dmodk 0 "$WORK/opensm-old.conf"
run old-dmodk "$WORK/old.net" "$WORK/opensm-old.conf"
check "older leaf: opensm ran, OpenSM used dmodk" \
	eval "log_has old-dmodk 'dmodk tables configured on all switches'"
show_log old-dmodk
check "older leaf: only the two 1x cables routed as lost, the QDR ones used" \
	log_has old-dmodk "dmodk: 2 switch cable(s) run below half their rate, routed as if lost"
check "older leaf: no QDR cable named" sh -c "! grep -q 'dmodk: .*at 4xQDR' '$WORK/old-dmodk/sim/opensm.log'"
check "older leaf: every (source, LID) pair routed, no loop" routed old-dmodk
check "older leaf: tables read back = offline dmodk" same_as_offline old-dmodk

# ------------------------------------------------------------------ irregular tree

mkconf dmodk 0 "$WORK/opensm-irr.conf"
run irr "$WORK/irr.net" "$WORK/opensm-irr.conf"
check "irregular: opensm ran" test $? -eq 0
show_log irr
check "irregular: OpenSM used the dmodk engine" log_has irr "dmodk tables configured on all switches"
check "irregular: dmodk found the host on a spine" log_has irr "above the leaves (hosts on a spine)"
check "irregular: dmodk reports the missing cable" log_has irr "leaf02 (level 1) has 7 of 8 up-port cables"
check "irregular: every (source, LID) pair routed, no loop" routed irr
check "irregular: tables read back = offline dmodk" same_as_offline irr
wi=$(worst irr)
"$IBFAB" route congestion --topology "$WORK/irr/net.ibnd" --lfts "$WORK/irr/dump.txt" 2>&1 | diag
check "irregular: the congestion report shows the extra load (worst shift load $wi = 2)" test "${wi:-0}" = 2
for eng in ftree minhop; do
	mkconf $eng 0 "$WORK/opensm-irr-$eng.conf"
	run irr-$eng "$WORK/irr.net" "$WORK/opensm-irr-$eng.conf"
	used=$(grep -o '[a-z_]* tables configured on all switches' "$WORK/irr-$eng/sim/opensm.log" | head -1)
	echo "irregular, routing_engine $eng: OpenSM says '$used'; worst shift load $(worst irr-$eng), cell $(cell irr-$eng)" | diag
done
echo "irregular: worst shift load dmodk $wi, cell $(cell irr)" | diag

# ------------------------------------------------------------------ a leaf at another depth

# a service leaf on the core: XGFT(3;4,4,4;1,4,4) on 8-port switches and a
# switch "svcleaf" with two hosts cabled straight to top switches 0 and 1
# (their spare port 8), as storage or login nodes often are; BFS from the
# leaves used to put those top switches on level 2 ("not a fat tree"), so
# OpenSM fell back to minhop
"$IBFAB" topo gen fattree --m 4,4,4 --w 1,4,4 --switch-ports 8 --format ibsim \
	-o "$WORK/x3.net" >/dev/null 2>&1
awk '
	{ print }
	/^Switch/ && $3 == "\"ft-l3-s0000\"" { print "[8]\t\"svcleaf\"[3]\t\t# \"svcleaf\" lid 0 4xEDR" }
	/^Switch/ && $3 == "\"ft-l3-s0001\"" { print "[8]\t\"svcleaf\"[4]\t\t# \"svcleaf\" lid 0 4xEDR" }
	END {
		print ""
		print "vendid=0x2c9"
		print "devid=0xcf08"
		print "sysimgguid=0x2c901000fd000"
		print "switchguid=0x2c901000fd000"
		print "Switch\t8 \"svcleaf\""
		print "[1]\t\"svc0\"[1]\t\t# \"svc0\" lid 0 4xEDR"
		print "[2]\t\"svc1\"[1]\t\t# \"svc1\" lid 0 4xEDR"
		print "[3]\t\"ft-l3-s0000\"[8]\t\t# \"ft-l3-s0000\" lid 0 4xEDR"
		print "[4]\t\"ft-l3-s0001\"[8]\t\t# \"ft-l3-s0001\" lid 0 4xEDR"
		for (h = 0; h < 2; h++) {
			print ""
			print "vendid=0x2c9"
			print "devid=0x1017"
			printf "sysimgguid=0x2c901000fd1%02d\n", h
			printf "caguid=0x2c901000fd1%02d\n", h
			printf "Ca\t1 \"svc%d\"\n", h
			printf "[1]\t\"svcleaf\"[%d]\t\t# \"svcleaf\" lid 0 4xEDR\n", h + 1
		}
	}' "$WORK/x3.net" >"$WORK/svc.net"
check "service-leaf variant: 4 port lines for its cables, 2 for its hosts" \
	test "$(grep -c '^\[' "$WORK/svc.net")" -eq $(( $(grep -c '^\[' "$WORK/x3.net") + 8 ))
for eng in dmodk minhop; do
	mkconf $eng 0 "$WORK/opensm-svc-$eng.conf"
	run svc-$eng "$WORK/svc.net" "$WORK/opensm-svc-$eng.conf"
	check "service leaf, $eng: opensm ran, OpenSM used $eng" \
		eval "log_has svc-$eng '$eng tables configured on all switches'"
	check "service leaf, $eng: every host-to-host flow of every shift delivered" hosts_routed svc-$eng
done
show_log svc-dmodk
check "service leaf, dmodk: recognised as a leaf at another depth" \
	log_has svc-dmodk "(a leaf at another depth, e.g. a service leaf on the core): svcleaf"
check "service leaf, dmodk: every (source, LID) pair routed, no loop" routed svc-dmodk
check "service leaf, dmodk: tables read back = offline dmodk" same_as_offline svc-dmodk
wd=$(worst svc-dmodk); wm=$(worst svc-minhop)
echo "service leaf: worst shift load dmodk $wd, minhop $wm; cells dmodk $(cell svc-dmodk), minhop $(cell svc-minhop)" | diag
check "service leaf: dmodk better than stock minhop ($wd < $wm)" test "${wd:-99}" -lt "${wm:-0}"

# ------------------------------------------------------------------ hosts on a top switch

# the same XGFT(3;4,4,4;1,4,4) with three hosts (login or management nodes)
# on ports 6-8 of one top switch, switches renamed so the ft-l names give
# no levels: the switch is linked to no other switch with hosts, so BFS
# from the leaves used to keep it a leaf (17 leaves, 204 missing up-port
# cables reported); dmodk now puts it on the top level from the structure
awk '
	{ print }
	/^Switch/ && $3 == "\"ft-l3-s0000\"" {
		for (h = 0; h < 3; h++)
			printf "[%d]\t\"tophost%d\"[1]\t\t# \"tophost%d\" lid 0 4xEDR\n", h + 6, h, h
	}
	END {
		for (h = 0; h < 3; h++) {
			print ""
			print "vendid=0x2c9"
			print "devid=0x1017"
			printf "sysimgguid=0x2c901000fb1%02d\n", h
			printf "caguid=0x2c901000fb1%02d\n", h
			printf "Ca\t1 \"tophost%d\"\n", h
			printf "[1]\t\"ft-l3-s0000\"[%d]\t\t# \"ft-l3-s0000\" lid 0 4xEDR\n", h + 6
		}
	}' "$WORK/x3.net" | sed -e 's/ft-l1-s/leaf-/g' -e 's/ft-l2-s/aggr-/g' -e 's/ft-l3-s/core-/g' >"$WORK/top.net"
check "top-host variant: 6 port lines for 3 hosts, no ft-l name left" sh -c "
	test \$(grep -c '^\[' '$WORK/top.net') -eq \$(( \$(grep -c '^\[' '$WORK/x3.net') + 6 )) &&
	! grep -q 'ft-l' '$WORK/top.net'"
for eng in dmodk minhop; do
	mkconf $eng 0 "$WORK/opensm-top-$eng.conf"
	run top-$eng "$WORK/top.net" "$WORK/opensm-top-$eng.conf"
	check "hosts on a top switch, $eng: opensm ran, OpenSM used $eng" \
		eval "log_has top-$eng '$eng tables configured on all switches'"
	check "hosts on a top switch, $eng: every host-to-host flow of every shift delivered" \
		hosts_routed top-$eng
done
show_log top-dmodk
check "hosts on a top switch, dmodk: no fallback to minhop" \
	eval "! log_has top-dmodk 'minhop tables configured'"
check "hosts on a top switch, dmodk: the log names the top switch with hosts" \
	log_has top-dmodk "(hosts on a top switch: its children lie in different pods): core-0000;"
check "hosts on a top switch, dmodk: 16,16,16 switches, no missing cable reported" \
	log_has top-dmodk "switches per level 16,16,16, up-port slots per level 4,4;"
check "hosts on a top switch, dmodk: every (source, LID) pair routed, no loop" routed top-dmodk
check "hosts on a top switch, dmodk: tables read back = offline dmodk" same_as_offline top-dmodk
wd=$(worst top-dmodk); wm=$(worst top-minhop)
wo=$("$IBFAB" route congestion --topology "$WORK/top-dmodk/net.ibnd" --engine dmodk \
	--pattern shift --json 2>/dev/null |
	sed -n 's/.*"shift": {"count": [0-9]*, "worst": \([0-9]*\),.*/\1/p')
echo "hosts on a top switch: worst shift load dmodk $wd (offline $wo), minhop $wm; cells dmodk $(cell top-dmodk), minhop $(cell top-minhop)" | diag
check "hosts on a top switch: dmodk's worst read back = offline ($wd = $wo)" \
	test -n "$wd" -a "${wd:-x}" = "${wo:-y}"
check "hosts on a top switch: dmodk no worse than stock minhop ($wd <= $wm)" \
	test "${wd:-99}" -le "${wm:-0}"

# ------------------------------------------------------------------ uneven bundles

# bound NAME: the cut lower bound of the shifts (route congestion --json)
bound() {
	"$IBFAB" route congestion --topology "$WORK/$1/net.ibnd" --lfts "$WORK/$1/dump.txt" \
		--pattern shift --json 2>/dev/null | sed -n 's/.*"shift": {.*"bound": \([0-9]*\),.*/\1/p'
}
for eng in dmodk minhop; do
	mkconf $eng 0 "$WORK/opensm-ub-$eng.conf"
	run ub-$eng "$WORK/ub.net" "$WORK/opensm-ub-$eng.conf"
	check "uneven bundles, $eng: opensm ran, OpenSM used $eng" \
		eval "log_has ub-$eng '$eng tables configured on all switches'"
	check "uneven bundles, $eng: every host-to-host flow of every shift delivered" hosts_routed ub-$eng
done
show_log ub-dmodk
check "uneven bundles, dmodk: every (source, LID) pair routed, no loop" routed ub-dmodk
wd=$(worst ub-dmodk); wm=$(worst ub-minhop); bd=$(bound ub-dmodk)
echo "uneven bundles: worst shift load dmodk $wd, minhop $wm, leaf-cut bound $bd" | diag
check "uneven bundles: the cut bound is 3 (12 hosts over 5 up-cables): $bd" test "${bd:-0}" = 3
check "uneven bundles: dmodk at the cut bound ($wd)" test "${wd:-99}" = "${bd:-0}"
check "uneven bundles: dmodk no worse than stock minhop ($wd <= $wm)" test "${wd:-99}" -le "${wm:-0}"

# ------------------------------------------------------------------ damaged 3-level tree, hosts on a level-2 switch

# XGFT(3;8,4,4;1,4,4) on 12-port switches with 4 switch cables cut
# (net-damage.awk, seed 2) and two hosts on a level-2 switch, renamed so the
# levels come from the structure (bench/dmodk_irregular.sh's x844-l2hosts):
# the plugin runs the leaf repair (two-step moves, chains) and the path
# balance here, which none of the fabrics above reach.  Its tables must be
# the offline ones for the fabric OpenSM saw, at LMC 0 and 1, and the worst
# shift the same as offline on the generated file (ibfab's LIDs there).
"$IBFAB" topo gen fattree --m 8,4,4 --w 1,4,4 --switch-ports 12 --format ibsim \
	-o "$WORK/x844.net" >/dev/null 2>&1
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=2 -v cables=4 "$WORK/x844.net" "$WORK/x844.net" |
	awk -f "$top_srcdir/contrib/ft-damage.awk" -v spinehosts=ft-l2-s0005:9,ft-l2-s0005:10 /dev/stdin |
	sed -e 's/ft-l\([0-9]\)-s0*\([0-9]\)/sw\1-\2/g' -e 's/ft-h0*\([0-9]\)/n\1/g' >"$WORK/l2h.net"
check "level-2 hosts variant: 4 cables (8 port lines) fewer, 2 hosts (4 port lines) more, no ft-l name" sh -c "
	test \$(grep -c '^\[' '$WORK/l2h.net') -eq \$(( \$(grep -c '^\[' '$WORK/x844.net') - 8 + 4 )) &&
	! grep -q 'ft-l' '$WORK/l2h.net'"
for lmc in 0 1; do
	name=l2h$lmc
	mkconf dmodk $lmc "$WORK/opensm-$name.conf"
	run $name "$WORK/l2h.net" "$WORK/opensm-$name.conf"
	check "level-2 hosts, lmc $lmc: opensm ran, OpenSM used dmodk" \
		eval "log_has $name 'dmodk tables configured on all switches'"
	check "level-2 hosts, lmc $lmc: the hosts above the leaves found" \
		log_has $name "1 switch with hosts sits above the leaves (hosts on a spine)"
	check "level-2 hosts, lmc $lmc: leaf repair and path balance ran" sh -c "
		grep -q 'dmodk: leaf repair, layer 0:' '$WORK/$name/sim/opensm.log' &&
		grep -q 'dmodk: path balance, layer 0:' '$WORK/$name/sim/opensm.log'"
	check "level-2 hosts, lmc $lmc: every (source, LID) pair routed, no loop" routed $name
	check "level-2 hosts, lmc $lmc: tables read back = offline dmodk" same_as_offline $name
done
show_log l2h0
wd=$(worst l2h0)
wo=$("$IBFAB" route congestion --topology "$WORK/l2h.net" --engine dmodk --pattern shift --json 2>/dev/null |
	sed -n 's/.*"shift": {"count": [0-9]*, "worst": \([0-9]*\),.*/\1/p')
echo "level-2 hosts: worst shift load read back $wd, offline on the generated file $wo; cell $(cell l2h0)" | diag
check "level-2 hosts: worst read back = offline on the generated file ($wd = $wo)" \
	test -n "$wd" -a "${wd:-x}" = "${wo:-y}"

# roots given by the admin (--dmodk-roots, the CLI form of ibfab.conf's
# dmodk_roots): on a complete 3-level tree they agree with the structure,
# so the tables are the same; a bad roots file is a FILE:LINE error
"$IBFAB" topo gen fattree --kary 4 --n 3 -o "$WORK/k43.ibnd" >/dev/null 2>&1
sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*"ft-l3-.*/0x\1/p' "$WORK/k43.ibnd" >"$WORK/k43.roots"
check "roots file: the 16 top switches" test "$(wc -l <"$WORK/k43.roots")" -eq 16
"$IBFAB" route -q --topology "$WORK/k43.ibnd" --engine dmodk -o "$WORK/k43-auto.lfts" 2>/dev/null
"$IBFAB" route -q --topology "$WORK/k43.ibnd" --engine dmodk --dmodk-roots "$WORK/k43.roots" \
	-o "$WORK/k43-roots.lfts" 2>"$WORK/k43-roots.err"
check "--dmodk-roots: routes (exit $?)" test -s "$WORK/k43-roots.lfts"
check "--dmodk-roots: the same tables as the levels found from the structure" \
	cmp -s "$WORK/k43-auto.lfts" "$WORK/k43-roots.lfts"
check "--dmodk-roots with the top switches: no warning" test ! -s "$WORK/k43-roots.err"
printf 'dmodk_roots %s\n' "$WORK/k43.roots" >"$WORK/k43.conf"
"$IBFAB" route -q --topology "$WORK/k43.ibnd" --engine dmodk --conf "$WORK/k43.conf" \
	-o "$WORK/k43-conf.lfts" 2>/dev/null
check "--conf with dmodk_roots: the same tables" cmp -s "$WORK/k43-auto.lfts" "$WORK/k43-conf.lfts"
printf '0x1\nnot-a-guid\n' >"$WORK/bad.roots"
"$IBFAB" route -q --topology "$WORK/k43.ibnd" --engine dmodk --dmodk-roots "$WORK/bad.roots" \
	-o "$WORK/k43-bad.lfts" 2>"$WORK/k43-bad.err"
rc=$?
diag <"$WORK/k43-bad.err"
check "bad roots file: exit 1, FILE:LINE, nothing written" \
	test $rc -eq 1 -a ! -e "$WORK/k43-bad.lfts" -a -n "$(grep -F "$WORK/bad.roots:2:" "$WORK/k43-bad.err")"
# a root that is no switch of the fabric (an adapter's GUID on line 3, or a
# GUID no node has): the file and line, not just the GUID
host=$(sed -n 's/^caguid=\(0x[0-9a-f]*\).*/\1/p' "$WORK/k43.ibnd" | head -1)
for bad in "$host:it is the end node 'ft-h00000'" "0x00000000deadbeef:no node has it"; do
	g=${bad%%:*}
	{ head -2 "$WORK/k43.roots"; echo "$g # line 3"; } >"$WORK/bad2.roots"
	"$IBFAB" route -q --topology "$WORK/k43.ibnd" --engine dmodk --dmodk-roots "$WORK/bad2.roots" \
		-o "$WORK/k43-bad2.lfts" 2>"$WORK/k43-bad2.err"
	rc=$?
	diag <"$WORK/k43-bad2.err"
	check "roots file with $g on line 3: exit 1, FILE:3 (${bad#*:}), nothing written" \
		test $rc -eq 1 -a ! -e "$WORK/k43-bad2.lfts" -a -n "$(grep -F "$WORK/bad2.roots:3: root GUID" "$WORK/k43-bad2.err" | grep -F "(${bad#*:}")"
done

# a roots file naming the wrong switches still routes (a warning, not a
# refusal: OpenSM would fall back), but badly, so it is named: a leaf as
# the only root of the 3-ary 3-tree, one top switch of nine, a
# middle-level switch; the per-root line (FILE:2) for the two that are not
# on the structure's top
"$IBFAB" topo gen fattree --kary 3 --n 3 -o "$WORK/k33.ibnd" >/dev/null 2>&1
sw() { sed -n "s/^Switch.*\"S-\([0-9a-f]*\)\".*\"$1\".*/0x\1/p" "$WORK/k33.ibnd"; }
for wrong in "ft-l3-s0002:switches without hosts lie below every switch with hosts" \
	"ft-l2-s0004:is on level 2 of 3 in the tree the structure gives" \
	"ft-l1-s0004:has 3 hosts, is on level 1 of 3 in the tree the structure gives (a leaf)"; do
	nm=${wrong%%:*}
	g=$(sw "$nm")
	printf '# roots\n%s\n' "$g" >"$WORK/wrong.roots"
	rm -f "$WORK/k33-wrong.lfts"
	"$IBFAB" route -q --topology "$WORK/k33.ibnd" --engine dmodk --dmodk-roots "$WORK/wrong.roots" \
		-o "$WORK/k33-wrong.lfts" 2>"$WORK/k33-wrong.err"
	rc=$?
	diag <"$WORK/k33-wrong.err"
	check "roots file with $nm only: exit 0, tables written" test $rc -eq 0 -a -s "$WORK/k33-wrong.lfts"
	check "roots file with $nm only: a warning naming the file and what is wrong (${wrong#*:})" \
		grep -qF "$WORK/wrong.roots: warning: " "$WORK/k33-wrong.err"
	check "roots file with $nm only: ... what is wrong" grep -qF "${wrong#*:}" "$WORK/k33-wrong.err"
	check "roots file with $nm only: ... and the structure's top level" \
		grep -qF "the structure's top level (level 3) is 9 switches: 'ft-l3-s0000'" "$WORK/k33-wrong.err"
	[ "$nm" = ft-l3-s0002 ] ||
		check "roots file with $nm only: the root's line and GUID" \
			grep -qF "$WORK/wrong.roots:2: warning: root $g ('$nm')" "$WORK/k33-wrong.err"
	wl=$("$IBFAB" route congestion --topology "$WORK/k33.ibnd" --lfts "$WORK/k33-wrong.lfts" \
		--pattern shift 2>/dev/null | sed -n 's/.*worst max link load \([0-9]*\).*/\1/p')
	echo "roots file with $nm only: worst shift load $wl" | diag
done
printf 'dmodk_roots %s\n' "$WORK/wrong.roots" >"$WORK/k33.conf"
"$IBFAB" route -q --topology "$WORK/k33.ibnd" --engine dmodk --conf "$WORK/k33.conf" \
	-o "$WORK/k33-conf.lfts" 2>"$WORK/k33-conf.err"
check "dmodk_roots in --conf with a leaf: exit 0, tables, the warning" \
	test $? -eq 0 -a -s "$WORK/k33-conf.lfts" -a -n "$(grep -F "(a leaf)" "$WORK/k33-conf.err")"
sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*"ft-l3-.*/0x\1/p' "$WORK/k33.ibnd" >"$WORK/k33.roots"
"$IBFAB" route -q --topology "$WORK/k33.ibnd" --engine dmodk --dmodk-roots "$WORK/k33.roots" \
	-o "$WORK/k33-roots.lfts" 2>"$WORK/k33-roots.err"
check "3-ary 3-tree, the nine top switches: no warning" test ! -s "$WORK/k33-roots.err"

done_testing
