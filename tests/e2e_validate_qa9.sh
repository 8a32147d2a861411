#!/usr/bin/env bash
# QA round 9 of cabling plans and the validator, on inputs the other tests do
# not use: a Slim Fly with q = 4 (a prime power, not a prime) and odd ports
# (hosts in the middle, spare ports, 2xHDR); hosts that took another host's
# name, whichever of the two the file lists first; a move onto a host that
# is not there; plan CSV errors (a row copied twice, a port used twice) and
# a hand-typed plan (lowercase speeds, CRLF, a BOM).  Fabrics are edited as
# ibsim net files (names are node ids there), converted to ibnetdiscover
# output and given other node descriptions there.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }
kinds() {
	grep -oE '^(missing|extra|miswired|wrong-port|swapped|rotated|degraded|port-limited|unknown-node|missing-node|renamed): ' "$1" |
		sed 's/: $//' | sort | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }'
}
# the cables it adds run at 2xHDR, as the plan (net_edit: tests/lib.sh)
NET_EDIT_RATE=2xHDR
# redesc IN OUT OLD NEW: node description OLD (ibnetdiscover output, whose
# node ids are GUIDs) becomes NEW
redesc() { awk -v o="\"$3\"" -v n="\"$4\"" '{ gsub(o, n) } { print }' "$1" >"$2"; }

"$IBFAB" cabling slimfly --q 4 --hosts 3 --first-host-port 3 --switch-ports 12 --link 2xHDR \
	-o "$W/plan.csv" 2>"$W/gen.err"
diag <"$W/gen.err"
check "q=4 plan: 32 switches, 96 switch + 96 host cables" test "$(($(wc -l <"$W/plan.csv") - 1))" -eq 192
check "... hosts on ports 3-5, switch links on 1-2 and 6-9, 12 ports, 2xHDR" \
	bash -c 'awk -F, '\''NR > 1 && $3 == "host" && ($6 < 3 || $6 > 5) { bad = 1 }
		NR > 1 && $3 != "host" && (($6 > 2 && $6 < 6) || $6 > 9 || $9 > 9) { bad = 1 }
		NR > 1 && ($10 != "2x" || $11 != "HDR" || $12 != 12) { bad = 1 }
		END { exit bad }'\'' "$0"' "$W/plan.csv"
"$IBFAB" topo convert "$W/plan.net" --format ibnetdiscover -o "$W/plan.ibnd"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/plan.ibnd")
check "the planned fabric validates clean" test "$r" = 0 -a "$(grep -c '^clean: 192 of 192' "$W/out")" = 1

# a host that took another host's name: the one the plan puts where it
# stands keeps the name, the other is named by its position.  With the
# impostor first in the file, both used to be reported miswired, one of
# them "move the cable at X from H port 1 to H port 1".
for pair in "sf-r01-g1-s02-h00 sf-r02-g1-s02-h01" "sf-r02-g1-s02-h01 sf-r01-g1-s02-h00"; do
	read -r A B <<<"$pair"
	redesc "$W/plan.ibnd" "$W/dup.ibnd" "$A" "$B"
	r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/dup.ibnd")
	diag <"$W/out"
	check "host $A described as $B: clean, one host by position" \
		bash -c 'test "$1" = 0 && grep -q "hosts by position 1$" "$0" && grep -q "^clean: 192 of 192" "$0"' \
		"$W/out" "$r"
done
# ... and the JSON report says the same
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/dup.ibnd" --json)
check "... JSON: clean" test "$r" = 0 -a "$(grep -c '"clean": true' "$W/out")" = 1

# a cable moved onto the port of a host that is not there: the fix names a
# host, not "that switch was not found"
S=sf-r01-g1-s02 T=sf-r02-g1-s02
awk -v h="$S-h00" '$0 ~ "^Ca[ \t]+[0-9]+[ \t]+\"" h "\"" { skip = 1; next }
	skip && /^$/ { skip = 0; next } !skip' "$W/plan.net" >"$W/nohost0.net"
