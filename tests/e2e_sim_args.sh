#!/usr/bin/env bash
# The number options of `ibfab sim packet` and `ibfab sim flow` on bad
# values (some found by fuzzing): a usage error (exit 2) that names the
# option, nothing on stdout, no output file started.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
"$IBFAB" topo gen fattree --kary 2 --n 2 -o "$W/ft.ibnd" >/dev/null

# bad VALUE of OPTION for sim packet: exit 2, OPTION named, no output
bad_packet() {
	local opt=$1 val=$2 want=$3 load=(--load 0.5)
	# --loads alone: beside --load it is refused whatever its value
	[ "$opt" = --loads ] && load=()
	rm -f "$W/out.svg"
	"$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal "${load[@]}" --measure 1us \
		--svg "$W/out.svg" "$opt" "$val" >"$W/out" 2>"$W/err"
	local r=$?
	check "sim packet $opt '$val': exit 2 (got $r)" test "$r" = 2
	check "... the message says '$want'" grep -q -- "$want" "$W/err"
	check "... nothing on stdout, no SVG" sh -c "test ! -s '$W/out' && test ! -e '$W/out.svg'"
}
# x 1024 overflowed (undefined behaviour) before the range check:
# 2^54 + 1 KiB wrapped to 1024 bytes and was taken
bad_packet --buffer 18014398509481985k "--buffer: .* is not a byte count"
bad_packet --bytes 18014398509481985K "--bytes: .* is not a byte count"
bad_packet --buffer 9223372036854775807k "--buffer: .* is not a byte count"
bad_packet --buffer -9223372036854775807k "--buffer: .* is not a byte count"
bad_packet --bytes 9007199254740993KiB "--bytes: .* is not a byte count"
bad_packet --header 1k "--header: .* is not a byte count"
# a step so small the sweep was cut at 10000 loads without a word
bad_packet --loads 0.1:1:1e-9 "more than 10000 loads"
bad_packet --loads 1e-300:1e-300:1 --loads
bad_packet --loads 0.5:0.4:0.1 --loads
# --load and --loads together: the later one was taken without a word (a
# sweep ran as one load)
for order in "--load 0.5 --loads 0.1:0.2:0.1" "--loads 0.1:0.2:0.1 --load 0.5"; do
	# shellcheck disable=SC2086
	"$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --measure 1us $order \
		--svg "$W/out.svg" >"$W/out" 2>"$W/err"
	r=$?
	check "sim packet $order: exit 2 (got $r)" test "$r" = 2
	check "... the message says why" grep -q -- "--load and --loads: give one of them" "$W/err"
	check "... nothing on stdout, no SVG" sh -c "test ! -s '$W/out' && test ! -e '$W/out.svg'"
done
bad_packet --measure 1e400us "--measure: bad time"
bad_packet --measure nan "--measure: bad time"
# node links under 0.05 Gb/s rounded to a rate of 0 in the library (division by zero)
bad_packet --nic-gbps 0.01 "--nic-gbps"
bad_packet --acc-gbps 0.01 "--acc-gbps"
# pattern counts: "-N" wrapped through strtoul to 2^64 - N
bad_packet --traffic shift:-18446744073709551615 shift:-18446744073709551615
bad_packet --traffic perm:+3 perm:+3
# a buffer below one packet (--mtu + --header) was refused by the simulator
# after the fabric was loaded and routed, exit 1
bad_packet --buffer 4095 "buffer (4095 bytes) must hold one packet (4096 bytes)"
# '-' for a file output: the SVG or the CSV went to stdout after the report
# (or the JSON), exit 0, one stream that neither reader could parse
bad_packet --svg - "--svg -: stdout carries the report"
bad_packet --link-util - "--link-util -: stdout carries the report"

# the same counts in sim flow
for a in "--pattern shift:-18446744073709551615" "--pattern bisection:" \
	"--layers layer:-18446744073709551615" "--layers layer:+1"; do
	# shellcheck disable=SC2086
	"$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal $a >"$W/out" 2>"$W/err"
	r=$?
	check "sim flow $a: exit 2 (got $r), nothing on stdout" sh -c "test $r = 2 && test ! -s '$W/out'"
	check "... the message quotes the value" grep -q -- "${a#* }" "$W/err"
done

# an unknown engine: a usage error (exit 2, it was 1) before any output
rm -f "$W/out.svg" "$W/util.csv"
"$IBFAB" sim packet --topology "$W/ft.ibnd" --engine nosuch --load 0.5 --measure 1us \
	--svg "$W/out.svg" --link-util "$W/util.csv" >"$W/out" 2>"$W/err"
r=$?
check "sim packet --engine nosuch: exit 2 (got $r) naming it, no output file" \
	sh -c "test $r = 2 && grep -q \"unknown engine 'nosuch'\" '$W/err' && test ! -s '$W/out' && test ! -e '$W/out.svg' && test ! -e '$W/util.csv'"
rm -rf "$W/flowsvg"
"$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --engine nosuch --pattern shift:1 \
	--svg "$W/flowsvg" >"$W/out" 2>"$W/err"
r=$?
check "sim flow --engine minimal --engine nosuch: exit 2 (got $r) naming it, no output" \
	sh -c "test $r = 2 && grep -q \"unknown engine 'nosuch'\" '$W/err' && test ! -s '$W/out' && test ! -e '$W/flowsvg'"

