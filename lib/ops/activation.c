/* Activations, forward and backward: relu and GELU (erf and tanh forms). Element-wise passes
 * over contiguous memory, threaded for large tensors (see op_util.h). */
#include "lib/ops.h"
#include "lib/ops/op_util.h"

/* ---- relu: y = max(x, 0); dy/dx = 1 for x > 0, else 0 (0 at x = 0, as PyTorch) ----------- */

static void relu_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const qkv_real *px = x->data, *dy = y->grad;
    size_t n = y->size;
#pragma omp parallel for simd if (parallel : n >= QKV_PAR_MIN)
    for (size_t i = 0; i < n; i++) {
        qkv_real d = dy[i]; /* read unconditionally: a select, not a branch, so it vectorizes */
        dx[i] += px[i] > 0 ? d : 0;
    }
}

qkv_tensor *qkv_relu(qkv_tape *tp, qkv_tensor *x)
{
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
#pragma omp parallel for simd if (parallel : n >= QKV_PAR_MIN)
    for (size_t i = 0; i < n; i++)
        py[i] = px[i] > 0 ? px[i] : 0;
    qkv_tensor *inputs[1] = {x};
    qkv_tape_record(tp, "relu", relu_backward, y, 1, inputs);
    return y;
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

static inline qkv_real gelu_erf(qkv_real x)
{
    return (qkv_real)0.5 * x * (1 + qkv_rerf(x * (qkv_real)GELU_SQRT1_2));
}

static inline qkv_real gelu_erf_grad(qkv_real x)
{
    qkv_real cdf = (qkv_real)0.5 * (1 + qkv_rerf(x * (qkv_real)GELU_SQRT1_2));
    qkv_real pdf = (qkv_real)GELU_INV_SQRT_2PI * qkv_rexp((qkv_real)-0.5 * x * x);
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
#pragma omp parallel for if (n >= QKV_PAR_MIN / 8)
        for (size_t i = 0; i < n; i++)
            dx[i] += dy[i] * gelu_erf_grad(px[i]);
    } else {
#pragma omp parallel for if (n >= QKV_PAR_MIN / 8)
        for (size_t i = 0; i < n; i++)
            dx[i] += dy[i] * gelu_tanh_grad(px[i]);
    }
}

qkv_tensor *qkv_gelu(qkv_tape *tp, qkv_tensor *x, qkv_gelu_form form)
{
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
#pragma omp parallel for if (n >= QKV_PAR_MIN / 8)
        for (size_t i = 0; i < n; i++)
            py[i] = gelu_erf(px[i]);
    } else {
#pragma omp parallel for if (n >= QKV_PAR_MIN / 8)
        for (size_t i = 0; i < n; i++)
            py[i] = gelu_tanh(px[i]);
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
