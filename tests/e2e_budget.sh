#!/usr/bin/env bash
# Deadlock freedom within the VL budget on damaged fabrics, offline:
#  - Slim Fly q=5, LMC 2, with cables removed at random (seeded) and with a
#    whole switch (and its hosts) gone: `ibfab route --deadlock auto` with
#    max_vls 8, 4 and 2 routes every case for layered and minimal; `route
#    check` finds no loop and no unreachable pair; `deadlock verify` finds
#    no cycle; the summary says what was rerouted;
#  - a two-level fat tree with a missing cable and dmodk: the same;
#  - a disconnected fabric fails with a clear error and writes nothing;
#  - the healthy-fabric windows: a failed cable leaves the layered paths of
#    untouched pairs as long as on the intact fabric.
# Seed: IBFAB_FAULT_SEED (default 1).
. "$(dirname "$0")/lib.sh"
mk_workdir
SEED=${IBFAB_FAULT_SEED:-1}
echo "# fault seed $SEED"

# damage NET OUT NCABLES [SWITCH]: drop NCABLES random switch-to-switch cables
# (and SWITCH with the hosts cabled only to it) from an ibsim net file
damage() {
	awk -f "$top_srcdir/contrib/net-damage.awk" -v seed="$SEED" -v cables="$3" -v dead="${4:-}" \
		"$1" "$1" >"$2"
}

# run NAME NET ENGINE VLS: route with deadlock auto, check and verify
run() {
	local name=$1 net=$2 engine=$3 vls=$4 d="$WORK/$1"
	mkdir -p "$d"
	"$IBFAB" route --topology "$net" --lmc 2 --engine "$engine" --deadlock auto --max-vls "$vls" \
		-o "$d/lfts" --sl "$d/sl" --sl2vl "$d/sl2vl" >"$d/route.txt" 2>&1
	local rc=$?
	grep -E 'deadlock|within' "$d/route.txt" | cut -c1-300 | diag
	check "$name: $engine routes within $vls VLs (exit $rc)" test $rc -eq 0
	route_check_clean "$d" --topology "$net" --lmc 2 --lfts "$d/lfts"
	check "$name: route check: no loop, every pair delivered" test $? -eq 0
	"$IBFAB" deadlock verify --topology "$net" --lmc 2 --lfts "$d/lfts" --sl "$d/sl" \
		--sl2vl "$d/sl2vl" >"$d/verify.txt" 2>&1
	rc=$?
	grep -E '^(VLs used|cycles|result)' "$d/verify.txt" | diag
	check "$name: deadlock verify: no cycle (exit $rc)" test $rc -eq 0
	local used
	used=$(sed -n 's/^VLs used: *\([0-9 ]*\).*/\1/p' "$d/verify.txt" | wc -w)
	check "$name: at most $vls VLs carry traffic ($used)" test "$used" -le "$vls" -a "$used" -ge 1
}

"$IBFAB" topo gen slimfly --q 5 --format ibsim -o "$WORK/sf5.net"
damage "$WORK/sf5.net" "$WORK/sf5-cables.net" 5
check "5 cables removed" test "$(($(grep -c '^\[' "$WORK/sf5.net") - $(grep -c '^\[' "$WORK/sf5-cables.net")))" -eq 10
sw=$(grep '^Switch' "$WORK/sf5.net" | sed -n '17s/^[^"]*"\([^"]*\)".*/\1/p')
damage "$WORK/sf5.net" "$WORK/sf5-switch.net" 2 "$sw"
check "switch $sw and its hosts removed" test "$(grep -c '^Switch' "$WORK/sf5-switch.net")" -eq 49
for vls in 8 4 2; do
	run "sf5-5-cables-v$vls" "$WORK/sf5-cables.net" layered "$vls"
	run "sf5-switch-v$vls" "$WORK/sf5-switch.net" layered "$vls"
