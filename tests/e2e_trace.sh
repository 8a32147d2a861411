#!/usr/bin/env bash
# route trace, the offline ibtracert: every hop of its JSON checked on its own
# against the dump (the switch's entry for the LID is the out port) and the
# cables of `topo links` (the out port leads to the next hop's node and in
# port), on a generated fat tree with LMC 1, on the real plafrim fabric with
# its nine ibroute tables, and on broken tables: a cut cable (tables made
# before the cut), a black hole, a loop, a misdelivery, each reported at its
# hop with exit 1; unknown names and LIDs are usage errors (exit 2).  Last,
# when ibsim, OpenSM and ibtracert are installed, the trace of OpenSM's tables
# read back with dump_lfts is compared hop by hop with ibtracert's on the
# same live fabric (that part skips alone, one TAP line).
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
R=$FIXTURES/real
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

# hops_ok LINKS DUMP JSON: every hop of every trace agrees with the dump and
# the cables; prints what disagrees (and fails) otherwise
hops_ok() {
	python3 - "$@" <<'EOF'
import json, re, sys
links, dump, js = sys.argv[1:4]
cable = {}
for line in open(links):
    m = re.match(r'"(.*)"\[(\d+)\] "(.*)"\[(\d+)\]', line)
    if m:
        a, pa, b, pb = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
        cable[(a, pa)] = (b, pb)
        cable[(b, pb)] = (a, pa)
lft, cur = {}, None
for line in open(dump, errors="replace"):
    m = re.search(r'of switch .*guid (0x[0-9a-fA-F]+)', line)
    if m:
        cur = lft.setdefault(int(m.group(1), 16), {})
        continue
    m = re.match(r'\s*(0x[0-9a-fA-F]+)\s+(\d+)\s', line)
    if m and cur is not None:
        cur[int(m.group(1), 16)] = int(m.group(2))
bad = 0
d = json.load(open(js))
for t in d["traces"]:
    hops, dlid = t["hops"], t["dlid"]
    for i, h in enumerate(hops):
        if h["type"] == "switch" and h["out"] is not None or (h["type"] == "switch" and t["result"] == "unreachable" and i == len(hops) - 1):
            want = lft.get(int(h["guid"], 16), {}).get(dlid)
            if h["out"] != want and not (h["out"] is None and want in (None, 255)):
                print("LID %d hop %d %s: out %s, the dump says %s" % (dlid, i, h["node"], h["out"], want))
                bad += 1
        if i + 1 < len(hops):
            nxt = hops[i + 1]
            peer = cable.get((h["node"], h["out"]))
            if peer != (nxt["node"], nxt["in"]):
                print("LID %d hop %d %s port %s leads to %s, the trace says %s[%s]" % (dlid, i, h["node"], h["out"], peer, nxt["node"], nxt["in"]))
                bad += 1
    if t["result"] == "ok":
        if hops[-1]["lid"] > dlid or hops[-1]["lid"] + 128 < dlid:
            print("LID %d delivered to %s with LID %d" % (dlid, hops[-1]["node"], hops[-1]["lid"]))
            bad += 1
sys.exit(1 if bad else 0)
EOF
}

# ---------------------------------------------------------------- fat tree, LMC 1
"$IBFAB" topo gen fattree --kary 4 --n 3 --format ibsim -o "$W/ft.net"
"$IBFAB" topo links "$W/ft.net" >"$W/ft.links"
"$IBFAB" route --topology "$W/ft.net" --engine layered --lmc 1 -o "$W/ft.lfts" -q
T="$IBFAB route trace --topology $W/ft.net --lmc 1 --lfts $W/ft.lfts"
n=0
for pair in "ft-h00000 ft-h00015" "ft-h00003 ft-h00012" "ft-h00007 ft-h00008" "ft-h00001 ft-h00002" \
	"ft-h00005 ft-l1-s0006" "ft-l3-s0001 ft-h00009"; do
	set -- $pair
	r=$(rc $T --from "$1" --to "$2" --all-layers --json)
	cp "$W/out" "$W/ft-$n.json"
	nl=2
	case $2 in ft-l*) nl=1 ;; esac # switches have one LID
	check "fat tree: $1 -> $2 delivered on all $nl LIDs (exit $r)" \
		sh -c "test $r = 0 && grep -q '\"ok\": true' '$W/out' && test \$(grep -o '\"dlid\"' '$W/out' | wc -l) = $nl"
	check "fat tree: $1 -> $2: every hop as the dump and the cables say" hops_ok "$W/ft.links" "$W/ft.lfts" "$W/ft-$n.json"
	n=$((n + 1))
