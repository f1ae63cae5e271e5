#!/usr/bin/python3
"""A PyTorch port of qkv's tagger, for parity checks and the benchmark (tests/reference/bench.sh).

Reads everything from a qkv checkpoint (train/checkpoint_io.c): the resolved YAML config
(/config), the vocabularies (/vocab/features, /vocab/<feature>, /vocab/tags) and the
parameters (/params/<name>, float32, PyTorch [out, in] shapes). The model has exactly qkv's
parameter names (models/tagger.h, lib/encoder.h) and computes:

    sum_f embed.<f>[id_f]  [* sqrt(d_model)]  + PE(position in sentence)  -> dropout
    -> n_layers encoder blocks (pre-LN: h = x + drop(MHA(LN1 x)); y = h + drop(FFN(LN2 h)))
    -> final layer norm -> classifier

on padded batches [B, L] with a key-padding mask (padding rows are ignored everywhere they
could matter: keys are masked, and only real tokens are read out).

Token features port data/features.c and data/utf8.c exactly (lowercasing of ASCII, Latin-1,
Latin Extended-A, Greek and Cyrillic capitals; affixes in code points of the lowercased form;
spaCy-style shapes with runs cut at 4; UNK = id 0). Batches port data/batch.c and lib/rng.c
(xoshiro256** seeded by splitmix64), so `plan(...)` gives qkv's batches of an epoch.

Commands:
  qkv_torch.py compare CKPT CONLLU QKV_LOGITS.h5 [--rtol 1e-4]
      runs the model in float64 on CONLLU and compares with `qkv eval ... --logits` output;
      exit 0 when max|torch - qkv| <= rtol * max|torch| and every predicted tag is equal.
  qkv_torch.py bench CKPT TRAIN DEV --steps N --warmup W [--threads 2] [--seed S]
      trains N steps (AdamW, the config's lr schedule, dropout, word dropout and clipping) on
      qkv's batches of TRAIN's first epoch, then evaluates DEV; prints one JSON line.
"""
import argparse
import json
import math
import resource
import sys
import time

import h5py
import numpy as np
import torch
import torch.nn.functional as F
import yaml

# ---------------------------------------------------------------- data/utf8.c, data/features.c


def to_lower_cp(cp):
    if 0x41 <= cp <= 0x5A:
        return cp + 32
    if cp < 0xC0:
        return cp
    if cp <= 0xDE:
        return cp if cp == 0xD7 else cp + 32
    if 0x100 <= cp <= 0x137:
        return cp + 1 if (cp % 2 == 0 and cp != 0x130) else cp
    if 0x139 <= cp <= 0x148:
        return cp + 1 if cp % 2 == 1 else cp
    if 0x14A <= cp <= 0x177:
        return cp + 1 if cp % 2 == 0 else cp
    if cp == 0x178:
        return 0xFF
    if 0x179 <= cp <= 0x17E:
        return cp + 1 if cp % 2 == 1 else cp
    if 0x391 <= cp <= 0x3AB and cp != 0x3A2:
        return cp + 32
    if 0x410 <= cp <= 0x42F:
        return cp + 32
    if 0x400 <= cp <= 0x40F:
        return cp + 80
    return cp


def is_lower_cp(cp):
    if 0x61 <= cp <= 0x7A:
        return True
    if 0xDF <= cp <= 0xFF and cp != 0xF7:
        return True
    if 0x100 <= cp <= 0x17F:
        return to_lower_cp(cp) == cp and cp != 0x130
    if 0x3AC <= cp <= 0x3CE:
        return True
    if 0x430 <= cp <= 0x45F:
        return True
    return False


def lower(form):
    return "".join(chr(to_lower_cp(ord(c))) for c in form)


def shape(form):
    out, last, run = [], None, 0
    for c in form:
        cp = ord(c)
        if 0x30 <= cp <= 0x39:
            sh = "d"
        elif to_lower_cp(cp) != cp:
            sh = "X"
        elif is_lower_cp(cp):
            sh = "x"
        else:
            sh = c
        run = run + 1 if sh == last else 1
        last = sh
        if run <= 4:
            out.append(sh)
    return "".join(out)


