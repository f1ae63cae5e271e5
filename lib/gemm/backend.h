/* The backend of float matrix products: OpenBLAS (cblas_sgemm) or oneDNN (dnnl_sgemm, Debian's
 * libdnnl-dev). Which ones exist is decided at build time (QKV_HAVE_ONEDNN when CMake found
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

#endif
