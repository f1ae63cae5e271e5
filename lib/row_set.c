#include "lib/row_set.h"

#include <stdlib.h>
#include <string.h>

int qkv_row_set_init(qkv_row_set *s, int v, qkv_error *err)
{
    memset(s, 0, sizeof *s);
    if (v < 1)
        return qkv_fail(err, "row set: %d rows; need at least one", v);
    s->rows = malloc((size_t)v * sizeof *s->rows);
    s->mark = calloc((size_t)v, 1);
    if (!s->rows || !s->mark) {
        qkv_row_set_free(s);
        return qkv_fail(err, "out of memory for a row set of %d rows", v);
    }
    s->n_total = v;
    return QKV_OK;
}

void qkv_row_set_free(qkv_row_set *s)
{
    free(s->rows);
    free(s->mark);
    memset(s, 0, sizeof *s);
}

void qkv_row_set_add(qkv_row_set *s, const int32_t *ids, int n)
{
    for (int i = 0; i < n; i++) {
        int32_t r = ids[i];
        if (!s->mark[r]) {
            s->mark[r] = 1;
            s->rows[s->n++] = r;
        }
    }
}

void qkv_row_set_clear(qkv_row_set *s)
{
    for (int i = 0; i < s->n; i++)
        s->mark[s->rows[i]] = 0;
    s->n = 0;
}

void qkv_row_set_zero(const qkv_row_set *s, qkv_real *x, int d)
{
    for (int i = 0; i < s->n; i++)
        memset(x + (size_t)s->rows[i] * d, 0, (size_t)d * sizeof *x);
}
