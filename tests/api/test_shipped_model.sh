#!/bin/bash
# A model by name: `qkv tag` with no model takes $QKV_MODEL, else en.h5 from $QKV_MODEL_DIR (then
# the shipped places), and reads raw text with its bundled segmenter; --model names one in place
# of CHECKPOINT; qkv_model_open_named opens en.h5 the same way; a missing model is an error that
# names where it looked; the build compiles no path of the source tree in, and a build folder in
# the source tree finds data/models/en.h5 beside its program. The input is raw text with --model,
# $QKV_MODEL and the shipped model, CoNLL-U with CHECKPOINT.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
BIN=${QKV_BUILD_DIR:?}/tests/api_text
[ -x "$BIN" ] || fail "$BIN is not built"
make_segmenter
quick_run "$SCRATCH/tagger" --set train.max_steps=10 --set train.threads=1
tagger=$SCRATCH/tagger/checkpoints/last.h5
mkdir -p "$SCRATCH/models"
"$QKV_BIN" export "$tagger" --tokenizer "$SCRATCH/seg/checkpoints/last.h5" --out "$SCRATCH/models/en.h5" 2>/dev/null ||
    fail "export --tokenizer"
printf 'I don'"'"'t know, she said. The cat sat.\n\nThe end\n' >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$SCRATCH/models/en.h5" --format text "$SCRATCH/in.txt" >"$SCRATCH/want.conllu" || fail "qkv tag MODEL"
grep -q '^# sent_id = 2$' "$SCRATCH/want.conllu" || fail "too few sentences to compare"

# no model: en.h5 of $QKV_MODEL_DIR, raw text from standard input
QKV_MODEL_DIR=$SCRATCH/models "$QKV_BIN" tag <"$SCRATCH/in.txt" >"$SCRATCH/default.conllu" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "qkv tag without a model"; }
cmp -s "$SCRATCH/default.conllu" "$SCRATCH/want.conllu" || fail "qkv tag without a model is not en.h5 on raw text"
# $QKV_MODEL wins over the folders; --model over $QKV_MODEL; one positional argument is then FILE
"$QKV_BIN" tag "$tagger" --format text "$SCRATCH/in.txt" >"$SCRATCH/plain.conllu"
cmp -s "$SCRATCH/plain.conllu" "$SCRATCH/want.conllu" && fail "the tagger alone tags as the bundle: the checks prove nothing"
QKV_MODEL=$tagger QKV_MODEL_DIR=$SCRATCH/models "$QKV_BIN" tag "$SCRATCH/in.txt" >"$SCRATCH/env.conllu" ||
    fail "qkv tag with QKV_MODEL"
cmp -s "$SCRATCH/env.conllu" "$SCRATCH/plain.conllu" || fail "QKV_MODEL does not choose the model"
QKV_MODEL=$tagger "$QKV_BIN" tag --model "$SCRATCH/models/en.h5" --format text "$SCRATCH/in.txt" >"$SCRATCH/flag.conllu" ||
    fail "qkv tag --model"
cmp -s "$SCRATCH/flag.conllu" "$SCRATCH/want.conllu" || fail "--model does not win over QKV_MODEL"
# the input format follows how the model is named: --model reads raw text as $QKV_MODEL and the
# shipped model do, CHECKPOINT CoNLL-U; --format chooses either way
"$QKV_BIN" tag --model "$SCRATCH/models/en.h5" <"$SCRATCH/in.txt" >"$SCRATCH/model_stdin.conllu" ||
    fail "qkv tag --model on raw text from standard input"
cmp -s "$SCRATCH/model_stdin.conllu" "$SCRATCH/want.conllu" || fail "qkv tag --model does not read raw text"
"$QKV_BIN" tag --model "$SCRATCH/models/en.h5" --format conllu "$SCRATCH/want.conllu" >"$SCRATCH/again.conllu" ||
    fail "qkv tag --model --format conllu"
cmp -s "$SCRATCH/again.conllu" "$SCRATCH/want.conllu" || fail "qkv tag --model --format conllu does not read CoNLL-U"
"$QKV_BIN" tag "$SCRATCH/models/en.h5" "$SCRATCH/want.conllu" | cmp -s - "$SCRATCH/want.conllu" ||
    fail "qkv tag CHECKPOINT does not read CoNLL-U"
expect_error "give one" "$QKV_BIN" tag "$tagger" "$SCRATCH/in.txt" --model "$tagger"
QKV_MODEL=$SCRATCH/none.h5 expect_error "QKV_MODEL=$SCRATCH/none.h5" "$QKV_BIN" tag "$SCRATCH/in.txt"

# the C API by name
QKV_MODEL_DIR=$SCRATCH/models "$BIN" name:en - "$SCRATCH/in.txt" >"$SCRATCH/api.conllu" 2>"$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "qkv_model_open_named(\"en\")"; }
cmp -s "$SCRATCH/api.conllu" "$SCRATCH/want.conllu" || fail "qkv_model_open_named(\"en\") is not en.h5"
QKV_MODEL_DIR=$SCRATCH/models "$BIN" name:nosuch - "$SCRATCH/in.txt" >/dev/null 2>"$SCRATCH/err" &&
    fail "a missing model opened"
grep -q "no shipped model 'nosuch': looked for $SCRATCH/models/nosuch.h5, .*/data/models/nosuch.h5" "$SCRATCH/err" ||
    { cat "$SCRATCH/err" >&2; fail "the missing model's error does not name where it looked"; }
QKV_MODEL_DIR=$SCRATCH/models "$BIN" name:../en - "$SCRATCH/in.txt" >/dev/null 2>"$SCRATCH/err" && fail "a path as a name"
grep -q "not a model name" "$SCRATCH/err" || fail "a path as a name: no clear error"
# a damaged model given alone is still the model: its error, not raw tagging of its bytes
head -c 100000 "$SCRATCH/models/en.h5" >"$SCRATCH/cut.h5"
expect_error "checkpoint $SCRATCH/cut.h5: truncated" "$QKV_BIN" tag "$SCRATCH/cut.h5"
# the build does not compile its source folder in (an installed library must not depend on it):
# a build folder in the source tree finds the shipped model beside its program, ../data/models
for f in "$QKV_BUILD_DIR"/api/libqkv.so "$QKV_BIN"; do
    ! grep -qaF "$QKV_SOURCE_DIR/data/models" "$f" || fail "$f holds the source tree's data/models path"
done
if [ -f "$(dirname "$QKV_BIN")/../data/models/en.h5" ]; then
    echo "The end." | env -u QKV_MODEL -u QKV_MODEL_DIR "$QKV_BIN" tag >"$SCRATCH/tree.conllu" 2>"$SCRATCH/err" ||
        { cat "$SCRATCH/err" >&2; fail "qkv tag without a model, from a build folder in the source tree"; }
    grep -qP '^1\tThe\t' "$SCRATCH/tree.conllu" || fail "qkv tag from the build folder wrote no word"
fi
echo "ok: qkv tag without a model, QKV_MODEL, QKV_MODEL_DIR, --model, qkv_model_open_named, missing models, found beside the program"
