#!/usr/bin/python3
"""The data side of the PyTorch port of qkv's tagger (qkv_torch.py): everything that turns a
qkv checkpoint and a CoNLL-U file into the id arrays and batches qkv itself would use.

- Token features port data/features.c and data/utf8.c exactly: lowercasing is Unicode's full
  case mapping, str.lower() here and libunistring's u8_tolower in qkv (the same mapping: "İ" ->
  "i̇", "ẞ" -> "ß", final sigma; tests/reference/test_unicode_port.sh compares every code point);
  affixes in code points of the lowercased form; spaCy-style shapes (X: changes when lowercased,
  x: lower case or a letter without case, d: decimal digit of any script) with runs cut at 4;
  UNK = id 0.
- Tags: `_` (unspecified) is no tag: such a word is encoded as NO_TAG and is not a target.
- Character ids port data/chars.c: per word [id("<w>"), one id per code point as written (case
  kept; a word of more than WORD_CHARS code points keeps its first and last WORD_CHARS / 2),
  id("</w>")], from the checkpoint's /vocab/chars (id i = string i; an unknown character is 0).
- Checkpoint first verifies the file as qkv does (verify: the qkv header, the size and the CRC-32
  of the contents), then reads the resolved config (/config), the vocabularies (/vocab/...) and the model's
  parameters from /params only: with train.ema_decay > 0, /params holds the average that qkv
  evaluates, and /train/raw_params (the optimizer's raw values, kept for resuming) is ignored.
- Batches port data/batch.c and lib/rng.c (xoshiro256** seeded by splitmix64), so `plan(...)`
  gives qkv's batches of an epoch; `padded(...)` lays one out as [B, L] with a padding mask.
"""
import collections
import os
import re
import unicodedata
import zlib

# What qkv_torch needs beyond Python 3 (python/README.md): one line naming what is missing and
# how to get it, not a traceback.
REQUIREMENTS = ("numpy, h5py, PyYAML and PyTorch (Debian: apt-get install python3-numpy python3-h5py "
                "python3-yaml python3-torch; elsewhere: pip install numpy h5py pyyaml torch)")
try:
    import h5py
    import numpy as np
    import torch
    import yaml
except ImportError as missing:
    raise ImportError(f"qkv_torch cannot import {missing.name or missing}: it needs {REQUIREMENTS}") from None

from qkv_torch_text import gunzip, read_conllu  # noqa: F401 (the port's modules take them from here)

WORD_CHARS = 20  # data/features.h QKV_WORD_CHARS: code points kept per word
CHAR_BOW, CHAR_EOW = "<w>", "</w>"

# ---------------------------------------------------------------- data/utf8.c, data/features.c


def lower(form):
    return form.lower()


def shape_class(c):
    """data/utf8.c qkv_utf8_shape_class: "X", "x", "d", or None (the character is kept)."""
    if c.lower() != c:
        return "X"
    if c.islower() or c.isalpha():
        return "x"
    if unicodedata.category(c) == "Nd":
        return "d"
    return None


def shape(form):
    out, last, run = [], None, 0
    for c in form:
        sh = shape_class(c) or c
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


class Section(dict):
    """One section of a checkpoint's resolved config. qkv writes every key of its schema there,
    defaults included, so the port reads each value and restates no default: a key missing is
    a checkpoint written before that key existed, an error naming it."""

    def __init__(self, path, name, values):
        super().__init__(values)
        self.where = f"{path}: /config section {name}"

    def __missing__(self, key):
        raise KeyError(f"{self.where} has no key {key!r} (written by a qkv without it)")


