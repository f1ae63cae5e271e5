#!/bin/bash
# The encoder comparison: self-attention, BiLSTM and CNN side by side.
#   1. EWT UPOS (ewt.yaml): transformer, bilstm and cnn at about the same parameter count and
#      the same budget of training steps: dev accuracy, training and evaluation tokens/s,
#      parameters;
#   2. reach (reach.yaml, `qkv synth --task reach`): a probe's tag is decided by a key d words
#      away, d = 1..32: accuracy against d for full attention, windowed attention (w = 4), cnn
#      (receptive field 9) and bilstm;
#   3. cost: microseconds per token of a training step and of evaluation for sentences of
#      16..4,096 words (`qkv synth --task ends` corpora), for the four reach arms at the EWT
#      arms' sizes.
# The budget is a number of steps of the same batch size, not wall-clock time: on a machine
# shared with other jobs a wall-clock budget would give each arm what the others left it.
# Writes RESULTS/encoders_results.md (the tables), RESULTS/encoders.png (the figure: reach and
# cost) and RESULTS/encoders.gp (its gnuplot script, data inline).
#
# usage: configs/experiments/encoders/run.sh [RUN_DIR]
#   RUN_DIR          runs, corpora and evaluation files (default: runs/encoders)
#   QKV_BIN          the qkv command (default: build/qkv)
#   QKV_EWT_DIR      UD English-EWT folder (default: data/ud_english_ewt)
#   ENC_RESULTS      where the tables and figure go (default: configs/experiments/encoders/results)
#   PYTHON           python3 with h5py to count encoder parameters (default /usr/bin/python3 if
#                    it has h5py, else python3 and the encoder column says n/a)
# Size knobs (defaults = the full experiment, about 30 minutes on 2 cores: estimated from a run at
# ENC_EWT_STEPS=500 ENC_REACH_STEPS=1000, 16 minutes at load average 10):
#   ENC_EWT_STEPS    EWT training steps per encoder (default 1500: ~15 epochs of 2,000-token batches)
#   ENC_REACH_STEPS  reach training steps per arm (default 1500)
#   ENC_REACH_TRAIN  reach training sentences (default 8000; dev 20, test 40 per distance)
#   ENC_COST_STEPS   timed training steps per length (default 8, batches of 4,096 tokens)
#   ENC_COST_LENGTHS sentence lengths of the cost measurement (default "16 64 256 1024 4096")
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
QKV=${QKV_BIN:-$ROOT/build/qkv}
OUT=${1:-runs/encoders}
RESULTS=${ENC_RESULTS:-$HERE/results}
EWT_STEPS=${ENC_EWT_STEPS:-1500}
REACH_STEPS=${ENC_REACH_STEPS:-1500}
REACH_TRAIN=${ENC_REACH_TRAIN:-8000}
COST_STEPS=${ENC_COST_STEPS:-8}
read -r -a LENGTHS <<<"${ENC_COST_LENGTHS:-16 64 256 1024 4096}"
export QKV_EWT_DIR=${QKV_EWT_DIR:-$ROOT/data/ud_english_ewt}
DEV=$QKV_EWT_DIR/en_ewt-ud-dev.conllu
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    PY=python3
    /usr/bin/python3 -c 'import h5py' 2>/dev/null && PY=/usr/bin/python3
fi

die() { echo "encoders/run.sh: $*" >&2; exit 1; }
[ -x "$QKV" ] || die "no qkv command at $QKV (build it: cmake -S . -B build && cmake --build build -j2, or set QKV_BIN)"
[ -f "$DEV" ] || die "no $DEV (set QKV_EWT_DIR, or run data/fetch-ud.sh UD_English-EWT data/ud_english_ewt)"
command -v gnuplot >/dev/null || die "gnuplot is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)"
"$PY" -c 'import sys' 2>/dev/null || die "python3 is needed to read the reports"

# The arms: each one's --set arguments, the only difference between the runs of a task.
EWT_ARMS=(transformer bilstm cnn)
REACH_ARMS=(full window4 cnn bilstm)
arm_sets() { # arm_sets ARM SIZE: SETS=(the arm's --set arguments); SIZE ewt (d_model 64) or reach (32)
    local d_ff=64 cnn_blocks=4
    SETS=()
    if [ "$2" = ewt ]; then
        d_ff=256 cnn_blocks=8
        [ "$1" != bilstm ] || SETS=(--set model.lstm_hidden=48)
    fi
    case $1 in
    transformer | full) SETS+=(--set "model.d_ff=$d_ff") ;;
    window4) SETS+=(--set "model.d_ff=$d_ff" --set model.attn_window=4) ;;
    bilstm) SETS+=(--set model.encoder=bilstm) ;;
    cnn) SETS+=(--set model.encoder=cnn --set "model.n_layers=$cnn_blocks") ;;
    *) die "unknown arm $1" ;;
    esac
}
mkdir -p "$OUT/data" "$RESULTS"
OUT=$(cd "$OUT" && pwd) # absolute: reach.yaml resolves ${ENC_DATA_DIR} against its own folder
export ENC_DATA_DIR=$OUT/data

