#!/bin/bash
# qkv stats: exact counts on the tiny files and on the committed EWT sample (.gz), --train,
# --help, errors.
set -u
fail() { echo "FAIL: $*"; exit 1; }
expect_line() { # output, line
    grep -qxF -- "$2" <<<"$1" || { echo "$1"; fail "missing line: $2"; }
}
F=tests/data/files
out=$("$QKV_BIN" stats $F/multiword.conllu) || fail "stats multiword.conllu exited $?"
expect_line "$out" "sentences: 1"
expect_line "$out" "words: 4"
expect_line "$out" "multiword tokens: 1"
expect_line "$out" "empty nodes: 0"
expect_line "$out" "longest sentence: 4 words (line 1)"
expect_line "$out" "tags: 4"

out=$("$QKV_BIN" stats $F/empty_nodes.conllu --train $F/basic.conllu) || fail "stats --train exited $?"
expect_line "$out" "empty nodes: 2"
expect_line "$out" "words: 5"
expect_line "$out" "  PROPN               2   40.00%"
# forms Sam ran and Kim . : only "." occurs in basic.conllu
expect_line "$out" "unknown to $F/basic.conllu: 4 of 5 words (80.00%), 4 of 5 word types (80.00%)"

out=$("$QKV_BIN" stats --xpos $F/basic.conllu) || fail "stats --xpos exited $?"
expect_line "$out" "file: $F/basic.conllu (CoNLL-U, tags from XPOS)"
expect_line "$out" "  .                   2   28.57%"

out=$("$QKV_BIN" stats --tag-column 2 $F/columns3.tsv) || fail "stats columns exited $?"
expect_line "$out" "file: $F/columns3.tsv (columns, FORM first)"
expect_line "$out" "  NNP                 3   75.00%"

# Columns as found: WNUT 2017's TAB-only lines between sentences, hyphenated tags; CoNLL-2003's
# space-separated columns with -DOCSTART- lines.
out=$("$QKV_BIN" stats $F/wnut_like.conll) || fail "stats wnut_like.conll exited $?"
expect_line "$out" "sentences: 3"
expect_line "$out" "  I-creative-work        1   14.29%"
out=$("$QKV_BIN" stats $F/conll03.txt) || fail "stats conll03.txt exited $?"
expect_line "$out" "sentences: 3"
expect_line "$out" "words: 6"
expect_line "$out" "documents (-DOCSTART- lines): 2"

# The committed EWT sample, gzip-compressed (the whole EWT: test_ewt_commands.sh).
S=data/ud_english_ewt_sample
out=$("$QKV_BIN" stats $S/en_ewt-sample-dev.conllu.gz --train $S/en_ewt-sample-train.conllu.gz) ||
    fail "stats sample exited $?"
expect_line "$out" "file: $S/en_ewt-sample-dev.conllu.gz (CoNLL-U, tags from UPOS)"
expect_line "$out" "sentences: 501"
expect_line "$out" "words: 6518"
expect_line "$out" "multiword tokens: 81"
expect_line "$out" "empty nodes: 1"
expect_line "$out" "tags: 17"
expect_line "$out" "unknown to $S/en_ewt-sample-train.conllu.gz: 920 of 6518 words (14.11%), 826 of 2254 word types (36.65%)"
# A damaged stream is an error naming the file.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
head -c 20000 $S/en_ewt-sample-dev.conllu.gz >"$T/cut.conllu.gz"
err=$("$QKV_BIN" stats "$T/cut.conllu.gz" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "truncated .gz: exit $rc, expected 1"
[ "$err" = "qkv stats: $T/cut.conllu.gz: truncated gzip stream (it ends before its end marker: an incomplete download or copy?)" ] ||
    fail "truncated .gz message: $err"

"$QKV_BIN" stats --help | grep -q "usage: qkv stats FILE" || fail "--help"
err=$("$QKV_BIN" stats $F/bad_fields.conllu 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "bad file: exit $rc, expected 1"
[ "$err" = "qkv stats: $F/bad_fields.conllu:3: expected 10 TAB-separated fields, found 9" ] || fail "message: $err"
"$QKV_BIN" stats >/dev/null 2>&1; [ $? -eq 2 ] || fail "no FILE: expected exit 2"
"$QKV_BIN" stats --bogus x >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option: expected exit 2"
out=$("$QKV_BIN" stats --time $F/basic.conllu) || fail "--time exited $?"
grep -q "^time: read .* (1 batches, 7 words)" <<<"$out" || { echo "$out"; fail "--time line"; }
echo "ok"
