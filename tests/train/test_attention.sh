#!/bin/bash
# qkv attention: heatmaps of a tiny model for a one-word sentence, all heads in a grid, one
# head, windowed attention (zeros outside the window in the script's data), errors.
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

# Windowed attention (window 1): zeros beyond |i - j| > 1, all heads drawn in a 2x2 grid.
"$QKV_BIN" attention "$D/win/checkpoints/last.h5" --sentence "the dog sees a cat ." --out "$D/win.png" >/dev/null ||
    fail "windowed exited $?"
rows=$(sed -n '/^\$head0 << EOD$/,/^EOD$/p' "$D/win.gp" | awk 'NF == 6')
[ "$(wc -l <<<"$rows")" = 6 ] || fail "expected 6 rows"
bad=$(awk '{ for (j = 1; j <= 6; j++) if ((j - NR > 1 || NR - j > 1) && $j != "0.000000") print NR, j, $j }' <<<"$rows")
[ -z "$bad" ] || fail "weights outside the window: $bad"
inside=$(awk '{ for (j = 1; j <= 6; j++) if (j - NR <= 1 && NR - j <= 1 && $j == "0.000000") print NR, j }' <<<"$rows")
[ -z "$inside" ] || fail "zero weights inside the window: $inside"
grep -q "set multiplot layout 2,2" "$D/win.gp" || fail "4 heads not in a 2x2 grid"

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
expect_error "$D/none.h5" "$D/none.h5" --sentence "a dog" --out "$D/x.png"
echo "ok"
