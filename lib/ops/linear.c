/* Linear layer and matrix product, forward and backward. */
#include "lib/blas.h"
#include "lib/gemm_rows.h"
#include "lib/ops/ops.h"
#include "lib/parallel.h"

#include <string.h>

/* ---- linear: y [N, out] = x [N, in] · w^T [in, out] + b [out] --------------------------- */

static void linear_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_linear(qkv_tape *tp, qkv_tensor *x, qkv_tensor *w, qkv_tensor *b)
{
    QKV_PROFILE_SCOPE("linear", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sx[64], sw[64];
    if (w->rank != 2 || qkv_cols(x) != w->shape[1])
        return qkv_tape_fail(tp, "linear: x %s does not match w %s (w is [out, in])",
                             qkv_shape_str(x, sx, sizeof sx), qkv_shape_str(w, sw, sizeof sw));
    int n = qkv_rows(x), in = w->shape[1], out = w->shape[0];
    if (b && (b->size != (size_t)out))
        return qkv_tape_fail(tp, "linear: bias has %zu elements, w has %d rows", b->size, out);
    int shape[QKV_MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->rank - 1] = out;
    qkv_tensor *y = qkv_tape_tensor(tp, x->rank, shape);
    if (!y)
        return NULL;
    if (b) {
        for (int i = 0; i < n; i++)
            memcpy(y->data + (size_t)i * out, b->data, (size_t)out * sizeof(qkv_real));
    }
    qkv_gemm_par(qkv_parallel_threads((double)n * in * out), false, true, n, out, in, 1, x->data, in, w->data, in,
                 b ? 1 : 0, y->data, out);
    qkv_tensor *inputs[3] = {x, w, b};
    qkv_tape_record(tp, "linear", linear_backward, y, 3, inputs);
    return y;
}

static void linear_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *x = node->in[0], *w = node->in[1], *b = node->in[2], *y = node->out;
    int n = qkv_rows(x), in = qkv_cols(x), out = w->shape[0];
    const qkv_real *dy = y->grad;
    qkv_real *dx = qkv_grad(tp, x), *dw = qkv_grad(tp, w), *db = qkv_grad(tp, b);
    if (dx) /* dx [N, in] += dy [N, out] · w [out, in] */
        qkv_gemm_par(qkv_parallel_threads((double)n * in * out), false, false, n, in, out, 1, dy, out, w->data, in, 1,
                     dx, in);
    if (dw) /* dw [out, in] += dy^T [out, N] · x [N, in] */
        qkv_gemm_par(qkv_parallel_threads((double)n * in * out), true, false, out, in, n, 1, dy, out, x->data, in, 1,
                     dw, in);
    if (db) /* db [out] += sum over rows of dy */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < out; j++)
                db[j] += dy[(size_t)i * out + j];
}

/* ---- matmul: c [M, N] = op(a) [M, K] · op(b) [K, N] ------------------------------------- */

typedef struct {
    bool trans_a, trans_b;
} matmul_saved;

static void matmul_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_matmul(qkv_tape *tp, qkv_tensor *a, qkv_tensor *b, bool trans_a, bool trans_b)
{
    QKV_PROFILE_SCOPE("matmul", QKV_PROF_FWD);
    if (tp->failed)
        return NULL;
    char sa[64], sb[64];
    if (a->rank != 2 || b->rank != 2)
        return qkv_tape_fail(tp, "matmul: operands must be matrices, got %s and %s",
                             qkv_shape_str(a, sa, sizeof sa), qkv_shape_str(b, sb, sizeof sb));
    int m = trans_a ? a->shape[1] : a->shape[0], k = trans_a ? a->shape[0] : a->shape[1];
    int kb = trans_b ? b->shape[1] : b->shape[0], n = trans_b ? b->shape[0] : b->shape[1];
    if (k != kb)
        return qkv_tape_fail(tp, "matmul: inner dimensions differ: %s%s times %s%s",
                             qkv_shape_str(a, sa, sizeof sa), trans_a ? "^T" : "",
                             qkv_shape_str(b, sb, sizeof sb), trans_b ? "^T" : "");
    qkv_tensor *c = qkv_tape_tensor2(tp, m, n);
    if (!c)
        return NULL;
    qkv_gemm(trans_a, trans_b, m, n, k, 1, a->data, a->shape[1], b->data, b->shape[1], 0, c->data, n);
    qkv_tensor *inputs[2] = {a, b};
    qkv_node *node = qkv_tape_record(tp, "matmul", matmul_backward, c, 2, inputs);
    if (node) {
        matmul_saved *s = qkv_tape_alloc(tp, sizeof *s);
        if (!s)
            return NULL;
        s->trans_a = trans_a;
        s->trans_b = trans_b;
        node->saved = s;
    }
    return c;
}

static void matmul_backward(qkv_tape *tp, qkv_node *node)
{
    const matmul_saved *s = node->saved;
    qkv_tensor *a = node->in[0], *b = node->in[1], *c = node->out;
    int m = c->shape[0], n = c->shape[1];
    int k = s->trans_a ? a->shape[0] : a->shape[1];
    int lda = a->shape[1], ldb = b->shape[1];
    qkv_real *da = qkv_grad(tp, a), *db = qkv_grad(tp, b);
    if (da) {
        if (!s->trans_a) /* dA [M, K] += dC · op(B)^T */
            qkv_gemm(false, !s->trans_b, m, k, n, 1, c->grad, n, b->data, ldb, 1, da, lda);
        else             /* dA [K, M] += op(B) · dC^T */
            qkv_gemm(s->trans_b, true, k, m, n, 1, b->data, ldb, c->grad, n, 1, da, lda);
    }
    if (db) {
        if (!s->trans_b) /* dB [K, N] += op(A)^T · dC */
            qkv_gemm(!s->trans_a, false, k, n, m, 1, a->data, lda, c->grad, n, 1, db, ldb);
        else             /* dB [N, K] += dC^T · op(A) */
            qkv_gemm(true, s->trans_a, n, k, m, 1, c->grad, n, a->data, lda, 1, db, ldb);
    }
}
