#!/bin/bash
# The conv_patches input (a convolutional stem under the patch embedding) end to end on the
# Fashion-MNIST sample: a short training of configs/images_quick.yaml with a stem; its checkpoint
# reloads and predicts the same (qkv eval of last.h5 gives the dev accuracy the run measured in
# memory at its last step; a run stopped half-way and resumed from its last.h5 ends with the
# metrics and parameters of the run that did not stop); qkv tag and qkv attention --image read
# it (the attention drawn over the patches' 7 x 7 grid); the stem's keys are errors with another
# input.
. "$(dirname "$0")/common.sh"
S=data/fashion_mnist_sample
dev=$QKV_SOURCE_DIR/$S/t10k-images-idx3-ubyte.gz
RUN=(configs/images_quick.yaml --set model.input=conv_patches --set model.stem_layers=1 --set model.stem_channels=4
     --set model.n_layers=1 --set train.threads=1 --set log.progress=off --set data.valid_fraction=0
     --set data.dev="$dev" --set train.eval_every=6 --set train.max_steps=12)
"$QKV_BIN" train "${RUN[@]}" --out "$SCRATCH/full" >"$SCRATCH/full.log" 2>&1 ||
    { cat "$SCRATCH/full.log" >&2; fail "qkv train with model.input conv_patches"; }
ckpt=$SCRATCH/full/checkpoints/last.h5
$PY - "$ckpt" <<'PY' || fail "the checkpoint's stem parameters"
import h5py, sys
p = h5py.File(sys.argv[1], "r")["params"]
for name, shape in (("input.stem.0.conv.weight", (4, 1, 3, 3)), ("input.proj.w", (64, 4, 4, 4))):
    assert p[name].shape == shape, (name, p[name].shape)
PY

# the dev accuracy measured in memory at step 12 is the reloaded checkpoint's
acc=$(awk -F'\t' '$1 == 12 && $3 == "dev" {print $5}' "$SCRATCH/full/metrics.tsv")
[ -n "$acc" ] || { cat "$SCRATCH/full/metrics.tsv" >&2; fail "no dev row at step 12"; }
"$QKV_BIN" eval "$ckpt" "$dev" --json >"$SCRATCH/eval.json" || fail "qkv eval of the stem model"
$PY - "$SCRATCH/eval.json" "$acc" <<'PY' || fail "the reloaded model's dev accuracy differs from the run's"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["images"] == 200 and abs(r["accuracy"] - float(sys.argv[2])) < 1e-6, (r["accuracy"], sys.argv[2])
PY

# stopped at step 6 and resumed from last.h5: the same metrics and parameters
"$QKV_BIN" train "${RUN[@]}" --out "$SCRATCH/part" --stop-at-step 6 >"$SCRATCH/part.log" 2>&1 ||
    { cat "$SCRATCH/part.log" >&2; fail "qkv train --stop-at-step 6"; }
cp "$SCRATCH/part/checkpoints/last.h5" "$SCRATCH/resume.h5"
"$QKV_BIN" train "${RUN[@]}" --out "$SCRATCH/part" --resume "$SCRATCH/resume.h5" >>"$SCRATCH/part.log" 2>&1 ||
    { cat "$SCRATCH/part.log" >&2; fail "qkv train --resume"; }
cut -f1,3,4,5 "$SCRATCH/full/metrics.tsv" >"$SCRATCH/a"
cut -f1,3,4,5 "$SCRATCH/part/metrics.tsv" >"$SCRATCH/b"
diff "$SCRATCH/a" "$SCRATCH/b" || fail "metrics differ after resuming at step 6"
$PY - "$ckpt" "$SCRATCH/part/checkpoints/last.h5" <<'PY' || fail "parameters differ after resuming at step 6"
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a["params"].visit(lambda n: names.append(n) if isinstance(a["params"][n], h5py.Dataset) else None)
assert any("stem" in n for n in names), names
for n in names:
    assert np.array_equal(a["params"][n][()], b["params"][n][()]), n
PY

"$QKV_BIN" tag "$ckpt" "$dev" >"$SCRATCH/tags" || fail "qkv tag with the stem model"
[ "$(wc -l <"$SCRATCH/tags")" -eq 200 ] || fail "not one line per image"
if command -v gnuplot >/dev/null; then
    "$QKV_BIN" attention "$ckpt" --image "$dev" --index 2 --query 3,4 --out "$SCRATCH/att.png" >/dev/null ||
        fail "qkv attention --image of the stem model"
    [ "$(grep -c '^\$head[0-9] << EOD' "$SCRATCH/att.gp")" = 4 ] || fail "att.gp: not one datablock per head"
    grep -A1 '^\$query << EOD' "$SCRATCH/att.gp" | grep -qx '17.5 13.5' ||
        fail "--query 3,4: the circle is not at the centre of patch row 3, column 4 (x 17.5, y 13.5)"
fi

# the stem's keys belong to conv_patches
cfg=$SCRATCH/c.yaml
printf 'model:\n  stem_layers: 3\n' >"$cfg"
expect_error "c.yaml: model.stem_layers does not apply to model.input: words (it is read by conv_patches only)" \
    "$QKV_BIN" train "$cfg" --out "$SCRATCH/bad"
cp configs/images_quick.yaml "$SCRATCH/q.yaml"
sed -i "s|\.\./data/|$QKV_SOURCE_DIR/data/|; s|^  input: patches|  input: patches\n  stem_channels: 16|" "$SCRATCH/q.yaml"
expect_error "q.yaml: model.stem_channels does not apply to model.input: patches (it is read by conv_patches only)" \
    "$QKV_BIN" train "$SCRATCH/q.yaml" --out "$SCRATCH/bad"
[ ! -e "$SCRATCH/bad" ] || fail "a run folder was made for a misplaced stem key"
echo "conv_patches: trained, reloaded, resumed, tagged, drawn; misplaced stem keys refused"
