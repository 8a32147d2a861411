#!/usr/bin/env bash
# End to end, no simulator: the command line on small hand-written dumps of
# irregular fabrics (a host cabled to two switches, two cables between two
# switches one of them at 1x, a switch without a LID yet, a port GUID two
# adapters report, a node the reader splits), each check a defect found by
# QA on such input.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

# two switches with two cables between them (port 6 trained at 1xSDR);
# hostA is cabled to both switches, hostB twice to swA
cat >"$W/dual.ibnd" <<'NET'
#
# Topology file: generated on Fri Nov 27 06:00:00 2026
#

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90200001000
switchguid=0x2c90200001000(2c90200001000)
Switch	8 "S-0002c90200001000"		# "swA" enhanced port 0 lid 1 lmc 0
[1]	"H-0002c90300000a00"[1](2c90300000a01) 		# "hostA mlx4_0" lid 10 4xEDR
[2]	"H-0002c90300000b00"[1](2c90300000b01) 		# "hostB mlx4_0" lid 12 4xEDR
[3]	"H-0002c90300000b00"[2](2c90300000b02) 		# "hostB mlx4_0" lid 13 4xEDR
[5]	"S-0002c90200002000"[5]		# "swB" lid 2 4xEDR
[6]	"S-0002c90200002000"[6]		# "swB" lid 2 1xSDR
[7]	"H-0002c90300000c00"[1](2c90300000c01) 		# "hostC mlx4_0" lid 14 4xEDR

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90200002000
switchguid=0x2c90200002000(2c90200002000)
Switch	8 "S-0002c90200002000"		# "swB" enhanced port 0 lid 2 lmc 0
[1]	"H-0002c90300000a00"[2](2c90300000a02) 		# "hostA mlx4_0" lid 11 4xEDR
[2]	"H-0002c90300000d00"[1](2c90300000d01) 		# "hostD mlx4_0" lid 15 4xEDR
[5]	"S-0002c90200001000"[5]		# "swA" lid 1 4xEDR
[6]	"S-0002c90200001000"[6]		# "swA" lid 1 1xSDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000a03
caguid=0x2c90300000a00
Ca	2 "H-0002c90300000a00"		# "hostA mlx4_0"
[1](2c90300000a01) 	"S-0002c90200001000"[1]		# lid 10 lmc 0 "swA" lid 1 4xEDR
[2](2c90300000a02) 	"S-0002c90200002000"[1]		# lid 11 lmc 0 "swB" lid 2 4xEDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000b03
caguid=0x2c90300000b00
Ca	2 "H-0002c90300000b00"		# "hostB mlx4_0"
[1](2c90300000b01) 	"S-0002c90200001000"[2]		# lid 12 lmc 0 "swA" lid 1 4xEDR
[2](2c90300000b02) 	"S-0002c90200001000"[3]		# lid 13 lmc 0 "swA" lid 1 4xEDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000c03
caguid=0x2c90300000c00
Ca	2 "H-0002c90300000c00"		# "hostC mlx4_0"
[1](2c90300000c01) 	"S-0002c90200001000"[7]		# lid 14 lmc 0 "swA" lid 1 4xEDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000d03
caguid=0x2c90300000d00
Ca	2 "H-0002c90300000d00"		# "hostD mlx4_0"
[1](2c90300000d01) 	"S-0002c90200002000"[2]		# lid 15 lmc 0 "swB" lid 2 4xEDR
NET
D=$W/dual.ibnd

# dmodk on a fabric that is no fat tree: the reason once on stderr (the
# engine logged it as an error and the caller printed it again)
r=$(rc "$IBFAB" route --topology "$D" --engine dmodk -o "$W/dk.lfts")
check "dmodk on two switches side by side: exit 1, nothing written" sh -c "test $r = 1 && test ! -e '$W/dk.lfts'"
check "... 'not a fat tree' said once (was twice)" test "$(grep -c 'not a fat tree' "$W/err")" = 1

