/* Encoder block: composition of lib/ops/attention.h and lib/ops/ops.h ops. See lib/nn/encoder.h. */
#include "lib/nn/encoder.h"

#include <stdio.h>
#include <string.h>

const char *const QKV_FFN_ACTIVATION_NAMES[] = {"relu", "gelu", NULL};
_Static_assert(sizeof QKV_FFN_ACTIVATION_NAMES / sizeof QKV_FFN_ACTIVATION_NAMES[0] == QKV_FFN_ACTIVATION_COUNT + 1,
               "one name per qkv_ffn_activation");

int qkv_encoder_block_create(qkv_encoder_block *blk, qkv_params *ps, qkv_rng *rng, const char *prefix,
                             const qkv_encoder_opts *opts, qkv_error *err)
{
    memset(blk, 0, sizeof *blk);
    blk->opts = *opts;
    int d = opts->d_model, f = opts->d_ff;
    if (d < 1 || f < 1)
        return qkv_fail(err, "%s: d_model %d and d_ff %d must be positive", prefix, d, f);
    if (!(opts->dropout >= 0 && opts->dropout < 1))
        return qkv_fail(err, "%s: dropout %g is outside [0, 1)", prefix, opts->dropout);
    char name[QKV_PARAM_NAME_MAX];
    snprintf(name, sizeof name, "%s.attn", prefix);
    if (qkv_mha_create(&blk->attn, ps, rng, name, d, &opts->attn, opts->attn_bias, err) != QKV_OK)
        return QKV_ERR;
    struct {
        qkv_tensor **t;
        int rows, cols; /* cols 0: a vector */
        const char *suffix;
        double fill;    /* for vectors */
    } spec[8] = {
        {&blk->ln1_gain, d, 0, "ln1.gain", 1}, {&blk->ln1_bias, d, 0, "ln1.bias", 0},
        {&blk->w1, f, d, "ffn.w1", 0},          {&blk->b1, f, 0, "ffn.b1", 0},
        {&blk->w2, d, f, "ffn.w2", 0},          {&blk->b2, d, 0, "ffn.b2", 0},
        {&blk->ln2_gain, d, 0, "ln2.gain", 1}, {&blk->ln2_bias, d, 0, "ln2.bias", 0},
    };
    for (int k = 0; k < 8; k++) {
        int shape[2] = {spec[k].rows, spec[k].cols};
        *spec[k].t = qkv_params_add(ps, err, spec[k].cols ? 2 : 1, shape, "%s.%s", prefix, spec[k].suffix);
        if (!*spec[k].t)
            return QKV_ERR;
        if (spec[k].cols) {
            qkv_init_xavier_uniform(*spec[k].t, rng);
        } else {
            qkv_init_constant(*spec[k].t, spec[k].fill);
            qkv_params_of(ps, *spec[k].t)->no_weight_decay = true;
        }
    }
    return QKV_OK;
}

static qkv_tensor *ffn(qkv_tape *tp, const qkv_encoder_block *blk, qkv_tensor *z)
{
    const bool gelu = blk->opts.activation == QKV_FFN_GELU; /* its bias add fused into it */
    qkv_tensor *h = qkv_linear(tp, z, blk->w1, gelu ? NULL : blk->b1);
    if (!h)
        return NULL;
    h = gelu ? qkv_bias_gelu(tp, h, blk->b1, QKV_GELU_ERF) : qkv_relu(tp, h);
    if (!h)
        return NULL;
    return qkv_linear(tp, h, blk->w2, blk->b2);
}

qkv_tensor *qkv_encoder_block_forward(qkv_tape *tp, const qkv_encoder_block *blk, qkv_tensor *x,
                                      qkv_packed sentences, qkv_attention_weights *keep)
{
    if (tp->failed)
        return NULL;
    double eps = blk->opts.ln_eps > 0 ? blk->opts.ln_eps : 1e-5, p = blk->opts.dropout;
    qkv_tensor *h, *y;
    if (blk->opts.norm_first) {
        qkv_tensor *a = qkv_layer_norm(tp, x, blk->ln1_gain, blk->ln1_bias, eps);
        a = a ? qkv_mha_forward(tp, &blk->attn, a, sentences, keep) : NULL;
        h = NULL;
        qkv_tensor *g = a ? qkv_add_dropout_layer_norm(tp, x, a, p, blk->ln2_gain, blk->ln2_bias, eps, &h) : NULL;
        g = g ? ffn(tp, blk, g) : NULL;
        y = g ? qkv_add_dropout(tp, h, g, p) : NULL;
    } else {
        qkv_tensor *a = qkv_mha_forward(tp, &blk->attn, x, sentences, keep);
        h = a ? qkv_add_dropout_layer_norm(tp, x, a, p, blk->ln1_gain, blk->ln1_bias, eps, NULL) : NULL;
        qkv_tensor *g = h ? ffn(tp, blk, h) : NULL;
        y = g ? qkv_add_dropout_layer_norm(tp, h, g, p, blk->ln2_gain, blk->ln2_bias, eps, NULL) : NULL;
    }
    return y;
}
