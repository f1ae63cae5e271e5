/* IDX images and labels (data/idx.h): the values of a well-formed file, each error of a bad one
 * naming the file, the label file's name, the seeded validation split, the image dataset's
 * token vectors and tags, a batch's copy of them, and the shipped gzip sample. */
#include "testutil.h"

#include <string.h>

#include "data/batch.h"
#include "data/idx.h"

/* An IDX file of unsigned bytes: the header for dims[0 .. n_dims), then the values v(i) = (i * 7
 * + 3) % 256 of their product; into buf, returns its length. */
static size_t make_idx(uint8_t *buf, int n_dims, const uint32_t *dims)
{
    size_t at = 0, count = 1;
    buf[at++] = 0, buf[at++] = 0, buf[at++] = 8, buf[at++] = (uint8_t)n_dims;
    for (int d = 0; d < n_dims; d++) {
        for (int k = 3; k >= 0; k--)
            buf[at++] = (uint8_t)(dims[d] >> (8 * k));
        count *= dims[d];
    }
    for (size_t i = 0; i < count; i++)
        buf[at++] = (uint8_t)((i * 7 + 3) % 256);
    return at;
}

static uint8_t buf[4096], lbuf[64];

static void expect_images_error(size_t len, const char *expected)
{
    qkv_images im;
    qkv_error err;
    assert_int_equal(qkv_idx_read_images_mem(&im, buf, len, "x.idx", &err), QKV_ERR);
    if (!strstr(err.msg, expected) || strncmp(err.msg, "x.idx: ", 7))
        fail_msg("expected 'x.idx: ...%s...', got '%s'", expected, err.msg);
    assert_null(im.pixels);
    qkv_images_free(&im);
}

static void test_images(void **state)
{
    (void)state;
    size_t len = make_idx(buf, 3, (uint32_t[]){3, 4, 2});
    qkv_images im;
    qkv_error err;
    assert_int_equal(qkv_idx_read_images_mem(&im, buf, len, "x.idx", &err), QKV_OK);
    assert_int_equal(im.n, 3);
    assert_int_equal(im.rows, 4);
    assert_int_equal(im.cols, 2);
    assert_int_equal(im.channels, 1);
    assert_null(im.labels);
    for (int i = 0; i < 24; i++)
        assert_int_equal(im.pixels[i], (i * 7 + 3) % 256);
    qkv_images_free(&im);
    len = make_idx(buf, 4, (uint32_t[]){2, 2, 2, 3}); /* channels last */
    assert_int_equal(qkv_idx_read_images_mem(&im, buf, len, "x.idx", &err), QKV_OK);
    assert_int_equal(im.channels, 3);
    qkv_images_free(&im);
}

static void test_image_errors(void **state)
{
    (void)state;
    size_t len = make_idx(buf, 3, (uint32_t[]){3, 4, 2});
    expect_images_error(len - 1, "truncated: the header says 24 values, the file holds 23");
    expect_images_error(10, "truncated: 10 bytes, the IDX header alone needs 16");
    buf[len] = 0;
    expect_images_error(len + 1, "1 bytes after the 24 values");
    buf[1] = 1;
    expect_images_error(len, "not an IDX file");
    memcpy(buf, "1\tThe\t", 6); /* a CoNLL-U line */
    expect_images_error(len, "not an IDX file");
    expect_images_error(2, "not an IDX file");
    len = make_idx(buf, 3, (uint32_t[]){3, 4, 2});
    buf[2] = 0x0d;
    expect_images_error(len, "values of type 0x0d, only unsigned bytes (0x08)");
    len = make_idx(buf, 1, (uint32_t[]){5});
    expect_images_error(len, "an IDX file of 1 dimension, images need 3 [n, rows, cols] or 4 [n, rows, cols, "
                             "channels] (is it a label file?)");
}

