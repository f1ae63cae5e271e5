#!/bin/bash
# PyTorch parity of the image models (python/qkv_torch_dense.py) on the shipped Fashion-MNIST
# sample: small models of configs/images_quick.yaml are trained for a few steps, `qkv eval
# --logits` dumps the logits of the sample's first 40 test images (every token holds its image's
# class logits), and `qkv_torch.py compare` must give logits within 1e-4 (relative) and the same
# class for every token. Models: patches with [CLS] and learned 2-D positions (the config's),
# 2-D sinusoidal positions with mean pooling and no [CLS], rope2d with a 2-D window, rel2d
# (with [CLS], whose pairs have their own bias), quadratic2d with scaled embeddings, and pixels
# (a 28 x 28 grid of tokens) in a 2-D window. Skipped (exit 77) without torch.
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
make_test_idx 40 # the first 40 test images and their labels, to stay fast
IMAGES=$work/test-images-idx3-ubyte
TORCH_SUMMARY='s|.*: accuracy|accuracy|'
check() { # name, then --set overrides
    torch_logits "$1" "$SRC/configs/images_quick.yaml" "$IMAGES" train.max_steps=4 log.progress=off log.plot=false \
        train.threads=2 model.n_layers=2 model.d_model=32 model.d_ff=64 optim.warmup_steps=0 optim.lr=0.02 "${@:2}" &&
        torch_compare "$1" "$IMAGES"
}
check patches_cls
check sin2d_mean model.positional=sinusoidal2d model.pool=mean model.cls_token=false
check rope2d_window model.positional=rope2d model.rope_base=100 model.attn_window_2d=2
check rel2d model.positional=rel2d model.rel2d_clip=2
check quadratic2d model.positional=quadratic2d model.scale_embeddings=true model.pool=mean
check pixels model.input=pixels model.patch_size=1 model.attn_window_2d=3 model.d_model=16 model.d_ff=32 \
    model.n_layers=1 data.batch_tokens=3200
exit $status
