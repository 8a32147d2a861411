#!/usr/bin/env bash
# End to end, no simulator: the command line on what real InfiniBand tools
# write (fixtures made under ibsim, tests/fixtures/*/SOURCES.md): what the
# tools said about their own run is shown, and known tool defects are named.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
IO=$FIXTURES/io
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

# ibnetdiscover's own error line in the 2016 dump (a timeout: a node may be missing)
r=$(rc "$IBFAB" topo info "$FIXTURES/real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover")
check "topo info: exit 0 on the 2016 dump" test "$r" = 0
check "... and says the file holds 1 line of the tool's own messages" \
	grep -q '^tool messages: *1 line ' "$W/out"
r=$(rc "$IBFAB" topo info --json "$FIXTURES/real/edr-fdr-qdr-mixed-switchib-sx6012-loopbacks-2016.ibnetdiscover")
check "... in JSON too" grep -q '"tool_message_lines": 1,' "$W/out"

# iblinkinfo: an up port whose far end was not scanned
{
	printf 'Switch: 0x0002c90200001000 sw:\n'
	printf '           5    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>      12    1[  ] "h1" ( )\n'
	printf '           5    3[  ] ==( 4X       14.0625 Gbps Active/  LinkUp)==>      "Port not available"\n'
	printf 'CA: h1:\n'
	printf '      0x0002c90300002001     12    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       5    1[  ] "sw" ( )\n'
} >"$W/na.iblinkinfo"
r=$(rc "$IBFAB" topo info "$W/na.iblinkinfo")
check "iblinkinfo with 'Port not available': exit 0, counted" \
	sh -c "test $r = 0 && grep -q '^ports not available: 1 ' '$W/out'"

# the q129 fabric: iblinkinfo with LID-0 peers reads like ibnetdiscover
for f in q129-via-ibsim.iblinkinfo q129-via-ibsim.iblinkinfo-l q129-via-ibsim-opensm.ibnetdiscover-s; do
	"$IBFAB" topo links "$IO/$f" >"$W/$f.links" 2>"$W/err"
	check "$f: the links of the ibnetdiscover dump" \
		cmp -s "$W/$f.links" <("$IBFAB" topo links "$IO/q129-via-ibsim.ibnetdiscover")
done

# OpenSM's guid2lid; dump_lfts of infiniband-diags 44 on 129-port switches
r=$(rc "$IBFAB" route check --topology "$IO/q129-via-ibsim.ibnetdiscover" \
	--guid2lid "$IO/q129-via-ibsim-opensm.guid2lid" \
	--lfts "$FIXTURES/lfts/q129-via-ibsim-opensm.dump_lfts-a")
check "route check: OpenSM's guid2lid and dump_lfts -a read, every pair ok (exit $r)" \
	sh -c "test $r = 0 && grep -q '^unreachable: *0$' '$W/out'"
r=$(rc "$IBFAB" route check --topology "$IO/q129-via-ibsim.ibnetdiscover" \
	--guid2lid "$IO/q129-via-ibsim-opensm.guid2lid" \
	--lfts "$FIXTURES/lfts/q129-via-ibsim-opensm.dump_lfts")
check "route check: plain dump_lfts (entries to ports 128+ lost) exits 1 naming -a" \
	sh -c "test $r = 1 && grep -q 'q129-via-ibsim-opensm.dump_lfts:6: .*dump with -a' '$W/err'"

# validate: a host planned once with two ports, found as two mlx5 devices
r=$(rc "$IBFAB" validate --plan "$IO/gpu-two-devices.plan.csv" --fabric "$IO/gpu-two-devices.ibnetdiscover")
check "validate: two single-port devices of one planned host are clean (exit $r)" \
	sh -c "test $r = 0 && grep -q '^clean: 2 of 2' '$W/out'"

