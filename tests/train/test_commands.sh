#!/bin/bash
# The qkv command end to end on a short quick-start run: checkpoint reload, eval (with a tag
# unseen in training), tag (every byte but the tag column kept), gradcheck (passes, and fails
# on a deliberately broken backward), help and usage errors.
. "$(dirname "$0")/common.sh"
quick_run "$SCRATCH/run" --set train.max_steps=40 --set train.threads=1
ckpt="$SCRATCH/run/checkpoints/best.h5"
[ -s "$ckpt" ] && [ -s "$SCRATCH/run/config.yaml" ] && [ -s "$SCRATCH/run/metrics.tsv" ] || fail "run folder incomplete"
head -1 "$SCRATCH/run/metrics.tsv" | grep -q "^step	epoch	split	loss	accuracy" || fail "metrics.tsv header"

# Reload: the trainer's last dev evaluation and 'qkv eval' of the saved checkpoint agree.
"$QKV_BIN" train tests/train/synthetic.yaml --set train.max_steps=40 --set train.threads=1 --set log.progress=off \
    --out "$SCRATCH/run2" >"$SCRATCH/report" 2>/dev/null
train_acc=$(awk -F'\t' '$3 == "dev" {a = $5} END {print a}' "$SCRATCH/run2/metrics.tsv")
"$PY" - "$SCRATCH/run2/checkpoints/last.h5" <<'PY' || fail "checkpoint not readable with h5py"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f["params/classifier.w"].dtype == "<f4", f["params/classifier.w"].dtype
assert f["params/classifier.w"].shape[1] == 64
assert b"d_model: 64" in bytes(f["config"][()]) if not isinstance(f["config"][()], str) else "d_model: 64" in f["config"][()]
PY

# eval on a file with a tag never seen in training: a warning, counted as an error, no crash
printf '1\tthe\t_\tDET\t_\t_\t_\t_\t_\t_\n2\tduck\t_\tNOUN\t_\t_\t_\t_\t_\t_\n3\tzzz\t_\tFOO\t_\t_\t_\t_\t_\t_\n\n' >"$SCRATCH/unseen.conllu"
"$QKV_BIN" eval "$ckpt" "$SCRATCH/unseen.conllu" --json >"$SCRATCH/eval.json" 2>"$SCRATCH/eval.err" || fail "eval failed"
grep -q 'tag "FOO" is not among' "$SCRATCH/eval.err" || fail "no warning for the unseen tag"
[ "$(grep -c FOO "$SCRATCH/eval.err")" = 1 ] || fail "the unseen-tag warning must be given once"
"$PY" - "$SCRATCH/eval.json" <<'PY' || fail "eval JSON"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["words"] == 3 and r["unknown_gold"] == 1 and r["correct"] <= 2, r
PY

# tag: a CoNLL-U file comes back byte for byte except the UPOS column
dev=$SCRATCH/dev.conllu
"$QKV_BIN" synth --sentences 50 --seed 7 >"$dev" || fail "synth"
"$QKV_BIN" tag "$ckpt" "$dev" >"$SCRATCH/tagged.conllu" || fail "tag failed"
[ "$(wc -l <"$dev")" = "$(wc -l <"$SCRATCH/tagged.conllu")" ] || fail "tag changed the line count"
strip4() { awk -F'\t' 'BEGIN {OFS = "\t"} NF == 10 {$4 = "*"} {print}' "$1"; }
diff <(strip4 "$dev") <(strip4 "$SCRATCH/tagged.conllu") >/dev/null || fail "tag changed more than the tag column"
cmp -s "$dev" "$SCRATCH/tagged.conllu" && fail "tag predicted exactly the gold tags of a 40-step model?"
echo "the old man the boats ." | "$QKV_BIN" tag "$ckpt" --format text >"$SCRATCH/text.conllu" || fail "tag --format text"
[ "$(grep -c '	' "$SCRATCH/text.conllu")" = 6 ] || fail "text tagging should give 6 word lines"

