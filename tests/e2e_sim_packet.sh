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
check "node model: --node-voq with --node-vls 2 delivers both kinds" sh -c "\"$IBFAB\" sim packet \
	--topology \"$ring\" --engine minimal --deadlock auto --accels 4 --inter-frac 0.1 --load 0.5 \
	--node-buf 8k --node-vls 2 --node-voq --measure 10us --json -q >\"$WORK/voq.json\""
check "node model: --node-voq json" python3 -c "
import json
n=json.load(open('$WORK/voq.json'))['runs'][0]['result']['node']
assert n['intra_gbps']>0 and n['inter_gbps']>0 and n['ipkts_delivered']>0
"

check "svg: node model sweep" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal \
	--deadlock auto --accels 4 --inter-frac 0.1 --loads 0.2:0.6:0.2 --measure 10us --json -q \
	--svg \"$WORK/node.svg\" >\"$WORK/nodesw.json\""
check "svg: valid XML, series and bars match the JSON" python3 -c "
import json, xml.etree.ElementTree as E
ns='{http://www.w3.org/2000/svg}'
root=E.parse('$WORK/node.svg').getroot()
assert root.tag==ns+'svg'
runs=json.load(open('$WORK/nodesw.json'))['runs']
assert len(runs)==3
g={e.get('id'):e for e in root.iter(ns+'g')}
lines=[p.get('data-series') for p in g['throughput'].iter(ns+'polyline') if p.get('class')=='series']
assert lines==['intra-node','inter-node','total'], lines
pts={}
for c in g['throughput'].iter(ns+'circle'):
	pts.setdefault(c.get('data-series'),[]).append((float(c.get('data-load')),float(c.get('data-value'))))
for k,run in enumerate(runs):
	n=run['result']['node']
	for s,v in (('intra-node',n['intra_gbps']),('inter-node',n['inter_gbps']),('total',n['intra_gbps']+n['inter_gbps'])):
		l,x=pts[s][k]
		assert abs(l-run['load'])<1e-4 and abs(x-v)<0.01, (s,k,x,v)
bars={}
for r in g['latency'].iter(ns+'rect'):
	if r.get('data-component'):
		bars[(r.get('data-component'),round(float(r.get('data-load')),4))]=float(r.get('data-value'))
# a load point whose measured inter-node packets did not arrive (components
# null) has no bar, not bars of 0 ns (here load 0.6)
comps=[run['result']['node']['components_inter_ns'] for run in runs]
assert len(bars)==7*sum(c is not None for c in comps), len(bars)
for run,cs in zip(runs,comps):
	for c,v in (cs or {}).items():
		assert abs(bars[(c,round(run['load'],4))]-v)<0.01, (c,v)
	if cs is None:
		assert not [b for b in bars if b[1]==round(run['load'],4)]
assert runs[0]['result']['node']['components_inter_ns']['fabric']>0
"
check "svg: fabric only, one series" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal \
	--deadlock auto --load 0.3 --measure 10us -q --svg \"$WORK/fab.svg\" >/dev/null && python3 -c \"
import xml.etree.ElementTree as E
ns='{http://www.w3.org/2000/svg}'
r=E.parse('$WORK/fab.svg').getroot()
assert [p.get('data-series') for p in r.iter(ns+'polyline') if p.get('class')=='series']==['accepted']
assert len([c for c in r.iter(ns+'circle')])==1
\""
set +e
"$IBFAB" sim packet --topology "$ring" --engine minimal --load 0.3 --measure 5us -q \
	--svg "$WORK/nodir/x.svg" >/dev/null 2>"$WORK/esvg"
rc3=$?
# with --link-util as well: the paths are opened before the runs, so the
# error comes first, no results are printed and neither file is left
# (before, the CSV was written after the sweep and the SVG then failed)
"$IBFAB" sim packet --topology "$ring" --engine minimal --loads 0.3:0.6:0.3 --measure 5us -q \
	--link-util "$WORK/lu-half.csv" --svg "$WORK/nodir/x.svg" >"$WORK/ohalf" 2>"$WORK/ehalf"
rch=$?
set -e
check "svg: unwritable path is an error" test "$rc3" -eq 1 -a ! -e "$WORK/nodir/x.svg"
check "svg unwritable with --link-util: exit 1, no results, no CSV left" sh -c "test $rch -eq 1 && \
	test ! -s '$WORK/ohalf' && test ! -e '$WORK/lu-half.csv' && grep -q nodir '$WORK/ehalf' && \
	test -z \"\$(ls '$WORK' | grep 'lu-half')\""

# CODES export: CODES's own 2-level (radix 8: 4 leaves, 2 spines, double
# cables) and 3-level (radix 8, 8 pods) fat trees; the tables must deliver
# every terminal when followed through CODES's port numbering
codes_check() { # DIR LEVELS ROUTERS TERMINALS LINKS
	python3 - "$@" <<'PY'
import csv, glob, os, sys
d, levels, routers, terms, links = sys.argv[1], *map(int, sys.argv[2:])
conf = open(os.path.join(d, "codes-fattree.conf")).read()
assert 'routing="static";' in conf and f'num_levels="{levels}";' in conf
assert 'routing_folder="%s";' % os.path.realpath(d) in conf
lfts = sorted(glob.glob(os.path.join(d, "0x*.lft")))
assert len(lfts) == routers, len(lfts)
peer, back, tab = {}, {}, {}
for r in csv.DictReader(open(os.path.join(d, "codes-map.csv"))):
    c, q = int(r["codes_switch"]), int(r["codes_port"])
    peer[c, q] = (r["peer_kind"], int(r["peer_codes_id"]))
    back[r["node_guid"], r["port"]] = (r["peer_guid"], r["peer_port"])
nsw = sum(1 for v in peer.values() if v[0] == "switch")
assert nsw == 2 * links, (nsw, links)
assert sum(1 for v in peer.values() if v[0] == "terminal") == terms
for k, v in back.items():  # every cable seen from both ends
    if v in back:
        assert back[v] == k
for f in lfts:
    guid = int(os.path.basename(f)[:-4], 16)
    c, lv = guid & 0xffffffff, (guid >> 32) - 1
    rows = [l.split() for l in open(f)]
    assert len(rows) == terms
    tab[c] = {int(g, 16) - (64 << 32): int(p) for g, p in rows}
leaf_of = {v[1]: c for (c, q), v in peer.items() if v[0] == "terminal"}
for t in range(terms):
    for src in set(leaf_of.values()):
        c, hops = src, 0
        while True:
            kind, nxt = peer[c, tab[c][t]]
            if kind == "terminal":
                assert nxt == t, (t, src, nxt)
                break
            c, hops = nxt, hops + 1
            assert hops <= 2 * (levels - 1)
PY
}
# CODES's own wiring of these two trees, as its fattree model printed it with
# dump_topo="1" (codes a5958cfa): switch id, then the peer of ports 1..radix
# (tN terminal, sN switch); the export's map must say the same
codes_wiring_check() { # DIR LEVELS
	python3 - "$@" <<'PY'
import csv, os, sys
d, levels = sys.argv[1], int(sys.argv[2])
ref = {2: """0 t0 t1 t2 t3 s4 s4 s5 s5
3 t12 t13 t14 t15 s4 s4 s5 s5
4 s0 s0 s1 s1 s2 s2 s3 s3
5 s0 s0 s1 s1 s2 s2 s3 s3""", 3: """0 t0 t1 t2 t3 s32 s33 s34 s35
31 t124 t125 t126 t127 s60 s61 s62 s63
32 s0 s1 s2 s3 s64 s65 s66 s67
45 s12 s13 s14 s15 s68 s69 s70 s71
63 s28 s29 s30 s31 s76 s77 s78 s79
64 s32 s36 s40 s44 s48 s52 s56 s60
69 s33 s37 s41 s45 s49 s53 s57 s61
79 s35 s39 s43 s47 s51 s55 s59 s63"""}[levels]
got = {}
for r in csv.DictReader(open(os.path.join(d, "codes-map.csv"))):
    got.setdefault(int(r["codes_switch"]), {})[int(r["codes_port"])] = \
        r["peer_kind"][0] + r["peer_codes_id"]
for line in ref.splitlines():
    c, *peers = line.split()
    have = [got[int(c)][q] for q in sorted(got[int(c)])]
    assert have == peers, (c, have, peers)
PY
}
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --parallel 2 --format ibsim -o "$WORK/c2.net" >/dev/null
"$IBFAB" topo gen fattree --m 4,4,8 --w 1,4,4 --format ibsim -o "$WORK/c3.net" >/dev/null
check "codes: 2-level export" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c2.net\" --engine dmodk \
	--load 0.5 -q --export-codes \"$WORK/codes2\" >\"$WORK/codes2.txt\""
