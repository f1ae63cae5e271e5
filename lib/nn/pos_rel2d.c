/* Positional kind rel2d: each attention layer's learned bias per head for each 2-D offset
 * (dy, dx) clipped to model.rel2d_clip, and one for the pairs with a prefix token
 * (lib/ops/grid_bias.h); PE = 0. See lib/nn/positional.h. */
#include "lib/nn/positional.h"
#include "lib/ops/grid_bias.h"

static void rel2d_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    opts->pos_bias = &qkv_rel2d_bias_kind;
    opts->pos_bias_clip = pos->clip_2d;
}

const qkv_pos_desc qkv_pos_rel2d = {
    .name = "rel2d",
    .needs_grid = true,
    .group = QKV_POS_SCORE_BIAS,
    .params = "model.rel2d_clip",
    .attention = rel2d_attention,
    .draw_grid = qkv_pos_draw_score_bias_grid,
    .draws = "the score bias by head, side by side; their mean",
};
