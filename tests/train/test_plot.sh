#!/bin/bash
# qkv plot and the loss plot of qkv train: PNG/SVG of the asked size from a tiny run, the
# gnuplot script beside the image, several runs, clear errors for empty/missing metrics and
# for a missing gnuplot (the script still written), log.plot: false. The run's attention
# picture: the first dev sentence, every head of the last layer; none with log.plot_attention:
# false.
set -u
fail() { echo "FAIL: $*"; exit 1; }
# png_size FILE -> "WIDTHxHEIGHT" from the IHDR chunk (bytes 16..23, big-endian)
png_size() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "not-a-png"; return; }
    local w h
    w=$(od -An -tu4 --endian=big -j16 -N4 "$1" | tr -d ' ')
    h=$(od -An -tu4 --endian=big -j20 -N4 "$1" | tr -d ' ')
    echo "${w}x${h}"
}
command -v gnuplot >/dev/null || fail "gnuplot is not installed (apt-get install gnuplot-nox)"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
TINY=(--set data.synthetic_train=200 --set data.synthetic_dev=40 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=2 --set data.batch_tokens=300 --set log.every_steps=2 --set log.progress=off
      --set optim.warmup_steps=2)

# A run of 2 short epochs: plots/loss.png written by the trainer, path printed at the end.
out=$("$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.epochs=2 --out "$D/a" 2>"$D/a.err") ||
    { cat "$D/a.err"; fail "train exited $?"; }
[ "$(tail -n 1 <<<"$out")" = "loss plot: $D/a/plots/loss.png" ] || { echo "$out"; fail "train does not end with the plot path"; }
[ "$(png_size "$D/a/plots/loss.png")" = 960x720 ] || fail "trainer loss.png: $(png_size "$D/a/plots/loss.png")"
[ -s "$D/a/plots/loss.gp" ] || fail "no loss.gp beside loss.png"
grep -q "warning" "$D/a.err" && { cat "$D/a.err"; fail "warnings while plotting"; }
grep -q "Warning" "$D/a.err" && { cat "$D/a.err"; fail "gnuplot warnings while plotting"; }
# The attention picture beside it: the last layer's two heads on the first dev sentence.
[ "$(png_size "$D/a/plots/attention.png")" != not-a-png ] || fail "no plots/attention.png"
grep -q "layer 1, head 0" "$D/a/plots/attention.gp" && grep -q "layer 1, head 1" "$D/a/plots/attention.gp" ||
    { head -30 "$D/a/plots/attention.gp"; fail "attention.gp: not the two heads of layer 1"; }
# The script is rerunnable as it stands, from another folder.
rm "$D/a/plots/loss.png"
(cd / && gnuplot "$D/a/plots/loss.gp") || fail "gnuplot loss.gp failed"
[ "$(png_size "$D/a/plots/loss.png")" = 960x720 ] || fail "rerun loss.gp"

# A second run (max_steps: a partial epoch) and log.plot: false.
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.max_steps=5 --set log.plot=false --out "$D/b" \
    >/dev/null 2>"$D/b.err" || { cat "$D/b.err"; fail "train b exited $?"; }
[ -e "$D/b/plots" ] && fail "log.plot: false still made plots/"

# qkv plot: one run, default place, --size; two runs overlaid; SVG.
out=$("$QKV_BIN" plot "$D/b" --size 640x480) || fail "plot b exited $?"
[ "$out" = "$D/b/plots/loss.png" ] || fail "plot printed '$out'"
[ "$(png_size "$D/b/plots/loss.png")" = 640x480 ] || fail "plot --size 640x480: $(png_size "$D/b/plots/loss.png")"
"$QKV_BIN" plot "$D/a" "$D/b/" --out "$D/cmp/both.png" >/dev/null || fail "plot of two runs exited $?"
[ "$(png_size "$D/cmp/both.png")" = 960x720 ] || fail "two runs: $(png_size "$D/cmp/both.png")"
grep -qF '"a: train (smoothed)"' "$D/cmp/both.gp" && grep -qF '"b: dev UPOS accuracy"' "$D/cmp/both.gp" ||
    { cat "$D/cmp/both.gp"; fail "legend lacks the run names"; }
[ "$(stat -c %s "$D/cmp/both.png")" -gt 5000 ] || fail "two runs: a suspiciously small PNG"
"$QKV_BIN" plot "$D/a/metrics.tsv" --out "$D/a.svg" >/dev/null || fail "plot svg exited $?"
grep -q 'viewBox="0 0 960 720"' "$D/a.svg" || fail "svg size"

# Smoothing without lag: a loss that falls fast in 12 logged rows (2.5 -> 0.18) is drawn where it
# is (an exponential average showed 0.76 where the loss was 0.4, and 0.20 at the end), and a noisy
# run of 200 rows is smoothed without a bias on its falling part; each run of an overlay gets its
# own window (about a tenth of its rows), and the raw line has a legend entry.
mkdir -p "$D/fast" "$D/long"
{ printf 'step\tepoch\tsplit\tloss\taccuracy\tlr\ttokens_per_sec\telapsed_s\n'
  s=0; for l in 2.5 1.6 1.0 0.62 0.4 0.3 0.24 0.21 0.19 0.185 0.18 0.18; do
      s=$((s + 10)); printf '%d\t1\ttrain\t%s\tnan\t0.001\t1000\t1\n' $s $l; done; } >"$D/fast/metrics.tsv"
awk 'BEGIN { srand(7); print "step\tepoch\tsplit\tloss\taccuracy\tlr\ttokens_per_sec\telapsed_s"
             for (i = 1; i <= 200; i++) { s = 5 * i; u = 0; for (k = 0; k < 12; k++) u += rand()
                 printf "%d\t1\ttrain\t%.6f\tnan\t0.001\t1000\t1\n", s, (2 * exp(-s / 150) + 0.2) * (1 + 0.1 * (u - 6)) } }' \
    >"$D/long/metrics.tsv"