def feature_string(name, form):
    """The string of feature kind `name` ("word", "lower", "prefixK", "suffixK", "shape")."""
    if name == "word":
        return form
    if name == "lower":
        return lower(form)
    if name.startswith("prefix"):
        return lower(form)[: int(name[6:])]
    if name.startswith("suffix"):
        k = int(name[6:])
        lo = lower(form)
        return lo[-k:] if len(lo) > k else lo
    if name == "shape":
        return shape(form)
    raise ValueError(f"unknown feature kind {name!r}")


# ---------------------------------------------------------------- CoNLL-U (data/conllu.c)


def read_conllu(path, tag_field="upos"):
    """Sentences as lists of (form, tag); multiword tokens and empty nodes are not words."""
    col = 3 if tag_field == "upos" else 4
    sents, cur = [], []
    with open(path, encoding="utf-8-sig", newline="") as f:
        for line in f:
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip(" \t"):
                if cur:
                    sents.append(cur)
                    cur = []
                continue
            if line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 10:
                raise ValueError(f"{path}: expected 10 fields, got {len(fields)}: {line!r}")
            if "-" in fields[0] or "." in fields[0]:
                continue
            cur.append((fields[1], fields[col]))
    if cur:
        sents.append(cur)
    return sents


def numbers(node):
    """YAML 1.1 reads 1e-05 (no dot) as a string; qkv's config reader takes it as a number."""
    if isinstance(node, dict):
        return {k: numbers(v) for k, v in node.items()}
    if isinstance(node, str):
        try:
            return float(node)
        except ValueError:
            return node
    return node


class Checkpoint:
    def __init__(self, path):
        with h5py.File(path, "r") as f:
            text = f["/config"][()]
            self.config_text = text.decode() if isinstance(text, bytes) else text
            self.config = numbers(yaml.safe_load(self.config_text))

            def strings(p):
                return [s.decode() if isinstance(s, bytes) else s for s in f[p][()]]

            self.features = strings("/vocab/features")
            self.vocab = {n: {s: i for i, s in enumerate(strings(f"/vocab/{n}"))} for n in self.features}
            self.vocab_size = {n: len(self.vocab[n]) for n in self.features}
            self.tags = strings("/vocab/tags")
            self.params = {}
            f["/params"].visititems(lambda name, obj: self.params.__setitem__(name, np.array(obj))
                                    if isinstance(obj, h5py.Dataset) else None)


def encode(ckpt, sents):
    """(feature ids [n_features][n_words] int64, tags [n_words] (-1 unknown), sentence starts)."""
    tag_id = {t: i for i, t in enumerate(ckpt.tags)}
    feats = [[] for _ in ckpt.features]
    tags, starts = [], [0]
    for s in sents:
        for form, tag in s:
            for k, name in enumerate(ckpt.features):
                feats[k].append(ckpt.vocab[name].get(feature_string(name, form), 0))
            tags.append(tag_id.get(tag, -1))
        starts.append(len(tags))
    return np.array(feats, dtype=np.int64).reshape(len(ckpt.features), -1), np.array(tags, dtype=np.int64), starts


# ---------------------------------------------------------------- lib/rng.c, data/batch.c

M64 = (1 << 64) - 1


class Rng:
    """xoshiro256** seeded with splitmix64 (lib/rng.c)."""

    def __init__(self, seed):
        x, self.s = seed & M64, []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    @staticmethod
    def _rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self._rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self._rotl(s[3], 45)
        return result

    def below(self, n):
        limit = M64 - M64 % n
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def plan(starts, budget, rng=None):
    """qkv_batch_plan_make: list of batches, each a list of sentence indices."""
    lens = [starts[s + 1] - starts[s] for s in range(len(starts) - 1)]
    ids = [s for s in range(len(lens)) if lens[s] > 0]
    if rng:
        rng.shuffle(ids)
    order = sorted(ids, key=lambda s: lens[s])  # stable
    batches, tokens = [], 0
    for i, s in enumerate(order):
        if i == 0 or tokens + lens[s] > budget:
            batches.append([])
            tokens = 0
        batches[-1].append(s)
        tokens += lens[s]
    if rng and len(batches) > 1:
        perm = list(range(len(batches)))
        rng.shuffle(perm)
        batches = [batches[p] for p in perm]
    return batches