net_edit "$W/nohost0.net" "$W/nohost.net" "del $S 3" "del $T 4" "del $T-h01 1" "del $T 5" "del $T-h02 1" \
	"add $S 3 $T-h01 1" "add $T-h01 1 $S 3" "add $T 4 $T-h02 1" "add $T-h02 1 $T 4"
"$IBFAB" topo convert "$W/nohost.net" --format ibnetdiscover -o "$W/nohost.ibnd" 2>&1 | diag
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/nohost.ibnd")
diag <"$W/out"
check "host $S-h00 absent, $T-h01 on its port: exit 1, three findings" \
	test "$r" = 1 -a "$(kinds "$W/out")" = "missing 1, miswired 1, wrong-port 1"
check "... the miswire's target is a host that was not found" \
	grep -qE "^miswired: .* to $S-h00 port 1 \(that host was not found\)$" "$W/out"

# a dual-port adapter with both cables on one switch, the two exchanged:
# swap them at the switch (lower port first), as documented; it used to
# say at the adapter's ports 1 and 2
printf 'cable,step,kind,a_switch,a_port,b_switch,b_port\n1,1,switch,sw1,1,sw2,1\n%s\n%s\n%s\n' \
	2,2,host,sw1,6,hostA,1 3,2,host,sw1,5,hostA,2 4,2,host,sw2,3,hostB,1 >"$W/dp.csv"
"$IBFAB" cabling render --plan "$W/dp.csv" --format ibsim -o "$W/dp.net"
sed -e 's/^\[5\]\t"hostA"\[2\]/[5]\t"hostA"[1]/' -e 's/^\[6\]\t"hostA"\[1\]/[6]\t"hostA"[2]/' \
	-e 's/^\[1\]\t"sw1"\[6\]/[1]\t"sw1"[5]/' -e 's/^\[2\]\t"sw1"\[5\]/[2]\t"sw1"[6]/' "$W/dp.net" >"$W/dp2.net"
check "dual-port adapter test fabric edited" test "$(diff "$W/dp.net" "$W/dp2.net" | grep -c '^>')" = 4
r=$(rc "$IBFAB" validate --plan "$W/dp.csv" --fabric "$W/dp2.net")
diag <"$W/out"
check "its two cables exchanged: one swap, at sw1 ports 5 and 6" \
	bash -c 'test "$1" = 1 && grep -q "^1 finding: 1 swapped" "$0" &&
		grep -qxF "swapped: swap the two cables at sw1 port 5 and sw1 port 6 (exchange the plugs)" "$0"' "$W/out" "$r"

# two cables swapped, one of them running at 1x: the swap and a degraded
# finding for that cable (moving it does not mend it); it used to be the
# swap alone
peer() {
	awk -F, -v n="$1" -v p="$2" 'NR > 1 {
		if ($5 == n && $6 == p) { print $8, $9; exit }
		if ($8 == n && $9 == p) { print $5, $6; exit }
	}' "$W/plan.csv"
}
read -r B6 P6 <<<"$(peer $S 6)"
read -r B7 P7 <<<"$(peer $S 7)"
net_edit "$W/plan.net" "$W/swap1x.net" "del $S 6" "del $S 7" "del $B6 $P6" "del $B7 $P7" \
	"add $S 6 $B7 $P7 1xHDR" "add $B7 $P7 $S 6 1xHDR" "add $S 7 $B6 $P6" "add $B6 $P6 $S 7"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/swap1x.net")
diag <"$W/out"
check "swap with one cable at 1x: exit 1, one swap and one degraded" \
	test "$r" = 1 -a "$(kinds "$W/out")" = "degraded 1, swapped 1"
check "... the degraded one is the cable at $S port 6, to $B7 port $P7" \
	grep -qE "^degraded: the cable between ($S port 6 and $B7 port $P7|$B7 port $P7 and $S port 6) runs at 1xHDR, the plan says 2xHDR: moving it does not mend that" "$W/out"
net_edit "$W/plan.net" "$W/swap.net" "del $S 6" "del $S 7" "del $B6 $P6" "del $B7 $P7" \
	"add $S 6 $B7 $P7" "add $B7 $P7 $S 6" "add $S 7 $B6 $P6" "add $B6 $P6 $S 7"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/swap.net")
