/* The task frames (api/task.h, data.task: frames): labels of the frames of speech
 * utterances (data/frames.h, frame corpora made by qkv speech): an utterance is a sequence and
 * a frame (or data.frame_stack stacked frames) a position; the model's input is the frames kind
 * (models/frames_input.c), as wide as the corpus's frames. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/session.h"
#include "api/speech_store.h"
#include "api/task.h"

/* The featurizer of a frame model: no token features are read, the tags are the corpus's
 * label names of the chosen kind. */
static int frame_featurizer(qkv_session *s, const qkv_frame_corpus *fc, qkv_error *err)
{
    const qkv_label_names *l = s->cfg.data.frame_labels == QKV_FRAME_PHONEME ? &fc->phones : &fc->upos_names;
    if (qkv_featurizer_init(&s->fz, &s->cfg.data.features, err)) /* its kinds are never read */
        return QKV_ERR;
    s->fz_ready = true;
    return qkv_featurizer_set_tags(&s->fz, (const char *const *)l->names, l->n, err);
}

/* The corpus's name for messages, as a read corpus keeps it. */
static int name_corpus(qkv_corpus *c, const char *path, qkv_error *err)
{
    free(c->name);
    c->name = strdup(path);
    return c->name ? QKV_OK : qkv_fail(err, "out of memory");
}

/* The dev corpus's token vectors are as wide as the training data's, or as the loaded model's
 * (frames.w [d_model, d_input]): n_mels of qkv speech times data.frame_stack. */
static int check_width(const qkv_session *s, qkv_error *err)
{
    int want = s->has_train ? qkv_dataset_d_input(&s->train) : s->frames_d_input, got = qkv_dataset_d_input(&s->dev);
    if (want > 0 && got != want)
        return qkv_fail(err, "%.300s: frames of %d values (mel bands x data.frame_stack %d), %s %d", s->cfg.data.dev,
                        got, s->cfg.data.frame_stack > 0 ? s->cfg.data.frame_stack : 1,
                        s->has_train ? "the training data's have" : "the model reads", want);
    return QKV_OK;
}

/* Whether fc has utterances of voice and of other voices (both parts of the held-out split). */
static bool splits(const qkv_frame_corpus *fc, const char *voice)
{
    int n = 0;
    for (int u = 0; u < fc->n_utt; u++)
        n += !strcmp(fc->voice[u], voice);
    return n > 0 && n < fc->n_utt;
}

static int load_dev(qkv_session *s, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    qkv_frame_corpus fc;
    if (qkv_frame_corpus_load(&fc, d->dev, err))
        return QKV_ERR;
    /* Without training data (qkv eval of a model), a file without both parts is scored whole:
     * the held-out split applies to it only when it has the voice and others. */
    const char *voice = d->held_out_voice;
    if (!s->has_train && voice[0] && !splits(&fc, voice))
        voice = "";
    qkv_frame_select sel = {d->frame_labels, voice, 0, d->frame_stack};
    int st = qkv_dataset_from_frames(&s->dev, &s->dev_refs, &s->fz, &fc, d->dev, &sel, err);
    if (st == QKV_OK && voice[0]) {
        sel.keep_voice = 1;
        st = qkv_dataset_from_frames(&s->test, &s->test_refs, &s->fz, &fc, d->dev, &sel, err);
        s->has_test = st == QKV_OK;
    }
    qkv_frame_corpus_free(&fc);
    if (st || name_corpus(&s->dev_c, d->dev, err))
        return QKV_ERR;
    s->has_dev = true;
    return check_width(s, err);
}

/* The training file's utterances but the held-out voice's (data.held_out_voice) as the
 * training set, its label names (of data.frame_labels) as the tags unless the featurizer is set
 * (from a model file); the dev file's other voices as dev, the held-out voice's as the test
 * (none without such a voice). Without load_train (a model's evaluation), a dev file that lacks
 * the held-out voice or has only it is dev as a whole, no test. Errors: the files'
 * (api/speech_store.h), no utterance left (data/frames.h). */
static int frames_data(qkv_session *s, bool load_train, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    if (d->source != QKV_SOURCE_FILES)
        return qkv_fail(err, "data.task = frames needs frame corpora (data.source files, made by qkv speech)");
    if (load_train) {
        qkv_frame_corpus fc;
        if (qkv_frame_corpus_load(&fc, d->train, err))
            return QKV_ERR;
        qkv_frame_select sel = {d->frame_labels, d->held_out_voice, 0, d->frame_stack};
        int st = s->fz_ready ? QKV_OK : frame_featurizer(s, &fc, err);
        if (st == QKV_OK)
            st = qkv_dataset_from_frames(&s->train, NULL, &s->fz, &fc, d->train, &sel, err);
        qkv_frame_corpus_free(&fc);
        if (st || name_corpus(&s->train_c, d->train, err))
            return QKV_ERR;
        s->has_train = true;
    }
    if (!d->dev[0])
        return QKV_OK;
    if (!s->fz_ready)
        return qkv_fail(err, "no labels: load a checkpoint or the training data first");
    return load_dev(s, err);
}

/* A scored frame corpus is read as the dev file is. */
static int frames_scored(qkv_session *s, const char *path, qkv_error *err)
{
    snprintf(s->cfg.data.dev, sizeof s->cfg.data.dev, "%s", path);
    return frames_data(s, false, err);
}

/* The frames input, as wide as the training data's frames, the dev data's, or the model
 * file's (frames.w [d_model, d_input]); no token features. */
static int frames_model_sizes(const qkv_session *s, qkv_network_config *tc, qkv_error *err)
{
    (void)err;
    tc->input_kind = QKV_INPUT_FRAMES;
    tc->n_features = 0;
    tc->d_input = s->has_train ? qkv_dataset_d_input(&s->train)
                  : s->has_dev ? qkv_dataset_d_input(&s->dev)
                               : s->frames_d_input;
    return QKV_OK;
}

/* The frame width of a model file, from the shape of frames.w (s->frames_d_input). */
static int frames_load_state(qkv_session *s, qkv_store_reader *r, const char *params, qkv_error *err)
{
    char w[80];
    int rank, shape[QKV_MAX_RANK];
    snprintf(w, sizeof w, "%s/frames.w", params);
    int status = qkv_store_shape(r, w, &rank, shape, err);
    s->frames_d_input = status == QKV_OK && rank == 2 ? shape[1] : 0;
    return status;
}

const qkv_task_desc qkv_task_frames = {
    .name = "frames",
    .word_unit = "frames",
    .sentence_unit = "utterances",
    .sentence_one = "utterance",
    .rate_unit = "frames",
    .data = frames_data,
    .read_scored = frames_scored,
    .model_sizes = frames_model_sizes,
    .load_state = frames_load_state,
};
