"""The encoder comparison's tables and figure (run by run.sh):
    report.py OUT RESULTS SIZE MINUTES LOAD "LENGTHS"
reads OUT/ewt_ARM.{log,eval.json} and OUT/ewt_ARM/metrics.tsv (and its best.h5 with h5py, for the
encoder's own parameters), OUT/reach_ARM.pred.conllu against OUT/data/reach-test.conllu, and
OUT/cost_ARM_N/metrics.tsv with OUT/cost_ARM_N.eval.json; writes RESULTS/encoders_results.md and
RESULTS/encoders.gp (gnuplot, numbers inline)."""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from exptools import gp_block, md_table, paired, pct  # noqa: E402

out, results, size, minutes, load, lengths = sys.argv[1:6] + [sys.argv[6].split()]
EWT_ARMS = ["transformer", "bilstm", "cnn"]
REACH_ARMS = ["full", "window4", "cnn", "bilstm"]
LABEL = {"transformer": "transformer (full attention)", "full": "full attention", "window4": "windowed attention (w=4)",
         "cnn": "cnn", "bilstm": "bilstm"}


def train_rows(run):
    """The training rows of a run's metrics.tsv: (step, tokens_per_sec)."""
    with open(f"{run}/metrics.tsv") as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f]
    return [(int(r["step"]), float(r["tokens_per_sec"])) for r in rows if r["split"] == "train"]


def encoder_params(ckpt):
    """Parameters of the encoder alone (names encoder.*), or None without h5py."""
    try:
        import h5py
    except ImportError:
        return None
    with h5py.File(ckpt, "r") as f:
        total = 0
        for name, ds in f["params"].items():
            if name.startswith("encoder."):
                total += ds.size
        return total


lines = ["# Encoders: transformer, BiLSTM and CNN", "",
         f"Size: {size}. Measured on a 2-core machine shared with other jobs ({load}): accuracies do "
         "not depend on the load; tokens/s and times do, and compare between arms only roughly (each arm "
         "ran at another moment of the load).", ""]

rows = []
for arm in EWT_ARMS:
    log = open(f"{out}/ewt_{arm}.log").read()
    params = int(re.search(r"^model: (\d+) parameters", log, re.M).group(1))
    done = re.search(r"^done: (\d+) steps in ([0-9.]+) s", log, re.M)
    ev = json.load(open(f"{out}/ewt_{arm}.eval.json"))
    enc = encoder_params(f"{out}/ewt_{arm}/checkpoints/best.h5")
    tps = statistics.median(t for s, t in train_rows(f"{out}/ewt_{arm}"))
    rows.append([LABEL[arm], pct(ev["accuracy"]), f"{tps:.0f}", f"{ev['tokens_per_sec']:.0f}",
                 f"{params:,}", "n/a" if enc is None else f"{enc:,}", done.group(1), f"{float(done.group(2)):.0f}"])
lines += ["EWT UPOS (all of train; dev accuracy of the best checkpoint; d_model 64, word, lowercase, prefix, "
          "suffix and shape features, no character encoder, no pretrained vectors):", ""]
lines += md_table(["encoder", "dev accuracy (%)", "training tokens/s (median)", "evaluation tokens/s",
                   "parameters", "encoder parameters", "steps", "training s"], rows)

# Reach: accuracy on the probes per distance.
gold = f"{out}/data/reach-test.conllu"
reach = {}
for arm in REACH_ARMS:
    per_d = {}
    for c, g, p in paired(gold, f"{out}/reach_{arm}.pred.conllu"):
        d = int(c["distance"])
        ok = [gt == pt for gt, pt in zip(g, p) if gt != "_"]
        acc = per_d.setdefault(d, [0, 0])
        acc[0] += sum(ok)
        acc[1] += len(ok)
    reach[arm] = {d: a / n for d, (a, n) in sorted(per_d.items())}
dists = sorted(reach[REACH_ARMS[0]])
groups = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 12), (13, 16), (17, 24), (25, 32)]
rows = []
for arm in REACH_ARMS:
    row = [LABEL[arm]]
    for lo, hi in groups:
        accs = [reach[arm][d] for d in dists if lo <= d <= hi]
        row.append(pct(sum(accs) / len(accs)))
    rows.append(row)
