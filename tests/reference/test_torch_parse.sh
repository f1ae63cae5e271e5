#!/bin/bash
# PyTorch parity of the biaffine parser and of models of several heads on the shipped EWT
# sample (no corpus needed): five tiny models are trained for 20 steps, `qkv eval --logits`
# writes every head's scores (the /heads layout, docs/reference/checkpoints.md), and the port
# python/qkv_torch_parse.py, loading the same checkpoint with h5py, must give each of them
# within 1e-4 (max |difference|, the port in float64): the parser's arc scores, the label logits
# of the predicted and of the gold arcs, every tagging head's logits, with the same predicted
# labels and tags (the CRF head's Viterbi paths; UPOS and XPOS kept to the pairs seen in training,
# api/tag_pairs.h), and qkv's predicted heads must be trees.
# Models: configs/ud_ewt_joint.yaml's BiLSTM under a parser and UPOS and XPOS heads (the sample
# has no LEMMA or FEATS; all five columns on the excerpt tests/data/files/ewt_all_columns/), the
# same with the parser reading both heads' tags (model.parser_tag_inputs; the port sizes the
# parser's input by the tag_embed tensors, whatever the config's tag_input_dim says),
# configs/ud_ewt_parse.yaml's parser alone over a Transformer with the
# character CNN and the Eisner decoder, and configs/quickstart.yaml's tagger with a CRF UPOS
# head and a softmax XPOS head. Skipped (exit 77) without torch and h5py.
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
S=$SRC/data/ud_english_ewt_sample
gzip -dc "$S/en_ewt-sample-train.conllu.gz" >"$work/train.conllu"
gzip -dc "$S/en_ewt-sample-dev.conllu.gz" >"$work/dev.conllu"
train=$work/train.conllu dev=$work/dev.conllu
status=0
check() { # name, config, then --set overrides
    local name=$1 config=$2
    shift 2
    local sets=()
    for kv in "$@"; do sets+=(--set "$kv"); done
    if ! "$QKV_BIN" train "$SRC/configs/$config" --out "$work/$name" --set "data.train=$train" \
        --set "data.dev=$dev" --set train.max_steps=20 --set train.threads=1 --set log.progress=off \
        --set log.plot=false "${sets[@]}" >"$work/$name.log" 2>&1; then
        echo "FAIL ($name): qkv train failed:"; tail -20 "$work/$name.log"; status=1; return
    fi
    local ckpt=$work/$name/checkpoints/last.h5
    if ! "$QKV_BIN" eval "$ckpt" "$dev" --logits "$work/$name.h5" >"$work/$name.eval" 2>&1; then
        echo "FAIL ($name): qkv eval --logits failed:"; cat "$work/$name.eval"; status=1; return
    fi
    echo "$name: $(head -1 "$work/$name.eval")"
    if ! PYTHONPATH=$SRC/python "$PY" "$SRC/python/qkv_torch.py" compare "$ckpt" "$dev" "$work/$name.h5" \
        --atol 1e-4; then
        echo "FAIL ($name): PyTorch and qkv disagree"; status=1
    fi
}
check joint ud_ewt_joint.yaml 'data.tags=[deprel, upos, xpos]' model.d_model=32 model.lstm_hidden=24 \
    model.n_layers=2 model.arc_dim=32 model.label_dim=16
check tagin ud_ewt_joint.yaml 'data.tags=[deprel, upos, xpos]' 'model.parser_tag_inputs=[upos, xpos]' \
    model.tag_input_dim=8 model.d_model=32 model.lstm_hidden=24 model.n_layers=1 model.arc_dim=32 model.label_dim=16
# the port sizes the parser's input by the tag_embed tensors, not by the config's tag_input_dim
PYTHONPATH=$SRC/python "$PY" - "$work/tagin/checkpoints/last.h5" <<'EOF' || status=1
import sys
from qkv_torch_data import Checkpoint
from qkv_torch_parse import heads_tagger
ck = Checkpoint(sys.argv[1])
d_out = ck.params["upos.classifier.w"].shape[1]
ck.config["model"]["tag_input_dim"] = 999
try:
    d_in = heads_tagger(ck).arc_mlp.dep.w.shape[1]
except Exception as e:
    sys.exit(f"FAIL (tagin): the port cannot load the parser when the config's tag_input_dim differs: {e}")
if d_in != d_out + 2 * 8:
    sys.exit(f"FAIL (tagin): the parser reads {d_in} columns, expected {d_out} + 2 x 8")
print("tagin: the parser's input sized by tag_embed.upos and tag_embed.xpos")
EOF
check parse ud_ewt_parse.yaml model.encoder=transformer model.lstm_hidden=0 model.d_model=32 model.n_heads=4 \
    model.d_ff=64 model.n_layers=2 model.arc_dim=24 model.label_dim=16 model.tree_decoder=eisner model.char_dim=8 \
    model.char_filters=16
check tags quickstart.yaml 'data.tags=[upos, xpos]' model.output=crf model.d_model=32 model.d_ff=64 \
    data.batch_tokens=1000
# every column: the joint config's five heads (FEATS and LEMMA too: lemma logits only, its
# predictions are the best scripts the forms can take) on the excerpt of EWT with every column
A=$SRC/tests/data/files/ewt_all_columns
gzip -dc "$A/en_ewt-all-train.conllu.gz" >"$work/all-train.conllu"
gzip -dc "$A/en_ewt-all-dev.conllu.gz" >"$work/all-dev.conllu"
train=$work/all-train.conllu dev=$work/all-dev.conllu
check all ud_ewt_joint.yaml model.d_model=32 model.lstm_hidden=24 model.n_layers=1 model.arc_dim=32 \
    model.label_dim=16 data.word_min_count=1 data.feature_min_count=1
# a model of one tagging head keeps the layout /logits, /pred (no /heads)
"$QKV_BIN" train "$SRC/configs/quickstart.yaml" --out "$work/one" --set "data.train=$work/train.conllu" \
    --set "data.dev=$work/dev.conllu" --set train.max_steps=2 --set model.d_model=16 --set model.d_ff=32 \
    --set train.threads=1 --set log.progress=off --set log.plot=false >"$work/one.log" 2>&1 &&
    "$QKV_BIN" eval "$work/one/checkpoints/last.h5" "$work/dev.conllu" --logits "$work/one.h5" >/dev/null ||
    fail "(one): qkv train or eval --logits"
"$PY" - "$work/one.h5" <<'EOF' || status=1
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    names = sorted(f.keys())
    if names != ["logits", "pred"] or f["logits"].shape != (6518, 17):
        sys.exit(f"FAIL (one): a tagger of one column wrote {names}, /logits {f['logits'].shape}")
print("one: /logits [6518, 17] and /pred, no /heads")
EOF
exit $status