done
# layered gives the two LIDs of a pair different paths
r=$(rc $T --from ft-h00000 --to ft-h00015 --all-layers --json)
check "fat tree: the two layers of h00000 -> h00015 take different paths" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"]
sys.exit(0 if len(t) == 2 and t[0]["hops"][1:] != t[1]["hops"][1:] else 1)' "$W/out"
r=$(rc $T --from ft-h00000 --to ft-h00015 --all-layers)
dl=$(sed -n 's/.*to .ft-h00015. port 1 (guid [^,]*, LID 0x\([0-9a-f]*\).*/\1/p' "$W/out")
base=$((16#${dl:-0}))
r=$(rc $T --from ft-h00000 --to $((base + 1)) --json)
check "fat tree: --to a LID traces that LID only (layer 1, LID $((base + 1)))" \
	sh -c "test $r = 0 && grep -q '\"dlid\": $((base + 1)), \"layer\": 1' '$W/out' && test \$(grep -o '\"dlid\"' '$W/out' | wc -l) = 1"
r=$(rc $T --from ft-h00000 --to ft-h00015)
check "fat tree: --to by name traces the base LID only" \
	sh -c "test $r = 0 && grep -q '(layer 0)' '$W/out' && ! grep -q '(layer 1)' '$W/out'"
# the same path with the source named by its port GUID and the destination
# by its LID
same_hops() {
	python3 -c '
import json, sys
a, b = (json.load(open(f))["traces"][0]["hops"] for f in sys.argv[1:3])
sys.exit(0 if a == b else 1)' "$1" "$2"
}
g=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["hops"][0]["guid"])' "$W/ft-0.json")
r=$(rc $T --from "$g" --to "$base" --json)
same=1
test "$r" = 0 && same_hops "$W/out" "$W/ft-0.json" && same=0
check "fat tree: --from a port GUID ($g), --to a LID ($base): the same hops (exit $r)" test $same = 0

# tables from an engine run: the same hops as the dump that engine wrote
r=$(rc $T --from ft-h00003 --to ft-h00012 --all-layers --json)
cp "$W/out" "$W/dump.json"
r2=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --engine layered --from ft-h00003 \
	--to ft-h00012 --all-layers --json)
check "fat tree: --engine layered traces what its dump holds (exit $r2)" \
	sh -c "test $r2 = 0 && cmp -s '$W/out' '$W/dump.json'"
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --engine layered --lfts "$W/ft.lfts" \
	--from ft-h00003 --to ft-h00012)
check "--engine and --lfts together: usage error (exit $r)" test "$r" = 2

# ---------------------------------------------------------------- usage errors
r=$(rc $T --from nosuchhost --to ft-h00015)
check "unknown --from: usage error (exit $r), named" \
	sh -c "test $r = 2 && grep -q \"'nosuchhost': no node of this fabric\" '$W/err'"
r=$(rc $T --from ft-h00000 --to 40000)
check "unknown --to LID: usage error (exit $r)" \
	sh -c "test $r = 2 && grep -q 'no port of this fabric has LID 40000' '$W/err'"
# a LID as ibtracert takes it and as the trace prints it: 0x and 1 to 4
# hex digits (0x0011 or 0x11 is LID 17); the same trace as in decimal
r=$(rc $T --from ft-h00000 --to $base --json)
cp "$W/out" "$W/dec.json"
for h in $(printf '0x%04x 0X%x' "$base" "$base"); do
	r=$(rc $T --from ft-h00000 --to "$h" --json)
	check "fat tree: --to $h is LID $base: the trace of --to $base (exit $r)" \
		sh -c "test $r = 0 && cmp -s '$W/out' '$W/dec.json'"
done
sl=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["hops"][0]["lid"])' "$W/ft-0.json")
r=$(rc $T --from "$(printf '0x%x' "$sl")" --to ft-h00015 --all-layers --json)
check "fat tree: --from 0x$(printf '%x' "$sl") (the LID of ft-h00000): its trace (exit $r)" \
	sh -c "test $r = 0 && cmp -s '$W/out' '$W/ft-0.json'"
