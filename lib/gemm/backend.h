/* The backend of float matrix products: OpenBLAS (cblas_sgemm) or oneDNN (dnnl_sgemm, Debian's
 * libdnnl-dev), and their precision: float, or bf16 inputs with float accumulation
 * (lib/gemm/bf16.h, oneDNN's matmul primitive; the config key train.precision). Which ones exist is decided at build time (QKV_HAVE_ONEDNN when CMake found
 * oneDNN); which one runs, at run time by qkv_gemm_set_backend (the config key train.gemm).
 * Both compute C [M, N] = alpha · op(A) op(B) + beta · C in row-major float with float
 * accumulation; they differ in summation order, so results agree to rounding, not bit for bit.
 * Products in double (the gradient checks' build) always run on OpenBLAS's dgemm: oneDNN has
 * no double GEMM. The choice is one process-wide flag, read by every product (lib/blas.h). */
#ifndef QKV_GEMM_BACKEND_H
#define QKV_GEMM_BACKEND_H

#include <stdbool.h>

#include "lib/error.h"

typedef enum {
    QKV_GEMM_AUTO,     /* oneDNN when built with it, else OpenBLAS */
    QKV_GEMM_OPENBLAS,
    QKV_GEMM_ONEDNN,
    QKV_GEMM_COUNT
} qkv_gemm_backend;

/* "auto", "openblas", "onednn", NULL: the names of train.gemm, indexed by qkv_gemm_backend. */
extern const char *const QKV_GEMM_BACKEND_NAMES[];

/* True when float products go through oneDNN; read by qkv_gemm on every call. */
extern bool qkv_gemm_onednn;

/* True when this build has oneDNN. */
bool qkv_gemm_have_onednn(void);

/* Chooses the backend of every later float product in this process. QKV_GEMM_ONEDNN in a build
 * without oneDNN is an error (the message names the package to install); AUTO never fails. */
int qkv_gemm_set_backend(qkv_gemm_backend b, qkv_error *err);

/* The backend in use: "openblas" or "onednn". */
const char *qkv_gemm_backend_name(void);

typedef enum {
    QKV_PRECISION_F32,  /* float inputs, float accumulation (the backend above) */
    QKV_PRECISION_BF16, /* A and B rounded to bf16, float accumulation and output (oneDNN's matmul) */
    QKV_PRECISION_COUNT
} qkv_gemm_precision;

/* "f32", "bf16", NULL: the names of train.precision, indexed by qkv_gemm_precision. */
extern const char *const QKV_PRECISION_NAMES[];

/* True when float products run in bf16 (lib/gemm/bf16.h), whatever the backend; read by
 * qkv_gemm on every call. Double products never do. */
extern bool qkv_gemm_bf16_on;

/* Chooses the precision of every later float product in this process. QKV_PRECISION_BF16 in a
 * build without oneDNN is an error (the message names the package to install). */
int qkv_gemm_set_precision(qkv_gemm_precision p, qkv_error *err);

/* The precision in use: "f32" or "bf16". */
const char *qkv_gemm_precision_name(void);

#endif
