#!/bin/bash
# A parser's scores count every word, in qkv's own UAS and LAS and in the CoNLL 2018 line alike:
# on a file they accept both UAS are the same figure over the same words; a file to score with a
# HEAD or a DEPREL "_" on some word is a file:line error for qkv eval (text and --json) and for
# the dev file of qkv train; qkv eval --raw refuses a gold file where some words have a HEAD and
# others "_" (the CoNLL 2018 scorer refuses a HEAD that is no number), or where none has one.
source "$(dirname "$0")/common.sh"
S=data/ud_english_ewt_sample
"$QKV_BIN" train configs/ud_ewt_parse.yaml --set data.train=$S/en_ewt-sample-train.conllu.gz \
    --set data.dev=$S/en_ewt-sample-dev.conllu.gz --set train.max_steps=2 --set train.eval_every=2 \
    "${PARSE_SMALL[@]}" --out "$SCRATCH/run" >"$SCRATCH/run.log" 2>&1 ||
    { cat "$SCRATCH/run.log" >&2; fail "qkv train"; }
CK=$SCRATCH/run/checkpoints/last.h5
# a file both lines accept: the same UAS, as counts in --json
"$QKV_BIN" eval "$CK" $S/en_ewt-sample-dev.conllu.gz --json >"$SCRATCH/dev.json" || fail "qkv eval --json"
$PY - "$SCRATCH/dev.json" <<'PY' || fail "qkv's UAS and the CoNLL 2018 UAS differ on a clean file"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["untagged"] == 0 and abs(r["uas"] - r["conll18"]["UAS"]) < 1e-6, r
PY
# "The cat sat ." with DEPREL "_" on words 2 and 3 (line 3 the first), then HEAD "_" on word 2
printf '# text = The cat sat .\n1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tcat\tcat\tNOUN\tNN\t_\t3\t_\t_\t_\n' >"$SCRATCH/nolabel.conllu"
printf '3\tsat\tsit\tVERB\tVBD\t_\t0\t_\t_\t_\n4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n\n' >>"$SCRATCH/nolabel.conllu"
sed '3s/\t3\t_\t/\t_\tnsubj\t/; 4s/\t0\t_\t/\t0\troot\t/' "$SCRATCH/nolabel.conllu" >"$SCRATCH/nohead.conllu"
grep -q "	_	nsubj	" "$SCRATCH/nohead.conllu" || fail "test data"
for json in "" --json; do
    expect_error "nolabel.conllu:3: DEPREL (field 8) is _: every word of a file a parser is scored on needs its HEAD and DEPREL" \
        "$QKV_BIN" eval "$CK" "$SCRATCH/nolabel.conllu" $json
    expect_error "nohead.conllu:3: word 2 has HEAD _" "$QKV_BIN" eval "$CK" "$SCRATCH/nohead.conllu" $json
done
expect_error "nolabel.conllu:3: DEPREL (field 8) is _" "$QKV_BIN" train configs/ud_ewt_parse.yaml \
    --set data.train=$S/en_ewt-sample-train.conllu.gz --set data.dev="$SCRATCH/nolabel.conllu" --set train.max_steps=1 \
    --out "$SCRATCH/bad"
# --raw: the CoNLL 2018 scorer alone
expect_error "nohead.conllu:3: HEAD (field 7) is no word number where other words have one" \
    "$QKV_BIN" eval "$CK" "$SCRATCH/nohead.conllu" --raw --tokenizer whitespace
awk -F'\t' -v OFS='\t' 'NF == 10 { $7 = "_"; $8 = "_" } { print }' "$SCRATCH/nolabel.conllu" >"$SCRATCH/notree.conllu"
expect_error "notree.conllu: no word has a HEAD (field 7): nothing to score the parser on" \
    "$QKV_BIN" eval "$CK" "$SCRATCH/notree.conllu" --raw --tokenizer whitespace
"$QKV_BIN" eval "$CK" "$SCRATCH/nolabel.conllu" --raw --tokenizer whitespace >"$SCRATCH/raw.out" ||
    fail "--raw refuses a gold DEPREL _ (the CoNLL 2018 scorer scores it as a label)"
grep -q "^UAS  *4  *4 " "$SCRATCH/raw.out" || { cat "$SCRATCH/raw.out" >&2; fail "--raw: UAS not over 4 words"; }
echo ok