"$QKV_BIN" plot "$D/fast" "$D/long" --out "$D/smooth.png" >/dev/null || fail "plot of fast and long exited $?"
block() { sed -n "/^\\\$smooth$1 << EOD\$/,/^EOD\$/p" "$D/smooth.gp" | awk -F'\t' 'NF == 2'; }
[ "$(block 0 | wc -l)" = 12 ] && [ "$(block 1 | wc -l)" = 200 ] || { cat "$D/smooth.gp"; fail "no smoothed rows in the script"; }
paste <(block 0) <(awk -F'\t' 'NR > 1 {print $4}' "$D/fast/metrics.tsv") |
    awk '{ d = $2 - $3; if (d > 0.1 || d < -0.1) { print "row " NR ": smoothed " $2 ", loss " $3; bad = 1 } }
         END { d = $2 - 0.18; if (d > 0.01 || d < -0.01) { print "last: smoothed " $2 ", loss 0.18"; bad = 1 }; exit bad }' ||
    fail "the smoothed line lags behind a fast-falling loss"
paste <(block 1) <(awk -F'\t' 'NR > 1 {print $4}' "$D/long/metrics.tsv") |
    awk '{ t = 2 * exp(-$1 / 150) + 0.2; es = $2 - t; er = $3 - t; ss += es * es; sr += er * er; if (NR <= 50) b += es }
         END { printf "noisy run: rms error smoothed %.4f, raw %.4f; mean error of the first 50 rows %.4f\n", sqrt(ss / NR), sqrt(sr / NR), b / 50
               exit !(ss < 0.25 * sr && b / 50 < 0.03 && b / 50 > -0.03) }' || fail "the smoothing of a noisy run is biased or does not smooth"
grep -qF "line through the 3 rows around it" "$D/smooth.gp" && grep -qF "line through the 21 rows around it" "$D/smooth.gp" ||
    fail "the runs of an overlay are not smoothed each over its own window"
grep -qF '"fast: train (raw)"' "$D/smooth.gp" || fail "the raw line has no legend entry"

# Epoch marks: a dotted line at the last step logged in each epoch but the last (rows of epochs
# 1..3 up to steps 30, 55 and 70, a dev row at each end), in the script and labelled; none for a
# run of one epoch. The loss axis on a log scale with --log-loss, and with log.plot_log_loss for
# qkv train's own plot; linear (with a note) when a loss is not positive.
mkdir -p "$D/epochs" "$D/zero"
{ printf 'step\tepoch\tsplit\tloss\taccuracy\tlr\ttokens_per_sec\telapsed_s\n'
  for row in 10:1 20:1 30:1 40:2 50:2 55:2 60:3 70:3; do
      printf '%d\t%d\ttrain\t%s\tnan\t0.001\t1000\t1\n' "${row%:*}" "${row#*:}" "0.$((90 - ${row%:*}))"
  done
  for row in 30:1 55:2 70:3; do printf '%d\t%d\tdev\t0.5\t0.8\t0.001\t1000\t1\n' "${row%:*}" "${row#*:}"; done; } \
    >"$D/epochs/metrics.tsv"
