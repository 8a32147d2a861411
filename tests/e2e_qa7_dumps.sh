#!/usr/bin/env bash
# QA round 7: dumps with the features of clusters not seen before
# (tests/fixtures/qa7, SOURCES.md there): HDR split ports and 2x links,
# HDR/NDR/EDR/FDR/FDR10/QDR and a 1xSDR link on one fabric, SHARP
# aggregation nodes, a router, dual-port HCAs on one switch and on two
# rails, hosts without a description, with quotes or UTF-8 in it, LMC 2,
# six switches that all keep the factory description, adapters cabled back
# to back, one switch, a dump taken before any SM ran; and the same text
# with CRLF ends, 5000-byte lines and cut short.  Every command runs on
# each; what was wrong in this round is checked on its own below.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
Q=$FIXTURES/qa7
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

MIX=$Q/hdr-ndr-mixed-split-sharp-router.ibnetdiscover
# text variants of the mixed dump: CRLF line ends, one 5000-byte line
sed 's/$/\r/' "$MIX" >"$W/mix-crlf.ibnetdiscover"
pad=$(printf '%5000s' '')
sed "s/# \"gpu02 mlx5_0\" lid 12 2xHDR\$/&$pad/" "$MIX" >"$W/mix-long.ibnetdiscover"

# every command on every input: no crash, no hang; exit 0, or 1 with a
# message on stderr; no output file left behind by a failed run
for f in "$Q"/*.ibnetdiscover "$Q"/*.ibnetdiscover-p "$Q"/*.subnet.lst \
	"$W/mix-crlf.ibnetdiscover" "$W/mix-long.ibnetdiscover"; do
	n=$(basename "$f")
	bad=0
	runs=0
	one() { # expected exit codes (a|b), then the command
		local want=$1 r
		shift
		runs=$((runs + 1))
		timeout 120 "$@" >"$W/o" 2>"$W/e"
		r=$?
		case "|$want|" in *"|$r|"*) ;; *)
			bad=$((bad + 1))
			echo "exit $r: $*" | diag
			head -3 "$W/e" | diag ;;
		esac
		# exit 1 says why on stderr (validate: its findings, on stdout)
		if [ "$r" = 1 ] && ! [ -s "$W/e" ] && ! { [ "$2" = validate ] && [ -s "$W/o" ]; }; then
			bad=$((bad + 1))
			echo "exit 1 without a message: $*" | diag
		fi
		return "$r"
	}
	one 0 "$IBFAB" topo info "$f"
	one 0 "$IBFAB" topo info "$f" --json && { python3 -m json.tool "$W/o" >/dev/null 2>&1 ||
		command -v python3 >/dev/null 2>&1 || true; }
	one 0 "$IBFAB" topo links "$f"
	cp "$W/o" "$W/links"
	one 0 "$IBFAB" topo convert "$f" --format ibnetdiscover -o "$W/c.ibnd" &&
		one 0 "$IBFAB" topo links "$W/c.ibnd" && { cmp -s "$W/o" "$W/links" || {
			bad=$((bad + 1)); echo "ibnetdiscover writer: other links" | diag; }; }
	one 0 "$IBFAB" rail info "$f"
	rm -f "$W/plan.csv"
	one 0 "$IBFAB" cabling from-topology "$f" -o "$W/plan.csv" &&
		one '0|1' "$IBFAB" validate --plan "$W/plan.csv" --fabric "$f"
	for lmc in 0 2; do
		for e in layered minimal dmodk hratio; do
			rm -f "$W/t.dump"
			if ! one '0|1' "$IBFAB" route --topology "$f" --engine $e --lmc $lmc -o "$W/t.dump"; then
				[ -e "$W/t.dump" ] && { bad=$((bad + 1)); echo "route $e failed, -o written" | diag; }
				continue
			fi
			one 0 "$IBFAB" route check --topology "$f" --lmc $lmc --lfts "$W/t.dump"
			one 0 "$IBFAB" route stats --topology "$f" --lmc $lmc --lfts "$W/t.dump"
			one '0|1' "$IBFAB" route congestion --topology "$f" --lmc $lmc --lfts "$W/t.dump" --pattern shift
			for s in dfsssp coloring auto; do
				one 0 "$IBFAB" deadlock apply --topology "$f" --lmc $lmc --lfts "$W/t.dump" \
					--scheme $s --sl "$W/t.sl" --sl2vl "$W/t.sl2vl" --verify &&
					one 0 "$IBFAB" deadlock verify --topology "$f" --lmc $lmc --lfts "$W/t.dump" \
						--sl "$W/t.sl" --sl2vl "$W/t.sl2vl" -q
			done
			one '0|1' "$IBFAB" sim flow --topology "$f" --lmc $lmc --lfts "$W/t.dump" --pattern shift:1
			one 0 "$IBFAB" sim packet --topology "$f" --lmc $lmc --lfts "$W/t.dump" --sl "$W/t.sl" \
				--sl2vl "$W/t.sl2vl" --load 0.5 --warmup 300 --measure 1000
		done
	done
	check "$n: $runs runs, every one exits 0 or 1 with its reason" test "$bad" = 0
done

# the text variants read as the dump itself
"$IBFAB" topo links "$MIX" >"$W/mix.links" 2>/dev/null
for v in crlf long; do
	"$IBFAB" topo links "$W/mix-$v.ibnetdiscover" >"$W/mix-$v.links" 2>"$W/err"
	check "mixed dump with $v lines: the same links" cmp -s "$W/mix.links" "$W/mix-$v.links"
done
# cut short in the middle of a line: an error at that line
head -c 5000 "$MIX" >"$W/mix-cut.ibnetdiscover"
r=$(rc "$IBFAB" topo info "$W/mix-cut.ibnetdiscover")
check "mixed dump cut in a line: exit 1, FILE:LINE" \
	sh -c "test $r = 1 && grep -q 'mix-cut.ibnetdiscover:[0-9][0-9]*: ' '$W/err'"
# cut at a line end: the links seen from one side only are counted
head -n 60 "$MIX" >"$W/mix-cut60.ibnetdiscover"
r=$(rc "$IBFAB" topo info "$W/mix-cut60.ibnetdiscover")
check "mixed dump cut after line 60: read, its one-sided links counted" \
	sh -c "test $r = 0 && grep -q '^one-sided links: *22\$' '$W/out'"
# ... and every command that reads it says, once, on stderr, that the file
# may be cut short, with the count and the first such link at its line; the
# exit status is that of the command (0 here; validate finds the cables the
# plan of the whole fabric has and the cut file lacks)
C=$W/mix-cut60.ibnetdiscover
"$IBFAB" route --topology "$C" -o "$W/c60.lfts" 2>/dev/null
"$IBFAB" deadlock apply --topology "$C" --lfts "$W/c60.lfts" --scheme dfsssp --sl "$W/c60.sl" \
	--sl2vl "$W/c60.sl2vl" 2>/dev/null
"$IBFAB" cabling from-topology "$MIX" -o "$W/mix.csv" 2>/dev/null
warn="^ibfab: warning: $C:11: 22 links seen from one side only, e.g. 'MF0;leaf-1:MQM8790/U1' port 1 names 'gpu01 mlx5_0' port 1 as its peer, a node no line of the file describes (its record is missing): the file may be truncated, or taken while the fabric changed\$"
bad=0
n=0
for want_cmd in "0 topo info $C" "0 topo info $C --json" "0 topo links $C" \
	"0 topo convert $C --format ibsim -o $W/c60.net" "0 rail info $C" \
	"0 cabling from-topology $C -o $W/c60.csv" "1 validate --plan $W/mix.csv --fabric $C" \
	"0 route --topology $C -o $W/c60b.lfts" \
	"0 route --topology $C --previous-lfts $W/c60.lfts --healthy-lfts $W/c60.lfts -o $W/c60c.lfts" \
	"0 route check --topology $C --lfts $W/c60.lfts" "0 route stats --topology $C --lfts $W/c60.lfts" \
	"0 route congestion --topology $C --lfts $W/c60.lfts" \
	"0 route congestion --topology $C --engine hratio --json" \
	"0 route diff --topology $C --lfts $W/c60.lfts --lfts2 $W/c60.lfts" \
	"0 deadlock apply --topology $C --lfts $W/c60.lfts --scheme auto" \
	"0 deadlock verify --topology $C --lfts $W/c60.lfts --sl $W/c60.sl --sl2vl $W/c60.sl2vl" \
	"0 sim flow --topology $C --lfts $W/c60.lfts --pattern shift:1" \
	"0 sim packet --topology $C --lfts $W/c60.lfts --sl $W/c60.sl --sl2vl $W/c60.sl2vl --load 0.5 --warmup 300 --measure 1000"; do
	want=${want_cmd%% *}
	# shellcheck disable=SC2086
	"$IBFAB" ${want_cmd#* } >"$W/out" 2>"$W/err"
	r=$?
	n=$((n + 1))
	if [ "$r" != "$want" ] || [ "$(grep -c "$warn" "$W/err")" != 1 ] ||
		[ "$(grep -c 'warning' "$W/err")" != 1 ]; then
		bad=$((bad + 1))
		echo "exit $r (want $want): ${want_cmd#* }" | diag
		diag <"$W/err"
	fi
done
check "mixed dump cut after line 60: $n commands warn once, FILE:LINE and the first link, exit unchanged" test "$bad" = 0
# a port line gone from the spine's record: its peer's line is one-sided
grep -v '^\[1\]	"S-b8cef60300e5d2a0"\[77\]' "$MIX" >"$W/mix-noline.ibnetdiscover"
L=$(grep -n '^\[77\]	"S-a088c20300f1e000"\[1\]' "$W/mix-noline.ibnetdiscover" | cut -d: -f1)
r=$(rc "$IBFAB" route --topology "$W/mix-noline.ibnetdiscover" -o "$W/noline.lfts")
check "a port line missing: route warns that spine-1 does not name leaf-1 port 77 back (line $L)" \
	sh -c "test $r = 0 && grep -q \"^ibfab: warning: $W/mix-noline.ibnetdiscover:$L: 1 link seen from one side only, e.g. 'MF0;leaf-1:MQM8790/U1' port 77 names 'MF0;spine-1:MQM9700/U1' port 1 as its peer, whose own lines do not name it back: \" '$W/err'"
# the whole dump: no warning
"$IBFAB" route --topology "$MIX" -o "$W/mix.lfts" 2>"$W/err"
check "the whole mixed dump reads without a warning" sh -c "! grep -q warning '$W/err'"

# the dump as OpenSM listed it under ibsim (subnet.lst) and as ibnetdiscover
# found it there: the same fabric as the dump
"$IBFAB" topo info "$Q/hdr-ndr-mixed-via-ibsim-opensm.subnet.lst" >"$W/lst.info" 2>&1
"$IBFAB" topo info "$Q/hdr-ndr-mixed-via-ibsim.ibnetdiscover" >"$W/sim.info" 2>&1
check "mixed dump via ibsim: subnet.lst and ibnetdiscover give 5 switches, 17 CAs, 1 router, 20 host links" \
	sh -c "for x in '$W/lst.info' '$W/sim.info'; do grep -q '^switches: *5\$' \$x && grep -q '^channel adapters: 17 ' \$x && grep -q '^routers: *1\$' \$x && grep -q '^host links: *20 ' \$x || exit 1; done"

# --- found in this round ---------------------------------------------------
# 0. a router is no server's NIC: rail info listed ib-router-1 as a GPU of a
# domain of its own that "reaches another rail"; it is left out and counted,
# and every engine still routes its LID (route check delivers every pair)
r=$(rc "$IBFAB" rail info "$MIX")
check "rail info: the router left out and counted, no GPU of it" \
	sh -c "test $r = 0 && grep -q '^gpus 15  domains 13 ' '$W/out' && grep -q '^left out: 1 router(s), no server' '$W/out' && ! grep -q 'ib-router-1' '$W/out' && ! grep -q 'sysimg-0x0008f10500000100' '$W/out'"
bad=0
for e in hratio layered minimal dmodk; do
	for lmc in 0 2; do
		"$IBFAB" route --topology "$MIX" --engine $e --lmc $lmc -o "$W/rt.dump" 2>/dev/null &&
			"$IBFAB" route check --topology "$MIX" --lmc $lmc --lfts "$W/rt.dump" >"$W/out" 2>&1 &&
			"$IBFAB" route trace --topology "$MIX" --lmc $lmc --lfts "$W/rt.dump" --from gpu01 \
				--to ib-router-1 --all-layers >>"$W/out" 2>&1 &&
			! grep -q "not delivered\|unreachable: *[1-9]" "$W/out" ||
			{ bad=$((bad + 1)); echo "$e LMC $lmc" | diag; }
	done
done
check "the router's LIDs routed by hratio, layered, minimal and dmodk at LMC 0 and 2" test "$bad" = 0
# 1. adapters cabled back to back: the plan wrote the first adapter as a
# switch, and validate against the fabric's own plan reported a missing
# switch and a miswired cable; topo info counted the cable nowhere
for x in ca-ca-back-to-back ca-ca-back-to-back-2port; do
	r=$(rc "$IBFAB" cabling from-topology "$Q/$x.ibnetdiscover" -o "$W/$x.csv")
	check "$x: plan written, its cables of kind adapter" \
		sh -c "test $r = 0 && grep -q '^1,2,adapter,,left mlx5_0,1,,right mlx5_0,1,' '$W/$x.csv'"
	r=$(rc "$IBFAB" validate --plan "$W/$x.csv" --fabric "$Q/$x.ibnetdiscover")
	check "$x: the fabric against its own plan is clean (exit $r)" \
		sh -c "test $r = 0 && grep -q '^clean: ' '$W/out'"
done
r=$(rc "$IBFAB" validate --plan "$W/ca-ca-back-to-back-2port.csv" \
	--fabric "$Q/ca-ca-back-to-back-2port-crossed.ibnetdiscover")
check "2-port adapters with the cables crossed: one swapped finding" \
	sh -c "test $r = 1 && grep -q '^1 finding: 1 swapped' '$W/out'"
r=$(rc "$IBFAB" route --topology "$Q/ca-ca-back-to-back-2port.ibnetdiscover" --lmc 2 -o "$W/cc.dump")
check "adapters back to back: route refuses (no switch), without claiming ports lack LIDs" \
	sh -c "test $r = 1 && grep -q 'the fabric has no switches' '$W/err' && ! grep -q 'no LID' '$W/err' && test ! -e '$W/cc.dump'"
r=$(rc "$IBFAB" topo info "$Q/ca-ca-back-to-back-2port.ibnetdiscover")
check "topo info counts the adapter-to-adapter cables" \
	sh -c "test $r = 0 && grep -q '^adapter links: *2 ' '$W/out'"
"$IBFAB" topo info "$Q/ca-ca-back-to-back.ibnetdiscover" --json >"$W/out" 2>"$W/err"
check "topo info --json: adapter_links" grep -q '"adapter_links": 1,' "$W/out"
# a pair beside a fabric with switches: planned and validated with it
{ cat "$MIX"; tail -n +6 "$Q/ca-ca-back-to-back.ibnetdiscover"; } >"$W/mix-pair.ibnetdiscover"
"$IBFAB" cabling from-topology "$W/mix-pair.ibnetdiscover" -o "$W/mix-pair.csv" 2>/dev/null
r=$(rc "$IBFAB" validate --plan "$W/mix-pair.csv" --fabric "$W/mix-pair.ibnetdiscover")
check "mixed fabric and a pair beside it: all 31 planned cables found, only the 4 degraded reported" \
	sh -c "test $r = 1 && grep -q '^4 findings: 4 degraded; 31 of 31 planned' '$W/out'"

# its plan rendered: every cable at its planned rate, no degraded link (all
# nodes had one made-up device id, so the 2xHDR, FDR and EDR cables, as
# planned, were 'degraded' against the NDR ones of the same 'model')
r=$(rc "$IBFAB" cabling render --plan "$W/mix-pair.csv" --format ibnetdiscover -o "$W/mix-pair.render")
r2=$(rc "$IBFAB" topo info "$W/mix-pair.render")
check "mixed fabric's plan rendered: no degraded link, the adapter pair kept" \
	sh -c "test $r$r2 = 00 && grep -q '^degraded links: *0\$' '$W/out' && grep -q '^adapter links: *1 ' '$W/out'"

# 2. a base LID that is not a multiple of 2^LMC: was read as it stands and
# routing failed later on a LID "used by" two ports, without a line
sed 's/lid 12 lmc 2/lid 13 lmc 2/; s/"gpu02 mlx5_0" lid 12 /"gpu02 mlx5_0" lid 13 /' "$MIX" >"$W/unaligned.ibnetdiscover"
L=$(grep -n '^Ca.*"gpu02 mlx5_0"' "$W/unaligned.ibnetdiscover" | cut -d: -f1)
r=$(rc "$IBFAB" route --topology "$W/unaligned.ibnetdiscover" -o "$W/u.dump")
check "LID 13 with LMC 2: exit 1 at the adapter's line $L, nothing written" \
	sh -c "test $r = 1 && grep -q 'unaligned.ibnetdiscover:$L: .gpu02 mlx5_0. port 1: LID 13 with LMC 2 is not a multiple of 4' '$W/err' && test ! -e '$W/u.dump'"

# 3. switches that all keep the factory description: messages named
# "SwitchIB Mellanox Technologies" for either end
SIB=$Q/edr-switchib-6sw-ddr-twin-base-port0.ibnetdiscover
r=$(rc "$IBFAB" topo info "$SIB")
check "six SwitchIB: the 4xDDR cable among EDR twins names both switches by GUID" \
	sh -c "test $r = 0 && grep -q 'degraded: SwitchIB Mellanox Technologies (0xec0d9a0300ec8480) port 17 <-> SwitchIB Mellanox Technologies (0xec0d9a0300ec8200) port 5 runs at 4xDDR' '$W/out'"
r=$(rc "$IBFAB" route congestion --topology "$SIB" --engine layered --pattern shift)
check "six SwitchIB: route congestion's example link names the switches by GUID" \
	sh -c "test $r = 0 && grep -q 'e.g. on SwitchIB Mellanox Technologies (0x[0-9a-f]\{16\})/P[0-9]* -> SwitchIB Mellanox Technologies (0x[0-9a-f]\{16\})/P' '$W/out'"
# a table with one entry sent back where it came from: route check's example
"$IBFAB" route --topology "$SIB" --engine minimal -o "$W/sib.dump" 2>/dev/null
awk '/^Unicast lids .* guid 0xec0d9a0300ec81e0/ { t = 1 } t && /^0x0002 / { sub(/^0x0002 [0-9]+/, "0x0002 013"); t = 0 } { print }' \
	"$W/sib.dump" >"$W/sib-bad.dump"
r=$(rc "$IBFAB" route check --topology "$SIB" --lfts "$W/sib-bad.dump")
check "six SwitchIB: route check's examples name the switch by GUID" \
	sh -c "test $r = 1 && grep -q \"SwitchIB Mellanox Technologies (0x[0-9a-f]\\{16\\})'\" '$W/out'"

# ibswitches output (a Sun DCS fabric's, as an Exadata note shows it): a
# node list, refused as one, naming the tool
printf 'Switch  : 0x0010e08028c7a0a0 ports 36 "SUN DCS 36P QDR sw-iba0 10.0.0.66" enhanced port 0 lid 3 lmc 0\n' >"$W/ibswitches.txt"
r=$(rc "$IBFAB" topo info "$W/ibswitches.txt")
check "ibswitches output: exit 1 at line 1, a node list (ibswitches named)" \
	sh -c "test $r = 1 && grep -q 'ibswitches.txt:1: a node list of .*ibswitches' '$W/err'"

# ibsim's own example net files, where installed
EX=/usr/share/doc/ibsim-utils/net-examples
if [ -r "$EX/net.2sw2path4hca2port" ]; then
	for x in net net.1 net.2sw2path net.2sw2path4hca net.2sw2path4hca2port; do
		r=$(rc "$IBFAB" route --topology "$EX/$x" --engine layered --lmc 1 --deadlock auto \
			-o "$W/x.dump" --sl "$W/x.sl" --sl2vl "$W/x.sl2vl")
		r2=$(rc "$IBFAB" deadlock verify --topology "$EX/$x" --lmc 1 --lfts "$W/x.dump" \
			--sl "$W/x.sl" --sl2vl "$W/x.sl2vl" -q)
		check "ibsim example $x: routed at LMC 1, deadlock-free" test "$r$r2" = 00
	done
else
	ok "# SKIP ibsim's net-examples not installed"
fi
done_testing
