#!/usr/bin/python3
"""`qkv_torch.py bench` for a parser or a model of several heads (qkv_torch_parse.py): the port
trained as qkv trains it on qkv's batches (qkv_torch_bench.train_steps), then EWT dev evaluated;
one JSON line, the fields of the tagger's bench.

The training loss (models/network_output.c qkv_network_heads_loss) is the sum over the heads of
model.head_weights times each head's loss: the biaffine head's is the mean cross-entropy of
each word's gold head over ROOT and its sentence's words plus the mean cross-entropy of the
labels (DEPREL) of the gold arcs (models/biaffine_head.c), over the parser's input with its tag
inputs (qkv_torch_parse.parser_input); a softmax head's is the mean
cross-entropy of its column's classes (qkv_torch_columns.py); words without a class are not
targets; every target is smoothed by train.label_smoothing, as the tagger's bench does.
Evaluation computes what qkv's evaluation computes per batch (models/biaffine_head.c
predict): every head's logits and best class, the arc scores, each word's head, the label logits
of the predicted and of the gold arcs and the losses of the gold arcs and labels, with one
difference: the port takes each word's best-scoring head, qkv decodes a tree per sentence
(Chu-Liu/Edmonds or Eisner, lib/tree_decode.h); and qkv keeps the lemma head to the scripts
the form can take and UPOS and XPOS to the pairs seen in training, the port takes the argmax.
"""
import json
import time

import h5py
import numpy as np
import torch
import torch.nn.functional as F

from qkv_torch_bench import peak_rss_mb, train_steps
from qkv_torch_columns import read_columns
from qkv_torch_data import NO_TAG, Rng, encode, padded, plan
from qkv_torch_parse import _padded_heads, biaffine_arcs, label_roles, labels_at, parser_input


def column_vocabs(path, cols):
    """{column: {class string: id}}: /vocab/tags for column 0, /vocab/tags.<column> after."""
    with h5py.File(path, "r") as f:
        def strings(p):
            return bytes(f[p][()]).decode("utf-8").split("\0")[:-1]
        return {c: {s: i for i, s in enumerate(strings("/vocab/tags" if h == 0 else f"/vocab/tags.{c}"))}
                for h, c in enumerate(cols)}


class Gold:
    """A CoNLL-U file under a checkpoint: data (qkv_torch_data.Encoded of the words), tags
    {column: [n_words] class ids, -1: no class or one unseen in training}, heads [n_words]."""

    def __init__(self, ck, vocabs, path):
        sents, classes, heads = read_columns(path, list(vocabs))
        self.data = encode(ck, [[(w, "_") for w in s] for s in sents])
        self.tags = {c: np.array([NO_TAG if v is None else vocabs[c].get(v, -1) for v in classes[c]], dtype=np.int64)
                     for c in vocabs}
        self.heads = np.array(heads, dtype=np.int64)

    def batch(self, batch, L):
        """(tags {column: [B, L]}, heads [B, L]) of a batch, -1 on padding and where none."""
        s = self.data.starts
        return ({c: _padded_heads(np.maximum(t, -1), s, batch, L) for c, t in self.tags.items()},
                _padded_heads(self.heads, s, batch, L))


def mean_ce(logits, targets, smoothing=0.0):
    """qkv_cross_entropy_smoothed and qkv_arc_cross_entropy: the mean over the targets >= 0 of the
    cross-entropy of logits [..., C], 0 without any, the targets smoothed by `smoothing`
    (train.label_smoothing) over the finite columns, as F.cross_entropy(label_smoothing=)
    smooths them over every column: a word's arc scores are -inf past its candidate heads (ROOT
    and its sentence's words), which qkv's smoothing does not spread over."""
    t = targets.reshape(-1)
    if not bool((t >= 0).any()):
        return logits.sum() * 0
    x = logits.reshape(-1, logits.shape[-1])
    nll = F.cross_entropy(x, t, ignore_index=-1)
    if not smoothing:
        return nll
    logp = F.log_softmax(x[t >= 0], -1)
    finite = torch.isfinite(logp)
    uniform = (-logp.masked_fill(~finite, 0).sum(-1) / finite.sum(-1)).mean()
    return (1 - smoothing) * nll + smoothing * uniform