# gradcheck: passes; a backward scaled by 1.01 fails
"$QKV_BIN" gradcheck tests/train/synthetic.yaml --samples 4 >"$SCRATCH/gc" || { cat "$SCRATCH/gc"; fail "gradcheck failed"; }
grep -q "all .* tensors pass" "$SCRATCH/gc" || fail "gradcheck summary"
for op in layer_norm attention; do
    if QKV_BREAK_BACKWARD=$op "$QKV_BIN" gradcheck tests/train/synthetic.yaml --samples 4 >"$SCRATCH/gc"; then
        fail "gradcheck passed with the $op backward broken"
    fi
    grep -q FAIL "$SCRATCH/gc" || fail "no FAIL row with $op broken"
done

# found by trying qkv as a new user: each of these once misbehaved
expect_error "--out needs a folder name" "$QKV_BIN" train tests/train/synthetic.yaml --out ""
expect_error "already holds a run" "$QKV_BIN" train tests/train/synthetic.yaml --out "$SCRATCH/run"
: | "$QKV_BIN" tag "$ckpt" --format text >"$SCRATCH/empty.out" || fail "tag of empty input"
[ ! -s "$SCRATCH/empty.out" ] || fail "tag of empty input should print nothing"
: >"$SCRATCH/empty.conllu"
expect_error "no words to evaluate" "$QKV_BIN" eval "$ckpt" "$SCRATCH/empty.conllu"
"$QKV_BIN" attention "$ckpt" --sentence "100% of '' \"dogs\" a\\b" --out "$SCRATCH/odd.png" >/dev/null ||
    fail "attention heatmap of words with %, quotes and a backslash"
expect_error "at most 200" "$QKV_BIN" attention "$ckpt" --sentence "$(printf 'w %.0s' $(seq 300))" --out "$SCRATCH/x.png"
"$QKV_BIN" config >/dev/null || fail "qkv config without CONFIG prints the defaults"

# help, version, usage errors
"$QKV_BIN" --help | grep -q "train" || fail "--help"
"$QKV_BIN" --version | grep -q "^qkv " || fail "--version"
for cmd in train eval tag gradcheck stats synth; do "$QKV_BIN" $cmd --help >/dev/null || fail "$cmd --help"; done
expect_error "unknown command" "$QKV_BIN" frobnicate
grep -q "did you mean" "$SCRATCH/err" && fail "a suggestion for a command nothing is near"
# a typo of a command is suggested, as for options and config keys (exit 2: a usage error)
# ... and a longer or shorter form of its name (evaluate for eval, pos for positions)
for typo in trian:train evl:eval tga:tag polt:plot exprot:export evaluate:eval pos:positions synthesize:synth; do
    expect_error "unknown command '${typo%%:*}', did you mean '${typo#*:}'?" "$QKV_BIN" "${typo%%:*}" x
done
# qkv config checks that the files a config names exist (each path key), after printing it
printf 'data:\n  train: %s/no-train.conllu\n  dev: %s/no-dev.conllu\n' "$SCRATCH" "$SCRATCH" >"$SCRATCH/paths.yaml"
expect_error "paths.yaml: data.train: $SCRATCH/no-train.conllu: cannot open" "$QKV_BIN" config "$SCRATCH/paths.yaml"
grep -q "data.dev: $SCRATCH/no-dev.conllu: cannot open" "$SCRATCH/err" || fail "qkv config: no line for data.dev"
grep -qF "train: \"$SCRATCH/no-train.conllu\"" "$SCRATCH/out" || fail "qkv config: the resolved config is not printed"
"$QKV_BIN" config configs/quickstart.yaml >/dev/null || fail "qkv config of the quick start (its data exist)"
status=0; "$QKV_BIN" trian >/dev/null 2>&1 || status=$?
[ "$status" = 2 ] || fail "an unknown command exited $status, expected 2"
expect_error "missing CONFIG" "$QKV_BIN" train
expect_error "cannot open" "$QKV_BIN" eval "$SCRATCH/none.h5" "$dev"
echo "commands: ok"
