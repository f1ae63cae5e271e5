#!/bin/bash
# The positional-encoding experiment: none vs sinusoidal vs learned positions.
#   1. EWT UPOS tagging, trained on sentences of at most 20 words (pe_ewt_*.yaml), evaluated on
#      all of dev with accuracy per sentence-length bucket (qkv eval --by-length --json);
#   2. the synthetic position task (pe_synth_*.yaml): INTJ vs ADV depends only on position.
# Writes RESULTS/pe_results.md (the table), RESULTS/pe_length.png (accuracy against sentence
# length, a line per kind) and RESULTS/pe_length.gp (its gnuplot script, data inline).
#
# usage: configs/experiments/run_pe_experiment.sh [RUN_DIR]
#   RUN_DIR          runs and evaluation files (default: runs/pe_experiment)
#   QKV_BIN          the qkv command (default: build/qkv)
#   QKV_EWT_DIR      UD English-EWT folder (default: data/ud_english_ewt; data/fetch-ud.sh fills it)
#   PE_EPOCHS        EWT epochs (default 3), PE_SYNTH_EPOCHS synthetic epochs (default 12)
#   PE_RESULTS       where the table and figure go (default: configs/experiments/results)
# About 15 minutes on 2 cores. Needs gnuplot (gnuplot-nox) and python3 (standard library).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
QKV=${QKV_BIN:-$ROOT/build/qkv}
OUT=${1:-runs/pe_experiment}
RESULTS=${PE_RESULTS:-$HERE/results}
EPOCHS=${PE_EPOCHS:-3}
SYNTH_EPOCHS=${PE_SYNTH_EPOCHS:-12}
export QKV_EWT_DIR=${QKV_EWT_DIR:-$ROOT/data/ud_english_ewt}
DEV=$QKV_EWT_DIR/en_ewt-ud-dev.conllu
KINDS=(none sinusoidal learned)

die() { echo "run_pe_experiment: $*" >&2; exit 1; }
[ -x "$QKV" ] || die "no qkv command at $QKV (build it: cmake -S . -B build && cmake --build build -j2, or set QKV_BIN)"
[ -f "$DEV" ] || die "no $DEV (set QKV_EWT_DIR, or run data/fetch-ud.sh UD_English-EWT data/ud_english_ewt)"
command -v gnuplot >/dev/null || die "gnuplot is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)"
command -v python3 >/dev/null || die "python3 is needed to read the JSON reports"
# The variants of each task must differ only in model.positional (comments aside).
for task in ewt synth; do
    for kind in sinusoidal learned; do
        if ! diff <(sed '/^#/d; s/^\(  positional:\).*/\1/' "$HERE/pe_${task}_none.yaml") \
                  <(sed '/^#/d; s/^\(  positional:\).*/\1/' "$HERE/pe_${task}_$kind.yaml") >/dev/null; then
            die "pe_${task}_none.yaml and pe_${task}_$kind.yaml differ in more than model.positional"
        fi
    done
done
mkdir -p "$OUT" "$RESULTS"
start=$(date +%s)
for kind in "${KINDS[@]}"; do
    echo "== EWT, positional: $kind"
    "$QKV" train "$HERE/pe_ewt_$kind.yaml" --set train.epochs="$EPOCHS" --out "$OUT/ewt_$kind" --force \
        >"$OUT/ewt_$kind.report.txt" 2>"$OUT/ewt_$kind.log" || { tail "$OUT/ewt_$kind.log"; die "training ewt_$kind failed"; }
    grep '^done:' "$OUT/ewt_$kind.log"
    "$QKV" eval "$OUT/ewt_$kind/checkpoints/best.h5" "$DEV" --json --by-length >"$OUT/ewt_$kind.eval.json" \
        2>>"$OUT/ewt_$kind.log" || die "evaluating ewt_$kind failed"
    echo "== synthetic, positional: $kind"
    "$QKV" train "$HERE/pe_synth_$kind.yaml" --set train.epochs="$SYNTH_EPOCHS" --out "$OUT/synth_$kind" --force \
        >"$OUT/synth_$kind.report.txt" 2>"$OUT/synth_$kind.log" || { tail "$OUT/synth_$kind.log"; die "training synth_$kind failed"; }
    grep '^done:' "$OUT/synth_$kind.log"
