#!/bin/bash
# Images end to end on the shipped Fashion-MNIST sample: qkv train (validation split, best.h5,
# the class report and the confusion plot), qkv eval on the test images (accuracy over images,
# per-class scores, the confusion matrix, --json, --confusion), qkv tag (one class and its
# probability per image); and bad input, each an error naming the file or the key with no run
# folder made: a file that is not IDX, a patch that does not tile the images, 2-D positions on
# a word model, the class head on words, an image model given a CoNLL-U file, a word model given
# images, images of the wrong size, labels out of range.
. "$(dirname "$0")/common.sh"
S=data/fashion_mnist_sample
CFG=configs/images_quick.yaml
SHORT=(--set train.max_steps=20 --set train.threads=1 --set log.progress=off)
run=$SCRATCH/run
"$QKV_BIN" train "$CFG" "${SHORT[@]}" --out "$run" >"$SCRATCH/train.log" 2>&1 ||
    { cat "$SCRATCH/train.log" >&2; fail "qkv train $CFG"; }
grep -q "(validation part): accuracy .* of 100 images" "$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log" >&2; fail "no report on the 100 validation images"; }
[ -s "$run/plots/confusion.png" ] || fail "no confusion plot"
ckpt=$run/checkpoints/best.h5

"$QKV_BIN" eval "$ckpt" "$S/t10k-images-idx3-ubyte.gz" --confusion "$SCRATCH/c.png" >"$SCRATCH/eval" ||
    fail "qkv eval on the test images"
grep -q "t10k-images-idx3-ubyte.gz: accuracy .* of 200 images" "$SCRATCH/eval" || fail "no accuracy over 200 images"
grep -q "^  Ankle boot " "$SCRATCH/eval" || fail "no per-class row"
grep -q "confusion matrix" "$SCRATCH/eval" || fail "no confusion matrix"
[ -s "$SCRATCH/c.png" ] && [ -s "$SCRATCH/c.gp" ] || fail "no --confusion image and script"
"$QKV_BIN" eval "$ckpt" "$S/t10k-images-idx3-ubyte.gz" --json >"$SCRATCH/eval.json" || fail "qkv eval --json"
# the JSON's accuracy is its correct/images, and its confusion matrix sums to the images, its
# diagonal to the correct ones
$PY - "$SCRATCH/eval.json" <<'PY' || fail "eval --json"
import json, sys
r = json.load(open(sys.argv[1]))
m = r["confusion_matrix"]
assert r["images"] == 200 == sum(map(sum, m)), r["images"]
assert sum(m[i][i] for i in range(10)) == r["correct"]
assert abs(r["accuracy"] - r["correct"] / 200) < 1e-6
PY

"$QKV_BIN" tag "$ckpt" "$S/t10k-images-idx3-ubyte.gz" >"$SCRATCH/tags" || fail "qkv tag on images"
[ "$(wc -l <"$SCRATCH/tags")" -eq 200 ] || fail "not one line per image"
# each line a class name and a probability in (0, 1]; the classes agree with eval's accuracy
$PY - "$SCRATCH/tags" "$SCRATCH/eval.json" <<'PY' || fail "tag lines"
import gzip, json, sys
names = "T-shirt/top,Trouser,Pullover,Dress,Coat,Sandal,Shirt,Sneaker,Bag,Ankle boot".split(",")
lines = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
assert all(len(l) == 2 and l[0] in names and 0 < float(l[1]) <= 1 for l in lines), lines[:3]
gold = gzip.open("data/fashion_mnist_sample/t10k-labels-idx1-ubyte.gz").read()[8:]
correct = sum(names.index(l[0]) == g for l, g in zip(lines, gold))
assert correct == json.load(open(sys.argv[2]))["correct"], correct
PY
zcat "$S/t10k-images-idx3-ubyte.gz" | "$QKV_BIN" tag "$ckpt" - | cmp -s - "$SCRATCH/tags" ||
    fail "qkv tag from standard input differs"

# bad input
bad() { # bad EXPECTED ARGS...: qkv train fails naming it, and makes no run folder
    expect_error "$1" "$QKV_BIN" train "${@:2}" --out "$SCRATCH/bad"
    [ ! -e "$SCRATCH/bad" ] || fail "a run folder was made for: ${*:2}"
}
conllu=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
bad "$conllu: not an IDX file" "$CFG" --set data.train="$QKV_SOURCE_DIR/$conllu"
printf 'not an image' >"$SCRATCH/x-images-idx3-ubyte"
bad "x-images-idx3-ubyte: not an IDX file" "$CFG" --set data.train="$SCRATCH/x-images-idx3-ubyte"
bad "model.patch_size = 5 does not divide the images' data.image_rows x data.image_cols = 28 x 28" "$CFG" \
    --set model.patch_size=5
bad "model.positional = learned2d is a 2-D encoding: it needs an image input" configs/quickstart.yaml \
    --set model.positional=learned2d
bad "model.output = class needs an image input" configs/quickstart.yaml --set model.output=class
bad "model.pool = cls needs model.cls_token = true" "$CFG" --set model.cls_token=false
bad "images of 28 x 28 pixels x 1 channels, the model's (data.image_rows, image_cols, image_channels) are 32 x 32 x 1" \
    "$CFG" --set data.image_rows=32 --set data.image_cols=32
bad "train-labels-idx1-ubyte.gz: label 9 of image 0 is not one of the 5 classes 0 .. 4" "$CFG" --set data.n_classes=5 \
    --set data.class_names=
bad "data.class_names: 10 names for data.n_classes = 11" "$CFG" --set data.n_classes=11
expect_error "$conllu: not an IDX file" "$QKV_BIN" eval "$ckpt" "$conllu"
expect_error "$conllu: not an IDX file" "$QKV_BIN" tag "$ckpt" "$conllu"
expect_error "--sentence is for a model of words; $ckpt reads images (model.input patches)" \
    "$QKV_BIN" attention "$ckpt" --sentence "a b c" --out "$SCRATCH/attention.png"
expect_error "reads images (IDX files): --format text and --tokenizer are for words" "$QKV_BIN" tag "$ckpt" - \
    --format text </dev/null
# a word model given images: the corpus reader refuses the bytes, naming the file
quick_run "$SCRATCH/words" --set train.max_steps=2
expect_error "t10k-images-idx3-ubyte.gz:1:" "$QKV_BIN" eval "$SCRATCH/words/checkpoints/last.h5" \
    "$S/t10k-images-idx3-ubyte.gz"
echo "images: ok"
