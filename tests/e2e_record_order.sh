#!/usr/bin/env bash
# The names `ibfab route congestion`, `route check`, `route stats` and
# `route diff` print do not follow the order of the fabric file's records:
# one fabric (an XGFT(3;5,3,3;1,2,3) with hosts on its top switches, as
# bench/qa_sweep.py seed 97 makes it, its LIDs fixed), its records as
# written, reversed and shuffled, and the same with cables cut; every
# output, text and JSON, must be byte for byte the same.  The same for the
# tables and notes of `ibfab route` when the file lacks LIDs (all or some)
# and its errors on a guid2lid file that leaves ports out.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir
W=$WORK

# the fabric without LIDs (qa_sweep's writer), then with the LIDs OpenSM
# would give it, then the reorderings and the damaged copies
python3 - "$top_srcdir/bench" "$IBFAB" "$W" <<'EOF' || { not_ok "fabrics made"; done_testing; }
import json, random, subprocess, sys
sys.path.insert(0, sys.argv[1])
import qa_sweep as q
ibfab, w = sys.argv[2], sys.argv[3]
doc = json.loads(subprocess.run([ibfab, 'topo', 'gen', 'fattree', '--m', '5,3,3', '--w', '1,2,3',
                                 '--format', 'json'], capture_output=True, text=True,
                                check=True).stdout)
f = q.Fabric(doc)
q.dmg_top_hosts(f, random.Random(97), 3)
f.write_ibnd(w + '/nolid.ibnd')
subprocess.run([ibfab, 'topo', 'convert', w + '/nolid.ibnd', '--format', 'ibnetdiscover',
                '--lmc', '0', '-o', w + '/a.ibnd'], check=True)
text = open(w + '/a.ibnd').read()
blocks = [b for b in text.split('\n\n') if b.strip()]
head = [b for b in blocks if all(l.startswith('#') for l in b.strip().split('\n'))]
recs = [b.strip('\n') for b in blocks if b not in head]

def cut(recs, k):
    """k switch-to-switch cables gone: both port lines dropped"""
    import re
    ss = []
    for i, r in enumerate(recs):
        m = re.search(r'^Switch\s+\d+\s+"([^"]+)"', r, re.M)
        if not m:
            continue
        for l in r.split('\n'):
            p = re.match(r'\[(\d+)\][^"]*"(S-[^"]+)"\[(\d+)\]', l)
            if p:
                ss.append((m.group(1), int(p.group(1)), p.group(2), int(p.group(3)), i, l))
    pick = random.Random(5).sample([c for c in ss if (c[0], c[1]) < (c[2], c[3])], k)
    drop = set()
    for a, pa, b, pb, i, l in pick:
        drop.add((i, l))
        drop.update((c[4], c[5]) for c in ss if c[0] == b and c[1] == pb)
    return ['\n'.join(l for l in r.split('\n') if (i, l) not in drop)
            for i, r in enumerate(recs)]

def write(path, rs):
    open(path, 'w').write('\n\n'.join(head + rs) + '\n')

shuf = list(recs)
random.Random(1).shuffle(shuf)
order = {'a': list(range(len(recs))), 'b': list(range(len(recs)))[::-1],
         'c': [recs.index(r) for r in shuf]}
damaged = cut(recs, 5)

# the file without LIDs (all assigned), and with the LIDs of two
# switches and three hosts gone (those assigned free ones, as to ports not
# swept yet); a guid2lid file of the fixed LIDs, one without entries for
# two switches and two hosts, and the fabric with two hosts of one port
# GUID (ft-h00005 reports ft-h00000's)
import re
nl_text = open(w + '/nolid.ibnd').read()
nl_blocks = [b for b in nl_text.split('\n\n') if b.strip()]
nl_head = [b for b in nl_blocks if all(l.startswith('#') for l in b.strip().split('\n'))]
nl_recs = [b.strip('\n') for b in nl_blocks if b not in nl_head]
assert len(nl_recs) == len(recs)
gone = '|'.join(str(l) for l in (3, 7, 25, 31, 40))
partial = [re.sub(r'\blid (%s)\b' % gone, 'lid 0', r) for r in recs]
dup = [r.replace('(2c90100000501)', '(2c90100000001)') for r in recs]
# three hosts of one description (as HCAs that kept the default one)
shared = list(recs)
for h in ('ft-h00020', 'ft-h00003', 'ft-h00040'):
    shared = [r.replace('"%s"' % h, '"MT25408 ConnectX"') for r in shared]
