/* The Transformer encoder kind (models/kinds.h): n_layers blocks of lib/nn/encoder.h over the
 * positioned token vectors; rotary and score-bias positions act in every block's attention
 * (cfg->encoder.attn as qkv_positional_attention set it).
 * Parameters: encoder.layers.<i>.* (lib/nn/encoder.h). d_out = d_model. */
#include <stdio.h>
#include <stdlib.h>

#include "models/network.h"

typedef struct blocks {
    int n;
    qkv_encoder_block layer[];
} blocks;

static int d_out(const qkv_network_config *cfg) { return cfg->encoder.d_model; }

static int create(qkv_encoder *e, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    blocks *b = calloc(1, sizeof *b + (size_t)cfg->n_layers * sizeof b->layer[0]);
    if (!b)
        return qkv_fail(err, "transformer encoder: out of memory for %d layers", cfg->n_layers);
    e->state = b;
    qkv_encoder_opts enc = cfg->encoder; /* the positions' rotation and score bias set by the network */
    for (int i = 0; i < cfg->n_layers; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "encoder.layers.%d", i);
        if (qkv_encoder_block_create(&b->layer[i], ps, rng, prefix, &enc, err))
            return QKV_ERR;
        b->n = i + 1;
    }
    return QKV_OK;
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_encoder *e, qkv_tensor *x, qkv_packed sentences, int keep_layer,
                           qkv_attention_weights *keep)
{
    const blocks *b = e->state;
    for (int i = 0; i < b->n; i++) {
        qkv_arena_mark m = qkv_tape_mark(tp);
        x = qkv_encoder_block_forward(tp, &b->layer[i], x, sentences, i == keep_layer ? keep : NULL);
        if (!keep || i != keep_layer) /* an evaluation pass keeps only the output (lib/tape.h) */
            x = qkv_tape_keep_only(tp, m, x);
    }
    return x;
}

static const qkv_encoder_block *attention_block(const qkv_encoder *e, int i)
{
    const blocks *b = e->state;
    return b && i >= 0 && i < b->n ? &b->layer[i] : NULL;
}

static void release(qkv_encoder *e)
{
    free(e->state);
    e->state = NULL;
}

const qkv_encoder_desc qkv_transformer_encoder = {
    .name = "transformer",
    .param_prefixes = (const char *const[]){"encoder.layers.", NULL},
    .takes_positions = true,
    .d_out = d_out,
    .create = create,
    .forward = forward,
    .attention_block = attention_block,
    .free = release,
};
