/* Rotary position embedding, RoPE (Su et al. 2021, "RoFormer: enhanced Transformer with rotary
 * position embedding", section 3.4): in each head, the query and key of the token at position p
 * (counted from its own sentence's start in the packed batch, lib/packed.h) are rotated pair
 * by pair,
 *   y[2i]   = x[2i] cos(p·θ_i) − x[2i+1] sin(p·θ_i)
 *   y[2i+1] = x[2i] sin(p·θ_i) + x[2i+1] cos(p·θ_i),   θ_i = base^(−2i / d_head),
 * i = 0 .. d_head/2 − 1: the interleaved pairing of the paper (not GPT-NeoX's halves). The
 * columns of head h are h·d_head .. (h+1)·d_head − 1. Then q_i·k_j depends on the positions only
 * through j − i. Angles are computed in double. The backward of a rotation is the transposed
 * rotation (angle −p·θ_i). */
#ifndef QKV_ROPE_H
#define QKV_ROPE_H

#include <stdbool.h>

#include "lib/grid.h"
#include "lib/packed.h"
#include "lib/tape.h"

/* theta [d_head / 2] = the rotation frequencies θ_i = base^(−2i / d_head) of pairs
 * i = 0 .. d_head/2 − 1, in radians per position (the angle of pair i at position p is p·θ_i).
 * The one definition of the angles: the rotation below and the pictures of `qkv positions`. */
void qkv_rope_angles(int d_head, double base, double *theta);

/* Rotates in place the first d_model columns of each row of m (rows qkv_packed_rows(sentences),
 * leading dimension ld >= d_model); inverse: by −p·θ_i (the transposed rotation, for the
 * backward). d_model / n_heads must be even and base > 0 (not checked: callers check). */
void qkv_rope_rotate(qkv_real *m, int ld, int d_model, int n_heads, qkv_packed sentences, double base,
                     bool inverse);

/* The axial 2-D rotation (Heo et al. 2024, "Rotary position embedding for vision
 * Transformer", RoPE-Axial): in each head the grid token at row r, column c of grid (lib/grid.h)
 * rotates pairs i < d_head/4 by r·θ'_i and pairs d_head/4 + i by c·θ'_i, with θ' =
 * qkv_rope_angles(d_head / 2, base), the frequencies of a 1-D rotation of half the width: then
 * q·k depends on the positions only through (dy, dx). Prefix tokens are not rotated. Rows as
 * qkv_rope_rotate; every sentence must have qkv_grid_len(grid) tokens, d_head a multiple of 4
 * and base > 0 (not checked: callers check). */
void qkv_rope_rotate_2d(qkv_real *m, int ld, int d_model, int n_heads, qkv_packed sentences, qkv_grid grid,
                        double base, bool inverse);

/* y [T, d_model] = the rotation above of x [T, d_model]: one tape node "rope", its backward the
 * inverse rotation of dy. Tape errors: x not a matrix, n_heads not dividing d_model, an odd
 * d_head, base <= 0 or not finite, sentences not covering x. */
qkv_tensor *qkv_rope(qkv_tape *tp, qkv_tensor *x, qkv_packed sentences, int n_heads, double base);

#endif
