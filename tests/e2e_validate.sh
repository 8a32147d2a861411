#!/usr/bin/env bash
# Cable validation end to end: Slim Fly q=5 plan -> ibsim net file with
# deliberate faults (two swapped cables, three rotated, one cable on a wrong free port, one
# cable missing, one extra cable between free ports, one link at 1x width)
# -> ibsim -> ibnetdiscover (directed-route discovery, no SM needed) ->
# ibfab validate reports exactly those faults with the right fixes; the
# unfaulted net file validates clean.
. "$(dirname "$0")/lib.sh"
need_sim
mk_workdir

"$IBFAB" cabling slimfly --q 5 --switch-ports 16 -o "$WORK/plan.csv" --sheets "$WORK/sheets" 2>"$WORK/gen.err"
check "q=5 plan with net file, ibnetdiscover text and node-name-map" \
	test -s "$WORK/plan.csv" -a -s "$WORK/plan.net" -a -s "$WORK/plan.ibnetdiscover" -a -s "$WORK/plan.node-name-map"
diag <"$WORK/gen.err"
check "175 switch cables + 200 host cables in the plan" test "$(($(wc -l <"$WORK/plan.csv") - 1))" -eq 375
check "wiring sheets: 5 racks + 10 rack pairs" test "$(ls "$WORK"/sheets/*.svg | wc -l)" -eq 15

# the planned fabric is the Slim Fly graph
"$IBFAB" topo gen slimfly --q 5 --switch-ports 16 -o "$WORK/gen.ibnd"
"$IBFAB" topo links --no-ports "$WORK/gen.ibnd" | sed 's/ [0-9]*x[A-Z0-9]*$//' >"$WORK/gen.links"
"$IBFAB" topo links --no-ports "$WORK/plan.ibnetdiscover" | sed 's/ [0-9]*x[A-Z0-9]*$//' >"$WORK/plan.links"
check "plan fabric has the same edges as 'ibfab topo gen slimfly --q 5'" cmp -s "$WORK/gen.links" "$WORK/plan.links"

# peer NAME PORT -> "PEER PEERPORT" from the plan
peer() {
	awk -F, -v n="$1" -v p="$2" 'NR > 1 {
		if ($5 == n && $6 == p) { print $8, $9; exit }
		if ($8 == n && $9 == p) { print $5, $6; exit }
	}' "$WORK/plan.csv"
}

