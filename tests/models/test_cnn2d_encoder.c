/* The cnn2d encoder (models/cnn2d_encoder.c, lib/nn/conv2d_block.h): its output against a
 * double-precision reference written here from the formulas (k × k convolution with zero
 * padding, layer norm over channels, gelu, 2 × 2 max or average pooling, the maximum over the
 * cells left, that vector on every token of its image), a gradient check of every parameter
 * and of the input, the parameter count the summary prints, and its errors. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include "models/network.h"

enum { N = 2, R = 4, C = 5, D = 3, K = 3, LAYERS = 2, T = N * R * C };

typedef struct {
    qkv_encoder e;
    qkv_tensor *x;
    int32_t off[N + 1];
} fixture;

static qkv_tensor *encoder_fn(qkv_tape *tp, void *user)
{
    fixture *f = user;
    return f->e.desc->forward(tp, &f->e, f->x, (qkv_packed){N, f->off}, -1, NULL);
}

static qkv_network_config config(qkv_cnn2d_pool pool)
{
    qkv_network_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = LAYERS;
    cfg.encoder.d_model = D;
    cfg.encoder.activation = QKV_FFN_GELU;
    cfg.encoder.ln_eps = 1e-5;
    cfg.encoder_kind = QKV_ENCODER_CNN2D;
    cfg.cnn_kernel = K;
    cfg.cnn2d_pool = pool;
    cfg.grid = (qkv_grid){.rows = R, .cols = C};
    return cfg;
}

/* One block on h [n images, rows, cols, D] in place; returns the new grid through rows, cols. */
static void block_ref(const qkv_conv2d_block *b, double *h, int *rows, int *cols)
{
    int r0 = *rows, c0 = *cols;
    static double y[T * D];
    for (int im = 0; im < N; im++)
        for (int oy = 0; oy < r0; oy++)
            for (int ox = 0; ox < c0; ox++) {
                double *out = y + ((im * r0 + oy) * c0 + ox) * D, mean = 0, var = 0;
                for (int o = 0; o < D; o++) {
                    double s = b->b->data[o];
                    for (int c = 0; c < D; c++)
                        for (int ky = 0; ky < K; ky++)
                            for (int kx = 0; kx < K; kx++) {
                                int iy = oy + ky - 1, ix = ox + kx - 1;
                                if (iy >= 0 && iy < r0 && ix >= 0 && ix < c0)
                                    s += b->w->data[((o * D + c) * K + ky) * K + kx] *
                                         h[((im * r0 + iy) * c0 + ix) * D + c];
                            }
                    out[o] = s;
                    mean += s / D;
                }
                for (int o = 0; o < D; o++)
                    var += (out[o] - mean) * (out[o] - mean) / D;
                for (int o = 0; o < D; o++) {
                    double z = (out[o] - mean) / sqrt(var + 1e-5) * b->ln_gain->data[o] + b->ln_bias->data[o];
                    out[o] = 0.5 * z * (1 + erf(z / sqrt(2.0)));
                }
            }
    int r1 = b->pool ? r0 / 2 : r0, c1 = b->pool ? c0 / 2 : c0;
    for (int im = 0; im < N; im++)
        for (int oy = 0; oy < r1; oy++)
            for (int ox = 0; ox < c1; ox++)
                for (int o = 0; o < D; o++) {
                    double m = -INFINITY, sum = 0;
                    int s = b->pool ? 2 : 1;
                    for (int dy = 0; dy < s; dy++)
                        for (int dx = 0; dx < s; dx++) {
                            double v = y[((im * r0 + oy * s + dy) * c0 + ox * s + dx) * D + o];
                            m = fmax(m, v);
                            sum += v;
                        }
                    h[((im * r1 + oy) * c1 + ox) * D + o] = b->pool == QKV_CNN2D_POOL_AVG ? sum / (s * s) : m;
                }
    *rows = r1, *cols = c1;
}

