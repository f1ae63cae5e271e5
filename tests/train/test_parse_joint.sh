#!/bin/bash
# The parser trained with the tagging heads (configs/ud_ewt_joint.yaml) on the EWT excerpt with
# every column (tests/data/files/ewt_all_columns/): the progress names every head; qkv tag fills
# HEAD, DEPREL, UPOS, XPOS, FEATS and LEMMA (every sentence a tree, every other byte as read);
# qkv eval's CoNLL 2018 UAS, LAS, MLAS and BLEX equal those counted here from the tagged file
# (gold tokens: every word aligned with itself); a parser alone gets UAS and LAS but no MLAS or
# BLEX (it predicts no UPOS, FEATS or LEMMA); qkv eval --raw scores a parser from raw text (whitespace tokens or a segmenter), and
# on text whose tokens are the gold words gives the gold-tokenization UAS and LAS; raw text
# through a segmenter gets heads; a biaffine head over a first column other than deprel is refused.
. "$(dirname "$0")/common.sh"
F=tests/data/files/ewt_all_columns
SMALL=(--set data.train=$F/en_ewt-all-train.conllu.gz --set data.dev=$F/en_ewt-all-dev.conllu.gz
       --set train.max_steps=30 --set train.eval_every=30 --set optim.warmup_steps=3 "${PARSE_SMALL[@]}"
       --set train.threads=1)
out=$("$QKV_BIN" train configs/ud_ewt_joint.yaml "${SMALL[@]}" --out "$SCRATCH/run" 2>&1) ||
    { echo "$out" >&2; fail "training the parser with four tagging heads"; }
grep -q "dev UAS [0-9.]*% LAS [0-9.]*% (deprel [0-9.]*%, upos [0-9.]*%, xpos [0-9.]*%, feats [0-9.]*%, lemma " <<<"$out" ||
    { echo "$out" >&2; fail "no per-head dev accuracies beside UAS and LAS"; }
# metrics.tsv names each score: LAS in column 5, UAS, then the further heads' accuracies; the
# values are those of the progress line
head -1 "$SCRATCH/run/metrics.tsv" |
    grep -q $'^step\tepoch\tsplit\tloss\tlas\tlr\ttokens_per_sec\telapsed_s\tuas\taccuracy_upos\taccuracy_xpos\taccuracy_feats\taccuracy_lemma$' ||
    { head -1 "$SCRATCH/run/metrics.tsv"; fail "metrics.tsv: the parser's columns are not las, uas, accuracy_<column>"; }
row=$(awk -F'\t' '$3 == "dev" { printf "dev UAS %.2f%% LAS %.2f%% (deprel", 100 * $9, 100 * $5 }' "$SCRATCH/run/metrics.tsv")
grep -qF "$row" <<<"$out" || { echo "$out" >&2; fail "metrics.tsv: not the progress line's UAS and LAS ($row)"; }
CK=$SCRATCH/run/checkpoints/last.h5
gzip -dc $F/en_ewt-all-dev.conllu.gz >"$SCRATCH/gold.conllu"

# every column the model predicts blanked, then filled by qkv tag; ID, FORM and MISC as read, DEPS
# "_" on word lines (the enhanced graph of the gold tree would contradict the predicted one)
awk -F'\t' -v OFS='\t' 'NF == 10 && $1 ~ /^[0-9]+$/ { $3 = $4 = $5 = $6 = $7 = $8 = "_" } { print }' \
    "$SCRATCH/gold.conllu" >"$SCRATCH/bare.conllu"
"$QKV_BIN" tag "$CK" "$SCRATCH/bare.conllu" >"$SCRATCH/pred.conllu" || fail "qkv tag"
cmp -s <(cut -f1-2,10- "$SCRATCH/bare.conllu") <(cut -f1-2,10- "$SCRATCH/pred.conllu") || fail "tag changed other columns"
[ "$(awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ { print $9 }' "$SCRATCH/pred.conllu" | sort -u)" = _ ] ||
    fail "the gold DEPS kept beside a predicted tree"
awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ && ($4 == "_" || $5 == "_" || $7 !~ /^[0-9]+$/ || $8 == "_") { bad++ }
            END { exit bad > 0 }' "$SCRATCH/pred.conllu" || fail "tag left UPOS, XPOS, HEAD or DEPREL empty"
[ "$(awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ && $3 != "_" && $6 != "_"' "$SCRATCH/pred.conllu" | wc -l)" -gt 0 ] ||
    fail "tag wrote no LEMMA and FEATS"
check_trees "$SCRATCH/pred.conllu"

# the CoNLL 2018 dependency scores counted here from the two files (gold tokens)
cat >"$SCRATCH/deps.py" <<'PY'
import sys
UF = set("PronType NumType Poss Reflex Foreign Abbr Gender Animacy Number Case Definite Degree VerbForm Mood "
         "Tense Aspect Voice Evident Polarity Person Polite".split())
CONTENT = set("nsubj obj iobj csubj ccomp xcomp obl vocative expl dislocated advcl advmod discourse nmod appos "
              "nummod acl amod conj fixed flat compound list parataxis orphan goeswith reparandum root dep".split())
FUNCTIONAL = set("aux cop mark det clf case cc".split())
def read(path):
    sents, cur = [], []
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 10:
            if cur and not line.startswith("#"):
                sents.append(cur)
                cur = []
            continue
        if not f[0].isdigit():
            continue
        feats = "|".join(sorted(x for x in f[5].split("|") if x.split("=", 1)[0] in UF))
        cur.append((f[2], f[3], feats, int(f[6]), f[7].split(":")[0]))
    return sents + ([cur] if cur else [])
def functional(sent, i):
    return [(k, w[4], w[1], w[2]) for k, w in enumerate(sent) if w[3] == i + 1 and w[4] in FUNCTIONAL]
n = uas = las = mlas = blex = gc = sc = 0
for gs, ss in zip(read(sys.argv[1]), read(sys.argv[2])):
    assert len(gs) == len(ss)
    for i, (g, s) in enumerate(zip(gs, ss)):
        n += 1
        gc += g[4] in CONTENT
        sc += s[4] in CONTENT
        if g[3] != s[3]:
            continue
        uas += 1
        if g[4] != s[4]:
            continue
        las += 1
        if g[4] in CONTENT:
            mlas += g[1] == s[1] and g[2] == s[2] and functional(gs, i) == functional(ss, i)
            blex += g[0] == "_" or g[0] == s[0]
f1 = lambda c, a, b: 100 * (2.0 * c / (a + b))
print("UAS %.2f%% LAS %.2f%% MLAS %.2f%% BLEX %.2f%%" % (f1(uas, n, n), f1(las, n, n), f1(mlas, gc, sc), f1(blex, gc, sc)))
PY
want=$($PY "$SCRATCH/deps.py" "$SCRATCH/gold.conllu" "$SCRATCH/pred.conllu") || fail "counting the scores here"
out=$("$QKV_BIN" eval "$CK" "$SCRATCH/gold.conllu") || fail "qkv eval"
grep -q "CoNLL 2018 scores (gold tokenization): UPOS .* XPOS .* UFeats .* AllTags .* Lemmas [0-9.]*% $want\$" <<<"$out" ||
    { echo "$out" | head -4 >&2; fail "qkv eval's CoNLL 2018 scores are not '$want' (counted here)"; }
"$QKV_BIN" eval "$CK" "$SCRATCH/gold.conllu" --json |
    $PY -c 'import json, sys; c = json.load(sys.stdin)["conll18"]; assert all(k in c for k in ("UAS", "LAS", "MLAS", "BLEX")), c' ||
    fail "qkv eval --json: no conll18 UAS, LAS, MLAS, BLEX"

