#!/usr/bin/python3
"""The loss and gradients of one training step of an image model, qkv against the PyTorch port
(tests/reference/test_torch_conv.sh runs it).

    torch_step.py BEFORE.h5 AFTER.h5 METRICS.tsv [--rtol 1e-4]

BEFORE.h5 is the last.h5 of a qkv run stopped after step N (qkv train --stop-at-step N), AFTER.h5
and METRICS.tsv those of the run resumed from it for step N + 1 alone (train.max_steps N + 1),
trained by plain SGD (optim.name sgd, optim.momentum 0, optim.weight_decay 0, a constant
learning rate lr, no clipping, no dropout, no augmentation), so that qkv's gradient of step
N + 1 is (BEFORE - AFTER) / lr, parameter by parameter (the resumed run may take a larger lr
than the first N steps: the float rounding of BEFORE and AFTER then weighs less). The port
loads BEFORE in float64, rebuilds the batch of step N + 1 (qkv's batch plan of the first epoch
over the training images without the validation part: qkv_torch_bench.dense_sequences) and
computes the loss and its gradients.
Passes (exit 0) when METRICS.tsv's training loss of step N + 1 is within rtol of the port's
(relative) and the gradients are within rtol as the logits are in `qkv_torch.py compare`: max
|qkv - port| over every parameter's gradient <= rtol * the largest |port| of them. It also
prints the three parameters farthest from the port relative to their own largest gradient
(those whose gradient is not 0 up to double rounding, as the attention's key bias b_k is: the
softmax ignores a constant added to all of a row's scores); qkv's float products that sum over
many rows (a convolution's weight gradient over every cell of a batch) land farthest.
"""
import argparse
import sys

import numpy as np
import torch
import torch.nn.functional as F

import qkv_torch
import qkv_torch_bench
from qkv_torch_data import Rng, plan


ZERO = 1e-10  # a parameter whose port gradient is below ZERO x the model's largest has gradient 0 (b_k)


def metrics_loss(path, step):
    """The training loss of step `step` in a metrics.tsv (log.every_steps 1)."""
    rows = [line.split("\t") for line in open(path).read().splitlines()]
    col = rows[0].index("loss")
    for r in rows[1:]:
        if r[0] == str(step) and r[2] == "train":
            return float(r[col])
    sys.exit(f"FAIL: {path} has no training row of step {step} (log.every_steps 1?)")


def port_step(ck, model, step):
    """The port's loss of qkv's batch of step `step` (1-based) at the model's weights; the
    gradients left in the parameters."""
    cfg = ck.config
    seqs, tags = qkv_torch_bench.dense_sequences(ck, cfg["data"]["train"], True)
    starts = np.concatenate([[0], np.cumsum([len(s) for s in seqs])]).tolist()
    batches = plan(starts, cfg["data"]["batch_tokens"], Rng(cfg["train"]["seed"] * 2))
    if step > len(batches):
        sys.exit(f"FAIL: step {step} is past the first epoch's {len(batches)} batches")
    x, y, pad = qkv_torch_bench.dense_batch(seqs, tags, batches[step - 1])
    model.train()
    logits = model(x.to(torch.float64), pad)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1)
    loss.backward()
    return float(loss)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("metrics")
    ap.add_argument("--rtol", type=float, default=1e-4)
    a = ap.parse_args(argv)
    ck, model = qkv_torch.load_checkpoint(a.before, torch.float64)
    after = qkv_torch.Checkpoint(a.after)
    cfg = after.config  # the resumed run's: its step's optimizer and learning rate
    o, step = cfg["optim"], int(cfg["train"]["max_steps"])
    if o["name"] != "sgd" or o["momentum"] or o["weight_decay"] or o["warmup_steps"] or o["decay"] != "none" \
            or cfg["train"]["clip_grad_norm"] or cfg["model"]["dropout"] \
            or cfg["model"].get("head_dropout") or cfg["data"]["augment"] != "none":
        sys.exit("FAIL: the run must train by SGD without momentum, decay, warm-up, clipping, dropout or augmentation")
    torch_loss = port_step(ck, model, step)
    qkv_loss = metrics_loss(a.metrics, step)
    ok = abs(qkv_loss - torch_loss) <= a.rtol * abs(torch_loss)
    print(f"step {step}: loss qkv {qkv_loss:.8f}, torch {torch_loss:.8f} (relative limit {a.rtol:g})")
    grads = {n: p.grad.numpy() if p.grad is not None else np.zeros(p.shape) for n, p in model.named_parameters()}
    largest = max(np.abs(g).max() for g in grads.values())
    err, own = {}, {}  # per parameter: max |qkv - port|, and that over its own largest gradient
    for name, g in grads.items():
        g_qkv = (ck.params[name].astype(np.float64) - after.params[name].astype(np.float64)) / o["lr"]
        err[name] = np.abs(g_qkv - g).max()
        own[name] = err[name] / max(np.abs(g).max(), np.finfo(np.float64).tiny)
    nonzero = [n for n, g in grads.items() if np.abs(g).max() > ZERO * largest]
    worst = max(err, key=err.get)
    rel = err[worst] / largest
    ok = ok and rel <= a.rtol
    print(f"{len(grads)} parameters' gradients: max |qkv - torch| = {err[worst]:.3g} ({worst}), max |gradient| = "
          f"{largest:.3g}, relative {rel:.3g} (limit {a.rtol:g}); largest differences over the parameter's own "
          "largest gradient: " + ", ".join(f"{n} {own[n]:.3g}" for n in sorted(nonzero, key=own.get)[-3:][::-1]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
