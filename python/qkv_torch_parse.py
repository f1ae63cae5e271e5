#!/usr/bin/python3
"""The PyTorch port of qkv's models of several heads over one encoder and of its biaffine
dependency-parser head, and their comparison with `qkv eval --logits` (qkv_torch.py compare
calls compare_heads for a file in the /heads layout, docs/reference/checkpoints.md).

A model of several heads (models/network.h: qkv_network_add_head; the heads api/session.c adds
for data.tags a list of columns): one encoder, as qkv_torch.Tagger's, whose normalised output x
[B, L, d_out] every head reads. Head 0 is of model.output with no name prefix: softmax or crf
(classifier.w, classifier.b; crf.* with output crf) or the biaffine parser over DEPREL; heads
1.. are softmax heads "<column>.classifier.w", "<column>.classifier.b" of data.tags' other
columns. With model.parser_tag_inputs the parser reads, in place of x, x beside
softmax(<column> logits) · tag_embed.<column> [n_tags, tag_input_dim] for each named column
(parser_input).

The biaffine head (models/biaffine_head.c, lib/ops/biaffine.h; Dozat and Manning 2017, "Deep
Biaffine Attention for Neural Dependency Parsing"): four one-layer ReLU MLPs over x (in
training with dropout after each),
    a_dep, a_head = relu(arc_mlp.{dep,head}.w x + b)  [arc_dim]
    r_dep, r_head = relu(rel_mlp.{dep,head}.w x + b)  [label_dim]
arc scores of word t over candidate heads j = 0 (ROOT: h_0 = arc.root) and j = 1..n (word j of
the sentence: h_j = a_head of word j)
    s[t, j] = a_dep_t^T arc.U h_j + arc.u^T h_j,
and label logits of word t with head j (g = rel.root for ROOT, r_head of word j, zeros for no
head)
    y[t, l] = r_dep_t^T rel.U[l] g + rel.w_dep[l] . r_dep_t + rel.w_head[l] . g + rel.b[l].
"""

import h5py
import numpy as np
import torch
import torch.nn.functional as F

from qkv_torch_data import encode, padded, plan, read_conllu
from qkv_torch_text import conllu_words
from qkv_torch_layers import CRF, bio_mask


def columns(config):
    """data.tags as a list of column names (head order)."""
    tags = config["data"]["tags"]
    return list(tags) if isinstance(tags, list) else [tags]


def is_multi_head(config):
    """Whether the model is one of several heads or a parser (what this module ports)."""
    return len(columns(config)) > 1 or config["model"]["output"] == "biaffine"


def tag_inputs(config):
    """The columns of model.parser_tag_inputs (a list, or a single name as qkv's YAML writes one)."""
    v = config["model"].get("parser_tag_inputs") or []
    return [v] if isinstance(v, str) else list(v)


def parser_input(model, x, head_x=None):
    """What the parser reads of the encoder output x [B, L, d_out] (models/network.h:
    qkv_network_head_input): x beside softmax(logits of each tag input's head) · tag_embed.<col>,
    each head's logits over head_x[col] (what that head reads; default x)."""
    parts = [x]
    for col in model.tag_inputs:
        c = getattr(model, col).classifier
        xc = head_x[col] if head_x else x
        parts.append(torch.softmax(F.linear(xc, c.w, c.b), dim=-1) @ getattr(model.tag_embed, col))
    return torch.cat(parts, dim=-1) if len(parts) > 1 else x


def _linear(out, d_in):
    m = torch.nn.Module()
    m.w = torch.nn.Parameter(torch.empty(out, d_in))
    m.b = torch.nn.Parameter(torch.zeros(out))
    return m


def _pair(out, d_in):
    m = torch.nn.Module()
    m.dep, m.head = _linear(out, d_in), _linear(out, d_in)
    return m


def _params(**shapes):
    m = torch.nn.Module()
    for name, shape in shapes.items():
        setattr(m, name, torch.nn.Parameter(torch.zeros(*shape)))
    return m


def add_biaffine(owner, d_in, n_tags, arc_dim, label_dim):
    """The biaffine head's parameters on owner with qkv's names (arc_mlp.*, rel_mlp.*, arc.*,
    rel.*; models/biaffine_head.c)."""
    a, l, L = arc_dim, label_dim, n_tags
    owner.arc_mlp, owner.rel_mlp = _pair(a, d_in), _pair(l, d_in)
    owner.arc = _params(root=(a,), U=(a, a), u=(a,))
    owner.rel = _params(root=(l,), U=(L, l, l), w_dep=(L, l), w_head=(L, l), b=(L,))


def _role(owner, lin, x):
    """relu(lin.w x + lin.b), then in training the dropout of model.dropout (models/network.c gives
    the head the encoder's)."""
    return F.dropout(torch.relu(F.linear(x, lin.w, lin.b)), owner.p, owner.training)