n_per_d = sum(1 for c, g, _ in paired(gold, gold) if int(c["distance"]) == dists[0])
lines += ["", f"Reach (`qkv synth --task reach`): probe accuracy (%) by key-probe distance d, {n_per_d} test probes "
          "per distance (chance 25%); windowed attention sees 2 x 4 = 8 words to each side in two blocks, the "
          "cnn 4 (receptive field 9):", ""]
lines += md_table(["arm"] + [f"d {lo}-{hi}" for lo, hi in groups], rows)

# Cost: microseconds per token, training step (median over steps 2..) and evaluation.
cost = {}
for arm in REACH_ARMS:
    for n in lengths:
        run = f"{out}/cost_{arm}_{n}"
        steps = [t for s, t in train_rows(run) if s > 1]
        ev = json.load(open(f"{run}.eval.json"))
        cost[(arm, n)] = (1e6 / statistics.median(steps), 1e6 / ev["tokens_per_sec"])
rows = [[LABEL[arm]] + [f"{cost[(arm, n)][0]:.1f} / {cost[(arm, n)][1]:.1f}" for n in lengths] for arm in REACH_ARMS]
lines += ["", "Cost: microseconds per token, training step / evaluation, for sentences of n words (batches of "
          "4,096 tokens; the EWT sizes: d_model 64, transformer d_ff 256, bilstm hidden 48, cnn 8 blocks):", ""]
lines += md_table(["arm"] + [f"n = {n}" for n in lengths], rows)
lines += ["", f"Reproduce (this run: {minutes} min): `configs/experiments/encoders/run.sh` with the size above "
          "(figure: encoders.png, its script encoders.gp)."]
open(f"{results}/encoders_results.md", "w").write("\n".join(lines) + "\n")

gp = ["# Written by configs/experiments/encoders/run.sh (report.py). Edit and rerun from this folder:",
      "# gnuplot encoders.gp"]
gp += gp_block("reach", ["d"] + REACH_ARMS, [[d] + [f"{100 * reach[a][d]:.2f}" for a in REACH_ARMS] for d in dists])
gp += gp_block("cost", ["n"] + [f"{a}_train {a}_eval" for a in REACH_ARMS],
               [[n] + [f"{cost[(a, n)][0]:.3f} {cost[(a, n)][1]:.3f}" for a in REACH_ARMS] for n in lengths])
gp += ["set terminal pngcairo size 1100,420 noenhanced font 'sans,9' background '#ffffff'",
       "set output 'encoders.png'", "set multiplot layout 1,2", "set grid",
       "set title 'reach: probe accuracy by key distance d (chance 25%)'",
       "set xlabel 'distance d (words)'", "set ylabel 'accuracy (%)'", "set yrange [0:105]", "set xrange [0.5:32.5]",
       "set key right center",
       "set arrow 1 from 4.5, graph 0 to 4.5, graph 1 nohead dt 3 lc rgb '#888888'",
       "set arrow 2 from 8.5, graph 0 to 8.5, graph 1 nohead dt 3 lc rgb '#888888'",
       "set label 1 'cnn field' at 4.6, graph 0.05 tc rgb '#666666'",
       "set label 2 '2 x window' at 8.6, graph 0.12 tc rgb '#666666'",
       "plot " + ", \\\n     ".join(f"$reach using 1:{2 + i} with linespoints lw 2 pt 7 ps 0.6 title '{LABEL[a]}'"
                                    for i, a in enumerate(REACH_ARMS)),
       "unset arrow 1", "unset arrow 2", "unset label 1", "unset label 2",
       "set title 'cost: microseconds per token (solid: training step, dashed: evaluation)'",
       "set xlabel 'sentence length n (words)'", "set ylabel 'us per token'", "set logscale xy",
       "set autoscale y", f"set xrange [{int(lengths[0]) / 1.3}:{int(lengths[-1]) * 1.3}]", "set key top left",
       "plot " + ", \\\n     ".join(
           f"$cost using 1:{2 + 2 * i} with linespoints lw 2 pt 7 lc {i + 1} title '{LABEL[a]}', "
           f"$cost using 1:{3 + 2 * i} with linespoints lw 1 dt 2 pt 6 lc {i + 1} notitle"
           for i, a in enumerate(REACH_ARMS)),
       "unset multiplot"]
open(f"{results}/encoders.gp", "w").write("\n".join(gp) + "\n")
