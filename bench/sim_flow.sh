#!/usr/bin/env bash
# Speed and memory of `ibfab sim flow` at scale: exact max-min fair
# all-to-all (and the approximate MAT bounds) on a Slim Fly.  Prints wall
# seconds and peak RSS of each run; never pass/fail.
#
#   bench/sim_flow.sh [--q 13] [--lmc 0|1|2] [--layers rr|hash|split]
#
# IBFAB=path/to/ibfab (default build/ibfab).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
q=13 lmc=0 layers=rr
while [ $# -gt 0 ]; do
	case "$1" in
	--q) q=$2; shift 2 ;;
	--lmc) lmc=$2; shift 2 ;;
	--layers) layers=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
IBFAB=${IBFAB:-$top/build/ibfab}
work=$(mktemp -d /tmp/ibfab-simflow.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$IBFAB" topo gen slimfly --q "$q" --lmc "$lmc" -o "$work/sf.topo" || exit 1
engine=layered
[ "$lmc" = 0 ] && engine=minimal
"$IBFAB" route --topology "$work/sf.topo" --engine "$engine" --output "$work/t.lfts" >/dev/null 2>&1 || exit 1
hosts=$(grep -c '^Ca' "$work/sf.topo")
echo "Slim Fly q=$q: $hosts hosts, $((hosts * (hosts - 1))) all-to-all flows, $engine tables, LMC $lmc, layers $layers"
run() {
	local what=$1; shift
	/usr/bin/time -f "%e %M" -o "$work/t" "$IBFAB" sim flow --topology "$work/sf.topo" \
		--lfts "$work/t.lfts" --layers "$layers" "$@" >"$work/out" 2>&1 || { cat "$work/out"; return; }
	read -r s kb <"$work/t"
	printf '%-44s %8.2f s %8.0f MiB\n' "$what" "$s" "$((kb / 1024))"
	grep -E "^t\.lfts|^MAT any" "$work/out" | sed 's/^/    /'
}
run "max-min all-to-all (+ injection bound)" --pattern a2a
run "  + MAT over the tables (GK, eps 0.05)" --pattern a2a --mat routing
run "  + MAT over any path (GK, eps 0.05)" --pattern a2a --mat any
