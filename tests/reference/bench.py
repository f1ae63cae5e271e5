#!/usr/bin/python3
"""qkv against PyTorch on the same CPU. Not a test: a script that prints a table.

    /usr/bin/python3 tests/reference/bench.py [--build build] [--steps 60] [--warmup 10]
                                               [--threads 2] [--configs ref,large,ewt]
                                               [--repeats 3] [--probe-seconds 0.5]
                                               [--set section.key=value]...
                                               [--gemm openblas,onednn,bf16] [--busy-core]

The rows ref, large and ewt are configs/ud_ewt_pos.yaml with data.batch_tokens = 1000 and, for
ref and large, the model's sizes overridden (ref: d_model 128, 4 heads, 2 layers, d_ff 512, full
attention; large: d_model 256, 8 heads, 4 layers, d_ff 1024, full attention); ewt is the shipped
model unchanged. Everything else comes from the shipped config, in both systems: its features, GELU,
pre-LN, dropout, and whatever it turns on of the character CNN (model.char_dim), relative
position biases (model.attn_rel_clip) and the parameter average (train.ema_decay) -- the
PyTorch port builds its model from the resolved config in qkv's checkpoint. --set adds an
override to every config (e.g. --set model.char_dim=32 to time an option the shipped config
leaves off).

--gemm runs every row once per listed backend of qkv's float products: openblas and onednn
(train.gemm; float products), bf16 (train.precision = bf16: inputs rounded to bfloat16, float
accumulation, on oneDNN's matmul); the row's label ends with [gemm=NAME]. Without it qkv runs
its default (train.gemm auto: oneDNN's sgemm when the build has it). PyTorch runs beside each.

--busy-core runs every row (and every --gemm variant of it) a second time beside a fixed
background load: one busy-loop process pinned to the last core this script may use, started by
the script before the row's first round and killed after its last (also when the script fails
or is interrupted; the loop also dies with the script, PR_SET_PDEATHSIG). Those rows' labels end
with [busy core]; their probes run beside the same load.

The rows image, image_stem, image_cnn, speech_banded and speech_whole (--configs) are
Fashion-MNIST with configs/fashion_mnist.yaml, the same transformer over a convolutional stem
(configs/fashion_mnist_stem.yaml), the CNN of configs/fashion_mnist_cnn.yaml (without its
augmentation), and speech frames of long utterances with configs/speech/phoneme.yaml, banded and
whole-utterance attention: tests/reference/bench_dense.py says what each trains and evaluates
on. Their tokens are image patches (with the [CLS] token; an image row's label gives its tokens
an image) and frames; their FLOPs count the input projection too (the stem's convolutions and
the patch embedding; the CNN's convolutions in place of the layers), and the class head once
per image.

The row joint (--configs joint) is the shipped English model's tagger and parser,
configs/ud_ewt_english.yaml unchanged (its own batches of data.batch_tokens, a BiLSTM under the
biaffine parser and softmax heads for UPOS, XPOS, FEATS and LEMMA) on EWT train and dev; the
port trains it on every head's loss (python/qkv_torch_parse_bench.py). Its FLOPs count the
BiLSTM and the heads (tests/reference/bench_parse.py: the formulas, and where the port's
evaluation does less than qkv's: each word's best head, no tree). Measured on an idle machine:
  QKV_EWT_DIR=/path/to/ud_english_ewt /usr/bin/python3 tests/reference/bench.py --configs joint --repeats 3

The row quickstart is the README's first command, configs/quickstart.yaml unchanged (its own
batches of 500 tokens) on the shipped EWT sample (train and dev); under the table, the seconds
one epoch of it takes at each system's median training speed. The rows tag (after ewt in
--configs) time `qkv tag` against the port's `tag` on EWT dev as text with the ewt row's last
model, with 1 and 2 threads: tests/reference/bench_tag.py.

The machine may be shared, so each config runs --repeats rounds, and in every round the two
systems take turns (round 1: qkv then PyTorch, round 2: PyTorch then qkv, ...), each with the
same thread count:
  - qkv: `qkv train` for --steps steps on EWT train (train.max_steps; the metrics.tsv row at
    step --warmup and the last one give the training time after warm-up), then `qkv eval` of
    the resulting checkpoint on EWT dev (its --json seconds and words/s);
  - PyTorch: python/qkv_torch.py bench: the PyTorch port, weights loaded from the
    latest qkv checkpoint of this config (the same round's when qkv went first, the previous
    round's otherwise: the values do not change the work), trained for the same steps over
    the same batches (qkv's epoch-1 plan, rebuilt from the same seed: qkv_torch.py ports
    data/batch.c and lib/rng.c), then evaluated on EWT dev with qkv's evaluation batches;
    PyTorch gets padded [B, L] batches of length-sorted sentences (little padding) and only
    real tokens count; it runs with GOMP_SPINCOUNT=1000 like qkv (train/omp_env.h), which made
    it ~4x faster on the loaded machine than libgomp's default.
The GEMM probe (tests/bench/sgemm_probe.c, --probe-seconds per shape and backend, the same
thread count) runs before the round's first run and after each run (qkv train, qkv eval, the
PyTorch process). It times every backend of float products the build has: OpenBLAS's sgemm,
oneDNN's sgemm and qkv's bf16 matmul (its conversion to bf16 counted), on four shapes each;
a backend's peak is its best shape. A probe's f32 peak is the best of the two float backends
(OpenBLAS, oneDNN; bf16 is reported, never divided by), and the footer says which backend gave
it in how many probes. A measurement's "% of f32 peak" divides its GFLOP/s by the mean of the
f32 peaks of the two probes just before and just after it (PyTorch's training and evaluation
share one process, hence the same two probes).

Tokens per second count real words. Peak RSS is the process's maximum resident set (qkv: of
`qkv train`, /usr/bin/time; PyTorch: getrusage of its one process), data reading and the
end-of-training evaluation included. GFLOP/s counts matrix products only. The forward pass of a
set of sentences counts: Q/K/V/output projections, both FFN products and the classifier,
2 · in · out per word each; Q K^T and P V, 2 · d_head per (query, key) pair per head each,
counting only the pairs a window lets through; the character CNN's convolution, 2 · char_width
· char_dim · char_filters per character id (markers included), and its projection, 2 ·
char_filters · d_model per word. Training counts the forward of the steps after warm-up times
3 (the backward's two products per forward product); evaluation counts the forward of the whole
EWT dev set. PyTorch's GFLOP/s use the same counts (its padding is not counted).

The table gives, per config and column, the median over the rounds with the range (min–max);
a ratio qkv/PyTorch is taken within each round, then its median and range. The footer gives
the 1/5/15-minute load average (os.getloadavg, which counts the benchmark's own threads
while it runs) before the run, at the start of every round and after, and the probe's
min/median/max of each backend's peak over the whole run and its median per shape.
"""
import argparse
import contextlib
import ctypes
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "python"))
import qkv_torch  # noqa: E402
import bench_dense  # noqa: E402  (beside this file)
import bench_parse  # noqa: E402  (beside this file)
import bench_tag  # noqa: E402  (beside this file)

