#!/bin/bash
# The PyTorch side of the benchmark's joint row (tests/reference/bench_parse.py) on the excerpt of
# EWT with every column (tests/data/files/ewt_all_columns/; no corpus needed):
#   - python/qkv_torch_columns.py gives the scripts and bundles of data/lemma_script.c and
#     data/columns.c on the cases of tests/data/test_lemma_script.c and tests/data/test_feats_order.c;
#   - on a joint model of configs/ud_ewt_english.yaml's five heads, trained 4 steps by qkv, the
#     port's classes of every column of the training file are exactly the checkpoint's
#     vocabularies (/vocab/tags, /vocab/tags.<column>);
#   - `qkv_torch.py bench` trains that model 4 steps on qkv's batches and evaluates the dev file:
#     one JSON line, the tokens of steps 3 and 4 those of qkv's batch plan, a finite loss;
#   - its loss honours train.label_smoothing: with the model left as initialised (the least
#     optim.lr, no dropout), the loss qkv logs for its first batch is the port's of that batch
#     within 1e-6 (relative; they agree to about 1e-7). Near-uniform scores make the smoothing's
#     share small: 0.5 adds about 1e-3 of the loss, a thousand times the tolerance.
#     The same with the parser reading the UPOS and FEATS heads' tags (model.parser_tag_inputs):
#     the port trains such a model (its parser's biaffine weights start at zero, so this first
#     loss does not see the tag vectors; test_torch_parse.sh compares their values).
# Skipped (exit 77) without torch and h5py.
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
A=$SRC/tests/data/files/ewt_all_columns
gzip -dc "$A/en_ewt-all-train.conllu.gz" >"$work/train.conllu"
gzip -dc "$A/en_ewt-all-dev.conllu.gz" >"$work/dev.conllu"
cd "$SRC/python" || fail "no $SRC/python"

"$PY" - <<'EOF' || fail "the port's lemma scripts or FEATS bundles differ from qkv's"
from qkv_torch_columns import feats_canonical, lemma_apply, lemma_script
bad = 0
for form, lemma, want in [("dogs", "dog", "L0;-0+;-1+"), ("flies", "fly", "L0;-0+;-3+y"),
                          ("unhappy", "happy", "L0;-2+;-0+"), ("gegangen", "gehen", "L0;-0+;-6+hen"),
                          ("apple", "Apple", "U0L1;-0+;-0+"), ("iPhones", "iPhone", "L0U1L2;-0+;-1+"),
                          ("Ölen", "Öl", "U0L1;-0+;-2+"), ("U.S.", "U.S.", "U0;-0+;-0+"),
                          ("Jean-Pierre", "Jean-Pierre", "U0L1U5L6;-0+;-0+"), ("was", "be", "L0;=be"),
                          ("a;b", "x;b;", "L0;=x;b;"), ("", "", "L0;="),
                          # qkv_lemma_script's own answers: its fallback to the form as written
                          # (the initialism "U.S." raised again), full case mappings
                          ("U.S.", "U.s.", "K;-0+;-2+s."), ("AT&T", "At&t", "U0L1;-0+;-0+"),
                          ("ß", "SS", "U0;=ss"), ("Straße", "STRASSE", "U0;-0+;-2+sse")]:
    got = lemma_script(form, lemma)
    if got != want or lemma_apply(got, form) != lemma:
        print(f"{form} -> {lemma}: script {got!r}, expected {want!r}")
        bad += 1
for script, form, want in [("U0L1;-0+;-0+", "U.S.", "U.S."), ("U0L1;-0+;-1+", "U.S.", "U.S"),
                           ("L0;-0+;-0+", "A.M.", "a.m."), ("U0L1;-0+;-0+", "CHERNOBYL", "Chernobyl"),
                           ("U0L1;-0+;-0+", "Ph.D.", "Ph.d."), ("K;-0+;-1+", "iPads", "iPad"),
                           ("L0;-0+;-3+y", "is", None), ("L0;-1+;-1+", "ab", ""), ("nonsense", "abc", None),
                           ("X0;-0+;-0+", "abc", None), ("L0;-0+", "abc", None), ("L0;-x+;-0+", "abc", None)]:
    got = lemma_apply(script, form)
    if got != want:
        print(f"{script!r} applied to {form}: {got!r}, expected {want!r}")
        bad += 1
for v, want in [("Person=3|Number=Sing", "Number=Sing|Person=3"),
                ("NumType=Card|Number=Sing", "Number=Sing|NumType=Card"),
                ("Case=Nom|abbr=Yes", "abbr=Yes|Case=Nom"),
                ("Number[psor]=Sing|Number=Plur|Case=Gen", "Case=Gen|Number=Plur|Number[psor]=Sing"),
                ("PronType=Rel,Int|Case=Nom,Acc|Number=Sing", "Case=Acc,Nom|Number=Sing|PronType=Int,Rel"), ("_", "_")]:
    if feats_canonical(v) != want:
        print(f"FEATS {v}: {feats_canonical(v)!r}, expected {want!r}")
        bad += 1
raise SystemExit(bad)
EOF
echo "lemma scripts and FEATS bundles: as qkv's"

