# Shared by bench/stable_chain.sh and bench/stable_grow.sh (sourced, not run):
# their options, their three cases and the switch each seed takes out.
#   stable_args "$@"          sets SEEDS (default 1-20), CASES (default torus tree sf7) and
#                             STEPS (--steps N, default 2: the repair steps of stable_chain.sh)
#   stable_gen CASE FILE      writes the case's healthy fabric to FILE, sets E (the engine);
#                             returns 1 for an unknown case
#   stable_switch CASE SEED   prints the number of the switch (deadno of
#                             contrib/net-damage.awk) that seed takes out
# shellcheck shell=bash disable=SC2034 # SEEDS, CASES and E are read by the scripts that source this
stable_args() {
	SEEDS=$(seq 1 20)
	CASES=
	STEPS=2
	while [ $# -gt 0 ]; do
		case $1 in
		--seeds) SEEDS=$2; shift 2 ;;
		--steps) STEPS=$2; shift 2 ;;
		*) CASES="$CASES $1"; shift ;;
		esac
	done
	CASES=${CASES:-torus tree sf7}
}

stable_gen() {
	case $1 in
	torus) E=minimal; "$IBFAB" topo gen torus --dims 4,3 --hosts 1 -o "$2" ;;
	tree) E=dmodk; "$IBFAB" topo gen fattree --m 8,8 --w 1,4 --parallel 2 -o "$2" ;;
	sf7) E=layered; "$IBFAB" topo gen slimfly --q 7 --lmc 1 -o "$2" ;;
	*) echo "unknown case $1" >&2; return 1 ;;
	esac
}

stable_switch() {
	case $1 in
	torus) echo $((1 + $2 % 12)) ;;
	tree) echo $((9 + $2 % 4)) ;;
	sf7) echo $((1 + 7 * $2 % 98)) ;;
	esac
}
