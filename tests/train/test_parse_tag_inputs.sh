#!/bin/bash
# The parser reading its tagging heads' predictions (model.parser_tag_inputs) end to end on the
# EWT excerpt with every column: a few steps train; the checkpoint holds tag_embed.<column>
# [n_tags, tag_input_dim] and the parser's MLPs read the wider input; qkv eval scores it, computing
# each tagging head's logits once (its profile's products as without tag inputs); qkv tag
# writes trees with the checkpoint and with its export (float32: the same output; float16: valid
# trees); the list is given with --set as data/make-english-model.sh's QKV_MAKE_SET gives it
# (unquoted); a column that is not a tagging head, or a model that does not parse, is refused.
. "$(dirname "$0")/common.sh"
F=tests/data/files/ewt_all_columns
DATA=(--set data.train=$F/en_ewt-all-train.conllu.gz --set data.dev=$F/en_ewt-all-dev.conllu.gz)
SMALL=("${DATA[@]}" --set train.max_steps=12 --set train.eval_every=12 --set optim.warmup_steps=3 "${PARSE_SMALL[@]}"
       --set train.threads=1 --set model.tag_input_dim=8)
out=$("$QKV_BIN" train configs/ud_ewt_joint.yaml "${SMALL[@]}" --set "model.parser_tag_inputs=[upos, feats]" \
      --out "$SCRATCH/run" 2>&1) || { echo "$out" >&2; fail "training the parser with tag inputs"; }
grep -q "dev UAS [0-9.]*% LAS [0-9.]*% (deprel" <<<"$out" || { echo "$out" >&2; fail "no dev UAS and LAS"; }
CK=$SCRATCH/run/checkpoints/last.h5
$PY - "$CK" <<'PY' || fail "the checkpoint's tag vectors or the parser's input width"
import sys, h5py
p = h5py.File(sys.argv[1], "r")["params"]
n_upos, n_feats = p["upos.classifier.w"].shape[0], p["feats.classifier.w"].shape[0]
assert p["tag_embed.upos"].shape == (n_upos, 8), p["tag_embed.upos"].shape
assert p["tag_embed.feats"].shape == (n_feats, 8), p["tag_embed.feats"].shape
d_out = p["upos.classifier.w"].shape[1]
for name in ("arc_mlp.dep.w", "arc_mlp.head.w", "rel_mlp.dep.w", "rel_mlp.head.w"):
    assert p[name].shape[1] == d_out + 16, (name, p[name].shape, d_out)
PY
gzip -dc $F/en_ewt-all-dev.conllu.gz >"$SCRATCH/gold.conllu"
"$QKV_BIN" eval "$CK" "$SCRATCH/gold.conllu" | grep -q "UAS [0-9.]*% .* LAS [0-9.]*%" || fail "qkv eval"
# each tagging head's logits are computed once a batch, for the parser's input and for the head's
# own prediction: qkv eval runs as many products (linear) as for the model without tag inputs
linear_calls() {
    "$QKV_BIN" eval "$1" "$SCRATCH/gold.conllu" --profile 2>&1 >/dev/null | awk '$1 == "linear" && $2 == "fwd" {print $4}'
}
"$QKV_BIN" train configs/ud_ewt_joint.yaml "${SMALL[@]}" --set train.max_steps=1 --set train.eval_every=1 \
    --out "$SCRATCH/plain" >/dev/null 2>&1 || fail "training the parser without tag inputs"
with=$(linear_calls "$CK") without=$(linear_calls "$SCRATCH/plain/checkpoints/last.h5")
[ -n "$with" ] && [ "$with" = "$without" ] ||
    fail "qkv eval: $with linear products with tag inputs, $without without (a tagging head's computed twice)"
"$QKV_BIN" tag "$CK" "$SCRATCH/gold.conllu" >"$SCRATCH/ck.conllu" || fail "qkv tag"
check_trees "$SCRATCH/ck.conllu"
"$QKV_BIN" export "$CK" --out "$SCRATCH/f32.h5" >/dev/null 2>&1 || fail "qkv export"
"$QKV_BIN" tag "$SCRATCH/f32.h5" "$SCRATCH/gold.conllu" >"$SCRATCH/f32.conllu" || fail "qkv tag (export)"
cmp -s "$SCRATCH/ck.conllu" "$SCRATCH/f32.conllu" || fail "the export tags otherwise than its checkpoint"
"$QKV_BIN" export "$CK" --out "$SCRATCH/f16.h5" --float16 >/dev/null 2>&1 || fail "qkv export --float16"
"$QKV_BIN" tag "$SCRATCH/f16.h5" "$SCRATCH/gold.conllu" >"$SCRATCH/f16.conllu" || fail "qkv tag (float16)"
check_trees "$SCRATCH/f16.conllu"

# QKV_MAKE_SET="--set model.parser_tag_inputs=[upos]", split by the shell as the script does
SETS="--set model.parser_tag_inputs=[upos]"
# shellcheck disable=SC2086 # split as data/make-english-model.sh splits QKV_MAKE_SET
"$QKV_BIN" config configs/ud_ewt_english.yaml "${DATA[@]}" $SETS | grep -qx "  parser_tag_inputs: upos" ||
    fail "--set model.parser_tag_inputs=[upos] did not resolve to upos"
"$QKV_BIN" config configs/ud_ewt_english.yaml "${DATA[@]}" | grep -qxF "  parser_tag_inputs: []" ||
    fail "the shipped English config reads tag inputs"
expect_error "model.parser_tag_inputs names deprel, which is not a tagging column of data.tags" \
    "$QKV_BIN" config configs/ud_ewt_english.yaml --set "model.parser_tag_inputs=[deprel]"
expect_error "model.parser_tag_inputs names upos, which is not a tagging column of data.tags (deprel;" \
    "$QKV_BIN" config configs/ud_ewt_parse.yaml --set "model.parser_tag_inputs=[upos]"
expect_error "model.parser_tag_inputs = [upos] needs model.output = biaffine" "$QKV_BIN" config \
    configs/ud_ewt_joint.yaml --set "model.parser_tag_inputs=[upos]" --set model.output=softmax \
    --set "data.tags=[xpos, upos]" --set "train.select_columns=[]"
echo "parse tag inputs: ok"
