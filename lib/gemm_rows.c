/* OpenMP-parallel row-split products; see lib/gemm_rows.h. */
#include "lib/gemm_rows.h"

#include <omp.h>

int qkv_blas_single(void)
{
    int saved = openblas_get_num_threads();
    if (saved > 1)
        openblas_set_num_threads(1);
    return saved;
}

void qkv_blas_restore(int saved)
{
    if (saved > 1)
        openblas_set_num_threads(saved);
}

/* Rows per thread: m / nthreads rounded up to a multiple of the row chunk. */
static int rows_per_thread(int m, int nthreads)
{
    int ch = QKV_GEMM_ROWS_CHUNK, per = (m + nthreads - 1) / nthreads;
    return (per + ch - 1) / ch * ch;
}

void qkv_gemm_rows_nt_par(int nthreads, int m, int n, int k, const qkv_real *a, int lda, const qkv_real *b,
                          int ldb, qkv_real beta, qkv_real *c, int ldc, qkv_real *scratch)
{
    if (nthreads <= 1 || m <= QKV_GEMM_ROWS_CHUNK) {
        qkv_gemm_rows_nt(m, n, k, a, lda, b, ldb, beta, c, ldc, scratch);
        return;
    }
    int per = rows_per_thread(m, nthreads);
#pragma omp parallel for num_threads(nthreads)
    for (int t = 0; t < nthreads; t++) {
        int r0 = t * per, r1 = r0 + per < m ? r0 + per : m;
        if (r0 < m)
            qkv_gemm_rows_nt(r1 - r0, n, k, a + (size_t)r0 * lda, lda, b, ldb, beta, c + (size_t)r0 * ldc, ldc,
                             scratch + (size_t)t * QKV_GEMM_ROWS_SCRATCH(k, n));
    }
}

void qkv_gemm_par(int nthreads, bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha, const qkv_real *a,
                  int lda, const qkv_real *b, int ldb, qkv_real beta, qkv_real *c, int ldc)
{
    if (nthreads <= 1 || m <= QKV_GEMM_ROWS_CHUNK) {
        qkv_gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    int per = rows_per_thread(m, nthreads);
#pragma omp parallel for num_threads(nthreads)
    for (int t = 0; t < nthreads; t++) {
        int r0 = t * per, r1 = r0 + per < m ? r0 + per : m;
        if (r0 < m) /* rows r0.. of op(A): rows of A, or columns when transposed */
            qkv_gemm(trans_a, trans_b, r1 - r0, n, k, alpha, trans_a ? a + r0 : a + (size_t)r0 * lda, lda, b, ldb,
                     beta, c + (size_t)r0 * ldc, ldc);
    }
}
