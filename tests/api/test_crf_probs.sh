#!/bin/bash
# Per-word tag probabilities of a CRF model through the C library (qkv_model_tag_probs): the
# marginals of the sentence. A constrained CRF whose only tags are B-a and E-a allows exactly
# one tag sequence for a sentence of 2 or 4 words (B-a E-a [B-a E-a]), whatever its weights: each
# word's marginal of that tag is 1. A sentence with no allowed sequence (1 or 3 words) gets
# the marginals without the constraints (probabilities that sum to 1, checked by api_probs).
# A softmax model's probabilities are checked by test_api.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_probs
[ -x "$BIN" ] || fail "$BIN is not built"
for i in $(seq 40); do printf 'x\tB-a\ny\tE-a\n\nz\tB-a\nw\tE-a\n\n'; done >"$SCRATCH/train.conll"
cat >"$SCRATCH/be.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, output: crf, crf_constrained: true}
data: {train: $SCRATCH/train.conll, batch_tokens: 300}
train: {max_steps: 3, word_dropout: 0}
log: {every_steps: 1, progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/be.yaml" --out "$SCRATCH/run" >/dev/null 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train"; }
printf 'x y\nz w x y\nlone\nt h r\n' >"$SCRATCH/in.txt"
"$BIN" "$SCRATCH/run/checkpoints/last.h5" <"$SCRATCH/in.txt" >"$SCRATCH/probs.tsv" 2>"$SCRATCH/probs.err" ||
    { cat "$SCRATCH/probs.err"; fail "api_probs of a crf model"; }
"$PY" - "$SCRATCH/probs.tsv" <<'PY' || { cat "$SCRATCH/probs.tsv"; fail "crf marginals"; }
import sys
sents = [s.split("\n") for s in open(sys.argv[1]).read().strip("\n").split("\n\n")]
assert [len(s) for s in sents] == [2, 4, 1, 3], sents
for s in sents[:2]:  # one allowed sequence: B-a E-a (B-a E-a)
    for i, row in enumerate(s):
        best, p = row.split("\t")[1].split(" ")
        assert best == ("B-a" if i % 2 == 0 else "E-a") and abs(float(p) - 1) < 1e-5, (i, row)
PY
echo ok