g2l = []
for r in recs:
    m = re.search(r'^switchguid=0x([0-9a-f]+).*\n.*port 0 lid (\d+)', r, re.M)
    if m:
        g2l.append((int(m.group(1), 16), int(m.group(2))))
    for p in re.finditer(r'^\[\d+\]\(([0-9a-f]+)\)\s.*# lid (\d+) lmc 0', r, re.M):
        g2l.append((int(p.group(1), 16), int(p.group(2))))
with open(w + '/all.g2l', 'w') as o:
    for g, l in sorted(g2l):
        o.write('0x%016x %d %d\n' % (g, l, l))
with open(w + '/short.g2l', 'w') as o:
    for g, l in sorted(g2l):
        if l not in (5, 9, 27, 44):
            o.write('0x%016x %d %d\n' % (g, l, l))
for k, o in order.items():
    write('%s/%s.ibnd' % (w, k), [recs[i] for i in o])
    write('%s/d%s.ibnd' % (w, k), [damaged[i] for i in o])
    write('%s/p%s.ibnd' % (w, k), [partial[i] for i in o])
    write('%s/u%s.ibnd' % (w, k), [dup[i] for i in o])
    write('%s/s%s.ibnd' % (w, k), [shared[i] for i in o])
    open('%s/n%s.ibnd' % (w, k), 'w').write(
        '\n\n'.join(nl_head + [nl_recs[i] for i in o]) + '\n')
EOF

"$IBFAB" route --topology "$W/a.ibnd" --engine minimal -o "$W/m.lfts" 2>/dev/null
"$IBFAB" route --topology "$W/a.ibnd" --engine dmodk -o "$W/l.lfts" 2>/dev/null
# the minimal tables less the two switches of the lowest GUIDs (the
# first two records of a.ibnd): "no table" names one of them
awk '/^Unicast lids/ { n++ } n > 2' "$W/m.lfts" >"$W/miss.lfts"

# sort_tables FILE: the switches' tables of a dump in FILE sorted by GUID
# (a dump lists them in the file's record order, as OpenSM in its own)
sort_tables() {
	python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read().split('\n')
head, blocks = [], []
for l in t:
    if l.startswith('Unicast lids'):
        blocks.append([l])
    elif not l.strip():
        continue
    elif blocks and not l.startswith('ibfab') and not l.startswith('exit'):
        blocks[-1].append(l)
    else:
        head.append(l)
key = lambda b: re.search(r'guid (0x[0-9a-f]+)', b[0]).group(1)
open(sys.argv[1], 'w').write('\n'.join(head + [l for b in sorted(blocks, key=key) for l in b]) + '\n')
EOF
}


for e in dmodk minimal layered; do
	run_orders "congestion-$e" route congestion --topology "$W/@.ibnd" --engine $e
	run_orders "congestion-$e-json" route congestion --topology "$W/@.ibnd" --engine $e --json
done
run_orders congestion-fabric route congestion --topology "$W/@.ibnd" --engine minimal --order fabric
run_orders congestion-damaged route congestion --topology "$W/d@.ibnd" --lfts "$W/m.lfts"
run_orders congestion-damaged-json route congestion --topology "$W/d@.ibnd" --lfts "$W/m.lfts" --json
run_orders check route check --topology "$W/d@.ibnd" --lfts "$W/m.lfts"
run_orders check-hops route check --topology "$W/@.ibnd" --lfts "$W/l.lfts" --max-hops 2
run_orders check-missing route check --topology "$W/@.ibnd" --lfts "$W/miss.lfts"
run_orders stats route stats --topology "$W/d@.ibnd" --lfts "$W/m.lfts"
run_orders stats-json route stats --topology "$W/d@.ibnd" --lfts "$W/m.lfts" --json
run_orders diff route diff --topology "$W/@.ibnd" --lfts "$W/m.lfts" --lfts2 "$W/l.lfts"

