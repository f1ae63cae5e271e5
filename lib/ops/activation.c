/* Activations, forward and backward: relu and GELU (erf and tanh forms). Element-wise passes
 * over contiguous memory, threaded for large tensors (see op_util.h). */
#include <math.h>
#include <stdint.h>

#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"
#include "lib/vmath.h"

/* ---- relu: y = max(x, 0); dy/dx = 1 for x > 0, else 0 (0 at x = 0, as PyTorch) ----------- */

static void relu_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_relu(qkv_tape *tp, qkv_tensor *x)
{
    QKV_PROFILE_SCOPE("relu", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (!x)
        return qkv_tape_fail(tp, "relu: the operand is NULL");
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    const qkv_real *px = x->data;
    qkv_real *py = y->data;
    size_t n = y->size;
    QKV_FOR_ELEMENTS(i, n, py[i] = px[i] > 0 ? px[i] : 0;);
    qkv_tensor *inputs[1] = {x};
    qkv_tape_record(tp, "relu", relu_backward, y, 1, inputs);
    return y;
}

static void relu_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const qkv_real *px = x->data, *dy = y->grad;
    size_t n = y->size;
    QKV_FOR_ELEMENTS(i, n, {
        qkv_real d = dy[i]; /* read unconditionally: a select, not a branch, so it vectorizes */
        dx[i] += px[i] > 0 ? d : 0;
    });
}

/* ---- gelu ----------------------------------------------------------------------------------
 * erf form:  y = x Φ(x), Φ(x) = (1 + erf(x / √2)) / 2;  dy/dx = Φ(x) + x φ(x),
 *            φ(x) = exp(-x² / 2) / √(2π).
 * tanh form: u = √(2/π) (x + 0.044715 x³), y = x (1 + tanh u) / 2;
 *            dy/dx = (1 + tanh u) / 2 + x (1 - tanh² u) √(2/π) (1 + 3 · 0.044715 x²) / 2.
 * Hendrycks & Gimpel 2016, "Gaussian Error Linear Units (GELUs)"; the same formulas as
 * PyTorch's gelu(approximate='none' | 'tanh'). */

#define GELU_SQRT_2_PI 0.79788456080286535588 /* √(2/π) */
#define GELU_TANH_C 0.044715

typedef struct {
    qkv_gelu_form form;
} gelu_saved;

/* The erf form over n contiguous elements, y = gelu(u + b) (b: NULL or n values), and its
 * derivative d = dy gelu'(u + b), added to du and db (each may be NULL). The float build runs
 * the row kernels of lib/vmath.h (16 lanes where the processor has AVX-512, over qkv_erff and
 * qkv_expf_neg: glibc's scalar erff and expf are calls no loop vectorizes). The double build
 * (gradient checks) uses libm's erf and exp. */
#if QKV_REAL_IS_DOUBLE
static inline double gelu_erf(double x) { return 0.5 * x * (1 + qkv_rerf(x * QKV_GELU_SQRT1_2)); }

static inline double gelu_erf_grad(double x)
{
    return 0.5 * (1 + qkv_rerf(x * QKV_GELU_SQRT1_2)) + x * QKV_GELU_INV_SQRT_2PI * qkv_rexp(-0.5 * x * x);
}

static void gelu_erf_span(const double *u, const double *b, double *y, int n)
{
    for (int j = 0; j < n; j++)
        y[j] = gelu_erf(b ? u[j] + b[j] : u[j]);
}

static void gelu_erf_grad_span(const double *u, const double *b, const double *dy, double *du, double *db, int n)
{
    for (int j = 0; j < n; j++) {
        double d = dy[j] * gelu_erf_grad(b ? u[j] + b[j] : u[j]);
        if (du)
            du[j] += d;
        if (db)
            db[j] += d;
    }
}
#else
#define gelu_erf_span qkv_gelu_erff
#define gelu_erf_grad_span qkv_gelu_erff_grad
#endif

/* Runs `...` over the elements [0, n) of a tensor as spans [lo, lo + len) of at most 2^20
 * elements: one chunk per thread (n / threads elements, rounded up to 16 for the vector
 * kernels) when par holds, else one chunk. */
