#!/usr/bin/env bash
# The rail health registry from the command line: created from a fabric,
# scores set, decisions for GPU pairs (rd/dr by the h-ratio, a remote rail,
# d and r), the default path when the registry is stale or missing, and a
# registry that is never torn while a writer updates it and readers read.
. "$(dirname "$0")/lib.sh"
mk_workdir
cd "$WORK" || exit 1

"$IBFAB" topo gen rail --servers 4 --gpus 4 --spines 2 >r.topo 2>/dev/null
"$IBFAB" rail registry --registry reg.json --topology r.topo --rail 1=30 --domain srv002=50 \
	--now 1000 --max-age 60 >/dev/null 2>err.txt
check "registry from a fabric: 4 rails, 4 domains" python3 -c '
import json
d = json.load(open("reg.json"))
assert d["version"] == 1 and d["timestamp"] == 1000 and d["max_age"] == 60
assert d["rails"] == {"0": 100, "1": 30, "2": 100, "3": 100}, d["rails"]
assert sorted(d["domains"]) == ["srv000", "srv001", "srv002", "srv003"]
assert d["domains"]["srv002"] == 50 and d["rails_by_score"][-1] == 1
assert abs(d["gamma"]["srv002"]["1"] - 0.6) < 1e-9
'
out=$("$IBFAB" rail path --registry reg.json --src srv000:1 --dst srv002:3 --now 1010)
check "congested source rail: dr via the destination's rail ($out)" sh -c "echo '$out' | grep -q ': dr via rail 3'"
out=$("$IBFAB" rail path --registry reg.json --src srv000:3 --dst srv002:1 --now 1010)
check "congested destination rail: rd ($out)" sh -c "echo '$out' | grep -q ': rd via rail 3'"
"$IBFAB" rail registry --registry reg.json --rail 0=20 --rail 3=20 --rail 2=100 --now 1000 >/dev/null
out=$("$IBFAB" rail path --registry reg.json --src srv000:0 --dst srv003:3 --now 1010)
check "both local rails congested: a remote rail ($out)" sh -c "echo '$out' | grep -q ': remote via rail 2'"
out=$("$IBFAB" rail path --registry reg.json --src srv000:0 --dst srv000:3 --now 1010)
check "same host: d" sh -c "echo '$out' | grep -q ': d via'"
out=$("$IBFAB" rail path --registry reg.json --src srv000:2 --dst srv001:2 --now 1010)
check "same rail: r" sh -c "echo '$out' | grep -q ': r via rail 2'"
out=$("$IBFAB" rail path --registry reg.json --src srv000:1 --dst srv002:3 --now 5000)
check "stale registry: the default path, said so" sh -c "echo '$out' | grep -q 'rd via rail 1 (default path: registry stale)'"
out=$("$IBFAB" rail path --registry missing.json --src srv000:1 --dst srv002:3 2>/dev/null)
check "no registry: the default path" sh -c "echo '$out' | grep -q 'default path'"
"$IBFAB" rail path --registry reg.json --all --now 1010 >all.txt
check "--all: 4 hosts x 4 rails, every pair decided" grep -q '^4 hosts x 4 rails: d 48, r 48, ' all.txt
"$IBFAB" rail path --registry reg.json --all --hosts srv000,srv001 --json --now 1010 >all.json
check "--all --json: 56 pairs" python3 -c 'import json; assert len(json.load(open("all.json"))) == 56'
printf '{"version": 1, "rails": {"1": 200}}' >bad.json
rc=0; "$IBFAB" rail path --registry bad.json --src a:1 --dst b:2 >/dev/null 2>bad.err || rc=$?
check "bad registry: FILE:LINE error, exit 1" sh -c "[ $rc -eq 1 ] && grep -q 'bad.json:1: ' bad.err"

"$IBFAB" rail path --registry reg.json --src srv000:1 --dst srv002:3 --hosts srv001 >/dev/null 2>&1
rc=$?
check "--hosts without --all is a usage error, not ignored (exit $rc)" test "$rc" -eq 2

# the host cache of a registry whose writer stopped long ago: read, but not "fresh"
"$IBFAB" rail registry --registry old.json --rail 0=50 --now 1000 --max-age 60 >/dev/null
"$IBFAB" rail cache --registry old.json --out old-copy.json --once 2>cache.err
check "rail cache on an old registry says stale, not fresh" \
	sh -c 'grep -q "but stale: written at 1000, max_age 60 s" cache.err && ! grep -q fresh cache.err'

"$IBFAB" rail registry --registry reg.json --map no-such.map --rail 1=30 >/dev/null 2>&1
rc=$?
check "rail registry --map without --topology is a usage error, not ignored (exit $rc)" test "$rc" -eq 2

"$IBFAB" rail path --registry missing.json --all --hosts srv000,srv001 >none.txt 2>none.err
rc=$?
check "--all with no registry: no pairs decided, said so, exit 1 (not a row of zeros; exit $rc)" \
	sh -c "[ $rc -eq 1 ] && [ ! -s none.txt ] && grep -q 'no GPU pairs to decide' none.err"
"$IBFAB" rail path --registry reg.json --all --hosts srv000,srv0001 --now 1010 >/dev/null 2>typo.err
check "--all --hosts with a host the registry lacks warns" grep -q 'host srv0001 is not in the registry' typo.err

# a real non-rail fabric (one HCA per host, device numbers 0 and 1): said so,
# not "rail-optimized" with invented rails
ts="$top_srcdir/tests/fixtures/real/qdr-truescale-plafrim2-7sw-2016.ibnetdiscover-s-p"
"$IBFAB" rail info "$ts" >ts.info 2>&1
check "rail info on a non-rail dump: not a rail fabric" grep -q '^kind not a rail fabric' ts.info
"$IBFAB" rail registry --registry ts.json --topology "$ts" >/dev/null 2>ts.err
check "rail registry --topology of a non-rail dump warns" grep -q 'is not a rail fabric' ts.err
"$IBFAB" rail info r.topo >r.info 2>&1
check "rail info on a rail fabric: rail-optimized" grep -q '^kind rail-optimized' r.info

# never torn: one writer rewriting the scores, two readers parsing all along
( for i in $(seq 1 150); do "$IBFAB" rail registry --registry reg.json --rail 1=$((i % 101)) \
	--domain srv00$((i % 4))=$(((i * 7) % 101)) >/dev/null 2>&1; done; echo done >writer.done ) &
wpid=$!
torn=0; reads=0
while [ ! -e writer.done ]; do
	if ! "$IBFAB" rail path --registry reg.json --src srv000:1 --dst srv002:3 >/dev/null 2>read.err; then
		torn=$((torn + 1)); cat read.err | diag
	fi
	reads=$((reads + 1))
done
wait "$wpid"
check "registry never torn: $reads reads during 150 rewrites, $torn failed" test "$torn" -eq 0
check "no temporary files left beside the registry" sh -c '[ "$(ls -a | grep -c "reg.json.")" -eq 0 ]'
done_testing
