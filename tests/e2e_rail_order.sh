#!/usr/bin/env bash
# The rail structure does not follow the order of the fabric file's
# records: one rail-optimized fabric (4 servers x 4 GPUs, 4 spines), its
# records as written, reversed and shuffled; `rail info` (and --list) must
# print the same in all three orders:
#  * a mapping line whose quoted description two NICs share (srv001's and
#    srv003's mlx5_2 left at "MT4123 ConnectX6") is refused, with FILE:LINE
#    and both NICs by GUID (it applied to the first such NIC in the file);
#  * domains are listed in name order (they were numbered as their NICs
#    came in the file);
#  * NICs whose descriptions carry no device number take their rail hint
#    from their rank in the server in GUID order (it was the file's order,
#    and a shuffled file gave doubled and missing rails);
#  * spine groups (spine00-01 cabled to rails 0-1 only, spine02-03 to
#    rails 2-3 only) are numbered from the spine of the lowest GUID (they
#    were numbered from the first spine in the file), and `rail check`
#    lists the spines in GUID order (it listed them as the file did).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir
W=$WORK
"$IBFAB" topo gen rail --servers 4 --gpus 4 --spines 4 -o "$W/r.ibnd" >/dev/null 2>&1
check "rail-optimized 4x4, 4 spines" test -s "$W/r.ibnd"

python3 - "$W" <<'EOF' || { not_ok "fabrics made"; done_testing; }
import random, re, sys
w = sys.argv[1]
text = open(w + '/r.ibnd').read()
blocks = [b for b in text.split('\n\n') if b.strip()]
head = [b for b in blocks if all(l.startswith('#') for l in b.strip().split('\n'))]
recs = [b.strip('\n') for b in blocks if b not in head]
shuf = list(range(len(recs)))
random.Random(3).shuffle(shuf)
order = {'a': list(range(len(recs))), 'b': list(range(len(recs)))[::-1], 'c': shuf}
# two NICs of one description (as HCAs left at a default one)
shared = [r.replace('"srv001 mlx5_2"', '"MT4123 ConnectX6"')
           .replace('"srv003 mlx5_2"', '"MT4123 ConnectX6"') for r in recs]
# no device numbers: "srv001 mlx5_2" -> "srv001 HCA" (the servers are
# told apart by their system image GUIDs)
nodev = [re.sub(r'"(srv\d+) mlx5_\d+"', r'"\1 HCA"', r) for r in recs]
# two spine groups: the cables between rail0R-l00 and spine0K cut when R
# and K are not in one half (both port lines dropped)
def name(r):
    m = re.search(r'^(?:Switch|Ca)\s+\d+\s+"[^"]+"\s+#\s+"([^"]+)"', r, re.M)
    return m.group(1) if m else ''
def half(n):
    m = re.match(r'rail0(\d)-l00$', n)
    if m:
        return int(m.group(1)) // 2
    m = re.match(r'spine0(\d)$', n)
    return int(m.group(1)) // 2 if m else None
groups = []
for r in recs:
    a = half(name(r))
    keep = []
    for l in r.split('\n'):
        p = re.match(r'\[\d+\]\s+"[^"]+"\[\d+\].*#\s+"([^"]+)"', l)
        if p and a is not None and half(p.group(1)) is not None and \
           (name(r).startswith('spine') != p.group(1).startswith('spine')) and \
           half(p.group(1)) != a:
            continue
        keep.append(l)
    groups.append('\n'.join(keep))
for k, o in order.items():
    for pre, rs in (('', recs), ('s', shared), ('n', nodev), ('g', groups)):
        open('%s/%s%s.ibnd' % (w, pre, k), 'w').write('\n\n'.join(head + [rs[i] for i in o]) + '\n')
EOF


printf '# one NIC by a description two NICs share\n"MT4123 ConnectX6" srv009 2\n' >"$W/shared.map"
run_orders info rail info "$W/@.ibnd" --list
run_orders shared-map rail info "$W/s@.ibnd" --map "$W/shared.map" --list
run_orders nodev rail info "$W/n@.ibnd" --list
run_orders groups rail info "$W/g@.ibnd"
for k in a b c; do
	"$IBFAB" route --topology "$W/$k.ibnd" --engine hratio --lmc 1 -o "$W/$k.lfts" >/dev/null 2>&1
done
run_orders railcheck rail check "$W/@.ibnd" --lfts "$W/@.lfts" --lmc 1
check "a shared description in the map: FILE:LINE, both NICs by GUID, exit 1" \
	grep -q "shared.map:2: 2 nodes of the fabric have this description (0x0002c90100000600 and 0x0002c90100000e00): a line maps one CA; name each by its GUID" "$W/shared-map"
check "... and nothing printed but the error" sh -c "[ \$(wc -l <'$W/shared-map') -eq 2 ] && grep -q '^exit 1' '$W/shared-map'"
check "the fabric: 4 rails, nothing that does not fit" \
	sh -c "grep -q '^gpus 16  domains 4  rails 4 ' '$W/info' && grep -q 'missing 0, doubled 0, mismatched 0' '$W/info'"
check "the domains in name order" sh -c "grep '^  gpu ' '$W/info' | sed 's/.*: domain \([^ ]*\) .*/\1/' | sort -c"
check "no device numbers: 4 domains by system image, 4 rails, nothing doubled or missing" \
	sh -c "grep -q '^gpus 16  domains 4  rails 4 ' '$W/nodev' && grep -q 'missing 0, doubled 0, mismatched 0' '$W/nodev'"
check "rail check: spines listed spine00 .. spine03" \
	sh -c "grep -A4 '^spines: 4' '$W/railcheck' | awk 'NR > 1 { print \$1 }' | tr '\n' ' ' | grep -qx 'spine00 spine01 spine02 spine03 '"
check "two spine groups, group 0 of rails 0,1 (spine00 spine01)" \
	sh -c "grep -q '^spine groups 2 ' '$W/groups' && grep -q '^  group 0: rails 0,1, spines spine00 spine01$' '$W/groups'"
# a GUID selector of a NIC whose description is shared still applies
g=$(sed -n 's/^Ca.*"H-\([0-9a-f]*\)".*"MT4123 ConnectX6".*/0x\1/p' "$W/sa.ibnd" | sort | head -1)
printf '%s srv001 2\n' "$g" >"$W/guid.map"
run_orders guid-map rail info "$W/s@.ibnd" --map "$W/guid.map"
check "the same NIC by GUID ($g): mapped" sh -c "grep -q '^exit 0' '$W/guid-map' && grep -q 'gpus 16  domains 5 ' '$W/guid-map'"
done_testing
