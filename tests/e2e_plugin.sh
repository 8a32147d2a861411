#!/usr/bin/env bash
# End to end: the uninstalled plugin (libibfab.so) inside a stock OpenSM
# 3.3.23 on an ibsim fabric.
#  - a 4-switch ring (2 hosts per switch, two parallel cables between sw1
#    and sw2, one dual-port HCA cabled to two switches), LMC 2: the layered engine configures every switch; the
#    tables read back from the switches (dump_lfts) route every LID on every
#    switch, and `ibfab route check` finds no loop or unreachable pair;
#  - the same with the minimal engine;
#  - failures fall back to minhop with a clear error and no crash: a bad
#    ibfab.conf, a deadlock scheme without enough VLs, a missing $IBFAB_CONF file,
#    and a disconnected switch graph.
# Skips (TAP "1..0 # SKIP") when opensm/ibsim/infiniband-diags or the plugin
# are missing.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin dump_lfts
mk_workdir

# ------------------------------------------------------------------ inputs

cat >"$WORK/ring4.net" <<'EOF'
# 4 switches in a ring (sw1-sw2 doubled), 2 hosts each, a dual-port HCA on sw1 and sw3
Switch 8 "sw1"
[1] "sw2"[2]
[2] "sw4"[1]
[3] "h1a"[1]
[4] "h1b"[1]
[5] "dual"[1]
[6] "sw2"[6]

Switch 8 "sw2"
[1] "sw3"[2]
[2] "sw1"[1]
[3] "h2a"[1]
[4] "h2b"[1]
[6] "sw1"[6]

Switch 8 "sw3"
[1] "sw4"[2]
[2] "sw2"[1]
[3] "h3a"[1]
[4] "h3b"[1]
[5] "dual"[2]

Switch 8 "sw4"
[1] "sw1"[2]
[2] "sw3"[1]
[3] "h4a"[1]
[4] "h4b"[1]

Hca 1 "h1a"
[1] "sw1"[3]

Hca 1 "h1b"
[1] "sw1"[4]

Hca 1 "h2a"
[1] "sw2"[3]

Hca 1 "h2b"
[1] "sw2"[4]

Hca 1 "h3a"
[1] "sw3"[3]

Hca 1 "h3b"
[1] "sw3"[4]

Hca 1 "h4a"
[1] "sw4"[3]

Hca 1 "h4b"
[1] "sw4"[4]

Hca 2 "dual"
[1] "sw1"[5]
[2] "sw3"[5]
EOF
# 4 switch LIDs + 10 CA ports x 4 LIDs (LMC 2)
NSW=4
NLIDS=44

# opensm.conf: OpenSM's own defaults (opensm -c) with our keys; the dump
# directory and the log come from OSM_TMP_DIR and -f (see opensm_once)
# mkconf ENGINE OUT
mkconf() { osm_conf "$WORK/opensm.default.conf" "$1" 2 "$2"; }
opensm -c "$WORK/opensm.default.conf" >/dev/null 2>&1 </dev/null
check "opensm -c writes a default opensm.conf" grep -q "^event_plugin_name" "$WORK/opensm.default.conf"
mkconf layered "$WORK/opensm-layered.conf"
# an empty ibfab.conf, so an /etc/opensm/ibfab.conf on this host is not read
echo '# defaults' >"$WORK/empty.conf"
mkconf minimal "$WORK/opensm-minimal.conf"

# ------------------------------------------------------------------ the library

if command -v nm >/dev/null 2>&1; then
	syms=$(nm -D --defined-only "$PLUGIN_DIR/libibfab.so" | awk '$2 ~ /^[A-TV-Z]$/ {print $3}' | sort | tr '\n' ' ')
	check "libibfab.so exports only osm_event_plugin (got: $syms)" test "$syms" = "osm_event_plugin "
fi
osm_ver=$(opensm --version 2>/dev/null </dev/null | grep -m1 '^OpenSM ')
check "opensm reports a version ('$osm_ver')" test -n "$osm_ver"
check "the plugin carries the same version string" grep -qaF "$osm_ver" "$PLUGIN_DIR/libibfab.so"

