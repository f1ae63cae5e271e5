/* Positional kind rope2d: the axial 2-D rotation of q and k in every attention layer, half the
 * pairs by the row and half by the column of each grid token (lib/ops/rope.h,
 * qkv_rope_rotate_2d), base model.rope_base; PE = 0. See lib/nn/positional.h. */
#include "lib/nn/positional.h"

static void rope2d_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    opts->rope_base = pos->rope_base;
    opts->rope_2d = true;
}

const qkv_pos_kind_desc qkv_pos_rope2d = {
    .name = "rope2d",
    .needs_grid = true,
    .group = QKV_POS_ROTATION,
    .params = "model.rope_base",
    .attention = rope2d_attention,
};
