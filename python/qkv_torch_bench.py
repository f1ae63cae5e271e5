#!/usr/bin/python3
"""`qkv_torch.py bench` (the PyTorch side of tests/reference/bench.py): the port trained as qkv
trains (AdamW or Adam, optim.name, with qkv's weight-decay groups, or the lazy update of the embedding rows a batch
touches with optim.sparse_embeddings; the config's lr schedule, dropout, word dropout, clipping
and parameter average) on qkv's batches, then evaluated; one JSON line. A parser or a model of
several heads: qkv_torch_parse_bench.py, on the same training loop (train_steps)."""
import json
import math
import resource
import time

import numpy as np
import torch
import torch.nn.functional as F

from qkv_torch_data import Rng, encode, padded, plan, read_conllu
from qkv_torch import load_checkpoint, run_logits
from qkv_torch_dense import (IMAGE_INPUTS, checkpoint_tokens, frame_labels, frame_tokens, input_kind, labels_path,
                             read_idx, run_frames, run_images, train_part)

def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def lr_at(step, o, total):
    """lib/optim/schedule.c: linear warmup from 0, then none/linear/cosine decay to min_lr."""
    lr, lo, warm = o["lr"], o["min_lr"], min(o["warmup_steps"], total - 1)
    if step <= warm and warm > 0:
        return lr * step / warm
    frac = (step - warm) / max(total - warm, 1)
    decay = o["decay"]
    if decay == "linear":
        return lo + (lr - lo) * (1 - frac)
    if decay == "cosine":
        return lo + (lr - lo) * 0.5 * (1 + math.cos(math.pi * frac))
    return lr


def decays(name, p):
    """The weight decay applies to parameters of rank 2 or more that mix features (models/network.c
    no_decay_vectors; the biaffine head's rel.U [n_tags, l, l] too): not to rank-1 parameters,
    embedding tables (embed.*, chars.embed), learned positions (pos.*) or relative position
    biases (lib/ops/attention.c qkv_mha_create)."""
    return p.dim() >= 2 and not (name.startswith(("embed.", "pos.")) or name == "chars.embed"
                                 or name.endswith((".rel_bias", ".rel2d_bias", ".quadratic")))


def touched_rows(model, bt):
    """optim.sparse_embeddings (models/network_rows.h): per table (embed.<f>, chars.embed) its
    parameter and the sorted distinct rows the batch's real tokens (characters) select."""
    real = ~bt.pad
    out = [(model.embed[f], torch.unique(bt.ids[k][real])) for k, f in enumerate(model.features)]
    if model.chars is not None:
        inside = torch.arange(bt.chars.shape[-1]) < bt.char_lens[..., None]
        out.append((model.chars.embed, torch.unique(bt.chars[inside])))
    return out


@torch.no_grad()
def clip_sparse(params, max_norm):
    """torch.nn.utils.clip_grad_norm_ for a mix of dense and sparse (COO) gradients."""
    grads = [p.grad.coalesce() if p.grad.is_sparse else p.grad for p in params if p.grad is not None]
    for p, g in zip([p for p in params if p.grad is not None], grads):
        p.grad = g
    norm = math.sqrt(sum(float((g.values() if g.is_sparse else g).pow(2).sum()) for g in grads))
    if norm > max_norm:
        for g in grads:
            (g.values() if g.is_sparse else g).mul_(max_norm / (norm + 1e-6))


@torch.no_grad()
def lazy_adamw(tables, state, step, lr, b1, b2, eps):
    """lib/optim/optim.h's lazy update of the touched rows of each table (no weight decay on
    tables): moments and values of the other rows are left as they are; the bias corrections
    use the global step."""
    for p, rows in tables:
        g = p.grad  # coalesced by clip_sparse (or here): sorted distinct indices
        g = g.coalesce() if not g.is_coalesced() else g
        g_rows = g.values()[torch.searchsorted(g.indices()[0], rows)]
        if p not in state:
            state[p] = (torch.zeros_like(p), torch.zeros_like(p))
        m_all, v_all = state[p]
        m = m_all[rows].mul_(b1).add_(g_rows, alpha=1 - b1)
        v = v_all[rows].mul_(b2).addcmul_(g_rows, g_rows, value=1 - b2)
        m_all[rows], v_all[rows] = m, v
        denom = v.sqrt().div_(math.sqrt(1 - b2 ** step)).add_(eps)
        p[rows] = p[rows].addcdiv_(m, denom, value=-lr / (1 - b1 ** step))


