/* Positional kind alibi, a score bias of every attention layer (ALiBi, Press, Smith & Lewis
 * 2022, lib/ops/alibi.h); PE = 0, no parameters. See lib/nn/positional.h. */
#include "lib/nn/positional.h"
#include "lib/ops/alibi.h"

#include <stdio.h>
#include <stdlib.h>

static void alibi_attention(const qkv_positional *pos, qkv_attention_opts *opts)
{
    (void)pos;
    opts->pos_bias = &qkv_alibi_kind;
}

/* enc [n, n_heads] = the bias −m_h·p at distance p; sim [n, n] = the bias a query at i gives a
 * key at j, mean over heads. */
static int alibi_draw(const qkv_positional *pos, int n, int n_heads, qkv_pos_panel *enc, qkv_pos_panel *sim,
                      qkv_error *err)
{
    (void)pos;
    int H = n_heads;
    double *e = qkv_pos_panel_alloc(enc, n, H, "head h", "distance p", err);
    double *s = e ? qkv_pos_panel_alloc(sim, n, n, "key position j", "query position i", err) : NULL;
    if (!s)
        return QKV_ERR;
    for (int p = 0; p < n; p++)
        for (int h = 0; h < H; h++)
            e[(size_t)p * H + h] = -qkv_alibi_slope(h, H) * p;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int h = 0; h < H; h++)
                sum -= qkv_alibi_slope(h, H) * abs(i - j);
            s[(size_t)i * n + j] = sum / H;
        }
    snprintf(enc->title, sizeof enc->title, "alibi: score bias -m_h p");
    snprintf(sim->title, sizeof sim->title, "alibi: score bias, mean over heads");
    return QKV_OK;
}

const qkv_pos_desc qkv_pos_alibi = {
    .name = "alibi",
    .group = QKV_POS_SCORE_BIAS,
    .params = "",
    .attention = alibi_attention,
    .draw = alibi_draw,
    .draws = "the bias -m_h*p by head; the bias a query at i gives a key at j, mean over heads",
};
