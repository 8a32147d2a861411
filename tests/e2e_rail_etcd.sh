#!/usr/bin/env bash
# The rail health registry in a real etcd (started here on localhost): the
# same decisions as the file backend, the key layout, one transaction per
# update (a concurrent reader never sees half of one; concurrent writers never
# undo each other), a lease that expires after its writer dies (keys gone,
# host cache stale, default path), the host cache, and etcd down.
. "$(dirname "$0")/lib.sh"
need_etcd
mk_workdir
BG_PIDS=
cleanup() {
	local p
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	stop_etcd
	[ -n "${IBFAB_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK" || exit 1

if "$IBFAB" rail path --registry etcd://127.0.0.1:1 --src a:0 --dst b:1 2>&1 | grep -q 'without libcurl'; then
	skip_all "ibfab built without libcurl (no etcd backend)"
fi
start_etcd || { not_ok "etcd starts"; done_testing; }
E=etcd://$ETCD_EP

# keys under a prefix as "key value lease" lines, sorted (python: the etcd
# gateway by hand, independent of ibfab's client)
cat >keys.py <<'PY'
import base64, json, sys, urllib.request
ep, prefix = sys.argv[1], sys.argv[2].encode()
end = prefix[:-1] + bytes([prefix[-1] + 1])
body = json.dumps({"key": base64.b64encode(prefix).decode(), "range_end": base64.b64encode(end).decode()})
d = json.load(urllib.request.urlopen("http://%s/v3/kv/range" % ep, body.encode(), timeout=5))
for kv in d.get("kvs", []):
    print(base64.b64decode(kv["key"]).decode()[len(prefix):], base64.b64decode(kv.get("value", "")).decode(), kv.get("lease", "0"))
PY
keys() { python3 keys.py "$ETCD_EP" "$1"; }

# ---- the same scores in a file and in etcd: byte-equal decisions
"$IBFAB" topo gen rail --servers 4 --gpus 4 --spines 2 >r.topo 2>/dev/null
set_both() { # args for `rail registry`
	"$IBFAB" rail registry --registry reg.json "$@" >/dev/null 2>f.err &&
		"$IBFAB" rail registry --registry "$E" "$@" >/dev/null 2>e.err
}
check "registry written to a file and to etcd" \
	set_both --topology r.topo --rail 1=30 --domain srv002=50 --now 1000 --max-age 60
same=0
for step in 1 2 3; do
	for t in 1010 5000; do
		"$IBFAB" rail path --registry reg.json --all --json --now $t >f.out
		"$IBFAB" rail path --registry "$E" --all --json --now $t >e.out
		cmp -s f.out e.out && same=$((same + 1))
	done
	case $step in
	1) set_both --rail 0=20 --rail 3=20 --rail 2=100 --now 1000 ;;
	2) set_both --domain srv000=0 --domain srv003=100 --default dr --default-score 40 --now 1001 ;;
	esac
done
check "etcd and file give byte-equal decisions (all 240 pairs, fresh and stale, 3 states): $same of 6" test $same -eq 6
out=$("$IBFAB" rail path --registry "$E" --src srv001:0 --dst srv003:3 --now 1010)
check "a decision straight from etcd ($out)" sh -c "echo '$out' | grep -q ': remote via rail 2 (score 1;'"

keys /ibfab/rails/ >layout.txt
check "key layout: meta, gen, rail/N, domain/NAME, rails_by_score, gamma/NAME" python3 -c '
rows = [l.split(" ", 2) for l in open("layout.txt").read().splitlines()]
k = {r[0]: r[1] for r in rows}
assert sorted(k) == sorted(["meta", "gen", "rails_by_score"] + ["rail/%d" % i for i in range(4)] +
    ["domain/srv00%d" % i for i in range(4)] + ["gamma/srv00%d" % i for i in range(4)]), sorted(k)
import json
m = json.loads(k["meta"])
assert m == {"version": 1, "timestamp": 1001, "max_age": 60, "default_path": "dr", "default_score": 40}, m
assert k["rail/1"] == "30" and k["domain/srv000"] == "0" and k["gen"] == "3"
assert json.loads(k["rails_by_score"]) == [2, 1, 0, 3]
assert json.loads(k["gamma/srv002"]) == {"0": 0.4, "1": 0.6, "2": 2, "3": 0.4}, k["gamma/srv002"]
'
# a key that is not ours under the prefix goes with the next update
python3 -c '
import base64, json, sys, urllib.request
b = json.dumps({"key": base64.b64encode(b"/ibfab/rails/junk").decode(), "value": "eA=="}).encode()
urllib.request.urlopen("http://%s/v3/kv/put" % sys.argv[1], b, timeout=5).read()' "$ETCD_EP"
"$IBFAB" rail registry --registry "$E" --rail 2=90 --now 1002 >/dev/null
keys /ibfab/rails/ >layout2.txt
check "a stale key under the prefix is deleted in the update" \
	sh -c 'grep -q "^rail/2 90 " layout2.txt && ! grep -q "^junk " layout2.txt'
