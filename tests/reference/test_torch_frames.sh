#!/bin/bash
# PyTorch parity of the speech frame models (model.input frames, python/qkv_torch_dense.py): a
# tiny frame corpus is spoken from the shipped EWT sample with `qkv speech` (two voices, 40
# mel bands), small models are trained on it for a few steps, `qkv eval --logits` dumps the
# logits of every token of a second corpus, and `qkv_torch.py compare` must give logits within
# 1e-4 (relative) and the same label for every token. Models: phonemes with sinusoidal positions
# in a banded window (model.attn_window), and UPOS of 3 frames stacked a token
# (data.frame_stack) with learned positions and whole-utterance attention. Skipped (exit 77)
# without torch, or when qkv was built without QKV_SPEECH (no eSpeak NG or FFTW).
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
if ! "$QKV_BIN" speech --help >/dev/null 2>&1; then
    echo "skipped: qkv was built without qkv speech (QKV_SPEECH: libespeak-ng-dev and libfftw3-dev)"
    exit 77
fi
S=$SRC/data/ud_english_ewt_sample
gzip -dc "$S/en_ewt-sample-train.conllu.gz" >"$work/train.conllu"
gzip -dc "$S/en_ewt-sample-dev.conllu.gz" >"$work/dev.conllu"
for part in train dev; do
    n=40; [ $part = dev ] && n=10
    "$QKV_BIN" speech "$work/$part.conllu" --out "$work/$part.h5" --voices en-us,en-gb --n-mels 40 \
        --max-sentences $n >"$work/$part.speech.log" 2>&1 || { tail -5 "$work/$part.speech.log"; fail "qkv speech"; }
done
TORCH_SUMMARY='s|.*h5: ||'
check() { # name, then --set overrides
    torch_logits "$1" "$SRC/configs/speech/phoneme.yaml" "$work/dev.h5" data.train="$work/train.h5" \
        data.dev="$work/dev.h5" data.held_out_voice= train.max_steps=4 log.progress=off log.plot=false train.threads=2 \
        model.d_model=32 model.d_ff=64 optim.warmup_steps=0 optim.lr=0.01 data.batch_tokens=2000 "${@:2}" &&
        torch_compare "$1" "$work/dev.h5"
}
check phoneme_banded
check upos_stacked data.frame_labels=upos data.frame_stack=3 model.attn_window=0 model.positional=learned \
    model.max_len=2000
exit $status