CONFIGS = {  # --set overrides of configs/ud_ewt_pos.yaml
    "ref": {"model.d_model": 128, "model.n_heads": 4, "model.n_layers": 2, "model.d_ff": 512, "model.attn_window": 0},
    "large": {"model.d_model": 256, "model.n_heads": 8, "model.n_layers": 4, "model.d_ff": 1024,
              "model.attn_window": 0},
    "ewt": {},
}
BATCH_TOKENS = 1000
MAIN_JOB = "quickstart"  # the README's first command: configs/quickstart.yaml on the shipped sample
GEMMS = {  # --gemm: qkv's --set overrides for each backend of its float products
    "openblas": {"train.gemm": "openblas", "train.precision": "f32"},
    "onednn": {"train.gemm": "onednn", "train.precision": "f32"},
    "bf16": {"train.precision": "bf16"},
}
F32_BACKENDS = ("openblas", "onednn")  # the probe's float backends: the f32 peak is the best of them


def spec(name, a, ewt, work):
    """(base config, --set overrides, training file, evaluation file) of a row."""
    if name in bench_dense.CONFIGS:
        return bench_dense.spec(name, a, ewt, work)
    if name in bench_parse.CONFIGS:
        return bench_parse.spec(name, ewt)
    if name == MAIN_JOB:
        sample = os.path.join(SRC, "data/ud_english_ewt_sample")
        return ("configs/quickstart.yaml", {}, os.path.join(sample, "en_ewt-sample-train.conllu.gz"),
                os.path.join(sample, "en_ewt-sample-dev.conllu.gz"))
    sets = dict(CONFIGS[name], **{"data.batch_tokens": BATCH_TOKENS})
    return ("configs/ud_ewt_pos.yaml", sets, os.path.join(ewt, "en_ewt-ud-train.conllu"),
            os.path.join(ewt, "en_ewt-ud-dev.conllu"))


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p


