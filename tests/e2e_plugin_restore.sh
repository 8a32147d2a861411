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
#  - two cables out, then back one per sweep: the healthy tables at the end,
#    the first return moving columns back to them at once;
#  - a leaf switch and a cable out, then back over two sweeps (the cable,
#    then the switch): the healthy tables at the end.
# (With `stable_reroute keep`, the old TRUE, the returning spine would stay
# idle: every kept column still works; docs/reliability.md.)
# Then OpenSM restarted while a cable is out, with and without
# `stable_state_dir` (H kept across restarts; see the part at the end),
# and with it but nothing kept (provisional H, replaced by a fresh run).
# First, offline (no simulator): a chain of repairs through dumps with
# --healthy-lfts ends on the healthy tables, as the plugin's does.
. "$(dirname "$0")/lib.sh"
mk_workdir

# offline: a 4 x 3 torus (minimal) and a 2-level tree (dmodk) lose a
# switch and two switch cables; the cables come back, then the switch; each
# step is `ibfab route --previous-lfts` from the dump of the step before,
# with the healthy tables H; the last step's tables are H
rc() { "$@" >"$WORK/out" 2>"$WORK/err"; echo $?; }
offline_chain() { # NAME ENGINE TOPO-GEN-ARGS.. (the fabric: $WORK/NAME/h.ibnd)
	local n=$1 e=$2 d=$WORK/off-$1 r prev=h t
	shift 2
	mkdir -p "$d"
	"$IBFAB" topo gen "$@" -o "$d/h.ibnd"
	awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=1 -v cables=2 -v deadno=$DEADNO "$d/h.ibnd" "$d/h.ibnd" >"$d/d.ibnd"
	awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=1 -v cables=0 -v deadno=$DEADNO "$d/h.ibnd" "$d/h.ibnd" >"$d/p.ibnd"
	"$IBFAB" route -q --topology "$d/h.ibnd" --engine "$e" -o "$d/h.lfts"
	for t in d p e; do
		r=$(rc "$IBFAB" route --topology "$d/${t/e/h}.ibnd" --engine "$e" --previous-topology "$d/$prev.ibnd" \
			--previous-lfts "$d/$prev.lfts" --healthy-lfts "$d/h.lfts" --healthy-topology "$d/h.ibnd" -o "$d/$t.lfts")
		cp "$WORK/err" "$d/$t.err"
		sed -n 's/^ibfab route: //p' "$d/$t.err" | cut -c1-200 | diag
		check "offline $n, step $t: routes (exit $r)" test "$r" = 0
		route_check_clean "$d" --topology "$d/${t/e/h}.ibnd" --lfts "$d/$t.lfts"
		check "offline $n, step $t: route check: every pair delivered, no loop" test $? -eq 0
		prev=$t
	done
	check "offline $n: the fault step starts from H (nothing marked)" \
		grep -q "^ibfab route: 0 destination LIDs of .*/h.lfts have columns that differ from the healthy tables" "$d/d.err"
	check "offline $n: the cables' return takes columns back from H" \
		grep -qE "^ibfab route: stable: kept [0-9]+ of [0-9]+ destination LIDs, took [1-9][0-9]* back from the healthy tables" "$d/p.err"
	check "offline $n: after the switch's return the tables are H" \
		sh -c "'$IBFAB' route diff --topology '$d/h.ibnd' --lfts '$d/h.lfts' --lfts2 '$d/e.lfts' | grep -q '^0 of '"
}
DEADNO=2 offline_chain torus minimal torus --dims 4,3 --hosts 1
DEADNO=9 offline_chain tree dmodk fattree --m 8,8 --w 1,4 --parallel 2

