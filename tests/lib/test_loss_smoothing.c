/* Label smoothing (Szegedy et al. 2016, section 7) of the two softmax cross-entropies of
 * lib/ops: qkv_cross_entropy_smoothed (over the C columns; its values by hand are a row of
 * test_loss.c's table) and qkv_arc_cross_entropy (over each word's n + 1 candidate heads). The
 * loss and gradient at logits = log q (the smoothed target: the minimum, where the gradient
 * vanishes and the loss is the entropy of q; without the ε/K part neither holds), ε = 0 equal to
 * the plain loss bit for bit, ignored rows, the arc loss's values by hand, double-precision
 * gradient checks with their 1% catch, and ε outside [0, 1). */
#include "optest.h"

#include "lib/ops/biaffine.h"

typedef struct {
    qkv_tensor *logits;
    const int32_t *targets;
    double eps;
    int32_t off[4];
    int n_sent;
} fixture;

static qkv_tensor *ce_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_cross_entropy_smoothed(tp, f->logits, f->targets, f->eps);
}

static qkv_tensor *arc_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_arc_cross_entropy(tp, f->logits, (qkv_packed){f->n_sent, f->off}, f->targets, f->eps);
}

/* Logits log q, q = (1 - ε) onehot(t) + ε / C: the loss is the entropy -Σ q log q and the
 * gradient 0. */
static void test_minimum_at_target(void **state)
{
    (void)state;
    const double eps = 0.3;
    const int C = 4;
    const int32_t targets[] = {1, 3};
    double v[8], entropy = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < C; j++) {
            double q = (j == targets[i] ? 1 - eps : 0) + eps / C;
            v[i * C + j] = log(q) + i; /* a shift of the row changes nothing */
            entropy -= q * log(q) / 2;
        }
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_values(&e, "x", 2, (int[]){2, C}, v);
    qkv_tensor *loss = qkv_cross_entropy_smoothed(&e.tp, x, targets, eps);
    assert_non_null(loss);
    tu_assert_close(loss->data[0], entropy, 1e-15);
    assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
    for (int i = 0; i < 2 * C; i++)
        tu_assert_close(x->grad[i], 0, 1e-15);
    ot_free(&e);
}

/* ε = 0 is qkv_cross_entropy, loss and gradient, bit for bit. */
static void test_zero_is_plain(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 5);
    qkv_tensor *a = ot_param2(&e, "a", 6, 7), *b = ot_values(&e, "b", 2, (int[]){6, 7}, (double[42]){0});
    memcpy(b->data, a->data, a->size * sizeof *a->data);
    const int32_t targets[] = {3, -1, 0, 6, 2, 2};
    qkv_tensor *la = qkv_cross_entropy(&e.tp, a, targets), *lb = qkv_cross_entropy_smoothed(&e.tp, b, targets, 0);
    assert_non_null(la);
    assert_non_null(lb);
    assert_memory_equal(la->data, lb->data, sizeof *la->data);
    assert_int_equal(qkv_backward(&e.tp, qkv_add(&e.tp, la, lb)), QKV_OK);
    assert_memory_equal(a->grad, b->grad, a->size * sizeof *a->grad);
    ot_free(&e);
}

static void check(int rows, int cols, double eps, double ignore_rate)
{
    ot_env e;
    ot_init(&e, (uint64_t)(rows * 31 + cols));
    fixture f = {.logits = ot_param2(&e, "logits", rows, cols), .eps = eps};
    int32_t *targets = malloc((size_t)rows * sizeof *targets);
    assert_non_null(targets);
    for (int i = 0; i < rows; i++)
        targets[i] = qkv_rng_uniform(&e.rng) < ignore_rate ? -1 : (int32_t)qkv_rng_below(&e.rng, (uint64_t)cols);
    f.targets = targets;
    const char *names[] = {"logits"};
    tu_assert_gradcheck(&e.tp, ce_fn, &f, 1, &f.logits, names);
    if (cols > 1) /* one class: a constant loss, a zero gradient that no scaling changes */
        ot_assert_gradcheck_catches(&e.tp, "cross_entropy", ce_fn, &f, 1, &f.logits, names);
    free(targets);
    ot_free(&e);
}

static void test_gradcheck(void **state)
{
    (void)state;
    check(1, 1, 0.1, 0);
    check(3, 5, 0.1, 0);
    check(7, 2, 0.5, 0.4);
    check(4, 6, 0.9, 0.2);
}

