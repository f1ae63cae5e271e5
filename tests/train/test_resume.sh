#!/bin/bash
# Exact resume: a run stopped after a checkpoint and resumed with --resume gives the same
# metrics.tsv losses and the same final parameters, bit for bit (one thread), as the run never
# stopped, for a stop in the middle of an epoch and one at an epoch boundary; once with the
# plain model and once with a parameter average (train.ema_decay), the character encoder and
# relative position biases, whose state must survive the stop too; the lazy embedding update;
# the bilstm and cnn encoders (model.encoder); then each of the positional encodings rope (with
# relative biases), alibi and floater. A checkpoint resumes only with its own encoder.
. "$(dirname "$0")/common.sh"
BASE=(--set train.threads=1 --set train.max_steps=40 --set data.synthetic_train=800 --set data.synthetic_dev=100
      --set model.d_model=32 --set model.d_ff=64 --set data.batch_tokens=400)
EXTRA=(--set train.ema_decay=0.9 --set model.char_dim=8 --set model.char_filters=12 --set model.attn_window=2
       --set model.attn_rel_clip=2)

compare_params() {
    "$PY" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
groups = ["params"] + (["train/raw_params"] if "train/raw_params" in a else [])
assert ("train/raw_params" in a) == ("train/raw_params" in b), "one has an average, the other not"
for g in groups:
    names = sorted(a[g].keys())
    assert names == sorted(b[g].keys()), "different parameter sets"
    for n in names:
        x, y = a[g][n][()], b[g][n][()]
        if not np.array_equal(x.view(np.uint32), y.view(np.uint32)):
            sys.exit(f"{g}/{n} differs: max |diff| {np.abs(x - y).max()}")
    print(f"{g}: {len(names)} tensors identical")
PY
}

# lazy: the averaged run with optim.sparse_embeddings (the lazy update of the tables' rows)
for variant in bilstm cnn plain averaged lazy rope alibi floater; do
SETS=("${BASE[@]}")
[ "$variant" = averaged ] || [ "$variant" = lazy ] && SETS+=("${EXTRA[@]}")
[ "$variant" = lazy ] && SETS+=(--set optim.sparse_embeddings=true)
[ "$variant" = lazy ] && cp "$SCRATCH/full/checkpoints/last.h5" "$SCRATCH/averaged.h5"
[ "$variant" = rope ] && cp "$SCRATCH/full/checkpoints/last.h5" "$SCRATCH/lazy.h5"
[ "$variant" = rope ] && SETS+=(--set model.positional=rope --set model.attn_rel_clip=2)
[ "$variant" = alibi ] || [ "$variant" = floater ] && SETS+=(--set model.positional=$variant)
# (d_ff back at its default: a transformer-only key)
[ "$variant" = bilstm ] && SETS+=(--set model.encoder=bilstm --set model.d_ff=512 --set model.n_layers=2)
[ "$variant" = cnn ] && SETS+=(--set model.encoder=cnn --set model.d_ff=512 --set model.cnn_dilation=2)
rm -rf "$SCRATCH/full" "$SCRATCH"/part*
quick_run "$SCRATCH/full" "${SETS[@]}"
boundary=$(awk -F'\t' '$3 == "dev" {print $1; exit}' "$SCRATCH/full/metrics.tsv")
[ -n "$boundary" ] && [ "$boundary" -lt 40 ] || fail "no epoch boundary before step 40 (got '$boundary')"
for stop in 7 "$boundary"; do
    quick_run "$SCRATCH/part$stop" "${SETS[@]}" --stop-at-step "$stop"
    grep -q "stopped after step $stop" "$SCRATCH/part$stop.log" || fail "run did not stop at step $stop"
    cp "$SCRATCH/part$stop/checkpoints/last.h5" "$SCRATCH/resume$stop.h5"
    [ "$variant" = averaged ] && cp "$SCRATCH/resume$stop.h5" "$SCRATCH/averaged$stop.h5"
    quick_run "$SCRATCH/part$stop" "${SETS[@]}" --resume "$SCRATCH/resume$stop.h5"
    # losses and accuracies (columns step, split, loss, accuracy) must match exactly
    cut -f1,3,4,5 "$SCRATCH/full/metrics.tsv" >"$SCRATCH/a"
    cut -f1,3,4,5 "$SCRATCH/part$stop/metrics.tsv" >"$SCRATCH/b"
    diff "$SCRATCH/a" "$SCRATCH/b" || fail "metrics differ after resuming at step $stop"
    compare_params "$SCRATCH/full/checkpoints/last.h5" "$SCRATCH/part$stop/checkpoints/last.h5" ||
        fail "final parameters differ after resuming at step $stop ($variant)"
done
echo "$variant: resume at steps 7 and $boundary (epoch boundary): bit-exact"
done
# the option is in effect: the lazy run ends with other tables than the dense one
compare_params "$SCRATCH/averaged.h5" "$SCRATCH/lazy.h5" >/dev/null 2>&1 &&
    fail "optim.sparse_embeddings: true gave the same parameters as the dense update"
echo "lazy and dense updates differ"
# an averaged checkpoint cannot be resumed without the average, nor a plain one with it
expect_error "saved with a parameter average" "$QKV_BIN" train tests/train/synthetic.yaml "${BASE[@]}" \
    --out "$SCRATCH/mismatch" --resume "$SCRATCH/averaged7.h5" --set model.char_dim=8 --set model.char_filters=12 \
    --set model.attn_window=2 --set model.attn_rel_clip=2
echo "average mismatch on resume: clear error"
# a plain checkpoint resumed with the character encoder: a clear error, and no run folder made
quick_run "$SCRATCH/plain" "${BASE[@]}" --set train.max_steps=3
expect_error "has no character vocabulary (/vocab/chars): it was trained without the character encoder" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${BASE[@]}" --out "$SCRATCH/nochars" --resume "$SCRATCH/plain/checkpoints/last.h5" \
    --set model.char_dim=8
[ ! -e "$SCRATCH/nochars" ] || fail "a refused --resume left a run folder behind"
expect_error "cannot open" "$QKV_BIN" train tests/train/synthetic.yaml --out "$SCRATCH/nofile" --resume "$SCRATCH/none.h5"
[ ! -e "$SCRATCH/nofile" ] || fail "a missing --resume checkpoint left a run folder behind"
echo "refused resumes: clear errors, no run folder"
# a save killed mid-way leaves "<name>.tmp-<pid>": the next run in that folder removes it
true & dead=$!
wait "$dead"
touch "$SCRATCH/plain/checkpoints/last.h5.tmp-$dead"
quick_run "$SCRATCH/plain" "${BASE[@]}" --set train.max_steps=3 --force
[ ! -e "$SCRATCH/plain/checkpoints/last.h5.tmp-$dead" ] || fail "the stale temporary checkpoint is still there"
grep -q "removed 1 temporary file(s) of an interrupted save" "$SCRATCH/plain.log" || fail "no word of the removal"
echo "stale temporary checkpoint removed"
# a transformer checkpoint resumed as a bilstm: a clear error naming both encoders
expect_error "it was saved with model.encoder: transformer; this run has model.encoder: bilstm" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${BASE[@]}" --out "$SCRATCH/other" --resume "$SCRATCH/plain/checkpoints/last.h5" \
    --set model.encoder=bilstm --set model.d_ff=512
[ ! -e "$SCRATCH/other" ] || fail "a failed resume made a run folder"
echo "encoder mismatch on resume: clear error"
