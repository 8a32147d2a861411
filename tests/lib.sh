# Shell test helpers (sourced by tests/e2e_*.sh): TAP output, temp dirs,
# OpenSM under ibsim.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${IBFAB:=$top_builddir/ibfab}"
: "${FIXTURES:=$top_srcdir/tests/fixtures}" # make check sets it; a script run by hand too
HARNESS="$top_srcdir/contrib/ibsim-harness.sh"
tap_n=0
tap_fail=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_fail=$((tap_fail + 1)); echo "not ok $tap_n - $*"; }
# check "description" command...: ok when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
diag() { sed 's/^/# /'; }
done_testing() { echo "1..$tap_n"; [ "$tap_fail" -eq 0 ]; exit $?; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

need_sim() {
	for t in ibsim ibsim-run opensm ibnetdiscover; do
		command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 || skip_all "$t not installed"
	done
	PATH=$PATH:/usr/sbin:/sbin
}

# need_plugin [TOOL..]: the uninstalled plugin (sets PLUGIN_DIR) and the
# infiniband-diags tools named, else skip the test
need_plugin() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip_all "$t not installed (infiniband-diags)"
	done
	PLUGIN_DIR="$top_builddir/.libs"
	[ -f "$PLUGIN_DIR/libibfab.so" ] || skip_all "plugin not built ($PLUGIN_DIR/libibfab.so)"
}

# a private work directory removed on exit (kept when IBFAB_KEEP is set)
mk_workdir() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibfab-test.XXXXXX")
	[ -n "${IBFAB_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
}

# opensm_once DIR [opensm args...]: one sweep (opensm -o) with logs and dump
# files in DIR; run inside `ibsim-harness.sh with` (IBSIM_SOCKNAME set).
opensm_once() {
	local dir=$1; shift
	OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir timeout 300 ibsim-run opensm -o -f "$dir/opensm.log" \
		"$@" >"$dir/opensm.out" 2>&1 </dev/null
}

# osm_conf DEFAULT ENGINE LMC OUT [SED-ARGS...]: an opensm.conf made from
# OpenSM's own defaults (written by `opensm -c DEFAULT`) with the ibfab plugin,
# ENGINE and LMC, routing dumps in the log flags, forced log flushes, no
# periodic sweeps and no unicast cache; the dump directory and the log file
# come from OSM_TMP_DIR and -f (see opensm_once).  SED-ARGS (e.g.
# -e 's|^qos .*|qos TRUE|') change further keys.
osm_conf() {
	local def=$1 engine=$2 lmc=$3 out=$4
	shift 4
	sed -e "s|^routing_engine .*|routing_engine $engine|" \
		-e "s|^lmc .*|lmc $lmc|" \
		-e 's|^log_flags .*|log_flags 0x43|' \
		-e 's|^force_log_flush .*|force_log_flush TRUE|' \
		-e 's|^sweep_interval .*|sweep_interval 0|' \
		-e 's|^event_plugin_name .*|event_plugin_name ibfab|' \
		-e 's|^use_ucast_cache .*|use_ucast_cache FALSE|' \
		-e '/^dump_files_dir /d' -e '/^log_file /d' \
		"$@" "$def" >"$out"
}

# discover NETFILE NAME: run ibnetdiscover on NETFILE under ibsim and leave
# the output in $WORK/NAME.ibnd (the simulator's files in $WORK/sim-NAME).
discover() {
	"$HARNESS" with "$1" "$WORK/sim-$2" -- bash -c \
		'ibsim-run ibnetdiscover >"$IBFAB_SIM_DIR/disc.ibnd" 2>"$IBFAB_SIM_DIR/disc.err"' 2>&1 | diag
	local rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] && cp "$WORK/sim-$2/disc.ibnd" "$WORK/$2.ibnd"
}

# need_sa_pathsl: build tests/sa_pathsl.c (SA PathRecord SL per LID pair)
# and tests/smp_sl2vl.c (SL2VL tables per switch port), both batched, into
# $WORK and export SA_PATHSL and SMP_SL2VL, or skip the whole script
need_sa_pathsl() {
	local t
	for t in sa_pathsl smp_sl2vl; do
		if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -o "$WORK/$t" "$top_srcdir/tests/$t.c" \
			-libmad -libumad >"$WORK/cc.log" 2>&1; then
			diag <"$WORK/cc.log"
			skip_all "cannot build the MAD helper $t (libibmad-dev / libibumad-dev missing)"
		fi
	done
	export SA_PATHSL="$WORK/sa_pathsl" SMP_SL2VL="$WORK/smp_sl2vl"
}

