#!/usr/bin/env bash
# sim flow --pattern file:PATH: a traffic file that spells out a built-in
# pattern (shift:3; shifts, phase by phase) gives the built-in pattern's
# figures to the last digit; hosts named in the file stand for their lowest
# rank under any placement; phases run in number order with each flow's
# own bytes; malformed files are errors at FILE:LINE with nothing on
# stdout; sim packet --traffic reads the same files.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }
# the JSON figures of every phase, the label left out (file phases are
# "phase N", the built-in ones "shift N")
figures() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["patterns"]:
    for r in p["results"]:
        for ph in r["phases"]:
            ph.pop("label")
            print(json.dumps(ph, sort_keys=True))
        print(r["time_us"], r["mean_aggregate_gbps"], r["flows"], r["local"])' "$1"
}

"$IBFAB" topo gen fattree --kary 4 --n 2 -o "$W/ft.topo" 2>/dev/null
S="$IBFAB sim flow --topology $W/ft.topo --engine minimal --lmc 1"
N=16

# shift:3 as a file of rank numbers, the same bytes as --bytes
{
	echo "# shift:3 by hand"
	for r in $(seq 0 $((N - 1))); do echo "$r $(((r + 3) % N)) 64KiB"; done
} >"$W/shift3.txt"
r1=$(rc $S --pattern shift:3 --bytes 64k --json); cp "$W/out" "$W/builtin.json"
r2=$(rc $S --pattern "file:$W/shift3.txt" --bytes 64k --json); cp "$W/out" "$W/file.json"
check "shift:3 as a file: both runs exit 0 ($r1, $r2)" test "$r1$r2" = 00
check "shift:3 as a file: the same rates, loads and time as the built-in pattern" \
	cmp -s <(figures "$W/builtin.json") <(figures "$W/file.json")

# shifts (15 phases) as a file with one phase per shift, written in reverse
# phase order: the phases still run in number order
{
	for c in $(seq $((N - 1)) -1 1); do
		for r in $(seq 0 $((N - 1))); do echo "$r $(((r + c) % N)) 1M $c"; done
	done
} >"$W/shifts.txt"
r1=$(rc $S --pattern shifts --json); cp "$W/out" "$W/builtin.json"
r2=$(rc $S --pattern "file:$W/shifts.txt" --json); cp "$W/out" "$W/file.json"
check "shifts as a file: both runs exit 0 ($r1, $r2)" test "$r1$r2" = 00
check "shifts as a file, phases listed backwards: the same 15 phases in order, figure for figure" \
	cmp -s <(figures "$W/builtin.json") <(figures "$W/file.json")
check "shifts as a file: labels 'phase 1' .. 'phase 15'" \
	python3 -c '
import json, sys
ph = json.load(open(sys.argv[1]))["patterns"][0]["results"][0]["phases"]
sys.exit(0 if [p["label"] for p in ph] == ["phase %d" % c for c in range(1, 16)] else 1)' "$W/file.json"

# hosts by name stand for their lowest rank: with a random placement and 2
# ranks per host, the file by host names equals the file by those ranks
python3 - "$W" <<'EOF'
import sys
w = sys.argv[1]
hosts = ["ft-h%05d" % i for i in range(16)]
with open(w + "/byname.txt", "w") as o:
    o.write("# hosts\n")
    for i in range(16):
        o.write("%s %s %d %d\n" % (hosts[i], hosts[(i + 5) % 16], 100000 * (i + 1), i % 3))
EOF
S2="$S --placement random --seed 9 --ppn 2"
# the lowest rank of each host under a placement file written here
python3 - "$W" <<'EOF'
import sys
w = sys.argv[1]
# an explicit placement: ranks 0..31, host of rank r = ft-h((r * 7) % 16),
# so the lowest rank of host h is the smallest r with r * 7 % 16 == h
with open(w + "/place.txt", "w") as o:
    for r in range(32):
        o.write("%d ft-h%05d\n" % (r, (r * 7) % 16))
low = {}
for r in range(32):
    low.setdefault((r * 7) % 16, r)
with open(w + "/byname.txt") as i, open(w + "/byrank.txt", "w") as o:
    for line in i:
        if line.startswith("#"):
            continue
        a, b, n, p = line.split()
        o.write("%d %d %s %s\n" % (low[int(a[4:])], low[int(b[4:])], n, p))