# validate: exit 1 means findings; a plan, fabric or node-name-map that cannot
# be read exits 2, names the file (and line), and writes no report
P=$IO/gpu-two-devices.plan.csv
F=$IO/gpu-two-devices.ibnetdiscover
{ cat "$P"; echo '3,host,leaf,x,gpu02,1'; } >"$W/badplan.csv"
printf 'not a fabric\n' >"$W/bad.ibnd"
printf '0xzz "x"\n' >"$W/bad.map"
for t in "badplan.csv:4:--plan $W/badplan.csv --fabric $F" "bad.ibnd::--plan $P --fabric $W/bad.ibnd" \
	"bad.map:1:--plan $P --fabric $F --node-name-map $W/bad.map" \
	"nonexistent::--plan $W/nonexistent --fabric $F"; do
	IFS=: read -r file line args <<<"$t"
	rm -f "$W/rep"
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" validate $args -o "$W/rep")
	check "validate: unreadable $file exits 2 (was 1, read as findings), names it${line:+ and line $line}, no report" \
		sh -c "test $r = 2 && grep -q '$file${line:+:$line:}' '$W/err' && test ! -e '$W/rep'"
done

# topo gen: an option of another family was silently ignored (slimfly --kary,
# dragonfly --hosts, k-ary --parallel built a tree without parallel cables);
# a bad value named the value instead of the option ("option -1: '-1'")
for t in "slimfly --q 5 --kary 4" "dragonfly --a 4 --p 2 --h 2 --hosts 5" \
	"hyperx --s1 3 --s2 3 --switch-ports 2" "rail --servers 4 --gpus 8 --hosts 3" \
	"fattree --kary 4 --n 2 --parallel 2" "fattree --kary 4 --n 2 --switch-ports 4"; do
	rm -f "$W/gen"
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" topo gen $t -o "$W/gen")
	check "topo gen $t: usage error (exit 2), nothing written" \
		sh -c "test $r = 2 && grep -q 'does not apply\|take no' '$W/err' && test ! -e '$W/gen'"
done
# route: an option only one engine family reads was accepted for any other
# engine and changed nothing (--min-len with dmodk, --dmodk-roots with
# layered); the same keys in an ibfab.conf stay allowed (it serves them all)
"$IBFAB" topo gen fattree --m 4,4 --w 1,4 -o "$W/ft2.net" >/dev/null 2>&1
printf '0x0\n' >"$W/roots"
for t in "dmodk --min-len 3" "minimal --max-len dist+2" "hratio --max-paths 4" \
	"dmodk --layer0-balance all" "layered --dmodk-roots $W/roots" "minimal --dmodk-roots $W/roots" \
	"hratio --dmodk-roots $W/roots" "dmodk --avoid $W/roots"; do
	rm -f "$W/r.lfts"
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" route --topology "$W/ft2.net" --engine $t -o "$W/r.lfts")
	check "route --engine $t: usage error (exit 2) naming the engine, nothing written" \
		sh -c "test $r = 2 && grep -q 'engine only\|engines only' '$W/err' && test ! -e '$W/r.lfts'"
done
# an unknown engine is a usage error (exit 2, it was 1) in every route
# command that takes --engine, found before any output file is started
rm -f "$W/r.lfts" "$W/r.stats"
r=$(rc "$IBFAB" route --topology "$W/ft2.net" --engine nosuch -o "$W/r.lfts" --stats "$W/r.stats")
check "route --engine nosuch: exit 2 (got $r) naming the engine, nothing written" \
	sh -c "test $r = 2 && grep -q \"unknown engine 'nosuch'\" '$W/err' && test ! -e '$W/r.lfts' && test ! -e '$W/r.stats'"
for t in "stats" "congestion --pattern shift" "trace --from 1 --to 2"; do
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" route $t --topology "$W/ft2.net" --engine nosuch)
	check "route $t --engine nosuch: exit 2 (got $r) naming the engine" \
		sh -c "test $r = 2 && grep -q \"unknown engine 'nosuch'\" '$W/err'"
done
printf 'min_path_len 3\n' >"$W/any.conf"
r=$(rc "$IBFAB" route --topology "$W/ft2.net" --engine dmodk --conf "$W/any.conf" -o "$W/r.lfts")
check "route --engine dmodk --conf with a layered key: routes (exit $r)" sh -c "test $r = 0 && test -s '$W/r.lfts'"
r=$(rc "$IBFAB" topo gen slimfly --q -1)
check "topo gen --q -1: exit 2 naming --q" sh -c "test $r = 2 && grep -q \"option --q: '-1'\" '$W/err'"

