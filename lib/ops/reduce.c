/* Reductions to a scalar, forward and backward: sum and mean of all elements.
 * The forward sum accumulates in double in a fixed order (SIMD lanes, no threads), so the
 * result is the same on any number of cores. */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

static double sum_all(const qkv_real *x, size_t n)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < n; i++)
        s += (double)x[i];
    return s;
}

static void sum_backward(qkv_tape *tp, qkv_node *node);
static void mean_backward(qkv_tape *tp, qkv_node *node);

static qkv_tensor *reduce(qkv_tape *tp, qkv_tensor *x, bool mean)
{
    const char *op = mean ? "mean" : "sum";
    QKV_PROFILE_SCOPE(op, QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (!x)
        return qkv_tape_fail(tp, "%s: the operand is NULL", op);
    if (mean && x->size == 0)
        return qkv_tape_fail(tp, "mean: the tensor has no elements");
    qkv_tensor *y = qkv_tape_tensor(tp, 1, (int[]){1});
    if (!y)
        return NULL;
    double s = sum_all(x->data, x->size);
    y->data[0] = (qkv_real)(mean ? s / (double)x->size : s);
    qkv_tensor *inputs[1] = {x};
    qkv_tape_record(tp, op, mean ? mean_backward : sum_backward, y, 1, inputs);
    return y;
}

qkv_tensor *qkv_sum(qkv_tape *tp, qkv_tensor *x) { return reduce(tp, x, false); }
qkv_tensor *qkv_mean(qkv_tape *tp, qkv_tensor *x) { return reduce(tp, x, true); }

/* dx += c for every element, c = dy for sum, dy / n for mean. */
static void reduce_backward(qkv_tape *tp, qkv_node *node, bool mean)
{
    qkv_tensor *x = node->in[0];
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    size_t n = x->size;
    const qkv_real c = mean ? (qkv_real)((double)node->out->grad[0] / (double)n) : node->out->grad[0];
    QKV_FOR_ELEMENTS(i, n, dx[i] += c;);
}

static void sum_backward(qkv_tape *tp, qkv_node *node) { reduce_backward(tp, node, false); }
static void mean_backward(qkv_tape *tp, qkv_node *node) { reduce_backward(tp, node, true); }
