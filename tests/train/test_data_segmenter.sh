#!/bin/bash
# data.segmenter: a tagger's run stores the segmenter in best.h5 and last.h5 (under /segmenter),
# without changing the training; qkv tag --format text and qkv eval --raw then read raw text with
# it as with --tokenizer, and qkv export keeps it; a tagger or a missing file as the segmenter,
# or a segmenter run naming one, is refused.
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
quick_run "$SCRATCH/plain" --set train.max_steps=10 --set train.threads=1
quick_run "$SCRATCH/run" --set train.max_steps=10 --set train.threads=1 --set data.segmenter="$seg"
for f in last best; do
    "$PY" - "$SCRATCH/run/checkpoints/$f.h5" "$SCRATCH/plain/checkpoints/$f.h5" "$seg" <<'PY' || fail "$f.h5's contents"
import sys, h5py, numpy as np
run, plain, seg = (h5py.File(p, "r") for p in sys.argv[1:])
assert "segmenter" in run and "segmenter" not in plain, sorted(run)
for name in seg["params"]:
    assert np.array_equal(run["segmenter/params"][name], seg["params"][name]), name
for name in plain["params"]:
    assert np.array_equal(run["params"][name], plain["params"][name]), f"training changed: {name}"
PY
done
ckpt=$SCRATCH/run/checkpoints/best.h5
printf 'I don'"'"'t know, she said. The cat sat.\n\nThe end\n' >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$SCRATCH/plain/checkpoints/best.h5" --format text --tokenizer "$seg" "$SCRATCH/in.txt" >"$SCRATCH/want.conllu"
"$QKV_BIN" tag "$ckpt" --format text "$SCRATCH/in.txt" >"$SCRATCH/got.conllu" || fail "qkv tag best.h5 --format text"
cmp -s "$SCRATCH/got.conllu" "$SCRATCH/want.conllu" || fail "best.h5 does not tag raw text with its segmenter"
"$QKV_BIN" eval "$SCRATCH/plain/checkpoints/best.h5" "$SCRATCH/dev.conllu" --raw --tokenizer "$seg" >"$SCRATCH/want.txt"
"$QKV_BIN" eval "$ckpt" "$SCRATCH/dev.conllu" --raw >"$SCRATCH/got.txt" || fail "eval --raw with the bundled segmenter"
grep -q "(${ckpt}:/segmenter)" "$SCRATCH/got.txt" || fail "eval --raw does not name the bundled segmenter"
diff <(tail -n +2 "$SCRATCH/got.txt") <(tail -n +2 "$SCRATCH/want.txt") >&2 ||
    fail "eval --raw with the bundled segmenter scores differently from --tokenizer"
"$QKV_BIN" export "$ckpt" --out "$SCRATCH/model.h5" 2>/dev/null || fail "export"
"$QKV_BIN" tag "$SCRATCH/model.h5" --format text "$SCRATCH/in.txt" | cmp -s - "$SCRATCH/want.conllu" ||
    fail "the export of best.h5 lost its segmenter"
# refused: a tagger as the segmenter, a missing file, a segmenter run naming one
expect_error "not a segmenter" "$QKV_BIN" train tests/train/synthetic.yaml --out "$SCRATCH/bad1" --set log.progress=off \
    --set train.max_steps=2 --set data.segmenter="$SCRATCH/plain/checkpoints/best.h5"
expect_error "data.segmenter: checkpoint $SCRATCH/none.h5: cannot open" "$QKV_BIN" train tests/train/synthetic.yaml --out "$SCRATCH/bad2" \
    --set log.progress=off --set train.max_steps=2 --set data.segmenter="$SCRATCH/none.h5"
[ ! -e "$SCRATCH/bad1/metrics.tsv" ] && [ ! -e "$SCRATCH/bad2/metrics.tsv" ] || fail "a refused run wrote its folder"
echo "ok: data.segmenter in best.h5 and last.h5; qkv tag, eval --raw and export use it; bad ones refused"
