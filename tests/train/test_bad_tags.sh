#!/bin/bash
# Bad data is not learned as labels, end to end:
# - two words with UPOS "_" in train and in dev: no "_" tag in the model or the per-tag report,
#   the dev report says how many words were not scored, `qkv tag` never writes "_";
# - data.tags: xpos on a file whose XPOS is all "_": an error naming the file and the column;
# - "NOUN " in UPOS: an error naming file:line; "O " in a column file is the tag "O";
# - one 100,000-character token in training: the checkpoint grows by about its size, not by
#   vocabulary x 100,000 bytes.
. "$(dirname "$0")/common.sh"
TINY=(--set data.source=files --set model.d_model=16 --set model.d_ff=32 --set model.n_heads=2 --set model.n_layers=1
      --set train.max_steps=3 --set log.progress=off --set log.plot=false)
"$QKV_BIN" synth --sentences 300 --seed 3 >"$SCRATCH/train.conllu"
"$QKV_BIN" synth --sentences 60 --seed 4 >"$SCRATCH/dev.conllu"
# UPOS "_" on the 2nd and 3rd word lines of each file
untag() { awk -F'\t' 'BEGIN {OFS = "\t"} NF == 10 && ++n >= 2 && n <= 3 {$4 = "_"} {print}' "$1" >"$1.u"; }
untag "$SCRATCH/train.conllu"
untag "$SCRATCH/dev.conllu"
[ "$(awk -F'\t' 'NF == 10 && $4 == "_"' "$SCRATCH/train.conllu.u" | wc -l)" = 2 ] || fail "test data: two _ words"
run=$SCRATCH/untagged
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.train="$SCRATCH/train.conllu.u" \
    --set data.dev="$SCRATCH/dev.conllu.u" --out "$run" >"$run.out" 2>"$run.err" || { cat "$run.err"; fail "train with _ tags"; }
grep -qF 'train.conllu.u:4: 2 words have no tag ("_" in UPOS (field 4)), the first here; they are not scored' \
    "$run.err" || { cat "$run.err"; fail "train: no warning about the words without a tag"; }
grep -q "  2 words without a tag (_) not scored" "$run.out" || { cat "$run.out"; fail "train report: untagged count"; }
ckpt=$run/checkpoints/last.h5
"$QKV_BIN" eval "$ckpt" "$SCRATCH/dev.conllu.u" >"$SCRATCH/eval.txt" 2>/dev/null || fail "eval"
grep -q "^  _ " "$SCRATCH/eval.txt" && { cat "$SCRATCH/eval.txt"; fail "the per-tag report has a _ row"; }
grep -q "  2 words without a tag (_) not scored" "$SCRATCH/eval.txt" || { cat "$SCRATCH/eval.txt"; fail "eval: untagged count"; }
words=$(awk -F'\t' 'NF == 10' "$SCRATCH/dev.conllu.u" | wc -l)
"$QKV_BIN" eval "$ckpt" "$SCRATCH/dev.conllu.u" --json >"$SCRATCH/eval.json" 2>/dev/null || fail "eval --json"
"$PY" - "$SCRATCH/eval.json" "$words" "$ckpt" <<'PY' || fail "eval JSON / checkpoint tags"
import json, sys, h5py
r = json.load(open(sys.argv[1]))
assert r["untagged"] == 2 and r["words"] == int(sys.argv[2]) - 2, r
assert "_" not in r["tags"], r["tags"].keys()
with h5py.File(sys.argv[3], "r") as f:
    tags = bytes(f["vocab/tags"][()]).split(b"\0")[:-1]
assert b"_" not in tags, tags
PY
"$QKV_BIN" tag "$ckpt" "$SCRATCH/dev.conllu.u" >"$SCRATCH/tagged.conllu" || fail "tag"
[ "$(awk -F'\t' 'NF == 10 && $4 == "_"' "$SCRATCH/tagged.conllu" | wc -l)" = 0 ] || fail "qkv tag wrote _ as a tag"
# untagged input (every UPOS "_") is what qkv tag is for
awk -F'\t' 'BEGIN {OFS = "\t"} NF == 10 {$4 = "_"} {print}' "$SCRATCH/dev.conllu" >"$SCRATCH/blank.conllu"
"$QKV_BIN" tag "$ckpt" "$SCRATCH/blank.conllu" >"$SCRATCH/tagged.conllu" 2>"$SCRATCH/tag.err" || fail "tag of untagged input"
[ "$(awk -F'\t' 'NF == 10 && $4 == "_"' "$SCRATCH/tagged.conllu" | wc -l)" = 0 ] || fail "qkv tag wrote _ as a tag"
[ -s "$SCRATCH/tag.err" ] && { cat "$SCRATCH/tag.err"; fail "qkv tag warned about its untagged input"; }
# ... but there is nothing to score in it
expect_error "blank.conllu: no word has a tag in UPOS (field 4): all $words are \"_\"" \
    "$QKV_BIN" eval "$ckpt" "$SCRATCH/blank.conllu"

# XPOS all "_": no one-tag model with 100% accuracy
expect_error "train.conllu: no word has a tag in XPOS (field 5): all" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.tags=xpos --set data.train="$SCRATCH/train.conllu" \
    --set data.dev="$SCRATCH/dev.conllu" --out "$SCRATCH/xpos"

