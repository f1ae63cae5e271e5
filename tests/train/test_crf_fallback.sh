#!/bin/bash
# A sentence for which a constrained CRF has no allowed tag sequence: a model whose only tags are
# B-a and E-a (BIOES rules: B-a only before I-a or E-a, never last; E-a only after B-a or I-a)
# can tag a sentence of two words and no other length. qkv tag writes every sentence: those
# with no allowed path decoded without the constraints, with one warning naming the line of the
# first and their number; qkv eval scores the file too. The same with several heads: a model
# whose first column (UPOS) has only those tags and a second head over FEATS writes every
# column of every sentence, and qkv eval scores every word of both heads.
source "$(dirname "$0")/common.sh"
# train_be TRAIN DATA_KEYS: a constrained CRF trained 2 steps on TRAIN into $SCRATCH/run (its
# config $SCRATCH/be.yaml, DATA_KEYS more keys of its data section).
train_be() {
    rm -rf "$SCRATCH/run"
    cat >"$SCRATCH/be.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, output: crf, crf_constrained: true}
data: {train: $1, batch_tokens: 300$2}
train: {max_steps: 2, word_dropout: 0}
log: {every_steps: 1, progress: off, plot: false}
EOC
    "$QKV_BIN" train "$SCRATCH/be.yaml" --out "$SCRATCH/run" >/dev/null 2>"$SCRATCH/train.log" ||
        { cat "$SCRATCH/train.log"; fail "qkv train"; }
}
# tag_be IN COLUMN: qkv tag and qkv eval of IN (sentences of 2, 1, 2 and 3 words: the 2nd, on
# line 4, and the 4th have no allowed path) with $SCRATCH/run's model: every word tagged into
# $SCRATCH/out, the two-word sentences' constrained path in column COLUMN, one warning.
tag_be() {
    local ckpt=$SCRATCH/run/checkpoints/last.h5 name=${1##*/}
    "$QKV_BIN" tag "$ckpt" "$1" >"$SCRATCH/out" 2>"$SCRATCH/tag.err" ||
        { cat "$SCRATCH/tag.err"; fail "qkv tag lost the output"; }
    [ "$(grep -c . "$SCRATCH/out")" = 8 ] || { cat "$SCRATCH/out"; fail "not every word tagged"; }
    [ "$(sed -n 1,2p "$SCRATCH/out" | cut -f"$2" | tr '\n' ' ')" = "B-a E-a " ] || fail "constrained path of sentence 1"
    [ "$(sed -n 6,7p "$SCRATCH/out" | cut -f"$2" | tr '\n' ' ')" = "B-a E-a " ] || fail "constrained path of sentence 3"
    grep -qF "$name:4: 2 sentences have no tag sequence model.crf_constrained allows" "$SCRATCH/tag.err" ||
        { cat "$SCRATCH/tag.err"; fail "no warning naming the line"; }
    grep -qF "tagged without the constraints" "$SCRATCH/tag.err" || fail "the warning does not say how they were tagged"
    "$QKV_BIN" eval "$ckpt" "$1" >"$SCRATCH/eval.txt" 2>&1 || { cat "$SCRATCH/eval.txt"; fail "qkv eval"; }
    grep -q "of 8 words" "$SCRATCH/eval.txt" || { cat "$SCRATCH/eval.txt"; fail "eval did not score every word"; }
}

# one head, a file of two columns (FORM, tag); the input's gold tags are valid BIOES (a file's
# tags are in one scheme)
for i in $(seq 40); do printf 'x\tB-a\ny\tE-a\n\nz\tB-a\nw\tE-a\n\n'; done >"$SCRATCH/train.conll"
train_be "$SCRATCH/train.conll" ""
printf 'x\tB-a\ny\tE-a\n\nlone\tS-a\n\nz\tB-a\nw\tE-a\n\nt\tB-a\nh\tE-a\nr\tS-a\n\n' >"$SCRATCH/in.conll"
tag_be "$SCRATCH/in.conll" 2
ckpt=$SCRATCH/run/checkpoints/last.h5
# training on such a sentence (its B- ends a chunk, which the file's BIOES forbids): the error
# names its file and line (not its place in a batch)
{ cat "$SCRATCH/train.conll"; printf 'lone\tB-a\n\n'; } >"$SCRATCH/bad.conll"
line=$(grep -n '^lone' "$SCRATCH/bad.conll" | cut -d: -f1)
expect_error "bad.conll:$line: tag \"B-a\" ends a chunk with B- or I- (BIO, IOB1), which BIOES forbids" \
    "$QKV_BIN" train "$SCRATCH/be.yaml" --out "$SCRATCH/bad" --set data.train="$SCRATCH/bad.conll"
grep -q "tokens\|sentence [0-9]" "$SCRATCH/err" && { cat "$SCRATCH/err"; fail "the error names a place in a batch"; }
# qkv attention decodes one sentence: the same error, without an index
expect_error "crf viterbi: the sentence has no tag sequence" \
    "$QKV_BIN" attention "$ckpt" --sentence "lone" --out "$SCRATCH/att.png"

# several heads: UPOS with the B-a and E-a tags, FEATS
word() { printf '%d\t%s\t_\t%s\t_\t%s\t_\t_\t_\t_\n' "$@"; } # ID FORM UPOS FEATS
for i in $(seq 40); do word 1 x B-a F=x; word 2 y E-a F=y; echo; done >"$SCRATCH/train.conllu"
train_be "$SCRATCH/train.conllu" ", tags: [upos, feats]"
{ word 1 x B-a F=x; word 2 y E-a F=y; echo; word 1 lone S-a F=x; echo; word 1 x B-a F=x; word 2 y E-a F=y; echo
  word 1 t B-a F=x; word 2 h E-a F=x; word 3 r S-a F=y; echo; } >"$SCRATCH/in.conllu"
tag_be "$SCRATCH/in.conllu" 4
awk -F'\t' 'NF == 10 && ($4 == "_" || $6 == "_") { exit 1 }' "$SCRATCH/out" ||
    { cat "$SCRATCH/out"; fail "a word without its UPOS or FEATS"; }
exit 0
