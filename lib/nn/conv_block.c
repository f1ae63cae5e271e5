/* Residual convolution block: composition of layer_norm, conv1d, an activation and dropout.
 * See lib/nn/conv_block.h. */
#include "lib/nn/conv_block.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int qkv_conv_block_create(qkv_conv_block *blk, qkv_params *ps, qkv_rng *rng, const char *prefix, int d, int k,
                          int dilation, qkv_ffn_activation activation, double dropout, double ln_eps, qkv_error *err)
{
    memset(blk, 0, sizeof *blk);
    if (d < 1)
        return qkv_fail(err, "%s: d_model %d must be positive", prefix, d);
    if (k < 1 || k % 2 == 0)
        return qkv_fail(err, "%s: kernel width %d must be odd and >= 1", prefix, k);
    if (dilation < 1)
        return qkv_fail(err, "%s: dilation %d must be >= 1", prefix, dilation);
    if (!(dropout >= 0 && dropout < 1))
        return qkv_fail(err, "%s: dropout %g is outside [0, 1)", prefix, dropout);
    *blk = (qkv_conv_block){.d = d, .k = k, .dilation = dilation, .activation = activation, .dropout = dropout,
                            .ln_eps = ln_eps > 0 ? ln_eps : 1e-5};
    blk->ln_gain = qkv_params_add(ps, err, 1, (int[]){d}, "%s.ln.gain", prefix);
    blk->ln_bias = blk->ln_gain ? qkv_params_add(ps, err, 1, (int[]){d}, "%s.ln.bias", prefix) : NULL;
    blk->w = blk->ln_bias ? qkv_params_add(ps, err, 3, (int[]){d, d, k}, "%s.conv.weight", prefix) : NULL;
    blk->b = blk->w ? qkv_params_add(ps, err, 1, (int[]){d}, "%s.conv.bias", prefix) : NULL;
    if (!blk->b)
        return QKV_ERR;
    qkv_init_constant(blk->ln_gain, 1);
    const double bound = 1.0 / sqrt((double)d * k);
    qkv_init_uniform(blk->w, rng, bound);
    qkv_init_uniform(blk->b, rng, bound);
    return QKV_OK;
}

qkv_tensor *qkv_conv_block_forward(qkv_tape *tp, const qkv_conv_block *blk, qkv_tensor *x, qkv_packed sentences)
{
    qkv_tensor *h = qkv_layer_norm(tp, x, blk->ln_gain, blk->ln_bias, blk->ln_eps);
    h = h ? qkv_conv1d(tp, h, blk->w, blk->b, sentences, blk->dilation) : NULL;
    if (h)
        h = blk->activation == QKV_FFN_GELU ? qkv_gelu(tp, h, QKV_GELU_ERF) : qkv_relu(tp, h);
    h = h ? qkv_dropout(tp, h, blk->dropout) : NULL;
    return h ? qkv_add(tp, x, h) : NULL;
}
