#!/usr/bin/python3
"""The layers of qkv's tagger in PyTorch (qkv_torch.py builds the model from them), each with
qkv's parameter names and its computation, on padded batches [B, L] with a key-padding mask:
the sinusoidal positions, the rotation of rope and ALiBi's slopes (lib/nn/positional.h,
lib/ops/rope.h, lib/ops/alibi.h), layer norm, multi-head attention with its masks and score
biases (lib/ops/attention.h), the feed-forward network, the Transformer block, the BiLSTM and
CNN encoders (lib/nn/lstm.h, lib/nn/conv_block.h), FLOATER's positions (lib/nn/floater.h), the
character CNN (models/char_cnn.h) and the CRF output layer (models/crf_head.h)."""
import math

import torch
import torch.nn.functional as F

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


class QkvParams(torch.nn.Module):
    """A module whose parameters are named as qkv's (models/network.h): load_qkv fills them."""

    def load_qkv(self, params):
        """Copies params {qkv name: numpy array} in; ValueError when the names or shapes differ."""
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

    def rotate(self, x):
        """q or k [B, H, L, d_head] rotated by the positions (rope; a 2-D kind overrides it)."""
        return rope(x, self.rope_base) if self.rope_base else x

    def score_bias(self, s):
        """Scores [B, H, L, L] plus the score biases of the sequence's 2-D layout (none here)."""
        return s

    def hidden_pairs(self, L):
        """[L, L] True where a query may not see a key beyond the window and causal masks, or
        None (none here)."""
        return None

    def forward(self, x, pad):
        B, L, d = x.shape
        H = self.n_heads
        w = torch.cat([self.w_q, self.w_k, self.w_v])  # one GEMM for Q, K, V
        b = torch.cat([self.b_q, self.b_k, self.b_v]) if self.b_q is not None else None
        q, k, v = F.linear(x, w, b).view(B, L, 3, H, d // H).permute(2, 0, 3, 1, 4)
        q, k = self.rotate(q), self.rotate(k)
        s = torch.matmul(q, k.transpose(-1, -2)) * self.scale  # [B, H, L, L]
        s = self.score_bias(s)
        if self.alibi:  # - m_h |i - j|, unscaled
            dist = (torch.arange(L)[None, :] - torch.arange(L)[:, None]).abs().to(s.dtype)
            s = s - torch.tensor(alibi_slopes(H), dtype=s.dtype)[:, None, None] * dist
        if self.rel_clip > 0:
            # + rel_bias[h][clip(j - i, -R, R) + R], unscaled; masked pairs are masked below
            R = self.rel_clip
            offset = torch.arange(L)[None, :] - torch.arange(L)[:, None]  # [i, j] = j - i
            s = s + self.rel_bias[:, offset.clamp(-R, R) + R]  # [H, L, L], broadcast over B
        hidden = pad[:, None, None, :]
        extra = self.hidden_pairs(L)
        if extra is not None:
            hidden = hidden | extra
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
    def __init__(self, m, attention=Attention):
        super().__init__()
        d, eps = m["d_model"], m["ln_eps"] or 1e-5
        self.attn = attention(d, m)
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
    """n_layers Transformer blocks; attention: the class of their attention (a subclass of
    Attention for tokens on a 2-D grid)."""

    def __init__(self, m, attention=Attention):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(m, attention) for _ in range(m["n_layers"])])

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

