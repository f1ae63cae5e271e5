#!/bin/bash
# The qkv Python package with a parser (configs/ud_ewt_joint.yaml, data.tags [deprel, upos, xpos],
# trained for a few steps on the shipped EWT sample, with a segmenter bundled by
# data.segmenter): every column the model predicts reaches Python, HEAD and DEPREL included
# (word.head an int, one root a sentence); nlp(text).to_conllu() is byte for byte what
# `qkv tag MODEL --format text` writes, nlp(sentences).to_conllu() what `qkv tag MODEL` writes for
# the same words as CoNLL-U; the parser and the shipped model tag at once as each alone.
. "${QKV_SOURCE_DIR:?}/tests/python/common.sh"
make_segmenter
S=data/ud_english_ewt_sample
"$QKV_BIN" train configs/ud_ewt_joint.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set "data.tags=[deprel, upos, xpos]" \
    --set "train.select_columns=[deprel]" --set data.segmenter="$SCRATCH/seg/checkpoints/last.h5" \
    --set train.max_steps=8 --set train.eval_every=0 --set train.threads=1 --set model.d_model=32 \
    "${PARSE_SMALL[@]}" --out "$SCRATCH/joint" >"$SCRATCH/train.log" 2>&1 ||
    { cat "$SCRATCH/train.log" >&2; fail "qkv train"; }
parser=$SCRATCH/joint/checkpoints/last.h5
# raw text: 60 dev sentences, paragraphs of 10
gzip -dc $S/en_ewt-sample-dev.conllu.gz | sed -n 's/^# text = //p' | head -60 |
    awk '{ print } NR % 10 == 0 { print "" }' >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$parser" --format text "$SCRATCH/in.txt" >"$SCRATCH/cli.conllu" || fail "qkv tag --format text"
check_trees "$SCRATCH/cli.conllu"
awk -F'\t' '$1 ~ /^[0-9]+$/ && $4 != "_" && $5 != "_" && $7 ~ /^[0-9]+$/ && $8 != "_" { n++ } END { exit n < 500 }' \
    "$SCRATCH/cli.conllu" || fail "qkv tag wrote too few parsed and tagged words"
run_py raw-parser "$parser" "$SCRATCH/in.txt" "$SCRATCH/py.conllu" || fail "nlp(text) with a parser"
cmp -s "$SCRATCH/py.conllu" "$SCRATCH/cli.conllu" ||
    { diff "$SCRATCH/py.conllu" "$SCRATCH/cli.conllu" | head >&2; fail "nlp(text).to_conllu() and qkv tag disagree"; }
# pre-tokenised: the words of 80 sentences
words_of $S/en_ewt-sample-dev.conllu.gz 80 "$SCRATCH/words"
"$QKV_BIN" tag "$parser" "$SCRATCH/words.conllu" >"$SCRATCH/cli_words.conllu" || fail "qkv tag (CoNLL-U)"
check_trees "$SCRATCH/cli_words.conllu"
run_py words-parser "$parser" "$SCRATCH/words.tsv" "$SCRATCH/py_words.conllu" || fail "nlp(sentences) with a parser"
cmp -s "$SCRATCH/py_words.conllu" "$SCRATCH/cli_words.conllu" ||
    { diff "$SCRATCH/py_words.conllu" "$SCRATCH/cli_words.conllu" | head >&2; fail "nlp(sentences) and qkv tag disagree"; }
head -20 "$SCRATCH/in.txt" >"$SCRATCH/short.txt"
run_py several "$parser" en -- "$SCRATCH/short.txt" || fail "a parser and the shipped model at once"
echo "ok: a parser's HEAD and DEPREL through Python = qkv tag, raw text and pre-tokenised"
