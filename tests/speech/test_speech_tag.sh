#!/bin/bash
# qkv tag and qkv eval of a frame model (a tiny one trained on a generated corpus, held-out
# voice en-029): tag prints every utterance of a corpus (of every voice) and its runs of
# predicted labels, contiguous from 0 s, labels of the model's phone set; --per-frame one line
# per token, whose runs are the runs and whose count is the tokens eval scores. eval of a corpus
# without the held-out voice, or with only it, scores it whole. Errors: a CoNLL-U file for a
# frame corpus (tag: as audio), or a corpus qkv speech cannot write, names it a frame corpus (not a checkpoint),
# standard input, --format text, and
# --per-frame and --max-seconds with a word model.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
S=data/ud_english_ewt_sample
speech_corpus $S/en_ewt-sample-dev.conllu.gz 4 en-us,en-gb-x-rp train.h5
speech_corpus $S/en_ewt-sample-train.conllu.gz 2 en-us,en-029 dev.h5
speech_corpus $S/en_ewt-sample-train.conllu.gz 2 en-us us.h5
speech_corpus $S/en_ewt-sample-train.conllu.gz 2 en-029 only029.h5
tiny_frames_config 4
"$QKV_BIN" train "$SCRATCH/tiny.yaml" --out "$SCRATCH/ph" >"$SCRATCH/ph.out" 2>"$SCRATCH/ph.log" ||
    { cat "$SCRATCH/ph.log" >&2; fail "qkv train"; }
ck=$SCRATCH/ph/checkpoints/best.h5

"$QKV_BIN" tag "$ck" "$SCRATCH/dev.h5" >"$SCRATCH/runs" 2>"$SCRATCH/tag.err" || { cat "$SCRATCH/tag.err" >&2; fail "qkv tag"; }
"$QKV_BIN" tag "$ck" "$SCRATCH/dev.h5" --per-frame >"$SCRATCH/frames" || fail "qkv tag --per-frame"
"$QKV_BIN" eval "$ck" "$SCRATCH/dev.h5" >"$SCRATCH/eval" || fail "qkv eval dev.h5"
phones=$(grep '^frames ' "$SCRATCH/eval" | sed 's/.*, \([0-9]*\) tokens.*/\1/' | paste -sd+ | bc)
"$PY" - "$SCRATCH/runs" "$SCRATCH/frames" "$phones" <<'PY' || fail "the tagged runs"
import sys
def utterances(path):
    out, cur = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# utterance "):
            cur = (line, []); out.append(cur)
        elif line:
            cur[1].append(line.split("\t"))
    return out
runs, frames = utterances(sys.argv[1]), utterances(sys.argv[2])
assert len(runs) == 4 == len(frames), (len(runs), len(frames))
voices = sorted(h.split(", voice ")[1].split(":")[0] for h, _ in runs)
assert voices == ["en-029", "en-029", "en-us", "en-us"], voices
n_tokens = 0
for (h1, r), (h2, f) in zip(runs, frames):
    assert h1 == h2
    assert all(len(x) == 3 for x in r) and all(len(x) == 2 for x in f)
    assert float(r[0][0]) == 0 and all(r[i][1] == r[i + 1][0] for i in range(len(r) - 1)), h1
    assert all(r[i][2] != r[i + 1][2] for i in range(len(r) - 1)), "two runs of one label"
    collapsed = [x[1] for i, x in enumerate(f) if i == 0 or f[i - 1][1] != x[1]]
    assert collapsed == [x[2] for x in r], h1
    step = float(f[-1][0]) / (len(f) - 1)  # seconds a token (the corpus's hop), as --per-frame prints
    assert 0.005 < step < 0.05 and abs(float(r[-1][1]) - step * len(f)) < 2e-3, (r[-1], len(f), step)
    n_tokens += len(f)
assert n_tokens == int(sys.argv[3]), (n_tokens, sys.argv[3])
PY
# eval of a corpus without the held-out voice, and of one with only it: all of it, as dev
"$QKV_BIN" eval "$ck" "$SCRATCH/us.h5" >"$SCRATCH/us.out" 2>&1 || { cat "$SCRATCH/us.out" >&2; fail "eval us.h5"; }
grep -q "^frames dev: 2 utterances" "$SCRATCH/us.out" || { cat "$SCRATCH/us.out"; fail "us.h5 not scored whole"; }
"$QKV_BIN" eval "$ck" "$SCRATCH/only029.h5" >"$SCRATCH/029.out" 2>&1 || { cat "$SCRATCH/029.out" >&2; fail "eval only029.h5"; }
grep -q "^frames dev: 2 utterances" "$SCRATCH/029.out" || { cat "$SCRATCH/029.out"; fail "only029.h5 not scored whole"; }
# errors
conllu=$S/en_ewt-sample-dev.conllu.gz
expect_error "frame corpus $conllu: not an HDF5 file" "$QKV_BIN" eval "$ck" "$conllu"
grep -q "checkpoint $conllu" "$SCRATCH/err" && fail "eval calls the data file a checkpoint"
if [ "${QKV_SNDFILE_BUILT:-0}" = 1 ]; then # tag reads a file that is not HDF5 as audio
    expect_error "$conllu: not an audio file libsndfile reads" "$QKV_BIN" tag "$ck" "$conllu"
else
    expect_error "$conllu: not a frame corpus (HDF5), and this qkv reads no audio files" "$QKV_BIN" tag "$ck" "$conllu"
fi
expect_error "frame corpus $SCRATCH/none/x.h5: cannot create" "$QKV_BIN" speech $S/en_ewt-sample-dev.conllu.gz \
    --max-sentences 1 --voices en-us --out "$SCRATCH/none/x.h5"
expect_error "not standard input: give FILE" "$QKV_BIN" tag "$ck" - </dev/null
expect_error "reads speech frames (a frame corpus made by qkv speech, or a recording): --format text and --tokenizer are for words" \
    "$QKV_BIN" tag "$ck" --format text - </dev/null
expect_error "reads speech frames (a frame corpus made by qkv speech, or a recording): --max-words is for words" \
    "$QKV_BIN" tag "$ck" --max-words 10 "$SCRATCH/dev.h5"
quick_run "$SCRATCH/words" --set train.max_steps=2
expect_error "--per-frame is for a frame model (data.task frames)" "$QKV_BIN" tag "$SCRATCH/words/checkpoints/last.h5" \
    $S/en_ewt-sample-dev.conllu.gz --per-frame
expect_error "last.h5 reads words: --max-seconds is for a frame model's recordings" \
    "$QKV_BIN" tag "$SCRATCH/words/checkpoints/last.h5" $S/en_ewt-sample-dev.conllu.gz --max-seconds 5
echo "qkv tag and eval of a frame model: ok"
