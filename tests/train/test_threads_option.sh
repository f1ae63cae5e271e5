#!/bin/bash
# qkv eval and qkv tag --threads N: the JSON report says the thread count the model ran on (the
# checkpoint's train.threads without the option); 1 and 2 threads give the same scores and the
# same tagged bytes (the products are row-stable, lib/gemm_rows.h); a bad count is a usage error.
# Batches of 2,000 tokens and d_model 64 make the ops' tensors large enough for their threaded
# loops (lib/parallel.h: QKV_PARALLEL_MIN elements).
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz "$D/dev.conllu.gz" || fail "no EWT sample"
"$QKV_BIN" train tests/train/synthetic.yaml --set data.synthetic_train=100 --set data.synthetic_dev=20 \
    --set model.d_model=64 --set model.d_ff=256 --set model.n_heads=2 --set model.n_layers=1 --set train.max_steps=3 \
    --set data.batch_tokens=2000 \
    --set train.threads=1 --set log.progress=off --set log.plot=false --out "$D/run" >/dev/null 2>"$D/err" ||
    { cat "$D/err"; fail "train"; }
M="$D/run/checkpoints/last.h5"
threads_of() { grep -o '"threads": [0-9]*' <<<"$1" | grep -o '[0-9]*$'; }
scores_of() { grep -o '"words": [0-9]*, "correct": [0-9]*, "accuracy": [0-9.]*, "loss": [0-9.]*' <<<"$1"; }
default=$("$QKV_BIN" eval "$M" "$D/dev.conllu.gz" --json 2>"$D/err") || { cat "$D/err"; fail "eval"; }
[ "$(threads_of "$default")" = 1 ] || fail "without --threads: threads $(threads_of "$default"), not the model's 1"
for n in 1 2; do
    json=$("$QKV_BIN" eval "$M" "$D/dev.conllu.gz" --json --threads $n 2>"$D/err") || { cat "$D/err"; fail "eval --threads $n"; }
    [ "$(threads_of "$json")" = $n ] || fail "eval --threads $n ran on $(threads_of "$json")"
    [ "$(scores_of "$json")" = "$(scores_of "$default")" ] || fail "eval --threads $n: $(scores_of "$json") vs $(scores_of "$default")"
    "$QKV_BIN" tag "$M" "$D/dev.conllu.gz" --threads $n >"$D/tag$n" 2>"$D/err" || { cat "$D/err"; fail "tag --threads $n"; }
done
[ -s "$D/tag1" ] || fail "tag wrote nothing"
cmp -s "$D/tag1" "$D/tag2" || fail "tag --threads 1 and 2 differ"
for bad in -1 x 1025; do
    out=$("$QKV_BIN" eval "$M" "$D/dev.conllu.gz" --threads "$bad" 2>&1)
    [ $? = 2 ] || fail "eval --threads $bad: not a usage error"
    grep -q -- "--threads takes a whole number from 0 to 1024, got '$bad'" <<<"$out" || { echo "$out"; fail "message for $bad"; }
done
echo "ok"
