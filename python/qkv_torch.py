#!/usr/bin/python3
"""qkv models in PyTorch: load a qkv checkpoint or exported model as a torch.nn.Module.

    import sys; sys.path.insert(0, "QKV_SOURCE/python")   # or copy qkv_torch*.py beside you
    import qkv_torch
    model = qkv_torch.load("model.h5")          # a checkpoint (best.h5, last.h5) or `qkv export`
    print(qkv_torch.tag(model, [["The", "cat", "sat", "."]]))   # [['DET', 'NOUN', 'VERB', 'PUNCT']]
    torch.save(model.state_dict(), "model.pt")  # qkv's parameter names, PyTorch [out, in] shapes

The same port checks qkv's logits in the tests (tests/reference/test_torch_*.sh) and is the
PyTorch side of the benchmark (tests/reference/bench.py). Reads everything from a qkv model
file (api/model_file.h): the resolved YAML config
(/config), the vocabularies (/vocab/features, /vocab/<feature>, /vocab/tags, /vocab/chars) and
the parameters (/params/<name>, float32, PyTorch [out, in] shapes; /train is ignored). The
model has exactly qkv's parameter names (models/tagger.h, models/char_cnn.h, lib/nn/encoder.h,
lib/ops/attention.h) and computes (models/tagger.c qkv_tagger_logits):

    sum_f embed.<f>[id_f]  [+ CharCNN(the word's characters)]  [* sqrt(d_model)]
    + PE(position in sentence)  -> dropout
    -> n_layers encoder blocks (pre-LN: h = x + drop(MHA(LN1 x)); y = h + drop(FFN(LN2 h)))
       (model.encoder: bilstm: nn.LSTM over packed sequences, no positions; cnn: n_layers blocks
       y = x + drop(act(Conv1d(LN x))) with per-sentence zero padding, no positions)
    -> final layer norm -> classifier  [-> CRF: NLL by the forward algorithm, Viterbi decoding]

on padded batches [B, L] with a key-padding mask (padding rows are ignored everywhere they
could matter: keys are masked, and only real tokens are read out). CharCNN (models/char_cnn.h):
chars.embed -> Conv1d of width char_width, zero-padded at the word's own ends -> ReLU -> max
over the word's characters -> chars.proj.w (no bias). Attention (lib/ops/attention.h): scores
Q K^T * scale [+ rel_bias[h][clip(j - i, -R, R) + R] with model.attn_rel_clip = R > 0]
[- m_h |i - j| with positional: alibi], q and k rotated first with positional: rope, window
and causal masks, softmax or relu normalisation.

The data side (features, characters, CoNLL-U, checkpoint reading, qkv's batch plan) is in
qkv_torch_data.py.

Commands:
  qkv_torch.py tag MODEL [FILE]
      tags FILE (default: standard input; one sentence a line, words separated by spaces) and
      writes each word and its tag (TAB between them), an empty line after each sentence: what
      examples/tag_sentences.c writes with the C library.
  qkv_torch.py compare CKPT CONLLU QKV_LOGITS.h5 [--rtol 1e-4]
      runs the model in float64 on CONLLU and compares with `qkv eval ... --logits` output;
      exit 0 when max|torch - qkv| <= rtol * max|torch| and every predicted tag is equal
      (model.output crf: the Viterbi paths; with --loss L, qkv eval's loss, also the NLL per
      gold-tagged word within rtol).
  qkv_torch.py bench CKPT TRAIN DEV --steps N --warmup W [--threads 2] [--seed S]
      trains N steps (AdamW, or with optim.sparse_embeddings AdamW plus the lazy update of the
      embedding rows a batch touches as lib/optim/optim.h; the config's lr schedule, dropout, word dropout, clipping and the
      parameter average of train.ema_decay) on
      qkv's batches of TRAIN's first epoch, then evaluates DEV; prints one JSON line.
"""
import argparse
import json
import math
import re
import resource
import sys
import time

try:  # first: qkv_torch_data says in one line which package is missing and how to get it
    from qkv_torch_data import Checkpoint, Rng, encode, padded, plan, read_conllu  # noqa: F401 (bench.py)