def cmd_bench(a):
    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(a.seed)
    ck, model = load_checkpoint(a.checkpoint)
    cfg = ck.config
    if input_kind(cfg) in IMAGE_INPUTS or input_kind(cfg) == "frames":
        return bench_dense(a, ck, model)
    if hasattr(model, "columns"):  # a parser or several heads: qkv_torch_parse_bench.py
        from qkv_torch_parse_bench import bench_heads  # it imports this module: loaded when needed
        return bench_heads(a, ck, model)
    t0 = time.perf_counter()
    train = encode(ck, read_conllu(a.train, cfg["data"]["tags"]))
    dev = encode(ck, read_conllu(a.dev, cfg["data"]["tags"]))
    t_read = time.perf_counter() - t0
    budget = cfg["data"]["batch_tokens"]
    batches = plan(train.starts, budget, Rng(cfg["train"]["seed"] * 2))[: a.steps]

    smoothing = float(cfg["train"].get("label_smoothing", 0))  # train.label_smoothing (lib/ops/loss.c)

    def loss_of(bt, batch):
        logits = model(bt.ids, bt.pad, bt.chars, bt.char_lens)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), bt.tags.reshape(-1), ignore_index=-1,
                               label_smoothing=smoothing)

    out = train_steps(a, ck, model, train, batches, loss_of)
    t0 = time.perf_counter()
    run_logits(model, dev, budget)
    t_eval = time.perf_counter() - t0
    print(json.dumps(dict(out, read_seconds=t_read, eval_tokens_per_sec=dev.feats.shape[1] / t_eval,
                          peak_rss_mb=peak_rss_mb())))
    return 0


