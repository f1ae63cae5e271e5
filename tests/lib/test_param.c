/* The random initializers: they draw from the generator they are given, and with none they
 * leave the tensor as it is (a model built for a checkpoint to fill draws nothing). A set's
 * bound on its values refuses the first parameter past it, before allocating that one. */
#include "testutil.h"

#include "lib/param.h"

static void test_no_generator_leaves_values(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_tensor *w = qkv_params_add(&ps, &err, 2, (int[]){3, 4}, "w");
    assert_non_null(w);
    for (size_t i = 0; i < w->size; i++)
        w->data[i] = (qkv_real)i;
    qkv_init_normal(w, NULL, 1.0);
    qkv_init_xavier_uniform(w, NULL);
    for (size_t i = 0; i < w->size; i++)
        assert_true(w->data[i] == (qkv_real)i);
    /* with a generator both draw: values change, and the generator moves on */
    qkv_rng rng, start;
    qkv_rng_seed(&rng, 7);
    start = rng;
    qkv_init_normal(w, &rng, 1.0);
    assert_memory_not_equal(&rng, &start, sizeof rng);
    int changed = 0;
    for (size_t i = 0; i < w->size; i++)
        changed += w->data[i] != (qkv_real)i;
    assert_true(changed == (int)w->size);
    start = rng;
    qkv_real before[12];
    memcpy(before, w->data, sizeof before);
    qkv_init_xavier_uniform(w, &rng);
    assert_memory_not_equal(&rng, &start, sizeof rng);
    double a = sqrt(6.0 / (3 + 4));
    for (size_t i = 0; i < w->size; i++) {
        assert_true(w->data[i] != before[i] && w->data[i] != 0);
        assert_true(fabs((double)w->data[i]) <= a);
    }
    qkv_params_free(&ps);
}

static void test_bound_refuses_the_parameter_past_it(void **state)
{
    (void)state;
    qkv_params ps;
    qkv_params_init(&ps);
    ps.max_values = 20;
    qkv_error err;
    assert_non_null(qkv_params_add(&ps, &err, 2, (int[]){3, 4}, "w"));
    assert_non_null(qkv_params_add(&ps, &err, 1, (int[]){8}, "b")); /* exactly the bound */
    assert_null(qkv_params_add(&ps, &err, 1, (int[]){1}, "c"));
    assert_string_equal(err.msg, "parameter c [1] of 1 values would take the parameters past their bound of 20 values");
    assert_int_equal(ps.n, 2);
    assert_int_equal(qkv_params_count(&ps), 20);
    qkv_params_free(&ps);
    /* 0: no bound; a size no size_t holds is refused all the same (nothing allocated for it) */
    assert_non_null(qkv_params_add(&ps, &err, 2, (int[]){100, 100}, "w"));
    assert_null(qkv_params_add(&ps, &err, 4, (int[]){1 << 30, 1 << 30, 1 << 30, 1 << 30}, "huge"));
    assert_string_equal(err.msg, "parameter huge [1073741824, 1073741824, 1073741824, 1073741824]: more values than "
                                 "memory can address");
    assert_int_equal(ps.n, 1);
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_generator_leaves_values),
        cmocka_unit_test(test_bound_refuses_the_parameter_past_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
