#!/usr/bin/env bash
# dmodk with a dmodk_roots file in a running OpenSM (the plugin), when a root
# spine fails: a two-level fat tree (4 leaves x 4 hosts, 2 spines) in ibsim,
# ibfab.conf naming both spines, LMC 1.
#  - one spine unplugged (every cable): dmodk still routes the sweep from the
#    other root (no fallback to minhop; the log names the missing root),
#    every pair is delivered loop-free in what dump_lfts reads back;
#  - the spine back: dmodk routes with both roots, no warning;
#  - a roots file naming only a spine that is gone: dmodk refuses with the
#    GUID named and OpenSM falls back (there is no tree to route from);
#  - a roots file naming a leaf: dmodk routes, and the log warns with the
#    file's line and the structure's top level.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
mk_workdir
osm_sim_workdir
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --format ibsim -o "$WORK/ft.net"
spine0=$(awk '/^switchguid=/ { g = $0 } /^Switch.*"ft-l2-s0000"/ { sub(/.*=/, "", g); print g; exit }' "$WORK/ft.net")
spine1=$(awk '/^switchguid=/ { g = $0 } /^Switch.*"ft-l2-s0001"/ { sub(/.*=/, "", g); print g; exit }' "$WORK/ft.net")
check "the two spines' GUIDs ($spine0 $spine1)" test -n "$spine0" -a -n "$spine1"
printf '%s\n%s\n' "$spine0" "$spine1" >"$WORK/roots"
printf 'dmodk_roots %s\n' "$WORK/roots" >"$WORK/ibfab.conf"
osm_conf "$WORK/opensm.default.conf" dmodk 1 "$WORK/opensm.conf" -e 's|^sweep_interval .*|sweep_interval 1|'

# step NAME FROM: the log since line FROM in $WORK/NAME.log, tables read back
# and traced
step() {
	local d="$WORK/$1"
	mkdir -p "$d"
	tail -n +"$(($2 + 1))" "$SIM/opensm.log" >"$d/opensm.log"
	grep -E 'ibfab dmodk: (warning|cannot)|tables configured|falls back' "$d/opensm.log" |
		cut -c1-220 | diag
	IBSIM_SOCKNAME=$(cat "$SIM/sockname") read_lfts "$d"
	check "$1: tables read back" test -s "$d/lfts.txt"
	route_check_clean "$d" --topology "$d/net.ibnd" --lfts "$d/lfts.txt"
	check "$1: route check: every pair delivered, no loop" test $? -eq 0
}
change() { # NAME CONSOLE-LINE..
	local name=$1
	shift
	osm_console_sweep "$name" "$@"
	step "$name" "$OSM_FROM"
}

SIM="$WORK/sim"
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/ft.net" "$SIM" 2>&1 | diag
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"
osm_wait_sweep 0
check "OpenSM up" test $? -eq 0
step healthy 0
check "healthy: dmodk configured the tables" grep -q "dmodk: tables configured by ibfab" "$WORK/healthy/opensm.log"

change spine-down 'Unlink "ft-l2-s0001"'
L=$WORK/spine-down/opensm.log
check "spine down: dmodk still configured the tables" grep -q "dmodk: tables configured by ibfab" "$L"
check "spine down: no fallback" bash -c "! grep -qE 'cannot route|falls back' '$L'"
check "spine down: the log names the root that is gone" \
	grep -q "ibfab dmodk: warning: 1 of the 2 dmodk_roots switch(es) not in the fabric (0x0*${spine1#0x}); the levels come from the other 1" "$L"

change spine-back 'ReLink "ft-l2-s0001"'
L=$WORK/spine-back/opensm.log
check "spine back: dmodk configured the tables" grep -q "dmodk: tables configured by ibfab" "$L"
check "spine back: no warning about the roots" bash -c "! grep -q 'dmodk_roots switch' '$L'"
osm_sim_stop

# only the lost spine in the file: nothing to route from
printf '%s\n' "$spine1" >"$WORK/roots"
SIM="$WORK/sim2"
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/ft.net" "$SIM" 2>&1 | diag
"$HARNESS" console "$SIM" 'Unlink "ft-l2-s0001"'
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"
osm_wait_sweep 0
check "OpenSM up (the only root gone)" test $? -eq 0
check "the only root gone: dmodk refuses, naming it and the file's line" \
	grep -q "ibfab dmodk: cannot route: $WORK/roots:1: root GUID 0x0*${spine1#0x} is not a switch of this fabric (no node has it)" "$SIM/opensm.log"
check "... and OpenSM falls back to minhop" grep -q "minhop tables configured on all switches" "$SIM/opensm.log"
osm_sim_stop

# a leaf named as the root: dmodk still routes (no fallback), and the log
# says the file names a leaf and which switches are the top
leaf=$(awk '/^switchguid=/ { g = $0 } /^Switch.*"ft-l1-s0000"/ { sub(/.*=/, "", g); print g; exit }' "$WORK/ft.net")
printf '%s\n' "$leaf" >"$WORK/roots"
SIM="$WORK/sim3"
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/ft.net" "$SIM" 2>&1 | diag
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"
osm_wait_sweep 0
check "OpenSM up (a leaf as the root)" test $? -eq 0
grep -E 'ibfab dmodk: .*warning' "$SIM/opensm.log" | cut -c1-260 | diag
check "a leaf as the root: dmodk still configured the tables (no fallback)" \
	sh -c "grep -q 'dmodk: tables configured by ibfab' '$SIM/opensm.log' && ! grep -qE 'cannot route|falls back' '$SIM/opensm.log'"
check "... and the log names the file's line and the leaf" \
	grep -q "ibfab dmodk: $WORK/roots:1: warning: root 0x0*${leaf#0x} ('ft-l1-s0000'), has 4 hosts, is on level 1 of 2 in the tree the structure gives (a leaf)" "$SIM/opensm.log"
check "... and the structure's top level" grep -q "ibfab dmodk: $WORK/roots: warning: the structure's top level (level 2) is 2 switches" "$SIM/opensm.log"
osm_sim_stop
done_testing
