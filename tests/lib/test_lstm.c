/* The LSTM op (lib/ops/lstm.c): a bidirectional forward against values from PyTorch's nn.LSTM
 * run on each sentence alone (packed batch of lengths 3 and 1), packing that changes nothing
 * (a sentence gives the same rows alone and with batch mates), double-precision gradient
 * checks over packed batches of different lengths (length 1 and an empty sentence included),
 * one direction without b_hh, a check that the gradient check catches a 1% error, a first step
 * that a NaN forget gate does not reach, the same bits on one thread and two, tape errors. */
#include "optest.h"

#include <math.h>
#include <omp.h>

#include "lib/parallel.h"

typedef struct {
    qkv_tensor *x, *w_ih[2], *w_hh[2], *b_ih[2], *b_hh[2];
    int32_t off[16];
    int n_seg, dirs;
} fixture;

static qkv_tensor *bilstm_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    qkv_tensor *g0 = qkv_linear(tp, f->x, f->w_ih[0], f->b_ih[0]);
    qkv_tensor *g1 = f->dirs == 2 ? qkv_linear(tp, f->x, f->w_ih[1], f->b_ih[1]) : NULL;
    return qkv_lstm(tp, g0, f->w_hh[0], f->b_hh[0], g1, f->dirs == 2 ? f->w_hh[1] : NULL,
                    f->dirs == 2 ? f->b_hh[1] : NULL, (qkv_packed){f->n_seg, f->off});
}

/* The parameters in nn.LSTM's order, as tests/lib/reference/lstm_conv_reference.py makes them. */
static void torch_params(ot_env *e, fixture *f, int in, int h)
{
    const char *names[2] = {"", "_reverse"};
    for (int d = 0; d < 2; d++) {
        char n[4][32];
        snprintf(n[0], 32, "w_ih%s", names[d]);
        snprintf(n[1], 32, "w_hh%s", names[d]);
        snprintf(n[2], 32, "b_ih%s", names[d]);
        snprintf(n[3], 32, "b_hh%s", names[d]);
        int k = 4 * d;
        f->w_ih[d] = ot_pattern(e, n[0], 2, (int[]){4 * h, in}, 3 + 2 * k);
        f->w_hh[d] = ot_pattern(e, n[1], 2, (int[]){4 * h, h}, 3 + 2 * (k + 1));
        f->b_ih[d] = ot_pattern(e, n[2], 1, (int[]){4 * h}, 3 + 2 * (k + 2));
        f->b_hh[d] = ot_pattern(e, n[3], 1, (int[]){4 * h}, 3 + 2 * (k + 3));
    }
}

static void test_forward_matches_torch(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    fixture f = {.n_seg = 2, .off = {0, 3, 4}, .dirs = 2};
    torch_params(&e, &f, 3, 2);
    f.x = ot_pattern(&e, "x", 2, (int[]){4, 3}, 5);
    /* nn.LSTM(3, 2, bidirectional=True), weights as above, each sentence run alone
     * (tests/lib/reference/lstm_conv_reference.py, float64) */
    const double want[16] = {0.0429672168205044,   -0.112373172717157,  -0.0476050883921627, 0.254299435382943,
                             0.0134872187390507,   -0.243541915001901,  -0.0450027635165062, 0.214897834372848,
                             0.00527648564222258,  -0.360273447884878,  -0.0335225610826639, 0.149501786800329,
                             -0.0403727290922172,  -0.18699178187861,   0.0167692082426038,  0.316828863502294};
    qkv_tensor *y = bilstm_fn(&e.tp, &f);
    assert_non_null(y);
    assert_int_equal(y->shape[0], 4);
    assert_int_equal(y->shape[1], 4);
    for (int i = 0; i < 16; i++)
        tu_assert_close(y->data[i], want[i], 1e-12);
    ot_free(&e);
}

/* A sentence's rows do not depend on its batch mates or its place in the batch. */
static void test_packing_changes_nothing(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 3);
    fixture f = {.n_seg = 4, .off = {0, 2, 7, 8, 11}, .dirs = 2};
    for (int d = 0; d < 2; d++) {
        f.w_ih[d] = ot_param2(&e, d ? "w_ih_r" : "w_ih", 12, 4);
        f.w_hh[d] = ot_param2(&e, d ? "w_hh_r" : "w_hh", 12, 3);
        f.b_ih[d] = ot_param(&e, d ? "b_ih_r" : "b_ih", 1, (int[]){12});
        f.b_hh[d] = ot_param(&e, d ? "b_hh_r" : "b_hh", 1, (int[]){12});
    }
    f.x = ot_param2(&e, "x", 11, 4);
    qkv_tensor *all = bilstm_fn(&e.tp, &f);
    assert_non_null(all);
    fixture one = f;
    qkv_tensor *x_all = f.x;
    for (int s = 0; s < 4; s++) {
        int lo = f.off[s], n = f.off[s + 1] - lo;
        qkv_tensor *xs = qkv_tape_tensor2(&e.tp, n, 4);
        memcpy(xs->data, x_all->data + (size_t)lo * 4, (size_t)n * 4 * sizeof(qkv_real));
        one.x = xs;
        one.n_seg = 1;
        one.off[0] = 0;
        one.off[1] = n;
        qkv_tensor *y = bilstm_fn(&e.tp, &one);
        assert_non_null(y);
        for (int i = 0; i < n * 6; i++)
            tu_assert_close(y->data[i], all->data[(size_t)lo * 6 + i], 1e-14);
    }
    ot_free(&e);
}

