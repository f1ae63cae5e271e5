/* Float products in bf16 (train.precision: bf16): C [M, N] = alpha · op(A) op(B) + beta · C,
 * row-major, lda/ldb/ldc row strides, computed by oneDNN's matmul primitive on A and B rounded
 * to bfloat16 (round to nearest even, by oneDNN's reorder), with float accumulation and a float
 * C: alpha is the primitive's output scale, beta a sum post-op (beta 0: C is written, never
 * read). Everything around the product (weights, optimizer state, activations) stays float.
 *
 * The primitives (two reorders to bf16 and the matmul) are made once per shape: a table keyed
 * by (transposes, M, N, K, lda, ldb, ldc, alpha, beta), read without a lock (a product may run
 * inside an OpenMP parallel region, lib/gemm_rows.c) and filled under one. Past
 * QKV_GEMM_BF16_PLANS shapes a product makes its primitives for the call and frees them after
 * (oneDNN's own primitive cache keeps the compiled kernels). Each thread has its own stream and
 * work buffer (the bf16 copies and the primitives' scratchpad: user-managed, never shared).
 *
 * Only in builds with oneDNN (QKV_HAVE_ONEDNN); the caller is qkv_gemm (lib/blas.h) when
 * qkv_gemm_bf16_on (lib/gemm/backend.h). */
#ifndef QKV_GEMM_BF16_H
#define QKV_GEMM_BF16_H

#include <stdbool.h>

#define QKV_GEMM_BF16_PLANS 768

/* The product in bf16. K = 0 scales C by beta (0: zeros); M = 0 or N = 0 does nothing. Should
 * oneDNN fail (out of memory), the product runs in float on dnnl_sgemm and
 * qkv_gemm_bf16_fallbacks counts it. */
void qkv_gemm_bf16(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc);

/* Products that fell back to float since the process started (0 when all went well). */
long qkv_gemm_bf16_fallbacks(void);

/* Shapes in the table of primitives. */
int qkv_gemm_bf16_plans(void);

#endif