# a switch not swept yet (no LID) among ports that have theirs: the file's
# LIDs are kept and the switch gets a free one (all LIDs were re-assigned,
# silently, so tables made from the dump fitted no LID of the fabric and a
# stable reroute over it changed every entry)
sed 's/"swB" enhanced port 0 lid 2 lmc 0/"swB" enhanced port 0 lid 0 lmc 0/; s/"swB" lid 2 /"swB" lid 0 /' \
	"$D" >"$W/nolid.ibnd"
"$IBFAB" route --topology "$D" --engine minimal -o "$W/full.lfts" 2>/dev/null
r=$(rc "$IBFAB" route --topology "$W/nolid.ibnd" --engine minimal -o "$W/nolid.lfts")
check "switch without a LID: routes (exit $r), a note names it and its new LID" \
	sh -c "test $r = 0 && grep -q \"nolid.ibnd: 1 port(s) without a LID (first 'swB' port 0): the file's LIDs are kept .*(LID 2)\" '$W/err'"
check "... the tables are those of the dump whose LIDs are all there" cmp -s "$W/full.lfts" "$W/nolid.lfts"
r=$(rc "$IBFAB" route check --topology "$W/nolid.ibnd" --lfts "$W/full.lfts")
check "... route check of tables made with the file's LIDs: every pair ok (exit $r)" \
	sh -c "test $r = 0 && grep -q '^unreachable: *0$' '$W/out'"
r=$(rc "$IBFAB" route --topology "$W/nolid.ibnd" --engine minimal --previous-lfts "$W/full.lfts" -o "$W/st.lfts")
check "... stable reroute over it keeps every LID's column (exit $r)" \
	sh -c "test $r = 0 && grep -q 'stable: kept 8 of 8 destination LIDs, routed 0 again; 0 of 16' '$W/err'"
r=$(rc "$IBFAB" route --topology "$W/nolid.ibnd" --engine minimal --lmc 1 -o "$W/l1.lfts")
check "... with another --lmc all LIDs are assigned anew, and a note says so" \
	sh -c "test $r = 0 && grep -q 're-assigning all LIDs with LMC 1' '$W/err'"

# hostD reports hostC's port GUID (node GUIDs differ): topo info lists the
# GUID (it listed shared port GUIDs only when node GUIDs were unknown), and
# a guid2lid file, which can give that GUID one LID, is refused naming the
# port without one and the other port of its GUID
sed 's/(2c90300000d01)/(2c90300000c01)/' "$D" >"$W/dupport.ibnd"
r=$(rc "$IBFAB" topo info "$W/dupport.ibnd")
check "port GUID of two adapters: topo info lists it with both (exit $r)" \
	sh -c "test $r = 0 && grep -q '^duplicate GUIDs: 2 nodes' '$W/out' &&
		grep -q 'duplicate GUID 0x0002c90300000c01' '$W/out' &&
		grep -q \"'hostD mlx4_0' port 1 cabled to 'swB' port 2\" '$W/out'"
printf '0x%s %s %s\n' 0002c90200001000 1 1 0002c90200002000 2 2 0002c90300000a01 3 3 \
	0002c90300000a02 4 4 0002c90300000b01 5 5 0002c90300000b02 6 6 0002c90300000c01 7 7 >"$W/dup.g2l"
r=$(rc "$IBFAB" route --topology "$W/dupport.ibnd" --guid2lid "$W/dup.g2l" -o "$W/dup.lfts")
check "... route --guid2lid: exit 1 naming the port left without a LID and the shared GUID, nothing written" \
	sh -c "test $r = 1 && test ! -e '$W/dup.lfts' &&
		grep -q \"dup.g2l: gives a LID to only one of 'hostC mlx4_0' port 1 and 'hostD mlx4_0' port 1: both have port GUID 0x0002c90300000c01\" '$W/err'"
