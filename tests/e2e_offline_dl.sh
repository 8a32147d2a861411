#!/usr/bin/env bash
# End to end: the offline path and the deadlock tools on damaged and
# hand-made fabrics, as a user would meet them.
#  - no simulator: outputs of `ibfab route` / `ibfab deadlock apply` are all
#    written or none; the verifier on hand-made tables (a ring whose SL2VL
#    maps by in port hides a cycle from a memo on (channel, SL)); SL2VL files
#    that are malformed, conflicting or beyond the VL limit are FILE:LINE
#    errors with no report.
#  - ibsim + stock OpenSM (`-R file`): the tables `ibfab route` writes for a
#    damaged Slim Fly are what the switches hold (dump_lfts), and every host
#    pair is reachable; tables for a different fabric (a switch missing, a
#    GUID changed) are refused with a clear message.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK

# ------------------------------------------------------------ all or nothing
# ring of N switches: port 1 -> next, port 2 -> previous, one host on port 3
ring() {
	local n=$1 i
	for i in $(seq 1 "$n"); do
		printf 'Switch 8 "r%d"\n[1] "r%d"[2]\n[2] "r%d"[1]\n[3] "h%d"[1]\n\n' \
			"$i" $((i % n + 1)) $(((i + n - 2) % n + 1)) "$i"
	done
	for i in $(seq 1 "$n"); do
		printf 'Hca 1 "h%d"\n[1] "r%d"[3]\n\n' "$i" "$i"
	done
}
ring 6 >"$W/ring6.net"
"$IBFAB" route -q --topology "$W/ring6.net" --engine minimal -o "$W/ring6.lft"
check "ring of 6: minimal tables" test -s "$W/ring6.lft"

"$IBFAB" route -q --topology "$W/ring6.net" --engine minimal --deadlock dfsssp \
	-o "$W/o.lft" --sl "$W/o.sl" --sl2vl "$W/nodir/o.sl2vl" 2>"$W/err"
rc=$?
diag <"$W/err"
check "route: SL2VL dump cannot be created: exit 1" test $rc -eq 1
check "... the error names the file" grep -q "nodir/o.sl2vl: cannot create" "$W/err"
check "... and neither the tables nor the SL dump were written" \
	test ! -e "$W/o.lft" -a ! -e "$W/o.sl"
check "... nor left temporary files" test -z "$(ls "$W" | grep '\.t[0-9]')"
"$IBFAB" route -q --topology "$W/ring6.net" --engine minimal --deadlock dfsssp \
	-o "$W/o.lft" --sl "$W/o.sl" --sl2vl "$W/o.sl2vl" --stats "$W/o.json"
check "route: all four outputs written when all can be" \
	test -s "$W/o.lft" -a -s "$W/o.sl" -a -s "$W/o.sl2vl" -a -s "$W/o.json"
cp "$W/o.lft" "$W/o.lft.before"
"$IBFAB" route -q --topology "$W/ring6.net" --engine layered --deadlock dfsssp \
	-o "$W/o.lft" --sl "$W/o.lft" 2>"$W/err"
rc=$?
check "route: one file for the tables and the SL dump: exit 1 ($rc), says so, file unchanged" \
	sh -c "test $rc -eq 1 && grep -q 'o.lft: given for two outputs' '$W/err' && cmp -s '$W/o.lft' '$W/o.lft.before'"
# the same file under two spellings (the second output replaced the first)
"$IBFAB" route -q --topology "$W/ring6.net" --engine layered --deadlock dfsssp \
	-o "$W/o.lft" --sl "$W/./o.lft" 2>"$W/err"
rc=$?
check "route: the tables and the SL dump in FILE and DIR/./FILE: exit 1 ($rc), file unchanged" \
	sh -c "test $rc -eq 1 && grep -q 'o.lft: given for two outputs' '$W/err' && cmp -s '$W/o.lft' '$W/o.lft.before'"
"$IBFAB" route -q --topology "$W/ring6.net" --engine layered --deadlock dfsssp \
	-o "$W/new.lft" --stats "$W/../$(basename "$W")/new.lft" 2>"$W/err"
