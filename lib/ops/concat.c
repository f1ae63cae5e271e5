/* Concatenating matrices along rows and columns, forward and backward. See lib/ops/concat.h. */
#include "lib/ops/concat.h"

#include <string.h>

static void concat_rows_backward(qkv_tape *tp, qkv_node *node);
static void concat_cols_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_concat_rows(qkv_tape *tp, int n, qkv_tensor *const *parts)
{
    QKV_PROFILE_SCOPE("concat_rows", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (n < 1 || n > QKV_MAX_INPUTS)
        return qkv_tape_fail(tp, "concat_rows: %d parts, expected 1 to %d", n, QKV_MAX_INPUTS);
    int D = qkv_cols(parts[0]), rows = 0;
    for (int i = 0; i < n; i++) {
        if (qkv_cols(parts[i]) != D)
            return qkv_tape_fail(tp, "concat_rows: part %d has %d columns, part 0 has %d", i, qkv_cols(parts[i]), D);
        rows += qkv_rows(parts[i]);
    }
    qkv_tensor *y = qkv_tape_tensor2(tp, rows, D);
    if (!y)
        return NULL;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        memcpy(y->data + at, parts[i]->data, parts[i]->size * sizeof(qkv_real));
        at += parts[i]->size;
    }
    qkv_tape_record(tp, "concat_rows", concat_rows_backward, y, n, parts);
    return y;
}

static void concat_rows_backward(qkv_tape *tp, qkv_node *node)
{
    size_t at = 0;
    for (int i = 0; i < node->n_in; i++) {
        qkv_tensor *p = node->in[i];
        qkv_real *d = qkv_grad(tp, p);
        if (d)
            for (size_t k = 0; k < p->size; k++)
                d[k] += node->out->grad[at + k];
        at += p->size;
    }
}

qkv_tensor *qkv_concat_rows_many(qkv_tape *tp, int n, qkv_tensor *const *parts)
{
    if (n <= QKV_MAX_INPUTS)
        return qkv_concat_rows(tp, n, parts);
    int groups = (n + QKV_MAX_INPUTS - 1) / QKV_MAX_INPUTS;
    qkv_tensor **level = qkv_tape_alloc(tp, (size_t)groups * sizeof *level);
    if (!level)
        return NULL;
    for (int g = 0; g < groups; g++) {
        int k = n - g * QKV_MAX_INPUTS < QKV_MAX_INPUTS ? n - g * QKV_MAX_INPUTS : QKV_MAX_INPUTS;
        if (!(level[g] = qkv_concat_rows(tp, k, parts + (size_t)g * QKV_MAX_INPUTS)))
            return NULL;
    }
    return qkv_concat_rows_many(tp, groups, level);
}

qkv_tensor *qkv_concat_cols(qkv_tape *tp, int n, qkv_tensor *const *parts)
{
    QKV_PROFILE_SCOPE("concat_cols", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (n < 1 || n > QKV_MAX_INPUTS)
        return qkv_tape_fail(tp, "concat_cols: %d parts, expected 1 to %d", n, QKV_MAX_INPUTS);
    int R = parts[0]->shape[0], cols = 0;
    for (int i = 0; i < n; i++) {
        if (parts[i]->rank != 2)
            return qkv_tape_fail(tp, "concat_cols: part %d has rank %d, expected 2", i, parts[i]->rank);
        if (parts[i]->shape[0] != R)
            return qkv_tape_fail(tp, "concat_cols: part %d has %d rows, part 0 has %d", i, parts[i]->shape[0], R);
        cols += parts[i]->shape[1];
    }
    qkv_tensor *y = qkv_tape_tensor2(tp, R, cols);
    if (!y)
        return NULL;
    for (int i = 0, at = 0; i < n; at += parts[i]->shape[1], i++) {
        int D = parts[i]->shape[1];
        for (int r = 0; r < R; r++)
            memcpy(y->data + (size_t)r * cols + at, parts[i]->data + (size_t)r * D, (size_t)D * sizeof(qkv_real));
    }
    qkv_tape_record(tp, "concat_cols", concat_cols_backward, y, n, parts);
    return y;
}

static void concat_cols_backward(qkv_tape *tp, qkv_node *node)
{
    const int R = node->out->shape[0], cols = node->out->shape[1];
    for (int i = 0, at = 0; i < node->n_in; at += node->in[i]->shape[1], i++) {
        const int D = node->in[i]->shape[1];
        qkv_real *d = qkv_grad(tp, node->in[i]);
        for (int r = 0; d && r < R; r++)
            for (int c = 0; c < D; c++)
                d[(size_t)r * D + c] += node->out->grad[(size_t)r * cols + at + c];
    }
}
