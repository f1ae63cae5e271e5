#!/bin/bash
# The shipped quick start (configs/quickstart.yaml) finds the committed EWT sample relative to
# the config from any working folder and trains on it (a few steps here); the other commands
# read the gzip-compressed sample too: eval, tag of a .gz CoNLL-U file (the decompressed bytes
# come back with only the tag column changed) and of typed text; a truncated .gz is an error
# naming the file.
. "$(dirname "$0")/common.sh"
S=data/ud_english_ewt_sample
SHORT=(--set train.max_steps=30 --set log.progress=off --set log.plot=false)
out=$(cd /tmp && "$QKV_BIN" train "$QKV_SOURCE_DIR/configs/quickstart.yaml" "${SHORT[@]}" --out "$SCRATCH/run" 2>&1) ||
    { echo "$out" >&2; fail "quickstart from /tmp"; }
grep -qF "on $QKV_SOURCE_DIR/$S/en_ewt-sample-dev.conllu.gz: accuracy" <<<"$out" ||
    { echo "$out" >&2; fail "no dev report on the sample"; }
grep -qF "\"$QKV_SOURCE_DIR/$S/en_ewt-sample-train.conllu.gz\"" "$SCRATCH/run/config.yaml" ||
    { cat "$SCRATCH/run/config.yaml" >&2; fail "config.yaml: data.train is not the sample"; }
CKPT=$SCRATCH/run/checkpoints/last.h5

json=$("$QKV_BIN" eval "$CKPT" $S/en_ewt-sample-dev.conllu.gz --json) || fail "eval of the .gz dev"
grep -q '"words": 6518' <<<"$json" || { echo "$json" >&2; fail "eval: not 6518 words"; }

"$QKV_BIN" tag "$CKPT" $S/en_ewt-sample-dev.conllu.gz >"$SCRATCH/tagged.conllu" || fail "tag of the .gz dev"
gzip -dc $S/en_ewt-sample-dev.conllu.gz >"$SCRATCH/dev.conllu"
# every line but the UPOS column of word lines is the input's
cmp -s <(cut -f1-3,5- "$SCRATCH/dev.conllu") <(cut -f1-3,5- "$SCRATCH/tagged.conllu") || fail "tag changed other columns"
[ "$(wc -l <"$SCRATCH/tagged.conllu")" = "$(wc -l <"$SCRATCH/dev.conllu")" ] || fail "tag: line count"
gzip -c "$SCRATCH/dev.conllu" | "$QKV_BIN" tag "$CKPT" - >"$SCRATCH/stdin.conllu" || fail "tag of gzip on stdin"
cmp -s "$SCRATCH/tagged.conllu" "$SCRATCH/stdin.conllu" || fail "tag: gzip on stdin differs from the file"
out=$(echo "The old man the boats ." | "$QKV_BIN" tag "$CKPT" - --format text) || fail "tag --format text"
[ "$(grep -c $'^[0-9]\t' <<<"$out")" = 6 ] || { echo "$out" >&2; fail "tag --format text: not 6 words"; }

head -c 30000 $S/en_ewt-sample-train.conllu.gz >"$SCRATCH/cut.conllu.gz"
expect_error "$SCRATCH/cut.conllu.gz: truncated gzip stream" \
    "$QKV_BIN" train configs/quickstart.yaml "${SHORT[@]}" --set data.train="$SCRATCH/cut.conllu.gz" --out "$SCRATCH/cut"
expect_error "$SCRATCH/cut.conllu.gz: truncated gzip stream" "$QKV_BIN" eval "$CKPT" "$SCRATCH/cut.conllu.gz"
expect_error "$SCRATCH/cut.conllu.gz: truncated gzip stream" "$QKV_BIN" tag "$CKPT" "$SCRATCH/cut.conllu.gz"
echo ok
