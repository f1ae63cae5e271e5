#!/bin/bash
# Several heads over one encoder (data.tags a list, configs/ud_ewt_full.yaml) on the EWT excerpt
# with every column (tests/data/files/ewt_columns/): a short run writes each head's dev accuracy
# to metrics.tsv, eval reports the CoNLL 2018 scores (also from raw text), tag fills LEMMA, UPOS, XPOS and FEATS and
# keeps every other byte, also of raw text through a segmenter; a single lemma head tags lemmas, not edit scripts; a column the corpus
# has only as "_" is refused for training (the shipped sample has no FEATS or LEMMA).
. "$(dirname "$0")/common.sh"
F=tests/data/files/ewt_columns
S=data/ud_english_ewt_sample
SMALL=(--set data.train=$F/en_ewt-columns-train.conllu.gz --set data.dev=$F/en_ewt-columns-dev.conllu.gz
       --set model.d_model=32 --set model.d_ff=64 --set model.n_layers=1 --set train.epochs=2
       --set data.batch_tokens=1000 --set log.progress=off --set log.plot=false --set train.threads=1)
out=$("$QKV_BIN" train configs/ud_ewt_full.yaml "${SMALL[@]}" --out "$SCRATCH/run" 2>&1) ||
    { echo "$out" >&2; fail "training four heads"; }
grep -q "dev accuracy .*(upos .*, xpos .*, feats .*, lemma .*; selection score" <<<"$out" ||
    { echo "$out" >&2; fail "no per-head dev accuracies in the progress"; }
head -1 "$SCRATCH/run/metrics.tsv" |
    grep -q $'^step\tepoch\tsplit\tloss\taccuracy_upos\tlr\ttokens_per_sec\telapsed_s\taccuracy_xpos\taccuracy_feats\taccuracy_lemma$' ||
    fail "metrics.tsv: no per-head columns named for their columns"
# the selection score is the mean of the four heads' accuracies
awk -F'\t' '$3 == "dev" { m = ($5 + $9 + $10 + $11) / 4; if (m > best) best = m } END { printf "%.2f\n", 100 * best }' \
    "$SCRATCH/run/metrics.tsv" >"$SCRATCH/best"
