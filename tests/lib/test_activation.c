/* relu and gelu (erf and tanh forms): forward values computed independently, gradients of
 * relu by hand, double-precision gradient checks over several shapes. */
#include "optest.h"

typedef enum { ACT_RELU, ACT_GELU_ERF, ACT_GELU_TANH } act_kind;

typedef struct {
    act_kind act;
    qkv_tensor *x;
} fixture;

static qkv_tensor *act_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    switch (f->act) {
    case ACT_RELU: return qkv_relu(tp, f->x);
    case ACT_GELU_ERF: return qkv_gelu(tp, f->x, QKV_GELU_ERF);
    case ACT_GELU_TANH: return qkv_gelu(tp, f->x, QKV_GELU_TANH);
    }
    return NULL;
}

static void test_relu_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 1, (int[]){5}, (double[]){-2, -1e-300, 0, 0.5, 3});
    qkv_tensor *y = qkv_relu(&e.tp, x);
    assert_non_null(y);
    const double want[] = {0, 0, 0, 0.5, 3}, want_grad[] = {0, 0, 0, 1, 1};
    for (int i = 0; i < 5; i++)
        tu_assert_close(y->data[i], want[i], 0);
    assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, y)), QKV_OK);
    for (int i = 0; i < 5; i++) /* the derivative at 0 is taken as 0, as PyTorch */
        tu_assert_close(x->grad[i], want_grad[i], 0);
    ot_free(&e);
}

/* Values from 0.5 x (1 + erf(x / sqrt 2)) and 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 * evaluated with Python's math.erf / math.tanh (torch 1.13's gelu agrees within 1e-16). */
static void test_gelu_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    const double xv[] = {-3, -1, -0.5, 0, 0.5, 1, 2, 3};
    const double erf_form[] = {-0.00404969409489031, -0.15865525393145707, -0.15426876936299344, 0,
                               0.34573123063700656,  0.8413447460685429,   1.9544997361036416,   2.99595030590511};
    const double tanh_form[] = {-0.0036373920817729943, -0.15880800939172324, -0.15428599017485606, 0,
                                0.34571400982514394,    0.8411919906082768,  1.954597694087775,    2.996362607918227};
    qkv_tensor *x = ot_values(&e, "x", 1, (int[]){8}, xv);
    qkv_tensor *ye = qkv_gelu(&e.tp, x, QKV_GELU_ERF);
    qkv_tensor *yt = qkv_gelu(&e.tp, x, QKV_GELU_TANH);
    assert_non_null(ye);
    assert_non_null(yt);
    for (int i = 0; i < 8; i++) {
        tu_assert_close(ye->data[i], erf_form[i], 1e-15);
        tu_assert_close(yt->data[i], tanh_form[i], 1e-15);
    }
    /* derivative at 0 is 1/2 in both forms */
    qkv_tensor *zero = ot_values(&e, "zero", 1, (int[]){1}, (double[]){0});
    assert_int_equal(qkv_backward(&e.tp, qkv_gelu(&e.tp, zero, QKV_GELU_TANH)), QKV_OK);
    tu_assert_close(zero->grad[0], 0.5, 1e-15);
    qkv_tape_reset(&e.tp);
    zero->grad[0] = 0;
    assert_int_equal(qkv_backward(&e.tp, qkv_gelu(&e.tp, zero, QKV_GELU_ERF)), QKV_OK);
    tu_assert_close(zero->grad[0], 0.5, 1e-15);
    qkv_tape_reset(&e.tp);
    assert_null(qkv_gelu(&e.tp, x, (qkv_gelu_form)7));
    assert_non_null(strstr(e.tp.err.msg, "unknown form 7"));
    ot_free(&e);
}

/* Far tails: gelu(x) -> x for large x and -> 0 for very negative x, derivatives 1 and 0,
 * with no inf or NaN from exp overflow inside either form. */
static void test_gelu_extremes(void **state)
{
    (void)state;
    const double xv[] = {-1e4, -60, 60, 1e4};
    const double want[] = {0, 0, 60, 1e4}, want_grad[] = {0, 0, 1, 1};
    for (int form = QKV_GELU_ERF; form <= QKV_GELU_TANH; form++) {
        ot_env e;
        ot_init(&e, 1);
        qkv_tensor *x = ot_values(&e, "x", 1, (int[]){4}, xv);
        qkv_tensor *y = qkv_gelu(&e.tp, x, (qkv_gelu_form)form);
        assert_non_null(y);
        assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, y)), QKV_OK);
        for (int i = 0; i < 4; i++) {
            tu_assert_close(y->data[i], want[i], 1e-12);
            tu_assert_close(x->grad[i], want_grad[i], 1e-12);
        }
        ot_free(&e);
    }
}