#define GELU_SPANS(n, par, lo, len, ...)                                                         \
    do {                                                                                         \
        size_t n_ = (n);                                                                         \
        int chunks_ = (par) ? omp_get_max_threads() : 1;                                         \
        size_t w_ = ((n_ + (size_t)chunks_ - 1) / (size_t)chunks_ + 15) / 16 * 16;               \
        QKV_FOR_THREADS(chunks_, static, int, c_, chunks_, {                                     \
            size_t end_ = (size_t)c_ * w_ + w_ < n_ ? (size_t)c_ * w_ + w_ : n_;                 \
            for (size_t lo = (size_t)c_ * w_; lo < end_; lo += (size_t)1 << 20) {                \
                int len = (int)(end_ - lo < ((size_t)1 << 20) ? end_ - lo : (size_t)1 << 20);    \
                __VA_ARGS__                                                                      \
            }                                                                                    \
        });                                                                                      \
    } while (0)

/* (1 + tanh u) / 2 = sigmoid(2u) = 1 / (1 + exp(-2u)): one exp instead of a tanh, several
 * times faster in glibc, and exp(-2u) = inf for very negative x gives the right limit 0. */
static inline qkv_real gelu_tanh_sigmoid(qkv_real x)
{
    qkv_real u = (qkv_real)GELU_SQRT_2_PI * (x + (qkv_real)GELU_TANH_C * x * x * x);
    return 1 / (1 + qkv_rexp(-2 * u));
}

static inline qkv_real gelu_tanh(qkv_real x) { return x * gelu_tanh_sigmoid(x); }

/* With s = sigmoid(2u): 1 - tanh² u = 4 s (1 - s), so dy/dx = s + 2 x s (1 - s) du/dx. */
static inline qkv_real gelu_tanh_grad(qkv_real x)
{
    qkv_real s = gelu_tanh_sigmoid(x);
    qkv_real du = (qkv_real)GELU_SQRT_2_PI * (1 + (qkv_real)(3 * GELU_TANH_C) * x * x);
    return s + 2 * x * s * (1 - s) * du;
}

