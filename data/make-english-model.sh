#!/bin/sh
# Makes the shipped English model data/models/en.h5 from UD English-EWT, in three stages, one
# after the other with every core each:
#   1. segmenter: configs/ud_ewt_tokenize.yaml (tokens, multiword tokens, sentences; its lexicon)
#   2. tagger:    configs/ud_ewt_english.yaml (UPOS, XPOS, FEATS, LEMMA, HEAD and DEPREL)
#   3. export:    both bundled in one float16 file whose parser decodes projective trees
#                 (Eisner, chosen on dev: it does not enter training), with the lemma lexicon
#                 of the training file (built again from it, so that any tagger file gets
#                 it), scored on dev (gold tokens and raw text), then moved over OUT.h5 in
#                 one rename (OUT.h5 is never half-written)
# Each stage prints its dev scores and its time. The runs stay in the run folder; run the script
# again after a kill or a failure and each training resumes from its last checkpoint (a finished
# stage is not trained again; remove its folder to retrain it).
# Usage: data/make-english-model.sh [EWT_DIR [OUT.h5]]
#   EWT_DIR  the folder of en_ewt-ud-{train,dev}.conllu (default: $QKV_EWT_DIR, else
#            data/ud_english_ewt, filled by data/fetch-ud.sh UD_English-EWT data/ud_english_ewt)
#   OUT.h5   default: data/models/en.h5
# Environment: QKV (the qkv command, default build/qkv), QKV_RUNS (the run folder, default
# runs/english-model), QKV_MAKE_SET (more arguments for both trainings, split at spaces, e.g.
# QKV_MAKE_SET="--set train.epochs=2" for a short trial run). Run from the source tree's root.
# About 45 minutes on a 2-core machine (docs/results/2026-12-05-english-model-head-dropout.md).
set -eu
QKV=${QKV:-build/qkv}
EWT=${1:-${QKV_EWT_DIR:-data/ud_english_ewt}}
OUT=${2:-data/models/en.h5}
RUNS=${QKV_RUNS:-runs/english-model}
me=make-english-model.sh

for f in train dev; do
    file=$EWT/en_ewt-ud-$f.conllu
    if [ ! -s "$file" ]; then
        echo "$me: $file: no such file (get UD English-EWT with: data/fetch-ud.sh UD_English-EWT data/ud_english_ewt, or name its folder as the first argument)" >&2
        exit 1
    fi
    # A CoNLL-U file ends with the blank line after its last sentence; a cut download does not.
    if [ "$(tail -c 2 "$file" | od -An -c | tr -d ' ')" != '\n\n' ]; then
        echo "$me: $file: incomplete (it does not end with a sentence's blank line); fetch it again with data/fetch-ud.sh UD_English-EWT data/ud_english_ewt" >&2
        exit 1
    fi
done
if [ ! -x "$QKV" ]; then
    echo "$me: $QKV: no qkv command (build it: cmake -S . -B build && cmake --build build -j2, or set QKV)" >&2
    exit 1
fi
QKV_EWT_DIR=$(cd "$EWT" && pwd)
export QKV_EWT_DIR
mkdir -p "$RUNS"

# stage NAME CONFIG: trains CONFIG into $RUNS/NAME, resuming from its last checkpoint when a
# run of it was stopped; a finished run (its file `finished`) is kept as it is.
stage() {
    name=$1 config=$2 dir=$RUNS/$1
    start=$(date +%s)
    if [ -f "$dir/finished" ]; then
        echo "== $name: finished before ($dir/finished); remove $dir to train it again"
        return 0
    elif [ -f "$dir/checkpoints/last.h5" ] && [ -f "$dir/config.yaml" ]; then
        echo "== $name: resuming $dir from checkpoints/last.h5"
        "$QKV" train "$dir/config.yaml" --resume "$dir/checkpoints/last.h5" --out "$dir"
    else
        echo "== $name: training $config into $dir"
        # shellcheck disable=SC2086 # QKV_MAKE_SET is a list of arguments
        "$QKV" train "$config" --out "$dir" --force ${QKV_MAKE_SET:-}
    fi
    date -u +%FT%TZ >"$dir/finished"
    echo "== $name: $(($(date +%s) - start)) s"
}

stage segmenter configs/ud_ewt_tokenize.yaml
stage tagger configs/ud_ewt_english.yaml

start=$(date +%s)
tmp=$(dirname "$OUT")/.tmp-$$-$(basename "$OUT")
trap 'rm -f "$tmp"' EXIT
echo "== export: $RUNS/tagger/checkpoints/best.h5 with the segmenter, float16, Eisner's trees, the lemma lexicon"
"$QKV" export "$RUNS/tagger/checkpoints/best.h5" --tokenizer "$RUNS/segmenter/checkpoints/best.h5" \
    --float16 --tree-decoder eisner --lemma-lexicon "$QKV_EWT_DIR/en_ewt-ud-train.conllu" --out "$tmp"
dev=$QKV_EWT_DIR/en_ewt-ud-dev.conllu
echo "== dev, gold tokens"
"$QKV" eval "$tmp" "$dev"
echo "== dev, raw text"
"$QKV" eval "$tmp" "$dev" --raw
mv -f "$tmp" "$OUT"
trap - EXIT
echo "== export and scores: $(($(date +%s) - start)) s"
sha256sum "$OUT"
ls -l "$OUT"
