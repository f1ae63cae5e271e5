#!/bin/bash
# qkv serve without --max-words takes exactly the sentences the segmenter makes: its default is
# the segmenter's cap (QKV_SEG_MAX_SENTENCE_WORDS, data/segment.h), read here from the header.
# A sentence of that many words given tokenized is tagged, one word more is a 400 naming the
# limit, and --help of serve and tag say the same number.
. "$QKV_SOURCE_DIR/tests/serve/common.sh"
cap=$(sed -n 's/^#define QKV_SEG_MAX_SENTENCE_WORDS \([0-9]*\)$/\1/p' data/segment.h)
[ -n "$cap" ] || fail "no QKV_SEG_MAX_SENTENCE_WORDS in data/segment.h"
"$QKV_BIN" serve --help | grep -qF "default $cap); more: 400" || fail "qkv serve --help: default is not $cap"
"$QKV_BIN" tag --help | grep -qF "the segmenter ends a sentence at $cap)" ||
    fail "qkv tag --help: the segmenter's cap is not $cap"
start_server

# post N: the status of N words given tokenized (input=horizontal), tagged and parsed
post() {
    curl -sS -o "$SCRATCH/answer" -w '%{http_code}' --data-urlencode "data=$(printf 'word %.0s' $(seq "$1"))" \
        -d input=horizontal -d tagger= -d parser= "$URL/process"
}
[ "$(post "$cap")" = 200 ] || { cat "$SCRATCH/answer"; fail "a sentence of $cap words refused"; }
[ "$(post $((cap + 1)))" = 400 ] || { cat "$SCRATCH/answer"; fail "a sentence of $((cap + 1)) words taken"; }
grep -qF "more than the server takes (--max-words $cap)" "$SCRATCH/answer" ||
    { cat "$SCRATCH/answer"; fail "the 400 does not name --max-words $cap"; }
stop_server TERM
exit 0
