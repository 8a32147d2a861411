#!/usr/bin/env bash
# How dmodk (and hratio, which routes through it) spreads the traffic of
# lost leaf-spine cables: generated fat trees and a rail-optimized fabric,
# cables unplugged with contrib/ft-damage.awk, routed offline.  Per fabric:
# the cut lower bound of the shifts, the worst max link load over all
# shifts, the busiest link's paths (`route stats`, paths per link max) and
# the aggregate max-min rate of all shifts (`sim flow --pattern shifts`).
# Prints a markdown table; never passes or fails.  Give two binaries to
# compare (e.g. the one before a change):
#
#   IBFAB=build/ibfab [IBFAB_OLD=/tmp/old/ibfab] bench/dmodk_spread.sh
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
IBFAB=${IBFAB:-$top/build/ibfab}
work=$(mktemp -d /tmp/ibfab-dkspread.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
dmg() { awk -f "$top/contrib/ft-damage.awk" "$@"; }
ft() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net" >/dev/null; }

# 2 levels, 16 hosts per leaf, 4 spines x 1 cable (4:1 taper), 8 leaves
ft --m 16,8 --w 1,4
cp "$work/base.net" "$work/c2taper.net"
dmg -v drop=ft-l1-s0000:18 "$work/base.net" >"$work/one.net"
dmg -v drop=ft-l1-s0000:18,ft-l1-s0003:20,ft-l1-s0005:17 "$work/base.net" >"$work/three.net"
dmg -v drop=ft-l1-s0000:18,ft-l1-s0000:19 "$work/base.net" >"$work/twosame.net"
# spine 1 gone (its paragraph and every cable to it)
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Switch[^\n]*"ft-l2-s0001"/' "$work/base.net" |
	grep -v '"ft-l2-s0001"\[' >"$work/nospine.net"
# 2 levels, 16 hosts per leaf, 4 spines x 2 cables: one short bundle; two
# short bundles (to spines 0 and 1) on one leaf
ft --m 16,8 --w 1,4 --parallel 2
cp "$work/base.net" "$work/c2par2.net"
dmg -v drop=ft-l1-s0000:18 "$work/base.net" >"$work/bundle.net"
dmg -v drop=ft-l1-s0000:18,ft-l1-s0000:20 "$work/base.net" >"$work/bundle2x.net"
# 2 levels, 24 hosts per leaf, 4 spines x 3 cables: one cable of a bundle
# (the 2 left still hold its share within the cut); two of them
ft --m 24,8 --w 1,4 --parallel 3
cp "$work/base.net" "$work/c2par3.net"
dmg -v drop=ft-l1-s0000:26 "$work/base.net" >"$work/bundle3.net"
dmg -v drop=ft-l1-s0000:26,ft-l1-s0000:27 "$work/base.net" >"$work/bundle3x2.net"
# 2 levels, full bisection, 8 spines
ft --m 8,16 --w 1,8
dmg -v drop=ft-l1-s0000:10 "$work/base.net" >"$work/full.net"
# 3 levels XGFT(3;8,4,4;1,4,4) (2:1 taper at the leaves): a leaf cable; a
# leaf cable and an uplink of another level-2 switch of that pod; a leaf
# cable whose parent chain also lost a cable
ft --m 8,4,4 --w 1,4,4
cp "$work/base.net" "$work/c3.net"
dmg -v drop=ft-l1-s0000:10 "$work/base.net" >"$work/l3leaf.net"
dmg -v drop=ft-l1-s0000:10,ft-l2-s0002:6 "$work/base.net" >"$work/l3pod.net"
dmg -v drop=ft-l1-s0000:10,ft-l1-s0005:11,ft-l2-s0000:6 "$work/base.net" >"$work/l3chain.net"
# 3 levels XGFT(3;16,4,4;1,4,4), 2 cables per pair: a leaf cable of a
# bundle; a level-2 uplink of a bundle in that pod as well
ft --m 16,4,4 --w 1,4,4 --parallel 2
cp "$work/base.net" "$work/c3par2.net"
dmg -v drop=ft-l1-s0000:18 "$work/base.net" >"$work/l3bundle.net"
dmg -v drop=ft-l1-s0000:18,ft-l2-s0002:10 "$work/base.net" >"$work/l3bundle2.net"
# rail-optimized 32 servers x 8 GPUs, 4 spines: one rail leaf's spine cable
"$IBFAB" topo gen rail --servers 32 --gpus 8 --spines 4 --format ibsim -o "$work/rbase.net" >/dev/null
dmg -v drop=rail00-l00:34 "$work/rbase.net" >"$work/rail.net"

# cell BIN NET ENGINE: worst/bound, busiest link paths, shifts aggregate Gb/s
cell() {
	local js w b pl ag
	js=$("$1" route congestion --topology "$2" --engine "$3" --pattern shift --json 2>/dev/null)
	w=$(echo "$js" | sed -n 's/.*"shift": {"count": [0-9]*, "worst": \([0-9]*\),.*/\1/p')
	b=$(echo "$js" | sed -n 's/.*"shift": {.*"bound": \([0-9]*\),.*/\1/p')
	pl=$("$1" route stats --topology "$2" --engine "$3" 2>/dev/null |
		sed -n 's/^paths per link: .* max \([0-9]*\) .*/\1/p')
	ag=$("$1" sim flow --topology "$2" --engine "$3" --pattern shifts --threads 1 2>/dev/null |
		awk -v e="$3" '$1 == e { print $2 }')
	echo "$w/$b, $pl, $ag"
}
hdr="| fabric | engine | worst/bound, busiest link paths, shifts Gb/s"
[ -n "${IBFAB_OLD:-}" ] && hdr="$hdr | before |" || hdr="$hdr |"
echo "$hdr"
echo "|---|---|---|${IBFAB_OLD:+---|}"
for n in c2taper one three twosame nospine c2par2 bundle bundle2x c2par3 bundle3 bundle3x2 full c3 l3leaf \
	l3pod l3chain c3par2 l3bundle l3bundle2 rail; do
	eng=dmodk
	[ "$n" = rail ] && eng=hratio
	row="| $n | $eng | $(cell "$IBFAB" "$work/$n.net" $eng) |"
	[ -n "${IBFAB_OLD:-}" ] && row="$row $(cell "$IBFAB_OLD" "$work/$n.net" $eng) |"
	echo "$row"
done
