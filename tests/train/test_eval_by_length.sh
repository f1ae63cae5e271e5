#!/bin/bash
# qkv eval --by-length on the committed EWT sample's dev file (all lengths; every bucket 1-10,
# 11-20, 21-40, 41+ has words): the bucket word and correct counts add up to the totals in the
# JSON and the text report; a learned table of 20 rows evaluates sentences longer than 20 words
# with model.pos_overflow: clamp and fails clearly with the default (error).
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz "$D/dev.conllu.gz" || fail "no EWT sample"
TINY=(--set data.synthetic_train=100 --set data.synthetic_dev=20 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=2 --set model.n_layers=1 --set train.max_steps=3 --set log.progress=off --set log.plot=false
      --set model.positional=learned --set model.max_len=20 --set data.max_train_len=20)
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set model.pos_overflow=clamp --out "$D/clamp" >/dev/null 2>"$D/err" ||
    { cat "$D/err"; fail "train (clamp)"; }
json=$("$QKV_BIN" eval "$D/clamp/checkpoints/last.h5" "$D/dev.conllu.gz" --json --by-length 2>"$D/err") ||
    { cat "$D/err"; fail "eval --json --by-length"; }
total=$(grep -o '"words": [0-9]*' <<<"$json" | head -n 1 | grep -o '[0-9]*$')
correct=$(grep -o '"correct": [0-9]*' <<<"$json" | head -n 1 | grep -o '[0-9]*$')
buckets=$(grep -o '{"bucket": "[^"]*", "words": [0-9]*, "correct": [0-9]*' <<<"$json")
[ "$(wc -l <<<"$buckets")" = 4 ] || { echo "$json"; fail "expected 4 buckets"; }
[ "$(cut -d'"' -f4 <<<"$buckets" | tr '\n' ' ')" = "1-10 11-20 21-40 41+ " ] || fail "bucket names: $buckets"
sum_words=$(awk -F'[:,]' '{ s += $4 } END { print s }' <<<"$buckets")
sum_correct=$(awk -F'[:,]' '{ s += $6 } END { print s }' <<<"$buckets")
[ "$total" -gt 5000 ] || fail "total words $total"
[ "$sum_words" = "$total" ] || fail "bucket words add up to $sum_words, not $total"
[ "$sum_correct" = "$correct" ] || fail "bucket correct add up to $sum_correct, not $correct"
awk -F'[:,]' '$4 == 0 { exit 1 }' <<<"$buckets" || fail "an empty bucket: $buckets"
# The text report's buckets add up too.
text=$("$QKV_BIN" eval "$D/clamp/checkpoints/last.h5" "$D/dev.conllu.gz" --by-length 2>/dev/null) || fail "eval --by-length"
sum_text=$(sed -n '/accuracy by sentence length/,$p' <<<"$text" | awk '$3 == "words" { s += $2 } END { print s }')
[ "$sum_text" = "$total" ] || { echo "$text"; fail "text buckets add up to $sum_text, not $total"; }

# Without clamp the same model shape cannot place word 21: a clear error naming max_len.
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.synthetic_dev=1 --out "$D/err_run" >/dev/null 2>"$D/err" ||
    { cat "$D/err"; fail "train (error)"; }
err=$("$QKV_BIN" eval "$D/err_run/checkpoints/last.h5" "$D/dev.conllu.gz" 2>&1 >/dev/null) && fail "eval past max_len succeeded"
grep -q "dev.conllu.gz:15: sentence of 30 words is longer than model.max_len 20" <<<"$err" || { echo "$err"; fail "no max_len message"; }
echo "ok"