# garbage and LIDs that are no unicast LID: usage errors that say so
for t in "0xZZ:not a hex number" "0x:not a hex number" "0x1g:not a hex number" \
	"0:not a unicast LID" "0x0:not a unicast LID" "49152:not a unicast LID" \
	"0xc000:not a unicast LID" "0xFFFF:not a unicast LID" \
	"99999999999999999999:not a unicast LID" ":--to: empty"; do
	r=$(rc $T --from ft-h00000 --to "${t%%:*}")
	check "--to '${t%%:*}': usage error (exit $r) saying '${t#*:}'" \
		sh -c "test $r = 2 && grep -q -- '${t#*:}' '$W/err' && test ! -s '$W/out'"
done
r=$(rc $T --from 0xbfff --to ft-h00015)
check "--from 0xbfff (no port has it): usage error (exit $r)" \
	sh -c "test $r = 2 && grep -q 'no port of this fabric has LID 0xbfff' '$W/err'"
r=$(rc $T --from ft-h00000 --to $base --all-layers)
check "--all-layers with a LID: usage error (exit $r)" test "$r" = 2
r=$(rc $T --from ft-h00000)
check "no --to: usage error (exit $r)" test "$r" = 2
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --from ft-h00000 --to ft-h00001)
check "no tables: usage error (exit $r)" test "$r" = 2
r=$(rc $T --from ft-h00000 --to ft-h00001 --sl2vl "$W/ft.lfts")
check "--sl2vl without --sl: usage error (exit $r)" test "$r" = 2
r=$(rc "$IBFAB" route --topology "$W/ft.net" --from ft-h00000)
check "--from given to route itself: usage error (exit $r)" test "$r" = 2

# ---------------------------------------------------------------- broken tables
# the first switch-to-switch hop of h00000 -> h00015, layer 0
read -r s1 o1 < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
h = t["hops"][1]
print(h["guid"], h["out"])' "$W/ft-0.json")
sw1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["hops"][1]["node"])' "$W/ft-0.json")
sw2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["hops"][2]["node"])' "$W/ft-0.json")
dlh=$(printf '0x%04x' "$base")
# a black hole: the entry of the first switch removed
awk -v g="$s1" -v l="$dlh" '/of switch/ { cur = ($0 ~ g) } !(cur && $1 == l)' "$W/ft.lfts" >"$W/hole.lfts"
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --lfts "$W/hole.lfts" --from ft-h00000 --to ft-h00015)
check "black hole: exit 1, at hop 1, switch named ($r)" \
	sh -c "test $r = 1 && grep -q \"black hole at hop 1: switch '$sw1' has no LFT entry for LID $dlh\" '$W/out'"
# the first switch's whole table left out of the dump
awk -v g="$s1" '/of switch/ { cur = ($0 ~ g) } !cur' "$W/ft.lfts" >"$W/notable.lfts"
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --lfts "$W/notable.lfts" --from ft-h00000 --to ft-h00015)
check "a switch without a table: exit 1, the black hole says the tables have none for it ($r)" \
	sh -c "test $r = 1 && grep -q \"black hole at hop 1: switch '$sw1' has no LFT entry for LID $dlh (the tables have none for this switch)\" '$W/out'"
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --lfts "$W/hole.lfts" --from ft-h00000 --to ft-h00015)
check "one entry missing: no such remark ($r)" sh -c "test $r = 1 && ! grep -q 'have none for this switch' '$W/out'"
# a loop: the second switch sends it back where it came from
inport=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["hops"][2]["in"])' "$W/ft-0.json")
g2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["hops"][2]["guid"])' "$W/ft-0.json")
awk -v g="$g2" -v l="$dlh" -v p="$inport" '/of switch/ { cur = ($0 ~ g) } { if (cur && $1 == l) $2 = sprintf("%03d", p); print }' \
	"$W/ft.lfts" >"$W/loop.lfts"
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --lfts "$W/loop.lfts" --from ft-h00000 --to ft-h00015 --json)
check "loop: exit 1, '$sw1' entered again at hop 3 (first at hop 1) ($r)" \
	sh -c "test $r = 1 && grep -q \"loop: switch '$sw1' is entered again at hop 3 (first at hop 1)\" '$W/out' && grep -q '\"result\": \"loop\"' '$W/out'"
