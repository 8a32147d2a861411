#!/usr/bin/env bash
# End to end, no simulator: the command line on small hand-written dumps of
# irregular fabrics (a host cabled to two switches, two cables between two
# switches one of them at 1x, a switch without a LID yet, a port GUID two
# adapters report), each check a defect found by QA on such input.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK
rc() { "$@" >"$W/out" 2>"$W/err"; echo $?; }

# two switches with two cables between them (port 6 trained at 1xSDR);
# hostA is cabled to both switches, hostB twice to swA
cat >"$W/dual.ibnd" <<'NET'
#
# Topology file: generated on Fri Nov 27 06:00:00 2026
#

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90200001000
switchguid=0x2c90200001000(2c90200001000)
Switch	8 "S-0002c90200001000"		# "swA" enhanced port 0 lid 1 lmc 0
[1]	"H-0002c90300000a00"[1](2c90300000a01) 		# "hostA mlx4_0" lid 10 4xEDR
[2]	"H-0002c90300000b00"[1](2c90300000b01) 		# "hostB mlx4_0" lid 12 4xEDR
[3]	"H-0002c90300000b00"[2](2c90300000b02) 		# "hostB mlx4_0" lid 13 4xEDR
[5]	"S-0002c90200002000"[5]		# "swB" lid 2 4xEDR
[6]	"S-0002c90200002000"[6]		# "swB" lid 2 1xSDR
[7]	"H-0002c90300000c00"[1](2c90300000c01) 		# "hostC mlx4_0" lid 14 4xEDR

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90200002000
switchguid=0x2c90200002000(2c90200002000)
Switch	8 "S-0002c90200002000"		# "swB" enhanced port 0 lid 2 lmc 0
[1]	"H-0002c90300000a00"[2](2c90300000a02) 		# "hostA mlx4_0" lid 11 4xEDR
[2]	"H-0002c90300000d00"[1](2c90300000d01) 		# "hostD mlx4_0" lid 15 4xEDR
[5]	"S-0002c90200001000"[5]		# "swA" lid 1 4xEDR
[6]	"S-0002c90200001000"[6]		# "swA" lid 1 1xSDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000a03
caguid=0x2c90300000a00
Ca	2 "H-0002c90300000a00"		# "hostA mlx4_0"
[1](2c90300000a01) 	"S-0002c90200001000"[1]		# lid 10 lmc 0 "swA" lid 1 4xEDR
[2](2c90300000a02) 	"S-0002c90200002000"[1]		# lid 11 lmc 0 "swB" lid 2 4xEDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000b03
caguid=0x2c90300000b00
Ca	2 "H-0002c90300000b00"		# "hostB mlx4_0"
[1](2c90300000b01) 	"S-0002c90200001000"[2]		# lid 12 lmc 0 "swA" lid 1 4xEDR
[2](2c90300000b02) 	"S-0002c90200001000"[3]		# lid 13 lmc 0 "swA" lid 1 4xEDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000c03
caguid=0x2c90300000c00
Ca	2 "H-0002c90300000c00"		# "hostC mlx4_0"
[1](2c90300000c01) 	"S-0002c90200001000"[7]		# lid 14 lmc 0 "swA" lid 1 4xEDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300000d03
caguid=0x2c90300000d00
Ca	2 "H-0002c90300000d00"		# "hostD mlx4_0"
[1](2c90300000d01) 	"S-0002c90200002000"[2]		# lid 15 lmc 0 "swB" lid 2 4xEDR
NET
D=$W/dual.ibnd

# dmodk on a fabric that is no fat tree: the reason once on stderr (the
# engine logged it as an error and the caller printed it again)
r=$(rc "$IBFAB" route --topology "$D" --engine dmodk -o "$W/dk.lfts")
check "dmodk on two switches side by side: exit 1, nothing written" sh -c "test $r = 1 && test ! -e '$W/dk.lfts'"
check "... 'not a fat tree' said once (was twice)" test "$(grep -c 'not a fat tree' "$W/err")" = 1
done_testing
