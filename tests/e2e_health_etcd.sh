#!/usr/bin/env bash
# End to end: the rail health service writing to etcd.  A stock OpenSM
# 3.3.23 daemon with the ibfab plugin (routing_engine hratio, PerfMgr every
# second) on a rail-optimized 4 x 2 fabric in ibsim, ibfab.conf
# `rail_registry etcd://...` pointing at a private etcd started here:
#  - every sweep lands in etcd (one transaction each), on one lease;
#  - a node agent's domain score (written before the SM starts and again
#    while it runs) is kept by the SM's updates;
#  - PortXmitWait raised on rail 1's switch in ibsim: rail 1's score in etcd
#    drops, equal to what the plugin logged for that sweep, gamma follows and
#    `ibfab rail path --registry etcd://...` avoids rail 1;
#  - OpenSM killed with SIGKILL: its lease runs out, the keys vanish, the
#    host cache turns stale and decisions take the default path.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin
need_etcd
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir
if "$IBFAB" rail path --registry etcd://127.0.0.1:1 --src a:0 --dst b:1 2>&1 | grep -q 'without libcurl'; then
	skip_all "ibfab built without libcurl (no etcd backend)"
fi

SIM=
OSM_PID=
CACHE_PID=
cleanup() {
	[ -n "${CONGEST_PID:-}" ] && { kill "$CONGEST_PID" 2>/dev/null; wait "$CONGEST_PID" 2>/dev/null; }
	[ -n "$CACHE_PID" ] && { kill "$CACHE_PID" 2>/dev/null; wait "$CACHE_PID" 2>/dev/null; }
	osm_sim_stop
	stop_etcd
	[ -n "${IBFAB_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
start_etcd || { not_ok "etcd starts"; done_testing; }
E=etcd://$ETCD_EP/ibfab/health

# the keys under the prefix as "key value lease" lines (python, independent
# of ibfab's client)
cat >"$WORK/keys.py" <<'PY'
import base64, json, sys, urllib.request
ep, prefix = sys.argv[1], sys.argv[2].encode()
end = prefix[:-1] + bytes([prefix[-1] + 1])
body = json.dumps({"key": base64.b64encode(prefix).decode(), "range_end": base64.b64encode(end).decode()})
d = json.load(urllib.request.urlopen("http://%s/v3/kv/range" % ep, body.encode(), timeout=5))
for kv in d.get("kvs", []):
    print(base64.b64decode(kv["key"]).decode()[len(prefix):], base64.b64decode(kv.get("value", "")).decode(), kv.get("lease", "0"))
PY
keys() { python3 "$WORK/keys.py" "$ETCD_EP" /ibfab/health/; }
key() { keys | awk -v k="$1" '$1 == k { print $2 }'; }

opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
"$IBFAB" topo gen rail --servers 4 --gpus 2 --spines 2 --format ibsim -o "$WORK/r.net" >/dev/null 2>&1
check "rail-optimized 4x2 with 2 spines (ibsim net)" grep -q '"rail01-l00"' "$WORK/r.net"
# a node agent reports its server before the SM writes anything
"$IBFAB" rail registry --registry "$E" --domain srv001=50 >/dev/null 2>"$WORK/agent.err"
check "node agent wrote srv001=50 to etcd" test "$(key domain/srv001)" = 50
cat >"$WORK/ibfab.conf" <<EOF
rail_registry $E
rail_health_alpha 0.5
EOF
osm_conf "$WORK/opensm.default.conf" hratio 0 "$WORK/opensm.conf" \
	-e 's|^perfmgr .*|perfmgr TRUE|' -e 's|^perfmgr_sweep_time_s .*|perfmgr_sweep_time_s 1|'

SIM=$WORK/sim
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/r.net" "$SIM" 2>&1 | diag
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"

rails_logged() { # SWEEP: "0=S 1=S" as the plugin logged it
	sed -n "s/.*ibfab health: PerfMgr sweep $1: .* rails \([0-9= ]*\);.*/\1/p" "$SIM/opensm.log" | head -1
}

wait_health_sweeps 3
check "OpenSM up, PerfMgr sweeps written to etcd (sweep $(health_sweeps))" test $? -eq 0
grep -E 'ibfab health' "$SIM/opensm.log" | head -3 |
	sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | cut -c1-200 | diag
check "the plugin took a lease (TTL 5 s: three 1 s sweeps, at least 5)" \
	grep -q "ibfab health: registry in etcd $E, lease TTL 5 s" "$SIM/opensm.log"
keys >"$WORK/idle.txt"
diag <"$WORK/idle.txt"
check "idle: rails 0 and 1 at 100, the agent's srv001 kept at 50, srv000 at 100, gamma 2 and 1" python3 -c '
import json, sys
rows = [l.split(" ") for l in open(sys.argv[1]).read().splitlines()]
k = {r[0]: r[1] for r in rows}
assert k["rail/0"] == "100" and k["rail/1"] == "100", k
assert k["domain/srv001"] == "50" and k["domain/srv000"] == "100", k
assert json.loads(k["gamma/srv001"]) == {"0": 2, "1": 2} and json.loads(k["gamma/srv000"])["1"] == 1
leases = {r[2] for r in rows}
assert len(leases) == 1 and "0" not in leases, leases
assert int(k["gen"]) >= 2
' "$WORK/idle.txt"

# a node agent changes its server while the SM keeps writing
"$IBFAB" rail registry --registry "$E" --domain srv002=40 >/dev/null 2>>"$WORK/agent.err"
s=$(health_sweeps)
wait_health_sweeps $((s + 2))
check "the agent's srv002=40 survives the SM's next sweeps ($(key domain/srv002))" \
	test "$(key domain/srv002)" = 40

congest() {
	local sw=$1 step=$2 rounds=$3 base=$4 r p lines
	for r in $(seq 1 "$rounds"); do
		lines=()
		for p in 1 2 3 4 5 6; do
			lines+=("PerformanceSet \"$sw\"[$p] PortCounters.PortXmitWait=$((base + r * step))")
		done
		"$HARNESS" console "$SIM" "${lines[@]}" || return 1
		sleep 0.5
	done
}
s0=$(health_sweeps)
congest rail01-l00 2000000 16 0 &
CONGEST_PID=$!
wait_health_sweeps $((s0 + 3))
# the values in etcd are those of the sweep the plugin logged last (it logs
# right after its transaction, so the next sweep's may already be there)
same=0
for try in 1 2 3 4 5; do
	a=$(health_sweeps)
	keys >"$WORK/snap.txt"
	e=$(awk '$1 ~ /^rail\// { sub("rail/", "", $1); printf "%s%s=%s", sep, $1, $2; sep = " " }' "$WORK/snap.txt")
	wait_health_sweeps $((a + 1))
	[ "$e" = "$(rails_logged "$a")" ] || [ "$e" = "$(rails_logged $((a + 1)))" ] && { same=1; break; }
done
check "etcd holds the rail scores of sweep $a or $((a + 1)) as logged ($e)" test $same -eq 1
check "in that snapshot: rail 1 dropped (<= 50), rail 0 at 100, gamma(srv001, 1) = H(rail 1) / 0.5" python3 -c '
import json, sys
k = {l.split(" ")[0]: l.split(" ")[1] for l in open(sys.argv[1]).read().splitlines()}
r1 = int(k["rail/1"])
assert r1 <= 50 and k["rail/0"] == "100", k
g = json.loads(k["gamma/srv001"])
assert abs(g["1"] - r1 / 50) < 1e-5 and g["0"] == 2, (g, r1)' "$WORK/snap.txt"
"$IBFAB" rail path --registry "$E" --src srv000:0 --dst srv001:1 >"$WORK/path.txt" 2>&1
diag <"$WORK/path.txt"
check "congested rail 1: srv000:0 -> srv001:1 decided from etcd avoids it (rd via rail 0)" \
	grep -q ': rd via rail 0' "$WORK/path.txt"
wait "$CONGEST_PID"
CONGEST_PID=

# the host cache, then the SM dies: its lease runs out
"$IBFAB" rail cache --registry "$E" --out "$WORK/cache.json" --interval 1 2>"$WORK/cache.err" &
CACHE_PID=$!
sleep 1.5
"$IBFAB" rail path --registry "$WORK/cache.json" --src srv000:0 --dst srv001:1 >"$WORK/p1.txt" 2>&1
check "the host cache is fresh while the SM runs" sh -c "! grep -q 'default path' '$WORK/p1.txt'"
before=$(keys | wc -l)
kill -9 "$OSM_PID"
wait "$OSM_PID" 2>/dev/null
OSM_PID=
check "SM killed with SIGKILL; its $before keys still there at first" test "$(keys | wc -l)" -eq "$before" -a "$before" -gt 10
gone=0
t0=$(date +%s)
for i in $(seq 1 60); do
	[ -z "$(keys)" ] && { gone=1; break; }
	sleep 0.2
done
check "SM killed: its keys expired with the lease (after about $(($(date +%s) - t0)) s; TTL 5 s)" test "$gone" -eq 1
sleep 2
"$IBFAB" rail path --registry "$WORK/cache.json" --src srv000:0 --dst srv001:1 >"$WORK/p2.txt" 2>&1
diag <"$WORK/p2.txt"
check "then the host cache is stale: the default path" grep -q 'default path: registry stale' "$WORK/p2.txt"
check "no plugin error in the log" sh -c "! grep -q 'ibfab health: .*\(cannot\|error\|expired\)' '$SIM/opensm.log'"
done_testing
