#include "api/predict.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/run_iter.h"
#include "api/task.h"
#include "qkv/qkv.h"

int qkv_predict(qkv_network *m, const qkv_dataset *ds, int batch_tokens, int32_t *pred, qkv_real *logits_out,
                double *loss_sum, qkv_error *err)
{
    return qkv_predict_shard(m, ds, QKV_ALL_BATCHES(batch_tokens), pred, logits_out, loss_sum, err);
}

int qkv_predict_shard(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, int32_t *pred, qkv_real *logits_out,
                      double *loss_sum, qkv_error *err)
{
    return qkv_predict_marked(m, ds, b, pred, logits_out, loss_sum, NULL, err);
}

/* What one batch of a prediction writes, in dataset order. */
typedef struct predict_out {
    int32_t *pred;          /* [n_words] tag ids (may be NULL) */
    qkv_real *logits;       /* [n_words, n_tags] (may be NULL) */
    double *probs;          /* [n_words, n_tags] per-token tag probabilities (may be NULL) */
    double *loss_sum;       /* (may be NULL) */
    uint8_t *unconstrained; /* [n_sent] (may be NULL) */
    uint8_t *flags;         /* [B] scratch of one batch */
} predict_out;

/* Batch b (with its logits) into o: tags (and loss), or probabilities. An error about one of its
 * sentences names it by its index in ds (err->sentence). */
static int predict_batch(qkv_tape *tp, const qkv_network *m, const qkv_dataset *ds, const qkv_batch *b,
                         qkv_packed sentences, qkv_tensor *logits, const predict_out *o, qkv_error *err)
{
    uint8_t *flags = o->flags;
    int T = qkv_batch_n_tokens(b), B = qkv_batch_n_sent(b), n_tags = m->cfg.n_tags;
    int32_t *bp = o->pred ? qkv_tape_alloc(tp, (size_t)T * sizeof *bp) : NULL;
    int32_t *bh = o->pred ? qkv_tape_alloc(tp, (size_t)T * sizeof *bh) : NULL; /* a parser's arcs: not kept */
    double *pb = o->probs ? qkv_tape_alloc(tp, (size_t)T * (size_t)n_tags * sizeof *pb) : NULL;
    double batch_loss = 0;
    if ((o->pred && (!bp || !bh)) || (o->probs && !pb)) {
        *err = tp->err;
        return QKV_ERR;
    }
    qkv_gold gold = {.tags = qkv_batch_tags(b), .arcs = qkv_batch_arcs(b)};
    int status = o->pred ? qkv_network_head_predict(tp, m, 0, logits, sentences, &gold,
                                                   &(qkv_prediction){bp, bh, &batch_loss, flags}, err)
                         : qkv_network_probs(m, logits, sentences, pb, flags, err);
    if (status) {
        if (err->sentence >= 0 && err->sentence < B)
            err->sentence = qkv_batch_sent_id(b, err->sentence);
        return QKV_ERR;
    }
    if (o->loss_sum)
        *o->loss_sum += batch_loss;
    const int32_t *offsets = qkv_batch_offsets(b);
    for (int i = 0; i < B; i++) {
        int len = offsets[i + 1] - offsets[i], s = qkv_batch_sent_id(b, i), w0 = qkv_dataset_sent_first(ds, s);
        size_t row = (size_t)offsets[i] * n_tags, n = (size_t)len * n_tags;
        if (o->unconstrained && flags[i])
            o->unconstrained[s] = 1;
        if (bp)
            memcpy(o->pred + w0, bp + offsets[i], (size_t)len * sizeof *o->pred);
        if (pb)
            memcpy(o->probs + (size_t)w0 * n_tags, pb + row, n * sizeof *pb);
        if (o->logits)
            memcpy(o->logits + (size_t)w0 * n_tags, logits->data + row, n * sizeof(qkv_real));
    }
    return QKV_OK;
}

