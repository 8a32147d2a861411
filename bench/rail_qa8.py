#!/usr/bin/env python3
"""QA round 8 (rail): damaged and irregular rail clusters that the generator
does not make by default, routed with hratio offline and checked.

    bench/rail_qa8.py IBFAB WORKDIR

For 4 and 8 rails, rail-only (no spines) and rail-optimized (spines), LMC 0
and 1, the fabric intact and with: a server with fewer NICs than rails, a
NIC cabled to another rail's leaf, two NICs of a server swapped between two
rails, a rail leaf lost (its NICs unseen), a spine lost, mixed link rates,
and all of these at once.  Each case runs `rail info`, `route --engine
hratio`, `route check`, `rail check` and `route congestion` and prints one
line: what rail info said, pairs not delivered, loops, same-rail paths
that left their rail, the worst shift load against its bound.  Exit 1 when
a case fails what a user expects (every pair a cable path joins is
delivered, no loop, same-rail pairs confinable to their rail stay there, a
miscabled NIC is named with its port)."""
import json, os, re, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qa_sweep as q

ibfab, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def run(args):
    p = subprocess.run([ibfab] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def gen(servers, gpus, spines):
    a = ['topo', 'gen', 'rail', '--servers', str(servers), '--gpus', str(gpus),
         '--spines', str(spines), '--format', 'json']
    rc, out, err = run(a)
    assert rc == 0, err
    return q.Fabric(json.loads(out))


def by_desc(f, d):
    return [i for i, n in enumerate(f.nodes) if n and n['desc'] == d][0]


def free_port(f, sw):
    n = f.nodes[sw]
    n['nports'] += 1
    return n['nports']


def fewer_nics(f, gpus):
    """srv001 has NICs of rails 0 and 1 only (a server built with fewer)"""
    for g in range(2, gpus):
        f.remove(by_desc(f, 'srv001 mlx5_%d' % g))
    return 'srv001 lacks %d NICs' % (gpus - 2)


def miscabled(f, gpus):
    """srv002's mlx5_1 cabled to rail 2's leaf (a new port of it)"""
    ca = by_desc(f, 'srv002 mlx5_1')
    f.unplug(ca, 1)
    leaf = by_desc(f, 'rail02-l00')
    p = free_port(f, leaf)
    q.cable(f, ca, 1, leaf, p)
    return 'srv002 mlx5_1 on rail02-l00[%d]' % p


def swapped(f, gpus):
    """srv003's mlx5_0 and mlx5_3 swapped between rail 0 and rail 3"""
    a, b = by_desc(f, 'srv003 mlx5_0'), by_desc(f, 'srv003 mlx5_3')
    (la, pa), (lb, pb) = f.nodes[a]['ports'][1]['peer'], f.nodes[b]['ports'][1]['peer']
    f.unplug(a, 1)
    f.unplug(b, 1)
    q.cable(f, a, 1, lb, pb)
    q.cable(f, b, 1, la, pa)
    return 'srv003 mlx5_0 <-> mlx5_3'


def on_spine(f, gpus):
    """srv004's mlx5_0 cabled to spine00 (a new port of it)"""
    ca = by_desc(f, 'srv004 mlx5_0')
    f.unplug(ca, 1)
    sp = by_desc(f, 'spine00')
    p = free_port(f, sp)
    q.cable(f, ca, 1, sp, p)
    return 'srv004 mlx5_0 on spine00[%d]' % p


def leaf_lost(f, gpus):
    f.remove(by_desc(f, 'rail01-l00'))
    f.prune()  # its NICs are not discovered
    return 'rail01-l00 lost'


def spine_lost(f, gpus):
    f.remove(by_desc(f, 'spine00'))
    return 'spine00 lost'


def mixed_rates(f, gpus):
    """rail 0's leaf on HDR to the spines, rail 1's NICs at 2x, one cable 1xSDR"""
    for i, p, j, qq in f.links('ss'):
        d = (f.nodes[i]['desc'], f.nodes[j]['desc'])
        if 'rail00-l00' in d:
            f.set_link(i, p, 4, 'HDR')
    for i, p, j, qq in f.links('host'):
        d = (f.nodes[i]['desc'], f.nodes[j]['desc'])
        if 'rail01-l00' in d:
            f.set_link(i, p, 2, 'EDR')
    ss = [l for l in f.links('ss') if 'rail02-l00' in (f.nodes[l[0]]['desc'], f.nodes[l[2]]['desc'])]
    if ss:
        f.set_link(ss[0][0], ss[0][1], 1, 'SDR')
    return 'mixed rates'


DAMAGE = [('intact', []), ('fewer-nics', [fewer_nics]), ('miscabled', [miscabled]),
          ('swapped', [swapped]), ('on-spine', [on_spine]), ('leaf-lost', [leaf_lost]), ('spine-lost', [spine_lost]),
          ('mixed-rates', [mixed_rates]),
          ('all', [fewer_nics, miscabled, swapped, leaf_lost, spine_lost, mixed_rates])]


def num(pat, text, default=None):
    m = re.search(pat, text, re.M)
    return int(m.group(1)) if m else default


bad = 0
print('%-34s %-44s %s' % ('case', 'rail info', 'routing'))
for gpus in (4, 8):
    for spines in (0, 2):
        for lmc in (0, 1):
            for name, ops in DAMAGE:
                if spines == 0 and any(o in (spine_lost, on_spine) for o in ops):
                    continue
                f = gen(8, gpus, spines)
                notes = [o(f, gpus) for o in ops]
                case = 'r%d-s%d-lmc%d-%s' % (gpus, spines, lmc, name)
                topo = os.path.join(work, case + '.ibnd')
                f.write_ibnd(topo)
                rc, info, ierr = run(['rail', 'info', topo, '--list'])
                open(os.path.join(work, case + '.info'), 'w').write(info + ierr)
                lfts = os.path.join(work, case + '.lfts')
                rc1, rout, rerr = run(['route', '--topology', topo, '--engine', 'hratio',
                                       '--lmc', str(lmc), '-o', lfts])
                rc2, chk, cerr = run(['route', 'check', '--topology', topo, '--lmc', str(lmc),
                                      '--lfts', lfts])
                rc3, rch, rcerr = run(['rail', 'check', topo, '--lmc', str(lmc), '--lfts', lfts])
                rc4, cong, gerr = run(['route', 'congestion', '--topology', topo, '--lmc',
                                       str(lmc), '--lfts', lfts, '--pattern', 'shift'])
                for ext, txt in (('.route', rout + rerr), ('.check', chk + cerr),
                                 ('.rail', rch + rcerr), ('.cong', cong + gerr)):
                    open(os.path.join(work, case + ext), 'w').write(txt)
                fit = re.search(r'does not fit: (.*)', info)
                unre = num(r'^unreachable: *(\d+)', chk, -1)
                loops = num(r'^loops: *(\d+)', chk, -1)
                left = num(r'(\d+) of \d+ confinable left the rail', rch, -1)
                cfail = num(r'^cross rail: .* (\d+) not delivered', rch, -1)
                sfail = num(r'^same rail: .* (\d+) not delivered', rch, -1)
                worst = re.search(r'^\s*0\s+(\d+)\s.*', cong, re.M)
                why = []
                if rc1:
                    why.append('route exit %d: %s' % (rc1, rerr.strip()[:120]))
                if unre != 0 or loops != 0:
                    why.append('route check: unreachable %s loops %s' % (unre, loops))
                if left != 0 or cfail != 0 or sfail != 0:
                    why.append('rail check: left %s, not delivered same %s cross %s' % (left, sfail, cfail))
                if rc4:
                    why.append('congestion exit %d' % rc4)
                if miscabled in ops and not re.search(
                        r'gpu srv002 mlx5_1 port 1: .*reaches another rail: cabled to rail02-l00 '
                        r'port \d+ \(rail \d+(, label 2)?\), its device index is ', info):
                    why.append('rail info does not name the miscabled NIC and its switch port')
                if swapped in ops and len(re.findall(
                        r'gpu srv003 mlx5_[03] port 1: .*reaches another rail: cabled to rail0[03]-l00 port',
                        info)) != 2:
                    why.append('rail info does not name both swapped NICs')
                if on_spine in ops and not re.search(
                        r'gpu srv004 mlx5_0 port 1: .*cabled to spine00 port \d+, a spine, not to a '
                        r'rail switch', info):
                    why.append('rail info does not name the NIC on a spine')
                bad += bool(why)
                print('%-34s %-44s unreach %s loops %s left %s notdel %s/%s%s' % (
                    case, fit.group(1) if fit else '?', unre, loops, left, sfail, cfail,
                    ('  FAIL: ' + '; '.join(why)) if why else ''))
sys.exit(1 if bad else 0)