def visible_pairs(n, m):
    """(query, key) pairs of a sentence of n words that lib/ops/attention.h computes scores for."""
    w, causal = m["attn_window"] or n, m["attn_causal"]
    return sum(min(i + w, n - 1 if not causal else i) - max(i - w, 0) + 1 for i in range(n))


def forward_flops(lens, char_ids, m, n_tags):
    """Matrix-product FLOPs of one forward pass: lens = the sentences' lengths, char_ids = their
    total character ids (markers included), m = the resolved model config."""
    d, f, L = m["d_model"], m["d_ff"], m["n_layers"]
    T = sum(lens)
    per_layer = 2 * T * d * (4 * d + 2 * f) + sum(4 * visible_pairs(n, m) * d for n in lens)
    chars = 0
    if m["char_dim"] > 0:
        chars = 2 * char_ids * m["char_width"] * m["char_dim"] * m["char_filters"] + 2 * T * m["char_filters"] * d
    return L * per_layer + 2 * T * d * n_tags + chars


def char_ids(data, sentences):
    if data.chars is None:
        return 0
    return sum(int(data.char_lens[data.starts[s]:data.starts[s + 1]].sum()) for s in sentences)


def label(name, cfg):
    m = cfg["model"]
    extra = [f"w{m['attn_window']}"] if m["attn_window"] else []
    if m["attn_rel_clip"]:
        extra.append(f"rel{m['attn_rel_clip']}")
    if m["char_dim"]:
        extra.append(f"chars{m['char_dim']}x{m['char_filters']}")
    if cfg["train"]["ema_decay"]:
        extra.append("ema")
    return f"{name} (d{m['d_model']}/h{m['n_heads']}/L{m['n_layers']}/ff{m['d_ff']}{''.join('/' + e for e in extra)})"


def f32_peak(probe_run):
    """(backend, GFLOP/s) of the best float backend of one probe run (its best shape)."""
    return max(((b, max(sg.values())) for b, sg in probe_run.items() if b in F32_BACKENDS), key=lambda x: x[1])


class Probe:
    """The GEMM probe of every backend the build has; keeps every run's per-backend, per-shape figures."""

    def __init__(self, path, threads, seconds):
        self.cmd = [path, str(threads), str(seconds)]
        self.runs = []  # {backend: {(M, N, K): GFLOP/s}}

    def __call__(self):
        """Runs the probe; returns its f32 peak."""
        runs = {}
        for line in run(self.cmd).stdout.splitlines():
            b, m, n, k, g = line.split()
            runs.setdefault(b, {})[(int(m), int(n), int(k))] = float(g)
        self.runs.append(runs)
        return f32_peak(runs)[1]

    def summary(self):
        """The footer's lines: each backend's peak over the run, the f32 peak's backend."""
        lines = []
        for b in self.runs[0]:
            best = [max(r[b].values()) for r in self.runs]
            lines.append(f"{b} probe, best shape (GFLOP/s, {len(best)} probes): min {min(best):.1f}, median "
                         f"{statistics.median(best):.1f}, max {max(best):.1f}; median per shape (M N K): "
                         + ", ".join(f"{m}x{n}x{k}: {statistics.median(r[b][(m, n, k)] for r in self.runs):.1f}"
                                     for (m, n, k) in self.runs[0][b]))
        winners = [f32_peak(r)[0] for r in self.runs]
        lines.append("f32 peak (the divisor of % of f32 peak): the best of "
                     + ", ".join(b for b in F32_BACKENDS if b in self.runs[0]) + "; "
                     + ", ".join(f"{b} in {winners.count(b)} of {len(winners)} probes"
                                 for b in F32_BACKENDS if winners.count(b)))
        return lines


