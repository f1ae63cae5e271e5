#include "lib/tape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qkv_tape_init(qkv_tape *tp, size_t reserve_bytes)
{
    memset(tp, 0, sizeof *tp);
    return qkv_arena_init(&tp->arena, reserve_bytes);
}

void qkv_tape_free(qkv_tape *tp)
{
    qkv_arena_free(&tp->arena);
    free(tp->nodes);
    memset(tp, 0, sizeof *tp);
}

void qkv_tape_reset(qkv_tape *tp)
{
    qkv_arena_reset(&tp->arena);
    tp->n_nodes = 0;
    tp->failed = false;
    tp->err.msg[0] = '\0';
}

qkv_tensor *qkv_tape_fail(qkv_tape *tp, const char *fmt, ...)
{
    if (!tp->failed) { /* keep the first error: later ones are its consequences */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tp->err.msg, sizeof tp->err.msg, fmt, ap);
        va_end(ap);
        tp->err.sentence = -1;
        tp->failed = true;
    }
    return NULL;
}

qkv_tensor *qkv_tape_fail_sentence(qkv_tape *tp, int sentence, const char *fmt, ...)
{
    if (!tp->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tp->err.msg, sizeof tp->err.msg, fmt, ap);
        va_end(ap);
        tp->err.sentence = sentence;
        tp->failed = true;
    }
    return NULL;
}

qkv_arena_mark qkv_tape_mark(const qkv_tape *tp)
{
    return qkv_arena_mark_now(&tp->arena);
}

qkv_tensor *qkv_tape_keep_only(qkv_tape *tp, qkv_arena_mark m, const qkv_tensor *y)
{
    if (!y || !tp->no_grad || tp->failed)
        return (qkv_tensor *)y;
    qkv_tensor keep = *y; /* y's struct may be overwritten by the new one */
    qkv_arena_release(&tp->arena, m);
    qkv_tensor *t = qkv_tape_tensor(tp, keep.rank, keep.shape); /* at m: below or beside keep.data */
    if (!t)
        return NULL;
    memmove(t->data, keep.data, keep.size * sizeof(qkv_real));
    return t;
}

void *qkv_tape_alloc(qkv_tape *tp, size_t bytes)
{
    void *p = qkv_arena_alloc(&tp->arena, bytes);
    if (!p)
        qkv_tape_fail(tp, "out of memory: %zu bytes for activations", bytes);
    return p;
}

qkv_tensor *qkv_tape_tensor(qkv_tape *tp, int rank, const int *shape)
{
    if (tp->failed)
        return NULL;
    if (rank < 0 || rank > QKV_MAX_RANK)
        return qkv_tape_fail(tp, "tensor rank %d is outside 0..%d", rank, QKV_MAX_RANK);
    qkv_tensor *t = qkv_tape_alloc(tp, sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    t->size = qkv_shape_size(rank, shape);
    t->data = qkv_tape_alloc(tp, t->size * sizeof(qkv_real));
    return t->data ? t : NULL;
}

qkv_tensor *qkv_tape_tensor2(qkv_tape *tp, int rows, int cols)
{
    int shape[2] = {rows, cols};
    return qkv_tape_tensor(tp, 2, shape);
}

qkv_tensor *qkv_tape_like(qkv_tape *tp, const qkv_tensor *t)
{
    return qkv_tape_tensor(tp, t->rank, t->shape);
}

qkv_node *qkv_tape_record(qkv_tape *tp, const char *op, qkv_backward_fn backward, qkv_tensor *out,
                          int n_in, qkv_tensor *const *in)
{
    out->requires_grad = false;
    if (tp->no_grad || tp->failed)
        return NULL;
    for (int i = 0; i < n_in; i++)
        if (in[i] && in[i]->requires_grad)
            out->requires_grad = true;
    if (!out->requires_grad)
        return NULL;
    if (tp->n_nodes == tp->cap_nodes) {
        /* Grows during the first steps only; reset keeps the capacity. */
        int cap = tp->cap_nodes ? 2 * tp->cap_nodes : 256;
        qkv_node *nodes = realloc(tp->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes) {
            qkv_tape_fail(tp, "out of memory: tape of %d nodes", cap);
            return NULL;
        }
        tp->nodes = nodes;
        tp->cap_nodes = cap;
    }
    qkv_node *node = &tp->nodes[tp->n_nodes++];
    memset(node, 0, sizeof *node);
    node->op = op;
    node->backward = backward;
    node->out = out;
    node->n_in = n_in;
    for (int i = 0; i < n_in; i++)
        node->in[i] = in[i];
    return node;
}

qkv_real *qkv_grad(qkv_tape *tp, qkv_tensor *t)
{
    if (!t || !t->requires_grad)
        return NULL;
    if (!t->grad)
        t->grad = qkv_arena_calloc(&tp->arena, t->size * sizeof(qkv_real));
    if (!t->grad)
        qkv_tape_fail(tp, "out of memory: gradient of %zu elements", t->size);
    return t->grad;
}

static int run_backward(qkv_tape *tp)
{
    for (int i = tp->n_nodes - 1; i >= 0 && !tp->failed; i--) {
        qkv_node *node = &tp->nodes[i];
        if (!node->out->grad)
            continue; /* nothing flowed back into this node's output */
        bool fault = tp->fault_op && strcmp(tp->fault_op, node->op) == 0;
        if (fault)
            for (size_t k = 0; k < node->out->size; k++)
                node->out->grad[k] *= (qkv_real)1.01;
        int prof = qkv_profile_begin(node->op, QKV_PROF_BWD);
        node->backward(tp, node);
        qkv_profile_end(prof);
        if (fault)
            for (size_t k = 0; k < node->out->size; k++)
                node->out->grad[k] /= (qkv_real)1.01;
    }
    return tp->failed ? QKV_ERR : QKV_OK;
}

int qkv_backward_from(qkv_tape *tp, qkv_tensor *out, const qkv_real *out_grad)
{
    if (tp->failed || !out)
        return QKV_ERR;
    if (!out->requires_grad)
        return qkv_fail(&tp->err, "backward: the output does not depend on any parameter");
    qkv_real *g = qkv_grad(tp, out);
    if (!g)
        return QKV_ERR;
    memcpy(g, out_grad, out->size * sizeof *g);
    return run_backward(tp);
}

int qkv_backward(qkv_tape *tp, qkv_tensor *loss)
{
    if (tp->failed || !loss)
        return QKV_ERR;
    if (loss->size != 1)
        return qkv_fail(&tp->err, "backward: the loss must be a scalar, got %zu elements", loss->size);
    qkv_real one = 1;
    return qkv_backward_from(tp, loss, &one);
}
