/* Softmax and log-softmax over each row (the last dimension), forward and backward.
 * Both shift a row by its maximum m before exponentiating, so no exp overflows:
 *     softmax:     y_j = exp(x_j - m) / Σ_k exp(x_k - m)
 *     log_softmax: y_j = (x_j - m) - log Σ_k exp(x_k - m)
 * The exps and their sum (>= 1, from the maximum's own term) come from lib/vmath.h's row
 * kernels. Backward, from the output alone:
 *     softmax:     dx_j = y_j (dy_j - Σ_k dy_k y_k)
 *     log_softmax: dx_j = dy_j - exp(y_j) Σ_k dy_k
 * A row needs a finite maximum: a row of -inf (or any +inf, NaN) gives NaN, as in PyTorch.
 * Rows are independent and threaded for large inputs (see op_util.h). */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"
#include "lib/vmath.h"

#include <string.h>

static inline qkv_real row_max(const qkv_real *x, int n)
{
    qkv_real m = x[0];
#pragma omp simd reduction(max : m)
    for (int j = 1; j < n; j++)
        m = x[j] > m ? x[j] : m;
    return m;
}

/* ---- softmax -------------------------------------------------------------------------------- */

/* The output of a row-wise op on x (at least one row); NULL (tape failed) otherwise. */
static qkv_tensor *row_op_output(qkv_tape *tp, const char *op, qkv_tensor *x)
{
    if (tp->failed)
        return NULL;
    char sx[64];
    if (!x)
        return qkv_tape_fail(tp, "%s: the input is NULL", op);
    if (x->rank < 1 || x->size == 0)
        return qkv_tape_fail(tp, "%s: input %s has no rows", op, qkv_shape_str(x, sx, sizeof sx));
    return qkv_tape_like(tp, x);
}

static void softmax_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_softmax(qkv_tape *tp, qkv_tensor *x)
{
    QKV_PROFILE_SCOPE("softmax", QKV_PROF_FWD);
    qkv_tensor *y = row_op_output(tp, "softmax", x);
    if (!y)
        return NULL;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    const qkv_real *px = x->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN_EXP, {
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real *yr = py + (size_t)i * cols;
        const qkv_real m = row_max(xr, cols);
        memcpy(yr, xr, (size_t)cols * sizeof *yr);
        const qkv_real inv = (qkv_real)(1.0 / (double)qkv_exp_shift_sum(yr, cols, m));
        _Pragma("omp simd")
        for (int j = 0; j < cols; j++)
            yr[j] *= inv;
    });
    qkv_tensor *inputs[1] = {x};
    qkv_tape_record(tp, "softmax", softmax_backward, y, 1, inputs);
    return y;
}

static void softmax_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    int rows = qkv_rows(y), cols = qkv_cols(y);
    const qkv_real *py = y->data, *dy = y->grad;
    QKV_FOR_ROWS(int, i, rows, y->size >= QKV_PARALLEL_MIN_EXP, {
        const qkv_real *yr = py + (size_t)i * cols, *dyr = dy + (size_t)i * cols;
        qkv_real *dxr = dx + (size_t)i * cols;
        double dot = 0;
        _Pragma("omp simd reduction(+ : dot)")
        for (int j = 0; j < cols; j++)
            dot += (double)(dyr[j] * yr[j]);
        const qkv_real d = (qkv_real)dot;
        _Pragma("omp simd")
        for (int j = 0; j < cols; j++)
            dxr[j] += yr[j] * (dyr[j] - d);
    });
}

/* ---- log_softmax ------------------------------------------------------------------------------ */

static void log_softmax_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_log_softmax(qkv_tape *tp, qkv_tensor *x)
{
    QKV_PROFILE_SCOPE("log_softmax", QKV_PROF_FWD);
    qkv_tensor *y = row_op_output(tp, "log_softmax", x);
    if (!y)
        return NULL;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    const qkv_real *px = x->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN_EXP, {
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real *yr = py + (size_t)i * cols;
        const qkv_real m = row_max(xr, cols);
        const qkv_real lse = (qkv_real)log(qkv_exp_shift_total(xr, cols, m));
        _Pragma("omp simd")
        for (int j = 0; j < cols; j++)
            yr[j] = (xr[j] - m) - lse;
    });
    qkv_tensor *inputs[1] = {x};
    qkv_tape_record(tp, "log_softmax", log_softmax_backward, y, 1, inputs);
    return y;
}

static void log_softmax_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    int rows = qkv_rows(y), cols = qkv_cols(y);
    const qkv_real *py = y->data, *dy = y->grad;
    QKV_FOR_ROWS(int, i, rows, y->size >= QKV_PARALLEL_MIN_EXP, {
        const qkv_real *yr = py + (size_t)i * cols, *dyr = dy + (size_t)i * cols;
        qkv_real *dxr = dx + (size_t)i * cols;
        double sum = 0;
        _Pragma("omp simd reduction(+ : sum)")
        for (int j = 0; j < cols; j++)
            sum += (double)dyr[j];
        _Pragma("omp simd")
        for (int j = 0; j < cols; j++)
            dxr[j] += dyr[j];
        qkv_exp_shift_axpy(yr, cols, 0, (qkv_real)-sum, dxr); /* exp(y_j) = softmax(x)_j */
    });
}