static void check(act_kind act, int rank, const int *shape, double spread, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(act * 100 + shape[0] + rank));
    fixture f = {act, ot_param(&e, "x", rank, shape)};
    for (size_t i = 0; i < f.x->size; i++)
        f.x->data[i] *= (qkv_real)spread;
    const char *names[] = {"x"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, act_fn, &f, 1, &f.x, names, samples);
    else
        tu_assert_gradcheck(&e.tp, act_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

static void check_shapes(act_kind act)
{
    check(act, 2, (int[]){1, 1}, 1, 0);
    check(act, 2, (int[]){3, 5}, 1, 0);
    check(act, 2, (int[]){5, 7}, 3, 0); /* tails of the curve */
    check(act, 3, (int[]){2, 1, 3}, 1, 0);
    check(act, 2, (int[]){181, 191}, 2, 12); /* threaded */
}

static void test_relu_gradcheck(void **state)
{
    (void)state;
    check_shapes(ACT_RELU);
}

static void test_gelu_erf_gradcheck(void **state)
{
    (void)state;
    check_shapes(ACT_GELU_ERF);
}

static void test_gelu_tanh_gradcheck(void **state)
{
    (void)state;
    check_shapes(ACT_GELU_TANH);
}

/* Each op's gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    for (int act = ACT_RELU; act <= ACT_GELU_TANH; act++) {
        ot_env e;
        ot_init(&e, 3);
        fixture f = {(act_kind)act, ot_param2(&e, "x", 3, 4)};
        const char *names[] = {"x"};
        ot_assert_gradcheck_catches(&e.tp, act == ACT_RELU ? "relu" : "gelu", act_fn, &f, 1, &f.x, names);
        ot_free(&e);
    }
}

/* ---- bias_gelu: gelu(u + b) ---------------------------------------------------------------- */

typedef struct {
    qkv_tensor *u, *b;
    qkv_gelu_form form;
} bias_fixture;

static qkv_tensor *bias_gelu_fn(qkv_tape *tp, void *user)
{
    bias_fixture *f = user;
    return qkv_bias_gelu(tp, f->u, f->b, f->form);
}

/* u + b = the x of test_gelu_values (two rows of four), so the values are the same. */
static void test_bias_gelu_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    const double bv[] = {0.25, -0.5, 1, 2};
    const double xv[] = {-3, -1, -0.5, 0, 0.5, 1, 2, 3};
    const double erf_form[] = {-0.00404969409489031, -0.15865525393145707, -0.15426876936299344, 0,
                               0.34573123063700656,  0.8413447460685429,   1.9544997361036416,   2.99595030590511};
    const double tanh_form[] = {-0.0036373920817729943, -0.15880800939172324, -0.15428599017485606, 0,
                                0.34571400982514394,    0.8411919906082768,  1.954597694087775,    2.996362607918227};
    double uv[8];
    for (int i = 0; i < 8; i++)
        uv[i] = xv[i] - bv[i % 4];
    qkv_tensor *u = ot_values(&e, "u", 2, (int[]){2, 4}, uv), *b = ot_values(&e, "b", 1, (int[]){4}, bv);
    qkv_tensor *ye = qkv_bias_gelu(&e.tp, u, b, QKV_GELU_ERF), *yt = qkv_bias_gelu(&e.tp, u, b, QKV_GELU_TANH);
    assert_non_null(ye);
    assert_non_null(yt);
    for (int i = 0; i < 8; i++) {
        tu_assert_close(ye->data[i], erf_form[i], 1e-15);
        tu_assert_close(yt->data[i], tanh_form[i], 1e-15);
    }
    qkv_tensor *b3 = ot_values(&e, "b3", 1, (int[]){3}, bv);
    assert_null(qkv_bias_gelu(&e.tp, u, b3, QKV_GELU_ERF));
    assert_non_null(strstr(e.tp.err.msg, "bias_gelu: bias [3] does not match the last dimension of [2, 4]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_bias_gelu(&e.tp, u, b, (qkv_gelu_form)7));
    assert_non_null(strstr(e.tp.err.msg, "unknown form 7"));
    ot_free(&e);
}

/* Exactly the values and gradients of qkv_add_bias then qkv_gelu, threaded sizes included. */
static void test_bias_gelu_matches_unfused(void **state)
{
    (void)state;
    for (int form = QKV_GELU_ERF; form <= QKV_GELU_TANH; form++) {
        ot_env e;
        ot_init(&e, 9);
        qkv_tensor *u = ot_param2(&e, "u", 181, 191), *b = ot_param(&e, "b", 1, (int[]){191});
        qkv_real *val[2], *gu[2], *gb[2];
        for (int fused = 0; fused < 2; fused++) {
            qkv_tape_reset(&e.tp);
            qkv_params_zero_grad(&e.ps);
            qkv_tensor *y = fused ? qkv_bias_gelu(&e.tp, u, b, (qkv_gelu_form)form)
                                  : qkv_gelu(&e.tp, qkv_add_bias(&e.tp, u, b), (qkv_gelu_form)form);
            assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, qkv_mul(&e.tp, y, y))), QKV_OK);
            val[fused] = malloc(u->size * sizeof(qkv_real));
            gu[fused] = malloc(u->size * sizeof(qkv_real));
            gb[fused] = malloc(b->size * sizeof(qkv_real));
            memcpy(val[fused], y->data, u->size * sizeof(qkv_real));
            memcpy(gu[fused], u->grad, u->size * sizeof(qkv_real));
            memcpy(gb[fused], b->grad, b->size * sizeof(qkv_real));
        }
        assert_memory_equal(val[0], val[1], u->size * sizeof(qkv_real));
        assert_memory_equal(gu[0], gu[1], u->size * sizeof(qkv_real));
        for (size_t j = 0; j < b->size; j++) /* qkv_add_bias may sum the rows in another order */
            tu_assert_close(gb[1][j], gb[0][j], 1e-12 * (1 + fabs(gb[0][j])));
        for (int k = 0; k < 2; k++) {
            free(val[k]);
            free(gu[k]);
            free(gb[k]);
        }
        ot_free(&e);
    }
}

