/* The convolution encoder kind (models/kinds.h): n_layers residual blocks of lib/nn/conv_block.h
 * of width cnn_kernel and dilation cnn_dilation (0 = 1), no positional encoding (the
 * convolution sees relative positions). Parameters: encoder.layers.<i>.* (lib/nn/conv_block.h).
 * d_out = d_model. */
#include <stdio.h>
#include <stdlib.h>

#include "models/network.h"

typedef struct blocks {
    int n;
    qkv_conv_block layer[];
} blocks;

static int d_out(const qkv_network_config *cfg) { return cfg->encoder.d_model; }

static int create(qkv_encoder *e, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    const qkv_encoder_opts *o = &cfg->encoder;
    blocks *b = calloc(1, sizeof *b + (size_t)cfg->n_layers * sizeof b->layer[0]);
    if (!b)
        return qkv_fail(err, "cnn encoder: out of memory for %d layers", cfg->n_layers);
    e->state = b;
    for (int i = 0; i < cfg->n_layers; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "encoder.layers.%d", i);
        if (qkv_conv_block_create(&b->layer[i], ps, rng, prefix, o->d_model, cfg->cnn_kernel,
                                  cfg->cnn_dilation > 0 ? cfg->cnn_dilation : 1, o->activation, o->dropout, o->ln_eps,
                                  err))
            return QKV_ERR;
        b->n = i + 1;
    }
    return QKV_OK;
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_encoder *e, qkv_tensor *x, qkv_packed sentences, int keep_layer,
                           qkv_attention_weights *keep)
{
    (void)keep_layer, (void)keep;
    const blocks *b = e->state;
    for (int i = 0; i < b->n; i++) {
        qkv_arena_mark m = qkv_tape_mark(tp);
        x = qkv_conv_block_forward(tp, &b->layer[i], x, sentences);
        x = qkv_tape_keep_only(tp, m, x); /* an evaluation pass keeps only the output (lib/tape.h) */
    }
    return x;
}

static void summary(const qkv_network_config *cfg, char *buf, size_t cap)
{
    int dilation = cfg->cnn_dilation > 0 ? cfg->cnn_dilation : 1;
    snprintf(buf, cap, "encoder: cnn, %d blocks of width %d, dilation %d: receptive field %ld words", cfg->n_layers,
             cfg->cnn_kernel, cfg->cnn_dilation, qkv_conv_receptive_field(cfg->n_layers, cfg->cnn_kernel, dilation));
}

static void release(qkv_encoder *e)
{
    free(e->state);
    e->state = NULL;
}

const qkv_encoder_desc qkv_cnn_encoder = {
    .name = "cnn",
    .param_prefixes = (const char *const[]){"encoder.layers.", NULL},
    .takes_positions = false,
    .d_out = d_out,
    .create = create,
    .forward = forward,
    .summary = summary,
    .free = release,
};
