#!/usr/bin/python3
"""qkv's models over dense token vectors in PyTorch (qkv_torch.py loads them): images
(model.input pixels, patches or conv_patches) and speech frames (model.input frames), with qkv's
parameter names. The model (models/network.c qkv_network_logits):

    input: images: dense [B, L, d_input] @ input.proj.w^T + input.proj.b, and with
           model.cls_token each sequence's first token input.cls (models/image_input.c);
           conv_patches: the convolutional stem, then the patch embedding (qkv_torch_conv.py);
           frames: dense @ frames.w^T + frames.b (models/frames_input.c)
    [* sqrt(d_model)] + PE -> dropout -> encoder -> final layer norm -> head

The encoder is the transformer's blocks, or for images cnn2d (qkv_torch_conv.py, no positions).

The 2-D positional kinds (lib/nn/pos_<kind>.c) read the grid of lib/grid.h: each sequence is
n_prefix tokens ([CLS]) then rows x cols grid tokens row-major. sinusoidal2d: the first
floor(d / 2) dimensions the sinusoidal encoding of the row, the others of the column; learned2d:
pos.row_table[r] + pos.col_table[c]; both 0 on the prefix. rope2d: q and k rotated, pairs
0 .. d_head/4 - 1 by the row, the others by the column, angles base^(-2i / (d_head / 2)), the
prefix not rotated (lib/ops/rope.c qkv_rope_rotate_2d). rel2d and quadratic2d: score biases of
each layer's own parameters (lib/ops/grid_bias.h); model.attn_window_2d = w: keys with |dy| > w
or |dx| > w hidden, never a prefix token's pairs. The class head (models/class_head.c): the
sequence's [CLS] row or the mean of its rows (model.pool) -> classifier, every token given its
sequence's logits. The other heads are the tagger's (softmax, crf).
"""

import math

import numpy as np
import torch
import torch.nn.functional as F

from qkv_torch_data import Rng, gunzip
from qkv_torch_conv import CNN2dEncoder, ConvPatchesInput
from qkv_torch_layers import CRF, Attention, Encoder, LayerNorm, Positional, QkvParams, sinusoidal

IMAGE_INPUTS = ("pixels", "patches", "conv_patches")


def input_kind(config):
    """The model's input kind: model.input, frames with data.task frames (which chooses it)."""
    return "frames" if config["data"]["task"] == "frames" else config["model"]["input"]


class Grid:
    """lib/grid.h: rows x cols grid tokens after n_prefix tokens; rows 0: no grid."""

    def __init__(self, rows, cols, n_prefix):
        self.rows, self.cols, self.n_prefix = rows, cols, n_prefix

    def place(self, L):
        """(row, col, on_grid) [L] of the tokens of a sequence of L tokens."""
        t = torch.arange(L) - self.n_prefix
        on = t >= 0
        t = t.clamp(min=0)
        return t // self.cols, t % self.cols, on

    def offsets(self, L):
        """(dy, dx, both_on_grid) [L, L]: key j's offset from query i (lib/ops/grid_bias.h)."""
        r, c, on = self.place(L)
        return r[None, :] - r[:, None], c[None, :] - c[:, None], on[:, None] & on[None, :]


def model_grid(m, d):
    """The model's grid (qkv_network_image_grid): data.image_rows / cols over the patch side."""
    if m["input"] not in IMAGE_INPUTS:
        return None
    return Grid(d["image_rows"] // patch_side(m), d["image_cols"] // patch_side(m), 1 if m["cls_token"] else 0)


def patch_side(m):
    """The side of an image input's tokens in pixels: model.patch_size, 1 for pixels."""
    return 1 if m["input"] == "pixels" else m["patch_size"]


def rope2d(x, base, grid):
    """lib/ops/rope.c qkv_rope_rotate_2d on [B, H, L, d_head]; angles in double."""
    L, dh = x.shape[-2], x.shape[-1]
    half, quarter = dh // 2, dh // 4
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64),
                      -2.0 * torch.arange(quarter, dtype=torch.float64) / half)
    r, c, on = grid.place(L)
    pair = torch.arange(half)
    by_row = pair < quarter
    th = theta[torch.where(by_row, pair, pair - quarter).clamp(max=max(quarter - 1, 0))]
    pos = torch.where(by_row[None, :], r[:, None].to(torch.float64), c[:, None].to(torch.float64))
    angle = (pos * th[None, :]).masked_fill(~on[:, None], 0.0)  # the prefix is not rotated
    cs, sn = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * cs - x1 * sn, x0 * sn + x1 * cs], dim=-1).flatten(-2)