except ImportError as missing:
    if __name__ == "__main__":
        sys.exit(f"qkv_torch.py: {missing}")
    raise

import h5py
import numpy as np
import torch
import torch.nn.functional as F

# ---------------------------------------------------------------- the model


def sinusoidal(n, d, dtype):
    """PE [n, d] as lib/nn/positional.c: angle = p / 10000^(2i / d), computed in double."""
    p = torch.arange(n, dtype=torch.float64)[:, None]
    c = torch.arange(d)
    two_i = (c - c % 2).to(torch.float64)
    angle = p / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
    return torch.where(c % 2 == 0, torch.sin(angle), torch.cos(angle)).to(dtype)


def rope(x, base):
    """lib/ops/rope.h on [B, H, L, d_head] (position = index in L): pairs (2i, 2i+1) rotated by
    p * base^(-2i / d_head), angles in double."""
    L, dh = x.shape[-2], x.shape[-1]
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    angle = torch.arange(L, dtype=torch.float64)[:, None] * theta  # [L, dh/2]
    c, s = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1).flatten(-2)


def alibi_slopes(n):
    """lib/ops/alibi.h: 2^(-8h/n) for a power of two n, else the reference's interleaving."""
    c = 2 ** int(math.floor(math.log2(n)))
    first = [2.0 ** (-8.0 * h / c) for h in range(1, c + 1)]
    return first + [2.0 ** (-8.0 * (2 * k - 1) / (2 * c)) for k in range(1, n - c + 1)]


class LayerNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.gain = torch.nn.Parameter(torch.ones(d))
        self.bias = torch.nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.gain, self.bias, self.eps)


