#!/usr/bin/env bash
# iblinkinfo as a topology source, from the real tools under ibsim:
#  - the block and the line (-l) layouts read back the fabric ibnetdiscover
#    shows: same counts, and the same forwarding tables come out of both;
#  - the "Could be" hints are the degraded-link evidence: with realistic
#    hints (only the 1x cable has one) exactly that cable is reported, with
#    its evidence; an older HCA that runs at its own best (no hint) is not;
#  - a truncated line is a FILE:LINE error and a non-zero exit.
. "$(dirname "$0")/lib.sh"
need_sim
command -v iblinkinfo >/dev/null 2>&1 || skip_all "iblinkinfo not installed (infiniband-diags)"
mk_workdir

"$IBFAB" topo gen fattree --m 3,2 --w 1,2 --parallel 2 --format ibsim -o "$WORK/ok.net"
awk '/^Switch/ { cur = $3 }
	{ if ((cur == "\"ft-l1-s0000\"" && $1 == "[5]") || (cur == "\"ft-l2-s0000\"" && $1 == "[2]"))
		sub(/4xEDR$/, "1xEDR")
	  print }' "$WORK/ok.net" >"$WORK/bad.net"
"$HARNESS" with "$WORK/bad.net" "$WORK/sim" -- bash -c '
	ibsim-run ibnetdiscover >"$0/net.ibnd" 2>/dev/null || exit 1
	ibsim-run iblinkinfo >"$0/block.txt" 2>/dev/null || exit 2
	ibsim-run iblinkinfo -l >"$0/line.txt" 2>/dev/null || exit 3
' "$WORK" 2>&1 | diag
check "ibsim: ibnetdiscover, iblinkinfo and iblinkinfo -l ran" test "${PIPESTATUS[0]}" -eq 0
# the healthy fabric too (for the tables below), hints taken out
"$HARNESS" with "$WORK/ok.net" "$WORK/sim-ok" -- bash -c '
	ibsim-run ibnetdiscover >"$0/ok.ibnd" 2>/dev/null || exit 1
	ibsim-run iblinkinfo 2>/dev/null | sed -E "s/ \(Could be[^)]*\)\$/ ( )/" >"$0/ok-block.txt" || exit 2
	ibsim-run iblinkinfo -l 2>/dev/null | sed -E "s/ \(Could be[^)]*\)\$/ ( )/" >"$0/ok-line.txt" || exit 3
' "$WORK" 2>&1 | diag
check "ibsim: the same on the healthy fabric" test "${PIPESTATUS[0]}" -eq 0

summary() { "$IBFAB" topo info "$1" 2>&1 | grep -E '^(switches|channel adapters|switch links|host links):'; }
summary "$WORK/net.ibnd" >"$WORK/net.sum"
for l in block line; do
	summary "$WORK/$l.txt" >"$WORK/$l.sum"
	diag <"$WORK/$l.sum"
	check "$l layout: the same nodes and links as ibnetdiscover" cmp -s "$WORK/net.sum" "$WORK/$l.sum"
	# the tables of the same fabric without the 1x cable: on the faulty one
	# the engines leave the 1x cable out where ibnetdiscover's twins show it
	# degraded, while iblinkinfo's hints (all ibsim ports claim 12X HDR) or
	# their absence (a link at its best) say otherwise
	"$IBFAB" route -q --topology "$WORK/ok-$l.txt" --engine minimal -o "$WORK/$l.lfts" 2>/dev/null
	"$IBFAB" route -q --topology "$WORK/ok.ibnd" --engine minimal -o "$WORK/net.lfts" 2>/dev/null
	check "$l layout: the same tables as from ibnetdiscover (GUIDs and LIDs agree)" \
		cmp -s "$WORK/net.lfts" "$WORK/$l.lfts"
done

# realistic hints: only the 1x cable could run wider
sed -E 's/ \(Could be[^)]*\)$/ ( )/' "$WORK/block.txt" |
	awk '/==\( 1X / { sub(/\( \)$/, "(Could be 4X)") } { print }' >"$WORK/hint.txt"
"$IBFAB" topo info "$WORK/hint.txt" >"$WORK/hint.info" 2>&1
diag <"$WORK/hint.info"
check "hints: exactly one degraded link" grep -q '^degraded links:  1$' "$WORK/hint.info"
check "hints: the 1x cable, with the iblinkinfo evidence" grep -qE \
	'degraded: .*ft-l1-s0000 port 5.* runs at 1xEDR, expected 4xEDR \(evidence: supported' "$WORK/hint.info"
# an older adapter at its own best (4X QDR, no hint) on the EDR leaf
awk '/^CA: ft-h00000/ { ca = 1 } /^(CA|Switch)/ && !/ft-h00000/ { ca = 0 }
	ca && /==\(/ { sub(/25\.78125 Gbps/, "10.0 Gbps") }
	/"ft-h00000"/ { sub(/25\.78125 Gbps/, "10.0 Gbps") } { print }' "$WORK/hint.txt" >"$WORK/mixed.txt"
check "mixed: one QDR adapter line pair" test "$(grep -c '10.0 Gbps' "$WORK/mixed.txt")" -eq 2
"$IBFAB" topo info "$WORK/mixed.txt" >"$WORK/mixed.info" 2>&1
check "mixed generation: the QDR adapter is not reported, the 1x cable is" \
	grep -q '^degraded links:  1$' "$WORK/mixed.info"

# garbage: a port line cut in the middle
cut=$(grep -n '==(' "$WORK/block.txt" | sed -n '3s/:.*//p')
awk -v n="$cut" 'NR == n { print substr($0, 1, 40); next } { print }' "$WORK/block.txt" >"$WORK/cut.txt"
"$IBFAB" topo info "$WORK/cut.txt" >"$WORK/cut.err" 2>&1
rc=$?
diag <"$WORK/cut.err"
check "truncated line: exit 1 with FILE:LINE" test $rc -eq 1 -a -n "$(grep -F "$WORK/cut.txt:$cut:" "$WORK/cut.err")"

done_testing
