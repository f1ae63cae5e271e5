/* A session's data for data.task frames (api/session.h: qkv_session_frames). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/session.h"
#include "api/speech_store.h"

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

int qkv_session_frames(qkv_session *s, bool load_train, qkv_error *err)
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
