/* 2-D convolution block: composition of conv2d, layer_norm, an activation and pool2d. See
 * lib/nn/conv2d_block.h. */
#include "lib/nn/conv2d_block.h"

#include <math.h>
#include <string.h>

const char *const QKV_CNN2D_POOL_NAMES[] = {"none", "max", "avg", NULL};
_Static_assert(sizeof QKV_CNN2D_POOL_NAMES / sizeof QKV_CNN2D_POOL_NAMES[0] == QKV_CNN2D_POOL_COUNT + 1,
               "one name per qkv_cnn2d_pool");

int qkv_conv2d_block_create(qkv_conv2d_block *blk, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_in,
                            int d_out, int k, qkv_cnn2d_pool pool, qkv_ffn_activation activation, double ln_eps,
                            qkv_error *err)
{
    memset(blk, 0, sizeof *blk);
    if (d_in < 1 || d_out < 1)
        return qkv_fail(err, "%s: channels %d -> %d must be positive", prefix, d_in, d_out);
    if (k < 1 || k % 2 == 0)
        return qkv_fail(err, "%s: kernel size %d must be odd and >= 1", prefix, k);
    if ((unsigned)pool >= QKV_CNN2D_POOL_COUNT)
        return qkv_fail(err, "%s: unknown pooling %d", prefix, (int)pool);
    *blk = (qkv_conv2d_block){.d_in = d_in, .d_out = d_out, .k = k, .pool = pool, .activation = activation,
                              .ln_eps = ln_eps > 0 ? ln_eps : 1e-5};
    blk->w = qkv_params_add(ps, err, 4, (int[]){d_out, d_in, k, k}, "%s.conv.weight", prefix);
    blk->b = blk->w ? qkv_params_add(ps, err, 1, (int[]){d_out}, "%s.conv.bias", prefix) : NULL;
    blk->ln_gain = blk->b ? qkv_params_add(ps, err, 1, (int[]){d_out}, "%s.ln.gain", prefix) : NULL;
    blk->ln_bias = blk->ln_gain ? qkv_params_add(ps, err, 1, (int[]){d_out}, "%s.ln.bias", prefix) : NULL;
    if (!blk->ln_bias)
        return QKV_ERR;
    const double bound = 1.0 / sqrt((double)d_in * k * k);
    qkv_init_uniform(blk->w, rng, bound);
    qkv_init_uniform(blk->b, rng, bound);
    qkv_init_constant(blk->ln_gain, 1);
    return QKV_OK;
}

qkv_tensor *qkv_conv2d_block_forward(qkv_tape *tp, const qkv_conv2d_block *blk, qkv_tensor *x, int n,
                                     qkv_grid *grid)
{
    qkv_grid g = *grid;
    qkv_tensor *h = qkv_conv2d(tp, x, blk->w, blk->b, n, g, 1, (blk->k - 1) / 2, &g);
    h = h ? qkv_layer_norm(tp, h, blk->ln_gain, blk->ln_bias, blk->ln_eps) : NULL;
    if (h)
        h = blk->activation == QKV_FFN_GELU ? qkv_gelu(tp, h, QKV_GELU_ERF) : qkv_relu(tp, h);
    if (h && blk->pool != QKV_CNN2D_POOL_NONE && g.rows >= 2 && g.cols >= 2)
        h = qkv_pool2d(tp, h, n, g, 2, 2, 0, blk->pool == QKV_CNN2D_POOL_MAX ? QKV_POOL_MAX : QKV_POOL_AVG, &g);
    if (h)
        *grid = g;
    return h;
}
