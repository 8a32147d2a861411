#!/usr/bin/env bash
# Round trip: generate Slim Fly q=5 (4 hosts per switch) -> ibsim -> stock
# opensm (minhop, one sweep) -> ibnetdiscover -> ibfab reads it back and finds
# the same graph under the description names (same switch graph, same host
# attachment, same ports).
. "$(dirname "$0")/lib.sh"
need_sim
mk_workdir

"$IBFAB" topo gen slimfly --q 5 --hosts 4 --format ibsim -o "$WORK/sf5.net" \
	&& "$IBFAB" topo gen slimfly --q 5 --hosts 4 -o "$WORK/sf5.ibnd"
check "generate Slim Fly q=5 as ibsim net and ibnetdiscover text" test -s "$WORK/sf5.net" -a -s "$WORK/sf5.ibnd"

"$HARNESS" with "$WORK/sf5.net" "$WORK/sim" -- bash -c '
	. "$0"
	opensm_once "$IBFAB_SIM_DIR" || { echo "opensm failed"; tail -20 "$IBFAB_SIM_DIR/opensm.out"; exit 1; }
	ibsim-run ibnetdiscover >"$IBFAB_SIM_DIR/disc.ibnd" 2>"$IBFAB_SIM_DIR/disc.err" || exit 2
	ibsim-run ibnetdiscover -p >"$IBFAB_SIM_DIR/disc.ports" 2>>"$IBFAB_SIM_DIR/disc.err" || exit 3
' "$top_srcdir/tests/lib.sh" 2>&1 | diag
rc=${PIPESTATUS[0]}
check "ibsim + opensm + ibnetdiscover ran" test "$rc" -eq 0
check "opensm brought the subnet up" grep -q "SUBNET UP" "$WORK/sim/opensm.log"

"$IBFAB" topo info "$WORK/sim/disc.ibnd" >"$WORK/info.txt" 2>&1
check "ibfab topo info reads the discovered fabric" test $? -eq 0
diag <"$WORK/info.txt"
check "50 switches discovered" grep -q "^switches: *50$" "$WORK/info.txt"
check "200 hosts discovered" grep -q "^channel adapters: *200 (200 connected ports)" "$WORK/info.txt"
check "175 switch links, no parallel links" grep -q "^switch links: *175 between 175 switch pairs (0 parallel)" "$WORK/info.txt"
check "diameter 2" grep -q "^diameter: *2$" "$WORK/info.txt"
check "Hoffman-Singleton degrees (all 7)" grep -q "switches): 7:50$" "$WORK/info.txt"

"$IBFAB" topo links --no-ports "$WORK/sf5.ibnd" | sed 's/ [0-9]*x[A-Z0-9]*$//' >"$WORK/planned.links"
"$IBFAB" topo links --no-ports "$WORK/sim/disc.ibnd" | sed 's/ [0-9]*x[A-Z0-9]*$//' >"$WORK/found.links"
check "same graph under description names (switch graph and host attachment)" cmp -s "$WORK/planned.links" "$WORK/found.links"
"$IBFAB" topo links "$WORK/sf5.ibnd" | sed 's/ [0-9]*x[A-Z0-9]*$//' >"$WORK/planned.ports"
"$IBFAB" topo links "$WORK/sim/disc.ibnd" | sed 's/ [0-9]*x[A-Z0-9]*$//' >"$WORK/found.ports"
check "same port numbers on every link" cmp -s "$WORK/planned.ports" "$WORK/found.ports"
diff "$WORK/planned.ports" "$WORK/found.ports" | head -5 | diag

"$IBFAB" topo info "$WORK/sim/disc.ports" >"$WORK/info-p.txt" 2>&1
check "the ibnetdiscover -p ports report of the same fabric reads back" test $? -eq 0
check "-p report: 50 switches, 175 switch links" \
	grep -q "^switch links: *175 between 175" "$WORK/info-p.txt"

# descriptions with double quotes: ibsim takes a node's description
# between quotes (to the next one) or bare (to " lid ", " lmc ", " base
# port ", " enhanced port "), so the writer puts one with a quote bare and
# it comes back whole (it became a single quote); one that starts with a
# quote or holds " lid " cannot be bare, and still gets single quotes
"$IBFAB" topo gen fattree --m 2,2 --w 1,2 -o "$WORK/q.ibnd" 2>/dev/null
sed -e 's/"ft-l1-s0000"/"core "A" 1"/g' -e 's/"ft-h00000"/"node01 "gpu" HCA-1"/g' \
	-e 's/"ft-h00001"/""q" start"/g' -e 's/"ft-l2-s0000"/"x" lid 5"/g' "$WORK/q.ibnd" >"$WORK/q2.ibnd"
"$IBFAB" topo convert "$WORK/q2.ibnd" --format ibsim -o "$WORK/q2.net"
check "ibsim file: a description with quotes written bare" \
	sh -c "grep -q '# core \"A\" 1 base port 0 lid 1 lmc 0\$' '$WORK/q2.net' &&
	       grep -q '# node01 \"gpu\" HCA-1\$' '$WORK/q2.net' &&
	       grep -q \"# \\\"'q' start\\\"\\\$\" '$WORK/q2.net'"
"$HARNESS" with "$WORK/q2.net" "$WORK/simq" -- bash -c '
	ibsim-run ibnetdiscover >"$IBFAB_SIM_DIR/disc.ibnd" 2>"$IBFAB_SIM_DIR/disc.err"
' 2>&1 | diag
descs() { "$IBFAB" topo convert "$1" --format json -o - | grep -o '"desc": "[^,]*' | sort; }
descs "$WORK/q2.ibnd" >"$WORK/q2.desc"
descs "$WORK/simq/disc.ibnd" >"$WORK/q2-back.desc"
diff "$WORK/q2.desc" "$WORK/q2-back.desc" | diag
check "under ibsim: descriptions with quotes come back whole" \
	sh -c "grep -qx '\"desc\": \"core \\\\\"A\\\\\" 1\"' '$WORK/q2-back.desc' &&
	       grep -qx '\"desc\": \"node01 \\\\\"gpu\\\\\" HCA-1\"' '$WORK/q2-back.desc'"
check "... the two ibsim cannot hold come back with single quotes, the rest the same" \
	sh -c "diff '$WORK/q2.desc' '$WORK/q2-back.desc' | grep -c '^[<>]' | grep -qx 4 &&
	       grep -qx \"\\\"desc\\\": \\\"'q' start\\\"\" '$WORK/q2-back.desc' &&
	       grep -qx \"\\\"desc\\\": \\\"x' lid 5\\\"\" '$WORK/q2-back.desc'"

done_testing
