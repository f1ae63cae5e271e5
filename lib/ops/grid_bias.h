/* Score biases of attention over a 2-D grid of tokens (lib/ops/score_bias.h; the layout of
 * each sentence is the bias's grid, lib/grid.h: n_prefix tokens, then rows · cols grid tokens
 * row-major). For query i and key j on the grid, δ = (dy, dx) = (row(j) − row(i), col(j) −
 * col(i)) is the key's offset from the query. A pair with a prefix token (e.g. [CLS]) as query
 * or key has no offset; each kind says what it adds there. Every sentence of the batch must
 * have qkv_grid_len(grid) tokens (attention checks it, a tape error otherwise).
 *
 *   qkv_rel2d_bias_kind      learned, param [n_heads, (2R+1)² + 1], R = clip >= 1:
 *                            b(h, i, j) = param[h][(dy' + R)(2R + 1) + dx' + R], dy', dx' = dy, dx
 *                            clipped to [−R, R] (the 2-D relative position bias of Swin,
 *                            Liu et al. 2021, with Shaw et al. 2018's clipping; one scalar per
 *                            offset as T5, Raffel et al. 2020); a pair with a prefix token:
 *                            param[h][(2R+1)²], one learned bias per head.
 *                            Zero at initialization (plain attention).
 *   qkv_quadratic_bias_kind  learned, param [n_heads, 3] = (Δy, Δx, α) per head:
 *                            b(h, i, j) = −α_h ‖δ − Δ_h‖² (Cordonnier, Loukas & Jaggi 2020, "On
 *                            the relationship between self-attention and convolutional layers",
 *                            section 3, the quadratic encoding: head h attends around the offset
 *                            Δ_h with width set by α_h); pairs with a prefix token: 0. clip is
 *                            unused (0). Initialization: Δ uniform in [−1, 1]², α = 1.
 *   qkv_local2d_kind         constant, clip = w >= 0: 0 when |dy| <= w and |dx| <= w, −∞
 *                            otherwise (2-D truncated attention: the same result as full
 *                            attention masked to the (2w+1)² window); prefix tokens see every
 *                            key and every query sees them (bias 0). Softmax only (relu
 *                            attention would count the masked keys).
 * The gradient of a learned value is the sum of the score gradients of the pairs it entered:
 * rel2d, of the pairs at its offset; quadratic, ∂b/∂Δ = 2α(δ − Δ), ∂b/∂α = −‖δ − Δ‖². */
#ifndef QKV_GRID_BIAS_H
#define QKV_GRID_BIAS_H

#include "lib/ops/score_bias.h"

extern const qkv_score_bias_kind qkv_rel2d_bias_kind;
extern const qkv_score_bias_kind qkv_quadratic_bias_kind;
extern const qkv_score_bias_kind qkv_local2d_kind;

/* The check every 2-D kind shares: grid is 2-D and n_prefix >= 0; 0, else nonzero with the
 * reason in msg [len]. */
int qkv_grid_bias_check(const qkv_score_bias *b, char *msg, size_t len);

/* The offset (dy, dx) of key j from query i (positions in the sentence); false when either is
 * a prefix token. */
static inline bool qkv_grid_offset(qkv_grid g, int i, int j, int *dy, int *dx)
{
    if (i < g.n_prefix || j < g.n_prefix)
        return false;
    *dy = qkv_grid_row(g, j) - qkv_grid_row(g, i);
    *dx = qkv_grid_col(g, j) - qkv_grid_col(g, i);
    return true;
}

#endif
