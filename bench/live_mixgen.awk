# Mixed generations on an ibsim net file (bench/live_faults.sh --gen mixed):
# switches in file order take EDR, FDR, QDR in turn (device ids of the
# matching Mellanox parts), a host takes the generation of its first
# switch, each cable runs at the speed of its slower end, and every fourth
# switch-to-switch cable (in file order) trained at 2x; both port lines of
# a cable say the same rate, as ibsim wants.  Run as
#   awk -f live_mixgen.awk NET NET
# (two passes: names and cables first, then the rewrite).
function nm(s) { sub(/^[^"]*"/, "", s); sub(/".*/, "", s); return s }
function flush(   i) { for (i = 1; i <= nb; i++) print buf[i]; nb = 0 }
function setdev(d,   i) { for (i = 1; i <= nb; i++) if (buf[i] ~ /^devid=/) buf[i] = "devid=" d }
BEGIN { sp[0] = "EDR"; sp[1] = "FDR"; sp[2] = "QDR"; dev[0] = "0xcf08"; dev[1] = "0xc738"; dev[2] = "0xbd36"
	hdev[0] = "0x1013"; hdev[1] = "0x1003"; hdev[2] = "0x673c" }
NR == FNR {
	if (/^Switch/) { cur = nm($0); isw[cur] = 1; gen[cur] = nsw++ % 3; host = 0 }
	else if (/^(Hca|Ca|Rt)/) { cur = nm($0); host = 1 }
	else if (/^\[/ && match($0, /"[^"]*"\[[0-9]+\]/)) {
		peer = substr($0, RSTART + 1, RLENGTH - 1); sub(/".*/, "", peer)
		p = $1; gsub(/[^0-9]/, "", p); pp = substr($0, RSTART, RLENGTH); sub(/.*\[/, "", pp); sub(/\]/, "", pp)
		if (host) { if (!(cur in hgen)) hpeer[cur] = peer }
		else if (peer in isw) {
			k = (cur < peer) ? cur "[" p "]" peer "[" pp "]" : peer "[" pp "]" cur "[" p "]"
			if (!(k in width)) width[k] = (ncab++ % 4 == 3) ? "2x" : "4x"
		}
	}
	next
}
FNR == 1 { for (h in hpeer) gen[h] = gen[hpeer[h]] }
/^(vendid|devid|sysimgguid|switchguid|caguid)=/ { buf[++nb] = $0; next }
/^Switch/ { cur = nm($0); sw = 1; setdev(dev[gen[cur]]); flush() }
/^(Hca|Ca|Rt)/ { cur = nm($0); sw = 0; setdev(hdev[gen[cur]]); flush() }
/^\[/ && match($0, /"[^"]*"\[[0-9]+\]/) {
	peer = substr($0, RSTART + 1, RLENGTH - 1); sub(/".*/, "", peer)
	p = $1; gsub(/[^0-9]/, "", p); pp = substr($0, RSTART, RLENGTH); sub(/.*\[/, "", pp); sub(/\]/, "", pp)
	g = gen[cur] > gen[peer] ? gen[cur] : gen[peer]
	w = "4x"
	if (sw && (peer in isw)) { k = (cur < peer) ? cur "[" p "]" peer "[" pp "]" : peer "[" pp "]" cur "[" p "]"; w = width[k] }
	sub(/[0-9]+x[A-Z]+$/, w sp[g])
}
{ print }