static void test_labels(void **state)
{
    (void)state;
    size_t len = make_idx(buf, 3, (uint32_t[]){3, 2, 2});
    qkv_images im;
    qkv_error err;
    assert_int_equal(qkv_idx_read_images_mem(&im, buf, len, "img.idx", &err), QKV_OK);
    size_t llen = make_idx(lbuf, 1, (uint32_t[]){3}); /* labels 3, 10, 17 */
    assert_int_equal(qkv_idx_read_labels_mem(&im, lbuf, llen, "lab.idx", 18, &err), QKV_OK);
    assert_int_equal(im.labels[0], 3);
    assert_int_equal(im.labels[1], 10);
    assert_int_equal(im.labels[2], 17);
    assert_int_equal(qkv_idx_read_labels_mem(&im, lbuf, llen, "lab.idx", 10, &err), QKV_ERR);
    assert_string_equal(err.msg, "lab.idx: label 10 of image 1 is not one of the 10 classes 0 .. 9");
    llen = make_idx(lbuf, 1, (uint32_t[]){2});
    assert_int_equal(qkv_idx_read_labels_mem(&im, lbuf, llen, "lab.idx", 256, &err), QKV_ERR);
    assert_string_equal(err.msg, "lab.idx: 2 labels for the 3 images of img.idx");
    assert_int_equal(qkv_idx_read_labels_mem(&im, buf, len, "img.idx", 256, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "labels need 1 [n] (is it an image file?)"));
    qkv_images_free(&im);
}

static void test_labels_path(void **state)
{
    (void)state;
    char out[256];
    qkv_error err;
    assert_int_equal(qkv_idx_labels_path("d/images-idx3/t10k-images-idx3-ubyte.gz", out, sizeof out, &err), QKV_OK);
    assert_string_equal(out, "d/images-idx3/t10k-labels-idx1-ubyte.gz");
    assert_int_equal(qkv_idx_labels_path("train.conllu", out, sizeof out, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "train.conllu: cannot tell its label file"));
}

/* Image i of the split keeps its pixels and label; both parts cover the images once, in order;
 * the same seed the same split, another seed another. */
static void test_split(void **state)
{
    (void)state;
    enum { N = 50 };
    qkv_images all = {.name = "all", .n = N, .rows = 1, .cols = 1, .channels = 1};
    uint8_t pixels[N];
    int32_t labels[N];
    for (int i = 0; i < N; i++)
        pixels[i] = (uint8_t)i, labels[i] = i % 10;
    all.pixels = pixels;
    all.labels = labels;
    all.labels_name = "all-labels";
    qkv_images tr, va, tr2, va2;
    qkv_error err;
    assert_int_equal(qkv_images_split(&all, 10, 7, &tr, &va, &err), QKV_OK);
    assert_int_equal(tr.n, 40);
    assert_int_equal(va.n, 10);
    int seen[N] = {0};
    for (int i = 0; i < tr.n; i++)
        seen[tr.pixels[i]]++, assert_int_equal(tr.labels[i], tr.pixels[i] % 10);
    for (int i = 0; i < va.n; i++)
        seen[va.pixels[i]]++, assert_int_equal(va.labels[i], va.pixels[i] % 10);
    for (int i = 0; i < N; i++)
        assert_int_equal(seen[i], 1);
    for (int i = 1; i < va.n; i++)
        assert_true(va.pixels[i] > va.pixels[i - 1]);
    assert_string_equal(va.name, "all (validation part)");
    assert_int_equal(qkv_images_split(&all, 10, 7, &tr2, &va2, &err), QKV_OK);
    assert_memory_equal(va.pixels, va2.pixels, 10);
    qkv_images_free(&tr2);
    qkv_images_free(&va2);
    assert_int_equal(qkv_images_split(&all, 10, 8, &tr2, &va2, &err), QKV_OK);
    assert_true(memcmp(va.pixels, va2.pixels, 10) != 0);
    qkv_images_free(&tr2);
    qkv_images_free(&va2);
    assert_int_equal(qkv_images_split(&all, 50, 8, &tr2, &va2, &err), QKV_ERR);
    assert_non_null(strstr(err.msg, "a validation part of 50 of its 50 images"));
    qkv_images_free(&tr);
    qkv_images_free(&va);
    qkv_images_free(&tr2);
    qkv_images_free(&va2);
}

/* 2 images of 4 x 6 pixels, 2 channels, in patches of 2 after a [CLS] token: 7 tokens an image,
 * token 1 + (pr * 3 + pc) holds pixel (2pr + y, 2pc + x) channel c at (y * 2 + x) * 2 + c, as
 * (v / 255 - 0.5) / 0.5; the label on each image's first token; a batch copies the vectors. */
