/* What each head reads of the encoder output (models/network.h: qkv_network_head_input): a tagging
 * head the output after model.head_dropout, the parser the output itself beside its tag inputs
 * (qkv_network_add_tag_input): the distribution of each named tagging head times its tag vectors. */
#include "models/network.h"

#include "lib/ops/concat.h"
#include "lib/ops/ops.h"

int qkv_network_add_tag_input(qkv_network *m, int head, qkv_rng *rng, qkv_error *err)
{
    if (m->n_outputs < 1 || !qkv_head_has_arcs(&m->heads[0]))
        return qkv_fail(err, "model: tag inputs are a parser's; head 0 is not a parser");
    if (m->n_tag_inputs >= m->cfg.n_tag_inputs)
        return qkv_fail(err, "model: the parser reads %d tag inputs, all added", m->cfg.n_tag_inputs);
    if (head < 1 || head >= m->n_outputs)
        return qkv_fail(err, "model: tag input of head %d, expected a tagging head 1..%d", head, m->n_outputs - 1);
    const qkv_head *h = &m->heads[head];
    if (h->desc != &qkv_softmax_head)
        return qkv_fail(err, "model: tag input of head %d ('%s'), a %s head: it must be a softmax head", head,
                        h->tagset, h->desc->name);
    qkv_tensor *e = qkv_params_add(&m->params, err, 2, (int[]){h->n_tags, m->cfg.tag_input_dim}, "tag_embed.%s",
                                   h->tagset);
    if (!e)
        return QKV_ERR;
    if (rng)
        qkv_init_normal(e, rng, 1.0);
    m->params.items[m->params.n - 1]->no_weight_decay = true; /* a table of vectors, as the embeddings */
    m->tag_input_head[m->n_tag_inputs] = head;
    m->tag_embed[m->n_tag_inputs++] = e;
    return QKV_OK;
}

qkv_tensor *qkv_network_head_input(qkv_tape *tp, const qkv_network *m, int i, qkv_tensor *hidden,
                                   qkv_packed sentences, qkv_tensor **logits)
{
    if (!hidden)
        return NULL;
    if (!qkv_head_has_arcs(&m->heads[i]))
        return qkv_dropout(tp, hidden, m->cfg.head_dropout);
    if (i != 0 || m->cfg.n_tag_inputs == 0)
        return hidden;
    if (m->n_tag_inputs != m->cfg.n_tag_inputs)
        return qkv_tape_fail(tp, "model: the parser reads %d tag inputs, %d added", m->cfg.n_tag_inputs,
                             m->n_tag_inputs);
    qkv_tensor *parts[QKV_NETWORK_MAX_TAG_INPUTS + 1] = {hidden};
    for (int k = 0; k < m->n_tag_inputs; k++) {
        const int head = m->tag_input_head[k];
        qkv_tensor *lg = logits && logits[head] ? logits[head]
                                                : qkv_head_logits(tp, &m->heads[head],
                                                                  qkv_network_head_input(tp, m, head, hidden,
                                                                                         sentences, NULL),
                                                                  sentences);
        if (logits)
            logits[head] = lg;
        qkv_tensor *p = qkv_softmax(tp, lg);
        parts[k + 1] = p ? qkv_matmul(tp, p, m->tag_embed[k], false, false) : NULL;
        if (!parts[k + 1])
            return NULL;
    }
    return qkv_concat_cols(tp, m->n_tag_inputs + 1, parts);
}
