/* IDX images and labels, the validation split and the image dataset (data/idx.h). */
#include "data/idx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/textfile.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The header of an IDX file of unsigned bytes with 1 .. 4 dimensions: sizes into dims, the
 * offset of the values into *at; the values' count must match the file's length. */
static int idx_header(const uint8_t *data, size_t len, const char *name, int *n_dims, uint32_t dims[4], size_t *at,
                      qkv_error *err)
{
    if (len < 4 || data[0] != 0 || data[1] != 0)
        return qkv_fail(err, "%.300s: not an IDX file (it does not begin with the IDX magic number 0x0000TTDD)", name);
    if (data[2] != 0x08)
        return qkv_fail(err, "%.300s: IDX values of type 0x%02x, only unsigned bytes (0x08) are read", name, data[2]);
    *n_dims = data[3];
    if (*n_dims < 1 || *n_dims > 4)
        return qkv_fail(err, "%.300s: IDX file of %d dimensions, expected 1 to 4", name, *n_dims);
    *at = 4 + 4 * (size_t)*n_dims;
    if (len < *at)
        return qkv_fail(err, "%.300s: truncated: %zu bytes, the IDX header alone needs %zu", name, len, *at);
    uint64_t count = 1;
    for (int d = 0; d < *n_dims; d++) {
        dims[d] = be32(data + 4 + 4 * d);
        count *= dims[d];
        if (count > (uint64_t)1 << 40)
            return qkv_fail(err, "%.300s: IDX sizes too large", name);
    }
    if (len - *at < count)
        return qkv_fail(err, "%.300s: truncated: the header says %llu values, the file holds %zu", name,
                        (unsigned long long)count, len - *at);
    if (len - *at > count)
        return qkv_fail(err, "%.300s: %zu bytes after the %llu values the header announces", name,
                        len - *at - (size_t)count, (unsigned long long)count);
    return QKV_OK;
}

int qkv_idx_read_images_mem(qkv_images *im, const uint8_t *data, size_t len, const char *name, qkv_error *err)
{
    memset(im, 0, sizeof *im);
    int n_dims;
    uint32_t dims[4] = {0, 0, 0, 1};
    size_t at;
    if (idx_header(data, len, name, &n_dims, dims, &at, err))
        return QKV_ERR;
    if (n_dims != 3 && n_dims != 4)
        return qkv_fail(err, "%.300s: an IDX file of %d dimension%s, images need 3 [n, rows, cols] or 4 [n, rows, "
                        "cols, channels]%s", name, n_dims, n_dims == 1 ? "" : "s",
                        n_dims == 1 ? " (is it a label file?)" : "");
    if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || dims[3] < 1 || dims[0] > INT32_MAX || dims[1] > 65536 ||
        dims[2] > 65536 || dims[3] > 64)
        return qkv_fail(err, "%.300s: %u images of %u x %u pixels x %u channels: sizes out of range", name, dims[0],
                        dims[1], dims[2], dims[3]);
    size_t bytes = len - at;
    im->name = strdup(name);
    im->pixels = malloc(bytes ? bytes : 1);
    if (!im->name || !im->pixels) {
        qkv_images_free(im);
        return qkv_fail(err, "%.300s: out of memory for %zu bytes of pixels", name, bytes);
    }
    memcpy(im->pixels, data + at, bytes);
    im->n = (int)dims[0];
    im->rows = (int)dims[1];
    im->cols = (int)dims[2];
    im->channels = (int)dims[3];
    return QKV_OK;
}

int qkv_idx_read_images(qkv_images *im, const char *path, qkv_error *err)
{
    memset(im, 0, sizeof *im);
    char *text;
    size_t len;
    if (qkv_text_read(path, &text, &len, err))
        return QKV_ERR;
    int status = qkv_idx_read_images_mem(im, (const uint8_t *)text, len, path, err);
    free(text);
    return status;
}

