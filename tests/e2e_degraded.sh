#!/usr/bin/env bash
# Degraded links end to end: a two-level fat tree with two cables per
# leaf-spine pair -> ibsim with one twin cable at 1x -> ibnetdiscover ->
# ibfab topo info reports exactly that cable, with "twins" evidence, in text
# and JSON; the same fabric without the fault reports none.
. "$(dirname "$0")/lib.sh"
need_sim
mk_workdir

"$IBFAB" topo gen fattree --m 3,2 --w 1,2 --parallel 2 --format ibsim -o "$WORK/ok.net"
check "fat tree net file written" test -s "$WORK/ok.net"
# leaf ft-l1-s0000 port 5 <-> spine ft-l2-s0000 port 2 trains at 1x
awk '/^Switch/ { cur = $3 }
	{ if ((cur == "\"ft-l1-s0000\"" && $1 == "[5]") || (cur == "\"ft-l2-s0000\"" && $1 == "[2]"))
		sub(/4xEDR$/, "1xEDR")
	  print }' "$WORK/ok.net" >"$WORK/bad.net"
check "exactly two port lines changed" test "$(diff "$WORK/ok.net" "$WORK/bad.net" | grep -c '^>')" -eq 2

check "ibsim + ibnetdiscover on the faulty fabric" discover "$WORK/bad.net" bad
check "ibsim + ibnetdiscover on the clean fabric" discover "$WORK/ok.net" ok

"$IBFAB" topo info "$WORK/bad.ibnd" >"$WORK/bad.txt" 2>&1
diag <"$WORK/bad.txt"
check "faulty: one degraded link" grep -q '^degraded links:  1$' "$WORK/bad.txt"
check "faulty: the 1x twin, with its evidence" grep -qE \
	'^  degraded: ft-l2-s0000 port 2 <-> ft-l1-s0000 port 5 runs at 1x[A-Z0-9]+, expected 4x[A-Z0-9]+ \(evidence: twins, 1 other cable' \
	"$WORK/bad.txt"
"$IBFAB" topo info "$WORK/ok.ibnd" >"$WORK/ok.txt" 2>&1
check "clean: no degraded link" grep -q '^degraded links:  0$' "$WORK/ok.txt"
check "clean: nothing listed" test "$(grep -c '^  degraded:' "$WORK/ok.txt")" -eq 0
if command -v python3 >/dev/null; then
	"$IBFAB" topo info --json "$WORK/bad.ibnd" >"$WORK/bad.json"
	check "JSON lists the finding with its evidence" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["degraded_links"] == 1 and len(d["degraded"]) == 1
x = d["degraded"][0]
assert x["evidence"] == "twins" and x["runs"].startswith("1x") and x["expected"].startswith("4x")
assert {x["a"], x["b"]} == {"ft-l1-s0000", "ft-l2-s0000"} and x["compared_links"] == 1
' "$WORK/bad.json"
fi

# routing weighs the 1x twin four times (docs/routing.md, rate weights):
# minimal and layered give it at most a quarter of the busiest 4x link's
# paths (here none), every host stays routed, and the clean fabric's stats
# list no slower link
for e in minimal layered; do
	"$IBFAB" route --topology "$WORK/bad.ibnd" --engine "$e" -o "$WORK/bad-$e.lfts" >/dev/null 2>&1
	"$IBFAB" route check -q --topology "$WORK/bad.ibnd" --lfts "$WORK/bad-$e.lfts" \
		>"$WORK/bad-$e-check.txt" 2>&1
	check "faulty, $e: route check clean" grep -q '^unreachable: *0$' "$WORK/bad-$e-check.txt"
	"$IBFAB" route stats --json --topology "$WORK/bad.ibnd" --lfts "$WORK/bad-$e.lfts" \
		>"$WORK/bad-$e.json" 2>&1
	check "faulty, $e: the 1x twin carries at most a quarter of the busiest link" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["slower_links"]
assert s["links"] == 2, s
assert 4 * s["max"] <= d["paths_per_link"]["max"], (s, d["paths_per_link"])
assert s["rate_weighted_max"] <= d["paths_per_link"]["max"], s
' "$WORK/bad-$e.json"
done
# route congestion weighs the flows by rate too: tables D-mod-K made before
# the cable degraded put a flow on the 1x twin in some shift (4 in
# rate-weighted flows against a plain worst of 1); dmodk and minimal on the
# degraded fabric keep the rate-weighted worst at the plain worst (dmodk
# routes the 1x twin as a lost cable, minimal weighs it)
"$IBFAB" route --topology "$WORK/ok.ibnd" --engine dmodk -o "$WORK/ok-dmodk.lfts" >/dev/null 2>&1
"$IBFAB" route congestion --json --topology "$WORK/bad.ibnd" --lfts "$WORK/ok-dmodk.lfts" \
	--pattern shift >"$WORK/old-dmodk-cong.json" 2>&1