/* Every batch of bt's shard of ds, longest sentences first, into o. */
static int predict_batches(qkv_network *m, const qkv_dataset *ds, const qkv_batching *bt, predict_out *o,
                           qkv_error *err)
{
    int batch_tokens = bt->batch_tokens, shard = bt->shard, n_shards = bt->n_shards;
    if ((o->logits || o->probs) && !qkv_network_tag_scores(m))
        return qkv_fail(err, "a parser (model.output biaffine) predicts heads, not per-word tag logits");
    for (int w = 0; o->pred && w < qkv_dataset_n_words(ds); w++)
        o->pred[w] = -1;
    if (o->loss_sum)
        *o->loss_sum = 0;
    if (qkv_dataset_n_batchable(ds) == 0)
        return QKV_OK;
    qkv_run_iter it;
    if (qkv_run_iter_init(&it, ds, batch_tokens, true, err) || qkv_run_iter_plan(&it, NULL, err)) {
        qkv_run_iter_free(&it);
        return QKV_ERR;
    }
    uint8_t *flags = o->flags = malloc((size_t)qkv_batch_plan_max_sent(&it.plan) + 1);
    int status = flags ? QKV_OK : qkv_fail(err, "out of memory for the flags of a batch");
    /* Longest sentences first: the first batch takes the most arena memory, so the arena does
     * not regrow (fresh pages, page faults) batch after batch as lengths increase. */
    for (int i = qkv_run_iter_n_batches(&it) - 1; i >= 0 && status == QKV_OK; i--) {
        if (i % n_shards != shard)
            continue;
        qkv_tensor *logits = NULL;
        if (qkv_run_iter_fill(&it, i, err) || !(logits = qkv_run_iter_logits(&it, m, -1, NULL, err)))
            status = QKV_ERR;
        else
            status = predict_batch(&it.tp, m, ds, &it.batch, it.in.sentences, logits, o, err);
    }
    free(flags);
    qkv_run_iter_free(&it);
    return status;
}

int qkv_predict_marked(qkv_network *m, const qkv_dataset *ds, const qkv_batching *b, int32_t *pred,
                       qkv_real *logits_out, double *loss_sum, uint8_t *unconstrained, qkv_error *err)
{
    predict_out o = {pred, logits_out, NULL, loss_sum, unconstrained, NULL};
    return predict_batches(m, ds, b, &o, err);
}

int qkv_predict_probs(qkv_network *m, const qkv_dataset *ds, int batch_tokens, double *probs, uint8_t *unconstrained,
                      qkv_error *err)
{
    predict_out o = {NULL, NULL, probs, NULL, unconstrained, NULL};
    return predict_batches(m, ds, QKV_ALL_BATCHES(batch_tokens), &o, err);
}

int qkv_session_warn_unconstrained(qkv_session *s, const qkv_corpus *c, const uint8_t *unconstrained,
                                   qkv_error *err)
{
    int n = 0, first = -1;
    for (int i = 0; i < c->n_sent; i++)
        if (unconstrained[i] && (n++, first < 0))
            first = i;
    if (!n)
        return QKV_OK;
    return qkv_warnings_add(&s->warnings, err,
                            "%.200s:%d: %d sentence%s no tag sequence model.crf_constrained allows (no tag of the "
                            "model may start, continue or end %s), the first here; tagged without the constraints",
                            qkv_corpus_name(c), qkv_corpus_first_word_line(c, first), n,
                            n == 1 ? " has" : "s have", n == 1 ? "it" : "them");
}

int qkv_session_max_words(const qkv_session *s) { return s->max_words > 0 ? s->max_words : QKV_MAX_WORDS; }

int qkv_session_check_sentence_words(const qkv_session *s, int n, const char *subject, const char *hint,
                                     qkv_error *err)
{
    int max = qkv_session_max_words(s);
    if (n <= max)
        return QKV_OK;
    return qkv_fail(err, "%s %d words, more than the %d a sentence may have (a parser's memory grows with a "
                         "sentence's words squared%s)", subject, n, max, hint);
}

int qkv_session_check_words(const qkv_session *s, const qkv_corpus *c, const char *hint, qkv_error *err)
{
    for (int k = 0; k < c->n_sent; k++)
        if (qkv_session_check_sentence_words(s, qkv_corpus_sent_len(c, k), "a sentence of", hint, err)) {
            err->sentence = k;
            return QKV_ERR;
        }
    return QKV_OK;
}

/* The k most probable tags of one row of probabilities [n_tags], best first, ties to the lower
 * tag id (the argmax qkv_network_predict takes). */
static void top_k(const double *row, int n_tags, int k, int32_t *ids, float *probs)
{
    for (int j = 0; j < k; j++) {
        int best = -1;
        for (int t = 0; t < n_tags; t++) {
            bool taken = false;
            for (int i = 0; i < j && !taken; i++)
                taken = ids[i] == t;
            if (!taken && (best < 0 || row[t] > row[best]))
                best = t;
        }
        ids[j] = best;
        probs[j] = (float)row[best];
    }
}

