#!/bin/bash
# qkv attention: heatmaps of a tiny model for a one-word sentence, all heads in a grid, one
# head, windowed and causal attention (masked cells: -1 in the script's data, grey, said in the
# title), an image sized to the sentence (and --size), errors.
set -u
fail() { echo "FAIL: $*"; exit 1; }
png_size() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "not-a-png"; return; }
    echo "$(od -An -tu4 --endian=big -j16 -N4 "$1" | tr -d ' ')x$(od -An -tu4 --endian=big -j20 -N4 "$1" | tr -d ' ')"
}
command -v gnuplot >/dev/null || fail "gnuplot is not installed (apt-get install gnuplot-nox)"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
TINY=(--set data.synthetic_train=100 --set data.synthetic_dev=20 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=4 --set model.n_layers=2 --set data.batch_tokens=300 --set train.max_steps=3
      --set log.progress=off --set log.plot=false)
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --out "$D/run" >/dev/null 2>"$D/err" || { cat "$D/err"; fail "train"; }
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set model.attn_window=1 --out "$D/win" >/dev/null 2>"$D/err" ||
    { cat "$D/err"; fail "train windowed"; }
CK=$D/run/checkpoints/last.h5

# One word, all heads (default) of the last layer (default).
out=$("$QKV_BIN" attention "$CK" --sentence "dog" --out "$D/one.png" 2>"$D/err") || fail "one-word sentence exited $?"
[ -s "$D/err" ] && { cat "$D/err"; fail "messages on stderr"; }
[ "$out" = "$D/one.png" ] || fail "printed '$out'"
size=$(png_size "$D/one.png")
[ "$size" != not-a-png ] && [ "${size%x*}" -gt 100 ] || fail "one word: $size"
grep -q "layer 1, all 4 heads" "$D/one.gp" || fail "default is not all heads of the last layer"
# A one-word sentence attends to itself only: P = 1 in every head.
[ "$(sed -n '/^\$head[0-9] << EOD$/{n;p}' "$D/one.gp" | sort -u)" = "1.000000" ] || { cat "$D/one.gp"; fail "P of one word is not 1"; }

# Six words, one head; rows of P sum to 1 (softmax); labels quoted (a word with a quote).
"$QKV_BIN" attention "$CK" --sentence "The old man the boats '" --layer 0 --head 2 --out "$D/h2.svg" >/dev/null ||
    fail "one head exited $?"
grep -q "<svg" "$D/h2.svg" || fail "no svg"
grep -q "set title 'layer 0, head 2'" "$D/h2.gp" || fail "title"
grep -qF '("The" 0, "old" 1, "man" 2, "the" 3, "boats" 4, "'"'"'" 5)' "$D/h2.gp" || { cat "$D/h2.gp"; fail "word labels"; }
sums=$(sed -n '/^\$head2 << EOD$/,/^EOD$/p' "$D/h2.gp" | awk 'NF == 6 { s = 0; for (i = 1; i <= 6; i++) s += $i; printf "%.3f\n", s }' | sort -u)
[ "$sums" = "1.000" ] || fail "rows of P do not sum to 1: $sums"

# Windowed attention (window 1): cells beyond |i - j| > 1 masked (-1, not a weight of 0), drawn
# grey and named in the title; all heads drawn in a 2x2 grid.
"$QKV_BIN" attention "$D/win/checkpoints/last.h5" --sentence "the dog sees a cat ." --out "$D/win.png" >/dev/null ||
    fail "windowed exited $?"
rows=$(sed -n '/^\$head0 << EOD$/,/^EOD$/p' "$D/win.gp" | awk 'NF == 6')
[ "$(wc -l <<<"$rows")" = 6 ] || fail "expected 6 rows"
bad=$(awk '{ for (j = 1; j <= 6; j++) if ((j - NR > 1 || NR - j > 1) != ($j == "-1")) print NR, j, $j }' <<<"$rows")
[ -z "$bad" ] || fail "masked cells are not exactly those outside the window: $bad"
grep -qF "(grey: masked, the query does not see the key)" "$D/win.gp" || fail "the title does not explain the grey cells"
grep -qF "(\$3 < 0 ? \$2 : NaN)" "$D/win.gp" && grep -q "lc rgb masked_colour" "$D/win.gp" || fail "masked cells not drawn in their colour"
grep -q "grey: masked" "$D/one.gp" && fail "a note on masked cells where none is masked"
[ "$(grep -c '^set title .layer 1, head [0-3].$' "$D/win.gp")" = 4 ] || fail "not 4 panels"
[ "$(grep '^set lmargin at screen' "$D/win.gp" | sort -u | wc -l)" = 2 ] &&
    [ "$(grep '^set tmargin at screen' "$D/win.gp" | sort -u | wc -l)" = 2 ] || fail "4 heads not in a 2x2 grid"