# ------------------------------------------------------------------ runs

# run NAME CONF [VAR=VALUE...]: one sweep in $WORK/NAME, then read the tables
# back from the switches and discover the fabric
run() {
	local name=$1 conf=$2; shift 2
	mkdir -p "$WORK/$name"
	env "$@" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "${NET:-$WORK/ring4.net}" "$WORK/$name/sim" -- bash -c '
		. "$0"
		d=$IBFAB_SIM_DIR
		opensm_once "$d" -F "$1" || { echo "opensm failed ($?)"; tail -20 "$d/opensm.out"; exit 1; }
		ibsim-run dump_lfts >"$d/dump_lfts.raw" 2>"$d/dump_lfts.err" || exit 2
		ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || exit 3
	' "$top_srcdir/tests/lib.sh" "$conf" 2>&1 | diag
	local rc=${PIPESTATUS[0]}
	# dump_lfts appends a deprecation notice to its output
	grep -v 'replaced by dump_fts' "$WORK/$name/sim/dump_lfts.raw" >"$WORK/$name/dump_lfts.txt" 2>/dev/null
	return "$rc"
}

# every switch listed, each with every LID routed
all_routed() {
	local f=$1 n
	n=$(grep -c '^Unicast lids' "$f")
	[ "$n" -eq "$NSW" ] || { echo "# $n switches in $f, expected $NSW"; return 1; }
	n=$(grep -c "^$NLIDS valid lids dumped" "$f")
	[ "$n" -eq "$NSW" ] || { echo "# only $n switches route all $NLIDS LIDs:"; grep 'lids dumped' "$f" | diag; return 1; }
}

# ibfab route check over the tables read back (loops, unreachable pairs)
route_check() {
	local dir=$1
	if [ ! -x "$IBFAB" ] || ! "$IBFAB" route check --help >/dev/null 2>&1; then
		ok "# SKIP ibfab route check not available"
		return
	fi
	route_check_clean "$dir" --topology "$dir/sim/net.ibnd" --lfts "$dir/dump_lfts.txt"
	check "ibfab route check: every (source, LID) pair delivered, no loop" test $? -eq 0
}

log_has() { grep -qF -- "$2" "$WORK/$1/sim/opensm.log"; }
log_lacks() { ! grep -qF -- "$2" "$WORK/$1/sim/opensm.log"; }
show_log() { grep -E 'ibfab|tables configured|SUBNET UP|fall' "$WORK/$1/sim/opensm.log" | sed 's/^[A-Z][a-z][a-z] [ 0-9]* [0-9:]* [0-9]* \[[0-9A-F]*\] //' | diag; }

# 1. layered on the ring
run layered "$WORK/opensm-layered.conf" IBFAB_CONF="$WORK/empty.conf"
check "layered: ibsim + opensm (plugin loaded) + dump_lfts ran" test $? -eq 0
show_log layered
engines=$(sed -n 's/.*ibfab: registered routing engines: //p' "$WORK/layered/sim/opensm.log" | head -1)
check "layered: plugin registered every ibfab engine ($engines)" \
	eval '(for e in minimal layered lnmp; do echo " $engines " | grep -q " $e " || exit 1; done)'

check "layered: plugin logged its options" log_has layered "ibfab: options: min_path_len dist+1, max_path_len diameter+1"
check "layered: tables configured by ibfab ($NSW switches, $NLIDS LIDs, LMC 2)" \
	log_has layered "layered: tables configured by ibfab: $NSW switches, $NLIDS LIDs (14 end ports, LMC 2, 4 layers)"
check "layered: OpenSM used the layered engine" log_has layered "layered tables configured on all switches"
check "layered: no failure, no fallback" eval 'log_lacks layered "cannot route" && log_lacks layered "falls back" && log_lacks layered "minhop tables configured"'
check "layered: subnet up" log_has layered "SUBNET UP"
check "layered: non-minimal paths in layers >= 1" \
	eval "grep -q 'tables configured by ibfab.*non-minimal [1-9]' '$WORK/layered/sim/opensm.log'"
