/* The output projection of multi-head self-attention: forward, then backward. See
 * lib/ops/attention.h (qkv_attention_out). */
#include "lib/gemm_rows.h"
#include "lib/ops/attention.h"
#include "lib/ops/ops.h"
#include "lib/parallel.h"

#include <string.h>

static void attention_out_backward(qkv_tape *tp, qkv_node *node);

qkv_tensor *qkv_attention_out(qkv_tape *tp, qkv_tensor *o, qkv_tensor *w_o, qkv_tensor *b_o)
{
    QKV_PROFILE_SCOPE("attention_out", QKV_PROF_FWD);
    int T = qkv_rows(o), D = qkv_cols(o);
    char s1[64];
    if (w_o->rank != 2 || w_o->shape[0] != D || w_o->shape[1] != D)
        return qkv_tape_fail(tp, "attention: w_o is %s, expected [%d, %d]", qkv_shape_str(w_o, s1, sizeof s1), D, D);
    if (b_o && b_o->size != (size_t)D)
        return qkv_tape_fail(tp, "attention: b_o has %zu elements, d_model is %d", b_o->size, D);
    int pthreads = qkv_parallel_threads((double)T * D * D);
    qkv_tensor *y = qkv_tape_tensor2(tp, T, D);
    qkv_real *scratch = qkv_tape_alloc(tp, pthreads * QKV_GEMM_ROWS_SCRATCH(D, D) * sizeof(qkv_real));
    if (!y || !scratch)
        return NULL;
    if (b_o)
        for (int t = 0; t < T; t++)
            memcpy(y->data + (size_t)t * D, b_o->data, (size_t)D * sizeof(qkv_real));
    int blas = qkv_blas_single();
    if (T > 0)
        qkv_gemm_rows_nt_par(pthreads, T, D, D, o->data, D, w_o->data, D, b_o ? 1 : 0, y->data, D, scratch);
    qkv_blas_restore(blas);
    qkv_tensor *inputs[3] = {o, w_o, b_o};
    qkv_tape_record(tp, "attention_out", attention_out_backward, y, 3, inputs);
    return y;
}

static void attention_out_backward(qkv_tape *tp, qkv_node *node)
{
    qkv_tensor *o = node->in[0], *w = node->in[1], *b = node->in[2], *y = node->out;
    int T = qkv_rows(o), D = qkv_cols(o);
    qkv_real *d_o = qkv_grad(tp, o), *dw = qkv_grad(tp, w), *db = qkv_grad(tp, b);
    int pthreads = qkv_parallel_threads((double)T * D * D), blas = qkv_blas_single();
    if (d_o && T > 0) /* dO [T, D] += dY · w_o */
        qkv_gemm_par(pthreads, false, false, T, D, D, 1, y->grad, D, w->data, D, 1, d_o, D);
    if (dw && T > 0) /* dW [D, D] += dY^T · O */
        qkv_gemm_par(pthreads, true, false, D, D, T, 1, y->grad, D, o->data, D, 1, dw, D);
    qkv_blas_restore(blas);
    if (db)
        for (int t = 0; t < T; t++)
            for (int j = 0; j < D; j++)
                db[j] += y->grad[(size_t)t * D + j];
}