def grid_attention(grid):
    """The Attention class of a model on the grid: its 2-D rotation, score biases and window."""

    class GridAttention(Attention):
        def __init__(self, d, m):
            super().__init__(d, m)
            self.grid, kind = grid, m["positional"]
            self.rope2d_base = m["rope_base"] if kind == "rope2d" else 0
            self.kind, self.window_2d = kind, m["attn_window_2d"]
            if kind == "rel2d":
                self.clip_2d = m["rel2d_clip"]
                self.rel2d_bias = torch.nn.Parameter(torch.zeros(self.n_heads, (2 * self.clip_2d + 1) ** 2 + 1))
            if kind == "quadratic2d":
                self.quadratic = torch.nn.Parameter(torch.zeros(self.n_heads, 3))

        def rotate(self, x):
            return rope2d(x, self.rope2d_base, self.grid) if self.rope2d_base else super().rotate(x)

        def score_bias(self, s):
            L = s.shape[-1]
            if self.kind == "rel2d":
                R = self.clip_2d
                dy, dx, on = self.grid.offsets(L)
                index = (dy.clamp(-R, R) + R) * (2 * R + 1) + dx.clamp(-R, R) + R
                index = torch.where(on, index, torch.full_like(index, (2 * R + 1) ** 2))
                s = s + self.rel2d_bias[:, index]
            if self.kind == "quadratic2d":
                dy, dx, on = self.grid.offsets(L)
                q = self.quadratic
                ey = dy.to(s.dtype)[None] - q[:, 0, None, None]
                ex = dx.to(s.dtype)[None] - q[:, 1, None, None]
                s = s - (q[:, 2, None, None] * (ey * ey + ex * ex)) * on.to(s.dtype)[None]
            return s

        def hidden_pairs(self, L):
            if not self.window_2d:
                return None
            dy, dx, on = self.grid.offsets(L)
            return on & ((dy.abs() > self.window_2d) | (dx.abs() > self.window_2d))

    return GridAttention


class Positional2d(torch.nn.Module):
    """The additive 2-D kinds (sinusoidal2d, learned2d): PE [L, d] added to every sequence."""

    def __init__(self, m, grid):
        super().__init__()
        self.kind, self.d, self.grid = m["positional"], m["d_model"], grid
        if self.kind == "learned2d":
            self.row_table = torch.nn.Parameter(torch.empty(grid.rows, self.d))
            self.col_table = torch.nn.Parameter(torch.empty(grid.cols, self.d))

    def forward(self, x):
        L, d = x.shape[1], self.d
        r, c, on = self.grid.place(L)
        if self.kind == "learned2d":
            pe = self.row_table[r] + self.col_table[c]
        elif self.kind == "sinusoidal2d":
            h = d // 2
            pe = torch.cat([sinusoidal(self.grid.rows, h, x.dtype)[r], sinusoidal(self.grid.cols, d - h, x.dtype)[c]], 1)
        else:
            return x
        return x + pe * on[:, None].to(x.dtype)


