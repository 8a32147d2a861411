#!/usr/bin/env python3
"""All-to-all link loads over forwarding tables: every host sends one flow
to each LID of every other host (each LMC layer a flow of its own); per
directed switch-to-switch cable, the flows that cross it.  Prints the
max, mean and min over the cables, max/mean, the idle cables and the flows
not delivered; with a switch name (node description) also the flows on that
switch's cables.  Reads an ibnetdiscover file with LIDs (ibfab topo gen)
and an LFT dump (ibfab route -o, dump_lfts).
usage: link_load_a2a.py TOPO.ibnd LFTS [LAYER|all [SWITCH]]"""
import re, sys
topo, lfts = sys.argv[1], sys.argv[2]
layer = sys.argv[3] if len(sys.argv) > 3 else 'all'
nodes = {}  # guidname -> dict
cur = None
for line in open(topo):
    m = re.match(r'^(Switch|Ca|Hca)\s+(\d+)\s+"([^"]+)".*?(?:lid (\d+) lmc (\d+))?\s*$', line)
    if m:
        cur = m.group(3)
        nodes[cur] = {'sw': m.group(1) == 'Switch', 'ports': {}, 'lid': int(m.group(4) or 0),
                      'lmc': int(m.group(5) or 0), 'guid': None}
        g = re.search(r'S-([0-9a-f]+)', cur)
        if g: nodes[cur]['guid'] = int(g.group(1), 16)
        continue
    m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([^"]+)"\[(\d+)\]', line)
    if m and cur:
        nodes[cur]['ports'][int(m.group(1))] = (m.group(2), int(m.group(3)))
        if not nodes[cur]['sw']:
            lm = re.search(r'# lid (\d+) lmc (\d+)', line)
            if lm: nodes[cur]['lid'], nodes[cur]['lmc'] = int(lm.group(1)), int(lm.group(2))
byguid = {n['guid']: k for k, n in nodes.items() if n['sw']}
lft = {}
sw = None
for line in open(lfts):
    m = re.match(r'^Unicast lids .* guid (0x[0-9a-f]+)', line)
    if m:
        sw = byguid.get(int(m.group(1), 16)); lft[sw] = {}; continue
    m = re.match(r'^(0x[0-9a-f]+) (\d+)', line)
    if m and sw is not None:
        lft[sw][int(m.group(1), 16)] = int(m.group(2))
hosts = {}  # switch -> number of hosts
dests = []  # (lid, switch)
for k, n in nodes.items():
    if n['sw']: continue
    for p, (peer, pp) in n['ports'].items():
        if peer in nodes and nodes[peer]['sw']:
            hosts[peer] = hosts.get(peer, 0) + 1
            for j in range(1 << n['lmc']):
                if layer == 'all' or int(layer) == j:
                    dests.append((n['lid'] + j, peer))
            break
load = {}
for k, n in nodes.items():
    if n['sw']:
        for p, (peer, pp) in n['ports'].items():
            if nodes.get(peer, {}).get('sw'): load[(k, p)] = 0
bad = 0
for lid, t in dests:
    for x, h in hosts.items():
        hh = h - (1 if x == t else 0)
        if hh <= 0 or x == t: continue
        y, steps = x, 0
        while y != t and steps < 64:
            p = lft.get(y, {}).get(lid)
            if p is None or (y, p) not in load: bad += hh; break
            load[(y, p)] += hh
            y = nodes[y]['ports'][p][0]; steps += 1
        if y != t: bad += hh
v = list(load.values())
mean = sum(v) / len(v)
print('links %d flows/link: max %d mean %.1f min %d max/mean %.3f idle %d undelivered %d' %
      (len(v), max(v), mean, min(v), max(v) / mean, sum(1 for x in v if x == 0), bad))
if len(sys.argv) > 4:  # a switch name: its links
    s = sys.argv[4]
    for line in open(topo):
        m = re.match(r'^Switch\s+\d+\s+"([^"]+)"\s+# "([^"]+)"', line)
        if m and m.group(2) == s: s = m.group(1)
    tot = sum(c for (a, p), c in load.items() if a == s or nodes[a]['ports'][p][0] == s)
    print('switch %s: flows on its cables (both directions) %d' % (s, tot))
