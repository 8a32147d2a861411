#!/usr/bin/env bash
# Repairs over two sweeps (docs/performance.md, "Stable reroutes"): a
# fabric loses one switch and two switch cables (contrib/net-damage.awk,
# seeds 1-20), the cables come back on one sweep, the switch on the next.
# Cases:
#   torus  4 x 3 torus, one host per switch, minimal (the switch: 1 + seed % 12)
#   tree   XGFT(2;8,8;1,4), 2 cables per leaf-spine pair, dmodk (a spine)
#   sf7    Slim Fly q=7, LMC 1, layered (the switch: 1 + 7 * seed % 98)
# Per case and seed, the (switch, LID) entries each sweep changed
# (fault, cables back, switch back) and whether the end equals the healthy
# tables H, two ways:
#   live     bench/stable_chain: the tables carried from sweep to sweep in
#            memory, as in the plugin (marks and H included)
#   offline  ibfab route --previous-lfts from the dump of the step before;
#            with --healthy-lfts H when this ibfab has it (else no marks)
# Then the sums over the seeds.
# usage: IBFAB=build/ibfab CHAIN=build/bench/stable_chain bench/stable_chain.sh [CASE..] [--seeds "1 2 .."]
set -u
IBFAB=${IBFAB:-ibfab}
CHAIN=${CHAIN:-$(dirname "$IBFAB")/bench/stable_chain}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/stable_cases.sh
. "$top/bench/stable_cases.sh"
stable_args "$@"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
HAVE_H=0
"$IBFAB" route --help 2>&1 | grep -q -- --healthy-lfts && HAVE_H=1

for c in $CASES; do
	stable_gen "$c" "$W/h.ibnd" || continue
	"$IBFAB" route -q --topology "$W/h.ibnd" --engine "$E" -o "$W/h.lfts"
	echo "== $c ($E)"
	lf=0 l1=0 l2=0 lh=0 cf=0 c1=0 c2=0 of=0 o1=0 o2=0 oh=0 n=0
	for s in $SEEDS; do
		K=$(stable_switch "$c" "$s")
		awk -f "$top/contrib/net-damage.awk" -v seed="$s" -v cables=2 -v deadno="$K" "$W/h.ibnd" "$W/h.ibnd" >"$W/d.ibnd"
		awk -f "$top/contrib/net-damage.awk" -v seed="$s" -v cables=0 -v deadno="$K" "$W/h.ibnd" "$W/h.ibnd" >"$W/p.ibnd"
		# live: the chain in memory
		L=$("$CHAIN" "$E" "$W/h.ibnd" "$W/d.ibnd" "$W/p.ibnd" "$W/h.ibnd")
		# shellcheck disable=SC2046 # one word per figure
		set -- $(echo "$L" | sed -n 's/^step [0-9]*: moved \([0-9]*\) .*off H \([0-9]*\) of.*/\1 \2/p' | tr '\n' ' ')
		echo "seed $s live:    moved $1 / $3 / $5, off H at the end $6"
		lf=$((lf + $1)) l1=$((l1 + $3)) l2=$((l2 + $5)) lh=$((lh + ($6 > 0)))
		# shellcheck disable=SC2046
		set -- $(echo "$L" | sed -n 's/^step [0-9]*: .*(\([0-9]*\) columns).*/\1/p' | tr '\n' ' ')
		cf=$((cf + ${1:-0})) c1=$((c1 + ${2:-0})) c2=$((c2 + ${3:-0}))
		# offline: dumps from step to step
		HO=
		[ $HAVE_H = 1 ] && HO="--healthy-lfts $W/h.lfts --healthy-topology $W/h.ibnd"
		prev=h m=
		for t in d p h2; do
			tt=$t; [ $t = h2 ] && tt=h
			# shellcheck disable=SC2086
			x=$("$IBFAB" route --topology "$W/$tt.ibnd" --engine "$E" --previous-topology "$W/$prev.ibnd" \
				--previous-lfts "$W/$prev.lfts" $HO -o "$W/$t.lfts" 2>&1 |
				sed -n 's/.* \([0-9]*\) of [0-9]* (switch, LID) entries changed.*/\1/p')
			m="$m ${x:-?}"
			prev=$t
		done
		d=$("$IBFAB" route diff --topology "$W/h.ibnd" --lfts "$W/h.lfts" --lfts2 "$W/h2.lfts" 2>&1 | tail -1)
		set -- $m
		echo "seed $s offline: moved $1 / $2 / $3, end vs H: $d"
		of=$((of + $1)) o1=$((o1 + $2)) o2=$((o2 + $3))
		echo "$d" | grep -q '^0 of ' || oh=$((oh + 1))
		n=$((n + 1))
	done
	echo "sum over $n seeds, live:    fault $lf, cables back $l1, switch back $l2; $lh end off H; columns moved: $cf / $c1 / $c2"
	echo "sum over $n seeds, offline: fault $of, cables back $o1, switch back $o2; $oh end off H"
done
