#!/usr/bin/env bash
# The bash completion (contrib/bash-completion/ibfab) against the commands'
# own --help: every option a help text lists is offered, nothing else is, and
# the fixed word lists name what the commands take.
. "$(dirname "$0")/lib.sh"
mk_workdir
W=$WORK

# complete WORD... : what the completion offers for the last word (may be
# empty), one per line; the helpers of the bash-completion package are
# stubbed (files are shown as <FILES>)
complete_words() {
	IBFAB_BIN=$IBFAB COMPL=$top_srcdir/contrib/bash-completion/ibfab bash -c '
		_init_completion() { words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
			cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
		_filedir() { COMPREPLY+=("<FILES>"); }
		complete() { :; }
		. "$COMPL"
		COMP_WORDS=("$IBFAB_BIN" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		_ibfab
		printf "%s\n" "${COMPREPLY[@]}"' complete "$@"
}

# the options a help text lists: at the start of a line ("  --x", "  -o, --out")
# and in the usage lines ("[--x N]", "(--a F | --b G)")
help_opts() {
	"$IBFAB" "$@" --help 2>&1 | awk '
		/^Usage:/ { u = 1 } /^$/ { u = 0 }
		{ for (i = 1; i <= NF; i++) {
			w = $i; gsub(/^[[(]+/, "", w); gsub(/[][(),|]+$/, "", w)
			if (w !~ /^--?[a-zA-Z][a-zA-Z0-9-]*$/) continue
			if (u || i == 1 || (i == 2 && $1 ~ /^-[a-zA-Z],$/)) print w } }' | sort -u
}

for c in "topo gen" "topo info" "topo convert" "topo links" "route" "route check" \
	"route stats" "route congestion" "route diff" "route trace" "deadlock verify" \
	"cabling slimfly" "cabling from-topology" "cabling sheets" "cabling render" "validate" \
	"rail info" "rail check" "rail registry" "rail path" "rail cache" "sim flow" "sim packet"; do
	# shellcheck disable=SC2086
	complete_words $c - | sort -u >"$W/offered"
	# shellcheck disable=SC2086
	help_opts $c >"$W/listed"
	check "completion of 'ibfab $c -': every option its --help lists is offered" \
		sh -c "test -s '$W/listed' && ! comm -13 '$W/offered' '$W/listed' | grep ."
	# shellcheck disable=SC2086
	"$IBFAB" $c --help >"$W/help" 2>&1
	check "... and every option offered is in its --help" \
		sh -c "! comm -23 '$W/offered' '$W/listed' | while read -r o; do grep -q -e \"\$o\" '$W/help' || echo \"\$o\"; done | grep ."
done

complete_words route - >"$W/offered"
check "route: no option of another program quoted in the help (opensm -R file -U)" \
	sh -c "! grep -qx -e -R -e -U '$W/offered'"

# the families of topo gen: those its help names
complete_words topo gen "" | sort >"$W/fam"
"$IBFAB" topo --help | sed -n 's/.*generate a fabric (\(.*\)).*/\1/p' | tr -d ' ' | tr , '\n' | sort >"$W/fam_help"
check "topo gen: the families offered are those 'ibfab topo --help' names" \
	sh -c "test -s '$W/fam_help' && diff '$W/fam' '$W/fam_help'"

# values: each one offered is taken
r=$(complete_words deadlock apply --scheme "" | tr '\n' ' ')
check "deadlock apply --scheme offers dfsssp coloring auto" test "$r" = "dfsssp coloring auto "
r=$(complete_words sim packet --traffic "" | tr '\n' ' ')
check "sim packet --traffic offers uniform and the flow patterns" \
	sh -c "case '$r' in 'uniform '*'a2a '*'adversarial '*file:*) exit 0;; esac; exit 1"
"$IBFAB" topo gen torus --dims 3 -o "$W/ring.ibnd"
"$IBFAB" route -q --topology "$W/ring.ibnd" -o "$W/ring.dump"
for p in $(complete_words sim packet --traffic ""); do
	case $p in file:) continue ;; esac
	case $p in *:) p=${p}1 ;; esac
	"$IBFAB" sim packet --topology "$W/ring.ibnd" --lfts "$W/ring.dump" --traffic "$p" \
		--load 0.1 --warmup 1us --measure 1us -q >/dev/null 2>"$W/err"
	# 2: not taken; 1 is a pattern with no flow between hosts here (mix:C5)
	[ $? != 2 ] || echo "$p" >>"$W/bad_traffic"
done
check "... and sim packet takes every one of them (no usage error)" test ! -s "$W/bad_traffic"

# formats: --from (read) offers only formats ibfab reads, --format adds json
for f in $(complete_words topo convert x --from ""); do
	"$IBFAB" topo convert "$W/ring.ibnd" --from "$f" --format ibsim -o "$W/x.net" >/dev/null 2>&1
	[ $? != 2 ] || echo "$f" >>"$W/bad_fmt"
done
check "topo convert --from: every format offered is taken (no usage error)" test ! -s "$W/bad_fmt"
r=$(complete_words topo convert x --from "" | grep -cx json)
check "topo convert --from does not offer json (written, never read)" test "$r" = 0
r=$(complete_words topo convert x --format "" | grep -cx json)
check "topo convert --format offers json" test "$r" = 1
done_testing
