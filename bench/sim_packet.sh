#!/usr/bin/env bash
# Packet-level simulator speed: packet-hop events (link traversals) per
# second of wall time on one core, uniform random traffic at 50 % load over
# Slim Fly fabrics from ~200 to 3380 hosts (minimal routing, 8 VLs, 4 KiB
# packets, 128 KiB buffers), and the peak RSS of the whole command (fabric,
# routing and simulation).  Prints a markdown table; never passes or fails.
#
#   IBFAB=build/ibfab bench/sim_packet.sh [MEASURE (default 50us)] [Q...]
set -u
cd "$(dirname "$0")/.."
IBFAB=${IBFAB:-$(pwd)/build/ibfab}
measure=${1:-50us}
shift || true
qs=${*:-5 7 9 11 13}
work=$(mktemp -d /tmp/ibfab-simpkt.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
echo "| Slim Fly q | hosts | switches | events | packet hops | wall s | hops/s | ns/event | accepted | latency p50/p99 ns | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for q in $qs; do
	"$IBFAB" topo gen slimfly --q "$q" -o "$work/sf$q.net" >/dev/null || continue
	/usr/bin/time -f %M -o "$work/rss" "$IBFAB" sim packet --topology "$work/sf$q.net" \
		--engine minimal --load 0.5 --seed 1 --warmup 5us --measure "$measure" --json -q \
		>"$work/sf$q.json" || continue
	python3 - "$q" "$work/sf$q.json" "$(tail -1 "$work/rss")" <<'PY'
import json, sys
q, path, rss = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path))["runs"][0]["result"]
q = int(q)
sw = 2 * q * q
hps = r["packet_hops"] / r["wall_s"] if r["wall_s"] > 0 else 0
nse = r["wall_s"] * 1e9 / r["events"] if r["events"] else 0
lat = r["latency_ns"] or {"p50": float("nan"), "p99": float("nan")}  # null: none arrived
print(f"| {q} | {r['hosts']} | {sw} | {r['events']} | {r['packet_hops']} | {r['wall_s']:.2f} | "
      f"{hps:.3g} | {nse:.0f} | {r['accepted']:.3f} | {lat['p50']:.0f}/{lat['p99']:.0f} | "
      f"{rss / 1024:.0f} |")
PY
done
