#!/bin/bash
# The decoding rules of the segmenter (data/seg_rules.h) on the shipped English model's raw-text
# output: an e-mail address and a URL are one token each with no sentence end inside (the
# sentence's final period after them is a token of its own), and an emoji, attached to a word or
# not, is one token of its own.
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
echo ok
