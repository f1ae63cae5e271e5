/* Positional kind rope, a rotation of q and k in every attention layer (RoPE, Su et al. 2021,
 * lib/ops/rope.h) with the base model.rope_base; PE = 0. See lib/nn/positional.h. */
#include "lib/nn/positional.h"
#include "lib/ops/rope.h"

#include <math.h>
#include <stdio.h>

static void rope_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    opts->rope_base = pos->rope_base;
}

/* enc [n, d_head/2] = cos(p·θ_i); sim [n, n] = the mean over pairs of cos((j − i)·θ_i), the
 * factor rotation puts on a query–key pair of equal content. */
static int rope_draw(const qkv_positional *pos, int n, int n_heads, qkv_pos_panel *enc, qkv_pos_panel *sim,
                     qkv_error *err)
{
    int dh = pos->d_model / n_heads, half = dh / 2;
    double theta[half > 0 ? half : 1];
    qkv_rope_angles(dh, pos->rope_base, theta);
    double *e = qkv_pos_panel_alloc(enc, n, half, "pair i", "position p", err);
    double *s = e ? qkv_pos_panel_alloc(sim, n, n, "key position j", "query position i", err) : NULL;
    if (!s)
        return QKV_ERR;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < half; i++)
            e[(size_t)p * half + i] = cos(p * theta[i]);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double sum = 0;
            for (int i = 0; i < half; i++)
                sum += cos((b - a) * theta[i]);
            s[(size_t)a * n + b] = sum / half;
        }
    snprintf(enc->title, sizeof enc->title, "rope: cos(p θ_i), base %g", pos->rope_base);
    snprintf(sim->title, sizeof sim->title, "rope: mean over pairs of cos((j - i) θ_i)");
    return QKV_OK;
}

const qkv_pos_desc qkv_pos_rope = {
    .name = "rope",
    .group = QKV_POS_ROTATION,
    .params = "model.rope_base",
    .attention = rope_attention,
    .draw = rope_draw,
    .draws = "cos(p*theta_i) by rotary pair i; the mean over pairs of cos((j-i)*theta_i)",
};
