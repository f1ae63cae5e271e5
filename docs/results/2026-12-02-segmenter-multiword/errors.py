# Where a segmenter's tokens, sentences and multiword tokens go wrong, counted from the CoNLL-U
# that qkv tag writes for a gold file's raw text (independent of qkv's own scorer).
#   python3 errors.py raw GOLD.conllu > raw.txt      # each paragraph's text, a blank line after
#   qkv tag TAGGER.h5 --format text --tokenizer SEG.h5 < raw.txt > sys.conllu
#   python3 errors.py score GOLD.conllu sys.conllu
# Paragraphs and their text as data/segment.h builds them: # newpar / # newdoc begin one, the
# sentences' # text lines are joined by a space unless the last token has SpaceAfter=No.
import collections, re, sys


def read_gold(path):
    data = open(path, encoding="utf-8").read()
    paragraphs = bool(re.search(r"^# new(par|doc)", data, re.M))
    pars, cur, prev_nospace = [], None, False
    for block in data.split("\n\n"):
        lines = [l for l in block.split("\n") if l]
        rows = [l.split("\t") for l in lines if not l.startswith("#")]
        if not rows:
            continue
        comments = [l for l in lines if l.startswith("#")]
        text = re.sub(r"^# text\s*=\s?", "", [c for c in comments if re.match(r"# text\s*=", c)][0])
        if cur is None or not paragraphs or any(re.match(r"# new(par|doc)\b", c) for c in comments):
            cur = {"text": "", "tokens": [], "sents": []}
            pars.append(cur)
        elif not prev_nospace:
            cur["text"] += " "
        base, toks, skip = len(cur["text"]), [], 0
        cur["text"] += text
        for r in rows:
            if "." in r[0]:
                continue
            if "-" in r[0]:
                skip = int(r[0].split("-")[1])
                toks.append([r[1], "SpaceAfter=No" in r[9], []])
            elif skip:
                toks[-1][2].append(r[1])
                skip = 0 if int(r[0]) >= skip else skip
            else:
                toks.append([r[1], "SpaceAfter=No" in r[9], None])
        p = 0
        for form, _, words in toks:
            while text[p].isspace():
                p += 1
            assert text.startswith(form, p), (form, text[p:])
            ends, q = [], p
            for w in (words or [])[:-1]:
                q += len(w)
                ends.append(base + q)
            cur["tokens"].append((base + p, base + p + len(form), tuple(ends)))
            p += len(form)
        cur["sents"].append((cur["tokens"][-len(toks)][0], cur["tokens"][-1][1]))
        prev_nospace = toks[-1][1]
    return pars


def read_system(path, text):
    """Tokens (start, end, word ends) and sentences (start, end) of qkv tag's CoNLL-U."""
    pos, toks, sents = 0, [], []
    for block in open(path, encoding="utf-8").read().split("\n\n"):
        first, skip = len(toks), 0
        for l in block.split("\n"):
            if not l or l.startswith("#"):
                continue
            f = l.split("\t")
            if "-" in f[0]:
                skip, form, words = int(f[0].split("-")[1]), f[1], []
                while text[pos].isspace():
                    pos += 1
                toks.append([pos, pos + len(form), words])
                pos += len(form)
            elif skip:
                words.append(f[1])
                skip = 0 if int(f[0]) >= skip else skip
            else:
                while text[pos].isspace():
                    pos += 1
                assert text.startswith(f[1], pos), (f[1], text[pos:pos + 40])
                toks.append([pos, pos + len(f[1]), []])
                pos += len(f[1])
        if len(toks) > first:
            sents.append((toks[first][0], toks[-1][1]))
    out = []
    for b, e, words in toks:
        ends, q = [], b
        for w in words[:-1]:
            q += len(w)
            ends.append(q)
        out.append((b, e, tuple(ends)))
    return out, sents


def f1(gold, system):
    c = len(set(gold) & set(system))
    return 200 * c / (len(gold) + len(system)), len(gold), len(system), c