"$IBFAB" route -v --topology "$WORK/bad.ibnd" --engine dmodk -o "$WORK/bad-dmodk.lfts" \
	>"$WORK/bad-dmodk.log" 2>&1
check "faulty, dmodk: the 1x twin routed as a lost cable (logged)" \
	grep -q 'dmodk: 1 switch cable(s) run below half their rate, routed as if lost: .*at 1xEDR (4xEDR)' \
	"$WORK/bad-dmodk.log"
"$IBFAB" route --topology "$WORK/bad.ibnd" --engine minimal -o "$WORK/bad-minimal.lfts" >/dev/null 2>&1
for e in dmodk minimal; do
	"$IBFAB" route congestion --json --topology "$WORK/bad.ibnd" --lfts "$WORK/bad-$e.lfts" \
		--pattern shift >"$WORK/bad-$e-cong.json" 2>&1
done
check "faulty: rate-weighted worst 4 for the old dmodk tables, plain worst for dmodk and minimal" python3 -c '
import json, sys
o, d, m = (json.load(open(f))["layers"][0]["shift"] for f in sys.argv[1:4])
assert o["rate_weighted"]["worst"] == 4 and o["worst"] == 1, o
assert d["rate_weighted"]["worst"] == d["worst"], d
assert m["rate_weighted"]["worst"] == m["worst"], m
' "$WORK/old-dmodk-cong.json" "$WORK/bad-dmodk-cong.json" "$WORK/bad-minimal-cong.json"
# the demand load says the same here, the hosts running at the fastest
# rate: one EDR flow on the 1xEDR twin is 4.0, none elsewhere above 1
check "faulty: demand load 4.0 for the old dmodk tables, the plain worst for dmodk and minimal" python3 -c '
import json, sys
o, d, m = (json.load(open(f))["layers"][0]["shift"] for f in sys.argv[1:4])
assert o["demand_load"]["worst"] == 4.0, o
assert d["demand_load"]["worst"] == d["worst"], d
assert m["demand_load"]["worst"] == m["worst"], m
' "$WORK/old-dmodk-cong.json" "$WORK/bad-dmodk-cong.json" "$WORK/bad-minimal-cong.json"
# a stable reroute from the tables made before the cable degraded (the
# plugin's default after a change) keeps no column through the 1x twin:
# they are checked on the fabric dmodk routes, without it
"$IBFAB" route -v --topology "$WORK/bad.ibnd" --engine dmodk --previous-lfts "$WORK/ok-dmodk.lfts" \
	--previous-topology "$WORK/ok.ibnd" -o "$WORK/stable-dmodk.lfts" >"$WORK/stable-dmodk.log" 2>&1
diag <"$WORK/stable-dmodk.log"
"$IBFAB" route congestion --json --topology "$WORK/bad.ibnd" --lfts "$WORK/stable-dmodk.lfts" \
	--pattern shift >"$WORK/stable-dmodk-cong.json" 2>&1
check "faulty, dmodk stable reroute: no flow on the 1x twin (rate-weighted worst = plain worst)" \
	python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["layers"][0]["shift"]
assert s["rate_weighted"]["worst"] == s["worst"], s
' "$WORK/stable-dmodk-cong.json"
# the same for hratio on a rail-optimized fabric with two switch cables at
# 1x: the stable reroute gives the fresh run's rate-weighted worst (it kept
# every column before: 32 against 17)
"$IBFAB" topo gen rail --servers 32 --gpus 8 --spines 4 --format ibsim -o "$WORK/rail.net" >/dev/null 2>&1
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=1 -v degrade=2 "$WORK/rail.net" "$WORK/rail.net" \
	>"$WORK/rail-1x.net"
"$IBFAB" route -q --topology "$WORK/rail.net" --engine hratio -o "$WORK/rail.lfts" >/dev/null 2>&1
"$IBFAB" route -q --topology "$WORK/rail-1x.net" --engine hratio -o "$WORK/rail-1x.lfts" >/dev/null 2>&1
"$IBFAB" route -q --topology "$WORK/rail-1x.net" --engine hratio --previous-lfts "$WORK/rail.lfts" \
	--previous-topology "$WORK/rail.net" -o "$WORK/rail-1x-stable.lfts" >/dev/null 2>&1
for t in rail-1x rail-1x-stable; do
	"$IBFAB" route congestion --json --topology "$WORK/rail-1x.net" --lfts "$WORK/$t.lfts" \
		--pattern shift >"$WORK/$t-cong.json" 2>&1
