/* layer norm: forward values by hand (eps 0 and eps 1e-5), errors, and double-precision
 * gradient checks with and without gain and bias over several shapes. */
#include "optest.h"

typedef struct {
    qkv_tensor *x, *gain, *bias;
    double eps;
} fixture;

static qkv_tensor *ln_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_layer_norm(tp, f->x, f->gain, f->bias, f->eps);
}

/* [1, 2, 3]: mean 2, biased variance 2/3, so y = ±1 / sqrt(2/3 + eps) and 0. Values from
 * 1 / sqrt(2/3) = 1.224744871391589049... and 1 / sqrt(2/3 + 1e-5) = 1.224735685908390169...
 * (40-digit decimal arithmetic). */
static void test_forward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){2, 3}, (double[]){1, 2, 3, 1001, 1002, 1003});
    qkv_tensor *gain = ot_values(&e, "gain", 1, (int[]){3}, (double[]){1, 1, 1});
    qkv_tensor *bias = ot_values(&e, "bias", 1, (int[]){3}, (double[]){0, 0, 0});
    const double a0 = 1.224744871391589049, a5 = 1.224735685908390169;

    qkv_tensor *y0 = qkv_layer_norm(&e.tp, x, gain, bias, 0.0);
    qkv_tensor *y5 = qkv_layer_norm(&e.tp, x, gain, bias, 1e-5);
    qkv_tensor *y_plain = qkv_layer_norm(&e.tp, x, NULL, NULL, 1e-5);
    assert_non_null(y0);
    assert_non_null(y5);
    assert_non_null(y_plain);
    for (int r = 0; r < 2; r++) { /* the second row is the first shifted by 1000 */
        tu_assert_close(y0->data[3 * r + 0], -a0, 1e-14);
        tu_assert_close(y0->data[3 * r + 1], 0, 1e-14);
        tu_assert_close(y0->data[3 * r + 2], a0, 1e-14);
        tu_assert_close(y5->data[3 * r + 0], -a5, 1e-14);
        tu_assert_close(y5->data[3 * r + 1], 0, 1e-14);
        tu_assert_close(y5->data[3 * r + 2], a5, 1e-14);
        for (int j = 0; j < 3; j++)
            tu_assert_close(y_plain->data[3 * r + j], y5->data[3 * r + j], 0);
    }

    /* gain and bias: y = xhat ⊙ [2, 1, -1] + [0.5, -1, 0.25] */
    qkv_tensor *g2 = ot_values(&e, "g2", 1, (int[]){3}, (double[]){2, 1, -1});
    qkv_tensor *b2 = ot_values(&e, "b2", 1, (int[]){3}, (double[]){0.5, -1, 0.25});
    qkv_tensor *y = qkv_layer_norm(&e.tp, x, g2, b2, 0.0);
    assert_non_null(y);
    tu_assert_close(y->data[0], -2 * a0 + 0.5, 1e-14);
    tu_assert_close(y->data[1], -1, 1e-14);
    tu_assert_close(y->data[2], -a0 + 0.25, 1e-14);

    /* a constant row normalizes to 0 (not NaN) when eps > 0 */
    qkv_tensor *c = ot_values(&e, "c", 2, (int[]){1, 4}, (double[]){7, 7, 7, 7});
    qkv_tensor *yc = qkv_layer_norm(&e.tp, c, NULL, NULL, 1e-5);
    assert_non_null(yc);
    for (int j = 0; j < 4; j++)
        tu_assert_close(yc->data[j], 0, 0);
    ot_free(&e);
}

/* L = sum(y) with gain [1, 2, 3], eps 0: dbias = N per column by hand; dx and dgain from
 * torch 1.13 (float64 layer_norm, sum().backward()). The second row [6, 5, 4] is symmetric,
 * so its dx is 0 by hand as well. */