# whitespace in UPOS: an error at its line
awk -F'\t' 'BEGIN {OFS = "\t"} NF == 10 && ++n == 5 {$4 = $4 " "} {print}' "$SCRATCH/train.conllu" >"$SCRATCH/space.conllu"
line=$(awk -F'\t' 'NF == 10 && ++n == 5 {print NR}' "$SCRATCH/train.conllu")
expect_error "space.conllu:$line: expected no whitespace in field 4 (UPOS), found \"" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.train="$SCRATCH/space.conllu" --out "$SCRATCH/space"

# a column file: "TAG", "TAG " and " TAG" are one class
to_columns() { awk -F'\t' -v pad="$2" 'NF == 10 {n++; t = $4; if (pad && n % 3 == 1) t = t " "; if (pad && n % 3 == 2) t = " " t
                                      print $2 "\t" t; next} /^$/ {print ""}' "$1"; }
to_columns "$SCRATCH/train.conllu" 0 >"$SCRATCH/clean.tsv"
to_columns "$SCRATCH/train.conllu" 1 >"$SCRATCH/padded.tsv"
to_columns "$SCRATCH/dev.conllu" 0 >"$SCRATCH/dev.tsv"
grep -q ' $' "$SCRATCH/padded.tsv" || fail "test data: padded tags"
n_tags() {
    "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.train="$1" --set data.dev="$SCRATCH/dev.tsv" \
        --out "$2" >/dev/null 2>"$2.err" || { cat "$2.err" >&2; fail "train on $1"; }
    grep -o '[0-9]* tags;' "$2.err"
}
clean=$(n_tags "$SCRATCH/clean.tsv" "$SCRATCH/clean")
padded=$(n_tags "$SCRATCH/padded.tsv" "$SCRATCH/padded")
[ "$clean" = "$padded" ] || fail "columns: $clean with clean tags, $padded with whitespace around them"
"$PY" - "$SCRATCH/padded/checkpoints/last.h5" <<'PY' || fail "a tag with whitespace in the model"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    tags = bytes(f["vocab/tags"][()]).decode().split("\0")[:-1]
assert tags and all(t == t.strip() for t in tags), tags
PY

# a file of another tag set: no tag the model knows is nothing to score (an error that says so,
# with how many words and tags), and a partial overlap is scored with a warning of how much differs
awk -F'\t' 'BEGIN {OFS = "\t"} NF == 10 {$4 = "x" $4} {print}' "$SCRATCH/dev.conllu" >"$SCRATCH/alien.conllu"
tagged=$(awk -F'\t' 'NF == 10' "$SCRATCH/alien.conllu" | wc -l)
theirs=$(awk -F'\t' 'NF == 10 {print $4}' "$SCRATCH/alien.conllu" | sort -u | wc -l)
expect_error "alien.conllu: the tag sets differ: none of its $tagged tagged words has one of the" \
    "$QKV_BIN" eval "$ckpt" "$SCRATCH/alien.conllu"
grep -qF "its $theirs tags in UPOS (field 4) (" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "eval: the file's tag count"; }
expect_error "alien.conllu: the tag sets differ" \
    "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.train="$SCRATCH/train.conllu" \
    --set data.dev="$SCRATCH/alien.conllu" --out "$SCRATCH/alien"
[ -e "$SCRATCH/alien" ] && fail "a refused run left its folder"
# NOUN and VERB renamed: two tags and their words unknown, the rest scored
awk -F'\t' 'BEGIN {OFS = "\t"} NF == 10 && ($4 == "NOUN" || $4 == "VERB") {$4 = "x" $4} {print}' "$SCRATCH/dev.conllu" \
    >"$SCRATCH/half.conllu"
unknown=$(awk -F'\t' 'NF == 10 && $4 ~ /^x/' "$SCRATCH/half.conllu" | wc -l)
"$QKV_BIN" eval "$ckpt" "$SCRATCH/half.conllu" >"$SCRATCH/half.txt" 2>"$SCRATCH/half.err" || fail "eval of a partial overlap"
grep -qF "half.conllu: the tag sets differ: 2 of its $theirs tags in UPOS (field 4) ($unknown of $tagged tagged words," \
    "$SCRATCH/half.err" || { cat "$SCRATCH/half.err"; fail "eval: no summary of the tags that differ"; }

# one 100,000-character token: the checkpoint stays close to the ordinary one
long=$("$PY" -c 'print("".join(chr(97 + i % 26) for i in range(100000)))')
{ cat "$SCRATCH/train.conllu"; printf '1\t%s\t_\tNOUN\t_\t_\t_\t_\t_\t_\n\n' "$long"; } >"$SCRATCH/long.conllu"
size() {
    "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set data.word_min_count=1 --set data.train="$1" \
        --set data.dev="$SCRATCH/dev.conllu" --out "$2" >/dev/null 2>"$2.err" || { cat "$2.err" >&2; fail "train on $1"; }
    stat -c %s "$2/checkpoints/last.h5"
}
plain=$(size "$SCRATCH/train.conllu" "$SCRATCH/plain")
with_long=$(size "$SCRATCH/long.conllu" "$SCRATCH/long")
echo "last.h5: $plain bytes; with one 100,000-character token: $with_long bytes"
# the token is in the word and lowercase vocabularies: twice its bytes, and a little more
[ "$with_long" -lt $((plain + 2 * 100000 + 65536)) ] || fail "checkpoint of $with_long bytes (ordinary: $plain)"
echo PASS
