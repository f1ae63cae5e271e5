/* linear and matmul: forward values and double-precision gradient checks; the checker itself
 * must catch a backward that is 1% off. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "lib/ops/ops.h"

typedef struct {
    qkv_tensor *x, *w, *b;
    bool trans_a, trans_b;
} fixture;

static qkv_tensor *linear_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_linear(tp, f->x, f->w, f->b);
}

static qkv_tensor *matmul_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_matmul(tp, f->x, f->w, f->trans_a, f->trans_b);
}

static void test_linear_forward_values(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_error err;
    qkv_tensor *x = qkv_params_add(&ps, &err, 2, (int[]){2, 3}, "x");
    qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){2, 3}, "w");
    qkv_tensor *b = qkv_params_add(&ps, &err, 1, (int[]){2}, "b");
    const double xv[] = {1, 2, 3, 4, 5, 6}, wv[] = {1, 0, -1, 0.5, 0.5, 0.5}, bv[] = {10, -10};
    for (int i = 0; i < 6; i++) {
        x->data[i] = xv[i];
        w->data[i] = wv[i];
    }
    b->data[0] = bv[0];
    b->data[1] = bv[1];
    qkv_tensor *y = qkv_linear(&tp, x, w, b);
    assert_non_null(y);
    assert_int_equal(y->shape[0], 2);
    assert_int_equal(y->shape[1], 2);
    /* row 0: [1-3, 3] + b = [8, -7]; row 1: [4-6, 7.5] + b = [8, -2.5] */
    tu_assert_close(y->data[0], 8, 1e-12);
    tu_assert_close(y->data[1], -7, 1e-12);
    tu_assert_close(y->data[2], 8, 1e-12);
    tu_assert_close(y->data[3], -2.5, 1e-12);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_linear_shape_error(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_error err;
    qkv_tensor *x = qkv_params_add(&ps, &err, 2, (int[]){2, 3}, "x");
    qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){2, 4}, "w");
    assert_null(qkv_linear(&tp, x, w, NULL));
    assert_true(tp.failed);
    assert_non_null(strstr(tp.err.msg, "[2, 3]"));
    /* errors are sticky: the next op returns NULL too */
    assert_null(qkv_matmul(&tp, x, x, false, true));
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void check_linear(int n, int in, int out, bool bias)
{
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_rng rng;
    qkv_rng_seed(&rng, (uint64_t)(n * 100 + in * 10 + out));
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    fixture f = {0};
    f.x = tu_param(&ps, &rng, "x", 2, (int[]){n, in});
    f.w = tu_param(&ps, &rng, "w", 2, (int[]){out, in});
    f.b = bias ? tu_param(&ps, &rng, "b", 1, (int[]){out}) : NULL;
    qkv_tensor *ts[] = {f.x, f.w, f.b};
    const char *names[] = {"x", "w", "b"};
    tu_assert_gradcheck(&tp, linear_fn, &f, bias ? 3 : 2, ts, names);
    qkv_tape_free(&tp);
    qkv_params_free(&ps);
}

static void test_linear_gradcheck(void **state)
{
    (void)state;
    check_linear(1, 1, 1, true);
    check_linear(3, 5, 7, true);
    check_linear(4, 2, 3, false);
    check_linear(7, 6, 1, true);
}

static void test_matmul_gradcheck(void **state)
{
    (void)state;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            int m = 3, k = 5, n = 2;
            qkv_params ps;
            qkv_params_init(&ps);
            qkv_rng rng;
            qkv_rng_seed(&rng, (uint64_t)(ta * 2 + tb));
            qkv_tape tp;
            qkv_tape_init(&tp, 0);
            fixture f = {0};
            f.trans_a = ta;
            f.trans_b = tb;
            f.x = tu_param(&ps, &rng, "a", 2, ta ? (int[]){k, m} : (int[]){m, k});
            f.w = tu_param(&ps, &rng, "b", 2, tb ? (int[]){n, k} : (int[]){k, n});
            qkv_tensor *ts[] = {f.x, f.w};
            const char *names[] = {"a", "b"};
            tu_assert_gradcheck(&tp, matmul_fn, &f, 2, ts, names);
            qkv_tape_free(&tp);
            qkv_params_free(&ps);
        }
}

/* The checker can fail: with linear's backward scaled by 1.01 every seed must report failure. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        qkv_params ps;
        qkv_params_init(&ps);
        qkv_rng rng;
        qkv_rng_seed(&rng, seed);
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        tp.fault_op = "linear";
        fixture f = {0};
        f.x = tu_param(&ps, &rng, "x", 2, (int[]){3, 4});
        f.w = tu_param(&ps, &rng, "w", 2, (int[]){2, 4});
        f.b = tu_param(&ps, &rng, "b", 1, (int[]){2});
        qkv_tensor *ts[] = {f.x, f.w, f.b};
        const char *names[] = {"x", "w", "b"};
        assert_int_equal(tu_gradcheck_status(&tp, linear_fn, &f, 3, ts, names, seed), 1);
        qkv_tape_free(&tp);
        qkv_params_free(&ps);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_forward_values),
        cmocka_unit_test(test_linear_shape_error),
        cmocka_unit_test(test_linear_gradcheck),
        cmocka_unit_test(test_matmul_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
