#!/usr/bin/env bash
# dmodk on fat trees with missing up-cables, before and after a change: the
# real dumps of tests/fixtures/real that are fat trees, and generated trees
# with random missing switch cables (contrib/net-damage.awk, several rates
# and seeds), a missing spine and uneven bundles.  Routed offline; per
# fabric and binary the worst shift load / cut bound, the mean max load over
# all shifts and the mean max load over 100 random permutations (seed 1),
# from `ibfab route congestion`.  Last lines: the means of each column over
# the damaged inputs, and how many rows got better / worse on each metric.
# Prints a markdown table; never passes or fails.  LMC=N routes every
# fabric at that LMC: each column is then taken over the 2^N layers (the
# largest worst and bound of any layer, the means of the layers' means),
# and each layer's worst is compared with the same layer before and with
# the fabric's worst at LMC 0 (the same binary).
# L3=1 adds 3-level trees with random missing cables at both levels.
#
#   IBFAB=build/ibfab IBFAB_OLD=/tmp/old/ibfab [LMC=1] [L3=1] bench/dmodk_closed.sh [--quick]
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
IBFAB=${IBFAB:-$top/build/ibfab}
OLD=${IBFAB_OLD:?IBFAB_OLD: the binary to compare with}
seeds="1 2 3"
lmc=${LMC:-0}
[ "${1:-}" = "--quick" ] && seeds="1"
work=$(mktemp -d /tmp/ibfab-dkclosed.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
gen() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net" >/dev/null; }
rnd() { awk -f "$top/contrib/net-damage.awk" "$@" "$work/base.net" "$work/base.net"; }
nets=""
add() { nets="$nets $1"; }

# real dumps (only those dmodk takes for a fat tree are measured)
for f in "$top"/tests/fixtures/real/*; do
	case $f in *.md | *ibroute) continue ;; esac
	b=real-$(basename "$f" | cut -d- -f1-5)
	"$IBFAB" topo convert "$f" --format ibsim -o "$work/$b.net" >/dev/null 2>&1 || continue
	"$IBFAB" route --topology "$work/$b.net" --engine dmodk >/dev/null 2>&1 || continue
	add "$b"
done
# damaged NAME OPTS NCAB: the tree of OPTS with 2, 5 and 10 % of its NCAB
# switch cables cut, each with every seed
damaged() {
	local name=$1 ncab=$3 pct k s
	# shellcheck disable=SC2086 # the options are words
	gen $2
	for pct in 2 5 10; do
		k=$(( (ncab * pct + 99) / 100 ))
		for s in $seeds; do
			rnd -v seed="$s" -v cables="$k" >"$work/$name-r$pct-s$s.net"
			add "$name-r$pct-s$s"
		done
	done
}
# generated 2-level trees: name, options, switch cables
while IFS='|' read -r name opts ncab; do
	damaged "$name" "$opts" "$ncab"
	rnd -v seed=1 -v cables=0 -v dead=ft-l2-s0001 >"$work/$name-nospine.net"
	add "$name-nospine"
done <<'EOF'
t16x8w4|--m 16,8 --w 1,4|32
t16x8w4p2|--m 16,8 --w 1,4 --parallel 2|64
rlft216|--m 18,12 --w 1,6 --parallel 3|216
ndrlike|--m 18,16 --w 1,9 --parallel 2 --switch-ports 40|288
t8x16w8|--m 8,16 --w 1,8|128
EOF
# uneven bundles: every leaf of a 3-cable tree lost one cable to spine 0
gen --m 12,6 --w 1,2 --parallel 3 --switch-ports 24
awk -f "$top/contrib/ft-damage.awk" \
	-v drop=ft-l1-s0000:13,ft-l1-s0001:13,ft-l1-s0002:13,ft-l1-s0003:13,ft-l1-s0004:13,ft-l1-s0005:13 \
	"$work/base.net" >"$work/uneven.net"
add uneven
# 3 levels (the rule is for 2-level trees: these must not move)
gen --kary 4 --n 3
for s in $seeds; do
	rnd -v seed="$s" -v cables=4 >"$work/k43-c4-s$s.net"
	add "k43-c4-s$s"
done

if [ -n "${L3:-}" ]; then
	# 3 levels, damaged at both levels: name, options, switch cables
	while IFS='|' read -r name opts ncab; do
		damaged "$name" "$opts" "$ncab"
	done <<'EOF'
x844|--m 8,4,4 --w 1,4,4|128
x1644p2|--m 16,4,4 --w 1,4,4 --parallel 2|256
k63|--kary 6 --n 3|216
EOF
fi

# cell BIN NET [LMC]: worst bound shiftmean permmean (over the layers), then
# the layers' worst shift loads joined by commas
cell() {
	"$1" route congestion --topology "$2" --engine dmodk --lmc "${3:-$lmc}" --layer all --json \
		2>/dev/null | python3 -c '
import json, sys
try:
    ls = json.load(sys.stdin)["layers"]
except Exception:
    sys.exit(0)
n = len(ls)
print("%d %d %.4f %.4f %s" % (max(l["shift"]["worst"] for l in ls),
      max(l["shift"]["bound"] for l in ls),
      sum(l["shift"]["mean_max"] for l in ls) / n,
      sum(l["perm"]["mean_max"] for l in ls) / n,
      ",".join(str(l["shift"]["worst"]) for l in ls)))'
}
# with LMC > 0 each binary's LMC 0 worst as well: a layer above it is
# counted (the layers of a destination are each a pattern of their own)
echo "| fabric | before: worst/bound, shift mean, perm mean | after |"
echo "|---|---|---|"
for n in $nets; do
	a=$(cell "$OLD" "$work/$n.net")
	b=$(cell "$IBFAB" "$work/$n.net")
	[ -n "$a" ] && [ -n "$b" ] || { echo "| $n | not routed | |"; continue; }
	z="- -"
	if [ "$lmc" != 0 ]; then
		za=$(cell "$OLD" "$work/$n.net" 0)
		zb=$(cell "$IBFAB" "$work/$n.net" 0)
		z="${za%% *} ${zb%% *}"
	fi
	echo "$n $a $b $z" >>"$work/rows"
	set -- $a
	ca="$1/$2, $3, $4"
	cla=$5
	set -- $b
	if [ "$lmc" != 0 ]; then
		echo "| $n | $ca (layers $cla; LMC 0: ${za%% *}) | $1/$2, $3, $4 (layers $5; LMC 0: ${zb%% *}) |"
	else
		echo "| $n | $ca | $1/$2, $3, $4 |"
	fi
done
awk -v lmc="$lmc" '{ n++; wo += $2; so += $4; po += $5; wn += $7; sn += $9; pn += $10
	bw += $7 < $2; ww += $7 > $2; bs += $9 < $4 - 1e-9; ws += $9 > $4 + 1e-9
	bp += $10 < $5 - 1e-9; wp += $10 > $5 + 1e-9
	if (lmc != 0) {
		k = split($6, lo, ","); split($11, ln, ",")
		wl = 0; ao = 0; an = 0
		for (i = 1; i <= k; i++) {
			wl += ln[i] > lo[i]; lw += ln[i] > lo[i]; lb += ln[i] < lo[i]
			ao += lo[i] > $12; an += ln[i] > $13
		}
		fl += wl > 0; fo += ao > 0; fn += an > 0
	} }
	END { printf "\nmeans over %d fabrics: worst %.2f -> %.2f, shift mean %.3f -> %.3f, perm mean %.3f -> %.3f\n", n, wo/n, wn/n, so/n, sn/n, po/n, pn/n
	      printf "better/worse: worst %d/%d, shift mean %d/%d, perm mean %d/%d\n", bw, ww, bs, ws, bp, wp
	      if (lmc != 0) {
		      printf "layers: %d better, %d worse (fabrics with a worse layer: %d)\n", lb, lw, fl
		      printf "fabrics with a layer above their LMC 0 worst: %d before, %d after\n", fo, fn
	      } }' "$work/rows"
