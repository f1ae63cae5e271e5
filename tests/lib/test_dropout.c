/* dropout: identity (no copy, no random draw) in no-grad mode and for p = 0; in training
 * about p of the elements are zero and the survivors are scaled by 1/(1-p); the same rng seed
 * gives the same mask; bad p or a missing rng are tape errors; double-precision gradient
 * checks with p = 0.3 (qkv_gradcheck restores the rng before every forward call). */
#include "optest.h"

typedef struct {
    qkv_tensor *x;
    double p;
} fixture;

static qkv_tensor *dropout_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_dropout(tp, f->x, f->p);
}

static bool same_rng(const qkv_rng *a, const qkv_rng *b) { return memcmp(a, b, sizeof *a) == 0; }

static void test_identity(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 3, 4);
    qkv_rng before = e.rng;
    e.tp.no_grad = true;
    assert_ptr_equal(qkv_dropout(&e.tp, x, 0.5), x);
    assert_true(same_rng(&before, &e.rng));
    e.tp.no_grad = false;
    assert_ptr_equal(qkv_dropout(&e.tp, x, 0.0), x);
    assert_true(same_rng(&before, &e.rng));
    /* no-grad needs no rng */
    e.tp.rng = NULL;
    e.tp.no_grad = true;
    assert_ptr_equal(qkv_dropout(&e.tp, x, 0.5), x);
    assert_false(e.tp.failed);
    ot_free(&e);
}

static void test_training_mask(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 42);
    const int n = 10000;
    const double p = 0.3;
    qkv_tensor *x = ot_param(&e, "x", 1, (int[]){n});
    for (int i = 0; i < n; i++)
        x->data[i] = (qkv_real)(1 + i % 7);
    qkv_rng start = e.rng;
    qkv_tensor *y = qkv_dropout(&e.tp, x, p);
    assert_non_null(y);
    assert_ptr_not_equal(y, x);
    assert_false(same_rng(&start, &e.rng));
    int zeros = 0;
    for (int i = 0; i < n; i++) {
        if (y->data[i] == 0)
            zeros++;
        else
            tu_assert_close(y->data[i], x->data[i] / (1 - p), 1e-15);
    }
    /* Binomial(10000, 0.3): standard deviation 0.0046 of the fraction; ±0.025 is 5.5 sigma */
    double frac = (double)zeros / n;
    if (fabs(frac - p) > 0.025)
        fail_msg("fraction of zeros %.4f, expected about %.2f", frac, p);

    /* gradient: dy / (1 - p) where kept, 0 where dropped */
    assert_int_equal(qkv_backward(&e.tp, qkv_sum(&e.tp, y)), QKV_OK);
    for (int i = 0; i < n; i++)
        tu_assert_close(x->grad[i], y->data[i] == 0 ? 0 : 1 / (1 - p), 1e-15);

    /* the same rng state gives the same mask; another state gives another mask */
    qkv_tape_reset(&e.tp);
    e.rng = start;
    qkv_tensor *y2 = qkv_dropout(&e.tp, x, p);
    assert_non_null(y2);
    assert_memory_equal(y->data, y2->data, (size_t)n * sizeof(qkv_real));
    qkv_tensor *y3 = qkv_dropout(&e.tp, x, p);
    assert_non_null(y3);
    int differ = 0;
    for (int i = 0; i < n; i++)
        differ += (y3->data[i] == 0) != (y2->data[i] == 0);
    assert_true(differ > n / 10);
    ot_free(&e);
}

/* An odd element count uses a last half draw; the fraction still holds for other p. */
static void test_other_rates(void **state)
{
    (void)state;
    const double ps[] = {0.1, 0.5, 0.9};
    for (int k = 0; k < 3; k++) {
        ot_env e;
        ot_init(&e, (uint64_t)(k + 7));
        const int n = 10001;
        qkv_tensor *x = ot_param(&e, "x", 1, (int[]){n});
        for (int i = 0; i < n; i++)
            x->data[i] = 1;
        qkv_tensor *y = qkv_dropout(&e.tp, x, ps[k]);
        assert_non_null(y);
        int zeros = 0;
        for (int i = 0; i < n; i++)
            zeros += y->data[i] == 0;
        double frac = (double)zeros / n;
        if (fabs(frac - ps[k]) > 0.025)
            fail_msg("p = %.1f: fraction of zeros %.4f", ps[k], frac);
        ot_free(&e);
    }
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 2, 2);
    const double bad[] = {1.0, -0.1, 1.5, NAN};
    for (int k = 0; k < 4; k++) {
        assert_null(qkv_dropout(&e.tp, x, bad[k]));
        assert_non_null(strstr(e.tp.err.msg, "outside [0, 1)"));
        qkv_tape_reset(&e.tp);
    }
    e.tp.no_grad = true; /* a bad p is an error in evaluation too */
    assert_null(qkv_dropout(&e.tp, x, 1.0));
    qkv_tape_reset(&e.tp);
    e.tp.no_grad = false;
    e.tp.rng = NULL;
    assert_null(qkv_dropout(&e.tp, x, 0.1));
    assert_non_null(strstr(e.tp.err.msg, "no rng"));
    ot_free(&e);
}

static void check(int rank, const int *shape, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(shape[0] * 17 + rank));
    fixture f = {ot_param(&e, "x", rank, shape), 0.3};
    const char *names[] = {"x"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, dropout_fn, &f, 1, &f.x, names, samples);
    else
        tu_assert_gradcheck(&e.tp, dropout_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    check(2, (int[]){1, 1}, 0);
    check(2, (int[]){3, 5}, 0);
    check(2, (int[]){7, 3}, 0);
    check(3, (int[]){2, 3, 5}, 0);
    check(2, (int[]){199, 211}, 16); /* threaded */
}

/* The gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {ot_param2(&e, "x", 3, 5), 0.3};
    const char *names[] = {"x"};
    ot_assert_gradcheck_catches(&e.tp, "dropout", dropout_fn, &f, 1, &f.x, names);
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_training_mask),
        cmocka_unit_test(test_other_rates),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
