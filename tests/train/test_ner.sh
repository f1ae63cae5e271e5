#!/bin/bash
# Named-entity tags end to end on a small generated column corpus in WNUT 2017's layout (TAB-only
# lines between some sentences): training in BIOES from BIO files (data.tag_scheme), span scores
# in the dev log, metrics.tsv and eval (text and --json), best.h5 by span F1, qkv tag writing the
# file's own layout and scheme back; errors for span settings on POS tags.
source "$(dirname "$0")/common.sh"

# Sentences of a few patterns: "PER-name says hi to LOC-name ." etc.; a TAB-only line after
# every third sentence, an empty line otherwise.
gen() { # N SEED
    awk -v n="$1" -v seed="$2" 'BEGIN {
        srand(seed)
        split("Ann Bob Cem Dee Eli Fay Gus Hal", per, " "); split("Rome Oslo Lima Kyiv Baku Riga", loc, " ")
        split("says hi to ; met ; flew to ; waved at", verbs, " ; ")
        for (s = 0; s < n; s++) {
            p = per[int(rand() * 8) + 1]; l = loc[int(rand() * 6) + 1]
            printf "%s\tB-person\n", p
            if (rand() < 0.5) printf "%s\tI-person\n", per[int(rand() * 8) + 1]
            nv = split(verbs[int(rand() * 4) + 1], v, " ")
            for (i = 1; i <= nv; i++) printf "%s\tO\n", v[i]
            printf "%s\tB-location\n", l
            if (rand() < 0.3) printf "New\tI-location\n"
            printf ".\tO\n"
            printf (s % 3 == 2) ? "\t\n" : "\n"
        }
    }'
}
gen 400 1 >"$SCRATCH/train.conll"
gen 60 2 >"$SCRATCH/dev.conll"
cat >"$SCRATCH/ner.yaml" <<EOC
model: {d_model: 32, n_heads: 2, n_layers: 1, d_ff: 64}
data: {train: $SCRATCH/train.conll, dev: $SCRATCH/dev.conll, batch_tokens: 400, tag_scheme: bioes}
train: {epochs: 4, word_dropout: 0}
optim: {lr: 5e-3, warmup_steps: 5}
log: {every_steps: 10, progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/run" >"$SCRATCH/train.out" 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train"; }
grep -q "span F1" "$SCRATCH/train.log" || fail "no span F1 in the dev log lines"
grep -q "best dev span F1" "$SCRATCH/train.log" || { cat "$SCRATCH/train.log"; fail "select_by auto did not follow span F1"; }
# the model learned BIOES tags: E- and S- are among its tags
grep -q "S-location" "$SCRATCH/train.out" || { cat "$SCRATCH/train.out"; fail "no S-location tag (tag_scheme bioes)"; }
head -1 "$SCRATCH/run/metrics.tsv" | grep -q $'elapsed_s\tspan_precision\tspan_recall\tspan_f1$' || fail "metrics.tsv header"
awk -F'\t' '$3 == "dev" && $11 != "nan" && $11 >= 0 && $11 <= 1 { ok++ } $3 == "train" && $11 != "nan" { bad++ }
    END { exit !(ok >= 4 && !bad) }' "$SCRATCH/run/metrics.tsv" || { cat "$SCRATCH/run/metrics.tsv"; fail "span columns"; }
# best.h5 is the evaluation with the highest span F1
best_f1=$(awk -F'\t' '$3 == "dev" && $11 > m { m = $11 } END { printf "%.2f", 100 * m }' "$SCRATCH/run/metrics.tsv")
grep -q "best dev span F1 $best_f1 " "$SCRATCH/train.log" || { cat "$SCRATCH/train.log"; fail "best span F1 is not $best_f1"; }

# the plot draws dev span F1 beside dev accuracy (the script is written even without gnuplot)
"$QKV_BIN" plot "$SCRATCH/run" --out "$SCRATCH/p.png" >/dev/null 2>&1 || true
grep -q "100 \* \$11 .*dev span F1" "$SCRATCH/p.gp" || { cat "$SCRATCH/p.gp"; fail "no span F1 line in the plot"; }

