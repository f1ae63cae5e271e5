/* sum and mean: forward values by hand, gradients by hand, double-precision gradient checks
 * over several shapes (1x1, odd sizes, rank 3, a large tensor). */
#include "optest.h"

typedef struct {
    qkv_tensor *x;
    bool mean;
} fixture;

static qkv_tensor *reduce_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return f->mean ? qkv_mean(tp, f->x) : qkv_sum(tp, f->x);
}

static void test_forward_and_backward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){2, 2}, (double[]){1, 2.5, -4, 8});
    qkv_tensor *s = qkv_sum(&e.tp, x);
    qkv_tensor *m = qkv_mean(&e.tp, x);
    assert_non_null(s);
    assert_non_null(m);
    assert_int_equal(s->rank, 1);
    assert_int_equal(s->size, 1);
    tu_assert_close(s->data[0], 7.5, 1e-15);
    tu_assert_close(m->data[0], 1.875, 1e-15);
    /* d(3 sum + mean)/dx = 3 + 1/4 for every element */
    assert_int_equal(qkv_backward(&e.tp, qkv_add(&e.tp, qkv_scale(&e.tp, s, 3), m)), QKV_OK);
    for (int i = 0; i < 4; i++)
        tu_assert_close(x->grad[i], 3.25, 1e-15);
    ot_free(&e);
}

static void check(bool mean, int rank, const int *shape, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(shape[0] * 7 + rank + mean));
    fixture f = {ot_param(&e, "x", rank, shape), mean};
    const char *names[] = {"x"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, reduce_fn, &f, 1, &f.x, names, samples);
    else
        tu_assert_gradcheck(&e.tp, reduce_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    for (int mean = 0; mean < 2; mean++) {
        check(mean, 2, (int[]){1, 1}, 0);
        check(mean, 2, (int[]){3, 5}, 0);
        check(mean, 1, (int[]){7}, 0);
        check(mean, 3, (int[]){2, 3, 5}, 0);
        check(mean, 2, (int[]){181, 191}, 10);
    }
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    assert_null(qkv_sum(&e.tp, NULL));
    assert_true(e.tp.failed);
    ot_free(&e);
}

/* Each op's gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    for (int mean = 0; mean < 2; mean++) {
        ot_env e;
        ot_init(&e, 3);
        fixture f = {ot_param2(&e, "x", 3, 4), mean};
        const char *names[] = {"x"};
        ot_assert_gradcheck_catches(&e.tp, mean ? "mean" : "sum", reduce_fn, &f, 1, &f.x, names);
        ot_free(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_and_backward_values),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
