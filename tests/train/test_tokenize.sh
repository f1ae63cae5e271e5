#!/bin/bash
# The segmenter end to end on a small generated corpus (a few steps: the labels are poor, the
# structure is tested): configs/ud_ewt_tokenize.yaml trains (data.task: segment) and qkv eval scores its
# character labels; qkv tag --format text --tokenizer writes valid CoNLL-U whose # text lines
# spell the input in order, with sent_id, multiword tokens and SpaceAfter=No in their places;
# it streams (a paragraph comes out before the input ends); errors name the user's file and
# line; qkv eval --raw scores tokens, sentences, words and UPOS, and the segmenter's own
# evaluation (qkv eval, training's dev log) its tokens and sentences, counting characters.
. "$(dirname "$0")/common.sh"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
"$QKV_BIN" eval "$seg" "$SCRATCH/dev.conllu" --json >"$SCRATCH/seg.json" || fail "eval of the segmenter"
"$PY" - "$SCRATCH/seg.json" "$SCRATCH/dev.conllu" <<'PY' || fail "segmenter eval JSON"
import json, sys
r = json.load(open(sys.argv[1]))
pars = open(sys.argv[2]).read().split("# newpar\n")[1:]
texts = [[l[9:] for l in p.split("\n") if l.startswith("# text = ")] for p in pars]
n_chars = sum(len(" ".join(t)) for t in texts)  # no generated sentence ends with SpaceAfter=No
# every character of the sample's dev paragraphs is scored
assert r["words"] == n_chars and 0 <= r["correct"] <= r["words"], (r, n_chars)
PY
quick_run "$SCRATCH/tagger" --set train.max_steps=10 --set train.threads=1
tagger=$SCRATCH/tagger/checkpoints/last.h5

# tag: any labels give valid CoNLL-U whose # text lines spell the input
printf 'I don'"'"'t know, she said. It costs $1,234.50!\nA second line  of it.\n\n\n  Next paragraph\t here.\n' \
    >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" "$SCRATCH/in.txt" >"$SCRATCH/out.conllu" ||
    fail "tag --tokenizer"
"$PY" - "$SCRATCH/in.txt" "$SCRATCH/out.conllu" <<'PY' || { cat "$SCRATCH/out.conllu" >&2; fail "tag --tokenizer output"; }
import sys
text = open(sys.argv[1], encoding="utf-8").read()
flat = " ".join(text.replace("\t", " ").split("\n"))  # what # text shows: TAB and LF as spaces
pos, n_sent, sent_ids = 0, 0, []
blocks = open(sys.argv[2], encoding="utf-8").read().split("\n\n")
assert blocks[-1] == "", "the output ends with a blank line"
for block in blocks[:-1]:
    lines = block.split("\n")
    if lines[0] == "# newpar":  # a paragraph's first sentence
        lines = lines[1:]
    assert lines[0].startswith("# sent_id = "), lines
    sent_ids.append(int(lines[0][12:]))
    assert lines[1].startswith("# text = "), lines
    sent = lines[1][9:]
    found = flat.find(sent, pos)
    assert found >= 0 and flat[pos:found].strip() == "", (sent, flat[pos:])
    pos = found + len(sent)
    # the tokens spell the sentence: each FORM in its place, whitespace after it unless SpaceAfter=No
    at, mwt_end, i, tokens = 0, 0, 0, []
    for line in lines[2:]:
        f = line.split("\t")
        assert len(f) == 10, line
        if "-" in f[0]:
            a, b = map(int, f[0].split("-"))
            assert a == i + 1 and b > a, line
            mwt_end = b
            tokens.append((f[1], f[9]))
            continue
        i += 1
        assert int(f[0]) == i, line
        if i <= mwt_end:
            assert f[9] == "_", line
            continue
        tokens.append((f[1], f[9]))
    for k, (form, misc) in enumerate(tokens):
        assert sent[at:at + len(form)] == form, (form, sent[at:])
        at += len(form)
        if k + 1 < len(tokens):
            gap = len(sent[at:]) - len(sent[at:].lstrip())
            assert (gap == 0) == (misc == "SpaceAfter=No"), (form, misc, sent)
            at += gap
    assert at == len(sent), (sent, tokens)
assert flat[pos:].strip() == "", flat[pos:]
assert sent_ids == list(range(1, len(sent_ids) + 1)), sent_ids
PY

# streaming: the first paragraph is written while the input is still open
mkfifo "$SCRATCH/fifo"
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" <"$SCRATCH/fifo" >"$SCRATCH/stream.out" 2>"$SCRATCH/stream.err" &
pid=$!
exec 3>"$SCRATCH/fifo"
printf 'First paragraph here.\n\n' >&3
for _ in $(seq 1 300); do
    grep -q '^# text = ' "$SCRATCH/stream.out" && break
    sleep 0.1
done
grep -q '^# text = ' "$SCRATCH/stream.out" || { exec 3>&-; wait $pid || true; fail "no output before the end of the input"; }
printf 'Second one.\n' >&3
exec 3>&-
wait $pid || { cat "$SCRATCH/stream.err" >&2; fail "streamed tag failed"; }
grep -q '^# text = .*Second' "$SCRATCH/stream.out" || fail "the second paragraph after the input ended"