# eval: gold spans as conlleval counts them in the BIO dev file (every B- starts one)
ckpt=$SCRATCH/run/checkpoints/best.h5
gold=$(grep -c $'\tB-' "$SCRATCH/dev.conll")
"$QKV_BIN" eval "$ckpt" "$SCRATCH/dev.conll" --json >"$SCRATCH/eval.json" || fail "eval --json"
$PY - "$SCRATCH/eval.json" "$gold" <<'EOP' || fail "eval --json spans"
import json, sys
r = json.load(open(sys.argv[1]))["spans"]
assert r["gold"] == int(sys.argv[2]), (r["gold"], sys.argv[2])
assert set(r["types"]) == {"person", "location"}, r["types"]
assert sum(t["gold"] for t in r["types"].values()) == r["gold"]
p = r["correct"] / r["predicted"] if r["predicted"] else 0
assert abs(r["precision"] - p) < 1e-6 and r["f1"] > 0.5, r
EOP
"$QKV_BIN" eval "$ckpt" "$SCRATCH/dev.conll" >"$SCRATCH/eval.txt" || fail "eval"
grep -q "^  spans: precision .*([0-9]* correct; $gold gold" "$SCRATCH/eval.txt" || { cat "$SCRATCH/eval.txt"; fail "eval text spans line"; }
# the report leads with span F1; the confusion table keeps its columns with tags longer than 6
head -1 "$SCRATCH/eval.txt" | grep -q "dev.conll: span F1 [0-9.]* (P [0-9.]*%, R [0-9.]*%), accuracy " ||
    { cat "$SCRATCH/eval.txt"; fail "the NER report does not lead with span F1"; }
awk '/most frequent confusions/ {on = 1; next} on && /->/ {a[index($0, "->")]++; c[length($0)]++}
     END {n = 0; for (k in a) n++; m = 0; for (k in c) m++; exit !(n == 1 && m == 1)}' "$SCRATCH/eval.txt" ||
    { cat "$SCRATCH/eval.txt"; fail "the confusion table's columns do not line up"; }
grep -A1 "most frequent confusions" "$SCRATCH/eval.txt" | grep -q -- '-location\|-person' ||
    { cat "$SCRATCH/eval.txt"; fail "test data: no confusion between long tags"; }

# tag: the same layout back (forms, TAB-only lines), predictions in the file's scheme (BIO)
"$QKV_BIN" tag "$ckpt" "$SCRATCH/dev.conll" >"$SCRATCH/tagged.conll" || fail "tag"
cmp -s <(cut -f1 "$SCRATCH/dev.conll") <(cut -f1 "$SCRATCH/tagged.conll") || fail "tag changed the layout"
[ "$(grep -c $'^\t$' "$SCRATCH/tagged.conll")" = "$(grep -c $'^\t$' "$SCRATCH/dev.conll")" ] || fail "TAB-only lines"
grep -q $'\t[ES]-' "$SCRATCH/tagged.conll" && fail "tag wrote BIOES tags into a BIO file"
grep -q $'\tB-person' "$SCRATCH/tagged.conll" || fail "no B-person predicted"
# text input has no scheme of its own: BIO, as for a file; --scheme picks one for either input
cut -f1 "$SCRATCH/dev.conll" | awk 'NF == 0 {if (line != "") print line; line = ""; next} {line = line (line == "" ? "" : " ") $1}
                                    END {if (line != "") print line}' >"$SCRATCH/dev.txt"
"$QKV_BIN" tag "$ckpt" "$SCRATCH/dev.txt" --format text >"$SCRATCH/text.conllu" || fail "tag --format text"
grep -q $'\t[ES]-' "$SCRATCH/text.conllu" && fail "tag --format text wrote BIOES tags (a text has no scheme: BIO)"
grep -q $'\tB-person' "$SCRATCH/text.conllu" || fail "tag --format text: no B-person predicted"
cmp -s <(awk -F'\t' 'NF == 2 && $1 != "" {print $2}' "$SCRATCH/tagged.conll") \
    <(awk -F'\t' 'NF == 10 {print $4}' "$SCRATCH/text.conllu") || fail "tag: other tags for text than for the file"
