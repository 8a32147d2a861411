#!/usr/bin/env bash
# Stable reroutes when something comes back (docs/reliability.md): a part
# goes, a stable reroute keeps what works (--previous-lfts), the part comes
# back and a second stable reroute runs from the damaged tables.  Cases:
#   spine   2-level fat tree (16 leaves x 16 hosts, 8 spines), dmodk, one
#           spine removed then restored
#   cable   the same tree, one leaf-spine cable removed then restored
#   new     the same tree routed from scratch without a spine, then the
#           spine appears (a switch the tables never had)
#   sf7-1, sf7-2, sf11-2  Slim Fly q=7 (LMC 1, 2) and q=11 (LMC 2), layered,
#           one inter-switch cable removed then restored
# Per case: the (switch, LID) entries each sweep changed (the stable
# summary), how far the repaired tables are from a fresh run's, and the
# all-to-all link load (bench/link_load_a2a.py: max/mean over the switch
# cables, and the flows on the spine's cables) of the fresh tables and of
# the tables after the repair; the congestion cell (route congestion:
# worst shift / contention-free share / mean permutation max load).
# usage: IBFAB=build/ibfab bench/stable_restore.sh [--mode TRUE|keep|failures] [CASE..]
set -u
IBFAB=${IBFAB:-ibfab}
MODE=TRUE
if [ "${1:-}" = --mode ]; then MODE=$2; shift 2; fi
CASES=${*:-spine cable new sf7-1 sf7-2}
top=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
load() { python3 "$top/bench/link_load_a2a.py" "$@"; }

"$IBFAB" topo gen fattree --m 16,16 --w 1,8 -o "$W/ft.ibnd" >/dev/null
for c in $CASES; do
	case $c in
	spine | new) H=$W/ft.ibnd E=dmodk DMG="-v cables=0 -v deadno=17" SP=ft-l2-s0000 ;;
	cable) H=$W/ft.ibnd E=dmodk DMG="-v cables=1 -v deadno=0" SP= ;;
	sf*)
		q=${c#sf}; l=${q#*-}; q=${q%-*}
		H=$W/sf$q-$l.ibnd E=layered DMG="-v cables=1 -v deadno=0" SP=
		[ -s "$H" ] || "$IBFAB" topo gen slimfly --q "$q" --lmc "$l" -o "$H" >/dev/null ;;
	*) echo "unknown case $c" >&2; continue ;;
	esac
	D=$W/$c
	mkdir -p "$D"
	# shellcheck disable=SC2086
	awk -f "$top/contrib/net-damage.awk" -v seed=1 $DMG "$H" "$H" >"$D/d.ibnd"
	"$IBFAB" route -q --topology "$H" --engine "$E" -o "$D/h.lfts"
	echo "== $c ($E, stable_reroute $MODE)"
	if [ "$c" = new ]; then
		"$IBFAB" route -q --topology "$D/d.ibnd" --engine "$E" -o "$D/d.lfts"
		echo "before: the fabric without the spine, tables from scratch"
	else
		"$IBFAB" route --topology "$D/d.ibnd" --engine "$E" --stable-reroute "$MODE" \
			--previous-topology "$H" --previous-lfts "$D/h.lfts" -o "$D/d.lfts" 2>&1 |
			sed -n 's/.*stable: /fault sweep: /p'
	fi
	"$IBFAB" route --topology "$H" --engine "$E" --stable-reroute "$MODE" \
		--previous-topology "$D/d.ibnd" --previous-lfts "$D/d.lfts" -o "$D/r.lfts" 2>&1 |
		sed -n -e 's/.*stable: /repair sweep: /p' -e 's/.*stable_reroute failures: /repair sweep: /p'
	echo "repaired vs fresh: $("$IBFAB" route diff --topology "$H" --lfts "$D/h.lfts" --lfts2 "$D/r.lfts" 2>&1 | tail -1)"
	echo "load, fresh:    $(load "$H" "$D/h.lfts" all ${SP:+"$SP"} | tr '\n' ';')"
	echo "load, repaired: $(load "$H" "$D/r.lfts" all ${SP:+"$SP"} | tr '\n' ';')"
	echo "congestion cell, fresh / repaired: $("$IBFAB" route congestion --topology "$H" --lfts "$D/h.lfts" | sed -n 's/.*cell: //p') / $("$IBFAB" route congestion --topology "$H" --lfts "$D/r.lfts" | sed -n 's/.*cell: //p')"
done
