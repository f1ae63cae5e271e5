#!/bin/bash
# PyTorch parity of the image models with 2-D convolutions (python/qkv_torch_conv.py): the
# convolutional stem (model.input: conv_patches) and the CNN encoder (model.encoder: cnn2d), on
# the shipped Fashion-MNIST sample. Each model is trained by qkv for 3 steps of plain SGD
# (--stop-at-step 3), then:
#   - logits: `qkv eval --logits` of the sample's first 40 test images against `qkv_torch.py
#     compare` on the same checkpoint, within 1e-4 (relative) and the same class for every
#     token, as reference/test_torch_images checks the ViT;
#   - loss and gradients: the run resumed for step 4 alone at a learning rate of 10, and
#     tests/reference/torch_step.py: qkv's training loss of step 4 within 1e-4 (relative) of the
#     port's on the same batch and weights, and qkv's gradients ((before - after) / lr, every
#     parameter) within 1e-4 of the largest as the logits are compared.
# Models: the shipped configs' own shapes (configs/fashion_mnist_stem.yaml: two 3 x 3 stem
# layers of 32 channels under patches of 4, [CLS], learned 2-D positions, GELU;
# configs/fashion_mnist_cnn.yaml: patches of 2, d_model 71, 3 blocks of 3 x 3 convolutions with
# max pooling down to one cell, mean pooling), then a stem of one ReLU layer without [CLS]
# (sinusoidal 2-D positions, mean pooling), the patch embedding alone (no stem layer), a CNN of
# 5 x 5 convolutions with average pooling, ReLU and scaled embeddings, and a CNN without
# pooling (the maximum over all 7 x 7 cells). Skipped (exit 77) without torch.
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
S=$SRC/data/fashion_mnist_sample
make_test_idx 40 # the first 40 test images and their labels, to stay fast
IMAGES=$work/test-images-idx3-ubyte
# plain SGD without dropout, augmentation or clipping: a step's parameter change is lr times
# its gradient (tests/reference/torch_step.py)
SGD=(data.train="$S/train-images-idx3-ubyte.gz" data.augment=none model.dropout=0 optim.name=sgd optim.momentum=0
     optim.weight_decay=0 optim.warmup_steps=0 optim.decay=none optim.lr=0.1 train.clip_grad_norm=0 train.max_steps=4
     train.threads=1 log.every_steps=1 log.progress=off log.plot=false)
check() { # name, config, then --set overrides
    local name=$1 config=$SRC/configs/$2 sets=()
    shift 2
    for kv in "${SGD[@]}" "$@"; do sets+=(--set "$kv"); done
    if ! "$QKV_BIN" train "$config" --out "$work/$name" "${sets[@]}" --stop-at-step 3 >"$work/$name.log" 2>&1; then
        echo "FAIL ($name): qkv train failed:"; tail -20 "$work/$name.log"; status=1; return
    fi
    local ckpt=$work/$name/checkpoints/last.h5
    if ! "$QKV_BIN" eval "$ckpt" "$IMAGES" --logits "$work/$name.logits.h5" >"$work/$name.eval" 2>&1; then
        echo "FAIL ($name): qkv eval --logits failed:"; cat "$work/$name.eval"; status=1; return
    fi
    echo "$name: $(head -1 "$work/$name.eval" | sed 's|.*: accuracy|accuracy|')"
    torch_compare "$name" "$IMAGES"
    if ! "$QKV_BIN" train "$work/$name/config.yaml" --resume "$ckpt" --out "$work/$name.step" --set optim.lr=10 \
        >"$work/$name.step.log" 2>&1; then
        echo "FAIL ($name): qkv train --resume failed:"; tail -20 "$work/$name.step.log"; status=1; return
    fi
    if ! PYTHONPATH=$SRC/python "$PY" "$SRC/tests/reference/torch_step.py" "$ckpt" \
        "$work/$name.step/checkpoints/last.h5" "$work/$name.step/metrics.tsv" --rtol 1e-4; then
        echo "FAIL ($name): the loss or gradients of step 4 differ"; status=1
    fi
}
check stem fashion_mnist_stem.yaml
check cnn fashion_mnist_cnn.yaml
check stem_relu fashion_mnist_stem.yaml model.stem_layers=1 model.stem_channels=8 model.activation=relu \
    model.cls_token=false model.pool=mean model.positional=sinusoidal2d model.d_model=32 model.n_layers=1 model.d_ff=64
check stem0 fashion_mnist_stem.yaml model.stem_layers=0 model.patch_size=7 model.d_model=32 model.n_layers=1 \
    model.d_ff=64
check cnn_avg fashion_mnist_cnn.yaml model.patch_size=4 model.d_model=24 model.n_layers=2 model.cnn_kernel=5 \
    model.cnn2d_pool=avg model.activation=relu model.scale_embeddings=true data.batch_tokens=1568
check cnn_nopool fashion_mnist_cnn.yaml model.patch_size=4 model.d_model=16 model.n_layers=2 model.cnn2d_pool=none \
    data.batch_tokens=1568
exit $status
