/* The conv_patches input (models/conv_patches_input.c): its token vectors against a dense
 * double-precision reference computed from the images pixel by pixel (3 x 3 convolutions with
 * zero padding, layer norm over each pixel's channels, GELU, then the p x p patch convolution of
 * stride p, the [CLS] vector first); a double-precision gradient check of every parameter of
 * the input alone and of a whole model over it ([CLS], learned 2-D positions, a transformer
 * block, the class head); its errors: a batch without token vectors or of another grid, token
 * vectors that are not patches, stem layers without channels. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "image_fixture.h"
#include "lib/ops/ops.h"
#include "models/network.h"

/* B images of R x C pixels of CH channels, patches of P: a GR x GC grid after a [CLS] token. */
enum { B = 2, R = 4, C = 6, CH = 2, P = 2, GR = R / P, GC = C / P, DI = P * P * CH, L = 1 + GR * GC, T = B * L };
enum { STEM = 2, SC = 3, D = 4, NC = 3 };
static const int32_t OFFSETS[B + 1] = {0, L, 2 * L};
static const int32_t TAGS[T] = {2, -2, -2, -2, -2, -2, -2, 0, -2, -2, -2, -2, -2, -2};
static double image[B][R][C][CH];
static float dense[T * DI];

static qkv_network_config config(int stem_layers, bool cls)
{
    qkv_network_config cfg = image_fixture_config(D, NC, L);
    cfg.positional = QKV_POS_LEARNED2D;
    cfg.input_kind = QKV_INPUT_CONV_PATCHES;
    cfg.pool = cls ? QKV_SEQ_POOL_CLS : QKV_SEQ_POOL_MEAN;
    cfg.patch_size = P;
    cfg.stem_layers = stem_layers;
    cfg.stem_channels = SC;
    cfg.cls_token = cls;
    qkv_error err;
    if (qkv_network_image_grid(&cfg, R, C, CH, &err))
        fail_msg("%s", err.msg);
    return cfg;
}

/* The images, and their patches as the data reads them (data/idx.h): token 1 + gy·GC + gx of
 * image b holds the patch at (gy, gx), its pixels row-major, channels innermost; the [CLS]
 * token's row is left at a value the input must ignore. */
static qkv_network_input batch(void)
{
    for (int i = 0; i < T * DI; i++)
        dense[i] = 7;
    for (int b = 0; b < B; b++)
        for (int y = 0; y < R; y++)
            for (int x = 0; x < C; x++)
                for (int k = 0; k < CH; k++) {
                    double v = (double)((b * 131 + y * 37 + x * 11 + k * 5) % 17 - 8) / 8;
                    image[b][y][x][k] = v;
                    int token = b * L + 1 + (y / P) * GC + x / P;
                    dense[token * DI + ((y % P) * P + x % P) * CH + k] = (float)v;
                }
    return (qkv_network_input){.sentences = {B, OFFSETS}, .dense = dense};
}

static void init_model(qkv_network *m, int stem_layers, bool cls, uint64_t seed)
{
    qkv_network_config cfg = config(stem_layers, cls);
    image_fixture_init(m, &cfg, seed);
}

static const qkv_real *param(const qkv_network *m, const char *name)
{
    qkv_param *p = qkv_params_find(&m->params, name);
    if (!p)
        fail_msg("no parameter %s", name);
    return p->t.data;
}

/* input.stem.<i>.<what> */
static const qkv_real *stem_param(const qkv_network *m, int i, const char *what)
{
    char name[64];
    snprintf(name, sizeof name, "input.stem.%d.%s", i, what);
    return param(m, name);
}

/* One stem block on a map of cin channels [R][C][SC] (the first cin used) in place: 3 x 3
 * convolution with zero padding, layer norm over the SC channels, GELU (erf form). */
static void ref_block(const qkv_network *m, int i, int cin, double map[R][C][SC])
{
    const qkv_real *w = stem_param(m, i, "conv.weight"), *bias = stem_param(m, i, "conv.bias");
    const qkv_real *g = stem_param(m, i, "ln.gain"), *beta = stem_param(m, i, "ln.bias");
    double out[R][C][SC];
    for (int y = 0; y < R; y++)
        for (int x = 0; x < C; x++) {
            double mean = 0, var = 0;
            for (int o = 0; o < SC; o++) {
                double s = bias[o];
                for (int c = 0; c < cin; c++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int yy = y + ky - 1, xx = x + kx - 1;
                            if (yy >= 0 && yy < R && xx >= 0 && xx < C)
                                s += w[((o * cin + c) * 3 + ky) * 3 + kx] * map[yy][xx][c];
                        }
                out[y][x][o] = s;
                mean += s / SC;
            }
            for (int o = 0; o < SC; o++)
                var += (out[y][x][o] - mean) * (out[y][x][o] - mean) / SC;
            for (int o = 0; o < SC; o++) {
                double v = (out[y][x][o] - mean) / sqrt(var + 1e-5) * g[o] + beta[o];
                out[y][x][o] = 0.5 * v * (1 + erf(v / sqrt(2.0)));
            }
        }
    memcpy(map, out, sizeof out);
}

