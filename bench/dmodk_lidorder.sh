#!/usr/bin/env bash
# Does dmodk depend on the LIDs?  Each ibsim .net file of DIR (e.g. the work
# directory `KEEP=1 bench/dmodk_irregular.sh --compete` leaves) is routed
# with its own LIDs and again with them reversed and shuffled (LMC 0: 1
# reversal + 5 shuffles; LMC 1: switches on shuffled LIDs, hosts on shuffled
# even base LIDs above them, 3 shuffles against the unshuffled layout); the
# tables are compared entry by entry by (switch GUID, destination port GUID).
# Prints one line per fabric: the differing entries per permutation.  Never
# passes or fails.
#
#   IBFAB=build/ibfab bench/dmodk_lidorder.sh DIR [NAMES...]
set -u
[ $# -ge 1 ] || { echo "usage: $0 DIR [NAMES...]" >&2; exit 2; }
dir=$1; shift
IBFAB=${IBFAB:-build/ibfab}
work=$(mktemp -d /tmp/ibfab-lidorder.XXXXXX)
trap 'rm -rf "$work"' EXIT
# perm IN SEED MODE: MODE rev|shuf (LMC 0) or lmc1 (seed 0 = unshuffled)
perm() {
	python3 - "$@" <<'PY'
import re, sys, random
src, seed, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
txt = open(src).read()
lids = sorted({int(m) for m in re.findall(r'\blid (\d+)', txt)})
rng = random.Random(seed)
if mode != "lmc1":
    new = lids[::-1] if mode == "rev" else rng.sample(lids, len(lids))
    mp = dict(zip(lids, new))
    sys.stdout.write(re.sub(r'\blid (\d+)', lambda m: "lid %d" % mp[int(m.group(1))], txt))
    sys.exit(0)
sw = sorted({int(m) for m in re.findall(r'port 0 lid (\d+)', txt)})
hosts = [l for l in lids if l not in set(sw)]
ns = sw[:]
if seed: rng.shuffle(ns)
mp = dict(zip(sw, ns))
start = max(sw) + 1 + (max(sw) + 1) % 2
bases = [start + 2 * k for k in range(len(hosts))]
if seed: rng.shuffle(bases)
mp.update(zip(hosts, bases))
txt = re.sub(r'\blid (\d+) lmc 0', lambda m: "lid %d lmc %d" % (mp[int(m.group(1))], 0 if int(m.group(1)) in mp and int(m.group(1)) in set(sw) else 1), txt)
sys.stdout.write(re.sub(r'\blid (\d+)\b(?! lmc)', lambda m: "lid %d" % mp[int(m.group(1))], txt))
PY
}
# cmpdumps A B: entries differing by (switch GUID, port GUID), or "?" when the key sets differ
cmpdumps() {
	python3 - "$1" "$2" <<'PY'
import re, sys
def load(fn):
    t, cur = {}, None
    for l in open(fn):
        m = re.match(r"Unicast lids .* guid (0x[0-9a-f]+)", l)
        if m: cur = m.group(1); continue
        m = re.match(r"0x([0-9a-f]+) (\d+) # .*portguid (0x[0-9a-f]+)", l)
        if m and cur: t.setdefault((cur, m.group(3)), []).append((int(m.group(1), 16), int(m.group(2))))
    return {k: [p for _, p in sorted(v)] for k, v in t.items()}
a, b = load(sys.argv[1]), load(sys.argv[2])
print("?" if set(a) != set(b) or not a else sum(a[k] != b[k] for k in a))
PY
}
names=("$@")
[ ${#names[@]} -gt 0 ] || for f in "$dir"/*.net; do n=$(basename "$f" .net); [ "$n" = base ] || [ "$n" = base2 ] || names+=("$n"); done
for n in "${names[@]}"; do
	f=$dir/$n.net
	out="$n: LMC 0"
	cp "$f" "$work/o.net"
	"$IBFAB" route -q --topology "$work/o.net" --engine dmodk -o "$work/o.dump" 2>/dev/null || { echo "$n: not routed"; continue; }
	for s in rev 1 2 3 4 5; do
		rm -f "$work/p.dump"
		if [ $s = rev ]; then perm "$f" 0 rev; else perm "$f" "$s" shuf; fi >"$work/p.net"
		"$IBFAB" route -q --topology "$work/p.net" --engine dmodk -o "$work/p.dump" 2>/dev/null
		out="$out $s:$( [ -s "$work/p.dump" ] && cmpdumps "$work/o.dump" "$work/p.dump" || echo fail)"
	done
	out="$out; LMC 1"
	rm -f "$work/o.dump"
	perm "$f" 0 lmc1 >"$work/o.net"
	"$IBFAB" route -q --topology "$work/o.net" --engine dmodk --lmc 1 -o "$work/o.dump" 2>/dev/null
	for s in 1 2 3; do
		rm -f "$work/p.dump"
		perm "$f" "$s" lmc1 >"$work/p.net"
		"$IBFAB" route -q --topology "$work/p.net" --engine dmodk --lmc 1 -o "$work/p.dump" 2>/dev/null
		out="$out $s:$( [ -s "$work/o.dump" ] && [ -s "$work/p.dump" ] && cmpdumps "$work/o.dump" "$work/p.dump" || echo fail)"
	done
	echo "$out"
done
