/* Seen UPOS/XPOS pairs and decoding that keeps to them (tag_pairs.h). */
#include "api/tag_pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/predict.h"

/* The heads of the UPOS and XPOS columns of s (-1 when it has no such column). */
static void pair_heads(const qkv_session *s, int *hu, int *hx)
{
    *hu = *hx = -1;
    int n = qkv_featurizer_n_columns(&s->fz);
    for (int h = 0; n > 1 && h < n; h++) {
        if (s->fz.columns[h] == QKV_TAG_UPOS)
            *hu = h;
        else if (s->fz.columns[h] == QKV_TAG_XPOS)
            *hx = h;
    }
}

bool qkv_tag_pairs_active(const qkv_session *s)
{
    int hu, hx;
    pair_heads(s, &hu, &hx);
    return s->tag_pairs.allowed && hu >= 0 && hx >= 0 && s->tag_pairs.n_upos == qkv_featurizer_n_classes(&s->fz, hu) &&
           s->tag_pairs.n_xpos == qkv_featurizer_n_classes(&s->fz, hx) && qkv_head_tag_scores(qkv_network_head(&s->model, hu)) &&
           qkv_head_tag_scores(qkv_network_head(&s->model, hx));
}

/* Room for s's pairs, all unseen. */
static int alloc_pairs(qkv_session *s, int hu, int hx, qkv_error *err)
{
    free(s->tag_pairs.allowed);
    s->tag_pairs.n_upos = qkv_featurizer_n_classes(&s->fz, hu);
    s->tag_pairs.n_xpos = qkv_featurizer_n_classes(&s->fz, hx);
    s->tag_pairs.allowed = calloc((size_t)s->tag_pairs.n_upos * (size_t)s->tag_pairs.n_xpos + 1, 1);
    return s->tag_pairs.allowed ? QKV_OK : qkv_fail(err, "out of memory for the UPOS/XPOS pairs");
}

int qkv_tag_pairs_build(qkv_session *s, qkv_error *err)
{
    int hu, hx;
    pair_heads(s, &hu, &hx);
    if (hu < 0 || hx < 0 || qkv_dataset_n_columns(&s->train) <= (hu > hx ? hu : hx))
        return QKV_OK;
    if (alloc_pairs(s, hu, hx, err))
        return QKV_ERR;
    const int32_t *u = qkv_dataset_column_tags(&s->train, hu), *x = qkv_dataset_column_tags(&s->train, hx);
    for (int w = 0; w < qkv_dataset_n_words(&s->train); w++)
        if (u[w] >= 0 && x[w] >= 0)
            s->tag_pairs.allowed[(size_t)u[w] * (size_t)s->tag_pairs.n_xpos + (size_t)x[w]] = 1;
    return QKV_OK;
}

static int cmp_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int qkv_tag_pairs_strings(const qkv_session *s, size_t *n, char ***strings, qkv_error *err)
{
    *n = 0;
    *strings = NULL;
    int hu, hx;
    pair_heads(s, &hu, &hx);
    if (!qkv_tag_pairs_active(s))
        return QKV_OK;
    size_t count = 0, bytes = 0;
    for (int u = 0; u < s->tag_pairs.n_upos; u++)
        for (int x = 0; x < s->tag_pairs.n_xpos; x++)
            if (s->tag_pairs.allowed[(size_t)u * (size_t)s->tag_pairs.n_xpos + (size_t)x]) {
                count++;
                bytes += strlen(qkv_featurizer_class(&s->fz, hu, u)) + strlen(qkv_featurizer_class(&s->fz, hx, x)) + 2;
            }
    char **list = malloc((count + 1) * sizeof *list + bytes);
    if (!list)
        return qkv_fail(err, "out of memory for the UPOS/XPOS pairs");
    char *at = (char *)(list + count + 1);
    size_t i = 0;
    for (int u = 0; u < s->tag_pairs.n_upos; u++)
        for (int x = 0; x < s->tag_pairs.n_xpos; x++)
            if (s->tag_pairs.allowed[(size_t)u * (size_t)s->tag_pairs.n_xpos + (size_t)x]) {
                list[i++] = at;
                at += sprintf(at, "%s\t%s", qkv_featurizer_class(&s->fz, hu, u), qkv_featurizer_class(&s->fz, hx, x)) + 1;
            }
    qsort(list, count, sizeof *list, cmp_string);
    *n = count;
    *strings = list;
    return QKV_OK;
}

/* The class of column head h named name[0..len), or -1. */
static int class_of(const qkv_session *s, int h, const char *name, size_t len)
{
    for (int c = 0; c < qkv_featurizer_n_classes(&s->fz, h); c++) {
        const char *cls = qkv_featurizer_class(&s->fz, h, c);
        if (strlen(cls) == len && !memcmp(cls, name, len))
            return c;
    }
    return -1;
}

