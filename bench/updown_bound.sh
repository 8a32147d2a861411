#!/usr/bin/env bash
# The up/down pair cut (docs/dmodk.md) on the damaged and irregular fat
# trees of bench/dmodk_irregular.sh --compete, offline (no OpenSM): per
# fabric and layer, the cut lower bound (leaf/pod cuts), the up/down bound
# (the larger of it and the pair cut) and the worst shift load of each
# engine given, and how many shifts route below the up/down bound (only a
# routing with valleys may: for dmodk that count must be 0).  Prints a
# markdown table; never passes or fails.
#
#   IBFAB=build/ibfab bench/updown_bound.sh [--engines "dmodk minimal"] [--lmc N]
set -u
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
engines="dmodk minimal"
lmc=0
while [ $# -gt 0 ]; do
	case $1 in
	--engines) engines=$2; shift 2 ;;
	--lmc) lmc=$2; shift 2 ;;
	*) echo "usage: $0 [--engines ENGINES] [--lmc N]" >&2; exit 2 ;;
	esac
done
IBFAB=${IBFAB:-$top/build/ibfab}
work=$(mktemp -d /tmp/ibfab-updown.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
dmg() { awk -f "$top/contrib/ft-damage.awk" "$@"; }
ren() { sed -e 's/ft-l\([0-9]\)-s0*\([0-9]\)/sw\1-\2/g' -e 's/ft-h0*\([0-9]\)/n\1/g'; }
gen() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net" >/dev/null; }
rnd() { awk -f "$top/contrib/net-damage.awk" "$@" "$work/base.net" "$work/base.net"; }

# the fabrics of bench/dmodk_irregular.sh --compete, built the same way
gen --m 24,6 --w 1,2 --parallel 4 --switch-ports 36
dmg -v drop=ft-l1-s0000:23,ft-l1-s0000:24,ft-l1-s0001:24,ft-l1-s0005:32 \
	-v dual=ft-l2-s0000:30:31 -v spinehosts=ft-l2-s0000:32 "$work/base.net" | ren >"$work/t2014.net"
gen --m 12,8 --w 1,4 --parallel 2 --switch-ports 24
dmg -v drop=ft-l1-s0002:15,ft-l1-s0005:12,ft-l1-s0005:11 -v spinehosts=ft-l2-s0001:20,ft-l2-s0001:21 \
	"$work/base.net" | ren >"$work/t2miss.net"
gen --m 12,6 --w 1,2 --parallel 3 --switch-ports 24
dmg -v drop=ft-l1-s0000:18,ft-l1-s0001:18,ft-l1-s0002:18,ft-l1-s0003:18,ft-l1-s0004:18,ft-l1-s0005:18 \
	-v dual=ft-l2-s0000:20:21 "$work/base.net" | ren >"$work/t2uneven.net"
gen --m 4,4,4 --w 1,2,2 --switch-ports 16
dmg -v drop=ft-l1-s0003:6,ft-l2-s0002:6 -v spinehosts=ft-l2-s0002:9 "$work/base.net" | ren >"$work/t3taper.net"
gen --m 4,2,4 --w 1,2,2 --parallel 2 --switch-ports 16
dmg -v drop=ft-l1-s0001:8 -v spinehosts=ft-l2-s0001:12 "$work/base.net" | ren >"$work/t3par.net"
"$IBFAB" topo convert "$top/tests/fixtures/real/ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover" \
	--format ibsim -o "$work/ndr.net" >/dev/null
"$IBFAB" topo convert "$top/tests/fixtures/real/fdr10-qdr-sx6036-8sw-2014.ibnetdiscover" \
	--format ibsim -o "$work/real2014.net" >/dev/null
while IFS='|' read -r name opts ncab spine; do
	# shellcheck disable=SC2086
	gen $opts
	[ "$ncab" = 0 ] && { cp "$work/base.net" "$work/$name.net"; continue; }
	for pct in 2 5 10; do
		rnd -v seed=1 -v cables=$(( (ncab * pct + 99) / 100 )) >"$work/$name-r$pct.net"
	done
	rnd -v seed=1 -v cables=0 -v dead="$spine" >"$work/$name-nospine.net"
done <<'EOF2'
x844|--m 8,4,4 --w 1,4,4|128|ft-l3-s0001
x844t|--m 8,4,4 --w 1,4,2 --switch-ports 16|96|ft-l3-s0001
x664|--m 6,6,4 --w 1,6,6|288|ft-l3-s0001
t8x16|--m 8,16 --w 1,8|128|ft-l2-s0001
c844|--m 8,4,4 --w 1,4,4|0|
EOF2
gen --m 8,4,4 --w 1,4,4 --switch-ports 12
rnd -v seed=2 -v cables=4 >"$work/base2.net"
dmg -v spinehosts=ft-l2-s0005:9,ft-l2-s0005:10 "$work/base2.net" | ren >"$work/x844-l2hosts.net"
gen --m 8,4,4 --w 1,4,4 --parallel 2 --switch-ports 24
dmg -v drop=ft-l1-s0000:9,ft-l1-s0001:11,ft-l1-s0002:13,ft-l1-s0003:15,ft-l2-s0002:9 \
	"$work/base.net" | ren >"$work/x844p2-uneven.net"
cases="x844-r2 x844-r5 x844-r10 x844-nospine x844-l2hosts x844p2-uneven
	x664-r2 x664-r5 x664-r10 x664-nospine x844t-r5 x844t-r10 t3taper t3par c844
	t8x16-r5 t8x16-r10 t8x16-nospine t2014 t2miss t2uneven real2014 ndr"

# cell FILE ENGINE: per layer "cut updown worst below" (JSON read by python3)
cell() {
	"$IBFAB" route congestion --topology "$1" --engine "$2" --lmc "$lmc" --layer all \
		--pattern shift --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for l in d["layers"]:
    s = l["shift"]
    print(s["bound"], s.get("bound_updown", "-"), s["worst"], s.get("below_bound_updown", "-"),
          s.get("bound_pair_src", ""), s.get("bound_pair_dst", ""), s.get("bound_pair_cables", ""))'
}
echo "| fabric | layer | cut bound | up/down bound | tightest pair (usable cables) | ${engines// / worst (below) | } worst (below) |"
echo "|---|---|---|---|---|$(for _ in $engines; do printf -- '---|'; done)"
for c in $cases; do
	declare -A col=()
	for e in $engines; do
		col[$e]=$(cell "$work/$c.net" "$e")
	done
	first=${engines%% *}
	nl=$(printf '%s\n' "${col[$first]}" | grep -c .)
	for ((j = 1; j <= nl; j++)); do
		read -r cb ub _ _ ps pd pc <<<"$(printf '%s\n' "${col[$first]}" | sed -n "${j}p")"
		row="| $c | $((j - 1)) | $cb | $ub | ${ps:+$ps -> $pd ($pc)} |"
		for e in $engines; do
			read -r _ _ w bl _ <<<"$(printf '%s\n' "${col[$e]}" | sed -n "${j}p")"
			row="$row $w ($bl) |"
		done
		echo "$row"
	done
	unset col
done