int qkv_idx_read_labels_mem(qkv_images *im, const uint8_t *data, size_t len, const char *name, int n_classes,
                            qkv_error *err)
{
    int n_dims;
    uint32_t dims[4];
    size_t at;
    if (idx_header(data, len, name, &n_dims, dims, &at, err))
        return QKV_ERR;
    if (n_dims != 1)
        return qkv_fail(err, "%.300s: an IDX file of %d dimensions, labels need 1 [n]%s", name, n_dims,
                        n_dims >= 3 ? " (is it an image file?)" : "");
    if (dims[0] != (uint32_t)im->n)
        return qkv_fail(err, "%.300s: %u labels for the %d images of %.300s", name, dims[0], im->n, im->name);
    for (int i = 0; i < im->n; i++)
        if (data[at + (size_t)i] >= n_classes)
            return qkv_fail(err, "%.300s: label %d of image %d is not one of the %d classes 0 .. %d", name,
                            data[at + (size_t)i], i, n_classes, n_classes - 1);
    free(im->labels);
    free(im->labels_name);
    im->labels = malloc((size_t)im->n * sizeof *im->labels);
    im->labels_name = strdup(name);
    if (!im->labels || !im->labels_name)
        return qkv_fail(err, "%.300s: out of memory for %d labels", name, im->n);
    for (int i = 0; i < im->n; i++)
        im->labels[i] = data[at + (size_t)i];
    return QKV_OK;
}

int qkv_idx_read_labels(qkv_images *im, const char *path, int n_classes, qkv_error *err)
{
    char *text;
    size_t len;
    if (qkv_text_read(path, &text, &len, err))
        return QKV_ERR;
    int status = qkv_idx_read_labels_mem(im, (const uint8_t *)text, len, path, n_classes, err);
    free(text);
    return status;
}

int qkv_idx_labels_path(const char *path, char *out, size_t cap, qkv_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *at = strstr(base, "images-idx3");
    if (!at)
        at = strstr(base, "images-idx4");
    if (!at)
        return qkv_fail(err, "%.300s: cannot tell its label file: an image file's name holds images-idx3 (the "
                        "labels are the same name with labels-idx1)", path);
    int n = snprintf(out, cap, "%.*slabels-idx1%s", (int)(at - path), path, at + strlen("images-idx3"));
    if (n < 0 || (size_t)n >= cap)
        return qkv_fail(err, "%.300s: name too long", path);
    return QKV_OK;
}

/* dst = the images of src picked by keep[i] == want, in src's order. */
static int copy_part(qkv_images *dst, const qkv_images *src, const uint8_t *keep, uint8_t want, int n,
                     const char *what, qkv_error *err)
{
    memset(dst, 0, sizeof *dst);
    size_t size = (size_t)src->rows * (size_t)src->cols * (size_t)src->channels;
    size_t name_len = strlen(src->name) + 32;
    dst->name = malloc(name_len);
    dst->pixels = malloc((size_t)n * size);
    dst->labels = src->labels ? malloc((size_t)n * sizeof *dst->labels) : NULL;
    dst->labels_name = src->labels_name ? strdup(src->labels_name) : NULL;
    if (!dst->name || !dst->pixels || (src->labels && (!dst->labels || !dst->labels_name)))
        return qkv_fail(err, "%.300s: out of memory for a split", src->name);
    snprintf(dst->name, name_len, "%s (%s part)", src->name, what);
    dst->rows = src->rows;
    dst->cols = src->cols;
    dst->channels = src->channels;
    for (int i = 0; i < src->n; i++) {
        if (keep[i] != want)
            continue;
        memcpy(dst->pixels + (size_t)dst->n * size, src->pixels + (size_t)i * size, size);
        if (src->labels)
            dst->labels[dst->n] = src->labels[i];
        dst->n++;
    }
    return QKV_OK;
}

