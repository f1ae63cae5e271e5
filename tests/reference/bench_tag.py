"""The tagging rows of tests/reference/bench.py: `qkv tag` against the PyTorch port's `tag` on
EWT dev as plain text (one sentence per line, words separated by spaces), whole commands timed
from start to exit (loading the model and, for PyTorch, importing torch included: what a user
waits for), with 1 and 2 threads, the systems taking turns in each round. Words per second count
the words of the text (split as both commands split it)."""
import os
import subprocess
import sys
import time

from qkv_torch_text import BLANKS  # python/ (bench.py puts it on the path)

THREADS = (1, 2)


def write_text(conllu_sentences, path):
    """EWT dev as `qkv tag --format text` reads it, words that hold a blank between words (qkv's
    set, qkv_torch_text.BLANKS) left out; returns its word count."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for sent in conllu_sentences:
            words = [w for w, _ in sent if w and not BLANKS.search(w)]
            n += len(words)
            f.write(" ".join(words) + "\n")
    return n


def timed(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return seconds, p.stdout


def bench_tag(a, ckpt, dev, src, read_conllu, work):
    """--repeats rounds of qkv tag and the port's tag on dev's text; {threads: [per-round dict]}."""
    text = os.path.join(work, "dev.txt")
    n_words = write_text(read_conllu(dev), text)
    env = dict(os.environ, GOMP_SPINCOUNT=os.environ.get("GOMP_SPINCOUNT", "1000"))
    port = ["/usr/bin/python3", os.path.join(src, "python", "qkv_torch.py"), "tag", ckpt, text]
    out = {t: [] for t in THREADS}
    for r in range(a.repeats):
        for t in THREADS:
            f = {}
            for system in ("qkv", "torch") if r % 2 == 0 else ("torch", "qkv"):
                if system == "qkv":
                    s, tagged = timed([a.qkv, "tag", ckpt, text, "--format", "text", "--threads", str(t)])
                    got = sum(1 for line in tagged.splitlines() if line[:1].isdigit())
                    if got != n_words:
                        sys.exit(f"bench: qkv tag wrote {got} words of {n_words}")
                    f["qkv"] = n_words / s
                else:
                    s, tagged = timed(port + ["--threads", str(t)], env)
                    got = sum(1 for line in tagged.splitlines() if line.strip())
                    if got != n_words:
                        sys.exit(f"bench: the port's tag wrote {got} words of {n_words}")
                    f["torch"] = n_words / s
            f["ratio"] = f["qkv"] / f["torch"]
            out[t].append(f)
            print(f"# tag round {r + 1}/{a.repeats}, {t} thread(s): {f['qkv']:.0f} vs {f['torch']:.0f} words/s",
                  file=sys.stderr)
    return n_words, out


def print_tag(n_words, out, spread):
    print()
    print(f"qkv tag against the port's tag, EWT dev as text ({n_words} words), whole commands; median (min–max) "
          "over the rounds")
    print()
    print("| threads | qkv words/s | PyTorch words/s | ratio |")
    print("|---:|---:|---:|---:|")
    for t in THREADS:
        rows = out[t]
        print(f"| {t} | {spread([f['qkv'] for f in rows], '.0f')} | {spread([f['torch'] for f in rows], '.0f')} | "
              f"{spread([f['ratio'] for f in rows], '.2f', 'x')} |")
    two = [f2["qkv"] / f1["qkv"] for f1, f2 in zip(out[1], out[2])]
    print()
    print(f"qkv tag, 2 threads against 1 (per round): {spread(two, '.2f', 'x')}")

