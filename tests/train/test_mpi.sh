#!/bin/bash
# Data-parallel training (train/dist.h) against one process, on the synthetic corpus with every
# dropout on (model.dropout, model.attn_dropout, model.head_dropout, train.word_dropout), 100 steps:
#   - 2 ranks vs 1 process: per-step training losses within 1e-5 relative, final parameters
#     within 1e-4 (the sums of the gradients run in another order: float rounding only), except
#     the attention key biases attn.b_k: softmax over keys is invariant to q·b_k, so their exact
#     gradient is 0 and the computed one is rounding noise, which AdamW's m/sqrt(v) turns into
#     steps of about lr whatever its size; they differ between any two summation orders (also
#     between thread counts of one process) and are checked to have no effect on the outputs via
#     the per-step losses;
#   - two 2-rank runs: bitwise-identical parameters and optimizer moments (fixed reduction order);
#   - a 2-rank run stopped at step 50 and resumed with 2 ranks: bitwise the uninterrupted run;
#   - the same checkpoint resumed by 1 process: finishes, says the rank count changed, and ends
#     within 1e-4 of the 2-rank run;
#   - only rank 0 writes (one header and one row per step in metrics.tsv);
#   - the dev evaluations, sharded over the ranks and summed, report what one process does (loss
#     within 1e-5 relative, accuracy within 0.2 points);
#   - 30 steps with optim.sparse_embeddings (lazy AdamW of the rows a batch touches: every rank
#     must update the rows of the whole batch, which after the allreduce hold gradient, not only
#     its own share's) and 30 with model.output: crf (whose transition scores must train: the
#     step's loss is the CRF's): 2 ranks vs 1 process as above.
. "$(dirname "$0")/common.sh"
require_mpi
CFG=tests/train/synthetic.yaml
BASE=(--set train.threads=1 --set train.max_steps=100 --set data.synthetic_train=800 --set data.synthetic_dev=100
      --set model.d_model=32 --set model.d_ff=64 --set data.batch_tokens=400 --set log.every_steps=1
      --set model.dropout=0.1 --set model.attn_dropout=0.1 --set model.head_dropout=0.1 --set train.word_dropout=0.1
      --set log.plot=false)

"$QKV_BIN" train "$CFG" "${BASE[@]}" --out "$SCRATCH/one" >/dev/null 2>"$SCRATCH/one.err" ||
    { cat "$SCRATCH/one.err"; fail "1 process"; }
for run in two two_again; do
    "${MPIRUN[@]}" "$QKV_BIN" train "$CFG" "${BASE[@]}" --out "$SCRATCH/$run" >/dev/null 2>"$SCRATCH/$run.err" ||
        { cat "$SCRATCH/$run.err"; fail "2 ranks ($run)"; }
done
grep -q "data-parallel: 2 ranks" "$SCRATCH/two.err" || fail "the 2-rank run does not say it is data-parallel"
[ "$(grep -c '^step' "$SCRATCH/two/metrics.tsv")" -eq 1 ] || fail "metrics.tsv has more than one header (two writers?)"
[ "$(awk '$3 == "train"' "$SCRATCH/two/metrics.tsv" | wc -l)" -eq 100 ] || fail "metrics.tsv of 2 ranks: not 100 train rows"

# stopped at 50 with 2 ranks, then resumed with 2 ranks (same folder) and with 1 process (another)
"${MPIRUN[@]}" "$QKV_BIN" train "$CFG" "${BASE[@]}" --out "$SCRATCH/stop" --stop-at-step 50 >/dev/null 2>&1 ||
    fail "2 ranks stopped at 50"
cp "$SCRATCH/stop/checkpoints/last.h5" "$SCRATCH/mid.h5"
"${MPIRUN[@]}" "$QKV_BIN" train "$SCRATCH/stop/config.yaml" --resume "$SCRATCH/stop/checkpoints/last.h5" \
    >/dev/null 2>"$SCRATCH/resume2.err" || { cat "$SCRATCH/resume2.err"; fail "2-rank resume"; }
"$QKV_BIN" train "$SCRATCH/stop/config.yaml" --resume "$SCRATCH/mid.h5" --out "$SCRATCH/resume1" \
    >/dev/null 2>"$SCRATCH/resume1.err" || { cat "$SCRATCH/resume1.err"; fail "1-process resume of a 2-rank run"; }
grep -q "saved by 2 process(es), this run has 1" "$SCRATCH/resume1.err" ||
    { cat "$SCRATCH/resume1.err"; fail "resuming with another number of ranks does not say so"; }

