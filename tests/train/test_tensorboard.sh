#!/bin/bash
# log.tensorboard: true writes RUN/events.out.tfevents.<time>.<host> beside metrics.tsv, read back
# by tests/train/read_tfevents.py (TFRecord CRCs, Event protobufs decoded with python3-protobuf
# against message definitions written in the test): the training loss and lr and every dev score
# by its metrics.tsv name (a tagger's accuracy_upos; a parser's las, uas and its further heads),
# at the steps and with the values of metrics.tsv; with log.plot the attention picture after each
# epoch as the image plots/attention (a PNG, its size and colorspace as its header says; the last
# one the run's plots/attention.png byte for byte), and an image classifier's confusion matrix
# as the image plots/confusion at the step of best.h5; a resumed run adds a file that begins with a
# SessionLog START (and its metrics.tsv, written before the columns had these names, takes the
# new header, its kept rows rewritten by column name). log.tensorboard: false writes no event file.
. "$(dirname "$0")/common.sh"
"$PY" -c "import google.protobuf" 2>/dev/null || { echo "SKIP: python3-protobuf is not installed (apt-get install python3-protobuf)"; exit 77; }
TINY=(--set data.synthetic_train=200 --set data.synthetic_dev=40 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=2 --set data.batch_tokens=300 --set log.every_steps=2 --set log.progress=off
      --set optim.warmup_steps=2 --set log.plot=false)
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.epochs=2 --set log.tensorboard=true \
    --set log.plot=true --out "$SCRATCH/tagger" >/dev/null 2>"$SCRATCH/tagger.err" ||
    { cat "$SCRATCH/tagger.err"; fail "train the tagger"; }
ls "$SCRATCH/tagger"/events.out.tfevents.[0-9]*."$(hostname)" >/dev/null 2>&1 || { ls "$SCRATCH/tagger"; fail "no event file named for the time and host"; }
out=$("$PY" tests/train/read_tfevents.py "$SCRATCH/tagger" 2>&1) || { echo "$out"; fail "the tagger's event file"; }
grep -q "dev scores: accuracy_upos$" <<<"$out" || { echo "$out"; fail "the tagger's dev score is not accuracy_upos"; }
# two epochs: a picture after each (the second at the run's last step, drawn once)
grep -q "^images: plots/attention at 2 steps, " <<<"$out" || { echo "$out"; fail "not 2 attention images"; }
# the check can fail: a picture on disk that is not the last image
printf x >>"$SCRATCH/tagger/plots/attention.png"
"$PY" tests/train/read_tfevents.py "$SCRATCH/tagger" >/dev/null 2>&1 && fail "a changed attention picture went unnoticed"

# an image classifier: its confusion matrix, drawn at the end from best.h5, as one image at that
# checkpoint's step
"$QKV_BIN" train configs/images_quick.yaml --set train.max_steps=4 --set train.threads=1 --set log.progress=off \
    --set log.tensorboard=true --out "$SCRATCH/images" >/dev/null 2>"$SCRATCH/images.err" ||
    { cat "$SCRATCH/images.err"; fail "train the image classifier"; }
out=$("$PY" tests/train/read_tfevents.py "$SCRATCH/images" 2>&1) || { echo "$out"; fail "the image classifier's event file"; }
best=$(ckpt_step "$SCRATCH/images/checkpoints/best.h5")
grep -qx "images: plots/confusion at 1 steps, the last at step $best" <<<"$out" ||
    { echo "$out"; fail "not one confusion image at best.h5's step $best"; }

F=tests/data/files/ewt_all_columns
"$QKV_BIN" train configs/ud_ewt_joint.yaml --set data.train=$F/en_ewt-all-train.conllu.gz \
    --set data.dev=$F/en_ewt-all-dev.conllu.gz --set train.max_steps=20 --set train.eval_every=10 \
    --set optim.warmup_steps=3 "${PARSE_SMALL[@]}" --set train.threads=1 --set log.plot=false \
    --set log.tensorboard=true --out "$SCRATCH/parser" >/dev/null 2>"$SCRATCH/parser.err" ||
    { cat "$SCRATCH/parser.err"; fail "train the parser"; }
out=$("$PY" tests/train/read_tfevents.py "$SCRATCH/parser" 2>&1) || { echo "$out"; fail "the parser's event file"; }
grep -q "dev scores: las, uas, accuracy_upos, accuracy_xpos, accuracy_feats, accuracy_lemma$" <<<"$out" ||
    { echo "$out"; fail "the parser's dev scores"; }

# stopped at step 6, metrics.tsv turned into the earlier layout (accuracy, three span columns),
# resumed: a second event file; the kept rows under the new header with their values
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.epochs=2 --set log.tensorboard=true \
    --set checkpoint.every_steps=3 --stop-at-step 6 --out "$SCRATCH/resumed" >/dev/null 2>&1 || fail "train to step 6"
m=$SCRATCH/resumed/metrics.tsv
awk -F'\t' -v OFS='\t' 'NR == 1 { $5 = "accuracy"; print $0, "span_precision", "span_recall", "span_f1"; next }
     { print $0, "nan", "nan", "nan" }' "$m" >"$SCRATCH/old.tsv" && cp "$SCRATCH/old.tsv" "$m"
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.epochs=2 --set log.tensorboard=true \
    --resume "$SCRATCH/resumed/checkpoints/last.h5" --out "$SCRATCH/resumed" >/dev/null 2>"$SCRATCH/resumed.err" ||
    { cat "$SCRATCH/resumed.err"; fail "resume"; }
[ "$(ls "$SCRATCH/resumed"/events.out.tfevents.* | wc -l)" = 2 ] || fail "the resumed run did not add an event file"
head -1 "$m" | grep -q $'^step\tepoch\tsplit\tloss\taccuracy_upos\tlr\ttokens_per_sec\telapsed_s$' ||
    { head -1 "$m"; fail "the resumed metrics.tsv does not have the new header"; }
n_old=$(($(wc -l <"$SCRATCH/old.tsv") - 1))
cmp -s <(awk -F'\t' -v OFS='\t' 'NR > 1 { NF = 8; print }' "$SCRATCH/old.tsv") <(sed -n "2,$((n_old + 1))p" "$m") ||
    { cat "$SCRATCH/old.tsv" "$m"; fail "the kept rows were not rewritten by column name"; }
out=$("$PY" tests/train/read_tfevents.py "$SCRATCH/resumed" 2>&1) || { echo "$out"; fail "the resumed run's event files"; }
grep -q "^2 file(s)" <<<"$out" || { echo "$out"; fail "not read as 2 files"; }

# the check can fail: a value changed in metrics.tsv is caught
awk -F'\t' -v OFS='\t' '$3 == "dev" && !done { $5 = 0.123; done = 1 } { print }' "$SCRATCH/parser/metrics.tsv" \
    >"$SCRATCH/m" && mv "$SCRATCH/m" "$SCRATCH/parser/metrics.tsv"
"$PY" tests/train/read_tfevents.py "$SCRATCH/parser" >/dev/null 2>&1 && fail "a changed LAS went unnoticed"

"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.max_steps=4 --out "$SCRATCH/off" >/dev/null 2>&1 ||
    fail "train without log.tensorboard"
ls "$SCRATCH/off"/events.out.tfevents.* >/dev/null 2>&1 && fail "an event file without log.tensorboard"
echo "PASS"