# bad input: a healthy dump with a broken line is an error at its line, and
# no output is written; --healthy-lfts needs --previous-lfts; H read against
# a fabric it was not made for (the default --healthy-topology is --topology)
d=$WORK/off-torus
sed '3s/.*/0x0002 zz # broken/' "$d/h.lfts" >"$d/bad.lfts"
r=$(rc "$IBFAB" route --topology "$d/p.ibnd" --engine minimal --previous-topology "$d/d.ibnd" \
	--previous-lfts "$d/d.lfts" --healthy-lfts "$d/bad.lfts" --healthy-topology "$d/h.ibnd" -o "$d/bad-out.lfts")
diag <"$WORK/err"
check "offline: a broken healthy dump: an error at its line (exit $r), no output" \
	sh -c "test $r != 0 && grep -q 'bad.lfts:3:' '$WORK/err' && test ! -e '$d/bad-out.lfts'"
r=$(rc "$IBFAB" route --topology "$d/p.ibnd" --engine minimal --healthy-lfts "$d/h.lfts" -o "$d/bad-out.lfts")
check "offline: --healthy-lfts without --previous-lfts is a usage error (exit $r)" \
	sh -c "test $r = 2 && grep -q 'needs --previous-lfts' '$WORK/err' && test ! -e '$d/bad-out.lfts'"
r=$(rc "$IBFAB" route --topology "$d/p.ibnd" --engine minimal --previous-topology "$d/d.ibnd" \
	--previous-lfts "$d/d.lfts" --healthy-lfts "$d/h.lfts" -o "$d/bad-out.lfts")
diag <"$WORK/err"
check "offline: H read against the wrong fabric: an error at a line of the dump (exit $r), no output" \
	sh -c "test $r != 0 && grep -q 'h.lfts:[0-9]*:' '$WORK/err' && test ! -e '$d/bad-out.lfts'"

# the live part needs ibsim, OpenSM and the plugin
live=$( (need_sim; need_plugin dump_lfts; echo yes) | tail -1)
if [ "$live" != yes ]; then
	echo "# live part skipped: $live"
	done_testing
fi
need_sim
need_plugin dump_lfts
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
		# the columns rerouted around the loss go back to the healthy
		# tables' (the plugin keeps them while marks remain); on growth
		# beyond them, onto the fresh run
		# (a 4th argument: the tables before had no mark and no column
		# crosses what came back, e.g. a leaf: nothing needs to move)
		local g='[1-9][0-9]*'
		[ -n "${4:-}" ] && g='[0-9]*'
		check "$MODE $1: columns kept, some back to the healthy tables or onto what came back ($2 switches, $3 cables)" \
			grep -qE "ibfab layered: stable reroute: kept [1-9][0-9]* of [0-9]* destination LIDs(, took [1-9][0-9]* back from the healthy tables, routed [0-9]* again \([0-9]*|, routed [0-9]* again \($g) of them moved onto what came back or is new: $2 switches, $3 switch cables\)" "$L"
		check "$MODE $1: the summary says its counts are of a run over all LIDs" \
			grep -q "layered: tables configured by ibfab: .*(of a run over all [0-9]* LIDs; [0-9]* columns then kept from the last tables)" "$L"
	fi
	check "$MODE $1: the switches hold the healthy fabric's tables again" cmp -s "$WORK/$MODE/healthy/lfts.txt" "$WORK/$MODE/$1/lfts.txt"
}

# mode_up: ibsim and OpenSM (layered, LMC 1, a sweep every second) with
# $WORK/$MODE/ibfab.conf; sets SIM
mode_up() {
	osm_conf "$WORK/opensm.default.conf" layered 1 "$WORK/$MODE/opensm.conf" -e 's|^sweep_interval .*|sweep_interval 1|'
	SIM="$WORK/$MODE/sim"
	IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/ft.net" "$SIM" 2>&1 | diag
	osm_daemon "$WORK/$MODE/opensm.conf" "$WORK/$MODE/ibfab.conf"
	osm_wait_sweep 0
	check "$MODE: OpenSM up" test $? -eq 0
}

