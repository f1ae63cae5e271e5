#include "lib/optim/ema.h"

#include "lib/parallel.h"

#include <stdlib.h>
#include <string.h>

int qkv_ema_init(qkv_ema *e, const qkv_params *ps, double decay, qkv_error *err)
{
    memset(e, 0, sizeof *e);
    if (!(decay > 0 && decay < 1))
        return qkv_fail(err, "ema: decay %g must be in (0, 1)", decay);
    e->decay = decay;
    e->size = qkv_params_count(ps);
    e->avg = malloc((e->size ? e->size : 1) * sizeof *e->avg);
    if (!e->avg)
        return qkv_fail(err, "ema: out of memory for %zu values", e->size);
    size_t at = 0;
    for (int i = 0; i < ps->n; i++) {
        const qkv_tensor *t = &ps->items[i]->t;
        memcpy(e->avg + at, t->data, t->size * sizeof *e->avg);
        at += t->size;
    }
    return QKV_OK;
}

void qkv_ema_free(qkv_ema *e)
{
    free(e->avg);
    memset(e, 0, sizeof *e);
}

void qkv_ema_update(qkv_ema *e, const qkv_params *ps, long step)
{
    double warm = (1.0 + (double)step) / (10.0 + (double)step);
    qkv_real d = (qkv_real)(warm < e->decay ? warm : e->decay), c = 1 - d;
    size_t at = 0;
    for (int i = 0; i < ps->n; i++) {
        const qkv_tensor *t = &ps->items[i]->t;
        qkv_real *a = e->avg + at;
        const qkv_real *p = t->data;
        size_t n = t->size;
        QKV_FOR_ELEMENTS(k, n, a[k] = d * a[k] + c * p[k];);
        at += n;
    }
}

void qkv_ema_swap(qkv_ema *e, qkv_params *ps)
{
    size_t at = 0;
    for (int i = 0; i < ps->n; i++) {
        qkv_tensor *t = &ps->items[i]->t;
        qkv_real *a = e->avg + at, *p = t->data;
        for (size_t k = 0; k < t->size; k++) {
            qkv_real v = a[k];
            a[k] = p[k];
            p[k] = v;
        }
        at += t->size;
    }
    e->swapped = !e->swapped;
}