for input in "$SCRATCH/dev.conll" "$SCRATCH/dev.txt --format text"; do
    # shellcheck disable=SC2086
    "$QKV_BIN" tag "$ckpt" $input --scheme bioes >"$SCRATCH/bioes.out" || fail "tag --scheme bioes"
    grep -q $'\tS-\|\tE-' "$SCRATCH/bioes.out" || fail "tag $input --scheme bioes wrote no E-/S- tag"
    "$QKV_BIN" tag "$ckpt" $input --scheme iob1 >"$SCRATCH/iob1.out" || fail "tag --scheme iob1"
    grep -q $'\tI-' "$SCRATCH/iob1.out" || fail "tag --scheme iob1: no I-"
    # IOB1: B- only where a chunk follows one of its own type; every other chunk starts with I-
    awk -F'\t' 'NF != 2 && NF != 10 { prev = "O"; next }
        { tag = NF == 10 ? $4 : $2 }
        tag ~ /^B-/ && prev != "I-" substr(tag, 3) && prev != "B-" substr(tag, 3) { bad = 1 }
        { prev = tag } END { exit bad }' "$SCRATCH/iob1.out" || fail "tag $input --scheme iob1: a B- that IOB1 writes as I-"
done
printf 'a b\n' >"$SCRATCH/one.txt"

# span settings on part-of-speech tags are errors
printf 'a\tDT\nb\tNN\n\n' >"$SCRATCH/pos.tsv"
expect_error "pos.tsv:1: data.tag_scheme bioes needs span tags" \
    "$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/r2" --set data.train="$SCRATCH/pos.tsv"
expect_error "train.select_by is span_f1 but the training tags are not all span tags" \
    "$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/r3" --set data.train="$SCRATCH/pos.tsv" \
    --set data.dev="$SCRATCH/pos.tsv" --set data.tag_scheme=none --set train.select_by=span_f1
"$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/pos" --set data.train="$SCRATCH/pos.tsv" --set data.dev="$SCRATCH/pos.tsv" \
    --set data.tag_scheme=none --set train.max_steps=1 >/dev/null 2>&1 || fail "train on POS tags"
expect_error "--scheme bio: the tags of $SCRATCH/pos/checkpoints/last.h5 are not span tags" \
    "$QKV_BIN" tag "$SCRATCH/pos/checkpoints/last.h5" "$SCRATCH/one.txt" --format text --scheme bio

# qkv attention labels each word with the tag the model predicts: under a constrained CRF that is
# the Viterbi path, which never starts a span with I- (a 2-step model, whose per-word argmax does),
# and the same tags as qkv tag's.
cat >"$SCRATCH/crf.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32, output: crf, crf_constrained: true}
data: {train: $SCRATCH/train.conll, dev: $SCRATCH/dev.conll, batch_tokens: 400}
train: {max_steps: 2, word_dropout: 0}
log: {progress: off, plot: false}
EOC
"$QKV_BIN" train "$SCRATCH/crf.yaml" --out "$SCRATCH/crf" >/dev/null 2>"$SCRATCH/crf.log" || { cat "$SCRATCH/crf.log"; fail "train crf"; }
for sentence in "New Rome ." "Oslo flew New" "hi to New Lima says"; do
    "$QKV_BIN" attention "$SCRATCH/crf/checkpoints/last.h5" --sentence "$sentence" --out "$SCRATCH/att.png" --force \
        >/dev/null 2>"$SCRATCH/att.err" || { cat "$SCRATCH/att.err"; fail "attention of a crf model"; }
    labels=$(grep -o 'set ytics ([^)]*)' "$SCRATCH/att.gp" | grep -o '"[^"]*"' | tr -d '"' | awk '{ print $2 }' | tr '\n' ' ')
    echo "$sentence" >"$SCRATCH/att.txt"
    tagged=$("$QKV_BIN" tag "$SCRATCH/crf/checkpoints/last.h5" "$SCRATCH/att.txt" --format text | awk -F'\t' 'NF > 3 { print $4 }' | tr '\n' ' ')
    [ "$labels" = "$tagged" ] || fail "qkv attention labels '$sentence' with '$labels', qkv tag with '$tagged'"
    case "$labels" in I-*) fail "attention of a constrained crf model starts with an I- tag: $labels" ;; esac
done
echo "ner: ok"
