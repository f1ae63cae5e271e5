/* A residual block of 1-D convolution over the tokens of each sentence of a packed batch
 * (lib/ops/conv.c), pre-LN like the Transformer blocks:
 *     y = x + Dropout(act(Conv1d(LN(x))))      x, y [T, d]; act gelu (erf form) or relu
 * The convolution has width k (odd) and dilation; zeros beyond each sentence's ends. n such
 * blocks see 1 + n·(k-1)·dilation tokens (qkv_conv_receptive_field).
 *
 * Parameter names under a prefix (e.g. "encoder.layers.0"), PyTorch counterparts:
 *   <prefix>.ln.gain, .ln.bias       [d]           nn.LayerNorm weight, bias
 *   <prefix>.conv.weight             [d, d, k]     nn.Conv1d(d, d, k, padding=dilation·(k-1)/2,
 *   <prefix>.conv.bias               [d]             dilation=dilation) weight, bias
 * Initialised as nn.Conv1d: U(-1/sqrt(d·k), 1/sqrt(d·k)); gain 1, bias 0. */
#ifndef QKV_NN_CONV_BLOCK_H
#define QKV_NN_CONV_BLOCK_H

#include "lib/nn/encoder.h"
#include "lib/ops/ops.h"
#include "lib/param.h"

typedef struct qkv_conv_block {
    int d, k, dilation;
    qkv_ffn_activation activation;
    double dropout, ln_eps;
    qkv_tensor *ln_gain, *ln_bias, *w, *b;
} qkv_conv_block;

/* Errors: d < 1, k even or < 1, dilation < 1, dropout outside [0, 1), a parameter that cannot
 * be added. ln_eps 0 means 1e-5. */
int qkv_conv_block_create(qkv_conv_block *blk, qkv_params *ps, qkv_rng *rng, const char *prefix, int d, int k,
                          int dilation, qkv_ffn_activation activation, double dropout, double ln_eps, qkv_error *err);

/* y [T, d] for x [T, d]; NULL when the tape failed. */
qkv_tensor *qkv_conv_block_forward(qkv_tape *tp, const qkv_conv_block *blk, qkv_tensor *x, qkv_packed sentences);

/* Tokens n_blocks blocks of width k and dilation see around each token, itself included. */
static inline long qkv_conv_receptive_field(int n_blocks, int k, int dilation)
{
    return 1 + (long)n_blocks * (k - 1) * dilation;
}

#endif
