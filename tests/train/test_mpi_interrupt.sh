#!/bin/bash
# SIGINT and SIGTERM during a 2-rank `mpirun qkv train`: whichever process gets the signal (one
# rank only, here rank 1, which does not write; or mpirun, which passes it on to every rank in
# its own time), every rank stops after the same step, rank 0 saves checkpoints/last.h5 at that
# step and prints the resume command, and the job ends (no rank waits forever in a collective
# call of a step the others never reach); the checkpoint resumes with 2 ranks.
. "$(dirname "$0")/common.sh"
require_mpi
BASE=("${LONG_RUN[@]}")

# run_and_signal DIR WHO SIGNAL: a 2-rank run into DIR; once it has logged 3 steps, SIGNAL to WHO
# (rank1: the rank that does not write; mpirun); fails when the job is not over 60 s later.
run_and_signal() {
    local dir=$1 who=$2 sig=$3 k
    set -m
    "${MPIRUN[@]}" "$QKV_BIN" train tests/train/synthetic.yaml --out "$dir" "${BASE[@]}" >"$dir.log" 2>&1 &
    local mp=$!
    set +m
    for k in $(seq 1 1200); do
        [ "$(train_rows "$dir")" -ge 3 ] && break
        sleep 0.05
    done
    local ranks target
    ranks=$(ps -eo pid=,ppid=,args= | awk -v p="$mp" '$2 == p && / train / {print $1}')
    [ "$(wc -w <<<"$ranks")" = 2 ] || { kill -s KILL "$mp"; fail "expected 2 ranks under mpirun $mp, found '$ranks'"; }
    target=$([ "$who" = mpirun ] && echo "$mp" || awk '{print $2}' <<<"$(echo $ranks)")
    kill -s "$sig" "$target"
    for k in $(seq 1 600); do
        kill -0 "$mp" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$mp" 2>/dev/null; then
        kill -s KILL "$mp"
        cat "$dir.log" >&2
        fail "SIG$sig to $who: the job hangs"
    fi
    wait "$mp" || true
}

for case in rank1:TERM mpirun:INT; do
    who=${case%:*} sig=${case#*:}
    run=$SCRATCH/$who$sig
    run_and_signal "$run" "$who" "$sig"
    step=$(ckpt_step "$run/checkpoints/last.h5") || { cat "$run.log" >&2; fail "SIG$sig to $who: no checkpoint"; }
    last_row=$(awk -F'\t' '$3 == "train" { s = $1 } END { print s }' "$run/metrics.tsv")
    [ "$step" -ge 3 ] && [ "$step" = "$last_row" ] || fail "SIG$sig to $who: checkpoint at step $step, last logged step $last_row"
    grep -q "^interrupted by SIG[A-Z]* after step $step: saved $run/checkpoints/last.h5; continue with: .*qkv train" "$run.log" ||
        { cat "$run.log" >&2; fail "SIG$sig to $who: no message with the resume command"; }
    echo "SIG$sig to $who: both ranks stopped after step $step, last.h5 saved there"
done
# the checkpoint resumes with 2 ranks
run=$SCRATCH/rank1TERM
step=$(ckpt_step "$run/checkpoints/last.h5")
"${MPIRUN[@]}" "$QKV_BIN" train tests/train/synthetic.yaml --out "$run" "${BASE[@]}" --resume "$run/checkpoints/last.h5" \
    --stop-at-step $((step + 2)) >"$run.resume.log" 2>&1 || { cat "$run.resume.log" >&2; fail "2-rank resume"; }
[ "$(ckpt_step "$run/checkpoints/last.h5")" = $((step + 2)) ] || fail "the resumed run did not reach step $((step + 2))"
echo ok
