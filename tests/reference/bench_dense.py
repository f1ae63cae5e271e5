"""The image and speech-frame rows of tests/reference/bench.py (imported by it): their configs,
data and counts.

  image          configs/fashion_mnist.yaml unchanged (patches of 4 x 4, [CLS], learned 2-D
                 positions, d_model 64, 4 heads, 4 layers, d_ff 128, 3200 tokens a batch) on the
                 Fashion-MNIST training images ($QKV_FASHION_MNIST_DIR, else the Debian package's
                 /usr/share/datasets/fashion-mnist; its validation split as the config draws it);
                 evaluated on the first 1000 training images (data/fashion_mnist_sample/), so
                 no test image is read.
  image_stem     configs/fashion_mnist_stem.yaml unchanged (the same transformer over a
                 convolutional stem: two 3 x 3 convolutions of 32 channels with layer norm and
                 GELU on the 28 x 28 image, then the patch embedding of 4 x 4 patches, 50 tokens an
                 image), on the same images.
  image_cnn      configs/fashion_mnist_cnn.yaml (patches of 2 x 2 projected to 71 channels, 196
                 tokens an image, 3 blocks of a 3 x 3 convolution, layer norm, GELU and 2 x 2 max
                 pooling, 64 images a batch) without its random crops and flips (data.augment
                 none: the port does not augment, so both train on the same batches), on the
                 same images.
  speech_banded  configs/speech/phoneme.yaml (d_model 128, 4 heads, 2 layers, d_ff 256, 8000 tokens
                 a batch, model.attn_window 16) on long utterances: a corpus that `qkv speech`
                 speaks (voice en-us, 40 mel bands) from EWT train, 4 consecutive sentences an
                 utterance (about 70 words, 2,000-3,000 frames); evaluated on 8 such utterances
                 of EWT dev.
  speech_whole   the same with whole-utterance attention (model.attn_window 0; qkv switches to its
                 tiled kernel above model.attn_tiled_above frames).

The PyTorch port trains on qkv's batch plan of the same sequences (for images qkv's training
part, without the validation images it draws). Images per second are tokens per second over
the tokens of an image, which each image row's label gives (tok/img)."""
import os
import subprocess
import sys

import numpy as np

CONFIGS = {
    "image": ("configs/fashion_mnist.yaml", {}),
    "image_stem": ("configs/fashion_mnist_stem.yaml", {}),
    "image_cnn": ("configs/fashion_mnist_cnn.yaml", {"data.augment": "none"}),
    "speech_banded": ("configs/speech/phoneme.yaml", {"model.attn_window": 16}),
    "speech_whole": ("configs/speech/phoneme.yaml", {"model.attn_window": 0}),
}
SENTENCES_PER_UTTERANCE = 4


