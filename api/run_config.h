/* The resolved configuration of a qkv run: one struct per YAML section. A key fills a field of
 * the library's own option structs where the library has one (the network's config, the feature
 * and reading options of data/, the optimizer's and the schedule's), so that adding a key is
 * the lib field, one schema row and its use; keys no library reads (paths, seeds, steps, log
 * settings) live in the train-side fields here. The schema that names, types, ranges, defaults
 * and documents every key is in api/config_schema.c; the generated key reference is
 * configs/README.md (`qkv config --doc`). */
#ifndef QKV_RUN_CONFIG_H
#define QKV_RUN_CONFIG_H

#include <stdbool.h>

#include "data/corpus.h"
#include "data/features.h"
#include "data/frames.h"
#include "data/image_augment.h"
#include "lib/gemm/backend.h"
#include "lib/io/config.h"
#include "lib/optim/optim.h"
#include "lib/optim/schedule.h"
#include "models/network.h"

typedef enum { QKV_SOURCE_FILES, QKV_SOURCE_SYNTHETIC, QKV_SOURCE_COUNT } qkv_source;
/* "files", "synthetic" (index = value), then NULL. */
extern const char *const QKV_SOURCE_NAMES[];

/* What the model learns, data.task; each value is a row of the task table (api/task.h): tags
 * of words (tag: the words task), labels of characters that give tokens, multiword tokens and
 * sentences (segment: the characters task, data/segment.h), labels of speech frames (frames:
 * corpora made by qkv speech, data/frames.h, read by the frames input kind), one class per image
 * (images: IDX files, read by an image input kind). */
typedef enum { QKV_TASK_TAG, QKV_TASK_SEGMENT, QKV_TASK_FRAMES, QKV_TASK_IMAGES, QKV_TASK_COUNT } qkv_task;
/* "tag", "segment", "frames", "images" (index = value), then NULL. */
extern const char *const QKV_TASK_NAMES[];

typedef enum { QKV_PROGRESS_AUTO, QKV_PROGRESS_ON, QKV_PROGRESS_OFF, QKV_PROGRESS_COUNT } qkv_progress;
/* "auto", "on", "off" (index = value), then NULL. */
extern const char *const QKV_PROGRESS_NAMES[];

typedef struct qkv_data_section {
    qkv_task task;
    qkv_source source;
    char train[QKV_CFG_STR_MAX], dev[QKV_CFG_STR_MAX];
    char segmenter[QKV_CFG_STR_MAX]; /* a segmenter model saved into the run's checkpoints ("": none) */
    qkv_read_opts read;            /* format, tags (tag_field), tag_column */
    int synthetic_train, synthetic_dev, synthetic_seed;
    int max_train_len;             /* 0: no limit */
    int lemma_lexicon_min_count;   /* data.task tag, a LEMMA column: the lemma lexicon's least count
                                      of a training key (data/lemma_lexicon.h); 0 = no lexicon */
    int seg_lexicon_min_count;     /* data.task segment: chunks seen this often in train go into
                                      the lexicon (data/seg_lexicon.h); 0 = no lexicon */
    qkv_feature_config features;   /* the keys fill lower, prefix/suffix_max, shape and the min
                                      counts; word is always on, chars follows model.char_dim and
                                      shape_min_count is feature_min_count (qkv_run_config_load) */
    int batch_tokens;
    /* images (an image input kind, data/idx.h): train and dev are IDX image files, each with
     * its label file beside it (images-idx3 -> labels-idx1 in the name) */
    int image_rows, image_cols, image_channels; /* every image's size */
    int n_classes;                 /* labels 0 .. n_classes - 1 */
    char class_names[QKV_CFG_STR_MAX]; /* comma-separated, n_classes of them; "" = "0", "1", ... */
    double valid_fraction;         /* without data.dev: this part of the training images, drawn
                                      with valid_seed, is the dev set that selects best.h5 */
    int valid_seed;
    qkv_augment_kind augment;      /* training images: random crops and flips (data/image_augment.h) */
    int augment_pad;               /* the crops' padding in pixels */
    qkv_frame_label frame_labels;  /* task frames: what each frame is labelled with */
    char held_out_voice[QKV_CFG_STR_MAX]; /* task frames: the test voice, never trained on */
    int frame_stack;               /* task frames: frames per token (stride = stack) */
} qkv_data_section;

typedef enum { QKV_SELECT_AUTO, QKV_SELECT_ACCURACY, QKV_SELECT_SPAN_F1, QKV_SELECT_COUNT } qkv_select_by;
/* "auto", "accuracy", "span_f1" (index = value), then NULL. */
extern const char *const QKV_SELECT_BY_NAMES[];

typedef struct qkv_train_section {
    int seed, epochs, max_steps;
    double word_dropout, clip_grad_norm;
    double ema_decay;       /* parameter moving average (lib/optim/ema.h); 0: none */
    double label_smoothing; /* ε of the training heads' cross-entropies (models/kinds.h: qkv_gold) */
    int eval_every;         /* steps; 0: at the end of each epoch only */
    int patience;           /* evaluations without improvement; 0: never stop early */
    qkv_select_by select_by; /* the dev score best.h5 and patience follow (train/span_eval.h) */
    int threads;            /* 0: all cores */
    qkv_gemm_backend gemm;  /* float products: auto, openblas or onednn (lib/gemm/backend.h) */
    qkv_gemm_precision precision; /* float products in f32, or bf16 inputs (lib/gemm/bf16.h) */
} qkv_train_section;