def _with_root(root, h):
    """[B, L + 1, d]: row 0 the ROOT vector, row j word j's vector h[:, j - 1]."""
    return torch.cat([root.expand(h.shape[0], 1, -1), h], dim=1)


def biaffine_arcs(owner, x):
    """Arc scores [B, L, L + 1] of x [B, L, d_in]: [b, t, j] = s[t, j] of sentence b (columns
    past the sentence's n + 1 are padding, not read)."""
    dep, H = _role(owner, owner.arc_mlp.dep, x), _with_root(owner.arc.root, _role(owner, owner.arc_mlp.head, x))
    return torch.matmul(torch.matmul(dep, owner.arc.U), H.transpose(1, 2)) + torch.matmul(H, owner.arc.u)[:, None, :]


def label_roles(owner, x):
    """(r_dep [B, L, label_dim], G [B, L + 1, label_dim]: row 0 rel.root, row j r_head of word j)."""
    return _role(owner, owner.rel_mlp.dep, x), _with_root(owner.rel.root, _role(owner, owner.rel_mlp.head, x))


def labels_at(owner, dep, G, heads):
    """Label logits [B, L, n_tags] of the roles of label_roles with each word's head heads [B, L]
    (0 = ROOT, j = word j, < 0: a zero head vector)."""
    g = torch.gather(G, 1, heads.clamp(min=0)[..., None].expand(-1, -1, G.shape[-1]))
    g = g * (heads >= 0)[..., None].to(g.dtype)
    return F.bilinear(dep, g, owner.rel.U) + F.linear(dep, owner.rel.w_dep, owner.rel.b) + F.linear(g, owner.rel.w_head)


def biaffine_labels(owner, x, heads):
    """Label logits [B, L, n_tags] of x [B, L, d_in] with each word's head heads [B, L] (0 = ROOT,
    j = word j, < 0: a zero head vector)."""
    return labels_at(owner, *label_roles(owner, x), heads)


def heads_tagger(ck):
    """The model of several heads (or parser) of Checkpoint ck, parameters loaded: a
    qkv_torch.Tagger whose head 0 is model.output's (a biaffine head replaces its classifier)
    and which has a softmax head per further column (module <column>, its classifier)."""
    from qkv_torch import Tagger  # it imports this module when it compares: loaded when needed
    m, cols = ck.config["model"], columns(ck.config)
    model = Tagger(ck.config, ck.features, ck.vocab_size, len(ck.tags), ck.n_chars)
    d_out = model.classifier.w.shape[1]
    model.columns = cols
    model.tag_inputs = tag_inputs(ck.config)
    if m["output"] == "biaffine":
        del model.classifier
        d_tag = sum(ck.params[f"tag_embed.{col}"].shape[1] for col in model.tag_inputs)  # [n_tags, tag_input_dim]
        add_biaffine(model, d_out + d_tag, len(ck.tags), m["arc_dim"], m["label_dim"])
    for col in cols[1:]:
        head = torch.nn.Module()
        head.classifier = _linear(ck.params[f"{col}.classifier.b"].shape[0], d_out)
        setattr(model, col, head)
    if model.tag_inputs:
        model.tag_embed = _params(**{col: ck.params[f"tag_embed.{col}"].shape for col in model.tag_inputs})
    model.load_qkv(ck.params)
    if isinstance(model.crf, CRF) and m["crf_constrained"]:
        model.crf.allowed_trans, model.crf.allowed_start, model.crf.allowed_end = bio_mask(ck.tags)
    return model


def _padded_heads(heads, starts, batch, L):
    out = np.full((len(batch), L), -1, dtype=np.int64)
    for b, s in enumerate(batch):
        out[b, :starts[s + 1] - starts[s]] = heads[starts[s]:starts[s + 1]]
    return torch.from_numpy(out)