check "loop: the hops up to the loop are right" hops_ok "$W/ft.links" "$W/loop.lfts" "$W/out"
# a misdelivery: the last switch hands the LID to its neighbouring host port
last=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
print(t["hops"][-2]["guid"], t["hops"][-2]["out"])' "$W/ft-0.json")
set -- $last
other=$(( $2 == 1 ? 2 : 1 ))
awk -v g="$1" -v l="$dlh" -v p="$other" '/of switch/ { cur = ($0 ~ g) } { if (cur && $1 == l) $2 = sprintf("%03d", p); print }' \
	"$W/ft.lfts" >"$W/wrong.lfts"
r=$(rc "$IBFAB" route trace --topology "$W/ft.net" --lmc 1 --lfts "$W/wrong.lfts" --from ft-h00000 --to ft-h00015)
check "misdelivery: exit 1, named with the LID's owner ($r)" \
	sh -c "test $r = 1 && grep -q \"misdelivered at hop .*does not own LID $dlh (it is 'ft-h00015' port 1's)\" '$W/out'"

# a cut cable: the tables of the whole fabric, traced on the fabric without
# the cable the path takes between its first two switches (ibsim net file:
# the cable is a line on each side)
awk -v a="\"$sw1\"" -v b="\"$sw2\"" -v pa="[$o1]" -v pb="[$inport]" '
	/^Switch/ { cur = $3 }
	{ if ((cur == a && $1 == pa && index($0, b)) || (cur == b && $1 == pb && index($0, a))) next; print }' \
	"$W/ft.net" >"$W/cut.net"
check "cut: one cable less (2 lines)" test "$(($(wc -l <"$W/ft.net") - $(wc -l <"$W/cut.net")))" = 2
r=$(rc "$IBFAB" route trace --topology "$W/cut.net" --lmc 1 --lfts "$W/ft.lfts" --from ft-h00000 --to ft-h00015 --json)
check "cut cable: exit 1, at hop 1, '$sw1' port $o1 has no cable ($r)" \
	sh -c "test $r = 1 && grep -q \"at hop 1 switch '$sw1' forwards LID $dlh to port $o1, which has no cable\" '$W/out'"
r=$(rc "$IBFAB" route trace --topology "$W/cut.net" --lmc 1 --lfts "$W/ft.lfts" --from ft-h00000 --to ft-h00015 --all-layers --json)
check "cut cable: layer 1 takes another spine and is still delivered" \
	sh -c "test $r = 1 && test \$(grep -o '\"result\": \"ok\"' '$W/out' | wc -l) = 1"
r=$(rc "$IBFAB" route check --topology "$W/cut.net" --lmc 1 --lfts "$W/ft.lfts")
check "cut cable: route check agrees that pairs are lost (exit $r)" \
	sh -c "test $r = 1 && ! grep -q '^unreachable: *0$' '$W/out'"

# ---------------------------------------------------------------- real: plafrim
PL=$R/qdr-ddr-voltaire-4036-plafrim-9sw-2016.ibnetdiscover-s-p
cat "$R"/plafrim-2016-ibroute/lid-*.ibroute >"$W/plafrim.lfts"
"$IBFAB" topo links "$PL" >"$W/plafrim.links"
n=0
for pair in "manumanu oss02" "oss02 manumanu" "bonobo008 mirage008" "mirage009 oss01"; do
	set -- $pair
	r=$(rc "$IBFAB" route trace --topology "$PL" --lfts "$W/plafrim.lfts" --from "$1" --to "$2" --json)
	cp "$W/out" "$W/pl-$n.json"
	check "plafrim: $1 -> $2 delivered (exit $r)" sh -c "test $r = 0 && grep -q '\"ok\": true' '$W/out'"
	check "plafrim: $1 -> $2: every hop as the ibroute tables and the cables say" \
		hops_ok "$W/plafrim.links" "$W/plafrim.lfts" "$W/pl-$n.json"
	n=$((n + 1))
done
r=$(rc "$IBFAB" route trace --topology "$PL" --lfts "$W/plafrim.lfts" --from manumanu --to oss02)
check "plafrim: manumanu -> oss02 crosses 6 switches, ending on the 4xSDR cable of the Infiniscale-IV" \
	sh -c "grep -q 'at hop 7 (6 switches)' '$W/out' && grep -q '4xSDR  *8.0  Infiniscale-IV' '$W/out'"