# errors name the user's file and line; the segmenter is no tagger and needs --format text
printf 'Fine.\n\nStill fine\nbad \xff here\n' >"$SCRATCH/bad.txt"
expect_error "$SCRATCH/bad.txt:4: invalid UTF-8 at byte 5 of the line" \
    "$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" "$SCRATCH/bad.txt"
grep -q '^# text = Fine' "$SCRATCH/out" || fail "the paragraph before the error was not written"
expect_error "is a segmenter: give it with --tokenizer" "$QKV_BIN" tag "$seg" --format text "$SCRATCH/in.txt"
expect_error "not a segmenter" "$QKV_BIN" tag "$tagger" --format text --tokenizer "$tagger" "$SCRATCH/in.txt"
expect_error "--tokenizer needs --format text" "$QKV_BIN" tag "$tagger" --tokenizer "$seg" "$SCRATCH/in.txt"
"$QKV_BIN" tag --help | grep -q "without it: whitespace" || fail "--help must say what happens without --tokenizer"

# a training file whose # text and tokens disagree: file and line
printf '# text = a b\n1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tc\t_\t_\t_\t_\t_\t_\t_\t_\n\n' >"$SCRATCH/bad.conllu"
expect_error "$SCRATCH/bad.conllu:3: FORM \"c\" is not the text at its place in # text (line 1)" \
    "$QKV_BIN" train configs/ud_ewt_tokenize.yaml --out "$SCRATCH/bad" --set data.train="$SCRATCH/bad.conllu" \
    --set data.dev="$SCRATCH/bad.conllu"

# eval --raw: the CoNLL 2018 scores, with and without the segmenter
"$QKV_BIN" eval "$tagger" "$SCRATCH/dev.conllu" --raw --tokenizer "$seg" --json >"$SCRATCH/raw.json" ||
    fail "eval --raw --tokenizer"
"$QKV_BIN" eval "$tagger" "$SCRATCH/dev.conllu" --raw --tokenizer whitespace --json >"$SCRATCH/ws.json" ||
    fail "eval --raw --tokenizer whitespace"
expect_error "bundles no segmenter" "$QKV_BIN" eval "$tagger" "$SCRATCH/dev.conllu" --raw
n_sent=$(grep -c '^# text' "$SCRATCH/dev.conllu")
n_words=$(grep -cP '^\d+\t' "$SCRATCH/dev.conllu")
"$PY" - "$SCRATCH/raw.json" "$SCRATCH/ws.json" "$n_sent" "$n_words" <<'PY' || fail "eval --raw JSON"
import json, sys
for path in sys.argv[1:3]:
    r = json.load(open(path))
    for k in ("tokens", "sentences", "words", "upos"):
        s = r[k]
        assert 0 <= s["correct"] <= min(s["gold"], s["system"]) and 0 <= s["f1"] <= 1, (k, s)
    assert r["words"]["gold"] == int(sys.argv[4]) and r["sentences"]["gold"] == int(sys.argv[3]), r
ws = json.load(open(sys.argv[2]))
# whitespace tokens with gold sentence breaks: every sentence matches, "know," and the like do not
assert ws["sentences"]["correct"] == int(sys.argv[3]), ws
assert 0 < ws["tokens"]["correct"] < ws["tokens"]["gold"], ws
PY
# the segmenter's own evaluation (qkv eval, the dev evaluations of training) gives the Tokens and
# Sentences scores of its labels: those eval --raw computes from its CoNLL-U output
"$PY" - "$SCRATCH/seg.json" "$SCRATCH/raw.json" <<'PY' || fail "segmenter eval: Tokens and Sentences"
import json, sys
seg, raw = json.load(open(sys.argv[1]))["segments"], json.load(open(sys.argv[2]))
for k in ("tokens", "sentences"):
    for f in ("gold", "system", "correct"):
        assert seg[k][f] == raw[k][f], (k, f, seg[k], raw[k])
    assert abs(seg[k]["f1"] - raw[k]["f1"]) < 1e-6, (k, seg[k], raw[k])
PY
"$QKV_BIN" eval "$seg" "$SCRATCH/dev.conllu" >"$SCRATCH/seg.txt" || fail "eval of the segmenter (text)"
grep -q "^  Tokens  *[0-9]" "$SCRATCH/seg.txt" && grep -q "^  Sentences  *[0-9]" "$SCRATCH/seg.txt" &&
    grep -q "accuracy [0-9.]*% ([0-9]* of [0-9]* characters)" "$SCRATCH/seg.txt" ||
    { cat "$SCRATCH/seg.txt"; fail "segmenter eval report: characters, Tokens, Sentences"; }
n_par=$(grep -c '^# newpar' "$SCRATCH/dev.conllu")
grep -q "dev: $SCRATCH/dev.conllu, $n_par paragraphs, [0-9]* characters" "$SCRATCH/seg.log" &&
    grep -q "dev accuracy [0-9.]*% of characters, Tokens F1 [0-9.]*, Sentences F1 [0-9.]*, loss" "$SCRATCH/seg.log" ||
    { cat "$SCRATCH/seg.log"; fail "segmenter training log: paragraphs, characters, Tokens and Sentences F1"; }
echo "ok"