# sim flow --svg takes a directory: '-' made a directory named '-'
(cd "$W" && "$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --pattern shift:1 --svg - \
	>"$W/out" 2>"$W/err")
r=$?
check "sim flow --svg -: usage error (exit 2, got $r), no directory '-', nothing on stdout" \
	sh -c "test $r = 2 && test ! -e '$W/-' && test ! -s '$W/out' && grep -q 'directory' '$W/err'"

# byte counts take the same suffixes in both simulators: sim flow --bytes 64k
# was "expected a size > 0" (exit 2), sim packet had k/KiB only
"$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --pattern shift:1 --bytes 64k >"$W/a" 2>&1
r=$?
"$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --pattern shift:1 --bytes 65536 >"$W/b" 2>&1
check "sim flow --bytes 64k: exit 0 (got $r), the same as --bytes 65536" \
	sh -c "test $r = 0 && cmp -s '$W/a' '$W/b'"
"$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --pattern shift:1 --bytes 1T >"$W/out" 2>"$W/err"
r=$?
check "sim flow --bytes 1T: exit 2 (got $r), the value and the suffixes named" \
	sh -c "test $r = 2 && test ! -s '$W/out' && grep -q \"'1T' is not a byte count .*k/KiB, M/MiB or G/GiB\" '$W/err'"
for b in 1MiB 1M; do
	"$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --traffic shift:1 --streams \
		--bytes $b --load 1 --measure 1ms >"$W/a" 2>&1
	r=$?
	"$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --traffic shift:1 --streams \
		--bytes 1048576 --load 1 --measure 1ms >"$W/b" 2>&1
	# (the lines but the wall time)
	check "sim packet --bytes $b: exit 0 (got $r), the same run as --bytes 1048576" \
		bash -c "test $r = 0 && grep -q 'messages of 1048576 B' '$W/a' && cmp -s <(grep -v wall '$W/a') <(grep -v wall '$W/b')"
done

# the memory limit of a cgroup (fake files through IBFAB_CGROUP_ROOT): a2a on
# the 4 hosts (12 flows) does not fit in 2000 bytes of cgroup v2 memory.max;
# the refusal names that limit and its file, nothing on stdout.  The same
# limit for sim packet's pattern traffic.
CG=$W/cgroot
mkdir -p "$CG/proc/self" "$CG/sys/fs/cgroup/job"
echo "0::/job" >"$CG/proc/self/cgroup"
echo 2000 >"$CG/sys/fs/cgroup/job/memory.max"
IBFAB_CGROUP_ROOT=$CG "$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --pattern a2a \
	>"$W/out" 2>"$W/err"
r=$?
diag <"$W/err"
check "sim flow a2a under a 2000-byte cgroup: exit 1 (got $r), the cgroup file named, no stdout" \
	sh -c "test $r = 1 && test ! -s '$W/out' &&
	grep -q 'has 12 flows, more than the 10 that fit in the 2000 bytes of memory there is (limit: cgroup v2 memory.max in $CG/sys/fs/cgroup/job/memory.max)' '$W/err'"
IBFAB_CGROUP_ROOT=$CG "$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --traffic a2a \
	--load 0.5 --measure 1us >"$W/out" 2>"$W/err"
r=$?
check "sim packet --traffic a2a under the same cgroup: exit 1 (got $r), the cgroup named" \
	sh -c "test $r = 1 && grep -q 'limit: cgroup v2 memory.max in ' '$W/err'"
# the node model's intra-node packets under the same kind of limit (4 MiB):
# 1-byte payloads with 20-byte headers, an offered load the accelerator
# links cannot carry, so their queues grow for as long as the run lasts (to
# the whole machine, until the kernel killed it); now an error naming the
# cause.  4 KiB intra-node packets at the same load fit.
echo 4194304 >"$CG/sys/fs/cgroup/job/memory.max"
IBFAB_CGROUP_ROOT=$CG "$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --accels 2 \
	--inter-frac 0.5 --ipkt-payload 1 --load 0.5 --measure 1ms --svg "$W/node.svg" \
	>"$W/out" 2>"$W/err"
r=$?
check "sim packet node model, 1-byte intra-node payloads under 4 MiB: exit 1 (got $r), why, no output" \
	sh -c "test $r = 1 && test ! -s '$W/out' && test ! -e '$W/node.svg' &&
	grep -q 'node model: [0-9]* intra-node packets queued at once .* no room for more in half the 4.0 MiB of memory there is (cgroup v2 memory.max in $CG/sys/fs/cgroup/job/memory.max): the accelerators offer more than their links carry with 21-byte intra-node packets' '$W/err'"
IBFAB_CGROUP_ROOT=$CG "$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --accels 2 \
	--inter-frac 0.5 --ipkt-payload 4096 --buffer 8k --load 0.5 --measure 100us >"$W/out" 2>"$W/err"
r=$?
check "... 4 KiB intra-node packets under the same limit: runs (exit $r)" test "$r" = 0
echo max >"$CG/sys/fs/cgroup/job/memory.max"
IBFAB_CGROUP_ROOT=$CG "$IBFAB" sim flow --topology "$W/ft.ibnd" --engine minimal --pattern a2a \
	>"$W/out" 2>"$W/err"
r=$?
check "sim flow a2a with memory.max 'max': runs (exit $r)" test "$r" = 0

# and the good forms still work
"$IBFAB" sim packet --topology "$W/ft.ibnd" --engine minimal --loads 0.2:0.4:0.2 --buffer 8k \
	--accels 2 --msg 4KiB --measure 2us --warmup 1us -q >"$W/out" 2>"$W/err"
r=$?
check "sim packet --loads 0.2:0.4:0.2 --buffer 8k --accels 2 --msg 4KiB: exit 0 (got $r), two loads" \
	sh -c "test $r = 0 && test \$(grep -c '^load ' '$W/out') = 2"
done_testing