EOF
S3="$S --placement $W/place.txt"
r1=$(rc $S3 --pattern "file:$W/byname.txt" --json); cp "$W/out" "$W/a.json"
r2=$(rc $S3 --pattern "file:$W/byrank.txt" --json); cp "$W/out" "$W/b.json"
check "hosts by name = their lowest ranks under a placement file: exit 0 ($r1, $r2)" test "$r1$r2" = 00
check "hosts by name = their lowest ranks: the same figures" cmp -s <(figures "$W/a.json") <(figures "$W/b.json")
# each flow's own bytes: phase 0 of byname.txt holds flows of 1e5, 4e5, ..
# bytes; the phase lasts until the slowest flow has moved its own bytes
check "own bytes: phase times as the flows' bytes over their rates, 3 phases" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["patterns"][0]["results"][0]["phases"]
ok = [p["label"] for p in ph] == ["phase 0", "phase 1", "phase 2"]
# every host link is 100 Gb/s and each host sends and receives one flow:
# no flow is faster than 100 Gb/s, so a phase takes at least its largest
# flow at 100 Gb/s
for p in ph:
    ok = ok and p["time_us"] >= p["bytes"] * 8 / 100e3 * (1 - 1e-12)
# phase 0: flows of hosts 0, 3, .., 15: the largest 1.6e6 bytes
ok = ok and ph[0]["bytes"] == 1.6e6 and ph[1]["bytes"] == 1.4e6 and ph[2]["bytes"] == 1.5e6
sys.exit(0 if ok else 1)' "$W/a.json"
r=$(rc $S3 --pattern "file:$W/byname.txt")
check "text output: each flow's bytes from the file" grep -q "file:.*3 phase(s), each flow's bytes from the file" "$W/out"

# deterministic
r1=$(rc $S2 --pattern "file:$W/byname.txt" --json); cp "$W/out" "$W/x.json"
r2=$(rc $S2 --pattern "file:$W/byname.txt" --json)
check "same file, placement and seed: byte-identical JSON" cmp -s "$W/x.json" "$W/out"

# flows of different sizes finish at different times and the others speed
# up (fluid model, docs/sim.md): rank 0 sends 1 MB to rank 5 and 3 MB to
# rank 9, both through its host link (100 Gb/s), 50 Gb/s each.  The small
# one ends at 1e6 * 8 / 50e3 = 160 us, the large one has then 2 MB left at
# 100 Gb/s: 320 us (the rates of the start would give 480 us)
printf '0 5 1e6\n0 9 3e6\n' >"$W/two.txt"
r=$(rc $S --pattern "file:$W/two.txt" --json)
check "two flows through one host link, 1 and 3 MB: 160 and 320 us (exit $r)" python3 -c '
import json, sys
ph = json.load(open(sys.argv[1]))["patterns"][0]["results"][0]["phases"][0]
near = lambda a, b: abs(a - b) <= 1e-9 * b
ok = near(ph["min_gbps"], 50) and near(ph["max_gbps"], 50)
ok = ok and near(ph["time_us"], 320) and near(ph["fct_mean_us"], 240)
ok = ok and near(ph["fct_p50_us"], 160) and near(ph["fct_p99_us"], 320)
ok = ok and ph["fluid_steps"] == 1
sys.exit(0 if ok else 1)' "$W/out"
# the same two flows with equal sizes: nothing re-solved, bytes / rate
printf '0 5 1e6\n0 9 1e6\n' >"$W/two_eq.txt"
r=$(rc $S --pattern "file:$W/two_eq.txt" --json)
check "two flows of 1 MB: 160 us, no re-solve (exit $r)" python3 -c '
import json, sys
ph = json.load(open(sys.argv[1]))["patterns"][0]["results"][0]["phases"][0]
sys.exit(0 if ph["time_us"] == 1e6 * 8 / 50e3 and ph["fluid_steps"] == 0 else 1)' "$W/out"
# many sizes on a random placement: the same figures with 1 and 3 tracing
# workers, and no phase longer than its rates at the start would make it
python3 - "$W" <<'EOF2'
import sys
with open(sys.argv[1] + "/many.txt", "w") as o:
    for s in range(32):
        for d in range(32):
            if s != d:
                o.write("%d %d %d %d\n" % (s, d, 1000 + (s * 7919 + d * 104729) % 3000000, (s + d) % 2))
EOF2
r1=$(rc $S2 --pattern "file:$W/many.txt" --json --threads 1); cp "$W/out" "$W/m1.json"
r2=$(rc $S2 --pattern "file:$W/many.txt" --json --threads 3)
check "many sizes: byte-identical JSON with 1 and 3 threads ($r1, $r2)" \
	sh -c "test $r1$r2 = 00 && cmp -s '$W/m1.json' '$W/out'"