typedef struct qkv_optim_section {
    qkv_optim_config optimizer; /* kind (key `name`), lr, betas, eps, weight_decay, momentum */
    qkv_lr_schedule schedule;   /* decay, warmup_steps, min_lr; lr (= optimizer.lr) and
                                   total_steps are the trainer's */
    bool sparse_embeddings;     /* lazy update of the embedding rows a batch touches */
} qkv_optim_section;

typedef struct qkv_checkpoint_section {
    int every_steps;        /* 0: at the end of each epoch */
    bool keep_best;
} qkv_checkpoint_section;

typedef struct qkv_log_section {
    int every_steps;
    qkv_progress progress;
    bool plot;              /* refresh RUN_DIR/plots/loss.png (train/plot/plot_metrics.h) */
    bool plot_log_loss;     /* its loss axis on a log scale */
    bool plot_attention;    /* with plot: RUN_DIR/plots/attention.png after each epoch (train/attention_picture.h) */
    bool tensorboard;       /* also RUN_DIR/events.out.tfevents.* (train/tfevents.h) */
} qkv_log_section;

/* The heads over the encoder, one per tag column of data.tags (data/columns.h): head i predicts
 * column i; head 0 is the model's first head (model.output), the others softmax heads with
 * parameter names "<column>." + the softmax head's. Filled from the list keys at load. */
typedef struct qkv_heads_section {
    char tags[QKV_CFG_STR_MAX];       /* data.tags as loaded: "upos" or "upos,xpos,..." */
    char weights[QKV_CFG_STR_MAX];    /* model.head_weights: "" or "1,0.5,..." */
    char select[QKV_CFG_STR_MAX];     /* train.select_columns: "" or "upos,lemma" */
    int n;                            /* heads = columns of data.tags */
    double weight[QKV_MAX_COLUMNS];   /* each head's loss weight (default 1) */
    bool selected[QKV_MAX_COLUMNS];   /* the heads whose mean dev accuracy selects best.h5 */
    char tag_inputs[QKV_CFG_STR_MAX]; /* model.parser_tag_inputs: "" or "upos,xpos" */
    int n_tag_inputs;                 /* the tagging heads the parser reads ... */
    int tag_input[QKV_NETWORK_MAX_TAG_INPUTS]; /* ... by their index in data.tags */
} qkv_heads_section;

typedef struct qkv_run_config {
    qkv_network_config model;    /* every hyperparameter; the sizes that come from the data
                                   (features, vocabularies, tags, characters) are filled by
                                   qkv_session_model */
    qkv_data_section data;
    qkv_train_section train;
    qkv_optim_section optim;
    qkv_checkpoint_section checkpoint;
    qkv_log_section log;
    qkv_heads_section heads;
} qkv_run_config;

extern const qkv_cfg_key QKV_RUN_SCHEMA[];
extern const int QKV_RUN_SCHEMA_LEN;

/* Loads a config file (path may be NULL: defaults) with --set overrides, then checks the
 * relations between keys (QKV_RUN_RULES: n_heads divides d_model, ...). Fields no key fills keep their
 * library defaults or follow from other keys (see qkv_data_section.features). Errors as
 * lib/io/config.h. */
int qkv_run_config_load(const char *path, char *const *overrides, int n_overrides,
                        qkv_run_config *cfg, qkv_error *err);

/* The same from YAML text (a checkpoint's stored config); name is used in messages. */
int qkv_run_config_parse(const char *text, const char *name, qkv_run_config *cfg, qkv_error *err);

/* Like qkv_run_config_load; keys of a kind that --set switched away from (model.d_ff of the
 * file after --set model.encoder=bilstm) take their defaults and are named in note (cap bytes;
 * "" when none), see lib/io/config.h "Scoped keys". */
int qkv_run_config_load_noted(const char *path, char *const *overrides, int n_overrides, qkv_run_config *cfg,
                              char *note, size_t cap, qkv_error *err);

/* The relations between keys that qkv_run_config_load checks as data (api/config_schema.c). */
extern const qkv_cfg_rule QKV_RUN_RULES[];
extern const int QKV_RUN_RULES_LEN;

/* (api/config_spans.c) Span keys that cannot go together: data.tag_scheme iob1 with
 * model.crf_constrained (the constraints have BIO's and BIOES's rules only), an error
 * "where: data.tag_scheme = iob1 cannot train with model.crf_constrained: ...". */
int qkv_run_config_check_spans(const qkv_run_config *cfg, const char *where, qkv_error *err);

/* (api/config_heads.c) The heads of data.tags (qkv_heads_section: n, the columns of data.read and
 * data.features, weights, selected, tag_input) and model.n_tag_inputs. Errors "where: ..." for
 * no column, model.head_weights not numbers >= 0 or not one per column, train.select_columns
 * naming a column data.tags does not list. */
int qkv_run_config_derive_heads(qkv_run_config *cfg, const char *where, qkv_error *err);
/* (api/config_heads.c) model.parser_tag_inputs: an error "where: ..." unless it is empty, or the
 * model parses (model.output biaffine) and each name is a column of data.tags after the first. */
int qkv_run_config_check_tag_inputs(const qkv_run_config *cfg, const char *where, qkv_error *err);

#endif
