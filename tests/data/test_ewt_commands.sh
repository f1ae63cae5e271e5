#!/bin/bash
# On the whole UD English-EWT (QKV_EWT_DIR; skipped, exit 77, without it): qkv stats gives the
# exact counts, and data/make-ewt-sample.sh remakes the committed sample from it (the same
# text after decompression; the compressed bytes depend on the gzip version).
set -u
fail() { echo "FAIL: $*"; exit 1; }
expect_line() { # output, line
    grep -qxF -- "$2" <<<"$1" || { echo "$1"; fail "missing line: $2"; }
}
if [ -z "${QKV_EWT_DIR:-}" ]; then
    echo "skipped: QKV_EWT_DIR is not set (the UD English-EWT folder; data/fetch-ud.sh UD_English-EWT DIR fetches it)"
    exit 77
fi
E=$QKV_EWT_DIR
out=$("$QKV_BIN" stats "$E/en_ewt-ud-dev.conllu" --train "$E/en_ewt-ud-train.conllu") || fail "stats EWT exited $?"
expect_line "$out" "sentences: 2001"
expect_line "$out" "words: 25147"
expect_line "$out" "multiword tokens: 359"
expect_line "$out" "empty nodes: 4"
expect_line "$out" "tags: 17"
grep -q "^unknown to $E/en_ewt-ud-train.conllu: [0-9]* of 25147 words" <<<"$out" || fail "no unknown-word line"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
data/make-ewt-sample.sh "$E" "$T/sample" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "make-ewt-sample.sh exited $?"; }
for f in en_ewt-sample-train.conllu.gz en_ewt-sample-dev.conllu.gz LICENSE.txt; do
    [ -f "$T/sample/$f" ] || fail "make-ewt-sample.sh wrote no $f"
done
for f in en_ewt-sample-train.conllu.gz en_ewt-sample-dev.conllu.gz; do
    cmp -s <(gzip -dc "data/ud_english_ewt_sample/$f") <(gzip -dc "$T/sample/$f") ||
        fail "the remade $f differs from data/ud_english_ewt_sample/$f"
done
cmp -s "$E/LICENSE.txt" data/ud_english_ewt_sample/LICENSE.txt || fail "LICENSE.txt differs from the treebank's"
echo "ok"
