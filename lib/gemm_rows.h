/* Row-stable GEMM: C [M, N] = A [M, K] · B^T + beta · C (B is [N, K], PyTorch's [out, in]),
 * computed so that a row of C does not depend on M or on the row's place in A.
 *
 * Why: OpenBLAS handles the last M mod (unroll) rows with a different micro-kernel, whose
 * summation order differs, and its SkylakeX/Cooperlake builds (0.3.21) send products of at most
 * 65,536 multiply-adds (M·N·K) to small-matrix kernels whose rows depend on M; so a packed batch
 * would change a sentence's bits depending on its batch mates. Here every product goes through
 * the full-tile kernel of the large path: the first M - M mod 16 rows through one GEMM when
 * there are at least qkv_gemm_rows_pad(N, K) of them, the rest (or all rows of a smaller M)
 * through a zero-padded copy of qkv_gemm_rows_pad(N, K) rows, a multiple of 16 with at least
 * QKV_GEMM_ROWS_MIN_MADDS multiply-adds (4 times that limit; the padding costs at most that many
 * multiply-adds a call). Measured: this makes dgemm rows bitwise position-independent with one
 * thread (OpenBLAS 0.3.21, Haswell and Cooperlake kernels); sgemm rows still vary in the last
 * bit with M. `scratch` holds QKV_GEMM_ROWS_SCRATCH(k, n) elements. */
#ifndef QKV_GEMM_ROWS_H
#define QKV_GEMM_ROWS_H

#include <string.h>

#include "lib/blas.h"

#define QKV_GEMM_ROWS_CHUNK 16
#define QKV_GEMM_ROWS_MIN_MADDS 262144

/* The rows of the padded call for products [?, n] = [?, k] · [n, k]^T: a multiple of 16, at
 * least 16, with rows · n · k >= QKV_GEMM_ROWS_MIN_MADDS. */
static inline int qkv_gemm_rows_pad(int n, int k)
{
    const long ch = QKV_GEMM_ROWS_CHUNK, nk = (long)(n > 0 ? n : 1) * (k > 0 ? k : 1);
    long rows = (QKV_GEMM_ROWS_MIN_MADDS + nk - 1) / nk;
    rows = (rows + ch - 1) / ch * ch;
    return (int)(rows < ch ? ch : rows);
}

#define QKV_GEMM_ROWS_SCRATCH(k, n) ((size_t)qkv_gemm_rows_pad(n, k) * ((size_t)(k) + (size_t)(n)))

static inline void qkv_gemm_rows_nt(int m, int n, int k, const qkv_real *a, int lda, const qkv_real *b,
                                    int ldb, qkv_real beta, qkv_real *c, int ldc, qkv_real *scratch)
{
    const int pad = qkv_gemm_rows_pad(n, k);
    int m0 = m >= pad ? m - m % QKV_GEMM_ROWS_CHUNK : 0, r = m - m0;
    if (m0 > 0)
        qkv_gemm(false, true, m0, n, k, 1, a, lda, b, ldb, beta, c, ldc);
    if (r == 0)
        return;
    qkv_real *pa = scratch, *pc = scratch + (size_t)pad * k;
    for (int i = 0; i < r; i++)
        memcpy(pa + (size_t)i * k, a + (size_t)(m0 + i) * lda, (size_t)k * sizeof(qkv_real));
    memset(pa + (size_t)r * k, 0, (size_t)(pad - r) * k * sizeof(qkv_real));
    if (beta != 0) { /* with beta 0 the product does not read C */
        for (int i = 0; i < r; i++)
            memcpy(pc + (size_t)i * n, c + (size_t)(m0 + i) * ldc, (size_t)n * sizeof(qkv_real));
        memset(pc + (size_t)r * n, 0, (size_t)(pad - r) * n * sizeof(qkv_real));
    }
    qkv_gemm(false, true, pad, n, k, 1, pa, k, b, ldb, beta, pc, n);
    for (int i = 0; i < r; i++)
        memcpy(c + (size_t)(m0 + i) * ldc, pc + (size_t)i * n, (size_t)n * sizeof(qkv_real));
}

/* ---- OpenMP-parallel products (lib/gemm_rows.c) --------------------------------------------
 * One thread pool: inside an op that uses these, OpenBLAS runs single-threaded
 * (qkv_blas_single / qkv_blas_restore) and the rows of C are split over OpenMP threads, so
 * OpenBLAS's own pthread pool and OpenMP's never compete for the cores. The thread count for
 * a product comes from qkv_parallel_threads (lib/parallel.h). */

/* Sets OpenBLAS to one thread; returns the previous count for qkv_blas_restore. */
int qkv_blas_single(void);
void qkv_blas_restore(int saved);
/* qkv_gemm_rows_nt with the rows split over nthreads threads in chunks of multiples of 16 rows
 * (still row-stable). scratch: nthreads · QKV_GEMM_ROWS_SCRATCH(k, n) elements. */
void qkv_gemm_rows_nt_par(int nthreads, int m, int n, int k, const qkv_real *a, int lda, const qkv_real *b,
                          int ldb, qkv_real beta, qkv_real *c, int ldc, qkv_real *scratch);
/* qkv_gemm with the rows of C split over nthreads threads. */
void qkv_gemm_par(int nthreads, bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha, const qkv_real *a,
                  int lda, const qkv_real *b, int ldb, qkv_real beta, qkv_real *c, int ldc);

#endif
