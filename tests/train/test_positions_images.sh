#!/bin/bash
# qkv positions on real image checkpoints (configs/images_quick.yaml, patches of 4 x 4 on a
# 7 x 7 grid with [CLS], a few steps) for every 2-D kind: a PNG and its script; sinusoidal2d and
# learned2d their own two panels (PE of the 50 tokens, and its cosines); rel2d and quadratic2d
# layer 0's score bias of the centre query over the grid, the 4 heads side by side (7 rows of
# 4 x 7 columns, a tic and a separator per head) and their mean (7 x 7, the mean of the heads'
# blocks); rope2d its 7 x 7 map, 1 at the centre query itself. A 2-D kind's picture of a model
# with more layers is layer 0's too.
. "$(dirname "$0")/common.sh"
command -v gnuplot >/dev/null || fail "gnuplot is not installed (apt-get install gnuplot-nox)"
SHORT=(--set train.max_steps=2 --set train.threads=1 --set log.progress=off --set model.n_layers=1
       --set model.d_model=32 --set model.d_ff=32)
panel() { # panel FILE.gp K: the rows of datablock $panelK
    awk -v k="$2" '$0 == "$panel" k " << EOD" {on=1; next} /^EOD/{on=0} on' "$1"
}
for kind in sinusoidal2d learned2d rel2d quadratic2d rope2d; do
    "$QKV_BIN" train configs/images_quick.yaml "${SHORT[@]}" --set model.positional=$kind --out "$SCRATCH/$kind" \
        >"$SCRATCH/$kind.log" 2>&1 || { cat "$SCRATCH/$kind.log" >&2; fail "qkv train ($kind)"; }
    gp=$SCRATCH/$kind.gp
    out=$("$QKV_BIN" positions "$SCRATCH/$kind/checkpoints/last.h5" --out "$SCRATCH/$kind.png") ||
        fail "qkv positions ($kind) exited $?"
    [ "$out" = "$SCRATCH/$kind.png" ] || fail "qkv positions ($kind) printed '$out'"
    [ "$(head -c 8 "$SCRATCH/$kind.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "$kind.png is not a PNG"
    [ "$(grep -c '^\$panel[0-9]* << EOD' "$gp")" = 2 ] || fail "$kind.gp: not 2 panels"
    case $kind in
    sinusoidal2d | learned2d) # its own pictures: PE of the 50 tokens (32 dimensions), their cosines
        grep -qF "set title \"$kind: PE(position)\"" "$gp" && grep -qF "set title \"$kind: cosine of PE(i)" "$gp" ||
            fail "$kind: not the pictures of its PE"
        [ "$(panel "$gp" 0 | wc -l)" = 50 ] && [ "$(panel "$gp" 0 | awk '{print NF}' | sort -u)" = 32 ] ||
            fail "$kind: panel 0 is not 50 tokens x 32 dimensions"
        [ "$(panel "$gp" 1 | wc -l)" = 50 ] && [ "$(panel "$gp" 1 | awk '{print NF}' | sort -u)" = 50 ] ||
            fail "$kind: panel 1 is not 50 x 50"
        ;;
    rel2d | quadratic2d)
        [ "$(panel "$gp" 0 | wc -l)" = 7 ] && [ "$(panel "$gp" 0 | awk '{print NF}' | sort -u)" = 28 ] ||
            fail "$kind: panel 0 is not 7 rows of 4 heads x 7 columns"
        [ "$(panel "$gp" 1 | wc -l)" = 7 ] && [ "$(panel "$gp" 1 | awk '{print NF}' | sort -u)" = 7 ] ||
            fail "$kind: panel 1 is not 7 x 7"
        grep -qF 'set xtics ("head 0" 3, "head 1" 10, "head 2" 17, "head 3" 24)' "$gp" ||
            fail "$kind: no tic per head"
        [ "$(grep -c '^set arrow from first [0-9.]*, graph 0 to first' "$gp")" = 3 ] ||
            fail "$kind: not 3 separators between the 4 heads"
        # panel 1 is the mean of panel 0's 4 blocks
        paste -d' ' <(panel "$gp" 0) <(panel "$gp" 1) | awk '{
            for (c = 1; c <= 7; c++) { m = ($c + $(c + 7) + $(c + 14) + $(c + 21)) / 4; d = m - $(28 + c)
                if (d > 1e-4 || d < -1e-4) bad = 1 } } END {exit bad}' || fail "$kind: panel 1 is not the heads' mean"
        ;;
    rope2d)
        [ "$(panel "$gp" 1 | sed -n 4p | awk '{print $4}')" = 1 ] || fail "rope2d: not 1 at the centre query"
        [ "$(panel "$gp" 1 | awk '{print NF}' | sort -u)" = 7 ] || fail "rope2d: not 7 columns"
        ;;
    esac
done
echo "qkv positions on image checkpoints: every 2-D kind"
