/* Positional kind learned, additive: PE(p) = row p of a [max_len, d_model] parameter
 * "<prefix>.table", initialized N(0, 0.02^2), no weight decay. A sentence longer than max_len
 * is a tape error naming both numbers, unless overflow is clamp: then positions p >= max_len
 * use row max_len − 1, so every word past the table shares the last learned position.
 * See lib/nn/positional.h. */
#include "lib/nn/positional.h"

static int learned_create(qkv_positional *pos, qkv_params *ps, qkv_rng *rng, const char *prefix, qkv_error *err)
{
    if (pos->max_len < 1)
        return qkv_fail(err, "%s: learned positions need max_len >= 1, got %d", prefix, pos->max_len);
    pos->table = qkv_params_add(ps, err, 2, (int[]){pos->max_len, pos->d_model}, "%s.table", prefix);
    if (!pos->table)
        return QKV_ERR;
    qkv_params_of(ps, pos->table)->no_weight_decay = true;
    qkv_init_normal(pos->table, rng, 0.02);
    return QKV_OK;
}

/* The whole table: qkv_add_positions checks the length (or clamps). */
static qkv_tensor *learned_pe(qkv_tape *tp, const qkv_positional *pos, int longest)
{
    (void)tp, (void)longest;
    return pos->table;
}

/* Without clamping, only the table's rows. */
static int learned_drawable(const qkv_positional *pos, int n)
{
    return pos->overflow != QKV_POS_OVERFLOW_CLAMP && n > pos->max_len ? pos->max_len : n;
}

const qkv_pos_desc qkv_pos_learned = {
    .name = "learned",
    .group = QKV_POS_ADDITIVE,
    .params = "model.max_len, model.pos_overflow",
    .create = learned_create,
    .pe = learned_pe,
    .drawable = learned_drawable,
    .draw = qkv_pos_draw_additive,
    .draws = "PE(p) by dimension; the cosine of PE(i) and PE(j); max_len rows unless clamped",
};
