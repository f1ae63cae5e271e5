#!/bin/bash
# A qkv checkpoint is readable by h5py with no qkv code: the float-build tool
# (tests/lib/store_sample.c) writes the sample checkpoint, /usr/bin/python3 + h5py reads
# every item and compares it with the values the fixture wrote. Then h5py edits the file:
# qkv must refuse it (CRC-32 mismatch) until the header is re-sealed by the recipe documented
# in lib/io/store.h, and must then read the edited value. Strings h5py writes (variable-length:
# a list of str, one gzip-compressed, and a scalar str) into a re-sealed checkpoint read too.
# Skips (exit 0 with a message) when /usr/bin/python3 or h5py is missing.
set -euo pipefail
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import h5py' 2>/dev/null; then
    echo "SKIP: $PY with h5py not available (Debian: apt-get install python3-h5py)"
    exit 0
fi
tool="${QKV_BUILD_DIR:?QKV_BUILD_DIR not set (run through ctest)}/tests/store_sample"
[ -x "$tool" ] || { echo "FAIL: $tool not built"; exit 1; }
work=$(mktemp -d /tmp/qkv-ckpt-h5py-XXXXXX)
trap 'rm -rf "$work"' EXIT
ckpt="$work/sample.h5"

"$tool" write "$ckpt"
"$tool" check "$ckpt"

"$PY" - "$ckpt" <<'PYEOF'
import sys, zlib
import h5py
import numpy as np

path = sys.argv[1]
with h5py.File(path, "r") as f:
    assert f.attrs["format_version"] == 2, f.attrs["format_version"]
    assert isinstance(f.attrs["qkv_version"], (str, bytes)), type(f.attrs["qkv_version"])
    # parameters: names, shapes ([out, in]), float32 little-endian, values of the fixture
    want = [("embed.words", (7, 5)), ("encoder.layers.0.attn.w_q", (4, 3)),
            ("encoder.layers.0.attn.b_q", (3,)), ("encoder.layers.0.scale", (1, 1)),
            ("encoder.layers.0.odd4d", (2, 3, 1, 5)), ("classifier.w", (3, 1, 2))]
    assert sorted(f["params"].keys()) == sorted(n for n, _ in want), list(f["params"].keys())
    for seed, (name, shape) in enumerate(want, start=1):
        ds = f["params"][name]
        assert ds.shape == shape, (name, ds.shape)
        assert ds.dtype == np.dtype("<f4"), (name, ds.dtype)
        k = np.arange(int(np.prod(shape)))
        expect = (((seed * 131 + k * 37) % 1024 - 512) / 64.0).astype(np.float32).reshape(shape)
        assert np.array_equal(ds[()], expect), name
        assert np.array_equal(f["optim/m"][name][()], -expect), name
    assert f["train/step"].dtype == np.dtype("<i8") and f["train/step"][()] == 123456789012
    assert f["train/epoch"][()] == -3
    assert f["train/seed"].dtype == np.dtype("<u8") and f["train/seed"][()] == 2**64 - 1
    assert f["optim/lr"].dtype == np.dtype("<f8") and f["optim/lr"][()] == 0.001
    assert f["rng/state"][()].tolist() == [0x0123456789abcdef, 2**64 - 1, 0, 42]
    assert f["train/order"][()].tolist() == [4, 0, 3, 1, -2**63]
    assert f["train/empty"].shape == (0,)
    assert f["optim/history"][()].tolist() == [0.1, -0.0, 1e300]
    # a list of strings: uint8 bytes, each UTF-8 string ended by a NUL
    words = ["<pad>", "<unk>", "the", "naïve", "café", "日本語", "", "x y\tz"]
    assert f["vocab/words"].dtype == np.dtype("u1"), f["vocab/words"].dtype
    got = [b.decode("utf-8") for b in bytes(f["vocab/words"][()]).split(b"\0")[:-1]]
    assert got == words, got
    assert f["vocab/none"].shape == (0,)
    config = "model:\n  d_model: 64   # größe\n  n_heads: 4\ntrain:\n  lr: 0.001\n"
    assert f["config"].asstr()[()] == config, f["config"].asstr()[()]
# the documented header: size and zlib.crc32 of bytes 512..size-1
data = open(path, "rb").read()
head = data[:512].split(b"\0")[0].decode()
lines = head.split("\n")
assert lines[0] == "qkv-checkpoint", lines[0]
assert int(lines[1][len("size="):]) == len(data)
assert int(lines[2][len("crc32="):], 16) == zlib.crc32(data[512:])
print("h5py %s reads every item" % h5py.version.version)
PYEOF

# an edit through h5py: refused until re-sealed, then read by qkv
"$PY" - "$ckpt" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f["train/step"][()] = 77
PYEOF
if msg=$("$tool" step "$ckpt" 2>&1); then
    echo "FAIL: qkv read a file modified after saving: $msg"; exit 1
fi
case "$msg" in *"modified after saving"*|*"the header says"*) ;; *) echo "FAIL: unexpected message: $msg"; exit 1;; esac
echo "modified file refused: $msg"
"$PY" - "$ckpt" <<'PYEOF'
import sys, zlib
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
text = ("qkv-checkpoint\nsize=%020d\ncrc32=%08x\n" % (len(data), zlib.crc32(data[512:]))).encode()
old = bytes(data[:512]).split(b"\0")[0].decode().split("\n", 3)[3]  # keep the explanatory lines
header = text + old.encode()
data[:512] = header + b"\0" * (512 - len(header))
open(path, "wb").write(data)
PYEOF
step=$("$tool" step "$ckpt")
[ "$step" = 77 ] || { echo "FAIL: step after re-sealing is $step, expected 77"; exit 1; }
echo "re-sealed by python: qkv reads step $step"

# variable-length strings as h5py writes them (16-byte heap references in the dataset)
"$PY" - "$ckpt" <<'PYEOF'
import sys, zlib, h5py
path = sys.argv[1]
words = ["<pad>", "naïve", "日本語", "", "x y"]
with h5py.File(path, "r+") as f:
    f["vl/words"] = words
    f.create_dataset("vl/packed", data=words * 200, compression="gzip")
    f["vl/text"] = "model:\n  d_model: 64\n"
    assert f["vl/words"].id.get_type().is_variable_str()
    assert f["vl/words"].id.get_storage_size() == 16 * len(words)
data = bytearray(open(path, "rb").read())
text = ("qkv-checkpoint\nsize=%020d\ncrc32=%08x\n" % (len(data), zlib.crc32(data[512:]))).encode()
old = bytes(data[:512]).split(b"\0")[0].decode().split("\n", 3)[3]
header = text + old.encode()
data[:512] = header + b"\0" * (512 - len(header))
open(path, "wb").write(data)
PYEOF
got=$("$tool" strings "$ckpt" /vl/words | tr '\n' '|')
[ "$got" = "<pad>|naïve|日本語||x y|" ] || { echo "FAIL: h5py's strings read as $got"; exit 1; }
n=$("$tool" strings "$ckpt" /vl/packed | wc -l)
[ "$n" = 1000 ] || { echo "FAIL: h5py's compressed strings: $n read, expected 1000"; exit 1; }
got=$("$tool" text "$ckpt" /vl/text | tr '\n' '|')
[ "$got" = "model:|  d_model: 64||" ] || { echo "FAIL: h5py's text read as $got"; exit 1; }
echo "h5py's variable-length strings read"
echo "PASS"