int qkv_session_tag_probs(qkv_session *s, const qkv_corpus *c, int batch_tokens, int k, int32_t *ids, float *probs,
                          qkv_error *err)
{
    int n_tags = s->model.cfg.n_tags, n_words = c->n_words;
    if (!qkv_network_tag_scores(&s->model))
        return qkv_fail(err, "per-word tag probabilities need model.output softmax or crf: a biaffine model's labels "
                             "belong to the arcs of its trees");
    if (k < 1 || k > n_tags)
        return qkv_fail(err, "%d best tags asked for, the model has %d tags", k, n_tags);
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    double *p = malloc(((size_t)n_words + 1) * (size_t)n_tags * sizeof *p);
    uint8_t *unconstrained = calloc((size_t)c->n_sent + 1, 1);
    int status = p && unconstrained ? QKV_OK : qkv_fail(err, "out of memory for %d words", n_words);
    if (status == QKV_OK)
        status = qkv_session_check_words(s, c, "", err);
    if (status == QKV_OK)
        status = qkv_dataset_encode(&ds, &s->fz, c, NULL, err);
    if (status == QKV_OK)
        status = qkv_session_check_lengths(s, c, &ds, false, err);
    if (status == QKV_OK)
        status = qkv_predict_probs(&s->model, &ds, batch_tokens, p, unconstrained, err);
    if (status == QKV_OK)
        status = qkv_session_warn_unconstrained(s, c, unconstrained, err);
    else
        qkv_session_name_sentence(c, err);
    for (int w = 0; status == QKV_OK && w < n_words; w++)
        top_k(p + (size_t)w * n_tags, n_tags, k, ids + (size_t)w * k, probs + (size_t)w * k);
    qkv_dataset_free(&ds);
    free(p);
    free(unconstrained);
    return status;
}

/* p [n] = the softmax of logits row [n] (computed in double). */
static void softmax_row(const qkv_real *row, int n, double *p)
{
    double mx = row[0], sum = 0;
    for (int t = 1; t < n; t++)
        mx = row[t] > mx ? row[t] : mx;
    for (int t = 0; t < n; t++)
        sum += p[t] = exp((double)row[t] - mx);
    for (int t = 0; t < n; t++)
        p[t] /= sum;
}

int qkv_session_classify(qkv_session *s, const qkv_images *im, int batch_tokens, int32_t *classes, float *probs,
                         qkv_error *err)
{
    const qkv_data_section *d = &s->cfg.data;
    if (qkv_session_task(s) != &qkv_task_images)
        return qkv_fail(err, "%.300s: the model reads words (model.input %s), not images", im->name,
                        QKV_INPUT_KIND_NAMES[s->cfg.model.input_kind]);
    if (im->rows != d->image_rows || im->cols != d->image_cols || im->channels != d->image_channels)
        return qkv_fail(err, "%.300s: images of %d x %d pixels x %d channels, the model's are %d x %d x %d", im->name,
                        im->rows, im->cols, im->channels, d->image_rows, d->image_cols, d->image_channels);
    qkv_images unlabelled = *im;
    unlabelled.labels = NULL;
    qkv_dataset ds;
    qkv_corpus c;
    if (qkv_session_image_dataset(s, &unlabelled, &ds, &c, err))
        return QKV_ERR;
    qkv_corpus_free(&c);
    int n_tags = s->model.cfg.n_tags, n_words = qkv_dataset_n_words(&ds);
    int32_t *pred = malloc(((size_t)n_words + 1) * sizeof *pred);
    qkv_real *logits = malloc(((size_t)n_words + 1) * (size_t)n_tags * sizeof *logits);
    int status = pred && logits ? QKV_OK : qkv_fail(err, "out of memory for %d images", im->n);
    if (status == QKV_OK)
        status = qkv_predict(&s->model, &ds, batch_tokens, pred, logits, NULL, err);
    double *p = status == QKV_OK ? malloc((size_t)n_tags * sizeof *p) : NULL;
    if (status == QKV_OK && !p)
        status = qkv_fail(err, "out of memory for %d classes", n_tags);
    for (int i = 0; status == QKV_OK && i < im->n; i++) { /* every token holds its image's logits */
        softmax_row(logits + (size_t)qkv_dataset_sent_first(&ds, i) * n_tags, n_tags, p);
        top_k(p, n_tags, 1, classes + i, probs + i);
    }
    free(p);
    qkv_dataset_free(&ds);
    free(pred);
    free(logits);
    return status;
}
