/* A session: everything one qkv command works with, built from a config (for `train`) or from
 * a checkpoint (for `eval`, `tag`, `attention`): the resolved config, the featurizer and its
 * vocabularies, the corpora and their encoded datasets, and the model. */
#ifndef QKV_SESSION_H
#define QKV_SESSION_H

#include "data/batch.h"
#include "data/corpus.h"
#include "data/dataset.h"
#include "data/features.h"
#include "data/idx.h"
#include "data/lemma_lexicon.h"
#include "data/seg_lexicon.h"
#include "data/image_augment.h"
#include "models/network.h"
#include "api/run_config.h"

typedef struct qkv_session {
    qkv_run_config cfg;
    char *config_text;          /* resolved config as YAML (malloc'd) */
    char config_note[1024];     /* keys of a kind --set switched away from, ignored ("" = none;
                                   printed by the command, qkv_run_config_load_noted) */
    qkv_featurizer fz;
    bool fz_ready;
    qkv_corpus train_c, dev_c;
    qkv_dataset train, dev;
    bool has_train, has_dev;
    /* the frames task: the held-out voice's utterances of the dev file (the test), and what
       the frame scores need of dev and test (data/frames.h) */
    qkv_dataset test;
    bool has_test;
    qkv_frame_refs dev_refs, test_refs;
    int frames_d_input;         /* a frame model's d_input read from a model file (no data needed) */
    qkv_warnings warnings;      /* printed by the command */
    qkv_seg_lexicon seg_lexicon; /* a segmenter's lexicon: from the training file
                                    (data.lexicon_min_count) or the model file's /lexicon */
    struct {                    /* the UPOS/XPOS pairs of the training file (api/tag_pairs.h) */
        int n_upos, n_xpos;     /* the two heads' classes when they were collected */
        uint8_t *allowed;       /* [n_upos * n_xpos] 1: seen; NULL: none kept */
    } tag_pairs;
    qkv_lemma_lexicon lemma_lexicon; /* the lemmas of training forms (api/lemma_lexicon.h) */
    qkv_network model;
    bool model_ready;
    int max_words;              /* the most words a sentence the session tags may have (api/predict.h:
                                   qkv_session_max_words); 0: QKV_MAX_WORDS of include/qkv/qkv.h */
} qkv_session;

void qkv_session_init(qkv_session *s);
void qkv_session_free(qkv_session *s);

/* Loads the config file with overrides and keeps its resolved text (and config_note). */
int qkv_session_config(qkv_session *s, const char *path, char *const *overrides, int n_overrides, qkv_error *err);
/* The descriptor of the session's task (api/task.h: words, characters, frames or images), as
 * its config names it. */
const struct qkv_task_desc *qkv_session_task(const qkv_session *s);
/* Reads (or generates, for data.source: synthetic) the training and dev data as the session's
 * task reads them (api/task.h), builds the featurizer from the training data unless it is
 * already set (from a model file), and encodes both. load_train false: only dev (used by
 * commands that do not train). Errors: the readers', no data to train or score on. */
int qkv_session_data(qkv_session *s, bool load_train, qkv_error *err);
/* Reads the file at path, to be scored, as the session's dev set (s->dev_c, s->dev, a frame
 * model's test), as the task reads it with the model's data settings: every word tagged (a gold
 * tag of _ is not scored), every sentence within the model's length limits; a frame model's
 * path is a frame corpus read as its dev file (its held-out voice's utterances are the test).
 * Errors: the readers'. */
int qkv_session_read_scored(qkv_session *s, const char *path, qkv_error *err);
/* --- api/task_images.c: the images task --- */
/* Reads the IDX image file at path (data/idx.h), with labels the label file beside it (its name
 * with labels-idx1 for images-idx3) checked against data.n_classes. Errors: the reader's, images
 * of another size than data.image_rows x image_cols x image_channels ("FILE: images of ..."). */
int qkv_session_read_images(const qkv_session *s, const char *path, bool labels, qkv_images *im, qkv_error *err);
/* im as the model's dataset (qkv_dataset_from_images with the input's patch and the [CLS]
 * token), and c an empty corpus that only names it (for messages). */
int qkv_session_image_dataset(const qkv_session *s, const qkv_images *im, qkv_dataset *ds, qkv_corpus *c,
                              qkv_error *err);
/* The layout of an image model's tokens (data.image_*, the input's patch, the [CLS] token) for
 * data/image_augment.h. Only for a session of the images task. */
qkv_image_layout qkv_session_image_layout(const qkv_session *s);

/* The network of the config with the featurizer's vocabulary sizes, initialised from seed. */
int qkv_session_model(qkv_session *s, uint64_t seed, qkv_error *err);
/* The same model with its parameters allocated but not initialised, for a checkpoint to fill
 * (drawing initial weights that a load overwrites cost ~2% of an evaluation). max_values: the
 * most scalar parameter values the model may have, 0 for no bound (a model file's config is
 * bounded by what its /params stores, lib/io/store.h: qkv_store_count_values); a larger model
 * is refused at its first parameter past the bound, before that one is allocated. */
int qkv_session_model_to_load(qkv_session *s, size_t max_values, qkv_error *err);
/* Checks the gold tags of c (encoded in ds), with warnings: span tags but a few
 * (qkv_corpus_warn_stray_tags), and with model.crf_constrained, gold sequences the constraints
 * forbid read for the loss as conlleval reads them (data/dataset.h: qkv_dataset_repair_spans);
 * evaluation still scores ds->tags. training: ds is the training set. A parser's gold trees are
 * checked (data/corpus.h: qkv_corpus_check_trees); a file it is scored on (not training) needs
 * every word's HEAD. Errors: those, out of memory. */
int qkv_session_check_gold(qkv_session *s, const qkv_corpus *c, qkv_dataset *ds, bool training, qkv_error *err);
/* Refuses data the model cannot take, before any work is done: with learned positions and
 * model.pos_overflow: error, a sentence of ds (encoded from c) longer than model.max_len is an
 * error "FILE:LINE: sentence of N words is longer than model.max_len M ..." naming its first
 * word's line. training: ds is the training set (the hint then names data.max_train_len). */
/* One line about the encoder of s's model for the start of a run, written to buf (cap bytes):
 * for a cnn "encoder: cnn, 2 blocks of width 3, dilation 2: receptive field 9 words"; "" when
 * there is nothing beyond the config to say. */
void qkv_session_encoder_summary(const qkv_session *s, char *buf, size_t cap);

/* An error about one sentence of c (err->sentence: its index in c, or in a dataset encoded
 * from it) becomes "NAME:LINE: ..." naming the line of its first word, and err->sentence -1;
 * any other error stays as it is. Returns QKV_ERR. */
int qkv_session_name_sentence(const qkv_corpus *c, qkv_error *err);
int qkv_session_check_lengths(const qkv_session *s, const qkv_corpus *c, const qkv_dataset *ds, bool training,
                              qkv_error *err);

#endif
