/* Element-wise ops, forward and backward: add, broadcast bias add, multiply, scale.
 * Every loop is a plain pass over contiguous memory; large tensors split it over OpenMP
 * threads (see op_util.h). Backward functions never assume that two inputs are distinct
 * tensors: qkv_add(tp, a, a) and qkv_mul(tp, a, a) are correct. */
#include "lib/ops/ops.h"
#include "lib/ops/op_util.h"

/* dst[i] += src[i] for i < n. */
static void add_into(qkv_real *dst, const qkv_real *src, size_t n)
{
    QKV_FOR_ELEMENTS(i, n, dst[i] += src[i];);
}

/* ---- add: y = a + b, same shape --------------------------------------------------------- */

/* The output of an element-wise op on a and b of one shape; NULL (tape failed) otherwise. */
qkv_tensor *qkv_same_shape_output(qkv_tape *tp, const char *op, qkv_tensor *a, qkv_tensor *b)
{
    if (tp->failed)
        return NULL;
    char sa[64], sb[64];
    if (!a || !b)
        return qkv_tape_fail(tp, "%s: an operand is NULL", op);
    if (!qkv_same_shape(a, b))
        return qkv_tape_fail(tp, "%s: shapes differ: %s and %s", op, qkv_shape_str(a, sa, sizeof sa),
                             qkv_shape_str(b, sb, sizeof sb));
    return qkv_tape_like(tp, a);
}


qkv_tensor *qkv_add(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b)
{
    QKV_PROFILE_SCOPE("add", QKV_PROF_FWD);
    qkv_tensor *y = qkv_same_shape_output(tp, "add", a, b);
    if (!y)
        return NULL;
    size_t n = y->size;
    const qkv_real *pa = a->data, *pb = b->data;
    qkv_real *py = y->data;
    QKV_FOR_ELEMENTS(i, n, py[i] = pa[i] + pb[i];);
    qkv_tensor *inputs[2] = {a, b};
    qkv_tape_record(tp, "add", qkv_add_backward, y, 2, inputs);
    return y;
}

void qkv_add_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *a = node->in[0], *b = node->in[1], *y = node->out;
    qkv_real *da = qkv_grad(tp, a);
    if (da)
        add_into(da, y->grad, y->size);
    qkv_real *db = qkv_grad(tp, b);
    if (db)
        add_into(db, y->grad, y->size);
}

/* ---- add_bias: y [N, C] = x [N, C] + b [C] on every row ----------------------------------- */

static void add_bias_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_add_bias(qkv_tape *tp, qkv_tensor *x, qkv_tensor *b)
{
    QKV_PROFILE_SCOPE("add_bias", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64], sb[64];
    if (!x || !b)
        return qkv_tape_fail(tp, "add_bias: an operand is NULL");
    if (b->size != (size_t)qkv_cols(x))
        return qkv_tape_fail(tp, "add_bias: bias %s does not match the last dimension of x %s",
                             qkv_shape_str(b, sb, sizeof sb), qkv_shape_str(x, sx, sizeof sx));
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    int rows = qkv_rows(x), cols = qkv_cols(x);
    const qkv_real *px = x->data, *pb = b->data;
    qkv_real *py = y->data;
    QKV_FOR_ROWS(int, i, rows, x->size >= QKV_PARALLEL_MIN, {
        const qkv_real *xr = px + (size_t)i * cols;
        qkv_real *yr = py + (size_t)i * cols;
        _Pragma("omp simd")
        for (int j = 0; j < cols; j++)
            yr[j] = xr[j] + pb[j];
    });
    qkv_tensor *inputs[2] = {x, b};
    qkv_tape_record(tp, "add_bias", add_bias_backward, y, 2, inputs);
    return y;
}

static void add_bias_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *b = node->in[1], *y = node->out;
    int rows = qkv_rows(y), cols = qkv_cols(y);
    const qkv_real *dy = y->grad;
    qkv_real *dx = qkv_grad(tp, x);
    if (dx)
        add_into(dx, dy, y->size);
    qkv_real *db = qkv_grad(tp, b);
    if (db) /* db [C] += column sums of dy; rows in order, so the result never depends on threads */
        for (int i = 0; i < rows; i++) {
            const qkv_real *row = dy + (size_t)i * cols;
#pragma omp simd
            for (int j = 0; j < cols; j++)
                db[j] += row[j];
        }
}

/* ---- mul: y = a ⊙ b, same shape ---------------------------------------------------------- */

/* dst[i] += u[i] * v[i] for i < n. */
static void add_product_into(qkv_real *dst, const qkv_real *u, const qkv_real *v, size_t n)
{
    QKV_FOR_ELEMENTS(i, n, dst[i] += u[i] * v[i];);
}

static void mul_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_mul(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b)
{
    QKV_PROFILE_SCOPE("mul", QKV_PROF_FWD);
    qkv_tensor *y = qkv_same_shape_output(tp, "mul", a, b);
    if (!y)
        return NULL;
    size_t n = y->size;
    const qkv_real *pa = a->data, *pb = b->data;
    qkv_real *py = y->data;
    QKV_FOR_ELEMENTS(i, n, py[i] = pa[i] * pb[i];);
    qkv_tensor *inputs[2] = {a, b};
    qkv_tape_record(tp, "mul", mul_backward, y, 2, inputs);
    return y;
}

static void mul_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *a = node->in[0], *b = node->in[1], *y = node->out;
    qkv_real *da = qkv_grad(tp, a);
    if (da) /* da += dy ⊙ b */
        add_product_into(da, y->grad, b->data, y->size);
    qkv_real *db = qkv_grad(tp, b);
    if (db) /* db += dy ⊙ a */
        add_product_into(db, y->grad, a->data, y->size);
}

/* ---- scale: y = s · x --------------------------------------------------------------------- */

typedef struct {
    qkv_real s;
} scale_saved;

static void scale_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_scale(qkv_tape *tp, qkv_tensor *x, double s)
{
    QKV_PROFILE_SCOPE("scale", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    if (!x)
        return qkv_tape_fail(tp, "scale: the operand is NULL");
    if (!isfinite(s))
        return qkv_tape_fail(tp, "scale: the factor %g is not finite", s);
    qkv_tensor *y = qkv_tape_like(tp, x);
    if (!y)
        return NULL;
    size_t n = y->size;
    const qkv_real sr = (qkv_real)s, *px = x->data;
    qkv_real *py = y->data;
    QKV_FOR_ELEMENTS(i, n, py[i] = sr * px[i];);
    qkv_tensor *inputs[1] = {x};
    qkv_node *node = qkv_tape_record(tp, "scale", scale_backward, y, 1, inputs);
    if (node) {
        scale_saved *saved = qkv_tape_alloc(tp, sizeof *saved);
        if (!saved)
            return NULL;
        saved->s = sr;
        node->saved = saved;
    }
    return y;
}

static void scale_backward(qkv_tape *tp, qkv_node *node)
{
    const scale_saved *saved = node->saved;
    qkv_tensor *x = node->in[0], *y = node->out;
    qkv_real *dx = qkv_grad(tp, x);
    if (!dx)
        return;
    const qkv_real s = saved->s, *dy = y->grad;
    size_t n = y->size;
    QKV_FOR_ELEMENTS(i, n, dx[i] += s * dy[i];);
}
