/* Batched products of small dense matrices: C_i = alpha · op(A_i) op(B_i), i = 0 .. count - 1,
 * where A_i [m, k] (op(A_i) = A_i, or A_i^T with A_i stored [k, m]), B_i [k, n] (or [n, k]
 * transposed) and C_i [m, n] are row-major, dense (each row stride its number of columns) and
 * consecutive: X_i starts at X + i · (rows · cols of X_i). C is written, never read.
 *
 * The attention's blocks of equal length (lib/ops/attention_batched.c) are thousands of such
 * products of a few tens of rows, where one call per matrix costs more than its arithmetic. In
 * the float build with oneDNN (lib/gemm/backend.h: products on oneDNN, float precision) the
 * whole batch is one execution of oneDNN's matmul primitive over a 3-D batch (its
 * batch-reduce GEMM kernels, parallel over the batch on the OpenMP threads); the primitives are
 * made once per (count, transposes, m, n, k, alpha) and kept for the process (at most
 * QKV_GEMM_BATCH_PLANS shapes; past that, or should oneDNN fail, the loop below runs). Else
 * (OpenBLAS, bf16, the double build of the gradient checks) a loop of qkv_gemm, the matrices
 * split over qkv_parallel_threads(work) OpenMP threads. Call it outside parallel regions. */
#ifndef QKV_GEMM_BATCH_H
#define QKV_GEMM_BATCH_H

#include <stdbool.h>

#include "lib/tensor.h"

#define QKV_GEMM_BATCH_PLANS 64

void qkv_gemm_batch(int count, bool trans_a, bool trans_b, int m, int n, int k, qkv_real alpha, const qkv_real *a,
                    const qkv_real *b, qkv_real *c);

/* Shapes with a oneDNN primitive in the table (0 in builds without it). */
int qkv_gemm_batch_plans(void);

#endif
