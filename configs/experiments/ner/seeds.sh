#!/bin/bash
# One NER recipe over several seeds: trains configs/wnut17_ner.yaml (or NER_CONFIG) once per
# seed with the extra qkv train arguments given, one training at a time, then prints (report.py)
# per seed the best dev span F1 and its epoch, the dev span F1 of every evaluation and of the
# last one, and over the seeds the mean, the spread (max - min) and the sample standard
# deviation of the best and of the last dev span F1. Dev only: the WNUT test set is not read.
#
# usage: configs/experiments/ner/seeds.sh NAME [qkv train arguments...]
#   e.g. configs/experiments/ner/seeds.sh ema --set train.ema_decay=0.999
# Runs go to NER_RUNS/NAME/seedN (their logs beside them, seedN.log) and the table to
# NER_RUNS/NAME/report.md; an existing run folder is trained anew (--force).
# Knobs:
#   QKV_BIN      the qkv command (default: build/qkv)
#   NER_CONFIG   the config (default: configs/wnut17_ner.yaml; its data from $QKV_WNUT17_DIR)
#   NER_SEEDS    the seeds (default: "1 2 3")
#   NER_RUNS     where the runs go (default: runs/ner_seeds)
#   NER_THREADS  train.threads (default: 1)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
QKV=${QKV_BIN:-$ROOT/build/qkv}
CONFIG=${NER_CONFIG:-$ROOT/configs/wnut17_ner.yaml}
read -r -a SEEDS <<<"${NER_SEEDS:-1 2 3}"
RUNS=${NER_RUNS:-runs/ner_seeds}
THREADS=${NER_THREADS:-1}
die() { echo "ner/seeds.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: configs/experiments/ner/seeds.sh NAME [qkv train arguments...]"
NAME=$1
shift
case $NAME in */* | '' | .*) die "NAME '$NAME' must be a plain folder name" ;; esac
[ -x "$QKV" ] || die "no qkv command at $QKV (build it, or set QKV_BIN)"
[ -f "$CONFIG" ] || die "no config $CONFIG"
[ ${#SEEDS[@]} -ge 1 ] || die "NER_SEEDS is empty"
OUT=$RUNS/$NAME
mkdir -p "$OUT"

echo "== $NAME: $(basename "$CONFIG") $* (seeds ${SEEDS[*]}, train.threads=$THREADS)"
dirs=()
for seed in "${SEEDS[@]}"; do
    run=$OUT/seed$seed
    "$QKV" train "$CONFIG" --set train.seed="$seed" --set train.threads="$THREADS" "$@" \
        --set log.progress=off --set log.plot=false --out "$run" --force >"$run.report.txt" 2>"$run.log" ||
        { tail -5 "$run.log" >&2; die "training seed $seed failed (log: $run.log)"; }
    grep -h '^done:' "$run.log"
    dirs+=("$run")
done
/usr/bin/python3 "$HERE/report.py" "$NAME" "${dirs[@]}" | tee "$OUT/report.md"