# a parser alone: UAS and LAS of the shared task, no MLAS or BLEX (they would read the gold columns)
"$QKV_BIN" train configs/ud_ewt_parse.yaml "${SMALL[@]}" --out "$SCRATCH/alone" >/dev/null 2>&1 || fail "the parser alone"
out=$("$QKV_BIN" eval "$SCRATCH/alone/checkpoints/last.h5" "$SCRATCH/gold.conllu") || fail "qkv eval of the parser alone"
grep -q "CoNLL 2018 scores (gold tokenization): UAS [0-9.]*% LAS [0-9.]*%\$" <<<"$out" ||
    { echo "$out" | head -3 >&2; fail "the parser alone: not its UAS and LAS alone in the CoNLL 2018 line"; }

# raw text whose whitespace tokens are the gold words (sentences without multiword tokens, # text
# the forms joined by spaces): --raw gives the gold-tokenization UAS and LAS
awk -F'\t' 'BEGIN { RS = ""; ORS = "\n\n" }
    { n = split($0, l, "\n"); text = ""; ok = 1; body = ""
      for (i = 1; i <= n; i++) { if (l[i] ~ /^#/) continue; split(l[i], f, "\t")
          if (f[1] !~ /^[0-9]+$/ || f[2] ~ / /) ok = 0; text = text (text == "" ? "" : " ") f[2]; body = body l[i] "\n" }
      if (ok) printf "# text = %s\n%s\n", text, body }' "$SCRATCH/gold.conllu" >"$SCRATCH/spaced.conllu"
[ "$(grep -c '^# text' "$SCRATCH/spaced.conllu")" -gt 40 ] || fail "too few sentences without multiword tokens"
for ck in "$CK" "$SCRATCH/alone/checkpoints/last.h5"; do
    gold=$("$QKV_BIN" eval "$ck" "$SCRATCH/spaced.conllu" --json) || fail "eval of the spaced file"
    raw=$("$QKV_BIN" eval "$ck" "$SCRATCH/spaced.conllu" --raw --tokenizer whitespace --json) || fail "eval --raw of a parser"
    $PY - "$gold" "$raw" <<'PY' || fail "eval --raw: UAS and LAS differ from gold tokenization's on the same words"
import json, sys
g, r = json.loads(sys.argv[1])["conll18"], json.loads(sys.argv[2])
assert r["words"]["f1"] == 1.0, r["words"]
for k in ("UAS", "LAS"):
    assert abs(r[k.lower()]["f1"] - g[k]) < 1e-6, (k, r[k.lower()], g[k])
PY
done
out=$("$QKV_BIN" eval "$CK" "$SCRATCH/gold.conllu" --raw --tokenizer whitespace) || fail "eval --raw of the joint model"
for m in UAS LAS MLAS BLEX; do
    grep -qP "^$m +\d+ +\d+ +\d+ " <<<"$out" || { echo "$out" >&2; fail "eval --raw: no $m"; }
done
out=$("$QKV_BIN" eval "$SCRATCH/alone/checkpoints/last.h5" "$SCRATCH/gold.conllu" --raw --tokenizer whitespace) || fail "eval --raw, alone"
grep -qP "^LAS " <<<"$out" && ! grep -qP "^(MLAS|BLEX) " <<<"$out" ||
    { echo "$out" >&2; fail "eval --raw of the parser alone: LAS but no MLAS or BLEX expected"; }

# raw text through a segmenter: heads in the output
make_segmenter "$SCRATCH/seg" >/dev/null 2>&1 || fail "training a segmenter"
out=$(printf 'The cats were sleeping. They woke up.\n' |
      "$QKV_BIN" tag "$CK" - --format text --tokenizer "$SCRATCH/seg/checkpoints/last.h5") || fail "tag --tokenizer"
[ "$(awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ && $7 !~ /^[0-9]+$/' <<<"$out" | wc -l)" = 0 ] &&
    grep -qP '^\d+\t' <<<"$out" || { echo "$out" >&2; fail "tag --tokenizer: a word without a HEAD"; }

expect_error "needs data.tags = deprel, or a list beginning with deprel, got upos,deprel" "$QKV_BIN" train \
    configs/ud_ewt_joint.yaml --set "data.tags=[upos, deprel]" --out "$SCRATCH/bad"
echo "parse joint: ok"
