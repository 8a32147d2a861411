#!/usr/bin/env bash
# bench/sim_packet_check.py: the packet simulator's physical invariants
# (utilisation and accepted load <= 1 also for windows shorter than a
# packet, counts, latency order, no deadlock with deadlock-free tables, node
# model sums, streams' bytes, determinism, zero-load latency and hops from
# the tables) over generated fabrics, the real PlaFRIM fabric with its own
# ibroute tables and the 2007 SDR fabric with 1x links.  About 6 s.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
mk_workdir
rc=0
timeout 300 python3 "$top_srcdir/bench/sim_packet_check.py" --ibfab "$IBFAB" \
	--fixtures "$top_srcdir/tests/fixtures" >"$WORK/check.log" 2>&1 || rc=$?
check "packet simulator invariants: no finding" [ "$rc" -eq 0 ]
grep -q '^0 finding(s)$' "$WORK/check.log"
check "the checker ran to its summary" [ $? -eq 0 ]
diag <"$WORK/check.log"
done_testing
