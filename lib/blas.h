/* GEMM for qkv_real: C [M, N] = alpha · op(A) op(B) + beta · C, all row-major; lda/ldb/ldc are
 * row strides. Float products run on the backend lib/gemm/backend.h chose (oneDNN's dnnl_sgemm
 * or OpenBLAS's cblas_sgemm), or in bf16 on oneDNN's matmul when train.precision is bf16
 * (lib/gemm/bf16.h); double products on OpenBLAS's cblas_dgemm. */
#ifndef QKV_BLAS_H
#define QKV_BLAS_H

#include <cblas.h>
#include <stdbool.h>

#include "lib/gemm/backend.h"
#include "lib/gemm/bf16.h"
#include "lib/tensor.h"

#if defined(QKV_HAVE_ONEDNN) && !QKV_REAL_IS_DOUBLE
#include <dnnl.h>
#endif

static inline void qkv_gemm(bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha,
                            const qkv_real *a, int lda, const qkv_real *b, int ldb, qkv_real beta,
                            qkv_real *c, int ldc)
{
#if QKV_REAL_IS_DOUBLE
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#else
#ifdef QKV_HAVE_ONEDNN
    if (qkv_gemm_bf16_on) {
        qkv_gemm_bf16(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    /* dnnl_sgemm cannot fail on valid sizes; with K = 0 it leaves C as it is instead of scaling
     * it by beta, so empty sums stay with OpenBLAS. */
    if (qkv_gemm_onednn && k > 0) {
        dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
#endif
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
}

#endif
