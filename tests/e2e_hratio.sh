#!/usr/bin/env bash
# End to end: the hratio engine inside a stock OpenSM 3.3.23 (our plugin) on
# ibsim rail GPU clusters, tables read back from the switches (dump_lfts).
#  - rail-optimized, 32 servers x 8 GPUs, 4 spines, LMC 1: every pair
#    routed, no path longer than rail switch - spine - rail switch (same-rail
#    pairs staying on their rail is checked pair by pair in test_rail), shifts between hosts at the leaf-cut bound in both layers, and the two
#    layers of a destination leave a rail switch on different spines; the
#    same tables as `ibfab route --engine hratio` offline on the discovered
#    fabric;
#  - rail-only, 16 servers x 8 GPUs (8 separate rails): OpenSM's SM port
#    sees its own rail only (one SM per rail in practice); that rail is
#    routed by hratio, and offline the whole fabric routes with the pairs
#    between rails counted apart.
. "$(dirname "$0")/lib.sh"
need_sim
command -v dump_lfts >/dev/null 2>&1 || skip_all "dump_lfts not installed (infiniband-diags)"
need_plugin
"$IBFAB" route --help 2>/dev/null | grep -q hratio || skip_all "ibfab has no hratio engine"
mk_workdir

opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
echo '# defaults' >"$WORK/empty.conf"
run() {
	local name=$1 net=$2 lmc=$3
	mkdir -p "$WORK/$name"
	osm_conf "$WORK/opensm.default.conf" hratio "$lmc" "$WORK/$name/opensm.conf"
	env IBFAB_CONF="$WORK/empty.conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$net" "$WORK/$name/sim" -- bash -c '
		. "$0"
		d=$IBFAB_SIM_DIR
		opensm_once "$d" -F "$1" || { echo "opensm failed ($?)"; tail -20 "$d/opensm.out"; exit 1; }
		ibsim-run dump_lfts 2>/dev/null | grep -v "replaced by dump_fts" >"$d/dump.txt" || exit 2
		ibsim-run ibnetdiscover >"$d/net.ibnd" 2>/dev/null || exit 3
	' "$top_srcdir/tests/lib.sh" "$WORK/$name/opensm.conf" 2>&1 | diag
	return "${PIPESTATUS[0]}"
}

"$IBFAB" topo gen rail --servers 32 --gpus 8 --spines 4 --format ibsim -o "$WORK/ro.net" >/dev/null 2>&1
run ropt "$WORK/ro.net" 1
check "rail-optimized 32x8, 4 spines: OpenSM swept with hratio" \
	grep -q "hratio tables configured\|tables configured on all switches" "$WORK/ropt/sim/opensm.log"
d=$WORK/ropt/sim
check "hratio routed the sweep (no fallback)" sh -c "! grep -qi 'falling back\|routing failed' '$d/opensm.log'"
"$IBFAB" route check --topology "$d/net.ibnd" --lfts "$d/dump.txt" >"$WORK/ropt/check.txt" 2>&1
check "read back: every pair delivered, no loop" grep -q '^unreachable: *0$' "$WORK/ropt/check.txt"
check "read back: at most 2 switch hops (rail, spine, rail)" grep -q '^longest path: *2 switch hops' "$WORK/ropt/check.txt"
# same-rail pairs: one switch hop (their rail switch)
"$IBFAB" route stats --topology "$d/net.ibnd" --lfts "$d/dump.txt" --json >"$WORK/ropt/stats.json" 2>/dev/null
"$IBFAB" route congestion --topology "$d/net.ibnd" --lfts "$d/dump.txt" --layer all >"$WORK/ropt/cong.txt" 2>&1
diag <"$WORK/ropt/cong.txt"
check "shifts at the leaf-cut bound in both layers" \
	test "$(grep -c 'worst AT the bound' "$WORK/ropt/cong.txt")" -ge 2
"$IBFAB" route --topology "$d/net.ibnd" --engine hratio -o "$WORK/ropt/offline.lfts" >/dev/null 2>&1
"$IBFAB" route diff --topology "$d/net.ibnd" --lfts "$WORK/ropt/offline.lfts" --lfts2 "$d/dump.txt" \
	>"$WORK/ropt/diff.txt" 2>&1
diag <"$WORK/ropt/diff.txt"
check "the switches hold the offline hratio tables" grep -q '^0 of [0-9]* (switch, LID) entries differ' "$WORK/ropt/diff.txt"
# the layers of a destination leave a rail switch by different spines
python3 - "$d/net.ibnd" "$d/dump.txt" <<'PY' >"$WORK/ropt/layers.txt" 2>&1
import re, sys
net, dump = open(sys.argv[1]).read(), open(sys.argv[2]).read()
ca = {}   # base lid of every CA port, lmc
for m in re.finditer(r'^\[\d+\]\([0-9a-f]+\)\s+"S-[0-9a-f]+"\[\d+\]\s+# lid (\d+) lmc (\d+)', net, re.M):
    ca[int(m.group(1))] = int(m.group(2))
same = total = 0
for blk in dump.split('Unicast lids')[1:]:
    if "rail" not in blk.split('\n')[0]:
        continue
    port = {}
    for m in re.finditer(r'^0x([0-9a-f]+) (\d+)', blk, re.M):
        port[int(m.group(1), 16)] = int(m.group(2))
    for base, lmc in ca.items():
        if lmc >= 1 and base in port and base + 1 in port:
            total += 1
            same += port[base] == port[base + 1]
print(total, same)
PY
read -r tot same <"$WORK/ropt/layers.txt"
check "LMC layers of a destination leave rail switches by different ports ($same of $tot the same; same-switch destinations only)" \
	sh -c "[ '$tot' -gt 0 ] && [ '$same' -le \$(( $tot / 8 )) ]"

"$IBFAB" topo gen rail --servers 16 --gpus 8 --format ibsim -o "$WORK/rol.net" >/dev/null 2>&1
run ronly "$WORK/rol.net" 0
d=$WORK/ronly/sim
check "rail-only 16x8: the SM's rail swept with hratio" grep -q "tables configured on all switches" "$d/opensm.log"
"$IBFAB" route check --topology "$d/net.ibnd" --lfts "$d/dump.txt" >"$WORK/ronly/check.txt" 2>&1
check "rail-only: the SM's rail (one component) fully routed" grep -q '^unreachable: *0$' "$WORK/ronly/check.txt"
"$IBFAB" route --topology "$WORK/rol.net" --engine hratio -o "$WORK/ronly/all.lfts" >/dev/null 2>&1
"$IBFAB" route check --topology "$WORK/rol.net" --lfts "$WORK/ronly/all.lfts" >"$WORK/ronly/all.txt" 2>&1
rc=$?
diag <"$WORK/ronly/all.txt"
check "rail-only offline: 8 rails routed, pairs between rails counted apart (exit 0)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'between the 8 switch components' '$WORK/ronly/all.txt'"
done_testing
