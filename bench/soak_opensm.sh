#!/usr/bin/env bash
# Soak: a stock OpenSM daemon with the ibfab plugin on an ibsim Slim Fly,
# driven through many heavy sweeps by unplugging and replugging one cable at
# a time (ibsim console on a FIFO).  Prints OpenSM's resident set size after
# the 10th sweep and after the last, plus sweeps routed by ibfab and failures.
# A figure, never pass/fail (record it in docs/performance.md).
#
#   bench/soak_opensm.sh [--q Q] [--hosts P] [--lmc N] [--engine E] [--sweeps N]
#                        [--deadlock S] [--valgrind | --asan]
#
# --valgrind runs OpenSM under valgrind (memcheck, definite leaks) for the
# given number of sweeps and prints the errors whose stacks pass through
# libibfab.so (OpenSM's own are counted apart).
# --asan needs a plugin built with --enable-sanitizers (IBFAB from that
# build): OpenSM runs with libasan preloaded ahead of umad2sim, errors do not
# stop it (halt_on_error=0; memcpy and friends are not checked, because
# umad2sim overruns its own buffers there), and the reports are counted like
# valgrind's: those with a frame in the plugin apart.  Much faster than
# valgrind, so it suits long soaks.
# Needs a built tree (IBFAB=path/to/ibfab, default build/ibfab; the plugin
# comes from the same build's .libs).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
q=5 hosts=1 lmc=2 engine=layered sweeps=200 deadlock=auto vg=0 asan=0
while [ $# -gt 0 ]; do
	case "$1" in
	--q) q=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	--lmc) lmc=$2; shift 2 ;;
	--engine) engine=$2; shift 2 ;;
	--sweeps) sweeps=$2; shift 2 ;;
	--deadlock) deadlock=$2; shift 2 ;;
	--valgrind) vg=1; shift ;;
	--asan) asan=1; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
IBFAB=${IBFAB:-$top/build/ibfab}
libdir=$(cd "$(dirname "$IBFAB")/.libs" && pwd)
[ $vg = 1 ] && [ $asan = 1 ] && { echo "--valgrind and --asan exclude each other" >&2; exit 2; }
asanlib=
if [ $asan = 1 ]; then
	asanlib=$(ldd "$libdir/libibfab.so" 2>/dev/null | awk '/libasan/ { print $3; exit }')
	[ -n "$asanlib" ] || { echo "--asan: $libdir/libibfab.so is not built with --enable-sanitizers" >&2; exit 2; }
fi
PATH=$PATH:/usr/sbin:/sbin
HARNESS=$top/contrib/ibsim-harness.sh
work=$(mktemp -d /tmp/ibfab-soak.XXXXXX)
sim=$work/sim osm=
cleanup() {
	[ -n "$osm" ] && { kill "$osm" 2>/dev/null; wait "$osm" 2>/dev/null; }
	"$HARNESS" stop "$sim"
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
# stop OpenSM (its tools write their reports as it exits) and wait for them
stop_osm() {
	kill "$osm" 2>/dev/null
	wait "$osm" 2>/dev/null
	osm=
	sleep 1
}
"$IBFAB" topo gen slimfly --q "$q" --hosts "$hosts" --format ibsim -o "$work/sf.net" || exit 1
opensm -c "$work/default.conf" >/dev/null 2>&1 </dev/null
sed -e "s|^routing_engine .*|routing_engine $engine|" -e "s|^lmc .*|lmc $lmc|" \
	-e 's|^sweep_interval .*|sweep_interval 1|' -e 's|^event_plugin_name .*|event_plugin_name ibfab|' \
	-e 's|^use_ucast_cache .*|use_ucast_cache FALSE|' -e 's|^qos .*|qos TRUE|' \
	-e 's|^force_log_flush .*|force_log_flush TRUE|' \
	-e '/^dump_files_dir /d' -e '/^log_file /d' "$work/default.conf" >"$work/opensm.conf"
printf 'deadlock %s\n' "$deadlock" >"$work/ibfab.conf"
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$work/sf.net" "$sim" || exit 1
runner=()
[ $asan = 1 ] && runner=(env "LD_PRELOAD=$asanlib:/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
	"ASAN_OPTIONS=halt_on_error=0:replace_intrin=0:detect_leaks=1:log_path=$work/asan"
	"UBSAN_OPTIONS=print_stacktrace=1:log_path=$work/asan")
[ $vg = 1 ] && runner=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite
	--show-leak-kinds=definite --num-callers=30 --fullpath-after= --log-file="$work/valgrind.%p")
