/* Helpers shared by the op tests in tests/lib/test_<family>.c (header only): one environment
 * of parameters, rng and tape per check, parameters with given or random values, and a
 * sampled gradient check for tensors large enough to take the OpenMP path of an op. */
#ifndef QKV_OPTEST_H
#define QKV_OPTEST_H

#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "lib/ops/ops.h"

typedef struct {
    qkv_params ps;
    qkv_rng rng;  /* parameter values; also the tape's rng (tp.rng points here) */
    qkv_tape tp;
} ot_env;

/* Sets up e in place (tp.rng points into e, so e must not be moved afterwards). */
static inline void ot_init(ot_env *e, uint64_t seed)
{
    qkv_params_init(&e->ps);
    qkv_rng_seed(&e->rng, seed);
    if (qkv_tape_init(&e->tp, 0) != 0)
        fail_msg("tape init failed");
    e->tp.rng = &e->rng;
}

static inline void ot_free(ot_env *e)
{
    qkv_tape_free(&e->tp);
    qkv_params_free(&e->ps);
}

/* A parameter of the given shape with N(0, 1) values. */
static inline qkv_tensor *ot_param(ot_env *e, const char *name, int rank, const int *shape)
{
    return tu_param(&e->ps, &e->rng, name, rank, shape);
}

static inline qkv_tensor *ot_param2(ot_env *e, const char *name, int rows, int cols)
{
    return ot_param(e, name, 2, (int[]){rows, cols});
}

/* A parameter of the given shape holding values[0 .. size-1]. */
static inline qkv_tensor *ot_values(ot_env *e, const char *name, int rank, const int *shape,
                                    const double *values)
{
    qkv_error err;
    qkv_tensor *t = qkv_params_add(&e->ps, &err, rank, shape, "%s", name);
    if (!t)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < t->size; i++)
        t->data[i] = (qkv_real)values[i];
    return t;
}

/* A parameter holding 0.1 · ((i·a mod 11) - 5) at element i (at most 64 elements): values a
 * PyTorch script can rebuild exactly, for forward values computed there. */
static inline qkv_tensor *ot_pattern(ot_env *e, const char *name, int rank, const int *shape, int a)
{
    double v[64];
    int n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++)
        v[i] = 0.1 * (((i * a) % 11) - 5);
    return ot_values(e, name, rank, shape, v);
}

/* Gradient check with the default tolerances on a seeded sample of `samples` elements per
 * tensor (for tensors of tens of thousands of elements). */
static inline void ot_assert_gradcheck_sampled(qkv_tape *tp, qkv_forward_fn fn, void *user, int n,
                                               qkv_tensor *const *tensors, const char *const *names,
                                               size_t samples)
{
    qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
    opts.max_samples = samples;
    qkv_gradcheck_result res[16];
    qkv_error err = {0};
    int status = qkv_gradcheck(tp, fn, user, n, tensors, names, &opts, res, &err);
    if (status != 0)
        print_message("    %s\n", err.msg);
    assert_int_equal(status, 0);
}

/* The gradient check of this op can fail: with the op's backward scaled by 1.01 (the tape's
 * fault_op hook) it must report a failure for every seed tried. */
static inline void ot_assert_gradcheck_catches(qkv_tape *tp, const char *op, qkv_forward_fn fn, void *user,
                                               int n, qkv_tensor *const *tensors, const char *const *names)
{
    tp->fault_op = op;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        qkv_gradcheck_opts opts = QKV_GRADCHECK_DEFAULTS;
        opts.seed = seed;
        qkv_gradcheck_result res[16];
        qkv_error err = {0};
        int status = qkv_gradcheck(tp, fn, user, n, tensors, names, &opts, res, &err);
        if (status != 1)
            fail_msg("%s backward scaled by 1.01 was not caught (seed %llu, status %d)", op,
                     (unsigned long long)seed, status);
    }
    tp->fault_op = NULL;
}

/* Every element of t is finite. */
static inline void ot_assert_finite(const qkv_real *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite((double)v[i]))
            fail_msg("element %zu is %g, expected a finite value", i, (double)v[i]);
}

#endif
