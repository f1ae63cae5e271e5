#!/bin/bash
# Speech frames: attention windows against accuracy and cost (docs/experiments/speech.md).
# 1. Accuracy: configs/speech/phoneme.yaml and upos.yaml trained with model.attn_window w for every
#    w of WINDOWS (0 = the whole utterance) on a reduced corpus (TRAIN_SENT training sentences in
#    en-us, en-gb, en-gb-x-rp; DEV_SENT dev sentences in those and the held-out voice en-029) for
#    STEPS steps of BATCH frames, the same for every window. Per run: dev and held-out-voice scores
#    (the trainer's "frames dev/test" lines), training wall time per frame (median of the steps'
#    tokens_per_sec), evaluation wall time per frame (the dev passes' tokens_per_sec), CPU time (user + system) and peak RSS (/usr/bin/time -v).
# 2. Cost against length: paragraphs of K sentences (qkv speech --sentences-per-utterance K, en-us,
#    for each K of PARAS), phoneme.yaml trained COST_STEPS steps of one paragraph each with the
#    windows of COST_WINDOWS (0: the whole paragraph, tiled kernel), training time per frame and peak RSS.
# A measurement, not a test: about 40 minutes on the shared 2-core machine (2 runs at a time). report.py turns the TSVs into the tables and the figure.
# Usage: configs/experiments/speech/run.sh [RUN_DIR]
# Knobs: QKV (binary, default build/qkv), WINDOWS ("2 4 8 16 32 64 128 0"), TASKS ("phoneme upos"),
# TRAIN_SENT (100), DEV_SENT (20), STEPS (30), BATCH (6000), JOBS (parallel runs, 2),
# PARAS ("1 2 4 8"), COST_WINDOWS ("16 0"), COST_STEPS (3), PHASES ("accuracy cost").
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
QKV=${QKV:-$ROOT/build/qkv}
WINDOWS=${WINDOWS:-2 4 8 16 32 64 128 0}
TASKS=${TASKS:-phoneme upos}
TRAIN_SENT=${TRAIN_SENT:-100}
DEV_SENT=${DEV_SENT:-20}
STEPS=${STEPS:-30}
BATCH=${BATCH:-6000}
JOBS=${JOBS:-2}
PARAS=${PARAS:-1 2 4 8}
COST_WINDOWS=${COST_WINDOWS:-16 0}
COST_STEPS=${COST_STEPS:-3}
PHASES=${PHASES:-accuracy cost}
RUN=${1:-$(mktemp -d)}
SAMPLE=$ROOT/data/ud_english_ewt_sample
mkdir -p "$RUN"
[ -x /usr/bin/time ] || { echo "run.sh: needs GNU time (/usr/bin/time; Debian package time)" >&2; exit 1; }
export QKV RUN HERE ROOT STEPS BATCH

# corpus NAME CONLLU SENTENCES VOICES SEED [qkv speech options]: makes RUN/NAME.h5 once
corpus() {
    local name=$1 in=$2 n=$3 voices=$4 seed=$5
    shift 5
    [ -e "$RUN/$name.h5" ] || "$QKV" speech "$in" --out "$RUN/$name.h5" --max-sentences "$n" --voices "$voices" \
        --seed "$seed" "$@" 2>"$RUN/$name.speech.log" || { cat "$RUN/$name.speech.log" >&2; exit 1; }
}

# one_run TASK WINDOW: trains, prints a TSV row (see the header below)
one_run() {
    local task=$1 w=$2 out=$RUN/acc_$1_w$2
    /usr/bin/time -v -o "$out.time" "$QKV" train "$ROOT/configs/speech/$task.yaml" --set data.train="$RUN/train.h5" \
        --set data.dev="$RUN/dev.h5" --set model.attn_window="$w" --set train.max_steps="$STEPS" \
        --set data.batch_tokens="$BATCH" --set optim.warmup_steps=$((STEPS / 10 + 1)) --set train.threads=1 \
        --set log.progress=off --out "$out" --force >"$out.log" 2>&1 || { echo "run.sh: $out failed:" >&2; tail -3 "$out.log" >&2; return 1; }
    /usr/bin/python3 "$HERE/parse_run.py" "$task" "$w" "$out"
}
export -f one_run

if [[ " $PHASES " == *" accuracy "* ]]; then
    corpus train "$SAMPLE/en_ewt-sample-train.conllu.gz" "$TRAIN_SENT" en-us,en-gb,en-gb-x-rp 1
    corpus dev "$SAMPLE/en_ewt-sample-dev.conllu.gz" "$DEV_SENT" en-us,en-gb,en-gb-x-rp,en-029 2
    printf 'task\twindow\tdev_acc\tdev_second\ttest_acc\ttest_second\ttrain_us_frame\teval_us_frame\tcpu_s\tpeak_mib\n' \
        >"$RUN/accuracy.tsv"
    for task in $TASKS; do for w in $WINDOWS; do echo "$task $w"; done; done |
        xargs -P "$JOBS" -L 1 bash -c 'one_run "$0" "$1"' >>"$RUN/accuracy.tsv"
fi

# cost_run K WINDOW: one paragraph of K sentences a step
cost_run() {
    local k=$1 w=$2 out=$RUN/cost_k$1_w$2
    /usr/bin/time -v -o "$out.time" "$QKV" train "$ROOT/configs/speech/phoneme.yaml" --set data.train="$RUN/para$k.h5" \
        --set data.dev="$RUN/para_dev.h5" --set data.held_out_voice= --set model.attn_window="$w" \
        --set model.attn_kernel="$([ "$w" = 0 ] && echo tiled || echo auto)" --set train.max_steps="$COST_STEPS" --set data.batch_tokens=1 \
        --set optim.warmup_steps=1 --set train.threads=1 --set log.progress=off --out "$out" --force \
        >"$out.log" 2>&1 || { echo "run.sh: $out failed:" >&2; tail -3 "$out.log" >&2; return 1; }
    /usr/bin/python3 "$HERE/parse_run.py" --cost "$k" "$w" "$out" "$RUN/para$k.h5"
}

if [[ " $PHASES " == *" cost "* ]]; then
    corpus para_dev "$SAMPLE/en_ewt-sample-dev.conllu.gz" 1 en-us 3
    printf 'sentences\twindow\tframes\ttrain_us_frame\tcpu_us_frame\tpeak_mib\n' >"$RUN/cost.tsv"
    for k in $PARAS; do
        corpus "para$k" "$SAMPLE/en_ewt-sample-train.conllu.gz" $((k * COST_STEPS)) en-us 4 --sentences-per-utterance "$k" \
            --rates 175 --pitches 50
        for w in $COST_WINDOWS; do cost_run "$k" "$w" >>"$RUN/cost.tsv"; done
    done
fi
echo "runs in $RUN; tables: /usr/bin/python3 $HERE/report.py $RUN"
