/* Data augmentation of images during training: a random crop of the image padded with black
 * pixels, and a random horizontal flip (the "random crop with padding + horizontal flip" of
 * CIFAR training since Krizhevsky et al. 2012, as torchvision's RandomCrop(padding) and
 * RandomHorizontalFlip apply it), done on the token vectors of a filled batch (data/idx.h's
 * layout: n_prefix tokens, then the rows/patch x cols/patch patches row-major, each patch's
 * pixels row-major with the channels innermost, a pixel value v stored as (v/255 - 0.5)/0.5).
 *
 * Image s of a batch is shifted by (oy - pad, ox - pad) pixels, oy and ox uniform in
 * 0 .. 2·pad, pixels shifted in from outside being black (value -1, that of pixel 0), then
 * mirrored left-right with probability 1/2. The draws are a pure function of (key, the image's
 * index in its corpus), so a step's images are the same whichever process holds them. Prefix
 * tokens ([CLS]) are left as they are. Only the trainer calls it, on training batches: the
 * dev and test images are never changed. */
#ifndef QKV_DATA_IMAGE_AUGMENT_H
#define QKV_DATA_IMAGE_AUGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "data/batch.h"
#include "lib/error.h"

typedef enum { QKV_AUGMENT_NONE, QKV_AUGMENT_CROP_FLIP, QKV_AUGMENT_COUNT } qkv_augment_kind;
/* "none", "crop_flip" (index = value), then NULL. */
extern const char *const QKV_AUGMENT_NAMES[];

/* How an image's tokens are laid out: rows x cols pixels of `channels` values, patch x patch
 * pixels a token (patch divides rows and cols), n_prefix tokens before the grid. */
typedef struct qkv_image_layout {
    int rows, cols, channels, patch, n_prefix;
} qkv_image_layout;

/* One image's draws: crop offset oy, ox in 0 .. 2·pad of the padded image, and the flip. */
typedef struct qkv_image_shift {
    int oy, ox;
    bool flip;
} qkv_image_shift;

/* The draws of the image with corpus index id under key (pad >= 0). */
qkv_image_shift qkv_image_shift_draw(uint64_t key, uint64_t id, int pad);

/* Applies sh to one image's tokens [n_prefix + (rows/patch)·(cols/patch), patch²·channels] in
 * place: output pixel (y, x) is input pixel (y + oy - pad, x' + ox - pad) with x' = cols-1-x
 * when flipped (else x), -1 outside the image. scratch holds rows·cols·channels floats. */
void qkv_image_augment_one(float *tokens, const qkv_image_layout *l, int pad, qkv_image_shift sh, float *scratch);

/* Augments every image of batch b (its dense vectors) by kind (NONE: nothing) with crops of up
 * to pad pixels, drawn under key (qkv_image_shift_draw with each image's sent_id). Errors:
 * a sequence that is not n_prefix + grid tokens of the batch's width, out of memory. */
int qkv_batch_augment_images(qkv_batch *b, const qkv_image_layout *l, qkv_augment_kind kind, int pad, uint64_t key,
                             qkv_error *err);

#endif
