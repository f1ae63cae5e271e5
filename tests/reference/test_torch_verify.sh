#!/bin/bash
# qkv_torch.load() refuses what every qkv command refuses: a checkpoint with one flipped bit in a
# parameter (HDF5 still reads it), one cut short, one with bytes appended and one with a damaged
# header, each with qkv's reason; an intact checkpoint and its export load. Skipped (exit 77)
# without torch.
set -u
. "${QKV_SOURCE_DIR:?}/tests/reference/torch_common.sh"
"$QKV_BIN" train "$SRC/tests/train/synthetic.yaml" --out "$work/run" --set train.max_steps=2 --set log.progress=off \
    --set log.plot=false --set model.d_model=16 --set model.d_ff=32 --set model.n_heads=2 --set model.n_layers=1 \
    >"$work/train.log" 2>&1 || { tail -20 "$work/train.log"; fail "qkv train"; }
ckpt=$work/run/checkpoints/last.h5
"$QKV_BIN" export "$ckpt" --out "$work/model.h5" 2>/dev/null || fail "qkv export"
"$QKV_BIN" synth --sentences 5 --seed 9 >"$work/dev.conllu"
# the damaged copies: a bit of a parameter's data flipped, cut, appended to, header byte changed
"$PY" - "$ckpt" "$work" <<'PY' || fail "making the damaged copies"
import sys, h5py
src, work = sys.argv[1], sys.argv[2]
with h5py.File(src, "r") as f:
    name = next(n for n in f["params"] if f["params"][n].size > 4)
    at = f["params"][name].id.get_offset() + 5
data = bytearray(open(src, "rb").read())
flipped = bytearray(data)
flipped[at] ^= 0x10
open(f"{work}/flipped.h5", "wb").write(flipped)
open(f"{work}/cut.h5", "wb").write(data[:-100])
open(f"{work}/appended.h5", "wb").write(data + b"\0" * 8)
header = bytearray(data)
header[60] ^= 0x01
open(f"{work}/header.h5", "wb").write(header)
with h5py.File(f"{work}/flipped.h5", "r") as f:  # HDF5 itself does not notice
    f["params"][name][()]
PY
check() { # FILE EXPECTED
    "$QKV_BIN" eval "$1" "$work/dev.conllu" >/dev/null 2>"$work/qkv.err" && fail "qkv eval accepted $1"
    grep -qF "$2" "$work/qkv.err" || { cat "$work/qkv.err"; fail "qkv's reason for $1"; }
    PYTHONPATH=$SRC/python "$PY" - "$1" "$2" <<'PY' || fail "qkv_torch.load() of $1"
import sys, qkv_torch
try:
    qkv_torch.load(sys.argv[1])
except ValueError as e:
    assert sys.argv[2] in str(e), (str(e), sys.argv[2])
    sys.exit(0)
print("qkv_torch.load() accepted", sys.argv[1])
sys.exit(1)
PY
}
check "$work/flipped.h5" "corrupted or modified after saving: CRC-32 of its contents is"
check "$work/cut.h5" "truncated:"
check "$work/appended.h5" "(data appended after saving?)"
check "$work/header.h5" "corrupted: its qkv header is damaged"
PYTHONPATH=$SRC/python "$PY" -c 'import sys, qkv_torch; qkv_torch.load(sys.argv[1]); qkv_torch.load(sys.argv[2])' \
    "$ckpt" "$work/model.h5" || fail "an intact checkpoint or export did not load"
exit 0