check "many sizes: rates re-solved, each phase between its largest flow at 100 Gb/s and the slowest start rate" python3 -c '
import json, sys
ph = json.load(open(sys.argv[1]))["patterns"][0]["results"][0]["phases"]
ok = len(ph) == 2
for p in ph:
    ok = ok and p["fluid_steps"] > 0
    lo, hi = p["bytes"] * 8 / 100e3, p["bytes"] * 8 / (p["min_gbps"] * 1e3)
    ok = ok and lo * (1 - 1e-12) <= p["time_us"] <= hi * (1 + 1e-12)
    ok = ok and p["fct_p50_us"] <= p["fct_p99_us"] <= p["time_us"] and p["fct_mean_us"] < p["time_us"]
sys.exit(0 if ok else 1)' "$W/m1.json"
# --fluid-eps 0.01 takes completions within 1 % as one event: fewer
# re-solves, times within about that fraction of the exact ones
r=$(rc $S2 --pattern "file:$W/many.txt" --json --fluid-eps 0.01); cp "$W/out" "$W/m2.json"
check "many sizes, --fluid-eps 0.01: fewer re-solves, times within 2 % (exit $r)" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["patterns"][0]["results"][0]["phases"]
b = json.load(open(sys.argv[2]))["patterns"][0]["results"][0]["phases"]
ok = len(a) == len(b) == 2
for p, q in zip(a, b):
    ok = ok and q["fluid_steps"] < p["fluid_steps"]
    for k in ("time_us", "fct_mean_us", "fct_p50_us", "fct_p99_us"):
        ok = ok and abs(q[k] - p[k]) <= 0.02 * p[k]
sys.exit(0 if ok else 1)' "$W/m1.json" "$W/m2.json"
for e in 0 0.2 x; do
	r=$(rc $S --pattern "file:$W/two.txt" --fluid-eps $e)
	check "--fluid-eps $e: usage error (exit $r)" sh -c "test $r = 2 && grep -q 'fluid-eps' '$W/err'"
done

# malformed files: exit 1, FILE:LINE, nothing on stdout
bad() {
	local name=$1 text=$2 want=$3
	printf "$text" >"$W/$name.txt"
	local r
	r=$(rc $S --pattern "file:$W/$name.txt")
	local good=1
	[ "$r" = 1 ] && grep -qF -- "$W/$name.txt:$want" "$W/err" && [ ! -s "$W/out" ] && good=0
	check "bad file ($name): exit 1, '$want', stdout empty ($r)" test $good = 0
	[ $good = 0 ] || diag <"$W/err"
}
bad negative '0 1 1M\n# x\n2 3 -64\n' '3: negative byte count "-64"'
bad self '0 1 10\nft-h00002 2 10\n' '2: a flow from rank 2 to itself'
bad rank '\n\n0 16 10\n' '3: destination rank 16: the placement has 16 ranks (0..15)'
bad host '0 ft-h00099 10 1\n' '1: unknown host "ft-h00099"'
bad number '0 1 12x\n' '1: bad byte count "12x"'
bad phase '0 1 10 one\n' '1: bad phase "one"'
bad fields '0 1 10 2 extra\n' '1: expected "SRC DST BYTES [PHASE]", too many fields'
bad zero '0 1 0\n' '1: byte count "0" out of range'
# a name several hosts share names none of them: plafrim2's second subnet,
# where several HCAs kept the description "MT25408 ConnectX Mellanox
# Technologies" (its first word was taken as the first such host)
RL=$FIXTURES/real
SP="$IBFAB sim flow --topology $RL/qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p --lfts $RL/plafrim2-2016-ibroute/subnet1-lid-109.ibroute"
printf '0 1 1M\nMT25408 0 1M\n' >"$W/shared.txt"
r=$(rc $SP --pattern "file:$W/shared.txt")
check "a first word several hosts share: exit 1 at its line, two of them named ($r)" \
	sh -c "test $r = 1 && test ! -s '$W/out' && grep -q 'shared.txt:2: host \"MT25408\" is not unique: it names 0x[0-9a-f]* and 0x[0-9a-f]*' '$W/err'"