# cabling: a plan CSV cut short inside its last row (b_port 12 -> 1, the
# port counts gone) is a FILE:LINE error, not a plan with a wrong port
"$IBFAB" cabling slimfly --q 5 --no-fabric -q -o "$W/cab5.csv"
head -n 200 "$W/cab5.csv" >"$W/cut.csv"
sed -n 201p "$W/cab5.csv" | cut -d, -f1-8 | tr -d '\n' >>"$W/cut.csv"
printf ',1' >>"$W/cut.csv"
r=$(rc "$IBFAB" cabling render --plan "$W/cut.csv" -o "$W/cut.ibnd")
check "cabling render: a truncated plan is an error at its last line" \
	sh -c "test $r = 1 && grep -q 'cut.csv:201: 9 fields but the header has 13' '$W/err' && test ! -e '$W/cut.ibnd'"
# sheets of a q=7 plan, then a q=5 plan into the same directory: refused
# before any file is written (rack-r05/r06 sheets would stay beside them)
"$IBFAB" cabling slimfly --q 7 --no-fabric -q -o "$W/cab7.csv" --sheets "$W/sheets"
r=$(rc "$IBFAB" cabling slimfly --q 5 -q -o "$W/new5.csv" --sheets "$W/sheets")
check "cabling slimfly --sheets: another plan's sheets in DIR: exit 1, no plan written" \
	sh -c "test $r = 1 && grep -q 'sheets: holds 52 sheet files this plan does not have (rack-r05.csv, ...)' '$W/err' && test ! -e '$W/new5.csv' -a ! -e '$W/new5.net'"
check "... and the sheets left as they were" grep -q '^7 racks' "$W/sheets/index.md"
r=$(rc "$IBFAB" cabling slimfly --q 7 -q -o "$W/again7.csv" --no-fabric --sheets "$W/sheets")
check "... the same plan again replaces them" test "$r" = 0
# the plan's files are written all or none: one that cannot be created (or
# a file named for two outputs) leaves no plan CSV, JSON or fabric file
r=$(rc "$IBFAB" cabling slimfly --q 5 -q -o "$W/part.csv" --json "$W/part.json" --ibnd "$W/no/such/dir/x.ibnd")
check "cabling slimfly: --ibnd cannot be created: exit 1, none of the plan's files written" \
	sh -c "test $r = 1 && grep -q 'no/such/dir/x.ibnd: cannot create' '$W/err' &&
		test ! -e '$W/part.csv' -a ! -e '$W/part.json' -a ! -e '$W/part.net' -a ! -e '$W/part.node-name-map'"
r=$(rc "$IBFAB" cabling slimfly --q 5 -q -o "$W/twice.csv" --json "$W/./twice.csv")
check "cabling slimfly: -o and --json one file: exit 1, not written" \
	sh -c "test $r = 1 && grep -q 'given for two outputs' '$W/err' && test ! -e '$W/twice.csv'"
# --sheets DIR named like the plan CSV: refused before anything is written
# (the sheets went into a new directory of that name, the CSV's rename then
# failed: exit 1 with the sheets left)
r=$(rc "$IBFAB" cabling slimfly --q 5 -q -o "$W/same.csv" --no-fabric --sheets "$W/./same.csv")
check "cabling slimfly: --sheets is the -o file: exit 1, nothing written" \
	sh -c "test $r = 1 && grep -q 'also an output file' '$W/err' && test ! -e '$W/same.csv'"
# an output path that is a directory: refused before anything is written
mkdir -p "$W/adir.net"
r=$(rc "$IBFAB" cabling slimfly --q 5 -q -o "$W/adir.csv" --net "$W/adir.net")
check "cabling slimfly: --net is a directory: exit 1, no plan CSV written" \
	sh -c "test $r = 1 && grep -q 'is a directory' '$W/err' && test ! -e '$W/adir.csv'"
