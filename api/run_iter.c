#include "api/run_iter.h"

#include <string.h>

#include "lib/profile.h"

int qkv_run_iter_init(qkv_run_iter *it, const qkv_dataset *ds, int budget, bool no_grad, qkv_error *err)
{
    memset(it, 0, sizeof *it);
    it->ds = ds;
    it->budget = budget;
    if (qkv_tape_init(&it->tp, 0))
        return qkv_fail(err, "out of memory for the activations");
    it->tp.no_grad = no_grad;
    return QKV_OK;
}

int qkv_run_iter_set_plan(qkv_run_iter *it, qkv_batch_plan *plan, qkv_error *err)
{
    qkv_batch_plan_free(&it->plan);
    it->plan = *plan;
    memset(plan, 0, sizeof *plan);
    int max_sent = qkv_batch_plan_max_sent(&it->plan), max_tokens = qkv_batch_plan_max_tokens(&it->plan);
    if (it->cap_sent > 0 && it->cap_sent >= max_sent && it->cap_tokens >= max_tokens)
        return QKV_OK;
    qkv_batch_free(&it->batch);
    it->cap_sent = it->cap_tokens = 0;
    if (qkv_batch_alloc(&it->batch, qkv_dataset_n_features(it->ds), qkv_dataset_has_chars(it->ds), max_sent,
                        max_tokens, err) ||
        qkv_batch_alloc_dense(&it->batch, qkv_dataset_d_input(it->ds), err) ||
        qkv_batch_alloc_columns(&it->batch, qkv_dataset_n_columns(it->ds), err))
        return QKV_ERR;
    it->cap_sent = max_sent;
    it->cap_tokens = max_tokens;
    return QKV_OK;
}

int qkv_run_iter_plan(qkv_run_iter *it, qkv_rng *rng, qkv_error *err)
{
    QKV_PROFILE_SCOPE("data", QKV_PROF_PHASE);
    qkv_batch_plan plan;
    if (qkv_batch_plan_make(&plan, it->ds, it->budget, rng, err))
        return QKV_ERR;
    return qkv_run_iter_set_plan(it, &plan, err);
}

int qkv_run_iter_fill(qkv_run_iter *it, int i, qkv_error *err)
{
    QKV_PROFILE_SCOPE("data", QKV_PROF_PHASE);
    if (qkv_batch_fill(&it->batch, it->ds, &it->plan, i, err))
        return QKV_ERR;
    const qkv_batch *b = &it->batch;
    it->in.sentences = (qkv_packed){qkv_batch_n_sent(b), qkv_batch_offsets(b)};
    it->in.features = qkv_batch_features(b);
    it->in.words = (qkv_packed){qkv_batch_n_tokens(b), qkv_batch_char_offsets(b)};
    it->in.chars = qkv_batch_chars(b);
    it->in.dense = qkv_batch_dense(b);
    return QKV_OK;
}

qkv_tensor *qkv_run_iter_logits(qkv_run_iter *it, qkv_network *m, int keep_layer, qkv_attention_weights *keep,
                                qkv_error *err)
{
    qkv_tape_reset(&it->tp);
    qkv_tensor *logits = qkv_network_logits(&it->tp, m, &it->in, keep_layer, keep);
    if (!logits)
        qkv_fail(err, "%s", it->tp.err.msg);
    return logits;
}

qkv_tensor *qkv_run_iter_hidden(qkv_run_iter *it, qkv_network *m, qkv_error *err)
{
    qkv_tape_reset(&it->tp);
    qkv_tensor *hidden = qkv_network_hidden(&it->tp, m, &it->in, -1, NULL);
    if (!hidden)
        qkv_fail(err, "%s", it->tp.err.msg);
    return hidden;
}

void qkv_run_iter_free(qkv_run_iter *it)
{
    qkv_batch_plan_free(&it->plan);
    qkv_batch_free(&it->batch);
    qkv_tape_free(&it->tp);
    memset(it, 0, sizeof *it);
}
