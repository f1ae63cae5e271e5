#!/bin/bash
# qkv export: an exported model holds the weights (the averaged ones under
# train.ema_decay), vocabularies and config, and no optimizer or training state; qkv eval, tag,
# attention and positions read it as they read the checkpoint; best.h5 keeps only the run's ID
# and step besides the model; resuming from an export or from best.h5 is a clear error.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
make_model
last=$SCRATCH/run/checkpoints/last.h5 best=$SCRATCH/run/checkpoints/best.h5 model=$SCRATCH/model.h5
grep -q "model.h5: .* MB (the checkpoint: .* MB)" "$SCRATCH/export.log" || fail "qkv export reports no sizes"
[ "$(stat -c %s "$model")" -lt "$(( $(stat -c %s "$last") / 2 ))" ] || fail "the export is not smaller than half of last.h5"
# the same evaluation and tags from the export as from the checkpoint
"$QKV_BIN" synth --sentences 50 --seed 3 >"$SCRATCH/dev.conllu"
"$QKV_BIN" eval "$last" "$SCRATCH/dev.conllu" --json >"$SCRATCH/eval_last.json"
"$QKV_BIN" eval "$model" "$SCRATCH/dev.conllu" --json >"$SCRATCH/eval_model.json"
strip_time() { grep -o '"accuracy": *[0-9.e-]*\|"loss": *[0-9.e-]*' "$1"; }
[ -n "$(strip_time "$SCRATCH/eval_model.json")" ] || fail "no accuracy in qkv eval --json"
[ "$(strip_time "$SCRATCH/eval_last.json")" = "$(strip_time "$SCRATCH/eval_model.json")" ] ||
    fail "qkv eval differs between the checkpoint and its export"
"$QKV_BIN" tag "$last" "$SCRATCH/sentences.txt" --format text >"$SCRATCH/tag_last.conllu"
cmp -s "$SCRATCH/tag_last.conllu" "$SCRATCH/tagged.conllu" || fail "qkv tag differs between the checkpoint and its export"
if command -v gnuplot >/dev/null; then
    "$QKV_BIN" positions "$model" --out "$SCRATCH/pos.png" >/dev/null 2>&1 || fail "qkv positions on an export"
    "$QKV_BIN" attention "$model" --sentence "the dog sees a cat" --out "$SCRATCH/att.png" >/dev/null 2>"$SCRATCH/att.err" ||
        { cat "$SCRATCH/att.err" >&2; fail "qkv attention on an export"; }
fi
# what each file holds (h5py, when there)
if "$PY" -c 'import h5py, numpy' 2>/dev/null; then
    "$PY" - "$last" "$best" "$model" <<'PYEOF' || fail "the contents of the export, best.h5 or last.h5"
import sys, h5py, numpy as np
last, best, model = (h5py.File(p, "r") for p in sys.argv[1:])
assert set(model) == {"params", "vocab", "config"}, f"export holds {sorted(model)}"
assert set(best) == {"params", "vocab", "config", "train"}, f"best.h5 holds {sorted(best)}"
assert set(best["train"]) == {"run_id", "step"}, f"best.h5's /train holds {sorted(best['train'])}"
assert "optim" in last and "raw_params" in last["train"], "last.h5 lacks what --resume needs"
gap = 0.0
for name in last["params"]:
    a, b = np.array(last["params"][name]), np.array(model["params"][name])
    assert a.dtype == b.dtype == np.float32 and np.array_equal(a, b), f"/params/{name} differs"
    gap = max(gap, float(np.abs(a - np.array(last["train/raw_params"][name])).max()))
assert gap > 1e-4, f"the average and the raw parameters differ by only {gap}: the check proves nothing"
assert set(model["vocab"]) == set(last["vocab"])
PYEOF
fi
# resuming: only last.h5 carries what a run needs
for f in "$model" "$best"; do
    expect_error "resume from the run's checkpoints/last.h5" \
        "$QKV_BIN" train tests/train/synthetic.yaml --out "$SCRATCH/resumed" --resume "$f" --set log.progress=off \
        --set train.ema_decay=0.9
    [ ! -e "$SCRATCH/resumed/metrics.tsv" ] || fail "a refused resume wrote a run folder"
done
grep -q "an exported model" <("$QKV_BIN" train tests/train/synthetic.yaml --out "$SCRATCH/r2" --resume "$model" 2>&1) ||
    fail "the resume error does not say the file is an export"
# bad exports: a missing input, an existing output, an output over the input
expect_error "$SCRATCH/none.h5" "$QKV_BIN" export "$SCRATCH/none.h5" --out "$SCRATCH/x.h5"
[ ! -e "$SCRATCH/x.h5" ] || fail "a failed export left a file"
expect_error "already exists" "$QKV_BIN" export "$last" --out "$model"
"$QKV_BIN" export "$last" --out "$model" --force 2>/dev/null || fail "export --force"
expect_error "writing it would destroy it" "$QKV_BIN" export "$last" --out "$last" --force
expect_error "--out" "$QKV_BIN" export "$last"
ls "$SCRATCH"/*.tmp-* "$SCRATCH"/run/checkpoints/*.tmp-* 2>/dev/null && fail "temporary files left behind"
"$QKV_BIN" export --help | grep -q "optimizer state" || fail "qkv export --help"
"$QKV_BIN" --help | grep -q "^  export " || fail "qkv --help does not list export"
# the export's config is the checkpoint's with every path reduced to its file's name: no folder
# of the machine that trained it (a run on the shipped sample names its files absolutely)
"$QKV_BIN" train configs/quickstart.yaml --out "$SCRATCH/sample" --set train.max_steps=1 --set log.progress=off \
    >/dev/null 2>&1 || fail "a one-step run on the sample"
"$QKV_BIN" export "$SCRATCH/sample/checkpoints/last.h5" --out "$SCRATCH/sample.h5" >/dev/null || fail "export of it"
if [ -n "$PY" ] && "$PY" -c "import h5py" 2>/dev/null; then
    "$PY" - "$SCRATCH/sample/checkpoints/last.h5" "$SCRATCH/sample.h5" <<'PYEOF' || fail "the paths in the export's config"
import re, sys, h5py
saved, shipped = (h5py.File(p, "r")["config"][()].decode() for p in sys.argv[1:3])
assert re.search(r'^  train: "/.*/en_ewt-sample-train.conllu.gz"$', saved, re.M), "no absolute data.train in last.h5"
assert shipped == re.sub(r'"/(?:[^"/]*/)*([^"/]+)"', r'"\1"', saved), "the export's config is not the checkpoint's"
assert not re.search(r'"/', shipped), "an absolute path in the export's config"
PYEOF
else
    grep -aq "ud_english_ewt_sample/" "$SCRATCH/sample.h5" && fail "the export's config names the sample's folder"
fi
echo "ok: export = checkpoint for eval, tag, attention, positions; no training state; resume refused"