class Attention(torch.nn.Module):
    """lib/ops/attention.h: MHA with optional window, causal mask, relu normalization and relative
    position biases (rel_bias [n_heads, 2R + 1], R = attn_rel_clip)."""

    def __init__(self, d, m):
        super().__init__()
        self.n_heads, self.d = m["n_heads"], d
        self.scale = m["attn_scale"] or 1 / math.sqrt(d // self.n_heads)
        self.window, self.causal = m["attn_window"], m["attn_causal"]
        self.relu = m["attn_normalize"] == "relu"
        self.p = m["attn_dropout"]
        for n in ("w_q", "w_k", "w_v", "w_o"):
            setattr(self, n, torch.nn.Parameter(torch.empty(d, d)))
        if m["attn_bias"]:
            for n in ("b_q", "b_k", "b_v", "b_o"):
                setattr(self, n, torch.nn.Parameter(torch.zeros(d)))
        else:
            self.b_q = self.b_k = self.b_v = self.b_o = None
        kind = m["positional"]
        self.rope_base = m["rope_base"] if kind == "rope" else 0
        self.alibi = kind == "alibi"
        self.rel_clip = m["attn_rel_clip"]
        if self.rel_clip > 0:
            self.rel_bias = torch.nn.Parameter(torch.zeros(self.n_heads, 2 * self.rel_clip + 1))

    def forward(self, x, pad):
        B, L, d = x.shape
        H = self.n_heads
        w = torch.cat([self.w_q, self.w_k, self.w_v])  # one GEMM for Q, K, V
        b = torch.cat([self.b_q, self.b_k, self.b_v]) if self.b_q is not None else None
        q, k, v = F.linear(x, w, b).view(B, L, 3, H, d // H).permute(2, 0, 3, 1, 4)
        if self.rope_base:
            q, k = rope(q, self.rope_base), rope(k, self.rope_base)
        s = torch.matmul(q, k.transpose(-1, -2)) * self.scale  # [B, H, L, L]
        if self.alibi:  # - m_h |i - j|, unscaled
            dist = (torch.arange(L)[None, :] - torch.arange(L)[:, None]).abs().to(s.dtype)
            s = s - torch.tensor(alibi_slopes(H), dtype=s.dtype)[:, None, None] * dist
        if self.rel_clip > 0:
            # + rel_bias[h][clip(j - i, -R, R) + R], unscaled; masked pairs are masked below
            R = self.rel_clip
            offset = torch.arange(L)[None, :] - torch.arange(L)[:, None]  # [i, j] = j - i
            s = s + self.rel_bias[:, offset.clamp(-R, R) + R]  # [H, L, L], broadcast over B
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
        d, eps = m["d_model"], m["ln_eps"] or 1e-5
        self.attn = Attention(d, m)
        self.ln1, self.ln2 = LayerNorm(d, eps), LayerNorm(d, eps)
        self.ffn = FFN(d, m["d_ff"], m["activation"])
        self.pre_ln, self.p = m["norm_first"], m["dropout"]

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

    def forward(self, x, pad):
        for blk in self.layers:
            x = blk(x, pad)
        return x


class BiLSTMEncoder(torch.nn.Module):
    """model.encoder: bilstm (lib/nn/lstm.h): nn.LSTM over packed sequences, so each sentence
    runs alone from zero state; its parameter names are qkv's (encoder.lstm.weight_ih_l0, ...)."""

    def __init__(self, m):
        super().__init__()
        d, n = m["d_model"], m["n_layers"]
        h = m["lstm_hidden"] or d // 2
        self.lstm = torch.nn.LSTM(d, h, num_layers=n, bidirectional=True, batch_first=True,
                                  dropout=m["dropout"] if n > 1 else 0.0) if n > 0 else None
        self.d_out = 2 * h if n > 0 else d

    def forward(self, x, pad):
        if self.lstm is None:
            return x
        lens = (~pad).sum(1).cpu()
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        y, _ = self.lstm(packed)
        return torch.nn.utils.rnn.pad_packed_sequence(y, batch_first=True, total_length=x.shape[1])[0]


class ConvBlock(torch.nn.Module):
    """lib/nn/conv_block.h: y = x + drop(act(Conv1d(LN(x)))), zeros beyond each sentence's ends
    (the padding rows are zeroed before the convolution: padding is only at a sentence's end)."""

    def __init__(self, m):
        super().__init__()
        d, k, dil = m["d_model"], m["cnn_kernel"], m["cnn_dilation"]
        self.ln = LayerNorm(d, m["ln_eps"] or 1e-5)
        self.conv = torch.nn.Conv1d(d, d, k, padding=dil * (k - 1) // 2, dilation=dil)
        self.act = F.gelu if m["activation"] == "gelu" else F.relu
        self.p = m["dropout"]

    def forward(self, x, pad):
        h = self.ln(x).masked_fill(pad[..., None], 0.0)
        h = self.act(self.conv(h.transpose(1, 2)).transpose(1, 2))
        return x + F.dropout(h, self.p, self.training)


class CNNEncoder(Encoder):
    def __init__(self, m):
        torch.nn.Module.__init__(self)
        self.layers = torch.nn.ModuleList([ConvBlock(m) for _ in range(m["n_layers"])])


FLOATER_HIDDEN, FLOATER_DT = 32, 0.1  # lib/nn/floater.h


class Positional(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.kind, self.d = m["positional"], m["d_model"]
        if self.kind == "learned":
            self.table = torch.nn.Parameter(torch.empty(m["max_len"], self.d))
        if self.kind == "floater":
            H, d = FLOATER_HIDDEN, self.d
            self.p0 = torch.nn.Parameter(torch.empty(1, d))
            self.w1, self.b1 = torch.nn.Parameter(torch.empty(H, d)), torch.nn.Parameter(torch.empty(H))
            self.w_t = torch.nn.Parameter(torch.empty(H))
            self.w2, self.b2 = torch.nn.Parameter(torch.empty(d, H)), torch.nn.Parameter(torch.empty(d))

    def floater(self, n):
        """lib/nn/floater.h: p(i * dt) of dp/dt = w2 gelu(w1 p + t w_t + b1) + b2, p(0) = p0, by
        one classical RK4 step of dt between positions -> [n, d]."""
        def h(t, p):
            return F.linear(F.gelu(F.linear(p, self.w1, self.b1) + t * self.w_t), self.w2, self.b2)
        dt, p, rows = FLOATER_DT, self.p0, [self.p0]
        for i in range(1, n):
            t = (i - 1) * dt
            k1 = h(t, p)
            k2 = h(t + dt / 2, p + dt / 2 * k1)
            k3 = h(t + dt / 2, p + dt / 2 * k2)
            k4 = h(t + dt, p + dt * k3)
            p = p + dt / 6 * ((k1 + k4) + 2 * (k2 + k3))
            rows.append(p)
        return torch.cat(rows)

    def forward(self, x):
        L = x.shape[1]
        if self.kind == "learned":
            return x + self.table[:L]
        if self.kind == "sinusoidal":
            return x + sinusoidal(L, self.d, x.dtype)
        if self.kind == "floater":
            return x + self.floater(L)
        return x


class CharCNN(torch.nn.Module):
    """models/char_cnn.h: character embeddings -> Conv1d of width char_width within each word
    (zero padding at the word's own ends) -> ReLU -> max over the word's characters -> proj.
    Parameters in qkv's layout: conv.w [char_filters, char_width * char_dim], column k * D + d
    = tap k (offset k - width // 2), channel d; torch's Conv1d weight is its [F, W, D] view
    permuted to [F, D, W]."""

    def __init__(self, n_chars, m):
        super().__init__()
        D, Fn, W = m["char_dim"], m["char_filters"], m["char_width"]
        self.width = W
        self.sparse_grad = False  # sparse gradients for the lazy update (cmd_bench)
        self.embed = torch.nn.Parameter(torch.empty(n_chars, D))
        self.conv = torch.nn.Module()
        self.conv.w = torch.nn.Parameter(torch.empty(Fn, W * D))
        self.conv.b = torch.nn.Parameter(torch.zeros(Fn))
        self.proj = torch.nn.Module()
        self.proj.w = torch.nn.Parameter(torch.empty(m["d_model"], Fn))

    def forward(self, chars, char_lens):
        """chars [B, L, C] ids, char_lens [B, L] (0 = padding word) -> [B, L, d_model], 0 on padding."""
        B, L, C = chars.shape
        real = char_lens > 0
        ids, n = chars[real], char_lens[real]  # [N, C], [N]: the real words only
        inside = torch.arange(C)[None, :] < n[:, None]  # [N, C]
        # zero vectors after the word's end: the convolution then sees exactly its zero padding
        e = F.embedding(ids, self.embed, sparse=self.sparse_grad) * inside[..., None].to(self.embed.dtype)  # [N, C, D]
        Fn, D = self.conv.w.shape[0], self.embed.shape[1]
        w = self.conv.w.view(Fn, self.width, D).permute(0, 2, 1)  # [F, D, W]
        h = torch.relu(F.conv1d(e.transpose(1, 2), w, self.conv.b, padding=self.width // 2))  # [N, F, C]
        pooled = h.masked_fill(~inside[:, None, :], float("-inf")).max(dim=-1).values  # [N, F]
        v = F.linear(pooled, self.proj.w)
        out = v.new_zeros(B, L, v.shape[-1])
        out[real] = v
        return out


class Tagger(torch.nn.Module):
    """qkv's tagger (models/tagger.h) with the same parameter names."""

    def __init__(self, config, features, vocab_size, n_tags, n_chars=0):
        super().__init__()
        m = config["model"]
        d = m["d_model"]
        self.features = list(features)
        self.sparse_grad = False  # sparse gradients of the tables for the lazy update (cmd_bench)
        self.embed = torch.nn.ParameterDict({f: torch.nn.Parameter(torch.empty(vocab_size[f], d)) for f in features})
        self.chars = CharCNN(n_chars, m) if m["char_dim"] > 0 else None
        kind = m["encoder"]
        self.pos = Positional(m if kind == "transformer" else dict(m, positional="none"))
        self.scale = math.sqrt(d) if m["scale_embeddings"] else 1.0
        self.p = m["dropout"]
        self.encoder = {"transformer": Encoder, "bilstm": BiLSTMEncoder, "cnn": CNNEncoder}[kind](m)
        d_out = getattr(self.encoder, "d_out", d)
        self.final_ln = LayerNorm(d_out, m["ln_eps"] or 1e-5)
        self.classifier = torch.nn.Module()
        self.classifier.w = torch.nn.Parameter(torch.empty(n_tags, d_out))
        self.classifier.b = torch.nn.Parameter(torch.zeros(n_tags))
        self.crf = CRF(n_tags) if m["output"] == "crf" else None

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

    def forward(self, ids, pad, chars=None, char_lens=None):
        """ids [n_features, B, L], pad [B, L] (True = padding), with a character encoder chars
        [B, L, C] and char_lens [B, L] (qkv_torch_data.Batch) -> logits [B, L, n_tags]."""
        x = sum(F.embedding(ids[k], self.embed[f], sparse=self.sparse_grad) for k, f in enumerate(self.features))
        if self.chars is not None:
            if chars is None:
                raise ValueError("the model has a character encoder but the batch has no characters")
            x = x + self.chars(chars, char_lens)
        x = F.dropout(self.pos(x * self.scale), self.p, self.training)
        x = self.encoder(x, pad)
        return F.linear(self.final_ln(x), self.classifier.w, self.classifier.b)


class CRF(torch.nn.Module):
    """qkv's CRF output layer (models/crf_head.h, lib/ops/crf.c): transitions[i, j] = score of
    tag i followed by tag j (pytorch-crf's order), start and end scores. A mask entry False
    forbids a transition, a first or a last tag (model.crf_constrained: bio_mask)."""

    def __init__(self, n_tags):
        super().__init__()
        self.transitions = torch.nn.Parameter(torch.zeros(n_tags, n_tags))
        self.start = torch.nn.Parameter(torch.zeros(n_tags))
        self.end = torch.nn.Parameter(torch.zeros(n_tags))
        self.allowed_trans = self.allowed_start = self.allowed_end = None

    def scores(self):
        neg = -math.inf
        a, s, e = self.transitions, self.start, self.end
        if self.allowed_trans is not None:
            a = a.masked_fill(~self.allowed_trans, neg)
            s = s.masked_fill(~self.allowed_start, neg)
            e = e.masked_fill(~self.allowed_end, neg)
        return a, s, e

    def log_partition(self, em):
        """log Σ_paths exp score for emissions em [n, K] (entries -inf are excluded)."""
        a, s, e = self.scores()
        alpha = s + em[0]
        for t in range(1, em.shape[0]):
            alpha = torch.logsumexp(alpha[:, None] + a, dim=0) + em[t]
        return torch.logsumexp(alpha + e, dim=0)

    def nll(self, em, tags):
        """log Z - log Z_gold of one sentence; tags [n] < 0 are unknown and marginalised."""
        known = tags >= 0
        keep = ~known[:, None] | (torch.arange(em.shape[1])[None, :] == tags[:, None])
        return self.log_partition(em) - self.log_partition(em.masked_fill(~keep, -math.inf))

    def viterbi(self, em):
        a, s, e = self.scores()
        delta, back = s + em[0], []
        for t in range(1, em.shape[0]):
            v = delta[:, None] + a
            back.append(v.argmax(0))  # first maximum on ties, as qkv
            delta = v.max(0).values + em[t]
        best = [int((delta + e).argmax())]
        for bp in reversed(back):
            best.append(int(bp[best[-1]]))
        return best[::-1]


def bio_mask(tags):
    """model.crf_constrained: I-x only after B-x or I-x, never first; with E- or S- tags (BIOES)
    also E-x only after B-x or I-x, B-x and I-x only before I-x or E-x, a sentence starting with
    O, B- or S- and ending with O, E- or S- (models/crf_head.c). Returns trans, start, end."""
    def kind(t):
        return "O" if t == "O" else t[0] if len(t) > 1 and t[0] in "BIES" and t[1] == "-" else "?"
    bioes = any(kind(t) in "ES" for t in tags)
    n = len(tags)
    cont = [kind(t) == "I" or (bioes and kind(t) == "E") for t in tags]
    opened = [bioes and kind(t) in "BI" for t in tags]
    trans = torch.ones(n, n, dtype=torch.bool)
    start = torch.tensor([not c for c in cont])
    end = torch.tensor([not (bioes and kind(t) in "BI") for t in tags])
    for i, p in enumerate(tags):
        for j, q in enumerate(tags):
            if cont[j] or opened[i]:
                trans[i, j] = cont[j] and kind(p) in "BI" and p[2:] == q[2:]
    return trans, start, end


def load_checkpoint(ckpt_path, dtype=torch.float32):
    """(Checkpoint, Tagger) of a qkv model file: the file's data side and the model in eval mode."""
    ck = Checkpoint(ckpt_path)
    if ck.config["data"]["task"] != "tag":
        raise ValueError(f"{ckpt_path} is a {ck.config['data']['task']}er (data.task: {ck.config['data']['task']}), "
                         "not a tagger: its labels are per character (qkv tag --tokenizer takes it)")
    model = Tagger(ck.config, ck.features, ck.vocab_size, len(ck.tags), ck.n_chars)
    model.load_qkv(ck.params)
    if model.crf is not None and ck.config["model"]["crf_constrained"]:
        model.crf.allowed_trans, model.crf.allowed_start, model.crf.allowed_end = bio_mask(ck.tags)
    model.checkpoint = ck  # vocabularies, tags and config, for encode() and tag()
    return ck, model.to(dtype).eval()


def load(path, dtype=torch.float32):
    """The model of a qkv checkpoint or exported model (`qkv export`) as a torch.nn.Module in
    eval mode, with qkv's parameter names. model(ids, pad[, chars, char_lens]) gives logits
    [B, L, n_tags] (Tagger.forward); model.checkpoint holds the config, vocabularies and tag
    names (model.checkpoint.tags); tag(model, sentences) tags lists of words."""
    return load_checkpoint(path, dtype)[1]


def predict(model, logits, starts):
    """Tag ids [n_words] of logits [n_words, n_tags] (sentences at starts): argmax, or the CRF's
    Viterbi path per sentence."""
    if model.crf is None:
        return logits.argmax(1)
    return torch.cat([torch.as_tensor(model.crf.viterbi(logits[starts[s]:starts[s + 1]]))
                      for s in range(len(starts) - 1)])


def tag(model, sentences, batch_tokens=None):
    """Tags sentences (lists of words) with a model from load(): a list of tag lists, the tags
    qkv tag gives (up to float rounding in near ties)."""
    ck = model.checkpoint
    data = encode(ck, [[(w, "_") for w in s] for s in sentences])
    logits = run_logits(model, data, batch_tokens or ck.config["data"]["batch_tokens"])
    pred = predict(model, logits, data.starts).tolist()
    return [[ck.tags[t] for t in pred[data.starts[s]:data.starts[s + 1]]] for s in range(len(sentences))]


def run_logits(model, data, budget):
    """Logits [n_words, n_tags] in corpus order for an Encoded `data`, with qkv's evaluation batches."""
    starts = data.starts
    out = torch.empty(data.feats.shape[1], model.classifier.w.shape[0], dtype=model.classifier.w.dtype)
    with torch.no_grad():
        for batch in plan(starts, budget):
            bt = padded(data, batch)
            logits = model(bt.ids, bt.pad, bt.chars, bt.char_lens)
            for b, s in enumerate(batch):
                out[starts[s]:starts[s + 1]] = logits[b, :bt.lens[b]]
    return out


# ---------------------------------------------------------------- commands


def words(line):
    """The words of a line of text as `qkv tag --format text` splits it: at spaces, TABs, CRs."""
    return [w for w in re.split("[ \t\r\n]+", line) if w]


def cmd_tag(a):
    model = load(a.model)
    with open(a.file, encoding="utf-8") if a.file != "-" else sys.stdin as f:
        sents = [s for s in map(words, f) if s]
    for sent, tags in zip(sents, tag(model, sents)):
        print("".join(f"{w}\t{t}\n" for w, t in zip(sent, tags)))
    return 0


def cmd_compare(a):
    ck, model = load_checkpoint(a.checkpoint, torch.float64)
    data = encode(ck, read_conllu(a.conllu, ck.config["data"]["tags"]))
    ref = run_logits(model, data, ck.config["data"]["batch_tokens"]).numpy()
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
    nll_ok = True
    if model.crf is not None:  # Viterbi paths, and the NLL per gold-tagged word against qkv eval's
        em, tags, starts = torch.from_numpy(ref), torch.from_numpy(data.tags), data.starts
        pred = np.concatenate([model.crf.viterbi(em[starts[s]:starts[s + 1]]) for s in range(len(starts) - 1)])
        with torch.no_grad():
            nll = sum(float(model.crf.nll(em[starts[s]:starts[s + 1]], tags[starts[s]:starts[s + 1]]))
                      for s in range(len(starts) - 1)) / int((tags >= 0).sum())
        if a.loss is not None:
            nll_ok = abs(nll - a.loss) <= a.rtol * abs(nll)
            print(f"CRF NLL per gold-tagged word: torch {nll:.6f}, qkv {a.loss:.6f} (relative limit {a.rtol:g})")
    diff = np.nonzero(pred != got_pred)[0]
    print(f"{ref.shape[0]} words x {ref.shape[1]} tags: max |qkv - torch| = {err:.3g}, max |logit| = "
          f"{scale:.3g}, relative {rel:.3g} (limit {a.rtol:g}); predicted tags differ at {len(diff)} words")
    for w in diff[:10]:
        top = np.sort(ref[w])[-2:]
        print(f"  word {w}: torch {pred[w]} qkv {got_pred[w]}, torch top-2 margin {top[1] - top[0]:.3g}")
    return 0 if rel <= a.rtol and len(diff) == 0 and nll_ok else 1


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
    """AdamW's weight decay applies to matrices that mix features (models/tagger.c): not to
    rank-1 parameters, embedding tables (embed.*, chars.embed), learned positions (pos.*) or
    relative position biases (lib/ops/attention.c qkv_mha_create)."""
    return p.dim() == 2 and not (name.startswith(("embed.", "pos.")) or name == "chars.embed"
                                 or name.endswith(".rel_bias"))


def touched_rows(model, bt):
    """optim.sparse_embeddings (models/tagger_rows.h): per table (embed.<f>, chars.embed) its
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
    t0 = time.perf_counter()
    train = encode(ck, read_conllu(a.train, cfg["data"]["tags"]))
    dev = encode(ck, read_conllu(a.dev, cfg["data"]["tags"]))
    t_read = time.perf_counter() - t0
    budget = cfg["data"]["batch_tokens"]
    batches = plan(train.starts, budget, Rng(cfg["train"]["seed"] * 2))[: a.steps]
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
    opt = torch.optim.AdamW([{"params": [p for n, p in dense if decays(n, p)], "weight_decay": o["weight_decay"]},
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
        logits = model(bt.ids, bt.pad, bt.chars, bt.char_lens)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), bt.tags.reshape(-1), ignore_index=-1)
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
    t0 = time.perf_counter()
    run_logits(model, dev, budget)
    t_eval = time.perf_counter() - t0
    print(json.dumps({
        "system": "pytorch", "torch": torch.__version__, "threads": a.threads, "steps": len(batches),
        "warmup": a.warmup, "train_tokens_after_warmup": tokens_after,
        "train_seconds_after_warmup": t_end - t_warm,
        "train_tokens_per_sec": tokens_after / (t_end - t_warm),
        "total_train_seconds": t_end - t_start, "read_seconds": t_read, "final_loss": float(loss),
        "eval_tokens_per_sec": dev.feats.shape[1] / t_eval, "peak_rss_mb": peak_rss_mb()}))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tag")
    t.add_argument("model")
    t.add_argument("file", nargs="?", default="-")
    c = sub.add_parser("compare")
    c.add_argument("checkpoint")
    c.add_argument("conllu")
    c.add_argument("qkv_logits")
    c.add_argument("--rtol", type=float, default=1e-4)
    c.add_argument("--loss", type=float, help="CRF models: qkv eval's loss, compared with the port's NLL")
    b = sub.add_parser("bench")
    b.add_argument("checkpoint")
    b.add_argument("train")
    b.add_argument("dev")
    b.add_argument("--steps", type=int, default=60)
    b.add_argument("--warmup", type=int, default=10)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    return {"tag": cmd_tag, "compare": cmd_compare, "bench": cmd_bench}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