class BusyCore:
    """One busy-loop process pinned to one core while the with block runs; killed on leaving it,
    whatever the reason, and by the kernel should this script die first (PR_SET_PDEATHSIG)."""

    def __init__(self, cpu):
        self.cpu, self.p = cpu, None

    def _child(self):
        os.sched_setaffinity(0, {self.cpu})
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    def __enter__(self):
        self.p = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=self._child)
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait()
        return False


class Variant:
    """How a row runs: qkv's extra --set overrides (--gemm), beside a busy core or not."""

    def __init__(self, gemm, busy):
        self.gemm, self.busy = gemm, busy
        self.sets = dict(GEMMS[gemm]) if gemm else {}
        self.tag = (f" [gemm={gemm}]" if gemm else "") + (" [busy core]" if busy else "")
        self.dir = (f"-{gemm}" if gemm else "") + ("-busy" if busy else "")


class Config:
    """One config's fixed facts (FLOP counts, token counts), read from its first checkpoint."""

    def __init__(self, name, a, ewt, ckpt, metrics_rows, variant):
        _, _, self.trn, self.dev = spec(name, a, ewt, a.work)
        ck = qkv_torch.Checkpoint(ckpt)
        m, n_tags = ck.config["model"], len(ck.tags)
        if name in bench_dense.CONFIGS:
            self.label = bench_dense.label(name, ck.config, label) + variant.tag
        else:
            self.label = (bench_parse.label if name in bench_parse.CONFIGS else label)(name, ck.config) + variant.tag
        if name in bench_parse.CONFIGS:
            bench_parse.facts(self, a, ck, qkv_torch, char_ids)
            self.check_plan(a, metrics_rows, self.first_tokens)
            return
        if name in bench_dense.CONFIGS:
            bench_dense.facts(self, name, a, ck, qkv_torch, visible_pairs)
            self.check_plan(a, metrics_rows, self.first_tokens)
            return
        data = qkv_torch.encode(ck, qkv_torch.read_conllu(self.trn))
        starts = data.starts
        self.epoch_tokens = starts[-1]
        batches = qkv_torch.plan(starts, ck.config["data"]["batch_tokens"], qkv_torch.Rng(ck.config["train"]["seed"] * 2))
        self.check_plan(a, metrics_rows, sum(starts[s + 1] - starts[s] for b in batches[:a.warmup] for s in b))
        after = batches[a.warmup:a.steps]
        self.train_tokens = sum(starts[s + 1] - starts[s] for b in after for s in b)
        self.train_gflop = 3e-9 * sum(forward_flops([starts[s + 1] - starts[s] for s in b], char_ids(data, b), m,
                                                    n_tags) for b in after)
        dv = qkv_torch.encode(ck, qkv_torch.read_conllu(self.dev))
        every = range(len(dv.starts) - 1)
        self.dev_tokens = dv.starts[-1]
        self.eval_gflop = 1e-9 * forward_flops([dv.starts[s + 1] - dv.starts[s] for s in every],
                                               char_ids(dv, every), m, n_tags)


    @staticmethod
    def check_plan(a, metrics_rows, first):
        """Exits unless qkv's first --warmup steps (metrics.tsv) had the ported plan's tokens."""
        row1 = next(r for r in metrics_rows if r[2] == "train")
        if abs(float(row1[6]) * float(row1[7]) - first) > 0.03 * first + 50:
            sys.exit(f"bench: qkv's first {a.warmup} steps had about {float(row1[6]) * float(row1[7]):.0f} tokens, "
                     f"the ported batch plan {first}: the plans differ")


def run_qkv(name, a, ewt, out, variant):
    """qkv train then qkv eval; returns (train_seconds_after_warmup, rss_mb, metrics_rows, eval_json),
    calling a.probe() after each."""
    base, sets, _, dev = spec(name, a, ewt, a.work)
    sets.update(kv.split("=", 1) for kv in a.set)
    sets.update(variant.sets)
    sets.update({"train.threads": a.threads, "train.max_steps": a.steps,
                 "log.every_steps": a.warmup, "log.progress": "off", "checkpoint.keep_best": "false"})
    cmd = ["/usr/bin/time", "-v", a.qkv, "train", os.path.join(SRC, base), "--out", out]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    p = run(cmd, dict(os.environ, QKV_EWT_DIR=ewt))
    g_train = a.probe()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    rows = [line.split("\t") for line in open(os.path.join(out, "metrics.tsv")).read().splitlines()[1:]]
    train_rows = {int(r[0]): float(r[7]) for r in rows if r[2] == "train"}
    ev = json.loads(run([a.qkv, "eval", os.path.join(out, "checkpoints/last.h5"), dev, "--json"]).stdout)
    g_eval = a.probe()
    return train_rows[a.steps] - train_rows[a.warmup], rss, rows, ev, g_train, g_eval


