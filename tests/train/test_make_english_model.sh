#!/bin/bash
# data/make-english-model.sh on the all-columns excerpt of EWT (tests/data/files/ewt_all_columns),
# each training cut to a few steps (QKV_MAKE_SET): a missing or cut corpus is refused before
# anything trains; a tagger stopped after a checkpoint resumes where it stopped; the result is a
# model whose raw-text output has every column and a tree per sentence; a second run trains
# nothing again; a failed export leaves the previous model file as it was and no temporary file.
. "$(dirname "$0")/common.sh"
EWT=$SCRATCH/ewt
MODELS=$SCRATCH/models
mkdir -p "$EWT" "$MODELS" "$SCRATCH/cut"
zcat tests/data/files/ewt_all_columns/en_ewt-all-train.conllu.gz >"$EWT/en_ewt-ud-train.conllu"
zcat tests/data/files/ewt_all_columns/en_ewt-all-dev.conllu.gz >"$EWT/en_ewt-ud-dev.conllu"
export QKV=$QKV_BIN QKV_RUNS=$SCRATCH/runs
export QKV_MAKE_SET="--set train.max_steps=4 --set train.threads=1 --set log.plot=false --set log.progress=off --set log.every_steps=1 --set data.batch_tokens=500"
OUT=$MODELS/en.h5
make_model() { sh data/make-english-model.sh "$@" >"$SCRATCH/log" 2>&1; }

# Corpora missing or cut: one line naming the file and how to get it; nothing trained.
expect_error "$SCRATCH/none/en_ewt-ud-train.conllu: no such file (get UD English-EWT with: data/fetch-ud.sh" \
    sh data/make-english-model.sh "$SCRATCH/none" "$OUT"
head -c 5000 "$EWT/en_ewt-ud-train.conllu" >"$SCRATCH/cut/en_ewt-ud-train.conllu"
cp "$EWT/en_ewt-ud-dev.conllu" "$SCRATCH/cut/"
expect_error "en_ewt-ud-train.conllu: incomplete" sh data/make-english-model.sh "$SCRATCH/cut" "$OUT"
[ ! -e "$QKV_RUNS" ] || fail "a refused start made $QKV_RUNS"

# A tagger stopped at step 2, as a kill after its checkpoint leaves it: the script resumes it.
QKV_EWT_DIR=$EWT "$QKV_BIN" train configs/ud_ewt_english.yaml --out "$QKV_RUNS/tagger" $QKV_MAKE_SET \
    --stop-at-step 2 >"$SCRATCH/stop.log" 2>&1 || { cat "$SCRATCH/stop.log" >&2; fail "the stopped tagger"; }
echo "the previous model" >"$OUT"
make_model "$EWT" "$OUT" || { cat "$SCRATCH/log" >&2; fail "make-english-model.sh"; }
grep -q "^== segmenter: training configs/ud_ewt_tokenize.yaml" "$SCRATCH/log" || fail "the segmenter was not trained"
grep -q "^== tagger: resuming $QKV_RUNS/tagger" "$SCRATCH/log" || fail "the stopped tagger was not resumed"
steps=$(awk -F'\t' '$3 == "train" { print $1 }' "$QKV_RUNS/tagger/metrics.tsv" | tr '\n' ' ')
[ "$steps" = "1 2 3 4 " ] || fail "the resumed tagger's training steps are '$steps', not 1 to 4 once each"
grep -q "^== dev, raw text" "$SCRATCH/log" || fail "no raw-text dev scores printed"
grep -q "LAS" "$SCRATCH/log" || fail "no LAS among the printed dev scores"
ls -a "$MODELS" | grep -q tmp && fail "a temporary file is left in $MODELS"
grep -q "en_ewt-ud-train.conllu: a lemma lexicon of [1-9][0-9]* forms" "$SCRATCH/log" ||
    fail "the export added no lemma lexicon"
"$PY" -c "import sys, h5py; sys.exit('lemma_lexicon/keys' not in h5py.File(sys.argv[1], 'r'))" "$OUT" ||
    fail "the model has no /lemma_lexicon"

# The model tags raw text with every column and one tree per sentence (one root, heads in range).
echo "The cat sat on the mat. It was happy." | QKV_MODEL=$OUT "$QKV_BIN" tag >"$SCRATCH/tagged.conllu" ||
    fail "qkv tag with the made model"
awk -F'\t' 'function close_sentence() { if (n && (roots != 1 || maxhead > n)) bad = 1; sents += n > 0; n = roots = maxhead = 0 }
    /^[0-9]+\t/ { n++; if (NF != 10 || $7 !~ /^[0-9]+$/ || $4 == "_" || $5 == "_" || $8 == "_") bad = 1
                  if ($7 == 0) roots++; if ($7 + 0 > maxhead) maxhead = $7 + 0 }
    /^$/ { close_sentence() }
    END { close_sentence(); exit bad || sents < 1 }' "$SCRATCH/tagged.conllu" ||
    { cat "$SCRATCH/tagged.conllu" >&2; fail "the tagged text lacks a column or a tree per sentence"; }

# Run again: both stages finished, nothing trained again, the model made again.
make_model "$EWT" "$OUT" || { cat "$SCRATCH/log" >&2; fail "the second run"; }
[ "$(grep -c "finished before" "$SCRATCH/log")" -eq 2 ] || fail "a finished stage was trained again"

# A failed export: the previous model file stays as it was.
sum=$(sha256sum <"$OUT")
rm "$QKV_RUNS/tagger/checkpoints/best.h5"
make_model "$EWT" "$OUT" && fail "the script succeeded without the tagger's best.h5"
[ "$(sha256sum <"$OUT")" = "$sum" ] || fail "a failed export changed $OUT"
ls -a "$MODELS" | grep -q tmp && fail "a failed export left a temporary file in $MODELS"
echo "ok: refused corpora, resumed tagger, every column, no retraining, atomic output"