keys /ibfab/rails/ >/dev/null

# ---- the host cache: a local copy rail path reads
"$IBFAB" rail cache --registry "$E" --out cache.json --once 2>cache.err
"$IBFAB" rail path --registry cache.json --all --json --now 1010 >c.out
"$IBFAB" rail path --registry "$E" --all --json --now 1010 >e.out
check "rail cache --once: the copy decides as etcd does" cmp -s c.out e.out

# ---- one transaction per update: a reader never sees half of one
"$IBFAB" rail registry --registry "$E/ibfab/txn" --topology r.topo --now 2000 >/dev/null
cat >reader.py <<'PY'
import base64, json, os, sys, urllib.request
ep = sys.argv[1]
p = b"/ibfab/txn/"
end = p[:-1] + bytes([p[-1] + 1])
body = json.dumps({"key": base64.b64encode(p).decode(), "range_end": base64.b64encode(end).decode()}).encode()
seen, mixed, reads = set(), 0, 0
while not os.path.exists("writer.done") or reads < 5:
    d = json.load(urllib.request.urlopen("http://%s/v3/kv/range" % ep, body, timeout=5))
    k = {base64.b64decode(kv["key"]).decode()[len(p):]: base64.b64decode(kv["value"]).decode() for kv in d.get("kvs", [])}
    vals = {v for n, v in k.items() if n.startswith("rail/") or n.startswith("domain/")}
    ts = json.loads(k["meta"])["timestamp"]
    # one update sets every score to the same value v and the timestamp to 3000 + v
    if len(vals) != 1 or (ts != 2000 and ts != 3000 + int(next(iter(vals)))):
        mixed += 1
    seen |= vals
    reads += 1
print(reads, len(seen), mixed)
PY
( for i in $(seq 1 30); do
	v=$(((i * 37) % 101))
	"$IBFAB" rail registry --registry "$E/ibfab/txn" --rail 0=$v --rail 1=$v --rail 2=$v --rail 3=$v \
		--domain srv000=$v --domain srv001=$v --domain srv002=$v --domain srv003=$v \
		--now $((3000 + v)) >/dev/null 2>>writer.err
  done; touch writer.done ) &
wpid=$!
read -r reads seen mixed < <(python3 reader.py "$ETCD_EP" 2>reader.err || echo "0 0 -1")
wait $wpid
cat writer.err reader.err 2>/dev/null | diag
check "concurrent reader: $reads snapshots, $seen score values seen, $mixed half-applied" \
	test "$reads" -ge 5 -a "$seen" -ge 3 -a "$mixed" -eq 0

# ---- concurrent writers of different scores never undo each other, and
# the derived keys (gamma, rails_by_score) always agree with the scores:
# each writer computes them from what it read, so without the compare on
# gen's revision a writer that read before the other's update would write
# gamma/srv003 from a stale srv003 score
"$IBFAB" rail registry --registry "$E/ibfab/two" --topology r.topo >/dev/null
cat >consistent.py <<'PY'
import base64, json, os, sys, urllib.request
ep = sys.argv[1]
p = b"/ibfab/two/"
end = p[:-1] + bytes([p[-1] + 1])
body = json.dumps({"key": base64.b64encode(p).decode(), "range_end": base64.b64encode(end).decode()}).encode()
def bad(k):
    rails = {n[5:]: int(v) for n, v in k.items() if n.startswith("rail/")}
    doms = {n[7:]: int(v) for n, v in k.items() if n.startswith("domain/")}
    for d, hd in doms.items():
        g = json.loads(k["gamma/" + d])
        for r, hr in rails.items():
            want = hr / hd if hd else (1e9 if hr else 1.0)
            if abs(g[r] - want) > 1e-5 * max(1, want):
                return "gamma/%s[%s] = %s, scores give %s" % (d, r, g[r], want)
    order = json.loads(k["rails_by_score"])
    if [rails[str(x)] for x in order] != sorted(rails.values(), reverse=True):
        return "rails_by_score %s, scores %s" % (order, rails)
    return None
reads = wrong = 0
first = ""
while True:
    done = os.path.exists("two.done")
    d = json.load(urllib.request.urlopen("http://%s/v3/kv/range" % ep, body, timeout=5))
    k = {base64.b64decode(kv["key"]).decode()[len(p):]: base64.b64decode(kv["value"]).decode() for kv in d.get("kvs", [])}
    why = bad(k)
    reads += 1
    if why:
        wrong += 1
        first = first or why
    if done:
        break
