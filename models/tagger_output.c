/* The output layer of the tagger: loss and prediction, softmax or CRF (models/tagger.h). */
#include "models/tagger.h"

#include <math.h>

const char *const QKV_OUTPUT_NAMES[] = {"softmax", "crf", NULL};
_Static_assert(sizeof QKV_OUTPUT_NAMES / sizeof QKV_OUTPUT_NAMES[0] == QKV_OUTPUT_COUNT + 1,
               "one name per qkv_output_kind");

static int gold_count(const int32_t *tags, int n)
{
    int count = 0;
    for (int t = 0; t < n; t++)
        count += tags[t] >= 0;
    return count;
}

qkv_tensor *qkv_tagger_loss(qkv_tape *tp, const qkv_tagger *m, qkv_tensor *logits, qkv_segments sentences,
                            const int32_t *tags)
{
    if (m->cfg.output != QKV_OUTPUT_CRF)
        return qkv_cross_entropy(tp, logits, tags);
    const qkv_crf_head *h = &m->crf;
    qkv_tensor *nll = qkv_crf_nll(tp, logits, h->transitions, h->start, h->end, sentences, tags, qkv_crf_head_mask(h));
    int count = nll ? gold_count(tags, qkv_segments_rows(sentences)) : 0;
    return qkv_scale(tp, nll, count ? 1.0 / count : 0.0);
}

int qkv_tagger_predict(qkv_tape *tp, const qkv_tagger *m, qkv_tensor *logits, qkv_segments sentences,
                       const int32_t *gold, int32_t *pred, double *loss_sum, qkv_error *err)
{
    int T = qkv_segments_rows(sentences), n_tags = m->cfg.n_tags;
    if (m->cfg.output == QKV_OUTPUT_CRF) {
        const qkv_crf_head *h = &m->crf;
        if (qkv_crf_viterbi(logits, h->transitions, h->start, h->end, sentences, qkv_crf_head_mask(h), pred, err))
            return QKV_ERR;
        if (gold) {
            qkv_tensor *nll = qkv_crf_nll(tp, logits, h->transitions, h->start, h->end, sentences, gold,
                                          qkv_crf_head_mask(h));
            if (!nll)
                return qkv_fail(err, "%s", tp->err.msg);
            *loss_sum = (double)nll->data[0];
        }
        return QKV_OK;
    }
    double loss = 0;
    for (int t = 0; t < T; t++) {
        const qkv_real *row = logits->data + (size_t)t * n_tags;
        int best = 0;
        for (int k = 1; k < n_tags; k++)
            if (row[k] > row[best])
                best = k;
        pred[t] = best;
        if (gold && gold[t] >= 0) { /* -log softmax(row)[gold], max-shifted, in double */
            double mx = row[best], sum = 0;
            for (int k = 0; k < n_tags; k++)
                sum += exp((double)row[k] - mx);
            loss += log(sum) + mx - (double)row[gold[t]];
        }
    }
    if (gold)
        *loss_sum = loss;
    return QKV_OK;
}
