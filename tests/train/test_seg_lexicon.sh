#!/bin/bash
# The segmenter's lexicon (data/seg_lexicon.h, data.lexicon_min_count): a segmenter trained a
# few steps (poor labels) still segments every whitespace-delimited chunk of its training text
# as the training file does, multiword tokens included ("don't" = "do" "n't"), in qkv tag
# --tokenizer, in an export that bundles it and in its own evaluation; the checkpoint stores the
# lexicon under /lexicon, and data.lexicon_min_count=0 trains a segmenter without one.
. "$(dirname "$0")/common.sh"
make_segmenter
seg=$SCRATCH/seg/checkpoints/last.h5
quick_run "$SCRATCH/tagger" --set train.max_steps=2 --set train.threads=1
tagger=$SCRATCH/tagger/checkpoints/last.h5

# every chunk here is in the training text ("I" is one character: a token whatever its label)
printf 'I don'"'"'t know, she said. It costs $1,234.50!\n\nThe cat sat. Cannot say.\n' >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$tagger" --format text --tokenizer "$seg" "$SCRATCH/in.txt" >"$SCRATCH/out.conllu" ||
    fail "tag --tokenizer"
"$QKV_BIN" export "$tagger" --tokenizer "$seg" --out "$SCRATCH/model.h5" >/dev/null || fail "export --tokenizer"
"$QKV_BIN" tag "$SCRATCH/model.h5" --format text "$SCRATCH/in.txt" >"$SCRATCH/export.conllu" || fail "tag an export"
cmp -s "$SCRATCH/out.conllu" "$SCRATCH/export.conllu" || fail "the export segments otherwise than --tokenizer"
"$PY" - "$SCRATCH/out.conllu" <<'PY' || { cat "$SCRATCH/out.conllu" >&2; fail "chunks of the training text"; }
import sys
tokens = []  # (form, words, SpaceAfter=No) over all sentences: sentence ends are the model's
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if l and not l.startswith("#")]
end = 0
for l in lines:
    f = l.split("\t")
    if "-" in f[0]:
        a, b = map(int, f[0].split("-"))
        end = b
        tokens.append([f[1], [], f[9]])
    elif end and int(f[0]) <= end:
        tokens[-1][1].append(f[1])
        end = 0 if int(f[0]) == end else end
    else:
        tokens.append([f[1], [f[1]], f[9]])
got = [(form, tuple(words)) for form, words, _ in tokens]
want = [("I", ("I",)), ("don't", ("do", "n't")), ("know", ("know",)), (",", (",",)), ("she", ("she",)),
        ("said", ("said",)), (".", (".",)), ("It", ("It",)), ("costs", ("costs",)), ("$", ("$",)),
        ("1,234.50", ("1,234.50",)), ("!", ("!",)), ("The", ("The",)), ("cat", ("cat",)), ("sat", ("sat",)),
        (".", (".",)), ("Cannot", ("Can", "not")), ("say", ("say",)), (".", (".",))]
assert got == want, got
PY

# the checkpoint's lexicon: chunks in byte order, one segmentation each; none with min count 0
"$PY" - "$seg" <<'PY' || fail "/lexicon in the checkpoint"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    chunks = bytes(f["lexicon/chunks"][()]).split(b"\0")[:-1]
    segs = [s.decode() for s in bytes(f["lexicon/segs"][()]).split(b"\0")[:-1]]
lex = dict(zip([c.decode() for c in chunks], segs))
assert chunks == sorted(chunks) and len(segs) == len(chunks), (chunks, segs)
assert lex["don't"] == "IWIIT" and lex["know,"] == "IIITT" and lex["$1,234.50!"] == "TIIIIIIITT", lex
PY
make_segmenter "$SCRATCH/seg0" --set data.lexicon_min_count=0
"$PY" -c "import sys, h5py; sys.exit('lexicon' in h5py.File(sys.argv[1], 'r'))" "$SCRATCH/seg0/checkpoints/last.h5" ||
    fail "data.lexicon_min_count=0 stored a lexicon"

# the segmenter's own evaluation segments as qkv eval --raw does (the lexicon in both)
"$QKV_BIN" eval "$seg" "$SCRATCH/dev.conllu" --json >"$SCRATCH/seg.json" || fail "eval of the segmenter"
"$QKV_BIN" eval "$tagger" "$SCRATCH/dev.conllu" --raw --tokenizer "$seg" --json >"$SCRATCH/raw.json" ||
    fail "eval --raw --tokenizer"
"$PY" - "$SCRATCH/seg.json" "$SCRATCH/raw.json" <<'PY' || fail "segmenter eval and eval --raw"
import json, sys
seg, raw = json.load(open(sys.argv[1]))["segments"], json.load(open(sys.argv[2]))
for k in ("tokens", "sentences"):
    assert all(seg[k][f] == raw[k][f] for f in ("gold", "system", "correct")), (k, seg[k], raw[k])
# every dev chunk is a training chunk: all tokens right
assert raw["tokens"]["correct"] == raw["tokens"]["gold"] == raw["tokens"]["system"], raw["tokens"]
assert raw["words"]["correct"] == raw["words"]["gold"], raw["words"]
PY
echo "ok"
