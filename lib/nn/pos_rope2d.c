/* Positional kind rope2d: the axial 2-D rotation of q and k in every attention layer, half the
 * pairs by the row and half by the column of each grid token (lib/ops/rope.h,
 * qkv_rope_rotate_2d), base model.rope_base; PE = 0. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

#include <math.h>
#include <stdio.h>

#include "lib/ops/rope.h"

static void rope2d_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    opts->rope_base = pos->rope_base;
    opts->rope_2d = true;
}

/* `qkv positions`: the factor the rotation puts on q·k of equal content, query at the grid's
 * centre (qr, qc), key at (r, c): the mean over the d_head / 2 pairs of cos(θ(key) − θ(query)),
 * half the pairs turned by the row offset and half by the column offset at the same d_head / 4
 * frequencies (qkv_rope_angles of d_head / 2), 1 at the query itself; heads and mean alike
 * (every head rotates alike). */
static int rope2d_draw_grid(const qkv_attention_opts *opts, qkv_tensor *param, int n_heads, int d_head,
                            qkv_pos_panel *heads, qkv_pos_panel *mean, qkv_error *err)
{
    (void)param;
    (void)n_heads;
    qkv_grid g = opts->grid;
    int rows = g.rows, cols = g.cols, qr = rows / 2, qc = cols / 2, dh = d_head;
    double theta[dh / 4 + 1];
    double *a = qkv_pos_panel_alloc(heads, rows, cols, "key column", "key row", err);
    double *b = a ? qkv_pos_panel_alloc(mean, rows, cols, "key column", "key row", err) : NULL;
    if (!b)
        return QKV_ERR;
    qkv_rope_angles(dh / 2, opts->rope_base > 0 ? opts->rope_base : 1, theta);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double sum = 0;
            for (int i = 0; i < dh / 4; i++)
                sum += cos((r - qr) * theta[i]) + cos((c - qc) * theta[i]);
            a[(size_t)r * cols + c] = b[(size_t)r * cols + c] = sum / (dh / 2);
        }
    heads->blocks = 0;
    snprintf(heads->title, sizeof heads->title, "mean over pairs of cos(angle difference)");
    snprintf(mean->title, sizeof mean->title, "the same");
    return QKV_OK;
}

const qkv_pos_desc qkv_pos_rope2d = {
    .name = "rope2d",
    .needs_grid = true,
    .group = QKV_POS_ROTATION,
    .params = "model.rope_base",
    .attention = rope2d_attention,
    .draw_grid = rope2d_draw_grid,
    .draws = "the mean over pairs of cos(angle difference) from the centre; the same",
};
