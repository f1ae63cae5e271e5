/* What a model's positional encoding is, as matrices to draw (`qkv positions`): for positions
 * 0 .. n−1, beyond the training length too, the two matrices its kind draws (lib/nn/positional.h,
 * each kind's draw: position × its dimensions, position × position), then with
 * model.attn_rel_clip layer 0's learned relative bias r_h(clip(j − i)), mean over heads. The 2-D
 * kinds (rel2d, quadratic2d, rope2d) instead draw, over the image's grid, what layer 0 gives the
 * keys of the centre query: each head's score bias side by side and their mean, or rope2d's
 * mean over pairs of cos(angle difference). */
#ifndef QKV_POSITIONS_H
#define QKV_POSITIONS_H

#include "models/network.h"

#define QKV_POSITION_PANELS 3

typedef qkv_pos_panel qkv_position_panel; /* data [rows, cols], malloc'd */

typedef struct qkv_position_pictures {
    int n_panels;
    qkv_position_panel panels[QKV_POSITION_PANELS];
} qkv_position_pictures;

/* Fills pp for positions 0 .. n−1 (n >= 1; fewer when the kind draws fewer, e.g. a learned
 * table without clamping stops at its max_len). Errors: a model with no positional information
 * (a kind that draws nothing and no relative biases), out of memory, a tape failure (floater).
 * Free with qkv_position_pictures_free (also after an error). */
int qkv_position_pictures_make(const qkv_network *m, int n, qkv_position_pictures *pp, qkv_error *err);
void qkv_position_pictures_free(qkv_position_pictures *pp);

#endif
