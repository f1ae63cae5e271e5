/* Image models (models/image_input.h, models/class_head.c): the image input's token vectors
 * (the projection of each dense vector, the learned [CLS] vector first in each sequence) and
 * the class head's logits (one row per sequence, from the [CLS] token or the mean, given to
 * each of its tokens) against dense double-precision references; a whole model (patches, a
 * [CLS] token, 2-D positions, a transformer block, the class head) passes a double-precision
 * gradient check of every parameter, with each pooling and each 2-D positional kind. */
#define QKV_TESTUTIL_AUTOGRAD
#include "testutil.h"

#include <string.h>

#include "image_fixture.h"
#include "lib/ops/ops.h"
#include "models/image_input.h"
#include "models/network.h"

enum { B = 2, GR = 2, GC = 2, DI = 3, D = 4, NC = 3, L = 1 + GR * GC, T = B * L };
static const int32_t OFFSETS[B + 1] = {0, L, 2 * L};
/* each image's class on its first token, no tag (< 0: ignored by the loss) on the others */
static const int32_t TAGS[T] = {2, -2, -2, -2, -2, 0, -2, -2, -2, -2};
static float dense[T * DI];

static qkv_network_config config(qkv_seq_pool pool, qkv_pos_kind pos)
{
    qkv_network_config cfg = image_fixture_config(D, NC, L);
    cfg.n_features = 1;
    cfg.feature_names[0] = "word";
    cfg.vocab_sizes[0] = 1;
    cfg.positional = pos;
    cfg.input_kind = QKV_INPUT_PATCHES;
    cfg.pool = pool;
    cfg.grid = (qkv_grid){GR, GC, 1};
    cfg.d_input = DI;
    return cfg;
}

static qkv_network_input batch(void)
{
    for (int i = 0; i < T * DI; i++)
        dense[i] = (float)((i * 5) % 7 - 3) / 4;
    return (qkv_network_input){.sentences = {B, OFFSETS}, .dense = dense};
}

static void init_model(qkv_network *m, qkv_seq_pool pool, qkv_pos_kind pos, uint64_t seed)
{
    qkv_network_config cfg = config(pool, pos);
    image_fixture_init(m, &cfg, seed);
}

/* Row t of the input: input.cls for each sequence's first token, else W dense[t] + b. */
static void test_input_values(void **state)
{
    (void)state;
    qkv_network m;
    init_model(&m, QKV_SEQ_POOL_CLS, QKV_POS_NONE, 1);
    const qkv_tensor *w = &qkv_params_find(&m.params, "input.proj.w")->t;
    const qkv_tensor *b = &qkv_params_find(&m.params, "input.proj.b")->t;
    const qkv_tensor *cls = &qkv_params_find(&m.params, "input.cls")->t;
    qkv_network_input in = batch();
    qkv_tape tp;
    qkv_tape_init(&tp, 0);
    qkv_tensor *y = m.input.desc->forward(&tp, &m.input, &in);
    assert_non_null(y);
    for (int t = 0; t < T; t++)
        for (int o = 0; o < D; o++) {
            double ref = cls->data[o];
            if (t % L) {
                ref = b->data[o];
                for (int k = 0; k < DI; k++)
                    ref += w->data[o * DI + k] * (double)dense[t * DI + k];
            }
            tu_assert_close(y->data[t * D + o], ref, 1e-12);
        }
    qkv_tape_reset(&tp);
    in.dense = NULL;
    assert_null(m.input.desc->forward(&tp, &m.input, &in));
    assert_non_null(strstr(tp.err.msg, "the batch has no token vectors"));
    qkv_tape_free(&tp);
    qkv_network_free(&m);
}

/* Every token's logits are its sequence's: W v + b with v its first row (cls) or the mean of its
 * rows (mean). */