check "codes: 2-level summary" grep -q "2 levels, radix 8, 6 routers, 16 terminals, 16 switch links, 96 LFT rows" \
	"$WORK/codes2.txt"
check "codes: 2-level structure and tables deliver" codes_check "$WORK/codes2" 2 6 16 16
check "codes: 2-level wiring is CODES's" codes_wiring_check "$WORK/codes2" 2
check "codes: 3-level export with a pattern" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c3.net\" \
	--engine minimal --traffic shift:3 --load 0.5 -q --export-codes \"$WORK/codes3\" >/dev/null"
check "codes: 3-level structure and tables deliver" codes_check "$WORK/codes3" 3 80 128 256
check "codes: 3-level wiring is CODES's" codes_wiring_check "$WORK/codes3" 3
check "codes: the pattern's 128 flows" test "$(grep -vc '^#' "$WORK/codes3/traffic.txt")" -eq 128
# run-codes.sh: one CODES message per ibfab wire packet (payload + header =
# the configuration's packet_size) at ibfab's gap for --load 0.5 (packet bits
# over half the host link), the binary from CODES_BIN or PATH (a CMake build
# of CODES has no ./bin/), run from the export's directory
codes_run_check() { # DIR
	python3 - "$1" <<'PY'
import os, re, sys
d = sys.argv[1]
conf = open(os.path.join(d, "codes-fattree.conf")).read()
run = open(os.path.join(d, "run-codes.sh")).read()
val = lambda k: re.search(r'\b%s="([^"]*)";' % k, conf).group(1)
pkt, cn = int(val("packet_size")), float(val("cn_bandwidth"))
assert val("rail_select") in ("dedicated", "adaptive"), val("rail_select")
cmd = [l for l in run.splitlines() if l.startswith("exec mpirun")]
assert len(cmd) == 1, run
opt = dict(re.findall(r"--(\w+)=(\S+)", cmd[0]))
assert opt["traffic"] == "1" and int(opt["payload_size"]) == pkt, opt
assert abs(float(opt["arrival_time"]) - pkt / (0.5 * cn)) < 0.001, (opt, pkt, cn)
assert float(opt["end"]) == 70000, opt
assert "${CODES_BIN:-model-net-synthetic-fattree}" in cmd[0] and "./bin/" not in run
assert 'cd "$(dirname "$0")"' in run and cmd[0].endswith("-- codes-fattree.conf")
PY
}
check "codes: run script (2-level)" codes_run_check "$WORK/codes2"
check "codes: run script (3-level)" codes_run_check "$WORK/codes3"
check "codes: run script is valid sh" sh -n "$WORK/codes3/run-codes.sh"
check "streams: bisection phases" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c2.net\" --engine dmodk \
	--traffic bisection:3 --streams --bytes 64k --load 1.0 --measure 1ms -q --json >\"$WORK/streams.json\""
check "streams: every phase done, same order as the flow simulator" python3 -c "
import json
s=json.load(open('$WORK/streams.json'))['runs'][0]['streams']
assert s['phases_done']==3 and len(s['phases'])==3
for p in s['phases']:
	assert p['messages']==16 and p['bytes']==65536
	assert p['flow_us']>0 and 1.0<=p['us']/p['flow_us']<1.5, p
assert abs(s['total_us']-sum(p['us'] for p in s['phases']))<1e-3
"
# the adversarial pattern's mice have a demand (1 % of a 100 Gb/s link):
# their messages are capped at 1 Gb/s, the elephants stay elastic
check "streams: capped mice" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c2.net\" --engine dmodk \
	--traffic adversarial --streams --bytes 64k --load 1.0 --measure 1ms -q --json >\"$WORK/caps.json\""
check "streams: mice take bytes x 8 / demand, elephants run as in the flow simulator" python3 -c "
import json
s=json.load(open('$WORK/caps.json'))['runs'][0]['streams']
assert s['phases_done']==1
p=s['phases'][0]; c=p['capped']
assert p['messages']==80 and c['messages']==64 and c['done']==64, p
assert abs(c['demand_gbps_mean']-1.0)<1e-9, c
assert 0.9<c['gbps_min']<=c['gbps_mean']<=c['gbps_max']<=1.0 and c['max_of_demand']<=1.0, c
assert p['us']>=65536*8/1.0/1000 and p['us']<1.05*65536*8/1000, p
assert p['flow_us']>0 and 1.0<=p['elastic_us']/p['flow_us']<1.5, p
"
check "streams: no capped block without caps" python3 -c "
import json
for p in json.load(open('$WORK/streams.json'))['runs'][0]['streams']['phases']:
	assert 'capped' not in p and 'elastic_us' not in p, p
