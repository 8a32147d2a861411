#!/usr/bin/env python3
"""Deadlock detection of `ibfab sim packet` over credit-loop routings.

Rings, 2D/3D tori, HyperX, dragonflies and a Slim Fly, routed by `minimal`
(LMC 0) and `layered` (LMC 1 and 2), every host at full load under uniform,
shift, adversarial and permutation traffic, 4 and 8 KiB buffers.  Each
routing runs with `--deadlock none` on one VL, and with `auto`, `dfsssp` and
`coloring` on 1, 2, 4 and 8 VLs (on one VL they reroute part of the
LIDs up*/down*).  Checked on every run:

  * with a deadlock scheme: no deadlock is ever reported;
  * a reported deadlock (only without a scheme) is a real cycle: every
    buffer holds packets, each buffer's switch is the one feeding the next
    buffer, some destination LID is routed into the buffer by the switch
    before it and on into the next buffer by the tables (the same tables
    written by `ibfab route` with the seed of the run), and `deadlock
    verify` finds the tables cyclic on one VL.

Runs where accepted throughput is under 5 % without a deadlock are listed
(not failures: one-packet buffers and few VLs can be that slow).

usage: bench/sim_deadlock_sweep.py --ibfab build/ibfab [--only ring7,t44]
       [--net NAME=FILE ...] [--extra '--arb age --islip-iters 2'] [--workdir DIR]
One line per run (-v) or per finding; exit 1 when anything failed.
About a minute for all 14 fabrics (4368 runs) on one core.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FABRICS = {
    'ring4': 'torus --dims 4 --hosts 2',
    'ring7': 'torus --dims 7 --hosts 2',
    'ring8': 'torus --dims 8 --hosts 1',
    'ring12': 'torus --dims 12 --hosts 2',
    't33': 'torus --dims 3,3 --hosts 2',
    't44': 'torus --dims 4,4 --hosts 2',
    't66': 'torus --dims 6,6 --hosts 1',
    't234': 'torus --dims 2,3,4 --hosts 2',
    't333': 'torus --dims 3,3,3 --hosts 1',
    'hx33': 'hyperx --s1 3 --s2 3 --hosts 2',
    'hx45': 'hyperx --s1 4 --s2 5 --hosts 2',
    'df': 'dragonfly --a 4 --p 2 --h 2',
    'df3': 'dragonfly --a 3 --p 2 --h 1',
    'sf5': 'slimfly --q 5 --hosts 2',
}
SEED = '5'


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def read_lfts(path):
    """{switch description: {lid: port}}"""
    t, cur = {}, None
    for line in open(path):
        m = re.match(r"Unicast lids .* \('(.*)'\)", line)
        if m:
            cur = t.setdefault(m.group(1), {})
            continue
        m = re.match(r'(0x[0-9a-f]+) (\d+)', line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return t


def check_cycle(cyc, T):
    bad = []
    for k, a in enumerate(cyc):
        b = cyc[(k + 1) % len(cyc)]
        if a['to'] != b['from']:
            bad.append('buffer %d is not fed by the switch of buffer %d' % (k + 1, k))
        if a['packets'] < 1:
            bad.append('buffer %d is empty' % k)
        x = a['to']
        if a['from'] in T and x in T and not any(
                T[x].get(lid) == b['from_port'] and T[a['from']].get(lid) == a['from_port']
                for lid in T[x]):
            bad.append('no LID goes from buffer %d into buffer %d' % (k, k + 1))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ibfab', required=True)
    ap.add_argument('--only', default='')
    ap.add_argument('--extra', default='', help='more sim packet options')
    ap.add_argument('--net', action='append', default=[], metavar='NAME=FILE',
                    help='a fabric file of your own (e.g. a damaged one), instead of '
                    'the generated ones; may be given several times')
    ap.add_argument('--workdir')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    ib = a.ibfab
    d = a.workdir or tempfile.mkdtemp(prefix='ibfab-dl-')
    os.makedirs(d, exist_ok=True)
    fabs = {k: v for k, v in FABRICS.items() if not a.only or k in a.only.split(',')}
    own = dict(x.split('=', 1) for x in a.net)
    if own:
        fabs = {k: None for k in own}
    runs, fails, slow, dls = 0, [], [], 0
    for name, gen in fabs.items():
        net = own.get(name) or os.path.join(d, name + '.net')
        r = run([ib, 'topo', 'gen'] + gen.split() + ['--format', 'ibsim', '-o', net]) \
            if gen else None
        if r and r.returncode:
            fails.append('%s: topo gen: %s' % (name, r.stderr.strip()))
            continue
        for eng, lmc in (('minimal', '0'), ('layered', '1'), ('layered', '2')):
            lf = os.path.join(d, '%s-%s%s.lfts' % (name, eng, lmc))
            r = run([ib, 'route', '--topology', net, '--engine', eng, '--lmc', lmc,
                     '--seed', SEED, '-o', lf])
            if r.returncode:
                fails.append('%s %s: route: %s' % (name, eng, r.stderr.strip()))
                continue
            T = read_lfts(lf)
            cyclic = run([ib, 'deadlock', 'verify', '--topology', net, '--lfts', lf,
                          '--lmc', lmc, '--sl-const', '0', '--sl2vl-identity', '1',
                          '-q']).returncode == 1
            for traffic in ('uniform', 'shift:3', 'adversarial', 'perm:1'):
                for buf in ('4096', '8192'):
                    for dl in ('none', 'auto', 'dfsssp', 'coloring'):
                        for vls in (('1',) if dl == 'none' else ('1', '2', '4', '8')):
                            args = [ib, 'sim', 'packet', '--topology', net, '--engine', eng,
                                    '--lmc', lmc, '--deadlock', dl, '--vls', vls,
                                    '--traffic', traffic, '--load', '1.0', '--buffer', buf,
                                    '--warmup', '10us', '--measure', '40us', '--stall', '20us',
                                    '--seed', SEED, '--json'] + a.extra.split()
                            t = '%s %s LMC %s %s %s B %s %s VLs' % (name, eng, lmc, traffic,
                                                                   buf, dl, vls)
                            r = run(args)
                            runs += 1
                            if r.returncode not in (0, 1) or not r.stdout.strip():
                                fails.append('%s: exit %d %s' % (t, r.returncode,
                                                                 r.stderr.strip()[-200:]))
                                continue
                            res = json.loads(r.stdout)['runs'][0]['result']
                            dead = res['deadlock']
                            bad = []
                            if dead:
                                dls += 1
                                if dl != 'none':
                                    bad.append('deadlock reported with --deadlock %s' % dl)
                                else:
                                    bad += check_cycle(dead['cycle'], T)
                                    if dead['cycle_buffers'] < len(dead['cycle']):
                                        bad.append('cycle_buffers %d < the %d listed' % (
                                            dead['cycle_buffers'], len(dead['cycle'])))
                                    if not cyclic:
                                        bad.append('deadlock verify finds the tables acyclic')
                            elif res['accepted'] < 0.05:
                                slow.append('%s: accepted %.3f' % (t, res['accepted']))
                            for b in bad:
                                fails.append('%s: %s' % (t, b))
                            if a.verbose:
                                print(t, 'deadlock (%d buffers)' % len(dead['cycle'])
                                      if dead else 'none', 'BAD' if bad else 'ok', flush=True)
    for s in slow:
        print('slow, no deadlock:', s)
    for f in fails:
        print('FAIL', f)
    print('sim_deadlock_sweep: %d runs, %d deadlocks reported, '
          '%d failure(s)' % (runs, dls, len(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
