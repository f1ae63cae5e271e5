/* What a tagger's positional encoding is, as matrices to draw (`qkv positions`): for positions
 * 0 .. n−1, beyond the training length too,
 *   "encoding"    position × dimension: PE(p) of sinusoidal, learned and floater; cos(p·θ_i)
 *                 per rotary pair i of rope; the bias −m_h·p at distance p per head of alibi
 *   "similarity"  position × position: cosine(PE(i), PE(j)) of the additive kinds; for rope the
 *                 mean over pairs of cos((j − i)·θ_i), the factor rotation puts on a query–key
 *                 pair of equal content; for alibi the mean over heads of −m_h·|i − j|
 *   "relative"    with model.attn_rel_clip: layer 0's learned bias r_h(clip(j − i)), mean over
 *                 heads. */
#ifndef QKV_POSITIONS_H
#define QKV_POSITIONS_H

#include "models/tagger.h"

#define QKV_POSITION_PANELS 3

typedef struct qkv_position_panel {
    char title[160];
    const char *xlabel, *ylabel;
    int rows, cols;
    double *data; /* [rows, cols], malloc'd */
} qkv_position_panel;

typedef struct qkv_position_pictures {
    int n_panels;
    qkv_position_panel panels[QKV_POSITION_PANELS];
} qkv_position_pictures;

/* Fills pp for positions 0 .. n−1 (n >= 1; a learned table without clamping stops at its
 * max_len). Errors: a model with no positional information (none and no relative biases), out of
 * memory, a tape failure of floater. Free with qkv_position_pictures_free (also after an error). */
int qkv_position_pictures_make(const qkv_tagger *m, int n, qkv_position_pictures *pp, qkv_error *err);
void qkv_position_pictures_free(qkv_position_pictures *pp);

#endif
