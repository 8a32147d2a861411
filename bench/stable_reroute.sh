#!/usr/bin/env bash
# Stable reroutes against a full recompute (docs/reliability.md):
# Slim Fly q (default 11 and 19), LMC 2, layered; one random inter-switch
# cable gone, then one random switch gone (with its hosts).  For each case:
# the share of (switch, LID) entries that differ from the healthy tables
# and the routing time `ibfab route` reports (files read and written not
# counted), stable (--previous-lfts) vs full.
# usage: IBFAB=build/ibfab bench/stable_reroute.sh [--q "11 19"] [--seed S] [--engine E]
set -u
IBFAB=${IBFAB:-ibfab}
QS="11 19"; SEED=1; ENGINE=layered
while [ $# -gt 0 ]; do
	case $1 in
	--q) QS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--engine) ENGINE=$2; shift 2 ;;
	*) echo "usage: $0 [--q \"11 19\"] [--seed S] [--engine E]" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# drop N random cables, or switch number K (1-based) with its hosts
damage() { # IN OUT SEED NCABLES KSWITCH
	awk -f "$top/contrib/net-damage.awk" -v seed="$3" -v cables="$4" -v deadno="$5" "$1" "$1" >"$2"
}
share() { "$IBFAB" route diff --topology "$1" --lfts "$2" --lfts2 "$3" 2>/dev/null | sed -n 's/.*(\(.*\)%)$/\1/p'; }

printf '%-5s %-9s %12s %10s %12s %10s %s\n' q fault full_moved full_s stable_moved stable_s kept_LIDs
for q in $QS; do
	"$IBFAB" topo gen slimfly --q "$q" --lmc 2 -o "$W/h.ibnd" >/dev/null 2>&1 || { echo "q=$q: cannot generate" >&2; continue; }
	"$IBFAB" route -q --topology "$W/h.ibnd" --engine "$ENGINE" -o "$W/h.lfts" 2>/dev/null
	nsw=$(grep -c '^Switch' "$W/h.ibnd")
	k=$(( (SEED * 7919) % nsw + 1 ))
	for fault in cable switch; do
		if [ $fault = cable ]; then damage "$W/h.ibnd" "$W/d.ibnd" "$SEED" 1 0; else damage "$W/h.ibnd" "$W/d.ibnd" "$SEED" 0 "$k"; fi
		"$IBFAB" route --topology "$W/d.ibnd" --engine "$ENGINE" -o "$W/full.lfts" 2>"$W/full.err"
		"$IBFAB" route --topology "$W/d.ibnd" --engine "$ENGINE" --previous-topology "$W/h.ibnd" \
			--previous-lfts "$W/h.lfts" -o "$W/stable.lfts" 2>"$W/stable.err"
		# routing time as ibfab reports it (without reading the files)
		tf=$(sed -n 's/.*engine [^,]*,.* \([0-9.]*\) s$/\1/p' "$W/full.err")
		ts=$(sed -n 's/.*stable: kept.*; \([0-9.]*\) s$/\1/p' "$W/stable.err")
		kept=$(sed -n 's/.*stable: kept \([0-9]*\) of \([0-9]*\).*/\1\/\2/p' "$W/stable.err")
		# compare on the damaged fabric: the healthy dump names a removed
		# switch, so the switch case compares the stable and full tables
		# with the healthy ones only on the switches and LIDs that remain
		# (the dump readers refuse an entry whose port GUID the fabric lacks;
		# the full run's dump names every port that is left)
		if [ $fault = switch ]; then
			g=$(sed -n "/^Switch/{p}" "$W/h.ibnd" | sed -n "${k}p" | sed 's/^[^"]*"S-\([0-9a-f]*\)".*/0x\1/')
			awk -v g="$g" 'FNR == NR { if (match($0, /portguid 0x[0-9a-f]+/)) left[substr($0, RSTART + 9, RLENGTH - 9)] = 1; next }
				/^Unicast lids/ { skip = (index($0, g) > 0) }
				skip { next }
				match($0, /portguid 0x[0-9a-f]+/) && !(substr($0, RSTART + 9, RLENGTH - 9) in left) { next }
				{ print }' "$W/full.lfts" "$W/h.lfts" >"$W/h2.lfts"
		else
			cp "$W/h.lfts" "$W/h2.lfts"
		fi
		printf '%-5s %-9s %11s%% %10.2f %11s%% %10.2f %s\n' "$q" "$fault" \
			"$(share "$W/d.ibnd" "$W/h2.lfts" "$W/full.lfts")" "${tf:-0}" \
			"$(share "$W/d.ibnd" "$W/h2.lfts" "$W/stable.lfts")" "${ts:-0}" "$kept"
	done
done
