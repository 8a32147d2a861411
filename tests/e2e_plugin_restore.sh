#!/usr/bin/env bash
# What comes back takes its share again, in a running OpenSM (the plugin).
# A two-level fat tree (4 leaves x 4 hosts, 2 spines) in ibsim, layered,
# LMC 1, once with the default `stable_reroute TRUE` and once with
# `stable_reroute failures`:
#  - a spine unplugged: a stable reroute (columns kept), every pair
#    delivered loop-free in what dump_lfts reads back;
#  - the spine back: TRUE: the engine routes the whole fabric, keeps the
#    columns whose fresh paths avoid what came back and says how many moved
#    onto it; failures: the log says a switch came back and no column is
#    kept; either way the switches hold exactly the tables of the healthy
#    fabric (same fabric, same LIDs: same tables), so the spine carries its
#    share again;
#  - one leaf-spine cable out and back: the same;
#  - two cables out, then back one per sweep: the healthy tables at the end.
# (With `stable_reroute keep`, the old TRUE, the returning spine would stay
# idle: every kept column still works; docs/reliability.md.)
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
mk_workdir
osm_sim_workdir
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --format ibsim -o "$WORK/ft.net"

# step NAME FROM: the log since line FROM in $WORK/$MODE/NAME/opensm.log,
# tables read back and traced
step() {
	local d="$WORK/$MODE/$1"
	mkdir -p "$d"
	tail -n +"$(($2 + 1))" "$SIM/opensm.log" >"$d/opensm.log"
	grep -E 'ibfab layered: stable|tables configured|falls back' "$d/opensm.log" | cut -c1-240 | diag
	IBSIM_SOCKNAME=$(cat "$SIM/sockname") read_lfts "$d"
	check "$MODE $1: tables read back" test -s "$d/lfts.txt"
	route_check_clean "$d" --topology "$d/net.ibnd" --lfts "$d/lfts.txt"
	check "$MODE $1: route check: every pair delivered, no loop" test $? -eq 0
	check "$MODE $1: layered configured the tables, no fallback" \
		sh -c "grep -q 'layered: tables configured by ibfab' '$d/opensm.log' && ! grep -qE 'cannot route|falls back' '$d/opensm.log'"
}
change() { # NAME CONSOLE-LINE..
	local name=$1
	shift
	osm_console_sweep "$MODE $name" "$@"
	step "$name" "$OSM_FROM"
}
lost() { # NAME: a stable reroute kept columns
	check "$MODE $1: stable reroute (columns kept)" grep -q "ibfab layered: stable reroute: kept [1-9]" "$WORK/$MODE/$1/opensm.log"
}
back() { # NAME SWITCHES CABLES: the healthy tables again
	local L=$WORK/$MODE/$1/opensm.log
	if [ "$MODE" = failures ]; then
		check "$MODE $1: the log says something came back" \
			grep -q "ibfab layered: stable_reroute failures: a switch or switch cable came back (or is new); routing every destination again" "$L"
		check "$MODE $1: no column kept on that sweep" bash -c "! grep -q 'ibfab layered: stable reroute: kept' '$L'"
	else
		check "$MODE $1: columns kept, some moved onto what came back ($2 switches, $3 cables)" \
			grep -qE "ibfab layered: stable reroute: kept [1-9][0-9]* of [0-9]* destination LIDs, routed [0-9]* again \([1-9][0-9]* of them moved onto what came back or is new: $2 switches, $3 switch cables\)" "$L"
		check "$MODE $1: the summary says its counts are of a run over all LIDs" \
			grep -q "layered: tables configured by ibfab: .*(of a run over all [0-9]* LIDs; [0-9]* columns then kept from the last tables)" "$L"
	fi
	check "$MODE $1: the switches hold the healthy fabric's tables again" cmp -s "$WORK/$MODE/healthy/lfts.txt" "$WORK/$MODE/$1/lfts.txt"
}

for MODE in TRUE failures; do
	mkdir -p "$WORK/$MODE"
	printf 'stable_reroute %s\n' "$MODE" >"$WORK/$MODE/ibfab.conf"
	osm_conf "$WORK/opensm.default.conf" layered 1 "$WORK/$MODE/opensm.conf" -e 's|^sweep_interval .*|sweep_interval 1|'
	SIM="$WORK/$MODE/sim"
	IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/ft.net" "$SIM" 2>&1 | diag
	osm_daemon "$WORK/$MODE/opensm.conf" "$WORK/$MODE/ibfab.conf"
	osm_wait_sweep 0
	check "$MODE: OpenSM up" test $? -eq 0
	check "$MODE: the options say stable_reroute $MODE" grep -q "ibfab: options: .*stable_reroute $MODE" "$SIM/opensm.log"
	step healthy 0

	change spine-down 'Unlink "ft-l2-s0001"'
	lost spine-down
	change spine-back 'ReLink "ft-l2-s0001"'
	back spine-back 1 4
	change cable-down 'Unlink "ft-l1-s0002"[5]'
	lost cable-down
	change cable-back 'ReLink "ft-l1-s0002"[5]'
	back cable-back 0 1
	# a repair the SM sees over two sweeps: two cables out, then back one
	# per sweep; the columns the first return moved are remembered and
	# move again on the second, so the switches end on the healthy tables
	# (without that memory, as offline with --previous-lfts, 8 entries
	# stay off them)
	change two-down 'Unlink "ft-l1-s0000"[6]' 'Unlink "ft-l1-s0002"[6]'
	lost two-down
	change first-back 'ReLink "ft-l1-s0000"[6]'
	change second-back 'ReLink "ft-l1-s0002"[6]'
	back second-back 0 1
	osm_sim_stop
done
done_testing