"
set +e
"$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk --streams --load 1 >/dev/null 2>&1
rc5=$?
set -e
check "streams: need a pattern" test "$rc5" -eq 2
# repetitions: the ring step (one full packet per rank) runs 2(N-1) = 30
# times; at load 0.2 every step after the first waits for the hosts' gap,
# so the total is not the first step x 30 (that is --reps first's estimate)
sp=(sim packet --topology "$WORK/c2.net" --engine dmodk --streams --measure 1ms -q)
check "streams: ring, all repetitions" sh -c "\"$IBFAB\" \"\$@\" --traffic ring --bytes 64512 \
	--load 0.2 --json >\"$WORK/ring.json\"" _ "${sp[@]}"
check "streams: ring, first repetition only" sh -c "\"$IBFAB\" \"\$@\" --traffic ring --bytes 64512 \
	--load 0.2 --reps first --json >\"$WORK/ring1.json\"" _ "${sp[@]}"
check "streams: 30 steps simulated, total = their sum, the estimate labelled" python3 -c "
import json
s=json.load(open('$WORK/ring.json'))['runs'][0]['streams']
e=json.load(open('$WORK/ring1.json'))['runs'][0]['streams']
p=s['phases'][0]; q=e['phases'][0]
assert s['reps']=='all' and s['reps_run']==30 and s['reps_done']==30, s
assert p['repeat']==30 and p['reps_run']==30 and p['reps_done']==30, p
assert abs(s['total_us']-p['us'])<1e-3 and abs(s['simulated_us']-p['us'])<1e-3, s
assert abs(p['rep_us_mean']*30-p['us'])<1e-2 and p['rep_us_min']<p['rep_us_max'], p
assert 'estimated_total_us' not in s and 'estimated_us' not in p
assert e['reps']=='first' and e['reps_run']==1 and e['total_us']==-1, e
assert q['reps_run']==1 and abs(q['estimated_us']-30*q['us'])<1e-2, q
assert abs(e['estimated_total_us']-q['estimated_us'])<1e-3, e
assert abs(q['us']-p['rep_us_min'])<1e-3, (p, q)
assert s['total_us']>1.2*e['estimated_total_us'], (s['total_us'], e['estimated_total_us'])
"
# a time limit in the middle of hier's repetitions: what finished, no total
check "streams: hier stopped by the time limit" sh -c "\"$IBFAB\" \"\$@\" --traffic hier \
	--bytes 1048576 --load 1.0 --measure 80us --drain 0 --json >\"$WORK/hier.json\"" _ "${sp[@]}"
check "streams: repetitions done counted, nothing extrapolated" python3 -c "
import json
s=json.load(open('$WORK/hier.json'))['runs'][0]['streams']
ph=s['phases']
assert [p['repeat'] for p in ph]==[3,6,3] and s['reps_run']==12, ph
assert s['phases_done']==1 and s['total_us']==-1 and 0<s['reps_done']<12, s
assert abs(s['simulated_us']-sum(p['done_us'] for p in ph))<1e-3, s
assert ph[0]['reps_done']==3 and ph[0]['us']>0
assert 0<ph[1]['reps_done']<6 and ph[1]['us']==-1 and ph[1]['done_us']>0, ph[1]
assert ph[2]['reps_done']==0 and ph[2]['rep_us_mean']==-1 and ph[2]['done_us']==0, ph[2]
"
"$IBFAB" "${sp[@]}" --traffic hier --bytes 1048576 --load 1.0 --reps first >"$WORK/hier1.txt"
check "streams: --reps first says ESTIMATE" grep -q "ESTIMATE with repeats" "$WORK/hier1.txt"
# a cable cut: every repetition still runs, every packet arrives
awk -f "${top_srcdir:-$(dirname "$0")/..}/contrib/net-damage.awk" -v seed=1 -v cables=1 \
	"$WORK/c2.net" "$WORK/c2.net" >"$WORK/c2d.net"
check "streams: damaged fat tree, hier" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c2d.net\" \
	--engine dmodk --streams --measure 1ms -q --json --traffic hier --bytes 1048576 --load 1.0 \
	>\"$WORK/hierd.json\""
check "streams: damaged fat tree, 12 of 12 repetitions" python3 -c "
import json
r=json.load(open('$WORK/hierd.json'))['runs'][0]
s=r['streams']
assert s['phases_done']==3 and s['reps_done']==12 and s['total_us']>0, s
k=r['result']['packets']
assert k['unroutable']==0 and k['delivered']==k['generated']>0, k
"
set +e
"$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk --traffic ring --reps all --load 1 \
	>/dev/null 2>&1
rc6=$?
"$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk --traffic ring --streams --reps some \
	--load 1 >/dev/null 2>&1
rc7=$?
set -e
check "streams: --reps wants --streams" test "$rc6" -eq 2
check "streams: --reps all or first" test "$rc7" -eq 2
# per-rank dependencies (--sync rank): a rank starts its next ring step as
# soon as its own input is in, so steps overlap and the ring ends earlier
# than with the barrier (cross-leaf hops alternate with faster ones)
check "streams: ring, barrier" sh -c "\"$IBFAB\" \"\$@\" --traffic ring --bytes 1048576 \
	--load 1.0 --json >\"$WORK/ringb.json\"" _ "${sp[@]}"
check "streams: ring, per rank" sh -c "\"$IBFAB\" \"\$@\" --traffic ring --bytes 1048576 \
	--load 1.0 --sync rank --json >\"$WORK/ringr.json\"" _ "${sp[@]}"
check "streams: per rank earlier than the barrier, steps overlap" python3 -c "
import json
b=json.load(open('$WORK/ringb.json'))['runs'][0]['streams']
r=json.load(open('$WORK/ringr.json'))['runs'][0]['streams']
p=r['phases'][0]
assert b['sync']=='barrier' and r['sync']=='rank', (b['sync'], r['sync'])
assert r['steps']==30 and r['host_steps']==[30]*16 and r['host_steps_min']==30, r
assert r['phases_done']==1 and 0<r['total_us']<b['total_us']-1, (r['total_us'], b['total_us'])
assert abs(max(r['host_end_us'])-r['total_us'])<1e-3, r
assert p['hosts']==16 and p['steps_done']==30 and p['first_start_us']==0, p
assert abs(p['last_finish_us']-r['total_us'])<1e-3 and abs(p['span_us']-r['total_us'])<1e-3, p
# the steps' spans add up to more than the whole: they overlap
assert p['step_us_mean']*30>p['span_us']+1, p
assert p['step_us_min']>=b['phases'][0]['rep_us_min']-1e-3, (p, b['phases'][0])
"
"$IBFAB" "${sp[@]}" --traffic ring --bytes 1048576 --load 1.0 --sync rank --json \
	| sed 's/\"wall_s\":[0-9.e+-]*//' >"$WORK/ringr2.json"