# ---------------------------------------------------------------- names given twice
# plafrim2's second subnet: several HCAs kept the default description
# "MT25408 ConnectX Mellanox Technologies"; that description, or its first
# word, names no one host: a usage error naming two of them, not a trace
# from whichever comes first
P2=$R/qdr-is5030-plafrim2-subnet1-2016.ibnetdiscover-s-p
T2="$IBFAB route trace --topology $P2 --lfts $R/plafrim2-2016-ibroute/subnet1-lid-109.ibroute"
r=$(rc $T2 --from "MT25408 ConnectX Mellanox Technologies" --to 0x0002c90200493108)
check "a description shared by several hosts: usage error naming two of them (exit $r)" \
	sh -c "test $r = 2 && test ! -s '$W/out' && grep -q \"'MT25408 ConnectX Mellanox Technologies': more than one node is named so (0x[0-9a-f]* and 0x[0-9a-f]*, maybe more)\" '$W/err'"
r=$(rc $T2 --from 0xf4521403007a6d21 --to MT25408)
check "its first word: usage error too (exit $r)" \
	sh -c "test $r = 2 && grep -q \"'MT25408': more than one node\" '$W/err'"
r=$(rc $T2 --from 0xf4521403007a6d21 --to 0x0002c90200493108 --json)
check "the same host by port GUID: traced (exit $r)" \
	sh -c "test $r = 0 && grep -q '\"ok\": true' '$W/out'"

# a node whose description is a number: --to 4242 is a LID; when no port
# has that LID the error says how to name the node
sed 's/"ft-h00015"/"4242"/g' "$W/ft.net" >"$W/num.net"
r=$(rc "$IBFAB" route trace --topology "$W/num.net" --lmc 1 --lfts "$W/ft.lfts" --from ft-h00000 --to 4242)
check "a node named 4242: no such LID, the error says to give it by GUID (exit $r)" \
	sh -c "test $r = 2 && grep -q 'no port of this fabric has LID 4242 (digits are a LID: a node named so is given by its GUID)' '$W/err'"

# ---------------------------------------------------------------- live: ibtracert
# "out guid in lid" per link: ibtracert's lines "[out] -> type port {guid}[in]
# lid L-L .." and the same from our JSON
tracert_links() { sed -n 's/^\[\([0-9]*\)\] -> [a-z]* port {\(0x[0-9a-f]*\)}\[\([0-9]*\)\] lid \([0-9]*\)-.*/\1 \2 \3 \4/p' "$1"; }
json_links() {
	python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["traces"][0]["hops"]
for a, b in zip(h, h[1:]):
    print(a["out"], b["guid"], b["in"], b["lid"])' "$1"
}
missing=
for t in ibsim ibsim-run opensm ibnetdiscover dump_lfts ibtracert; do
	command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 ||
		missing="$missing $t"
done
PATH=$PATH:/usr/sbin:/sbin
if [ -n "$missing" ]; then
	ok "# SKIP live comparison with ibtracert:$missing not installed"
