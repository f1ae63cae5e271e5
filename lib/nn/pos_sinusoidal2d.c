/* Positional kind sinusoidal2d, additive, for tokens on a 2-D grid (lib/grid.h): the first
 * h = floor(d_model / 2) dimensions are the sinusoidal encoding (pos_sinusoidal.c) of the
 * token's row over h dimensions, the other d_model − h that of its column over d_model − h,
 *   PE(r, c) = [sin/cos(r / 10000^(2i/h)) ; sin/cos(c / 10000^(2i/(d_model − h)))],
 * the 2-D form of Vaswani et al. 2017's encoding (as in Carion et al. 2020, DETR, and the
 * 2-D variant of Dosovitskiy et al. 2021's appendix D.4). Tokens before the grid (a [CLS]
 * token) get PE 0. No parameters. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

#include <string.h>

/* A constant table [n_prefix + rows·cols, d_model] on the tape (row p: token p of a sequence). */
static qkv_tensor *sinusoidal2d_pe(qkv_tape *tp, const qkv_positional *pos, int longest)
{
    (void)longest;
    qkv_grid g = pos->grid;
    int D = pos->d_model, h = D / 2, L = qkv_grid_len(g);
    qkv_tensor *pe = qkv_tape_tensor2(tp, L, D);
    if (!pe)
        return NULL;
    memset(pe->data, 0, (size_t)L * (size_t)D * sizeof *pe->data);
    for (int t = g.n_prefix; t < L; t++) {
        qkv_real *row = pe->data + (size_t)t * D;
        if (h > 0)
            qkv_sinusoidal(qkv_grid_row(g, t), h, row);
        qkv_sinusoidal(qkv_grid_col(g, t), D - h, row + h);
    }
    return pe;
}

/* The tokens of one sequence at most. */
static int grid_drawable(const qkv_positional *pos, int n)
{
    int L = qkv_grid_len(pos->grid);
    return n < L ? n : L;
}

const qkv_pos_desc qkv_pos_sinusoidal2d = {
    .name = "sinusoidal2d",
    .group = QKV_POS_ADDITIVE,
    .params = "",
    .needs_grid = true,
    .pe = sinusoidal2d_pe,
    .drawable = grid_drawable,
    .draw = qkv_pos_draw_additive,
    .draws = "PE(token) by dimension (tokens row-major on the grid); the cosine of PE(i) and PE(j)",
};