# read_lfts DIR: with IBSIM_SOCKNAME set, the fabric as ibnetdiscover sees
# it (DIR/net.ibnd) and the switches' forwarding tables (DIR/lfts.txt,
# dump_lfts); 2 or 3 when the tool failed.
read_lfts() {
	local d=$1
	mkdir -p "$d"
	ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || return 2
	ibsim-run dump_lfts 2>"$d/lfts.err" | grep -v "replaced by dump_fts" >"$d/lfts.txt" || return 3
}

# route_check_clean DIR ARGS...: `ibfab route check ARGS` into
# DIR/check.txt, its exit status and summary lines shown; true when it
# exits 0 (every pair with a path delivered) and reports no loop.
route_check_clean() {
	local d=$1 rc
	shift
	"$IBFAB" route check "$@" >"$d/check.txt" 2>&1
	rc=$?
	{ echo "route check: exit $rc"
	  grep -E '^(switches|pairs|loops|unreachable|misdelivered|longest)' "$d/check.txt"; } | diag
	[ "$rc" -eq 0 ] && grep -q '^loops: *0$' "$d/check.txt"
}

# read_tables DIR: with IBSIM_SOCKNAME set and an SM running, read back what
# the fabric holds into DIR: net.ibnd (ibnetdiscover), lfts.txt (dump_lfts),
# sl2vl.txt (the SL2VL tables of every switch-to-switch out port, as
# smpquery sl2vl prints them), pairs (every
# ordered pair of LIDs of distinct ports) and sl.txt (their SLs from the SA;
# needs SA_PATHSL).  Returns non-zero when a tool failed.
read_tables_once() {
	local d=$1 lid port
	read_lfts "$d" || return $?
	# every LID (base, lmc) of every port, and each switch-to-switch out port
	awk '{ for (i = 1; i < NF - 2; i++) if ($i == "lid" && $(i+2) == "lmc") { print $(i+1), $(i+3); break } }' \
		"$d/net.ibnd" >"$d/ports"
	awk '/^Switch/ { for (i = 1; i < NF; i++) if ($i == "lid") { lid = $(i+1); break } }
	     /^\[/ && lid != "" && $2 ~ /^"S-/ { p = $1; gsub(/[^0-9]/, "", p); print lid, p }
	     /^(Ca|Rt)/ { lid = "" }' "$d/net.ibnd" >"$d/swports"
	ibsim-run "$SMP_SL2VL" <"$d/swports" >"$d/sl2vl.txt" 2>"$d/smp.err" || return 4
	awk '{ n = 2 ^ $2; for (k = 0; k < n; k++) { lid[++m] = $1 + k; port[m] = NR } }
	     END { for (a = 1; a <= m; a++) for (b = 1; b <= m; b++) if (port[a] != port[b]) print lid[a], lid[b] }' \
		"$d/ports" >"$d/pairs"
	ibsim-run "$SA_PATHSL" <"$d/pairs" >"$d/sl.txt" 2>"$d/sa.err" || return 5
}
# read_tables DIR: read_tables_once, tried up to three times a few seconds
# apart (a MAD can time out while a loaded machine runs ibsim slowly; the
# fabric does not change in between)
read_tables() {
	local try rc
	for try in 1 2 3; do
		read_tables_once "$1" && return 0
		rc=$?
		echo "# read_tables: attempt $try failed (step $rc); retrying" >&2
		sleep 3
	done
	return "$rc"
}

# ---- etcd (the rail registry's etcd backend)
# start_etcd [ETCD-ARGS...]: a private etcd on free localhost ports with its
# data in $WORK/etcd.N; sets ETCD_PID, ETCD_EP (HOST:PORT) and ETCD_LOG, waits
# until /health answers.  Skips the script when etcd is not installed; fails
# (returns 1) when it does not come up.  stop_etcd stops it by PID.
ETCD_N=0
# The OpenSM daemon of the live tests: osm_daemon OPENSM_CONF IBFAB_CONF
# [OUT [RUNNER...]] starts stock OpenSM with the plugin under the ibsim of
# $SIM (its log $SIM/opensm.log, its output in OUT, default $SIM/opensm.out;
# RUNNER: a command to run it under, e.g. valgrind) and sets OSM_PID;
# osm_stop stops it by PID (nothing when none runs); osm_sim_stop stops it
# and that ibsim.
osm_daemon() {
	local conf=$1 ibconf=$2 out=${3:-$SIM/opensm.out}
	shift $(($# < 3 ? $# : 3))
	(
		export IBSIM_SOCKNAME=$(cat "$SIM/sockname") IBFAB_CONF="$ibconf" \
			LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			OSM_TMP_DIR="$SIM" OSM_CACHE_DIR="$SIM"
		exec ibsim-run "$@" opensm -F "$conf" -f "$SIM/opensm.log" </dev/null >"$out" 2>&1
	) &
	OSM_PID=$!
}
osm_stop() {
	[ -n "${OSM_PID:-}" ] || return 0
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
	OSM_PID=
}
osm_sim_stop() {
	osm_stop
	[ -n "${SIM:-}" ] && "$HARNESS" stop "$SIM"
	SIM=
}

# osm_sim_workdir: for a script that starts ibsim ($SIM) and OpenSM
# ($OSM_PID) in $WORK (mk_workdir) itself: on exit both are stopped by PID
# and $WORK goes (unless IBFAB_KEEP); $WORK/opensm.default.conf is OpenSM's
# own default configuration, to edit with osm_conf.
osm_sim_workdir() {
	SIM=
	OSM_PID=
	trap 'osm_sim_stop; [ -n "${IBFAB_KEEP:-}" ] || rm -rf "$WORK"' EXIT
	opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
}

# osm_up_read_tables CONF: inside `ibsim-harness.sh with`, OpenSM with CONF
# as a daemon until SUBNET UP (at most 3 min), the tables read back
# (read_tables), OpenSM still alive, then stopped by its PID; non-zero when
# any of it fails.
osm_up_read_tables() {
	local conf=$1 d=$IBFAB_SIM_DIR osm rc=0 i
	OSM_TMP_DIR=$d OSM_CACHE_DIR=$d ibsim-run opensm -F "$conf" -f "$d/opensm.log" \
		</dev/null >"$d/opensm.out" 2>&1 &
	osm=$!
	for i in $(seq 1 900); do
		grep -q "SUBNET UP" "$d/opensm.log" 2>/dev/null && break
		kill -0 $osm 2>/dev/null || break
		sleep 0.2
	done
	grep -q "SUBNET UP" "$d/opensm.log" 2>/dev/null || { echo "no SUBNET UP"; rc=1; }
	[ $rc -eq 0 ] && { read_tables "$d"; rc=$?; }
	kill -0 $osm 2>/dev/null || { echo "opensm is gone"; rc=1; }
	kill $osm 2>/dev/null
	wait $osm 2>/dev/null
	return $rc
}

# OpenSM's heavy sweeps so far ("SUBNET UP" lines in $SIM/opensm.log)
osm_sweeps() { grep -c "SUBNET UP" "$SIM/opensm.log" 2>/dev/null; }
# osm_wait_sweep N0 [SECONDS]: until OpenSM ($OSM_PID) has finished a heavy
# sweep after the N0-th and then stays quiet for 3 s (a change can take two
# sweeps to settle); 1 when OpenSM is gone or after SECONDS (default 120)
osm_wait_sweep() {
	local n0=$1 i n last= quiet=0
	for i in $(seq 1 $((${2:-120} * 5))); do
		kill -0 "$OSM_PID" 2>/dev/null || return 1
		n=$(osm_sweeps)
		if [ "${n:-0}" -gt "$n0" ]; then
			if [ "$n" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; fi
			[ $quiet -ge 15 ] && return 0
			last=$n
		fi
		sleep 0.2
	done
	return 1
}

# inter-switch cables of an ibsim net file, each once: A PA B PB, separated
# by tabs (switch names from real dumps hold spaces:
# "QLogic 12800-180 GUID=0x00066a00e8001310 L112")
switch_cables() {
	awk 'NR == FNR { if (/^Switch/) { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); isw[s] = 1 } next }
	     /^Switch/ { sw = $0; sub(/^[^"]*"/, "", sw); sub(/".*/, "", sw); insw = 1; next }
	     /^(Hca|Ca|Rt)/ { insw = 0; next }
	     insw && /^\[/ {
		p = $1; gsub(/[^0-9]/, "", p)
		if (!match($0, /"[^"]*"\[[0-9]+\]/)) next
		peer = substr($0, RSTART + 1, RLENGTH - 1); pp = peer
		sub(/".*/, "", peer); sub(/.*\[/, "", pp); sub(/\].*/, "", pp)
		if ((peer in isw) && (sw < peer || (sw == peer && p < pp))) print sw "\t" p "\t" peer "\t" pp
	     }' "$1" "$1"
}

# osm_sm_switch NET: SM_NODE, the node ibsim ($SIM) attaches the SM to (the
# first node of the net file), and SM_SWITCH, that node if it is a switch,
# else the switch its first port is cabled to (a fault run never takes it).
# The node is found by its GUID: a net file converted from a real dump names
# nodes S-GUID/H-GUID when descriptions repeat, so the description need not
# be a name in the file; without GUID lines in the file, by its place.
osm_sm_switch() {
	local q guid
	q=$(IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run smpquery -D nodeinfo 0 2>/dev/null)
	guid=$(printf '%s\n' "$q" | sed -n 's/^Guid:\.*//p')
	SM_NODE=$(IBSIM_SOCKNAME=$(cat "$SIM/sockname") ibsim-run smpquery -D nodedesc 0 2>/dev/null |
		sed 's/^Node Description:\.*//')
	SM_SWITCH=$(awk -v h="$SM_NODE" -v g="$guid" '
		function hx(s) { sub(/\(.*/, "", s); s = tolower(s); sub(/^0x0*/, "", s); return s }
		BEGIN { g = hx(g) }
		/^(switchguid|caguid)=/ { v = $0; sub(/^[a-z]*=/, "", v); byg = (g != "" && hx(v) == g); next }
		/^(Switch|Hca|Ca)/ { n = $0; sub(/^[^"]*"/, "", n); sub(/".*/, "", n); cur = n
			mine = byg || (g == "" && n == h); byg = 0
			if (mine) { me = n; if (/^Switch/) { print n; exit } }
			next }
		me != "" && cur == me && /^\[/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print s; exit }' "$1")
	# no GUID lines (ibsim assigned the GUIDs): ibsim attaches the SM to the
	# first node of the file
	[ -n "$SM_SWITCH" ] || SM_SWITCH=$(awk '/^(Switch|Hca|Ca)/ { n = $0; sub(/^[^"]*"/, "", n); sub(/".*/, "", n)
			if (/^Switch/) print n; else me = n
			if (/^Switch/) exit
			next }
		me != "" && /^\[/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print s; exit }' "$1")
}

# osm_console_sweep LABEL CONSOLE-LINE..: the lines to the console of ibsim
# ($SIM, started with IBFAB_SIM_CONSOLE=1), then until OpenSM ($OSM_PID) has
# swept again, as a check; OSM_FROM: the number of lines $SIM/opensm.log had
# before, so the caller can read what the sweep logged.
osm_console_sweep() {
	local label=$1 n0
	shift
	n0=$(osm_sweeps)
	OSM_FROM=$(wc -l <"$SIM/opensm.log")
	printf '%s\n' "$@" | sed "s/^/$label: /" | diag
	"$HARNESS" console "$SIM" "$@"
	osm_wait_sweep "$n0"
	check "$label: OpenSM swept again and is running" test $? -eq 0
}

need_etcd() {
	command -v etcd >/dev/null 2>&1 || skip_all "etcd not installed (Debian: etcd-server)"
}
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
start_etcd() {
	need_etcd
	local try cport pport i
	for try in 1 2 3; do
		ETCD_N=$((ETCD_N + 1))
		cport=$(free_port) pport=$(free_port)
		[ "$cport" != "$pport" ] || continue
		ETCD_EP=127.0.0.1:$cport
		ETCD_LOG=$WORK/etcd.$ETCD_N.log
		etcd --name ibfab-test --data-dir "$WORK/etcd.$ETCD_N" \
			--listen-client-urls "http://$ETCD_EP" --advertise-client-urls "http://$ETCD_EP" \
			--listen-peer-urls "http://127.0.0.1:$pport" \
			--initial-advertise-peer-urls "http://127.0.0.1:$pport" \
			--initial-cluster "ibfab-test=http://127.0.0.1:$pport" "$@" \
			>"$ETCD_LOG" 2>&1 </dev/null &
		ETCD_PID=$!
		for i in $(seq 1 100); do
			kill -0 "$ETCD_PID" 2>/dev/null || break
			if python3 -c 'import sys, urllib.request; sys.exit(0 if b"true" in urllib.request.urlopen("http://" + sys.argv[1] + "/health", timeout=2).read() else 1)' "$ETCD_EP" 2>/dev/null; then
				return 0
			fi
			sleep 0.1
		done
		stop_etcd
	done
	echo "# etcd did not come up:" && tail -5 "$ETCD_LOG" | diag
	return 1
}
stop_etcd() {
	if [ -n "${ETCD_PID:-}" ]; then
		kill "$ETCD_PID" 2>/dev/null
		wait "$ETCD_PID" 2>/dev/null
		ETCD_PID=
	fi
}

# ---- the rail health service in a running OpenSM (SIM, OSM_PID set)
# health_sweeps: the number of the last PerfMgr sweep the plugin scored
health_sweeps() {
	grep -o 'ibfab health: PerfMgr sweep [0-9]*' "$SIM/opensm.log" 2>/dev/null | tail -1 | awk '{ print $NF }'
}
# wait_health_sweeps N: until sweep N is written (60 s at most; 1 when
# OpenSM is gone or it never comes)
wait_health_sweeps() {
	local i
	for i in $(seq 1 300); do
		kill -0 "$OSM_PID" 2>/dev/null || return 1
		[ "$(health_sweeps)" -ge "$1" ] 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# run_orders NAME ARGS... (e2e_record_order.sh, e2e_rail_order.sh): the
# fabric is written three times, $W/a.ibnd, b and c in different record
# orders (prefixes such as s@ name variants); ARGS with @ replaced by a, b
# and c; the three outputs
# (stdout and stderr) must be the same, the first is kept in $W/NAME; a
# note that names the fabric file has the file's letter put back to @, the
# run time of `route` is left out
run_orders() {
	local name=$1 k
	shift
	for k in a b c; do
		"$IBFAB" "${@//@/$k}" >"$W/$name.$k" 2>&1
		echo "exit $?" >>"$W/$name.$k"
		sed -i -e "s#\($W/[a-z]*\)$k\.ibnd#\1@.ibnd#g" \
			-e 's/^\(ibfab route: engine .*\), [0-9.]* s$/\1/' "$W/$name.$k"
		# SORT_TABLES=1: the caller's sort_tables FILE puts the tables in one order
		[ -z "${SORT_TABLES:-}" ] || sort_tables "$W/$name.$k"
	done
	if cmp -s "$W/$name.a" "$W/$name.b" && cmp -s "$W/$name.a" "$W/$name.c"; then
		ok "$name: the same output in three record orders"
	else
		not_ok "$name: the output follows the record order"
		{ diff "$W/$name.a" "$W/$name.b"; diff "$W/$name.a" "$W/$name.c"; } | head -12 | diag
	fi
	cp "$W/$name.a" "$W/$name"
}

# net_edit IN OUT OP...: edit an ibsim net file (node names in quotes).
# "del NODE PORT" drops NODE's port line, "add NODE PORT PEER PEERPORT
# [RATE]" adds one below NODE's header, at RATE or $NET_EDIT_RATE (default
# 4xEDR).  Both ends of a cable are edited by two ops.
net_edit() {
	local in=$1 out=$2
	shift 2
	printf '%s\n' "$@" | awk -v net="$in" -v rate="${NET_EDIT_RATE:-4xEDR}" '
	$1 == "del" { del[$2 SUBSEP $3] = 1 }
	$1 == "add" { add[$2] = add[$2] sprintf("[%s]\t\"%s\"[%s]\t\t# \"%s\" lid 0 %s\n", $3, $4, $5, $4, $6 == "" ? rate : $6) }
	END {
		while ((getline line < net) > 0) {
			if (line ~ /^(Switch|Ca|Hca)[ \t]/) {
				cur = line; sub(/^[^"]*"/, "", cur); sub(/".*$/, "", cur)
				print line; printf "%s", add[cur]; continue
			}
			if (match(line, /^\[[0-9]+\]/) && ((cur SUBSEP substr(line, 2, RLENGTH - 2)) in del))
				continue
			print line
		}
	}' >"$out"
}