"$QKV_BIN" plot "$D/epochs" --out "$D/epochs.png" 2>"$D/epochs.err" >/dev/null || { cat "$D/epochs.err"; fail "plot epochs"; }
[ -s "$D/epochs.err" ] && { cat "$D/epochs.err"; fail "gnuplot warnings with epoch marks"; }
[ "$(grep -c '^set arrow from' "$D/epochs.gp")" = 2 ] && grep -q '^set arrow from 30, graph 0 to 30, graph 1 nohead' "$D/epochs.gp" &&
    grep -q '^set arrow from 55, graph 0 to 55, graph 1 nohead' "$D/epochs.gp" && grep -q "^set label 'epoch 2' at 55," "$D/epochs.gp" ||
    { cat "$D/epochs.gp"; fail "epoch marks: expected lines at steps 30 and 55"; }
grep -q "^set label 'epoch 3' at 70," "$D/epochs.gp" || { cat "$D/epochs.gp"; fail "the last epoch is not labelled"; }
grep -q "^set logscale y" "$D/epochs.gp" && fail "a log scale without --log-loss"
# 25 epochs: labels thinned to every 5th (5, 10, ..., 25), a line at every epoch end but the last.
mkdir -p "$D/e25"
{ printf 'step\tepoch\tsplit\tloss\taccuracy\tlr\ttokens_per_sec\telapsed_s\n'
  for e in $(seq 1 25); do printf '%d\t%d\ttrain\t0.5\tnan\t0.001\t1000\t1\n' $((10 * e)) $e; done; } >"$D/e25/metrics.tsv"
