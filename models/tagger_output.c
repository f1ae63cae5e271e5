/* The heads of the tagger: loss and prediction (models/tagger.h), each head's by its kind
 * (models/kinds.h). */
#include "models/tagger.h"

#include "lib/ops/ops.h"

qkv_tensor *qkv_tagger_loss(qkv_tape *tp, const qkv_tagger *m, qkv_tensor *logits, qkv_packed sentences,
                            const int32_t *tags)
{
    const qkv_head *h = &m->heads[0];
    return h->desc->loss(tp, h, logits, sentences, tags);
}

int qkv_tagger_predict(qkv_tape *tp, const qkv_tagger *m, qkv_tensor *logits, qkv_packed sentences,
                       const int32_t *gold, int32_t *pred, double *loss_sum, qkv_error *err)
{
    return qkv_tagger_predict_marked(tp, m, logits, sentences, gold, pred, loss_sum, NULL, err);
}

int qkv_tagger_predict_marked(qkv_tape *tp, const qkv_tagger *m, qkv_tensor *logits, qkv_packed sentences,
                              const int32_t *gold, int32_t *pred, double *loss_sum, uint8_t *unconstrained,
                              qkv_error *err)
{
    const qkv_head *h = &m->heads[0];
    return h->desc->predict(tp, h, logits, sentences, gold, pred, loss_sum, unconstrained, err);
}

int qkv_tagger_probs(const qkv_tagger *m, const qkv_tensor *logits, qkv_packed sentences, double *probs,
                     uint8_t *unconstrained, qkv_error *err)
{
    const qkv_head *h = &m->heads[0];
    return h->desc->probs(h, logits, sentences, probs, unconstrained, err);
}

qkv_tensor *qkv_tagger_heads_loss(qkv_tape *tp, const qkv_tagger *m, qkv_tensor *hidden, qkv_packed sentences,
                                  const int32_t *const *tags, qkv_tensor **logits)
{
    qkv_tensor *total = NULL;
    for (int i = 0; i < m->n_outputs; i++) {
        const qkv_head *h = &m->heads[i];
        qkv_tensor *lg = h->desc->logits(tp, h, hidden);
        if (logits)
            logits[i] = lg;
        qkv_tensor *loss = h->desc->loss(tp, h, lg, sentences, tags[i]);
        if (h->loss_weight != 1.0)
            loss = qkv_scale(tp, loss, h->loss_weight);
        total = total ? qkv_add(tp, total, loss) : loss;
    }
    return total;
}
