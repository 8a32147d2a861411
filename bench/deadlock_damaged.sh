#!/usr/bin/env bash
# Deadlock freedom within the VL budget on damaged Slim Flies (docs/deadlock.md):
# for q in QS, the healthy fabric, 1 %, 3 % and 2 % of the inter-switch
# cables and one switch removed (contrib/net-damage.awk, seeds 1 and 2),
# `ibfab route --engine layered --lmc 2 --deadlock auto --max-vls V` for
# V = 8 and 4; prints the share of switch pairs with >= 3 edge-disjoint
# paths, whether route check / deadlock verify pass, and the scheme taken.
# usage: IBFAB=build/ibfab bench/deadlock_damaged.sh [--q "5 7 11"] [--vls "8 4"]
set -u
IBFAB=${IBFAB:-ibfab}
QS="5 7 11"; VLS="8 4"
while [ $# -gt 0 ]; do
	case $1 in
	--q) QS=$2; shift 2 ;;
	--vls) VLS=$2; shift 2 ;;
	*) echo "usage: $0 [--q \"5 7 11\"] [--vls \"8 4\"]" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
DMG="$top/contrib/net-damage.awk"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf '%-4s %-8s %-4s %-3s %-7s %-14s %s\n' q fault seed V share check/verify scheme
for q in $QS; do
	"$IBFAB" topo gen slimfly --q "$q" --format ibsim -o "$W/h.net" 2>/dev/null || continue
	# inter-switch cables: switch lines naming another switch, halved
	ncab=$(( $(awk '/^Switch/ { s = 1; next } /^(Hca|Ca)/ { s = 0 } s && /^\[/' "$W/h.net" |
		grep -vc -- '-h[0-9]*"') / 2 ))
	for fault in healthy 1% 3% 2% switch; do
		for seed in 1 2; do
			[ $fault = healthy ] && [ $seed = 2 ] && continue
			case $fault in
			healthy) cp "$W/h.net" "$W/d.net" ;;
			switch) awk -f "$DMG" -v seed=$seed -v deadno=$((seed * 7 + 3)) "$W/h.net" "$W/h.net" >"$W/d.net" ;;
			*) k=$(( (ncab * ${fault%\%} + 50) / 100 )); [ $k -lt 1 ] && k=1
			   awk -f "$DMG" -v seed=$seed -v cables=$k "$W/h.net" "$W/h.net" >"$W/d.net" ;;
			esac
			for V in $VLS; do
				"$IBFAB" route --topology "$W/d.net" --lmc 2 --deadlock auto --max-vls "$V" \
					-o "$W/l" --sl "$W/sl" --sl2vl "$W/s2v" >"$W/r.txt" 2>&1
				rc=$?
				"$IBFAB" route check --topology "$W/d.net" --lmc 2 --lfts "$W/l" >"$W/c.txt" 2>&1
				c=$?
				"$IBFAB" deadlock verify --topology "$W/d.net" --lmc 2 --lfts "$W/l" --sl "$W/sl" \
					--sl2vl "$W/s2v" >/dev/null 2>&1
				v=$?
				share=$("$IBFAB" route stats --topology "$W/d.net" --lmc 2 --lfts "$W/l" 2>/dev/null |
					awk '/^edge-disjoint/ { on = 1; next } on && /^ +[0-9]+:/ { k = $1 + 0; p = $3; gsub(/[()%]/, "", p); if (k >= 3) s += p } END { printf "%.1f", s }')
				scheme=$(grep -o 'deadlock [a-z]*' "$W/r.txt" | head -1 | cut -d' ' -f2)
				grep -q 'longer than 3 hops' "$W/r.txt" && scheme="$scheme (hybrid)"
				printf '%-4s %-8s %-4s %-3s %-7s %-14s %s\n' "$q" "$fault" "$seed" "$V" "$share" \
					"rc$rc/c$c/v$v" "$scheme"
			done
		done
	done
done
