#!/bin/bash
# ibfab sim packet from the command line: a ring of switches routed by
# `minimal` deadlocks under heavy load without a deadlock scheme (exit 1, the
# cycle printed) and does not with --deadlock auto; JSON output; bad input.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
mk_workdir

# ibsim net file: 5 switches in a ring (port 1 -> next, port 2 <- previous),
# two hosts each on ports 10 and 11; every link 4xEDR (100 Gb/s)
ring=$WORK/ring.net
{
	printf 'width=2\nextspeed=2\n\n'
	n=5
	for i in $(seq 0 $((n - 1))); do
		nx=$(((i + 1) % n)); pv=$(((i + n - 1) % n))
		printf 'Switch\t12 "sw%d"\n[1]\t"sw%d"[2]\n[2]\t"sw%d"[1]\n' $i $nx $pv
		printf '[10]\t"h%d"[1]\n[11]\t"h%d"[1]\n\n' $((2 * i)) $((2 * i + 1))
	done
	for i in $(seq 0 $((n - 1))); do
		for j in 0 1; do
			printf 'Ca\t1 "h%d"\n[1]\t"sw%d"[%d]\n\n' $((2 * i + j)) $i $((10 + j))
		done
	done
} >"$ring"

common=(--topology "$ring" --engine minimal --load 1.0 --buffer 8192 --warmup 10us
	--measure 1ms --stall 50us --seed 3 -q)
set +e
"$IBFAB" sim packet "${common[@]}" --deadlock none >"$WORK/none.txt" 2>"$WORK/none.err"
rc=$?
set -e
check "deadlock none: exit 1" test "$rc" -eq 1
check "deadlock none: cycle reported" grep -q "DEADLOCK at" "$WORK/none.txt"
check "deadlock none: five buffers in the cycle" grep -q "cycle of 5 input buffers" "$WORK/none.txt"
check "deadlock none: 100 Gb/s hosts" grep -q "^hosts 10 (1000 Gb/s" "$WORK/none.txt"
check "deadlock none: cycle names switch links" grep -q "'sw[0-9]'/[12] -> 'sw[0-9]'/[12] VL 0" "$WORK/none.txt"

set +e
"$IBFAB" sim packet "${common[@]}" --deadlock auto >"$WORK/auto.txt" 2>"$WORK/auto.err"
rc=$?
set -e
check "deadlock auto: exit 0" test "$rc" -eq 0
check "deadlock auto: no deadlock" grep -q "^deadlock: none" "$WORK/auto.txt"

check "json sweep" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal --deadlock auto \
	--loads 0.2:0.4:0.2 --measure 20us --json -q >\"$WORK/sweep.json\""
check "json: two runs, parseable" python3 -c "
import json,sys
d=json.load(open('$WORK/sweep.json'))
r=d['runs']
assert len(r)==2 and abs(r[0]['load']-0.2)<1e-9
assert r[0]['result']['deadlock'] is None and r[0]['result']['accepted']>0.1
"

sweep() { "$IBFAB" sim packet --topology "$ring" --engine minimal --deadlock auto \
	--loads 0.3:0.9:0.3 --measure 10us -q --threads "$1" | grep -v wall; }
sweep 1 >"$WORK/t1.txt"
sweep 2 >"$WORK/t2.txt"
check "sweep: three loads" test "$(grep -c '^load ' "$WORK/t1.txt")" -eq 3
check "sweep: same results with 1 and 2 threads" cmp -s "$WORK/t1.txt" "$WORK/t2.txt"
check "node model: both kinds delivered" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" \
	--engine minimal --deadlock auto --accels 4 --inter-frac 0.02 --load 0.2 --measure 10us --json -q \
	>\"$WORK/node.json\""
check "node model: json" python3 -c "
import json
n=json.load(open('$WORK/node.json'))['runs'][0]['result']['node']
assert n['intra_gbps']>0 and n['inter_gbps']>0 and n['ipkts_delivered']==n['ipkts_measured']
assert abs(n['max_gbps']-10*4*512)<1e-6 and len(n['components_inter_ns'])==7
"

check "link utilisation CSV" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal \
	--deadlock auto --loads 0.3:0.6:0.3 --measure 10us -q --link-util \"$WORK/lu.csv\" >/dev/null"
check "link utilisation: header and 2 x 30 links" test "$(head -1 "$WORK/lu.csv")" = \
	"load,from,from_port,to,to_port,kind,gbps,util" -a "$(wc -l <"$WORK/lu.csv")" -eq 61
check "pattern traffic: shift:2" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal \
	--deadlock auto --traffic shift:2 --load 0.5 --measure 20us -q | grep -q '^deadlock: none'"

set +e
"$IBFAB" sim packet --topology "$ring" --engine minimal --traffic nonsense --load 0.5 >/dev/null 2>&1
rc0=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal >/dev/null 2>"$WORK/e1"
rc1=$?
"$IBFAB" sim packet --topology "$WORK/missing" --engine minimal --load 0.5 >/dev/null 2>"$WORK/e2"
rc2=$?
set -e
check "unknown pattern: usage error" test "$rc0" -eq 2
check "no load: usage error" test "$rc1" -eq 2
check "missing file: error" test "$rc2" -eq 1
done_testing
