#!/usr/bin/env bash
# Growth during a repair (docs/performance.md, "Stable reroutes"): the
# healthy tables H are those of a fabric without one switch (K, one it
# never had); two switch cables fail (contrib/net-damage.awk, seeds 1-20);
# switch K is cabled in while the cables are still out; then the cables
# come back.  Cases as in bench/stable_chain.sh:
#   torus  4 x 3 torus, one host per switch, minimal (K: 1 + seed % 12)
#   tree   XGFT(2;8,8;1,4), 2 cables per leaf-spine pair, dmodk (K: a spine)
#   sf7    Slim Fly q=7, LMC 1, layered (K: 1 + 7 * seed % 98)
# bench/stable_chain carries the tables in memory as the plugin does.  Per
# seed: the (switch, LID) entries each sweep changed (fault, switch in,
# cables back), the entries at the end that differ from "H grown" (the
# final fabric routed from H in one stable reroute: what the repair and
# then the growth give) and whether a copy of H is still kept; then the
# sums.
# usage: IBFAB=build/ibfab CHAIN=build/bench/stable_chain bench/stable_grow.sh [CASE..] [--seeds "1 2 .."]
set -u
IBFAB=${IBFAB:-ibfab}
CHAIN=${CHAIN:-$(dirname "$IBFAB")/bench/stable_chain}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/stable_cases.sh
. "$top/bench/stable_cases.sh"
stable_args "$@"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

for c in $CASES; do
	stable_gen "$c" "$W/f.ibnd" || continue
	echo "== $c ($E)"
	l0=0 l1=0 l2=0 off=0 kept=0 n=0
	for s in $SEEDS; do
		K=$(stable_switch "$c" "$s")
		dmg() { awk -f "$top/contrib/net-damage.awk" -v seed="$s" "$@" "$W/f.ibnd" "$W/f.ibnd"; }
		dmg -v cables=0 -v deadno="$K" >"$W/h.ibnd"
		dmg -v cables=2 -v deadno="$K" >"$W/d.ibnd"
		dmg -v cables=2 >"$W/g.ibnd"
		L=$("$CHAIN" "$E" "$W/h.ibnd" "$W/d.ibnd" "$W/g.ibnd" "$W/f.ibnd")
		if echo "$L" | grep -q FAILED; then
			echo "seed $s: route check FAILED"
		fi
		# shellcheck disable=SC2046 # one word per figure
		set -- $(echo "$L" | sed -n 's/^step [0-9]*: moved \([0-9]*\) .*/\1/p' | tr '\n' ' ')
		m0=$1 m1=$2 m2=$3
		e=$(echo "$L" | sed -n 's/^end off H grown \([0-9]*\) of \([0-9]*\), \(.*\)/\1 \2 \3/p')
		read -r od on hk <<<"$e"
		echo "seed $s: moved $m0 / $m1 / $m2, end off H grown $od of $on, $hk"
		l0=$((l0 + m0)) l1=$((l1 + m1)) l2=$((l2 + m2))
		off=$((off + (od > 0)))
		[ "$hk" = "H kept" ] && kept=$((kept + 1))
		n=$((n + 1))
	done
	echo "sum over $n seeds: fault $l0, switch in $l1, cables back $l2; $off end off H grown; $kept keep a copy of H"
done
