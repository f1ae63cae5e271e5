#!/bin/bash
# The constrained CRF's fallback with several heads: a model whose first column (UPOS) has only
# the tags B-a and E-a under BIOES rules, and a second head over FEATS, can tag a sentence of two
# words and no other length. qkv tag writes every column of every sentence, those with no
# allowed path decoded without the constraints, with one warning naming the line of the first
# and their number; qkv eval scores every word of both heads.
source "$(dirname "$0")/common.sh"
word() { printf '%d\t%s\t_\t%s\t_\t%s\t_\t_\t_\t_\n' "$@"; } # ID FORM UPOS FEATS
for i in $(seq 40); do word 1 x B-a F=x; word 2 y E-a F=y; echo; done >"$SCRATCH/train.conllu"
cat >"$SCRATCH/be.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, output: crf, crf_constrained: true}
data: {train: $SCRATCH/train.conllu, tags: [upos, feats], batch_tokens: 300}
train: {max_steps: 2, word_dropout: 0}
log: {every_steps: 1, progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/be.yaml" --out "$SCRATCH/run" >/dev/null 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train"; }
ckpt=$SCRATCH/run/checkpoints/last.h5
# sentences of 2, 1, 2 and 3 words: the 2nd (line 4) and the 4th have no allowed path
# (their gold tags valid BIOES: a file's tags are in one scheme)
{ word 1 x B-a F=x; word 2 y E-a F=y; echo; word 1 lone S-a F=x; echo; word 1 x B-a F=x; word 2 y E-a F=y; echo
  word 1 t B-a F=x; word 2 h E-a F=x; word 3 r S-a F=y; echo; } >"$SCRATCH/in.conllu"
"$QKV_BIN" tag "$ckpt" "$SCRATCH/in.conllu" >"$SCRATCH/out.conllu" 2>"$SCRATCH/tag.err" ||
    { cat "$SCRATCH/tag.err"; fail "qkv tag lost the output"; }
[ "$(grep -c . "$SCRATCH/out.conllu")" = 8 ] || { cat "$SCRATCH/out.conllu"; fail "not every word tagged"; }
awk -F'\t' 'NF == 10 && ($4 == "_" || $6 == "_") { exit 1 }' "$SCRATCH/out.conllu" ||
    { cat "$SCRATCH/out.conllu"; fail "a word without its UPOS or FEATS"; }
# the two-word sentences keep the constrained path
[ "$(sed -n 1,2p "$SCRATCH/out.conllu" | cut -f4 | tr '\n' ' ')" = "B-a E-a " ] || fail "constrained path of sentence 1"
[ "$(sed -n 6,7p "$SCRATCH/out.conllu" | cut -f4 | tr '\n' ' ')" = "B-a E-a " ] || fail "constrained path of sentence 3"
grep -qF "in.conllu:4: 2 sentences have no tag sequence model.crf_constrained allows" "$SCRATCH/tag.err" ||
    { cat "$SCRATCH/tag.err"; fail "no warning naming the line"; }
"$QKV_BIN" eval "$ckpt" "$SCRATCH/in.conllu" >"$SCRATCH/eval.txt" 2>&1 || { cat "$SCRATCH/eval.txt"; fail "qkv eval"; }
grep -q "of 8 words" "$SCRATCH/eval.txt" || { cat "$SCRATCH/eval.txt"; fail "eval did not score every word"; }
exit 0
