#!/bin/bash
# qkv train --profile and qkv eval --profile: the table on stderr parses; it has forward and
# backward rows of the ops (train) and forward rows (eval); percentages agree with the seconds;
# the rows add up to the total row, and the total to the wall time printed beside it within 5%.
# Without --profile no table is printed.
. "$(dirname "$0")/common.sh"
TINY=(--set data.synthetic_train=300 --set data.synthetic_dev=60 --set train.epochs=2 --set log.plot=false)

# check_table FILE COMMAND: the table of FILE (stderr of COMMAND) is well formed.
check_table() {
    local file=$1 cmd=$2
    grep -q "^profile of $cmd " "$file" || { cat "$file" >&2; fail "no profile table of $cmd"; }
    # region rows: between the header and the total row; label, seconds, calls, % wall
    sed -n '/^  region  *seconds  *calls  *% wall$/,/^  total /p' "$file" >"$SCRATCH/table"
    [ -s "$SCRATCH/table" ] || { cat "$file" >&2; fail "$cmd: no table header"; }
    awk -v cmd="$cmd" '
        NR == 1 { next }
        $1 == "total" { total = $2; total_pct = $3; next }
        {
            pct = $NF; calls = $(NF - 1); sec = $(NF - 2)
            if (sec !~ /^[0-9]+\.[0-9]+$/ || calls !~ /^[0-9]+$/ || pct !~ /^[0-9]+\.[0-9]$/) {
                print cmd ": bad row: " $0; bad = 1
            }
            if (prev != "" && sec > prev) { print cmd ": rows not sorted by time at: " $0; bad = 1 }
            prev = sec; sum += sec; n++
        }
        END {
            if (bad) exit 1
            if (n < 5) { print cmd ": only " n " rows"; exit 1 }
            if (total == "" || sum - total > 0.002 * n || total - sum > 0.002 * n) { print cmd ": rows sum to " sum ", total row says " total; exit 1 }
        }' "$SCRATCH/table" || { cat "$file" >&2; fail "$cmd: table"; }
    local line wall rows
    line=$(grep '^wall time .* s; the rows add up to .* s' "$file") || { cat "$file" >&2; fail "$cmd: no wall time line"; }
    wall=$(sed 's/^wall time \([0-9.]*\) s.*/\1/' <<<"$line")
    rows=$(sed 's/.*the rows add up to \([0-9.]*\) s.*/\1/' <<<"$line")
    awk -v w="$wall" -v r="$rows" 'BEGIN { exit !(w > 0 && r >= 0.95 * w && r <= 1.05 * w) }' ||
        fail "$cmd: rows add up to $rows s, wall time $wall s: more than 5% apart"
    grep -q '^  other  ' "$SCRATCH/table" || fail "$cmd: no other row"
}

"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set log.progress=off --out "$SCRATCH/run" --profile \
    >"$SCRATCH/train.out" 2>"$SCRATCH/train.err" || { cat "$SCRATCH/train.err" >&2; fail "qkv train --profile"; }
check_table "$SCRATCH/train.err" "qkv train"
for row in "linear fwd" "linear bwd" "attention fwd" "attention bwd" "layer_norm bwd" "embedding fwd" \
    "cross_entropy bwd" "optimizer step" "zero grad" "data" "dev evaluation" "checkpoint writing"; do
    grep -q "^  $row  " "$SCRATCH/table" || { cat "$SCRATCH/table" >&2; fail "qkv train: no row '$row'"; }
done
# Every op that has a backward row has its forward row (each op's forward opens a region), for
# the other encoders, output layers and positional kinds too.
for model in "--set model.encoder=bilstm --set model.d_ff=512 --set model.output=crf" \
    "--set model.encoder=cnn --set model.d_ff=512" \
    "--set model.positional=rope" "--set model.positional=floater"; do
    # shellcheck disable=SC2086
    "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" $model --set train.epochs=1 --set log.progress=off \
        --out "$SCRATCH/kind" --force --profile >/dev/null 2>"$SCRATCH/kind.err" ||
        { cat "$SCRATCH/kind.err" >&2; fail "qkv train --profile $model"; }
    awk '/^  [a-z_0-9]+ (fwd|bwd)  / { seen[$1 " " $2] = 1 }
         END { for (r in seen) { split(r, p, " "); if (p[2] == "bwd" && !((p[1] " fwd") in seen)) { print "no forward row for " r; bad = 1 } }
               exit bad }' "$SCRATCH/kind.err" || { cat "$SCRATCH/kind.err" >&2; fail "$model: a backward row without its forward row"; }
done
# the table goes to stderr: stdout holds the report only
grep -q "region" "$SCRATCH/train.out" && fail "qkv train: the table is on stdout"

"$QKV_BIN" synth --sentences 200 --seed 7 >"$SCRATCH/dev.conllu" || fail "qkv synth"
dev=$SCRATCH/dev.conllu
"$QKV_BIN" eval "$SCRATCH/run/checkpoints/last.h5" "$dev" --json --profile >"$SCRATCH/eval.out" 2>"$SCRATCH/eval.err" ||
    { cat "$SCRATCH/eval.err" >&2; fail "qkv eval --profile"; }
check_table "$SCRATCH/eval.err" "qkv eval"
for row in "linear fwd" "attention fwd" "checkpoint loading" "data loading"; do
    grep -q "^  $row  " "$SCRATCH/table" || { cat "$SCRATCH/table" >&2; fail "qkv eval: no row '$row'"; }
done
grep -q " bwd  " "$SCRATCH/table" && fail "qkv eval: a backward row in evaluation"
$PY -c 'import json, sys; json.load(open(sys.argv[1]))' "$SCRATCH/eval.out" || fail "qkv eval --json --profile: stdout is not JSON"

# Off by default: no table.
"$QKV_BIN" eval "$SCRATCH/run/checkpoints/last.h5" "$dev" >/dev/null 2>"$SCRATCH/plain.err" || fail "qkv eval"
grep -q "^profile of" "$SCRATCH/plain.err" && fail "a table without --profile"
echo ok
