#!/usr/bin/env bash
# ibfab sim flow from the command line: a side-by-side table from an engine
# and a dump of the same tables, a damaged fabric, JSON and SVG output, and
# bad input (undeliverable flows, unknown pattern, too many ranks, unknown
# host, bad placement line) as clear errors with a non-zero exit.
. "$(dirname "$0")/lib.sh"
mk_workdir
cd "$WORK" || exit 1

"$IBFAB" topo gen slimfly --q 5 --hosts 2 >sf.topo 2>/dev/null
"$IBFAB" route --topology sf.topo --lmc 1 --engine layered --output lay.lfts >/dev/null 2>&1
check "tables for q=5" test -s lay.lfts

"$IBFAB" sim flow --topology sf.topo --lmc 1 --engine layered --lfts lay.lfts --pattern shift:7 \
	--pattern a2a --json >out.json 2>err.txt
check "json from engine and dump" python3 -c '
import json, sys
d = json.load(open("out.json"))
pats = d["patterns"]
assert [p["pattern"] for p in pats] == ["shift:7", "a2a"]
for p in pats:
    a, b = p["results"]
    # the engine and the dump of its own tables give the same figures
    assert abs(a["mean_aggregate_gbps"] - b["mean_aggregate_gbps"]) < 1e-6, (a, b)
    for ph in a["phases"]:
        assert ph["aggregate_gbps"] <= ph["injection_bound_gbps"] * (1 + 1e-9)
        assert ph["max_util"] <= 1 + 1e-9
a2a = pats[1]["results"][0]["phases"][0]
assert a2a["flows"] == 100 * 99, a2a["flows"]
'

# a damaged fabric (seeded: 3 % of the cables and one switch) still simulates
awk -v seed=3 -v cables=3 -v deadno=1 -f "$top_srcdir/contrib/net-damage.awk" sf.topo sf.topo >dmg.topo 2>/dev/null
if [ -s dmg.topo ]; then
	"$IBFAB" sim flow --topology dmg.topo --lmc 1 --engine layered --engine minimal \
		--pattern bisection:5 --pattern adversarial --mat both >dmg.txt 2>&1
	check "damaged fabric: layered and minimal side by side with MAT" \
		grep -q "MAT any path" dmg.txt
else
	not_ok "net-damage.awk produced no fabric"
fi

# plots
"$IBFAB" sim flow --topology sf.topo --lmc 1 --engine layered --engine minimal --pattern ring \
	--pattern pairwise --svg plots >/dev/null 2>&1
check "four SVG plots, well-formed XML" python3 -c '
import xml.dom.minidom as m
for f in ("bars", "cdf", "links", "phases"):
    m.parse("plots/%s.svg" % f)
'

# bad input
rc=0; "$IBFAB" sim flow --topology sf.topo --engine minimal --pattern nonsense >/dev/null 2>e1.txt || rc=$?
check "unknown pattern: usage error" sh -c "[ $rc -eq 2 ] && grep -q 'unknown pattern' e1.txt"
rc=0; "$IBFAB" sim flow --topology sf.topo --engine minimal --pattern a2a --ranks 1000 >/dev/null 2>e2.txt || rc=$?
check "more ranks than slots: error" sh -c "[ $rc -eq 1 ] && grep -q 'do not fit' e2.txt"
printf '0 no-such-host\n' >bad.place
rc=0; "$IBFAB" sim flow --topology sf.topo --engine minimal --pattern a2a --placement bad.place >/dev/null 2>e3.txt || rc=$?
check "unknown host in a placement file: FILE:LINE" sh -c "[ $rc -eq 1 ] && grep -q 'bad.place:1: unknown host' e3.txt"
printf '0 %s\nzero %s\n' "$(sed -n 's/^Ca.*"\(.*\)"$/\1/p' sf.topo | head -1 | cut -d' ' -f1)" x >bad2.place
rc=0; "$IBFAB" sim flow --topology sf.topo --engine minimal --pattern a2a --placement bad2.place >/dev/null 2>e4.txt || rc=$?
check "bad placement line" sh -c "[ $rc -eq 1 ] && grep -q 'bad2.place:[12]:' e4.txt"
# tables that drop a destination: the undelivered flow is named
awk '/^Unicast lids/ {n++} n == 2 && /Channel Adapter/ && !done {done = 1; next} {print}' lay.lfts >cut.lfts
rc=0; "$IBFAB" sim flow --topology sf.topo --lmc 1 --lfts cut.lfts --pattern a2a >/dev/null 2>e5.txt || rc=$?
check "undelivered flow: error naming it" sh -c "[ $rc -eq 1 ] && grep -q 'not delivered' e5.txt"
diag <e5.txt

