#!/bin/bash
# Ill-formed gold span tags (I-x after O or after another type, as conlleval reads it the start
# of a chunk) with model.crf_constrained: training neither stops at the training step nor at the
# dev evaluation that meets such a sentence; it warns once per file with the line of the first
# and the count, and writes its checkpoints; qkv eval scores the file as conlleval does (the
# chunk counts of the file's own tags) instead of refusing it.
source "$(dirname "$0")/common.sh"
gen() { # N SEED
    awk -v n="$1" -v seed="$2" 'BEGIN {
        srand(seed)
        split("Ann Bob Cem Dee Eli Fay Gus Hal", per, " "); split("Rome Oslo Lima Kyiv Baku Riga", loc, " ")
        for (s = 0; s < n; s++) {
            printf "%s\tB-person\n", per[int(rand() * 8) + 1]
            if (rand() < 0.5) printf "%s\tI-person\n", per[int(rand() * 8) + 1]
            printf "met\tO\n%s\tB-location\n.\tO\n\n", loc[int(rand() * 6) + 1]
        }
    }'
}
gen 200 1 >"$SCRATCH/train.conll"
gen 40 2 >"$SCRATCH/dev.conll"
# two ill-formed sentences in each file: a location after O, and one right after the person
bad() { # FILE: the 3rd and the 7th B-location become I-location; prints the first line
    awk -F'\t' 'BEGIN {OFS = "\t"} $2 == "B-location" && (++n == 3 || n == 7) {$2 = "I-location"} {print}' "$1" >"$1.bad"
    awk -F'\t' '$2 == "I-location" {print NR; exit}' "$1.bad"
}
train_line=$(bad "$SCRATCH/train.conll")
dev_line=$(bad "$SCRATCH/dev.conll")
sed -i '0,/\tI-person$/s/\tI-person$/\tI-location/' "$SCRATCH/train.conll.bad" # I-location after B-person
[ "$(grep -c $'\tI-location' "$SCRATCH/train.conll.bad")" = 3 ] || fail "test data"
first=$(awk -F'\t' '$2 == "I-location" {print NR; exit}' "$SCRATCH/train.conll.bad")
cat >"$SCRATCH/ner.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, output: crf, crf_constrained: true}
data: {train: $SCRATCH/train.conll.bad, dev: $SCRATCH/dev.conll.bad, batch_tokens: 300}
train: {max_steps: 8, eval_every: 4, word_dropout: 0}
optim: {warmup_steps: 2}
log: {every_steps: 4, progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/run" >"$SCRATCH/train.out" 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train with ill-formed gold"; }
[ -f "$SCRATCH/run/checkpoints/best.h5" ] && [ -f "$SCRATCH/run/checkpoints/last.h5" ] || fail "no checkpoints"
grep -qF "train.conll.bad:$first: 3 sentences have a tag sequence model.crf_constrained forbids" "$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "no warning naming the first ill-formed training line and the count"; }
grep -qF "dev.conll.bad:$dev_line: 2 sentences have a tag sequence model.crf_constrained forbids" "$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "no warning naming the first ill-formed dev line and the count"; }
[ "$(grep -c "crf_constrained forbids" "$SCRATCH/train.log")" = 2 ] || fail "one warning per file"
grep -q "step 8: dev accuracy" "$SCRATCH/train.log" || { cat "$SCRATCH/train.log"; fail "no dev evaluation"; }
# eval scores the file's own tags as conlleval reads them: every B- and every I- after O or
# after another type starts a gold chunk
"$QKV_BIN" eval "$SCRATCH/run/checkpoints/best.h5" "$SCRATCH/dev.conll.bad" --json >"$SCRATCH/eval.json" \
    2>"$SCRATCH/eval.err" || { cat "$SCRATCH/eval.err"; fail "qkv eval refused the file"; }
grep -qF "dev.conll.bad:$dev_line: 2 sentences" "$SCRATCH/eval.err" || { cat "$SCRATCH/eval.err"; fail "eval warning"; }
gold=$(awk -F'\t' 'NF < 2 {prev = "O"; next} {split($2, t, "-"); if (t[1] == "B" || (t[1] == "I" && prev != t[2])) n++
                   prev = (t[1] == "O") ? "O" : t[2]} END {print n}' "$SCRATCH/dev.conll.bad")
"$PY" - "$SCRATCH/eval.json" "$gold" <<'PY' || fail "eval span counts"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["spans"]["gold"] == int(sys.argv[2]), (r["spans"], sys.argv[2])
PY
# without the constraints nothing is repaired and nothing is said
"$QKV_BIN" train "$SCRATCH/ner.yaml" --set model.crf_constrained=false --out "$SCRATCH/free" >/dev/null \
    2>"$SCRATCH/free.log" || { cat "$SCRATCH/free.log"; fail "qkv train unconstrained"; }
grep -q "forbids" "$SCRATCH/free.log" && fail "a warning without the constraints"
exit 0
