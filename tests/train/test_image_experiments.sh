#!/bin/bash
# configs/experiments/images/run.sh end to end at the smallest size (one training-set size, 2
# steps an arm, 20 validation images): the tables have a row per arm and per head, the figures
# are PNGs, and the heads' maps are distributions. Needs the Fashion-MNIST training images (the
# Debian package dataset-fashion-mnist, or QKV_FASHION_MNIST_DIR), gnuplot, h5py and PyYAML;
# skipped (exit 77) without them.
. "$(dirname "$0")/common.sh"
FM=${QKV_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
[ -f "$FM/train-images-idx3-ubyte.gz" ] ||
    { echo "skipped: no Fashion-MNIST at $FM (dataset-fashion-mnist; the experiments draw subsets of it)"; exit 77; }
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot (the experiments draw their figures)"; exit 77; }
$PY -c 'import h5py, numpy, yaml' 2>/dev/null || { echo "skipped: $PY lacks h5py, numpy or PyYAML"; exit 77; }
png() { [ "$(head -c 4 "$1" | tail -c 3)" = PNG ] || fail "$1 is not a PNG"; }

QKV_BIN=$QKV_BIN IMG_STEPS=2 IMG_SIZES=100 IMG_PE_STEPS=2 IMG_PE_SIZE=100 IMG_MAP_STEPS=2 IMG_VALID=20 \
    IMG_RESULTS="$SCRATCH/res" configs/experiments/images/run.sh "$SCRATCH/runs" >"$SCRATCH/out" 2>&1 ||
    { cat "$SCRATCH/out"; fail "images/run.sh"; }
md=$SCRATCH/res/images_results.md
grep -qF "| 100 | " "$md" || { cat "$md"; fail "no row for 100 training images"; }
for k in sinusoidal2d learned2d rel2d quadratic2d rope2d none; do
    grep -qF "| $k | " "$md" || { cat "$md"; fail "no row for model.positional $k"; }
done
for k in quadratic2d rel2d; do
    grep -qF "\`model.positional: $k\`" "$md" || { cat "$md"; fail "no head table for $k"; }
    # each head's map over the whole grid sums to 1; the 9 x 9 window printed holds at most that
    $PY - "$SCRATCH/runs/map_$k.heads.txt" <<'PY' || fail "the $k head maps are not distributions"
import sys
heads, cur = 0, None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "head":
        heads += 1
        assert 0 < float(f[8]) <= 1 and 0 < float(f[10]) <= 1, f
        cur = []
    else:
        cur += [float(x) for x in f]
        if len(cur) == 81:
            assert 0 < sum(cur) <= 1 + 1e-4 and min(cur) >= 0, sum(cur)
assert heads == 4, heads
PY
done
png "$SCRATCH/res/images_size.png"
png "$SCRATCH/res/images_heads.png"
echo "image experiments: ok"
