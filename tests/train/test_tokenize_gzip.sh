#!/bin/bash
# Raw text through a segmenter (qkv tag --format text --tokenizer) reads gzip like every other
# reader: a .gz file, gzip on standard input and two concatenated members give the output of the
# plain text; a truncated stream is an error naming the file, and a file named .gz that is not
# gzip too. The input is handed on as it arrives (tests/train/test_tokenize.sh streams a pipe).
. "$(dirname "$0")/common.sh"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
quick_run "$SCRATCH/tagger" --set train.max_steps=2 --set train.threads=1
tagger=$SCRATCH/tagger/checkpoints/last.h5
for i in $(seq 200); do printf 'I don'"'"'t know, she said. It costs $1,234.50!\nA second line of it %d.\n\n' "$i"; done \
    >"$SCRATCH/in.txt"
tag() { "$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" "$@"; }
tag "$SCRATCH/in.txt" >"$SCRATCH/plain.conllu" || fail "tag --tokenizer of plain text"
[ "$(grep -c '^# text' "$SCRATCH/plain.conllu")" -ge 200 ] || fail "test: too few sentences"
gzip -c "$SCRATCH/in.txt" >"$SCRATCH/in.txt.gz"
tag "$SCRATCH/in.txt.gz" >"$SCRATCH/gz.conllu" 2>"$SCRATCH/gz.err" || { cat "$SCRATCH/gz.err"; fail "tag --tokenizer of .gz"; }
cmp -s "$SCRATCH/plain.conllu" "$SCRATCH/gz.conllu" || fail "a .gz file tags differently from its text"
tag - <"$SCRATCH/in.txt.gz" >"$SCRATCH/stdin.conllu" || fail "tag --tokenizer of gzip on standard input"
cmp -s "$SCRATCH/plain.conllu" "$SCRATCH/stdin.conllu" || fail "gzip on standard input tags differently"
head -c 3000 "$SCRATCH/in.txt" >"$SCRATCH/a.txt"
tail -c +3001 "$SCRATCH/in.txt" >"$SCRATCH/b.txt"
cat <(gzip -c "$SCRATCH/a.txt") <(gzip -c "$SCRATCH/b.txt") >"$SCRATCH/two.gz"
tag "$SCRATCH/two.gz" >"$SCRATCH/two.conllu" || fail "two gzip members"
cmp -s "$SCRATCH/plain.conllu" "$SCRATCH/two.conllu" || fail "two gzip members tag differently"
size=$(stat -c %s "$SCRATCH/in.txt.gz")
head -c $((size - 12)) "$SCRATCH/in.txt.gz" >"$SCRATCH/cut.txt.gz"
expect_error "cut.txt.gz: truncated gzip stream" tag "$SCRATCH/cut.txt.gz"
cp "$SCRATCH/in.txt" "$SCRATCH/fake.txt.gz"
expect_error "fake.txt.gz: not a gzip stream" tag "$SCRATCH/fake.txt.gz"
exit 0
