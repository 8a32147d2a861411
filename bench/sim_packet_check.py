#!/usr/bin/env python3
"""Physical invariants of `ibfab sim packet` over a grid of fabrics and options.

Generated fabrics (fat trees even and uneven, HyperX, a rail cluster) and
real dumps (the PlaFRIM Voltaire/Mellanox fabric with its own ibroute tables,
the 2007 SDR fabric with 1x links), the fabric simulation with both
arbiters, iSLIP, VLs from the deadlock module, small buffers and packets,
pattern traffic, message streams and the node model.  Checked on every run:

  * utilisation of every directed link (--link-util) and per VL in [0, 1],
    the busiest switch link in the JSON = the CSV's;
  * accepted in [0, 1] of the injection capacity and accepted_gbps = accepted
    x capacity x payload share; accepted <= offered + 0.05 (windows of 50 us
    or more); packet counts consistent (delivered + dropped <= generated,
    measured delivered <= measured); p50 <= p99 <= max, mean <= max;
  * no deadlock with tables from the deadlock module; something moved;
  * node model: intra + inter <= the accelerators' capacity, inter <= the
    fabric's; with every message leaving its node the seven components sum
    to the mean latency;
  * the same seed twice gives the same JSON; 1 and 2 threads too;
  * a window shorter than one packet on 4xSDR: accepted and every link <= 1;
  * message streams: accepted_gbps x the run's time = the payload carried;
  * node model: a buffer smaller than its largest fabric packet is refused;
  * at a tiny load the mean latency and switch hops match the zero-load
    values computed here from the tables (cables, router delay, the
    serialisation of each path's slowest link, averaged over the 2^LMC
    LIDs of each destination as the simulator draws them) within 5 %.

usage: bench/sim_packet_check.py --ibfab build/ibfab [--fixtures tests/fixtures]
One line per finding; exit 1 when anything failed.  About 20 s.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

RATE = {'SDR': 2, 'DDR': 4, 'QDR': 8, 'FDR10': 10, 'FDR': 13.6, 'EDR': 25, 'HDR': 50,
        'NDR': 100, 'XDR': 200}  # Gb/s per lane, as the simulator takes them
bad = []


def run(ib, args, tmp):
    lu = os.path.join(tmp, 'lu.csv')
    p = subprocess.run([ib, 'sim', 'packet', '--json', '--link-util', lu, '-q'] + args,
                       capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1) or not p.stdout:
        bad.append('%s: exit %d: %s' % (' '.join(args), p.returncode, p.stderr.strip()[:200]))
        return None, []
    rows = list(csv.DictReader(open(lu))) if os.path.exists(lu) else []
    return json.loads(p.stdout), rows


def strip_wall(doc):
    for r in doc['runs']:
        r['result'].pop('wall_s', None)
    return doc


def check(ib, args, tmp, window_ok=True, threads=False):
    tag = ' '.join(args)
    doc, rows = run(ib, args, tmp)
    if doc is None:
        return
    again, _ = run(ib, args + (['--threads', '2'] if threads else []), tmp)
    if again is None or strip_wall(again) != strip_wall(doc):
        bad.append('%s: not the same twice%s' % (tag, ' (1 and 2 threads)' if threads else ''))
    mtu = int(args[args.index('--mtu') + 1]) if '--mtu' in args else 4032
    for rn in doc['runs']:
        r, t = rn['result'], '%s [load %g]' % (tag, rn['load'])
        for v in r['vl_util'] + [r['link_util_max']]:
            if not 0 <= v <= 1 + 1e-9:
                bad.append('%s: utilisation %g' % (t, v))
        lr = [x for x in rows if abs(float(x['load']) - rn['load']) < 5e-5]
        for x in lr:
            if not 0 <= float(x['util']) <= 1 + 1e-6:
                bad.append('%s: link %s/%s util %s' % (t, x['from'], x['from_port'], x['util']))
        sw = [float(x['util']) for x in lr if x['kind'] == 'switch']
        if sw and abs(max(sw) - r['link_util_max']) > 1e-5:
            bad.append('%s: busiest %g, CSV %g' % (t, r['link_util_max'], max(sw)))
        pk = r['packets']
        if pk['delivered'] + pk['src_dropped'] + pk['unroutable'] > pk['generated'] or \
                pk['measured_delivered'] > pk['measured']:
            bad.append('%s: packet counts %s' % (t, pk))
        if pk['generated'] > 20 and r['packet_hops'] == 0 and not r['deadlock']:
            bad.append('%s: nothing moved, no deadlock' % t)
        st = rn.get('streams')
        if st and st['total_us'] > 0:  # every payload byte arrived inside the run's window
            payload = sum(ph['messages'] * ph['bytes'] * ph['reps_done'] for ph in st['phases'])
            got = r['accepted_gbps'] * r['sim_ns'] / 8
            if abs(got - payload) > 0.01 * payload:
                bad.append('%s: streams carried %d B, accepted_gbps x time says %.0f' %
                           (t, payload, got))
        if '--deadlock' in args and r['deadlock']:
            bad.append('%s: deadlock with --deadlock tables' % t)
        L = r['latency_ns']
        if L and not (L['p50'] <= L['p99'] <= L['max'] and 0 < L['mean'] <= L['max'] + 1e-6):
            bad.append('%s: latency %s' % (t, L))
        n = r.get('node')
        if n is None:
            if not 0 <= r['accepted'] <= 1 + 1e-9:
                bad.append('%s: accepted %g' % (t, r['accepted']))
            if window_ok and r['accepted'] > r['offered'] + 0.05:
                bad.append('%s: accepted %g > offered %g' % (t, r['accepted'], r['offered']))
            if '--streams' not in args:
                want = r['accepted'] * r['host_gbps'] * mtu / (mtu + 64)
                if abs(want - r['accepted_gbps']) > 1e-3 * max(1, want):
                    bad.append('%s: accepted_gbps %g for %g' % (t, r['accepted_gbps'], want))
            continue
        if n['intra_gbps'] + n['inter_gbps'] > n['max_gbps'] * (1 + 1e-9) or \
                n['inter_gbps'] > r['host_gbps'] * (1 + 1e-9):
            bad.append('%s: node throughput %s' % (t, n))
        ci = n['components_inter_ns']
        if n['latency_ns'] and ci and n['components_intra_ns'] is None and \
                abs(sum(ci.values()) - n['latency_ns']['mean']) > 0.05:
            bad.append('%s: components %g, latency %g' % (t, sum(ci.values()),
                                                         n['latency_ns']['mean']))


def zero_load(ib, topo, engine, tmp, measure='50ms'):
    """Mean latency and hops at a tiny load against the tables' zero-load values."""
    lfts = os.path.join(tmp, 'z.dump')
    subprocess.run([ib, 'route', '--topology', topo, '--engine', engine, '-o', lfts],
                   check=True, capture_output=True)
    nodes = json.loads(subprocess.run([ib, 'topo', 'convert', topo, '--format', 'json'],
                                      check=True, capture_output=True, text=True).stdout)['nodes']
    doc, _ = run(ib, ['--topology', topo, '--lfts', lfts, '--load', '0.0005', '--warmup', '0',
                      '--measure', measure], tmp)
    if doc is None:
        return
    res = doc['runs'][0]['result']
    lft, cur = {}, None
    for line in open(lfts):
        m = re.match(r'Unicast lids .* guid (0x[0-9a-f]+)', line)
        if m:
            cur = lft.setdefault(int(m.group(1), 16), {})
        m = re.match(r'^0x([0-9a-f]+) (\d+)', line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))

    def peer(p):
        q = nodes[p['peer']['node']]
        return q, [x for x in q['ports'] if x['port'] == p['peer']['port']][0]

    def gbps(p):
        _, q = peer(p)
        return min(p['width'] * RATE[p['speed']], q['width'] * RATE[q['speed']])

    hosts = [(n, p) for n in nodes if n['type'] != 'switch' for p in n['ports']
             if 'peer' in p and peer(p)[0]['type'] == 'switch']
    tot = lat = hops = 0.0
    for sn, sp in hosts:
        for dn, dp in hosts:
            if (sn, sp) == (dn, dp):
                continue
            # a packet goes to the base LID plus a random LMC layer: every
            # LID of the destination is equally likely, each with its path
            nl = 1 << dp.get('lmc', 0)
            for dlid in range(dp['lid'], dp['lid'] + nl):
                links, v, k = [(sp, 2)], peer(sp)[0], 0
                while k < 64:
                    p = [x for x in v['ports'] if x['port'] == lft[int(v['guid'], 16)][dlid]][0]
                    links.append((p, 10 if peer(p)[0]['type'] == 'switch' else 2))
                    if peer(p)[0]['type'] != 'switch':
                        break
                    v, k = peer(p)[0], k + 1
                w = gbps(sp) / nl  # hosts send in proportion to their link rate
                zl = sum(25.0 * m for _, m in links) + \
                    max(j * 100.0 + 4096 * 8 / gbps(p) for j, (p, _) in enumerate(links))
                tot, lat, hops = tot + w, lat + w * zl, hops + w * k
    lat, hops = lat / tot, hops / tot
    tag = 'zero load, %s, %s' % (os.path.basename(topo), engine)
    if not res['latency_ns'] or abs(res['latency_ns']['mean'] - lat) > 0.05 * lat:
        bad.append('%s: mean latency %s, tables give %.1f ns' % (tag, res['latency_ns'], lat))
    if abs(res['hops_mean'] - hops) > 0.05 * max(hops, 0.2):
        bad.append('%s: hops %g, tables give %.3f' % (tag, res['hops_mean'], hops))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ibfab', required=True)
    ap.add_argument('--fixtures', default=os.path.join(os.path.dirname(__file__), '..', 'tests',
                                                       'fixtures'))
    a = ap.parse_args()
    ib, real = a.ibfab, os.path.join(a.fixtures, 'real')
    with tempfile.TemporaryDirectory() as tmp:
        gen = {'ft': ['fattree', '--kary', '2', '--n', '3'],
               'ftu': ['fattree', '--m', '3,4', '--w', '1,2'],
               'hx': ['hyperx', '--s1', '3', '--s2', '3', '--hosts', '2'],
               'rail': ['rail', '--servers', '4', '--gpus', '4', '--spines', '2']}
        fab = {}
        for k, g in gen.items():
            fab[k] = os.path.join(tmp, k + '.net')
            subprocess.run([ib, 'topo', 'gen'] + g + ['-o', fab[k]], check=True,
                           capture_output=True)
        plaf = os.path.join(real, 'qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p')
        sdr = os.path.join(real, 'sdr-voltaire-manpage-nonchassis-2007.ibnetdiscover')
        sdr2 = os.path.join(real, 'sdr-mt43132-1switch-2hosts-2009.ibnetdiscover')
        plaf_lfts = os.path.join(tmp, 'plafrim.lfts')
        with open(plaf_lfts, 'w') as o:
            d = os.path.join(real, 'plafrim-2016-ibroute')
            for f in sorted(os.listdir(d)):
                o.write(open(os.path.join(d, f)).read())
        T = ['--warmup', '5us', '--measure', '50us']
        for k in ('ft', 'ftu', 'hx', 'rail'):
            f = ['--topology', fab[k]]
            check(ib, f + ['--engine', 'minimal', '--loads', '0.2:1:0.4'] + T, tmp, threads=True)
            check(ib, f + ['--engine', 'layered', '--deadlock', 'auto', '--vls', '4', '--load',
                           '1', '--buffer', '8k', '--arb', 'age', '--islip-iters', '2'] + T, tmp)
            check(ib, f + ['--engine', 'minimal', '--load', '0.8', '--mtu', '256', '--vls', '1',
                           '--traffic', 'perm'] + T, tmp)
            check(ib, f + ['--engine', 'minimal', '--loads', '0.3:0.9:0.6', '--accels', '4',
                           '--mix', 'C3', '--node-buf', '4k', '--node-voq'] + T, tmp)
            check(ib, f + ['--engine', 'minimal', '--load', '0.4', '--accels', '2',
                           '--inter-frac', '1', '--ipkt-payload', '4096', '--buffer', '5k'] + T,
                  tmp)
            check(ib, f + ['--engine', 'minimal', '--traffic', 'bisection', '--streams',
                           '--bytes', '64k', '--load', '1', '--measure', '10ms'], tmp)
        # a fabric packet holding one 4116 B intra-node packet is 4180 B: a
        # 4096 B buffer must be refused, not let nothing move
        p = subprocess.run([ib, 'sim', 'packet', '--topology', fab['ft'], '--engine', 'minimal',
                            '--load', '0.3', '--accels', '2', '--inter-frac', '1',
                            '--ipkt-payload', '4096', '--buffer', '4096', '--json', '-q'],
                           capture_output=True, text=True)
        if p.returncode == 0 or 'must hold' not in p.stderr:
            bad.append('node model, 4116 B intra-node packets, 4096 B buffers: exit %d, %s' %
                       (p.returncode, p.stderr.strip()[:100]))
        check(ib, ['--topology', plaf, '--lfts', plaf_lfts, '--loads', '0.2:1:0.8'] + T, tmp)
        check(ib, ['--topology', sdr, '--engine', 'minimal', '--deadlock', 'dfsssp', '--load',
                   '1', '--warmup', '20us', '--measure', '400us'], tmp)
        # windows shorter than one packet (16.4 us at 1xSDR, 4.1 us at 4xSDR)
        for m in ('1us', '3us', '7us'):
            check(ib, ['--topology', sdr2, '--engine', 'minimal', '--load', '1', '--measure', m],
                  tmp, window_ok=False)
            check(ib, ['--topology', sdr, '--engine', 'minimal', '--load', '1', '--measure', m],
                  tmp, window_ok=False)
        zero_load(ib, fab['ftu'], 'minimal', tmp)
        zero_load(ib, fab['hx'], 'layered', tmp)
        zero_load(ib, sdr, 'minimal', tmp, '2000ms')
    for b in bad:
        print('FAIL', b)
    print('%d finding(s)' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