rc=$?
check "route: a file not there yet under two spellings: exit 1 ($rc), nothing written" \
	sh -c "test $rc -eq 1 && grep -q 'new.lft: given for two outputs' '$W/err' && test ! -e '$W/new.lft'"
"$IBFAB" deadlock apply -q --topology "$W/ring6.net" --lfts "$W/ring6.lft" \
	--sl "$W/a.sl" --sl2vl "$W/nodir/a.sl2vl" 2>"$W/err"
rc=$?
check "deadlock apply: SL2VL dump cannot be created: exit 1, no SL dump" \
	test $rc -eq 1 -a ! -e "$W/a.sl"
"$IBFAB" deadlock apply -q --topology "$W/ring6.net" --lfts "$W/ring6.lft" --max-vls 1 \
	--sl "$W/b.sl" --sl2vl "$W/b.sl2vl" 2>"$W/err"
rc=$?
check "deadlock apply: 1 VL is too few for the ring: exit 1, says so, writes nothing" \
	test $rc -eq 1 -a ! -e "$W/b.sl" -a ! -e "$W/b.sl2vl"
check "... naming the VLs needed" grep -q "need 2 VLs" "$W/err"

# ------------------------------------------------------------ the verifier on hand-made tables
# ring of 4, every route clockwise (port 1), all on SL 0; SL2VL: a packet from
# the host or the switch itself on VL 1, from the previous switch on VL 0.
# The VL 0 channels close the clockwise cycle, each dependency made only by
# the 3-hop paths.
ring 4 >"$W/ring4.net"
"$IBFAB" route -q --topology "$W/ring4.net" --engine minimal -o "$W/ring4.lft"
sed -E 's/^(0x[0-9a-f]+) 002 /\1 001 /' "$W/ring4.lft" >"$W/cw.lft"
"$IBFAB" route check --topology "$W/ring4.net" --lfts "$W/cw.lft" >/dev/null
check "ring of 4, all clockwise: every pair delivered" test $? -eq 0
awk '/^Unicast lids/ { g = $0; sub(/.*guid /, "", g); sub(/ .*/, "", g)
		print "Switch guid " g ":"
		for (i = 0; i <= 3; i++) for (o = 0; o <= 3; o++) {
			vl = (i == 1 || i == 2) ? 0 : 1
			printf "ports: in %2d, out %2d: ", i, o
			for (k = 0; k < 16; k++) printf "|%2d", vl
			print "|"
		} }' "$W/cw.lft" >"$W/inport.sl2vl"
"$IBFAB" deadlock verify --topology "$W/ring4.net" --lfts "$W/cw.lft" --sl-const 0 \
	--sl2vl "$W/inport.sl2vl" >"$W/v.out" 2>&1
rc=$?
diag <"$W/v.out"
check "SL2VL by in port: the verifier finds the VL 0 cycle (exit $rc)" test $rc -eq 1
check "... a 4-channel cycle on VL 0" grep -q '^cycle 1: 4 dependencies' "$W/v.out"
check "... each dependency with the path that makes it" \
	test "$(grep -c "port 1 VL 0 -> 'r[0-9]' port 1 VL 0  by path" "$W/v.out")" -eq 4
check "... 8 dependencies in all (4 of them VL 1 -> VL 0)" grep -q ' 8 dependencies$' "$W/v.out"

# SL2VL files a switch cannot hold: FILE:LINE, exit 1, no report
"$IBFAB" deadlock apply -q --topology "$W/ring6.net" --lfts "$W/ring6.lft" --max-vls 2 \
	--sl "$W/r6.sl" --sl2vl "$W/r6.sl2vl"
