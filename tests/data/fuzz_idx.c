/* libFuzzer target for the IDX reader (data/idx.h; build and run: tests/data/fuzz.sh idx). The
 * input is read as an image file and as a label file. Properties: an error names the input and
 * leaves nothing allocated; accepted images hold exactly the pixels their header announces; the
 * validation split keeps every image once; the image dataset of every patch that tiles the images
 * has the announced tokens, every value in [-1, 1] and the labels on first tokens. */
#include "fuzz_common.h"

#include "data/idx.h"

#define NAME "fuzz.idx"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void check_error(const qkv_error *err)
{
    fuzz_check(strncmp(err->msg, NAME ": ", strlen(NAME) + 2) == 0, "an error names the input");
}

static void check_dataset(const qkv_images *im, int patch, int n_prefix)
{
    qkv_dataset ds;
    qkv_error err;
    int tiles = patch >= 1 && im->rows % patch == 0 && im->cols % patch == 0;
    int status = qkv_dataset_from_images(&ds, im, patch, n_prefix, &err);
    fuzz_check(status == (tiles ? QKV_OK : QKV_ERR), "a dataset exactly for the patches that tile the images");
    if (status) {
        check_error(&err);
        return;
    }
    int len = n_prefix + (im->rows / patch) * (im->cols / patch);
    fuzz_check(ds.n_sent == im->n && ds.n_words == im->n * len && ds.max_sent_len == len &&
               ds.d_input == patch * patch * im->channels, "an image is one sequence of its tokens");
    for (size_t i = 0; i < (size_t)ds.n_words * (size_t)ds.d_input; i++)
        fuzz_check(ds.dense[i] >= -1.0f && ds.dense[i] <= 1.0f, "token values in [-1, 1]");
    for (int i = 0; i < im->n; i++)
        for (int t = 0; t < len; t++)
            fuzz_check(ds.tags[i * len + t] == (t == 0 && im->labels ? im->labels[i] : QKV_TAG_NONE),
                       "an image's label on its first token, no tag elsewhere");
    qkv_dataset_free(&ds);
}

static void check_split(const qkv_images *im)
{
    if (im->n < 2)
        return;
    qkv_images train, valid;
    qkv_error err;
    int n_valid = 1 + (im->n - 1) / 3;
    fuzz_check(qkv_images_split(im, n_valid, (uint64_t)im->n, &train, &valid, &err) == QKV_OK, "split");
    fuzz_check(train.n == im->n - n_valid && valid.n == n_valid, "split sizes");
    size_t size = (size_t)im->rows * (size_t)im->cols * (size_t)im->channels;
    uint64_t sum = 0, parts = 0;
    for (size_t i = 0; i < (size_t)im->n * size; i++)
        sum += im->pixels[i];
    for (size_t i = 0; i < (size_t)train.n * size; i++)
        parts += train.pixels[i];
    for (size_t i = 0; i < (size_t)valid.n * size; i++)
        parts += valid.pixels[i];
    fuzz_check(sum == parts, "the split keeps every image once");
    qkv_images_free(&train);
    qkv_images_free(&valid);
}

static void as_images(const uint8_t *data, size_t size)
{
    qkv_images im;
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_idx_read_images_mem(&im, data, size, NAME, &err);
    fuzz_output_check(mark);
    if (status) {
        check_error(&err);
        fuzz_check(!im.pixels && !im.name && !im.labels, "a failed read leaves nothing");
        return;
    }
    size_t at = 4 + 4 * (size_t)data[3];
    fuzz_check((uint64_t)im.n * (uint64_t)im.rows * (uint64_t)im.cols * (uint64_t)im.channels == size - at,
               "the pixels the header announces, no more, no fewer");
    fuzz_check(memcmp(im.pixels, data + at, size - at) == 0, "the file's pixels");
    check_split(&im);
    for (int pass = 0; pass < 2; pass++) {
        check_dataset(&im, 1, pass);
        check_dataset(&im, 2, 1 - pass);
        check_dataset(&im, im.rows, pass);
        if (!im.labels) { /* the second pass with a label per image */
            im.labels = calloc((size_t)im.n, sizeof *im.labels);
            fuzz_check(im.labels != NULL, "malloc");
            for (int i = 0; i < im.n; i++)
                im.labels[i] = im.pixels[(size_t)i * im.rows * im.cols * im.channels] % 10;
        }
    }
    qkv_images_free(&im);
}

/* The input as the labels of as many images as its first size announces. */
static void as_labels(const uint8_t *data, size_t size)
{
    uint32_t n = size >= 8 ? be32(data + 4) : 0;
    qkv_images im = {.name = "images", .n = n <= (uint32_t)INT32_MAX ? (int)n : 0};
    qkv_error err;
    fuzz_output mark = fuzz_output_mark();
    int status = qkv_idx_read_labels_mem(&im, data, size, NAME, 10, &err);
    fuzz_output_check(mark);
    if (status) {
        check_error(&err);
        fuzz_check(!im.labels && !im.labels_name, "a failed read leaves no labels");
        return;
    }
    fuzz_check(size == 8 + (size_t)im.n, "one label a byte after the header");
    for (int i = 0; i < im.n; i++)
        fuzz_check(im.labels[i] == data[8 + i] && im.labels[i] < 10, "labels are the file's, below the classes");
    free(im.labels);
    free(im.labels_name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    as_images(data, size);
    as_labels(data, size);
    return 0;
}
