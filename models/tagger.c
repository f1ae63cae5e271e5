#include "models/tagger.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const QKV_ENCODER_KIND_NAMES[] = {"transformer", "bilstm", "cnn", NULL};
_Static_assert(sizeof QKV_ENCODER_KIND_NAMES / sizeof QKV_ENCODER_KIND_NAMES[0] == QKV_ENCODER_KIND_COUNT + 1,
               "one name per qkv_encoder_kind");

static int lstm_hidden(const qkv_tagger_config *cfg)
{
    return cfg->lstm_hidden > 0 ? cfg->lstm_hidden : cfg->encoder.d_model / 2;
}

int qkv_tagger_d_out(const qkv_tagger_config *cfg)
{
    if (cfg->encoder_kind == QKV_ENCODER_BILSTM && cfg->n_layers > 0)
        return 2 * lstm_hidden(cfg);
    return cfg->encoder.d_model;
}

/* The encoder of a bilstm or cnn model (the transformer's blocks are made in qkv_tagger_init). */
static int create_other_encoder(qkv_tagger *m, qkv_rng *rng, qkv_error *err)
{
    const qkv_tagger_config *cfg = &m->cfg;
    const qkv_encoder_opts *e = &cfg->encoder;
    if (cfg->encoder_kind == QKV_ENCODER_BILSTM) {
        if (cfg->n_layers == 0)
            return QKV_OK;
        if (lstm_hidden(cfg) < 1)
            return qkv_fail(err, "tagger: lstm_hidden is 0 and d_model %d is too small to halve", e->d_model);
        return qkv_bilstm_create(&m->lstm, &m->params, rng, "encoder.lstm", cfg->n_layers, e->d_model,
                                 lstm_hidden(cfg), e->dropout, err);
    }
    for (int i = 0; i < cfg->n_layers; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "encoder.layers.%d", i);
        if (qkv_conv_block_create(&m->conv[i], &m->params, rng, prefix, e->d_model, cfg->cnn_kernel,
                                  cfg->cnn_dilation > 0 ? cfg->cnn_dilation : 1, e->activation, e->dropout, e->ln_eps,
                                  err))
            return QKV_ERR;
    }
    return QKV_OK;
}

int qkv_tagger_init(qkv_tagger *m, const qkv_tagger_config *cfg, qkv_rng *rng, qkv_error *err)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    qkv_params_init(&m->params);
    int d = cfg->encoder.d_model;
    if (cfg->n_features < 1 || cfg->n_features > QKV_TAGGER_MAX_FEATURES)
        return qkv_fail(err, "tagger: %d feature kinds, expected 1..%d", cfg->n_features, QKV_TAGGER_MAX_FEATURES);
    if (cfg->n_layers < 0 || cfg->n_layers > QKV_TAGGER_MAX_LAYERS)
        return qkv_fail(err, "tagger: %d layers, expected 0..%d", cfg->n_layers, QKV_TAGGER_MAX_LAYERS);
    if (cfg->n_tags < 1)
        return qkv_fail(err, "tagger: no tags (is the training file empty?)");
    if (d < 1)
        return qkv_fail(err, "tagger: d_model = %d, must be positive", d);

    double embed_std = 1.0 / sqrt((double)cfg->n_features);
    for (int f = 0; f < cfg->n_features; f++) {
        m->embed[f] = qkv_params_add(&m->params, err, 2, (int[]){cfg->vocab_sizes[f], d}, "embed.%s",
                                     cfg->feature_names[f]);
        if (!m->embed[f])
            goto fail;
        qkv_init_normal(m->embed[f], rng, embed_std);
        qkv_params_of(&m->params, m->embed[f])->no_weight_decay = true;
    }
    if (cfg->chars.char_dim > 0) {
        qkv_char_cnn_config cc = cfg->chars;
        cc.d_model = d;
        if (qkv_char_cnn_create(&m->chars, &m->params, rng, &cc, err))
            goto fail;
    }
    bool transformer = cfg->encoder_kind == QKV_ENCODER_TRANSFORMER;
    if (qkv_positional_create(&m->pos, transformer ? cfg->positional : QKV_POS_NONE, d, cfg->max_len, cfg->scale_embeddings, &m->params, rng,
                              "pos", err))
        goto fail;
    m->pos.overflow = cfg->pos_overflow;
    m->pos.rope_base = cfg->rope_base;
    qkv_encoder_opts enc = cfg->encoder; /* rotations and score biases act in every block's attention */
    qkv_positional_attention(&m->pos, &enc.attn);
    if (!transformer && create_other_encoder(m, rng, err))
        goto fail;
    for (int i = 0; transformer && i < cfg->n_layers; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "encoder.layers.%d", i);
        if (qkv_encoder_block_create(&m->layers[i], &m->params, rng, prefix, &enc, err))
            goto fail;
    }
    const int d_out = qkv_tagger_d_out(cfg);
    m->final_gain = qkv_params_add(&m->params, err, 1, (int[]){d_out}, "final_ln.gain");
    m->final_bias = m->final_gain ? qkv_params_add(&m->params, err, 1, (int[]){d_out}, "final_ln.bias") : NULL;
    m->cls_w = m->final_bias ? qkv_params_add(&m->params, err, 2, (int[]){cfg->n_tags, d_out}, "classifier.w") : NULL;
    m->cls_b = m->cls_w ? qkv_params_add(&m->params, err, 1, (int[]){cfg->n_tags}, "classifier.b") : NULL;
    if (!m->cls_b)
        goto fail;
    if (cfg->output == QKV_OUTPUT_CRF &&
        qkv_crf_head_create(&m->crf, &m->params, cfg->n_tags, cfg->crf_constrained, cfg->tag_names, err))
        goto fail;
    m->cfg.tag_names = NULL; /* the caller's, read only here */
    qkv_init_constant(m->final_gain, 1.0);
    qkv_init_xavier_uniform(m->cls_w, rng);
    /* Decay only applies to matrices that mix features: not to biases, norms or tables. */
    for (int i = 0; i < m->params.n; i++)
        if (m->params.items[i]->t.rank == 1)
            m->params.items[i]->no_weight_decay = true;
    return QKV_OK;