def padded(feats, tags, starts, batch):
    """Feature ids [n_features, B, L], tags [B, L] (-1 on padding), key mask [B, L] (True = pad)."""
    lens = [starts[s + 1] - starts[s] for s in batch]
    B, L = len(batch), max(lens)
    x = np.zeros((feats.shape[0], B, L), dtype=np.int64)
    y = np.full((B, L), -1, dtype=np.int64)
    pad = np.ones((B, L), dtype=bool)
    for b, s in enumerate(batch):
        n = lens[b]
        x[:, b, :n] = feats[:, starts[s]:starts[s + 1]]
        y[b, :n] = tags[starts[s]:starts[s + 1]]
        pad[b, :n] = False
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(pad), lens


# ---------------------------------------------------------------- the model


def sinusoidal(n, d, dtype):
    """PE [n, d] as lib/positional.c: angle = p / 10000^(2i / d), computed in double."""
    p = torch.arange(n, dtype=torch.float64)[:, None]
    c = torch.arange(d)
    two_i = (c - c % 2).to(torch.float64)
    angle = p / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
    return torch.where(c % 2 == 0, torch.sin(angle), torch.cos(angle)).to(dtype)


class LayerNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.gain = torch.nn.Parameter(torch.ones(d))
        self.bias = torch.nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.gain, self.bias, self.eps)


