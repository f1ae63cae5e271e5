/* What the image input kinds (models/pixels_input.c, models/patches_input.c; the [CLS] token and
 * the checks also models/conv_patches_input.c) share: each token's
 * dense vector (qkv_network_input.dense [T, d_input]: a pixel's channels, or a patch's pixels
 * flattened, data/idx.h) projected to d_model, y = x W^T + b (ViT's patch embedding, Dosovitskiy
 * et al. 2021), and with model.cls_token a [CLS] token before the grid of each sequence (the
 * grid's n_prefix = 1): its vector is the learned input.cls [d_model] (its dense row is
 * ignored).
 * Parameters: input.proj.w [d_model, d_input] (Xavier uniform), input.proj.b [d_model] (0),
 * input.cls [d_model] (N(0, 0.02^2), not weight-decayed) with the [CLS] token only. */
#ifndef QKV_IMAGE_INPUT_H
#define QKV_IMAGE_INPUT_H

#include <stdbool.h>

#include "models/kinds.h"

/* Creates the parameters for cfg (d_input, grid.n_prefix, encoder.d_model). Errors: d_input <
 * 1, no 2-D grid, n_prefix other than 0 or 1, out of memory. */
int qkv_image_input_create(qkv_input *in, qkv_params *ps, qkv_rng *rng, const struct qkv_network_config *cfg,
                           qkv_error *err);
/* [T, d_model] for batch->dense [T, d_input]; tape errors: no dense vectors, a sequence whose
 * length is not the grid's. */
qkv_tensor *qkv_image_input_forward(qkv_tape *tp, const qkv_input *in, const struct qkv_network_input *batch);
int qkv_image_input_n_tables(const qkv_input *in);
/* The grid check of every image input kind (named kind in the message): a 2-D grid after 0 or 1
 * prefix tokens. */
int qkv_image_grid_check(const char *kind, const struct qkv_network_config *cfg, qkv_error *err);
/* With cfg's [CLS] token (grid.n_prefix 1): *cls the parameter input.cls [d_model], N(0, 0.02^2),
 * not weight-decayed; else *cls NULL. Errors: out of memory. */
int qkv_image_cls_create(qkv_params *ps, qkv_rng *rng, const struct qkv_network_config *cfg, qkv_tensor **cls,
                         qkv_error *err);
/* Fails the tape (naming kind) for a batch without dense vectors or with a sequence of other
 * than len tokens; QKV_OK otherwise. */
int qkv_image_check_batch(qkv_tape *tp, const char *kind, const struct qkv_network_input *batch, int len);
/* The input's output [T, d_model] with each sequence's first token the [CLS] vector cls [d_model]
 * (cls NULL: y itself): y_has_prefix, y [T, d_model] is row for row the sequences' tokens (the
 * [CLS] rows unused); else y [T - n, d_model] holds only the grid tokens, sequence after sequence. */
qkv_tensor *qkv_image_place_cls(qkv_tape *tp, const char *kind, qkv_tensor *cls, qkv_tensor *y, qkv_packed sentences,
                                bool y_has_prefix);
void qkv_image_input_free(qkv_input *in);

#endif