int qkv_images_split(const qkv_images *all, int n_valid, uint64_t seed, qkv_images *train, qkv_images *valid,
                     qkv_error *err)
{
    memset(train, 0, sizeof *train);
    memset(valid, 0, sizeof *valid);
    if (n_valid < 1 || n_valid >= all->n)
        return qkv_fail(err, "%.300s: a validation part of %d of its %d images: expected 1 .. %d", all->name,
                        n_valid, all->n, all->n - 1);
    int *order = malloc((size_t)all->n * sizeof *order);
    uint8_t *in_valid = calloc((size_t)all->n, 1);
    int status = order && in_valid ? QKV_OK : qkv_fail(err, "%.300s: out of memory for a split", all->name);
    if (status == QKV_OK) {
        qkv_rng rng;
        qkv_rng_seed(&rng, seed);
        for (int i = 0; i < all->n; i++)
            order[i] = i;
        for (int i = all->n - 1; i > 0; i--) {
            int j = (int)qkv_rng_below(&rng, (uint64_t)i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < n_valid; i++)
            in_valid[order[i]] = 1;
        status = copy_part(train, all, in_valid, 0, all->n - n_valid, "training", err);
        if (status == QKV_OK)
            status = copy_part(valid, all, in_valid, 1, n_valid, "validation", err);
    }
    free(order);
    free(in_valid);
    if (status) {
        qkv_images_free(train);
        qkv_images_free(valid);
    }
    return status;
}

void qkv_images_free(qkv_images *im)
{
    free(im->name);
    free(im->pixels);
    free(im->labels);
    free(im->labels_name);
    memset(im, 0, sizeof *im);
}

/* Token t of image i: the pixels of patch (pr, pc) into row [d_input]. */
static void patch_row(const qkv_images *im, int i, int patch, int pr, int pc, float *row)
{
    int C = im->channels;
    const uint8_t *img = im->pixels + (size_t)i * im->rows * im->cols * C;
    for (int y = 0; y < patch; y++)
        for (int x = 0; x < patch; x++)
            for (int c = 0; c < C; c++) {
                uint8_t v = img[((size_t)(pr * patch + y) * im->cols + (size_t)(pc * patch + x)) * C + c];
                row[(y * patch + x) * C + c] = ((float)v / 255.0f - 0.5f) / 0.5f;
            }
}

int qkv_dataset_from_images(qkv_dataset *ds, const qkv_images *im, int patch, int n_prefix, qkv_error *err)
{
    memset(ds, 0, sizeof *ds);
    if (patch < 1 || im->rows % patch || im->cols % patch)
        return qkv_fail(err, "%.300s: a patch of %d x %d pixels does not tile its %d x %d images", im->name, patch,
                        patch, im->rows, im->cols);
    int gr = im->rows / patch, gc = im->cols / patch, len = n_prefix + gr * gc;
    int d_input = patch * patch * im->channels;
    if ((int64_t)im->n * len > INT32_MAX)
        return qkv_fail(err, "%.300s: %d images of %d tokens are too many tokens", im->name, im->n, len);
    int n_words = im->n * len;
    ds->sent_start = malloc(((size_t)im->n + 1) * sizeof *ds->sent_start);
    ds->tags = malloc(((size_t)n_words + 1) * sizeof *ds->tags);
    ds->dense = calloc((size_t)n_words * (size_t)d_input + 1, sizeof *ds->dense);
    if (!ds->sent_start || !ds->tags || !ds->dense) {
        qkv_dataset_free(ds);
        return qkv_fail(err, "%.300s: out of memory for %d tokens of %d values", im->name, n_words, d_input);
    }
    ds->n_sent = im->n;
    ds->n_words = n_words;
    ds->d_input = d_input;
    ds->max_sent_len = im->n > 0 ? len : 0;
    ds->n_nonempty = im->n;
    for (int i = 0; i <= im->n; i++)
        ds->sent_start[i] = i * len;
    for (int i = 0; i < im->n; i++) {
        for (int t = 0; t < len; t++)
            ds->tags[i * len + t] = t == 0 && im->labels ? im->labels[i] : QKV_TAG_NONE;
        for (int g = 0; g < gr * gc; g++)
            patch_row(im, i, patch, g / gc, g % gc, ds->dense + ((size_t)i * len + n_prefix + g) * d_input);
    }
    ds->n_untagged = n_words - (im->labels ? im->n : 0);
    return QKV_OK;
}
