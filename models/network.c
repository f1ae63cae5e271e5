/* The network: input -> positions -> encoder -> final layer norm -> heads (models/network.h). */
#include "models/network.h"

#include <string.h>

#include "lib/ops/ops.h"

int qkv_network_d_out(const qkv_network_config *cfg)
{
    return (unsigned)cfg->encoder_kind < QKV_ENCODER_KIND_COUNT ? QKV_ENCODER_DESCS[cfg->encoder_kind]->d_out(cfg)
                                                               : cfg->encoder.d_model;
}

int qkv_network_image_grid(qkv_network_config *cfg, int rows, int cols, int channels, qkv_error *err)
{
    if ((unsigned)cfg->input_kind >= QKV_INPUT_KIND_COUNT || !QKV_INPUT_DESCS[cfg->input_kind]->patch)
        return QKV_OK;
    int p = QKV_INPUT_DESCS[cfg->input_kind]->patch(cfg);
    if (rows < 1 || cols < 1 || channels < 1 || p < 1)
        return qkv_fail(err, "images of %d x %d pixels x %d channels in patches of %d: sizes must be positive", rows,
                        cols, channels, p);
    if (rows % p || cols % p)
        return qkv_fail(err, "model.patch_size %d does not divide the images' %d x %d pixels", p, rows, cols);
    cfg->grid = (qkv_grid){rows / p, cols / p, cfg->cls_token ? 1 : 0};
    cfg->d_input = p * p * channels;
    return QKV_OK;
}

/* The 2-D parts need a 2-D grid of tokens (an image input); each error names its key. */
static int check_grid(const qkv_network_config *cfg, qkv_error *err)
{
    if (qkv_grid_is_2d(cfg->grid))
        return QKV_OK;
    const char *none = "needs a 2-D grid of tokens (an image input); this model's input has none";
    bool attention = cfg->encoder_kind == QKV_ENCODER_TRANSFORMER;
    if (attention && (unsigned)cfg->positional < QKV_POS_COUNT && QKV_POS_DESCS[cfg->positional]->needs_grid)
        return qkv_fail(err, "model.positional = %s %s", QKV_POS_KIND_NAMES[cfg->positional], none);
    if (attention && cfg->encoder.attn.window_2d > 0)
        return qkv_fail(err, "model.attn_window_2d = %d %s", cfg->encoder.attn.window_2d, none);
    if (cfg->encoder_kind == QKV_ENCODER_CNN2D)
        return qkv_fail(err, "model.encoder = cnn2d %s", none);
    return QKV_OK;
}

static int check_config(const qkv_network_config *cfg, qkv_error *err)
{
    int min_features = cfg->input_kind == QKV_INPUT_WORDS; /* other inputs read no features */
    if (cfg->n_features < min_features || cfg->n_features > QKV_NETWORK_MAX_FEATURES)
        return qkv_fail(err, "model: %d feature kinds, expected %d..%d", cfg->n_features, min_features, QKV_NETWORK_MAX_FEATURES);
    if (cfg->n_layers < 0 || cfg->n_layers > QKV_NETWORK_MAX_LAYERS)
        return qkv_fail(err, "model: %d layers, expected 0..%d", cfg->n_layers, QKV_NETWORK_MAX_LAYERS);
    if (cfg->n_tags < 1)
        return qkv_fail(err, "model: no tags (is the training file empty?)");
    if (cfg->encoder.d_model < 1)
        return qkv_fail(err, "model: d_model = %d, must be positive", cfg->encoder.d_model);
    if ((unsigned)cfg->input_kind >= QKV_INPUT_KIND_COUNT || (unsigned)cfg->encoder_kind >= QKV_ENCODER_KIND_COUNT)
        return qkv_fail(err, "model: unknown input kind %d or encoder kind %d", (int)cfg->input_kind,
                        (int)cfg->encoder_kind);
    return check_grid(cfg, err);
}

/* Biases, norms and tables (rank 1 or flagged by their part) are not weight-decayed: decay
 * only applies to matrices that mix features. From parameter `from` on. */
static void no_decay_vectors(qkv_params *ps, int from)
{
    for (int i = from; i < ps->n; i++)
        if (ps->items[i]->t.rank == 1)
            ps->items[i]->no_weight_decay = true;
}

/* Appends a head of spec over inputs [T, d_in] (qkv_network_add_head). */
static int add_head(qkv_network *m, const qkv_head_spec *spec, int d_in, qkv_rng *rng, qkv_error *err)
{
    if (m->n_outputs == QKV_NETWORK_MAX_HEADS)
        return qkv_fail(err, "model: at most %d heads", QKV_NETWORK_MAX_HEADS);
    int first = m->params.n;
    qkv_head *h = &m->heads[m->n_outputs++]; /* counted now: freed with the model on failure */
    if (qkv_head_create(h, &m->params, rng, d_in, spec, err))
        return QKV_ERR;
    no_decay_vectors(&m->params, first);
    return QKV_OK;
}

