#!/usr/bin/env bash
# Cable validation of switches whose node description is not their plan
# name (replaced after an RMA, factory default, typo, two names exchanged),
# without a node-name-map or --anchor: each is placed by its named
# neighbours and reported as one 'renamed' finding, its cables classified
# as usual; a foreign switch is still unknown.  Slim Fly q=5 and a 4-ary
# 3-tree plan from 'ibfab cabling from-topology', edited as ibsim net files
# (names are node ids there); the Slim Fly once more through ibsim +
# ibnetdiscover when they are installed.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK

# rc CMD...: run with stdout to $W/out, print the exit status
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }
# kinds FILE: "kind count" of every finding line, sorted
kinds() {
	grep -oE '^(missing|extra|miswired|wrong-port|swapped|degraded|unknown-node|missing-node|renamed): ' "$1" |
		sed 's/: $//' | sort | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }'
}

"$IBFAB" cabling slimfly --q 5 --switch-ports 16 -o "$W/plan.csv" 2>"$W/gen.err"
check "q=5 plan with its ibsim net file" test -s "$W/plan.net"
NET=$W/plan.net

# rename IN OUT OLD NEW: the node OLD of a net file (names are its ids) called NEW
rename() { awk -v o="\"$3\"" -v n="\"$4\"" '{ gsub(o, n) } { print }' "$1" >"$2"; }
# peer NAME PORT -> "PEER PEERPORT" from the plan
peer() {
	awk -F, -v n="$1" -v p="$2" 'NR > 1 {
		if ($5 == n && $6 == p) { print $8, $9; exit }
		if ($8 == n && $9 == p) { print $5, $6; exit }
	}' "$W/plan.csv"
}

R=sf-r03-g1-s02
rename "$NET" "$W/rma.net" $R "MF0;sw-r03-u12:MQM8700/U1"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/rma.net")
diag <"$W/out"
check "RMA'd switch with a factory description: exit 1" test "$r" = 1
check "... one finding, renamed (was unknown-node + missing-node + its cables)" test "$(kinds "$W/out")" = "renamed 1"
check "... rename it to $R: every one of its 11 cables matches" \
	bash -c 'grep -qE "^renamed: rename switch 0x[0-9a-f]{16} \(.MF0;sw-r03-u12:MQM8700/U1.\) to $1: set its node description" "$0" &&
		grep -qF "every one of its 11 cables matches the plan" "$0"' "$W/out" $R
check "... all 375 cables correct" grep -q "; 375 of 375 planned cables correct" "$W/out"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/rma.net" --json)
check "JSON: exit 1, one renamed finding" test "$r" = 1 -a "$(grep -c '"kind": "renamed"' "$W/out")" = 1
if command -v python3 >/dev/null; then
	check "JSON parses: not clean, summary renamed 1, ok 375" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["clean"] and d["summary"]["renamed"] == 1 and d["summary"]["ok"] == 375
assert len(d["findings"]) == 1 and sys.argv[2] in d["findings"][0]["fix"]' "$W/out" $R
fi
# with the hosts behind it nameless too: placed by position
awk -v r="$R-h0" '{ if (index($0, "\"" r)) gsub(/"sf-r03-g1-s02-h0/, "\"node HCA-"); print }' "$W/rma.net" >"$W/rma-hosts.net"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/rma-hosts.net")
diag <"$W/out"
check "... and its 4 hosts nameless: still one renamed finding, hosts by position 4" \
	bash -c 'test "$1" = "renamed 1" && grep -q "hosts by position 4," "$0"' "$W/out" "$(kinds "$W/out")"

# ... with one cable moved to a free port of another switch: the rename plus one miswire
read -r PB PP <<<"$(peer $R 4)"
net_edit "$NET" "$W/mis0.net" "del $R 4" "del $PB $PP" "add $R 4 sf-r04-g1-s04 12" "add sf-r04-g1-s04 12 $R 4"
rename "$W/mis0.net" "$W/mis.net" $R "MF0;switch"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/mis.net")
diag <"$W/out"
check "renamed switch with one cable on another switch: the rename and one miswire" \
	test "$(kinds "$W/out")" = "miswired 1, renamed 1"
check "... move the cable at $R port 4 from sf-r04-g1-s04 port 12 to $PB port $PP" \
	grep -qF "miswired: move the cable at $R port 4 from sf-r04-g1-s04 port 12 to $PB port $PP" "$W/out"
check "... 10 of its 11 cables match" grep -qF "10 of its 11 cables match the plan" "$W/out"
# ... or that cable lost
net_edit "$NET" "$W/lost0.net" "del $R 4" "del $PB $PP"
rename "$W/lost0.net" "$W/lost.net" $R "MF0;switch"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/lost.net")
diag <"$W/out"
check "renamed switch that lost a cable: the rename and one missing cable" \
	test "$(kinds "$W/out")" = "missing 1, renamed 1"