for MODE in TRUE failures; do
	mkdir -p "$WORK/$MODE"
	printf 'stable_reroute %s\n' "$MODE" >"$WORK/$MODE/ibfab.conf"
	mode_up
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
	# the first return moves the columns routed around that cable back
	# to the healthy tables at once (they move once), not every column
	# routed around either cable onto the fresh run of the half-repaired
	# fabric
	[ "$MODE" = TRUE ] && check "$MODE first-back: columns back to the healthy tables on the first return" \
		grep -qE "ibfab layered: stable reroute: kept [1-9][0-9]* of [0-9]* destination LIDs, took [1-9][0-9]* back from the healthy tables" "$WORK/$MODE/first-back/opensm.log"
	change second-back 'ReLink "ft-l1-s0002"[6]'
	back second-back 0 1
	# a switch and a cable gone at once, back over two sweeps (the cable,
	# then the switch): the healthy tables at the end
	change leaf-cable-down 'Unlink "ft-l1-s0003"' 'Unlink "ft-l1-s0001"[5]'
	lost leaf-cable-down
	change cable-first 'ReLink "ft-l1-s0001"[5]'
	[ "$MODE" = TRUE ] && check "$MODE cable-first: columns back to the healthy tables" \
		grep -qE "ibfab layered: stable reroute: kept [1-9][0-9]* of [0-9]* destination LIDs, took [1-9][0-9]* back from the healthy tables" "$WORK/$MODE/cable-first/opensm.log"
	change leaf-back 'ReLink "ft-l1-s0003"'
	back leaf-back 1 2 any
	osm_sim_stop
done

