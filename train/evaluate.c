#include "train/evaluate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/ops/ops.h"
#include "train/run_iter.h"
#include "train/span_eval.h"

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

/* Adds one batch's predictions pred [T] to the counts (and copies its logits [T, n_tags] to
 * logits_out, when not NULL, at the rows of their words in ds). */
static void count_batch(qkv_eval_result *res, const qkv_dataset *ds, const qkv_batch *b, const qkv_tensor *logits,
                        const int32_t *pred, qkv_real *logits_out)
{
    int n_tags = res->n_tags;
    const int32_t *offsets = qkv_batch_offsets(b), *tags = qkv_batch_tags(b);
    for (int s = 0; s < qkv_batch_n_sent(b); s++) {
        int len = offsets[s + 1] - offsets[s];
        int bucket = bucket_of(len);
        int w0 = qkv_dataset_sent_first(ds, qkv_batch_sent_id(b, s));
        if (logits_out)
            memcpy(logits_out + (size_t)w0 * n_tags, logits->data + (size_t)offsets[s] * n_tags,
                   (size_t)len * (size_t)n_tags * sizeof(qkv_real));
        for (int t = offsets[s]; t < offsets[s + 1]; t++) {
            int best = pred[t], gold = tags[t];
            res->pred[w0 + (t - offsets[s])] = best;
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

static int evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                    qkv_eval_result *res, qkv_real *logits_out, qkv_error *err);

int qkv_evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res, qkv_error *err)
{
    return evaluate(s, ds, batch_tokens, 0, 1, res, NULL, err);
}

int qkv_evaluate_logits(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res,
                        qkv_real *logits_out, qkv_error *err)
{
    return evaluate(s, ds, batch_tokens, 0, 1, res, logits_out, err);
}

int qkv_evaluate_shard(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                       qkv_eval_result *res, qkv_error *err)
{
    return evaluate(s, ds, batch_tokens, shard, n_shards, res, NULL, err);
}

static int evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                    qkv_eval_result *res, qkv_real *logits_out, qkv_error *err)
{
    memset(res, 0, sizeof *res);
    int n_tags = res->n_tags = qkv_featurizer_n_tags(&s->fz);
    res->gold = calloc((size_t)n_tags, sizeof(long));
    res->predicted = calloc((size_t)n_tags, sizeof(long));
    res->correct = calloc((size_t)n_tags, sizeof(long));
    res->confusion = calloc((size_t)n_tags * (size_t)n_tags, sizeof(long));
    int n_words = qkv_dataset_n_words(ds);
    res->pred = calloc((size_t)(n_words ? n_words : 1), sizeof(int32_t));
    if (!res->gold || !res->predicted || !res->correct || !res->confusion || !res->pred)
        return qkv_fail(err, "out of memory for evaluation");
    for (int w = 0; w < n_words; w++)
        res->pred[w] = -1;

    if (n_words == 0)
        return QKV_OK; /* nothing to tag: all counts stay 0 */
    qkv_run_iter it;
    if (qkv_run_iter_init(&it, ds, batch_tokens, true, err) || qkv_run_iter_plan(&it, NULL, err)) {
        qkv_run_iter_free(&it);
        return QKV_ERR;
    }
    int status = QKV_OK;
    double t0 = now_seconds();
    /* Longest sentences first: the first batch takes the most arena memory, so the arena does
     * not regrow (fresh pages, page faults) batch after batch as lengths increase. */
    for (int i = qkv_run_iter_n_batches(&it) - 1; i >= 0 && status == QKV_OK; i--) {
        if (i % n_shards != shard)
            continue;
        qkv_tensor *logits = NULL;
        if ((status = qkv_run_iter_fill(&it, i, err)) ||
            !(logits = qkv_run_iter_logits(&it, &s->model, -1, NULL, err))) {
            status = QKV_ERR;
            break;
        }
        double loss_sum = 0;
        int32_t *pred = qkv_tape_alloc(&it.tp, (size_t)qkv_batch_n_tokens(&it.batch) * sizeof *pred);
        if (!pred || qkv_tagger_predict(&it.tp, &s->model, logits, it.in.sentences, qkv_batch_tags(&it.batch), pred,
                                        &loss_sum, err)) {
            status = pred ? QKV_ERR : qkv_fail(err, "%s", it.tp.err.msg);
            break;
        }
        res->loss += loss_sum;
        count_batch(res, ds, &it.batch, logits, pred, logits_out);
    }
    res->seconds = now_seconds() - t0;
    long known = res->n_words - res->n_unknown_gold;
    res->loss = known ? res->loss / (double)known : 0;
    res->accuracy = res->n_words ? (double)res->n_correct / (double)res->n_words : 0;
    res->tokens_per_sec = res->seconds > 0 ? (double)(res->n_words + res->n_untagged) / res->seconds : 0;
    qkv_run_iter_free(&it);
    return status;
}

void qkv_eval_result_free(qkv_eval_result *res)
{
    free(res->gold);
    free(res->predicted);
    free(res->correct);
    free(res->confusion);
    free(res->pred);
    if (res->spans)
        qkv_span_eval_free(res->spans);
    free(res->spans);
    memset(res, 0, sizeof *res);
}
