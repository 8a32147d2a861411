#!/usr/bin/env bash
# Offline: `ibfab route --engine hratio --avoid GUIDFILE` keeps the
# cross-rail paths off the avoided spines (rail-optimized 8 x 4 GPUs, 4
# spines, LMC 1), every pair still delivered, same-rail pairs still in their
# rail; a rail leaf in the file stays in use; bad files and other engines
# are errors without output.
. "$(dirname "$0")/lib.sh"
mk_workdir
"$IBFAB" topo gen rail --servers 8 --gpus 4 --spines 4 -o "$WORK/r.topo" >/dev/null 2>&1
check "rail-optimized 8x4, 4 spines" test -s "$WORK/r.topo"
guid() { sed -n "s/.*\"S-\([0-9a-f]*\)\".*# \"$1\".*/0x\1/p" "$WORK/r.topo" | head -1; }
s0=$(guid spine00) s2=$(guid spine02) leaf=$(guid rail01-l00)
check "GUIDs of spine00, spine02 and rail01-l00 found ($s0 $s2 $leaf)" test -n "$s0" -a -n "$s2" -a -n "$leaf"
printf '# unhealthy\n%s\n%s, %s\n' "$s0" "$s2" "$leaf" >"$WORK/avoid.txt"
"$IBFAB" route --topology "$WORK/r.topo" --engine hratio --lmc 1 --avoid "$WORK/avoid.txt" \
	-o "$WORK/a.lfts" >"$WORK/route.txt" 2>&1
check "route --avoid: exit 0" test $? -eq 0
"$IBFAB" route check --topology "$WORK/r.topo" --lmc 1 --lfts "$WORK/a.lfts" >"$WORK/check.txt" 2>&1
check "every pair delivered, no loop" sh -c "grep -q '^unreachable: *0$' '$WORK/check.txt' && grep -q '^loops: *0$' '$WORK/check.txt'"
"$IBFAB" rail check "$WORK/r.topo" --lfts "$WORK/a.lfts" --lmc 1 >"$WORK/rail.txt" 2>&1
rc=$?
diag <"$WORK/rail.txt"
check "rail check passes (exit $rc)" test $rc -eq 0
check "no cross-rail path over spine00 or spine02" \
	sh -c "grep -Eq '^ +spine00 +0$' '$WORK/rail.txt' && grep -Eq '^ +spine02 +0$' '$WORK/rail.txt'"
check "spine01 and spine03 carry them" \
	sh -c "! grep -Eq '^ +spine0[13] +0$' '$WORK/rail.txt' && grep -Eq '^ +spine01 +[1-9]' '$WORK/rail.txt'"
check "same-rail pairs stay in their rail" grep -q ' 0 of [0-9]* confinable left the rail' "$WORK/rail.txt"
"$IBFAB" route --topology "$WORK/r.topo" --engine hratio --lmc 1 -o "$WORK/plain.lfts" >/dev/null 2>&1
"$IBFAB" rail check "$WORK/r.topo" --lfts "$WORK/plain.lfts" --lmc 1 >"$WORK/plain.txt" 2>&1
check "without --avoid spine00 carries paths" sh -c "! grep -Eq '^ +spine00 +0$' '$WORK/plain.txt'"
"$IBFAB" route --topology "$WORK/r.topo" --engine layered --avoid "$WORK/avoid.txt" -o "$WORK/x.lfts" >"$WORK/err1.txt" 2>&1
rc=$?
check "--avoid with another engine: error, no output" \
	sh -c "[ $rc -ne 0 ] && grep -q 'hratio engine only' '$WORK/err1.txt' && [ ! -e '$WORK/x.lfts' ]"
printf '%s\n0xzz\n' "$s0" >"$WORK/bad.txt"
"$IBFAB" route --topology "$WORK/r.topo" --engine hratio --avoid "$WORK/bad.txt" -o "$WORK/y.lfts" >"$WORK/err2.txt" 2>&1
rc=$?
check "a bad GUID file: FILE:LINE error, no output" \
	sh -c "[ $rc -ne 0 ] && grep -q 'bad.txt:2:' '$WORK/err2.txt' && [ ! -e '$WORK/y.lfts' ]"
printf '%s\n0x00000000deadbeef\n' "$s0" >"$WORK/foreign.txt"
"$IBFAB" route --topology "$WORK/r.topo" --engine hratio --avoid "$WORK/foreign.txt" -o "$WORK/z.lfts" >"$WORK/err3.txt" 2>&1
rc=$?
check "a GUID that is no switch of the fabric: error, not silently avoided nothing" \
	sh -c "[ $rc -ne 0 ] && grep -q '0x00000000deadbeef is not a switch' '$WORK/err3.txt' && [ ! -e '$WORK/z.lfts' ]"
# rail check with nothing to trace (one server): an error, not a pass of zeros
"$IBFAB" topo gen rail --servers 1 --gpus 4 --spines 1 >"$WORK/one.topo" 2>/dev/null
"$IBFAB" route --topology "$WORK/one.topo" --engine hratio -o "$WORK/one.lfts" >/dev/null 2>&1
"$IBFAB" rail check "$WORK/one.topo" --lfts "$WORK/one.lfts" >"$WORK/one.out" 2>&1
rc=$?
check "rail check of one server: nothing checked, exit 1 (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'nothing checked' '$WORK/one.out' && ! grep -q '^same rail' '$WORK/one.out'"
done_testing