def boundary_group(a, b):
    s = a + b
    if "." in s:
        return "period"
    if "-" in s:
        return "hyphen"
    if "/" in s:
        return "slash"
    if a.isalnum() and b.isalnum():
        return "letters/digits"
    if any(c in s for c in "'\"<>[]()"):
        return "quotes, brackets"
    return "other"


def score(gold_path, sys_path):
    pars = read_gold(gold_path)
    text = "".join(q["text"] + "\n\n" for q in pars)
    gt, gs, par_ends, off = [], [], set(), 0
    for q in pars:
        gt += [(off + b, off + e, tuple(off + x for x in ends)) for b, e, ends in q["tokens"]]
        gs += [(off + b, off + e) for b, e in q["sents"]]
        off += len(q["text"])
        par_ends.add(off)
        off += 2
    st, ss = read_system(sys_path, text)
    words = lambda ts: [w for b, e, ends in ts for w in zip((b,) + ends, ends + (e,))]
    print("Tokens F1 %.2f (gold %d, system %d, correct %d)" % f1([t[:2] for t in gt], [t[:2] for t in st]))
    print("Sentences F1 %.2f (gold %d, system %d, correct %d)" % f1(gs, ss))
    print("Words F1 %.2f (gold %d, system %d, correct %d)" % f1(words(gt), words(st)))
    # token boundaries inside whitespace-delimited chunks
    bounds = lambda ts: {x for b, e, _ in ts for x in (b, e)}
    gb, sb = bounds(gt), bounds(st)
    missed, extra = collections.Counter(), collections.Counter()
    for i in range(1, len(text)):
        if text[i - 1].isspace() or text[i].isspace() or (i in gb) == (i in sb):
            continue
        (missed if i in gb else extra)[boundary_group(text[i - 1], text[i])] += 1
    print("token boundaries missed:", sum(missed.values()), dict(missed.most_common()))
    print("token boundaries extra:", sum(extra.values()), dict(extra.most_common()))
    print("gold tokens with whitespace inside:", sum(any(c.isspace() for c in text[b:e]) for b, e, _ in gt))
    # multiword tokens
    sys_tok = {(b, e): ends for b, e, ends in st}
    outcome, forms = collections.Counter(), collections.defaultdict(collections.Counter)
    for b, e, ends in gt:
        if ends:
            k = ("token wrong" if (b, e) not in sys_tok else "split right" if sys_tok[(b, e)] == ends
                 else "not split" if not sys_tok[(b, e)] else "split wrong")
            outcome[k] += 1
            forms[k][text[b:e]] += 1
    print("gold multiword tokens:", sum(outcome.values()), dict(outcome.most_common()))
    for k in forms:
        print("  %s:" % k, forms[k].most_common(12))
    gold_tok = {(b, e): ends for b, e, ends in gt}
    fp = [text[b:e] for b, e, ends in st if ends and gold_tok.get((b, e)) != ends]
    print("system multiword tokens not gold:", len(fp), collections.Counter(fp).most_common(12))
    # sentence ends inside paragraphs (a paragraph's end is one anyway)
    last = lambda e: "after . ! ?" if text[e - 1] in ".!?" else "after a letter/digit" if text[e - 1].isalnum() else "after other"
    g_ends, s_ends = {e for _, e in gs} - par_ends, {e for _, e in ss} - par_ends
    print("gold sentence ends inside paragraphs:", len(g_ends), dict(collections.Counter(map(last, g_ends))))
    print("  missed:", len(g_ends - s_ends), dict(collections.Counter(map(last, g_ends - s_ends))))
    print("  extra:", len(s_ends - g_ends), dict(collections.Counter(map(last, s_ends - g_ends))))


if __name__ == "__main__":
    if sys.argv[1] == "raw":
        for q in read_gold(sys.argv[2]):
            sys.stdout.write(q["text"] + "\n\n")
    else:
        score(sys.argv[2], sys.argv[3])
