#!/usr/bin/env bash
# End to end: the inputs of issue 14 that aborted the normally built ibfab
# (exit 134/139) now give a result or a FILE:LINE error with exit 1.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK

# rc CMD...: run, keep stderr in $W/err, print the exit status
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

# 8 switches without switch-to-switch links, one host each, with tables
# written by hand (each switch forwards its own LID and its host's)
: >"$W/iso8.net"
for i in 0 1 2 3 4 5 6 7; do
	printf 'Switch\t8 "sw%d"\n[1]\t"h%d"[1]\n\nHca\t1 "h%d"\n[1]\t"sw%d"[1]\n\n' $i $i $i $i >>"$W/iso8.net"
done
"$IBFAB" topo convert "$W/iso8.net" --format ibnetdiscover --lmc 0 -o "$W/iso8.ibnd" 2>/dev/null
: >"$W/iso8.lfts"
i=0
for g in $(awk '/^Switch/ { g = $3; gsub(/"|S-/, "", g); print g }' "$W/iso8.ibnd"); do
	printf "Unicast lids [0-16] of switch Lid %d guid 0x%s ('sw%d'):\n0x%04x 000 # self\n0x%04x 001 # host\n2 lids dumped\n" \
		$((i + 1)) "$g" $i $((i + 1)) $((i + 9)) >>"$W/iso8.lfts"
	i=$((i + 1))
done
r=$(rc "$IBFAB" deadlock apply --topology "$W/iso8.ibnd" --lfts "$W/iso8.lfts" --scheme dfsssp \
	--sl "$W/iso8.sl" --sl2vl "$W/iso8.sl2vl" --verify)
check "deadlock apply dfsssp on 8 switches without switch links: exit 0 (was 134)" test "$r" = 0
check "... and the verifier finds it deadlock-free" grep -q "result: *deadlock-free" "$W/out"

# the repository's single-switch fixture through every engine and scheme
for e in minimal layered; do
	for s in dfsssp coloring auto; do
		r=$(rc "$IBFAB" route --topology "$FIXTURES/real/sdr-mt43132-1switch-2hosts-2009.ibnetdiscover" \
			--engine $e --deadlock $s)
		check "single switch: route --engine $e --deadlock $s exits 0" test "$r" = 0
	done
done

# guid2lid: LMC > 7 and GUID 0 are FILE:LINE errors
"$IBFAB" topo gen fattree --kary 2 --n 2 -o "$W/ft.ibnd"
guid=$(awk '/^\[1\]\(/ { g = $1; sub(/^\[1\]\(/, "", g); sub(/\).*/, "", g); print "0x" g; exit }' "$W/ft.ibnd")
printf '# a comment\n%s 8192 16383\n' "$guid" >"$W/lmc13.g2l"
r=$(rc "$IBFAB" route --topology "$W/ft.ibnd" --guid2lid "$W/lmc13.g2l")
check "guid2lid with a range of LMC 13: exit 1 (was 134)" test "$r" = 1
check "... with FILE:LINE and the LMC" grep -q "lmc13.g2l:2: .*LMC 13" "$W/err"
printf '0x0 1 1\n' >"$W/zero.g2l"
r=$(rc "$IBFAB" route --topology "$W/ft.ibnd" --guid2lid "$W/zero.g2l")
check "guid2lid with GUID 0: exit 1 with FILE:LINE" sh -c "test $r = 1 && grep -q 'zero.g2l:1: port GUID 0' '$W/err'"

# validate: an unknown switch cabled to hosts with long node descriptions
"$IBFAB" cabling from-topology "$W/ft.ibnd" -o "$W/plan.csv" 2>/dev/null
"$IBFAB" topo convert "$W/ft.ibnd" --format ibsim -o "$W/bad.net"
L=$(printf 'L%.0s' $(seq 290)); M=$(printf 'M%.0s' $(seq 70))
{
	printf '\nSwitch\t8 "mystery-switch"\n[1]\t"a%s"[1]\n[2]\t"b%s"[1]\n[3]\t"c%s"[1]\n[4]\t"d"[1]\n' "$L" "$M" "$L"
	p=0
	for h in "a$L" "b$M" "c$L" d; do p=$((p + 1)); printf '\nCa\t1 "%s"\n[1]\t"mystery-switch"[%d]\n' "$h" $p; done
} >>"$W/bad.net"
r=$(rc "$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/bad.net")
check "validate with 290-byte node descriptions on an unknown switch: exit 1 (was 139)" test "$r" = 1
check "... reports the unknown switch" grep -q "unknown-node" "$W/out"

# a fabric without switches: a clear error from every engine
printf 'Hca\t1 "h0"\n[1]\t"h1"[1]\n\nHca\t1 "h1"\n[1]\t"h0"[1]\n' >"$W/b2b.net"
for e in minimal layered dmodk; do
	r=$(rc "$IBFAB" route --topology "$W/b2b.net" --engine $e -o "$W/b2b.lfts")
	check "no switches: route --engine $e exits 1 and says why" \
		sh -c "test $r = 1 && grep -q 'no switches' '$W/err' && test ! -e '$W/b2b.lfts'"
done
done_testing
