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
# the fabrics of bench/dmodk_irregular.sh --compete
. "$top/bench/ft_cases.sh"
ft_cases_irregular
ft_cases_compete
cases=$FT_CASES_COMPETE

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
