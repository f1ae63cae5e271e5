#include "models/network_rows.h"

#include <stdlib.h>
#include <string.h>

int qkv_network_rows_init(qkv_network_rows *r, const qkv_network *m, qkv_error *err)
{
    memset(r, 0, sizeof *r);
    const qkv_params *ps = qkv_network_params(m);
    r->is_table = calloc((size_t)ps->n + 1, sizeof *r->is_table);
    if (!r->is_table)
        return qkv_fail(err, "out of memory");
    /* an empty batch: only the tables are asked for */
    const int32_t *no_ids[QKV_NETWORK_MAX_FEATURES] = {0};
    qkv_network_input none = {.features = no_ids};
    for (int k = 0; k < qkv_network_n_tables(m); k++) {
        const int32_t *ids;
        int n_ids;
        const qkv_tensor *t = qkv_network_table_rows(m, &none, k, &ids, &n_ids);
        int i = 0;
        while (i < ps->n && &ps->items[i]->t != t)
            i++;
        if (i == ps->n)
            return qkv_fail(err, "embedding table %d is not a parameter of the model", k);
        r->param[k] = i;
        r->is_table[i] = true;
        r->n = k + 1;
        if (qkv_row_set_init(&r->sets[k], t->shape[0], err))
            return QKV_ERR;
    }
    return QKV_OK;
}

void qkv_network_rows_free(qkv_network_rows *r)
{
    for (int k = 0; k < r->n; k++)
        qkv_row_set_free(&r->sets[k]);
    free(r->is_table);
    memset(r, 0, sizeof *r);
}

void qkv_network_rows_collect(qkv_network_rows *r, const qkv_network *m, const qkv_network_input *in)
{
    for (int k = 0; k < r->n; k++) {
        const int32_t *ids;
        int n_ids;
        qkv_network_table_rows(m, in, k, &ids, &n_ids);
        qkv_row_set_add(&r->sets[k], ids, n_ids);
    }
}

void qkv_network_rows_zero_grad(qkv_network_rows *r, qkv_network *m)
{
    qkv_params *ps = qkv_network_params(m);
    for (int i = 0; i < ps->n; i++)
        if (!r->is_table[i])
            memset(ps->items[i]->t.grad, 0, ps->items[i]->t.size * sizeof(qkv_real));
    for (int k = 0; k < r->n; k++) {
        qkv_tensor *t = &ps->items[r->param[k]]->t;
        qkv_row_set_zero(&r->sets[k], t->grad, t->shape[1]);
        qkv_row_set_clear(&r->sets[k]);
    }
}

int qkv_network_rows_lazy(qkv_network_rows *r, qkv_optimizer *o, qkv_error *err)
{
    for (int k = 0; k < r->n; k++)
        if (qkv_optim_set_rows(o, r->param[k], &r->sets[k], err))
            return QKV_ERR;
    return QKV_OK;
}
