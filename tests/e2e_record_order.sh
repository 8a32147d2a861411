#!/usr/bin/env bash
# The names `ibfab route congestion`, `route check`, `route stats` and
# `route diff` print do not follow the order of the fabric file's records:
# one fabric (an XGFT(3;5,3,3;1,2,3) with hosts on its top switches, as
# bench/qa_sweep.py seed 97 makes it, its LIDs fixed), its records as
# written, reversed and shuffled, and the same with cables cut; every
# output, text and JSON, must be byte for byte the same.
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
for k, o in order.items():
    write('%s/%s.ibnd' % (w, k), [recs[i] for i in o])
    write('%s/d%s.ibnd' % (w, k), [damaged[i] for i in o])
EOF

"$IBFAB" route --topology "$W/a.ibnd" --engine minimal -o "$W/m.lfts" 2>/dev/null
"$IBFAB" route --topology "$W/a.ibnd" --engine dmodk -o "$W/l.lfts" 2>/dev/null
# the minimal tables less the two switches of the lowest GUIDs (the
# first two records of a.ibnd): "no table" names one of them
awk '/^Unicast lids/ { n++ } n > 2' "$W/m.lfts" >"$W/miss.lfts"

# run NAME ARGS...: ARGS with @ replaced by a, b and c; the three outputs
# (stdout and stderr) must be the same, the first is kept in $W/NAME
run() {
	local name=$1 k
	shift
	for k in a b c; do
		"$IBFAB" "${@//@/$k}" >"$W/$name.$k" 2>&1
		echo "exit $?" >>"$W/$name.$k"
	done
	if cmp -s "$W/$name.a" "$W/$name.b" && cmp -s "$W/$name.a" "$W/$name.c"; then
		ok "$name: the same output in three record orders"
	else
		not_ok "$name: the output follows the record order"
		{ diff "$W/$name.a" "$W/$name.b"; diff "$W/$name.a" "$W/$name.c"; } | head -12 | diag
	fi
	cp "$W/$name.a" "$W/$name"
}

for e in dmodk minimal layered; do
	run "congestion-$e" route congestion --topology "$W/@.ibnd" --engine $e
	run "congestion-$e-json" route congestion --topology "$W/@.ibnd" --engine $e --json
done
run congestion-fabric route congestion --topology "$W/@.ibnd" --engine minimal --order fabric
run congestion-damaged route congestion --topology "$W/d@.ibnd" --lfts "$W/m.lfts"
run congestion-damaged-json route congestion --topology "$W/d@.ibnd" --lfts "$W/m.lfts" --json
run check route check --topology "$W/d@.ibnd" --lfts "$W/m.lfts"
run check-hops route check --topology "$W/@.ibnd" --lfts "$W/l.lfts" --max-hops 2
run check-missing route check --topology "$W/@.ibnd" --lfts "$W/miss.lfts"
run stats route stats --topology "$W/d@.ibnd" --lfts "$W/m.lfts"
run stats-json route stats --topology "$W/d@.ibnd" --lfts "$W/m.lfts" --json
run diff route diff --topology "$W/@.ibnd" --lfts "$W/m.lfts" --lfts2 "$W/l.lfts"

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