check "... at full rate: the swap alone" test "$r" = 1 -a "$(kinds "$W/out")" = "swapped 1"

# every node under a factory description, named from one anchor: two
# cables exchanged at the anchor (to racks r02 and r03) and one cable
# missing there.  The waves used to place the two switches behind the
# anchor in each other's place and carry that on (13 swaps reported)
A=sf-r00-g0-s00
read -r B8 P8 <<<"$(peer $A 8)"
read -r B9 P9 <<<"$(peer $A 9)"
read -r B1 P1 <<<"$(peer $A 1)"
net_edit "$W/plan.net" "$W/anc.net" "del $A 8" "del $A 9" "del $B8 $P8" "del $B9 $P9" "del $A 1" "del $B1 $P1" \
	"add $A 8 $B9 $P9" "add $B9 $P9 $A 8" "add $A 9 $B8 $P8" "add $B8 $P8 $A 9"
"$IBFAB" topo convert "$W/anc.net" --format ibnetdiscover -o "$W/anc0.ibnd"
awk '/^(Switch|Ca)/ { sub(/# "[^"]*"/, "# \"MF0;switch\"") } { print }' "$W/anc0.ibnd" >"$W/anc.ibnd"
G=$(awk -v a="$A" '/^switchguid=/ { g = $0; sub(/^switchguid=/, "", g); sub(/\(.*/, "", g) }
	/^Switch/ && index($0, "# \"" a "\"") { print g; exit }' "$W/anc0.ibnd")
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/anc.ibnd" --anchor "$A=$G")
diag <"$W/out"
check "anchored, a swap and a missing cable at the anchor: exactly those two findings" \
	bash -c 'test "$1" = 1 -a "$2" = "missing 1, swapped 1" && grep -qF "swapped: swap the two cables at $3 port 8 and $3 port 9" "$0"' \
	"$W/out" "$r" "$(kinds "$W/out")" $A

# plan CSV errors name FILE:LINE and the earlier line
head -4 "$W/plan.csv" >"$W/dup.csv"
sed -n 3p "$W/plan.csv" >>"$W/dup.csv"
r=$(rc "$IBFAB" validate --plan "$W/dup.csv" --fabric "$W/plan.ibnd")
check "a row copied twice: exit 2, 'cable number N is used twice (first at line 3)' at line 5" \
	bash -c 'test "$1" = 2 && grep -qE "dup.csv:5: cable number [0-9]+ is used twice \(first at line 3\)" "$0" && ! test -s "$2"' \
	"$W/err" "$r" "$W/out"
head -4 "$W/plan.csv" >"$W/twice.csv"
sed -n 3p "$W/plan.csv" | sed 's/^[0-9]*,/999,/' >>"$W/twice.csv"
r=$(rc "$IBFAB" validate --plan "$W/twice.csv" --fabric "$W/plan.ibnd")
check "a port used twice: exit 2, names cable 999 at line 5 and the earlier cable's line" \
	bash -c 'test "$1" = 2 && grep -qE "twice.csv:5: .* port [0-9]+ is used by cable [0-9]+ \(line 3\) and cable 999" "$0"' \
	"$W/err" "$r"
# a hand-typed copy: lowercase speed and width, CRLF, a BOM
{
	printf '\357\273\277'
	awk -F, -v OFS=, 'NR > 1 { $10 = toupper($10); $11 = tolower($11) } { printf "%s\r\n", $0 }' "$W/plan.csv"
} >"$W/typed.csv"
r=$(rc "$IBFAB" validate --plan "$W/typed.csv" --fabric "$W/plan.ibnd")
diag <"$W/err"
check "plan with a BOM, CRLF, '2X' and 'hdr': read, clean" test "$r" = 0 -a "$(grep -c '^clean: 192 of 192' "$W/out")" = 1
r=$(rc "$IBFAB" cabling slimfly --q 3 --link 4xedr -o "$W/lc.csv" --no-fabric)
check "--link 4xedr is 4xEDR" bash -c 'test "$1" = 0 && sed -n 2p "$0" | grep -q ",4x,EDR,"' "$W/lc.csv" "$r"
done_testing
