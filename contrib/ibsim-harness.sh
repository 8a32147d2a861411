#!/usr/bin/env bash
# ibsim harness: run commands against an ibsim-simulated fabric and always
# clean up what we started (by PID, never by name).
#
#   ibsim-harness.sh start NETFILE DIR     start ibsim -s NETFILE, state in DIR
#   ibsim-harness.sh run DIR CMD [ARGS..]  run CMD under libumad2sim (ibsim-run)
#   ibsim-harness.sh stop DIR              stop the ibsim started in DIR
#   ibsim-harness.sh with NETFILE DIR -- CMD [ARGS..]
#                                          start, run CMD (with IBSIM_SOCKNAME and
#                                          IBFAB_SIM_DIR exported), stop, even on error
#   ibsim-harness.sh console DIR LINE..    send console commands (e.g. 'Unlink "sw1"[3]')
#                                          to the ibsim in DIR, one per argument, and
#                                          wait until it has executed each
#
# With IBFAB_SIM_CONSOLE=1 in the environment, start/with give ibsim its
# command console on a FIFO (DIR/console) instead of -n; a holder process
# keeps the FIFO open so ibsim blocks on it (at end of file it would spin).
#
# Every run gets its own IBSIM_SOCKNAME, ibsim runs with -n (no console:
# stdin is not a terminal in tests/CI), and -N/-S/-P/-L are raised from the
# net file's size so large fabrics (beyond 2048 nodes / 256 switches) load.
set -u

die() { echo "ibsim-harness: $*" >&2; exit 2; }

sim_start() {
	local net=$1 dir=$2
	[ -r "$net" ] || die "cannot read net file '$net'"
	net="$(cd "$(dirname "$net")" && pwd)/$(basename "$net")"
	mkdir -p "$dir" || die "cannot create '$dir'"
	dir=$(cd "$dir" && pwd)
	command -v ibsim >/dev/null || die "ibsim not installed (apt-get install ibsim-utils)"
	local nsw nca nports
	nsw=$(grep -c -E '^[[:space:]]*Switch[[:space:]]' "$net" || true)
	nca=$(grep -c -E '^[[:space:]]*(Hca|Ca|Rt)[[:space:]]' "$net" || true)
	nports=$(grep -c -E '^[[:space:]]*\[' "$net" || true)
	local N=$(( (nsw + nca) * 2 + 2048 )) S=$(( nsw * 2 + 256 )) P=$(( nports * 2 + nsw * 40 + 16384 ))
	local sock="ibfab$$-$RANDOM-$(basename "$dir")"
	echo "$sock" > "$dir/sockname"
	local input=/dev/null nflag=-n
	if [ "${IBFAB_SIM_CONSOLE:-0}" = 1 ]; then
		rm -f "$dir/console"
		mkfifo "$dir/console" || die "cannot create the console FIFO in '$dir'"
		# the holder opens the FIFO read-write (never blocks) and keeps it open
		( exec sleep 2147483647 <>"$dir/console" >/dev/null 2>&1 ) &
		echo $! >"$dir/holder.pid"
		input=$dir/console nflag=
	fi
	( cd "$dir" && IBSIM_SOCKNAME=$sock exec ibsim $nflag -N "$N" -S "$S" -P "$P" -L 49152 -s "$net" \
		<"$input" >"$dir/ibsim.log" 2>&1 ) &
	local pid=$!
	echo "$pid" > "$dir/ibsim.pid"
	# wait until ibsim has parsed the net file and listens
	local i
	for i in $(seq 1 600); do
		if ! kill -0 "$pid" 2>/dev/null; then
			cat "$dir/ibsim.log" >&2
			die "ibsim exited while starting (see $dir/ibsim.log)"
		fi
		# one SMP round trip proves the simulator has loaded the fabric and answers
		if IBSIM_SOCKNAME=$sock timeout 10 ibsim-run smpquery -D nodeinfo 0 >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.3
	done
	sim_stop "$dir"
	die "ibsim did not come up (see $dir/ibsim.log)"
}

sim_stop() {
	local dir=$1 pid
	[ -f "$dir/ibsim.pid" ] || return 0
	pid=$(cat "$dir/ibsim.pid")
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null
		local i
		for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$dir/ibsim.pid"
	# the FIFO's holder goes after ibsim (ibsim would spin at end of file)
	if [ -f "$dir/holder.pid" ]; then
		kill "$(cat "$dir/holder.pid")" 2>/dev/null
		rm -f "$dir/holder.pid" "$dir/console"
	fi
}

# console DIR LINE..: the lines go to ibsim's console in one write, so ibsim
# runs them back to back (an SM sweeping meanwhile sees all of them or none:
# one line at a time, a sweep could fall between two, and a repair would
# then reach the SM in two steps); ibsim prints a prompt ("sim> ") after
# each command, so wait for one more per line
sim_console() {
	local dir=$1; shift
	[ -p "$dir/console" ] || die "no console FIFO in '$dir' (start with IBFAB_SIM_CONSOLE=1)"
	local n0 i n=$#
	n0=$(grep -o 'sim> ' "$dir/ibsim.log" | wc -l)
	printf '%s\n' "$@" >"$dir/console"
	for i in $(seq 1 $((100 + 10 * n))); do
		[ "$(grep -o 'sim> ' "$dir/ibsim.log" | wc -l)" -ge $((n0 + n)) ] && return 0
		sleep 0.1
	done
	die "ibsim did not execute all of: $* (see $dir/ibsim.log)"
}

sim_run() {
	local dir=$1; shift
	[ -f "$dir/sockname" ] || die "no ibsim state in '$dir' (run start first)"
	IBSIM_SOCKNAME=$(cat "$dir/sockname") IBFAB_SIM_DIR=$dir exec ibsim-run "$@"
}

cmd=${1:-}
case "$cmd" in
start) [ $# -eq 3 ] || die "usage: start NETFILE DIR"; sim_start "$2" "$3" ;;
stop) [ $# -eq 2 ] || die "usage: stop DIR"; sim_stop "$2" ;;
console) [ $# -ge 3 ] || die "usage: console DIR LINE.."; d=$2; shift 2; sim_console "$d" "$@" ;;
run) [ $# -ge 3 ] || die "usage: run DIR CMD [ARGS..]"; d=$2; shift 2; sim_run "$d" "$@" ;;
with)
	[ $# -ge 5 ] && [ "$4" = "--" ] || die "usage: with NETFILE DIR -- CMD [ARGS..]"
	net=$2; dir=$3; shift 4
	sim_start "$net" "$dir"
	dir=$(cd "$dir" && pwd)
	trap 'sim_stop "$dir"' EXIT INT TERM
	IBSIM_SOCKNAME=$(cat "$dir/sockname") IBFAB_SIM_DIR=$dir "$@"
	rc=$?
	sim_stop "$dir"
	trap - EXIT INT TERM
	exit $rc
	;;
-h|--help|"")
	awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'
	[ -n "$cmd" ] && exit 0 || exit 2 ;;
*) die "unknown command '$cmd'" ;;
esac
