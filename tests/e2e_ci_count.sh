#!/usr/bin/env bash
# The CI's count of passed checks (.ci/tap-count, read from the .trs files
# the test driver writes) is exact when test scripts run in parallel: two
# TAP scripts with many checks go through the project's tap-driver at once,
# both drivers appending to one log as under `make -j check`; the count is
# the number of checks, whatever the shared log looks like (buffered awk
# output can glue two result lines into one, which made counting "PASS:"
# lines of that log give one passed check fewer now and then).
. "$(dirname "$0")/lib.sh"
COUNT="$top_srcdir/.ci/tap-count"
DRIVER="$top_srcdir/build-aux/tap-driver.sh"
[ -f "$COUNT" ] || skip_all "no .ci/tap-count (not a git checkout)"
[ -f "$DRIVER" ] || skip_all "no build-aux/tap-driver.sh"
mk_workdir
N=400
cat >"$WORK/many.sh" <<'EOS'
#!/usr/bin/env bash
# $1 checks, each line long enough that the driver's buffer fills often;
# check $2 (0: none) fails
for i in $(seq 1 "$1"); do
	if [ "$i" = "$2" ]; then r="not ok"; else r=ok; fi
	echo "$r $i - check $i of a script that prints a fairly long description for every check it makes"
	[ $((i % 50)) -eq 0 ] && sleep 0.01
done
echo "1..$1"
EOS
chmod +x "$WORK/many.sh"
mkdir -p "$WORK/b/tests"
# run_pair FAILING-CHECK-OF-B: scripts a and b at once into one log
run_pair() {
	rm -f "$WORK/b/tests/"*.trs "$WORK/b/tests/"*.log "$WORK/shared.log"
	local t pids=()
	for t in a b; do
		AM_TAP_AWK=${AWK:-awk} bash "$DRIVER" --test-name "tests/$t" --log-file "$WORK/b/tests/$t.log" \
			--trs-file "$WORK/b/tests/$t.trs" --color-tests no --enable-hard-errors yes \
			--expect-failure no -- "$WORK/many.sh" "$N" "$([ $t = b ] && echo "$1" || echo 0)" \
			>>"$WORK/shared.log" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	echo "# shared log: $(grep -c '^PASS:' "$WORK/shared.log") lines start with PASS:, $(grep -o 'PASS: ' "$WORK/shared.log" | wc -l) PASS results in all"
}
run_pair 0
check "two scripts at once, $N checks each: $((2 * N)) passed" test "$(bash "$COUNT" "$WORK/b/tests" PASS)" -eq $((2 * N))
check "two scripts at once: none failed" test "$(bash "$COUNT" "$WORK/b/tests" FAIL ERROR XPASS)" -eq 0
run_pair 7
check "one check failing: $((2 * N - 1)) passed" test "$(bash "$COUNT" "$WORK/b/tests" PASS)" -eq $((2 * N - 1))
check "one check failing: 1 failed" test "$(bash "$COUNT" "$WORK/b/tests" FAIL ERROR XPASS)" -eq 1
check "no .trs files: 0" test "$(bash "$COUNT" "$WORK/none" PASS)" -eq 0
done_testing
