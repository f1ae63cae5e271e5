#!/bin/bash
# The two experiment scripts run end to end at the smallest size (a few steps per arm, a few
# arms): configs/experiments/run_pe_experiment.sh and configs/experiments/encoders/run.sh write
# their tables with a row per arm and a PNG figure. Needs all of UD English-EWT (QKV_EWT_DIR)
# and gnuplot; skipped (exit 77) without them.
. "$(dirname "$0")/common.sh"
if [ -z "${QKV_EWT_DIR:-}" ] || [ ! -f "$QKV_EWT_DIR/en_ewt-ud-dev.conllu" ]; then
    echo "skipped: QKV_EWT_DIR is not set to the UD English-EWT folder (the experiments train on it)"
    exit 77
fi
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot (the experiments draw their figures)"; exit 77; }
png() { [ "$(head -c 4 "$1" | tail -c 3)" = PNG ] || fail "$1 is not a PNG"; }

QKV_BIN=$QKV_BIN PE_KINDS="learned relative" PE_EPOCHS=1 PE_SYNTH_EPOCHS=1 PE_ENDS_EPOCHS=1 PE_MAX_STEPS=2 \
    PE_RESULTS="$SCRATCH/pe" configs/experiments/run_pe_experiment.sh "$SCRATCH/pe_runs" >"$SCRATCH/pe.out" 2>&1 ||
    { cat "$SCRATCH/pe.out"; fail "run_pe_experiment.sh"; }
for row in "| learned | " "| relative (clip 8) | "; do
    [ "$(grep -cF "$row" "$SCRATCH/pe/pe_results.md")" = 2 ] || { cat "$SCRATCH/pe/pe_results.md"; fail "no two rows '$row'"; }
done
grep -qF "at most 2 steps each" "$SCRATCH/pe/pe_results.md" || fail "pe_results.md does not say its size"
png "$SCRATCH/pe/pe_length.png"

QKV_BIN=$QKV_BIN ENC_EWT_STEPS=2 ENC_REACH_STEPS=2 ENC_REACH_TRAIN=64 ENC_COST_STEPS=2 ENC_COST_LENGTHS="16 32" \
    ENC_RESULTS="$SCRATCH/enc" configs/experiments/encoders/run.sh "$SCRATCH/enc_runs" >"$SCRATCH/enc.out" 2>&1 ||
    { cat "$SCRATCH/enc.out"; fail "encoders/run.sh"; }
for row in "| transformer (full attention) | " "| bilstm | " "| cnn | " "| full attention | " "| windowed attention (w=4) | "; do
    grep -qF "$row" "$SCRATCH/enc/encoders_results.md" || { cat "$SCRATCH/enc/encoders_results.md"; fail "no row '$row'"; }
done
grep -qF "| arm | n = 16 | n = 32 |" "$SCRATCH/enc/encoders_results.md" || fail "no cost table for n = 16, 32"
png "$SCRATCH/enc/encoders.png"
echo "experiments: ok"
