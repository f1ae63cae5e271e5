#!/bin/bash
# PyTorch parity of the whole tagger (issue 7): trains a small qkv model for a few dozen steps
# on UD English-EWT train, dumps its dev-set logits (qkv eval --logits), and checks that the
# PyTorch port tests/reference/qkv_torch.py, loading the same checkpoint, gives logits within
# 1e-4 relative (max |difference| / max |logit|) and the same predicted tag for every word.
# Two models: the EWT config's architecture (sinusoidal positions, GELU, pre-LN) and one with
# the other options (learned positions, scaled embeddings, post-LN, ReLU, windowed attention,
# no attention biases). Skips (77) when python3-torch, h5py or the EWT data are missing.
set -u
PY=/usr/bin/python3
SRC=${QKV_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! "$PY" -c 'import torch, h5py, yaml, numpy' 2>/dev/null; then
    echo "SKIP: $PY cannot import torch, h5py, yaml and numpy (apt-get install python3-torch python3-h5py python3-yaml)"
    exit 77
fi
EWT=${QKV_EWT_DIR:-}
if [ ! -f "$EWT/en_ewt-ud-train.conllu" ] || [ ! -f "$EWT/en_ewt-ud-dev.conllu" ]; then
    echo "SKIP: no UD English-EWT in QKV_EWT_DIR='$EWT' (data/fetch-ud.sh UD_English-EWT DIR)"
    exit 77
fi
QKV_BIN=${QKV_BIN:?QKV_BIN must name the qkv binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export QKV_EWT_DIR=$EWT
status=0
check() { # name, then --set overrides
    local name=$1
    shift
    local sets=()
    for kv in "$@"; do sets+=(--set "$kv"); done
    if ! "$QKV_BIN" train "$SRC/configs/ud_ewt_pos.yaml" --out "$work/$name" "${sets[@]}" \
        --set data.batch_tokens=1000 --set train.threads=2 --set log.progress=off \
        >"$work/$name.log" 2>&1; then
        echo "FAIL ($name): qkv train failed:"; tail -20 "$work/$name.log"; status=1; return
    fi
    local ckpt=$work/$name/checkpoints/last.h5
    if ! "$QKV_BIN" eval "$ckpt" "$EWT/en_ewt-ud-dev.conllu" --logits "$work/$name.logits.h5" >"$work/$name.eval" 2>&1; then
        echo "FAIL ($name): qkv eval --logits failed:"; cat "$work/$name.eval"; status=1; return
    fi
    echo "$name: $(head -1 "$work/$name.eval")"
    if ! "$PY" "$SRC/tests/reference/qkv_torch.py" compare "$ckpt" "$EWT/en_ewt-ud-dev.conllu" \
        "$work/$name.logits.h5" --rtol 1e-4; then
        echo "FAIL ($name): PyTorch and qkv disagree"; status=1
    fi
}
check ewt model.d_model=64 model.n_heads=4 model.d_ff=128 train.max_steps=30
check options model.d_model=48 model.n_heads=3 model.d_ff=96 model.n_layers=1 train.max_steps=15 \
    model.positional=learned model.max_len=200 model.scale_embeddings=true model.norm_first=false \
    model.activation=relu model.attn_window=5 model.attn_bias=false data.prefix_len=2 data.shape=false
exit $status