printf '0 1 1M\n0xf4521403007a6d21 0 1M\n' >"$W/byguid.txt"
r=$(rc $SP --pattern "file:$W/byguid.txt")
check "one of them by port GUID: fine ($r)" test "$r" = 0
# a host whose description is a number: the field is a rank, and when that
# rank does not exist the error says how to name the host
sed 's/"ft-h00003"/"42"/g' "$W/ft.topo" >"$W/num.topo"
printf '42 0 1M\n' >"$W/num.txt"
r=$(rc "$IBFAB" sim flow --topology "$W/num.topo" --engine minimal --pattern "file:$W/num.txt")
check "a host named 42: rank 42 does not exist, the error says to use its GUID ($r)" \
	sh -c "test $r = 1 && grep -q 'num.txt:1: source rank 42: the placement has 16 ranks (0..15); digits are a rank: a host named so is given by its GUID' '$W/err'"
r=$(rc $S --pattern "file:$W/nonexistent.txt")
check "missing file: exit 1, named ($r)" sh -c "test $r = 1 && grep -q 'nonexistent.txt' '$W/err'"
r=$(rc $S --pattern file:)
check "file: without a path: usage error (exit $r)" test "$r" = 2
printf '# nothing but comments\n\n' >"$W/empty.txt"
r=$(rc $S --pattern "file:$W/empty.txt")
check "a file without flows: exit 1 ($r)" sh -c "test $r = 1 && grep -q 'no flows' '$W/err'"
printf '0 1 1M\n' >"$W/local.txt"
r=$(rc $S --ppn 2 --pattern "file:$W/local.txt")
check "only a flow between two ranks of one host: exit 1, said ($r)" \
	sh -c "test $r = 1 && grep -q 'no flow between two host ports' '$W/err'"

# a long file of host names on a large fabric: each name was looked up by a
# scan of every node (300 000 lines, 4096 hosts: about 10 s in strcmp);
# names already met are now remembered (well under a second), and the
# figures are those of the same file in rank numbers
"$IBFAB" topo gen fattree --kary 16 --n 3 -o "$W/big.topo" 2>/dev/null
python3 -c '
import random, sys
random.seed(5)
with open(sys.argv[1], "w") as a, open(sys.argv[2], "w") as b:
    for i in range(300000):
        s = random.randrange(4096); d = random.randrange(4095); d += d >= s
        a.write("ft-h%05d ft-h%05d 64k %d\n" % (s, d, i % 3))
        b.write("%d %d 64k %d\n" % (s, d, i % 3))' "$W/names.txt" "$W/ranks.txt"
t0=$(date +%s%N)
r1=$(rc "$IBFAB" sim flow --topology "$W/big.topo" --engine dmodk --pattern "file:$W/names.txt" --json)
t1=$(date +%s%N)
cp "$W/out" "$W/names.json"
r2=$(rc "$IBFAB" sim flow --topology "$W/big.topo" --engine dmodk --pattern "file:$W/ranks.txt" --json)
ms=$(((t1 - t0) / 1000000))
check "300 000 lines of host names on 4096 hosts: exit 0, under 5 s ($r1, $ms ms)" \
	test "$r1" = 0 -a "$ms" -lt 5000
figures "$W/names.json" >"$W/names.fig" 2>&1
figures "$W/out" >"$W/ranks.fig" 2>&1
check "... the same figures as the file in rank numbers ($r2)" \
	sh -c "test $r2 = 0 && test -s '$W/ranks.fig' && cmp -s '$W/names.fig' '$W/ranks.fig'"

# sim packet reads the same files: streams of each line's own size
printf '0 5 64KiB\n1 9 16KiB 0\n5 0 32KiB 1\n' >"$W/pk.txt"
r=$(rc "$IBFAB" sim packet --topology "$W/ft.topo" --engine minimal --traffic "file:$W/pk.txt" \
	--streams --load 1 --measure 200us)
check "sim packet --traffic file: --streams: both phases done ($r)" \
	sh -c "test $r = 0 && grep -q '2 of 2 phases done' '$W/out' && grep -q \"phase 0 'phase 0' x1: 2 messages of up to 65536 B\" '$W/out'"
r=$(rc "$IBFAB" sim packet --topology "$W/ft.topo" --engine minimal --traffic "file:$W/pk.txt" --load 0.2)
check "sim packet --traffic file: open-loop run (exit $r)" test "$r" = 0
r=$(rc "$IBFAB" sim packet --topology "$W/ft.topo" --engine minimal --traffic "file:$W/negative.txt" --load 0.2)
check "sim packet --traffic file: a bad file is an error at its line ($r)" \
	sh -c "test $r = 1 && grep -q 'negative.txt:3: negative byte count' '$W/err'"
done_testing