done
check "faulty rail fabric, hratio stable reroute: the fresh run's rate-weighted worst" python3 -c '
import json, sys
f, s = (json.load(open(x))["layers"][0]["shift"]["rate_weighted"]["worst"] for x in sys.argv[1:3])
assert f == s, (f, s)
' "$WORK/rail-1x-cong.json" "$WORK/rail-1x-stable-cong.json"
# a leaf whose only up-cable runs at 1x keeps using it (leaving it out
# would cut the leaf off), and says so
"$IBFAB" topo gen fattree --m 3,2 --w 1,1 --format ibsim -o "$WORK/one.net" >/dev/null 2>&1
awk -f "$top_srcdir/contrib/net-damage.awk" -v seed=1 -v degrade=1 "$WORK/one.net" "$WORK/one.net" \
	>"$WORK/one-1x.net"
"$IBFAB" route -v --topology "$WORK/one-1x.net" --engine dmodk -o "$WORK/one-1x.lfts" \
	>"$WORK/one-1x.log" 2>&1
check "a leaf's only up-cable at 1x: still used (exit 0), the log says why" sh -c \
	"test -s '$WORK/one-1x.lfts' && grep -q 'run below half their rate but are used: .* at 1xEDR (4xEDR): leaving it out would cut the fabric apart' '$WORK/one-1x.log'"
# a whole bundle at 1x (both cables of leaf 0 to spine 0): the twins all
# run alike, so the same two models elsewhere (the other bundles at 4x) are
# the evidence; dmodk routes both as lost
awk '/^Switch/ { cur = $3 }
	{ if ((cur == "\"ft-l1-s0000\"" && ($1 == "[4]" || $1 == "[5]")) ||
	      (cur == "\"ft-l2-s0000\"" && ($1 == "[1]" || $1 == "[2]")))
		sub(/4xEDR$/, "1xEDR")
	  print }' "$WORK/ok.net" >"$WORK/bundle.net"
check "whole bundle: four port lines changed" \
	test "$(diff "$WORK/ok.net" "$WORK/bundle.net" | grep -c '^> .*1xEDR$')" -eq 4
"$IBFAB" topo info "$WORK/bundle.net" >"$WORK/bundle.txt" 2>&1
check "whole bundle: both cables degraded, model evidence" \
	test "$(grep -cE '^  degraded: ft-l1-s0000 port [45] <-> ft-l2-s0000 port [12] runs at 1xEDR, expected 4xEDR \(evidence: model' "$WORK/bundle.txt")" -eq 2
"$IBFAB" route -v --topology "$WORK/bundle.net" --engine dmodk -o "$WORK/bundle.lfts" \
	>"$WORK/bundle.log" 2>&1
check "whole bundle: dmodk routes both as lost" \
	grep -q 'dmodk: 2 switch cable(s) run below half their rate, routed as if lost' "$WORK/bundle.log"
"$IBFAB" route congestion --json --topology "$WORK/bundle.net" --lfts "$WORK/bundle.lfts" \
	--pattern shift >"$WORK/bundle-cong.json" 2>&1
check "whole bundle: no flow on a 1x cable (rate-weighted worst = plain worst)" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["layers"][0]["shift"]
assert s["rate_weighted"]["worst"] == s["worst"], s
' "$WORK/bundle-cong.json"
"$IBFAB" route congestion --json --topology "$WORK/ok.ibnd" --engine dmodk >"$WORK/ok-cong.json" 2>&1
check "clean: route congestion has no rate-weighted or demand figures" sh -c \
	"grep -q '\"worst\"' '$WORK/ok-cong.json' && ! grep -q rate_weighted '$WORK/ok-cong.json' &&
	! grep -q demand_load '$WORK/ok-cong.json'"
"$IBFAB" route stats --json --topology "$WORK/ok.ibnd" --engine minimal >"$WORK/ok-stats.json" 2>&1
check "clean: route stats lists no slower link" sh -c "! grep -q slower_links '$WORK/ok-stats.json'"

# duplicate GUIDs (two devices with one GUID): a second record of the id, or
# two switch ports claiming one CA port (what discovery shows when it merged
# the two): both devices kept, both places reported, routing still works
for v in two-records merged; do
	fx="$FIXTURES/io/dupguid-$v.ibnetdiscover"
	"$IBFAB" topo info "$fx" >"$WORK/dup-$v.txt" 2>&1
	check "duplicate GUID ($v): reported with both places" sh -c "
		grep -q 'duplicate GUID 0x0002c90100000200' '$WORK/dup-$v.txt' &&
		grep -q \"cabled to 'ft-l1-s0000' port 3\" '$WORK/dup-$v.txt' &&
		grep -q \"cabled to 'ft-l1-s0001' port 3\" '$WORK/dup-$v.txt' &&
		grep -q '^channel adapters: 6 (6 connected ports)' '$WORK/dup-$v.txt'"
	"$IBFAB" topo info --json "$fx" >"$WORK/dup-$v.json" 2>"$WORK/dup-$v.err"
	check "duplicate GUID ($v): JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["duplicate_guids"]) == 2, d["duplicate_guids"]
