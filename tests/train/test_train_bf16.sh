#!/bin/bash
# train.precision: bf16 (lib/gemm/bf16.h). With oneDNN: the quick start on the shipped EWT sample
# trains 40 steps with its products in bf16, the training loss of the last 10 steps is below
# that of the first 10, the run's config says bf16, and the checkpoint evaluates. Without
# oneDNN: the key is refused before training, with a message naming the package.
. "$(dirname "$0")/common.sh"
SHORT=(--set train.max_steps=40 --set log.every_steps=10 --set log.progress=off --set log.plot=false
       --set train.precision=bf16)
if [ "${QKV_ONEDNN_BUILT:-}" != 1 ]; then
    expect_error "train.precision: bf16: this build has no oneDNN" \
        "$QKV_BIN" train configs/quickstart.yaml "${SHORT[@]}" --out "$SCRATCH/run"
    grep -qF "libdnnl-dev" "$SCRATCH/err" || fail "the message does not name libdnnl-dev"
    [ ! -e "$SCRATCH/run/checkpoints" ] || fail "a refused run wrote checkpoints"
    echo "ok (no oneDNN: refused)"
    exit 0
fi
"$QKV_BIN" train configs/quickstart.yaml "${SHORT[@]}" --out "$SCRATCH/run" >"$SCRATCH/log" 2>&1 ||
    { cat "$SCRATCH/log" >&2; fail "qkv train with train.precision=bf16"; }
grep -q '^  precision: bf16$' "$SCRATCH/run/config.yaml" ||
    { cat "$SCRATCH/run/config.yaml" >&2; fail "config.yaml does not say precision: bf16"; }
# metrics.tsv: step epoch split loss ...; the train rows at steps 10 and 40
first=$(awk -F'\t' '$3 == "train" && $1 == 10 {print $4}' "$SCRATCH/run/metrics.tsv")
last=$(awk -F'\t' '$3 == "train" && $1 == 40 {print $4}' "$SCRATCH/run/metrics.tsv")
[ -n "$first" ] && [ -n "$last" ] || { cat "$SCRATCH/run/metrics.tsv" >&2; fail "no train rows at steps 10 and 40"; }
awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < 0.9 * a && b == b) }' ||
    fail "the loss did not go down: $first at step 10, $last at step 40"
json=$("$QKV_BIN" eval "$SCRATCH/run/checkpoints/last.h5" data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz --json) ||
    fail "eval of the bf16 checkpoint"
grep -q '"words": 6518' <<<"$json" || { echo "$json" >&2; fail "eval: not 6518 words"; }
echo "ok: loss $first at step 10, $last at step 40"
