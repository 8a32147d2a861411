#!/usr/bin/env bash
# The main job on the embedded default: install, build, then make the cabling
# plan of a Slim Fly (q=5, 4 hosts per switch: 50 switches, 200 hosts), run the
# planned fabric in ibsim with the stock Debian opensm and the ibfab plugin
# (engine `layered`, LMC 2, QoS on, deadlock scheme `auto`), discover it,
# validate the cabling against the plan, read the switches' forwarding tables
# back and let ibfab check them: every pair routed, path statistics, and the
# channel dependency graph of the tables with the scheme's SLs and SL2VL.
#
#   bash contrib/demo.sh [--q Q] [--hosts P] [--lmc N] [--engine NAME] [--keep]
#                        [--installed]   (use the installed ibfab and plugin, e.g.
#                                         from the Debian packages; no build)
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
q=5 hosts=4 lmc=2 engine=layered keep= installed=
while [ $# -gt 0 ]; do
	case "$1" in
	--q) q=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	--lmc) lmc=$2; shift 2 ;;
	--engine) engine=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--installed) installed=1; shift ;;
	-h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo: unknown option $1" >&2; exit 2 ;;
	esac
done
PATH=$PATH:/usr/sbin:/sbin

if [ -n "$installed" ]; then
	IBFAB=$(command -v ibfab) || { echo "demo: --installed: no ibfab in PATH" >&2; exit 1; }
	# OpenSM dlopen()s libibfab.so through the normal library search path
	/sbin/ldconfig -p | grep -q 'libibfab\.so ' || { echo "demo: --installed: libibfab.so is not in the ld.so cache" >&2; exit 1; }
	echo "== using the installed $IBFAB and $(/sbin/ldconfig -p | awk '/libibfab\.so /{print $NF; exit}')"
else
	echo "== installing dependencies and building"
	bash contrib/install-deps.sh
	[ -x configure ] || ./autogen.sh >/dev/null
	mkdir -p build-demo
	(cd build-demo && { [ -f Makefile ] || ../configure --enable-werror >/dev/null; } && make -j"$(nproc)" >/dev/null)
	IBFAB=$top/build-demo/ibfab
	[ -f build-demo/.libs/libibfab.so ] || { echo "demo: the OpenSM plugin was not built (libopensm-dev missing?)" >&2; exit 1; }
	# OpenSM finds the plugin of the build tree through LD_LIBRARY_PATH
	export LD_LIBRARY_PATH=$top/build-demo/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

work=$(mktemp -d /tmp/ibfab-demo.XXXXXX)
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
echo "== cabling plan of Slim Fly q=$q with $hosts hosts per switch"
"$IBFAB" cabling slimfly --q "$q" --hosts "$hosts" -o "$work/plan.csv"
cp "$work/plan.net" "$work/slimfly.net"

cat >"$work/opensm.conf" <<CONF
event_plugin_name ibfab
routing_engine $engine
lmc $lmc
qos TRUE
use_ucast_cache FALSE
log_flags 0x03
dump_files_dir $work/sim
sweep_interval 0
CONF
printf 'deadlock auto\n' >"$work/ibfab.conf"
export IBFAB_CONF=$work/ibfab.conf

echo "== ibsim + opensm (engine $engine, LMC $lmc) + ibnetdiscover + dump_lfts"
contrib/ibsim-harness.sh with "$work/slimfly.net" "$work/sim" -- bash -c '
	set -e
	cd "$IBFAB_SIM_DIR"
	OSM_TMP_DIR=$IBFAB_SIM_DIR OSM_CACHE_DIR=$IBFAB_SIM_DIR timeout 600 ibsim-run opensm -o -F "$0" \
		-f "$IBFAB_SIM_DIR/opensm.log" >"$IBFAB_SIM_DIR/opensm.out" 2>&1 </dev/null
	ibsim-run ibnetdiscover >"$IBFAB_SIM_DIR/fabric.ibnetdiscover" 2>/dev/null
	ibsim-run dump_lfts >"$IBFAB_SIM_DIR/lfts.txt" 2>/dev/null
' "$work/opensm.conf"

echo "== what OpenSM said about routing"
grep -E "ibfab|routing engine|tables configured|SUBNET UP|fall" "$work/sim/opensm.log" | sed 's/^/  /' | tail -12

echo "== ibfab topo info (the discovered fabric)"
"$IBFAB" topo info "$work/sim/fabric.ibnetdiscover"
echo "== ibfab route check (tables read back from the switches)"
"$IBFAB" route check --topology "$work/sim/fabric.ibnetdiscover" --lfts "$work/sim/lfts.txt"
echo "== ibfab route stats"
"$IBFAB" route stats --topology "$work/sim/fabric.ibnetdiscover" --lfts "$work/sim/lfts.txt"
echo "== ibfab validate (discovered cabling against the plan)"
"$IBFAB" validate --plan "$work/plan.csv" --fabric "$work/sim/fabric.ibnetdiscover" | tail -3
echo "== deadlock: the scheme's SLs and SL2VL (same engine, LIDs and seed, offline) on the tables read back"
"$IBFAB" route -q --topology "$work/sim/fabric.ibnetdiscover" --engine "$engine" --deadlock auto \
	--sl "$work/sl.txt" --sl2vl "$work/sl2vl.txt" -o "$work/offline.dump"
"$IBFAB" route diff -q --topology "$work/sim/fabric.ibnetdiscover" --lfts "$work/sim/lfts.txt" --lfts2 "$work/offline.dump"
"$IBFAB" deadlock verify --topology "$work/sim/fabric.ibnetdiscover" --lfts "$work/sim/lfts.txt" \
	--sl "$work/sl.txt" --sl2vl "$work/sl2vl.txt"
[ -n "$keep" ] && echo "== files kept in $work"
exit 0
