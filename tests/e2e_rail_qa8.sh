#!/usr/bin/env bash
# QA round 8 (rail): damaged and irregular rail clusters routed with hratio
# offline (bench/rail_qa8.py: 4 and 8 rails, rail-only and rail-optimized,
# LMC 0 and 1; a server with fewer NICs than rails, a NIC cabled to another
# rail's leaf, two NICs swapped, a NIC on a spine, a leaf lost, a spine
# lost, mixed link rates, all at once): every pair with a cable path
# delivered, no loop, same-rail pairs in their rail, miscabled NICs named
# with the switch port their cable reaches.  Then the answers that were
# wrong: `rail info` named a NIC on a spine like any other and a miscabled
# one without the switch port; `route congestion` on a rail-only cluster
# counted the pairs between rails (no cable path) as not delivered and
# exited 1, and `--pattern shift` ran (and counted) permutations too;
# `rail check` counted the 1xSDR cable hratio routes as if lost as a way to
# a spine (336 of 672 pairs with their layers on distinct spines).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir
W=$WORK
python3 "$top_srcdir/bench/rail_qa8.py" "$IBFAB" "$W/qa" >"$W/qa.out" 2>&1
rc=$?
grep FAIL "$W/qa.out" | head -10 | diag
check "bench/rail_qa8.py: every case as expected (exit $rc, $(grep -c '^r[48]-' "$W/qa.out") cases)" \
	test $rc -eq 0
check "... 60 cases ran" test "$(grep -c '^r[48]-' "$W/qa.out")" -eq 60

Q=$W/qa
check "a NIC on a spine: named, with the spine's port" \
	grep -q "^  gpu srv004 mlx5_0 port 1: domain srv004 rail 0 (device index 0): cabled to spine00 port 5, a spine, not to a rail switch (counted on rail 0 by its device index)$" "$Q/r4-s2-lmc0-on-spine.info"
check "a NIC on another rail's leaf: the leaf's port and the rail its device index names" \
	grep -q "^  gpu srv002 mlx5_1 port 1: domain srv002 rail 2 (device index 1): reaches another rail: cabled to rail02-l00 port 11 (rail 2), its device index is rail 1's$" "$Q/r4-s2-lmc0-miscabled.info"
check "rail 1 lost as well: the label of the rail reached, no rail for the device index" \
	grep -q "^  gpu srv002 mlx5_1 port 1: .*cabled to rail02-l00 port 11 (rail 1, label 2), its device index is no rail's here$" "$Q/r4-s2-lmc0-all.info"
check "... and a device index whose rail has another number: both" \
	grep -q "^  gpu srv003 mlx5_3 port 1: .*cabled to rail00-l00 port 4 (rail 0), its device index is rail 2's (label 3)$" "$Q/r4-s2-lmc0-all.info"
check "an intact fabric: no GPU line without --list" sh -c "! grep -v '^  gpu .*(device index [0-9]*)$' '$Q/r4-s2-lmc0-intact.info' | grep -q '^  gpu '"

# mixed rates: rail check judges on the cables hratio routes on and says
# which it left out (8 x 4 and 8 x 8, LMC 1); none on an intact fabric
for c in r4-s2-lmc1-mixed-rates:672 r8-s2-lmc1-mixed-rates:3136; do
	R=$Q/${c%%:*}.rail p=${c#*:}
	grep '^lmc\|^left out' "$R" | diag
	check "${c%%:*}: all $p cross-rail pairs have their layers on distinct spines" \
		grep -q "^lmc: $p of $p cross-rail pairs have their layers on distinct spines" "$R"
	check "${c%%:*}: rail check names the cable it left out and why" \
		grep -q "^left out: 1 switch cable(s) running below half their rate, which hratio routes as if lost (not counted as a way to a spine or along a rail): rail02-l00/P9 <-> spine00/P3 at 1xSDR$" "$R"
done
check "intact: no cable left out" sh -c "! grep -q '^left out' '$Q/r4-s2-lmc1-intact.rail'"
"$IBFAB" rail check "$Q/r4-s2-lmc1-mixed-rates.ibnd" --lmc 1 --lfts "$Q/r4-s2-lmc1-mixed-rates.lfts" \
	--engine nosuch >"$W/rc-engine" 2>&1
rc=$?
check "rail check --engine with an unknown engine: a usage error (exit $rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q 'no such engine' '$W/rc-engine'"

# rail-only 8 x 4: pairs between rails are left out of the congestion
# figures (and the exit status), as route check's "across"
T=$Q/r4-s0-lmc0-intact
for p in shift perm all; do
	"$IBFAB" route congestion --topology "$T.ibnd" --lfts "$T.lfts" --pattern $p >"$W/cong-$p" 2>&1
	echo "exit $?" >>"$W/cong-$p"
done
diag <"$W/cong-all"
check "rail-only: congestion exits 0, no flow 'not delivered'" \
	sh -c "grep -q '^exit 0' '$W/cong-all' && ! grep -q 'not delivered' '$W/cong-all'"
n() { sed -n 's/.*note: \([0-9]*\) flows between switch components apart.*/\1/p' "$1"; }
ns=$(n "$W/cong-shift") np=$(n "$W/cong-perm") na=$(n "$W/cong-all")
check "... the flows between rails counted apart (${ns:-none} + ${np:-none} = ${na:-none})" \
	test -n "$ns" -a -n "$np" -a "$((${ns:-0} + ${np:-0}))" = "${na:-x}"
"$IBFAB" route congestion --topology "$T.ibnd" --lfts "$T.lfts" --pattern shift --json >"$W/cong.json" 2>&1
check "... and in the JSON (apart_flows), --pattern shift without permutations" \
	sh -c "[ -n '$ns' ] && grep -q '\"apart_flows\": $ns' '$W/cong.json' && ! grep -q '\"perm\"' '$W/cong.json'"
# a cable path that the tables do not follow is still a failure
sed '/^Unicast lids/,$ { /^0x0005 / d }' "$T.lfts" >"$W/hole.lfts"
"$IBFAB" route congestion --topology "$T.ibnd" --lfts "$W/hole.lfts" --pattern shift >"$W/cong-hole" 2>&1
rc=$?
check "... a LID the tables lack is still not delivered (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'WARNING: [1-9][0-9]* flows not delivered' '$W/cong-hole'"
done_testing
