/* Random crops of padded images and horizontal flips on a batch's token vectors
 * (data/image_augment.h). */
#include "data/image_augment.h"

#include <stdlib.h>

const char *const QKV_AUGMENT_NAMES[] = {"none", "crop_flip", NULL};
_Static_assert(sizeof QKV_AUGMENT_NAMES / sizeof QKV_AUGMENT_NAMES[0] == QKV_AUGMENT_COUNT + 1,
               "one name per qkv_augment_kind");

/* The stored value of a black pixel (v = 0 in data/idx.h's scaling). */
#define BLACK (-1.0f)

qkv_image_shift qkv_image_shift_draw(uint64_t key, uint64_t id, int pad)
{
    uint64_t k = qkv_rng_key(key, id);
    int n = 2 * pad + 1;
    qkv_image_shift sh;
    sh.oy = (int)(qkv_rng_uniform_at(k, 0) * n);
    sh.ox = (int)(qkv_rng_uniform_at(k, 1) * n);
    sh.flip = qkv_rng_uniform_at(k, 2) < 0.5;
    return sh;
}

/* Offset of pixel (y, x)'s first channel in the tokens of an image of layout l. */
static size_t pixel_at(const qkv_image_layout *l, int y, int x)
{
    int p = l->patch, gc = l->cols / p;
    size_t token = (size_t)l->n_prefix + (size_t)(y / p) * gc + (size_t)(x / p);
    return token * (size_t)(p * p * l->channels) + (size_t)((y % p) * p + x % p) * l->channels;
}

void qkv_image_augment_one(float *tokens, const qkv_image_layout *l, int pad, qkv_image_shift sh, float *scratch)
{
    int C = l->channels;
    for (int y = 0; y < l->rows; y++)
        for (int x = 0; x < l->cols; x++)
            for (int c = 0; c < C; c++)
                scratch[((size_t)y * l->cols + x) * C + c] = tokens[pixel_at(l, y, x) + c];
    for (int y = 0; y < l->rows; y++)
        for (int x = 0; x < l->cols; x++) {
            int sy = y + sh.oy - pad, sx = (sh.flip ? l->cols - 1 - x : x) + sh.ox - pad;
            bool inside = sy >= 0 && sy < l->rows && sx >= 0 && sx < l->cols;
            float *out = tokens + pixel_at(l, y, x);
            for (int c = 0; c < C; c++)
                out[c] = inside ? scratch[((size_t)sy * l->cols + sx) * C + c] : BLACK;
        }
}

int qkv_batch_augment_images(qkv_batch *b, const qkv_image_layout *l, qkv_augment_kind kind, int pad, uint64_t key,
                             qkv_error *err)
{
    if (kind == QKV_AUGMENT_NONE || b->n_sent == 0)
        return QKV_OK;
    int p = l->patch, len = l->n_prefix + (l->rows / p) * (l->cols / p), width = p * p * l->channels;
    if (!b->dense || b->d_input != width)
        return qkv_fail(err, "image augmentation: the batch's tokens are %d values wide, a %d x %d patch of %d "
                        "channels is %d", b->dense ? b->d_input : 0, p, p, l->channels, width);
    float *scratch = malloc((size_t)l->rows * l->cols * l->channels * sizeof *scratch);
    if (!scratch)
        return qkv_fail(err, "image augmentation: out of memory for a %d x %d image", l->rows, l->cols);
    int status = QKV_OK;
    for (int s = 0; s < b->n_sent && status == QKV_OK; s++) {
        if (b->offsets[s + 1] - b->offsets[s] != len) {
            status = qkv_fail(err, "image augmentation: image %d of the batch has %d tokens, its layout %d",
                              b->sent_ids[s], b->offsets[s + 1] - b->offsets[s], len);
            break;
        }
        qkv_image_shift sh = qkv_image_shift_draw(key, (uint64_t)b->sent_ids[s], pad);
        qkv_image_augment_one(b->dense + (size_t)b->offsets[s] * width, l, pad, sh, scratch);
    }
    free(scratch);
    return status;
}
