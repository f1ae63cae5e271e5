/* Embedding lookup, forward and backward: y [n, D] row i = table [V, D] row ids[i].
 * Backward adds dy row i into table->grad row ids[i]: rows no id picks are never touched
 * (an optimizer with sparse updates could skip them). Repeated ids accumulate; that loop is
 * serial, in order, so the sum never depends on threads. */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <string.h>

typedef struct {
    int32_t *ids; /* a copy: the caller's array may change before backward */
    int n;
} embedding_saved;

static void embedding_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_embedding(qkv_tape *tp, qkv_tensor *table, const int32_t *ids, int n)
{
    QKV_PROFILE_SCOPE("embedding", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char st[64];
    if (!table || (!ids && n > 0))
        return qkv_tape_fail(tp, "embedding: the table or the ids are NULL");
    if (table->rank != 2)
        return qkv_tape_fail(tp, "embedding: the table must be a matrix [V, D], got %s",
                             qkv_shape_str(table, st, sizeof st));
    if (n < 1)
        return qkv_tape_fail(tp, "embedding: %d ids; need at least one", n);
    int v = table->shape[0], d = table->shape[1];
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= v)
            return qkv_tape_fail(tp, "embedding: id %ld at position %d is outside 0..%d (the table %s has V = %d rows)",
                                 (long)ids[i], i, v - 1, qkv_shape_str(table, st, sizeof st), v);
    qkv_tensor *y = qkv_tape_tensor2(tp, n, d);
    if (!y)
        return NULL;
    const qkv_real *pt = table->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, i, n, y->size >= QKV_PARALLEL_MIN, {
        memcpy(py + (size_t)i * d, pt + (size_t)ids[i] * d, (size_t)d * sizeof *py);
    });
    qkv_tensor *inputs[1] = {table};
    qkv_node *node = qkv_tape_record(tp, "embedding", embedding_backward, y, 1, inputs);
    if (node) {
        embedding_saved *s = qkv_tape_alloc(tp, sizeof *s);
        int32_t *copy = qkv_tape_alloc(tp, (size_t)n * sizeof *copy);
        if (!s || !copy)
            return NULL;
        memcpy(copy, ids, (size_t)n * sizeof *copy);
        s->ids = copy;
        s->n = n;
        node->saved = s;
    }
    return y;
}

static void embedding_backward(qkv_tape *tp, qkv_node *node)
{
    const embedding_saved *s = node->saved;
    qkv_tensor *table = node->in[0], *y = node->out;
    qkv_real *dtable = qkv_grad(tp, table);
    if (!dtable)
        return;
    int d = table->shape[1];
    const qkv_real *dy = y->grad;
    for (int i = 0; i < s->n; i++) {
        qkv_real *dst = dtable + (size_t)s->ids[i] * d;
        const qkv_real *src = dy + (size_t)i * d;
        for (int j = 0; j < d; j++)
            dst[j] += src[j];
    }
}