assert all(x["guid"] == "0x0002c90100000200" for x in d["duplicate_guids"])
' "$WORK/dup-$v.json"
done
# the merged variant has a link seen from one side (the split-off device has
# no record): the warning says two devices may share a GUID
check "duplicate GUID (merged): the one-sided link's warning names shared GUIDs" \
	grep -q "^ibfab: warning: .*dupguid-merged.ibnetdiscover:13: 1 link seen from one side only, .*, or two devices share a GUID" "$WORK/dup-merged.err"
"$IBFAB" route --topology "$FIXTURES/io/dupguid-two-records.ibnetdiscover" --engine dmodk \
	--output "$WORK/dup.lfts" >/dev/null 2>&1
"$IBFAB" route check -q --topology "$FIXTURES/io/dupguid-two-records.ibnetdiscover" \
	--lfts "$WORK/dup.lfts" >"$WORK/dup-check.txt" 2>&1
check "duplicate GUID: dmodk routes every host, route check clean" \
	grep -q '^unreachable: *0$' "$WORK/dup-check.txt"

# Speed grades: a device id can stand for several speed grades (ConnectX-3
# QDR/FDR10/FDR, ConnectX-4 FDR/EDR), so by the model alone a host link
# slower by speed only, above half the like links' rate, is listed as
# slower, not degraded; at half or below (DDR among EDR) it stays degraded.
# Host ports 1 (FDR) and 2 (DDR) of leaf 0, both ends edited.
awk '/^Switch|^Ca/ { cur = $3 }
	{ if ((cur == "\"ft-l1-s0000\"" && $1 == "[1]") || (cur == "\"ft-h00000\"" && $1 == "[1]"))
		sub(/4xEDR$/, "4xFDR")
	  if ((cur == "\"ft-l1-s0000\"" && $1 == "[2]") || (cur == "\"ft-h00001\"" && $1 == "[1]"))
		sub(/4xEDR$/, "4xDDR")
	  print }' "$WORK/ok.net" >"$WORK/grade.net"
check "grades: four port lines changed" \
	test "$(diff "$WORK/ok.net" "$WORK/grade.net" | grep -cE '^> .*4x(FDR|DDR)$')" -eq 4
"$IBFAB" topo info "$WORK/grade.net" >"$WORK/grade.txt" 2>&1
check "grades: only the DDR host link is degraded" sh -c \
	"grep -q '^degraded links:  1\$' '$WORK/grade.txt' &&
	 grep -qE '^  degraded: ft-l1-s0000 port 2 <-> ft-h00001 port 1 runs at 4xDDR, expected 4xEDR \(evidence: model' '$WORK/grade.txt'"
check "grades: the FDR host link is listed as slower" sh -c \
	"grep -q '^slower links:    1 ' '$WORK/grade.txt' &&
	 grep -qE '^  slower: ft-l1-s0000 port 1 <-> ft-h00000 port 1 runs at 4xFDR, like links 4xEDR' '$WORK/grade.txt'"
"$IBFAB" topo info --json "$WORK/grade.net" >"$WORK/grade.json" 2>&1
check "grades: JSON keeps them apart" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["degraded_links"] == 1 and [x["runs"] for x in d["degraded"]] == ["4xDDR"]
assert d["slower_links"] == 1 and [x["evidence"] for x in d["slower"]] == ["grade"]
assert d["slower"][0]["runs"] == "4xFDR" and d["slower"][0]["expected"] == "4xEDR"
' "$WORK/grade.json"
# twins still say degraded whatever the speed: one of two leaf-spine
# cables at FDR is that cable's fault, not a grade
awk '/^Switch/ { cur = $3 }
	{ if ((cur == "\"ft-l1-s0000\"" && $1 == "[5]") || (cur == "\"ft-l2-s0000\"" && $1 == "[2]"))
		sub(/4xEDR$/, "4xFDR")
	  print }' "$WORK/ok.net" >"$WORK/twin-fdr.net"
"$IBFAB" topo info "$WORK/twin-fdr.net" >"$WORK/twin-fdr.txt" 2>&1
check "grades: an FDR twin among EDR twins stays degraded" sh -c \
	"grep -q '^degraded links:  1\$' '$WORK/twin-fdr.txt' && grep -q 'runs at 4xFDR, expected 4xEDR (evidence: twins' '$WORK/twin-fdr.txt' && ! grep -q '^slower links' '$WORK/twin-fdr.txt'"

done_testing
