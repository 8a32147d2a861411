#!/usr/bin/env bash
# Busiest link of single-path tables: stock OpenSM minhop (run in ibsim, no
# plugin, tables read back with dump_lfts) against ibfab's minimal and dmodk
# engines computed offline on the fabric as OpenSM discovered it (the same
# LIDs).  Paths per link as `ibfab route stats` counts them: (source CA
# port, CA destination LID) pairs per directed switch-to-switch link.
# Fabrics: the real dumps of tests/fixtures/real, generated 2- and 3-level
# fat trees (complete, some with many spines or 3 cables per pair, with
# cables or a switch missing), Slim Flies q=5, 7
# (healthy, 4 cables missing, one switch missing) and two HyperX.  Prints a
# markdown table (max / mean per link); never passes or fails.
#
#   IBFAB=build/ibfab [IBFAB_BEFORE=/path/to/older/ibfab] bench/minimal_vs_minhop.sh
#
# IBFAB_BEFORE adds a column with another build's minimal (e.g. main).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
IBFAB=${IBFAB:-$top/build/ibfab}
BEFORE=${IBFAB_BEFORE:-}
PATH=$PATH:/usr/sbin:/sbin
export top_srcdir=$top
. "$top/tests/lib.sh"
work=$(mktemp -d /tmp/ibfab-mvm.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
F=$work/fab
mkdir -p "$F"
DMG=$top/contrib/net-damage.awk
FTD=$top/contrib/ft-damage.awk
for f in "$top"/tests/fixtures/real/*-s-p "$top"/tests/fixtures/real/fdr10*; do
	n=real-$(basename "$f" | cut -d- -f1-3)
	"$IBFAB" topo convert "$f" --format ibsim -o "$F/$n.net" 2>/dev/null
done
for q in 5 7; do
	"$IBFAB" topo gen slimfly --q $q --format ibsim -o "$F/sf$q.net"
	awk -f "$DMG" -v seed=1 -v cables=4 "$F/sf$q.net" "$F/sf$q.net" >"$F/sf$q-4cables.net"
	awk -f "$DMG" -v seed=2 -v deadno=10 "$F/sf$q.net" "$F/sf$q.net" >"$F/sf$q-1switch.net"
done
gen() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net"; }
gen --m 18,16 --w 1,9 --parallel 2 --switch-ports 36
cp "$work/base.net" "$F/ft2-18x16-2cables.net"
awk -f "$DMG" -v seed=1 -v cables=5 "$work/base.net" "$work/base.net" >"$F/ft2-18x16-5missing.net"
gen --m 12,8 --w 1,4 --parallel 2 --switch-ports 24
awk -f "$FTD" -v drop=ft-l1-s0002:15,ft-l1-s0005:12,ft-l1-s0005:11 \
	-v spinehosts=ft-l2-s0001:20,ft-l2-s0001:21 "$work/base.net" >"$F/ft2-12x8-damaged.net"
# complete 2-level trees where stock minhop beat minimal until the
# least-used-port candidate (docs/routing.md)
gen --m 60,8 --w 1,60
cp "$work/base.net" "$F/ft2-60x8-60spines.net"
gen --m 30,8 --w 1,10 --parallel 3
cp "$work/base.net" "$F/ft2-30x8-10spines-3cables.net"
gen --m 32,16 --w 1,16
cp "$work/base.net" "$F/ft2-32x16-16spines.net"
gen --kary 8 --n 3
cp "$work/base.net" "$F/ft3-k8.net"
awk -f "$DMG" -v seed=1 -v cables=6 "$work/base.net" "$work/base.net" >"$F/ft3-k8-6missing.net"
awk -f "$DMG" -v seed=3 -v deadno=70 "$work/base.net" "$work/base.net" >"$F/ft3-k8-1switch.net"
gen --m 4,4,4 --w 1,2,2 --switch-ports 16
awk -f "$FTD" -v drop=ft-l1-s0003:6,ft-l2-s0002:6 -v spinehosts=ft-l2-s0002:9 \
	"$work/base.net" >"$F/ft3-taper-damaged.net"
"$IBFAB" topo gen hyperx --s1 4 --s2 4 --hosts 4 --format ibsim -o "$F/hx-4x4.net"
"$IBFAB" topo gen hyperx --s1 6 --s2 4 --trunk 2 --hosts 6 --format ibsim -o "$F/hx-6x4-trunk2.net"

opensm -c "$work/def.conf" >/dev/null 2>&1 </dev/null
osm_conf "$work/def.conf" minhop 0 "$work/osm.conf" -e '/^event_plugin_name /d'
# "max mean" of a route stats run
mm() { sed -n 's/^paths per link: min [0-9]* mean \([0-9.]*\) max \([0-9]*\).*/\2 \1/p'; }
cell() { set -- $1; [ $# = 2 ] && printf '%s / %s' "$1" "$2" || printf '-'; }
if [ -n "$BEFORE" ]; then
	echo "| fabric | minhop (stock) | minimal (before) | minimal | dmodk |"
	echo "|---|---|---|---|---|"
else
	echo "| fabric | minhop (stock) | minimal | dmodk |"
	echo "|---|---|---|---|"
fi
for net in "$F"/*.net; do
	n=$(basename "$net" .net)
	d=$work/run-$n
	mkdir -p "$d"
	"$top/contrib/ibsim-harness.sh" with "$net" "$d/s" -- bash -c '
		. "$0"; s=$IBFAB_SIM_DIR
		opensm_once "$s" -F "$1" || exit 1
		ibsim-run dump_lfts 2>/dev/null | grep -v "replaced by dump_fts" >"$s/lfts.txt" || exit 2
		ibsim-run ibnetdiscover >"$s/net.ibnd" 2>/dev/null || exit 3
	' "$top/tests/lib.sh" "$work/osm.conf" >/dev/null 2>&1 || { echo "| $n | opensm failed | | | |"; continue; }
	t=$d/s/net.ibnd
	mh=$("$IBFAB" route stats --topology "$t" --lfts "$d/s/lfts.txt" 2>/dev/null | mm)
	mi=$("$IBFAB" route stats --topology "$t" --engine minimal 2>/dev/null | mm)
	dm=$("$IBFAB" route stats --topology "$t" --engine dmodk 2>/dev/null | mm)
	if [ -n "$BEFORE" ]; then
		bf=$("$BEFORE" route stats --topology "$t" --engine minimal 2>/dev/null | mm)
		echo "| $n | $(cell "$mh") | $(cell "$bf") | $(cell "$mi") | $(cell "$dm") |"
	else
		echo "| $n | $(cell "$mh") | $(cell "$mi") | $(cell "$dm") |"
	fi
done
