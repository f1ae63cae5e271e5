#!/bin/bash
# PyTorch parity of the whole tagger: trains a small qkv model for a few dozen steps
# on UD English-EWT train, dumps its dev-set logits (qkv eval --logits), and checks that the
# PyTorch port python/qkv_torch.py, loading the same checkpoint, gives logits within
# 1e-4 relative (max |difference| / max |logit|) and the same predicted tag for every word.
# Models: the EWT config's architecture (sinusoidal positions, GELU, pre-LN), one with
# the other options (learned positions, scaled embeddings, post-LN, ReLU, windowed attention,
# no attention biases), one with the CRF output layer (NLL within 1e-4 relative of qkv eval's
# loss, identical Viterbi paths), and one with the character CNN word encoder, relative position biases
# in windowed attention and a parameter average (train.ema_decay: the checkpoint's /params hold
# the average, /train/raw_params the raw values, which the port must ignore), a BiLSTM and a
# CNN encoder (model.encoder). Skipped (exit 77)
# when QKV_EWT_DIR is not set or python3 cannot import torch and h5py; fails when QKV_EWT_DIR
# does not hold the EWT train and dev files. Then rope (with relative biases, a window and the
# causal mask) and alibi (3 heads, not a power of two, in windowed attention), and floater.
set -u
EWT=${QKV_EWT_DIR:-}
if [ -z "$EWT" ]; then
    echo "skipped: QKV_EWT_DIR is not set (the UD English-EWT folder; data/fetch-ud.sh UD_English-EWT DIR fetches it)"
    exit 77
fi
if [ ! -f "$EWT/en_ewt-ud-train.conllu" ] || [ ! -f "$EWT/en_ewt-ud-dev.conllu" ]; then
    echo "FAIL: no en_ewt-ud-train.conllu and en_ewt-ud-dev.conllu in QKV_EWT_DIR=$EWT"
    exit 1
fi
# shellcheck source=tests/reference/torch_common.sh
. "$(dirname "$0")/torch_common.sh"
export QKV_EWT_DIR=$EWT
check() { # name, then --set overrides
    local name=$1 dev=$EWT/en_ewt-ud-dev.conllu
    shift
    torch_logits "$name" "$SRC/configs/ud_ewt_pos.yaml" "$dev" "$@" data.batch_tokens=1000 train.threads=2 \
        log.progress=off || return 0
    local loss_args=()
    if [[ " $* " == *" model.output=crf "* ]]; then # the CRF's NLL too, from qkv eval --json
        local loss
        if ! loss=$("$QKV_BIN" eval "$work/$name/checkpoints/last.h5" "$dev" --json |
            "$PY" -c 'import json, sys; print(json.load(sys.stdin)["loss"])'); then
            echo "FAIL ($name): qkv eval --json failed"; status=1; return
        fi
        loss_args=(--loss "$loss")
    fi
    torch_compare "$name" "$dev" "${loss_args[@]}"
}
check ewt model.d_model=64 model.n_heads=4 model.d_ff=128 train.max_steps=30
check options model.d_model=48 model.n_heads=3 model.d_ff=96 model.n_layers=1 train.max_steps=15 \
    model.positional=learned model.max_len=200 model.scale_embeddings=true model.norm_first=false \
    model.activation=relu model.attn_window=5 model.attn_bias=false data.prefix_len=2 data.shape=false
check chars_rel model.d_model=48 model.n_heads=3 model.d_ff=96 model.n_layers=2 train.max_steps=30 \
    model.char_dim=16 model.char_filters=24 model.attn_rel_clip=3 model.attn_window=4 train.ema_decay=0.99
check rope_rel model.d_model=48 model.n_heads=4 model.d_ff=96 model.n_layers=2 train.max_steps=20 \
    model.positional=rope model.rope_base=100 model.attn_rel_clip=2 model.attn_window=5 model.attn_causal=true
check alibi model.d_model=48 model.n_heads=3 model.d_ff=96 model.n_layers=2 train.max_steps=20 \
    model.positional=alibi model.attn_window=6
check floater model.d_model=32 model.n_heads=2 model.d_ff=64 model.n_layers=1 train.max_steps=20 \
    model.positional=floater
# the other encoders (model.encoder): a 2-layer BiLSTM over packed sentences (nn.LSTM), and
# dilated residual convolution blocks (nn.Conv1d with per-sentence zero padding); the EWT
# config's transformer-only keys back at their defaults (else a config error names them)
T_OFF="model.d_ff=512 model.attn_window=0 model.attn_rel_clip=0"
# shellcheck disable=SC2086
check bilstm $T_OFF model.encoder=bilstm model.d_model=48 model.lstm_hidden=32 model.n_layers=2 train.max_steps=30
# shellcheck disable=SC2086
check cnn $T_OFF model.encoder=cnn model.d_model=48 model.n_layers=2 model.cnn_kernel=5 model.cnn_dilation=2 \
    model.char_dim=16 model.char_filters=24 train.max_steps=30
check crf model.d_model=48 model.n_heads=3 model.d_ff=96 model.n_layers=1 train.max_steps=30 model.output=crf
# the chars_rel check proves something only if the average and the raw parameters differ (so
# reading /train/raw_params would have failed it) and the new parameters are there
if [ -f "$work/chars_rel/checkpoints/last.h5" ] && ! "$PY" - "$work/chars_rel/checkpoints/last.h5" <<'EOF'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    need = ["chars.embed", "chars.conv.w", "chars.conv.b", "chars.proj.w", "encoder.layers.1.attn.rel_bias"]
    missing = [n for n in need if n not in f["/params"]]
    if missing or "/vocab/chars" not in f or "/train/raw_params" not in f:
        sys.exit(f"FAIL (chars_rel): checkpoint lacks {missing or '/vocab/chars or /train/raw_params'}")
    gap = max(np.abs(np.array(f["/params/" + n]) - np.array(f["/train/raw_params/" + n])).max() for n in f["/params"])
    if not gap > 1e-3:
        sys.exit(f"FAIL (chars_rel): /params and /train/raw_params differ by only {gap:.3g}")
EOF
then
    status=1
fi
exit $status
