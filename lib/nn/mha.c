/* The multi-head self-attention layer: its parameters, and the attention op followed by the
 * output projection. See lib/nn/mha.h. */
#include "lib/nn/mha.h"

#include "lib/ops/grid_bias.h"
#include "lib/ops/rel_bias.h"

#include <string.h>

int qkv_mha_create(qkv_mha *m, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_model,
                   const qkv_attention_opts *opts, bool bias, qkv_error *err)
{
    memset(m, 0, sizeof *m);
    m->opts = *opts;
    if (opts->n_heads < 1 || d_model % opts->n_heads != 0)
        return qkv_fail(err, "%s: n_heads %d does not divide d_model %d", prefix, opts->n_heads, d_model);
    qkv_tensor **ws[4] = {&m->w_q, &m->w_k, &m->w_v, &m->w_o}, **bs[4] = {&m->b_q, &m->b_k, &m->b_v, &m->b_o};
    static const char *names[4] = {"q", "k", "v", "o"};
    for (int k = 0; k < 4; k++) {
        *ws[k] = qkv_params_add(ps, err, 2, (int[]){d_model, d_model}, "%s.w_%s", prefix, names[k]);
        if (!*ws[k])
            return QKV_ERR;
        qkv_init_xavier_uniform(*ws[k], rng);
        if (bias) {
            *bs[k] = qkv_params_add(ps, err, 1, (int[]){d_model}, "%s.b_%s", prefix, names[k]);
            if (!*bs[k])
                return QKV_ERR;
            qkv_params_of(ps, *bs[k])->no_weight_decay = true;
        }
    }
    if (opts->rel_clip > 0) {
        m->rel_bias = qkv_params_add(ps, err, 2, (int[]){opts->n_heads, 2 * opts->rel_clip + 1}, "%s.rel_bias", prefix);
        if (!m->rel_bias)
            return QKV_ERR;
        qkv_params_of(ps, m->rel_bias)->no_weight_decay = true;
    }
    const qkv_score_bias_kind *pb = opts->pos_bias;
    if (pb && pb->n_learned) {
        m->pos_param = qkv_params_add(ps, err, 2, (int[]){opts->n_heads, pb->n_learned(opts->pos_bias_clip)}, "%s.%s",
                                      prefix, pb->param_name);
        if (!m->pos_param)
            return QKV_ERR;
        if (pb->init)
            pb->init(m->pos_param, opts->pos_bias_clip, rng);
        qkv_params_of(ps, m->pos_param)->no_weight_decay = true;
    }
    return QKV_OK;
}

qkv_tensor *qkv_mha_forward(qkv_tape *tp, const qkv_mha *m, qkv_tensor *x, qkv_packed sentences,
                            qkv_attention_weights *keep)
{
    qkv_score_bias biases[3];
    int n = 0;
    qkv_attention_opts opts = m->opts;
    if (opts.rel_clip != 0 || m->rel_bias)
        biases[n++] = qkv_rel_bias(m->rel_bias, opts.rel_clip);
    if (opts.pos_bias)
        biases[n++] = (qkv_score_bias){opts.pos_bias, m->pos_param, opts.pos_bias_clip, opts.grid};
    if (opts.window_2d > 0) {
        biases[n++] = (qkv_score_bias){&qkv_local2d_kind, NULL, opts.window_2d, opts.grid};
        if (opts.grid.n_prefix == 0 && opts.window == 0) /* |dy|, |dx| <= w gives |j − i| <= w·cols + w */
            opts.window = opts.window_2d * (opts.grid.cols + 1);
    }
    const qkv_attention_proj proj = {m->w_q, m->w_k, m->w_v, m->b_q, m->b_k, m->b_v};
    qkv_tensor *o = qkv_attention(tp, x, sentences, &proj, biases, n, &opts, keep);
    if (!o)
        return NULL;
    return qkv_attention_out(tp, o, m->w_o, m->b_o);
}
