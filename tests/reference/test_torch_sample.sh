#!/bin/bash
# The PyTorch loader python/qkv_torch.py on the shipped EWT sample, always run when
# torch is there: a small quick-start model (character CNN, windowed attention with relative
# biases, a parameter average) is trained for a few steps and exported; qkv_torch.load() of the
# export gives logits within 1e-4 (relative) of `qkv eval --logits` and the same tag for every
# word, and qkv_torch.tag() tags sentences as `qkv tag` does. Skipped (exit 77) without torch.
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
S=$SRC/data/ud_english_ewt_sample
"$QKV_BIN" train "$SRC/configs/quickstart.yaml" --out "$work/run" --set train.max_steps=30 --set log.progress=off \
    --set log.plot=false --set model.d_model=32 --set model.d_ff=64 --set model.char_dim=8 \
    --set model.char_filters=16 --set train.ema_decay=0.9 --set train.threads=2 >"$work/train.log" 2>&1 ||
    { tail -20 "$work/train.log"; fail "qkv train"; }
"$QKV_BIN" export "$work/run/checkpoints/last.h5" --out "$work/model.h5" 2>/dev/null || fail "qkv export"
gzip -dc "$S/en_ewt-sample-dev.conllu.gz" >"$work/dev.conllu"
"$QKV_BIN" eval "$work/model.h5" "$work/dev.conllu" --logits "$work/logits.h5" >"$work/eval.txt" ||
    fail "qkv eval --logits"
PYTHONPATH=$SRC/python "$PY" "$SRC/python/qkv_torch.py" compare "$work/model.h5" "$work/dev.conllu" \
    "$work/logits.h5" --rtol 1e-4 || fail "PyTorch and qkv disagree on the export's logits"
# tag(): sentences of words in, qkv tag's tags out (the model in float64, as compare runs it)
awk -F'\t' '/^#/ { next } NF == 0 { if (l != "") print l; l = ""; next } $1 ~ /^[0-9]+$/ { l = l == "" ? $2 : l " " $2 }
            END { if (l != "") print l }' "$work/dev.conllu" >"$work/dev.txt"
"$QKV_BIN" tag "$work/model.h5" "$work/dev.txt" --format text |
    awk -F'\t' '/^#/ { next } NF == 0 { print ""; next } { print $2 "\t" $4 }' >"$work/qkv.tsv" || fail "qkv tag"
PYTHONPATH=$SRC/python "$PY" - "$work/model.h5" "$work/dev.txt" "$work/qkv.tsv" <<'PYEOF' || fail "qkv_torch.tag"
import sys, torch, qkv_torch
from qkv_torch_text import read_text
model = qkv_torch.load(sys.argv[1], torch.float64)
assert isinstance(model, torch.nn.Module) and not model.training
sents = read_text(sys.argv[2])
want = [s.split("\n") for s in open(sys.argv[3], encoding="utf-8").read().strip("\n").split("\n\n")]
got = qkv_torch.tag(model, sents)
assert len(got) == len(want) == len(sents), (len(got), len(want), len(sents))
bad = [(i, w) for i, (s, g, w) in enumerate(zip(sents, got, want)) if [f"{a}\t{b}" for a, b in zip(s, g)] != w]
print(f"qkv_torch.tag: {len(sents)} sentences, {sum(map(len, sents))} words; {len(bad)} sentences differ from qkv tag")
sys.exit(1 if bad else 0)
PYEOF
# the command line tool: same words, tag lines as qkv tag writes them (float32: agreement, not bits)
PYTHONPATH=$SRC/python "$PY" "$SRC/python/qkv_torch.py" tag "$work/model.h5" "$work/dev.txt" >"$work/torch.tsv" ||
    fail "qkv_torch.py tag"
[ "$(cut -f1 "$work/torch.tsv")" = "$(cut -f1 "$work/qkv.tsv")" ] || fail "qkv_torch.py tag: not the words of qkv tag"
same=$(paste "$work/torch.tsv" "$work/qkv.tsv" | awk -F'\t' 'NF == 4 { n++; s += $2 == $4 } END { printf "%d %d", s, n }')
awk -v s="${same% *}" -v n="${same#* }" 'BEGIN { exit !(n > 6000 && s >= 0.999 * n) }' ||
    fail "qkv_torch.py tag agrees with qkv tag on $same words"
echo ok
