#!/bin/bash
# data.augment on the shipped Fashion-MNIST sample: the training batches are changed (the
# training loss differs from a run without it), the dev images never are (the dev accuracy the
# run reports at its last step is what qkv eval gives for last.h5 on the same file, image for
# image), and a word model with data.augment is an error naming the key.
. "$(dirname "$0")/common.sh"
S=$QKV_SOURCE_DIR/data/fashion_mnist_sample
CFG=configs/images_quick.yaml
SHORT=(--set train.max_steps=12 --set train.threads=1 --set log.progress=off --set log.every_steps=4
       --set data.valid_fraction=0 --set data.dev="$S/t10k-images-idx3-ubyte.gz")
for a in none crop_flip; do
    "$QKV_BIN" train "$CFG" "${SHORT[@]}" --set data.augment=$a --set data.augment_pad=6 --out "$SCRATCH/$a" \
        >"$SCRATCH/$a.log" 2>&1 || { cat "$SCRATCH/$a.log" >&2; fail "qkv train with data.augment=$a"; }
done
# the training losses of the two runs differ after the first logged step (the images differ)
$PY - "$SCRATCH/none/metrics.tsv" "$SCRATCH/crop_flip/metrics.tsv" <<'PY' || fail "augmentation did not change training"
import sys
def losses(p):
    rows = [l.rstrip("\n").split("\t") for l in open(p)][1:]
    return [float(r[3]) for r in rows if r[2] == "train"]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
assert len(a) == len(b) == 3, (a, b)
assert all(abs(x - y) > 1e-6 for x, y in zip(a, b)), (a, b)
PY
# the last dev row of the augmented run equals qkv eval of last.h5 on the dev file
"$QKV_BIN" eval "$SCRATCH/crop_flip/checkpoints/last.h5" "$S/t10k-images-idx3-ubyte.gz" --json >"$SCRATCH/eval.json" ||
    fail "qkv eval"
$PY - "$SCRATCH/crop_flip/metrics.tsv" "$SCRATCH/eval.json" <<'PY' || fail "the dev images were augmented"
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
dev = [r for r in rows if r[2] == "dev"]
assert dev and dev[-1][0] == "12", dev
r = json.load(open(sys.argv[2]))
assert round(float(dev[-1][4]) * 200) == r["correct"], (dev[-1], r["correct"])
PY
expect_error "data.augment = crop_flip is for image inputs" "$QKV_BIN" train configs/quickstart.yaml \
    --set data.augment=crop_flip --out "$SCRATCH/bad"
[ ! -e "$SCRATCH/bad" ] || fail "a run folder was made for a word model with data.augment"
echo ok
