/* The 2-D convolution encoder kind (models/kinds.h), the CNN to compare self-attention with on
 * images: n_layers blocks of lib/nn/conv2d_block.h (cnn_kernel × cnn_kernel convolution, d_model
 * channels, layer norm, activation, then cnn2d_pool) over each image of the batch on cfg->grid
 * (no prefix tokens: an image input without [CLS]), no positional encoding. Then the maximum of
 * each channel over the cells left (global max pooling) gives one vector per image, and that
 * vector is every token's output: y [T, d_model], the rows of image b all equal to its vector.
 * A class head reads it whichever way it pools (the [CLS] row, a mean over the rows); a
 * per-token head would read the image's vector at every token.
 * Parameters: encoder.layers.<i>.* (lib/nn/conv2d_block.h), n_layers · (d_model² · k² + 3 ·
 * d_model) in all (the summary prints it). d_out = d_model. */
#include <stdio.h>
#include <stdlib.h>

#include "models/network.h"

typedef struct cnn2d {
    qkv_grid grid;
    int n;
    qkv_conv2d_block layer[];
} cnn2d;

static int d_out(const qkv_network_config *cfg) { return cfg->encoder.d_model; }

static int create(qkv_encoder *e, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    const qkv_encoder_opts *o = &cfg->encoder;
    if (!qkv_grid_is_2d(cfg->grid) || cfg->grid.n_prefix != 0)
        return qkv_fail(err, "model.encoder = cnn2d needs a 2-D grid of tokens without prefix tokens (no [CLS]), got "
                        "%d x %d (+%d)", cfg->grid.rows, cfg->grid.cols, cfg->grid.n_prefix);
    cnn2d *b = calloc(1, sizeof *b + (size_t)cfg->n_layers * sizeof b->layer[0]);
    if (!b)
        return qkv_fail(err, "cnn2d encoder: out of memory for %d layers", cfg->n_layers);
    e->state = b;
    b->grid = cfg->grid;
    for (int i = 0; i < cfg->n_layers; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "encoder.layers.%d", i);
        if (qkv_conv2d_block_create(&b->layer[i], ps, rng, prefix, o->d_model, o->d_model, cfg->cnn_kernel,
                                    cfg->cnn2d_pool, o->activation, o->ln_eps, err))
            return QKV_ERR;
        b->n = i + 1;
    }
    return QKV_OK;
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_encoder *e, qkv_tensor *x, qkv_packed sentences, int keep_layer,
                           qkv_attention_weights *keep)
{
    (void)keep_layer, (void)keep;
    const cnn2d *s = e->state;
    qkv_grid g = s->grid;
    int n = sentences.n, T = (int)qkv_packed_rows(sentences);
    for (int b = 0; !tp->failed && b < n; b++)
        if (qkv_packed_len(sentences, b) != qkv_grid_len(g))
            return qkv_tape_fail(tp, "cnn2d encoder: image %d has %d tokens, the grid %d x %d has %d", b,
                                 qkv_packed_len(sentences, b), g.rows, g.cols, qkv_grid_len(g));
    for (int i = 0; i < s->n; i++) {
        qkv_arena_mark m = qkv_tape_mark(tp);
        x = qkv_conv2d_block_forward(tp, &s->layer[i], x, n, &g);
        x = qkv_tape_keep_only(tp, m, x); /* an evaluation pass keeps only the output (lib/tape.h) */
    }
    int32_t *cells = qkv_tape_alloc(tp, (size_t)(n + 1) * sizeof *cells);
    int32_t *image = qkv_tape_alloc(tp, (size_t)(T + 1) * sizeof *image);
    if (!x || !cells || !image)
        return NULL;
    for (int b = 0; b <= n; b++)
        cells[b] = b * g.rows * g.cols;
    for (int b = 0; b < n; b++)
        for (int t = sentences.offsets[b]; t < sentences.offsets[b + 1]; t++)
            image[t] = b;
    qkv_tensor *v = qkv_packed_max(tp, x, (qkv_packed){n, cells}); /* [n, d_model] */
    return v ? qkv_embedding(tp, v, image, T) : NULL;
}

/* The grid after n_layers blocks of cfg (each pool halves it, rounded down, while it can). */
static qkv_grid out_grid(const qkv_network_config *cfg)
{
    qkv_grid g = cfg->grid;
    for (int i = 0; cfg->cnn2d_pool != QKV_CNN2D_POOL_NONE && i < cfg->n_layers; i++)
        if (g.rows >= 2 && g.cols >= 2)
            g = qkv_conv2d_grid(g, 2, 2, 0);
    return g;
}

static void summary(const qkv_network_config *cfg, char *buf, size_t cap)
{
    long d = cfg->encoder.d_model, k = cfg->cnn_kernel;
    qkv_grid g = out_grid(cfg);
    snprintf(buf, cap, "encoder: cnn2d, %d blocks of %ldx%ld convolutions, %s pooling: grid %d x %d -> %d x %d, then "
             "the maximum over the cells; %ld encoder parameters", cfg->n_layers, k, k,
             QKV_CNN2D_POOL_NAMES[cfg->cnn2d_pool], cfg->grid.rows, cfg->grid.cols, g.rows, g.cols,
             cfg->n_layers * (d * d * k * k + 3 * d));
}

static void release(qkv_encoder *e)
{
    free(e->state);
    e->state = NULL;
}

const qkv_encoder_desc qkv_cnn2d_encoder = {
    .name = "cnn2d",
    .param_prefixes = (const char *const[]){"encoder.layers.", NULL},
    .takes_positions = false,
    .d_out = d_out,
    .create = create,
    .forward = forward,
    .summary = summary,
    .free = release,
};