print(reads, wrong, first)
PY
( for i in $(seq 1 25); do "$IBFAB" rail registry --registry "$E/ibfab/two" --rail 1=$i >/dev/null 2>>w1.err; done ) &
p1=$!
( for i in $(seq 1 25); do "$IBFAB" rail registry --registry "$E/ibfab/two" --domain srv003=$((50 + i)) >/dev/null 2>>w2.err; done ) &
p2=$!
python3 consistent.py "$ETCD_EP" >two.out 2>&1 &
p3=$!
wait $p1 $p2
touch two.done
wait $p3
read -r reads wrong first <two.out
keys /ibfab/two/ >two.txt
check "two writers at once: both final values kept, one generation per update" \
	sh -c 'grep -q "^rail/1 25 " two.txt && grep -q "^domain/srv003 75 " two.txt && grep -q "^gen 51 " two.txt'
check "derived keys agree with the scores in all $reads snapshots during the two writers ($wrong wrong${first:+: $first})" \
	test "${reads:-0}" -gt 3 -a "${wrong:-1}" -eq 0

# ---- a lease that expires when its writer dies
"$IBFAB" rail registry --registry "$E/ibfab/lease" --topology r.topo --rail 2=10 --max-age 600 --ttl 2 --hold 2>hold.err &
hpid=$!
BG_PIDS="$BG_PIDS $hpid"
"$IBFAB" rail cache --registry "$E/ibfab/lease" --out lc.json --interval 1 2>lcache.err &
cpid=$!
BG_PIDS="$BG_PIDS $cpid"
sleep 4.5
n_alive=$(keys /ibfab/lease/ | grep -c .)
lease=$(keys /ibfab/lease/ | awk '{ print $3 }' | sort -u | tr '\n' ' ')
check "keys kept alive past the TTL while the writer holds the lease ($n_alive keys, leases: $lease)" \
	sh -c "[ $n_alive -eq 15 ] && [ '$lease' != '0 ' ] && [ \$(echo '$lease' | wc -w) -eq 1 ]"
out=$("$IBFAB" rail path --registry lc.json --src srv000:2 --dst srv001:3)
check "the cache is fresh meanwhile ($out)" sh -c "echo '$out' | grep -q ': dr via rail 3 (score'"
kill -9 "$hpid"
wait "$hpid" 2>/dev/null
gone=0
for i in $(seq 1 60); do
	[ "$(keys /ibfab/lease/ | grep -c .)" -eq 0 ] && { gone=1; break; }
	sleep 0.2
done
check "a dead writer's keys expire with its lease" test $gone -eq 1
sleep 2.5
out=$("$IBFAB" rail path --registry lc.json --src srv000:2 --dst srv001:3)
check "then the cache is stale and hosts take the default path ($out)" \
	sh -c "echo '$out' | grep -q 'rd via rail 2 (default path: registry stale)'"
check "the cache said so" grep -q 'marked stale' lcache.err

# ---- a registry larger than etcd's transaction limit: a clear error
args=""
for d in $(seq 1 70); do args="$args --domain host$d=50"; done
rc=0
"$IBFAB" rail registry --registry "$E/ibfab/big" $args >/dev/null 2>big.err || rc=$?
check "too many keys for one etcd transaction: exit 1 naming --max-txn-ops" \
	sh -c "[ $rc -eq 1 ] && grep -q 'max-txn-ops' big.err"
cat big.err | diag

# ---- etcd down: clear errors, the default path, the cache goes stale
"$IBFAB" rail cache --registry "$E" --out down.json --interval 1 --timeout 500 2>down.err &
dpid=$!
BG_PIDS="$BG_PIDS $dpid"
sleep 1
stop_etcd
sleep 2.5
rc=0
"$IBFAB" rail registry --registry "$E" --rail 1=50 >/dev/null 2>w.err || rc=$?
cat w.err | diag
check "writing with etcd down: exit 1, 'cannot reach etcd'" sh -c "[ $rc -eq 1 ] && grep -q 'cannot reach etcd' w.err"
out=$("$IBFAB" rail path --registry "$E" --src srv000:1 --dst srv002:3 2>p.err)
check "deciding with etcd down: the default path and a warning" \
	sh -c "echo '$out' | grep -q 'default path' && grep -q 'cannot reach etcd' p.err"
check "the running cache marked its copy stale, scores kept" python3 -c '
import json
d = json.load(open("down.json"))
assert d["timestamp"] == 0 and d["rails"]["1"] == 30, d'
kill "$dpid"
wait "$dpid"
check "the cache stops on SIGTERM (exit 0)" test $? -eq 0
check "no temporary files beside the copies" sh -c '[ "$(ls -a | grep -c "json\.t")" -eq 0 ]'
done_testing
