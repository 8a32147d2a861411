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
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# drop N random switch-to-switch cables, or switch number K (1-based, in
# file order) with the hosts cabled only to it, from an ibnetdiscover file
damage() { # IN OUT SEED NCABLES KSWITCH
	awk -v seed="$3" -v n="$4" -v k="$5" '
	function q(l) { sub(/^[^"]*"/, "", l); sub(/".*/, "", l); return l }
	NR == FNR {
		if (/^Switch/) { cur = q($0); isw[cur] = 1; sw[++ns] = cur; next }
		if (/^(Ca|Hca)/) { cur = q($0); next }
		if (/^\[/ && match($0, /"[^"]*"\[[0-9]+\]/)) {
			p = $1; gsub(/[^0-9]/, "", p); p = p + 0
			peer = substr($0, RSTART + 1, RLENGTH - 1); pp = peer
			sub(/".*/, "", peer); sub(/.*\[/, "", pp); sub(/\].*/, "", pp)
			if (!(cur in isw)) { hs[cur] = hs[cur] " " peer; next }
			if (cur < peer) { a[++na] = cur SUBSEP p SUBSEP peer SUBSEP pp; ap[na] = peer }
		}
		next
	}
	FNR == 1 {
		for (i = 1; i <= na; i++) if (ap[i] in isw) c[++m] = a[i]
		srand(seed)
		for (i = 1; i <= n && i <= m; i++) { j = i + int(rand() * (m - i + 1)); t = c[i]; c[i] = c[j]; c[j] = t
			split(c[i], f, SUBSEP); cut[f[1], f[2]] = 1; cut[f[3], f[4]] = 1 }
		if (k > 0) { dead = sw[k]; gone[dead] = 1; for (h in hs) if (hs[h] == " " dead) gone[h] = 1 }
	}
	# the attribute lines before a node line (vendid=, switchguid=, ...)
	# belong to that node: held until its line decides
	/^[a-z]+=/ { hdr = hdr $0 "\n"; next }
	/^(Switch|Ca|Hca)/ { cur = q($0); skip = (cur in gone); if (!skip) printf "%s", hdr; hdr = "" }
	skip { next }
	/^\[/ {
		p = $1; gsub(/[^0-9]/, "", p); p = p + 0
		if ((cur, p) in cut) next
		if (match($0, /"[^"]*"\[[0-9]+\]/)) { peer = substr($0, RSTART + 1, RLENGTH - 1); sub(/".*/, "", peer); if (peer in gone) next }
	}
	{ print }' "$1" "$1" >"$2"
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
		# with the healthy ones only on the switches that remain
		if [ $fault = switch ]; then
			g=$(sed -n "/^Switch/{p}" "$W/h.ibnd" | sed -n "${k}p" | sed 's/^[^"]*"S-\([0-9a-f]*\)".*/0x\1/')
			awk -v g="$g" '/^Unicast lids/ { skip = (index($0, g) > 0) } !skip' "$W/h.lfts" >"$W/h2.lfts"
		else
			cp "$W/h.lfts" "$W/h2.lfts"
		fi
		printf '%-5s %-9s %11s%% %10.2f %11s%% %10.2f %s\n' "$q" "$fault" \
			"$(share "$W/d.ibnd" "$W/h2.lfts" "$W/full.lfts")" "${tf:-0}" \
			"$(share "$W/d.ibnd" "$W/h2.lfts" "$W/stable.lfts")" "${ts:-0}" "$kept"
	done
done
