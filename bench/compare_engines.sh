#!/usr/bin/env bash
# Path quality of OpenSM's built-in engines and ibfab's engines on the same
# simulated fabric, measured from the tables the switches hold (ibsim +
# stock opensm, read back with dump_lfts, evaluated by `ibfab route stats`
# and `ibfab route check`).  Prints figures; never pass/fail.
#
#   bench/compare_engines.sh [--q Q] [--hosts P] [--lmc N] [--engines "minhop dfsssp layered"]
#
# Needs a built tree (IBFAB=path/to/ibfab, default build/ibfab; the plugin is
# taken from the same build's .libs for ibfab engines).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
q=5 hosts=4 lmc=2 engines="minhop dfsssp layered"
while [ $# -gt 0 ]; do
	case "$1" in
	--q) q=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	--lmc) lmc=$2; shift 2 ;;
	--engines) engines=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
IBFAB=${IBFAB:-$top/build/ibfab}
libdir=$(dirname "$IBFAB")/.libs
PATH=$PATH:/usr/sbin:/sbin
work=$(mktemp -d /tmp/ibfab-cmp.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
"$IBFAB" topo gen slimfly --q "$q" --hosts "$hosts" --format ibsim -o "$work/sf.net" || exit 1
for e in $engines; do
	d=$work/$e
	mkdir -p "$d"
	cat >"$d/opensm.conf" <<CONF
routing_engine $e
lmc $lmc
sweep_interval 0
CONF
	case "$e" in minhop|updn|dnup|ftree|lash|dor|torus-2QoS|nue|dfsssp|sssp|file) ;;
	*) echo "event_plugin_name ibfab" >>"$d/opensm.conf" ;; esac
	LD_LIBRARY_PATH=$libdir contrib/ibsim-harness.sh with "$work/sf.net" "$d/sim" -- bash -c '
		cd "$IBFAB_SIM_DIR"
		s=$(date +%s.%N)
		OSM_TMP_DIR=$IBFAB_SIM_DIR OSM_CACHE_DIR=$IBFAB_SIM_DIR /usr/bin/time -f "%M %e" -o rss \
			timeout 1200 ibsim-run opensm -o -F "$0" -f opensm.log >opensm.out 2>&1 </dev/null
		ibsim-run ibnetdiscover >fabric.ibnd 2>/dev/null
		ibsim-run dump_lfts >lfts.txt 2>/dev/null
	' "$d/opensm.conf" >/dev/null 2>&1
	used=$(grep -o -E "[A-Za-z0-9_-]+ tables configured on all switches|tables configured by ibfab[^\"]*" "$d/sim/opensm.log" | tail -1)
	echo "=== engine $e (Slim Fly q=$q, $hosts hosts/switch, LMC $lmc): ${used:-no tables configured message}"
	echo "    opensm one sweep (-o): peak RSS, wall seconds: $(tail -1 "$d/sim/rss" 2>/dev/null)"
	"$IBFAB" route check -q --topology "$d/sim/fabric.ibnd" --lfts "$d/sim/lfts.txt" | sed 's/^/    /'
	"$IBFAB" route stats -q --topology "$d/sim/fabric.ibnd" --lfts "$d/sim/lfts.txt" | grep -E ">=|paths per link|unrouted" | sed 's/^/    /'
done
