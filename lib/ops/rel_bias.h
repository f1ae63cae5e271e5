/* Relative position biases, a score bias of attention (lib/ops/score_bias.h): a learned scalar
 * per head and clipped relative position,
 *   b(h, i, j) = rel_bias[h][clip(j − i, −R, R) + R],   rel_bias [n_heads, 2R + 1]
 * (relative position representations, Shaw et al. 2018, reduced to one scalar per offset as the
 * bias of Raffel et al. 2020, T5, with Shaw's clipping instead of T5's log buckets). The
 * gradient of rel_bias[h][k] is the sum of the score gradients of the pairs at offset k. */
#ifndef QKV_REL_BIAS_H
#define QKV_REL_BIAS_H

#include "lib/ops/score_bias.h"

extern const qkv_score_bias_kind qkv_rel_bias_kind;

/* The score bias of rel_bias [n_heads, 2·clip + 1] (checked when attention runs: a negative
 * clip, a table missing or of the wrong shape, a table with clip 0 are tape errors). */
qkv_score_bias qkv_rel_bias(qkv_tensor *rel_bias, int clip);

#endif
