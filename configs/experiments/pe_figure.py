"""The figure of the positional-encoding experiment, pe_length.png: its gnuplot script from the
numbers (pe_report.py calls pe_length_gp), or redrawn from an existing script's numbers:
    pe_figure.py RESULTS        # rewrites RESULTS/pe_length.gp from its data blocks; then
                                # (cd RESULTS && gnuplot pe_length.gp)
Three panels: EWT UPOS dev accuracy by sentence length, and the ends task's accuracy on the
first and on the last four words by length. Each kind has a point type of its own; kinds at 0 at
every length of a panel (which draw on top of each other) are named in that panel below their
line, the y axis starting below 0 to make room."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exptools import gp_block  # noqa: E402

LABEL = {"relative": "relative (clip 8)"}
POINTS = [7, 5, 9, 11, 13, 4, 6, 8, 10, 12]


def pe_length_gp(kinds, buckets, ewt_rows, bucket_names, ends_rows):
    """The lines of pe_length.gp. ewt_rows: per bucket [index, name, value per kind] (values as
    text, percent); ends_rows: {"S": rows, "E": rows} alike."""
    gp = ["# Written by configs/experiments/run_pe_experiment.sh (pe_report.py, pe_figure.py). Edit and",
          "# rerun from this folder: gnuplot pe_length.gp"]
    gp += gp_block("ewt", ["bucket_index", "bucket"] + kinds, ewt_rows)
    for grp in "SE":
        gp += gp_block(f"ends{grp}", ["bucket_index", "bucket"] + kinds, ends_rows[grp])

    def plots(block):
        return "plot " + ", \\\n     ".join(
            f"${block} using 1:{3 + i} with linespoints lw 2 pt {POINTS[i % len(POINTS)]} dt {1 + i // 4} "
            f"title '{LABEL.get(k, k)}'" for i, k in enumerate(kinds))

    def zeros(rows):
        """The label naming the kinds at 0 at every length (none: unset)."""
        at0 = [LABEL.get(k, k) for i, k in enumerate(kinds) if all(float(r[2 + i]) == 0 for r in rows)]
        if not at0:
            return "unset label 1"
        return f"set label 1 'at 0 at every length: {', '.join(at0)}' at graph 0.03, first -8 front"

    gp += ["set terminal pngcairo size 1260,400 noenhanced font 'sans,9' background '#ffffff'",
           "set output 'pe_length.png'", "set multiplot layout 1,3", "set grid",
           "set ylabel 'accuracy (%)'", "set xlabel 'sentence length (words)'",
           f"set xrange [-0.3:{len(buckets) - 1}.3]",
           "set xtics (" + ", ".join(f"'{b}' {i}" for i, b in enumerate(buckets)) + ")",
           "set key bottom left",
           "set arrow 1 from 1.5, graph 0 to 1.5, graph 1 nohead dt 3 lc rgb '#888888'",
           "set title 'EWT UPOS dev (trained on <= 20 words)'", plots("ewt"),
           "set xtics (" + ", ".join(f"'{b}' {i}" for i, b in enumerate(bucket_names)) + ")",
           f"set xrange [-0.3:{len(bucket_names) - 1}.3]", "set yrange [-15:105]", "set ytics 0, 20, 100",
           "set arrow 1 from 0.5, graph 0 to 0.5, graph 1 nohead dt 3 lc rgb '#888888'",
           "set key off",
           "set title 'ends task: first 4 words (S, from the start)'", zeros(ends_rows["S"]), plots("endsS"),
           "set title 'ends task: last 4 words (E, from the end)'", zeros(ends_rows["E"]), plots("endsE"),
           "unset multiplot"]
    return gp


def read_blocks(path):
    """{name: (header, rows)} of the data blocks of a gnuplot script written by pe_length_gp."""
    blocks, name = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.endswith("<< EOD"):
            name, header, rows = line[1:].split()[0], None, []
        elif line == "EOD" and name:
            blocks[name] = (header, rows)
            name = None
        elif name and line.startswith("# "):
            header = line[2:].split()
        elif name:
            rows.append(line.split())
    return blocks


if __name__ == "__main__":
    results = sys.argv[1]
    path = os.path.join(results, "pe_length.gp")
    b = read_blocks(path)
    kinds = b["ewt"][0][2:]
    gp = pe_length_gp(kinds, [r[1] for r in b["ewt"][1]], b["ewt"][1], [r[1] for r in b["endsS"][1]],
                      {"S": b["endsS"][1], "E": b["endsE"][1]})
    open(path, "w").write("\n".join(gp) + "\n")