sed 's/\"wall_s\":[0-9.e+-]*//' "$WORK/ringr.json" >"$WORK/ringr1.json"
check "streams: per rank, same seed same output" cmp -s "$WORK/ringr1.json" "$WORK/ringr2.json"
"$IBFAB" "${sp[@]}" --traffic ring --bytes 1048576 --load 1.0 --sync rank >"$WORK/ringr.txt"
check "streams: per rank, text" grep -q "per-rank dependencies (--sync rank): every host finished all 30 steps" \
	"$WORK/ringr.txt"
# a time limit inside the ring: the steps each host finished, no total
check "streams: per rank stopped by the time limit" sh -c "\"$IBFAB\" \"\$@\" --traffic ring \
	--bytes 1048576 --load 1.0 --sync rank --measure 80us --drain 0 --json >\"$WORK/ringl.json\"" \
	_ "${sp[@]}"
check "streams: per rank, steps done counted, nothing extrapolated" python3 -c "
import json
r=json.load(open('$WORK/ringl.json'))['runs'][0]['streams']
p=r['phases'][0]
assert r['total_us']==-1 and r['phases_done']==0, r
assert 0<r['host_steps_min']<=r['host_steps_max']<30 and r['host_end_us']==[-1]*16, r
assert min(r['host_steps'])==r['host_steps_min'] and p['steps_done']==r['host_steps_min'], r
assert p['last_finish_us']==-1 and p['span_us']==-1 and p['step_us_mean']>0, p
"
"$IBFAB" "${sp[@]}" --traffic ring --bytes 1048576 --load 1.0 --sync rank --measure 80us \
	--drain 0 >"$WORK/ringl.txt"
check "streams: per rank, the limit in the text" grep -q "stopped by the time limit .*: the slowest host finished" \
	"$WORK/ringl.txt"
