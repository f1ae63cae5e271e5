#!/bin/bash
# qkv plot and the loss plot of qkv train: PNG/SVG of the asked size from a tiny run, the
# gnuplot script beside the image, several runs, clear errors for empty/missing metrics and
# for a missing gnuplot (the script still written), log.plot: false.
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
      --set model.n_heads=2 --set data.batch_tokens=300 --set log.every_steps=2 --set log.progress=off)

# A run of 2 short epochs: plots/loss.png written by the trainer, path printed at the end.
out=$("$QKV_BIN" train tests/train/synthetic.yaml "${TINY[@]}" --set train.epochs=2 --out "$D/a" 2>"$D/a.err") ||
    { cat "$D/a.err"; fail "train exited $?"; }
[ "$(tail -n 1 <<<"$out")" = "loss plot: $D/a/plots/loss.png" ] || { echo "$out"; fail "train does not end with the plot path"; }
[ "$(png_size "$D/a/plots/loss.png")" = 960x720 ] || fail "trainer loss.png: $(png_size "$D/a/plots/loss.png")"
[ -s "$D/a/plots/loss.gp" ] || fail "no loss.gp beside loss.png"
grep -q "warning" "$D/a.err" && { cat "$D/a.err"; fail "warnings while plotting"; }
grep -q "Warning" "$D/a.err" && { cat "$D/a.err"; fail "gnuplot warnings while plotting"; }
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
grep -qF '"a: train (smoothed)"' "$D/cmp/both.gp" && grep -qF '"b: dev accuracy"' "$D/cmp/both.gp" ||
    { cat "$D/cmp/both.gp"; fail "legend lacks the run names"; }
[ "$(stat -c %s "$D/cmp/both.png")" -gt 5000 ] || fail "two runs: a suspiciously small PNG"
"$QKV_BIN" plot "$D/a/metrics.tsv" --out "$D/a.svg" >/dev/null || fail "plot svg exited $?"
grep -q 'viewBox="0 0 960 720"' "$D/a.svg" || fail "svg size"

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
