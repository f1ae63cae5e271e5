#!/bin/sh
# Makes the default speech frame corpora of configs/speech/*.yaml from the EWT sample shipped in
# data/ud_english_ewt_sample/: the first 300 training sentences spoken by three voices (en-us,
# en-gb, en-gb-x-rp) and the first 100 dev sentences by those three and the held-out voice en-029,
# at rates 150, 175 or 200 words per minute and pitches 40, 50 or 60 (drawn per utterance),
# 40 mel bands. About a minute on one core. The files are not part of the repository; a run
# replaces the ones of an earlier run (the same bytes for the same code).
#   usage: configs/speech/make-corpus.sh [DIR]   (default: $QKV_SPEECH_DIR, else build/speech)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
qkv=${QKV_BIN:-$root/build/qkv}
dir=${1:-${QKV_SPEECH_DIR:-$root/build/speech}}
sample=$root/data/ud_english_ewt_sample
mkdir -p "$dir"
"$qkv" speech "$sample/en_ewt-sample-train.conllu.gz" --out "$dir/train.h5" --max-sentences 300 \
    --voices en-us,en-gb,en-gb-x-rp --seed 1 --force
"$qkv" speech "$sample/en_ewt-sample-dev.conllu.gz" --out "$dir/dev.h5" --max-sentences 100 \
    --voices en-us,en-gb,en-gb-x-rp,en-029 --seed 2 --force
echo "speech corpora in $dir: train.h5, dev.h5 (held-out voice en-029 in dev.h5 only)"
