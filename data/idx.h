/* Images and their class labels, read from IDX files (the format of MNIST and Fashion-MNIST:
 * yann.lecun.com/exdb/mnist), plain or gzip-compressed (through data/textfile.h, as every
 * corpus), and turned into a dataset of token vectors for the image input kinds.
 *
 * An IDX file is a big-endian header, then the values in row-major order: two zero bytes, a
 * type byte (0x08: unsigned byte, the only type read here), the number of dimensions, and one
 * 32-bit size per dimension. An image file has 3 dimensions [n, rows, cols] (one channel) or 4
 * [n, rows, cols, channels]; a label file has 1 dimension [n]. Every error reads "FILE: what is
 * wrong": not an IDX file (wrong magic), the wrong type or number of dimensions, a file shorter
 * or longer than its header says, image and label counts that differ, a label outside the
 * classes. */
#ifndef QKV_DATA_IDX_H
#define QKV_DATA_IDX_H

#include <stdint.h>

#include "data/dataset.h"
#include "lib/error.h"
#include "lib/rng.h"

/* n images of rows x cols pixels with `channels` values each, and their labels. */
typedef struct qkv_images {
    char *name;         /* the image file's name, for messages */
    int n, rows, cols, channels;
    uint8_t *pixels;    /* [n, rows, cols, channels], 0 .. 255 */
    int32_t *labels;    /* [n] class ids, or NULL before qkv_idx_read_labels */
    char *labels_name;  /* the label file's name (NULL without labels) */
} qkv_images;

/* Reads an image file into im (labels NULL). Errors as above; on error im is left empty (safe
 * to free). */
int qkv_idx_read_images(qkv_images *im, const char *path, qkv_error *err);
/* The same from memory (len bytes, already decompressed); name is used in messages. */
int qkv_idx_read_images_mem(qkv_images *im, const uint8_t *data, size_t len, const char *name, qkv_error *err);

/* Reads the label file at path as im's labels: one per image, each below n_classes (>= 1).
 * Errors: those of the format, a count that differs from im->n ("FILE: 9 labels for the 10
 * images of IMAGES"), a label >= n_classes ("FILE: label 12 of image 7 is not one of the 10
 * classes 0 .. 9"). */
int qkv_idx_read_labels(qkv_images *im, const char *path, int n_classes, qkv_error *err);
int qkv_idx_read_labels_mem(qkv_images *im, const uint8_t *data, size_t len, const char *name, int n_classes,
                            qkv_error *err);

/* The label file that goes with an image file in the MNIST naming: "images-idx3" (or
 * "images-idx4") of path's last component replaced by "labels-idx1" into out (cap bytes).
 * Errors: no such part in the name. */
int qkv_idx_labels_path(const char *path, char *out, size_t cap, qkv_error *err);

/* A seeded validation split: n_valid images drawn without replacement from all (a Fisher-Yates
 * shuffle of the indices with a qkv_rng seeded by seed) go to valid, the others to train,
 * each keeping its order in all. 1 <= n_valid < all->n. Both get copies (names "NAME
 * (training part)" / "NAME (validation part)"). Errors: n_valid out of range, out of memory. */
int qkv_images_split(const qkv_images *all, int n_valid, uint64_t seed, qkv_images *train, qkv_images *valid,
                     qkv_error *err);

void qkv_images_free(qkv_images *im);

/* The dataset of images im for a model whose tokens are patch x patch squares of pixels
 * (patch 1: each pixel a token; ViT, Dosovitskiy et al. 2021), n_prefix (0 or 1: a [CLS]
 * token) tokens before them: each image is one sequence of n_prefix + (rows/patch)·(cols/patch)
 * tokens; token vector d_input = patch·patch·channels values, the patch's pixels row-major
 * (channels innermost), each value x/255 scaled to [-1, 1] as (x/255 − 0.5)/0.5; a prefix
 * token's row is zero. The image's label is the gold tag of its first token, every other token
 * is QKV_TAG_NONE (so a per-sequence head reads one tag per image; data/dataset.h); without
 * labels every token is QKV_TAG_NONE. No word features (n_features 0). Errors: patch not
 * dividing rows and cols, out of memory. */
int qkv_dataset_from_images(qkv_dataset *ds, const qkv_images *im, int patch, int n_prefix, qkv_error *err);

#endif