# a pattern with no flow between host ports (every rank sends to itself,
# or all ranks share one port) is an error, not 0 Gb/s in 0 us
"$IBFAB" topo gen fattree --m 4,4 --w 1,2 >ft16.topo 2>/dev/null
# shellcheck disable=SC2086
for a in "--pattern shift:16" "--pattern a2a --ppn 4 --ranks 3" "--pattern cumulative --ppn 2"; do
	rc=0; "$IBFAB" sim flow --topology ft16.topo --engine minimal $a >e6.out 2>e6.txt || rc=$?
	check "sim flow $a: exit 1, nothing on stdout" sh -c "[ $rc -eq 1 ] && [ ! -s e6.out ] && grep -q 'no flow between two host ports' e6.txt"
done
# phase 1 local only (bcast, ppn 2: rank 0 -> rank 1 on one port): no MAT
# for it, and the JSON stays JSON (it had "inf" and "-nan")
"$IBFAB" sim flow --topology ft16.topo --engine minimal --pattern bcast --ppn 2 --mat both --json >b.json 2>e7.txt
check "MAT of a local-only first phase: valid JSON without mat_*" python3 -c '
import json
r = json.load(open("b.json"))["patterns"][0]["results"][0]
assert "mat_routing" not in r and "mat_any" not in r, r
assert r["phases"][0]["flows"] == 0 and r["phases"][1]["flows"] > 0
'
"$IBFAB" sim flow --topology ft16.topo --engine minimal --pattern bcast --ppn 2 --mat both >b.txt 2>&1
check "... and no nan in the text" sh -c "! grep -qi nan b.txt && grep -q 'MAT any path: none' b.txt"
# options that only act with others are usage errors, not ignored
# shellcheck disable=SC2086
for a in "--eps 0.1" "--mat-method gk" "--acc-gbps 10"; do
	rc=0; "$IBFAB" sim flow --topology ft16.topo --engine minimal --pattern a2a $a >e8.out 2>e8.txt || rc=$?
	check "sim flow $a alone: exit 2, nothing on stdout" sh -c "[ $rc -eq 2 ] && [ ! -s e8.out ]"
done
# --svg into something that is not a writable directory: exit 1 before any
# result is printed (the table was printed, then the error)
: >notadir
for d in notadir /dev/null/x; do
	rc=0; "$IBFAB" sim flow --topology ft16.topo --engine minimal --pattern a2a --svg $d >e9.out 2>e9.txt || rc=$?
	check "--svg $d: exit 1, nothing on stdout" sh -c "[ $rc -eq 1 ] && [ ! -s e9.out ] && grep -q 'not a writable directory' e9.txt"
done
# a run that fails (a pattern without a flow between two hosts) leaves no
# --svg directory it created (an empty one was left behind), and one that
# existed stays
rc=0; "$IBFAB" sim flow --topology ft16.topo --engine minimal --pattern a2a --pattern shift:16 \
	--svg newplots >e9.out 2>e9.txt || rc=$?
check "--svg into a new directory, the run fails: exit 1, no directory left" \
	sh -c "[ $rc -eq 1 ] && [ ! -s e9.out ] && [ ! -e newplots ]"
mkdir -p oldplots
rc=0; "$IBFAB" sim flow --topology ft16.topo --engine minimal --pattern shift:16 \
	--svg oldplots >e9.out 2>e9.txt || rc=$?
check "--svg into an existing directory, the run fails: the directory stays" \
	sh -c "[ $rc -eq 1 ] && [ -d oldplots ]"
