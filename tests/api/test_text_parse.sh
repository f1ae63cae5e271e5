#!/bin/bash
# Raw text through the C library with a joint parser (configs/ud_ewt_joint.yaml, trained for a
# few steps on the shipped EWT sample, which has HEAD, DEPREL, UPOS and XPOS, with a segmenter
# bundled by data.segmenter):
# qkv_model_tag_text gives every column the model predicts, HEAD and DEPREL included, in
# qkv_text's fields, exactly the CoNLL-U `qkv tag --format text --tokenizer` writes, with the
# segmenter from its own file and bundled; a word's tag is the model's first column (DEPREL); and
# pre-tokenised sentences through qkv_model_tag_words, every column as qkv tag writes it.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_text
[ -x "$BIN" ] || fail "$BIN is not built"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
S=data/ud_english_ewt_sample
"$QKV_BIN" train configs/ud_ewt_joint.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set "data.tags=[deprel, upos, xpos]" \
    --set train.select_columns=[deprel] --set data.segmenter="$seg" --set train.max_steps=8 \
    --set train.eval_every=0 --set train.threads=1 --set data.batch_tokens=400 --set model.d_model=32 \
    --set model.lstm_hidden=16 --set model.arc_dim=16 --set model.label_dim=8 --set model.n_layers=1 \
    --set log.progress=off --set log.plot=false --out "$SCRATCH/joint" >"$SCRATCH/train.log" 2>&1 ||
    { cat "$SCRATCH/train.log" >&2; fail "qkv train"; }
parser=$SCRATCH/joint/checkpoints/last.h5
# the raw text of 60 dev sentences, 6 paragraphs of 10 lines
gzip -dc $S/en_ewt-sample-dev.conllu.gz | sed -n 's/^# text = //p' | head -60 |
    awk '{ print } NR % 10 == 0 { print "" }' >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$parser" --format text --tokenizer "$seg" "$SCRATCH/in.txt" >"$SCRATCH/cli.conllu" ||
    fail "qkv tag --tokenizer"
# the comparison means something: words with a head and every predicted column
awk -F'\t' '$1 ~ /^[0-9]+$/ && $4 != "_" && $5 != "_" && $7 ~ /^[0-9]+$/ && $8 != "_" { n++ } END { exit n < 500 }' \
    "$SCRATCH/cli.conllu" || fail "qkv tag --tokenizer wrote too few parsed and tagged words"
grep -q $'^[0-9]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t0\troot\t' "$SCRATCH/cli.conllu" || fail "no word on the root"
"$BIN" "$parser" "$seg" "$SCRATCH/in.txt" >"$SCRATCH/api.conllu" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_text"; }
cmp -s "$SCRATCH/api.conllu" "$SCRATCH/cli.conllu" ||
    { diff "$SCRATCH/api.conllu" "$SCRATCH/cli.conllu" | head >&2; fail "qkv_model_tag_text and qkv tag --tokenizer disagree"; }
# the segmenter the checkpoint bundles (data.segmenter)
"$BIN" "$parser" - "$SCRATCH/in.txt" >"$SCRATCH/api_bundle.conllu" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_text with the bundled segmenter"; }
cmp -s "$SCRATCH/api_bundle.conllu" "$SCRATCH/cli.conllu" || fail "the bundled segmenter's parse differs"
# pre-tokenised sentences: qkv_model_tag_words gives every column, HEAD and DEPREL included
words_of $S/en_ewt-sample-dev.conllu.gz 80 "$SCRATCH/words"
"$QKV_BIN" tag "$parser" "$SCRATCH/words.conllu" >"$SCRATCH/cli_words.conllu" || fail "qkv tag (CoNLL-U)"
check_trees "$SCRATCH/cli_words.conllu"
"$BIN" --words "$parser" "$SCRATCH/words.tsv" >"$SCRATCH/api_words.conllu" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_text --words"; }
cmp -s "$SCRATCH/api_words.conllu" "$SCRATCH/cli_words.conllu" ||
    { diff "$SCRATCH/api_words.conllu" "$SCRATCH/cli_words.conllu" | head >&2; fail "qkv_model_tag_words and qkv tag disagree"; }
echo "ok: qkv_model_tag_words of a joint parser = qkv tag, every column"
echo "ok: qkv_model_tag_text of a joint parser = qkv tag --tokenizer, every column ($(grep -c $'^[0-9]*\t' "$SCRATCH/api.conllu") words)"
