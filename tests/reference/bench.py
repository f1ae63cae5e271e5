#!/usr/bin/python3
"""qkv against PyTorch on the same CPU (issue 7). Not a test: a script that prints a table.

    /usr/bin/python3 tests/reference/bench.py [--build build] [--steps 60] [--warmup 10]
                                               [--threads 2] [--configs ref,large]

For each config (ref: d_model 128, 4 heads, 2 layers, d_ff 512; large: d_model 256, 8 heads,
4 layers, d_ff 1024; both with configs/ud_ewt_pos.yaml's features, GELU, pre-LN, dropout and
data.batch_tokens = 1000) it runs, one after the other, each with the same thread count:
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
the backward's two products per forward product).
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

CONFIGS = {
    # full attention (attn_window 0): the FLOP count below assumes it
    "ref": {"model.d_model": 128, "model.n_heads": 4, "model.n_layers": 2, "model.d_ff": 512, "model.attn_window": 0},
    "large": {"model.d_model": 256, "model.n_heads": 8, "model.n_layers": 4, "model.d_ff": 1024,
              "model.attn_window": 0},
}
BATCH_TOKENS = 1000


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p


def flops_per_step(lens, m, n_tags):
    d, f, L = m["model.d_model"], m["model.d_ff"], m["model.n_layers"]
    T = sum(lens)
    per_layer = 2 * T * d * (4 * d + 2 * f) + sum(4 * n * n * d for n in lens)
    return 3 * (L * per_layer + 2 * T * d * n_tags)


def bench_config(name, a, ewt, work):
    sets = dict(CONFIGS[name])
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
    _, _, starts = qkv_torch.encode(ck, qkv_torch.read_conllu(trn))
    batches = qkv_torch.plan(starts, BATCH_TOKENS, qkv_torch.Rng(ck.config["train"]["seed"] * 2))
    first = sum(starts[s + 1] - starts[s] for b in batches[:a.warmup] for s in b)
    row1 = next(r for r in rows if r[2] == "train")
    if abs(float(row1[6]) * float(row1[7]) - first) > 0.03 * first + 50:
        sys.exit(f"bench: qkv's first {a.warmup} steps had about {float(row1[6]) * float(row1[7]):.0f} tokens, "
                 f"the ported batch plan {first}: the plans differ")
    after = [[starts[s + 1] - starts[s] for s in b] for b in batches[a.warmup:a.steps]]
    tokens = sum(sum(x) for x in after)
    gflop = sum(flops_per_step(x, CONFIGS[name], len(ck.tags)) for x in after) * 1e-9

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
            "gflops": gflop / t_qkv, "tokens": tokens}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--configs", default="ref,large")
    ap.add_argument("--ewt", help="UD English-EWT folder (default: $QKV_EWT_DIR, else data/ud_english_ewt)")
    a = ap.parse_args()
    if a.steps % a.warmup or a.steps <= a.warmup:
        sys.exit("bench: --steps must be a multiple of --warmup and larger")
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
          f"--threads {a.threads} --configs {a.configs}")
    print()
    print("| config | train tok/s qkv | PyTorch | ratio | eval tok/s qkv | PyTorch | ratio "
          "| peak RSS MB qkv | PyTorch | qkv GFLOP/s | sgemm GFLOP/s | % of sgemm |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        m = CONFIGS[name]
        label = f"{name} (d{m['model.d_model']}/h{m['model.n_heads']}/L{m['model.n_layers']}/ff{m['model.d_ff']})"
        print(f"| {label} | {r['qkv_train']:.0f} | {r['pt_train']:.0f} | {r['qkv_train'] / r['pt_train']:.2f}x "
              f"| {r['qkv_eval']:.0f} | {r['pt_eval']:.0f} | {r['qkv_eval'] / r['pt_eval']:.2f}x "
              f"| {r['qkv_rss']:.0f} | {r['pt_rss']:.0f} | {r['gflops']:.1f} | {peak:.1f} "
              f"| {100 * r['gflops'] / peak:.0f}% |")
    print()
    print("sgemm probe (GFLOP/s, M N K): " + ", ".join(f"{m}x{n}x{k}: {g:.1f}" for (m, n, k), g in sg.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
