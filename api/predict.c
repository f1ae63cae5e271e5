#include "api/predict.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/run_iter.h"

int qkv_predict(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int32_t *pred, qkv_real *logits_out,
                double *loss_sum, qkv_error *err)
{
    return qkv_predict_shard(m, ds, batch_tokens, 0, 1, pred, logits_out, loss_sum, err);
}

int qkv_predict_shard(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards, int32_t *pred,
                      qkv_real *logits_out, double *loss_sum, qkv_error *err)
{
    return qkv_predict_marked(m, ds, batch_tokens, shard, n_shards, pred, logits_out, loss_sum, NULL, err);
}

/* When qkv_tagger_predict failed on a constrained CRF's batch because a sentence has no allowed
 * path: the batch decoded with those sentences unconstrained (qkv_crf_viterbi_fallback), marked
 * in unconstrained [n_sent of ds] (may be NULL), their batch's loss +inf (the constraints give
 * them no path). Returns QKV_ERR when that was not the failure (the caller's error stands). */
static int decode_fallback(const qkv_tagger *m, const qkv_tensor *logits, qkv_packed sentences, const qkv_batch *b,
                           int32_t *bp, double *batch_loss, uint8_t *unconstrained)
{
    const qkv_crf_head *h = qkv_tagger_crf(m);
    if (!h || !qkv_crf_head_mask(h))
        return QKV_ERR;
    uint8_t *flags = calloc((size_t)sentences.n + 1, 1);
    int n = 0;
    qkv_error ignored;
    if (!flags || qkv_crf_viterbi_fallback(logits, h->transitions, h->start, h->end, sentences, qkv_crf_head_mask(h),
                                           bp, flags, &n, &ignored) || n == 0) {
        free(flags);
        return QKV_ERR;
    }
    for (int s = 0; unconstrained && s < sentences.n; s++)
        if (flags[s])
            unconstrained[qkv_batch_sent_id(b, s)] = 1;
    free(flags);
    *batch_loss = INFINITY;
    return QKV_OK;
}

int qkv_predict_marked(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards, int32_t *pred,
                       qkv_real *logits_out, double *loss_sum, uint8_t *unconstrained, qkv_error *err)
{
    return qkv_predict_parsed(m, ds, batch_tokens, shard, n_shards, pred, NULL, logits_out, loss_sum, unconstrained,
                              err);
}

/* Sentence s of batch b into the dataset-order arrays. */
static void copy_out(const qkv_dataset *ds, const qkv_batch *b, int s, const int32_t *bp, const int32_t *bh,
                     const qkv_tensor *logits, int n_tags, int32_t *pred, int32_t *pred_heads, qkv_real *logits_out)
{
    const int32_t *offsets = qkv_batch_offsets(b);
    int len = offsets[s + 1] - offsets[s], w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s));
    memcpy(pred + w0, bp + offsets[s], (size_t)len * sizeof *pred);
    if (pred_heads)
        memcpy(pred_heads + w0, bh + offsets[s], (size_t)len * sizeof *pred_heads);
    if (logits_out)
        memcpy(logits_out + (size_t)w0 * n_tags, logits->data + (size_t)offsets[s] * n_tags,
               (size_t)len * (size_t)n_tags * sizeof(qkv_real));
}

int qkv_predict_parsed(qkv_tagger *m, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards, int32_t *pred,
                       int32_t *pred_heads, qkv_real *logits_out, double *loss_sum, uint8_t *unconstrained,
                       qkv_error *err)
{
    int n_words = qkv_dataset_n_words(ds), n_tags = m->cfg.n_tags;
    if (qkv_tagger_parses(m) && (logits_out || !pred_heads))
        return qkv_fail(err, "a parser (model.output biaffine) predicts heads, not per-word tag logits");
    for (int w = 0; w < n_words; w++) {
        pred[w] = -1;
        if (pred_heads)
            pred_heads[w] = -1;
    }
    if (loss_sum)
        *loss_sum = 0;
    if (qkv_dataset_n_batchable(ds) == 0)
        return QKV_OK;
    qkv_run_iter it;
    if (qkv_run_iter_init(&it, ds, batch_tokens, true, err) || qkv_run_iter_plan(&it, NULL, err)) {
        qkv_run_iter_free(&it);
        return QKV_ERR;
    }
    int status = QKV_OK;
    /* Longest sentences first: the first batch takes the most arena memory, so the arena does
     * not regrow (fresh pages, page faults) batch after batch as lengths increase. */
    for (int i = qkv_run_iter_n_batches(&it) - 1; i >= 0 && status == QKV_OK; i--) {
        if (i % n_shards != shard)
            continue;
        qkv_tensor *logits = NULL;
        if (qkv_run_iter_fill(&it, i, err) || !(logits = qkv_run_iter_logits(&it, m, -1, NULL, err))) {
            status = QKV_ERR;
            break;
        }
        const qkv_batch *b = &it.batch;
        double batch_loss = 0;
        int32_t *bp = qkv_tape_alloc(&it.tp, (size_t)qkv_batch_n_tokens(b) * sizeof *bp);
        int32_t *bh = qkv_tape_alloc(&it.tp, (size_t)qkv_batch_n_tokens(b) * sizeof *bh);
        if (!bp || !bh ||
            (qkv_tagger_predict_arcs(&it.tp, m, logits, it.in.sentences, qkv_batch_tags(b), qkv_batch_heads(b), bp, bh,
                                     &batch_loss, err) &&
             decode_fallback(m, logits, it.in.sentences, b, bp, &batch_loss, unconstrained))) {
            status = bp && bh ? QKV_ERR : qkv_fail(err, "%s", it.tp.err.msg);
            break;
        }
        if (loss_sum)
            *loss_sum += batch_loss;
        for (int s = 0; s < qkv_batch_n_sent(b); s++)
            copy_out(ds, b, s, bp, bh, logits, n_tags, pred, pred_heads, logits_out);
    }
    qkv_run_iter_free(&it);
    return status;
}

