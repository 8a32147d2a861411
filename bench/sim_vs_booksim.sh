#!/usr/bin/env bash
# The packet simulator beside BookSim2 on the same Slim Fly: link traversals
# per second of wall time on one core, uniform random traffic at one load.
# BookSim2 is not a Debian package and is not part of ibfab: build it
# yourself (github.com/booksim/booksim2, `make` in src/) and give its binary
# in BOOKSIM.  Prints a markdown table; never passes or fails.
#
#   BOOKSIM=/path/to/booksim [IBFAB=build/ibfab] [N=1] bench/sim_vs_booksim.sh [LOAD (0.2)] [Q...]
#
# The same switch graph and hosts go to both (BookSim's `anynet` listing is
# written from `ibfab topo links`); BookSim routes minimally with one path
# per pair (its anynet tables), ibfab with its `minimal` engine.  BookSim:
# one-flit packets (so a flit hop is a packet hop, its most favourable
# setting), one VC with 32 flits of buffer (ibfab's default 128 KiB is 32
# packets of 4 KiB), separable input-first allocation, one-cycle channels,
# warm-up plus 4 samples of 5000 cycles.  Its link traversals are estimated
# as injected flits x (its average router hops + 1): a packet crossing h
# routers crosses h - 1 router links plus its injection and ejection links.
# ibfab: 4 KiB packets, 8 VLs (one used), 200 us measured after 5 us.
# BookSim is cycle-driven: one run takes about 5 s on 200 hosts and 7-8
# minutes on 3380 (q=13) here; N runs of each, the best kept.
set -u
cd "$(dirname "$0")/.."
IBFAB=${IBFAB:-$(pwd)/build/ibfab}
: "${BOOKSIM:?set BOOKSIM to a BookSim2 binary (see the comment at the top)}"
load=${1:-0.2}
shift || true
qs=${*:-5 13}
rounds=${N:-1}
work=$(mktemp -d /tmp/ibfab-booksim.XXXXXX)
trap 'rm -rf "$work"' EXIT

anynet() { # links file -> anynet listing; hosts are the nodes named ...-hNN
	python3 - "$1" "$2" <<'PY'
import re, sys
links = []
for line in open(sys.argv[1]):
    m = re.match(r'"(.*?)"\[(\d+)\] "(.*?)"\[(\d+)\]', line)
    if m:
        links.append((m.group(1), m.group(3)))
host = lambda n: re.search(r'-h\d+$', n) is not None
sws = sorted({x for l in links for x in l if not host(x)})
hosts = sorted({x for l in links for x in l if host(x)})
si = {n: i for i, n in enumerate(sws)}
hi = {n: i for i, n in enumerate(hosts)}
att = {s: [] for s in sws}
nbr = {s: [] for s in sws}
for a, b in links:
    if host(a):
        a, b = b, a
    (att[a] if host(b) else nbr[a]).append(hi[b] if host(b) else si[b])
with open(sys.argv[2], 'w') as o:
    for s in sws:  # each router link once: anynet makes it two-way
        o.write('router %d' % si[s] + ''.join(' node %d' % n for n in att[s]) +
                ''.join(' router %d' % r for r in nbr[s]) + '\n')
PY
}

for q in $qs; do
	"$IBFAB" topo gen slimfly --q "$q" -o "$work/sf$q.net" >/dev/null || continue
	"$IBFAB" topo links "$work/sf$q.net" >"$work/sf$q.links"
	anynet "$work/sf$q.links" "$work/sf$q.anynet"
	cat >"$work/sf$q.conf" <<EOF
topology = anynet;
network_file = $work/sf$q.anynet;
routing_function = min;
traffic = uniform;
packet_size = 1;
injection_rate = $load;
num_vcs = 1;
vc_buf_size = 32;
vc_allocator = separable_input_first;
sw_allocator = separable_input_first;
alloc_iters = 1;
sample_period = 5000;
warmup_periods = 1;
max_samples = 4;
sim_count = 1;
print_activity = 0;
EOF
	for r in $(seq "$rounds"); do
		"$BOOKSIM" "$work/sf$q.conf" >"$work/bs$q.$r.out" 2>&1
		"$IBFAB" sim packet --topology "$work/sf$q.net" --engine minimal --load "$load" \
			--seed "$r" --warmup 5us --measure 200us --json -q >"$work/ib$q.$r.json"
	done
done
python3 - "$work" "$load" "$rounds" $qs <<'PY'
import json, re, sys
work, load, rounds, qs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
print("| Slim Fly q | hosts | BookSim2 link traversals/s | BookSim2 cycles/s | BookSim2 accepted | "
      "ibfab link traversals/s | ibfab accepted | ibfab / BookSim2 |")
print("|---|---|---|---|---|---|---|---|")
for q in qs:
    bs = ib = None
    for r in range(1, rounds + 1):
        try:
            t = open(f"{work}/bs{q}.{r}.out").read()
            cyc = int(re.search(r"Time taken is (\d+) cycles", t).group(1))
            wall = float(re.search(r"Total run time ([\d.]+)", t).group(1))
            hops = float(re.findall(r"Hops average = ([\d.]+)", t)[-1])
            acc = float(re.findall(r"Accepted flit rate average = ([\d.]+)", t)[-1])
            nodes = len(set(re.findall(r"node (\d+)", open(f"{work}/sf{q}.anynet").read())))
            x = (load * nodes * cyc * (hops + 1) / wall, cyc / wall, acc, nodes)
            if bs is None or x[0] > bs[0]:
                bs = x
        except (OSError, AttributeError, IndexError, ValueError):
            pass
        try:
            res = json.load(open(f"{work}/ib{q}.{r}.json"))["runs"][0]["result"]
            y = (res["packet_hops"] / res["wall_s"], res["accepted"], res["hosts"])
            if ib is None or y[0] > ib[0]:
                ib = y
        except (OSError, ValueError, KeyError, IndexError, ZeroDivisionError):
            pass
    if not bs or not ib:
        print(f"| {q} | | {'failed' if not bs else ''} | | | {'failed' if not ib else ''} | | |")
        continue
    print(f"| {q} | {ib[2]} | {bs[0]:.3g} | {bs[1]:.3g} | {bs[2]:.3f} | {ib[0]:.3g} | {ib[1]:.3f} | "
          f"{ib[0] / bs[0]:.1f} |")
PY
