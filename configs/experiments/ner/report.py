"""The dev span F1 of a NER recipe over seeds (configs/experiments/ner/seeds.sh).

usage: report.py NAME RUN_DIR...

Reads each run's metrics.tsv (the dev rows: split "dev", column span_f1) and the wall time of
its "done:" line (RUN_DIR.log, when there is one), and prints Markdown: per run the best dev span
F1 (the evaluation best.h5 keeps under train.select_by span_f1), its epoch, the last evaluation's
F1, the largest drop from one evaluation to the next (0 when F1 never falls) and the F1 of every
evaluation; then
over the runs the mean, the spread (max - min) and the sample standard deviation of the best and
of the last F1. Errors (a run without dev span scores) are `path: what is wrong`, exit 1.
"""
import os
import re
import statistics
import sys


def dev_rows(run):
    """[(epoch, step, span_f1 in percent)] of the dev evaluations of RUN/metrics.tsv, in order."""
    path = os.path.join(run, "metrics.tsv")
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        sys.exit(f"{path}: cannot read ({e.strerror})")
    head = lines[0].split("\t") if lines else []
    if "span_f1" not in head:
        sys.exit(f"{path}:1: no span_f1 column")
    col = {name: i for i, name in enumerate(head)}
    rows = []
    for n, line in enumerate(lines[1:], 2):
        f = line.split("\t")
        if len(f) != len(head):
            sys.exit(f"{path}:{n}: {len(f)} fields, the header has {len(head)}")
        if f[col["split"]] != "dev":
            continue
        if f[col["span_f1"]] == "nan":
            sys.exit(f"{path}:{n}: a dev row without a span F1")
        rows.append((int(f[col["epoch"]]), int(f[col["step"]]), 100 * float(f[col["span_f1"]])))
    if not rows:
        sys.exit(f"{path}: no dev evaluation")
    return rows


def wall_seconds(run):
    """The training's wall time from the "done: N steps in S s" line of RUN.log, or None."""
    try:
        m = re.search(r"^done: \d+ steps in ([0-9.]+) s", open(run.rstrip("/") + ".log").read(), re.M)
    except OSError:
        return None
    return float(m.group(1)) if m else None


def summary(values):
    """mean, spread (max - min), sample standard deviation (0 for one value)."""
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return statistics.mean(values), max(values) - min(values), sd


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: report.py NAME RUN_DIR...")
    name, runs = argv[1], argv[2:]
    print(f"### {name}\n")
    print("| run | best dev span F1 | best epoch | last F1 | largest drop | wall | dev span F1 by evaluation |")
    print("|---|---:|---:|---:|---:|---:|---|")
    bests, lasts = [], []
    for run in runs:
        rows = dev_rows(run)
        # the first evaluation of the highest F1, as best.h5 (a later tie does not replace it)
        best = max(rows, key=lambda r: (r[2], -r[1]))
        f1s = [r[2] for r in rows]
        drop = max([0.0] + [a - b for a, b in zip(f1s, f1s[1:])])
        wall = wall_seconds(run)
        curve = ", ".join(f"{v:.2f}" for v in f1s)
        print(f"| {os.path.basename(run.rstrip('/'))} | {best[2]:.2f} | {best[0]} | {f1s[-1]:.2f} | {drop:.2f} | "
              f"{'' if wall is None else f'{wall:.0f} s'} | {curve} |")
        bests.append(best[2])
        lasts.append(f1s[-1])
    for label, values in (("best", bests), ("last", lasts)):
        mean, spread, sd = summary(values)
        print(f"\n{label} dev span F1 over {len(values)} runs: mean {mean:.2f}, spread {spread:.2f} (max - min), "
              f"sd {sd:.2f}")


if __name__ == "__main__":
    main(sys.argv)
