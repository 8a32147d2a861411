#!/usr/bin/env bash
# The rail health service when its registry cannot be written: a stock
# OpenSM (the plugin, hratio, PerfMgr every second) on a rail-optimized 4 x 2
# fabric in ibsim, rail_registry in a directory that does not exist yet.
#  - several PerfMgr sweeps fail to write: the error is logged once, not
#    every sweep, and OpenSM keeps running;
#  - the directory is created: the next write works, the log says the
#    registry is written again, and sweeps are written from then on.
# srv001's two NICs are swapped between the rails: the log warns about the
# NICs cabled off their rail, naming the first and its switch port, and
# again only when that set changes (the health service is rebuilt after
# every fabric change): not after a spine cable is lost, when one of the
# NICs is lost (1 left), again when the one left moves to another wrong
# port (same count, another switch port), once when it is recabled to its
# rail (none left), not when the other comes back to its own rail.
. "$(dirname "$0")/lib.sh"
need_sim
need_plugin
mk_workdir
osm_sim_workdir
"$IBFAB" topo gen rail --servers 4 --gpus 2 --spines 2 --format ibsim -o "$WORK/r0.net" >/dev/null 2>&1
# srv001 mlx5_0 on rail01-l00 port 2, mlx5_1 on rail00-l00 port 2 (both
# ends of both cables)
sed -e 's/^\[2\]\t"srv001 mlx5_\([01]\)"/[2]\t"srv001 mlx5_X\1"/' \
	-e 's/"srv001 mlx5_X0"/"srv001 mlx5_1"/; s/"srv001 mlx5_X1"/"srv001 mlx5_0"/' \
	-e 's/^\(\[1\]\t"rail0\)\([01]\)\(-l00"\[2\]\)/\1X\2\3/' \
	-e 's/"rail0X0-l00"/"rail01-l00"/; s/"rail0X1-l00"/"rail00-l00"/' "$WORK/r0.net" >"$WORK/r.net"
"$IBFAB" rail info "$WORK/r.net" >"$WORK/r.info" 2>&1
diag <"$WORK/r.info"
check "srv001's NICs swapped: rail info names both with their switch ports" \
	sh -c "grep -q '^  gpu srv001 mlx5_1 port 1: .*cabled to rail00-l00 port 2 (rail 0), its device index is rail 1.s$' '$WORK/r.info' &&
	       grep -q '^  gpu srv001 mlx5_0 port 1: .*cabled to rail01-l00 port 2 (rail 1), its device index is rail 0.s$' '$WORK/r.info'"
REG=$WORK/later/rails.json
printf 'rail_registry %s\n' "$REG" >"$WORK/ibfab.conf"
osm_conf "$WORK/opensm.default.conf" hratio 0 "$WORK/opensm.conf" \
	-e 's|^perfmgr .*|perfmgr TRUE|' -e 's|^perfmgr_sweep_time_s .*|perfmgr_sweep_time_s 1|'
SIM=$WORK/sim
IBFAB_SIM_CONSOLE=1 "$HARNESS" start "$WORK/r.net" "$SIM" 2>&1 | diag
osm_daemon "$WORK/opensm.conf" "$WORK/ibfab.conf"
osm_wait_sweep 0
check "OpenSM up" test $? -eq 0
check "the log warns about the 2 NICs cabled off their rail, the first by name and port" \
	grep -q "ibfab health: warning: 2 GPU NIC(s) cabled off their rail (ibfab rail info lists them), the first: srv001 mlx5_1 port 1 reaches another rail: cabled to rail00-l00 port 2 (rail 0), its device index is rail 1's" "$SIM/opensm.log"

# PerfMgr sweeps once a second: 6 s give several failed writes while the
# registry's directory is missing
sleep 6
kill -0 "$OSM_PID" 2>/dev/null
check "OpenSM still runs after failed registry writes" test $? -eq 0
n=$(grep -c "ibfab health: cannot write the registry: .*later/rails.json" "$SIM/opensm.log")
grep "ibfab health: cannot write" "$SIM/opensm.log" | cut -c1-200 | diag
check "the write error is logged once, not every PerfMgr sweep ($n lines)" test "$n" -eq 1
check "... naming the cause" grep -q "cannot write the registry: .*No such file or directory" "$SIM/opensm.log"
check "no sweep was written meanwhile" test -z "$(health_sweeps)"

mkdir "$WORK/later"
wait_health_sweeps 2
check "the directory made: sweeps are written again" test $? -eq 0
check "the log says the registry is written again, once" \
	test "$(grep -c "ibfab health: the registry .*later/rails.json is written again (after: " "$SIM/opensm.log")" -eq 1
check "the registry file exists" test -s "$REG"
check "no more write errors" test "$(grep -c "cannot write the registry" "$SIM/opensm.log")" -eq 1

# misfit STEP: the health service was rebuilt after the change (its
# structure line), and what it logged of NICs off their rail to $WORK/STEP.mis
misfit() {
	tail -n +$((OSM_FROM + 1)) "$SIM/opensm.log" >"$WORK/$1.log"
	grep "ibfab health: warning: .* cabled off their rail\|ibfab health: no GPU NIC is cabled" \
		"$WORK/$1.log" | sed 's/^.*ibfab health: /ibfab health: /' >"$WORK/$1.mis"
	diag <"$WORK/$1.mis"
	check "$1: the health service was rebuilt" grep -q "ibfab health: [0-9]* rails, " "$WORK/$1.log"
}
osm_console_sweep spine-cable 'Unlink "rail00-l00"[6]'
misfit spine-cable
check "spine-cable: the same NICs off their rail: nothing logged of them" test ! -s "$WORK/spine-cable.mis"
osm_console_sweep nic-lost 'Unlink "rail00-l00"[2]'
misfit nic-lost
check "nic-lost: one NIC left off its rail: the warning, once, with the new count and first" \
	test "$(cat "$WORK/nic-lost.mis")" = "ibfab health: warning: 1 GPU NIC(s) cabled off their rail (ibfab rail info lists them; the set changed, 2 before), the first: srv001 mlx5_0 port 1 reaches another rail: cabled to rail01-l00 port 2 (rail 1), its device index is rail 0's"
osm_console_sweep nic-moved 'Unlink "rail01-l00"[6]' 'Unlink "rail01-l00"[2]' 'Link "rail01-l00"[6] "srv001 mlx5_0"[1]'
misfit nic-moved
check "nic-moved: the NIC left moved to another wrong port: the warning again, naming the new port" \
	test "$(cat "$WORK/nic-moved.mis")" = "ibfab health: warning: 1 GPU NIC(s) cabled off their rail (ibfab rail info lists them; the set changed, 1 before), the first: srv001 mlx5_0 port 1 reaches another rail: cabled to rail01-l00 port 6 (rail 1), its device index is rail 0's"
osm_console_sweep nic-fixed 'Unlink "rail01-l00"[6]' 'Link "rail00-l00"[2] "srv001 mlx5_0"[1]'
misfit nic-fixed
check "nic-fixed: none left off its rail: said once" \
	test "$(cat "$WORK/nic-fixed.mis")" = "ibfab health: no GPU NIC is cabled off its rail any more (before: 1)"
osm_console_sweep all-back 'Link "rail01-l00"[2] "srv001 mlx5_1"[1]' 'ReLink "rail00-l00"[6]' \
	'Link "rail01-l00"[6] "spine01"[2]'
misfit all-back
check "all-back: still none off its rail: nothing logged of them" test ! -s "$WORK/all-back.mis"
osm_sim_stop
done_testing
