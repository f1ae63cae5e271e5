#!/bin/bash
# The image experiments on Fashion-MNIST (Xiao et al. 2017), validation accuracy only (the test
# images are for the shipped configs' final report, docs/guide/images.md):
#   a. attention against a CNN at matched parameters and steps, by training-set size: the ViT of
#      configs/fashion_mnist.yaml (136,714 parameters) and the cnn2d model of
#      configs/fashion_mnist_cnn.yaml (137,963), each trained for IMG_STEPS steps of 64 images
#      on seeded subsets of IMG_SIZES images;
#   b. the 2-D positional kinds (sinusoidal2d, learned2d, rel2d, quadratic2d, rope2d, none) in
#      the ViT, IMG_PE_STEPS steps on IMG_PE_SIZE images;
#   c. Cordonnier's figure: 2 x 2 pixel tokens (a 14 x 14 grid, no [CLS], mean pooling) with
#      quadratic2d or rel2d positions, IMG_MAP_STEPS steps on IMG_PE_SIZE images; then, for each
#      first-layer head, the attention its position term alone gives to the offsets around a
#      query at the centre of the grid (head_maps.py reads the learned biases from best.h5);
#      batches of 32 images.
# The validation set is IMG_VALID images drawn (seed 1) from the 60,000 training images; the
# training subsets are nested, drawn from the others (subsets.py). Each arm is one of the shipped
# configs with the --set overrides printed here, so arms differ only where the experiment says.
# Budgets are steps, never wall-clock time. Writes RESULTS/images_results.md (the tables),
# RESULTS/images_size.png, RESULTS/images_heads.png and their gnuplot scripts (data inline).
#
# usage: configs/experiments/images/run.sh [RUN_DIR]
#   RUN_DIR        runs and data subsets (default: runs/images)
#   QKV_BIN        the qkv command (default: build/qkv)
#   QKV_FASHION_MNIST_DIR  the dataset (default: /usr/share/datasets/fashion-mnist)
#   IMG_RESULTS    where the tables and figures go (default: configs/experiments/images/results)
#   IMG_PARTS      which parts to train (default "a b c"; the report covers the runs RUN_DIR holds,
#                  so two invocations with other parts into one RUN_DIR can run side by side)
#   IMG_REPORT     0: train only, no report (default 1)
# Size knobs (defaults = the full experiment: the shipped configs' 5,160 steps per arm):
#   IMG_STEPS      steps per arm of part a (default 5160)
#   IMG_SIZES      training-set sizes of part a (default "1000 10000 55000"; 55000 = all but the
#                  validation images)
#   IMG_PE_STEPS   steps per arm of part b (default 5160)
#   IMG_PE_SIZE    training images of parts b and c (default 10000)
#   IMG_MAP_STEPS  steps per arm of part c (default 2000)
#   IMG_VALID      validation images (default 5000)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
QKV=${QKV_BIN:-$ROOT/build/qkv}
OUT=${1:-runs/images}
RESULTS=${IMG_RESULTS:-$HERE/results}
PARTS=${IMG_PARTS:-a b c}
STEPS=${IMG_STEPS:-5160}
read -r -a SIZES <<<"${IMG_SIZES:-1000 10000 55000}"
PE_STEPS=${IMG_PE_STEPS:-5160}
PE_SIZE=${IMG_PE_SIZE:-10000}
MAP_STEPS=${IMG_MAP_STEPS:-2000}
VALID=${IMG_VALID:-5000}
FM=${QKV_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
PY=/usr/bin/python3

die() { echo "images/run.sh: $*" >&2; exit 1; }
[ -x "$QKV" ] || die "no qkv command at $QKV (build it: cmake -S . -B build && cmake --build build -j2, or set QKV_BIN)"
[ -f "$FM/train-images-idx3-ubyte.gz" ] ||
    die "no $FM/train-images-idx3-ubyte.gz (install-deps.sh installs dataset-fashion-mnist; or set QKV_FASHION_MNIST_DIR)"
command -v gnuplot >/dev/null || die "gnuplot is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)"
"$PY" -c 'import h5py, numpy, yaml' 2>/dev/null || die "$PY with h5py, numpy and PyYAML is needed (head_maps.py)"
mkdir -p "$OUT/data" "$RESULTS"
OUT=$(cd "$OUT" && pwd)
D=$OUT/data

# The subsets: every size of part a and part b's (made once; later invocations reuse them).
need=()
for n in "${SIZES[@]}" "$PE_SIZE"; do
    [ -f "$D/train$n-images-idx3-ubyte.gz" ] || need+=("$n")
done
if [ ${#need[@]} -gt 0 ] || [ ! -f "$D/valid-images-idx3-ubyte.gz" ]; then
    "$PY" "$HERE/subsets.py" "$FM/train-images-idx3-ubyte.gz" "$D" 1 "$VALID" "${need[@]}" >/dev/null
fi

# train RUN CONFIG N STEPS SETS...: CONFIG (under configs/) on the first N training images for
# STEPS steps (warmup a tenth of them, one evaluation at the end), into OUT/RUN.
train() {
    local name=$1 cfg=$2 n=$3 steps=$4 run=$OUT/$1
    shift 4
    [ ! -f "$run/metrics.tsv" ] || { echo "== $name: done before, kept"; return 0; }
    echo "== $name: $cfg on $n images, $steps steps${*:+, $*}"
    nice -n 15 "$QKV" train "$ROOT/configs/$cfg" --set data.train="$D/train$n-images-idx3-ubyte.gz" \
        --set data.dev="$D/valid-images-idx3-ubyte.gz" --set data.valid_fraction=0 \
        --set train.epochs=100000 --set train.max_steps="$steps" --set optim.warmup_steps=$((steps / 10)) \
        --set train.eval_every="$steps" --set checkpoint.every_steps="$steps" --set log.progress=off \
        "$@" --out "$run" --force >"$run.report.txt" 2>"$run.log" || { tail "$run.log"; die "training $name failed"; }
    grep -h '^done:' "$run.log"
}
for part in $PARTS; do
    case $part in
    a) for n in "${SIZES[@]}"; do
           train "size_vit_$n" fashion_mnist.yaml "$n" "$STEPS"
           # the CNN config's crops and flips off: both arms see the same images
           train "size_cnn_$n" fashion_mnist_cnn.yaml "$n" "$STEPS" --set data.augment=none
       done ;;
    b) for k in sinusoidal2d rel2d quadratic2d rope2d none learned2d; do
           # learned2d is the shipped config: part a's run of that size and steps, when it is done
           if [ $k = learned2d ] && [ "$PE_STEPS" = "$STEPS" ] && grep -qs '^done:' "$OUT/size_vit_$PE_SIZE.log" &&
               [ ! -e "$OUT/pe_$k" ]; then
               echo "== pe_$k: the run size_vit_$PE_SIZE of part a"
               ln -s "size_vit_$PE_SIZE" "$OUT/pe_$k" && ln -s "size_vit_$PE_SIZE.log" "$OUT/pe_$k.log"
               continue
           fi
           train "pe_$k" fashion_mnist.yaml "$PE_SIZE" "$PE_STEPS" --set model.positional=$k
       done ;;
    c) for k in quadratic2d rel2d; do
           train "map_$k" fashion_mnist.yaml "$PE_SIZE" "$MAP_STEPS" --set model.positional=$k \
               --set model.patch_size=2 --set model.cls_token=false --set model.pool=mean \
               --set data.batch_tokens=6272
           "$PY" "$HERE/head_maps.py" "$OUT/map_$k/checkpoints/best.h5" 0 4 >"$OUT/map_$k.heads.txt"
       done ;;
    *) die "unknown part $part (a, b or c)" ;;
    esac
done
[ "${IMG_REPORT:-1}" = 1 ] || exit 0
size="part a ${STEPS} steps per arm on ${SIZES[*]} images; part b ${PE_STEPS} steps on ${PE_SIZE} images; part c ${MAP_STEPS} steps on ${PE_SIZE} images; ${VALID} validation images"
"$PY" "$HERE/report.py" "$OUT" "$RESULTS" "$size"
(cd "$RESULTS" && gnuplot images_size.gp && gnuplot images_heads.gp)
cat "$RESULTS/images_results.md"
