#!/usr/bin/env bash
# Packet-simulator speed of two ibfab binaries side by side: runs
# bench/sim_packet.sh for each, alternating, N rounds (default 5), and prints
# the best run of each binary per fabric size (wall times on a shared machine
# vary a lot from run to run; the best of several alternating runs is the
# comparable figure).  Prints a markdown table; never passes or fails.
#
#   N=5 bench/sim_packet_ab.sh OLD_IBFAB NEW_IBFAB [MEASURE (default 50us)] [Q...]
set -u
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 OLD_IBFAB NEW_IBFAB [MEASURE] [Q...]" >&2; exit 2; }
old=$1 new=$2
shift 2
measure=${1:-50us}
shift || true
qs=${*:-5 7 9 11 13}
rounds=${N:-5}
work=$(mktemp -d /tmp/ibfab-simab.XXXXXX)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$rounds"); do
	for b in old new; do
		bin=$old
		[ $b = new ] && bin=$new
		# shellcheck disable=SC2086
		IBFAB=$bin bench/sim_packet.sh "$measure" $qs | tail -n +3 | sed "s/^/$b /" >>"$work/runs"
	done
done
python3 - "$work/runs" <<'PY'
import sys
best = {}
for line in open(sys.argv[1]):
    who, rest = line.split(" ", 1)
    cells = [c.strip() for c in rest.strip().strip("|").split("|")]
    q, hosts, hps, nse = int(cells[0]), cells[1], float(cells[6]), cells[7]
    if (who, q) not in best or hps > best[(who, q)][0]:
        best[(who, q)] = (hps, hosts, nse)
print("| Slim Fly q | hosts | hops/s old | hops/s new | ns/event old / new |")
print("|---|---|---|---|---|")
for q in sorted({q for _, q in best}):
    o, n = best.get(("old", q)), best.get(("new", q))
    if o and n:
        print(f"| {q} | {o[1]} | {o[0]:.3g} | {n[0]:.3g} | {o[2]} / {n[2]} |")
PY