assert_stop() { python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
assert r['streams']['stopped_by'] == sys.argv[2], r['streams']
assert bool(r['result']['deadlock']) == (sys.argv[2] == 'deadlock'), r['result']['deadlock']
" "$@"; }
check "streams: per rank, the time limit named in the JSON" assert_stop "$WORK/ringl.json" "time limit"
# a deadlock (the ring of five routed by minimal, 8 KiB buffers) stops the
# streams: said so, not 'stopped by the time limit'
for sy in barrier rank; do
	set +e
	"$IBFAB" sim packet --topology "$ring" --engine minimal --traffic a2a --streams --bytes 64k \
		--load 1 --buffer 8k --measure 2ms --sync $sy >"$WORK/sdl-$sy.txt"
	rc8=$?
	"$IBFAB" sim packet --topology "$ring" --engine minimal --traffic a2a --streams --bytes 64k \
		--load 1 --buffer 8k --measure 2ms --sync $sy --json >"$WORK/sdl-$sy.json"
	set -e
	check "streams, $sy: a deadlock stops them, exit 1, said so" sh -c "test $rc8 -eq 1 && \
		grep -q 'stopped by a deadlock' '$WORK/sdl-$sy.txt' && ! grep -q 'time limit' '$WORK/sdl-$sy.txt'"
	check "streams, $sy: JSON stopped_by deadlock" assert_stop "$WORK/sdl-$sy.json" deadlock
done
check "streams: per rank on the damaged fat tree, hier" sh -c "\"$IBFAB\" sim packet \
	--topology \"$WORK/c2d.net\" --engine dmodk --streams --measure 1ms -q --json --traffic hier \
	--bytes 1048576 --load 1.0 --sync rank >\"$WORK/hierdr.json\""
check "streams: per rank on the damaged tree, every step of every host" python3 -c "
import json
r=json.load(open('$WORK/hierdr.json'))['runs'][0]
s=r['streams']
assert s['steps']==12 and s['host_steps']==[12]*16 and s['phases_done']==3 and s['total_us']>0, s
assert [p['steps_done'] for p in s['phases']]==[3,6,3], s
k=r['result']['packets']
assert k['unroutable']==0 and k['delivered']==k['generated']>0, k
"
set +e
"$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk --traffic ring --sync rank --load 1 \
	>/dev/null 2>&1
rc8=$?
"$IBFAB" "${sp[@]}" --traffic ring --sync ranks --load 1 >/dev/null 2>&1
rc9=$?
"$IBFAB" "${sp[@]}" --traffic ring --sync rank --reps first --load 1 >/dev/null 2>&1
rc10=$?
set -e
check "streams: --sync wants --streams" test "$rc8" -eq 2
check "streams: --sync barrier or rank" test "$rc9" -eq 2
check "streams: --sync rank not with --reps first" test "$rc10" -eq 2
# compute between steps: on the ring every host's compute is on the
# critical path, 30 steps x 2 us more in both modes, and the flow
# simulator's figure adds it too; a reduction at 200 Gb/s adds 64 KiB x 8 /
# 200 per step
for sy in barrier rank; do
	check "streams, $sy: ring with --compute 2us" sh -c "\"$IBFAB\" \"\$@\" --traffic ring \
		--bytes 1048576 --load 1.0 --sync $sy --compute 2us --json >\"$WORK/ringc-$sy.json\" && \
		\"$IBFAB\" \"\$@\" --traffic ring --bytes 1048576 --load 1.0 --sync $sy \
		--compute 2000 --reduce-gbps 200 --json >\"$WORK/ringcr-$sy.json\"" _ "${sp[@]}"
	check "streams, $sy: compute adds 30 x 2 us, the reduction 30 x 2.62144 us" python3 -c "
import json
b=json.load(open('$WORK/ring' + ('b' if '$sy'=='barrier' else 'r') + '.json'))['runs'][0]['streams']
c=json.load(open('$WORK/ringc-$sy.json'))['runs'][0]['streams']
d=json.load(open('$WORK/ringcr-$sy.json'))['runs'][0]['streams']
assert abs(c['total_us']-b['total_us']-60)<1e-3, (c['total_us'], b['total_us'])
assert abs(c['flow_total_us']-b['flow_total_us']-60)<1e-3, (c['flow_total_us'], b['flow_total_us'])
assert c['phases'][0]['compute_us']==2 and 'compute_us' not in b['phases'][0], c['phases'][0]
assert abs(d['total_us']-c['total_us']-30*65536*8/200/1000)<1e-3, (d['total_us'], c['total_us'])
assert abs(d['phases'][0]['compute_us']-2-65536*8/200/1000)<1e-3, d['phases'][0]
"
done
check "streams: compute per rank on the damaged tree, every step of every host" sh -c "\"$IBFAB\" \
	sim packet --topology \"$WORK/c2d.net\" --engine dmodk --streams --measure 1ms -q --json \
	--traffic hier --bytes 1048576 --load 1.0 --sync rank --compute 1us --reduce-gbps 100,100,0 \
	>\"$WORK/hierdc.json\" && python3 -c \"
import json
a=json.load(open('$WORK/hierdr.json'))['runs'][0]['streams']
s=json.load(open('$WORK/hierdc.json'))['runs'][0]['streams']
assert s['host_steps']==[12]*16 and s['phases_done']==3, s
assert s['total_us']>a['total_us']+12, (s['total_us'], a['total_us'])
assert [p['compute_us']>1 for p in s['phases']]==[True,True,False], s['phases']
\""
set +e
"$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk --traffic ring --compute 1us --load 1 \
	>/dev/null 2>&1
rc8=$?
"$IBFAB" "${sp[@]}" --traffic ring --compute 1us, --load 1 >/dev/null 2>&1
rc9=$?
"$IBFAB" "${sp[@]}" --traffic ring --reduce-gbps -5 --load 1 >/dev/null 2>&1
rc10=$?
"$IBFAB" "${sp[@]}" --traffic ring --compute 1us,2us --load 1 >/dev/null 2>"$WORK/comp.err"
rc11=$?
set -e
check "streams: --compute wants --streams" test "$rc8" -eq 2
check "streams: --compute, a bad list" test "$rc9" -eq 2
check "streams: --reduce-gbps, a negative rate" test "$rc10" -eq 2
check "streams: --compute, more values than phases" sh -c "test $rc11 -eq 1 && \
	grep -q 'compute has 2 values, the pattern 1 phase' '$WORK/comp.err'"
# rate caps per rank: adversarial is one step, which every host starts at
# 0, so the capped mice and the elephants come out as with the barrier
check "streams: capped mice per rank" sh -c "\"$IBFAB\" \"\$@\" --traffic adversarial --bytes 64k \
	--load 1.0 --sync rank --json >\"$WORK/capsr.json\"" _ "${sp[@]}"
check "streams: caps per rank as with the barrier in one step" python3 -c "
import json
b=json.load(open('$WORK/caps.json'))['runs'][0]['streams']['phases'][0]
r=json.load(open('$WORK/capsr.json'))['runs'][0]['streams']
p=r['phases'][0]
assert r['sync']=='rank' and r['steps']==1 and abs(r['total_us']-b['us'])<1e-3, (r, b)
assert p['capped']==b['capped'] and abs(p['elastic_us']-b['elastic_us'])<1e-3, (p, b)
assert p['capped']['done']==64 and p['capped']['max_of_demand']<=1.0, p
"
"$IBFAB" topo gen fattree --m 4,8 --w 1,4 --format ibsim -o "$WORK/rlft.net" >/dev/null
set +e
"$IBFAB" sim packet --topology "$WORK/rlft.net" --engine dmodk --load 0.5 -q \
	--export-codes "$WORK/codesr" >/dev/null 2>"$WORK/codesr.err"
rc4=$?
set -e
check "codes: another fat tree is refused, nothing written" test "$rc4" -eq 1 -a ! -e "$WORK/codesr"
check "codes: refusal names the reason" grep -q "not a CODES fat tree" "$WORK/codesr.err"
# tables that CODES would take but that do not deliver: a leaf sending LID 7
# (ft-h00000) out of its own host port 1 (CODES counts that as delivered),
# and a spine sending it back down to a leaf that sends it up to that spine
# (a loop CODES never reports).  The export checked only that every switch
# had some port for every terminal and wrote both.
"$IBFAB" route --topology "$WORK/c2.net" --engine dmodk -o "$WORK/c2.lfts" 2>/dev/null
lft_set() { # DUMP SWITCH LID PORT: the dump with that one entry changed
	awk -v sw="$2" -v lid="$3" -v port="$4" '/^Unicast/ { cur = index($0, "(\x27" sw "\x27)") > 0 }
		cur && $1 == lid { $2 = port } { print }' "$1"
}
lft_set "$WORK/c2.lfts" ft-l1-s0001 0x0007 001 >"$WORK/c2mis.lfts"
lft_set "$WORK/c2.lfts" ft-l1-s0001 0x0007 005 >"$WORK/c2up.lfts"
lft_set "$WORK/c2up.lfts" ft-l2-s0000 0x0007 003 >"$WORK/c2loop.lfts"
check "codes: the edited dumps differ" sh -c "! cmp -s '$WORK/c2.lfts' '$WORK/c2mis.lfts' && \
	! cmp -s '$WORK/c2.lfts' '$WORK/c2loop.lfts'"
for t in mis loop; do
	set +e
	"$IBFAB" sim packet --topology "$WORK/c2.net" --lfts "$WORK/c2$t.lfts" --load 0.5 -q \
		--export-codes "$WORK/codes$t" >/dev/null 2>"$WORK/codes$t.err"
	rc6=$?
	set -e
	check "codes: tables that do not deliver ($t) are refused, nothing written" \
		test "$rc6" -eq 1 -a ! -e "$WORK/codes$t"
done
check "codes: a misdelivery is named" grep -q "switch 'ft-l1-s0001' sends LID 7 to the port of LID 11" \
	"$WORK/codesmis.err"
check "codes: a loop is named" grep -q "the route to LID 7 from switch '.*' loops" "$WORK/codesloop.err"
# a degraded cable (1x, both ends) first in the file: CODES's one switch
# link rate is the fabric's most common, not that cable's (it was the first
# seen: every CODES switch link ran at 25 Gb/s)
sed 's/\(\[5\]\t"ft-l2-s0000"\[1\].*\)4xEDR/\11xEDR/; s/\(\[1\]\t"ft-l1-s0000"\[5\].*\)4xEDR/\11xEDR/' \
	"$WORK/c2.net" >"$WORK/c2slow.net"
check "codes: the degraded cable is in the file" test "$(grep -c 1xEDR "$WORK/c2slow.net")" -eq 2
check "codes: export with one degraded cable" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c2slow.net\" \
	--engine dmodk --load 0.5 -q --export-codes \"$WORK/codesslow\" >/dev/null"
check "codes: switch links at the most common rate (100 Gb/s = 12.5 GB/s)" sh -c \
	"grep -q 'link_bandwidth=\"12.5000\";' '$WORK/codesslow/codes-fattree.conf' && \
	grep -q '100.0 Gb/s switch links, 100.0 Gb/s host links; the fabric mixes rates, these are the most common' \
	'$WORK/codesslow/codes-fattree.conf'"
# the same dumps simulated: the packets they do not deliver are dropped as
# unroutable, and a note says which pairs and why (before: "unroutable N"
# and nothing else, a loop's packets only after 64 links)
for t in mis loop; do
	set +e
	"$IBFAB" sim packet --topology "$WORK/c2.net" --lfts "$WORK/c2$t.lfts" --load 0.2 \
		--warmup 2us --measure 200us --json >"$WORK/und$t.json" 2>"$WORK/und$t.err"
	set -e
done
check "undelivered: the misdelivery is noted" grep -q \
	"c2mis.lfts does not deliver 1 of 64 (switch with hosts, host LID) pairs: 1 delivered to another port (e.g. LID 7 from 'ft-l1-s0001')" \
	"$WORK/undmis.err"
check "undelivered: the loop is noted" grep -q \
	"c2loop.lfts does not deliver [0-9]* of 64 .* pairs: [0-9]* a loop (e.g. LID 7 from 'ft-l1-s0001'); their packets are dropped as unroutable" \
	"$WORK/undloop.err"
# the misdelivered ones are dropped at once; the looping ones after 64
# links, but here they fill the two buffers of the loop (leaf and spine
# send LID 7 to each other) and lock them first
check "undelivered: their packets dropped, or the loop locked" python3 -c "
import json
r = json.load(open('$WORK/undmis.json'))['runs'][0]['result']
assert r['packets']['unroutable'] > 0 and r['deadlock'] is None, r['packets']
r = json.load(open('$WORK/undloop.json'))['runs'][0]['result']
assert r['packets']['unroutable'] > 0 or len(r['deadlock']['cycle']) == 2, r
"
# message streams over the same tables: they used to be refused (exit 1,
# "1 flow(s) not delivered by the tables", from the flow simulator's estimate
# beside each phase); now the run goes on, host 4's packets to host 0 are
# dropped as unroutable and end their phase, and the phase has no estimate
set +e
"$IBFAB" sim packet --topology "$WORK/c2.net" --lfts "$WORK/c2mis.lfts" --traffic shift:12 --streams \
	--bytes 64k --load 1 --measure 1ms --json >"$WORK/undst.json" 2>"$WORK/undst.err"
rc7=$?
"$IBFAB" sim packet --topology "$WORK/c2.net" --lfts "$WORK/c2mis.lfts" --traffic shift:12 --streams \
	--bytes 64k --load 1 --measure 1ms >"$WORK/undst.txt" 2>/dev/null
set -e
check "undelivered: streams run (exit $rc7), the 17 packets dropped, no flow estimate" python3 -c "
import json
assert $rc7 == 0
d = json.load(open('$WORK/undst.json'))['runs'][0]
s = d['streams']
assert d['result']['packets']['unroutable'] == 17, d['result']['packets']
assert s['phases_done'] == 1 and s['total_us'] > 0, s
assert s['flow_total_us'] == -1 and s['phases'][0]['flow_us'] == -1, s
"
check "undelivered: streams note and text say so" sh -c "grep -q \"the tables do not deliver every flow of 1 phase(s), e.g. phase 'shift 12': 1 flow(s) not delivered by the tables: rank 4 -> rank 0\" '$WORK/undst.err' && \
	grep -q 'total [0-9.]* us (flow simulator: none, the tables do not deliver every flow)' '$WORK/undst.txt'"
check "undelivered: no note for the engine's dump" sh -c "\"$IBFAB\" sim packet --topology \"$WORK/c2.net\" \
	--lfts \"$WORK/c2.lfts\" --load 0.05 --warmup 2us --measure 5us 2>&1 >/dev/null | \
	{ ! grep -q 'does not deliver'; }"
# options for a run's output, or that CODES cannot take, are usage errors with
# the export rather than ignored (--json printed the text summary, --loads
# exported its first load, --svg/--link-util wrote nothing)
for o in --json "--svg $WORK/cx.svg" "--link-util $WORK/cx.csv" "--loads 0.2:0.6:0.2" \
	"--traffic ring --streams" "--accels 2"; do
	# --loads goes alone (beside --load it is a usage error of its own)
	ld="--load 0.5"
	case $o in --loads*) ld= ;; esac
	set +e
	# shellcheck disable=SC2086
	"$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk $ld -q \
		--export-codes "$WORK/codesx" $o >"$WORK/codesx.out" 2>"$WORK/codesx.err"
	rc5=$?
	set -e
	check "codes: $o with --export-codes: exit 2, nothing written" sh -c \
		"test $rc5 -eq 2 && test ! -s '$WORK/codesx.out' && test ! -e '$WORK/codesx' && \
		grep -q 'does not go with it' '$WORK/codesx.err'"