/* Head 0 over the encoder output, widened by the parser's tag inputs (models/network_tag_inputs.c). */
static int add_first_head(qkv_network *m, const qkv_head_spec *head, qkv_rng *rng, qkv_error *err)
{
    const qkv_network_config *cfg = &m->cfg;
    if (cfg->n_tag_inputs == 0)
        return add_head(m, head, m->encoder.d_out, rng, err);
    if (cfg->output != QKV_OUTPUT_BIAFFINE)
        return qkv_fail(err, "model: tag inputs are a parser's (output biaffine), not the %s head's",
                        QKV_OUTPUT_NAMES[cfg->output]);
    if (cfg->n_tag_inputs < 0 || cfg->n_tag_inputs > QKV_NETWORK_MAX_TAG_INPUTS || cfg->tag_input_dim < 1)
        return qkv_fail(err, "model: %d tag inputs of width %d, expected 0..%d of a positive width",
                        cfg->n_tag_inputs, cfg->tag_input_dim, QKV_NETWORK_MAX_TAG_INPUTS);
    return add_head(m, head, m->encoder.d_out + cfg->n_tag_inputs * cfg->tag_input_dim, rng, err);
}

int qkv_network_init(qkv_network *m, const qkv_network_config *cfg, qkv_rng *rng, qkv_error *err)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    qkv_params_init(&m->params);
    m->params.max_values = cfg->max_param_values;
    if (check_config(cfg, err))
        return QKV_ERR;
    m->input.desc = QKV_INPUT_DESCS[cfg->input_kind];
    m->encoder.desc = QKV_ENCODER_DESCS[cfg->encoder_kind];
    int d = cfg->encoder.d_model;
    if (m->input.desc->create(&m->input, &m->params, rng, cfg, err))
        goto fail;
    qkv_pos_kind pos = m->encoder.desc->takes_positions ? cfg->positional : QKV_POS_NONE;
    if (qkv_positional_create_grid(&m->pos, pos, d, cfg->max_len, cfg->grid, cfg->scale_embeddings, &m->params, rng,
                                   "pos", err))
        goto fail;
    m->pos.overflow = cfg->pos_overflow;
    m->pos.rope_base = cfg->rope_base;
    m->pos.clip_2d = cfg->rel2d_clip;
    qkv_network_config ecfg = *cfg; /* rotations and score biases act in every block's attention */
    qkv_positional_attention(&m->pos, &ecfg.encoder.attn);
    ecfg.encoder.attn.grid = cfg->grid;
    m->encoder.d_out = m->encoder.desc->d_out(cfg);
    if (m->encoder.desc->create(&m->encoder, &m->params, rng, &ecfg, err))
        goto fail;
    const int d_out = m->encoder.d_out;
    m->final_gain = qkv_params_add(&m->params, err, 1, (int[]){d_out}, "final_ln.gain");
    m->final_bias = m->final_gain ? qkv_params_add(&m->params, err, 1, (int[]){d_out}, "final_ln.bias") : NULL;
    if (!m->final_bias)
        goto fail;
    qkv_init_constant(m->final_gain, 1.0);
    qkv_head_spec head = {.kind = cfg->output, .prefix = "", .tagset = "", .n_tags = cfg->n_tags,
                          .tag_names = cfg->tag_names, .loss_weight = 1, .crf_constrained = cfg->crf_constrained,
                          .biaffine = cfg->biaffine,
                          .pool = cfg->pool};
    head.biaffine.dropout = cfg->encoder.dropout;
    if (add_first_head(m, &head, rng, err))
        goto fail;
    m->cfg.tag_names = NULL; /* the caller's, read only here */
    no_decay_vectors(&m->params, 0);
    return QKV_OK;
fail:
    qkv_network_free(m);
    return QKV_ERR;
}

int qkv_network_add_head(qkv_network *m, const qkv_head_spec *spec, qkv_rng *rng, qkv_error *err)
{
    return add_head(m, spec, m->encoder.d_out, rng, err);
}

void qkv_network_free(qkv_network *m)
{
    for (int i = 0; i < m->n_outputs; i++)
        qkv_head_free(&m->heads[i]);
    m->n_outputs = 0;
    if (m->encoder.desc)
        m->encoder.desc->free(&m->encoder);
    if (m->input.desc)
        m->input.desc->free(&m->input);
    qkv_params_free(&m->params);
}

const qkv_encoder_block *qkv_network_block(const qkv_network *m, int i)
{
    const qkv_encoder_desc *e = m->encoder.desc;
    return e && e->attention_block ? e->attention_block(&m->encoder, i) : NULL;
}

qkv_tensor *qkv_network_hidden(qkv_tape *tp, qkv_network *m, const qkv_network_input *in, int keep_layer,
                              qkv_attention_weights *keep)
{
    qkv_tensor *x = m->input.desc->forward(tp, &m->input, in);
    x = qkv_positional_apply(tp, &m->pos, x, in->sentences);
    x = qkv_dropout(tp, x, m->cfg.encoder.dropout);
    x = m->encoder.desc->forward(tp, &m->encoder, x, in->sentences, keep_layer, keep);
    return qkv_layer_norm(tp, x, m->final_gain, m->final_bias, m->cfg.encoder.ln_eps);
}

qkv_tensor *qkv_network_logits(qkv_tape *tp, qkv_network *m, const qkv_network_input *in, int keep_layer,
                              qkv_attention_weights *keep)
{
    qkv_tensor *x = qkv_network_hidden(tp, m, in, keep_layer, keep);
    x = qkv_network_head_input(tp, m, 0, x, in->sentences, NULL);
    return qkv_head_logits(tp, &m->heads[0], x, in->sentences);
}

const qkv_tensor *qkv_network_table_rows(const qkv_network *m, const qkv_network_input *in, int i, const int32_t **ids,
                                        int *n_ids)
{
    return m->input.desc->table_rows(&m->input, in, i, ids, n_ids);
}
