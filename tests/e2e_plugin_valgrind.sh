#!/usr/bin/env bash
# OpenSM + the ibfab plugin under valgrind (memcheck, definite leaks): a
# short daemon run on an ibsim Slim Fly q=5 (one host per switch), layered,
# LMC 2, deadlock auto, four heavy sweeps with a cable unplugged and
# replugged between them (bench/soak_opensm.sh --valgrind).  Every sweep is
# routed by ibfab, and no valgrind report (error or definite leak) has a
# frame in the plugin; reports inside OpenSM, libosmvendor or umad2sim are
# not ours and only counted.
. "$(dirname "$0")/lib.sh"
need_sim
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind not installed"
[ -f "$top_builddir/.libs/libibfab.so" ] || skip_all "plugin not built"
mk_workdir
IBFAB="$IBFAB" bash "$top_srcdir/bench/soak_opensm.sh" --sweeps 4 --valgrind >"$WORK/out.txt" 2>&1
rc=$?
diag <"$WORK/out.txt"
check "soak under valgrind ran (exit $rc)" test $rc -eq 0
check "4 heavy sweeps, all routed by ibfab, no fallback" \
	grep -qE '^routed by ibfab: +4, failures/fallbacks: 0$' "$WORK/out.txt"
check "valgrind ran and reported" grep -q '^valgrind: ' "$WORK/out.txt"
check "no valgrind report with a frame in the plugin" \
	grep -qE '^valgrind: .*, 0 with libibfab.so in the stack$' "$WORK/out.txt"
done_testing