fail:
    qkv_crf_head_free(&m->crf);
    qkv_params_free(&m->params);
    return QKV_ERR;
}

void qkv_tagger_free(qkv_tagger *m)
{
    qkv_crf_head_free(&m->crf);
    qkv_params_free(&m->params);
}

qkv_tensor *qkv_tagger_logits(qkv_tape *tp, qkv_tagger *m, const qkv_tagger_input *in, int keep_layer,
                              qkv_attention_weights *keep)
{
    const qkv_tagger_config *cfg = &m->cfg;
    qkv_tensor *x = NULL;
    for (int f = 0; f < cfg->n_features; f++) {
        qkv_tensor *e = qkv_embedding(tp, m->embed[f], in->features[f], qkv_segments_rows(in->sentences));
        x = x ? qkv_add(tp, x, e) : e;
    }
    if (cfg->chars.char_dim > 0) {
        if (!in->chars || !in->words.offsets)
            return qkv_tape_fail(tp, "tagger: the model has a character encoder but the batch has no characters");
        x = qkv_add(tp, x, qkv_char_cnn_forward(tp, &m->chars, in->chars, in->words));
    }
    x = qkv_positional_apply(tp, &m->pos, x, in->sentences);
    x = qkv_dropout(tp, x, cfg->encoder.dropout);
    if (cfg->encoder_kind == QKV_ENCODER_BILSTM && cfg->n_layers > 0)
        x = qkv_bilstm_forward(tp, &m->lstm, x, in->sentences);
    for (int i = 0; cfg->encoder_kind == QKV_ENCODER_CNN && i < cfg->n_layers; i++)
        x = qkv_conv_block_forward(tp, &m->conv[i], x, in->sentences);
    for (int i = 0; cfg->encoder_kind == QKV_ENCODER_TRANSFORMER && i < cfg->n_layers; i++)
        x = qkv_encoder_block_forward(tp, &m->layers[i], x, in->sentences, i == keep_layer ? keep : NULL);
    x = qkv_layer_norm(tp, x, m->final_gain, m->final_bias, cfg->encoder.ln_eps);
    return qkv_linear(tp, x, m->cls_w, m->cls_b);
}

const qkv_tensor *qkv_tagger_table_rows(const qkv_tagger *m, const qkv_tagger_input *in, int i, const int32_t **ids,
                                        int *n_ids)
{
    if (i < m->cfg.n_features) {
        *ids = in->features[i];
        *n_ids = qkv_segments_rows(in->sentences);
        return m->embed[i];
    }
    *ids = in->chars;
    *n_ids = qkv_segments_rows(in->words);
    return m->chars.embed;
}
