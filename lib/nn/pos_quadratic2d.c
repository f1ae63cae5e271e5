/* Positional kind quadratic2d: each attention head's score bias −α_h‖δ − Δ_h‖² over the 2-D
 * offset δ of key from query, with its own learned centre Δ_h and width α_h in every layer
 * (Cordonnier, Loukas & Jaggi 2020; lib/ops/grid_bias.h); PE = 0. See lib/nn/positional.h. */
#include "lib/nn/positional.h"
#include "lib/ops/grid_bias.h"

static void quadratic2d_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    (void)pos;
    opts->pos_bias = &qkv_quadratic_bias_kind;
}

const qkv_pos_desc qkv_pos_quadratic2d = {
    .name = "quadratic2d",
    .needs_grid = true,
    .group = QKV_POS_SCORE_BIAS,
    .params = "",
    .attention = quadratic2d_attention,
    .draw_grid = qkv_pos_draw_score_bias_grid,
    .draws = "the score bias by head, side by side; their mean",
};
