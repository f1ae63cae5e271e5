"""The joint parser row of tests/reference/bench.py (imported by it): its config, label and counts.

  joint  configs/ud_ewt_english.yaml unchanged: the shipped English model's tagger and parser
         (data/models/en.h5 without its segmenter): word, lowercase, shape, prefix and suffix
         embeddings (d_model 128), a BiLSTM of 3 layers of 192 units per direction, and five
         heads over its 384 columns, the biaffine parser (arc_dim 256, label_dim 64; DEPREL its
         labels) and softmax heads for UPOS, XPOS, FEATS and LEMMA; 2000 tokens a batch, dropout
         0.3, word dropout 0.2, the parameter average (train.ema_decay); on EWT train, evaluated
         on EWT dev. Both systems run this same model: the port (python/qkv_torch_parse.py)
         builds it from the checkpoint's resolved config, and its bench mode
         (python/qkv_torch_parse_bench.py) trains every head on the gold classes of EWT train
         (python/qkv_torch_columns.py) and evaluates as qkv does, except that it takes each
         word's best head where qkv decodes a tree per sentence (Chu-Liu/Edmonds, model.tree_decoder
         mst), and the argmax of the LEMMA, UPOS and XPOS heads where qkv keeps to the scripts a
         form can take and to the UPOS/XPOS pairs seen in training: qkv does a little more work
         in evaluation.

The lead's measurement on an idle machine:
  QKV_EWT_DIR=/path/to/ud_english_ewt /usr/bin/python3 tests/reference/bench.py --configs joint --repeats 3
"""
import os

CONFIGS = {"joint": "configs/ud_ewt_english.yaml"}


def spec(name, ewt):
    """(base config, --set overrides, training file, evaluation file) of the row."""
    return (CONFIGS[name], {}, os.path.join(ewt, "en_ewt-ud-train.conllu"), os.path.join(ewt, "en_ewt-ud-dev.conllu"))


def columns(config):
    tags = config["data"]["tags"]
    return list(tags) if isinstance(tags, list) else [tags]


def label(name, config):
    m = config["model"]
    h = m["lstm_hidden"] or m["d_model"] // 2
    return (f"{name} ({m['encoder']} d{m['d_model']}/L{m['n_layers']}/h{h}, biaffine arc{m['arc_dim']}/label"
            f"{m['label_dim']}, heads {'+'.join(columns(config))}{'/ema' if config['train']['ema_decay'] else ''})")


def forward_flops(lens, char_ids, m, n_labels, n_classes, label_sets):
    """Matrix-product FLOPs of one forward pass of the joint model over sentences of lens words
    (T = sum(lens)); char_ids: their character ids (markers included); n_labels: DEPREL labels L;
    n_classes: the classes of each softmax head; label_sets: how many sets of arcs the label
    scores are computed for (training: the gold arcs; evaluation: the predicted and the gold).
      BiLSTM (lib/nn/lstm.h), h units per direction, layer k reading d_in = d_model (k = 0) or
      2h: each direction's four gates W_ih x_t + W_hh h_{t-1}, 2 * 4h * (d_in + h) per word, so
      16 h (d_in + h) T per layer;
      biaffine head over d_out = 2h (models/biaffine_head.c), a = arc_dim, l = label_dim: the four
      MLPs 2 T d_out (2a + 2l); arc scores (a_dep U) 2 T a^2, then against [ROOT; a_head] 2 a n (n + 1)
      and u^T h_j 2 a (n + 1) per sentence of n words; label logits for one set of arcs
      2 T L l (l + 2) (the bilinear 2 l^2 per label, w_dep and w_head 2 l each);
      a softmax head of C classes 2 T d_out C;
      the character CNN when model.char_dim > 0, counted as bench.py counts it.
    Padding is not counted (the port's padded batches do more)."""
    if m["encoder"] != "bilstm":
        raise ValueError(f"bench_parse counts a BiLSTM encoder, the model's is {m['encoder']}")
    d, h, T = m["d_model"], m["lstm_hidden"] or m["d_model"] // 2, sum(lens)
    a, l, d_out = m["arc_dim"], m["label_dim"], 2 * h
    lstm = sum(16 * h * ((d if k == 0 else 2 * h) + h) * T for k in range(m["n_layers"]))
    arcs = 2 * T * a * a + sum(2 * a * n * (n + 1) + 2 * a * (n + 1) for n in lens)
    head = 2 * T * d_out * (2 * a + 2 * l) + arcs + label_sets * 2 * T * n_labels * l * (l + 2)
    chars = 0
    if m["char_dim"] > 0:
        chars = 2 * char_ids * m["char_width"] * m["char_dim"] * m["char_filters"] + 2 * T * m["char_filters"] * d
    return lstm + head + sum(2 * T * d_out * c for c in n_classes) + chars


def facts(c, a, ck, qkv_torch, char_ids):
    """Fills Config c (bench.py) from the row's checkpoint ck: train_tokens, train_gflop, dev_tokens,
    eval_gflop, epoch_tokens and the plan's tokens of the first --warmup steps (first_tokens)."""
    m, cols = ck.config["model"], columns(ck.config)
    n_labels = ck.params["rel.b"].shape[0]
    n_classes = [ck.params[f"{col}.classifier.b"].shape[0] for col in cols[1:]]

    def count(data, batch, label_sets):
        lens = [data.starts[s + 1] - data.starts[s] for s in batch]
        return forward_flops(lens, char_ids(data, batch), m, n_labels, n_classes, label_sets)

    data = qkv_torch.encode(ck, qkv_torch.read_conllu(c.trn))
    starts = data.starts
    c.epoch_tokens = starts[-1]
    batches = qkv_torch.plan(starts, ck.config["data"]["batch_tokens"], qkv_torch.Rng(ck.config["train"]["seed"] * 2))
    c.first_tokens = sum(starts[s + 1] - starts[s] for b in batches[:a.warmup] for s in b)
    after = batches[a.warmup:a.steps]
    c.train_tokens = sum(starts[s + 1] - starts[s] for b in after for s in b)
    c.train_gflop = 3e-9 * sum(count(data, b, 1) for b in after)  # backward: two products per forward product
    dv = qkv_torch.encode(ck, qkv_torch.read_conllu(c.dev))
    c.dev_tokens = dv.starts[-1]
    c.eval_gflop = 1e-9 * count(dv, range(len(dv.starts) - 1), 2)
