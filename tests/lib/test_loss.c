/* cross_entropy: values and gradients by hand, plain and with label smoothing (the rest of
 * smoothing: test_loss_smoothing.c), including logits [1000, 0] for target 1 (loss 1000,
 * gradient [1, -1]), ignored rows, every row ignored (loss 0, zero gradient, no NaN), logits of
 * ±1e4, out-of-range targets, and double-precision gradient checks. The loss meter: batch means
 * weighted by their token counts give the loss of all tokens at once. */
#include "optest.h"

#include "lib/loss_meter.h"

typedef struct {
    qkv_tensor *logits;
    const int32_t *targets;
} fixture;

static qkv_tensor *ce_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_cross_entropy(tp, f->logits, f->targets);
}

static void test_large_logits(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){1, 2}, (double[]){1000, 0});
    qkv_tensor *loss = qkv_cross_entropy(&e.tp, x, (int32_t[]){1});
    assert_non_null(loss);
    assert_int_equal(loss->size, 1);
    tu_assert_close(loss->data[0], 1000, 0);
    assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
    tu_assert_close(x->grad[0], 1, 0);
    tu_assert_close(x->grad[1], -1, 0);
    ot_free(&e);
}

/* Rows [1, 2, 3] -> 2, [0, 0, 0] -> 0, [7, 8, 9] ignored, the targets smoothed by ε over the C = 3
 * classes (qkv_cross_entropy_smoothed; ε = 0: qkv_cross_entropy). Row losses log(1 + e^-1 +
 * e^-2) + ε (x_t - mean x) = 0.40760596444438 + ε and log 3, their mean over the 2 rows kept
 * 0.7531091265562452 + ε / 2; gradient (softmax - q) / 2 with softmax([1, 2, 3]) = [e^-2, e^-1,
 * 1] / (1 + e^-1 + e^-2) and q = (1 - ε) onehot + ε / 3 (values by Python's math; PyTorch's
 * cross_entropy(label_smoothing=0.1) gives the same). */
static void test_values_by_hand(void **state)
{
    (void)state;
    static const struct {
        double eps, loss, grad[9];
    } cases[] = {
        {0, 0.7531091265562452,
         {0.04501528658519023, 0.12236423552739882, 0.3326204778874109 - 0.5, 1. / 6 - 0.5, 1. / 6, 1. / 6, 0, 0, 0}},
        {0.1, 0.8031091265562451,
         {0.028348619918523565, 0.10569756886073216, -0.13404618877925578, -0.30000000000000004, 0.15, 0.15, 0, 0, 0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ot_env e;
        ot_init(&e, 1);
        qkv_tensor *x = ot_values(&e, "x", 2, (int[]){3, 3}, (double[]){1, 2, 3, 0, 0, 0, 7, 8, 9});
        int32_t targets[] = {2, 0, -1};
        qkv_tensor *loss = cases[k].eps ? qkv_cross_entropy_smoothed(&e.tp, x, targets, cases[k].eps)
                                        : qkv_cross_entropy(&e.tp, x, targets);
        assert_non_null(loss);
        tu_assert_close(loss->data[0], cases[k].loss, 1e-15);
        targets[1] = 1; /* the op kept its own copy */
        assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
        for (int i = 0; i < 9; i++)
            tu_assert_close(x->grad[i], cases[k].grad[i], 1e-15);
        ot_free(&e);
    }
}

static void test_all_ignored(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 3, 4);
    qkv_tensor *loss = qkv_cross_entropy(&e.tp, x, (int32_t[]){-1, -100, -1});
    assert_non_null(loss);
    tu_assert_close(loss->data[0], 0, 0);
    assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
    for (int i = 0; i < 12; i++)
        tu_assert_close(x->grad[i], 0, 0);
    ot_free(&e);
}

static void test_extreme_logits(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){3, 3},
                              (double[]){1e4, -1e4, 0, -1e4, 1e4, 1e4, -1e4, -1e4, -1e4});
    /* row losses: 2e4, log 2, log 3 -> mean (2e4 + log 6) / 3 */
    qkv_tensor *loss = qkv_cross_entropy(&e.tp, x, (int32_t[]){1, 2, 0});
    assert_non_null(loss);
    tu_assert_close(loss->data[0], (2e4 + log(6)) / 3, 1e-11);
    assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
    ot_assert_finite(x->grad, 9);
    const double want[9] = {1. / 3, -1. / 3, 0, 0, 1. / 6, -1. / 6, 1. / 9 - 1. / 3, 1. / 9, 1. / 9};
    for (int i = 0; i < 9; i++)
        tu_assert_close(x->grad[i], want[i], 1e-15);
    ot_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 2, 4);
    assert_null(qkv_cross_entropy(&e.tp, x, (int32_t[]){0, 4}));
    assert_true(e.tp.failed);
    assert_non_null(strstr(e.tp.err.msg, "target 4 in row 1"));
    assert_non_null(strstr(e.tp.err.msg, "C = 4"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_cross_entropy(&e.tp, x, NULL));
    assert_true(e.tp.failed);
    ot_free(&e);
}

