#!/usr/bin/env bash
# The RLFT/SAURON accelerator setup in the packet simulator's node model:
# 32 nodes on a 2-level fat tree of twelve 8-port switches (8 leaves of 4
# nodes, 4 spines, 4xNDR = 400 Gb/s links), D-mod-K, 8 accelerators per node
# at 512 Gb/s, 400 Gb/s NIC link; the C1..C5 mixes with 148 B (128 B
# payload) and 4 KiB intra-node packets over a load sweep, round-robin and
# age-based arbitration.  Prints a markdown table; never passes or fails.
#
#   IBFAB=build/ibfab bench/sim_rlft.sh [MIXES (default "C1 C2 C3 C4 C5")] [LOADS (default 0.1:1.0:0.1)]
set -u
cd "$(dirname "$0")/.."
IBFAB=${IBFAB:-$(pwd)/build/ibfab}
mixes=${1:-C1 C2 C3 C4 C5}
loads=${2:-0.1:1.0:0.1}
work=$(mktemp -d /tmp/ibfab-rlft.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
"$IBFAB" topo gen fattree --m 4,8 --w 1,4 --format ibsim -o "$work/ft.net" >/dev/null
sed 's/4xEDR/4xNDR/g' "$work/ft.net" >"$work/rlft.net"
echo "| mix | intra pkt | arb | load | accepted | intra Gb/s | inter Gb/s | lat mean | lat p99 | src-acc | src-net | nic-agg | fabric | nic-split | dst-net |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for mix in $mixes; do
	for pay in 128 4096; do
		for arb in rr age; do
			"$IBFAB" sim packet --topology "$work/rlft.net" --engine dmodk --accels 8 \
				--acc-gbps 512 --nic-gbps 400 --mix "$mix" --ipkt-payload "$pay" \
				--arb "$arb" --loads "$loads" --warmup 5us --measure 20us --seed 1 \
				--json -q >"$work/r.json" || continue
			python3 - "$mix" "$pay" "$arb" "$work/r.json" <<'PY'
import json, sys
mix, pay, arb, path = sys.argv[1:5]
for run in json.load(open(path))["runs"]:
    n = run["result"]["node"]
    # null: no measured packet of that kind arrived (C5 has no inter-node ones): "-"
    c = n["components_inter_ns"] or {}
    lat = n["latency_ns"] or {}
    ns = lambda d, k: "-" if d.get(k) is None else f"{d[k]:.0f}"
    print(f"| {mix} | {int(pay) + 20} B | {arb} | {run['load']:.2f} | {n['accepted']:.3f} | "
          f"{n['intra_gbps']:.0f} | {n['inter_gbps']:.0f} | {ns(lat, 'mean')} | "
          f"{ns(lat, 'p99')} | {ns(c, 'src-acc')} | {ns(c, 'src-net')} | "
          f"{ns(c, 'src-nic-agg')} | {ns(c, 'fabric')} | {ns(c, 'dst-nic-split')} | {ns(c, 'dst-net')} |")
PY
		done
	done
done
