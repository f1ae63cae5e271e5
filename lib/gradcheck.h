/* Gradient check by central finite differences.
 *
 * For a function out = f(inputs) given as a forward callback, the scalar checked is
 * L = sum(out ⊙ R) for a fixed random R in [-1, 1) (a plain sum would hide, e.g., softmax
 * gradients, whose rows sum to zero). The analytic dL/dx from qkv_backward_from() is compared
 * with (L(x + eps) - L(x - eps)) / (2 eps) element by element: an element fails when
 * |analytic - numeric| > atol + rtol · |numeric|. Defaults eps 1e-6, atol 1e-5, rtol 1e-3 are
 * PyTorch's gradcheck defaults for double; use the double build (qkv_f64): float32 central
 * differences are too noisy to catch a 1% error.
 *
 * The tensors checked must own their gradient (parameters from lib/param.h). The tape's rng
 * state is restored before every forward call, so dropout masks are the same in all of them. */
#ifndef QKV_GRADCHECK_H
#define QKV_GRADCHECK_H

#include <stdint.h>

#include "lib/tape.h"

typedef qkv_tensor *(*qkv_forward_fn)(qkv_tape *tp, void *user);

typedef struct qkv_gradcheck_opts {
    double eps, atol, rtol;
    size_t max_samples;   /* elements checked per tensor: 0 = all; else a seeded sample */
    uint64_t seed;        /* for R and for the sample */
    /* Optional: candidates[t] (n_candidates[t] element indices) restricts tensor t's check to
     * those elements, e.g. the embedding rows a batch uses; NULL = all elements. */
    const size_t *const *candidates;
    const size_t *n_candidates;
} qkv_gradcheck_opts;

#define QKV_GRADCHECK_DEFAULTS ((qkv_gradcheck_opts){1e-6, 1e-5, 1e-3, 0, 20240611, NULL, NULL})

typedef struct qkv_gradcheck_result {
    const char *name;
    size_t checked, failed;
    double max_abs_err, max_rel_err;
    size_t worst;               /* element index with the largest excess over the tolerance */
    double analytic, numeric;   /* values at `worst` */
} qkv_gradcheck_result;

/* Checks n tensors named names[i]. Fills results[i] for each. Returns 0 when every element
 * checked passes, 1 when some fail (err names the first failing tensor, its element and both
 * values), QKV_ERR (-1) when the forward or backward pass itself fails (err says why). */
int qkv_gradcheck(qkv_tape *tp, qkv_forward_fn forward, void *user, int n, qkv_tensor *const *tensors,
                  const char *const *names, const qkv_gradcheck_opts *opts,
                  qkv_gradcheck_result *results, qkv_error *err);

#endif
