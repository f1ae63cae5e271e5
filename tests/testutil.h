/* Shared helpers for the cmocka tests (header only). */
#ifndef QKV_TESTUTIL_H
#define QKV_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef QKV_TESTUTIL_AUTOGRAD
#include "lib/gradcheck.h"
#include "lib/param.h"

/* A parameter filled with N(0, 1) values. */
static inline qkv_tensor *tu_param(qkv_params *ps, qkv_rng *rng, const char *name, int rank, const int *shape)
{
    qkv_error err;
    qkv_tensor *t = qkv_params_add(ps, &err, rank, shape, "%s", name);
    if (!t)
        fail_msg("%s", err.msg);
    qkv_init_normal(t, rng, 1.0);
    return t;
}

/* Runs the gradient check with the default tolerances; returns its status (0 = all pass). */
static inline int tu_gradcheck_status(qkv_tape *tp, qkv_forward_fn fn, void *user, int n,
                                      qkv_tensor *const *tensors, const char *const *names, uint64_t seed)
{
    qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
    opts.seed = seed;
    qkv_gradcheck_result *res = calloc((size_t)n, sizeof *res); /* one result per tensor */
    assert_non_null(res);
    qkv_error err = {0};
    int status = qkv_gradcheck(tp, fn, user, n, tensors, names, &opts, res, &err);
    if (status != 0)
        print_message("    %s\n", err.msg);
    free(res);
    return status;
}

static inline void tu_assert_gradcheck(qkv_tape *tp, qkv_forward_fn fn, void *user, int n,
                                       qkv_tensor *const *tensors, const char *const *names)
{
    assert_int_equal(tu_gradcheck_status(tp, fn, user, n, tensors, names, 7), 0);
}
#endif

/* |a - b| <= tol, with both values in the failure message. */
#define tu_assert_close(a, b, tol)                                                              \
    do {                                                                                        \
        double a_ = (double)(a), b_ = (double)(b);                                              \
        if (!(fabs(a_ - b_) <= (tol)))                                                          \
            fail_msg("%s = %.10g, expected %s = %.10g (tolerance %g)", #a, a_, #b, b_, (double)(tol)); \
    } while (0)

#endif
