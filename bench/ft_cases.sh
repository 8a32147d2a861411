# The damaged and irregular fat trees of bench/dmodk_irregular.sh, as ibsim
# net files, for the bench scripts that measure on them (sourced, not run).
# Needs IBFAB (the ibfab binary), top (the source tree) and work (a
# directory); the files are named $work/NAME.net.
#
#   ft_cases_irregular   the hand-damaged 2- and 3-level trees, the NDR dump,
#                        complete trees (c2, c43, c3taper)
#   ft_cases_compete     the random cuts (2, 5, 10 % of the switch cables,
#                        a missing top switch) of four trees, the complete
#                        XGFT(3;8,4,4;1,4,4), hosts on a level-2 switch,
#                        uneven bundles, the real 2014 cluster
#   FT_CASES_COMPETE     the names ft_cases_irregular + ft_cases_compete
#                        build for the comparison with stock OpenSM

dmg() { awk -f "$top/contrib/ft-damage.awk" "$@"; }
# real-looking names: levels come from the structure, not from the names
ren() { sed -e 's/ft-l\([0-9]\)-s0*\([0-9]\)/sw\1-\2/g' -e 's/ft-h0*\([0-9]\)/n\1/g'; }
gen() { "$IBFAB" topo gen fattree "$@" --format ibsim -o "$work/base.net" >/dev/null; }
rnd() { awk -f "$top/contrib/net-damage.awk" "$@" "$work/base.net" "$work/base.net"; }

ft_cases_irregular() {
	# 2014-like: 6 leaves of 22-24 hosts, 2 spines, 4 cables per pair, one pair 3
	gen --m 24,6 --w 1,2 --parallel 4 --switch-ports 36
	dmg -v drop=ft-l1-s0000:23,ft-l1-s0000:24,ft-l1-s0001:24,ft-l1-s0005:32 \
		-v dual=ft-l2-s0000:30:31 -v spinehosts=ft-l2-s0000:32 "$work/base.net" | ren >"$work/t2014.net"
	# 2 levels, 1.5:1 taper, a missing cable, a short leaf, two hosts on a spine
	gen --m 12,8 --w 1,4 --parallel 2 --switch-ports 24
	dmg -v drop=ft-l1-s0002:15,ft-l1-s0005:12,ft-l1-s0005:11 -v spinehosts=ft-l2-s0001:20,ft-l2-s0001:21 \
		"$work/base.net" | ren >"$work/t2miss.net"
	# 2 levels, uneven bundles everywhere (3 cables to spine 0, 2 to spine 1)
	gen --m 12,6 --w 1,2 --parallel 3 --switch-ports 24
	dmg -v drop=ft-l1-s0000:18,ft-l1-s0001:18,ft-l1-s0002:18,ft-l1-s0003:18,ft-l1-s0004:18,ft-l1-s0005:18 \
		-v dual=ft-l2-s0000:20:21 "$work/base.net" | ren >"$work/t2uneven.net"
	# 3 levels, tapered XGFT(3;4,4,4;1,2,2): a leaf uplink and a level-2 uplink
	# missing, a host on a level-2 switch
	gen --m 4,4,4 --w 1,2,2 --switch-ports 16
	dmg -v drop=ft-l1-s0003:6,ft-l2-s0002:6 -v spinehosts=ft-l2-s0002:9 "$work/base.net" | ren >"$work/t3taper.net"
	# 3 levels, 2 cables per pair XGFT(3;4,2,4;1,2,2): a leaf cable missing
	# (uneven bundle), a host on a level-2 switch
	gen --m 4,2,4 --w 1,2,2 --parallel 2 --switch-ports 16
	dmg -v drop=ft-l1-s0001:8 -v spinehosts=ft-l2-s0001:12 "$work/base.net" | ren >"$work/t3par.net"
	# a real one: the NDR Quantum-2 DGX fabric of tests/fixtures/real (31 leaves,
	# 9 spines, 26 up-cables missing, a SHARP aggregation node on every switch)
	"$IBFAB" topo convert "$top/tests/fixtures/real/ndr-quantum2-mqm9701-dgx-40sw-582ca-2025.ibnetdiscover" \
		--format ibsim -o "$work/ndr.net" >/dev/null
	# complete trees
	gen --m 8,8 --w 1,4 --parallel 2 --switch-ports 24; cp "$work/base.net" "$work/c2.net"
	gen --kary 4 --n 3; cp "$work/base.net" "$work/c43.net"
	gen --m 4,4,4 --w 1,2,2 --switch-ports 16; cp "$work/base.net" "$work/c3taper.net"
}

ft_cases_compete() {
	# random cuts: NAME, generator options, switch cables (both levels)
	while IFS='|' read -r name opts ncab spine; do
		# shellcheck disable=SC2086
		gen $opts
		[ "$ncab" = 0 ] && { cp "$work/base.net" "$work/$name.net"; continue; }
		for pct in 2 5 10; do
			rnd -v seed=1 -v cables=$(( (ncab * pct + 99) / 100 )) >"$work/$name-r$pct.net"
		done
		rnd -v seed=1 -v cables=0 -v dead="$spine" >"$work/$name-nospine.net"
	done <<'EOF2'
x844|--m 8,4,4 --w 1,4,4|128|ft-l3-s0001
x844t|--m 8,4,4 --w 1,4,2 --switch-ports 16|96|ft-l3-s0001
x664|--m 6,6,4 --w 1,6,6|288|ft-l3-s0001
t8x16|--m 8,16 --w 1,8|128|ft-l2-s0001
c844|--m 8,4,4 --w 1,4,4|0|
EOF2
	# XGFT(3;8,4,4;1,4,4): 4 cables cut, 2 hosts on a level-2 switch
	gen --m 8,4,4 --w 1,4,4 --switch-ports 12
	rnd -v seed=2 -v cables=4 >"$work/base2.net"
	dmg -v spinehosts=ft-l2-s0005:9,ft-l2-s0005:10 "$work/base2.net" | ren >"$work/x844-l2hosts.net"
	# XGFT(3;8,4,4;1,4,4) with 2 cables per pair: one leaf cable gone on every
	# leaf of pod 0 (uneven bundles), a level-2 uplink gone
	gen --m 8,4,4 --w 1,4,4 --parallel 2 --switch-ports 24
	dmg -v drop=ft-l1-s0000:9,ft-l1-s0001:11,ft-l1-s0002:13,ft-l1-s0003:15,ft-l2-s0002:9 \
		"$work/base.net" | ren >"$work/x844p2-uneven.net"
	# the real 2014 QDR/FDR10 cluster (8 SX6036: 6 leaves, 2 spines)
	"$IBFAB" topo convert "$top/tests/fixtures/real/fdr10-qdr-sx6036-8sw-2014.ibnetdiscover" \
		--format ibsim -o "$work/real2014.net" >/dev/null
}

FT_CASES_COMPETE="x844-r2 x844-r5 x844-r10 x844-nospine x844-l2hosts x844p2-uneven
	x664-r2 x664-r5 x664-r10 x664-nospine x844t-r5 x844t-r10 t3taper t3par c844
	t8x16-r5 t8x16-r10 t8x16-nospine t2014 t2miss t2uneven real2014 ndr"
