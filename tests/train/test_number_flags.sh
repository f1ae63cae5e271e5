#!/bin/bash
# Every number given on the command line goes through one overflow-checked parser
# (train/cli/cli.h: qkv_cli_whole): a whole number that does not fit, or that would wrap
# around to a small one in a 32-bit int (sscanf's %d read `--query 4294967298,1` as row 2 and
# `--size 4294967896x800` as 600x800), is a usage error (exit 2) naming the option.
#
# The test walks every option of every command listed by `qkv --help`: each option's
# metavariable (from the command's --help) is classified below as a form of number or as not
# a number; an option with a metavariable the table does not know fails the test, so a new
# numeric option cannot be left out.
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"

# Values each form of number must refuse.
WHOLE=("18446744073709551617" "12abc" " 5")
declare -A BAD_VALUES=(
    [whole]="$(printf '%s\n' "${WHOLE[@]}")"
    [pair]=$'4294967298,1\n1,4294967298\n1,2,3'
    [size]=$'4294967896x800\n800x4294967896'
    [head]=$'4294967296\n-1'
    [list]=$'150,4294967446\n150,+5'
    [real]=$'nan\n1e999'
)
# metavariable -> form of number ("-" for an option whose value is not a number)
declare -A FORM=(
    [N]=whole [S]=whole [K]=whole [L]=whole [D]=whole [TOKENS]=whole [BYTES]=whole [SECONDS]=whole
    ["ROW,COL|cls"]=pair [WxH]=size [WIDTHxHEIGHT]=size ["H|all"]=head
    ["R,.."]=list ["P,.."]=list [DB]=real
    [FILE]=- [RUN_DIR]=- [CHECKPOINT]=- ["section.key=value"]=- [OUT.h5]=- [OUT.png]=- [SEG.h5]=-
    [MODEL]=- [TEXT]=- [TRAIN]=- [F]=- ["V,.."]=- ["FILE.png|FILE.svg"]=- [DIR]=- [NAME]=- [RUN]=-
    [CONFIG]=- [FILE.h5]=- [PATH]=- [LIST]=- [COLUMNS]=- [KEY]=- [ADDR]=-
)
# command -> the arguments it needs besides the option (files that do not exist: a number that
# is accepted by mistake then fails on them with exit 1, not the usage error's 2)
declare -A ARGS=(
    [train]="$SCRATCH/none.yaml" [eval]="$SCRATCH/none.h5 $SCRATCH/none.conllu"
    [tag]="$SCRATCH/none.h5 $SCRATCH/none.conllu" [gradcheck]="$SCRATCH/none.yaml" [config]="$SCRATCH/none.yaml"
    [synth]="" [speech]="$SCRATCH/none.conllu --out $SCRATCH/out.h5" [stats]="$SCRATCH/none.conllu"
    [plot]="$SCRATCH/norun" [attention]="$SCRATCH/none.h5" [parse-draw]="$SCRATCH/none.h5 --sentence a"
    [positions]="$SCRATCH/none.h5" [export]="$SCRATCH/none.h5 --out $SCRATCH/out.h5" [serve]="$SCRATCH/none.h5" [board]="$SCRATCH/norun"
)
commands=$("$QKV_BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo "$commands" | wc -l)" -ge 13 ] || fail "qkv --help lists too few commands: $commands"
checked=0
for cmd in $commands; do
    [ -n "${ARGS[$cmd]+set}" ] || fail "command $cmd has no row in this test's ARGS table"
    # the options of the command and their metavariables, from --help
    # "  --opt META  help": one space before a metavariable; a flag has two or more before its help
    opts=$("$QKV_BIN" "$cmd" --help | sed -nE 's/^  (--[a-z0-9-]+) ([^ ]+)  .*/\1 \2/p')
    while read -r opt meta; do
        [ -n "$opt" ] || continue
        [[ $meta =~ ^[a-z0-9-]+(\|[a-z0-9-]+)+$ ]] && continue # a choice (conllu|text)
        [ -n "${FORM[$meta]+set}" ] || fail "qkv $cmd $opt $meta: the metavariable is not in this test's FORM table"
        form=${FORM[$meta]}
        [ "$form" != - ] || continue
        if [ "$cmd" = speech ] && [ "${QKV_SPEECH_BUILT:-0}" != 1 ] && [ "$form" != whole ]; then
            continue # parsed only by a build with speech synthesis
        fi
        while IFS= read -r value; do
            status=0
            # shellcheck disable=SC2086
            "$QKV_BIN" "$cmd" ${ARGS[$cmd]} "$opt" "$value" >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null || status=$?
            if [ "$status" != 2 ] || ! grep -qF -- "$opt" "$SCRATCH/err"; then
                head -3 "$SCRATCH/err" >&2
                fail "qkv $cmd $opt '$value': exit $status, not a usage error naming $opt"
            fi
            checked=$((checked + 1))
        done <<<"${BAD_VALUES[$form]}"
    done <<<"$opts"
done
[ "$checked" -ge 60 ] || fail "only $checked numeric values checked"
echo "ok: $checked out-of-range or malformed numbers refused as usage errors, every numeric option of every command"
