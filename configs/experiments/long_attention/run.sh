#!/bin/bash
# Long-sequence attention: the stored kernel (P kept for backward) against the tiled one
# (model.attn_kernel, lib/ops/attention_tiled.c) in training steps of long.yaml on one
# sequence of n tokens per step (`qkv synth --task ends`), whole-sentence attention and a band.
# For each n, window and kernel: the training time per token as CPU time (user + system of the
# whole process, GNU time's %U + %S, over the STEPS · n training tokens: start-up, the final dev
# pass over a 10-token sentence and the checkpoint are included, a few percent) and as wall
# time (the median of the steps' tokens_per_sec in metrics.tsv, the first step left out), the
# peak memory of the process (maximum resident set size, %M), tiled / stored as ratios, and the
# last step's training loss of both (the same up to float rounding: no attention dropout). On a
# shared machine the wall time follows the load; the CPU time much less. The two kernels take
# turns for ROUNDS rounds; the table gives each figure's median over the rounds, and the ratios
# are the medians of the rounds' ratios (memory: of the medians).
# A benchmark, not a test: several minutes.
# Usage: configs/experiments/long_attention/run.sh [RUN_DIR]
# Knobs: QKV (the binary, default build/qkv), LENS (default "1000 2000 5000 10000"),
# WINDOWS (default "0 32"; 0 = whole sentence), STEPS (steps per run, default 5),
# THREADS (train.threads, default 1), ROUNDS (default 3).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
QKV=${QKV:-$ROOT/build/qkv}
LENS=${LENS:-1000 2000 5000 10000}
WINDOWS=${WINDOWS:-0 32}
STEPS=${STEPS:-5}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-3}
RUN=${1:-$(mktemp -d)}
mkdir -p "$RUN"
[ -x /usr/bin/time ] || { echo "run.sh: needs GNU time (/usr/bin/time; Debian package time)" >&2; exit 1; }

# run N WINDOW KERNEL: prints "cpu_us_per_token wall_us_per_token peak_mib last_loss"
run() {
    local n=$1 w=$2 k=$3 out=$RUN/n$1_w$2_$3
    /usr/bin/time -f "%M %U %S" -o "$out.mem" "$QKV" train "$HERE/long.yaml" --set data.train="$RUN/seq$n.conllu" --set data.dev="$RUN/dev$n.conllu" \
        --set data.batch_tokens="$n" --set model.attn_window="$w" --set model.attn_kernel="$k" \
        --set train.max_steps="$STEPS" --set train.threads="$THREADS" --out "$out" --force \
        >"$out.log" 2>&1 || { echo "run.sh: $out failed:" >&2; tail -3 "$out.log" >&2; exit 1; }
    /usr/bin/python3 - "$out/metrics.tsv" "$out.mem" "$n" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["split"] == "train"]
wall = statistics.median(1e6 / float(r["tokens_per_sec"]) for r in rows[1:])
kib, user, sys_s = open(sys.argv[2]).read().split()[-3:]
cpu = 1e6 * (float(user) + float(sys_s)) / (len(rows) * int(sys.argv[3]))
print(f"{cpu:.2f} {wall:.2f} {int(kib) / 1024:.0f} {float(rows[-1]['loss']):.6f}")
PY
}

echo "long.yaml: 1 layer, d_model 128, 4 heads; one sequence of n tokens per step; $STEPS steps;" \
     "train.threads $THREADS; $ROUNDS rounds"
echo "us/tok: microseconds per training token (cpu: CPU time; wall: wall-clock time); MiB: peak RSS"
printf '%6s %6s | %10s %10s %6s | %10s %10s %6s | %8s %8s %6s | %9s %9s\n' n window "cpu stored" "cpu tiled" ratio \
    "wall stor." "wall tiled" ratio "MiB stor." "MiB tiled" ratio "loss stor." "loss tiled"
for n in $LENS; do
    "$QKV" synth --task ends --sentences "$STEPS" --seed 1 --min-len "$n" --max-len "$n" >"$RUN/seq$n.conllu"
    "$QKV" synth --task ends --sentences 1 --seed 2 --min-len 10 --max-len 10 >"$RUN/dev$n.conllu"
    for w in $WINDOWS; do
        rows=()
        for r in $(seq "$ROUNDS"); do
            stored=$(run "$n" "$w" stored)
            tiled=$(run "$n" "$w" tiled)
            rows+=("$stored $tiled")
        done
        w_name=$([ "$w" = 0 ] && echo whole || echo "$w")
        printf '%s\n' "${rows[@]}" | /usr/bin/python3 -c '
import statistics as st, sys
n, w = sys.argv[1], sys.argv[2]
rows = [[float(v) for v in line.split()] for line in sys.stdin]  # stored cpu wall mib loss, tiled same
med = lambda k: st.median(r[k] for r in rows)
ratio = lambda k: st.median(r[4 + k] / r[k] for r in rows)
print(f"{n:>6} {w:>6} | {med(0):10.2f} {med(4):10.2f} {ratio(0):6.2f} | {med(1):10.2f} {med(5):10.2f} "
      f"{ratio(1):6.2f} | {med(2):8.0f} {med(6):8.0f} {med(6) / med(2):6.2f} | {rows[-1][3]:9.6f} {rows[-1][7]:9.6f}")'\
            "$n" "$w_name"
    done
done
echo "runs in $RUN"
