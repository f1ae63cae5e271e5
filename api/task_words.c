/* The task words (api/task.h): tags of the words of sentences, read from CoNLL-U or column
 * files (data.read) or generated (data.source synthetic); and what the tasks of text (words,
 * characters) share: reading, encoding and checking their corpora. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/lemma_lexicon.h"
#include "api/tag_pairs.h"
#include "api/task.h"
#include "api/task_internal.h"
#include "data/synthetic.h"

/* The synthetic corpus of n sentences from seed, generated in memory and read as CoNLL-U. */
static int synthetic_corpus(qkv_corpus *c, const char *name, int n, uint64_t seed, qkv_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return qkv_fail(err, "out of memory for the synthetic corpus");
    int status = qkv_synth_write(mem, n, seed, err);
    fclose(mem);
    if (status == QKV_OK)
        status = qkv_corpus_read_mem(c, text, len, name, &QKV_READ_DEFAULTS, err);
    free(text);
    return status;
}

/* The training corpus read (or generated), the featurizer built from it unless set, encoded,
 * checked and cut to data.max_train_len; the UPOS/XPOS pairs it shows (api/tag_pairs.h) and its lemma lexicon
 * (api/lemma_lexicon.h). */
static int train_data(qkv_session *s, qkv_task_read_fn read, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    int st = d->source == QKV_SOURCE_SYNTHETIC
                 ? synthetic_corpus(&s->train_c, "synthetic-train", d->synthetic_train, (uint64_t)d->synthetic_seed, err)
                 : read(s, &s->train_c, d->train, &s->seg_lexicon, err);
    if (st)
        return QKV_ERR;
    if (!s->fz_ready) {
        if (qkv_featurizer_build(&s->fz, &d->features, &s->train_c, err))
            return QKV_ERR;
        s->fz_ready = true;
    }
    if (qkv_dataset_encode(&s->train, &s->fz, &s->train_c, &s->warnings, err) ||
        qkv_dataset_require_tags(&s->train, &s->train_c, &s->fz, err) ||
        qkv_session_check_gold(s, &s->train_c, &s->train, true, err))
        return QKV_ERR;
    if ((d->max_train_len > 0 && qkv_dataset_keep_max_len(&s->train, d->max_train_len, err)) ||
        qkv_session_check_lengths(s, &s->train_c, &s->train, true, err))
        return QKV_ERR;
    if (qkv_dataset_n_batchable(&s->train) == 0)
        return qkv_fail(err, "%s: no sentence with words to train on", qkv_corpus_name(&s->train_c));
    s->has_train = true;
    if (qkv_tag_pairs_build(s, err))
        return QKV_ERR;
    return s->train_c.fields ? qkv_session_lemma_lexicon_build(s, &s->train_c, err) : QKV_OK;
}

/* s->dev_c (read already) encoded into s->dev against the featurizer and checked. */
static int encode_dev(qkv_session *s, qkv_error *err)
{
    return qkv_dataset_encode(&s->dev, &s->fz, &s->dev_c, &s->warnings, err) ||
                   qkv_dataset_require_tags(&s->dev, &s->dev_c, &s->fz, err) ||
                   qkv_session_check_gold(s, &s->dev_c, &s->dev, false, err) ||
                   qkv_session_check_lengths(s, &s->dev_c, &s->dev, false, err)
               ? QKV_ERR
               : QKV_OK;
}

int qkv_task_text_data(qkv_session *s, bool load_train, qkv_task_read_fn read, qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    bool synthetic = d->source == QKV_SOURCE_SYNTHETIC;
    if (load_train && train_data(s, read, err))
        return QKV_ERR;
    if (!synthetic && !d->dev[0])
        return QKV_OK;
    int st = synthetic ? synthetic_corpus(&s->dev_c, "synthetic-dev", d->synthetic_dev,
                                          (uint64_t)d->synthetic_seed + 1000003u, err)
                       : read(s, &s->dev_c, d->dev, NULL, err);
    if (st)
        return QKV_ERR;
    if (!s->fz_ready)
        return qkv_fail(err, "no vocabulary: load a checkpoint or the training data first");
    if (encode_dev(s, err))
        return QKV_ERR;
    if (qkv_dataset_n_words(&s->dev) == 0)
        return qkv_fail(err, "%s: no words to evaluate on (data.dev)", qkv_corpus_name(&s->dev_c));
    s->has_dev = true;
    return QKV_OK;
}

int qkv_task_text_scored(qkv_session *s, const char *path, qkv_task_read_fn read, qkv_error *err)
{
    return read(s, &s->dev_c, path, NULL, err) || encode_dev(s, err) ? QKV_ERR : QKV_OK;
}

/* A corpus of tagged words, read with data.read. */
static int read_words(const qkv_session *s, qkv_corpus *c, const char *path, qkv_seg_lexicon *lexicon, qkv_error *err)
{
    (void)lexicon;
    return qkv_corpus_read(c, path, &s->cfg.data.read, err);
}

static int words_data(qkv_session *s, bool load_train, qkv_error *err)
{
    return qkv_task_text_data(s, load_train, read_words, err);
}

static int words_scored(qkv_session *s, const char *path, qkv_error *err)
{
    return qkv_task_text_scored(s, path, read_words, err);
}

const qkv_task_desc qkv_task_words = {
    .name = "words",
    .word_unit = "words",
    .sentence_unit = "sentences",
    .sentence_one = "sentence",
    .rate_unit = "tok",
    .data = words_data,
    .read_scored = words_scored,
};
