#!/usr/bin/env bash
# End to end: what an admin meets around ibfab.conf and the routing_engine
# chain, in a stock OpenSM on a small ibsim fabric (a triangle of switches,
# one host each: dmodk refuses it, minimal and layered route it).
#  - $IBFAB_CONF naming a FIFO: OpenSM starts (opening it would block until
#    a writer comes), the error names the file, OpenSM falls back to minhop;
#  - "dmodk,minimal": dmodk fails, the log names the engine OpenSM tries
#    next, and minimal's tables route every LID; a dmodk_roots file that is
#    not there fails dmodk only;
#  - "dmodk,no_fallback" (a running OpenSM: with no tables -o never ends):
#    the log says no new tables are programmed, instead of a fallback;
#  - ibfab.conf edited, then removed, while OpenSM runs: a re-sweep (SIGHUP)
#    keeps the startup options and the log says so, once per change.
# Skips when opensm/ibsim/infiniband-diags or the plugin are missing.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
mk_workdir

printf '%s\n' 'Switch 8 "t1"' '[1] "t2"[2]' '[2] "t3"[1]' '[3] "ta"[1]' '' \
	'Switch 8 "t2"' '[1] "t3"[2]' '[2] "t1"[1]' '[3] "tb"[1]' '' \
	'Switch 8 "t3"' '[1] "t1"[2]' '[2] "t2"[1]' '[3] "tc"[1]' '' \
	'Hca 1 "ta"' '[1] "t1"[3]' '' 'Hca 1 "tb"' '[1] "t2"[3]' '' 'Hca 1 "tc"' '[1] "t3"[3]' \
	>"$WORK/tri.net"
# 3 switch LIDs + 3 adapters x 2 LIDs (LMC 1)
NSW=3
NLIDS=9
opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
check "opensm -c writes a default opensm.conf" grep -q "^routing_engine" "$WORK/opensm.default.conf"
printf 'seed 5\n' >"$WORK/good.conf"

log_has() { grep -qF -- "$2" "$WORK/$1/sim/opensm.log"; }
show_log() { grep -E 'ibfab|tables configured|SUBNET UP|routing engine' "$WORK/$1/sim/opensm.log" | grep -v 'set up (' |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-240 | diag; }
all_routed() {
	local f=$WORK/$1/sim/lfts.txt n
	n=$(grep -c "^$NLIDS valid lids dumped" "$f")
	[ "$n" -eq "$NSW" ] || { echo "# $n of $NSW switches route all $NLIDS LIDs"; return 1; }
}

# once NAME ENGINE CONF: one sweep (opensm -o, at most 60 s; OpenSM ignores
# SIGTERM while it blocks in open(), hence -k) with IBFAB_CONF=CONF,
# then the tables read back
once() {
	local name=$1 engine=$2 conf=$3
	mkdir -p "$WORK/$name"
	osm_conf "$WORK/opensm.default.conf" "$engine" 1 "$WORK/$name/opensm.conf"
	env IBFAB_CONF="$conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$WORK/tri.net" "$WORK/$name/sim" -- bash -c '
		d=$IBFAB_SIM_DIR
		OSM_TMP_DIR=$d OSM_CACHE_DIR=$d timeout -k 10 60 ibsim-run opensm -o -F "$0" -f "$d/opensm.log" \
			>"$d/opensm.out" 2>&1 </dev/null || { echo "opensm failed ($?)"; exit 1; }
		ibsim-run dump_lfts 2>/dev/null | grep -v "replaced by dump_fts" >"$d/lfts.txt"
	' "$WORK/$name/opensm.conf" 2>&1 | diag
	return "${PIPESTATUS[0]}"
}

# 1. a FIFO as ibfab.conf
mkfifo "$WORK/conf.fifo"
once fifo layered "$WORK/conf.fifo"
check "FIFO as ibfab.conf: opensm finished its sweep" test $? -eq 0
show_log fifo
check "FIFO as ibfab.conf: the error names the file" \
	log_has fifo "configuration error: $WORK/conf.fifo: not a regular file (a FIFO) (from \$IBFAB_CONF)"
check "FIFO as ibfab.conf: the log says minhop comes next" \
	log_has fifo "ibfab layered: routing failed, OpenSM falls back to the next engine, its default minhop"
check "FIFO as ibfab.conf: minhop configured the tables" log_has fifo "minhop tables configured on all switches"
check "FIFO as ibfab.conf: every switch routes every LID" all_routed fifo

# 2. an engine chain: dmodk fails on the triangle, minimal takes over
once chain dmodk,minimal "$WORK/good.conf"
check "dmodk,minimal: opensm ran" test $? -eq 0
show_log chain
check "dmodk,minimal: dmodk says why it cannot route" \
	eval "grep -q 'ibfab dmodk: cannot route: .*not a fat tree' '$WORK/chain/sim/opensm.log'"
check "dmodk,minimal: the log names the next engine" \
	log_has chain "ibfab dmodk: routing failed, OpenSM falls back to the next engine, 'minimal'"