check "layered: dump_lfts shows every switch routing all $NLIDS LIDs" all_routed "$WORK/layered/dump_lfts.txt"
check "layered: OpenSM wrote opensm-lfts.dump" test -s "$WORK/layered/sim/opensm-lfts.dump"
route_check "$WORK/layered"
# the dual-port HCA: both ports have their own 4 LIDs
check "layered: both ports of the dual-port HCA routed" \
	test "$(grep -c "Channel Adapter portguid.*'dual'" "$WORK/layered/dump_lfts.txt")" -eq $((2 * NSW))

# 2. minimal
run minimal "$WORK/opensm-minimal.conf" IBFAB_CONF="$WORK/empty.conf"
check "minimal: opensm ran" test $? -eq 0
show_log minimal
check "minimal: tables configured by ibfab" log_has minimal "minimal: tables configured by ibfab: $NSW switches, $NLIDS LIDs"
check "minimal: OpenSM used the minimal engine" log_has minimal "minimal tables configured on all switches"
check "minimal: dump_lfts shows every LID routed" all_routed "$WORK/minimal/dump_lfts.txt"
route_check "$WORK/minimal"

# 3. bad ibfab.conf: clear error with FILE:LINE, fallback to minhop
printf '# broken\nseed 3\nbogus_key 1\n' >"$WORK/bad.conf"
run badconf "$WORK/opensm-layered.conf" IBFAB_CONF="$WORK/bad.conf"
check "bad conf: opensm ran and did not crash" test $? -eq 0
show_log badconf
check "bad conf: error names the file, line and key" \
	log_has badconf "ibfab layered: cannot route: configuration error: $WORK/bad.conf:3: unknown key 'bogus_key'"
check "bad conf: OpenSM fell back to minhop" log_has badconf "minhop tables configured on all switches"
check "bad conf: subnet up" log_has badconf "SUBNET UP"
check "bad conf: minhop routes every LID" all_routed "$WORK/badconf/dump_lfts.txt"

# 4. deadlock schemes (tests/e2e_deadlock.sh verifies them in depth): applied,
# and a budget too small for the routes (1 VL on a ring) is met by rerouting
# the LIDs that do not fit, said in the log, instead of failing
printf 'threads 2\ndeadlock dfsssp\n' >"$WORK/dl.conf"
run deadlock "$WORK/opensm-layered.conf" IBFAB_CONF="$WORK/dl.conf"
check "deadlock dfsssp: opensm ran" test $? -eq 0
show_log deadlock
check "deadlock dfsssp: applied by the plugin" log_has deadlock "ibfab layered: deadlock dfsssp: "
check "deadlock dfsssp: qos FALSE is warned about" log_has deadlock "warning: qos is FALSE"
check "deadlock dfsssp: the layered tables stay" log_has deadlock "layered: tables configured by ibfab"
printf 'deadlock dfsssp\nmax_vls 1\n' >"$WORK/dl1.conf"
run deadlock1 "$WORK/opensm-layered.conf" IBFAB_CONF="$WORK/dl1.conf"
check "deadlock dfsssp, 1 VL: opensm ran" test $? -eq 0
show_log deadlock1
check "deadlock dfsssp, 1 VL: the log says what was rerouted" log_has deadlock1 "within 1 VLs: "
check "deadlock dfsssp, 1 VL: layered tables configured by ibfab (no fallback)" \
	log_has deadlock1 "layered: tables configured by ibfab"
check "deadlock dfsssp, 1 VL: no fallback to minhop" log_lacks deadlock1 "minhop tables configured"
route_check "$WORK/deadlock1"

# 5. an explicitly given file that does not exist
run noconf "$WORK/opensm-layered.conf" IBFAB_CONF="$WORK/missing.conf"
check "missing \$IBFAB_CONF file: opensm ran" test $? -eq 0
check "missing \$IBFAB_CONF file: error and fallback" \
	eval "log_has noconf '$WORK/missing.conf: cannot open' && log_has noconf 'minhop tables configured on all switches'"

