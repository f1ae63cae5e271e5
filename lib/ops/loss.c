/* Cross-entropy over rows with an ignore mask, forward and backward.
 * For logits [N, C] and targets [N] (t_i in 0..C-1, or < 0: row ignored), over the set R of
 * rows not ignored:
 *     loss = (1 / |R|) Σ_{i ∈ R} (lse_i - x_{i t_i}),   lse_i = m_i + log Σ_j exp(x_ij - m_i),
 * with m_i the row maximum (no exp overflows), sums in double. |R| = 0 gives loss 0 and a zero
 * gradient (never 0/0). Backward, for i ∈ R (ignored rows get nothing):
 *     dx_ij = dloss · (softmax(x_i)_j - [j = t_i]) / |R|,   softmax(x_i)_j = exp(x_ij - lse_i).
 * The row losses are summed in row order, so the loss never depends on the thread count.
 * Same as PyTorch's cross_entropy(reduction='mean', ignore_index=<any negative>). */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#include <string.h>

#define LOSS_PAR_MIN (QKV_PARALLEL_MIN / 8) /* exp per element */

typedef struct {
    int32_t *targets; /* a copy: the caller's array may change before backward */
    qkv_real *max, *log_sum; /* [N]: m_i and log Σ_j exp(x_ij - m_i) */
    int count;               /* |R| */
} cross_entropy_saved;

static void cross_entropy_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_cross_entropy(qkv_tape *tp, qkv_tensor *logits, const int32_t *targets)
{
    QKV_PROFILE_SCOPE("cross_entropy", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64];
    if (!logits || !targets)
        return qkv_tape_fail(tp, "cross_entropy: the logits or the targets are NULL");
    if (logits->rank < 1 || logits->size == 0)
        return qkv_tape_fail(tp, "cross_entropy: logits %s have no rows",
                             qkv_shape_str(logits, sx, sizeof sx));
    int rows = qkv_rows(logits), cols = qkv_cols(logits), count = 0;
    for (int i = 0; i < rows; i++) {
        if (targets[i] >= cols)
            return qkv_tape_fail(tp, "cross_entropy: target %ld in row %d is outside 0..%d (logits %s have C = %d classes; "
                                 "a negative target ignores the row)",
                                 (long)targets[i], i, cols - 1, qkv_shape_str(logits, sx, sizeof sx), cols);
        count += targets[i] >= 0;
    }
    qkv_tensor *y = qkv_tape_tensor(tp, 1, (int[]){1});
    cross_entropy_saved *s = qkv_tape_alloc(tp, sizeof *s);
    if (!y || !s)
        return NULL;
    s->targets = qkv_tape_alloc(tp, (size_t)rows * sizeof *s->targets);
    s->max = qkv_tape_alloc(tp, (size_t)rows * sizeof *s->max);
    s->log_sum = qkv_tape_alloc(tp, (size_t)rows * sizeof *s->log_sum);
    double *row_loss = qkv_tape_alloc(tp, (size_t)rows * sizeof *row_loss);
    if (!s->targets || !s->max || !s->log_sum || !row_loss)
        return NULL;
    memcpy(s->targets, targets, (size_t)rows * sizeof *targets);
    s->count = count;

    const qkv_real *px = logits->data;
    qkv_real *pmax = s->max, *plog = s->log_sum;
#pragma omp parallel for if (logits->size >= LOSS_PAR_MIN)
    for (int i = 0; i < rows; i++) {
        if (targets[i] < 0) {
            pmax[i] = plog[i] = 0;
            row_loss[i] = 0;
            continue;
        }
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real m = xr[0];
#pragma omp simd reduction(max : m)
        for (int j = 1; j < cols; j++)
            m = xr[j] > m ? xr[j] : m;
        double sum = 0;
        for (int j = 0; j < cols; j++)
            sum += (double)qkv_rexp(xr[j] - m);
        double ls = log(sum);
        pmax[i] = m;
        plog[i] = (qkv_real)ls;
        row_loss[i] = ((double)m - (double)xr[targets[i]]) + ls;
    }
    double total = 0;
    for (int i = 0; i < rows; i++)
        total += row_loss[i];
    y->data[0] = (qkv_real)(count ? total / count : 0.0);
    qkv_tensor *inputs[1] = {logits};
    qkv_node *node = qkv_tape_record(tp, "cross_entropy", cross_entropy_backward, y, 1, inputs);
    if (node)
        node->saved = s;
    return y;
}

static void cross_entropy_backward(qkv_tape *tp, qkv_node *node)
{
    const cross_entropy_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx || s->count == 0)
        return;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    const qkv_real coef = (qkv_real)((double)y->grad[0] / s->count), *px = x->data;
    const int32_t *targets = s->targets;
#pragma omp parallel for if (x->size >= LOSS_PAR_MIN)
    for (int i = 0; i < rows; i++) {
        if (targets[i] < 0)
            continue;
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real *dxr = dx + (size_t)i * cols;
        const qkv_real m = s->max[i], ls = s->log_sum[i];
        for (int j = 0; j < cols; j++)
            dxr[j] += coef * qkv_rexp((xr[j] - m) - ls);
        dxr[targets[i]] -= coef;
    }
}
