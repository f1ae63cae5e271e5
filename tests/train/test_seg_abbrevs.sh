#!/bin/bash
# The abbreviations of a segmenter's lexicon (data/seg_lexicon.h): learned from its training
# file (tokens ending with "." seen inside sentences more often than at their end), stored in
# its checkpoint under /lexicon/abbrevs and in an export that bundles it; qkv tag ends no
# sentence right after one (data/seg_rules.h), whatever the model's labels say.
. "$(dirname "$0")/common.sh"
"$PY" - "$SCRATCH" <<'PY'
import sys
def sent(tokens):  # tokens: (form, space after)
    text = "".join(f + (" " if sp else "") for f, sp in tokens).rstrip()
    lines = [f"{i + 1}\t{f}\t_\t_\t_\t_\t_\t_\t_\t{'_' if sp or i + 1 == len(tokens) else 'SpaceAfter=No'}"
             for i, (f, sp) in enumerate(tokens)]
    return "# newpar\n# text = " + text + "\n" + "\n".join(lines) + "\n"
S = [sent([("Dr.", 1), ("Lee", 1), ("came", 1), ("at", 1), ("5", 1), ("p.m.", 1), ("today", 0), (".", 1)]),
     sent([("We", 1), ("met", 1), ("etc", 0), (".", 1)]),
     sent([("The", 1), ("cat", 1), ("sat", 0), (".", 1)])]
for name, n in (("train", 60), ("dev", 6)):
    open(f"{sys.argv[1]}/{name}.conllu", "w").write("\n".join(S[i % 3] for i in range(n)) + "\n")
PY
"$QKV_BIN" train configs/ud_ewt_tokenize.yaml --out "$SCRATCH/seg" --set log.progress=off \
    --set data.train="$SCRATCH/train.conllu" --set data.dev="$SCRATCH/dev.conllu" \
    --set train.max_steps=4 --set train.threads=1 --set data.batch_tokens=1500 --set log.plot=false \
    >"$SCRATCH/seg.log" 2>&1 || { cat "$SCRATCH/seg.log" >&2; fail "training the segmenter"; }
seg=$SCRATCH/seg/checkpoints/last.h5
quick_run "$SCRATCH/tagger" --set train.max_steps=2 --set train.threads=1
"$QKV_BIN" export "$SCRATCH/tagger/checkpoints/last.h5" --tokenizer "$seg" --out "$SCRATCH/model.h5" >/dev/null ||
    fail "export --tokenizer"
"$PY" - "$seg" "$SCRATCH/model.h5" <<'PY' || fail "/lexicon/abbrevs"
import sys, h5py
for path, group in ((sys.argv[1], "lexicon"), (sys.argv[2], "segmenter/lexicon")):
    with h5py.File(path, "r") as f:
        got = bytes(f[group + "/abbrevs"][()]).split(b"\0")[:-1]
    assert got == [b"Dr.", b"p.m."], (path, got)
PY
printf 'Dr. Lee came at 5 p.m. Then Dr. Lee sat. Ask Dr.\n' >"$SCRATCH/in.txt"
"$QKV_BIN" tag "$SCRATCH/model.h5" --format text "$SCRATCH/in.txt" >"$SCRATCH/out.conllu" || fail "qkv tag"
grep '^# text' "$SCRATCH/out.conllu" | grep -E 'Dr\.$|p\.m\.$' | grep -v 'Ask Dr\.$' &&
    { cat "$SCRATCH/out.conllu" >&2; fail "a sentence ends after an abbreviation"; }
grep -q '^# text = .*Ask Dr\.$' "$SCRATCH/out.conllu" || fail "the paragraph's end no longer ends its sentence"
echo ok