/* One warning naming the first sentence of c decoded without the constraints, and their number. */
static int warn_unconstrained(qkv_session *s, const qkv_corpus *c, const uint8_t *unconstrained, qkv_error *err)
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

int qkv_session_tag(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, qkv_error *err)
{
    return qkv_session_parse(s, c, batch_tokens, tags, NULL, err);
}

int qkv_session_parse(qkv_session *s, const qkv_corpus *c, int batch_tokens, const char **tags, int32_t *heads,
                      qkv_error *err)
{
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    int n_words = c->n_words;
    int32_t *pred = malloc((size_t)(n_words ? n_words : 1) * sizeof *pred);
    int32_t *ph = malloc((size_t)(n_words ? n_words : 1) * sizeof *ph);
    int status = pred && ph ? QKV_OK : qkv_fail(err, "out of memory for %d words", n_words);
    if (status == QKV_OK)
        status = qkv_dataset_encode(&ds, &s->fz, c, NULL, err);
    if (status == QKV_OK)
        status = qkv_session_check_lengths(s, c, &ds, false, err);
    uint8_t *unconstrained = status == QKV_OK ? calloc((size_t)c->n_sent + 1, 1) : NULL;
    if (status == QKV_OK && !unconstrained)
        status = qkv_fail(err, "out of memory for %d sentences", c->n_sent);
    if (status == QKV_OK)
        status = qkv_predict_parsed(&s->model, &ds, batch_tokens, 0, 1, pred, ph, NULL, NULL, unconstrained, err);
    if (status == QKV_OK)
        status = warn_unconstrained(s, c, unconstrained, err);
    free(unconstrained);
    for (int w = 0; status == QKV_OK && w < n_words; w++) {
        tags[w] = pred[w] >= 0 ? qkv_featurizer_tag(&s->fz, pred[w]) : NULL;
        if (heads)
            heads[w] = ph[w];
    }
    qkv_dataset_free(&ds);
    free(pred);
    free(ph);
    return status;
}

/* The k most probable tags of one row of logits [n_tags] (softmax in double), best first, ties
 * to the lower tag id (the argmax qkv_tagger_predict takes). */
static void top_k(const qkv_real *row, int n_tags, int k, int32_t *ids, float *probs)
{
    double mx = row[0], sum = 0;
    for (int t = 1; t < n_tags; t++)
        if (row[t] > mx)
            mx = row[t];
    for (int t = 0; t < n_tags; t++)
        sum += exp((double)row[t] - mx);
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
        probs[j] = (float)(exp((double)row[best] - mx) / sum);
    }
}

int qkv_session_tag_probs(qkv_session *s, const qkv_corpus *c, int batch_tokens, int k, int32_t *ids, float *probs,
                          qkv_error *err)
{
    int n_tags = s->model.cfg.n_tags, n_words = c->n_words;
    if (s->model.cfg.output == QKV_OUTPUT_CRF)
        return qkv_fail(err, "per-word tag probabilities need model.output softmax: a crf model's tags come from "
                             "the Viterbi path of the whole sentence, not from per-word probabilities");
    if (qkv_tagger_parses(&s->model))
        return qkv_fail(err, "per-word tag probabilities need model.output softmax: a biaffine model's labels "
                             "belong to the arcs of its trees");
    if (k < 1 || k > n_tags)
        return qkv_fail(err, "%d best tags asked for, the model has %d tags", k, n_tags);
    qkv_dataset ds;
    memset(&ds, 0, sizeof ds);
    int32_t *pred = malloc((size_t)(n_words ? n_words : 1) * sizeof *pred);
    qkv_real *logits = malloc(((size_t)n_words + 1) * (size_t)n_tags * sizeof *logits);
    int status = pred && logits ? QKV_OK : qkv_fail(err, "out of memory for %d words", n_words);
    if (status == QKV_OK)
        status = qkv_dataset_encode(&ds, &s->fz, c, NULL, err);
    if (status == QKV_OK)
        status = qkv_session_check_lengths(s, c, &ds, false, err);
    if (status == QKV_OK)
        status = qkv_predict(&s->model, &ds, batch_tokens, pred, logits, NULL, err);
    for (int w = 0; status == QKV_OK && w < n_words; w++)
        top_k(logits + (size_t)w * n_tags, n_tags, k, ids + (size_t)w * k, probs + (size_t)w * k);
    qkv_dataset_free(&ds);
    free(pred);
    free(logits);
    return status;
}
