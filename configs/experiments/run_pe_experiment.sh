#!/bin/bash
# The positional-encoding experiment: every kind of model.positional (none, sinusoidal, learned,
# rope, alibi, floater) and learned relative biases (positional none, attn_rel_clip 8), each
# trained on three tasks with one config per task and --set model.positional=KIND:
#   1. EWT UPOS tagging (pe_ewt.yaml), trained on sentences of at most 20 words, evaluated on
#      all of dev with accuracy per sentence-length bucket (qkv eval --by-length --json);
#   2. the synthetic position task (pe_synth.yaml): INTJ vs ADV depends only on position;
#   3. the ends task (pe_ends.yaml, `qkv synth --task ends`): tags are positions counted from
#      the start (first 4 words) and from the end (last 4); trained on 8..20 words, tested on
#      8..64 words (length extrapolation).
# Writes RESULTS/pe_results.md (the tables), RESULTS/pe_length.png (the figure) and
# RESULTS/pe_length.gp (its gnuplot script, data inline).
#
# usage: configs/experiments/run_pe_experiment.sh [RUN_DIR]
#   RUN_DIR          runs, corpora and evaluation files (default: runs/pe_experiment)
#   QKV_BIN          the qkv command (default: build/qkv)
#   QKV_EWT_DIR      UD English-EWT folder (default: data/ud_english_ewt; data/fetch-ud.sh fills it)
#   PE_RESULTS       where the tables and figure go (default: configs/experiments/results)
#   PE_KINDS         the kinds to run (default: "none sinusoidal learned rope alibi floater relative")
# Size knobs (defaults = the full experiment, about 10 minutes on 2 cores):
#   PE_EPOCHS        EWT epochs (default 3)
#   PE_SYNTH_EPOCHS  synthetic position task epochs (default 12)
#   PE_ENDS_EPOCHS   ends task epochs (default 10; 4,000 training sentences)
#   PE_MAX_STEPS     stop every training after this many steps (default 0: no limit; for a smoke test)
# Needs gnuplot (gnuplot-nox) and python3 (standard library).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
QKV=${QKV_BIN:-$ROOT/build/qkv}
OUT=${1:-runs/pe_experiment}
RESULTS=${PE_RESULTS:-$HERE/results}
EPOCHS=${PE_EPOCHS:-3}
SYNTH_EPOCHS=${PE_SYNTH_EPOCHS:-12}
ENDS_EPOCHS=${PE_ENDS_EPOCHS:-10}
MAX_STEPS=${PE_MAX_STEPS:-0}
read -r -a KINDS <<<"${PE_KINDS:-none sinusoidal learned rope alibi floater relative}"
export QKV_EWT_DIR=${QKV_EWT_DIR:-$ROOT/data/ud_english_ewt}
DEV=$QKV_EWT_DIR/en_ewt-ud-dev.conllu

die() { echo "run_pe_experiment: $*" >&2; exit 1; }
[ -x "$QKV" ] || die "no qkv command at $QKV (build it: cmake -S . -B build && cmake --build build -j2, or set QKV_BIN)"
[ -f "$DEV" ] || die "no $DEV (set QKV_EWT_DIR, or run data/fetch-ud.sh UD_English-EWT data/ud_english_ewt)"
command -v gnuplot >/dev/null || die "gnuplot is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)"
command -v python3 >/dev/null || die "python3 is needed to read the reports"
# The --set arguments of a kind (SETS): the only difference between the runs of a task.
kind_sets() {
    case $1 in
    relative) SETS=(--set model.positional=none --set model.attn_rel_clip=8) ;;
    none | sinusoidal | learned | rope | alibi | floater) SETS=(--set model.positional="$1") ;;
    *) die "unknown kind '$1' in PE_KINDS" ;;
    esac
}
for kind in "${KINDS[@]}"; do kind_sets "$kind"; done
mkdir -p "$OUT/data" "$RESULTS"
OUT=$(cd "$OUT" && pwd) # absolute: the config resolves ${PE_ENDS_DIR} against its own folder
export PE_ENDS_DIR=$OUT/data
# The ends corpora: training and dev (model selection) 8..20 words, test 8..64 words.
"$QKV" synth --task ends --sentences 4000 --seed 1 --min-len 8 --max-len 20 >"$PE_ENDS_DIR/ends-train.conllu"
"$QKV" synth --task ends --sentences 500 --seed 2 --min-len 8 --max-len 20 >"$PE_ENDS_DIR/ends-dev.conllu"
"$QKV" synth --task ends --sentences 1000 --seed 3 --min-len 8 --max-len 64 >"$PE_ENDS_DIR/ends-test.conllu"

# train TASK KIND EPOCHS: trains pe_TASK.yaml as KIND into OUT/TASK_KIND.
train() {
    local run=$OUT/$1_$2
    echo "== $1, positional: $2"
    kind_sets "$2"
    "$QKV" train "$HERE/pe_$1.yaml" "${SETS[@]}" --set train.epochs="$3" --set train.max_steps="$MAX_STEPS" --set log.plot=false --out "$run" \
        --force >"$run.report.txt" 2>"$run.log" || { tail "$run.log"; die "training $1_$2 failed"; }
    grep '^done:' "$run.log"
}
start=$(date +%s) load_start=$(cut -d" " -f1 /proc/loadavg)
for kind in "${KINDS[@]}"; do
    train ewt "$kind" "$EPOCHS"
    "$QKV" eval "$OUT/ewt_$kind/checkpoints/best.h5" "$DEV" --json --by-length >"$OUT/ewt_$kind.eval.json" \
        2>>"$OUT/ewt_$kind.log" || die "evaluating ewt_$kind failed"
    train synth "$kind" "$SYNTH_EPOCHS"
    train ends "$kind" "$ENDS_EPOCHS"
    "$QKV" tag "$OUT/ends_$kind/checkpoints/best.h5" "$PE_ENDS_DIR/ends-test.conllu" >"$OUT/ends_$kind.pred.conllu" \
        2>>"$OUT/ends_$kind.log" || die "tagging the ends test set with ends_$kind failed"
done
minutes=$(( ($(date +%s) - start + 59) / 60 ))
load="load average (1 min) ${load_start} at the start, $(cut -d" " -f1 /proc/loadavg) at the end"
runs=()
for kind in "${KINDS[@]}"; do runs+=("$OUT/ewt_$kind"); done
"$QKV" plot "${runs[@]}" --out "$OUT/ewt_curves.png" --force >/dev/null

size="EWT ${EPOCHS} epochs, synthetic position task ${SYNTH_EPOCHS} epochs, ends task ${ENDS_EPOCHS} epochs"
[ "$MAX_STEPS" = 0 ] || size="$size, at most $MAX_STEPS steps each"
python3 "$HERE/pe_report.py" "$OUT" "$RESULTS" "$size" "$minutes" "$load" "${KINDS[@]}"
(cd "$RESULTS" && gnuplot pe_length.gp)
cat "$RESULTS/pe_results.md"
echo "figure: $RESULTS/pe_length.png; EWT training curves: $OUT/ewt_curves.png"
