#!/usr/bin/env bash
# The layered engine live and offline: stock opensm + the ibfab plugin on
# ibsim fabrics (Slim Fly q=5 at LMC 2 and 3, Slim Fly with a missing switch
# link, a 3-level fat tree, a dragonfly); the tables read back from the
# switches route every pair loop-free and equal `ibfab route` run offline on
# the discovered fabric with the same LIDs and seed; and `opensm -R file -U`
# programs an offline-computed dump.
. "$(dirname "$0")/lib.sh"
need_sim
PLUGIN_DIR=$top_builddir/.libs
[ -f "$PLUGIN_DIR/libibfab.so" ] || skip_all "the OpenSM plugin was not built"
mk_workdir
echo '# defaults' >"$WORK/ibfab.conf"

# conf ENGINE LMC OUT
conf() {
	cat >"$3" <<CONF
event_plugin_name ibfab
routing_engine $1
lmc $2
log_flags 0x03
force_log_flush TRUE
sweep_interval 0
use_ucast_cache FALSE
CONF
}

# live NAME NET LMC: one opensm sweep with the layered engine, then discover
# the fabric and read the tables back; then compute the tables offline from
# the discovered fabric and compare; then load an offline dump with another
# seed through `opensm -R file -U` and compare what the switches hold.
live() {
	local name=$1 net=$2 lmc=$3 d=$WORK/$1
	mkdir -p "$d"
	conf layered "$lmc" "$d/opensm.conf"
	IBFAB_CONF=$WORK/ibfab.conf LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	"$HARNESS" with "$net" "$d/sim" -- bash -c '
		. "$0"; d=$IBFAB_SIM_DIR; out=$1; ibfab=$2; lmc=$3
		opensm_once "$d" -F "$out/opensm.conf" || { echo "opensm failed"; tail -5 "$d/opensm.out"; exit 1; }
		cp "$d/opensm.log" "$out/opensm-first.log"; : >"$d/opensm.log"
		ibsim-run ibnetdiscover >"$out/fabric.ibnd" 2>/dev/null || exit 2
		ibsim-run dump_lfts >"$out/live.txt" 2>/dev/null || exit 3
		# offline tables with another seed, then programmed by the file engine
		"$ibfab" route -q --topology "$out/fabric.ibnd" --engine layered --seed 7 -o "$out/seed7.dump" || exit 4
		opensm_once "$d" -F "$out/opensm.conf" -R file -U "$out/seed7.dump" || { echo "opensm -R file failed"; exit 5; }
		cp "$d/opensm.log" "$out/opensm-file.log"
		ibsim-run dump_lfts >"$out/file.txt" 2>/dev/null || exit 6
	' "$top_srcdir/tests/lib.sh" "$d" "$IBFAB" "$lmc" 2>&1 | diag
	local rc=${PIPESTATUS[0]}
	check "$name: ibsim + opensm + plugin + discovery ran" test "$rc" -eq 0
	check "$name: OpenSM used the layered engine" grep -q "layered tables configured on all switches" "$d/opensm-first.log"
	"$IBFAB" route check -q --topology "$d/fabric.ibnd" --lfts "$d/live.txt" >"$d/check.txt" 2>&1
	check "$name: tables read back route every (source, LID) pair loop-free" test $? -eq 0
	diag <"$d/check.txt"
	"$IBFAB" route -q --topology "$d/fabric.ibnd" --engine layered -o "$d/offline.dump" \
		--stats "$d/offline-stats.json" 2>&1 | diag
	"$IBFAB" route diff -q --topology "$d/fabric.ibnd" --lfts "$d/live.txt" --lfts2 "$d/offline.dump" >"$d/diff.txt" 2>&1
	check "$name: live tables equal the offline ones (same LIDs, same seed)" test $? -eq 0
	diag <"$d/diff.txt"
	"$IBFAB" route diff -q --topology "$d/fabric.ibnd" --lfts "$d/offline.dump" --lfts2 "$d/seed7.dump" >/dev/null 2>&1
	check "$name: another seed gives other tables (the file-engine check below can fail)" test $? -eq 1
	check "$name: opensm -R file -U loaded the offline dump" grep -q "file tables configured on all switches" "$d/opensm-file.log"
	"$IBFAB" route diff -q --topology "$d/fabric.ibnd" --lfts "$d/file.txt" --lfts2 "$d/seed7.dump" >"$d/diff-file.txt" 2>&1
	check "$name: the switches hold exactly the offline-computed dump" test $? -eq 0
	diag <"$d/diff-file.txt"
}

# Slim Fly q=5, 4 hosts per switch (Hoffman-Singleton, 200 hosts)
"$IBFAB" topo gen slimfly --q 5 --hosts 4 --format ibsim -o "$WORK/sf5.net"
live sf5-lmc2 "$WORK/sf5.net" 2
# path quality of what the switches hold: layers >= 1 at most 3 hops, and
# most switch pairs with >= 3 edge-disjoint paths
"$IBFAB" route stats -q --json --topology "$WORK/sf5-lmc2/fabric.ibnd" --lfts "$WORK/sf5-lmc2/live.txt" >"$WORK/sf5-stats.json"
"$IBFAB" route check -q --topology "$WORK/sf5-lmc2/fabric.ibnd" --lfts "$WORK/sf5-lmc2/live.txt" --max-hops 3 \
	>"$WORK/sf5-hops.txt" 2>&1
