#!/bin/bash
# Raw text's memory is bounded whatever its layout: the segmenter reads a long paragraph in
# pieces, so 64 KB of sentences one a line (one paragraph, the longest read at once) is tagged
# within 500 MB (read whole, it took over 1 GB); text without sentence ends gives sentences of
# at most 250 words, tagged and parsed within 500 MB (as one sentence, a 300 KB line without
# punctuation was killed at 24 GB); a line longer than 1 MiB is refused, naming the file and
# line, after the paragraphs before it are written; a sentence given already tokenized that is
# longer than --max-words is refused, naming its line.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
model=$QKV_SOURCE_DIR/data/models/en.h5
[ -s "$model" ] || fail "$model is missing"
sample=$QKV_SOURCE_DIR/data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz

# the sample's sentences one a line, repeated to 64 KB: one paragraph
zcat "$sample" | sed -n 's/^# text = //p' >"$SCRATCH/lines.txt"
while [ "$(wc -c <"$SCRATCH/lines.txt")" -lt 64000 ]; do
    cat "$SCRATCH/lines.txt" "$SCRATCH/lines.txt" >"$SCRATCH/more.txt"
    mv "$SCRATCH/more.txt" "$SCRATCH/lines.txt"
done
head -c 64000 "$SCRATCH/lines.txt" | sed '$d' >"$SCRATCH/par.txt"
# peak memory (MB) of qkv tag --model en.h5 on a file
peak() {
    "$PY" - "$QKV_BIN" "$model" "$1" <<'PY'
import resource, subprocess, sys
qkv, model, text = sys.argv[1:]
subprocess.run([qkv, "tag", "--model", model, text], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
}
if [ "${QKV_SANITIZED:-0}" != 1 ]; then
    mb=$(peak "$SCRATCH/par.txt") || fail "qkv tag on a 64 KB paragraph"
    echo "peak memory of a 64 KB paragraph: $mb MB"
    [ "$mb" -le 500 ] || fail "a 64 KB paragraph took $mb MB"
fi

# 4,000 words without punctuation on one line: sentences of 250 words, each a tree
for i in $(seq 4000); do printf 'word%d ' $((i % 50)); done >"$SCRATCH/run_on.txt"
echo >>"$SCRATCH/run_on.txt"
"$QKV_BIN" tag --model "$model" "$SCRATCH/run_on.txt" >"$SCRATCH/run_on.conllu" || fail "qkv tag on a run-on line"
awk -F'\t' '/^[0-9]+\t/ { n++; w++ } /^$/ { if (n > max) max = n; n = 0 } END { print w, max }' \
    "$SCRATCH/run_on.conllu" >"$SCRATCH/counts"
read -r n_words longest <"$SCRATCH/counts"
[ "$n_words" -eq 4000 ] && [ "$longest" -eq 250 ] || fail "4,000 words gave $n_words words, the longest sentence $longest"
if [ "${QKV_SANITIZED:-0}" != 1 ]; then
    mb=$(peak "$SCRATCH/run_on.txt") || fail "qkv tag on a run-on line"
    echo "peak memory of 4,000 words without sentence ends: $mb MB"
    [ "$mb" -le 500 ] || fail "4,000 words without sentence ends took $mb MB"
fi

# a sentence given as CoNLL-U longer than --max-words (1,000 by default): an error naming its line
{
    printf '# text = run on\n'
    for i in $(seq 1001); do printf '%d\tw\t_\t_\t_\t_\t_\t_\t_\t_\n' "$i"; done
    printf '\n'
} >"$SCRATCH/long.conllu"
expect_error "long.conllu:2: a sentence of 1001 words, more than the 1000 a sentence may have (a parser's memory \
grows with a sentence's words squared; give a larger --max-words to tag it)" \
    "$QKV_BIN" tag --model "$model" --format conllu "$SCRATCH/long.conllu"
expect_error "long.conllu:2: a sentence of 1001 words, more than the 7 a sentence may have" \
    "$QKV_BIN" tag --model "$model" --format conllu --max-words 7 "$SCRATCH/long.conllu"

# a line over 1 MiB: an error naming its line, the paragraph before it written
{
    printf 'A first paragraph.\n\n'
    head -c 1048577 /dev/zero | tr '\0' 'a'
    printf '\n'
} >"$SCRATCH/long_line.txt"
status=0
"$QKV_BIN" tag --model "$model" "$SCRATCH/long_line.txt" >"$SCRATCH/out.conllu" 2>"$SCRATCH/err" || status=$?
[ "$status" -ne 0 ] || fail "a line over 1 MiB was taken"
grep -q "long_line.txt:3: a line longer than 1048576 bytes" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "no file:line"; }
grep -q '^# text = A first paragraph\.$' "$SCRATCH/out.conllu" || fail "the paragraph before it was not written"
echo ok
