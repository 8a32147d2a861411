#!/usr/bin/env bash
# Live faults on a rail-optimized fabric routed by hratio (docs/rail.md): a
# stock OpenSM daemon (sweep interval 1 s, LMC 1, the ibfab plugin) on ibsim,
# 8 servers x 4 GPUs, 2 spines.  Cumulative faults through ibsim's console: a
# GPU NIC cable, a rail leaf-to-spine cable, a whole spine (rail 2 is then cut
# off from the others), a rail leaf switch, then everything back.  After
# every sweep, on what the SM sees (ibnetdiscover) and the switches hold
# (dump_lfts):
#  - hratio routed the sweep and the log says how (no silent fallback);
#  - `ibfab route check`: no loop, every pair with a path delivered;
#  - `ibfab rail check`: every same-rail and cross-rail path delivered, no
#    same-rail path leaves its rail, pairs without a cable path counted apart;
#  - offline `ibfab route --engine hratio` on the same view gives the same
#    tables on 1 and 2 threads, and the healthy fabric's read-back tables;
#    after a fault the log says what the stable reroute kept.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
"$IBFAB" route --help 2>/dev/null | grep -q hratio || skip_all "ibfab has no hratio engine"
mk_workdir

osm_sim_workdir
osm_conf "$WORK/opensm.default.conf" hratio 1 "$WORK/opensm.conf" \
	-e 's|^sweep_interval .*|sweep_interval 1|'
echo '# defaults' >"$WORK/ibfab.conf"

"$IBFAB" topo gen rail --servers 8 --gpus 4 --spines 2 --format ibsim -o "$WORK/r.net" >/dev/null 2>&1
check "generate rail-optimized 8 x 4, 2 spines" test -s "$WORK/r.net"


# check_state STEP LOGFROM SAME-RAIL-PATHS CROSS-RAIL-PATHS
check_state() {
	local step=$1 from=$2 same=$3 cross=$4 d="$WORK/$1" rc try
	mkdir -p "$d"
	tail -n +"$((from + 1))" "$SIM/opensm.log" >"$d/opensm.log"
	grep -E 'ibfab|hratio|SUBNET UP' "$d/opensm.log" |
		sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-200 | tail -8 | diag
	check "$step: hratio routed the sweep" grep -q "hratio tables configured on all switches" "$d/opensm.log"
	check "$step: no routing failure, no fallback" \
		bash -c "! grep -qiE 'cannot route|routing failed|falls back|fallback to' '$d/opensm.log'"
	for try in 1 2 3; do
		IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" &&
			IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run dump_lfts 2>"$d/lfts.err" |
			grep -v "replaced by dump_fts" >"$d/lfts.txt" && break
		sleep 3
	done
	check "$step: ibnetdiscover + dump_lfts" test -s "$d/lfts.txt"
	route_check_clean "$d" --topology "$d/net.ibnd" --lfts "$d/lfts.txt"
	check "$step: route check: no loop, every pair with a path delivered" test $? -eq 0
	"$IBFAB" rail check "$d/net.ibnd" --lfts "$d/lfts.txt" >"$d/rail.txt" 2>&1
	rc=$?
	head -3 "$d/rail.txt" | diag
	check "$step: rail check passes (exit $rc)" test $rc -eq 0
	check "$step: $same same-rail paths, all delivered, none left the rail" \
		grep -q "^same rail:  $same paths, 0 not delivered, 0 of $same confinable left the rail, longest 0" "$d/rail.txt"
	check "$step: $cross cross-rail paths, all delivered" \
		grep -q "^cross rail: $cross paths, 0 not delivered" "$d/rail.txt"
	"$IBFAB" route -q --topology "$d/net.ibnd" --engine hratio --threads 1 -o "$d/off1.dump" 2>/dev/null
	"$IBFAB" route -q --topology "$d/net.ibnd" --engine hratio --threads 2 -o "$d/off2.dump" 2>/dev/null
	check "$step: offline hratio: the same tables on 1 and 2 threads" cmp -s "$d/off1.dump" "$d/off2.dump"
	if [ "$step" = healthy ]; then
		"$IBFAB" route diff --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --lfts2 "$d/off1.dump" \
			>"$d/diff.txt" 2>&1
		rc=$?
		check "$step: tables read back = offline ibfab route --engine hratio (exit $rc)" test $rc -eq 0
	else
		# later sweeps keep what still works (stable reroutes, the
		# default): not the offline tables of the new view, and the log
		# says how much was kept
		check "$step: the log says what the stable reroute kept" \
			grep -q "ibfab hratio: stable reroute: kept [0-9]* of [0-9]* destination LIDs" "$d/opensm.log"
	fi
}

# change STEP SAME CROSS CONSOLE-LINE..: apply, wait for the sweep, check
change() {
	local step=$1 same=$2 cross=$3
	shift 3
	osm_console_sweep "$step" "$@"
	check_state "$step" "$OSM_FROM" "$same" "$cross"
}

SIM="$WORK/sim"
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/r.net" "$SIM" 2>&1 | diag
check "ibsim with its console on a FIFO" test -p "$SIM/console"
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"
osm_wait_sweep 0
check "OpenSM daemon up (SUBNET UP)" test $? -eq 0
# the SM sits on rail00-l00 (the first node of the net file), kept throughout.
# Paths counted by rail check (LMC 1: 2 LIDs per GPU): 4 rails x 8 x 7
# same-rail pairs x 2 = 448, 8 x 7 x 12 cross-rail x 2 = 1344.
from=0
check_state healthy 0 448 1344
# srv002 mlx5_1 loses its cable: 7 x 6 x 2 = 84 on rail 1, 31 GPUs
change gpu-cable 420 1260 'Unlink "rail01-l00"[3]'
# rail02-l00 - spine00: rail 2 still reaches the others over spine01
change leaf-spine-cable 420 1260 'Unlink "rail02-l00"[9]'
# spine01 dies too: rail02-l00 has no cable left to a spine, the SM no
# longer sees it nor its 8 GPUs: rails 0, 1, 3 (8 + 7 + 8 GPUs) are left
change spine 308 616 'Unlink "spine01"'
# rail03's leaf dies: its 8 GPUs are gone, rails 0 and 1 left (8 + 7)
change rail-leaf 196 196 'Unlink "rail03-l00"'
change restore-all 448 1344 'ReLink "rail01-l00"[3]' 'ReLink "rail02-l00"[9]' 'ReLink "spine01"' \
	'ReLink "rail03-l00"'

kill -0 "$OSM_PID" 2>/dev/null
check "OpenSM still running after $(osm_sweeps) heavy sweeps" test $? -eq 0
osm_sim_stop
done_testing
