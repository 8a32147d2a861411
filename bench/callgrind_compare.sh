#!/usr/bin/env bash
# Instruction counts of the same ibfab commands for two builds (valgrind
# callgrind: independent of the machine's load), e.g. before and after a
# refactoring.  Usage: bench/callgrind_compare.sh OLD_IBFAB NEW_IBFAB
# Prints: command  instructions(old)  instructions(new)  change
set -eu
old=$1 new=$2
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
w=$(mktemp -d "${TMPDIR:-/tmp}/ibfab-cg.XXXXXX")
trap 'rm -rf "$w"' EXIT
here=$(cd "$(dirname "$0")/.." && pwd)
"$new" topo gen slimfly --q 7 --lmc 2 -o "$w/sf7.ibnd"
awk -f "$here/contrib/net-damage.awk" -v seed=2 -v cables=6 "$w/sf7.ibnd" "$w/sf7.ibnd" >"$w/sf7d.ibnd"
"$new" topo gen fattree --kary 8 --n 3 -o "$w/ft83.ibnd"
"$new" route --topology "$w/sf7.ibnd" --engine layered --threads 1 -o "$w/sf7.lft" >/dev/null 2>&1
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
	awk '/refs:/ { gsub(",", "", $NF); print $NF }'; }
run() {
	local name=$1 a b
	shift
	a=$(count "$old" "$@")
	b=$(count "$new" "$@")
	awk -v n="$name" -v a="$a" -v b="$b" 'BEGIN { printf "%-28s %14d %14d %+7.2f %%\n", n, a, b, (b - a) * 100 / a }'
}
cd "$w"
run layered-sf7 route --topology sf7.ibnd --engine layered --threads 1 -o /dev/null
run dmodk-ft83 route --topology ft83.ibnd --engine dmodk --threads 1 -o /dev/null
run coloring-sf7-damaged route --topology sf7d.ibnd --engine layered --lmc 2 --deadlock coloring --max-vls 4 --threads 1
run dfsssp-sf7-damaged route --topology sf7d.ibnd --engine layered --lmc 2 --deadlock dfsssp --threads 1
run stats-sf7 route stats --topology sf7.ibnd --lfts sf7.lft
run congestion-ft83 route congestion --topology ft83.ibnd --engine dmodk --pattern all