# two outputs on stdout would interleave into one stream: refused
r=$(rc "$IBFAB" cabling slimfly --q 5 -o - --json - --no-fabric)
check "cabling slimfly -o - --json -: exit 1, says so, nothing on stdout" \
	sh -c "test $r = 1 && grep -q \"'-' (stdout) given for two outputs\" '$W/err' && test ! -s '$W/out'"
r=$(rc "$IBFAB" topo gen torus --dims 4097)
check "topo gen torus --dims 4097: usage error (exit 2)" sh -c "test $r = 2 && grep -q '2..4096' '$W/err'"
# a size or count the generator refuses is a bad option value too: exit 2
# with the family's usage hint (exit 1 without one for every family but
# torus and a q no Slim Fly has)
for t in "fattree --kary 1 --n 2" "fattree --m 300 --w 1" "fattree --m 4,4 --w 1,4 --parallel 0" \
	"dragonfly --a 0 --p 1 --h 1" "hyperx --s1 0 --s2 2" "rail --servers 2 --gpus 0" \
	"rail --servers 2 --gpus 2 --uplinks 2" "slimfly --q 3 --hosts 250" \
	"slimfly --q 3 --switch-ports 2"; do
	rm -f "$W/gen"
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" topo gen $t -o "$W/gen")
	check "topo gen $t: usage error (exit $r), nothing written" \
		sh -c "test $r = 2 && grep -q \"Try 'ibfab topo gen ${t%% *} --help'\" '$W/err' && test ! -e '$W/gen'"
done
for t in "--hosts 250" "--switch-ports 2"; do
	# shellcheck disable=SC2086
	r=$(rc "$IBFAB" cabling slimfly --q 3 $t -o "$W/gen")
	check "cabling slimfly --q 3 $t: usage error (exit $r), nothing written" \
		sh -c "test $r = 2 && grep -q \"Try 'ibfab cabling slimfly --help'\" '$W/err' && test ! -e '$W/gen'"
done
# a q no Slim Fly has is a bad option value, like one out of range: exit 2
for cmd in "topo gen slimfly" "cabling slimfly"; do
	for q in 6 10 256; do
		# shellcheck disable=SC2086
		r=$(rc "$IBFAB" $cmd --q $q -o "$W/badq.out")
		check "$cmd --q $q: usage error (exit 2), names the nearest q, nothing written" \
			sh -c "test $r = 2 && grep -q 'nearest admissible' '$W/err' && test ! -e '$W/badq.out'"
	done
done

# topo convert ibnetdiscover -> ibsim -> ibnetdiscover of a real dump whose
# node descriptions repeat (the net file's names are GUID ids): the net file
# is read as ibsim, CA port GUIDs come back (they were lost as "(0)")
V=$FIXTURES/real/sdr-voltaire-manpage-nonchassis-2007.ibnetdiscover
"$IBFAB" topo convert "$V" --format ibnetdiscover -o "$W/v1.ibnd"
"$IBFAB" topo convert "$V" --format ibsim -o "$W/v.net"
"$IBFAB" topo convert "$W/v.net" --format ibnetdiscover -o "$W/v2.ibnd"
check "topo convert: ibnetdiscover -> ibsim -> ibnetdiscover keeps the links and port GUIDs" \
	sh -c "! grep -q '(0)' '$W/v2.ibnd' && diff '$W/v1.ibnd' '$W/v2.ibnd' | grep '^[<>]' | grep -v 'sysimgguid=' | { ! grep -q .; }"
# -o to a FIFO (as to a device such as /dev/null): the plan goes through it,
# no fabric files are made beside it (FIFO.net etc.)
mkfifo "$W/plan.fifo"
cat "$W/plan.fifo" >"$W/plan.fromfifo" &
r=$(rc "$IBFAB" cabling slimfly --q 5 -q -o "$W/plan.fifo")
wait
check "cabling slimfly -o FIFO: exit 0, the plan read from the FIFO" \
	sh -c "test $r = 0 && head -1 '$W/plan.fromfifo' | grep -q '^cable,step,kind'"
check "... and no fabric files beside the FIFO" \
	sh -c "! ls '$W'/plan.net '$W'/plan.ibnetdiscover '$W'/plan.node-name-map 2>/dev/null | grep -q ."
done_testing
