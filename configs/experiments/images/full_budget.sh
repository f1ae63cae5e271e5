#!/bin/bash
# One shipped image config trained to the end at the full CPU budget, then scored once on the
# Fashion-MNIST test images: the figures of a results file. Prints the date, the commit, `uptime`
# before and after (the run must have the machine to itself), the wall and CPU time and peak
# memory of `qkv train` (/usr/bin/time -v), the best validation accuracy and the test accuracy of
# best.h5. A run already finished in RUN_DIR is not trained again; one cut short resumes from its
# checkpoints/last.h5.
#
# usage: configs/experiments/images/full_budget.sh CONFIG RUN_DIR [--set KEY=VALUE ...]
#   CONFIG   configs/fashion_mnist.yaml (the ViT) or configs/fashion_mnist_cnn.yaml
#   QKV_BIN  the qkv command (default: build/qkv); QKV_FASHION_MNIST_DIR the dataset
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
QKV=${QKV_BIN:-$ROOT/build/qkv}
FM=${QKV_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
[ $# -ge 2 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
cfg=$1 run=$2
shift 2
[ -x "$QKV" ] || { echo "full_budget.sh: no qkv command at $QKV (build it, or set QKV_BIN)" >&2; exit 1; }
[ -f "$FM/t10k-images-idx3-ubyte.gz" ] ||
    { echo "full_budget.sh: no $FM/t10k-images-idx3-ubyte.gz (install-deps.sh installs dataset-fashion-mnist)" >&2; exit 1; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git -C "$ROOT" rev-parse --short HEAD)"
echo "uptime before: $(uptime)"
if [ -f "$run/checkpoints/last.h5" ] && [ ! -f "$run/finished" ]; then
    resume=(--resume "$run/checkpoints/last.h5")
    echo "resuming from $run/checkpoints/last.h5"
    /usr/bin/time -v -o "$run.time" "$QKV" train "$run/config.yaml" "${resume[@]}" --set log.progress=off
elif [ ! -f "$run/finished" ]; then
    /usr/bin/time -v -o "$run.time" "$QKV" train "$ROOT/$cfg" --out "$run" --set log.progress=off "$@"
fi
touch "$run/finished"
echo "uptime after: $(uptime)"
grep -E "Elapsed|User time|System time|Maximum resident" "$run.time" | sed 's/^\s*/time: /'
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $3 == "dev" { a = $c["accuracy"]; if (a > best) { best = a; step = $1 } }
    END { printf "best validation accuracy: %.2f%% at step %d\n", 100 * best, step }' "$run/metrics.tsv"
"$QKV" eval "$run/checkpoints/best.h5" "$FM/t10k-images-idx3-ubyte.gz" | grep -m1 " accuracy [0-9]"
