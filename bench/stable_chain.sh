#!/usr/bin/env bash
# Repairs over several sweeps (docs/performance.md, "Stable reroutes"): a
# fabric loses one switch and some switch cables (contrib/net-damage.awk,
# seeds 1-20), which come back over STEPS sweeps:
#   --steps 2 (default)  two cables out; both back on one sweep, the switch on the next
#   --steps N (N >= 3)   N - 1 cables out; one back per sweep (the last cut first),
#                        then the switch
# Cases:
#   torus  4 x 3 torus, one host per switch, minimal (the switch: 1 + seed % 12)
#   tree   XGFT(2;8,8;1,4), 2 cables per leaf-spine pair, dmodk (a spine)
#   sf7    Slim Fly q=7, LMC 1, layered (the switch: 1 + 7 * seed % 98)
# Per case and seed, the (switch, LID) entries each sweep changed (the
# fault, then each repair step), the most times one column moved over the
# repair steps and how many columns moved more than twice, and whether the
# end equals the healthy tables H, two ways:
#   live     bench/stable_chain: the tables carried from sweep to sweep in
#            memory, as in the plugin (marks and H included)
#   offline  ibfab route --previous-lfts from the dump of the step before;
#            with --healthy-lfts H when this ibfab has it (else no marks)
# Then the sums over the seeds.
# usage: IBFAB=build/ibfab CHAIN=build/bench/stable_chain bench/stable_chain.sh [CASE..] [--seeds "1 2 .."] [--steps N]
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
# the cables out at each step after the healthy fabric (the fault first)
if [ "$STEPS" -le 2 ]; then
	CUTS="2 0"
else
	CUTS=$(seq $((STEPS - 1)) -1 0 | tr '\n' ' ')
fi
NS=$(echo "$CUTS" | wc -w) # sweeps after H but the last (h2)

for c in $CASES; do
	stable_gen "$c" "$W/h.ibnd" || continue
	"$IBFAB" route -q --topology "$W/h.ibnd" --engine "$E" -o "$W/h.lfts"
	echo "== $c ($E), $STEPS repair steps"
	declare -a LS OS CS
	for i in $(seq 0 "$NS"); do LS[i]=0 OS[i]=0 CS[i]=0; done
	lh=0 oh=0 n=0 most=0 over2=0
	for s in $SEEDS; do
		K=$(stable_switch "$c" "$s")
		files=
		for k in $CUTS; do
			awk -f "$top/contrib/net-damage.awk" -v seed="$s" -v cables="$k" -v deadno="$K" "$W/h.ibnd" "$W/h.ibnd" >"$W/c$k.ibnd"
			files="$files $W/c$k.ibnd"
		done
		# live: the chain in memory
		# shellcheck disable=SC2086 # one word per file
		if ! L=$("$CHAIN" "$E" "$W/h.ibnd" $files "$W/h.ibnd" 2>"$W/err"); then
			echo "seed $s: skipped ($(head -c 160 "$W/err"))"
			continue
		fi
		mv=$(echo "$L" | sed -n 's/^step [0-9]*: moved \([0-9]*\) .*/\1/p' | tr '\n' ' ')
		cm=$(echo "$L" | sed -n 's/^step [0-9]*: .*(\([0-9]*\) columns).*/\1/p' | tr '\n' ' ')
		end=$(echo "$L" | sed -n 's/^step [0-9]*: .*off H \([0-9]*\) of.*/\1/p' | tail -1)
		# shellcheck disable=SC2046
		set -- $(echo "$L" | sed -n 's/^repair steps: a column moved at most \([0-9]*\) times, \([0-9]*\) columns.*/\1 \2/p')
		echo "seed $s live:    moved $(echo "$mv" | sed 's/ *$//; s/ / \/ /g'), off H at the end $end; a column moved at most $1 times in the repair, $2 columns more than twice"
		[ "$1" -gt "$most" ] && most=$1
		over2=$((over2 + $2))
		lh=$((lh + (end > 0)))
		i=0; for x in $mv; do LS[i]=$((LS[i] + x)); i=$((i + 1)); done
		i=0; for x in $cm; do CS[i]=$((CS[i] + x)); i=$((i + 1)); done
		# offline: dumps from step to step
		HO=
		[ $HAVE_H = 1 ] && HO="--healthy-lfts $W/h.lfts --healthy-topology $W/h.ibnd"
		prev=h m=
		for t in $(for k in $CUTS; do echo "c$k"; done) h2; do
			tt=$t; [ "$t" = h2 ] && tt=h
			# shellcheck disable=SC2086
			x=$("$IBFAB" route --topology "$W/$tt.ibnd" --engine "$E" --previous-topology "$W/$prev.ibnd" \
				--previous-lfts "$W/$prev.lfts" $HO -o "$W/$t.lfts" 2>&1 |
				sed -n 's/.* \([0-9]*\) of [0-9]* (switch, LID) entries changed.*/\1/p')
			m="$m ${x:-?}"
			prev=$t
		done
		d=$("$IBFAB" route diff --topology "$W/h.ibnd" --lfts "$W/h.lfts" --lfts2 "$W/h2.lfts" 2>&1 | tail -1)
		echo "seed $s offline: moved $(echo "${m# }" | sed 's/ / \/ /g'), end vs H: $d"
		i=0; for x in $m; do [ "$x" != "?" ] && OS[i]=$((OS[i] + x)); i=$((i + 1)); done
		echo "$d" | grep -q '^0 of ' || oh=$((oh + 1))
		n=$((n + 1))
	done
	echo "sum over $n seeds, live:    moved (fault, then each repair step) ${LS[*]}; repair total $(( $(echo "${LS[*]}" | tr ' ' '+') - LS[0] )); $lh end off H; columns moved: ${CS[*]}; a column moved at most $most times in the repair, $over2 (column, seed) more than twice"
	echo "sum over $n seeds, offline: moved ${OS[*]}; $oh end off H"
done
