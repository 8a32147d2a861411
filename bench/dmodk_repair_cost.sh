#!/usr/bin/env bash
# Cost and effect of the dmodk leaf repair on large damaged 3-level trees,
# before and after a change: per tree and LMC, wall time and peak memory of
# `ibfab route` (best of REPS runs, /usr/bin/time), whether the two binaries
# wrote the same tables (cmp of `route -o`), the repair's log line (entries
# moved, worst shift load before -> after), and at LMC 0 the worst shift
# load / cut bound and mean max over the shifts from `route congestion`.
# Cables cut with contrib/net-damage.awk (seed 1).  Never passes or fails.
#
#   IBFAB=build/ibfab IBFAB_OLD=/tmp/old/ibfab [REPS=3] [LMCS="0 2"] [BIG=1] bench/dmodk_repair_cost.sh
# BIG=1 adds XGFT(3;16,16,32;1,16,16), 8192 hosts (several seconds per run).
set -u
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
IBFAB=${IBFAB:-$top/build/ibfab}
OLD=${IBFAB_OLD:?IBFAB_OLD: the binary to compare with}
reps=${REPS:-3}
lmcs=${LMCS:-0 2}
work=$(mktemp -d /tmp/ibfab-dkrepair.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cases="x2048|--m 16,16,8 --w 1,16,16|82
k16n3|--kary 16 --n 3|164"
[ -n "${BIG:-}" ] && cases="$cases
x8192|--m 16,16,32 --w 1,16,16|328"
# best BIN NET LMC OUT: "seconds KB" of the fastest of $reps runs
best() {
	local b=""
	for _ in $(seq "$reps"); do
		/usr/bin/time -f "%e %M" -o "$work/t" "$1" route --topology "$2" --engine dmodk \
			--lmc "$3" -o "$4" >/dev/null 2>&1
		b=$(printf '%s\n%s\n' "$b" "$(cat "$work/t")" | awk 'NF' | sort -n | head -1)
	done
	echo "$b"
}
cong() {
	"$1" route congestion --topology "$2" --engine dmodk --layer all --json 2>/dev/null |
		python3 -c '
import json, sys
l = json.load(sys.stdin)["layers"][0]["shift"]
print("%d/%d, %.3f" % (l["worst"], l["bound"], l["mean_max"]))'
}
echo "| tree | LMC | before: s, MB | after: s, MB | same tables | repair (after) | LMC 0 worst/bound, shift mean: before -> after |"
echo "|---|---|---|---|---|---|---|"
while IFS='|' read -r name opts ncab; do
	# shellcheck disable=SC2086 # the options are words
	"$IBFAB" topo gen fattree $opts --format ibsim -o "$work/base.net" >/dev/null
	awk -f "$top/contrib/net-damage.awk" -v seed=1 -v cables="$ncab" "$work/base.net" \
		"$work/base.net" >"$work/$name.net"
	for l in $lmcs; do
		read -r t kb <<<"$(best "$OLD" "$work/$name.net" "$l" "$work/old.lft")"
		o="$t, $((kb / 1024))"
		read -r t kb <<<"$(best "$IBFAB" "$work/$name.net" "$l" "$work/new.lft")"
		n="$t, $((kb / 1024))"
		same=no
		cmp -s "$work/old.lft" "$work/new.lft" && same=yes
		rep=$("$IBFAB" route --topology "$work/$name.net" --engine dmodk --lmc "$l" -v \
			-o /dev/null 2>&1 | grep 'leaf repair' | sed 's/.*leaf repair/leaf repair/' |
			sed 's/ leaf entries and \([0-9]*\) level-2 entries moved to another up-cable, worst shift load/ + \1 (level 2) moved, worst/' |
			paste -sd ';' -)
		c=""
		[ "$l" = 0 ] && c="$(cong "$OLD" "$work/$name.net") -> $(cong "$IBFAB" "$work/$name.net")"
		echo "| $name ($ncab cut) | $l | $o | $n | $same | ${rep:-none} | $c |"
	done
done <<<"$cases"
