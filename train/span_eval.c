#include "train/span_eval.h"

#include <stdlib.h>
#include <string.h>

bool qkv_tags_are_spans(const qkv_featurizer *fz)
{
    int n = qkv_featurizer_n_tags(fz);
    for (int t = 0; t < n; t++) {
        const char *tag = qkv_featurizer_tag(fz, t);
        if (!qkv_tag_is_span(tag, strlen(tag)))
            return false;
    }
    return n > 0;
}

int qkv_eval_add_spans(qkv_eval_result *res, const qkv_featurizer *fz, const qkv_corpus *c, const qkv_dataset *ds,
                       qkv_error *err)
{
    res->spans = NULL;
    if (!qkv_tags_are_spans(fz))
        return QKV_OK;
    int max_len = 1;
    for (int s = 0; s < c->n_sent; s++)
        if (qkv_corpus_sent_len(c, s) > max_len)
            max_len = qkv_corpus_sent_len(c, s);
    qkv_span_eval *e = calloc(1, sizeof *e);
    qkv_tag_part *gold = malloc((size_t)max_len * sizeof *gold), *pred = malloc((size_t)max_len * sizeof *pred);
    qkv_chunk *scratch = malloc(2 * (size_t)max_len * sizeof *scratch);
    int status = QKV_OK;
    if (!e || !gold || !pred || !scratch)
        status = qkv_fail(err, "out of memory for span scores");
    static const qkv_tag_part outside = {'O', "", 0};
    for (int s = 0; status == QKV_OK && s < c->n_sent; s++) {
        int w0 = qkv_dataset_sent_first(ds, s), n = qkv_dataset_sent_len(ds, s);
        for (int i = 0; i < n; i++) {
            size_t len;
            const char *tag = qkv_corpus_tag(c, w0 + i, &len);
            gold[i] = qkv_corpus_untagged(c, w0 + i) ? outside : qkv_tag_split(tag, len);
            int p = res->pred[w0 + i];
            const char *pt = p >= 0 ? qkv_featurizer_tag(fz, p) : NULL;
            pred[i] = pt ? qkv_tag_split(pt, strlen(pt)) : outside;
        }
        status = qkv_span_counts_add(&e->counts, gold, pred, n, scratch, err);
    }
    free(gold);
    free(pred);
    free(scratch);
    if (status != QKV_OK) {
        if (e)
            qkv_span_eval_free(e);
        free(e);
        return status;
    }
    qkv_span_prf(e->counts.correct, e->counts.gold, e->counts.pred, &e->precision, &e->recall, &e->f1);
    res->spans = e;
    return QKV_OK;
}

void qkv_span_eval_free(qkv_span_eval *e)
{
    qkv_span_counts_free(&e->counts);
}

bool qkv_select_by_span_f1(const qkv_run_config *cfg, const qkv_featurizer *fz)
{
    return cfg->train.select_by == QKV_SELECT_SPAN_F1 ||
           (cfg->train.select_by == QKV_SELECT_AUTO && qkv_tags_are_spans(fz));
}
