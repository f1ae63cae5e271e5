"""Tables (Markdown, on stdout) and the figure of configs/experiments/speech/run.sh's RUN folder.
  report.py RUN [FIGURE_DIR]   (default FIGURE_DIR: configs/experiments/speech/results)
Writes FIGURE_DIR/speech_windows.gp and speech_cost.gp (gnuplot, the numbers inline) and, with
gnuplot, their PNGs: frame accuracy against the window, and cost against the utterance length.
The window chosen per task is the smallest whose dev frame accuracy is within 1 point of the
whole utterance's (dev only: the held-out voice is reported, never chosen on)."""
import csv
import os
import subprocess
import sys

run = sys.argv[1]
fig_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
read = lambda name: list(csv.DictReader(open(os.path.join(run, name)), delimiter="\t"))
order = lambda w: 10 ** 9 if w == "whole" else int(w)
SECOND = {"phoneme": ("PER", "PER"), "upos": ("word acc", "word acc")}


def gnuplot(name, script):
    os.makedirs(fig_dir, exist_ok=True)
    path = os.path.join(fig_dir, name + ".gp")
    open(path, "w").write(f'set terminal pngcairo size 1000,420 font ",10"\nset output "{name}.png"\n' + script)
    try:
        subprocess.run(["gnuplot", name + ".gp"], check=True, cwd=fig_dir)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report.py: gnuplot: {e}", file=sys.stderr)


if os.path.exists(os.path.join(run, "accuracy.tsv")):
    rows = read("accuracy.tsv")
    blocks, plots = [], []
    for task in ("phoneme", "upos"):
        tr = sorted((r for r in rows if r["task"] == task), key=lambda r: order(r["window"]))
        if tr:
            pts = "\n".join(f"{i} {r['dev_acc']} {r['test_acc']} \"{r['window']}\"" for i, r in enumerate(tr))
            blocks.append(f"${task} << EOD\n{pts}\nEOD\n")
            plots.append(f"set title \"{task}\"\nplot ${task} using 1:2:xtic(4) with linespoints title \"dev\", "
                         f"${task} using 1:3 with linespoints title \"held-out voice\"\n")
    gnuplot("speech_windows", "# configs/experiments/speech/report.py: frame accuracy against the attention window\n"
            + "".join(blocks) + "set multiplot layout 1,2\nset xlabel \"window (frames each side)\"\n"
            "set ylabel \"frame accuracy, %\"\nset grid\nset key bottom right\n" + "".join(plots) + "unset multiplot\n")
    for task in sorted({r["task"] for r in rows}, key=lambda t: t != "phoneme"):
        tr = sorted((r for r in rows if r["task"] == task), key=lambda r: order(r["window"]))
        sec = SECOND[task][0]
        print(f"\n{task} (dev: voices en-us, en-gb, en-gb-x-rp; test: held-out voice en-029)\n")
        print(f"| window | dev frame acc | dev {sec} | test frame acc | test {sec} | train µs/frame | "
              "eval µs/frame | CPU s | peak MiB |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in tr:
            print(f"| {r['window']} | {r['dev_acc']}% | {r['dev_second']}% | {r['test_acc']}% | {r['test_second']}% | "
                  f"{r['train_us_frame']} | {r['eval_us_frame']} | {r['cpu_s']} | {r['peak_mib']} |")
        whole = [r for r in tr if r["window"] == "whole"]
        if whole:
            ref = float(whole[0]["dev_acc"])
            chosen = next(r for r in tr if float(r["dev_acc"]) >= ref - 1)
            print(f"\nchosen on dev: window {chosen['window']} (dev {chosen['dev_acc']}% against whole {ref:.2f}%); "
                  f"test {chosen['test_acc']}% against whole {whole[0]['test_acc']}% "
                  f"({float(chosen['test_acc']) - float(whole[0]['test_acc']):+.2f} points); training time per "
                  f"frame {float(chosen['train_us_frame']) / float(whole[0]['train_us_frame']):.2f}x whole's")

if os.path.exists(os.path.join(run, "cost.tsv")):
    rows = read("cost.tsv")
    by = {(r["sentences"], r["window"]): r for r in rows}
    ks = sorted({r["sentences"] for r in rows}, key=int)
    ws = sorted({r["window"] for r in rows}, key=order)
    print("\ncost against length (phoneme.yaml, one paragraph a step; whole: the tiled kernel)\n")
    print("| sentences | frames | window | train µs/frame (wall) | CPU µs/frame | CPU / whole's | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    for k in ks:
        whole = by.get((k, "whole"))
        for w in ws:
            r = by.get((k, w))
            if r:
                ratio = f"{float(r['cpu_us_frame']) / float(whole['cpu_us_frame']):.2f}" if whole else "n/a"
                print(f"| {k} | {r['frames']} | {w} | {r['train_us_frame']} | {r['cpu_us_frame']} | {ratio} | "
                      f"{r['peak_mib']} |")
    curves = [w for w in ws if sum((k, w) in by for k in ks) > 1]
    blocks = "".join(f"${'w' + w} << EOD\n" + "\n".join(f"{by[k, w]['frames']} {by[k, w]['cpu_us_frame']} "
                                                       f"{by[k, w]['peak_mib']}" for k in ks if (k, w) in by)
                     + "\nEOD\n" for w in curves)
    title = lambda w: "whole (tiled)" if w == "whole" else f"band {w}"
    plot = lambda col: "plot " + ", ".join(f"${'w' + w} using 1:{col} with linespoints title \"{title(w)}\""
                                           for w in curves) + "\n"
    gnuplot("speech_cost", "# configs/experiments/speech/report.py: cost of a training step against utterance "
            "length\n" + blocks + "set multiplot layout 1,2\nset logscale x\nset xlabel \"frames per utterance\"\n"
            "set key top left\nset grid\nset ylabel \"CPU µs per training frame\"\n" + plot(2)
            + "set ylabel \"peak resident memory, MiB\"\n" + plot(3) + "unset multiplot\n")