# Causal attention: later words masked.
"$QKV_BIN" train configs/quickstart.yaml "${TINY[@]}" --set model.attn_causal=true --out "$D/causal" >/dev/null 2>"$D/err" ||
    { cat "$D/err"; fail "train causal"; }
"$QKV_BIN" attention "$D/causal/checkpoints/last.h5" --sentence "the dog sees a cat" --head 0 --out "$D/causal.png" \
    >/dev/null || fail "causal exited $?"
bad=$(sed -n '/^\$head0 << EOD$/,/^EOD$/p' "$D/causal.gp" | awk 'NF == 5' |
      awk '{ for (j = 1; j <= 5; j++) if ((j > NR) != ($j == "-1")) print NR, j, $j }')
[ -z "$bad" ] || fail "causal: masked cells are not exactly the later words: $bad"

# The image grows with the sentence: a cell and a label per word, up to 60 words and more.
long=$(printf 'word%s ' $(seq 60))
"$QKV_BIN" attention "$CK" --sentence "$long" --head 0 --out "$D/long.png" >/dev/null || fail "60 words exited $?"

"$QKV_BIN" attention "$CK" --sentence "The old man the boats '" --head 0 --out "$D/six.png" >/dev/null || fail "six words"
w6=$(png_size "$D/six.png"); w60=$(png_size "$D/long.png")
[ "${w60%x*}" -ge $((60 * 14 + 200)) ] && [ "${w60#*x}" -ge $((60 * 14 + 100)) ] || fail "60 words in $w60 (6 words: $w6)"
[ "${w6%x*}" -le 900 ] && [ "${w6%x*}" -ge 300 ] || fail "6 words in $w6"
# Cells of at least 14 pixels (one 10-point label each), the query labels' margin wide enough.
awk -v W="${w60%x*}" '/^set lmargin at screen/ { l = $5 } /^set rmargin at screen/ { r = $5 }
     END { cell = (r - l) * W / 60; printf "60 words: cells of %.1f pixels, left margin %.0f\n", cell, l * W
           exit !(cell >= 14 && l * W >= 7 * length("word60 PROPN")) }' "$D/long.gp" || fail "60 words do not fit"
"$QKV_BIN" attention "$CK" --sentence "$long" --size 1400x1300 --out "$D/sized.png" >/dev/null || fail "--size exited $?"
[ "$(png_size "$D/sized.png")" = 1400x1300 ] || fail "--size 1400x1300 gave $(png_size "$D/sized.png")"

# Errors.
expect_error() {
    local want=$1; shift
    local err
    err=$("$QKV_BIN" attention "$@" 2>&1 >/dev/null) && fail "attention $* succeeded"
    grep -qF -- "$want" <<<"$err" || { echo "$err"; fail "attention $*: no '$want'"; }
}
expect_error "--layer 2: the model has layers 0..1" "$CK" --sentence "a dog" --layer 2 --out "$D/x.png"
expect_error "--head 4: the model has heads 0..3" "$CK" --sentence "a dog" --head 4 --out "$D/x.png"
expect_error "--head is a head number from 0 or 'all'" "$CK" --sentence "a dog" --head two
expect_error "--sentence has no words" "$CK" --sentence "   " --out "$D/x.png"
expect_error "missing --sentence" "$CK"
expect_error "the image name must end in .png or .svg" "$CK" --sentence "a dog" --out "$D/x.pdf"
expect_error "--size is WIDTHxHEIGHT" "$CK" --sentence "a dog" --size 12
expect_error "$D/none.h5" "$D/none.h5" --sentence "a dog" --out "$D/x.png"
echo "ok"