static void check_grads(fixture *f, ot_env *e, bool fault)
{
    qkv_tensor *ts[9] = {f->x};
    const char *names[9] = {"x", "w_ih", "w_hh", "b_ih", "b_hh", "w_ih_r", "w_hh_r", "b_ih_r", "b_hh_r"};
    int n = 1;
    for (int d = 0; d < f->dirs; d++) {
        ts[n] = f->w_ih[d], names[n++] = d ? "w_ih_r" : "w_ih";
        ts[n] = f->w_hh[d], names[n++] = d ? "w_hh_r" : "w_hh";
        ts[n] = f->b_ih[d], names[n++] = d ? "b_ih_r" : "b_ih";
        if (f->b_hh[d])
            ts[n] = f->b_hh[d], names[n++] = d ? "b_hh_r" : "b_hh";
    }
    if (fault)
        ot_assert_gradcheck_catches(&e->tp, "lstm", bilstm_fn, f, n, ts, names);
    else
        ot_assert_gradcheck_sampled(&e->tp, bilstm_fn, f, n, ts, names, 0);
}

static void make(ot_env *e, fixture *f, int in, int h, int dirs, bool b_hh)
{
    for (int d = 0; d < dirs; d++) {
        f->w_ih[d] = ot_param2(e, d ? "w_ih_r" : "w_ih", 4 * h, in);
        f->w_hh[d] = ot_param2(e, d ? "w_hh_r" : "w_hh", 4 * h, h);
        f->b_ih[d] = ot_param(e, d ? "b_ih_r" : "b_ih", 1, (int[]){4 * h});
        f->b_hh[d] = b_hh ? ot_param(e, d ? "b_hh_r" : "b_hh", 1, (int[]){4 * h}) : NULL;
    }
    f->dirs = dirs;
    f->x = ot_param2(e, "x", f->off[f->n_seg], in);
}

static void test_gradcheck_bidirectional_packed(void **state)
{
    (void)state;
    /* lengths 3, 1, 0, 5, 2: length 1, an empty sentence, ranks that finish at different steps */
    fixture f = {.n_seg = 5, .off = {0, 3, 4, 4, 9, 11}};
    ot_env e;
    ot_init(&e, 7);
    make(&e, &f, 3, 2, 2, true);
    check_grads(&f, &e, false);
    check_grads(&f, &e, true);
    ot_free(&e);
}

static void test_gradcheck_one_direction_no_b_hh(void **state)
{
    (void)state;
    fixture f = {.n_seg = 3, .off = {0, 1, 5, 7}};
    ot_env e;
    ot_init(&e, 8);
    make(&e, &f, 2, 3, 1, false);
    check_grads(&f, &e, false);
    ot_free(&e);
}

static void test_single_token_batch(void **state)
{
    (void)state;
    fixture f = {.n_seg = 1, .off = {0, 1}};
    ot_env e;
    ot_init(&e, 9);
    make(&e, &f, 2, 2, 2, true);
    check_grads(&f, &e, false);
    ot_free(&e);
}

/* A sentence's first step has no c[t-1], so its forget gate has no say in the output or the
 * gradients, not even a NaN one (f·c[t-1] with c[t-1] = 0 would be NaN). */
static void test_first_step_ignores_the_forget_gate(void **state)
{
    (void)state;
    enum { H = 2 };
    ot_env e;
    ot_init(&e, 10);
    qkv_tensor *gx = ot_param2(&e, "gx", 1, 4 * H), *w = ot_param2(&e, "w", 4 * H, H);
    qkv_packed seg = {1, (int32_t[]){0, 1}};
    qkv_tensor *y = qkv_lstm(&e.tp, gx, w, NULL, NULL, NULL, NULL, seg);
    assert_non_null(y);
    qkv_real want[H] = {y->data[0], y->data[1]};
    qkv_tape_reset(&e.tp);
    for (int k = 0; k < H; k++)
        gx->data[H + k] = NAN; /* the forget gate's block */
    y = qkv_lstm(&e.tp, gx, w, NULL, NULL, NULL, NULL, seg);
    assert_non_null(y);
    for (int k = 0; k < H; k++)
        assert_true(y->data[k] == want[k]);
    assert_int_equal(qkv_backward_from(&e.tp, y, (qkv_real[H]){1, 1}), QKV_OK);
    for (int k = 0; k < 4 * H; k++) /* the forget block's gradient 0, every other one finite */
        assert_true(k / H == 1 ? gx->grad[k] == 0 : isfinite(gx->grad[k]));
    ot_free(&e);
}

