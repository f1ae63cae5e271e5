#!/bin/bash
# The library's bound on a sentence's words (include/qkv/qkv.h: QKV_MAX_WORDS,
# qkv_model_set_max_words): tests/api/api_max_words.c, linked to libqkv.so, gives the shipped
# parser sentences of one word over the bound and of 100,000 words through every function that
# tags words, and raw text over a bound it set; each is refused before any work, naming the
# sentence and the bound, within 300 MB.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_max_words
[ -x "$BIN" ] || fail "$BIN is not built"
model=$QKV_SOURCE_DIR/data/models/en.h5
[ -s "$model" ] || fail "$model is missing"
"$PY" - "${QKV_SANITIZED:-0}" "$BIN" "$model" <<'PY' || fail "api_max_words"
import resource, subprocess, sys
subprocess.run(sys.argv[2:], check=True)
mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print("peak memory: %d MB" % mb)
assert sys.argv[1] == "1" or mb <= 300, "api_max_words took %d MB" % mb
PY