"$QKV_BIN" plot "$D/e25" --out "$D/e25.png" >/dev/null 2>"$D/e25.err" || { cat "$D/e25.err"; fail "plot of 25 epochs"; }
[ "$(grep "^set label 'epoch" "$D/e25.gp" | sed "s/' at .*//; s/.*epoch //" | tr '\n' ' ')" = "5 10 15 20 25 " ] ||
    { grep "^set label" "$D/e25.gp"; fail "25 epochs: not labelled at 5, 10, 15, 20, 25"; }
[ "$(grep -c '^set arrow from' "$D/e25.gp")" = 24 ] || fail "25 epochs: not 24 epoch lines"
# A wider figure has room for every label.
"$QKV_BIN" plot "$D/e25" --out "$D/e25w.png" --size 2400x720 >/dev/null 2>&1 || fail "plot --size 2400x720"
[ "$(grep -c "^set label 'epoch" "$D/e25w.gp")" = 25 ] || fail "2400 pixels wide: not every epoch labelled"
# Every dev score under its own name: a parser's LAS and UAS, no "accuracy"; columns without a
# value (an older file's span columns, all nan) not drawn.
mkdir -p "$D/parse"
{ printf 'step\tepoch\tsplit\tloss\tlas\tlr\ttokens_per_sec\telapsed_s\tuas\tspan_f1\n'
  printf '10\t1\ttrain\t2\tnan\t0.001\t1000\t1\tnan\tnan\n20\t1\tdev\t1.5\t0.5\t0.001\t1000\t1\t0.6\tnan\n'
  printf '30\t2\tdev\t1.2\t0.55\t0.001\t1000\t1\t0.7\tnan\n'; } >"$D/parse/metrics.tsv"
"$QKV_BIN" plot "$D/parse" --out "$D/parse.png" >/dev/null 2>"$D/parse.err" || { cat "$D/parse.err"; fail "plot parse"; }
grep -q "using 1:(split('dev') ? 100 \* \$5 : NaN).*title \"dev LAS\"" "$D/parse.gp" &&
    grep -q "using 1:(split('dev') ? 100 \* \$9 : NaN).*title \"dev UAS\"" "$D/parse.gp" ||
    { cat "$D/parse.gp"; fail "parser: no LAS (column 5) and UAS (column 9) lines"; }
grep -qi "accuracy\|span" "$D/parse.gp" && fail "parser: a line named accuracy or span F1"
grep -qF 'set ylabel "dev scores (%)"' "$D/parse.gp" || fail "parser: the panel is not 'dev scores'"
grep -qF 'set ylabel "dev accuracy (%)"' "$D/epochs.gp" || fail "one score: the panel is not named for it"
[ -s "$D/smooth.gp" ] || fail "no smooth.gp"
! grep -q "^set arrow" "$D/smooth.gp" || fail "epoch marks in a run of one epoch"
"$QKV_BIN" plot "$D/epochs" --out "$D/log.png" --log-loss 2>"$D/log.err" >/dev/null || { cat "$D/log.err"; fail "plot --log-loss"; }
[ -s "$D/log.err" ] && { cat "$D/log.err"; fail "gnuplot warnings with --log-loss"; }
grep -q "^set logscale y" "$D/log.gp" || fail "--log-loss: no log scale"
awk 'NR == 1 || NR > 3 {print; next} {$4 = 0; print}' OFS='\t' "$D/epochs/metrics.tsv" >"$D/zero/metrics.tsv"
"$QKV_BIN" plot "$D/zero" --out "$D/zero.png" --log-loss >/dev/null 2>"$D/zero.err" || { cat "$D/zero.err"; fail "plot of a 0 loss"; }
grep -q "^set logscale y" "$D/zero.gp" && fail "a log scale with a loss of 0"
grep -q "a loss is not positive: linear" "$D/zero.gp" || fail "no note about the linear scale"
"$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.epochs=2 --set log.plot_log_loss=true \
    --set log.plot_attention=false --out "$D/logrun" >/dev/null 2>"$D/logrun.err" ||
    { cat "$D/logrun.err"; fail "train with log.plot_log_loss"; }
[ -e "$D/logrun/plots/attention.png" ] && fail "an attention picture with log.plot_attention: false"
grep -q "^set logscale y" "$D/logrun/plots/loss.gp" && grep -q "^set arrow from" "$D/logrun/plots/loss.gp" ||
    fail "log.plot_log_loss: no log scale or no epoch mark in the run's plot"

# Errors: missing, empty, header only, not metrics, bad extension, bad size.
expect_error() { # message-substring, args...
    local want=$1; shift
    local err
    err=$("$QKV_BIN" plot "$@" 2>&1 >/dev/null) && fail "plot $* succeeded"
    grep -qF -- "$want" <<<"$err" || { echo "$err"; fail "plot $*: no '$want'"; }
}
expect_error "$D/none/metrics.tsv: cannot read the run's metrics: No such file or directory" "$D/none"
[ -e "$D/none" ] && fail "a failed plot created the run folder"
: >"$D/empty.tsv"
expect_error "$D/empty.tsv: empty metrics file" "$D/empty.tsv"
head -n 1 "$D/a/metrics.tsv" >"$D/header.tsv"
expect_error "$D/header.tsv: no rows yet" "$D/header.tsv"
echo "hello" >"$D/other.tsv"
expect_error "$D/other.tsv:1: not a qkv metrics file" "$D/other.tsv"
expect_error "the image name must end in .png or .svg" "$D/a" --out "$D/a.jpg"
expect_error "--size is WIDTHxHEIGHT" "$D/a" --size 10
expect_error "missing RUN_DIR" --out x.png

# Without gnuplot: the error names the package, the script is written.
err=$(PATH=/nonexistent "$QKV_BIN" plot "$D/a" --out "$D/nognu.png" 2>&1 >/dev/null) && fail "plot without gnuplot succeeded"
grep -qF "gnuplot-nox" <<<"$err" || { echo "$err"; fail "no package name"; }
[ -s "$D/nognu.gp" ] || fail "no script without gnuplot"
[ -e "$D/nognu.png" ] && fail "an image without gnuplot?"
# ... and training still succeeds, with one warning.
PATH=/nonexistent "$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.max_steps=3 --out "$D/c" \
    >/dev/null 2>"$D/c.err" || { cat "$D/c.err"; fail "train without gnuplot failed"; }
[ "$(grep -c 'warning: no loss plot' "$D/c.err")" = 1 ] || { cat "$D/c.err"; fail "expected one plot warning"; }
echo "ok"