check "ring of 6 on 2 VLs: dfsssp result written" test -s "$W/r6.sl" -a -s "$W/r6.sl2vl"
V() { "$IBFAB" deadlock verify --topology "$W/ring6.net" --lfts "$W/ring6.lft" --sl "$W/r6.sl" "$@"; }
V --sl2vl "$W/r6.sl2vl" --max-vls 2 >"$W/v.out" 2>&1
check "verify --max-vls 2 on the 2-VL result: deadlock-free" test $? -eq 0
bad() { # DESC FILE EXPECTED-MESSAGE [ARGS..]: exit 1, FILE:LINE message, nothing on stdout
	local d=$1 file=$2 msg=$3
	shift 3
	V --sl2vl "$file" "$@" >"$W/v.out" 2>"$W/v.err"
	local rc=$?
	diag <"$W/v.err"
	check "$d: exit 1 ($rc), '$msg', no report" \
		sh -c "test $rc -eq 1 && grep -qF -- '$msg' '$W/v.err' && test ! -s '$W/v.out'"
}
bad "verify --max-vls 1 on the 2-VL result" "$W/r6.sl2vl" "r6.sl2vl:5: SL 1 -> VL 1: beyond the 1" --max-vls 1
sed '6s/| 0| 1| 0|/| 0| 7| 0|/' "$W/r6.sl2vl" >"$W/vl7.sl2vl"
bad "a VL 7 entry with --max-vls 2" "$W/vl7.sl2vl" "vl7.sl2vl:6: SL 1 -> VL 7" --max-vls 2
sed '6s/|$/| 1|/' "$W/r6.sl2vl" >"$W/long.sl2vl"
bad "a row of 17 VLs" "$W/long.sl2vl" "long.sl2vl:6: expected 16 VLs (0..15), found more"
sed '7{p;s/| 0| 1| 0|/| 1| 1| 0|/}' "$W/r6.sl2vl" >"$W/dup.sl2vl"
bad "a row given twice with different VLs" "$W/dup.sl2vl" "dup.sl2vl:8: SL2VL row for in port 0, out port 2 differs"
sed '5s/| 0| 1| 0|/| x| 1| 0|/' "$W/r6.sl2vl" >"$W/x.sl2vl"
bad "a VL that is not a number" "$W/x.sl2vl" "x.sl2vl:5: expected 16 VLs"
sed '5s/out  0/out  9/' "$W/r6.sl2vl" >"$W/port.sl2vl"
bad "a port the switch does not have" "$W/port.sl2vl" "port.sl2vl:5: port out of range (switch has 8 ports)"
sed '3s/guid 0x[0-9a-f]*/guid 0x00000000deadbeef/' "$W/r6.sl2vl" >"$W/guid.sl2vl"
bad "a switch that is not in the fabric" "$W/guid.sl2vl" "guid.sl2vl:3: switch 0x00000000deadbeef is not in the fabric"
# VL 15 (drop) on a used hop: accepted as input, reported as dropped
awk '!done && /ports: in  3, out  1:/ { sub(/\| 0\| 1\|/, "|15|15|"); done = 1 } { print }' \
	"$W/r6.sl2vl" >"$W/vl15.sl2vl"
V --sl2vl "$W/vl15.sl2vl" --max-vls 2 >"$W/v.out" 2>&1
rc=$?
check "VL 15 on a used hop: exit 1 ($rc), the hops reported as dropped" \
	sh -c "test $rc -eq 1 && grep -q '^hops on VL 15: ' '$W/v.out' && grep -q 'NOT deadlock-free' '$W/v.out'"
# options of the other subcommand are usage errors, not silently ignored
V --sl2vl "$W/r6.sl2vl" --scheme auto >/dev/null 2>&1
check "verify --scheme: usage error (exit 2)" test $? -eq 2
V --sl2vl-identity 16 >/dev/null 2>&1
check "verify --sl2vl-identity 16 (SL 15 -> management VL): usage error" test $? -eq 2
V --sl2vl-identity 4 --max-vls 2 >/dev/null 2>&1
check "verify --sl2vl-identity 4 --max-vls 2: usage error" test $? -eq 2
"$IBFAB" deadlock apply -q --topology "$W/ring6.net" --lfts "$W/ring6.lft" --sl-const 0 >/dev/null 2>&1
check "apply --sl-const: usage error (exit 2)" test $? -eq 2
"$IBFAB" deadlock apply -q --topology "$W/ring6.net" --lfts "$W/ring6.lft" --scheme auto \
	--max-cycles 16 >/dev/null 2>&1