(
	export IBSIM_SOCKNAME=$(cat "$sim/sockname") IBFAB_CONF="$work/ibfab.conf" \
		LD_LIBRARY_PATH=$libdir OSM_TMP_DIR=$sim OSM_CACHE_DIR=$sim
	exec ibsim-run "${runner[@]}" opensm -F "$work/opensm.conf" -f "$sim/opensm.log" \
		</dev/null >"$sim/opensm.out" 2>&1
) &
osm=$!
count() { cat "$sim/opensm.log" 2>/dev/null | grep -c "$1"; }
wait_up() { # N: until N SUBNET UP lines
	local i
	for i in $(seq 1 3000); do
		[ "$(count 'SUBNET UP')" -ge "$1" ] && return 0
		kill -0 "$osm" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# resident set of OpenSM (ibsim-run and the subshell exec it: $osm is opensm,
# or valgrind running it)
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$osm/status" 2>/dev/null; }
wait_up 1 || { echo "OpenSM did not come up"; exit 1; }
# one switch-to-switch cable of the net file
read -r a pa <<<"$(awk '/^Switch/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); sw = s; next }
	/^\[/ && sw != "" && /"sf-/ { p = $1; gsub(/[^0-9]/, "", p); print sw, p; exit }' "$work/sf.net")"
t0=$(date +%s.%N)
rss10=
for i in $(seq 2 "$sweeps"); do
	if [ $((i % 2)) = 0 ]; then cmd="Unlink \"$a\"[$pa]"; else cmd="ReLink \"$a\"[$pa]"; fi
	"$HARNESS" console "$sim" "$cmd" || exit 1
	wait_up "$i" || { echo "no heavy sweep $i"; break; }
	[ "$i" = 10 ] && rss10=$(rss)
done
t1=$(date +%s.%N)
rssN=$(rss)
ok=$(count "$engine: tables configured by ibfab")
bad=$(grep -cE 'cannot route|routing failed' "$sim/opensm.log")
echo "soak: Slim Fly q=$q, $hosts host(s)/switch, LMC $lmc, engine $engine, deadlock $deadlock$([ $vg = 1 ] && echo ', under valgrind')$([ $asan = 1 ] && echo ', plugin with ASan')"
echo "heavy sweeps:        $(count 'SUBNET UP') (one cable toggled between sweeps)"
echo "routed by ibfab:     $ok, failures/fallbacks: $bad"
if [ "$sweeps" -ge 10 ]; then
	echo "OpenSM RSS:          ${rss10:-?} kB after sweep 10, ${rssN:-?} kB after sweep $sweeps"
else
	echo "OpenSM RSS:          ${rssN:-?} kB after sweep $sweeps"
fi
echo "wall time:           $(echo "$t1 - $t0" | bc) s for sweeps 2..$sweeps"
if [ $vg = 1 ]; then
	stop_osm
	cat "$work"/valgrind.* >"$work/valgrind.txt" 2>/dev/null
	total=$(grep -cE '^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|Source and|.*definitely lost)' "$work/valgrind.txt")
	# a report is ours when a frame of its stack is in libibfab.so: by the
	# library's name (no debug info) or by the path of one of our sources
	# (valgrind runs with --fullpath-after=, so frames carry full paths)
	re='libibfab|/(topology|routing|deadlock|cabling|plugin)/[A-Za-z0-9_]+[.]c:'
	ours=$(awk -v re="$re" '
		/^==[0-9]+== [A-Z0-9]/ { if (blk ~ re) n++; blk = $0; next }
		/^==[0-9]+== +(at|by) / { blk = blk "\n" $0 } END { if (blk ~ re) n++; print n + 0 }' "$work/valgrind.txt")
	echo "valgrind:            $total error/leak reports in all, $ours with libibfab.so in the stack"
	if [ "$ours" -gt 0 ]; then grep -B2 -A25 -E "$re" "$work/valgrind.txt" | head -80; fi
fi
if [ $asan = 1 ]; then
	stop_osm
	cat "$work"/asan.* >"$work/asan.txt" 2>/dev/null
	# one report per "ERROR:" line (a leak report lists every leak as a
	# "Direct/Indirect leak" block); ours when a frame is in the plugin
	re='libibfab|/(topology|routing|deadlock|cabling|plugin|conf|rail|base)/[A-Za-z0-9_]+[.]c:'
	total=$(grep -cE '(ERROR: AddressSanitizer|runtime error:|^(Direct|Indirect) leak)' "$work/asan.txt")
	ours=$(awk -v re="$re" '
		/ERROR: AddressSanitizer|runtime error:|^(Direct|Indirect) leak/ { if (blk ~ re) n++; blk = $0; next }
		/^ *#[0-9]+ / { blk = blk "\n" $0 } END { if (blk ~ re) n++; print n + 0 }' "$work/asan.txt")
	echo "asan:                $total error/leak reports in all, $ours with libibfab.so in the stack"
	if [ "$ours" -gt 0 ]; then grep -B2 -A25 -E "$re" "$work/asan.txt" | head -80; fi
fi
