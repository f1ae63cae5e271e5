/* Activations, forward and backward: relu and GELU (erf and tanh forms). Element-wise passes
 * over contiguous memory, threaded for large tensors (see op_util.h). */
#include <stdint.h>

#include "lib/exp_neg.h"
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

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

#define GELU_SQRT1_2 0.70710678118654752440    /* 1 / √2 */
#define GELU_INV_SQRT_2PI 0.39894228040143267794 /* 1 / √(2π) */
#define GELU_SQRT_2_PI 0.79788456080286535588  /* √(2/π) */
#define GELU_TANH_C 0.044715

typedef struct {
    qkv_gelu_form form;
} gelu_saved;

#if QKV_REAL_IS_DOUBLE
#define gelu_rerf qkv_rerf
#define gelu_rexp_neg qkv_rexp
#else
/* The float build's GELU spends most of its time in glibc's scalar erff/expf calls (17% of a
 * training step of the EWT tagger, measured with perf). These two are branch-free, so the
 * `omp simd` loops below vectorize them (with -fno-trapping-math on this file, which lets GCC
 * turn the clamps into selects; lib/CMakeLists.txt).
 *
 * erf: the rational minimax approximation x·P(x²)/Q(x²) on [-4, 4] (erf(±4) rounds to ±1 in
 * float) used by Eigen and XLA for float erf; measured max |error| 4.2e-7 against double erf
 * over [-10, 10]. */
static inline float gelu_rerf(float x)
{
    float z = x > 4.f ? 4.f : x;
    z = z < -4.f ? -4.f : z;
    float z2 = z * z;
    float p = -2.72614225801306e-10f;
    p = p * z2 + 2.77068142495902e-08f;
    p = p * z2 - 2.10102402082508e-06f;
    p = p * z2 - 5.69250639462346e-05f;
    p = p * z2 - 7.34990630326855e-04f;
    p = p * z2 - 2.95459980854025e-03f;
    p = p * z2 - 1.60960333262415e-02f;
    float q = -1.45660718464996e-05f;
    q = q * z2 - 2.13374055278905e-04f;
    q = q * z2 - 1.68282697438203e-03f;
    q = q * z2 - 7.37332916720468e-03f;
    q = q * z2 - 1.42647390514189e-02f;
    return z * p / q;
}

#define gelu_rexp_neg qkv_expf_neg /* lib/exp_neg.h */
#endif

static inline qkv_real gelu_erf(qkv_real x)
{
    return (qkv_real)0.5 * x * (1 + gelu_rerf(x * (qkv_real)GELU_SQRT1_2));
}

static inline qkv_real gelu_erf_grad(qkv_real x)
{
    qkv_real cdf = (qkv_real)0.5 * (1 + gelu_rerf(x * (qkv_real)GELU_SQRT1_2));
    qkv_real pdf = (qkv_real)GELU_INV_SQRT_2PI * gelu_rexp_neg((qkv_real)-0.5 * x * x);
    return cdf + x * pdf;
}

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
        QKV_FOR_ELEMENTS_IF(i, n, n >= QKV_PARALLEL_MIN_EXP, py[i] = gelu_erf(px[i]););
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
        QKV_FOR_ELEMENTS_IF(i, n, n >= QKV_PARALLEL_MIN_EXP, dx[i] += dy[i] * gelu_erf_grad(px[i]););
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
            _Pragma("omp simd")
            for (int j = 0; j < cols; j++)
                yr[j] = gelu_erf(ur[j] + pb[j]);
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
    /* one chunk of columns per thread; each thread runs over the rows in order */
    int chunks = u->size >= QKV_PARALLEL_MIN_EXP ? omp_get_max_threads() : 1;
    int width = (cols + chunks - 1) / chunks;
    QKV_FOR_THREADS(chunks, static, int, c, chunks, {
        int j0 = c * width, j1 = j0 + width < cols ? j0 + width : cols;
        for (int i = 0; i < rows; i++) {
            const size_t o = (size_t)i * cols;
            if (erf_form && du && db) {
                _Pragma("omp simd")
                for (int j = j0; j < j1; j++) {
                    qkv_real d = dy[o + j] * gelu_erf_grad(pu[o + j] + pb[j]);
                    du[o + j] += d;
                    db[j] += d;
                }
            } else {
                for (int j = j0; j < j1; j++) {
                    qkv_real x = pu[o + j] + pb[j];
                    qkv_real d = dy[o + j] * (erf_form ? gelu_erf_grad(x) : gelu_tanh_grad(x));
                    if (du)
                        du[o + j] += d;
                    if (db)
                        db[j] += d;
                }
            }
        }
    });
}