check "apply --max-cycles without --verify, even at its default value: usage error" test $? -eq 2

# a dump that lacks a switch's table (of another fabric, or a switch that did
# not answer): the deadlock tools refuse it instead of calling the partial
# tables deadlock-free
awk '/^Unicast lids/ { n++; skip = (n == 3) } !skip { print } /lids dumped/ { skip = 0 }' \
	"$W/ring6.lft" >"$W/miss.lft"
"$IBFAB" deadlock verify --topology "$W/ring6.net" --lfts "$W/miss.lft" --sl-const 0 \
	--sl2vl-identity 2 >"$W/v.out" 2>"$W/v.err"
rc=$?
diag <"$W/v.err"
check "verify on a dump without r3's table: exit 1 ($rc), names the switch, no report" \
	sh -c "test $rc -eq 1 && grep -q \"no table for switch 0x[0-9a-f]* ('r3')\" '$W/v.err' && test ! -s '$W/v.out'"
"$IBFAB" deadlock apply -q --topology "$W/ring6.net" --lfts "$W/miss.lft" --sl "$W/m.sl" 2>"$W/v.err"
rc=$?
check "apply on it: exit 1 ($rc), no SL dump" test $rc -eq 1 -a ! -e "$W/m.sl"

# ------------------------------------------------------------ route --deadlock --verify
# the independent verifier on the scheme's result, inside `ibfab route`, on a
# damaged Slim Fly (cables cut, a switch dead) with LMC 1 in 4 VLs
"$IBFAB" topo gen slimfly --q 5 --format ibsim -o "$W/v5.net"
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=5 -v cables=5 -v deadno=3 \
	"$W/v5.net" "$W/v5.net" >"$W/v5d.net"
for sch in dfsssp coloring auto; do
	"$IBFAB" route --topology "$W/v5d.net" --engine layered --lmc 1 --deadlock $sch --max-vls 4 \
		--verify -o "$W/v-$sch.lfts" --sl "$W/v-$sch.sl" --sl2vl "$W/v-$sch.s2v" 2>"$W/v.err"
	rc=$?
	diag <"$W/v.err"
	check "route --deadlock $sch --verify on the damaged Slim Fly: exit 0 ($rc), verified, all written" \
		sh -c "test $rc -eq 0 && grep -q '^result: *deadlock-free' '$W/v.err' &&
			test -s '$W/v-$sch.lfts' -a -s '$W/v-$sch.sl' -a -s '$W/v-$sch.s2v'"
	# the SL dump once (it was written a second time after the verifier)
	check "... the SL dump of $sch holds one header and one table per switch" \
		sh -c "test \$(grep -c '^# ibfab path SL dump' '$W/v-$sch.sl') -eq 1 &&
			test \$(grep -c '^Source switch ' '$W/v-$sch.sl') -eq \$(grep -c '^Switch ' '$W/v-$sch.s2v')"
done
"$IBFAB" route -q --topology "$W/v5d.net" --engine layered --lmc 1 --deadlock dfsssp --max-vls 1 \
	--best-effort --verify -o "$W/v-be.lfts" --sl "$W/v-be.sl" 2>"$W/v.err"
rc=$?
check "route --best-effort --verify: exit 1 ($rc), nothing written" \
	sh -c "test $rc -eq 1 -a ! -e '$W/v-be.lfts' -a ! -e '$W/v-be.sl' && grep -q 'not deadlock-free' '$W/v.err'"
# without --verify the best-effort result is written, marked, and exits 1
# like deadlock apply --best-effort; with enough VLs it is deadlock-free: 0
"$IBFAB" route --topology "$W/v5d.net" --engine layered --lmc 1 --deadlock dfsssp --max-vls 1 \
	--best-effort -o "$W/be.lfts" --sl "$W/be.sl" --sl2vl "$W/be.s2v" 2>"$W/v.err"
