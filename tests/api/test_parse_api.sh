#!/bin/bash
# A parser through the C library: tests/api/api_parse.c, linked to libqkv.so, parses sentences
# with qkv_model_parse and gets exactly the HEAD and DEPREL `qkv tag --format text` writes; a
# tagger is refused by qkv_model_parse.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_parse
[ -x "$BIN" ] || fail "$BIN is not built"
S=data/ud_english_ewt_sample
"$QKV_BIN" train configs/ud_ewt_parse.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set train.max_steps=8 --set train.eval_every=0 \
    --set data.batch_tokens=400 --set model.lstm_hidden=16 --set model.arc_dim=16 --set model.label_dim=8 \
    --set model.n_layers=1 --set log.progress=off --set log.plot=false --out "$SCRATCH/parser" >"$SCRATCH/train.log" 2>&1 ||
    { cat "$SCRATCH/train.log" >&2; fail "qkv train"; }
gzip -dc $S/en_ewt-sample-dev.conllu.gz | awk -F'\t' '/^#/ { next } NF == 0 { if (line != "") print line; line = ""; next }
    $1 ~ /^[0-9]+$/ { line = line == "" ? $2 : line " " $2 } END { if (line != "") print line }' | head -200 >"$SCRATCH/s.txt"
"$BIN" "$SCRATCH/parser/checkpoints/last.h5" "$SCRATCH/s.txt" >"$SCRATCH/api.tsv" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "api_parse"; }
"$QKV_BIN" tag "$SCRATCH/parser/checkpoints/last.h5" "$SCRATCH/s.txt" --format text |
    awk -F'\t' '/^#/ { next } NF == 0 { print ""; next } { print $2 "\t" $7 "\t" $8 }' >"$SCRATCH/want.tsv"
cmp -s "$SCRATCH/api.tsv" "$SCRATCH/want.tsv" ||
    { diff "$SCRATCH/api.tsv" "$SCRATCH/want.tsv" | head >&2; fail "qkv_model_parse and qkv tag disagree"; }
[ "$(grep -c . "$SCRATCH/api.tsv")" -gt 2000 ] || fail "too few words parsed"
make_model
"$BIN" "$SCRATCH/model.h5" "$SCRATCH/s.txt" >/dev/null 2>"$SCRATCH/err" && fail "a tagger was parsed"
grep -q "not a parser" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "no 'not a parser' error"; }
echo "ok: qkv_model_parse = qkv tag on $(grep -c . "$SCRATCH/api.tsv") words"
