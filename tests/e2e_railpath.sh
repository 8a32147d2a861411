#!/usr/bin/env bash
# ibfab rail registry / rail path (docs/rail.md): scores written atomically,
# the h-ratio choice with the scores behind it, the fallback for a missing or
# stale registry, FILE:LINE errors, a whole job's pairs.  No simulator.
. "$(dirname "$0")/lib.sh"
mk_workdir
R=$WORK/reg.json

"$IBFAB" rail registry --registry "$R" --rail 0=90 --rail 1=30 --rail 2=100 --rail 3=60 \
	--domain srv000=80 --domain srv001=50 --timestamp 1000
check "registry written" grep -q '"timestamp": 1000' "$R"
out=$("$IBFAB" rail path --registry "$R" --src srv000:0 --dst srv001:1 --now 1010)
echo "$out" | diag
check "gamma(src) 1.125 > gamma(dst) 0.6: rd over rail 0, score 0.45" \
	eval "echo '$out' | grep -q 'srv000:0 -> srv001:1  rd     via rail 0  score 0.450'"
out=$("$IBFAB" rail path --registry "$R" --src srv000:1 --dst srv001:0 --now 1010)
check "the other way round: dr over rail 0, score 0.72" \
	eval "echo '$out' | grep -q 'dr     via rail 0  score 0.720'"
"$IBFAB" rail registry --registry "$R" --domain srv000=100 --domain srv001=100 --rail 0=10 \
	--rail 1=10 --timestamp 1000
out=$("$IBFAB" rail path --registry "$R" --src srv000:0 --dst srv001:1 --now 1010)
check "both local rails congested: a remote rail (2, score 1.0) wins" \
	eval "echo '$out' | grep -q 'remote via rail 2  score 1.000'"
out=$("$IBFAB" rail path --registry "$R" --src srv000:0 --dst srv001:1 --now 5000 --default dr)
check "stale registry (4000 s > 300 s): the default dr" \
	eval "echo '$out' | grep -q '^registry: stale' && echo '$out' | grep -q '  dr '"
out=$("$IBFAB" rail path --registry "$WORK/none.json" --src srv000:0 --dst srv001:1 2>"$WORK/err")
check "missing registry: the default rd, exit 0, a warning" \
	eval "echo '$out' | grep -q '  rd ' && grep -q 'none.json' '$WORK/err'"
printf '{"version": 1,\n "timestamp": 5,\n "rails": {"0": 101}}\n' >"$WORK/bad.json"
"$IBFAB" rail path --registry "$WORK/bad.json" --src a:0 --dst b:1 2>"$WORK/err" >/dev/null
rc=$?
check "bad registry: FILE:LINE error, exit 1" eval "test $rc -eq 1 && grep -q 'bad.json:3:' '$WORK/err'"
out=$("$IBFAB" rail path --registry "$R" --all --hosts srv000,srv001,srv002 --gpus 4 --now 1000 | tail -1)
echo "$out" | diag
check "--all: 132 pairs of 3 hosts x 4 GPUs (d 36, r 24, 72 between rails and hosts)" \
	eval "echo '$out' | grep -q '^pairs 132: d 36, r 24, '"
# a writer rewrites the registry while readers read it: never torn
( for i in $(seq 1 200); do "$IBFAB" rail registry --registry "$R" --rail 1=$((i % 100)) \
	--timestamp $i || exit 1; done ) &
wpid=$!
torn=0
for i in $(seq 1 200); do
	"$IBFAB" rail registry --registry "$R" >/dev/null 2>&1 || torn=$((torn + 1))
done
wait "$wpid"
check "200 reads during 200 atomic rewrites: none torn ($torn)" test "$torn" -eq 0
done_testing
