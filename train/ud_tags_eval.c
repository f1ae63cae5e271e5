/* The CoNLL 2018 tag and lemma scores of an evaluation (see evaluate.h: qkv_eval_add_ud_tags). */
#include <stdlib.h>

#include "api/predict.h"
#include "data/ud_tags.h"
#include "train/evaluate.h"

int qkv_eval_add_ud_tags(qkv_eval_result *res, qkv_session *s, const qkv_corpus *c, qkv_error *err)
{
    if (!c->fields || (qkv_featurizer_n_columns(&s->fz) == 1 && s->fz.columns[0] == QKV_TAG_UPOS) ||
        qkv_featurizer_n_columns(&s->fz) != res->n_heads)
        return QKV_OK; /* a tagger of UPOS alone: its accuracy says it all */
    if (s->fz.columns[0] == QKV_TAG_XPOS && res->n_heads == 1)
        return QKV_OK;
    const int32_t *pred[QKV_MAX_COLUMNS] = {res->pred};
    for (int h = 1; h < res->n_heads; h++)
        pred[h] = res->head_pred[h];
    qkv_tagged t;
    if (qkv_tagged_from_pred(s, c, pred, &t, err))
        return QKV_ERR;
    if (!(res->ud = calloc(1, sizeof *res->ud))) {
        qkv_tagged_free(&t);
        return qkv_fail(err, "out of memory");
    }
    int status = qkv_ud_score_tags(c, (const char *const *const *)t.values, res->ud, err);
    res->n_lemma_fallback = t.n_lemma_fallback;
    qkv_tagged_free(&t);
    return status;
}
