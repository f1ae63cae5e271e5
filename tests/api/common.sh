# shellcheck shell=bash
# Shared by tests/api/test_*.sh: tests/train/common.sh (strict mode, $SCRATCH, fail,
# expect_error, quick_run) and a small trained model with sentences to tag.
# shellcheck source=tests/train/common.sh
. "${QKV_SOURCE_DIR:?}/tests/train/common.sh"

# make_model: trains a small synthetic tagger into $SCRATCH/run (with a parameter average, so
# that /params and /train/raw_params differ), exports it as $SCRATCH/model.h5, and writes
# $SCRATCH/sentences.txt (1,000 sentences of another synthetic seed, one a line, words
# separated by spaces) and $SCRATCH/expected.tsv, `qkv tag --format text`'s tags for them as
# examples/tag_sentences.c writes them (word TAB tag, an empty line after each sentence).
make_model() {
    quick_run "$SCRATCH/run" --set train.max_steps=40 --set train.ema_decay=0.9 --set train.eval_every=20
    "$QKV_BIN" export "$SCRATCH/run/checkpoints/last.h5" --out "$SCRATCH/model.h5" 2>"$SCRATCH/export.log" ||
        { cat "$SCRATCH/export.log" >&2; fail "qkv export"; }
    "$QKV_BIN" synth --sentences 1000 --seed 7 |
        awk -F'\t' '/^#/ { next } NF == 0 { if (line != "") print line; line = ""; next }
                    { line = line == "" ? $2 : line " " $2 } END { if (line != "") print line }' \
            >"$SCRATCH/sentences.txt"
    [ "$(wc -l <"$SCRATCH/sentences.txt")" -eq 1000 ] || fail "expected 1000 sentences to tag"
    "$QKV_BIN" tag "$SCRATCH/model.h5" "$SCRATCH/sentences.txt" --format text >"$SCRATCH/tagged.conllu" ||
        fail "qkv tag on the exported model"
    conllu_to_tsv "$SCRATCH/tagged.conllu" >"$SCRATCH/expected.tsv"
}

# words_of CONLLU N OUT: the words (FORM of the word lines) of the first N sentences of CONLLU
# (plain or gzip) into OUT.tsv, a sentence a line, words separated by TABs, and the same as
# CoNLL-U for qkv tag into OUT.conllu: "# sent_id = K", "# text = " the words joined by spaces,
# ID and FORM, "_" elsewhere (what qkv_model_tag_words' sentences are).
words_of() {
    gzip -dcf "$1" | awk -F'\t' 'NF == 0 { if (line != "") print line; line = ""; next }
        $1 ~ /^[0-9]+$/ { line = line == "" ? $2 : line "\t" $2 } END { if (line != "") print line }' |
        head -"$2" >"$3.tsv"
    awk -F'\t' '{ printf "# sent_id = %d\n# text =", NR; for (i = 1; i <= NF; i++) printf " %s", $i; print ""
                  for (i = 1; i <= NF; i++) printf "%d\t%s\t_\t_\t_\t_\t_\t_\t_\t_\n", i, $i; print "" }' \
        "$3.tsv" >"$3.conllu"
}

# conllu_to_tsv FILE: the FORM and UPOS of every word line, an empty line after each sentence.
conllu_to_tsv() {
    awk -F'\t' '/^#/ { next } NF == 0 { print ""; next } { print $2 "\t" $4 }' "$1"
}
