#!/bin/bash
# A sentence for which a constrained CRF has no allowed tag sequence: a model whose only tags are
# B-a and E-a (BIOES rules: B-a only before I-a or E-a, never last; E-a only after B-a or I-a)
# can tag a sentence of two words and no other length. qkv tag writes every sentence: those
# with no allowed path decoded without the constraints, with one warning naming the line of the
# first and their number; qkv eval scores the file too.
source "$(dirname "$0")/common.sh"
for i in $(seq 40); do printf 'x\tB-a\ny\tE-a\n\nz\tB-a\nw\tE-a\n\n'; done >"$SCRATCH/train.conll"
cat >"$SCRATCH/be.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, output: crf, crf_constrained: true}
data: {train: $SCRATCH/train.conll, batch_tokens: 300}
train: {max_steps: 2, word_dropout: 0}
log: {every_steps: 1, progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/be.yaml" --out "$SCRATCH/run" >/dev/null 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train"; }
ckpt=$SCRATCH/run/checkpoints/last.h5
# sentences of 2, 1, 2 and 3 words: the 2nd (line 4) and the 4th have no allowed path
# (their gold tags valid BIOES: a file's tags are in one scheme)
printf 'x\tB-a\ny\tE-a\n\nlone\tS-a\n\nz\tB-a\nw\tE-a\n\nt\tB-a\nh\tE-a\nr\tS-a\n\n' >"$SCRATCH/in.conll"
"$QKV_BIN" tag "$ckpt" "$SCRATCH/in.conll" >"$SCRATCH/out.conll" 2>"$SCRATCH/tag.err" ||
    { cat "$SCRATCH/tag.err"; fail "qkv tag lost the output"; }
[ "$(grep -c . "$SCRATCH/out.conll")" = 8 ] || { cat "$SCRATCH/out.conll"; fail "not every word tagged"; }
# the two-word sentences keep the constrained path
[ "$(sed -n 1,2p "$SCRATCH/out.conll" | cut -f2 | tr '\n' ' ')" = "B-a E-a " ] || fail "constrained path of sentence 1"
[ "$(sed -n 6,7p "$SCRATCH/out.conll" | cut -f2 | tr '\n' ' ')" = "B-a E-a " ] || fail "constrained path of sentence 3"
grep -qF "in.conll:4: 2 sentences have no tag sequence model.crf_constrained allows" "$SCRATCH/tag.err" ||
    { cat "$SCRATCH/tag.err"; fail "no warning naming the line"; }
grep -qF "tagged without the constraints" "$SCRATCH/tag.err" || fail "the warning does not say how they were tagged"
"$QKV_BIN" eval "$ckpt" "$SCRATCH/in.conll" >"$SCRATCH/eval.txt" 2>&1 || { cat "$SCRATCH/eval.txt"; fail "qkv eval"; }
grep -q "of 8 words" "$SCRATCH/eval.txt" || { cat "$SCRATCH/eval.txt"; fail "eval did not score every word"; }
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
exit 0
