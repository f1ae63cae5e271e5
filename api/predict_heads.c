/* Prediction with every head of a model (see predict.h: qkv_predict_heads). */
#include "api/predict.h"

#include <stdlib.h>
#include <string.h>

#include "api/run_iter.h"
#include "data/columns.h"

/* Every head's prediction of the batch it->batch into pred[h] (dataset order); loss_sum[h] += the
 * summed loss of its gold-tagged words. */
static int predict_batch(qkv_run_iter *it, qkv_tagger *m, const qkv_dataset *ds, int32_t *const *pred,
                         double *loss_sum, qkv_error *err)
{
    qkv_tensor *hidden = qkv_run_iter_hidden(it, m, err);
    if (!hidden)
        return QKV_ERR;
    const qkv_batch *b = &it->batch;
    int32_t *bp = qkv_tape_alloc(&it->tp, (size_t)qkv_batch_n_tokens(b) * sizeof *bp);
    if (!bp)
        return qkv_fail(err, "%s", it->tp.err.msg);
    for (int h = 0; h < qkv_tagger_n_outputs(m); h++) {
        const qkv_head *head = qkv_tagger_head(m, h);
        qkv_tensor *logits = head->desc->logits(&it->tp, head, hidden);
        double loss = 0;
        if (!logits)
            return qkv_fail(err, "%s", it->tp.err.msg);
        if (head->desc->predict(&it->tp, head, logits, it->in.sentences, qkv_batch_column_tags(b, h), bp, &loss, err))
            return QKV_ERR;
        if (loss_sum)
            loss_sum[h] += loss;
        const int32_t *offsets = qkv_batch_offsets(b);
        for (int s = 0; s < qkv_batch_n_sent(b); s++) {
            int len = offsets[s + 1] - offsets[s], w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s));
            memcpy(pred[h] + w0, bp + offsets[s], (size_t)len * sizeof *bp);
        }
    }
    return QKV_OK;
}

int qkv_predict_heads(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                      int32_t *const *pred, double *loss_sum, qkv_error *err)
{
    int n_heads = qkv_tagger_n_outputs(m), n_words = qkv_dataset_n_words(ds);
    if (qkv_dataset_n_columns(ds) != n_heads)
        return qkv_fail(err, "the model has %d heads, the data %d tag columns", n_heads, qkv_dataset_n_columns(ds));
    for (int h = 0; h < n_heads; h++) {
        for (int w = 0; w < n_words; w++)
            pred[h][w] = -1;
        if (loss_sum)
            loss_sum[h] = 0;
    }
    if (qkv_dataset_n_batchable(ds) == 0)
        return QKV_OK;
    qkv_run_iter it;
    int status = qkv_run_iter_init(&it, ds, batch_tokens, true, err) || qkv_run_iter_plan(&it, NULL, err);
    for (int i = qkv_run_iter_n_batches(&it) - 1; i >= 0 && status == QKV_OK; i--)
        if (i % n_shards == shard)
            status = qkv_run_iter_fill(&it, i, err) || predict_batch(&it, m, ds, pred, loss_sum, err);
    qkv_run_iter_free(&it);
    return status ? QKV_ERR : QKV_OK;
}

/* Room for the lemmas head h's classes pred give the words of c (qkv_column_value). */
static size_t lemma_room(const qkv_session *s, const qkv_corpus *c, int h, const int32_t *pred)
{
    size_t room = 1;
    for (int w = 0; w < c->n_words; w++) {
        size_t flen;
        qkv_corpus_form(c, w, &flen);
        const char *cls = pred[w] >= 0 ? qkv_featurizer_class(&s->fz, h, pred[w]) : "";
        room += QKV_COLUMN_VALUE_ROOM(flen, strlen(cls)) + flen + 1;
    }
    return room;
}

/* Head h's lemma of every word of c from its predicted scripts pred into out->values[LEMMA]
 * (strings in out->lemmas); a script that does not apply gives the form (counted). */
static int decode_lemmas(qkv_session *s, const qkv_corpus *c, int h, const int32_t *pred, qkv_tagged *out,
                         qkv_error *err)
{
    size_t room = lemma_room(s, c, h, pred), used = 0;
    if (!(out->lemmas = malloc(room)))
        return qkv_fail(err, "out of memory for the lemmas of %d words", c->n_words);
    const char **v = out->values[QKV_TAG_LEMMA];
    for (int w = 0; w < c->n_words; w++) {
        size_t flen;
        const char *form = qkv_corpus_form(c, w, &flen);
        char *at = out->lemmas + used;
        const char *lemma = pred[w] >= 0 ? qkv_column_value(QKV_TAG_LEMMA, form, flen, qkv_featurizer_class(&s->fz, h, pred[w]), at)
                                         : NULL;
        if (!lemma && pred[w] >= 0 && out->n_lemma_fallback++ == 0)
            out->first_fallback = w;
        if (!lemma) {
            memcpy(at, form, flen);
            at[flen] = '\0';
        }
        v[w] = pred[w] >= 0 ? at : NULL;
        used += strlen(at) + 1;
    }
    if (out->n_lemma_fallback)
        return qkv_warnings_add(&s->warnings, err,
                                "%.200s:%d: %d word%s a predicted lemma edit script that does not apply to the form, "
                                "the first here; the lemma is the form", qkv_corpus_name(c),
                                c->word_line[out->first_fallback], out->n_lemma_fallback,
                                out->n_lemma_fallback == 1 ? " has" : "s have");
    return QKV_OK;
}

int qkv_session_tag_fields(qkv_session *s, const qkv_corpus *c, int batch_tokens, qkv_tagged *out, qkv_error *err)
{
    memset(out, 0, sizeof *out);
    int n_heads = qkv_tagger_n_outputs(&s->model), n_words = c->n_words;
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    int32_t *pred[QKV_MAX_COLUMNS] = {0};
    int status = n_heads <= QKV_MAX_COLUMNS ? QKV_OK : qkv_fail(err, "%d heads, at most %d", n_heads, QKV_MAX_COLUMNS);
    for (int h = 0; h < n_heads && status == QKV_OK; h++)
        if (!(pred[h] = malloc(((size_t)n_words + 1) * sizeof *pred[h])) ||
            !(out->values[s->fz.columns[h]] = calloc((size_t)n_words + 1, sizeof(char *))))
            status = qkv_fail(err, "out of memory for %d words", n_words);
    if (status == QKV_OK)
        status = qkv_dataset_encode(&ds, &s->fz, c, NULL, err);
    if (status == QKV_OK)
        status = qkv_session_check_lengths(s, c, &ds, false, err);
    if (status == QKV_OK)
        status = qkv_predict_heads(&s->model, &ds, batch_tokens, 0, 1, pred, NULL, err);
    for (int h = 0; h < n_heads && status == QKV_OK; h++) {
        qkv_tag_field col = s->fz.columns[h];
        if (col == QKV_TAG_LEMMA)
            status = decode_lemmas(s, c, h, pred[h], out, err);
        else
            for (int w = 0; w < n_words; w++)
                out->values[col][w] = pred[h][w] >= 0 ? qkv_featurizer_class(&s->fz, h, pred[h][w]) : NULL;
    }
    for (int h = 0; h < QKV_MAX_COLUMNS; h++)
        free(pred[h]);
    qkv_dataset_free(&ds);
    if (status != QKV_OK)
        qkv_tagged_free(out);
    return status;
}

void qkv_tagged_free(qkv_tagged *t)
{
    for (int k = 0; k < QKV_TAG_FIELD_COUNT; k++)
        free(t->values[k]);
    free(t->lemmas);
    memset(t, 0, sizeof *t);
}
