#!/usr/bin/env python3
"""Adversarial sweep of the offline tool over damaged and irregular fabrics.

Generates fabrics with `ibfab topo gen`, damages them (cables, switches,
disconnected pieces, hosts on top switches, degraded links, mixed hardware
generations), runs every engine that applies with every deadlock scheme, and
checks what an acceptance tester would: no crash or sanitizer report, no hang,
sensible exit codes, every pair routed (or an error that names why),
deadlock-free tables within the VL budget, byte-identical output for the same
seed and for 1 and 2 threads, the route check, short flow and packet
simulations, and no half-written output file after a failure.

usage: bench/qa_sweep.py --ibfab build/ibfab [--quick] [--edge] [--inputs] [--shapes] [--wide]
                         [--seed S]
                         [--only FAMILY,...] [--workdir DIR] [--keep]
Prints one line per finding and a summary; exit 1 when anything failed.
See docs/reliability.md ("Damaged and irregular fabrics").
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

SANITIZER = re.compile(r'(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|'
                       r'runtime error:|Segmentation fault|core dumped)')
SENTINEL = 'qa-sweep sentinel: must survive a failed run\n'

# ----------------------------------------------------------------------------
# fabrics: the JSON `topo gen` writes, changed in memory, written as
# ibnetdiscover text (without LIDs, so --lmc assigns them as OpenSM would)


class Fabric:
    def __init__(self, doc):
        self.meta = doc.get('meta', '')
        self.nodes = []
        for n in doc['nodes']:
            m = {k: n[k] for k in ('type', 'id', 'guid', 'sysimgguid', 'vendid', 'devid',
                                   'desc', 'nports')}
            m['port_guid'] = n.get('port_guid')
            m['ports'] = {}
            for p in n['ports']:
                if 'peer' not in p:
                    continue
                m['ports'][p['port']] = {
                    'peer': (p['peer']['node'], p['peer']['port']),
                    'width': p.get('width', 4), 'speed': p.get('speed', 'EDR'),
                    'guid': p.get('guid')}
            self.nodes.append(m)

    def switches(self):
        return [i for i, n in enumerate(self.nodes) if n and n['type'] == 'switch']

    def cas(self):
        return [i for i, n in enumerate(self.nodes) if n and n['type'] != 'switch']

    def links(self, kind='ss'):
        out = []
        for i, n in enumerate(self.nodes):
            if not n:
                continue
            for p, e in sorted(n['ports'].items()):
                j, q = e['peer']
                if (i, p) >= (j, q):
                    continue
                sj = self.nodes[j]['type'] == 'switch'
                si = n['type'] == 'switch'
                if kind == 'ss' and not (si and sj):
                    continue
                if kind == 'host' and si and sj:
                    continue
                out.append((i, p, j, q))
        return out

    def unplug(self, i, p):
        j, q = self.nodes[i]['ports'][p]['peer']
        del self.nodes[i]['ports'][p]
        del self.nodes[j]['ports'][q]

    def remove(self, i):
        for p in list(self.nodes[i]['ports']):
            self.unplug(i, p)
        self.nodes[i] = None

    def set_link(self, i, p, width, speed):
        j, q = self.nodes[i]['ports'][p]['peer']
        for a, b in ((i, p), (j, q)):
            self.nodes[a]['ports'][b]['width'] = width
            self.nodes[a]['ports'][b]['speed'] = speed

    def prune(self):
        """Drop adapters without a cable (discovery cannot see them)."""
        for i in self.cas():
            if not self.nodes[i]['ports']:
                self.nodes[i] = None

    def level(self):
        """Switch distance from the hosts (1 = a switch with hosts)."""
        lv = {}
        front = []
        for i in self.switches():
            if any(self.nodes[e['peer'][0]]['type'] != 'switch'
                   for e in self.nodes[i]['ports'].values()):
                lv[i] = 1
                front.append(i)
        while front:
            nxt = []
            for i in front:
                for e in self.nodes[i]['ports'].values():
                    j = e['peer'][0]
                    if self.nodes[j]['type'] == 'switch' and j not in lv:
                        lv[j] = lv[i] + 1
                        nxt.append(j)
            front = nxt
        return lv

    def components(self):
        """Connected pieces of the switch graph (lists of switch indices)."""
        seen = set()
        comps = []
        for s in self.switches():
            if s in seen:
                continue
            comp, stack = [], [s]
            seen.add(s)
            while stack:
                x = stack.pop()
                comp.append(x)
                for e in self.nodes[x]['ports'].values():
                    y = e['peer'][0]
                    if self.nodes[y]['type'] == 'switch' and y not in seen:
                        seen.add(y)
                        stack.append(y)
            comps.append(comp)
        return comps

    def next_guid(self):
        return max(int(n['guid'], 16) for n in self.nodes if n) + 0x100

    def add_host(self, sw, name):
        """Cable a new one-port adapter to a new port of switch sw."""
        g = self.next_guid()
        n = self.nodes[sw]
        port = n['nports'] + 1
        n['nports'] = port
        idx = len(self.nodes)
        self.nodes.append({'type': 'ca', 'id': name, 'guid': '0x%016x' % g,
                           'sysimgguid': '0x%016x' % g, 'vendid': 713, 'devid': 4119,
                           'desc': name, 'nports': 1, 'port_guid': None,
                           'ports': {1: {'peer': (sw, port), 'width': 4, 'speed': 'EDR',
                                         'guid': '0x%016x' % (g + 1)}}})
        n['ports'][port] = {'peer': (idx, 1), 'width': 4, 'speed': 'EDR', 'guid': None}

    def write_ibnd(self, path, shuffle=None):
        def nid(i):
            n = self.nodes[i]
            return ('S-' if n['type'] == 'switch' else 'H-') + n['guid'][2:].rjust(16, '0')

        out = ['#', '# Topology file: written by bench/qa_sweep.py', '#', '']
        order = list(range(len(self.nodes)))
        if shuffle:
            shuffle.shuffle(order)
        for i in order:
            n = self.nodes[i]
            if not n:
                continue
            out.append('vendid=0x%x' % n['vendid'])
            out.append('devid=0x%x' % n['devid'])
            out.append('sysimgguid=%s' % n['sysimgguid'])
            g = n['guid'][2:].lstrip('0') or '0'
            if n['type'] == 'switch':
                out.append('switchguid=0x%s(%s)' % (g, g))
                out.append('Switch\t%d "%s"\t\t# "%s" base port 0' % (n['nports'], nid(i),
                                                                      n['desc']))
            else:
                out.append('caguid=0x%s' % g)
                out.append('Ca\t%d "%s"\t\t# "%s"' % (n['nports'], nid(i), n['desc']))
            for p, e in sorted(n['ports'].items()):
                j, q = e['peer']
                peer = self.nodes[j]
                ws = '%dx%s' % (e['width'], e['speed'])
                if n['type'] == 'switch':
                    pg = peer['ports'][q].get('guid')
                    pgs = '(%s) ' % pg[2:].lstrip('0') if pg and peer['type'] != 'switch' else ''
                    out.append('[%d]\t"%s"[%d]%s\t\t# "%s" %s' % (p, nid(j), q, pgs,
                                                                   peer['desc'], ws))
                else:
                    pg = e.get('guid')
                    pgs = '(%s) ' % pg[2:].lstrip('0') if pg else ''
                    out.append('[%d]%s\t"%s"[%d]\t\t# "%s" %s' % (p, pgs, nid(j), q,
                                                                  peer['desc'], ws))
            out.append('')
        with open(path, 'w') as fh:
            fh.write('\n'.join(out))


# ----------------------------------------------------------------------------
# damage


def dmg_cables(f, rng, frac):
    ss = f.links('ss')
    k = max(1, int(round(len(ss) * frac)))
    for i, p, _, _ in rng.sample(ss, min(k, len(ss))):
        f.unplug(i, p)


def dmg_switches(f, rng, k):
    """Remove k switches and the adapters that were cabled only to them."""
    for s in rng.sample(f.switches(), min(k, len(f.switches()) - 1)):
        f.remove(s)
    f.prune()


def dmg_split(f, rng):
    """Cut every cable of one switch that has hosts: a piece on its own."""
    lv = f.level()
    leaves = [s for s in f.switches() if lv.get(s) == 1] or f.switches()
    s = rng.choice(leaves)
    for p, e in list(f.nodes[s]['ports'].items()):
        if f.nodes[e['peer'][0]]['type'] == 'switch':
            f.unplug(s, p)


def dmg_top_hosts(f, rng, k):
    """Hosts cabled onto the switches farthest from the hosts (spines)."""
    lv = f.level()
    if not lv:
        return
    top = max(lv.values())
    tops = [s for s, v in lv.items() if v == top]
    for n in range(k):
        f.add_host(rng.choice(tops), 'qa-top-h%02d' % n)


def dmg_move_hosts(f, rng, k):
    """Existing hosts re-cabled: k onto the top switches, and two hosts on
    different switches swap their ports (same GUIDs, new places)."""
    lv = f.level()
    if not lv:
        return
    top = max(lv.values())
    tops = [s for s, v in lv.items() if v == top]
    hosts = [c for c in f.cas() if f.nodes[c]['nports'] == 1 and 1 in f.nodes[c]['ports']]
    rng.shuffle(hosts)
    for h in hosts[:k]:
        e = f.nodes[h]['ports'][1]
        f.unplug(h, 1)
        s = rng.choice(tops)
        cable(f, h, 1, s, new_port(f, s), e['width'], e['speed'])
        f.nodes[h]['ports'][1]['guid'] = e['guid']
    rest = hosts[k:]
    for a in rest:
        for b in rest:
            pa, pb = f.nodes[a]['ports'][1], f.nodes[b]['ports'][1]
            if pa['peer'][0] != pb['peer'][0]:
                (sa, qa), (sb, qb) = pa['peer'], pb['peer']
                ga, gb = pa['guid'], pb['guid']
                f.unplug(a, 1)
                f.unplug(b, 1)
                cable(f, a, 1, sb, qb)
                cable(f, b, 1, sa, qa)
                f.nodes[a]['ports'][1]['guid'] = ga
                f.nodes[b]['ports'][1]['guid'] = gb
                return


def dmg_degrade(f, rng, frac):
    """Links that trained narrow or slow."""
    allk = f.links('ss') + f.links('host')
    for i, p, _, _ in rng.sample(allk, max(1, int(len(allk) * frac))):
        f.set_link(i, p, rng.choice([1, 1, 2, 4]), rng.choice(['SDR', 'DDR', 'QDR', 'FDR10']))


def new_port(f, sw):
    n = f.nodes[sw]
    n['nports'] += 1
    return n['nports']


def cable(f, i, p, j, q, width=4, speed='EDR'):
    f.nodes[i]['ports'][p] = {'peer': (j, q), 'width': width, 'speed': speed, 'guid': None}
    f.nodes[j]['ports'][q] = {'peer': (i, p), 'width': width, 'speed': speed, 'guid': None}


def dmg_odd(f, rng):
    """Odd but legal cabling: a dual-port HCA on two switches, a leaf with
    its hosts gone, an extra parallel cable, a loopback cable on one switch
    and two hosts cabled back to back beside the fabric."""
    lv = f.level()
    leaves = [s for s in f.switches() if lv.get(s) == 1]
    a, b = rng.sample(f.switches(), 2) if len(f.switches()) > 1 else f.switches() * 2
    g = f.next_guid()
    idx = len(f.nodes)
    f.nodes.append({'type': 'ca', 'id': 'qa-dual', 'guid': '0x%016x' % g,
                    'sysimgguid': '0x%016x' % g, 'vendid': 713, 'devid': 4119,
                    'desc': 'qa-dual', 'nports': 2, 'port_guid': None, 'ports': {}})
    cable(f, idx, 1, a, new_port(f, a))
    cable(f, idx, 2, b, new_port(f, b))
    f.nodes[idx]['ports'][1]['guid'] = '0x%016x' % (g + 1)
    f.nodes[idx]['ports'][2]['guid'] = '0x%016x' % (g + 2)
    if len(leaves) > 2:
        s = rng.choice([x for x in leaves if x not in (a, b)] or leaves)
        for p, e in list(f.nodes[s]['ports'].items()):
            if f.nodes[e['peer'][0]]['type'] != 'switch':
                f.nodes[e['peer'][0]]['ports'].pop(e['peer'][1])
                del f.nodes[s]['ports'][p]
        f.prune()
    ss = f.links('ss')
    if ss:
        i, _, j, _ = rng.choice(ss)
        cable(f, i, new_port(f, i), j, new_port(f, j), 1, 'SDR')
    c = rng.choice(f.switches())
    cable(f, c, new_port(f, c), c, new_port(f, c))
    for k in range(2):
        g = f.next_guid()
        f.nodes.append({'type': 'ca', 'id': 'qa-b2b%d' % k, 'guid': '0x%016x' % g,
                        'sysimgguid': '0x%016x' % g, 'vendid': 713, 'devid': 4119,
                        'desc': 'qa-b2b%d' % k, 'nports': 1, 'port_guid': None,
                        'ports': {}})
    n = len(f.nodes)
    cable(f, n - 2, 1, n - 1, 1)
    f.nodes[n - 2]['ports'][1]['guid'] = '0x%016x' % (int(f.nodes[n - 2]['guid'], 16) + 1)
    f.nodes[n - 1]['ports'][1]['guid'] = '0x%016x' % (int(f.nodes[n - 1]['guid'], 16) + 1)


def dmg_one_switch(f, rng):
    """Every host re-cabled onto one switch (as many as its ports allow;
    the others unplugged and gone): hosts only on one switch."""
    sws = f.switches()
    s = rng.choice(sws)
    hosts = [c for c in f.cas() if 1 in f.nodes[c]['ports']]
    rng.shuffle(hosts)
    for h in hosts:
        e = f.nodes[h]['ports'][1]
        if e['peer'][0] == s:
            continue
        f.unplug(h, 1)
        if f.nodes[s]['nports'] < 254:
            cable(f, h, 1, s, new_port(f, s), e['width'], e['speed'])
            f.nodes[h]['ports'][1]['guid'] = e['guid']
    f.prune()


def dmg_no_hosts(f, rng):
    """A fabric of switches only (every adapter gone)."""
    for c in f.cas():
        f.remove(c)


GENS = [(4, 'FDR'), (4, 'EDR'), (4, 'HDR'), (2, 'NDR'), (4, 'NDR'), (4, 'QDR')]


def dmg_mixgen(f, rng):
    """Every node gets a hardware generation; a link runs at what both ends do."""
    order = ['SDR', 'DDR', 'QDR', 'FDR10', 'FDR', 'EDR', 'HDR', 'NDR']
    gen = {i: rng.choice(GENS) for i, n in enumerate(f.nodes) if n}
    for i, p, j, q in f.links('ss') + f.links('host'):
        w = min(gen[i][0], gen[j][0])
        s = order[min(order.index(gen[i][1]), order.index(gen[j][1]))]
        f.set_link(i, p, w, s)


DAMAGES = {
    'healthy': lambda f, r: None,
    'cab1': lambda f, r: dmg_cables(f, r, 0.01),
    'cab5': lambda f, r: dmg_cables(f, r, 0.05),
    'cab20': lambda f, r: dmg_cables(f, r, 0.20),
    'sw1': lambda f, r: dmg_switches(f, r, 1),
    'sw3': lambda f, r: dmg_switches(f, r, 3),
    'split': dmg_split,
    'tophosts': lambda f, r: dmg_top_hosts(f, r, 3),
    'movehosts': lambda f, r: dmg_move_hosts(f, r, 3),
    'degrade': lambda f, r: dmg_degrade(f, r, 0.1),
    'mixgen': dmg_mixgen,
    'odd': dmg_odd,
    'combo': lambda f, r: (dmg_cables(f, r, 0.05), dmg_top_hosts(f, r, 2), dmg_mixgen(f, r),
                           dmg_degrade(f, r, 0.05)),
    'onesw': dmg_one_switch,
    'nohosts': dmg_no_hosts,
}

# ----------------------------------------------------------------------------
# families: (name, gen args, engines that apply, engines tried for an honest
# refusal)

FULL = [
    ('sf3', 'slimfly --q 3 --hosts 2', 'layered minimal', 'dmodk hratio'),
    ('sf4', 'slimfly --q 4 --hosts 2', 'layered minimal', ''),
    ('sf5', 'slimfly --q 5 --hosts 2', 'layered minimal', 'dmodk'),
    ('sf7', 'slimfly --q 7 --hosts 1', 'layered minimal', ''),
    ('ft4x3', 'fattree --kary 4 --n 3', 'dmodk layered minimal', 'hratio'),
    ('xgft', 'fattree --m 6,4,2 --w 1,3,2', 'dmodk layered minimal', ''),
    ('xgft-osub', 'fattree --m 12,4 --w 1,3 --parallel 2', 'dmodk layered minimal', ''),
    ('xgft-odd', 'fattree --m 5,3,3 --w 1,2,3', 'dmodk layered minimal', ''),
    ('dfly', 'dragonfly --a 4 --p 2 --h 2', 'layered minimal', 'dmodk'),
    ('dfly-g', 'dragonfly --a 3 --p 1 --h 1 --g 3', 'layered minimal', ''),
    ('hx', 'hyperx --s1 4 --s2 3 --hosts 2', 'layered minimal', 'dmodk'),
    ('hx-trunk', 'hyperx --s1 3 --s2 3 --trunk 2 --hosts 1', 'layered minimal', ''),
    ('rail-only', 'rail --servers 8 --gpus 4', 'hratio minimal layered', 'dmodk'),
    ('rail-opt', 'rail --servers 8 --gpus 4 --spines 2', 'hratio dmodk minimal layered', ''),
    ('rail-opt2', 'rail --servers 12 --gpus 2 --rail-switches 2 --spines 2 --uplinks 2',
     'hratio dmodk minimal layered', ''),
]
BIG = [
    ('sf11', 'slimfly --q 11 --hosts 2', 'layered minimal', ''),
    ('ft8x3', 'fattree --kary 8 --n 3', 'dmodk layered minimal', ''),
    ('dfly-big', 'dragonfly --a 8 --p 4 --h 4', 'layered minimal', ''),
    ('hx-big', 'hyperx --s1 8 --s2 6 --hosts 4', 'layered minimal', ''),
    ('rail-big', 'rail --servers 64 --gpus 8 --spines 4', 'hratio dmodk minimal layered', ''),
]
# sizes and shapes at the edges of what `topo gen` accepts (--edge)
EDGE = [
    ('sf3-h0', 'slimfly --q 3 --hosts 0', 'layered minimal', 'dmodk hratio'),
    ('sf4-h1', 'slimfly --q 4 --hosts 1', 'layered minimal', 'dmodk'),
    ('sf8', 'slimfly --q 8 --hosts 1', 'layered minimal', ''),
    ('sf9', 'slimfly --q 9 --hosts 1', 'layered minimal', ''),
    ('ft2x1', 'fattree --kary 2 --n 1', 'dmodk layered minimal', 'hratio'),
    ('ft3x2', 'fattree --kary 3 --n 2', 'dmodk layered minimal', 'hratio'),
    ('ft5x3', 'fattree --kary 5 --n 3', 'dmodk layered minimal', ''),
    ('ft-1sw', 'fattree --m 3 --w 1', 'dmodk layered minimal', 'hratio'),
    ('ft-1sw1h', 'fattree --m 1 --w 1', 'dmodk layered minimal', 'hratio'),
    ('xgft-21', 'fattree --m 2,1 --w 1,1', 'dmodk layered minimal', 'hratio'),
    ('xgft-p3', 'fattree --m 7,5 --w 1,3 --parallel 3', 'dmodk layered minimal', ''),
    ('dfly-a1', 'dragonfly --a 1 --p 1 --h 1', 'layered minimal', 'dmodk'),
    ('dfly-h0', 'dragonfly --a 2 --p 1 --h 0', 'layered minimal', 'dmodk'),
    ('dfly-g1', 'dragonfly --a 2 --p 1 --h 1 --g 1', 'layered minimal', 'dmodk'),
    ('dfly-g2', 'dragonfly --a 2 --p 1 --h 1 --g 2', 'layered minimal', 'dmodk'),
    ('hx11', 'hyperx --s1 1 --s2 1', 'layered minimal', 'dmodk hratio'),
    ('hx21', 'hyperx --s1 2 --s2 1', 'layered minimal', 'dmodk hratio'),
    ('tor2', 'torus --dims 2', 'layered minimal', 'dmodk hratio'),
    ('tor3-mesh', 'torus --dims 3 --mesh', 'layered minimal', 'dmodk'),
    ('tor2x6', 'torus --dims 2,2,2,2,2,2', 'layered minimal', 'dmodk'),
    ('tor5x3', 'torus --dims 5,3 --hosts 2', 'layered minimal', 'dmodk'),
    ('ring9', 'torus --dims 9', 'layered minimal', 'dmodk'),
    ('rail11', 'rail --servers 1 --gpus 1', 'hratio minimal layered', 'dmodk'),
    ('rail11-s', 'rail --servers 1 --gpus 1 --spines 1', 'hratio dmodk minimal layered', ''),
    ('rail2x3', 'rail --servers 2 --gpus 3 --spines 1 --uplinks 3',
     'hratio dmodk minimal layered', ''),
]
# shapes no other list has (--shapes): 4- and 5-level trees (tapered, with
# bundles), odd host counts, odd GPU counts, prime-power Slim Flies with
# several hosts
SHAPES = [
    ('sf8-h3', 'slimfly --q 8 --hosts 3', 'layered minimal', ''),
    ('sf9-h2', 'slimfly --q 9 --hosts 2 --hosts-first', 'layered minimal', ''),
    ('xgft4', 'fattree --m 3,2,2,2 --w 1,2,2,2', 'dmodk layered minimal', 'hratio'),
    ('xgft4-taper', 'fattree --m 5,3,2,2 --w 1,2,1,2', 'dmodk layered minimal', ''),
    ('xgft4-par', 'fattree --m 3,3,2,2 --w 1,2,2,1 --parallel 2', 'dmodk layered minimal', ''),
    ('ft3x4', 'fattree --kary 3 --n 4', 'dmodk layered minimal', ''),
    ('xgft5', 'fattree --m 2,2,2,2,2 --w 1,2,1,2,1', 'dmodk layered minimal', ''),
    ('dfly-odd', 'dragonfly --a 5 --p 3 --h 1', 'layered minimal', 'dmodk'),
    ('dfly-g5', 'dragonfly --a 3 --p 3 --h 2 --g 5', 'layered minimal', ''),
    ('hx-odd', 'hyperx --s1 5 --s2 1 --trunk 3 --hosts 3', 'layered minimal', ''),
    ('tor333', 'torus --dims 3,3,3 --hosts 3', 'layered minimal', 'dmodk'),
    ('mesh52', 'torus --dims 5,2 --mesh --hosts 5', 'layered minimal', ''),
    ('rail-g5', 'rail --servers 7 --gpus 5 --spines 3', 'hratio dmodk minimal layered', ''),
    ('rail-g7', 'rail --servers 3 --gpus 7 --rail-switches 2 --spines 1 --uplinks 3',
     'hratio dmodk minimal layered', ''),
    ('rail-only3', 'rail --servers 5 --gpus 3', 'hratio minimal layered', 'dmodk'),
]
QUICK = ['sf3', 'xgft-odd', 'rail-opt', 'hx']
QUICK_DAMAGES = ['cab20', 'sw1', 'split', 'tophosts', 'odd', 'combo']


INPUT_DUMPS = ['sdr-mt43132-1switch-2hosts-2009.ibnetdiscover',
               'fdr10-qdr-sx6036-8sw-2014.ibnetdiscover',
               'edr-osc-excerpt.ibnetdiscover-p',
               # ConnectX-7 ports whose GUID is the node GUID (an Hca
               # spelling once turned them into node GUID + 1)
               'ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover']
# damaged text: refused, naming the file and the line
MUST_REFUSE = {'trail-garbage', 'trail-nul', 'nul-inside', 'port-300', 'port-0', 'nports-0',
               'speed-4xFOO', 'speed-3xQDR', 'desc-unterminated', 'guid-17-digits',
               'lid-70000', 'lmc-9', 'self-cable'}
# the same fabric spelled otherwise: the original's tables
SAME_TABLES = {'crlf', 'no-final-newline', 'hca', 'tabs-to-spaces', 'wide-blanks',
               'desc-quotes', 'desc-utf8'}


def dump_variants(txt):
    """{name: text}: one real dump changed one way each (names above and
    below; a change the text has no place for is left out)."""
    V = {'orig': txt, 'crlf': txt.replace('\n', '\r\n'), 'no-final-newline': txt.rstrip('\n'),
         'trail-garbage': txt + '\nthis is not ibnetdiscover output\n',
         'trail-nul': txt + '\n\x00\x01 junk\n',
         'nul-inside': txt[:len(txt) // 2] + '\x00' + txt[len(txt) // 2:],
         'cut-half': txt[:len(txt) // 2], 'cut-third': txt[:len(txt) // 3],
         'tabs-to-spaces': txt.replace('\t', ' '), 'wide-blanks': txt.replace('\t', '   ')}

    def sub(name, pat, rep, count=1, flags=re.M):
        t = re.sub(pat, rep, txt, count=count, flags=flags)
        if t != txt:
            V[name] = t
    sub('sw-lid0', r'(base|enhanced) port 0 lid \d+', r'\1 port 0 lid 0')
    sub('all-lid0', r' lid \d+', ' lid 0', 0)
    sub('hca', r'^Ca(\s)', r'Hca\1', 0)
    sub('router', r'^Ca(\s)(.*)\n\[(\d+)\]\(([0-9a-f]+)\)\s+"(S-[0-9a-f]+)"\[(\d+)\]',
        lambda m: m.group(0).replace('Ca', 'Rt', 1))
    for sp in ('4xXDR', '2xNDR', '1xNDR', '8xNDR', '12xEDR', '4xFOO', '3xQDR'):
        sub('speed-' + sp, r'\b(\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR)\b', sp, 0)
    sub('desc-quotes', r'# "([^"]*)"', lambda m: '# "%s \\"q\\" x y"' % m.group(1), 5)
    sub('desc-empty', r'# "([^"]*)"', '# ""', 0)
    sub('desc-utf8', r'# "([^"]*)"', lambda m: '# "%s \u00e9\u2713"' % m.group(1), 3)
    sub('desc-unterminated', r'# "([^"]*)"', lambda m: '# "%s' % m.group(1))
    sub('desc-1500', r'# "([^"]*)"', lambda m: '# "%s"' % ('d' * 1500))
    g = re.findall(r'^switchguid=0x([0-9a-f]+)', txt, re.M)
    if len(g) >= 2:
        V['dup-switch-guid'] = txt.replace('switchguid=0x%s' % g[1], 'switchguid=0x%s' % g[0])
        V['dup-switch-id'] = txt.replace(g[1], g[0])
    sub('missing-switch', r'^(\[\d+\]\s+)"S-[0-9a-f]+"', r'\1"S-dead00000000beef"')
    sub('missing-host', r'^(\[\d+\]\s+)"H-[0-9a-f]+"', r'\1"H-dead00000000beef"')
    sub('one-sided', r'^(\[\d+\]\s+"S-[0-9a-f]+")\[(\d+)\]',
        lambda m: '%s[%d]' % (m.group(1), int(m.group(2)) + 1))
    sub('port-300', r'^\[(\d+)\]', '[300]')
    sub('port-0', r'^\[(\d+)\]', '[0]')
    sub('nports-0', r'^Switch\s+\d+', 'Switch\t0')
    sub('guid-17-digits', r'switchguid=0x([0-9a-f]+)', r'switchguid=0x1\1ffff')
    # not in a progress line of ibnetdiscover -s (read past: it carries
    # nothing the report does not)
    sub('lid-70000', r'^((?!DR path ).*?) lid (\d+)', r'\1 lid 70000')
    sub('lmc-9', r' lmc 0', ' lmc 9')
    sub('lmc-2', r' lmc 0', ' lmc 2', 0)
    m = re.search(r'^Switch\s+\d+\s+"(S-[0-9a-f]+)"', txt, re.M)
    if m:
        sub('self-cable', r'^\[(\d+)\]\s+"S-[0-9a-f]+"\[(\d+)\]',
            lambda mm: '[%s]\t"%s"[%s]' % (mm.group(1), m.group(1), mm.group(1)))
    return V


def by_switch(path):
    """An ibfab SL or SL2VL dump as {switch GUID: sorted rows}, so two dumps
    that list the switches in another order compare equal."""
    out, cur = {}, None
    for line in open(path, errors='replace'):
        m = re.match(r'(?:Source switch|Switch) guid (0x[0-9a-f]+)', line)
        if m:
            cur = out.setdefault(m.group(1), [])
        elif cur is not None and line.strip() and not line.startswith('#'):
            cur.append(line.strip())
    return {k: sorted(v) for k, v in out.items()}


class Sweep:
    def __init__(self, a):
        self.a = a
        self.ibfab = a.ibfab
        self.fails = []
        self.notes = []
        self.runs = 0
        self.routes_ok = 0
        self.routes_refused = 0
        self.cur_hosts = 0

    def run(self, args, timeout=None, cwd=None):
        self.runs += 1
        t = timeout or self.a.timeout
        try:
            p = subprocess.run([self.ibfab] + args, capture_output=True, text=True,
                               timeout=t, cwd=cwd, errors='replace')
        except subprocess.TimeoutExpired:
            return None, '', 'TIMEOUT after %ds' % t
        return p.returncode, p.stdout, p.stderr

    def fail(self, case, what, detail=''):
        line = 'FAIL %s: %s' % (case, what)
        if detail:
            line += '\n     ' + detail.strip().replace('\n', '\n     ')[:1500]
        print(line, flush=True)
        self.fails.append(line)

    def checked(self, case, args, rc, out, err, ok=(0,)):
        """Common checks of one run; returns True when rc is in ok."""
        cmd = 'ibfab ' + ' '.join(args)
        if rc is None:
            self.fail(case, 'hang: ' + cmd)
            return False
        if SANITIZER.search(err) or SANITIZER.search(out):
            self.fail(case, 'sanitizer/crash report: ' + cmd, err[-1500:])
            return False
        if rc < 0 or rc > 2:
            self.fail(case, 'exit %d (signal or odd status): %s' % (rc, cmd), err[-800:])
            return False
        if rc not in ok:
            self.fail(case, 'exit %d: %s' % (rc, cmd), err[-800:])
            return False
        return True

    # --------------------------------------------------------------- routes
    def route(self, case, topo, d, engine, lmc, scheme, vls, expect_ok, extra=(), prev=()):
        o = os.path.join(d, 'l')
        sl = os.path.join(d, 'sl')
        s2v = os.path.join(d, 's2v')
        st = os.path.join(d, 'stats.json')
        for p in (o, sl, s2v, st):
            with open(p, 'w') as fh:
                fh.write(SENTINEL)
        before = set(os.listdir(d))
        args = ['route', '--topology', topo, '--engine', engine, '--lmc', str(lmc),
                '--seed', str(self.a.seed), '-o', o, '--stats', st] + list(extra) + list(prev)
        if scheme != 'none':
            args += ['--deadlock', scheme, '--max-vls', str(vls), '--sl', sl, '--sl2vl', s2v]
        rc, out, err = self.run(args + ['--threads', '1'])
        if not self.checked(case, args, rc, out, err, ok=(0, 1)):
            return None
        after = set(os.listdir(d))
        if after != before:
            self.fail(case, 'files left behind: %s' % sorted(after - before))
        files = [o, st] + ([sl, s2v] if scheme != 'none' else [])
        if rc != 0:
            self.routes_refused += 1
            msg = err.strip().splitlines()[-1] if err.strip() else ''
            for p in files:
                if open(p, errors='replace').read() != SENTINEL:
                    self.fail(case, 'failed run changed %s: %s' % (os.path.basename(p),
                                                                  ' '.join(args)))
            if not msg:
                self.fail(case, 'exit 1 without a message: ' + ' '.join(args))
            elif expect_ok is True:
                self.fail(case, 'refused a connected fabric: ' + ' '.join(args), err)
            else:
                self.notes.append('%s: refused: %s' % (case, msg))
            return None
        self.routes_ok += 1
        if expect_ok is False:
            self.fail(case, 'routed a fabric whose switch graph is in pieces: ' +
                      ' '.join(args), err)
        try:
            json.load(open(st, errors='replace'))
        except ValueError as e:
            self.fail(case, '--stats is not valid JSON: %s' % e)
        res = {p: open(p, 'rb').read() for p in files}
        for p, b in res.items():
            if b == SENTINEL.encode():
                self.fail(case, '%s not written on success' % os.path.basename(p))
        # same seed, two threads: byte-identical
        rc2, out2, err2 = self.run(args + ['--threads', '2'])
        if self.checked(case, args + ['--threads', '2'], rc2, out2, err2):
            for p in files:
                if open(p, 'rb').read() != res[p]:
                    self.fail(case, '%s differs between --threads 1 and 2: %s' % (
                        os.path.basename(p), ' '.join(args)))
        return err

    def verify(self, case, topo, d, lmc, scheme, vls, extra=()):
        o, sl, s2v = (os.path.join(d, x) for x in ('l', 'sl', 's2v'))
        args = ['route', 'check', '--topology', topo, '--lmc', str(lmc), '--lfts', o] + list(extra)
        rc, out, err = self.run(args)
        self.checked(case, args, rc, out, err)
        if scheme == 'none':
            return
        args = ['deadlock', 'verify', '--topology', topo, '--lmc', str(lmc), '--lfts', o,
                '--sl', sl, '--sl2vl', s2v, '-q'] + list(extra)
        rc, out, err = self.run(args)
        self.checked(case, args, rc, out, err)
        # VL budget: every SL2VL entry is a data VL below the budget
        used = set()
        for line in open(s2v, errors='replace'):
            if line.startswith('ports:'):
                used.update(int(x) for x in line.split(':', 2)[2].split('|')[1:-1])
        if used and max(used) >= vls:
            self.fail(case, 'SL2VL uses VL %d with --max-vls %d' % (max(used), vls))
        hdr = open(sl, errors='replace').readline()
        if 'deadlock-free' not in hdr or 'NOT' in hdr:
            self.fail(case, 'SL dump header does not say deadlock-free: ' + hdr.strip())

    def simulate(self, case, topo, d, lmc, scheme, vls, pieces=1):
        o, sl, s2v = (os.path.join(d, x) for x in ('l', 'sl', 's2v'))
        base = ['sim', 'flow', '--topology', topo, '--lmc', str(lmc), '--lfts', o,
                '--pattern', 'shift:1', '--pattern', 'a2a', '--seed', '3', '--json']
        # between switch pieces (hratio) no table can deliver: an error
        # that says so
        if not self.same_for_threads(case, 'sim flow', base, (0,) if pieces == 1 else (0, 1),
                                     r'"(seconds|time_s|elapsed[a-z_]*)": [0-9.e+-]+',
                                     exit1_says='not delivered'):
            return
        args = ['sim', 'packet', '--topology', topo, '--lmc', str(lmc), '--lfts', o,
                '--loads', '0.3:0.9:0.3', '--warmup', '1us', '--measure', '3us',
                '--drain', '3us', '--seed', '5', '--json']
        if scheme != 'none':
            args += ['--sl', sl, '--sl2vl', s2v, '--vls', str(vls)]
        # exit 1 = a run deadlocked: allowed without a scheme only
        self.same_for_threads(case, 'sim packet', args, (0,) if scheme != 'none' else (0, 1),
                              r'"wall_s":[0-9.e+-]+')
        # the ring all-reduce as message streams, each rank on its own
        # dependencies, iSLIP: every host finishes every step (packets
        # dropped as unroutable count as in), unless the routes deadlock
        args = ['sim', 'packet', '--topology', topo, '--lmc', str(lmc), '--lfts', o,
                '--traffic', 'ring', '--streams', '--sync', 'rank', '--bytes', '2k',
                '--islip-iters', '2', '--load', '1.0', '--warmup', '0us', '--measure', '2ms',
                '--seed', '5', '--json', '-q']
        if scheme != 'none':
            args += ['--sl', sl, '--sl2vl', s2v, '--vls', str(vls)]
        rc, out, err = self.run(args)
        if self.checked(case, args, rc, out, err, ok=(0,) if scheme != 'none' else (0, 1)) \
                and rc == 0:
            try:
                st = json.loads(out)['runs'][0]['streams']
            except (ValueError, KeyError, IndexError):
                self.fail(case, 'no streams JSON: ' + ' '.join(args))
                return
            if st['host_steps_min'] != st['steps'] or st['total_us'] < 0:
                self.fail(case, 'ring per rank did not finish (%d of %d steps): %s' % (
                    st['host_steps_min'], st['steps'], ' '.join(args)))

    def same_for_threads(self, case, what, base, ok, timing, exit1_says=None):
        """base with --threads 1 and 2: an exit code in ok, JSON on stdout,
        and the same output for both once the timings (regex) are cut out.
        exit1_says: exit 1 must name it on stderr, and leaves no output to
        compare.  False when a run failed or exited 1 (nothing compared)."""
        outs = []
        for t in ('1', '2'):
            args = base + ['--threads', t]
            rc, out, err = self.run(args)
            if not self.checked(case, args, rc, out, err, ok=ok):
                return False
            if rc == 1 and exit1_says:
                if exit1_says not in err:
                    self.fail(case, '%s exit 1 without naming the flows' % what, err)
                return False
            try:
                json.loads(out)
            except ValueError as e:
                self.fail(case, '%s --json is not valid JSON: %s' % (what, e))
            outs.append(re.sub(timing, '', out))
        if outs[0] != outs[1]:
            self.fail(case, '%s output differs between --threads 1 and 2: %s' %
                      (what, ' '.join(base)))
        return True

    def same_tables(self, case, f, d, engine, g2l):
        """With the same LIDs, the tables do not depend on the order of the
        records in the file nor on its format (ibnetdiscover, ibsim)."""
        topo = os.path.join(d, 'fabric.ibnd')
        shuf = os.path.join(d, 'shuffled.ibnd')
        net = os.path.join(d, 'fabric.net')
        f.write_ibnd(shuf, random.Random(7))
        args = ['topo', 'convert', shuf, '--format', 'ibsim', '-o', net]
        rc, out, err = self.run(args)
        if not self.checked(case, args, rc, out, err):
            return
        dumps, slv, sims = [], [], []
        for t in (topo, shuf, net):
            o = os.path.join(d, 'order-%d' % len(dumps))
            args = ['route', '--topology', t, '--guid2lid', g2l, '--lmc', '2', '--engine', engine,
                    '--deadlock', 'auto', '-o', o, '--sl', o + '.sl', '--sl2vl', o + '.s2v']
            rc, out, err = self.run(args)
            if not self.checked(case, args, rc, out, err, ok=(0, 1)) or rc:
                return
            dumps.append(o)
            slv.append((by_switch(o + '.sl'), by_switch(o + '.s2v')))
            if self.cur_hosts < 2:
                sims.append((None, []))  # nothing to simulate
                continue
            # the simulators on the first file's tables, over each input
            args = ['sim', 'packet', '--topology', t, '--guid2lid', g2l, '--lmc', '2',
                    '--lfts', dumps[0], '--sl', dumps[0] + '.sl', '--sl2vl', dumps[0] + '.s2v',
                    '--load', '0.6', '--warmup', '1us', '--measure', '3us', '--json']
            rc, out, err = self.run(args)
            if not self.checked(case, args, rc, out, err):
                return
            res = json.loads(out)
            for run in res['runs']:
                run['result'].pop('wall_s', None)
            args = ['route', 'congestion', '--topology', t, '--guid2lid', g2l, '--lmc', '2',
                    '--lfts', dumps[0], '--pattern', 'perm']
            rc, cout, err = self.run(args)
            # exit 1: flows no table can deliver (pieces), with a warning
            if not self.checked(case, args, rc, cout, err, ok=(0, 1)):
                return
            if rc == 1 and 'not delivered' not in cout + err:
                self.fail(case, 'route congestion exit 1 without saying why')
            if '4294967295' in cout:
                self.fail(case, 'route congestion prints an unset bound: ' +
                          [x for x in cout.splitlines() if '4294967295' in x][0].strip())
            sims.append((res, [x for x in cout.splitlines() if 'tables:' not in x]))
        for k, o in enumerate(dumps[1:], 1):
            args = ['route', 'diff', '--topology', topo, '--guid2lid', g2l, '--lmc', '2',
                    '--lfts', dumps[0], '--lfts2', o]
            rc, out, err = self.run(args)
            what = ('shuffled records', 'ibsim format')[k - 1]
            if self.checked(case, args, rc, out, err, ok=(0, 1)) and \
                    not out.startswith('0 of '):
                self.fail(case, '%s tables differ with %s: %s' %
                          (engine, what, out.splitlines()[0] if out else err))
            if slv[k][0] != slv[0][0] or slv[k][1] != slv[0][1]:
                self.fail(case, '%s SLs or SL2VL tables differ with %s' % (engine, what))
            if sims[k][0] != sims[0][0]:
                self.fail(case, 'sim packet differs with %s' % what)
            if sims[k][1] != sims[0][1]:
                self.fail(case, 'route congestion differs with %s' % what)

    def stale(self, case, topo, d, lfts, g2l):
        """Tables made for the healthy fabric, read against the damaged one
        (what dump_lfts gives right after a failure): every tool reports or
        refuses, none crashes or hangs."""
        g = ['--guid2lid', g2l, '--lmc', '2']
        runs = [
            ['route', 'check', '--topology', topo, '--lfts', lfts] + g,
            ['route', 'stats', '--topology', topo, '--lfts', lfts, '--json'] + g,
            ['deadlock', 'apply', '--topology', topo, '--lfts', lfts, '--scheme', 'auto',
             '--sl', os.path.join(d, 'stale.sl'), '--sl2vl', os.path.join(d, 'stale.s2v'),
             '--verify'] + g,
            ['sim', 'flow', '--topology', topo, '--lfts', lfts, '--pattern', 'a2a'] + g,
            ['sim', 'packet', '--topology', topo, '--lfts', lfts, '--load', '0.5', '--warmup',
             '1us', '--measure', '2us', '--drain', '2us', '-q'] + g,
        ]
        for args in runs:
            rc, out, err = self.run(args)
            if self.checked(case + ' stale', args, rc, out, err, ok=(0, 1)) and rc == 1 and \
                    not err.strip() and 'unreachable' not in out and 'deadlock' not in out:
                self.fail(case + ' stale', 'exit 1 without saying why: ' + ' '.join(args))

    def stable(self, case, gen, hf, f, d, engines, connected):
        """Stable reroute: tables of the healthy fabric as --previous-lfts for
        the damaged one, LIDs of both from one guid2lid file."""
        g2l = os.path.join(d, 'guid2lid')
        htopo = os.path.join(d, 'healthy.ibnd')
        hf.write_ibnd(htopo)
        rc, out, err = self.run(['topo', 'gen'] + gen.split() + ['--lmc', '2', '--format', 'json'])
        if rc != 0:
            self.fail(case, 'topo gen --lmc 2 failed', err)
            return
        lines, top = [], 0
        known = set()
        for n in json.loads(out)['nodes']:
            if n['type'] == 'switch':
                lines.append('%s %d %d' % (n['port_guid'], n['lid'], n['lid']))
                known.add(int(n['port_guid'], 16))
                top = max(top, n['lid'])
            for p in n['ports']:
                if 'lid' in p and n['type'] != 'switch':
                    lines.append('%s %d %d' % (p['guid'], p['lid'], p['lid'] + 3))
                    known.add(int(p['guid'], 16))
                    top = max(top, p['lid'] + 3)
        # ports the damage added get LIDs above the others
        for i in f.cas():
            for pn, e in sorted(f.nodes[i]['ports'].items()):
                if e.get('guid') and int(e['guid'], 16) not in known:
                    top = (top + 4) & ~3
                    lines.append('%s %d %d' % (e['guid'], top, top + 3))
                    top += 3
        with open(g2l, 'w') as fh:
            fh.write('\n'.join(lines) + '\n')
        topo = os.path.join(d, 'fabric.ibnd')
        self.same_tables(case, f, d, engines.split()[0], g2l)
        for e in engines.split():
            hl = os.path.join(d, 'healthy-' + e)
            args = ['route', '--topology', htopo, '--guid2lid', g2l, '--lmc', '2', '--engine', e,
                    '--seed', str(self.a.seed), '-o', hl]
            rc, out, err = self.run(args)
            # the healthy fabric may itself be in pieces (rail-only)
            if not self.checked(case, args, rc, out, err, ok=(0, 1)) or rc:
                continue
            self.stale(case + ' ' + e, topo, d, hl, g2l)
            c = '%s %s stable' % (case, e)
            ok = True if e == 'hratio' else connected
            if e == 'dmodk' and self.cur_hosts == 0:
                ok = None  # no leaves to find the levels from: may refuse
            if self.route(c, topo, d, e, 2, 'auto', 8, ok, extra=['--guid2lid', g2l],
                          prev=['--previous-lfts', hl, '--previous-topology', htopo]) is None:
                continue
            self.verify(c, topo, d, 2, 'auto', 8, extra=['--guid2lid', g2l])

    # -------------------------------------------------------------- fabrics
    def fabric(self, fam, gen, engines, refusals, dname, d):
        case = '%s/%s' % (fam, dname)
        args = ['topo', 'gen'] + gen.split() + ['--format', 'json']
        rc, out, err = self.run(args)
        if not self.checked(case, args, rc, out, err):
            return
        genout = out
        f = Fabric(json.loads(genout))
        rng = random.Random('%s/%s/%d' % (fam, dname, self.a.seed))
        DAMAGES[dname](f, rng)
        topo = os.path.join(d, 'fabric.ibnd')
        f.write_ibnd(topo)
        comps = f.components()
        connected = len(comps) == 1
        # pieces no table can join: switch components, and adapters cabled
        # to no switch (hosts back to back)
        pieces = len(comps) + any(
            all(f.nodes[e['peer'][0]]['type'] != 'switch' for e in f.nodes[c]['ports'].values())
            for c in f.cas())
        # ports that can send to another (a simulation needs two)
        hosts = sum(1 for c in f.cas() for e in f.nodes[c]['ports'].values()
                    if f.nodes[e['peer'][0]]['type'] == 'switch')
        self.cur_hosts = hosts
        rc, iout, err = self.run(['topo', 'info', topo])
        if not self.checked(case, ['topo', 'info', topo], rc, iout, err):
            return
        if 'hratio' in engines.split():
            rc, rout, err = self.run(['rail', 'info', topo])
            self.checked(case, ['rail', 'info', topo], rc, rout, err)
        # a second run of the generator is byte-identical
        rc2, out2, _ = self.run(args)
        if rc2 != 0 or out2 != genout:
            self.fail(case, 'topo gen output differs between two runs')
        plans = []
        for e in engines.split():
            if e == 'layered':
                plans += [(e, 0, 'auto', 8), (e, 1, 'dfsssp', 8), (e, 2, 'auto', 8),
                          (e, 2, 'coloring', 4), (e, 1, 'auto', 2), (e, 0, 'none', 8)]
            elif e == 'minimal':
                plans += [(e, 0, 'dfsssp', 8), (e, 1, 'coloring', 8), (e, 0, 'auto', 1)]
            elif e == 'dmodk':
                plans += [(e, 0, 'auto', 8), (e, 1, 'dfsssp', 2), (e, 2, 'none', 8)]
            elif e == 'hratio':
                plans += [(e, 0, 'auto', 8), (e, 1, 'dfsssp', 4), (e, 2, 'coloring', 2)]
        if self.a.quick:
            plans = plans[::2]
        if self.a.wide:
            # every engine x scheme x VL budget, LMC 0 and 3 (offline)
            plans = [(e, lmc, sc, v) for e in engines.split() for lmc in (0, 3)
                     for sc in ('none', 'dfsssp', 'coloring', 'auto')
                     for v in ((8,) if sc == 'none' else (1, 2, 4, 8))]
        for e, lmc, scheme, vls in plans:
            c = '%s %s lmc%d %s/%d' % (case, e, lmc, scheme, vls)
            # hratio routes every switch component on its own (rail-only
            # clusters are in pieces by design; docs/rail.md)
            ok = True if e == 'hratio' else connected
            if e == 'dmodk' and hosts == 0:
                ok = None  # no leaves to find the levels from: may refuse
            err = self.route(c, topo, d, e, lmc, scheme, vls, ok)
            if err is None:
                continue
            self.verify(c, topo, d, lmc, scheme, vls)
            if e == 'hratio' and hosts > 1:
                # same-rail paths stay in their rail, every GPU pair delivered
                args = ['rail', 'check', topo, '--lmc', str(lmc), '--lfts', os.path.join(d, 'l')]
                rc, out, err = self.run(args)
                self.checked(c, args, rc, out, err)
            if not self.a.no_sim and hosts > 1:
                self.simulate(c, topo, d, lmc, scheme, vls, pieces)
        if dname != 'healthy' and (not self.a.quick or dname == 'combo'):
            hf = Fabric(json.loads(genout))
            self.stable(case, gen, hf, f, d, engines, connected)
        for e in refusals.split():
            # an engine for another family: a clean refusal or correct tables
            c = '%s %s (foreign)' % (case, e)
            err = self.route(c, topo, d, e, 0, 'auto', 8,
                             None if connected or e == 'hratio' else False)
            if err is not None:
                self.verify(c, topo, d, 0, 'auto', 8)

    # ----------------------------------------------------- dump variants
    def inputs(self, work):
        """Text variants of real ibnetdiscover dumps (tests/fixtures/real):
        line ends, node types, speeds, quoting, GUIDs and LIDs, damaged
        text.  A variant must be read, or refused with FILE:LINE; one that
        is read goes through every engine, and the tables any engine writes
        pass route check and (with SLs) deadlock verify; variants that
        change only the spelling give the tables of the original."""
        real = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests',
                            'fixtures', 'real')
        for base in INPUT_DUMPS:
            txt = open(os.path.join(real, base), encoding='latin1').read()
            for name, t in dump_variants(txt).items():
                case = 'inputs/%s/%s' % (base.split('-')[0], name)
                d = os.path.join(work, 'inputs', base, name)
                os.makedirs(d, exist_ok=True)
                n0 = len(self.fails)
                self.one_input(case, d, t, name)
                print('%-12s %-22s %s' % ('inputs', base[:10] + '/' + name,
                                          'ok' if len(self.fails) == n0 else
                                          '%d failure(s)' % (len(self.fails) - n0)), flush=True)

    def one_input(self, case, d, t, name):
        topo = os.path.join(d, 'f.ibnd')
        with open(topo, 'w', encoding='latin1', errors='replace', newline='') as fh:
            fh.write(t)
        args = ['topo', 'info', topo]
        rc, out, err = self.run(args)
        if not self.checked(case, args, rc, out, err, ok=(0, 1)):
            return
        if name in MUST_REFUSE:
            if rc != 1 or not re.search(re.escape(topo) + r':[0-9]+: ', err):
                self.fail(case, 'damaged text read, or refused without FILE:LINE (exit %d)' % rc,
                          err)
            return
        if rc:
            if topo + ':' not in err:
                self.fail(case, 'refused without naming the file', err)
            return
        hosts = len(re.findall(r'^(Ca|Hca)\s', t, re.M))
        for e, scheme in (('layered', 'auto'), ('layered', 'dfsssp'), ('minimal', 'coloring'),
                          ('dmodk', 'auto'), ('hratio', 'auto')):
            c = '%s %s/%s' % (case, e, scheme)
            if self.route(c, topo, d, e, 1, scheme, 8, None) is None:
                continue
            self.verify(c, topo, d, 1, scheme, 8)
            if hosts > 1:
                args = ['sim', 'flow', '--topology', topo, '--lmc', '1', '--lfts',
                        os.path.join(d, 'l'), '--pattern', 'a2a']
                rc, out, err = self.run(args)
                # hratio routes pieces (a split node): flows between them
                # are refused, naming them
                if self.checked(c, args, rc, out, err, ok=(0, 1)) and rc == 1 and \
                        'not delivered' not in err:
                    self.fail(c, 'sim flow exit 1 without naming the flows', err)
        if name in SAME_TABLES:
            orig = os.path.join(d, '..', 'orig', 'f.ibnd')
            mine, theirs = os.path.join(d, 'm.lfts'), os.path.join(d, 'o.lfts')
            rcs = []
            for tp, o in ((topo, mine), (orig, theirs)):
                # hratio: also a fabric in pieces (an excerpt of a dump)
                rc, out, err = self.run(['route', '--topology', tp, '--engine', 'hratio',
                                         '-o', o])
                rcs.append(rc)
            if rcs[0] != rcs[1]:
                self.fail(case, 'routes where the original does not, or the other way round')
            if rcs != [0, 0]:
                return
            args = ['route', 'diff', '--topology', orig, '--lfts', theirs, '--lfts2', mine]
            rc, out, err = self.run(args)
            if self.checked(case, args, rc, out, err, ok=(0, 1)) and not out.startswith('0 of '):
                self.fail(case, 'tables differ from the original dump\'s: ' +
                          (out.splitlines() or [err])[0])

    def main(self):
        fams = FULL + (BIG if self.a.big else []) + (EDGE if self.a.edge else []) + \
            (SHAPES if self.a.shapes else [])
        if self.a.only:
            fams = [x for x in FULL + BIG + EDGE + SHAPES if x[0] in self.a.only.split(',')]
        elif self.a.quick:
            fams = [x for x in FULL if x[0] in QUICK]
        damages = self.a.damages.split(',') if self.a.damages else (
            QUICK_DAMAGES if self.a.quick else list(DAMAGES))
        work = self.a.workdir or tempfile.mkdtemp(prefix='qa-sweep.')
        os.makedirs(work, exist_ok=True)
        try:
            if self.a.inputs:
                self.inputs(work)
            for fam, gen, engines, refusals in fams:
                for dname in damages:
                    d = os.path.join(work, fam, dname)
                    os.makedirs(d, exist_ok=True)
                    n0 = len(self.fails)
                    self.fabric(fam, gen, engines, refusals, dname, d)
                    print('%-12s %-9s %s' % (fam, dname, 'ok' if len(self.fails) == n0
                                             else '%d failure(s)' % (len(self.fails) - n0)),
                          flush=True)
        finally:
            if not self.a.keep and not self.a.workdir:
                shutil.rmtree(work, ignore_errors=True)
        if self.a.verbose:
            for n in self.notes:
                print('note', n)
        print('qa-sweep: %d ibfab runs, %d routed, %d refused (split fabrics), %d failure(s)' %
              (self.runs, self.routes_ok, self.routes_refused, len(self.fails)))
        return 1 if self.fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ibfab', default='ibfab')
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--big', action='store_true', help='also Slim Fly q=11 and larger trees, '
                    'dragonfly, HyperX and rail clusters (slow)')
    ap.add_argument('--edge', action='store_true', help='also fabrics at the edges of what '
                    'topo gen accepts (one switch, two, no hosts, Slim Fly q=4, 8, 9, ...)')
    ap.add_argument('--inputs', action='store_true', help='also text variants of real '
                    'ibnetdiscover dumps (CRLF, Hca/Rt, NDR/XDR, quotes, duplicate GUIDs, '
                    'damaged text)')
    ap.add_argument('--shapes', action='store_true', help='also 4- and 5-level trees, odd '
                    'host and GPU counts, Slim Fly q=8 and 9 with several hosts')
    ap.add_argument('--wide', action='store_true', help='every engine x deadlock scheme x '
                    '1, 2, 4, 8 VLs at LMC 0 and 3 instead of the usual plans (slow)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--only', help='families, comma-separated')
    ap.add_argument('--damages', help='damages, comma-separated: ' + ','.join(DAMAGES))
    ap.add_argument('--timeout', type=int, default=120)
    ap.add_argument('--workdir')
    ap.add_argument('--keep', action='store_true')
    ap.add_argument('--no-sim', action='store_true')
    ap.add_argument('-v', '--verbose', action='store_true')
    return Sweep(ap.parse_args()).main()


if __name__ == '__main__':
    sys.exit(main())
