# A frame model trained on a tiny generated corpus (seconds): data.task frames through the
# trainer, the held-out voice scored at the end, both label kinds, stacking, and its errors.
. "$QKV_SOURCE_DIR/tests/train/common.sh"
SAMPLE=data/ud_english_ewt_sample/en_ewt-sample-dev.conllu.gz
speech_corpus "$SAMPLE" 6 en-us,en-gb-x-rp train.h5
speech_corpus data/ud_english_ewt_sample/en_ewt-sample-train.conllu.gz 3 en-us,en-029 dev.h5
tiny_frames_config 8
run() { "$QKV_BIN" train "$SCRATCH/tiny.yaml" --out "$SCRATCH/$1" "${@:2}" >"$SCRATCH/$1.out" 2>"$SCRATCH/$1.log" ||
    { cat "$SCRATCH/$1.log" "$SCRATCH/$1.out" >&2; fail "qkv train $*"; }; }
run ph
grep -q "^frames dev (all voices but en-029): 3 utterances, [0-9]* tokens, frame accuracy [0-9.]*%, phone error rate [0-9.]*%" \
    "$SCRATCH/ph.out" || { cat "$SCRATCH/ph.out"; fail "no dev frame scores"; }
grep -q "^frames test (held-out voice en-029): 3 utterances, .*phone error rate" "$SCRATCH/ph.out" ||
    fail "no test scores"
# the loss falls over the 8 steps
"$PY" - "$SCRATCH/ph/metrics.tsv" <<'PY' || fail "the training loss did not fall"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
head = rows[0]
rows = [r for r in rows[1:] if r[head.index("split")] == "train"]
loss = [float(r[head.index("loss")]) for r in rows]
assert loss[-1] < loss[0], loss
PY
# qkv eval of the kept model on the dev file gives the same scores as the end of training
"$QKV_BIN" eval "$SCRATCH/ph/checkpoints/best.h5" "$SCRATCH/dev.h5" >"$SCRATCH/eval.out" 2>&1 ||
    { cat "$SCRATCH/eval.out" >&2; fail "qkv eval of a frame model"; }
diff <(grep "^frames" "$SCRATCH/ph.out") <(grep "^frames" "$SCRATCH/eval.out") || fail "qkv eval's frame scores differ"
run up --set data.frame_labels=upos --set data.frame_stack=3
grep -q "^frames test (held-out voice en-029): .*word accuracy (majority of its frames) [0-9.]*%" "$SCRATCH/up.out" ||
    { cat "$SCRATCH/up.out"; fail "no upos scores"; }
grep -q "dev: .*dev.h5, 3 utterances" "$SCRATCH/up.log" || fail "the held-out voice is in dev"
# errors: a held-out voice absent from dev, a CoNLL-U file where a frame corpus is expected
expect_error 'dev.h5: no utterance of voice "en-gb-x-rp"' "$QKV_BIN" train "$SCRATCH/tiny.yaml" --out "$SCRATCH/z" \
    --set data.held_out_voice=en-gb-x-rp
speech_corpus "$SAMPLE" 1 en-029 one.h5
expect_error "no utterance to take (every one is of the held-out voice" "$QKV_BIN" train "$SCRATCH/tiny.yaml" \
    --out "$SCRATCH/x" --set data.train="$SCRATCH/one.h5"
expect_error "en_ewt-sample-dev.conllu.gz" "$QKV_BIN" train "$SCRATCH/tiny.yaml" --out "$SCRATCH/y" \
    --set data.train="$QKV_SOURCE_DIR/$SAMPLE"
# the shipped config without its corpora says how to make them
QKV_SPEECH_DIR=$SCRATCH/none expect_error "To make the speech corpora: configs/speech/make-corpus.sh" \
    "$QKV_BIN" train configs/speech/phoneme.yaml --out "$SCRATCH/v"
# frames of another width than the training data's or the model's (another --n-mels)
speech_corpus data/ud_english_ewt_sample/en_ewt-sample-train.conllu.gz 2 en-us,en-029 dev80.h5 --n-mels 80
expect_error "dev80.h5: frames of 80 values (mel bands x data.frame_stack 1), the training data's have 40" \
    "$QKV_BIN" train "$SCRATCH/tiny.yaml" --out "$SCRATCH/w" --set data.dev="$SCRATCH/dev80.h5"
[ ! -e "$SCRATCH/w" ] || fail "a run folder was made for a dev corpus of another width"
expect_error "dev80.h5: frames of 80 values (mel bands x data.frame_stack 1), the model reads 40" \
    "$QKV_BIN" eval "$SCRATCH/ph/checkpoints/best.h5" "$SCRATCH/dev80.h5"
echo ok
