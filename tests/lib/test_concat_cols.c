/* Column concatenation (lib/ops/concat.h: qkv_concat_cols): each row of the result is the rows
 * of its parts side by side, a double-precision gradient check through it into every part, the
 * check's power to see a wrong backward, and the shape errors. */
#include "optest.h"

#include "lib/ops/concat.h"

typedef struct {
    qkv_tensor *parts[3];
    int n;
} cols_fixture;

/* The concatenation of the fixture's parts (the gradient check reduces it to a scalar). */
static qkv_tensor *cols_fn(qkv_tape *tp, void *user)
{
    cols_fixture *f = user;
    return qkv_concat_cols(tp, f->n, f->parts);
}

static void test_concat_cols_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    cols_fixture f = {{ot_values(&e, "a", 2, (int[]){2, 1}, (double[]){1, 2}),
                       ot_values(&e, "b", 2, (int[]){2, 3}, (double[]){3, 4, 5, 6, 7, 8}),
                       ot_values(&e, "c", 2, (int[]){2, 2}, (double[]){9, 10, 11, 12})},
                      3};
    qkv_tensor *y = cols_fn(&e.tp, &f);
    assert_non_null(y);
    assert_int_equal(y->shape[0], 2);
    assert_int_equal(y->shape[1], 6);
    const double want[12] = {1, 3, 4, 5, 9, 10, 2, 6, 7, 8, 11, 12};
    for (int k = 0; k < 12; k++)
        tu_assert_close(y->data[k], want[k], 0);
    ot_free(&e);
}

static void test_concat_cols_gradcheck(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 5);
    cols_fixture f = {{ot_param2(&e, "a", 4, 3), ot_param2(&e, "b", 4, 1), ot_param2(&e, "c", 4, 5)}, 3};
    const char *names[] = {"a", "b", "c"};
    tu_assert_gradcheck(&e.tp, cols_fn, &f, 3, f.parts, names);
    ot_assert_gradcheck_catches(&e.tp, "concat_cols", cols_fn, &f, 3, f.parts, names);
    ot_free(&e);
}

static void test_concat_cols_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 7);
    cols_fixture f = {{ot_param2(&e, "a", 4, 3), ot_param2(&e, "b", 3, 2), NULL}, 2};
    assert_null(cols_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "concat_cols: part 1 has 3 rows, part 0 has 4"));
    qkv_tape_reset(&e.tp);
    f.n = 0;
    assert_null(cols_fn(&e.tp, &f));
    assert_non_null(strstr(e.tp.err.msg, "concat_cols: 0 parts"));
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat_cols_values),
        cmocka_unit_test(test_concat_cols_gradcheck),
        cmocka_unit_test(test_concat_cols_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