check "dmodk,minimal: minimal configured the tables" \
	log_has chain "minimal: tables configured by ibfab: $NSW switches, $NLIDS LIDs"
check "dmodk,minimal: every switch routes every LID" all_routed chain

# 2b. dmodk's own option, a roots file that is not there: dmodk fails and
#     says so, minimal (which has no use for it) still routes
printf 'dmodk_roots %s\n' "$WORK/no-such-roots" >"$WORK/roots.conf"
once roots dmodk,minimal "$WORK/roots.conf"
check "dmodk_roots missing: opensm ran" test $? -eq 0
show_log roots
check "dmodk_roots missing: dmodk names the key" \
	log_has roots "ibfab dmodk: cannot route: $WORK/no-such-roots: cannot open: No such file or directory (the dmodk_roots file)"
check "dmodk_roots missing: minimal is not affected" \
	log_has roots "minimal: tables configured by ibfab: $NSW switches, $NLIDS LIDs"
check "dmodk_roots missing: every switch routes every LID" all_routed roots

# live NAME ENGINE CONF SCRIPT: OpenSM running (no -o) in the background,
# SCRIPT run beside it with $pid, $d and $WORK set, then OpenSM stopped by PID
live() {
	local name=$1 engine=$2 conf=$3 script=$4
	mkdir -p "$WORK/$name"
	osm_conf "$WORK/opensm.default.conf" "$engine" 1 "$WORK/$name/opensm.conf"
	env IBFAB_CONF="$conf" WORK="$WORK" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$WORK/tri.net" "$WORK/$name/sim" -- bash -c '
		d=$IBFAB_SIM_DIR
		OSM_TMP_DIR=$d OSM_CACHE_DIR=$d ibsim-run opensm -F "$0" -f "$d/opensm.log" \
			>"$d/opensm.out" 2>&1 </dev/null &
		pid=$!
		# wait_for N TEXT: until the log holds TEXT N times (at most 30 s)
		wait_for() {
			local i
			for i in $(seq 1 100); do
				[ "$(grep -cF -- "$2" "$d/opensm.log" 2>/dev/null)" -ge "$1" ] && return 0
				kill -0 $pid 2>/dev/null || return 1
				sleep 0.3
			done
			return 1
		}
		. "$1"
		rc=$?
		kill -0 $pid 2>/dev/null || { echo "opensm died"; rc=9; }
		kill $pid 2>/dev/null
		wait $pid
		exit $rc
	' "$WORK/$name/opensm.conf" "$script" 2>&1 | diag
	return "${PIPESTATUS[0]}"
}

# 3. no_fallback: nothing after the failing engine
echo 'wait_for 1 "ibfab dmodk: routing failed"' >"$WORK/nofb.sh"
live nofb dmodk,no_fallback "$WORK/good.conf" "$WORK/nofb.sh"
check "dmodk,no_fallback: opensm ran dmodk and stayed up" test $? -eq 0
show_log nofb
check "dmodk,no_fallback: the log says no new tables, not a fallback" \
	log_has nofb "ibfab dmodk: routing failed and no_fallback is in routing_engine: OpenSM programs no new tables this sweep"

# 4. ibfab.conf edited, then removed, while OpenSM runs
cp "$WORK/good.conf" "$WORK/live.conf"
cat >"$WORK/edit.sh" <<'EOF'
T="layered tables configured on all switches"
wait_for 1 "$T" || { echo "no first sweep"; return 1; }
sleep 1.1 # a new mtime even on coarse clocks
printf 'seed 5\nbogus_key 1\n' >"$WORK/live.conf"
kill -HUP $pid
wait_for 2 "$T" || { echo "no sweep after the edit"; return 2; }
kill -HUP $pid # the same file again: no second warning
wait_for 3 "$T" || { echo "no third sweep"; return 3; }
rm -f "$WORK/live.conf"
kill -HUP $pid
wait_for 4 "$T" || { echo "no sweep after the removal"; return 4; }
return 0
EOF
live edit layered "$WORK/live.conf" "$WORK/edit.sh"
check "ibfab.conf edited and removed under a running OpenSM: re-sweeps ran" test $? -eq 0
show_log edit
check "edited ibfab.conf: the log says the startup options stay" \
	log_has edit "ibfab layered: warning: $WORK/live.conf changed since OpenSM started; the engines keep the options read at startup (valid) until OpenSM is restarted"
check "edited ibfab.conf: warned once for one change" \
	test "$(grep -c 'live.conf changed since OpenSM started' "$WORK/edit/sim/opensm.log")" -eq 1
check "removed ibfab.conf: said too" log_has edit "ibfab layered: warning: $WORK/live.conf was removed since OpenSM started"
check "edited ibfab.conf: layered kept routing every sweep (no configuration error)" \
	eval "! grep -q 'cannot route' '$WORK/edit/sim/opensm.log'"
check "edited ibfab.conf: 4 layered sweeps" \
	test "$(grep -c 'layered: tables configured by ibfab' "$WORK/edit/sim/opensm.log")" -ge 4

done_testing