class DenseTagger(QkvParams):
    """qkv's tagger (models/network.h) over dense token vectors: images or speech frames."""

    def __init__(self, config, n_tags, d_input):
        super().__init__()
        m = config["model"]
        d = m["d_model"]
        self.grid = model_grid(m, config["data"])
        if m["encoder"] not in ("transformer", "cnn2d") or (m["encoder"] == "cnn2d" and self.grid is None):
            raise ValueError(f"the PyTorch port reads dense inputs with the transformer encoder (images also with "
                             f"cnn2d), not model.encoder {m['encoder']}")
        self.input = torch.nn.Module()
        if self.grid is not None:
            self.image_parts(m, config["data"], d_input)
        else:
            self.frames = torch.nn.Module()
            self.frames.w = torch.nn.Parameter(torch.empty(d, d_input))
            self.frames.b = torch.nn.Parameter(torch.zeros(d))
            self.pos = Positional(m)
            self.encoder = Encoder(m)
        self.scale = d ** 0.5 if m["scale_embeddings"] else 1.0
        self.p, self.p_head = m["dropout"], m.get("head_dropout", 0.0)
        self.final_ln = LayerNorm(d, m["ln_eps"] or 1e-5)
        self.classifier = torch.nn.Module()
        self.classifier.w = torch.nn.Parameter(torch.empty(n_tags, d))
        self.classifier.b = torch.nn.Parameter(torch.zeros(n_tags))
        self.pool = m["pool"] if m["output"] == "class" else None
        self.crf = CRF(n_tags) if m["output"] == "crf" else None

    def image_parts(self, m, data, d_input):
        """The input, positions and encoder of an image model."""
        d = m["d_model"]
        if m["input"] == "conv_patches":
            self.input = ConvPatchesInput(m, self.grid, data["image_channels"])
        else:
            self.input.proj = torch.nn.Module()
            self.input.proj.w = torch.nn.Parameter(torch.empty(d, d_input))
            self.input.proj.b = torch.nn.Parameter(torch.zeros(d))
            if self.grid.n_prefix:
                self.input.cls = torch.nn.Parameter(torch.zeros(d))
        if m["encoder"] == "cnn2d":  # no positions (models/cnn2d_encoder.c)
            self.pos = Positional2d(dict(m, positional="none"), self.grid)
            self.encoder = CNN2dEncoder(m, self.grid)
        else:
            self.pos = Positional2d(m, self.grid)
            self.encoder = Encoder(m, grid_attention(self.grid))

    def embed_input(self, dense):
        if self.grid is None:
            return F.linear(dense, self.frames.w, self.frames.b)
        if isinstance(self.input, ConvPatchesInput):
            return self.input(dense)
        y = F.linear(dense, self.input.proj.w, self.input.proj.b)
        if self.grid.n_prefix:  # the [CLS] token replaces the first (zero) row of each sequence
            y = torch.cat([self.input.cls.expand(y.shape[0], 1, -1), y[:, 1:]], 1)
        return y

    def forward(self, dense, pad):
        """dense [B, L, d_input] (float), pad [B, L] (True = padding) -> logits [B, L, n_tags]."""
        x = F.dropout(self.pos(self.embed_input(dense) * self.scale), self.p, self.training)
        x = F.dropout(self.final_ln(self.encoder(x, pad)), self.p_head, self.training)
        if self.pool is None:
            return F.linear(x, self.classifier.w, self.classifier.b)
        if self.pool == "cls":
            v = x[:, 0]
        else:  # mean over each sequence's real tokens
            real = (~pad).to(x.dtype)
            v = (x * real[..., None]).sum(1) / real.sum(1, keepdim=True)
        return F.linear(v, self.classifier.w, self.classifier.b)[:, None, :].expand(-1, x.shape[1], -1)


# ---------------------------------------------------------------- data/idx.c


