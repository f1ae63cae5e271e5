#!/bin/bash
# The PyTorch port lowercases and shapes words as qkv does (python/qkv_torch_data.py
# against data/utf8.c + libunistring): every code point U+0001..U+10FFFF, and words whose
# lowercase depends on context (final sigma) or grows (İ). Skips (77) when the port's modules
# (torch, h5py, yaml, numpy) cannot be imported.
set -euo pipefail
PY=/usr/bin/python3
SRC=${QKV_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! "$PY" -c 'import torch, h5py, yaml, numpy' 2>/dev/null; then
    echo "SKIP: $PY cannot import torch, h5py, yaml and numpy (apt-get install python3-torch python3-h5py python3-yaml)"
    exit 77
fi
tool="${QKV_BUILD_DIR:?QKV_BUILD_DIR not set (run through ctest)}/tests/unicode_table"
[ -x "$tool" ] || { echo "FAIL: $tool not built"; exit 1; }
"$tool" "ΟΔΟΣ" "ΣΟΦΟΣ" "Σ" "ΑΣ." "İSTANBUL" "ǅUNGLA" "STRAẞE" "Ⱥ" "VIỆT" "日本語" "x²" "١٢٣" |
    PYTHONPATH="$SRC/python" "$PY" -c '
import sys, unicodedata
from qkv_torch_data import lower, shape
def text(h):
    return "" if h == "-" else "".join(chr(int(c, 16)) for c in h.split("."))
n = bad = 0
for line in sys.stdin:
    kind, s, lo, sh = line.split()
    s, lo, sh = text(s), text(lo), text(sh)
    n += 1
    if lower(s) != lo or shape(s) != sh:
        bad += 1
        if bad <= 20:
            print("differs: %s %r: qkv lower %r shape %r, port lower %r shape %r" % (kind, s, lo, sh, lower(s), shape(s)))
print("%d strings compared (Python %s, Unicode %s): %d differ" % (n, sys.version.split()[0], unicodedata.unidata_version, bad))
sys.exit(1 if bad or n < 1112000 else 0)
'
