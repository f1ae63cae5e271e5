#!/bin/bash
# model.encoder bilstm and cnn through every command: train (the cnn prints its receptive field),
# eval of the saved checkpoint agrees with the trainer's last dev evaluation, tag keeps the line
# count, gradcheck passes in double precision, attention is a clear error; keys of another
# encoder are config errors naming the key, in both directions. (Resume: test_resume.sh.)
. "$(dirname "$0")/common.sh"
SMALL=(--set train.max_steps=40 --set data.synthetic_train=600 --set data.synthetic_dev=100 --set model.d_model=16
       --set model.d_ff=512 --set data.batch_tokens=400 --set train.threads=1)
dev=tests/data/files/basic.conllu
for enc in bilstm cnn; do
    quick_run "$SCRATCH/$enc" "${SMALL[@]}" --set model.encoder=$enc --set model.cnn_dilation=$([ $enc = cnn ] && echo 2 || echo 1)
    ckpt="$SCRATCH/$enc/checkpoints/last.h5"
    "$QKV_BIN" eval "$ckpt" "$dev" --json >"$SCRATCH/$enc.json" || fail "$enc: eval failed"
    grep -q '"accuracy"' "$SCRATCH/$enc.json" || fail "$enc: eval printed no accuracy"
    "$QKV_BIN" tag "$ckpt" "$dev" >"$SCRATCH/$enc.tagged" || fail "$enc: tag failed"
    [ "$(wc -l <"$dev")" = "$(wc -l <"$SCRATCH/$enc.tagged")" ] || fail "$enc: tag changed the line count"
    "$QKV_BIN" gradcheck tests/train/synthetic.yaml "${SMALL[@]}" --set model.encoder=$enc --set model.d_model=6 \
        --set model.lstm_hidden=$([ $enc = bilstm ] && echo 4 || echo 0) --samples 0 >"$SCRATCH/$enc.gc" 2>&1 ||
        { cat "$SCRATCH/$enc.gc" >&2; fail "$enc: gradcheck failed"; }
    grep -q "^all .* tensors pass" "$SCRATCH/$enc.gc" || fail "$enc: gradcheck summary missing"
    expect_error "the model's encoder is $enc, which has no attention weights" \
        "$QKV_BIN" attention "$ckpt" --sentence "the dog runs" --out "$SCRATCH/att.png"
    echo "$enc: train, eval, tag, gradcheck; attention refused"
done
# the bilstm's parameters are nn.LSTM's, 2 layers, d_model 16 -> hidden 8 per direction
"$PY" - "$SCRATCH/bilstm/checkpoints/last.h5" <<'PY'
import sys, h5py
p = h5py.File(sys.argv[1], "r")["params"]
for l in range(2):
    for s in ("", "_reverse"):
        assert p[f"encoder.lstm.weight_ih_l{l}{s}"].shape == (32, 16), p[f"encoder.lstm.weight_ih_l{l}{s}"].shape
        assert p[f"encoder.lstm.weight_hh_l{l}{s}"].shape == (32, 8)
        assert p[f"encoder.lstm.bias_ih_l{l}{s}"].shape == (32,) and p[f"encoder.lstm.bias_hh_l{l}{s}"].shape == (32,)
assert p["classifier.w"].shape[1] == 16 and "pos.table" not in p
PY
"$PY" -c "import h5py,sys; assert h5py.File(sys.argv[1])['params/encoder.layers.1.conv.weight'].shape == (16, 16, 3)" \
    "$SCRATCH/cnn/checkpoints/last.h5" || fail "cnn weight is not [out, in, k]"
grep -q "encoder: cnn, 2 blocks of width 3, dilation 2: receptive field 9 words" "$SCRATCH/cnn.log" ||
    fail "no receptive field at the start of a cnn run"
# keys that do not apply
expect_error "model.attn_window does not apply to model.encoder: bilstm (it is read by transformer only)" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${SMALL[@]}" --set model.encoder=bilstm --set model.attn_window=2 --out "$SCRATCH/x"
expect_error "model.n_heads does not apply to model.encoder: cnn" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${SMALL[@]}" --set model.encoder=cnn --set model.n_heads=2 --out "$SCRATCH/x"
expect_error "model.lstm_hidden does not apply to model.encoder: transformer (it is read by bilstm only)" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${SMALL[@]}" --set model.lstm_hidden=8 --out "$SCRATCH/x"
expect_error "model.cnn_kernel does not apply to model.encoder: bilstm (it is read by cnn, cnn2d only)" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${SMALL[@]}" --set model.encoder=bilstm --set model.cnn_kernel=5 --out "$SCRATCH/x"
expect_error "model.cnn_kernel = 4 must be odd" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${SMALL[@]}" --set model.encoder=cnn --set model.cnn_kernel=4 --out "$SCRATCH/x"
printf 'model:\n  encoder: bilstm\n  d_ff: 64\n' >"$SCRATCH/bad.yaml"
expect_error "bad.yaml: model.d_ff does not apply to model.encoder: bilstm" \
    "$QKV_BIN" train "$SCRATCH/bad.yaml" --out "$SCRATCH/x"
[ ! -e "$SCRATCH/x" ] || fail "a config error made a run folder"
# the file already chose bilstm: --set choosing it again switches nothing, d_ff stays an error
expect_error "bad.yaml: model.d_ff does not apply to model.encoder: bilstm" \
    "$QKV_BIN" config "$SCRATCH/bad.yaml" --set model.encoder=bilstm
echo "keys of another encoder: config errors naming the key"
# --set switching the file's encoder: the file's keys of the old one are ignored (their defaults
# resolved) with one note naming them all
"$QKV_BIN" config configs/quickstart.yaml --set model.encoder=bilstm >"$SCRATCH/switch.yaml" 2>"$SCRATCH/switch.err" ||
    { cat "$SCRATCH/switch.err" >&2; fail "--set model.encoder=bilstm on the quick start was refused"; }
[ "$(grep -c . "$SCRATCH/switch.err")" = 1 ] || { cat "$SCRATCH/switch.err" >&2; fail "not one note on stderr"; }
grep -qF "quickstart.yaml: --set model.encoder=bilstm: ignoring model.d_ff, model.attn_window, model.attn_rel_clip from the file (they do not apply to model.encoder: bilstm)" \
    "$SCRATCH/switch.err" || { cat "$SCRATCH/switch.err" >&2; fail "the note does not list the ignored keys"; }
grep -qx "  d_ff: 512" "$SCRATCH/switch.yaml" && grep -qx "  attn_window: 0" "$SCRATCH/switch.yaml" &&
    grep -qx "  encoder: bilstm" "$SCRATCH/switch.yaml" || fail "the ignored keys do not resolve to their defaults"
# a run switched this way trains, and its checkpoint's stored config reads back
quick_run "$SCRATCH/switched" --set train.max_steps=5 --set data.synthetic_train=200 --set data.synthetic_dev=50 \
    --set model.d_model=16 --set train.threads=1 --set model.encoder=cnn
grep -q "note: .*--set model.encoder=cnn: ignoring model.d_ff from the file (it does not apply to model.encoder: cnn)" \
    "$SCRATCH/switched.log" || { cat "$SCRATCH/switched.log" >&2; fail "no note for the switched encoder"; }
"$QKV_BIN" eval "$SCRATCH/switched/checkpoints/last.h5" "$dev" >/dev/null || fail "the switched run's checkpoint"
echo "--set model.encoder: the old encoder's keys ignored with a note"