# OpenSM restarted while a leaf-spine cable is out, then the cable back:
# with `stable_state_dir` the plugin keeps H (the healthy tables and their
# fabric) there and its first sweep after the restart takes them as the
# previous tables, so the repair ends on the healthy fabric's tables; without
# it the restart routes the damaged fabric afresh, that run becomes H and
# the repair ends off them (the case needs the option).  Then a broken file
# in the directory: logged with its path and line, OpenSM routes afresh.
restart() { # NAME: OpenSM stopped (SIGTERM, by PID) and started again
	local n0
	osm_stop
	OSM_FROM=$(wc -l <"$SIM/opensm.log")
	n0=$(osm_sweeps)
	osm_daemon "$WORK/$MODE/opensm.conf" "$WORK/$MODE/ibfab.conf" "$SIM/opensm.out.$1"
	osm_wait_sweep "$n0" 60
	check "$MODE $1: the new OpenSM came up" test $? -eq 0
	step "$1" "$OSM_FROM"
}
# state-first: the same with the option, but the directory emptied before
# the restart (a first start on a fabric already damaged): that run's
# tables are H, marked provisional; when the cable comes back the fabric
# has every part of them and one they lacked, so a fresh run replaces them
# and the switches hold the healthy fabric's tables again (before, the
# damaged run stayed H and the end was off them, as without the option).
for MODE in state-on state-off state-first; do
	mkdir -p "$WORK/$MODE"
	printf 'stable_reroute TRUE\n' >"$WORK/$MODE/ibfab.conf"
	[ $MODE != state-off ] && printf 'stable_state_dir %s\n' "$WORK/$MODE/state" >>"$WORK/$MODE/ibfab.conf"
	mkdir -p "$WORK/$MODE/state"
	mode_up
	step healthy 0
	change cable-down 'Unlink "ft-l1-s0002"[5]'
	lost cable-down
	[ $MODE = state-first ] && rm -f "$WORK/$MODE/state/"*
	restart restarted
	if [ $MODE = state-first ]; then
		check "$MODE restarted: nothing kept, the tables of this run are provisional" \
			grep -q "ibfab layered: stable_state_dir: these tables are the healthy tables for now (provisional" "$WORK/$MODE/restarted/opensm.log"
		check "$MODE restarted: the manifest says provisional" grep -q '^provisional 1$' "$WORK/$MODE/state/healthy.state"
		change cable-back 'ReLink "ft-l1-s0002"[5]'
		check "$MODE cable-back: the fabric outgrew the provisional tables: routed afresh" \
			grep -q "ibfab layered: stable reroute: the healthy tables were provisional" "$WORK/$MODE/cable-back/opensm.log"
		check "$MODE cable-back: the switches hold the healthy fabric's tables again" \
			cmp -s "$WORK/$MODE/healthy/lfts.txt" "$WORK/$MODE/cable-back/lfts.txt"
		check "$MODE cable-back: the kept tables are no longer provisional" \
			sh -c "! grep -q '^provisional' '$WORK/$MODE/state/healthy.state'"
		osm_sim_stop
		continue
	fi
	if [ $MODE = state-on ]; then
		check "$MODE restarted: the first sweep takes the kept healthy tables" \
			grep -q "ibfab layered: stable_state_dir: the healthy tables kept in $WORK/$MODE/state (.*) are the previous tables of this first sweep" "$WORK/$MODE/restarted/opensm.log"
		check "$MODE restarted: a stable reroute from them (columns kept)" \
			grep -q "ibfab layered: stable reroute: kept [1-9]" "$WORK/$MODE/restarted/opensm.log"
	fi
	change cable-back 'ReLink "ft-l1-s0002"[5]'
	if [ $MODE = state-on ]; then
		check "$MODE cable-back: the switches hold the healthy fabric's tables again" \
			cmp -s "$WORK/$MODE/healthy/lfts.txt" "$WORK/$MODE/cable-back/lfts.txt"
		# H written once (the first sweep), not again: the restart read
		# it back, the loss and the return left it as it was
		n=$(grep -c "ibfab layered: stable_state_dir: kept the healthy tables" "$SIM/opensm.log")
		check "$MODE: H written once over the run ($n times)" test "$n" = 1
		check "$MODE: the directory holds the manifest and one pair of files" \
			sh -c "test -s '$WORK/$MODE/state/healthy.state' && test \$(ls '$WORK/$MODE/state' | wc -l) = 3"
		# the kept files read offline as --healthy-lfts / --healthy-topology
		t=$(sed -n 's/^healthy-topology //p' "$WORK/$MODE/state/healthy.state")
		l=$(sed -n 's/^healthy-lfts //p' "$WORK/$MODE/state/healthy.state")
		"$IBFAB" route diff --topology "$WORK/$MODE/state/$t" --lfts "$WORK/$MODE/state/$l" \
			--lfts2 "$WORK/$MODE/healthy/lfts.txt" >"$WORK/$MODE/state-diff.txt" 2>&1
		check "$MODE: the kept tables read offline are the healthy ones" grep -q '^0 of ' "$WORK/$MODE/state-diff.txt"
		# a broken line in the kept tables: logged with its path and line,
		# OpenSM routes afresh
		sed -i '3s/.*/0x0002 zz # broken/' "$WORK/$MODE/state/$l"
		restart broken
		check "$MODE broken: the log names the file and line, routes afresh" \
			grep -q "ibfab layered: stable_state_dir: ignoring the healthy tables kept in .*: .*$l:3:" "$WORK/$MODE/broken/opensm.log"
	else
		# without the option the restart's run of the damaged fabric is H
		"$IBFAB" route diff --topology "$WORK/$MODE/healthy/net.ibnd" --lfts "$WORK/$MODE/healthy/lfts.txt" \
			--lfts2 "$WORK/$MODE/cable-back/lfts.txt" 2>&1 | head -3 | diag
		check "$MODE cable-back: without stable_state_dir the tables end off the healthy ones (the case needs it)" \
			sh -c "! cmp -s '$WORK/$MODE/healthy/lfts.txt' '$WORK/$MODE/cable-back/lfts.txt'"
	fi
	osm_sim_stop
done
done_testing
