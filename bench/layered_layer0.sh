#!/bin/sh
# Busiest link of layered's layer 0 (base LIDs) with LMC 1 and 2 against
# minimal with LMC 0, on the fabrics of bench/minimal_vs_minhop.sh (real
# dumps, damaged fat trees, Slim Flies whole and damaged), offline on the
# generator's / dump's LIDs.  Per fabric: minimal LMC 0 max; for LMC 1 and
# 2: layered's layer-0 max, its all-LID max and its share of switch pairs
# with >= 2 (LMC 1) or >= 3 (LMC 2) edge-disjoint paths.
#   IBFAB=build/ibfab [IBFAB_BEFORE=old ibfab] [WORK=dir] bench/layered_layer0.sh
# With IBFAB_BEFORE the tables are made by both and read by IBFAB's stats
# (older builds print no layer-0 line), "before -> after".  OPTS: more
# route options for IBFAB's layered runs (e.g. OPTS='--layer0-balance all').
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
IBFAB=${IBFAB:-$top/build/ibfab}
work=${WORK:-$(mktemp -d)}
F=$work/fab
mkdir -p "$F"
DMG=$top/contrib/net-damage.awk
FTD=$top/contrib/ft-damage.awk
for f in "$top"/tests/fixtures/real/qdr-qlogic*-s-p "$top"/tests/fixtures/real/qdr-is5030*-s-p \
	"$top"/tests/fixtures/real/qdr-ddr*-s-p "$top"/tests/fixtures/real/fdr10*; do
	n=real-$(basename "$f" | cut -d- -f1-3)
	"$IBFAB" topo convert "$f" --format ibsim -o "$F/$n.net" 2>/dev/null
done
# the chassis with two of its leaf-spine cables unplugged
awk -f "$DMG" -v seed=4 -v cables=2 "$F/real-qdr-qlogic-12800.net" "$F/real-qdr-qlogic-12800.net" \
	>"$F/real-qdr-qlogic-12800-2cables.net"
for q in 5 7; do
	"$IBFAB" topo gen slimfly --q $q --format ibsim -o "$F/sf$q.net"
	awk -f "$DMG" -v seed=1 -v cables=4 "$F/sf$q.net" "$F/sf$q.net" >"$F/sf$q-4cables.net"
	awk -f "$DMG" -v seed=2 -v deadno=10 "$F/sf$q.net" "$F/sf$q.net" >"$F/sf$q-1switch.net"
done
gen() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net"; }
gen --m 18,16 --w 1,9 --parallel 2 --switch-ports 36
cp "$work/base.net" "$F/ft2-18x16-2cables.net"
awk -f "$DMG" -v seed=1 -v cables=5 "$work/base.net" "$work/base.net" >"$F/ft2-18x16-5missing.net"
gen --kary 8 --n 3
cp "$work/base.net" "$F/ft3-k8.net"
awk -f "$DMG" -v seed=3 -v deadno=70 "$work/base.net" "$work/base.net" >"$F/ft3-k8-1switch.net"

st() { # fabric engine lmc ibfab [options] -> stats text
	f=$1 e=$2 l=$3 b=$4
	shift 4
	"$b" route --topology "$f" --engine "$e" --lmc "$l" --threads 2 -o "$work/t.dump" "$@" \
		>/dev/null 2>&1
	set -- "$f" "$e" "$l"
	"$IBFAB" route stats --topology "$1" --lmc "$3" --lfts "$work/t.dump" 2>/dev/null
}
max() { sed -n 's/^paths per link: .* max \([0-9]*\) .*/\1/p'; }
max0() { sed -n 's/^paths per link, layer 0 .* max \([0-9]*\)$/\1/p'; }
share() { sed -n "s/^switch pairs with >=$1 edge-disjoint paths: \(.*\)%/\1/p"; }
cellv() { [ -n "$IBFAB_BEFORE" ] && printf '%s -> %s' "$1" "$2" || printf '%s' "$2"; }
echo "| fabric | minimal LMC 0 | LMC 1: layer 0 / all / >=2 disj. | LMC 2: layer 0 / all / >=3 disj. |"
echo "|---|---|---|---|"
for f in "$F"/*.net; do
	n=$(basename "$f" .net)
	m0=$(st "$f" minimal 0 "$IBFAB" | max)
	row="| $n | $m0"
	for l in 1 2; do
		k=$((l + 1))
		A=$(st "$f" layered $l "$IBFAB" $OPTS)
		if [ -n "$IBFAB_BEFORE" ]; then B=$(st "$f" layered $l "$IBFAB_BEFORE"); else B=$A; fi
		row="$row | $(cellv "$(echo "$B" | max0)" "$(echo "$A" | max0)") / $(cellv "$(echo "$B" | max)" "$(echo "$A" | max)") / $(cellv "$(echo "$B" | share $k)" "$(echo "$A" | share $k)") %"
	done
	echo "$row |"
done