# edit the net file: ops are "set NODE PORT PEER PEERPORT WS" (replace or add
# the port line) and "del NODE PORT"
netedit() {
	local in=$1 out=$2; shift 2
	printf '%s\n' "$@" | awk -v net="$in" '
	BEGIN { FS = " " }
	{ if ($1 == "set") { set[$2 SUBSEP $3] = $4 SUBSEP $5 SUBSEP $6; order[++n] = $2 SUBSEP $3 }
	  else if ($1 == "del") del[$2 SUBSEP $3] = 1 }
	END {
		while ((getline line < net) > 0) {
			if (match(line, /^(Switch|Ca|Hca|Rt)[ \t]+[0-9]+[ \t]+"[^"]*"/)) {
				cur = line; sub(/^[^"]*"/, "", cur); sub(/".*$/, "", cur)
				print line
				add()   # new port lines go right below the node line
				continue
			}
			if (match(line, /^\[[0-9]+\]/)) {
				p = substr(line, 2, RLENGTH - 2)
				k = cur SUBSEP p
				if (k in del) continue
				if (k in set) { emit(cur, p, set[k]); done[k] = 1; continue }
			}
			print line
		}
	}
	function add(   i, k, a) {
		for (i = 1; i <= n; i++) {
			k = order[i]
			split(k, a, SUBSEP)
			if (a[1] == cur && !(k in done)) { emit(cur, a[2], set[k]); done[k] = 1 }
		}
	}
	function emit(node, port, v,   b) {
		split(v, b, SUBSEP)
		printf "[%s]\t\"%s\"[%s]\t\t# \"%s\" lid 0 %s\n", port, b[1], b[2], b[1], b[3]
	}' >"$out"
}

S=sf-r01-g0-s00
read -r B6 P6 <<<"$(peer $S 6)"
read -r B7 P7 <<<"$(peer $S 7)"
W=sf-r02-g1-s03
read -r WB WP <<<"$(peer $W 1)"
M=sf-r03-g0-s04
read -r MB MP <<<"$(peer $M 7)"
X1=sf-r04-g0-s00 X2=sf-r00-g1-s02
D=sf-r00-g0-s03
read -r DB DP <<<"$(peer $D 4)"
# three cables rotated on R: the cable of port 1 in port 2, 2 in 3, 3 in 1
R=sf-r02-g0-s01
read -r R1 Q1 <<<"$(peer $R 1)"
read -r R2 Q2 <<<"$(peer $R 2)"
read -r R3 Q3 <<<"$(peer $R 3)"
check "fault cables found in the plan" test -n "$B6" -a -n "$B7" -a -n "$WB" -a -n "$MB" -a -n "$DB" -a -n "$R3"

netedit "$WORK/plan.net" "$WORK/faulty.net" \
	"set $S 6 $B7 $P7 4xEDR" "set $B7 $P7 $S 6 4xEDR" \
	"set $S 7 $B6 $P6 4xEDR" "set $B6 $P6 $S 7 4xEDR" \
	"del $W 1" "set $W 12 $WB $WP 4xEDR" "set $WB $WP $W 12 4xEDR" \
	"del $M 7" "del $MB $MP" \
	"set $X1 15 $X2 15 4xEDR" "set $X2 15 $X1 15 4xEDR" \
	"set $D 4 $DB $DP 1xEDR" "set $DB $DP $D 4 1xEDR" \
	"set $R 2 $R1 $Q1 4xEDR" "set $R1 $Q1 $R 2 4xEDR" \
	"set $R 3 $R2 $Q2 4xEDR" "set $R2 $Q2 $R 3 4xEDR" \
	"set $R 1 $R3 $Q3 4xEDR" "set $R3 $Q3 $R 1 4xEDR"
check "faulty net file written" test -s "$WORK/faulty.net"
diff "$WORK/plan.net" "$WORK/faulty.net" | diag

check "ibsim + ibnetdiscover on the faulty fabric" discover "$WORK/faulty.net" faulty
"$IBFAB" validate --plan "$WORK/plan.csv" --fabric "$WORK/faulty.ibnd" >"$WORK/report.txt" 2>&1
rc=$?
diag <"$WORK/report.txt"
check "validate exits 1 on findings" test "$rc" -eq 1
check "exactly 6 findings (the swap and the rotation are one each)" grep -q "^6 findings: " "$WORK/report.txt"
check "one finding of each kind" test "$(grep -cE '^(swapped|rotated|wrong-port|missing|extra|degraded): ' "$WORK/report.txt")" -eq 6
check "nothing else reported" test "$(grep -cE '^(missing|extra|miswired|wrong-port|swapped|rotated|degraded|unknown-node|missing-node): ' "$WORK/report.txt")" -eq 6

# fixes
check "swap: exchange the plugs at $S ports 6 and 7" \
	grep -qE "^swapped: swap the two cables at $S port (6 and $S port 7|7 and $S port 6) " "$WORK/report.txt"
check "wrong port: move the end from $W port 12 to port 1" \
	grep -qF "wrong-port: move the cable at $WB port $WP from $W port 12 to $W port 1" "$WORK/report.txt"
MW=$(printf '%s\n' "$M 7 $MB $MP" | awk '{ if ($1 < $3) print $1" port "$2" to "$3" port "$4; else print $3" port "$4" to "$1" port "$2 }')
check "missing: connect $MW" grep -qF "missing: connect $MW (cable" "$WORK/report.txt"
check "extra: unplug $X1 port 15 -- $X2 port 15" \
	grep -qE "^extra: unplug the cable between ($X1 port 15 and $X2 port 15|$X2 port 15 and $X1 port 15)$" "$WORK/report.txt"
check "degraded: $D port 4 runs at 1x" \
	grep -qE "^degraded: .*$D port 4.*runs at 1xEDR, the plan says 4xEDR" "$WORK/report.txt"
check "rotated: 3 cables among $R ports 1-3, unplug one and move the others along" \
	grep -qF "rotated: 3 cables rotated among the ports of $R: the cable for port 1 is in port 2, the one for port 2 in port 3, the one for port 3 in port 1; unplug" "$WORK/report.txt"

"$IBFAB" validate --plan "$WORK/plan.csv" --fabric "$WORK/faulty.ibnd" --json >"$WORK/report.json"
check "JSON report lists the 6 kinds" test "$(grep -cE '"kind": "(swapped|rotated|wrong-port|missing|extra|degraded)"' "$WORK/report.json")" -eq 6
if command -v python3 >/dev/null; then
	check "JSON report parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["clean"] and len(d["findings"]) == 6' "$WORK/report.json"
fi

# the fixed fabric validates clean
check "ibsim + ibnetdiscover on the planned fabric" discover "$WORK/plan.net" clean
"$IBFAB" validate --plan "$WORK/plan.csv" --fabric "$WORK/clean.ibnd" >"$WORK/clean.txt" 2>&1
rc=$?
diag <"$WORK/clean.txt"
check "the planned fabric validates clean (exit 0)" test "$rc" -eq 0
check "clean: all 375 cables present and correct" grep -q "^clean: 375 of 375" "$WORK/clean.txt"

# names from the node-name-map only, and from structure with one anchor
awk '/^(Switch|Ca)/ { sub(/# "[^"]*"/, "# \"MF0;switch\"") } { print }' "$WORK/clean.ibnd" >"$WORK/anon.ibnd"
"$IBFAB" validate --plan "$WORK/plan.csv" --fabric "$WORK/anon.ibnd" --node-name-map "$WORK/plan.node-name-map" >"$WORK/nnm.txt" 2>&1
check "node-name-map matching: clean" test $? -eq 0
A0=$(grep -m1 -E '^switchguid=' "$WORK/plan.ibnetdiscover" | sed 's/switchguid=\(0x[0-9a-f]*\).*/\1/')
"$IBFAB" validate --plan "$WORK/plan.csv" --fabric "$WORK/anon.ibnd" --anchor "sf-r00-g0-s00=$A0" >"$WORK/anchor.txt" 2>&1
rc=$?
diag <"$WORK/anchor.txt"
check "structural matching from one anchor: clean" test "$rc" -eq 0

check "validate usage error exits 2" bash -c '"$0" validate --plan x 2>/dev/null; test $? -eq 2' "$IBFAB"

# --live: discover through libibnetdisc (under ibsim's umad2sim) instead of a file
if "$IBFAB" validate --help 2>&1 | grep -q -- "--live" && ! "$IBFAB" validate --help 2>&1 | grep -qi "not built"; then
	"$HARNESS" with "$WORK/faulty.net" "$WORK/sim-live" -- bash -c \
		'ibsim-run "$0" validate --live --plan "$1" >"$IBFAB_SIM_DIR/live.txt" 2>&1; echo $? >"$IBFAB_SIM_DIR/live.rc"' \
		"$IBFAB" "$WORK/plan.csv" 2>&1 | diag
	diag <"$WORK/sim-live/live.txt"
	check "--live on the faulty fabric: exit 1 with the same 6 findings" \
		bash -c 'test "$(cat "$0/live.rc")" -eq 1 && grep -q "^6 findings: " "$0/live.txt"' "$WORK/sim-live"
	"$HARNESS" with "$WORK/plan.net" "$WORK/sim-live-clean" -- bash -c \
		'ibsim-run "$0" validate --live --plan "$1" >"$IBFAB_SIM_DIR/live.txt" 2>&1; echo $? >"$IBFAB_SIM_DIR/live.rc"' \
		"$IBFAB" "$WORK/plan.csv" 2>&1 | diag
	check "--live on the planned fabric: clean (exit 0)" \
		bash -c 'test "$(cat "$0/live.rc")" -eq 0 && grep -q "^clean: 375 of 375" "$0/live.txt"' "$WORK/sim-live-clean"
fi

done_testing