def read_idx(path):
    """An IDX file of unsigned bytes (plain or gzip) as a numpy array of its dimensions."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip(raw, path)
    if len(raw) < 4 or raw[:2] != b"\0\0" or raw[2] != 0x08:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    n = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * k:8 + 4 * k], "big") for k in range(n)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * n).reshape(dims)


def labels_path(path):
    """data/idx.c qkv_idx_labels_path: images-idx3 (or -idx4) in the name becomes labels-idx1."""
    head, _, base = path.rpartition("/")
    for k in ("images-idx3", "images-idx4"):
        if k in base:
            return (head + "/" if head else "") + base.replace(k, "labels-idx1", 1)
    raise ValueError(f"{path}: cannot tell its label file")


def train_part(n, data):
    """The indices, in file order, of the n images of data.train that qkv trains on
    (api/task_images.c): without data.valid_fraction all of them, else those left after
    qkv_images_split (data/idx.c) draws lround(valid_fraction * n) (at least 1) for validation:
    the first of the indices 0 .. n - 1 shuffled by lib/rng.c seeded with data.valid_seed."""
    if data["valid_fraction"] <= 0:
        return list(range(n))
    n_valid = max(1, int(math.floor(data["valid_fraction"] * n + 0.5)))
    order = list(range(n))
    Rng(data["valid_seed"]).shuffle(order)
    held = set(order[:n_valid])
    return [i for i in range(n) if i not in held]


def image_tokens(images, patch, n_prefix):
    """data/idx.c qkv_dataset_from_images: [n, n_prefix + rows/p * cols/p, p * p * channels]
    float32, each patch's pixels row-major, channels innermost, as (v / 255 - 0.5) / 0.5 in float32;
    the prefix rows 0."""
    im = images if images.ndim == 4 else images[..., None]
    n, R, C, ch = im.shape
    g = im.reshape(n, R // patch, patch, C // patch, patch, ch).transpose(0, 1, 3, 2, 4, 5)
    g = g.reshape(n, (R // patch) * (C // patch), patch * patch * ch)
    v = (g.astype(np.float32) / np.float32(255.0) - np.float32(0.5)) / np.float32(0.5)
    return np.concatenate([np.zeros((n, n_prefix, v.shape[2]), np.float32), v], 1)


def checkpoint_tokens(ck, path):
    """The token vectors [n, L, d_input] of the images of path for the model of checkpoint ck."""
    m = ck.config["model"]
    grid = model_grid(m, ck.config["data"])
    return image_tokens(read_idx(path), patch_side(m), grid.n_prefix)


def run_images(model, tokens, budget, dtype):
    """Logits [n * L, n_tags] of image tokens [n, L, d_input] in file order, budget tokens a batch."""
    n, L, _ = tokens.shape
    per = max(1, budget // L)
    out = []
    with torch.no_grad():
        for i in range(0, n, per):
            x = torch.from_numpy(tokens[i:i + per]).to(dtype)
            out.append(model(x, torch.zeros(x.shape[:2], dtype=torch.bool)).reshape(-1, model.classifier.w.shape[0]))
    return torch.cat(out)


# ---------------------------------------------------------------- data/frames_dataset.c


def store_strings(f, name):
    """A list of strings of a qkv HDF5 file (lib/io/store.h): UTF-8 bytes, each ended by a NUL."""
    return bytes(f[name][()]).decode("utf-8").split("\0")[:-1]


def frame_tokens(path, stack, held_out_voice=""):
    """The utterances of a qkv speech corpus (api/speech_store.h) as qkv's frame tokens: a list of
    [n_tokens, stack * n_mels] float32 arrays (data/frames_dataset.c): each band normalised over
    the utterance ((v - mean) / sqrt(var + 1e-8), in double), stack frames a token, floor(n / stack)
    tokens (1 when n < stack, zeros after the last frame); an utterance of held_out_voice is left
    out (the dev set without the held-out voice)."""
    import h5py
    with h5py.File(path, "r") as f:
        feats = np.array(f["/speech/features"], dtype=np.float32)
        offsets = np.array(f["/speech/utt_offsets"], dtype=np.int64)
        voices = store_strings(f, "/speech/voice")
    out = []
    for u in range(len(offsets) - 1):
        if held_out_voice and voices[u] == held_out_voice:
            continue
        x = feats[offsets[u]:offsets[u + 1]].astype(np.float64)
        n, M = x.shape
        mean = x.mean(0)
        inv = 1.0 / np.sqrt(((x - mean) ** 2).sum(0) / n + 1e-8)
        v = ((x - mean) * inv).astype(np.float32)
        nt = 1 if n < stack else n // stack
        full = np.zeros((nt * stack, M), np.float32)
        full[:min(n, nt * stack)] = v[:nt * stack]
        out.append(full.reshape(nt, stack * M))
    return out


def frame_labels(path, stack, held_out_voice, kind, tags):
    """Each token's label id in tags (a checkpoint's tag names; -1 when unseen) for frame_tokens:
    the label (data.frame_labels: phoneme or upos) of the token's middle frame j·k + k/2, the
    last frame when beyond (data/frames_dataset.c)."""
    import h5py
    ids = {t: i for i, t in enumerate(tags)}
    with h5py.File(path, "r") as f:
        lab = np.array(f["/speech/phone" if kind == "phoneme" else "/speech/upos"])
        names = store_strings(f, "/speech/phone_names" if kind == "phoneme" else "/speech/upos_names")
        offsets = np.array(f["/speech/utt_offsets"], dtype=np.int64)
        voices = store_strings(f, "/speech/voice")
    to_tag = np.array([ids.get(n, -1) for n in names], dtype=np.int64)
    out = []
    for u in range(len(offsets) - 1):
        if held_out_voice and voices[u] == held_out_voice:
            continue
        n = offsets[u + 1] - offsets[u]
        nt = 1 if n < stack else n // stack
        mid = np.minimum(np.arange(nt) * stack + stack // 2, n - 1)
        out.append(to_tag[lab[offsets[u] + mid]])
    return out


def run_frames(model, utts, budget, dtype):
    """Logits [n_tokens, n_tags] of utterances (frame_tokens) in file order, padded batches of
    about budget tokens."""
    out, i = [], 0
    with torch.no_grad():
        while i < len(utts):
            j, tokens = i, 0
            while j < len(utts) and (j == i or tokens + len(utts[j]) <= budget):
                tokens += len(utts[j])
                j += 1
            L = max(len(u) for u in utts[i:j])
            x = torch.zeros(j - i, L, utts[i].shape[1], dtype=dtype)
            pad = torch.ones(j - i, L, dtype=torch.bool)
            for b, u in enumerate(utts[i:j]):
                x[b, :len(u)] = torch.from_numpy(u).to(dtype)
                pad[b, :len(u)] = False
            lg = model(x, pad)
            out += [lg[b, :len(u)] for b, u in enumerate(utts[i:j])]
            i = j
    return torch.cat(out)