done
# the files are written into a staging directory and moved into DIR only
# when all of them are: an export that fails leaves DIR as it was (a file
# that cannot be replaced used to leave the files written before it), and
# one without a pattern does not leave an earlier export's traffic.txt
codesq() { "$IBFAB" sim packet --topology "$WORK/c2.net" --engine dmodk --load 0.5 -q \
	--export-codes "$WORK/$1" "${@:2}" >/dev/null 2>"$WORK/codesq.err"; }
codesq codesy --traffic shift:3
codesq codesy
check "codes: a re-export without a pattern leaves no traffic.txt of the one before" \
	sh -c "test -s '$WORK/codesy/run-codes.sh' && test ! -e '$WORK/codesy/traffic.txt'"
mkdir -p "$WORK/codesz/run-codes.sh"
: >"$WORK/codesz/keep"
set +e
codesq codesz
rc6=$?
set -e
check "codes: a file that cannot be written fails the export, nothing else written" sh -c \
	"test $rc6 -eq 1 && test \"\$(ls -A '$WORK/codesz' | tr '\n' ' ')\" = 'keep run-codes.sh ' && \
	grep -q 'run-codes.sh: cannot write' '$WORK/codesq.err'"
check "codes: no staging directory left" sh -c "! ls -A '$WORK' '$WORK/codesy' '$WORK/codes2' | grep -q tmp-"

check "link utilisation CSV" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal \
	--deadlock auto --loads 0.3:0.6:0.3 --measure 10us -q --link-util \"$WORK/lu.csv\" >/dev/null"
check "link utilisation: header and 2 x 30 links" test "$(head -1 "$WORK/lu.csv")" = \
	"load,from,from_port,to,to_port,kind,gbps,util,from_guid,to_guid" -a "$(wc -l <"$WORK/lu.csv")" -eq 61
# the GUIDs tell links apart where descriptions repeat (a real subnet whose
# HCAs keep the default "MT25408 ConnectX Mellanox Technologies")
is5030=$FIXTURES/real/qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p
check "link utilisation: every directed link once by GUID and port on a real fabric" python3 -c "
import csv, subprocess, sys
subprocess.run(['$IBFAB', 'sim', 'packet', '--topology', '$is5030', '--engine', 'minimal',
                '--load', '0.3', '--measure', '5us', '-q', '--link-util', '$WORK/lu2.csv'],
               check=True, stdout=subprocess.DEVNULL)