head -n 6 "$W/dup.g2l" >"$W/short.g2l"
r=$(rc "$IBFAB" route --topology "$D" --guid2lid "$W/short.g2l" --lmc 0)
check "guid2lid without an entry for a port: the error names it (exit $r)" \
	sh -c "test $r = 1 && grep -q \"short.g2l: gives no LID to 'hostC mlx4_0' port 1 (port GUID 0x0002c90300000c01)\" '$W/err'"

# a plan made from the dump plans the 1x twin at 4xEDR (topo info calls it
# degraded), so validating the same dump reports that cable; it was planned
# as found, 1xSDR, and the fabric validated clean against it
r=$(rc "$IBFAB" cabling from-topology "$D" -o "$W/plan.csv")
check "cabling from-topology: the degraded twin planned at 4x EDR, a note says so (exit $r)" \
	sh -c "test $r = 0 && grep -q '^2,1,switch,,swA,6,,swB,6,4x,EDR,' '$W/plan.csv' &&
		grep -q 'note: 1 degraded cable(s) planned at the rate they should run at' '$W/err'"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$D")
check "... validate against that plan: one degraded finding, the 1x cable (exit $r)" \
	sh -c "test $r = 1 && grep -q '^degraded: reseat or replace the cable between swA port 6 and swB port 6: it runs at 1xSDR, the plan says 4xEDR' '$W/out' &&
		grep -q '^1 finding: 1 degraded' '$W/out'"
# ibsim says every port supports 12x HDR (iblinkinfo shows it): only the
# 1x cable is planned faster, at the 4xEDR its like cables run at (every
# cable was planned at 12xHDR, and all 14 came out degraded)
IBL="$FIXTURES/io/ft-1x-via-ibsim.iblinkinfo"
r=$(rc "$IBFAB" cabling from-topology "$IBL" -o "$W/plan-ibsim.csv")
check "cabling from-topology of ibsim's iblinkinfo: one cable planned faster, none at 12x (exit $r)" \
	sh -c "test $r = 0 && grep -q 'note: 1 degraded cable(s) planned' '$W/err' &&
		! grep -q ',12x,' '$W/plan-ibsim.csv'"
r=$(rc "$IBFAB" validate --plan "$W/plan-ibsim.csv" --fabric "$IBL")
check "... validate against that plan: only the 1x cable, degraded (exit $r)" \
	sh -c "test $r = 1 && grep -q '^1 finding: 1 degraded' '$W/out' &&
		grep -q 'it runs at 1xEDR, the plan says 4xEDR' '$W/out'"

# 383 hosts at LMC 7 take a LID in every 128-block but the first: hostZ
# (no LID yet) finds no free block; the error names the file (it did not)
{
	printf '#\n# Topology file: generated\n#\n\n'
	for sw in 1 2; do
		if [ $sw = 1 ]; then lid=0 nm=swA o=2 ol=2; else lid=2 nm=swB o=1 ol=0; fi
		printf 'vendid=0x2c9\ndevid=0xc738\nsysimgguid=0x2c9020000%d000\n' $sw
		printf 'switchguid=0x2c9020000%d000(2c9020000%d000)\n' $sw $sw
		printf 'Switch\t254 "S-0002c9020000%d000"\t\t# "%s" enhanced port 0 lid %d lmc 0\n' \
			$sw $nm $lid
		for ((i = sw - 1; i < 383; i += 2)); do
			printf '[%d]\t"H-0002c903%08x"[1](2c903%08x) \t\t# "h%d" lid %d 4xEDR\n' \
				$((i / 2 + 1)) $i $((i + 1)) $i $((128 * (i + 1)))
		done
		[ $sw = 1 ] && printf '[250]\t"H-0002c903ffff0000"[1](2c903ffff0001) \t\t# "hostZ" lid 0 4xEDR\n'
		printf '[254]\t"S-0002c9020000%d000"[254]\t\t# "sw" lid %d 4xEDR\n\n' $o $ol
	done
	for ((i = 0; i < 383; i++)); do
		printf 'vendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c903%08x\ncaguid=0x2c903%08x\n' \
			$((i + 3)) $i
		printf 'Ca\t1 "H-0002c903%08x"\t\t# "h%d"\n' $i $i
		printf '[1](2c903%08x) \t"S-0002c9020000%d000"[%d]\t\t# lid %d lmc 7 "sw" lid 1 4xEDR\n\n' \
			$((i + 1)) $((i % 2 + 1)) $((i / 2 + 1)) $((128 * (i + 1)))
	done
	printf 'vendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c903ffff0003\ncaguid=0x2c903ffff0000\n'
	printf 'Ca\t1 "H-0002c903ffff0000"\t\t# "hostZ"\n'
	printf '[1](2c903ffff0001) \t"S-0002c90200001000"[250]\t\t# lid 0 lmc 0 "swA" lid 0 4xEDR\n'
} >"$W/full.ibnd"
r=$(rc "$IBFAB" route --topology "$W/full.ibnd" --engine minimal -o "$W/full-out.lfts")
check "no free LID block for a port without a LID: exit 1, the error names the file (exit $r)" \
	sh -c "test $r = 1 && test ! -e '$W/full-out.lfts' &&
		grep -q '$W/full.ibnd: out of unicast LIDs: no free block of 128 for .hostZ. port 1' '$W/err'"

