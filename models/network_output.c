/* The heads of the network: loss and prediction (models/network.h), each head's by its kind
 * (models/kinds.h). */
#include "models/network.h"

#include "lib/ops/ops.h"

qkv_tensor *qkv_network_loss(qkv_tape *tp, const qkv_network *m, qkv_tensor *logits, qkv_packed sentences,
                            const int32_t *tags)
{
    return m->heads[0].desc->loss(tp, &m->heads[0], logits, sentences, &(qkv_gold){tags, NULL, 0});
}

qkv_tensor *qkv_network_gold_loss(qkv_tape *tp, const qkv_network *m, qkv_tensor *logits, qkv_packed sentences,
                                 const qkv_gold *gold)
{
    return m->heads[0].desc->loss(tp, &m->heads[0], logits, sentences, gold);
}

int qkv_network_predict(qkv_tape *tp, const qkv_network *m, qkv_tensor *logits, qkv_packed sentences,
                       const int32_t *gold, int32_t *pred, double *loss_sum, qkv_error *err)
{
    qkv_gold g = {gold, NULL, 0};
    return qkv_network_head_predict(tp, m, 0, logits, sentences, gold ? &g : NULL,
                                   &(qkv_prediction){pred, NULL, loss_sum, NULL}, err);
}

int qkv_network_head_predict(qkv_tape *tp, const qkv_network *m, int i, qkv_tensor *logits, qkv_packed sentences,
                            const qkv_gold *gold, const qkv_prediction *out, qkv_error *err)
{
    const qkv_head *h = &m->heads[i];
    if (qkv_head_has_arcs(h)) {
        if (!out->arcs)
            return qkv_fail(err, "head '%s': a parser's prediction needs room for the heads", h->desc->name);
        for (int b = 0; out->unconstrained && b < sentences.n; b++)
            out->unconstrained[b] = 0;
    } else {
        for (int t = 0; out->arcs && t < qkv_packed_rows(sentences); t++)
            out->arcs[t] = -1;
    }
    return h->desc->predict(tp, h, logits, sentences, gold, out, err);
}

int qkv_network_probs(const qkv_network *m, const qkv_tensor *logits, qkv_packed sentences, double *probs,
                     uint8_t *unconstrained, qkv_error *err)
{
    const qkv_head *h = &m->heads[0];
    if (!h->desc->probs)
        return qkv_fail(err, "head '%s' gives no per-word tag probabilities", h->desc->name);
    return h->desc->probs(h, logits, sentences, probs, unconstrained, err);
}

qkv_tensor *qkv_network_heads_loss(qkv_tape *tp, const qkv_network *m, qkv_tensor *hidden, qkv_packed sentences,
                                  const int32_t *const *tags, const int32_t *arcs, double label_smoothing,
                                  qkv_tensor **logits)
{
    qkv_tensor *total = NULL, *lg[QKV_NETWORK_MAX_HEADS] = {NULL}; /* the parser's tag inputs fill theirs */
    for (int i = 0; i < m->n_outputs; i++) {
        const qkv_head *h = &m->heads[i];
        if (!lg[i])
            lg[i] = qkv_head_logits(tp, h, qkv_network_head_input(tp, m, i, hidden, sentences, lg), sentences);
        if (logits)
            logits[i] = lg[i];
        qkv_tensor *loss = h->desc->loss(tp, h, lg[i], sentences, &(qkv_gold){tags[i], arcs, label_smoothing});
        if (h->loss_weight != 1.0)
            loss = qkv_scale(tp, loss, h->loss_weight);
        total = total ? qkv_add(tp, total, loss) : loss;
    }
    return total;
}
