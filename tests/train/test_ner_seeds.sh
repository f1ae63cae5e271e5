#!/bin/bash
# configs/experiments/ner/seeds.sh on a small generated span corpus (two seeds, three epochs):
# one run folder per seed with its train.seed, and report.py's figures against metrics.tsv (best
# and last dev span F1 per seed, their mean and spread over the seeds); report.py's errors for a
# run without span scores and a missing run.
source "$(dirname "$0")/common.sh"

gen() { # N SEED: "NAME waved at CITY ." sentences, tagged in BIO
    awk -v n="$1" -v seed="$2" 'BEGIN {
        srand(seed); split("Ann Bob Cem Dee Eli Fay", per, " "); split("Rome Oslo Lima Kyiv", loc, " ")
        for (s = 0; s < n; s++)
            printf "%s\tB-person\nwaved\tO\nat\tO\n%s\tB-location\n.\tO\n\n", per[int(rand() * 6) + 1], loc[int(rand() * 4) + 1]
    }'
}
gen 200 1 >"$SCRATCH/train.conll"
gen 30 2 >"$SCRATCH/dev.conll"
cat >"$SCRATCH/ner.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32}
data: {train: train.conll, dev: dev.conll, batch_tokens: 300}
train: {epochs: 3, word_dropout: 0}
optim: {lr: 5e-3, warmup_steps: 2}
log: {every_steps: 10}
EOC
NER_CONFIG=$SCRATCH/ner.yaml NER_SEEDS="1 2" NER_RUNS=$SCRATCH/runs configs/experiments/ner/seeds.sh small \
    --set checkpoint.keep_best=false >"$SCRATCH/out.txt" 2>&1 || { cat "$SCRATCH/out.txt"; fail "seeds.sh"; }
for s in 1 2; do
    grep -qx "  seed: $s" "$SCRATCH/runs/small/seed$s/config.yaml" || fail "seed$s was not trained with train.seed $s"
    grep -q "keep_best: false" "$SCRATCH/runs/small/seed$s/config.yaml" || fail "the extra --set did not reach seed$s"
done
cmp -s "$SCRATCH/runs/small/report.md" <(sed -n '/^### small$/,$p' "$SCRATCH/out.txt") || fail "report.md is not the printed report"
# the figures, computed here from metrics.tsv: per seed the first highest and the last dev span F1
want=$(for s in 1 2; do
    awk -F'\t' -v s="$s" '$3 == "dev" { f = 100 * $11; if (n == 0 || f > best) { best = f; ep = $2 } last = f; n++ }
        END { printf "| seed%s | %.2f | %d | %.2f |\n", s, best, ep, last }' "$SCRATCH/runs/small/seed$s/metrics.tsv"
done)
got=$(grep '^| seed' "$SCRATCH/out.txt" | cut -d'|' -f1-5 | sed 's/ *$/ |/')
[ "$got" = "$want" ] || { cat "$SCRATCH/out.txt"; fail "per-seed rows: got '$got', want '$want'"; }
[ "$(awk -F'\t' '$3 == "dev"' "$SCRATCH/runs/small/seed1/metrics.tsv" | wc -l)" = 3 ] || fail "not 3 dev evaluations"
grep '^| seed1 ' "$SCRATCH/out.txt" | grep -qE '\| [0-9.]+, [0-9.]+, [0-9.]+ \|$' || fail "no 3 per-evaluation F1s"
for what in best last; do
    col=$([ $what = best ] && echo 3 || echo 5)
    stats=$(grep '^| seed' "$SCRATCH/out.txt" | awk -F'|' -v c="$col" '{ v = $c + 0; s += v; if (NR == 1 || v > hi) hi = v; if (NR == 1 || v < lo) lo = v }
        END { printf "mean %.2f, spread %.2f", s / NR, hi - lo }')
    grep -qF "$what dev span F1 over 2 runs: $stats (max - min)" "$SCRATCH/out.txt" || { cat "$SCRATCH/out.txt"; fail "$what: not '$stats'"; }
done

# a hand-written run: dev F1 30, 40, 40, 35 (a tie: best.h5 keeps the first), train rows between
mkdir -p "$SCRATCH/hand"
{
    printf 'step\tepoch\tsplit\tloss\taccuracy\tlr\ttokens_per_sec\telapsed_s\tspan_precision\tspan_recall\tspan_f1\n'
    e=0
    for f in 0.30 0.40 0.40 0.35; do
        e=$((e + 1))
        printf '%d\t%d\ttrain\t1\t0.9\t0.001\t100\t1\tnan\tnan\tnan\n' $((10 * e - 5)) "$e"
        printf '%d\t%d\tdev\t1\t0.9\t0.001\t100\t1\t0.5\t0.3\t%s\n' $((10 * e)) "$e" "$f"
    done
} >"$SCRATCH/hand/metrics.tsv"
echo "done: 40 steps in 61.4 s; best dev span F1 40.00 at step 20" >"$SCRATCH/hand.log"
"$PY" configs/experiments/ner/report.py hand "$SCRATCH/hand" "$SCRATCH/hand" >"$SCRATCH/hand.md" || fail "report.py of a hand-written run"
grep -qxF "| hand | 40.00 | 2 | 35.00 | 5.00 | 61 s | 30.00, 40.00, 40.00, 35.00 |" "$SCRATCH/hand.md" ||
    { cat "$SCRATCH/hand.md"; fail "the hand-written run's row"; }
grep -qxF "last dev span F1 over 2 runs: mean 35.00, spread 0.00 (max - min), sd 0.00" "$SCRATCH/hand.md" ||
    { cat "$SCRATCH/hand.md"; fail "the hand-written run's summary"; }

# errors: a run whose metrics have no span F1 (POS tags), a folder without metrics.tsv
printf 'a\tDT\nb\tNN\n\n' >"$SCRATCH/pos.tsv"
"$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/pos" --set data.train="$SCRATCH/pos.tsv" --set data.dev="$SCRATCH/pos.tsv" \
    --set train.epochs=1 --set log.plot=false --set log.progress=off >/dev/null 2>&1 || fail "train on POS tags"
expect_error "$SCRATCH/pos/metrics.tsv:1: no span_f1 column" "$PY" configs/experiments/ner/report.py x "$SCRATCH/pos"
expect_error "$SCRATCH/none/metrics.tsv: cannot read" "$PY" configs/experiments/ner/report.py x "$SCRATCH/none"
expect_error "usage: configs/experiments/ner/seeds.sh NAME" configs/experiments/ner/seeds.sh
echo "ner_seeds: ok"
