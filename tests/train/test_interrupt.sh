#!/bin/bash
# Ctrl-C during qkv train: the first SIGINT lets the step finish, saves checkpoints/last.h5 at
# that step, says so with the resume command and exits 130; the resumed run's losses and
# parameters are bit for bit those of a run never interrupted (one thread). SIGTERM does the
# same (143), and so does SIGHUP (129: the terminal closed), also when they land during a
# checkpoint's save (one after every step, or at every epoch's end with best.h5): the hint is
# printed, with the command as the user ran it, and no temporary file is left. Two SIGINTs in a
# row end the process at once, leaving no damaged checkpoint; two SIGHUPs (a closed terminal may
# send two) do not. A SIGHUP ignored from the start (nohup) leaves the run training.
. "$(dirname "$0")/common.sh"
BASE=("${LONG_RUN[@]}")

# start_and_signal DIR SIGNAL...: a run into DIR (started through $WRAP when set), the signals
# sent once it has logged 3 steps; sets $status to its exit status.
WRAP=()
start_and_signal() {
    local dir=$1
    shift
    set -m # the run in its own process group, with the signal dispositions of a foreground one
    "${WRAP[@]}" "$QKV_BIN" train tests/train/synthetic.yaml --out "$dir" "${BASE[@]}" >"$dir.log" 2>&1 &
    local pid=$! k
    set +m
    for k in $(seq 1 1200); do
        [ "$(train_rows "$dir")" -ge 3 ] && break
        sleep 0.05
    done
    for sig in "$@"; do
        if [ "$sig" = AFTER3 ]; then # 3 more steps logged first
            local now
            now=$(train_rows "$dir")
            for k in $(seq 1 1200); do
                [ "$(train_rows "$dir")" -ge $((now + 3)) ] && break
                sleep 0.05
            done
            continue
        fi
        kill -s "$sig" "$pid"
    done
    status=0
    wait "$pid" || status=$?
}

for sig in INT TERM HUP; do
    run=$SCRATCH/run$sig
    start_and_signal "$run" "$sig"
    want=$((128 + $(kill -l "$sig")))
    [ "$status" -eq "$want" ] || { cat "$run.log" >&2; fail "SIG$sig: exit status $status, expected $want"; }
    [ -e "$run/checkpoints/last.h5" ] || fail "SIG$sig: no checkpoints/last.h5 saved"
    step=$(ckpt_step "$run/checkpoints/last.h5")
    last_row=$(awk -F'\t' '$3 == "train" { s = $1 } END { print s }' "$run/metrics.tsv")
    [ "$step" -ge 3 ] && [ "$step" = "$last_row" ] || fail "SIG$sig: checkpoint at step $step, last logged step $last_row"
    grep -qF "after step $step: saved $run/checkpoints/last.h5; continue with: $QKV_BIN train $run/config.yaml --resume $run/checkpoints/last.h5" "$run.log" ||
        { cat "$run.log" >&2; fail "SIG$sig: no message with the resume command"; }
    grep -qF "interrupted by SIG$sig after step $step: saved" "$run.log" ||
        { cat "$run.log" >&2; fail "SIG$sig: the message does not name the signal"; }
    echo "SIG$sig: exit $status, last.h5 at step $step, resume command printed"
done