rows = list(csv.DictReader(open('$WORK/lu2.csv')))
names = [(r['from'], r['from_port']) for r in rows]
guids = [(r['from_guid'], r['from_port']) for r in rows]
assert len(rows) == 46 and len(set(names)) < len(rows) and len(set(guids)) == len(rows), (len(rows), len(set(names)), len(set(guids)))
assert all(g.startswith('0x') and len(g) == 18 for r in rows for g in (r['from_guid'], r['to_guid']))
"
check "pattern traffic: shift:2" sh -c "\"$IBFAB\" sim packet --topology \"$ring\" --engine minimal \
	--deadlock auto --traffic shift:2 --load 0.5 --measure 20us -q | grep -q '^deadlock: none'"

set +e
"$IBFAB" sim packet --topology "$ring" --engine minimal --traffic nonsense --load 0.5 >/dev/null 2>&1
rc0=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal >/dev/null 2>"$WORK/e1"
rc1=$?
"$IBFAB" sim packet --topology "$WORK/missing" --engine minimal --load 0.5 >/dev/null 2>"$WORK/e2"
rc2=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal --accels 4 --node-voq --load 0.5 \
	>/dev/null 2>"$WORK/e3"
rc3=$?
# node-model options without the node model, or a mix one accelerator cannot
# hold, were silently ignored (--accels 1 --mix C5 sent every message out)
"$IBFAB" sim packet --topology "$ring" --engine minimal --mix C4 --load 0.5 >"$WORK/o4" 2>"$WORK/e4"
rc4=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal --acc-gbps 400 --load 0.5 >"$WORK/o5" \
	2>"$WORK/e5"
rc5=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal --accels 1 --mix C5 --load 0.5 \
	>"$WORK/o6" 2>"$WORK/e6"
rc6=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal --accels 1 --inter-frac 1 --load 0.5 \
	--measure 5us -q >"$WORK/o7" 2>&1
rc7=$?
set -e
check "unknown pattern: usage error" test "$rc0" -eq 2
check "no load: usage error" test "$rc1" -eq 2
check "missing file: error" test "$rc2" -eq 1
set +e
"$IBFAB" sim packet --topology "$ring" --engine minimal --load 0.5 --measure 1e30us >/dev/null \
	2>"$WORK/e9"
rc9=$?
set -e
set +e
"$IBFAB" sim packet --topology "$ring" --engine minimal --traffic shift:10 --load 0.5 --json \
	>"$WORK/oself" 2>"$WORK/eself"
rcself=$?
"$IBFAB" sim packet --topology "$ring" --engine minimal --traffic shift:10 --streams --load 0.5 \
	>"$WORK/oselfs" 2>"$WORK/eselfs"
rcselfs=$?
set -e
# a dump without sw2's table (a partial capture): simulated, with a note
"$IBFAB" route --topology "$ring" --engine minimal -o "$WORK/ring.dump" >/dev/null 2>&1
awk '/^Unicast/ { skip = /sw2/ } !skip' "$WORK/ring.dump" >"$WORK/ring-part.dump"
"$IBFAB" sim packet --topology "$ring" --lfts "$WORK/ring-part.dump" --load 0.3 --measure 10us \
	>"$WORK/opart" 2>"$WORK/epart"
rcpart=$?
"$IBFAB" sim packet --topology "$ring" --lfts "$WORK/ring.dump" --load 0.3 --measure 10us \
	>/dev/null 2>"$WORK/efull"
check "shift:10 on 10 hosts (every flow to itself): an error, not an idle run" sh -c \
	"test $rcself -eq 1 && test ! -s '$WORK/oself' && grep -q 'no flow between two hosts' '$WORK/eself'"
check "shift:10 as message streams: the same error, not 'total 0.000 us'" sh -c \
	"test $rcselfs -eq 1 && test ! -s '$WORK/oselfs' && grep -q 'no flow between two hosts' '$WORK/eselfs'"
check "a dump without a switch's table: runs, notes it, names the switch" sh -c \
	"test $rcpart -eq 0 && grep -q 'no table for 1 of 5 switches .*sw2' '$WORK/epart' && \
	grep -q 'unroutable [1-9]' '$WORK/opart' && test ! -s '$WORK/efull'"
check "--measure 1e30us: usage error, one message (not also 'must be > 0')" sh -c \
	"test $rc9 -eq 2 && grep -q 'bad time' '$WORK/e9' && ! grep -q 'must be > 0' '$WORK/e9'"
check "--node-voq without --node-buf: usage error" test "$rc3" -eq 2
check "--node-voq: the error names --node-buf" grep -q -- "--node-buf" "$WORK/e3"
check "--mix without --accels: usage error, nothing on stdout" sh -c "test $rc4 -eq 2 && test ! -s '$WORK/o4'"
check "--mix without --accels: the error names both" sh -c "grep -q -- '--mix' '$WORK/e4' && grep -q -- '--accels' '$WORK/e4'"
check "--acc-gbps without --accels: usage error" sh -c "test $rc5 -eq 2 && grep -q -- '--acc-gbps' '$WORK/e5'"
check "--accels 1 --mix C5: usage error" sh -c "test $rc6 -eq 2 && test ! -s '$WORK/o6' && grep -q -- '--accels 1' '$WORK/e6'"
check "--accels 1 --inter-frac 1 runs" sh -c "test $rc7 -eq 0 && grep -q 'intra-node 0.0' '$WORK/o7'"

