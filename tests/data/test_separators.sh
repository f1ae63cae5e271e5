#!/bin/bash
# Every Unicode White_Space character through every reader of text, qkv's and the PyTorch
# port's (python/qkv_torch_text.py, python/qkv_torch_columns.py), one table: for each separator
# (LF, the line end, aside) and a few characters that are not White_Space, what each reader
# must make of it:
#   conllu    a FORM and LEMMA "a<SEP>b" (qkv stats; qkv tag writes the file back with each
#             word line still 10 fields at LF-only line ends, the FORM as read; with a CR, a
#             segmenter's training reader too), and an UPOS "NO<SEP>UN" (an error naming the
#             line and field);
#   columns   a WNUT-like file, TAB-separated: FORM "a<SEP>b", and a line of the separator
#             alone between two sentences; and one separated by spaces (only ASCII spaces
#             separate its fields);
#   text      `qkv tag --format text`, pre-tokenized: "a<SEP>b c" is three words when the
#             separator is a blank of data/utf8.h (qkv_utf8_blank_len), else two; the
#             benchmark's text (tests/reference/bench_tag.py) counts the words read of it;
#   raw       the shipped model's segmenter: "Hello world.<SEP>Second line here." reads as
#             with a space.
# Lines end at LF (or CR LF) only: a CR elsewhere in a CoNLL-U or column file is an error
# naming its line in qkv's readers (tests/data/test_ud_eval.c: the UD scorer's) and in the port (no field holds a CR: qkv could not write it back);
# VT, FF, NEL, U+2028 and U+2029 are characters of their line, as CoNLL-U says (Python's
# universal newlines and str.splitlines() break lines at some of them: the port must not).
# The qkv Python package reads nothing itself (libqkv.so does); its # text lines are those of
# qkv tag with each separator: tests/python/test_shipped.sh.
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"
model=$QKV_SOURCE_DIR/data/models/en.h5
[ -s "$model" ] || fail "$model is missing"
# a checkpoint without a segmenter, for --format text (its tags do not matter)
quick_run "$SCRATCH/run" --set train.max_steps=2 --set data.synthetic_train=200 --set data.synthetic_dev=20
PYTHONPATH=$QKV_SOURCE_DIR/python:$QKV_SOURCE_DIR/tests/reference \
    "$PY" - "$QKV_BIN" "$model" "$SCRATCH/run/checkpoints/last.h5" "$SCRATCH" <<'PY' ||