check "sf5-lmc2: no path longer than 3 switch hops" test $? -eq 0
diag <"$WORK/sf5-hops.txt"
share3=$(sed -n 's/.*"share_ge": *{[^}]*"3": *\([0-9.]*\).*/\1/p' "$WORK/sf5-stats.json" | head -1)
check "sf5-lmc2: >= 80% of switch pairs have >= 3 edge-disjoint paths (got ${share3:-?})" \
	awk -v s="${share3:-0}" 'BEGIN { exit !(s >= 0.80) }'
live sf5-lmc3 "$WORK/sf5.net" 3

# Slim Fly q=5 with one switch-to-switch cable missing (both ends unplugged)
awk 'BEGIN { done = 0 }
     /^Switch/ { sw = $0 }
     !done && /^\[1\]/ && sw ~ /sf-r00-g0-s00"/ { done = 1; next }
     { print }' "$WORK/sf5.net" >"$WORK/sf5-missing.tmp"
peer=$(awk '/^Switch/ { sw = $0 } /^\[1\]/ && sw ~ /sf-r00-g0-s00"/ { print; exit }' "$WORK/sf5.net")
peer_name=$(echo "$peer" | sed 's/^\[1\][[:space:]]*"\([^"]*\)".*/\1/')
peer_port=$(echo "$peer" | sed 's/^\[1\][[:space:]]*"[^"]*"\[\([0-9]*\)\].*/\1/')
awk -v pn="$peer_name" -v pp="$peer_port" '
     /^Switch/ { sw = $0 }
     sw ~ ("\"" pn "\"") && $0 ~ ("^\\[" pp "\\]") { next }
     { print }' "$WORK/sf5-missing.tmp" >"$WORK/sf5-missing.net"
"$IBFAB" topo info "$WORK/sf5-missing.net" | grep -q "^switch links: *174 " 
check "sf5 with a missing cable: the net file has 174 switch links" test $? -eq 0
live sf5-missing "$WORK/sf5-missing.net" 2

# Slim Fly q=5 with two switch cables trained at 1x: every layer routes
# them as lost cables (the log names them), so no flow of any layer crosses
# one (rate-weighted = plain loads); before, layer 0's minimal trees kept
# them (rate-weighted permutation mean max 7.55 against 4.28 plain)
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=3 -v degrade=2 "$WORK/sf5.net" "$WORK/sf5.net" \
	>"$WORK/sf5-1x.net"
check "sf5 with two 1x cables: 4 port lines at 1x" \
	test "$(diff "$WORK/sf5.net" "$WORK/sf5-1x.net" | grep -c '^> .*1xEDR')" -eq 4
live sf5-1x "$WORK/sf5-1x.net" 2
check "sf5-1x: OpenSM's log names the two cables routed as lost" \
	grep -q "layered: 2 switch cable(s) run below half their rate, routed as if lost" "$WORK/sf5-1x/opensm-first.log"
"$IBFAB" route congestion --json --topology "$WORK/sf5-1x/fabric.ibnd" --lfts "$WORK/sf5-1x/live.txt" \
	--layer all --pattern perm >"$WORK/sf5-1x-cong.json" 2>&1
check "sf5-1x: no flow of any layer on a 1x cable (rate-weighted = plain, all 4 layers)" python3 -c '
import json, sys
L = json.load(open(sys.argv[1]))["layers"]
assert len(L) == 4, len(L)
for l in L:
    p = l["perm"]
    assert p["rate_weighted"]["worst"] == p["worst"] and p["rate_weighted"]["mean_max"] == p["mean_max"], l
' "$WORK/sf5-1x-cong.json"
# a stable reroute from the tables made before the cables degraded keeps
# no column through them either
"$IBFAB" route -q --topology "$WORK/sf5.net" --engine layered --lmc 2 -o "$WORK/sf5-ok.lfts" 2>/dev/null
"$IBFAB" route -q --topology "$WORK/sf5-1x.net" --engine layered --lmc 2 --previous-lfts "$WORK/sf5-ok.lfts" \
	--previous-topology "$WORK/sf5.net" -o "$WORK/sf5-1x-stable.lfts" 2>/dev/null
"$IBFAB" route congestion --json --topology "$WORK/sf5-1x.net" --lfts "$WORK/sf5-1x-stable.lfts" --lmc 2 \
	--layer all --pattern perm >"$WORK/sf5-1x-stable.json" 2>"$WORK/sf5-1x-stable.err"
check "sf5-1x, stable reroute: no flow of any layer on a 1x cable" python3 -c '
import json, sys
for l in json.load(open(sys.argv[1]))["layers"]:
    p = l["perm"]
    assert p["rate_weighted"]["worst"] == p["worst"] and p["rate_weighted"]["mean_max"] == p["mean_max"], l
' "$WORK/sf5-1x-stable.json"

# 3-level fat tree (4-ary 3-tree: 48 switches, 64 hosts) and a dragonfly
"$IBFAB" topo gen fattree --kary 4 --n 3 --format ibsim -o "$WORK/ft3.net"
live fattree3 "$WORK/ft3.net" 2
"$IBFAB" topo gen dragonfly --a 4 --p 2 --h 2 --format ibsim -o "$WORK/df.net"
live dragonfly "$WORK/df.net" 2

done_testing
