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

done_testing
