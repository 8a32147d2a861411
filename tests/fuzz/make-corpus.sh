#!/usr/bin/env bash
# Rebuild the seed corpus of the fuzz targets (tests/fuzz/corpus/NAME/) from
# the repository's fixtures and small fabrics made by ibfab itself.
#   usage: tests/fuzz/make-corpus.sh [path/to/ibfab]
# The corpus stays small (a few KB per file): libFuzzer mutates it, the
# replay test (make check) runs it through every target.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
IBFAB=${1:-$top/build/ibfab}
C=$top/tests/fuzz/corpus
FX=$top/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the directories made here (railmap, placement, traffic, registry, etcd, psim, roots,
# etcdloc, link, cgroup and optval hold hand-written seeds and are kept)
for t in ibnd ports ibsim subnet_lst namemap guid2lid lfts sl sl2vl conf plan route pattern json validate; do
	rm -rf "${C:?}/$t"
	mkdir -p "$C/$t"
done

# small generated fabrics (and a damaged one: a cable and a switch gone)
"$IBFAB" topo gen fattree --kary 2 --n 2 -o "$tmp/ft.ibnd"
"$IBFAB" topo gen fattree --m 2,2 --w 1,2 --lmc 1 -o "$tmp/xgft.ibnd"
"$IBFAB" topo gen hyperx --s1 3 --s2 2 --hosts 1 --lmc 1 -o "$tmp/base.ibnd" --node-name-map "$tmp/base.map"
"$IBFAB" topo gen dragonfly --a 2 --p 1 --h 1 -o "$tmp/df.ibnd"
"$IBFAB" topo gen rail --servers 2 --gpus 2 --spines 1 -o "$tmp/rail.ibnd"
for f in ft xgft base df rail; do
	"$IBFAB" topo convert "$tmp/$f.ibnd" --format ibsim -o "$tmp/$f.net"
done
# damage: drop the first switch-to-switch cable of the HyperX (both ends)
awk 'BEGIN { cut = 0 }
     /^Switch/ { sw = $0 }
     /^\[/ && $2 ~ /^"S-/ && !cut { a = $2; cut = 1; next }
     { print }' "$tmp/base.ibnd" >"$tmp/base-cut.ibnd"

cp "$tmp/ft.ibnd" "$tmp/df.ibnd" "$tmp/base-cut.ibnd" "$C/ibnd/"
cp "$FX"/real/*.ibnetdiscover "$FX"/io/*.ibnetdiscover "$C/ibnd/"
cp "$FX"/real/*.ibnetdiscover-p "$FX"/io/*.ibnetdiscover-p "$C/ports/"
cp "$FX"/io/*.ibsim "$tmp/ft.net" "$tmp/rail.net" "$C/ibsim/"
cp "$FX"/io/*.subnet.lst "$C/subnet_lst/"
cp "$tmp/base.map" "$C/namemap/"
printf '# comment\n0x0002c90200000000 "sw-0"\n0x0002c90200000100 unquoted name  # note\n' >"$C/namemap/hand.map"
cp "$tmp/xgft.net" "$tmp/df.net" "$FX/real/sdr-mt43132-1switch-2hosts-2009.ibnetdiscover" \
	"$tmp/base-cut.ibnd" "$C/route/"

# tables of the base fabric (what fuzz_base_fabric() builds)
"$IBFAB" route --topology "$tmp/base.ibnd" --engine minimal -o "$C/lfts/base-minimal.lfts"
"$IBFAB" route --topology "$tmp/base.ibnd" --engine layered --deadlock dfsssp \
	-o "$C/lfts/base-layered.lfts" --sl "$C/sl/base-dfsssp.sl" --sl2vl "$C/sl2vl/base-dfsssp.sl2vl"
cp "$FX"/lfts/*.dump* "$FX"/lfts/*.fdbs "$C/lfts/"
# the base fabric's minimal tables in the other layouts the reader takes
# (the fixtures above are of another fabric: the reader stops at their
# first switch GUID): dump_lfts/ibroute, opensm.fdbs (old prefix, hops),
# ibdiagnet.fdbs, and an unreachable LID in each fdbs block
awk '/^Unicast lids/ { if (n) printf "%d valid lids dumped \n", n; n = 0
                       sub(/\[0-19\]/, "[0x0-0x13]"); sub(/\(\x27/, "("); sub(/\x27\):/, "):"); print
                       print "  Lid  Out   Destination"; print "       Port     Info "; next }
     /^0x/ { d = $0; sub(/^[^#]*# /, "", d); printf "%s %s : (%s)\n", $1, $2, d; n++ }
     END { printf "%d valid lids dumped \n", n }' "$C/lfts/base-minimal.lfts" >"$C/lfts/base-minimal.dump_lfts"
fdbs() {
	awk -v pre="$1" -v hops="$2" '
	/^Unicast lids/ { if (open) printf "0x0007 : UNREACHABLE\n\n"; open = 1
	                  for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i+1)
	                  printf "%sdump_ucast_routes: Switch %s\nLID    : Port : Hops : Optimal\n", pre, g; next }
	/^0x/ { printf "%s : %s  : %s   : yes\n", $1, $2, $2 == "000" ? "00" : hops }
	END { printf "0x0007 : UNREACHABLE\n" }' "$C/lfts/base-minimal.lfts"
}
fdbs __osm_ucast_mgr_ 01 >"$C/lfts/base-minimal.opensm.fdbs"
fdbs osm_ucast_mgr_ 00 >"$C/lfts/base-minimal.ibdiagnet.fdbs"
# the same SLs as "<slid> <dlid> <sl>" lines (first 40)
awk '/^Source switch/ { for (i = 1; i <= NF; i++) if ($i == "lid") s = $(i+1); next }
     /^0x/ && n < 40 { printf "%s %s %s\n", s, $1, $2; n++ }' "$C/sl/base-dfsssp.sl" \
	>"$C/sl/base-triples.sl"
# guid2lid from the base fabric's own LIDs (ibnetdiscover comments)
awk '/^Switch/ { g = $3; gsub(/"|S-/, "", g);
                 for (i = 1; i <= NF; i++) if ($i == "lid") { printf "0x%s %d %d\n", g, $(i+1), $(i+1); break } }
     /^\[1\]\(/ { g = $1; sub(/^\[1\]\(/, "", g); sub(/\).*/, "", g);
                  for (i = 1; i <= NF; i++) if ($i == "lid") { printf "0x%s %d %d\n", g, $(i+1), $(i+1) + 1; break } }' \
	"$tmp/base.ibnd" >"$C/guid2lid/base.guid2lid"
