/* add, add_bias, mul, scale: forward values by hand, shape errors, double-precision gradient
 * checks over several shapes (1x1, odd sizes, rank 3, an input used twice, and a large tensor
 * that takes the OpenMP path). */
#include "optest.h"

typedef enum { OP_ADD, OP_ADD_BIAS, OP_MUL, OP_SCALE } op_kind;

typedef struct {
    op_kind op;
    qkv_tensor *a, *b;
    double s;
} fixture;

static qkv_tensor *op_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    switch (f->op) {
    case OP_ADD: return qkv_add(tp, f->a, f->b);
    case OP_ADD_BIAS: return qkv_add_bias(tp, f->a, f->b);
    case OP_MUL: return qkv_mul(tp, f->a, f->b);
    case OP_SCALE: return qkv_scale(tp, f->a, f->s);
    }
    return NULL;
}

static void test_forward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *a = ot_values(&e, "a", 2, (int[]){2, 3}, (double[]){1, 2, 3, 4, 5, 6});
    qkv_tensor *b = ot_values(&e, "b", 2, (int[]){2, 3}, (double[]){0.5, -2, 0, 10, -5, 0.25});
    qkv_tensor *bias = ot_values(&e, "bias", 1, (int[]){3}, (double[]){100, 200, 300});

    const double add[] = {1.5, 0, 3, 14, 0, 6.25};
    const double mul[] = {0.5, -4, 0, 40, -25, 1.5};
    const double add_bias[] = {101, 202, 303, 104, 205, 306};
    const double scale[] = {-0.5, -1, -1.5, -2, -2.5, -3};
    qkv_tensor *y_add = qkv_add(&e.tp, a, b);
    qkv_tensor *y_mul = qkv_mul(&e.tp, a, b);
    qkv_tensor *y_bias = qkv_add_bias(&e.tp, a, bias);
    qkv_tensor *y_scale = qkv_scale(&e.tp, a, -0.5);
    assert_non_null(y_add);
    assert_non_null(y_mul);
    assert_non_null(y_bias);
    assert_non_null(y_scale);
    assert_true(qkv_same_shape(y_add, a) && qkv_same_shape(y_mul, a));
    assert_true(qkv_same_shape(y_bias, a) && qkv_same_shape(y_scale, a));
    for (int i = 0; i < 6; i++) {
        tu_assert_close(y_add->data[i], add[i], 1e-15);
        tu_assert_close(y_mul->data[i], mul[i], 1e-15);
        tu_assert_close(y_bias->data[i], add_bias[i], 1e-15);
        tu_assert_close(y_scale->data[i], scale[i], 1e-15);
    }
    ot_free(&e);
}

/* Gradients by hand for L = sum(y): add -> 1 each; mul -> the other factor; bias -> N. */
static void test_backward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *a = ot_values(&e, "a", 2, (int[]){2, 2}, (double[]){1, 2, 3, 4});
    qkv_tensor *b = ot_values(&e, "b", 2, (int[]){2, 2}, (double[]){-1, 0.5, 2, 3});
    qkv_tensor *bias = ot_values(&e, "bias", 1, (int[]){2}, (double[]){0, 0});
    qkv_tensor *y = qkv_add_bias(&e.tp, qkv_mul(&e.tp, a, b), bias);
    assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, y)), QKV_OK);
    for (int i = 0; i < 4; i++) {
        tu_assert_close(a->grad[i], b->data[i], 1e-15);
        tu_assert_close(b->grad[i], a->data[i], 1e-15);
    }
    tu_assert_close(bias->grad[0], 2, 1e-15);
    tu_assert_close(bias->grad[1], 2, 1e-15);
    ot_free(&e);
}

static void test_shape_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *a = ot_param2(&e, "a", 2, 3);
    qkv_tensor *b = ot_param2(&e, "b", 3, 2);
    qkv_tensor *bias = ot_param(&e, "bias", 1, (int[]){2});
    assert_null(qkv_add(&e.tp, a, b));
    assert_true(e.tp.failed);
    assert_non_null(strstr(e.tp.err.msg, "[2, 3]"));
    assert_non_null(strstr(e.tp.err.msg, "[3, 2]"));
    assert_null(qkv_scale(&e.tp, a, 2.0)); /* sticky */
    qkv_tape_reset(&e.tp);
    assert_null(qkv_mul(&e.tp, a, b));
    assert_true(e.tp.failed);
    qkv_tape_reset(&e.tp);
    assert_null(qkv_add_bias(&e.tp, a, bias));
    assert_non_null(strstr(e.tp.err.msg, "bias [2]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_scale(&e.tp, a, NAN));
    assert_true(e.tp.failed);
    ot_free(&e);
}

static void check(op_kind op, int rank, const int *shape, bool alias, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(op * 1000 + shape[0] * 10 + rank));
    fixture f = {op, NULL, NULL, -1.7};
    f.a = ot_param(&e, "a", rank, shape);
    if (op == OP_ADD_BIAS)
        f.b = ot_param(&e, "b", 1, &shape[rank - 1]);
    else if (op != OP_SCALE)
        f.b = alias ? f.a : ot_param(&e, "b", rank, shape);
    qkv_tensor *ts[] = {f.a, f.b};
    const char *names[] = {"a", "b"};
    int n = (op == OP_SCALE || alias) ? 1 : 2;
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, op_fn, &f, n, ts, names, samples);
    else
        tu_assert_gradcheck(&e.tp, op_fn, &f, n, ts, names);
    ot_free(&e);
}

static void check_shapes(op_kind op)
{
    check(op, 2, (int[]){1, 1}, false, 0);
    check(op, 2, (int[]){3, 5}, false, 0);
    check(op, 2, (int[]){7, 1}, false, 0);
    check(op, 1, (int[]){9}, false, 0);
    check(op, 3, (int[]){2, 3, 5}, false, 0);
    check(op, 2, (int[]){211, 199}, false, 12); /* > QKV_PARALLEL_MIN elements: the threaded loops */
}

static void test_add_gradcheck(void **state)
{
    (void)state;
    check_shapes(OP_ADD);
    check(OP_ADD, 2, (int[]){3, 4}, true, 0); /* a + a */
}

static void test_add_bias_gradcheck(void **state)
{
    (void)state;
    check_shapes(OP_ADD_BIAS);
}

static void test_mul_gradcheck(void **state)
{
    (void)state;
    check_shapes(OP_MUL);
    check(OP_MUL, 2, (int[]){3, 4}, true, 0); /* a ⊙ a */
}

static void test_scale_gradcheck(void **state)
{
    (void)state;
    check_shapes(OP_SCALE);
}

/* Each op's gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    const char *ops[] = {"add", "add_bias", "mul", "scale"};
    for (int op = OP_ADD; op <= OP_SCALE; op++) {
        ot_env e;
        ot_init(&e, 3);
        fixture f = {(op_kind)op, ot_param2(&e, "a", 3, 4), NULL, -1.7};
        f.b = op == OP_ADD_BIAS ? ot_param(&e, "b", 1, (int[]){4}) : ot_param2(&e, "b", 3, 4);
        qkv_tensor *ts[] = {f.a, f.b};
        const char *names[] = {"a", "b"};
        ot_assert_gradcheck_catches(&e.tp, ops[op], op_fn, &f, op == OP_SCALE ? 1 : 2, ts, names);
        ot_free(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_values),
        cmocka_unit_test(test_backward_values),
        cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_add_gradcheck),
        cmocka_unit_test(test_add_bias_gradcheck),
        cmocka_unit_test(test_mul_gradcheck),
        cmocka_unit_test(test_scale_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
