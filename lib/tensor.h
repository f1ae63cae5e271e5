/* Tensors: contiguous, row-major arrays of qkv_real with rank <= 4 and the shape stored
 * inline. qkv_real is float by default; the same sources compiled with QKV_REAL_DOUBLE give
 * the double-precision library (qkv_f64) that gradient checks run on.
 *
 * A tensor of a step's activations lives in the tape's arena (see lib/tape.h); a parameter
 * owns its memory (see lib/param.h). `grad`, when not NULL, has the same shape as `data`. */
#ifndef QKV_TENSOR_H
#define QKV_TENSOR_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef QKV_REAL_DOUBLE
typedef double qkv_real;
#define QKV_REAL_IS_DOUBLE 1
#else
typedef float qkv_real;
#define QKV_REAL_IS_DOUBLE 0
#endif

/* The math.h functions of qkv_real (expf in the float build, exp in the double build). */
#if QKV_REAL_IS_DOUBLE
#define qkv_rexp exp
#define qkv_rerf erf
#define qkv_rtanh tanh
#define qkv_rsqrt sqrt
#else
#define qkv_rexp expf
#define qkv_rerf erff
#define qkv_rtanh tanhf
#define qkv_rsqrt sqrtf
#endif

#define QKV_MAX_RANK 4

typedef struct qkv_tensor {
    qkv_real *data;
    qkv_real *grad;      /* NULL until a gradient flows here (or always, without requires_grad) */
    size_t size;         /* number of elements: product of shape */
    int rank;
    int shape[QKV_MAX_RANK];
    bool requires_grad;  /* a parameter, or computed from one on a recording tape */
} qkv_tensor;

/* Product of the first `rank` entries of shape (1 for rank 0). */
size_t qkv_shape_size(int rank, const int *shape);

/* Matrix view of a tensor: cols is the last dimension, rows everything before it. */
static inline int qkv_cols(const qkv_tensor *t) { return t->rank ? t->shape[t->rank - 1] : 1; }
static inline int qkv_rows(const qkv_tensor *t) { return (int)(t->size / (size_t)qkv_cols(t)); }

/* True when a and b have the same rank and shape. */
bool qkv_same_shape(const qkv_tensor *a, const qkv_tensor *b);

/* The index of t's first element that is NaN or infinite; t->size when every one is finite. */
size_t qkv_tensor_first_nonfinite(const qkv_tensor *t);

/* Writes "[2, 3]" into buf (for error messages); returns buf. */
const char *qkv_shape_str(const qkv_tensor *t, char *buf, size_t len);

#endif
