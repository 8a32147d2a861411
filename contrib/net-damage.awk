# net-damage.awk: inject random faults into an ibsim net file or an
# ibnetdiscover file, to test routing on damaged fabrics.  Give the file
# twice (the first pass learns the fabric):
#
#   awk -f contrib/net-damage.awk -v seed=S -v cables=N [-v dead=NAME | -v deadno=K] \
#       in.net in.net > out.net
#
#   seed     seed of the choice (awk's srand), the same seed drops the same cables
#   cables   unplug N switch-to-switch cables chosen at random
#   dead     remove the switch of that name (the quoted name of its node
#            line), with the hosts cabled only to it
#   deadno   the same for the K-th switch of the file (1-based)
#   degrade  N more switch-to-switch cables (after the unplugged ones, same
#            shuffle) keep their cable but run at `rate` (default 1xEDR; e.g.
#            4xSDR): a cable trained below its rate, on both port lines
#            (ibsim net files: the trailing width x speed of the port line)
#
# The attribute lines before a node line (vendid=, switchguid=, ...) go with
# their node.
function name(l) { sub(/^[^"]*"/, "", l); sub(/".*/, "", l); return l }
function portno(l) { return substr(l, 2, index(l, "]") - 2) + 0 }
NR == FNR {
	if (/^Switch/) { cur = name($0); isw[cur] = 1; sw[++ns] = cur; next }
	if (/^(Hca|Ca)/) { cur = name($0); next }
	if (/^\[/ && match($0, /"[^"]*"\[[0-9]+\]/)) {
		p = portno($1)
		peer = substr($0, RSTART + 1, RLENGTH - 1); pp = peer
		sub(/".*/, "", peer); sub(/.*\[/, "", pp); sub(/\].*/, "", pp)
		if (!(cur in isw)) { hostsw[cur] = hostsw[cur] " " peer; next }
		if (cur < peer) { a[++na] = cur SUBSEP p SUBSEP peer SUBSEP (pp + 0); ap[na] = peer }
	}
	next
}
FNR == 1 {
	# switches can be listed after their peers: keep switch-to-switch
	# cables once every switch is known
	for (i = 1; i <= na; i++) if (ap[i] in isw) c[++m] = a[i]
	srand(seed + 0)
	for (i = m; i > 1; i--) { j = int(rand() * i) + 1; t = c[i]; c[i] = c[j]; c[j] = t }
	for (i = 1; i <= cables + 0 && i <= m; i++) {
		split(c[i], f, SUBSEP); cut[f[1], f[2]] = 1; cut[f[3], f[4]] = 1
	}
	for (; i <= cables + degrade && i <= m; i++) {
		split(c[i], f, SUBSEP); slow[f[1], f[2]] = 1; slow[f[3], f[4]] = 1
	}
	if (rate == "") rate = "1xEDR"
	if (deadno + 0 > 0 && deadno + 0 <= ns) dead = sw[deadno + 0]
	if (dead != "") {
		gone[dead] = 1
		for (h in hostsw) if (hostsw[h] == " " dead) gone[h] = 1
	}
}
/^[a-z]+=/ { hdr = hdr $0 "\n"; next }
/^(Switch|Hca|Ca)/ { cur = name($0); skip = (cur in gone); if (!skip) printf "%s", hdr; hdr = "" }
skip { next }
/^\[/ {
	if ((cur, portno($1)) in cut) next
	if ((cur, portno($1)) in slow) sub(/[0-9]+x[A-Z0-9]+[ \t]*$/, rate)
	if (match($0, /"[^"]*"\[[0-9]+\]/)) {
		peer = substr($0, RSTART + 1, RLENGTH - 1); sub(/".*/, "", peer)
		if (peer in gone) next
	}
}
{ print }
