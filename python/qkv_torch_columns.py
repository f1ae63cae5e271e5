#!/usr/bin/python3
"""The classes qkv learns for each CoNLL-U column of data.tags (data/columns.h), ported for the
PyTorch side of the benchmark (qkv_torch_parse_bench.py), which trains the heads of a joint
model on the gold classes of EWT train:

- upos, xpos, deprel: the value itself; "_" is no class.
- feats: the whole bundle as one class in UD's order (data/columns.c qkv_feats_canonical):
  features sorted by name, then each feature's ','-separated values, both case-insensitively in
  ASCII (strncasecmp) and then by bytes; "_" is a class (the empty bundle).
- lemma: the edit script turning the form into the lemma (data/lemma_script.c, after Straka 2018,
  "UDPipe 2.0 prototype at CoNLL 2018 UD Shared Task"); "_" is no class.

Case: qkv's single-character case mappings (libunistring uc_tolower, uc_toupper) are Python's
where those give one character, else the character is kept; lowercasing a whole form is
str.lower() (qkv_utf8_lower, the same full mapping: tests/reference/test_unicode_port.sh).
"""
import re

from qkv_torch_text import conllu_words

FIELDS = {"upos": 3, "xpos": 4, "feats": 5, "lemma": 2, "deprel": 7}  # data/corpus.h QKV_TAG_FIELDS


def _ascii_key(s):
    """strncasecmp's order, then the bytes: (ASCII-lowered bytes, bytes)."""
    b = s.encode("utf-8")
    return b.lower(), b


def feats_canonical(v):
    """FEATS v in UD's order ("Person=3|Number=Plur" -> "Number=Plur|Person=3", "Case=Nom,Acc" ->
    "Case=Acc,Nom")."""
    out = []
    for f in sorted(v.split("|"), key=lambda f: (_ascii_key(f.split("=", 1)[0])[0], f.encode("utf-8"))):
        name, eq, values = f.partition("=")
        if eq and "," in values:
            f = name + "=" + ",".join(sorted(values.split(","), key=_ascii_key))
        out.append(f)
    return "|".join(out)


def _upper(c):
    u = c.upper()
    return u if len(u) == 1 else c


def _lower(c):
    lo = c.lower()
    return lo if len(lo) == 1 else c


def _has_case(c):
    return _lower(c) != c or _upper(c) != c


def _casing(lemma):
    """put_casing: the lemma's case runs, "U0L1"; characters without case continue a run."""
    out, state = [], -1
    for i, c in enumerate(lemma):
        if not _has_case(c):
            continue
        up = int(_lower(c) != c)
        if up != state:
            out.append(f"{'U' if up else 'L'}{0 if state < 0 else i}")
        state = up
    return "".join(out) or "L0"


def _edits(f, lem):
    """put_edits: "-P+A;-S+B" around the longest common substring of f and lem (the first found),
    or "=LEMMA" with none or with ';' in an addition."""
    best = end_f = end_l = 0
    prev = [0] * (len(lem) + 1)
    for i in range(1, len(f) + 1):
        row = [0] * (len(lem) + 1)
        for j in range(1, len(lem) + 1):
            if f[i - 1] == lem[j - 1]:
                row[j] = prev[j - 1] + 1
                if row[j] > best:
                    best, end_f, end_l = row[j], i, j
        prev = row
    if best == 0 or ";" in lem[:end_l - best] + lem[end_l:]:
        return "=" + lem
    return f"-{end_f - best}+{lem[:end_l - best]};-{len(f) - end_f}+{lem[end_l:]}"


def _keep_initialism(form, lem):
    """keep_initialism: in a form without lower case, a letter lowered after an upper case letter
    and characters without case (not white space) is raised again."""
    if any(_upper(c) != c for c in form):
        return lem
    prev = None
    for i in range(1, len(lem)):
        if _has_case(lem[i - 1]):
            prev = i - 1
        gap = prev is not None and prev + 1 < i and not _has_case(lem[i - 1]) and not lem[i - 1].isspace()
        if gap and _upper(lem[prev]) == lem[prev] and _has_case(lem[prev]) and _upper(lem[i]) != lem[i]:
            lem[i] = _upper(lem[i])
    return lem


EDITS = re.compile(r"-([0-9]+)\+([^;]*);-([0-9]+)\+(.*)", re.S)
RUNS = re.compile(r"([UL])([0-9]+)")


def lemma_apply(script, form):
    """qkv_lemma_apply: the lemma that script gives form, or None where it does not apply."""
    casing, semi, r = script.partition(";")
    if not semi:
        return None
    keep = casing == "K"
    base = form if keep else form.lower()
    if r.startswith("="):
        mid = r[1:]
    else:
        m = EDITS.fullmatch(r)
        if not m or int(m[1]) + int(m[3]) > len(base):
            return None
        mid = m[2] + base[int(m[1]):len(base) - int(m[3])] + m[4]
    if keep:
        return mid
    runs = RUNS.findall(casing)
    if "".join(c + at for c, at in runs) != casing:
        return None
    lem, start, up = list(mid), 0, False
    for c, at in runs + [("L", str(len(lem)))]:
        for k in range(start, min(int(at), len(lem))):
            lem[k] = _upper(lem[k]) if up else lem[k]
        start, up = int(at), c == "U"
    return "".join(_keep_initialism(form, lem))


def lemma_script(form, lemma):
    """qkv_lemma_script: the lowercased edits under the lemma's casing when they give the lemma
    back, else the edits of the form as written ("K;..."), else the whole lemma ("K;=...")."""
    for s in (_casing(lemma) + ";" + _edits(form.lower(), lemma.lower()), "K;" + _edits(form, lemma)):
        if lemma_apply(s, form) == lemma:
            return s
    return "K;=" + lemma


def read_columns(path, cols):
    """(sentences, classes, heads) of a CoNLL-U file (plain or .gz): sentences as lists of words,
    classes {column: [the class string of each word, or None]} for the columns cols, heads
    [each word's HEAD, -1 for "_"]; the words and sentences of qkv_torch_text.conllu_words (a
    line that is no comment and not 10 fields is a ValueError naming the line)."""
    sents, cur, heads = [], [], []
    classes = {c: [] for c in cols}
    scripts = {}
    for word in conllu_words(path):
        if word is None:
            sents.append(cur)
            cur = []
            continue
        fields = word[1]
        form = fields[1]
        cur.append(form)
        heads.append(int(fields[6]) if fields[6].isdigit() else -1)
        for c in cols:
            v = fields[FIELDS[c]]
            if c == "feats":
                v = feats_canonical(v)
            elif v == "_":
                v = None
            elif c == "lemma":
                if (form, v) not in scripts:
                    scripts[form, v] = lemma_script(form, v)
                v = scripts[form, v]
            classes[c].append(v)
    return sents, classes, heads