# LIDs the file lacks: assigned in canonical order, not the records' (the
# tables of a file without LIDs, and the note on ports not swept yet,
# named the first port in the file and gave the free LIDs in its order);
# a guid2lid file that leaves ports out names the port of the lowest GUID,
# a duplicate port GUID both of its ports (it named the first in the file)
SORT_TABLES=1 run_orders lids-assigned route --topology "$W/n@.ibnd" --engine minimal --lmc 0 -o -
SORT_TABLES=1 run_orders lids-missing route --topology "$W/p@.ibnd" --engine minimal -o -
run_orders g2l-missing route --topology "$W/@.ibnd" --guid2lid "$W/short.g2l" --engine minimal
run_orders g2l-dup route --topology "$W/u@.ibnd" --guid2lid "$W/all.g2l" --engine minimal
check "LIDs assigned: the tables written" grep -q "^Unicast lids" "$W/lids-assigned"
check "ports without a LID: the note names the switch of the lowest GUID and counts all" \
	grep -q "p@.ibnd: 5 port(s) without a LID (first 'ft-l1-s0002' port 0): .*(LID 3)" "$W/lids-missing"
check "... the tables of the file whose LIDs are all there" \
	cmp -s <(grep -v '^ibfab' "$W/lids-missing") <("$IBFAB" route --topology "$W/a.ibnd" --engine minimal -o - >"$W/full" 2>/dev/null; echo "exit 0" >>"$W/full"; sort_tables "$W/full"; cat "$W/full")
check "guid2lid without some ports: names the port of the lowest GUID, counts the others" \
	grep -q "short.g2l: gives no LID to 'ft-h00005' port 1 (port GUID 0x0002c90100000501) (and 3 more port(s) without one)" "$W/g2l-missing"
check "guid2lid, a port GUID of two hosts: names both" \
	grep -q "all.g2l: gives a LID to only one of 'ft-h00000' port 1 and 'ft-h00005' port 1: both have port GUID 0x0002c90100000001" "$W/g2l-dup"

# a name several nodes fit: the error names the two first by GUID (it
# named the first two in the file)
printf '0 1 1M\nMT25408 0 1M\n' >"$W/shared.txt"
run_orders trace-desc route trace --topology "$W/s@.ibnd" --lfts "$W/m.lfts" --from "MT25408 ConnectX" --to ft-h00001
run_orders trace-word route trace --topology "$W/s@.ibnd" --lfts "$W/m.lfts" --from MT25408 --to ft-h00001
run_orders trace-guid route trace --topology "$W/u@.ibnd" --lfts "$W/m.lfts" --from 0x0002c90100000001 --to ft-h00001
run_orders flow-word sim flow --topology "$W/s@.ibnd" --lfts "$W/m.lfts" --pattern "file:$W/shared.txt"
check "trace, a shared description: the two hosts of the lowest GUIDs" \
	grep -q "more than one node is named so (0x0002c90100000300 and 0x0002c90100001400, maybe more)" "$W/trace-desc"
check "trace, a shared first word: the same two" \
	grep -q "more than one node is named so (0x0002c90100000300 and 0x0002c90100001400, maybe more)" "$W/trace-word"
check "trace, a port GUID of two hosts: both" \
	grep -q "more than one node is named so (0x0002c90100000000 and 0x0002c90100000500, maybe more)" "$W/trace-guid"
check "sim flow, a shared first word: the two hosts of the lowest GUIDs" \
	grep -q 'shared.txt:2: host "MT25408" is not unique: it names 0x0002c90100000300 and 0x0002c90100001400' "$W/flow-word"

# the outputs hold the names compared: a pod pair, examples, a first
# difference, a switch without a table
check "the up/down bound names a pair of pods" grep -q "pod of 'ft-l1-s0003' -> pod of 'ft-l1-s0000'" "$W/congestion-dmodk"
check "the JSON names the pods' switches" grep -q '"bound_pair_src": "ft-l1-s0003"' "$W/congestion-dmodk-json"
check "route check gives examples" grep -q "^  from '" "$W/check"
check "route check --max-hops gives examples" grep -q "hops, more than 2" "$W/check-hops"
check "route check names the switch of the lowest GUID without a table" \
	grep -q "no table: .* 2 of the fabric's 21 switches .* (guid 0x0002c90200000000)" "$W/check-missing"
check "route stats: some pairs not delivered" grep -q "not delivered: [1-9]" "$W/stats"
check "route diff names a first difference" grep -q "^first difference: switch 'ft-l1-s0000'" "$W/diff"
done_testing
