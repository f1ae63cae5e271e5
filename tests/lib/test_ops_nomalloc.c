/* Small work enters no OpenMP parallel region (lib/parallel.h): libgomp allocates a new team for
 * a region of one thread every time, a false if() clause included, so an op that entered one
 * for a small tensor would allocate in every training step. Each family of ops that splits its
 * loops over threads runs forward and backward on tensors below every threshold, three steps on
 * one tape; after the first step and the reset that follows it, the steps allocate nothing
 * (counted through tests/malloc_hook.h). Under AddressSanitizer, which owns malloc, the test is
 * skipped. OpenBLAS runs on one thread (its threaded GEMMs allocate; test_optim_nomalloc.c). */
#include "optest.h"

#include "lib/blas.h"
#include "lib/ops/attention.h"
#include "malloc_hook.h"

static long n_allocs;
#if MALLOC_HOOKED
static bool malloc_hook(void)
{
    __atomic_add_fetch(&n_allocs, 1, __ATOMIC_RELAXED);
    return true;
}
#endif

enum { T = 6, D = 8, B = 2 };
static const int32_t OFFSETS[B + 1] = {0, 2, 6};
static const int32_t IDS[T] = {0, 3, 1, 2, 3, 0};
static const uint64_t ROW_IDS[T] = {11, 12, 13, 14, 15, 16};

/* One family's forward on e's tape: the sum of its outputs, a scalar. */
typedef qkv_tensor *(*family_fn)(ot_env *e);

static qkv_tensor *total(qkv_tape *tp, qkv_tensor *sum, qkv_tensor *y)
{
    qkv_tensor *s = qkv_sum(tp, y);
    return sum ? qkv_add(tp, sum, s) : s;
}

/* Parameter `name` of e (N(0, 1) values), created on the first step and found on the next. */
static qkv_tensor *param(ot_env *e, const char *name, int rank, const int *shape)
{
    qkv_param *p = qkv_params_find(&e->ps, name);
    return p ? &p->t : ot_param(e, name, rank, shape);
}

static qkv_tensor *p2(ot_env *e, const char *name, int rows, int cols)
{
    return param(e, name, 2, (int[]){rows, cols});
}

static qkv_tensor *p1(ot_env *e, const char *name, int n) { return param(e, name, 1, (int[]){n}); }

static qkv_tensor *elementwise(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_tensor *a = p2(e, "a", T, D), *b = p2(e, "b", T, D);
    qkv_tensor *y = qkv_add_bias(tp, qkv_scale(tp, qkv_mul(tp, qkv_add(tp, a, b), a), 0.5), p1(e, "bias", D));
    return total(tp, qkv_mean(tp, a), y);
}

static qkv_tensor *activations(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_tensor *x = p2(e, "x", T, D), *b = p1(e, "b", D), *sum = total(tp, NULL, qkv_relu(tp, x));
    for (qkv_gelu_form f = QKV_GELU_ERF; f <= QKV_GELU_TANH; f++) {
        sum = total(tp, sum, qkv_gelu(tp, x, f));
        sum = total(tp, sum, qkv_bias_gelu(tp, x, b, f));
    }
    return sum;
}

static qkv_tensor *softmax_losses(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_tensor *x = p2(e, "x", T, D);
    qkv_tensor *sum = total(tp, total(tp, NULL, qkv_softmax(tp, x)), qkv_log_softmax(tp, x));
    sum = qkv_add(tp, sum, qkv_cross_entropy(tp, x, IDS));
    return qkv_add(tp, sum, qkv_cross_entropy_smoothed(tp, x, IDS, 0.1));
}

static qkv_tensor *norms(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_tensor *x = p2(e, "x", T, D), *a = p2(e, "a", T, D), *g = p1(e, "g", D), *b = p1(e, "b", D);
    qkv_tensor *sum = total(tp, NULL, qkv_layer_norm(tp, x, g, b, 1e-5));
    sum = total(tp, sum, qkv_add_layer_norm(tp, x, a, g, b, 1e-5, NULL));
    return total(tp, sum, qkv_add_dropout_layer_norm(tp, x, a, 0.25, g, b, 1e-5, NULL));
}