rc=$?
diag <"$W/v.err"
check "route --best-effort in 1 VL: exit 1 ($rc), all written, the SL dump marked NOT deadlock-free" \
	sh -c "test $rc -eq 1 -a -s '$W/be.lfts' -a -s '$W/be.s2v' && grep -q 'NOT deadlock-free' '$W/be.sl' &&
		grep -q 'exit 1' '$W/v.err'"
"$IBFAB" deadlock apply -q --topology "$W/v5d.net" --lmc 1 --lfts "$W/be.lfts" --best-effort --max-vls 1 \
	--sl "$W/bea.sl" 2>/dev/null
rc2=$?
check "... deadlock apply --best-effort on the same tables: also exit 1 ($rc2), written" \
	test $rc2 -eq 1 -a -s "$W/bea.sl"
"$IBFAB" route -q --topology "$W/v5d.net" --engine layered --lmc 1 --deadlock dfsssp --max-vls 8 \
	--best-effort -o "$W/be8.lfts" 2>"$W/v.err"
rc=$?
check "route --best-effort with 8 VLs: deadlock-free, exit 0 ($rc)" test $rc -eq 0 -a -s "$W/be8.lfts"
"$IBFAB" route -q --topology "$W/v5d.net" --engine layered --verify -o "$W/v-none.lfts" 2>"$W/v.err"
rc=$?
check "route --verify without --deadlock: usage error, exit 2 ($rc), nothing written" \
	sh -c "test $rc -eq 2 -a ! -e '$W/v-none.lfts' && grep -q 'need --deadlock' '$W/v.err'"

# ------------------------------------------------------------ ibsim + opensm -R file
sim_ok=1
for t in ibsim ibsim-run opensm ibnetdiscover dump_lfts; do
	command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 || sim_ok=0
done
PATH=$PATH:/usr/sbin:/sbin
if [ $sim_ok -eq 0 ]; then
	echo "# ibsim / opensm / infiniband-diags not installed: the live part is skipped"
	done_testing
fi
# Slim Fly q=5 (2 hosts per switch), 4 cables unplugged and one switch dead
"$IBFAB" topo gen slimfly --q 5 --hosts 2 --format ibsim -o "$W/sf5.net"
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=3 -v cables=4 -v deadno=7 \
	"$W/sf5.net" "$W/sf5.net" >"$W/dmg.net"
"$IBFAB" topo info "$W/dmg.net" >"$W/dmg.info"
check "damaged Slim Fly: 49 switches, 164 switch links, one component" \
	sh -c "grep -q '^switches: *49$' '$W/dmg.info' && grep -q '^switch links: *164 ' '$W/dmg.info' &&
		grep -q '^components: *1$' '$W/dmg.info'"
# one sweep (minhop, LMC 1) gives the LIDs; ibfab routes the discovered
# fabric (layered, 2 layers, dfsssp/coloring within 4 VLs); stock OpenSM
# loads the file; then the same file without one switch's table, and with
# that switch's GUID changed
"$HARNESS" with "$W/dmg.net" "$W/sim" -- bash -c '
	. "$0"; d=$IBFAB_SIM_DIR w=$1 ibfab=$2
	opensm_once "$d" -l 1 || { echo "opensm failed"; tail -5 "$d/opensm.out"; exit 1; }
	ibsim-run ibnetdiscover >"$w/net.ibnd" 2>/dev/null || exit 2
	"$ibfab" route -q --topology "$w/net.ibnd" --engine layered --deadlock auto --max-vls 4 \
		-o "$w/good.dump" --sl "$w/good.sl" --sl2vl "$w/good.sl2vl" || exit 3
	awk "/^Unicast lids/ { n++; skip = (n == 5) } !skip { print } /lids dumped/ { skip = 0 }" \
		"$w/good.dump" >"$w/miss.dump"
	awk "/^Unicast lids/ { n++; if (n == 5) sub(/guid 0x[0-9a-f]+/, \"guid 0x00000000deadbeef\") } { print }" \
		"$w/good.dump" >"$w/guid.dump"
	for t in good miss guid; do
		: >"$d/opensm.log"
		opensm_once "$d" -l 1 -R file -U "$w/$t.dump" || { echo "opensm -R file ($t) failed"; exit 4; }
		cp "$d/opensm.log" "$w/osm-$t.log"
		ibsim-run dump_lfts 2>/dev/null | grep -v "replaced by dump_fts" >"$w/live-$t.txt" || exit 5
	done