# the lazy embedding update and the CRF output: 2 ranks vs 1 process
for v in sparse crf; do
    [ $v = sparse ] && X=(--set optim.sparse_embeddings=true) || X=(--set model.output=crf)
    "$QKV_BIN" train "$CFG" "${BASE[@]}" --set train.max_steps=30 "${X[@]}" --out "$SCRATCH/${v}_one" \
        >/dev/null 2>"$SCRATCH/$v.err" || { cat "$SCRATCH/$v.err"; fail "1 process ($v)"; }
    "${MPIRUN[@]}" "$QKV_BIN" train "$CFG" "${BASE[@]}" --set train.max_steps=30 "${X[@]}" --out "$SCRATCH/${v}_two" \
        >/dev/null 2>"$SCRATCH/$v.err" || { cat "$SCRATCH/$v.err"; fail "2 ranks ($v)"; }
done

"$PY" - "$SCRATCH" <<'PY'
import sys, h5py, numpy as np
d = sys.argv[1]
def losses(run):
    rows = [l.split("\t") for l in open(f"{d}/{run}/metrics.tsv").read().splitlines()[1:]]
    return np.array([float(r[3]) for r in rows if r[2] == "train"])
def same_losses(a, b, steps, what):
    one, two = losses(a), losses(b)
    assert len(one) == len(two) == steps, (what, len(one), len(two))
    rel = np.abs(one - two) / np.abs(one)
    assert rel.max() <= 1e-5, f"{what}: per-step losses differ by {rel.max():.3g} relative at step {rel.argmax() + 1}"
    print(f"{what}: per-step losses within {rel.max():.2g} relative")
same_losses("one", "two", 100, "2 ranks vs 1 process")
def dev(run):
    rows = [l.split("\t") for l in open(f"{d}/{run}/metrics.tsv").read().splitlines()[1:]]
    return np.array([[float(r[3]), float(r[4])] for r in rows if r[2] == "dev"])
dev1, dev2 = dev("one"), dev("two")
assert len(dev1) == len(dev2) > 0, (len(dev1), len(dev2))
rel = np.abs(dev1[:, 0] - dev2[:, 0]) / np.abs(dev1[:, 0])
assert rel.max() <= 1e-5, f"sharded dev evaluation: losses differ by {rel.max():.3g} relative"
assert np.abs(dev1[:, 1] - dev2[:, 1]).max() <= 2e-3, f"sharded dev evaluation: accuracies {dev1[:, 1]} vs {dev2[:, 1]}"
print(f"sharded dev evaluation, 2 ranks vs 1 process: {len(dev1)} evaluations, losses within {rel.max():.2g} relative, "
      f"accuracies within {np.abs(dev1[:, 1] - dev2[:, 1]).max():.2g}")
def tensors(run, groups=("params", "optim")):
    f = h5py.File(f"{d}/{run}/checkpoints/last.h5", "r")
    out = {}
    for g in groups:
        f[g].visititems(lambda n, o: out.__setitem__(f"{g}/{n}", o[()]) if isinstance(o, h5py.Dataset) else None)
    return out
def close(a, b, what):
    worst = max(float(np.abs(a[k] - b[k]).max()) for k in a if k.startswith("params/") and not k.endswith("attn.b_k"))
    assert worst <= 1e-4, f"{what}: final parameters differ by {worst:.3g}"
    print(f"{what}: final parameters within {worst:.2g}")
def identical(a, b, what):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(np.atleast_1d(a[k]).view(np.uint8), np.atleast_1d(b[k]).view(np.uint8)), f"{what}: {k} differs"
    print(f"{what}: {len(a)} parameter and optimizer tensors bitwise identical")
t1, t2 = tensors("one"), tensors("two")
close(t1, t2, "2 ranks vs 1 process")
identical(t2, tensors("two_again"), "two 2-rank runs")
identical(t2, tensors("stop"), "2-rank run stopped at 50 and resumed with 2 ranks")
close(t2, tensors("resume1"), "2-rank run resumed at 50 by 1 process vs 2 ranks throughout")
for v, what in (("sparse", "optim.sparse_embeddings"), ("crf", "model.output: crf")):
    same_losses(f"{v}_one", f"{v}_two", 30, f"{what}, 2 ranks vs 1 process")
    close(tensors(f"{v}_one"), tensors(f"{v}_two"), f"{what}, 2 ranks vs 1 process")
# the CRF's transition scores start at 0 and move only under the CRF loss (not cross-entropy)
moved = float(np.abs(tensors("crf_two")["params/crf.transitions"]).max())
assert moved > 1e-3, f"model.output: crf, 2 ranks: the transition scores did not train (max |w| {moved:.3g})"
print(f"model.output: crf, 2 ranks: transition scores trained (max |w| {moved:.2g})")
PY
echo "PASS"
