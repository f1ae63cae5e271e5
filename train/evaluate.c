#include "train/evaluate.h"

#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/ops/ops.h"
#include "api/predict.h"
#include "api/tag_pairs.h"
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
            bool arc_ok = true;
            if (res->pred_arcs) { /* a parser: words with a gold head and label only */
                if (gold != QKV_TAG_NONE && (!ds->arcs || ds->arcs[w] < 0))
                    gold = QKV_TAG_NONE;
                arc_ok = gold != QKV_TAG_NONE && res->pred_arcs[w] == ds->arcs[w];
                res->n_arc_correct += arc_ok;
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
            if (gold == best && arc_ok) {
                res->n_correct++;
                res->correct[gold]++;
                res->bucket_correct[bucket]++;
            }
        }
    }
}

/* What evaluate copies out beside the predictions (qkv_evaluate_scores). */
typedef struct eval_scores {
    const qkv_head_scores *heads; /* [n_outputs] (may be NULL) */
    const int64_t *arc_offsets;
} eval_scores;

static int evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                    qkv_eval_result *res, eval_scores sc, qkv_error *err);

/* Heads 1..'s counts of their predicted words (head 0's are count_words'). */
static void count_heads(qkv_eval_result *res, const qkv_dataset *ds)
{
    for (int h = 1; h < res->n_outputs; h++)
        for (int w = 0; w < qkv_dataset_n_words(ds); w++) {
            int gold = qkv_dataset_column_tags(ds, h)[w];
            if (res->head_pred[h][w] < 0 || gold == QKV_TAG_NONE)
                continue;
            res->head_words[h]++;
            res->head_correct[h] += gold == res->head_pred[h][w];
        }
}

void qkv_eval_finish_heads(qkv_eval_result *res)
{
    res->head_words[0] = res->n_words;
    res->head_correct[0] = res->n_correct;
    for (int h = 0; h < res->n_outputs; h++)
        res->head_accuracy[h] = res->head_words[h] ? (double)res->head_correct[h] / (double)res->head_words[h] : 0;
}

double qkv_eval_selection_accuracy(const qkv_eval_result *res, const qkv_run_config *cfg)
{
    if (res->n_outputs <= 1)
        return res->accuracy;
    double sum = 0;
    int n = 0;
    for (int h = 0; h < res->n_outputs; h++)
        if (cfg->heads.selected[h]) {
            sum += res->head_accuracy[h];
            n++;
        }
    return n ? sum / n : res->accuracy;
}

/* The model's predictions of ds into res->pred (head 0) and res->head_pred (the others), with
 * head 0's summed loss in res->loss and the scores sc asks for: one path for any number of
 * heads (a constrained CRF decodes a sentence it has no allowed path for without its
 * constraints, and its loss is then +inf). */
static int predict_all(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                       qkv_eval_result *res, eval_scores sc, qkv_error *err)
{
    int32_t *pred[QKV_MAX_COLUMNS] = {res->pred};
    double loss[QKV_MAX_COLUMNS] = {0};
    for (int h = 1; h < res->n_outputs; h++)
        pred[h] = res->head_pred[h];
    int32_t *needs[QKV_MAX_COLUMNS] = {0};
    int status = qkv_session_class_needs(s, needs, err) ||
                 qkv_predict_heads_paired(s, ds, &(qkv_batching){batch_tokens, shard, n_shards},
                                          (const int32_t *const *)needs,
                                          &(qkv_heads_out){pred, res->pred_arcs, loss, sc.heads, sc.arc_offsets, NULL},
                                          err);
    for (int h = 0; h < QKV_MAX_COLUMNS; h++)
        free(needs[h]);
    res->loss = loss[0];
    return status ? QKV_ERR : QKV_OK;
}

int qkv_evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res, qkv_error *err)
{
    return evaluate(s, ds, batch_tokens, 0, 1, res, (eval_scores){0}, err);
}

int qkv_evaluate_scores(qkv_session *s, const qkv_dataset *ds, int batch_tokens, qkv_eval_result *res,
                        const qkv_head_scores *scores, const int64_t *arc_offsets, qkv_error *err)
{
    return evaluate(s, ds, batch_tokens, 0, 1, res, (eval_scores){scores, arc_offsets}, err);
}

int qkv_evaluate_shard(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                       qkv_eval_result *res, qkv_error *err)
{
    return evaluate(s, ds, batch_tokens, shard, n_shards, res, (eval_scores){0}, err);
}

static int evaluate(qkv_session *s, const qkv_dataset *ds, int batch_tokens, int shard, int n_shards,
                    qkv_eval_result *res, eval_scores sc, qkv_error *err)
{
    memset(res, 0, sizeof *res);
    int n_tags = res->n_tags = qkv_featurizer_n_tags(&s->fz);
    res->gold = calloc((size_t)n_tags, sizeof(long));
    res->predicted = calloc((size_t)n_tags, sizeof(long));
    res->correct = calloc((size_t)n_tags, sizeof(long));
    res->confusion = calloc((size_t)n_tags * (size_t)n_tags, sizeof(long));
    int n_words = qkv_dataset_n_words(ds);
    res->pred = calloc((size_t)(n_words ? n_words : 1), sizeof(int32_t));
    bool ok = res->gold && res->predicted && res->correct && res->confusion && res->pred;
    res->n_outputs = qkv_network_n_outputs(&s->model);
    for (int h = 1; h < res->n_outputs && ok; h++)
        ok = (res->head_pred[h] = calloc((size_t)(n_words ? n_words : 1), sizeof(int32_t))) != NULL;
    bool attachment = qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT); /* UAS and LAS */
    res->pred_arcs = attachment ? calloc((size_t)(n_words ? n_words : 1), sizeof(int32_t)) : NULL;
    if (!ok || (attachment && !res->pred_arcs))
        return qkv_fail(err, "out of memory for evaluation");
    if (n_words == 0)
        return QKV_OK; /* nothing to tag: all counts stay 0 */
    double t0 = now_seconds();
    int status = predict_all(s, ds, batch_tokens, shard, n_shards, res, sc, err);
    if (status == QKV_OK) {
        count_words(res, ds);
        count_heads(res, ds);
    }
    res->seconds = now_seconds() - t0;
    long known = res->n_words - res->n_unknown_gold;
    res->loss = known ? res->loss / (double)known : 0;
    res->accuracy = res->n_words ? (double)res->n_correct / (double)res->n_words : 0;
    res->uas = res->n_words ? (double)res->n_arc_correct / (double)res->n_words : 0;
    res->tokens_per_sec = res->seconds > 0 ? (double)(res->n_words + res->n_untagged) / res->seconds : 0;
    qkv_eval_finish_heads(res);
    return status;
}

void qkv_eval_result_free(qkv_eval_result *res)
{
    free(res->gold);
    free(res->predicted);
    free(res->correct);
    free(res->confusion);
    free(res->pred);
    free(res->pred_arcs);
    for (int h = 1; h < QKV_MAX_COLUMNS; h++)
        free(res->head_pred[h]);
    free(res->ud);
    free(res->deps);
    if (res->spans)
        qkv_span_eval_free(res->spans);
    free(res->spans);
    memset(res, 0, sizeof *res);
}
