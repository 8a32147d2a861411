#!/usr/bin/env bash
# Live faults: a stock OpenSM runs as a daemon (short sweep interval) with
# the ibfab plugin on an ibsim fabric whose console reads from a FIFO.  For
# each engine (layered on a Slim Fly at LMC 2, minimal on the same Slim Fly,
# dmodk on a two-level fat tree), with `deadlock auto`, the script unplugs
# one cable, then a whole switch as well, then several more cables (one of
# them with Clear), then restores everything.  After every
# change it waits for OpenSM's heavy sweep, reads back what the switches hold
# (dump_lfts, SL2VL with smpquery, SLs from the SA) and checks that
#  - ibfab's engine routed the sweep (no "cannot route", no fallback),
#  - `ibfab route check` finds no loop and no unreachable pair in the
#    connected part of the fabric (what ibnetdiscover sees from the SM),
#  - `ibfab deadlock verify` finds the tables deadlock-free,
#  - OpenSM is still running.
# Faults are chosen at random from IBFAB_FAULT_SEED (default 1; printed):
# a seed draws the same faults on any machine (the draw uses its own
# generator, not awk's rand(), which differs between mawk and gawk, and
# sorts in the C locale), and every console line is printed too.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts smpquery
mk_workdir
need_sa_pathsl
SEED=${IBFAB_FAULT_SEED:-1}
case $SEED in '' | *[!0-9]*) echo "Bail out! IBFAB_FAULT_SEED must be a decimal number (got '$SEED')"; exit 2 ;; esac
echo "# fault seed $SEED (set IBFAB_FAULT_SEED to choose others)"

osm_sim_workdir

pick() { # N SALT < lines: N distinct lines at random (seeded; Park-Miller, exact in doubles)
	awk -v n="$1" -v seed="$SEED" -v salt="$2" '
		function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
		BEGIN { x = (seed % 2147483646 * 7919 + salt) % 2147483646 + 1 }
		{ l[NR] = $0 } END { for (i = NR; i > 1; i--) { j = int(rnd() * i) + 1; t = l[i]; l[i] = l[j]; l[j] = t }
		for (i = 1; i <= n && i <= NR; i++) print l[i] }'
}

# check_state ENGINE STEP LOGFROM: read back and verify after a change
check_state() {
	local e=$1 step=$2 from=$3 d="$WORK/$1/$2"
	mkdir -p "$d"
	tail -n +"$((from + 1))" "$SIM/opensm.log" >"$d/opensm.log"
	grep -E 'ibfab|tables configured|SUBNET UP|falls back|cannot route' "$d/opensm.log" |
		sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-220 | diag
	check "$e $step: ibfab's engine routed the sweep" grep -q "$e: tables configured by ibfab" "$d/opensm.log"
	check "$e $step: no routing failure, no fallback" \
		bash -c "! grep -qE 'cannot route|routing failed|falls back' '$d/opensm.log'"
	IBSIM_SOCKNAME=$(cat "$SIM/sockname") read_tables "$d"
	check "$e $step: tables, SL2VL and SLs read back" test $? -eq 0
	if [ "$step" = healthy ]; then
		local l p
		read -r l p <"$d/swports"
		IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run smpquery sl2vl "$l" "$p" 2>/dev/null >"$d/smpquery.txt"
		check "$e: the batched SL2VL reader prints what smpquery prints (LID $l port $p)" \
			cmp -s "$d/smpquery.txt" <(awk -v l="$l" '/^# SL2VL table: Lid/ { on = ($5 == l) } on' "$d/sl2vl.txt" | head -n "$(wc -l <"$d/smpquery.txt")")
	fi
	route_check_clean "$d" --topology "$d/net.ibnd" --lfts "$d/lfts.txt"
	check "$e $step: route check: no loop, every pair delivered" test $? -eq 0
	"$IBFAB" deadlock verify --topology "$d/net.ibnd" --lfts "$d/lfts.txt" --sl "$d/sl.txt" \
		--sl2vl "$d/sl2vl.txt" >"$d/verify.txt" 2>&1
	local rc=$?
	grep -E '^(VLs used|cycles|missing SL|result)' "$d/verify.txt" | diag
	check "$e $step: deadlock verify on the live tables: deadlock-free (exit $rc)" test $rc -eq 0
	if [ -n "${PREV:-}" ]; then
		"$IBFAB" route diff --topology "$d/net.ibnd" --lfts "$PREV/lfts.txt" --lfts2 "$d/lfts.txt" \
			>"$d/diff.txt" 2>&1
		sed "s/^/$step vs previous: /" "$d/diff.txt" | head -5 | diag
		# stable reroutes (default): the sweep kept what still worked
		check "$e $step: stable reroute from the previous tables" grep -q "$e: stable reroute: kept" "$d/opensm.log"
		if [ "$step" = restore-all ]; then
			# what came back: the engine routed the whole fabric, the
			# columns whose fresh paths avoid what came back were kept,
			# the others moved onto it; the summary's counts are of the
			# whole run, and say so
			local kept
			kept=$(sed -n "s/.*$e: stable reroute: kept \([0-9]*\) of.*/\1/p" "$d/opensm.log" | tail -1)
			check "$e $step: the log counts what came back (1 switch, kept ${kept:-?})" \
				grep -qE "$e: stable reroute: kept [0-9]+ of [0-9]+ destination LIDs(, took [0-9]+ back from the healthy tables)?, routed [0-9]+ again \([0-9]+ of them moved onto what came back or is new: 1 switches, [1-9][0-9]* switch cables\)" "$d/opensm.log"
			check "$e $step: the summary's counts are of a run over all LIDs" \
				grep -q "$e: tables configured by ibfab: .*minimal fallback [0-9]* (of a run over all [0-9]* LIDs; [0-9]* columns then kept from the last tables)" "$d/opensm.log"
			"$IBFAB" route diff --topology "$d/net.ibnd" --lfts "$WORK/$e/healthy/lfts.txt" \
				--lfts2 "$d/lfts.txt" 2>&1 | head -3 | sed "s/^/$step vs healthy: /" | diag
			# everything back: the same fabric and LIDs as at the start;
			# for engines that route every layer on shortest paths the
			# tables are the healthy ones again (layered's layers >= 1
			# may keep a fault-time column; docs/reliability.md)
			if [ "$e" != layered ]; then
				check "$e $step: the switches hold the healthy tables again" \
					cmp -s "$WORK/$e/healthy/lfts.txt" "$d/lfts.txt"
			fi
		else
			# its summary's pair counts are of the LIDs routed again only, and say so
			check "$e $step: the summary's counts name the LIDs routed this sweep" \
				grep -q "$e: tables configured by ibfab: .*minimal fallback [0-9]* (of the [0-9]* LIDs routed this sweep; [0-9]* kept)" "$d/opensm.log"
		fi
		if [ "$step" = unplug-1-cable ]; then
			local pct
			pct=$(sed -n 's/.*entries differ (\([0-9]*\)\..*/\1/p' "$d/diff.txt")
			check "$e $step: one cable moved few LFT entries (${pct:-?}% < 25%)" test "${pct:-100}" -lt 25
		fi
	fi
	PREV=$d
}