# two pairs of switches with exchanged names, neighbours (cable 40) and not
A=sf-r03-g1-s02 B=sf-r03-g1-s04 C=sf-r00-g0-s01 D=sf-r02-g1-s03
rename "$NET" "$W/x1" $A TMP && rename "$W/x1" "$W/x2" $B $A && rename "$W/x2" "$W/x3" TMP $B
rename "$W/x3" "$W/x4" $C TMP && rename "$W/x4" "$W/x5" $D $C && rename "$W/x5" "$W/swapnames.net" TMP $D
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/swapnames.net")
diag <"$W/out"
check "two pairs of exchanged names: exit 1, four renamed findings, nothing else" \
	test "$r" = 1 -a "$(kinds "$W/out")" = "renamed 4"
check "... the switch called $A is told to be $B" grep -qF "('$A') to $B: set its node description" "$W/out"
check "... all 375 cables correct" grep -q "; 375 of 375 planned cables correct" "$W/out"

# half cabled (steps 1 and 2): its 3 cables of those steps only
ops=()
while IFS=, read -r _ step _ _ a ap _ b bp _; do
	[ "$step" -ge 3 ] 2>/dev/null && ops+=("del $a $ap" "del $b $bp")
done < <(tail -n +2 "$W/plan.csv")
net_edit "$NET" "$W/half0.net" "${ops[@]}"
rename "$W/half0.net" "$W/half.net" $R "MF0;switch"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/half.net" --partial)
diag <"$W/out"
check "--partial, steps 1-2 cabled, renamed switch: exit 1, one renamed finding" \
	test "$r" = 1 -a "$(kinds "$W/out")" = "renamed 1"
check "... its 3 cables of steps 1-2 match" grep -qF "every one of its 3 cables matches" "$W/out"

# a foreign switch on two free ports stays unknown, nothing is renamed
net_edit "$NET" "$W/foreign0.net" "add sf-r00-g0-s00 16 foreign 1" "add sf-r01-g0-s00 16 foreign 2"
printf 'switchguid=0xbeef00\nSwitch\t16 "foreign"\n[1]\t"sf-r00-g0-s00"[16]\n[2]\t"sf-r01-g0-s00"[16]\n\n' | cat "$W/foreign0.net" - >"$W/foreign.net"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/foreign.net")
diag <"$W/out"
check "a foreign switch on two free ports: unknown-node, not renamed" test "$(kinds "$W/out")" = "unknown-node 1"

# a fat tree planned from its topology: a renamed middle switch, two leaves exchanged
"$IBFAB" topo gen fattree --kary 4 --n 3 -o "$W/ft.ibnd"
"$IBFAB" cabling from-topology "$W/ft.ibnd" -o "$W/ft.csv" --net "$W/ft.net" 2>/dev/null
check "4-ary 3-tree plan (192 cables)" test "$(($(wc -l <"$W/ft.csv") - 1))" -eq 192
rename "$W/ft.net" "$W/ft1" ft-l2-s0003 "MF0;switch"
rename "$W/ft1" "$W/ft2" ft-l1-s0000 TMP && rename "$W/ft2" "$W/ft3" ft-l1-s0005 ft-l1-s0000 &&
	rename "$W/ft3" "$W/ft-bad.net" TMP ft-l1-s0005
r=$(rc "$IBFAB" validate --plan "$W/ft.csv" --fabric "$W/ft-bad.net")
diag <"$W/out"
check "fat tree: exit 1, three renamed findings, all 192 cables correct" \
	bash -c 'test "$1" = 1 -a "$2" = "renamed 3" && grep -q "; 192 of 192 planned cables correct" "$0"' \
	"$W/out" "$r" "$(kinds "$W/out")"
check "... ft-l2-s0003 from 'MF0;switch'" grep -qF "('MF0;switch') to ft-l2-s0003: " "$W/out"
r=$(rc "$IBFAB" validate --plan "$W/ft.csv" --fabric "$W/ft.net")
check "fat tree as planned (its net file): clean" test "$r" = 0

# through ibsim: the net file with the switch under another name
if command -v ibsim >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v ibsim >/dev/null 2>&1; then
	need_sim
	sed "s/\"$R\"/\"MF0;sw-r03-u12\"/g" "$W/plan.net" >"$W/rma.net"
	check "ibsim + ibnetdiscover with $R named 'MF0;sw-r03-u12'" discover "$W/rma.net" rmasim
	r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/rmasim.ibnd")
	diag <"$W/out"
	check "... exit 1, one renamed finding, 375 of 375 correct" \
		bash -c 'test "$1" = 1 -a "$2" = "renamed 1" && grep -q "; 375 of 375 planned cables correct" "$0"' \
		"$W/out" "$r" "$(kinds "$W/out")"
fi

done_testing