import os, subprocess, sys
import bench_tag, qkv_torch_columns, qkv_torch_text
QKV, EN, CKPT, D = sys.argv[1:5]
WHITE_SPACE = ["\t", "\v", "\f", "\r", " ", "\x85", "\xa0", "\u1680"] + [chr(c) for c in range(0x2000, 0x200B)] + [
    "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
OTHER = ["\x1c", "\x1f", "\u180e", "\u200b", "\ufeff"]  # no White_Space: part of a word everywhere
BLANKS = {" ", "\t", "\r"} | {c for c in WHITE_SPACE if c >= "\xa0"}  # qkv_utf8_blank_len
bad = []


def check(reader, sep, got, want):
    if got != want:
        bad.append(f"{reader} U+{ord(sep):04X}: got {got!r}, want {want!r}")


def run(*args):
    p = subprocess.run([QKV, *args], capture_output=True)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def write(name, text):
    path = os.path.join(D, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def stats(path, *opts):
    """(sentences, words) of qkv stats, or its error's first line."""
    rc, out, err = run("stats", path, *opts)
    if rc:
        return err.split("\n")[0].removeprefix("qkv stats: ") if err else f"exit {rc}"
    n = dict(line.split(": ", 1) for line in out.split("\n") if line.startswith(("sentences:", "words:")))
    return int(n["sentences"]), int(n["words"])


def py(read, *args):
    try:
        return read(*args)
    except ValueError as e:
        return str(e)


def cr_error(path, line):
    return f"{path}:{line}: expected a line ending in LF or CR LF, found a CR inside the line"


def sentence(sep):
    """A CoNLL-U sentence of the words "a<SEP>b" (FORM and LEMMA) and "c"."""
    form = f"a{sep}b"
    return (f"# text = {form}c\n1\t{form}\t{form}\tNOUN\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
            "2\tc\tc\tNOUN\t_\t_\t1\tdep\t_\t_\n\n")


def tag_conllu(seps):
    """{separator: its sentence's word lines (lists of fields)} as qkv tag writes back a file of
    sentence(sep) for each of seps in turn, at LF-only line ends (one run of the model)."""
    path = write("all.conllu", "".join(map(sentence, seps)))
    rc, out, err = run("tag", "--model", EN, "--format", "conllu", path)
    sents = [[line.split("\t") for line in s.split("\n") if line and not line.startswith("#")]
             for s in out.split("\n\n") if s.strip("\n")]
    return {sep: s for sep, s in zip(seps, sents)} if rc == 0 and len(sents) == len(seps) else {"error": err}


def train_segmenter(path):
    """The first line of the error of a segmenter's training (data.task segment) on path."""
    rc, out, err = run("train", "configs/ud_ewt_tokenize.yaml", "--set", f"data.train={path}", "--set",
                       f"data.dev={path}", "--set", "train.max_steps=1", "--set", "log.progress=off", "--out",
                       os.path.join(D, "seg"), "--force")
    return err.split("\n")[0].removeprefix("qkv: ") if rc else "trained"


def conllu(sep):
    form = f"a{sep}b"
    path = write("sep.conllu", sentence(sep))
    if sep == "\r":
        want = cr_error(path, 1)  # the # text line
        check("conllu: qkv stats", sep, stats(path)[:len(want)], want)
        check("conllu: port", sep, py(qkv_torch_text.read_conllu, path)[:len(want)], want)
        check("conllu: port columns", sep, str(py(qkv_torch_columns.read_columns, path, ["upos"]))[:len(want)], want)
        check("conllu: segmenter training", sep, train_segmenter(path)[:len(want)], want)
        return
    check("conllu: qkv stats", sep, stats(path), (1, 2))
    lines = TAGGED.get(sep, TAGGED.get("error"))
    check("conllu: qkv tag", sep, [(len(f), f[1], f[9]) for f in lines] if isinstance(lines, list) else lines,
          [(10, form, "SpaceAfter=No"), (10, "c", "_")])
    check("conllu: port", sep, py(qkv_torch_text.read_conllu, path), [[(form, "NOUN"), ("c", "NOUN")]])
    got = py(qkv_torch_columns.read_columns, path, ["upos"])
    check("conllu: port columns", sep, got if isinstance(got, str) else got[:2],
          ([[form, "c"]], {"upos": ["NOUN", "NOUN"]}))
    # whitespace in UPOS: an error naming the line (qkv: and the field; the port: the tag)
    path = write("tag.conllu", f"1\ta\ta\tNO{sep}UN\t_\t_\t0\troot\t_\t_\n\n")
    want_c = f"{path}:1: expected no whitespace in field 4 (UPOS)" if sep in WHITE_SPACE else (1, 1)
    got = stats(path)
    check("conllu UPOS: qkv stats", sep, got[:len(want_c)] if isinstance(got, str) else got, want_c)
    tag = f"NO{sep}UN"
    want_py = f"{path}:1: whitespace in the tag field {tag!r}" if sep in WHITE_SPACE else [[("a", tag)]]
    check("conllu UPOS: port", sep, py(qkv_torch_text.read_conllu, path), want_py)


def columns(sep):
    path = write("sep.tsv", f"a{sep}b\tO\nc\tB-x\n{sep}\t{sep}\nd\tO\n")
    want = cr_error(path, 1) if sep == "\r" else (2, 3)
    got = stats(path, "--format", "columns")
    check("columns TAB: qkv stats", sep, got[:len(want)] if isinstance(got, str) else got, want)
    if sep == " ":
        return
    path = write("sep.txt", f"a{sep}b O\nc  B-x\n\nd O\n")
    want = cr_error(path, 1) if sep == "\r" else (2, 3)
    got = stats(path, "--format", "columns")
    check("columns spaces: qkv stats", sep, got[:len(want)] if isinstance(got, str) else got, want)


def text(sep):
    path = write("sep.txt", f"a{sep}b c\nd\n")
    want = [["a", "b", "c"], ["d"]] if sep in BLANKS else [[f"a{sep}b", "c"], ["d"]]
    rc, out, err = run("tag", CKPT, "--format", "text", path)
    sents = [[f.split("\t")[1] for f in s.split("\n") if f and not f.startswith("#")] for s in out.split("\n\n")]
    check("text: qkv tag", sep, (rc, [s for s in sents if s]), (0, want))
    check("text: port", sep, py(qkv_torch_text.read_text, path), want)
    # the benchmark's text (tests/reference/bench_tag.py) counts the words qkv reads of it
    n = bench_tag.write_text([[(f"a{sep}b", "X"), ("c", "X")]], path)
    check("text: bench_tag.write_text", sep, n, sum(map(len, qkv_torch_text.read_text(path))))


def tag_raw(seps):
    """{separator: the sentences (lists of tokens) of "Hello world.<SEP>Second line here."} as the
    shipped model's segmenter reads a file of them, a paragraph each (one run of the model)."""
    path = write("raw.txt", "\n\n".join(f"Hello world.{sep}Second line here." for sep in seps) + "\n")
    rc, out, err = run("tag", "--model", EN, path)
    pars = out.split("# newpar\n")[1:]
    if rc or len(pars) != len(seps):
        return {"error": (rc, len(pars), err)}
    return {sep: [[line.split("\t")[1] for line in s.split("\n") if line and not line.startswith("#")]
                  for s in par.split("\n\n") if s.strip("\n")] for sep, par in zip(seps, pars)}


def raw(sep):
    check("raw: qkv tag", sep, RAW.get(sep, RAW.get("error")), RAW.get(" "))


TAGGED = tag_conllu([c for c in WHITE_SPACE + OTHER if c not in "\t\r"])
RAW = tag_raw(WHITE_SPACE)
for sep in WHITE_SPACE:
    for reader in (conllu, columns, text, raw) if sep != "\t" else (text, raw):  # TAB: the field separator
        reader(sep)
for sep in OTHER:
    conllu(sep)
    text(sep)
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
    fail "a reader reads a separator differently (above)"
echo ok
