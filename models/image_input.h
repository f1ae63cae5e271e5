/* What the image input kinds (models/pixels_input.c, models/patches_input.c) share: each token's
 * dense vector (qkv_network_input.dense [T, d_input]: a pixel's channels, or a patch's pixels
 * flattened, data/idx.h) projected to d_model, y = x W^T + b (ViT's patch embedding, Dosovitskiy
 * et al. 2021), and with model.cls_token a [CLS] token before the grid of each sequence (the
 * grid's n_prefix = 1): its vector is the learned input.cls [d_model] (its dense row is
 * ignored).
 * Parameters: input.proj.w [d_model, d_input] (Xavier uniform), input.proj.b [d_model] (0),
 * input.cls [d_model] (N(0, 0.02^2), not weight-decayed) with the [CLS] token only. */
#ifndef QKV_IMAGE_INPUT_H
#define QKV_IMAGE_INPUT_H

#include "models/kinds.h"

/* Creates the parameters for cfg (d_input, grid.n_prefix, encoder.d_model). Errors: d_input <
 * 1, no 2-D grid, n_prefix other than 0 or 1, out of memory. */
int qkv_image_input_create(qkv_input *in, qkv_params *ps, qkv_rng *rng, const struct qkv_network_config *cfg,
                           qkv_error *err);
/* [T, d_model] for batch->dense [T, d_input]; tape errors: no dense vectors, a sequence whose
 * length is not the grid's. */
qkv_tensor *qkv_image_input_forward(qkv_tape *tp, const qkv_input *in, const struct qkv_network_input *batch);
int qkv_image_input_n_tables(const qkv_input *in);
void qkv_image_input_free(qkv_input *in);

#endif
