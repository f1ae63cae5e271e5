/* OpenBLAS GEMM for qkv_real: qkv_gemm picks sgemm or dgemm by the build's element type.
 * C [M, N] = alpha · op(A) op(B) + beta · C, all row-major; lda/ldb/ldc are row strides. */
#ifndef QKV_BLAS_H
#define QKV_BLAS_H

#include <cblas.h>
#include <stdbool.h>

#include "lib/tensor.h"

static inline void qkv_gemm(bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha,
                            const qkv_real *a, int lda, const qkv_real *b, int ldb, qkv_real beta,
                            qkv_real *c, int ldc)
{
#if QKV_REAL_IS_DOUBLE
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#else
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
}

#endif
