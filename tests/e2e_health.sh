#!/usr/bin/env bash
# End to end: the rail health service.  A stock OpenSM 3.3.23 runs as a
# daemon with the ibfab plugin (routing_engine hratio, rail_registry set)
# and its PerfMgr sweeping every second, on a small rail-optimized fabric in
# ibsim (4 servers x 2 GPUs, 2 spines) whose console reads from a FIFO.
#  - idle fabric: the registry is written every PerfMgr sweep, every rail
#    at 100, the hosts' domain score (srv001 at 50) in it, gamma = H/H;
#  - PortXmitWait raised on every port of rail 1's switch through ibsim's
#    console (PerformanceSet ... PortCounters.PortXmitWait=...), by a
#    growing amount every half second: rail 1's score drops by the
#    second PerfMgr sweep after the first raise (EWMA alpha 0.5: 50, 25),
#    rail 0 stays at 100, and the gamma of srv001's rail-1 GPU follows;
#  - PortXmitWait and PortCountersExtended.PortXmitData raised together on
#    rail 0's switch: its score sits between the two (wait and data weigh
#    alike);
#  - a reader parsing the registry in a tight loop the whole time never
#    sees a torn or unparsable file; `ibfab rail path` decides from it.
# IBFAB_HEALTH_VALGRIND=1 runs the first OpenSM under valgrind (memcheck,
# definite leaks) and checks that no report has a frame in the plugin.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir

