#!/usr/bin/env bash
# Switch cables that trained far below their rate (1x instead of 4x, SDR
# instead of EDR), injected with contrib/net-damage.awk -v degrade=N, on
# generated fat trees and a rail-optimized fabric, routed offline.  dmodk
# (hratio on the rail fabric) now routes such cables as lost; before, it did
# not look at rates, so its tables on the degraded fabric were the tables of
# the intact one (the "rates ignored" column: routed on the intact fabric,
# measured on the degraded one).  minimal (rate-weighted loads) for
# comparison.  Per cell: rate-weighted worst shift load (flows x fastest
# rate / link rate, `route congestion --pattern shift`) / plain worst, the
# aggregate max-min rate of all shifts in Gb/s and the time all shifts take
# one after the other in us (each shift a phase that ends with its slowest
# flow; `sim flow --pattern shifts`, link rates included).  Prints a markdown table; never passes or
# fails.
#
#   IBFAB=build/ibfab bench/dmodk_degraded.sh
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
IBFAB=${IBFAB:-$top/build/ibfab}
work=$(mktemp -d /tmp/ibfab-dkdegr.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
degr() { # NAME BASE SEED COUNT RATE
	awk -f "$top/contrib/net-damage.awk" -v seed="$3" -v degrade="$4" -v rate="$5" \
		"$work/$2.net" "$work/$2.net" >"$work/$1.net"
	echo "$1 $2" >>"$work/list"
}
ft() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/$name.net" >/dev/null; }
name=k43 ft --kary 4 --n 3
degr k43-1x1 k43 3 1 1xEDR
degr k43-1x2 k43 3 2 1xEDR
degr k43-1x4 k43 5 4 1xEDR
degr k43-sdr2 k43 3 2 4xSDR
degr k43-2x2 k43 3 2 2xEDR
name=c2taper ft --m 16,8 --w 1,4
degr c2taper-1x1 c2taper 1 1 1xEDR
degr c2taper-1x3 c2taper 2 3 1xEDR
name=c2par2 ft --m 16,8 --w 1,4 --parallel 2
degr c2par2-1x1 c2par2 1 1 1xEDR
name=c3 ft --m 8,4,4 --w 1,4,4
degr c3-1x2 c3 4 2 1xEDR
name=rail
"$IBFAB" topo gen rail --servers 32 --gpus 8 --spines 4 --format ibsim -o "$work/rail.net" >/dev/null
degr rail-1x2 rail 1 2 1xEDR

# cell NET LFTS: rate-weighted worst / worst, shifts Gb/s, shifts time us
cell() {
	local js w ww ag
	js=$("$IBFAB" route congestion --topology "$1" --lfts "$2" --pattern shift --json 2>/dev/null)
	w=$(echo "$js" | sed -n 's/.*"shift": {"count": [0-9]*, "worst": \([0-9]*\),.*/\1/p')
	ww=$(echo "$js" | sed -n 's/.*"rate_weighted": {"worst": \([0-9]*\),.*/\1/p')
	ag=$("$IBFAB" sim flow --topology "$1" --lfts "$2" --pattern shifts --threads 1 2>/dev/null |
		awk '$1 ~ /\.lfts$/ { print $2 ", " $NF; exit }')
	echo "${ww:-$w}/$w, ${ag:-?}"
}
route() { "$IBFAB" route -q --topology "$1" --engine "$2" -o "$3" 2>/dev/null; }
echo "| fabric | engine | rates ignored (before) | routed as lost (now) | minimal |"
echo "|---|---|---|---|---|"
while read -r n base; do
	eng=dmodk
	[ "$base" = rail ] && eng=hratio
	route "$work/$base.net" $eng "$work/old.lfts"
	route "$work/$n.net" $eng "$work/new.lfts"
	route "$work/$n.net" minimal "$work/min.lfts"
	echo "| $n | $eng | $(cell "$work/$n.net" "$work/old.lfts") | $(cell "$work/$n.net" "$work/new.lfts") | $(cell "$work/$n.net" "$work/min.lfts") |"
done <"$work/list"
