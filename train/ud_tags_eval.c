/* The CoNLL 2018 tag, lemma and dependency scores of an evaluation (see evaluate.h:
 * qkv_eval_add_ud_tags). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/predict.h"
#include "data/ud_tags.h"
#include "train/evaluate.h"

bool qkv_eval_predicts_column(const qkv_session *s, qkv_tag_field col)
{
    for (int i = 0; i < qkv_featurizer_n_columns(&s->fz); i++)
        if (s->fz.columns[i] == col)
            return true;
    return false;
}

bool qkv_eval_scores_mlas(const qkv_session *s)
{
    return qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT) && qkv_eval_predicts_column(s, QKV_TAG_UPOS) &&
           qkv_eval_predicts_column(s, QKV_TAG_FEATS);
}

bool qkv_eval_scores_blex(const qkv_session *s)
{
    return qkv_network_scored_by(&s->model, QKV_SCORE_ATTACHMENT) && qkv_eval_predicts_column(s, QKV_TAG_LEMMA);
}

/* res->deps: the CoNLL 2018 scorer (data/ud_eval.h) over c as read against c with the
 * predicted columns t and heads written in; the tokens are the gold ones, so every word aligns
 * with itself. The columns the model does not predict stay as read: only the scores that read
 * predicted columns alone are reported (qkv_eval_scores_mlas, _blex). */
static int add_deps(qkv_eval_result *res, const qkv_corpus *c, const qkv_tagged *t, qkv_error *err)
{
    char *gold = NULL, *sys = NULL;
    size_t gold_len = 0, sys_len = 0;
    FILE *g = open_memstream(&gold, &gold_len), *sy = g ? open_memstream(&sys, &sys_len) : NULL;
    int status = g && sy ? QKV_OK : qkv_fail(err, "out of memory");
    if (status == QKV_OK)
        status = qkv_corpus_write(c, g, NULL, err);
    if (status == QKV_OK)
        status = qkv_corpus_write_fields_parsed(c, sy, (const char *const *const *)t->values, res->pred_arcs, err);
    if ((g && fclose(g)) | (sy && fclose(sy)))
        status = status ? status : qkv_fail(err, "out of memory");
    if (status == QKV_OK && !(res->deps = calloc(1, sizeof *res->deps)))
        status = qkv_fail(err, "out of memory");
    if (status == QKV_OK)
        status = qkv_ud_evaluate(gold ? gold : "", gold ? gold_len : 0, qkv_corpus_name(c), sys ? sys : "",
                                 sys ? sys_len : 0, "the predictions", res->deps, err);
    free(gold);
    free(sys);
    return status;
}

int qkv_eval_add_ud_tags(qkv_eval_result *res, qkv_session *s, const qkv_corpus *c, qkv_error *err)
{
    bool parser = res->pred_arcs != NULL;
    if (!c->fields || qkv_featurizer_n_columns(&s->fz) != res->n_outputs)
        return QKV_OK;
    if (!parser && res->n_outputs == 1 && (s->fz.columns[0] == QKV_TAG_UPOS || s->fz.columns[0] == QKV_TAG_XPOS))
        return QKV_OK; /* a tagger of UPOS or XPOS alone: its accuracy says it all */
    const int32_t *pred[QKV_MAX_COLUMNS] = {res->pred};
    for (int h = 1; h < res->n_outputs; h++)
        pred[h] = res->head_pred[h];
    qkv_tagged t;
    if (qkv_tagged_from_pred(s, c, pred, &t, err))
        return QKV_ERR;
    if (!(res->ud = calloc(1, sizeof *res->ud))) {
        qkv_tagged_free(&t);
        return qkv_fail(err, "out of memory");
    }
    int status = qkv_ud_score_tags(c, (const char *const *const *)t.values, res->ud, err);
    if (status == QKV_OK && parser)
        status = add_deps(res, c, &t, err);
    res->n_lemma_fallback = t.n_lemma_fallback;
    qkv_tagged_free(&t);
    return status;
}
