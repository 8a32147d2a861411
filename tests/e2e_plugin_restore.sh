#!/usr/bin/env bash
# `stable_reroute failures` in a running OpenSM (the plugin): stable
# reroutes after losses, a fresh run when something comes back.  A two-level
# fat tree (4 leaves x 4 hosts, 2 spines) in ibsim, layered, LMC 1.
#  - a spine unplugged: a stable reroute (columns kept), every pair
#    delivered loop-free in what dump_lfts reads back;
#  - the spine back: the log says a switch came back and no column is kept;
#    the switches hold exactly the tables of the healthy fabric (same
#    fabric, same LIDs: same tables), so the spine carries its share again;
#  - one leaf-spine cable out and back: the same.
# (With the default TRUE the returning spine would stay idle: every kept
# column still works; docs/reliability.md.)
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
mk_workdir
osm_sim_workdir
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --format ibsim -o "$WORK/ft.net"
printf 'stable_reroute failures\n' >"$WORK/ibfab.conf"
osm_conf "$WORK/opensm.default.conf" layered 1 "$WORK/opensm.conf" -e 's|^sweep_interval .*|sweep_interval 1|'

# step NAME FROM: the log since line FROM in $WORK/NAME/opensm.log, tables
# read back and traced
step() {
	local d="$WORK/$1" rc
	mkdir -p "$d"
	tail -n +"$(($2 + 1))" "$SIM/opensm.log" >"$d/opensm.log"
	grep -E 'ibfab layered: stable|tables configured|falls back' "$d/opensm.log" | cut -c1-200 | diag
	IBSIM_SOCKNAME=$(cat "$SIM/sockname") read_lfts "$d"
	check "$1: tables read back" test -s "$d/lfts.txt"
	"$IBFAB" route check --topology "$d/net.ibnd" --lfts "$d/lfts.txt" >"$d/check.txt" 2>&1
	rc=$?
	check "$1: route check: every pair delivered, no loop" \
		sh -c "test $rc -eq 0 && grep -q '^loops: *0$' '$d/check.txt'"
	check "$1: layered configured the tables, no fallback" \
		sh -c "grep -q 'layered: tables configured by ibfab' '$d/opensm.log' && ! grep -qE 'cannot route|falls back' '$d/opensm.log'"
}
change() { # NAME CONSOLE-LINE..
	local name=$1
	shift
	osm_console_sweep "$name" "$@"
	step "$name" "$OSM_FROM"
}
lost() { # NAME: a stable reroute kept columns
	check "$1: stable reroute (columns kept)" grep -q "ibfab layered: stable reroute: kept [1-9]" "$WORK/$1/opensm.log"
}
back() { # NAME: routed afresh, the healthy tables again
	local L=$WORK/$1/opensm.log
	check "$1: the log says something came back" \
		grep -q "ibfab layered: stable_reroute failures: a switch or switch cable came back (or is new); routing every destination again" "$L"
	check "$1: no column kept on that sweep" bash -c "! grep -q 'ibfab layered: stable reroute: kept' '$L'"
	check "$1: the switches hold the healthy fabric's tables again" cmp -s "$WORK/healthy/lfts.txt" "$WORK/$1/lfts.txt"
}

SIM="$WORK/sim"
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/ft.net" "$SIM" 2>&1 | diag
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"
osm_wait_sweep 0
check "OpenSM up" test $? -eq 0
check "the options say stable_reroute failures" grep -q "ibfab: options: .*stable_reroute failures" "$SIM/opensm.log"
step healthy 0

change spine-down 'Unlink "ft-l2-s0001"'
lost spine-down
change spine-back 'ReLink "ft-l2-s0001"'
back spine-back
change cable-down 'Unlink "ft-l1-s0002"[5]'
lost cable-down
change cable-back 'ReLink "ft-l1-s0002"[5]'
back cable-back
osm_sim_stop
done_testing
