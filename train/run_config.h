/* The resolved configuration of a qkv run: one struct per YAML section. The schema that
 * names, types, ranges, defaults and documents every key is in train/config_schema.c; the
 * generated key reference is configs/README.md (`qkv config-doc`). */
#ifndef QKV_RUN_CONFIG_H
#define QKV_RUN_CONFIG_H

#include <stdbool.h>

#include "lib/io/config.h"

enum { QKV_SOURCE_FILES, QKV_SOURCE_SYNTHETIC };
enum { QKV_OPT_ADAMW, QKV_OPT_ADAM, QKV_OPT_SGD };

typedef struct qkv_model_section {
    int d_model, n_heads, n_layers, d_ff;
    int activation;         /* qkv_ffn_activation (lib/nn/encoder.h): relu, gelu */
    bool norm_first;        /* pre-LN (true) or post-LN */
    int positional;         /* qkv_pos_kind (lib/nn/positional.h): none, sinusoidal, learned */
    int max_len;            /* learned table rows */
    int pos_overflow;       /* qkv_pos_overflow (lib/nn/positional.h): error, clamp */
    bool scale_embeddings;  /* multiply summed embeddings by sqrt(d_model) */
    int attn_window;        /* 0: whole sentence */
    int attn_rel_clip;      /* relative position biases for offsets -K..K; 0: none */
    bool attn_causal;
    int attn_normalize;     /* qkv_attn_normalize (lib/ops/attention.h): softmax, relu */
    double attn_scale;      /* 0: 1/sqrt(d_head) */
    bool attn_bias;
    double dropout, attn_dropout;
    double ln_eps;
    int char_dim;           /* character encoder (models/char_cnn.h); 0: none */
    int char_filters, char_width;
} qkv_model_section;

typedef struct qkv_data_section {
    int source;             /* QKV_SOURCE_* */
    char train[QKV_CFG_STR_MAX], dev[QKV_CFG_STR_MAX];
    int format;             /* index = data/corpus.h qkv_format: auto, conllu, columns */
    int tags;               /* index = data/corpus.h qkv_tag_field: upos, xpos */
    int tag_column;         /* columns format: 1-based column of the tag; 0 = last */
    int synthetic_train, synthetic_dev, synthetic_seed;
    int max_train_len;      /* 0: no limit */
    int word_min_count, feature_min_count, char_min_count;
    bool lowercase, shape;
    int prefix_len, suffix_len; /* at most QKV_MAX_AFFIX (6) */
    int batch_tokens;
} qkv_data_section;

typedef struct qkv_train_section {
    int seed, epochs, max_steps;
    double word_dropout, clip_grad_norm;
    double ema_decay;       /* parameter moving average (lib/optim/ema.h); 0: none */
    int eval_every;         /* steps; 0: at the end of each epoch only */
    int patience;           /* evaluations without improvement; 0: never stop early */
    int threads;            /* 0: all cores */
} qkv_train_section;

typedef struct qkv_optim_section {
    int name;               /* QKV_OPT_* */
    double lr, beta1, beta2, eps, weight_decay, momentum;
    int warmup_steps;
    int decay;              /* qkv_lr_decay (lib/optim/schedule.h): none, linear, cosine */
    double min_lr;
} qkv_optim_section;

typedef struct qkv_checkpoint_section {
    int every_steps;        /* 0: at the end of each epoch */
    bool keep_best;
} qkv_checkpoint_section;

typedef struct qkv_log_section {
    int every_steps;
    int progress;           /* 0 auto, 1 on, 2 off */
    bool plot;              /* refresh RUN_DIR/plots/loss.png (train/plot/plot_metrics.h) */
} qkv_log_section;

typedef struct qkv_run_config {
    qkv_model_section model;
    qkv_data_section data;
    qkv_train_section train;
    qkv_optim_section optim;
    qkv_checkpoint_section checkpoint;
    qkv_log_section log;
} qkv_run_config;

extern const qkv_cfg_key QKV_RUN_SCHEMA[];
extern const int QKV_RUN_SCHEMA_LEN;

/* Loads a config file (path may be NULL: defaults) with --set overrides, then checks the
 * relations between keys (n_heads divides d_model, ...). Errors as lib/config.h. */
int qkv_run_config_load(const char *path, char *const *overrides, int n_overrides,
                        qkv_run_config *cfg, qkv_error *err);

/* The same from YAML text (a checkpoint's stored config); name is used in messages. */
int qkv_run_config_parse(const char *text, const char *name, qkv_run_config *cfg, qkv_error *err);

#endif
