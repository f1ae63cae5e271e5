/* The task table: what a sequence is made of and how its data is read, one descriptor per task
 * in its own file (api/task_<name>.c), as a model's parts are one descriptor per kind
 * (models/kinds.h). The reading half lives here; what train/ prints for a task is its row of
 * train/task_report.h (reports) and of train/cli/task_cli.h (tag output, attention pictures,
 * the options that apply).
 *
 *   words       tags of the words of sentences (CoNLL-U or column files, or the synthetic corpus)
 *   characters  labels of the characters of paragraphs that give tokens and sentences
 *               (data.task: segment, data/segment.h)
 *   frames      labels of the frames of utterances (data.task: frames, data/frames.h)
 *   images      one class per image of IDX files (data.task: images; an input kind with a patch hook: pixels,
 *               patches; data/idx.h)
 *
 * qkv_session_data, qkv_session_read_scored, the session's model, the model file loader, the
 * trainer and train/'s commands dispatch on the rows. What is still asked outside them: whether
 * a model is a segmenter (`segments`: a segmenter is refused where a tagger is wanted, and bundled
 * with one), and whether a model given images to classify reads them (qkv_session_classify). */
#ifndef QKV_TASK_H
#define QKV_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "data/batch.h"
#include "lib/error.h"
#include "lib/io/store.h"
#include "models/network.h"
#include "api/run_config.h"

typedef struct qkv_session qkv_session;

/* One row per task: X(ENUM, name). The row makes QKV_TASK_KIND_<ENUM> and the entry of
 * QKV_TASK_DESCS. */
#define QKV_TASK_KINDS(X) X(WORDS, words) X(CHARACTERS, characters) X(FRAMES, frames) X(IMAGES, images)

typedef enum {
#define QKV_TASK_KIND_ENUM(E, n) QKV_TASK_KIND_##E,
    QKV_TASK_KINDS(QKV_TASK_KIND_ENUM)
#undef QKV_TASK_KIND_ENUM
    QKV_TASK_KIND_COUNT
} qkv_task_kind;

typedef struct qkv_task_desc {
    const char *name;          /* "words", "characters", "frames", "images" */
    /* What the reports call a position and a sequence, plural, and a sequence singular ("by
       sentence length"), and the unit of the training progress line ("tok/s"): a frame model's
       count "frames" (tokens: data.frame_stack frames each) and "utterances". */
    const char *word_unit, *sentence_unit, *sentence_one, *rate_unit;
    /* The training (load_train) and dev data of the session's config into s->train, s->dev
       (and their corpora), the featurizer first unless it is set (from a model file).
       Errors: the readers', no data to train or score on. */
    int (*data)(qkv_session *s, bool load_train, qkv_error *err);
    /* The file at path, scored by qkv eval, as the session's dev set (s->dev_c, s->dev, and
       the task's own dev state), read with the model's data settings. Errors: the readers'. */
    int (*read_scored)(qkv_session *s, const char *path, qkv_error *err);
    /* The model sizes the task implies, into tc (as configured, with the featurizer's sizes):
       the input kind and d_input of frames, the grid and d_input of images. NULL: none.
       Errors: sizes that do not fit (model.patch_size that does not divide the images). */
    int (*model_sizes)(const qkv_session *s, qkv_network_config *tc, qkv_error *err);
    /* What a model file holds for the task beyond the config, vocabularies and parameters,
       read before the model is built (params: the file's parameter group). NULL: nothing. */
    int (*load_state)(qkv_session *s, qkv_store_reader *r, const char *params, qkv_error *err);
    /* A training batch augmented under the step's key (data.augment). NULL: never. */
    int (*augment)(const qkv_session *s, qkv_batch *b, uint64_t key, qkv_error *err);
    /* The model labels characters: it segments raw text for a tagger and is not one. */
    bool segments;
} qkv_task_desc;

extern const qkv_task_desc qkv_task_words, qkv_task_characters, qkv_task_frames, qkv_task_images;
/* Indexed by qkv_task_kind. */
extern const qkv_task_desc *const QKV_TASK_DESCS[QKV_TASK_KIND_COUNT];

/* The row of a resolved config's data.task: tag words, segment characters, frames frames,
 * images images (a config of an image input that says tag is resolved as images). */
qkv_task_kind qkv_task_of(const qkv_run_config *cfg);

#endif
