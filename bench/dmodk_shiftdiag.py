#!/usr/bin/env python3
"""Which shifts and links make a fat tree's worst shift load, and why.

    IBFAB=build/ibfab bench/dmodk_shiftdiag.py FABRIC [--engine dmodk | --lfts DUMP]
                                               [--top N] [--flows K]

Routes FABRIC with `ibfab route` (or reads DUMP), converts the fabric to
ibfab's JSON, numbers the hosts as `route congestion` does on a 2-level fat
tree (leaves in GUID order, hosts in port order, CAs inside their switch
left out, hosts on a switch linked to 2 or more switches with hosts last:
the spines), traces every
shift d = (s + c) mod N through the tables and prints:
  - the histogram of the worst link load over the shifts;
  - the N worst (shift, link) pairs, and for the first K of them the flows
    on the link: source leaf, destination leaf, destination index and its
    D-mod-K up slot (index mod the leaf's slot count W*p), with a mark when
    the destination leaf has no cable to the spine of that slot;
  - per link direction (leaf->spine, spine->leaf) how many shifts reach
    their worst there.
A reading aid for docs/dmodk.md; it never passes or fails.  2-level trees only.
"""
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    fabric = args[0]
    engine, lfts, top, nflows = "dmodk", None, 10, 3
    i = 1
    while i < len(args):
        if args[i] == "--engine":
            engine = args[i + 1]
        elif args[i] == "--lfts":
            lfts = args[i + 1]
        elif args[i] == "--top":
            top = int(args[i + 1])
        elif args[i] == "--flows":
            nflows = int(args[i + 1])
        else:
            sys.exit("unknown option %s" % args[i])
        i += 2
    ibfab = os.environ.get("IBFAB", "build/ibfab")
    tmp = tempfile.mkdtemp(prefix="ibfab-diag.")
    js = os.path.join(tmp, "f.json")
    subprocess.run([ibfab, "topo", "convert", fabric, "--format", "json", "-o", js], check=True)
    if lfts is None:
        lfts = os.path.join(tmp, "lfts")
        subprocess.run([ibfab, "route", "--topology", fabric, "--engine", engine, "-o", lfts],
                       check=True, stderr=subprocess.DEVNULL)
    d = json.load(open(js))
    nodes = d["nodes"]
    sw = {n["index"]: n for n in nodes if n["type"] == "switch"}
    lid_of_sw = {n["index"]: n["lid"] for n in sw.values()}
    # switch graph, hosts per switch
    peer = {}
    hosts_on = defaultdict(list)
    for n in nodes:
        for p in n["ports"]:
            if "peer" not in p:
                continue
            peer[(n["index"], p["port"])] = (p["peer"]["node"], p["peer"]["port"])
    for n in nodes:
        if n["type"] == "switch":
            continue
        for p in n["ports"]:
            if "peer" not in p or p["peer"]["node"] not in sw:
                continue
            s = p["peer"]["node"]
            if n["sysimgguid"] == sw[s]["sysimgguid"]:
                continue  # aggregation node inside its switch
            hosts_on[s].append((p["peer"]["port"], p["lid"], n["desc"]))
    has_sw_below = set()
    nbr_sw = defaultdict(set)
    for (a, pa), (b, pb) in peer.items():
        if a in sw and b in sw:
            nbr_sw[a].add(b)
    leaves = sorted((s for s in sw if hosts_on[s]), key=lambda s: int(sw[s]["guid"], 16))
    # hosts on a spine: a switch with hosts linked to >= 2 switches with hosts
    spines_h = [s for s in leaves if len([b for b in nbr_sw[s] if hosts_on[b]]) >= 2]
    leaves = [s for s in leaves if s not in spines_h]
    order = []
    for s in leaves + spines_h:
        for port, lid, desc in sorted(hosts_on[s]):
            order.append((s, lid))
    N = len(order)
    # LFTs
    lft = defaultdict(dict)
    cur = None
    guid2idx = {int(n["guid"], 16): n["index"] for n in sw.values()}
    for line in open(lfts):
        if line.startswith("Unicast lids"):
            g = int(line.split(" guid ")[1].split()[0], 16)
            cur = guid2idx[g]
        elif line.startswith("0x") and cur is not None:
            a = line.split()
            lft[cur][int(a[0], 16)] = int(a[1])
    W = {}
    for s in leaves:
        W[s] = sum(1 for p in sw[s]["ports"] if (s, p["port"]) in peer and peer[(s, p["port"])][0] in sw)
    # slot count: largest number of up-cables any leaf could have
    spines = sorted({b for s in leaves for b in nbr_sw[s]}, key=lambda s: int(sw[s]["guid"], 16))
    cab = Counter()
    for (a, pa), (b, pb) in peer.items():
        if a in leaves and b in sw:
            cab[(a, b)] += 1
    pnom = {y: max(cab[(s, y)] for s in leaves) for y in spines}
    nslots = sum(pnom.values())

    def name(s):
        return sw[s]["desc"].split(":")[0].replace("MF0;", "")

    def trace(src_sw, lid):
        path, s, hops = [], src_sw, 0
        while True:
            port = lft[s].get(lid)
            if port is None or hops > 64:
                return None
            nb = peer.get((s, port))
            if nb is None:
                return None
            if nb[0] not in sw:
                return path
            path.append((s, port, nb[0]))
            s = nb[0]
            hops += 1

    cache = {}
    worst_hist = Counter()
    worsts = []
    direction = Counter()
    for c in range(1, N):
        load = Counter()
        flows = defaultdict(list)
        for a in range(N):
            b = (a + c) % N
            ssw, _ = order[a]
            dsw, dlid = order[b]
            if ssw == dsw:
                continue
            k = (ssw, dlid)
            if k not in cache:
                cache[k] = trace(ssw, dlid)
            for link in cache[k] or []:
                load[link] += 1
                flows[link].append((a, b))
        m = max(load.values()) if load else 0
        worst_hist[m] += 1
        for link, v in load.items():
            if v == m:
                direction["up" if link[0] in leaves else "down"] += 1
        worsts.append((m, c, max(load, key=load.get) if load else None, flows))
    print("hosts %d, leaves %d, spines %d, slots per leaf %d (%s)" %
          (N, len(leaves), len(spines), nslots, ",".join(str(pnom[y]) for y in spines)))
    closed = [(name(s), name(y)) for s in leaves for y in spines if cab[(s, y)] == 0]
    print("leaf-spine pairs with no cable: %d" % len(closed))
    print("worst load over shifts: " + ", ".join("%d: %d shifts" % (k, v) for k, v in sorted(worst_hist.items())))
    print("links at their shift's worst: up %d, down %d" % (direction["up"], direction["down"]))
    worsts.sort(key=lambda w: (-w[0], w[1]))
    leaf_no = {s: i for i, s in enumerate(leaves + spines_h)}
    for m, c, link, flows in worsts[:top]:
        print("shift %d: worst %d on %s/P%d -> %s" % (c, m, name(link[0]), link[1], name(link[2])))
    for m, c, link, flows in worsts[:nflows]:
        print("flows of shift %d on %s/P%d -> %s:" % (c, name(link[0]), link[1], name(link[2])))
        for a, b in flows[link]:
            dsw = order[b][0]
            slot = b % nslots
            y = spines[slot % len(spines)] if dsw in leaves else None
            mark = ""
            if y is not None and cab[(dsw, y)] == 0:
                mark = "  (dest leaf has no cable to slot's spine %s)" % name(y)
            if y is not None and cab[(order[a][0], y)] == 0:
                mark += "  (src leaf has no cable to slot's spine %s)" % name(y)
            print("  %3d (leaf %2d) -> %3d (leaf %2d) slot %2d%s" %
                  (a, leaf_no[order[a][0]], b, leaf_no[dsw], slot, mark))


main()