def run_torch(a, cfg, ckpt):
    # PyTorch's CPU ops run on libgomp too: give it the short spin-waits that qkv sets for itself
    # (train/omp_env.h); with libgomp's default it trained ~4x slower on the loaded machine.
    env = dict(os.environ, GOMP_SPINCOUNT=os.environ.get("GOMP_SPINCOUNT", "1000"))
    pt = json.loads(run(["/usr/bin/python3", os.path.join(SRC, "python", "qkv_torch.py"), "bench", ckpt, cfg.trn, cfg.dev,
                         "--steps", str(a.steps), "--warmup", str(a.warmup), "--threads", str(a.threads)],
                        env).stdout)
    if pt["train_tokens_after_warmup"] != cfg.train_tokens:
        sys.exit(f"bench: PyTorch trained on {pt['train_tokens_after_warmup']} tokens, qkv on {cfg.train_tokens}")
    return pt, a.probe()


def bench_config(name, a, ewt, work, variant):
    """--repeats rounds of one config; returns (Config, [one dict of figures per round])."""
    cfg, ckpt, rounds = None, None, []
    for r in range(a.repeats):
        load = os.getloadavg()
        g0 = a.probe()
        q = t = None
        for system in ("qkv", "torch") if r % 2 == 0 else ("torch", "qkv"):
            if system == "qkv":
                out = os.path.join(work, f"{name}{variant.dir}-{r + 1}")
                g_before = t[1] if t else g0
                q = run_qkv(name, a, ewt, out, variant) + (g_before,)
                ckpt = os.path.join(out, "checkpoints/last.h5")
                if cfg is None:
                    cfg = Config(name, a, ewt, ckpt, q[2], variant)
                    if q[3]["words"] + q[3]["untagged"] != cfg.dev_tokens:
                        sys.exit(f"bench: qkv eval counted {q[3]['words'] + q[3]['untagged']} words of EWT dev, "
                                 f"the port {cfg.dev_tokens}")
            else:
                g_before = q[5] if q else g0
                t = run_torch(a, cfg, ckpt) + (g_before,)
        t_train, rss, _, ev, g_train, g_eval, g_q0 = q
        pt, g_pt1, g_pt0 = t
        f = {"load": load,
             "qkv_train": cfg.train_tokens / t_train, "pt_train": pt["train_tokens_per_sec"],
             "qkv_eval": ev["tokens_per_sec"], "pt_eval": pt["eval_tokens_per_sec"],
             "qkv_rss": rss, "pt_rss": pt["peak_rss_mb"],
             "qkv_train_gf": cfg.train_gflop / t_train, "qkv_eval_gf": cfg.eval_gflop / ev["seconds"],
             "pt_train_gf": cfg.train_gflop * pt["train_tokens_per_sec"] / cfg.train_tokens,
             "pt_eval_gf": cfg.eval_gflop * pt["eval_tokens_per_sec"] / cfg.dev_tokens}
        f["train_ratio"] = f["qkv_train"] / f["pt_train"]
        f["eval_ratio"] = f["qkv_eval"] / f["pt_eval"]
        f["qkv_train_pct"] = 100 * f["qkv_train_gf"] / ((g_q0 + g_train) / 2)
        f["qkv_eval_pct"] = 100 * f["qkv_eval_gf"] / ((g_train + g_eval) / 2)
        f["pt_train_pct"] = 100 * f["pt_train_gf"] / ((g_pt0 + g_pt1) / 2)
        f["pt_eval_pct"] = 100 * f["pt_eval_gf"] / ((g_pt0 + g_pt1) / 2)
        rounds.append(f)
        print(f"# {name}{variant.tag} round {r + 1}/{a.repeats}: train {f['qkv_train']:.0f} vs {f['pt_train']:.0f} "
              f"tok/s, eval {f['qkv_eval']:.0f} vs {f['pt_eval']:.0f} tok/s; % of f32 peak: train {f['qkv_train_pct']:.0f} "
              f"vs {f['pt_train_pct']:.0f}, eval {f['qkv_eval_pct']:.0f} vs {f['pt_eval_pct']:.0f}", file=sys.stderr)
    return cfg, rounds