# hostA's port 1 at LMC 1 from LID 10 (10-11) and its port 2 at LID 11:
# LID 11 twice; the error names the file (it named only the ports).  (Both
# ports at LMC 1 was the case before; a base LID 11 with LMC 1 is now an
# error of its own at its line, below.)
sed 's/lid 10 lmc 0/lid 10 lmc 1/' "$D" >"$W/overlap.ibnd"
for c in "route:--engine minimal -o $W/ov.lfts" "sim flow:--engine minimal --pattern a2a" \
	"route check:--lfts $W/full.lfts"; do
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" ${c%%:*} --topology "$W/overlap.ibnd" ${c#*:})
	check "LIDs of the dump overlap: ${c%%:*} exits 1 naming the file and both ports" \
		sh -c "test $r = 1 && grep -q \"overlap.ibnd: LID 11 used by 'hostA mlx4_0' port 1 and 'hostA mlx4_0' port 2\" '$W/err'"
done
sed 's/lid 10 lmc 0/lid 10 lmc 1/; s/lid 11 lmc 0/lid 11 lmc 1/' "$D" >"$W/unaligned.ibnd"
r=$(rc "$IBFAB" route --topology "$W/unaligned.ibnd" --engine minimal -o "$W/ua.lfts")
check "a base LID 11 with LMC 1: exit 1 at the adapter's line, not as an overlap" \
	sh -c "test $r = 1 && grep -q \"unaligned.ibnd:[0-9][0-9]*: 'hostA mlx4_0' port 2: LID 11 with LMC 1 is not a multiple of 2\" '$W/err'"
check "... nothing written" test ! -e "$W/ov.lfts"

# two switches that no cable joins, a host on each (a leaf cut off; a
# rail-only cluster): hratio routes each piece, sim packet drops the packets
# between them as unroutable and now says why (sim flow refuses them)
printf 'Switch\t4 "a"\n[1]\t"h1"[1]\t# 4xEDR\n\nSwitch\t4 "b"\n[1]\t"h2"[1]\t# 4xEDR\n\n%s\n\n%s\n' \
	'Hca	1 "h1"
[1]	"a"[1]	# 4xEDR' 'Hca	1 "h2"
[1]	"b"[1]	# 4xEDR' >"$W/apart.net"
r=$(rc "$IBFAB" sim packet --topology "$W/apart.net" --engine hratio --load 0.3 --warmup 1us --measure 3us)
check "sim packet, hosts on switches in two pieces: runs (exit $r), unroutable packets, a note says why" \
	sh -c "test $r = 0 && grep -q 'unroutable [1-9]' '$W/out' &&
		grep -q \"note: the switch graph is in 2 pieces, 2 of them with hosts (e.g. 'a' and 'b' are not connected)\" '$W/err'"
