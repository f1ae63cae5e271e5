/* Cross-entropy over rows with an ignore mask, forward and backward, with label smoothing.
 * For logits [N, C] and targets [N] (t_i in 0..C-1, or < 0: row ignored), over the set R of
 * rows not ignored, the target of row i is the distribution q_i = (1 - ε) onehot(t_i) + ε / C
 * (Szegedy et al. 2016, "Rethinking the Inception Architecture", section 7; ε = 0: one-hot):
 *     loss = (1 / |R|) Σ_{i ∈ R} [(1 - ε)(lse_i - x_{i t_i}) + ε (lse_i - (1 / C) Σ_j x_ij)],
 *     lse_i = m_i + log Σ_j exp(x_ij - m_i),
 * i.e. Σ_j -q_ij log softmax(x_i)_j, with m_i the row maximum (no exp overflows; the exps by
 * lib/vmath.h's row kernels), the row losses summed in double.
 * |R| = 0 gives loss 0 and a zero gradient (never 0/0). Backward, for i ∈ R (ignored rows get
 * nothing):
 *     dx_ij = dloss · (softmax(x_i)_j - q_ij) / |R|,   softmax(x_i)_j = exp(x_ij - lse_i).
 * ε = 0 takes the path without the smoothing terms at all (the plain cross-entropy, bit for bit).
 * The row losses are summed in row order, so the loss never depends on the thread count.
 * Same as PyTorch's cross_entropy(reduction='mean', ignore_index=<any negative>,
 * label_smoothing=ε). */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"
#include "lib/vmath.h"

#include <string.h>

typedef struct {
    int32_t *targets; /* a copy: the caller's array may change before backward */
    qkv_real *max, *log_sum; /* [N]: m_i and log Σ_j exp(x_ij - m_i) */
    int count;               /* |R| */
    double smoothing;        /* ε */
} cross_entropy_saved;

static void cross_entropy_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_cross_entropy(qkv_tape *tp, qkv_tensor *logits, const int32_t *targets)
{
    return qkv_cross_entropy_smoothed(tp, logits, targets, 0);
}

/* Row i's loss: -log softmax(x_i)_t when ε = 0, else the smoothed sum (see the top). */
static double row_loss_of(const qkv_real *xr, int cols, int32_t t, qkv_real m, double ls, double eps)
{
    const double nll = ((double)m - (double)xr[t]) + ls;
    if (eps == 0)
        return nll;
    double sum = 0;
    for (int j = 0; j < cols; j++)
        sum += (double)xr[j];
    return (1 - eps) * nll + eps * (((double)m + ls) - sum / cols);
}

qkv_tensor *qkv_cross_entropy_smoothed(qkv_tape *tp, qkv_tensor *logits, const int32_t *targets, double smoothing)
{
    QKV_PROFILE_SCOPE("cross_entropy", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64];
    if (!logits || !targets)
        return qkv_tape_fail(tp, "cross_entropy: the logits or the targets are NULL");
    if (!(smoothing >= 0 && smoothing < 1))
        return qkv_tape_fail(tp, "cross_entropy: label smoothing %g is outside [0, 1)", smoothing);
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
    s->smoothing = smoothing;

    const qkv_real *px = logits->data;
    qkv_real *pmax = s->max, *plog = s->log_sum;
    QKV_FOR_ROWS(int, i, rows, logits->size >= QKV_PARALLEL_MIN_EXP, {
        if (targets[i] < 0) {
            pmax[i] = plog[i] = 0;
            row_loss[i] = 0;
            continue;
        }
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real m = xr[0];
        _Pragma("omp simd reduction(max : m)")
        for (int j = 1; j < cols; j++)
            m = xr[j] > m ? xr[j] : m;
        double ls = log(qkv_exp_shift_total(xr, cols, m));
        pmax[i] = m;
        plog[i] = (qkv_real)ls;
        row_loss[i] = row_loss_of(xr, cols, targets[i], m, ls, smoothing);
    });
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
    /* q_ij = (1 - ε) [j = t_i] + ε / C: the gold class's part and every class's part */
    const double eps = s->smoothing;
    const qkv_real gold = eps == 0 ? coef : (qkv_real)((double)coef * (1 - eps));
    const qkv_real spread = (qkv_real)((double)coef * eps / cols);
    QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN_EXP, {
        if (targets[i] < 0)
            continue;
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real *dxr = dx + (size_t)i * cols;
        /* coef softmax(x_i)_j = coef exp(-ls) exp(x_ij - m) */
        qkv_exp_shift_axpy(xr, cols, s->max[i], (qkv_real)((double)coef * exp(-(double)s->log_sum[i])), dxr);
        if (eps != 0)
            for (int j = 0; j < cols; j++)
                dxr[j] -= spread;
        dxr[targets[i]] -= gold;
    });
}