# two host ports on one LID (a guid2lid file that says so): refused with the
# LID and both ports named, by both simulators (sim flow reported the flows to
# one of them as undelivered, sim packet dropped its packets, exit 0)
# (a whole guid2lid: one that leaves ports out is an error of its own)
grep '^\[1\](' ft16.topo | head -2 | sed 's/^\[1\](0*\([0-9a-f]*\)).*/\1/' >dup.guids
"$IBFAB" route --topology ft16.topo --engine minimal -o g2l.lfts 2>/dev/null
awk 'NR == FNR { two[$1] = 1; next }
     /^Unicast/ { if (++t > 1) exit; next }
     /portguid/ { g = $0; sub(/.*portguid /, "", g); sub(/:.*/, "", g)
		  k = tolower(g); sub(/^0x0*/, "", k)
		  l = (k in two) ? 7 : $1; print g, l, l }' dup.guids g2l.lfts >dup.g2l
for c in "flow --pattern a2a" "packet --load 0.5 --measure 5us"; do
	rc=0
	# shellcheck disable=SC2086
	"$IBFAB" sim $c --topology ft16.topo --engine minimal --guid2lid dup.g2l >e11.out 2>e11.txt ||
		rc=$?
	check "sim ${c%% *}: two ports on LID 7: exit 1, nothing on stdout, the LID named" \
		sh -c "[ $rc -eq 1 ] && [ ! -s e11.out ] && grep -q 'LID 7 used by .* port 1 and .* port 1' e11.txt"
done
# a layer beyond the tables' LIDs (LMC 1: layers 0 and 1) was clamped to the
# last one and printed as the layer asked for, exit 0
rc=0; "$IBFAB" sim flow --topology sf.topo --lmc 1 --lfts lay.lfts --pattern shift:7 \
	--layers layer:2 >e10.out 2>e10.txt || rc=$?
check "sim flow --layers layer:2 on LMC 1: exit 1, nothing on stdout, J's range named" \
	sh -c "[ $rc -eq 1 ] && [ ! -s e10.out ] && grep -q 'layer:2: .* 2 LID layer(s) (LMC 1): J must be 0..1' e10.txt"
rc=0; "$IBFAB" route congestion --topology sf.topo --lmc 1 --lfts lay.lfts --pattern shift \
	--layer 2 >e10.out 2>e10.txt || rc=$?
check "route congestion --layer 2 on LMC 1: exit 1, nothing on stdout, J's range named" \
	sh -c "[ $rc -eq 1 ] && [ ! -s e10.out ] && grep -q 'layer 2: .* 2 LID layer(s) (LMC 1): J must be 0..1 or all' e10.txt"
rc=0; "$IBFAB" route congestion --topology sf.topo --lmc 1 --lfts lay.lfts --pattern shift \
	--layer 1 >e10.out 2>e10.txt || rc=$?
check "... --layer 1 still works" sh -c "[ $rc -eq 0 ] && grep -q '^layer 1:' e10.out"
# --lfts with --engine: stats and congestion measured the dump and ignored
# the engine, check and diff ignored it, exit 0; now a usage error
for c in "route stats" "route congestion --pattern shift" "route check" \
	"route diff --lfts2 lay.lfts"; do
	rc=0
	# shellcheck disable=SC2086
	"$IBFAB" $c --topology sf.topo --lmc 1 --lfts lay.lfts --engine minimal >e11.out 2>e11.txt || rc=$?
	check "$c --lfts with --engine: exit 2, nothing on stdout" \
		sh -c "[ $rc -eq 2 ] && [ ! -s e11.out ] && grep -q -- 'engine' e11.txt"
done
# options of ibfab route that a subcommand does not use: accepted and ignored
# (exit 0) before; a usage error that names the option now
for c in "route check --deadlock dfsssp" "route check -o x.out" "route check --seed 5" \
	"route congestion --pattern shift -o x.out" "route stats --stats x.out" \
	"route diff --lfts2 lay.lfts --json"; do
	rc=0
	# shellcheck disable=SC2086
	"$IBFAB" $c --topology sf.topo --lmc 1 --lfts lay.lfts >e12.out 2>e12.txt || rc=$?
	check "$c: exit 2, the option named, no output" \
		sh -c "[ $rc -eq 2 ] && [ ! -s e12.out ] && [ ! -e x.out ] && grep -q -- 'does not apply here' e12.txt"
done
done_testing