/* One sentence of one word (K = 2 candidates: ROOT, itself) and one of two words (K = 3), in
 * scores [3, 4]: the padded columns hold 50 and must not count. Word 0's scores [0, log 3]:
 * p = [1/4, 3/4], gold head 0, ε = 0.2, q = [0.9, 0.1]: loss 0.9 log 4 + 0.1 log(4/3), gradient
 * p - q = [-0.65, 0.65]. Words 1 and 2 (gold heads 2 and 0) against the formula in double. */
static void test_arc_values(void **state)
{
    (void)state;
    const double eps = 0.2;
    ot_env e;
    ot_init(&e, 1);
    fixture f = {.targets = (int32_t[]){0, 2, 0}, .eps = eps, .off = {0, 1, 3}, .n_sent = 2};
    f.logits = ot_values(&e, "s", 2, (int[]){3, 4}, (double[]){0, log(3), 50, 50, 0.5, -1, 2, 50, 1, 0.25, -0.5, 50});
    double want = 0.9 * log(4) + 0.1 * log(4. / 3);
    for (int t = 1; t < 3; t++) {
        const qkv_real *r = f.logits->data + t * 4;
        double z = 0;
        for (int j = 0; j < 3; j++)
            z += exp((double)r[j]);
        for (int j = 0; j < 3; j++)
            want -= ((j == f.targets[t] ? 1 - eps : 0) + eps / 3) * ((double)r[j] - log(z));
    }
    qkv_tensor *loss = arc_fn(&e.tp, &f);
    assert_non_null(loss);
    tu_assert_close(loss->data[0], want / 3, 1e-14);
    assert_int_equal(qkv_backward(&e.tp, loss), QKV_OK);
    tu_assert_close(f.logits->grad[0], -0.65 / 3, 1e-15);
    tu_assert_close(f.logits->grad[1], 0.65 / 3, 1e-15);
    for (int t = 0; t < 3; t++)
        tu_assert_close(f.logits->grad[t * 4 + 3], 0, 0);
    tu_assert_close(f.logits->grad[2], 0, 0);
    ot_free(&e);
}

/* ε = 0 of the arc loss: the plain cross-entropy over the candidates, as the direct sum. */
static void test_arc_zero(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 9);
    fixture f = {.targets = (int32_t[]){1, 2, -1, 0}, .off = {0, 1, 4}, .n_sent = 2};
    f.logits = ot_param2(&e, "s", 4, 4);
    double want = 0;
    for (int t = 0; t < 4; t++) {
        const int n = t == 0 ? 1 : 3;
        double z = 0;
        for (int j = 0; j <= n; j++)
            z += exp((double)f.logits->data[t * 4 + j]);
        if (f.targets[t] >= 0)
            want += log(z) - (double)f.logits->data[t * 4 + f.targets[t]];
    }
    qkv_tensor *loss = arc_fn(&e.tp, &f);
    assert_non_null(loss);
    tu_assert_close(loss->data[0], want / 3, 1e-14);
    ot_free(&e);
}

static void test_arc_gradcheck(void **state)
{
    (void)state;
    const double eps[] = {0.1, 0.6};
    for (int k = 0; k < 2; k++) {
        ot_env e;
        ot_init(&e, 11 + k);
        fixture f = {.targets = (int32_t[]){2, 0, 0, 1, -1, 3}, .eps = eps[k], .off = {0, 2, 6}, .n_sent = 2};
        f.logits = ot_param2(&e, "s", 6, 6);
        const char *names[] = {"s"};
        tu_assert_gradcheck(&e.tp, arc_fn, &f, 1, &f.logits, names);
        ot_assert_gradcheck_catches(&e.tp, "arc_cross_entropy", arc_fn, &f, 1, &f.logits, names);
        ot_free(&e);
    }
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {.logits = ot_param2(&e, "x", 2, 3), .targets = (int32_t[]){0, 1}, .off = {0, 2}, .n_sent = 1};
    const double bad[] = {1, -0.1, NAN};
    for (int k = 0; k < 3; k++) {
        f.eps = bad[k];
        assert_null(ce_fn(&e.tp, &f));
        assert_non_null(strstr(e.tp.err.msg, "cross_entropy: label smoothing"));
        assert_non_null(strstr(e.tp.err.msg, "outside [0, 1)"));
        qkv_tape_reset(&e.tp);
        assert_null(arc_fn(&e.tp, &f));
        assert_non_null(strstr(e.tp.err.msg, "arc_cross_entropy: label smoothing"));
        qkv_tape_reset(&e.tp);
    }
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimum_at_target),
        cmocka_unit_test(test_zero_is_plain),
        cmocka_unit_test(test_gradcheck),
        cmocka_unit_test(test_arc_values),
        cmocka_unit_test(test_arc_zero),
        cmocka_unit_test(test_arc_gradcheck),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