else
	"$IBFAB" topo gen fattree --kary 4 --n 2 --format ibsim -o "$W/live.net"
	# OpenSM at LMC 1; pairs of host LIDs (base and base + 1) and a switch LID,
	# from what ibnetdiscover reads back
	"$HARNESS" with "$W/live.net" "$W/sim" -- bash -c '
		cd "$IBFAB_SIM_DIR"
		OSM_TMP_DIR=$IBFAB_SIM_DIR OSM_CACHE_DIR=$IBFAB_SIM_DIR timeout 120 ibsim-run opensm -o -l 1 \
			-f opensm.log >opensm.out 2>&1 </dev/null
		ibsim-run ibnetdiscover >"$1/live.ibnd" 2>/dev/null || exit 1
		ibsim-run dump_lfts >"$1/live.lfts" 2>/dev/null || exit 2
		set -- "$1" $(sed -n "s/^\[[0-9]*\].*# \"ft-h[0-9]*\" lid \([0-9]*\) .*/\1/p" "$1/live.ibnd" |
			sort -un | sed -n "1p;6p;11p;16p") \
			$(sed -n "s/^Switch.* lid \([0-9]*\) .*/\1/p" "$1/live.ibnd" | sort -un | tail -1)
		[ $# = 6 ] || exit 3
		echo "$2-$3 $3-$2 $2-$(($5 + 1)) $5-$(($4 + 1)) $4-$6 $6-$2" >"$1/pairs"
		for pair in $(cat "$1/pairs"); do
			ibsim-run ibtracert ${pair%-*} ${pair#*-} >"$1/tr-$pair.txt" 2>/dev/null || exit 4
		done' live "$W" 2>&1 | diag
	r=${PIPESTATUS[0]}
	check "live: opensm (LMC 1), ibnetdiscover, dump_lfts and ibtracert ran under ibsim (step $r)" \
		test "$r" = 0 -a -s "$W/pairs"
	for pair in $(cat "$W/pairs" 2>/dev/null); do
		a=${pair%-*} b=${pair#*-}
		r=$(rc "$IBFAB" route trace --topology "$W/live.ibnd" --lfts "$W/live.lfts" --from "$a" --to "$b" --json)
		tracert_links "$W/tr-$pair.txt" >"$W/theirs"
		json_links "$W/out" >"$W/ours" 2>/dev/null
		check "live: LID $a -> LID $b: exit $r and the same $(wc -l <"$W/theirs") links as ibtracert" \
			sh -c "test $r = 0 && test -s '$W/theirs' && cmp -s '$W/theirs' '$W/ours'"
		cmp -s "$W/theirs" "$W/ours" || { echo "ibtracert:"; cat "$W/theirs"; echo "ibfab:"; cat "$W/ours"; } | diag
	done

	# a cable cut on the live fabric after OpenSM programmed it (no SM runs
	# any more, the tables stay): the cable the first pair's path takes out
	# of its second switch.  ibtracert then cannot say where the path
	# breaks; the tables read before the cut, traced on the fabric
	# discovered after it, name the switch and the port
	first=$(cut -d' ' -f1 "$W/pairs")
	IBFAB_SIM_CONSOLE=1 "$HARNESS" with "$W/live.net" "$W/simcut" -- bash -c '
		cd "$IBFAB_SIM_DIR"
		OSM_TMP_DIR=$IBFAB_SIM_DIR OSM_CACHE_DIR=$IBFAB_SIM_DIR timeout 120 ibsim-run opensm -o -l 1 \
			-f opensm.log >opensm.out 2>&1 </dev/null
		ibsim-run dump_lfts >"$1/cut-before.lfts" 2>/dev/null || exit 1
		ibsim-run ibtracert ${3%-*} ${3#*-} >"$1/cut-tr-before.txt" 2>/dev/null || exit 2
		sw=$(grep -e "->" "$1/cut-tr-before.txt" | sed -n 2p | sed "s/.*\"\(.*\)\"$/\1/")
		port=$(grep -e "->" "$1/cut-tr-before.txt" | sed -n 3p | sed "s/^\[\([0-9]*\)\].*/\1/")
		[ -n "$sw" ] && [ -n "$port" ] || exit 3
		echo "$sw $port" >"$1/cut-where"
		"$2" console "$IBFAB_SIM_DIR" "Unlink \"$sw\"[$port]" || exit 4
		ibsim-run ibnetdiscover >"$1/cut.ibnd" 2>/dev/null || exit 5
		ibsim-run ibtracert ${3%-*} ${3#*-} >"$1/cut-tr.txt" 2>&1
		echo $? >"$1/cut-tr.rc"' live "$W" "$HARNESS" "$first" 2>&1 | diag
	r=${PIPESTATUS[0]}
	check "live cut: opensm, dump_lfts, ibtracert, the cable unlinked in ibsim, ibnetdiscover (step $r)" \
		test "$r" = 0 -a -s "$W/cut-where"
	read -r csw cport <"$W/cut-where" 2>/dev/null
	check "live cut: ibnetdiscover sees 1 cable less" \
		test "$(grep -c '^\[' "$W/live.ibnd")" = "$(($(grep -c '^\[' "$W/cut.ibnd") + 2))"
	check "live cut: ibtracert fails ($(cat "$W/cut-tr.rc" 2>/dev/null))" test "$(cat "$W/cut-tr.rc" 2>/dev/null)" != 0
	a=${first%-*} b=${first#*-}
	r=$(rc "$IBFAB" route trace --topology "$W/cut.ibnd" --lfts "$W/cut-before.lfts" --from "$a" --to "$b")
	dl=$(printf '0x%04x' "$b")
	check "live cut: route trace stops at hop 2, '$csw' port $cport has no cable (exit $r)" \
		sh -c "test $r = 1 && grep -q \"at hop 2 switch '$csw' forwards LID $dl to port $cport, which has no cable\" '$W/out'"
fi
done_testing
