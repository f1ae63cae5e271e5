#!/bin/bash
# qkv tag --sentence-per-line with the shipped English model: raw text of one sentence a line is
# tokenized by the bundled segmenter but never split into sentences otherwise than at line ends
# (a line without final punctuation stays one sentence); blank lines still separate paragraphs.
# Raw-text output follows the CoNLL-U conventions: "# newpar" before a paragraph's first
# sentence, SpaceAfter=No before a token that follows without space, SpacesAfter= for any other
# whitespace than one space (\s, \t, \n). A model without a segmenter refuses the option.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
model=$QKV_SOURCE_DIR/data/models/en.h5
[ -s "$model" ] || fail "$model is missing"
printf 'Hello world how are you\nI am fine. Thanks\n\nNew  paragraph here.\tYes\n' >"$SCRATCH/in.txt"
"$QKV_BIN" tag --model "$model" --sentence-per-line "$SCRATCH/in.txt" >"$SCRATCH/out.conllu" ||
    fail "qkv tag --sentence-per-line"
texts=$(grep '^# text = ' "$SCRATCH/out.conllu" | sed 's/^# text = //')
want=$(printf 'Hello world how are you\nI am fine. Thanks\nNew  paragraph here. Yes')
[ "$texts" = "$want" ] || { cat "$SCRATCH/out.conllu" >&2; fail "sentences are not the lines: $texts"; }
# "# newpar" before sentences 1 and 3, not 2
awk '/^# newpar$/ { p = 1; next } /^# sent_id = / { printf "%s%s ", $4, p ? "p" : ""; p = 0 } END { print "" }' \
    "$SCRATCH/out.conllu" >"$SCRATCH/pars"
[ "$(cat "$SCRATCH/pars")" = "1p 2 3p " ] || fail "# newpar: $(cat "$SCRATCH/pars")"
misc() { awk -F'\t' -v f="$1" 'NF == 10 && $2 == f { print $10; exit }' "$SCRATCH/out.conllu"; }
[ "$(misc you)" = 'SpacesAfter=\n' ] || fail "you: $(misc you)"
[ "$(misc New)" = 'SpacesAfter=\s\s' ] || fail "New: $(misc New)"
[ "$(misc fine)" = 'SpaceAfter=No' ] || fail "fine: $(misc fine)"
awk -F'\t' 'NF == 10 && $2 == "." && $10 == "SpacesAfter=\\t" { n++ } END { exit n != 1 }' "$SCRATCH/out.conllu" ||
    fail "no SpacesAfter=\\t after \"here.\""
[ "$(misc world)" = '_' ] || fail "world: $(misc world)"
# without the option the segmenter ends sentences where it finds them (here after "fine.")
"$QKV_BIN" tag --model "$model" --format text "$SCRATCH/in.txt" >"$SCRATCH/raw.conllu" || fail "qkv tag"
[ "$(grep -c '^# sent_id' "$SCRATCH/raw.conllu")" -ne 3 ] || fail "the check proves nothing: the segmenter found the lines"
quick_run "$SCRATCH/tagger" --set train.max_steps=1 --set train.threads=1
expect_error "needs a segmenter" "$QKV_BIN" tag "$SCRATCH/tagger/checkpoints/last.h5" --sentence-per-line "$SCRATCH/in.txt"
expect_error "--sentence-per-line reads raw text" "$QKV_BIN" tag --model "$model" --format conllu --sentence-per-line \
    "$SCRATCH/in.txt"
echo ok
