#!/bin/bash
# The lemma lexicon (api/lemma_lexicon.h): a model with a LEMMA head keeps the lemmas of its
# training forms in its checkpoints (/lemma_lexicon) and exports; qkv tag gives a form seen in
# training with its predicted UPOS the training lemma, where the head alone (a model trained
# with data.lemma_lexicon_min_count 0, which stores none) does not; qkv export --lemma-lexicon
# builds the same lexicon from the training file, and refuses a model that keeps none.
. "$(dirname "$0")/common.sh"
F=tests/data/files/ewt_columns
SMALL=(--set data.train=$F/en_ewt-columns-train.conllu.gz --set data.dev=$F/en_ewt-columns-dev.conllu.gz
       --set model.d_model=32 --set model.d_ff=64 --set model.n_layers=1 --set train.max_steps=6
       --set data.batch_tokens=1000 --set log.progress=off --set log.plot=false --set train.threads=1
       --set 'data.tags=[upos, lemma]')
for run in lexicon:2 head:0; do
    "$QKV_BIN" train configs/ud_ewt_full.yaml "${SMALL[@]}" --set data.lemma_lexicon_min_count=${run#*:} \
        --out "$SCRATCH/${run%:*}" >"$SCRATCH/train.log" 2>&1 || { cat "$SCRATCH/train.log" >&2; fail "training $run"; }
done
CKPT=$SCRATCH/lexicon/checkpoints/last.h5
zcat $F/en_ewt-columns-train.conllu.gz >"$SCRATCH/train.conllu"
zcat $F/en_ewt-columns-dev.conllu.gz >"$SCRATCH/dev.conllu"
"$QKV_BIN" export "$CKPT" --out "$SCRATCH/model.h5" >/dev/null 2>&1 || fail "export"
"$QKV_BIN" export "$SCRATCH/head/checkpoints/last.h5" --out "$SCRATCH/head.h5" >/dev/null 2>&1 || fail "export"
"$QKV_BIN" export "$CKPT" --lemma-lexicon "$SCRATCH/train.conllu" --out "$SCRATCH/rebuilt.h5" >/dev/null 2>&1 ||
    fail "export --lemma-lexicon"
"$PY" - "$SCRATCH" "$CKPT" <<'PY' || fail "/lemma_lexicon"
import sys, h5py
from collections import Counter
d, ckpt = sys.argv[1], sys.argv[2]
def strings(f, name):
    return [s.decode() for s in bytes(f[name][()]).split(b"\0")[:-1]]
count = Counter()
for line in open(f"{d}/train.conllu", encoding="utf-8"):
    c = line.rstrip("\n").split("\t")
    if len(c) == 10 and c[0].isdigit() and c[2] != "_":
        count[c[1].lower() + "\t" + c[3]] += 1
lexicons = []
for path in (ckpt, f"{d}/lexicon/checkpoints/best.h5", f"{d}/model.h5", f"{d}/rebuilt.h5"):
    with h5py.File(path, "r") as f:
        keys, scripts = strings(f, "lemma_lexicon/keys"), strings(f, "lemma_lexicon/scripts")
    assert keys == sorted(keys, key=str.encode) and len(keys) == len(scripts) > 100, (path, len(keys))
    assert all(count[k] >= 2 for k in keys), path
    lexicons.append((keys, scripts))
assert all(lx == lexicons[0] for lx in lexicons), "the exports' lexicons differ from training's"
for path in (f"{d}/head/checkpoints/last.h5", f"{d}/head.h5"):
    assert "lemma_lexicon" not in h5py.File(path, "r"), path
PY
# Words of dev whose lowercase form and predicted UPOS training shows at least twice, always
# with one lemma and in lower case, take that lemma; the head alone misses some of them.
for m in model head; do
    "$QKV_BIN" tag "$SCRATCH/$m.h5" "$SCRATCH/dev.conllu" >"$SCRATCH/$m.conllu" 2>/dev/null || fail "qkv tag $m"
done
"$PY" - "$SCRATCH" <<'PY' || fail "the lexicon's lemmas"
import sys
from collections import defaultdict
d = sys.argv[1]
def words(path):
    for line in open(path, encoding="utf-8"):
        c = line.rstrip("\n").split("\t")
        if len(c) == 10 and c[0].isdigit():
            yield c
seen = defaultdict(list)
for c in words(f"{d}/train.conllu"):
    if c[2] != "_":
        seen[(c[1].lower(), c[3])].append((c[1], c[2]))
sure = {k: v[0][1] for k, v in seen.items() if len(v) >= 2 and all(f == k[0] and l == v[0][1] for f, l in v)}
def check(path):
    n = wrong = 0
    for c in words(path):
        lemma = sure.get((c[1], c[3]))
        if lemma is not None:
            n += 1
            wrong += c[2] != lemma
    return n, wrong
n, wrong = check(f"{d}/model.conllu")
assert n > 50 and wrong == 0, (n, wrong)
n, wrong = check(f"{d}/head.conllu")
assert n > 50 and wrong > 0, ("the head alone gives every lemma: the check proves nothing", n, wrong)
PY
expect_error "has data.lemma_lexicon_min_count 0 (no lexicon)" \
    "$QKV_BIN" export "$SCRATCH/head.h5" --lemma-lexicon "$SCRATCH/train.conllu" --out "$SCRATCH/no.h5"
expect_error "$SCRATCH/missing.conllu" \
    "$QKV_BIN" export "$CKPT" --lemma-lexicon "$SCRATCH/missing.conllu" --out "$SCRATCH/no.h5"
[ ! -e "$SCRATCH/no.h5" ] || fail "a refused export wrote its file"
echo ok
