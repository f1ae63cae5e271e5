/* The residual adds with dropout folded in: qkv_add_dropout (y = x + dropout(a)) and
 * qkv_add_dropout_layer_norm (h = x + dropout(a), y = layer_norm(h)). Forward values (each
 * element x or x + a / (1 - p)); bitwise the values and gradients of qkv_dropout then qkv_add /
 * qkv_add_layer_norm from the same rng state, on tensors large enough for the threaded loops;
 * no dropout (and no draw) without gradients or at p = 0; errors; double-precision gradient
 * checks with p = 0.3 (qkv_gradcheck restores the rng before every forward call). */
#include "optest.h"

#include <stdlib.h>

typedef struct {
    qkv_tensor *x, *a, *gain, *bias;
    double p;
    bool norm; /* qkv_add_dropout_layer_norm, else qkv_add_dropout */
} fixture;

/* The fused op; with norm, y + h ⊙ h so that both outputs reach the loss. */
static qkv_tensor *fused_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    if (!f->norm)
        return qkv_add_dropout(tp, f->x, f->a, f->p);
    qkv_tensor *h = NULL;
    qkv_tensor *y = qkv_add_dropout_layer_norm(tp, f->x, f->a, f->p, f->gain, f->bias, 1e-5, &h);
    return y ? qkv_add(tp, y, qkv_mul(tp, h, h)) : NULL;
}

/* The same from the unfused ops. */
static qkv_tensor *unfused_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_tensor *d = qkv_dropout(tp, f->a, f->p);
    if (!f->norm)
        return qkv_add(tp, f->x, d);
    qkv_tensor *h = qkv_add(tp, f->x, d);
    qkv_tensor *y = qkv_layer_norm(tp, h, f->gain, f->bias, 1e-5);
    return y ? qkv_add(tp, y, qkv_mul(tp, h, h)) : NULL;
}

static void test_forward_values(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 11);
    const int n = 4000;
    const double p = 0.25;
    qkv_tensor *x = ot_param(&e, "x", 2, (int[]){4, n / 4}), *a = ot_param(&e, "a", 2, (int[]){4, n / 4});
    for (int i = 0; i < n; i++)
        x->data[i] = (qkv_real)(i % 5), a->data[i] = (qkv_real)(1 + i % 3);
    qkv_tensor *y = qkv_add_dropout(&e.tp, x, a, p);
    assert_non_null(y);
    int dropped = 0;
    for (int i = 0; i < n; i++) {
        double kept = x->data[i] + a->data[i] / (1 - p);
        if (y->data[i] == x->data[i])
            dropped++;
        else
            tu_assert_close(y->data[i], kept, 1e-12);
    }
    assert_true(dropped > 0.2 * n && dropped < 0.3 * n);
    ot_free(&e);
}

/* Values and the gradients of x, a (and gain, bias) of the fused and unfused forms, bitwise. */
static void check_matches(bool norm, bool streams)
{
    ot_env e;
    ot_init(&e, 5);
    fixture f = {ot_param2(&e, "x", 131, 257), ot_param2(&e, "a", 131, 257), ot_param(&e, "gain", 1, (int[]){257}),
                 ot_param(&e, "bias", 1, (int[]){257}), 0.3, norm};
    qkv_tensor *ts[4] = {f.x, f.a, f.gain, f.bias};
    uint64_t row_ids[131];
    for (int t = 0; t < 131; t++)
        row_ids[t] = 1000 + 3 * t;
    qkv_dropout_streams st = {.key = 77, .row_ids = row_ids, .n_rows = 131};
    qkv_real *grads[2][4], *vals[2];
    size_t n_out = 0;
    const qkv_rng start = e.rng;
    for (int fused = 0; fused < 2; fused++) {
        qkv_tape_reset(&e.tp);
        qkv_params_zero_grad(&e.ps);
        e.rng = start;
        st.site = 0;
        e.tp.streams = streams ? &st : NULL;
        qkv_tensor *y = fused ? fused_fn(&e.tp, &f) : unfused_fn(&e.tp, &f);
        assert_non_null(y);
        assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, qkv_mul(&e.tp, y, y))), QKV_OK);
        n_out = y->size;
        vals[fused] = malloc(n_out * sizeof(qkv_real));
        memcpy(vals[fused], y->data, n_out * sizeof(qkv_real));
        for (int k = 0; k < 4; k++) {
            grads[fused][k] = calloc(ts[k]->size, sizeof(qkv_real));
            if (ts[k]->grad)
                memcpy(grads[fused][k], ts[k]->grad, ts[k]->size * sizeof(qkv_real));
        }
    }
    assert_memory_equal(vals[0], vals[1], n_out * sizeof(qkv_real));
    for (int k = 0; k < 4; k++)
        assert_memory_equal(grads[0][k], grads[1][k], ts[k]->size * sizeof(qkv_real));
    for (int fused = 0; fused < 2; fused++) {
        free(vals[fused]);
        for (int k = 0; k < 4; k++)
            free(grads[fused][k]);
    }
    e.tp.streams = NULL;
    ot_free(&e);
}

