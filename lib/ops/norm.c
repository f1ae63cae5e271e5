/* Layer norm over the last dimension, forward and backward (Ba, Kiros & Hinton 2016,
 * "Layer Normalization"), with PyTorch's conventions: biased variance (divide by C) and eps
 * added to the variance inside the square root,
 *     mean_i = Σ_j x_ij / C,   var_i = Σ_j (x_ij - mean_i)² / C,
 *     rstd_i = 1 / sqrt(var_i + eps),   xhat_ij = (x_ij - mean_i) · rstd_i,
 *     y_ij = xhat_ij · gain_j + bias_j.
 * Row statistics accumulate in double (two passes: mean, then squared deviations); mean_i and
 * rstd_i are saved for backward:
 *     g_ij = dy_ij · gain_j,
 *     dx_ij = rstd_i · (g_ij - Σ_k g_ik / C - xhat_ij · Σ_k g_ik xhat_ik / C),
 *     dgain_j = Σ_i dy_ij xhat_ij,   dbias_j = Σ_i dy_ij.
 * Rows are independent and threaded for large inputs; dgain and dbias are summed over rows in
 * row order per block of columns (double accumulators), so they do not depend on threads. */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

#define LN_COL_BLOCK 64

typedef struct {
    qkv_real *mean, *rstd; /* [rows] */
} layer_norm_saved;

/* n copies of v in the arena, standing in for a missing gain (1) or bias (0) so that the row
 * loops have one branch-free form. NULL when out of memory (the tape is then failed). */
static const qkv_real *constant_row(qkv_tape *tp, int n, qkv_real v)
{
    qkv_real *row = qkv_tape_alloc(tp, (size_t)n * sizeof *row);
    if (row)
        for (int j = 0; j < n; j++)
            row[j] = v;
    return row;
}

static void layer_norm_backward(qkv_tape *tp, qkv_node *node);

/* Checks x, gain, bias and eps for `op`; 0, or -1 with the tape failed. */
static int ln_check(qkv_tape *tp, const char *op, const qkv_tensor *x, const qkv_tensor *gain,
                    const qkv_tensor *bias, double eps)
{
    char sx[64], sp[64];
    if (!x)
        return qkv_tape_fail(tp, "%s: the input is NULL", op), -1;
    if (x->rank < 1 || x->size == 0)
        return qkv_tape_fail(tp, "%s: input %s has no elements to normalize", op, qkv_shape_str(x, sx, sizeof sx)), -1;
    int cols = qkv_cols(x);
    if (gain && gain->size != (size_t)cols)
        return qkv_tape_fail(tp, "%s: gain %s does not match the last dimension of x %s", op,
                             qkv_shape_str(gain, sp, sizeof sp), qkv_shape_str(x, sx, sizeof sx)), -1;
    if (bias && bias->size != (size_t)cols)
        return qkv_tape_fail(tp, "%s: bias %s does not match the last dimension of x %s", op,
                             qkv_shape_str(bias, sp, sizeof sp), qkv_shape_str(x, sx, sizeof sx)), -1;
    if (!(eps >= 0) || !isfinite(eps))
        return qkv_tape_fail(tp, "%s: eps %g must be finite and >= 0", op, eps), -1;
    return 0;
}

/* The output [rows, cols] like x and its saved row statistics; NULL with the tape failed. */
static qkv_tensor *ln_output(qkv_tape *tp, const qkv_tensor *x, layer_norm_saved **saved)
{
    int rows = qkv_rows(x);
    qkv_tensor *y = qkv_tape_like(tp, x);
    layer_norm_saved *s = qkv_tape_alloc(tp, sizeof *s);
    if (!y || !s)
        return NULL;
    s->mean = qkv_tape_alloc(tp, (size_t)rows * sizeof *s->mean);
    s->rstd = qkv_tape_alloc(tp, (size_t)rows * sizeof *s->rstd);
    if (!s->mean || !s->rstd)
        return NULL;
    *saved = s;
    return y;
}

/* One row: yr = layer norm of xr (cols elements), its mean and rstd into *m, *r. */
static inline void ln_row(const qkv_real *restrict xr, qkv_real *restrict yr, int cols, const qkv_real *pg,
                          const qkv_real *pb, double eps, qkv_real *m_out, qkv_real *r_out)
{
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int j = 0; j < cols; j++)
        sum += (double)xr[j];
    const double mu = sum / cols;
    double ss = 0;