def run_heads(model, data, budget, gold_heads=None, pred_heads=None):
    """Every head's scores of an Encoded `data` in corpus order, with qkv's evaluation batches:
    {column: {"logits": [n_words, n_tags]}} for a tagging head; for the parser {"arcs": flat,
    "arc_offsets": [n_sent + 1], "labels": at pred_heads, "gold_labels": at gold_heads} (heads
    [n_words] as in CoNLL-U, -1: none), the layout of `qkv eval --logits` (docs/reference/checkpoints.md)."""
    starts, n = data.starts, data.starts[-1]
    lens = np.diff(starts)
    arc_offsets = np.concatenate([[0], np.cumsum(lens * (lens + 1))])
    parser = hasattr(model, "arc_mlp")
    out, dtype = {}, model.final_ln.gain.dtype
    for h, col in enumerate(model.columns):
        if h == 0 and parser:
            L = model.rel.b.shape[0]
            out[col] = {"arcs": torch.zeros(int(arc_offsets[-1]), dtype=dtype), "arc_offsets": arc_offsets,
                        "labels": torch.zeros(n, L, dtype=dtype), "gold_labels": torch.zeros(n, L, dtype=dtype)}
        else:
            w = (model.classifier if h == 0 else getattr(model, col).classifier).w
            out[col] = {"logits": torch.zeros(n, w.shape[0], dtype=dtype)}
    with torch.no_grad():
        for batch in plan(starts, budget):
            bt = padded(data, batch)
            x = model.hidden(bt.ids, bt.pad, bt.chars, bt.char_lens)
            for h, col in enumerate(model.columns):
                if h == 0 and parser:
                    _parser_batch(model, parser_input(model, x), bt, batch, starts, out[col], gold_heads, pred_heads)
                    continue
                c = model.classifier if h == 0 else getattr(model, col).classifier
                lg = F.linear(x, c.w, c.b)
                for b, s in enumerate(batch):
                    out[col]["logits"][starts[s]:starts[s + 1]] = lg[b, :bt.lens[b]]
    return out


def _parser_batch(model, x, bt, batch, starts, o, gold_heads, pred_heads):
    """The parser head's scores of one batch into o (run_heads)."""
    arcs = biaffine_arcs(model, x)
    L = x.shape[1]
    labels = {k: biaffine_labels(model, x, _padded_heads(v, starts, batch, L))
              for k, v in (("labels", pred_heads), ("gold_labels", gold_heads)) if v is not None}
    for b, s in enumerate(batch):
        n, w0 = bt.lens[b], starts[s]
        o["arcs"][o["arc_offsets"][s]:o["arc_offsets"][s + 1]] = arcs[b, :n, :n + 1].reshape(-1)
        for k, lg in labels.items():
            o[k][w0:w0 + n] = lg[b, :n]


def read_heads(path):
    """Each word's HEAD in a CoNLL-U file (-1 for "_"), the words of qkv_torch_text.conllu_words."""
    heads = [int(w[1][6]) if w[1][6].isdigit() else -1 for w in conllu_words(path) if w is not None]
    return np.array(heads, dtype=np.int64)


def is_tree(heads):
    """Whether heads [n] (0 = ROOT, j = word j) is a tree with one child of ROOT."""
    n = len(heads)
    if (heads < 0).any() or (heads > n).any() or int((heads == 0).sum()) != 1:
        return False
    for t in range(1, n + 1):
        seen, j = set(), t
        while j != 0:
            if j in seen:
                return False
            seen.add(j)
            j = int(heads[j - 1])
    return True


def _diff(what, ref, got, atol):
    ref, got = np.asarray(ref, dtype=np.float64), np.asarray(got, dtype=np.float64)
    if ref.shape != got.shape:
        print(f"FAIL {what}: qkv {got.shape}, torch {ref.shape}")
        return False
    err = float(np.abs(ref - got).max()) if ref.size else 0.0
    print(f"{what}: {ref.size} values, max |qkv - torch| = {err:.3g}, max |torch| = "
          f"{float(np.abs(ref).max()) if ref.size else 0:.3g} (limit {atol:g})")
    return err <= atol


def _same_pred(what, ref, got):
    diff = np.nonzero(np.asarray(ref) != np.asarray(got))[0]
    print(f"{what}: predictions differ at {len(diff)} of {len(ref)} words")
    return len(diff) == 0


def _check_parser(col, ref, f, starts, atol):
    g = f[f"/heads/{col}"]
    ok = _diff(f"{col}/arcs", ref["arcs"].numpy(), g["arcs"][()], atol)
    ok &= np.array_equal(np.asarray(g["arc_offsets"][()]), ref["arc_offsets"])
    for k in ("labels", "gold_labels"):
        ok &= _diff(f"{col}/{k}", ref[k].numpy(), g[k][()], atol)
    ok &= _same_pred(f"{col}/pred (labels of the predicted arcs)", ref["labels"].numpy().argmax(1), g["pred"][()])
    ph = np.asarray(g["pred_heads"][()])
    trees = sum(is_tree(ph[starts[s]:starts[s + 1]]) for s in range(len(starts) - 1))
    print(f"{col}/pred_heads: {trees} of {len(starts) - 1} sentences are trees with one child of ROOT")
    return ok and trees == len(starts) - 1


