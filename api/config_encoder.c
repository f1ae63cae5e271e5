/* Keys of the model section that only one kind of encoder reads (model.encoder): a key that
 * does not apply to the chosen encoder and is not at its default is a config error naming it,
 * rather than a setting silently ignored. Compared with the schema's default value, so the
 * resolved config a checkpoint stores (every key written out) passes as the file did. */
#include "api/run_config.h"

#include <stdlib.h>
#include <string.h>

#define T (1u << QKV_ENCODER_TRANSFORMER)
#define L (1u << QKV_ENCODER_BILSTM)
#define C (1u << QKV_ENCODER_CNN)

static const struct {
    const char *key;
    unsigned encoders; /* the encoders that read it */
} SCOPE[] = {
    {"n_heads", T},        {"d_ff", T},           {"norm_first", T},     {"positional", T},
    {"max_len", T},        {"pos_overflow", T},   {"attn_window", T},    {"attn_rel_clip", T},
    {"attn_causal", T},    {"attn_normalize", T}, {"attn_scale", T},     {"attn_bias", T},
    {"attn_dropout", T},   {"activation", T | C}, {"lstm_hidden", L},    {"cnn_kernel", C},
    {"cnn_dilation", C},
};

static const char *readers(unsigned enc, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int k = 0; k < QKV_ENCODER_KIND_COUNT; k++)
        if (enc & (1u << k)) {
            size_t n = strlen(buf);
            snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", QKV_ENCODER_KIND_NAMES[k]);
        }
    return buf;
}

int qkv_run_config_check_encoder(const qkv_run_config *cfg, const char *where, qkv_error *err)
{
    const qkv_tagger_config *m = &cfg->model;
    qkv_run_config *def = calloc(1, sizeof *def);
    if (!def)
        return qkv_fail(err, "out of memory");
    int status = qkv_config_parse("{}", 2, "defaults", NULL, QKV_RUN_SCHEMA, QKV_RUN_SCHEMA_LEN, def, NULL, 0, err);
    for (size_t i = 0; status == QKV_OK && i < sizeof SCOPE / sizeof SCOPE[0]; i++) {
        if (SCOPE[i].encoders & (1u << m->encoder_kind))
            continue;
        for (int k = 0; k < QKV_RUN_SCHEMA_LEN; k++) {
            const qkv_cfg_key *key = &QKV_RUN_SCHEMA[k];
            if (strcmp(key->section, "model") || strcmp(key->name, SCOPE[i].key))
                continue;
            size_t size = key->size ? key->size : sizeof(int);
            if (memcmp((const char *)cfg + key->offset, (const char *)def + key->offset, size) != 0) {
                char buf[64];
                status = qkv_fail(err, "%s: model.%s does not apply to model.encoder: %s (it is read by %s only); "
                                       "remove it",
                                  where, key->name, QKV_ENCODER_KIND_NAMES[m->encoder_kind],
                                  readers(SCOPE[i].encoders, buf, sizeof buf));
            }
        }
    }
    if (status == QKV_OK && m->encoder_kind == QKV_ENCODER_BILSTM && m->lstm_hidden == 0 && m->encoder.d_model < 2)
        status = qkv_fail(err, "%s: model.d_model = %d is too small for the default model.lstm_hidden (d_model / 2)",
                          where, m->encoder.d_model);
    if (status == QKV_OK && m->encoder_kind == QKV_ENCODER_CNN && m->cnn_kernel % 2 == 0)
        status = qkv_fail(err, "%s: model.cnn_kernel = %d must be odd (the convolution is centred on each word)", where,
                          m->cnn_kernel);
    free(def);
    return status;
}
