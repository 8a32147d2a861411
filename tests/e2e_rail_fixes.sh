#!/usr/bin/env bash
# Four answers that used to be wrong, on intact and damaged rail fabrics:
# `rail path` from a GPU to itself (a usage error, not a made-up d path),
# a repeated or empty --hosts name (a usage error naming it), `rail info`
# naming rail switches the structure implies but the fabric lacks (a leaf,
# two leaves, a whole rail; not a cut cable or a dead spine), and --threads
# of every command (0 / auto: one per online CPU; negative and non-numbers:
# usage errors).
. "$(dirname "$0")/lib.sh"
mk_workdir
cd "$WORK" || exit 1

# cutsw FILE DESC: the fabric without switch DESC (its block and every
# cable to it; its GPU NICs stay, without a cable)
cutsw() {
	local g
	g=$(grep "^Switch.*\"$2\" base" "$1" | sed 's/.*"\(S-[0-9a-f]*\)".*/\1/')
	[ -n "$g" ] || { echo "no switch $2 in $1" >&2; return 1; }
	awk -v RS= -v ORS='\n\n' -v d="\"$2\" base port" 'index($0, d) == 0' "$1" | grep -v "\"$g\""
}
# cutca FILE DESC: the fabric without the cable of CA DESC (both ends)
cutca() {
	awk -v n="\"$2\"" 'BEGIN { RS = ""; ORS = "\n\n" }
	{
		k = split($0, L, "\n"); o = ""; ca = 0
		for (i = 1; i <= k; i++)
			if (L[i] ~ /^Ca/ && index(L[i], "# " n))
				ca = 1
		for (i = 1; i <= k; i++)
			if (!(L[i] ~ /^\[/ && (ca || index(L[i], n " lid"))))
				o = o L[i] "\n"
		printf "%s\n", o
	}' "$1"
}
NPROC=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

"$IBFAB" topo gen rail --servers 4 --gpus 4 --spines 2 >r.topo 2>/dev/null
"$IBFAB" topo gen rail --servers 6 --gpus 4 --rail-switches 2 --spines 2 >m.topo 2>/dev/null
cutsw m.topo rail01-l01 >m1.topo
cutsw m1.topo rail02-l00 >m2.topo
cutsw m.topo rail01-l00 >tmp.topo && cutsw tmp.topo rail01-l01 >mr.topo
cutsw r.topo rail02-l00 >r2.topo
cutsw r2.topo rail01-l00 >r12.topo
cutsw r.topo rail03-l00 >r3.topo
cutca m.topo "srv002 mlx5_1" >mc.topo
cutsw m.topo spine01 >ms.topo
cutca m1.topo "srv003 mlx5_0" >tmp.topo && cutsw tmp.topo spine00 >m1cs.topo
check "cut fabrics: rail01-l01 gone, 9 switches" sh -c \
	"! grep -q '\"rail01-l01\"' m1.topo && '$IBFAB' topo info m1.topo | grep -q '^switches: *9'"
check "damaged fabrics: one GPU NIC cable less" sh -c \
	"'$IBFAB' topo info mc.topo | grep -q 'channel adapters: 24 (23 connected ports)'"
check "damaged fabrics: one spine less" sh -c "'$IBFAB' topo info ms.topo | grep -q '^switches: *9'"

# ---------------------------------------------------------------- 3. rail info
for t in r m mc ms; do
	"$IBFAB" rail info $t.topo >$t.info 2>&1
	check "rail info $t: nothing missing" sh -c "! grep -q 'missing rail switches' $t.info"
done
"$IBFAB" rail info m1.topo >m1.info
check "one leaf gone: named as missing" grep -q \
	'^missing rail switches: 0 whole rail(s), 1 leaf switch(es)' m1.info
check "one leaf gone: its rail and servers" grep -q \
	'rail 1 (label 1): a leaf is missing: the 3 servers of leaf rail00-l01 (rail 0)' m1.info
"$IBFAB" rail info m2.topo >m2.info
check "two leaves gone: both named" sh -c \
	"grep -q '^missing rail switches: 0 whole rail(s), 2 leaf switch(es)' m2.info &&
	 grep -q 'rail 1 (label 1): a leaf is missing' m2.info &&
	 grep -q 'rail 2 (label 2): a leaf is missing' m2.info"
"$IBFAB" rail info m1cs.topo >m1cs.info
check "a leaf gone, a cable and a spine too: still one leaf, 3 servers" sh -c \
	"grep -q '1 leaf switch(es)' m1cs.info && grep -q 'the 3 servers' m1cs.info"
"$IBFAB" rail info mr.topo >mr.info
check "both leaves of a rail gone: a whole rail" grep -q \
	'rail label 1: missing (no switch or GPU of it in the fabric; 6 GPU NIC(s) without a cable carry it, its number lies between present rails)' mr.info
# device numbers skipped between rails are no evidence on their own: DGX
# H100 servers number their IB NICs 0, 3-6, 9-11 (the others are Ethernet
# ports); a sweep that lost a rail's switch and NICs looks the same
sed -e 's/mlx5_3"/mlx5_5"/' -e 's/mlx5_2"/mlx5_4"/' -e 's/mlx5_1"/mlx5_3"/' r.topo >dgx.topo
"$IBFAB" rail info dgx.topo >dgx.info
check "DGX-style device numbers: nothing missing, the skipped numbers named" sh -c \
	"! grep -q 'missing rail switches' dgx.info &&
	 grep -q '^device numbers between the rails without a rail: 1 2 (a rail lost whole' dgx.info"
awk -v RS= -v ORS='\n\n' 'index($0, "mlx5_2\"") == 0 || /^vendid.*\nSwitch/ || index($0, "Switch")' \
	r2.topo | grep -v 'mlx5_2"' >r2s.topo
"$IBFAB" rail info r2s.topo >r2s.info
check "a rail lost with its NICs (a real sweep): its number named, not counted" sh -c \
	"grep -q '^device numbers between the rails without a rail: 2 ' r2s.info &&
	 ! grep -q 'missing rail switches' r2s.info &&
	 '$IBFAB' topo info r2s.topo | grep -q 'channel adapters: 12 '"
"$IBFAB" rail info r2.topo >r2.info
check "single-switch rail gone: a whole rail" sh -c \
	"grep -q '^missing rail switches: 1 whole rail(s), 0 leaf' r2.info && grep -q 'rail label 2: missing' r2.info"
"$IBFAB" rail info r12.topo >r12.info
check "two single-switch rails gone: two whole rails" grep -q \
	'^missing rail switches: 2 whole rail(s), 0 leaf' r12.info
"$IBFAB" rail info r3.topo >r3.info
check "the last rail gone: found by its NICs without a cable" grep -q \
	'rail label 3: missing (no switch or GPU of it in the fabric; 4 GPU NIC(s) without a cable carry it)' r3.info
"$IBFAB" rail info m2.topo >/dev/null 2>&1
check "rail info exits 0 with missing leaves (it reports, it does not check)" test $? -eq 0

# ---------------------------------------------------------------- 1. rail path to itself
for t in r mc m1; do
	"$IBFAB" rail registry --registry $t.json --topology $t.topo --now 1000 >/dev/null 2>&1
	"$IBFAB" rail path --registry $t.json --src srv000:1 --dst srv000:1 --now 1010 >out.txt 2>err.txt
	rc=$?
	check "$t: same GPU: usage error, exit 2 (got $rc)" test "$rc" -eq 2
	check "$t: same GPU: says so, prints no path" sh -c \
		"grep -q 'same GPU (srv000:1)' err.txt && ! test -s out.txt"
done
"$IBFAB" rail path --registry r.json --src srv001:2 --dst srv001:02 --now 1010 >out.txt 2>err.txt
check "same GPU written two ways: exit 2" test $? -eq 2
"$IBFAB" rail path --registry missing.json --src srv001:2 --dst srv001:2 >out.txt 2>err.txt
check "same GPU: exit 2 before the registry is read" sh -c \
	"test $? -eq 2 && ! grep -q warning err.txt"
out=$("$IBFAB" rail path --registry r.json --src srv000:1 --dst srv000:2 --now 1010)
check "two GPUs of one host: d, exit 0" sh -c "echo '$out' | grep -q ': d via'"

# ---------------------------------------------------------------- 2. --hosts
for t in r mc; do
	"$IBFAB" rail path --registry $t.json --all --hosts srv000,srv001,srv000 --now 1010 >out.txt 2>err.txt
	rc=$?
	check "$t: --hosts with a repeated name: exit 2 (got $rc)" test "$rc" -eq 2
	check "$t: --hosts: names the repeated host, no output" sh -c \
		"grep -q 'srv000 is listed twice' err.txt && ! test -s out.txt"
done
"$IBFAB" rail path --registry r.json --all --hosts srv001,,srv002 --now 1010 >out.txt 2>err.txt
check "--hosts with an empty name: exit 2" sh -c "test $? -eq 2 && grep -q 'empty host name' err.txt"
"$IBFAB" rail path --registry r.json --all --hosts srv001,srv002, --now 1010 >out.txt 2>err.txt
check "--hosts with a trailing comma: exit 2" test $? -eq 2
"$IBFAB" rail path --registry r.json --all --hosts srv001,srv000 --now 1010 >out.txt
check "--hosts without repeats: 2 hosts, every pair once" grep -q '^2 hosts x 4 rails: d 24, r 8,' out.txt

# ---------------------------------------------------------------- 4. --threads
"$IBFAB" route --topology r.topo -o r.lfts 2>/dev/null
"$IBFAB" route --topology m1.topo -o m1.lfts 2>/dev/null
cap16=$((NPROC > 16 ? 16 : NPROC))
for t in r m1; do
	"$IBFAB" sim flow --topology $t.topo --lfts $t.lfts --pattern a2a --json --threads 1 >f1.json
	for v in 0 auto; do
		"$IBFAB" sim flow --topology $t.topo --lfts $t.lfts --pattern a2a --json --threads $v \
			>f0.json 2>err.txt
		check "$t: sim flow --threads $v: exit 0, same result as 1" cmp -s f0.json f1.json
		check "$t: sim flow --threads $v: one per online CPU ($NPROC)" \
			grep -q "threads $v: $NPROC thread(s), one per online CPU" err.txt
	done
done
cap64=$((NPROC > 64 ? 64 : NPROC))
"$IBFAB" topo info r.topo --threads 1 >i1.txt
"$IBFAB" topo info r.topo --threads 0 >i0.txt 2>err.txt
check "topo info --threads 0: exit 0, same output, $cap64 thread(s)" sh -c \
	"cmp -s i0.txt i1.txt && grep -q ': $cap64 thread(s)' err.txt"
sp="sim packet --topology r.topo --lfts r.lfts --loads 0.1:0.3:0.1 --warmup 1us --measure 2us"
$IBFAB $sp --threads 1 >p1.txt 2>/dev/null
$IBFAB $sp --threads 0 >p0.txt 2>err.txt
# (the wall-clock line differs from run to run)
check "sim packet --threads 0: exit 0, same output, $cap64 thread(s)" sh -c \
	"grep -v ' s wall' p0.txt >p0.cmp && grep -v ' s wall' p1.txt >p1.cmp && test -s p1.cmp &&
	 cmp -s p0.cmp p1.cmp && grep -q ': $cap64 thread(s)' err.txt"
"$IBFAB" route --topology r.topo --threads 0 -o r0.lfts 2>/dev/null
check "route --threads 0: same tables" cmp -s r0.lfts r.lfts
"$IBFAB" route --topology r.topo --threads 0 --deadlock dfsssp -o r0d.lfts --sl r0d.sl 2>/dev/null
"$IBFAB" route --topology r.topo --threads 1 --deadlock dfsssp -o r1d.lfts --sl r1d.sl 2>/dev/null
check "route --threads 0 with a deadlock scheme: same tables and SLs" sh -c \
	"cmp -s r0d.lfts r1d.lfts && cmp -s r0d.sl r1d.sl"
for v in -1 -0 abc 2x +2 '' ' 2' 1e3; do
	for cmd in "sim flow --topology r.topo --lfts r.lfts --pattern a2a" "topo info r.topo" \
		"route --topology r.topo -o bad.lfts" "$sp"; do
		$IBFAB $cmd --threads "$v" >out.txt 2>err.txt
		rc=$?
		check "${cmd%% --*} --threads '$v': usage error (got $rc)" sh -c \
			"test $rc -eq 2 && grep -q -- '--threads' err.txt && ! test -s out.txt"
	done
done
check "no output file after a bad --threads" test ! -e bad.lfts
$IBFAB $sp --threads 65 >out.txt 2>err.txt
check "sim packet --threads 65: over its maximum, exit 2" sh -c "test $? -eq 2 && grep -q 'at most 64' err.txt"
done_testing