# change ENGINE STEP CONSOLE-LINE..: apply the change, wait for the sweep, check
change() {
	local e=$1 step=$2
	shift 2
	osm_console_sweep "$e $step" "$@"
	check_state "$e" "$step" "$OSM_FROM"
}

# session ENGINE NETFILE LMC: OpenSM + plugin on NETFILE, then the faults
session() {
	local e=$1 net=$2 lmc=$3 dir="$WORK/$1"
	mkdir -p "$dir"
	printf 'deadlock auto\n' >"$dir/ibfab.conf"
	osm_conf "$WORK/opensm.default.conf" "$e" "$lmc" "$dir/opensm.conf" \
		-e 's|^qos .*|qos TRUE|' -e 's|^sweep_interval .*|sweep_interval 1|'
	SIM="$dir/sim"
	IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$net" "$SIM" 2>&1 | diag
	check "$e: ibsim with its console on a FIFO" test -p "$SIM/console"
	osm_daemon "$dir/opensm.conf" "$dir/ibfab.conf"
	PREV=
	osm_wait_sweep 0
	check "$e: OpenSM daemon up (SUBNET UP)" test $? -eq 0
	check_state "$e" healthy 0

	# the SM's switch (ibsim attaches clients to the first node of the net
	# file, here a switch; or the switch an HCA hangs on) is never taken away
	local smnode smsw cables
	osm_sm_switch "$net"
	smnode=$SM_NODE smsw=$SM_SWITCH
	echo "# $e: the SM runs on $smnode ($smsw is kept)"
	switch_cables "$net" >"$dir/cables"
	cables=$(wc -l <"$dir/cables")
	# cumulative: one cable, then a whole switch too, then several more
	# cables (the first with Clear), then everything back
	local sw n restore=() lines=() first=1
	read -r a pa b pb <<<"$(pick 1 1 <"$dir/cables")"
	change "$e" unplug-1-cable "Unlink \"$a\"[$pa]"
	restore+=("ReLink \"$a\"[$pa]")
	sw=$(awk '{ print $1; print $3 }' "$dir/cables" | LC_ALL=C sort -u | grep -vxF -e "$smsw" -e "$a" | pick 1 2)
	change "$e" unplug-switch "Unlink \"$sw\""
	restore+=("ReLink \"$sw\"")
	n=$(( cables / 40 + 2 ))
	while read -r a pa b pb; do
		if [ $first = 1 ]; then lines+=("Clear \"$a\"[$pa]"); first=0; else lines+=("Unlink \"$a\"[$pa]"); fi
		restore+=("ReLink \"$a\"[$pa]")
	done < <(grep -vF -e "$sw"$'\t' "$dir/cables" | pick "$n" 3)
	change "$e" "unplug-$n-more-cables" "${lines[@]}"
	change "$e" restore-all "${restore[@]}"

	kill -0 "$OSM_PID" 2>/dev/null
	check "$e: OpenSM still running after $(osm_sweeps) heavy sweeps" test $? -eq 0
	osm_sim_stop
}

"$IBFAB" topo gen slimfly --q 5 --hosts 1 --format ibsim -o "$WORK/sf5.net"
check "Slim Fly q=5, one host per switch (ibsim net)" test -s "$WORK/sf5.net"
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --parallel 2 --format ibsim -o "$WORK/ft.net"
check "two-level fat tree, two cables per leaf-spine pair (ibsim net)" test -s "$WORK/ft.net"

session layered "$WORK/sf5.net" 2
session minimal "$WORK/sf5.net" 0
session dmodk "$WORK/ft.net" 0

done_testing