r=$(rc "$IBFAB" sim packet --topology "$D" --engine minimal --load 0.3 --warmup 1us --measure 3us)
check "... no such note on one piece (exit $r)" sh -c "test $r = 0 && ! grep -q pieces '$W/err'"

# a port line that names a switch with no record of its own (a hand-edited or
# cut dump), the comment giving that switch's LID as another's: the stub and
# the real switch share description and LID, and the error named
# "'swB' port 0 and 'swB' port 0"; the GUIDs now tell them apart
sed '0,/"S-0002c90200002000"\[5\]/s//"S-0002c902dead0000"[5]/' "$D" >"$W/stub.ibnd"
r=$(rc "$IBFAB" route --topology "$W/stub.ibnd" --engine minimal -o "$W/stub.lfts")
check "port line at a switch without a record, its LID another's: exit 1 naming both GUIDs, nothing written (exit $r)" \
	sh -c "test $r = 1 && test ! -e '$W/stub.lfts' &&
		grep -q \"stub.ibnd: LID 2 used by 'swB' (guid 0x0002c90200002000) port 0 and 'swB' (guid 0x0002c902dead0000) port 0\" '$W/err'"

# two switches that report one GUID (a firmware bug; the reader also splits a
# node whose port two cables claim into two nodes of one GUID): route wrote a
# table for each, and route check, deadlock verify and sim packet refused the
# files ("switch guid ... appears twice", or the SLs of one put on the other)
sed 's/^switchguid=0x2c90200002000(2c90200002000)/switchguid=0x2c90200001000(2c90200001000)/' \
	"$D" >"$W/dupsw.ibnd"
r=$(rc "$IBFAB" route --topology "$W/dupsw.ibnd" --engine minimal --deadlock auto \
	-o "$W/dupsw.lfts" --sl "$W/dupsw.sl" --sl2vl "$W/dupsw.s2v")
check "switch GUID twice: route writes a table per switch (exit $r)" \
	sh -c "test $r = 0 && test \$(grep -c '^Unicast lids.* guid 0x0002c90200001000' '$W/dupsw.lfts') = 2"
r=$(rc "$IBFAB" route check --topology "$W/dupsw.ibnd" --lfts "$W/dupsw.lfts")
check "... route check reads both tables back, every pair ok (exit $r)" \
	sh -c "test $r = 0 && grep -q '^unreachable: *0$' '$W/out' && grep -q '^misdelivered: *0$' '$W/out'"
r=$(rc "$IBFAB" deadlock verify --topology "$W/dupsw.ibnd" --lfts "$W/dupsw.lfts" \
	--sl "$W/dupsw.sl" --sl2vl "$W/dupsw.s2v")
check "... deadlock verify reads its SLs and SL2VL tables: deadlock-free (exit $r)" \
	sh -c "test $r = 0 && grep -q '^result: *deadlock-free' '$W/out'"

# a switch description of 1500 bytes (a node-name-map may give any name):
# route wrote SL and SL2VL dumps whose header line deadlock verify and sim
# packet refused ("line too long")
long=$(printf 'x%.0s' $(seq 1500))
sed "s/\"swB\"/\"$long\"/g" "$D" >"$W/longdesc.ibnd"
r=$(rc "$IBFAB" route --topology "$W/longdesc.ibnd" --engine minimal --deadlock auto \
	-o "$W/long.lfts" --sl "$W/long.sl" --sl2vl "$W/long.s2v")
check "description of 1500 bytes: route with --deadlock (exit $r)" test "$r" = 0
r=$(rc "$IBFAB" deadlock verify --topology "$W/longdesc.ibnd" --lfts "$W/long.lfts" \
	--sl "$W/long.sl" --sl2vl "$W/long.s2v")
check "... deadlock verify reads the dumps (exit $r; was 'line too long')" \
	sh -c "test $r = 0 && grep -q '^result: *deadlock-free' '$W/out'"
