#!/usr/bin/env bash
# Offline: `ibfab route --engine hratio --avoid GUIDFILE` keeps the
# cross-rail paths off the avoided spines (rail-optimized 8 x 4 GPUs, 4
# spines, LMC 1), every pair still delivered, same-rail pairs still in their
# rail; a rail leaf in the file stays in use; bad files and other engines
# are errors without output.  Spine groups (spines in two sets, each cabled
# to two rails): `rail info` lists them, and avoiding a whole set moves
# nothing, which is why rail_avoid_max is counted per group.
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
check "a GUID that is no switch of the fabric: FILE:LINE error, not silently avoided nothing" \
	sh -c "[ $rc -ne 0 ] && grep -q 'foreign.txt:2: GUID 0x00000000deadbeef is not a switch of this fabric (no node has it)' '$WORK/err3.txt' && [ ! -e '$WORK/z.lfts' ]"
# spine groups: 4 rails, spine00-01 cabled to rails 0-1 only, spine02-03 to
# rails 2-3 only, a switch above the four spines (not a spine: it joins no
# rail).  rail info names the two groups; avoiding one spine of each group
# (what rail_avoid_max 50 leaves room for, counted per group) moves every
# cross-rail path off them; avoiding both spines of one group (what a cap
# over the whole fabric allowed) moves nothing: rails 0-1 have no other
# spine, so their paths keep going over the avoided ones
"$IBFAB" topo gen rail --servers 4 --gpus 4 --spines 4 --format ibsim -o "$WORK/r4.net" >/dev/null 2>&1
awk '
/^(Switch|Ca)/ { cur = $0; sub(/^[^"]*"/, "", cur); sub(/".*/, "", cur); done = 0 }
/^\[[0-9]+\]/ {
	peer = $0; sub(/^[^"]*"/, "", peer); sub(/".*/, "", peer)
	a = cur; b = peer
	if (a ~ /^spine/) { t = a; a = b; b = t }
	if (a ~ /^rail0[0-3]-l00$/ && b ~ /^spine0[0-3]$/ &&
	    int(substr(a, 6, 1) / 2) != int(substr(b, 7, 1) / 2)) {
		if (cur ~ /^spine/ && !done) { # the first port freed: to super00
			p = $0; sub(/\].*/, "]", p)
			k = substr(cur, 7, 1) + 1
			print p "\t\"super00\"[" k "]\t\t# \"super00\" 4xEDR"
			sp[k] = substr(p, 2, length(p) - 2); done = 1
		}
		next
	}
}
{ print }
END {
	print "\nvendid=0x2c9\ndevid=0xcf08\nsysimgguid=0x2c90200009900\nswitchguid=0x2c90200009900"
	print "Switch\t4 \"super00\""
	for (k = 1; k <= 4; k++)
		print "[" k "]\t\"spine0" k - 1 "\"[" sp[k] "]\t\t# \"spine0" k - 1 "\" 4xEDR"
}' "$WORK/r4.net" >"$WORK/g.net"
"$IBFAB" rail info "$WORK/g.net" >"$WORK/g.info" 2>&1
diag <"$WORK/g.info"
check "rail info: two spine groups, rails 0,1 (spine00 spine01) and 2,3 (spine02 spine03)" \
	sh -c "grep -q '^spine groups 2 ' '$WORK/g.info' &&
	       grep -q '^  group 0: rails 0,1, spines spine00 spine01$' '$WORK/g.info' &&
	       grep -q '^  group 1: rails 2,3, spines spine02 spine03$' '$WORK/g.info'"
"$IBFAB" rail info "$WORK/r.topo" >"$WORK/r.info" 2>&1
check "rail info: no group list on the ordinary rail-optimized fabric" sh -c "! grep -q 'spine groups' '$WORK/r.info'"
gguid() { sed -n "/^switchguid=/h; /^Switch.*\"$1\"/{x; s/^switchguid=//p}" "$WORK/g.net"; }
printf '%s\n%s\n' "$(gguid spine00)" "$(gguid spine02)" >"$WORK/g-one.txt"
printf '%s\n%s\n' "$(gguid spine00)" "$(gguid spine01)" >"$WORK/g-both.txt"
for a in one both; do
	"$IBFAB" route --topology "$WORK/g.net" --engine hratio --lmc 1 --avoid "$WORK/g-$a.txt" \
		-o "$WORK/g-$a.lfts" >/dev/null 2>&1
	"$IBFAB" rail check "$WORK/g.net" --lfts "$WORK/g-$a.lfts" --lmc 1 >"$WORK/g-$a.rail" 2>&1
	diag <"$WORK/g-$a.rail"
done
check "one spine of each group avoided: 0 cross-rail paths over spine00 and spine02, all delivered" \
	sh -c "grep -Eq '^ +spine00 +0$' '$WORK/g-one.rail' && grep -Eq '^ +spine02 +0$' '$WORK/g-one.rail' &&
	       grep -q 'cross rail: .* 0 not delivered' '$WORK/g-one.rail'"
check "both spines of group 0 avoided: rails 0-1 have no other spine, paths stay on both" \
	sh -c "grep -Eq '^ +spine00 +[1-9]' '$WORK/g-both.rail' && grep -Eq '^ +spine01 +[1-9]' '$WORK/g-both.rail'"
# spine sets that overlap in a chain: 4 rails, spine00-01 cabled to rails
# 0-1, spine02-03 to rails 1-2, spine04-05 to rails 2-3, a switch above the
# six.  One spine group (they share rails), still 4 rails; hratio delivers
# every pair.  Rail 0 has only spine00 and spine01: avoiding both (what the
# group's cap alone, 3 of 6, let the plugin do) moves nothing, which is why
# rail_avoid_max also counts on each rail; avoiding spine00, spine02 and
# spine04 (what it leaves room for) moves every cross-rail path off them
"$IBFAB" topo gen rail --servers 4 --gpus 4 --spines 6 --format ibsim -o "$WORK/r6.net" >/dev/null 2>&1
awk '
/^(Switch|Ca)/ { cur = $0; sub(/^[^"]*"/, "", cur); sub(/".*/, "", cur) }
/^\[[0-9]+\]/ {
	peer = $0; sub(/^[^"]*"/, "", peer); sub(/".*/, "", peer)
	a = cur; b = peer
	if (a ~ /^spine/) { t = a; a = b; b = t }
	if (a ~ /^rail0[0-3]-l00$/ && b ~ /^spine0[0-5]$/) {
		r = substr(a, 6, 1) + 0; k = substr(b, 7, 1) + 0
		if (r != int(k / 2) && r != int(k / 2) + 1) {
			if (cur ~ /^spine/ && !(k in sp)) { # the first port freed: to super00
				p = $0; sub(/\].*/, "]", p)
				print p "\t\"super00\"[" k + 1 "]\t\t# \"super00\" 4xEDR"
				sp[k] = substr(p, 2, length(p) - 2)
			}
			next
		}
	}
}
{ print }
END {
	print "\nvendid=0x2c9\ndevid=0xcf08\nsysimgguid=0x2c90200009900\nswitchguid=0x2c90200009900"
	print "Switch\t6 \"super00\""
	for (k = 0; k < 6; k++)
		print "[" k + 1 "]\t\"spine0" k "\"[" sp[k] "]\t\t# \"spine0" k "\" 4xEDR"
}' "$WORK/r6.net" >"$WORK/c.net"
"$IBFAB" rail info "$WORK/c.net" >"$WORK/c.info" 2>&1
diag <"$WORK/c.info"
check "chain: 4 rails, 6 spines, one spine group (no group list)" \
	sh -c "grep -q 'rails 4 .*spines 6 ' '$WORK/c.info' && ! grep -q 'spine groups' '$WORK/c.info'"
cguid() { sed -n "/^switchguid=/h; /^Switch.*\"$1\"/{x; s/^switchguid=//p}" "$WORK/c.net"; }
printf '%s\n%s\n' "$(cguid spine00)" "$(cguid spine01)" >"$WORK/c-both.txt"
printf '%s\n%s\n%s\n' "$(cguid spine00)" "$(cguid spine02)" "$(cguid spine04)" >"$WORK/c-one.txt"
for a in plain both one; do
	av=
	[ $a = plain ] || av="--avoid $WORK/c-$a.txt"
	"$IBFAB" route --topology "$WORK/c.net" --engine hratio --lmc 1 $av -o "$WORK/c-$a.lfts" >/dev/null 2>&1
	"$IBFAB" rail check "$WORK/c.net" --lfts "$WORK/c-$a.lfts" --lmc 1 >"$WORK/c-$a.rail" 2>&1
	diag <"$WORK/c-$a.rail"
done
check "chain: hratio delivers every pair, same-rail pairs in their rail" \
	sh -c "grep -q 'cross rail: .* 0 not delivered' '$WORK/c-plain.rail' &&
	       grep -q '^same rail: .* 0 not delivered, 0 of [0-9]* confinable left the rail' '$WORK/c-plain.rail'"
check "chain: spine00 and spine01 both avoided: rail 0 has no other spine, paths stay on both" \
	sh -c "grep -Eq '^ +spine00 +[1-9]' '$WORK/c-both.rail' && grep -Eq '^ +spine01 +[1-9]' '$WORK/c-both.rail'"
check "chain: spine00, spine02, spine04 avoided: 0 cross-rail paths over them, all delivered" \
	sh -c "grep -Eq '^ +spine00 +0$' '$WORK/c-one.rail' && grep -Eq '^ +spine02 +0$' '$WORK/c-one.rail' &&
	       grep -Eq '^ +spine04 +0$' '$WORK/c-one.rail' && grep -q 'cross rail: .* 0 not delivered' '$WORK/c-one.rail'"
# rail check with nothing to trace (one server): an error, not a pass of zeros
"$IBFAB" topo gen rail --servers 1 --gpus 4 --spines 1 >"$WORK/one.topo" 2>/dev/null
"$IBFAB" route --topology "$WORK/one.topo" --engine hratio -o "$WORK/one.lfts" >/dev/null 2>&1
"$IBFAB" rail check "$WORK/one.topo" --lfts "$WORK/one.lfts" >"$WORK/one.out" 2>&1
rc=$?
check "rail check of one server: nothing checked, exit 1 (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'nothing checked' '$WORK/one.out' && ! grep -q '^same rail' '$WORK/one.out'"
done_testing