/* Dropout from the tape's rng, then from counter-based streams (their own loop over rows). */
static qkv_tensor *dropouts(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_tensor *x = p2(e, "x", T, D), *a = p2(e, "a", T, D);
    qkv_tensor *sum = total(tp, total(tp, NULL, qkv_dropout(tp, x, 0.25)), qkv_add_dropout(tp, x, a, 0.25));
    qkv_dropout_streams st = {.key = 7, .row_ids = ROW_IDS, .n_rows = T};
    tp->streams = &st;
    sum = total(tp, sum, qkv_dropout(tp, x, 0.25));
    tp->streams = NULL;
    return sum;
}

static qkv_tensor *lookups(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_packed sent = {B, OFFSETS};
    qkv_tensor *x = p2(e, "x", T, D), *table = p2(e, "table", 4, D);
    qkv_tensor *sum = total(tp, NULL, qkv_embedding(tp, table, IDS, T));
    sum = total(tp, sum, qkv_conv1d(tp, x, param(e, "w", 3, (int[]){4, D, 3}), p1(e, "b", 4), sent, 1));
    sum = total(tp, sum, qkv_packed_windows(tp, x, sent, 3));
    return total(tp, sum, qkv_packed_max(tp, x, sent));
}

/* Two images of 3 x 3 pixels, 2 channels: conv2d, then max and average pooling. */
static qkv_tensor *images(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_grid g = {3, 3, 0}, og;
    qkv_tensor *x = p2(e, "x", 2 * 9, 2), *w = param(e, "w", 4, (int[]){3, 2, 3, 3});
    qkv_tensor *y = qkv_conv2d(tp, x, w, p1(e, "b", 3), 2, g, 1, 1, &og);
    qkv_tensor *sum = total(tp, NULL, y);
    sum = total(tp, sum, qkv_pool2d(tp, y, 2, og, 2, 1, 0, QKV_POOL_MAX, NULL));
    return total(tp, sum, qkv_pool2d(tp, y, 2, og, 3, 1, 1, QKV_POOL_AVG, NULL));
}

static qkv_tensor *attention(ot_env *e)
{
    qkv_tape *tp = &e->tp;
    qkv_attention_proj proj = {p2(e, "wq", D, D), p2(e, "wk", D, D), p2(e, "wv", D, D), p1(e, "bq", D),
                               p1(e, "bk", D), p1(e, "bv", D)};
    qkv_attention_opts opts = {.n_heads = 2, .dropout = 0.25};
    qkv_tensor *sum = NULL;
    for (int tiled = 0; tiled < 2; tiled++) {
        opts.kernel = tiled ? QKV_ATTN_KERNEL_TILED : QKV_ATTN_KERNEL_STORED;
        qkv_tensor *o = qkv_attention(tp, p2(e, "x", T, D), (qkv_packed){B, OFFSETS}, &proj, NULL, 0, &opts, NULL);
        sum = total(tp, sum, qkv_attention_out(tp, o, p2(e, "wo", D, D), p1(e, "bo", D)));
    }
    return sum;
}

/* Three training steps of fn on one tape: the allocations of the last two and the resets. */
static long steps_allocations(const char *name, family_fn fn)
{
    ot_env e;
    ot_init(&e, 3);
    long before = 0;
    for (int s = 0; s < 3; s++) {
        qkv_tape_reset(&e.tp); /* after the first step: merges the arena's blocks (mallocs) */
        if (s == 1)
            before = __atomic_load_n(&n_allocs, __ATOMIC_RELAXED);
        qkv_params_zero_grad(&e.ps);
        qkv_tensor *loss = fn(&e);
        if (!loss || qkv_backward(&e.tp, loss) != QKV_OK)
            fail_msg("%s: %s", name, e.tp.err.msg);
    }
    qkv_tape_reset(&e.tp);
    long during = __atomic_load_n(&n_allocs, __ATOMIC_RELAXED) - before;
    ot_free(&e);
    return during;
}

static void test_small_ops_allocate_nothing(void **state)
{
    (void)state;
    if (!MALLOC_HOOKED)
        skip();
    openblas_set_num_threads(1);
    static const struct {
        const char *name;
        family_fn fn;
    } families[] = {{"elementwise", elementwise}, {"activations", activations}, {"softmax and losses", softmax_losses},
                    {"layer norms", norms},       {"dropouts", dropouts},       {"lookups and conv1d", lookups},
                    {"conv2d and pool2d", images}, {"attention", attention}};
    int bad = 0;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        long n = steps_allocations(families[i].name, families[i].fn);
        if (n) {
            print_message("%s: %ld allocations in two steps after the first\n", families[i].name, n);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_ops_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