def train_steps(a, ck, model, train, batches, loss_of):
    """Trains model (qkv_torch.Tagger or a model of several heads) on the Encoded `train` over
    `batches` as qkv trains, the loss of a step loss_of(bt, batch) (bt: the padded batch after
    word dropout, batch: its sentence indices); leaves the model in eval mode holding the
    parameter average when train.ema_decay > 0. Returns the JSON fields of the training."""
    cfg = ck.config
    o, tr = cfg["optim"], cfg["train"]
    named = list(model.named_parameters())
    # optim.sparse_embeddings: the tables get the lazy update (lazy_adamw), the rest AdamW
    sparse = bool(o["sparse_embeddings"])
    model.sparse_grad = sparse
    if model.chars is not None:
        model.chars.sparse_grad = sparse
    tables = {id(p) for p in model.embed.values()} | ({id(model.chars.embed)} if model.chars is not None else set())
    dense = [(n, p) for n, p in named if not (sparse and id(p) in tables)]
    lazy_state = {}
    # optim.name adam: the decay is L2, added to the gradient (lib/optim/optim.h), as torch.optim.Adam's
    if o["name"] not in ("adamw", "adam"):
        raise ValueError(f"the port's bench trains with optim.name adamw or adam, not {o['name']}")
    opt = (torch.optim.Adam if o["name"] == "adam" else torch.optim.AdamW)(
        [{"params": [p for n, p in dense if decays(n, p)], "weight_decay": o["weight_decay"]},
         {"params": [p for n, p in dense if not decays(n, p)], "weight_decay": 0.0}],
        lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"])
    # train.ema_decay > 0: qkv updates an average of the parameters after every step (lib/optim/ema.c)
    # and evaluates with it; the port does the same work
    ema_decay = tr["ema_decay"]
    params = [p for _, p in named]
    avg = [p.detach().clone() for p in params] if ema_decay > 0 else None
    word_kinds = [k for k, f in enumerate(ck.features) if f in ("word", "lower")]
    p_word = tr["word_dropout"]
    clip = tr["clip_grad_norm"]
    model.train()
    tokens_after, t_warm, t_start = 0, None, time.perf_counter()
    for step, batch in enumerate(batches, 1):
        bt = padded(train, batch)
        if p_word > 0:  # word identities only (train/trainer.c): characters are kept
            drop = (torch.rand(bt.ids.shape[1:]) < p_word) & ~bt.pad
            for k in word_kinds:
                bt.ids[k].masked_fill_(drop, 0)
        loss = loss_of(bt, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip > 0 and sparse:
            clip_sparse(params, clip)
        elif clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, o, len(batches))
        opt.step()
        if sparse:
            lazy_adamw(touched_rows(model, bt), lazy_state, step, lr_at(step, o, len(batches)),
                       o["beta1"], o["beta2"], o["eps"])
        if avg is not None:
            d = min(ema_decay, (1 + step) / (10 + step))
            with torch.no_grad():
                torch._foreach_mul_(avg, d)
                torch._foreach_add_(avg, [p.detach() for p in params], alpha=1 - d)
        if step == a.warmup:
            t_warm = time.perf_counter()
        elif step > a.warmup:
            tokens_after += sum(bt.lens)
    t_end = time.perf_counter()
    model.eval()
    if avg is not None:
        with torch.no_grad():
            for p, v in zip(params, avg):
                p.copy_(v)
    return {"system": "pytorch", "torch": torch.__version__, "threads": a.threads, "steps": len(batches),
            "warmup": a.warmup, "train_tokens_after_warmup": tokens_after,
            "train_seconds_after_warmup": t_end - t_warm, "train_tokens_per_sec": tokens_after / (t_end - t_warm),
            "total_train_seconds": t_end - t_start, "final_loss": float(loss)}


def dense_sequences(ck, path, train):
    """(token arrays [n_i, d_input], their tags [n_i]) of an image file or a frame corpus as the
    model reads them. Images: of the training file (train), those qkv trains on (without the
    validation part that data.valid_fraction draws, qkv_torch_dense.train_part), the label on
    each image's first token (-1 elsewhere)."""
    d = ck.config["data"]
    if input_kind(ck.config) == "frames":
        utts = frame_tokens(path, d["frame_stack"], d["held_out_voice"])
        return utts, frame_labels(path, d["frame_stack"], d["held_out_voice"], d["frame_labels"], ck.tags)
    tokens = checkpoint_tokens(ck, path)
    labels = read_idx(labels_path(path)).astype(np.int64)
    if train:
        keep = train_part(len(tokens), d)
        tokens, labels = tokens[keep], labels[keep]
    tags = np.full(tokens.shape[:2], -1, np.int64)
    tags[:, 0] = labels
    return list(tokens), list(tags)


def dense_batch(seqs, tags, batch):
    """Padded [B, L, d_input] tokens, [B, L] tags (-1 on padding), [B, L] padding mask."""
    L = max(len(seqs[s]) for s in batch)
    x = torch.zeros(len(batch), L, seqs[batch[0]].shape[1])
    y = torch.full((len(batch), L), -1, dtype=torch.int64)
    pad = torch.ones(len(batch), L, dtype=torch.bool)
    for b, s in enumerate(batch):
        n = len(seqs[s])
        x[b, :n] = torch.from_numpy(seqs[s])
        y[b, :n] = torch.from_numpy(np.maximum(tags[s], -1))
        pad[b, :n] = False
    return x, y, pad


def bench_dense(a, ck, model):
    """cmd_bench for images and speech frames: AdamW (no tables, no word dropout) over qkv's batch
    plan of the training sequences, then the dev file evaluated."""
    cfg = ck.config
    t0 = time.perf_counter()
    seqs, tags = dense_sequences(ck, a.train, True)
    if input_kind(cfg) == "frames":
        dev = frame_tokens(a.dev, cfg["data"]["frame_stack"], cfg["data"]["held_out_voice"])
    else:
        dev = checkpoint_tokens(ck, a.dev)
    t_read = time.perf_counter() - t0
    starts = np.concatenate([[0], np.cumsum([len(s) for s in seqs])]).tolist()
    budget = cfg["data"]["batch_tokens"]
    batches = plan(starts, budget, Rng(cfg["train"]["seed"] * 2))[: a.steps]
    o, tr = cfg["optim"], cfg["train"]
    smoothing = float(tr.get("label_smoothing", 0))  # train.label_smoothing (lib/ops/loss.c)
    named = list(model.named_parameters())
    opt = torch.optim.AdamW([{"params": [p for n, p in named if decays(n, p)], "weight_decay": o["weight_decay"]},
                             {"params": [p for n, p in named if not decays(n, p)], "weight_decay": 0.0}],
                            lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"])
    model.train()
    tokens_after, t_warm, t_start = 0, None, time.perf_counter()
    for step, batch in enumerate(batches, 1):
        x, y, pad = dense_batch(seqs, tags, batch)
        logits = model(x, pad)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1,
                               label_smoothing=smoothing)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if tr["clip_grad_norm"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), tr["clip_grad_norm"])
        for g in opt.param_groups:
            g["lr"] = lr_at(step, o, len(batches))
        opt.step()
        if step == a.warmup:
            t_warm = time.perf_counter()
        elif step > a.warmup:
            tokens_after += int((~pad).sum())
    t_end = time.perf_counter()
    model.eval()
    t0 = time.perf_counter()
    if input_kind(cfg) == "frames":
        n_dev = sum(len(u) for u in dev)
        run_frames(model, dev, budget, torch.float32)
    else:
        n_dev = dev.shape[0] * dev.shape[1]
        run_images(model, dev, budget, torch.float32)
    t_eval = time.perf_counter() - t0
    print(json.dumps({
        "system": "pytorch", "torch": torch.__version__, "threads": a.threads, "steps": len(batches),
        "warmup": a.warmup, "train_tokens_after_warmup": tokens_after,
        "train_seconds_after_warmup": t_end - t_warm, "train_tokens_per_sec": tokens_after / (t_end - t_warm),
        "total_train_seconds": t_end - t_start, "read_seconds": t_read, "final_loss": float(loss),
        "eval_tokens_per_sec": n_dev / t_eval, "peak_rss_mb": peak_rss_mb()}))
    return 0