static void check(int rank, const int *shape, double spread, double ignore_rate, size_t samples)
{
    ot_env e;
    ot_init(&e, (uint64_t)(shape[0] * 19 + shape[rank - 1] + rank));
    fixture f = {ot_param(&e, "logits", rank, shape), NULL};
    for (size_t i = 0; i < f.logits->size; i++)
        f.logits->data[i] *= (qkv_real)spread;
    int rows = qkv_rows(f.logits), cols = qkv_cols(f.logits);
    int32_t *targets = malloc((size_t)rows * sizeof *targets);
    assert_non_null(targets);
    for (int i = 0; i < rows; i++)
        targets[i] = qkv_rng_uniform(&e.rng) < ignore_rate ? -1 : (int32_t)qkv_rng_below(&e.rng, (uint64_t)cols);
    f.targets = targets;
    const char *names[] = {"logits"};
    if (samples)
        ot_assert_gradcheck_sampled(&e.tp, ce_fn, &f, 1, &f.logits, names, samples);
    else
        tu_assert_gradcheck(&e.tp, ce_fn, &f, 1, &f.logits, names);
    free(targets);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    check(2, (int[]){1, 1}, 1, 0, 0);
    check(2, (int[]){3, 5}, 1, 0, 0);
    check(2, (int[]){7, 2}, 1, 0.4, 0);
    check(2, (int[]){1, 7}, 3, 0, 0);
    check(2, (int[]){5, 4}, 1, 1.0, 0); /* every row ignored */
    check(3, (int[]){2, 3, 4}, 1, 0.2, 0);
    check(2, (int[]){300, 37}, 2, 0.1, 16); /* threaded */
}

/* The gradient check catches a backward that is 1% off. */
static void test_gradcheck_catches_one_percent(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {ot_param2(&e, "logits", 4, 5), (int32_t[]){1, -1, 4, 0}};
    const char *names[] = {"logits"};
    ot_assert_gradcheck_catches(&e.tp, "cross_entropy", ce_fn, &f, 1, &f.logits, names);
    ot_free(&e);
}

/* The same 7 rows (one ignored) split into batches of 1+5 and 3+3 rows: the meter's mean is
 * the loss of all rows in one batch for both splits; the plain mean of the batch means is not. */
static void test_loss_meter(void **state)
{
    (void)state;
    static const double values[] = {1, 2, 3, 0, 0, 0, 7, 8, 9, -1, 4, 0.5, 2, 2, 2, 0, 5, -3, 1, 1, 6};
    static const int32_t targets[] = {2, 0, -1, 1, 1, 2, 0};
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *all = ot_values(&e, "all", 2, (int[]){7, 3}, values);
    qkv_tensor *whole = qkv_cross_entropy(&e.tp, all, targets);
    assert_non_null(whole);
    assert_int_equal(qkv_loss_tokens(targets, 7), 6);
    const int splits[2][2] = {{1, 6}, {3, 7}}; /* batch 1 = rows [0, a), batch 2 = rows [a, 7) */
    double plain[2];
    for (int k = 0; k < 2; k++) {
        qkv_loss_meter m = {0, 0};
        double mean_of_means = 0;
        for (int b = 0; b < 2; b++) {
            int from = b ? splits[k][0] : 0, to = b ? 7 : splits[k][0];
            char name[16];
            snprintf(name, sizeof name, "split%d.batch%d", k, b);
            qkv_tensor *x = ot_values(&e, name, 2, (int[]){to - from, 3}, values + 3 * from);
            qkv_tensor *loss = qkv_cross_entropy(&e.tp, x, targets + from);
            assert_non_null(loss);
            qkv_loss_meter_add(&m, loss->data[0], qkv_loss_tokens(targets + from, to - from));
            mean_of_means += loss->data[0] / 2;
        }
        assert_int_equal(m.tokens, 6);
        tu_assert_close(qkv_loss_meter_mean(&m), whole->data[0], 1e-12);
        plain[k] = mean_of_means;
    }
    /* what the trainer once logged: another value for each split, neither the loss */
    assert_true(fabs(plain[0] - plain[1]) > 0.1);
    assert_true(fabs(plain[0] - whole->data[0]) > 0.1 && fabs(plain[1] - whole->data[0]) > 0.1);
    qkv_loss_meter none = {0, 0};
    assert_true(isnan(qkv_loss_meter_mean(&none)));
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_logits),
        cmocka_unit_test(test_values_by_hand),
        cmocka_unit_test(test_all_ignored),
        cmocka_unit_test(test_extreme_logits),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_gradcheck_catches_one_percent),
        cmocka_unit_test(test_loss_meter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
