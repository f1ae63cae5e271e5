#!/bin/sh
# Cuts the Fashion-MNIST sample shipped in data/fashion_mnist_sample/ from the full dataset, so
# that it can be remade and checked.
#
# usage: data/make-fashion-mnist-sample.sh [SRC_DIR [OUT_DIR]]
#   SRC_DIR  folder holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
#            t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (default:
#            /usr/share/datasets/fashion-mnist, the Debian package dataset-fashion-mnist)
#   OUT_DIR  where to write the sample (default: data/fashion_mnist_sample beside this script)
#
# What it writes: the first 1000 images of the training set and the first 200 of the test set
# with their labels, as IDX files (the header's count rewritten, every other byte as it is),
# gzip -9n compressed (no name or time stamp): train-images-idx3-ubyte.gz,
# train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz.
# Exit status 0 on success, 1 on failure (with a message), 2 on a usage error.
set -eu

die() { echo "make-fashion-mnist-sample.sh: $*" >&2; exit 1; }
usage() { awk 'NR >= 5 && !/^#/ { exit } NR >= 5 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

if [ $# -gt 2 ]; then usage; fi
case "${1:-}" in -h|--help) usage ;; esac
src=${1:-/usr/share/datasets/fashion-mnist}
out=${2:-$(dirname "$0")/fashion_mnist_sample}
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
    [ -f "$src/$f" ] || die "no $src/$f (is dataset-fashion-mnist installed?)"
done
mkdir -p "$out" || die "cannot create $out"

be32() { # the 4 bytes of $1, big-endian, as printf escapes
    printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255))
}

# cut NAME N: the first N records of NAME; an image record is 28 x 28 bytes after a 16-byte
# header (magic, count, rows, cols), a label 1 byte after an 8-byte header (magic, count).
cut() {
    case "$1" in
        *images*) head=16 size=784 magic='\0\0\10\3' dims="$(be32 28)$(be32 28)" ;;
        *) head=8 size=1 magic='\0\0\10\1' dims= ;;
    esac
    {
        printf "$magic$(be32 "$2")$dims"
        gzip -dc "$src/$1" | tail -c +$((head + 1)) | head -c $(($2 * size))
    } | gzip -9n >"$out/$1.tmp" || { rm -f "$out/$1.tmp"; die "cannot cut $1"; }
    mv "$out/$1.tmp" "$out/$1"
    echo "$out/$1"
}

cut train-images-idx3-ubyte.gz 1000
cut train-labels-idx1-ubyte.gz 1000
cut t10k-images-idx3-ubyte.gz 200
cut t10k-labels-idx1-ubyte.gz 200
echo "make-fashion-mnist-sample.sh: source sha256 (compare with $out/README.md):" >&2
(cd "$src" && sha256sum train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz \
    t10k-labels-idx1-ubyte.gz) >&2
