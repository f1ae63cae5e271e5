/* 2-D convolution and pooling (lib/ops/conv2d.c): forward values against direct loops over the
 * formulas written here (zero padding, stride, each image alone), recorded and in evaluation
 * (no_grad, its own path), the output grid, a double-precision gradient check of every input,
 * and the errors. */
#include "optest.h"

enum { N = 2, ROWS = 5, COLS = 4, IN = 3, OUT = 4 };
static const qkv_grid G = {.rows = ROWS, .cols = COLS};

typedef struct {
    qkv_tensor *x, *w, *b;
    int k, stride, padding;
    qkv_pool mode;
    bool pool;
} conv_fixture;

static qkv_tensor *conv_fn(qkv_tape *tp, void *user)
{
    conv_fixture *f = user;
    if (f->pool)
        return qkv_pool2d(tp, f->x, N, G, f->k, f->stride, f->padding, f->mode, NULL);
    return qkv_conv2d(tp, f->x, f->w, f->b, N, G, f->stride, f->padding, NULL);
}

/* x at (image b, row y, column x, channel c), or NAN outside the image (padding). */
static double pixel(const conv_fixture *f, int b, int y, int x, int c)
{
    if (y < 0 || y >= ROWS || x < 0 || x >= COLS)
        return NAN;
    return f->x->data[((b * ROWS + y) * COLS + x) * f->x->shape[1] + c];
}

/* Output (b, oy, ox, o) from the formula: convolution with zeros for padding, max or mean
 * over the pixels inside the image. */
static double output_ref(const conv_fixture *f, int b, int oy, int ox, int o)
{
    double acc = f->pool ? (f->mode == QKV_POOL_MAX ? -INFINITY : 0) : (f->b ? f->b->data[o] : 0);
    int count = 0;
    for (int ky = 0; ky < f->k; ky++)
        for (int kx = 0; kx < f->k; kx++) {
            int y = oy * f->stride - f->padding + ky, x = ox * f->stride - f->padding + kx;
            if (f->pool) {
                double v = pixel(f, b, y, x, o);
                if (isnan(v))
                    continue;
                count++;
                acc = f->mode == QKV_POOL_MAX ? fmax(acc, v) : acc + v;
                continue;
            }
            for (int c = 0; c < IN; c++) {
                double v = pixel(f, b, y, x, c);
                acc += isnan(v) ? 0 : v * f->w->data[((o * IN + c) * f->k + ky) * f->k + kx];
            }
        }
    return f->pool && f->mode == QKV_POOL_AVG ? acc / count : acc;
}

/* The forward values and grid of f, recorded (no_grad false) or in evaluation. */
static void check_values(conv_fixture *f, ot_env *e, bool no_grad, int want_rows, int want_cols)
{
    qkv_grid og = {0};
    e->tp.no_grad = no_grad;
    qkv_tensor *y = f->pool ? qkv_pool2d(&e->tp, f->x, N, G, f->k, f->stride, f->padding, f->mode, &og)
                            : qkv_conv2d(&e->tp, f->x, f->w, f->b, N, G, f->stride, f->padding, &og);
    e->tp.no_grad = false;
    if (!y)
        fail_msg("%s", e->tp.err.msg);
    assert_int_equal(og.rows, want_rows);
    assert_int_equal(og.cols, want_cols);
    qkv_grid g2 = qkv_conv2d_grid(G, f->k, f->stride, f->padding);
    assert_int_equal(g2.rows, want_rows);
    assert_int_equal(g2.cols, want_cols);
    int C = f->pool ? IN : OUT;
    assert_int_equal(y->shape[0], N * want_rows * want_cols);
    assert_int_equal(y->shape[1], C);
    for (int b = 0; b < N; b++)
        for (int oy = 0; oy < want_rows; oy++)
            for (int ox = 0; ox < want_cols; ox++)
                for (int o = 0; o < C; o++)
                    tu_assert_close(y->data[((b * want_rows + oy) * want_cols + ox) * C + o],
                                    output_ref(f, b, oy, ox, o), 1e-12);
    qkv_tape_reset(&e->tp);
}

static void check(conv_fixture *f, ot_env *e, int want_rows, int want_cols)
{
    check_values(f, e, false, want_rows, want_cols);
    check_values(f, e, true, want_rows, want_cols);
    qkv_tensor *ts[] = {f->x, f->w, f->b};
    const char *names[] = {"x", "w", "b"};
    tu_assert_gradcheck(&e->tp, conv_fn, f, f->pool ? 1 : (f->b ? 3 : 2), ts, names);
}

static void conv_case(int k, int stride, int padding, bool bias, int want_rows, int want_cols, uint64_t seed)
{
    ot_env e;
    ot_init(&e, seed);
    conv_fixture f = {.k = k, .stride = stride, .padding = padding};
    f.x = ot_param2(&e, "x", N * ROWS * COLS, IN);
    f.w = ot_param(&e, "w", 4, (int[]){OUT, IN, k, k});
    f.b = bias ? ot_param(&e, "b", 1, (int[]){OUT}) : NULL;
    check(&f, &e, want_rows, want_cols);
    ot_free(&e);
}

