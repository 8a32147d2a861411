# ft-damage.awk: inject faults into an ibsim net file (e.g. from
# `ibfab topo gen fattree ... --format ibsim`), to test routing on damaged
# and irregular trees.
#
#   awk -f contrib/ft-damage.awk -v drop=SW:PORT,... -v spinehosts=SW:PORT,... \
#       -v dual=SW:P1:P2 in.net > out.net
#
#   drop        unplug these switch ports; the peer's line goes too, and a
#               host left without any cable is removed
#   spinehosts  cable a new 1-port host ("shN") to each of these switch ports
#   dual        cable a new 2-port host ("dualhost") to two ports of one switch
#               (spinehosts and dual need free ports: generate the tree with
#               --m/--w and --switch-ports K above the ports it uses)
#
# Switch names are the net file's ("ft-l1-s0002"); rename afterwards (sed)
# when the test needs names a real fabric would have.
BEGIN {
	n = split(drop, d, ",")
	for (i = 1; i <= n; i++) { split(d[i], a, ":"); cut[a[1] ":" a[2]] = 1 }
}
{ line[NR] = $0 }
function portnum(l) { return substr(l, 2, index(l, "]") - 2) }
END {
	# the peers of unplugged ports, and the links each node keeps
	for (i = 1; i <= NR; i++) {
		l = line[i]
		if (l ~ /^(Switch|Ca)/) { split(l, f, "\""); cur = f[2]; keep[cur] += 0 }
		else if (l ~ /^\[/ && cur != "") {
			split(l, f, "\""); peer = f[2]
			pp = substr(f[3], 2, index(f[3], "]") - 2)
			if ((cur ":" portnum(l)) in cut)
				cut[peer ":" pp] = 1
		}
	}
	for (i = 1; i <= NR; i++) {
		l = line[i]
		if (l ~ /^(Switch|Ca)/) { split(l, f, "\""); cur = f[2] }
		else if (l ~ /^\[/ && !((cur ":" portnum(l)) in cut)) keep[cur]++
	}
	# print, dropping unplugged lines and hosts left with no cable
	cur = ""; skip = 0
	for (i = 1; i <= NR; i++) {
		l = line[i]
		if (l ~ /^vendid/) {
			for (j = i; j <= NR && line[j] !~ /^(Switch|Ca)/; j++) ;
			split(line[j], f, "\"")
			skip = line[j] ~ /^Ca/ && !keep[f[2]]
		}
		if (skip) continue
		if (l ~ /^(Switch|Ca)/) { split(l, f, "\""); cur = f[2] }
		if (l ~ /^\[/ && ((cur ":" portnum(l)) in cut)) continue
		print l
		if (l ~ /^Switch/) {
			m = split(spinehosts, s, ",")
			for (k = 1; k <= m; k++) {
				split(s[k], a, ":")
				if (a[1] == cur) printf "[%s]\t\"sh%d\"[1]\n", a[2], k
			}
			if (dual != "") {
				split(dual, a, ":")
				if (a[1] == cur) printf "[%s]\t\"dualhost\"[1]\n[%s]\t\"dualhost\"[2]\n", a[2], a[3]
			}
		}
	}
	m = split(spinehosts, s, ",")
	for (k = 1; k <= m; k++) {
		split(s[k], a, ":")
		printf "\nvendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c9010%07x\ncaguid=0x2c9010%07x\n", 16711680 + k, 16711680 + k
		printf "Ca\t1 \"sh%d\"\n[1]\t\"%s\"[%s]\n", k, a[1], a[2]
	}
	if (dual != "") {
		split(dual, a, ":")
		printf "\nvendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c9010ffff00\ncaguid=0x2c9010ffff00\n"
		printf "Ca\t2 \"dualhost\"\n[1]\t\"%s\"[%s]\n[2]\t\"%s\"[%s]\n", a[1], a[2], a[1], a[3]
	}
}