# generated tori (topo gen torus): minimal's shortest paths close credit
# loops around the rings of every dimension; the simulator reports the
# deadlock and the cycle, the independent verifier finds the cycles in the
# tables, and with --deadlock auto the same traffic runs to the end
for dims in 6 5,5 4,3,3; do
	"$IBFAB" topo gen torus --dims "$dims" --hosts 2 --format ibsim -o "$WORK/tor.net"
	tcommon=(--topology "$WORK/tor.net" --engine minimal --load 1.0 --buffer 8192 --warmup 10us
		--measure 40us --stall 20us --seed 3 -q)
	set +e
	"$IBFAB" sim packet "${tcommon[@]}" --deadlock none >"$WORK/tn.txt" 2>&1
	rc=$?
	"$IBFAB" sim packet "${tcommon[@]}" --deadlock auto >"$WORK/ta.txt" 2>&1
	rca=$?
	"$IBFAB" route -q --topology "$WORK/tor.net" --engine minimal -o "$WORK/tor.lfts"
	"$IBFAB" deadlock verify --topology "$WORK/tor.net" --lfts "$WORK/tor.lfts" --sl-const 0 \
		--sl2vl-identity 1 >"$WORK/tv.txt" 2>&1
	rcv=$?
	set -e
	grep -E "DEADLOCK|cycle of|^result" "$WORK/tn.txt" "$WORK/tv.txt" | head -3 | diag
	check "torus $dims, minimal, --deadlock none: exit 1, the deadlock and its cycle reported ($rc)" \
		sh -c "test $rc -eq 1 && grep -q 'DEADLOCK at' '$WORK/tn.txt' && grep -q 'cycle of [0-9]* input buffers' '$WORK/tn.txt'"
	check "torus $dims: deadlock verify finds the tables cyclic on one VL ($rcv)" \
		sh -c "test $rcv -eq 1 && grep -q '^result: *NOT deadlock-free' '$WORK/tv.txt'"
	check "torus $dims, minimal, --deadlock auto: runs to the end, no deadlock ($rca)" \
		sh -c "test $rca -eq 0 && grep -q '^deadlock: none' '$WORK/ta.txt'"
done
# An SL2VL dump without the tables of some switches (a partial capture):
# the packets through them are dropped as unroutable, a note says so, and
# they are not counted as dropped for a VL beyond --vls (their missing
# entries once passed for VL 255)
"$IBFAB" topo gen torus --dims 4,3 -o "$WORK/s2v.net"
"$IBFAB" route -q --topology "$WORK/s2v.net" --engine minimal --deadlock dfsssp \
	-o "$WORK/s2v.lfts" --sl "$WORK/s2v.sl" --sl2vl "$WORK/s2v.full" 2>/dev/null
awk '/^Switch guid/ && n++ { exit } { print }' "$WORK/s2v.full" >"$WORK/s2v.part"
s2vrun() { "$IBFAB" sim packet --topology "$WORK/s2v.net" --lfts "$WORK/s2v.lfts" \
	--sl "$WORK/s2v.sl" --sl2vl "$WORK/$1" --load 0.5 --warmup 2us --measure 20us; }
s2vrun s2v.full >"$WORK/s2vf.txt" 2>"$WORK/s2vf.err"
s2vrun s2v.part >"$WORK/s2vp.txt" 2>"$WORK/s2vp.err"
grep -h "unroutable\|note" "$WORK/s2vp.txt" "$WORK/s2vp.err" | diag
check "sl2vl: the whole dump, nothing dropped, no note" \
	sh -c "grep -q 'unroutable 0,' '$WORK/s2vf.txt' && ! grep -q note '$WORK/s2vf.err'"
check "sl2vl: a partial dump is noted (11 of 12 switches)" \
	grep -q "s2v.part has no SL2VL table for 11 of 12 switches" "$WORK/s2vp.err"
check "sl2vl: a partial dump drops packets, not for a VL beyond --vls" \
	sh -c "grep -q 'unroutable [1-9]' '$WORK/s2vp.txt' && ! grep -q 'for a VL >=' '$WORK/s2vp.txt'"
# a path SL dump without some pairs' SL: their packets use SL 0, said on stderr
awk '/^Source switch/ && n++ { exit } { print }' "$WORK/s2v.sl" >"$WORK/s2v.slpart"
"$IBFAB" sim packet --topology "$WORK/s2v.net" --lfts "$WORK/s2v.lfts" --sl "$WORK/s2v.slpart" \
	--sl2vl "$WORK/s2v.full" --load 0.5 --warmup 2us --measure 5us >/dev/null 2>"$WORK/slp.err"
diag <"$WORK/slp.err"
check "sl: a partial dump is noted (the 11 switches left out: 11 x 11 pairs of 12 x 11)" \
	grep -q "s2v.slpart gives no SL for 121 of 132 (source, destination LID) pairs" "$WORK/slp.err"
# the dumps of another fabric that shares GUIDs (a smaller generated fat
# tree: the same GUID scheme, its 3rd switch ft-l2-s0000 where the larger
# tree has ft-l1-s0002) were taken without a word; now an error at the
# switch's header line, as is a header LID that is not the switch's
"$IBFAB" topo gen fattree --kary 2 --n 2 -o "$WORK/ft22.ibnd"
"$IBFAB" topo gen fattree --kary 2 --n 3 -o "$WORK/ft23.ibnd"
for t in ft22 ft23; do
	"$IBFAB" route -q --topology "$WORK/$t.ibnd" --engine minimal --deadlock dfsssp \
		-o "$WORK/$t.lfts" --sl "$WORK/$t.sl" --sl2vl "$WORK/$t.s2v"
done
ftrun() { "$IBFAB" sim packet --topology "$WORK/ft23.ibnd" --lfts "$WORK/ft23.lfts" --sl "$1" \
	--sl2vl "$2" --load 0.3 --measure 2us -q >"$WORK/ft.out" 2>"$WORK/ft.err"; }
set +e
ftrun "$WORK/ft23.sl" "$WORK/ft23.s2v"
rc=$?
check "the fat tree's own SL and SL2VL dumps: taken (exit $rc)" test "$rc" = 0
ftrun "$WORK/ft22.sl" "$WORK/ft23.s2v"
rc=$?
check "the SL dump of a smaller fat tree: exit 1 (got $rc) at the switch named otherwise" \
	sh -c "test $rc = 1 && test ! -s '$WORK/ft.out' && grep -q \"ft22.sl:$(grep -n ft-l2-s0000 "$WORK/ft22.sl" | cut -d: -f1): switch 0x[0-9a-f]* is 'ft-l1-s0002' in the fabric, the dump names it 'ft-l2-s0000'\" '$WORK/ft.err'"
ftrun "$WORK/ft23.sl" "$WORK/ft22.s2v"
rc=$?
check "the SL2VL dump of a smaller fat tree: exit 1 (got $rc) at the switch named otherwise" \
	sh -c "test $rc = 1 && test ! -s '$WORK/ft.out' && grep -q \"ft22.s2v:$(grep -n ft-l2-s0000 "$WORK/ft22.s2v" | cut -d: -f1): switch .* the dump names it 'ft-l2-s0000'\" '$WORK/ft.err'"
sed 's/^\(Switch guid [^ ]* lid \)4 /\199 /' "$WORK/ft23.s2v" >"$WORK/ft23-lid.s2v"
ftrun "$WORK/ft23.sl" "$WORK/ft23-lid.s2v"
rc=$?
check "an SL2VL header with another LID: exit 1 (got $rc), both LIDs named" \
	sh -c "test $rc = 1 && grep -q 'ft23-lid.s2v:[0-9]*: switch .* has LID 4 in the fabric, the dump says 99' '$WORK/ft.err'"
set -e
done_testing