/* Token t of image b: input.cls, or proj.b + Σ proj.w[o, c, py, px] · map[gy·P + py][gx·P + px][c]. */
static void check_values(int stem_layers, bool cls)
{
    qkv_network m;
    init_model(&m, stem_layers, cls, 1);
    qkv_network_input in = batch();
    const int len = (cls ? 1 : 0) + GR * GC;
    const int32_t offsets[B + 1] = {0, len, 2 * len};
    if (!cls) { /* no [CLS] row: each image's patches from its first row on */
        memmove(dense, dense + DI, (size_t)(L - 1) * DI * sizeof *dense);
        memmove(dense + (L - 1) * DI, dense + (L + 1) * DI, (size_t)(L - 1) * DI * sizeof *dense);
        in.sentences = (qkv_packed){B, offsets};
    }
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = m.input.desc->forward(&tp, &m.input, &in);
    assert_non_null(y);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->shape[0], B * len);
    assert_int_equal(y->shape[1], D);
    const int cin = stem_layers ? SC : CH;
    const qkv_real *w = param(&m, "input.proj.w"), *bias = param(&m, "input.proj.b");
    for (int b = 0; b < B; b++) {
        double map[R][C][SC] = {{{0}}};
        for (int yy = 0; yy < R; yy++)
            for (int xx = 0; xx < C; xx++)
                for (int k = 0; k < CH; k++)
                    map[yy][xx][k] = image[b][yy][xx][k];
        for (int i = 0; i < stem_layers; i++)
            ref_block(&m, i, i ? SC : CH, map);
        if (cls)
            for (int o = 0; o < D; o++)
                tu_assert_close(y->data[(b * len) * D + o], param(&m, "input.cls")[o], 1e-12);
        for (int j = 0; j < GR * GC; j++)
            for (int o = 0; o < D; o++) {
                double ref = bias[o];
                for (int c = 0; c < cin; c++)
                    for (int py = 0; py < P; py++)
                        for (int px = 0; px < P; px++)
                            ref += w[((o * cin + c) * P + py) * P + px] * map[(j / GC) * P + py][(j % GC) * P + px][c];
                tu_assert_close(y->data[(b * len + (cls ? 1 : 0) + j) * D + o], ref, 1e-12);
            }
    }
    qkv_tape_free(&tp);
    qkv_network_free(&m);
}

static void test_values(void **state)
{
    (void)state;
    check_values(STEM, true);
    check_values(1, false);
    check_values(0, true);
}

/* The input alone: the scalar Σ y ⊙ f->r of its token vectors y. */
static qkv_tensor *input_loss(qkv_tape *tp, void *user)
{
    image_fixture *f = user;
    qkv_tensor *y = f->m.input.desc->forward(tp, &f->m.input, &f->in);
    return y ? qkv_sum(tp, qkv_mul(tp, y, f->r)) : NULL;
}

/* Every parameter whose name begins with prefix ("" = all) through fn. */
static void gradcheck(qkv_forward_fn fn, const char *prefix, uint64_t seed)
{
    image_fixture f = {.in = batch(), .tags = TAGS};
    init_model(&f.m, STEM, true, seed);
    qkv_params rs;
    qkv_params_init(&rs);
    qkv_rng rng;
    qkv_rng_seed(&rng, seed + 100);
    f.r = tu_param(&rs, &rng, "r", 2, (int[]){T, D});
    assert_true(image_fixture_gradcheck(&f, fn, prefix) >= 4 * STEM + 3);
    qkv_params_free(&rs);
    qkv_network_free(&f.m);
}

static void test_gradcheck_input(void **state)
{
    (void)state;
    gradcheck(input_loss, "input.", 2);
}

static void test_gradcheck_model(void **state)
{
    (void)state;
    gradcheck(image_fixture_loss, "", 3);
}

static void test_errors(void **state)
{
    (void)state;
    qkv_network m;
    init_model(&m, STEM, true, 4);
    qkv_network_input in = batch();
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    in.dense = NULL;
    assert_null(m.input.desc->forward(&tp, &m.input, &in));
    assert_string_equal(tp.err.msg, "conv_patches input: the batch has no token vectors (the model reads images)");
    qkv_tape_reset(&tp);
    in = batch();
    static const int32_t short_offsets[B + 1] = {0, L - 1, 2 * L};
    in.sentences = (qkv_packed){B, short_offsets};
    assert_null(m.input.desc->forward(&tp, &m.input, &in));
    assert_string_equal(tp.err.msg, "conv_patches input: a sequence of 6 tokens, the model's images have 7");
    qkv_tape_free(&tp);
    qkv_network_free(&m);

    qkv_network_config cfg = config(STEM, true);
    qkv_error err;
    cfg.d_input = 6; /* not P x P pixels of whole channels */
    assert_int_equal(qkv_network_init(&m, &cfg, NULL, &err), QKV_ERR);
    assert_string_equal(err.msg, "conv_patches input: token vectors of width 6 are not patches of 2 x 2 pixels (no "
                                 "image data?)");
    cfg = config(STEM, true);
    cfg.stem_channels = 0;
    assert_int_equal(qkv_network_init(&m, &cfg, NULL, &err), QKV_ERR);
    assert_string_equal(err.msg, "conv_patches input: 2 stem layers of 0 channels (model.stem_layers 0..64, "
                                 "model.stem_channels >= 1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_gradcheck_input),
        cmocka_unit_test(test_gradcheck_model),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