' "$top_srcdir/tests/lib.sh" "$W" "$IBFAB" 2>&1 | diag
check "ibsim: opensm, discovery, ibfab route, three opensm -R file sweeps ran" test "${PIPESTATUS[0]}" -eq 0
check "opensm -R file -U loaded the offline tables" grep -q "file tables configured on all switches" "$W/osm-good.log"
"$IBFAB" route diff -q --topology "$W/net.ibnd" --lfts "$W/live-good.txt" --lfts2 "$W/good.dump" >"$W/diff.txt" 2>&1
check "the switches hold exactly what the file said" test $? -eq 0
diag <"$W/diff.txt"
"$IBFAB" route check --topology "$W/net.ibnd" --lfts "$W/live-good.txt" >"$W/check.txt" 2>&1
check "every (source port, destination LID) pair is delivered by the live tables" test $? -eq 0
diag <"$W/check.txt"
"$IBFAB" deadlock verify -q --topology "$W/net.ibnd" --lfts "$W/live-good.txt" --sl "$W/good.sl" \
	--sl2vl "$W/good.sl2vl" --max-vls 4
check "the live tables with the offline SL and SL2VL dumps: deadlock-free within 4 VLs" test $? -eq 0
# stock OpenSM loads no SL / SL2VL file: on SL 0 and one VL the same tables are cyclic
"$IBFAB" deadlock verify -q --topology "$W/net.ibnd" --lfts "$W/live-good.txt" --sl-const 0 \
	--sl2vl-identity 1
check "... but cyclic on SL 0 and one VL, which is all opensm -R file programs (exit 1)" test $? -eq 1
# the file of another fabric: OpenSM says nothing and leaves the switch
# without routes; `ibfab route check` of the file against the fabric says why
for t in miss guid; do
	"$IBFAB" route check -q --topology "$W/net.ibnd" --lfts "$W/live-$t.txt" >/dev/null 2>&1
	check "$t: stock OpenSM left pairs undeliverable (exit 1)" test $? -eq 1
done
"$IBFAB" route check --topology "$W/net.ibnd" --lfts "$W/miss.dump" >"$W/c.out" 2>&1
rc=$?
diag <"$W/c.out"
check "route check of the file without a switch's table: exit 1 ($rc), the switch named first" \
	sh -c "test $rc -eq 1 && head -1 '$W/c.out' | grep -q '^no table: *1 of the fabric.s 49 switches are not in the dump, e.g. .sf-'"
"$IBFAB" route check --topology "$W/net.ibnd" --lfts "$W/guid.dump" >"$W/c.out" 2>&1
rc=$?
diag <"$W/c.out"
check "route check of the file with a foreign GUID: exit 1 ($rc), FILE:LINE names the GUID" \
	sh -c "test $rc -eq 1 && grep -q 'guid.dump:[0-9]*: switch guid 0x00000000deadbeef is not in the fabric' '$W/c.out'"
# tables routed on the plan (the net file's own LIDs, LMC 0) for the live
# fabric (OpenSM's LIDs, LMC 1): the dump's comments name each LID's port
"$IBFAB" route -q --topology "$W/dmg.net" --engine layered -o "$W/plan.dump"
"$IBFAB" route check --topology "$W/net.ibnd" --lfts "$W/plan.dump" >"$W/c.out" 2>&1
rc=$?
diag <"$W/c.out"
check "route check of tables made with the plan's LIDs: exit 1 ($rc), FILE:LINE says so" \
	sh -c "test $rc -eq 1 && grep -q 'plan.dump:[0-9]*: LID 0x[0-9a-f]* belongs to port guid 0x[0-9a-f]* in the dump but .*made for other LIDs' '$W/c.out'"

done_testing
