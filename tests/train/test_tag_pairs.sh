#!/bin/bash
# UPOS and XPOS agree (api/tag_pairs.h): a model with both heads keeps the pairs of its training
# file in its checkpoint (/tag_pairs/upos_xpos) and in an export, and qkv tag and qkv eval never
# give a word a pair that no training word has; a model without XPOS keeps none.
. "$(dirname "$0")/common.sh"
F=tests/data/files/ewt_columns
SMALL=(--set data.train=$F/en_ewt-columns-train.conllu.gz --set data.dev=$F/en_ewt-columns-dev.conllu.gz
       --set model.d_model=32 --set model.d_ff=64 --set model.n_layers=1 --set train.max_steps=6
       --set data.batch_tokens=1000 --set log.progress=off --set log.plot=false --set train.threads=1
       --set 'data.tags=[upos, xpos]')
"$QKV_BIN" train configs/ud_ewt_full.yaml "${SMALL[@]}" --out "$SCRATCH/run" >"$SCRATCH/train.log" 2>&1 ||
    { cat "$SCRATCH/train.log" >&2; fail "training UPOS and XPOS heads"; }
CKPT=$SCRATCH/run/checkpoints/last.h5
"$QKV_BIN" export "$CKPT" --out "$SCRATCH/model.h5" >/dev/null 2>&1 || fail "export"
zcat $F/en_ewt-columns-train.conllu.gz | awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ { print $4 "\t" $5 }' | sort -u \
    >"$SCRATCH/seen.tsv"
"$PY" - "$CKPT" "$SCRATCH/model.h5" "$SCRATCH/seen.tsv" <<'PY' || fail "/tag_pairs/upos_xpos"
import sys, h5py
seen = sorted(set(open(sys.argv[3], encoding="utf-8").read().split("\n")) - {""})
for path in sys.argv[1:3]:
    with h5py.File(path, "r") as f:
        got = [s.decode() for s in bytes(f["tag_pairs/upos_xpos"][()]).split(b"\0")[:-1]]
    assert sorted(got, key=lambda s: s.encode()) == got and sorted(got) == seen, (path, len(got), len(seen))
PY
# every tagged word's pair is a seen one, from CoNLL-U and from the dev file's evaluation
zcat $F/en_ewt-columns-dev.conllu.gz >"$SCRATCH/dev.conllu"
"$QKV_BIN" tag "$SCRATCH/model.h5" "$SCRATCH/dev.conllu" >"$SCRATCH/out.conllu" || fail "qkv tag"
awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ { print $4 "\t" $5 }' "$SCRATCH/out.conllu" | sort -u >"$SCRATCH/got.tsv"
unseen=$(comm -13 "$SCRATCH/seen.tsv" "$SCRATCH/got.tsv")
[ -z "$unseen" ] || fail "qkv tag gives pairs never seen in training: $(echo $unseen)"
"$QKV_BIN" eval "$SCRATCH/model.h5" "$SCRATCH/dev.conllu" --logits "$SCRATCH/logits.h5" >/dev/null || fail "eval"
"$PY" - "$SCRATCH/logits.h5" "$SCRATCH/model.h5" "$SCRATCH/seen.tsv" <<'PY' || fail "qkv eval's predictions"
import sys, h5py
seen = set(open(sys.argv[3], encoding="utf-8").read().split("\n"))
with h5py.File(sys.argv[2], "r") as m:
    upos = [s.decode() for s in bytes(m["vocab/tags"][()]).split(b"\0")[:-1]]
    xpos = [s.decode() for s in bytes(m["vocab/tags.xpos"][()]).split(b"\0")[:-1]]
with h5py.File(sys.argv[1], "r") as f:
    pu, px = f["heads/upos/pred"][()], f["heads/xpos/pred"][()]
bad = {f"{upos[u]}\t{xpos[x]}" for u, x in zip(pu, px) if u >= 0 and x >= 0} - seen
assert not bad, bad
with h5py.File(sys.argv[1], "r") as f:  # the heads alone (argmax of each) do give unseen pairs
    lu, lx = f["heads/upos/logits"][()], f["heads/xpos/logits"][()]
alone = {f"{upos[u]}\t{xpos[x]}" for u, x in zip(lu.argmax(1), lx.argmax(1))} - seen
assert alone, "the heads alone give no unseen pair: the check proves nothing"
PY
# a model without an XPOS head keeps no pairs
"$QKV_BIN" train configs/ud_ewt_full.yaml "${SMALL[@]}" --set 'data.tags=[upos, lemma]' --set train.max_steps=1 \
    --out "$SCRATCH/run1" >"$SCRATCH/train1.log" 2>&1 || { cat "$SCRATCH/train1.log" >&2; fail "training UPOS and LEMMA"; }
"$PY" -c "import sys, h5py; sys.exit('tag_pairs' in h5py.File(sys.argv[1], 'r'))" "$SCRATCH/run1/checkpoints/last.h5" ||
    fail "a model without XPOS stored pairs"
echo ok