done
run sf5-cables-minimal-v2 "$WORK/sf5-cables.net" minimal 2
check "2 VLs: the summary says what was rerouted" grep -q 'within 2 VLs: ' "$WORK/sf5-5-cables-v2/route.txt"

"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --parallel 2 --format ibsim -o "$WORK/ft.net"
damage "$WORK/ft.net" "$WORK/ft-cable.net" 1
run ft-cable-dmodk-v2 "$WORK/ft-cable.net" dmodk 2

# a disconnected fabric: a clear error, nothing written
cat "$WORK/sf5.net" >"$WORK/split.net"
printf '\nSwitch 8 "island"\n[1] "island-h"[1]\n[2] "island2"[1]\n\nSwitch 8 "island2"\n[1] "island"[2]\n[2] "island2-h"[1]\n\nHca 1 "island-h"\n[1] "island"[1]\n\nHca 1 "island2-h"\n[1] "island2"[2]\n' >>"$WORK/split.net"
"$IBFAB" route --topology "$WORK/split.net" --lmc 2 --deadlock auto -o "$WORK/split.lfts" >"$WORK/split.txt" 2>&1
rc=$?
diag <"$WORK/split.txt"
check "disconnected switch graph: exit 1" test $rc -eq 1
check "disconnected switch graph: the error says so" grep -q 'disconnected' "$WORK/split.txt"
check "disconnected switch graph: no tables written" test ! -e "$WORK/split.lfts"

# windows relative to the intact fabric: the longest layered path of the
# pairs whose distance the failure left alone does not grow
"$IBFAB" route --topology "$WORK/sf5.net" --lmc 2 -o "$WORK/intact.lfts" >/dev/null 2>&1
"$IBFAB" route stats --topology "$WORK/sf5.net" --lmc 2 --lfts "$WORK/intact.lfts" >"$WORK/intact.stats" 2>&1
"$IBFAB" route stats --topology "$WORK/sf5-cables.net" --lmc 2 --lfts "$WORK/sf5-5-cables-v8/lfts" >"$WORK/damaged.stats" 2>&1
longest() { awk '/^path length/ { on = 1; next } on && /^ *[0-9]+ / { s = 0; for (i = 2; i <= NF; i++) s += $i; if (s) m = $1 } /^edge-disjoint/ { on = 0 } END { print m + 0 }' "$1"; }
share4() { awk '/^path length/ { on = 1; next } on && /^ *[0-9]+ / { for (i = 2; i <= NF; i++) { t += $i; if ($1 >= 4) l += $i } } /^edge-disjoint/ { on = 0 } END { printf "%d", t ? 1000 * l / t : 0 }' "$1"; }
echo "# intact: longest path $(longest "$WORK/intact.stats") hops; damaged: $(longest "$WORK/damaged.stats") hops, $(share4 "$WORK/damaged.stats") per mille of the paths >= 4 hops"
check "intact Slim Fly: layered paths of at most 3 hops" test "$(longest "$WORK/intact.stats")" -le 3
# every layer's paths of 4+ hops belong to pairs the damage stretched: no
# layer has more of them than layer 0 (minimal) has pairs of 3+ hops
stretched() { awk '/^path length/ { on = 1; next } on && /^ *[0-9]+ / { if ($1 >= 3) base += $2; for (i = 3; i <= NF; i++) if ($1 >= 4) n[i] += $i; nl = NF } /^edge-disjoint/ { on = 0 } END { w = 0; for (i = 3; i <= nl; i++) if (n[i] > w) w = n[i]; printf "%d %d", w, base }' "$1"; }
read -r worst base <<<"$(stretched "$WORK/damaged.stats")"
echo "# damaged: at most $worst paths of 4+ hops in a layer; $base pairs at 3+ hops"
check "5 cables gone: 4+ hop paths only on stretched pairs ($worst <= $base)" test "$worst" -le "$base" -a "$base" -gt 0

done_testing