#pragma omp simd reduction(+ : ss)
    for (int j = 0; j < cols; j++) {
        double d = (double)xr[j] - mu;
        ss += d * d;
    }
    const qkv_real m = (qkv_real)mu, r = (qkv_real)(1.0 / sqrt(ss / cols + eps));
    *m_out = m;
    *r_out = r;
#pragma omp simd
    for (int j = 0; j < cols; j++)
        yr[j] = (xr[j] - m) * r * pg[j] + pb[j];
}

qkv_tensor *qkv_layer_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *gain, qkv_tensor *bias, double eps)
{
    QKV_PROFILE_SCOPE("layer_norm", QKV_PROF_FWD);
    if (tp->failed || ln_check(tp, "layer_norm", x, gain, bias, eps))
        return NULL;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    layer_norm_saved *s = NULL;
    qkv_tensor *y = ln_output(tp, x, &s);
    const qkv_real *pg = gain ? gain->data : constant_row(tp, cols, 1);
    const qkv_real *pb = bias ? bias->data : constant_row(tp, cols, 0);
    if (!y || !pg || !pb)
        return NULL;
    const qkv_real *px = x->data;
    qkv_real *py = y->data, *mean = s->mean, *rstd = s->rstd;
    QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN, {
        ln_row(px + (size_t)i * cols, py + (size_t)i * cols, cols, pg, pb, eps, &mean[i], &rstd[i]);
    });
    qkv_tensor *inputs[3] = {x, gain, bias};
    qkv_node *node = qkv_tape_record(tp, "layer_norm", layer_norm_backward, y, 3, inputs);
    if (node)
        node->saved = s;
    return y;
}

/* ---- add_layer_norm: h = x + a, y = layer_norm(h), in one pass over the rows ---------------
 * The tape gets the two nodes the unfused ops would record ("add", then "layer_norm" of h), so
 * the backward pass and every value are those of qkv_add followed by qkv_layer_norm. */

/* h = x + a (mask NULL) or x + dropout(a) by mask, then y = layer_norm(h); records the add
 * (or add_dropout) node and the layer_norm node. */
static qkv_tensor *add_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, const qkv_dropout_saved *mask,
                           qkv_tensor *gain, qkv_tensor *bias, double eps, qkv_tensor **sum)
{
    int rows = qkv_rows(x), cols = qkv_cols(x);
    qkv_tensor *h = qkv_tape_like(tp, x);
    layer_norm_saved *s = NULL;
    qkv_tensor *y = h ? ln_output(tp, x, &s) : NULL;
    const qkv_real *pg = gain ? gain->data : constant_row(tp, cols, 1);
    const qkv_real *pb = bias ? bias->data : constant_row(tp, cols, 0);
    if (!y || !pg || !pb)
        return NULL;
    const qkv_real *px = x->data, *pa = a->data, scale = mask ? mask->scale : 1;
    const uint8_t *keep = mask ? mask->keep : NULL;
    qkv_real *ph = h->data, *py = y->data, *mean = s->mean, *rstd = s->rstd;
    QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN, {
        const size_t o = (size_t)i * cols;
        if (keep) {
            _Pragma("omp simd")
            for (int j = 0; j < cols; j++) {
                qkv_real v = pa[o + j] * scale;
                ph[o + j] = px[o + j] + (keep[o + j] ? v : 0);
            }
        } else {
            _Pragma("omp simd")
            for (int j = 0; j < cols; j++)
                ph[o + j] = px[o + j] + pa[o + j];
        }
        ln_row(ph + o, py + o, cols, pg, pb, eps, &mean[i], &rstd[i]);
    });
    qkv_tensor *in_h[2] = {x, a}, *in_y[3] = {h, gain, bias};
    qkv_node *add = mask ? qkv_tape_record(tp, "add_dropout", qkv_add_dropout_backward, h, 2, in_h)
                         : qkv_tape_record(tp, "add", qkv_add_backward, h, 2, in_h); /* qkv_add's own */
    if (add && mask)
        add->saved = (void *)mask;
    qkv_node *node = qkv_tape_record(tp, "layer_norm", layer_norm_backward, y, 3, in_y);
    if (node)
        node->saved = s;
    if (sum)
        *sum = h;
    return y;
}

/* Fails the tape unless x and a are of one shape and gain, bias, eps fit; false then. */
static bool add_norm_check(qkv_tape *tp, const char *op, qkv_tensor *x, qkv_tensor *a, qkv_tensor *gain,
                           qkv_tensor *bias, double eps)
{
    if (tp->failed || ln_check(tp, op, x, gain, bias, eps))
        return false;
    char sx[64], sa[64];
    if (!a || !qkv_same_shape(x, a))
        return a ? qkv_tape_fail(tp, "%s: shapes differ: %s and %s", op, qkv_shape_str(x, sx, sizeof sx),
                                 qkv_shape_str(a, sa, sizeof sa))
                 : qkv_tape_fail(tp, "%s: an operand is NULL", op), false;
    return true;
}

