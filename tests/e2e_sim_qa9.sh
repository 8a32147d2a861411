#!/usr/bin/env bash
# QA round 9 of the simulators (docs/simulation.md, "QA round 9"): what
# `ibfab sim packet` / `sim flow` did wrong on inputs they had not been
# tried on, each pinned here from the command line.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 --parallel 2 --format ibsim -o "$W/ft.net" >/dev/null
"$IBFAB" topo gen fattree --m 4,4,8 --w 1,4,4 --format ibsim -o "$W/ft3.net" >/dev/null

# 1. node model: intra-node queues or a NIC smaller than one intra-node
# packet (148 B by default) ran as a bound of one packet; --nic-buf
# without --node-buf was ignored.  Usage errors now, nothing on stdout.
nodebuf() {
	local want=$1
	shift
	set +e
	"$IBFAB" sim packet --topology "$W/ft.net" --engine minimal --accels 4 --load 0.5 \
		--warmup 1us --measure 5us -q --svg "$W/nb.svg" "$@" >"$W/nb.out" 2>"$W/nb.err"
	local r=$?
	set -e
	if [ "$want" = ok ]; then
		check "node model $*: runs" test "$r" -eq 0 -a -s "$W/nb.svg"
	else
		check "node model $*: exit 2, '$want', no output" sh -c \
			"test $r -eq 2 && grep -q -- '$want' '$W/nb.err' && test ! -s '$W/nb.out' && test ! -e '$W/nb.svg'"
	fi
	rm -f "$W/nb.svg"
}
set -e
nodebuf "must hold one intra-node packet (148 bytes)" --node-buf 100
nodebuf "must hold one intra-node packet (148 bytes)" --node-buf 147
nodebuf ok --node-buf 148
nodebuf "must hold one intra-node packet (148 bytes)" --node-buf 4k --nic-buf 147
nodebuf ok --node-buf 4k --nic-buf 148
nodebuf "must hold one intra-node packet (4116 bytes)" --ipkt-payload 4096 --node-buf 4000
nodebuf "must hold one intra-node packet (84 bytes)" --msg 64 --node-buf 83
nodebuf ok --msg 64 --node-buf 84
nodebuf "--nic-buf goes with --accels K and --node-buf B" --nic-buf 100

# 2. CODES export into a directory that holds an earlier export of a larger
# tree: the earlier switches' tables stayed (83 .lft files for 6 switches);
# files that are not tables of that shape are left alone
codes() { "$IBFAB" sim packet --topology "$1" --engine dmodk --load 0.5 -q \
	--export-codes "$W/cx" >/dev/null; }
codes "$W/ft3.net"
check "codes: a 3-level export has 80 tables" test "$(ls "$W/cx" | grep -c '^0x.*\.lft$')" -eq 80
: >"$W/cx/keep.txt"
: >"$W/cx/0xnot-a-table.lft"
codes "$W/ft.net"
check "codes: a 2-level export into the same directory leaves its 6 tables only" \
	test "$(ls "$W/cx" | grep -c '^0x[0-9a-f]*\.lft$')" -eq 6
check "codes: the map names exactly the switches whose tables are there" python3 -c "
import csv, os
rows = list(csv.DictReader(open('$W/cx/codes-map.csv')))
sw = {int(r['codes_switch']) for r in rows}
lv = {int(r['codes_switch']): int(r['level']) for r in rows}
want = {'0x%016x.lft' % (((lv[c] + 1) << 32) + c) for c in sw}
have = {f for f in os.listdir('$W/cx') if f.endswith('.lft') and f != '0xnot-a-table.lft'}
assert want == have, (sorted(want), sorted(have))
"
check "codes: other files in the directory are kept" test -e "$W/cx/keep.txt" -a -e "$W/cx/0xnot-a-table.lft"

# 3. message streams between hosts the tables do not join (a fabric whose
# spines are gone: four leaves, routed piece by piece by hratio): every
# packet of shift:4 is dropped, and the phase read "1 of 1 repetitions in
# 5.393 us, total 5.393 us" as if 16 x 64 KiB had arrived.  Now the phase
# says how many packets it lost (text and JSON, barrier and per rank).
awk -f "$top_srcdir/contrib/net-damage.awk" -v dead=ft-l2-s0000 "$W/ft.net" "$W/ft.net" >"$W/a.net"
awk -f "$top_srcdir/contrib/net-damage.awk" -v dead=ft-l2-s0001 "$W/a.net" "$W/a.net" >"$W/leaves.net"
lost() { "$IBFAB" sim packet --topology "$W/leaves.net" --engine hratio --streams --bytes 64k \
	--load 1 --measure 10ms -q "$@" 2>/dev/null; }
lost --traffic shift:4 >"$W/s4.txt"
check "streams: a phase whose every packet is dropped says NOT DELIVERED" sh -c \
	"grep -q 'NOT every message delivered' '$W/s4.txt' && grep -q 'NOT DELIVERED: 272 packets' '$W/s4.txt'"
for sync in barrier rank; do
	check "streams ($sync): unroutable_packets per phase add up to the run's unroutable count" \
		python3 -c "
import json, subprocess
def run(t):
    p = subprocess.run(['$IBFAB', 'sim', 'packet', '--topology', '$W/leaves.net', '--engine', 'hratio',
                        '--streams', '--bytes', '64k', '--load', '1', '--measure', '10ms', '-q',
                        '--json', '--sync', '$sync', '--traffic', t], capture_output=True, text=True)
    return json.loads(p.stdout)['runs'][0]
for t in ('hier', 'shift:1', 'shift:4'):
    d = run(t)
    st, n = d['streams'], d['result']['packets']['unroutable']
    assert n > 0 and st['unroutable_packets'] == n, (t, st['unroutable_packets'], n)
    assert sum(p['unroutable_packets'] for p in st['phases']) == n, t
