#!/usr/bin/python3
"""qkv against PyTorch on the same CPU (issue 7). Not a test: a script that prints a table.

    /usr/bin/python3 tests/reference/bench.py [--build build] [--steps 60] [--warmup 10]
                                               [--threads 2] [--configs ref,large,ewt]
                                               [--set section.key=value]...

Every config is configs/ud_ewt_pos.yaml with data.batch_tokens = 1000 and, for ref and large,
the model's sizes overridden (ref: d_model 128, 4 heads, 2 layers, d_ff 512, full attention;
large: d_model 256, 8 heads, 4 layers, d_ff 1024, full attention); ewt is the shipped model
unchanged. Everything else comes from the shipped config, in both systems: its features, GELU,
pre-LN, dropout, and whatever it turns on of the character CNN (model.char_dim), relative
position biases (model.attn_rel_clip) and the parameter average (train.ema_decay) -- the
PyTorch port builds its model from the resolved config in qkv's checkpoint. --set adds an
override to every config (e.g. --set model.char_dim=32 to time an option the shipped config
leaves off). For each config it
runs, one after the other, each with the same thread count:
  1. qkv train for --steps steps on EWT train (train.max_steps); the metrics.tsv row at step
     --warmup and the last one give the training time after warm-up;
  2. qkv eval of the resulting checkpoint on EWT dev (words/s from --json);
  3. tests/reference/qkv_torch.py bench: the PyTorch port, weights loaded from that checkpoint,
     trained for the same steps over the same batches (qkv's epoch-1 plan, rebuilt from the
     same seed: qkv_torch.py ports data/batch.c and lib/rng.c), then evaluated on EWT dev with
     qkv's evaluation batches; PyTorch gets padded [B, L] batches of length-sorted sentences
     (little padding) and only real tokens count; it runs with GOMP_SPINCOUNT=1000 like qkv
     (train/omp_env.h), which made it ~4x faster on the loaded machine than libgomp's default;
  4. the OpenBLAS sgemm probe (tests/bench/sgemm_probe.c) with the same thread count.
Tokens per second count real words. Peak RSS is the process's maximum resident set (qkv:
/usr/bin/time; PyTorch: getrusage), data reading and evaluation included. qkv's GFLOP/s counts
the matrix products of the steps after warm-up (forward: Q/K/V/output projections, both FFN
products, the classifier, and Q K^T and P V per sentence and head; training = 3x forward for
the backward's two products per forward product; attention counts only the (query, key) pairs
a window lets through; the character CNN adds its convolution, 2 · char_width · char_dim ·
char_filters per character id (markers included), and its projection, 2 · char_filters ·
d_model per word).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import qkv_torch  # noqa: E402

CONFIGS = {  # --set overrides of configs/ud_ewt_pos.yaml
    "ref": {"model.d_model": 128, "model.n_heads": 4, "model.n_layers": 2, "model.d_ff": 512, "model.attn_window": 0},
    "large": {"model.d_model": 256, "model.n_heads": 8, "model.n_layers": 4, "model.d_ff": 1024,
              "model.attn_window": 0},
    "ewt": {},
}
BATCH_TOKENS = 1000


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p


def visible_pairs(n, m):
    """(query, key) pairs of a sentence of n words that lib/ops/attention.h computes scores for."""
    w, causal = m.get("attn_window", 0) or n, m.get("attn_causal", False)
    return sum(min(i + w, n - 1 if not causal else i) - max(i - w, 0) + 1 for i in range(n))


def flops_per_step(lens, char_ids, m, n_tags):
    """Matrix-product FLOPs of one training step: lens = the batch's sentence lengths, char_ids =
    its total character ids (markers included), m = the resolved model config."""
    d, f, L = m["d_model"], m["d_ff"], m["n_layers"]
    T = sum(lens)
    per_layer = 2 * T * d * (4 * d + 2 * f) + sum(4 * visible_pairs(n, m) * d for n in lens)
    chars = 0
    if m.get("char_dim", 0) > 0:
        chars = 2 * char_ids * m["char_width"] * m["char_dim"] * m["char_filters"] + 2 * T * m["char_filters"] * d
    return 3 * (L * per_layer + 2 * T * d * n_tags + chars)


def label(name, cfg):
    m = cfg["model"]
    extra = [f"w{m['attn_window']}"] if m.get("attn_window", 0) else []
    if m.get("attn_rel_clip", 0):
        extra.append(f"rel{m['attn_rel_clip']}")
    if m.get("char_dim", 0):
        extra.append(f"chars{m['char_dim']}x{m['char_filters']}")
    if cfg["train"].get("ema_decay", 0):
        extra.append("ema")
    return f"{name} (d{m['d_model']}/h{m['n_heads']}/L{m['n_layers']}/ff{m['d_ff']}{''.join('/' + e for e in extra)})"


def bench_config(name, a, ewt, work):
    sets = dict(CONFIGS[name])
    sets.update(kv.split("=", 1) for kv in a.set)
    sets.update({"data.batch_tokens": BATCH_TOKENS, "train.threads": a.threads, "train.max_steps": a.steps,
                 "log.every_steps": a.warmup, "log.progress": "off", "checkpoint.keep_best": "false"})
    out = os.path.join(work, name)
    cmd = ["/usr/bin/time", "-v", a.qkv, "train", os.path.join(SRC, "configs/ud_ewt_pos.yaml"), "--out", out]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ, QKV_EWT_DIR=ewt)
    p = run(cmd, env)
    rss_qkv = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    rows = [line.split("\t") for line in open(os.path.join(out, "metrics.tsv")).read().splitlines()[1:]]
    train_rows = {int(r[0]): float(r[7]) for r in rows if r[2] == "train"}
    t_qkv = train_rows[a.steps] - train_rows[a.warmup]
    ckpt = os.path.join(out, "checkpoints/last.h5")
    dev = os.path.join(ewt, "en_ewt-ud-dev.conllu")
    trn = os.path.join(ewt, "en_ewt-ud-train.conllu")
    ev = json.loads(run([a.qkv, "eval", ckpt, dev, "--json"]).stdout)

    # the batches qkv trained on (epoch 1 of its plan), for tokens and FLOPs
    ck = qkv_torch.Checkpoint(ckpt)
    m = ck.config["model"]
    data = qkv_torch.encode(ck, qkv_torch.read_conllu(trn))
    starts = data.starts
    batches = qkv_torch.plan(starts, BATCH_TOKENS, qkv_torch.Rng(ck.config["train"]["seed"] * 2))
    first = sum(starts[s + 1] - starts[s] for b in batches[:a.warmup] for s in b)
    row1 = next(r for r in rows if r[2] == "train")
    if abs(float(row1[6]) * float(row1[7]) - first) > 0.03 * first + 50:
        sys.exit(f"bench: qkv's first {a.warmup} steps had about {float(row1[6]) * float(row1[7]):.0f} tokens, "
                 f"the ported batch plan {first}: the plans differ")
    after = [[starts[s + 1] - starts[s] for s in b] for b in batches[a.warmup:a.steps]]
    tokens = sum(sum(x) for x in after)
    n_char_ids = [0 if data.chars is None else sum(int(data.char_lens[starts[s]:starts[s + 1]].sum()) for s in b)
                  for b in batches[a.warmup:a.steps]]
    gflop = sum(flops_per_step(x, c, m, len(ck.tags)) for x, c in zip(after, n_char_ids)) * 1e-9

    # PyTorch's CPU ops run on libgomp too: give it the short spin-waits that qkv sets for itself
    # (train/omp_env.h); with libgomp's default it trained ~4x slower on the loaded machine.
    pt_env = dict(os.environ, GOMP_SPINCOUNT=os.environ.get("GOMP_SPINCOUNT", "1000"))
    pt = json.loads(run(["/usr/bin/python3", os.path.join(HERE, "qkv_torch.py"), "bench", ckpt, trn, dev,
                         "--steps", str(a.steps), "--warmup", str(a.warmup), "--threads", str(a.threads)],
                        pt_env).stdout)
    if pt["train_tokens_after_warmup"] != tokens:
        sys.exit(f"bench: PyTorch trained on {pt['train_tokens_after_warmup']} tokens, qkv on {tokens}")
    return {"qkv_train": tokens / t_qkv, "pt_train": pt["train_tokens_per_sec"], "qkv_eval": ev["tokens_per_sec"],
            "pt_eval": pt["eval_tokens_per_sec"], "qkv_rss": rss_qkv, "pt_rss": pt["peak_rss_mb"],
            "gflops": gflop / t_qkv, "tokens": tokens, "label": label(name, ck.config)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--configs", default="ref,large,ewt")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra qkv --set override for every config (repeatable)")
    ap.add_argument("--ewt", help="UD English-EWT folder (default: $QKV_EWT_DIR, else data/ud_english_ewt)")
    a = ap.parse_args()
    if a.steps % a.warmup or a.steps <= a.warmup:
        sys.exit("bench: --steps must be a multiple of --warmup and larger")
    for kv in a.set:
        if "=" not in kv:
            sys.exit(f"bench: --set {kv!r}: expected section.key=value")
    a.qkv = os.path.join(a.build, "qkv")
    probe = os.path.join(a.build, "tests/bench_sgemm_probe")
    if not os.path.exists(a.qkv) or not os.path.exists(probe):
        sys.exit(f"bench: build qkv first: cmake -S {SRC} -B {a.build} && cmake --build {a.build} -j2")
    ewt = a.ewt or os.environ.get("QKV_EWT_DIR") or os.path.join(SRC, "data/ud_english_ewt")
    if not os.path.exists(os.path.join(ewt, "en_ewt-ud-train.conllu")):
        sys.exit(f"bench: no EWT in {ewt}: set QKV_EWT_DIR or --ewt (data/fetch-ud.sh UD_English-EWT DIR)")
    load0 = os.getloadavg()[0]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name in a.configs.split(","):
            results[name] = bench_config(name, a, ewt, work)
            print(f"# {name} done", file=sys.stderr)
    sg = {}
    for line in run([probe, str(a.threads), "1"]).stdout.splitlines():
        _, m, n, k, g = line.split()
        sg[(int(m), int(n), int(k))] = float(g)
    peak = max(sg.values())
    load1 = os.getloadavg()[0]
    print(f"qkv vs PyTorch {qkv_torch.torch.__version__}, EWT train/dev, {a.threads} threads each, "
          f"{a.steps} steps ({a.warmup} warm-up) of data.batch_tokens = {BATCH_TOKENS}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {load0:.1f} before, {load1:.1f} after")
    print(f"command: /usr/bin/python3 tests/reference/bench.py --steps {a.steps} --warmup {a.warmup} "
          f"--threads {a.threads} --configs {a.configs}{''.join(' --set ' + kv for kv in a.set)}")
    print()
    print("| config | train tok/s qkv | PyTorch | ratio | eval tok/s qkv | PyTorch | ratio "
          "| peak RSS MB qkv | PyTorch | qkv GFLOP/s | sgemm GFLOP/s | % of sgemm |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {r['label']} | {r['qkv_train']:.0f} | {r['pt_train']:.0f} | {r['qkv_train'] / r['pt_train']:.2f}x "
              f"| {r['qkv_eval']:.0f} | {r['pt_eval']:.0f} | {r['qkv_eval'] / r['pt_eval']:.2f}x "
              f"| {r['qkv_rss']:.0f} | {r['pt_rss']:.0f} | {r['gflops']:.1f} | {peak:.1f} "
              f"| {100 * r['gflops'] / peak:.0f}% |")
    print()
    print("sgemm probe (GFLOP/s, M N K): " + ", ".join(f"{m}x{n}x{k}: {g:.1f}" for (m, n, k), g in sg.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