int qkv_tag_pairs_set(qkv_session *s, size_t n, const char *const *strings, qkv_error *err)
{
    int hu, hx;
    pair_heads(s, &hu, &hx);
    if (hu < 0 || hx < 0)
        return qkv_fail(err, "UPOS/XPOS pairs for a model without a UPOS and an XPOS column");
    if (alloc_pairs(s, hu, hx, err))
        return QKV_ERR;
    for (size_t i = 0; i < n; i++) {
        const char *tab = strchr(strings[i], '\t');
        int u = tab ? class_of(s, hu, strings[i], (size_t)(tab - strings[i])) : -1;
        int x = tab ? class_of(s, hx, tab + 1, strlen(tab + 1)) : -1;
        if (u < 0 || x < 0) {
            free(s->tag_pairs.allowed);
            s->tag_pairs.allowed = NULL;
            return qkv_fail(err, "pair %zu: \"%.80s\" is not UPOS<TAB>XPOS of the model's tags", i + 1, strings[i]);
        }
        s->tag_pairs.allowed[(size_t)u * (size_t)s->tag_pairs.n_xpos + (size_t)x] = 1;
    }
    return QKV_OK;
}

/* row[0..n) as log-probabilities (log-softmax) into out. */
static void log_softmax(const qkv_real *row, int n, double *out)
{
    double max = row[0], sum = 0;
    for (int c = 1; c < n; c++)
        max = row[c] > max ? row[c] : max;
    for (int c = 0; c < n; c++)
        sum += exp((double)row[c] - max);
    double lse = max + log(sum);
    for (int c = 0; c < n; c++)
        out[c] = (double)row[c] - lse;
}

/* Words whose (pu[w], px[w]) is unseen take the seen pair of the highest summed log-probability
 * of the logits lu [n_words, n_upos] and lx [n_words, n_xpos]. */
static void keep_to_pairs(const qkv_session *s, int n_words, const qkv_real *lu, const qkv_real *lx, int32_t *pu,
                          int32_t *px, double *work)
{
    int nu = s->tag_pairs.n_upos, nx = s->tag_pairs.n_xpos;
    const uint8_t *ok = s->tag_pairs.allowed;
    double *su = work, *sx = work + nu;
    for (int w = 0; w < n_words; w++) {
        if (pu[w] < 0 || px[w] < 0 || ok[(size_t)pu[w] * (size_t)nx + (size_t)px[w]])
            continue;
        log_softmax(lu + (size_t)w * nu, nu, su);
        log_softmax(lx + (size_t)w * nx, nx, sx);
        int bu = -1, bx = -1;
        for (int u = 0; u < nu; u++)
            for (int x = 0; x < nx; x++)
                if (ok[(size_t)u * (size_t)nx + (size_t)x] && (bu < 0 || su[u] + sx[x] > su[bu] + sx[bx])) {
                    bu = u;
                    bx = x;
                }
        if (bu >= 0) {
            pu[w] = bu;
            px[w] = bx;
        }
    }
}

int qkv_predict_heads_paired(qkv_session *s, const qkv_dataset *ds, const qkv_batching *b, const int32_t *const *needs,
                             const qkv_heads_out *out, qkv_error *err)
{
    int n_outputs = qkv_network_n_outputs(&s->model);
    if (!qkv_tag_pairs_active(s) || n_outputs > QKV_MAX_COLUMNS)
        return qkv_predict_heads_scores(&s->model, ds, b, needs, out, err);
    int hu, hx, nu = s->tag_pairs.n_upos, nx = s->tag_pairs.n_xpos;
    pair_heads(s, &hu, &hx);
    size_t n_words = (size_t)qkv_dataset_n_words(ds) + 1;
    qkv_head_scores sc[QKV_MAX_COLUMNS];
    memset(sc, 0, sizeof sc);
    if (out->scores)
        memcpy(sc, out->scores, (size_t)n_outputs * sizeof *sc);
    qkv_real *own_u = sc[hu].logits ? NULL : malloc(n_words * (size_t)nu * sizeof *own_u);
    qkv_real *own_x = sc[hx].logits ? NULL : malloc(n_words * (size_t)nx * sizeof *own_x);
    double *work = malloc((size_t)(nu + nx) * sizeof *work);
    if (own_u)
        sc[hu].logits = own_u;
    if (own_x)
        sc[hx].logits = own_x;
    int status = !sc[hu].logits || !sc[hx].logits || !work ? qkv_fail(err, "out of memory for the tag scores") : QKV_OK;
    qkv_heads_out with_logits = *out;
    with_logits.scores = sc;
    if (status == QKV_OK)
        status = qkv_predict_heads_scores(&s->model, ds, b, needs, &with_logits, err);
    if (status == QKV_OK)
        keep_to_pairs(s, qkv_dataset_n_words(ds), sc[hu].logits, sc[hx].logits, out->pred[hu], out->pred[hx], work);
    free(own_u);
    free(own_x);
    free(work);
    return status;
}
