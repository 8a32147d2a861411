#!/usr/bin/env bash
# dmodk against stock OpenSM minhop and ftree on damaged and irregular fat
# trees (generated, then faults injected with contrib/ft-damage.awk), each
# run in ibsim, the tables read back with dump_lfts and evaluated with
# `ibfab route congestion` (worst shift load, the cut lower bound, mean max
# load over 100 random permutations).  Prints a markdown table; never
# passes or fails.
#
#   IBFAB=build/ibfab bench/dmodk_irregular.sh [--lmc-full "0 1 2"]
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
lmcs="0 1 2"
[ "${1:-}" = "--lmc-full" ] && lmcs=$2
IBFAB=${IBFAB:-$top/build/ibfab}
libdir=$(dirname "$IBFAB")/.libs
PATH=$PATH:/usr/sbin:/sbin
. "$top/tests/lib.sh"
HARNESS=$top/contrib/ibsim-harness.sh
work=$(mktemp -d /tmp/ibfab-dmodk.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
dmg() { awk -f "$top/contrib/ft-damage.awk" "$@"; }
# real-looking names: levels come from the structure, not from the names
ren() { sed -e 's/ft-l\([0-9]\)-s0*\([0-9]\)/sw\1-\2/g' -e 's/ft-h0*\([0-9]\)/n\1/g'; }
gen() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net" >/dev/null; }

# 2014-like: 6 leaves of 22-24 hosts, 2 spines, 4 cables per pair, one pair 3
gen --m 24,6 --w 1,2 --parallel 4 --switch-ports 36
dmg -v drop=ft-l1-s0000:23,ft-l1-s0000:24,ft-l1-s0001:24,ft-l1-s0005:32 \
	-v dual=ft-l2-s0000:30:31 -v spinehosts=ft-l2-s0000:32 "$work/base.net" | ren >"$work/t2014.net"
# 2 levels, 1.5:1 taper, a missing cable, a short leaf, two hosts on a spine
gen --m 12,8 --w 1,4 --parallel 2 --switch-ports 24
dmg -v drop=ft-l1-s0002:15,ft-l1-s0005:12,ft-l1-s0005:11 -v spinehosts=ft-l2-s0001:20,ft-l2-s0001:21 \
	"$work/base.net" | ren >"$work/t2miss.net"
# 2 levels, uneven bundles everywhere (3 cables to spine 0, 2 to spine 1)
gen --m 12,6 --w 1,2 --parallel 3 --switch-ports 24
dmg -v drop=ft-l1-s0000:18,ft-l1-s0001:18,ft-l1-s0002:18,ft-l1-s0003:18,ft-l1-s0004:18,ft-l1-s0005:18 \
	-v dual=ft-l2-s0000:20:21 "$work/base.net" | ren >"$work/t2uneven.net"
# 3 levels, tapered XGFT(3;4,4,4;1,2,2): a leaf uplink and a level-2 uplink
# missing, a host on a level-2 switch
gen --m 4,4,4 --w 1,2,2 --switch-ports 16
dmg -v drop=ft-l1-s0003:6,ft-l2-s0002:6 -v spinehosts=ft-l2-s0002:9 "$work/base.net" | ren >"$work/t3taper.net"
# 3 levels, 2 cables per pair XGFT(3;4,2,4;1,2,2): a leaf cable missing
# (uneven bundle), a host on a level-2 switch
gen --m 4,2,4 --w 1,2,2 --parallel 2 --switch-ports 16
dmg -v drop=ft-l1-s0001:8 -v spinehosts=ft-l2-s0001:12 "$work/base.net" | ren >"$work/t3par.net"
# a real one: the NDR Quantum-2 DGX fabric of tests/fixtures/real (31 leaves,
# 9 spines, 26 up-cables missing, a SHARP aggregation node on every switch)
"$IBFAB" topo convert "$top/tests/fixtures/real/ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover" \
	--format ibsim -o "$work/ndr.net" >/dev/null
# complete trees
gen --m 8,8 --w 1,4 --parallel 2 --switch-ports 24; cp "$work/base.net" "$work/c2.net"
gen --kary 4 --n 3; cp "$work/base.net" "$work/c43.net"
gen --m 4,4,4 --w 1,2,2 --switch-ports 16; cp "$work/base.net" "$work/c3taper.net"

opensm -c "$work/def.conf" >/dev/null 2>&1 </dev/null
# run NET ENGINE LMC: prints "used worst/bound/permmean" per layer
run() {
	local net=$1 eng=$2 lmc=$3 d=$work/$(basename "$1" .net)-$2-$3
	mkdir -p "$d"
	osm_conf "$work/def.conf" "$eng" "$lmc" "$d/osm.conf"
	echo '# defaults' >"$d/empty.conf"
	env IBFAB_CONF="$d/empty.conf" LD_LIBRARY_PATH="$libdir" "$HARNESS" with "$net" "$d/sim" -- bash -c '
		. "$0"; s=$IBFAB_SIM_DIR
		opensm_once "$s" -F "$1" || exit 1
		ibsim-run dump_lfts >"$s/dump.raw" 2>/dev/null
		ibsim-run ibnetdiscover >"$s/net.ibnd" 2>/dev/null' "$top/tests/lib.sh" "$d/osm.conf" >/dev/null 2>&1
	grep -v 'replaced by dump_fts' "$d/sim/dump.raw" >"$d/dump.txt" 2>/dev/null
	local used
	used=$(grep -o '[a-z_]* tables configured on all switches' "$d/sim/opensm.log" 2>/dev/null | head -1 | cut -d' ' -f1)
	local out="" j js w b m
	for j in $(seq 0 $(( (1 << lmc) - 1 ))); do
		js=$("$IBFAB" route congestion --topology "$d/sim/net.ibnd" --lfts "$d/dump.txt" --layer "$j" --json 2>/dev/null)
		w=$(echo "$js" | sed -n 's/.*"shift": {[^}]*"worst": \([0-9]*\),.*/\1/p')
		b=$(echo "$js" | sed -n 's/.*"shift": {[^}]*"bound": \([0-9]*\),.*/\1/p')
		m=$(echo "$js" | sed -n 's/.*"perm": {[^}]*"mean_max": \([0-9.]*\),.*/\1/p')
		out="$out${out:+, }$w/$b/$m"
	done
	[ "$used" = "$eng" ] || out="$out (OpenSM fell back to ${used:-nothing})"
	echo "$out"
}
echo "| fabric | cut bound | dmodk | stock minhop | stock ftree |"
echo "|---|---|---|---|---|"
for n in t2014 t2miss t2uneven t3taper t3par ndr c2 c43 c3taper; do
	dm=$(run "$work/$n.net" dmodk 0); mh=$(run "$work/$n.net" minhop 0); ft=$(run "$work/$n.net" ftree 0)
	echo "| $n | $(echo "$dm" | cut -d/ -f2) | $dm | $mh | $ft |"
done
echo
echo "complete trees, dmodk per layer (worst/bound/perm mean):"
for n in c2 c43 c3taper; do
	for l in $lmcs; do echo "  $n lmc $l: $(run "$work/$n.net" dmodk "$l")"; done
done
