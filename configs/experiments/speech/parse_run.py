"""One run of configs/experiments/speech/run.sh as a TSV row.
  parse_run.py TASK WINDOW OUT             accuracy row (run.sh's accuracy.tsv header)
  parse_run.py --cost K WINDOW OUT CORPUS  cost row (cost.tsv header)
OUT is the run folder; OUT.log its output, OUT.time GNU time -v's report."""
import csv
import re
import statistics
import sys


def gnu_time(path):
    t = {}
    for line in open(path):
        key, _, val = line.strip().rpartition(": ")
        t[key] = val
    h_m_s = [float(x) for x in t["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")]
    wall = sum(v * 60 ** i for i, v in enumerate(reversed(h_m_s)))
    cpu = float(t["User time (seconds)"]) + float(t["System time (seconds)"])
    return wall, cpu, int(t["Maximum resident set size (kbytes)"]) / 1024


def metrics(out):
    return list(csv.DictReader(open(out + "/metrics.tsv"), delimiter="\t"))


def train_us(rows):
    train = [r for r in rows if r["split"] == "train"]
    steps = train[1:] if len(train) > 1 else train
    return statistics.median(1e6 / float(r["tokens_per_sec"]) for r in steps), train


def accuracy(task, w, out):
    log = open(out + ".log").read()
    scores = {}
    for m in re.finditer(r"frames (dev|test)[^:]*: \d+ utterances, (\d+) tokens, frame accuracy ([\d.]+)%, "
                         r"[^\d]+ ([\d.]+)%", log):
        scores[m.group(1)] = (int(m.group(2)), float(m.group(3)), float(m.group(4)))
    rows = metrics(out)
    us, train = train_us(rows)
    wall, cpu, mib = gnu_time(out + ".time")
    eval_us = statistics.median(1e6 / float(r["tokens_per_sec"]) for r in rows if r["split"] == "dev")
    print("\t".join([task, "whole" if w == "0" else w, *(f"{v:.2f}" for v in scores["dev"][1:]),
                     *(f"{v:.2f}" for v in scores["test"][1:]), f"{us:.1f}", f"{eval_us:.1f}", f"{cpu:.1f}",
                     f"{mib:.0f}"]))


def cost(k, w, out, corpus):
    import h5py
    off = h5py.File(corpus, "r")["speech"]["utt_offsets"][()]
    frames = (off[-1] - off[0]) / (len(off) - 1)
    us, train = train_us(metrics(out))
    wall, cpu, mib = gnu_time(out + ".time")
    print("\t".join([k, "whole" if w == "0" else w, f"{frames:.0f}", f"{us:.1f}",
                     f"{1e6 * cpu / (len(train) * frames):.1f}", f"{mib:.0f}"]))


if sys.argv[1] == "--cost":
    cost(*sys.argv[2:6])
else:
    accuracy(*sys.argv[1:4])
