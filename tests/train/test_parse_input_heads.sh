#!/bin/bash
# CoNLL-U given to qkv tag with HEAD and DEPREL already filled: a parser replaces them whatever
# they were (a cycle, a HEAD out of range or not a number, two roots: the input's tree is never
# read) and writes one tree per sentence (one root, no cycle, heads in range) with DEPS "_" (the
# input's enhanced graph belongs to another tree); a model without a
# parser (a tagger of every column but the tree) writes HEAD, DEPREL and DEPS as read.
source "$(dirname "$0")/common.sh"
S=data/ud_english_ewt_sample
R=$SCRATCH/run
"$QKV_BIN" train configs/ud_ewt_parse.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set train.max_steps=4 --set train.eval_every=4 \
    --set train.threads=1 "${PARSE_SMALL[@]}" --out "$R" >"$R.log" 2>&1 || { cat "$R.log" >&2; fail "qkv train"; }
w() { printf '%s\t%s\t_\t_\t_\t_\t%s\t%s\t%s\t_\n' "$@"; }
{
    printf '# text = a b c\n'; w 1 a 2 dep _; w 2 b 1 dep _; w 3 c 9 dep 9:dep; printf '\n'
    printf '# text = d e\n'; w 1 d x foo _; w 2 e 0 root 0:root; printf '\n'
    printf '# text = f g\n'; w 1 f 0 root _; w 2 g 0 root _; printf '\n'
} >"$SCRATCH/filled.conllu"
"$QKV_BIN" tag "$R/checkpoints/last.h5" "$SCRATCH/filled.conllu" >"$SCRATCH/pred.conllu" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "qkv tag with a parser on filled HEAD and DEPREL"; }
check_trees "$SCRATCH/pred.conllu"
[ "$(grep -c '^[0-9]' "$SCRATCH/pred.conllu")" = 7 ] || fail "words lost"
[ "$(grep '^[0-9]' "$SCRATCH/pred.conllu" | cut -f9 | sort -u)" = _ ] || fail "the input's DEPS kept beside a new tree"
# the shipped model (several columns and a parser) likewise
env -u QKV_MODEL -u QKV_MODEL_DIR "$QKV_BIN" tag --format conllu "$SCRATCH/filled.conllu" >"$SCRATCH/en.conllu" ||
    fail "qkv tag with the shipped model on filled HEAD and DEPREL"
check_trees "$SCRATCH/en.conllu"
[ "$(grep '^[0-9]' "$SCRATCH/en.conllu" | cut -f9 | sort -u)" = _ ] || fail "the shipped model kept the input's DEPS"
T=$SCRATCH/tagger
"$QKV_BIN" train configs/ud_ewt_full.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set train.max_steps=4 --set train.eval_every=4 \
    --set train.threads=1 --set "data.tags=[upos, xpos]" --set model.d_model=32 --set model.d_ff=64 --set model.n_layers=1 \
    --out "$T" >"$T.log" 2>&1 || { cat "$T.log" >&2; fail "qkv train (tagger)"; }
"$QKV_BIN" tag "$T/checkpoints/last.h5" "$SCRATCH/filled.conllu" >"$SCRATCH/tagged.conllu" ||
    fail "qkv tag without a parser"
cut -f4 "$SCRATCH/tagged.conllu" | grep -qv '^_\?$' || fail "the tagger wrote no UPOS: the check below proves nothing"
cmp -s <(cut -f1,2,7,8,9 "$SCRATCH/filled.conllu") <(cut -f1,2,7,8,9 "$SCRATCH/tagged.conllu") ||
    fail "a model without a parser changed HEAD, DEPREL or DEPS"
echo ok