r=$(rc "$IBFAB" sim packet --topology "$W/longdesc.ibnd" --lfts "$W/long.lfts" \
	--sl "$W/long.sl" --sl2vl "$W/long.s2v" --load 0.3 --warmup 1us --measure 2us)
check "... sim packet reads them too (exit $r)" test "$r" = 0
r=$(rc "$IBFAB" cabling from-topology "$W/longdesc.ibnd" -o "$W/long.plan")
check "... cabling from-topology writes a plan (exit $r)" test "$r" = 0
r=$(rc "$IBFAB" validate --plan "$W/long.plan" --fabric "$W/longdesc.ibnd")
check "... validate against its own plan: every cable, no rename (was 1 renamed: the plan cut the name at 400 bytes, validate did not)" \
	sh -c "grep -q '8 of 8 planned cables correct' '$W/out' && ! grep -q 'renamed' '$W/out'"

# a node the reader splits: swC's record cables its port 1 to swA port 4,
# while swB's record also claims swC port 1 (two switches of one GUID that
# discovery merged); hostC likewise on swA port 7 and swB port 4.  The
# reader keeps both cables on two copies of each; from-topology names the
# second copy DESC-0x<GUID>.  validate against that plan reported
# unknown-node, missing-node and miswired: the copies share GUID and
# description, and only the first took its name
awk '
/^\[7\].*hostC/ { print; print "[4]\t\"S-0002c90200003000\"[1]\t\t# \"swC\" lid 3 4xEDR"; next }
/^\[2\].*hostD/ { print; print "[3]\t\"S-0002c90200003000\"[1]\t\t# \"swC\" lid 3 4xEDR"
	print "[4]\t\"H-0002c90300000c00\"[1](2c90300000c01) \t\t# \"hostC mlx4_0\" lid 14 4xEDR"; next }
{ sub(/1xSDR$/, "4xEDR"); print }
END {
	print "\nvendid=0x2c9\ndevid=0xc738\nsysimgguid=0x2c90200003000\nswitchguid=0x2c90200003000(2c90200003000)"
	print "Switch\t8 \"S-0002c90200003000\"\t\t# \"swC\" enhanced port 0 lid 3 lmc 0"
	print "[1]\t\"S-0002c90200001000\"[4]\t\t# \"swA\" lid 1 4xEDR"
}' "$D" >"$W/split.ibnd"
r=$(rc "$IBFAB" topo info "$W/split.ibnd")
check "split node: the reader keeps both cables of swC port 1 and hostC port 1 on copies (exit $r)" \
	sh -c "test $r = 0 && grep -q 'duplicate GUIDs: 4 nodes' '$W/out'"
r=$(rc "$IBFAB" cabling from-topology "$W/split.ibnd" -o "$W/split.plan")
check "... from-topology names the second copies apart (exit $r)" \
	sh -c "test $r = 0 && grep -q ',swB,3,,swC-0x0002c90200003000,1,' '$W/split.plan' &&
		grep -q ',swB,4,,hostC mlx4_0-0x0002c90300000c00,1,' '$W/split.plan'"
r=$(rc "$IBFAB" validate --plan "$W/split.plan" --fabric "$W/split.ibnd")
diag <"$W/out"
check "... validate against its own plan: clean (exit $r; was unknown-node, missing-node, miswired)" \
	sh -c "test $r = 0 && grep -q 'clean: 11 of 11 planned cables' '$W/out'"
# the same two switches read the other way round: swC's record now names
# swB port 3, so the reader's first copy is the one on swB; each copy still
# takes the name its cables agree with
sed '/^Switch\t8 "S-0002c90200003000"/,$ s/^\[1\]\t"S-0002c90200001000"\[4\]\t\t# "swA" lid 1 4xEDR$/[1]\t"S-0002c90200002000"[3]\t\t# "swB" lid 2 4xEDR/' \
	"$W/split.ibnd" >"$W/split2.ibnd"
r=$(rc "$IBFAB" validate --plan "$W/split.plan" --fabric "$W/split2.ibnd")
check "... the copies in the other order: clean too (exit $r)" \
	sh -c "test $r = 0 && grep -q 'clean: 11 of 11 planned cables' '$W/out' && ! cmp -s '$W/split.ibnd' '$W/split2.ibnd'"
