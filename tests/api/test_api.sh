#!/bin/bash
# The C library from a program: tests/api/api_threads.c, linked to libqkv.so, checks
# the errors of qkv_model_open and qkv_model_tag, tags 1,000 sentences one at a time through
# qkv_model_tag without reloading and gets exactly `qkv tag`'s tags (which tags the file in
# batches), the same again from qkv_model_tag_sentences in one call, and gets the same tags again from two threads at once, each with its own model.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_threads
[ -x "$BIN" ] || fail "$BIN is not built"
make_model
"$BIN" "$SCRATCH/model.h5" "$SCRATCH/sentences.txt" >"$SCRATCH/api.tsv" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_threads"; }
cmp -s "$SCRATCH/api.tsv" "$SCRATCH/expected.tsv" ||
    { diff "$SCRATCH/api.tsv" "$SCRATCH/expected.tsv" | head >&2; fail "qkv_model_tag and qkv tag disagree"; }
[ "$(grep -c . "$SCRATCH/api.tsv")" -gt 5000 ] || fail "too few words tagged"
# a checkpoint opens too, and tags the same (an export changes nothing in the model)
"$BIN" "$SCRATCH/run/checkpoints/last.h5" "$SCRATCH/sentences.txt" >"$SCRATCH/api_ckpt.tsv" 2>"$SCRATCH/api.err" ||
    { cat "$SCRATCH/api.err" >&2; fail "api_threads on last.h5"; }
cmp -s "$SCRATCH/api_ckpt.tsv" "$SCRATCH/expected.tsv" || fail "the checkpoint and its export tag differently"
echo "ok: 1000 sentences, $(grep -c . "$SCRATCH/api.tsv") words: qkv_model_tag = qkv tag, also from 2 threads"
