/* The conv1d op (lib/ops/conv.c): forward against PyTorch's nn.Conv1d run on each sentence
 * alone (lengths 4 and 1, kernel 3, dilation 2), double-precision gradient checks over packed
 * batches of different lengths (length 1 and an empty sentence included) with and without bias
 * and dilation, a check that the gradient check catches a 1% error, tape errors. */
#include "optest.h"

typedef struct {
    qkv_tensor *x, *w, *b;
    int32_t off[16];
    int n_seg, dilation;
} fixture;

static qkv_tensor *conv_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return qkv_conv1d(tp, f->x, f->w, f->b, (qkv_packed){f->n_seg, f->off}, f->dilation);
}

static void test_forward_matches_torch(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    fixture f = {.n_seg = 2, .off = {0, 4, 5}, .dilation = 2};
    f.w = ot_pattern(&e, "w", 3, (int[]){2, 3, 3}, 7);
    f.b = ot_pattern(&e, "b", 1, (int[]){2}, 9);
    f.x = ot_pattern(&e, "x", 2, (int[]){5, 3}, 4);
    /* nn.Conv1d(3, 2, 3, padding=2, dilation=2) on x[0:4]^T and x[4:5]^T (tests/lib/reference/lstm_conv_reference.py) */
    const double want[10] = {-0.78, 0.78, -0.4, 0.32, -0.23, 0.12, -0.16, 0.45, -0.49, 0.47};
    qkv_tensor *y = conv_fn(&e.tp, &f);
    assert_non_null(y);
    for (int i = 0; i < 10; i++)
        tu_assert_close(y->data[i], want[i], 1e-12);
    /* one sentence of all five rows: row 2 now reads row 4 (before: zero beyond its sentence) */
    f.n_seg = 1, f.off[1] = 5;
    qkv_tensor *joined = conv_fn(&e.tp, &f);
    assert_true(fabs((double)joined->data[2 * 2] - want[2 * 2]) > 1e-6);
    ot_free(&e);
}

static void check(fixture *f, ot_env *e, bool fault)
{
    qkv_tensor *ts[3] = {f->x, f->w, f->b};
    const char *names[3] = {"x", "w", "b"};
    int n = f->b ? 3 : 2;
    if (fault)
        ot_assert_gradcheck_catches(&e->tp, "conv1d", conv_fn, f, n, ts, names);
    else
        ot_assert_gradcheck_sampled(&e->tp, conv_fn, f, n, ts, names, 0);
}

static void test_gradcheck_packed(void **state)
{
    (void)state;
    const int dil[3] = {1, 2, 3}, widths[3] = {3, 5, 1};
    for (int c = 0; c < 3; c++) {
        /* lengths 3, 1, 0, 6, 2 */
        fixture f = {.n_seg = 5, .off = {0, 3, 4, 4, 10, 12}, .dilation = dil[c]};
        ot_env e;
        ot_init(&e, 11 + c);
        f.x = ot_param2(&e, "x", 12, 3);
        f.w = ot_param(&e, "w", 3, (int[]){2, 3, widths[c]});
        f.b = c == 1 ? NULL : ot_param(&e, "b", 1, (int[]){2});
        check(&f, &e, false);
        check(&f, &e, true);
        ot_free(&e);
    }
}

static void test_single_token(void **state)
{
    (void)state;
    fixture f = {.n_seg = 1, .off = {0, 1}, .dilation = 1};
    ot_env e;
    ot_init(&e, 5);
    f.x = ot_param2(&e, "x", 1, 2);
    f.w = ot_param(&e, "w", 3, (int[]){2, 2, 3});
    f.b = ot_param(&e, "b", 1, (int[]){2});
    check(&f, &e, false);
    ot_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", 3, 2), *w = ot_param(&e, "w", 3, (int[]){2, 2, 2}),
               *w3 = ot_param(&e, "w3", 3, (int[]){2, 2, 3}), *w_in = ot_param(&e, "wi", 3, (int[]){2, 3, 3});
    qkv_packed seg = {1, (int32_t[]){0, 3}};
    assert_null(qkv_conv1d(&e.tp, x, w, NULL, seg, 1));
    assert_non_null(strstr(e.tp.err.msg, "odd"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_conv1d(&e.tp, x, w3, NULL, seg, 0));
    assert_non_null(strstr(e.tp.err.msg, "dilation"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_conv1d(&e.tp, x, w_in, NULL, seg, 1));
    assert_non_null(strstr(e.tp.err.msg, "does not match"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_conv1d(&e.tp, x, w3, NULL, (qkv_packed){1, (int32_t[]){0, 2}}, 1));
    assert_true(e.tp.failed);
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_matches_torch),
        cmocka_unit_test(test_gradcheck_packed),
        cmocka_unit_test(test_single_token),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
