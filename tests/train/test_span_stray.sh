#!/bin/bash
# A span-tagged file with a few tags that are not span tags ("0" typed for "O"): the span scores
# are off and best.h5 follows accuracy, so qkv train and qkv eval warn, naming the line of the
# first such word and their number; a POS file (no span tags at all) and a clean span file get
# no such warning.
source "$(dirname "$0")/common.sh"
awk 'BEGIN { srand(5); split("Ann Bob Cem Dee", per, " "); split("Rome Oslo Lima", loc, " ")
    for (s = 0; s < 120; s++) printf "%s\tB-person\nmet\tO\n%s\tB-location\n.\tO\n\n", per[int(rand() * 4) + 1],
        loc[int(rand() * 3) + 1] }' >"$SCRATCH/clean.conll"
# "0" for "O" on two lines, the first at line 12
awk -F'\t' 'BEGIN {OFS = "\t"} (NR == 12 || NR == 37) && $2 == "O" {$2 = "0"} {print}' "$SCRATCH/clean.conll" >"$SCRATCH/typo.conll"
[ "$(sed -n 12p "$SCRATCH/typo.conll" | cut -f2)" = 0 ] || fail "test data"
cat >"$SCRATCH/ner.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32}
data: {train: $SCRATCH/typo.conll, dev: $SCRATCH/clean.conll, batch_tokens: 300}
train: {max_steps: 2, word_dropout: 0}
log: {every_steps: 1, progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/run" >/dev/null 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train"; }
grep -qF 'typo.conll:12: tag "0" is not a span tag (O, or B-, I-, E-, S- and a type), and 2 words have such a tag' \
    "$SCRATCH/train.log" || { cat "$SCRATCH/train.log"; fail "no warning naming the line of the stray tag"; }
grep -q "clean.conll.*not a span tag" "$SCRATCH/train.log" && fail "a warning about the clean dev file"
"$QKV_BIN" eval "$SCRATCH/run/checkpoints/last.h5" "$SCRATCH/typo.conll" >/dev/null 2>"$SCRATCH/eval.err" ||
    { cat "$SCRATCH/eval.err"; fail "qkv eval"; }
grep -qF 'typo.conll:12: tag "0" is not a span tag' "$SCRATCH/eval.err" || { cat "$SCRATCH/eval.err"; fail "eval warning"; }
# POS tags: no span tags at all, nothing said
"$QKV_BIN" synth --sentences 100 --seed 1 >"$SCRATCH/pos.conllu"
"$QKV_BIN" train "$SCRATCH/ner.yaml" --set data.train="$SCRATCH/pos.conllu" --set data.dev="$SCRATCH/pos.conllu" \
    --out "$SCRATCH/pos" >/dev/null 2>"$SCRATCH/pos.log" || { cat "$SCRATCH/pos.log"; fail "qkv train on POS"; }
grep -q "not a span tag" "$SCRATCH/pos.log" && { cat "$SCRATCH/pos.log"; fail "a span warning on POS tags"; }
exit 0