SIM=
OSM_PID=
READER_PID=
cleanup() {
	[ -n "${CONGEST_PID:-}" ] && { kill "$CONGEST_PID" 2>/dev/null; wait "$CONGEST_PID" 2>/dev/null; }
	[ -n "$READER_PID" ] && { kill "$READER_PID" 2>/dev/null; wait "$READER_PID" 2>/dev/null; }
	osm_sim_stop
	[ -n "${IBFAB_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
"$IBFAB" topo gen rail --servers 4 --gpus 2 --spines 2 --format ibsim -o "$WORK/r.net" >/dev/null 2>&1
check "rail-optimized 4x2 with 2 spines (ibsim net)" grep -q '"rail01-l00"' "$WORK/r.net"
REG=$WORK/rails.json
"$IBFAB" rail registry --registry "$WORK/doms.json" --domain srv001=50 >/dev/null 2>&1
cat >"$WORK/ibfab.conf" <<EOF
rail_registry $REG
rail_domain_scores $WORK/doms.json
rail_health_alpha 0.5
rail_avoid_below 40
rail_avoid_sweeps 2
rail_avoid_above 70
EOF
osm_conf "$WORK/opensm.default.conf" hratio 0 "$WORK/opensm.conf" \
	-e 's|^perfmgr .*|perfmgr TRUE|' -e 's|^perfmgr_sweep_time_s .*|perfmgr_sweep_time_s 1|'

runner=()
if [ "${IBFAB_HEALTH_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
	runner=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite
		--show-leak-kinds=definite --num-callers=30 --fullpath-after= --log-file="$WORK/vg.%p")
fi
SIM=$WORK/sim
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/r.net" "$SIM" 2>&1 | diag
check "ibsim with its console on a FIFO" test -p "$SIM/console"
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf" "$SIM/opensm.out" "${runner[@]}"

# the reader: parse the registry as fast as it can until told to stop
python3 - "$REG" "$WORK/reader.stop" >"$WORK/reader.out" 2>&1 <<'PY' &
import json, os, sys, time
reg, stop = sys.argv[1], sys.argv[2]
reads = bad = 0
first = ''
while not os.path.exists(stop):
    try:
        with open(reg) as f:
            text = f.read()
    except FileNotFoundError:
        time.sleep(0.001)
        continue
    reads += 1
    time.sleep(0.0002)
    try:
        d = json.loads(text)
        assert d['version'] == 1 and isinstance(d['rails'], dict) and isinstance(d['gamma'], dict)
        assert all(0 <= v <= 100 for v in d['rails'].values())
    except Exception as e:
        bad += 1
        first = first or '%r: %r' % (e, text[:200])
print(reads, bad, first)
PY
READER_PID=$!

# sweep lines of the plugin: "... PerfMgr sweep N: ... rails 0=S 1=S; ..."
rail_at() { # SWEEP RAIL: the rail's score written in that sweep
	sed -n "s/.*ibfab health: PerfMgr sweep $1: .* rails \([0-9= ]*\);.*/\1/p" "$SIM/opensm.log" |
		tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

wait_health_sweeps 3
check "OpenSM up, PerfMgr sweeps scored and written (sweep $(health_sweeps))" test $? -eq 0
grep -E 'ibfab health|hratio: tables configured|SUBNET UP' "$SIM/opensm.log" | head -4 |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-220 | diag
check "hratio routed the fabric" grep -q 'hratio: tables configured by ibfab' "$SIM/opensm.log"
check "health service on the 2 rails and 2 spines, 12 + 4 switch ports" \
	grep -q 'ibfab health: 2 rails, 4 domains, 2 spines; 16 rail switch and spine ports monitored' "$SIM/opensm.log"
s=$(health_sweeps)
check "idle: every port scored, rails 0 and 1 at 100 (sweep $s)" \
	sh -c "grep -q 'PerfMgr sweep $s: 12 rail ports scored; rails 0=100 1=100;' '$SIM/opensm.log'"
cp "$REG" "$WORK/idle.json"
python3 - "$WORK/idle.json" >"$WORK/idle.txt" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d['rails']['0'], d['rails']['1'], d['domains']['srv001'], d['domains']['srv000'],
      d['gamma']['srv001']['1'], d['gamma']['srv000']['1'])
PY
diag <"$WORK/idle.txt"
check "idle registry: rails 100, srv001 at 50 from the hosts' file, srv000 at 100, gamma 2 and 1" \
	grep -qx '100 100 50 100 2 1' "$WORK/idle.txt"
"$IBFAB" rail path --registry "$REG" --src srv000:0 --dst srv001:1 >"$WORK/path-idle.txt" 2>&1
diag <"$WORK/path-idle.txt"
check "idle: srv000:0 -> srv001:1 goes dr via rail 1 (srv001's domain at 50, rails idle)" \
	grep -q ': dr via rail 1' "$WORK/path-idle.txt"

# raise PortXmitWait on every port of a switch by STEP per round (and
# PortXmitData by DSTEP when > 0), ROUNDS rounds half a second apart
congest() {
	local sw=$1 step=$2 dstep=$3 rounds=$4 base=$5 r p lines
	for r in $(seq 1 "$rounds"); do
		lines=()
		for p in $(seq 1 "${PORTS:-6}"); do
			lines+=("PerformanceSet \"$sw\"[$p] PortCounters.PortXmitWait=$((base + r * step))")
			[ "$dstep" -gt 0 ] &&
				lines+=("PerformanceSet \"$sw\"[$p] PortCountersExtended.PortXmitData=$((base * 4 + r * dstep))")
		done
		# one round at once, so that PerfMgr sees a port's wait and data
		# of the same rounds; the last line through the harness, which
		# waits until ibsim has executed it (and so the ones before)
		printf '%s\n' "${lines[@]:0:${#lines[@]}-1}" >"$SIM/console" || return 1
		"$HARNESS" console "$SIM" "${lines[-1]}" || return 1
		sleep 0.5
	done
}

s0=$(health_sweeps)
congest rail01-l00 2000000 0 1 0
check "ibsim took PerformanceSet PortXmitWait" sh -c "! grep -q 'not found\|not valid' '$SIM/ibsim.log'"
# the raises go on in the background while the registry is looked at
congest rail01-l00 2000000 0 16 2000000 &
CONGEST_PID=$!
wait_health_sweeps $((s0 + 3))
cp "$REG" "$WORK/congested.json"
r1=$(rail_at $((s0 + 2)) 1)
r0=$(rail_at $((s0 + 2)) 0)
echo "# sweep $s0 before the first raise; sweeps $((s0 + 1))..$((s0 + 3)): rail 1 at $(rail_at $((s0 + 1)) 1) $r1 $(rail_at $((s0 + 3)) 1), rail 0 at $r0"
check "rail 1's score dropped within two PerfMgr sweeps (${r1:-?} <= 50)" test "${r1:-100}" -le 50
check "rail 0 untouched (${r0:-?})" test "${r0:-0}" -eq 100
python3 - "$WORK/congested.json" >"$WORK/congested.txt" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r1 = d['rails']['1']
g = d['gamma']['srv001']['1']
print(r1, g, abs(g - r1 / 50) < 1e-6, d['rails_by_score'])
PY
diag <"$WORK/congested.txt"
read -r c_r1 c_g c_ok _ <"$WORK/congested.txt"
check "gamma(srv001, rail 1) = H(rail 1) / H(srv001) followed the drop (${c_g:-?} < 1)" \
	sh -c "[ '$c_ok' = True ] && awk -v g='${c_g:-2}' 'BEGIN { exit !(g < 1) }'"
"$IBFAB" rail path --registry "$WORK/congested.json" --src srv000:0 --dst srv001:1 >"$WORK/path-cong.txt" 2>&1
diag <"$WORK/path-cong.txt"
check "congested rail 1: srv000:0 -> srv001:1 now avoids rail 1 (rd via rail 0)" \
	grep -q ': rd via rail 0' "$WORK/path-cong.txt"
wait "$CONGEST_PID"
check "the raises on rail 1 went through" test $? -eq 0

# wait and data alike on rail 0: congestion about 1/2
s1=$(health_sweeps)
congest rail00-l00 2000000 2000000 16 0 &
CONGEST_PID=$!
wait_health_sweeps $((s1 + 4))
s2=$(health_sweeps)
r0=$(rail_at "$s2" 0)
echo "# rail 0 with PortXmitWait and PortXmitData raised alike, sweeps $((s1 + 1))..$s2: $(for i in $(seq $((s1 + 1)) "$s2"); do rail_at "$i" 0; done | tr '\n' ' ')"
check "rail 0 with wait and data alike: between the two (${r0:-?} in 25..85)" \
	sh -c "[ '${r0:-0}' -ge 25 ] && [ '${r0:-100}' -le 85 ]"
wait "$CONGEST_PID"
check "the raises on rail 0 went through" test $? -eq 0

# a congested spine: avoided after two sweeps below 40 (hratio reroutes
# around it), used again once above 70
spine_paths() { # DIR: read back the tables, cross-rail paths over spine00
	mkdir -p "$1"
	IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run dump_lfts 2>/dev/null |
		grep -v "replaced by dump_fts" >"$1/lfts.txt"
	IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run ibnetdiscover >"$1/net.ibnd" 2>/dev/null
	"$IBFAB" rail check "$1/net.ibnd" --lfts "$1/lfts.txt" >"$1/rail.txt" 2>&1
	awk '$1 == "spine00" { print $2 }' "$1/rail.txt"
}
log_diag() { # FROM-LINE REGEX: OpenSM's log lines after that line that match, shown
	tail -n +"$1" "$SIM/opensm.log" | grep -E "$2" |
		sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-240 | diag
}
wait_log() { # PATTERN FROM-LINE: until the log has it after that line (60 s)
	local i
	for i in $(seq 1 300); do
		tail -n +"$2" "$SIM/opensm.log" | grep -q "$1" && return 0
		sleep 0.2
	done
	return 1
}
before=$(spine_paths "$WORK/spine-before")
check "spine00 carries cross-rail paths before (${before:-?})" test "${before:-0}" -gt 0
from=$(wc -l <"$SIM/opensm.log")
PORTS=2 congest spine00 4000000 0 20 0 &
CONGEST_PID=$!
wait_log 'hratio: avoiding 1 switches' "$from"
check "spine00 avoided: hratio rerouted around it" test $? -eq 0
wait_log 'hratio: tables configured by ibfab' "$from"
log_diag "$from" 'avoided spines|hratio: avoiding|tables configured'
avoided=$(spine_paths "$WORK/spine-avoided")
diag <"$WORK/spine-avoided/rail.txt"
check "read back: no cross-rail path over spine00 (${avoided:-?}), rail check passes" \
	sh -c "[ '${avoided:-1}' -eq 0 ] && grep -q 'cross rail: .* 0 not delivered' '$WORK/spine-avoided/rail.txt'"
wait "$CONGEST_PID"
CONGEST_PID=
from=$(wc -l <"$SIM/opensm.log")
wait_log 'avoided spines changed: 0x[0-9a-f]*=[0-9]* 0x' "$from"
check "spine00 healthy again (above 70): reroute requested" test $? -eq 0
wait_log 'hratio: tables configured by ibfab' "$from"
sleep 1
after=$(spine_paths "$WORK/spine-after")
check "read back: spine00 carries cross-rail paths again (${after:-?})" test "${after:-0}" -gt 0
check "the spine was avoided once and used again once (no flapping)" \
	test "$(grep -c 'avoided spines changed' "$SIM/opensm.log")" -eq 2

# both spines congested at once: rail_avoid_max (default 50 %) leaves one
# of the two in use, or every cross-rail path would crowd onto the other;
# spine00's counters go on from where the raises above left them
from=$(wc -l <"$SIM/opensm.log")
(for r in $(seq 1 16); do
	PORTS=2 congest spine00 8000000 0 1 $((80000000 + r * 8000000)) || exit 1
	PORTS=2 congest spine01 8000000 0 1 $((r * 8000000)) || exit 1
done) &
CONGEST_PID=$!
wait_log '=[0-9]*(held by the cap: 1 of the 2 spines)' "$from"
check "both spines low: one is held in use by rail_avoid_max (the log says by which cap)" test $? -eq 0
wait_log 'hratio: tables configured by ibfab' "$from"
log_diag "$from" 'avoided spines|held in use|hratio: avoiding|tables configured'
check "... and never both avoided" sh -c "! tail -n +$from '$SIM/opensm.log' | grep -q '(avoided).*(avoided)'"
spine_paths "$WORK/spine-both" >/dev/null
both=$(awk '$1 ~ /^spine0[01]$/ && $2 > 0 { n++ } END { print n + 0 }' "$WORK/spine-both/rail.txt")
diag <"$WORK/spine-both/rail.txt"
check "read back: one spine still carries cross-rail paths ($both of 2)" test "$both" -ge 1
wait "$CONGEST_PID"
CONGEST_PID=

# rail 1's switch dies and its GPUs leave the sweep with it: the registry
# keeps rail 1, at 0 (dropped, hosts would read the default 100 and send
# over a rail that is not there); a GPU of rail 1 then moves its data to
# the other rail inside its server first; the rail comes back at 100
from=$(wc -l <"$SIM/opensm.log")
"$HARNESS" console "$SIM" 'Unlink "rail01-l00"'
wait_log 'ibfab health: rail(s) 1 gone from the fabric' "$from"
check "rail 1's switch dead: the log says rail 1 is gone, published at 0" test $? -eq 0
wait_log 'PerfMgr sweep [0-9]*: .*rails 0=[0-9]* 1=0;' "$from"
check "... the sweeps write rail 1 at 0" test $? -eq 0
tail -n +"$from" "$SIM/opensm.log" | grep -E 'ibfab health|tables configured|cannot route' | tail -4 |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-200 | diag
sleep 1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rails"].get("1"))' "$REG" \
	>"$WORK/gone.txt" 2>&1
check "... the registry file holds rail 1 at 0 ($(cat "$WORK/gone.txt"))" grep -qx 0 "$WORK/gone.txt"
"$IBFAB" rail path --registry "$REG" --src srv000:1 --dst srv002:0 >"$WORK/path-gone.txt" 2>&1
diag <"$WORK/path-gone.txt"
check "rail 1 gone: srv000:1 -> srv002:0 goes dr via rail 0" grep -q ': dr via rail 0' "$WORK/path-gone.txt"
from=$(wc -l <"$SIM/opensm.log")
"$HARNESS" console "$SIM" 'ReLink "rail01-l00"'
wait_log 'ibfab health: the rails lost earlier are back' "$from"
check "rail 1's switch back: the log says so" test $? -eq 0
wait_log 'PerfMgr sweep [0-9]*: .*rails 0=[0-9]* 1=100;' "$from"
check "... and the sweeps write rail 1 at 100 again" test $? -eq 0

touch "$WORK/reader.stop"
wait "$READER_PID"
READER_PID=
read -r reads bad first <"$WORK/reader.out"
echo "# reader: $reads reads, $bad unparsable ${first:-}"
check "concurrent reader: $reads reads of the registry, none torn or unparsable" \
	sh -c "[ '${reads:-0}' -gt 50 ] && [ '${bad:-1}' -eq 0 ]"
kill -0 "$OSM_PID" 2>/dev/null
check "OpenSM still running after $(health_sweeps) PerfMgr sweeps" test $? -eq 0
check "no plugin error in the log" sh -c "! grep -q 'ibfab health: .*\(cannot\|error\|domain scores:\)' '$SIM/opensm.log'"
osm_stop
if [ ${#runner[@]} -gt 0 ]; then
	cat "$WORK"/vg.* >"$WORK/valgrind.txt" 2>/dev/null
	echo "# valgrind: $(grep -cE '^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|.*definitely lost)' "$WORK/valgrind.txt") reports in all"
	# ours: a frame in libibfab.so, by name or by the path of our sources
	check "valgrind: no report with a frame in libibfab.so" sh -c \
		"! grep -qE 'libibfab|/(base|conf|rail|topology|routing|deadlock|plugin)/[A-Za-z0-9_]+[.]c:' '$WORK/valgrind.txt'"
fi

# OpenSM's own minhop routes: the rail structure comes from the subnet at
# SUBNET_UP; a mapping file puts srv003's NICs into domain gpu-x; the
# hosts' file is broken (logged once, the registry is still written)
REG=$WORK/rails2.json
# srv009 (powered off, so absent) had a NIC on rail 2, whose switch is gone
# too: the line is skipped (logged), and rail 2, known only from the map,
# is published at 0 from the first sweep
printf '"srv003 mlx5_0" gpu-x\n"srv003 mlx5_1" gpu-x 1\n"srv009 mlx5_2" gpu-y 2\n' >"$WORK/rail.map"
printf '{"version": 1, "domains": {"srv001": 50' >"$WORK/doms-bad.json"
printf 'rail_registry %s\nrail_domain_scores %s\nrail_map %s\nrail_health_percentile 100\n' \
	"$REG" "$WORK/doms-bad.json" "$WORK/rail.map" >"$WORK/ibfab2.conf"
osm_conf "$WORK/opensm.default.conf" minhop 0 "$WORK/opensm2.conf" \
	-e 's|^perfmgr .*|perfmgr TRUE|' -e 's|^perfmgr_sweep_time_s .*|perfmgr_sweep_time_s 1|'
mv "$SIM/opensm.log" "$SIM/opensm-hratio.log"
osm_daemon "$WORK/opensm2.conf" "$WORK/ibfab2.conf" "$SIM/opensm2.out"
wait_health_sweeps 3
check "minhop: PerfMgr sweeps scored and written (sweep $(health_sweeps))" test $? -eq 0
grep -E 'ibfab health' "$SIM/opensm.log" | head -4 |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-220 | diag
check "minhop: rails found on the subnet, srv003 mapped into gpu-x" \
	grep -q 'ibfab health: 2 rails, 4 domains, 2 spines; 16 rail switch and spine ports monitored' "$SIM/opensm.log"
check "minhop: the broken hosts' file is reported once" \
	test "$(grep -c 'ibfab health: domain scores: .*doms-bad.json' "$SIM/opensm.log")" -eq 1
check "minhop: the map's line of the absent srv009 is skipped and logged" \
	grep -q 'ibfab health: .*rail.map:3: 1 rail_map line(s) name no node of the fabric' "$SIM/opensm.log"
check "minhop: rail 2 (named by the map only) is gone from the start" \
	grep -q 'ibfab health: rail(s) 2 gone from the fabric' "$SIM/opensm.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted(d["domains"]), d["domains"]["srv001"], sorted(d["rails"]), d["rails"]["2"])
' "$REG" >"$WORK/minhop.txt" 2>&1
diag <"$WORK/minhop.txt"
check "minhop: registry with domain gpu-x (not srv003), default domain scores, rails 0 and 1, 2 at 0" \
	grep -qF "['gpu-x', 'srv000', 'srv001', 'srv002'] 100 ['0', '1', '2'] 0" "$WORK/minhop.txt"
kill -0 "$OSM_PID" 2>/dev/null
check "minhop: OpenSM still running" test $? -eq 0
osm_stop

# a mapping file none of whose lines names a node here (another cluster's):
# its rail numbers say nothing about this fabric's rails, so none of them
# (2, 5) is published as lost; the rails found are
REG=$WORK/rails3.json
printf '"srv009 mlx5_2" gpu-y 2
"srv010 mlx5_5" gpu-z 5
' >"$WORK/rail-other.map"
printf 'rail_registry %s
rail_map %s
rail_health_percentile 100
' \
	"$REG" "$WORK/rail-other.map" >"$WORK/ibfab3.conf"
mv "$SIM/opensm.log" "$SIM/opensm-minhop.log"
osm_daemon "$WORK/opensm2.conf" "$WORK/ibfab3.conf" "$SIM/opensm3.out"
wait_health_sweeps 2
check "other map: PerfMgr sweeps scored and written (sweep $(health_sweeps))" test $? -eq 0
check "other map: logged as naming no node of the fabric" \
	grep -q 'ibfab health: no line of .*rail-other.map names a node of the fabric' "$SIM/opensm.log"
check "other map: no rail gone" sh -c "! grep -q 'ibfab health: rail(s) .* gone' '$SIM/opensm.log'"
python3 -c '
import json, sys
print(sorted(json.load(open(sys.argv[1]))["rails"]))
' "$REG" >"$WORK/other.txt" 2>&1
diag <"$WORK/other.txt"
check "other map: registry with rails 0 and 1 only" grep -qF "['0', '1']" "$WORK/other.txt"
osm_stop
done_testing
