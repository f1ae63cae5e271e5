#!/bin/bash
# python/qkv_torch.py without one of the packages it needs (a stand-in h5py that fails to
# import, first on the path): the command exits 1 with one line naming the package and how to
# install it, no traceback; `import qkv_torch` raises an ImportError saying the same. Needs only
# a Python 3, not torch.
set -eu
SRC=${QKV_SOURCE_DIR:?}
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work/fake/h5py"
echo 'raise ImportError("No module named h5py", name="h5py")' >"$work/fake/h5py/__init__.py"
HINT="apt-get install python3-numpy python3-h5py python3-yaml python3-torch"
status=0
PYTHONPATH=$work/fake "$PY" "$SRC/python/qkv_torch.py" tag "$work/none.h5" </dev/null >"$work/out" 2>"$work/err" || status=$?
[ "$status" = 1 ] || { cat "$work/err"; fail "qkv_torch.py without h5py exited $status, expected 1"; }
[ "$(wc -l <"$work/err")" = 1 ] || { cat "$work/err"; fail "not one line on stderr"; }
grep -q "^qkv_torch.py: qkv_torch cannot import h5py: it needs .*$HINT" "$work/err" || { cat "$work/err"; fail "no hint"; }
PYTHONPATH=$work/fake:$SRC/python "$PY" - "$HINT" <<'PY' || fail "import qkv_torch without h5py"
import sys
try:
    import qkv_torch  # noqa: F401
except ImportError as e:
    assert "cannot import h5py" in str(e) and sys.argv[1] in str(e), e
else:
    sys.exit("imported without h5py")
PY
echo ok