def joined_conllu(src, dst, n_utt):
    """dst: n_utt utterances of SENTENCES_PER_UTTERANCE consecutive sentences of CoNLL-U src each
    (words renumbered, no multiword tokens, HEAD and DEPREL of the first word of each part 0 root
    and the others attached to it, so that every sentence is a tree)."""
    sents, cur = [], []
    for line in open(src, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if cur:
                sents.append(cur)
            cur = []
        elif not line.startswith("#"):
            f = line.split("\t")
            if f[0].isdigit():
                cur.append(f)
    with open(dst, "w", encoding="utf-8") as out:
        for u in range(n_utt):
            words = []
            for s in sents[u * SENTENCES_PER_UTTERANCE:(u + 1) * SENTENCES_PER_UTTERANCE]:
                first = len(words) + 1
                for k, f in enumerate(s):
                    words.append(f[1:6] + (["0", "root"] if k == 0 else [str(first), "dep"]) + ["_", "_"])
            root = 1
            for i, w in enumerate(words, 1):
                if w[5] == "0" and i != root:
                    w[5], w[6] = str(root), "parataxis"
                out.write("\t".join([str(i)] + w) + "\n")
            out.write("\n")


def make_speech(a, ewt, work):
    """The long-utterance corpora (train: 3 utterances per step of --steps, dev: 8), made once."""
    paths = {p: os.path.join(work, f"speech-{p}.h5") for p in ("train", "dev")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    for part, n in (("train", 3 * a.steps + 12), ("dev", 8)):
        conllu = os.path.join(work, f"speech-{part}.conllu")
        joined_conllu(os.path.join(ewt, f"en_ewt-ud-{part}.conllu"), conllu, n)
        p = subprocess.run([a.qkv, "speech", conllu, "--out", paths[part], "--voices", "en-us", "--force"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit(f"bench: qkv speech failed (a build with QKV_SPEECH is needed for {part}):\n{p.stderr[-2000:]}")
    return paths


def spec(name, a, ewt, work):
    """(base config, --set overrides, training file, evaluation file) of a dense row."""
    base, sets = CONFIGS[name]
    sets = dict(sets)
    if name.startswith("image"):
        root = os.environ.get("QKV_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
        trn = os.path.join(root, "train-images-idx3-ubyte.gz")
        if not os.path.exists(trn):
            sys.exit(f"bench: no Fashion-MNIST in {root} (apt-get install dataset-fashion-mnist, or set "
                     "QKV_FASHION_MNIST_DIR)")
        dev = os.path.join(a.src, "data/fashion_mnist_sample/train-images-idx3-ubyte.gz")
        sets["data.train"] = trn
    else:
        paths = make_speech(a, ewt, work)
        trn, dev = paths["train"], paths["dev"]
        sets.update({"data.train": trn, "data.dev": dev, "data.held_out_voice": ""})
    return base, sets, trn, dev


def conv_flops(rows, cols, d_in, d_out, k, stride=1):
    """FLOPs of a k x k convolution of d_in to d_out channels over a rows x cols image (padding
    (k - 1) / 2 at stride 1, none at stride k): 2 * d_in * k * k * d_out per output cell."""
    return 2 * (rows // stride) * (cols // stride) * d_in * k * k * d_out


def image_flops(m, data, d_input):
    """Per image: (the input's FLOPs, the cnn2d encoder's or None) for the models of
    qkv_torch_conv.py: the stem's convolutions and the patch embedding of conv_patches, the
    blocks of cnn2d over a grid each pooling halves (rounded down, while it has 2 rows)."""
    p, R, C, d = m["patch_size"], data["image_rows"], data["image_cols"], m["d_model"]
    inp = None
    if m["input"] == "conv_patches":
        c, inp = data["image_channels"], 0
        for _ in range(m["stem_layers"]):
            inp += conv_flops(R, C, c, m["stem_channels"], 3)
            c = m["stem_channels"]
        inp += conv_flops(R, C, c, d, p, p)
    if m["encoder"] != "cnn2d":
        return inp, None
    g, enc = [R // p, C // p], 0
    for _ in range(m["n_layers"]):
        enc += conv_flops(g[0], g[1], d, d, m["cnn_kernel"])
        if m["cnn2d_pool"] != "none" and min(g) >= 2:
            g = [g[0] // 2, g[1] // 2]
    return inp, enc


def forward_flops(lens, cfg, d_input, n_tags, per_sequence, visible_pairs):
    """Matrix-product FLOPs of one forward pass of sequences of lens tokens: the input projection
    (the stem's convolutions), the layers (as bench.py counts them; cnn2d's convolutions) and the
    classifier (once per sequence for the class head)."""
    m = cfg["model"]
    d, f, L = m["d_model"], m["d_ff"], m["n_layers"]
    T = sum(lens)
    per_layer = 2 * T * d * (4 * d + 2 * f) + sum(4 * visible_pairs(n, m) * d for n in lens)
    head = 2 * (len(lens) if per_sequence else T) * d * n_tags
    inp, enc = image_flops(m, cfg["data"], d_input) if cfg["data"]["task"] == "images" else (None, None)
    inp = 2 * T * d_input * d if inp is None else len(lens) * inp
    return inp + (L * per_layer if enc is None else len(lens) * enc) + head


def label(name, cfg, generic):
    """The table's label of a dense row: bench.py's (generic), or for the stem and the CNN their
    own sizes; image rows end with their tokens an image."""
    from qkv_torch_dense import model_grid
    m, per = cfg["model"], ""
    if name.startswith("image"):
        g = model_grid(m, cfg["data"])
        per = f"/{g.rows * g.cols + g.n_prefix} tok/img"
    if name == "image_cnn":
        return (f"{name} (p{m['patch_size']}/d{m['d_model']}/L{m['n_layers']} cnn2d k{m['cnn_kernel']} "
                f"{m['cnn2d_pool']}{per})")
    text = generic(name, cfg)
    if m["input"] == "conv_patches":
        text = text.replace(f"{name} (", f"{name} (stem {m['stem_layers']}x{m['stem_channels']}/p{m['patch_size']}/", 1)
    return text[:-1] + per + ")" if per else text


def facts(c, name, a, ck, qkv_torch, visible_pairs):
    """Fills Config c (bench.py) for a dense row from its checkpoint ck: train_tokens,
    train_gflop, dev_tokens, eval_gflop, and the plan's tokens of the first --warmup steps."""
    import qkv_torch_bench
    seqs, _ = qkv_torch_bench.dense_sequences(ck, c.trn, True)
    lens = [len(s) for s in seqs]
    starts = np.concatenate([[0], np.cumsum(lens)]).tolist()
    batches = qkv_torch.plan(starts, ck.config["data"]["batch_tokens"], qkv_torch.Rng(ck.config["train"]["seed"] * 2))
    m, n_tags, d_input = ck.config["model"], len(ck.tags), seqs[0].shape[1]
    per_seq = m["output"] == "class" and ck.config["data"]["task"] != "frames"
    count = lambda bl: forward_flops(bl, ck.config, d_input, n_tags, per_seq, visible_pairs)  # noqa: E731
    after = batches[a.warmup:a.steps]
    c.first_tokens = sum(lens[s] for b in batches[:a.warmup] for s in b)
    c.train_tokens = sum(lens[s] for b in after for s in b)
    c.train_gflop = 3e-9 * sum(count([lens[s] for s in b]) for b in after)
    dev, _ = qkv_torch_bench.dense_sequences(ck, c.dev, False)
    c.dev_tokens = sum(len(s) for s in dev)
    c.eval_gflop = 1e-9 * count([len(s) for s in dev])