static void pool_case(qkv_pool mode, int k, int stride, int padding, int want_rows, int want_cols, uint64_t seed)
{
    ot_env e;
    ot_init(&e, seed);
    conv_fixture f = {.k = k, .stride = stride, .padding = padding, .mode = mode, .pool = true};
    f.x = ot_param2(&e, "x", N * ROWS * COLS, IN);
    check(&f, &e, want_rows, want_cols);
    ot_free(&e);
}

static void test_conv2d(void **state)
{
    (void)state;
    conv_case(3, 1, 1, true, 5, 4, 1);  /* "same" */
    conv_case(3, 2, 1, true, 3, 2, 2);  /* (5 + 2 − 3)/2 + 1 = 3, (4 + 2 − 3)/2 + 1 = 2 */
    conv_case(2, 2, 0, false, 2, 2, 3); /* patches without overlap, the last row dropped */
    conv_case(1, 1, 0, true, 5, 4, 4);
    conv_case(5, 1, 2, true, 5, 4, 5);
}

static void test_pool2d(void **state)
{
    (void)state;
    pool_case(QKV_POOL_MAX, 2, 2, 0, 2, 2, 6);
    pool_case(QKV_POOL_MAX, 3, 2, 1, 3, 2, 7); /* padding never wins */
    pool_case(QKV_POOL_AVG, 3, 1, 1, 5, 4, 8); /* the mean over the pixels inside */
    pool_case(QKV_POOL_AVG, 2, 2, 0, 2, 2, 9);
}

/* Evaluation turns a chunk of images at a time into columns (about 2^18 values a chunk, at
 * least one chunk a thread) and below as many images as threads takes the recorded path's
 * product; every way gives the recorded path's values: nb images of r x c pixels, 64 channels,
 * a 3 x 3 kernel. */
static void eval_case(int nb, int r, int c, uint64_t seed)
{
    enum { CH = 64, O = 5 };
    const qkv_grid g = {.rows = r, .cols = c};
    ot_env e;
    ot_init(&e, seed);
    qkv_tensor *x = ot_param2(&e, "x", nb * r * c, CH), *w = ot_param(&e, "w", 4, (int[]){O, CH, 3, 3});
    qkv_tensor *b = ot_param(&e, "b", 1, (int[]){O});
    qkv_tensor *rec = qkv_conv2d(&e.tp, x, w, b, nb, g, 1, 1, NULL);
    e.tp.no_grad = true;
    qkv_tensor *ev = qkv_conv2d(&e.tp, x, w, b, nb, g, 1, 1, NULL);
    if (!rec || !ev)
        fail_msg("%s", e.tp.err.msg);
    assert_int_equal(ev->size, (size_t)nb * r * c * O);
    for (size_t i = 0; i < ev->size; i++)
        tu_assert_close(ev->data[i], rec->data[i], 1e-12);
    ot_free(&e);
}

static void test_conv2d_eval_chunks(void **state)
{
    (void)state;
    eval_case(3, 24, 24, 11); /* chunks of one image (576 cells x 576 columns each) */
    eval_case(5, 8, 8, 12);   /* several images a chunk, the last chunk shorter */
    eval_case(1, 8, 8, 13);   /* fewer images than threads on two cores */
}

static void expect_error(qkv_grid g, int rows, int k, int stride, int padding, bool pool, const char *msg)
{
    ot_env e;
    ot_init(&e, 1);
    qkv_tensor *x = ot_param2(&e, "x", rows, IN), *w = ot_param(&e, "w", 4, (int[]){OUT, IN, k, k});
    qkv_tensor *y = pool ? qkv_pool2d(&e.tp, x, N, g, k, stride, padding, QKV_POOL_MAX, NULL)
                         : qkv_conv2d(&e.tp, x, w, NULL, N, g, stride, padding, NULL);
    assert_null(y);
    if (!strstr(e.tp.err.msg, msg))
        fail_msg("got \"%s\", expected \"%s\"", e.tp.err.msg, msg);
    ot_free(&e);
}

static void test_errors(void **state)
{
    (void)state;
    const qkv_grid cls = {.rows = ROWS, .cols = COLS, .n_prefix = 1};
    expect_error(cls, N * 21, 3, 1, 1, false, "conv2d: needs a 2-D grid without prefix tokens, got 5 x 4 (+1)");
    expect_error((qkv_grid){0}, 8, 3, 1, 1, true, "pool2d: needs a 2-D grid");
    expect_error(G, 39, 3, 1, 1, false, "conv2d: x is [39, 3], expected [2 images · 5 x 4, channels]");
    expect_error(G, 40, 3, 0, 1, false, "kernel 3, stride 0, padding 1");
    expect_error(G, 40, 3, 1, 3, true, "pool2d: kernel 3, stride 1, padding 3");
    expect_error(G, 40, 6, 1, 0, false, "conv2d: kernel 6 is larger than the padded 5 x 4 grid");
    assert_int_equal(qkv_conv2d_grid(G, 6, 1, 0).rows, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d),
        cmocka_unit_test(test_pool2d),
        cmocka_unit_test(test_conv2d_eval_chunks),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
