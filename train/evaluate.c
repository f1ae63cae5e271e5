#include "train/evaluate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/ops/ops.h"
#include "api/predict.h"
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

/* Adds the predictions res->pred of every predicted sentence of ds to the counts. */
static void count_words(qkv_eval_result *res, const qkv_dataset *ds)
{
    int n_tags = res->n_tags;
    for (int s = 0; s < ds->n_sent; s++) {
        int w0 = qkv_dataset_sent_first(ds, s), len = qkv_dataset_sent_len(ds, s);
        if (!qkv_dataset_batchable(ds, s) || res->pred[w0] < 0) /* not batched, or another shard's */
            continue;
        int bucket = bucket_of(len);
        for (int w = w0; w < w0 + len; w++) {
            int best = res->pred[w], gold = ds->tags[w];
            bool head_ok = true;
            if (res->pred_heads) { /* a parser: words with a gold head and label only */
                if (gold != QKV_TAG_NONE && (!ds->heads || ds->heads[w] < 0))
                    gold = QKV_TAG_NONE;
                head_ok = gold != QKV_TAG_NONE && res->pred_heads[w] == ds->heads[w];
                res->n_head_correct += head_ok;
            }
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
            if (gold == best && head_ok) {
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
    bool parser = qkv_tagger_parses(&s->model);
    res->pred_heads = parser ? calloc((size_t)(n_words ? n_words : 1), sizeof(int32_t)) : NULL;
    if (!res->gold || !res->predicted || !res->correct || !res->confusion || !res->pred || (parser && !res->pred_heads))
        return qkv_fail(err, "out of memory for evaluation");
    if (n_words == 0)
        return QKV_OK; /* nothing to tag: all counts stay 0 */
    double t0 = now_seconds();
    int status = qkv_predict_parsed(&s->model, ds, batch_tokens, shard, n_shards, res->pred, res->pred_heads,
                                    logits_out, &res->loss, NULL, err);
    if (status == QKV_OK)
        count_words(res, ds);
    res->seconds = now_seconds() - t0;
    long known = res->n_words - res->n_unknown_gold;
    res->loss = known ? res->loss / (double)known : 0;
    res->accuracy = res->n_words ? (double)res->n_correct / (double)res->n_words : 0;
    res->uas = res->n_words ? (double)res->n_head_correct / (double)res->n_words : 0;
    res->tokens_per_sec = res->seconds > 0 ? (double)(res->n_words + res->n_untagged) / res->seconds : 0;
    return status;
}

void qkv_eval_result_free(qkv_eval_result *res)
{
    free(res->gold);
    free(res->predicted);
    free(res->correct);
    free(res->confusion);
    free(res->pred);
    free(res->pred_heads);
    if (res->spans)
        qkv_span_eval_free(res->spans);
    free(res->spans);
    memset(res, 0, sizeof *res);
}