# train CONFIG RUN SETS...: trains CONFIG into OUT/RUN with the extra arguments.
train() {
    local cfg=$1 run=$OUT/$2
    shift 2
    "$QKV" train "$HERE/$cfg" "$@" --out "$run" --force >"$run.report.txt" 2>"$run.log" ||
        { tail "$run.log"; die "training $(basename "$run") failed"; }
}
start=$(date +%s) load_start=$(cut -d" " -f1 /proc/loadavg)
for arm in "${EWT_ARMS[@]}"; do
    echo "== EWT, encoder: $arm ($EWT_STEPS steps)"
    arm_sets "$arm" ewt
    train ewt.yaml "ewt_$arm" "${SETS[@]}" --set train.max_steps="$EWT_STEPS" \
        --set train.eval_every=$(((EWT_STEPS + 2) / 3))
    grep -h '^model:\|^encoder:\|^done:' "$OUT/ewt_$arm.log"
    "$QKV" eval "$OUT/ewt_$arm/checkpoints/best.h5" "$DEV" --json >"$OUT/ewt_$arm.eval.json" 2>>"$OUT/ewt_$arm.log" ||
        die "evaluating ewt_$arm failed"
done

"$QKV" synth --task reach --sentences "$REACH_TRAIN" --seed 1 >"$ENC_DATA_DIR/reach-train.conllu"
"$QKV" synth --task reach --sentences 640 --seed 2 >"$ENC_DATA_DIR/reach-dev.conllu"  # model selection
"$QKV" synth --task reach --sentences 1280 --seed 3 >"$ENC_DATA_DIR/reach-test.conllu" # 40 per distance
for arm in "${REACH_ARMS[@]}"; do
    echo "== reach, $arm ($REACH_STEPS steps)"
    arm_sets "$arm" reach
    train reach.yaml "reach_$arm" "${SETS[@]}" --set train.max_steps="$REACH_STEPS" \
        --set train.eval_every=$(((REACH_STEPS + 4) / 5))
    grep -h '^encoder:\|^done:' "$OUT/reach_$arm.log"
    "$QKV" tag "$OUT/reach_$arm/checkpoints/best.h5" "$ENC_DATA_DIR/reach-test.conllu" >"$OUT/reach_$arm.pred.conllu" \
        2>>"$OUT/reach_$arm.log" || die "tagging the reach test set with reach_$arm failed"
done

# Cost: 16,384 tokens of sentences of n words, batches of 4,096 tokens (one sentence when n = 4096),
# a log row per step; the first step (allocation) is left out of the median.
"$QKV" synth --task ends --sentences 1 --seed 5 --min-len 8 --max-len 8 >"$ENC_DATA_DIR/cost-dev.conllu" # a token dev set
for n in "${LENGTHS[@]}"; do
    corpus=$ENC_DATA_DIR/cost-$n.conllu
    "$QKV" synth --task ends --sentences $(( (16384 + n - 1) / n )) --seed 4 --min-len "$n" --max-len "$n" >"$corpus"
    for arm in "${REACH_ARMS[@]}"; do
        echo "== cost, $arm, sentences of $n words"
        arm_sets "$arm" ewt
        train reach.yaml "cost_${arm}_$n" --set model.d_model=64 "${SETS[@]}" \
            --set data.train="$corpus" --set data.dev="$ENC_DATA_DIR/cost-dev.conllu" --set data.batch_tokens=4096 \
            --set train.max_steps="$COST_STEPS" --set optim.warmup_steps=1 --set log.every_steps=1 \
            --set checkpoint.keep_best=false
        "$QKV" eval "$OUT/cost_${arm}_$n/checkpoints/last.h5" "$corpus" --json >"$OUT/cost_${arm}_$n.eval.json" \
            2>>"$OUT/cost_${arm}_$n.log" || die "evaluating cost_${arm}_$n failed"
    done
done
minutes=$(( ($(date +%s) - start + 59) / 60 ))
load="load average (1 min) ${load_start} at the start, $(cut -d" " -f1 /proc/loadavg) at the end"
runs=()
for arm in "${EWT_ARMS[@]}"; do runs+=("$OUT/ewt_$arm"); done
"$QKV" plot "${runs[@]}" --out "$OUT/ewt_curves.png" --force >/dev/null || true

size="EWT ${EWT_STEPS} steps per encoder, reach ${REACH_STEPS} steps on ${REACH_TRAIN} sentences per arm, cost ${COST_STEPS} steps per length"
"$PY" "$HERE/report.py" "$OUT" "$RESULTS" "$size" "$minutes" "$load" "${LENGTHS[*]}"
(cd "$RESULTS" && gnuplot encoders.gp)
cat "$RESULTS/encoders_results.md"
echo "figure: $RESULTS/encoders.png; EWT training curves: $OUT/ewt_curves.png"
