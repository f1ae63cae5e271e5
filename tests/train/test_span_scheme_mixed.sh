#!/bin/bash
# A file's span tags are in one scheme: a BIO file with one stray S- (or E-) tag, or a BIOES file
# with one chunk ending in B- or I-, is an error naming the line of that tag, for every reader
# that decides a file's scheme: training and dev files of qkv train (with data.tag_scheme or
# without), qkv eval's file, and qkv tag's input when it writes the input's own scheme (an
# explicit --scheme needs none). Clean BIO and BIOES files keep their own scheme in qkv tag.
source "$(dirname "$0")/common.sh"
awk 'BEGIN { srand(3); split("Ann Bob Cem Dee", per, " "); split("Rome Oslo Lima", loc, " ")
    for (s = 0; s < 60; s++) printf "%s\tB-person\n%s\tI-person\nmet\tO\n%s\tB-location\n.\tO\n\n",
        per[int(rand() * 4) + 1], per[int(rand() * 4) + 1], loc[int(rand() * 3) + 1] }' >"$SCRATCH/bio.conll"
awk -F'\t' -v OFS='\t' '$2 ~ /^I-/ { sub(/^I-/, "E-", $2) } $2 == "B-location" { $2 = "S-location" } { print }' \
    "$SCRATCH/bio.conll" >"$SCRATCH/bioes.conll"
# one stray S- on line 22 of the BIO file; one chunk of the BIOES file ending with B- on line 10
awk -F'\t' -v OFS='\t' 'NR == 22 { $2 = "S-location" } { print }' "$SCRATCH/bio.conll" >"$SCRATCH/stray.conll"
awk -F'\t' -v OFS='\t' 'NR == 10 { $2 = "B-location" } { print }' "$SCRATCH/bioes.conll" >"$SCRATCH/stray2.conll"
[ "$(sed -n 22p "$SCRATCH/bio.conll" | cut -f2)" = B-location ] &&
    [ "$(sed -n 10p "$SCRATCH/bioes.conll" | cut -f2)" = S-location ] || fail "test data"
cat >"$SCRATCH/ner.yaml" <<EOC
model: {d_model: 16, n_heads: 2, n_layers: 1, d_ff: 32}
data: {train: $SCRATCH/bio.conll, dev: $SCRATCH/bio.conll, batch_tokens: 300}
train: {max_steps: 2, word_dropout: 0}
log: {every_steps: 1, progress: off, plot: false}
EOC
MSG='stray.conll:22: tag "S-location" ends a chunk as only BIOES ends one (E- or S-), but 119 chunks of this file end with B- or I- (BIO, IOB1)'
MSG2='stray2.conll:10: tag "B-location" ends a chunk with B- or I- (BIO, IOB1), which BIOES forbids, but 119 chunks of this file end as only BIOES ends one'
for scheme in none bio bioes; do
    expect_error "$MSG" "$QKV_BIN" train "$SCRATCH/ner.yaml" --set data.train="$SCRATCH/stray.conll" \
        --set data.tag_scheme=$scheme --out "$SCRATCH/bad-$scheme"
    expect_error "$MSG" "$QKV_BIN" train "$SCRATCH/ner.yaml" --set data.dev="$SCRATCH/stray.conll" \
        --set data.tag_scheme=$scheme --out "$SCRATCH/bad-dev-$scheme"
done
expect_error "$MSG2" "$QKV_BIN" train "$SCRATCH/ner.yaml" --set data.train="$SCRATCH/stray2.conll" --out "$SCRATCH/bad2"
"$QKV_BIN" train "$SCRATCH/ner.yaml" --out "$SCRATCH/run" >/dev/null 2>"$SCRATCH/train.log" ||
    { cat "$SCRATCH/train.log"; fail "qkv train"; }
CK=$SCRATCH/run/checkpoints/last.h5
expect_error "$MSG" "$QKV_BIN" eval "$CK" "$SCRATCH/stray.conll"
expect_error "$MSG" "$QKV_BIN" tag "$CK" "$SCRATCH/stray.conll"
expect_error "$MSG2" "$QKV_BIN" tag "$CK" "$SCRATCH/stray2.conll"
"$QKV_BIN" tag "$CK" "$SCRATCH/stray.conll" --scheme bio >"$SCRATCH/out.conll" || fail "qkv tag --scheme bio"
cut -f2 "$SCRATCH/out.conll" | grep -q '^[ES]-' && fail "qkv tag --scheme bio wrote E- or S- tags"
# clean files keep their own scheme
"$QKV_BIN" tag "$CK" "$SCRATCH/bio.conll" | cut -f2 | grep -q '^[ES]-' && fail "a BIO file tagged in BIOES"
"$QKV_BIN" tag "$CK" "$SCRATCH/bioes.conll" | cut -f2 | grep -q '^S-' || fail "a BIOES file not tagged in BIOES"
echo ok