# a cable next to a copy moved: swB port 3 to the free port 7
sed 's/^\[3\]\t"S-0002c90200003000"\[1\]/[7]\t"S-0002c90200003000"[1]/' "$W/split.ibnd" >"$W/split3.ibnd"
r=$(rc "$IBFAB" validate --plan "$W/split.plan" --fabric "$W/split3.ibnd")
diag <"$W/out"
check "... a cable moved next to the copy: one wrong-port finding naming cable 4 (exit $r)" \
	sh -c "test $r = 1 && grep -q '^1 finding: 1 wrong-port; 10 of 11' '$W/out' &&
		grep -q 'expected: cable 4 (step 1, switch): swB port 3 -- swC-0x0002c90200003000 port 1' '$W/out' &&
		grep -q 'found:    swB port 7 -- swC-0x0002c90200003000 port 1' '$W/out'"

# a ring of 160 switches: shortest paths up to 80 switch hops; dfsssp
# refused any path over 64 hops and sim packet dropped those packets
"$IBFAB" topo gen torus --dims 160 -o "$W/ring.ibnd"
r=$(rc "$IBFAB" route --topology "$W/ring.ibnd" --engine minimal --deadlock auto --verify -o "$W/ring.lfts")
check "ring of 160: --deadlock auto (dfsssp) with --verify: deadlock-free (exit $r; was 'a path longer than 64 hops')" \
	sh -c "test $r = 0 && grep -q 'longest path 80 hops, deadlock-free' '$W/err' && grep -q '^result: *deadlock-free' '$W/err'"
r=$(rc "$IBFAB" sim packet --topology "$W/ring.ibnd" --lfts "$W/ring.lfts" --load 0.05 --warmup 1us --measure 20us)
check "... sim packet on its minimal tables: no packet unroutable (exit $r)" \
	sh -c "test $r = 0 && grep -q 'unroutable 0,' '$W/out'"
# a stable reroute over two fabrics whose LIDs were assigned each on its own
# (--lmc re-assigns them, and a switch fewer moves every later LID): the
# columns of LIDs that name another port are routed again, and a note says
# why (the summary alone counted them as routed again, without a word)
"$IBFAB" topo gen dragonfly --a 3 --p 2 --h 1 --lmc 1 -o "$W/dfh.ibnd"
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=3 -v cables=0 -v deadno=2 \
	"$W/dfh.ibnd" "$W/dfh.ibnd" >"$W/dfd.ibnd"
"$IBFAB" route -q --topology "$W/dfh.ibnd" --engine minimal --lmc 0 -o "$W/dfh0.lfts" 2>/dev/null
r=$(rc "$IBFAB" route --topology "$W/dfd.ibnd" --engine minimal --lmc 0 --previous-lfts "$W/dfh0.lfts" \
	--previous-topology "$W/dfh.ibnd" -o "$W/dfd0.lfts")
check "stable reroute, LIDs re-assigned in each fabric: routes (exit $r), a note counts the LIDs of other ports" \
	sh -c "test $r = 0 && grep -q 'note: [1-9][0-9]* of the [0-9]* LIDs both fabrics use name another port in .*dfh.ibnd than in .*dfd.ibnd' '$W/err'"
"$IBFAB" route -q --topology "$W/dfh.ibnd" --engine minimal -o "$W/dfh1.lfts" 2>/dev/null
r=$(rc "$IBFAB" route --topology "$W/dfd.ibnd" --engine minimal --previous-lfts "$W/dfh1.lfts" \
	--previous-topology "$W/dfh.ibnd" -o "$W/dfd1.lfts")
check "... with the files' own LIDs: no such note, columns kept (exit $r)" \
	sh -c "test $r = 0 && ! grep -q 'name another port' '$W/err' && grep -q 'stable: kept [1-9]' '$W/err'"

done_testing