def tag_pairs(path, cols):
    """The UPOS/XPOS pairs a model keeps to (api/tag_pairs.h): a boolean [n_upos, n_xpos] of the
    pairs /tag_pairs/upos_xpos of the checkpoint at path lists ("UPOS<TAB>XPOS", the classes of
    the columns' vocabularies: /vocab/tags for column 0, /vocab/tags.<column> for the others),
    with the heads of the two columns; None when the model has no pairs or not both columns."""
    if "upos" not in cols or "xpos" not in cols:
        return None
    with h5py.File(path, "r") as f:
        if "/tag_pairs/upos_xpos" not in f:
            return None

        def strings(p):
            return bytes(f[p][()]).decode("utf-8").split("\0")[:-1]

        hu, hx = cols.index("upos"), cols.index("xpos")
        vu, vx = (strings("/vocab/tags" if h == 0 else f"/vocab/tags.{cols[h]}") for h in (hu, hx))
        allowed = np.zeros((len(vu), len(vx)), dtype=bool)
        for pair in strings("/tag_pairs/upos_xpos"):
            u, x = pair.split("\t")
            allowed[vu.index(u), vx.index(x)] = True
    return hu, hx, allowed


def keep_to_pairs(pu, px, lu, lx, allowed):
    """Predictions pu, px [n_words] of the UPOS and XPOS heads kept to the seen pairs: a word whose
    pair is unseen takes the seen pair of the highest log_softmax(lu) + log_softmax(lx) (logits
    [n_words, n_upos], [n_words, n_xpos]; the first such pair by UPOS, then XPOS, on a tie), as
    api/tag_pairs.c decodes."""
    pu, px = np.array(pu), np.array(px)
    su = F.log_softmax(torch.as_tensor(lu, dtype=torch.float64), dim=1).numpy()
    sx = F.log_softmax(torch.as_tensor(lx, dtype=torch.float64), dim=1).numpy()
    for w in np.nonzero(~allowed[pu, px])[0]:
        score = np.where(allowed, su[w][:, None] + sx[w][None, :], -np.inf)
        pu[w], px[w] = np.unravel_index(int(np.argmax(score)), score.shape)
    return pu, px


def compare_heads(ck, model, conllu, qkv_logits, atol, ckpt_path):
    """compare for the /heads layout: every head's scores of the port (float64) against qkv's,
    max |difference| <= atol, and the same predictions (the lemma head's excepted: qkv takes the
    best script the form can take, api/predict_heads.c), UPOS and XPOS kept to the pairs of the
    checkpoint at ckpt_path as qkv keeps them (tag_pairs). Returns the exit status."""
    sents = read_conllu(conllu)  # the words (their UPOS is not read)
    data = encode(ck, [[(form, "_") for form, _ in s] for s in sents])
    gold = read_heads(conllu)
    with h5py.File(qkv_logits, "r") as f:
        if "/heads" not in f:
            print(f"FAIL: {qkv_logits} has no /heads group (a tagger of one column: /logits)")
            return 1
        cols = bytes(f["/columns"][()]).decode("utf-8").split("\0")[:-1]
        if cols != model.columns:
            print(f"FAIL: {qkv_logits} holds the heads {cols}, the model's are {model.columns}")
            return 1
        ok = np.array_equal(np.asarray(f["/sentences"][()]), np.asarray(data.starts))
        print(f"{len(data.starts) - 1} sentences, {data.starts[-1]} words: "
              f"{'the same' if ok else 'NOT the same'} sentences as qkv's /sentences")
        parser = hasattr(model, "arc_mlp")
        pred_heads = np.asarray(f[f"/heads/{model.columns[0]}/pred_heads"][()]) if parser else None
        ref = run_heads(model, data, ck.config["data"]["batch_tokens"], gold, pred_heads)
        preds = {}
        for h, col in enumerate(model.columns):
            if h == 0 and parser:
                ok &= _check_parser(col, ref[col], f, data.starts, atol)
                continue
            lg = ref[col]["logits"]
            ok &= _diff(f"{col}/logits", lg.numpy(), f[f"/heads/{col}/logits"][()], atol)
            if col == "lemma":
                continue
            if h == 0 and model.crf is not None:
                s = data.starts
                preds[col] = np.concatenate([model.crf.viterbi(lg[s[i]:s[i + 1]]) for i in range(len(s) - 1)])
            else:
                preds[col] = lg.numpy().argmax(1)
        pairs = tag_pairs(ckpt_path, model.columns)
        if pairs is not None and not (parser and 0 in pairs[:2]):
            hu, hx, allowed = pairs
            preds["upos"], preds["xpos"] = keep_to_pairs(preds["upos"], preds["xpos"], ref["upos"]["logits"],
                                                         ref["xpos"]["logits"], allowed)
            print(f"upos/xpos: kept to the {int(allowed.sum())} pairs seen in training")
        for col, pred in preds.items():
            ok &= _same_pred(f"{col}/pred", pred, f[f"/heads/{col}/pred"][()])
    print("ok" if ok else "FAIL: PyTorch and qkv disagree")
    return 0 if ok else 1
