#!/bin/bash
# qkv positions: for a model of every positional kind (and relative biases alone) a PNG of one
# heatmap per panel and the gnuplot script beside it, with the matrices for positions beyond the
# training length (--max-len); clear errors, and no image, for a model without positions and
# for a file that is not a checkpoint.
. "$(dirname "$0")/common.sh"
command -v gnuplot >/dev/null || fail "gnuplot is not installed (apt-get install gnuplot-nox)"
TINY=(--set data.synthetic_train=100 --set data.synthetic_dev=20 --set model.d_model=16 --set model.d_ff=32
      --set model.n_heads=2 --set model.n_layers=1 --set data.batch_tokens=300 --set train.max_steps=2
      --set data.max_train_len=12)
# kind, then the number of panels the picture must have
for spec in sinusoidal:2 learned:2 rope:2 alibi:2 floater:2 none_rel:1 rope_rel:3; do
    kind=${spec%%:*} panels=${spec##*:}
    sets=(--set model.positional="${kind%_rel}")
    [[ $kind == *_rel ]] && sets+=(--set model.attn_rel_clip=3)
    [ "$kind" = learned ] && sets+=(--set model.max_len=20 --set model.pos_overflow=clamp)
    quick_run "$SCRATCH/$kind" "${TINY[@]}" "${sets[@]}"
    out=$("$QKV_BIN" positions "$SCRATCH/$kind/checkpoints/last.h5" --out "$SCRATCH/$kind.png" --max-len 30) ||
        fail "qkv positions ($kind) exited $?"
    [ "$out" = "$SCRATCH/$kind.png" ] || fail "qkv positions ($kind) printed '$out'"
    [ "$(head -c 8 "$SCRATCH/$kind.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "$kind.png is not a PNG"
    [ "$(grep -c '^\$panel[0-9]* << EOD' "$SCRATCH/$kind.gp")" = "$panels" ] || fail "$kind.gp: not $panels panels"
    # 30 positions, past the training length of 12: 30 rows in every panel
    rows=$(awk '/^\$panel0 << EOD/{on=1; next} /^EOD/{if (on) {print n; exit}} on{n++}' "$SCRATCH/$kind.gp")
    [ "$rows" = 30 ] || fail "$kind.gp: panel 0 has $rows rows, expected 30"
    grep -q "^train_len = 12" "$SCRATCH/$kind.gp" || fail "$kind.gp does not mark the training length"
done
# sinusoidal: the cosine of a position with itself is 1 (panel 1's diagonal)
awk '/^\$panel1 << EOD/{on=1; next} /^EOD/{on=0} on{ if ($(++i) != 1) bad=1 } END{exit bad}' "$SCRATCH/sinusoidal.gp" ||
    fail "sinusoidal: the cosine similarity's diagonal is not 1"
quick_run "$SCRATCH/plain" "${TINY[@]}" --set model.positional=none
expect_error "the model has no positional encoding" "$QKV_BIN" positions "$SCRATCH/plain/checkpoints/last.h5" \
    --out "$SCRATCH/plain.png"
[ -e "$SCRATCH/plain.png" ] && fail "an image was written for a model without positions"
echo "not a checkpoint" >"$SCRATCH/bad.h5"
expect_error "bad.h5" "$QKV_BIN" positions "$SCRATCH/bad.h5" --out "$SCRATCH/bad.png"
[ -e "$SCRATCH/bad.png" ] || [ -e "$SCRATCH/bad.gp" ] && fail "files written for a bad checkpoint"
expect_error "--max-len" "$QKV_BIN" positions "$SCRATCH/rope/checkpoints/last.h5" --out "$SCRATCH/x.png" --max-len 0
echo "qkv positions: pictures of every kind, errors for a model without positions and a bad checkpoint"