"
done
# a fabric where every pair is joined: nothing lost, nothing said
"$IBFAB" sim packet --topology "$W/ft.net" --engine dmodk --traffic shift:4 --streams --bytes 64k \
	--load 1 --measure 10ms -q >"$W/s4ok.txt" 2>/dev/null
check "streams: a joined fabric has no NOT DELIVERED" sh -c "! grep -q 'NOT' '$W/s4ok.txt'"
check "streams: a finished run has its total and no 'no total'" sh -c \
	"grep -q '^message streams: 1 of 1 phases done, 1 of 1 repetitions in .*, total ' '$W/s4.txt' && \
	! grep -q 'no total' '$W/s4.txt' '$W/s4ok.txt'"

# 4. CODES export of LMC > 0 tables: the simulation spreads packets over
# the 2^LMC LIDs, the export has one entry per terminal (layer 0); the
# summary said nothing of the other layers
"$IBFAB" sim packet --topology "$W/ft.net" --engine layered --lmc 2 --load 0.5 -q \
	--export-codes "$W/cxl" >"$W/cxl.txt" 2>/dev/null
check "codes: LMC 2 export says only layer 0 of 4 is in it" \
	grep -q 'LMC 2: the routes of the base LIDs only (layer 0 of 4)$' "$W/cxl.txt"
"$IBFAB" sim packet --topology "$W/ft.net" --engine layered --load 0.5 -q \
	--export-codes "$W/cxl0" >"$W/cxl0.txt" 2>/dev/null
check "codes: LMC 0 export has no such note" sh -c "! grep -q LMC '$W/cxl0.txt'"

# 5. tables that send a LID into a loopback cable (the 2016 SwitchIB has
# three, ports 1<->2 among them): the packet comes back to the same switch
# and the same entry, for good.  route check counted 3 looping pairs and
# the packet simulator locked the loopback's buffer (a cycle of one), but
# deadlock verify ended each walk at the loopback as if delivered
# ("looping pairs: 0 ... deadlock-free") and deadlock apply wrote SLs for
# them as deadlock-free.
loop=$FIXTURES/real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover
"$IBFAB" route --topology "$loop" --engine minimal -o "$W/loop.lfts" 2>/dev/null
# the SwitchIB's entry for LID 1 (port 3) -> port 1, its loopback to port 2
awk '/^Unicast/ { sw = /SwitchIB/ } sw && /^0x0001 / { sub(/ [0-9]+ /, " 001 ") } 1' \
	"$W/loop.lfts" >"$W/loopx.lfts"
check "loopback: the edited table sends LID 1 into port 1" \
	grep -q "^0x0001 001 # Channel Adapter portguid 0xe41d2d03005cf1f8" "$W/loopx.lfts"
set +e
"$IBFAB" route check --topology "$loop" --lfts "$W/loopx.lfts" >"$W/rc.txt" 2>&1
rcc=$?
"$IBFAB" deadlock verify --topology "$loop" --lfts "$W/loopx.lfts" --sl-const 0 \
	--sl2vl-identity 8 >"$W/ver.txt" 2>&1
rcv=$?
"$IBFAB" deadlock apply --topology "$loop" --lfts "$W/loopx.lfts" --sl "$W/lx.sl" \
	--sl2vl "$W/lx.s2v" >"$W/app.txt" 2>&1
rca=$?
"$IBFAB" deadlock apply --topology "$loop" --lfts "$W/loopx.lfts" --scheme coloring \
	--sl "$W/lx.sl" --sl2vl "$W/lx.s2v" >"$W/app2.txt" 2>&1
rca2=$?
"$IBFAB" sim packet --topology "$loop" --lfts "$W/loopx.lfts" --load 1 --buffer 8k \
	--measure 100us --stall 20us --json -q >"$W/lx.json" 2>/dev/null
rcs=$?
"$IBFAB" deadlock verify --topology "$loop" --lfts "$W/loop.lfts" --sl-const 0 \
	--sl2vl-identity 8 -q >/dev/null 2>&1
rcv0=$?
set -e
check "loopback: route check finds the 3 looping pairs" sh -c \
	"test $rcc -eq 1 && grep -q '^loops: *3$' '$W/rc.txt'"
check "loopback: the packet simulator locks the loopback (a cycle of 1 buffer)" python3 -c "
import json
d = json.load(open('$W/lx.json'))['runs'][0]['result']['deadlock']
assert $rcs == 1 and d and d['cycle_buffers'] == 1, d
c = d['cycle'][0]
assert c['from'] == c['to'] and c['from'].startswith('SwitchIB') and {c['from_port'], c['to_port']} == {1, 2}, c
"
check "loopback: deadlock verify reports them and says NOT deadlock-free" sh -c \
	"test $rcv -eq 1 && grep -q '^looping pairs: *3$' '$W/ver.txt' && \
	grep -q \"routes loop: 'SwitchIB Mellanox Technologies' -> LID 1\" '$W/ver.txt' && \
	grep -q 'NOT deadlock-free' '$W/ver.txt'"
check "loopback: deadlock apply (dfsssp, coloring) refuses the looping routes, writes nothing" \
	sh -c "test $rca -eq 1 && test $rca2 -eq 1 && grep -q 'routes towards LID 1 loop' '$W/app.txt' && \
	grep -q 'routes towards LID 1 loop' '$W/app2.txt' && test ! -e '$W/lx.sl' && test ! -e '$W/lx.s2v'"
check "loopback: the fabric's own tables (no route into a loopback) stay deadlock-free" \
	test "$rcv0" -eq 0

done_testing