static void check_pool(qkv_cnn2d_pool pool, uint64_t seed)
{
    qkv_network_config cfg = config(pool);
    qkv_params ps, xs;
    qkv_params_init(&ps);
    qkv_params_init(&xs);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    qkv_error err;
    fixture f = {.e = {.desc = QKV_ENCODER_DESCS[QKV_ENCODER_CNN2D], .d_out = D}, .off = {0, R * C, 2 * R * C}};
    if (f.e.desc->create(&f.e, &ps, &rng, &cfg, &err))
        fail_msg("%s", err.msg);
    assert_int_equal((int)qkv_params_count(&ps), LAYERS * (D * D * K * K + 3 * D));
    char line[300];
    f.e.desc->summary(&cfg, line, sizeof line);
    assert_non_null(strstr(line, "180 encoder parameters")); /* 2 · (3·3·3·3 + 3·3) */
    assert_non_null(strstr(line, pool ? "grid 4 x 5 -> 1 x 1" : "grid 4 x 5 -> 4 x 5"));
    for (int i = 0; i < ps.n; i++)
        qkv_init_normal(&ps.items[i]->t, &rng, 0.5);
    f.x = tu_param(&xs, &rng, "x", 2, (int[]){T, D});
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = encoder_fn(&tp, &f);
    if (!y)
        fail_msg("%s", tp.err.msg);
    static double h[T * D];
    for (int i = 0; i < T * D; i++)
        h[i] = f.x->data[i];
    int rows = R, cols = C;
    for (int l = 0; l < LAYERS; l++) /* the blocks are the first 2 · 4 parameters, 4 each */
        block_ref(&(qkv_conv2d_block){.pool = pool, .w = &ps.items[4 * l]->t, .b = &ps.items[4 * l + 1]->t,
                                      .ln_gain = &ps.items[4 * l + 2]->t, .ln_bias = &ps.items[4 * l + 3]->t},
                  h, &rows, &cols);
    for (int im = 0; im < N; im++)
        for (int o = 0; o < D; o++) {
            double m = -INFINITY;
            for (int cell = 0; cell < rows * cols; cell++)
                m = fmax(m, h[(im * rows * cols + cell) * D + o]);
            for (int t = f.off[im]; t < f.off[im + 1]; t++)
                tu_assert_close(y->data[t * D + o], m, 1e-12);
        }
    qkv_tape_reset(&tp);
    qkv_tensor *ts[16];
    const char *names[16];
    for (int i = 0; i < ps.n; i++)
        ts[i] = &ps.items[i]->t, names[i] = ps.items[i]->name;
    ts[ps.n] = f.x, names[ps.n] = "x";
    tu_assert_gradcheck(&tp, encoder_fn, &f, ps.n + 1, ts, names);
    qkv_tape_free(&tp);
    f.e.desc->free(&f.e);
    qkv_params_free(&ps);
    qkv_params_free(&xs);
}

static void test_forward_and_gradients(void **state)
{
    (void)state;
    check_pool(QKV_CNN2D_POOL_MAX, 1);
    check_pool(QKV_CNN2D_POOL_AVG, 2);
    check_pool(QKV_CNN2D_POOL_NONE, 3);
}

static void test_errors(void **state)
{
    (void)state;
    qkv_network_config cfg = config(QKV_CNN2D_POOL_MAX);
    cfg.grid.n_prefix = 1;
    qkv_params ps;
    qkv_params_init(&ps);
    qkv_error err;
    qkv_encoder e = {.desc = QKV_ENCODER_DESCS[QKV_ENCODER_CNN2D]};
    assert_int_not_equal(e.desc->create(&e, &ps, NULL, &cfg, &err), QKV_OK);
    assert_non_null(strstr(err.msg, "model.encoder = cnn2d needs a 2-D grid of tokens without prefix tokens"));
    e.desc->free(&e);
    cfg.grid.n_prefix = 0;
    assert_int_equal(e.desc->create(&e, &ps, NULL, &cfg, &err), QKV_OK);
    qkv_params xs;
    qkv_params_init(&xs);
    qkv_rng rng;
    qkv_rng_seed(&rng, 1);
    qkv_tensor *x = tu_param(&xs, &rng, "x", 2, (int[]){R * C + 1, D});
    int32_t off[3] = {0, R * C, R * C + 1};
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    assert_null(e.desc->forward(&tp, &e, x, (qkv_packed){2, off}, -1, NULL));
    assert_non_null(strstr(tp.err.msg, "cnn2d encoder: image 1 has 1 tokens, the grid 4 x 5 has 20"));
    qkv_tape_free(&tp);
    e.desc->free(&e);
    qkv_params_free(&ps);
    qkv_params_free(&xs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_and_gradients),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
