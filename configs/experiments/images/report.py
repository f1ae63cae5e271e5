"""The tables and figures of the image experiments (run.sh) from the runs in RUN_DIR: part a,
validation accuracy of attention and the CNN by training-set size; part b, of the 2-D
positional kinds; part c, each first-layer head's attention around a query from its position
term (head_maps.py's output). Writes RESULTS/images_results.md, images_size.gp and
images_heads.gp (gnuplot scripts with their data inline, drawing images_size.png and
images_heads.png). A part whose runs are missing is left out.

usage: report.py RUN_DIR RESULTS SIZE_TEXT"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from exptools import gp_block, md_table  # noqa: E402

KINDS = ["sinusoidal2d", "learned2d", "rel2d", "quadratic2d", "rope2d", "none"]


def run_info(out, name):
    """(best validation accuracy, parameters, wall seconds) of run OUT/name, or None."""
    metrics = os.path.join(out, name, "metrics.tsv")
    if not os.path.exists(metrics):
        return None
    log = open(os.path.join(out, name + ".log")).read()
    done = re.search(r"^done: \d+ steps in ([\d.]+) s", log, re.M)
    if not done:  # still training, or stopped
        return None
    rows = [l.rstrip("\n").split("\t") for l in open(metrics)][1:]
    acc = max(float(r[4]) for r in rows if r[2] == "dev")
    params = int(re.search(r"^model: (\d+) parameters", log, re.M).group(1))
    return acc, params, float(done.group(1))


def part_a(out):
    sizes = sorted({int(m.group(1)) for p in glob.glob(os.path.join(out, "size_vit_*"))
                    if (m := re.search(r"size_vit_(\d+)$", p))})
    rows, data = [], []
    for n in sizes:
        v, c = run_info(out, f"size_vit_{n}"), run_info(out, f"size_cnn_{n}")
        if not v or not c:
            continue
        rows.append([f"{n:,}", f"{100 * v[0]:.2f}", f"{100 * c[0]:.2f}", f"{100 * (v[0] - c[0]):+.2f}",
                     f"{v[1]:,} / {c[1]:,}"])
        data.append([n, f"{100 * v[0]:.2f}", f"{100 * c[0]:.2f}"])
    if not rows:
        return [], []
    md = ["## a. Attention against a CNN by training-set size", "",
          "Validation accuracy (%) of the ViT of `configs/fashion_mnist.yaml` and the cnn2d model of "
          "`configs/fashion_mnist_cnn.yaml`, the same steps of 64 images for both:", ""]
    md += md_table(["training images", "attention (ViT)", "CNN", "attention - CNN", "parameters (ViT / CNN)"], rows)
    gp = gp_block("size", ["images", "vit", "cnn"], data)
    gp += ["set terminal pngcairo size 640,420", "set output 'images_size.png'", "set logscale x",
           "set xlabel 'training images'", "set ylabel 'validation accuracy (%)'", "set key center right",
           "set grid", "set title 'Fashion-MNIST: attention and a CNN, same parameters and steps'",
           "plot $size using 1:2 with linespoints lw 2 title 'attention (ViT, patches 4x4)', "
           "$size using 1:3 with linespoints lw 2 title 'CNN (cnn2d)'"]
    return md + [""], gp


def part_b(out):
    rows = []
    for k in KINDS:
        r = run_info(out, f"pe_{k}")
        if r:
            rows.append([k, f"{r[1]:,}", f"{100 * r[0]:.2f}"])
    if not rows:
        return []
    md = ["## b. The 2-D positional kinds", "",
          "Validation accuracy (%) of the ViT of `configs/fashion_mnist.yaml` with each `model.positional`:", ""]
    return md + md_table(["model.positional", "parameters", "validation accuracy"], rows) + [""]


def read_heads(path):
    """[(head, peak dy, peak dx, weight, local3x3, entropy, [[weights]])] of a head_maps.py file."""
    heads, cur = [], None
    for line in open(path):
        f = line.split()
        if f[0] == "head":
            cur = [int(f[1]), int(f[5]), int(f[6]), float(f[8]), float(f[10]), float(f[12]), []]
            heads.append(cur)
        else:
            cur[6].append([float(x) for x in f])
    return heads


def part_c(out):
    md, gp, maps = [], [], []
    for k in ["quadratic2d", "rel2d"]:
        path = os.path.join(out, f"map_{k}.heads.txt")
        r = run_info(out, f"map_{k}")
        if not os.path.exists(path) or not r:
            continue
        heads = read_heads(path)
        if not md:
            md = ["## c. What the first layer's heads attend to (Cordonnier's figure)", "",
                  "Tokens of 2 x 2 pixels (a 14 x 14 grid, no [CLS]), mean pooling. For each head of the "
                  "first layer: the attention its learned position term alone gives to the keys around a query "
                  "at the centre of the grid (a softmax over all keys of the score bias, content scores left "
                  "out), its peak offset (rows, columns; + is down or right), the weight there, the weight on "
                  "the 3 x 3 tokens around the query, and the entropy (nats; uniform over 196 keys: 5.28).", ""]
        md.append(f"`model.positional: {k}` ({r[1]:,} parameters), validation accuracy {100 * r[0]:.2f}%:")
        md.append("")
        md += md_table(["head", "peak offset", "weight at peak", "3 x 3 weight", "entropy"],
                       [[h[0], f"({h[1]}, {h[2]})", f"{h[3]:.3f}", f"{h[4]:.3f}", f"{h[5]:.2f}"] for h in heads])
        md.append("")
        maps.append((k, heads))
    if not maps:
        return [], []
    n_heads = max(len(h) for _, h in maps)
    radius = (len(maps[0][1][0][6]) - 1) // 2
    top = max(w for _, heads in maps for h in heads for line in h[6] for w in line if w == w)
    gp = ["set terminal pngcairo size %d,%d" % (220 * n_heads, 220 * len(maps) + 40),
          "set output 'images_heads.png'", "set multiplot layout %d,%d title 'first-layer heads: attention "
          "from the position term around a query (centre); white 0, dark blue %.3f'" % (len(maps), n_heads, top),
          f"set cbrange [0:{top}]",
          "set palette defined (0 'white', 1 'dark-blue')", "unset key", "unset colorbox", "set size square",
          f"set xrange [-{radius}.5:{radius}.5]", f"set yrange [{radius}.5:-{radius}.5]",
          "set xtics 2 font ',8'", "set ytics 2 font ',8'"]
    for k, heads in maps:
        for h in heads:
            name = f"{k}_h{h[0]}"
            rows = [[dx - radius, dy - radius, w] for dy, line in enumerate(h[6]) for dx, w in enumerate(line)]
            gp += gp_block(name, ["dx", "dy", "weight"], rows)
            gp += [f"set title '{k} head {h[0]}' font ',10'", f"plot ${name} using 1:2:3 with image"]
    gp.append("unset multiplot")
    return md, gp


def main():
    out, results, size = sys.argv[1], sys.argv[2], sys.argv[3]
    a_md, a_gp = part_a(out)
    b_md = part_b(out)
    c_md, c_gp = part_c(out)
    md = ["# Image experiments", "", f"Size: {size}.", ""] + a_md + b_md + c_md
    with open(os.path.join(results, "images_results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    for name, gp in [("images_size.gp", a_gp), ("images_heads.gp", c_gp)]:
        with open(os.path.join(results, name), "w") as f:
            f.write("\n".join(gp or ["# no runs of this part"]) + "\n")


if __name__ == "__main__":
    main()
