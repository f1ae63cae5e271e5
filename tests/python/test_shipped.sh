#!/bin/bash
# The qkv Python package with the shipped English model: installed by cmake --install into a
# temporary prefix and imported by /usr/bin/python3, it finds libqkv.so and the model of its
# install by itself (qkv.load("en")); raw text (the text of 120 sentences of the shipped EWT
# sample, in paragraphs) gives a Doc whose to_conllu() is byte for byte what `qkv tag` without a
# model writes for the same text (a VT, FF, NEL, U+2028 or U+2029 inside a sentence a space of
# its # text line), every word's attributes its CoNLL-U columns; pre-tokenised
# sentences (the sample's words) give what `qkv tag --format conllu` writes for them; errors of
# the library raise qkv.QkvError with its message; several models tag at once as each alone;
# the threads the library starts block SIGINT and SIGTERM (no handler on a oneDNN thread).
. "${QKV_SOURCE_DIR:?}/tests/python/common.sh"
installed=$(find "$P" -name libqkv.so.0)
[ -n "$installed" ] || fail "no libqkv.so.0 installed under $P"
lib=$(run_py library) || fail "import qkv"
[ "$lib" = "$(realpath "$installed")" ] || fail "the package loaded $lib, not its install's $installed"
S=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
run_py nolib "$SCRATCH/none.so" || fail "QKV_LIBRARY naming no file"
# raw text: 120 sentences, paragraphs of 10, and multiword tokens before punctuation (SpaceAfter=No)
gzip -dc $S | sed -n 's/^# text = //p' | head -120 | awk '{ print } NR % 10 == 0 { print "" }' >"$SCRATCH/in.txt"
printf "Well, I can't. We won't! Don't.\n" >>"$SCRATCH/in.txt"
# and a paragraph with a character that ends a line inside each sentence (VT, FF, NEL, U+2028,
# U+2029): a space in its # text line, as qkv tag writes it
printf '\nWell\vsaid. Not\fnow. So\xc2\x85far. The\xe2\x80\xa8end. Or\xe2\x80\xa9not.\n' >>"$SCRATCH/in.txt"
env -u QKV_MODEL -u QKV_MODEL_DIR "$QKV_BIN" tag "$SCRATCH/in.txt" >"$SCRATCH/cli.conllu" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "qkv tag"; }
[ "$(grep -c '^# sent_id' "$SCRATCH/cli.conllu")" -ge 100 ] || fail "qkv tag wrote too few sentences"
grep -qP '^[0-9]+-[0-9]+\t[^\t]+(\t_){7}\tSpaceAfter=No$' "$SCRATCH/cli.conllu" ||
    fail "qkv tag wrote no multiword token with SpaceAfter=No"
run_py raw en "$SCRATCH/in.txt" "$SCRATCH/py.conllu" || fail "nlp(text)"
cmp -s "$SCRATCH/py.conllu" "$SCRATCH/cli.conllu" ||
    { diff "$SCRATCH/py.conllu" "$SCRATCH/cli.conllu" | head >&2; fail "nlp(text).to_conllu() and qkv tag disagree"; }
# pre-tokenised: the words of 150 sentences, as CoNLL-U with "_" columns for qkv tag
words_of $S 150 "$SCRATCH/words"
env -u QKV_MODEL -u QKV_MODEL_DIR "$QKV_BIN" tag --format conllu "$SCRATCH/words.conllu" >"$SCRATCH/cli_words.conllu" ||
    fail "qkv tag --format conllu"
awk -F'\t' 'NF == 10 && $4 != "_" && $5 != "_" && $3 != "_" { n++ } END { exit n < 2000 }' "$SCRATCH/cli_words.conllu" ||
    fail "qkv tag --format conllu wrote too few tagged words"
run_py words en "$SCRATCH/words.tsv" "$SCRATCH/py_words.conllu" || fail "nlp(sentences)"
cmp -s "$SCRATCH/py_words.conllu" "$SCRATCH/cli_words.conllu" ||
    { diff "$SCRATCH/py_words.conllu" "$SCRATCH/cli_words.conllu" | head >&2; fail "nlp(sentences) and qkv tag disagree"; }
# errors, and several models at once (the shipped one twice, and the bundle of a small tagger
# with a segmenter)
# (a shipped model's name is looked up in the share/qkv/models of the library's own install)
run_py errors "$SCRATCH/missing.h5" en "$(dirname "$(realpath "$installed")")/../share/qkv/models/nosuch.h5" ||
    fail "errors"
make_segmenter
quick_run "$SCRATCH/tagger" --set train.max_steps=10 --set train.threads=1
"$QKV_BIN" export "$SCRATCH/tagger/checkpoints/last.h5" --out "$SCRATCH/bundle.h5" \
    --tokenizer "$SCRATCH/seg/checkpoints/last.h5" 2>/dev/null || fail "qkv export --tokenizer"
head -30 "$SCRATCH/in.txt" >"$SCRATCH/short.txt"
# qkv.load(MODEL, segmenter=SEG) = qkv tag MODEL --tokenizer SEG
"$QKV_BIN" tag "$SCRATCH/tagger/checkpoints/last.h5" --format text --tokenizer "$SCRATCH/seg/checkpoints/last.h5" \
    "$SCRATCH/short.txt" >"$SCRATCH/cli_seg.conllu" || fail "qkv tag --tokenizer"
run_py raw "$SCRATCH/tagger/checkpoints/last.h5@$SCRATCH/seg/checkpoints/last.h5" "$SCRATCH/short.txt" \
    "$SCRATCH/py_seg.conllu" || fail "qkv.load(MODEL, segmenter=SEG)"
cmp -s "$SCRATCH/py_seg.conllu" "$SCRATCH/cli_seg.conllu" || fail "qkv.load(MODEL, segmenter=SEG) and qkv tag --tokenizer disagree"
run_py several en "$SCRATCH/bundle.h5" en -- "$SCRATCH/short.txt" || fail "several models"
run_py signals en "$SCRATCH/short.txt" || fail "signals in the library's threads"
echo "ok: import qkv from the install; nlp(text) and nlp(sentences) = qkv tag byte for byte; errors; several models; signals held"