static void test_backward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){2, 3}, (double[]){1, 2, 4, 6, 5, 4});
    qkv_tensor *gain = ot_values(&e, "gain", 1, (int[]){3}, (double[]){1, 2, 3});
    qkv_tensor *bias = ot_values(&e, "bias", 1, (int[]){3}, (double[]){0, 0, 0});
    qkv_tensor *y = qkv_layer_norm(&e.tp, x, gain, bias, 0.0);
    assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, y)), QKV_OK);
    const double dx[6] = {-0.11454053224818173, 0.1718107983722731, -0.057270266124090585, 0, 0, 0};
    const double dgain[3] = {0.1556999037418909, -0.26726124191242495, 0.11156133817053249};
    for (int i = 0; i < 6; i++)
        tu_assert_close(x->grad[i], dx[i], 1e-14);
    for (int j = 0; j < 3; j++) {
        tu_assert_close(gain->grad[j], dgain[j], 1e-14);
        tu_assert_close(bias->grad[j], 2, 1e-14);
    }
    ot_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 2, 3);
    qkv_tensor *g = ot_param(&e, "g", 1, (int[]){4});
    assert_null(qkv_layer_norm(&e.tp, x, g, NULL, 1e-5));
    assert_non_null(strstr(e.tp.err.msg, "gain [4]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_layer_norm(&e.tp, x, NULL, g, 1e-5));
    assert_non_null(strstr(e.tp.err.msg, "bias [4]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_layer_norm(&e.tp, x, NULL, NULL, -1e-5));
    assert_non_null(strstr(e.tp.err.msg, "eps"));
    ot_free(&e);
}

static void check(int rank, const int *shape, bool gain, bool bias, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(shape[0] * 31 + shape[rank - 1] + gain * 2 + bias));
    fixture f = {ot_param(&e, "x", rank, shape), NULL, NULL, 1e-5};
    qkv_tensor *ts[3] = {f.x};
    const char *names[3] = {"x"};
    int n = 1;
    if (gain) {
        f.gain = ts[n] = ot_param(&e, "gain", 1, &shape[rank - 1]);
        names[n++] = "gain";
    }
    if (bias) {
        f.bias = ts[n] = ot_param(&e, "bias", 1, &shape[rank - 1]);
        names[n++] = "bias";
    }
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, ln_fn, &f, n, ts, names, samples);
    else
        tu_assert_gradcheck(&e.tp, ln_fn, &f, n, ts, names);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    check(2, (int[]){1, 1}, true, true, 0);
    check(2, (int[]){1, 2}, true, true, 0);
    check(2, (int[]){3, 5}, true, true, 0);
    check(2, (int[]){4, 7}, false, false, 0);
    check(2, (int[]){5, 3}, true, false, 0);
    check(2, (int[]){2, 6}, false, true, 0);
    check(1, (int[]){9}, true, true, 0);
    check(3, (int[]){2, 3, 7}, true, true, 0);
    check(2, (int[]){3, 70}, true, true, 0);     /* more than one block of columns */
    check(2, (int[]){131, 257}, true, true, 12); /* threaded */
}

/* The gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {ot_param2(&e, "x", 3, 5), ot_param(&e, "gain", 1, (int[]){5}), ot_param(&e, "bias", 1, (int[]){5}), 1e-5};
    qkv_tensor *ts[] = {f.x, f.gain, f.bias};
    const char *names[] = {"x", "gain", "bias"};
    ot_assert_gradcheck_catches(&e.tp, "layer_norm", ln_fn, &f, 3, ts, names);
    ot_free(&e);
}

/* ---- add_layer_norm: h = x + a, y = layer_norm(h) in one pass ------------------------------ */

typedef struct {
    qkv_tensor *x, *a, *gain, *bias;
} add_fixture;

/* y + h ⊙ h: both outputs reach the loss, h not linearly. */
static qkv_tensor *add_ln_fn(qkv_tape *tp, void *user)
{
    add_fixture *f = user;
    qkv_tensor *h = NULL;
    qkv_tensor *y = qkv_add_layer_norm(tp, f->x, f->a, f->gain, f->bias, 1e-5, &h);
    return y ? qkv_add(tp, y, qkv_mul(tp, h, h)) : NULL;
}

/* x + a = [1, 2, 3] (the case of test_forward_values), gain [2, 1, -1], bias [0.5, -1, 0.25];
 * the second row shifted by 1000. */
static void test_add_forward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){2, 3}, (double[]){0.5, 2, -1, 1000, 1, 1003});
    qkv_tensor *a = ot_values(&e, "a", 2, (int[]){2, 3}, (double[]){0.5, 0, 4, 1, 1001, 0});
    qkv_tensor *g = ot_values(&e, "g", 1, (int[]){3}, (double[]){2, 1, -1});
    qkv_tensor *b = ot_values(&e, "b", 1, (int[]){3}, (double[]){0.5, -1, 0.25});
    const double a0 = 1.224744871391589049;
    qkv_tensor *h = NULL;
    qkv_tensor *y = qkv_add_layer_norm(&e.tp, x, a, g, b, 0.0, &h);
    assert_non_null(y);
    assert_non_null(h);
    for (int r = 0; r < 2; r++) {
        for (int j = 0; j < 3; j++)
            tu_assert_close(h->data[3 * r + j], 1000 * r + j + 1, 0);
        tu_assert_close(y->data[3 * r + 0], -2 * a0 + 0.5, 1e-12);
        tu_assert_close(y->data[3 * r + 1], -1, 1e-12);
        tu_assert_close(y->data[3 * r + 2], -a0 + 0.25, 1e-12);
    }
    assert_non_null(qkv_add_layer_norm(&e.tp, x, a, NULL, NULL, 1e-5, NULL)); /* sum may be NULL */
    ot_free(&e);
}