/* Outputs and every gradient of a bidirectional LSTM on one thread and on two; with `tied` the
 * reverse direction takes the forward's w_hh and b_hh (one gradient for both directions). */
static void run_threads(int threads, bool tied, qkv_real **out, size_t *size)
{
    enum { S = 15, IN = 5, H = 96 };
    omp_set_num_threads(threads);
    assert_int_equal(omp_get_max_threads(), threads);
    fixture f = {.n_seg = S};
    for (int i = 0; i < S; i++) /* lengths 1 to 29: sentences end at different steps */
        f.off[i + 1] = f.off[i] + 1 + (i * 7) % 29;
    /* enough multiply-adds for a thread a direction (lib/parallel.h) */
    assert_true((double)f.off[S] * 4 * H * H >= QKV_PARALLEL_MIN_MADDS);
    ot_env e;
    ot_init(&e, 12);
    make(&e, &f, IN, H, 2, true);
    if (tied)
        f.w_hh[1] = f.w_hh[0], f.b_hh[1] = f.b_hh[0];
    qkv_tensor *y = bilstm_fn(&e.tp, &f);
    assert_non_null(y);
    /* loss sum(y ⊙ r) with a fixed r: every output element gets its own weight */
    qkv_real *r = malloc(y->size * sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < y->size; i++)
        r[i] = (qkv_real)(0.01 * (double)((i * 7) % 23) - 0.1);
    assert_int_equal(qkv_backward_from(&e.tp, y, r), QKV_OK);
    free(r);
    qkv_tensor *ts[10] = {y, f.x, f.w_ih[0], f.w_hh[0], f.b_ih[0], f.b_hh[0], f.w_ih[1], f.w_hh[1], f.b_ih[1], f.b_hh[1]};
    for (int k = 0; k < 10; k++) {
        const qkv_real *src = k ? ts[k]->grad : ts[k]->data;
        assert_non_null(src);
        size[k] = ts[k]->size * sizeof(qkv_real);
        out[k] = malloc(size[k]);
        assert_non_null(out[k]);
        memcpy(out[k], src, size[k]);
    }
    ot_free(&e);
}

/* The directions on a thread each (and tied weights, whose gradients the directions share, on
 * one) give the same bits as one thread; a buffer that the two threads shared would make them
 * differ (a race: in most runs, not all). */
static void test_threads(void **state)
{
    (void)state;
    int saved_threads = omp_get_max_threads();
    for (int tied = 0; tied < 2; tied++) {
        qkv_real *out[2][10];
        size_t size[2][10];
        for (int run = 0; run < 2; run++)
            run_threads(run + 1, tied, out[run], size[run]);
        omp_set_num_threads(saved_threads);
        for (int k = 0; k < 10; k++) {
            assert_int_equal(size[0][k], size[1][k]);
            assert_memory_equal(out[0][k], out[1][k], size[0][k]);
            free(out[0][k]);
            free(out[1][k]);
        }
    }
}

static void test_errors(void **state)
{
    (void)state;
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *gx = ot_param2(&e, "gx", 3, 8), *w = ot_param2(&e, "w", 8, 2), *bad = ot_param2(&e, "bad", 8, 3);
    qkv_packed seg = {1, (int32_t[]){0, 3}}, short_seg = {1, (int32_t[]){0, 2}};
    assert_null(qkv_lstm(&e.tp, gx, bad, NULL, NULL, NULL, NULL, seg));
    assert_non_null(strstr(e.tp.err.msg, "w_hh"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_lstm(&e.tp, gx, w, NULL, NULL, NULL, NULL, short_seg));
    assert_true(e.tp.failed);
    qkv_tape_reset(&e.tp);
    assert_null(qkv_lstm(&e.tp, gx, w, NULL, NULL, w, NULL, seg));
    assert_non_null(strstr(e.tp.err.msg, "reverse"));
    qkv_tape_reset(&e.tp);
    assert_null(qkv_lstm(&e.tp, gx, w, NULL, ot_param2(&e, "gx2", 3, 4), w, NULL, seg));
    assert_non_null(strstr(e.tp.err.msg, "reverse: gx"));
    ot_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_matches_torch),          cmocka_unit_test(test_packing_changes_nothing),
        cmocka_unit_test(test_gradcheck_bidirectional_packed), cmocka_unit_test(test_gradcheck_one_direction_no_b_hh),
        cmocka_unit_test(test_single_token_batch),             cmocka_unit_test(test_first_step_ignores_the_forget_gate),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
