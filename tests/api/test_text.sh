#!/bin/bash
# Raw text through the C library: tests/api/api_text.c tags paragraphs with
# qkv_model_tag_text and a segmenter (given with qkv_model_open_segmenter, or bundled by
# qkv export --tokenizer) and gets exactly the CoNLL-U of `qkv tag --format text --tokenizer`,
# whole or a paragraph a call; an export with a bundled segmenter tags text as the tagger with
# --tokenizer does, an explicit --tokenizer wins over it, a re-export keeps it; bad inputs (a
# tagger as segmenter, a segmenter as tagger, invalid UTF-8) give clear errors; pre-tokenised
# sentences through qkv_model_tag_words (api_text --words) get what qkv tag writes for the same
# words as CoNLL-U.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_text
[ -x "$BIN" ] || fail "$BIN is not built"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
make_segmenter "$SCRATCH/seg2" --set train.max_steps=2
seg2=$SCRATCH/seg2/checkpoints/last.h5
quick_run "$SCRATCH/tagger" --set train.max_steps=10 --set train.threads=1
tagger=$SCRATCH/tagger/checkpoints/last.h5
printf '\xef\xbb\xbfI don'"'"'t know, she said. It costs $1,234.50!\r\nA second line  of it.\n\n\n  Next paragraph\there.\nCannot say.\n\nThe cat sat. The end\n' \
    >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" "$SCRATCH/in.txt" >"$SCRATCH/cli.conllu" ||
    fail "qkv tag --tokenizer"
grep -q '^# sent_id = 3$' "$SCRATCH/cli.conllu" || fail "too few sentences to compare"

# the API = qkv tag --tokenizer, with the segmenter from its own file
"$BIN" "$tagger" "$seg" "$SCRATCH/in.txt" >"$SCRATCH/api.conllu" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_text"; }
cmp -s "$SCRATCH/api.conllu" "$SCRATCH/cli.conllu" ||
    { diff "$SCRATCH/api.conllu" "$SCRATCH/cli.conllu" | head >&2; fail "qkv_model_tag_text and qkv tag --tokenizer disagree"; }

# a bundled segmenter: qkv tag and the API use it; --tokenizer wins over it
"$QKV_BIN" export "$tagger" --out "$SCRATCH/bundle.h5" --tokenizer "$seg" 2>/dev/null || fail "export --tokenizer"
"$QKV_BIN" tag "$SCRATCH/bundle.h5" --format text "$SCRATCH/in.txt" >"$SCRATCH/bundle.conllu" ||
    fail "qkv tag with a bundled segmenter"
cmp -s "$SCRATCH/bundle.conllu" "$SCRATCH/cli.conllu" || fail "the bundled segmenter tags differently"
"$BIN" "$SCRATCH/bundle.h5" - "$SCRATCH/in.txt" >"$SCRATCH/api_bundle.conllu" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_text on the bundle"; }
cmp -s "$SCRATCH/api_bundle.conllu" "$SCRATCH/cli.conllu" || fail "the API's bundled segmenter tags differently"
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg2" "$SCRATCH/in.txt" >"$SCRATCH/cli2.conllu"
cmp -s "$SCRATCH/cli2.conllu" "$SCRATCH/cli.conllu" && fail "the two segmenters agree: the next checks prove nothing"
"$QKV_BIN" tag "$SCRATCH/bundle.h5" --format text --tokenizer "$seg2" "$SCRATCH/in.txt" >"$SCRATCH/wins.conllu"
cmp -s "$SCRATCH/wins.conllu" "$SCRATCH/cli2.conllu" || fail "--tokenizer does not win over the bundled segmenter"
"$BIN" "$SCRATCH/bundle.h5" "$seg2" "$SCRATCH/in.txt" >"$SCRATCH/api_wins.conllu" 2>/dev/null
cmp -s "$SCRATCH/api_wins.conllu" "$SCRATCH/cli2.conllu" || fail "qkv_model_open_segmenter does not replace the bundled one"
# re-exporting keeps the bundled segmenter; whitespace tagging without one stays as it was
"$QKV_BIN" export "$SCRATCH/bundle.h5" --out "$SCRATCH/again.h5" 2>/dev/null || fail "re-export"
"$QKV_BIN" tag "$SCRATCH/again.h5" --format text "$SCRATCH/in.txt" | cmp -s - "$SCRATCH/cli.conllu" ||
    fail "a re-export lost the bundled segmenter"
"$QKV_BIN" export "$tagger" --out "$SCRATCH/plain.h5" 2>/dev/null
"$QKV_BIN" tag "$SCRATCH/plain.h5" --format text "$SCRATCH/in.txt" | grep -q '^# text' &&
    fail "a model without a segmenter segmented raw text"

# bad inputs
printf 'Fine.\n\nStill fine\nbad \xff here\n' >"$SCRATCH/bad.txt"
"$BIN" --errors "$tagger" "$seg" "$SCRATCH/bad.txt" || fail "api_text --errors"
expect_error "not a segmenter" "$QKV_BIN" export "$tagger" --out "$SCRATCH/x.h5" --tokenizer "$tagger"
expect_error "is a segmenter" "$QKV_BIN" export "$seg" --out "$SCRATCH/x.h5" --tokenizer "$seg"
expect_error "$SCRATCH/bad.txt" "$QKV_BIN" export "$tagger" --out "$SCRATCH/x.h5" --tokenizer "$SCRATCH/bad.txt"
[ ! -e "$SCRATCH/x.h5" ] || fail "a failed export left a file"
expect_error "$SCRATCH/bad.txt:4: invalid UTF-8 at byte 5 of the line" \
    "$QKV_BIN" tag "$SCRATCH/bundle.h5" --format text "$SCRATCH/bad.txt"
# pre-tokenised sentences: qkv_model_tag_words = qkv tag on the same words as CoNLL-U (a tagger of one column)
words_of data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz 100 "$SCRATCH/words"
"$QKV_BIN" tag "$tagger" "$SCRATCH/words.conllu" >"$SCRATCH/cli_words.conllu" || fail "qkv tag (CoNLL-U)"
"$BIN" --words "$tagger" "$SCRATCH/words.tsv" >"$SCRATCH/api_words.conllu" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_text --words"; }
cmp -s "$SCRATCH/api_words.conllu" "$SCRATCH/cli_words.conllu" ||
    { diff "$SCRATCH/api_words.conllu" "$SCRATCH/cli_words.conllu" | head >&2; fail "qkv_model_tag_words and qkv tag disagree"; }
awk -F'\t' 'NF == 10 && $4 != "_" { n++ } END { exit n < 1000 }' "$SCRATCH/cli_words.conllu" || fail "too few tagged words"
echo "ok: qkv_model_tag_text = qkv tag --tokenizer; bundled segmenter = --tokenizer; qkv_model_tag_words = qkv tag; errors"
