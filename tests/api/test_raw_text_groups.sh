#!/bin/bash
# qkv tag on raw text tags the paragraphs of a file in groups (many sentences a batch) and
# writes what it writes a paragraph at a time when the text is piped in: both give the same
# bytes; a pipe's first paragraph comes out before the next is written; a bad line in a later
# paragraph still leaves the paragraphs before it written.
. "${QKV_SOURCE_DIR:?}/tests/api/common.sh"
model=$QKV_SOURCE_DIR/data/models/en.h5
[ -s "$model" ] || fail "$model is missing"
sample=$QKV_SOURCE_DIR/data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz

# the sample's sentences, two to a paragraph: over 16 KiB, so several groups
zcat "$sample" | sed -n 's/^# text = //p' |
    awk '{ printf "%s%s", $0, NR % 2 ? " " : "\n\n" }' >"$SCRATCH/pars.txt"
[ "$(wc -c <"$SCRATCH/pars.txt")" -gt 20000 ] || fail "the text proves nothing: under 20 KB"
"$QKV_BIN" tag --model "$model" "$SCRATCH/pars.txt" >"$SCRATCH/file.conllu" || fail "qkv tag FILE"
cat "$SCRATCH/pars.txt" | "$QKV_BIN" tag --model "$model" >"$SCRATCH/pipe.conllu" || fail "cat FILE | qkv tag"
cmp "$SCRATCH/file.conllu" "$SCRATCH/pipe.conllu" || fail "grouped and streamed paragraphs differ"
[ "$(grep -c '^# newpar' "$SCRATCH/file.conllu")" -eq "$(grep -c . "$SCRATCH/pars.txt")" ] ||
    fail "not one # newpar a paragraph"

# a pipe: the first paragraph is answered while the writer still holds the pipe open
"$PY" - "$QKV_BIN" "$model" <<'PY' || fail "a piped paragraph was not written before the next was read"
import select, subprocess, sys
p = subprocess.Popen([sys.argv[1], "tag", "--model", sys.argv[2]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
p.stdin.write(b"Hello there. How are you?\n\n")
p.stdin.flush()
out = b""
while b"\n\n" not in out:
    ready, _, _ = select.select([p.stdout], [], [], 120)
    assert ready, "nothing written within 120 s"
    chunk = p.stdout.read1(65536)
    assert chunk, "the output ended"
    out += chunk
assert b"# text = Hello there." in out, out
p.stdin.write(b"A second paragraph.\n")
p.stdin.close()
rest = p.stdout.read()
assert p.wait() == 0 and b"# text = A second paragraph." in rest
PY

# a bad line (invalid UTF-8) in the third paragraph: an error naming it, the first two written
printf 'One paragraph.\n\nAnother one.\n\nA bad \xff line.\n' >"$SCRATCH/bad.txt"
status=0
"$QKV_BIN" tag --model "$model" "$SCRATCH/bad.txt" >"$SCRATCH/bad.conllu" 2>"$SCRATCH/err" || status=$?
[ "$status" -ne 0 ] || fail "invalid UTF-8 was taken"
grep -q "bad.txt:5:" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "the error names no line 5"; }
[ "$(grep -c '^# text = ' "$SCRATCH/bad.conllu")" -eq 2 ] || fail "the paragraphs before the bad line are not written"
echo ok
