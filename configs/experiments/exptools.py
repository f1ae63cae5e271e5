"""Shared by the experiment reports (pe_report.py, encoders/report.py): CoNLL-U tags of gold and
predicted files side by side, Markdown tables and gnuplot data blocks. Standard library only."""
import re


def read_conllu(path):
    """The sentences of a CoNLL-U file: a list of (comments, tags), comments a dict of the
    "# key = value" lines, tags the UPOS field of each word line (multiword and empty-node
    lines left out)."""
    sents, comments, tags = [], {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if tags:
                    sents.append((comments, tags))
                comments, tags = {}, []
            elif line.startswith("#"):
                m = re.match(r"#\s*([^=]+?)\s*=\s*(.*)$", line)
                if m:
                    comments[m.group(1)] = m.group(2)
            else:
                cols = line.split("\t")
                if cols[0].isdigit():
                    tags.append(cols[3])
    if tags:
        sents.append((comments, tags))
    return sents


def paired(gold_path, pred_path):
    """(comments, gold tags, predicted tags) per sentence; the files must have the same words."""
    gold, pred = read_conllu(gold_path), read_conllu(pred_path)
    if len(gold) != len(pred):
        raise SystemExit(f"{pred_path}: {len(pred)} sentences, {gold_path} has {len(gold)}")
    for (c, g), (_, p) in zip(gold, pred):
        if len(g) != len(p):
            raise SystemExit(f"{pred_path}: a sentence of {len(p)} words where {gold_path} has {len(g)}")
        yield c, g, p


def md_table(header, rows, left=1):
    """Markdown table lines; the first `left` columns left-aligned, the others right-aligned."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "---|" * left + "---:|" * (len(header) - left)]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return out


def gp_block(name, header, rows):
    """A gnuplot data block ($name << EOD ... EOD) with a comment line naming the columns."""
    return [f"${name} << EOD", "# " + " ".join(header)] + [" ".join(str(x) for x in r) for r in rows] + ["EOD"]


def pct(x):
    return "-" if x is None else f"{100 * x:.2f}"