static void test_matches_unfused(void **state)
{
    (void)state;
    check_matches(false, false);
    check_matches(true, false);
    check_matches(false, true); /* the counter-based masks of tp->streams */
    check_matches(true, true);
}

static bool same_rng(const qkv_rng *a, const qkv_rng *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Without gradients or at p = 0: plain qkv_add / qkv_add_layer_norm values, no draw, no rng needed. */
static void test_no_dropout(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 2);
    qkv_tensor *x = ot_param2(&e, "x", 3, 4), *a = ot_param2(&e, "a", 3, 4);
    const qkv_rng before = e.rng;
    for (int k = 0; k < 2; k++) {
        e.tp.no_grad = k == 0;
        double p = k == 0 ? 0.5 : 0.0;
        qkv_tensor *y = qkv_add_dropout(&e.tp, x, a, p), *h = NULL;
        qkv_tensor *z = qkv_add_dropout_layer_norm(&e.tp, x, a, p, NULL, NULL, 1e-5, &h);
        qkv_tensor *want = qkv_add_layer_norm(&e.tp, x, a, NULL, NULL, 1e-5, NULL);
        assert_non_null(y);
        assert_non_null(z);
        for (int i = 0; i < 12; i++) {
            assert_true(y->data[i] == x->data[i] + a->data[i]);
            assert_true(h->data[i] == y->data[i]);
            assert_true(z->data[i] == want->data[i]);
        }
        assert_true(same_rng(&before, &e.rng));
    }
    e.tp.rng = NULL;
    e.tp.no_grad = true;
    assert_non_null(qkv_add_dropout(&e.tp, x, a, 0.5));
    assert_false(e.tp.failed);
    ot_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 2, 3), *a = ot_param2(&e, "a", 3, 2);
    assert_null(qkv_add_dropout(&e.tp, x, a, 0.1));
    assert_non_null(strstr(e.tp.err.msg, "add_dropout: shapes differ: [2, 3] and [3, 2]"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_add_dropout_layer_norm(&e.tp, x, a, 0.1, NULL, NULL, 1e-5, NULL));
    assert_non_null(strstr(e.tp.err.msg, "add_dropout_layer_norm: shapes differ: [2, 3] and [3, 2]"));
    const double bad[] = {-0.1, 1.0, NAN};
    for (int k = 0; k < 3; k++) {
        qkv_tape_reset(&e.tp);
        assert_null(qkv_add_dropout(&e.tp, x, x, bad[k]));
        assert_non_null(strstr(e.tp.err.msg, "outside [0, 1)"));
        qkv_tape_reset(&e.tp);
        assert_null(qkv_add_dropout_layer_norm(&e.tp, x, x, bad[k], NULL, NULL, 1e-5, NULL));
        assert_non_null(strstr(e.tp.err.msg, "outside [0, 1)"));
    }
    qkv_tape_reset(&e.tp);
    e.tp.rng = NULL;
    assert_null(qkv_add_dropout(&e.tp, x, x, 0.1));
    assert_non_null(strstr(e.tp.err.msg, "no rng"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_add_dropout_layer_norm(&e.tp, x, x, 0.1, NULL, NULL, 1e-5, NULL));
    assert_non_null(strstr(e.tp.err.msg, "no rng"));
    ot_free(&e);
}

static void check(int rows, int cols, bool norm, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(rows * 13 + cols));
    fixture f = {ot_param2(&e, "x", rows, cols), ot_param2(&e, "a", rows, cols), NULL, NULL, 0.3, norm};
    if (norm) {
        f.gain = ot_param(&e, "gain", 1, (int[]){cols});
        f.bias = ot_param(&e, "bias", 1, (int[]){cols});
    }
    qkv_tensor *ts[4] = {f.x, f.a, f.gain, f.bias};
    const char *names[4] = {"x", "a", "gain", "bias"};
    int n = norm ? 4 : 2;
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, fused_fn, &f, n, ts, names, samples);
    else
        tu_assert_gradcheck(&e.tp, fused_fn, &f, n, ts, names);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    for (int norm = 0; norm < 2; norm++) {
        check(1, 2, norm, 0);
        check(3, 5, norm, 0);
        check(4, 7, norm, 0);
        check(131, 257, norm, 12); /* threaded */
    }
}

/* The gradient check catches an add_dropout backward that is 1% off, in both ops. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    for (int norm = 0; norm < 2; norm++) {
        ot_env e;
        ot_init(&e, 3);
        fixture f = {ot_param2(&e, "x", 3, 5), ot_param2(&e, "a", 3, 5), NULL, NULL, 0.3, norm};
        qkv_tensor *ts[2] = {f.x, f.a};
        const char *names[2] = {"x", "a"};
        ot_assert_gradcheck_catches(&e.tp, "add_dropout", fused_fn, &f, 2, ts, names);
        ot_free(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_values),
        cmocka_unit_test(test_matches_unfused),
        cmocka_unit_test(test_no_dropout),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
