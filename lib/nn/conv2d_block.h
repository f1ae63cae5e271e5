/* A block of 2-D convolution over the images of a packed batch (lib/ops/conv2d.c):
 *     y = Pool(act(LN(Conv2d(x))))     x [n·rows·cols, d_in], y [n·rows'·cols', d_out]
 * Conv2d of k × k (k odd), stride 1 and padding (k − 1)/2 keeps the grid; LN is a layer norm
 * over each cell's channels (not batch norm: each image alone, as the rest of qkv); act gelu
 * (erf form) or relu; Pool, when chosen, is a 2 × 2 window of stride 2 (max or avg), halving
 * the grid (rows' = rows / 2, rounded down), skipped on a grid of one row or column.
 *
 * Parameter names under a prefix (e.g. "encoder.layers.0"), PyTorch counterparts:
 *   <prefix>.conv.weight   [d_out, d_in, k, k]   nn.Conv2d(d_in, d_out, k, padding=(k-1)/2) weight, bias
 *   <prefix>.conv.bias     [d_out]
 *   <prefix>.ln.gain, .ln.bias  [d_out]          nn.LayerNorm(d_out) over channels, weight and bias
 * Initialised as nn.Conv2d: U(−1/sqrt(d_in·k·k), 1/sqrt(d_in·k·k)); gain 1, bias 0.
 * Parameters: d_out·d_in·k² + 3·d_out. */
#ifndef QKV_NN_CONV2D_BLOCK_H
#define QKV_NN_CONV2D_BLOCK_H

#include "lib/nn/encoder.h"
#include "lib/ops/ops.h"
#include "lib/param.h"

typedef enum { QKV_CNN2D_POOL_NONE = 0, QKV_CNN2D_POOL_MAX, QKV_CNN2D_POOL_AVG, QKV_CNN2D_POOL_COUNT } qkv_cnn2d_pool;
/* "none", "max", "avg" (index = value), then NULL. */
extern const char *const QKV_CNN2D_POOL_NAMES[];

typedef struct qkv_conv2d_block {
    int d_in, d_out, k;
    qkv_cnn2d_pool pool;
    qkv_ffn_activation activation;
    double ln_eps;
    qkv_tensor *w, *b, *ln_gain, *ln_bias;
} qkv_conv2d_block;

/* Errors: d_in or d_out < 1, k even or < 1, an unknown pool, a parameter that cannot be added.
 * ln_eps 0 means 1e-5. */
int qkv_conv2d_block_create(qkv_conv2d_block *blk, qkv_params *ps, qkv_rng *rng, const char *prefix, int d_in,
                            int d_out, int k, qkv_cnn2d_pool pool, qkv_ffn_activation activation, double ln_eps,
                            qkv_error *err);

/* y for x of n images on *grid (lib/grid.h, no prefix tokens); *grid becomes y's grid. NULL
 * when the tape failed (qkv_conv2d's errors). */
qkv_tensor *qkv_conv2d_block_forward(qkv_tape *tp, const qkv_conv2d_block *blk, qkv_tensor *x, int n,
                                     qkv_grid *grid);

#endif
