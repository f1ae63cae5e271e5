/* softmax and log_softmax over rows: forward values by hand (including the max-shift cases
 * softmax([1000, 1000]) = [0.5, 0.5] and log_softmax([1000, 0]) = [0, -1000]), no NaN or inf
 * for logits of ±1e4, and double-precision gradient checks over several shapes. */
#include "optest.h"

typedef struct {
    qkv_tensor *x;
    bool log;
} fixture;

static qkv_tensor *softmax_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return f->log ? qkv_log_softmax(tp, f->x) : qkv_softmax(tp, f->x);
}

static void test_forward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *big = ot_values(&e, "big", 2, (int[]){2, 2}, (double[]){1000, 1000, 1000, 0});
    qkv_tensor *p = qkv_softmax(&e.tp, big);
    qkv_tensor *lp = qkv_log_softmax(&e.tp, big);
    assert_non_null(p);
    assert_non_null(lp);
    tu_assert_close(p->data[0], 0.5, 0);
    tu_assert_close(p->data[1], 0.5, 0);
    tu_assert_close(lp->data[2], 0, 0);
    tu_assert_close(lp->data[3], -1000, 0);
    tu_assert_close(p->data[2], 1, 0);
    tu_assert_close(p->data[3], 0, 0);

    /* [1, 2, 3]: exp(x - 3) / (1 + e^-1 + e^-2) and x - 3 - log(1 + e^-1 + e^-2), by Python's math */
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){1, 3}, (double[]){1, 2, 3});
    const double sm[] = {0.09003057317038046, 0.24472847105479764, 0.6652409557748218};
    const double lsm[] = {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804};
    p = qkv_softmax(&e.tp, x);
    lp = qkv_log_softmax(&e.tp, x);
    assert_non_null(p);
    assert_non_null(lp);
    for (int j = 0; j < 3; j++) {
        tu_assert_close(p->data[j], sm[j], 1e-16);
        tu_assert_close(lp->data[j], lsm[j], 1e-15);
    }
    ot_free(&e);
}

/* Row [0, 0] with dy = [1, 0]: softmax y = [.5, .5], dx = y (dy - y·dy) = [.25, -.25];
 * log_softmax: dx = dy - exp(y) Σ dy = [.5, -.5]. */
static void test_backward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){1, 2}, (double[]){0, 0});
    const qkv_real dy[2] = {1, 0};
    assert_int_equal(qkv_backward_from(&e.tp, qkv_softmax(&e.tp, x), dy), QKV_OK);
    tu_assert_close(x->grad[0], 0.25, 1e-16);
    tu_assert_close(x->grad[1], -0.25, 1e-16);
    qkv_tape_reset(&e.tp);
    x->grad[0] = x->grad[1] = 0;
    assert_int_equal(qkv_backward_from(&e.tp, qkv_log_softmax(&e.tp, x), dy), QKV_OK);
    tu_assert_close(x->grad[0], 0.5, 1e-16);
    tu_assert_close(x->grad[1], -0.5, 1e-16);
    ot_free(&e);
}

static void test_extreme_logits(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){3, 3},
                              (double[]){1e4, -1e4, 0, -1e4, -1e4, -1e4, 1e4, 1e4, -1e4});
    qkv_tensor *p = qkv_softmax(&e.tp, x);
    qkv_tensor *lp = qkv_log_softmax(&e.tp, x);
    assert_non_null(p);
    assert_non_null(lp);
    ot_assert_finite(p->data, 9);
    ot_assert_finite(lp->data, 9);
    const double want_p[] = {1, 0, 0, 1. / 3, 1. / 3, 1. / 3, 0.5, 0.5, 0};
    const double want_lp[] = {0, -2e4, -1e4, -log(3), -log(3), -log(3), -log(2), -log(2), -2e4 - log(2)};
    for (int i = 0; i < 9; i++) {
        tu_assert_close(p->data[i], want_p[i], 1e-15);
        tu_assert_close(lp->data[i], want_lp[i], 1e-12);
    }
    qkv_real r[9];
    for (int i = 0; i < 9; i++)
        r[i] = (qkv_real)(i % 3 - 1);
    assert_int_equal(qkv_backward_from(&e.tp, p, r), QKV_OK);
    ot_assert_finite(x->grad, 9);
    qkv_tape_reset(&e.tp);
    assert_int_equal(qkv_backward_from(&e.tp, qkv_log_softmax(&e.tp, x), r), QKV_OK);
    ot_assert_finite(x->grad, 9);
    ot_free(&e);
}

static void check(bool log, int rank, const int *shape, double spread, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(shape[0] * 13 + shape[rank - 1] + log));
    fixture f = {ot_param(&e, "x", rank, shape), log};
    for (size_t i = 0; i < f.x->size; i++)
        f.x->data[i] *= (qkv_real)spread;
    const char *names[] = {"x"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, softmax_fn, &f, 1, &f.x, names, samples);
    else
        tu_assert_gradcheck(&e.tp, softmax_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

static void check_shapes(bool log)
{
    check(log, 2, (int[]){1, 1}, 1, 0);
    check(log, 2, (int[]){3, 5}, 1, 0);
    check(log, 2, (int[]){4, 1}, 1, 0);
    check(log, 2, (int[]){1, 7}, 1, 0);
    check(log, 2, (int[]){5, 6}, 5, 0); /* peaked rows */
    check(log, 3, (int[]){2, 3, 4}, 1, 0);
    check(log, 1, (int[]){5}, 1, 0);
    check(log, 2, (int[]){97, 53}, 2, 12); /* threaded */
}

static void test_softmax_gradcheck(void **state)
{
    (void)state;
    check_shapes(false);
}

static void test_log_softmax_gradcheck(void **state)
{
    (void)state;
    check_shapes(true);
}

/* Each op's gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    for (int log = 0; log < 2; log++) {
        ot_env e;
        ot_init(&e, 3);
        fixture f = {ot_param2(&e, "x", 3, 5), log};
        const char *names[] = {"x"};
        ot_assert_gradcheck_catches(&e.tp, log ? "log_softmax" : "softmax", softmax_fn, &f, 1, &f.x, names);
        ot_free(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_values),
        cmocka_unit_test(test_backward_values),
        cmocka_unit_test(test_extreme_logits),
        cmocka_unit_test(test_softmax_gradcheck),
        cmocka_unit_test(test_log_softmax_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
