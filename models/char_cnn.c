#include "models/char_cnn.h"

#include "lib/ops/ops.h"

int qkv_char_cnn_create(qkv_char_cnn *c, qkv_params *ps, qkv_rng *rng, const qkv_char_cnn_config *cfg,
                        qkv_error *err)
{
    c->cfg = *cfg;
    if (cfg->n_chars < 1 || cfg->char_dim < 1 || cfg->char_filters < 1 || cfg->d_model < 1)
        return qkv_fail(err, "character encoder: sizes must be positive (n_chars %d, char_dim %d, char_filters %d)",
                        cfg->n_chars, cfg->char_dim, cfg->char_filters);
    if (cfg->char_width < 1 || cfg->char_width % 2 == 0)
        return qkv_fail(err, "character encoder: char_width = %d, must be odd and positive", cfg->char_width);
    c->embed = qkv_params_add(ps, err, 2, (int[]){cfg->n_chars, cfg->char_dim}, "chars.embed");
    c->conv_w = c->embed ? qkv_params_add(ps, err, 2, (int[]){cfg->char_filters, cfg->char_width * cfg->char_dim},
                                          "chars.conv.w")
                         : NULL;
    c->conv_b = c->conv_w ? qkv_params_add(ps, err, 1, (int[]){cfg->char_filters}, "chars.conv.b") : NULL;
    c->proj_w = c->conv_b ? qkv_params_add(ps, err, 2, (int[]){cfg->d_model, cfg->char_filters}, "chars.proj.w")
                          : NULL;
    if (!c->proj_w)
        return QKV_ERR;
    qkv_init_normal(c->embed, rng, 1.0);
    qkv_params_of(ps, c->embed)->no_weight_decay = true;
    qkv_init_xavier_uniform(c->conv_w, rng);
    qkv_init_xavier_uniform(c->proj_w, rng);
    return QKV_OK;
}

qkv_tensor *qkv_char_cnn_forward(qkv_tape *tp, const qkv_char_cnn *c, const int32_t *chars, qkv_packed words)
{
    qkv_tensor *e = qkv_embedding(tp, c->embed, chars, qkv_packed_rows(words));
    qkv_tensor *windows = qkv_packed_windows(tp, e, words, c->cfg.char_width);
    qkv_tensor *h = qkv_relu(tp, qkv_linear(tp, windows, c->conv_w, c->conv_b));
    qkv_tensor *pooled = qkv_packed_max(tp, h, words);
    return qkv_linear(tp, pooled, c->proj_w, NULL);
}