qkv_tensor *qkv_add_layer_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, qkv_tensor *gain, qkv_tensor *bias,
                               double eps, qkv_tensor **sum)
{
    QKV_PROFILE_SCOPE("add_layer_norm", QKV_PROF_FWD);
    if (!add_norm_check(tp, "add_layer_norm", x, a, gain, bias, eps))
        return NULL;
    return add_norm(tp, x, a, NULL, gain, bias, eps, sum);
}

qkv_tensor *qkv_add_dropout_layer_norm(qkv_tape *tp, qkv_tensor *x, qkv_tensor *a, double p, qkv_tensor *gain,
                                       qkv_tensor *bias, double eps, qkv_tensor **sum)
{
    QKV_PROFILE_SCOPE("add_dropout_layer_norm", QKV_PROF_FWD);
    if (!add_norm_check(tp, "add_dropout_layer_norm", x, a, gain, bias, eps))
        return NULL;
    if (!qkv_dropout_p_ok(tp, "add_dropout_layer_norm", p))
        return NULL;
    const qkv_dropout_saved *mask = NULL;
    if (!tp->no_grad && p > 0 && !(mask = qkv_dropout_draw(tp, a, p)))
        return NULL;
    return add_norm(tp, x, a, mask, gain, bias, eps, sum);
}

static void layer_norm_backward(qkv_tape *tp, qkv_node *node)
{
    const layer_norm_saved *s = node->saved;
    qkv_tensor *x = node->in[0], *gain = node->in[1], *bias = node->in[2], *y = node->out;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    const qkv_real *px = x->data, *dy = y->grad;
    const qkv_real *pg = gain ? gain->data : constant_row(tp, cols, 1);
    const qkv_real *mean = s->mean, *rstd = s->rstd;
    qkv_real *dx = qkv_grad(tp, x), *dgain = qkv_grad(tp, gain), *dbias = qkv_grad(tp, bias);
    if (!pg)
        return;
    bool par = x->size >= QKV_PARALLEL_MIN;

    if (dx) {
        QKV_FOR_ROWS(int, i, rows, par, {
            const qkv_real *xr = px + (size_t)i * cols, *dyr = dy + (size_t)i * cols;
            qkv_real *dxr = dx + (size_t)i * cols;
            const qkv_real m = mean[i], r = rstd[i];
            double sum_g = 0, sum_gx = 0;
            _Pragma("omp simd reduction(+ : sum_g, sum_gx)")
            for (int j = 0; j < cols; j++) {
                qkv_real g = dyr[j] * pg[j];
                sum_g += (double)g;
                sum_gx += (double)(g * ((xr[j] - m) * r));
            }
            const qkv_real mg = (qkv_real)(sum_g / cols), mgx = (qkv_real)(sum_gx / cols);
            _Pragma("omp simd")
            for (int j = 0; j < cols; j++)
                dxr[j] += r * (dyr[j] * pg[j] - mg - (xr[j] - m) * r * mgx);
        });
    }

    if (dgain || dbias) {
        int blocks = (cols + LN_COL_BLOCK - 1) / LN_COL_BLOCK;
        QKV_FOR_ROWS(int, b, blocks, par, {
            int j0 = b * LN_COL_BLOCK, nj = cols - j0 < LN_COL_BLOCK ? cols - j0 : LN_COL_BLOCK;
            double acc_g[LN_COL_BLOCK] = {0}, acc_b[LN_COL_BLOCK] = {0};
            for (int i = 0; i < rows; i++) {
                const qkv_real *xr = px + (size_t)i * cols + j0, *dyr = dy + (size_t)i * cols + j0;
                const qkv_real m = mean[i], r = rstd[i];
                _Pragma("omp simd")
                for (int j = 0; j < nj; j++) {
                    acc_g[j] += (double)(dyr[j] * ((xr[j] - m) * r));
                    acc_b[j] += (double)dyr[j];
                }
            }
            for (int j = 0; j < nj; j++) {
                if (dgain)
                    dgain[j0 + j] += (qkv_real)acc_g[j];
                if (dbias)
                    dbias[j0 + j] += (qkv_real)acc_b[j];
            }
        });
    }
}
