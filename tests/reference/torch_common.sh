# Sourced by the tests/reference/test_torch_*.sh tests that run python/qkv_torch.py: skips
# (exit 77) when /usr/bin/python3 lacks torch, h5py, yaml or numpy; sets PY, SRC (this source
# tree when QKV_SOURCE_DIR is not set), QKV_BIN, a scratch folder $work removed on exit, fail,
# make_test_idx, and the parity checks torch_logits and torch_compare with their status.
PY=/usr/bin/python3
if ! "$PY" -c 'import torch, h5py, yaml, numpy' 2>/dev/null; then
    echo "skipped: $PY cannot import torch, h5py, yaml and numpy (apt-get install python3-torch python3-h5py python3-yaml)"
    exit 77
fi
SRC=${QKV_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
QKV_BIN=${QKV_BIN:?QKV_BIN must name the qkv binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# make_test_idx N: writes the first N test images and their labels of the shipped Fashion-MNIST
# sample as uncompressed IDX files (the count in their header rewritten to N) into
# $work/test-images-idx3-ubyte and $work/test-labels-idx1-ubyte; fails the test when it cannot.
make_test_idx() {
    "$PY" - "$SRC/data/fashion_mnist_sample" "$work" "$1" <<'PY' || fail "making the $1-image IDX files"
import gzip, sys
n = int(sys.argv[3])
for kind, size in (("images-idx3", 28 * 28), ("labels-idx1", 1)):
    raw = gzip.open(f"{sys.argv[1]}/t10k-{kind}-ubyte.gz").read()
    head = 8 if kind.startswith("labels") else 16
    open(f"{sys.argv[2]}/test-{kind}-ubyte", "wb").write(raw[:4] + n.to_bytes(4, "big") + raw[8:head] +
                                                        raw[head:head + n * size])
PY
}

# The torch tests' checks: torch_logits, then torch_compare; each failure prints
# "FAIL (NAME): ..." and sets status=1 (the test exits with $status).
status=0
# torch_logits NAME CONFIG INPUT KEY=VALUE...: trains CONFIG into $work/NAME (each KEY=VALUE a
# --set, in order), dumps the logits of INPUT with qkv eval --logits into $work/NAME.logits.h5
# and prints "NAME: " and the first line of qkv eval's report (edited by $TORCH_SUMMARY, a sed
# expression, when set). Returns 1 when training or eval fails.
torch_logits() {
    local name=$1 config=$2 input=$3
    shift 3
    local sets=()
    for kv in "$@"; do sets+=(--set "$kv"); done
    if ! "$QKV_BIN" train "$config" --out "$work/$name" "${sets[@]}" >"$work/$name.log" 2>&1; then
        echo "FAIL ($name): qkv train failed:"; tail -20 "$work/$name.log"; status=1; return 1
    fi
    if ! "$QKV_BIN" eval "$work/$name/checkpoints/last.h5" "$input" --logits "$work/$name.logits.h5" \
        >"$work/$name.eval" 2>&1; then
        echo "FAIL ($name): qkv eval --logits failed:"; cat "$work/$name.eval"; status=1; return 1
    fi
    echo "$name: $(head -1 "$work/$name.eval" | sed "${TORCH_SUMMARY:-}")"
}
# torch_compare NAME INPUT [ARGS...]: python/qkv_torch.py compare of $work/NAME's last checkpoint
# on INPUT against $work/NAME.logits.h5, within 1e-4 relative (ARGS: more of its options).
torch_compare() {
    local name=$1 input=$2
    shift 2
    if ! PYTHONPATH=$SRC/python "$PY" "$SRC/python/qkv_torch.py" compare "$work/$name/checkpoints/last.h5" "$input" \
        "$work/$name.logits.h5" --rtol 1e-4 "$@"; then
        echo "FAIL ($name): PyTorch and qkv disagree"; status=1
    fi
}