# 6. an engine that cannot route the fabric: dmodk on a triangle of
#    switches (an odd cycle: no fat tree has one) fails with a clear error,
#    OpenSM falls back to minhop and programs every LID, nothing half-set
printf '%s\n' 'Switch 8 "t1"' '[1] "t2"[2]' '[2] "t3"[1]' '[3] "ta"[1]' '' \
	'Switch 8 "t2"' '[1] "t3"[2]' '[2] "t1"[1]' '[3] "tb"[1]' '' \
	'Switch 8 "t3"' '[1] "t1"[2]' '[2] "t2"[1]' '[3] "tc"[1]' '' \
	'Hca 1 "ta"' '[1] "t1"[3]' '' 'Hca 1 "tb"' '[1] "t2"[3]' '' 'Hca 1 "tc"' '[1] "t3"[3]' \
	>"$WORK/tri.net"
mkconf dmodk "$WORK/opensm-dmodk.conf"
NET="$WORK/tri.net" run notree "$WORK/opensm-dmodk.conf" IBFAB_CONF="$WORK/empty.conf"
check "dmodk on a triangle: opensm ran and did not crash" test $? -eq 0
show_log notree
check "dmodk on a triangle: clear error from the engine" \
	eval "grep -q 'ibfab dmodk: cannot route: .*not a fat tree' '$WORK/notree/sim/opensm.log'"
check "dmodk on a triangle: OpenSM fell back to minhop" log_has notree "minhop tables configured on all switches"
# 3 switch LIDs + 3 adapters x 4 LIDs (LMC 2)
NSW=3 NLIDS=15 all_routed "$WORK/notree/dump_lfts.txt"
check "dmodk on a triangle: no partial ibfab tables (minhop routes every LID)" test $? -eq 0

# 7. Slim Fly q=5 (50 switches, 200 hosts), when the generator is there
if [ -x "$IBFAB" ] && "$IBFAB" topo gen slimfly --q 5 --hosts 4 --format ibsim \
	-o "$WORK/sf5.net" >/dev/null 2>&1; then
	mkdir -p "$WORK/sf5"
	env IBFAB_CONF="$WORK/empty.conf" LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$HARNESS" with "$WORK/sf5.net" "$WORK/sf5/sim" -- bash -c '
		. "$0"
		d=$IBFAB_SIM_DIR
		opensm_once "$d" -F "$1" || { echo "opensm failed ($?)"; tail -20 "$d/opensm.out"; exit 1; }
		ibsim-run dump_lfts >"$d/dump_lfts.raw" 2>"$d/dump_lfts.err" || exit 2
		ibsim-run ibnetdiscover >"$d/net.ibnd" 2>"$d/ibnd.err" || exit 3
	' "$top_srcdir/tests/lib.sh" "$WORK/opensm-layered.conf" 2>&1 | diag
	check "slimfly q=5: opensm ran" test "${PIPESTATUS[0]}" -eq 0
	grep -v 'replaced by dump_fts' "$WORK/sf5/sim/dump_lfts.raw" >"$WORK/sf5/dump_lfts.txt" 2>/dev/null
	show_log sf5
	check "slimfly q=5: tables configured by ibfab (50 switches, 850 LIDs)" \
		log_has sf5 "layered: tables configured by ibfab: 50 switches, 850 LIDs (250 end ports, LMC 2, 4 layers)"
	check "slimfly q=5: OpenSM used the layered engine" log_has sf5 "layered tables configured on all switches"
	NSW=50 NLIDS=850 all_routed "$WORK/sf5/dump_lfts.txt"
	check "slimfly q=5: dump_lfts shows all 50 switches routing all 850 LIDs" test $? -eq 0
	route_check "$WORK/sf5"
else
	ok "# SKIP ibfab topo gen slimfly not available"
fi

done_testing
