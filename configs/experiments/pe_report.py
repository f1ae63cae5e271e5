"""The positional-encoding experiment's table and figure (run by run_pe_experiment.sh):
    pe_report.py OUT RESULTS SIZE MINUTES LOAD KIND...
reads OUT/ewt_KIND.eval.json (qkv eval --json --by-length), OUT/synth_KIND.report.txt (the
training's final dev report) and OUT/ends_KIND.pred.conllu (qkv tag of OUT/data/ends-test.conllu),
writes RESULTS/pe_results.md and RESULTS/pe_length.gp (gnuplot, numbers inline)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exptools import md_table, paired, pct  # noqa: E402
from pe_figure import pe_length_gp  # noqa: E402

out, results, size, minutes, load, kinds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
LABEL = {"relative": "relative (clip 8)"}
ENDS_BUCKETS = [(8, 20), (21, 32), (33, 48), (49, 64)]

ewt = {k: json.load(open(f"{out}/ewt_{k}.eval.json")) for k in kinds}
buckets = [b["bucket"] for b in ewt[kinds[0]]["by_length"]]
words = [b["words"] for b in ewt[kinds[0]]["by_length"]]


def synth(kind):
    text = open(f"{out}/synth_{kind}.report.txt").read()
    acc = float(re.search(r"accuracy ([0-9.]+)%", text).group(1))
    f1 = {}
    for tag in ("INTJ", "ADV"):
        m = re.search(rf"^\s+{tag}\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)", text, re.M)
        f1[tag] = float(m.group(3))
    return acc, f1["INTJ"], f1["ADV"]


def ends(kind):
    """Accuracy on the words tagged from the start (S*), from the end (E*) and between (M), per
    length bucket of the test file: {bucket: {"S": acc, "E": acc, "M": acc}}, and the counts."""
    counts = {}
    gold_file = f"{out}/data/ends-test.conllu"
    for _, g, p in paired(gold_file, f"{out}/ends_{kind}.pred.conllu"):
        n = len(g)
        b = next(i for i, (lo, hi) in enumerate(ENDS_BUCKETS) if lo <= n <= hi)
        for gt, pt in zip(g, p):
            c = counts.setdefault((b, gt[0]), [0, 0])
            c[0] += gt == pt
            c[1] += 1
    acc = {b: {grp: (counts[(b, grp)][0] / counts[(b, grp)][1] if (b, grp) in counts else None)
               for grp in "SEM"} for b in range(len(ENDS_BUCKETS))}
    return acc, counts


lines = ["# Positional encodings: every kind on EWT by length, the position task and the ends task", "",
         f"Size: {size}. Measured on a 2-core machine shared with other jobs ({load}): accuracies "
         "do not depend on the load, times do.", "",
         "EWT UPOS dev accuracy (%) by sentence length, trained on training sentences of at most 20 words "
         "(2 layers, d_model 64; learned table of 20 rows, positions past it clamped to the last row); "
         "synthetic position task: dev accuracy and F1 of INTJ and ADV, the two tags only position tells apart.", ""]
rows = []
for k in kinds:
    acc, intj, adv = synth(k)
    rows.append([LABEL.get(k, k), pct(ewt[k]["accuracy"])] + [pct(b["accuracy"]) for b in ewt[k]["by_length"]]
                + [f"{acc:.2f}", f"{intj:.3f}", f"{adv:.3f}"])
lines += md_table(["positional", "EWT all"] + [f"{b} words ({n})" for b, n in zip(buckets, words)]
                  + ["synthetic all", "synthetic INTJ F1", "synthetic ADV F1"], rows)

ends_acc = {k: ends(k) for k in kinds}
counts = ends_acc[kinds[0]][1]
bucket_names = [f"{lo}-{hi}" for lo, hi in ENDS_BUCKETS]
lines += ["", "Ends task (`qkv synth --task ends`): accuracy (%) on the first four words (S, counted from the "
          "start) and the last four (E, counted from the end) of test sentences, by length; trained and "
          "selected on 8-20 words. M: accuracy on the words between, all lengths.", ""]
hdr, rows = ["positional"], []
for b, name in enumerate(bucket_names):
    hdr += [f"S {name} ({counts.get((b, 'S'), [0, 0])[1]})", f"E {name} ({counts.get((b, 'E'), [0, 0])[1]})"]
hdr.append("M all")
for k in kinds:
    acc, cnt = ends_acc[k]
    row = [LABEL.get(k, k)]
    for b in range(len(ENDS_BUCKETS)):
        row += [pct(acc[b]["S"]), pct(acc[b]["E"])]
    m_ok = sum(cnt[(b, "M")][0] for b in range(len(ENDS_BUCKETS)) if (b, "M") in cnt)
    m_all = sum(cnt[(b, "M")][1] for b in range(len(ENDS_BUCKETS)) if (b, "M") in cnt)
    row.append(pct(m_ok / m_all))
    rows.append(row)
lines += md_table(hdr, rows)
lines += ["", f"Reproduce (this run: {minutes} min): `configs/experiments/run_pe_experiment.sh` with the size above "
          "(figure: pe_length.png, its script pe_length.gp)."]
open(f"{results}/pe_results.md", "w").write("\n".join(lines) + "\n")

num = lambda x: "NaN" if x is None else f"{100 * x:.2f}"  # noqa: E731
gp = pe_length_gp(kinds, buckets,
                  [[i, b] + [num(ewt[k]["by_length"][i]["accuracy"]) for k in kinds] for i, b in enumerate(buckets)],
                  bucket_names,
                  {grp: [[i, b] + [num(ends_acc[k][0][i][grp]) for k in kinds] for i, b in enumerate(bucket_names)]
                   for grp in "SE"})
open(f"{results}/pe_length.gp", "w").write("\n".join(gp) + "\n")
