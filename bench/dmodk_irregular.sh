#!/usr/bin/env bash
# dmodk against stock OpenSM minhop and ftree on damaged and irregular fat
# trees (generated, then faults injected with contrib/ft-damage.awk), each
# run in ibsim, the tables read back with dump_lfts and evaluated with
# `ibfab route congestion` (worst shift load, the cut lower bound, mean max
# load over 100 random permutations).  Prints a markdown table; never
# passes or fails.
#
#   IBFAB=build/ibfab bench/dmodk_irregular.sh [--lmc-full "0 1 2"]
#
# --compete: dmodk (through the plugin) against every stock engine on
# damaged 3-level and 2-level trees (random switch cables cut with
# contrib/net-damage.awk at 2, 5 and 10 %, a missing spine, hosts on a
# level-2 switch or spine, uneven bundles, a tapered tree) and the two real
# fat-tree dumps of tests/fixtures/real, at each LMC of --lmcs.  `ftree` is
# given a root GUID file and a compute-node file (-a/-u), made from the
# discovered fabric (leaves: the switches with at least half the most hosts
# any switch has, aggregation nodes not counted; roots: the switches
# farthest from the leaves), since without them it refuses every damaged or
# irregular tree here; `updn` and the others run with OpenSM's defaults.
# Cell: worst shift load (largest over the layers) / mean max load over 100
# random permutations (mean over the layers); "fb:ENGINE" when OpenSM fell
# back to another engine, "none" when no tables came out.  Beside the cut
# bound, the up/down bound of `route congestion` (valid for valley-free
# routes only; both the largest over the layers, read from the first engine
# with tables).
#
#   IBFAB=build/ibfab bench/dmodk_irregular.sh --compete [--lmcs "0 1"] \
#       [--engines "dmodk ftree updn minhop dfsssp"] [--cases "x844-r5 ndr ..."]
set -u
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
lmcs="0 1 2"
mode=irregular
engines="dmodk ftree updn minhop dfsssp"
cases=""
while [ $# -gt 0 ]; do
	case $1 in
	--lmc-full) lmcs=$2; shift 2 ;;
	--compete) mode=compete; lmcs="0 1"; shift ;;
	--lmcs) lmcs=$2; shift 2 ;;
	--engines) engines=$2; shift 2 ;;
	--cases) cases=$2; shift 2 ;;
	*) echo "usage: $0 [--lmc-full LMCS] | --compete [--lmcs LMCS] [--engines ENGINES] [--cases NAMES]" >&2; exit 2 ;;
	esac