static void bias_check(qkv_gelu_form form, int rows, int cols, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(form * 100 + rows + cols));
    bias_fixture f = {ot_param2(&e, "u", rows, cols), ot_param(&e, "b", 1, (int[]){cols}), form};
    qkv_tensor *ts[2] = {f.u, f.b};
    const char *names[2] = {"u", "b"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, bias_gelu_fn, &f, 2, ts, names, samples);
    else
        tu_assert_gradcheck(&e.tp, bias_gelu_fn, &f, 2, ts, names);
    ot_free(&e);
}

static void test_bias_gelu_gradcheck(void **state)
{
    (void)state;
    for (int form = QKV_GELU_ERF; form <= QKV_GELU_TANH; form++) {
        bias_check((qkv_gelu_form)form, 1, 1, 0);
        bias_check((qkv_gelu_form)form, 3, 5, 0);
        bias_check((qkv_gelu_form)form, 4, 70, 0); /* more than one block of columns */
        bias_check((qkv_gelu_form)form, 181, 191, 12); /* threaded */
        ot_env e;
        ot_init(&e, 4);
        bias_fixture f = {ot_param2(&e, "u", 3, 4), ot_param(&e, "b", 1, (int[]){4}), (qkv_gelu_form)form};
        qkv_tensor *ts[2] = {f.u, f.b};
        const char *names[2] = {"u", "b"};
        ot_assert_gradcheck_catches(&e.tp, "bias_gelu", bias_gelu_fn, &f, 2, ts, names);
        ot_free(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relu_values),
        cmocka_unit_test(test_gelu_values),
        cmocka_unit_test(test_gelu_extremes),
        cmocka_unit_test(test_relu_gradcheck),
        cmocka_unit_test(test_gelu_erf_gradcheck),
        cmocka_unit_test(test_gelu_tanh_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
        cmocka_unit_test(test_bias_gelu_values),
        cmocka_unit_test(test_bias_gelu_matches_unfused),
        cmocka_unit_test(test_bias_gelu_gradcheck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