/* The fused op gives exactly the values and gradients of qkv_add then qkv_layer_norm, on a
 * tensor large enough for the threaded loops. */
static void test_add_matches_unfused(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 5);
    add_fixture f = {ot_param2(&e, "x", 131, 257), ot_param2(&e, "a", 131, 257),
                     ot_param(&e, "gain", 1, (int[]){257}), ot_param(&e, "bias", 1, (int[]){257})};
    qkv_tensor *ts[4] = {f.x, f.a, f.gain, f.bias};
    qkv_real *grads[2][4], *vals[2];
    for (int fused = 0; fused < 2; fused++) {
        qkv_tape_reset(&e.tp);
        qkv_params_zero_grad(&e.ps);
        qkv_tensor *h = NULL, *y;
        if (fused) {
            y = qkv_add_layer_norm(&e.tp, f.x, f.a, f.gain, f.bias, 1e-5, &h);
        } else {
            h = qkv_add(&e.tp, f.x, f.a);
            y = qkv_layer_norm(&e.tp, h, f.gain, f.bias, 1e-5);
        }
        qkv_tensor *loss = qkv_sum(&e.tp, qkv_add(&e.tp, y, qkv_mul(&e.tp, h, h)));
        assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
        vals[fused] = malloc(y->size * sizeof(qkv_real));
        memcpy(vals[fused], y->data, y->size * sizeof(qkv_real));
        for (int k = 0; k < 4; k++) {
            grads[fused][k] = malloc(ts[k]->size * sizeof(qkv_real));
            memcpy(grads[fused][k], ts[k]->grad, ts[k]->size * sizeof(qkv_real));
        }
    }
    assert_memory_equal(vals[0], vals[1], f.x->size * sizeof(qkv_real));
    for (int k = 0; k < 4; k++)
        assert_memory_equal(grads[0][k], grads[1][k], ts[k]->size * sizeof(qkv_real));
    for (int fused = 0; fused < 2; fused++) {
        free(vals[fused]);
        for (int k = 0; k < 4; k++)
            free(grads[fused][k]);
    }
    ot_free(&e);
}

static void add_check(int rows, int cols, bool affine, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(rows * 7 + cols));
    add_fixture f = {ot_param2(&e, "x", rows, cols), ot_param2(&e, "a", rows, cols), NULL, NULL};
    if (affine) {
        f.gain = ot_param(&e, "gain", 1, (int[]){cols});
        f.bias = ot_param(&e, "bias", 1, (int[]){cols});
    }
    qkv_tensor *ts[4] = {f.x, f.a, f.gain, f.bias};
    const char *names[4] = {"x", "a", "gain", "bias"};
    int n = affine ? 4 : 2;
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, add_ln_fn, &f, n, ts, names, samples);
    else
        tu_assert_gradcheck(&e.tp, add_ln_fn, &f, n, ts, names);
    ot_free(&e);
}

static void test_add_gradcheck(void **state)
{
    (void)state;
    add_check(1, 2, true, 0);
    add_check(3, 5, true, 0);
    add_check(4, 7, false, 0);
    add_check(3, 70, true, 0);
    add_check(131, 257, true, 12); /* threaded */
}

static void test_add_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 2, 3), *a = ot_param2(&e, "a", 3, 2), *g = ot_param(&e, "g", 1, (int[]){4});
    assert_null(qkv_add_layer_norm(&e.tp, x, a, NULL, NULL, 1e-5, NULL));
    assert_non_null(strstr(e.tp.err.msg, "add_layer_norm: shapes differ: [2, 3] and [3, 2]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_add_layer_norm(&e.tp, x, x, g, NULL, 1e-5, NULL));
    assert_non_null(strstr(e.tp.err.msg, "gain [4]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_add_layer_norm(&e.tp, x, NULL, NULL, NULL, 1e-5, NULL));
    assert_non_null(strstr(e.tp.err.msg, "NULL"));
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_values),
        cmocka_unit_test(test_backward_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
        cmocka_unit_test(test_add_forward_values),
        cmocka_unit_test(test_add_matches_unfused),
        cmocka_unit_test(test_add_gradcheck),
        cmocka_unit_test(test_add_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
