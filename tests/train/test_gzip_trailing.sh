#!/bin/bash
# Bytes after the last gzip member that begin no other member are an error naming the file, for
# every reader of gzip input: CoNLL-U and column files read whole (qkv stats, qkv tag MODEL FILE),
# raw text read as a stream (qkv tag FILE), IDX images (qkv train of an image config) and the
# Python port's readers (read_conllu, read_idx); two members in a row (cat a.gz b.gz) read as
# one text.
source "$(dirname "$0")/common.sh"
S=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
I=data/fashion_mnist_sample
MSG="bytes after the last gzip member are not gzip data"
cat $S $S >"$SCRATCH/two.conllu.gz"
{ cat $S; printf 'appended\n'; } >"$SCRATCH/junk.conllu.gz"
{ cat $S; printf '\0\0\0\0'; } >"$SCRATCH/zeros.conllu.gz"
printf 'The cat sat on the mat.\n' | gzip -c >"$SCRATCH/raw.txt.gz"
cat "$SCRATCH/raw.txt.gz" "$SCRATCH/raw.txt.gz" >"$SCRATCH/raw2.txt.gz"
{ cat "$SCRATCH/raw.txt.gz"; printf 'x'; } >"$SCRATCH/junk.txt.gz"
"$QKV_BIN" stats "$SCRATCH/two.conllu.gz" >"$SCRATCH/two.stats" || fail "qkv stats of two members"
"$QKV_BIN" stats $S >"$SCRATCH/one.stats" || fail "qkv stats"
for f in junk zeros; do
    expect_error "$f.conllu.gz: $MSG" "$QKV_BIN" stats "$SCRATCH/$f.conllu.gz"
done
expect_error "junk.conllu.gz: $MSG" "$QKV_BIN" tag data/models/en.h5 "$SCRATCH/junk.conllu.gz"
# raw text, read as a stream
"$QKV_BIN" tag "$SCRATCH/raw2.txt.gz" >"$SCRATCH/raw2.out" || fail "qkv tag of raw text in two members"
[ "$(grep -c '^# text = The cat sat on the mat.$' "$SCRATCH/raw2.out")" = 2 ] || fail "two members: not both texts"
expect_error "junk.txt.gz: $MSG" "$QKV_BIN" tag "$SCRATCH/junk.txt.gz"
# IDX images
cp $I/train-labels-idx1-ubyte.gz "$SCRATCH/"
{ cat $I/train-images-idx3-ubyte.gz; printf 'zz'; } >"$SCRATCH/train-images-idx3-ubyte.gz"
expect_error "train-images-idx3-ubyte.gz: $MSG" "$QKV_BIN" train configs/images_quick.yaml \
    --set data.train="$SCRATCH/train-images-idx3-ubyte.gz" --set train.max_steps=1 --out "$SCRATCH/img"
# the Python port
PYTHONPATH=python $PY - "$SCRATCH" <<'PY' || fail "the Python port's readers"
import sys
import qkv_torch_text, qkv_torch_dense
d = sys.argv[1]
n = len(qkv_torch_text.read_conllu("data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz"))
assert len(qkv_torch_text.read_conllu(d + "/two.conllu.gz")) == 2 * n
for path, read in [(d + "/junk.conllu.gz", qkv_torch_text.read_conllu), (d + "/zeros.conllu.gz", qkv_torch_text.read_conllu),
                   (d + "/train-images-idx3-ubyte.gz", qkv_torch_dense.read_idx)]:
    try:
        read(path)
    except ValueError as e:
        assert str(e) == path + ": bytes after the last gzip member are not gzip data", e
    else:
        raise AssertionError(path + ": read")
PY
echo ok
