/* Random crops and flips of training images (data/image_augment.h): each transform on a tiny
 * image against pixels worked out by hand (through qkv_dataset_from_images, so the token layout
 * of patches, channels and [CLS] is the reader's), the draws a function of (key, image) only,
 * and a batch's images each given its own draw. */
#include "testutil.h"

#include <string.h>

#include "data/batch.h"
#include "data/idx.h"
#include "data/image_augment.h"

/* The 4 x 4 image v(y, x) = 10 + 16 y + 3 x (channel c adds 100 c). */
static const uint8_t SRC[4][4] = {{10, 13, 16, 19}, {26, 29, 32, 35}, {42, 45, 48, 51}, {58, 61, 64, 67}};

static void make_images(qkv_images *im, int n, int channels, const uint8_t (*px)[4][4])
{
    memset(im, 0, sizeof *im);
    im->name = strdup("tiny");
    im->n = n, im->rows = 4, im->cols = 4, im->channels = channels;
    im->pixels = malloc((size_t)n * 16 * channels);
    for (int i = 0; i < n; i++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                for (int c = 0; c < channels; c++)
                    im->pixels[((i * 4 + y) * 4 + x) * channels + c] =
                        px[i][y][x] == 0 ? 0 : (uint8_t)(px[i][y][x] + 100 * c);
}

/* Augments the one image SRC (channels, patch, n_prefix) by sh and compares its tokens with
 * those of the expected image (0 = black). */
static void check_one(int channels, int patch, int n_prefix, int pad, qkv_image_shift sh, const uint8_t want[4][4])
{
    qkv_images in, out;
    qkv_dataset a, b;
    qkv_error err;
    make_images(&in, 1, channels, &SRC);
    make_images(&out, 1, channels, (const uint8_t(*)[4][4])want);
    assert_int_equal(qkv_dataset_from_images(&a, &in, patch, n_prefix, &err), QKV_OK);
    assert_int_equal(qkv_dataset_from_images(&b, &out, patch, n_prefix, &err), QKV_OK);
    if (n_prefix) /* a [CLS] row is left as it is */
        for (int k = 0; k < a.d_input; k++)
            a.dense[k] = b.dense[k] = 7.0f;
    qkv_image_layout l = {4, 4, channels, patch, n_prefix};
    float scratch[4 * 4 * 2];
    qkv_image_augment_one(a.dense, &l, pad, sh, scratch);
    for (int k = 0; k < a.n_words * a.d_input; k++)
        if (a.dense[k] != b.dense[k])
            fail_msg("value %d: %g, expected %g", k, a.dense[k], b.dense[k]);
    qkv_dataset_free(&a);
    qkv_dataset_free(&b);
    qkv_images_free(&in);
    qkv_images_free(&out);
}

static void test_shift(void **state)
{
    (void)state;
    /* pad 1, crop at (0, 2): out(y, x) = in(y - 1, x + 1) */
    static const uint8_t want[4][4] = {{0, 0, 0, 0}, {13, 16, 19, 0}, {29, 32, 35, 0}, {45, 48, 51, 0}};
    check_one(1, 2, 1, 1, (qkv_image_shift){0, 2, false}, want);
    check_one(1, 1, 0, 1, (qkv_image_shift){0, 2, false}, want);
}

static void test_flip(void **state)
{
    (void)state;
    /* pad 0: out(y, x) = in(y, 3 - x) */
    static const uint8_t want[4][4] = {{19, 16, 13, 10}, {35, 32, 29, 26}, {51, 48, 45, 42}, {67, 64, 61, 58}};
    check_one(1, 2, 1, 0, (qkv_image_shift){0, 0, true}, want);
    check_one(1, 4, 0, 0, (qkv_image_shift){0, 0, true}, want);
}

static void test_shift_and_flip(void **state)
{
    (void)state;
    /* pad 1, crop at (2, 1), flipped: out(y, x) = in(y + 1, 3 - x) */
    static const uint8_t want[4][4] = {{35, 32, 29, 26}, {51, 48, 45, 42}, {67, 64, 61, 58}, {0, 0, 0, 0}};
    check_one(1, 2, 1, 1, (qkv_image_shift){2, 1, true}, want);
}

static void test_channels(void **state)
{
    (void)state;
    /* two channels, pad 1, crop at (1, 0): out(y, x) = in(y, x - 1), both channels */
    static const uint8_t want[4][4] = {{0, 10, 13, 16}, {0, 26, 29, 32}, {0, 42, 45, 48}, {0, 58, 61, 64}};
    check_one(2, 2, 1, 1, (qkv_image_shift){1, 0, false}, want);
    check_one(2, 1, 0, 1, (qkv_image_shift){1, 0, false}, want);
    /* no shift, no flip: the image as it was */
    check_one(2, 2, 0, 3, (qkv_image_shift){3, 3, false}, SRC);
}

/* The draws: a function of (key, id) alone, every offset 0 .. 2 pad and both flips reached. */
static void test_draws(void **state)
{
    (void)state;
    int seen_y[5] = {0}, seen_x[5] = {0}, flips = 0, differ = 0;
    for (uint64_t id = 0; id < 400; id++) {
        qkv_image_shift a = qkv_image_shift_draw(42, id, 2), b = qkv_image_shift_draw(42, id, 2);
        qkv_image_shift c = qkv_image_shift_draw(43, id, 2);
        assert_int_equal(a.oy, b.oy);
        assert_int_equal(a.ox, b.ox);
        assert_int_equal(a.flip, b.flip);
        assert_true(a.oy >= 0 && a.oy <= 4 && a.ox >= 0 && a.ox <= 4);
        seen_y[a.oy]++, seen_x[a.ox]++, flips += a.flip;
        differ += a.oy != c.oy || a.ox != c.ox || a.flip != c.flip;
    }
    for (int k = 0; k < 5; k++)
        assert_true(seen_y[k] > 40 && seen_x[k] > 40); /* about 80 each */
    assert_true(flips > 150 && flips < 250);
    assert_true(differ > 300); /* another key, other draws */
    qkv_image_shift z = qkv_image_shift_draw(42, 7, 0);
    assert_true(z.oy == 0 && z.ox == 0);
}

/* A batch of 6 images: each augmented by the draw of its own corpus index, the same for the same
 * key, other draws under another key; NONE changes nothing; a batch of another width is an
 * error. */
static void test_batch(void **state)
{
    (void)state;
    uint8_t px[6][4][4];
    for (int i = 0; i < 6; i++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                px[i][y][x] = (uint8_t)(1 + i * 20 + y * 4 + x);
    qkv_images im;
    make_images(&im, 6, 1, (const uint8_t(*)[4][4])px);
    qkv_dataset ds;
    qkv_batch_plan plan;
    qkv_batch b1 = {0}, b2 = {0};
    qkv_error err;
    qkv_rng rng;
    qkv_rng_seed(&rng, 5);
    assert_int_equal(qkv_dataset_from_images(&ds, &im, 2, 1, &err), QKV_OK);
    assert_int_equal(qkv_batch_plan_make(&plan, &ds, 6 * 5, &rng, &err), QKV_OK);
    assert_int_equal(plan.n_batches, 1);
    qkv_batch *bs[2] = {&b1, &b2};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(qkv_batch_alloc(bs[k], 0, false, plan.max_sent, plan.max_tokens, &err), QKV_OK);
        assert_int_equal(qkv_batch_alloc_dense(bs[k], ds.d_input, &err), QKV_OK);
        assert_int_equal(qkv_batch_fill(bs[k], &ds, &plan, 0, &err), QKV_OK);
    }
    size_t n = (size_t)b1.n_tokens * b1.d_input;
    qkv_image_layout l = {4, 4, 1, 2, 1};
    assert_int_equal(qkv_batch_augment_images(&b1, &l, QKV_AUGMENT_NONE, 2, 9, &err), QKV_OK);
    assert_memory_equal(b1.dense, b2.dense, n * sizeof(float));
    assert_int_equal(qkv_batch_augment_images(&b1, &l, QKV_AUGMENT_CROP_FLIP, 2, 9, &err), QKV_OK);
    float scratch[16];
    int changed = 0;
    for (int s = 0; s < b2.n_sent; s++) { /* b2 by hand: each image by its own draw */
        float *img = b2.dense + (size_t)b2.offsets[s] * b2.d_input;
        float before[5 * 4];
        memcpy(before, img, sizeof before);
        qkv_image_augment_one(img, &l, 2, qkv_image_shift_draw(9, (uint64_t)b2.sent_ids[s], 2), scratch);
        changed += memcmp(before, img, sizeof before) != 0;
    }
    assert_true(changed >= 4);
    assert_memory_equal(b1.dense, b2.dense, n * sizeof(float));
    assert_int_equal(qkv_batch_fill(&b2, &ds, &plan, 0, &err), QKV_OK);
    assert_int_equal(qkv_batch_augment_images(&b2, &l, QKV_AUGMENT_CROP_FLIP, 2, 10, &err), QKV_OK);
    assert_true(memcmp(b1.dense, b2.dense, n * sizeof(float)) != 0);
    qkv_image_layout wrong = {4, 4, 1, 1, 1};
    assert_int_equal(qkv_batch_augment_images(&b2, &wrong, QKV_AUGMENT_CROP_FLIP, 2, 10, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "4 values wide"));
    qkv_batch_free(&b1);
    qkv_batch_free(&b2);
    qkv_batch_plan_free(&plan);
    qkv_dataset_free(&ds);
    qkv_images_free(&im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift),    cmocka_unit_test(test_flip),  cmocka_unit_test(test_shift_and_flip),
        cmocka_unit_test(test_channels), cmocka_unit_test(test_draws), cmocka_unit_test(test_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
