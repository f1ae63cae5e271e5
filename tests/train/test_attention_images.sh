#!/bin/bash
# qkv attention on image models (a short run of configs/images_quick.yaml, patches with [CLS],
# and one of pixels without): a PNG with the gnuplot script beside it, one panel of weights per
# head over the grid (each a probability over the keys with the [CLS] weight), the query circled
# or [CLS]; the image of --image and --index. Bad input, each an error naming the option and
# leaving no file: a query outside the grid, --query cls without a [CLS] token, --index past the
# file, an image model given --sentence, a word model given --image or --query.
. "$(dirname "$0")/common.sh"
command -v gnuplot >/dev/null || fail "gnuplot is not installed (apt-get install gnuplot-nox)"
S=data/fashion_mnist_sample
SHORT=(--set train.max_steps=3 --set train.threads=1 --set log.progress=off --set model.n_layers=1)
"$QKV_BIN" train configs/images_quick.yaml "${SHORT[@]}" --out "$SCRATCH/vit" >"$SCRATCH/vit.log" 2>&1 ||
    { cat "$SCRATCH/vit.log" >&2; fail "qkv train images_quick"; }
vit=$SCRATCH/vit/checkpoints/last.h5
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"; }

out=$("$QKV_BIN" attention "$vit" --out "$SCRATCH/cls.png") || fail "qkv attention on the image model"
[ "$out" = "$SCRATCH/cls.png" ] || fail "printed '$out'"
is_png "$SCRATCH/cls.png"
# 4 heads: 4 datablocks of 7 x 7 cells; each head's grid weights plus its [CLS] weight sum to 1
[ "$(grep -c '^\$head[0-9] << EOD' "$SCRATCH/cls.gp")" = 4 ] || fail "cls.gp: not one datablock per head"
[ "$(grep -c '^\$pixels << EOD' "$SCRATCH/cls.gp")" = 1 ] || fail "cls.gp: no pixels"
grep -q 'query \[CLS\]' "$SCRATCH/cls.gp" || fail "the default query of a model with [CLS] is not [CLS]"
grep -q 'train-images-idx3-ubyte.gz, image 0: predicted ' "$SCRATCH/cls.gp" || fail "not the model's first image"
$PY - "$SCRATCH/cls.gp" <<'PY' || fail "cls.gp: the weights"
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^\$head(\d) << EOD\n(.*?)^EOD", text, re.S | re.M)
cls = [float(x) for x in re.findall(r"to \[CLS\] ([0-9.]+)'", text)]
assert len(blocks) == 4 == len(cls), (len(blocks), cls)
for (h, body), c in zip(blocks, cls):
    rows = [list(map(float, l.split())) for l in body.splitlines()]
    assert len(rows) == 49, len(rows)
    assert {(r[0], r[1]) for r in rows} == {(4 * i + 1.5, 4 * j + 1.5) for i in range(7) for j in range(7)}
    total = sum(r[2] for r in rows) + c
    assert abs(total - 1) < 2e-3, (h, total)
    assert max(r[3] for r in rows) == 230, h
PY
# one head, a grid query, another file's image: its pixels are that image's
"$QKV_BIN" attention "$vit" --image "$S/t10k-images-idx3-ubyte.gz" --index 3 --query 2,5 --head 1 \
    --out "$SCRATCH/q.png" >/dev/null || fail "--image --index --query --head"
is_png "$SCRATCH/q.png"
[ "$(grep -c '^\$head[0-9] << EOD' "$SCRATCH/q.gp")" = 1 ] || fail "--head 1: not one head"
grep -q '^\$query << EOD' "$SCRATCH/q.gp" && grep -A1 '^\$query << EOD' "$SCRATCH/q.gp" | grep -qx '21.5 9.5' ||
    fail "--query 2,5: the circle is not at row 2, column 5 (x 21.5, y 9.5)"
$PY - "$SCRATCH/q.gp" "$S/t10k-images-idx3-ubyte.gz" <<'PY' || fail "q.gp: not image 3 of the test file"
import gzip, re, sys
text = open(sys.argv[1]).read()
body = re.search(r"^\$pixels << EOD\n(.*?)^EOD", text, re.S | re.M).group(1)
grey = [int(l.split()[2]) for l in body.splitlines()]
raw = gzip.open(sys.argv[2]).read()[16 + 3 * 784:16 + 4 * 784]
assert grey == list(raw)
PY

# a model of pixels without [CLS]: the default query is the centre of the 28 x 28 grid
"$QKV_BIN" train configs/images_quick.yaml "${SHORT[@]}" --set model.input=pixels --set model.cls_token=false \
    --set model.pool=mean --set model.d_model=16 --set model.n_heads=2 --set model.d_ff=16 \
    --set data.batch_tokens=1600 --out "$SCRATCH/pix" >"$SCRATCH/pix.log" 2>&1 ||
    { cat "$SCRATCH/pix.log" >&2; fail "qkv train of a pixel model"; }
pix=$SCRATCH/pix/checkpoints/last.h5
"$QKV_BIN" attention "$pix" --out "$SCRATCH/pix.png" >/dev/null || fail "qkv attention on the pixel model"
is_png "$SCRATCH/pix.png"
grep -A1 '^\$query << EOD' "$SCRATCH/pix.gp" | grep -qx '14 14' || fail "the pixel model's default query is not 14,14"

# bad input: an error naming the option, and nothing written
nothing() { [ ! -e "$SCRATCH/bad.png" ] && [ ! -e "$SCRATCH/bad.gp" ] || fail "files written for: $*"; }
bad() { # bad EXPECTED ARGS...
    expect_error "$1" "$QKV_BIN" attention "${@:2}" --out "$SCRATCH/bad.png"
    nothing "${@:2}"
}
bad "--query 7,0 is outside the model's grid of 7 x 7 tokens (rows 0..6, columns 0..6)" "$vit" --query 7,0
bad "--query 0,-1 is outside the model's grid" "$vit" --query 0,-1
bad "--query is ROW,COL of the model's grid (e.g. 3,4) or cls, not 'middle'" "$vit" --query middle
bad "--query cls: the model has no [CLS] token" "$pix" --query cls
bad "--index 200: $S/t10k-images-idx3-ubyte.gz has images 0..199" "$vit" --image "$S/t10k-images-idx3-ubyte.gz" \
    --index 200
bad "--sentence is for a model of words; $vit reads images (model.input patches)" "$vit" --sentence "a b c"
bad "en_ewt-sample-dev.conllu.gz: not an IDX file" "$vit" --image data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
quick_run "$SCRATCH/words" --set train.max_steps=2
words=$SCRATCH/words/checkpoints/last.h5
bad "--image is for an image model; $words reads words (model.input words): give --sentence TEXT" "$words" \
    --image "$S/t10k-images-idx3-ubyte.gz"
bad "--query is for an image model" "$words" --sentence "a b" --query 1,1
bad "missing --sentence TEXT: $words reads words" "$words"
# an export names its data files without their folders: without --image, ask for it
"$QKV_BIN" export "$vit" --out "$SCRATCH/vit-export.h5" >/dev/null || fail "export of the image model"
bad "names no image file that can be read here: give --image FILE" "$SCRATCH/vit-export.h5"
echo "qkv attention on images: pictures of patches and pixels, errors for bad queries and inputs"