def spread(values, fmt, unit=""):
    """'median (min–max)' of values; just the value when there is one."""
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:{fmt}}{unit}"
    return f"{med:{fmt}}{unit} ({min(values):{fmt}}–{max(values):{fmt}})"


COLUMNS = [  # (header, key, format, unit)
    ("train tok/s qkv", "qkv_train", ".0f", ""), ("PyTorch", "pt_train", ".0f", ""), ("ratio", "train_ratio", ".2f", "x"),
    ("eval tok/s qkv", "qkv_eval", ".0f", ""), ("PyTorch", "pt_eval", ".0f", ""), ("ratio", "eval_ratio", ".2f", "x"),
    ("peak RSS MB qkv", "qkv_rss", ".0f", ""), ("PyTorch", "pt_rss", ".0f", ""),
    ("qkv train GFLOP/s", "qkv_train_gf", ".1f", ""), ("% of f32 peak", "qkv_train_pct", ".0f", "%"),
    ("qkv eval GFLOP/s", "qkv_eval_gf", ".1f", ""), ("% of f32 peak", "qkv_eval_pct", ".0f", "%"),
    ("PyTorch train % of f32 peak", "pt_train_pct", ".0f", "%"),
    ("PyTorch eval % of f32 peak", "pt_eval_pct", ".0f", "%"),
]


