#include "train/evaluate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/ops/ops.h"

const int QKV_LENGTH_BUCKET_MAX[QKV_N_LENGTH_BUCKETS] = {10, 20, 40, INT_MAX};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bucket_of(int len)
{
    int b = 0;
    while (len > QKV_LENGTH_BUCKET_MAX[b])
        b++;
    return b;
}

/* Adds one batch's logits [T, n_tags] to the counts. */
static void count_batch(qkv_eval_result *res, const qkv_dataset *ds, const qkv_batch *b, const qkv_tensor *logits)
{
    int n_tags = res->n_tags;
    for (int s = 0; s < b->n_sent; s++) {
        int len = b->offsets[s + 1] - b->offsets[s];
        int bucket = bucket_of(len);
        for (int t = b->offsets[s]; t < b->offsets[s + 1]; t++) {
            const qkv_real *row = logits->data + (size_t)t * n_tags;
            int best = 0;
            for (int k = 1; k < n_tags; k++)
                if (row[k] > row[best])
                    best = k;
            /* loss: -log softmax(row)[gold], max-shifted, in double */
            int gold = b->tags[t];
            res->pred[ds->sent_start[b->sent_ids[s]] + (t - b->offsets[s])] = best;
            if (gold == QKV_TAG_NONE) {
                res->n_untagged++;
                continue;
            }
            res->n_words++;
            res->bucket_words[bucket]++;
            res->predicted[best]++;
            if (gold < 0) {
                res->n_unknown_gold++;
                continue;
            }
            double mx = row[best], sum = 0;
            for (int k = 0; k < n_tags; k++)
                sum += exp((double)row[k] - mx);
            res->loss += log(sum) + mx - (double)row[gold];
            res->gold[gold]++;
            res->confusion[(size_t)gold * n_tags + best]++;
            if (gold == best) {
                res->n_correct++;
                res->correct[gold]++;
                res->bucket_correct[bucket]++;
            }
        }
    }
}

int qkv_evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res, qkv_error *err)
{
    return qkv_evaluate_logits(s, ds, batch_tokens, res, NULL, err);
}

int qkv_evaluate_logits(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res,
                        qkv_real *logits_out, qkv_error *err)
{
    memset(res, 0, sizeof *res);
    int n_tags = res->n_tags = qkv_featurizer_n_tags(&s->fz);
    res->gold = calloc((size_t)n_tags, sizeof(long));
    res->predicted = calloc((size_t)n_tags, sizeof(long));
    res->correct = calloc((size_t)n_tags, sizeof(long));
    res->confusion = calloc((size_t)n_tags * (size_t)n_tags, sizeof(long));
    res->pred = calloc((size_t)(ds->n_words ? ds->n_words : 1), sizeof(int32_t));
    if (!res->gold || !res->predicted || !res->correct || !res->confusion || !res->pred)
        return qkv_fail(err, "out of memory for evaluation");
    for (int w = 0; w < ds->n_words; w++)
        res->pred[w] = -1;

    if (ds->n_words == 0)
        return QKV_OK; /* nothing to tag: all counts stay 0 */
    qkv_batch_plan plan;
    qkv_batch batch;
    memset(&batch, 0, sizeof batch);
    if (qkv_batch_plan_make(&plan, ds, batch_tokens, NULL, err))
        return QKV_ERR;
    int status = qkv_batch_alloc(&batch, ds->n_features, ds->chars != NULL, plan.max_sent, plan.max_tokens, err);
    qkv_tape tp;
    if (status == QKV_OK && qkv_tape_init(&tp, 0))
        status = qkv_fail(err, "out of memory for evaluation");
    if (status) {
        qkv_batch_plan_free(&plan);
        qkv_batch_free(&batch);
        return QKV_ERR;
    }
    tp.no_grad = true;
    double t0 = now_seconds();
    /* Longest sentences first: the first batch takes the most arena memory, so the arena does
     * not regrow (fresh pages, page faults) batch after batch as lengths increase. */
    for (int i = plan.n_batches - 1; i >= 0 && status == QKV_OK; i--) {
        if ((status = qkv_batch_fill(&batch, ds, &plan, i, err)))
            break;
        qkv_tape_reset(&tp);
        qkv_tagger_input in = qkv_session_input(&batch);
        qkv_tensor *logits = qkv_tagger_logits(&tp, &s->model, &in, -1, NULL);
        if (!logits) {
            status = qkv_fail(err, "%s", tp.err.msg);
            break;
        }
        count_batch(res, ds, &batch, logits);
        for (int b = 0; logits_out && b < batch.n_sent; b++) {
            int w0 = ds->sent_start[batch.sent_ids[b]], t0_ = batch.offsets[b];
            size_t n = (size_t)(batch.offsets[b + 1] - t0_) * (size_t)n_tags;
            memcpy(logits_out + (size_t)w0 * n_tags, logits->data + (size_t)t0_ * n_tags, n * sizeof(qkv_real));
        }
    }
    res->seconds = now_seconds() - t0;
    long known = res->n_words - res->n_unknown_gold;
    res->loss = known ? res->loss / (double)known : 0;
    res->accuracy = res->n_words ? (double)res->n_correct / (double)res->n_words : 0;
    res->tokens_per_sec = res->seconds > 0 ? (double)(res->n_words + res->n_untagged) / res->seconds : 0;
    qkv_tape_free(&tp);
    qkv_batch_plan_free(&plan);
    qkv_batch_free(&batch);
    return status;
}

void qkv_eval_result_free(qkv_eval_result *res)
{
    free(res->gold);
    free(res->predicted);
    free(res->correct);
    free(res->confusion);
    free(res->pred);
    memset(res, 0, sizeof *res);
}
