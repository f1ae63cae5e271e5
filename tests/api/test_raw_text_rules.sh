#!/bin/bash
# The decoding rules of the segmenter (data/seg_rules.h) on the shipped English model's raw-text
# output: an e-mail address and a URL are one token each with no sentence end inside (the
# sentence's final period after them is a token of its own), and an emoji, attached to a word or
# not, is one token of its own. Every Unicode White_Space character between two sentences reads
# as a space (U+2028 once hid the sentence end before it), and none that breaks a line is written
# into a # text line or a MISC column (SpacesAfter= spells it with an escape).
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
model=$QKV_SOURCE_DIR/data/models/en.h5
[ -s "$model" ] || fail "$model is missing"
printf 'Write to jane.doe@example.org or see https://example.com/a_b.html. It was great👍 and fun 👍🏽 too.\nMail bob@mail.example.com.\n' \
    >"$SCRATCH/in.txt"
"$QKV_BIN" tag --model "$model" --format text "$SCRATCH/in.txt" >"$SCRATCH/out.conllu" || fail "qkv tag"
"$PY" - "$SCRATCH/out.conllu" <<'PY' || { cat "$SCRATCH/out.conllu" >&2; fail "rules"; }
import sys
sents, cur = [], []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if not line:
        sents.append(cur)
        cur = []
    elif not line.startswith("#"):
        f = line.split("\t")
        if "." not in f[0] and "-" not in f[0]:
            cur.append(f[1])
forms = [w for s in sents for w in s]
for want in ("jane.doe@example.org", "https://example.com/a_b.html", "bob@mail.example.com", "👍", "👍🏽"):
    assert want in forms, (want, forms)
assert forms.count("great") == 1, forms
for s in sents:  # no sentence ends inside an address
    assert s[-1] not in ("jane.", "jane", "https", "bob@mail."), s
i = forms.index("https://example.com/a_b.html")
assert forms[i + 1] == ".", forms
PY
# "Hello world.<SEP>Second line here." with each separator, a paragraph each: the tokens and
# sentences a space gives, and # text lines without a line break
"$PY" - "$SCRATCH/seps.txt" <<'PY'
import sys
seps = [" ", "\u2028", "\u2029", "\u0085", "\f", "\v", "\u3000", "\u00a0", "\u1680"]
with open(sys.argv[1], "w", encoding="utf-8", newline="\n") as f:
    f.write("\n\n".join("Hello world." + sep + "Second line here." for sep in seps) + "\n")
PY
"$QKV_BIN" tag --model "$model" "$SCRATCH/seps.txt" >"$SCRATCH/seps.conllu" || fail "qkv tag (separators)"
"$PY" - "$SCRATCH/seps.conllu" <<'PY' || { cat "$SCRATCH/seps.conllu" >&2; fail "separators"; }
import sys
pars = []
for line in open(sys.argv[1], encoding="utf-8", newline="\n"):
    line = line.rstrip("\n")
    if line == "# newpar":
        pars.append([])
    elif line.startswith("# text = "):
        assert len(line.splitlines()) == 1, repr(line)  # no line break inside
        pars[-1].append([])
    elif line and not line.startswith("#"):
        pars[-1][-1].append(line.split("\t")[1])
assert len(pars) == 9, len(pars)
for k, p in enumerate(pars[1:], 1):
    assert p == pars[0], (k, p, pars[0])  # as with a space: the same sentences and tokens
assert len(pars[0]) == 2, pars[0]
PY
# the MISC of "world." spells each separator with SpacesAfter's escapes (\s \t \n \r \p \\, \u
# and four hex digits for another character that breaks a line): no MISC holds a character that
# breaks a line, and the tokens with their MISC give each paragraph's text back
"$PY" - "$SCRATCH/seps.conllu" <<'PY' || { cat -A "$SCRATCH/seps.conllu" >&2; fail "SpacesAfter"; }
import re, sys
seps = [" ", "\u2028", "\u2029", "\u0085", "\f", "\v", "\u3000", "\u00a0", "\u1680"]
NAMED = {"s": " ", "t": "\t", "n": "\n", "r": "\r", "p": "|", "\\": "\\"}
def unescape(v):
    return re.sub(r"\\(u[0-9A-F]{4}|.)", lambda m: NAMED.get(m[1]) or chr(int(m[1][1:], 16)), v)
pars, end = [], 0  # pars: each paragraph's tokens (FORM, MISC); end: the multiword token's last word
for line in open(sys.argv[1], encoding="utf-8", newline="\n"):
    line = line.rstrip("\n")
    if line == "# newpar":
        pars.append([])
    elif line.startswith("# text = "):
        end = 0
    elif line and not line.startswith("#"):
        f = line.split("\t")
        assert len(f) == 10, repr(line)
        # no control character, NEL, U+2028 or U+2029 (Python's splitlines breaks at each)
        assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", f[9]), repr(line)
        if "-" in f[0]:
            end = int(f[0].split("-")[1])
        elif int(f[0]) > end:  # a word of a multiword token has its token's MISC
            pars[-1].append((f[1], f[9]))
texts = []
for toks in pars:
    text = ""
    for k, (form, misc) in enumerate(toks):
        if misc.startswith("SpacesAfter="):
            after = unescape(misc[len("SpacesAfter="):])
        else:
            assert misc in ("SpaceAfter=No", "_"), misc
            after = " " if misc == "_" and k + 1 < len(toks) else ""
        text += form + after
    texts.append(text)
want = ["Hello world." + sep + "Second line here." for sep in seps]
assert texts == want, [(t, w) for t, w in zip(texts, want) if t != w]
PY
echo ok
