#!/usr/bin/env bash
# The option parser every subcommand shares (train/cli/cli.c): --help from the command's table,
# --opt value and --opt=value, and every usage error exits 2 with "qkv CMD: what is wrong" and
# the usage line: unknown option (with a near name), missing value, bad whole number, a choice
# not among the choices, a value given to a flag, a missing argument, one argument too many.
. "$(dirname "$0")/common.sh"

# usage_error EXPECTED CMD ARGS...: exit status 2, the message and the command's usage line.
usage_error() {
    local want=$1 cmd=$2 status=0
    shift 2
    "$QKV_BIN" "$cmd" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || status=$?
    [ "$status" = 2 ] || { cat "$SCRATCH/err" >&2; fail "qkv $cmd $*: exit $status, expected 2"; }
    grep -qF -- "qkv $cmd: $want" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "qkv $cmd $*: no '$want'"; }
    grep -q "^usage: qkv $cmd " "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "qkv $cmd $*: no usage line"; }
    [ ! -s "$SCRATCH/out" ] || fail "qkv $cmd $*: wrote to stdout"
}

# --help: exit 0 on stdout, and every option of the usage line has its own line of help.
for cmd in train eval tag gradcheck config stats synth plot attention; do
    for h in --help -h; do
        "$QKV_BIN" $cmd $h >"$SCRATCH/help" || fail "qkv $cmd $h"
        head -n 1 "$SCRATCH/help" | grep -q "^usage: qkv $cmd" || fail "qkv $cmd $h: no usage line"
        for opt in $(sed -n '1,/^$/p' "$SCRATCH/help" | grep -o -- '\[--[a-z-]*\|--sentence' | tr -d '['); do
            grep -q "^  $opt[ =]" "$SCRATCH/help" || { cat "$SCRATCH/help"; fail "qkv $cmd --help: no line for $opt"; }
        done
    done
done
"$QKV_BIN" train --help | grep -qF -- "--stop-at-step N" || fail "train --help: --stop-at-step"
"$QKV_BIN" train --help | grep -qF "is removed first" || fail "train --help: --force's continued lines"

# --opt=value and --opt value take the same value
"$QKV_BIN" synth --sentences=3 --seed=7 >"$SCRATCH/a.conllu" || fail "synth --sentences=3 --seed=7"
"$QKV_BIN" synth --sentences 3 --seed 7 >"$SCRATCH/b.conllu" || fail "synth --sentences 3 --seed 7"
cmp -s "$SCRATCH/a.conllu" "$SCRATCH/b.conllu" || fail "--opt=value and --opt value differ"
[ "$(grep -c '^# sent_id' "$SCRATCH/a.conllu")" = 3 ] || fail "synth --sentences=3"
"$QKV_BIN" stats "$SCRATCH/a.conllu" --format=conllu | grep -q "^sentences: 3$" || fail "stats --format=conllu"

usage_error "unknown option '--frce', did you mean '--force'?" train tests/train/synthetic.yaml --frce
usage_error "unknown option '--jsn=1', did you mean '--json'?" eval a.h5 b.conllu --jsn=1
usage_error "unknown option '--bogus'" plot runs/x --bogus
usage_error "--seed needs a value" synth --seed
usage_error "--out needs a value" train tests/train/synthetic.yaml --out
usage_error "--sentences takes a whole number from 1 up, got '0'" synth --sentences 0
usage_error "--sentences takes a whole number from 1 up, got '5x'" synth --sentences=5x
usage_error "--stop-at-step takes a whole number from 1 up, got '-3'" train tests/train/synthetic.yaml --stop-at-step -3
usage_error "--budget takes a whole number from 1 to 1000000000" stats "$SCRATCH/a.conllu" --budget 0
usage_error "--format is conllu or text, not 'txt'; did you mean 'text'?" tag a.h5 --format txt
usage_error "--format is auto, conllu or columns, not 'xml'" stats "$SCRATCH/a.conllu" --format xml
usage_error "--force takes no value" train tests/train/synthetic.yaml --force=yes
usage_error "missing CONFIG" gradcheck --samples 2
usage_error "missing FILE" eval a.h5
usage_error "missing FILE" stats
usage_error "missing RUN_DIR" plot --force
usage_error "--sentence and --image: give one" attention a.h5 --sentence "a b" --image x-images-idx3-ubyte
usage_error "unexpected argument 'b.yaml' (qkv config takes CONFIG)" config a.yaml b.yaml
usage_error "unexpected argument 'c' (qkv eval takes CHECKPOINT FILE)" eval a b c
usage_error "unexpected argument 'x' (qkv synth takes options only)" synth x
usage_error "--head is a head number from 0 or 'all'" attention a.h5 --sentence "a b" --head=two
usage_error "--out needs a folder name" train tests/train/synthetic.yaml --out=
# after "--" an argument starting with '-' is positional; "-" always is (tag reads stdin)
usage_error "unexpected argument '--help' (qkv synth takes options only)" synth -- --help
usage_error "unexpected argument '-' (qkv synth takes options only)" synth -
echo "cli options: ok"