static void gelu_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_gelu(qkv_tape *tp, qkv_tensor *x, qkv_gelu_form form)
{
    QKV_PROFILE_SCOPE("gelu", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (!x)
        return qkv_tape_fail(tp, "gelu: the operand is NULL");
    if (form != QKV_GELU_ERF && form != QKV_GELU_TANH)
        return qkv_tape_fail(tp, "gelu: unknown form %d (QKV_GELU_ERF or QKV_GELU_TANH)", (int)form);
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    const qkv_real *px = x->data;
    qkv_real *py = y->data;
    size_t n = y->size;
    /* erf/tanh cost tens of cycles per element: worth threads at fewer elements */
    if (form == QKV_GELU_ERF) {
        GELU_SPANS(n, n >= QKV_PARALLEL_MIN_EXP, lo, len, gelu_erf_span(px + lo, NULL, py + lo, len););
    } else {
        QKV_FOR_ROWS(size_t, i, n, n >= QKV_PARALLEL_MIN_EXP, py[i] = gelu_tanh(px[i]););
    }
    qkv_tensor *inputs[1] = {x};
    qkv_node *node = qkv_tape_record(tp, "gelu", gelu_backward, y, 1, inputs);
    if (node) {
        gelu_saved *saved = qkv_tape_alloc(tp, sizeof *saved);
        if (!saved)
            return NULL;
        saved->form = form;
        node->saved = saved;
    }
    return y;
}

static void gelu_backward(qkv_tape *tp, qkv_node *node)
{
    const gelu_saved *saved = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const qkv_real *px = x->data, *dy = y->grad;
    size_t n = y->size;
    if (saved->form == QKV_GELU_ERF) {
        GELU_SPANS(n, n >= QKV_PARALLEL_MIN_EXP, lo, len, gelu_erf_grad_span(px + lo, NULL, dy + lo, dx + lo, NULL, len););
    } else {
        QKV_FOR_ROWS(size_t, i, n, n >= QKV_PARALLEL_MIN_EXP, dx[i] += dy[i] * gelu_tanh_grad(px[i]););
    }
}

/* ---- bias_gelu: y [N, C] = gelu(u [N, C] + b [C]) ------------------------------------------
 * The bias add of a linear layer (called without its bias) and the GELU after it in one pass;
 * the pre-activation u + b is not kept but recomputed by the backward pass, which writes du
 * and db in one pass too: one chunk of columns per thread, rows in order (db sums the rows in
 * row order, as qkv_linear's backward does, for any number of threads). */

static void bias_gelu_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_bias_gelu(qkv_tape *tp, qkv_tensor *u, qkv_tensor *b, qkv_gelu_form form)
{
    QKV_PROFILE_SCOPE("bias_gelu", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char su[64], sb[64];
    if (!u || !b)
        return qkv_tape_fail(tp, "bias_gelu: an operand is NULL");
    if (form != QKV_GELU_ERF && form != QKV_GELU_TANH)
        return qkv_tape_fail(tp, "bias_gelu: unknown form %d (QKV_GELU_ERF or QKV_GELU_TANH)", (int)form);
    if (u->rank < 1 || b->size != (size_t)qkv_cols(u))
        return qkv_tape_fail(tp, "bias_gelu: bias %s does not match the last dimension of %s",
                             qkv_shape_str(b, sb, sizeof sb), qkv_shape_str(u, su, sizeof su));
    qkv_tensor *y = qkv_tape_like(tp, u);
    gelu_saved *saved = qkv_tape_alloc(tp, sizeof *saved);
    if (!y || !saved)
        return NULL;
    saved->form = form;
    int rows = qkv_rows(u), cols = qkv_cols(u);
    const qkv_real *pu = u->data, *pb = b->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, i, rows, u->size >= QKV_PARALLEL_MIN_EXP, {
        const qkv_real *ur = pu + (size_t)i * cols;
        qkv_real *yr = py + (size_t)i * cols;
        if (form == QKV_GELU_ERF) {
            gelu_erf_span(ur, pb, yr, cols);
        } else {
            for (int j = 0; j < cols; j++)
                yr[j] = gelu_tanh(ur[j] + pb[j]);
        }
    });
    qkv_tensor *inputs[2] = {u, b};
    qkv_node *node = qkv_tape_record(tp, "bias_gelu", bias_gelu_backward, y, 2, inputs);
    if (node)
        node->saved = saved;
    return y;
}

static void bias_gelu_backward(qkv_tape *tp, qkv_node *node)
{
    const gelu_saved *saved = node->saved;
    qkv_tensor *u = node->in[0], *b = node->in[1], *y = node->out;
    qkv_real *du = qkv_grad(tp, u), *db = qkv_grad(tp, b);
    if (!du && !db)
        return;
    int rows = qkv_rows(u), cols = qkv_cols(u);
    const qkv_real *pu = u->data, *pb = b->data, *dy = y->grad;
    const bool erf_form = saved->form == QKV_GELU_ERF;
    /* one chunk of columns per thread (a multiple of 16 for the vector kernels); each thread
     * runs over the rows in order */
    int chunks = u->size >= QKV_PARALLEL_MIN_EXP ? omp_get_max_threads() : 1;
    int width = ((cols + chunks - 1) / chunks + 15) / 16 * 16;
    QKV_FOR_THREADS(chunks, static, int, c, chunks, {
        int j0 = c * width < cols ? c * width : cols, j1 = j0 + width < cols ? j0 + width : cols;
        for (int i = 0; i < rows && j0 < j1; i++) {
            const size_t o = (size_t)i * cols;
            if (erf_form) {
                gelu_erf_grad_span(pu + o + j0, pb + j0, dy + o + j0, du ? du + o + j0 : NULL, db ? db + j0 : NULL,
                                   j1 - j0);
                continue;
            }
            for (int j = j0; j < j1; j++) {
                qkv_real d = dy[o + j] * gelu_tanh_grad(pu[o + j] + pb[j]);
                if (du)
                    du[o + j] += d;
                if (db)
                    db[j] += d;
            }
        }
    });
}
