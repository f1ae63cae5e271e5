/* Parameters: named tensors that own their data and gradient, outside the arena.
 *
 * Names are hierarchical and dotted, e.g. "encoder.layers.0.attn.w_q": the same string is the
 * HDF5 dataset path in a checkpoint (/params/<name>), the row name in gradcheck output, and
 * the name a PyTorch port of the model uses. Weights follow PyTorch's Linear convention:
 * W is [out_features, in_features]. */
#ifndef QKV_PARAM_H
#define QKV_PARAM_H

#include "lib/error.h"
#include "lib/rng.h"
#include "lib/tensor.h"

#define QKV_PARAM_NAME_MAX 128

typedef struct qkv_param {
    char name[QKV_PARAM_NAME_MAX];
    qkv_tensor t;            /* data and grad owned here; requires_grad = true */
    bool no_weight_decay;    /* biases, norms and tables: AdamW skips decay on these */
} qkv_param;

typedef struct qkv_params {
    qkv_param **items;
    int n, cap;
    size_t max_values; /* the most scalar values the set may hold (0: no bound), e.g. what a
                          model file stores: qkv_params_add refuses a parameter past it */
} qkv_params;

void qkv_params_init(qkv_params *ps);
void qkv_params_free(qkv_params *ps);

/* Adds a zero-filled parameter (data and grad) of the given shape under a printf-style name.
 * Returns the tensor, or NULL with err set (duplicate name, name too long, bad shape, more
 * bytes than memory can address, more values than ps->max_values in all: those two refused
 * before anything is allocated; out of memory). */
qkv_tensor *qkv_params_add(qkv_params *ps, qkv_error *err, int rank, const int *shape,
                           const char *name_fmt, ...) __attribute__((format(printf, 5, 6)));
/* The parameter called name, or NULL. */
qkv_param *qkv_params_find(const qkv_params *ps, const char *name);
/* The qkv_param that holds tensor t, or NULL. */
qkv_param *qkv_params_of(const qkv_params *ps, const qkv_tensor *t);
/* Sets every gradient to zero. */
void qkv_params_zero_grad(qkv_params *ps);
/* Total number of scalar parameters. */
size_t qkv_params_count(const qkv_params *ps);

/* ---- initializers: fan_in = last dimension, fan_out = first (PyTorch's [out, in]) ----
 * The random ones leave t as it is when rng is NULL: a model whose values a checkpoint will
 * fill is built without drawing numbers it would throw away. */
void qkv_init_constant(qkv_tensor *t, double value);
/* N(0, std^2). */
void qkv_init_normal(qkv_tensor *t, qkv_rng *rng, double std);
/* U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio 2010). */
void qkv_init_xavier_uniform(qkv_tensor *t, qkv_rng *rng);
/* U(-bound, bound), e.g. PyTorch's LSTM and Conv1d defaults (bound 1/sqrt(hidden), 1/sqrt(fan_in)). */
void qkv_init_uniform(qkv_tensor *t, qkv_rng *rng, double bound);

#endif
