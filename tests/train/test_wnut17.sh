#!/bin/bash
# configs/wnut17_ner.yaml end to end on the whole WNUT 2017 corpus (QKV_WNUT17_DIR; skipped, exit
# 77, without it): the files as they are (TAB-only lines between sentences), a short training of
# the shipped config (the pipeline, not its F1), span scores per type in eval, and qkv tag writing
# the dev file's layout back in BIO. Without the data, the config's error says how to get it.
source "$(dirname "$0")/common.sh"

mkdir -p "$SCRATCH/cfg"
cp configs/wnut17_ner.yaml "$SCRATCH/cfg/"
expect_error "QKV_WNUT17_DIR is not set: set QKV_WNUT17_DIR to the folder that holds wnut17train.conll" \
    env QKV_WNUT17_DIR= "$QKV_BIN" train "$SCRATCH/cfg/wnut17_ner.yaml" --out "$SCRATCH/none"
grep -qF "data/fetch-wnut17.sh DIR, then export QKV_WNUT17_DIR=DIR" "$SCRATCH/err" || fail "no fetch-wnut17.sh line"
grep -qF "data.train: $SCRATCH/data/wnut17/wnut17train.conll: cannot open" "$SCRATCH/err" || fail "no file named"

W=${QKV_WNUT17_DIR:-}
if [ -z "$W" ] || [ ! -f "$W/wnut17train.conll" ] || [ ! -f "$W/emerging.dev.conll" ]; then
    echo "skipped: QKV_WNUT17_DIR is not set or lacks wnut17train.conll, emerging.dev.conll (data/fetch-wnut17.sh DIR fetches them)"
    exit 77
fi
export QKV_WNUT17_DIR=$W
out=$("$QKV_BIN" stats "$W/wnut17train.conll") || fail "stats exited $?"
grep -qx "sentences: 3394" <<<"$out" && grep -qx "words: 62730" <<<"$out" && grep -qx "tags: 13" <<<"$out" ||
    { echo "$out"; fail "train counts"; }

# 20 steps of the shipped config (its model, features, CRF and tag scheme as shipped)
"$QKV_BIN" train configs/wnut17_ner.yaml --out "$SCRATCH/run" --set train.max_steps=20 --set log.progress=off \
    --set log.plot=false >"$SCRATCH/train.out" 2>"$SCRATCH/train.log" || { cat "$SCRATCH/train.log"; fail "qkv train"; }
grep -q "^epoch 1 step [0-9]*: dev accuracy [0-9.]*%, span F1 " "$SCRATCH/train.log" || { cat "$SCRATCH/train.log"; fail "no dev span F1"; }
grep -q "best dev span F1 " "$SCRATCH/train.log" || fail "best.h5 does not follow span F1"

ckpt=$SCRATCH/run/checkpoints/best.h5
"$QKV_BIN" eval "$ckpt" "$W/emerging.dev.conll" --json >"$SCRATCH/eval.json" || fail "eval --json"
$PY - "$SCRATCH/eval.json" <<'EOP' || fail "eval --json spans"
import json, sys
r = json.load(open(sys.argv[1]))["spans"]
gold = {"person": 470, "location": 74, "group": 39, "creative-work": 105, "corporation": 34, "product": 114}
assert r["gold"] == 836, r["gold"]
assert {t: v["gold"] for t, v in r["types"].items() if v["gold"]} == gold, r["types"]
assert r["predicted"] == sum(v["predicted"] for v in r["types"].values()), r
EOP

# tag: the dev file's layout back, BIO tags from the types of the corpus
"$QKV_BIN" tag "$ckpt" "$W/emerging.dev.conll" >"$SCRATCH/tagged.conll" || fail "tag"
cmp -s <(cut -f1 "$W/emerging.dev.conll") <(cut -f1 "$SCRATCH/tagged.conll") || fail "tag changed the layout"
bad=$(awk -F'\t' 'NF == 2 && $2 !~ /^(O|[BI]-(person|location|group|creative-work|corporation|product))$/' "$SCRATCH/tagged.conll" | head -3)
[ -z "$bad" ] || fail "tags outside BIO and the six types: $bad"
echo "wnut17: ok"
