/* The bidirectional LSTM encoder kind (models/kinds.h): lib/nn/lstm.h with n_layers layers of
 * lstm_hidden units per direction (0: d_model / 2), no positional encoding (the recurrence
 * orders the tokens). Parameters: encoder.lstm.* (lib/nn/lstm.h). d_out = 2·hidden, or d_model
 * with no layers (then the encoder is the identity). */
#include <stdlib.h>

#include "models/network.h"

static int hidden(const qkv_network_config *cfg)
{
    return cfg->lstm_hidden > 0 ? cfg->lstm_hidden : cfg->encoder.d_model / 2;
}

static int d_out(const qkv_network_config *cfg) { return cfg->n_layers > 0 ? 2 * hidden(cfg) : cfg->encoder.d_model; }

static int create(qkv_encoder *e, qkv_params *ps, qkv_rng *rng, const qkv_network_config *cfg, qkv_error *err)
{
    if (cfg->n_layers == 0)
        return QKV_OK;
    if (hidden(cfg) < 1)
        return qkv_fail(err, "model: lstm_hidden is 0 and d_model %d is too small to halve", cfg->encoder.d_model);
    qkv_bilstm *lstm = calloc(1, sizeof *lstm);
    if (!lstm)
        return qkv_fail(err, "bilstm encoder: out of memory");
    e->state = lstm;
    return qkv_bilstm_create(lstm, ps, rng, "encoder.lstm", cfg->n_layers, cfg->encoder.d_model, hidden(cfg),
                             cfg->encoder.dropout, err);
}

static qkv_tensor *forward(qkv_tape *tp, const qkv_encoder *e, qkv_tensor *x, qkv_packed sentences, int keep_layer,
                           qkv_attention_weights *keep)
{
    (void)keep_layer, (void)keep;
    return e->state ? qkv_bilstm_forward(tp, e->state, x, sentences) : x;
}

static void release(qkv_encoder *e)
{
    free(e->state);
    e->state = NULL;
}

const qkv_encoder_desc qkv_bilstm_encoder = {
    .name = "bilstm",
    .param_prefixes = (const char *const[]){"encoder.lstm.", NULL},
    .takes_positions = false,
    .d_out = d_out,
    .create = create,
    .forward = forward,
    .free = release,
};
