# Sourced by the tests/reference/test_torch_*.sh tests that run python/qkv_torch.py: skips
# (exit 77) when /usr/bin/python3 lacks torch, h5py, yaml or numpy; sets PY, SRC, QKV_BIN, a
# scratch folder $work removed on exit, and fail.
PY=/usr/bin/python3
if ! "$PY" -c 'import torch, h5py, yaml, numpy' 2>/dev/null; then
    echo "skipped: $PY cannot import torch, h5py, yaml and numpy (apt-get install python3-torch python3-h5py python3-yaml)"
    exit 77
fi
SRC=${QKV_SOURCE_DIR:?}
QKV_BIN=${QKV_BIN:?QKV_BIN must name the qkv binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