def fmt_load(load):
    return "/".join(f"{x:.2f}" for x in load)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--configs", default="ref,large,ewt")
    ap.add_argument("--repeats", type=int, default=3, help="rounds per config (default 3)")
    ap.add_argument("--probe-seconds", type=float, default=0.5,
                    help="seconds per shape and backend of each GEMM probe (default 0.5)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra qkv --set override for every config (repeatable)")
    ap.add_argument("--ewt", help="UD English-EWT folder (default: $QKV_EWT_DIR, else data/ud_english_ewt)")
    ap.add_argument("--gemm", help="run qkv's rows once per backend of its float products, a comma-separated list "
                                   "of " + ", ".join(GEMMS) + " (default: qkv's own default, train.gemm auto)")
    ap.add_argument("--busy-core", action="store_true",
                    help="run every row a second time beside one busy-loop process pinned to one core")
    a = ap.parse_args()
    gemms = a.gemm.split(",") if a.gemm else [None]
    for g in gemms:
        if g is not None and g not in GEMMS:
            sys.exit(f"bench: --gemm: unknown backend {g!r} (known: {', '.join(GEMMS)})")
    if a.warmup <= 0 or a.steps % a.warmup or a.steps <= a.warmup:
        sys.exit("bench: --steps must be a multiple of --warmup and larger")
    if a.repeats < 1:
        sys.exit("bench: --repeats must be at least 1")
    if a.probe_seconds <= 0:
        sys.exit("bench: --probe-seconds must be positive")
    for kv in a.set:
        if "=" not in kv:
            sys.exit(f"bench: --set {kv!r}: expected section.key=value")
    names = a.configs.split(",")
    for name in names:
        if name not in CONFIGS and name not in bench_dense.CONFIGS and name not in bench_parse.CONFIGS \
                and name not in (MAIN_JOB, "tag"):
            sys.exit(f"bench: --configs: unknown config {name!r} (known: {', '.join(CONFIGS)}, "
                     f"{', '.join(bench_dense.CONFIGS)}, {', '.join(bench_parse.CONFIGS)}, {MAIN_JOB}, tag)")
    if "tag" in names and ("ewt" not in names or names.index("ewt") > names.index("tag")):
        sys.exit("bench: --configs: tag times qkv tag on the ewt row's model: name ewt before it")
    a.qkv = os.path.join(a.build, "qkv")
    probe = os.path.join(a.build, "tests/bench_sgemm_probe")
    if not os.path.exists(a.qkv) or not os.path.exists(probe):
        sys.exit(f"bench: build qkv and its GEMM probe first (the probe is a test program): cmake -S {SRC} "
                 f"-B {a.build} -DBUILD_TESTING=ON && cmake --build {a.build} -j2")
    a.probe = Probe(probe, a.threads, a.probe_seconds)
    have = {line.split()[0] for line in run(a.probe.cmd[:1] + ["1", "0.001", "all", "8x8x8"]).stdout.splitlines()}
    for g in gemms:
        if g and g != "openblas" and "onednn" not in have:
            sys.exit(f"bench: --gemm {g} needs a build with oneDNN (apt-get install libdnnl-dev, configure, build)")
    variants = [Variant(g, busy) for g in gemms for busy in ((False, True) if a.busy_core else (False,))]
    busy_cpu = max(os.sched_getaffinity(0))
    # SIGTERM (a killed job) unwinds like an exception, so that a busy core's process is stopped.
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    ewt = a.ewt or os.environ.get("QKV_EWT_DIR") or os.path.join(SRC, "data/ud_english_ewt")
    needs_ewt = [n for n in names if n != MAIN_JOB and not n.startswith("image")]  # the others read EWT
    if needs_ewt and not os.path.exists(os.path.join(ewt, "en_ewt-ud-train.conllu")):
        sys.exit(f"bench: no EWT in {ewt} for {', '.join(needs_ewt)}: set QKV_EWT_DIR or --ewt "
                 "(data/fetch-ud.sh UD_English-EWT DIR)")
    load0, start = os.getloadavg(), time.gmtime()
    results, tagging = {}, {}
    a.src = SRC
    with tempfile.TemporaryDirectory() as work:
        a.work = work
        for name in names:
            for v in variants:
                with BusyCore(busy_cpu) if v.busy else contextlib.nullcontext():
                    if name == "tag":
                        ckpt = os.path.join(work, f"ewt{v.dir}-{a.repeats}", "checkpoints/last.h5")
                        tagging[v.tag] = bench_tag.bench_tag(a, ckpt, results["ewt" + v.tag][0].dev, SRC,
                                                             qkv_torch.read_conllu, work)
                    else:
                        results[name + v.tag] = bench_config(name, a, ewt, work, v)
    load1 = os.getloadavg()
    print(f"qkv vs PyTorch {qkv_torch.torch.__version__}, {a.threads} threads each, {a.steps} steps ({a.warmup} "
          f"warm-up); EWT rows: EWT train/dev, data.batch_tokens = {BATCH_TOKENS}; joint: the shipped English "
          f"model's config on EWT train/dev (its own data.batch_tokens); quickstart: its own config on the "
          f"shipped EWT sample; image and speech rows: "
          f"tests/reference/bench_dense.py; {a.repeats} rounds per "
          f"config, the systems taking turns; {time.strftime('%Y-%m-%d %H:%M UTC', start)}")
    print("% of f32 peak: GFLOP/s over the f32 peak of the GEMM probes around the measurement (the best of "
          + ", ".join(b for b in F32_BACKENDS if b in a.probe.runs[0]) + "; the footer says which)"
          + (f"; [busy core]: beside one busy-loop process on CPU {busy_cpu}" if a.busy_core else ""))
    print("command: /usr/bin/python3 tests/reference/bench.py " + shlex.join(sys.argv[1:]))
    print("median (min–max) over the rounds; ratios per round")
    print()
    print("| config | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for name, (cfg, rounds) in results.items():
        print(f"| {cfg.label} | " + " | ".join(spread([f[k] for f in rounds], fm, u) for _, k, fm, u in COLUMNS) + " |")
    for key in (k for k in results if k.split(" [")[0] == MAIN_JOB):
        cfg, rounds = results[key]
        print()
        print(f"{key} (the README's first command), one epoch of {cfg.epoch_tokens} words: "
              f"qkv {cfg.epoch_tokens / statistics.median(f['qkv_train'] for f in rounds):.1f} s, PyTorch "
              f"{cfg.epoch_tokens / statistics.median(f['pt_train'] for f in rounds):.1f} s "
              "(at the median training tokens/s)")
    for tag, t in tagging.items():
        if tag:
            print()
            print(f"tag rows{tag}:")
        bench_tag.print_tag(*t, spread)
    print()
    print("load average (1/5/15 min): " + f"{fmt_load(load0)} before; "
          + "; ".join(f"{name} round {i + 1} {fmt_load(f['load'])}" for name, (_, rounds) in results.items()
                      for i, f in enumerate(rounds)) + f"; {fmt_load(load1)} after")
    for line in a.probe.summary():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