static void test_dataset(void **state)
{
    (void)state;
    enum { R = 4, C = 6, CH = 2, P = 2, L = 1 + (R / P) * (C / P), DI = P * P * CH };
    size_t len = make_idx(buf, 4, (uint32_t[]){2, R, C, CH});
    qkv_images im;
    qkv_error err;
    assert_int_equal(qkv_idx_read_images_mem(&im, buf, len, "img", &err), QKV_OK);
    int32_t labels[2] = {4, 1};
    im.labels = labels;
    qkv_dataset ds;
    assert_int_equal(qkv_dataset_from_images(&ds, &im, P, 1, &err), QKV_OK);
    assert_int_equal(ds.n_sent, 2);
    assert_int_equal(ds.n_words, 2 * L);
    assert_int_equal(ds.d_input, DI);
    assert_int_equal(qkv_dataset_n_features(&ds), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ds.sent_start[i], i * L);
        assert_int_equal(ds.tags[i * L], labels[i]);
        for (int t = 1; t < L; t++)
            assert_int_equal(ds.tags[i * L + t], QKV_TAG_NONE);
        for (int k = 0; k < DI; k++)
            assert_true(ds.dense[(size_t)i * L * DI + k] == 0);
        for (int pr = 0; pr < R / P; pr++)
            for (int pc = 0; pc < C / P; pc++)
                for (int y = 0; y < P; y++)
                    for (int x = 0; x < P; x++)
                        for (int c = 0; c < CH; c++) {
                            size_t flat = (((size_t)i * R + (size_t)(2 * pr + y)) * C + (size_t)(2 * pc + x)) * CH + c;
                            double v = (double)((flat * 7 + 3) % 256);
                            int t = 1 + pr * (C / P) + pc;
                            tu_assert_close(ds.dense[((size_t)i * L + t) * DI + (y * P + x) * CH + c],
                                            (v / 255 - 0.5) / 0.5, 1e-6);
                        }
    }
    qkv_batch_plan plan;
    assert_int_equal(qkv_batch_plan_make(&plan, &ds, 2 * L, NULL, &err), QKV_OK);
    qkv_batch b;
    assert_int_equal(qkv_batch_alloc(&b, 0, false, plan.max_sent, plan.max_tokens, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_ERR); /* no room for the vectors */
    assert_int_equal(qkv_batch_alloc_dense(&b, DI, &err), QKV_OK);
    assert_int_equal(qkv_batch_fill(&b, &ds, &plan, 0, &err), QKV_OK);
    for (int s = 0; s < b.n_sent; s++)
        assert_memory_equal(b.dense + (size_t)b.offsets[s] * DI,
                            ds.dense + (size_t)ds.sent_start[b.sent_ids[s]] * DI, (size_t)L * DI * sizeof(float));
    qkv_batch_free(&b);
    qkv_batch_plan_free(&plan);
    qkv_dataset_free(&ds);
    assert_int_equal(qkv_dataset_from_images(&ds, &im, 4, 0, &err), QKV_ERR);
    assert_string_equal(err.msg, "img: a patch of 4 x 4 pixels does not tile its 4 x 6 images");
    im.labels = NULL;
    qkv_images_free(&im);
}

/* The shipped sample through gzip: 200 test images of 28 x 28 and their labels. */
static void test_sample(void **state)
{
    (void)state;
    const char *dir = getenv("QKV_SOURCE_DIR");
    if (!dir)
        skip();
    char path[1024], lpath[1100];
    snprintf(path, sizeof path, "%s/data/fashion_mnist_sample/t10k-images-idx3-ubyte.gz", dir);
    qkv_images im;
    qkv_error err;
    if (qkv_idx_read_images(&im, path, &err) || qkv_idx_labels_path(path, lpath, sizeof lpath, &err) ||
        qkv_idx_read_labels(&im, lpath, 10, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(im.n, 200);
    assert_int_equal(im.rows, 28);
    assert_int_equal(im.cols, 28);
    assert_int_equal(im.labels[0], 9); /* the test set's first image is an ankle boot */
    qkv_images_free(&im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_images),      cmocka_unit_test(test_image_errors), cmocka_unit_test(test_labels),
        cmocka_unit_test(test_labels_path), cmocka_unit_test(test_split),        cmocka_unit_test(test_dataset),
        cmocka_unit_test(test_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
