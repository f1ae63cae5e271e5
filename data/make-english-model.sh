#!/bin/sh
# Makes the shipped English model data/models/en.h5 from UD English-EWT: a segmenter
# (configs/ud_ewt_tokenize.yaml for 2 epochs, the config runs 8) and the small all-columns tagger
# (configs/ud_ewt_small.yaml), both trained on train with dev for selection, at the same time
# with one thread each; then one float16 export that bundles them, and its sha256.
# Usage: data/make-english-model.sh [EWT_DIR [OUT.h5]]
#   EWT_DIR  the folder of en_ewt-ud-{train,dev}.conllu (default: $QKV_EWT_DIR, else
#            data/ud_english_ewt, filled by data/fetch-ud.sh UD_English-EWT data/ud_english_ewt)
#   OUT.h5   default: data/models/en.h5
# Environment: QKV (the qkv command, default build/qkv), QKV_RUNS (the two run folders, default
# runs/english-model). Run from the source tree's root.
set -eu
QKV=${QKV:-build/qkv}
QKV_EWT_DIR=${1:-${QKV_EWT_DIR:-data/ud_english_ewt}}
OUT=${2:-data/models/en.h5}
RUNS=${QKV_RUNS:-runs/english-model}
export QKV_EWT_DIR
for f in train dev; do
    if [ ! -f "$QKV_EWT_DIR/en_ewt-ud-$f.conllu" ]; then
        echo "make-english-model.sh: $QKV_EWT_DIR/en_ewt-ud-$f.conllu: no such file" >&2
        exit 1
    fi
done
nice -n 15 "$QKV" train configs/ud_ewt_tokenize.yaml --set train.epochs=2 --set train.threads=1 \
    --out "$RUNS/segmenter" --force &
seg=$!
nice -n 15 "$QKV" train configs/ud_ewt_small.yaml --set train.threads=1 --out "$RUNS/tagger" --force &
tag=$!
status=0
wait "$seg" || status=1
wait "$tag" || status=1
if [ "$status" -ne 0 ]; then
    echo "make-english-model.sh: a training failed (see above)" >&2
    exit 1
fi
"$QKV" export "$RUNS/tagger/checkpoints/best.h5" --tokenizer "$RUNS/segmenter/checkpoints/best.h5" \
    --float16 --out "$OUT" --force
sha256sum "$OUT"
