#!/usr/bin/env bash
# Flow-level comparison of routing engines on one simulated fabric: OpenSM's
# built-in engines run in ibsim (stock opensm, tables read back with
# dump_lfts) beside ibfab's engines computed offline for the same fabric and
# LIDs, all through `ibfab sim flow` on the same patterns and placement.
# Prints figures; never pass/fail.
#
#   bench/sim_compare.sh [--slimfly Q | --fattree "GEN OPTIONS"] [--lmc N]
#                        [--stock "minhop dfsssp"] [--ibfab "layered minimal"]
#                        [--patterns "bisection:50 a2a adversarial"] [--mat routing|any|both]
#
# IBFAB=path/to/ibfab (default build/ibfab).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
gen="slimfly --q 5" lmc=2 stock="minhop dfsssp" ours="layered minimal"
pats="bisection:50 a2a adversarial" mat=both
while [ $# -gt 0 ]; do
	case "$1" in
	--slimfly) gen="slimfly --q $2"; shift 2 ;;
	--fattree) gen="fattree $2"; shift 2 ;;
	--lmc) lmc=$2; shift 2 ;;
	--stock) stock=$2; shift 2 ;;
	--ibfab) ours=$2; shift 2 ;;
	--patterns) pats=$2; shift 2 ;;
	--mat) mat=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
IBFAB=${IBFAB:-$top/build/ibfab}
PATH=$PATH:/usr/sbin:/sbin
work=$(mktemp -d /tmp/ibfab-simcmp.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
"$IBFAB" topo gen $gen --format ibsim -o "$work/fabric.net" || exit 1
args=()
for e in $stock; do
	d=$work/$e
	mkdir -p "$d"
	printf 'routing_engine %s\nlmc %s\nsweep_interval 0\n' "$e" "$lmc" >"$d/opensm.conf"
	contrib/ibsim-harness.sh with "$work/fabric.net" "$d/sim" -- bash -c '
		cd "$IBFAB_SIM_DIR"
		OSM_TMP_DIR=$IBFAB_SIM_DIR OSM_CACHE_DIR=$IBFAB_SIM_DIR \
			timeout 1200 ibsim-run opensm -o -F "$0" -f opensm.log >opensm.out 2>&1 </dev/null
		ibsim-run ibnetdiscover >fabric.ibnd 2>/dev/null
		ibsim-run dump_lfts >lfts.txt 2>/dev/null
	' "$d/opensm.conf" >/dev/null 2>&1
	used=$(grep -o -E "[A-Za-z0-9_-]+ tables configured on all switches" "$d/sim/opensm.log" | tail -1)
	echo "stock $e: ${used:-no tables configured message in opensm.log}"
	cp "$d/sim/lfts.txt" "$work/$e.lfts"
	[ -s "$work/fabric.ibnd" ] || cp "$d/sim/fabric.ibnd" "$work/fabric.ibnd"
	args+=(--lfts "$work/$e.lfts")
done
if [ ! -s "$work/fabric.ibnd" ]; then
	# no stock run: ibfab engines on the generated fabric with assigned LIDs
	"$IBFAB" topo convert "$work/fabric.net" --format ibnetdiscover -o "$work/fabric.ibnd" || exit 1
	lmcopt=(--lmc "$lmc")
else
	lmcopt=()
fi
for e in $ours; do args+=(--engine "$e"); done
for p in $pats; do args+=(--pattern "$p"); done
echo "fabric: $gen, LMC $lmc"
echo "command: ibfab sim flow --topology fabric.ibnd ${lmcopt[*]} ${args[*]} --mat $mat" | sed "s|$work/||g"
/usr/bin/time -f "sim: %e s, %M KB peak" "$IBFAB" sim flow --topology "$work/fabric.ibnd" "${lmcopt[@]}" "${args[@]}" --mat "$mat" 2>&1 | sed "s|$work/||g"