static void test_class_head_values(void **state)
{
    (void)state;
    for (int pool = 0; pool < QKV_SEQ_POOL_COUNT; pool++) {
        qkv_network m;
        init_model(&m, (qkv_seq_pool)pool, QKV_POS_NONE, 2);
        const qkv_head *h = qkv_network_head(&m, 0);
        assert_true(qkv_head_per_sequence(h));
        const qkv_tensor *w = &qkv_params_find(&m.params, "classifier.w")->t;
        const qkv_tensor *b = &qkv_params_find(&m.params, "classifier.b")->t;
        qkv_params xs;
        qkv_params_init(&xs);
        qkv_rng rng;
        qkv_rng_seed(&rng, 3);
        qkv_tensor *x = tu_param(&xs, &rng, "x", 2, (int[]){T, D});
        qkv_tape tp;
        qkv_tape_init(&tp, 0);
        qkv_tensor *lg = qkv_head_logits(&tp, h, x, (qkv_packed){B, OFFSETS});
        assert_non_null(lg);
        assert_int_equal(lg->shape[0], T);
        assert_int_equal(lg->shape[1], NC);
        for (int s = 0; s < B; s++) {
            double v[D] = {0};
            for (int c = 0; c < D; c++) {
                for (int t = OFFSETS[s]; t < OFFSETS[s + 1]; t++)
                    v[c] += x->data[t * D + c] / L;
                if (pool == QKV_SEQ_POOL_CLS)
                    v[c] = x->data[OFFSETS[s] * D + c];
            }
            for (int t = OFFSETS[s]; t < OFFSETS[s + 1]; t++)
                for (int k = 0; k < NC; k++) {
                    double ref = b->data[k];
                    for (int c = 0; c < D; c++)
                        ref += w->data[k * D + c] * v[c];
                    tu_assert_close(lg->data[t * NC + k], ref, 1e-12);
                }
        }
        qkv_tape_free(&tp);
        qkv_params_free(&xs);
        qkv_network_free(&m);
    }
}

static void gradcheck_model(qkv_seq_pool pool, qkv_pos_kind pos, uint64_t seed)
{
    image_fixture f = {.in = batch(), .tags = TAGS};
    init_model(&f.m, pool, pos, seed);
    assert_int_equal(image_fixture_gradcheck(&f, image_fixture_loss, ""), f.m.params.n);
    qkv_network_free(&f.m);
}

static void test_gradcheck_cls_learned2d(void **state)
{
    (void)state;
    gradcheck_model(QKV_SEQ_POOL_CLS, QKV_POS_LEARNED2D, 4);
}

static void test_gradcheck_mean_sinusoidal2d(void **state)
{
    (void)state;
    gradcheck_model(QKV_SEQ_POOL_MEAN, QKV_POS_SINUSOIDAL2D, 5);
}

/* The grid from the images' size and the patch; a patch that does not tile them is an error
 * naming the key; 2-D positions without a grid an error naming the kind. */
static void test_grid(void **state)
{
    (void)state;
    qkv_network_config cfg = config(QKV_SEQ_POOL_CLS, QKV_POS_NONE);
    cfg.patch_size = 4;
    cfg.cls_token = true;
    qkv_error err;
    assert_int_equal(qkv_network_image_grid(&cfg, 28, 24, 3, &err), QKV_OK);
    assert_int_equal(cfg.grid.rows, 7);
    assert_int_equal(cfg.grid.cols, 6);
    assert_int_equal(cfg.grid.n_prefix, 1);
    assert_int_equal(cfg.d_input, 48);
    cfg.patch_size = 5;
    assert_int_equal(qkv_network_image_grid(&cfg, 28, 28, 1, &err), QKV_ERR);
    assert_string_equal(err.msg, "model.patch_size 5 does not divide the images' 28 x 28 pixels");
    cfg.input_kind = QKV_INPUT_PIXELS;
    assert_int_equal(qkv_network_image_grid(&cfg, 28, 28, 1, &err), QKV_OK);
    assert_int_equal(cfg.grid.rows, 28);
    assert_int_equal(cfg.d_input, 1);
    qkv_positional pos;
    qkv_params ps;
    qkv_params_init(&ps);
    assert_int_equal(qkv_positional_create(&pos, QKV_POS_LEARNED2D, 8, 10, false, &ps, NULL, "pos", &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "positional kind learned2d needs tokens on a 2-D grid"));
    qkv_params_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_values),
        cmocka_unit_test(test_class_head_values),
        cmocka_unit_test(test_gradcheck_cls_learned2d),
        cmocka_unit_test(test_gradcheck_mean_sinusoidal2d),
        cmocka_unit_test(test_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
