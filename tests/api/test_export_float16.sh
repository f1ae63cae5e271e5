#!/bin/bash
# qkv export --float16: every parameter stored as IEEE binary16, each the float32 export's value
# rounded to nearest even (numpy's float16 cast, an independent rounding), in about half the
# bytes; qkv eval and tag read the file as any export, and tag nearly every word alike.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
make_model
last=$SCRATCH/run/checkpoints/last.h5 model=$SCRATCH/model.h5 half=$SCRATCH/half.h5
"$QKV_BIN" export "$last" --float16 --out "$half" 2>/dev/null || fail "qkv export --float16"
[ "$(stat -c %s "$half")" -lt "$(( $(stat -c %s "$model") * 6 / 10 ))" ] ||
    fail "the float16 export is not under 60% of the float32 one"
"$QKV_BIN" tag "$half" "$SCRATCH/sentences.txt" --format text >"$SCRATCH/tag_half.conllu" || fail "qkv tag on a float16 export"
same=$(paste <(conllu_to_tsv "$SCRATCH/tag_half.conllu") "$SCRATCH/expected.tsv" | awk -F'\t' 'NF == 4 { n++; s += $2 == $4 } END { print (s >= 0.98 * n) }')
[ "$same" = 1 ] || fail "the float16 export tags under 98% of the words as the float32 export"
# the main check, the values against numpy's rounding: without h5py and numpy, a skip that says so
if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
    echo "skipped: $PY cannot import h5py and numpy: the values are not compared with numpy's float16 rounding (apt-get install python3-h5py python3-numpy)"
    exit 77
fi
"$PY" - "$model" "$half" <<'PYEOF' || fail "the float16 export's values"
import sys, h5py, numpy as np
full, half = (h5py.File(p, "r") for p in sys.argv[1:])
assert set(full["params"]) == set(half["params"])
for name in full["params"]:
    a, b = np.array(full["params"][name]), np.array(half["params"][name])
    assert b.dtype == np.float16, f"/params/{name} is {b.dtype}"
    assert np.array_equal(a.astype(np.float16), b), f"/params/{name} is not the float32 values rounded"
assert np.array_equal(full["config"][()], half["config"][()])
PYEOF
echo "ok: export --float16 stores binary16 rounded to nearest even, tags as the float32 export"
