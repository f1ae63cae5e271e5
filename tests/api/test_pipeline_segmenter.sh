#!/bin/bash
# A pipeline file (a tagger with a bundled segmenter: qkv export --tokenizer, float32 or float16,
# or a checkpoint of a run with data.segmenter) given where a segmenter is asked for is its
# segmenter: qkv tag --tokenizer, qkv eval --raw --tokenizer, data.segmenter, qkv export
# --tokenizer and qkv_model_open_segmenter segment as with the segmenter's own file; the
# shipped data/models/en.h5 (float16) as --tokenizer of itself tags as it does alone; a tagger
# without one is still not a segmenter.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_text
[ -x "$BIN" ] || fail "$BIN is not built"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
quick_run "$SCRATCH/tagger" --set train.max_steps=10 --set train.threads=1
tagger=$SCRATCH/tagger/checkpoints/last.h5
"$QKV_BIN" export "$tagger" --out "$SCRATCH/pipe.h5" --tokenizer "$seg" 2>/dev/null || fail "export --tokenizer"
"$QKV_BIN" export "$tagger" --out "$SCRATCH/pipe16.h5" --tokenizer "$seg" --float16 2>/dev/null ||
    fail "export --tokenizer --float16"
printf 'I don'"'"'t know, she said. It costs $1,234.50!\nA second line.\n\nCannot say. The cat sat. The end\n' \
    >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" "$SCRATCH/in.txt" >"$SCRATCH/want.conllu" ||
    fail "qkv tag --tokenizer SEG"
grep -q '^# sent_id = 3$' "$SCRATCH/want.conllu" || fail "too few sentences to compare"
"$QKV_BIN" eval "$tagger" "$SCRATCH/dev.conllu" --raw --tokenizer "$seg" | tail -n +2 >"$SCRATCH/want_eval.txt" ||
    fail "qkv eval --raw --tokenizer SEG"

# qkv tag, qkv eval --raw and the C API with the pipeline file as the segmenter
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$SCRATCH/pipe.h5" "$SCRATCH/in.txt" >"$SCRATCH/got.conllu" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "qkv tag --tokenizer PIPELINE"; }
cmp -s "$SCRATCH/got.conllu" "$SCRATCH/want.conllu" || fail "qkv tag --tokenizer PIPELINE segments differently"
"$QKV_BIN" eval "$tagger" "$SCRATCH/dev.conllu" --raw --tokenizer "$SCRATCH/pipe.h5" >"$SCRATCH/got_eval.txt" ||
    fail "qkv eval --raw --tokenizer PIPELINE"
diff <(tail -n +2 "$SCRATCH/got_eval.txt") "$SCRATCH/want_eval.txt" >&2 ||
    fail "qkv eval --raw --tokenizer PIPELINE scores differently"
"$BIN" "$tagger" "$SCRATCH/pipe.h5" "$SCRATCH/in.txt" >"$SCRATCH/api.conllu" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "qkv_model_open_segmenter(PIPELINE)"; }
cmp -s "$SCRATCH/api.conllu" "$SCRATCH/want.conllu" || fail "qkv_model_open_segmenter(PIPELINE) segments differently"

# data.segmenter and qkv export --tokenizer take it too
quick_run "$SCRATCH/run" --set train.max_steps=10 --set train.threads=1 --set data.segmenter="$SCRATCH/pipe.h5"
"$QKV_BIN" tag "$SCRATCH/run/checkpoints/last.h5" --format text "$SCRATCH/in.txt" | cmp -s - "$SCRATCH/want.conllu" ||
    fail "data.segmenter=PIPELINE does not bundle its segmenter"
"$QKV_BIN" export "$tagger" --out "$SCRATCH/again.h5" --tokenizer "$SCRATCH/run/checkpoints/last.h5" 2>/dev/null ||
    fail "export --tokenizer CHECKPOINT-WITH-SEGMENTER"
"$QKV_BIN" tag "$SCRATCH/again.h5" --format text "$SCRATCH/in.txt" | cmp -s - "$SCRATCH/want.conllu" ||
    fail "export --tokenizer of a checkpoint with a segmenter bundles another"

# float16: the pipeline as its own --tokenizer is the pipeline alone; so for the shipped model
"$QKV_BIN" tag "$SCRATCH/pipe16.h5" --format text "$SCRATCH/in.txt" >"$SCRATCH/want16.conllu" || fail "qkv tag PIPE16"
"$QKV_BIN" tag "$SCRATCH/pipe16.h5" --format text --tokenizer "$SCRATCH/pipe16.h5" "$SCRATCH/in.txt" |
    cmp -s - "$SCRATCH/want16.conllu" || fail "a float16 pipeline as --tokenizer segments differently"
en=data/models/en.h5
"$QKV_BIN" tag "$en" --format text "$SCRATCH/in.txt" >"$SCRATCH/want_en.conllu" || fail "qkv tag $en"
grep -q '^# sent_id = 2$' "$SCRATCH/want_en.conllu" || fail "$en: too few sentences to compare"
"$QKV_BIN" tag "$en" --format text --tokenizer "$en" "$SCRATCH/in.txt" | cmp -s - "$SCRATCH/want_en.conllu" ||
    fail "$en as --tokenizer segments differently from its bundled segmenter"

# a tagger without a segmenter is not one
expect_error "$tagger: not a segmenter" "$QKV_BIN" tag "$tagger" --format text --tokenizer "$tagger" "$SCRATCH/in.txt"
echo "ok: a pipeline file (float32, float16, data.segmenter, $en) is its segmenter wherever one is asked for"