def char_ids(form, vocab):
    """data/chars.c qkv_featurizer_char_ids: [<w>, kept code points..., </w>] as ids (UNK 0)."""
    cps = form if len(form) <= WORD_CHARS else form[:WORD_CHARS // 2] + form[-(WORD_CHARS // 2):]
    return [vocab[CHAR_BOW]] + [vocab.get(c, 0) for c in cps] + [vocab[CHAR_EOW]]


HEADER_SIZE = 512  # the qkv header in the HDF5 user block (lib/io/store_file.c)


def header_text(size, crc):
    return (f"qkv-checkpoint\nsize={size:020d}\ncrc32={crc:08x}\n"
            "This is an HDF5 file (open it with h5py) with a 512-byte qkv header (the HDF5 user block).\n"
            "size is the file length in bytes; crc32 is zlib.crc32 of bytes 512 to size-1.\n").encode()


def verify(path):
    """Checks a qkv checkpoint or model file as qkv does before reading it (lib/io/store_read.c):
    its 512-byte header, the file size it gives and the CRC-32 (zlib.crc32) of every byte after the
    header. Raises ValueError naming what is wrong, as qkv's message does."""
    with open(path, "rb") as f:
        head = f.read(HEADER_SIZE)
        if not head:
            raise ValueError(f"checkpoint {path}: the file is empty")
        if head[:8] == b"\x89HDF\r\n\x1a\n":
            raise ValueError(f"checkpoint {path}: an HDF5 file, but not a qkv checkpoint (no qkv header)")
        if head[:20] != b"qkv-checkpoint\nsize=":
            raise ValueError(f"checkpoint {path}: not a qkv checkpoint (no qkv header)")
        if len(head) < HEADER_SIZE:
            raise ValueError(f"checkpoint {path}: truncated: shorter than its {HEADER_SIZE}-byte header")
        text = head.split(b"\0", 1)[0]  # the NUL padding after the text is not read
        m = re.match(rb"qkv-checkpoint\nsize=([0-9]{20})\ncrc32=([0-9a-f]{8})\n", text)
        if not m or header_text(int(m[1]), int(m[2], 16)) != text:
            raise ValueError(f"checkpoint {path}: corrupted: its qkv header is damaged")
        size, crc = int(m[1]), int(m[2], 16)
        actual_size = os.fstat(f.fileno()).st_size
        if actual_size < size:
            raise ValueError(f"checkpoint {path}: truncated: {actual_size} bytes, the header says {size}")
        if actual_size > size:
            raise ValueError(f"checkpoint {path}: {actual_size} bytes, the header says {size} "
                             "(data appended after saving?)")
        actual = 0
        while chunk := f.read(1 << 20):
            actual = zlib.crc32(chunk, actual)
        if actual != crc:
            raise ValueError(f"checkpoint {path}: corrupted or modified after saving: CRC-32 of its contents is "
                             f"{actual:08x}, the header says {crc:08x}")


class Checkpoint:
    def __init__(self, path):
        verify(path)
        with h5py.File(path, "r") as f:
            text = f["/config"][()]
            self.config_text = text.decode() if isinstance(text, bytes) else text
            self.config = {name: Section(path, name, values or {})
                           for name, values in numbers(yaml.safe_load(self.config_text)).items()}

            def strings(p):
                d = f[p]
                if d.dtype == np.uint8:  # format_version 2: UTF-8 strings, each ended by a NUL
                    return bytes(d[()]).decode("utf-8").split("\0")[:-1]
                return [s.decode() if isinstance(s, bytes) else s for s in d[()]]  # version 1

            self.features = strings("/vocab/features")
            self.vocab = {n: {s: i for i, s in enumerate(strings(f"/vocab/{n}"))} for n in self.features}
            self.vocab_size = {n: len(self.vocab[n]) for n in self.features}
            self.tags = strings("/vocab/tags")
            # the character vocabulary, present exactly when model.char_dim > 0
            self.chars = None
            if self.config["model"]["char_dim"] > 0:
                if "/vocab/chars" not in f:
                    raise ValueError(f"{path}: model.char_dim > 0 but no /vocab/chars")
                self.chars = {s: i for i, s in enumerate(strings("/vocab/chars"))}
                for m in (CHAR_BOW, CHAR_EOW):
                    if self.chars.get(m, 0) <= 0:
                        raise ValueError(f"{path}: /vocab/chars lacks the word marker {m}")
            # /params only: the evaluated model (the average when train.ema_decay > 0);
            # /train/raw_params and /optim are training state, not the model
            self.params = {}
            f["/params"].visititems(lambda name, obj: self.params.__setitem__(name, np.array(obj))
                                    if isinstance(obj, h5py.Dataset) else None)

    @property
    def n_chars(self):
        return len(self.chars) if self.chars is not None else 0


NO_TAG = -2  # data/dataset.h QKV_TAG_NONE: the gold tag is `_`; not a target, not scored

# feats [n_features, n_words] int64; tags [n_words] (-1 = a tag unseen in training, NO_TAG = `_`); starts
# [n_sentences + 1]; chars [n_words, WORD_CHARS + 2] int64 (0 after a word's end) and char_lens
# [n_words], or None for a model without a character encoder
Encoded = collections.namedtuple("Encoded", "feats tags starts chars char_lens")


def encode(ckpt, sents):
    """The id arrays of sentences (lists of (form, tag)) under the checkpoint's vocabularies."""
    tag_id = {t: i for i, t in enumerate(ckpt.tags)}
    feats = [[] for _ in ckpt.features]
    tags, starts, chars = [], [0], []
    for s in sents:
        for form, tag in s:
            for k, name in enumerate(ckpt.features):
                feats[k].append(ckpt.vocab[name].get(feature_string(name, form), 0))
            tags.append(NO_TAG if tag == "_" else tag_id.get(tag, -1))
            if ckpt.chars is not None:
                chars.append(char_ids(form, ckpt.chars))
        starts.append(len(tags))
    feats = np.array(feats, dtype=np.int64).reshape(len(ckpt.features), -1)
    char_arr = char_lens = None
    if ckpt.chars is not None:
        char_lens = np.array([len(c) for c in chars], dtype=np.int64)
        char_arr = np.zeros((len(chars), WORD_CHARS + 2), dtype=np.int64)
        for w, c in enumerate(chars):
            char_arr[w, :len(c)] = c
    return Encoded(feats, np.array(tags, dtype=np.int64), starts, char_arr, char_lens)


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


# ids [n_features, B, L]; tags [B, L] (-1 = no target: padding, `_`, a tag unseen in training);
# pad [B, L] (True = padding); lens [B];
# chars [B, L, C] (C = the batch's longest word in character ids; 0 after a word's end and on
# padding) and char_lens [B, L] (0 on padding), or None without a character encoder
Batch = collections.namedtuple("Batch", "ids tags pad lens chars char_lens")


def padded(data, batch):
    """Batch `batch` (sentence indices into the Encoded `data`) as padded torch tensors."""
    starts = data.starts
    lens = [starts[s + 1] - starts[s] for s in batch]
    B, L = len(batch), max(lens)
    x = np.zeros((data.feats.shape[0], B, L), dtype=np.int64)
    y = np.full((B, L), -1, dtype=np.int64)
    pad = np.ones((B, L), dtype=bool)
    chars = char_lens = None
    if data.chars is not None:
        C = max(int(data.char_lens[starts[s]:starts[s + 1]].max()) for s in batch)
        chars = np.zeros((B, L, C), dtype=np.int64)
        char_lens = np.zeros((B, L), dtype=np.int64)
    for b, s in enumerate(batch):
        n, w0, w1 = lens[b], starts[s], starts[s + 1]
        x[:, b, :n] = data.feats[:, w0:w1]
        y[b, :n] = np.maximum(data.tags[w0:w1], -1)
        pad[b, :n] = False
        if chars is not None:
            chars[b, :n] = data.chars[w0:w1, :C]
            char_lens[b, :n] = data.char_lens[w0:w1]
    t = torch.from_numpy
    return Batch(t(x), t(y), t(pad), lens, t(chars) if chars is not None else None,
                 t(char_lens) if char_lens is not None else None)