# train_joint NAME KEY=VALUE...: configs/ud_ewt_english.yaml's five heads, made small, trained on
# the excerpt into $work/NAME (each KEY=VALUE one more --set).
train_joint() {
    local name=$1 sets=()
    shift
    for kv in "$@"; do sets+=(--set "$kv"); done
    "$QKV_BIN" train "$SRC/configs/ud_ewt_english.yaml" --out "$work/$name" --set "data.train=$work/train.conllu" \
        --set "data.dev=$work/dev.conllu" --set train.threads=1 --set log.progress=off --set log.plot=false \
        --set model.d_model=32 --set model.lstm_hidden=24 --set model.n_layers=1 --set model.arc_dim=32 \
        --set model.label_dim=16 --set data.batch_tokens=500 --set data.word_min_count=1 \
        --set data.feature_min_count=1 "${sets[@]}" >"$work/$name.log" 2>&1 ||
        { tail -20 "$work/$name.log"; fail "qkv train ($name)"; }
}
train_joint joint train.max_steps=4
ckpt=$work/joint/checkpoints/last.h5

"$PY" - "$ckpt" "$work/train.conllu" <<'EOF' || fail "the port's classes are not the checkpoint's vocabularies"
import sys
from qkv_torch_columns import read_columns
from qkv_torch_data import Checkpoint
from qkv_torch_parse_bench import column_vocabs
cols = Checkpoint(sys.argv[1]).config["data"]["tags"]
vocabs = column_vocabs(sys.argv[1], cols)
_, classes, _ = read_columns(sys.argv[2], cols)
bad = 0
for c in cols:
    port = {v for v in classes[c] if v is not None}
    print(f"{c}: {len(port)} classes in the port, {len(vocabs[c])} in the checkpoint")
    if port != set(vocabs[c]):
        print(f"  only in the port: {sorted(port - set(vocabs[c]))[:5]}; "
              f"only in qkv: {sorted(set(vocabs[c]) - port)[:5]}")
        bad += 1
raise SystemExit(bad)
EOF

"$PY" "$SRC/python/qkv_torch.py" bench "$ckpt" "$work/train.conllu" "$work/dev.conllu" --steps 4 --warmup 2 \
    --threads 1 >"$work/bench.json" 2>"$work/bench.err" || { cat "$work/bench.err"; fail "qkv_torch.py bench"; }
"$PY" - "$ckpt" "$work/train.conllu" "$work/bench.json" <<'EOF' || fail "the port's bench of the joint model"
import json, math, sys
import qkv_torch
ck = qkv_torch.Checkpoint(sys.argv[1])
lines = open(sys.argv[3]).read().splitlines()
assert len(lines) == 1, f"{len(lines)} lines of output, expected one JSON line"
out = json.loads(lines[0])
starts = qkv_torch.encode(ck, qkv_torch.read_conllu(sys.argv[2])).starts
plan = qkv_torch.plan(starts, ck.config["data"]["batch_tokens"], qkv_torch.Rng(ck.config["train"]["seed"] * 2))
want = sum(starts[s + 1] - starts[s] for b in plan[2:4] for s in b)
print(f"bench: {out['steps']} steps, {out['train_tokens_after_warmup']} tokens after warm-up (plan: {want}), "
      f"final loss {out['final_loss']:.3f}")
assert out["steps"] == 4 and out["train_tokens_after_warmup"] == want
assert math.isfinite(out["final_loss"]) and out["final_loss"] > 0
assert out["eval_tokens_per_sec"] > 0 and out["train_tokens_per_sec"] > 0
EOF

FIRST=(train.max_steps=1 optim.lr=1e-9 model.dropout=0 model.head_dropout=0 train.word_dropout=0 train.ema_decay=0 log.every_steps=1)
train_joint smooth "${FIRST[@]}" train.label_smoothing=0.5
train_joint tagin "${FIRST[@]}" train.label_smoothing=0.5 'model.parser_tag_inputs=[upos, feats]' model.tag_input_dim=8
for run in smooth tagin; do
"$PY" - "$work/$run" "$work/train.conllu" <<'EOF' || fail "the port's loss with train.label_smoothing ($run)"
import csv, sys
import torch
import qkv_torch
from qkv_torch_data import Rng, padded, plan
from qkv_torch_parse_bench import Gold, column_vocabs, head_weights, heads_loss
run, path = sys.argv[1], sys.argv[2]
name = run.rsplit("/", 1)[-1]
ckpt = run + "/checkpoints/last.h5"
ck, model = qkv_torch.load_checkpoint(ckpt, torch.float64)
cfg = ck.config
rows = [r for r in csv.DictReader(open(run + "/metrics.tsv"), delimiter="\t") if r["split"] == "train"]
want = float(rows[0]["loss"])
train = Gold(ck, column_vocabs(ckpt, model.columns), path)
batch = plan(train.data.starts, cfg["data"]["batch_tokens"], Rng(cfg["train"]["seed"] * 2))[0]
bt = padded(train.data, batch)
tags, heads = train.batch(batch, max(bt.lens))
weights = head_weights(cfg, len(model.columns))
with torch.no_grad():
    x = model.hidden(bt.ids, bt.pad, bt.chars, bt.char_lens)
    got, plain = (float(heads_loss(model, weights, x, bt, tags, heads, e))
                  for e in (cfg["train"]["label_smoothing"], 0))
print(f"{name}: first batch's loss with label smoothing 0.5: qkv {want:.7f}, the port {got:.7f} (without: {plain:.7f})")
assert abs(got - want) <= 1e-6 * abs(want)
EOF
done
echo ok