def arc_scores(model, x, lens):
    """Arc scores [B, L, L + 1] with the columns past each sentence's ROOT and words at -inf."""
    s = biaffine_arcs(model, x)
    cols = torch.arange(s.shape[-1])[None, :] > torch.as_tensor(lens)[:, None]
    return s.masked_fill(cols[:, None, :], float("-inf"))


def heads_loss(model, weights, x, bt, tags, heads, smoothing=0.0):
    """The summed weighted loss of every head (the module's docstring), its targets smoothed by
    `smoothing` (train.label_smoothing: over a word's candidate heads, over the classes)."""
    total = 0
    parser = hasattr(model, "arc_mlp")
    head_x = {col: model.head_input(x) for h, col in enumerate(model.columns) if h > 0 or not parser}
    for h, col in enumerate(model.columns):
        if h == 0 and parser:
            xp = parser_input(model, x, head_x)
            arcs = arc_scores(model, xp, bt.lens)
            labels = labels_at(model, *label_roles(model, xp), heads)
            loss = (mean_ce(arcs, heads, smoothing)
                    + mean_ce(labels, tags[col].masked_fill(heads < 0, -1), smoothing))
        else:
            c = model.classifier if h == 0 else getattr(model, col).classifier
            loss = mean_ce(F.linear(head_x[col], c.w, c.b), tags[col], smoothing)
        total = total + weights[h] * loss
    return total


@torch.no_grad()
def evaluate(model, gold, budget):
    """qkv's evaluation of the dev set, batch by batch (the module's docstring); its seconds."""
    t0 = time.perf_counter()
    for batch in plan(gold.data.starts, budget):
        bt = padded(gold.data, batch)
        tags, heads = gold.batch(batch, max(bt.lens))
        x = model.hidden(bt.ids, bt.pad, bt.chars, bt.char_lens)
        for h, col in enumerate(model.columns):
            if h == 0 and hasattr(model, "arc_mlp"):
                xp = parser_input(model, x)
                arcs = arc_scores(model, xp, bt.lens)
                pred = arcs.argmax(-1).masked_fill(bt.pad, -1)
                dep, G = label_roles(model, xp)
                labels_at(model, dep, G, pred).argmax(-1)
                mean_ce(arcs, heads) + mean_ce(labels_at(model, dep, G, heads), tags[col].masked_fill(heads < 0, -1))
            else:
                c = model.classifier if h == 0 else getattr(model, col).classifier
                F.linear(x, c.w, c.b).argmax(-1)
    return time.perf_counter() - t0


def head_weights(config, n):
    """model.head_weights as n floats (empty: 1 each)."""
    w = config["model"]["head_weights"]
    if isinstance(w, str):
        w = [float(v) for v in w.replace("[", " ").replace("]", " ").replace(",", " ").split()]
    return [float(v) for v in w] if w else [1.0] * n


def bench_heads(a, ck, model):
    """cmd_bench of a parser or several heads (a: its arguments, ck and model: the loaded checkpoint)."""
    cfg = ck.config
    t0 = time.perf_counter()
    vocabs = column_vocabs(a.checkpoint, model.columns)
    train, dev = Gold(ck, vocabs, a.train), Gold(ck, vocabs, a.dev)
    t_read = time.perf_counter() - t0
    budget = cfg["data"]["batch_tokens"]
    batches = plan(train.data.starts, budget, Rng(cfg["train"]["seed"] * 2))[: a.steps]
    weights = head_weights(cfg, len(model.columns))
    smoothing = float(cfg["train"].get("label_smoothing", 0))  # train.label_smoothing (lib/ops/loss.c)

    def loss_of(bt, batch):
        tags, heads = train.batch(batch, max(bt.lens))
        return heads_loss(model, weights, model.hidden(bt.ids, bt.pad, bt.chars, bt.char_lens), bt, tags, heads,
                          smoothing)

    out = train_steps(a, ck, model, train.data, batches, loss_of)
    t_eval = evaluate(model, dev, budget)
    print(json.dumps(dict(out, read_seconds=t_read, eval_tokens_per_sec=dev.data.starts[-1] / t_eval,
                          peak_rss_mb=peak_rss_mb())))
    return 0
