#!/usr/bin/env bash
# The layered engine's routing time on fat trees and Slim Flies for two
# ibfab builds, and whether their tables are byte-identical.  For each
# fabric and LMC, the builds alternate N times (default 3, one thread, so
# the result does not depend on the machine's cores); printed: the best
# user CPU time of each (of `ibfab route ... -o FILE`, as /usr/bin/time
# reports it), its peak RSS, and "same" when the two dumps are equal
# (cmp), else "DIFFER".  Fabrics: `topo gen fattree --kary K --n 3`, the
# XGFT --m 18,12 --w 1,6, the 12-ary tree with 20 cables unplugged
# (contrib/net-damage.awk, seed 3) and `topo gen slimfly --q Q`.
# usage: bench/layered_ab.sh OLD_IBFAB NEW_IBFAB [--kary "8 12 16"] [--q "5 7 11"]
#        [--lmc "1 2"] [--n N]
# e.g.   N=3 bench/layered_ab.sh old/ibfab build/ibfab --kary "8 12"
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_IBFAB NEW_IBFAB [--kary LIST] [--q LIST] [--lmc LIST] [--n N]" >&2; exit 2; }
old=$1 new=$2
shift 2
KARY="8 12 16"; QS="5 7 11"; LMCS="1 2"; N=${N:-3}
while [ $# -gt 0 ]; do
	case $1 in
	--kary) KARY=$2; shift 2 ;;
	--q) QS=$2; shift 2 ;;
	--lmc) LMCS=$2; shift 2 ;;
	--n) N=$2; shift 2 ;;
	*) echo "usage: $0 OLD_IBFAB NEW_IBFAB [--kary LIST] [--q LIST] [--lmc LIST] [--n N]" >&2; exit 2 ;;
	esac
done
command -v /usr/bin/time >/dev/null || { echo "/usr/bin/time is needed" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d "${TMPDIR:-/tmp}/ibfab-lab.XXXXXX")
trap 'rm -rf "$w"' EXIT

# best (lowest) user time and its RSS of N runs; leaves the dump in $w/$2.dump
best() {
	local bin=$1 tag=$2 f=$3 l=$4 bt="" bm="" i
	for i in $(seq "$N"); do
		/usr/bin/time -o "$w/t" -f '%U %M' "$bin" route --topology "$f" --engine layered \
			--lmc "$l" --threads 1 -o "$w/$tag.dump" >/dev/null 2>&1 || { echo "failed failed"; return; }
		read -r t m <"$w/t"
		if [ -z "$bt" ] || awk -v a="$t" -v b="$bt" 'BEGIN { exit !(a < b) }'; then
			bt=$t bm=$m
		fi
	done
	echo "$bt $bm"
}

run() {
	local name=$1 f=$2 l a b same
	for l in $LMCS; do
		a=$(best "$old" old "$f" "$l")
		b=$(best "$new" new "$f" "$l")
		same=DIFFER
		cmp -s "$w/old.dump" "$w/new.dump" && same=same
		set -- $a $b
		printf '%-22s %-4s %9s %9s %9s %9s  %s\n' "$name" "$l" "$1" "$2" "$3" "$4" "$same"
		rm -f "$w/old.dump" "$w/new.dump"
	done
}

printf '%-22s %-4s %9s %9s %9s %9s  %s\n' fabric LMC "old s" "old KB" "new s" "new KB" tables
for k in $KARY; do
	"$new" topo gen fattree --kary "$k" --n 3 -o "$w/f.ibnd" || exit 1
	run "fattree $k-ary 3-tree" "$w/f.ibnd"
done
"$new" topo gen fattree --m 18,12 --w 1,6 -o "$w/x.ibnd" || exit 1
run "xgft 18,12 / 1,6" "$w/x.ibnd"
"$new" topo gen fattree --kary 12 --n 3 --format ibsim -o "$w/h.net" || exit 1
awk -f "$top/contrib/net-damage.awk" -v seed=3 -v cables=20 "$w/h.net" "$w/h.net" >"$w/d.net"
run "12-ary, 20 cables off" "$w/d.net"
for q in $QS; do
	"$new" topo gen slimfly --q "$q" -o "$w/s.ibnd" || exit 1
	run "slimfly q=$q" "$w/s.ibnd"
done