class Attention(torch.nn.Module):
    """lib/attention.h: MHA with optional window, causal mask and relu normalization."""

    def __init__(self, d, m):
        super().__init__()
        self.n_heads, self.d = m["n_heads"], d
        self.scale = m.get("attn_scale", 0) or 1 / math.sqrt(d // self.n_heads)
        self.window, self.causal = m.get("attn_window", 0), m.get("attn_causal", False)
        self.relu = m.get("attn_normalize", "softmax") == "relu"
        self.p = m.get("attn_dropout", 0)
        for n in ("w_q", "w_k", "w_v", "w_o"):
            setattr(self, n, torch.nn.Parameter(torch.empty(d, d)))
        if m.get("attn_bias", True):
            for n in ("b_q", "b_k", "b_v", "b_o"):
                setattr(self, n, torch.nn.Parameter(torch.zeros(d)))
        else:
            self.b_q = self.b_k = self.b_v = self.b_o = None

    def forward(self, x, pad):
        B, L, d = x.shape
        H = self.n_heads
        w = torch.cat([self.w_q, self.w_k, self.w_v])  # one GEMM for Q, K, V
        b = torch.cat([self.b_q, self.b_k, self.b_v]) if self.b_q is not None else None
        q, k, v = F.linear(x, w, b).view(B, L, 3, H, d // H).permute(2, 0, 3, 1, 4)
        s = torch.matmul(q, k.transpose(-1, -2)) * self.scale  # [B, H, L, L]
        hidden = pad[:, None, None, :]
        if self.window or self.causal:
            i = torch.arange(L)[:, None]
            j = torch.arange(L)[None, :]
            band = torch.zeros(L, L, dtype=torch.bool)
            if self.window:
                band |= (i - j).abs() > self.window
            if self.causal:
                band |= j > i
            hidden = hidden | band
        if self.relu:
            visible = (~hidden).sum(-1, keepdim=True).clamp(min=1)
            p = torch.relu(s).masked_fill(hidden, 0) / visible
        else:
            # a padding query may see no key at all (a window over padding only): its row of
            # NaNs is set to 0, so that no NaN reaches a real token through P V
            p = torch.softmax(s.masked_fill(hidden, float("-inf")), dim=-1).masked_fill(hidden, 0)
        p = F.dropout(p, self.p, self.training)
        o = torch.matmul(p, v).transpose(1, 2).reshape(B, L, d)
        return F.linear(o, self.w_o, self.b_o)


class FFN(torch.nn.Module):
    def __init__(self, d, d_ff, act):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.empty(d_ff, d))
        self.b1 = torch.nn.Parameter(torch.zeros(d_ff))
        self.w2 = torch.nn.Parameter(torch.empty(d, d_ff))
        self.b2 = torch.nn.Parameter(torch.zeros(d))
        self.act = F.gelu if act == "gelu" else F.relu

    def forward(self, x):
        return F.linear(self.act(F.linear(x, self.w1, self.b1)), self.w2, self.b2)


class Block(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        d, eps = m["d_model"], m.get("ln_eps", 1e-5) or 1e-5
        self.attn = Attention(d, m)
        self.ln1, self.ln2 = LayerNorm(d, eps), LayerNorm(d, eps)
        self.ffn = FFN(d, m["d_ff"], m.get("activation", "gelu"))
        self.pre_ln, self.p = m.get("norm_first", True), m.get("dropout", 0.1)

    def forward(self, x, pad):
        drop = lambda t: F.dropout(t, self.p, self.training)  # noqa: E731
        if self.pre_ln:
            h = x + drop(self.attn(self.ln1(x), pad))
            return h + drop(self.ffn(self.ln2(h)))
        h = self.ln1(x + drop(self.attn(x, pad)))
        return self.ln2(h + drop(self.ffn(h)))


class Encoder(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(m) for _ in range(m["n_layers"])])


class Positional(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.kind, self.d = m.get("positional", "sinusoidal"), m["d_model"]
        if self.kind == "learned":
            self.table = torch.nn.Parameter(torch.empty(m["max_len"], self.d))

    def forward(self, x):
        L = x.shape[1]
        if self.kind == "learned":
            return x + self.table[:L]
        if self.kind == "sinusoidal":
            return x + sinusoidal(L, self.d, x.dtype)
        return x


class Tagger(torch.nn.Module):
    """qkv's tagger (models/tagger.h) with the same parameter names."""

    def __init__(self, config, features, vocab_size, n_tags):
        super().__init__()
        m = config["model"]
        d = m["d_model"]
        self.features = list(features)
        self.embed = torch.nn.ParameterDict({f: torch.nn.Parameter(torch.empty(vocab_size[f], d)) for f in features})
        self.pos = Positional(m)
        self.scale = math.sqrt(d) if m.get("scale_embeddings", False) else 1.0
        self.p = m.get("dropout", 0.1)
        self.encoder = Encoder(m)
        self.final_ln = LayerNorm(d, m.get("ln_eps", 1e-5) or 1e-5)
        self.classifier = torch.nn.Module()
        self.classifier.w = torch.nn.Parameter(torch.empty(n_tags, d))
        self.classifier.b = torch.nn.Parameter(torch.zeros(n_tags))

    def load_qkv(self, params):
        own = dict(self.named_parameters())
        missing = sorted(set(own) - set(params))
        extra = sorted(set(params) - set(own))
        if missing or extra:
            raise ValueError(f"parameter names differ: missing in checkpoint {missing}, unknown {extra}")
        with torch.no_grad():
            for name, p in own.items():
                if tuple(p.shape) != params[name].shape:
                    raise ValueError(f"{name}: checkpoint shape {params[name].shape}, model {tuple(p.shape)}")
                p.copy_(torch.from_numpy(params[name]))

    def forward(self, ids, pad):
        """ids [n_features, B, L], pad [B, L] -> logits [B, L, n_tags]."""
        x = sum(F.embedding(ids[k], self.embed[f]) for k, f in enumerate(self.features))
        x = F.dropout(self.pos(x * self.scale), self.p, self.training)
        for blk in self.encoder.layers:
            x = blk(x, pad)
        return F.linear(self.final_ln(x), self.classifier.w, self.classifier.b)


def load(ckpt_path, dtype=torch.float32):
    ck = Checkpoint(ckpt_path)
    model = Tagger(ck.config, ck.features, ck.vocab_size, len(ck.tags))
    model.load_qkv(ck.params)
    return ck, model.to(dtype)


def run_logits(model, feats, starts, budget):
    """Logits [n_words, n_tags] in corpus order, with qkv's evaluation batches."""
    tags = np.zeros(feats.shape[1], dtype=np.int64)
    out = torch.empty(feats.shape[1], model.classifier.w.shape[0], dtype=model.classifier.w.dtype)
    with torch.no_grad():
        for batch in plan(starts, budget):
            x, _, pad, lens = padded(feats, tags, starts, batch)
            logits = model(x, pad)
            for b, s in enumerate(batch):
                out[starts[s]:starts[s + 1]] = logits[b, :lens[b]]
    return out


# ---------------------------------------------------------------- commands


def cmd_compare(a):
    ck, model = load(a.checkpoint, torch.float64)
    model.eval()
    feats, _, starts = encode(ck, read_conllu(a.conllu, ck.config["data"].get("tags", "upos")))
    ref = run_logits(model, feats, starts, ck.config["data"]["batch_tokens"]).numpy()
    with h5py.File(a.qkv_logits, "r") as f:
        got = np.array(f["/logits"], dtype=np.float64)
        got_pred = np.array(f["/pred"])
    if got.shape != ref.shape:
        print(f"FAIL: qkv logits {got.shape}, torch {ref.shape}")
        return 1
    scale = np.abs(ref).max()
    err = np.abs(got - ref).max()
    rel = err / scale
    pred = ref.argmax(1)
    diff = np.nonzero(pred != got_pred)[0]
    print(f"{ref.shape[0]} words x {ref.shape[1]} tags: max |qkv - torch| = {err:.3g}, max |logit| = "
          f"{scale:.3g}, relative {rel:.3g} (limit {a.rtol:g}); predicted tags differ at {len(diff)} words")
    for w in diff[:10]:
        top = np.sort(ref[w])[-2:]
        print(f"  word {w}: torch {pred[w]} qkv {got_pred[w]}, torch top-2 margin {top[1] - top[0]:.3g}")
    return 0 if rel <= a.rtol and len(diff) == 0 else 1


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def lr_at(step, o, total):
    """lib/schedule.c: linear warmup from 0, then none/linear/cosine decay to min_lr."""
    lr, lo, warm = o["lr"], o.get("min_lr", 0), min(o.get("warmup_steps", 0), total - 1)
    if step <= warm and warm > 0:
        return lr * step / warm
    frac = (step - warm) / max(total - warm, 1)
    decay = o.get("decay", "linear")
    if decay == "linear":
        return lo + (lr - lo) * (1 - frac)
    if decay == "cosine":
        return lo + (lr - lo) * 0.5 * (1 + math.cos(math.pi * frac))
    return lr


def cmd_bench(a):
    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(a.seed)
    ck, model = load(a.checkpoint)
    cfg = ck.config
    t0 = time.perf_counter()
    feats, tags, starts = encode(ck, read_conllu(a.train, cfg["data"].get("tags", "upos")))
    dfeats, _, dstarts = encode(ck, read_conllu(a.dev, cfg["data"].get("tags", "upos")))
    t_read = time.perf_counter() - t0
    budget = cfg["data"]["batch_tokens"]
    batches = plan(starts, budget, Rng(cfg["train"]["seed"] * 2))[: a.steps]
    o, tr = cfg["optim"], cfg["train"]
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith(("embed.", "pos."))]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith(("embed.", "pos.")))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": o.get("weight_decay", 0.01)},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=o["lr"], betas=(o.get("beta1", 0.9), o.get("beta2", 0.999)), eps=o.get("eps", 1e-8))
    word_kinds = [k for k, f in enumerate(ck.features) if f in ("word", "lower")]
    p_word = tr.get("word_dropout", 0)
    clip = tr.get("clip_grad_norm", 1.0)
    model.train()
    tokens_after, t_warm, t_start = 0, None, time.perf_counter()
    for step, batch in enumerate(batches, 1):
        x, y, pad, lens = padded(feats, tags, starts, batch)
        if p_word > 0:
            drop = (torch.rand(x.shape[1:]) < p_word) & ~pad
            for k in word_kinds:
                x[k].masked_fill_(drop, 0)
        logits = model(x, pad)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, o, len(batches))
        opt.step()
        if step == a.warmup:
            t_warm = time.perf_counter()
        elif step > a.warmup:
            tokens_after += sum(lens)
    t_end = time.perf_counter()
    model.eval()
    t0 = time.perf_counter()
    run_logits(model, dfeats, dstarts, budget)
    t_eval = time.perf_counter() - t0
    print(json.dumps({
        "system": "pytorch", "torch": torch.__version__, "threads": a.threads, "steps": len(batches),
        "warmup": a.warmup, "train_tokens_after_warmup": tokens_after,
        "train_seconds_after_warmup": t_end - t_warm,
        "train_tokens_per_sec": tokens_after / (t_end - t_warm),
        "total_train_seconds": t_end - t_start, "read_seconds": t_read, "final_loss": float(loss),
        "eval_tokens_per_sec": dfeats.shape[1] / t_eval, "peak_rss_mb": peak_rss_mb()}))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("checkpoint")
    c.add_argument("conllu")
    c.add_argument("qkv_logits")
    c.add_argument("--rtol", type=float, default=1e-4)
    b = sub.add_parser("bench")
    b.add_argument("checkpoint")
    b.add_argument("train")
    b.add_argument("dev")
    b.add_argument("--steps", type=int, default=60)
    b.add_argument("--warmup", type=int, default=10)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    return cmd_compare(a) if a.cmd == "compare" else cmd_bench(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
