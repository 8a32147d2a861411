#!/usr/bin/env bash
# A quick pass of bench/qa_sweep.py (docs/reliability.md, "Damaged and
# irregular fabrics"): Slim Fly q=3, an odd XGFT, a rail-optimized cluster and
# a HyperX, each with 20 % of the cables gone, a switch gone, a leaf cut off,
# hosts on the top switches, odd cabling (dual-homed HCA, empty leaf, extra
# parallel cable, loopback, hosts back to back) and a mix of all, through
# every engine that applies, deadlock schemes, the verifier, route check,
# short flow and packet simulations; thread-count determinism and no
# half-written file after a failure; for the mixed damage also stale and
# stable-reroute tables and the same results from shuffled records and the
# ibsim format.  About 10 s.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir
rc=0
timeout 600 python3 "$top_srcdir/bench/qa_sweep.py" --ibfab "$IBFAB" --quick \
	--workdir "$WORK/sweep" >"$WORK/sweep.log" 2>&1 || rc=$?
check "quick sweep of damaged fabrics: no failure" [ "$rc" -eq 0 ]
grep -q '^qa-sweep: [0-9]* ibfab runs, [1-9][0-9]* routed, [1-9][0-9]* refused' "$WORK/sweep.log"
check "the sweep routed fabrics and saw refusals of split ones" [ $? -eq 0 ]
grep -v '^[a-z0-9-]* *[a-z0-9]* *ok$' "$WORK/sweep.log" | diag
done_testing
