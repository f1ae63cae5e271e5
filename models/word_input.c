/* The word input kind (models/kinds.h): each token's features (data/features.h: word, lower,
 * suffixes, ...) looked up in one embedding table per feature kind and summed, plus with
 * chars.char_dim > 0 the character encoder's vector of the word (models/char_cnn.h).
 * Parameters: embed.<feature> [vocab_size, d_model], N(0, 1/n_features) so that the sum has
 * unit variance, not weight-decayed; chars.* (models/char_cnn.h). */
#include <math.h>
#include <stdlib.h>

#include "lib/ops/ops.h"
#include "models/network.h"

typedef struct words {
    int n_features;
    qkv_tensor *embed[QKV_NETWORK_MAX_FEATURES];
    bool has_chars;
    qkv_char_cnn chars;
} words;

static int create(qkv_input *in, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    words *w = calloc(1, sizeof *w);
    if (!w)
        return qkv_fail(err, "word input: out of memory");
    in->state = w;
    int d = cfg->encoder.d_model;
    double embed_std = 1.0 / sqrt((double)cfg->n_features);
    for (int f = 0; f < cfg->n_features; f++) {
        w->embed[f] = qkv_params_add(ps, err, 2, (int[]){cfg->vocab_sizes[f], d}, "embed.%s", cfg->feature_names[f]);
        if (!w->embed[f])
            return QKV_ERR;
        qkv_init_normal(w->embed[f], rng, embed_std);
        qkv_params_of(ps, w->embed[f])->no_weight_decay = true;
        w->n_features = f + 1;
    }
    if (cfg->chars.char_dim > 0) {
        qkv_char_cnn_config cc = cfg->chars;
        cc.d_model = d;
        if (qkv_char_cnn_create(&w->chars, ps, rng, &cc, err))
            return QKV_ERR;
        w->has_chars = true;
    }
    return QKV_OK;
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_input *in, const qkv_network_input *batch)
{
    const words *w = in->state;
    qkv_tensor *x = NULL;
    for (int f = 0; f < w->n_features; f++) {
        qkv_tensor *e = qkv_embedding(tp, w->embed[f], batch->features[f], qkv_packed_rows(batch->sentences));
        x = x ? qkv_add(tp, x, e) : e;
    }
    if (w->has_chars) {
        if (!batch->chars || !batch->words.offsets)
            return qkv_tape_fail(tp, "the model has a character encoder but the batch has no characters");
        x = qkv_add(tp, x, qkv_char_cnn_forward(tp, &w->chars, batch->chars, batch->words));
    }
    return x;
}

/* embed.<feature> in feature order, then chars.embed. */
static int n_tables(const qkv_input *in)
{
    const words *w = in->state;
    return w->n_features + w->has_chars;
}

static const qkv_tensor *table_rows(const qkv_input *in, const qkv_network_input *batch, int i, const int32_t **ids,
                                    int *n_ids)
{
    const words *w = in->state;
    if (i < w->n_features) {
        *ids = batch->features[i];
        *n_ids = qkv_packed_rows(batch->sentences);
        return w->embed[i];
    }
    *ids = batch->chars;
    *n_ids = qkv_packed_rows(batch->words);
    return w->chars.embed;
}

static void release(qkv_input *in)
{
    free(in->state);
    in->state = NULL;
}

const qkv_input_desc qkv_words_input = {
    .name = "words",
    .param_prefixes = (const char *const[]){"embed.", "chars.", NULL},
    .create = create,
    .forward = forward,
    .n_tables = n_tables,
    .table_rows = table_rows,
    .free = release,
};
