#!/usr/bin/env bash
# Option values of the commands beyond the simulators' numbers
# (tests/e2e_sim_args.sh) that the inline parsers got wrong, found checking
# them by hand beside the fuzz target `optval`: each bad value is a usage
# error (exit 2) naming the option and the value, nothing written.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
"$IBFAB" topo gen hyperx --s1 3 --s2 2 --hosts 1 -o "$W/hx.ibnd" >/dev/null

# bad: DESC WANT CMD... (exit 2, WANT in the message, nothing on stdout, no -o file)
bad() {
	local desc=$1 want=$2
	shift 2
	rm -f "$W/out.csv"
	"$@" >"$W/out" 2>"$W/err"
	local r=$?
	check "$desc: exit 2 (got $r)" test "$r" = 2
	check "... the message says '$want'" grep -q -- "$want" "$W/err"
	check "... nothing on stdout, no output file" sh -c "test ! -s '$W/out' && test ! -e '$W/out.csv'"
}

# cabling slimfly --link: an unknown speed and a width alone were planned
# as 4xEDR without a word
for v in '4x???' 4x 4xed 3xEDR ''; do
	bad "cabling slimfly --link '$v'" "--link: '$v' is not a width and a speed" \
		"$IBFAB" cabling slimfly --q 5 --link "$v" -o "$W/out.csv"
done
"$IBFAB" cabling slimfly --q 5 --link 2xHDR -o "$W/out.csv" >/dev/null 2>&1
check "cabling slimfly --link 2xHDR: planned at 2x HDR" grep -q ',2x,HDR,' "$W/out.csv"

# validate --anchor NAME=GUID: "-1" wrapped to 0xffffffffffffffff,
# a GUID of 17 hex digits was cut to that, 010 was octal
"$IBFAB" cabling slimfly --q 5 -o "$W/plan.csv" >/dev/null 2>&1
for g in -1 0x1ffffffffffffffff ' 0x10' 0x; do
	bad "validate --anchor sf-r00-g0-s00='$g'" "--anchor wants NAME=GUID" \
		"$IBFAB" validate --plan "$W/plan.csv" --fabric "$W/hx.ibnd" \
		--anchor "sf-r00-g0-s00=$g"
done

# topo gen lists: a trailing comma, blanks and signs were taken
for v in 2,2, '2, 2' +2,2 ''; do
	bad "topo gen fattree --m '$v'" "option --m" \
		"$IBFAB" topo gen fattree --m "$v" --w 1,2 -o "$W/out.csv"
done

# rail check --lmc '': an empty value was LMC 0
bad "rail check --lmc ''" "--lmc wants 0..7" "$IBFAB" rail check "$W/hx.ibnd" --lfts "$W/none" --lmc ''

# rail registry --rail N=SCORE / --domain D=SCORE: the score was checked
# with strtol (0x32 = 50, 010 = 8) and written with atoi (0, 10): a rail
# "healthy" on the command line went into the registry blocked
rm -f "$W/reg.json"
"$IBFAB" rail registry --registry "$W/reg.json" --rail 1=0x32 --domain d=010 --rail 02=5 \
	>"$W/out" 2>"$W/err"
r=$?
check "rail registry --rail 1=0x32 --domain d=010 --rail 02=5: exit 0 (got $r)" test "$r" = 0
check "... rail 1 scored 50, rail 2 5" grep -q '"rails": {"1": 50, "2": 5}' "$W/reg.json"
check "... domain d scored 10" grep -q '"domains": {"d": 10}' "$W/reg.json"
bad "rail registry --rail ' 1=5'" "a rail is named by its number" \
	"$IBFAB" rail registry --registry "$W/reg.json" --rail ' 1=5'

# an etcd location whose port has a sign or blank: it went into the URL as
# written (http://h:+80)
"$IBFAB" rail registry --registry etcd://h:+80 --rail 1=50 >"$W/out" 2>"$W/err"
r=$?
check "rail registry --registry etcd://h:+80: exit 1 (got $r), the location named" \
	sh -c "test $r = 1 && grep -q \"bad registry location 'etcd://h:+80'\" '$W/err'"

# integers are decimal or 0x hex, never octal: sim flow --seed 010 seeded
# the placement and patterns with 8 and the engine with 10
for s in 010 10 8; do
	"$IBFAB" sim flow --topology "$W/hx.ibnd" --engine minimal --pattern perm:3 --seed $s \
		>"$W/seed$s" 2>&1
done
check "sim flow --seed 010 is seed 10" cmp -s "$W/seed010" "$W/seed10"
check "... not seed 8" sh -c "! cmp -s '$W/seed10' '$W/seed8'"
"$IBFAB" sim packet --topology "$W/hx.ibnd" --engine minimal --load 0.5 --measure 1us --vls 08 \
	>"$W/out" 2>"$W/err"
r=$?
check "sim packet --vls 08: 8 VLs (exit $r; a leading 0 was octal, 08 an error)" test "$r" = 0
# IBFAB_THREADS was read with atoi: 'x' meant 0, '1e3' meant 1
for v in x 1e3 65 -1; do
	IBFAB_THREADS=$v "$IBFAB" route stats --topology "$W/hx.ibnd" --engine minimal >"$W/out" 2>"$W/err"
	r=$?
	check "IBFAB_THREADS=$v: exit 2 (got $r), the variable named" \
		sh -c "test $r = 2 && grep -q \"IBFAB_THREADS='$v'\" '$W/err'"
done
IBFAB_THREADS=2 "$IBFAB" route stats --topology "$W/hx.ibnd" --engine minimal >"$W/t2" 2>&1
IBFAB_THREADS=0 "$IBFAB" route stats --topology "$W/hx.ibnd" --engine minimal >"$W/t0" 2>&1
check "IBFAB_THREADS=2 and 0 give the same stats" cmp -s "$W/t2" "$W/t0"
done_testing