done
IBFAB=${IBFAB:-$top/build/ibfab}
libdir=$(dirname "$IBFAB")/.libs
PATH=$PATH:/usr/sbin:/sbin
. "$top/tests/lib.sh"
HARNESS=$top/contrib/ibsim-harness.sh
work=$(mktemp -d /tmp/ibfab-dmodk.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
. "$top/bench/ft_cases.sh"
ft_cases_irregular

if [ $mode = compete ]; then
	ft_cases_compete
	[ -n "$cases" ] || cases=$FT_CASES_COMPETE
fi

# ftree_files IBND DIR: DIR/roots (node GUIDs of the switches farthest from
# the leaves) and DIR/cn (port GUIDs of the hosts on leaves) from an
# ibnetdiscover file; leaves are the switches with at least half the most
# hosts of any switch (aggregation nodes are no hosts)
ftree_files() {
	awk -v dir="$2" '
	function nm(l) { sub(/^[^"]*"/, "", l); sub(/".*/, "", l); return l }
	/^Switch/ { cur = nm($0); sw[cur] = 1; next }
	/^(Ca|Hca)/ { cur = nm($0); agg[cur] = /Aggregation/; next }
	/^\[/ && cur != "" {
		l = $0; sub(/^[^"]*"/, "", l); peer = l; sub(/".*/, "", peer)
		if (cur in sw) { if (peer ~ /^S-/) adj[cur] = adj[cur] " " peer; else hostof[peer] = cur }
		else if (!agg[cur] && match($0, /^\[[0-9]+\]\(([0-9a-f]+)\)/)) {
			g = substr($0, index($0, "(") + 1); sub(/\).*/, "", g)
			pg[++np] = g; pn[np] = cur; ps[np] = peer
		}
	}
	END {
		for (h in hostof) if (!agg[h]) { nh[hostof[h]]++; if (nh[hostof[h]] > mx) mx = nh[hostof[h]] }
		for (s in sw) lev[s] = -1
		q = 0; for (s in sw) if (nh[s] * 2 >= mx && mx > 0) { lev[s] = 0; Q[++q] = s }
		for (i = 1; i <= q; i++) {
			n = split(adj[Q[i]], a, " ")
			for (j = 1; j <= n; j++) if (lev[a[j]] < 0) { lev[a[j]] = lev[Q[i]] + 1; Q[++q] = a[j]; top = lev[a[j]] }
		}
		for (s in sw) if (top > 0 && lev[s] == top) printf "0x%s\n", substr(s, 3) > (dir "/roots")
		for (i = 1; i <= np; i++) if (lev[ps[i]] == 0) printf "0x%s\n", pg[i] > (dir "/cn")
	}' "$1"
}

opensm -c "$work/def.conf" >/dev/null 2>&1 </dev/null
# run NET ENGINE LMC: prints "worst/bound/permmean" per layer; DIR/layers
# gets "worst bound shiftmean permmean" per layer.  In --compete mode
# ftree gets its root and compute-node files (ftree_files).
run() {
	local net=$1 eng=$2 lmc=$3 d ft=
	d=$work/$(basename "$1" .net)-$2-$3
	mkdir -p "$d"
	osm_conf "$work/def.conf" "$eng" "$lmc" "$d/osm.conf"
	echo '# defaults' >"$d/empty.conf"
	[ $mode = compete ] && [ "$eng" = ftree ] && ft=1
	# shellcheck disable=SC2016 # the inner script expands its own variables
	env IBFAB_CONF="$d/empty.conf" LD_LIBRARY_PATH="$libdir" FT="$ft" "$HARNESS" with "$net" "$d/sim" -- bash -c '
		. "$0"; s=$IBFAB_SIM_DIR; extra=""
		if [ -n "$FT" ]; then
			ibsim-run ibnetdiscover >"$s/pre.ibnd" 2>/dev/null
			eval "$2" && ftree_files "$s/pre.ibnd" "$s"
			extra="-a $s/roots -u $s/cn"
		fi
		opensm_once "$s" -F "$1" $extra || exit 1
		ibsim-run dump_lfts >"$s/dump.raw" 2>/dev/null
		ibsim-run ibnetdiscover >"$s/net.ibnd" 2>/dev/null' \
		"$top/tests/lib.sh" "$d/osm.conf" "$(declare -f ftree_files)" >/dev/null 2>&1
	grep -v 'replaced by dump_fts' "$d/sim/dump.raw" >"$d/dump.txt" 2>/dev/null
	local used
	used=$(grep -o '[a-z_]* tables configured on all switches' "$d/sim/opensm.log" 2>/dev/null | head -1 | cut -d' ' -f1)
	"$IBFAB" route congestion --topology "$d/sim/net.ibnd" --lfts "$d/dump.txt" --layer all --json 2>/dev/null |
		python3 -c '
import json, sys
try:
    ls = json.load(sys.stdin)["layers"]
except Exception:
    sys.exit(0)
for l in ls:
    print(l["shift"]["worst"], l["shift"]["bound"], "%.2f" % l["shift"]["mean_max"],
          "%.2f" % l["perm"]["mean_max"], l["shift"]["unrouted"] + l["perm"]["unrouted"],
          l["shift"].get("bound_updown", "?"))
' >"$d/layers"
	echo "${used:-none}" >"$d/used"
	local out
	out=$(awk '{ printf "%s%s/%s/%s", (NR > 1 ? ", " : ""), $1, $2, $4 }' "$d/layers")
	[ "$used" = "$eng" ] || out="$out (OpenSM fell back to ${used:-nothing})"
	echo "$out"
}
if [ $mode = compete ]; then
	# cell DIR ENGINE: worst (max over layers) / perm mean (mean over layers)
	cell() {
		local u
		u=$(cat "$1/used" 2>/dev/null)
		[ -s "$1/layers" ] || { echo "none"; return; }
		awk -v u="$u" -v e="$2" '{ if ($1 > w) w = $1; p += $4; n++; un += $5 }
			END { printf "%d/%.2f%s%s", w, p / n, un ? " unrouted " un : "", u == e ? "" : " fb:" u }' "$1/layers"
	}
	echo "| fabric | LMC | cut bound | up/down bound | ${engines// / | } |"
	echo "|---|---|---|---|$(for e in $engines; do printf -- '---|'; done)"
	for n in $cases; do
		for l in $lmcs; do
			row="| $n | $l |"
			for e in $engines; do run "$work/$n.net" "$e" "$l" >/dev/null; done
			# both bounds depend on the fabric only: read them from the
			# first engine that left tables (largest over the layers)
			b= ub=
			for e in $engines; do
				[ -s "$work/$n-$e-$l/layers" ] || continue
				b=$(awk '{ if ($2 > b) b = $2 } END { print b }' "$work/$n-$e-$l/layers")
				ub=$(awk '{ if ($6 > b) b = $6 } END { print b }' "$work/$n-$e-$l/layers")
				break
			done
			row="$row ${b:-?} | ${ub:-?} |"
			for e in $engines; do row="$row $(cell "$work/$n-$e-$l" "$e") |"; done
			echo "$row"
		done
	done
	exit 0
fi
echo "| fabric | cut bound | dmodk | stock minhop | stock ftree |"
echo "|---|---|---|---|---|"
for n in t2014 t2miss t2uneven t3taper t3par ndr c2 c43 c3taper; do
	dm=$(run "$work/$n.net" dmodk 0); mh=$(run "$work/$n.net" minhop 0); ft=$(run "$work/$n.net" ftree 0)
	echo "| $n | $(echo "$dm" | cut -d/ -f2) | $dm | $mh | $ft |"
done
echo
echo "complete trees, dmodk per layer (worst/bound/perm mean):"
for n in c2 c43 c3taper; do
	for l in $lmcs; do echo "  $n lmc $l: $(run "$work/$n.net" dmodk "$l")"; done
done
