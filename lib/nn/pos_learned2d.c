/* Positional kind learned2d, additive, for tokens on a 2-D grid (lib/grid.h): a learned row
 * table "<prefix>.row_table" [rows, d_model] and a column table "<prefix>.col_table" [cols,
 * d_model], PE(r, c) = row_table[r] + col_table[c] (the factorised 2-D embedding of
 * Dosovitskiy et al. 2021, appendix D.4, summed rather than concatenated so that every
 * dimension sees both axes). Tokens before the grid (a [CLS] token) get PE 0. Both tables
 * N(0, 0.02^2), not weight-decayed. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

#include <string.h>

#include "lib/ops/concat.h"
#include "lib/ops/ops.h"

static int learned2d_create(qkv_positional *pos, qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    qkv_grid g = pos->grid;
    pos->row_table = qkv_params_add(ps, err, 2, (int[]){g.rows, pos->d_model}, "%s.row_table", prefix);
    pos->col_table = pos->row_table ? qkv_params_add(ps, err, 2, (int[]){g.cols, pos->d_model}, "%s.col_table", prefix)
                                    : NULL;
    if (!pos->col_table)
        return QKV_ERR;
    qkv_params_of(ps, pos->row_table)->no_weight_decay = true;
    qkv_params_of(ps, pos->col_table)->no_weight_decay = true;
    qkv_init_normal(pos->row_table, rng, 0.02);
    qkv_init_normal(pos->col_table, rng, 0.02);
    return QKV_OK;
}

/* [n_prefix + rows·cols, d_model] on the tape: zeros for the prefix, then for each grid token
 * the sum of its row's and its column's rows (gradients reach both tables). */
static qkv_tensor *learned2d_pe(qkv_tape *tp, const qkv_positional *pos, int longest)
{
    (void)longest;
    qkv_grid g = pos->grid;
    int G = g.rows * g.cols, D = pos->d_model;
    int32_t *ids = qkv_tape_alloc(tp, 2 * (size_t)G * sizeof *ids);
    if (!ids)
        return qkv_tape_fail(tp, "learned2d: out of memory");
    for (int i = 0; i < G; i++) {
        ids[i] = i / g.cols;
        ids[G + i] = i % g.cols;
    }
    qkv_tensor *pe = qkv_add(tp, qkv_embedding(tp, pos->row_table, ids, G), qkv_embedding(tp, pos->col_table, ids + G, G));
    if (!pe || g.n_prefix == 0)
        return pe;
    qkv_tensor *zero = qkv_tape_tensor2(tp, g.n_prefix, D);
    if (!zero)
        return NULL;
    memset(zero->data, 0, (size_t)g.n_prefix * (size_t)D * sizeof *zero->data);
    return qkv_concat_rows(tp, 2, (qkv_tensor *const[]){zero, pe});
}

static int grid_drawable(const qkv_positional *pos, int n)
{
    int L = qkv_grid_len(pos->grid);
    return n < L ? n : L;
}

const qkv_pos_desc qkv_pos_learned2d = {
    .name = "learned2d",
    .group = QKV_POS_ADDITIVE,
    .params = "",
    .needs_grid = true,
    .create = learned2d_create,
    .pe = learned2d_pe,
    .drawable = grid_drawable,
    .draw = qkv_pos_draw_additive,
    .draws = "PE(token) by dimension (tokens row-major on the grid); the cosine of PE(i) and PE(j)",
};
