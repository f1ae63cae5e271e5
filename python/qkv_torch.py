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
model has exactly qkv's parameter names (models/network.h, models/char_cnn.h, lib/nn/encoder.h,
lib/ops/attention.h) and computes (models/network.c qkv_network_logits):

    sum_f embed.<f>[id_f]  [+ CharCNN(the word's characters)]  [* sqrt(d_model)]
    + PE(position in sentence)  -> dropout
    -> n_layers encoder blocks (pre-LN: h = x + drop(MHA(LN1 x)); y = h + drop(FFN(LN2 h)))
       (model.encoder: bilstm: nn.LSTM over packed sequences, no positions; cnn: n_layers blocks
       y = x + drop(act(Conv1d(LN x))) with per-sentence zero padding, no positions)
    -> final layer norm -> dropout (model.head_dropout) -> classifier
       [-> CRF: NLL by the forward algorithm, Viterbi decoding]

on padded batches [B, L] with a key-padding mask (padding rows are ignored everywhere they
could matter: keys are masked, and only real tokens are read out). CharCNN (models/char_cnn.h):
chars.embed -> Conv1d of width char_width, zero-padded at the word's own ends -> ReLU -> max
over the word's characters -> chars.proj.w (no bias). Attention (lib/ops/attention.h): scores
Q K^T * scale [+ rel_bias[h][clip(j - i, -R, R) + R] with model.attn_rel_clip = R > 0]
[- m_h |i - j| with positional: alibi], q and k rotated first with positional: rope, window
and causal masks, softmax or relu normalisation.

The data side (features, characters, CoNLL-U, checkpoint reading, qkv's batch plan) is in
qkv_torch_data.py, the layers in qkv_torch_layers.py, the bench command in qkv_torch_bench.py,
the biaffine parser head and models of several heads (data.tags a list) in qkv_torch_parse.py
(their bench in qkv_torch_parse_bench.py, the classes of their columns in qkv_torch_columns.py):
load() of such a checkpoint gives that model (no tag(); qkv_torch_parse.run_heads scores it).

Commands:
  qkv_torch.py tag MODEL [FILE]
      tags FILE (default: standard input; one sentence a line, words separated by blanks as qkv
      tag --format text reads them: qkv_torch_text.BLANKS) and
      writes each word and its tag (TAB between them), an empty line after each sentence: what
      examples/tag_sentences.c writes with the C library.
  qkv_torch.py compare CKPT CONLLU QKV_LOGITS.h5 [--rtol 1e-4]
      runs the model in float64 on CONLLU and compares with `qkv eval ... --logits` output;
      exit 0 when max|torch - qkv| <= rtol * max|torch| and every predicted tag is equal
      (model.output crf: the Viterbi paths; with --loss L, qkv eval's loss, also the NLL per
      gold-tagged word within rtol). A parser or a model of several heads (data.tags a list;
      the /heads layout of the file, qkv_torch_parse.py): every head's logits, the parser's
      arc scores and label logits of the predicted and of the gold arcs within --atol (default
      1e-4) absolute, the same predicted labels and tags (lemma: logits only).
  qkv_torch.py bench CKPT TRAIN DEV --steps N --warmup W [--threads 2] [--seed S]
      trains N steps (AdamW, or with optim.sparse_embeddings AdamW plus the lazy update of the
      embedding rows a batch touches as lib/optim/optim.h; the config's lr schedule, dropout, word dropout, clipping and the
      parameter average of train.ema_decay) on
      qkv's batches of TRAIN's first epoch, then evaluates DEV; prints one JSON line. A parser or
      a model of several heads trains on the weighted sum of every head's loss
      (qkv_torch_parse_bench.py).
"""
import argparse
import math
import sys

try:  # first: qkv_torch_data says in one line which package is missing and how to get it
    from qkv_torch_data import Checkpoint, Rng, encode, padded, plan, read_conllu  # noqa: F401 (bench.py)
    from qkv_torch_text import read_text
except ImportError as missing:
    if __name__ == "__main__":
        sys.exit(f"qkv_torch.py: {missing}")
    raise

import h5py
import numpy as np
import torch
import torch.nn.functional as F

from qkv_torch_dense import (IMAGE_INPUTS, DenseTagger, checkpoint_tokens, frame_tokens, input_kind, run_frames,
                             run_images)
from qkv_torch_parse import compare_heads, heads_tagger, is_multi_head
from qkv_torch_layers import (CRF, BiLSTMEncoder, CharCNN, CNNEncoder, Encoder, LayerNorm, Positional, QkvParams,
                              bio_mask)

# ---------------------------------------------------------------- the model


class Tagger(QkvParams):
    """qkv's tagger (models/network.h) with the same parameter names."""

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
        self.p, self.p_head = m["dropout"], m.get("head_dropout", 0.0)
        self.encoder = {"transformer": Encoder, "bilstm": BiLSTMEncoder, "cnn": CNNEncoder}[kind](m)
        d_out = getattr(self.encoder, "d_out", d)
        self.final_ln = LayerNorm(d_out, m["ln_eps"] or 1e-5)
        self.classifier = torch.nn.Module()
        self.classifier.w = torch.nn.Parameter(torch.empty(n_tags, d_out))
        self.classifier.b = torch.nn.Parameter(torch.zeros(n_tags))
        self.crf = CRF(n_tags) if m["output"] == "crf" else None

    def hidden(self, ids, pad, chars=None, char_lens=None):
        """ids [n_features, B, L], pad [B, L] (True = padding), with a character encoder chars
        [B, L, C] and char_lens [B, L] (qkv_torch_data.Batch) -> the normalised encoder output
        [B, L, d_out] that every head reads (models/network.h qkv_network_hidden)."""
        x = sum(F.embedding(ids[k], self.embed[f], sparse=self.sparse_grad) for k, f in enumerate(self.features))
        if self.chars is not None:
            if chars is None:
                raise ValueError("the model has a character encoder but the batch has no characters")
            x = x + self.chars(chars, char_lens)
        x = F.dropout(self.pos(x * self.scale), self.p, self.training)
        return self.final_ln(self.encoder(x, pad))

    def head_input(self, x):
        """What a head without arcs (a tagging head) reads of hidden() x: x after model.head_dropout
        in training (models/network.h qkv_network_head_input)."""
        return F.dropout(x, self.p_head, self.training)

    def forward(self, ids, pad, chars=None, char_lens=None):
        """The batch as for hidden() -> head 0's logits [B, L, n_tags] (a model of one tagging head)."""
        x = self.head_input(self.hidden(ids, pad, chars, char_lens))
        return F.linear(x, self.classifier.w, self.classifier.b)



def load_checkpoint(ckpt_path, dtype=torch.float32):
    """(Checkpoint, Tagger) of a qkv model file: the file's data side and the model in eval mode."""
    ck = Checkpoint(ckpt_path)
    if ck.config["data"]["task"] == "segment":
        raise ValueError(f"{ckpt_path} is a segmenter (data.task: segment), "
                         "not a tagger: its labels are per character (qkv tag --tokenizer takes it)")
    kind = input_kind(ck.config)
    if is_multi_head(ck.config):  # a parser, or several columns: qkv_torch_parse.py
        return ck, heads_tagger(ck).to(dtype).eval()
    if kind in IMAGE_INPUTS or kind == "frames":  # dense token vectors: their width from the input's matrix
        w = ck.params.get("input.proj.w" if kind != "frames" else "frames.w")  # (conv_patches: from the config)
        model = DenseTagger(ck.config, len(ck.tags), w.shape[1] if w is not None else 0)
    else:
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
    names (model.checkpoint.tags); tag(model, sentences) tags lists of words. A parser or a
    model of several heads (data.tags a list) gives qkv_torch_parse's model: model.hidden(...)
    is the encoder output its heads read, qkv_torch_parse.run_heads every head's scores."""
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
    if hasattr(model, "columns"):
        raise ValueError("tag() tags with a model of one tagging head; a parser's or several heads' scores: "
                         "qkv_torch_parse.run_heads")
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


def cmd_tag(a):
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    model = load(a.model)
    sents = read_text(a.file)
    for sent, tags in zip(sents, tag(model, sents)):
        print("".join(f"{w}\t{t}\n" for w, t in zip(sent, tags)))
    return 0


def read_qkv_logits(path):
    """(/logits [n, n_tags] float64, /pred [n]) of a `qkv eval --logits` file."""
    with h5py.File(path, "r") as f:
        if "/logits" not in f:
            raise SystemExit(f"FAIL: {path} has no /logits (a parser's or several heads' file: /heads), "
                             "not the scores of a model of one tagging head")
        return np.array(f["/logits"], dtype=np.float64), np.array(f["/pred"])


def agree(ref, got, pred, got_pred, rtol, what="words", argmax=True):
    """Prints how far qkv's logits got [n, n_tags] are from the port's ref and where the predicted
    tags differ; True when max |got - ref| <= rtol * max |ref| and every prediction agrees. With
    argmax predictions (argmax=True) a word whose two tags are closer in ref than 2 max |got - ref|
    agrees whichever of them each side picks: logits that far apart can swap order by the rounding
    the limit allows (qkv's float logits against the port's double ones). Viterbi paths
    (argmax=False) must agree word by word."""
    if got.shape != ref.shape:
        print(f"FAIL: qkv logits {got.shape}, torch {ref.shape}")
        return False
    scale = np.abs(ref).max()
    err = np.abs(got - ref).max()
    rel = err / scale
    diff = np.nonzero(pred != got_pred)[0]
    gaps = ref[diff, pred[diff]] - ref[diff, got_pred[diff]]
    ties = int((gaps <= 2 * err).sum()) if argmax else 0
    print(f"{ref.shape[0]} {what} x {ref.shape[1]} tags: max |qkv - torch| = {err:.3g}, max |logit| = "
          f"{scale:.3g}, relative {rel:.3g} (limit {rtol:g}); predicted tags differ at {len(diff)} {what}"
          + (f", {ties} of them at ties within 2 max |qkv - torch|" if len(diff) else ""))
    for w, gap in list(zip(diff, gaps))[:10]:
        print(f"  {what[:-1]} {w}: torch {pred[w]} qkv {got_pred[w]}, torch logit gap {gap:.3g}")
    return rel <= rtol and len(diff) == ties


def compare_images(ck, model, a):
    """compare for an image model: FILE is an IDX image file; every token holds its image's logits."""
    ref = run_images(model, checkpoint_tokens(ck, a.conllu), ck.config["data"]["batch_tokens"], torch.float64).numpy()
    got, got_pred = read_qkv_logits(a.qkv_logits)
    return 0 if agree(ref, got, ref.argmax(1), got_pred, a.rtol, "tokens") else 1


def compare_frames(ck, model, a):
    """compare for a speech frame model: FILE is a qkv speech corpus (HDF5)."""
    d = ck.config["data"]
    utts = frame_tokens(a.conllu, d["frame_stack"], d["held_out_voice"])
    ref = run_frames(model, utts, d["batch_tokens"], torch.float64).numpy()
    got, got_pred = read_qkv_logits(a.qkv_logits)
    return 0 if agree(ref, got, ref.argmax(1), got_pred, a.rtol, "frames") else 1


def cmd_compare(a):
    ck, model = load_checkpoint(a.checkpoint, torch.float64)
    if is_multi_head(ck.config):
        return compare_heads(ck, model, a.conllu, a.qkv_logits, a.atol, a.checkpoint)
    if input_kind(ck.config) in IMAGE_INPUTS:
        return compare_images(ck, model, a)
    if input_kind(ck.config) == "frames":
        return compare_frames(ck, model, a)
    data = encode(ck, read_conllu(a.conllu, ck.config["data"]["tags"]))
    ref = run_logits(model, data, ck.config["data"]["batch_tokens"]).numpy()
    got, got_pred = read_qkv_logits(a.qkv_logits)
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
    return 0 if agree(ref, got, pred, got_pred, a.rtol, argmax=model.crf is None) and nll_ok else 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tag")
    t.add_argument("model")
    t.add_argument("file", nargs="?", default="-")
    t.add_argument("--threads", type=int, default=0, help="torch threads (default 0: torch's own choice)")
    c = sub.add_parser("compare")
    c.add_argument("checkpoint")
    c.add_argument("conllu")
    c.add_argument("qkv_logits")
    c.add_argument("--rtol", type=float, default=1e-4)
    c.add_argument("--atol", type=float, default=1e-4, help="a parser or several heads: the largest |difference|")
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
    if a.cmd == "bench":
        from qkv_torch_bench import cmd_bench  # it imports this module: loaded when needed
        return cmd_bench(a)
    return {"tag": cmd_tag, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
