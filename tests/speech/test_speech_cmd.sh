# qkv speech: the same input and seed give the same file (byte for byte), noise changes only the
# features, h5py reads the corpus, and bad input is a clear error that writes nothing.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
SAMPLE=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
speak() { "$QKV_BIN" speech "$SAMPLE" --max-sentences 3 --voices en-us,en-029 "$@" 2>"$SCRATCH/log" ||
    { cat "$SCRATCH/log" >&2; fail "qkv speech $*"; }; }
speak --out "$SCRATCH/a.h5" --seed 4
speak --out "$SCRATCH/b.h5" --seed 4
cmp "$SCRATCH/a.h5" "$SCRATCH/b.h5" || fail "two runs with the same seed differ"
speak --out "$SCRATCH/n.h5" --seed 4 --snr 10
grep -q "6 of 6 utterances" "$SCRATCH/log" || fail "no progress line"
if "$PY" -c 'import h5py' 2>/dev/null; then
    "$PY" - "$SCRATCH/a.h5" "$SCRATCH/n.h5" <<'PY' || fail "the corpus as h5py reads it"
import sys, h5py, numpy as np
a, n = (h5py.File(p, "r")["speech"] for p in sys.argv[1:3])
names = lambda d: bytes(d[()]).split(b"\0")[:-1]
assert names(a["phone_names"])[0] == b"sil" and names(a["upos_names"])[0] == b"sil"
assert names(a["voice"]) == [b"en-us", b"en-029"] * 3
off = a["utt_offsets"][()]
assert off[0] == 0 and off[-1] == a["features"].shape[0] and len(off) == 7
assert a["features"].shape[1] == 40 and a["features"].dtype == np.float32
assert (a["phone"][()] == n["phone"][()]).all(), "noise changed the labels"
assert not np.array_equal(a["features"][()], n["features"][()]), "noise changed nothing"
# silent frames have no word and the silence UPOS
ph, up, w = a["phone"][()], a["upos"][()], a["word"][()]
assert ((ph == 0) == (w < 0)).all() and ((up == 0) == (w < 0)).all()
PY
fi
# paragraphs: --sentences-per-utterance 3 speaks sentences 1-3 and 4-6 as one utterance each
speak --out "$SCRATCH/p.h5" --seed 4 --max-sentences 6 --sentences-per-utterance 3
grep -q "4 of 4 utterances" "$SCRATCH/log" || fail "--sentences-per-utterance 3: not 2 paragraphs x 2 voices"
speak --out "$SCRATCH/s6.h5" --seed 4 --max-sentences 6
if "$PY" -c 'import h5py' 2>/dev/null; then
    "$PY" - "$SCRATCH/p.h5" "$SCRATCH/s6.h5" <<'PY' || fail "the paragraph corpus as h5py reads it"
import sys, h5py, numpy as np
p, s = (h5py.File(f, "r")["speech"] for f in sys.argv[1:3])
names = lambda d: [t.decode() for t in bytes(d[()]).split(b"\0")[:-1]]
pt, st = names(p["text"]), names(s["text"])
assert len(pt) == 4 and len(st) == 12
assert pt[0] == " ".join(st[0:6:2]) and pt[2] == " ".join(st[6:12:2]), (pt[0], st[:6])
assert list(p["sentence"][()]) == [s["sentence"][0]] * 2 + [s["sentence"][6]] * 2
# word indices run through the paragraph: its last word is past the first sentence's words
off, w = p["utt_offsets"][()], p["word"][()]
assert w[off[0]:off[1]].max() >= len(st[0].split()), "word indices restart in a paragraph"
PY
fi
expect_error "--sentences-per-utterance" "$QKV_BIN" speech "$SAMPLE" --out "$SCRATCH/x.h5" --sentences-per-utterance 0
expect_error 'no eSpeak NG voice named "xx-nope"' "$QKV_BIN" speech "$SAMPLE" --out "$SCRATCH/x.h5" --voices xx-nope
[ ! -e "$SCRATCH/x.h5" ] || fail "a failed run left a file"
expect_error "--snr" "$QKV_BIN" speech "$SAMPLE" --out "$SCRATCH/x.h5" --snr loud
expect_error "--rates" "$QKV_BIN" speech "$SAMPLE" --out "$SCRATCH/x.h5" --rates 150,fast
expect_error "rate 20 is not" "$QKV_BIN" speech "$SAMPLE" --out "$SCRATCH/x.h5" --rates 20
printf '1\tx\n' >"$SCRATCH/bad.conllu"
expect_error "bad.conllu:1" "$QKV_BIN" speech "$SCRATCH/bad.conllu" --out "$SCRATCH/x.h5"
expect_error "nonexistent" "$QKV_BIN" speech "$SAMPLE" --out "$SCRATCH/nonexistent/x.h5" --max-sentences 1
# an existing --out only with --force, and never the input
cp "$SCRATCH/bad.conllu" "$SCRATCH/keep.conllu"
expect_error "already exists: choose another file, or replace it with --force" "$QKV_BIN" speech "$SAMPLE" \
    --out "$SCRATCH/keep.conllu" --max-sentences 1
cmp -s "$SCRATCH/bad.conllu" "$SCRATCH/keep.conllu" || fail "qkv speech replaced an existing file without --force"
expect_error "writing it would destroy it" "$QKV_BIN" speech "$SCRATCH/keep.conllu" --out "$SCRATCH/keep.conllu" --force
cmp -s "$SCRATCH/bad.conllu" "$SCRATCH/keep.conllu" || fail "qkv speech replaced its input"
echo "ok"