grep -qF "best dev selection score $(cat "$SCRATCH/best")%" <<<"$out" || { echo "$out" >&2; fail "selection score is not the mean"; }
CKPT=$SCRATCH/run/checkpoints/best.h5
# filled WORDS: the number of word lines with LEMMA, UPOS and XPOS predicted (not "_")
filled() { awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ && $3 != "_" && $4 != "_" && $5 != "_" { n++ } END { print n + 0 }'; }

out=$("$QKV_BIN" eval "$CKPT" $F/en_ewt-columns-dev.conllu.gz) || fail "eval"
grep -q "CoNLL 2018 scores (gold tokenization): UPOS .* XPOS .* UFeats .* AllTags .* Lemmas " <<<"$out" ||
    { echo "$out" >&2; fail "eval: no CoNLL 2018 scores"; }
# a file without gold XPOS: that head is not scored (not 0.00%)
gzip -dc $F/en_ewt-columns-dev.conllu.gz | awk 'BEGIN { FS = OFS = "\t" } NF == 10 { $5 = "_" } { print }' \
    >"$SCRATCH/noxpos.conllu"
out=$("$QKV_BIN" eval "$CKPT" "$SCRATCH/noxpos.conllu") || fail "eval without gold xpos"
grep -q "heads: upos [0-9.]*% xpos n/a (no gold xpos) feats" <<<"$out" || { echo "$out" >&2; fail "eval: xpos scored without gold"; }
json=$("$QKV_BIN" eval "$CKPT" $F/en_ewt-columns-dev.conllu.gz --json) || fail "eval --json"
grep -q '"conll18": {"UPOS": [0-9.]*, "XPOS": [0-9.]*, "UFeats": [0-9.]*, "AllTags": [0-9.]*, "Lemmas": ' <<<"$json" ||
    { echo "$json" >&2; fail "eval --json: no conll18 scores"; }

out=$("$QKV_BIN" eval "$CKPT" $F/en_ewt-columns-dev.conllu.gz --raw --tokenizer whitespace) || fail "eval --raw"
for m in UPOS XPOS UFeats AllTags Lemmas; do
    grep -qP "^$m +\d+ +\d+ +\d+ " <<<"$out" || { echo "$out" >&2; fail "eval --raw: no $m"; }
done
gzip -dc $F/en_ewt-columns-dev.conllu.gz >"$SCRATCH/dev.conllu"
# the input without its tags: every column the model predicts must be filled by tag
awk -F'\t' -v OFS='\t' 'NF == 10 { $3 = $4 = $5 = $6 = "_" } { print }' "$SCRATCH/dev.conllu" >"$SCRATCH/bare.conllu"
"$QKV_BIN" tag "$CKPT" "$SCRATCH/bare.conllu" >"$SCRATCH/tagged.conllu" || fail "tag"
cmp -s <(cut -f1-2,7- "$SCRATCH/bare.conllu") <(cut -f1-2,7- "$SCRATCH/tagged.conllu") || fail "tag changed other columns"
awk -F'\t' 'NF == 10 && $1 ~ /^[0-9]+$/ && ($3 == "_" && $2 != "_" || $4 == "_" || $5 == "_") { bad++ } END { exit bad > 0 }' \
    "$SCRATCH/tagged.conllu" || fail "tag left a LEMMA, UPOS or XPOS empty"
# the lemmas are words, not edit scripts ("L0;-0+;-1+")
! grep -qP '^\d+\t[^\t]*\t[LUK][0-9]*;' "$SCRATCH/tagged.conllu" || fail "tag wrote an edit script as a lemma"
out=$(echo "The cats were sleeping ." | "$QKV_BIN" tag "$CKPT" - --format text) || fail "tag --format text"
[ "$(filled <<<"$out")" = 5 ] || { echo "$out" >&2; fail "tag --format text: columns"; }

# raw text through a segmenter: every column too
make_segmenter "$SCRATCH/seg" >/dev/null 2>&1 || fail "training a segmenter"
out=$(printf 'The cats were sleeping. They woke up.\n' |
      "$QKV_BIN" tag "$CKPT" - --format text --tokenizer "$SCRATCH/seg/checkpoints/last.h5") || fail "tag --tokenizer"
n=$(grep -cP '^\d+\t' <<<"$out")
[ "$n" -gt 0 ] && [ "$(filled <<<"$out")" = "$n" ] ||
    { echo "$out" >&2; fail "tag --tokenizer: not every column filled"; }

# one lemma head: qkv tag writes lemmas
"$QKV_BIN" train configs/ud_ewt_full.yaml "${SMALL[@]}" --set data.tags=lemma --out "$SCRATCH/lemma" >/dev/null 2>&1 ||
    fail "training a lemma head"
"$QKV_BIN" tag "$SCRATCH/lemma/checkpoints/last.h5" "$SCRATCH/bare.conllu" >"$SCRATCH/lemmas.conllu" || fail "tag lemmas"
cmp -s <(cut -f1-2,4- "$SCRATCH/bare.conllu") <(cut -f1-2,4- "$SCRATCH/lemmas.conllu") || fail "lemma tag changed other columns"
! grep -qP '^\d+\t[^\t]*\t[LUK][0-9]*;' "$SCRATCH/lemmas.conllu" || fail "tag wrote an edit script as a lemma"

# the shipped sample has FEATS and LEMMA only as "_": nothing to train on
for col in feats:FEATS:6 lemma:LEMMA:3; do
    IFS=: read -r name upper field <<<"$col"
    expect_error "no word has a value in $upper (field $field): all 51717 are \"_\" (nothing to train on)" \
        "$QKV_BIN" train configs/quickstart.yaml --set "data.tags=[upos, $name]" --out "$SCRATCH/bad_$name"
    [ ! -e "$SCRATCH/bad_$name" ] || fail "a run folder was created for an all-_ $upper column"
done
echo "multi head: ok"