printf '# stale entries and a comment\n0x0002c90300ffffff 100 103\n' >"$C/guid2lid/stale.guid2lid"

cp "$top/contrib/ibfab.conf.example" "$C/conf/example.conf"
printf 'deadlock dfsssp\nmax_vls 2\nbest_effort TRUE\nmin_path_len dist+0\nmax_path_len diameter+2\nmax_paths_per_layer 10\n' >"$C/conf/dfsssp.conf"
printf 'layers_remove_deadlocks FALSE\nseed 7\nthreads auto\n' >"$C/conf/compat.conf"

"$IBFAB" cabling from-topology "$tmp/base.ibnd" -o "$C/plan/base.csv" >/dev/null
"$IBFAB" cabling from-topology "$tmp/ft.ibnd" -o "$C/plan/ft.csv" >/dev/null
# smpquery sl2vl output for two switches of the base fabric (LIDs 1, 2)
{
	for lid in 1 2; do
		printf '# SL2VL table: Lid %d\n' $lid
		printf '#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n'
		for in in 0 1 2; do
			for out in 1 2 3; do
				printf 'ports: in %2d, out %2d: | 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1|\n' $in $out
			done
		done
	done
} >"$C/sl2vl/smpquery.sl2vl"

# traffic patterns: PATTERN, [LAYERS], [RANKS PPN RANDOM SEED] (fuzz_pattern.c)
pat() { printf '%s\n' "$@" >"$C/pattern/$(printf '%s' "$1" | tr -c 'a-zA-Z0-9-' _)"; }
pat shift:3 rr '0 1 0 1'
pat shifts
pat perm:2 hash '12 2 1 7'
pat a2a split
pat a2a-phased 'layer:1'
pat pairwise
pat cumulative '' '12 2 0 1'
pat random-pairwise:2 random '6 1 1 9'
pat bisection:3 split '12 2 1 3'
pat ring '' '5 1 0 1'
pat recdbl '' '5 1 0 1'
pat bruck '' '6 1 0 1'
pat bcast '' '7 2 1 2'
pat hier random '12 2 1 5'
pat adversarial '' '12 2 1 3'
pat mix:C2 'layer:1' '12 2 0 1'

# JSON documents: the registry and etcd seeds, what ibfab writes
cp "$C/registry/escapes.json" "$C/registry/written.json" "$C/etcd/range.json" "$C/json/"
"$IBFAB" topo convert "$tmp/df.ibnd" --format json -o "$C/json/df-topo.json"
printf '{"a":[1,-0,2.5e-3,1E+2,true,false,null],"a":{"":"\\u00e9\\ud83d\\ude00\\n"},"b":[[[]]],"c":{}}\n' \
	>"$C/json/mixed.json"

# the validator: PLAN, a line "---", FABRIC; an optional "#! ..." first line
{ cat "$C/plan/base.csv"; echo ---; cat "$tmp/base-cut.ibnd"; } >"$C/validate/base-cut"
{ echo '#! partial step=1'; cat "$C/plan/ft.csv"; echo ---; cat "$tmp/ft.ibnd"; } >"$C/validate/ft-partial"
{ cat "$C/plan/ft.csv"; echo ---; cat "$tmp/ft.net"; } >"$C/validate/ft-ibsim"
# descriptions unknown to the plan: matched by structure from the anchor
{ echo '#! anchor=ft-l2-s0000=0x0002c90200000200'; cat "$C/plan/ft.csv"; echo ---
  sed 's/"ft-/"xx-/g' "$tmp/ft.ibnd"; } >"$C/validate/ft-anchor"
{ cat "$FX/io/gpu-two-devices.plan.csv"; echo ---; cat "$FX/io/gpu-two-devices.ibnetdiscover"; } \
	>"$C/validate/gpu-two-devices"
echo "corpus: $(find "$C" -type f | wc -l) files, $(du -sk "$C" | cut -f1) KB"
