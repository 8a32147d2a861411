#!/usr/bin/env python3
"""QA matrix of `ibfab sim packet` / `sim flow` (docs/simulation.md, "QA round 9").

Inputs: the real dumps of tests/fixtures/real (loopback cables, SHARP
aggregation nodes, dual-port HCAs on one switch, 1x/SDR links among QDR,
mixed rates, a second subnet, ports reports that are excerpts) and
generated fat trees damaged with contrib/net-damage.awk (cut cables, a
removed spine or leaf, degraded cables, uneven bundles), plus hosts on the
spines, a leaf without hosts, two fabrics side by side (two pieces), a
ring and a 3 x 3 torus.  For each fabric, engine (minimal, layered, dmodk,
hratio: those that accept it) and deadlock scheme (none, auto, dfsssp,
coloring):

  * `ibfab route` -> tables, `ibfab deadlock apply` -> SLs/SL2VL,
    `ibfab deadlock verify` of exactly those tables;
  * `sim packet --lfts ... [--sl --sl2vl]` at load 1 with 8 KiB buffers:
    packet counts consistent, accepted and link utilisation <= 1, latency
    ordered, and a deadlock only where verify finds a cycle (or a loop);
  * the same run from `--engine E --deadlock S` gives the same JSON;
  * a scheme that apply refuses is refused by `--deadlock S` too;
  * `sim flow --lfts ... --pattern perm` runs (exit 0 or 1, no crash).

Then load sweeps with age / iSLIP arbitration, LMC 1-2, patterns and the
node model (K = 1, 2, 4, 8; 148 B and 4 KiB intra-node packets, bounded
queues) on a share of the fabrics, each with --threads 1, 2 and 4 (same
JSON), and message streams whose packets are dropped as unroutable (the
phases' unroutable_packets must add up to the run's count).

usage: bench/sim_qa_matrix.py --ibfab build/ibfab [--fixtures tests/fixtures]
       [--quick]
One line per finding; exit 1 when anything failed.  A few minutes (--quick:
the first two fabrics of each kind, about a minute).  An exit status other
than 0, 1 or 2, or a sanitizer report on stderr (run it with an ASan build
as --ibfab), is a finding too.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

bad = []
IB = None


def run(args, timeout=600):
    try:
        p = subprocess.run([IB] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        bad.append('timeout: %s' % ' '.join(args))
        return None
    if p.returncode not in (0, 1, 2) or 'Sanitizer' in p.stderr or 'runtime error' in p.stderr:
        bad.append('exit %d: %s: %s' % (p.returncode, ' '.join(args), p.stderr[-400:]))
    return p


def strip(doc):
    for r in doc['runs']:
        r['result'].pop('wall_s', None)
    return doc


def check(doc, tag, cyclic=None):
    for rn in doc['runs']:
        r, pk = rn['result'], rn['result']['packets']
        t = '%s [load %g]' % (tag, rn['load'])
        if pk['delivered'] + pk['src_dropped'] + pk['unroutable'] > pk['generated'] or \
                pk['measured_delivered'] > pk['measured']:
            bad.append('%s: packet counts %s' % (t, pk))
        if not 0 <= r['accepted'] <= 1 + 1e-9 or r['link_util_max'] > 1 + 1e-9:
            bad.append('%s: accepted %g, busiest link %g' % (t, r['accepted'], r['link_util_max']))
        L = r['latency_ns']
        if L and not L['p50'] <= L['p99'] + 1e-6 <= L['max'] + 2e-6:
            bad.append('%s: latency %s' % (t, L))
        if r['deadlock'] and cyclic is False:
            bad.append('%s: deadlock, but deadlock verify finds the tables acyclic' % t)
        n = r.get('node')
        if n and n['intra_gbps'] + n['inter_gbps'] > n['max_gbps'] * (1 + 1e-9):
            bad.append('%s: node model %s' % (t, n))
        st = rn.get('streams')
        if st and st.get('unroutable_packets', 0) != pk['unroutable']:
            bad.append('%s: streams lost %s, run unroutable %d' %
                       (t, st.get('unroutable_packets'), pk['unroutable']))


def fabrics(tmp, real, awk, quick):
    """name -> path: generated (damaged) fat trees and the real dumps."""
    f = {}

    def gen(name, *a):
        f[name] = os.path.join(tmp, name + '.net')
        subprocess.run([IB, 'topo', 'gen'] + list(a) + ['--format', 'ibsim', '-o', f[name]],
                       check=True, capture_output=True)

    def damage(name, base, **kw):
        f[name] = os.path.join(tmp, name + '.net')
        v = sum((['-v', '%s=%s' % kv] for kv in kw.items()), [])
        with open(f[name], 'w') as o:
            subprocess.run(['awk', '-f', awk] + v + [f[base], f[base]], stdout=o, check=True)

    gen('ft', 'fattree', '--m', '4,4', '--w', '1,2', '--parallel', '2')
    gen('ft3', 'fattree', '--m', '4,4,4', '--w', '1,2,2')
    gen('ft10', 'fattree', '--m', '4,4', '--w', '1,2', '--parallel', '2', '--switch-ports', '10')
    gen('ring5', 'torus', '--dims', '5', '--hosts', '2')
    gen('tor33', 'torus', '--dims', '3,3', '--hosts', '2')
    damage('ft-cut3', 'ft', seed=1, cables=3)
    damage('ft3-cut5', 'ft3', seed=2, cables=5)
    damage('ft-deadspine', 'ft', dead='ft-l2-s0000')
    damage('ft-deadleaf', 'ft', dead='ft-l1-s0001')
    damage('ft-mixed', 'ft', seed=3, degrade=4, rate='1xSDR')
    damage('ft3-mixed', 'ft3', seed=4, cables=2, degrade=3, rate='4xQDR')
    damage('ft-nospine1', 'ft', dead='ft-l2-s0000')
    damage('ft-leaves', 'ft-nospine1', dead='ft-l2-s0001')
    text = open(f['ft10']).read()
    # three hosts on the spines (ports 9 and 10 of the radix-10 spines)
    for i, (sw, port, h) in enumerate((('ft-l2-s0000', 9, 'sh0'), ('ft-l2-s0001', 9, 'sh1'),
                                       ('ft-l2-s0001', 10, 'sh2'))):
        text = re.sub(r'(Switch\t10 "%s"[^\n]*\n(?:\[[^\n]*\n)*)' % sw,
                      lambda m: m.group(1) + '[%d]\t"%s"[1]\t\t# "%s" 4xEDR\n' % (port, h, h),
                      text, count=1)
        g = '0x2c9010000%02x00' % (0x90 + i)
        text += '\ncaguid=%s\nCa\t1 "%s"\n[1]\t"%s"[%d]\t\t# "%s" 4xEDR\n' % (g, h, sw, port,
                                                                              sw)
    f['ft-spinehosts'] = os.path.join(tmp, 'ft-spinehosts.net')
    open(f['ft-spinehosts'], 'w').write(text)
    # a leaf without hosts
    text = open(f['ft']).read()
    text = re.sub(r'\[[1-4]\]\t"ft-h0001[2-5]"\[1\][^\n]*\n', '', text)
    text = re.sub(r'\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\nCa\t1 "ft-h0001[2-5]"[^\n]*\n[^\n]*\n', '\n',
                  text)
    f['ft-nohostleaf'] = os.path.join(tmp, 'ft-nohostleaf.net')
    open(f['ft-nohostleaf'], 'w').write(text)
    # two fabrics side by side: the file's LIDs dropped, the second renamed
    a = re.sub(r'\t\t#.*', '\t\t# 4xEDR', open(f['ft']).read())
    b = a.replace('"ft-', '"gt-').replace('0x2c90', '0x3c90')
    f['ft-two'] = os.path.join(tmp, 'ft-two.net')
    open(f['ft-two'], 'w').write(a + '\n' + b)
    for name, fn in (('loopbacks', 'edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover'),
                     ('sdr2007', 'sdr-voltaire-manpage-nonchassis-2007.ibnetdiscover'),
                     ('sdr2009', 'sdr-mt43132-1switch-2hosts-2009.ibnetdiscover'),
                     ('plafrim', 'qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p'),
                     ('plafrim2', 'qdr-truescale-plafrim2-7sw-2016.ibnetdiscover-s-p'),
                     ('plafrim2-s1', 'qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p'),
                     ('fdr10', 'fdr10-qdr-sx6036-8sw-2014.ibnetdiscover'),
                     ('x5', 'qdr-ddr-voltaire-4036-psmn-x5-11sw-2020.ibnetdiscover'),
                     ('avakas', 'qdr-qlogic-12800-avakas-25sw-281hca-2016.ibnetdiscover-s-p'),
                     ('ndr', 'ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover'),
                     ('osc', 'edr-osc-excerpt.ibnetdiscover-p'),
                     ('hdr', 'hdr-quantum2-excerpt-shared-an-guid.ibnetdiscover-p')):
        f[name] = os.path.join(real, fn)
    gens = ['ft-cut3', 'ft-spinehosts', 'ft-two', 'ring5', 'ft3-cut5', 'ft-deadspine',
            'ft-deadleaf', 'ft-mixed', 'ft3-mixed', 'ft-nohostleaf', 'tor33']
    reals = ['loopbacks', 'sdr2007', 'plafrim', 'plafrim2-s1', 'fdr10', 'x5', 'sdr2009',
             'plafrim2', 'osc', 'hdr', 'avakas', 'ndr']
    if quick:
        gens, reals = gens[:4], reals[:3]
    return f, gens, reals


def matrix(f, names, tmp):
    T = ['--warmup', '10us', '--measure', '40us', '--stall', '20us', '--buffer', '8k',
         '--load', '1', '--json', '-q', '--seed', '1']
    for fn in names:
        topo = f[fn]
        for e in ('minimal', 'layered', 'dmodk', 'hratio'):
            lf = os.path.join(tmp, '%s-%s.lfts' % (fn, e))
            p = run(['route', '--topology', topo, '--engine', e, '--seed', '1', '-o', lf])
            if p is None or p.returncode:
                continue  # the engine does not take this fabric (said on stderr)
            for s in ('none', 'auto', 'dfsssp', 'coloring'):
                tag = '%s %s %s' % (fn, e, s)
                extra = []
                if s == 'none':
                    v = run(['deadlock', 'verify', '--topology', topo, '--lfts', lf,
                             '--sl-const', '0', '--sl2vl-identity', '8', '-q'])
                else:
                    sl, s2 = lf + '.' + s + '.sl', lf + '.' + s + '.s2v'
                    a = run(['deadlock', 'apply', '--topology', topo, '--lfts', lf, '--scheme', s,
                             '--sl', sl, '--sl2vl', s2])
                    if a is None:
                        continue
                    if a.returncode:
                        q = run(['sim', 'packet', '--topology', topo, '--engine', e,
                                 '--deadlock', s] + T)
                        if q and q.returncode == 0:
                            bad.append('%s: apply refuses, sim --deadlock ran' % tag)
                        continue
                    extra = ['--sl', sl, '--sl2vl', s2]
                    v = run(['deadlock', 'verify', '--topology', topo, '--lfts', lf, '--sl', sl,
                             '--sl2vl', s2, '-q'])
                    if v and v.returncode:
                        bad.append('%s: apply wrote tables verify rejects' % tag)
                cyc = None if v is None else v.returncode == 1
                p1 = run(['sim', 'packet', '--topology', topo, '--lfts', lf] + extra + T)
                p2 = run(['sim', 'packet', '--topology', topo, '--engine', e, '--deadlock', s] +
                         T)
                if not p1 or not p2 or not p1.stdout or not p2.stdout:
                    bad.append('%s: no result' % tag)
                    continue
                d1, d2 = strip(json.loads(p1.stdout)), strip(json.loads(p2.stdout))
                check(d1, tag, cyc)
                if d1 != d2:
                    bad.append('%s: --lfts and --engine runs differ' % tag)
            fl = run(['sim', 'flow', '--topology', topo, '--lfts', lf, '--pattern', 'perm',
                      '--json', '--threads', '2'])
            if fl and fl.returncode == 2:
                bad.append('%s %s: sim flow usage error' % (fn, e))


def threads(f, names):
    M = ['--warmup', '5us', '--measure', '40us', '--json', '-q']
    opts = (['--loads', '0.2:1:0.4', '--arb', 'age'],
            ['--loads', '0.25:1:0.25', '--islip-iters', '2'],
            ['--loads', '0.1:1:0.9', '--lmc', '1', '--deadlock', 'auto', '--buffer', '5k'],
            ['--loads', '0.1:1:0.9', '--lmc', '2', '--traffic', 'perm', '--arb', 'age'],
            ['--loads', '0.5:1:0.5', '--accels', '1'],
            ['--loads', '0.5:1:0.5', '--accels', '2', '--node-buf', '4k', '--node-voq'],
            ['--loads', '0.5:1:0.5', '--accels', '4', '--mix', 'C2', '--nic-pkt-ns', '4'],
            ['--loads', '0.5:1:0.5', '--accels', '8', '--ipkt-payload', '4096', '--arb', 'age'])
    for fn in names:
        eng = ['--engine', 'hratio' if fn in ('ft-two', 'ft-leaves') else 'minimal']
        for o in opts:
            a = ['sim', 'packet', '--topology', f[fn]] + eng + o + M
            outs = []
            for th in ('1', '2', '4'):
                p = run(a + ['--threads', th])
                if not p or not p.stdout:
                    bad.append('%s: no result' % ' '.join(a))
                    break
                outs.append(strip(json.loads(p.stdout)))
            if len(outs) == 3:
                check(outs[0], '%s %s' % (fn, ' '.join(o)))
                if outs[0] != outs[1] or outs[0] != outs[2]:
                    bad.append('%s %s: differs with 1, 2, 4 threads' % (fn, ' '.join(o)))


def streams(f):
    for sync in ('barrier', 'rank'):
        for t in ('shift:4', 'hier', 'ring', 'a2a'):
            p = run(['sim', 'packet', '--topology', f['ft-leaves'], '--engine', 'hratio',
                     '--traffic', t, '--streams', '--bytes', '16k', '--load', '1', '--measure',
                     '10ms', '--sync', sync, '--json', '-q'])
            if p and p.stdout:
                check(strip(json.loads(p.stdout)), 'streams %s %s' % (t, sync))


def main():
    global IB
    ap = argparse.ArgumentParser()
    ap.add_argument('--ibfab', required=True)
    ap.add_argument('--fixtures', default=os.path.join(os.path.dirname(__file__), '..', 'tests',
                                                       'fixtures'))
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    IB = os.path.abspath(a.ibfab)
    awk = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'contrib',
                       'net-damage.awk')
    with tempfile.TemporaryDirectory() as tmp:
        f, gens, reals = fabrics(tmp, os.path.join(a.fixtures, 'real'), awk, a.quick)
        matrix(f, gens + reals, tmp)
        threads(f, gens[:4] + reals[:3])
        streams(f)
    for b in bad:
        print('FAIL', b)
    print('%d finding(s)' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
