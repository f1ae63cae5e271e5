/* qkv eval --logits (train/cli/eval_logits.h). */
#include "train/cli/eval_logits.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/io/store.h"

/* A zeroed buffer of n qkv_real (rows of sentences not predicted stay 0). */
static qkv_real *zeros(size_t n)
{
    return calloc(n ? n : 1, sizeof(qkv_real));
}

int qkv_eval_logits_alloc(qkv_eval_logits *l, const qkv_session *s, const qkv_dataset *ds, qkv_error *err)
{
    memset(l, 0, sizeof *l);
    const qkv_network *m = &s->model;
    size_t n_words = (size_t)qkv_dataset_n_words(ds);
    l->n_outputs = qkv_network_n_outputs(m);
    if (l->n_outputs > QKV_MAX_COLUMNS)
        return qkv_fail(err, "%d heads, at most %d", l->n_outputs, QKV_MAX_COLUMNS);
    l->per_head = l->n_outputs > 1 || qkv_network_scored_by(m, QKV_SCORE_ATTACHMENT); /* arcs: per head */
    for (int h = 0; h < l->n_outputs; h++) {
        const qkv_head *head = qkv_network_head(m, h);
        size_t n = n_words * (size_t)head->n_tags;
        qkv_head_scores *sc = &l->heads[h];
        if (!qkv_head_scored_by(head, QKV_SCORE_ATTACHMENT)) { /* tags: their logits */
            if (!(sc->logits = zeros(n)))
                return qkv_fail(err, "out of memory for the logits of %zu words", n_words);
            continue;
        }
        if (!l->arc_offsets && !(l->arc_offsets = malloc(((size_t)ds->n_sent + 1) * sizeof *l->arc_offsets)))
            return qkv_fail(err, "out of memory for %d sentences", ds->n_sent);
        int64_t n_arcs = qkv_arc_offsets(ds, l->arc_offsets);
        if (n_arcs > INT_MAX)
            return qkv_fail(err, "%lld arc scores: more than one file dataset holds (%d); evaluate fewer sentences",
                            (long long)n_arcs, INT_MAX);
        if (!(sc->arcs = zeros((size_t)n_arcs)) || !(sc->labels = zeros(n)) || !(sc->gold_labels = zeros(n)))
            return qkv_fail(err, "out of memory for the arc and label scores of %zu words", n_words);
    }
    return QKV_OK;
}

void qkv_eval_logits_free(qkv_eval_logits *l)
{
    for (int h = 0; h < QKV_MAX_COLUMNS; h++) {
        free(l->heads[h].logits);
        free(l->heads[h].arcs);
        free(l->heads[h].labels);
        free(l->heads[h].gold_labels);
    }
    free(l->arc_offsets);
    memset(l, 0, sizeof *l);
}

/* ids [n] (-1: none) as an int64 dataset at path. */
static int write_ids(qkv_store_writer *w, const char *path, const int32_t *ids, int n, qkv_error *err)
{
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return qkv_fail(err, "out of memory for %d ids", n);
    for (int i = 0; i < n; i++)
        v[i] = ids[i];
    int status = qkv_store_write_i64_array(w, path, (size_t)n, v, err);
    free(v);
    return status;
}

/* /sentences [n_sent + 1]: the first word of each sentence of ds, then n_words. */
static int write_sentences(qkv_store_writer *w, const qkv_dataset *ds, qkv_error *err)
{
    int64_t *v = malloc(((size_t)ds->n_sent + 1) * sizeof *v);
    if (!v)
        return qkv_fail(err, "out of memory for %d sentences", ds->n_sent);
    for (int s = 0; s < ds->n_sent; s++)
        v[s] = qkv_dataset_sent_first(ds, s);
    v[ds->n_sent] = qkv_dataset_n_words(ds);
    int status = qkv_store_write_i64_array(w, "/sentences", (size_t)ds->n_sent + 1, v, err);
    free(v);
    return status;
}

/* "/heads/<col>/<name>" in p [96]. */
static const char *head_path(char *p, const char *col, const char *name)
{
    snprintf(p, 96, "/heads/%s/%s", col, name);
    return p;
}

/* Head h's datasets under /heads/<column>/. */
static int write_head(qkv_store_writer *w, const qkv_eval_logits *l, const qkv_session *s, const qkv_dataset *ds,
                      const qkv_eval_result *res, int h, qkv_error *err)
{
    const qkv_head *head = qkv_network_head(&s->model, h);
    const qkv_head_scores *sc = &l->heads[h];
    int n_words = qkv_dataset_n_words(ds), shape[2] = {n_words, head->n_tags};
    const int32_t *pred = h == 0 ? res->pred : res->head_pred[h];
    const char *col = QKV_TAG_FIELD_NAMES[s->fz.columns[h]];
    char p[96];
    if (write_ids(w, head_path(p, col, "pred"), pred, n_words, err))
        return QKV_ERR;
    if (!qkv_head_scored_by(head, QKV_SCORE_ATTACHMENT))
        return qkv_store_write_real(w, head_path(p, col, "logits"), 2, shape, sc->logits, err);
    int n_arcs = (int)l->arc_offsets[ds->n_sent];
    if (qkv_store_write_real(w, head_path(p, col, "arcs"), 1, &n_arcs, sc->arcs, err) ||
        qkv_store_write_i64_array(w, head_path(p, col, "arc_offsets"), (size_t)ds->n_sent + 1, l->arc_offsets, err) ||
        write_ids(w, head_path(p, col, "pred_heads"), res->pred_arcs, n_words, err) ||
        qkv_store_write_real(w, head_path(p, col, "labels"), 2, shape, sc->labels, err) ||
        qkv_store_write_real(w, head_path(p, col, "gold_labels"), 2, shape, sc->gold_labels, err))
        return QKV_ERR;
    return QKV_OK;
}

/* The datasets of l into w. */
static int write_all(qkv_store_writer *w, const qkv_eval_logits *l, const qkv_session *s, const qkv_dataset *ds,
                     const qkv_eval_result *res, qkv_error *err)
{
    int n_words = qkv_dataset_n_words(ds);
    if (!l->per_head)
        return qkv_store_write_real(w, "/logits", 2, (int[]){n_words, res->n_tags}, l->heads[0].logits, err) ||
                       write_ids(w, "/pred", res->pred, n_words, err)
                   ? QKV_ERR
                   : QKV_OK;
    const char *names[QKV_MAX_COLUMNS];
    for (int h = 0; h < l->n_outputs; h++)
        names[h] = QKV_TAG_FIELD_NAMES[s->fz.columns[h]];
    if (write_sentences(w, ds, err) || qkv_store_write_strings(w, "/columns", (size_t)l->n_outputs, names, err))
        return QKV_ERR;
    for (int h = 0; h < l->n_outputs; h++)
        if (write_head(w, l, s, ds, res, h, err))
            return QKV_ERR;
    return QKV_OK;
}

int qkv_eval_logits_write(const char *path, const qkv_eval_logits *l, const qkv_session *s, const qkv_dataset *ds,
                          const qkv_eval_result *res, qkv_error *err)
{
    qkv_store_writer *w;
    if (qkv_store_create(path, &w, err))
        return QKV_ERR;
    if (write_all(w, l, s, ds, res, err)) {
        qkv_store_abort(w);
        return QKV_ERR;
    }
    return qkv_store_commit(w, err);
}