# signals during the saves: a checkpoint after every step, or an epoch of one step (each ending
# with a dev evaluation, best.h5 and last.h5), so most of the time is spent saving
BASE_SAVE=("${BASE[@]}")
for c in "INT every_step" "HUP every_step" "HUP epoch_end" "HUP HUP epoch_end"; do
    read -ra sigs <<<"${c% *}"
    case ${c##* } in
    every_step) BASE=("${BASE_SAVE[@]}" --set checkpoint.every_steps=1) ;;
    epoch_end) BASE=("${BASE_SAVE[@]}" --set data.synthetic_train=12) ;;
    esac
    what="${sigs[*]/#/SIG} during the saves (${c##* })"
    run=$SCRATCH/saving_${c// /_}
    start_and_signal "$run" "${sigs[@]}"
    want=$((128 + $(kill -l "${sigs[0]}")))
    [ "$status" -eq "$want" ] || { cat "$run.log" >&2; fail "$what: exit status $status, expected $want"; }
    step=$(ckpt_step "$run/checkpoints/last.h5") || { cat "$run.log" >&2; fail "$what: no whole last.h5"; }
    grep -qE "^interrupted by SIG[A-Z]+ after step $step: saved " "$run.log" &&
        grep -qF "after step $step: saved $run/checkpoints/last.h5; continue with: $QKV_BIN train" "$run.log" ||
        { cat "$run.log" >&2; fail "$what: no resume hint at step $step"; }
    [ "${sigs[0]}" != INT ] || grep -qF "interrupted by SIGINT after step $step" "$run.log" || fail "$what: not named"
    left=$(find "$run" -name '*.tmp*')
    [ -z "$left" ] || fail "$what left $left"
    echo "$what: exit $status, hint at step $step, no temporary file"
done
BASE=("${BASE_SAVE[@]}")

# SIGHUP ignored from the start (nohup): the run goes on training; a SIGINT later stops it
run=$SCRATCH/nohup
WRAP=(nohup)
start_and_signal "$run" HUP AFTER3 INT
WRAP=()
[ "$status" -eq 130 ] || { cat "$run.log" >&2; fail "nohup, SIGHUP then SIGINT: exit status $status, expected 130"; }
step=$(ckpt_step "$run/checkpoints/last.h5")
[ "$step" -ge 6 ] && grep -qF "interrupted by SIGINT after step $step" "$run.log" ||
    { cat "$run.log" >&2; fail "nohup: SIGHUP stopped the run (last.h5 at step $step)"; }
echo "nohup: SIGHUP ignored, SIGINT stopped the run at step $step"

# the SIGINT run resumed, and the same run never interrupted, both stopped 10 steps later
run=$SCRATCH/runINT
step=$(ckpt_step "$run/checkpoints/last.h5")
end=$((step + 10))
quick_run "$run" "${BASE[@]}" --resume "$run/checkpoints/last.h5" --stop-at-step "$end"
quick_run "$SCRATCH/full" "${BASE[@]}" --stop-at-step "$end"
cut -f1,3,4,5 "$SCRATCH/full/metrics.tsv" >"$SCRATCH/a"
cut -f1,3,4,5 "$run/metrics.tsv" >"$SCRATCH/b"
diff "$SCRATCH/a" "$SCRATCH/b" || fail "losses differ after resuming from the interrupted run's step $step"
"$PY" - "$SCRATCH/full/checkpoints/last.h5" "$run/checkpoints/last.h5" <<'PY' || fail "parameters differ after resuming"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert sorted(a["params"].keys()) == sorted(b["params"].keys())
for n in a["params"]:
    if not np.array_equal(a["params"][n][()].view(np.uint32), b["params"][n][()].view(np.uint32)):
        sys.exit(f"params/{n} differs")
PY
echo "resumed after SIGINT at step $step: losses and parameters up to step $end bit-exact"

# a second SIGINT stops at once: exit 130, and a checkpoint left behind is whole (resumable)
run=$SCRATCH/twice
start_and_signal "$run" INT INT
[ "$status" -eq 130 ] || { cat "$run.log" >&2; fail "two SIGINTs: exit status $status, expected 130"; }
if [ -e "$run/checkpoints/last.h5" ]; then
    step=$(ckpt_step "$run/checkpoints/last.h5") || fail "two SIGINTs left a damaged last.h5"
    quick_run "$run" "${BASE[@]}" --resume "$run/checkpoints/last.h5" --stop-at-step $((step + 2))
fi
echo "two SIGINTs: exit 130, no damaged checkpoint"