done
minutes=$(( ($(date +%s) - start + 59) / 60 ))
"$QKV" plot "$OUT/ewt_none" "$OUT/ewt_sinusoidal" "$OUT/ewt_learned" --out "$OUT/ewt_curves.png" --force >/dev/null

# The table and the figure's script, from the JSON reports (EWT) and the text reports (synthetic).
python3 - "$OUT" "$RESULTS" "$EPOCHS" "$SYNTH_EPOCHS" "$minutes" "${KINDS[@]}" <<'PY'
import json, re, sys
out, results, epochs, synth_epochs, minutes, kinds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
ewt = {k: json.load(open(f"{out}/ewt_{k}.eval.json")) for k in kinds}
buckets = [b["bucket"] for b in ewt[kinds[0]]["by_length"]]
words = [b["words"] for b in ewt[kinds[0]]["by_length"]]
def synth(kind):
    text = open(f"{out}/synth_{kind}.report.txt").read()
    acc = float(re.search(r"accuracy ([0-9.]+)%", text).group(1))
    intj = re.search(r"^\s+INTJ\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)", text, re.M)
    adv = re.search(r"^\s+ADV\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)", text, re.M)
    return acc, float(intj.group(3)), float(adv.group(3))
pct = lambda x: f"{100 * x:.2f}"
lines = ["# Positional encodings: none vs sinusoidal vs learned", "",
         f"EWT UPOS dev accuracy (%) by sentence length, trained {epochs} epochs on training sentences of at most 20 words "
         "(model 2 layers, d_model 64; learned table max_len 20, positions past it clamped to the last row); "
         f"synthetic position task ({synth_epochs} epochs): dev accuracy and F1 of INTJ and ADV, the two tags that only "
         "position tells apart.", "",
         "| positional | EWT all | " + " | ".join(f"{b} words ({n})" for b, n in zip(buckets, words)) +
         " | synthetic all | synthetic INTJ F1 | synthetic ADV F1 |",
         "|---|---:|" + "---:|" * len(buckets) + "---:|---:|---:|"]
for k in kinds:
    acc, intj, adv = synth(k)
    row = [k, pct(ewt[k]["accuracy"])] + [pct(b["accuracy"]) for b in ewt[k]["by_length"]]
    row += [f"{acc:.2f}", f"{intj:.3f}", f"{adv:.3f}"]
    lines.append("| " + " | ".join(row) + " |")
lines += ["", f"Reproduce (about {minutes} min on 2 cores): `configs/experiments/run_pe_experiment.sh` "
          "(figure: pe_length.png, its script pe_length.gp)."]
open(f"{results}/pe_results.md", "w").write("\n".join(lines) + "\n")
gp = [f"# Written by configs/experiments/run_pe_experiment.sh: EWT dev accuracy by sentence length.",
      "# Edit and rerun from this folder: gnuplot pe_length.gp",
      "$acc << EOD", "# bucket_index bucket " + " ".join(kinds)]
for i, b in enumerate(buckets):
    gp.append(f"{i} {b} " + " ".join(pct(ewt[k]["by_length"][i]["accuracy"]) for k in kinds))
gp += ["EOD",
       "set terminal pngcairo size 640,400 noenhanced font 'sans,10' background '#ffffff'",
       "set output 'pe_length.png'",
       "set title 'EWT dev accuracy by sentence length (trained on <= 20 words)'",
       "set xlabel 'sentence length (words)'", "set ylabel 'UPOS accuracy (%)'",
       "set grid", "set key bottom left", "set xrange [-0.3:%d.3]" % (len(buckets) - 1),
       "set xtics (" + ", ".join(f"'{b}' {i}" for i, b in enumerate(buckets)) + ")",
       "set arrow from 1.5, graph 0 to 1.5, graph 1 nohead dt 3 lc rgb '#888888'",
       "set label 'longer than any training sentence' at 1.55, graph 0.95 tc rgb '#666666'",
       "plot " + ", \\\n     ".join(f"$acc using 1:{3 + i} with linespoints lw 2 pt 7 title '{k}'" for i, k in enumerate(kinds))]
open(f"{results}/pe_length.gp", "w").write("\n".join(gp) + "\n")
PY
(cd "$RESULTS" && gnuplot pe_length.gp)
cat "$RESULTS/pe_results.md"
echo "figure: $RESULTS/pe_length.png; training curves: $OUT/ewt_curves.png"
